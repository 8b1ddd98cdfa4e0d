# s390x -- IBM Z, big-endian 64-bit; unaligned access is legal, so this port
# checks byte order, not alignment.
PORT_DESC        := IBM Z, big-endian 64-bit
PORT_CROSS       := s390x-linux-gnu-
PORT_CFLAGS      :=
PORT_LDFLAGS     := -static
PORT_QEMU        := qemu-s390x-static
PORT_JEMALLOC_HOST := s390x-linux-gnu
PORT_LG_PAGE     := 16
PORT_TRAPS       := no
PORT_TIME_FACTOR := 4
PORT_TOOLS       := s390x-linux-gnu-gcc:gcc-s390x-linux-gnu qemu-s390x-static:qemu-user-static
# The integration suite runs its byte-order files only: sparc64, also
# big-endian and 64-bit, runs all of them and traps on unaligned access
# besides, so the rest would check nothing new here (CI's one-hour budget;
# `make PORT=s390x test PORT_RUNTEST_FLAGS=` runs every file). The C unit
# tests all run. These files store, load, send or hash multi-byte values:
PORT_RUNTEST_FLAGS := $(foreach f,integration/rdb integration/rdb-legacy integration/aof integration/loading \
    integration/check-rdb integration/replication integration/functions-interop unit/dump unit/debug \
    unit/bitops unit/hyperloglog unit/scripting unit/functions unit/scan unit/migrate unit/type/encodings \
    unit/type/geo unit/type/hash unit/type/incrbyfloat unit/type/list unit/type/set unit/type/stream \
    unit/type/stream-cgroups unit/type/string unit/type/zset,--single $(f))
