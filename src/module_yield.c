/* module_yield.c -- RedisModule_Yield: a long module command lets the
 * server breathe.
 *
 * A module command that runs long calls Yield now and then. Once the
 * command has run past busy-reply-threshold (and then every 1/hz s), one
 * pass of file events is served from inside it, as a busy script's hook
 * does (script.c): with REDISMODULE_YIELD_FLAG_CLIENTS other clients'
 * commands are answered -BUSY with the module's text (or Redis's "busy
 * running a module command"), commands flagged allow-busy run; without it
 * their input is only read and waits for the command to end. While a load
 * runs, Yield just serves the load's pass.
 *
 * Decisions:
 * - The busy state belongs to the outermost module command and ends when
 *   it returns (moduleYieldEnd, from module.c's dispatch), or, for a module
 *   thread yielding under the lock, when it unlocks (module_thread.c): its
 *   client was protected from being freed meanwhile, as in Redis.
 * - Yield inside Yield (a command run from a served pass that yields
 *   too) does nothing.
 */
#include "module_int.h"

#define YIELD_FLAG_CLIENTS (1 << 1) /* REDISMODULE_YIELD_FLAG_CLIENTS */

#define BUSY_EVENTS (1 << 0)
#define BUSY_CLIENTS (1 << 1)

static int busy;                 /* BUSY_* while a module command yields */
static const char *busy_text;    /* its -BUSY text, or NULL for Redis's default */
static client *busy_client;      /* protected while busy */
static int nesting;

static void servePass(void) {
    client *running = server.current_client;
    updateCachedTime();
    aeProcessEvents(server.el, AE_FILE_EVENTS | AE_DONT_WAIT);
    aofBeforeSleep();
    handleClientsWithPendingWrites();
    freeClientsInAsyncFreeQueue();
    server.current_client = running;
}

static void RM_Yield(RedisModuleCtx *ctx, int flags, const char *busy_reply) {
    if (nesting) return;
    nesting++;
    long long now = monotonicUs();
    if (ctx->yield_start == 0) /* first yield: after 1/hz s in a load or a thread, as Redis */
        ctx->yield_start = now + (server.loading || (ctx->flags & MODCTX_THREAD_SAFE) ? 1000000 / server.hz
                                                                                       : server.busy_reply_threshold * 1000);
    if (now >= ctx->yield_start) {
        if (server.loading) {
            servePass();
        } else {
            const char *prev = busy_text;
            busy_text = busy_reply;
            if (!busy) {
                busy = BUSY_EVENTS;
                busy_client = server.current_client;
                if (busy_client) protectClient(busy_client);
            }
            if (flags & YIELD_FLAG_CLIENTS) busy |= BUSY_CLIENTS;
            servePass();
            busy_text = prev;
            busy &= ~BUSY_CLIENTS;
        }
        ctx->yield_start = now + 1000000 / server.hz;
    }
    nesting--;
}

void moduleYieldEnd(void) {
    if (!busy || nesting) return;
    busy = 0;
    if (busy_client) unprotectClient(busy_client);
    busy_client = NULL;
}

/* processCommand: the -BUSY refusal while a module command yields, or NULL. */
sds moduleBusyError(void) {
    if (!busy) return NULL;
    if (busy_text) return sdscatfmt(sdsempty(), "-BUSY %s", busy_text);
    return sdsnew("-BUSY Redis is busy running a module command.");
}

/* networking.c: a yield without YIELD_FLAG_CLIENTS reads input, runs none. */
int moduleBusyHoldsInput(void) { return busy && !(busy & BUSY_CLIENTS); }

int moduleYieldGetApi(const char *name, void *target) {
    if (strcmp(name, "RedisModule_Yield")) return MODAPI_ERR;
    void (*fn)(RedisModuleCtx *, int, const char *) = RM_Yield;
    memcpy(target, &fn, sizeof fn);
    return MODAPI_OK;
}
