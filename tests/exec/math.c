#include "harness.h"
const HTest exec_math[] = {{0}};
