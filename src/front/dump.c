/* dump.c — STUB, being written (owner: parser). */
#include "front.h"
void ast_dump(const Node *unit, Buf *out) {}
