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
# Under qemu-i386-static the x87 is not bit-exact: GEORADIUS STOREDIST's
# distances differ in their 17th digit (unit/type/geo, 2 tests); the file
# is left to the other ports then (every data port runs it).
PORT_RUNTEST_FLAGS := $(if $(PORT_QEMU),--skip-file unit/type/geo)
# The integration suite runs its data files only (INTEGRATION_DATA_FILES
# in the Makefile: storing, loading, hashing and formatting numbers, where
# x87 floating point and a 32-bit long show): armv6 and armv7, also 32-bit,
# run every file and trap on unaligned access besides. The C unit tests all
# run. (CI's one-hour budget; `make PORT=i386 test PORT_INTEGRATION=all`
# runs every file.)
PORT_INTEGRATION := data
