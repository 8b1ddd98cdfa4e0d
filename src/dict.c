/* dict.c -- chained hash table with incremental rehashing (see dict.h for the
 * model and the resize policy).
 *
 * Design decisions:
 *  - Buckets are singly linked chains; a new entry goes to the head of its
 *    chain (cheap, and recently added keys are often looked up next).
 *  - While rehashing, lookups search table 0 and then table 1; inserts go to
 *    table 1 only, so table 0 only ever shrinks and the move finishes.
 *    Buckets of table 0 below rehashidx are known to be empty.
 *  - A rehash step moves one bucket but visits at most 10 empty ones, so a
 *    sparse table cannot turn one dictFind() into a long scan.
 *  - Resizing is decided in dictExpandIfNeeded() (before every insert) and
 *    dictShrinkIfNeeded() (after every delete); a table only ever starts to
 *    resize when no resize is under way. The target size is the next power
 *    of two >= the number of entries (at least 4 buckets).
 *  - The only mutable globals are the hash seed and the resize policy, both
 *    set by the server at start-up / around fork. The random-key functions
 *    use a small per-dict PRNG (splitmix64), so they need no global state.
 *  - Sizes are unsigned long, as in the API. Every size computation is
 *    checked: an expansion whose bucket array would not fit in size_t (easy
 *    to ask for on 32-bit targets) fails with DICT_ERR instead of wrapping.
 *  - Invariant violations (a modified dict under an unsafe iterator) are
 *    programming errors: they print one line to stderr and abort, whatever
 *    NDEBUG says.
 */
#include "dict.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "config.h"
#include "siphash.h"
#include "zmalloc.h"

static uint8_t dictHashSeed[SIPHASH_KEY_LEN];
static dictResizeEnable dictResizePolicy = DICT_RESIZE_ENABLE;

/* ---- small helpers ----------------------------------------------------- */

static void dictAssertFailed(const char *expr, const char *file, int line)
    __attribute__((noreturn));
static void dictAssertFailed(const char *expr, const char *file, int line) {
    fprintf(stderr, "dict: assertion failed: %s (%s:%d)\n", expr, file, line);
    abort();
}
#define dictAssert(cond) ((cond) ? (void)0 : dictAssertFailed(#cond, __FILE__, __LINE__))

static unsigned long htSize(const dict *d, int table) { return DICTHT_SIZE(d->ht_size_exp[table]); }
static unsigned long htMask(const dict *d, int table) { return DICTHT_SIZE_MASK(d->ht_size_exp[table]); }

static void htReset(dict *d, int table) {
    d->ht_table[table] = NULL;
    d->ht_size_exp[table] = -1;
    d->ht_used[table] = 0;
}

static int dictKeysEqual(dict *d, const void *key, const dictEntry *de) {
    return key == de->key || dictCompareKeys(d, key, de->key);
}

static void dictFreeEntry(dict *d, dictEntry *de) {
    dictFreeKey(d, de);
    dictFreeVal(d, de);
    zfree(de);
}

