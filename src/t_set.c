/* t_set.c -- the set type and its commands.
 *
 * A set is stored in one of three encodings, as in Redis 7.2:
 *   - INTSET   (intset.c) while every member is a canonical integer (what
 *              string2ll() accepts) and there are at most
 *              set-max-intset-entries of them;
 *   - LISTPACK (listpack.c) for small sets with non-integer members: at most
 *              set-max-listpack-entries members of at most
 *              set-max-listpack-value bytes each;
 *   - HT       a dict whose keys are the members (sds) and values NULL.
 * Redis 7.0 has no listpack sets: OBJECT ENCODING reports a listpack set as
 * "hashtable", 7.0's name for it (objectEncodingName() in object.c), and RDB
 * files get the plain set type, which every Redis loads.
 * A set only ever moves towards HT (intset -> listpack -> HT, or straight to
 * HT); removing members never converts back, as in Redis. Results computed
 * into a new set (SINTERSTORE, SPOP's "keep the rest" strategy ...) start
 * as an empty intset and so end in the smallest encoding that fits.
 *
 * Design decisions:
 * - Commands are written against a handful of encoding-agnostic helpers
 *   (setAdd, setRemove, setIsMember, setRandomMember, the setIter iterator)
 *   that take a `member`: an elemRef (text or integer) plus, when the caller
 *   has one, the same text as an sds. The sds lets the HT paths look members
 *   up without allocating (argv strings, keys of another HT set); otherwise a
 *   reusable scratch sds is filled.
 * - Values are owned by the keyspace (kvobj): a new set goes in with dbAdd()
 *   and the returned object is used from then on; a STORE destination is
 *   deleted and re-added (the kvobj cannot copy a non-string value, so
 *   setKey()'s extra reference is not an option), which also drops its TTL
 *   as Redis does.
 * - SPOP and SRANDMEMBER with a count pick a strategy by the ratio of count
 *   to size, like Redis: few elements are drawn one by one; when most of the
 *   set is wanted, the complement is drawn instead (SPOP) or a partial
 *   Fisher-Yates shuffle runs over all members (SRANDMEMBER).
 * - SPOP is the one non-deterministic write: it propagates what it removed
 *   (SREM key member ..., in batches of 1024, or DEL for the whole set), so
 *   an AOF replay pops the same members.
 * - All counts are parsed as 64-bit, so 32-bit builds accept and refuse
 *   exactly what 64-bit ones do.
 */
#include "server.h"
#include "intset.h"
#include "listpack.h"

/* The ratios of count to size that pick the SPOP/SRANDMEMBER strategies:
 * SPOP draws the members to keep when count * 5 > size; SRANDMEMBER samples
 * a big hashtable by repeated draws when count * 3 <= size. */
#define SPOP_MOVE_STRATEGY_MUL 5
#define SRANDMEMBER_SUB_STRATEGY_MUL 3
#define INTSET_MAX_ENTRIES_CAP (1UL << 30) /* an intset's length is a u32 */

/* ---- the dict type of HT-encoded sets -------------------------------------------- */

static dictType setDictType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .keyDestructor = dictSdsDestructor,
};

/* ---- members --------------------------------------------------------------------------- */

typedef struct member {
    elemRef ref; /* the text (ref.s, ref.len) or, when ref.s is NULL, the integer ref.ll */
    sds asSds;   /* the same text as an sds the caller owns, or NULL */
} member;

static sds scratch; /* reused for HT lookups of members that have no sds */
#define SCRATCH_KEEP_BYTES 4096

static member memberFromBuffer(const char *s, size_t len) {
    member m = {{(const unsigned char *)s, len, 0}, NULL};
    return m;
}

static member memberFromInteger(long long ll) {
    member m = {{NULL, 0, ll}, NULL};
    return m;
}

static member memberFromSds(sds s) {
    member m = {{(const unsigned char *)s, sdslen(s), 0}, s};
    return m;
}

/* A command argument: a raw/embstr string, or an int-encoded one. */
static member memberFromObject(robj *o) {
    if (sdsEncodedObject(o)) return memberFromSds(o->ptr);
    return memberFromInteger((long long)(intptr_t)o->ptr);
}

static int memberAsInteger(const member *m, long long *ll) {
    if (m->ref.s == NULL) {
        *ll = m->ref.ll;
        return 1;
    }
    return string2ll((const char *)m->ref.s, m->ref.len, ll);
}

/* The member's text; integers are formatted into buf (LONG_STR_SIZE). */
static const char *memberText(const member *m, char *buf, size_t *len) {
    if (m->ref.s) {
        *len = m->ref.len;
        return (const char *)m->ref.s;
    }
    *len = (size_t)ll2string(buf, LONG_STR_SIZE, m->ref.ll);
    return buf;
}

/* An sds to look the member up in a dict with (valid until the next call). */
static sds memberLookupSds(const member *m) {
    if (m->asSds) return m->asSds;
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *text = memberText(m, buf, &len);
    if (scratch && sdsalloc(scratch) > SCRATCH_KEEP_BYTES && len <= SCRATCH_KEEP_BYTES) {
        sdsfree(scratch); /* one huge member must not pin its size forever */
        scratch = NULL;
    }
    if (scratch == NULL) scratch = sdsempty();
    scratch = sdscpylen(scratch, text, len);
    return scratch;
}

static sds memberNewSds(const member *m) {
    if (m->asSds) return sdsdup(m->asSds);
    return elemRefToSds(&m->ref);
}

static void addReplyMember(client *c, const member *m) {
    if (m->ref.s) addReplyBulkCBuffer(c, m->ref.s, m->ref.len);
    else addReplyBulkLongLong(c, m->ref.ll);
}

