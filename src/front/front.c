/* front.c — the front end in one call: preprocess, parse, check. */
#include <stdlib.h>

#include "front.h"

Node *front_compile(Arena *a, const char *path, const char *text,
                    const FrontOptions *opt)
{
	int ntok;
	Token *toks = preprocess(a, path, text, &opt->pp, &ntok);
	if (!toks || diag_state.errors) {   /* parse errors would only echo them */
		free(toks);
		return NULL;
	}
	/* the tree keeps no token: the array (64 bytes a token) goes now */
	Node *unit = parse_unit(a, toks, ntok);
	free(toks);
	if (diag_state.errors || diag_too_many())
		return NULL;
	if (!sema_unit(a, unit, &opt->sema) || diag_state.errors)
		return NULL;
	return unit;
}
