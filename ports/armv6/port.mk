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
