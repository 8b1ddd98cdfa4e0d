/* module_thread.c -- module threads: thread-safe contexts and the lock
 * (GetThreadSafeContext, GetDetachedThreadSafeContext,
 * FreeThreadSafeContext, ThreadSafeContextLock/TryLock/Unlock), and the
 * fake clients module contexts reply into.
 *
 * A module thread may touch the keyspace, Call commands or reply only
 * while it holds the lock. The main thread holds it whenever it is not
 * waiting for events: moduleAfterSleep takes it when the loop wakes,
 * moduleBeforeSleep releases it as the last step before the loop waits, so
 * a module thread runs exactly while the server sleeps, as in Redis 7.0.
 *
 * Decisions:
 * - The lock is taken only once a module is loaded (moduleGILStart, called
 *   by module.c): a server without modules pays nothing for it; one with
 *   modules pays a mutex lock and unlock per loop pass. Once started it
 *   stays started (modules may leave threads behind an unload).
 * - The main thread's holding is a plain flag only it reads and writes, so
 *   an event-loop pass without a before- or after-sleep call (a load
 *   serving clients) neither locks twice nor unlocks what it does not hold.
 * - A context for a blocked client replies into the client's reply buffer
 *   (module_block.c appends it when the client is unblocked) and uses the
 *   database the client had when it blocked; a detached one (no blocked
 *   client) has a fake client of its own and its replies go nowhere, as
 *   Redis's do.
 */
#include "module_int.h"

#include <pthread.h>
#include <errno.h>

static pthread_mutex_t gil = PTHREAD_MUTEX_INITIALIZER;
static int gil_started;  /* main thread only */
static int gil_held;     /* main thread only */

void moduleGILStart(void) {
    if (gil_started) return;
    gil_started = 1;
    pthread_mutex_lock(&gil);
    gil_held = 1;
}

void moduleBeforeSleep(void) {
    if (!gil_held) return;
    gil_held = 0;
    pthread_mutex_unlock(&gil);
}

void moduleAfterSleep(void) {
    if (!gil_started || gil_held) return;
    pthread_mutex_lock(&gil);
    gil_held = 1;
}

/* ---- fake clients ------------------------------------------------------------------- */

/* A client that collects replies and has a database; no connection. */
client *moduleTempClient(void) {
    client *c = createClient(NULL);
    c->flags |= CLIENT_FAKE | CLIENT_SCRIPT | CLIENT_MODULE;
    clientSetAuthenticated(c, 1);
    return c;
}

void moduleTempClientRelease(client *c) {
    sdsfree(replyTakeAll(c));
    freeClient(c);
}

/* ---- thread-safe contexts ------------------------------------------------------------ */

#define TSC_OWN_CLIENT (1 << 30) /* the context's fake client is its own (detached) */

static RedisModuleCtx *RM_GetThreadSafeContext(struct moduleBlocked *bc) {
    RedisModuleCtx *ctx = zmalloc(sizeof(*ctx));
    if (bc) {
        client *c = moduleBlockedReplyClient(bc);
        moduleCtxInitOffThread(ctx, moduleBlockedOwner(bc), c);
        ctx->blocked = bc;
        ctx->reply_client = c;
    } else {
        moduleCtxInitOffThread(ctx, NULL, moduleTempClient());
        ctx->flags |= TSC_OWN_CLIENT;
    }
    ctx->flags |= MODCTX_THREAD_SAFE;
    return ctx;
}

static RedisModuleCtx *RM_GetDetachedThreadSafeContext(RedisModuleCtx *parent) {
    RedisModuleCtx *ctx = RM_GetThreadSafeContext(NULL);
    ctx->module = parent ? parent->module : NULL;
    return ctx;
}

static void RM_FreeThreadSafeContext(RedisModuleCtx *ctx) {
    if (ctx == NULL) return;
    moduleCtxFinish(ctx);
    if (ctx->flags & TSC_OWN_CLIENT) moduleTempClientRelease(ctx->client);
    zfree(ctx);
}

/* While a thread holds the lock it is an execution unit of propagate.c
 * (the main thread sleeps meanwhile): what it propagates, by Replicate or
 * by the commands it Calls, goes out when it lets go, in MULTI/EXEC when
 * there is more than one op, as Redis 7.0 does. */
static void RM_ThreadSafeContextLock(RedisModuleCtx *ctx) {
    (void)ctx;
    pthread_mutex_lock(&gil);
    propagateUnitBegin(1);
}

static int RM_ThreadSafeContextTryLock(RedisModuleCtx *ctx) {
    (void)ctx;
    int res = pthread_mutex_trylock(&gil);
    if (res != 0) {
        errno = res;
        return MODAPI_ERR;
    }
    propagateUnitBegin(1);
    return MODAPI_OK;
}

static void RM_ThreadSafeContextUnlock(RedisModuleCtx *ctx) {
    (void)ctx;
    propagateUnitEnd();
    moduleYieldEnd(); /* a thread that yielded under the lock: the busy state ends (module_yield.c) */
    pthread_mutex_unlock(&gil);
}

/* ---- the lookup -------------------------------------------------------------------- */

static const moduleApiEntry thread_api[] = {
    MODULE_API(GetThreadSafeContext), MODULE_API(GetDetachedThreadSafeContext), MODULE_API(FreeThreadSafeContext),
    MODULE_API(ThreadSafeContextLock), MODULE_API(ThreadSafeContextTryLock), MODULE_API(ThreadSafeContextUnlock),
};

int moduleThreadGetApi(const char *name, void *target) {
    return MODULE_API_LOOKUP(thread_api, name, target);
}
