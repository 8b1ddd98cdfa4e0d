/* kvtable.c -- the keyspace hash table (model and API in kvtable.h, the
 * layout in kvtable_private.h).
 *
 * Design decisions:
 *  - The algorithms are dict.c's (see its header), and whatever does not
 *    depend on the entry layout -- size and resize-policy math, the scan
 *    cursor, sampling PRNG, fingerprints, statistics text -- is shared with
 *    it through hashtable_common.h; the resize policy itself is dict.c's
 *    global (dictGetResizeEnabled()), so one switch holds every table of
 *    the server while a fork child exists.
 *  - Entries carry their own chain pointer, so an insert allocates nothing
 *    (only a growing bucket array does) and a lookup touches the bucket
 *    and then each candidate's block, whose key lies in the same cache
 *    lines as the header.
 *  - Every chain operation goes through kvtableLocate(), which returns the
 *    link (bucket slot or an entry's next field) pointing at the wanted
 *    entry: find, replace and unlink then differ only in what they write.
 *  - While rehashing, lookups search table 0 then table 1 and inserts go to
 *    table 1 only; a rehash step moves one bucket but visits at most 10
 *    empty ones; buckets of table 0 below rehashidx are empty.
 *  - Invariant violations (a table modified under an unsafe iterator) go to
 *    libAssert(): the program's assert handler, then abort, whatever NDEBUG
 *    says.
 */
#include "kvtable.h"
#include "kvtable_private.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libassert.h"
#include "platform.h"
#include "hashtable_common.h"
#include "kvobj.h"
#include "zmalloc.h"

/* ---- small helpers ------------------------------------------------------------- */

/* Out of line for the server (the layout is private); inlined here. */
unsigned long kvtableSize(const kvtable *t) { return t->used[0] + t->used[1]; }
unsigned long kvtableSlots(const kvtable *t) { return KVTABLE_SIZE(t->sizeExp[0]) + KVTABLE_SIZE(t->sizeExp[1]); }
int kvtableIsRehashing(const kvtable *t) { return t->rehashidx != -1; }
void kvtablePauseRehashing(kvtable *t) { t->pauserehash++; }
void kvtableResumeRehashing(kvtable *t) { t->pauserehash--; }
kvtableType *kvtableGetType(const kvtable *t) { return t->type; }

static unsigned long tableSize(const kvtable *t, int i) { return KVTABLE_SIZE(t->sizeExp[i]); }
static unsigned long tableMask(const kvtable *t, int i) { return tableSize(t, i) - 1; }

static void tableReset(kvtable *t, int i) {
    t->buckets[i] = NULL;
    t->sizeExp[i] = -1;
    t->used[i] = 0;
}

static kvobj **nextLink(kvobj *o) { return &((kvobjHead *)o)->next; }

/* The hash of a key being looked up, from a two-entry memo when it was one
 * of the last two hashed. A pipelined command's key is hashed three times:
 * when its bucket is prefetched while the previous request runs, when its
 * entry is prefetched, and by the lookup itself (prefetch.c); SipHash of a
 * short key costs several times a compare of it. Keys up to HASH_MEMO_KEY
 * bytes are remembered; a miss costs a length test (and a short compare
 * for a key of the same length) plus a copy, and replaces the entry used
 * least recently: with a plain alternation the next request's key, hashed
 * by the prefetch before the current one's lookup, could push out the
 * current key and every later lookup then missed (1.87 hashes per GET at
 * -P 16, issue #39). Entries being rehashed don't
 * go through it (entryHash): they would only push the useful keys out.
 * Main thread only; a fork child has its own copy. */
#define HASH_MEMO_KEY 32

typedef struct hashMemo {
    size_t len_plus_1; /* 0: empty */
    unsigned generation;
    uint64_t hash;
    char key[HASH_MEMO_KEY];
} hashMemo;

static hashMemo hash_memo[2];
static unsigned hash_memo_next;

static int memoHolds(const hashMemo *m, const char *key, size_t len) {
    return m->len_plus_1 == len + 1 && m->generation == dictHashSeedGeneration && memcmp(m->key, key, len) == 0;
}

