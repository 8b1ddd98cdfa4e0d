/* keyspace.c -- the type-independent key commands: DEL, UNLINK, EXISTS,
 * TYPE, RENAME(NX), MOVE, COPY, KEYS, SCAN, RANDOMKEY, TOUCH, DBSIZE,
 * FLUSHDB, FLUSHALL and SWAPDB.
 *
 * They reach the data only through db.c, so expiry, statistics and
 * notifications behave the same as for typed commands. SCAN's cursor is the
 * dict's reverse-binary cursor: every key present for the whole iteration is
 * returned at least once even while the table is resized. HSCAN, SSCAN and
 * ZSCAN are scanKeyOfTypeCommand() here too (cursor and options parsed once,
 * one reply format); scanCollection() calls the type's scanner (setScan,
 * hashScan, zsetScan) by a switch, and the table encodings walk their dict
 * with scanDictBounded(). Cursors are 64-bit on every build.
 */
#include <ctype.h>
#include <errno.h>

#include "server.h"

/* ---- deleting and testing ------------------------------------------------------ */

static void delGenericCommand(client *c, int lazy) {
    long long deleted = 0;
    for (int j = 1; j < c->argc; j++) {
        expireIfNeeded(c->db, c->argv[j], 0);
        int ok = lazy ? dbAsyncDelete(c->db, c->argv[j]) : dbSyncDelete(c->db, c->argv[j]);
        if (!ok) continue;
        signalModifiedKey(c, c->db, c->argv[j]);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "del", c->argv[j], c->db->id);
        server.dirty++;
        deleted++;
    }
    addReplyLongLong(c, deleted);
}

void delCommand(client *c) { delGenericCommand(c, server.lazyfree_lazy_user_del); }
void unlinkCommand(client *c) { delGenericCommand(c, 1); }

void existsCommand(client *c) {
    long long count = 0;
    for (int j = 1; j < c->argc; j++)
        if (lookupKeyReadWithFlags(c->db, c->argv[j], LOOKUP_NOTOUCH)) count++;
    addReplyLongLong(c, count);
}

void touchCommand(client *c) {
    long long touched = 0;
    for (int j = 1; j < c->argc; j++)
        if (lookupKeyRead(c->db, c->argv[j]) != NULL) touched++;
    addReplyLongLong(c, touched);
}

void typeCommand(client *c) {
    robj *o = lookupKeyReadWithFlags(c->db, c->argv[1], LOOKUP_NOTOUCH);
    if (o && o->type == OBJ_MODULE) addReplyStatus(c, moduleValueTypeName(o));
    else addReplyStatus(c, o ? strObjectType(o->type) : "none");
}

/* ---- renaming, moving, copying ------------------------------------------------------ */

static void renameGenericCommand(client *c, int nx) {
    robj *src = c->argv[1], *dst = c->argv[2];
    int samekey = sdscmp(src->ptr, dst->ptr) == 0;
    robj *o = lookupKeyWriteOrReply(c, src, shared.nokeyerr);
    if (o == NULL) return;
    if (samekey) {
        addReply(c, nx ? shared.czero : shared.ok);
        return;
    }
    if (lookupKeyWrite(c->db, dst) != NULL) {
        if (nx) {
            addReply(c, shared.czero);
            return;
        }
        dbDelete(c->db, dst);
    }
    /* The entry is rebuilt under the new key, its payload moved over. */
    long long expire = kvobjGetExpire(o);
    dbAddWithExpire(c->db, dst, dbDetach(c->db, src), expire);
    signalModifiedKey(c, c->db, src);
    signalModifiedKey(c, c->db, dst);
    notifyKeyspaceEvent(NOTIFY_GENERIC, "rename_from", src, c->db->id);
    notifyKeyspaceEvent(NOTIFY_GENERIC, "rename_to", dst, c->db->id);
    server.dirty++;
    addReply(c, nx ? shared.cone : shared.ok);
}

void renameCommand(client *c) { renameGenericCommand(c, 0); }
void renamenxCommand(client *c) { renameGenericCommand(c, 1); }

static int parseDbIndexOrReply(client *c, robj *arg, int *dbid) {
    if (getIntFromObjectOrReply(c, arg, dbid, NULL) != C_OK) return C_ERR;
    if (*dbid < 0 || *dbid >= server.dbnum) {
        addReplyError(c, "DB index is out of range");
        return C_ERR;
    }
    return C_OK;
}

