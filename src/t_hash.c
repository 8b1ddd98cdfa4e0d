/* t_hash.c -- the hash type: HSET, HGET, HDEL, HINCRBY, HRANDFIELD, HSCAN ...
 *
 * Encodings (what OBJECT ENCODING reports):
 *   listpack   o->ptr is one listpack holding field, value, field, value ...
 *              in insertion order. Used while the hash has at most
 *              hash-max-listpack-entries fields and no field or value is
 *              longer than hash-max-listpack-value bytes: a small hash is
 *              one allocation and a lookup is a short linear scan.
 *   hashtable  o->ptr is a dict mapping an sds field to an sds value.
 * A hash moves from listpack to hashtable when a write crosses either limit
 * (or the listpack would pass its 1 GB safety limit) and never back, as in
 * Redis: shrinking a big hash does not pay for a conversion.
 *
 * Design decisions:
 * - Everything outside the encoding layer sees an element as an elemRef (a
 *   string, or an integer when the listpack stored the text as one), so no
 *   command copies a field or value just to look at it, and the HSET path
 *   on a small hash allocates nothing beyond the listpack's own growth.
 * - The length checks run before a write (so a long field never enters a
 *   listpack) and the entry-count check after it, as Redis does.
 * - HINCRBYFLOAT computes in xfloat (software x87 extended precision), like
 *   INCRBYFLOAT, so every port replies exactly as x86_64 Redis.
 * - HRANDFIELD picks from an array of entry handles when it needs several
 *   distinct fields of a listpack or of a large share of a table, and from
 *   dictGetFairRandomKey() plus a "seen" set when it needs few of many.
 * - The digest is order independent (xor of one digest per field/value
 *   pair, each pair's text mixed in order), so the same content digests the
 *   same in either encoding and in any insertion order.
 */
#include "server.h"
#include "listpack.h"
#include "osrandom.h"
#include "xfloat.h"

/* ---- the hashtable encoding's dict type ------------------------------------------- */

static dictType hashDictType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .keyDestructor = dictSdsDestructor,
    .valDestructor = dictSdsDestructor,
};

/* ---- a small PRNG for HRANDFIELD on listpacks --------------------------------------- */

static uint64_t hash_random_state;

/* splitmix64, seeded once from the OS in hashTypeInit(). */
static uint64_t hashRandom(void) {
    uint64_t z = (hash_random_state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Uniform enough in [0, n) for n > 0 (bias below 2^-32 for any real size). */
static unsigned long hashRandomBelow(unsigned long n) { return (unsigned long)(hashRandom() % n); }

/* ---- elements -------------------------------------------------------------------- */

static void elemFromListpack(const unsigned char *p, elemRef *e) {
    e->s = lpGetValue(p, &e->len, &e->ll);
}

static void elemFromSds(sds s, elemRef *e) {
    e->s = (const unsigned char *)s;
    e->len = sdslen(s);
    e->ll = 0;
}

/* The text of an element: its own bytes, or the integer written into buf. */
static const char *elemText(const elemRef *e, char buf[LONG_STR_SIZE], size_t *len) {
    if (e->s) {
        *len = e->len;
        return (const char *)e->s;
    }
    *len = (size_t)ll2string(buf, LONG_STR_SIZE, e->ll);
    return buf;
}

static size_t elemLength(const elemRef *e) {
    return e->s ? e->len : (size_t)sdigits10(e->ll);
}

static void addReplyElem(client *c, const elemRef *e) {
    if (e->s) addReplyBulkCBuffer(c, e->s, e->len);
    else addReplyBulkLongLong(c, e->ll);
}

/* ---- the encoding layer --------------------------------------------------------- */

robj *createHashObject(void) {
    robj *o = createObject(OBJ_HASH, lpNew(0));
    o->encoding = OBJ_ENCODING_LISTPACK;
    return o;
}

unsigned long hashTypeLength(const robj *o) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) return lpLength(o->ptr) / 2;
    return dictSize((const dict *)o->ptr);
}

