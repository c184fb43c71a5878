/* host_linear.cpp — Algorithm 2 as Intel's hosts run it: SetThreadCount and
 * SetThreadArg(hpos, vpos) per thread, enqueued without a thread space;
 * then over a thread space into a CmSurface2DUP (GetSurface2DInfo's pitch).
 * The image is A8R8G8B8 (the RGB bytes of 8 pixels are 6 surface pixels).
 * Checked against a C reference. */
#include <vector>

#include "host.h"

static const int NX = 20, NY = 15, W = NX * 24, H = NY * 6;   /* bytes, rows */

static void reference(const unsigned char *in, unsigned char *out)
{
	for (int ty = 0; ty < NY; ty++)
		for (int tx = 0; tx < NX; tx++)
			for (int r = 0; r < 6; r++)
				for (int c = 0; c < 24; c++) {
					int sum = 0;
					for (int dy = 0; dy < 3; dy++)
						for (int dx = 0; dx < 3; dx++) {
							int y = ty * 6 + r + dy, x = tx * 24 + c + dx * 3;
							/* reads past the right edge repeat
							 * the last 4-byte pixel */
							x = x < W ? x : W - 4 + x % 4;
							sum += in[(y < H ? y : H - 1) * W + x];
						}
					int oy = ty * 6 + 1 + r, ox = tx * 24 + 3 + c;
					if (oy < H && ox < W)
						out[oy * W + ox] = (unsigned char)(int)((float)sum * 0.111f);
				}
}

int main(int argc, char **argv)
{
	CmDevice *device = nullptr;
	unsigned int version = 0;
	cm_result_check(::CreateCmDevice(device, version));
	std::string code = kernel_file(argc, argv, "linear");
	CmProgram *program = nullptr;
	cm_result_check(device->LoadProgram(const_cast<char *>(code.data()), code.size(), program));
	CmKernel *kernel = nullptr;
	cm_result_check(device->CreateKernel(program, CM_KERNEL_FUNCTION(linear), kernel));

	std::vector<unsigned char> img(W * H), ref(W * H, 0), got(W * H, 0);
	for (int i = 0; i < W * H; i++)
		img[i] = (unsigned char)(i * 29 + i / W * 7);
	reference(img.data(), ref.data());
	CmSurface2D *in = nullptr, *out = nullptr;
	cm_result_check(device->CreateSurface2D(W / 4, H, CM_SURFACE_FORMAT_A8R8G8B8, in));
	cm_result_check(device->CreateSurface2D(W / 4, H, CM_SURFACE_FORMAT_A8R8G8B8, out));
	cm_result_check(in->WriteSurface(img.data(), nullptr));
	SurfaceIndex *iin, *iout;
	cm_result_check(in->GetIndex(iin));
	cm_result_check(out->GetIndex(iout));
	cm_result_check(kernel->SetKernelArg(0, sizeof(SurfaceIndex), iin));
	cm_result_check(kernel->SetKernelArg(1, sizeof(SurfaceIndex), iout));
	/* threads take the tiles in reverse order: the ids are not the tiles */
	cm_result_check(kernel->SetThreadCount(NX * NY));
	for (unsigned t = 0; t < NX * NY; t++) {
		unsigned tile = NX * NY - 1 - t, h = tile % NX, v = tile / NX;
		cm_result_check(kernel->SetThreadArg(t, 2, sizeof h, &h));
		cm_result_check(kernel->SetThreadArg(t, 3, sizeof v, &v));
	}
	CmTask *task = nullptr;
	cm_result_check(device->CreateTask(task));
	cm_result_check(task->AddKernel(kernel));
	CmQueue *queue = nullptr;
	cm_result_check(device->CreateQueue(queue));
	CmEvent *event = nullptr;
	cm_result_check(queue->Enqueue(task, event));
	cm_result_check(out->ReadSurface(got.data(), event));
	check("linear_thread_args", got == ref, "the filtered image differs from the reference");
	cm_result_check(queue->DestroyEvent(event));

	/* the same over a NX x NY thread space, into host memory */
	UINT pitch = 0, bytes = 0;
	cm_result_check(device->GetSurface2DInfo(W / 4, H, CM_SURFACE_FORMAT_A8R8G8B8, pitch, bytes));
	check("linear_surface2dup_info", pitch >= (UINT)W && bytes == pitch * H);
	std::vector<unsigned char> host(bytes, 0);
	CmSurface2DUP *up = nullptr;
	cm_result_check(device->CreateSurface2DUP(W / 4, H, CM_SURFACE_FORMAT_A8R8G8B8, host.data(),
	                                          up));
	SurfaceIndex *iup;
	cm_result_check(up->GetIndex(iup));
	cm_result_check(kernel->SetKernelArg(1, sizeof(SurfaceIndex), iup));
	CmThreadSpace *space = nullptr;
	cm_result_check(device->CreateThreadSpace(NX, NY, space));
	cm_result_check(queue->Enqueue(task, event, space));
	bool ok = true;
	for (int y = 0; y < H; y++)
		ok &= memcmp(&host[y * pitch], &ref[y * W], W) == 0;
	check("linear_thread_space_surface2dup", ok, "the image in host memory differs");
	cm_result_check(queue->DestroyEvent(event));

	/* a thread without its value, or too many threads */
	CmKernel *k2 = nullptr;
	cm_result_check(device->CreateKernel(program, "linear", k2));
	cm_result_check(k2->SetKernelArg(0, sizeof(SurfaceIndex), iin));
	cm_result_check(k2->SetKernelArg(1, sizeof(SurfaceIndex), iout));
	unsigned zero = 0;
	cm_result_check(k2->SetThreadCount(4));
	cm_result_check(k2->SetKernelArg(3, 4, &zero));
	for (unsigned t = 0; t < 3; t++)
		cm_result_check(k2->SetThreadArg(t, 2, 4, &t));
	check_code("thread_arg_index_past_count", k2->SetThreadArg(4, 2, 4, &zero),
	           CM_INVALID_THREAD_INDEX);
	check_code("thread_arg_size", k2->SetThreadArg(0, 2, 8, &zero), CM_INVALID_ARG_SIZE);
	check_code("thread_arg_surface", k2->SetThreadArg(0, 0, sizeof(SurfaceIndex), iin),
	           CM_NOT_IMPLEMENTED);
	CmTask *t2 = nullptr;
	cm_result_check(device->CreateTask(t2));
	cm_result_check(t2->AddKernel(k2));
	check_code("thread_arg_missing", queue->Enqueue(t2, event), CM_NOT_SET_KERNEL_ARGUMENT);
	queue->DestroyEvent(event);
	CmThreadGroupSpace *groups = nullptr;
	cm_result_check(device->CreateThreadGroupSpace(1, 1, 4, 1, groups));
	cm_result_check(k2->SetThreadArg(3, 2, 4, &zero));
	check_code("thread_arg_group_space", queue->EnqueueWithGroup(t2, event, groups),
	           CM_THREAD_ARG_NOT_ALLOWED);
	queue->DestroyEvent(event);

	device->DestroyThreadGroupSpace(groups);
	device->DestroyTask(t2);
	device->DestroyKernel(k2);
	device->DestroyThreadSpace(space);
	device->DestroySurface2DUP(up);
	device->DestroyTask(task);
	device->DestroySurface(in);
	device->DestroySurface(out);
	device->DestroyKernel(kernel);
	device->DestroyProgram(program);
	::DestroyCmDevice(device);
	return failures != 0;
}
