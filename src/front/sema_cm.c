/* sema_cm.c — STUB, being written. */
#include "front.h"
typedef int sema_cm_stub_;
