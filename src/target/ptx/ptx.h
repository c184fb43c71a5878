/* ptx.h — the PTX back end's internal header, sectioned by the file that
 * implements each part.
 *
 * Model (DESIGN.md §2): a CM thread is one warp.  A value of n > 1
 * elements lives in a layout (layout.c, chosen by assign.c): element i in
 * some lane of some register slot.  The canonical layout puts element i in
 * lane i % 32 of slot i / 32 (ceil(n / 32) registers per lane); memory,
 * votes, reductions and phis use it, and px_reg names a value's registers
 * in it (its own, or the copy assign.c arranged).  A scalar (n == 1) is
 * uniform: one register, every lane holds the value.  Lanes past n in the
 * last slot hold don't-care values; votes, reductions and stores mask
 * them off.
 *
 * Register classes: i1 -> .pred, 8/16/32-bit integers -> .b32 kept
 * normalized (sign- or zero-extended to 32 bits), 64-bit -> .b64,
 * f16 -> .b16, f32 -> .f32, f64 -> .f64.  Value %5 slot 2 of class b32 is
 * "%r5_2"; temporaries are "%rt7" and the like.
 */
#ifndef CMETAL_PTX_H
#define CMETAL_PTX_H

#include "target/target.h"

typedef enum { RC_PRED, RC_B16, RC_B32, RC_B64, RC_F32, RC_F64, RC_COUNT_ } RegClass;

struct Layout;
struct LPlan;
#define PX_MAX_COPIES 8
/* The leader of a block group (bgroup.c): the group's root, scale, and the
 * byte range [lo, hi) of its members relative to root * scale; once
 * emitted, the uniform test and the pointer at root * scale + lane's
 * element. */
typedef struct PxBGroup {
	const struct Inst *root;
	uint32_t scale;
	int64_t lo, hi;
	const char *ok, *ptr;
} PxBGroup;
/* The leader of a media group (mgroup.c), which tests the group's box
 * once: x = xr * xs + c, y = yr * ys + c of every member, and the box of
 * bytes [x0, x1) and rows [y0, y1) from those; the members, the leader
 * first, and whether the leader makes all their loads at once. */
/* A vector of contiguous block loads read by its columns (bwide.c): its
 * n loads of ne elements, the one at element 0, and k elements a lane in
 * the run layout. */
typedef struct PxWide {
	const struct Inst **ld;
	const struct Inst *at0;
	uint32_t n, ne, k;
} PxWide;
typedef struct PxMGroup {
	const char *ok;       /* (once emitted) the test */
	const struct Inst *xr, *yr;
	uint32_t xs, ys;
	int64_t x0, x1, y0, y1;
	Inst **m;
	uint32_t n;
	bool hoist;
	bool span;            /* emitted as a versioned span (emit.c emit_span,
	                         mgroup.c px_mgroup_span) */
	bool span_fast;       /* (while its span is emitted) the copy without
	                         checks, else the exact one */
} PxMGroup;
/* A value's facts for the PTX back end, one per value id (Px.val): a few
 * words, as a kernel has one per instruction; what only the leader of a
 * group of accesses needs hangs off it. */
