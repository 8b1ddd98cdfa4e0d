/* module_block.c -- clients blocked by a module: BlockClient, UnblockClient,
 * AbortBlock and the calls a blocked client's callbacks make.
 *
 * A module command that answers later (from a thread, a timer, another
 * client's command) calls BlockClient and returns. The client is flagged
 * CLIENT_BLOCKED, so networking.c neither resets it nor parses its input,
 * and keeps its argv for the reply callback. The handle (moduleBlocked, the
 * module's RedisModuleBlockedClient) lives until the module releases it
 * with UnblockClient or AbortBlock, from any thread: that call only queues
 * the handle under a mutex and wakes the event loop through a pipe. The
 * main thread then (moduleHandleBlockedClients, from the pipe's handler and
 * beforeSleep) runs the reply callback, frees the private data, appends what
 * thread-safe contexts replied, and unblocks the client.
 *
 * Decisions:
 * - The client may go first (timeout, CLIENT UNBLOCK, disconnection): the
 *   handle then forgets it (client NULL) and stays until the module
 *   releases it, as in Redis 7.0; its private data is freed then with
 *   BlockedClientDisconnected() true. A module holding handles cannot
 *   unload (module.c asks blocked_clients).
 * - Inside MULTI or a script, or on a client without a connection (Call),
 *   nothing blocks: the client gets Redis's error and the handle is born
 *   detached, so the module's later UnblockClient just releases it.
 * - A timeout is armed only with a timeout callback: Redis 7.0 calls it
 *   unconditionally (a NULL one crashes it); without one the client waits
 *   for the module.
 * - INFO commandstats counts the call when the command runs and blocks (as
 *   Redis 7.0 does, unlike blocked.c's key waiters, which count as 7.2);
 *   the time measured between BlockedClientMeasureTimeStart/End and the
 *   reply callback's are added when it completes.
 * - BlockClientOnKeys: the client also waits in blocked.c's key FIFOs;
 *   when a key it waits for is ready (any type) the reply callback runs
 *   with the key (moduleBlockedServeOnKey) and, if it returns OK, the handle
 *   is released as by UnblockClient. The module is not expected to release
 *   such handles itself: a timeout, CLIENT UNBLOCK or disconnection does.
 */
#include "module_int.h"
#include "latency.h"

#include <pthread.h>
#include <unistd.h>
#include <fcntl.h>

typedef void (*ModuleFreePrivFunc)(RedisModuleCtx *ctx, void *privdata);
typedef struct moduleBlocked moduleBlocked;
typedef void (*ModuleDisconnectFunc)(RedisModuleCtx *ctx, moduleBlocked *bc);

struct moduleBlocked {
    client *client;          /* NULL once it timed out, disconnected, or never blocked */
    module *module;
    ModuleCmdFunc reply_cb, timeout_cb;
    ModuleFreePrivFunc free_privdata;
    ModuleDisconnectFunc disconnect_cb;
    void *privdata;
    client *reply_client;    /* thread-safe contexts' replies, appended when unblocked */
    int dbid;
    int unblocked;           /* queued by UnblockClient (under the mutex) */
    int on_keys;             /* BlockClientOnKeys': waits in blocked.c's key FIFOs too */
    long long timer_id;      /* the timeout's ae timer, -1 if none */
    uint64_t measure_start;  /* BlockedClientMeasureTimeStart, 0 when not measuring */
    uint64_t background_us;
    long long repl_offset;   /* the replication offset when it blocked */
};

static pthread_mutex_t unblocked_mutex = PTHREAD_MUTEX_INITIALIZER;
static list *unblocked;       /* moduleBlocked * released by the module, under unblocked_mutex */
static int wake_pipe[2] = {-1, -1};

/* ---- the wake-up pipe ------------------------------------------------------------ */

static void wakePipeRead(aeEventLoop *el, int fd, void *data, int mask) {
    (void)el, (void)data, (void)mask;
    char buf[64];
    while (read(fd, buf, sizeof buf) > 0) {
    }
    moduleHandleBlockedClients();
}

/* A non-blocking, close-on-exec pipe whose read end the event loop
 * watches with proc: how other threads wake the main one (here for
 * unblocked clients, module_eventloop.c for one-shot callbacks). */
