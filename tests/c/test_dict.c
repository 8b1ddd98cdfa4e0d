/* test_dict.c -- unit tests for src/lib/dict.c.
 *
 * Two kinds of dict are used: string keys duplicated and freed by the dict
 * (to check ownership: every keyDup is matched by a keyDestructor), and
 * integer keys stored in the pointer itself (cheap, so the large tests stay
 * fast under QEMU), checked against a plain array of "present" flags.
 *
 * Sizes scale with the TEST_SCALE environment variable (a factor, default 1:
 * 100k keys for the bulk test); slow emulators may set e.g. TEST_SCALE=0.2.
 * The resize policy is global, so every test that changes it puts it back.
 */
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dict.h"
#include "portable.h"
#include "siphash.h"
#include "test.h"
#include "zmalloc.h"

/* ---- string-keyed dict type ---------------------------------------------- */

static long keyDups, keyFrees, valFrees;

static uint64_t strHash(const void *key) { return dictGenHashFunction(key, strlen(key)); }

static void *strKeyDup(dict *d, const void *key) {
    (void)d;
    keyDups++;
    return zstrdup(key);
}

static int strKeyCompare(dict *d, const void *a, const void *b) {
    (void)d;
    return strcmp(a, b) == 0;
}

static void strKeyFree(dict *d, void *key) {
    (void)d;
    keyFrees++;
    zfree(key);
}

static void countingValFree(dict *d, void *val) {
    (void)d;
    (void)val;
    valFrees++;
}

static dictType strType = {strHash, strKeyDup, NULL, strKeyCompare, strKeyFree, countingValFree, NULL};

static void resetCounters(void) { keyDups = keyFrees = valFrees = 0; }

static void keyName(char *buf, size_t size, unsigned long i) { snprintf(buf, size, "key:%lu", i); }

/* ---- integer-keyed dict type --------------------------------------------- */

static uint64_t intHash(const void *key) {
    uint8_t bytes[8];
    store64le(bytes, (uint64_t)(uintptr_t)key);
    return dictGenHashFunction(bytes, sizeof bytes);
}

static dictType intType = {intHash, NULL, NULL, NULL, NULL, NULL, NULL};

/* Integer keys start at 1 so no key is the NULL pointer. */
static void *intKey(unsigned long i) { return (void *)(uintptr_t)(i + 1); }
static unsigned long intIndex(const void *key) { return (unsigned long)((uintptr_t)key - 1); }

static dict *intDictWith(unsigned long n) {
    dict *d = dictCreate(&intType);
    for (unsigned long i = 0; i < n; i++) dictAdd(d, intKey(i), NULL);
    return d;
}

static void finishRehash(dict *d) {
    while (dictRehash(d, 1000)) {}
}

/* The bucket of table 0 that holds key. */
static unsigned long bucketOf(dict *d, const void *key) {
    return (unsigned long)(dictHashKey(d, key) & DICTHT_SIZE_MASK(d->ht_size_exp[0]));
}

/* ---- empty dict ------------------------------------------------------------ */

static void countCalls(void *privdata, const dictEntry *de) {
    (void)de;
    long *calls = privdata;
    (*calls)++;
}

static void checkBehavesEmpty(dict *d) {
    dictEntry *some[4];
    long calls = 0;
    CHECK_EQ_INT(dictSize(d), 0);
    CHECK(dictFind(d, "missing") == NULL);
    CHECK(dictFetchValue(d, "missing") == NULL);
    CHECK_EQ_INT(dictDelete(d, "missing"), DICT_ERR);
    CHECK(dictUnlink(d, "missing") == NULL);
    CHECK(dictGetRandomKey(d) == NULL);
    CHECK(dictGetFairRandomKey(d) == NULL);
    CHECK_EQ_INT(dictGetSomeKeys(d, some, 4), 0);
    CHECK_EQ_INT(dictScan(d, 0, countCalls, &calls), 0);
    CHECK_EQ_INT(calls, 0);
    dictIterator *iter = dictGetIterator(d);
    CHECK(dictNext(iter) == NULL);
    dictReleaseIterator(iter);
    iter = dictGetSafeIterator(d);
    CHECK(dictNext(iter) == NULL);
    dictReleaseIterator(iter);
    CHECK_EQ_INT(d->pauserehash, 0);
}

static void test_empty_dict(void) {
    resetCounters();
    dict *d = dictCreate(&strType);
    CHECK_EQ_INT(dictSlots(d), 0);
    CHECK(!dictIsRehashing(d));
    checkBehavesEmpty(d);
    char stats[256];
    dictGetStats(stats, sizeof stats, d);
    CHECK_EQ_STR(stats, "Hash table 0 stats (main hash table):\n"
                        "No stats available for empty dictionaries\n");
    dictEmpty(d, NULL);
    CHECK_EQ_INT(dictSlots(d), 0);

    /* Emptied by deletes: a table exists but nothing is in it. */
    CHECK_EQ_INT(dictAdd(d, "a", NULL), DICT_OK);
    CHECK_EQ_INT(dictDelete(d, "a"), DICT_OK);
    CHECK(dictSlots(d) > 0);
    checkBehavesEmpty(d);
    dictRelease(d);
    CHECK_EQ_INT(keyDups, keyFrees);
}

/* ---- bulk add / find / replace / delete --------------------------------- */

