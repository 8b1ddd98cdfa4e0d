/* mevents.c -- a test module for server events (SubscribeToServerEvent,
 * IsSubEventSupported), used by tests/unit/moduleapi-notify.tcl. Built
 * against Redis 7.0's redismodule.h by utils/build-test-modules.sh, so the
 * same .so runs in Redis 7.0.15.
 *
 * On load it subscribes to FlushDB, CronLoop, ModuleChange, Shutdown and
 * ClientChange (heard as "client connected|disconnected id addr-is-set") and
 * Loading (heard as "loading SUBEVENT").
 * MEVENTS.GET: what it heard since the last call (FlushDB as
 *   "flush start|end sync dbnum selected-db", ModuleChange as
 *   "loaded|unloaded name ver"), and forgets it.
 * MEVENTS.CRON: how many CronLoop events so far; MEVENTS.HZ: the last hz.
 * MEVENTS.UNSUB: unsubscribes from CronLoop (a NULL callback).
 * MEVENTS.SUPPORTED id subevent: IsSubEventSupported.
 * MEVENTS.SUBSCRIBE id dataver: SubscribeToServerEvent's answer (1 OK, 0 ERR).
 * The Shutdown event writes the warning "mevents: shutdown event" to the log. */
#include "redismodule.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SEEN 32
static char *seen[MAX_SEEN];
static int nseen;
static long long crons;
static int last_hz;

static void remember(const char *s) {
    if (nseen < MAX_SEEN) seen[nseen++] = strdup(s);
}

static void onFlush(RedisModuleCtx *ctx, RedisModuleEvent e, uint64_t sub, void *data) {
    (void)e;
    RedisModuleFlushInfo *fi = data;
    char buf[128];
    snprintf(buf, sizeof buf, "flush %s %d %d %d", sub == REDISMODULE_SUBEVENT_FLUSHDB_START ? "start" : "end",
             (int)fi->sync, (int)fi->dbnum, RedisModule_GetSelectedDb(ctx));
    remember(buf);
}

static void onCron(RedisModuleCtx *ctx, RedisModuleEvent e, uint64_t sub, void *data) {
    (void)ctx, (void)e, (void)sub;
    RedisModuleCronLoop *ci = data;
    crons++;
    last_hz = ci->hz;
}

static void onModule(RedisModuleCtx *ctx, RedisModuleEvent e, uint64_t sub, void *data) {
    (void)ctx, (void)e;
    RedisModuleModuleChange *mc = data;
    char buf[128];
    snprintf(buf, sizeof buf, "%s %s %d", sub == REDISMODULE_SUBEVENT_MODULE_LOADED ? "loaded" : "unloaded",
             mc->module_name, (int)mc->module_version);
    remember(buf);
}

static void onClient(RedisModuleCtx *ctx, RedisModuleEvent e, uint64_t sub, void *data) {
    (void)ctx, (void)e;
    RedisModuleClientInfo *ci = data;
    char buf[128];
    snprintf(buf, sizeof buf, "client %s %llu %d",
             sub == REDISMODULE_SUBEVENT_CLIENT_CHANGE_CONNECTED ? "connected" : "disconnected",
             (unsigned long long)ci->id, ci->addr[0] != 0 && ci->port != 0);
    remember(buf);
}

static void onLoading(RedisModuleCtx *ctx, RedisModuleEvent e, uint64_t sub, void *data) {
    (void)ctx, (void)e, (void)data;
    char buf[32];
    snprintf(buf, sizeof buf, "loading %d", (int)sub);
    remember(buf);
}

static void onShutdown(RedisModuleCtx *ctx, RedisModuleEvent e, uint64_t sub, void *data) {
    (void)e, (void)sub, (void)data;
    RedisModule_Log(ctx, "warning", "mevents: shutdown event");
}

static int cmdGet(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    if (argc != 1) return RedisModule_WrongArity(ctx);
    RedisModule_ReplyWithArray(ctx, nseen);
    for (int j = 0; j < nseen; j++) {
        RedisModule_ReplyWithCString(ctx, seen[j]);
        free(seen[j]);
    }
    nseen = 0;
    return REDISMODULE_OK;
}

static int cmdCron(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    return RedisModule_ReplyWithLongLong(ctx, crons);
}

static int cmdHz(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    return RedisModule_ReplyWithLongLong(ctx, last_hz);
}

static int cmdUnsub(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    int rc = RedisModule_SubscribeToServerEvent(ctx, RedisModuleEvent_CronLoop, NULL);
    return RedisModule_ReplyWithLongLong(ctx, rc == REDISMODULE_OK);
}

static int cmdSupported(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    long long id, sub;
    if (RedisModule_StringToLongLong(argv[1], &id) != REDISMODULE_OK ||
        RedisModule_StringToLongLong(argv[2], &sub) != REDISMODULE_OK)
        return RedisModule_ReplyWithError(ctx, "ERR bad number");
    RedisModuleEvent e = {(uint64_t)id, 1};
    return RedisModule_ReplyWithLongLong(ctx, RedisModule_IsSubEventSupported(e, sub));
}

static void ignore(RedisModuleCtx *ctx, RedisModuleEvent e, uint64_t sub, void *data) {
    (void)ctx, (void)e, (void)sub, (void)data;
}

static int cmdSubscribe(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    long long id, ver;
    if (RedisModule_StringToLongLong(argv[1], &id) != REDISMODULE_OK ||
        RedisModule_StringToLongLong(argv[2], &ver) != REDISMODULE_OK)
        return RedisModule_ReplyWithError(ctx, "ERR bad number");
    RedisModuleEvent e = {(uint64_t)id, (uint64_t)ver};
    return RedisModule_ReplyWithLongLong(ctx, RedisModule_SubscribeToServerEvent(ctx, e, ignore) == REDISMODULE_OK);
}

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    if (RedisModule_Init(ctx, "mevents", 2, REDISMODULE_APIVER_1) == REDISMODULE_ERR) return REDISMODULE_ERR;
    if (RedisModule_SubscribeToServerEvent(ctx, RedisModuleEvent_FlushDB, onFlush) != REDISMODULE_OK ||
        RedisModule_SubscribeToServerEvent(ctx, RedisModuleEvent_CronLoop, onCron) != REDISMODULE_OK ||
        RedisModule_SubscribeToServerEvent(ctx, RedisModuleEvent_ModuleChange, onModule) != REDISMODULE_OK ||
        RedisModule_SubscribeToServerEvent(ctx, RedisModuleEvent_Shutdown, onShutdown) != REDISMODULE_OK ||
        RedisModule_SubscribeToServerEvent(ctx, RedisModuleEvent_ClientChange, onClient) != REDISMODULE_OK ||
        RedisModule_SubscribeToServerEvent(ctx, RedisModuleEvent_Loading, onLoading) != REDISMODULE_OK)
        return REDISMODULE_ERR;
    if (RedisModule_CreateCommand(ctx, "mevents.get", cmdGet, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mevents.cron", cmdCron, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mevents.hz", cmdHz, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mevents.unsub", cmdUnsub, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mevents.supported", cmdSupported, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mevents.subscribe", cmdSubscribe, "", 0, 0, 0) == REDISMODULE_ERR)
        return REDISMODULE_ERR;
    return REDISMODULE_OK;
}
