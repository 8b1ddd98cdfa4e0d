/* test_kvtable.c -- unit tests for src/lib/kvtable.c, the keyspace hash table.
 *
 * Entries are real kvobjs ("key:<i>" with the integer i as an INT value, so
 * no second allocation), freed by a counting destructor; most tests check
 * the table against a plain array of "present" flags and end by checking
 * that the allocator's byte count is back where it started.
 *
 * Sizes scale with the TEST_SCALE environment variable (a factor, default 1:
 * 100k keys for the bulk test); slow emulators may set e.g. TEST_SCALE=0.2.
 * The resize policy is global (dict.c's), so every test that changes it
 * puts it back.
 *
 * The ordered cursor's tests (walkAndCheck) pin the guarantees listed in
 * kvtable.h that the forkless snapshot's write barrier (src/snapshot.c)
 * relies on: on a stable table, across a grow or a shrink under way when
 * the walk starts, and across one that starts while it runs.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dict.h"
#include "kvobj.h"
#include "kvtable.h"
#include "kvtable_private.h" /* white-box: rehashidx, used[], pauserehash, sizeExp[] */
#include "test.h"
#include "zmalloc.h"

/* ---- entries ----------------------------------------------------------------------- */

static long destroyed;

static void freeEntry(kvobj *o) {
    destroyed++;
    zfree(o); /* INT values own nothing else */
}

static kvtableType countingType = {freeEntry, NULL};

static size_t keyName(char *buf, size_t size, unsigned long i) {
    return (size_t)snprintf(buf, size, "key:%lu", i);
}

static kvobj *entryFor(unsigned long i) {
    robj *val = zcalloc(sizeof(robj));
    val->type = OBJ_STRING;
    val->encoding = OBJ_ENCODING_INT;
    val->refcount = 1;
    val->ptr = (void *)(uintptr_t)i;
    char key[32];
    return kvobjCreate(key, keyName(key, sizeof key, i), val, -1);
}

static unsigned long entryIndex(const kvobj *o) { return (unsigned long)(uintptr_t)o->ptr; }

static kvobj *findIndex(kvtable *t, unsigned long i) {
    char key[32];
    return kvtableFind(t, key, keyName(key, sizeof key, i));
}

static int deleteIndex(kvtable *t, unsigned long i) {
    char key[32];
    return kvtableDelete(t, key, keyName(key, sizeof key, i));
}

static kvtable *tableWith(unsigned long n) {
    kvtable *t = kvtableCreate(&countingType);
    for (unsigned long i = 0; i < n; i++) kvtableAdd(t, entryFor(i), NULL);
    return t;
}

static void finishRehash(kvtable *t) {
    while (kvtableRehash(t, 1000)) {}
}

/* The bucket of table 0 an entry's key falls in. */
static unsigned long bucketOf(kvtable *t, unsigned long i) {
    char key[32];
    return (unsigned long)(kvtableHashKey(key, keyName(key, sizeof key, i)) & (kvtableSlots(t) - 1));
}

/* ---- basics --------------------------------------------------------------------------- */

static void countCalls(void *privdata, kvobj *o) {
    (void)o;
    unsigned long *calls = privdata;
    ++*calls;
}

static void test_empty_table(void) {
    size_t start = zmalloc_used_memory();
    kvtable *t = kvtableCreate(&countingType);
    CHECK_EQ_INT(kvtableSize(t), 0);
    CHECK_EQ_INT(kvtableSlots(t), 0);
    CHECK(kvtableFind(t, "x", 1) == NULL);
    CHECK(kvtableUnlink(t, "x", 1) == NULL);
    CHECK_EQ_INT(kvtableDelete(t, "x", 1), KVTABLE_ERR);
    CHECK(kvtableGetRandomKey(t) == NULL);
    CHECK(kvtableGetFairRandomKey(t) == NULL);
    kvobj *some[4];
    CHECK_EQ_INT(kvtableGetSomeKeys(t, some, 4), 0);
    unsigned long calls = 0;
    CHECK_EQ_INT(kvtableScan(t, 0, countCalls, &calls), 0);
    CHECK_EQ_INT(calls, 0);
    kvtableIterator *iter = kvtableGetIterator(t);
    CHECK(kvtableNext(iter) == NULL);
    kvtableReleaseIterator(iter);
    CHECK_EQ_INT(kvtableRehash(t, 10), 0);
    CHECK_EQ_INT(kvtableShrinkIfNeeded(t), KVTABLE_ERR);
    kvtableRelease(t);
    CHECK_EQ_INT(zmalloc_used_memory(), start);
}

/* Adds, finds, replaces and deletes many keys against a reference array,
 * through growth and shrinking; memory returns to the start. */
static void test_add_find_replace_delete_at_scale(void) {
    size_t start = zmalloc_used_memory();
    unsigned long n = test_scaled(100000);
    destroyed = 0;
    kvtable *t = tableWith(n);
    CHECK_EQ_INT(kvtableSize(t), n);
    unsigned long wrong = 0;
    for (unsigned long i = 0; i < n; i++) {
        kvobj *o = findIndex(t, i);
        wrong += o == NULL || entryIndex(o) != i;
    }
    CHECK_EQ_INT(wrong, 0);
    CHECK(findIndex(t, n) == NULL);

    kvobj *dup = entryFor(7), *existing = NULL;
    CHECK_EQ_INT(kvtableAdd(t, dup, &existing), KVTABLE_ERR);
    CHECK(existing == findIndex(t, 7));
    CHECK_EQ_INT(kvtableAdd(t, dup, NULL), KVTABLE_ERR);
    kvobj *old = kvtableReplace(t, dup);
    CHECK(old == existing && old != dup);
    CHECK(findIndex(t, 7) == dup);
    CHECK(kvobjGetNext(old) == NULL);
    freeEntry(old);
    CHECK(kvtableReplace(t, entryFor(n)) == NULL);  /* a new key is added */
    CHECK_EQ_INT(kvtableSize(t), n + 1);

    destroyed = 0;
    for (unsigned long i = 0; i <= n; i += 2) wrong += deleteIndex(t, i) != KVTABLE_OK;
    for (unsigned long i = 0; i <= n; i += 2) wrong += deleteIndex(t, i) != KVTABLE_ERR;
    CHECK_EQ_INT(wrong, 0);
    CHECK_EQ_INT(destroyed, n / 2 + 1);
    for (unsigned long i = 0; i <= n; i++) wrong += (findIndex(t, i) != NULL) != (i % 2 == 1);
    CHECK_EQ_INT(wrong, 0);
    kvtableRelease(t);
    CHECK_EQ_INT(zmalloc_used_memory(), start);
}

