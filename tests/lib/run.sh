#!/bin/sh
# The libraries as users link them: the shared library's SONAME and
# symlinks, and symbol hygiene: both libraries export only the API of
# include/cmetal.h, so a program may define names the library uses inside
# (xmalloc, intern, ...).  Prints "ok lib/NAME" or "FAIL lib/NAME".
BUILD=${1:-build}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
B=$ROOT/$BUILD
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# libcmetal.so -> libcmetal.so.MAJOR -> libcmetal.so.MAJOR.MINOR.PATCH,
# and the SONAME is libcmetal.so.MAJOR
h=$ROOT/include/cmetal.h
v=$(sed -n 's/^#define CMETAL_VERSION_STRING "\(.*\)"$/\1/p' "$h")
major=${v%%.*}
so=$(readelf -d "$B/libcmetal.so.$v" 2>/dev/null | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
if [ "$so" = "libcmetal.so.$major" ] && [ "$(readlink "$B/libcmetal.so")" = "libcmetal.so.$major" ] &&
   [ "$(readlink "$B/libcmetal.so.$major")" = "libcmetal.so.$v" ]; then
	echo "ok lib/soname"
else
	echo "FAIL lib/soname: SONAME '$so', libcmetal.so -> '$(readlink "$B/libcmetal.so")'," \
	     "libcmetal.so.$major -> '$(readlink "$B/libcmetal.so.$major")' (version $v)"
fi

# the exported names: only cmetal_* (the API) in either library
for lib in libcmetal.a libcmetal.so; do
	if [ $lib = libcmetal.so ]; then nm -D --defined-only "$B/$lib"; else nm -g --defined-only "$B/$lib"; fi |
		awk 'NF == 3 { print $3 }' | grep -v '^cmetal_' >"$T/extra"
	if [ -s "$T/extra" ]; then
		echo "FAIL lib/exports_$lib: names outside the API are exported:"
		head -n 10 "$T/extra" | sed 's/^/    /'
	else
		echo "ok lib/exports_$lib"
	fi
done

# a program with its own xmalloc, intern, arena_new and diag_state runs a
# kernel through the library, linked statically and dynamically
cat >"$T/user.c" <<'CEOF'
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmetal.h"

/* the user's names, which the library also uses inside */
int xmalloc_calls;
void *xmalloc(size_t n) { xmalloc_calls++; return malloc(n); }
const char *intern(const char *s) { return s; }
int arena_new = 7;
int diag_state;

static const char *src =
	"extern \"C\" _GENX_MAIN_ void twice(SurfaceIndex buf) {\n"
	"  vector<int, 8> v; read(buf, 0, v); v *= 2; write(buf, 0, v);\n"
	"}\n";

int main(void)
{
	cmetal_device *dev;
	cmetal_program *prog;
	cmetal_kernel *k;
	cmetal_buffer *buf;
	int data[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	char *p = xmalloc(4);
	if (cmetal_device_open("cpu", &dev) || cmetal_program_build(dev, src, "", &prog) ||
	    cmetal_kernel_create(prog, "twice", &k) ||
	    cmetal_buffer_create(dev, sizeof data, &buf) ||
	    cmetal_buffer_write(buf, 0, sizeof data, data) ||
	    cmetal_kernel_set_arg_buffer(k, 0, buf) ||
	    cmetal_launch_groups(k, (uint32_t[3]){1, 1, 1}, (uint32_t[3]){1, 1, 1}, NULL) ||
	    cmetal_buffer_read(buf, 0, sizeof data, data)) {
		printf("error: %s\n", cmetal_last_error());
		return 1;
	}
	for (int i = 0; i < 8; i++)
		if (data[i] != 2 * (i + 1)) {
			printf("element %d is %d\n", i, data[i]);
			return 1;
		}
	free(p);
	/* the library did not call the program's xmalloc, nor the reverse */
	printf("%s %d %d %s\n", intern("ran"), xmalloc_calls, arena_new, cmetal_version(0, 0, 0));
	return 0;
}
CEOF
case $BUILD in *asan*) SAN="-fsanitize=address,undefined" ;; *tsan*) SAN="-fsanitize=thread" ;; *) SAN= ;; esac
want="ran 1 7 $v"
for how in static shared; do
	if [ $how = static ]; then lib="$B/libcmetal.a"; else lib="-L$B -lcmetal -Wl,-rpath,$B"; fi
	if ! ${CC:-cc} -std=c11 -O1 $SAN -I"$ROOT/include" -o "$T/user_$how" "$T/user.c" $lib \
		-lpthread -ldl -lm >"$T/err" 2>&1; then
		echo "FAIL lib/user_names_$how: does not link"; head -n 20 "$T/err" | sed 's/^/    /'
		continue
	fi
	got=$(cd "$T" && CMETAL_CACHE_DIR="$T/cache" "./user_$how" 2>&1)
	if [ "$got" = "$want" ]; then
		echo "ok lib/user_names_$how"
	else
		echo "FAIL lib/user_names_$how: printed '$got', expected '$want'"
	fi
done
exit 0
