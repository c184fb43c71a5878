/* cuda_abi.h — the contract between the PTX the compiler emits
 * (src/target/ptx/) and the CUDA device runtime (src/rt/cuda/).  Both sides
 * include it; the PTX side uses the offsets (CUDA_L_*, CUDA_S_*) when it
 * reads these structures with ld.global, and CUDA_LP_*, CUDA_SP_* when it
 * reads its parameters with ld.param.  Change CUDA_ABI_VERSION with any
 * layout change: the runtime refuses PTX of another version (see the
 * "//@cmetal abi" line below).
 *
 * Execution model (DESIGN.md §2): one CM thread is one warp (32 lanes).
 *
 * ---- Kernel entry -----------------------------------------------------------
 *
 *   .visible .entry NAME(.param .align 8 .b8 NAME_launch[48],
 *                        <one .param per CM argument>)
 *
 * NAME_launch is a CudaLaunchParam (below): the device address of the
 * launch's CudaLaunch block, written by the runtime before each launch,
 * and the few launch values the prologue needs (kind, walker geometry,
 * cluster shape), so that no CM thread reads global memory before its
 * first data access.  Kernel parameters live in the constant bank: each
 * ld.param of them is a free operand.  Then the CM arguments, in order:
 *   CMK_ARG_SCALAR   .param .<type> (u8 s8 u16 s16 u32 s32 u64 s64 f16 as
 *                    .b16, f32, f64): the value
 *   CMK_ARG_VECTOR   .param .align 8 .b8 name[size]: the bytes of the value
 *   CMK_ARG_SURFACE  .param .align 8 .b8 name[CUDA_SP_BYTES]: a
 *                    CudaSurfaceParam, the surface slot (the runtime passes
 *                    the argument index, as the CPU runtime does) and the
 *                    fields of its descriptor; or, for the surfaces past
 *                    the parameter space (below), .param .u32: the slot,
 *                    the kernel finding its CudaSurface at
 *                    launch->surfaces[slot]
 *   CMK_ARG_SAMPLER  .param .u32: the slot
 *   CMK_ARG_SVM      .param .u64: the device address
 * So kernelParams[0] points at the CudaLaunchParam and kernelParams[1+i]
 * at argument i's value: for a scalar, vector or SVM argument exactly the
 * bytes CmkThread.args[i] points at, for a surface its CudaSurfaceParam
 * (the slot is its first word either way).  The launch block's surface
 * table always holds every surface argument: a surface value the kernel
 * does not trace to its parameter (a slot chosen at run time) is read
 * from there.
 *
 * The parameter space holds CUDA_PARAM_MAX bytes (the limit of PTX ISA
 * versions before 8.1, which cmetal emits for sm_80..sm_90), each .param
 * at the next multiple of its alignment.  The compiler gives the first N
 * surface arguments their CudaSurfaceParam, N the largest count whose
 * parameters all fit (every other argument as above); when N is below the
 * kernel's number of surface arguments, its metadata line says
 * "param_surfaces N" and the later surfaces are plain slots.
 *
 * ---- Per-thread arguments ---------------------------------------------------
 *
 * PTX compiled with -fthread-args=KERNEL:I,J declares KERNEL's arguments I
 * and J as .param .u64: the device address of a table of walker-thread
 * values, SIZE bytes each (the "arg" line's size), and walker thread
 * %linear reads its own entry once, at table + linear * SIZE (vectors:
 * each lane its elements).  The kernel line of its metadata ends with
 * "thread_args I,J".  Only walker launches use such kernels.  The runtime
 * builds that variant of a program for launches with per-thread values
 * (cmetal_kernel_set_arg_per_thread), so other kernels and launches keep
 * the ordinary PTX and pay nothing.
 *
 * ---- Launch geometry --------------------------------------------------------
 *
 * CUDA_LAUNCH_GROUPS (cm_local_id & co): one CM group = one CTA.
 *     grid  = (group_count[0], group_count[1], group_count[2])
 *     block = (32 * local_size[0], local_size[1], local_size[2])
 *   The kernel reads ctaid/nctaid/tid/ntid directly: local_id.x = tid.x/32.
 *   32 * local_size[0] * local_size[1] * local_size[2] <= 1024.
 *   The runtime also fills local[] = local_size, cta_warps = 0 (see
 *   "Clusters" for groups of more than 32 CM threads) and split[] = 0.
 *
 * Split groups (kernels whose metadata says "split 1": no SLM, no barrier,
 *   no cm_wait, no cluster mode, so nothing but their ids tells the CM
 *   threads of a group apart from other threads): the runtime may run a
 *   group as 2^sx * 2^sy CTAs, sx = split[0], sy = split[1], each of
 *   local_size[0] >> sx by local_size[1] >> sy by local_size[2] CM threads:
 *     grid  = (group_count[0] << sx, group_count[1] << sy, group_count[2])
 *     block = (32 * (local_size[0] >> sx), local_size[1] >> sy, local_size[2])
 *   and the kernel computes (rx = ctaid.x - (group_id.x << sx), ry alike)
 *     group_id.x    = ctaid.x >> sx        group_id.y = ctaid.y >> sy
 *     group_count.x = nctaid.x >> sx       group_count.y = nctaid.y >> sy
 *     local_size.x  = (ntid.x / 32) << sx  local_size.y = ntid.y << sy
 *     local_id.x    = tid.x / 32 + rx * (ntid.x / 32)
 *     local_id.y    = tid.y + ry * ntid.y
 *   (z as without a split), which are the plain formulas when sx = sy = 0.
 *   The group's ids, printf and fault thread numbers are as the user's
 *   group shape says; only the CTAs that carry it are smaller, so that more
 *   of them fit an SM (see docs/runtime.md "Split groups").
 *
 * CUDA_LAUNCH_WALKER (get_thread_origin_x/y): width x height CM threads,
 *   numbered linear = y * width + x.  The runtime picks threads_per_cta
 *   (CM threads, i.e. warps, per CTA; 1 when the kernel uses SLM or a
 *   barrier, since each walker thread is then its own group):
 *     grid  = (ceil(nthreads / threads_per_cta), 1, 1)
 *     block = (32 * threads_per_cta, 1, 1)
 *   A warp whose linear id is >= nthreads returns at once.
 *   Without dependencies, linear = ctaid.x * threads_per_cta + tid.x / 32.
 *   When the kernel uses cm_wait/cm_signal ("wait 1" in its metadata line)
 *   the warp takes its linear id from the ticket counter instead (atom.global.add.u32 on *ticket by lane 0, then
 *   shfl to the warp), so a thread only starts after every thread with a
 *   smaller id has started; dependencies always point to smaller ids, so
 *   spinning cannot deadlock.
 *   get_thread_origin_x/y = linear % width, linear / width; get_color = 0.
 *   cm_group_id = (linear, 0, 0), cm_local_id = 0, cm_local_size = 1,
 *   cm_group_count = (nthreads, 1, 1).
 *
 * ---- Clusters (PTX compiled with -fcluster-slm, sm_90) ----------------------
 *
 * A group of G = local[0] * local[1] * local[2] CM threads (G <= 256) is one
 * thread-block cluster of n CTAs (n <= 8, the portable cluster size) of
 * cta_warps warps each, n * cta_warps >= G:
 *     grid    = (group_count[0] * n, group_count[1], group_count[2])
 *     cluster = (n, 1, 1)        (cuLaunchKernelEx, CLUSTER_DIMENSION)
 *     block   = (32 * cta_warps, 1, 1)
 *   local linear id L = %cluster_ctarank * cta_warps + tid.x / 32, x fastest:
 *   local_id = (L % local[0], L / local[0] % local[1], L / (local[0] *
 *   local[1])); group_id = %clusterid, group_count = %nclusterid.  Warps
 *   with L >= G (the last CTA's padding) exit at entry.  SLM is the .shared
 *   array of the rank-0 CTA, reached by every CTA through distributed
 *   shared memory (mapa.shared::cluster, ld/st/atom.shared::cluster);
 *   cm_barrier is barrier.cluster.arrive.release + wait.acquire, and the
 *   kernel passes a cluster barrier at entry (every CTA has started before
 *   any DSMEM access) and before it exits (rank 0's shared memory lives
 *   until the last access).  Without a cluster attribute (walker launches,
 *   small groups) every CTA is a cluster of one, and the same PTX runs as
 *   the ordinary one does.  Such PTX starts with "//@cmetal cluster 1".
 *
 * ---- Dependencies (cm_wait / cm_signal) --------------------------------------
 *
 * flags: one uint32 per CM thread (linear id), zeroed by the runtime before
 * the launch.  cm_signal and the end of the kernel (implicit signal) store 1
 * with st.release.gpu from lane 0.  cm_wait(mask) spins (ld.acquire.gpu,
 * with nanosleep back-off) on flags[dep] for each dependency i in
 * 0..ndeps-1 whose bit in mask is clear and whose (x + dx[i], y + dy[i])
 * lies inside the space.  The runtime fills dx/dy from cmetal_dependency in
 * the order that enum's comment lists.
 *
 * ---- Surfaces ---------------------------------------------------------------
 *
 * Accesses follow CM semantics exactly as on the CPU: 1D reads of bytes at
 * or past size give 0, writes there are dropped; 2D media block reads
 * clamp x (bytes) to [0, width - bpp] and y to [0, height - 1], writes
 * outside width x height are dropped.  Addresses are base + y * pitch + x.
 *
 * ---- printf -----------------------------------------------------------------
 *
 * printf is formatted on the host, as CM's printf surface is.  launch->printf
 * is the device address of a CudaPrintf head (0: the launch has no printf
 * buffer, printf does nothing) followed by printf_cap bytes of records.
 * Lane 0 of the warp, once per CM thread and call, claims
 * 8 + 8 * nargs bytes with atom.global.add.u64 on head->used; when the
 * claim does not end within printf_cap it stores 1 in head->overflow and
 * writes only CUDA_P_END as the format word at head + 16 + old when those
 * 8 bytes fit (so the runtime stops there), else it writes the record at
 * head + 16 + old:
 *   uint32 format     the module-wide printf index ("printf" metadata line)
 *   uint32 thread     the CM thread's linear id: walker y * width + x;
 *                     groups (group linear id) * (threads per group) +
 *                     local linear id, x fastest (as the CPU device counts)
 *   8 bytes per argument, in the order of the call: integers sign- or
 *                     zero-extended to 64 bits by their kind, doubles
 * The runtime zeroes the head before a launch, and afterwards formats the
 * records in (thread, claim order) order with the format texts and argument
 * kinds of the metadata; one thread's records are claimed in program order.
 *
 * ---- Faults -----------------------------------------------------------------
 *
 * fault is the device address of a 64-bit fault record, 8-byte aligned and
 * zeroed by the runtime (0: the launch wants no reports).  A kernel compiled
 * with bounds checking (-fbounds-check) records every access whose bounds
 * predicate fails in some enabled lane; the access itself is still made
 * safe exactly as without checking (reads give 0 or the edge, writes are
 * dropped).  The record:
 *   bits  0..23   the CM source line of the access (clamped to 2^24 - 1)
 *   bits 24..30   what the access was: CUDA_FAULT_* below
 *   bit  31       1: a full record (kind and thread are valid)
 *   bits 32..63   the CM thread's linear id, counted as in printf records
 * The fault of the lowest thread is kept, and of a thread its first, as the
 * CPU device keeps it: one lane of a faulting CM thread loops on
 * atom.global.cas.b64 until the record holds its fault or one of a thread
 * not above it.  A fault hook (the IR's trap), and PTX written before
 * records had kinds, store only a line into the low word (atom.global.cas
 * .b32, 0 -> line, bit 31 clear); a full record never replaces that.
 *
 * ---- Metadata ---------------------------------------------------------------
 *
 * The PTX text starts with machine-readable comment lines, so a runtime
 * that loads a .ptx file knows its kernels without the source:
 *   //@cmetal abi 6
 *   //@cmetal cluster 1          (only when compiled with -fcluster-slm)
 *   //@cmetal kernel NAME slm BYTES barrier 0|1 wait 0|1 simd N shuffles N
 *                [scratch BYTES] [lanes W] [checks 1] [split 1] [thread_args I,J]
 *                [param_surfaces N] [narrow E] [dynamic_slm 1] [wgmma 1]
 *   //@cmetal arg NAME KIND SIZE ELEM SURF "TYPE_ATTR"
 *   //@cmetal printf INDEX KINDS "FORMAT"
 * (one "arg" line per argument after its kernel's line; KIND, ELEM and SURF
 * are the CMK_ARG_*, CMK_ELEM_*, CMK_SURF_* numbers of cmk_abi.h; shuffles
 * is the static count of shfl.sync in the kernel; scratch, when present, is
 * the per-warp SLM scratch of the PTX back end's shared-memory layouts: the
 * runtime launches with scratch * (warps per CTA) bytes of dynamic shared
 * memory, and warp w of a CTA owns bytes [w * scratch, (w + 1) * scratch)
 * of the kernel's `.extern .shared` array cmetal_scratch, w counting tid.x
 * / 32 fastest, then tid.y, then tid.z; at most CUDA_MAX_SCRATCH).  lanes W
 * (a power of two below 32; absent: 32) says the kernel packs 32/W CM
 * threads to a warp (target/ptx/pack.c): a CM thread is then W lanes, a
 * group of threads[0..2] CM threads a CTA of (W * threads[0], threads[1],
 * threads[2]) threads, a walker CTA W * (CM threads per CTA) threads, and
 * the scratch and the "warp w" above are per CM thread (tid.x / W).
 * checks 1: built with -fbounds-check, so it may report a fault (a task
 * waits for it before its next entry).  split 1: the runtime may split
 * its groups (Launch geometry).  param_surfaces N: see "Kernel
 * entry" (absent: every surface argument has its CudaSurfaceParam).
 * narrow E (2 .. 8): the module has a second entry NAME$narrow with the
 * same parameters, for images whose pixels are narrower than E bytes (the
 * widest element of the kernel's media reads): the runtime launches it
 * when an image argument has fewer than E bytes a pixel
 * (target/ptx/variant.c).
 * dynamic_slm 1: the kernel's SLM (over 48 KB, more than a static
 * `.shared` array may hold) is the `.extern .shared` array NAME_slm, at
 * byte 0 of the dynamic shared memory, and the scratch starts after it
 * (at BYTES rounded up to 16): the runtime launches with that many more
 * bytes of dynamic shared memory, and refuses a launch whose SLM and
 * scratch exceed the device's opt-in maximum per CTA.  wgmma 1: the kernel
 * has cm_wgmma (sm_90a's wgmma over warpgroups of 4 consecutive warps): the
 * runtime refuses a thread-space launch or groups that are not a multiple
 * of 4 CM threads, or more than 32.  One
 * "printf" line per
 * printf call of the kernel, after its "arg" lines: INDEX counts the calls
 * of the module from 0, KINDS has one letter per argument (CUDA_PF_* below;
 * "-" when there is none), FORMAT is the format text with \\, \", \n, \t
 * and \xHH escapes.
 *
 * Binaries
 * --------
 * `cmetal -c -t ptx` writes a container that cmetal_program_load reads on
 * the CUDA device: the line CUDA_BIN_MAGIC, then sections, each a line
 * "NAME SIZE\n" followed by SIZE bytes and a "\n":
 *   ptx SIZE           the PTX text above (required: its metadata, and what
 *                      the driver JIT-compiles when there is no fitting cubin)
 *   cubin ARCH SIZE    what ptxas made of it for ARCH (sm_90, ...; present
 *                      when ptxas was found); loaded first, and the PTX is
 *                      JIT-compiled instead when the GPU cannot run it
 * Unknown sections are skipped, so later versions may add some.
 */
