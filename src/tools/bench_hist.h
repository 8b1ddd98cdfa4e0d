/* bench_hist.h -- the latency histogram of redis-benchmark.
 *
 * Design decisions:
 *  - Log-linear buckets over microseconds: every value below 1024 us has its
 *    own bucket; above, each power of two is split into 512 equal buckets, so
 *    a percentile is off by less than 0.2% of its value. Memory is fixed
 *    (about 130 KB) however many samples are recorded, and recording is a
 *    few integer operations (no allocation, no floating point).
 *  - Values beyond about 2^40 us (12 days) are clamped into the last bucket.
 *    The exact minimum, maximum and sum are kept on the side, so min, max and
 *    the average are exact; percentiles report the upper edge of their
 *    bucket, never below the real value.
 */
#ifndef REDIS_BENCH_HIST_H
#define REDIS_BENCH_HIST_H

#include <stdint.h>

#define BENCH_HIST_EXACT 1024       /* values below this have their own bucket */
#define BENCH_HIST_SUB 512          /* buckets per power of two above it */
#define BENCH_HIST_MAX_BIT 40       /* highest power of two tracked */
#define BENCH_HIST_BUCKETS (BENCH_HIST_EXACT + (BENCH_HIST_MAX_BIT - 10 + 1) * BENCH_HIST_SUB)

typedef struct benchHist {
    uint64_t count;
    uint64_t sum_us;
    uint64_t min_us, max_us;
    uint64_t bucket[BENCH_HIST_BUCKETS];
} benchHist;

void benchHistReset(benchHist *h);
void benchHistRecord(benchHist *h, uint64_t us);
/* Merges src into dst (for per-thread histograms). */
void benchHistMerge(benchHist *dst, const benchHist *src);
/* The smallest value v such that at least pct percent of the samples are
 * <= v (pct in 0..100); 0 when empty. */
uint64_t benchHistPercentile(const benchHist *h, double pct);
/* How many samples are <= us. */
uint64_t benchHistCountAtOrBelow(const benchHist *h, uint64_t us);
double benchHistAverage(const benchHist *h);

/* Bucket arithmetic, exposed for the unit tests. */
int benchHistIndex(uint64_t us);
uint64_t benchHistUpperEdge(int index);

#endif /* REDIS_BENCH_HIST_H */
