/* db.c -- the keyspace API: the only way commands read, add, replace and
 * delete keys.
 *
 * Each database is a kvtable (kvtable.h) of kvobjs (kvobj.h): every key is
 * ONE allocation holding the value object, the key, the hash-chain link,
 * an optional expire time and, for short strings, the value itself. The
 * `expires` dict lists the keys that have a TTL, for active expiry and
 * INFO: its key is the kvobj's own embedded key sds (not a copy) and its
 * value the kvobj. Invariant: a kvobj is in `expires` exactly when
 * kvobjHasExpire() is true, and the entry points at the current block --
 * so whenever a kvobj is replaced (overwrite) or rebuilt (adding an expire
 * slot moves it) the entry is updated before the old block is freed.
 * The TTL itself is read from the kvobj, never from the dict.
 *
 * Ownership: dbAdd/dbOverwrite consume a reference to the value they are
 * given (copying short strings into the kvobj, taking over other payloads;
 * see kvobjCreate) and return the stored object; callers that go on
 * modifying the value must use the returned pointer. Keeping every access behind these functions means lazy
 * expiry, LRU/LFU bookkeeping, hit/miss statistics, WATCH invalidation and
 * keyspace notifications happen in one place, and the storage layout can
 * change without touching command code.
 *
 * What a change means to other modules is called directly from the
 * signal functions at the end of this file (WATCH, client-side caching,
 * blocked clients) and from dbAdd (a new list or sorted set may serve a
 * blocked client), so a grep leads from a change to everything it causes.
 */
#include "server.h"
#include "tracking.h"
#include "snapshot.h"
#include "lazyfree.h"

/* ---- table types ---------------------------------------------------------------- */

static void keyspaceEntryDestructor(kvobj *o) { decrRefCount(o); }

static int dictExpandAllowed(size_t moreMem, double usedRatio) {
    if (usedRatio <= 1.618) return !server.maxmemory || zmalloc_used_memory() + moreMem <= server.maxmemory;
    return 1;
}

static kvtableType dbKeyspaceType = {
    .entryDestructor = keyspaceEntryDestructor,
    .expandAllowed = dictExpandAllowed,
};

/* expires borrows both its keys and its values from the keyspace. */
static dictType dbExpiresDictType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .expandAllowed = dictExpandAllowed,
};