static void test_add_find_replace_delete_at_scale(void) {
    resetCounters();
    unsigned long n = test_scaled(100000);
    dict *d = dictCreate(&strType);
    char key[32];
    for (unsigned long i = 0; i < n; i++) {
        keyName(key, sizeof key, i);
        if (dictAdd(d, key, (void *)(uintptr_t)(i + 1)) != DICT_OK) CHECK(!"add failed");
    }
    CHECK_EQ_INT(dictSize(d), n);
    CHECK_EQ_INT(keyDups, n);

    unsigned long wrong = 0;
    for (unsigned long i = 0; i < n; i++) {
        keyName(key, sizeof key, i);
        wrong += dictFetchValue(d, key) != (void *)(uintptr_t)(i + 1);
    }
    CHECK_EQ_INT(wrong, 0);
    for (unsigned long i = n; i < n + 1000; i++) {
        keyName(key, sizeof key, i);
        wrong += dictFind(d, key) != NULL;
    }
    CHECK_EQ_INT(wrong, 0);

    /* Adding a present key fails and duplicates nothing. */
    keyName(key, sizeof key, 7);
    CHECK_EQ_INT(dictAdd(d, key, NULL), DICT_ERR);
    CHECK_EQ_INT(keyDups, n);
    CHECK(dictFetchValue(d, key) == (void *)(uintptr_t)8);

    /* Replace: 0 and the old value freed for a present key, 1 for a new one. */
    CHECK_EQ_INT(dictReplace(d, key, (void *)(uintptr_t)12345), 0);
    CHECK_EQ_INT(valFrees, 1);
    CHECK(dictFetchValue(d, key) == (void *)(uintptr_t)12345);
    keyName(key, sizeof key, n);
    CHECK_EQ_INT(dictReplace(d, key, (void *)(uintptr_t)999), 1);
    CHECK_EQ_INT(valFrees, 1);
    CHECK_EQ_INT(dictSize(d), n + 1);
    CHECK_EQ_INT(dictDelete(d, key), DICT_OK);

    /* Delete the even keys. */
    for (unsigned long i = 0; i < n; i += 2) {
        keyName(key, sizeof key, i);
        if (dictDelete(d, key) != DICT_OK) wrong++;
        if (dictDelete(d, key) != DICT_ERR) wrong++;
    }
    CHECK_EQ_INT(wrong, 0);
    CHECK_EQ_INT(dictSize(d), n / 2);
    for (unsigned long i = 0; i < n; i++) {
        keyName(key, sizeof key, i);
        wrong += (dictFind(d, key) != NULL) != (i % 2 == 1);
    }
    CHECK_EQ_INT(wrong, 0);
    dictRelease(d);
    CHECK_EQ_INT(keyFrees, keyDups);
    CHECK_EQ_INT(valFrees, n + 2);  /* every value once, plus the replaced one */
}

/* ---- incremental rehashing ------------------------------------------------ */

/* All present[] keys are found, all others are not, and the size agrees. */
static int matchesReference(dict *d, const char *present, unsigned long range) {
    unsigned long count = 0, mismatches = 0;
    for (unsigned long i = 0; i < range; i++) {
        count += present[i];
        mismatches += (dictFind(d, intKey(i)) != NULL) != present[i];
    }
    return mismatches == 0 && count == dictSize(d);
}

static void test_operations_during_incremental_rehash(void) {
    unsigned long n = test_scaled(20000);
    unsigned long range = 3 * n;
    char *present = calloc(range, 1);
    dict *d = intDictWith(n);
    memset(present, 1, n);
    finishRehash(d);

    CHECK_EQ_INT(dictExpand(d, n / 2), DICT_ERR);           /* smaller than used */
    CHECK_EQ_INT(dictExpand(d, dictSlots(d)), DICT_ERR);    /* same size */
    CHECK_EQ_INT(dictExpand(d, 4 * n), DICT_OK);
    CHECK(dictIsRehashing(d));
    CHECK_EQ_INT(dictExpand(d, 16 * n), DICT_ERR);          /* already rehashing */

    unsigned long opsWhileRehashing = 0, next = n, victim = 0, lost = 0;
    while (dictIsRehashing(d) && next < range && victim + 1 < range) {
        opsWhileRehashing++;
        CHECK_EQ_INT(dictAdd(d, intKey(next), NULL), DICT_OK);
        present[next++] = 1;
        if (dictDelete(d, intKey(victim)) == DICT_OK) present[victim] = 0;
        if ((dictFind(d, intKey(victim + 1)) != NULL) != present[victim + 1]) lost++;
        victim += 3;
    }
    CHECK(opsWhileRehashing > 10);   /* the move really was spread over many calls */
    CHECK_EQ_INT(lost, 0);
    CHECK(matchesReference(d, present, range));
    finishRehash(d);
    CHECK(!dictIsRehashing(d));
    CHECK(matchesReference(d, present, range));
    dictRelease(d);
    free(present);
}

/* Every add, find and delete moves the rehash on, unless a safe iterator
 * holds it. */
static void test_rehash_step_per_operation(void) {
    dict *d = intDictWith(1000);
    finishRehash(d);
    CHECK_EQ_INT(dictExpand(d, 4000), DICT_OK);
    long before = d->rehashidx;
    dictFind(d, intKey(1));
    CHECK(d->rehashidx > before);
    before = d->rehashidx;
    dictAdd(d, intKey(5000), NULL);
    CHECK(d->rehashidx > before);
    before = d->rehashidx;
    dictDelete(d, intKey(5000));
    CHECK(d->rehashidx > before);

    dictIterator *iter = dictGetSafeIterator(d);
    dictNext(iter);
    before = d->rehashidx;
    dictFind(d, intKey(1));
    dictAdd(d, intKey(5001), NULL);
    dictDelete(d, intKey(2));
    dictGetRandomKey(d);
    CHECK_EQ_INT(d->rehashidx, before);
    dictReleaseIterator(iter);
    dictFind(d, intKey(1));
    CHECK(d->rehashidx > before);
    dictRelease(d);
}

/* One dictRehash(d, 1) visits at most 10 empty buckets. */
static void test_rehash_empty_bucket_visit_limit(void) {
    dict *d = intDictWith(1024);
    finishRehash(d);
    unsigned long keep = ULONG_MAX;
    for (unsigned long i = 0; i < 1024 && keep == ULONG_MAX; i++)
        if (bucketOf(d, intKey(i)) >= 40) keep = i;
    CHECK(keep != ULONG_MAX);

    dictSetResizeEnabled(DICT_RESIZE_FORBID);
    for (unsigned long i = 0; i < 1024; i++)
        if (i != keep) dictDelete(d, intKey(i));
    CHECK_EQ_INT(dictSize(d), 1);
    CHECK(!dictIsRehashing(d));                     /* FORBID: no shrink */
    CHECK_EQ_INT(dictResize(d), DICT_ERR);
    dictSetResizeEnabled(DICT_RESIZE_ENABLE);

    CHECK_EQ_INT(dictResize(d), DICT_OK);
    CHECK(dictIsRehashing(d));
    CHECK_EQ_INT(dictRehash(d, 1), 1);
    CHECK_EQ_INT(d->rehashidx, 10);
    CHECK_EQ_INT(dictRehash(d, 100), 0);
    CHECK(!dictIsRehashing(d));
    CHECK_EQ_INT(dictSlots(d), DICT_HT_INITIAL_SIZE);
    CHECK(dictFind(d, intKey(keep)) != NULL);
    CHECK_EQ_INT(dictRehash(d, 1), 0);              /* nothing to do */
    dictRelease(d);
}