void moveCommand(client *c) {
    int dbid;
    if (server.cluster_enabled) {
        addReplyError(c, "MOVE is not allowed in cluster mode");
        return;
    }
    if (parseDbIndexOrReply(c, c->argv[2], &dbid) != C_OK) return;
    redisDb *src = c->db, *dst = &server.db[dbid];
    if (src == dst) {
        addReplyErrorObject(c, shared.sameobjecterr);
        return;
    }
    robj *o = lookupKeyWrite(src, c->argv[1]);
    if (o == NULL || lookupKeyWrite(dst, c->argv[1]) != NULL) {
        addReply(c, shared.czero);
        return;
    }
    long long expire = kvobjGetExpire(o);
    dbAddWithExpire(dst, c->argv[1], dbDetach(src, c->argv[1]), expire);
    signalModifiedKey(c, src, c->argv[1]);
    signalModifiedKey(c, dst, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_GENERIC, "move_from", c->argv[1], src->id);
    notifyKeyspaceEvent(NOTIFY_GENERIC, "move_to", c->argv[1], dst->id);
    server.dirty++;
    addReply(c, shared.cone);
}

static robj *dupObject(robj *o) {
    switch (o->type) {
    case OBJ_STRING: return dupStringObject(o);
    case OBJ_LIST: return dupListObject(o);
    case OBJ_SET: return dupSetObject(o);
    case OBJ_ZSET: return dupZsetObject(o);
    case OBJ_HASH: return dupHashObject(o);
    case OBJ_STREAM: return dupStreamObject(o);
    }
    serverPanic("COPY: no dup function for type %d", o->type);
}

