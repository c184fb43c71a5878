/* cm/cmtl.h — cmetal's CM template library header.  cmtl::cm_vector_assign
 * is provided natively by the compiler; only the convenience macros are
 * here. */
#pragma once
#ifndef CMETAL_CM_CMTL_H
#define CMETAL_CM_CMTL_H

#include <cm/cm.h>

/* Declares vector V of N T's holding I, I+S, I+2S, ... */
#define cm_vector(V, T, N, I, S) \
	vector<T, N> V; \
	cmtl::cm_vector_assign(V.select_all(), I, S)

/* Declares matrix M of R x C T's holding I, I+S, ... in row-major order. */
#define cm_matrix(M, T, R, C, I, S) \
	matrix<T, R, C> M; \
	cmtl::cm_vector_assign(M.select_all(), I, S)

#endif