#ifndef CUDA_ABI_H
#define CUDA_ABI_H

#include <stdint.h>

#define CUDA_ABI_VERSION 6    /* 6: split groups; 5: launch values in .param */
#define CUDA_MAX_SCRATCH 4096   /* per-warp scratch bytes (32 warps: 128 KB) */
#define CUDA_BIN_MAGIC "//@cmetal binary 1\n"  /* a container (Binaries) */

enum { CUDA_LAUNCH_WALKER = 0, CUDA_LAUNCH_GROUPS = 1 };
enum { CUDA_MAX_DEPS = 8 };

/* One bound surface, in device memory (40 bytes). */
typedef struct CudaSurface {
	uint64_t base;        /* device address of byte 0 */
	uint64_t size;        /* bytes addressable from base */
	uint32_t width;       /* 2D: row width in bytes; 1D: = size (clamped) */
	uint32_t height;      /* 2D: rows; 1D: 1 */
	uint32_t pitch;       /* 2D: bytes between rows */
	uint32_t format;      /* CMK_FMT_* */
	uint32_t bpp;         /* bytes per pixel (1 for buffers) */
	uint32_t is2d;
} CudaSurface;

#define CUDA_S_BASE 0
#define CUDA_S_SIZE 8
#define CUDA_S_WIDTH 16
#define CUDA_S_HEIGHT 20
#define CUDA_S_PITCH 24
#define CUDA_S_FORMAT 28
#define CUDA_S_BPP 32
#define CUDA_S_IS2D 36
#define CUDA_S_BYTES 40