/* Keys that differ only in length, content after a NUL, or are empty. */
static void test_key_comparison(void) {
    kvtable *t = kvtableCreate(&countingType);
    const char *keys[] = {"", "a", "a\0", "a\0b", "ab", "b"};
    const size_t lens[] = {0, 1, 2, 3, 2, 1};
    for (int i = 0; i < 6; i++) {
        robj *val = zcalloc(sizeof(robj));
        val->type = OBJ_STRING;
        val->encoding = OBJ_ENCODING_INT;
        val->refcount = 1;
        val->ptr = (void *)(uintptr_t)i;
        CHECK_EQ_INT(kvtableAdd(t, kvobjCreate(keys[i], lens[i], val, -1), NULL), KVTABLE_OK);
    }
    for (int i = 0; i < 6; i++) {
        kvobj *o = kvtableFind(t, keys[i], lens[i]);
        CHECK(o != NULL && entryIndex(o) == (unsigned long)i);
    }
    CHECK(kvtableFind(t, "ba", 2) == NULL);
    kvtableRelease(t);
}

/* kvtableHashKey() remembers the last two keys it hashed: whatever the
 * order, length (around the 32-byte memo limit) or seed, it must equal the
 * plain hash, and a key whose bytes changed in place must not be served a
 * stale hash. */
static void test_hash_memo_matches_plain_hash(void) {
    char keys[6][40];
    size_t lens[6] = {0, 1, 31, 32, 33, 32};
    for (int i = 0; i < 6; i++) memset(keys[i], 'a' + i, sizeof keys[i]);
    keys[5][0] = 'd'; /* same length and first byte as keys[3], differs after */
    memset(keys[5] + 1, 'x', 31);
    int wrong = 0;
    for (int round = 0; round < 3; round++) {
        for (int n = 0; n < 60; n++) {
            int i = (n * 7 + round) % 6, j = n % 6;
            wrong += kvtableHashKey(keys[i], lens[i]) != dictGenHashFunction(keys[i], lens[i]);
            wrong += kvtableHashKey(keys[j], lens[j]) != dictGenHashFunction(keys[j], lens[j]);
        }
        uint8_t seed[16];
        memcpy(seed, dictGetHashFunctionSeed(), sizeof seed);
        seed[round] ^= 0x5a;
        dictSetHashFunctionSeed(seed); /* a memo from the old seed must not be served */
    }
    char buf[8] = "abcdefg";
    uint64_t before = kvtableHashKey(buf, 7);
    buf[3] = 'X';
    wrong += kvtableHashKey(buf, 7) != dictGenHashFunction(buf, 7);
    CHECK(kvtableHashKey(buf, 7) != before);
    CHECK_EQ_INT(wrong, 0);
}

/* ---- rehashing ------------------------------------------------------------------------- */

static int matchesReference(kvtable *t, const char *present, unsigned long range) {
    unsigned long wrong = 0;
    for (unsigned long i = 0; i < range; i++) wrong += (findIndex(t, i) != NULL) != present[i];
    return wrong == 0;
}

/* Random operations while a rehash is under way keep every key findable. */
static void test_operations_during_incremental_rehash(void) {
    unsigned long range = 4000;
    char *present = calloc(range, 1);
    kvtable *t = kvtableCreate(&countingType);
    uint64_t seed = 88172645463325252ULL;
    unsigned long checksWhileRehashing = 0;
    for (int round = 0; round < 20000; round++) {
        seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
        unsigned long i = (unsigned long)(seed % range);
        if (present[i]) {
            present[i] = deleteIndex(t, i) != KVTABLE_OK;
        } else {
            present[i] = kvtableAdd(t, entryFor(i), NULL) == KVTABLE_OK;
        }
        if (round % 1000 == 0 && kvtableIsRehashing(t)) {
            checksWhileRehashing++;
            CHECK(matchesReference(t, present, range));
        }
    }
    CHECK(matchesReference(t, present, range));
    CHECK(checksWhileRehashing > 0);
    kvtableRelease(t);
    free(present);
}

/* Each find, add and delete moves the rehash on by one step. */
static void test_rehash_step_per_operation(void) {
    kvtable *t = tableWith(1024);
    finishRehash(t);
    CHECK_EQ_INT(kvtableExpand(t, 1 << 14), KVTABLE_OK);
    CHECK_EQ_INT(t->rehashidx, 0);
    long before = t->rehashidx;
    findIndex(t, 1);
    CHECK(t->rehashidx > before);
    before = t->rehashidx;
    kvtablePauseRehashing(t);
    findIndex(t, 1);
    kvtableAdd(t, entryFor(5000), NULL);
    CHECK_EQ_INT(t->rehashidx, before);          /* paused: nothing moves */
    kvtableResumeRehashing(t);
    deleteIndex(t, 5000);
    CHECK(t->rehashidx > before);
    finishRehash(t);
    CHECK(!kvtableIsRehashing(t));
    CHECK_EQ_INT(kvtableSlots(t), 1 << 14);
    kvtableRelease(t);
}

/* One step visits at most 10 empty buckets per bucket asked for: with a
 * single key far from the start of table 0, a step moves nothing and stops
 * exactly 10 buckets in. */
static void test_rehash_empty_bucket_visit_limit(void) {
    kvtable *t = kvtableCreate(&countingType);
    CHECK_EQ_INT(kvtableExpand(t, 1 << 12), KVTABLE_OK);
    unsigned long i = 0;
    while (bucketOf(t, i) < 100 || bucketOf(t, i) >= 150) i++;
    kvtableAdd(t, entryFor(i), NULL);
    CHECK_EQ_INT(kvtableExpand(t, 1 << 14), KVTABLE_OK);
    CHECK_EQ_INT(kvtableRehash(t, 1), 1);
    CHECK_EQ_INT(t->rehashidx, 10);
    CHECK_EQ_INT(t->used[0], 1);
    CHECK_EQ_INT(kvtableRehash(t, 20), 0);       /* 200 empties reach it */
    CHECK(!kvtableIsRehashing(t));
    CHECK(findIndex(t, i) != NULL);
    kvtableRelease(t);
}

