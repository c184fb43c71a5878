#include "harness.h"
const HTest exec_members[] = {{0}};
