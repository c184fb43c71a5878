/* host_groups.cpp — a thread-group kernel with SLM and a barrier, run with
 * EnqueueWithGroup over a CmThreadGroupSpace (and as the kernel's own
 * group space), against a C reference. */
#include <vector>

#include "host.h"

int main(int argc, char **argv)
{
	CmDevice *device = nullptr;
	unsigned int version = 0;
	cm_result_check(::CreateCmDevice(device, version));
	std::string code = kernel_file(argc, argv, "groups");
	CmProgram *program = nullptr;
	cm_result_check(device->LoadProgram(const_cast<char *>(code.data()), code.size(), program));
	CmKernel *kernel = nullptr;
	cm_result_check(device->CreateKernel(program, "groupsum", kernel));
	UINT per_group = 0;
	size_t size = sizeof per_group;
	cm_result_check(device->GetCaps(CAP_USER_DEFINED_THREAD_COUNT_PER_THREAD_GROUP, size,
	                                &per_group));
	const unsigned T = per_group < 16 ? per_group : 16, G = 6, N = T * G * 16;
	std::vector<unsigned> a(N), got(N), ref(N);
	for (unsigned i = 0; i < N; i++)
		a[i] = i * 2654435761u;
	for (unsigned g = 0; g < G; g++)
		for (unsigned l = 0; l < T; l++)
			for (unsigned i = 0; i < 16; i++)
				ref[(g * T + l) * 16 + i] = a[(g * T + l) * 16 + i] +
				                            a[(g * T + (l + 1) % T) * 16 + i] * 2;
	CmBuffer *ba = nullptr, *bo = nullptr;
	cm_result_check(device->CreateBuffer(N * 4, ba));
	cm_result_check(device->CreateBuffer(N * 4, bo));
	cm_result_check(ba->WriteSurface((const unsigned char *)a.data(), nullptr));
	SurfaceIndex *ia, *io;
	cm_result_check(ba->GetIndex(ia));
	cm_result_check(bo->GetIndex(io));
	cm_result_check(kernel->SetKernelArg(0, sizeof(SurfaceIndex), ia));
	cm_result_check(kernel->SetKernelArg(1, sizeof(SurfaceIndex), io));
	CmThreadGroupSpace *space = nullptr;
	cm_result_check(device->CreateThreadGroupSpace(T, 1, G, 1, space));
	CmTask *task = nullptr;
	cm_result_check(device->CreateTask(task));
	cm_result_check(task->AddKernel(kernel));
	CmQueue *queue = nullptr;
	cm_result_check(device->CreateQueue(queue));
	CmEvent *event = nullptr;
	cm_result_check(queue->EnqueueWithGroup(task, event, space));
	cm_result_check(bo->ReadSurface((unsigned char *)got.data(), event));
	check("groups_slm_barrier", got == ref, "the group sums differ from the reference");
	cm_result_check(queue->DestroyEvent(event));
	cm_result_check(bo->InitSurface(0, nullptr));
	cm_result_check(kernel->AssociateThreadGroupSpace(space));
	cm_result_check(queue->EnqueueWithGroup(task, event));
	cm_result_check(bo->ReadSurface((unsigned char *)got.data(), event));
	check("groups_kernel_group_space", got == ref);
	cm_result_check(queue->DestroyEvent(event));
	CmThreadGroupSpace *big = nullptr;
	check_code("group_too_large", device->CreateThreadGroupSpace(per_group + 1, 1, 1, 1, big),
	           CM_INVALID_THREAD_GROUP_SPACE);
	cm_result_check(device->DestroyThreadGroupSpace(space));
	cm_result_check(device->DestroyTask(task));
	cm_result_check(device->DestroySurface(ba));
	cm_result_check(device->DestroySurface(bo));
	cm_result_check(device->DestroyKernel(kernel));
	cm_result_check(device->DestroyProgram(program));
	cm_result_check(::DestroyCmDevice(device));
	return failures != 0;
}
