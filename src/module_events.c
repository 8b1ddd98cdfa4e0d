/* module_events.c -- server events for Redis 7.0 modules:
 * SubscribeToServerEvent, IsSubEventSupported, and the fire points the
 * server calls (moduleFireFlushDB, moduleFireCronLoop, moduleFireShutdown;
 * module.c's load and unload fire ModuleChange).
 *
 * Decisions:
 * - Subscribing accepts every event id Redis 7.0 knows with a data version
 *   it supports, as Redis does, so a module's OnLoad succeeds. Fired today:
 *   FlushDB, CronLoop, Shutdown, ModuleChange, ClientChange, Loading,
 *   ReplAsyncLoad, Persistence (the snapshots and AOF rewrites that fork or
 *   run in the main process, the fork child's in the child, as Redis; not
 *   the forkless ones, which are ours), ReplicationRoleChanged,
 *   MasterLinkChange, ReplicaChange, SwapDB, Config, LoadingProgress and
 *   EventLoop. ReplBackup and ForkChild are accepted but not fired. Loading says AOF_START or RDB_START (a replica's load of its
 *   primary's snapshot too, where Redis says REPL_START) and always ENDED
 *   (Redis says FAILED for a load that failed): our loading.c knows no more.
 * - The data handed to a callback is laid out as 7.0's redismodule.h
 *   declares it (version first, then fixed-width fields), built on the
 *   stack for the call.
 * - The fire functions cost one test of moduleEventListeners when no module
 *   listens; the callback runs on a context of a temporary client (FlushDB:
 *   with the flushed database selected, as Redis), ClientChange's on the
 *   client itself, as Redis (a module may change its state there).
 */
#include "module_int.h"

#include <stdint.h>

/* The ABI's event handle: passed by value to the callback. */
typedef struct moduleEvent {
    uint64_t id;
    uint64_t dataver;
} moduleEvent;

typedef void (*EventFunc)(RedisModuleCtx *ctx, moduleEvent eid, uint64_t subevent, void *data);

/* Event ids and data layouts of 7.0's redismodule.h. */
#define EV_REPLICATION_ROLE_CHANGED 0
#define EV_PERSISTENCE 1
#define EV_FLUSHDB 2
#define EV_LOADING 3
#define EV_CLIENT_CHANGE 4
#define EV_SHUTDOWN 5
#define EV_REPLICA_CHANGE 6
#define EV_MASTER_LINK_CHANGE 7
#define EV_CRON_LOOP 8
#define EV_MODULE_CHANGE 9
#define EV_LOADING_PROGRESS 10
#define EV_SWAPDB 11
#define EV_REPL_BACKUP 12
#define EV_FORK_CHILD 13
#define EV_REPL_ASYNC_LOAD 14
#define EV_EVENTLOOP 15
#define EV_CONFIG 16
#define EV_NEXT 17

typedef struct flushInfoV1 {
    uint64_t version;
    int32_t sync;
    int32_t dbnum;
} flushInfoV1;

/* RedisModuleReplicationInfoV1 */
typedef struct replicationInfoV1 {
    uint64_t version;
    int master;
    char *masterhost;
    int masterport;
    char *replid1;
    char *replid2;
    uint64_t repl1_offset;
    uint64_t repl2_offset;
} replicationInfoV1;

typedef struct cronLoopV1 {
    uint64_t version;
    int32_t hz;
} cronLoopV1;

typedef struct clientInfoV1 {
    uint64_t version;
    uint64_t flags; /* CI_FLAG_* */
    uint64_t id;
    char addr[46];
    uint16_t port;
    uint16_t db;
} clientInfoV1;

#define CI_FLAG_SSL (1 << 0)
#define CI_FLAG_PUBSUB (1 << 1)
#define CI_FLAG_BLOCKED (1 << 2)
#define CI_FLAG_TRACKING (1 << 3)
#define CI_FLAG_UNIXSOCKET (1 << 4)
#define CI_FLAG_MULTI (1 << 5)

typedef struct moduleChangeV1 {
    uint64_t version;
    const char *module_name;
    int32_t module_version;
} moduleChangeV1;

/* The newest data version of each event (UINT64_MAX: any; no data). */
static const uint64_t event_versions[EV_NEXT] = {
    1, UINT64_MAX, 1, UINT64_MAX, 1, UINT64_MAX, UINT64_MAX, UINT64_MAX, 1, 1, 1, 1,
    UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX, UINT64_MAX,
};

/* How many sub-events each has (IsSubEventSupported). */
static const int64_t subevent_counts[EV_NEXT] = {
    2, 6, 2, 5, 2, 0, 2, 2, 0, 2, 2, 0, 0, 2, 3, 2, 1,
};

typedef struct listener {
    module *owner;
    moduleEvent event;
    EventFunc callback;
} listener;

int moduleEventListeners = 0;
static list *listeners; /* listener *, in subscription order */

static listNode *findListener(module *m, uint64_t id) {
    if (listeners == NULL) return NULL;
    listIter li;
    listNode *ln;
    listRewind(listeners, &li);
    while ((ln = listNext(&li))) {
        listener *l = listNodeValue(ln);
        if (l->owner == m && l->event.id == id) return ln;
    }
    return NULL;
}

