# musl -- this host's CPU, linked statically against musl libc: the smallest
# resident footprint (a fresh server is under 1 MB RSS with MALLOC=libc), for
# boards where every megabyte counts. Debian/Raspberry Pi OS: musl-tools.
PORT_DESC        := this host, static with musl libc
PORT_CROSS       :=
PORT_CC          := musl-gcc
PORT_CFLAGS      :=
PORT_LDFLAGS     := -static
PORT_QEMU        :=
PORT_JEMALLOC_HOST :=
PORT_LG_PAGE     := 16
PORT_TRAPS       := no
PORT_TIME_FACTOR := 1
PORT_TOOLS       := musl-gcc:musl-tools
# musl's setlocale() takes any locale name: skip the test of glibc's refusal.
# The integration suite runs its data files (INTEGRATION_DATA_FILES: number
# formatting and parsing, where a libc differs most) and the files that
# lean on the rest of libc -- config parsing and locale, sockets, the
# protocol, INFO and the odd commands; `make PORT=musl test
# PORT_INTEGRATION=all` runs every file (CI's one-hour budget).
PORT_INTEGRATION := data
PORT_DATA_EXTRA := unit/config unit/networking unit/protocol unit/other unit/info unit/os-tuning
PORT_RUNTEST_FLAGS := --tags -glibc-only
