/* host_vadd.cpp — a vector add over a thread space (CmBuffer in,
 * CmBufferUP out), a wavefront over a 2D surface
 * (SelectThreadDependencyPattern), a task of both with a sync, events,
 * caps and error codes. */
#include "host.h"

static int test_vadd(CmDevice *device, CmProgram *program)
{
	const unsigned W = 16, H = 4, N = W * H * 32;
	int *a = new int[N], *b = new int[N], *c = new int[N], *ref = new int[N];
	for (unsigned i = 0; i < N; i++) {
		a[i] = (int)(i * 7) - 1000;
		b[i] = (int)(i % 97) * 31;
		ref[i] = a[i] + b[i];
		c[i] = -1;
	}
	CmKernel *kernel = nullptr;
	cm_result_check(device->CreateKernel(program, CM_KERNEL_FUNCTION(vadd), kernel));
	CmBuffer *ba = nullptr, *bb = nullptr;
	CmBufferUP *bc = nullptr;
	cm_result_check(device->CreateBuffer(N * 4, ba));
	cm_result_check(device->CreateBuffer(N * 4, bb));
	cm_result_check(device->CreateBufferUP(N * 4, c, bc));
	cm_result_check(ba->WriteSurface((const unsigned char *)a, nullptr));
	cm_result_check(bb->WriteSurface((const unsigned char *)b, nullptr, N * 4));
	SurfaceIndex *ia, *ib, *ic;
	cm_result_check(ba->GetIndex(ia));
	cm_result_check(bb->GetIndex(ib));
	cm_result_check(bc->GetIndex(ic));
	cm_result_check(kernel->SetKernelArg(0, sizeof(SurfaceIndex), ia));
	cm_result_check(kernel->SetKernelArg(1, sizeof(SurfaceIndex), ib));
	cm_result_check(kernel->SetKernelArg(2, sizeof(SurfaceIndex), ic));
	cm_result_check(kernel->SetKernelArg(3, sizeof(W), &W));
	CmThreadSpace *space = nullptr;
	cm_result_check(device->CreateThreadSpace(W, H, space));
	cm_result_check(kernel->AssociateThreadSpace(space));
	CmTask *task = nullptr;
	cm_result_check(device->CreateTask(task));
	cm_result_check(task->AddKernel(kernel));
	CmQueue *queue = nullptr;
	cm_result_check(device->CreateQueue(queue));
	CmEvent *event = nullptr;
	cm_result_check(queue->Enqueue(task, event));
	cm_result_check(event->WaitForTaskFinished());
	CM_STATUS status;
	UINT64 ns = 0;
	cm_result_check(event->GetStatus(status));
	cm_result_check(event->GetExecutionTime(ns));
	check("vadd_event", status == CM_STATUS_FINISHED);
	check("vadd_bufferup", memcmp(c, ref, N * 4) == 0, "c != a + b in the host's memory");
	int *copy = new int[N];
	cm_result_check(bc->ReadSurface((unsigned char *)copy, event));
	check("vadd_read_surface", memcmp(copy, ref, N * 4) == 0);
	check_code("vadd_read_too_small", bc->ReadSurface((unsigned char *)copy, event, 16),
	           CM_INVALID_ARG_SIZE);
	delete[] copy;
	cm_result_check(queue->DestroyEvent(event));
	/* a queue thread space overrides the kernel's: 16 x 2 leaves the rest */
	int *before = new int[N];
	memcpy(before, c, N * 4);
	memset(c, 0, N * 4);
	CmThreadSpace *half = nullptr;
	cm_result_check(device->CreateThreadSpace(W, H / 2, half));
	cm_result_check(queue->Enqueue(task, event, half));
	check("vadd_queue_space", memcmp(c, ref, N * 2) == 0 && c[N / 2] == 0 && c[N - 1] == 0);
	cm_result_check(queue->DestroyEvent(event));
	cm_result_check(device->DestroyThreadSpace(half));
	cm_result_check(device->DestroyThreadSpace(space));
	cm_result_check(device->DestroyTask(task));
	cm_result_check(device->DestroyKernel(kernel));
	cm_result_check(device->DestroySurface(ba));
	cm_result_check(device->DestroySurface(bb));
	cm_result_check(device->DestroyBufferUP(bc));
	delete[] a, delete[] b, delete[] c, delete[] ref, delete[] before;
	return 0;
}

