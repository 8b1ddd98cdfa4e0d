/* keyspace.c -- the type-independent key commands: DEL, UNLINK, EXISTS,
 * TYPE, RENAME(NX), MOVE, COPY, KEYS, SCAN, RANDOMKEY, TOUCH, DBSIZE,
 * FLUSHDB, FLUSHALL and SWAPDB.
 *
 * They reach the data only through db.c, so expiry, statistics and
 * notifications behave the same as for typed commands. SCAN's cursor is the
 * dict's reverse-binary cursor: every key present for the whole iteration is
 * returned at least once even while the table is resized; scanGenericCommand()
 * is shared with HSCAN/SSCAN/ZSCAN, whose types register a scanner for their
 * hash-table encodings through registerScanFunction().
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

void delCommand(client *c) { delGenericCommand(c, 0); }
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
    addReplyStatus(c, o ? strObjectType(o->type) : "none");
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

static robj *(*dup_by_type[16])(robj *o);

void registerObjectDupFunction(int type, robj *(*fn)(robj *o)) { dup_by_type[type] = fn; }

static robj *dupObject(robj *o) {
    if (o->type == OBJ_STRING) return dupStringObject(o);
    if (dup_by_type[o->type] == NULL) serverPanic("COPY: no dup function for type %d", o->type);
    return dup_by_type[o->type](o);
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
    if (lookupKeyWrite(dst, newkey) != NULL) {
        if (!replace) {
            addReply(c, shared.czero);
            return;
        }
        dbDelete(dst, newkey);
    }
    dbAddWithExpire(dst, newkey, dupObject(o), expire);
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

/* The cursor as strtoul() reads it, as Redis does: a leading '-' wraps
 * ("-1" is ULONG_MAX), no leading space, nothing after the digits. */
