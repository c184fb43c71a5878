/* module.c — CUDA programs: CM source -> PTX with the in-process compiler
 * (rt_compile_cm, target "ptx", the CPU device's option syntax; -march
 * defaults to the GPU's architecture), or a .ptx file the compiler wrote;
 * then the driver's JIT (cuModuleLoadDataEx) with its info and error logs
 * captured.  Kernel metadata (CmkKernelInfo) and the printf formats come
 * from the "//@cmetal" comment lines at the top of the PTX (rt/cuda_abi.h
 * "Metadata").
 *
 * When the JIT rejects a PTX, its log names PTX lines ("line 57"); each
 * such line is followed in our message by the CM source line the nearest
 * preceding .loc directive gives (present when built with -g).
 *
 * Each kernel gets its CUfunction, its parameter pointer array with room
 * for the CudaSurfaceParams it points at, and a slot of one device
 * allocation for its launch block (CudaLaunch and surface table), all made
 * here once so that launches allocate nothing.
 *
 * Groups of more than 32 CM threads need the cluster variant of a program
 * (PTX compiled with -fcluster-slm, rt/cuda_abi.h "Clusters"): a program
 * built from source keeps the source and options, and the first launch
 * that needs the variant builds it (cuda_cluster_program), once. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/cuda/cuda.h"
#include "target/target.h"

#define JIT_LOG_SIZE 16384
#define BLOCK_ALIGN 256u

/* ---- metadata ---- */

/* Reads a "quoted" word at *s (no escapes; the attribute texts are plain). */
static const char *quoted(Arena *a, const char *s)
{
	while (*s == ' ')
		s++;
	if (*s != '"')
		return NULL;
	const char *e = strchr(s + 1, '"');
	return e ? arena_strndup(a, s + 1, (size_t)(e - s - 1)) : NULL;
}

/* The kernels' args are collected per kernel, then copied into arrays. */
typedef struct {
	CmkKernelInfo info;
	VEC(CmkArgInfo) args;
	uint32_t scratch;     /* per-CM-thread SLM scratch ("scratch N"; 0 if absent) */
	uint32_t lanes;       /* lanes per CM thread ("lanes W"; 32 if absent) */
	const char *targs;    /* "thread_args I,J" list; NULL if absent */
	uint32_t psurf;       /* "param_surfaces N"; UINT32_MAX (all) if absent */
	bool checks;          /* "checks 1": built with -fbounds-check */
	bool split;           /* "split 1": its groups may run as several CTAs */
	uint32_t narrow;      /* "narrow E": a NAME$narrow entry (target/ptx/variant.c) */
	bool dslm;            /* "dynamic_slm 1": SLM in dynamic shared memory */
	bool wgmma;           /* "wgmma 1": it has cm_wgmma */
} MetaKernel;

/* One "kernel" line's fields after the keyword; "scratch N", "lanes W",
 * "checks 1", "split 1", "thread_args I,J" and "param_surfaces N" after
 * them are optional. */
static bool parse_kernel(Arena *a, const char *s, MetaKernel *mk)
{
	CmkKernelInfo *k = &mk->info;
	char name[256];
	unsigned slm, bar, wait, simd, shfl;
	if (sscanf(s, "%255s slm %u barrier %u wait %u simd %u shuffles %u", name, &slm, &bar,
	           &wait, &simd, &shfl) != 6)
		return false;
	k->name = arena_strdup(a, name);
	k->slm_size = slm;
	k->uses_barrier = bar;
	k->uses_wait = wait;
	k->simd_width = simd;
	const char *sc = strstr(s, " scratch ");
	unsigned n = 0;
	if (sc && (sscanf(sc, " scratch %u", &n) != 1 || n > CUDA_MAX_SCRATCH))
		return false;
	mk->scratch = n;
	/* "lanes W": 32/W CM threads share a warp (target/ptx/pack.c) */
	const char *ln = strstr(s, " lanes ");
	uint32_t *lanes = &mk->lanes;
	*lanes = 32;
	if (ln && (sscanf(ln, " lanes %u", lanes) != 1 || !*lanes || *lanes > 32 ||
	           (*lanes & (*lanes - 1))))
		return false;
	/* "checks 1": it reports out-of-range accesses (-fbounds-check) */
	mk->checks = strstr(s, " checks 1") != NULL;
	/* "split 1": its groups may run as several CTAs (rt/cuda_abi.h) */
	mk->split = strstr(s, " split 1") != NULL;
	/* "narrow E": NAME$narrow reads images of pixels narrower than E bytes */
	const char *nw = strstr(s, " narrow ");
	if (nw && (sscanf(nw, " narrow %u", &mk->narrow) != 1 || mk->narrow < 2 ||
	           mk->narrow > 8))
		return false;
	/* "dynamic_slm 1": its SLM is byte 0 of the dynamic shared memory */
	mk->dslm = strstr(s, " dynamic_slm 1") != NULL;
	/* "wgmma 1": it runs warpgroup instructions (cm_wgmma) */
	mk->wgmma = strstr(s, " wgmma 1") != NULL;
	/* "thread_args I,J": those arguments are per-thread tables */
	const char *ta = strstr(s, " thread_args ");
	mk->targs = NULL;
	if (ta) {
		ta += 13;
		size_t len = strspn(ta, "0123456789,");
		if (!len)
			return false;
		mk->targs = arena_strndup(a, ta, len);
	}
	/* "param_surfaces N": later surface arguments are plain slots */
	const char *ps = strstr(s, " param_surfaces ");
	mk->psurf = UINT32_MAX;
	return !ps || sscanf(ps, " param_surfaces %u", &mk->psurf) == 1;
}