static void test_rehash_milliseconds(void) {
    dict *d = intDictWith(test_scaled(20000));
    finishRehash(d);
    unsigned long slots = dictSlots(d);
    CHECK_EQ_INT(dictExpand(d, slots * 4), DICT_OK);

    dictIterator *iter = dictGetSafeIterator(d);
    CHECK(dictNext(iter) != NULL);
    CHECK_EQ_INT(dictRehashMilliseconds(d, 100), 0);   /* paused by the iterator */
    CHECK_EQ_INT(dictRehash(d, 100), 0);
    dictReleaseIterator(iter);

    int calls = 0, moved = 0;
    while (dictIsRehashing(d) && calls < 100000) {
        moved += dictRehashMilliseconds(d, 10);
        calls++;
    }
    CHECK(!dictIsRehashing(d));
    CHECK(moved > 0);
    CHECK_EQ_INT(dictSlots(d), slots * 4);
    CHECK_EQ_INT(dictRehashMilliseconds(d, 10), 0);
    dictRelease(d);
}

/* ---- resize policy ------------------------------------------------------ */

static void test_grow_policy(void) {
    dict *d = dictCreate(&intType);
    for (unsigned long i = 0; i < 4; i++) dictAdd(d, intKey(i), NULL);
    CHECK_EQ_INT(dictSlots(d), 4);
    dictAdd(d, intKey(4), NULL);                 /* used 4 >= size 4: grow */
    finishRehash(d);
    CHECK_EQ_INT(dictSlots(d), 8);
    dictRelease(d);

    /* AVOID: grow only once used/size exceeds the force ratio. */
    d = intDictWith(4);
    dictSetResizeEnabled(DICT_RESIZE_AVOID);
    unsigned long i = 4;
    for (; i < 4 * (DICT_FORCE_RESIZE_RATIO + 1); i++) dictAdd(d, intKey(i), NULL);
    CHECK_EQ_INT(dictSlots(d), 4);
    CHECK(!dictIsRehashing(d));
    dictAdd(d, intKey(i++), NULL);
    CHECK(dictIsRehashing(d));
    finishRehash(d);                             /* large factor: allowed under AVOID */
    CHECK(!dictIsRehashing(d));
    CHECK(dictSlots(d) >= i);

    /* FORBID: chains just grow. */
    dictRelease(d);
    d = intDictWith(4);
    dictSetResizeEnabled(DICT_RESIZE_FORBID);
    for (i = 4; i < 100; i++) dictAdd(d, intKey(i), NULL);
    CHECK_EQ_INT(dictSlots(d), 4);
    unsigned long found = 0;
    for (i = 0; i < 100; i++) found += dictFind(d, intKey(i)) != NULL;
    CHECK_EQ_INT(found, 100);
    dictSetResizeEnabled(DICT_RESIZE_ENABLE);
    dictRelease(d);
}

/* A rehash started before a fork waits while AVOID is set, unless it
 * changes the size by more than the force ratio. */
static void test_avoid_holds_small_rehash(void) {
    dict *d = intDictWith(100);
    finishRehash(d);
    CHECK_EQ_INT(dictExpand(d, dictSlots(d) * 2), DICT_OK);
    dictSetResizeEnabled(DICT_RESIZE_AVOID);
    long before = d->rehashidx;
    CHECK_EQ_INT(dictRehash(d, 100), 0);
    CHECK(dictFind(d, intKey(5)) != NULL);
    CHECK_EQ_INT(d->rehashidx, before);
    dictSetResizeEnabled(DICT_RESIZE_ENABLE);
    finishRehash(d);
    CHECK(!dictIsRehashing(d));
    dictRelease(d);
}

static size_t lastMoreMem;
static double lastUsedRatio;
static int expandAllowedCalls;

static int refuseExpand(size_t moreMem, double usedRatio) {
    lastMoreMem = moreMem;
    lastUsedRatio = usedRatio;
    expandAllowedCalls++;
    return 0;
}

static void test_expand_allowed_callback(void) {
    dictType refusing = intType;
    refusing.expandAllowed = refuseExpand;
    dict *d = dictCreate(&refusing);
    for (unsigned long i = 0; i < 4; i++) dictAdd(d, intKey(i), NULL);
    CHECK_EQ_INT(expandAllowedCalls, 0);         /* the first table is not asked */
    dictAdd(d, intKey(4), NULL);
    CHECK_EQ_INT(expandAllowedCalls, 1);
    CHECK_EQ_INT(lastMoreMem, 8 * sizeof(dictEntry *));
    CHECK(lastUsedRatio == 1.0);
    for (unsigned long i = 5; i < 50; i++) dictAdd(d, intKey(i), NULL);
    CHECK_EQ_INT(dictSlots(d), 4);
    CHECK_EQ_INT(dictSize(d), 50);
    CHECK(dictFind(d, intKey(49)) != NULL);
    dictRelease(d);
}

