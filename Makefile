# cmetal — plain Makefile with explicit source lists, one fragment per layer.
#   make              build/cmetal, build/libcmetal.a, build/libcmetal.so
#   make test         every test; prints "N passed, N failed"
#   make test-asan    the same suite with ASan and UBSan (build-asan/)
#   make install      PREFIX=/usr/local [DESTDIR=...]
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
TOOL_OBJ := $(BUILD)/tools/cmetal.o $(BUILD)/tools/driver.o $(BUILD)/tools/build.o

# The version is include/cmetal.h's; the shared library's SONAME carries the
# major version: libcmetal.so -> libcmetal.so.0 -> libcmetal.so.0.1.0.
vpart = $(shell sed -n 's/^\#define CMETAL_VERSION_$(1) *\([0-9]*\)$$/\1/p' include/cmetal.h)
VERSION := $(call vpart,MAJOR).$(call vpart,MINOR).$(call vpart,PATCH)
SOMAJOR := $(call vpart,MAJOR)
SONAME  := libcmetal.so.$(SOMAJOR)

all: $(BUILD)/cmetal $(BUILD)/libcmetal.a $(BUILD)/libcmetal.so $(BUILD)/libcmetal-internal.a \
     docs/builtins.md

# The builtin reference is generated from the table (checked in; tests/docs
# fails when it is stale).
docs/builtins.md: src/front/builtins.def tools/gen_builtins_md.sh
	sh tools/gen_builtins_md.sh src/front/builtins.def > $@.tmp && mv $@.tmp $@

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

# make install PREFIX=/usr/local [DESTDIR=staging]: the compiler, the headers,
# both libraries (and the shared library's symlinks), a pkg-config file and a
# CMake package (cmetal::cmetal).  The CMake files find the tree relative to
# themselves; cmetal.pc names PREFIX.
PREFIX     ?= /usr/local
BINDIR     ?= $(PREFIX)/bin
LIBDIR     ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
CMAKEDIR   := $(LIBDIR)/cmake/cmetal
rel = $(shell realpath -m --relative-to=$(1) $(2))
INSTALL_SUBST = sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' \
	-e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' -e 's|@VERSION@|$(VERSION)|g' \
	-e 's|@MAJOR@|$(call vpart,MAJOR)|g' -e 's|@MINOR@|$(call vpart,MINOR)|g' \
	-e 's|@SOMAJOR@|$(SOMAJOR)|g' \
	-e 's|@PREFIX_FROM_CMAKEDIR@|$(call rel,$(CMAKEDIR),$(PREFIX))|g' \
	-e 's|@LIBDIR_REL@|$(call rel,$(PREFIX),$(LIBDIR))|g' \
	-e 's|@INCLUDEDIR_REL@|$(call rel,$(PREFIX),$(INCLUDEDIR))|g' \
	-e 's|@BINDIR_REL@|$(call rel,$(PREFIX),$(BINDIR))|g'
install: all
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(CMAKEDIR) \
		$(DESTDIR)$(INCLUDEDIR)/cm
	install -m 755 $(BUILD)/cmetal $(DESTDIR)$(BINDIR)/cmetal
	install -m 644 include/cmetal.h $(DESTDIR)$(INCLUDEDIR)/cmetal.h
	install -m 644 $(CM_HEADERS) $(DESTDIR)$(INCLUDEDIR)/cm/
	install -m 644 $(BUILD)/libcmetal.a $(DESTDIR)$(LIBDIR)/libcmetal.a
	install -m 755 $(BUILD)/libcmetal.so.$(VERSION) $(DESTDIR)$(LIBDIR)/libcmetal.so.$(VERSION)
	ln -sf libcmetal.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libcmetal.so
	$(INSTALL_SUBST) tools/install/cmetal.pc.in > $(DESTDIR)$(LIBDIR)/pkgconfig/cmetal.pc
	$(INSTALL_SUBST) tools/install/cmetalConfig.cmake.in > $(DESTDIR)$(CMAKEDIR)/cmetalConfig.cmake
	$(INSTALL_SUBST) tools/install/cmetalConfigVersion.cmake.in \
		> $(DESTDIR)$(CMAKEDIR)/cmetalConfigVersion.cmake

.PHONY: all test test-asan clean install
-include $(LIB_OBJ:.o=.d) $(TOOL_OBJ:.o=.d)

# Fuzzing (see docs/testing.md): fuzz_front (the front end) and fuzz_all
# (the whole compiler down to C and PTX text).
FUZZ_FLAGS := -O1 -g -fsanitize=fuzzer-no-link,address,undefined -fno-omit-frame-pointer
FUZZ_OBJ = $(patsubst %.c,build-fuzz/%.o,$(UTIL_SRC) $(FRONT_SRC)) build-fuzz/gen/cm_headers.o
FUZZ_ALL_OBJ = $(FUZZ_OBJ) $(patsubst %.c,build-fuzz/%.o,$(IR_SRC) $(OPT_SRC) $(TARGET_SRC)) \
               build-fuzz/gen/cmk_abi.o
fuzz:
	$(MAKE) BUILD=build-fuzz CC=clang CFLAGS="$(FUZZ_FLAGS)" $(FUZZ_ALL_OBJ)
	clang -O1 -g -fsanitize=fuzzer,address,undefined -Iinclude -Isrc tests/fuzz/fuzz_front.c $(FUZZ_OBJ) -lpthread -ldl -lm -o build-fuzz/fuzz_front
	clang -O1 -g -fsanitize=fuzzer,address,undefined -Iinclude -Isrc tests/fuzz/fuzz_all.c $(FUZZ_ALL_OBJ) -lpthread -ldl -lm -o build-fuzz/fuzz_all

# Compile-speed benchmark: checks a generated 5,000-line CM file.
bench-compile: all
	@$(CC) -O2 -std=c11 -D_GNU_SOURCE -Iinclude -Isrc tools/bench_compile.c $(BUILD)/libcmetal-internal.a -lpthread -ldl -lm -o $(BUILD)/bench_compile
	@$(BUILD)/bench_compile $(BUILD)/cmetal

.PHONY: fuzz bench-compile

# Benchmarks (bench/README.md): bench/run.sh with DEVICE=cpu|gpu WORKLOAD=...
# SIZE=small|full ROUNDS=n (CPU: rounds of the harnesses in turn, default 3);
# the results go to build/bench/ unless UPDATE=1, which
# rewrites the tracked bench/RESULTS.md, charts/*.png, results.csv and
# bench/runs/*.csv.  bench-gpu runs bench/gpu.sh on the GPU machine into OUT
# (default build/bench/runs, or bench/runs with UPDATE=1).
bench:
	bench/run.sh DEVICE=$(or $(DEVICE),cpu) WORKLOAD=$(or $(WORKLOAD),all) SIZE=$(or $(SIZE),small) UPDATE=$(UPDATE) ROUNDS=$(or $(ROUNDS),3)
bench-gpu:
	bench/gpu.sh $(or $(OUT),$(if $(filter 1,$(UPDATE)),bench/runs,build/bench/runs)) all $(or $(SIZE),full)
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
