/* warp.h — a tiny interpreter of the straight-line PTX that region.c's
 * conversion emitter writes (px_emit_plan): 32 lanes, registers by name,
 * the .global lane tables of the module.  It knows exactly the
 * instruction forms that emitter produces and fails on anything else, so
 * tests/layout breaks when the emitter grows a new form. */
#ifndef LAYOUT_WARP_H
#define LAYOUT_WARP_H

#include <stdbool.h>
#include <stdint.h>

typedef struct Warp Warp;

Warp *warp_new(void);
void warp_free(Warp *w);
/* Forgets every register and lane table (%lane stays defined). */
void warp_reset(Warp *w);
/* Defines register name (its class from its prefix: %p %h %r %rd %f %fd)
 * in all 32 lanes. */
void warp_set(Warp *w, const char *name, const uint64_t v[32]);
/* The register's 32 lanes; false when it was never written. */
bool warp_get(Warp *w, const char *name, uint64_t v[32]);
/* Reads the ".global .align 4 .b8 NAME[32] = {...};" lines of text. */
bool warp_tables(Warp *w, const char *text);
/* Runs the instruction lines of text ("\tins;" and "\t// comment").
 * False on the first unknown or ill-typed instruction, or a read of an
 * undefined register; warp_error says which line and why. */
bool warp_run(Warp *w, const char *text);
const char *warp_error(const Warp *w);

#endif
