/* module_scan.c -- the scan API of Redis 7.0 modules: ScanCursorCreate,
 * ScanCursorRestart, ScanCursorDestroy, Scan (the keys of the context's
 * database) and ScanKey (the fields of one hash, set or sorted set).
 *
 * Decisions:
 * - Scan walks the keyspace with the kvtable's own cursor (kvtableScan, as
 *   SCAN does), one step per call, so a key present from the first call to
 *   the last is seen at least once whatever is added or deleted between.
 *   The step's key names are copied first and the callbacks run after, so
 *   a callback may change the keyspace (even delete keys) without
 *   disturbing the walk; a key deleted before its turn is skipped.
 * - The callback gets the key name and a key handle opened for reading;
 *   both live only for the callback (the module retains the name to keep
 *   it), as in Redis. Expired keys are not expired here: the handle's first
 *   use does that, as OpenKey's would.
 * - ScanKey reuses the HSCAN/SSCAN/ZSCAN walkers (setScan, hashScan,
 *   zsetScan): a compact encoding (listpack, intset) is given whole in one
 *   call, a hash table one bounded step at a time. Sorted-set scores come
 *   as ZSCAN prints them. Fields are copied before the callbacks run.
 * - Errors as 7.0: no key, an empty key or a type other than hash, set and
 *   sorted set is EINVAL; a finished cursor is ENOENT; otherwise errno is
 *   0 and the answer is 1 while more is left, 0 after the last step.
 */
#include "module_int.h"

#include <errno.h>

typedef struct redisObject RString;

/* A module's cursor (RedisModuleScanCursor). */
typedef struct moduleScanCursor {
    unsigned long cursor;
    int done;
} moduleScanCursor;

typedef void (*moduleScanCB)(RedisModuleCtx *ctx, RString *keyname, moduleKey *key, void *privdata);
typedef void (*moduleScanKeyCB)(moduleKey *key, RString *field, RString *value, void *privdata);

static moduleScanCursor *RM_ScanCursorCreate(void) { return zcalloc(sizeof(moduleScanCursor)); }

static void RM_ScanCursorRestart(moduleScanCursor *cursor) {
    cursor->cursor = 0;
    cursor->done = 0;
}

static void RM_ScanCursorDestroy(moduleScanCursor *cursor) { zfree(cursor); }

static list *createNameList(void) {
    list *l = listCreate();
    listSetFreeMethod(l, (void (*)(void *))sdsfree);
    return l;
}

/* Records the cursor's next value: 1 while there is more, 0 (done) after. */
static int cursorAdvance(moduleScanCursor *cursor, unsigned long next) {
    errno = 0;
    cursor->cursor = next;
    if (next == 0) cursor->done = 1;
    return next != 0;
}

/* ---- the keyspace ------------------------------------------------------------------------- */

static void collectName(void *privdata, kvobj *o) {
    listAddNodeTail(privdata, sdsdup(kvobjGetKey(o)));
}

/* One key's callback, if the key is still there: a read handle that lives
 * for the call only (it is in no auto-memory list). */
static void scanOneKey(RedisModuleCtx *ctx, redisDb *db, sds name, moduleScanCB fn, void *privdata) {
    if (kvtableFind(db->keys, name, sdslen(name)) == NULL) return;
    moduleKey *k = zcalloc(sizeof(*k));
    k->ctx = ctx;
    k->db = db;
    k->key = createStringObject(name, sdslen(name));
    k->mode = MODAPI_KEY_READ;
    RString *keyname = createStringObject(name, sdslen(name));
    fn(ctx, keyname, k, privdata);
    decrRefCount(keyname);
    moduleKeyClose(k);
}

static int RM_Scan(RedisModuleCtx *ctx, moduleScanCursor *cursor, moduleScanCB fn, void *privdata) {
    if (cursor->done) {
        errno = ENOENT;
        return 0;
    }
    redisDb *db = ctx->client ? ctx->client->db : server.db;
    list *names = createNameList();
    unsigned long next = kvtableScan(db->keys, cursor->cursor, collectName, names);
    listIter li;
    listNode *ln;
    listRewind(names, &li);
    while ((ln = listNext(&li)) != NULL) scanOneKey(ctx, db, listNodeValue(ln), fn, privdata);
    listRelease(names);
    return cursorAdvance(cursor, next);
}

/* ---- one key's fields ------------------------------------------------------------------------ */

static int RM_ScanKey(moduleKey *key, moduleScanCursor *cursor, moduleScanKeyCB fn, void *privdata) {
    robj *o = key ? moduleKeyValue(key) : NULL;
    if (o == NULL || (o->type != OBJ_HASH && o->type != OBJ_SET && o->type != OBJ_ZSET)) {
        errno = EINVAL;
        return 0;
    }
    if (cursor->done) {
        errno = ENOENT;
        return 0;
    }
    list *items = createNameList();
    uint64_t next;
    if (o->type == OBJ_SET) next = setScan(o, cursor->cursor, 1, items);
    else if (o->type == OBJ_HASH) next = hashScan(o, cursor->cursor, 1, items);
    else next = zsetScan(o, cursor->cursor, 1, items);
    int pairs = o->type != OBJ_SET;
    listIter li;
    listNode *ln;
    listRewind(items, &li);
    while ((ln = listNext(&li)) != NULL) {
        sds f = listNodeValue(ln);
        listNode *vn = pairs ? listNext(&li) : NULL;
        RString *field = createStringObject(f, sdslen(f));
        RString *value = vn ? createStringObject(listNodeValue(vn), sdslen(listNodeValue(vn))) : NULL;
        fn(key, field, value, privdata);
        decrRefCount(field);
        if (value) decrRefCount(value);
    }
    listRelease(items);
    return cursorAdvance(cursor, (unsigned long)next);
}

/* ---- the lookup ------------------------------------------------------------------------------ */

static const moduleApiEntry scan_table[] = {
    MODULE_API(ScanCursorCreate), MODULE_API(ScanCursorRestart), MODULE_API(ScanCursorDestroy),
    MODULE_API(Scan),             MODULE_API(ScanKey),
};

int moduleScanGetApi(const char *name, void *target) {
    return MODULE_API_LOOKUP(scan_table, name, target);
}