static void test_rehash_milliseconds(void) {
    kvtable *t = tableWith(test_scaled(20000));
    finishRehash(t);
    kvtableExpand(t, kvtableSize(t) * 8);
    kvtablePauseRehashing(t);
    CHECK_EQ_INT(kvtableRehashMilliseconds(t, 100), 0);
    kvtableResumeRehashing(t);
    int moved = 0;
    while (kvtableIsRehashing(t)) moved += kvtableRehashMilliseconds(t, 100);
    CHECK(moved > 0);
    CHECK_EQ_INT(kvtableSize(t), test_scaled(20000));
    kvtableRelease(t);
}

/* ENABLE grows at load 1; AVOID only past 4 per bucket; FORBID never. */
static void test_grow_policy(void) {
    kvtable *t = tableWith(16);
    finishRehash(t);
    CHECK_EQ_INT(kvtableSlots(t), 16);
    dictSetResizeEnabled(DICT_RESIZE_AVOID);
    for (unsigned long i = 16; i < 64; i++) kvtableAdd(t, entryFor(i), NULL);
    CHECK(!kvtableIsRehashing(t));
    CHECK_EQ_INT(kvtableSlots(t), 16);
    for (unsigned long i = 64; i < 81; i++) kvtableAdd(t, entryFor(i), NULL);
    CHECK(kvtableIsRehashing(t));                /* 80/16 > 4 */
    unsigned long slots = kvtableSlots(t);
    dictSetResizeEnabled(DICT_RESIZE_FORBID);
    CHECK_EQ_INT(kvtableRehash(t, 100), 0);      /* even a started rehash stops */
    for (unsigned long i = 81; i < 400; i++) kvtableAdd(t, entryFor(i), NULL);
    CHECK_EQ_INT(kvtableSlots(t), slots);
    CHECK_EQ_INT(kvtableSize(t), 400);
    dictSetResizeEnabled(DICT_RESIZE_ENABLE);
    finishRehash(t);
    for (unsigned long i = 0; i < 400; i++) CHECK(findIndex(t, i) != NULL);
    kvtableRelease(t);
}

/* Under AVOID a rehash by a small factor waits; a large one proceeds. */
static void test_avoid_holds_small_rehash(void) {
    kvtable *t = tableWith(100);
    finishRehash(t);
    kvtableExpand(t, 256);
    dictSetResizeEnabled(DICT_RESIZE_AVOID);
    CHECK_EQ_INT(kvtableRehash(t, 1000), 0);
    CHECK(kvtableIsRehashing(t));
    dictSetResizeEnabled(DICT_RESIZE_ENABLE);
    finishRehash(t);
    kvtableExpand(t, 8192);
    dictSetResizeEnabled(DICT_RESIZE_AVOID);
    finishRehash(t);
    CHECK(!kvtableIsRehashing(t));
    dictSetResizeEnabled(DICT_RESIZE_ENABLE);
    kvtableRelease(t);
}

static size_t lastMoreMem;
static double lastUsedRatio;

static int refuseExpand(size_t moreMem, double usedRatio) {
    lastMoreMem = moreMem;
    lastUsedRatio = usedRatio;
    return 0;
}

static void test_expand_allowed_callback(void) {
    kvtableType refusing = {freeEntry, refuseExpand};
    kvtable *t = kvtableCreate(&refusing);
    for (unsigned long i = 0; i < 50; i++) kvtableAdd(t, entryFor(i), NULL);
    CHECK_EQ_INT(kvtableSlots(t), DICT_HT_INITIAL_SIZE); /* refused every time */
    CHECK_EQ_INT(kvtableSize(t), 50);
    CHECK_EQ_INT(lastMoreMem, 64 * sizeof(void *));
    CHECK(lastUsedRatio > 12.0);
    for (unsigned long i = 0; i < 50; i++) CHECK(findIndex(t, i) != NULL);
    kvtableRelease(t);
}

static void test_expand_size_overflow(void) {
    kvtable *t = tableWith(10);
    finishRehash(t);
    CHECK_EQ_INT(kvtableExpand(t, ~0UL), KVTABLE_ERR);
    CHECK_EQ_INT(kvtableTryExpand(t, ~0UL / 2), KVTABLE_ERR);
    CHECK_EQ_INT(kvtableExpand(t, 5), KVTABLE_ERR);   /* smaller than used */
    CHECK(!kvtableIsRehashing(t));
    kvtableRelease(t);
}

/* Deleting most keys shrinks the table back to a fill >= 1/8. */
static void test_shrink_after_mass_delete(void) {
    size_t start = zmalloc_used_memory();
    unsigned long n = test_scaled(20000);
    kvtable *t = tableWith(n);
    finishRehash(t);
    unsigned long big = kvtableSlots(t);
    for (unsigned long i = 0; i < n; i++)
        if (i % 100) deleteIndex(t, i);
    finishRehash(t);
    CHECK(kvtableSlots(t) < big);
    CHECK(kvtableSize(t) * DICT_HT_MIN_FILL >= kvtableSlots(t));
    for (unsigned long i = 0; i < n; i += 100) CHECK(findIndex(t, i) != NULL);
    for (unsigned long i = 0; i < n; i += 100) deleteIndex(t, i);
    finishRehash(t);
    CHECK_EQ_INT(kvtableSlots(t), DICT_HT_INITIAL_SIZE);
    CHECK_EQ_INT(kvtableResize(t), KVTABLE_ERR);       /* already minimal */
    kvtableRelease(t);
    CHECK_EQ_INT(zmalloc_used_memory(), start);
}

static void test_resize_to_fit(void) {
    kvtable *t = tableWith(1000);
    finishRehash(t);
    dictSetResizeEnabled(DICT_RESIZE_FORBID);
    for (unsigned long i = 0; i < 990; i++) deleteIndex(t, i);
    CHECK_EQ_INT(kvtableResize(t), KVTABLE_ERR);       /* policy says no */
    dictSetResizeEnabled(DICT_RESIZE_ENABLE);
    CHECK_EQ_INT(kvtableResize(t), KVTABLE_OK);
    finishRehash(t);
    CHECK_EQ_INT(kvtableSlots(t), 16);
    kvtableRelease(t);
}

/* ---- iterators ------------------------------------------------------------------------------ */