int moduleWakePipeOpen(int fds[2], aeFileProc *proc) {
    if (pipe(fds) == -1) return C_ERR;
    for (int j = 0; j < 2; j++) {
        fcntl(fds[j], F_SETFL, fcntl(fds[j], F_GETFL) | O_NONBLOCK);
        fcntl(fds[j], F_SETFD, FD_CLOEXEC);
    }
    if (aeCreateFileEvent(server.el, fds[0], AE_READABLE, proc, NULL) == AE_ERR) {
        close(fds[0]);
        close(fds[1]);
        fds[0] = fds[1] = -1;
        return C_ERR;
    }
    return C_OK;
}

static int wakePipeSetup(void) {
    if (wake_pipe[0] != -1) return C_OK;
    if (moduleWakePipeOpen(wake_pipe, wakePipeRead) != C_OK) return C_ERR;
    unblocked = listCreate();
    return C_OK;
}

/* ---- the client's side ----------------------------------------------------------- */

static void callbackCtx(RedisModuleCtx *ctx, moduleBlocked *bc, int flags) {
    moduleCtxInit(ctx, bc->module, bc->client);
    ctx->flags |= flags;
    ctx->blocked = bc;
    ctx->blocked_privdata = bc->privdata;
}

static void stopTimeout(moduleBlocked *bc) {
    if (bc->timer_id == -1) return;
    aeDeleteTimeEvent(server.el, bc->timer_id);
    bc->timer_id = -1;
}

/* The command completes: call() counted the run that blocked; its time
 * grows by what the module measured and the callback took, an error reply
 * counts it failed, and the latency histogram and SLOWLOG see the whole
 * (Redis 7.0's accounting). */
static void countCompletedCall(client *c, moduleBlocked *bc, uint64_t reply_us, int failed) {
    if (c->cmd == NULL) return;
    long long total = c->duration + (long long)(bc->background_us + reply_us);
    c->cmd->microseconds += (long long)(bc->background_us + reply_us);
    if (failed) c->cmd->failed_calls++;
    if (server.latency_tracking_enabled) latencyTrackCommand(c->cmd, total);
    if (!(c->cmd->flags & CMD_SKIP_SLOWLOG)) slowlogPushEntryIfNeeded(c, c->argv, c->argc, total);
}

/* The client leaves the blocked state: its argv goes, and what it
 * pipelined meanwhile runs before the next sleep. */
static void releaseClient(moduleBlocked *bc) {
    client *c = bc->client;
    stopTimeout(bc);
    bc->client = NULL;
    bc->disconnect_cb = NULL;
    if (c == NULL) return;
    c->module_blocked = NULL;
    if (bc->on_keys) {
        blockedReleaseModuleClient(c); /* out of the keys' FIFOs, reset, input scheduled */
        return;
    }
    c->flags &= ~CLIENT_BLOCKED;
    resetClient(c);
    queueClientForReprocessing(c);
}

static int timedOut(moduleBlocked *bc) {
    pthread_mutex_lock(&unblocked_mutex);
    int done = bc->unblocked;
    pthread_mutex_unlock(&unblocked_mutex);
    if (done || bc->client == NULL) return 0;
    client *c = bc->client;
    long long errors = server.stat_total_error_replies;
    RedisModuleCtx ctx;
    callbackCtx(&ctx, bc, MODCTX_BLOCKED_TIMEOUT);
    bc->timeout_cb(&ctx, c->argv, c->argc);
    moduleCtxFinish(&ctx);
    if (!bc->on_keys) countCompletedCall(c, bc, 0, server.stat_total_error_replies != errors); /* as 7.0 */
    return 1;
}

/* The client stops waiting (timeout, CLIENT UNBLOCK); a handle blocked on
 * keys is then released by us, as the module is not expected to. */
static void queueRelease(moduleBlocked *bc, void *privdata);
static void clientGone(moduleBlocked *bc) {
    releaseClient(bc);
    if (bc->on_keys && !bc->unblocked) queueRelease(bc, NULL);
}

static int timeoutProc(aeEventLoop *el, long long id, void *data) {
    (void)el, (void)id;
    moduleBlocked *bc = data;
    bc->timer_id = -1;
    if (timedOut(bc)) clientGone(bc);
    return AE_NOMORE;
}

/* CLIENT UNBLOCK: only a client with a timeout callback can be unblocked
 * (Redis 7.0's rule: a command that expects no timeout expects no UNBLOCK). */