typedef struct {
	struct Layout *lay;   /* where its own registers hold it (vectors;
	                         scalars have none) */
	uint32_t *srcregs;    /* rdregion in place: the source register of each */
	const struct Inst *host; /* the value whose registers it lives in: (a
	                         phi) an incoming value (phic.c), or (a
	                         cm_wgmma updating a loop's accumulator in
	                         place) the loop's phi (wgmma.c); NULL: its own */
	const struct Layout **copy; /* layouts users read it in: ncopies of
	                         PX_MAX_COPIES, made with the first */
	const struct Block **copy_at; /* per copy: the block at whose start it
	                         is made (assign.c sink_copies), NULL: right
	                         after the definition */
	const struct Layout *want; /* the layout its users want it in (want.c) */
	uint64_t umax;        /* integers: every element is in [0, umax]
	                         (UINT64_MAX: unknown or maybe negative; range.c) */
	const struct Inst *store_before; /* (on a reader) this value, before it */
	const struct Inst *rlead; /* (a runtime-offset scalar extract of an SLM
	                           copy) the first of its block's extracts of the
	                           same copy at the same runtime offset: it loads
	                           them all (slm.c px_slm_rextract) */
	const char *scr;      /* register: the warp's scratch base, once stored */
	PxWide *wide;         /* (a wrregion) the wide load emitted here (bwide.c) */
	union {               /* by the instruction's kind (read only there): */
		struct {      /* a block access: */
			const struct Inst *blead; /* the leader of its group,
			                 checked once (bgroup.c), ... */
			int64_t bc;   /* ... at offset root * scale + bc */
			PxBGroup *bg; /* (a leader) its group */
		};
		struct {      /* a media access: */
			const Inst *mlead; /* the leader of its group (mgroup.c) */
			PxMGroup *mg; /* (a leader) its group */
		};
		const Inst *pair;     /* a wrregion: its first load: the pair's
		                         load is emitted here (bpair.c) */
		const Inst *dpair;    /* a cm_dpas: its partner, emitted with it
		                         as one m16n8k4 (dpair.c) */
		struct {      /* a cm_wgmma of a group (wgmma.c px_wgmma_groups): */
			const Inst *wnext; /* the next member (NULL: the last,
			                 where the group's one wgmma is emitted) */
			const Inst *whead; /* the first member */
			const Inst *wprev; /* (a group's last member) the last
			                 member of the group before it in its
			                 chain: it updates the same accumulators
			                 and waits for them with it */
			bool wmore;   /* (a group's last member) a later group
			                 continues its chain: no wait here */
			bool winplace; /* (a group's last member) its chain
			                 updates its accumulators' phis' registers
			                 in place (host): an async chain need not
			                 wait at its end */
		};
		struct {      /* an SLM gather or scatter: */
			const Inst *svlead; /* (a member of a merged group) where
			                 the group's vector accesses are emitted
			                 (slmvec.c) */
			struct PxSv *sv; /* (there, or at a refused group's first
			                 member) the group and its -S note */
		};
	};
	uint32_t ncopies;
	uint32_t slm;         /* (in SLM) its byte offset in the scratch, ... */
	uint32_t slm_pitch;   /* (a copy read only by costly regions) a word of
	                         padding after every slm_pitch elements, so
	                         that reading a column is conflict-free; 0: none */
	int32_t rkmin, rkmax; /* (on rlead) their constant offsets' range */
	bool wghost;          /* (a phi) a wgmma chain's results live in its
	                         registers (wgmma.c): phic.c leaves it be */
	bool wgregs;          /* its registers may be written by a wgmma still
	                         in flight (wgmma.c: an async cm_wgmma's result
	                         or the phi it lives in): waited for before
	                         any other read */
	bool in_slm;          /* also in the warp's SLM scratch (slm.c), ... */
	bool store_after;     /* ... stored right after its definition, or
	                         before a reader (store_before) */
	bool placed;          /* (the store is placed: one of the two) */
	bool grouped;         /* (a constant extract) a 16-byte load serves it
	                         and another extract of its block */
	bool slm_rd;          /* (a constant vector rdregion) read from its
	                         source's SLM copy, one load per register,
	                         where its shuffle plan costs more (assign.c) */
	bool exact;           /* 8/16-bit result known to fit its type: its
	                         32-bit register needs no normalization */
	bool skip;            /* emits nothing: part of a pair or a wide load */
	bool wpart;           /* a load or wrregion of a wide load: its layout
	                         set by bwide.c, left alone by assign.c */
	bool inb;             /* (a block access in a versioned loop) inside its
	                         surface in every iteration when the loop's test
	                         passes: unchecked in its second copy (vloop.c) */
	uint32_t vspan;       /* (inb) 1 + the index of the span of the loop's
	                         test that covers it (vloop.c) */
	bool proven;          /* (an SLM block access) inside the SLM for every
	                         value of its offsets (range.c): never checked,
	                         in no group or versioned loop */
	bool svseen;          /* (an SLM gather/scatter) considered by slmvec.c */
	struct PxLdsm *ldsm;  /* (an SLM gather) the pair of gathers one
	                         ldmatrix.x4 may load (ldsm.c) */
} PxVal;

/* dpas.c's fragment layouts of one cm_dpas, made on first use. */
typedef struct {
	const struct Layout *l[3];
	uint8_t done;         /* bit k: l[k] made (NULL is an answer too) */
} PxFrag;

/* A copy made at the start of a block (PxVal.copy_at): copy k of v. */
typedef struct PxSunk {
	const Inst *v;
	uint32_t k;
	struct PxSunk *next;
} PxSunk;

