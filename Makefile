# Makefile -- builds the server, its libraries and their tests, natively or
# for a port described in ports/<name>/port.mk.
#
#   make                         native build; binaries also copied to src/
#   make run                     build, then start src/redis-server redis.conf
#   make test                    everything a change must pass on this host
#   make test-unit               C unit tests (+ alignment canary)
#   make PORT=armv7 test-unit    cross-build and run the unit tests under QEMU
#   make test-cross              unit tests of every cross port, one table
#   make powercut                power-cut crash states of the data files (utils/powercut)
#   make bench-gate              instructions per request against utils/bench-baseline.txt (+3% fails)
#   make deb PORT=armv7          Debian package build/deb/armv7/redis-portable_<version>_armhf.deb
#                                (armv6: armel; aarch64: arm64; native: this machine's)
#   make MALLOC=libc|jemalloc  SANITIZER=address|undefined|alignment|address+undefined
#   make ALIGNED_ACCESS=yes      force the strict-alignment code paths
#   make BUILD_TLS=yes|no        TLS (OpenSSL); default: yes where the port's compiler finds it
#   make fuzz-run FUZZ_SECONDS=60  libFuzzer harnesses, native clang (tests/fuzz/fuzz.mk)
#
# Design: each (port, allocator, sanitizer, alignment) combination builds in
# its own directory under build/, so variants coexist and switching between
# them never needs a clean. jemalloc and Lua depend only on the port, so they
# are built once per port under build/deps-<port>/ and shared by that port's
# variants (and kept by `make clean`). The server's link adds a linker script
# fragment, src/scripting.ld, that gives the scripting code and constants
# segments of their own (a server that runs no script does not page them
# in), and writes the linker map next to the binary (redis-server.map).

