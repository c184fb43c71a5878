/* memory.c — buffers, 2D surfaces and SVM allocations: argument checks and
 * geometry (the 2D pitch is chosen here: rows padded to 64 bytes), then the
 * device's mem_* operations.  All three handle kinds are one RtMem. */
#include <stdlib.h>
#include <string.h>

#include "rt/rt.h"

#define RT_PITCH_ALIGN 64u

static const char *kind_name[] = {"buffer", "2D surface", "SVM allocation"};

cm_status rt_get_mem(const void *h, RtMemKind kind, RtMem **out)
{
	*out = NULL;
	if (!h)
		return rt_fail(CM_INVALID_HANDLE, "%s handle is NULL", kind_name[kind]);
	RtMem *m = (RtMem *)rt_handle_get(h, RT_OBJ_MEM);
	if (m && m->kind != kind) {
		rt_put(&m->obj);
		m = NULL;
	}
	if (!m)
		return rt_fail(CM_INVALID_HANDLE,
		               "%s handle is not a live %s (released or wrong type)",
		               kind_name[kind], kind_name[kind]);
	*out = m;
	return CM_SUCCESS;
}

/* The last reference: the memory goes back to the device (borrowed and
 * host-aliased memory stays the caller's). */
static void mem_destroy(RtObj *o)
{
	RtMem *m = (RtMem *)o;
	cmetal_device *dev = m->dev;
	rt_dev_lock(dev);
	dev->ops->mem_free(dev, m);
	rt_dev_unlock(dev);
	free(m);
	rt_device_drop(dev);
}

static cm_status check_range(const RtMem *m, const char *what, size_t off,
                             size_t n, const void *p)
{
	if (!p && n)
		return rt_fail(CM_INVALID_VALUE, "%s of %zu bytes: the host pointer is NULL", what, n);
	if (off > m->size || n > m->size - off)
		return rt_fail(CM_OUT_OF_RANGE,
		               "%s of %zu bytes at offset %zu goes past the end of a %zu-byte %s",
		               what, n, off, m->size, kind_name[m->kind]);
	return CM_SUCCESS;
}

/* How mem_new gets the memory: the device allocates it, aliases host
 * memory (create_host), or the object borrows the caller's (wrap). */
typedef enum { MEM_ALLOC, MEM_ALIAS, MEM_BORROW } MemSource;

/* Allocates the RtMem of a new object; the device fills the memory. */
static cm_status mem_alloc(cmetal_device *dev, RtMemKind kind, size_t size,
                           void *host, MemSource src, RtMem **out)
{
	if (!out)
		return rt_fail(CM_INVALID_VALUE, "creating a %s: the output pointer is NULL",
		               kind_name[kind]);
	*out = NULL;
	if (size == 0)
		return rt_fail(CM_INVALID_VALUE, "cannot create a %s of 0 bytes", kind_name[kind]);
	if (size > ((size_t)4 << 30))
		return rt_fail(CM_INVALID_VALUE,
		               "a %s of %zu bytes is over the 4 GB limit of a CM surface",
		               kind_name[kind], size);
	RtMem *m = calloc(1, sizeof *m);
	if (!m)
		return rt_fail(CM_OUT_OF_MEMORY, "out of memory");
	rt_obj_init(&m->obj, RT_OBJ_MEM, mem_destroy);
	m->kind = kind;
	m->dev = dev;
	m->size = size;
	m->bpp = 1;
	m->format = CMK_FMT_BUFFER;
	if (src == MEM_BORROW) {
		/* either device's kernels use m->host as the base address */
		m->host = host;
		m->addr = (uint64_t)(uintptr_t)host;
		m->borrowed = true;
	}
	rt_dev_lock(dev);
	cm_status s = src == MEM_ALIAS ? dev->ops->mem_alias(dev, m, host)
	            : src == MEM_ALLOC ? dev->ops->mem_alloc(dev, m) : CM_SUCCESS;
	rt_dev_unlock(dev);
	if (s) {
		free(m);
		return s;
	}
	rt_device_hold(dev);
	*out = m;
	return CM_SUCCESS;
}

/* Publishes a new object (its geometry set): *out gets its handle. */
static cm_status mem_publish(RtMem *m, void **out)
{
	*out = rt_handle_new(&m->obj);
	if (*out)
		return CM_SUCCESS;
	rt_put(&m->obj);
	return rt_fail(CM_OUT_OF_MEMORY, "out of memory");
}

/* A new memory object of the device handle h, published. */
static cm_status mem_new(cmetal_device *h, RtMemKind kind, size_t size, void *host,
                         MemSource src, void **out)
{
	cmetal_device *dev;
	cm_status s = rt_get_device(h, &dev);
	if (s)
		return s;
	RtMem *m;
	s = mem_alloc(dev, kind, size, host, src, &m);
	rt_put(&dev->obj);
	return s ? s : mem_publish(m, out);
}