/* The state of emitting one kernel. */
typedef struct {
	Func *f;
	const EmitOptions *o;
	Arena *arena;         /* names; lives for the kernel */
	Arena *tmp;           /* scratch of one decision (assign.c's costs) or
	                         one instruction's emission (its plans): reset
	                         after it, so nothing in it is kept */
	PxSunk **sunk;        /* by block id: the copies made at its start */
	Buf body;             /* instructions, after the declarations */
	Buf cold;             /* slow paths, after the kernel's ret (px_cold) */
	Buf entry;            /* blimit.c: per-kernel values, after the prologue */
	struct PxLim *lims;   /* blimit.c: those computed so far */
	struct PxLaneTab *ltabs; /* region.c px_lane_elems: those made so far */
	struct PxLaneOff *loffs; /* mem.c media_lane_off: the same */
	PxFrag *frags;        /* dpas.c: by cm_dpas id, its fragment layouts */
	bool wgmma;           /* the kernel has cm_wgmma: barriers fence the
	                         async proxy (wgmma.c px_wgmma) */
	const char **wacc;    /* wgmma.c: the accumulator registers of the
	                         wgmma chain being emitted */
	bool wg_async;        /* wgmma.c: some async cm_wgmma is left in flight */
	bool wg_open;         /* async wgmmas issued since the last commit, ... */
	bool *wg_open_in;     /* ... and at each block's start (by id): commit
	                         only then (a commit of none is an empty wgmma
	                         that ptxas fences in divergent code) */
	bool wg_dirty;        /* this thread may have written SLM since its
	                         last fence.proxy.async, ... */
	bool *wg_dirty_in;    /* ... and at each block's start: a barrier or a
	                         wgmma chain fences the async proxy only then */
	bool wg_clear;        /* none is in flight here: no wait needed before
	                         reading a wgregs value (false at a block's
	                         start when wg_async) */
	uint32_t in_cold;     /* between px_cold_begin and px_cold_end */
	bool quiet;           /* px_comment writes nothing (emit.c emit_span's
	                         second copy: its notes are the first's) */
	uint8_t slm_pending;  /* SLM writes of this thread its other lanes may
	                         not see yet: SLM_STORED | SLM_ATOMIC (mem.c) */
	uint8_t *slm_in;      /* the same at each block's start, by block id */
	uint32_t ntmp[RC_COUNT_];
	uint32_t nshfl;       /* static shfl.sync count */
	uint32_t nselp;       /* selects placed by region moves */
	uint32_t nlabel;
	uint8_t vside;        /* variant.c: emitting a media read's wide (1) or
	                         narrow (2) exact path; 0: code of both entries */
	bool alt;             /* the narrow one: temporaries and labels of
	                         their own names (px_tmp, px_label) ... */
	uint32_t nalt[RC_COUNT_], nalt_label; /* ... counted here */
	uint32_t narrow_eb;   /* the widest element of a media read with a
	                         narrow variant (0: none; variant.c) */
	uint32_t ntab;        /* lane tables in globals */
	Buf *globals;         /* module-scope data (.global tables, strings) */
	uint32_t curline;     /* -g: last .loc line */
	const char *launch;   /* %rd register holding the CudaLaunch address */
	Buf *pfmeta;          /* this kernel's "//@cmetal printf" lines */
	uint32_t *npf;        /* printf calls of the module so far */
	PxVal *val;           /* by value id (assign.c) */
	uint32_t *depth;      /* loop depth of each block, by id (assign.c),
	                         set before px_assign */
	uint32_t scratch;     /* SLM scratch bytes per warp (slm.c) */
	uint32_t nlds;        /* scratch loads emitted, for the -S notes */
	struct PxGroup *groups; /* slm.c: 16-byte groups loaded in this block */
	struct PxRGroup *rgroups; /* slm.c: runtime-offset extract groups loaded */
	const struct Layout **canon; /* canonical layout of n elements, by n */
	uint32_t lanes;       /* lanes per CM thread: 32, or W when 32/W CM
	                         threads share a warp (pack.c) */
	const char *pack_note; /* pack.c: the packing chosen, and why */
	bool *conv;           /* pack.c, by block id: every live segment of the
	                         warp runs the block together (packed only) */
	bool *wuni;           /* pack.c, by value id: the same in every segment
	                         of the warp (packed only) */
	const Block *blk;     /* the block being emitted (NULL: the prologue) */
	struct PxLoop **vloops; /* vloop.c: the versioned loops ... */
	uint32_t nvloops;
	const struct PxLoop *vcopy; /* ... and the one whose unchecked copy is
	                         being emitted (NULL: none) */
	uint32_t psurf;       /* the first psurf surface arguments have their
	                         descriptor in .param (px_param_surfaces) */
	const Inst **agg;     /* aggregate.c: SLM float adds deferred to the
	                         last of their run, ... */
	uint32_t nagg;        /* ... and how many */
} Px;

/* emit.c */
#define SLOTS(n) (((n) + 31u) / 32u)
RegClass px_class(Elem e);
/* Register slot of v in the canonical layout (its own registers, or the
 * canonical copy assign.c arranged); slot ignored for scalars. */
const char *px_reg(Px *p, const Inst *v, uint32_t slot);
const char *px_own(Px *p, const Inst *v, uint32_t slot);  /* v's own registers */
/* Register slot of v in layout l (own, or a copy assign.c arranged). */
const char *px_reg_in(Px *p, const Inst *v, const struct Layout *l, uint32_t slot);
uint32_t px_nregs(Px *p, const Inst *v);   /* own registers per lane */
const char *px_tmp(Px *p, RegClass c);                    /* a fresh temporary */
const char *px_label(Px *p);                              /* a fresh label name */
/* Between px_cold_begin and px_cold_end, instructions go to the cold
 * section after the kernel's ret: a fast path's rarely taken alternative,
 * which ends with a branch back, so the hot path stays straight. */
void px_cold_begin(Px *p, const char *label);
void px_cold_end(Px *p, const char *back);
void px_ins(Px *p, const char *fmt, ...) PRINTF_LIKE(2, 3); /* one instruction line */
void px_comment(Px *p, const char *fmt, ...) PRINTF_LIKE(2, 3);
const char *px_ty(Elem e);      /* arithmetic type: s32 u32 s64 u64 f16 f32 f64 pred */
const char *px_bits(Elem e);    /* b32 b64 b16 pred by class */
void px_normalize(Px *p, Elem e, const char *r); /* re-extend 8/16-bit ints */
const char *px_mem_ty(Elem e);  /* ld/st type: s8 u8 s16 u16 u32 b64 b16 f32 f64 */
/* The register holding the lane id (0..31), and lane < n as a predicate. */
const char *px_lane(Px *p);
const char *px_lane_lt(Px *p, uint32_t n);
const char *px_lane_ge(Px *p, uint32_t n);
bool px_unsupported(Px *p, const Inst *i, const char *what);
/* How many surface arguments of f, the first ones, carry their descriptor
 * in the parameter space (rt/cuda_abi.h "Kernel entry"), and whether
 * argument k is one of them. */
