#!/bin/sh
# cpu_build_times.sh — what a first build of each CM file costs on the CPU
# device: every .cm of tests/exec, tests/kernels and bench/cm is built with
# cmetal_program_build on the "cpu" device into an empty cache (CM -> C in
# process, then the C compiler), and the wall time of each build is printed,
# slowest last, with its CPU time (the build's and the C compiler's: what
# the wall time would be on an idle machine) and the lines of C it made.  Files the CPU device cannot
# build (front-end-only corpus entries) are listed as "no build".
#   usage: tools/cpu_build_times.sh [BUILD_DIR] [FILE.cm...]   (default: build, all)
BUILD=${1:-build}
[ $# -gt 0 ] && shift
cd "$(dirname "$0")/.." || exit 1
[ -f "$BUILD/libcmetal.a" ] || { echo "no $BUILD/libcmetal.a: run make first" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/t.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include "cmetal.h"
/* t FILE OPTIONS: builds FILE, prints the wall seconds (-1 on failure) and
 * the CPU seconds of the process and the C compiler. */
int main(int argc, char **argv)
{
	FILE *f = fopen(argv[1], "rb");
	if (!f)
		return 1;
	static char src[1 << 22];
	src[fread(src, 1, sizeof src - 1, f)] = 0;
	fclose(f);
	cmetal_device *dev;
	cmetal_program *p;
	if (cmetal_device_open("cpu", &dev))
		return 1;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	int rc = cmetal_program_build(dev, src, argv[2], &p);
	clock_gettime(CLOCK_MONOTONIC, &b);
	struct rusage self, kids;
	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &kids);
	double cpu = self.ru_utime.tv_sec + self.ru_stime.tv_sec + kids.ru_utime.tv_sec +
	             kids.ru_stime.tv_sec + (self.ru_utime.tv_usec + self.ru_stime.tv_usec +
	             kids.ru_utime.tv_usec + kids.ru_stime.tv_usec) * 1e-6;
	printf("%.2f %.2f\n", rc ? -1.0 : (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9,
	       cpu);
	return 0;
}
C
${CC:-cc} -O1 -Iinclude "$tmp/t.c" "$BUILD/libcmetal.a" -lpthread -ldl -lm -o "$tmp/t" || exit 1
# Options a file needs (the values bench/ and tests/ build it with).
options() {
	case $1 in
	*/atomics.cm) echo "-DOP=ATOMIC_ADD -DT=uint -DNSRC=1" ;;
	*/kmeans.cm) echo "-DK=64 -DD=16" ;;
	*) echo "" ;;
	esac
}
[ $# -gt 0 ] || set -- tests/exec/*.cm tests/kernels/*.cm bench/cm/*.cm
for f in "$@"; do
	rm -rf "$tmp/cache"
	s=$(CMETAL_CACHE_DIR="$tmp/cache" "$tmp/t" "$f" "$(options "$f")")
	case $s in
	-1.00*|"") echo "no build  $f" ;;
	*) printf '%6s s wall %6s s cpu %6s lines  %s\n' ${s% *} ${s#* } \
	          "$(cat "$tmp"/cache/*.c 2>/dev/null | wc -l)" "$f" ;;
	esac
done | sort -k1,1n