/* A surface argument in the kernel's parameter space (Kernel entry; 40
 * bytes): the fields the PTX reads of its CudaSurface. */
typedef struct CudaSurfaceParam {
	uint32_t slot;        /* the argument's value: its index in the table */
	uint32_t reserved;
	uint64_t base;
	uint64_t size;
	uint32_t width;
	uint32_t height;
	uint32_t pitch;
	uint32_t bpp;
} CudaSurfaceParam;

#define CUDA_SP_SLOT 0
#define CUDA_SP_BASE 8
#define CUDA_SP_SIZE 16
#define CUDA_SP_WIDTH 24
#define CUDA_SP_HEIGHT 28
#define CUDA_SP_PITCH 32
#define CUDA_SP_BPP 36
#define CUDA_SP_BYTES 40

#define CUDA_PARAM_MAX 4096   /* bytes of parameters a kernel may take */

/* The kernel's first parameter (48 bytes): copies of the CudaLaunch fields
 * its prologue and thread ids read. */
typedef struct CudaLaunchParam {
	uint64_t block;       /* device address of the CudaLaunch */
	uint32_t kind;        /* CUDA_LAUNCH_* */
	uint32_t threads_per_cta; /* walker: CM threads (warps) per CTA */
	uint32_t nthreads;    /* walker: width * height */
	uint32_t cta_warps;   /* cluster launches: warps per CTA; else 0 */
	uint32_t local[3];    /* groups: CM threads per group in x, y, z */
	uint32_t width;       /* walker space */
	uint32_t split[2];    /* split groups: log2 of CTAs per group in x, y */
} CudaLaunchParam;