/* A NULL callback unsubscribes; a second subscription replaces the callback. */
static int RM_SubscribeToServerEvent(RedisModuleCtx *ctx, moduleEvent event, EventFunc callback) {
    if (ctx->module == NULL || event.id >= EV_NEXT || event.dataver > event_versions[event.id]) return MODAPI_ERR;
    if (listeners == NULL) listeners = listCreate();
    listNode *ln = findListener(ctx->module, event.id);
    if (ln && callback == NULL) {
        zfree(listNodeValue(ln));
        listDelNode(listeners, ln);
    } else if (ln) {
        ((listener *)listNodeValue(ln))->callback = callback;
    } else if (callback) {
        listener *l = zmalloc(sizeof(*l));
        l->owner = ctx->module;
        l->event = event;
        l->callback = callback;
        listAddNodeTail(listeners, l);
    }
    moduleEventListeners = (int)listLength(listeners);
    return MODAPI_OK;
}

static int RM_IsSubEventSupported(moduleEvent event, int64_t subevent) {
    if (event.id >= EV_NEXT) return 0;
    return subevent < subevent_counts[event.id];
}

/* Calls every listener of eid but `skip`'s, on `own` or else a temporary
 * client with database dbnum selected (-1: the default). */
static void fireEventOn(uint64_t eid, int subid, void *data, int dbnum, module *skip, client *own) {
    if (listeners == NULL) return;
    listIter li;
    listNode *ln;
    listRewind(listeners, &li);
    while ((ln = listNext(&li))) {
        listener *l = listNodeValue(ln);
        if (l->event.id != eid || l->owner == skip) continue;
        client *c = own ? own : moduleTempClient();
        if (!own && dbnum >= 0) selectDb(c, dbnum);
        RedisModuleCtx ctx;
        moduleCtxInit(&ctx, l->owner, c);
        l->callback(&ctx, l->event, (uint64_t)subid, data);
        moduleCtxFinish(&ctx);
        if (!own) moduleTempClientRelease(c);
    }
}

static void fireEvent(uint64_t eid, int subid, void *data, int dbnum, module *skip) {
    fireEventOn(eid, subid, data, dbnum, skip, NULL);
}

/* A connection's client accepted (disconnected 0) or about to be freed. */
void moduleFireClientChange(client *c, int disconnected) {
    if (!moduleEventListeners) return;
    clientInfoV1 ci;
    memset(&ci, 0, sizeof(ci));
    ci.version = 1;
    if (c->flags & CLIENT_MULTI) ci.flags |= CI_FLAG_MULTI;
    if (c->flags & CLIENT_PUBSUB) ci.flags |= CI_FLAG_PUBSUB;
    if (c->flags & CLIENT_UNIX_SOCKET) ci.flags |= CI_FLAG_UNIXSOCKET;
    if (c->tracking) ci.flags |= CI_FLAG_TRACKING;
    if (c->flags & CLIENT_BLOCKED) ci.flags |= CI_FLAG_BLOCKED;
    if (c->conn && !strcmp(connGetType(c->conn), "tls")) ci.flags |= CI_FLAG_SSL;
    int port = 0;
    if (c->conn && connPeerToString(c->conn, ci.addr, sizeof(ci.addr), &port) != -1) ci.port = (uint16_t)port;
    ci.db = (uint16_t)c->db->id;
    ci.id = c->id;
    fireEventOn(EV_CLIENT_CHANGE, disconnected ? 1 : 0, &ci, -1, NULL, c);
}

void moduleFireFlushDB(int end, int async, int dbnum) {
    if (!moduleEventListeners) return;
    flushInfoV1 fi = {1, !async, dbnum};
    fireEvent(EV_FLUSHDB, end ? 1 : 0, &fi, dbnum, NULL);
}

/* The EventLoop event: BEFORE_SLEEP (0) at the start of the loop's
 * beforeSleep, AFTER_SLEEP (1) once it has woken up and taken the modules'
 * lock, as Redis 7.0; no data. */
void moduleFireEventLoop(int after_sleep) {
    if (!moduleEventListeners) return;
    fireEvent(EV_EVENTLOOP, after_sleep ? 1 : 0, NULL, -1, NULL);
}

void moduleFireCronLoop(int hz) {
    if (!moduleEventListeners) return;
    cronLoopV1 ci = {1, hz};
    fireEvent(EV_CRON_LOOP, 0, &ci, -1, NULL);
}

void moduleFireLoading(int end, int aof) {
    if (!moduleEventListeners) return;
    /* 7.0's subevents: RDB_START 0, AOF_START 1, REPL_START 2, ENDED 3, FAILED 4 */
    fireEvent(EV_LOADING, end ? 3 : aof ? 1 : 0, NULL, -1, NULL);
}

/* A replica's swapdb full sync (replica.c): 7.0's subevents STARTED 0,
 * ABORTED 1, COMPLETED 2. */