static void test_expand_size_overflow(void) {
    dict *d = intDictWith(10);
    finishRehash(d);
    const int bits = (int)(sizeof(unsigned long) * CHAR_BIT);
    CHECK_EQ_INT(dictExpand(d, ULONG_MAX), DICT_ERR);
    CHECK_EQ_INT(dictTryExpand(d, ULONG_MAX), DICT_ERR);
    CHECK_EQ_INT(dictTryExpand(d, (1UL << (bits - 1)) + 1), DICT_ERR);
    /* A power of two that fits in unsigned long, but whose bucket array
     * (times the pointer size) does not fit in size_t. */
    CHECK_EQ_INT(dictExpand(d, 1UL << (bits - 2)), DICT_ERR);
    CHECK_EQ_INT(dictTryExpand(d, 1UL << (bits - 2)), DICT_ERR);
    CHECK(!dictIsRehashing(d));
    CHECK_EQ_INT(dictTryExpand(d, 1000), DICT_OK);
    finishRehash(d);
    CHECK_EQ_INT(dictSlots(d), 1024);
    CHECK_EQ_INT(dictSize(d), 10);
    dictRelease(d);
}

/* Pre-sizing before a bulk load survives the rehash into the big table. */
static void test_expand_ahead_of_bulk_insert(void) {
    dict *d = intDictWith(10);
    finishRehash(d);
    CHECK_EQ_INT(dictExpand(d, 1UL << 14), DICT_OK);
    finishRehash(d);
    CHECK_EQ_INT(dictSlots(d), 1UL << 14);
    for (unsigned long i = 10; i < 5000; i++) dictAdd(d, intKey(i), NULL);
    CHECK_EQ_INT(dictSlots(d), 1UL << 14);
    CHECK(!dictIsRehashing(d));
    dictRelease(d);
}

static void test_shrink_after_mass_delete(void) {
    unsigned long n = test_scaled(20000);
    dict *d = intDictWith(n);
    finishRehash(d);
    unsigned long bigSlots = dictSlots(d);
    unsigned long keep = n / 100;
    for (unsigned long i = keep; i < n; i++) dictDelete(d, intKey(i));
    finishRehash(d);
    CHECK(dictSlots(d) < bigSlots);
    CHECK(dictSize(d) * DICT_HT_MIN_FILL >= dictSlots(d));   /* fill >= 1/8 again */
    unsigned long found = 0;
    for (unsigned long i = 0; i < keep; i++) found += dictFind(d, intKey(i)) != NULL;
    CHECK_EQ_INT(found, keep);

    for (unsigned long i = 0; i < keep; i++) dictDelete(d, intKey(i));
    finishRehash(d);
    CHECK_EQ_INT(dictSize(d), 0);
    CHECK_EQ_INT(dictSlots(d), DICT_HT_INITIAL_SIZE);          /* never below 4 */
    dictRelease(d);
}

static void test_shrink_policy(void) {
    dict *d = intDictWith(1024);
    finishRehash(d);
    unsigned long slots = dictSlots(d);

    dictSetResizeEnabled(DICT_RESIZE_FORBID);
    for (unsigned long i = 10; i < 1024; i++) dictDelete(d, intKey(i));
    CHECK(!dictIsRehashing(d));
    CHECK_EQ_INT(dictSlots(d), slots);
    dictRelease(d);
    dictSetResizeEnabled(DICT_RESIZE_ENABLE);

    /* AVOID: a fill of 1/10 is not sparse enough, below 1/32 is. */
    d = intDictWith(1024);
    finishRehash(d);
    slots = dictSlots(d);
    dictSetResizeEnabled(DICT_RESIZE_AVOID);
    unsigned long i = 0, remaining = 1024;
    for (; remaining > slots / 10; i++, remaining--) dictDelete(d, intKey(i));
    CHECK(!dictIsRehashing(d));
    for (; remaining * DICT_HT_MIN_FILL * DICT_FORCE_RESIZE_RATIO >= slots; i++, remaining--)
        dictDelete(d, intKey(i));
    CHECK(dictIsRehashing(d));
    finishRehash(d);
    CHECK(dictSlots(d) < slots);
    dictSetResizeEnabled(DICT_RESIZE_ENABLE);
    dictRelease(d);
}

/* ---- iterators ------------------------------------------------------------ */

static void test_safe_iterator_with_modifications(void) {
    resetCounters();
    unsigned long n = test_scaled(10000);
    dict *d = dictCreate(&strType);
    char key[32];
    for (unsigned long i = 0; i < n; i++) {
        keyName(key, sizeof key, i);
        dictAdd(d, key, (void *)(uintptr_t)i);
    }
    finishRehash(d);
    unsigned char *seen = calloc(n, 1);
    unsigned long returned = 0, added = 0, newSeen = 0, rehashMoved = 0;
    long rehashidxAtStart = -2;

    dictIterator *iter = dictGetSafeIterator(d);
    dictEntry *de;
    while ((de = dictNext(iter)) != NULL) {
        returned++;
        uintptr_t v = (uintptr_t)dictGetVal(de);
        if (v < n) seen[v]++;
        else newSeen++;
        CHECK_EQ_INT(dictDelete(d, dictGetKey(de)), DICT_OK);
        for (int k = 0; k < 2 && added < 2 * n; k++) {   /* grows the table */
            keyName(key, sizeof key, n + added);
            dictAdd(d, key, (void *)(uintptr_t)(n + added));
            added++;
        }
        if (dictIsRehashing(d)) {
            if (rehashidxAtStart == -2) rehashidxAtStart = d->rehashidx;
            rehashMoved += d->rehashidx != rehashidxAtStart;
        }
    }
    dictReleaseIterator(iter);
    CHECK_EQ_INT(d->pauserehash, 0);
    CHECK_EQ_INT(rehashMoved, 0);
    CHECK(rehashidxAtStart != -2);   /* the adds did start a resize meanwhile */

    unsigned long notOnce = 0;
    for (unsigned long i = 0; i < n; i++) notOnce += seen[i] != 1;
    CHECK_EQ_INT(notOnce, 0);
    CHECK_EQ_INT(dictSize(d), added - newSeen);
    for (unsigned long i = 0; i < n; i++) {
        keyName(key, sizeof key, i);
        notOnce += dictFind(d, key) != NULL;
    }
    CHECK_EQ_INT(notOnce, 0);
    finishRehash(d);
    CHECK(!dictIsRehashing(d));
    dictRelease(d);
    CHECK_EQ_INT(keyFrees, keyDups);
    free(seen);
}

