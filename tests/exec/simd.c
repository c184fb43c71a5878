#include "harness.h"
const HTest exec_simd[] = {{0}};
