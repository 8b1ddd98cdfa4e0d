/* multi.c -- transactions: MULTI, EXEC, DISCARD, WATCH, UNWATCH.
 *
 * Between MULTI and EXEC, processCommand() (server.c) hands every command
 * other than EXEC/DISCARD/MULTI/WATCH/QUIT to queueMultiCommand(), which
 * takes over the client's argv, and replies +QUEUED. A command rejected while
 * queuing (unknown, wrong arity, out of memory ...) marks the transaction
 * dirty (CLIENT_DIRTY_EXEC) and EXEC then aborts with -EXECABORT. A command
 * that fails at run time inside EXEC does not roll anything back: its error
 * is just one of the replies, as in Redis.
 *
 * WATCH is optimistic locking. Each watched key is recorded twice: in the
 * client's list (to unwatch everything at once) and in db->watched_keys, a
 * dict from key to the list of watchers (to find them when the key
 * changes). A change (db.c's signalModifiedKey -> touchWatchedKey), a
 * FLUSHDB / FLUSHALL that removes the key (signalFlushedDb ->
 * touchWatchedKeysOnFlush, called before emptying) or a SWAPDB that changes
 * what the key names (signalSwappedDb -> touchWatchedKeysOnSwap) sets
 * CLIENT_DIRTY_CAS, and EXEC replies with a null array.
 *
 * Expiry: a key that expires between WATCH and EXEC fails the EXEC even if
 * nobody deleted it yet (checked at EXEC time). A key that was already
 * expired ("stale") when it was watched is logically absent, so deleting it
 * later -- by expiry, DEL or a flush -- changes nothing and does not fail
 * the EXEC; writing a new value to it does.
 */
#include "server.h"
#include "acl.h"

typedef struct queuedCommand {
    robj **argv;
    int argc;
    redisCommand *cmd;
} queuedCommand;

typedef struct multiState {
    queuedCommand *commands;
    int count;
    int capacity;
    uint64_t cmd_flags;    /* union of the queued commands' CMD_* flags */
    uint64_t cmd_missing_flags; /* union of the CMD_* flags some queued command lacks */
    size_t argv_mem;       /* queued arguments' lengths plus their pointer arrays */
} multiState;

typedef struct watchedKey {
    robj *key;
    redisDb *db;
    client *client;
    int was_expired; /* the key was stale when WATCH ran */
} watchedKey;

/* db->watched_keys: key (a string object) -> list of watchedKey. */
static void watcherListFree(dict *d, void *val) {
    (void)d;
    listRelease(val);
}

static dictType watchedKeysDictType = {
    dictStringObjectHash, NULL, NULL, dictStringObjectCompare, dictStringObjectDestructor, watcherListFree, NULL};

/* ---- the queue ------------------------------------------------------------------- */

static void freeMultiState(client *c) {
    multiState *ms = c->mstate;
    if (ms == NULL) return;
    for (int j = 0; j < ms->count; j++) {
        for (int i = 0; i < ms->commands[j].argc; i++) decrRefCount(ms->commands[j].argv[i]);
        zfree(ms->commands[j].argv);
    }
    zfree(ms->commands);
    zfree(ms);
    c->mstate = NULL;
}

/* Takes the client's argv over: the client's own array is left empty. */
void queueMultiCommand(client *c) {
    if (c->mstate == NULL) c->mstate = zcalloc(sizeof(multiState));
    multiState *ms = c->mstate;
    if (ms->count == ms->capacity) {
        ms->capacity = ms->capacity ? ms->capacity * 2 : 4;
        ms->commands = zrealloc(ms->commands, sizeof(queuedCommand) * (size_t)ms->capacity);
    }
    queuedCommand *qc = &ms->commands[ms->count++];
    qc->argc = c->argc;
    qc->argv = zmalloc(sizeof(robj *) * (size_t)c->argc);
    memcpy(qc->argv, c->argv, sizeof(robj *) * (size_t)c->argc);
    qc->cmd = c->cmd;
    uint64_t flags = scriptDeclaredFlags(c, c->cmd->flags); /* a script's declared flags */
    ms->cmd_flags |= flags;
    ms->cmd_missing_flags |= ~flags;
    ms->argv_mem += c->argv_len_sum + sizeof(robj *) * (size_t)c->argc;
    c->argc = 0; /* the references moved to the queue */
    c->argv_len_sum = 0;
}