/* The listpack entry of `field` (its value follows it), or NULL. */
static unsigned char *listpackFindField(unsigned char *lp, const char *field, size_t len) {
    unsigned char *first = lpFirst(lp);
    if (first == NULL) return NULL;
    return lpFind(lp, first, (const unsigned char *)field, len, 1);
}

/* Sets *value to the value of `field`; returns 0 if the field is absent. */
static int hashTypeGet(robj *o, sds field, elemRef *value) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *fp = listpackFindField(o->ptr, field, sdslen(field));
        if (fp == NULL) return 0;
        elemFromListpack(lpNext(o->ptr, fp), value);
        return 1;
    }
    dictEntry *de = dictFind(o->ptr, field);
    if (de == NULL) return 0;
    elemFromSds(dictGetVal(de), value);
    return 1;
}

static int hashTypeExists(robj *o, sds field) {
    elemRef unused;
    return hashTypeGet(o, field, &unused);
}

static void hashTypeConvertToTable(robj *o) {
    unsigned char *lp = o->ptr;
    dict *d = dictCreate(&hashDictType);
    dictExpand(d, lpLength(lp) / 2);
    for (unsigned char *p = lpFirst(lp); p; p = lpNext(lp, lpNext(lp, p))) {
        elemRef field, value;
        elemFromListpack(p, &field);
        elemFromListpack(lpNext(lp, p), &value);
        sds f = elemRefToSds(&field);
        if (dictAdd(d, f, elemRefToSds(&value)) != DICT_OK)
            serverPanic("listpack hash holds the field '%s' twice", f);
    }
    lpFree(lp);
    o->ptr = d;
    o->encoding = OBJ_ENCODING_HT;
}

/* Called before writing fields and values totalling `add_bytes`, the
 * longest being `longest` bytes: converts if the listpack must not hold
 * them. */
static void hashTypeMakeRoom(robj *o, size_t longest, size_t add_bytes) {
    if (o->encoding != OBJ_ENCODING_LISTPACK) return;
    if (longest > server.hash_max_listpack_value || !lpSafeToAdd(o->ptr, add_bytes)) hashTypeConvertToTable(o);
}

/* After a write: converts if the listpack has too many fields. */
static void hashTypeCheckEntries(robj *o) {
    if (o->encoding == OBJ_ENCODING_LISTPACK && hashTypeLength(o) > server.hash_max_listpack_entries)
        hashTypeConvertToTable(o);
}

static int listpackSet(robj *o, sds field, const char *value, size_t vlen) {
    unsigned char *lp = o->ptr;
    unsigned char *fp = listpackFindField(lp, field, sdslen(field));
    if (fp) {
        unsigned char *vp = lpNext(lp, fp);
        o->ptr = lpReplace(lp, &vp, (const unsigned char *)value, vlen);
        return 0;
    }
    lp = lpAppend(lp, (const unsigned char *)field, sdslen(field));
    o->ptr = lpAppend(lp, (const unsigned char *)value, vlen);
    return 1;
}

/* One lookup either way: the entry is added keyed by the caller's sds, which
 * is then replaced by a copy. */
static int tableSet(robj *o, sds field, const char *value, size_t vlen) {
    dict *d = o->ptr;
    dictEntry *existing;
    dictEntry *de = dictAddRaw(d, field, &existing);
    if (de == NULL) {
        dictSetVal(d, existing, sdscpylen(dictGetVal(existing), value, vlen));
        return 0;
    }
    dictSetKey(d, de, sdsdup(field));
    dictSetVal(d, de, sdsnewlen(value, vlen));
    return 1;
}

/* Sets field to value (copying both), converting the encoding as needed.
 * Returns 1 if the field is new, 0 if its value was replaced. */
static int hashTypeSet(robj *o, sds field, const char *value, size_t vlen) {
    size_t flen = sdslen(field);
    hashTypeMakeRoom(o, flen > vlen ? flen : vlen, flen + vlen);
    int added = o->encoding == OBJ_ENCODING_LISTPACK ? listpackSet(o, field, value, vlen)
                                                     : tableSet(o, field, value, vlen);
    if (added) hashTypeCheckEntries(o);
    return added;
}

