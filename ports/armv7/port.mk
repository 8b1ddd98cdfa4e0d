# armv7 -- Raspberry Pi 2/3 running a 32-bit OS (Cortex-A7/A53), hard-float.
PORT_DESC        := Raspberry Pi 2/3 32-bit OS, Cortex-A7
PORT_CROSS       := arm-linux-gnueabihf-
# Unwind tables let the crash report print a stack trace on this target.
PORT_CFLAGS      := -march=armv7-a -mfpu=vfpv3-d16 -mfloat-abi=hard -funwind-tables
PORT_LDFLAGS     := -static
# LINK=dynamic (the Debian package): libgcc stays static (-static-libgcc),
# the rest comes from the target's shared glibc.
PORT_DYNAMIC_LDFLAGS := -static-libgcc
PORT_QEMU        := qemu-arm-static -cpu cortex-a7
PORT_JEMALLOC_HOST := arm-linux-gnueabihf
PORT_LG_PAGE     := 16
PORT_TRAPS       := yes
PORT_TIME_FACTOR := 4
PORT_TOOLS       := arm-linux-gnueabihf-gcc:gcc-arm-linux-gnueabihf qemu-arm-static:qemu-user-static
# The Debian architecture of its package (make deb).
PORT_DEB_ARCH    := armhf
# CI budget: the integration suite's data files only (the Makefile's
# INTEGRATION_DATA_FILES: what stores, loads, sends, hashes or formats
# multi-byte values and numbers), as aarch64, s390x and i386 run. The rest
# runs whole on armv6 -- the same 32-bit little-endian ARM, stricter about
# alignment -- and on sparc64; here it repeated armv6's run (825 s of the
# cross stage's lane, measured 2026-11-30, against about 470 s for a data
# port). The C unit tests run whole, as on every port; the hard-float ABI
# is exercised by them and by the data files' number formatting.
PORT_INTEGRATION := data
# Our redis-cli --cluster and redis-benchmark --cluster, emulated, driving
# clusters of native Redis 7.0.15 nodes (integration/redis-cli-cluster, its
# first pass: 75-85 s under QEMU, half of it hidden by --clients 2): the
# tool on a 32-bit port, as the cluster tooling issue asks; armv6 and
# sparc64 leave it out for their lanes' length.
PORT_DATA_EXTRA := integration/redis-cli-cluster
