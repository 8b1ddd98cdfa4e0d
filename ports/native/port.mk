# native -- the machine doing the build. No emulator: binaries run directly.
PORT_DESC        := native build for this host
PORT_CROSS       :=
PORT_CFLAGS      :=
# -static-libgcc: the crash report's unwinder is linked in, not libgcc_s.so
# (which would be mapped at start-up: ~100 KB more RSS).
PORT_LDFLAGS     := -static-libgcc
PORT_QEMU        :=
PORT_JEMALLOC_HOST :=
# 64 KiB jemalloc pages even here: the same build then starts on 4K, 16K and
# 64K-page kernels (checked by tests/c/pagesize-check.sh with an LD_PRELOAD shim).
PORT_LG_PAGE     := 16
PORT_TRAPS       := no
PORT_TIME_FACTOR := 1
PORT_TOOLS       :=
# The Debian architecture of its package (make deb): this machine's.
PORT_DEB_ARCH    := $(shell dpkg --print-architecture 2>/dev/null)
