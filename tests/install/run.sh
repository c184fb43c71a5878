#!/bin/sh
# make install as users meet it: installs BUILD into a temporary prefix
# (and, staged with DESTDIR, into another), then builds examples/vadd.c
# against the installed tree with a Makefile that asks pkg-config and with
# a CMake project that uses find_package(cmetal) (shared and static
# imported targets, from the staged tree moved elsewhere: the CMake files
# are relocatable), and runs each on the CPU device.  Only the CMake case
# is skipped, with a message, where cmake is absent.  Prints "ok
# install/NAME" or "FAIL install/NAME".
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
case $BUILD in *asan*) SAN="-fsanitize=address,undefined" ;; *tsan*) SAN="-fsanitize=thread" ;; *) SAN= ;; esac
export CMETAL_CACHE_DIR="$T/cache"

# fail NAME WHY: reports a failure with the end of $T/log
fail() { echo "FAIL install/$1: $2"; [ -f "$T/log" ] && tail -n 20 "$T/log" | sed 's/^/    /'; }

P=$T/prefix
if ! make -C "$ROOT" -s install BUILD="$BUILD" PREFIX="$P" >"$T/log" 2>&1; then
	fail make_install "make install PREFIX=$P failed"
	exit 0
fi
v=$(sed -n 's/^#define CMETAL_VERSION_STRING "\(.*\)"$/\1/p' "$ROOT/include/cmetal.h")
missing=
for f in bin/cmetal include/cmetal.h include/cm/cm.h include/cm/cmtl.h lib/libcmetal.a \
	lib/libcmetal.so lib/libcmetal.so.${v%%.*} lib/libcmetal.so.$v lib/pkgconfig/cmetal.pc \
	lib/cmake/cmetal/cmetalConfig.cmake lib/cmake/cmetal/cmetalConfigVersion.cmake; do
	[ -e "$P/$f" ] || missing="$missing $f"
done
if [ -n "$missing" ]; then fail make_install "not installed:$missing"; else echo "ok install/make_install"; fi
if "$P/bin/cmetal" --version | grep -q "^cmetal version $v\$"; then
	echo "ok install/cmetal_runs"
else
	fail cmetal_runs "the installed cmetal does not say version $v"
fi

# a Makefile that asks pkg-config
mkdir -p "$T/mk"
cp "$ROOT/examples/vadd.c" "$T/mk/"
cat >"$T/mk/Makefile" <<'MK'
CFLAGS += -O2 $(shell pkg-config --cflags cmetal)
LDLIBS += $(shell pkg-config --libs cmetal)
vadd: vadd.c
MK
if ! PKG_CONFIG_PATH="$P/lib/pkgconfig" CFLAGS="$SAN" LDFLAGS="$SAN" make -C "$T/mk" >"$T/log" 2>&1; then
	fail pkg_config_make "the Makefile does not build vadd"
elif ! LD_LIBRARY_PATH="$P/lib" "$T/mk/vadd" cpu >"$T/log" 2>&1 || ! grep -q 'correct$' "$T/log"; then
	fail pkg_config_make "vadd built with pkg-config does not run correctly"
elif ! PKG_CONFIG_PATH="$P/lib/pkgconfig" pkg-config --modversion cmetal | grep -qx "$v"; then
	fail pkg_config_make "pkg-config --modversion is not $v"
else
	echo "ok install/pkg_config_make"
fi

# DESTDIR stages the tree; it is then moved, and CMake finds it there
if ! make -C "$ROOT" -s install BUILD="$BUILD" PREFIX=/opt/cmetal DESTDIR="$T/stage" >"$T/log" 2>&1 ||
   [ ! -f "$T/stage/opt/cmetal/lib/libcmetal.so.$v" ] ||
   ! grep -q '^prefix=/opt/cmetal$' "$T/stage/opt/cmetal/lib/pkgconfig/cmetal.pc"; then
	fail destdir "make install PREFIX=/opt/cmetal DESTDIR=... did not stage the tree"
	exit 0
fi
echo "ok install/destdir"
if ! command -v cmake >/dev/null 2>&1; then
	echo "ok install/cmake_find_package (skipped: cmake is not installed)"
	exit 0
fi
mv "$T/stage/opt/cmetal" "$T/moved"
mkdir -p "$T/cm"
cp "$ROOT/examples/vadd.c" "$T/cm/"
cat >"$T/cm/CMakeLists.txt" <<CM
cmake_minimum_required(VERSION 3.10)
project(vadd C)
find_package(cmetal $v REQUIRED)
add_executable(vadd vadd.c)
target_link_libraries(vadd PRIVATE cmetal::cmetal)
add_executable(vadd_static vadd.c)
target_link_libraries(vadd_static PRIVATE cmetal::cmetal_static)
if(NOT EXISTS "\${CMETAL_COMPILER}")
  message(FATAL_ERROR "CMETAL_COMPILER \${CMETAL_COMPILER} does not exist")
endif()
CM
if ! cmake -S "$T/cm" -B "$T/cm/b" -DCMAKE_PREFIX_PATH="$T/moved" \
	-DCMAKE_C_FLAGS="$SAN" -DCMAKE_EXE_LINKER_FLAGS="$SAN" >"$T/log" 2>&1 ||
   ! cmake --build "$T/cm/b" >"$T/log" 2>&1; then
	fail cmake_find_package "the CMake project does not build"
	exit 0
fi
for exe in vadd vadd_static; do
	if "$T/cm/b/$exe" cpu >"$T/log" 2>&1 && grep -q 'correct$' "$T/log"; then
		echo "ok install/cmake_find_package_$exe"
	else
		fail cmake_find_package_$exe "$exe built with CMake does not run correctly"
	fi
done
# a version this one cannot serve is refused
sed -i "s/find_package(cmetal $v REQUIRED)/find_package(cmetal 9.0 REQUIRED)/" "$T/cm/CMakeLists.txt"
if cmake -S "$T/cm" -B "$T/cm/b2" -DCMAKE_PREFIX_PATH="$T/moved" >"$T/log" 2>&1; then
	fail cmake_version_check "find_package(cmetal 9.0) accepted version $v"
else
	echo "ok install/cmake_version_check"
fi
exit 0