static bool parse_arg(Arena *a, const char *s, CmkArgInfo *ai)
{
	char name[256];
	unsigned kind, size, elem, surf;
	int used = 0;
	if (sscanf(s, "%255s %u %u %u %u%n", name, &kind, &size, &elem, &surf, &used) != 5)
		return false;
	if (kind < CMK_ARG_SCALAR || kind > CMK_ARG_SVM || size == 0 || size > 65536)
		return false;
	ai->name = arena_strdup(a, name);
	ai->kind = kind;
	ai->size = size;
	ai->elem = elem;
	ai->surf = surf;
	ai->type_attr = quoted(a, s + used);
	return ai->type_attr != NULL;
}

/* A "printf" line: INDEX KINDS "FORMAT" with the escapes of cuda_abi.h. */
static bool parse_printf(Arena *a, const char *s, uint32_t want, CudaFormat *f)
{
	char kinds[256];
	unsigned idx;
	int used = 0;
	if (sscanf(s, "%u %255s%n", &idx, kinds, &used) != 2 || idx != want)
		return false;
	if (!strcmp(kinds, "-"))
		kinds[0] = '\0';
	for (const char *k = kinds; *k; k++)
		if (!strchr("iulLd", *k))
			return false;
	s += used;
	while (*s == ' ')
		s++;
	if (*s++ != '"')
		return false;
	Buf t = {0};
	bool ok = false;
	for (; *s; s++) {
		if (*s == '"') {
			ok = s[1] == '\0';
			break;
		}
		if (*s != '\\') {
			buf_putc(&t, *s);
			continue;
		}
		s++;
		unsigned x;
		if (*s == 'n')
			buf_putc(&t, '\n');
		else if (*s == 't')
			buf_putc(&t, '\t');
		else if (*s == 'x' && sscanf(s + 1, "%2x", &x) == 1 && s[1] && s[2])
			buf_putc(&t, (char)x), s += 2;
		else if (*s == '\\' || *s == '"')
			buf_putc(&t, *s);
		else
			break;
	}
	if (ok) {
		f->text = arena_strndup(a, t.len ? t.data : "", t.len);
		f->kinds = arena_strdup(a, kinds);
		f->nargs = (uint32_t)strlen(kinds);
	}
	buf_free(&t);
	return ok;
}

static bool finish(Arena *a, MetaKernel *mk, int n, CmkKernelInfo **infos, uint32_t *count)
{
	*infos = NEWN(a, CmkKernelInfo, n + 1);
	for (int i = 0; i < n; i++) {
		CmkKernelInfo *k = &(*infos)[i];
		*k = mk[i].info;
		k->nargs = (uint32_t)mk[i].args.len;
		CmkArgInfo *args = NEWN(a, CmkArgInfo, k->nargs + 1);
		if (k->nargs)
			memcpy(args, mk[i].args.data, sizeof *args * k->nargs);
		k->args = args;
	}
	*count = (uint32_t)n;
	return true;
}

