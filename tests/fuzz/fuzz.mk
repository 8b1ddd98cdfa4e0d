# tests/fuzz/fuzz.mk -- coverage-guided fuzzing (included by the Makefile).
#
#   make fuzz                        build the harnesses with clang's libFuzzer
#                                    (native only) into build/fuzz/fuzz_<name>
#   make fuzz-run FUZZ_SECONDS=60    run each for N seconds, 2 at a time; ends
#                                    with "N passed, N failed"
#   make test-unit                   also replays every corpus and regression
#                                    input through each harness (any PORT)
#
# Two builds of one harness file (tests/fuzz/fuzz.h says why):
# - The fuzzing build compiles the libraries, the server and Lua again with
#   clang, -fsanitize=fuzzer-no-link,address,undefined and the system
#   allocator (ASan must see every allocation), in build/fuzz/, apart from
#   every other build so nothing instrumented leaks into them.
# - The replay build links the harness with tests/fuzz/replay.c and the
#   port's own objects into $(BUILD)/tests/test_fuzz_<name>: a C unit test
#   like the others, so run-unit.sh runs it natively and under QEMU.
# Server-level harnesses link the server's objects minus server.o: the
#   harness's fuzz_server.c includes src/server.c with main() renamed, which
#   gives it the static initialisers main() calls (no product change).

FUZZ_LIB_HARNESSES := blobs shmring clusterbus
FUZZ_LUA_HARNESSES := lua
FUZZ_SERVER_HARNESSES := resp restore rdb aof config
# A harness that includes a server source file (to reach its static
# functions) links without that file's object.
FUZZ_OMIT_config := config.o
FUZZ_HARNESSES := $(FUZZ_LIB_HARNESSES) $(FUZZ_LUA_HARNESSES) $(FUZZ_SERVER_HARNESSES)
FUZZ_SECONDS ?= 60
FUZZ_JOBS ?= 2

# ---- the replay build (every port) ---------------------------------------------
FUZZ_RBUILD := $(BUILD)/tests/fuzz
FUZZ_REPLAY_BINS := $(FUZZ_HARNESSES:%=$(BUILD)/tests/test_fuzz_%)
FUZZ_REPLAY_MAIN := $(FUZZ_RBUILD)/replay.o
FUZZ_RCFLAGS := -Itests/fuzz -DFUZZ_DIR='"$(CURDIR)/tests/fuzz"'