void moduleFireReplAsyncLoad(int subevent) {
    if (!moduleEventListeners) return;
    fireEvent(EV_REPL_ASYNC_LOAD, subevent, NULL, -1, NULL);
}

/* 7.0's subevents: RDB_START 0, AOF_START 1, SYNC_RDB_START 2, ENDED 3,
 * FAILED 4, SYNC_AOF_START 5. A start in a fork child is the background
 * kind, in the server's own process the sync kind. */
void moduleFirePersistence(int aof, int end, int ok) {
    if (!moduleEventListeners) return;
    int child = getpid() != server.pid;
    int sub = end ? (ok ? 3 : 4) : aof ? (child ? 1 : 5) : (child ? 0 : 2);
    fireEvent(EV_PERSISTENCE, sub, NULL, -1, NULL);
}

/* NOW_MASTER 0 (host NULL), NOW_REPLICA 1. As Redis, a primary's host is
 * "" (modules print it), its port the last primary's, and the ids and
 * offsets are the current ones. */
void moduleFireRoleChanged(const char *host, int port) {
    if (!moduleEventListeners) return;
    replicationInfoV1 ri;
    memset(&ri, 0, sizeof(ri));
    ri.version = 1;
    ri.master = host == NULL;
    ri.masterhost = (char *)(host ? host : "");
    ri.masterport = port; /* a new primary's the last one it followed, as Redis */
    ri.replid1 = (char *)replicationReplId();
    ri.replid2 = (char *)replicationReplId2();
    ri.repl1_offset = (uint64_t)replicationOffset();
    ri.repl2_offset = (uint64_t)replicationSecondOffset();
    fireEvent(EV_REPLICATION_ROLE_CHANGED, host ? 1 : 0, &ri, -1, NULL);
}

/* A replica's link to its primary: UP 0, DOWN 1. */
void moduleFireMasterLink(int up) {
    if (!moduleEventListeners) return;
    fireEvent(EV_MASTER_LINK_CHANGE, up ? 0 : 1, NULL, -1, NULL);
}

/* One of our replicas went online (0) or an online one went away (1). */
void moduleFireReplicaChange(int online) {
    if (!moduleEventListeners) return;
    fireEvent(EV_REPLICA_CHANGE, online ? 0 : 1, NULL, -1, NULL);
}

/* RedisModuleLoadingProgressV1 */
typedef struct loadingProgressV1 {
    uint64_t version;
    int32_t hz;
    int32_t progress; /* 0..1024, -1 when not known */
} loadingProgressV1;

/* Subevents RDB 0, AOF 1 (loading.c: an AOF's preamble is RDB). */
void moduleFireLoadingProgress(int aof, int hz, int progress) {
    if (!moduleEventListeners) return;
    loadingProgressV1 lp = {1, hz, progress};
    fireEvent(EV_LOADING_PROGRESS, aof ? 1 : 0, &lp, -1, NULL);
}

/* RedisModuleSwapDbInfoV1 */
typedef struct swapDbInfoV1 {
    uint64_t version;
    int32_t dbnum_first;
    int32_t dbnum_second;
} swapDbInfoV1;

/* SWAPDB, even of a database with itself, as Redis. */
void moduleFireSwapDb(int first, int second) {
    if (!moduleEventListeners) return;
    swapDbInfoV1 si = {1, first, second};
    fireEvent(EV_SWAPDB, 0, &si, -1, NULL);
}

/* RedisModuleConfigChangeV1 */
typedef struct configChangeV1 {
    uint64_t version;
    uint32_t num_changes;
    const char **config_names;
} configChangeV1;

/* A CONFIG SET that succeeded: the directives' names (subevent CHANGE 0). */
void moduleFireConfigChange(int count, const char **names) {
    if (!moduleEventListeners) return;
    configChangeV1 cc = {1, (uint32_t)count, names};
    fireEvent(EV_CONFIG, 0, &cc, -1, NULL);
}

void moduleFireShutdown(void) {
    if (!moduleEventListeners) return;
    fireEvent(EV_SHUTDOWN, 0, NULL, -1, NULL);
}

/* m was loaded (unloaded = 0) or unloaded: the other modules hear it. */
void moduleFireModuleChange(module *m, int unloaded) {
    if (!moduleEventListeners) return;
    moduleChangeV1 mc = {1, m->name, m->ver};
    fireEvent(EV_MODULE_CHANGE, unloaded, &mc, -1, m);
}

void moduleEventsRelease(module *m) {
    if (listeners == NULL) return;
    listIter li;
    listNode *ln;
    listRewind(listeners, &li);
    while ((ln = listNext(&li))) {
        listener *l = listNodeValue(ln);
        if (l->owner != m) continue;
        zfree(l);
        listDelNode(listeners, ln);
    }
    moduleEventListeners = (int)listLength(listeners);
}

/* ---- the lookup ----------------------------------------------------------------------- */

static const moduleApiEntry events_table[] = {
    MODULE_API(SubscribeToServerEvent), MODULE_API(IsSubEventSupported),
};

int moduleEventsGetApi(const char *name, void *target) {
    return MODULE_API_LOOKUP(events_table, name, target);
}
