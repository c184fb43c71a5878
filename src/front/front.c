/* front.c — the front end in one call: preprocess, parse, check. */
#include "front.h"

Node *front_compile(Arena *a, const char *path, const char *text,
                    const FrontOptions *opt)
{
	int ntok;
	Token *toks = preprocess(a, path, text, &opt->pp, &ntok);
	if (!toks || diag_state.errors)   /* parse errors would only echo them */
		return NULL;
	Node *unit = parse_unit(a, toks, ntok);
	if (diag_state.errors || diag_too_many())
		return NULL;
	if (!sema_unit(a, unit, &opt->sema) || diag_state.errors)
		return NULL;
	return unit;
}
