/* gemm.cl — register-tiled SIMT GEMM, C = alpha*A*B + beta*C, row-major
 * n x n, n a multiple of 64; REAL is float or double (-DREAL=...).
 * A 16x16 work-group computes a 64x64 tile of C, each work-item a 4x4
 * block held in registers (rows ty+16i, columns tx+16j); 64x16 slices of A
 * and 16x64 slices of B are staged in SLM between barriers. */
#ifdef USE_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#define TS 64
#define TK 16
#define WPT 4
__kernel __attribute__((reqd_work_group_size(16, 16, 1)))
void gemm(int n, REAL alpha, __global const REAL *A, __global const REAL *B,
	  REAL beta, __global REAL *C)
{
	__local REAL As[TK][TS];
	__local REAL Bs[TK][TS];
	int tx = get_local_id(0), ty = get_local_id(1), lid = ty * 16 + tx;
	int col0 = get_group_id(0) * TS, row0 = get_group_id(1) * TS;
	REAL acc[WPT][WPT];
	for (int i = 0; i < WPT; i++)
		for (int j = 0; j < WPT; j++)
			acc[i][j] = 0;
	for (int k0 = 0; k0 < n; k0 += TK) {
		for (int l = 0; l < 4; l++) {
			int e = lid + l * 256;
			int r = e / TK, c = e % TK;
			As[c][r] = A[(size_t)(row0 + r) * n + k0 + c];
			int kr = e / TS, cc = e % TS;
			Bs[kr][cc] = B[(size_t)(k0 + kr) * n + col0 + cc];
		}
		barrier(CLK_LOCAL_MEM_FENCE);
		for (int k = 0; k < TK; k++) {
			REAL a[WPT], b[WPT];
			for (int i = 0; i < WPT; i++)
				a[i] = As[k][ty + 16 * i];
			for (int j = 0; j < WPT; j++)
				b[j] = Bs[k][tx + 16 * j];
			for (int i = 0; i < WPT; i++)
				for (int j = 0; j < WPT; j++)
					acc[i][j] += a[i] * b[j];
		}
		barrier(CLK_LOCAL_MEM_FENCE);
	}
	for (int i = 0; i < WPT; i++)
		for (int j = 0; j < WPT; j++) {
			size_t o = (size_t)(row0 + ty + 16 * i) * n + col0 + tx + 16 * j;
			C[o] = alpha * acc[i][j] + beta * C[o];
		}
}
