/* hashtable_common.h -- the logic shared by the two chained hash tables:
 * dict.c (generic entries) and kvtable.c (the keyspace, entries embedded in
 * the values).
 *
 * Both tables have power-of-two sizes, rehash incrementally between two
 * tables, scan with a reverse-binary cursor and follow one global resize
 * policy (dictSetResizeEnabled(), see dict.h). What does not depend on the
 * entry layout lives here once, so the two tables cannot drift apart:
 *   - the scan cursor arithmetic and which buckets one SCAN call visits,
 *   - the order in which iterators and samplers walk the buckets,
 *   - the size and resize-policy math (when to grow, shrink, or let a rehash
 *     run while a fork child exists),
 *   - the per-table PRNG used for random sampling, and the clock,
 *   - the iterator fingerprint mixing,
 *   - the statistics text (HTSTATS, DEBUG HTSTATS-KEY), given chain counts.
 * Everything is static inline: the header has no .c file and no state.
 */
#ifndef REDIS_HASHTABLE_COMMON_H
#define REDIS_HASHTABLE_COMMON_H

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "platform.h"
#include "dict.h"

/* ---- sizes ------------------------------------------------------------- */

/* Exponent of the smallest power of two >= size, at least minExp; -1 when
 * that power of two does not fit in an unsigned long. */
static inline int htNextExp(unsigned long size, int minExp) {
    const int maxExp = (int)(sizeof(unsigned long) * CHAR_BIT) - 1;
    int exp = minExp;
    while ((1UL << exp) < size) {
        if (exp == maxExp) return -1;
        exp++;
    }
    return exp;
}

/* Bytes of a bucket array of 2^exp pointers, or 0 when it cannot be
 * represented in a size_t (a 32-bit target asked for a huge table). */
static inline size_t htBucketArrayBytes(int exp) {
    if (exp < 0) return 0;
    unsigned long buckets = 1UL << exp;
    if (buckets > SIZE_MAX / sizeof(void *)) return 0;
    return (size_t)buckets * sizeof(void *);
}

/* used/size < 1/k, without overflowing used * k. */
static inline int htFillBelow(unsigned long used, unsigned long size, unsigned long k) {
    return used <= ULONG_MAX / k && used * k < size;
}

/* ---- resize policy ------------------------------------------------------- */

/* Grow before an insert: at a load factor of 1, or, while a fork child
 * exists (AVOID), only once used/size exceeds DICT_FORCE_RESIZE_RATIO. */
static inline int htGrowWanted(dictResizeEnable policy, unsigned long used, unsigned long size) {
    if (policy == DICT_RESIZE_ENABLE) return used >= size;
    if (policy == DICT_RESIZE_AVOID) return used / size > DICT_FORCE_RESIZE_RATIO;
    return 0;
}

/* Shrink after a delete: below a fill of 1/DICT_HT_MIN_FILL, or under AVOID
 * below 1/(DICT_HT_MIN_FILL * DICT_FORCE_RESIZE_RATIO); never below the
 * initial size. */
static inline int htShrinkWanted(dictResizeEnable policy, unsigned long used, unsigned long size) {
    if (size <= DICT_HT_INITIAL_SIZE) return 0;
    if (policy == DICT_RESIZE_ENABLE) return htFillBelow(used, size, DICT_HT_MIN_FILL);
    if (policy == DICT_RESIZE_AVOID)
        return htFillBelow(used, size, DICT_HT_MIN_FILL * DICT_FORCE_RESIZE_RATIO);
    return 0;
}

/* With a fork child around (AVOID), only a resize by a large factor is worth
 * the copy-on-write it causes; FORBID stops all moves. */
static inline int htRehashAllowed(dictResizeEnable policy, unsigned long size0, unsigned long size1) {
    if (policy == DICT_RESIZE_ENABLE) return 1;
    if (policy == DICT_RESIZE_FORBID) return 0;
    unsigned long larger = size0 > size1 ? size0 : size1, smaller = size0 > size1 ? size1 : size0;
    return larger / smaller > DICT_FORCE_RESIZE_RATIO;
}

