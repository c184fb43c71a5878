/* harness.h — the CM execution tests' shared harness.
 *
 * A test is a C function (TEST(name)) that fills inputs with random data,
 * computes the expected result with a C reference, runs a CM kernel from
 * tests/exec/<file>.cm on $CMETAL_DEVICE (default cpu) and compares.  The
 * seed changes every run and is printed on failure (CMETAL_SEED=n repeats
 * a run).  Arguments are listed with IN/OUT/INOUT (buffers), SURF2D,
 * SVM_IN/SVM_OUT (SVM allocations passed as svmptr_t) and I32/U32/F32
 * scalars, in the kernel's parameter order. */
#ifndef EXEC_HARNESS_H
#define EXEC_HARNESS_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cmetal.h"

typedef struct {
	const char *name;
	uint64_t rng;
	unsigned seed;
	bool failed;
	int printed;
	bool no_digest;   /* its outputs vary from run to run by design (a
	                     look-back scan's order of float sums, its state
	                     buffer's tiles): checked, not hashed */
} H;

enum { HA_IN, HA_OUT, HA_INOUT, HA_SCALAR, HA_SURF2D, HA_SVM_IN, HA_SVM_OUT };

typedef struct {
	int kind;
	void *p;
	size_t bytes;
	uint32_t w, h;          /* 2D: pixels */
	cmetal_format fmt;
} HArg;

#define IN(x) ((HArg){HA_IN, (void *)(x), sizeof(x)})
#define OUT(x) ((HArg){HA_OUT, (void *)(x), sizeof(x)})
#define INOUT(x) ((HArg){HA_INOUT, (void *)(x), sizeof(x)})
#define SVM_IN(x) ((HArg){HA_SVM_IN, (void *)(x), sizeof(x)})
#define SVM_OUT(x) ((HArg){HA_SVM_OUT, (void *)(x), sizeof(x)})
#define SURF2D(x, W, Hh, F) ((HArg){HA_SURF2D, (void *)(x), sizeof(x), (W), (Hh), (F)})
#define I32(v) ((HArg){HA_SCALAR, &(int32_t){(int32_t)(v)}, 4})
#define U32(v) ((HArg){HA_SCALAR, &(uint32_t){(uint32_t)(v)}, 4})
#define F32(v) ((HArg){HA_SCALAR, &(float){(float)(v)}, 4})

/* Launch shapes: a walker of wx x wy threads, or groups of threads. */
typedef struct {
	uint32_t wx, wy;
	uint32_t groups[3], threads[3];
	bool grouped;
	cmetal_dependency dep;
	const char *options;
} HShape;

#define WALK(x, y) ((HShape){(x), (y), {0}, {0}, false, CMETAL_DEP_NONE, NULL})
#define GROUPS(g, t) ((HShape){0, 0, {(g), 1, 1}, {(t), 1, 1}, true, CMETAL_DEP_NONE, NULL})

/* Runs kernel `kernel` of tests/exec/<file>.cm; false (and a failure) if
 * building or launching failed.  OUT/INOUT/SVM_OUT/SURF2D data is read
 * back into the caller's arrays. */
bool h_run_n(H *h, const char *file, const char *kernel, HShape s, HArg *a, int n);
#define H_RUN(h, file, kernel, shape, ...)                                    \
	h_run_n((h), (file), (kernel), (shape), (HArg[]){__VA_ARGS__},        \
	        (int)(sizeof((HArg[]){__VA_ARGS__}) / sizeof(HArg)))

/* The same for several kernels of one program run as one task; entries
 * are separated by syncs. */
typedef struct {
	const char *kernel;
	HShape shape;
} HEntry;
bool h_task(H *h, const char *file, HEntry *e, int ne, HArg *a, int n);

void h_fail(H *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
uint32_t h_rand(H *h);
int32_t h_range(H *h, int32_t lo, int32_t hi);          /* [lo, hi] */
float h_float(H *h, float lo, float hi);
void h_fill_i32(H *h, int32_t *p, size_t n, int32_t lo, int32_t hi);
void h_fill_u8(H *h, uint8_t *p, size_t n);
void h_fill_f32(H *h, float *p, size_t n, float lo, float hi);
bool h_eq_i32(H *h, const char *what, const int32_t *got, const int32_t *want, size_t n);
bool h_eq_u32(H *h, const char *what, const uint32_t *got, const uint32_t *want, size_t n);
bool h_eq_u8(H *h, const char *what, const uint8_t *got, const uint8_t *want, size_t n);
bool h_eq_i16(H *h, const char *what, const int16_t *got, const int16_t *want, size_t n);
bool h_near_f32(H *h, const char *what, const float *got, const float *want, size_t n,
                float rel);
/* Captured printf output of the last run. */
const char *h_printed(void);

typedef struct {
	const char *name;
	void (*fn)(H *h);
} HTest;
#define TEST(n) static void t_##n(H *h)
#define T(n) {#n, t_##n}

extern const HTest exec_core[], exec_members[], exec_simd[], exec_memory[],
	exec_math[], exec_sync[], exec_arith[], exec_dataport[], exec_lang[],
	exec_compat[], exec_dpas[];
extern const HTest exec_gpu_regress[], exec_diff_regress[], exec_fp[], exec_occupancy[],
                    exec_vloop[], exec_unroll[], exec_ifconv[];
extern const HTest exec_pack[], exec_async[];

#endif
