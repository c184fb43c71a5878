/* sema_builtin.c — STUB, being written. */
#include "front.h"
typedef int sema_builtin_stub_;