uint32_t px_param_surfaces(const Func *f, const EmitOptions *o);
bool px_surface_param(const Px *p, uint32_t k);

/* alu.c: element-wise arithmetic, compares, select, conversions, math */
bool px_alu(Px *p, Inst *i);
void px_conv_slot(Px *p, Elem de, const char *d, Elem se, const char *s, bool sat);
/* ".ftz" for f32 under -ffast-math, else "" (docs/floating-point.md). */
const char *px_ftz(Px *p, Elem e);

/* divc.c: integer division and remainder by a constant as shifts and a
 * multiply-high (ptxas expands div/rem by an immediate like a runtime
 * divisor) */
typedef enum { PXD_ONE, PXD_SHIFT, PXD_COMPARE, PXD_MULHI, PXD_MULHI_ADD } PxDivKind;
typedef struct {
	PxDivKind kind;
	uint32_t mul;   /* PXD_MULHI: M; PXD_MULHI_ADD: M - 2^32 */
	int shift;
} PxDivPlan;
PxDivPlan px_div_plan(uint32_t c);                            /* c != 0 */
uint32_t px_div_apply(PxDivPlan m, uint32_t a, uint32_t c);  /* what the plan computes */
/* d = a / c, or a % c when rem, of 32-bit registers. */
void px_udivc(Px *p, const char *d, const char *a, uint32_t c, bool rem);
void px_sdivc(Px *p, const char *d, const char *a, int32_t c, bool rem);
/* The same for 64-bit registers when |c| is a power of two; else false. */
bool px_divc64(Px *p, const char *d, const char *a, int64_t c, bool sgn, bool rem);

/* ifconv.c: small blocks of reads (that cannot fault) under a scalar
 * branch run always, selects choosing their values (runs before unroll.c;
 * only with -fspeculate-reads, not in the checking mode) */
void px_if_convert(Px *p);
/* unroll.c: small loops that read global memory run 2, 4 or 8 iterations a
 * trip while that many remain, their reads first (runs before ir_renumber;
 * not in the checking mode or with -fno-unroll-loops) */
void px_unroll(Px *p);
/* gmerge.c: two gathers filling the halves of one vector, as one */
void px_merge_gathers(Px *p);

/* aggregate.c: float adds to shared memory whose old value is unused,
 * with the warp's lanes on one address summed first (NVIDIA has no shared
 * float atomic add: one CAS round per lane on an address) */
bool px_fadd_aggregates(const Px *p, const Inst *i);  /* atomic i is one */
void px_fadd_aggregate(Px *p, const Inst *i);  /* emits it, or defers it to
                                                  the last of its run */
void px_fadd_init(Px *p);
/* mem.c, for aggregate.c: the address of each lane of slot s of SLM
 * atomic i, and *ok, its bounds predicate (NULL: none). */
const char *px_slm_atomic_lane(Px *p, Inst *i, uint32_t s, const char **ok);

/* region.c: rdregion, wrregion, iselect as register moves and shuffles */
bool px_region(Px *p, Inst *i);
/* One warp shuffle of register s (class c) into d: mode idx/up/down/bfly,
 * b the lane operand (register or immediate).  64-bit, 16-bit and
 * predicate registers are moved through b32 pieces. */
void px_shfl(Px *p, const char *mode, RegClass c, const char *d, const char *s,
             const char *b);
/* Fills registers d[] by plan pl from registers s[] (element type e).
 * keep: d holds values to keep where no move writes (else the first move
 * of each register writes it whole).  rg: both layouts canonical and the
 * plan is this region's (a general index is then computed from its
 * formula, not loaded from a lane table). */
void px_emit_plan(Px *p, Elem e, const char *const *d, const char *const *s,
                  const struct LPlan *pl, bool keep, const IrRegion *rg);
/* After v's definition: a note of its layout when not canonical, its
 * copies in other layouts (assign.c) but those sunk to a later block,
 * its SLM copy (slm.c). */
void px_emit_copies(Px *p, const Inst *v);
/* At the start of block b: the copies assign.c sank to it. */
void px_emit_sunk_copies(Px *p, const struct Block *b);
/* Reinterprets the bytes of a value (Obitcast). */
bool px_bitcast(Px *p, Inst *i);
/* Register (b32) holding in each lane the element that register s of
 * layout l keeps there, computed once at the kernel's entry from a lane
 * table; *valid gets the lanes that keep one. */
const char *px_lane_elems(Px *p, const struct Layout *l, uint32_t s, uint32_t *valid);
/* The predicate "lane is in the set bits" (NULL for all 32). */
const char *px_lanes_pred(Px *p, uint32_t bits);
/* Broadcasts element k (constant) of v into a uniform register of v's class. */
const char *px_extract(Px *p, const Inst *v, uint32_t k);

/* dpas.c: Odpas (cm_dpas) as mma.sync */
bool px_dpas(Px *p, Inst *i);
/* wgmma.c: cm_wgmma (Owgmma, a cmetal extension) as wgmma.mma_async; its
 * accumulator's fragment is dpas.c's px_dpas_layout(p, i, 0) */