int parseScanCursorOrReply(client *c, robj *o, unsigned long *cursor) {
    robj *decoded = getDecodedObject(o);
    const char *s = decoded->ptr;
    char *end;
    errno = 0;
    unsigned long value = strtoul(s, &end, 10);
    int ok = s[0] != '\0' && !isspace((unsigned char)s[0]) && *end == '\0' && errno != ERANGE;
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

static void collectKey(void *privdata, kvobj *o) {
    list *keys = privdata;
    listAddNodeTail(keys, sdsdup(kvobjGetKey(o)));
}

static int keyMatchesScan(client *c, sds key, scanOptions *opt) {
    if (opt->pattern && !(opt->pattern[0] == '*' && opt->pattern[1] == '\0') &&
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

/* The scanners of the collection types (HSCAN, SSCAN, ZSCAN). */
static struct {
    objectScanProc *proc;
    int pairs;
} scanners[16];

void registerScanFunction(int type, objectScanProc *proc, int pairs) {
    scanners[type].proc = proc;
    scanners[type].pairs = pairs;
}

static int patternMatchesAll(const sds pattern) { return pattern == NULL || !strcmp(pattern, "*"); }

/* HSCAN/SSCAN/ZSCAN: the type's scanner fills a list of sds (pairs for hashes
 * and sorted sets); MATCH filters on the member or field name. */
static void scanCollection(client *c, robj *o, unsigned long cursor, scanOptions *opt) {
    if (scanners[o->type].proc == NULL) {
        addReplyError(c, "SCAN of this type is not supported");
        return;
    }
    int pairs = scanners[o->type].pairs;
    list *items = listCreate();
    listSetFreeMethod(items, (void (*)(void *))sdsfree);
    cursor = scanners[o->type].proc(o, cursor, opt->count, items);

    listIter li;
    listNode *ln;
    listRewind(items, &li);
    while (!patternMatchesAll(opt->pattern) && (ln = listNext(&li)) != NULL) {
        sds name = listNodeValue(ln);
        listNode *value = pairs ? listNext(&li) : NULL;
        if (stringmatchlen(opt->pattern, (int)sdslen(opt->pattern), name, (int)sdslen(name), 0)) continue;
        listDelNode(items, ln);
        if (value) listDelNode(items, value);
    }
    addReplyArrayLen(c, 2);
    addReplyBulkLongLong(c, (long long)cursor);
    addReplyArrayLen(c, (long)listLength(items));
    listRewind(items, &li);
    while ((ln = listNext(&li)) != NULL) {
        sds item = listNodeValue(ln);
        addReplyBulkCBuffer(c, item, sdslen(item));
    }
    listRelease(items);
}

/* SCAN over the keyspace (o == NULL), or over a collection's elements. */
void scanGenericCommand(client *c, robj *o, unsigned long cursor) {
    scanOptions opt;
    int first_option = o ? 3 : 2;
    if (parseScanOptions(c, first_option, o == NULL, &opt) != C_OK) return;
    if (o != NULL) {
        scanCollection(c, o, cursor, &opt);
        return;
    }
    list *keys = listCreate();
    listSetFreeMethod(keys, (void (*)(void *))sdsfree);
    long maxiterations = opt.count * 10;
    do {
        cursor = kvtableScan(c->db->keys, cursor, collectKey, keys);
    } while (cursor && maxiterations-- && (long)listLength(keys) < opt.count);

    listIter li;
    listNode *ln;
    listRewind(keys, &li);
    while ((ln = listNext(&li)) != NULL)
        if (!keyMatchesScan(c, listNodeValue(ln), &opt)) listDelNode(keys, ln);

    addReplyArrayLen(c, 2);
    addReplyBulkLongLong(c, (long long)cursor);
    addReplyArrayLen(c, (long)listLength(keys));
    listRewind(keys, &li);
    while ((ln = listNext(&li)) != NULL) {
        sds key = listNodeValue(ln);
        addReplyBulkCBuffer(c, key, sdslen(key));
    }
    listRelease(keys);
}

void scanCommand(client *c) {
    unsigned long cursor;
    if (parseScanCursorOrReply(c, c->argv[1], &cursor) != C_OK) return;
    scanGenericCommand(c, NULL, cursor);
}

/* ---- whole databases ------------------------------------------------------------------- */

void dbsizeCommand(client *c) { addReplyLongLong(c, (long long)kvtableSize(c->db->keys)); }

/* FLUSHDB/FLUSHALL accept an optional ASYNC or SYNC. */
static int parseFlushFlags(client *c, int *flags) {
    *flags = EMPTYDB_NO_FLAGS;
    if (c->argc > 2) {
        addReplyErrorObject(c, shared.syntaxerr);
        return C_ERR;
    }
    if (c->argc == 2) {
        if (!strcasecmp(c->argv[1]->ptr, "async")) *flags = EMPTYDB_ASYNC;
        else if (strcasecmp(c->argv[1]->ptr, "sync")) {
            addReplyErrorObject(c, shared.syntaxerr);
            return C_ERR;
        }
    }
    return C_OK;
}

void flushdbCommand(client *c) {
    int flags;
    if (parseFlushFlags(c, &flags) != C_OK) return;
    signalFlushedDb(c->db->id, flags & EMPTYDB_ASYNC);
    server.dirty += emptyData(c->db->id, flags, NULL);
    forceCommandPropagation(c, 0); /* reaches the AOF even if the db was empty */
    addReply(c, shared.ok);
}

/* With save points configured, FLUSHALL also writes the (empty) snapshot at
 * once, so rdb_changes_since_last_save restarts at 0 as in Redis 7 (not
 * while replaying an AOF: the dataset is only half loaded). */
void flushallCommand(client *c) {
    int flags;
    if (parseFlushFlags(c, &flags) != C_OK) return;
    signalFlushedDb(-1, flags & EMPTYDB_ASYNC);
    server.dirty += emptyData(-1, flags, NULL);
    rdbKillChild(); /* a snapshot of the old data must not land after this */
    if (server.saveparamslen > 0 && !server.loading) rdbSaveNow();
    forceCommandPropagation(c, 0);
    addReply(c, shared.ok);
}

void swapdbCommand(client *c) {
    int id1, id2;
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
    addReply(c, shared.ok);
}
