/* rdb_legacy.c -- loading the RDB value types of Redis before 7.0 (see
 * rdb_legacy.h): zipmap hashes, ziplist lists, hashes and sorted sets, and
 * version-1 quicklists (a list of ziplists).
 *
 * Design decisions:
 * - Every blob is validated whole (ziplist.c / zipmap.c: encodings, sizes,
 *   prevlens, zltail, counts) before a single entry is used; the walk that
 *   follows re-checks as it goes, so nothing here can read outside a blob.
 * - Nothing is kept in the old format: each entry is added through the
 *   types' API in server.h (listTypePush, hashTypeSetFromSds,
 *   zsetAddCBuffer), as rdb.c's listpack loaders do, so our encodings and
 *   the *-max-listpack-* thresholds apply, converting when exceeded.
 * - A duplicate hash field or zset member, an odd entry count in a pairs
 *   blob, or a zset score that is not a number (or is NaN) is corruption:
 *   the load fails with a message naming the problem, like Redis 7.
 * - Sorted-set scores are ziplist strings ("1.5", "inf") or integers; the
 *   member order in the blob does not matter, zsetAddCBuffer sorts.
 * - Also here: the names of the types this server does not load, so the
 *   loader's error says which one it met.
 */
#include <math.h>

#include "server.h"
#include "rdb_legacy.h"
#include "ziplist.h"
#include "zipmap.h"

static void zlElem(const ziplistValue *v, elemRef *e) {
    e->s = v->s;
    e->len = v->len;
    e->ll = v->ll;
}

/* The next (name, value) pair of a validated ziplist: 1, 0 at the end, -1
 * if the count is odd. */
static int nextPair(ziplistIter *it, elemRef *name, elemRef *value) {
    ziplistValue a, b;
    int r = ziplistIterNext(it, &a);
    if (r != 1) return r;
    if (ziplistIterNext(it, &b) != 1) return -1;
    zlElem(&a, name);
    zlElem(&b, value);
    return 1;
}

/* ---- lists --------------------------------------------------------------------------------------- */

static void appendEntries(robj *list, const unsigned char *zl, size_t len) {
    ziplistIter it;
    ziplistValue v;
    ziplistIterInit(&it, zl, len);
    while (ziplistIterNext(&it, &v) == 1) {
        elemRef e;
        zlElem(&v, &e);
        robj *eo = elemRefToObject(&e);
        listTypePush(list, eo, LIST_TAIL);
        decrRefCount(eo);
    }
}

int rdbLegacyAppendZiplist(robj *list, const unsigned char *blob, size_t len, const char **err) {
    if (!ziplistValidateIntegrity(blob, len, NULL)) {
        *err = "Ziplist integrity check failed (quicklist node)";
        return 0;
    }
    appendEntries(list, blob, len);
    return 1;
}

static robj *loadListZiplist(const unsigned char *zl, size_t len, const char **err) {
    if (!ziplistValidateIntegrity(zl, len, NULL)) {
        *err = "Ziplist integrity check failed (list)";
        return NULL;
    }
    robj *o = createListObject();
    appendEntries(o, zl, len);
    return o;
}

/* ---- hashes -------------------------------------------------------------------------------------- */

static int addHashPair(robj *o, const elemRef *f, const elemRef *v) {
    sds fs = elemRefToSds(f), vs = elemRefToSds(v);
    int added = hashTypeSetFromSds(o, fs, vs);
    sdsfree(fs);
    sdsfree(vs);
    return added;
}

static robj *loadHashZiplist(const unsigned char *zl, size_t len, const char **err) {
    if (!ziplistValidateIntegrity(zl, len, NULL)) {
        *err = "Ziplist integrity check failed (hash)";
        return NULL;
    }
    robj *o = createHashObject();
    ziplistIter it;
    elemRef f, v;
    int r;
    ziplistIterInit(&it, zl, len);
    while ((r = nextPair(&it, &f, &v)) == 1) {
        if (!addHashPair(o, &f, &v)) {
            *err = "Duplicate hash field in a ziplist";
            return decrRefCount(o), NULL;
        }
    }
    if (r != 0) {
        *err = "Odd number of entries in a hash ziplist";
        return decrRefCount(o), NULL;
    }
    return o;
}

static robj *loadHashZipmap(const unsigned char *zm, size_t len, const char **err) {
    if (!zipmapValidateIntegrity(zm, len, NULL)) {
        *err = "Zipmap integrity check failed";
        return NULL;
    }
    robj *o = createHashObject();
    zipmapIter it;
    elemRef f = {0}, v = {0};
    zipmapIterInit(&it, zm, len);
    while (zipmapIterNext(&it, &f.s, &f.len, &v.s, &v.len) == 1) {
        if (!addHashPair(o, &f, &v)) {
            *err = "Duplicate hash field in a zipmap";
            return decrRefCount(o), NULL;
        }
    }
    return o;
}

/* ---- sorted sets --------------------------------------------------------------------------------- */

static int scoreOf(const elemRef *s, double *score) {
    if (s->s == NULL) {
        *score = (double)s->ll;
        return 1;
    }
    return string2d((const char *)s->s, s->len, score) && !isnan(*score);
}

static robj *loadZsetZiplist(const unsigned char *zl, size_t len, const char **err) {
    if (!ziplistValidateIntegrity(zl, len, NULL)) {
        *err = "Ziplist integrity check failed (zset)";
        return NULL;
    }
    robj *o = createZsetObject();
    ziplistIter it;
    elemRef m, s;
    int r;
    ziplistIterInit(&it, zl, len);
    while ((r = nextPair(&it, &m, &s)) == 1) {
        double score;
        if (!scoreOf(&s, &score)) {
            *err = "Invalid score in a zset ziplist";
            return decrRefCount(o), NULL;
        }
        sds ms = elemRefToSds(&m);
        int added = zsetAddCBuffer(o, score, ms, sdslen(ms));
        sdsfree(ms);
        if (!added) {
            *err = "Duplicate zset member in a ziplist";
            return decrRefCount(o), NULL;
        }
    }
    if (r != 0) {
        *err = "Odd number of entries in a zset ziplist";
        return decrRefCount(o), NULL;
    }
    return o;
}

/* ---- dispatch ------------------------------------------------------------------------------------ */

robj *rdbLegacyLoadBlob(int rdbtype, const unsigned char *blob, size_t len, const char **err) {
    switch (rdbtype) {
    case RDB_TYPE_HASH_ZIPMAP: return loadHashZipmap(blob, len, err);
    case RDB_TYPE_LIST_ZIPLIST: return loadListZiplist(blob, len, err);
    case RDB_TYPE_ZSET_ZIPLIST: return loadZsetZiplist(blob, len, err);
    case RDB_TYPE_HASH_ZIPLIST: return loadHashZiplist(blob, len, err);
    default: *err = "Not a legacy blob type"; return NULL;
    }
}

const char *rdbUnsupportedTypeName(int rdbtype) {
    switch (rdbtype) {
    case 6: return "module (pre-GA)";
    case 7: return "module";
    case 15: return "stream (listpacks)";
    case 19: return "stream (listpacks, v2)";
    case 21: return "stream (listpacks, v3)";
    case 22: return "hash with field TTLs (pre-GA)";
    case 23: return "hash listpack with field TTLs (pre-GA)";
    case 24: return "hash with field TTLs";
    case 25: return "hash listpack with field TTLs";
    default: return "unknown";
    }
}