bool px_wgmma(Px *p, Inst *i);
bool px_uses_wgmma(const Func *f);
void px_wgmma_groups(Px *p);   /* consecutive calls as one wgmma */
/* wgmma.c: Owgwait (cm_wgmma_wait) as wgmma.commit_group and wait_group;
 * px_wgmma_settle: the same for 0 groups left, where a value some async
 * cm_wgmma may still write (PxVal.wgregs) is read and none was waited for
 * since (Px.wg_clear); px_wgmma_reads: whether i reads such a value. */
bool px_wgmma_wait(Px *p, const Inst *i);
/* wgmma.c: the wgmma state at block b's start (Px.wg_*), its update after
 * instruction i, and fence.proxy.async where this thread may have written
 * SLM since its last one (a barrier's or a wgmma chain's). */
void px_wgmma_block(Px *p, const Block *b);
void px_wgmma_after(Px *p, const Inst *i);
void px_wgmma_fence(Px *p);
void px_wgmma_settle(Px *p);
bool px_wgmma_reads(const Px *p, const Inst *i);
/* The layout of Odpas i's mma fragment of operand k (0: the accumulator,
 * also the result's; 1: B; 2: A); NULL for operands of 8- or 16-bit
 * elements (packed into dwords by the gather). */
const struct Layout *px_dpas_layout(Px *p, const Inst *i, uint32_t k);
/* Whether i's fragments hold A's and B's k dwords permuted (2t + r in the
 * ISA's slot t + 4r): both read from memory into them (dpas.c). */
bool px_dpas_kperm(const Inst *i);

/* warp.c: votes, reductions, mask packing, thread ids, barriers, waits,
 * printf records (rt/cuda_abi.h "printf") */
bool px_warp(Px *p, Inst *i);
/* warp.c: whether the runtime may split f's groups into several CTAs
 * (rt/cuda_abi.h "Split groups"; the metadata says "split 1") */
bool px_splittable(const Func *f, const EmitOptions *o);
/* warp.c: group_id * local_size + local_id and group_count * local_size
 * along one dimension, emitted from the CTA's ids; false when i is
 * neither */
bool px_global_id(Px *p, Inst *i);
/* The CM thread's linear id (b32), as printf records and faults count it. */
const char *px_linear_tid(Px *p);

/* check.c: the checking mode (EmitOptions.bounds_check): accesses record
 * out-of-range lanes in the launch's fault record (rt/cuda_abi.h
 * "Faults"); without it every call emits nothing */
bool px_checking(const Px *p);
/* Adds the lanes that are enabled (act; NULL: all) and fail their bounds
 * predicate ok (NULL: unchecked, nothing) to *acc, the access's failing
 * lanes (NULL until one is added). */
void px_fault_lane(Px *p, const char **acc, const char *ok, const char *act);
/* After access i: when a lane of acc failed, one lane of the CM thread
 * records a CUDA_FAULT_* kind at i's line, out of line in the cold
 * section (acc NULL: nothing). */
void px_fault_end(Px *p, const char *acc, int kind, const Inst *i);

/* mem.c: the 64-bit base and size (b64) of surface b, which i accesses */
void px_surface(Px *p, Inst *i, Inst *b, const char **base, const char **size);
/* The index of surface parameter b (its descriptor in %sb<k>, %ss<k>, ..),
 * else -1 (a surface chosen at run time) */
int px_surface_index(const Px *p, const Inst *b);
/* cpasync.c: cm_slm_copy_async, _commit, _wait (Oslmcopy, Oslmcommit,
 * Oslmwait; a cmetal extension) as cp.async; false for other instructions */
bool px_slm_copy(Px *p, Inst *i);
/* mem.c: block, media, scattered and atomic accesses with CM bounds */
bool px_mem(Px *p, Inst *i);
/* mem.c: Px.slm_in, where SLM accesses need a warp barrier first */
void px_slm_order(Px *p);
/* Before emitting i: bar.warp.sync when i needs it (px_slm_order) */
void px_slm_sync(Px *p, const Inst *i);
/* The prologue's loads of every surface parameter's descriptor. */
void px_load_surfaces(Px *p);

/* A kernel's SLM past what a static .shared array may hold (48 KB, the
 * driver's limit) is the start of the dynamic shared memory instead: an
 * `.extern .shared` array NAME_slm, the scratch after it at
 * px_scratch_at (rt/cuda_abi.h "Metadata", dynamic_slm). */
#define PX_STATIC_SLM_MAX (48u * 1024u)
static inline bool px_slm_dynamic(const Func *f) { return f->slm_size > PX_STATIC_SLM_MAX; }
static inline uint32_t px_scratch_at(const Func *f)
{
	return px_slm_dynamic(f) ? (f->slm_size + 15u) & ~15u : 0;
}

/* cluster.c: CM groups over thread-block clusters (-fcluster-slm); every
 * hook does nothing (or what the ordinary kernel does) when it is off */
