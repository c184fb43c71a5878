/* test_lifetimes.c — objects live as long as something uses them, and a
 * released handle is an error, never a use of freed memory: a task keeps
 * its kernels and their memory, a kernel its program and bound memory;
 * releasing only drops the user's reference; a released or garbage handle
 * is CM_INVALID_HANDLE, also after its slot is reused; a device with live
 * objects refuses to close.  Run under make test-asan, a use after free
 * would be reported; in other builds the reference counts (read through
 * rt_object_of while the user's handle is live) show who holds what, so a
 * holder that kept a raw pointer fails here too.  Usage: test_lifetimes TMPDIR */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "rt/rt.h"

static const char src[] =
	"#include <cm/cm.h>\n"
	"extern \"C\" _GENX_MAIN_ void fill(SurfaceIndex o [[type(\"buffer_t\")]], int v)\n"
	"{ vector<int, 8> x = v; write(o, 32 * cm_group_id(0), x); }\n"
	"extern \"C\" _GENX_MAIN_ void copy(SurfaceIndex i [[type(\"buffer_t\")]],\n"
	"                                   SurfaceIndex o [[type(\"buffer_t\")]])\n"
	"{ vector<int, 8> x; read(i, 32 * cm_group_id(0), x); write(o, 32 * cm_group_id(0), x + 1); }\n"
	"extern \"C\" _GENX_MAIN_ void svmfill(svmptr_t p [[type(\"svmptr_t\")]], int v)\n"
	"{ vector<int, 8> x = v; cm_svm_block_write(p, x); }\n";

static const uint32_t one[3] = {1, 1, 1};

/* The reference count of the object behind live handle h (0 if dead). */
static int refs_of(const void *h)
{
	RtObj *o = rt_object_of(h);
	return o ? atomic_load(&o->refs) : 0;
}

/* h (live) is held by something besides its handle: refs >= want. */
static void check_held(const char *name, const void *h, int want)
{
	char why[128];
	int n = refs_of(h);
	snprintf(why, sizeof why, "%d references (want at least %d: the handle and its holders)",
	         n, want);
	check(name, n >= want, why);
}

static int all_equal(const int *v, int n, int want)
{
	for (int i = 0; i < n; i++)
		if (v[i] != want)
			return 0;
	return 1;
}

/* A task's entries hold their kernels, programs and buffers: every user
 * handle is released before the run, which still computes. */
static int task_holds_everything(cmetal_device *dev)
{
	cmetal_program *p;
	cmetal_kernel *kf, *kc;
	cmetal_buffer *a, *b;
	cmetal_task *t;
	MUST(cmetal_program_build(dev, src, "", &p));
	MUST(cmetal_kernel_create(p, "fill", &kf));
	MUST(cmetal_kernel_create(p, "copy", &kc));
	MUST(cmetal_buffer_create(dev, 64, &a));
	MUST(cmetal_buffer_create(dev, 64, &b));
	int v = 41, out[16] = {0};
	MUST(cmetal_kernel_set_arg_buffer(kf, 0, a));
	MUST(cmetal_kernel_set_arg(kf, 1, sizeof v, &v));
	MUST(cmetal_kernel_set_arg_buffer(kc, 0, a));
	MUST(cmetal_kernel_set_arg_buffer(kc, 1, b));
	MUST(cmetal_task_create(dev, &t));
	uint32_t two[3] = {2, 1, 1};
	MUST(cmetal_task_add_groups(t, kf, two, one));
	MUST(cmetal_task_add_sync(t));
	MUST(cmetal_task_add_groups(t, kc, two, one));
	/* the task holds the kernels, the kernels their program and a: each
	 * count is the handle's plus at least one holder */
	check_held("lifetime_task_holds_kernel_ref", kf, 2);
	check_held("lifetime_kernel_holds_program_ref", p, 3);
	/* the entries captured a: rebinding the kernels to z leaves the
	 * task's own references */
	cmetal_buffer *z;
	MUST(cmetal_buffer_create(dev, 64, &z));
	MUST(cmetal_kernel_set_arg_buffer(kf, 0, z));
	MUST(cmetal_kernel_set_arg_buffer(kc, 0, z));
	MUST(cmetal_buffer_release(z));
	MUST(cmetal_kernel_release(kf));
	MUST(cmetal_kernel_release(kc));
	check_held("lifetime_task_holds_buffer_ref", a, 2);
	check_held("lifetime_task_holds_program_ref", p, 2);
	/* the user lets go of a (only the task has it), the kernels and the
	 * program; b stays to read the result */
	MUST(cmetal_buffer_release(a));
	MUST(cmetal_program_release(p));
	cm_status s = cmetal_task_run(t, NULL);
	check("lifetime_task_runs_after_releases", s == CM_SUCCESS, cmetal_last_error());
	MUST(cmetal_buffer_read(b, 0, 64, out));
	check("lifetime_task_result_after_releases", all_equal(out, 16, 42), "wrong values");
	/* a second run: the task still holds everything */
	check("lifetime_task_reruns", cmetal_task_run(t, NULL) == CM_SUCCESS, cmetal_last_error());
	MUST(cmetal_task_release(t));
	MUST(cmetal_buffer_release(b));
	return 0;
}