uint64_t kvtableHashKey(const char *key, size_t len) {
    if (len > HASH_MEMO_KEY) return dictGenHashFunction(key, len);
    for (unsigned i = 0; i < 2; i++) {
        if (memoHolds(&hash_memo[i], key, len)) {
            hash_memo_next = i ^ 1; /* the other one is now the older */
            return hash_memo[i].hash;
        }
    }
    hashMemo *m = &hash_memo[hash_memo_next];
    hash_memo_next ^= 1;
    m->len_plus_1 = len + 1;
    m->generation = dictHashSeedGeneration;
    m->hash = dictGenHashFunction(key, len);
    memcpy(m->key, key, len);
    return m->hash;
}

static uint64_t entryHash(const kvobj *o) {
    sds key = kvobjGetKey(o);
    return dictGenHashFunction(key, sdslen(key));
}

static int entryHasKey(const kvobj *o, const char *key, size_t len) {
    sds k = kvobjGetKey(o);
    return sdslen(k) == len && memcmp(k, key, len) == 0;
}

static void destroyEntry(kvtable *t, kvobj *o) {
    if (t->type->entryDestructor) t->type->entryDestructor(o);
}

/* ---- creation and destruction --------------------------------------------------- */

kvtable *kvtableCreate(kvtableType *type) {
    kvtable *t = zmalloc(sizeof(*t));
    t->type = type;
    tableReset(t, 0);
    tableReset(t, 1);
    t->rehashidx = -1;
    t->pauserehash = 0;
    t->randomState = htRandomSeed(t);
    return t;
}

static void clearTable(kvtable *t, int i, void(callback)(kvtable *)) {
    for (unsigned long b = 0; b < tableSize(t, i) && t->used[i] > 0; b++) {
        if (callback && (b & 65535) == 0) callback(t);
        kvobj *o = t->buckets[i][b];
        while (o) {
            kvobj *next = kvobjGetNext(o);
            destroyEntry(t, o);
            t->used[i]--;
            o = next;
        }
    }
    zfree(t->buckets[i]);
    tableReset(t, i);
}

void kvtableEmpty(kvtable *t, void(callback)(kvtable *)) {
    clearTable(t, 0, callback);
    clearTable(t, 1, callback);
    t->rehashidx = -1;
    t->pauserehash = 0;
}

void kvtableRelease(kvtable *t) {
    kvtableEmpty(t, NULL);
    zfree(t);
}

/* ---- resizing ------------------------------------------------------------------- */

/* Starts a resize to hold `size` entries: a new table 1 to rehash into, or
 * table 0 itself when there is none yet. */
static int startResize(kvtable *t, unsigned long size, int mayFail) {
    if (kvtableIsRehashing(t) || t->used[0] > size) return KVTABLE_ERR;
    int exp = htNextExp(size, DICT_HT_INITIAL_EXP);
    if (exp < 0 || exp == t->sizeExp[0]) return KVTABLE_ERR;
    size_t bytes = htBucketArrayBytes(exp);
    if (bytes == 0) return KVTABLE_ERR;
    kvobj **array = mayFail ? ztrycalloc(bytes) : zcalloc(bytes);
    if (array == NULL) return KVTABLE_ERR;

    int i = t->buckets[0] ? 1 : 0;
    t->buckets[i] = array;
    t->sizeExp[i] = (signed char)exp;
    t->used[i] = 0;
    if (i == 1) t->rehashidx = 0;
    return KVTABLE_OK;
}

int kvtableExpand(kvtable *t, unsigned long size) { return startResize(t, size, 0); }
int kvtableTryExpand(kvtable *t, unsigned long size) { return startResize(t, size, 1); }

int kvtableResize(kvtable *t) {
    if (dictGetResizeEnabled() != DICT_RESIZE_ENABLE || kvtableIsRehashing(t)) return KVTABLE_ERR;
    unsigned long target = t->used[0] > DICT_HT_INITIAL_SIZE ? t->used[0] : DICT_HT_INITIAL_SIZE;
    return startResize(t, target, 0);
}

