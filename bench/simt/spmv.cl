/* spmv.cl — scalar CSR SpMV, y = A x in fp32: one work-item per row. */
__kernel void spmv(int rows, __global const int *rowptr,
		   __global const int *col, __global const float *val,
		   __global const float *x, __global float *y)
{
	int i = get_global_id(0);
	float s = 0;
	if (i >= rows)
		return;
	for (int j = rowptr[i]; j < rowptr[i + 1]; j++)
		s += val[j] * x[col[j]];
	y[i] = s;
}