/* ---- encodings: creation, size, iteration ----------------------------------------------- */

static unsigned long maxIntsetEntries(void) {
    return server.set_max_intset_entries < INTSET_MAX_ENTRIES_CAP ? server.set_max_intset_entries
                                                                  : INTSET_MAX_ENTRIES_CAP;
}

static robj *createIntsetSetObject(void) {
    robj *o = createObject(OBJ_SET, intsetNew());
    o->encoding = OBJ_ENCODING_INTSET;
    return o;
}

static robj *createListpackSetObject(void) {
    robj *o = createObject(OBJ_SET, lpNew(0));
    o->encoding = OBJ_ENCODING_LISTPACK;
    return o;
}

static robj *createHTSetObject(unsigned long sizeHint) {
    dict *d = dictCreate(&setDictType);
    if (sizeHint) dictExpand(d, sizeHint);
    robj *o = createObject(OBJ_SET, d);
    o->encoding = OBJ_ENCODING_HT;
    return o;
}

/* An empty set in the encoding a set that will hold about sizeHint members,
 * the first of them `first`, starts in. */
static robj *createSetFor(const member *first, unsigned long sizeHint) {
    long long ll;
    if (memberAsInteger(first, &ll) && sizeHint <= maxIntsetEntries()) return createIntsetSetObject();
    if (sizeHint <= server.set_max_listpack_entries) return createListpackSetObject();
    return createHTSetObject(sizeHint);
}

robj *createSetObject(void) { return createIntsetSetObject(); }

unsigned long setTypeSize(const robj *o) {
    switch (o->encoding) {
    case OBJ_ENCODING_INTSET: return intsetLen(o->ptr);
    case OBJ_ENCODING_LISTPACK: return lpLength(o->ptr);
    default: return dictSize((const dict *)o->ptr);
    }
}

typedef struct setIter {
    robj *set;
    uint32_t pos;       /* intset: next position */
    unsigned char *lpp; /* listpack: next entry */
    dictIterator *di;   /* HT */
} setIter;

static void setIterInit(setIter *it, robj *set) {
    it->set = set;
    it->pos = 0;
    it->lpp = set->encoding == OBJ_ENCODING_LISTPACK ? lpFirst(set->ptr) : NULL;
    it->di = set->encoding == OBJ_ENCODING_HT ? dictGetIterator(set->ptr) : NULL;
}

static int setIterNext(setIter *it, member *m) {
    switch (it->set->encoding) {
    case OBJ_ENCODING_INTSET: {
        int64_t v;
        if (!intsetGet(it->set->ptr, it->pos++, &v)) return 0;
        *m = memberFromInteger(v);
        return 1;
    }
    case OBJ_ENCODING_LISTPACK: {
        if (it->lpp == NULL) return 0;
        size_t len = 0;
        long long ll = 0;
        const unsigned char *s = lpGetValue(it->lpp, &len, &ll);
        *m = s ? memberFromBuffer((const char *)s, len) : memberFromInteger(ll);
        it->lpp = lpNext(it->set->ptr, it->lpp);
        return 1;
    }
    default: {
        dictEntry *de = dictNext(it->di);
        if (de == NULL) return 0;
        *m = memberFromSds(dictGetKey(de));
        return 1;
    }
    }
}

static void setIterRelease(setIter *it) {
    if (it->di) dictReleaseIterator(it->di);
    it->di = NULL;
}

/* ---- encodings: conversion ---------------------------------------------------------------- */

static void freeSetPayload(int encoding, void *ptr) {
    switch (encoding) {
    case OBJ_ENCODING_INTSET: intsetFree(ptr); break;
    case OBJ_ENCODING_LISTPACK: lpFree(ptr); break;
    default: dictRelease(ptr); break;
    }
}

static void convertToHT(robj *set, unsigned long sizeHint) {
    dict *d = dictCreate(&setDictType);
    dictExpand(d, sizeHint);
    setIter it;
    member m;
    setIterInit(&it, set);
    while (setIterNext(&it, &m)) {
        int added = dictAdd(d, memberNewSds(&m), NULL);
        serverAssert(added == DICT_OK);
    }
    setIterRelease(&it);
    freeSetPayload(set->encoding, set->ptr);
    set->ptr = d;
    set->encoding = OBJ_ENCODING_HT;
}

static void convertIntsetToListpack(robj *set) {
    const intset *is = set->ptr;
    uint32_t n = intsetLen(is);
    unsigned char *lp = lpNew((size_t)n * 10 + 16);
    int64_t v;
    for (uint32_t i = 0; intsetGet(is, i, &v); i++) lp = lpAppendInteger(lp, v);
    intsetFree(set->ptr);
    set->ptr = lp;
    set->encoding = OBJ_ENCODING_LISTPACK;
}

/* Whether an intset's members all fit set-max-listpack-value as text. */
static int intsetFitsListpackValue(const intset *is) {
    if (intsetLen(is) == 0) return 1;
    char buf[LONG_STR_SIZE];
    size_t lenMin = (size_t)ll2string(buf, sizeof buf, intsetMin(is));
    size_t lenMax = (size_t)ll2string(buf, sizeof buf, intsetMax(is));
    return lenMin <= server.set_max_listpack_value && lenMax <= server.set_max_listpack_value;
}

/* A compact set about to receive sizeHint members becomes a hashtable at
 * once if that many would not fit its encoding (the members may turn out to
 * be there already: Redis converts all the same). */
