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
 *    programming errors: libAssert() (libassert.h) reports them through the
 *    program's assert handler and aborts, whatever NDEBUG says.
 *  - The size, resize-policy, scan-cursor, sampling and statistics logic is
 *    shared with the keyspace table (kvtable.c) through hashtable_common.h.
 */
#include "dict.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libassert.h"
#include "platform.h"
#include "hashtable_common.h"
#include "siphash.h"
#include "zmalloc.h"

static uint8_t dictHashSeed[SIPHASH_KEY_LEN];
static dictResizeEnable dictResizePolicy = DICT_RESIZE_ENABLE;

/* ---- small helpers ----------------------------------------------------- */

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

static unsigned long dictRandomBelow(dict *d, unsigned long n) {
    return htRandomBelow(&d->randomState, n);
}

/* ---- hash functions and global settings -------------------------------- */

unsigned dictHashSeedGeneration; /* changes with the seed: lets callers cache hashes */

void dictSetHashFunctionSeed(uint8_t *seed) {
    memcpy(dictHashSeed, seed, sizeof dictHashSeed);
    dictHashSeedGeneration++;
}
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
    d->randomState = htRandomSeed(d);
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

/* Starts a resize to hold `size` entries: a new table 1 to rehash into, or,
 * for a dict without a table yet, table 0 itself. */
static int dictResizeTo(dict *d, unsigned long size, int mayFail) {
    if (dictIsRehashing(d) || d->ht_used[0] > size) return DICT_ERR;
    int exp = htNextExp(size, DICT_HT_INITIAL_EXP);
    if (exp < 0 || exp == d->ht_size_exp[0]) return DICT_ERR;
    size_t bytes = htBucketArrayBytes(exp);
    if (bytes == 0) return DICT_ERR;
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
    size_t moreMem = htBucketArrayBytes(htNextExp(d->ht_used[0] + 1, DICT_HT_INITIAL_EXP));
    if (moreMem == 0) moreMem = SIZE_MAX;
    double usedRatio = (double)d->ht_used[0] / (double)htSize(d, 0);
    return d->type->expandAllowed(moreMem, usedRatio);
}

int dictExpandIfNeeded(dict *d) {
    if (dictIsRehashing(d)) return DICT_OK;
    if (d->ht_table[0] == NULL) return dictExpand(d, DICT_HT_INITIAL_SIZE);
    unsigned long used = d->ht_used[0];
    if (!htGrowWanted(dictResizePolicy, used, htSize(d, 0)) || !dictTypeAllowsExpand(d))
        return DICT_ERR;
    return dictExpand(d, used + 1);
}

int dictShrinkIfNeeded(dict *d) {
    if (dictIsRehashing(d)) return DICT_OK;
    unsigned long used = d->ht_used[0];
    if (!htShrinkWanted(dictResizePolicy, used, htSize(d, 0))) return DICT_ERR;
    return dictResizeTo(d, used, 0);
}

/* ---- incremental rehashing ---------------------------------------------- */