/* Returns 1 if the field was there and is now gone. */
int hashTypeDelete(robj *o, sds field) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *fp = listpackFindField(o->ptr, field, sdslen(field));
        if (fp == NULL) return 0;
        o->ptr = lpDeleteRangeWithEntry(o->ptr, &fp, 2);
        return 1;
    }
    return dictDelete(o->ptr, field) == DICT_OK;
}

void hashTypeForEach(robj *o, pairVisitor *fn, void *ud) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *lp = o->ptr;
        for (unsigned char *p = lpFirst(lp); p; p = lpNext(lp, lpNext(lp, p))) {
            elemRef field, value;
            elemFromListpack(p, &field);
            elemFromListpack(lpNext(lp, p), &value);
            if (fn(ud, &field, &value)) return;
        }
        return;
    }
    dictIterator *it = dictGetSafeIterator(o->ptr);
    dictEntry *de;
    while ((de = dictNext(it)) != NULL) {
        elemRef field, value;
        elemFromSds(dictGetKey(de), &field);
        elemFromSds(dictGetVal(de), &value);
        if (fn(ud, &field, &value)) break;
    }
    dictReleaseIterator(it);
}

robj *hashTypeGetValueObject(robj *o, sds field) {
    elemRef value;
    if (!hashTypeGet(o, field, &value)) return NULL;
    return elemRefToObject(&value);
}

int hashTypeSetFromSds(robj *o, sds field, sds value) {
    return hashTypeSet(o, field, value, sdslen(value));
}

/* ---- type callbacks: free, dup, digest, scan -------------------------------------- */

void freeHashObject(robj *o) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) lpFree(o->ptr);
    else dictRelease(o->ptr);
}

robj *dupHashObject(robj *o) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        robj *copy = createObject(OBJ_HASH, lpDup(o->ptr));
        copy->encoding = OBJ_ENCODING_LISTPACK;
        return copy;
    }
    dict *src = o->ptr, *dst = dictCreate(&hashDictType);
    dictExpand(dst, dictSize(src));
    dictIterator *it = dictGetIterator(src);
    dictEntry *de;
    while ((de = dictNext(it)) != NULL) dictAdd(dst, sdsdup(dictGetKey(de)), sdsdup(dictGetVal(de)));
    dictReleaseIterator(it);
    robj *copy = createObject(OBJ_HASH, dst);
    copy->encoding = OBJ_ENCODING_HT;
    return copy;
}

static int digestPair(void *ud, const elemRef *field, const elemRef *value) {
    unsigned char *digest = ud;
    unsigned char pair[20] = {0};
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *text = elemText(field, buf, &len);
    mixDigest(pair, text, len);
    text = elemText(value, buf, &len);
    mixDigest(pair, text, len);
    xorDigest(digest, pair, sizeof pair);
    return 0;
}

void hashDigest(unsigned char digest[20], robj *o) { hashTypeForEach(o, digestPair, digest); }

static int scanCollectPair(void *ud, const elemRef *field, const elemRef *value) {
    list *out = ud;
    listAddNodeTail(out, elemRefToSds(field));
    listAddNodeTail(out, elemRefToSds(value));
    return 0;
}

static void scanCollectEntry(void *privdata, const dictEntry *de) {
    list *out = privdata;
    listAddNodeTail(out, sdsdup(dictGetKey(de)));
    listAddNodeTail(out, sdsdup(dictGetVal(de)));
}

/* A listpack is returned whole with cursor 0, a table in bounded steps. */
uint64_t hashScan(robj *o, uint64_t cursor, long count, list *out) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        hashTypeForEach(o, scanCollectPair, out);
        return 0;
    }
    return scanDictBounded(o->ptr, cursor, count, 1, scanCollectEntry, out);
}

/* MEMORY USAGE: a listpack is one block; a table entry owns its field and
 * value sds. */
static size_t hashEntryBytes(const dictEntry *de) {
    return sdsMemoryUsage(dictGetKey(de)) + sdsMemoryUsage(dictGetVal(de));
}