static int growthAllowedByType(kvtable *t) {
    if (t->type->expandAllowed == NULL) return 1;
    size_t moreMem = htBucketArrayBytes(htNextExp(t->used[0] + 1, DICT_HT_INITIAL_EXP));
    double usedRatio = (double)t->used[0] / (double)tableSize(t, 0);
    return t->type->expandAllowed(moreMem ? moreMem : SIZE_MAX, usedRatio);
}

int kvtableExpandIfNeeded(kvtable *t) {
    if (kvtableIsRehashing(t)) return KVTABLE_OK;
    if (t->buckets[0] == NULL) return kvtableExpand(t, DICT_HT_INITIAL_SIZE);
    if (!htGrowWanted(dictGetResizeEnabled(), t->used[0], tableSize(t, 0))) return KVTABLE_ERR;
    if (!growthAllowedByType(t)) return KVTABLE_ERR;
    return kvtableExpand(t, t->used[0] + 1);
}

int kvtableShrinkIfNeeded(kvtable *t) {
    if (kvtableIsRehashing(t)) return KVTABLE_OK;
    if (!htShrinkWanted(dictGetResizeEnabled(), t->used[0], tableSize(t, 0))) return KVTABLE_ERR;
    return startResize(t, t->used[0], 0);
}

/* ---- incremental rehashing -------------------------------------------------------- */

static void moveBucket(kvtable *t, unsigned long index) {
    kvobj *o = t->buckets[0][index];
    t->buckets[0][index] = NULL;
    unsigned long mask = tableMask(t, 1);
    for (kvobj *next; o; o = next) {
        next = kvobjGetNext(o);
        kvobj **slot = &t->buckets[1][entryHash(o) & mask];
        kvobjSetNext(o, *slot);
        *slot = o;
        t->used[0]--;
        t->used[1]++;
    }
}

/* Table 1 becomes table 0. After a shrink, deletes made meanwhile may call
 * for a smaller table still, which starts right away (see dict.c). */
static void completeRehash(kvtable *t) {
    int shrank = t->sizeExp[1] < t->sizeExp[0];
    zfree(t->buckets[0]);
    t->buckets[0] = t->buckets[1];
    t->sizeExp[0] = t->sizeExp[1];
    t->used[0] = t->used[1];
    tableReset(t, 1);
    t->rehashidx = -1;
    if (shrank) kvtableShrinkIfNeeded(t);
}

int kvtableRehash(kvtable *t, int n) {
    if (!kvtableIsRehashing(t) || t->pauserehash > 0) return 0;
    if (!htRehashAllowed(dictGetResizeEnabled(), tableSize(t, 0), tableSize(t, 1))) return 0;
    long long emptyBudget = (long long)n * 10;
    for (; n > 0 && t->used[0] != 0; n--) {
        libAssert((unsigned long)t->rehashidx < tableSize(t, 0));
        while (t->buckets[0][t->rehashidx] == NULL) {
            t->rehashidx++;
            if (--emptyBudget <= 0) return 1;
        }
        moveBucket(t, (unsigned long)t->rehashidx++);
    }
    if (t->used[0] != 0) return 1;
    completeRehash(t);
    return kvtableIsRehashing(t);
}

int kvtableRehashMilliseconds(kvtable *t, int ms) {
    if (t->pauserehash > 0) return 0;
    uint64_t deadline = htMonotonicMicros() + (uint64_t)(ms > 0 ? ms : 0) * 1000u;
    int moved = 0;
    do {
        if (!kvtableRehash(t, 100)) break;
        moved += 100;
    } while (htMonotonicMicros() <= deadline);
    return moved;
}

static void rehashStepIfRehashing(kvtable *t) {
    if (kvtableIsRehashing(t) && t->pauserehash == 0) kvtableRehash(t, 1);
}

/* ---- lookup, insert, delete ------------------------------------------------------- */

/* The link that points at the entry with this key, or NULL; *where gets the
 * table it is in. No rehash step. */
