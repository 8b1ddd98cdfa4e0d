/* module_timer.c -- module timers: CreateTimer, StopTimer, GetTimerInfo.
 *
 * Each module timer is one ae time event of the main loop, fired once
 * (modules re-arm by creating another, as with Redis's). The timers are
 * found by their id in a rax (8-byte keys), so a module can stop or query
 * any number of them cheaply.
 *
 * Decisions:
 * - Ids count from 1 and are never reused; 0 is never a timer (Redis's
 *   tests ask for timer 0 expecting nothing).
 * - A timer is its module's: another module can neither stop nor query it.
 *   A module with timers pending cannot unload (Redis 7.0's EINPROGRESS:
 *   "the module holds timer that is not fired"), so no callback outlives
 *   its code.
 * - The callback's context has a fake client in the database that was
 *   selected when the timer was created (Call, OpenKey and Replicate act
 *   there); what it replies goes nowhere.
 */
#include "module_int.h"
#include "rax.h"

typedef void (*ModuleTimerFunc)(RedisModuleCtx *ctx, void *data);

typedef struct moduleTimer {
    uint64_t id;
    module *module;
    ModuleTimerFunc callback;
    void *data;
    int dbid;
    long long ae_id;
    long long when_us; /* absolute, for GetTimerInfo: in us, so a fresh 10 s timer has 9999 ms left, as in Redis */
} moduleTimer;

static rax *timers;
static uint64_t next_timer_id = 1;
static client *timer_client; /* the callbacks' fake client */

static moduleTimer *timerFind(uint64_t id) {
    if (timers == NULL) return NULL;
    unsigned char key[8];
    store64(key, id);
    void *t = raxFind(timers, key, sizeof key);
    return t == raxNotFound ? NULL : t;
}

static void timerForget(moduleTimer *t) {
    unsigned char key[8];
    store64(key, t->id);
    raxRemove(timers, key, sizeof key, NULL);
    t->module->timers--;
    zfree(t);
}

static int timerFire(aeEventLoop *el, long long id, void *data) {
    (void)el, (void)id;
    moduleTimer *t = data;
    if (timer_client == NULL) timer_client = moduleTempClient();
    selectDb(timer_client, t->dbid);
    RedisModuleCtx ctx;
    moduleCtxInit(&ctx, t->module, timer_client);
    ModuleTimerFunc cb = t->callback;
    void *cbdata = t->data;
    timerForget(t); /* gone before the callback runs: it may create timers, or query this one */
    cb(&ctx, cbdata);
    moduleCtxFinish(&ctx);
    sdsfree(replyTakeAll(timer_client));
    return AE_NOMORE;
}

static uint64_t RM_CreateTimer(RedisModuleCtx *ctx, long long period, ModuleTimerFunc callback, void *data) {
    if (ctx->module == NULL || callback == NULL) return 0;
    if (period < 0) period = 0;
    if (period > (1LL << 40)) period = 1LL << 40; /* ~35 years: no overflow in microseconds */
    moduleTimer *t = zcalloc(sizeof(*t));
    t->id = next_timer_id++;
    t->module = ctx->module;
    t->callback = callback;
    t->data = data;
    t->dbid = ctx->client ? ctx->client->db->id : 0;
    t->when_us = ustime() + period * 1000;
    t->ae_id = aeCreateTimeEvent(server.el, period, timerFire, t, NULL);
    if (t->ae_id < 0) {
        zfree(t);
        return 0;
    }
    if (timers == NULL) timers = raxNew();
    unsigned char key[8];
    store64(key, t->id);
    raxTryInsert(timers, key, sizeof key, t, NULL);
    ctx->module->timers++;
    return t->id;
}

static int RM_StopTimer(RedisModuleCtx *ctx, uint64_t id, void **data) {
    moduleTimer *t = timerFind(id);
    if (t == NULL || t->module != ctx->module) return MODAPI_ERR;
    if (data) *data = t->data;
    aeDeleteTimeEvent(server.el, t->ae_id);
    timerForget(t);
    return MODAPI_OK;
}

static int RM_GetTimerInfo(RedisModuleCtx *ctx, uint64_t id, uint64_t *remaining, void **data) {
    moduleTimer *t = timerFind(id);
    if (t == NULL || t->module != ctx->module) return MODAPI_ERR;
    if (remaining) {
        long long left = t->when_us - ustime();
        *remaining = left > 0 ? (uint64_t)(left / 1000) : 0;
    }
    if (data) *data = t->data;
    return MODAPI_OK;
}

/* ---- the lookup -------------------------------------------------------------------- */

static const moduleApiEntry timer_api[] = {
    MODULE_API(CreateTimer), MODULE_API(StopTimer), MODULE_API(GetTimerInfo),
};

int moduleTimerGetApi(const char *name, void *target) {
    return MODULE_API_LOOKUP(timer_api, name, target);
}