size_t hashMemoryUsage(robj *o, size_t samples) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) return zmalloc_size(o->ptr);
    return dictMemoryUsage(o->ptr, samples, hashEntryBytes);
}

void hashTypeInit(void) {
    unsigned char seed[sizeof hash_random_state];
    osRandomBytes(seed, sizeof seed);
    hash_random_state = load64le(seed);
}

/* ---- command helpers --------------------------------------------------------------- */

/* The hash at key for writing, created (empty) when missing; NULL after a
 * WRONGTYPE reply. */
static robj *hashLookupWriteOrCreate(client *c, robj *key) {
    robj *o = lookupKeyWrite(c->db, key);
    if (checkType(c, o, OBJ_HASH)) return NULL;
    if (o == NULL) o = dbAdd(c->db, key, createHashObject());
    return o;
}

/* The text of argument j (arguments are sds-encoded strings). */
static sds argSds(client *c, int j) {
    serverAssert(sdsEncodedObject(c->argv[j]));
    return c->argv[j]->ptr;
}

/* Converts ahead of HSET's fields and values argv[first..argc) if the
 * listpack could not take them all. */
static void hashTypeMakeRoomForArgs(client *c, robj *o, int first) {
    size_t longest = 0, total = 0;
    for (int j = first; j < c->argc; j++) {
        size_t len = sdslen(argSds(c, j));
        if (len > longest) longest = len;
        total += len;
    }
    hashTypeMakeRoom(o, longest, total);
}

static void afterHashWrite(client *c, robj *key, const char *event, long long changes) {
    signalModifiedKey(c, c->db, key);
    notifyKeyspaceEvent(NOTIFY_HASH, event, key, c->db->id);
    server.dirty += changes;
}

/* ---- HSET, HMSET, HSETNX ------------------------------------------------------------ */

static void hsetGenericCommand(client *c, int reply_count) {
    if (c->argc % 2 == 1) {
        addReplyErrorArity(c);
        return;
    }
    robj *o = hashLookupWriteOrCreate(c, c->argv[1]);
    if (o == NULL) return;
    hashTypeMakeRoomForArgs(c, o, 2);
    long long added = 0;
    for (int j = 2; j < c->argc; j += 2) {
        sds field = argSds(c, j), value = argSds(c, j + 1);
        added += hashTypeSet(o, field, value, sdslen(value));
    }
    if (reply_count) addReplyLongLong(c, added);
    else addReply(c, shared.ok);
    afterHashWrite(c, c->argv[1], "hset", (c->argc - 2) / 2);
}

void hsetCommand(client *c) { hsetGenericCommand(c, 1); }

void hmsetCommand(client *c) { hsetGenericCommand(c, 0); }

void hsetnxCommand(client *c) {
    robj *o = hashLookupWriteOrCreate(c, c->argv[1]);
    if (o == NULL) return;
    sds field = argSds(c, 2), value = argSds(c, 3);
    if (hashTypeExists(o, field)) {
        addReply(c, shared.czero);
        return;
    }
    hashTypeSet(o, field, value, sdslen(value));
    addReply(c, shared.cone);
    afterHashWrite(c, c->argv[1], "hset", 1);
}

/* ---- reads ------------------------------------------------------------------------ */

static void addReplyFieldValue(client *c, robj *o, sds field) {
    elemRef value;
    if (o && hashTypeGet(o, field, &value)) addReplyElem(c, &value);
    else addReplyNull(c);
}

void hgetCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.null[c->resp]);
    if (o == NULL || checkType(c, o, OBJ_HASH)) return;
    addReplyFieldValue(c, o, argSds(c, 2));
}

void hmgetCommand(client *c) {
    robj *o = lookupKeyRead(c->db, c->argv[1]);
    if (checkType(c, o, OBJ_HASH)) return;
    addReplyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) addReplyFieldValue(c, o, argSds(c, j));
}

void hlenCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    if (o == NULL || checkType(c, o, OBJ_HASH)) return;
    addReplyLongLong(c, (long long)hashTypeLength(o));
}

void hstrlenCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    if (o == NULL || checkType(c, o, OBJ_HASH)) return;
    elemRef value;
    addReplyLongLong(c, hashTypeGet(o, argSds(c, 2), &value) ? (long long)elemLength(&value) : 0);
}

void hexistsCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    if (o == NULL || checkType(c, o, OBJ_HASH)) return;
    addReply(c, hashTypeExists(o, argSds(c, 2)) ? shared.cone : shared.czero);
}

#define HASH_REPLY_FIELDS (1 << 0)
#define HASH_REPLY_VALUES (1 << 1)

typedef struct replyPairsState {
    client *c;
    int what;
} replyPairsState;

static int replyPair(void *ud, const elemRef *field, const elemRef *value) {
    replyPairsState *st = ud;
    if (st->what & HASH_REPLY_FIELDS) addReplyElem(st->c, field);
    if (st->what & HASH_REPLY_VALUES) addReplyElem(st->c, value);
    return 0;
}

/* HKEYS, HVALS, HGETALL: HGETALL is a map in RESP3, the others arrays. */
static void hgetallGenericCommand(client *c, int what) {
    int both = what == (HASH_REPLY_FIELDS | HASH_REPLY_VALUES);
    robj *o = lookupKeyReadOrReply(c, c->argv[1], both ? shared.emptymap[c->resp] : shared.emptyarray);
    if (o == NULL || checkType(c, o, OBJ_HASH)) return;
    long length = (long)hashTypeLength(o);
    if (both) addReplyMapLen(c, length);
    else addReplyArrayLen(c, length);
    replyPairsState st = {c, what};
    hashTypeForEach(o, replyPair, &st);
}

void hkeysCommand(client *c) { hgetallGenericCommand(c, HASH_REPLY_FIELDS); }

void hvalsCommand(client *c) { hgetallGenericCommand(c, HASH_REPLY_VALUES); }

void hgetallCommand(client *c) { hgetallGenericCommand(c, HASH_REPLY_FIELDS | HASH_REPLY_VALUES); }

/* ---- HDEL ------------------------------------------------------------------------- */

void hdelCommand(client *c) {
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], shared.czero);
    if (o == NULL || checkType(c, o, OBJ_HASH)) return;
    long long deleted = 0;
    int key_removed = 0;
    for (int j = 2; j < c->argc; j++) {
        if (!hashTypeDelete(o, argSds(c, j))) continue;
        deleted++;
        if (hashTypeLength(o) == 0) {
            dbDelete(c->db, c->argv[1]);
            key_removed = 1;
            break;
        }
    }
    if (deleted) {
        afterHashWrite(c, c->argv[1], "hdel", deleted);
        if (key_removed) notifyKeyspaceEvent(NOTIFY_GENERIC, "del", c->argv[1], c->db->id);
    }
    addReplyLongLong(c, deleted);
}

/* ---- HINCRBY, HINCRBYFLOAT ------------------------------------------------------------ */

void hincrbyCommand(client *c) {
    long long incr, value = 0;
    if (getLongLongFromObjectOrReply(c, c->argv[3], &incr, NULL) != C_OK) return;
    robj *o = hashLookupWriteOrCreate(c, c->argv[1]);
    if (o == NULL) return;
    sds field = argSds(c, 2);
    elemRef current;
    if (hashTypeGet(o, field, &current)) {
        if (current.s == NULL) value = current.ll;
        else if (!string2ll((const char *)current.s, current.len, &value)) {
            addReplyError(c, "hash value is not an integer");
            return;
        }
    }
    if ((incr < 0 && value < 0 && incr < LLONG_MIN - value) || (incr > 0 && value > 0 && incr > LLONG_MAX - value)) {
        addReplyError(c, "increment or decrement would overflow");
        return;
    }
    value += incr;
    char buf[LONG_STR_SIZE];
    int len = ll2string(buf, sizeof buf, value);
    hashTypeSet(o, field, buf, (size_t)len);
    addReplyLongLong(c, value);
    afterHashWrite(c, c->argv[1], "hincrby", 1);
}