static void convertIfTooSmallFor(robj *set, unsigned long sizeHint) {
    if ((set->encoding == OBJ_ENCODING_LISTPACK && sizeHint > server.set_max_listpack_entries) ||
        (set->encoding == OBJ_ENCODING_INTSET && sizeHint > maxIntsetEntries()))
        convertToHT(set, sizeHint);
}

/* ---- encodings: membership, add, remove, random ------------------------------------------- */

static int setIsMember(robj *set, const member *m) {
    long long ll;
    switch (set->encoding) {
    case OBJ_ENCODING_INTSET: return memberAsInteger(m, &ll) && intsetFind(set->ptr, ll);
    case OBJ_ENCODING_LISTPACK: {
        char buf[LONG_STR_SIZE];
        size_t len;
        const char *text = memberText(m, buf, &len);
        unsigned char *lp = set->ptr;
        return lpFind(lp, lpFirst(lp), (const unsigned char *)text, len, 0) != NULL;
    }
    default: return dictFind(set->ptr, memberLookupSds(m)) != NULL;
    }
}

static int addToHT(robj *set, const member *m) {
    dict *d = set->ptr;
    dictEntry *de = dictAddRaw(d, memberLookupSds(m), NULL);
    if (de == NULL) return 0;
    dictSetKey(d, de, memberNewSds(m)); /* the lookup sds is not ours to keep */
    return 1;
}

static int addToListpack(robj *set, const member *m) {
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *text = memberText(m, buf, &len);
    unsigned char *lp = set->ptr;
    if (lpFind(lp, lpFirst(lp), (const unsigned char *)text, len, 0)) return 0;
    if (lpLength(lp) < server.set_max_listpack_entries && len <= server.set_max_listpack_value &&
        lpSafeToAdd(lp, len + 16)) {
        set->ptr = m->ref.s ? lpAppend(lp, (const unsigned char *)text, len) : lpAppendInteger(lp, m->ref.ll);
        return 1;
    }
    convertToHT(set, lpLength(lp) + 1);
    return addToHT(set, m);
}

static int addToIntset(robj *set, const member *m) {
    long long ll;
    if (memberAsInteger(m, &ll)) {
        int added;
        set->ptr = intsetAdd(set->ptr, ll, &added);
        if (added && intsetLen(set->ptr) > maxIntsetEntries()) convertToHT(set, intsetLen(set->ptr));
        return added;
    }
    uint32_t n = intsetLen(set->ptr);
    if (n < server.set_max_listpack_entries && m->ref.len <= server.set_max_listpack_value &&
        intsetFitsListpackValue(set->ptr)) {
        convertIntsetToListpack(set);
        return addToListpack(set, m);
    }
    convertToHT(set, n + 1);
    return addToHT(set, m);
}

/* Adds m, converting the encoding as needed. Returns 1 if it was new. */
static int setAdd(robj *set, const member *m) {
    switch (set->encoding) {
    case OBJ_ENCODING_INTSET: return addToIntset(set, m);
    case OBJ_ENCODING_LISTPACK: return addToListpack(set, m);
    default: return addToHT(set, m);
    }
}

/* Removes m. Returns 1 if it was there. */
static int setRemove(robj *set, const member *m) {
    switch (set->encoding) {
    case OBJ_ENCODING_INTSET: {
        long long ll;
        int removed = 0;
        if (memberAsInteger(m, &ll)) set->ptr = intsetRemove(set->ptr, ll, &removed);
        return removed;
    }
    case OBJ_ENCODING_LISTPACK: {
        char buf[LONG_STR_SIZE];
        size_t len;
        const char *text = memberText(m, buf, &len);
        unsigned char *lp = set->ptr;
        unsigned char *p = lpFind(lp, lpFirst(lp), (const unsigned char *)text, len, 0);
        if (p == NULL) return 0;
        set->ptr = lpDelete(lp, p, NULL);
        return 1;
    }
    default: return dictDelete(set->ptr, memberLookupSds(m)) == DICT_OK;
    }
}

static unsigned long randomIndex(unsigned long n) {
    unsigned long long r = ((unsigned long long)random() << 31) ^ (unsigned long long)random();
    return (unsigned long)(r % n);
}

/* A random member of a non-empty set (valid until the set changes). */
static void setRandomMember(robj *set, member *m) {
    switch (set->encoding) {
    case OBJ_ENCODING_INTSET: *m = memberFromInteger(intsetRandom(set->ptr)); break;
    case OBJ_ENCODING_LISTPACK: {
        unsigned char *p = lpSeek(set->ptr, (long)randomIndex(lpLength(set->ptr)));
        size_t len = 0;
        long long ll = 0;
        const unsigned char *s = lpGetValue(p, &len, &ll);
        *m = s ? memberFromBuffer((const char *)s, len) : memberFromInteger(ll);
        break;
    }
    default: *m = memberFromSds(dictGetKey(dictGetFairRandomKey(set->ptr))); break;
    }
}

/* All members in an array (for sampling; valid until the set changes). */
static member *setMembersArray(robj *set, unsigned long *count) {
    unsigned long n = setTypeSize(set), i = 0;
    member *all = zmalloc(sizeof(member) * (n ? n : 1));
    setIter it;
    setIterInit(&it, set);
    while (i < n && setIterNext(&it, &all[i])) i++;
    setIterRelease(&it);
    *count = i;
    return all;
}

/* ---- the cross-module API ------------------------------------------------------------------- */

int setTypeAddCBuffer(robj *o, const char *s, size_t len) {
    member m = memberFromBuffer(s, len);
    return setAdd(o, &m);
}