static int dictRehashAllowedNow(const dict *d) {
    return htRehashAllowed(dictResizePolicy, htSize(d, 0), htSize(d, 1));
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
        libAssert((unsigned long)d->rehashidx < size0);
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
    uint64_t deadline = htMonotonicMicros() + (uint64_t)(ms > 0 ? ms : 0) * 1000u;
    int moved = 0;
    while (dictRehash(d, 100)) {
        moved += 100;
        if (htMonotonicMicros() > deadline) break;
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

void dictDefragTables(dict *d, void *(*move)(void *block)) {
    for (int i = 0; i < 2; i++) {
        if (d->ht_table[i] == NULL) continue;
        dictEntry **moved = move(d->ht_table[i]);
        if (moved) d->ht_table[i] = moved;
    }
}

/* ---- iterators --------------------------------------------------------- */

/* A digest of everything a rehash step or an insert/delete changes. */
static uint64_t dictFingerprint(const dict *d) {
    return htFingerprint(d->ht_table[0], d->ht_size_exp[0], d->ht_used[0],
                         d->ht_table[1], d->ht_size_exp[1], d->ht_used[1]);
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
    if (!htNextBucket(&iter->table, &iter->index, dictIsRehashing(d), htSize(d, 0), htSize(d, 1)))
        return 0;
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
        else libAssert(iter->fingerprint == dictFingerprint(iter->d));
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

/* The buckets that can hold entries, seen as one sequence (see
 * hashtable_common.h). */
static unsigned long dictLiveBucketCount(const dict *d) {
    return htLiveBucketCount(d->rehashidx, htSize(d, 0), htSize(d, 1));
}

static dictEntry *dictLiveBucket(const dict *d, unsigned long i) {
    unsigned long index;
    int table = htLiveBucketAt(i, d->rehashidx, htSize(d, 0), &index);
    return d->ht_table[table][index];
}

static dictEntry *dictRandomNonEmptyBucket(dict *d) {
    unsigned long live = dictLiveBucketCount(d);
    dictEntry *head;
    do head = dictLiveBucket(d, dictRandomBelow(d, live)); while (!head);
    return head;
}

dictEntry *dictGetRandomKey(dict *d) {
    if (dictSize(d) == 0) return NULL;
    if (dictIsRehashing(d)) dictRehashStep(d);
    return dictRandomEntryOfChain(d, dictRandomNonEmptyBucket(d));
}

/* Collects up to count distinct entries from consecutive buckets starting at
 * a random one, visiting at most count*10 buckets and each bucket at most
 * once. The bucket where the sample fills up is read to its end, each
 * further entry taking a random place in the sample with probability
 * count/seen (reservoir sampling): otherwise the tail of a chain longer than
 * count could never be sampled. Fast but not uniform: see
 * dictGetFairRandomKey(). */
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
        unsigned long seen = stored;
        for (dictEntry *de = dictLiveBucket(d, i); de; de = de->next, seen++) {
            unsigned long slot = seen < count ? seen : dictRandomBelow(d, seen + 1);
            if (slot < count) des[slot] = de;
        }
        stored = seen < count ? (unsigned int)seen : count;
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

/* ---- scan (cursor arithmetic: hashtable_common.h) ------------------------ */

typedef struct dictScanState {
    dict *d;
    dictScanFunction *fn;
    void *privdata;
} dictScanState;

/* Calls fn on each entry of one bucket; fn may delete the entry it gets. */
static void dictScanBucket(void *ctx, int table, unsigned long index) {
    dictScanState *scan = ctx;
    dictEntry *de = scan->d->ht_table[table][index];
    while (de) {
        dictEntry *next = de->next;
        scan->fn(scan->privdata, de);
        de = next;
    }
}

unsigned long dictScan(dict *d, unsigned long cursor, dictScanFunction *fn, void *privdata) {
    if (dictSize(d) == 0) return 0;
    dictScanState scan = {d, fn, privdata};
    dictPauseRehashing(d);
    cursor = htScanBuckets(cursor, dictIsRehashing(d), htSize(d, 0), htSize(d, 1), dictScanBucket, &scan);
    dictResumeRehashing(d);
    return cursor;
}

unsigned long dictTableSizeFor(unsigned long entries) {
    int exp = htNextExp(entries, DICT_HT_INITIAL_EXP);
    return exp < 0 ? 0 : 1UL << exp;
}

unsigned long dictScanCursorAfter(unsigned long cursor, unsigned long size) {
    return htScanNextCursor(cursor, size - 1);
}

/* ---- statistics (text format: hashtable_common.h) ------------------------ */

static void dictTableStats(htStatsWriter *w, const dict *d, int table) {
    htChainStats cs;
    memset(&cs, 0, sizeof cs);
    for (unsigned long i = 0; i < htSize(d, table); i++) {
        unsigned long length = 0;
        for (dictEntry *de = d->ht_table[table][i]; de; de = de->next) length++;
        htChainStatsAdd(&cs, length);
    }
    htWriteTableStats(w, table, htSize(d, table), d->ht_used[table], &cs);
}

void dictGetStats(char *buf, size_t bufsize, dict *d) {
    if (bufsize == 0) return;
    htStatsWriter w = {buf, bufsize};
    buf[0] = '\0';
    dictTableStats(&w, d, 0);
    if (dictIsRehashing(d)) dictTableStats(&w, d, 1);
}
