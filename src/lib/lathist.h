/* lathist.h -- a log-linear histogram of durations in nanoseconds, the
 * per-command latency record behind INFO latencystats and LATENCY
 * HISTOGRAM (latency_tracking.c). No server knowledge; tested by
 * tests/c/test_lathist.c.
 *
 * Buckets and precision:
 *  - A value is clamped to [1, LATHIST_MAX] (1 ns .. 1 s).
 *  - Values below 256 ns have a bucket each (exact).
 *  - Above, each power of two [2^e, 2^(e+1)) is cut into 128 equal buckets
 *    of width 2^(e-7). A bucket is therefore never wider than 1/128 of the
 *    values it holds: a value is known to within 1/128 (0.78%) of itself
 *    (more than two significant decimal digits), whatever its magnitude.
 *  - 3072 buckets of 64-bit counters cover [0, 2^30): 24 KB per histogram,
 *    allocated only for commands that are actually called. The counters
 *    are an allocation of their own, exactly 24576 bytes (an allocator size
 *    class); with the 8-byte total beside them in one block, jemalloc would
 *    round it up to the next class, 28 KB.
 *  - This is the layout of an HdrHistogram with two significant digits and
 *    a lowest value of 1, the one Redis 7 keeps per command; so the
 *    percentiles and LATENCY HISTOGRAM's bucket edges come out as the same
 *    numbers Redis prints for the same samples.
 *
 * Recording is inline and allocation-free: a clamp, a count-leading-zeros,
 * a shift, two increments. Queries (percentiles, cumulative counts) walk
 * the counters and are meant for INFO and LATENCY, not the command path.
 * A percentile is the upper edge of the bucket holding the sample of that
 * rank (never below the true sample, less than 0.78% above it); percentile 0
 * is the lower edge of the smallest sample's bucket.
 */
#ifndef REDIS_LATHIST_H
#define REDIS_LATHIST_H

#include <stdint.h>

#define LATHIST_SUB_BITS 7                          /* 128 buckets per power of two */
#define LATHIST_LINEAR (2u << LATHIST_SUB_BITS)     /* values below have a bucket each */
#define LATHIST_MAX 1000000000ULL                   /* 1 s in ns: larger values are clamped */
#define LATHIST_TOP_SHIFT 22                        /* shift of LATHIST_MAX's power of two (2^29) */
#define LATHIST_BUCKETS ((LATHIST_TOP_SHIFT + 2) << LATHIST_SUB_BITS) /* 3072: covers [0, 2^30) */

typedef struct lathist {
    uint64_t total;                   /* samples recorded */
    uint64_t *counts;                 /* LATHIST_BUCKETS of them */
} lathist;

/* One point of a cumulative distribution: `cumulative` samples were <= `upper`. */
typedef struct lathistPoint {
    uint64_t upper;
    uint64_t cumulative;
} lathistPoint;

#define LATHIST_MAX_POINTS 64 /* a power-of-two walk has at most one point per bit */

lathist *lathistCreate(void);
void lathistFree(lathist *h);
void lathistReset(lathist *h);

/* The bucket of value v (v >= 1), and the values a bucket holds. */
static inline unsigned lathistIndex(uint64_t v) {
    if (v < LATHIST_LINEAR) return (unsigned)v;
    unsigned shift = (unsigned)(63 - __builtin_clzll(v)) - LATHIST_SUB_BITS;
    return (shift << LATHIST_SUB_BITS) + (unsigned)(v >> shift);
}
uint64_t lathistLowerEdge(unsigned index);
uint64_t lathistUpperEdge(unsigned index); /* inclusive */

static inline void lathistRecord(lathist *h, uint64_t ns) {
    if (ns < 1) ns = 1;
    if (ns > LATHIST_MAX) ns = LATHIST_MAX;
    h->counts[lathistIndex(ns)]++;
    h->total++;
}

/* The value at percentile p (0..100, larger is 100); 0 when empty. The
 * sample of rank round(p% of total) (at least 1) is the one reported. */
uint64_t lathistPercentile(const lathist *h, double p);

/* The cumulative distribution at first, 2*first, 4*first ... (first >= 1):
 * for each level, how many samples fall in buckets up to the one holding
 * the level, and that bucket's upper edge. Only points where the count
 * grew are kept; the walk stops once every sample is counted or the level
 * is past the last bucket. Returns the number of points written to out. */
int lathistPowerOfTwoCdf(const lathist *h, uint64_t first, lathistPoint out[LATHIST_MAX_POINTS]);

#endif /* REDIS_LATHIST_H */
