/* badabi.c — a kernel library of another ABI version (must be refused). */
#include "cmk_abi.h"

const uint32_t cmk_abi_version = CMK_ABI_VERSION + 41;
const CmkProgramInfo cmk_program = {0, 0};