bool px_cluster_on(const Px *p);
bool px_cluster_check(const EmitOptions *o, const char *march);
void px_cluster_decls(Px *p, Buf *out);   /* its registers */
void px_cluster_entry(Px *p);             /* ids, padding warps, entry barrier */
void px_cluster_exit(Px *p);              /* the barrier before the final ret */
const char *px_slm_base(Px *p);           /* symbol or register: SLM byte 0 */
bool px_cluster_sync(Px *p, Inst *i);     /* barriers, fences; false: not one */
void px_cluster_tid(Px *p, IrTid t, const char *g); /* group value of t into g */
const char *px_cluster_linear(Px *p);     /* printf's CM thread linear id */

/* assign.c: the layout of every value, the copies its users need */
void px_assign(Px *p);
/* A use: instruction u reads its operand k (assign.c's use lists). */
typedef struct PxUse {
	Inst *u;
	uint32_t k;
	struct PxUse *next;
} PxUse;
/* runs.c: PxVal.want of values read as row-shifted windows: a run
 * layout (layout.c lay_runs) where it makes the shifts cheaper; whether
 * it wanted any */
bool px_seed_runs(Px *p, PxUse **uses);
/* want.c: PxVal.want, propagated backward from cm_dpas operands and from
 * the wants px_seed_runs set (seeded: whether it set any) */
void px_wants(Px *p, PxUse **uses, bool seeded);
/* phic.c: PxVal.host, phis that live in an incoming value's registers */
void px_coalesce_phis(Px *p);
/* bgroup.c: block accesses checked once per group (PxVal.blead ...) */
void px_block_groups(Px *p);
/* mgroup.c: media accesses of one surface checked once per group
 * (PxVal.mlead ...) */
void px_media_groups(Px *p);
/* Whether group leader's span, leader to last member, is emitted twice:
 * once without checks, once exact out of line (sets PxMGroup.span) */
bool px_mgroup_span(Px *p, const Inst *leader);
/* mem.c: the "box inside" test of group leader's span, before it */
const char *px_media_span_test(Px *p, Inst *leader);
/* vloop.c: loops run in a copy without the bounds checks of their block
 * accesses when one test before them shows every iteration inside. */
void px_vloops(Px *p);                     /* PxVal.inb, Px.vloops */
bool px_unchecked(const Px *p, const Inst *i); /* i needs no check here */
const char *px_vloop_base(Px *p, const Inst *i, int64_t *imm); /* its span's offset */
/* The label suffix of a jump from the block being emitted to "to": "_v" in
 * a loop's unchecked copy, "_in" (the test) entering a versioned loop. */
const char *px_vloop_suffix(const Px *p, const Block *to);
void px_vloop_entry(Px *p, const Block *head);   /* the test, before head */
const struct PxLoop *px_vloop_ending(const Px *p, const Block *b);
bool px_vloop_has(const struct PxLoop *L, const Block *b);
/* range.c: PxVal.umax and .exact of every integer value. */
void px_ranges(Px *p);
/* range.c: PxVal.proven of the SLM block accesses that value ranges keep
 * inside the SLM (after px_ranges; none with -fno-slm-ranges or in the
 * checking mode, whose reports name every access) */
void px_slm_proven(Px *p);
/* Loop depth of each block (by id): the lowering lays loops out in order. */
uint32_t *px_loop_depths(Px *p, Func *f);
/* The layout in which u reads its vector operand k (its own or a copy). */
const struct Layout *px_read_layout(Px *p, Inst *u, uint32_t k);
/* Whether registers s and s + 1 of layout l hold, in every lane, two
 * neighbours of one row of a block of cols columns, the first at an even
 * column (mem.c: one 8-byte load or store of 4-byte elements) */
bool px_pair_regs(Px *p, const struct Layout *l, uint32_t s, uint32_t cols);

/* slm.c: vectors read at runtime positions, kept in the warp's SLM scratch */
uint32_t px_slm_width(Elem e);      /* bytes per element there; 0: none */
uint32_t px_slm_vec(Elem e);        /* elements of its 16-byte loads (1: none) */
void px_slm_store(Px *p, const Inst *v);  /* the copy, after v's definition */
/* d = element pos (b32 register, per lane) of v, from its copy; 0 outside v */
void px_slm_load(Px *p, const Inst *v, const char *d, const char *pos);
/* d = runtime-offset scalar extract i of an SLM copy, loaded with its group
 * (PxVal.rlead) */
void px_slm_rextract(Px *p, const Inst *i, const char *d);
/* d = element k of v for reader i, by a 16-byte broadcast load shared with
 * the other extracts of its block */
void px_slm_extract(Px *p, const Inst *i, const Inst *v, uint32_t k, const char *d);

/* blimit.c: the uniform L with "x < L" iff the element at byte x + delta
 * of surface parameter surf lies inside, computed once at the kernel's
 * entry (see the file's comment) (b32) */
/* blimit.c: into l (b32) the limit L = size + 1 - eb - delta, clamped to
 * 0 .. 2^32 - 1, of size (b64), here; px_surf_limit: the same for surface
 * parameter surf, once per kernel at its entry */
void px_size_limit(Px *p, const char *size, int eb, int64_t delta, const char *l);
const char *px_surf_limit(Px *p, uint32_t surf, int eb, int64_t delta);
/* Instructions written between two calls go to the kernel's entry, after
 * the prologue (per-kernel values that dominate every use). */
void px_entry_swap(Px *p);