static void test_safe_iterator_with_modifications(void) {
    for (int midRehash = 0; midRehash <= 1; midRehash++) {
        unsigned long n = 5000;
        kvtable *t = tableWith(n);
        finishRehash(t);
        if (midRehash) {
            kvtableExpand(t, n * 4);
            kvtableRehash(t, 100);
        }
        char *seen = calloc(n, 1);
        unsigned long visited = 0, dupes = 0;
        kvtableIterator *iter = kvtableGetSafeIterator(t);
        long idx = t->rehashidx;
        kvobj *o;
        while ((o = kvtableNext(iter)) != NULL) {
            unsigned long i = entryIndex(o);
            dupes += seen[i]++;
            visited++;
            if (i % 2 == 0) deleteIndex(t, i);      /* the entry just returned */
        }
        CHECK_EQ_INT(t->rehashidx, idx);            /* paused while iterating */
        kvtableReleaseIterator(iter);
        CHECK_EQ_INT(t->pauserehash, 0);
        CHECK_EQ_INT(visited, n);
        CHECK_EQ_INT(dupes, 0);
        CHECK_EQ_INT(kvtableSize(t), n / 2);
        free(seen);
        kvtableRelease(t);
    }
}

static void test_unsafe_iterator_visits_all_once(void) {
    kvtable *t = tableWith(3000);
    kvtableExpand(t, 1 << 14);                  /* no-op if rehashing already */
    char *seen = calloc(3000, 1);
    unsigned long visited = 0, dupes = 0;
    kvtableIterator *iter = kvtableGetIterator(t);
    kvobj *o;
    while ((o = kvtableNext(iter)) != NULL) {
        dupes += seen[entryIndex(o)]++;
        visited++;
    }
    kvtableReleaseIterator(iter);
    CHECK_EQ_INT(visited, 3000);
    CHECK_EQ_INT(dupes, 0);
    free(seen);
    kvtableRelease(t);
}

static void iterateAndModify(void) {
    kvtable *t = tableWith(100);
    kvtableIterator *iter = kvtableGetIterator(t);
    kvtableNext(iter);
    kvtableAdd(t, entryFor(1000), NULL);
    kvtableReleaseIterator(iter);               /* must abort */
}

static void iterateWithoutModifying(void) {
    kvtable *t = tableWith(100);
    kvtableIterator *iter = kvtableGetIterator(t);
    while (kvtableNext(iter)) {}
    kvtableReleaseIterator(iter);
    kvtableRelease(t);
}

static void test_unsafe_iterator_fingerprint(void) {
    int status = test_run_in_child(iterateAndModify);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
    status = test_run_in_child(iterateWithoutModifying);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* ---- scan ------------------------------------------------------------------------------------- */

typedef struct scanRecord {
    unsigned int *seen;
    unsigned long range;
} scanRecord;

static void recordScanned(void *privdata, kvobj *o) {
    scanRecord *rec = privdata;
    unsigned long i = entryIndex(o);
    if (i < rec->range) rec->seen[i]++;
}

static void test_scan_stable_table_returns_each_once(void) {
    unsigned long n = test_scaled(10000);
    for (int midRehash = 0; midRehash <= 1; midRehash++) {
        kvtable *t = tableWith(n);
        finishRehash(t);
        if (midRehash) {
            kvtableExpand(t, kvtableSize(t) * 4);
            kvtableRehash(t, 50);
            CHECK(kvtableIsRehashing(t));
        }
        scanRecord rec = {calloc(n, sizeof(unsigned int)), n};
        unsigned long cursor = 0;
        do cursor = kvtableScan(t, cursor, recordScanned, &rec); while (cursor != 0);
        unsigned long notOnce = 0;
        for (unsigned long i = 0; i < n; i++) notOnce += rec.seen[i] != 1;
        CHECK_EQ_INT(notOnce, 0);
        free(rec.seen);
        kvtableRelease(t);
    }
}

static void test_scan_while_growing(void) {
    unsigned long n = test_scaled(5000), total = 20 * n;
    kvtable *t = tableWith(n);
    finishRehash(t);
    unsigned long startSlots = kvtableSlots(t);
    scanRecord rec = {calloc(total, sizeof(unsigned int)), total};
    unsigned long cursor = 0, next = n, callsWhileRehashing = 0;
    do {
        callsWhileRehashing += kvtableIsRehashing(t);
        cursor = kvtableScan(t, cursor, recordScanned, &rec);
        for (int k = 0; k < 40 && next < total; k++) kvtableAdd(t, entryFor(next++), NULL);
    } while (cursor != 0);
    unsigned long missed = 0;
    for (unsigned long i = 0; i < n; i++) missed += rec.seen[i] == 0;
    CHECK_EQ_INT(missed, 0);
    CHECK(kvtableSlots(t) >= 4 * startSlots);
    CHECK(callsWhileRehashing > 0);
    free(rec.seen);
    kvtableRelease(t);
}

static void test_scan_while_shrinking(void) {
    unsigned long n = test_scaled(20000);
    kvtable *t = tableWith(n);
    finishRehash(t);
    unsigned long startSlots = kvtableSlots(t);
    scanRecord rec = {calloc(n, sizeof(unsigned int)), n};
    /* The deletes happen within the first ~200 calls, so most of the scan
     * runs on the shrunk (or shrinking) table. */
    unsigned long cursor = 0, victim = 0, callsWhileRehashing = 0, perCall = n / 200 + 1;
    do {
        callsWhileRehashing += kvtableIsRehashing(t);
        cursor = kvtableScan(t, cursor, recordScanned, &rec);
        for (unsigned long k = 0; k < perCall && victim < n; victim++) {
            if (victim % 50 == 0) continue;     /* kept for the whole scan */
            deleteIndex(t, victim);
            k++;
        }
    } while (cursor != 0);
    unsigned long missed = 0;
    for (unsigned long i = 0; i < n; i += 50) missed += rec.seen[i] == 0;
    CHECK_EQ_INT(missed, 0);
    CHECK_EQ_INT(kvtableSize(t), (n + 49) / 50);
    finishRehash(t);
    CHECK(kvtableSlots(t) < startSlots);
    CHECK(callsWhileRehashing > 0);
    free(rec.seen);
    kvtableRelease(t);
}

typedef struct scanDeleter {
    kvtable *t;
    unsigned long deleted;
} scanDeleter;

static void deleteScanned(void *privdata, kvobj *o) {
    scanDeleter *sd = privdata;
    sd->deleted += deleteIndex(sd->t, entryIndex(o)) == KVTABLE_OK;
}

static void test_scan_callback_deletes(void) {
    unsigned long n = test_scaled(5000);
    kvtable *t = tableWith(n);
    scanDeleter sd = {t, 0};
    unsigned long cursor = 0;
    do cursor = kvtableScan(t, cursor, deleteScanned, &sd); while (cursor != 0);
    CHECK_EQ_INT(sd.deleted, n);
    CHECK_EQ_INT(kvtableSize(t), 0);
    CHECK_EQ_INT(t->pauserehash, 0);
    kvtableRelease(t);
}

/* ---- random keys ----------------------------------------------------------------------------- */

static void checkRandomCoverage(kvtable *t, kvobj *(*pick)(kvtable *), unsigned long n) {
    unsigned char *seen = calloc(n, 1);
    unsigned long foreign = 0, covered = 0;
    for (unsigned long draw = 0; draw < 200 * n; draw++) {
        kvobj *o = pick(t);
        if (o == NULL || findIndex(t, entryIndex(o)) != o) {
            foreign++;
            continue;
        }
        unsigned long i = entryIndex(o);
        if (!seen[i]) {
            seen[i] = 1;
            covered++;
        }
    }
    CHECK_EQ_INT(foreign, 0);
    CHECK_EQ_INT(covered, n);
    free(seen);
}

static void test_random_keys(void) {
    for (int midRehash = 0; midRehash <= 1; midRehash++) {
        kvtable *t = tableWith(100);
        finishRehash(t);
        if (midRehash) {
            kvtableExpand(t, 4096);
            CHECK(kvtableIsRehashing(t));
        }
        checkRandomCoverage(t, kvtableGetRandomKey, 100);
        kvtableRelease(t);
        t = tableWith(100);
        if (midRehash) kvtableExpand(t, 4096);
        checkRandomCoverage(t, kvtableGetFairRandomKey, 100);
        kvtableRelease(t);
    }
    kvtable *t = tableWith(1);
    CHECK(kvtableGetRandomKey(t) == findIndex(t, 0));
    CHECK(kvtableGetFairRandomKey(t) == findIndex(t, 0));
    kvtableRelease(t);
}

static void checkSomeKeys(kvtable *t, unsigned int count) {
    kvobj **out = calloc(count + 1, sizeof(*out));
    unsigned int got = kvtableGetSomeKeys(t, out, count);
    CHECK(got <= count);
    CHECK(got <= kvtableSize(t));
    unsigned long bad = 0;
    for (unsigned int i = 0; i < got; i++) {
        bad += findIndex(t, entryIndex(out[i])) != out[i];
        for (unsigned int j = 0; j < i; j++) bad += out[i] == out[j];
    }
    CHECK_EQ_INT(bad, 0);
    free(out);
}

static void test_get_some_keys(void) {
    kvtable *t = tableWith(1000);
    finishRehash(t);
    unsigned int counts[] = {0, 1, 5, 20, 999, 1000, 5000};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) checkSomeKeys(t, counts[i]);
    kvobj *out[20];
    unsigned long total = 0;
    for (int i = 0; i < 100; i++) total += kvtableGetSomeKeys(t, out, 20);
    CHECK(total >= 100 * 10);                   /* dense: nearly always 20 */
    kvtableExpand(t, 8192);
    CHECK(kvtableIsRehashing(t));
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) checkSomeKeys(t, counts[i]);
    kvtableRelease(t);

    t = tableWith(5);
    kvobj *all[100];
    CHECK_EQ_INT(kvtableGetSomeKeys(t, all, 100), 5);
    kvtableRelease(t);
}

