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
