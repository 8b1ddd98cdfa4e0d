/* module_misc.c -- the small odds and ends of Redis 7.0's module API:
 * absolute expires (GetAbsExpire, SetAbsExpire), a key's access clock
 * (GetLRU, SetLRU, GetLFU, SetLFU), the key handle's name and database,
 * random bytes and hex characters, allocation sizes (MallocSize,
 * MallocUsableSize, MallocSizeString), GetUsedMemoryRatio, publishing
 * (PublishMessage, PublishMessageShard), SignalModifiedKey, client names
 * and descriptions by id (GetClientNameById, SetClientNameById,
 * GetClientInfoById), LatencyAddSample, AvoidReplicaTraffic,
 * GetTypeMethodVersion and ResetDataset.
 *
 * Each is a thin call into the server function that already does the
 * work (db.c's expires, evict.c's LFU counter, object.c's LRU clock,
 * pubsub.c, latency.c, client_cmd.c's pause state); this file only gives
 * them 7.0's names, argument checks, return values and errno.
 *
 * Decisions:
 * - SetLFU with a frequency above 255 answers REDISMODULE_ERR: 7.0.15
 *   asserts (the counter is 8 bits), and a module's bad value should not
 *   take the server down.
 * - SignalModifiedKey outside a command (OnLoad, no client) uses db 0:
 *   7.0.15 dereferences the missing client.
 * - GetClientInfoById never sets the SSL flag: a connection here does not
 *   say whether it is TLS. */
#include "module_int.h"

#include "aof.h"
#include "cluster.h"
#include "lib/osrandom.h"

#include <errno.h>
#include <string.h>

typedef struct redisObject RString;

/* ---- expires ----------------------------------------------------------------------------- */

static long long RM_GetAbsExpire(moduleKey *k) {
    robj *v = k ? moduleKeyValue(k) : NULL;
    if (v == NULL) return MODAPI_NO_EXPIRE;
    long long when = kvobjGetExpire(v);
    return when == -1 ? MODAPI_NO_EXPIRE : when;
}

static int RM_SetAbsExpire(moduleKey *k, long long expire) {
    if (k == NULL || !(k->mode & MODAPI_KEY_WRITE) || moduleKeyValue(k) == NULL) return MODAPI_ERR;
    if (expire != MODAPI_NO_EXPIRE && expire < 0) return MODAPI_ERR;
    if (expire == MODAPI_NO_EXPIRE) removeExpire(k->db, k->key);
    else setExpire(k->ctx->client, k->db, k->key, expire);
    return MODAPI_OK;
}

/* ---- the access clock: LRU idle time or LFU counter, by the eviction policy ---------------- */

static int lfuPolicy(void) { return (server.maxmemory_policy & MAXMEMORY_FLAG_LFU) != 0; }

/* The key's value if its clock may be read or set (a shared object has none of its own). */
static robj *clockValue(moduleKey *k) {
    robj *v = k ? moduleKeyValue(k) : NULL;
    return v && v->refcount != OBJ_SHARED_REFCOUNT ? v : NULL;
}

/* Idle milliseconds, or -1 under an LFU policy (where there is no LRU clock). */
static int RM_GetLRU(moduleKey *k, long long *lru_idle) {
    *lru_idle = -1;
    robj *v = clockValue(k);
    if (v == NULL) return MODAPI_ERR;
    if (!lfuPolicy()) *lru_idle = (long long)estimateObjectIdleTime(v);
    return MODAPI_OK;
}

/* Refused under an LFU policy and for a negative idle time, as in 7.0. */
static int RM_SetLRU(moduleKey *k, long long lru_idle) {
    robj *v = clockValue(k);
    if (v == NULL || lfuPolicy() || lru_idle < 0) return MODAPI_ERR;
    long long ticks = lru_idle / LRU_CLOCK_RESOLUTION; /* the clock counts LRU_CLOCK_RESOLUTION ms */
    v->lru = (unsigned)(((long long)LRU_CLOCK() - ticks) & LRU_CLOCK_MAX);
    return MODAPI_OK;
}

/* The decayed counter, or -1 under an LRU policy. */
static int RM_GetLFU(moduleKey *k, long long *lfu_freq) {
    *lfu_freq = -1;
    robj *v = clockValue(k);
    if (v == NULL) return MODAPI_ERR;
    if (!(server.maxmemory_policy & MAXMEMORY_FLAG_LRU)) *lfu_freq = (long long)lfuDecrAndReturn(v);
    return MODAPI_OK;
}

/* Only under an LFU policy; the counter is stamped with the current minute. */
static int RM_SetLFU(moduleKey *k, long long lfu_freq) {
    robj *v = clockValue(k);
    if (v == NULL || !lfuPolicy() || lfu_freq < 0 || lfu_freq > 255) return MODAPI_ERR;
    v->lru = (lfuInitialClock() & ~0xFFu) | (unsigned)lfu_freq;
    return MODAPI_OK;
}