void setTypeForEach(robj *o, elemVisitor *fn, void *ud) {
    setIter it;
    member m;
    setIterInit(&it, o);
    while (setIterNext(&it, &m))
        if (fn(ud, &m.ref)) break;
    setIterRelease(&it);
}

void freeSetObject(robj *o) { freeSetPayload(o->encoding, o->ptr); }

robj *dupSetObject(robj *o) {
    switch (o->encoding) {
    case OBJ_ENCODING_INTSET: {
        robj *copy = createObject(OBJ_SET, intsetDup(o->ptr));
        copy->encoding = OBJ_ENCODING_INTSET;
        return copy;
    }
    case OBJ_ENCODING_LISTPACK: {
        robj *copy = createObject(OBJ_SET, lpDup(o->ptr));
        copy->encoding = OBJ_ENCODING_LISTPACK;
        return copy;
    }
    default: {
        robj *copy = createHTSetObject(setTypeSize(o));
        setIter it;
        member m;
        setIterInit(&it, o);
        while (setIterNext(&it, &m)) dictAdd(copy->ptr, sdsdup(m.asSds), NULL);
        setIterRelease(&it);
        return copy;
    }
    }
}

/* Order-independent and encoding-independent: XOR of each member's text. */
void setDigest(unsigned char digest[20], robj *o) {
    setIter it;
    member m;
    setIterInit(&it, o);
    while (setIterNext(&it, &m)) {
        char buf[LONG_STR_SIZE];
        size_t len;
        const char *text = memberText(&m, buf, &len);
        xorDigest(digest, text, len);
    }
    setIterRelease(&it);
}

static void scanCollect(void *privdata, const dictEntry *de) {
    list *out = privdata;
    listAddNodeTail(out, sdsdup(dictGetKey(de)));
}

/* The hash the HT encoding's dict gives a member (setDictType's). */
static uint64_t memberDictHash(const member *m) {
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *text = memberText(m, buf, &len);
    return dictGenHashFunction(text, len);
}

/* SSCAN of a listpack set pages as Redis 7.0 pages the hashtable such a set
 * is there (7.0 keeps only sets of integers compact, and an intset is
 * returned whole, as here). The members go into the buckets of a virtual
 * table of the size that dict would have, by the dict's own hash, and the
 * cursor walks those buckets in dictScan()'s reverse-binary order with
 * scanDictBounded()'s stop rule: a client gets 7.0's page sizes (about
 * COUNT members, not the whole set with cursor 0), and its cursor stays
 * valid if the set becomes a real hashtable, or shrinks, between calls.
 * Each call reads the listpack twice: O(members), as returning it whole. */
static uint64_t setScanListpack(robj *o, uint64_t cursor, long count, list *out) {
    unsigned long n = setTypeSize(o), size = dictTableSizeFor(n), mask = size - 1, j = 0;
    unsigned long *bucket = zmalloc(n * sizeof *bucket);
    unsigned char *chosen = zcalloc(n);
    setIter it;
    member m;
    setIterInit(&it, o);
    while (setIterNext(&it, &m)) bucket[j++] = (unsigned long)memberDictHash(&m) & mask;
    setIterRelease(&it);
    long budget = count > LONG_MAX / 10 ? LONG_MAX : count * 10, taken = 0;
    do {
        for (j = 0; j < n; j++)
            if (bucket[j] == (cursor & mask)) {
                chosen[j] = 1;
                taken++;
            }
        cursor = dictScanCursorAfter(cursor, size);
    } while (cursor && budget-- && taken < count);
    setIterInit(&it, o);
    for (j = 0; setIterNext(&it, &m); j++)
        if (chosen[j]) listAddNodeTail(out, memberNewSds(&m));
    setIterRelease(&it);
    zfree(bucket);
    zfree(chosen);
    return cursor;
}

uint64_t setScan(robj *o, uint64_t cursor, long count, list *out) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) return setScanListpack(o, cursor, count, out);
    if (o->encoding == OBJ_ENCODING_INTSET) {
        setIter it;
        member m;
        setIterInit(&it, o);
        while (setIterNext(&it, &m)) listAddNodeTail(out, memberNewSds(&m));
        setIterRelease(&it);
        return 0;
    }
    return scanDictBounded(o->ptr, cursor, count, 0, scanCollect, out);
}

/* MEMORY USAGE: an intset or a listpack is one block; a table entry owns
 * its member sds (the value is NULL). */
static size_t setEntryBytes(const dictEntry *de) { return sdsMemoryUsage(dictGetKey(de)); }

size_t setMemoryUsage(robj *o, size_t samples) {
    if (o->encoding != OBJ_ENCODING_HT) return zmalloc_size(o->ptr);
    return dictMemoryUsage(o->ptr, samples, setEntryBytes);
}

/* ---- small helpers of the commands ----------------------------------------------------------- */

static void replyWithAllMembers(client *c, robj *set) {
    addReplySetLen(c, (long)setTypeSize(set));
    setIter it;
    member m;
    setIterInit(&it, set);
    while (setIterNext(&it, &m)) addReplyMember(c, &m);
    setIterRelease(&it);
}

/* Deletes the key of a set that became empty, with its "del" event. */
static void deleteIfEmpty(client *c, robj *key, robj *set) {
    if (setTypeSize(set) != 0) return;
    dbDelete(c->db, key);
    notifyKeyspaceEvent(NOTIFY_GENERIC, "del", key, c->db->id);
}

/* Stores a computed set at dstkey (replacing whatever was there, TTL
 * included), or deletes dstkey if the set is empty. Consumes dstset.
 * Replies with the size and emits `event`. */