/* An argument as an extended float; 0 if it is not a valid float. */
static int getXfloatFromArg(robj *arg, xfloat *out) {
    if (sdsEncodedObject(arg)) return xfloatParse(arg->ptr, sdslen(arg->ptr), out);
    *out = xfloatFromLongLong((long long)(intptr_t)arg->ptr);
    return 1;
}

void hincrbyfloatCommand(client *c) {
    xfloat incr, value = xfloatFromLongLong(0);
    if (!getXfloatFromArg(c->argv[3], &incr)) {
        addReplyError(c, "value is not a valid float");
        return;
    }
    if (!xfloatIsFinite(incr)) {
        addReplyError(c, "value is NaN or Infinity");
        return;
    }
    robj *o = hashLookupWriteOrCreate(c, c->argv[1]);
    if (o == NULL) return;
    sds field = argSds(c, 2);
    elemRef current;
    if (hashTypeGet(o, field, &current)) {
        if (current.s == NULL) value = xfloatFromLongLong(current.ll);
        else if (!xfloatParse((const char *)current.s, current.len, &value)) {
            addReplyError(c, "hash value is not a float");
            return;
        }
    }
    char buf[XFLOAT_MAX_CHARS];
    int len = xfloatSumOrReply(c, value, incr, buf);
    if (len < 0) return;
    hashTypeSet(o, field, buf, (size_t)len);
    addReplyBulkCBuffer(c, buf, (size_t)len);
    afterHashWrite(c, c->argv[1], "hincrbyfloat", 1);
    if (propagationEnabled()) { /* replays as HSET key field <result>: the same on any CPU */
        robj *result = createStringObject(buf, (size_t)len);
        robj *argv[4] = {createStringObject("HSET", 4), c->argv[1], c->argv[2], result};
        propagateCommandAs(c, argv, 4);
        decrRefCount(argv[0]);
        decrRefCount(result);
    }
}

/* ---- HRANDFIELD ---------------------------------------------------------------------- */

/* A handle on one pair: a listpack field entry, or a dictEntry. */
static void pairFromHandle(robj *o, void *handle, elemRef *field, elemRef *value) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        elemFromListpack(handle, field);
        elemFromListpack(lpNext(o->ptr, handle), value);
    } else {
        elemFromSds(dictGetKey((dictEntry *)handle), field);
        elemFromSds(dictGetVal((dictEntry *)handle), value);
    }
}

/* Handles on every pair, in iteration order; the caller zfree()s it. */
static void **collectPairHandles(robj *o, unsigned long *count) {
    unsigned long n = hashTypeLength(o), i = 0;
    void **handles = zmalloc(sizeof(void *) * (n ? n : 1));
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *lp = o->ptr;
        for (unsigned char *p = lpFirst(lp); p && i < n; p = lpNext(lp, lpNext(lp, p))) handles[i++] = p;
    } else {
        dictIterator *it = dictGetIterator(o->ptr);
        dictEntry *de;
        while ((de = dictNext(it)) != NULL && i < n) handles[i++] = de;
        dictReleaseIterator(it);
    }
    *count = i;
    return handles;
}

/* One pair of the reply: in RESP3 with values, a two-element array. */
static void addReplyRandomPair(client *c, robj *o, void *handle, int withvalues) {
    elemRef field, value;
    pairFromHandle(o, handle, &field, &value);
    if (withvalues && c->resp > 2) addReplyArrayLen(c, 2);
    addReplyElem(c, &field);
    if (withvalues) addReplyElem(c, &value);
}

static void addReplyRandomHeader(client *c, unsigned long count, int withvalues) {
    addReplyArrayLen(c, (long)(withvalues && c->resp == 2 ? count * 2 : count));
}

/* 1 once the client is being dropped (e.g. over its output buffer limit):
 * a huge reply stops being produced. */
static int clientIsClosing(client *c) { return (c->flags & CLIENT_CLOSE_ASAP) != 0; }

