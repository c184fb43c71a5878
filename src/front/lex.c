/* lex.c — STUB, being written (owner: lexer/preprocessor). */
#include "front.h"
const char *keyword_names[KW_COUNT_];
const char *punct_names[P_COUNT_];
