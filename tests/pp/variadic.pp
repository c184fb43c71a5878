# 7 "variadic.cm"
printf("x");
printf("x %d %d", 1, (2, 3));
f() f(1) f(1, 2, 3)
g(1, 2, 3)
sizeof((int[]){1, 2})
