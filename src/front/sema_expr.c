/* sema_expr.c — STUB, being written. */
#include "front.h"
typedef int sema_expr_stub_;
