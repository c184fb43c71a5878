# 11 "macro_fn.cm"
int a = ((1 + 2) * (1 + 2));
int b = (((1, 2)) * ((vector<int, 4>(0)(1))));
int c = 42 +;
f f(1)
g (2) g ( 3)
((

7) * (
8))

int F = 1;
