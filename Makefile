# cmetal — plain Makefile with explicit source lists, one fragment per layer.
#   make              build/cmetal, build/libcmetal.a, build/libcmetal.so
#   make test         every test; prints "N passed, N failed"
#   make test-asan    the same suite with ASan and UBSan (build-asan/)
CC      ?= cc
BUILD   ?= build
OPT     ?= -O2
CFLAGS  ?= $(OPT) -g
# Flags the build needs whatever CFLAGS the caller gives (make CFLAGS=...).
XCFLAGS := -std=c11 -D_GNU_SOURCE -fvisibility=hidden -Wall -Wextra -Wno-unused-parameter \
           -Wno-missing-field-initializers -fPIC -Iinclude -Isrc -Itools -MMD -MP
LDLIBS  += -lpthread -ldl -lm
LD      ?= ld
OBJCOPY ?= objcopy

UTIL_SRC :=
FRONT_SRC :=
GEN_OBJ :=
IR_SRC :=
OPT_SRC :=
TARGET_SRC :=
RT_SRC :=
include src/util/sources.mk
include src/front/sources.mk
include src/ir/sources.mk
include src/opt/sources.mk
include src/target/sources.mk
include src/rt/sources.mk

LIB_SRC := $(UTIL_SRC) $(FRONT_SRC) $(IR_SRC) $(OPT_SRC) $(TARGET_SRC) $(RT_SRC)
LIB_OBJ := $(LIB_SRC:%.c=$(BUILD)/%.o) $(GEN_OBJ)
TOOL_OBJ := $(BUILD)/tools/cmetal.o $(BUILD)/tools/driver.o

# The version is include/cmetal.h's; the shared library's SONAME carries the
# major version: libcmetal.so -> libcmetal.so.0 -> libcmetal.so.0.1.0.
vpart = $(shell sed -n 's/^\#define CMETAL_VERSION_$(1) *\([0-9]*\)$$/\1/p' include/cmetal.h)
VERSION := $(call vpart,MAJOR).$(call vpart,MINOR).$(call vpart,PATCH)
SOMAJOR := $(call vpart,MAJOR)
SONAME  := libcmetal.so.$(SOMAJOR)

all: $(BUILD)/cmetal $(BUILD)/libcmetal.a $(BUILD)/libcmetal.so $(BUILD)/libcmetal-internal.a

$(BUILD)/gen/cm_headers.c: $(CM_HEADERS) tools/embed.sh
	@mkdir -p $(dir $@)
	sh tools/embed.sh cm_builtin_header front/front.h include/ "" $(CM_HEADERS) > $@

$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(XCFLAGS) -c $< -o $@

$(BUILD)/gen/%.o: $(BUILD)/gen/%.c
	$(CC) $(CFLAGS) $(XCFLAGS) -c $< -o $@

# libcmetal.a holds one object whose only global symbols are the API of
# include/cmetal.h: the objects are linked into one (ld -r) and every hidden
# symbol (all but the API: the sources are built with -fvisibility=hidden)
# made local, so the library's internal names (xmalloc, intern, ...) cannot
# collide with a program's.  The tools and the tests that call internal
# functions link libcmetal-internal.a, the plain archive of the objects.
$(BUILD)/libcmetal.a: $(LIB_OBJ)
	@rm -f $@ $(BUILD)/cmetal-lib.o
	$(LD) -r -o $(BUILD)/cmetal-lib.o $^
	$(OBJCOPY) --localize-hidden $(BUILD)/cmetal-lib.o
	ar rcs $@ $(BUILD)/cmetal-lib.o
	@rm -f $(BUILD)/cmetal-lib.o

$(BUILD)/libcmetal-internal.a: $(LIB_OBJ)
	@rm -f $@
	ar rcs $@ $^

$(BUILD)/libcmetal.so.$(VERSION): $(LIB_OBJ)
	$(CC) -shared -Wl,-soname,$(SONAME) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/libcmetal.so: $(BUILD)/libcmetal.so.$(VERSION)
	ln -sf libcmetal.so.$(VERSION) $(BUILD)/$(SONAME)
	ln -sf $(SONAME) $@

$(BUILD)/cmetal: $(TOOL_OBJ) $(BUILD)/libcmetal-internal.a
	$(CC) $(LDFLAGS) -o $@ $(TOOL_OBJ) $(BUILD)/libcmetal-internal.a $(LDLIBS)

test: all
	@tests/run.sh $(BUILD)

ASAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
test-asan:
	$(MAKE) BUILD=build-asan CC=clang CFLAGS="$(ASAN_FLAGS)" LDFLAGS="-fsanitize=address,undefined" all
	@ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1 tests/run.sh build-asan

clean:
	rm -rf build build-asan

.PHONY: all test test-asan clean
-include $(LIB_OBJ:.o=.d) $(TOOL_OBJ:.o=.d)

# Front-end fuzzing (see docs/testing.md).
FUZZ_FLAGS := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
FUZZ_OBJ = $(patsubst %.c,build-fuzz/%.o,$(UTIL_SRC) $(FRONT_SRC)) build-fuzz/gen/cm_headers.o
fuzz:
	$(MAKE) BUILD=build-fuzz CC=clang CFLAGS="$(FUZZ_FLAGS)" $(FUZZ_OBJ)
	clang -O1 -g -fsanitize=fuzzer,address,undefined -Iinclude -Isrc tests/fuzz/fuzz_front.c $(FUZZ_OBJ) -lpthread -ldl -lm -o build-fuzz/fuzz_front

# Compile-speed benchmark: checks a generated 5,000-line CM file.
bench-compile: all
	@$(CC) -O2 -std=c11 -D_GNU_SOURCE -Iinclude -Isrc tools/bench_compile.c $(BUILD)/libcmetal-internal.a -lpthread -ldl -lm -o $(BUILD)/bench_compile
	@$(BUILD)/bench_compile $(BUILD)/cmetal

.PHONY: fuzz bench-compile

# Benchmarks (bench/README.md): bench/run.sh with DEVICE=cpu|gpu WORKLOAD=...
# SIZE=small|full; bench-gpu runs bench/gpu.sh on the GPU machine into OUT.
bench:
	bench/run.sh DEVICE=$(or $(DEVICE),cpu) WORKLOAD=$(or $(WORKLOAD),all) SIZE=$(or $(SIZE),small)
bench-gpu:
	bench/gpu.sh $(or $(OUT),bench/runs) all $(or $(SIZE),full)
.PHONY: bench bench-gpu

# The five-minute example (examples/vadd.c): builds a CM kernel from source,
# runs it on the default device "auto" (the GPU when present, else the CPU),
# checks it against C and prints the time.
demo: all
	$(CC) -O2 -std=c11 -D_GNU_SOURCE -Iinclude examples/vadd.c $(BUILD)/libcmetal.a $(LDLIBS) -o $(BUILD)/vadd
	$(BUILD)/vadd auto

# CPU back end vs C (examples/bench_cpu.c): saxpy over 64 MB arrays, CM on
# the cmetal CPU device against the loop at -O3 -march=native, both on all
# cores; then the time to build an unchanged program again (cache hit).
bench-cpu: all
	$(CC) -O3 -march=native -std=c11 -D_GNU_SOURCE -Iinclude examples/bench_cpu.c $(BUILD)/libcmetal.a $(LDLIBS) -o $(BUILD)/bench_cpu
	$(BUILD)/bench_cpu

.PHONY: demo bench-cpu