bool cuda_parse_metadata(Arena *a, const char *ptx, CmkKernelInfo **infos, uint32_t *n,
                         CudaProgram *cp, Buf *err)
{
	VEC(MetaKernel) ks = {0};
	VEC(CudaFormat) fmts = {0};
	VEC(int) fmt_kernel = {0};
	int abi = -1, lineno = 0;
	bool ok = true;
	for (const char *s = ptx; *s && ok; ) {
		const char *eol = strchr(s, '\n');
		size_t len = eol ? (size_t)(eol - s) : strlen(s);
		char line[8192];
		lineno++;
		if (strncmp(s, "//", 2) != 0)
			break;  /* the metadata is the leading comment block */
		if (len >= sizeof line) {
			buf_printf(err, "metadata line %d is longer than %zu bytes", lineno,
			           sizeof line - 1);
			ok = false;
			break;
		}
		memcpy(line, s, len);
		line[len] = '\0';
		s += len + (eol != NULL);
		if (strncmp(line, "//@cmetal ", 10) != 0)
			continue;
		const char *f = line + 10;
		if (!strncmp(f, "abi ", 4)) {
			abi = atoi(f + 4);
		} else if (!strncmp(f, "cluster ", 8)) {
			if (cp)
				cp->cluster_mode = atoi(f + 8) != 0;
		} else if (!strncmp(f, "kernel ", 7)) {
			MetaKernel mk = {0};
			ok = parse_kernel(a, f + 7, &mk);
			if (ok)
				vec_push(&ks, mk);
		} else if (!strncmp(f, "arg ", 4) && ks.len) {
			CmkArgInfo ai = {0};
			ok = parse_arg(a, f + 4, &ai);
			if (ok)
				vec_push(&ks.data[ks.len - 1].args, ai);
		} else if (!strncmp(f, "printf ", 7) && ks.len) {
			CudaFormat pf = {0};
			ok = parse_printf(a, f + 7, (uint32_t)fmts.len, &pf);
			if (ok) {
				vec_push(&fmts, pf);
				vec_push(&fmt_kernel, ks.len - 1);
			}
		} else {
			ok = false;
		}
		if (!ok)
			buf_printf(err, "bad metadata line %d: %s", lineno, line);
	}
	if (ok && abi < 0) {
		buf_puts(err, "it has no '//@cmetal abi' line: not PTX written by cmetal");
		ok = false;
	} else if (ok && abi != CUDA_ABI_VERSION) {
		buf_printf(err, "it was written for kernel ABI version %d; this runtime needs "
		           "version %d (compile it again with this cmetal)", abi, CUDA_ABI_VERSION);
		ok = false;
	}
	if (ok)
		finish(a, ks.data, ks.len, infos, n);
	if (ok && cp) {
		cp->nfmts = (uint32_t)fmts.len;
		cp->fmts = NEWN(a, CudaFormat, fmts.len + 1);
		if (fmts.len)
			memcpy(cp->fmts, fmts.data, sizeof *cp->fmts * (size_t)fmts.len);
		cp->prints = NEWN(a, bool, ks.len + 1);
		cp->scratch = NEWN(a, uint32_t, ks.len + 1);
		cp->lanes = NEWN(a, uint32_t, ks.len + 1);
		cp->targs = NEWN(a, const char *, ks.len + 1);
		cp->psurf = NEWN(a, uint32_t, ks.len + 1);
		cp->checks = NEWN(a, bool, ks.len + 1);
		cp->split = NEWN(a, bool, ks.len + 1);
		cp->narrow = NEWN(a, uint32_t, ks.len + 1);
		cp->dslm = NEWN(a, bool, ks.len + 1);
		cp->wgmma = NEWN(a, bool, ks.len + 1);
		for (int i = 0; i < ks.len; i++) {
			cp->dslm[i] = ks.data[i].dslm;
			cp->wgmma[i] = ks.data[i].wgmma;
			cp->checks[i] = ks.data[i].checks;
			cp->split[i] = ks.data[i].split;
			cp->narrow[i] = ks.data[i].narrow;
			cp->scratch[i] = ks.data[i].scratch;
			cp->lanes[i] = ks.data[i].lanes;
			cp->targs[i] = ks.data[i].targs;
			cp->psurf[i] = ks.data[i].psurf;
		}
		for (int i = 0; i < fmt_kernel.len; i++)
			cp->prints[fmt_kernel.data[i]] = true;
	}
	for (int i = 0; i < ks.len; i++)
		vec_free(&ks.data[i].args);
	vec_free(&ks);
	vec_free(&fmts);
	vec_free(&fmt_kernel);
	return ok;
}

/* ---- JIT logs ---- */

/* The CM file and line of PTX line `target`: the last .loc before it, and
 * the .file naming its file.  false when there is none. */
static bool source_of(const char *ptx, long target, char *file, size_t fsz, long *line)
{
	long n = 1, want_file = -1;
	*line = -1;
	for (const char *s = ptx; *s && n < target; n++) {
		while (*s == ' ' || *s == '\t')
			s++;
		long fl, ln;
		if (sscanf(s, ".loc %ld %ld", &fl, &ln) == 2) {
			want_file = fl;
			*line = ln;
		}
		const char *eol = strchr(s, '\n');
		if (!eol)
			break;
		s = eol + 1;
	}
	if (*line < 0)
		return false;
	snprintf(file, fsz, "program.cm");
	char pat[32];
	snprintf(pat, sizeof pat, ".file %ld \"", want_file);
	const char *f = strstr(ptx, pat);
	if (f) {
		f += strlen(pat);
		const char *e = strchr(f, '"');
		if (e && (size_t)(e - f) < fsz)
			snprintf(file, fsz, "%.*s", (int)(e - f), f);
	}
	return true;
}

/* Appends the JIT log to out, each line naming a PTX line followed by the
 * CM source line it comes from. */
static void map_log(const char *ptx, const char *log, Buf *out)
{
	while (*log) {
		const char *eol = strchr(log, '\n');
		size_t len = eol ? (size_t)(eol - log) : strlen(log);
		buf_putn(out, log, len);
		buf_putc(out, '\n');
		const char *l = strstr(log, "line ");
		char file[256];
		long cm;
		if (l && l < log + len && source_of(ptx, atol(l + 5), file, sizeof file, &cm))
			buf_printf(out, "    from %s:%ld\n", file, cm);
		log += len + (eol != NULL);
	}
}

/* ---- loading a module ---- */