/* The union of the CMD_* flags of the commands queued so far (0 outside
 * MULTI): whether what EXEC will run may write, needs memory ... */
uint64_t multiQueuedFlags(client *c) { return c->mstate ? c->mstate->cmd_flags : 0; }

/* The flags at least one queued command lacks: EXEC runs while loading
 * only if none lacks "loading". */
uint64_t multiQueuedMissingFlags(client *c) { return c->mstate ? c->mstate->cmd_missing_flags : 0; }

/* CLIENT LIST's multi=: commands queued, -1 outside MULTI. */
int multiQueuedCount(client *c) {
    if (!(c->flags & CLIENT_MULTI)) return -1;
    return c->mstate ? c->mstate->count : 0;
}

void multiQueuedCommand(client *c, int i, redisCommand **cmd, robj ***argv, int *argc) {
    queuedCommand *q = &c->mstate->commands[i];
    *cmd = q->cmd;
    *argv = q->argv;
    *argc = q->argc;
}

/* CLIENT LIST's multi-mem: the queued arguments, by their lengths (not
 * their allocations) plus their pointer arrays, as Redis counts them. */
size_t multiQueuedArgvMemory(client *c) { return c->mstate ? c->mstate->argv_mem : 0; }

/* What the transaction state holds for maxmemory-clients and tot-mem: the
 * queued arguments, the queue's slots and the WATCHed keys' bookkeeping. A
 * client queuing a huge transaction can so be evicted before EXEC. */
size_t multiStateMemory(client *c) {
    size_t bytes = listLength(c->watched_keys) * (sizeof(listNode) + sizeof(watchedKey));
    if (c->mstate) bytes += c->mstate->argv_mem + (size_t)c->mstate->capacity * sizeof(queuedCommand);
    return bytes;
}

static void unwatchAllKeys(client *c); /* with WATCH, below */

static void discardTransaction(client *c) {
    freeMultiState(c);
    c->flags &= ~(uint64_t)(CLIENT_MULTI | CLIENT_DIRTY_CAS | CLIENT_DIRTY_EXEC);
    unwatchAllKeys(c);
}

/* RESET: drop the transaction being queued and every WATCH. */
void multiResetClient(client *c) { discardTransaction(c); }

/* EXEC itself was refused (out of memory, MISCONF ...): the transaction is
 * dropped and the error says why, as Redis words it. `error` may be a full
 * "-CODE text\r\n" protocol error. */
void execCommandAbort(client *c, const char *error) {
    discardTransaction(c);
    sds why = sdstrim(sdsnew(error[0] == '-' ? error + 1 : error), "\r\n");
    addReplyErrorSds(c, sdscatfmt(sdsnew("-EXECABORT Transaction discarded because of: "), "%S", why));
    sdsfree(why);
}

void multiCommand(client *c) {
    if (c->flags & CLIENT_MULTI) {
        addReplyError(c, "MULTI calls can not be nested");
        return;
    }
    c->flags |= CLIENT_MULTI;
    addReply(c, shared.ok);
}

void discardCommand(client *c) {
    if (!(c->flags & CLIENT_MULTI)) {
        addReplyError(c, "DISCARD without MULTI");
        return;
    }
    discardTransaction(c);
    addReply(c, shared.ok);
}

/* ---- watching ----------------------------------------------------------------------- */

static list *watchersOf(redisDb *db, robj *key) {
    if (db->watched_keys == NULL) return NULL;
    dictEntry *de = dictFind(db->watched_keys, key);
    return de ? dictGetVal(de) : NULL;
}

static int isWatching(client *c, redisDb *db, robj *key) {
    listIter li;
    listNode *ln;
    listRewind(c->watched_keys, &li);
    while ((ln = listNext(&li)) != NULL) {
        watchedKey *wk = listNodeValue(ln);
        if (wk->db == db && equalStringObjects(wk->key, key)) return 1;
    }
    return 0;
}