/* ---- the key handle ------------------------------------------------------------------------ */

static const RString *RM_GetKeyNameFromModuleKey(moduleKey *k) { return k ? k->key : NULL; }

static int RM_GetDbIdFromModuleKey(moduleKey *k) { return k ? k->db->id : -1; }

static int RM_SignalModifiedKey(RedisModuleCtx *ctx, RString *keyname) {
    client *c = ctx ? ctx->client : NULL;
    signalModifiedKey(c, c ? c->db : &server.db[0], keyname);
    return MODAPI_OK;
}

/* ---- randomness ------------------------------------------------------------------------------ */

static void RM_GetRandomBytes(unsigned char *dst, size_t len) { osRandomBytes(dst, len); }

static void RM_GetRandomHexChars(char *dst, size_t len) {
    static const char hex[] = "0123456789abcdef";
    osRandomBytes((unsigned char *)dst, len);
    for (size_t j = 0; j < len; j++) dst[j] = hex[(unsigned char)dst[j] & 15];
}

/* ---- memory ------------------------------------------------------------------------------------ */

static size_t RM_MallocSize(void *ptr) { return zmalloc_size(ptr); }

static size_t RM_MallocUsableSize(void *ptr) { return zmalloc_size(ptr); }

/* The object header and, for a string of its own, its sds allocation. */
static size_t RM_MallocSizeString(RString *s) {
    size_t size = sizeof(*s);
    if (s->encoding == OBJ_ENCODING_RAW) size += sdsAllocSize(s->ptr);
    else if (s->encoding == OBJ_ENCODING_EMBSTR) size += sdslen(s->ptr) + 1;
    return size;
}

/* Used memory (less what eviction does not count) over maxmemory; 0 without a limit. */
static float RM_GetUsedMemoryRatio(void) {
    if (server.maxmemory == 0) return 0;
    size_t used = zmalloc_used_memory(), excluded = memoryNotCountedForEviction();
    used = used > excluded ? used - excluded : 0;
    return (float)used / (float)server.maxmemory;
}

/* ---- publishing ---------------------------------------------------------------------------- */

static int modulePublish(RString *channel, RString *message, int sharded) {
    moduleStringDecode(channel);
    moduleStringDecode(message);
    long receivers = pubsubPublishMessage(channel, message, sharded);
    if (server.cluster_enabled) clusterPropagatePublish(channel, message, sharded);
    return (int)receivers;
}

static int RM_PublishMessage(RedisModuleCtx *ctx, RString *channel, RString *message) {
    (void)ctx;
    return modulePublish(channel, message, 0);
}

static int RM_PublishMessageShard(RedisModuleCtx *ctx, RString *channel, RString *message) {
    (void)ctx;
    return modulePublish(channel, message, 1);
}

/* ---- clients by id --------------------------------------------------------------------------- */

/* The name (retained, in auto memory), or NULL for no such client or one
 * without a name (errno untouched, as in 7.0.15). */
static RString *RM_GetClientNameById(RedisModuleCtx *ctx, uint64_t id) {
    client *c = clientById(id);
    if (c == NULL || c->name == NULL) return NULL;
    incrRefCount(c->name);
    moduleAutoAdd(ctx, AUTO_STRING, c->name);
    return c->name;
}

/* CLIENT SETNAME's rule: printable characters other than space. */
static int clientNameValid(const char *p, size_t len) {
    for (size_t j = 0; j < len; j++)
        if (p[j] < '!' || p[j] > '~') return 0;
    return 1;
}

/* ENOENT: no such client; EINVAL: a name CLIENT SETNAME refuses. An empty
 * name (or NULL) clears it. */
static int RM_SetClientNameById(uint64_t id, RString *name) {
    client *c = clientById(id);
    if (c == NULL) {
        errno = ENOENT;
        return MODAPI_ERR;
    }
    if (name == NULL) {
        if (c->name) decrRefCount(c->name);
        c->name = NULL;
        return MODAPI_OK;
    }
    moduleStringDecode(name);
    if (!clientNameValid(name->ptr, sdslen(name->ptr))) {
        errno = EINVAL;
        return MODAPI_ERR;
    }
    setClientName(c, name);
    return MODAPI_OK;
}

/* RedisModuleClientInfo, version 1: the fields' order and sizes are the ABI's. */
#define CLIENTINFO_FLAG_PUBSUB (1 << 1)
#define CLIENTINFO_FLAG_BLOCKED (1 << 2)
#define CLIENTINFO_FLAG_TRACKING (1 << 3)
#define CLIENTINFO_FLAG_UNIXSOCKET (1 << 4)
#define CLIENTINFO_FLAG_MULTI (1 << 5)
typedef struct clientInfoV1 {
    uint64_t version, flags, id;
    char addr[46];
    uint16_t port, db;
} clientInfoV1;