/* Kernel i's NAME$narrow entry, when its metadata says it has one. */
static cm_status narrow_entry(const CuDriver *cu, CudaProgram *cp, uint32_t i, CudaKernel *k)
{
	k->narrow_eb = cp->narrow ? cp->narrow[i] : 0;
	if (!k->narrow_eb)
		return CM_SUCCESS;
	char name[300];
	snprintf(name, sizeof name, "%s$narrow", cp->infos[i].name);
	CUresult r = cu->ModuleGetFunction(&k->narrow_fn, cp->mod, name);
	if (r)
		return rt_fail(CM_INVALID_PROGRAM, "the PTX lists kernel '%s' with a variant for "
		               "narrow pixels but has no entry '%s': %s", cp->infos[i].name, name,
		               cu_errtext(r));
	if (cu->FuncGetAttribute(&k->narrow_max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
	                         k->narrow_fn) || k->narrow_max_threads <= 0)
		k->narrow_max_threads = 1024;
	return CM_SUCCESS;
}

/* Functions, parameter arrays and launch blocks of every kernel. */
static cm_status setup_kernels(CudaDevice *c, CudaProgram *cp)
{
	const CuDriver *cu = c->cu;
	size_t total = 0;
	cp->ks = NEWN(cp->arena, CudaKernel, cp->n + 1);
	for (uint32_t i = 0; i < cp->n; i++) {
		CudaKernel *k = &cp->ks[i];
		k->scratch = cp->scratch ? cp->scratch[i] : 0;
		k->dyn_slm = cp->dslm && cp->dslm[i] ? (cp->infos[i].slm_size + 15u) & ~15u : 0;
		k->wgmma = cp->wgmma && cp->wgmma[i];
		k->lanes = cp->lanes && cp->lanes[i] ? cp->lanes[i] : 32;
		k->thread_args = cp->targs ? cp->targs[i] : NULL;
		CUresult r = cu->ModuleGetFunction(&k->fn, cp->mod, cp->infos[i].name);
		if (r)
			return rt_fail(CM_INVALID_PROGRAM,
			               "the PTX lists kernel '%s' but has no such entry: %s",
			               cp->infos[i].name, cu_errtext(r));
		cu->FuncGetAttribute(&k->regs, CU_FUNC_ATTRIBUTE_NUM_REGS, k->fn);
		cu->FuncGetAttribute(&k->local_bytes, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, k->fn);
		cu->FuncGetAttribute(&k->shared_bytes, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k->fn);
		if (cu->FuncGetAttribute(&k->max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
		                         k->fn) || k->max_threads <= 0)
			k->max_threads = 1024;
		k->params = NEWN(cp->arena, void *, cp->infos[i].nargs + 1);
		k->sparams = NEWN(cp->arena, CudaSurfaceParam, cp->infos[i].nargs + 1);
		k->param_surfaces = cp->psurf ? cp->psurf[i] : UINT32_MAX;
		k->targ_addr = NEWN(cp->arena, CUdeviceptr, cp->infos[i].nargs + 1);
		k->image_len = CUDA_L_BYTES + (size_t)cp->infos[i].nargs * CUDA_S_BYTES;
		k->image = arena_alloc(cp->arena, k->image_len);
		k->next = arena_alloc(cp->arena, k->image_len);
		k->uses_printf = cp->prints && cp->prints[i];
		k->checks = cp->checks && cp->checks[i];
		k->split = cp->split && cp->split[i];
		cm_status s = narrow_entry(cu, cp, i, k);
		if (s)
			return s;
		total += (k->image_len + BLOCK_ALIGN - 1) / BLOCK_ALIGN * BLOCK_ALIGN;
	}
	if (!total)
		return CM_SUCCESS;
	CUresult r = cu->MemAlloc(&cp->blocks, total);
	if (r)
		return cu_fail(r, CM_OUT_OF_MEMORY, "allocating launch blocks on the GPU");
	CUdeviceptr at = cp->blocks;
	for (uint32_t i = 0; i < cp->n; i++) {
		cp->ks[i].block = at;
		at += (cp->ks[i].image_len + BLOCK_ALIGN - 1) / BLOCK_ALIGN * BLOCK_ALIGN;
	}
	return CM_SUCCESS;
}

/* A program state for ptx (malloc'd, kept); NULL when out of memory. */
static CudaProgram *program_new(char *ptx)
{
	CudaProgram *cp = calloc(1, sizeof *cp);
	if (!cp) {
		free(ptx);
		return NULL;
	}
	cp->arena = arena_new();
	cp->ptx = ptx;
	return cp;
}

/* Parses the metadata of cp->ptx, JIT-compiles it and sets up its
 * kernels; the logs go to log or the error.  `what` names the PTX in
 * messages ("program.ptx", the path).  maxreg: a register cap for the JIT
 * (CU_JIT_MAX_REGISTERS, with its verbose log); 0 for none. */