/* Chains far longer than the sample (resizing forbidden while 300 keys go
 * into the first buckets): every entry still turns up, chain tails
 * included (reservoir sampling of the bucket that fills the sample). */
static void test_get_some_keys_long_chains(void) {
    dictSetResizeEnabled(DICT_RESIZE_FORBID);
    kvtable *t = tableWith(300);
    dictSetResizeEnabled(DICT_RESIZE_ENABLE);
    CHECK(kvtableSlots(t) <= 8);
    char seen[300] = {0};
    kvobj *out[20];
    for (int round = 0; round < 3000; round++) {
        unsigned int got = kvtableGetSomeKeys(t, out, 20);
        for (unsigned int i = 0; i < got; i++) seen[entryIndex(out[i])] = 1;
    }
    int missing = 0;
    for (int i = 0; i < 300; i++) missing += !seen[i];
    CHECK_EQ_INT(missing, 0);
    for (int round = 0; round < 20; round++) checkSomeKeys(t, 20);
    kvtableRelease(t);
}

/* ---- entries that move (expire slot added) ------------------------------------------------------ */

/* kvobjSetExpire() rebuilds an entry; relinking keeps every chain whole,
 * also mid-rehash and for entries in the middle of a chain. */
static void test_replace_reallocated(void) {
    size_t start = zmalloc_used_memory();
    unsigned long n = 3000;
    kvtable *t = tableWith(n);
    finishRehash(t);
    kvtableExpand(t, n * 4);
    kvtableRehash(t, 20);
    CHECK(kvtableIsRehashing(t));
    unsigned long wrong = 0;
    for (unsigned long i = 0; i < n; i += 3) {
        kvobj *o = findIndex(t, i);
        kvobj *moved = kvobjSetExpire(o, (long long)i * 1000);
        if (moved != o) wrong += kvtableReplaceReallocated(t, o, moved) != KVTABLE_OK;
    }
    CHECK_EQ_INT(wrong, 0);
    finishRehash(t);
    for (unsigned long i = 0; i < n; i++) {
        kvobj *o = findIndex(t, i);
        wrong += o == NULL || entryIndex(o) != i;
        wrong += o && kvobjGetExpire(o) != (i % 3 == 0 ? (long long)i * 1000 : -1);
    }
    CHECK_EQ_INT(wrong, 0);
    kvobj *stranger = entryFor(n + 1);
    CHECK_EQ_INT(kvtableReplaceReallocated(t, stranger, stranger), KVTABLE_ERR);
    freeEntry(stranger);
    kvtableRelease(t);
    CHECK_EQ_INT(zmalloc_used_memory(), start);
}

/* ---- the ordered cursor ---------------------------------------------------------------------- */

/* What a walk saw, per entry index. Entries present at the start are
 * 0..startRange-1 (some may be missing); entries added during the walk get
 * fresh indexes, so a deleted one never comes back. */
typedef struct walkState {
    unsigned long cap, next;     /* indexes below `next` were used */
    unsigned char *atStart;      /* present when the walk started */
    unsigned char *present;
    unsigned char *handed;       /* times the walk handed it out */
    unsigned char *deletedEarly; /* deleted before the walk handed it out */
    unsigned char *newPassed;    /* added with kvtableCursorPassedNewKey() == 1 */
    unsigned long rehashingSteps; /* steps taken while the table was rehashing */
    uint64_t seed;
} walkState;

