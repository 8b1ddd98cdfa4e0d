# sparc64 -- big-endian, 64-bit, traps on every unaligned access.
PORT_DESC        := SPARC64, big-endian, strict alignment
PORT_CROSS       := sparc64-linux-gnu-
# Unwind tables let the crash report print a stack trace on this target.
PORT_CFLAGS      := -fasynchronous-unwind-tables
PORT_LDFLAGS     := -static
PORT_QEMU        := qemu-sparc64-static
PORT_JEMALLOC_HOST := sparc64-linux-gnu
PORT_LG_PAGE     := 16
PORT_TRAPS       := yes
PORT_TIME_FACTOR := 6
PORT_TOOLS       := sparc64-linux-gnu-gcc:gcc-sparc64-linux-gnu qemu-sparc64-static:qemu-user-static
# CI budget: of the multi-node cluster files only cluster-bus.tcl runs here
# (the bus's binary messages, big-endian and aligned; 95 s). cluster-replicas
# (replica offsets and elections, 119 s) and redis-cli-cluster (the tool's
# cluster commands, 86 s) are logic the native run covers; measured
# 2026-11-30, sparc64's lane was the stage's longest.
PORT_RUNTEST_FLAGS := --skip-file integration/cluster-replicas --skip-file integration/redis-cli-cluster
