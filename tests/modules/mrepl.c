/* mrepl.c -- a test module for the persistence, replication, SWAPDB and
 * CONFIG server events, used by tests/unit/moduleapi-events.tcl. Built
 * against Redis 7.0's redismodule.h by utils/build-test-modules.sh, so the
 * same .so runs in Redis 7.0.15.
 *
 * It subscribes on load to Persistence ("persistence SUBEVENT"),
 * ReplicationRoleChanged ("role master|replica HOST PORT"),
 * MasterLinkChange ("masterlink up|down"), ReplicaChange ("replica
 * online|offline"), SwapDB ("swapdb FIRST SECOND") and Config ("config N
 * NAME..."). Each event is also logged as "mrepl: <event>" (a fork child's
 * persistence events are only seen there).
 * LoadingProgress is counted, not logged: MREPL.PROGRESS replies the RDB
 * and AOF counts and the last progress (0..1024).
 * MREPL.GET: what it heard since the last call, and forgets it. */
#include "redismodule.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SEEN 64
static char *seen[MAX_SEEN];
static int nseen;

static void heard(RedisModuleCtx *ctx, const char *s) {
    RedisModule_Log(ctx, "warning", "mrepl: %s", s);
    if (nseen < MAX_SEEN) seen[nseen++] = strdup(s);
}

static void onPersistence(RedisModuleCtx *ctx, RedisModuleEvent e, uint64_t sub, void *data) {
    (void)e;
    (void)data;
    char buf[64];
    snprintf(buf, sizeof buf, "persistence %llu", (unsigned long long)sub);
    heard(ctx, buf);
}

static void onRole(RedisModuleCtx *ctx, RedisModuleEvent e, uint64_t sub, void *data) {
    (void)e;
    RedisModuleReplicationInfo *ri = data;
    char buf[300];
    snprintf(buf, sizeof buf, "role %s %s %d master=%d",
             sub == REDISMODULE_EVENT_REPLROLECHANGED_NOW_MASTER ? "master" : "replica",
             ri->masterhost ? ri->masterhost : "(null)", ri->masterport, ri->master);
    heard(ctx, buf);
}

static void onMasterLink(RedisModuleCtx *ctx, RedisModuleEvent e, uint64_t sub, void *data) {
    (void)e;
    (void)data;
    heard(ctx, sub == REDISMODULE_SUBEVENT_MASTER_LINK_UP ? "masterlink up" : "masterlink down");
}

static void onReplica(RedisModuleCtx *ctx, RedisModuleEvent e, uint64_t sub, void *data) {
    (void)e;
    (void)data;
    heard(ctx, sub == REDISMODULE_SUBEVENT_REPLICA_CHANGE_ONLINE ? "replica online" : "replica offline");
}

static void onSwapDb(RedisModuleCtx *ctx, RedisModuleEvent e, uint64_t sub, void *data) {
    (void)e;
    (void)sub;
    RedisModuleSwapDbInfo *si = data;
    char buf[64];
    snprintf(buf, sizeof buf, "swapdb %d %d", si->dbnum_first, si->dbnum_second);
    heard(ctx, buf);
}

static void onConfig(RedisModuleCtx *ctx, RedisModuleEvent e, uint64_t sub, void *data) {
    (void)e;
    (void)sub;
    RedisModuleConfigChange *cc = data;
    char buf[256];
    int n = snprintf(buf, sizeof buf, "config %u", cc->num_changes);
    for (uint32_t i = 0; i < cc->num_changes && n > 0 && (size_t)n < sizeof buf; i++)
        n += snprintf(buf + n, sizeof buf - (size_t)n, " %s", cc->config_names[i]);
    heard(ctx, buf);
}

static long long progress_count[2];
static int last_progress = -1;

static void onProgress(RedisModuleCtx *ctx, RedisModuleEvent e, uint64_t sub, void *data) {
    (void)ctx;
    (void)e;
    RedisModuleLoadingProgress *lp = data;
    progress_count[sub == REDISMODULE_SUBEVENT_LOADING_PROGRESS_AOF ? 1 : 0]++;
    last_progress = lp->progress;
}

static int cmdProgress(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    (void)argc;
    RedisModule_ReplyWithArray(ctx, 3);
    RedisModule_ReplyWithLongLong(ctx, progress_count[0]);
    RedisModule_ReplyWithLongLong(ctx, progress_count[1]);
    return RedisModule_ReplyWithLongLong(ctx, last_progress);
}

static int cmdGet(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    (void)argc;
    RedisModule_ReplyWithArray(ctx, nseen);
    for (int i = 0; i < nseen; i++) {
        RedisModule_ReplyWithSimpleString(ctx, seen[i]);
        free(seen[i]);
    }
    nseen = 0;
    return REDISMODULE_OK;
}

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    (void)argc;
    if (RedisModule_Init(ctx, "mrepl", 1, REDISMODULE_APIVER_1) == REDISMODULE_ERR) return REDISMODULE_ERR;
    if (RedisModule_SubscribeToServerEvent(ctx, RedisModuleEvent_Persistence, onPersistence) != REDISMODULE_OK ||
        RedisModule_SubscribeToServerEvent(ctx, RedisModuleEvent_ReplicationRoleChanged, onRole) != REDISMODULE_OK ||
        RedisModule_SubscribeToServerEvent(ctx, RedisModuleEvent_MasterLinkChange, onMasterLink) != REDISMODULE_OK ||
        RedisModule_SubscribeToServerEvent(ctx, RedisModuleEvent_ReplicaChange, onReplica) != REDISMODULE_OK ||
        RedisModule_SubscribeToServerEvent(ctx, RedisModuleEvent_SwapDB, onSwapDb) != REDISMODULE_OK ||
        RedisModule_SubscribeToServerEvent(ctx, RedisModuleEvent_Config, onConfig) != REDISMODULE_OK ||
        RedisModule_SubscribeToServerEvent(ctx, RedisModuleEvent_LoadingProgress, onProgress) != REDISMODULE_OK)
        return REDISMODULE_ERR;
    if (RedisModule_CreateCommand(ctx, "mrepl.get", cmdGet, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mrepl.progress", cmdProgress, "", 0, 0, 0) == REDISMODULE_ERR)
        return REDISMODULE_ERR;
    return REDISMODULE_OK;
}
