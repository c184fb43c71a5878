#include "harness.h"
const HTest exec_sync[] = {{0}};
