/* lathist.c -- the log-linear latency histogram (layout, precision and
 * design in lathist.h). Everything here reads the counters; recording is
 * the inline lathistRecord() in the header.
 */
#include "lathist.h"
#include "zmalloc.h"

#include <string.h>

lathist *lathistCreate(void) {
    lathist *h = zmalloc(sizeof(*h));
    h->total = 0;
    h->counts = zcalloc(sizeof(h->counts[0]) * LATHIST_BUCKETS);
    return h;
}

void lathistFree(lathist *h) {
    if (h == NULL) return;
    zfree(h->counts);
    zfree(h);
}

void lathistReset(lathist *h) {
    h->total = 0;
    memset(h->counts, 0, sizeof(h->counts[0]) * LATHIST_BUCKETS);
}

/* Index i >= LATHIST_LINEAR: the top bits (i >> SUB_BITS) say which power
 * of two, the low bits which of its 128 slices. */
static unsigned indexShift(unsigned index) { return (index >> LATHIST_SUB_BITS) - 1; }

uint64_t lathistLowerEdge(unsigned index) {
    if (index < LATHIST_LINEAR) return index;
    uint64_t slice = (index & ((1u << LATHIST_SUB_BITS) - 1)) + (1u << LATHIST_SUB_BITS);
    return slice << indexShift(index);
}

uint64_t lathistUpperEdge(unsigned index) {
    if (index < LATHIST_LINEAR) return index;
    return lathistLowerEdge(index) + (1ULL << indexShift(index)) - 1;
}

uint64_t lathistPercentile(const lathist *h, double p) {
    if (h->total == 0) return 0;
    if (p > 100.0) p = 100.0;
    uint64_t rank = (uint64_t)(p / 100.0 * (double)h->total + 0.5);
    if (rank < 1) rank = 1;
    uint64_t seen = 0;
    for (unsigned i = 0; i < LATHIST_BUCKETS; i++) {
        seen += h->counts[i];
        if (seen >= rank) return p == 0.0 ? lathistLowerEdge(i) : lathistUpperEdge(i);
    }
    return 0; /* not reached: the counts add up to total */
}

int lathistPowerOfTwoCdf(const lathist *h, uint64_t first, lathistPoint out[LATHIST_MAX_POINTS]) {
    int n = 0;
    uint64_t seen = 0;
    unsigned next = 0; /* first bucket still to add to seen */
    for (uint64_t level = first ? first : 1; seen < h->total && n < LATHIST_MAX_POINTS; level <<= 1) {
        unsigned last = lathistIndex(level);
        if (last >= LATHIST_BUCKETS) break;
        uint64_t before = seen;
        for (; next <= last; next++) seen += h->counts[next];
        if (seen > before) out[n++] = (lathistPoint){lathistUpperEdge(last), seen};
        if (level > UINT64_MAX / 2) break;
    }
    return n;
}
