/* histogram.cl — SIMT 256-bin histogram of bytes: each work-group builds a
 * local histogram in SLM with atomic increments, then merges it into the
 * global one with atomic adds (one bin per work-item).  The input is read
 * as uints; n4 = bytes / 4 (bytes is a multiple of 4). */
__kernel void histogram(__global const uint *data, uint n4,
			__global uint *hist, __local uint *lh)
{
	uint lid = get_local_id(0), lsz = get_local_size(0);
	for (uint b = lid; b < 256; b += lsz)
		lh[b] = 0;
	barrier(CLK_LOCAL_MEM_FENCE);
	for (uint i = get_global_id(0); i < n4; i += get_global_size(0)) {
		uint v = data[i];
		atomic_inc(&lh[v & 255]);
		atomic_inc(&lh[(v >> 8) & 255]);
		atomic_inc(&lh[(v >> 16) & 255]);
		atomic_inc(&lh[v >> 24]);
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	for (uint b = lid; b < 256; b += lsz)
		if (lh[b])
			atomic_add(&hist[b], lh[b]);
}