static cm_status module_init(CudaDevice *c, CudaProgram *cp, const char *what, Buf *log,
                             unsigned maxreg)
{
	const char *ptx = cp->ptx;
	Buf err = {0};
	if (!cuda_parse_metadata(cp->arena, ptx, &cp->infos, &cp->n, cp, &err)) {
		cm_status s = rt_fail(CM_INVALID_PROGRAM, "%s: %s", what, buf_cstr(&err));
		buf_free(&err);
		return s;
	}
	cm_status s = cuda_enter(c);
	if (s)
		return s;
	char *info = calloc(2, JIT_LOG_SIZE), *elog = info + JIT_LOG_SIZE;
	if (!info)
		return rt_fail(CM_OUT_OF_MEMORY, "out of memory");
	int opts[] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
	              CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
	              CU_JIT_GENERATE_LINE_INFO, CU_JIT_MAX_REGISTERS, CU_JIT_LOG_VERBOSE};
	void *vals[] = {info, (void *)(uintptr_t)(JIT_LOG_SIZE - 1), elog,
	                (void *)(uintptr_t)(JIT_LOG_SIZE - 1),
	                (void *)(uintptr_t)(strstr(ptx, ".loc") != NULL),
	                (void *)(uintptr_t)maxreg, (void *)(uintptr_t)1};
	unsigned nopt = maxreg ? 7 : 5;
	CUresult r = CUDA_SUCCESS;
	if (cp->cubin && !maxreg) {
		r = c->cu->ModuleLoadDataEx(&cp->mod, cp->cubin, 5, opts, vals);
		if (r)   /* another architecture: the PTX still fits */
			buf_printf(log, "note: %s: the GPU does not load its cubin (%s); "
			           "JIT-compiling its PTX instead\n", what, cu_errtext(r));
		info[0] = elog[0] = 0;
	}
	if (!cp->cubin || maxreg || r)
		r = c->cu->ModuleLoadDataEx(&cp->mod, ptx, nopt, opts, vals);
	if (r) {
		cp->mod = NULL;
		Buf msg = {0};
		map_log(ptx, elog[0] ? elog : info, &msg);
		s = rt_fail(r == CUDA_ERROR_INVALID_PTX ? CM_BUILD_FAILED : CM_INVALID_PROGRAM,
		            "the CUDA driver's JIT rejected %s: %s%s%s", what, cu_errtext(r),
		            msg.len ? ":\n" : "", msg.len ? buf_cstr(&msg) : "");
		buf_free(&msg);
	} else {
		if (info[0])
			map_log(ptx, info, log);
		s = setup_kernels(c, cp);
	}
	free(info);
	return s;
}

/* Loads cubin (when not NULL) or JIT-compiles ptx (both kept by the
 * program); the logs go to p->log or the error. */
static cm_status load_module(cmetal_device *dev, cmetal_program *p, char *ptx,
                             void *cubin, size_t cubin_len, const char *what, Buf *log)
{
	CudaProgram *cp = program_new(ptx);
	if (!cp) {
		free(cubin);
		return rt_fail(CM_OUT_OF_MEMORY, "out of memory");
	}
	cp->cubin = cubin;
	cp->cubin_len = cubin_len;
	p->priv = cp;
	cm_status s = module_init(dev->priv, cp, what, log, 0);
	if (!s) {
		p->nkernels = cp->n;
		p->kernels = cp->infos;
	}
	return s;
}

/* A container of `cmetal -c -t ptx` (binary.c): its PTX and cubin copied
 * out of data, which is freed. */
static cm_status unpack_binary(const char *path, char *data, size_t len, char **ptx,
                               void **cubin, size_t *cubin_len)
{
	CudaBinary b;
	Buf err = {0};
	cm_status s = CM_SUCCESS;
	if (!cuda_binary_parse(data, len, &b, &err)) {
		s = rt_fail(CM_INVALID_PROGRAM, "%s is a damaged cmetal binary: %s", path,
		            buf_cstr(&err));
	} else {
		*ptx = xmalloc(b.ptx_len + 1);
		memcpy(*ptx, b.ptx, b.ptx_len);
		(*ptx)[b.ptx_len] = 0;
		if (b.cubin) {
			*cubin = xmalloc(b.cubin_len + 1);
			memcpy(*cubin, b.cubin, b.cubin_len);
			((char *)*cubin)[b.cubin_len] = 0;
			*cubin_len = b.cubin_len;
		}
	}
	buf_free(&err);
	free(data);
	return s;
}

cm_status cuda_program_load(cmetal_device *dev, cmetal_program *p, const char *path)
{
	size_t len = 0, cubin_len = 0;
	char *ptx = read_file(path, &len);
	void *cubin = NULL;
	if (!ptx)
		return rt_fail(CM_IO_ERROR, "cannot read %s", path);
	if (cuda_is_binary(ptx, len)) {
		char *data = ptx;
		ptx = NULL;
		cm_status s = unpack_binary(path, data, len, &ptx, &cubin, &cubin_len);
		if (s)
			return s;
	} else if (strlen(ptx) != len) {
		free(ptx);
		return rt_fail(CM_INVALID_PROGRAM,
		               "%s is neither PTX nor a cmetal binary for the GPU (the CUDA device "
		               "loads what cmetal -t ptx writes: -S text or the -c binary)", path);
	}
	Buf log = {0};
	cm_status s = load_module(dev, p, ptx, cubin, cubin_len, path, &log);
	p->log = xstrdup(log.len ? buf_cstr(&log) : "");
	buf_free(&log);
	return s;
}

