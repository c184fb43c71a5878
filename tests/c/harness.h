/* harness.h — runs a kernel of the C back end without the runtime: the
 * test's .c includes the generated file (KERNEL_C), fills a CmkThread with
 * surfaces and arguments, calls the entry and checks the results. */
#include KERNEL_C
#include <stdio.h>
#include <stdlib.h>

static int failures, nfaults;
static char printed[4096];
static size_t nprinted;

#define CHECK(c)                                                              \
	do {                                                                  \
		if (!(c)) {                                                   \
			printf("    %s:%d: check failed: %s\n", __FILE__,      \
			       __LINE__, #c);                                 \
			failures++;                                           \
		}                                                             \
	} while (0)
#define CHECK_EQ(a, b)                                                        \
	do {                                                                  \
		long long a_ = (long long)(a), b_ = (long long)(b);           \
		if (a_ != b_) {                                               \
			printf("    %s:%d: %s is %lld, expected %lld\n",       \
			       __FILE__, __LINE__, #a, a_, b_);               \
			failures++;                                           \
		}                                                             \
	} while (0)

static void svc_barrier(CmkThread *t) { (void)t; }
static void svc_wait(CmkThread *t, uint32_t m) { (void)t, (void)m; }
static void svc_signal(CmkThread *t) { (void)t; }
static void svc_print(CmkThread *t, const char *s, uint32_t n)
{
	(void)t;
	if (nprinted + n < sizeof printed) {
		memcpy(printed + nprinted, s, n);
		nprinted += n;
	}
}
static void svc_fault(CmkThread *t, const char *what, int line)
{
	(void)t, (void)what, (void)line;
	nfaults++;
}
static void svc_poll(CmkThread *t, uint64_t seen) { (void)t, (void)seen; }
static const CmkServices services = {svc_barrier, svc_wait, svc_signal, svc_print, svc_fault,
                                     svc_poll};

static CmkSurface buffer(void *p, uint64_t size)
{
	CmkSurface s = {0};
	s.base = p;
	s.size = size;
	s.width = (uint32_t)size;
	s.height = 1;
	s.pitch = (uint32_t)size;
	s.bpp = 1;
	return s;
}

static CmkSurface image(void *p, uint32_t wbytes, uint32_t h, uint32_t pitch, uint32_t bpp)
{
	CmkSurface s = {0};
	s.base = p;
	s.size = (uint64_t)pitch * h;
	s.width = wbytes;
	s.height = h;
	s.pitch = pitch;
	s.bpp = bpp;
	s.is2d = 1;
	return s;
}

/* Runs kernel `name` once with the given arguments and surfaces. */
static void run(const char *name, void *const *args, CmkSurface *surf, uint32_t nsurf,
                unsigned char *slm, uint32_t slm_size)
{
	CmkThread t = {0};
	t.svc = &services;
	t.args = args;
	t.surfaces = surf;
	t.nsurfaces = nsurf;
	t.slm = slm;
	t.slm_size = slm_size;
	t.local_size[0] = t.local_size[1] = t.local_size[2] = 1;
	t.group_count[0] = t.group_count[1] = t.group_count[2] = 1;
	if (cmk_abi_version != CMK_ABI_VERSION) {
		printf("    bad cmk_abi_version\n");
		exit(1);
	}
	for (uint32_t k = 0; k < cmk_program.nkernels; k++)
		if (!strcmp(cmk_program.kernels[k].name, name)) {
			cmk_program.kernels[k].entry(&t);
			return;
		}
	printf("    no kernel %s\n", name);
	exit(1);
}

static int done(void)
{
	return failures ? 1 : 0;
}