/* Ends the user's handle; kernels and tasks holding the memory keep it. */
static cm_status mem_release(const void *h, RtMemKind kind)
{
	RtMem *m;
	cm_status s = rt_get_mem(h, kind, &m);
	if (s)
		return s;
	return rt_handle_release(h, RT_OBJ_MEM, &m->obj, kind_name[kind]);
}

/* ---- buffers ---- */

cm_status cmetal_buffer_create(cmetal_device *dev, size_t size, cmetal_buffer **buf)
{
	return mem_new(dev, RT_MEM_BUFFER, size, NULL, MEM_ALLOC, (void **)buf);
}

/* Reads or writes n bytes at off of a memory object of kind k, checked. */
static cm_status mem_io(const void *h, RtMemKind k, bool write, size_t off, size_t n, void *p)
{
	RtMem *m;
	cm_status s = rt_get_mem(h, k, &m);
	if (s)
		return s;
	s = check_range(m, write ? "write" : "read", off, n, p);
	if (!s) {
		rt_dev_lock(m->dev);
		s = write ? m->dev->ops->mem_write(m->dev, m, off, p, n)
		          : m->dev->ops->mem_read(m->dev, m, off, p, n);
		rt_dev_unlock(m->dev);
	}
	rt_put(&m->obj);
	return s;
}

cm_status cmetal_buffer_create_host(cmetal_device *dev, void *ptr, size_t size,
                                    cmetal_buffer **buf)
{
	if (!ptr)
		return rt_fail(CM_INVALID_VALUE, "cmetal_buffer_create_host: the host pointer is NULL");
	return mem_new(dev, RT_MEM_BUFFER, size, ptr, MEM_ALIAS, (void **)buf);
}

cm_status cmetal_buffer_wrap(cmetal_device *dev, uint64_t addr, size_t size,
                             cmetal_buffer **buf)
{
	if (!addr)
		return rt_fail(CM_INVALID_VALUE, "cmetal_buffer_wrap: the address is 0");
	return mem_new(dev, RT_MEM_BUFFER, size, (void *)(uintptr_t)addr, MEM_BORROW,
	               (void **)buf);
}

/* One number of a memory object: its address or size. */
static cm_status mem_query(const void *h, RtMemKind kind, const char *fn, bool addr,
                           uint64_t *out)
{
	RtMem *m;
	cm_status s = rt_get_mem(h, kind, &m);
	if (s)
		return s;
	if (!out)
		s = rt_fail(CM_INVALID_VALUE, "%s: the output pointer is NULL", fn);
	else if (addr)
		*out = kind == RT_MEM_SVM ? m->addr : (uint64_t)(uintptr_t)m->host;
	else
		*out = m->size;
	rt_put(&m->obj);
	return s;
}

cm_status cmetal_buffer_address(cmetal_buffer *buf, uint64_t *addr)
{
	return mem_query(buf, RT_MEM_BUFFER, "cmetal_buffer_address", true, addr);
}

cm_status cmetal_buffer_size(cmetal_buffer *buf, size_t *size)
{
	uint64_t n = 0;
	cm_status s = mem_query(buf, RT_MEM_BUFFER, "cmetal_buffer_size", false,
	                        size ? &n : NULL);
	if (!s)
		*size = (size_t)n;
	return s;
}

cm_status cmetal_buffer_write(cmetal_buffer *buf, size_t off, size_t n, const void *src)
{
	return mem_io(buf, RT_MEM_BUFFER, true, off, n, (void *)src);
}

cm_status cmetal_buffer_read(cmetal_buffer *buf, size_t off, size_t n, void *dst)
{
	return mem_io(buf, RT_MEM_BUFFER, false, off, n, dst);
}

/* Maps (ptr) or unmaps (ptr NULL) a buffer. */
static cm_status buffer_map(const void *h, bool map, void **ptr)
{
	RtMem *m;
	cm_status s = rt_get_mem(h, RT_MEM_BUFFER, &m);
	if (s)
		return s;
	if (map && !ptr) {
		s = rt_fail(CM_INVALID_VALUE, "cmetal_buffer_map: the output pointer is NULL");
	} else {
		rt_dev_lock(m->dev);
		s = map ? m->dev->ops->mem_map(m->dev, m, ptr) : m->dev->ops->mem_unmap(m->dev, m);
		rt_dev_unlock(m->dev);
	}
	rt_put(&m->obj);
	return s;
}

cm_status cmetal_buffer_map(cmetal_buffer *buf, void **ptr)
{
	return buffer_map(buf, true, ptr);
}

cm_status cmetal_buffer_unmap(cmetal_buffer *buf)
{
	return buffer_map(buf, false, NULL);
}