static kvobj **kvtableLocate(kvtable *t, const char *key, size_t len, uint64_t hash, int *where) {
    int last = kvtableIsRehashing(t) ? 1 : 0;
    for (int i = 0; i <= last; i++) {
        if (t->used[i] == 0) continue;
        kvobj **link = &t->buckets[i][hash & tableMask(t, i)];
        while (*link && !entryHasKey(*link, key, len)) link = nextLink(*link);
        if (*link == NULL) continue;
        *where = i;
        return link;
    }
    return NULL;
}

void kvtablePrefetchBuckets(const kvtable *t, uint64_t hash) {
    for (int i = 0; i <= (kvtableIsRehashing(t) ? 1 : 0); i++)
        if (t->used[i]) prefetchRead(&t->buckets[i][hash & tableMask(t, i)]);
}

void kvtablePrefetchEntries(const kvtable *t, uint64_t hash) {
    for (int i = 0; i <= (kvtableIsRehashing(t) ? 1 : 0); i++) {
        if (t->used[i] == 0) continue;
        kvobj *first = t->buckets[i][hash & tableMask(t, i)];
        if (first) prefetchRead(first);
    }
}

kvobj *kvtableFind(kvtable *t, const char *key, size_t len) {
    if (kvtableSize(t) == 0) return NULL;
    rehashStepIfRehashing(t);
    int where;
    kvobj **link = kvtableLocate(t, key, len, kvtableHashKey(key, len), &where);
    return link ? *link : NULL;
}

/* Every entry whose key hash has these low 32 bits, in both tables. The
 * bucket of such an entry is fixed by those bits as long as a table has at
 * most 2^32 buckets; a bigger table has 2^(exp-32) candidate buckets, all
 * visited. No rehash step: fn must not change the table. */
void kvtableForEachWithHashLow32(kvtable *t, uint32_t low, kvtableScanFunction *fn, void *privdata) {
    for (int i = 0; i < 2; i++) {
        if (t->sizeExp[i] == -1 || t->used[i] == 0) continue;
        unsigned long mask = tableMask(t, i);
        unsigned long step = (unsigned long)((uint64_t)mask >> 31 >> 1) + 1; /* 1 unless > 2^32 buckets */
        for (unsigned long k = 0; k < step; k++) {
            unsigned long b = (((unsigned long)k << 31 << 1) | low) & mask;
            for (kvobj *o = t->buckets[i][b]; o != NULL;) {
                kvobj *next = kvobjGetNext(o);
                sds key = kvobjGetKey(o);
                if ((uint32_t)kvtableHashKey(key, sdslen(key)) == low) fn(privdata, o);
                o = next;
            }
        }
    }
}

/* Links o at the head of its chain in the table inserts go to. */
static void linkNew(kvtable *t, kvobj *o, uint64_t hash) {
    int i = kvtableIsRehashing(t) ? 1 : 0;
    kvobj **slot = &t->buckets[i][hash & tableMask(t, i)];
    kvobjSetNext(o, *slot);
    *slot = o;
    t->used[i]++;
}

/* Prepares an insert of o: a rehash step and a growth check, then the
 * search for an entry with the same key. */
static kvobj **prepareInsert(kvtable *t, kvobj *o, uint64_t *hash) {
    rehashStepIfRehashing(t);
    kvtableExpandIfNeeded(t);
    sds key = kvobjGetKey(o);
    *hash = kvtableHashKey(key, sdslen(key));
    int where;
    return kvtableLocate(t, key, sdslen(key), *hash, &where);
}

int kvtableAdd(kvtable *t, kvobj *o, kvobj **existing) {
    uint64_t hash;
    kvobj **link = prepareInsert(t, o, &hash);
    if (link) {
        if (existing) *existing = *link;
        return KVTABLE_ERR;
    }
    linkNew(t, o, hash);
    return KVTABLE_OK;
}