static void walkStateInit(walkState *w, kvtable *t, unsigned long startRange, unsigned long adds) {
    w->cap = startRange + adds + 1;
    w->next = startRange;
    w->atStart = calloc(w->cap, 1);
    w->present = calloc(w->cap, 1);
    w->handed = calloc(w->cap, 1);
    w->deletedEarly = calloc(w->cap, 1);
    w->newPassed = calloc(w->cap, 1);
    w->rehashingSteps = 0;
    w->seed = 0x9E3779B97F4A7C15ULL;
    kvtablePauseRehashing(t); /* a find is a rehash step: the table stays as the test set it up */
    for (unsigned long i = 0; i < startRange; i++) w->atStart[i] = w->present[i] = findIndex(t, i) != NULL;
    kvtableResumeRehashing(t);
}

static void walkStateFree(walkState *w) {
    free(w->atStart), free(w->present), free(w->handed), free(w->deletedEarly), free(w->newPassed);
}

static unsigned long walkRandom(walkState *w) {
    w->seed ^= w->seed << 13, w->seed ^= w->seed >> 7, w->seed ^= w->seed << 17;
    return (unsigned long)(w->seed >> 11);
}

/* One change between two steps: an add (addPercent of the time, while
 * fresh indexes last) or a delete of a random present entry. */
static void walkMutate(kvtable *t, kvtableCursor *c, walkState *w, unsigned addPercent) {
    if (walkRandom(w) % 100 < addPercent && w->next < w->cap) {
        unsigned long i = w->next++;
        char key[32];
        size_t len = keyName(key, sizeof key, i);
        int passedNew = kvtableCursorPassedNewKey(t, c, key, len);
        kvobj *o = entryFor(i);
        CHECK_EQ_INT(kvtableAdd(t, o, NULL), KVTABLE_OK);
        w->present[i] = 1;
        w->newPassed[i] = (unsigned char)passedNew;
        if (passedNew) CHECK(kvtableCursorPassed(t, c, o));
        return;
    }
    for (int tries = 0; tries < 8 && w->next > 0; tries++) {
        unsigned long i = walkRandom(w) % w->next;
        if (!w->present[i]) continue;
        CHECK_EQ_INT(deleteIndex(t, i), KVTABLE_OK);
        w->present[i] = 0;
        if (!w->handed[i]) w->deletedEarly[i] = 1;
        return;
    }
}

/* For every entry present at the start and still there: passed exactly
 * when handed out. */
static unsigned long passedMismatches(kvtable *t, kvtableCursor *c, walkState *w) {
    unsigned long wrong = 0;
    for (unsigned long i = 0; i < w->next; i++) {
        if (!w->atStart[i] || !w->present[i]) continue;
        kvobj *o = findIndex(t, i);
        wrong += o == NULL || kvtableCursorPassed(t, c, o) != (w->handed[i] > 0);
    }
    return wrong;
}

/* Walks t to the end with `changes` mutations after each step, checking
 * the guarantees on the way and at the end; releases the walk. */
static void walkAndCheck(kvtable *t, walkState *w, int changes, unsigned addPercent) {
    kvtableCursor c;
    int pausedBefore = t->pauserehash;
    long rehashidx = t->rehashidx;
    kvtableCursorStart(t, &c);
    CHECK_EQ_INT(passedMismatches(t, &c, w), 0);
    int lastTable = 0;
    unsigned long lastBucket = 0, steps = 0, orderErrors = 0, handedPassed = 0, stepPassed = 0;
    kvobj *chain;
    while (kvtableCursorBucket(t, &c, &chain)) {
        int inOrder = c.table == lastTable ? c.bucket == lastBucket + 1 : c.table == 1 && c.bucket == 0;
        if (steps > 0 && !inOrder) orderErrors++;
        if (steps == 0 && (c.table != 0 || c.bucket != 0)) orderErrors++;
        lastTable = c.table, lastBucket = c.bucket;
        for (kvobj *o = chain; o; o = kvobjGetNext(o)) {
            w->handed[entryIndex(o)]++;
            handedPassed += kvtableCursorPassed(t, &c, o); /* not yet: the cursor is on its bucket */
        }
        kvtableCursorNext(&c);
        for (kvobj *o = chain; o; o = kvobjGetNext(o)) stepPassed += !kvtableCursorPassed(t, &c, o);
        for (int k = 0; k < changes; k++) walkMutate(t, &c, w, addPercent);
        w->rehashingSteps += kvtableIsRehashing(t);
        if (++steps % 97 == 0) CHECK_EQ_INT(passedMismatches(t, &c, w), 0);
    }
    CHECK_EQ_INT(orderErrors, 0);
    CHECK_EQ_INT(handedPassed, 0);
    CHECK_EQ_INT(stepPassed, 0);
    CHECK_EQ_INT(passedMismatches(t, &c, w), 0);
    /* Nothing moved during the walk: a rehash under way at the start did not
     * advance; one that started since is still at its first bucket. */
    CHECK_EQ_INT(t->rehashidx, rehashidx == -1 && t->rehashidx == 0 ? 0 : rehashidx);
    CHECK_EQ_INT(kvtableCursorBucket(t, &c, &chain), 0); /* stays at the end */
    unsigned long missed = 0, twice = 0, newHanded = 0;
    for (unsigned long i = 0; i < w->next; i++) {
        twice += w->handed[i] > 1;
        missed += w->atStart[i] && !w->deletedEarly[i] && w->handed[i] != 1;
        newHanded += w->newPassed[i] && w->handed[i];
    }
    CHECK_EQ_INT(missed, 0);
    CHECK_EQ_INT(twice, 0);
    CHECK_EQ_INT(newHanded, 0);
    kvtableCursorRelease(t, &c);
    CHECK_EQ_INT(t->pauserehash, pausedBefore);
}

static void test_cursor_stable_table(void) {
    size_t start = zmalloc_used_memory();
    unsigned long n = test_scaled(3000);
    kvtable *t = tableWith(n);
    finishRehash(t);
    walkState w;
    walkStateInit(&w, t, n, 0);
    walkAndCheck(t, &w, 0, 0);
    CHECK_EQ_INT(w.rehashingSteps, 0);
    walkStateFree(&w);
    kvtable *empty = kvtableCreate(&countingType); /* nothing to hand out */
    kvtableCursor c;
    kvobj *chain;
    kvtableCursorStart(empty, &c);
    CHECK_EQ_INT(kvtableCursorBucket(empty, &c, &chain), 0);
    kvtableCursorRelease(empty, &c);
    CHECK_EQ_INT(empty->pauserehash, 0);
    kvtableRelease(empty);
    kvtableRelease(t);
    CHECK_EQ_INT(zmalloc_used_memory(), start);
}

