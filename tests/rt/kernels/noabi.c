/* noabi.c — a shared library that is not a cmetal kernel library. */
int not_a_kernel_library = 1;
