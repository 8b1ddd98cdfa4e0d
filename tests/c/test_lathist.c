/* test_lathist.c -- the latency histogram (src/lib/lathist.c): the bucket layout
 * (contiguous, every value in the bucket its index names, widths within
 * 1/128 of the values), the numbers Redis 7 prints for the same samples,
 * and percentiles and cumulative counts against a brute-force computation
 * over sorted samples of several distributions.
 */
#include "test.h"
#include "lathist.h"

#define CHECK_EQ_U64(a, b) do { \
    uint64_t a_ = (a), b_ = (b); \
    if (!CHECK(a_ == b_)) printf("      got %" PRIu64 ", expected %" PRIu64 "\n", a_, b_); \
} while (0)

static void test_layout_is_contiguous(void) {
    int bad = 0;
    for (unsigned i = 0; i < LATHIST_BUCKETS && bad < 5; i++) {
        uint64_t lo = lathistLowerEdge(i), hi = lathistUpperEdge(i);
        int ok = lo <= hi && lathistIndex(lo) == i && lathistIndex(hi) == i;
        if (i + 1 < LATHIST_BUCKETS) ok = ok && lathistLowerEdge(i + 1) == hi + 1;
        if (!CHECK(ok)) {
            printf("      bucket %u: [%" PRIu64 ", %" PRIu64 "]\n", i, lo, hi);
            bad++;
        }
    }
    CHECK_EQ_U64(lathistUpperEdge(LATHIST_BUCKETS - 1), (1ULL << 30) - 1);
    CHECK(lathistIndex(LATHIST_MAX) < LATHIST_BUCKETS);
}

/* The precision promised in lathist.h: a bucket is exact below 256, and
 * never wider than 1/128 of its smallest value above. */
static void test_bucket_width_bound(void) {
    for (unsigned i = 0; i < LATHIST_BUCKETS; i++) {
        uint64_t lo = lathistLowerEdge(i), width = lathistUpperEdge(i) - lo + 1;
        if (i < LATHIST_LINEAR) CHECK_EQ_U64(width, 1);
        else if (!CHECK(width * 128 <= lo)) break;
    }
}

/* Values seen in Redis 7.0.15's INFO latencystats and LATENCY HISTOGRAM. */
static void test_redis_numbers(void) {
    CHECK_EQ_U64(lathistUpperEdge(lathistIndex(1000)), 1003);     /* p50=1.003 for 1 us */
    CHECK_EQ_U64(lathistUpperEdge(lathistIndex(2000)), 2007);     /* 2.007 */
    CHECK_EQ_U64(lathistLowerEdge(lathistIndex(2000)), 2000);     /* p0=2.000 */
    CHECK_EQ_U64(lathistUpperEdge(lathistIndex(6000)), 6015);     /* 6.015 */
    CHECK_EQ_U64(lathistUpperEdge(lathistIndex(40000)), 40191);   /* 40.191 */
    CHECK_EQ_U64(lathistUpperEdge(lathistIndex(150000000)), 150994943);
    CHECK_EQ_U64(lathistUpperEdge(lathistIndex(1)), 1);           /* 0 us clamps to 1 ns: 0.001 */

    lathist *h = lathistCreate();
    lathistRecord(h, 150000000);
    lathistRecord(h, 200000000);
    lathistRecord(h, 300000000);
    lathistPoint pts[LATHIST_MAX_POINTS];
    int n = lathistPowerOfTwoCdf(h, 1024, pts);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_U64(pts[0].upper / 1000, 270532);
    CHECK_EQ_U64(pts[0].cumulative, 2);
    CHECK_EQ_U64(pts[1].upper / 1000, 541065);
    CHECK_EQ_U64(pts[1].cumulative, 3);

    lathistReset(h);
    lathistRecord(h, 8000);
    n = lathistPowerOfTwoCdf(h, 1024, pts);
    CHECK_EQ_INT(n, 1);
    CHECK_EQ_U64(pts[0].upper / 1000, 8);
    CHECK_EQ_U64(pts[0].cumulative, 1);
    lathistFree(h);
}

static void test_clamping_and_empty(void) {
    lathist *h = lathistCreate();
    CHECK_EQ_U64(lathistPercentile(h, 50), 0);
    lathistPoint pts[LATHIST_MAX_POINTS];
    CHECK_EQ_INT(lathistPowerOfTwoCdf(h, 1024, pts), 0);
    lathistRecord(h, 0);
    lathistRecord(h, 5000000000ULL);
    lathistRecord(h, UINT64_MAX);
    CHECK_EQ_U64(h->total, 3);
    CHECK_EQ_U64(h->counts[1], 1);
    CHECK_EQ_U64(h->counts[lathistIndex(LATHIST_MAX)], 2);
    CHECK_EQ_U64(lathistPercentile(h, 0), 1);
    CHECK(lathistPercentile(h, 100) >= LATHIST_MAX);
    CHECK(lathistPercentile(h, 1000) == lathistPercentile(h, 100));
    lathistReset(h);
    CHECK_EQ_U64(h->total, 0);
    CHECK_EQ_U64(h->counts[1], 0);
    lathistFree(h);
}

