/* pp.c — STUB, being written (owner: lexer/preprocessor). */
#include "front.h"
Token *preprocess(Arena *a, const char *path, const char *text, const PPOptions *opt, int *ntok)
{
	error_at((Loc){0}, "preprocessor not built yet");
	return NULL;
}
void pp_print(const Token *toks, int n, Buf *out) {}