#define CUDA_LP_BLOCK 0
#define CUDA_LP_KIND 8
#define CUDA_LP_TPC 12
#define CUDA_LP_NTHREADS 16
#define CUDA_LP_CTA_WARPS 20
#define CUDA_LP_LOCAL 24
#define CUDA_LP_WIDTH 36
#define CUDA_LP_SPLIT 40
#define CUDA_LP_BYTES 48

/* One launch, in device memory; CudaLaunchParam.block points at it (112
 * bytes).  kind, width, nthreads, threads_per_cta, local and cta_warps are
 * also in the CudaLaunchParam, where the PTX reads them. */
typedef struct CudaLaunch {
	uint64_t surfaces;    /* device address of CudaSurface[nsurfaces] */
	uint64_t flags;       /* uint32[nthreads], zeroed; 0 if no waits */
	uint64_t ticket;      /* uint32 counter, zeroed; 0 if no waits */
	uint64_t fault;       /* the fault record (Faults); 0 = no reports */
	uint32_t nsurfaces;
	uint32_t kind;        /* CUDA_LAUNCH_* */
	uint32_t width;       /* walker space */
	uint32_t height;
	uint32_t nthreads;    /* walker: width * height */
	uint32_t threads_per_cta; /* walker: CM threads (warps) per CTA */
	uint32_t ndeps;       /* walker dependencies, <= CUDA_MAX_DEPS */
	uint32_t reserved;
	int8_t dx[CUDA_MAX_DEPS];
	int8_t dy[CUDA_MAX_DEPS];
	uint64_t printf_buf;  /* CudaPrintf head; 0 = printf does nothing */
	uint64_t printf_cap;  /* bytes of records after the head */
	uint32_t local[3];    /* groups: CM threads per group in x, y, z */
	uint32_t cta_warps;   /* cluster launches: warps per CTA; else 0 */
} CudaLaunch;

