/* front.c — the front end in one call: preprocess, parse, check. */
#include <stdlib.h>

#include "front.h"

Node *front_compile(Arena *a, const char *path, const char *text,
                    const FrontOptions *opt)
{
	TokenList toks = {0};
	if (!preprocess(a, path, text, &opt->pp, &toks) || diag_state.errors) {
		tl_free(&toks);   /* parse errors would only echo them */
		return NULL;
	}
	/* the parser frees the tokens behind it; the tree keeps none */
	Node *unit = parse_unit(a, &toks);
	tl_free(&toks);
	if (diag_state.errors || diag_too_many())
		return NULL;
	if (!sema_unit(a, unit, &opt->sema) || diag_state.errors)
		return NULL;
	return unit;
}
