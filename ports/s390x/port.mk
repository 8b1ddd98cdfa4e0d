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