static int test_wave(CmDevice *device, CmProgram *program)
{
	const unsigned W = 9, H = 7;
	unsigned ref[H][W], got[H][W];
	for (unsigned y = 0; y < H; y++)
		for (unsigned x = 0; x < W; x++)
			ref[y][x] = (x ? ref[y][x - 1] * 3 : 0) + (y ? ref[y - 1][x] : 0) + 1;
	CmKernel *kernel = nullptr;
	cm_result_check(device->CreateKernel(program, "wave", kernel));
	CmSurface2D *surf = nullptr;
	cm_result_check(device->CreateSurface2D(W, H, CM_SURFACE_FORMAT_R32_UINT, surf));
	SurfaceIndex *idx;
	cm_result_check(surf->GetIndex(idx));
	cm_result_check(kernel->SetKernelArg(0, sizeof(SurfaceIndex), idx));
	CmThreadSpace *space = nullptr;
	cm_result_check(device->CreateThreadSpace(W, H, space));
	cm_result_check(space->SelectThreadDependencyPattern(CM_WAVEFRONT));
	check_code("wave_26z_not_implemented", space->SelectThreadDependencyPattern(CM_WAVEFRONT26Z),
	           CM_NOT_IMPLEMENTED);
	CmTask *task = nullptr;
	cm_result_check(device->CreateTask(task));
	cm_result_check(task->AddKernel(kernel));
	cm_result_check(task->AddSync());
	cm_result_check(task->AddKernel(kernel));   /* runs the wave again on its result */
	CmQueue *queue = nullptr;
	cm_result_check(device->CreateQueue(queue));
	CmEvent *event = nullptr;
	cm_result_check(queue->Enqueue(task, event, space));
	cm_result_check(surf->ReadSurface((unsigned char *)got, event));
	check("wave_dependencies", memcmp(got, ref, sizeof ref) == 0, "the wavefront order broke");
	cm_result_check(queue->DestroyEvent(event));
	cm_result_check(task->Reset());
	check_code("enqueue_empty_task", queue->Enqueue(task, event), CM_SUCCESS);
	cm_result_check(queue->DestroyEvent(event));
	cm_result_check(device->DestroyTask(task));
	cm_result_check(device->DestroyThreadSpace(space));
	cm_result_check(device->DestroyKernel(kernel));
	cm_result_check(device->DestroySurface(surf));
	return 0;
}

static void test_errors(CmDevice *device, CmProgram *program)
{
	CmKernel *kernel = nullptr;
	check_code("create_kernel_unknown", device->CreateKernel(program, "vad", kernel), CM_FAILURE);
	cm_result_check(device->CreateKernel(program, "vadd", kernel));
	int v = 1;
	check_code("set_arg_bad_index", kernel->SetKernelArg(9, 4, &v), CM_INVALID_ARG_INDEX);
	check_code("set_arg_bad_size", kernel->SetKernelArg(3, 8, &v), CM_INVALID_ARG_SIZE);
	SurfaceIndex none;
	check_code("set_arg_index_of_no_surface", kernel->SetKernelArg(0, sizeof none, &none),
	           CM_INVALID_ARG_VALUE);
	CmTask *task = nullptr;
	CmQueue *queue = nullptr;
	CmEvent *event = nullptr;
	cm_result_check(device->CreateTask(task));
	cm_result_check(device->CreateQueue(queue));
	cm_result_check(task->AddKernel(kernel));
	check_code("enqueue_no_thread_space", queue->Enqueue(task, event),
	           CM_KERNEL_THREADSPACE_NOT_SET);
	queue->DestroyEvent(event);
	cm_result_check(kernel->SetThreadCount(4));
	check_code("enqueue_args_not_set", queue->Enqueue(task, event), CM_NOT_SET_KERNEL_ARGUMENT);
	queue->DestroyEvent(event);
	CmThreadSpace *space = nullptr;
	check_code("thread_space_too_wide", device->CreateThreadSpace(70000, 1, space),
	           CM_INVALID_WIDTH);
	CmSurface2D *surf = nullptr;
	check_code("surface_format_unknown",
	           device->CreateSurface2D(4, 4, (CM_SURFACE_FORMAT)12345, surf),
	           CM_SURFACE_FORMAT_NOT_SUPPORTED);
	check_code("surface_height_zero",
	           device->CreateSurface2D(4, 0, CM_SURFACE_FORMAT_A8R8G8B8, surf), CM_INVALID_HEIGHT);
	CmProgram *bad = nullptr;
	const char *src = "extern \"C\" _GENX_MAIN_ void k() { int x = ; }";
	check_code("load_program_build_error",
	           device->LoadProgram((void *)src, (UINT)strlen(src), bad), CM_JIT_COMPILE_FAILURE);
	check("load_program_build_error_text",
	      strstr(cmetal::cmetal_last_error(), "program.cm:1:") != nullptr,
	      cmetal::cmetal_last_error());
	UINT threads = 0, group = 0;
	size_t size = sizeof threads;
	cm_result_check(device->GetCaps(CAP_HW_THREAD_COUNT, size, &threads));
	size = sizeof group;
	cm_result_check(device->GetCaps(CAP_USER_DEFINED_THREAD_COUNT_PER_THREAD_GROUP, size, &group));
	check("caps", threads >= 1 && group >= 32 && size == 4);
	size = 4;
	check_code("caps_unknown", device->GetCaps(CAP_L3_CONFIG, size, &threads), CM_INVALID_CAP_NAME);
	device->DestroyTask(task);
	device->DestroyKernel(kernel);
}

int main(int argc, char **argv)
{
	CmDevice *device = nullptr;
	unsigned int version = 0;
	cm_result_check(::CreateCmDevice(device, version));
	std::string isa_code = kernel_file(argc, argv, "vadd");
	if (isa_code.size() == 0) {
		check("vadd_load", false, "empty kernel file");
		return 1;
	}
	CmProgram *program = nullptr;
	cm_result_check(device->LoadProgram(const_cast<char *>(isa_code.data()), isa_code.size(),
	                                    program));
	test_vadd(device, program);
	test_wave(device, program);
	test_errors(device, program);
	cm_result_check(device->DestroyProgram(program));
	cm_result_check(::DestroyCmDevice(device));
	return failures != 0;
}