int moduleBlockedUnblockByRequest(client *c, int with_error) {
    moduleBlocked *bc = c->module_blocked;
    if (bc == NULL || bc->timeout_cb == NULL) return 0;
    if (with_error) {
        addReplyError(c, "-UNBLOCKED client unblocked via CLIENT UNBLOCK");
        countCompletedCall(c, bc, 0, 1);
    } else if (!timedOut(bc)) {
        return 0;
    }
    clientGone(bc);
    return 1;
}

/* The module's disconnect callback, if it set one: its client no longer
 * waits (gone, or refused by the cluster). */
static void tellDisconnected(moduleBlocked *bc) {
    if (bc->disconnect_cb == NULL) return;
    RedisModuleCtx ctx;
    callbackCtx(&ctx, bc, 0);
    bc->disconnect_cb(&ctx, bc);
    moduleCtxFinish(&ctx);
}

/* cluster.c: the cluster went down while c waits on a module's command
 * (BlockClient, no keys): c gets err and stops waiting, and the module
 * hears of it through its disconnect callback, as Redis 7.0 tells it
 * (unblockClientFromModule). A later UnblockClient replies to nobody. */
void moduleBlockedUnblockWithError(client *c, sds err) {
    moduleBlocked *bc = c->module_blocked;
    if (bc == NULL) {
        sdsfree(err);
        return;
    }
    addReplyErrorSds(c, err); /* not counted as the command's failure: 7.0 counts none here either */
    tellDisconnected(bc);
    clientGone(bc);
}

/* freeClient(): the module hears of it through its disconnect callback. */
void moduleBlockedClientFreed(client *c) {
    moduleBlocked *bc = c->module_blocked;
    if (bc == NULL) return;
    tellDisconnected(bc);
    stopTimeout(bc);
    bc->client = NULL;
    c->module_blocked = NULL;
    c->flags &= ~CLIENT_BLOCKED; /* blocked.c's state (the keys' FIFOs) goes after this, in blockedClientFreed */
    if (bc->on_keys && !bc->unblocked) queueRelease(bc, NULL);
}

/* ---- blocking and unblocking --------------------------------------------------- */

static const char *refusal(client *c) {
    if (server.in_exec || (c->flags & CLIENT_MULTI)) return "Blocking module command called from transaction";
    if (c->flags & (CLIENT_SCRIPT | CLIENT_FAKE)) return "Blocking module command called from Lua script";
    return NULL;
}

static moduleBlocked *blockClient(RedisModuleCtx *ctx, ModuleCmdFunc reply_cb, ModuleCmdFunc timeout_cb,
                                  ModuleFreePrivFunc free_privdata, long long timeout_ms, robj **keys, int numkeys,
                                  void *privdata) {
    client *c = ctx->client;
    if (c == NULL || ctx->module == NULL || wakePipeSetup() != C_OK) return NULL;
    moduleBlocked *bc = zcalloc(sizeof(*bc));
    bc->module = ctx->module;
    bc->reply_cb = reply_cb;
    bc->timeout_cb = timeout_cb;
    bc->free_privdata = free_privdata;
    bc->timer_id = -1;
    bc->dbid = c->db->id;
    bc->privdata = privdata;
    bc->on_keys = keys != NULL && numkeys > 0;
    bc->repl_offset = replicationOffset();
    bc->reply_client = moduleTempClient();
    bc->reply_client->resp = c->resp;
    bc->reply_client->db = c->db; /* a thread-safe context's database and client id are its client's */
    bc->reply_client->id = c->id;
    ctx->module->blocked_clients++;
    const char *why = refusal(c);
    if (why) {
        addReplyError(c, why);
        return bc;
    }
    bc->client = c;
    c->module_blocked = bc;
    c->flags |= CLIENT_BLOCKED;
    if (bc->on_keys) blockForKeysByModule(c, keys, numkeys);
    if (timeout_ms > 0 && timeout_cb) {
        bc->timer_id = aeCreateTimeEvent(server.el, timeout_ms, timeoutProc, bc, NULL);
        if (bc->timer_id < 0) bc->timer_id = -1;
    }
    return bc;
}

static moduleBlocked *RM_BlockClient(RedisModuleCtx *ctx, ModuleCmdFunc reply_cb, ModuleCmdFunc timeout_cb,
                                     ModuleFreePrivFunc free_privdata, long long timeout_ms) {
    return blockClient(ctx, reply_cb, timeout_cb, free_privdata, timeout_ms, NULL, 0, NULL);
}

