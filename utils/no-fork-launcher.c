/* no-fork-launcher.c -- runs a program in a process that cannot fork.
 *
 *   no-fork-launcher PROGRAM [ARGS...]
 *
 * Installs a seccomp filter that makes fork(), vfork(), clone() without
 * CLONE_THREAD and clone3() fail with ENOSYS, then execs PROGRAM. Threads
 * still start: glibc's pthread_create tries clone3 first and, on ENOSYS,
 * falls back to clone(CLONE_THREAD ...), which the filter lets through.
 * The filter is inherited across exec and cannot be removed, so this is
 * the proof that a server run under it (persistence-mode forkless, the
 * tests of tests/integration/forkless.tcl and the persistence files run
 * with ./runtest --no-fork) never forks: a fork would fail, and the
 * fallback to a forkless snapshot says so in the log.
 *
 * Linux only (seccomp); elsewhere it says so and exits 2. clone3's flags
 * are in memory the filter cannot read, hence ENOSYS for all of it.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#if defined(__linux__)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/sched.h> /* CLONE_THREAD without _GNU_SOURCE */
#include <sys/prctl.h>
#include <sys/syscall.h>

#if defined(__x86_64__) && defined(__ILP32__)
#define ARCH_NR AUDIT_ARCH_X86_64 /* x32 */
#elif defined(__x86_64__)
#define ARCH_NR AUDIT_ARCH_X86_64
#elif defined(__i386__)
#define ARCH_NR AUDIT_ARCH_I386
#elif defined(__aarch64__)
#define ARCH_NR AUDIT_ARCH_AARCH64
#elif defined(__arm__)
#define ARCH_NR AUDIT_ARCH_ARM
#elif defined(__s390x__)
#define ARCH_NR AUDIT_ARCH_S390X
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARCH_NR AUDIT_ARCH_PPC64LE
#elif defined(__powerpc64__)
#define ARCH_NR AUDIT_ARCH_PPC64
#elif defined(__riscv) && __riscv_xlen == 64
#define ARCH_NR AUDIT_ARCH_RISCV64
#elif defined(__mips__) && defined(__MIPSEL__)
#define ARCH_NR AUDIT_ARCH_MIPSEL
#elif defined(__mips__)
#define ARCH_NR AUDIT_ARCH_MIPS
#endif

/* clone's flags argument: the first, except on s390 (the second). */
#if defined(__s390__)
#define CLONE_FLAGS_ARG 1
#else
#define CLONE_FLAGS_ARG 0
#endif

/* The low 32 bits of a 64-bit syscall argument in seccomp_data. */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG_LOW(n) (offsetof(struct seccomp_data, args) + 8 * (n))
#else
#define ARG_LOW(n) (offsetof(struct seccomp_data, args) + 8 * (n) + 4)
#endif

#define DENY (SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA))
#define LOAD(off) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (off))
#define RET(v) BPF_STMT(BPF_RET | BPF_K, (v))
/* if (A == nr) return DENY */
#define DENY_NR(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), RET(DENY)

static int installFilter(void) {
    struct sock_filter prog[] = {
#ifdef ARCH_NR
        LOAD(offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH_NR, 1, 0),
        RET(SECCOMP_RET_ALLOW), /* another ABI (e.g. i386 calls on x86_64): not ours to judge */
#endif
        LOAD(offsetof(struct seccomp_data, nr)),
#ifdef __NR_fork
        DENY_NR(__NR_fork),
#endif
#ifdef __NR_vfork
        DENY_NR(__NR_vfork),
#endif
#ifdef __NR_clone3
        DENY_NR(__NR_clone3),
#else
        DENY_NR(435), /* clone3's number on every architecture with the generic table */
#endif
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 1, 0),
        RET(SECCOMP_RET_ALLOW),
        LOAD(ARG_LOW(CLONE_FLAGS_ARG)),
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1),
        RET(SECCOMP_RET_ALLOW),
        RET(DENY),
    };
    struct sock_fprog fprog = {.len = (unsigned short)(sizeof prog / sizeof prog[0]), .filter = prog};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1) return -1;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s PROGRAM [ARGS...]\n", argv[0]);
        return 2;
    }
    if (installFilter() == -1) {
        fprintf(stderr, "no-fork-launcher: can't install the seccomp filter: %s\n", strerror(errno));
        return 2;
    }
    execvp(argv[1], argv + 1);
    fprintf(stderr, "no-fork-launcher: can't run %s: %s\n", argv[1], strerror(errno));
    return 127;
}

#else

int main(int argc, char **argv) {
    (void)argc;
    fprintf(stderr, "%s: seccomp is Linux only\n", argv[0]);
    return 2;
}

#endif