kvobj *kvtableReplace(kvtable *t, kvobj *o) {
    uint64_t hash;
    kvobj **link = prepareInsert(t, o, &hash);
    if (link == NULL) {
        linkNew(t, o, hash);
        return NULL;
    }
    kvobj *old = *link;
    kvobjSetNext(o, kvobjGetNext(old));
    *link = o;
    kvobjSetNext(old, NULL);
    return old;
}

int kvtableReplaceReallocated(kvtable *t, const kvobj *oldptr, kvobj *newobj) {
    sds key = kvobjGetKey(newobj);
    uint64_t hash = kvtableHashKey(key, sdslen(key)); /* it was just looked up: in the memo */
    int last = kvtableIsRehashing(t) ? 1 : 0;
    for (int i = 0; i <= last; i++) {
        if (t->used[i] == 0) continue;
        kvobj **link = &t->buckets[i][hash & tableMask(t, i)];
        while (*link && *link != oldptr) link = nextLink(*link);
        if (*link == NULL) continue;
        *link = newobj;
        return KVTABLE_OK;
    }
    return KVTABLE_ERR;
}

kvobj *kvtableUnlink(kvtable *t, const char *key, size_t len) {
    if (kvtableSize(t) == 0) return NULL;
    rehashStepIfRehashing(t);
    int where;
    kvobj **link = kvtableLocate(t, key, len, kvtableHashKey(key, len), &where);
    if (link == NULL) return NULL;
    kvobj *o = *link;
    *link = kvobjGetNext(o);
    kvobjSetNext(o, NULL);
    t->used[where]--;
    kvtableShrinkIfNeeded(t);
    return o;
}

int kvtableDelete(kvtable *t, const char *key, size_t len) {
    kvobj *o = kvtableUnlink(t, key, len);
    if (o == NULL) return KVTABLE_ERR;
    destroyEntry(t, o);
    return KVTABLE_OK;
}

/* ---- iterators ----------------------------------------------------------------------- */

static uint64_t tableFingerprint(const kvtable *t) {
    return htFingerprint(t->buckets[0], t->sizeExp[0], t->used[0],
                         t->buckets[1], t->sizeExp[1], t->used[1]);
}

kvtableIterator *kvtableGetIterator(kvtable *t) {
    kvtableIterator *iter = zcalloc(sizeof(*iter));
    iter->t = t;
    iter->index = -1;
    return iter;
}

kvtableIterator *kvtableGetSafeIterator(kvtable *t) {
    kvtableIterator *iter = kvtableGetIterator(t);
    iter->safe = 1;
    return iter;
}

static int iteratorStarted(const kvtableIterator *iter) {
    return iter->index != -1 || iter->table != 0;
}

/* Advances to the next bucket; 0 when both tables are done. */
static int iteratorAdvanceBucket(kvtableIterator *iter) {
    kvtable *t = iter->t;
    int more = htNextBucket(&iter->table, &iter->index, kvtableIsRehashing(t), tableSize(t, 0),
                            tableSize(t, 1));
    iter->entry = more ? t->buckets[iter->table][iter->index] : NULL;
    return more;
}

kvobj *kvtableNext(kvtableIterator *iter) {
    if (!iteratorStarted(iter)) {
        if (iter->safe) kvtablePauseRehashing(iter->t);
        else iter->fingerprint = tableFingerprint(iter->t);
    }
    /* The successor was saved, so the caller may delete what it got. */
    iter->entry = iter->entry ? iter->nextEntry : NULL;
    while (iter->entry == NULL)
        if (!iteratorAdvanceBucket(iter)) return NULL;
    iter->nextEntry = kvobjGetNext(iter->entry);
    return iter->entry;
}

void kvtableReleaseIterator(kvtableIterator *iter) {
    if (iteratorStarted(iter)) {
        if (iter->safe) kvtableResumeRehashing(iter->t);
        else libAssert(iter->fingerprint == tableFingerprint(iter->t));
    }
    zfree(iter);
}

/* ---- random sampling (over the "live" buckets of hashtable_common.h) ------------------- */

static unsigned long randomBelow(kvtable *t, unsigned long n) {
    return htRandomBelow(&t->randomState, n);
}

