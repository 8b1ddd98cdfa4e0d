/* module_keys.c -- the list and sorted set key API of Redis 7.0 modules:
 * ListPop, ListGet, ListSet, ListInsert, ListDelete (ListPush stays in
 * module_api.c); ZsetAdd, ZsetIncrby, ZsetRem, ZsetScore and the sorted set
 * range iterators.
 *
 * Decisions:
 * - Each call resolves its index afresh on the key's current value; Redis
 *   keeps a seek iterator in the key handle, which only saves time: the
 *   results and the errno values (EINVAL, ENOTSUP, EBADF, EDOM) are the same.
 * - A list a call leaves empty is deleted at once, as Redis does, so the
 *   key reads as empty and a later write recreates it.
 * - Elements come back as new strings the context's auto memory tracks.
 * - ZsetAdd/ZsetIncrby with XX on an empty key leave no key behind; Redis
 *   7.0 leaves an empty sorted set there until something deletes it.
 * - The zset range iterators (ZsetFirstInScoreRange ... ZsetRangeStop) keep
 *   a walk (t_zset.c's zsetRangeWalk) in the key handle. Redis keeps raw
 *   pointers into the set; a walk is likewise only valid while the set is
 *   unchanged, but one whose set is no longer the key's value (deleted,
 *   replaced) is treated as ended instead of being followed.
 * - Their answers follow Redis 7.0's, quirks included: an empty or inverted
 *   range is OK with the end reached; an invalid lex range is ERR and leaves
 *   EndReached answering 0 with no element; stepping past the end keeps the
 *   last element current; a step back from the end does not clear it.
 */
#include "module_int.h"

#include <errno.h>

typedef struct redisObject RString;

static void *failWith(int err) {
    errno = err;
    return NULL;
}

/* The key's list if it may be used with `mode` and `index` is in range;
 * else NULL with errno set, in Redis's order of checks. */
static robj *listAt(moduleKey *k, long index, int mode) {
    if (k == NULL) return failWith(EINVAL);
    robj *v = moduleKeyValue(k);
    if (v == NULL || v->type != OBJ_LIST) return failWith(ENOTSUP);
    if (!(k->mode & mode)) return failWith(EBADF);
    long len = (long)listTypeLength(v);
    if (index < -len || index >= len) return failWith(EDOM);
    return v;
}

static void deleteIfEmpty(moduleKey *k, robj *v) {
    if (listTypeLength(v) == 0) dbDelete(k->db, k->key);
}

static RString *track(moduleKey *k, RString *s) {
    moduleAutoAdd(k->ctx, AUTO_STRING, s);
    return s;
}

static RString *RM_ListPop(moduleKey *k, int where) {
    if (k == NULL) return failWith(EINVAL);
    robj *v = moduleKeyValue(k);
    if (v == NULL || v->type != OBJ_LIST) return failWith(ENOTSUP);
    if (!(k->mode & MODAPI_KEY_WRITE)) return failWith(EBADF);
    long index = where == MODAPI_LIST_HEAD ? 0 : -1;
    RString *ele = listTypeGetAt(v, index);
    listTypeDeleteAt(v, index);
    deleteIfEmpty(k, v);
    return track(k, ele);
}

static RString *RM_ListGet(moduleKey *k, long index) {
    robj *v = listAt(k, index, MODAPI_KEY_READ);
    return v ? track(k, listTypeGetAt(v, index)) : NULL;
}

static int RM_ListSet(moduleKey *k, long index, RString *value) {
    if (value == NULL) return failWith(EINVAL), MODAPI_ERR;
    robj *v = listAt(k, index, MODAPI_KEY_WRITE);
    if (v == NULL) return MODAPI_ERR;
    moduleStringDecode(value);
    listTypeSetAt(v, index, value);
    return MODAPI_OK;
}

/* The index is the new element's once inserted: inserting at the length
 * (or -1) appends, at 0 (or -length-1) prepends -- also into an empty key,
 * which those two create -- and otherwise the element goes before the one
 * at a non-negative index, after the one at a negative index. */
static int RM_ListInsert(moduleKey *k, long index, RString *value) {
    if (value == NULL) return failWith(EINVAL), MODAPI_ERR;
    robj *v = k ? moduleKeyValue(k) : NULL;
    if (k && v == NULL && (index == 0 || index == -1)) return moduleListPush(k, MODAPI_LIST_TAIL, value);
    if (k && v && v->type == OBJ_LIST) {
        long len = (long)listTypeLength(v);
        if (index == len || index == -1) return moduleListPush(k, MODAPI_LIST_TAIL, value);
        if (index == 0 || index == -len - 1) return moduleListPush(k, MODAPI_LIST_HEAD, value);
    }
    v = listAt(k, index, MODAPI_KEY_WRITE);
    if (v == NULL) return MODAPI_ERR;
    moduleStringDecode(value);
    listTypeInsertAt(v, index, value, index < 0 ? LIST_TAIL : LIST_HEAD);
    return MODAPI_OK;
}

