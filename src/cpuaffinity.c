/* cpuaffinity.c -- the *_cpulist directives: which CPUs the main thread,
 * the background I/O thread and the fork children (AOF rewrite, BGSAVE) may
 * run on. On a 4-core Raspberry Pi this keeps a rewrite child off the core
 * that serves clients.
 *
 * A list is what Redis documents: comma-separated entries, each a CPU ("3"),
 * a range ("8-11") or a range with a step ("0-7:2" = 0,2,4,6). "" (the
 * default) leaves the inherited affinity alone.
 *
 * Design decisions:
 * - Parsing is strict and happens when the directive is read, so a typo is a
 *   FATAL CONFIG FILE ERROR at start-up naming the line and the reason
 *   (Redis 7 accepts any string and silently ignores one it can't parse).
 *   A list that parses but names only CPUs this machine doesn't have is
 *   not a config error (the same file serves a Pi and a bigger box): the
 *   kernel refuses it and a warning is logged.
 * - CPUs 0..1023 on every platform (glibc's CPU_SETSIZE; musl's is 128, so
 *   the masks are sized with CPU_ALLOC_SIZE rather than cpu_set_t); the
 *   parser fills its own bitmap, so the same syntax is checked everywhere.
 * - Linux only (HAVE_CPU_AFFINITY in platform.h). Elsewhere the directives are
 *   accepted and start-up logs once that they are ignored.
 * - sched_setaffinity(0, ...) sets the mask of the calling thread, so one
 *   call serves the main thread, the bio thread and a freshly forked child
 *   (which has a single thread).
 * - The bio thread is created later, by the main thread, and would inherit
 *   server_cpulist. As in Redis, where the bio threads start before the main
 *   thread is pinned, it goes back to the mask the process started with
 *   unless bio_cpulist says otherwise. Fork children do inherit the main
 *   thread's mask when their own list is empty, as in Redis.
 * - bgchild-nice (ours; Redis has no such knob): a fork child also lowers its
 *   own CPU priority by that much (setpriority, POSIX, every platform).
 *   A rewrite or snapshot is background work; where it must share a core
 *   with the main thread (a 1- or 2-core board, or the inherited pinning)
 *   the scheduler then gives the core to the thread that serves clients
 *   and the child runs in its idle time. The price is a longer-lived child
 *   under full load, so more copy-on-write pages. Built in 0 (Redis's
 *   behaviour, and test timings that don't depend on it); the shipped
 *   redis.conf, tuned for a small board, sets 10 (the child still gets
 *   about a tenth of a core the server keeps busy).
 * - The forkless snapshot's writer thread (snapshot.c) does a BGSAVE's
 *   disk work inside the process: bgsave_cpulist pins it (the thread reads
 *   a copy the main thread took, never server.*), so a Pi 4 can keep it
 *   off the core that serves clients. Not bgchild-nice or
 *   -sched-idle: the main thread waits for the writer when the pending
 *   bytes reach forkless-max-pending-memory, so a starved writer would
 *   stall clients (measured: a niced writer gave longer slices and more
 *   pending memory; an idle-policy one, on the server's core under -P 16
 *   writes, no shorter slices and 1.29x RSS growth instead of 1.09x).
 * - bgchild-sched-idle (ours, Linux): the child runs under SCHED_IDLE. Where
 *   bgchild-nice only shrinks the child's share, this makes the server
 *   preempt the child the moment a client's request wakes it (a nice child
 *   may finish its time slice first, and on a core shared with the server
 *   that delay lands on every request). The child then lives on the CPU
 *   time nobody else wants; a server that keeps its core 100% busy leaves it
 *   a trickle (the kernel still gives idle-policy tasks a tiny share, so a
 *   rewrite always finishes, slowly). Built-in no (Redis's behaviour).
 * - The same child hook also sets the child's OOM score (oom.c,
 *   oom-score-adj-values), so both fork paths get it from one call.
 */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE 1 /* CPU_SET and friends */
#endif

#include "server.h"

#include <errno.h>
#include <sys/resource.h>

#if defined(__linux__)
#include <sched.h> /* SCHED_IDLE, struct sched_param */
#include <sys/syscall.h>
#include <unistd.h>
#endif
#if defined(HAVE_CPU_AFFINITY)
#include <sys/prctl.h>
#endif
#define CPULIST_MAX_CPUS 1024