static void test_unsafe_iterator_visits_all_once(void) {
    unsigned long n = test_scaled(10000);
    dict *d = intDictWith(n);
    finishRehash(d);
    CHECK_EQ_INT(dictExpand(d, dictSize(d) * 8), DICT_OK);
    CHECK(dictIsRehashing(d));                       /* both tables are walked */
    unsigned char *seen = calloc(n, 1);
    dictIterator *iter = dictGetIterator(d);
    dictEntry *de;
    unsigned long count = 0;
    while ((de = dictNext(iter)) != NULL) {
        seen[intIndex(dictGetKey(de))]++;
        count++;
    }
    dictReleaseIterator(iter);                       /* unchanged: no abort */
    CHECK_EQ_INT(count, n);
    unsigned long notOnce = 0;
    for (unsigned long i = 0; i < n; i++) notOnce += seen[i] != 1;
    CHECK_EQ_INT(notOnce, 0);
    /* Releasing an iterator that never started checks nothing. */
    iter = dictGetIterator(d);
    dictAdd(d, intKey(n), NULL);
    dictReleaseIterator(iter);
    dictRelease(d);
    free(seen);
}

static void iterateAndModify(void) {
    dict *d = intDictWith(100);
    dictIterator *iter = dictGetIterator(d);
    dictNext(iter);
    dictAdd(d, intKey(1000), NULL);
    dictReleaseIterator(iter);                       /* must abort */
}

static void iterateWithoutModifying(void) {
    dict *d = intDictWith(100);
    dictIterator *iter = dictGetIterator(d);
    while (dictNext(iter)) {}
    dictReleaseIterator(iter);
    dictRelease(d);
}

