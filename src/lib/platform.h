/* platform.h -- every platform fact the code base depends on, decided in one place.
 *
 * A port edits nothing else. Each fact is derived from compiler-predefined
 * macros; when a target cannot be recognised we pick the safe answer
 * (aligned access required, poll() backend, no backtrace) rather than guess.
 *
 * Facts decided here:
 *   BYTE_ORDER_LITTLE / BYTE_ORDER_BIG  exactly one is 1; unknown order is an #error
 *   USE_ALIGNED_ACCESS                  multi-byte loads must be naturally aligned
 *   HAVE_UNALIGNED_WORD_ACCESS          the opposite: a whitelist of CPUs that are
 *                                       fast and safe with unaligned words
 *   HAVE_EPOLL / HAVE_KQUEUE            event-loop backend (poll() is the fallback)
 *   HAVE_FORK, HAVE_BACKTRACE           what the OS offers
 *   HAVE_MEMFD_CREATE                   Linux's memfd_create(2), through syscall(2)
 *   PLATFORM_ARM_CP15_BARRIER           ARMv6 or older: the barrier is a CP15 operation
 *   PLATFORM_SPIN_PAUSE / _YIELD        the CPU's spin-wait hint (x86 PAUSE, ARMv8 YIELD)
 *   SIZEOF_POINTER_BITS                 32 or 64
 *
 * USE_ALIGNED_ACCESS can be forced on any target with -DUSE_ALIGNED_ACCESS
 * (make ALIGNED_ACCESS=yes), so x86 CI exercises the same code paths as SPARC.
 */
#ifndef REDIS_PLATFORM_H
#define REDIS_PLATFORM_H

/* ---- byte order ------------------------------------------------------- */
#if defined(__BYTE_ORDER__) && defined(__ORDER_LITTLE_ENDIAN__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define BYTE_ORDER_LITTLE 1
#define BYTE_ORDER_BIG 0
#elif defined(__BYTE_ORDER__) && defined(__ORDER_BIG_ENDIAN__) && \
    __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define BYTE_ORDER_LITTLE 0
#define BYTE_ORDER_BIG 1
#else
#error "platform.h: cannot determine the target byte order; add a rule for this compiler"
#endif

/* ---- alignment ---------------------------------------------------------
 * Whitelist only: CPUs known to perform unaligned word loads in hardware,
 * at full or near-full speed, for every width we use (including 64-bit). */
#if !defined(USE_ALIGNED_ACCESS)
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__) || \
    defined(__s390x__) || (defined(__powerpc64__) && BYTE_ORDER_LITTLE)
#define HAVE_UNALIGNED_WORD_ACCESS 1
#else
/* 32-bit ARM (every version: LDRD/LDM trap when unaligned), SPARC, MIPS,
 * RISC-V (emulated, slow), and anything we do not recognise. */
#define USE_ALIGNED_ACCESS 1
#endif
#endif

#if defined(USE_ALIGNED_ACCESS)
#undef HAVE_UNALIGNED_WORD_ACCESS
#endif

/* ---- word size --------------------------------------------------------- */
#if defined(__SIZEOF_POINTER__) && __SIZEOF_POINTER__ == 8
#define SIZEOF_POINTER_BITS 64
#elif defined(__SIZEOF_POINTER__) && __SIZEOF_POINTER__ == 4
#define SIZEOF_POINTER_BITS 32
#else
#error "platform.h: unsupported pointer size"
#endif

/* ---- event loop backend ---------------------------------------------- */
#if defined(__linux__)
#define HAVE_EPOLL 1
#elif defined(__APPLE__) || defined(__FreeBSD__) || defined(__OpenBSD__) || \
    defined(__NetBSD__) || defined(__DragonFly__)
#define HAVE_KQUEUE 1
#endif

/* ---- process facilities ----------------------------------------------- */
/* HAVE_FORK=0 (make HAVE_FORK=0) builds without fork(), as a unikernel
 * target would: persistence is then always forkless (snapshot.c). */
#if !defined(HAVE_FORK) && (defined(__unix__) || defined(__APPLE__))
#define HAVE_FORK 1
#endif

/* Pinning threads and children to CPUs (the *_cpulist directives) and
 * naming threads: Linux's calls, in glibc and musl alike. Elsewhere the
 * directives are accepted and ignored. */
#if defined(__linux__)
#define HAVE_CPU_AFFINITY 1
#endif

/* The crash report walks the stack with the compiler's unwinder (GCC and
 * clang ship <unwind.h>) and names frames with glibc's
 * backtrace_symbols_fd() (HAVE_BACKTRACE). Not with musl: it has no
 * backtrace_symbols_fd(), and the libgcc_eh of a glibc toolchain that
 * musl-gcc links needs glibc's _dl_find_object(). Without an unwinder the
 * report keeps the program counter from the signal context. */
#if defined(__GLIBC__) || defined(__APPLE__)
#define HAVE_BACKTRACE 1
#if defined(__GNUC__) && defined(__has_include)
#if __has_include(<unwind.h>)
#define HAVE_UNWIND_BACKTRACE 1
#endif
#endif
#endif

/* Shared-memory segments (lib/shmring.c) are sealed memfds: Linux's
 * memfd_create(2), called through syscall(2) as older C libraries have no
 * wrapper (the caller still checks that its headers name SYS_memfd_create
 * and MFD_ALLOW_SEALING). Elsewhere an unlinked file in /dev/shm. */
#if defined(__linux__)
#define HAVE_MEMFD_CREATE 1
#endif

/* ---- CPU ordering and spinning ----------------------------------------- */
/* ARMv6 and older have no DMB instruction: the barrier is a CP15 operation,
 * which QEMU's user-mode emulation translates as a no-op (lib/shmring.c's
 * storeLoadFence() adds an atomic read-modify-write for it). */
#if defined(__ARM_ARCH) && __ARM_ARCH < 7
#define PLATFORM_ARM_CP15_BARRIER 1
#endif

/* The hint a spin-wait loop gives the CPU; none elsewhere. */
#if defined(__x86_64__) || defined(__i386__)
#define PLATFORM_SPIN_PAUSE 1 /* __builtin_ia32_pause() */
#elif defined(__aarch64__)
#define PLATFORM_SPIN_YIELD 1 /* the YIELD instruction */
#endif

/* ---- compiler helpers -------------------------------------------------- */
#if defined(__GNUC__)
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
#define NOINLINE __attribute__((noinline))
#define PRINTF_FMT(a, b) __attribute__((format(printf, a, b)))
#define prefetchRead(addr) __builtin_prefetch((addr), 0, 3)
#else
#define likely(x) (x)
#define unlikely(x) (x)
#define NOINLINE
#define PRINTF_FMT(a, b)
#define prefetchRead(addr) ((void)(addr))
#endif

#endif /* REDIS_PLATFORM_H */
