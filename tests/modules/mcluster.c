/* mcluster.c -- a test module for the cluster API (GetMyClusterID,
 * GetClusterSize, GetClusterNodesList, FreeClusterNodesList,
 * GetClusterNodeInfo, SetClusterFlags, SendClusterMessage,
 * RegisterClusterMessageReceiver), used by tests/unit/moduleapi-cluster.tcl.
 * Built against Redis 7.0's redismodule.h by utils/build-test-modules.sh, so
 * the same .so runs in Redis 7.0.15. Its name, "mclustert", is 9 characters
 * of the type-name set: its messages carry a non-zero module id.
 *
 * MCLUSTER.MYID               -> this node's id, or nil outside cluster mode
 * MCLUSTER.SIZE               -> GetClusterSize
 * MCLUSTER.NODES              -> the ids GetClusterNodesList gives (nil
 *                                outside cluster mode)
 * MCLUSTER.INFO id            -> ip, master id ("-" when zero bytes), port,
 *                                flags (the REDISMODULE_NODE_* bits), or an
 *                                error for an unknown node
 * MCLUSTER.SEND target type payload  -> OK, or an error when the send fails;
 *                                target "*" is every node (NULL)
 * MCLUSTER.LISTEN type on|off -> registers (or unregisters) the receiver of
 *                                messages of that type
 * MCLUSTER.RECEIVED           -> every message received, in order, as
 *                                "sender:type:payload"
 * MCLUSTER.FLAGS name...      -> SetClusterFlags of noredirection and/or
 *                                nofailover
 */
#include "redismodule.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

#define MAX_RECEIVED 1000
static char *received[MAX_RECEIVED];
static size_t received_len[MAX_RECEIVED];
static int nreceived;

static void onMessage(RedisModuleCtx *ctx, const char *sender_id, uint8_t type, const unsigned char *payload,
                      uint32_t len) {
    (void)ctx;
    if (nreceived == MAX_RECEIVED) return;
    size_t size = REDISMODULE_NODE_ID_LEN + 8 + len + 1;
    char *s = RedisModule_Alloc(size);
    int n = snprintf(s, size, "%.*s:%u:", REDISMODULE_NODE_ID_LEN, sender_id, (unsigned)type);
    memcpy(s + n, payload, len);
    s[n + len] = '\0';
    received_len[nreceived] = (size_t)n + len;
    received[nreceived++] = s;
}

static int MyId(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    if (argc != 1) return RedisModule_WrongArity(ctx);
    const char *id = RedisModule_GetMyClusterID();
    if (id == NULL) return RedisModule_ReplyWithNull(ctx);
    return RedisModule_ReplyWithStringBuffer(ctx, id, REDISMODULE_NODE_ID_LEN);
}

static int Size(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    if (argc != 1) return RedisModule_WrongArity(ctx);
    return RedisModule_ReplyWithLongLong(ctx, (long long)RedisModule_GetClusterSize());
}

static int Nodes(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    if (argc != 1) return RedisModule_WrongArity(ctx);
    size_t count = 12345;
    char **ids = RedisModule_GetClusterNodesList(ctx, &count);
    if (ids == NULL) return RedisModule_ReplyWithNull(ctx);
    RedisModule_ReplyWithArray(ctx, (long)count);
    for (size_t j = 0; j < count; j++) RedisModule_ReplyWithStringBuffer(ctx, ids[j], REDISMODULE_NODE_ID_LEN);
    RedisModule_FreeClusterNodesList(ids);
    return REDISMODULE_OK;
}