static void storeResult(client *c, robj *dstkey, robj *dstset, const char *event) {
    unsigned long size = setTypeSize(dstset);
    if (size == 0) {
        decrRefCount(dstset);
        if (dbDelete(c->db, dstkey)) {
            signalModifiedKey(c, c->db, dstkey);
            notifyKeyspaceEvent(NOTIFY_GENERIC, "del", dstkey, c->db->id);
            server.dirty++;
        }
        addReply(c, shared.czero);
        return;
    }
    dbDelete(c->db, dstkey);
    dbAdd(c->db, dstkey, dstset);
    signalModifiedKey(c, c->db, dstkey);
    notifyKeyspaceEvent(NOTIFY_SET, event, dstkey, c->db->id);
    server.dirty++;
    addReplyLongLong(c, (long long)size);
}

/* ---- SADD SREM SMOVE SISMEMBER SMISMEMBER SCARD SMEMBERS -------------------------------------- */

void saddCommand(client *c) {
    robj *set = lookupKeyWrite(c->db, c->argv[1]);
    if (set && checkType(c, set, OBJ_SET)) return;
    unsigned long sizeHint = (unsigned long)(c->argc - 2);
    if (set == NULL) {
        member first = memberFromObject(c->argv[2]);
        set = dbAdd(c->db, c->argv[1], createSetFor(&first, sizeHint));
    } else {
        convertIfTooSmallFor(set, sizeHint);
    }
    long long added = 0;
    for (int j = 2; j < c->argc; j++) {
        member m = memberFromObject(c->argv[j]);
        added += setAdd(set, &m);
    }
    if (added) {
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(NOTIFY_SET, "sadd", c->argv[1], c->db->id);
    }
    server.dirty += added;
    addReplyLongLong(c, added);
}

void sremCommand(client *c) {
    robj *set = lookupKeyWriteOrReply(c, c->argv[1], shared.czero);
    if (set == NULL || checkType(c, set, OBJ_SET)) return;
    long long removed = 0;
    for (int j = 2; j < c->argc && setTypeSize(set) > 0; j++) {
        member m = memberFromObject(c->argv[j]);
        removed += setRemove(set, &m);
    }
    if (removed) {
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(NOTIFY_SET, "srem", c->argv[1], c->db->id);
        deleteIfEmpty(c, c->argv[1], set);
        server.dirty += removed;
    }
    addReplyLongLong(c, removed);
}

void smoveCommand(client *c) {
    robj *srckey = c->argv[1], *dstkey = c->argv[2];
    robj *src = lookupKeyWrite(c->db, srckey);
    robj *dst = lookupKeyWrite(c->db, dstkey);
    member m = memberFromObject(c->argv[3]);
    if (src == NULL) {
        addReply(c, shared.czero);
        return;
    }
    if (checkType(c, src, OBJ_SET) || (dst && checkType(c, dst, OBJ_SET))) return;
    if (src == dst) {
        addReply(c, setIsMember(src, &m) ? shared.cone : shared.czero);
        return;
    }
    if (!setRemove(src, &m)) {
        addReply(c, shared.czero);
        return;
    }
    notifyKeyspaceEvent(NOTIFY_SET, "srem", srckey, c->db->id);
    deleteIfEmpty(c, srckey, src);
    if (dst == NULL) dst = dbAdd(c->db, dstkey, createSetFor(&m, 1));
    signalModifiedKey(c, c->db, srckey);
    server.dirty++;
    if (setAdd(dst, &m)) {
        server.dirty++;
        signalModifiedKey(c, c->db, dstkey);
        notifyKeyspaceEvent(NOTIFY_SET, "sadd", dstkey, c->db->id);
    }
    addReply(c, shared.cone);
}

void sismemberCommand(client *c) {
    robj *set = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    if (set == NULL || checkType(c, set, OBJ_SET)) return;
    member m = memberFromObject(c->argv[2]);
    addReply(c, setIsMember(set, &m) ? shared.cone : shared.czero);
}

void smismemberCommand(client *c) {
    robj *set = lookupKeyRead(c->db, c->argv[1]);
    if (set && checkType(c, set, OBJ_SET)) return;
    addReplyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) {
        member m = memberFromObject(c->argv[j]);
        addReply(c, set && setIsMember(set, &m) ? shared.cone : shared.czero);
    }
}

void scardCommand(client *c) {
    robj *set = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    if (set == NULL || checkType(c, set, OBJ_SET)) return;
    addReplyLongLong(c, (long long)setTypeSize(set));
}

void smembersCommand(client *c) {
    robj *set = lookupKeyReadOrReply(c, c->argv[1], shared.emptyset[c->resp]);
    if (set == NULL || checkType(c, set, OBJ_SET)) return;
    replyWithAllMembers(c, set);
}

/* ---- SPOP ------------------------------------------------------------------------------------------ */

/* SPOP picks at random, so it is not replayed as itself: it propagates
 * what it removed, SREM key member ... in batches (or DEL when it took the
 * whole set). Nothing is built while nobody consumes propagation. */
#define SPOP_PROPAGATION_BATCH 1024

typedef struct popPropagation {
    client *c;
    robj **argv; /* SREM key member ...; NULL when propagation is off */
    int argc;
} popPropagation;

static void popPropagationStart(popPropagation *pp, client *c) {
    pp->c = c;
    pp->argc = 0;
    pp->argv = NULL;
    if (!propagationEnabled()) return;
    pp->argv = zmalloc(sizeof(robj *) * (SPOP_PROPAGATION_BATCH + 2));
    pp->argv[0] = createStringObject("SREM", 4);
    pp->argv[1] = c->argv[1];
    incrRefCount(c->argv[1]);
    pp->argc = 2;
    preventCommandPropagation(c);
}

