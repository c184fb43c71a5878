/* transpose.cl — SLM-tiled out-of-place fp32 transpose (Harris style): a
 * 32x8 work-group copies a 32x32 tile into local memory (one column of
 * padding against bank conflicts), barriers, and writes it transposed.
 * n is a multiple of 32. */
#define TILE 32
#define ROWS 8
__kernel __attribute__((reqd_work_group_size(TILE, ROWS, 1)))
void transpose(__global const float *in, __global float *out, int n)
{
	__local float tile[TILE][TILE + 1];
	int tx = get_local_id(0), ty = get_local_id(1);
	int x = get_group_id(0) * TILE + tx, y = get_group_id(1) * TILE + ty;
	for (int j = 0; j < TILE; j += ROWS)
		tile[ty + j][tx] = in[(size_t)(y + j) * n + x];
	barrier(CLK_LOCAL_MEM_FENCE);
	x = get_group_id(1) * TILE + tx;
	y = get_group_id(0) * TILE + ty;
	for (int j = 0; j < TILE; j += ROWS)
		out[(size_t)(y + j) * n + x] = tile[tx][ty + j];
}