/* variant.c: a media read's exact path for elements no wider than the
 * pixels (the kernel's entry) after px_variant_wide, for any pixels (its
 * NAME$narrow entry) after px_variant_narrow, until px_variant_end; eb:
 * the read's element bytes */
void px_variant_wide(Px *p, int eb);
void px_variant_narrow(Px *p);
void px_variant_end(Px *p);
/* The marker of the side being emitted, in a buffer being switched to
 * (px_cold_begin), and the end marker before switching back: out-of-line
 * code of one side stays in its entry */
void px_variant_enter(Px *p);
void px_variant_leave(Px *p);
/* The kernel name's text at b[start..] (its .entry, its markers) as the
 * two entries NAME and NAME$narrow; false when it has no .entry NAME
 * line to rename (only NAME is left) */
bool px_variant_split(Buf *b, size_t start, const char *name);
/* dpair.c: FP64 cm_dpas pairs of one B tile as m16n8k4 (PxVal.dpair,
 * .skip), and register r of partner j's operand k where it is ready at i */
void px_dpas_pairs(Px *p);
const char *px_dpair_reg(Px *p, const Inst *i, const Inst *j, uint32_t k, uint32_t r);
/* Register r of v's own layout as register *rr of the value that computes
 * it, through renames and in-place writes (dpair.c) */
bool px_origin_reg(Px *p, const Inst *v, uint32_t r, const Inst **dv, uint32_t *rr);
/* bpair.c: two half-register block loads into one register as one load
 * (PxVal.pair, .skip) */
void px_block_pairs(Px *p);
/* A block load of a surface parameter at a 32-bit offset, of several
 * elements, read once (bpair.c, bwide.c) */
bool px_surface_load(const Px *p, const Inst *l);
/* The same of the CTA's own SLM (bpair.c, bwide.c) */
bool px_slm_block_load(const Px *p, const Inst *l);
/* The register of l whose lanes hold elements off .. off + 31 in order,
 * else -1 (bpair.c) */
int px_pair_reg(const struct Layout *l, uint32_t off);
/* Whether l .. w (one block, in order) is free of memory writes */
bool px_quiet_between(const Inst *l, const Inst *w);
/* w writes the whole of its written vector as a 1D region, without a
 * runtime offset or mask (bwide.c, gmerge.c) */
bool px_whole_write(const Inst *w);
/* bwide.c: vectors of contiguous block loads read by columns, loaded in
 * the run layout (PxVal.wide, .wpart, .skip); before assign.c's sweep */
void px_wide_loads(Px *p, PxUse **uses);
/* mem.c: the loads of a wide load, at its last wrregion w */
bool px_wide_load(Px *p, Inst *w);
/* mem.c: the load of a pair, at its second wrregion w */
bool px_pair_load(Px *p, Inst *w);
/* mem.c: a gather or scatter, each element on its own */
bool px_scattered(Px *p, Inst *i);
/* mem.c: the shared address of SLM access i's buffer in *base, and the
 * number of indices idx with idx * unit + bytes inside it (b32; bytes 0:
 * none, NULL) */
const char *px_slm_limit(Px *p, Inst *i, int bytes, int unit, const char **base);

/* ldsm.c: an SLM gather into an mma fragment as ldmatrix.  Whether
 * gather i may use it (unchecked: no lane of it is checked); then the
 * registers of layout l that ldmatrix fills from the buffer's SLM address
 * buf (b32), marked in done[]. */
bool px_ldsm_ok(Px *p, const Inst *i, bool unchecked);
void px_ldsm_gather(Px *p, const Inst *i, const struct Layout *l, const char *buf, bool *done);
/* ldsm.c: PxVal.ldsm of the two gathers whose tiles are the A operand of
 * one paired 16-row mma (dpair.c has run) */
void px_ldsm_pairs(Px *p);
/* mem.c: whether no lane of gather i is checked where it is emitted */
bool px_gather_unchecked(Px *p, const Inst *i);
/* slmvec.c: the power of two known to divide the 32-bit integer v (2^31
 * for 0; 1 when nothing is known) */
uint32_t px_known_align(const Inst *v);
/* slmvec.c: SLM gathers/scatters of contiguous per-lane bytes as
 * ld/st.shared.v2/v4 (PxVal.svlead, .sv) */
void px_slm_vectorize(Px *p);
/* Emits i's group (or nothing, for a member emitted with it) and true; or
 * notes why i's group was refused and false: i takes the plain path. */
bool px_slm_vector(Px *p, Inst *i);

/* pack.c: narrow CM threads packed 32/W to a warp, each on W lanes */
void px_pack_decide(Px *p);            /* sets lanes and pack_note */
bool px_packed(const Px *p);
uint32_t px_lane_shift(const Px *p);   /* log2 of lanes per CM thread */
const char *px_members(const Px *p);   /* membermask: "-1" or %segmask */
/* Membermask of a shfl.sync (its clamp keeps it in the segment): "-1"
 * also where the segments run together */
