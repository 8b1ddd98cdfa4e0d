/* monotonic.c -- a cheap monotonic microsecond clock for timing commands.
 *
 * call() times every command (INFO commandstats, SLOWLOG, latency); with
 * two gettimeofday() calls per command that was the largest single item of
 * a pipelined GET's profile. This clock reads the CPU's own counter where
 * it is safe to, and falls back to clock_gettime(CLOCK_MONOTONIC):
 *   x86/x86_64  RDTSC, only when /proc/cpuinfo says the TSC is invariant
 *               (constant_tsc and nonstop_tsc: its rate never changes with
 *               frequency scaling or sleep states) and the kernel itself
 *               uses it as its clocksource (its judgement that the cores'
 *               counters agree, so a thread moving between cores can't
 *               see time go backwards).
 *   aarch64     the generic timer's virtual count (CNTVCT_EL0); the rate
 *               the CPU reports in CNTFRQ_EL0 is checked against a
 *               measurement, since firmware sometimes sets it wrong.
 * Design decisions:
 * - The rate is calibrated at start-up against CLOCK_MONOTONIC rather than
 *   read from the model name string (a virtual machine's TSC need not run
 *   at the advertised clock): three 5 ms windows, each bracketed by counter
 *   reads taken right next to the clock reads (a window whose brackets are
 *   far apart was preempted and is measured again); the windows must agree
 *   within 1% or the fallback clock is used. A wrong rate would skew every
 *   SLOWLOG and commandstats figure until restart.
 * - Readings are relative to the counter at start-up (unsigned difference),
 *   so a large or wrapping counter neither overflows nor loses precision.
 * - Durations, and the wall clock between two wake-ups: updateCachedTime()
 *   notes the wall clock's offset from this one once per event-loop pass,
 *   and call() adds it to the reading that starts the command's timing.
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

/* The first line of FILE starting with PREFIX, into buf; 0 if none. */
static int readLineStarting(const char *file, const char *prefix, char *buf, size_t size) {
    FILE *f = fopen(file, "r");
    if (f == NULL) return 0;
    int found = 0;
    while (!found && fgets(buf, (int)size, f)) found = strncmp(buf, prefix, strlen(prefix)) == 0;
    fclose(f);
    return found;
}

static const char *counterUnusableReason(void) {
    char line[4096];
    if (!readLineStarting("/proc/cpuinfo", "flags", line, sizeof(line)) ||
        !strstr(line, " constant_tsc") || !strstr(line, " nonstop_tsc"))
        return "clock_gettime (CPU counter not invariant)";
    if (!readLineStarting("/sys/devices/system/clocksource/clocksource0/current_clocksource", "tsc", line,
                          sizeof(line)))
        return "clock_gettime (the kernel does not use the TSC as its clocksource)";
    return NULL;
}

static double reportedTicksPerUs(void) { return 0; } /* none: measured only */
#elif defined(__aarch64__) && defined(__GNUC__)
#define HAVE_HW_COUNTER 1
static unsigned long long readCounter(void) {
    unsigned long long v;
    __asm__ __volatile__("isb; mrs %0, cntvct_el0" : "=r"(v));
    return v;
}
static const char *counterUnusableReason(void) { return NULL; }
static double reportedTicksPerUs(void) {
    unsigned long long hz;
    __asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(hz));
    return (double)hz / 1e6;
}
#endif

#ifdef HAVE_HW_COUNTER
static double us_per_tick;       /* 0: not usable, the fallback is used (a multiply: no divide per read) */
static unsigned long long base;  /* the counter at monotonicInit() */
static long long base_us;        /* fallbackUs() at monotonicInit() */

long long monotonicUs(void) {
    if (us_per_tick <= 0) return fallbackUs();
    return base_us + (long long)((double)(readCounter() - base) * us_per_tick);
}

/* Counter ticks per microsecond over one ~5 ms window, or -1 when a clock
 * read was not right next to its counter reads (the thread was preempted). */
static double measureWindow(void) {
    unsigned long long a0 = readCounter();
    long long t0 = fallbackUs();
    unsigned long long a1 = readCounter();
    long long t1;
    unsigned long long b0, b1;
    do {
        b0 = readCounter();
        t1 = fallbackUs();
        b1 = readCounter();
    } while (t1 - t0 < 5000);
    /* a clock read takes well under 50 us unless the thread was descheduled */
    double bracket = (double)((a1 - a0) + (b1 - b0)) / (double)(b1 - a0) * (double)(t1 - t0);
    if (bracket > 50) return -1;
    return (double)((b0 + b1) / 2 - (a0 + a1) / 2) / (double)(t1 - t0);
}

static double sortedMiddle(double r[3]) {
    double lo = r[0] < r[1] ? r[0] : r[1], hi = r[0] < r[1] ? r[1] : r[0];
    return r[2] < lo ? lo : (r[2] > hi ? hi : r[2]);
}

const char *monotonicInit(void) {
    const char *why = counterUnusableReason();
    if (why) return why;
    double r[3];
    for (int i = 0, tries = 0; i < 3; tries++) {
        if (tries == 20) return "clock_gettime (no undisturbed calibration window)";
        r[i] = measureWindow();
        if (r[i] > 0) i++;
    }
    double rate = sortedMiddle(r);
    for (int i = 0; i < 3; i++)
        if (r[i] < rate * 0.99 || r[i] > rate * 1.01) return "clock_gettime (CPU counter rate unstable)";
    if (rate < 1.0) return "clock_gettime (CPU counter too slow)";
    double reported = reportedTicksPerUs();
    if (reported > 0 && (reported < rate * 0.99 || reported > rate * 1.01))
        return "clock_gettime (the CPU misreports its counter's frequency)";
    base = readCounter();
    base_us = fallbackUs();
    us_per_tick = 1.0 / (reported > 0 ? reported : rate);
    return "CPU counter";
}
#else
long long monotonicUs(void) { return fallbackUs(); }
const char *monotonicInit(void) { return "clock_gettime"; }
#endif
