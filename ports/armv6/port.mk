# armv6 -- Raspberry Pi 1 / Zero (ARM1176JZF-S), 32-bit little-endian.
# Soft-float ABI toolchain (Debian armel libc) with VFP instructions enabled.
PORT_DESC        := Raspberry Pi 1/Zero, ARM1176, 32-bit
PORT_CROSS       := arm-linux-gnueabi-
# Unwind tables let the crash report print a stack trace on this target.
PORT_CFLAGS      := -march=armv6 -marm -mfpu=vfp -mfloat-abi=softfp -funwind-tables
PORT_LDFLAGS     := -static
# ARMv6 has no 64-bit atomic instructions: gcc calls libatomic for them
# (redis-benchmark --threads' shared counters).
PORT_LIBS        := -latomic
PORT_QEMU        := qemu-arm-static -cpu arm1176
PORT_JEMALLOC_HOST := arm-linux-gnueabi
PORT_LG_PAGE     := 16
PORT_TRAPS       := yes
PORT_TIME_FACTOR := 4
PORT_TOOLS       := arm-linux-gnueabi-gcc:gcc-arm-linux-gnueabi qemu-arm-static:qemu-user-static
# CI budget: the multi-node cluster files (clusters of emulated and native
# nodes, our redis-cli driving Redis clusters (that one runs on armv7); 306 s here, measured
# 2026-11-30) are left to sparc64 (cluster-bus.tcl: it traps on unaligned
# access as this port does, with 8-byte alignment besides, and is
# big-endian: the bus's binary messages are checked there) and to the
# native run; cluster-emulated.tcl (one emulated node among native Redis
# nodes) to sparc64, whose byte order differs from theirs. cluster.tcl and
# cluster-slot-lost.tcl (one node) still run here.
PORT_RUNTEST_FLAGS := --skip-file integration/cluster-bus --skip-file integration/redis-cli-cluster \
    --skip-file integration/cluster-replicas --skip-file integration/cluster-emulated
# LINK=dynamic (the Debian packages, `make deb PORT=armv6 [DEB_ARCH=...]`):
#  - armel, the default: Debian's own images for the Pi 1/Zero
#    (raspi.debian.net) are armel -- Debian's armhf needs ARMv7. The static
#    build's compiler and flags; the armel toolchain's start files and libgcc
#    are ARMv5TE, which the ARM1176 runs, so the whole program is ARMv6 and
#    make test-deb runs it under `qemu-arm -cpu arm1176` to prove it.
#  - DEB_ARCH=armhf: Raspberry Pi OS 32-bit, whose armhf is the hard-float
#    ABI built for ARMv6. The ARM1176's own architecture (ARMv6KZ: thread
#    pointer in CP15, no __aeabi_read_tp call), hard-float ABI, Debian's armhf
#    cross compiler; jemalloc and Lua are built apart (deps-armv6-hf); libgcc
#    is the target's shared one (Raspberry Pi OS builds it for ARMv6;
#    Debian's static libgcc.a here is ARMv7 Thumb-2 code). utils/build-deb.sh
#    checks that the result holds no ARMv7 code -- a cross build here always
#    does (Debian's armhf start files), so this variant is built on the Pi
#    (ports/raspberrypi/README.md).
DEB_ARCH ?= armel
ifeq ($(filter armel armhf,$(DEB_ARCH)),)
$(error PORT=armv6: DEB_ARCH must be armel (Debian on the Pi 1/Zero) or armhf (Raspberry Pi OS))
endif
ifeq ($(LINK)-$(DEB_ARCH),dynamic-armhf)
PORT_DESC        := Raspberry Pi 1/Zero, ARM1176, Raspberry Pi OS armhf
PORT_CROSS       := arm-linux-gnueabihf-
PORT_CFLAGS      := -march=armv6kz+fp -marm -mfpu=vfp -mfloat-abi=hard -mtp=cp15 -funwind-tables
PORT_LDFLAGS     := -shared-libgcc
PORT_JEMALLOC_HOST := arm-linux-gnueabihf
PORT_TOOLS       := arm-linux-gnueabihf-gcc:gcc-arm-linux-gnueabihf qemu-arm-static:qemu-user-static
PORT_DEPS_TAG    := -hf
endif
# The Debian architecture of its package (make deb): see LINK=dynamic above;
# the armhf one is made in build/deb/armv6-hf/, beside the armel one.
PORT_DEB_ARCH    := $(DEB_ARCH)
PORT_DEB_TAG     := $(if $(filter armhf,$(DEB_ARCH)),-hf)