static void watchKey(client *c, robj *key) {
    redisDb *db = c->db;
    if (isWatching(c, db, key)) return;
    if (db->watched_keys == NULL) db->watched_keys = dictCreate(&watchedKeysDictType);
    list *watchers = watchersOf(db, key);
    if (watchers == NULL) {
        watchers = listCreate();
        incrRefCount(key);
        dictAdd(db->watched_keys, key, watchers);
    }
    watchedKey *wk = zmalloc(sizeof(*wk));
    wk->key = key;
    incrRefCount(key);
    wk->db = db;
    wk->client = c;
    wk->was_expired = dbExists(db, key) && keyIsExpired(db, key);
    listAddNodeTail(watchers, wk);
    listAddNodeTail(c->watched_keys, wk);
}

static void unwatchAllKeys(client *c) {
    while (listLength(c->watched_keys)) {
        listNode *ln = listFirst(c->watched_keys);
        watchedKey *wk = listNodeValue(ln);
        list *watchers = watchersOf(wk->db, wk->key);
        serverAssert(watchers != NULL);
        listNode *mine = listSearchKey(watchers, wk);
        serverAssert(mine != NULL);
        listDelNode(watchers, mine);
        if (listLength(watchers) == 0) dictDelete(wk->db->watched_keys, wk->key);
        listDelNode(c->watched_keys, ln);
        decrRefCount(wk->key);
        zfree(wk);
    }
}

void watchCommand(client *c) {
    if (c->flags & CLIENT_MULTI) {
        addReplyError(c, "WATCH inside MULTI is not allowed");
        return;
    }
    /* A client already doomed to fail its EXEC need not watch more. */
    if (!(c->flags & CLIENT_DIRTY_CAS))
        for (int j = 1; j < c->argc; j++) watchKey(c, c->argv[j]);
    addReply(c, shared.ok);
}

void unwatchCommand(client *c) {
    unwatchAllKeys(c);
    c->flags &= ~(uint64_t)CLIENT_DIRTY_CAS;
    addReply(c, shared.ok);
}

/* A watched stale key that is now gone was deleted, which changes nothing
 * logically: forget that it was stale, so a later write does fail EXEC. */
static int staleKeyWasDeleted(watchedKey *wk) {
    if (!wk->was_expired || dbExists(wk->db, wk->key)) return 0;
    wk->was_expired = 0;
    return 1;
}

void touchWatchedKey(redisDb *db, robj *key) {
    list *watchers = watchersOf(db, key);
    if (watchers == NULL) return;
    listIter li;
    listNode *ln;
    listRewind(watchers, &li);
    while ((ln = listNext(&li)) != NULL) {
        watchedKey *wk = listNodeValue(ln);
        if (staleKeyWasDeleted(wk)) continue;
        wk->client->flags |= CLIENT_DIRTY_CAS;
    }
}

/* Marks the watchers of every key of `db` that the flush or swap changes.
 * `emptied` holds what the db held before (about to be emptied, or swapped
 * away), `replaced_with` what it holds after a SWAPDB (NULL for a flush).
 * Stale keys are logically absent: a stale key that goes, or stays stale,
 * or that replaces a missing key, changes nothing (the last one is then
 * remembered as stale so that EXEC does not see it "expire"). */
static void touchWatchedKeysOfDb(redisDb *db, redisDb *emptied, redisDb *replaced_with) {
    if (db->watched_keys == NULL || dictSize(db->watched_keys) == 0) return;
    dictIterator *di = dictGetSafeIterator(db->watched_keys);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        robj *key = dictGetKey(de);
        int was_there = dbExists(emptied, key);
        int comes = replaced_with && dbExists(replaced_with, key);
        if (!was_there && !comes) continue;
        int comes_stale = comes && keyIsExpired(replaced_with, key);
        listIter li;
        listNode *ln;
        listRewind(dictGetVal(de), &li);
        while ((ln = listNext(&li)) != NULL) {
            watchedKey *wk = listNodeValue(ln);
            if (wk->was_expired) {
                if (!comes) {
                    wk->was_expired = 0; /* a stale key goes */
                    continue;
                }
                if (comes_stale) continue; /* stale stays stale */
            } else if (!was_there && comes_stale) {
                wk->was_expired = 1; /* a missing key becomes a stale one */
                continue;
            }
            wk->client->flags |= CLIENT_DIRTY_CAS;
        }
    }
    dictReleaseIterator(di);
}