#define CUDA_L_SURFACES 0
#define CUDA_L_FLAGS 8
#define CUDA_L_TICKET 16
#define CUDA_L_FAULT 24
#define CUDA_L_NSURFACES 32
#define CUDA_L_KIND 36
#define CUDA_L_WIDTH 40
#define CUDA_L_HEIGHT 44
#define CUDA_L_NTHREADS 48
#define CUDA_L_TPC 52
#define CUDA_L_NDEPS 56
#define CUDA_L_DX 64
#define CUDA_L_DY 72
#define CUDA_L_PRINTF 80
#define CUDA_L_PRINTF_CAP 88
#define CUDA_L_LOCAL 96
#define CUDA_L_CTA_WARPS 108
#define CUDA_L_BYTES 112

/* What a faulting access was (bits 24..30 of a fault record), with the
 * text the runtime reports, the same as the CPU device's (target/c/mem.c). */
#define CUDA_FAULT_KINDS(X) \
	X(BLOAD, "block read out of bounds") \
	X(BSTORE, "block write out of bounds") \
	X(GATHER, "gather out of bounds") \
	X(SCATTER, "scatter out of bounds") \
	X(CH4, "4-channel access out of bounds") \
	X(MLOAD, "media block read of an unbound surface") \
	X(MSTORE, "media block write outside the surface") \
	X(TYPED, "typed access out of bounds") \
	X(ATOMIC, "atomic out of bounds") \
	X(TATOMIC, "typed atomic out of bounds") \
	X(SLMCOPY, "SLM copy out of bounds")
