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
# CI budget: the multi-node cluster files run natively (and cluster.tcl
# and cluster-slot-lost.tcl here): the bus's binary messages, big-endian
# and aligned, are encoded and decoded here by the C unit tests
# (test_clusterbus, test_fuzz_clusterbus), and cluster-bus.tcl's elections
# and failovers are timing, not byte order (100 s of the lane). One
# node of ours does join a cluster of native Redis 7.0.15 nodes here,
# big-endian beside little-endian, in cluster-emulated.tcl (62 s, MEET,
# gossip, PUBLISH and FAIL both ways).
# redis-cli-cluster.tcl (our tool, emulated, on Redis clusters) runs on
# s390x, big-endian too (80 s here).
# defrag.tcl runs on armv6 (70 s here): moving blocks is memcpy and
# pointer updates, the same on every port. Measured 2026-11-30, sparc64's
# lane was the stage's longest.
# replication.tcl and replication-rdbpipe.tcl run on armv6 (32-bit offsets,
# alignment traps; 153 s and 33 s here, measured 2026-12-01): the stream
# they check is text and RDB, whose big-endian encoding and decoding the
# data files check here and on s390x, and an RDB read from a socket runs
# here in replication-diskless-load.tcl.
PORT_RUNTEST_FLAGS := --skip-file integration/cluster-replicas --skip-file integration/redis-cli-cluster \
    --skip-file integration/cluster-bus --skip-file unit/defrag \
    --skip-file integration/replication --skip-file integration/replication-rdbpipe