/* The user's options, plus -march for this GPU unless they give one: its
 * own architecture when the PTX back end knows it, else the newest below. */
static char *with_march(const CudaDevice *c, const char *options)
{
	Buf b = {0};
	buf_puts(&b, options);
	if (!strstr(options, "-march="))
		buf_printf(&b, " -march=%s", ptx_march_for(c->cc_major, c->cc_minor));
	char *s = xstrdup(buf_cstr(&b));
	buf_free(&b);
	return s;
}

cm_status cuda_program_build(cmetal_device *dev, cmetal_program *p, const char *source,
                             const char *options)
{
	Buf ptx = {0}, log = {0};
	char *opts = with_march(dev->priv, options);
	cm_status s = CM_SUCCESS;
	if (!rt_compile_cm(source, opts, "ptx", &ptx, &log)) {
		s = rt_fail(CM_BUILD_FAILED, "build failed:\n%s", buf_cstr(&log));
		buf_free(&ptx);
	} else {
		char *text = xstrdup(ptx.len ? buf_cstr(&ptx) : "");
		buf_free(&ptx);
		s = load_module(dev, p, text, NULL, 0, "the PTX of this program", &log);
		CudaProgram *cp = p->priv;
		if (cp) {
			cp->source = xstrdup(source);
			cp->options = xstrdup(options);
		}
	}
	free(opts);
	p->log = xstrdup(log.len ? buf_cstr(&log) : "");
	buf_free(&log);
	return s;
}

/* Frees cp, its variants, and their device resources. */
static void program_free(CudaDevice *c, CudaProgram *cp)
{
	if (cp->cluster)
		program_free(c, cp->cluster);
	for (CudaVariant *v = cp->variants, *next; v; v = next) {
		next = v->next;
		program_free(c, v->prog);
		free(v->key);
		free(v);
	}
	if (!c->lost && cuda_enter(c) == CM_SUCCESS) {
		if (cp->blocks)
			c->cu->MemFree(cp->blocks);
		for (uint32_t i = 0; cp->ks && i < cp->n; i++)
			if (cp->ks[i].targ_mem)
				c->cu->MemFree(cp->ks[i].targ_mem);
		if (cp->mod)
			c->cu->ModuleUnload(cp->mod);
	}
	for (uint32_t i = 0; i < cp->nold_logs; i++)
		free(cp->old_logs[i]);
	free(cp->old_logs);
	free(cp->ptx);
	free(cp->cubin);
	free(cp->source);
	free(cp->options);
	arena_free(cp->arena);
	free(cp);
}

void cuda_program_free(cmetal_device *dev, cmetal_program *p)
{
	if (p->priv)
		program_free(dev->priv, p->priv);
	p->priv = NULL;
}

/* The cluster variant: the program's source again with -fcluster-slm. */
static cm_status build_cluster(CudaDevice *c, CudaProgram *cp, CudaProgram **out)
{
	Buf ptx = {0}, log = {0};
	char *march = with_march(c, cp->options);
	Buf opts = {0};
	buf_printf(&opts, "%s -fcluster-slm", march);
	free(march);
	CudaProgram *v = NULL;
	cm_status s = CM_SUCCESS;
	if (!rt_compile_cm(cp->source, buf_cstr(&opts), "ptx", &ptx, &log)) {
		s = rt_fail(CM_BUILD_FAILED, "building the cluster variant of the program (for a "
		            "group of more than 32 CM threads) failed:\n%s", buf_cstr(&log));
	} else if (!(v = program_new(xstrdup(ptx.len ? buf_cstr(&ptx) : "")))) {
		s = rt_fail(CM_OUT_OF_MEMORY, "out of memory");
	} else if ((s = module_init(c, v, "the cluster variant of this program", &log, 0))) {
		program_free(c, v);
		v = NULL;
	} else if (v->n != cp->n || !v->cluster_mode) {
		s = rt_fail(CM_INVALID_PROGRAM, "the cluster variant of the program has other kernels");
		program_free(c, v);
		v = NULL;
	}
	buf_free(&ptx);
	buf_free(&log);
	buf_free(&opts);
	*out = v;
	return s;
}

cm_status cuda_cluster_program(CudaDevice *c, CudaProgram *cp, CudaProgram **out)
{
	*out = cp->cluster_mode ? cp : cp->cluster;
	if (*out)
		return CM_SUCCESS;
	if (c->cc_major < 9)
		return rt_fail(CM_GROUP_TOO_LARGE, "a group of more than 32 CM threads needs "
		               "thread-block clusters (sm_90 or newer); on this sm_%d%d GPU a group "
		               "holds at most 32 (each CM thread is a warp, a CTA at most 32 warps)",
		               c->cc_major, c->cc_minor);
	if (!c->cu->LaunchKernelEx)
		return rt_fail(CM_GROUP_TOO_LARGE, "a group of more than 32 CM threads needs a "
		               "cluster launch, and this CUDA driver has no cuLaunchKernelEx (CUDA "
		               "12.0 or newer)");
	if (!cp->source)
		return rt_fail(CM_GROUP_TOO_LARGE, "a group of more than 32 CM threads needs the "
		               "program compiled for thread-block clusters, and this one was loaded "
		               "from PTX without its source: compile it with cmetal -fcluster-slm "
		               "(each CM thread is a warp, a CTA at most 32 warps)");
	cm_status s = build_cluster(c, cp, out);
	cp->cluster = *out;
	return s;
}