cm_status cmetal_buffer_release(cmetal_buffer *buf)
{
	return mem_release(buf, RT_MEM_BUFFER);
}

/* ---- 2D surfaces ---- */

/* Bytes per pixel of a public format, 0 when the format is unknown; *cmk
 * gets the ABI's format code. */
static uint32_t format_bpp(cmetal_format f, uint32_t *cmk)
{
	static const struct { cmetal_format f; uint32_t cmk, bpp; } tab[] = {
		{CMETAL_FMT_A8, CMK_FMT_A8, 1},
		{CMETAL_FMT_R8G8B8A8, CMK_FMT_R8G8B8A8, 4},
		{CMETAL_FMT_A8R8G8B8, CMK_FMT_A8R8G8B8, 4},
		{CMETAL_FMT_R32F, CMK_FMT_R32F, 4},
		{CMETAL_FMT_R32_UINT, CMK_FMT_R32_UINT, 4},
		{CMETAL_FMT_R32_SINT, CMK_FMT_R32_SINT, 4},
		{CMETAL_FMT_R16_UINT, CMK_FMT_R16_UINT, 2},
		{CMETAL_FMT_R8_UINT, CMK_FMT_R8_UINT, 1},
		{CMETAL_FMT_R32G32B32A32F, CMK_FMT_R32G32B32A32F, 16},
	};
	for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
		if (tab[i].f == f) {
			*cmk = tab[i].cmk;
			return tab[i].bpp;
		}
	return 0;
}

static cm_status bad_format(cmetal_format format)
{
	return rt_fail(CM_INVALID_FORMAT,
	               "bad surface format %d: expected one of the CMETAL_FMT_* values "
	               "(A8, R8G8B8A8, A8R8G8B8, R32F, R32_UINT, R32_SINT, R16_UINT, "
	               "R8_UINT, R32G32B32A32F)", (int)format);
}

static cm_status check_size2d(uint32_t width, uint32_t height)
{
	if (width == 0 || height == 0 || width > 16384 || height > 16384)
		return rt_fail(CM_INVALID_VALUE,
		               "bad 2D surface size %ux%u: width and height must be 1..16384 pixels",
		               width, height);
	return CM_SUCCESS;
}

static uint32_t pitch_of(uint32_t width, uint32_t bpp)
{
	uint32_t row = width * bpp;
	return (row + RT_PITCH_ALIGN - 1) / RT_PITCH_ALIGN * RT_PITCH_ALIGN;
}

cm_status cmetal_surface2d_pitch(uint32_t width, cmetal_format format, uint32_t *pitch)
{
	uint32_t cmk = 0, bpp = format_bpp(format, &cmk);
	if (!bpp)
		return bad_format(format);
	cm_status s = check_size2d(width, 1);
	if (s)
		return s;
	if (!pitch)
		return rt_fail(CM_INVALID_VALUE, "cmetal_surface2d_pitch: the output pointer is NULL");
	*pitch = pitch_of(width, bpp);
	return CM_SUCCESS;
}

/* A 2D surface in new memory (host NULL, MEM_ALLOC), aliasing host memory
 * (MEM_ALIAS) or over the caller's memory (MEM_BORROW); pitch 0: the
 * runtime's. */
static cm_status surface_new(cmetal_device *dev, void *host, MemSource src, uint32_t width,
                             uint32_t height, cmetal_format format, uint32_t pitch,
                             cmetal_surface2d **surf)
{
	uint32_t cmk = 0, bpp = format_bpp(format, &cmk);
	if (!bpp)
		return bad_format(format);
	cm_status s = check_size2d(width, height);
	if (s)
		return s;
	uint32_t row = width * bpp;
	if (!pitch)
		pitch = pitch_of(width, bpp);
	if (pitch < row)
		return rt_fail(CM_INVALID_VALUE,
		               "pitch %u is less than a row of the %ux%u surface (%u bytes)",
		               pitch, width, height, row);
	/* a borrowed surface's last row need not be padded to the pitch */
	size_t size = src == MEM_BORROW ? (size_t)pitch * (height - 1) + row
	                                : (size_t)pitch * height;
	cmetal_device *d;
	if ((s = rt_get_device(dev, &d)))
		return s;
	RtMem *m;
	s = mem_alloc(d, RT_MEM_SURF2D, size, host, src, &m);
	rt_put(&d->obj);
	if (s)
		return s;
	m->width = width;
	m->height = height;
	m->pitch = pitch;
	m->bpp = bpp;
	m->format = cmk;
	return mem_publish(m, (void **)surf);
}

cm_status cmetal_surface2d_create(cmetal_device *dev, uint32_t width, uint32_t height,
                                  cmetal_format format, cmetal_surface2d **surf)
{
	return surface_new(dev, NULL, MEM_ALLOC, width, height, format, 0, surf);
}