static void test_unsafe_iterator_fingerprint(void) {
    int status = test_run_in_child(iterateAndModify);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
    status = test_run_in_child(iterateWithoutModifying);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* ---- scan ------------------------------------------------------------------ */

typedef struct scanRecord {
    unsigned int *seen;
    unsigned long range;
} scanRecord;

static void recordScanned(void *privdata, const dictEntry *de) {
    scanRecord *rec = privdata;
    unsigned long i = intIndex(dictGetKey(de));
    if (i < rec->range) rec->seen[i]++;
}

static void test_scan_stable_table_returns_each_once(void) {
    unsigned long n = test_scaled(10000);
    for (int midRehash = 0; midRehash <= 1; midRehash++) {
        dict *d = intDictWith(n);
        finishRehash(d);
        if (midRehash) {
            dictExpand(d, dictSize(d) * 4);
            dictRehash(d, 50);
            CHECK(dictIsRehashing(d));
        }
        scanRecord rec = {calloc(n, sizeof(unsigned int)), n};
        unsigned long cursor = 0;
        do cursor = dictScan(d, cursor, recordScanned, &rec); while (cursor != 0);
        unsigned long notOnce = 0;
        for (unsigned long i = 0; i < n; i++) notOnce += rec.seen[i] != 1;
        CHECK_EQ_INT(notOnce, 0);
        free(rec.seen);
        dictRelease(d);
    }
}

/* A dict grown one insert at a time has dictTableSizeFor(size) buckets, and
 * walking a table of that size with dictScanCursorAfter() is dictScan()'s
 * walk: the same cursors, in the same order (what SSCAN of a listpack set
 * relies on to page as the hashtable would). */
static void test_virtual_table_size_and_cursor(void) {
    CHECK_EQ_INT(dictTableSizeFor(0), 4);
    CHECK_EQ_INT(dictTableSizeFor(4), 4);
    CHECK_EQ_INT(dictTableSizeFor(5), 8);
    CHECK_EQ_INT(dictTableSizeFor(65), 128);
    CHECK_EQ_INT(dictTableSizeFor(128), 128);
    CHECK_EQ_INT(dictTableSizeFor(~0UL), 0);
    for (unsigned long n = 1; n <= 300; n += 37) {
        dict *d = intDictWith(n);
        finishRehash(d);
        CHECK_EQ_INT(dictSlots(d), dictTableSizeFor(n));
        unsigned long real = 0, virt = 0, steps = 0, size = dictTableSizeFor(n);
        scanRecord rec = {calloc(n, sizeof(unsigned int)), n};
        do {
            real = dictScan(d, real, recordScanned, &rec);
            virt = dictScanCursorAfter(virt, size);
            CHECK_EQ_INT(real, virt);
            steps++;
        } while (real != 0 && steps <= size);
        CHECK_EQ_INT(steps, size);
        free(rec.seen);
        dictRelease(d);
    }
    /* the unmasked bits of a cursor carry over, as in dictScan() */
    CHECK_EQ_INT(dictScanCursorAfter(0, 4), 2);
    CHECK_EQ_INT(dictScanCursorAfter(2, 4), 1);
    CHECK_EQ_INT(dictScanCursorAfter(3, 4), 0);
}

static void test_scan_while_growing(void) {
    unsigned long n = test_scaled(5000), total = 20 * n;
    dict *d = intDictWith(n);
    finishRehash(d);
    unsigned long startSlots = dictSlots(d);
    scanRecord rec = {calloc(total, sizeof(unsigned int)), total};
    unsigned long cursor = 0, next = n, callsWhileRehashing = 0;
    do {
        callsWhileRehashing += dictIsRehashing(d);
        cursor = dictScan(d, cursor, recordScanned, &rec);
        for (int k = 0; k < 40 && next < total; k++) dictAdd(d, intKey(next++), NULL);
    } while (cursor != 0);
    unsigned long missed = 0;
    for (unsigned long i = 0; i < n; i++) missed += rec.seen[i] == 0;
    CHECK_EQ_INT(missed, 0);
    CHECK(dictSlots(d) >= 4 * startSlots);           /* it really grew, ... */
    CHECK(callsWhileRehashing > 0);                   /* ... also mid-scan */
    free(rec.seen);
    dictRelease(d);
}

static void test_scan_while_shrinking(void) {
    unsigned long n = test_scaled(20000);
    dict *d = intDictWith(n);
    finishRehash(d);
    unsigned long startSlots = dictSlots(d);
    scanRecord rec = {calloc(n, sizeof(unsigned int)), n};
    /* All deletes happen within the first ~200 calls: a small part of the
     * cursor space, so most of the scan runs on the shrunk table. */
    unsigned long cursor = 0, victim = 0, callsWhileRehashing = 0, perCall = n / 200 + 1;
    do {
        callsWhileRehashing += dictIsRehashing(d);
        cursor = dictScan(d, cursor, recordScanned, &rec);
        for (unsigned long k = 0; k < perCall && victim < n; victim++) {
            if (victim % 50 == 0) continue;           /* kept for the whole scan */
            dictDelete(d, intKey(victim));
            k++;
        }
    } while (cursor != 0);
    unsigned long missed = 0;
    for (unsigned long i = 0; i < n; i += 50) missed += rec.seen[i] == 0;
    CHECK_EQ_INT(missed, 0);
    CHECK_EQ_INT(victim, n);
    CHECK_EQ_INT(dictSize(d), (n + 49) / 50);
    finishRehash(d);
    CHECK(dictSlots(d) < startSlots);
    CHECK(dictSize(d) * DICT_HT_MIN_FILL >= dictSlots(d));   /* fill >= 1/8 again */
    CHECK(callsWhileRehashing > 0);
    free(rec.seen);
    dictRelease(d);
}

typedef struct scanDeleter {
    dict *d;
    unsigned long deleted;
} scanDeleter;

static void deleteScanned(void *privdata, const dictEntry *de) {
    scanDeleter *sd = privdata;
    sd->deleted += dictDelete(sd->d, dictGetKey(de)) == DICT_OK;
}

/* The callback may delete the entry it is given, even if that shrinks. */
static void test_scan_callback_deletes(void) {
    unsigned long n = test_scaled(5000);
    dict *d = intDictWith(n);
    scanDeleter sd = {d, 0};
    unsigned long cursor = 0;
    do cursor = dictScan(d, cursor, deleteScanned, &sd); while (cursor != 0);
    CHECK_EQ_INT(sd.deleted, n);
    CHECK_EQ_INT(dictSize(d), 0);
    CHECK_EQ_INT(d->pauserehash, 0);
    dictRelease(d);
}

/* ---- random keys ---------------------------------------------------------- */

static void checkRandomCoverage(dict *d, dictEntry *(*pick)(dict *), unsigned long n) {
    unsigned char *seen = calloc(n, 1);
    unsigned long foreign = 0, covered = 0;
    for (unsigned long draw = 0; draw < 200 * n; draw++) {
        dictEntry *de = pick(d);
        if (de == NULL || dictFind(d, dictGetKey(de)) != de) {
            foreign++;
            continue;
        }
        unsigned long i = intIndex(dictGetKey(de));
        if (i >= n) foreign++;
        else if (!seen[i]) {
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
        dict *d = intDictWith(100);
        finishRehash(d);
        if (midRehash) {
            dictExpand(d, 4096);
            CHECK(dictIsRehashing(d));
        }
        checkRandomCoverage(d, dictGetRandomKey, 100);
        dictRelease(d);
        d = intDictWith(100);
        if (midRehash) dictExpand(d, 4096);
        checkRandomCoverage(d, dictGetFairRandomKey, 100);
        dictRelease(d);
    }
    dict *d = intDictWith(1);
    CHECK(dictGetRandomKey(d) == dictFind(d, intKey(0)));
    CHECK(dictGetFairRandomKey(d) == dictFind(d, intKey(0)));
    dictRelease(d);
}

/* Entries are present, distinct, and no more than asked or held. */
static void checkSomeKeys(dict *d, unsigned int count) {
    dictEntry **des = calloc(count + 1, sizeof(*des));
    unsigned int got = dictGetSomeKeys(d, des, count);
    CHECK(got <= count);
    CHECK(got <= dictSize(d));
    unsigned long bad = 0;
    for (unsigned int i = 0; i < got; i++) {
        bad += dictFind(d, dictGetKey(des[i])) != des[i];
        for (unsigned int j = 0; j < i; j++) bad += des[i] == des[j];
    }
    CHECK_EQ_INT(bad, 0);
    free(des);
}

/* In a dense table the walk almost always finds all it was asked for. */
static void checkSomeKeysDense(dict *d) {
    dictEntry *des[20];
    unsigned long total = 0;
    for (int i = 0; i < 100; i++) total += dictGetSomeKeys(d, des, 20);
    CHECK(total >= 100 * 10);
}

static void test_get_some_keys(void) {
    dict *d = intDictWith(1000);
    finishRehash(d);
    unsigned int counts[] = {0, 1, 5, 20, 999, 1000, 5000};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) checkSomeKeys(d, counts[i]);
    checkSomeKeysDense(d);
    dictExpand(d, 8192);
    CHECK(dictIsRehashing(d));
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) checkSomeKeys(d, counts[i]);
    dictRelease(d);

    /* When asking for more than the dict holds, a small table is walked
     * completely: exactly every entry comes back. */
    d = intDictWith(5);
    dictEntry *des[100];
    CHECK_EQ_INT(dictGetSomeKeys(d, des, 100), 5);
    dictRelease(d);
}

/* Chains far longer than the sample (resizing forbidden: 300 keys in the
 * first 4 buckets): every entry still turns up, the tail of a chain
 * included (the bucket that fills the sample is reservoir-sampled). */
static void test_get_some_keys_long_chains(void) {
    dictSetResizeEnabled(DICT_RESIZE_FORBID);
    dict *d = intDictWith(300);
    dictSetResizeEnabled(DICT_RESIZE_ENABLE);
    CHECK(dictSlots(d) <= 8);
    char seen[300] = {0};
    dictEntry *des[20];
    for (int round = 0; round < 3000; round++) {
        unsigned int got = dictGetSomeKeys(d, des, 20);
        for (unsigned int i = 0; i < got; i++) seen[(uintptr_t)dictGetKey(des[i]) - 1] = 1;
    }
    int missing = 0;
    for (int i = 0; i < 300; i++) missing += !seen[i];
    CHECK_EQ_INT(missing, 0);
    for (int round = 0; round < 20; round++) checkSomeKeys(d, 20);
    dictRelease(d);
}

/* ---- hashing ------------------------------------------------------------ */