$(FUZZ_RBUILD)/%.o: tests/fuzz/%.c | $(BUILD)/.tools-ok $(MALLOC_DEP) $(LUA_DEP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(FUZZ_RCFLAGS) -c $< -o $@

$(FUZZ_LIB_HARNESSES:%=$(BUILD)/tests/test_fuzz_%): $(BUILD)/tests/test_fuzz_%: $(FUZZ_RBUILD)/%.o $(FUZZ_REPLAY_MAIN) $(LIBREDIS) $(MALLOC_DEP)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(FUZZ_REPLAY_MAIN) $(LIBREDIS) $(LIBS)

$(FUZZ_LUA_HARNESSES:%=$(BUILD)/tests/test_fuzz_%): $(BUILD)/tests/test_fuzz_%: $(FUZZ_RBUILD)/%.o $(FUZZ_REPLAY_MAIN) $(LUA_LIB_OBJS) $(LIBREDIS) $(MALLOC_DEP) $(LUA_DEP)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(FUZZ_REPLAY_MAIN) $(LUA_LIB_OBJS) $(LIBREDIS) $(SERVER_LIBS)

$(FUZZ_SERVER_HARNESSES:%=$(BUILD)/tests/test_fuzz_%): $(BUILD)/tests/test_fuzz_%: $(FUZZ_RBUILD)/%.o $(FUZZ_REPLAY_MAIN) $(FUZZ_RBUILD)/fuzz_server.o $(SERVER_OBJS) $(LIBREDIS) $(MALLOC_DEP) $(LUA_DEP)
	$(CC) $(ALL_LDFLAGS) -o $@ $< $(FUZZ_REPLAY_MAIN) $(FUZZ_RBUILD)/fuzz_server.o \
	  $(filter-out $(FUZZ_OMIT_$*:%=$(BUILD)/obj/%),$(SERVER_OBJS)) $(LIBREDIS) $(SERVER_LIBS)

test-unit: $(FUZZ_REPLAY_BINS)

-include $(wildcard $(FUZZ_RBUILD)/*.d)

# ---- the fuzzing build (native, clang) ---------------------------------------------
FUZZ_BUILD := build/fuzz
FUZZ_CC ?= clang
# UBSan findings abort (libFuzzer then keeps the input); Lua itself gets
# coverage and ASan but not UBSan (Lua 5.1 is not ours to fix).
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS := $(STD) -O1 -g $(WARN) -fno-math-errno -fsanitize=fuzzer-no-link $(FUZZ_SAN) -MMD -MP
FUZZ_LUA_DIR := $(FUZZ_BUILD)/lua
FUZZ_LUA := $(FUZZ_LUA_DIR)/lib/liblua.a
FUZZ_LIB_OBJS := $(LIB_SRCS:%.c=$(FUZZ_BUILD)/lib/%.o)
FUZZ_SERVER_OBJS := $(SERVER_SRCS:%.c=$(FUZZ_BUILD)/obj/%.o)
FUZZ_LIBREDIS := $(FUZZ_BUILD)/libredis.a
FUZZ_LUA_OBJS := $(FUZZ_BUILD)/obj/lua_struct.o $(FUZZ_BUILD)/obj/lua_cmsgpack.o $(FUZZ_BUILD)/obj/lua_bit.o
FUZZ_BINS := $(FUZZ_HARNESSES:%=$(FUZZ_BUILD)/fuzz_%)
FUZZ_LINK := $(FUZZ_CC) -fsanitize=fuzzer $(FUZZ_SAN)
FUZZ_SYSLIBS := -lm -pthread

.PHONY: fuzz fuzz-run
fuzz:
ifneq ($(PORT),native)
	$(error make fuzz is native only (libFuzzer runs on this machine))
endif
	@utils/need-tools.sh clang:clang :libclang-rt-14-dev
	@$(MAKE) --no-print-directory $(FUZZ_BINS)

fuzz-run: fuzz
	@utils/fuzz-run.sh $(FUZZ_BUILD) $(FUZZ_SECONDS) $(FUZZ_JOBS) $(FUZZ_HARNESSES)

$(FUZZ_LUA): deps/lua/build.sh deps/common.sh deps/lua/lua.sha256 $(wildcard deps/lua/patches/*.patch)
	@deps/lua/build.sh $(FUZZ_LUA_DIR) "$(FUZZ_CC) -fsanitize=fuzzer-no-link,address" ""

$(FUZZ_BUILD)/lib/%.o: src/lib/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Isrc/lib -c $< -o $@

$(FUZZ_BUILD)/obj/%.o: src/%.c | $(FUZZ_LUA)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Isrc -Isrc/lib -I$(FUZZ_LUA_DIR)/include -c $< -o $@

$(FUZZ_BUILD)/h/%.o: tests/fuzz/%.c | $(FUZZ_LUA)
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -Itests/fuzz -Isrc -Isrc/lib -I$(FUZZ_LUA_DIR)/include -c $< -o $@

$(FUZZ_LIBREDIS): $(FUZZ_LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(FUZZ_LIB_HARNESSES:%=$(FUZZ_BUILD)/fuzz_%): $(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/h/%.o $(FUZZ_LIBREDIS)
	$(FUZZ_LINK) -o $@ $< $(FUZZ_LIBREDIS) $(FUZZ_SYSLIBS)

$(FUZZ_LUA_HARNESSES:%=$(FUZZ_BUILD)/fuzz_%): $(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/h/%.o $(FUZZ_LUA_OBJS) $(FUZZ_LIBREDIS) $(FUZZ_LUA)
	$(FUZZ_LINK) -o $@ $< $(FUZZ_LUA_OBJS) $(FUZZ_LIBREDIS) $(FUZZ_LUA) $(FUZZ_SYSLIBS)

$(FUZZ_SERVER_HARNESSES:%=$(FUZZ_BUILD)/fuzz_%): $(FUZZ_BUILD)/fuzz_%: $(FUZZ_BUILD)/h/%.o $(FUZZ_BUILD)/h/fuzz_server.o $(FUZZ_SERVER_OBJS) $(FUZZ_LIBREDIS) $(FUZZ_LUA)
	$(FUZZ_LINK) -o $@ $< $(FUZZ_BUILD)/h/fuzz_server.o $(filter-out $(FUZZ_OMIT_$*:%=$(FUZZ_BUILD)/obj/%),$(FUZZ_SERVER_OBJS)) \
	  $(FUZZ_LIBREDIS) $(FUZZ_LUA) $(FUZZ_SYSLIBS)

-include $(wildcard $(FUZZ_BUILD)/lib/*.d $(FUZZ_BUILD)/obj/*.d $(FUZZ_BUILD)/h/*.d)
