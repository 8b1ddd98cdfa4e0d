/* bench_hist.c -- log-linear latency histogram (see bench_hist.h). */
#include "bench_hist.h"

#include <string.h>

void benchHistReset(benchHist *h) {
    memset(h, 0, sizeof(*h));
}

static int highestBit(uint64_t v) {
    return 63 - __builtin_clzll(v);
}

int benchHistIndex(uint64_t us) {
    if (us < BENCH_HIST_EXACT) return (int)us;
    int bit = highestBit(us);
    if (bit > BENCH_HIST_MAX_BIT) return BENCH_HIST_BUCKETS - 1;
    int shift = bit - 9; /* us >> shift is in [512, 1023] */
    return BENCH_HIST_EXACT + (shift - 1) * BENCH_HIST_SUB + (int)((us >> shift) - BENCH_HIST_SUB);
}

uint64_t benchHistUpperEdge(int index) {
    if (index < BENCH_HIST_EXACT) return (uint64_t)index;
    int shift = (index - BENCH_HIST_EXACT) / BENCH_HIST_SUB + 1;
    uint64_t sub = (uint64_t)((index - BENCH_HIST_EXACT) % BENCH_HIST_SUB) + BENCH_HIST_SUB;
    return ((sub + 1) << shift) - 1;
}

void benchHistRecord(benchHist *h, uint64_t us) {
    if (h->count == 0 || us < h->min_us) h->min_us = us;
    if (us > h->max_us) h->max_us = us;
    h->count++;
    h->sum_us += us;
    h->bucket[benchHistIndex(us)]++;
}

void benchHistMerge(benchHist *dst, const benchHist *src) {
    if (src->count == 0) return;
    if (dst->count == 0 || src->min_us < dst->min_us) dst->min_us = src->min_us;
    if (src->max_us > dst->max_us) dst->max_us = src->max_us;
    dst->count += src->count;
    dst->sum_us += src->sum_us;
    for (int i = 0; i < BENCH_HIST_BUCKETS; i++) dst->bucket[i] += src->bucket[i];
}

uint64_t benchHistPercentile(const benchHist *h, double pct) {
    if (h->count == 0) return 0;
    if (pct <= 0) return h->min_us;
    if (pct >= 100) return h->max_us;
    uint64_t want = (uint64_t)((double)h->count * pct / 100.0 + 0.999999);
    if (want == 0) want = 1;
    uint64_t seen = 0;
    for (int i = 0; i < BENCH_HIST_BUCKETS; i++) {
        seen += h->bucket[i];
        if (seen >= want) {
            uint64_t edge = benchHistUpperEdge(i);
            return edge > h->max_us ? h->max_us : edge < h->min_us ? h->min_us : edge;
        }
    }
    return h->max_us;
}

uint64_t benchHistCountAtOrBelow(const benchHist *h, uint64_t us) {
    int last = benchHistIndex(us);
    uint64_t n = 0;
    for (int i = 0; i <= last; i++) n += h->bucket[i];
    return n;
}

double benchHistAverage(const benchHist *h) {
    return h->count ? (double)h->sum_us / (double)h->count : 0.0;
}