static moduleBlocked *RM_BlockClientOnKeys(RedisModuleCtx *ctx, ModuleCmdFunc reply_cb, ModuleCmdFunc timeout_cb,
                                           ModuleFreePrivFunc free_privdata, long long timeout_ms, robj **keys,
                                           int numkeys, void *privdata) {
    return blockClient(ctx, reply_cb, timeout_cb, free_privdata, timeout_ms, keys, numkeys, privdata);
}

/* blocked.c: a key the client waits for is ready. The reply callback
 * serves it (OK) or leaves it waiting; served, it is released as if the
 * module had unblocked it. */
void moduleBlockedServeOnKey(client *c, robj *key) {
    moduleBlocked *bc = c->module_blocked;
    if (bc->unblocked || bc->reply_cb == NULL) return;
    long long errors = server.stat_total_error_replies;
    RedisModuleCtx ctx;
    callbackCtx(&ctx, bc, MODCTX_BLOCKED_REPLY);
    ctx.blocked_ready_key = key;
    client *old = server.current_client;
    server.current_client = c;
    uint64_t start = monotonicUs();
    int served = bc->reply_cb(&ctx, c->argv, c->argc) == MODAPI_OK;
    uint64_t reply_us = monotonicUs() - start;
    server.current_client = old;
    moduleCtxFinish(&ctx);
    if (!served) return;
    countCompletedCall(c, bc, reply_us, server.stat_total_error_replies != errors);
    queueRelease(bc, NULL);
}

static void RM_SignalKeyAsReady(RedisModuleCtx *ctx, robj *key) {
    signalKeyAsReady(ctx->client ? ctx->client->db : server.db, key, OBJ_MODULE);
}

/* Any thread: queue the handle for the main thread and wake it. A client
 * blocked on keys keeps the private data it blocked with. */
static void queueRelease(moduleBlocked *bc, void *privdata) {
    pthread_mutex_lock(&unblocked_mutex);
    if (!bc->on_keys) bc->privdata = privdata;
    bc->unblocked = 1;
    if (listLength(unblocked) == 0 && write(wake_pipe[1], "A", 1) != 1) {
        /* the pipe is full: a wake-up is pending anyway */
    }
    listAddNodeTail(unblocked, bc);
    pthread_mutex_unlock(&unblocked_mutex);
}

/* On a client blocked on keys, as in Redis 7.0: it needs a timeout
 * callback, which answers the client (main thread only then). */
static int RM_UnblockClient(moduleBlocked *bc, void *privdata) {
    if (bc == NULL) return MODAPI_ERR;
    if (bc->on_keys) {
        if (bc->timeout_cb == NULL) return MODAPI_ERR;
        if (bc->unblocked) return MODAPI_OK;
        if (bc->client) timedOut(bc);
    }
    queueRelease(bc, privdata);
    return MODAPI_OK;
}

static int RM_AbortBlock(moduleBlocked *bc) {
    if (bc == NULL) return MODAPI_ERR;
    bc->reply_cb = NULL;
    bc->disconnect_cb = NULL;
    return RM_UnblockClient(bc, NULL);
}

static void RM_SetDisconnectCallback(moduleBlocked *bc, ModuleDisconnectFunc cb) {
    if (bc) bc->disconnect_cb = cb;
}

/* Main thread: one released handle's reply, private data and client. */
static void finishBlocked(moduleBlocked *bc) {
    client *c = bc->client;
    uint64_t reply_us = 0;
    long long errors = server.stat_total_error_replies;
    if (c && bc->reply_cb && !bc->on_keys) { /* on keys: it ran when a key was ready */
        RedisModuleCtx ctx;
        callbackCtx(&ctx, bc, MODCTX_BLOCKED_REPLY);
        uint64_t start = monotonicUs();
        bc->reply_cb(&ctx, c->argv, c->argc);
        reply_us = monotonicUs() - start;
        moduleCtxFinish(&ctx);
    }
    if (bc->privdata && bc->free_privdata) {
        RedisModuleCtx ctx;
        callbackCtx(&ctx, bc, c ? 0 : MODCTX_BLOCKED_DISCONNECTED);
        bc->free_privdata(&ctx, bc->privdata);
        moduleCtxFinish(&ctx);
    }
    sds proto = replyTakeAll(bc->reply_client);
    if (c && sdslen(proto)) addReplyProto(c, proto, sdslen(proto));
    if (c) replyCountDeferredErrors(c, bc->reply_client->deferred_errors); /* a thread's: counted here */
    /* what its thread propagated meanwhile is the client's write: a WAIT
     * after the reply waits for it (Redis 7.0 assumes the thread wrote) */
    if (c) replicationNoteClientWrite(c, bc->repl_offset);
    sdsfree(proto);
    moduleTempClientRelease(bc->reply_client);
    if (c) {
        if (!bc->on_keys) countCompletedCall(c, bc, reply_us, server.stat_total_error_replies != errors);
        releaseClient(bc);
    }
    stopTimeout(bc);
    bc->module->blocked_clients--;
    zfree(bc);
}