static uint64_t dictMonotonicMicros(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/* splitmix64: tiny, fast, and good enough to pick buckets. */
static uint64_t dictRandom(dict *d) {
    uint64_t z = (d->randomState += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Uniform in [0, n); n > 0. The modulo bias is below 2^-32 for any table. */
static unsigned long dictRandomBelow(dict *d, unsigned long n) {
    return (unsigned long)(dictRandom(d) % n);
}

/* ---- hash functions and global settings -------------------------------- */

void dictSetHashFunctionSeed(uint8_t *seed) { memcpy(dictHashSeed, seed, sizeof dictHashSeed); }
uint8_t *dictGetHashFunctionSeed(void) { return dictHashSeed; }

uint64_t dictGenHashFunction(const void *key, size_t len) {
    return siphash(key, len, dictHashSeed);
}

uint64_t dictGenCaseHashFunction(const unsigned char *buf, size_t len) {
    return siphash_nocase(buf, len, dictHashSeed);
}

void dictSetResizeEnabled(dictResizeEnable enable) { dictResizePolicy = enable; }
dictResizeEnable dictGetResizeEnabled(void) { return dictResizePolicy; }

/* ---- creation and destruction ------------------------------------------ */

dict *dictCreate(dictType *type) {
    dict *d = zmalloc(sizeof(*d));
    d->type = type;
    htReset(d, 0);
    htReset(d, 1);
    d->rehashidx = -1;
    d->pauserehash = 0;
    uintptr_t self = (uintptr_t)d;
    d->randomState = dictGenHashFunction(&self, sizeof self) ^ dictMonotonicMicros();
    return d;
}

/* Frees every entry of one table and the table itself. */
static void dictClearTable(dict *d, int table, void(callback)(dict *)) {
    unsigned long size = htSize(d, table);
    for (unsigned long i = 0; i < size && d->ht_used[table] > 0; i++) {
        if (callback && (i & 65535) == 0) callback(d);
        dictEntry *de = d->ht_table[table][i];
        while (de) {
            dictEntry *next = de->next;
            dictFreeEntry(d, de);
            d->ht_used[table]--;
            de = next;
        }
    }
    zfree(d->ht_table[table]);
    htReset(d, table);
}

void dictEmpty(dict *d, void(callback)(dict *)) {
    dictClearTable(d, 0, callback);
    dictClearTable(d, 1, callback);
    d->rehashidx = -1;
    d->pauserehash = 0;
}

void dictRelease(dict *d) {
    dictClearTable(d, 0, NULL);
    dictClearTable(d, 1, NULL);
    zfree(d);
}

/* ---- resizing ---------------------------------------------------------- */

/* Exponent of the smallest power of two >= size (at least the initial size),
 * or -1 when that power of two does not fit in an unsigned long. */
static int dictNextExp(unsigned long size) {
    int exp = DICT_HT_INITIAL_EXP;
    const int maxExp = (int)(sizeof(unsigned long) * CHAR_BIT) - 1;
    while ((1UL << exp) < size) {
        if (exp == maxExp) return -1;
        exp++;
    }
    return exp;
}

/* Starts a resize to hold `size` entries: a new table 1 to rehash into, or,
 * for a dict without a table yet, table 0 itself. */
static int dictResizeTo(dict *d, unsigned long size, int mayFail) {
    if (dictIsRehashing(d) || d->ht_used[0] > size) return DICT_ERR;
    int exp = dictNextExp(size);
    if (exp < 0 || exp == d->ht_size_exp[0]) return DICT_ERR;
    unsigned long buckets = 1UL << exp;
    if (buckets > SIZE_MAX / sizeof(dictEntry *)) return DICT_ERR;
    size_t bytes = (size_t)buckets * sizeof(dictEntry *);
    dictEntry **table = mayFail ? ztrycalloc(bytes) : zcalloc(bytes);
    if (table == NULL) return DICT_ERR;

    int target = d->ht_table[0] == NULL ? 0 : 1;
    d->ht_table[target] = table;
    d->ht_size_exp[target] = (signed char)exp;
    d->ht_used[target] = 0;
    if (target == 1) d->rehashidx = 0;
    return DICT_OK;
}

int dictExpand(dict *d, unsigned long size) { return dictResizeTo(d, size, 0); }
int dictTryExpand(dict *d, unsigned long size) { return dictResizeTo(d, size, 1); }

int dictResize(dict *d) {
    if (dictResizePolicy != DICT_RESIZE_ENABLE || dictIsRehashing(d)) return DICT_ERR;
    unsigned long minimal = d->ht_used[0];
    if (minimal < DICT_HT_INITIAL_SIZE) minimal = DICT_HT_INITIAL_SIZE;
    return dictResizeTo(d, minimal, 0);
}

static int dictTypeAllowsExpand(dict *d) {
    if (d->type->expandAllowed == NULL) return 1;
    int exp = dictNextExp(d->ht_used[0] + 1);
    size_t moreMem = SIZE_MAX;
    if (exp >= 0 && DICTHT_SIZE(exp) <= SIZE_MAX / sizeof(dictEntry *))
        moreMem = (size_t)DICTHT_SIZE(exp) * sizeof(dictEntry *);
    double usedRatio = (double)d->ht_used[0] / (double)htSize(d, 0);
    return d->type->expandAllowed(moreMem, usedRatio);
}

int dictExpandIfNeeded(dict *d) {
    if (dictIsRehashing(d)) return DICT_OK;
    if (d->ht_table[0] == NULL) return dictExpand(d, DICT_HT_INITIAL_SIZE);
    unsigned long size = htSize(d, 0), used = d->ht_used[0];
    int full = used >= size;
    int overfull = used / size > DICT_FORCE_RESIZE_RATIO;
    int wanted = (dictResizePolicy == DICT_RESIZE_ENABLE && full) ||
                 (dictResizePolicy == DICT_RESIZE_AVOID && overfull);
    if (!wanted || !dictTypeAllowsExpand(d)) return DICT_ERR;
    return dictExpand(d, used + 1);
}

/* used/size < 1/k, without overflowing used * k. */
static int dictFillBelow(unsigned long used, unsigned long size, unsigned long k) {
    return used <= ULONG_MAX / k && used * k < size;
}

int dictShrinkIfNeeded(dict *d) {
    if (dictIsRehashing(d)) return DICT_OK;
    unsigned long size = htSize(d, 0), used = d->ht_used[0];
    if (size <= DICT_HT_INITIAL_SIZE) return DICT_ERR;
    int sparse = dictFillBelow(used, size, DICT_HT_MIN_FILL);
    int verySparse = dictFillBelow(used, size, DICT_HT_MIN_FILL * DICT_FORCE_RESIZE_RATIO);
    int wanted = (dictResizePolicy == DICT_RESIZE_ENABLE && sparse) ||
                 (dictResizePolicy == DICT_RESIZE_AVOID && verySparse);
    if (!wanted) return DICT_ERR;
    return dictResizeTo(d, used, 0);
}

/* ---- incremental rehashing ---------------------------------------------- */

/* With a fork child around (AVOID), only a resize by a large factor is worth
 * the copy-on-write it causes; FORBID stops all moves. */
static int dictRehashAllowedNow(const dict *d) {
    if (dictResizePolicy == DICT_RESIZE_ENABLE) return 1;
    if (dictResizePolicy == DICT_RESIZE_FORBID) return 0;
    unsigned long s0 = htSize(d, 0), s1 = htSize(d, 1);
    unsigned long larger = s0 > s1 ? s0 : s1, smaller = s0 > s1 ? s1 : s0;
    return larger / smaller > DICT_FORCE_RESIZE_RATIO;
}

static void dictMoveBucket(dict *d, unsigned long index) {
    dictEntry *de = d->ht_table[0][index];
    unsigned long mask = htMask(d, 1);
    while (de) {
        dictEntry *next = de->next;
        unsigned long target = dictHashKey(d, de->key) & mask;
        de->next = d->ht_table[1][target];
        d->ht_table[1][target] = de;
        d->ht_used[0]--;
        d->ht_used[1]++;
        de = next;
    }
    d->ht_table[0][index] = NULL;
}

/* Installs table 1 as table 0. When that was a shrink, deletes made during
 * it may already call for a smaller table, and that resize starts right
 * away: otherwise a dict emptied while shrinking would keep its size until
 * the next delete. After a growth nothing is checked, so a table expanded
 * ahead of a bulk insert is not shrunk back before the inserts arrive. */
static void dictFinishRehash(dict *d) {
    int wasShrink = d->ht_size_exp[1] < d->ht_size_exp[0];
    zfree(d->ht_table[0]);
    d->ht_table[0] = d->ht_table[1];
    d->ht_size_exp[0] = d->ht_size_exp[1];
    d->ht_used[0] = d->ht_used[1];
    htReset(d, 1);
    d->rehashidx = -1;
    if (wasShrink) dictShrinkIfNeeded(d);
}

/* Moves up to n buckets, visiting at most n*10 empty ones. Returns 1 if
 * entries remain to be moved (including a follow-up shrink that completing
 * this rehash started), 0 if the rehash is complete or cannot run now (not
 * rehashing, paused by an iterator or scan, or held by the policy). */
int dictRehash(dict *d, int n) {
    if (!dictIsRehashing(d) || d->pauserehash > 0 || !dictRehashAllowedNow(d)) return 0;
    long long emptyVisits = (long long)n * 10;
    unsigned long size0 = htSize(d, 0);
    while (n-- > 0 && d->ht_used[0] != 0) {
        dictAssert((unsigned long)d->rehashidx < size0);
        while (d->ht_table[0][d->rehashidx] == NULL) {
            d->rehashidx++;
            if (--emptyVisits <= 0) return 1;
        }
        dictMoveBucket(d, (unsigned long)d->rehashidx);
        d->rehashidx++;
    }
    if (d->ht_used[0] != 0) return 1;
    dictFinishRehash(d);
    return dictIsRehashing(d);
}

int dictRehashMilliseconds(dict *d, int ms) {
    if (d->pauserehash > 0) return 0;
    uint64_t deadline = dictMonotonicMicros() + (uint64_t)(ms > 0 ? ms : 0) * 1000u;
    int moved = 0;
    while (dictRehash(d, 100)) {
        moved += 100;
        if (dictMonotonicMicros() > deadline) break;
    }
    return moved;
}

static void dictRehashStep(dict *d) {
    if (d->pauserehash == 0) dictRehash(d, 1);
}

/* ---- lookup, insert, delete -------------------------------------------- */

/* Searches both tables without a rehash step. */
static dictEntry *dictLookup(dict *d, const void *key, uint64_t hash) {
    for (int table = 0; table <= 1; table++) {
        if (d->ht_table[table] == NULL) continue;
        dictEntry *de = d->ht_table[table][hash & htMask(d, table)];
        for (; de; de = de->next)
            if (dictKeysEqual(d, key, de)) return de;
        if (!dictIsRehashing(d)) break;
    }
    return NULL;
}

dictEntry *dictFind(dict *d, const void *key) {
    if (dictSize(d) == 0) return NULL;
    if (dictIsRehashing(d)) dictRehashStep(d);
    return dictLookup(d, key, dictHashKey(d, key));
}

void *dictFetchValue(dict *d, const void *key) {
    dictEntry *de = dictFind(d, key);
    return de ? dictGetVal(de) : NULL;
}

uint64_t dictGetHash(dict *d, const void *key) { return dictHashKey(d, key); }

/* Adds an entry for key with a zeroed value, or returns NULL and sets
 * *existing (if given) when the key is already present. */
dictEntry *dictAddRaw(dict *d, void *key, dictEntry **existing) {
    if (dictIsRehashing(d)) dictRehashStep(d);
    dictExpandIfNeeded(d);
    uint64_t hash = dictHashKey(d, key);
    dictEntry *found = dictLookup(d, key, hash);
    if (found) {
        if (existing) *existing = found;
        return NULL;
    }
    int table = dictIsRehashing(d) ? 1 : 0;
    dictEntry **bucket = &d->ht_table[table][hash & htMask(d, table)];
    dictEntry *de = zmalloc(sizeof(*de));
    de->v.u64 = 0;
    de->next = *bucket;
    *bucket = de;
    d->ht_used[table]++;
    dictSetKey(d, de, key);
    return de;
}

int dictAdd(dict *d, void *key, void *val) {
    dictEntry *de = dictAddRaw(d, key, NULL);
    if (de == NULL) return DICT_ERR;
    dictSetVal(d, de, val);
    return DICT_OK;
}

dictEntry *dictAddOrFind(dict *d, void *key) {
    dictEntry *existing;
    dictEntry *de = dictAddRaw(d, key, &existing);
    return de ? de : existing;
}

/* The new value is set before the old one is freed: they may be the same
 * reference-counted object. */
int dictReplace(dict *d, void *key, void *val) {
    dictEntry *existing;
    dictEntry *de = dictAddRaw(d, key, &existing);
    if (de) {
        dictSetVal(d, de, val);
        return 1;
    }
    dictEntry old = *existing;
    dictSetVal(d, existing, val);
    dictFreeVal(d, &old);
    return 0;
}

/* Removes the entry for key from its chain and returns it, or NULL. */
static dictEntry *dictDetach(dict *d, const void *key) {
    if (dictSize(d) == 0) return NULL;
    if (dictIsRehashing(d)) dictRehashStep(d);
    uint64_t hash = dictHashKey(d, key);
    for (int table = 0; table <= 1; table++) {
        if (d->ht_table[table] == NULL) continue;
        dictEntry **link = &d->ht_table[table][hash & htMask(d, table)];
        for (; *link; link = &(*link)->next) {
            dictEntry *de = *link;
            if (!dictKeysEqual(d, key, de)) continue;
            *link = de->next;
            de->next = NULL;
            d->ht_used[table]--;
            return de;
        }
        if (!dictIsRehashing(d)) break;
    }
    return NULL;
}

int dictDelete(dict *d, const void *key) {
    dictEntry *de = dictDetach(d, key);
    if (de == NULL) return DICT_ERR;
    dictFreeEntry(d, de);
    dictShrinkIfNeeded(d);
    return DICT_OK;
}

/* Like dictDelete, but hands the entry to the caller, who can still read it
 * and must then call dictFreeUnlinkedEntry(). */
dictEntry *dictUnlink(dict *d, const void *key) {
    dictEntry *de = dictDetach(d, key);
    if (de) dictShrinkIfNeeded(d);
    return de;
}

void dictFreeUnlinkedEntry(dict *d, dictEntry *de) {
    if (de) dictFreeEntry(d, de);
}

/* Finds the link (bucket slot or `next` field) that points to the entry whose
 * key is the pointer oldptr, given its precomputed hash. No rehash step. */
dictEntry **dictFindEntryRefByPtrAndHash(dict *d, const void *oldptr, uint64_t hash) {
    if (dictSize(d) == 0) return NULL;
    for (int table = 0; table <= 1; table++) {
        if (d->ht_table[table] == NULL) continue;
        dictEntry **link = &d->ht_table[table][hash & htMask(d, table)];
        for (; *link; link = &(*link)->next)
            if ((*link)->key == oldptr) return link;
        if (!dictIsRehashing(d)) break;
    }
    return NULL;
}

/* ---- iterators --------------------------------------------------------- */

/* A digest of everything a rehash step or an insert/delete changes. */
static uint64_t dictFingerprint(const dict *d) {
    uint64_t parts[6] = {
        (uint64_t)(uintptr_t)d->ht_table[0], (uint64_t)d->ht_size_exp[0], d->ht_used[0],
        (uint64_t)(uintptr_t)d->ht_table[1], (uint64_t)d->ht_size_exp[1], d->ht_used[1],
    };
    uint64_t h = 0;
    for (int i = 0; i < 6; i++) {
        h = (h ^ parts[i]) * UINT64_C(0x9e3779b97f4a7c15);
        h ^= h >> 32;
    }
    return h;
}

dictIterator *dictGetIterator(dict *d) {
    dictIterator *iter = zmalloc(sizeof(*iter));
    iter->d = d;
    iter->index = -1;
    iter->table = 0;
    iter->safe = 0;
    iter->entry = NULL;
    iter->nextEntry = NULL;
    iter->fingerprint = 0;
    return iter;
}

dictIterator *dictGetSafeIterator(dict *d) {
    dictIterator *iter = dictGetIterator(d);
    iter->safe = 1;
    return iter;
}

static int dictIteratorStarted(const dictIterator *iter) {
    return !(iter->index == -1 && iter->table == 0);
}

/* Moves to the next bucket; returns 0 when both tables are exhausted. */
static int dictIteratorNextBucket(dictIterator *iter) {
    dict *d = iter->d;
    iter->index++;
    if ((unsigned long)iter->index >= htSize(d, iter->table)) {
        if (iter->table == 1 || !dictIsRehashing(d)) return 0;
        iter->table = 1;
        iter->index = 0;
    }
    iter->entry = d->ht_table[iter->table][iter->index];
    return 1;
}

dictEntry *dictNext(dictIterator *iter) {
    if (!dictIteratorStarted(iter)) {
        if (iter->safe) dictPauseRehashing(iter->d);
        else iter->fingerprint = dictFingerprint(iter->d);
    }
    /* nextEntry is saved so the caller may delete the returned entry. */
    iter->entry = iter->entry ? iter->nextEntry : NULL;
    while (iter->entry == NULL) {
        if (!dictIteratorNextBucket(iter)) return NULL;
    }
    iter->nextEntry = iter->entry->next;
    return iter->entry;
}

void dictReleaseIterator(dictIterator *iter) {
    if (dictIteratorStarted(iter)) {
        if (iter->safe) dictResumeRehashing(iter->d);
        else dictAssert(iter->fingerprint == dictFingerprint(iter->d));
    }
    zfree(iter);
}

/* ---- random sampling --------------------------------------------------- */

static dictEntry *dictRandomEntryOfChain(dict *d, dictEntry *head) {
    unsigned long length = 0;
    for (dictEntry *de = head; de; de = de->next) length++;
    unsigned long pick = dictRandomBelow(d, length);
    while (pick--) head = head->next;
    return head;
}

/* While rehashing, the non-empty buckets are table 0's [rehashidx, size0)
 * and all of table 1; both are drawn from as one range. */
static dictEntry *dictRandomNonEmptyBucket(dict *d) {
    dictEntry *head;
    if (!dictIsRehashing(d)) {
        do head = d->ht_table[0][dictRandomBelow(d, htSize(d, 0))]; while (!head);
        return head;
    }
    unsigned long first = (unsigned long)d->rehashidx, size0 = htSize(d, 0);
    unsigned long span = size0 - first + htSize(d, 1);
    do {
        unsigned long i = first + dictRandomBelow(d, span);
        head = i < size0 ? d->ht_table[0][i] : d->ht_table[1][i - size0];
    } while (!head);
    return head;
}

dictEntry *dictGetRandomKey(dict *d) {
    if (dictSize(d) == 0) return NULL;
    if (dictIsRehashing(d)) dictRehashStep(d);
    return dictRandomEntryOfChain(d, dictRandomNonEmptyBucket(d));
}

/* The buckets that can hold entries, seen as one sequence: table 0 from
 * rehashidx (or 0) to its end, then table 1 when rehashing. */
static unsigned long dictLiveBucketCount(const dict *d) {
    if (!dictIsRehashing(d)) return htSize(d, 0);
    return htSize(d, 0) - (unsigned long)d->rehashidx + htSize(d, 1);
}

static dictEntry *dictLiveBucket(const dict *d, unsigned long i) {
    if (!dictIsRehashing(d)) return d->ht_table[0][i];
    unsigned long inTable0 = htSize(d, 0) - (unsigned long)d->rehashidx;
    if (i < inTable0) return d->ht_table[0][(unsigned long)d->rehashidx + i];
    return d->ht_table[1][i - inTable0];
}

/* Collects up to count distinct entries from consecutive buckets starting at
 * a random one, visiting at most count*10 buckets and each bucket at most
 * once. Fast but not uniform: see dictGetFairRandomKey(). */
unsigned int dictGetSomeKeys(dict *d, dictEntry **des, unsigned int count) {
    if (dictSize(d) < count) count = (unsigned int)dictSize(d);
    if (count == 0) return 0;
    for (unsigned int i = 0; i < count && dictIsRehashing(d); i++) dictRehashStep(d);

    unsigned long buckets = dictLiveBucketCount(d);
    uint64_t maxVisits = (uint64_t)count * 10;
    if (maxVisits > buckets) maxVisits = buckets;
    unsigned long i = dictRandomBelow(d, buckets);
    unsigned int stored = 0;
    for (uint64_t visit = 0; visit < maxVisits && stored < count; visit++) {
        for (dictEntry *de = dictLiveBucket(d, i); de && stored < count; de = de->next)
            des[stored++] = de;
        i = (i + 1 == buckets) ? 0 : i + 1;
    }
    return stored;
}

/* dictGetRandomKey() favours entries in short chains; picking among a sample
 * of consecutive buckets evens that out. */
#define DICT_FAIR_SAMPLE_SIZE 20

dictEntry *dictGetFairRandomKey(dict *d) {
    dictEntry *sample[DICT_FAIR_SAMPLE_SIZE];
    unsigned int n = dictGetSomeKeys(d, sample, DICT_FAIR_SAMPLE_SIZE);
    if (n == 0) return dictGetRandomKey(d);
    return sample[dictRandomBelow(d, n)];
}

/* ---- scan ------------------------------------------------------------------
 * The cursor is a bucket index whose bits are incremented from the top down
 * (reverse binary). Because table sizes are powers of two, bucket i of a
 * table of size 2^n holds exactly the keys of buckets i, i + 2^n, i + 2*2^n
 * ... of any larger table, and those come right after each other in reverse
 * order; so the cursors already visited stay visited when the table grows or
 * shrinks between calls, and no surviving element is missed. During a
 * rehash, one call visits a bucket of the smaller table and every bucket of
 * the larger table that it expands to. */

static unsigned long dictReverseBits(unsigned long v) {
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
static unsigned long dictScanNextCursor(unsigned long cursor, unsigned long mask) {
    cursor |= ~mask;
    cursor = dictReverseBits(cursor);
    cursor++;
    return dictReverseBits(cursor);
}

/* The callback may delete the entry it is given. */
static void dictScanChain(dictEntry *de, dictScanFunction *fn, void *privdata) {
    while (de) {
        dictEntry *next = de->next;
        fn(privdata, de);
        de = next;
    }
}

unsigned long dictScan(dict *d, unsigned long cursor, dictScanFunction *fn, void *privdata) {
    if (dictSize(d) == 0) return 0;
    dictPauseRehashing(d);
    if (!dictIsRehashing(d)) {
        unsigned long mask = htMask(d, 0);
        dictScanChain(d->ht_table[0][cursor & mask], fn, privdata);
        cursor = dictScanNextCursor(cursor, mask);
    } else {
        int small = htSize(d, 0) <= htSize(d, 1) ? 0 : 1, large = 1 - small;
        unsigned long smallMask = htMask(d, small), largeMask = htMask(d, large);
        dictScanChain(d->ht_table[small][cursor & smallMask], fn, privdata);
        do {
            dictScanChain(d->ht_table[large][cursor & largeMask], fn, privdata);
            cursor = dictScanNextCursor(cursor, largeMask);
        } while (cursor & (smallMask ^ largeMask));
    }
    dictResumeRehashing(d);
    return cursor;
}

/* ---- statistics -------------------------------------------------------- */

typedef struct statsWriter {
    char *pos;
    size_t left;  /* bytes left including the terminating NUL */
} statsWriter;

static void statsAppend(statsWriter *w, const char *fmt, ...) PRINTF_FMT(2, 3);
static void statsAppend(statsWriter *w, const char *fmt, ...) {
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
#define DICT_STATS_VECTLEN 50

typedef struct chainStats {
    unsigned long lengths[DICT_STATS_VECTLEN]; /* buckets with each chain length */
    unsigned long usedSlots, maxChain, totalChain;
} chainStats;

static void dictCountChains(const dict *d, int table, chainStats *cs) {
    memset(cs, 0, sizeof(*cs));
    for (unsigned long i = 0; i < htSize(d, table); i++) {
        unsigned long length = 0;
        for (dictEntry *de = d->ht_table[table][i]; de; de = de->next) length++;
        cs->lengths[length < DICT_STATS_VECTLEN ? length : DICT_STATS_VECTLEN - 1]++;
        if (length == 0) continue;
        cs->usedSlots++;
        cs->totalChain += length;
        if (length > cs->maxChain) cs->maxChain = length;
    }
}

static void dictTableStats(statsWriter *w, const dict *d, int table) {
    const char *role = table == 0 ? "main hash table" : "rehashing target";
    unsigned long size = htSize(d, table), used = d->ht_used[table];
    statsAppend(w, "Hash table %d stats (%s):\n", table, role);
    if (used == 0) {
        statsAppend(w, "No stats available for empty dictionaries\n");
        return;
    }
    chainStats cs;
    dictCountChains(d, table, &cs);
    statsAppend(w, " table size: %lu\n number of elements: %lu\n", size, used);
    statsAppend(w, " different slots: %lu\n max chain length: %lu\n", cs.usedSlots, cs.maxChain);
    statsAppend(w, " avg chain length (counted): %.02f\n",
                (double)cs.totalChain / (double)cs.usedSlots);
    statsAppend(w, " avg chain length (computed): %.02f\n", (double)used / (double)cs.usedSlots);
    statsAppend(w, " Chain length distribution:\n");
    for (int i = 0; i < DICT_STATS_VECTLEN; i++) {
        if (cs.lengths[i] == 0) continue;
        statsAppend(w, "   %d: %lu (%.02f%%)\n", i, cs.lengths[i],
                    100.0 * (double)cs.lengths[i] / (double)size);
    }
}

void dictGetStats(char *buf, size_t bufsize, dict *d) {
    if (bufsize == 0) return;
    statsWriter w = {buf, bufsize};
    buf[0] = '\0';
    dictTableStats(&w, d, 0);
    if (dictIsRehashing(d)) dictTableStats(&w, d, 1);
}