typedef struct cpuList {
    unsigned char bits[(CPULIST_MAX_CPUS + 7) / 8];
} cpuList;

/* ---- parsing ------------------------------------------------------------------------ */

static void cpuListAdd(cpuList *l, long cpu) { l->bits[cpu / 8] |= (unsigned char)(1u << (cpu % 8)); }

/* Reads the decimal number at *p (digits only) and moves *p past it. */
static int parseCpuNumber(const char **p, long *out, sds *err) {
    const char *s = *p;
    long v = 0;
    if (*s < '0' || *s > '9') {
        *err = *s ? sdscatprintf(sdsempty(), "expected a CPU number at '%s'", s)
                  : sdsnew("expected a CPU number at the end");
        return C_ERR;
    }
    for (; *s >= '0' && *s <= '9'; s++) {
        if (v < CPULIST_MAX_CPUS) v = v * 10 + (*s - '0');
    }
    *p = s;
    *out = v;
    return C_OK;
}

static int checkCpuRange(long cpu, sds *err) {
    if (cpu < CPULIST_MAX_CPUS) return C_OK;
    *err = sdscatprintf(sdsempty(), "CPU numbers go up to %d", CPULIST_MAX_CPUS - 1);
    return C_ERR;
}

/* One entry: N, N-M or N-M:S, ending at ',' or the end of the string. */
static int parseCpuEntry(const char **p, cpuList *l, sds *err) {
    long first, last, step = 1;
    if (parseCpuNumber(p, &first, err) != C_OK || checkCpuRange(first, err) != C_OK) return C_ERR;
    last = first;
    if (**p == '-') {
        (*p)++;
        if (parseCpuNumber(p, &last, err) != C_OK || checkCpuRange(last, err) != C_OK) return C_ERR;
        if (last < first) {
            *err = sdscatprintf(sdsempty(), "range %ld-%ld goes downwards", first, last);
            return C_ERR;
        }
        if (**p == ':') {
            (*p)++;
            if (parseCpuNumber(p, &step, err) != C_OK) return C_ERR;
            if (step == 0) {
                *err = sdsnew("a step must be at least 1");
                return C_ERR;
            }
        }
    }
    if (**p != ',' && **p != '\0') {
        *err = sdscatprintf(sdsempty(), "unexpected '%c'", **p);
        return C_ERR;
    }
    for (long cpu = first; cpu <= last; cpu += step) cpuListAdd(l, cpu);
    return C_OK;
}

/* "" is an empty list (don't touch the affinity). */
static int cpuListParse(const char *text, cpuList *l, sds *err) {
    memset(l, 0, sizeof(*l));
    const char *p = text;
    while (*p) {
        if (parseCpuEntry(&p, l, err) != C_OK) return C_ERR;
        if (*p == ',' && *++p == '\0') {
            *err = sdsnew("expected a CPU number after the last ','");
            return C_ERR;
        }
    }
    return C_OK;
}

/* The config table's validator for the four directives. */
int cpulistValidate(const char *value, sds *err) {
    cpuList l;
    sds why = NULL;
    if (cpuListParse(value, &l, &why) == C_OK) return C_OK;
    *err = sdscatprintf(sdsempty(), "Invalid CPU list '%s': %s", value, why);
    sdsfree(why);
    return C_ERR;
}

/* ---- applying ------------------------------------------------------------------------- */

/* In a fork child: bgchild-sched-idle, where the platform has SCHED_IDLE. */
static void childToIdlePolicy(const char *who) {
#if defined(__linux__) && defined(SCHED_IDLE) && defined(SYS_sched_setscheduler)
    /* the system call itself: musl's sched_setscheduler() always fails (ENOSYS) */
    struct sched_param none = {0};
    if (syscall(SYS_sched_setscheduler, 0, SCHED_IDLE, &none) == -1)
        serverLog(LL_WARNING, "Can't give %s the idle scheduling policy (bgchild-sched-idle): %s", who, strerror(errno));
#else
    (void)who;
#endif
}