static void test_hash_seed(void) {
    uint8_t saved[16], seedA[16], seedB[16];
    memcpy(saved, dictGetHashFunctionSeed(), 16);
    for (int i = 0; i < 16; i++) {
        seedA[i] = (uint8_t)(i * 3 + 1);
        seedB[i] = (uint8_t)(i * 3 + 2);
    }
    dictSetHashFunctionSeed(seedA);
    CHECK_EQ_MEM(dictGetHashFunctionSeed(), seedA, 16);
    uint64_t underA = dictGenHashFunction("hello", 5);
    CHECK(underA == siphash((const uint8_t *)"hello", 5, seedA));
    CHECK(dictGenCaseHashFunction((const unsigned char *)"HeLLo", 5) == underA);
    dictSetHashFunctionSeed(seedB);
    CHECK(dictGenHashFunction("hello", 5) != underA);
    CHECK(dictGenHashFunction("hello", 5) == siphash((const uint8_t *)"hello", 5, seedB));
    dictSetHashFunctionSeed(saved);
    CHECK_EQ_MEM(dictGetHashFunctionSeed(), saved, 16);
}

/* ---- entry API -------------------------------------------------------------- */

static void test_value_accessors(void) {
    dict *d = dictCreate(&intType);
    dictEntry *de = dictAddRaw(d, intKey(1), NULL);
    CHECK(de != NULL);
    CHECK(dictGetVal(de) == NULL);
    CHECK_EQ_INT(dictGetUnsignedIntegerVal(de), 0);
    dictSetSignedIntegerVal(de, -5);
    CHECK_EQ_INT(dictIncrSignedIntegerVal(de, 10), 5);
    CHECK_EQ_INT(dictGetSignedIntegerVal(de), 5);
    dictSetSignedIntegerVal(de, INT64_MAX);
    CHECK(dictIncrSignedIntegerVal(de, 1) == INT64_MIN);    /* wraps, no UB */
    dictSetUnsignedIntegerVal(de, UINT64_MAX);
    CHECK(dictIncrUnsignedIntegerVal(de, 2) == 1);
    CHECK(dictGetUnsignedIntegerVal(de) == 1);
    dictSetDoubleVal(de, 1.5);
    CHECK(dictIncrDoubleVal(de, 2.25) == 3.75);
    CHECK(dictGetDoubleVal(de) == 3.75);
    *dictGetDoubleValPtr(de) = -0.5;
    CHECK(dictGetDoubleVal(de) == -0.5);
    dictSetVal(d, de, &d);
    CHECK(dictFetchValue(d, intKey(1)) == &d);
    CHECK(dictGetHash(d, intKey(1)) == intHash(intKey(1)));
    dictRelease(d);
}

typedef struct refObject {
    int refcount;
    int sawZero;
} refObject;

static void *refDup(dict *d, const void *obj) {
    (void)d;
    refObject *o = (refObject *)obj;
    o->refcount++;
    return o;
}

static void refRelease(dict *d, void *obj) {
    (void)d;
    refObject *o = obj;
    if (--o->refcount == 0) o->sawZero = 1;
}

/* Replacing a value by itself must not drop it to zero references midway. */
static void test_replace_with_same_value(void) {
    dictType type = strType;
    type.valDup = refDup;
    type.valDestructor = refRelease;
    refObject obj = {1, 0}, other = {1, 0};
    dict *d = dictCreate(&type);
    CHECK_EQ_INT(dictAdd(d, "k", &obj), DICT_OK);
    CHECK_EQ_INT(obj.refcount, 2);
    CHECK_EQ_INT(dictReplace(d, "k", &obj), 0);
    CHECK_EQ_INT(obj.refcount, 2);
    CHECK_EQ_INT(obj.sawZero, 0);
    CHECK_EQ_INT(dictReplace(d, "k", &other), 0);
    CHECK_EQ_INT(obj.refcount, 1);
    CHECK_EQ_INT(other.refcount, 2);
    dictRelease(d);
    CHECK_EQ_INT(other.refcount, 1);
    CHECK_EQ_INT(obj.sawZero + other.sawZero, 0);
}

static void test_add_raw_and_add_or_find(void) {
    resetCounters();
    dict *d = dictCreate(&strType);
    dictEntry *existing = NULL;
    dictEntry *de = dictAddRaw(d, "alpha", &existing);
    CHECK(de != NULL);
    CHECK(existing == NULL);
    CHECK_EQ_STR(dictGetKey(de), "alpha");
    CHECK(dictAddRaw(d, "alpha", &existing) == NULL);
    CHECK(existing == de);
    CHECK(dictAddRaw(d, "alpha", NULL) == NULL);
    CHECK(dictAddOrFind(d, "alpha") == de);
    dictEntry *beta = dictAddOrFind(d, "beta");
    CHECK(beta != NULL && beta != de);
    CHECK(dictFind(d, "beta") == beta);
    CHECK_EQ_INT(dictSize(d), 2);
    CHECK_EQ_INT(keyDups, 2);
    dictRelease(d);
    CHECK_EQ_INT(keyFrees, 2);
}

static void test_unlink(void) {
    resetCounters();
    dict *d = dictCreate(&strType);
    dictAdd(d, "one", NULL);
    dictAdd(d, "two", NULL);
    dictEntry *de = dictUnlink(d, "one");
    CHECK(de != NULL);
    CHECK(dictFind(d, "one") == NULL);
    CHECK_EQ_INT(dictSize(d), 1);
    CHECK_EQ_STR(dictGetKey(de), "one");             /* still readable */
    CHECK_EQ_INT(keyFrees, 0);
    dictFreeUnlinkedEntry(d, de);
    CHECK_EQ_INT(keyFrees, 1);
    CHECK_EQ_INT(valFrees, 1);
    CHECK(dictUnlink(d, "one") == NULL);
    dictFreeUnlinkedEntry(d, NULL);
    CHECK_EQ_INT(keyFrees, 1);
    dictRelease(d);
    CHECK_EQ_INT(keyFrees, 2);
}