void touchWatchedKeysOnFlush(int dbid) {
    for (int j = 0; j < server.dbnum; j++)
        if (dbid == -1 || dbid == j) touchWatchedKeysOfDb(&server.db[j], &server.db[j], NULL);
}

/* Called after the swap: each db now holds what the other held. */
void touchWatchedKeysOnSwap(int id1, int id2) {
    redisDb *a = &server.db[id1], *b = &server.db[id2];
    touchWatchedKeysOfDb(a, b, a);
    touchWatchedKeysOfDb(b, a, b);
}

/* A key that was live at WATCH time and has expired since fails the EXEC,
 * even if it is still in memory. */
static int watchedKeyExpired(client *c) {
    listIter li;
    listNode *ln;
    listRewind(c->watched_keys, &li);
    while ((ln = listNext(&li)) != NULL) {
        watchedKey *wk = listNodeValue(ln);
        if (!wk->was_expired && dbExists(wk->db, wk->key) && keyIsExpired(wk->db, wk->key)) return 1;
    }
    return 0;
}

/* ---- EXEC --------------------------------------------------------------------------- */

static void runQueuedCommands(client *c) {
    multiState *ms = c->mstate;
    int count = ms ? ms->count : 0;
    robj **orig_argv = c->argv;
    int orig_argc = c->argc, orig_argv_len = c->argv_len;
    redisCommand *orig_cmd = c->cmd;

    addReplyArrayLen(c, count);
    server.in_exec = 1;
    for (int j = 0; j < count; j++) {
        queuedCommand *qc = &ms->commands[j];
        c->argc = qc->argc;
        c->argv = qc->argv;
        c->argv_len = qc->argc;
        c->cmd = c->realcmd = qc->cmd;
        int acl_errpos = 0, acl_result = aclCheckAllPerm(c, &acl_errpos); /* the rules may have changed since */
        if (acl_result == ACL_OK) call(c);
        else aclRejectQueuedCommand(c, acl_result, acl_errpos);
        /* the command may have rewritten its argv */
        qc->argc = c->argc;
        qc->argv = c->argv;
    }
    server.in_exec = 0;
    c->argv = orig_argv;
    c->argc = orig_argc;
    c->argv_len = orig_argv_len;
    c->cmd = c->realcmd = orig_cmd;
}

void execCommand(client *c) {
    if (!(c->flags & CLIENT_MULTI)) {
        addReplyError(c, "EXEC without MULTI");
        return;
    }
    if (c->flags & CLIENT_DIRTY_EXEC) {
        addReplyErrorObject(c, shared.execaborterr);
        discardTransaction(c);
        return;
    }
    if (watchedKeyExpired(c)) c->flags |= CLIENT_DIRTY_CAS;
    if (c->flags & CLIENT_DIRTY_CAS) {
        addReplyNullArray(c);
        discardTransaction(c);
        return;
    }
    unwatchAllKeys(c); /* our own writes must not fail us */
    runQueuedCommands(c);
    discardTransaction(c);
}

/* Commands that act on the transaction itself instead of being queued. */
int commandRunsInsideMulti(redisCommand *cmd) {
    redisCommandProc *p = cmd->proc;
    return p == execCommand || p == discardCommand || p == multiCommand || p == watchCommand ||
           p == quitCommand || p == resetCommand;
}

/* A rejected command poisons the transaction being queued. */
void flagTransaction(client *c) {
    if (c->flags & CLIENT_MULTI) c->flags |= CLIENT_DIRTY_EXEC;
}

/* freeClient(): its WATCHes and any transaction it was queuing go. */
void multiClientFreed(client *c) {
    unwatchAllKeys(c);
    freeMultiState(c);
}
