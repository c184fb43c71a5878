# 4 "cm_macros.cm"
extern "C" __declspec(genx_main) void k(SurfaceIndex buf, int n)
{
vector<int, 8> v = 0;
vector<uchar, 8> u = vector<uchar, 8>(v, _GENX_SAT);
read(buf, GENX_DWALIGNED, 0, v);
read(buf, GENX_CONSTANT, 0, v);
if (__cm_simdcf_any(v > 0)) { {
v += 1;
} } else if (__cm_simdcf_any(v < -1)) { {
v -= 1;
} } else { {
v = 0;
} };
do { {
if (__cm_simdcf_any(v == 3)) { { break; } };
continue;
} } while (__cm_simdcf_any(v < 10));
vector<int, 8> w; cmtl::cm_vector_assign(w.select_all(), 0, 2);
matrix<float, 2, 4> m; cmtl::cm_vector_assign(m.select_all(), 1, 1);
write(buf, 0, v, 0);

}
__declspec(genx) int helper(int x);
__declspec(genx_volatile(4)) int g;
__declspec(cm_float_control(CM_RTZ)) __declspec(genx_stackcall) void h();