void initDb(redisDb *db, int id) {
    db->keys = kvtableCreate(&dbKeyspaceType);
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

static kvobj *dbFind(redisDb *db, robj *key) {
    return kvtableFind(db->keys, key->ptr, sdslen(key->ptr));
}

static robj *lookupKey(redisDb *db, robj *key, int flags) {
    if (flags & LOOKUP_WRITE) snapshotBeforeKeyWrite(db, key->ptr); /* a forkless snapshot's write barrier */
    robj *val = dbFind(db, key);
    if (val && kvobjHasExpire(val) && !(flags & LOOKUP_NOEXPIRE) && expireIfNeeded(db, key, flags))
        val = NULL;
    if (val) {
        if (!(flags & LOOKUP_NOTOUCH) && !snapshotForkChildExists())
            updateAccessTime(val); /* not while a fork child shares the pages (server.c) */
        if (!(flags & (LOOKUP_NOSTATS | LOOKUP_WRITE))) server.stat_keyspace_hits++;
    } else {
        if (!(flags & (LOOKUP_NOSTATS | LOOKUP_WRITE))) server.stat_keyspace_misses++;
        if (!(flags & (LOOKUP_NONOTIFY | LOOKUP_WRITE))) notifyKeyspaceEvent(NOTIFY_KEY_MISS, "keymiss", key, db->id);
    }
    return val;
}

robj *lookupKeyReadWithFlags(redisDb *db, robj *key, int flags) { return lookupKey(db, key, flags); }
robj *lookupKeyRead(redisDb *db, robj *key) { return lookupKey(db, key, LOOKUP_NONE); }
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

/* Points db->expires at o (just stored or rebuilt) when it has a TTL. The
 * dict's entry for the same key, if any, is re-keyed to o's own key sds. */
void dbTrackExpire(redisDb *db, kvobj *o) {
    if (!kvobjHasExpire(o)) return;
    sds key = kvobjGetKey(o);
    dictEntry *existing, *de = dictAddRaw(db->expires, key, &existing);
    if (de == NULL) {
        de = existing;
        dictSetKey(db->expires, de, key);
    }
    dictSetVal(db->expires, de, o);
}

/* Wraps val (consuming the caller's reference) as the kvobj for key. A
 * shared value (small integer) carries no access clock of its own: the
 * entry starts one. */
static kvobj *dbCreateEntry(robj *key, robj *val, long long when) {
    int was_shared = val->refcount == OBJ_SHARED_REFCOUNT;
    kvobj *o = kvobjCreate(key->ptr, sdslen(key->ptr), val, when);
    if (was_shared) o->lru = (server.maxmemory_policy & MAXMEMORY_FLAG_LFU) ? lfuInitialClock() : LRU_CLOCK();
    return o;
}

robj *dbAddWithExpire(redisDb *db, robj *key, robj *val, long long when) {
    snapshotBeforeKeyWrite(db, key->ptr);
    kvobj *o = dbCreateEntry(key, val, when);
    int added = kvtableAdd(db->keys, o, NULL);
    serverAssert(added == KVTABLE_OK);
    clusterKeyAdded(db->id, key->ptr, sdslen(key->ptr)); /* per-slot key counts */
    dbTrackExpire(db, o);
    if (o->type != OBJ_STRING) signalKeyAsReady(db, key, (int)o->type); /* blocked clients */
    notifyKeyspaceEvent(NOTIFY_NEW, "new", key, db->id);
    return o;
}

robj *dbAdd(redisDb *db, robj *key, robj *val) { return dbAddWithExpire(db, key, val, -1); }

/* The clock a replaced value carries on: LFU keeps the key's frequency; a
 * shared value has no clock of its own. */
static unsigned int replacementClock(kvobj *old, robj *val) {
    if (server.maxmemory_policy & MAXMEMORY_FLAG_LFU) return old->lru;
    return val->refcount == OBJ_SHARED_REFCOUNT ? LRU_CLOCK() : val->lru;
}

/* Replaces the value of an existing key, keeping its TTL if keepTtl. A
 * string key whose block can hold the new value keeps its block; otherwise
 * a new entry takes the old one's place. */
/* Gives the existing entry OLD of KEY the value VAL (consumed); returns
 * the stored object, which may be a new block. */
static kvobj *dbReplaceEntry(redisDb *db, kvobj *old, robj *key, robj *val, int keepTtl) {
    snapshotBeforeKeyWrite(db, key->ptr);
    unsigned int clock = replacementClock(old, val);
    /* One test on the common path: the two types with something to do are
     * the highest (lib/object.h), everything else is below OBJ_MODULE. */
    if (old->type >= OBJ_MODULE) {
        if (old->type == OBJ_STREAM) signalKeyAsReady(db, key, OBJ_STREAM); /* XREADGROUP hears it is gone */
        /* an overwrite is an unlink then an add to a module, as in Redis 7.0 */
        if (old->type == OBJ_MODULE) moduleNotifyKeyUnlink(key, old, db->id);
    }
    if (!keepTtl && kvobjHasExpire(old)) {
        dictDelete(db->expires, key->ptr);
        kvobjSetExpire(old, -1); /* in place: the slot exists */
    }
    kvobj *o = kvobjReplaceValue(old, val);
    if (o == NULL) {
        o = dbCreateEntry(key, val, kvobjGetExpire(old));
        kvobj *replaced = kvtableReplace(db->keys, o);
        serverAssert(replaced == old);
        dbTrackExpire(db, o); /* re-keys the entry before old is freed */
        decrRefCount(old);
    }
    o->lru = clock;
    return o;
}

static kvobj *dbReplaceValue(redisDb *db, robj *key, robj *val, int keepTtl) {
    kvobj *old = dbFind(db, key);
    serverAssert(old != NULL);
    return dbReplaceEntry(db, old, key, val, keepTtl);
}

robj *dbOverwrite(redisDb *db, robj *key, robj *val) { return dbReplaceValue(db, key, val, 1); }

/* The high-level "key now holds val" used by SET and friends: adds or
 * overwrites (the caller keeps its own reference to val), clears the TTL
 * unless asked not to, and signals the modification. */
void setKey(client *c, redisDb *db, robj *key, robj *val, int flags) {
    incrRefCount(val); /* the keyspace's reference, consumed below */
    setKeyTake(c, db, key, val, flags);
}

/* setKey() for a value made just for the key: the caller's reference is
 * consumed, so a large new value is moved into the keyspace, not copied. */
void setKeyTake(client *c, redisDb *db, robj *key, robj *val, int flags) {
    if (flags & SETKEY_ALREADY_EXIST) dbReplaceValue(db, key, val, flags & SETKEY_KEEPTTL);
    else if (flags & SETKEY_DOESNT_EXIST) dbAdd(db, key, val);
    else {
        setKeyFound(c, db, key, val, lookupKeyWrite(db, key), flags);
        return;
    }
    if (!(flags & SETKEY_NO_SIGNAL)) signalModifiedKey(c, db, key);
}

/* setKeyTake() for a caller that has just looked the key up with
 * lookupKeyWrite(), which returned EXISTING (NULL: no such key): the entry
 * found is the one replaced, so the key is hashed once, not twice. */
void setKeyFound(client *c, redisDb *db, robj *key, robj *val, robj *existing, int flags) {
    if (existing) dbReplaceEntry(db, existing, key, val, flags & SETKEY_KEEPTTL);
    else dbAdd(db, key, val);
    if (!(flags & SETKEY_NO_SIGNAL)) signalModifiedKey(c, db, key);
}

int dbExists(redisDb *db, robj *key) { return dbFind(db, key) != NULL; }

robj *dbDetach(redisDb *db, robj *key) {
    snapshotBeforeKeyWrite(db, key->ptr);
    kvobj *o = kvtableUnlink(db->keys, key->ptr, sdslen(key->ptr));
    if (o && kvobjHasExpire(o)) dictDelete(db->expires, key->ptr);
    if (o) clusterKeyRemoved(db->id, key->ptr, sdslen(key->ptr));
    if (o && o->type == OBJ_STREAM) signalKeyAsReady(db, key, OBJ_STREAM); /* XREADGROUP hears it is gone */
    if (o && o->type == OBJ_MODULE) moduleNotifyKeyUnlink(key, o, db->id); /* the type's unlink(2) */
    return o;
}

int dbSyncDelete(redisDb *db, robj *key) {
    robj *o = dbDetach(db, key);
    if (o == NULL) return 0;
    decrRefCount(o);
    return 1;
}

/* UNLINK's delete: a value costly to free is freed by lazyfree.c's thread. */
int dbAsyncDelete(redisDb *db, robj *key) {
    robj *o = dbDetach(db, key);
    if (o == NULL) return 0;
    lazyfreeValue(o, db->id);
    return 1;
}

/* The server's own deletes (a key overwritten by RENAME, a STORE target, a
 * RESTORE REPLACE ...): lazy with lazyfree-lazy-server-del, as in Redis. */
int dbDelete(redisDb *db, robj *key) {
    return server.lazyfree_lazy_server_del ? dbAsyncDelete(db, key) : dbSyncDelete(db, key);
}

/* Turns a possibly shared or embedded string value into a private raw one
 * that may be modified in place (APPEND, SETRANGE). */
robj *dbUnshareStringValue(redisDb *db, robj *key, robj *o) {
    serverAssert(o->type == OBJ_STRING);
    snapshotBeforeKeyWrite(db, key->ptr); /* modified in place next (PFCOUNT's cache after a read lookup) */
    if (o->refcount != 1 || o->encoding != OBJ_ENCODING_RAW) {
        robj *decoded = getDecodedObject(o);
        robj *raw = createRawStringObject(decoded->ptr, sdslen(decoded->ptr));
        decrRefCount(decoded);
        o = dbOverwrite(db, key, raw);
    }
    return o;
}

/* A random key that is not logically expired, or NULL if the db is empty.
 * Every expired key sampled on the way is deleted, so the loop ends after at
 * most as many iterations as the db has keys. */
robj *dbRandomKey(redisDb *db) {
    for (;;) {
        kvobj *o = kvtableGetFairRandomKey(db->keys);
        if (o == NULL) return NULL;
        sds key = kvobjGetKey(o);
        robj *keyobj = createStringObject(key, sdslen(key));
        if (kvobjHasExpire(o) && expireIfNeeded(db, keyobj, 0)) {
            decrRefCount(keyobj);
            continue;
        }
        return keyobj;
    }
}

/* Empties one db (dbnum >= 0) or all (-1); returns the number of keys
 * removed. With `async` the old tables are freed in the background. */
long long emptyData(int dbnum, int async) {
    long long removed = 0;
    moduleFireFlushDB(0, async, dbnum); /* modules' FlushDB start and end events (module_events.c) */
    int start = dbnum == -1 ? 0 : dbnum;
    int end = dbnum == -1 ? server.dbnum - 1 : dbnum;
    for (int j = start; j <= end; j++) {
        removed += (long long)kvtableSize(server.db[j].keys);
        snapshotBeforeEmpty(&server.db[j]); /* a forkless snapshot keeps the table it still writes */
        if (async && kvtableSize(server.db[j].keys)) {
            lazyfreeDbTables(&server.db[j]);
        } else {
            dictEmpty(server.db[j].expires, NULL); /* borrows from keys: first */
            kvtableEmpty(server.db[j].keys, NULL);
        }
        clusterKeysFlushed(j);
        server.db[j].avg_ttl = 0;
        server.db[j].expires_cursor = 0;
    }
    if (dbnum == -1) forgetReplicaKeysWithExpire();
    moduleFireFlushDB(1, async, dbnum);
    return removed;
}

int selectDb(client *c, int id) {
    if (id < 0 || id >= server.dbnum) return C_ERR;
    c->db = &server.db[id];
    return C_OK;
}

long long dbTotalServerKeyCount(void) {
    long long total = 0;
    for (int j = 0; j < server.dbnum; j++) total += (long long)kvtableSize(server.db[j].keys);
    return total;
}

/* ---- signals ------------------------------------------------------------------------ */

void signalModifiedKey(client *c, redisDb *db, robj *key) {
    touchWatchedKey(db, key); /* WATCH */
    if (unlikely(server.tracking_clients)) trackingInvalidateKey(c, key); /* client-side caching */
}

void signalFlushedDb(int dbid) {
    touchWatchedKeysOnFlush(dbid); /* WATCH */
    blockedDbFlushed(dbid);         /* XREADGROUP hears its stream is gone */
    if (server.tracking_clients) trackingInvalidateKeysOnFlush();
}

void signalSwappedDb(int id1, int id2) {
    touchWatchedKeysOnSwap(id1, id2); /* WATCH */
    blockedDbSwapped(id1, id2);        /* a waited-for key may exist now */
}
