/* cm/cm.h — cmetal's version of CM's main header.  It holds only macros
 * and typedefs: the builtin functions (read, write, cm_*), their enums and
 * the vector/matrix types are built into the compiler.  cmetal includes
 * this file implicitly before every source, so including it again is
 * harmless. */
#pragma once
#ifndef CMETAL_CM_CM_H
#define CMETAL_CM_CM_H

#define __INTEL_CM 701
#define __INTEL_MDF 701
#define CM_1_0 100
#define CM_2_0 200
#define CM_2_1 210
#define CM_2_2 220
#define CM_2_3 230
#define CM_2_4 240
#define CM_3_0 300
#define CM_4_0 400
#define CM_5_0 500
#define CM_6_0 600
#define CM_7_0 700

/* ---- types */
typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;

typedef unsigned char U8;
typedef unsigned short U16;
typedef unsigned int U32;

typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;

typedef unsigned long long uintptr_t;
typedef long long intptr_t;
typedef long long ptrdiff_t;
typedef unsigned long long size_t;

#if CM_PTRSIZE == 32
typedef unsigned int svmptr_t;
#else
typedef unsigned long long svmptr_t;
#endif

#define __int8 char
#define __int16 short
#define __int32 int
#define __int64 long long
#define __uint8 unsigned char
#define __uint16 unsigned short
#define __uint32 unsigned int
#define __uint64 unsigned long long

#define NULL 0

/* ---- function and variable qualifiers */
#define _GENX_MAIN_ __declspec(genx_main)
#define _GENX_ __declspec(genx)
#define _GENX_STACKCALL_ __declspec(genx_stackcall)
#define _GENX_VOLATILE_ __declspec(genx_volatile)
#define _GENX_VOLATILE_BINDING_(x) __declspec(genx_volatile(x))
#define _GENX_FLOAT_CONTROL_(x) __declspec(cm_float_control(x))
#define _GENX_ROUNDING_MODE_(x) __declspec(cm_float_control(x))
#define _SIMT8_ __declspec(genx_SIMT(8))
#define _SIMT16_ __declspec(genx_SIMT(16))
#define _SIMT32_ __declspec(genx_SIMT(32))
#define _CM_BUILTIN_ __declspec(cm_builtin)
#define _CM_CALLABLE_ __declspec(cm_callable)
#define _CM_ENTRY_ __declspec(cm_entry)
#define _CM_INPUT_ __declspec(cm_input)
#define _CM_OUTPUT_ __declspec(cm_output)
#define _CM_INPUT_OUTPUT_ __declspec(cm_input_output)
/* Intel's headers spell these with GNU attributes; inlining and debug
 * information are cmetal's own choice, so they ask for nothing here. */
#define CM_INLINE inline
#define CM_NOINLINE
#define CM_NODEBUG

/* ---- saturation */
#define SAT _GENX_SAT

/* ---- SIMD control flow (the compiler recognizes __cm_simdcf_any) */
#define SIMD_IF_BEGIN(c) if (__cm_simdcf_any(c)) {
#define SIMD_ELSEIF(c) } else if (__cm_simdcf_any(c)) {
#define SIMD_ELSE } else {
#define SIMD_IF_END }
#define SIMD_DO_WHILE_BEGIN do {
#define SIMD_DO_WHILE_END(c) } while (__cm_simdcf_any(c))
#define SIMD_BREAK break
#define SIMD_CONTINUE continue

/* ---- buffer attributes: each expands to two arguments */
#define DWALIGNED(s) s, GENX_DWALIGNED
#define MODIFIED(s) s, GENX_MODIFIED
#define TOP_FIELD(s) s, GENX_TOP_FIELD
#define BOTTOM_FIELD(s) s, GENX_BOTTOM_FIELD
#define MODIFIED_DWALIGNED(s) s, GENX_MODIFIED_DWALIGNED
#define CONSTANT(s) s, GENX_CONSTANT
#define CONSTANT_DWALIGNED(s) s, GENX_CONSTANT_DWALIGNED

/* ---- misc */
#define CM_OPTIMIZATIONS_FENCE

#endif
