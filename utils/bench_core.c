/* bench_core.c -- micro-benchmark of the core libraries (`make bench`).
 *
 * Reports SipHash-1-2 throughput on 16-byte and 1 KiB inputs (aligned and
 * at an odd offset), dict insert/lookup rates for 1M keys, and rax insert/
 * find/iterate rates and bytes per key for 1M 16-byte stream-ID keys (in
 * order, as streams add them, and in random order). Used to compare
 * the default build with ALIGNED_ACCESS=yes (utils/bench-aligned.sh runs both
 * side by side and prints ratios). Wall-clock figures: run on an idle core.
 *
 * Output is one "name value unit" line per measurement so scripts can parse it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dict.h"
#include "portable.h"
#include "rax.h"
#include "siphash.h"
#include "zmalloc.h"

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static volatile uint64_t sink;

static void bench_siphash(const char *label, size_t len, size_t offset, long iterations) {
    static _Alignas(16) unsigned char buf[1024 + 16];
    static const uint8_t key[16] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    for (size_t i = 0; i < sizeof buf; i++) buf[i] = (unsigned char)(i * 31);
    uint64_t acc = 0;
    double start = now_seconds();
    for (long i = 0; i < iterations; i++) {
        buf[offset] = (unsigned char)i; /* defeat hoisting the call out of the loop */
        acc += siphash(buf + offset, len, key);
    }
    double secs = now_seconds() - start;
    sink = acc;
    printf("%-28s %10.1f MB/s %8.1f ns/hash\n", label,
           (double)len * (double)iterations / secs / 1e6, secs * 1e9 / (double)iterations);
}

static uint64_t key_hash(const void *key) { return dictGenHashFunction(key, strlen(key)); }
static int key_compare(dict *d, const void *a, const void *b) { (void)d; return strcmp(a, b) == 0; }

static dictType bench_dict_type = {
    .hashFunction = key_hash,
    .keyCompare = key_compare,
};

static void bench_dict(long count) {
    char **keys = zmalloc(sizeof(char *) * (size_t)count);
    for (long i = 0; i < count; i++) {
        char tmp[32];
        snprintf(tmp, sizeof tmp, "key:%ld", i);
        keys[i] = zstrdup(tmp);
    }
    dict *d = dictCreate(&bench_dict_type);
    double start = now_seconds();
    for (long i = 0; i < count; i++) dictAdd(d, keys[i], NULL);
    double insert = now_seconds() - start;

    long found = 0;
    start = now_seconds();
    for (long i = 0; i < count; i++) found += dictFind(d, keys[(i * 7919) % count]) != NULL;
    double lookup = now_seconds() - start;

    printf("%-28s %10.2f Mops/s\n", "dict insert (1M keys)", (double)count / insert / 1e6);
    printf("%-28s %10.2f Mops/s (%ld found)\n", "dict lookup (1M keys)", (double)count / lookup / 1e6, found);
    dictRelease(d);
    for (long i = 0; i < count; i++) zfree(keys[i]);
    zfree(keys);
}

/* 16-byte big-endian (ms, seq) keys: ascending, or scattered by a
 * multiplicative hash (distinct, random order). */
static void bench_rax(const char *order, long count, int scattered) {
    unsigned char (*keys)[16] = zmalloc(sizeof(*keys) * (size_t)count);
    for (long i = 0; i < count; i++) {
        uint64_t n = scattered ? (uint64_t)i * 0x9E3779B97F4A7C15ULL : (uint64_t)i;
        store64be(keys[i], 1700000000000ULL + (n >> 2));
        store64be(keys[i] + 8, n & 3);
    }
    size_t before = zmalloc_used_memory();
    rax *r = raxNew();
    double start = now_seconds();
    for (long i = 0; i < count; i++) raxInsert(r, keys[i], 16, keys[i], NULL);
    double insert = now_seconds() - start;
    size_t used = zmalloc_used_memory() - before;

    long found = 0;
    start = now_seconds();
    for (long i = 0; i < count; i++) found += raxFind(r, keys[(i * 7919) % count], 16) != raxNotFound;
    double lookup = now_seconds() - start;

    long walked = 0;
    raxIterator it;
    raxStart(&it, r);
    start = now_seconds();
    raxSeek(&it, "^", NULL, 0);
    while (raxNext(&it)) walked++;
    double iterate = now_seconds() - start;
    raxStop(&it);

    char label[64];
    snprintf(label, sizeof label, "rax insert (1M, %s)", order);
    printf("%-28s %10.2f Mops/s\n", label, (double)count / insert / 1e6);
    snprintf(label, sizeof label, "rax find (1M, %s)", order);
    printf("%-28s %10.2f Mops/s (%ld found)\n", label, (double)count / lookup / 1e6, found);
    snprintf(label, sizeof label, "rax iterate (1M, %s)", order);
    printf("%-28s %10.2f Mkeys/s (%ld keys)\n", label, (double)walked / iterate / 1e6, walked);
    snprintf(label, sizeof label, "rax bytes/key (%s)", order);
    printf("%-28s %10.1f B/key (allocated %.1f)\n", label, (double)raxAllocSize(r) / (double)count,
           (double)used / (double)count);
    raxFree(r);
    zfree(keys);
}

int main(int argc, char **argv) {
    long scale = argc > 1 ? atol(argv[1]) : 1;
    if (scale < 1) scale = 1;
#ifdef USE_ALIGNED_ACCESS
    printf("build: USE_ALIGNED_ACCESS, allocator %s\n", zmalloc_allocator_name());
#else
    printf("build: default access, allocator %s\n", zmalloc_allocator_name());
#endif
    bench_siphash("siphash-1-2 16B", 16, 0, 20000000L / scale);
    bench_siphash("siphash-1-2 16B (odd addr)", 16, 1, 20000000L / scale);
    bench_siphash("siphash-1-2 1KB", 1024, 0, 400000L / scale);
    bench_siphash("siphash-1-2 1KB (odd addr)", 1024, 1, 400000L / scale);
    bench_dict(1000000L / scale);
    bench_rax("seq", 1000000L / scale, 0);
    bench_rax("random", 1000000L / scale, 1);
    return 0;
}