/* The peer address "ip:port" or "[ip6]:port" split into its parts. */
static void clientInfoAddr(client *c, clientInfoV1 *ci) {
    const char *peer = getClientPeerId(c);
    const char *colon = strrchr(peer, ':');
    size_t len = colon ? (size_t)(colon - peer) : strlen(peer);
    if (len >= 2 && peer[0] == '[' && peer[len - 1] == ']') peer++, len -= 2;
    if (len >= sizeof ci->addr) len = sizeof ci->addr - 1;
    memcpy(ci->addr, peer, len);
    ci->addr[len] = '\0';
    ci->port = colon ? (uint16_t)strtoul(colon + 1, NULL, 10) : 0;
}

/* REDISMODULE_ERR for no such client or a structure version other than 1;
 * a NULL ci only asks whether the client exists. */
static int RM_GetClientInfoById(void *ci, uint64_t id) {
    client *c = clientById(id);
    if (c == NULL) return MODAPI_ERR;
    if (ci == NULL) return MODAPI_OK;
    clientInfoV1 *info = ci;
    if (info->version != 1) return MODAPI_ERR;
    info->flags = 0;
    if (c->flags & CLIENT_PUBSUB) info->flags |= CLIENTINFO_FLAG_PUBSUB;
    if (c->flags & CLIENT_BLOCKED) info->flags |= CLIENTINFO_FLAG_BLOCKED;
    if (c->tracking) info->flags |= CLIENTINFO_FLAG_TRACKING;
    if (c->flags & CLIENT_MULTI) info->flags |= CLIENTINFO_FLAG_MULTI;
    info->id = c->id;
    memset(info->addr, 0, sizeof info->addr);
    info->port = 0;
    if (c->flags & CLIENT_UNIX_SOCKET) info->flags |= CLIENTINFO_FLAG_UNIXSOCKET;
    else clientInfoAddr(c, info);
    info->db = (uint16_t)(c->db ? c->db->id : 0);
    return MODAPI_OK;
}

/* ---- the dataset ------------------------------------------------------------------------------- */

/* FLUSHALL without its propagation, functions kept: WATCHes fail, a running
 * snapshot child is stopped and, with save points configured, the empty
 * dataset is saved at once. With restart_aof and the AOF on, 7.0 stops and
 * starts the AOF, which rewrites it from the now empty dataset: here the
 * rewrite is started directly. */
static void RM_ResetDataset(int restart_aof, int async) {
    signalFlushedDb(-1);
    server.dirty += emptyData(-1, async);
    rdbKillChild();
    if (server.saveparamslen > 0 && !server.loading) rdbSaveNow();
    if (restart_aof && server.aof_enabled) aofRewriteStart();
}

/* ---- the rest ----------------------------------------------------------------------------------- */

/* 7.0 records the sample whenever it reaches the threshold, so with the
 * monitor off (threshold 0) every sample is kept. */
static void RM_LatencyAddSample(const char *event, long long latency) {
    if (latency >= server.latency_monitor_threshold) latencyAddSample(event, latency);
}

/* True while clients are paused (CLIENT PAUSE, FAILOVER): the module should
 * not write, the replicas are being brought up to date. */
static int RM_AvoidReplicaTraffic(void) { return clientsArePaused(); }

static int RM_GetTypeMethodVersion(void) { return 4; } /* REDISMODULE_TYPE_METHOD_VERSION of 7.0 */

/* ---- the lookup table ------------------------------------------------------------------- */

static const moduleApiEntry misc_api[] = {
    MODULE_API(GetAbsExpire), MODULE_API(SetAbsExpire), MODULE_API(GetLRU), MODULE_API(SetLRU),
    MODULE_API(GetLFU), MODULE_API(SetLFU), MODULE_API(GetKeyNameFromModuleKey),
    MODULE_API(GetDbIdFromModuleKey), MODULE_API(SignalModifiedKey), MODULE_API(GetRandomBytes),
    MODULE_API(GetRandomHexChars), MODULE_API(MallocSize), MODULE_API(MallocUsableSize),
    MODULE_API(MallocSizeString), MODULE_API(GetUsedMemoryRatio), MODULE_API(PublishMessage),
    MODULE_API(PublishMessageShard), MODULE_API(GetClientNameById), MODULE_API(SetClientNameById),
    MODULE_API(GetClientInfoById), MODULE_API(LatencyAddSample), MODULE_API(AvoidReplicaTraffic),
    MODULE_API(GetTypeMethodVersion), MODULE_API(ResetDataset),
};

int moduleMiscGetApi(const char *name, void *target) {
    return MODULE_API_LOOKUP(misc_api, name, target);
}
