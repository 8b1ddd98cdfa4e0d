/* monotonic.c -- a cheap monotonic microsecond clock for timing commands.
 *
 * call() times every command (INFO commandstats, SLOWLOG, latency); with
 * two gettimeofday() calls per command that was the largest single item of
 * a pipelined GET's profile. This clock reads the CPU's own counter where
 * it is safe to, and falls back to clock_gettime(CLOCK_MONOTONIC):
 *   x86/x86_64  RDTSC, only when /proc/cpuinfo says the TSC is invariant
 *               (constant_tsc and nonstop_tsc): its rate then never changes
 *               with frequency scaling or sleep states.
 *   aarch64     the generic timer's virtual count (CNTVCT_EL0), whose
 *               frequency the CPU reports in CNTFRQ_EL0.
 * Design decisions:
 * - The TSC rate is calibrated once at start-up against CLOCK_MONOTONIC
 *   over a few milliseconds rather than read from the model name string:
 *   a virtual machine's TSC need not run at the advertised clock.
 * - Durations only: the wall clock the commands see (server.ustime) still
 *   comes from gettimeofday(), once per command.
 * - monotonicInit() must run before the first monotonicUs() (main does it);
 *   before it, the fallback is used.
 */
#include "monotonic.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

static long long fallbackUs(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__) && defined(__linux__)
#include <x86intrin.h>
#define HAVE_HW_COUNTER 1
static unsigned long long readCounter(void) { return __rdtsc(); }

/* constant_tsc and nonstop_tsc among the flags of /proc/cpuinfo. */
static int counterIsUsable(void) {
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f == NULL) return 0;
    char line[4096];
    int ok = 0;
    while (fgets(line, sizeof(line), f)) {
        if (strncmp(line, "flags", 5) != 0) continue;
        ok = strstr(line, " constant_tsc") != NULL && strstr(line, " nonstop_tsc") != NULL;
        break;
    }
    fclose(f);
    return ok;
}

/* Counter ticks per microsecond, measured against CLOCK_MONOTONIC. */
static double counterTicksPerUs(void) {
    long long t0 = fallbackUs();
    unsigned long long c0 = readCounter();
    long long t1;
    do t1 = fallbackUs();
    while (t1 - t0 < 5000);
    unsigned long long c1 = readCounter();
    return (double)(c1 - c0) / (double)(t1 - t0);
}
#elif defined(__aarch64__) && defined(__GNUC__)
#define HAVE_HW_COUNTER 1
static unsigned long long readCounter(void) {
    unsigned long long v;
    __asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v));
    return v;
}
static int counterIsUsable(void) { return 1; }
static double counterTicksPerUs(void) {
    unsigned long long hz;
    __asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(hz));
    return (double)hz / 1e6;
}
#endif

#ifdef HAVE_HW_COUNTER
static double ticks_per_us; /* 0: not usable, the fallback is used */

long long monotonicUs(void) {
    if (ticks_per_us <= 0) return fallbackUs();
    return (long long)((double)readCounter() / ticks_per_us);
}

const char *monotonicInit(void) {
    if (!counterIsUsable()) return "clock_gettime (CPU counter not invariant)";
    double rate = counterTicksPerUs();
    if (rate < 1.0) return "clock_gettime (CPU counter too slow)";
    ticks_per_us = rate;
    return "CPU counter";
}
#else
long long monotonicUs(void) { return fallbackUs(); }
const char *monotonicInit(void) { return "clock_gettime"; }
#endif
