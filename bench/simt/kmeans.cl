/* kmeans.cl — SIMT k-means (Lloyd), D and K fixed by build options
 * (-DD=4 -DK=16).  Three kernels per iteration:
 *   km_assign  one work-item per point: centroids staged in SLM behind a
 *              barrier; nearest centroid (lowest index on ties); flags a
 *              membership change
 *   km_accum   one work-group per chunk of CHUNK points: per-cluster sums and
 *              counts in SLM (float atomic add by compare-and-swap), written
 *              out as per-group partials
 *   km_update  one work-item per (cluster, dim): sums the partials; empty
 *              clusters keep their centroid. */
#define CHUNK 4096

__kernel void km_assign(__global const float *pts, int n,
			__global const float *cent, __global int *member,
			__global int *changed)
{
	__local float c[K * D];
	for (int t = get_local_id(0); t < K * D; t += get_local_size(0))
		c[t] = cent[t];
	barrier(CLK_LOCAL_MEM_FENCE);
	int i = get_global_id(0);
	if (i >= n)
		return;
	float x[D];
	for (int d = 0; d < D; d++)
		x[d] = pts[(size_t)i * D + d];
	float best = 0;
	int arg = 0;
	for (int k = 0; k < K; k++) {
		float dist = 0;
		for (int d = 0; d < D; d++) {
			float t = x[d] - c[k * D + d];
			dist += t * t;
		}
		if (k == 0 || dist < best) {
			best = dist;
			arg = k;
		}
	}
	if (member[i] != arg) {
		member[i] = arg;
		*changed = 1;
	}
}

static void add_local_float(volatile __local float *p, float v)
{
	union { uint u; float f; } old, upd;
	do {
		old.f = *p;
		upd.f = old.f + v;
	} while (atomic_cmpxchg((volatile __local uint *)p, old.u, upd.u) != old.u);
}

__kernel void km_accum(__global const float *pts, int n,
		       __global const int *member, __global float *psum,
		       __global int *pcount)
{
	__local float sum[K * D];
	__local int cnt[K];
	int lid = get_local_id(0), lsz = get_local_size(0), g = get_group_id(0);
	for (int t = lid; t < K * D; t += lsz)
		sum[t] = 0;
	for (int t = lid; t < K; t += lsz)
		cnt[t] = 0;
	barrier(CLK_LOCAL_MEM_FENCE);
	int end = min(n, (g + 1) * CHUNK);
	for (int i = g * CHUNK + lid; i < end; i += lsz) {
		int m = member[i];
		atomic_inc(&cnt[m]);
		for (int d = 0; d < D; d++)
			add_local_float(&sum[m * D + d], pts[(size_t)i * D + d]);
	}
	barrier(CLK_LOCAL_MEM_FENCE);
	for (int t = lid; t < K * D; t += lsz)
		psum[(size_t)g * K * D + t] = sum[t];
	for (int t = lid; t < K; t += lsz)
		pcount[g * K + t] = cnt[t];
}

__kernel void km_update(__global const float *psum,
			__global const int *pcount, int ngroups,
			__global float *cent)
{
	int t = get_global_id(0);
	if (t >= K * D)
		return;
	float s = 0;
	int c = 0;
	for (int g = 0; g < ngroups; g++) {
		s += psum[(size_t)g * K * D + t];
		c += pcount[g * K + t / D];
	}
	if (c)
		cent[t] = s / c;
}
