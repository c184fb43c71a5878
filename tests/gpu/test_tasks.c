/* test_tasks.c — tasks of several entries on the CUDA device, against the
 * fake driver (fake_cuda.c, whose stream runs queued work only when the
 * host waits): a task's launches are enqueued back to back and the host
 * synchronizes once (docs/runtime.md "The CUDA device inside"), except
 * after a launch that needs the host (printf, host-aliasing buffers).
 * Checks the results of tasks whose entries depend on each other (also on
 * the CPU device, with real CM kernels run by the fake driver's PTX
 * simulator), the synchronizations counted by the fake driver, event
 * times, faults and failures in the middle of a task, and two threads
 * running tasks on one device.
 * The tests on the fake driver's own kernels need it as libcuda.so.1 (its
 * counters and fault injection); those on CM kernels run on the devices
 * named (default: cuda, then cpu), with a real driver too.
 * Usage: test_tasks WORK_DIR [DEVICE...] (CMETAL_CACHE_DIR: where builds go) */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>

#include "../rt/check.h"
#include "fake_check.h"
#include "fake_cuda.h"
#include "util/util.h"

static const char *work;
static FakeStats *st;
static FakeInject *inject;

static cmetal_program *load_fake(cmetal_device *dev)
{
	const char *path = write_file_in(work, "tasks.ptx", fake_ptx);
	cmetal_program *p = NULL;
	if (cmetal_program_load(dev, path, &p) != CM_SUCCESS)
		printf("FAIL rt/gpu/tasks_load\n    %s\n", cmetal_last_error());
	return p;
}

static bool zeroed(cmetal_buffer *b)
{
	uint32_t out[16];
	if (cmetal_buffer_read(b, 0, sizeof out, out) != CM_SUCCESS)
		return false;
	for (int i = 0; i < 16; i++)
		if (out[i])
			return false;
	return true;
}

static int zero(cmetal_buffer *b)
{
	uint32_t z[16] = {0};
	return cmetal_buffer_write(b, 0, sizeof z, z) != CM_SUCCESS;
}

static const uint32_t G2[3] = {2, 1, 1}, T2[3] = {2, 1, 1};

/* Adds fill(out, v) over 4 CM threads to t. */
static cm_status add_fill(cmetal_task *t, cmetal_kernel *fill, cmetal_buffer *out, int v)
{
	cm_status s = cmetal_kernel_set_arg_buffer(fill, 0, out);
	if (!s)
		s = cmetal_kernel_set_arg(fill, 1, 4, &v);
	return s ? s : cmetal_task_add_groups(t, fill, G2, T2);
}

/* The objects of the tests on the fake kernels. */
typedef struct {
	cmetal_device *dev;
	cmetal_program *p;
	cmetal_kernel *fill, *walk, *pf, *oobk;
	cmetal_buffer *b[4];
} Fake;

/* One kernel added three times with other buffers and values: each entry
 * gets its own arguments although the launches share the kernel's launch
 * block (uploaded in stream order from staged copies), with one
 * synchronization for the task. */
static int task_one_sync(Fake *f)
{
	cmetal_task *t;
	MUST(cmetal_task_create(f->dev, &t));
	MUST(add_fill(t, f->fill, f->b[0], 10));
	MUST(add_fill(t, f->fill, f->b[1], 20));
	MUST(add_fill(t, f->fill, f->b[2], 30));
	MUST(cmetal_task_run(t, NULL));
	check("gpu/task_args_per_entry", filled(f->b[0], 4, 10) && filled(f->b[1], 4, 20) &&
	      filled(f->b[2], 4, 30), "an entry ran with another entry's arguments");
	int syncs = st->syncs, waits = st->waits;
	MUST(cmetal_task_run(t, NULL));
	char why[128];
	snprintf(why, sizeof why, "%d cuStreamSynchronize, %d waits in all",
	         st->syncs - syncs, st->waits - waits);
	check("gpu/task_one_sync", st->syncs == syncs + 1 && st->waits == waits + 1, why);
	check("gpu/task_one_sync_results", filled(f->b[0], 4, 10) && filled(f->b[1], 4, 20) &&
	      filled(f->b[2], 4, 30), NULL);
	MUST(cmetal_task_release(t));
	return 0;
}

