# aarch64 -- Raspberry Pi 3/4/5 on a 64-bit OS (Cortex-A72/A76). The Pi 5
# kernel uses 16K pages, hence jemalloc with 64K lg-page.
PORT_DESC        := Raspberry Pi 3/4/5 64-bit OS, Cortex-A72
PORT_CROSS       := aarch64-linux-gnu-
PORT_CFLAGS      :=
PORT_LDFLAGS     := -static
# LINK=dynamic (the Debian package): libgcc stays static (-static-libgcc),
# the rest comes from the target's shared glibc.
PORT_DYNAMIC_LDFLAGS := -static-libgcc
PORT_QEMU        := qemu-aarch64-static -cpu cortex-a72
PORT_JEMALLOC_HOST := aarch64-linux-gnu
PORT_LG_PAGE     := 16
PORT_TRAPS       := no
PORT_TIME_FACTOR := 4
PORT_TOOLS       := aarch64-linux-gnu-gcc:gcc-aarch64-linux-gnu qemu-aarch64-static:qemu-user-static
# The integration suite runs its data files only (INTEGRATION_DATA_FILES
# in the Makefile): armv6 and armv7 run every file on ARM (and trap on
# unaligned access), the native build runs every file as a 64-bit
# little-endian server, so the rest would check nothing new here. The C
# unit tests all run. (CI's one-hour budget; `make PORT=aarch64 test
# PORT_INTEGRATION=all` runs every file.)
PORT_INTEGRATION := data
# The Debian architecture of its package (make deb).
PORT_DEB_ARCH    := arm64