static void test_find_entry_ref_by_ptr_and_hash(void) {
    dict *d = dictCreate(&strType);
    dictAdd(d, "target", NULL);
    dictAdd(d, "other", NULL);
    dictEntry *de = dictFind(d, "target");
    char lookalike[] = "target";
    uint64_t hash = dictGetHash(d, "target");
    dictEntry **ref = dictFindEntryRefByPtrAndHash(d, dictGetKey(de), hash);
    CHECK(ref != NULL && *ref == de);
    /* Equal content at another address is not the same pointer. */
    CHECK(dictFindEntryRefByPtrAndHash(d, lookalike, hash) == NULL);
    dictRelease(d);
}

static int emptyCallbacks;
static void onEmptyProgress(dict *d) {
    (void)d;
    emptyCallbacks++;
}

static void test_empty_with_callback(void) {
    resetCounters();
    unsigned long n = test_scaled(100000);
    dict *d = dictCreate(&strType);
    char key[32];
    for (unsigned long i = 0; i < n; i++) {
        keyName(key, sizeof key, i);
        dictAdd(d, key, NULL);
    }
    unsigned long slots = dictSlots(d);
    emptyCallbacks = 0;
    dictEmpty(d, onEmptyProgress);
    CHECK(emptyCallbacks >= 1);
    CHECK((unsigned long)emptyCallbacks >= slots / 65536);
    CHECK_EQ_INT(dictSize(d), 0);
    CHECK_EQ_INT(dictSlots(d), 0);
    CHECK(!dictIsRehashing(d));
    CHECK_EQ_INT(keyFrees, n);
    CHECK_EQ_INT(valFrees, n);
    CHECK_EQ_INT(dictAdd(d, "again", NULL), DICT_OK);     /* still usable */
    CHECK(dictFind(d, "again") != NULL);
    dictRelease(d);
}

/* Sums the "   <length>: <buckets> (<percent>%)" lines of the first table. */
static void sumChainDistribution(const char *stats, unsigned long *buckets,
                                 unsigned long *entries) {
    const char *p = strstr(stats, "Chain length distribution:\n");
    *buckets = *entries = 0;
    if (p == NULL) return;
    p = strchr(p, '\n') + 1;
    unsigned long length, count;
    while (sscanf(p, "   %lu: %lu", &length, &count) == 2) {
        *buckets += count;
        *entries += length * count;
        p = strchr(p, '\n') + 1;
    }
}

static void test_stats(void) {
    dict *d = intDictWith(100);
    finishRehash(d);
    char stats[4096], expected[64];
    dictGetStats(stats, sizeof stats, d);
    snprintf(expected, sizeof expected, "table size: %lu\n", dictSlots(d));
    CHECK(strstr(stats, expected) != NULL);
    CHECK(strstr(stats, "number of elements: 100\n") != NULL);
    CHECK(strstr(stats, "Hash table 1") == NULL);
    unsigned long buckets, entries;
    sumChainDistribution(stats, &buckets, &entries);
    CHECK_EQ_INT(buckets, dictSlots(d));
    CHECK_EQ_INT(entries, 100);

    dictExpand(d, 1000);
    dictGetStats(stats, sizeof stats, d);
    CHECK(strstr(stats, "Hash table 1 stats (rehashing target)") != NULL);

    char small[16];
    memset(small, 'x', sizeof small);
    dictGetStats(small, sizeof small, d);
    CHECK_EQ_INT(strlen(small), sizeof small - 1);      /* truncated, terminated */
    CHECK(strncmp(small, stats, sizeof small - 1) == 0);
    char untouched = 'x';
    dictGetStats(&untouched, 0, d);
    CHECK(untouched == 'x');
    dictRelease(d);
}

/* dictDefragTables hands each bucket array to the callback and keeps the
 * one it returns: the entries stay reachable, also in mid-rehash. */
static int tablesMoved;

static void *moveAlways(void *block) {
    size_t size = zmalloc_size(block);
    void *copy = zmalloc(size);
    memcpy(copy, block, size);
    zfree(block);
    tablesMoved++;
    return copy;
}

static void *moveNever(void *block) {
    (void)block;
    return NULL;
}

static void test_defrag_tables(void) {
    dict *d = intDictWith(1000);
    tablesMoved = 0;
    dictDefragTables(d, moveAlways);
    CHECK_EQ_INT(tablesMoved, 1);
    dictDefragTables(d, moveNever);
    for (unsigned long i = 0; i < 1000; i++) CHECK(dictFind(d, intKey(i)) != NULL);
    for (unsigned long i = 1000; i < 1100; i++) dictAdd(d, intKey(i), NULL); /* starts a grow */
    if (dictIsRehashing(d)) {
        tablesMoved = 0;
        dictDefragTables(d, moveAlways);
        CHECK_EQ_INT(tablesMoved, 2);
    }
    for (unsigned long i = 0; i < 1100; i++) CHECK(dictFind(d, intKey(i)) != NULL);
    dictRelease(d);
    dict *empty = dictCreate(&intType);
    tablesMoved = 0;
    dictDefragTables(empty, moveAlways);
    CHECK_EQ_INT(tablesMoved, 0);
    dictRelease(empty);
}

TEST_MAIN(
    RUN(test_defrag_tables);
    RUN(test_empty_dict);
    RUN(test_virtual_table_size_and_cursor);
    RUN(test_add_find_replace_delete_at_scale);
    RUN(test_operations_during_incremental_rehash);
    RUN(test_rehash_step_per_operation);
    RUN(test_rehash_empty_bucket_visit_limit);
    RUN(test_rehash_milliseconds);
    RUN(test_grow_policy);
    RUN(test_avoid_holds_small_rehash);
    RUN(test_expand_allowed_callback);
    RUN(test_expand_size_overflow);
    RUN(test_expand_ahead_of_bulk_insert);
    RUN(test_shrink_after_mass_delete);
    RUN(test_shrink_policy);
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
    RUN(test_hash_seed);
    RUN(test_value_accessors);
    RUN(test_replace_with_same_value);
    RUN(test_add_raw_and_add_or_find);
    RUN(test_unlink);
    RUN(test_find_entry_ref_by_ptr_and_hash);
    RUN(test_empty_with_callback);
    RUN(test_stats);
)
