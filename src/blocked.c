/* blocked.c -- clients waiting for keys: BLPOP, BLMOVE, BLMPOP, BZPOPMIN ...
 *
 * A blocking command that finds nothing to serve calls blockForKeys() and
 * returns without a reply. The client keeps its argv (networking.c does not
 * reset a client flagged CLIENT_BLOCKED) and is remembered:
 *   - in db->blocking_keys, a dict key (sds) -> list of waiting clients in
 *     the order they blocked (FIFO);
 *   - in a min-heap ordered by deadline, when it has a timeout.
 *
 * When a key someone waits for may have become servable (a list or sorted
 * set was created by dbAdd, or a command called signalKeyAsReady()), the
 * key is queued as "ready". After every command (server.c's afterCommand)
 * and before the event loop sleeps (beforeSleep) the ready keys are
 * handled (handleClientsBlockedOnKeys): for each,
 * the clients waiting on it, oldest first, have their command run again
 * from scratch. The command either serves the client (replies) or calls
 * blockForKeys() again; a re-blocking client keeps its place in every queue
 * and its original deadline.
 *
 * Design decisions:
 * - Re-running the command (rather than popping on the client's behalf)
 *   keeps this file type-agnostic: lists and sorted sets only need their
 *   command to be idempotent until it can serve. The type a client waits
 *   for comes from its command's group, and a ready key of another type
 *   (the key became a string or a set) serves nobody, as Redis does --
 *   except XREADGROUP, which 7.0 tells (with an error) that its stream was
 *   deleted or replaced: db.c signals a removed stream key ready for it,
 *   and FLUSHDB, FLUSHALL and SWAPDB signal every waited-for key of their
 *   databases (blockedDbFlushed, blockedDbSwapped).
 * - Ready keys are handled iteratively, never recursively: a served BLMOVE
 *   pushing into a key another client waits on queues that key, and the
 *   outer loop then serves it, so chains of any length use constant stack.
 * - An unblocked client is reset at once (its argv freed) but whatever it
 *   pipelined while blocked runs from beforeSleep (processUnblockedClients),
 *   outside any other client's command.
 * - Deadlines live in a binary min-heap (each client knows its slot), so
 *   blocking, unblocking and expiring are O(log n); one ae timer is armed
 *   for the earliest deadline, so a 0.1 s timeout is answered on time with
 *   no other traffic, independently of hz.
 * - A client may not block inside MULTI/EXEC or when it is a fake client:
 *   clientMayBlock() says so and the command answers as on timeout.
 * - A blocking command counts as one call in INFO commandstats when it
 *   completes (served or timed out), not once per run, as Redis 7.2.
 */
#include "server.h"

#include <math.h>

typedef struct blockingState {
    int blocked;            /* 1 while waiting in this module's queues */
    int rerunning;          /* its command is being run again right now */
    int reblocked;          /* the re-run called blockForKeys() again */
    int btype;              /* object type that can serve it (OBJ_LIST ...) */
    long long timeout;      /* absolute unix ms, 0 = forever */
    long heap_index;        /* slot in the deadline heap, -1 if none */
    redisDb *db;
    int numkeys;
    robj **keys;            /* the distinct keys waited for */
    listNode **nodes;       /* this client's node in each key's FIFO */
    listNode *unblocked_node; /* in unblocked_clients, or NULL */
} blockingState;

static struct {
    unsigned long count;         /* clients blocked here */
    blockingState **heap;        /* deadline min-heap */
    client **heap_clients;       /* heap_clients[i] owns heap[i] */
    long heap_len, heap_cap;
    long long timer_id;          /* -1: no timer armed */
    long long timer_when;        /* deadline the timer is armed for */
    list *ready_keys;            /* readyKey* in signalling order */
    dict *ready_set;             /* "<dbid>:<key>" of queued ready keys */
    list *unblocked_clients;     /* clients whose pipelined input must run */
    int handling;                /* inside handleReadyKeys() */
} blocking = {.timer_id = -1};

typedef struct readyKey {
    redisDb *db;
    robj *key;
} readyKey;

/* ---- dict types -------------------------------------------------------------------------- */

static void listFreeFn(dict *d, void *val) { (void)d; listRelease(val); }