/* A kernel holds its bound buffer and SVM allocation and its program. */
static int kernel_holds_memory(cmetal_device *dev)
{
	cmetal_program *p;
	cmetal_kernel *k, *ks;
	cmetal_buffer *a;
	cmetal_svm *m;
	int v = 7, out[8];
	MUST(cmetal_program_build(dev, src, "", &p));
	MUST(cmetal_kernel_create(p, "fill", &k));
	MUST(cmetal_kernel_create(p, "svmfill", &ks));
	MUST(cmetal_program_release(p));
	MUST(cmetal_buffer_create(dev, 64, &a));
	MUST(cmetal_kernel_set_arg_buffer(k, 0, a));
	MUST(cmetal_kernel_set_arg(k, 1, sizeof v, &v));
	check_held("lifetime_kernel_holds_buffer_ref", a, 2);
	MUST(cmetal_buffer_release(a));
	check("lifetime_kernel_holds_buffer", cmetal_launch_groups(k, one, one, NULL) == CM_SUCCESS,
	      cmetal_last_error());
	MUST(cmetal_svm_alloc(dev, 64, &m));
	MUST(cmetal_kernel_set_arg_svm(ks, 0, m, 0));
	MUST(cmetal_kernel_set_arg(ks, 1, sizeof v, &v));
	check_held("lifetime_kernel_holds_svm_ref", m, 2);
	MUST(cmetal_svm_free(m));
	check("lifetime_kernel_holds_svm", cmetal_launch_groups(ks, one, one, NULL) == CM_SUCCESS,
	      cmetal_last_error());
	/* rebinding lets the old allocation go; a fresh one reads back */
	MUST(cmetal_svm_alloc(dev, 64, &m));
	MUST(cmetal_kernel_set_arg_svm(ks, 0, m, 0));
	MUST(cmetal_launch_groups(ks, one, one, NULL));
	MUST(cmetal_svm_read(m, 0, sizeof out, out));
	check("lifetime_svm_rebind_result", all_equal(out, 8, 7), "wrong values");
	MUST(cmetal_svm_free(m));
	MUST(cmetal_kernel_release(k));
	MUST(cmetal_kernel_release(ks));
	return 0;
}

/* Released handles of every kind are CM_INVALID_HANDLE, and a released
 * handle never names the object created after it. */
