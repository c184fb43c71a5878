/* host_svm.cpp — SVM buffers the host fills and reads through their
 * pointers, passed to the kernel as pointers (one with an offset), against
 * a C reference. */
#include "host.h"

int main(int argc, char **argv)
{
	CmDevice *device = nullptr;
	unsigned int version = 0;
	cm_result_check(::CreateCmDevice(device, version));
	std::string code = kernel_file(argc, argv, "svm");
	CmProgram *program = nullptr;
	cm_result_check(device->LoadProgram(const_cast<char *>(code.data()), code.size(), program));
	CmKernel *kernel = nullptr;
	cm_result_check(device->CreateKernel(program, "svmscale", kernel));
	const unsigned THREADS = 40, N = THREADS * 8;
	void *pa = nullptr, *pc = nullptr;
	CmBufferSVM *ba = nullptr, *bc = nullptr;
	cm_result_check(device->CreateBufferSVM(N * 4 + 64, pa, CM_SVM_ACCESS_FLAG_DEFAULT, ba));
	cm_result_check(device->CreateBufferSVM(N * 4, pc, CM_SVM_ACCESS_FLAG_DEFAULT, bc));
	void *addr = nullptr;
	cm_result_check(ba->GetAddress(addr));
	check("svm_address", addr == pa);
	int *a = (int *)pa, *c = (int *)pc;
	for (unsigned i = 0; i < N + 16; i++)
		a[i] = (int)(i * i) - 5000;
	int *a16 = a + 16;   /* the kernel starts 64 bytes in */
	int k = 7;
	cm_result_check(kernel->SetKernelArg(0, sizeof(void *), &a16));
	cm_result_check(kernel->SetKernelArg(1, sizeof(void *), &pc));
	cm_result_check(kernel->SetKernelArg(2, sizeof k, &k));
	CmThreadSpace *space = nullptr;
	cm_result_check(device->CreateThreadSpace(THREADS, 1, space));
	cm_result_check(kernel->AssociateThreadSpace(space));
	CmTask *task = nullptr;
	cm_result_check(device->CreateTask(task));
	cm_result_check(task->AddKernel(kernel));
	CmQueue *queue = nullptr;
	cm_result_check(device->CreateQueue(queue));
	CmEvent *event = nullptr;
	cm_result_check(queue->Enqueue(task, event));
	cm_result_check(event->WaitForTaskFinished());
	bool ok = true;
	for (unsigned i = 0; i < N; i++)
		ok &= c[i] == a[i + 16] * 2 + k;
	check("svm_kernel_through_pointers", ok, "c != a * 2 + k in the host's view");
	cm_result_check(queue->DestroyEvent(event));
	cm_result_check(device->DestroyTask(task));
	cm_result_check(device->DestroyThreadSpace(space));
	cm_result_check(device->DestroyKernel(kernel));
	cm_result_check(device->DestroyBufferSVM(ba));
	cm_result_check(device->DestroyBufferSVM(bc));
	cm_result_check(device->DestroyProgram(program));
	cm_result_check(::DestroyCmDevice(device));
	return failures != 0;
}
