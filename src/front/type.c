/* type.c — STUB, being written. */
#include "front.h"
typedef int type_stub_;