/* db->blocking_keys: key -> list of client* */
static dictType blockingKeysDictType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .keyDestructor = dictSdsDestructor,
    .valDestructor = listFreeFn,
};

static dictType readySetDictType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .keyDestructor = dictSdsDestructor,
};

/* ---- the deadline heap ------------------------------------------------------------------- */

static void heapPlace(long i, client *c) {
    blocking.heap_clients[i] = c;
    blocking.heap[i] = c->bstate;
    c->bstate->heap_index = i;
}

static int heapLess(long a, long b) { return blocking.heap[a]->timeout < blocking.heap[b]->timeout; }

static void heapSwap(long a, long b) {
    client *ca = blocking.heap_clients[a], *cb = blocking.heap_clients[b];
    heapPlace(a, cb);
    heapPlace(b, ca);
}

static void heapSiftUp(long i) {
    while (i > 0 && heapLess(i, (i - 1) / 2)) {
        heapSwap(i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static void heapSiftDown(long i) {
    for (;;) {
        long l = 2 * i + 1, r = l + 1, min = i;
        if (l < blocking.heap_len && heapLess(l, min)) min = l;
        if (r < blocking.heap_len && heapLess(r, min)) min = r;
        if (min == i) return;
        heapSwap(i, min);
        i = min;
    }
}

static void heapInsert(client *c) {
    if (blocking.heap_len == blocking.heap_cap) {
        blocking.heap_cap = blocking.heap_cap ? blocking.heap_cap * 2 : 16;
        blocking.heap = zrealloc(blocking.heap, sizeof(*blocking.heap) * (size_t)blocking.heap_cap);
        blocking.heap_clients =
            zrealloc(blocking.heap_clients, sizeof(*blocking.heap_clients) * (size_t)blocking.heap_cap);
    }
    heapPlace(blocking.heap_len++, c);
    heapSiftUp(blocking.heap_len - 1);
}

static void heapRemove(client *c) {
    long i = c->bstate->heap_index;
    if (i < 0) return;
    c->bstate->heap_index = -1;
    blocking.heap_len--;
    if (i == blocking.heap_len) return;
    heapPlace(i, blocking.heap_clients[blocking.heap_len]);
    heapSiftDown(i);
    heapSiftUp(i);
}

/* ---- timeouts ------------------------------------------------------------------------------ */

int getTimeoutFromObjectOrReply(client *c, robj *object, long long *timeout_ms) {
    long double seconds;
    if (getLongDoubleFromObjectOrReply(c, object, &seconds, "timeout is not a float or out of range") != C_OK)
        return C_ERR;
    long double ms = seconds * 1000.0L;
    /* >=: where long double is a double (armv7), LLONG_MAX rounds up to
     * 2^63, which no long long holds. */
    if (isnan(ms) || ms >= (long double)LLONG_MAX) {
        addReplyError(c, "timeout is out of range");
        return C_ERR;
    }
    if (ms < 0) {
        addReplyError(c, "timeout is negative");
        return C_ERR;
    }
    long long tval = (long long)ms; /* ceil without libm: ms is in [0, LLONG_MAX) */
    if ((long double)tval < ms) tval++;
    if (tval > 0) {
        long long now = mstime();
        if (tval > LLONG_MAX - now) {
            addReplyError(c, "timeout is out of range");
            return C_ERR;
        }
        tval += now;
    }
    *timeout_ms = tval;
    return C_OK;
}

int getMsTimeoutFromObjectOrReply(client *c, robj *object, long long *deadline_ms) {
    long long ms;
    if (getLongLongFromObjectOrReply(c, object, &ms, "timeout is not an integer or out of range") != C_OK)
        return C_ERR;
    if (ms < 0) {
        addReplyError(c, "timeout is negative");
        return C_ERR;
    }
    long long now = mstime();
    *deadline_ms = ms > 0 && ms <= LLONG_MAX - now ? now + ms : 0;
    return C_OK;
}

static void unblockClient(client *c);

/* A command counts as one call when it completes (served or timed out),
 * not each time it runs and blocks, as Redis 7.2 counts: blockForKeys()
 * takes back the call that call() is about to count for a blocking run. */
static void uncountBlockingCall(client *c) {
    if (c->cmd) c->cmd->calls--; /* call() adds it back when the run returns */
}

static void replyTimedOut(client *c) {
    addReplyNullArray(c);
    if (c->cmd) c->cmd->calls++;
    unblockClient(c);
}

static void expireTimedOutClients(void) {
    long long now = mstime();
    while (blocking.heap_len > 0 && blocking.heap[0]->timeout <= now) replyTimedOut(blocking.heap_clients[0]);
}

static void armTimer(void);

static int timeoutTimerProc(struct aeEventLoop *el, long long id, void *data) {
    (void)el; (void)id; (void)data;
    blocking.timer_id = -1;
    expireTimedOutClients();
    armTimer();
    return AE_NOMORE;
}

/* Keeps one timer armed for the earliest deadline (if any). */
static void armTimer(void) {
    if (blocking.heap_len == 0) return;
    long long when = blocking.heap[0]->timeout;
    if (blocking.timer_id != -1) {
        if (blocking.timer_when <= when) return;
        aeDeleteTimeEvent(server.el, blocking.timer_id);
        blocking.timer_id = -1;
    }
    long long delay = when - mstime();
    if (delay < 0) delay = 0;
    blocking.timer_id = aeCreateTimeEvent(server.el, delay, timeoutTimerProc, NULL, NULL);
    if (blocking.timer_id < 0) blocking.timer_id = -1; /* the cron's beforeSleep pass still expires clients */
    blocking.timer_when = when;
}

/* ---- blocking ------------------------------------------------------------------------------ */

static int blockedTypeOfCommand(redisCommand *cmd) {
    if (cmd && cmd->group == CMD_GROUP_SORTED_SET) return OBJ_ZSET;
    if (cmd && cmd->group == CMD_GROUP_STREAM) return OBJ_STREAM;
    return OBJ_LIST;
}

int clientMayBlock(client *c) {
    return !(c->flags & (CLIENT_MULTI | CLIENT_FAKE)) && !server.in_exec;
}

static blockingState *clientBlockingState(client *c) {
    if (c->bstate == NULL) {
        c->bstate = zcalloc(sizeof(blockingState));
        c->bstate->heap_index = -1;
    }
    return c->bstate;
}

/* The FIFO of clients waiting for key in db, created if asked. */
static list *keyWaiters(redisDb *db, robj *key, int create) {
    if (db->blocking_keys == NULL) {
        if (!create) return NULL;
        db->blocking_keys = dictCreate(&blockingKeysDictType);
    }
    dictEntry *de = dictFind(db->blocking_keys, key->ptr);
    if (de) return dictGetVal(de);
    if (!create) return NULL;
    list *waiters = listCreate();
    dictAdd(db->blocking_keys, sdsdup(key->ptr), waiters);
    return waiters;
}

static int keyAlreadyListed(blockingState *bs, robj *key) {
    for (int j = 0; j < bs->numkeys; j++)
        if (equalStringObjects(bs->keys[j], key)) return 1;
    return 0;
}

static void waitForKeys(client *c, robj **keys, int numkeys, long long timeout_ms, int btype);

void blockForKeys(client *c, robj **keys, int numkeys, long long timeout_ms) {
    blockingState *bs = clientBlockingState(c);
    uncountBlockingCall(c);
    if (bs->rerunning) { /* keeps its places and its deadline */
        bs->reblocked = 1;
        return;
    }
    waitForKeys(c, keys, numkeys, timeout_ms, blockedTypeOfCommand(c->cmd));
}

/* module_block.c: BlockClientOnKeys. The client waits in the keys' FIFOs
 * like any other; a value of any type makes it a candidate (the module's
 * reply callback decides), its command is not re-run, and its deadline is
 * the module's (module_block.c arms it). */
void blockForKeysByModule(client *c, robj **keys, int numkeys) {
    clientBlockingState(c);
    waitForKeys(c, keys, numkeys, 0, OBJ_MODULE);
}

/* module_block.c: a client blocked on keys by a module leaves their FIFOs,
 * is reset and has its pipelined input scheduled. */
void blockedReleaseModuleClient(client *c) { unblockClient(c); }

static void waitForKeys(client *c, robj **keys, int numkeys, long long timeout_ms, int btype) {
    blockingState *bs = c->bstate;
    serverAssert(!bs->blocked && numkeys > 0);
    bs->blocked = 1;
    bs->btype = btype;
    bs->timeout = timeout_ms;
    bs->db = c->db;
    bs->keys = zmalloc(sizeof(robj *) * (size_t)numkeys);
    bs->nodes = zmalloc(sizeof(listNode *) * (size_t)numkeys);
    bs->numkeys = 0;
    for (int j = 0; j < numkeys; j++) {
        if (keyAlreadyListed(bs, keys[j])) continue;
        robj *key = createStringObject(keys[j]->ptr, sdslen(keys[j]->ptr));
        list *waiters = keyWaiters(c->db, key, 1);
        listAddNodeTail(waiters, c);
        bs->keys[bs->numkeys] = key;
        bs->nodes[bs->numkeys] = listLast(waiters);
        bs->numkeys++;
    }
    c->flags |= CLIENT_BLOCKED;
    blocking.count++;
    if (timeout_ms > 0) {
        heapInsert(c);
        armTimer();
    }
}

static void forgetKeys(client *c) {
    blockingState *bs = c->bstate;
    for (int j = 0; j < bs->numkeys; j++) {
        list *waiters = keyWaiters(bs->db, bs->keys[j], 0);
        serverAssert(waiters != NULL);
        listDelNode(waiters, bs->nodes[j]);
        if (listLength(waiters) == 0) dictDelete(bs->db->blocking_keys, bs->keys[j]->ptr);
        decrRefCount(bs->keys[j]);
    }
    zfree(bs->keys);
    zfree(bs->nodes);
    bs->keys = NULL;
    bs->nodes = NULL;
    bs->numkeys = 0;
}

/* Removes c from every queue; its argv is released and what it pipelined
 * meanwhile is scheduled to run. No reply is added here. */
static void unblockClient(client *c) {
    blockingState *bs = c->bstate;
    if (bs == NULL || !bs->blocked) return;
    forgetKeys(c);
    heapRemove(c);
    bs->blocked = 0;
    blocking.count--;
    c->flags &= ~CLIENT_BLOCKED;
    resetClient(c);
    queueClientForReprocessing(c);
}

/* c's input that is already read runs before the next sleep
 * (processUnblockedClients): an unblocked client's pipeline, or the
 * primary's stream held back while a script was busy. */
void queueClientForReprocessing(client *c) {
    blockingState *bs = clientBlockingState(c);
    if (bs->unblocked_node) return;
    listAddNodeTail(blocking.unblocked_clients, c);
    bs->unblocked_node = listLast(blocking.unblocked_clients);
}

/* CLIENT UNBLOCK: a client waiting for keys (or in WAIT, replication.c)
 * gets its timeout reply at once, or with `with_error` an -UNBLOCKED error
 * (its command then counts as a failed call). 0 when c isn't waiting for
 * keys or replicas; a client held by CLIENT
 * PAUSE isn't, so its command still runs when the pause ends. */
int blockedClientUnblockByRequest(client *c, int with_error) {
    blockingState *bs = c->bstate;
    if (c->module_blocked) return moduleBlockedUnblockByRequest(c, with_error);
    if (replicationUnblockWait(c, with_error)) return 1;
    if (bs == NULL || !bs->blocked) return 0;
    if (!with_error) {
        replyTimedOut(c);
        return 1;
    }
    addReplyError(c, "-UNBLOCKED client unblocked via CLIENT UNBLOCK");
    if (c->cmd) {
        c->cmd->calls++;
        c->cmd->failed_calls++;
    }
    unblockClient(c);
    return 1;
}

/* cluster.c: the first key a client waits for (NULL when it waits for
 * none), and its unblocking with a redirection or -CLUSTERDOWN reply when
 * that key's slot is no longer served here, as Redis 7.0 does. */
robj *blockedFirstKey(client *c) {
    blockingState *bs = c->bstate;
    if (bs == NULL || !bs->blocked || bs->numkeys == 0) return NULL;
    return bs->keys[0];
}

void blockedUnblockWithError(client *c, sds err) {
    addReplyErrorSds(c, err);
    unblockClient(c);
}

/* A master turned replica (REPLICAOF): the clients waiting for keys get
 * err and are closed after it, as Redis does: their command can no longer
 * be served here. */
void blockedDisconnectAll(const char *err) {
    listIter li;
    listNode *ln;
    listRewind(server.clients, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        if (c->bstate == NULL || !c->bstate->blocked || c->module_blocked) continue; /* a module's: its own */
        addReplyError(c, err);
        unblockClient(c);
        c->flags |= CLIENT_CLOSE_AFTER_REPLY;
    }
}

/* ---- readiness ------------------------------------------------------------------------------ */

static sds readyId(redisDb *db, robj *key) {
    sds id = sdsfromlonglong(db->id);
    id = sdscatlen(id, ":", 1);
    return sdscatsds(id, key->ptr);
}

void signalKeyAsReady(redisDb *db, robj *key, int type) {
    (void)type; /* the type is checked against each client's when serving */
    if (keyWaiters(db, key, 0) == NULL) return;
    sds id = readyId(db, key);
    if (dictAdd(blocking.ready_set, id, NULL) != DICT_OK) {
        sdsfree(id);
        return;
    }
    readyKey *rk = zmalloc(sizeof(*rk));
    rk->db = db;
    rk->key = createStringObject(key->ptr, sdslen(key->ptr));
    listAddNodeTail(blocking.ready_keys, rk);
}

/* Every key someone waits for in db is queued as ready; whether it can
 * serve a waiter (or, for XREADGROUP, is gone) is decided per client when
 * it is handled, after the command that called this. */
static void signalWaitedKeys(redisDb *db) {
    if (db->blocking_keys == NULL || dictSize(db->blocking_keys) == 0) return;
    dictIterator *di = dictGetSafeIterator(db->blocking_keys);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        sds name = dictGetKey(de);
        robj *key = createStringObject(name, sdslen(name));
        signalKeyAsReady(db, key, -1);
        decrRefCount(key);
    }
    dictReleaseIterator(di);
}

/* SWAPDB: a waited-for key may now exist in either database, or be gone
 * (XREADGROUP's stream swapped away: -UNBLOCKED, as in 7.0). */
void blockedDbSwapped(int id1, int id2) {
    signalWaitedKeys(&server.db[id1]);
    signalWaitedKeys(&server.db[id2]);
}

/* FLUSHDB / FLUSHALL (dbid -1): the streams XREADGROUP waits on go, and
 * 7.0 tells those clients so (-UNBLOCKED) instead of leaving them blocked. */
void blockedDbFlushed(int dbid) {
    int start = dbid == -1 ? 0 : dbid, end = dbid == -1 ? server.dbnum - 1 : dbid;
    for (int j = start; j <= end; j++) signalWaitedKeys(&server.db[j]);
}

/* Runs c's command again. Returns 1 if it was served (or failed) and is no
 * longer blocked. */
static int rerunBlockedClient(client *c) {
    blockingState *bs = c->bstate;
    bs->rerunning = 1;
    bs->reblocked = 0;
    client *old = server.current_client;
    server.current_client = c;
    call(c);
    server.current_client = old;
    bs->rerunning = 0;
    if (bs->reblocked) return 0;
    unblockClient(c);
    return 1;
}

/* The key's current value (NULL if missing or expired); whether its type
 * can serve a given client is checked per client. */
static robj *servableValue(redisDb *db, robj *key) {
    return lookupKeyReadWithFlags(db, key, LOOKUP_NOTOUCH | LOOKUP_NONOTIFY | LOOKUP_NOSTATS);
}

/* XREADGROUP is told when its stream is deleted or replaced (7.0 replies
 * -UNBLOCKED): its re-run sees the key gone and says so. */
static int wakesWhenKeyGone(client *c) { return c->cmd && c->cmd->proc == xreadgroupCommand; }

/* Serves the clients waiting for key, oldest first, that it can serve.
 * Every client present when we start is visited at most once; a client
 * served is removed from the FIFO by unblockClient(), one re-blocked stays
 * where it was. */
static void serveClientsBlockedOnKey(redisDb *db, robj *key) {
    list *waiters = keyWaiters(db, key, 0);
    if (waiters == NULL) return;
    unsigned long budget = listLength(waiters);
    listNode *ln = listFirst(waiters);
    while (ln && budget--) {
        listNode *next = listNextNode(ln);
        client *c = listNodeValue(ln);
        robj *o = servableValue(db, key);
        int closing = c->flags & (CLIENT_CLOSE_ASAP | CLIENT_CLOSE_AFTER_REPLY); /* would lose the element */
        if (c->module_blocked) { /* BlockClientOnKeys: the module's reply callback says (module_block.c) */
            if (!closing && o && c->db == db) moduleBlockedServeOnKey(c, key);
            ln = next;
            continue;
        }
        int servable = o && o->type == (unsigned)c->bstate->btype;
        if (!closing && (servable || wakesWhenKeyGone(c)) && c->db == db) {
            rerunBlockedClient(c);
            if (keyWaiters(db, key, 0) != waiters) return; /* the FIFO emptied and went */
        }
        ln = next;
    }
}

static void handleReadyKeys(void) {
    if (blocking.handling) return;
    blocking.handling = 1;
    /* The keys are looked at now, outside any command: with the clock of
     * now, not of the command that made them ready (as in Redis 7.0). A key
     * that expired meanwhile -- a MULTI that slept past a TTL it set -- is
     * deleted here, its DEL propagated, and its waiters stay blocked. */
    updateCachedTime();
    while (listLength(blocking.ready_keys)) {
        listNode *ln = listFirst(blocking.ready_keys);
        readyKey *rk = listNodeValue(ln);
        listDelNode(blocking.ready_keys, ln);
        sds id = readyId(rk->db, rk->key);
        dictDelete(blocking.ready_set, id);
        sdsfree(id);
        serveClientsBlockedOnKey(rk->db, rk->key);
        decrRefCount(rk->key);
        zfree(rk);
    }
    blocking.handling = 0;
}

/* After each command and before sleeping: serve the keys signalled ready.
 * Not while a busy script serves clients (a command allowed then, such as
 * HELLO, ends here too): a popped value would be served, and propagated,
 * in the middle of the script; the keys wait until it ends. */
void handleClientsBlockedOnKeys(void) {
    if (listLength(blocking.ready_keys) && !scriptIsTimedOut()) handleReadyKeys();
}

/* Before sleeping: clients whose deadline passed get their timeout reply,
 * and the deadline timer stays armed for the next one (a safety net: it is
 * armed when a client blocks, and re-arms itself when it fires). */
void handleBlockedClientsTimeout(void) {
    expireTimedOutClients();
    armTimer();
}

/* Runs what unblocked clients pipelined while they waited. */
void processUnblockedClients(void) {
    while (listLength(blocking.unblocked_clients)) {
        listNode *ln = listFirst(blocking.unblocked_clients);
        client *c = listNodeValue(ln);
        listDelNode(blocking.unblocked_clients, ln);
        c->bstate->unblocked_node = NULL;
        if (c->flags & (CLIENT_BLOCKED | CLIENT_CLOSE_ASAP | CLIENT_CLOSE_AFTER_REPLY)) continue;
        processInputBuffer(c);
        if (listLength(blocking.ready_keys)) handleReadyKeys();
    }
}

/* freeClient(): out of every key's queue, the deadline heap and the list
 * of clients with input to run. */
void blockedClientFreed(client *c) {
    blockingState *bs = c->bstate;
    if (bs == NULL) return;
    if (bs->blocked) {
        forgetKeys(c);
        heapRemove(c);
        bs->blocked = 0;
        blocking.count--;
        c->flags &= ~CLIENT_BLOCKED;
    }
    if (bs->unblocked_node) listDelNode(blocking.unblocked_clients, bs->unblocked_node);
    zfree(bs);
    c->bstate = NULL;
}

void blockedInit(void) {
    blocking.ready_keys = listCreate(); /* entries are freed by handleReadyKeys() */
    blocking.ready_set = dictCreate(&readySetDictType);
    blocking.unblocked_clients = listCreate();
}