static void popPropagationFlush(popPropagation *pp) {
    if (pp->argv == NULL || pp->argc == 2) return;
    alsoPropagate(pp->c->db->id, pp->argv, pp->argc);
    for (int j = 2; j < pp->argc; j++) decrRefCount(pp->argv[j]);
    pp->argc = 2;
}

static void popPropagationAdd(popPropagation *pp, const member *m) {
    if (pp->argv == NULL) return;
    pp->argv[pp->argc++] = elemRefToObject(&m->ref);
    if (pp->argc == SPOP_PROPAGATION_BATCH + 2) popPropagationFlush(pp);
}

static void popPropagationEnd(popPropagation *pp) {
    if (pp->argv == NULL) return;
    popPropagationFlush(pp);
    decrRefCount(pp->argv[0]);
    decrRefCount(pp->argv[1]);
    zfree(pp->argv);
    pp->argv = NULL;
}

/* The whole set went: propagated as DEL key. */
static void propagateWholeSetPopped(client *c) {
    robj *argv[2] = {shared.del_cmd, c->argv[1]};
    propagateCommandAs(c, argv, 2);
}

/* Pops count random members one at a time (count is small next to the size). */
static void popOneByOne(client *c, robj *set, unsigned long count, popPropagation *pp) {
    while (count--) {
        member m;
        setRandomMember(set, &m);
        addReplyMember(c, &m);
        popPropagationAdd(pp, &m);
        setRemove(set, &m); /* the reply holds a copy; m may point into the set */
    }
}

/* Pops all but `remaining` members: moves `remaining` random members to a
 * new set, replies with what is left in the old one, then swaps payloads. */
static void popAllButRemaining(client *c, robj *set, unsigned long remaining, popPropagation *pp) {
    robj *kept = createSetObject();
    while (remaining--) {
        member m;
        setRandomMember(set, &m);
        setAdd(kept, &m);
        setRemove(set, &m);
    }
    setIter it;
    member m;
    setIterInit(&it, set);
    while (setIterNext(&it, &m)) {
        addReplyMember(c, &m);
        popPropagationAdd(pp, &m);
    }
    setIterRelease(&it);

    void *ptr = set->ptr;
    unsigned encoding = set->encoding;
    set->ptr = kept->ptr;
    set->encoding = kept->encoding;
    kept->ptr = ptr;
    kept->encoding = encoding;
    decrRefCount(kept);
}

/* Counts are parsed as 64-bit on every build, so a 32-bit server accepts
 * and refuses exactly what a 64-bit one does. */
#define SPOP_COUNT_ERR "value is out of range, must be positive"

static void spopWithCountCommand(client *c) {
    long long count;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &count, SPOP_COUNT_ERR) != C_OK) return;
    if (count < 0) {
        addReplyError(c, SPOP_COUNT_ERR);
        return;
    }
    robj *set = lookupKeyWriteOrReply(c, c->argv[1], shared.emptyset[c->resp]);
    if (set == NULL || checkType(c, set, OBJ_SET)) return;
    if (count == 0) {
        addReply(c, shared.emptyset[c->resp]);
        return;
    }
    unsigned long size = setTypeSize(set);
    notifyKeyspaceEvent(NOTIFY_SET, "spop", c->argv[1], c->db->id);
    if ((unsigned long long)count >= size) {
        replyWithAllMembers(c, set);
        dbDelete(c->db, c->argv[1]);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "del", c->argv[1], c->db->id);
        propagateWholeSetPopped(c);
        server.dirty += (long long)size;
    } else {
        unsigned long wanted = (unsigned long)count;
        popPropagation pp;
        popPropagationStart(&pp, c);
        addReplySetLen(c, (long)wanted);
        if (wanted * SPOP_MOVE_STRATEGY_MUL > size) popAllButRemaining(c, set, size - wanted, &pp);
        else popOneByOne(c, set, wanted, &pp);
        popPropagationEnd(&pp);
        server.dirty += count;
    }
    signalModifiedKey(c, c->db, c->argv[1]);
}

void spopCommand(client *c) {
    if (c->argc == 3) {
        spopWithCountCommand(c);
        return;
    }
    if (c->argc > 3) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    robj *set = lookupKeyWriteOrReply(c, c->argv[1], shared.null[c->resp]);
    if (set == NULL || checkType(c, set, OBJ_SET)) return;
    popPropagation pp;
    popPropagationStart(&pp, c);
    popOneByOne(c, set, 1, &pp);
    popPropagationEnd(&pp);
    notifyKeyspaceEvent(NOTIFY_SET, "spop", c->argv[1], c->db->id);
    deleteIfEmpty(c, c->argv[1], set);
    signalModifiedKey(c, c->db, c->argv[1]);
    server.dirty++;
}

/* ---- SRANDMEMBER -------------------------------------------------------------------------------------- */

/* count members drawn with replacement. The reply is bounded by count, not
 * by the set: like Redis, stop early once the client is being closed (its
 * output buffer limit was hit). */
static void replyRandomWithRepeats(client *c, robj *set, unsigned long count) {
    addReplyArrayLen(c, (long)count);
    if (set->encoding == OBJ_ENCODING_LISTPACK) {
        /* Index the entries once instead of seeking for every draw. */
        unsigned long n;
        member *all = setMembersArray(set, &n);
        while (count-- && !(c->flags & CLIENT_CLOSE_ASAP)) addReplyMember(c, &all[randomIndex(n)]);
        zfree(all);
        return;
    }
    while (count-- && !(c->flags & CLIENT_CLOSE_ASAP)) {
        member m;
        setRandomMember(set, &m);
        addReplyMember(c, &m);
    }
}