/* The chain in live bucket i. */
static kvobj *liveBucket(const kvtable *t, unsigned long i) {
    unsigned long index;
    return t->buckets[htLiveBucketAt(i, t->rehashidx, tableSize(t, 0), &index)][index];
}

kvobj *kvtableGetRandomKey(kvtable *t) {
    if (kvtableSize(t) == 0) return NULL;
    rehashStepIfRehashing(t);
    unsigned long live = htLiveBucketCount(t->rehashidx, tableSize(t, 0), tableSize(t, 1));
    kvobj *head = NULL;
    while (head == NULL) head = liveBucket(t, randomBelow(t, live));
    unsigned long length = 0;
    for (kvobj *o = head; o; o = kvobjGetNext(o)) length++;
    for (unsigned long skip = randomBelow(t, length); skip > 0; skip--) head = kvobjGetNext(head);
    return head;
}

/* Up to count distinct entries from consecutive live buckets starting at a
 * random one, visiting at most count*10 buckets and none twice. Fast, not
 * uniform (see kvtableGetFairRandomKey()). */
unsigned int kvtableGetSomeKeys(kvtable *t, kvobj **out, unsigned int count) {
    if (kvtableSize(t) < count) count = (unsigned int)kvtableSize(t);
    if (count == 0) return 0;
    for (unsigned int step = 0; step < count && kvtableIsRehashing(t); step++)
        rehashStepIfRehashing(t);

    unsigned long live = htLiveBucketCount(t->rehashidx, tableSize(t, 0), tableSize(t, 1));
    unsigned long b = randomBelow(t, live);
    uint64_t visits = (uint64_t)count * 10;
    if (visits > live) visits = live;
    unsigned int got = 0;
    for (; visits > 0 && got < count; visits--) {
        unsigned long seen = got; /* the last bucket is read to its end: reservoir sampling, as dict.c */
        for (kvobj *o = liveBucket(t, b); o; o = kvobjGetNext(o), seen++) {
            unsigned long slot = seen < count ? seen : randomBelow(t, seen + 1);
            if (slot < count) out[slot] = o;
        }
        got = seen < count ? (unsigned int)seen : count;
        if (++b == live) b = 0;
    }
    return got;
}

/* Picking among a sample of neighbouring buckets evens out the bias of
 * kvtableGetRandomKey() towards entries in short chains. */
#define KVTABLE_FAIR_SAMPLE 20

kvobj *kvtableGetFairRandomKey(kvtable *t) {
    kvobj *sample[KVTABLE_FAIR_SAMPLE];
    unsigned int n = kvtableGetSomeKeys(t, sample, KVTABLE_FAIR_SAMPLE);
    return n ? sample[randomBelow(t, n)] : kvtableGetRandomKey(t);
}

/* ---- the ordered cursor (guarantees: kvtable.h) ------------------------------------------- */

void kvtableCursorStart(kvtable *t, kvtableCursor *c) {
    c->table = 0;
    c->bucket = 0;
    c->walk_table1 = kvtableIsRehashing(t);
    kvtablePauseRehashing(t);
}

/* Table 0's size is read at each step, not at the start: a table 0 that
 * was not allocated yet may be allocated meanwhile (its entries are all
 * newer than the walk; the caller skips them). Table 1, walked only when it
 * existed at the start, cannot change while rehashing is paused. */
int kvtableCursorBucket(const kvtable *t, kvtableCursor *c, kvobj **chain) {
    if (c->bucket >= tableSize(t, c->table)) {
        if (c->table == 1 || !c->walk_table1) return 0;
        c->table = 1;
        c->bucket = 0;
        if (tableSize(t, 1) == 0) return 0;
    }
    *chain = t->buckets[c->table][c->bucket];
    return 1;
}

void kvtableCursorNext(kvtableCursor *c) { c->bucket++; }

static int cursorPassedBucket(const kvtableCursor *c, int table, unsigned long index) {
    return table < c->table || (table == c->table && index < c->bucket);
}

/* o is found by pointer in the bucket its hash selects in either table
 * (rehashing is paused: it is where it was at the start, or where it was
 * added since). In neither: it is not in this table at all. */