/* A grow under way at the start: entries in both tables, both walked. */
static void test_cursor_across_grow_under_way(void) {
    size_t start = zmalloc_used_memory();
    unsigned long n = test_scaled(3000);
    kvtable *t = tableWith(n);
    finishRehash(t);
    CHECK_EQ_INT(kvtableExpand(t, 8 * n), KVTABLE_OK);
    kvtableRehash(t, (int)(KVTABLE_SIZE(t->sizeExp[0]) / 2)); /* about half of table 0 moved */
    CHECK(kvtableIsRehashing(t) && t->used[0] > 0 && t->used[1] > 0);
    walkState w;
    walkStateInit(&w, t, n, 4 * n);
    walkAndCheck(t, &w, 1, 50);
    CHECK(w.rehashingSteps > 0);
    finishRehash(t); /* released: the rehash goes on */
    CHECK(!kvtableIsRehashing(t));
    walkStateFree(&w);
    kvtableRelease(t);
    CHECK_EQ_INT(zmalloc_used_memory(), start);
}

/* A shrink under way at the start. */
/* ---- lookups by the low 32 bits of the hash (the per-slot index) ---------------------- */

typedef struct low32Visit {
    uint32_t low;
    unsigned long calls, wrong;
    char *seen;
} low32Visit;

static void visitLow32(void *privdata, kvobj *o) {
    low32Visit *v = privdata;
    sds k = kvobjGetKey(o);
    if ((uint32_t)kvtableHashKey(k, sdslen(k)) != v->low) v->wrong++;
    v->seen[entryIndex(o)]++;
    v->calls++;
}

/* Every entry is found by its own low 32 bits -- on a stable table, in the
 * middle of a grow (both tables) -- exactly once, and nothing else is. */
static void test_for_each_with_hash_low32(void) {
    unsigned long n = 3000;
    kvtable *t = kvtableCreate(&countingType);
    char *seen = calloc(n, 1);
    for (int phase = 0; phase < 2; phase++) {
        if (phase == 0) {
            for (unsigned long i = 0; i < n; i++) kvtableAdd(t, entryFor(i), NULL);
            finishRehash(t);
        } else {
            kvtableExpand(t, kvtableSlots(t) * 4);
            CHECK(kvtableIsRehashing(t));
            kvtableRehash(t, 10);
            CHECK(kvtableIsRehashing(t));
        }
        memset(seen, 0, n);
        for (unsigned long i = 0; i < n; i++) {
            char key[32];
            low32Visit v = {(uint32_t)kvtableHashKey(key, keyName(key, sizeof key, i)), 0, 0, seen};
            kvtableForEachWithHashLow32(t, v.low, visitLow32, &v);
            CHECK(v.calls >= 1);
            CHECK_EQ_INT(v.wrong, 0);
        }
        for (unsigned long i = 0; i < n; i++) CHECK(seen[i] >= 1);
    }
    /* a value no key has: nothing visited, nothing read past the chains */
    low32Visit none = {0, 0, 0, seen};
    kvtable *empty = kvtableCreate(&countingType);
    kvtableForEachWithHashLow32(empty, 12345, visitLow32, &none);
    CHECK_EQ_INT(none.calls, 0);
    kvtableRelease(empty);
    kvtableRelease(t);
    free(seen);
}

static void test_cursor_across_shrink_under_way(void) {
    size_t start = zmalloc_used_memory();
    unsigned long n = test_scaled(8000);
    kvtable *t = tableWith(n);
    finishRehash(t);
    kvtablePauseRehashing(t); /* the shrink starts, no bucket moves yet */
    for (unsigned long i = 0; i < n; i++)
        if (i % 16) deleteIndex(t, i);
    kvtableResumeRehashing(t);
    CHECK(kvtableIsRehashing(t));
    kvtableRehash(t, (int)(KVTABLE_SIZE(t->sizeExp[0]) / 32)); /* a part of table 0 moved */
    CHECK(kvtableIsRehashing(t) && t->used[0] > 0 && t->used[1] > 0);
    CHECK(t->sizeExp[1] < t->sizeExp[0]);
    walkState w;
    walkStateInit(&w, t, n, n);
    walkAndCheck(t, &w, 1, 50);
    finishRehash(t);
    CHECK(!kvtableIsRehashing(t));
    walkStateFree(&w);
    kvtableRelease(t);
    CHECK_EQ_INT(zmalloc_used_memory(), start);
}

/* A grow that starts during the walk: the new table 1 is not walked, and
 * what is added to it is passed at once. */
static void test_cursor_grow_starts_during_walk(void) {
    size_t start = zmalloc_used_memory();
    unsigned long n = test_scaled(2048);
    kvtable *t = tableWith(n);
    finishRehash(t);
    CHECK(!kvtableIsRehashing(t));
    walkState w;
    walkStateInit(&w, t, n, 8 * n);
    walkAndCheck(t, &w, 2, 90);
    CHECK(w.rehashingSteps > 0);
    unsigned long newPassed = 0;
    for (unsigned long i = n; i < w.next; i++) newPassed += w.newPassed[i];
    CHECK(newPassed > 0);
    finishRehash(t);
    walkStateFree(&w);
    kvtableRelease(t);
    CHECK_EQ_INT(zmalloc_used_memory(), start);
}

/* A shrink that starts during the walk. */
static void test_cursor_shrink_starts_during_walk(void) {
    size_t start = zmalloc_used_memory();
    unsigned long n = test_scaled(4096);
    kvtable *t = tableWith(n);
    finishRehash(t);
    CHECK(!kvtableIsRehashing(t));
    walkState w;
    walkStateInit(&w, t, n, n);
    walkAndCheck(t, &w, 2, 5);
    CHECK(w.rehashingSteps > 0);
    finishRehash(t);
    walkStateFree(&w);
    kvtableRelease(t);
    CHECK_EQ_INT(zmalloc_used_memory(), start);
}

/* Table 0 not allocated at the start: the first add allocates it at a
 * size the walk has not seen, so a new key there is never "passed". */
static void test_cursor_table_allocated_during_walk(void) {
    size_t start = zmalloc_used_memory();
    kvtable *t = kvtableCreate(&countingType);
    kvtableCursor c;
    kvtableCursorStart(t, &c);
    char key[32];
    size_t len = keyName(key, sizeof key, 1);
    CHECK_EQ_INT(kvtableCursorPassedNewKey(t, &c, key, len), 0);
    kvobj *o = entryFor(1);
    kvtableAdd(t, o, NULL);
    CHECK_EQ_INT(kvtableCursorPassed(t, &c, o), 0);
    kvtableCursorRelease(t, &c);
    CHECK_EQ_INT(t->pauserehash, 0);
    kvtableRelease(t);
    CHECK_EQ_INT(zmalloc_used_memory(), start);
}

