#include "harness.h"
const HTest exec_memory[] = {{0}};