/* A task of 150 launches: synchronizations every CUDA_BATCH_MAX (64). */
static int task_long(Fake *f)
{
	cmetal_task *t;
	MUST(cmetal_task_create(f->dev, &t));
	for (int i = 0; i < 150; i++)
		MUST(add_fill(t, f->fill, f->b[i % 2], i));
	int syncs = st->syncs;
	MUST(cmetal_task_run(t, NULL));
	char why[64];
	snprintf(why, sizeof why, "%d synchronizations", st->syncs - syncs);
	check("gpu/task_long", filled(f->b[0], 4, 148) && filled(f->b[1], 4, 149) &&
	      st->syncs == syncs + 3, why);
	MUST(cmetal_task_release(t));
	return 0;
}

static Buf printed;
static void on_print(void *user, const char *text, size_t len)
{
	(void)user;
	buf_putn(&printed, text, len);
}

/* printf and a host-aliasing buffer in the middle of a task: the output
 * and the user's memory are right, each ending its batch. */
static int task_host_work(Fake *f)
{
	cmetal_task *t;
	int n = 1;
	uint32_t host[16] = {0};
	cmetal_buffer *hb;
	MUST(cmetal_buffer_create_host(f->dev, host, sizeof host, &hb));
	MUST(cmetal_task_create(f->dev, &t));
	MUST(add_fill(t, f->fill, f->b[0], 1));
	MUST(cmetal_kernel_set_arg_buffer(f->pf, 0, f->b[3]));
	MUST(cmetal_kernel_set_arg(f->pf, 1, 4, &n));
	MUST(cmetal_task_add_groups(t, f->pf, G2, T2));
	MUST(add_fill(t, f->fill, f->b[1], 2));
	MUST(cmetal_kernel_set_arg_buffer(f->walk, 0, hb));
	MUST(cmetal_task_add_walker(t, f->walk, 5, 3, CMETAL_DEP_NONE));
	MUST(add_fill(t, f->fill, f->b[2], 3));
	MUST(cmetal_device_set_printf(f->dev, on_print, NULL));
	printed.len = 0;
	int syncs = st->syncs;
	MUST(cmetal_task_run(t, NULL));
	MUST(cmetal_device_set_printf(f->dev, NULL, NULL));
	Buf want = {0};
	for (int i = 0; i < 4; i++)
		buf_printf(&want, "t=%d \"half\"\t%.2f\nbig %llu%%!\n", i, i * 0.5,
		           (unsigned long long)i << 33);
	check("gpu/task_printf", printed.len == want.len &&
	      !memcmp(printed.data, want.data, want.len), buf_cstr(&printed));
	check("gpu/task_alias", host[1] == 1000 && host[5] == 1 && host[14] == 4002, NULL);
	char why[64];
	snprintf(why, sizeof why, "%d synchronizations", st->syncs - syncs);
	check("gpu/task_host_work_syncs", filled(f->b[0], 4, 1) && filled(f->b[1], 4, 2) &&
	      filled(f->b[2], 4, 3) && st->syncs == syncs + 3, why);
	buf_free(&want);
	buf_free(&printed);
	MUST(cmetal_task_release(t));
	MUST(cmetal_buffer_release(hb));
	return 0;
}

/* The event of a task is the sum of its kernels' times (0.5 ms each on
 * the fake driver's clock, which gives the uploads between them time
 * too). */
static int task_timing(Fake *f)
{
	cmetal_task *t;
	cmetal_event *ev;
	double ms = 0;
	MUST(cmetal_task_create(f->dev, &t));
	MUST(add_fill(t, f->fill, f->b[0], 5));
	MUST(add_fill(t, f->fill, f->b[1], 6));
	MUST(cmetal_kernel_set_arg_buffer(f->walk, 0, f->b[2]));
	MUST(cmetal_task_add_walker(t, f->walk, 2, 2, CMETAL_DEP_NONE));
	MUST(cmetal_task_run(t, &ev));
	MUST(cmetal_event_elapsed_ms(ev, &ms));
	char why[64];
	snprintf(why, sizeof why, "%.3f ms", ms);
	check("gpu/task_event_sum", ms == 1.5, why);
	MUST(cmetal_event_release(ev));
	MUST(cmetal_task_release(t));
	return 0;
}