/* In a fork child: bgchild-nice lower than the server, or the idle policy. */
static void lowerPriority(int nice_delta, int sched_idle, const char *who) {
    if (sched_idle) childToIdlePolicy(who);
    if (nice_delta <= 0) return;
    errno = 0;
    int current = getpriority(PRIO_PROCESS, 0);
    if (current == -1 && errno != 0) return;
    int wanted = current + nice_delta;
    if (wanted > 19) wanted = 19;
    if (setpriority(PRIO_PROCESS, 0, wanted) == -1)
        serverLog(LL_WARNING, "Can't lower the CPU priority of %s (bgchild-nice): %s", who, strerror(errno));
}

#if defined(HAVE_CPU_AFFINITY)

static cpu_set_t *startup_mask; /* what the process was started with */
static size_t mask_size;        /* bytes of a mask of CPULIST_MAX_CPUS */

static void pinCallingThread(const cpu_set_t *mask, const char *cpulist, const char *who) {
    if (sched_setaffinity(0, mask_size, mask) == 0) return;
    serverLog(LL_WARNING, "Can't set the CPU affinity of %s to '%s': %s", who, cpulist, strerror(errno));
}

/* Pins the calling thread to `cpulist`; NULL or "" leaves it alone. */
static void applyCpuList(const char *cpulist, const char *who) {
    cpuList l;
    sds err = NULL;
    if (cpulist == NULL || cpulist[0] == '\0') return;
    if (cpuListParse(cpulist, &l, &err) != C_OK) { /* validated when read: can't happen */
        serverLog(LL_WARNING, "Ignoring the CPU list of %s: %s", who, err);
        sdsfree(err);
        return;
    }
    cpu_set_t *mask = CPU_ALLOC(CPULIST_MAX_CPUS);
    if (mask == NULL) return;
    CPU_ZERO_S(mask_size, mask);
    for (int cpu = 0; cpu < CPULIST_MAX_CPUS; cpu++)
        if (l.bits[cpu / 8] & (1u << (cpu % 8))) CPU_SET_S(cpu, mask_size, mask);
    pinCallingThread(mask, cpulist, who);
    CPU_FREE(mask);
}

void cpuAffinityInit(void) {
    mask_size = CPU_ALLOC_SIZE(CPULIST_MAX_CPUS);
    startup_mask = CPU_ALLOC(CPULIST_MAX_CPUS);
    if (startup_mask && sched_getaffinity(0, mask_size, startup_mask) != 0) {
        CPU_FREE(startup_mask);
        startup_mask = NULL;
    }
    applyCpuList(server.server_cpulist, "the server (server_cpulist)");
}

void cpuAffinityBioThread(const char *name) {
    if (server.bio_cpulist) applyCpuList(server.bio_cpulist, "the background I/O thread (bio_cpulist)");
    else if (server.server_cpulist && startup_mask)
        pinCallingThread(startup_mask, "(as started)", "the background I/O thread");
    prctl(PR_SET_NAME, name, 0, 0, 0); /* named once pinned: whoever sees the name sees the mask */
}

void cpuAffinitySnapshotThread(const char *cpulist, const char *name) {
    applyCpuList(cpulist, "the forkless snapshot writer (bgsave_cpulist)");
    prctl(PR_SET_NAME, name, 0, 0, 0);
}

void cpuAffinityChild(const char *cpulist, const char *who) {
    applyCpuList(cpulist, who);
    lowerPriority(server.bgchild_nice, server.bgchild_sched_idle, who);
    oomScoreApply(OOM_CLASS_BGCHILD); /* oom.c: the child's oom-score-adj-values entry */
}

#else /* !HAVE_CPU_AFFINITY */

void cpuAffinityInit(void) {
    if (server.server_cpulist || server.bio_cpulist || server.aof_rewrite_cpulist || server.bgsave_cpulist)
        serverLog(LL_WARNING, "CPU affinity is not supported on this platform: server_cpulist, bio_cpulist, "
                              "aof_rewrite_cpulist and bgsave_cpulist are ignored");
}

void cpuAffinityBioThread(const char *name) { (void)name; }

void cpuAffinityChild(const char *cpulist, const char *who) {
    (void)cpulist;
    lowerPriority(server.bgchild_nice, server.bgchild_sched_idle, who);
    oomScoreApply(OOM_CLASS_BGCHILD);
}

void cpuAffinitySnapshotThread(const char *cpulist, const char *name) {
    (void)cpulist;
    (void)name;
}

#endif