static int Info(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    size_t len;
    const char *arg = RedisModule_StringPtrLen(argv[1], &len);
    char id[REDISMODULE_NODE_ID_LEN + 1];
    snprintf(id, sizeof id, "%s", arg);
    char ip[64], master[REDISMODULE_NODE_ID_LEN];
    int port = -1, flags = -1;
    memset(ip, 'x', sizeof ip);
    if (RedisModule_GetClusterNodeInfo(ctx, id, ip, master, &port, &flags) != REDISMODULE_OK)
        return RedisModule_ReplyWithError(ctx, "ERR no such node");
    ip[sizeof ip - 1] = '\0';
    static const char zeros[REDISMODULE_NODE_ID_LEN];
    RedisModule_ReplyWithArray(ctx, 4);
    RedisModule_ReplyWithCString(ctx, ip);
    if (memcmp(master, zeros, sizeof zeros) == 0) RedisModule_ReplyWithCString(ctx, "-");
    else RedisModule_ReplyWithStringBuffer(ctx, master, REDISMODULE_NODE_ID_LEN);
    RedisModule_ReplyWithLongLong(ctx, port);
    RedisModule_ReplyWithLongLong(ctx, flags);
    return REDISMODULE_OK;
}

static int Send(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 4) return RedisModule_WrongArity(ctx);
    const char *target = RedisModule_StringPtrLen(argv[1], NULL);
    long long type;
    if (RedisModule_StringToLongLong(argv[2], &type) != REDISMODULE_OK || type < 0 || type > 255)
        return RedisModule_ReplyWithError(ctx, "ERR bad type");
    size_t len;
    const char *payload = RedisModule_StringPtrLen(argv[3], &len);
    if (RedisModule_SendClusterMessage(ctx, strcmp(target, "*") ? target : NULL, (uint8_t)type, payload,
                                       (uint32_t)len) != REDISMODULE_OK)
        return RedisModule_ReplyWithError(ctx, "ERR send failed");
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

static int Listen(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    long long type;
    if (RedisModule_StringToLongLong(argv[1], &type) != REDISMODULE_OK || type < 0 || type > 255)
        return RedisModule_ReplyWithError(ctx, "ERR bad type");
    int on = !strcasecmp(RedisModule_StringPtrLen(argv[2], NULL), "on");
    RedisModule_RegisterClusterMessageReceiver(ctx, (uint8_t)type, on ? onMessage : NULL);
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

static int Received(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    if (argc != 1) return RedisModule_WrongArity(ctx);
    RedisModule_ReplyWithArray(ctx, nreceived);
    for (int j = 0; j < nreceived; j++) RedisModule_ReplyWithStringBuffer(ctx, received[j], received_len[j]);
    return REDISMODULE_OK;
}

static int Flags(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    uint64_t flags = 0;
    for (int j = 1; j < argc; j++) {
        const char *f = RedisModule_StringPtrLen(argv[j], NULL);
        if (!strcasecmp(f, "noredirection")) flags |= REDISMODULE_CLUSTER_FLAG_NO_REDIRECTION;
        else if (!strcasecmp(f, "nofailover")) flags |= REDISMODULE_CLUSTER_FLAG_NO_FAILOVER;
        else return RedisModule_ReplyWithError(ctx, "ERR unknown flag");
    }
    RedisModule_SetClusterFlags(ctx, flags);
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    if (RedisModule_Init(ctx, "mclustert", 1, REDISMODULE_APIVER_1) == REDISMODULE_ERR) return REDISMODULE_ERR;
    static const struct {
        const char *name;
        RedisModuleCmdFunc fn;
        const char *flags;
    } cmds[] = {
        {"mcluster.myid", MyId, "readonly"},  {"mcluster.size", Size, "readonly"},
        {"mcluster.nodes", Nodes, "readonly"}, {"mcluster.info", Info, "readonly"},
        {"mcluster.send", Send, "readonly"},  {"mcluster.listen", Listen, "readonly"},
        {"mcluster.received", Received, "readonly"}, {"mcluster.flags", Flags, "readonly"},
    };
    for (size_t j = 0; j < sizeof cmds / sizeof cmds[0]; j++)
        if (RedisModule_CreateCommand(ctx, cmds[j].name, cmds[j].fn, cmds[j].flags, 0, 0, 0) == REDISMODULE_ERR)
            return REDISMODULE_ERR;
    return REDISMODULE_OK;
}