/* A bounds fault in the middle of a task names its entry (its own fault
 * record) and says that the launch after it ran; the next run is clean.
 * An injected launch failure stops the task: later entries do not run. */
static int task_failures(Fake *f)
{
	cmetal_task *t;
	MUST(cmetal_kernel_set_arg_buffer(f->oobk, 0, f->b[3]));
	MUST(cmetal_task_create(f->dev, &t));
	MUST(add_fill(t, f->fill, f->b[0], 7));
	MUST(cmetal_task_add_groups(t, f->oobk, G2, (uint32_t[3]){3, 1, 1}));
	MUST(add_fill(t, f->fill, f->b[1], 8));
	for (int run = 0; run < 2; run++)
		check_err(run ? "gpu/task_fault_again" : "gpu/task_fault", cmetal_task_run(t, NULL),
		          CM_KERNEL_FAULT, "kernel 'oobk' accessed out of bounds at line 7 (scatter out "
		          "of bounds) in thread 5",
		          "(1 more launch of the task, enqueued with it, had already run)", NULL);
	MUST(cmetal_task_release(t));
	MUST(cmetal_task_create(f->dev, &t));
	MUST(add_fill(t, f->fill, f->b[2], 9));
	check("gpu/task_fault_cleared", cmetal_task_run(t, NULL) == CM_SUCCESS &&
	      filled(f->b[2], 4, 9), cmetal_last_error());
	MUST(cmetal_task_release(t));

	for (int i = 0; i < 3; i++)
		if (zero(f->b[i]))
			return ++check_failures;
	MUST(cmetal_task_create(f->dev, &t));
	for (int i = 0; i < 3; i++)
		MUST(add_fill(t, f->fill, f->b[i], 41 + i));
	inject->launch_fail = 2;
	check_err("gpu/task_launch_failure", cmetal_task_run(t, NULL), CM_INVALID_THREAD_SPACE,
	          "kernel 'fill': the driver refused the launch", "injected launch failure", NULL);
	check("gpu/task_launch_failure_stops", filled(f->b[0], 4, 41) && zeroed(f->b[1]) &&
	      zeroed(f->b[2]), "the entries after the failed launch ran, or the one before did not");
	check("gpu/task_after_launch_failure", cmetal_task_run(t, NULL) == CM_SUCCESS &&
	      filled(f->b[2], 4, 43), cmetal_last_error());
	MUST(cmetal_task_release(t));
	return 0;
}

/* A kernel that fails while running (a sticky error, injected) is
 * reported at the synchronization, as one of the batch's kernels, and
 * loses the context; alone in its batch it is named. */
static int task_sticky(void)
{
	for (int alone = 0; alone < 2; alone++) {
		cmetal_device *dev;
		cmetal_program *p;
		cmetal_kernel *fill, *walk;
		cmetal_buffer *b;
		cmetal_task *t;
		MUST(cmetal_device_open("cuda", &dev));
		if (!(p = load_fake(dev)))
			return ++check_failures;
		MUST(cmetal_kernel_create(p, "fill", &fill));
		MUST(cmetal_kernel_create(p, "walk", &walk));
		MUST(cmetal_buffer_create(dev, 64, &b));
		MUST(cmetal_kernel_set_arg_buffer(walk, 0, b));
		MUST(cmetal_task_create(dev, &t));
		MUST(add_fill(t, fill, b, 1));
		if (!alone) {
			MUST(cmetal_task_add_walker(t, walk, 2, 1, CMETAL_DEP_NONE));
			MUST(add_fill(t, fill, b, 2));
		}
		inject->run_fail = 1;
		if (alone)
			check_err("gpu/task_sticky_alone", cmetal_task_run(t, NULL), CM_KERNEL_FAULT,
			          "kernel 'fill' failed while running", "context is lost", NULL);
		else
			check_err("gpu/task_sticky", cmetal_task_run(t, NULL), CM_KERNEL_FAULT,
			          "one of the 3 kernels launched since the last synchronization "
			          "('fill', 'walk') failed while running", "injected fault",
			          "context is lost", NULL);
		check_err(alone ? "gpu/task_sticky_alone_lost" : "gpu/task_sticky_lost",
		          cmetal_task_run(t, NULL), CM_KERNEL_FAULT, "unusable", NULL);
		cmetal_task_release(t);
		cmetal_buffer_release(b);
		cmetal_kernel_release(fill);
		cmetal_kernel_release(walk);
		cmetal_program_release(p);
		MUST(cmetal_device_close(dev));
	}
	return 0;
}