void moduleHandleBlockedClients(void) {
    if (unblocked == NULL) return;
    pthread_mutex_lock(&unblocked_mutex);
    while (listLength(unblocked)) {
        listNode *ln = listFirst(unblocked);
        moduleBlocked *bc = listNodeValue(ln);
        listDelNode(unblocked, ln);
        pthread_mutex_unlock(&unblocked_mutex);
        finishBlocked(bc);
        pthread_mutex_lock(&unblocked_mutex);
    }
    pthread_mutex_unlock(&unblocked_mutex);
}

/* ---- what callbacks ask -------------------------------------------------------- */

static int RM_IsBlockedReplyRequest(RedisModuleCtx *ctx) { return (ctx->flags & MODCTX_BLOCKED_REPLY) != 0; }
static int RM_IsBlockedTimeoutRequest(RedisModuleCtx *ctx) { return (ctx->flags & MODCTX_BLOCKED_TIMEOUT) != 0; }
static void *RM_GetBlockedClientPrivateData(RedisModuleCtx *ctx) { return ctx->blocked_privdata; }
static robj *RM_GetBlockedClientReadyKey(RedisModuleCtx *ctx) { return ctx->blocked_ready_key; }
static moduleBlocked *RM_GetBlockedClientHandle(RedisModuleCtx *ctx) { return ctx->blocked; }

static int RM_BlockedClientDisconnected(RedisModuleCtx *ctx) {
    return (ctx->flags & MODCTX_BLOCKED_DISCONNECTED) != 0;
}

static int RM_BlockedClientMeasureTimeStart(moduleBlocked *bc) {
    if (bc == NULL) return MODAPI_ERR;
    bc->measure_start = monotonicUs();
    return MODAPI_OK;
}

static int RM_BlockedClientMeasureTimeEnd(moduleBlocked *bc) {
    if (bc == NULL || bc->measure_start == 0) return MODAPI_ERR;
    bc->background_us += monotonicUs() - bc->measure_start;
    bc->measure_start = 0;
    return MODAPI_OK;
}

/* A thread-safe context's replies go to its blocked client's reply buffer;
 * its database is the one the client had when it blocked. */
client *moduleBlockedReplyClient(moduleBlocked *bc) { return bc->reply_client; }
int moduleBlockedDb(moduleBlocked *bc) { return bc->dbid; }
module *moduleBlockedOwner(moduleBlocked *bc) { return bc->module; }
unsigned long long moduleBlockedClientId(moduleBlocked *bc) { return bc->client ? bc->client->id : 0; }

/* ---- the lookup -------------------------------------------------------------------- */

static const moduleApiEntry block_api[] = {
    MODULE_API(BlockClient), MODULE_API(BlockClientOnKeys), MODULE_API(SignalKeyAsReady), MODULE_API(UnblockClient), MODULE_API(AbortBlock), MODULE_API(SetDisconnectCallback),
    MODULE_API(IsBlockedReplyRequest), MODULE_API(IsBlockedTimeoutRequest), MODULE_API(GetBlockedClientPrivateData),
    MODULE_API(GetBlockedClientReadyKey), MODULE_API(GetBlockedClientHandle), MODULE_API(BlockedClientDisconnected),
    MODULE_API(BlockedClientMeasureTimeStart), MODULE_API(BlockedClientMeasureTimeEnd),
};

int moduleBlockGetApi(const char *name, void *target) {
    return MODULE_API_LOOKUP(block_api, name, target);
}
