/* module_cluster.c -- the cluster API of Redis 7.0 modules: the nodes
 * (GetMyClusterID, GetClusterSize, GetClusterNodesList,
 * FreeClusterNodesList, GetClusterNodeInfo), SetClusterFlags, and
 * messages over the cluster bus (SendClusterMessage,
 * RegisterClusterMessageReceiver), which Redis 7.0 nodes loading the same
 * module exchange with ours.
 *
 * Decisions:
 * - A message names its module by the 64-bit id Redis 7.0 gives it: the
 *   module's name encoded as a data type name of encoding version 0
 *   (module_type.c's moduleTypeEncodeId), 0 for a name that is not 9
 *   characters of that set -- so modules with such names share id 0, as in
 *   Redis. A message goes to the receiver of its type registered by a
 *   module with the same id (the latest registration first, one receiver,
 *   as Redis), only when it comes from a node we know (cluster_bus.c).
 * - Receivers are kept per registering module: NULL unregisters that
 *   module's own (7.0 unlinks the wrong entry when the receiver is the first
 *   of its list), and a module's receivers go when it unloads (7.0 keeps
 *   them, pointing into the unloaded code).
 * - Outside cluster mode everything answers as 7.0's: NULL, 0 or
 *   REDISMODULE_ERR; registration does nothing. GetClusterNodeInfo answers
 *   REDISMODULE_ERR there too (7.0 would dereference its missing state).
 * - Node ids handed out are NUL-terminated (7.0's are exactly 40 bytes);
 *   ids taken in are read as their first 40 bytes, and one shorter than
 *   that (a NUL before) names no node. The flags SetClusterFlags sets are
 *   cluster.c's to act on (CLUSTER_MODULE_*): they accumulate and are never
 *   cleared, as in 7.0.
 */
#include "module_int.h"

#include "cluster.h"

typedef void (*ClusterMsgFunc)(RedisModuleCtx *ctx, const char *sender_id, uint8_t type,
                               const unsigned char *payload, uint32_t len);

typedef struct receiver {
    uint64_t module_id;
    module *owner;
    ClusterMsgFunc callback;
    struct receiver *next;
} receiver;

static receiver *receivers[256]; /* by message type */

static uint64_t moduleClusterId(module *m) { return moduleTypeEncodeId(m->name, 0); }

static void RM_RegisterClusterMessageReceiver(RedisModuleCtx *ctx, uint8_t type, ClusterMsgFunc callback) {
    if (clusterMyId() == NULL || ctx->module == NULL) return;
    receiver **at = &receivers[type];
    while (*at && (*at)->owner != ctx->module) at = &(*at)->next;
    if (*at) {
        if (callback) {
            (*at)->callback = callback;
        } else {
            receiver *gone = *at;
            *at = gone->next;
            zfree(gone);
        }
        return;
    }
    if (callback == NULL) return;
    receiver *r = zmalloc(sizeof(*r));
    r->module_id = moduleClusterId(ctx->module);
    r->owner = ctx->module;
    r->callback = callback;
    r->next = receivers[type];
    receivers[type] = r;
}

static int RM_SendClusterMessage(RedisModuleCtx *ctx, const char *target_id, uint8_t type, const char *msg,
                                 uint32_t len) {
    if (ctx->module == NULL || (msg == NULL && len)) return MODAPI_ERR;
    return clusterSendModuleMessage(target_id, moduleClusterId(ctx->module), type, msg, len) == 0 ? MODAPI_OK
                                                                                                  : MODAPI_ERR;
}

/* cluster_bus.c: a MODULE message from the node sender_id. The callback
 * runs on a temporary client's context; nothing it replies goes anywhere. */
void moduleClusterMessage(const char *sender_id, uint64_t module_id, uint8_t type, const unsigned char *payload,
                          uint32_t len) {
    for (receiver *r = receivers[type]; r; r = r->next) {
        if (r->module_id != module_id) continue;
        client *c = moduleTempClient();
        RedisModuleCtx ctx;
        moduleCtxInit(&ctx, r->owner, c);
        r->callback(&ctx, sender_id, type, payload, len);
        moduleCtxFinish(&ctx);
        moduleTempClientRelease(c);
        return;
    }
}

void moduleClusterRelease(module *m) {
    for (int t = 0; t < 256; t++) {
        receiver **at = &receivers[t];
        while (*at) {
            if ((*at)->owner == m) {
                receiver *gone = *at;
                *at = gone->next;
                zfree(gone);
            } else {
                at = &(*at)->next;
            }
        }
    }
}

static char **RM_GetClusterNodesList(RedisModuleCtx *ctx, size_t *numnodes) {
    (void)ctx;
    size_t count;
    char **ids = clusterNodeIds(&count);
    if (numnodes) *numnodes = count;
    return ids;
}

static void RM_FreeClusterNodesList(char **ids) {
    if (ids == NULL) return;
    for (size_t j = 0; ids[j]; j++) zfree(ids[j]);
    zfree(ids);
}

static const char *RM_GetMyClusterID(void) { return clusterMyId(); }

static size_t RM_GetClusterSize(void) { return clusterNodeCount(); }

static int RM_GetClusterNodeInfo(RedisModuleCtx *ctx, const char *id, char *ip, char *master_id, int *port,
                                 int *flags) {
    (void)ctx;
    return clusterNodeInfo(id, ip, master_id, port, flags) == 0 ? MODAPI_OK : MODAPI_ERR;
}

static void RM_SetClusterFlags(RedisModuleCtx *ctx, uint64_t flags) {
    (void)ctx;
    clusterSetModuleFlags((int)(flags & (CLUSTER_MODULE_NO_FAILOVER | CLUSTER_MODULE_NO_REDIRECTION)));
}

/* ---- the lookup ------------------------------------------------------------------------------ */

static const moduleApiEntry cluster_table[] = {
    MODULE_API(RegisterClusterMessageReceiver),
    MODULE_API(SendClusterMessage),
    MODULE_API(GetClusterNodesList),
    MODULE_API(FreeClusterNodesList),
    MODULE_API(GetMyClusterID),
    MODULE_API(GetClusterSize),
    MODULE_API(GetClusterNodeInfo),
    MODULE_API(SetClusterFlags),
};

int moduleClusterGetApi(const char *name, void *target) {
    return MODULE_API_LOOKUP(cluster_table, name, target);
}
