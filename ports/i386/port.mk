# i386 -- 32-bit x86: size_t and long are 32 bits, catching overflow bugs on a
# fast path. Debian's gcc-multilib conflicts with the other cross compilers,
# so this uses the i686 cross toolchain; the static binary runs directly.
PORT_DESC        := 32-bit x86
PORT_CROSS       := i686-linux-gnu-
PORT_CFLAGS      :=
PORT_LDFLAGS     := -static
# Native where the kernel runs 32-bit x86 programs; under qemu-i386-static
# where it was built without IA32 emulation (utils/i386-exec-probe.sh),
# with the emulated ports' time factor then.
PORT_QEMU        := $(shell utils/i386-exec-probe.sh)
PORT_JEMALLOC_HOST := i686-linux-gnu
PORT_LG_PAGE     := 16
PORT_TRAPS       := no
PORT_TIME_FACTOR := $(if $(PORT_QEMU),4,1)
PORT_TOOLS       := i686-linux-gnu-gcc:gcc-i686-linux-gnu $(if $(PORT_QEMU),qemu-i386-static:qemu-user-static)
# Natively the integration suite runs its data files only
# (INTEGRATION_DATA_FILES in the Makefile: storing, loading, hashing and
# formatting numbers, where x87 floating point and a 32-bit long show):
# armv6 and armv7, also 32-bit, run every file and trap on unaligned access
# besides. Under qemu-i386-static the C unit tests only: the emulated x87
# is not the hardware these files would check our numbers against
# (GEORADIUS STOREDIST's distances differed in their 17th digit), and the
# files took 153 s of CI's longest lane (2026-11-30). The C unit tests all
# run either way. (CI's one-hour budget; `make PORT=i386 test
# PORT_INTEGRATION=all` runs every file.)
PORT_INTEGRATION := $(if $(PORT_QEMU),none,data)