void copyCommand(client *c) {
    redisDb *dst = c->db;
    int replace = 0;
    for (int j = 3; j < c->argc; j++) {
        int more = c->argc - j - 1;
        if (!strcasecmp(c->argv[j]->ptr, "replace")) {
            replace = 1;
        } else if (!strcasecmp(c->argv[j]->ptr, "db") && more) {
            int dbid;
            if (getIntFromObjectOrReply(c, c->argv[++j], &dbid, NULL) != C_OK) return;
            if (dbid < 0 || dbid >= server.dbnum) {
                addReplyError(c, "DB index is out of range");
                return;
            }
            dst = &server.db[dbid];
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    if (server.cluster_enabled && dst != c->db) {
        addReplyError(c, "Copying to another database is not allowed in cluster mode");
        return;
    }
    robj *key = c->argv[1], *newkey = c->argv[2];
    if (dst == c->db && sdscmp(key->ptr, newkey->ptr) == 0) {
        addReplyErrorObject(c, shared.sameobjecterr);
        return;
    }
    robj *o = lookupKeyRead(c->db, key);
    if (o == NULL) {
        addReply(c, shared.czero);
        return;
    }
    long long expire = kvobjGetExpire(o);
    int exists = lookupKeyWrite(dst, newkey) != NULL;
    if (exists && !replace) {
        addReply(c, shared.czero);
        return;
    }
    /* a module's value is copied by its module, which may refuse (as in Redis, before the delete) */
    robj *copy = o->type == OBJ_MODULE ? moduleDupValueOrReply(c, key, newkey, c->db->id, dst->id, o) : dupObject(o);
    if (copy == NULL) return;
    if (exists) dbDelete(dst, newkey);
    dbAddWithExpire(dst, newkey, copy, expire);
    signalModifiedKey(c, dst, newkey);
    notifyKeyspaceEvent(NOTIFY_GENERIC, "copy_to", newkey, dst->id);
    server.dirty++;
    addReply(c, shared.cone);
}

/* ---- enumerating ------------------------------------------------------------------- */

void keysCommand(client *c) {
    sds pattern = c->argv[1]->ptr;
    int plen = (int)sdslen(pattern), allkeys = pattern[0] == '*' && plen == 1;
    long count = 0;
    void *replylen = addReplyDeferredLen(c);
    kvtableIterator *it = kvtableGetSafeIterator(c->db->keys);
    kvobj *o;
    while ((o = kvtableNext(it)) != NULL) {
        sds key = kvobjGetKey(o);
        if (!allkeys && !stringmatchlen(pattern, plen, key, (int)sdslen(key), 0)) continue;
        int expired = 0;
        if (kvobjHasExpire(o)) {
            robj *keyobj = createStringObject(key, sdslen(key));
            expired = keyIsExpired(c->db, keyobj);
            decrRefCount(keyobj);
        }
        if (expired) continue;
        addReplyBulkCBuffer(c, key, sdslen(key));
        count++;
    }
    kvtableReleaseIterator(it);
    setDeferredArrayLen(c, replylen, count);
}

void randomkeyCommand(client *c) {
    robj *key = dbRandomKey(c->db);
    if (key == NULL) {
        addReplyNull(c);
        return;
    }
    addReplyBulk(c, key);
    decrRefCount(key);
}

/* ---- SCAN, HSCAN, SSCAN, ZSCAN ------------------------------------------------------------ */

/* The cursor as Redis reads it (strtoul() of a 64-bit build): an empty
 * string is 0, a leading '+' or '-' is accepted ("-1" wraps to 2^64-1), a
 * leading space, anything after the digits or a value beyond 2^64-1 is
 * refused. 64-bit on every build, so a 32-bit server takes the cursors a
 * 64-bit one does. */
static int parseScanCursorOrReply(client *c, robj *o, uint64_t *cursor) {
    robj *decoded = getDecodedObject(o);
    const char *s = decoded->ptr;
    char *end;
    errno = 0;
    unsigned long long value = strtoull(s, &end, 10);
    int ok = !isspace((unsigned char)s[0]) && *end == '\0' && errno != ERANGE;
    decrRefCount(decoded);
    if (!ok) {
        addReplyError(c, "invalid cursor");
        return C_ERR;
    }
    *cursor = value;
    return C_OK;
}

typedef struct scanOptions {
    sds pattern;
    long count;
    const char *type;
} scanOptions;

static int parseScanOptions(client *c, int first, int allow_type, scanOptions *opt) {
    opt->pattern = NULL;
    opt->count = 10;
    opt->type = NULL;
    for (int j = first; j < c->argc; j++) {
        int more = c->argc - j - 1;
        const char *name = c->argv[j]->ptr;
        if (!strcasecmp(name, "count") && more) {
            if (getLongFromObjectOrReply(c, c->argv[j + 1], &opt->count, NULL) != C_OK) return C_ERR;
            if (opt->count < 1) {
                addReplyErrorObject(c, shared.syntaxerr);
                return C_ERR;
            }
            j++;
        } else if (!strcasecmp(name, "match") && more) {
            opt->pattern = c->argv[++j]->ptr;
        } else if (!strcasecmp(name, "type") && more && allow_type) {
            opt->type = c->argv[++j]->ptr;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return C_ERR;
        }
    }
    return C_OK;
}

/* One call visits at most 10 * COUNT buckets, empty ones included, so a
 * sparse table still answers promptly (saturating: COUNT may be LONG_MAX). */
static long scanBucketBudget(long count) { return count > LONG_MAX / 10 ? LONG_MAX : count * 10; }

/* The reply of every SCAN: the next cursor, then the items (a list of sds). */
static void addReplyScanResult(client *c, uint64_t cursor, list *items) {
    char buf[24];
    addReplyArrayLen(c, 2);
    addReplyBulkCBuffer(c, buf, (size_t)ull2string(buf, sizeof buf, cursor));
    addReplyArrayLen(c, (long)listLength(items));
    listIter li;
    listNode *ln;
    listRewind(items, &li);
    while ((ln = listNext(&li)) != NULL) {
        sds item = listNodeValue(ln);
        addReplyBulkCBuffer(c, item, sdslen(item));
    }
}

static list *createSdsList(void) {
    list *items = listCreate();
    listSetFreeMethod(items, (void (*)(void *))sdsfree);
    return items;
}

static int patternMatchesAll(const sds pattern) { return pattern == NULL || !strcmp(pattern, "*"); }

/* ---- the keyspace */

static void collectKey(void *privdata, kvobj *o) {
    list *keys = privdata;
    listAddNodeTail(keys, sdsdup(kvobjGetKey(o)));
}

static int keyMatchesScan(client *c, sds key, scanOptions *opt) {
    if (!patternMatchesAll(opt->pattern) &&
        !stringmatchlen(opt->pattern, (int)sdslen(opt->pattern), key, (int)sdslen(key), 0))
        return 0;
    robj *keyobj = createStringObject(key, sdslen(key));
    int keep = !expireIfNeeded(c->db, keyobj, 0);
    if (keep && opt->type) {
        robj *o = lookupKeyReadWithFlags(c->db, keyobj, LOOKUP_NOTOUCH | LOOKUP_NOSTATS);
        keep = o && !strcasecmp(opt->type, strObjectType(o->type));
    }
    decrRefCount(keyobj);
    return keep;
}

/* The keyspace's kvtable has its own cursor walk; only the bits of the
 * cursor below the table size matter, so the narrowing to unsigned long of
 * a 32-bit build (whose tables are below 2^32 buckets) loses nothing. */
static void scanKeyspace(client *c, uint64_t cursor, scanOptions *opt) {
    list *keys = createSdsList();
    long budget = scanBucketBudget(opt->count);
    do {
        cursor = kvtableScan(c->db->keys, (unsigned long)cursor, collectKey, keys);
    } while (cursor && budget-- && (long)listLength(keys) < opt->count);

    listIter li;
    listNode *ln;
    listRewind(keys, &li);
    while ((ln = listNext(&li)) != NULL)
        if (!keyMatchesScan(c, listNodeValue(ln), opt)) listDelNode(keys, ln);
    addReplyScanResult(c, cursor, keys);
    listRelease(keys);
}

void scanCommand(client *c) {
    uint64_t cursor;
    scanOptions opt;
    if (parseScanCursorOrReply(c, c->argv[1], &cursor) != C_OK) return;
    if (parseScanOptions(c, 2, 1, &opt) != C_OK) return;
    scanKeyspace(c, cursor, &opt);
}

/* ---- collections: the scanners of the types */

/* COUNT is a number of entries, as in Redis 7.0: a hash field with its
 * value, or a sorted-set member with its score, is one entry but two items
 * of `out` (pairs), so HSCAN h 0 COUNT 50 answers about 50 fields, not 25. */
uint64_t scanDictBounded(dict *d, uint64_t cursor, long count, int pairs, dictScanFunction *fn, list *out) {
    long budget = scanBucketBudget(count);
    unsigned long per_entry = pairs ? 2 : 1;
    do {
        cursor = dictScan(d, (unsigned long)cursor, fn, out); /* see scanKeyspace() */
    } while (cursor && budget-- && listLength(out) / per_entry < (unsigned long)count);
    return cursor;
}

/* Drops the items whose name does not match MATCH (with its value, for pairs). */
static void filterScanItems(list *items, int pairs, const sds pattern) {
    if (patternMatchesAll(pattern)) return;
    listIter li;
    listNode *ln;
    listRewind(items, &li);
    while ((ln = listNext(&li)) != NULL) {
        sds name = listNodeValue(ln);
        listNode *value = pairs ? listNext(&li) : NULL;
        if (stringmatchlen(pattern, (int)sdslen(pattern), name, (int)sdslen(name), 0)) continue;
        listDelNode(items, ln);
        if (value) listDelNode(items, value);
    }
}

/* Hashes and sorted sets give (name, value) pairs, MATCH applying to the name. */
static void scanCollection(client *c, robj *o, uint64_t cursor, scanOptions *opt) {
    list *items = createSdsList();
    switch (o->type) {
    case OBJ_SET: cursor = setScan(o, cursor, opt->count, items); break;
    case OBJ_HASH: cursor = hashScan(o, cursor, opt->count, items); break;
    case OBJ_ZSET: cursor = zsetScan(o, cursor, opt->count, items); break;
    default:
        listRelease(items);
        addReplyError(c, "SCAN of this type is not supported");
        return;
    }
    filterScanItems(items, o->type != OBJ_SET, opt->pattern);
    addReplyScanResult(c, cursor, items);
    listRelease(items);
}

/* HSCAN/SSCAN/ZSCAN key cursor [MATCH p] [COUNT n], in Redis's order: the
 * cursor (a malformed one is refused even for a missing key), the key (a
 * missing one is a finished, empty scan, whatever the options), its type,
 * then the options. */
void scanKeyOfTypeCommand(client *c, int type) {
    uint64_t cursor;
    scanOptions opt;
    if (parseScanCursorOrReply(c, c->argv[2], &cursor) != C_OK) return;
    robj *o = lookupKeyRead(c->db, c->argv[1]);
    if (o == NULL) {
        list *none = createSdsList();
        addReplyScanResult(c, 0, none);
        listRelease(none);
        return;
    }
    if (checkType(c, o, type) || parseScanOptions(c, 3, 0, &opt) != C_OK) return;
    scanCollection(c, o, cursor, &opt);
}

/* ---- the count of HRANDFIELD and ZRANDMEMBER --------------------------------------------- */

int getRandomCountOrReply(client *c, const char *option, long long *count, int *withpairs) {
    long long value;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &value, NULL) != C_OK) return C_ERR;
    if (value == LLONG_MIN) { /* -count must exist */
        addReplyErrorFormat(c, "value is out of range, value must between %lld and %lld", -LLONG_MAX, LLONG_MAX);
        return C_ERR;
    }
    if (c->argc > 4 || (c->argc == 4 && strcasecmp(c->argv[3]->ptr, option))) {
        addReplyErrorObject(c, shared.syntaxerr);
        return C_ERR;
    }
    *withpairs = c->argc == 4;
    if (*withpairs && (value < -LLONG_MAX / 2 || value > LLONG_MAX / 2)) { /* twice as many items */
        addReplyError(c, "value is out of range");
        return C_ERR;
    }
    *count = value;
    return C_OK;
}