const char *px_sync_members(const Px *p);
const char *px_uni(const Px *p);       /* ".uni" for branches on CM scalars, or "" */
const char *px_uni_cond(const Px *p, const Inst *cond); /* the same, for a CFG branch */
/* Px.conv and Px.wuni: which blocks all segments run together */
void px_pack_converge(Px *p);
/* vote.sync.any/all of pred over the segment into predicate r */
void px_vote(Px *p, bool any, const char *r, const char *pred);
const char *px_shfl_clamp(Px *p, bool up);  /* shfl.sync's c operand */
void px_ballot(Px *p, const char *d, const char *pred);  /* bit e: lane e */
void px_pack_decls(const Px *p, Buf *out);
void px_pack_prologue(Px *p);          /* %segbase, %segmask, %lane */

/* layout.c: where a vector's elements live (pos[e]: register * 32 + lane)
 * and plans to move them between layouts (see the file's comment) */
typedef struct Layout {
	uint32_t n;           /* elements */
	uint32_t nregs;       /* registers per lane */
	uint32_t *pos;        /* element e: register pos[e] / 32, lane pos[e] % 32 */
	int32_t *elem;        /* inverse, nregs * 32 entries (-1: padding); lazy */
	bool canon;           /* pos[e] == e: the model of this file's top */
} Layout;
typedef enum { LM_FREE, LM_DOWN, LM_UP, LM_BFLY, LM_AFFINE, LM_IDX } LMoveKind;
typedef struct {
	uint32_t sreg;        /* source register */
	uint32_t lanes;       /* destination lanes filled by this move */
	uint8_t kind;         /* LMoveKind */
	int32_t a, b;         /* DOWN/UP/BFLY: b; AFFINE: source lane a*lane+b */
	int32_t share;        /* DOWN/UP: its LPlan.shares entry when other
	                         moves rotate its source register as far, else -1 */
	uint8_t src[32];      /* source lane of each destination lane */
} LMove;
typedef struct {
	uint32_t nmoves;
	LMove *m;             /* in source register order */
	uint32_t valid;       /* lanes of this register that hold elements */
} LRegPlan;
/* One shuffle that several moves read: source register sreg rotated by
 * rot lanes (lane l gets lane (l + rot) mod 32, shfl.idx). */
typedef struct {
	uint32_t sreg;
	int32_t rot;
} LShare;
typedef struct LPlan {
	uint32_t nregs;
	LRegPlan *r;          /* per destination register */
	uint32_t shfl, selp;  /* totals, for 32-bit elements */
	LShare *shares;       /* the shared rotations, nshares of them */
	uint32_t nshares;
} LPlan;
#define LAY_COST_SHFL 4   /* a shuffle costs four ALU issue slots (sm_90) */
Layout *lay_canonical(Arena *a, uint32_t n);
/* The layout of n elements read in place through rg from src; regs[k]
 * gets the source register of result register k.  NULL when the region
 * leaves src or reads an element twice. */
Layout *lay_pullback(Arena *a, const Layout *src, IrRegion rg, uint32_t n, uint32_t **regs);
bool lay_equal(const Layout *x, const Layout *y);
/* The layout of n elements in which region rg[k] of it sits as part[k]
 * does, each distinct region in registers of its own (the same region
 * again keeps its registers), in order; the elements no region covers
 * follow in order when fill, else NULL.  NULL too when two regions
 * overlap but differ, one leaves the n elements, or the layout would take
 * more than twice the canonical registers. */
Layout *lay_compose(Arena *a, uint32_t n, const IrRegion *rg, const Layout *const *part,
                    uint32_t m, bool fill);
const int32_t *lay_elems(Arena *a, const Layout *l);
int64_t lay_region_index(IrRegion rg, int64_t k);   /* source element of k */
/* Fills dst's registers: dst element d takes src element map[d] (map NULL:
 * the identity; -1: not filled). */
LPlan *lay_plan(Arena *a, const Layout *dst, const Layout *src, const int32_t *map);
uint32_t lay_cost(const LPlan *pl, uint32_t elem_bytes);
int lay_move_source(const LMove *m, int lane);   /* what the move's shfl reads */
/* Register r of a layout as rows of a media block (layout.c lay_rows):
 * lanes lo..hi hold row row, columns stride * lane + col. */
typedef struct {
	uint32_t row;
	int32_t col;
	uint8_t lo, hi;
	uint8_t stride;       /* 1; a run layout's k (lay_runs) */
} LRow;
/* Fills rows[r] for every register of l when each holds elements of one
 * row of cols columns at consecutive lanes, columns stride apart (one
 * stride for all registers); else false.  a must live as long as l: l's
 * inverse is kept there (lay_elems). */
bool lay_rows(Arena *a, const Layout *l, uint32_t cols, LRow *rows);
/* The run layout of a block of rows of cols elements: k consecutive
 * elements of a row per lane, one per register (element (r, c) in
 * register r * k + c % k, lane c / k); cols % k == 0, cols / k <= 32. */
Layout *lay_runs(Arena *a, uint32_t n, uint32_t cols, uint32_t k);

/* ptxas.c: the ptxas report for the annotations and the spill warning */
typedef struct {
	const char *kernel;   /* interned */
	int regs, spill_stores, spill_loads, shared, local;  /* -1 unknown */
} PtxasInfo;
/* Runs ptxas -v on text for march; fills up to max entries; -1 when ptxas
 * is absent, else the count (0 on failure, with the log in err). */
int ptxas_report(const char *text, const char *march, PtxasInfo *info, int max,
                 Buf *err);

#endif