static int released_handles(cmetal_device *dev)
{
	cmetal_program *p;
	cmetal_kernel *k;
	cmetal_buffer *b, *b2;
	cmetal_surface2d *sf;
	cmetal_svm *m;
	cmetal_task *t;
	cmetal_event *e;
	MUST(cmetal_program_build(dev, src, "", &p));
	MUST(cmetal_kernel_create(p, "fill", &k));
	MUST(cmetal_buffer_create(dev, 64, &b));
	MUST(cmetal_surface2d_create(dev, 8, 8, CMETAL_FMT_A8, &sf));
	MUST(cmetal_svm_alloc(dev, 64, &m));
	MUST(cmetal_task_create(dev, &t));
	MUST(cmetal_task_run(t, &e));
	MUST(cmetal_kernel_release(k));
	MUST(cmetal_program_release(p));
	MUST(cmetal_buffer_release(b));
	MUST(cmetal_surface2d_release(sf));
	MUST(cmetal_svm_free(m));
	MUST(cmetal_task_release(t));
	MUST(cmetal_event_release(e));
	check_err("lifetime_released_program", cmetal_program_release(p), CM_INVALID_HANDLE,
	          "not a live program", NULL);
	check_err("lifetime_released_kernel", cmetal_kernel_set_arg_buffer(k, 0, b),
	          CM_INVALID_HANDLE, "not a live kernel", NULL);
	check_err("lifetime_released_buffer", cmetal_buffer_release(b), CM_INVALID_HANDLE,
	          "not a live buffer", NULL);
	check_err("lifetime_released_surface2d", cmetal_surface2d_info(sf, NULL, NULL, NULL, NULL),
	          CM_INVALID_HANDLE, "not a live 2D surface", NULL);
	check_err("lifetime_released_svm", cmetal_svm_free(m), CM_INVALID_HANDLE,
	          "not a live SVM allocation", NULL);
	check_err("lifetime_released_task", cmetal_task_run(t, NULL), CM_INVALID_HANDLE,
	          "not a live task", NULL);
	check_err("lifetime_released_event", cmetal_event_wait(e), CM_INVALID_HANDLE,
	          "not a live event", NULL);
	/* a new buffer takes the slot of the handle released last (the low
	 * 32 bits of a handle, handle.c); the old handle stays dead */
	MUST(cmetal_buffer_create(dev, 16, &b));
	MUST(cmetal_buffer_release(b));
	MUST(cmetal_buffer_create(dev, 32, &b2));
	size_t n = 0;
	check("lifetime_released_slot_reused",
	      (uint32_t)(uintptr_t)b == (uint32_t)(uintptr_t)b2 && b != b2,
	      "the new buffer did not take the released handle's slot");
	check_err("lifetime_released_handle_not_aliased", cmetal_buffer_size(b, &n),
	          CM_INVALID_HANDLE, "not a live buffer", NULL);
	MUST(cmetal_buffer_size(b2, &n));
	check("lifetime_new_handle_works", n == 32, "wrong size");
	MUST(cmetal_buffer_release(b2));
	check_err("lifetime_garbage_handle", cmetal_buffer_size((cmetal_buffer *)(uintptr_t)0x1234, &n),
	          CM_INVALID_HANDLE, "not a live buffer", NULL);
	return 0;
}

int main(void)
{
	cmetal_device *dev;
	MUST(cmetal_device_open("cpu", &dev));
	if (task_holds_everything(dev) || kernel_holds_memory(dev) || released_handles(dev))
		return 1;
	cmetal_buffer *b;
	MUST(cmetal_buffer_create(dev, 16, &b));
	check_err("lifetime_close_refused_with_live_objects", cmetal_device_close(dev),
	          CM_INVALID_VALUE, "still alive", NULL);
	MUST(cmetal_buffer_release(b));
	MUST(cmetal_device_close(dev));
	check_err("lifetime_closed_device", cmetal_device_close(dev), CM_INVALID_HANDLE,
	          "not a live device", NULL);
	check_err("lifetime_closed_device_create", cmetal_buffer_create(dev, 16, &b),
	          CM_INVALID_HANDLE, "not a live device", NULL);
	return check_failures != 0;
}