/* ---- scan cursor -----------------------------------------------------------
 * The cursor is a bucket index whose bits are incremented from the top down
 * (reverse binary). Because table sizes are powers of two, bucket i of a
 * table of size 2^n holds exactly the keys of buckets i, i + 2^n, i + 2*2^n
 * ... of any larger table, and those come right after each other in reverse
 * order; so the cursors already visited stay visited when the table grows or
 * shrinks between calls, and no surviving element is missed. During a
 * rehash, one call visits a bucket of the smaller table and every bucket of
 * the larger table that it expands to. */

static inline unsigned long htReverseBits(unsigned long v) {
    const unsigned long m1 = ~0UL / 3, m2 = ~0UL / 5, m4 = ~0UL / 17;
    v = ((v >> 1) & m1) | ((v & m1) << 1);
    v = ((v >> 2) & m2) | ((v & m2) << 2);
    v = ((v >> 4) & m4) | ((v & m4) << 4);
#if ULONG_MAX > 0xffffffffUL
    return (unsigned long)__builtin_bswap64((uint64_t)v);
#else
    return (unsigned long)__builtin_bswap32((uint32_t)v);
#endif
}

/* Increments the masked bits of the cursor starting from the most
 * significant one; setting the unmasked bits first makes the carry skip
 * over them. */
static inline unsigned long htScanNextCursor(unsigned long cursor, unsigned long mask) {
    cursor |= ~mask;
    cursor = htReverseBits(cursor);
    cursor++;
    return htReverseBits(cursor);
}

/* Visits the buckets one SCAN call covers and returns the next cursor:
 * visit(ctx, table, index) is called for the cursor's bucket of table 0,
 * or, while rehashing, for its bucket of the smaller table and then every
 * bucket of the larger table that it expands to. */
typedef void htBucketVisitor(void *ctx, int table, unsigned long index);

static inline unsigned long htScanBuckets(unsigned long cursor, int rehashing, unsigned long size0,
                                          unsigned long size1, htBucketVisitor *visit, void *ctx) {
    if (!rehashing) {
        visit(ctx, 0, cursor & (size0 - 1));
        return htScanNextCursor(cursor, size0 - 1);
    }
    int small = size0 <= size1 ? 0 : 1;
    unsigned long smallMask = (small ? size1 : size0) - 1, largeMask = (small ? size0 : size1) - 1;
    visit(ctx, small, cursor & smallMask);
    do {
        visit(ctx, !small, cursor & largeMask);
        cursor = htScanNextCursor(cursor, largeMask);
    } while (cursor & (smallMask ^ largeMask));
    return cursor;
}

/* ---- bucket sequences ---------------------------------------------------------
 * Iterators walk table 0 then (when rehashing) table 1. The sampling
 * functions see the buckets that can hold entries as one "live" sequence:
 * table 0 from rehashidx (or 0) to its end, then all of table 1. */

/* Moves an iterator position (table, index; index -1 before the start) to
 * the next bucket; returns 0 when both tables are done. */
static inline int htNextBucket(int *table, long *index, int rehashing, unsigned long size0,
                               unsigned long size1) {
    unsigned long size = *table == 0 ? size0 : size1;
    if ((unsigned long)++*index < size) return 1;
    if (*table == 1 || !rehashing) return 0;
    *table = 1;
    *index = 0;
    return size1 > 0;
}

static inline unsigned long htLiveBucketCount(long rehashidx, unsigned long size0, unsigned long size1) {
    if (rehashidx == -1) return size0;
    return size0 - (unsigned long)rehashidx + size1;
}

/* Table and index of live bucket i (i < htLiveBucketCount()). */
static inline int htLiveBucketAt(unsigned long i, long rehashidx, unsigned long size0,
                                 unsigned long *index) {
    unsigned long first = rehashidx == -1 ? 0 : (unsigned long)rehashidx;
    if (i < size0 - first) {
        *index = first + i;
        return 0;
    }
    *index = i - (size0 - first);
    return 1;
}

/* ---- randomness, time, fingerprints ---------------------------------------- */