int getRandomRepeatsOrReply(client *c, long long count, long items_per_pick, unsigned long *picks) {
    unsigned long long n = 0 - (unsigned long long)count;
    if (n > (unsigned long long)(LONG_MAX / items_per_pick)) {
        addReplyError(c, "value is out of range");
        return C_ERR;
    }
    *picks = (unsigned long)n;
    return C_OK;
}

/* ---- whole databases ------------------------------------------------------------------- */

void dbsizeCommand(client *c) { addReplyLongLong(c, (long long)kvtableSize(c->db->keys)); }

/* FLUSHDB/FLUSHALL [ASYNC | SYNC]: ASYNC frees the old data in the
 * background (lazyfree.c), SYNC at once; without either,
 * lazyfree-lazy-user-flush decides. Sets *async; C_ERR after a syntax error. */
static int parseFlushOption(client *c, int *async) {
    *async = server.lazyfree_lazy_user_flush;
    if (c->argc == 1) return C_OK;
    if (c->argc == 2 && !strcasecmp(c->argv[1]->ptr, "async")) *async = 1;
    else if (c->argc == 2 && !strcasecmp(c->argv[1]->ptr, "sync")) *async = 0;
    else {
        addReplyErrorObject(c, shared.syntaxerr);
        return C_ERR;
    }
    return C_OK;
}

