/* db.c -- the keyspace API: the only way commands read, add, replace and
 * delete keys.
 *
 * Each database is a dict from sds key to robj value, plus an `expires` dict
 * that maps the *same* sds key (shared, not copied) to an absolute unix time
 * in milliseconds. Keeping every access behind these functions means lazy
 * expiry, LRU/LFU bookkeeping, hit/miss statistics, WATCH invalidation and
 * keyspace notifications happen in one place, and the storage layout can
 * change without touching command code.
 *
 * Hooks for features that arrive later (WATCH, blocking pops, keyspace
 * notifications) are function pointers set by those modules, so this file
 * has no compile-time dependency on them.
 */
#include "server.h"

void (*keyModifiedHook)(redisDb *db, robj *key) = NULL;   /* WATCH */
void (*keyReadyHook)(redisDb *db, robj *key) = NULL;      /* blocking pops */
void (*dbFlushedHook)(int dbid) = NULL;                   /* WATCH on FLUSH*, SWAPDB */

/* ---- dict types ---------------------------------------------------------------- */

static uint64_t dictSdsHash(const void *key) { return dictGenHashFunction(key, sdslen((sds)key)); }

static int dictSdsKeyCompare(dict *d, const void *a, const void *b) {
    (void)d;
    size_t la = sdslen((sds)a), lb = sdslen((sds)b);
    return la == lb && memcmp(a, b, la) == 0;
}

static void dictSdsDestructor(dict *d, void *key) { (void)d; sdsfree(key); }
static void dictObjectDestructor(dict *d, void *val) { (void)d; if (val) decrRefCount(val); }

static int dictExpandAllowed(size_t moreMem, double usedRatio) {
    if (usedRatio <= 1.618) return !server.maxmemory || zmalloc_used_memory() + moreMem <= server.maxmemory;
    return 1;
}

dictType dbDictType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .keyDestructor = dictSdsDestructor,
    .valDestructor = dictObjectDestructor,
    .expandAllowed = dictExpandAllowed,
};

/* expires shares its keys with the main dict: no key destructor. */
dictType dbExpiresDictType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .expandAllowed = dictExpandAllowed,
};

void initDb(redisDb *db, int id) {
    db->dict = dictCreate(&dbDictType);
    db->expires = dictCreate(&dbExpiresDictType);
    db->blocking_keys = NULL;
    db->watched_keys = NULL;
    db->id = id;
    db->avg_ttl = 0;
    db->expires_cursor = 0;
}

/* ---- lookups -------------------------------------------------------------------- */

static void updateAccessTime(robj *val) {
    if (server.maxmemory_policy & MAXMEMORY_FLAG_LFU) updateLFU(val);
    else val->lru = LRU_CLOCK();
}

robj *lookupKey(redisDb *db, robj *key, int flags) {
    dictEntry *de = dictFind(db->dict, key->ptr);
    robj *val = NULL;
    if (de) {
        val = dictGetVal(de);
        if (!(flags & LOOKUP_NOEXPIRE) && expireIfNeeded(db, key, flags)) val = NULL;
    }
    if (val) {
        if (!(flags & LOOKUP_NOTOUCH) && !(server.current_client && server.current_client->flags & CLIENT_NO_TOUCH))
            updateAccessTime(val);
        if (!(flags & (LOOKUP_NOSTATS | LOOKUP_WRITE))) server.stat_keyspace_hits++;
    } else if (!(flags & (LOOKUP_NOSTATS | LOOKUP_WRITE))) {
        server.stat_keyspace_misses++;
    }
    return val;
}

robj *lookupKeyReadWithFlags(redisDb *db, robj *key, int flags) { return lookupKey(db, key, flags); }
robj *lookupKeyRead(redisDb *db, robj *key) { return lookupKey(db, key, LOOKUP_NONE); }
robj *lookupKeyWriteWithFlags(redisDb *db, robj *key, int flags) { return lookupKey(db, key, flags | LOOKUP_WRITE); }
robj *lookupKeyWrite(redisDb *db, robj *key) { return lookupKey(db, key, LOOKUP_WRITE); }

robj *lookupKeyReadOrReply(client *c, robj *key, robj *reply) {
    robj *o = lookupKeyRead(c->db, key);
    if (!o) addReplyOrNull(c, reply);
    return o;
}

robj *lookupKeyWriteOrReply(client *c, robj *key, robj *reply) {
    robj *o = lookupKeyWrite(c->db, key);
    if (!o) addReplyOrNull(c, reply);
    return o;
}

/* ---- adding, replacing, deleting -------------------------------------------------- */

void dbAdd(redisDb *db, robj *key, robj *val) {
    sds copy = sdsdup(key->ptr);
    int added = dictAdd(db->dict, copy, val);
    serverAssert(added == DICT_OK);
    if (keyReadyHook && (val->type != OBJ_STRING)) keyReadyHook(db, key);
}