/* splitmix64: tiny, fast, and good enough to pick buckets. */
static inline uint64_t htRandom(uint64_t *state) {
    uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Uniform in [0, n); n > 0. The modulo bias is below 2^-32 for any table. */
static inline unsigned long htRandomBelow(uint64_t *state, unsigned long n) {
    return (unsigned long)(htRandom(state) % n);
}

static inline uint64_t htMonotonicMicros(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* A seed that differs between tables and between runs. */
static inline uint64_t htRandomSeed(const void *table) {
    uintptr_t self = (uintptr_t)table;
    return dictGenHashFunction(&self, sizeof self) ^ htMonotonicMicros();
}

/* The state an unsafe iterator must find unchanged: both tables' array
 * pointer, size exponent and element count, mixed into one word. */
static inline uint64_t htFingerprint(const void *table0, int exp0, unsigned long used0,
                                     const void *table1, int exp1, unsigned long used1) {
    uint64_t parts[6] = {
        (uint64_t)(uintptr_t)table0, (uint64_t)exp0, used0,
        (uint64_t)(uintptr_t)table1, (uint64_t)exp1, used1,
    };
    uint64_t h = 0;
    for (int i = 0; i < 6; i++) {
        h = (h ^ parts[i]) * UINT64_C(0x9e3779b97f4a7c15);
        h ^= h >> 32;
    }
    return h;
}

/* ---- statistics text --------------------------------------------------------- */

typedef struct htStatsWriter {
    char *pos;
    size_t left; /* bytes left including the terminating NUL */
} htStatsWriter;

static inline void htStatsAppend(htStatsWriter *w, const char *fmt, ...) PRINTF_FMT(2, 3);
static inline void htStatsAppend(htStatsWriter *w, const char *fmt, ...) {
    if (w->left <= 1) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(w->pos, w->left, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    size_t written = (size_t)n < w->left - 1 ? (size_t)n : w->left - 1;
    w->pos += written;
    w->left -= written;
}

/* Chains of this length or longer are counted together in the last slot. */
#define HT_STATS_VECTLEN 50

typedef struct htChainStats {
    unsigned long lengths[HT_STATS_VECTLEN]; /* buckets with each chain length */
    unsigned long usedSlots, maxChain, totalChain;
} htChainStats;

/* Accounts for one bucket whose chain has `length` entries. */
static inline void htChainStatsAdd(htChainStats *cs, unsigned long length) {
    cs->lengths[length < HT_STATS_VECTLEN ? length : HT_STATS_VECTLEN - 1]++;
    if (length == 0) return;
    cs->usedSlots++;
    cs->totalChain += length;
    if (length > cs->maxChain) cs->maxChain = length;
}

/* The text block for one table; cs is only read when used > 0. */
static inline void htWriteTableStats(htStatsWriter *w, int table, unsigned long size,
                                     unsigned long used, const htChainStats *cs) {
    const char *role = table == 0 ? "main hash table" : "rehashing target";
    htStatsAppend(w, "Hash table %d stats (%s):\n", table, role);
    if (used == 0) {
        htStatsAppend(w, "No stats available for empty dictionaries\n");
        return;
    }
    htStatsAppend(w, " table size: %lu\n number of elements: %lu\n", size, used);
    htStatsAppend(w, " different slots: %lu\n max chain length: %lu\n", cs->usedSlots, cs->maxChain);
    htStatsAppend(w, " avg chain length (counted): %.02f\n",
                  (double)cs->totalChain / (double)cs->usedSlots);
    htStatsAppend(w, " avg chain length (computed): %.02f\n", (double)used / (double)cs->usedSlots);
    htStatsAppend(w, " Chain length distribution:\n");
    for (int i = 0; i < HT_STATS_VECTLEN; i++) {
        if (cs->lengths[i] == 0) continue;
        htStatsAppend(w, "   %d: %lu (%.02f%%)\n", i, cs->lengths[i],
                      100.0 * (double)cs->lengths[i] / (double)size);
    }
}

#endif /* REDIS_HASHTABLE_COMMON_H */