/* count distinct members, count < size: a partial Fisher-Yates shuffle. */
static void replyRandomSample(client *c, robj *set, unsigned long count) {
    unsigned long n;
    member *all = setMembersArray(set, &n);
    addReplyArrayLen(c, (long)count);
    for (unsigned long i = 0; i < count; i++) {
        unsigned long j = i + randomIndex(n - i);
        member chosen = all[j];
        all[j] = all[i];
        all[i] = chosen;
        addReplyMember(c, &chosen);
    }
    zfree(all);
}

static dictType pointerSetDictType = {.hashFunction = dictPointerHash};

/* count distinct members of a large HT set, count much smaller than the size:
 * draw until count distinct ones came up (members are unique sds pointers). */
static void replyRandomSparse(client *c, robj *set, unsigned long count) {
    dict *seen = dictCreate(&pointerSetDictType);
    dictExpand(seen, count);
    addReplyArrayLen(c, (long)count);
    while (dictSize(seen) < count) {
        sds s = dictGetKey(dictGetFairRandomKey(set->ptr));
        if (dictAdd(seen, s, NULL) == DICT_OK) addReplyBulkCBuffer(c, s, sdslen(s));
    }
    dictRelease(seen);
}

static void srandmemberWithCountCommand(client *c) {
    long long l;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &l, NULL) != C_OK) return;
    int distinct = l >= 0;
    unsigned long long count = distinct ? (unsigned long long)l : 0 - (unsigned long long)l;
    /* -LLONG_MIN does not exist; and a reply of more repeats than a long
     * counts (only reachable on 32-bit builds) could never be sent. */
    if (l == LLONG_MIN || (!distinct && count > LONG_MAX)) {
        addReplyErrorFormat(c, "value is out of range, value must between %lld and %lld", -LLONG_MAX, LLONG_MAX);
        return;
    }
    robj *set = lookupKeyReadOrReply(c, c->argv[1], shared.emptyarray);
    if (set == NULL || checkType(c, set, OBJ_SET)) return;
    if (count == 0) {
        addReply(c, shared.emptyarray);
        return;
    }
    unsigned long size = setTypeSize(set);
    if (!distinct || count == 1) {
        replyRandomWithRepeats(c, set, (unsigned long)count);
    } else if (count >= size) {
        addReplyArrayLen(c, (long)size);
        setIter it;
        member m;
        setIterInit(&it, set);
        while (setIterNext(&it, &m)) addReplyMember(c, &m);
        setIterRelease(&it);
    } else if (set->encoding == OBJ_ENCODING_HT && count * SRANDMEMBER_SUB_STRATEGY_MUL <= size) {
        replyRandomSparse(c, set, (unsigned long)count);
    } else {
        replyRandomSample(c, set, (unsigned long)count);
    }
}

void srandmemberCommand(client *c) {
    if (c->argc == 3) {
        srandmemberWithCountCommand(c);
        return;
    }
    if (c->argc > 3) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    robj *set = lookupKeyReadOrReply(c, c->argv[1], shared.null[c->resp]);
    if (set == NULL || checkType(c, set, OBJ_SET)) return;
    member m;
    setRandomMember(set, &m);
    addReplyMember(c, &m);
}

/* ---- SINTER SINTERCARD SINTERSTORE ----------------------------------------------------------------------- */

/* qsort order of sets by size (a missing set, NULL, counts as empty). */
static int compareSetsBySize(const void *a, const void *b) {
    const robj *seta = *(robj *const *)a, *setb = *(robj *const *)b;
    unsigned long sa = seta ? setTypeSize(seta) : 0, sb = setb ? setTypeSize(setb) : 0;
    return sa < sb ? -1 : sa > sb;
}

/* Looks up the source sets. Returns 0 (and replied) on a wrong type; sets a
 * missing key's slot to NULL. */
static int lookupSourceSets(client *c, robj **keys, int n, robj **sets, int forWrite) {
    for (int j = 0; j < n; j++) {
        sets[j] = forWrite ? lookupKeyWrite(c->db, keys[j]) : lookupKeyRead(c->db, keys[j]);
        if (sets[j] && checkType(c, sets[j], OBJ_SET)) return 0;
    }
    return 1;
}

static int inAllOthers(robj **sets, int n, const member *m) {
    for (int j = 1; j < n; j++)
        if (sets[j] != sets[0] && !setIsMember(sets[j], m)) return 0;
    return 1;
}

/* The core of SINTER, SINTERSTORE (dstkey) and SINTERCARD (cardOnly, limit:
 * 0 = none). */
static void sinterGeneric(client *c, robj **keys, int n, robj *dstkey, int cardOnly, unsigned long limit) {
    robj **sets = zmalloc(sizeof(robj *) * (size_t)n);
    if (!lookupSourceSets(c, keys, n, sets, dstkey != NULL)) {
        zfree(sets);
        return;
    }
    for (int j = 0; j < n; j++) {
        if (sets[j] != NULL) continue;
        zfree(sets); /* a missing key is an empty set: so is the intersection */
        if (dstkey) storeResult(c, dstkey, createSetObject(), "sinterstore");
        else if (cardOnly) addReply(c, shared.czero);
        else addReply(c, shared.emptyset[c->resp]);
        return;
    }
    qsort(sets, (size_t)n, sizeof(robj *), compareSetsBySize);

    robj *dstset = dstkey ? createSetObject() : NULL;
    void *deferred = (dstkey || cardOnly) ? NULL : addReplyDeferredLen(c);
    unsigned long found = 0;
    setIter it;
    member m;
    setIterInit(&it, sets[0]);
    while (setIterNext(&it, &m)) {
        if (!inAllOthers(sets, n, &m)) continue;
        found++;
        if (dstset) setAdd(dstset, &m);
        else if (!cardOnly) addReplyMember(c, &m);
        if (cardOnly && limit && found >= limit) break;
    }
    setIterRelease(&it);
    zfree(sets);

    if (dstset) storeResult(c, dstkey, dstset, "sinterstore");
    else if (cardOnly) addReplyLongLong(c, (long long)found);
    else setDeferredSetLen(c, deferred, (long)found);
}

