/* scan.cl — Blelloch work-efficient inclusive scan, T = uint (int32 with
 * wrap-around) or float (-DT=...).  scan_block scans blocks of 2*WG
 * elements in SLM (up-sweep, clear, down-sweep, barriers between levels),
 * adds each input back to make the scan inclusive and writes the block
 * total; the host scans the totals recursively with the same kernel, then
 * scan_add adds the total of all earlier blocks to each block. */
#define WG 256
#define BLK (2 * WG)

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void scan_block(__global const T *in, __global T *out, __global T *sums,
		uint n)
{
	__local T s[BLK];
	uint lid = get_local_id(0), g = get_group_id(0);
	uint i0 = g * BLK + lid, i1 = i0 + WG, off = 1;
	T a = i0 < n ? in[i0] : 0, b = i1 < n ? in[i1] : 0;
	s[lid] = a;
	s[lid + WG] = b;
	for (uint d = BLK >> 1; d > 0; d >>= 1) {
		barrier(CLK_LOCAL_MEM_FENCE);
		if (lid < d)
			s[off * (2 * lid + 2) - 1] += s[off * (2 * lid + 1) - 1];
		off <<= 1;
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	if (lid == 0) {
		sums[g] = s[BLK - 1];
		s[BLK - 1] = 0;
	}
	for (uint d = 1; d < BLK; d <<= 1) {
		off >>= 1;
		barrier(CLK_LOCAL_MEM_FENCE);
		if (lid < d) {
			uint ai = off * (2 * lid + 1) - 1, bi = off * (2 * lid + 2) - 1;
			T t = s[ai];
			s[ai] = s[bi];
			s[bi] += t;
		}
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	if (i0 < n)
		out[i0] = s[lid] + a;
	if (i1 < n)
		out[i1] = s[lid + WG] + b;
}

/* sums holds the inclusive scan of the block totals. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void scan_add(__global T *out, __global const T *sums, uint n)
{
	uint g = get_group_id(0), i0 = g * BLK + get_local_id(0), i1 = i0 + WG;
	if (g == 0)
		return;
	T add = sums[g - 1];
	if (i0 < n)
		out[i0] += add;
	if (i1 < n)
		out[i1] += add;
}

/* copy — a plain copy kernel: the OpenCL device's copy bandwidth. */
__kernel void copy(__global const uint4 *in, __global uint4 *out)
{
	size_t i = get_global_id(0);
	out[i] = in[i];
}