/* The variant whose kernel `name` reads the arguments of list ("2,3") per
 * thread: the program's source again with -fthread-args=name:list. */
static cm_status build_thread_args(CudaDevice *c, CudaProgram *cp, const char *name,
                                   const char *list, CudaProgram **out)
{
	Buf ptx = {0}, log = {0}, opts = {0};
	char *march = with_march(c, cp->options);
	buf_printf(&opts, "%s -fthread-args=%s:%s", march, name, list);
	free(march);
	CudaProgram *v = NULL;
	cm_status s = CM_SUCCESS;
	if (!rt_compile_cm(cp->source, buf_cstr(&opts), "ptx", &ptx, &log)) {
		s = rt_fail(CM_BUILD_FAILED, "building the variant of the program whose kernel '%s' "
		            "reads arguments %s per thread failed:\n%s", name, list, buf_cstr(&log));
	} else if (!(v = program_new(xstrdup(ptx.len ? buf_cstr(&ptx) : "")))) {
		s = rt_fail(CM_OUT_OF_MEMORY, "out of memory");
	} else if ((s = module_init(c, v, "the per-thread argument variant of this program",
	                            &log, 0))) {
		program_free(c, v);
		v = NULL;
	} else if (v->n != cp->n) {
		s = rt_fail(CM_INVALID_PROGRAM, "the per-thread argument variant of the program has "
		            "other kernels");
		program_free(c, v);
		v = NULL;
	}
	buf_free(&ptx);
	buf_free(&log);
	buf_free(&opts);
	*out = v;
	return s;
}

cm_status cuda_thread_args_program(CudaDevice *c, CudaProgram *cp, uint32_t kernel,
                                   const char *list, CudaProgram **out)
{
	const char *name = cp->infos[kernel].name;
	const char *have = cp->ks[kernel].thread_args;
	*out = cp;
	if (!strcmp(have ? have : "", list))
		return CM_SUCCESS;
	if (!*list)
		return rt_fail(CM_ARGS_NOT_SET, "kernel '%s' was compiled to read arguments %s per "
		               "thread (-fthread-args); give them per-thread values with "
		               "cmetal_kernel_set_arg_per_thread", name, have);
	size_t klen = strlen(name) + strlen(list) + 2;
	char *key = xmalloc(klen);
	snprintf(key, klen, "%s:%s", name, list);
	for (CudaVariant *v = cp->variants; v; v = v->next)
		if (!strcmp(v->key, key)) {
			free(key);
			*out = v->prog;
			return CM_SUCCESS;
		}
	if (!cp->source) {
		cm_status s = rt_fail(CM_UNSUPPORTED, "kernel '%s' has per-thread values for "
		                      "arguments %s, and its program was loaded from PTX without "
		                      "its source: compile it with cmetal -t ptx -fthread-args=%s",
		                      name, list, key);
		free(key);
		return s;
	}
	CudaProgram *p;
	cm_status s = build_thread_args(c, cp, name, list, &p);
	if (s) {
		free(key);
		return s;
	}
	CudaVariant *v = calloc(1, sizeof *v);
	if (!v) {
		free(key);
		program_free(c, p);
		return rt_fail(CM_OUT_OF_MEMORY, "out of memory");
	}
	*v = (CudaVariant){key, p, cp->variants};
	cp->variants = v;
	*out = p;
	return CM_SUCCESS;
}

/* Appends text to the program's build log; the old log stays valid (a
 * caller of cmetal_program_build_log may hold it) until the program goes. */
static void append_log(cmetal_program *p, CudaProgram *cp, const char *text)
{
	char **old = realloc(cp->old_logs, (cp->nold_logs + 1) * sizeof *old);
	if (!old)
		return;
	cp->old_logs = old;
	Buf b = {0};
	buf_puts(&b, p->log ? p->log : "");
	buf_puts(&b, text);
	old[cp->nold_logs++] = p->log;
	p->log = xstrdup(buf_cstr(&b));
	buf_free(&b);
}

/* The register-capped variant: cp's PTX, JIT-compiled with maxreg. */
static cm_status build_regcap(CudaDevice *c, CudaProgram *cp, unsigned maxreg, Buf *log,
                              CudaProgram **out)
{
	CudaProgram *v = program_new(xstrdup(cp->ptx));
	*out = NULL;
	if (!v)
		return rt_fail(CM_OUT_OF_MEMORY, "out of memory");
	char what[96];
	snprintf(what, sizeof what, "this program with at most %u registers per lane", maxreg);
	cm_status s = module_init(c, v, what, log, maxreg);
	if (!s && v->n != cp->n)
		s = rt_fail(CM_INVALID_PROGRAM, "the register-capped variant has other kernels");
	if (s)
		program_free(c, v);
	else
		*out = v;
	return s;
}

