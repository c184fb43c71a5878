# 8 "macro_obj.cm"
int x = (16 * 2) + 16;
A A A B
int f();
- - 16;

N (N * 2)
