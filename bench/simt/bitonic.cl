/* bitonic.cl — SIMT bitonic sort: the host launches this kernel once per
 * (stage k, pass j), k = 2, 4, ..., n and j = k/2, ..., 1; one work-item per
 * compare-exchange pair, every pass through global memory. */
__kernel void bitonic_step(__global uint *a, uint j, uint k)
{
	uint i = get_global_id(0);
	uint lo = ((i & ~(j - 1)) << 1) | (i & (j - 1));
	uint hi = lo + j;
	uint x = a[lo], y = a[hi];
	bool up = (lo & k) == 0;
	if ((x > y) == up) {
		a[lo] = y;
		a[hi] = x;
	}
}
