# 3 "defines.cm"
int foo = 1, bar = 3, baz = a+b;



int ptrsize = 32;
svmptr_t p;