int kvtableCursorPassed(const kvtable *t, const kvtableCursor *c, const kvobj *o) {
    sds key = kvobjGetKey(o);
    uint64_t hash = kvtableHashKey(key, sdslen(key));
    for (int i = 0; i <= 1; i++) {
        if (t->sizeExp[i] == -1) continue;
        unsigned long index = hash & tableMask(t, i);
        for (kvobj *e = t->buckets[i][index]; e; e = kvobjGetNext(e))
            if (e == o) return cursorPassedBucket(c, i, index) || (i == 1 && !c->walk_table1);
    }
    return 1;
}

/* An add goes to table 1 while the table is rehashing (a table 1 made since
 * the start is never walked), else to table 0; an unallocated table 0 is
 * allocated by the add, at a size the walk has not seen: 0 then. An add
 * may also start a grow and land in a new table 1: 0 said here only costs
 * the caller a key to skip. */
int kvtableCursorPassedNewKey(const kvtable *t, const kvtableCursor *c, const char *key, size_t len) {
    int i = kvtableIsRehashing(t) ? 1 : 0;
    if (i == 1 && !c->walk_table1) return 1;
    if (t->sizeExp[i] == -1) return 0;
    return cursorPassedBucket(c, i, kvtableHashKey(key, len) & tableMask(t, i));
}

void kvtableCursorRelease(kvtable *t, kvtableCursor *c) {
    (void)c;
    if (t->pauserehash > 0) kvtableResumeRehashing(t);
}

/* ---- scan (cursor arithmetic and its guarantee: hashtable_common.h) ---------------------- */

/* What one kvtableScan() call hands to each bucket visit. */
typedef struct scanCall { kvtableScanFunction *fn; void *privdata; kvtable *t; } scanCall;

static void scanVisit(void *ctx, int table, unsigned long index) {
    scanCall *call = ctx;
    kvobj *o = call->t->buckets[table][index], *next;
    for (; o; o = next) {
        next = kvobjGetNext(o); /* fn may delete o */
        call->fn(call->privdata, o);
    }
}

unsigned long kvtableScan(kvtable *t, unsigned long cursor, kvtableScanFunction *fn, void *privdata) {
    if (kvtableSize(t) == 0) return 0;
    scanCall call = {fn, privdata, t};
    kvtablePauseRehashing(t);
    unsigned long next = htScanBuckets(cursor, kvtableIsRehashing(t), tableSize(t, 0), tableSize(t, 1),
                                       scanVisit, &call);
    kvtableResumeRehashing(t);
    return next;
}

void kvtableDefragTables(kvtable *t, void *(*move)(void *block)) {
    for (int i = 0; i < 2; i++) {
        if (t->buckets[i] == NULL) continue;
        kvobj **moved = move(t->buckets[i]);
        if (moved) t->buckets[i] = moved;
    }
}

/* ---- statistics -------------------------------------------------------------------------- */

static void tableStats(htStatsWriter *w, const kvtable *t, int i) {
    htChainStats cs;
    memset(&cs, 0, sizeof cs);
    for (unsigned long b = 0; b < tableSize(t, i); b++) {
        unsigned long length = 0;
        for (kvobj *o = t->buckets[i][b]; o; o = kvobjGetNext(o)) length++;
        htChainStatsAdd(&cs, length);
    }
    htWriteTableStats(w, i, tableSize(t, i), t->used[i], &cs);
}

size_t kvtableBucketArrayBytes(const kvtable *t) {
    size_t bytes = 0;
    for (int i = 0; i < 2; i++)
        if (t->buckets[i]) bytes += zmalloc_size(t->buckets[i]);
    return bytes;
}

void kvtableGetStats(char *buf, size_t bufsize, kvtable *t) {
    if (bufsize == 0) return;
    htStatsWriter w = {buf, bufsize};
    buf[0] = '\0';
    tableStats(&w, t, 0);
    if (kvtableIsRehashing(t)) tableStats(&w, t, 1);
}