/* Used when loading data: takes ownership of `key`; returns 0 if it existed. */
int dbAddRDBLoad(redisDb *db, sds key, robj *val) {
    return dictAdd(db->dict, key, val) == DICT_OK;
}

void dbOverwrite(redisDb *db, robj *key, robj *val) {
    dictEntry *de = dictFind(db->dict, key->ptr);
    serverAssert(de != NULL);
    robj *old = dictGetVal(de);
    if (server.maxmemory_policy & MAXMEMORY_FLAG_LFU) val->lru = old->lru; /* keep the frequency */
    dictSetVal(db->dict, de, val);
    decrRefCount(old);
}

/* The high-level "key now holds val" used by SET and friends: adds or
 * overwrites, takes its own reference to val, clears the TTL unless asked
 * not to, and signals the modification. */
void setKey(client *c, redisDb *db, robj *key, robj *val, int flags) {
    int exists;
    if (flags & SETKEY_ALREADY_EXIST) exists = 1;
    else if (flags & SETKEY_DOESNT_EXIST) exists = 0;
    else exists = lookupKeyWrite(db, key) != NULL;
    if (exists) dbOverwrite(db, key, val);
    else dbAdd(db, key, val);
    incrRefCount(val);
    if (!(flags & SETKEY_KEEPTTL)) removeExpire(db, key);
    if (!(flags & SETKEY_NO_SIGNAL)) signalModifiedKey(c, db, key);
}

int dbExists(redisDb *db, robj *key) { return dictFind(db->dict, key->ptr) != NULL; }

int dbSyncDelete(redisDb *db, robj *key) {
    if (dictSize(db->expires) > 0) dictDelete(db->expires, key->ptr);
    return dictDelete(db->dict, key->ptr) == DICT_OK;
}

/* Values are freed in the main thread for now; "async" keeps the API (and
 * UNLINK/FLUSH ASYNC semantics towards clients) for a background freer. */
int dbAsyncDelete(redisDb *db, robj *key) { return dbSyncDelete(db, key); }

int dbDelete(redisDb *db, robj *key) { return dbSyncDelete(db, key); }

/* Turns a possibly shared or embedded string value into a private raw one
 * that may be modified in place (APPEND, SETRANGE). */
robj *dbUnshareStringValue(redisDb *db, robj *key, robj *o) {
    serverAssert(o->type == OBJ_STRING);
    if (o->refcount != 1 || o->encoding != OBJ_ENCODING_RAW) {
        robj *decoded = getDecodedObject(o);
        o = createRawStringObject(decoded->ptr, sdslen(decoded->ptr));
        decrRefCount(decoded);
        dbOverwrite(db, key, o);
    }
    return o;
}

/* A random key that is not logically expired, or NULL if the db is empty.
 * Every expired key sampled on the way is deleted, so the loop ends after at
 * most as many iterations as the db has keys. */
robj *dbRandomKey(redisDb *db) {
    for (;;) {
        dictEntry *de = dictGetFairRandomKey(db->dict);
        if (de == NULL) return NULL;
        robj *keyobj = createStringObject(dictGetKey(de), sdslen(dictGetKey(de)));
        if (dictFind(db->expires, dictGetKey(de)) && expireIfNeeded(db, keyobj, 0)) {
            decrRefCount(keyobj);
            continue;
        }
        return keyobj;
    }
}

/* Empties one db (dbnum >= 0) or all (-1); returns the number of keys removed. */
long long emptyData(int dbnum, int flags, void(callback)(dict *)) {
    (void)flags;
    long long removed = 0;
    int start = dbnum == -1 ? 0 : dbnum;
    int end = dbnum == -1 ? server.dbnum - 1 : dbnum;
    for (int j = start; j <= end; j++) {
        removed += (long long)dictSize(server.db[j].dict);
        dictEmpty(server.db[j].dict, callback);
        dictEmpty(server.db[j].expires, callback);
        server.db[j].avg_ttl = 0;
        server.db[j].expires_cursor = 0;
    }
    return removed;
}

int selectDb(client *c, int id) {
    if (id < 0 || id >= server.dbnum) return C_ERR;
    c->db = &server.db[id];
    return C_OK;
}

long long dbTotalServerKeyCount(void) {
    long long total = 0;
    for (int j = 0; j < server.dbnum; j++) total += (long long)dictSize(server.db[j].dict);
    return total;
}

/* ---- signals ------------------------------------------------------------------------ */

void signalModifiedKey(client *c, redisDb *db, robj *key) {
    (void)c;
    if (keyModifiedHook) keyModifiedHook(db, key);
}

void signalFlushedDb(int dbid, int async) {
    (void)async;
    if (dbFlushedHook) dbFlushedHook(dbid);
}
