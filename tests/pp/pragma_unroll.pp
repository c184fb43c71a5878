# 6 "pragma_unroll.cm"
void f()
{
#pragma unroll
for (int i = 0; i < 8; i++) {}
#pragma unroll(4)
for (int i = 0; i < 8; i++) {}
#pragma unroll(2)
for (int i = 0; i < 8; i++) {}
#pragma unroll(8)
for (int i = 0; i < 8; i++) {}
#pragma nounroll
for (int i = 0; i < 8; i++) {}
#pragma unroll(3)
for (int i = 0; i < 8; i++) {} }