cm_status cmetal_surface2d_create_host(cmetal_device *dev, void *ptr, uint32_t width,
                                       uint32_t height, cmetal_format format, uint32_t pitch,
                                       cmetal_surface2d **surf)
{
	if (!ptr)
		return rt_fail(CM_INVALID_VALUE,
		               "cmetal_surface2d_create_host: the host pointer is NULL");
	return surface_new(dev, ptr, MEM_ALIAS, width, height, format, pitch, surf);
}

cm_status cmetal_surface2d_wrap(cmetal_device *dev, uint64_t addr, uint32_t width,
                                uint32_t height, uint32_t pitch, cmetal_format format,
                                cmetal_surface2d **surf)
{
	if (!addr)
		return rt_fail(CM_INVALID_VALUE, "cmetal_surface2d_wrap: the address is 0");
	if (!pitch)
		return rt_fail(CM_INVALID_VALUE, "cmetal_surface2d_wrap: the pitch is 0");
	return surface_new(dev, (void *)(uintptr_t)addr, MEM_BORROW, width, height, format, pitch,
	                   surf);
}

cm_status cmetal_surface2d_info(cmetal_surface2d *surf, uint32_t *width, uint32_t *height,
                                uint32_t *pitch, uint32_t *bpp)
{
	RtMem *m;
	cm_status s = rt_get_mem(surf, RT_MEM_SURF2D, &m);
	if (s)
		return s;
	if (width)
		*width = m->width;
	if (height)
		*height = m->height;
	if (pitch)
		*pitch = m->pitch;
	if (bpp)
		*bpp = m->bpp;
	rt_put(&m->obj);
	return CM_SUCCESS;
}

/* Copies rows between the surface and host memory of host_pitch. */
static cm_status surface_rows(RtMem *m, void *host, size_t host_pitch, bool to_surface)
{
	cm_status s = CM_SUCCESS;
	size_t row = (size_t)m->width * m->bpp;
	if (!host)
		return rt_fail(CM_INVALID_VALUE, "2D surface %s: the host pointer is NULL",
		               to_surface ? "write" : "read");
	if (host_pitch == 0)
		host_pitch = row;
	if (host_pitch < row)
		return rt_fail(CM_INVALID_VALUE,
		               "host pitch %zu is less than a row of the surface (%zu bytes)",
		               host_pitch, row);
	rt_dev_lock(m->dev);
	for (uint32_t y = 0; y < m->height && !s; y++) {
		unsigned char *h = (unsigned char *)host + y * host_pitch;
		size_t off = (size_t)y * m->pitch;
		s = to_surface ? m->dev->ops->mem_write(m->dev, m, off, h, row)
		               : m->dev->ops->mem_read(m->dev, m, off, h, row);
	}
	rt_dev_unlock(m->dev);
	return s;
}

/* A checked surface_rows on the surface handle h. */
static cm_status surface_copy(const void *h, void *host, size_t host_pitch, bool to_surface)
{
	RtMem *m;
	cm_status s = rt_get_mem(h, RT_MEM_SURF2D, &m);
	if (s)
		return s;
	s = surface_rows(m, host, host_pitch, to_surface);
	rt_put(&m->obj);
	return s;
}

cm_status cmetal_surface2d_write(cmetal_surface2d *surf, const void *src, size_t host_pitch)
{
	return surface_copy(surf, (void *)src, host_pitch, true);
}

cm_status cmetal_surface2d_read(cmetal_surface2d *surf, void *dst, size_t host_pitch)
{
	return surface_copy(surf, dst, host_pitch, false);
}

cm_status cmetal_surface2d_release(cmetal_surface2d *surf)
{
	return mem_release(surf, RT_MEM_SURF2D);
}

/* ---- SVM ---- */

cm_status cmetal_svm_alloc(cmetal_device *dev, size_t size, cmetal_svm **svm)
{
	return mem_new(dev, RT_MEM_SVM, size, NULL, MEM_ALLOC, (void **)svm);
}

cm_status cmetal_svm_address(cmetal_svm *svm, uint64_t *addr)
{
	return mem_query(svm, RT_MEM_SVM, "cmetal_svm_address", true, addr);
}

cm_status cmetal_svm_write(cmetal_svm *svm, size_t off, size_t n, const void *src)
{
	return mem_io(svm, RT_MEM_SVM, true, off, n, (void *)src);
}

cm_status cmetal_svm_read(cmetal_svm *svm, size_t off, size_t n, void *dst)
{
	return mem_io(svm, RT_MEM_SVM, false, off, n, dst);
}

cm_status cmetal_svm_free(cmetal_svm *svm)
{
	return mem_release(svm, RT_MEM_SVM);
}