/* cp's variant with at most cap registers per lane, cached under
 * "maxreg:CAP"; *log gets the build log when this call builds it (*built). */
static cm_status regcap_variant(CudaDevice *c, CudaProgram *cp, unsigned cap, Buf *log,
                                bool *built, CudaProgram **out)
{
	char key[32];
	snprintf(key, sizeof key, "maxreg:%u", cap);
	*built = false;
	for (CudaVariant *v = cp->variants; v; v = v->next)
		if (!strcmp(v->key, key)) {
			*out = v->prog;
			return CM_SUCCESS;
		}
	CudaProgram *prog;
	cm_status s = build_regcap(c, cp, cap, log, &prog);
	CudaVariant *v = s ? NULL : calloc(1, sizeof *v);
	if (!s && !v) {
		program_free(c, prog);
		s = rt_fail(CM_OUT_OF_MEMORY, "out of memory");
	}
	if (s)
		return s;
	*v = (CudaVariant){xstrdup(key), prog, cp->variants};
	cp->variants = v;
	*built = true;
	*out = prog;
	return CM_SUCCESS;
}

/* Appends note and the JIT log to p's build log and the debug log. */
static void regcap_note(cmetal_program *p, CudaProgram *cp, Buf *note, const Buf *log)
{
	buf_putn(note, log->data, log->len);
	append_log(p, cp, buf_cstr(note));
	rt_log("%s", buf_cstr(note));
}

cm_status cuda_regcap_program(CudaDevice *c, cmetal_program *p, CudaProgram *cp,
                              uint32_t kernel, uint32_t warps, CudaProgram **out)
{
	const CudaKernel *k = &cp->ks[kernel];
	const char *name = cp->infos[kernel].name;
	unsigned cap = occ_reg_cap(&c->arch, warps);
	if (!cap)
		return rt_fail(CM_GROUP_TOO_LARGE, "kernel '%s': no register count lets a CTA of %u "
		               "warps fit an SM", name, warps);
	Buf log = {0};
	bool built;
	CudaProgram *prog;
	cm_status s = regcap_variant(c, cp, cap, &log, &built, &prog);
	if (s || !built) {
		buf_free(&log);
		*out = s ? NULL : prog;
		return s;
	}
	const CudaKernel *nk = &prog->ks[kernel];
	Buf note = {0};
	buf_printf(&note, "note: kernel '%s': a group of %u CM threads needs %d registers per lane "
	           "x %u lanes, more than the %u a CTA may hold; launched from a variant built with at most "
	           "%u registers per lane (CU_JIT_MAX_REGISTERS): it uses %d, with %d bytes of "
	           "local memory per lane%s\n", name, warps, k->regs, warps * 32,
	           c->arch.regs_per_cta, cap, nk->regs, nk->local_bytes,
	           nk->local_bytes > k->local_bytes ? " (register spills: slower)" : "");
	regcap_note(p, cp, &note, &log);
	buf_free(&note);
	buf_free(&log);
	*out = prog;
	return CM_SUCCESS;
}

CudaProgram *cuda_raise_program(CudaDevice *c, cmetal_program *p, CudaProgram *cp,
                                uint32_t kernel, uint32_t warps)
{
	CudaKernel *k = &cp->ks[kernel];
	if (k->raise_warps == warps)
		return k->raise_prog ? k->raise_prog : cp;
	unsigned cap = cuda_raise_cap(c, k, warps);
	k->raise_warps = warps;
	k->raise_prog = NULL;
	if (!cap)
		return cp;
	Buf log = {0}, note = {0};
	bool built;
	CudaProgram *prog;
	OccResult r0, r1;
	cuda_kernel_occ(c, k, warps, &r0);
	buf_printf(&note, "note: kernel '%s': groups of %u CM threads at %d registers per lane: %u "
	           "CTAs per SM (%u%% occupancy, limited by registers); ", cp->infos[kernel].name,
	           warps, k->regs, r0.ctas, r0.pct);
	if (regcap_variant(c, cp, cap, &log, &built, &prog)) {   /* keep cp */
		buf_printf(&note, "a variant with at most %u registers per lane failed to build: "
		           "%s\n", cap, cmetal_last_error());
	} else {
		const CudaKernel *nk = &prog->ks[kernel];
		bool ok = nk->regs > 0 && nk->regs <= (int)cap &&
		          nk->local_bytes <= k->local_bytes + CUDA_RAISE_SPILL;
		cuda_kernel_occ(c, nk, warps, &r1);
		buf_printf(&note, "with at most %u (CU_JIT_MAX_REGISTERS) it uses %d, %u CTAs "
		           "(%u%%), %d bytes of local memory per lane: %s\n", cap, nk->regs,
		           r1.ctas, r1.pct, nk->local_bytes,
		           ok ? "launched from that variant" : "spills too much, not used");
		k->raise_prog = ok ? prog : NULL;
	}
	regcap_note(p, cp, &note, &log);
	buf_free(&note);
	buf_free(&log);
	return k->raise_prog ? k->raise_prog : cp;
}