PORT ?= native
PORTS_ALL := $(sort $(notdir $(patsubst %/port.mk,%,$(wildcard ports/*/port.mk))))
CROSS_PORTS ?= armv6 armv7 sparc64 aarch64 s390x i386

ifeq ($(wildcard ports/$(PORT)/port.mk),)
$(error unknown PORT '$(PORT)'; ports: $(PORTS_ALL))
endif
# LINK=dynamic links a cross port against the target's shared glibc instead
# of statically (the Debian packages, `make deb`: NSS modules such as
# libnss-mdns then work). A port.mk may choose another toolchain for it
# (armv6 DEB_ARCH=armhf: Raspberry Pi OS's armhf ABI); PORT_DEPS_TAG then
# keeps its jemalloc and Lua, and its build folder, apart from the others'.
LINK ?= static
ifneq ($(filter-out static dynamic,$(LINK)),)
$(error LINK must be static or dynamic)
endif
PORT_DEPS_TAG :=
include ports/$(PORT)/port.mk
ifeq ($(LINK),dynamic)
override PORT_LDFLAGS := $(filter-out -static,$(PORT_LDFLAGS)) $(PORT_DYNAMIC_LDFLAGS)
endif

MALLOC ?= jemalloc
SANITIZER ?=
ALIGNED_ACCESS ?= no
OPTIMIZATION ?= -O2

ifneq ($(filter address address+undefined,$(SANITIZER)),)
# ASan must see every allocation, and it cannot see jemalloc's.
override MALLOC := libc
endif
ifneq ($(SANITIZER),)
ifneq ($(PORT),native)
$(error SANITIZER is supported only for PORT=native (cross builds are static))
endif
endif

# ---- where things go ---------------------------------------------------------
VARIANT := $(if $(and $(filter dynamic,$(LINK)),$(filter-out native,$(PORT))),-dynamic)$(if $(filter libc,$(MALLOC)),-libc)$(if $(SANITIZER),-$(SANITIZER))$(if $(filter yes,$(ALIGNED_ACCESS)),-aligned)$(if $(filter 0,$(HAVE_FORK)),-nofork)
# BUILD_TAG=-name gives a private build directory (build/native-name): several
# people or tools building one tree at once don't race on the same objects.
# A tagged native build is not copied to src/redis-server.
BUILD_TAG ?=
BUILD := build/$(PORT)$(PORT_DEPS_TAG)$(VARIANT)$(BUILD_TAG)
DEPS_DIR := build/deps-$(PORT)$(PORT_DEPS_TAG)
JEMALLOC_DIR := $(DEPS_DIR)/jemalloc

# ---- flags -----------------------------------------------------------------
CC := $(if $(PORT_CC),$(PORT_CC),$(PORT_CROSS)gcc)
AR := $(PORT_CROSS)ar
WARN := -Wall -Wextra -Wmissing-prototypes -Wshadow
STD := -std=gnu11

SAN_FLAGS_address := -fsanitize=address -fno-omit-frame-pointer
SAN_FLAGS_undefined := -fsanitize=undefined -fno-sanitize-recover=all
SAN_FLAGS_alignment := -fsanitize=alignment -fno-sanitize-recover=alignment
# Both in one build (CI: one instrumented build instead of two).
SAN_FLAGS_address+undefined := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all
ifneq ($(SANITIZER),)
ifeq ($(SAN_FLAGS_$(SANITIZER)),)
$(error SANITIZER must be one of: address undefined alignment address+undefined)
endif
endif
SAN_FLAGS := $(SAN_FLAGS_$(SANITIZER))

ifeq ($(MALLOC),jemalloc)
MALLOC_CFLAGS := -DUSE_JEMALLOC -I$(JEMALLOC_DIR)/include
MALLOC_LIBS := $(JEMALLOC_DIR)/lib/libjemalloc.a
MALLOC_DEP := $(JEMALLOC_DIR)/lib/libjemalloc.a
else ifeq ($(MALLOC),libc)
MALLOC_CFLAGS :=
MALLOC_LIBS :=
MALLOC_DEP :=
else
$(error MALLOC must be jemalloc or libc)
endif

ALIGN_CFLAGS := $(if $(filter yes,$(ALIGNED_ACCESS)),-DUSE_ALIGNED_ACCESS)

# Lua (scripting): the interpreter and the libraries scripts see. Server
# code is compiled with LUA_CFLAGS and linked with LUA_LIBS; the tools are
# not. By default both name the pinned Lua 5.1.5 + lua-cjson that
# deps/lua/build.sh builds per port (deps/lua/README.md); overriding them
# on the command line (another build of the same Lua) skips that build.
LUA_DIR := $(DEPS_DIR)/lua
LUA_CFLAGS ?= -I$(LUA_DIR)/include
LUA_LIBS ?= $(LUA_DIR)/lib/liblua.a
LUA_DEP := $(filter $(LUA_DIR)/lib/liblua.a,$(LUA_LIBS))

# TLS (OpenSSL, src/tls.c and src/tools/rclient_tls.c): BUILD_TLS=yes|no.
# The default is what the port's own compiler can build and link: a program
# calling SSL_new() against -lssl -lcrypto with the port's flags. So the
# native port gets TLS where libssl-dev is installed, and a cross or static
# port only where an OpenSSL for that target is (musl-gcc and the cross
# compilers don't see the host's). A build asked for with BUILD_TLS=yes that
# cannot have it stops here and names the package. A build against the
# probe's default gets its own build directory (-tlsyes / -tlsno), so the
# objects of both kinds never mix.
TLS_PROBE_SRC := '\#include <openssl/ssl.h>\nint main(void) { return SSL_new(0) != 0; }'
TLS_FOUND := $(shell printf $(TLS_PROBE_SRC) | $(CC) $(PORT_CFLAGS) -x c - -o /dev/null $(PORT_LDFLAGS) \
               -lssl -lcrypto $(PORT_LIBS) -pthread >/dev/null 2>&1 && echo yes || echo no)
BUILD_TLS ?= $(TLS_FOUND)
ifeq ($(BUILD_TLS),yes)
ifneq ($(TLS_FOUND),yes)
$(error BUILD_TLS=yes, but $(CC) cannot build against OpenSSL: install libssl-dev (sudo apt-get install libssl-dev; a cross port needs the target's, e.g. libssl-dev:armel), or build with BUILD_TLS=no)
endif
TLS_CFLAGS := -DUSE_OPENSSL
TLS_LIBS := -lssl -lcrypto
# A dynamically linked server loads OpenSSL itself when TLS is first
# configured (src/tls.c, TLS_RUNTIME_LOAD): not linked, a server without
# TLS does not pay libcrypto's ~1.7 MB of start-up RSS. A static build
# links it. The tools always link it.
ifeq ($(filter -static,$(PORT_LDFLAGS)),)
TLS_CFLAGS += -DTLS_RUNTIME_LOAD
SERVER_TLS_LIBS := -ldl
else
SERVER_TLS_LIBS := $(TLS_LIBS)
endif
else ifeq ($(BUILD_TLS),no)
TLS_CFLAGS :=
TLS_LIBS :=
SERVER_TLS_LIBS :=
else
$(error BUILD_TLS must be yes or no)
endif
TLS_VARIANT := $(if $(filter-out $(TLS_FOUND),$(BUILD_TLS)),-tls$(BUILD_TLS))
BUILD := $(BUILD)$(TLS_VARIANT)

# -fno-math-errno: nothing reads errno after a math function, and sqrt()
# then becomes one instruction instead of a libm call.
# The library layer (src/lib/) is compiled with its own folder as the only
# include path, so a library that includes a server header (server.h ...)
# fails to build: the layering is a build rule, not a convention. Server
# code, the tools and the tests see both folders.
BASE_CFLAGS := $(STD) $(OPTIMIZATION) -g $(WARN) -fno-math-errno $(PORT_CFLAGS) $(SAN_FLAGS) $(ALIGN_CFLAGS) \
               $(MALLOC_CFLAGS) $(if $(filter 0,$(HAVE_FORK)),-DHAVE_FORK=0) -MMD -MP
LIB_CFLAGS := $(BASE_CFLAGS) -Isrc/lib $(CFLAGS)
ALL_CFLAGS := $(BASE_CFLAGS) -Isrc -Isrc/lib $(LUA_CFLAGS) $(TLS_CFLAGS) $(CFLAGS)
ALL_LDFLAGS := $(PORT_CFLAGS) $(SAN_FLAGS) $(PORT_LDFLAGS) $(LDFLAGS)
# libm only where something still needs it (soft-float sqrt): the glibc
# build references none of it, and a shared libm costs ~300 KB of RSS.
# A dynamically linked glibc server maps libm when a math function is first
# called (src/lazy_libm.c): ~320 KB less RSS at start-up without scripts or
# GEO. Static builds link -lm (only the functions used are copied in).
LAZY_LIBM_PROBE_SRC := '\#include <gnu/lib-names.h>\nconst char *m = LIBM_SO;\n'
LAZY_LIBM_FOUND := $(if $(filter -static,$(PORT_LDFLAGS)),no,$(shell printf $(LAZY_LIBM_PROBE_SRC) | \
                     $(CC) $(PORT_CFLAGS) -x c -c - -o /dev/null >/dev/null 2>&1 && echo yes || echo no))
ifeq ($(LAZY_LIBM_FOUND),yes)
ALL_CFLAGS += -DLAZY_LIBM
endif
BASE_LIBS := $(MALLOC_LIBS) -Wl,--as-needed -lm -Wl,--no-as-needed -pthread $(PORT_LIBS)
LIBS := $(TLS_LIBS) $(BASE_LIBS)
# Modules (src/module.c) are shared objects the server dlopen()s: a
# dynamically linked server links -ldl; a static one cannot load them and
# is built knowing it (MODULES_STATIC_BUILD: every load fails, saying why).
ifeq ($(filter -static,$(PORT_LDFLAGS)),)
MODULE_LIBS := -ldl
else
MODULE_LIBS :=
ALL_CFLAGS += -DMODULES_STATIC_BUILD
endif
SERVER_LIBS := $(LUA_LIBS) $(SERVER_TLS_LIBS) $(MODULE_LIBS) $(BASE_LIBS)

# ---- sources ------------------------------------------------------------------
# Libraries (src/lib/): no server knowledge, each with its own unit tests,
# linked into the server, the tools and the test programs. The event-loop
# backends (ae_*.c) are #included by ae.c, not compiled on their own.
# Everything in src/ itself (bar the programs' mains) is the server.
LIB_SRCS := $(filter-out ae_%.c,$(notdir $(wildcard src/lib/*.c)))
MAIN_SRCS := server.c
SERVER_SRCS := $(filter-out $(MAIN_SRCS),$(notdir $(wildcard src/*.c)))
LIB_OBJS := $(LIB_SRCS:%.c=$(BUILD)/lib/%.o)
SERVER_OBJS := $(SERVER_SRCS:%.c=$(BUILD)/obj/%.o)
LIBREDIS := $(BUILD)/libredis.a
SERVER := $(BUILD)/redis-server
TEST_SRCS := $(wildcard tests/c/test_*.c)
TEST_BINS := $(TEST_SRCS:tests/c/%.c=$(BUILD)/tests/%)
CANARY := $(BUILD)/tests/canary
TEST_CFLAGS := -Itests/c -DTEST_VECTORS_DIR='"$(CURDIR)/tests/c/vectors"'

# The client programs live in src/tools/, out of the server's src/*.c: the
# client library (rclient*.c) is linked into redis-cli, redis-benchmark and
# the unit tests. Wildcards, so files can be added without editing this. A
# program whose main file does not exist yet is simply not built.
RCLIENT_SRCS := $(wildcard src/tools/rclient*.c)
CLI_SRCS := $(wildcard src/tools/redis-cli.c src/tools/cli_*.c src/tools/lineedit*.c)
BENCHMARK_SRCS := $(wildcard src/tools/redis-benchmark.c src/tools/bench_*.c)
RCLIENT_OBJS := $(RCLIENT_SRCS:src/%.c=$(BUILD)/obj/%.o)
CLI_OBJS := $(CLI_SRCS:src/%.c=$(BUILD)/obj/%.o)
BENCHMARK_OBJS := $(BENCHMARK_SRCS:src/%.c=$(BUILD)/obj/%.o)
RCLIENT_LIB := $(BUILD)/librclient.a
REDIS_CLI := $(BUILD)/redis-cli
REDIS_BENCHMARK := $(BUILD)/redis-benchmark
REDIS_CHECK_AOF := $(BUILD)/redis-check-aof
TOOL_BINS := $(if $(wildcard src/tools/redis-cli.c),$(REDIS_CLI)) \
             $(if $(wildcard src/tools/redis-benchmark.c),$(REDIS_BENCHMARK)) \
             $(if $(wildcard src/tools/redis-check-aof.c),$(REDIS_CHECK_AOF))
TOOL_BINS := $(strip $(TOOL_BINS))
# redis-check-rdb is the server under another name (main() dispatches on
# argv[0]), so it is a symbolic link to redis-server wherever the server is:
# the build directory, src/ for native builds, the stripped staging and the
# installation.
CHECK_RDB := redis-check-rdb

.PHONY: deb test-deb build-dir all install install-debug uninstall run test test-unit test-integration test-cross test-pagesize test-forkless test-shm test-powercut-toys powercut bench bench-gate build-bench clean distclean tools help
.DEFAULT_GOAL := all
.SECONDARY:

all: $(SERVER) $(TOOL_BINS)
	@ln -sfn redis-server $(BUILD)/$(CHECK_RDB)
ifeq ($(PORT)$(BUILD_TAG),native)
	@cp $(SERVER) src/redis-server.tmp && mv -f src/redis-server.tmp src/redis-server
	@ln -sfn redis-server src/$(CHECK_RDB)
	@for t in $(TOOL_BINS); do cp $$t src/$$(basename $$t).tmp && mv -f src/$$(basename $$t).tmp src/$$(basename $$t); done
	@echo "built src/redis-server src/$(CHECK_RDB) $(TOOL_BINS:$(BUILD)/%=src/%) ($(BUILD), $(MALLOC), TLS: $(BUILD_TLS))"
else
	@echo "built $(SERVER) $(BUILD)/$(CHECK_RDB) $(TOOL_BINS) ($(PORT_DESC), $(MALLOC), TLS: $(BUILD_TLS))"
endif

# ---- tools -------------------------------------------------------------------
# Missing compilers or emulators are installed with apt-get when running as
# root; otherwise the build stops and names the package to install.
$(BUILD)/.tools-ok:
	@utils/need-tools.sh $(PORT_TOOLS)
	@mkdir -p $(@D) && touch $@

# ---- compile and link ------------------------------------------------------------
$(BUILD)/lib/%.o: src/lib/%.c | $(BUILD)/.tools-ok $(MALLOC_DEP)
	@mkdir -p $(@D)
	$(CC) $(LIB_CFLAGS) -c $< -o $@

# Server objects may include the Lua headers, so Lua is built first; the
# tools' objects (the more specific pattern below) never wait for it.
$(BUILD)/obj/%.o: src/%.c | $(BUILD)/.tools-ok $(MALLOC_DEP) $(LUA_DEP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(BUILD)/obj/tools/%.o: src/tools/%.c | $(BUILD)/.tools-ok $(MALLOC_DEP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

$(LIBREDIS): $(LIB_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

# The server's link adds src/scripting.ld: the scripting code and constants
# (Lua, cjson, the lua_* libraries, the eval/function/script glue) go to
# segments of their own after the server's, so a server that runs no script
# does not page them in (the file says why and how). It also writes the
# linker map next to the binary (redis-server.map: which object is where),
# from which utils/rss-by-object.py tells what of a running server is
# resident. The map costs the link ~0.1 s and 3 MB of disk.
SERVER_LAYOUT_LDFLAGS = -Wl,-T,src/scripting.ld -Wl,-Map=$@.map

$(SERVER): $(BUILD)/obj/server.o $(SERVER_OBJS) $(LIBREDIS) $(MALLOC_DEP) $(LUA_DEP) src/scripting.ld
	$(CC) $(ALL_LDFLAGS) $(SERVER_LAYOUT_LDFLAGS) -o $@ $(BUILD)/obj/server.o $(SERVER_OBJS) $(LIBREDIS) $(SERVER_LIBS)

$(BUILD)/tests/%.o: tests/c/%.c | $(BUILD)/.tools-ok $(MALLOC_DEP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(TEST_CFLAGS) -c $< -o $@

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(LIBREDIS) $(MALLOC_DEP)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(LIBREDIS) $(LIBS)

$(JEMALLOC_DIR)/lib/libjemalloc.a: deps/jemalloc/build.sh deps/common.sh | $(BUILD)/.tools-ok
	@deps/jemalloc/build.sh $(JEMALLOC_DIR) "$(CC) $(PORT_CFLAGS)" "$(PORT_JEMALLOC_HOST)" $(PORT_LG_PAGE)

# The port's compiler and flags; HOST only names the archiver (HOST-ar).
$(LUA_DIR)/lib/liblua.a: deps/lua/build.sh deps/common.sh deps/lua/lua.sha256 $(wildcard deps/lua/patches/*.patch) | $(BUILD)/.tools-ok
	@deps/lua/build.sh $(LUA_DIR) "$(CC) $(PORT_CFLAGS)" "$(PORT_JEMALLOC_HOST)"

-include $(wildcard $(BUILD)/lib/*.d $(BUILD)/obj/*.d $(BUILD)/obj/tools/*.d $(BUILD)/tests/*.d)

# ---- client programs: redis-cli, redis-benchmark --------------------------------
# (objects come from the $(BUILD)/obj/%.o rule: obj/tools/x.o <- src/tools/x.c)
# redis-cli links no server object: cli_help.c compiles its own table of
# names, groups, summaries and hints from src/commands.def.
$(RCLIENT_LIB): $(RCLIENT_OBJS)
	@rm -f $@
	$(AR) rcs $@ $^

$(REDIS_CLI): $(CLI_OBJS) $(RCLIENT_LIB) $(LIBREDIS) $(MALLOC_DEP)
	$(CC) $(ALL_LDFLAGS) -o $@ $(CLI_OBJS) $(RCLIENT_LIB) $(LIBREDIS) $(LIBS)

$(REDIS_BENCHMARK): $(BENCHMARK_OBJS) $(RCLIENT_LIB) $(LIBREDIS) $(MALLOC_DEP)
	$(CC) $(ALL_LDFLAGS) -o $@ $(BENCHMARK_OBJS) $(RCLIENT_LIB) $(LIBREDIS) $(LIBS)

# redis-check-aof stands alone: it must work on files the server refuses.
$(REDIS_CHECK_AOF): $(BUILD)/obj/tools/redis-check-aof.o
	$(CC) $(ALL_LDFLAGS) -o $@ $<

# The client library's unit test links it too, and the benchmark's latency
# histogram, which it also tests (a rule for this one program takes
# precedence over the generic $(BUILD)/tests/% rule).
$(BUILD)/tests/test_rclient: $(BUILD)/tests/test_rclient.o $(BUILD)/obj/tools/bench_hist.o $(BUILD)/obj/tools/bench_cluster.o $(RCLIENT_LIB) $(LIBREDIS) $(MALLOC_DEP)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(BUILD)/obj/tools/bench_hist.o $(BUILD)/obj/tools/bench_cluster.o $(RCLIENT_LIB) $(LIBREDIS) $(LIBS)

-include $(wildcard $(BUILD)/obj/tools/*.d)

# The script libraries' unit test is the one test program that links Lua:
# the libraries' server objects and the Lua archive (a rule for this program
# takes precedence over the generic $(BUILD)/tests/% rule).
LUA_LIB_OBJS := $(BUILD)/obj/lua_struct.o $(BUILD)/obj/lua_cmsgpack.o $(BUILD)/obj/lua_bit.o
$(BUILD)/tests/test_lua_libs.o: | $(LUA_DEP)
$(BUILD)/tests/test_lua_libs: $(BUILD)/tests/test_lua_libs.o $(LUA_LIB_OBJS) $(LIBREDIS) $(MALLOC_DEP) $(LUA_DEP)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(LUA_LIB_OBJS) $(LIBREDIS) $(SERVER_LIBS)

# ---- running and testing -----------------------------------------------------------
run: all
	./src/redis-server redis.conf $(ARGS)

test-unit: $(TEST_BINS) $(CANARY)
	@PORT=$(PORT) QEMU="$(PORT_QEMU)" TRAPS=$(PORT_TRAPS) SANITIZER=$(SANITIZER) \
	  TIME_FACTOR=$(PORT_TIME_FACTOR) tests/c/run-unit.sh $(BUILD)

test-pagesize: all
	@tests/c/pagesize-check.sh $(SERVER) --check-system

# The integration suite runs the server under the port's emulator (tclsh
# and the test clients stay native), with every time limit scaled by the
# port's time factor.
# A port whose checks another port already makes (PORT_INTEGRATION := data
# in its port.mk) runs only the files that store, load, send, hash or
# format multi-byte values and numbers, and the port's PORT_DATA_EXTRA.
# Not integration/replication: what its stream carries (RDB, commands) the
# rdb, aof and loading files check, and its protocol (64-bit offsets, the
# backlog ring) runs on armv6 (32-bit) and sparc64 (big-endian, strict
# alignment) with the whole suite; it was the longest data file, 110-145 s
# of each data port's run under QEMU (measured 2026-11-30).
INTEGRATION_DATA_FILES := integration/rdb integration/rdb-legacy integration/aof integration/loading \
    integration/check-rdb integration/functions-interop unit/dump unit/debug \
    unit/bitops unit/hyperloglog unit/scripting unit/functions unit/scan unit/migrate unit/type/encodings \
    unit/type/geo unit/type/hash unit/type/incrbyfloat unit/type/list unit/type/set unit/type/stream \
    unit/type/stream-cgroups unit/type/string unit/type/zset
PORT_INTEGRATION ?= all
# RUNTEST_BASEPORT: the servers' first port; utils/test-cross.sh gives each
# of the ports it runs at once its own (./runtest --baseport).
RUNTEST_BASEPORT ?= 21000
RUNTEST := ./runtest --server $(SERVER) --clients 2 --time-factor $(PORT_TIME_FACTOR) --baseport $(RUNTEST_BASEPORT) \
           $(if $(PORT_QEMU),--wrapper "$(PORT_QEMU)") $(PORT_RUNTEST_FLAGS) \
           $(if $(filter data,$(PORT_INTEGRATION)),$(INTEGRATION_DATA_FILES:%=--single %) $(PORT_DATA_EXTRA:%=--single %))

ifeq ($(PORT),native)
test: all
	@utils/need-tools.sh tclsh:tcl
	@utils/run-suites.sh "unit tests" "$(MAKE) --no-print-directory test-unit" \
	  "page sizes" "$(MAKE) --no-print-directory test-pagesize" \
	  "source rules" "utils/check-casts.sh" \
	  "source names and comments" "utils/check-source-names.sh" \
	  "config documented" "utils/check-config-doc.sh" \
	  "make install" "tests/install-check.sh" \
	  "power-cut checker toys" "$(MAKE) --no-print-directory test-powercut-toys" \
	  "integration (./runtest)" '$(RUNTEST)'
else
# A cross port: the same C unit tests and integration suite under QEMU. (The
# page-size shim and the source checks are host-side and run natively.)
# PORT_INTEGRATION := none (i386 under QEMU) runs the unit tests only, and
# builds only what they link: not the server and the tools (about a
# minute of the CI lane it shares; armv6 and armv7 build and run both as
# 32-bit programs).
test: $(if $(filter none,$(PORT_INTEGRATION)),,all)
	@utils/need-tools.sh tclsh:tcl
	@utils/run-suites.sh "unit tests ($(PORT))" "$(MAKE) --no-print-directory test-unit" \
	  $(if $(filter none,$(PORT_INTEGRATION)),,"integration ($(PORT))" '$(RUNTEST)')
endif

test-integration: all
	@utils/need-tools.sh tclsh:tcl
	$(RUNTEST)

# `+`: the script's own `make PORT=...` calls get this make's jobserver
# (without it each port built at -j1 whatever -j was asked: the first half
# of every port's time in CI).
test-cross:
	+@utils/test-cross.sh $(CROSS_PORTS)

# Persistence without fork(): the server runs under utils/no-fork-launcher
# (a seccomp filter: fork, vfork, clone without CLONE_THREAD fail) with
# persistence-mode forkless (REDIS_TEST_FORKLESS, tests/helpers/server.tcl);
# blocks tagged `fork` (fork-child.tcl: a child's log lines, copy-on-write)
# are skipped. replication.tcl: full syncs from a forkless snapshot, both
# ways with Debian's Redis (which runs without the launcher).
# `make HAVE_FORK=0 test-forkless` runs the same on a build without fork().
FORKLESS_FILES ?= integration/forkless integration/rdb integration/aof integration/aof-propagation \
                  integration/loading integration/fork-child integration/replication
$(BUILD)/no-fork-launcher: utils/no-fork-launcher.c
	@mkdir -p $(@D)
	$(CC) $(STD) -O2 $(WARN) $(PORT_CFLAGS) -o $@ $< $(PORT_LDFLAGS)

test-forkless: all $(BUILD)/no-fork-launcher
	@utils/need-tools.sh tclsh:tcl
	REDIS_TEST_FORKLESS=1 ./runtest --server $(SERVER) --wrapper "$(CURDIR)/$(BUILD)/no-fork-launcher $(PORT_QEMU)" \
	  --time-factor $(PORT_TIME_FACTOR) --tags -fork $(FORKLESS_FILES:%=--single %)

# The command suite through the shared-memory transport: every server of
# these files also gets a unix socket and every test client speaks to it
# through the rings (./runtest --shm, relayed by utils/shm-example.c).
# Left out: files about client addresses and CLIENT LIST/KILL/NO-EVICT
# fields (client, client-eviction, reset), auth before the upgrade (acl,
# auth), and the connection being closed by the server (protocol errors,
# QUIT: the relay and Tcl see the close late).
SHM_FILES ?= unit/type/string unit/type/incrbyfloat unit/type/hash unit/type/set unit/type/zset \
	     unit/type/list unit/type/list-blocking unit/type/stream unit/type/stream-cgroups unit/type/geo \
	     unit/multi unit/expire unit/scripting unit/functions unit/keyspace unit/bitops \
	     unit/hyperloglog unit/sort unit/scan unit/notify unit/dump unit/pubsub unit/tracking \
	     unit/type/encodings unit/info unit/latency unit/memory unit/slowlog unit/maxmemory \
	     unit/replybuf unit/argpool unit/commands unit/command-keyspecs unit/scripting-apps
test-shm: all
	@utils/need-tools.sh tclsh:tcl cc:gcc
	./runtest --shm --server $(SERVER) --wrapper "$(PORT_QEMU)" --time-factor $(PORT_TIME_FACTOR) \
	  $(SHM_FILES:%=--single %)

# The power-cut checker (utils/powercut/README.md): an LD_PRELOAD shim
# records every file operation of a server in its data directory; the
# states a power cut may leave are drawn from the record and the server is
# started on each. The shim is a host library (it is loaded into native
# servers only: ours, and Debian's Redis for comparison), built with the
# host compiler whatever the PORT. `make test` validates the checker on toy
# writers (seconds); `make powercut` runs the workloads on our server within
# a fixed budget (POWERCUT_FLAGS: --cuts, --states, --seed, --workloads;
# --strict: a refused start fails too; POWERCUT_SERVERS adds e.g.
# /usr/bin/redis-server to compare).
POWERCUT_SHIM := build/powercut-shim.so
POWERCUT_SERVERS ?= $(SERVER)
POWERCUT_FLAGS ?= --cuts 48 --states 4 --strict
$(POWERCUT_SHIM): utils/powercut/shim.c
	@mkdir -p $(@D)
	gcc $(STD) -O2 $(WARN) -fPIC -shared -o $@ $< -ldl

test-powercut-toys: $(POWERCUT_SHIM)
	@utils/need-tools.sh python3:python3
	python3 utils/powercut/powercut.py toys --shim $(POWERCUT_SHIM)

powercut: all $(POWERCUT_SHIM)
	@utils/need-tools.sh python3:python3
	python3 utils/powercut/powercut.py run --shim $(POWERCUT_SHIM) $(POWERCUT_SERVERS:%=--server %) $(POWERCUT_FLAGS)

bench: build-bench
	$(PORT_QEMU) $(BUILD)/tests/bench_core

# Instructions per request of the native server under callgrind against the
# committed counts (utils/bench-instructions.sh --gate; issue #39): a change
# that makes any workload more than 3% dearer fails, with the table.
# `utils/bench-instructions.sh --write-baseline` records new counts.
bench-gate: all
	utils/bench-instructions.sh --gate --ours $(BUILD)/redis-server

build-bench: $(BUILD)/tests/bench_core

$(BUILD)/tests/bench_core: $(BUILD)/tests/bench_core.o $(LIBREDIS) $(MALLOC_DEP)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(LIBREDIS) $(LIBS)
$(BUILD)/tests/bench_core.o: utils/bench_core.c | $(BUILD)/.tools-ok $(MALLOC_DEP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c $< -o $@

# make install [PREFIX=/usr/local] [SYSCONFDIR=/etc] [DESTDIR=staging] [PORT=armv7]:
# the programs of the selected build, stripped (the server is ~12 MB with
# symbols, ~2.2-2.6 MB without, README.md: it matters on an SD card), the README the unit's
# Documentation= names, the systemd unit, a logrotate file, and redis.conf
# unless one is already there (a changed config is never overwritten).
# Everything but the programs is named after INSTALL_NAME, not "redis": the
# unit redis-portable.service, /etc/redis-portable/redis.conf,
# /var/lib/redis-portable ..., so Debian's redis-server package (its unit,
# /etc/redis, /var/lib/redis) can stay installed and running on the same
# board. The programs keep Redis's names in $(PREFIX)/bin, as tools expect.
# make install-debug puts the symbols next to them in /usr/lib/debug, where
# gdb finds them through the binaries' debug links. The unit's paths
# (ExecStart=, ExecPaths=, Documentation=, the config directory) follow
# PREFIX and SYSCONFDIR. Installing into the live system (no DESTDIR)
# refuses, before writing anything, to overwrite a file a Debian package
# owns (utils/install-guard.sh): PREFIX=/usr would replace Debian's
# redis-server and redis-cli.
PREFIX ?= /usr/local
SYSCONFDIR ?= /etc
INSTALL_NAME := redis-portable
OBJCOPY := $(PORT_CROSS)objcopy
INSTALL_BIN := $(DESTDIR)$(PREFIX)/bin
INSTALL_DOC := $(DESTDIR)$(PREFIX)/share/doc/$(INSTALL_NAME)
INSTALL_UNIT := $(DESTDIR)$(PREFIX)/lib/systemd/system
INSTALL_CONF := $(DESTDIR)$(SYSCONFDIR)/$(INSTALL_NAME)
INSTALL_LOGROTATE := $(DESTDIR)$(SYSCONFDIR)/logrotate.d
INSTALL_DEBUG := $(DESTDIR)/usr/lib/debug$(PREFIX)/bin
PROGRAMS := $(SERVER) $(TOOL_BINS)
STRIPPED := $(PROGRAMS:$(BUILD)/%=$(BUILD)/stripped/%)

# A stripped copy that names its symbol file (<program>.debug) by a debug link.
$(BUILD)/stripped/%: $(BUILD)/%
	@mkdir -p $(@D)
	$(OBJCOPY) --only-keep-debug $< $@.debug
	$(OBJCOPY) --strip-all --add-gnu-debuglink=$@.debug $< $@

# Every path this writes, without DESTDIR: what utils/install-guard.sh
# checks against the dpkg database when installing into the live system.
INSTALL_PATHS := $(foreach p,$(PROGRAMS) $(CHECK_RDB),$(PREFIX)/bin/$(notdir $(p))) \
    $(PREFIX)/share/doc/$(INSTALL_NAME)/README.md $(PREFIX)/lib/systemd/system/$(INSTALL_NAME).service \
    $(SYSCONFDIR)/logrotate.d/$(INSTALL_NAME) $(SYSCONFDIR)/$(INSTALL_NAME)/redis.conf

install: all $(STRIPPED)
	$(if $(DESTDIR),,@DPKG_ADMINDIR=$(DPKG_ADMINDIR) utils/install-guard.sh $(INSTALL_PATHS))
	ln -sfn redis-server $(BUILD)/stripped/$(CHECK_RDB)
	install -d $(INSTALL_BIN) $(INSTALL_DOC) $(INSTALL_UNIT) $(INSTALL_CONF) $(INSTALL_LOGROTATE)
	$(foreach p,$(STRIPPED),install -m 755 $(p) $(INSTALL_BIN)/$(notdir $(p));)
	ln -sfn redis-server $(INSTALL_BIN)/$(CHECK_RDB)
	install -m 644 README.md $(INSTALL_DOC)/README.md
	sed -e 's|/usr/local/|$(PREFIX)/|g' -e 's|/etc/$(INSTALL_NAME)|$(SYSCONFDIR)/$(INSTALL_NAME)|g' \
	  utils/$(INSTALL_NAME).service >$(INSTALL_UNIT)/$(INSTALL_NAME).service
	chmod 644 $(INSTALL_UNIT)/$(INSTALL_NAME).service
	install -m 644 utils/$(INSTALL_NAME).logrotate $(INSTALL_LOGROTATE)/$(INSTALL_NAME)
	@if [ -e $(INSTALL_CONF)/redis.conf ]; then \
	  echo "kept $(INSTALL_CONF)/redis.conf (exists); the shipped one is redis.conf in the source tree"; \
	elif getent group $(INSTALL_NAME) >/dev/null 2>&1; then \
	  install -m 660 -g $(INSTALL_NAME) redis.conf $(INSTALL_CONF)/redis.conf && chgrp $(INSTALL_NAME) $(INSTALL_CONF) && chmod 2770 $(INSTALL_CONF); \
	else \
	  install -m 644 redis.conf $(INSTALL_CONF)/redis.conf; \
	  echo "no '$(INSTALL_NAME)' group here: $(INSTALL_CONF) stays root's; for CONFIG REWRITE under the unit: chgrp -R $(INSTALL_NAME) $(INSTALL_CONF) && chmod 2770 $(INSTALL_CONF) && chmod 660 $(INSTALL_CONF)/redis.conf"; \
	fi

install-debug: $(STRIPPED)
	install -d $(INSTALL_DEBUG)
	$(foreach p,$(STRIPPED),install -m 644 $(p).debug $(INSTALL_DEBUG)/$(notdir $(p)).debug;)

uninstall:
	rm -f $(foreach p,$(PROGRAMS),$(INSTALL_BIN)/$(notdir $(p)) $(INSTALL_DEBUG)/$(notdir $(p)).debug)
	rm -f $(INSTALL_BIN)/$(CHECK_RDB)
	rm -f $(INSTALL_DOC)/README.md $(INSTALL_UNIT)/$(INSTALL_NAME).service $(INSTALL_LOGROTATE)/$(INSTALL_NAME)
	@echo "kept $(INSTALL_CONF)/redis.conf (remove it by hand if it is no longer wanted)"

clean:
	rm -rf $(BUILD) src/redis-server src/redis-cli src/redis-benchmark src/redis-check-aof src/redis-check-rdb

distclean:
	rm -rf build src/redis-server src/redis-cli src/redis-benchmark src/redis-check-aof src/redis-check-rdb

help:
	@sed -n '4,19p' Makefile

# The build folder of these settings (debian/rules asks it).
build-dir:
	@echo $(BUILD)

# make deb PORT=native|armv6|armv7|aarch64 [DEB_VERSION=x.y.z]: the Debian
# package redis-portable_<version>_<arch>.deb in build/deb/<port>/, built by
# dpkg-buildpackage with debian/ (utils/build-deb.sh says how; the
# programs are linked dynamically, LINK=dynamic). The architecture is the
# port's PORT_DEB_ARCH: armv7 armhf (Raspberry Pi OS), aarch64 arm64, native
# this machine's; armv6 armel (Debian on the Pi 1/Zero), or armhf with
# DEB_ARCH=armhf (Raspberry Pi OS; ports/armv6/port.mk). The armhf armv6
# package lands in build/deb/armv6-hf/. make test-deb: tests/deb-check.sh.
DEB_VERSION ?= $(shell sed -n 's/^\#define PROJECT_VERSION "\(.*\)"/\1/p' src/version.h)
deb:
ifneq ($(and $(DEB_ARCH),$(filter-out $(PORT_DEB_ARCH),$(DEB_ARCH))),)
	$(error make deb PORT=$(PORT): its package is $(PORT_DEB_ARCH); DEB_ARCH=$(DEB_ARCH) is for PORT=armv6 only)
endif
	@utils/need-tools.sh dpkg-buildpackage:dpkg-dev dh:debhelper fakeroot:fakeroot
	@utils/build-deb.sh "$(PORT)" "$(PORT_DEB_ARCH)" "$(DEB_VERSION)" "$(PORT_DEB_TAG)"

test-deb:
	@utils/need-tools.sh dpkg-buildpackage:dpkg-dev dh:debhelper fakeroot:fakeroot lintian:lintian \
	  qemu-arm-static:qemu-user-static arm-linux-gnueabihf-gcc:gcc-arm-linux-gnueabihf \
	  arm-linux-gnueabi-gcc:gcc-arm-linux-gnueabi
	@tests/deb-check.sh

# ---- fuzzing: make fuzz, make fuzz-run; the corpus replay joins test-unit --------
include tests/fuzz/fuzz.mk