void flushdbCommand(client *c) {
    int async;
    if (parseFlushOption(c, &async) != C_OK) return;
    signalFlushedDb(c->db->id);
    server.dirty += emptyData(c->db->id, async);
    forceCommandPropagation(c); /* reaches the AOF even if the db was empty */
    addReply(c, shared.ok);
}

/* With save points configured, FLUSHALL also writes the (empty) snapshot at
 * once, so rdb_changes_since_last_save restarts at 0 as in Redis 7 (not
 * while replaying an AOF: the dataset is only half loaded). */
void flushallCommand(client *c) {
    int async;
    if (parseFlushOption(c, &async) != C_OK) return;
    signalFlushedDb(-1);
    server.dirty += emptyData(-1, async);
    rdbKillChild(); /* a snapshot of the old data must not land after this */
    replicationKillChild(); /* nor reach a replica: those it fed sync again (as Redis kills any RDB child) */
    if (server.saveparamslen > 0 && !server.loading) rdbSaveNow();
    forceCommandPropagation(c);
    addReply(c, shared.ok);
}

void swapdbCommand(client *c) {
    int id1, id2;
    if (server.cluster_enabled) {
        addReplyError(c, "SWAPDB is not allowed in cluster mode");
        return;
    }
    if (getIntFromObjectOrReply(c, c->argv[1], &id1, "invalid first DB index") != C_OK) return;
    if (getIntFromObjectOrReply(c, c->argv[2], &id2, "invalid second DB index") != C_OK) return;
    if (id1 < 0 || id1 >= server.dbnum || id2 < 0 || id2 >= server.dbnum) {
        addReplyError(c, "DB index is out of range");
        return;
    }
    if (id1 != id2) {
        redisDb *a = &server.db[id1], *b = &server.db[id2];
        kvtable *d = a->keys;
        dict *e = a->expires;
        long long ttl = a->avg_ttl;
        a->keys = b->keys;
        a->expires = b->expires;
        a->avg_ttl = b->avg_ttl;
        a->expires_cursor = 0;
        b->keys = d;
        b->expires = e;
        b->avg_ttl = ttl;
        b->expires_cursor = 0;
        signalSwappedDb(id1, id2);
        server.dirty++;
    }
    moduleFireSwapDb(id1, id2);
    addReply(c, shared.ok);
}
