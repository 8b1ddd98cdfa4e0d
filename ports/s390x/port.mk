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
# The integration suite runs its data files only (INTEGRATION_DATA_FILES
# in the Makefile): sparc64, also big-endian and 64-bit, runs every file and
# traps on unaligned access besides, so the rest would check nothing new
# here. The C unit tests all run. (CI's one-hour budget;
# `make PORT=s390x test PORT_INTEGRATION=all` runs every file.)
PORT_INTEGRATION := data
# Our redis-cli --cluster and redis-benchmark --cluster, emulated, driving
# clusters of native Redis 7.0.15 nodes (integration/redis-cli-cluster, its
# first pass: 75-85 s under QEMU, half of it hidden by --clients 2): the
# tool on a big-endian port, as the cluster tooling issue asks; armv6 and
# sparc64 leave it out for their lanes' length.
PORT_DATA_EXTRA := integration/redis-cli-cluster