void sinterCommand(client *c) { sinterGeneric(c, c->argv + 1, c->argc - 1, NULL, 0, 0); }

void sinterstoreCommand(client *c) { sinterGeneric(c, c->argv + 2, c->argc - 2, c->argv[1], 0, 0); }

void sintercardCommand(client *c) {
    long numkeys, limit = 0;
    if (getRangeLongFromObjectOrReply(c, c->argv[1], 1, LONG_MAX, &numkeys, "numkeys should be greater than 0") !=
        C_OK)
        return;
    if (numkeys > c->argc - 2) {
        addReplyError(c, "Number of keys can't be greater than number of args");
        return;
    }
    for (int j = 2 + (int)numkeys; j < c->argc; j++) {
        int more = j + 1 < c->argc;
        if (!strcasecmp(c->argv[j]->ptr, "limit") && more) {
            if (getPositiveLongFromObjectOrReply(c, c->argv[++j], &limit, "LIMIT can't be negative") != C_OK)
                return;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    sinterGeneric(c, c->argv + 2, (int)numkeys, NULL, 1, (unsigned long)limit);
}

/* ---- SUNION SDIFF and their STORE variants ------------------------------------------------------------------ */

enum { SET_OP_UNION, SET_OP_DIFF };

static void addAllMembers(robj *dst, robj *src) {
    setIter it;
    member m;
    setIterInit(&it, src);
    while (setIterNext(&it, &m)) setAdd(dst, &m);
    setIterRelease(&it);
}

static int compareSetsBySizeDesc(const void *a, const void *b) { return compareSetsBySize(b, a); }

/* Members of sets[0] in none of the others. Two algorithms, as in Redis:
 * probing each member of the first set against the others (cost ~ size of
 * the first times the number of sets), or copying the first and removing
 * the members of every other (cost ~ the total size); the cheaper wins. */
static void computeDiff(robj *dst, robj **sets, int n) {
    unsigned long long probeWork = 0, removeWork = 0;
    for (int j = 0; j < n; j++) {
        if (sets[j] == NULL) continue;
        probeWork += setTypeSize(sets[0]);
        removeWork += setTypeSize(sets[j]);
    }
    probeWork /= 2; /* probing stops at the first hit */
    if (probeWork <= removeWork) {
        if (n > 2) qsort(sets + 1, (size_t)n - 1, sizeof(robj *), compareSetsBySizeDesc);
        setIter it;
        member m;
        setIterInit(&it, sets[0]);
        while (setIterNext(&it, &m)) {
            int elsewhere = 0;
            for (int j = 1; j < n && !elsewhere; j++)
                elsewhere = sets[j] && (sets[j] == sets[0] || setIsMember(sets[j], &m));
            if (!elsewhere) setAdd(dst, &m);
        }
        setIterRelease(&it);
        return;
    }
    addAllMembers(dst, sets[0]);
    for (int j = 1; j < n && setTypeSize(dst) > 0; j++) {
        if (sets[j] == NULL) continue;
        setIter it;
        member m;
        setIterInit(&it, sets[j]);
        while (setIterNext(&it, &m))
            if (setRemove(dst, &m) && setTypeSize(dst) == 0) break;
        setIterRelease(&it);
    }
}

static void setOperationGeneric(client *c, robj **keys, int n, robj *dstkey, int op) {
    robj **sets = zmalloc(sizeof(robj *) * (size_t)n);
    if (!lookupSourceSets(c, keys, n, sets, dstkey != NULL)) {
        zfree(sets);
        return;
    }
    robj *dstset = createSetObject();
    if (op == SET_OP_UNION) {
        for (int j = 0; j < n; j++)
            if (sets[j]) addAllMembers(dstset, sets[j]);
    } else if (sets[0]) {
        computeDiff(dstset, sets, n);
    }
    zfree(sets);

    if (dstkey) {
        storeResult(c, dstkey, dstset, op == SET_OP_UNION ? "sunionstore" : "sdiffstore");
        return;
    }
    replyWithAllMembers(c, dstset);
    decrRefCount(dstset);
}

void sunionCommand(client *c) { setOperationGeneric(c, c->argv + 1, c->argc - 1, NULL, SET_OP_UNION); }

void sunionstoreCommand(client *c) { setOperationGeneric(c, c->argv + 2, c->argc - 2, c->argv[1], SET_OP_UNION); }

void sdiffCommand(client *c) { setOperationGeneric(c, c->argv + 1, c->argc - 1, NULL, SET_OP_DIFF); }

void sdiffstoreCommand(client *c) { setOperationGeneric(c, c->argv + 2, c->argc - 2, c->argv[1], SET_OP_DIFF); }

/* ---- SSCAN ------------------------------------------------------------------------------------------------ */

void sscanCommand(client *c) { scanKeyOfTypeCommand(c, OBJ_SET); }
