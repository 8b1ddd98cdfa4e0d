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
# CI budget: the multi-node cluster files (a cluster of emulated and native
# nodes; our redis-cli driving Redis clusters) run on armv6 (32-bit ARM,
# stricter) and sparc64 (big-endian); here they would repeat armv6's run.
PORT_RUNTEST_FLAGS := --skip-file integration/cluster-bus --skip-file integration/redis-cli-cluster
