/* linear.cl — SIMT 3x3 box filter, one work-item per RGB8 pixel (the
 * straightforward OpenCL kernel of the paper's §III).  Edges are clamped;
 * out = (sum + 4) / 9 per channel, exactly as ref_linear. */
__kernel void linear(__global const uchar *in, __global uchar *out, int w,
		     int h)
{
	int x = get_global_id(0), y = get_global_id(1);
	int s0 = 0, s1 = 0, s2 = 0;
	if (x >= w || y >= h)
		return;
	for (int dy = -1; dy <= 1; dy++) {
		int yy = clamp(y + dy, 0, h - 1);
		for (int dx = -1; dx <= 1; dx++) {
			int xx = clamp(x + dx, 0, w - 1);
			__global const uchar *p = in + ((size_t)yy * w + xx) * 3;
			s0 += p[0];
			s1 += p[1];
			s2 += p[2];
		}
	}
	__global uchar *o = out + ((size_t)y * w + x) * 3;
	o[0] = (uchar)((s0 + 4) / 9);
	o[1] = (uchar)((s1 + 4) / 9);
	o[2] = (uchar)((s2 + 4) / 9);
}