/* Negative count: `count` independent picks, repeats allowed. */
static void hrandfieldWithRepeats(client *c, robj *o, unsigned long count, int withvalues) {
    addReplyRandomHeader(c, count, withvalues);
    if (o->encoding == OBJ_ENCODING_HT) {
        while (count-- && !clientIsClosing(c)) addReplyRandomPair(c, o, dictGetFairRandomKey(o->ptr), withvalues);
        return;
    }
    unsigned long n;
    void **handles = collectPairHandles(o, &n);
    while (count-- && !clientIsClosing(c)) addReplyRandomPair(c, o, handles[hashRandomBelow(n)], withvalues);
    zfree(handles);
}

/* `count` distinct pairs out of n: a partial Fisher-Yates shuffle of handles. */
static void hrandfieldByShuffle(client *c, robj *o, unsigned long count, int withvalues) {
    unsigned long n;
    void **handles = collectPairHandles(o, &n);
    for (unsigned long i = 0; i < count; i++) {
        unsigned long j = i + hashRandomBelow(n - i);
        void *tmp = handles[i];
        handles[i] = handles[j];
        handles[j] = tmp;
        addReplyRandomPair(c, o, handles[i], withvalues);
    }
    zfree(handles);
}

static dictType seenEntriesType = {.hashFunction = dictPointerHash};

/* A few distinct pairs of a big table: random picks, skipping repeats. */
static void hrandfieldBySampling(client *c, robj *o, unsigned long count, int withvalues) {
    dict *seen = dictCreate(&seenEntriesType);
    dictExpand(seen, count);
    while (dictSize(seen) < count) {
        dictEntry *de = dictGetFairRandomKey(o->ptr);
        if (dictAdd(seen, de, NULL) == DICT_OK) addReplyRandomPair(c, o, de, withvalues);
    }
    dictRelease(seen);
}

typedef struct randomAllState {
    client *c;
    int withvalues;
} randomAllState;

static int replyRandomAllPair(void *ud, const elemRef *field, const elemRef *value) {
    randomAllState *st = ud;
    if (st->withvalues && st->c->resp > 2) addReplyArrayLen(st->c, 2);
    addReplyElem(st->c, field);
    if (st->withvalues) addReplyElem(st->c, value);
    return 0;
}

static void hrandfieldWithCount(client *c, long long requested, int withvalues) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.emptyarray);
    if (o == NULL || checkType(c, o, OBJ_HASH)) return;
    if (requested == 0) {
        addReply(c, shared.emptyarray);
        return;
    }
    if (requested < 0) {
        unsigned long picks;
        if (getRandomRepeatsOrReply(c, requested, withvalues ? 2 : 1, &picks) != C_OK) return;
        hrandfieldWithRepeats(c, o, picks, withvalues);
        return;
    }
    unsigned long size = hashTypeLength(o);
    if ((unsigned long long)requested >= size) { /* compared in 64 bits: no 32-bit truncation */
        addReplyRandomHeader(c, size, withvalues);
        randomAllState st = {c, withvalues};
        hashTypeForEach(o, replyRandomAllPair, &st);
        return;
    }
    unsigned long count = (unsigned long)requested;
    addReplyRandomHeader(c, count, withvalues);
    if (o->encoding == OBJ_ENCODING_LISTPACK || count * 3 > size) hrandfieldByShuffle(c, o, count, withvalues);
    else hrandfieldBySampling(c, o, count, withvalues);
}

void hrandfieldCommand(client *c) {
    if (c->argc >= 3) {
        long long count;
        int withvalues;
        if (getRandomCountOrReply(c, "withvalues", &count, &withvalues) != C_OK) return;
        hrandfieldWithCount(c, count, withvalues);
        return;
    }
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.null[c->resp]);
    if (o == NULL || checkType(c, o, OBJ_HASH)) return;
    elemRef field;
    if (o->encoding == OBJ_ENCODING_HT)
        elemFromSds(dictGetKey(dictGetFairRandomKey(o->ptr)), &field);
    else
        elemFromListpack(lpSeek(o->ptr, 2 * (long)hashRandomBelow(hashTypeLength(o))), &field);
    addReplyElem(c, &field);
}

/* ---- HSCAN ---------------------------------------------------------------------------- */

void hscanCommand(client *c) { scanKeyOfTypeCommand(c, OBJ_HASH); }