/* ---- brute force ---------------------------------------------------------------------- */

static int cmpU64(const void *a, const void *b) {
    uint64_t x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    return x < y ? -1 : x > y;
}

enum { DIST_SMALL, DIST_LOG, DIST_CONSTANT, DIST_BIMODAL, DIST_COUNT };

/* Samples as call() records them (microseconds * 1000) or raw nanoseconds. */
static uint64_t drawSample(int dist) {
    switch (dist) {
    case DIST_SMALL: return (test_rand() % 50) * 1000;
    case DIST_LOG: return (test_rand() % 1000 + 1) << (test_rand() % 31); /* up to ~2^40: some clamp */
    case DIST_CONSTANT: return 12345;
    default: return test_rand() % 10 ? 1000 + test_rand() % 3000 : 50000000 + test_rand() % 1000000;
    }
}

static void fillSamples(lathist *h, uint64_t *v, size_t n, int dist) {
    for (size_t i = 0; i < n; i++) {
        uint64_t s = drawSample(dist);
        lathistRecord(h, s);
        v[i] = s < 1 ? 1 : s > LATHIST_MAX ? LATHIST_MAX : s; /* what the histogram saw */
    }
    qsort(v, n, sizeof(*v), cmpU64);
}

/* The reported value against the sorted samples: the sample of the same
 * rank, within the promised precision, on the promised side. */
static int percentileMatches(const uint64_t *sorted, size_t n, double p, uint64_t got) {
    uint64_t rank = (uint64_t)(p / 100.0 * (double)n + 0.5);
    if (rank < 1) rank = 1;
    if (rank > n) rank = n;
    uint64_t truth = sorted[rank - 1];
    uint64_t slack = truth < LATHIST_LINEAR ? 0 : truth / 128;
    if (p == 0.0) return got <= truth && truth - got <= slack;
    return got >= truth && got - truth <= slack;
}

static void test_percentiles_vs_brute_force(void) {
    static const double ps[] = {0, 0.0001, 1, 10, 25, 50, 75, 90, 99, 99.9, 99.99, 100};
    size_t n = test_scaled(20000);
    uint64_t *v = malloc(n * sizeof(*v));
    for (int dist = 0; dist < DIST_COUNT; dist++) {
        lathist *h = lathistCreate();
        fillSamples(h, v, n, dist);
        for (size_t j = 0; j < sizeof ps / sizeof ps[0]; j++) {
            uint64_t got = lathistPercentile(h, ps[j]);
            if (!CHECK(percentileMatches(v, n, ps[j], got)))
                printf("      distribution %d, p%g: got %" PRIu64 "\n", dist, ps[j], got);
        }
        lathistFree(h);
    }
    free(v);
}

static uint64_t countAtOrBelow(const uint64_t *sorted, size_t n, uint64_t x) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sorted[mid] <= x) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static void test_cdf_vs_brute_force(void) {
    size_t n = test_scaled(20000);
    uint64_t *v = malloc(n * sizeof(*v));
    for (int dist = 0; dist < DIST_COUNT; dist++) {
        lathist *h = lathistCreate();
        fillSamples(h, v, n, dist);
        lathistPoint pts[LATHIST_MAX_POINTS];
        int count = lathistPowerOfTwoCdf(h, 1024, pts);
        CHECK(count > 0);
        for (int j = 0; j < count; j++) {
            CHECK_EQ_U64(pts[j].cumulative, countAtOrBelow(v, n, pts[j].upper));
            if (j > 0) CHECK(pts[j].cumulative > pts[j - 1].cumulative && pts[j].upper > pts[j - 1].upper);
        }
        /* the walk ends at 2^29 ns: everything up to that level's bucket is counted */
        uint64_t last_edge = lathistUpperEdge(lathistIndex(1ULL << 29));
        CHECK_EQ_U64(pts[count - 1].cumulative, countAtOrBelow(v, n, last_edge));
        lathistFree(h);
    }
    free(v);
}

TEST_MAIN(
    RUN(test_layout_is_contiguous);
    RUN(test_bucket_width_bound);
    RUN(test_redis_numbers);
    RUN(test_clamping_and_empty);
    RUN(test_percentiles_vs_brute_force);
    RUN(test_cdf_vs_brute_force);
)