static int RM_ListDelete(moduleKey *k, long index) {
    robj *v = listAt(k, index, MODAPI_KEY_WRITE);
    if (v == NULL) return MODAPI_ERR;
    listTypeDeleteAt(v, index);
    deleteIfEmpty(k, v);
    return MODAPI_OK;
}

/* ---- sorted sets ------------------------------------------------------------------------ */

#define MODAPI_ZADD_XX (1 << 0)
#define MODAPI_ZADD_NX (1 << 1)
#define MODAPI_ZADD_ADDED (1 << 2)
#define MODAPI_ZADD_UPDATED (1 << 3)
#define MODAPI_ZADD_NOP (1 << 4)
#define MODAPI_ZADD_GT (1 << 5)
#define MODAPI_ZADD_LT (1 << 6)

static int zaddInFlags(const int *flagsptr) {
    int f = flagsptr ? *flagsptr : 0, in = 0;
    if (f & MODAPI_ZADD_XX) in |= ZADD_IN_XX;
    if (f & MODAPI_ZADD_NX) in |= ZADD_IN_NX;
    if (f & MODAPI_ZADD_GT) in |= ZADD_IN_GT;
    if (f & MODAPI_ZADD_LT) in |= ZADD_IN_LT;
    return in;
}

static int zaddOutFlags(int out) {
    return ((out & ZADD_OUT_ADDED) ? MODAPI_ZADD_ADDED : 0) | ((out & ZADD_OUT_UPDATED) ? MODAPI_ZADD_UPDATED : 0) |
           ((out & ZADD_OUT_NOP) ? MODAPI_ZADD_NOP : 0);
}

/* The key's sorted set for a write, created if empty; NULL if the key is
 * not writable or holds another type. */
static robj *zsetForWrite(moduleKey *k) {
    if (k == NULL || !(k->mode & MODAPI_KEY_WRITE)) return NULL;
    robj *v = moduleKeyValue(k);
    if (v && v->type != OBJ_ZSET) return NULL;
    return v ? v : dbAdd(k->db, k->key, createZsetObject());
}

static int zsetAddGeneric(moduleKey *k, double score, RString *ele, int *flagsptr, int incr, double *newscore) {
    robj *z = zsetForWrite(k);
    if (z == NULL || ele == NULL) return MODAPI_ERR;
    moduleStringDecode(ele);
    int out = 0;
    int ok = zsetAdd(z, score, ele->ptr, zaddInFlags(flagsptr) | (incr ? ZADD_IN_INCR : 0), &out, newscore);
    if (zsetLength(z) == 0) dbDelete(k->db, k->key);
    if (flagsptr) *flagsptr = ok ? zaddOutFlags(out) : 0;
    return ok ? MODAPI_OK : MODAPI_ERR;
}

static int RM_ZsetAdd(moduleKey *k, double score, RString *ele, int *flagsptr) {
    return zsetAddGeneric(k, score, ele, flagsptr, 0, NULL);
}

static int RM_ZsetIncrby(moduleKey *k, double score, RString *ele, int *flagsptr, double *newscore) {
    return zsetAddGeneric(k, score, ele, flagsptr, 1, newscore);
}

static int RM_ZsetRem(moduleKey *k, RString *ele, int *deleted) {
    if (k == NULL || ele == NULL || !(k->mode & MODAPI_KEY_WRITE)) return MODAPI_ERR;
    robj *v = moduleKeyValue(k);
    if (v && v->type != OBJ_ZSET) return MODAPI_ERR;
    moduleStringDecode(ele);
    int gone = v && zsetDel(v, ele->ptr);
    if (gone && zsetLength(v) == 0) dbDelete(k->db, k->key);
    if (deleted) *deleted = gone;
    return MODAPI_OK;
}

static int RM_ZsetScore(moduleKey *k, RString *ele, double *score) {
    robj *v = k ? moduleKeyValue(k) : NULL;
    if (v == NULL || v->type != OBJ_ZSET || ele == NULL) return MODAPI_ERR;
    moduleStringDecode(ele);
    double s;
    if (!zsetTypeScore(v, ele->ptr, &s)) return MODAPI_ERR;
    if (score) *score = s;
    return MODAPI_OK;
}