/* Two threads run tasks of three launches on one device. */
typedef struct {
	Fake *f;
	cmetal_kernel *fill;
	cmetal_buffer *b[3];
	int base, bad;
} Worker;

static void *worker(void *arg)
{
	Worker *w = arg;
	for (int i = 0; i < 40 && !w->bad; i++) {
		cmetal_task *t;
		int v = w->base + i;
		if (cmetal_task_create(w->f->dev, &t)) {
			w->bad = 1;
			break;
		}
		for (int j = 0; j < 3 && !w->bad; j++)
			w->bad = add_fill(t, w->fill, w->b[j], v + 1000 * j) != CM_SUCCESS;
		w->bad = w->bad || cmetal_task_run(t, NULL) != CM_SUCCESS;
		for (int j = 0; j < 3 && !w->bad; j++)
			w->bad = !filled(w->b[j], 4, v + 1000 * j);
		cmetal_task_release(t);
	}
	return NULL;
}

static int task_threads(Fake *f)
{
	Worker w[2] = {{f, NULL, {0}, 100000, 0}, {f, NULL, {0}, 200000, 0}};
	pthread_t th[2];
	for (int i = 0; i < 2; i++) {
		MUST(cmetal_kernel_create(f->p, "fill", &w[i].fill));
		for (int j = 0; j < 3; j++)
			MUST(cmetal_buffer_create(f->dev, 64, &w[i].b[j]));
	}
	for (int i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, worker, &w[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	check("gpu/task_threads", !w[0].bad && !w[1].bad, "a task saw another thread's results");
	for (int i = 0; i < 2; i++) {
		cmetal_kernel_release(w[i].fill);
		for (int j = 0; j < 3; j++)
			cmetal_buffer_release(w[i].b[j]);
	}
	return 0;
}

/* Tasks of real CM kernels, on any device (on the fake driver their PTX
 * runs in its simulator): entries that read what earlier entries wrote,
 * one kernel three times with other buffers and values, a printf entry
 * and a host-aliasing buffer among them, a bounds fault in the middle. */
static const char *chain_src =
	"#include <cm/cm.h>\n"
	"extern \"C\" _GENX_MAIN_ void seed(SurfaceIndex out [[type(\"buffer_t\")]], int v)\n"
	"{\n"
	"\tvector<int, 8> x = v;\n"
	"\tx += cm_group_id(0);\n"
	"\twrite(out, cm_group_id(0) * 32, x);\n"
	"}\n"
	"extern \"C\" _GENX_MAIN_ void step(SurfaceIndex in [[type(\"buffer_t\")]],\n"
	"                                  SurfaceIndex out [[type(\"buffer_t\")]], int k)\n"
	"{\n"
	"\tvector<int, 8> x;\n"
	"\tread(in, cm_group_id(0) * 32, x);\n"
	"\tx = x * 2 + k;\n"
	"\twrite(out, cm_group_id(0) * 32, x);\n"
	"}\n"
	"extern \"C\" _GENX_MAIN_ void say(SurfaceIndex in [[type(\"buffer_t\")]])\n"
	"{\n"
	"\tvector<int, 8> x;\n"
	"\tread(in, cm_group_id(0) * 32, x);\n"
	"\tprintf(\"group %d: %d\\n\", cm_group_id(0), x(0));\n"
	"}\n"
	"extern \"C\" _GENX_MAIN_ void poke(SurfaceIndex out [[type(\"buffer_t\")]], int at)\n"
	"{\n"
	"\tvector<int, 8> x = 1;\n"
	"\twrite(out, at, x);\n"
	"}\n";

static const uint32_t G4[3] = {4, 1, 1}, T1[3] = {1, 1, 1};

static cm_status add_step(cmetal_task *t, cmetal_kernel *k, cmetal_buffer *in,
                          cmetal_buffer *out, int v)
{
	cm_status s = cmetal_kernel_set_arg_buffer(k, 0, in);
	if (!s)
		s = cmetal_kernel_set_arg_buffer(k, 1, out);
	if (!s)
		s = cmetal_kernel_set_arg(k, 2, 4, &v);
	return s ? s : cmetal_task_add_groups(t, k, G4, T1);
}

/* The objects of the tests on CM kernels. */
typedef struct {
	const char *device;
	cmetal_device *dev;
	cmetal_program *p;
	cmetal_kernel *seed, *step, *say, *poke;
	cmetal_buffer *a, *b, *c;
} Chain;

/* a = 3 + g (seed), b = 2a + 1, a = 2b + 5, c = 2a into the user's
 * memory, with a's values printed between. */
static int chain_run(Chain *ch)
{
	cmetal_task *t;
	int three = 3, host[32] = {0};
	cmetal_buffer *hc;
	MUST(cmetal_buffer_create_host(ch->dev, host, sizeof host, &hc));
	MUST(cmetal_task_create(ch->dev, &t));
	MUST(cmetal_kernel_set_arg_buffer(ch->seed, 0, ch->a));
	MUST(cmetal_kernel_set_arg(ch->seed, 1, 4, &three));
	MUST(cmetal_task_add_groups(t, ch->seed, G4, T1));
	MUST(add_step(t, ch->step, ch->a, ch->b, 1));
	MUST(add_step(t, ch->step, ch->b, ch->a, 5));
	MUST(cmetal_kernel_set_arg_buffer(ch->say, 0, ch->a));
	MUST(cmetal_task_add_groups(t, ch->say, G4, T1));
	MUST(add_step(t, ch->step, ch->a, hc, 0));
	MUST(cmetal_device_set_printf(ch->dev, on_print, NULL));
	printed.len = 0;
	cmetal_event *ev;
	MUST(cmetal_task_run(t, &ev));
	MUST(cmetal_device_set_printf(ch->dev, NULL, NULL));
	int bad = -1;
	Buf want = {0};
	for (int i = 0; i < 32 && bad < 0; i++) {
		int a0 = 3 + i / 8, b1 = 2 * a0 + 1, a2 = 2 * b1 + 5;
		if (host[i] != 2 * a2)
			bad = i;
		if (i % 8 == 0)
			buf_printf(&want, "group %d: %d\n", i / 8, a2);
	}
	char name[64], why[64];
	snprintf(name, sizeof name, "gpu/task_chain_%s", ch->device);
	snprintf(why, sizeof why, "c[%d] = %d", bad, bad >= 0 ? host[bad] : 0);
	check(name, bad < 0, why);
	snprintf(name, sizeof name, "gpu/task_chain_printf_%s", ch->device);
	check(name, printed.len == want.len && !memcmp(printed.data, want.data, want.len),
	      buf_cstr(&printed));
	double ms = -1;
	MUST(cmetal_event_elapsed_ms(ev, &ms));
	snprintf(name, sizeof name, "gpu/task_chain_event_%s", ch->device);
	snprintf(why, sizeof why, "%g ms", ms);
	check(name, ms > 0, why);
	buf_free(&want);
	cmetal_event_release(ev);
	cmetal_task_release(t);
	cmetal_buffer_release(hc);
	return 0;
}

/* A bounds fault in the middle of a task is reported for its entry, and
 * the entry after it does not run (on CUDA a kernel built with
 * -fbounds-check ends its batch). */
static int chain_fault(Chain *ch)
{
	cmetal_program *p;
	cmetal_kernel *poke, *seed, *after;
	cmetal_task *t;
	int at = 1024, v = 0, w = 77;
	MUST(cmetal_program_build(ch->dev, chain_src, "-fbounds-check", &p));
	MUST(cmetal_kernel_create(p, "poke", &poke));
	MUST(cmetal_kernel_create(p, "seed", &seed));
	MUST(cmetal_kernel_set_arg_buffer(poke, 0, ch->b));
	MUST(cmetal_kernel_set_arg(poke, 1, 4, &at));
	MUST(cmetal_kernel_set_arg_buffer(seed, 0, ch->c));
	MUST(cmetal_kernel_set_arg(seed, 1, 4, &v));
	MUST(cmetal_kernel_create(p, "seed", &after));
	MUST(cmetal_kernel_set_arg_buffer(after, 0, ch->a));
	MUST(cmetal_kernel_set_arg(after, 1, 4, &w));
	if (zero(ch->a))
		return ++check_failures;
	MUST(cmetal_task_create(ch->dev, &t));
	MUST(cmetal_task_add_groups(t, seed, G4, T1));
	MUST(cmetal_task_add_groups(t, poke, G4, T1));
	MUST(cmetal_task_add_groups(t, after, G4, T1));
	char name[64];
	snprintf(name, sizeof name, "gpu/task_chain_fault_%s", ch->device);
	check_err(name, cmetal_task_run(t, NULL), CM_KERNEL_FAULT,
	          "kernel 'poke' accessed out of bounds at line 25", "in thread 0", NULL);
	snprintf(name, sizeof name, "gpu/task_chain_fault_stops_%s", ch->device);
	const char *e = cmetal_last_error();
	check(name, zeroed(ch->a) && !strstr(e, "had already run"),
	      "the entry after the faulting one ran");
	cmetal_task_release(t);
	cmetal_kernel_release(after);
	cmetal_kernel_release(poke);
	cmetal_kernel_release(seed);
	cmetal_program_release(p);
	return 0;
}

static int task_chain(const char *device)
{
	Chain ch = {device};
	MUST(cmetal_device_open(device, &ch.dev));
	MUST(cmetal_program_build(ch.dev, chain_src, "", &ch.p));
	MUST(cmetal_kernel_create(ch.p, "seed", &ch.seed));
	MUST(cmetal_kernel_create(ch.p, "step", &ch.step));
	MUST(cmetal_kernel_create(ch.p, "say", &ch.say));
	MUST(cmetal_buffer_create(ch.dev, 128, &ch.a));
	MUST(cmetal_buffer_create(ch.dev, 128, &ch.b));
	MUST(cmetal_buffer_create(ch.dev, 128, &ch.c));
	chain_run(&ch);
	chain_fault(&ch);
	cmetal_buffer_release(ch.a);
	cmetal_buffer_release(ch.b);
	cmetal_buffer_release(ch.c);
	cmetal_kernel_release(ch.seed);
	cmetal_kernel_release(ch.step);
	cmetal_kernel_release(ch.say);
	cmetal_program_release(ch.p);
	MUST(cmetal_device_close(ch.dev));
	return 0;
}

static int fake_tasks(void)
{
	Fake f = {0};
	MUST(cmetal_device_open("cuda", &f.dev));
	if (!(f.p = load_fake(f.dev)))
		return ++check_failures;
	MUST(cmetal_kernel_create(f.p, "fill", &f.fill));
	MUST(cmetal_kernel_create(f.p, "walk", &f.walk));
	MUST(cmetal_kernel_create(f.p, "pf", &f.pf));
	MUST(cmetal_kernel_create(f.p, "oobk", &f.oobk));
	for (int i = 0; i < 4; i++)
		MUST(cmetal_buffer_create(f.dev, 64, &f.b[i]));
	task_one_sync(&f);
	task_long(&f);
	task_host_work(&f);
	task_timing(&f);
	task_failures(&f);
	task_threads(&f);
	for (int i = 0; i < 4; i++)
		cmetal_buffer_release(f.b[i]);
	cmetal_kernel_release(f.fill);
	cmetal_kernel_release(f.walk);
	cmetal_kernel_release(f.pf);
	cmetal_kernel_release(f.oobk);
	cmetal_program_release(f.p);
	MUST(cmetal_device_close(f.dev));
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test_tasks WORK_DIR [DEVICE...]\n");
		return 2;
	}
	work = argv[1];
	void *lib = dlopen("libcuda.so.1", RTLD_NOW);
	st = lib ? dlsym(lib, "fake_stats") : NULL;
	inject = lib ? dlsym(lib, "fake_inject") : NULL;
	if (st && inject) {
		fake_tasks();
		task_sticky();
	}
	for (int i = 2; i < argc; i++)
		task_chain(argv[i]);
	if (argc == 2)
		task_chain("cuda"), task_chain("cpu");
	if (st)
		check("gpu/task_no_free_in_flight", st->frees_pending == 0,
		      "memory was freed while work using it was queued");
	return check_failures;
}