/* An entry of another table is in no bucket of this one: passed. */
static void test_cursor_foreign_entry_is_passed(void) {
    kvtable *t = tableWith(100), *other = kvtableCreate(&countingType);
    kvobj *o = entryFor(5000);
    kvtableAdd(other, o, NULL);
    kvtableCursor c;
    kvtableCursorStart(t, &c);
    CHECK_EQ_INT(kvtableCursorPassed(t, &c, o), 1);
    kvtableCursorRelease(t, &c);
    kvtableRelease(other);
    kvtableRelease(t);
}

static void test_bucket_array_bytes(void) {
    kvtable *t = kvtableCreate(&countingType);
    CHECK_EQ_INT(kvtableBucketArrayBytes(t), 0);
    kvtableAdd(t, entryFor(1), NULL);
    CHECK(kvtableBucketArrayBytes(t) >= kvtableSlots(t) * sizeof(kvobj *));
    size_t one = kvtableBucketArrayBytes(t);
    kvtableExpand(t, 1000);
    CHECK(kvtableBucketArrayBytes(t) >= one + 1024 * sizeof(kvobj *)); /* both arrays while rehashing */
    kvtableRelease(t);
}

/* ---- emptying and statistics ---------------------------------------------------------------------- */

static int emptyCallbacks;
static void onEmptyProgress(kvtable *t) {
    (void)t;
    emptyCallbacks++;
}

static void test_empty_with_callback(void) {
    size_t start = zmalloc_used_memory();
    unsigned long n = test_scaled(70000);
    kvtable *t = tableWith(n);
    destroyed = 0;
    emptyCallbacks = 0;
    kvtableEmpty(t, onEmptyProgress);
    CHECK_EQ_INT(destroyed, n);
    CHECK(emptyCallbacks >= 1);
    CHECK_EQ_INT(kvtableSize(t), 0);
    CHECK_EQ_INT(kvtableSlots(t), 0);
    CHECK(!kvtableIsRehashing(t));
    kvtableAdd(t, entryFor(1), NULL);            /* usable again */
    CHECK(findIndex(t, 1) != NULL);
    kvtableRelease(t);
    CHECK_EQ_INT(zmalloc_used_memory(), start);
}

static void test_stats(void) {
    kvtable *t = tableWith(500);
    finishRehash(t);
    char buf[4096];
    kvtableGetStats(buf, sizeof buf, t);
    CHECK(strstr(buf, "Hash table 0 stats (main hash table):") == buf);
    CHECK(strstr(buf, " number of elements: 500\n") != NULL);
    CHECK(strstr(buf, "rehashing target") == NULL);
    kvtableExpand(t, 4096);
    kvtableGetStats(buf, sizeof buf, t);
    CHECK(strstr(buf, "Hash table 1 stats (rehashing target):") != NULL);
    char tiny[8];
    kvtableGetStats(tiny, sizeof tiny, t);
    CHECK_EQ_INT(strlen(tiny), 7);               /* truncated, terminated */
    kvtableRelease(t);
    t = kvtableCreate(&countingType);
    kvtableGetStats(buf, sizeof buf, t);
    CHECK(strstr(buf, "No stats available") != NULL);
    kvtableRelease(t);
}

/* kvtableDefragTables hands each bucket array to the callback and keeps
 * the one it returns: every entry is still found, also in mid-rehash. */
static int tablesMoved;

static void *moveAlways(void *block) {
    size_t size = zmalloc_size(block);
    void *copy = zmalloc(size);
    memcpy(copy, block, size);
    zfree(block);
    tablesMoved++;
    return copy;
}

static void test_defrag_tables(void) {
    kvtable *t = kvtableCreate(&countingType);
    for (unsigned long i = 0; i < 1000; i++) CHECK_EQ_INT(kvtableAdd(t, entryFor(i), NULL), KVTABLE_OK);
    tablesMoved = 0;
    kvtableDefragTables(t, moveAlways);
    CHECK(tablesMoved >= 1);
    for (unsigned long i = 1000; i < 1100; i++) CHECK_EQ_INT(kvtableAdd(t, entryFor(i), NULL), KVTABLE_OK);
    tablesMoved = 0;
    kvtableDefragTables(t, moveAlways);
    CHECK_EQ_INT(tablesMoved, kvtableIsRehashing(t) ? 2 : 1);
    for (unsigned long i = 0; i < 1100; i++) {
        kvobj *o = findIndex(t, i);
        CHECK(o != NULL && entryIndex(o) == i);
    }
    kvtableRelease(t);
}

TEST_MAIN(
    RUN(test_defrag_tables);
    RUN(test_empty_table);
    RUN(test_add_find_replace_delete_at_scale);
    RUN(test_key_comparison);
    RUN(test_hash_memo_matches_plain_hash);
    RUN(test_operations_during_incremental_rehash);
    RUN(test_rehash_step_per_operation);
    RUN(test_rehash_empty_bucket_visit_limit);
    RUN(test_rehash_milliseconds);
    RUN(test_grow_policy);
    RUN(test_avoid_holds_small_rehash);
    RUN(test_expand_allowed_callback);
    RUN(test_expand_size_overflow);
    RUN(test_shrink_after_mass_delete);
    RUN(test_resize_to_fit);
    RUN(test_safe_iterator_with_modifications);
    RUN(test_unsafe_iterator_visits_all_once);
    RUN(test_unsafe_iterator_fingerprint);
    RUN(test_scan_stable_table_returns_each_once);
    RUN(test_scan_while_growing);
    RUN(test_scan_while_shrinking);
    RUN(test_scan_callback_deletes);
    RUN(test_random_keys);
    RUN(test_get_some_keys);
    RUN(test_get_some_keys_long_chains);
    RUN(test_replace_reallocated);
    RUN(test_empty_with_callback);
    RUN(test_stats);
    RUN(test_cursor_stable_table);
    RUN(test_cursor_across_grow_under_way);
    RUN(test_cursor_across_shrink_under_way);
    RUN(test_for_each_with_hash_low32);
    RUN(test_cursor_grow_starts_during_walk);
    RUN(test_cursor_shrink_starts_during_walk);
    RUN(test_cursor_table_allocated_during_walk);
    RUN(test_cursor_foreign_entry_is_passed);
    RUN(test_bucket_array_bytes);
)