/* ---- sorted set range iterators ----------------------------------------------------------------- */

void moduleKeyRangeStop(moduleKey *k) {
    zsetRangeWalkFree(k->zwalk);
    k->zwalk = NULL;
    k->zmore = 0;
}

static robj *keyZset(moduleKey *k) {
    robj *v = k ? moduleKeyValue(k) : NULL;
    return v && v->type == OBJ_ZSET ? v : NULL;
}

/* The key's live walk: NULL without one or once its set is not the key's. */
static zsetRangeWalk *keyWalk(moduleKey *k) {
    robj *z = keyZset(k);
    return z && k->zwalk && zsetRangeWalkSet(k->zwalk) == z ? k->zwalk : NULL;
}

/* A new walk becomes the key's; no element in the range ends it at once. */
static int walkStart(moduleKey *k, zsetRangeWalk *w) {
    k->zwalk = w;
    k->zmore = zsetRangeWalkAt(w);
    return MODAPI_OK;
}

static int scoreRange(moduleKey *k, double min, double max, int minex, int maxex, int last) {
    robj *z = keyZset(k);
    if (z == NULL) return MODAPI_ERR;
    moduleKeyRangeStop(k);
    return walkStart(k, zsetRangeWalkScore(z, min, max, minex, maxex, last));
}

static int lexRange(moduleKey *k, RString *min, RString *max, int last) {
    robj *z = keyZset(k);
    if (z == NULL || min == NULL || max == NULL) return MODAPI_ERR;
    moduleKeyRangeStop(k);
    k->zmore = 1; /* Redis's state after a refused range: not ended */
    zsetRangeWalk *w = zsetRangeWalkLex(z, min, max, last);
    return w ? walkStart(k, w) : MODAPI_ERR;
}

static int RM_ZsetFirstInScoreRange(moduleKey *k, double min, double max, int minex, int maxex) {
    return scoreRange(k, min, max, minex, maxex, 0);
}

static int RM_ZsetLastInScoreRange(moduleKey *k, double min, double max, int minex, int maxex) {
    return scoreRange(k, min, max, minex, maxex, 1);
}

static int RM_ZsetFirstInLexRange(moduleKey *k, RString *min, RString *max) { return lexRange(k, min, max, 0); }

static int RM_ZsetLastInLexRange(moduleKey *k, RString *min, RString *max) { return lexRange(k, min, max, 1); }

static RString *RM_ZsetRangeCurrentElement(moduleKey *k, double *score) {
    zsetRangeWalk *w = keyWalk(k);
    RString *ele = w ? zsetRangeWalkElement(w, score) : NULL;
    if (ele == NULL) return NULL;
    moduleStringDecode(ele);
    return track(k, ele);
}

static int rangeStep(moduleKey *k, int backward) {
    zsetRangeWalk *w = keyWalk(k);
    if (w == NULL || !zsetRangeWalkAt(w)) return 0;
    if (zsetRangeWalkStep(w, backward)) return 1;
    k->zmore = 0;
    return 0;
}

static int RM_ZsetRangeNext(moduleKey *k) { return rangeStep(k, 0); }

static int RM_ZsetRangePrev(moduleKey *k) { return rangeStep(k, 1); }

static int RM_ZsetRangeEndReached(moduleKey *k) {
    if (keyZset(k) == NULL || (k->zwalk && keyWalk(k) == NULL)) return 1;
    return !k->zmore;
}

static void RM_ZsetRangeStop(moduleKey *k) {
    if (k) moduleKeyRangeStop(k);
}

/* ---- the lookup ----------------------------------------------------------------------- */

static const moduleApiEntry keys_table[] = {
    MODULE_API(ListPop), MODULE_API(ListGet), MODULE_API(ListSet), MODULE_API(ListInsert), MODULE_API(ListDelete),
    MODULE_API(ZsetAdd), MODULE_API(ZsetIncrby), MODULE_API(ZsetRem), MODULE_API(ZsetScore),
    MODULE_API(ZsetFirstInScoreRange), MODULE_API(ZsetLastInScoreRange), MODULE_API(ZsetFirstInLexRange),
    MODULE_API(ZsetLastInLexRange), MODULE_API(ZsetRangeCurrentElement), MODULE_API(ZsetRangeNext),
    MODULE_API(ZsetRangePrev), MODULE_API(ZsetRangeEndReached), MODULE_API(ZsetRangeStop),
};

int moduleKeysGetApi(const char *name, void *target) {
    return MODULE_API_LOOKUP(keys_table, name, target);
}
