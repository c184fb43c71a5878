/* host_print.cpp — the rest of what Intel's example hosts use from its
 * Linux runtime headers: the print buffer (InitPrintBuffer,
 * FlushPrintBuffer, FlushPrintBufferIntoFile), the queue's surface copies
 * with CM_NO_EVENT, CM_ALIGNED_MALLOC, _NAME, CM_1_0, getTimeStamp,
 * __int64/_TCHAR, and CM_INTERNAL_ERROR_CODE_OFFSET. */
#include "host.h"

#include <unistd.h>

/* Two tasks of 2 x 1 threads print; the kept text comes out once, in
 * thread order, into the file, and the buffer is then empty. */
static void test_print(CmDevice *device, CmProgram *program)
{
	CmKernel *kernel = nullptr;
	cm_result_check(device->CreateKernel(program, _NAME(say), kernel));
	int w = 2;
	cm_result_check(kernel->SetKernelArg(0, sizeof w, &w));
	CmThreadSpace *space = nullptr;
	cm_result_check(device->CreateThreadSpace(2, 1, space));
	CmTask *task = nullptr;
	cm_result_check(device->CreateTask(task));
	cm_result_check(task->AddKernel(kernel));
	CmQueue *queue = nullptr;
	cm_result_check(device->CreateQueue(queue));
	cm_result_check(device->InitPrintBuffer());
	CmEvent *event = CM_NO_EVENT;
	cm_result_check(queue->Enqueue(task, event, space));
	check("print_no_event", event == CM_NO_EVENT, "Enqueue replaced CM_NO_EVENT");
	event = nullptr;
	cm_result_check(queue->Enqueue(task, event, space));
	cm_result_check(queue->DestroyEvent(event));
	char path[] = "/tmp/cmrt-printXXXXXX";
	int fd = mkstemp(path);
	check("print_tmpfile", fd >= 0, "mkstemp failed");
	if (fd < 0)
		return;
	close(fd);
	cm_result_check(device->FlushPrintBufferIntoFile(path));
	std::string got;
	cm::util::isa::readFile(path, got);
	const char *want = "thread 0 of 4\nthread 1 of 4\nthread 0 of 4\nthread 1 of 4\n";
	check("print_into_file", got == want, got.c_str());
	cm_result_check(device->FlushPrintBufferIntoFile(path));
	cm::util::isa::readFile(path, got);
	check("print_flush_empties", got.empty(), got.c_str());
	remove(path);
	check_code("print_null_path", device->FlushPrintBufferIntoFile(nullptr), CM_NULL_POINTER);
	cm_result_check(device->DestroyThreadSpace(space));
	cm_result_check(device->DestroyTask(task));
}

/* EnqueueCopyCPUToGPU / GPUToCPU around a kernel, from memory of
 * CM_ALIGNED_MALLOC; one copy with CM_NO_EVENT, one with an event. */
static void test_copy(CmDevice *device, CmProgram *program)
{
	const int W = 16, H = 16;
	float *m = (float *)CM_ALIGNED_MALLOC(W * H * sizeof(float), 4096);
	check("copy_aligned", m && ((uintptr_t)m & 4095) == 0, "CM_ALIGNED_MALLOC");
	if (!m)
		return;
	for (int i = 0; i < W * H; i++)
		m[i] = (float)i - 7.5f;
	CmSurface2D *s = nullptr;
	cm_result_check(device->CreateSurface2D(W, H, CM_SURFACE_FORMAT_R32F, s));
	CmQueue *queue = nullptr;
	cm_result_check(device->CreateQueue(queue));
	CmEvent *e = CM_NO_EVENT;
	cm_result_check(queue->EnqueueCopyCPUToGPU(s, (const unsigned char *)m, e));
	check("copy_no_event", e == CM_NO_EVENT);
	CmKernel *kernel = nullptr;
	cm_result_check(device->CreateKernel(program, "twice", kernel));
	SurfaceIndex *idx = nullptr;
	cm_result_check(s->GetIndex(idx));
	cm_result_check(kernel->SetKernelArg(0, sizeof(SurfaceIndex), idx));
	CmThreadSpace *space = nullptr;
	cm_result_check(device->CreateThreadSpace(W / 8, H / 8, space));
	CmTask *task = nullptr;
	cm_result_check(device->CreateTask(task));
	cm_result_check(task->AddKernel(kernel));
	CmEvent *run = nullptr;
	double t0 = getTimeStamp();
	cm_result_check(queue->Enqueue(task, run, space));
	check("copy_timestamp", getTimeStamp() >= t0);
	float *out = (float *)CM_ALIGNED_MALLOC(W * H * sizeof(float), 64);
	CmEvent *back = nullptr;
	cm_result_check(queue->EnqueueCopyGPUToCPU(s, (unsigned char *)out, back));
	CM_STATUS st = CM_STATUS_QUEUED;
	check("copy_event", back && back != CM_NO_EVENT && !back->GetStatus(st) &&
	                        st == CM_STATUS_FINISHED);
	bool same = true;
	for (int i = 0; i < W * H; i++)
		same = same && out[i] == 2.0f * m[i];
	check("copy_roundtrip", same, "the surface read back is not twice the input");
	check_code("copy_null_surface", queue->EnqueueCopyGPUToCPU(nullptr, (unsigned char *)out, back),
	           CM_NULL_POINTER);
	cm_result_check(queue->DestroyEvent(run));
	cm_result_check(queue->DestroyEvent(back));
	cm_result_check(device->DestroySurface(s));
	CM_ALIGNED_FREE(m);
	CM_ALIGNED_FREE(out);
}

int _tmain(int argc, _TCHAR *argv[])
{
	CmDevice *device = nullptr;
	UINT version = 0;
	cm_result_check(::CreateCmDevice(device, version));
	check("print_version", version >= CM_1_0);
	check("print_int64", sizeof(__int64) == 8 && CM_INTERNAL_ERROR_CODE_OFFSET < CM_NO_SUPPORTED_ADAPTER);
	std::string code = kernel_file(argc, argv, "print");
	CmProgram *program = nullptr;
	cm_result_check(device->LoadProgram(const_cast<char *>(code.data()), code.size(), program));
	test_print(device, program);
	test_copy(device, program);
	cm_result_check(::DestroyCmDevice(device));
	return failures != 0;
}
