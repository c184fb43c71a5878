#!/bin/sh
# Coverage of the kernel corpus.  Usage: coverage.sh (from the repository
# root).  Reads the .ast goldens of tests/kernels and tests/sema and checks
# that together they use
#   - every row of src/front/builtins.def except the rejected ones
#     (BF_UNSUP): each row is one form of a builtin, and the dump names it
#     as builtin=ID (__cm_simdcf_any is consumed by SIMD control flow and
#     shows as simd=N);
#   - every CM member of CM_MEMBERS in src/front/front.h (member=NAME),
#     except genx_select, which cmc and cmetal reject;
#   - every language construct of the list below, found in the kernel
#     sources (tests/kernels/*.cm) by a pattern.
# Prints "ok NAME" or "FAIL NAME" with what is missing.
dumps=$(ls tests/kernels/*.ast tests/sema/*.ast 2>/dev/null)
used=$(mktemp)
cat $dumps /dev/null | grep -o 'builtin=[A-Z0-9_]*\|member=[a-z_]*\|simd=' | sort -u >"$used"
tests/cover.sh tests/kernels/coverage "$used" ".ast golden"
rm -f "$used"

# construct|extended regular expression over the kernel sources
missing=$(while IFS='|' read -r what re; do
	[ -n "$what" ] || continue
	grep -Eq -- "$re" tests/kernels/*.cm || echo "$what"
done <<'EOF'
#include "..."|^#include "
#define function-like|^#define [A-Za-z_]+\(
#undef|^#undef
#ifdef / #ifndef|^#ifn?def
#if / #elif / #else|^#elif
stringizing #|#define .*[^#]#[a-z]
token pasting ##|##
#pragma unroll|#pragma unroll
function template, type parameter|template *<typename
function template, non-type parameter|template *<[^>]*(int|unsigned|uint) [A-Z]
explicit template arguments|[a-z_0-9]+<(float|int|uint|short|uchar|ushort), *[0-9]+>\(
.template member call|\.template (select|format|replicate|iselect)
vector_ref parameter|\(.*vector_ref<
matrix_ref parameter|\(.*matrix_ref<
scalar reference parameter|(int|uint|float) *& *[a-z_]+[,)]
const file-scope array|^const [a-z ]+[a-z_0-9]+\[
static file-scope array|^static const [a-z ]+[a-z_0-9]+\[
multi-dimensional array|^(static )?const [a-z ]+[a-z_0-9]+\[[^]]*\]\[
enum|^ *enum
enum class|enum class
struct|^ *struct
extern "C"|extern "C"
inline|inline
_GENX_MAIN_|_GENX_MAIN_
_GENX_ function|_GENX_ (inline )?[a-z]
_GENX_VOLATILE_|_GENX_VOLATILE_
[[type(...)]] attribute|\[\[type\("
auto|(^|[^a-z_])auto [a-z_]
constexpr|constexpr
sizeof|sizeof
C cast|\((float|int|uint|short|uchar|ushort|char)\) *[a-z_(]
static_cast|static_cast<
functional cast|(float|int|uint)\([a-z_]
goto|goto [a-z_]+;
switch|switch *\(
do-while|do *\{
ternary|\? .* : 
comma operator|for \(.*, .*;.*;.*, .*\)
% and %=|%=
shifts|<<=
>>=|>>=
^=|\^=
|=||=
&=|&=
!|![a-z_(]
~|~[a-z_(]
pre/post increment and decrement|(\+\+[a-z_]|[a-z_]--)
thread-private file-scope variable|^_GENX_ [a-z<>, 0-9]+ [a-z_0-9]+;
namespace|namespace
static_assert|static_assert
SIMD_IF / ELSE|SIMD_ELSE
SIMD_DO_WHILE|SIMD_DO_WHILE
_GENX_FLOAT_CONTROL_|_GENX_FLOAT_CONTROL_
EOF
)
if [ -z "$missing" ]; then
	echo "ok tests/kernels/coverage: constructs"
else
	echo "FAIL tests/kernels/coverage: constructs: no kernel source shows:"
	echo "$missing" | sed 's/^/    /'
fi
