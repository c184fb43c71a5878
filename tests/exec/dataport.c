/* dataport.c — placeholder, filled below. */
#include "harness.h"
const HTest exec_dataport[] = {
	{0},
};