#define CUDA_FAULT_ENUM_(N, TEXT) CUDA_FAULT_##N,
enum { CUDA_FAULT_NONE = 0, CUDA_FAULT_KINDS(CUDA_FAULT_ENUM_) CUDA_FAULT_COUNT_ };
#undef CUDA_FAULT_ENUM_
#define CUDA_FAULT_FULL 0x80000000u   /* bit 31 of the low word */
#define CUDA_FAULT_LINE_MAX 0xffffffu

/* The head of the printf buffer (16 bytes); records follow it. */
typedef struct CudaPrintf {
	uint64_t used;        /* bytes claimed by records (may pass the cap) */
	uint32_t overflow;    /* 1: a record did not fit and was dropped */
	uint32_t reserved;
} CudaPrintf;

#define CUDA_P_USED 0
#define CUDA_P_OVERFLOW 8
#define CUDA_P_RECORDS 16
#define CUDA_P_END 0xffffffffu  /* format word of a claim that did not fit */

/* Argument kinds of a printf record (letters of the metadata KINDS). */
enum {
	CUDA_PF_I32 = 'i', CUDA_PF_U32 = 'u', CUDA_PF_I64 = 'l', CUDA_PF_U64 = 'L',
	CUDA_PF_F64 = 'd',
};

#endif
