/* module_int.h -- what module.c (loading, the MODULE command, contexts) and
 * module_api.c (the functions modules call) share. Nothing outside those
 * two files includes it: the rest of the server sees module.c's prototypes
 * in server.h only. */
#ifndef MODULE_INT_H
#define MODULE_INT_H

#include "server.h"
#include "module_api.h"

#include <stdarg.h>

typedef struct RedisModuleInfoCtx RedisModuleInfoCtx; /* module_info.c's */
typedef void (*ModuleInfoFunc)(RedisModuleInfoCtx *ctx, int for_crash_report);

/* A loaded module. */
typedef struct module {
    sds name;
    int ver;
    int apiver;
    void *handle;       /* dlopen()'s */
    sds path;
    robj **argv;        /* the arguments it was loaded with (MODULE LIST) */
    int argc;
    list *commands;     /* moduleCmd *, in creation order */
    int types;          /* data types registered (module_type.c): such a module cannot unload */
    int options;        /* SetModuleOptions' (kept; none changes what this server does) */
    int blocked_clients; /* handles still unreleased (module_block.c): such a module cannot unload */
    int timers;         /* timers pending, neither fired nor stopped (module_timer.c): nor can this one */
    ModuleInfoFunc info_cb; /* RegisterInfoFunc's: its INFO sections (module_info.c), or NULL */
    int configs_loaded; /* LoadConfigs succeeded (module_config.c) */
    void *defrag_cb;    /* RegisterDefragFunc's (module_defrag.c), or NULL */
    int in_call;        /* its Calls under way (module_api.c): NOSELF filters skip them (module_filter.c) */
} module;

typedef struct moduleCmdInfo moduleCmdInfo; /* module_cmdinfo.c's */

/* The binding between a command table entry and a module's handler. */
typedef struct moduleCmd {
    module *owner;
    ModuleCmdFunc func;
    redisCommand *cmd;  /* ours, allocated: declared_name points into it */
    moduleCmdInfo *info; /* SetCommandInfo's history and arguments (COMMAND DOCS), or NULL */
} moduleCmd;

#define MODCTX_AUTO_MEMORY (1 << 0)
#define MODCTX_KEYS_POS_REQUEST (1 << 1)
#define MODCTX_BLOCKED_REPLY (1 << 2)        /* a blocked client's reply callback */
#define MODCTX_BLOCKED_TIMEOUT (1 << 3)      /* its timeout callback */
#define MODCTX_BLOCKED_DISCONNECTED (1 << 4) /* its privdata freed after its client went */
#define MODCTX_THREAD_SAFE (1 << 5)          /* GetThreadSafeContext's: replies to reply_client */
#define MODCTX_CHANNELS_POS_REQUEST (1 << 6) /* "getchannels-api": the handler reports channels */
#define MODCTX_PROPAGATION_UNIT (1 << 7)     /* moduleCtxInit's: an execution unit of propagate.c until moduleCtxFinish */

/* What a module's context releases when it ends (auto memory). */
typedef struct autoItem {
    int kind; /* AUTO_STRING, AUTO_REPLY, AUTO_KEY, AUTO_DICT */
    void *ptr;
} autoItem;

#define AUTO_STRING 1
#define AUTO_REPLY 2
#define AUTO_KEY 3
#define AUTO_DICT 4
#define AUTO_INFO 5 /* GetServerInfo's */

typedef struct poolBlock poolBlock;

/* A module call's context. The ABI fixes only its first word: the lookup
 * function the module's RedisModule_Init reads to find every other one. */
struct RedisModuleCtx {
    ModuleGetApiFunc getapi; /* must stay first */
    module *module;          /* NULL during OnLoad until SetModuleAttribs */
    client *client;          /* whose command runs; NULL in OnLoad/OnUnload */
    int flags;               /* MODCTX_* */
    autoItem *autos;
    int autos_len, autos_cap;
    void **postponed;        /* deferred reply lengths, innermost last */
    int postponed_len, postponed_cap;
    poolBlock *pool;         /* PoolAlloc's blocks, freed with the context */
    getKeysResult *keys_result; /* a keys-position request's answer */
    struct moduleBlocked *blocked; /* the blocked client a callback or thread-safe context is for */
    void *blocked_privdata;        /* GetBlockedClientPrivateData's */
    robj *blocked_ready_key;       /* GetBlockedClientReadyKey's (BlockClientOnKeys) */
    client *reply_client;          /* a thread-safe context's replies (its blocked client's), or NULL */
    long long yield_start;         /* module_yield.c: when Yield next serves events (monotonic us), 0 unset */
    const void *context_user;      /* SetContextUser's RedisModuleUser (module_acl.c's), or NULL */
};

/* A key handle (OpenKey): the database and the key name; the value is
 * looked up again on each use (moduleKeyValue), since the keyspace may move it. */
typedef struct moduleKey {
    RedisModuleCtx *ctx;
    redisDb *db;
    robj *key;  /* retained */
    int mode;   /* MODAPI_KEY_* */
    /* module_keys.c's sorted set range iterator: the walk (or NULL) and
     * whether its end is not reached yet (0 before any, as Redis's). */
    zsetRangeWalk *zwalk;
    int zmore;
    struct moduleStreamIter *siter; /* module_stream.c's stream iterator, or NULL */
} moduleKey;

/* module_api.c: where a context's replies go (its client, or a thread-safe
 * context's blocked client), or NULL to drop them */
client *moduleReplyClient(RedisModuleCtx *ctx);
/* module_call.c: Call and its replies */
int moduleCallGetApi(const char *name, void *target);

/* module.c */
void moduleCtxInit(RedisModuleCtx *ctx, module *owner, client *c);
void moduleCtxInitOffThread(RedisModuleCtx *ctx, module *owner, client *c);
void moduleCtxFinish(RedisModuleCtx *ctx);
void moduleAutoAdd(RedisModuleCtx *ctx, int kind, void *ptr);
int moduleAutoForget(RedisModuleCtx *ctx, void *ptr);
int moduleNameBusy(const char *name);
void moduleSetAttribs(RedisModuleCtx *ctx, const char *name, int ver, int apiver);
int moduleCreateCommand(RedisModuleCtx *ctx, redisCommand *parent, const char *name, ModuleCmdFunc func,
                        const char *strflags, int firstkey, int lastkey, int keystep);
moduleCmd *moduleFindCommand(RedisModuleCtx *ctx, const char *name);
void *moduleCtxPoolAlloc(RedisModuleCtx *ctx, size_t bytes);

/* module_api.c: the function a module asked for by name, or NULL. */
int moduleGetApi(const char *name, void *target);
/* Each module_*.c lists its RM_ functions under 7.0's names in a table of
 * these; moduleApiLookup() (module_api.c) copies the one named `name` to
 * *target: MODAPI_OK, or MODAPI_ERR when the table has no such name. */
typedef void (*moduleAnyFunc)(void);
typedef struct moduleApiEntry {
    const char *name;
    moduleAnyFunc fn;
} moduleApiEntry;
#define MODULE_API(name) {"RedisModule_" #name, (moduleAnyFunc)RM_##name}
int moduleApiLookup(const moduleApiEntry *table, size_t count, const char *name, void *target);
#define MODULE_API_LOOKUP(table, name, target) moduleApiLookup(table, sizeof table / sizeof table[0], name, target)
robj *moduleKeyValue(moduleKey *k);
void moduleStringDecode(robj *o);
/* module_call.c: Call's, Replicate's and EmitAOF's format (c s b l v and
 * Redis 7.0's flag letters, into MODCALL_*) as an argv; NULL for an
 * unknown letter. */
#define MODCALL_REPLICATE (1 << 0)  /* '!' */
#define MODCALL_NO_AOF (1 << 1)     /* 'A' */
#define MODCALL_NO_REPLICAS (1 << 2) /* 'R' */
#define MODCALL_RESP3 (1 << 3)      /* '3' */
#define MODCALL_RESP_AUTO (1 << 4)  /* '0' */
#define MODCALL_RUN_AS_USER (1 << 5) /* 'C' */
#define MODCALL_SCRIPT_MODE (1 << 6) /* 'S' */
#define MODCALL_NO_WRITES (1 << 7)  /* 'W' */
#define MODCALL_DENY_OOM (1 << 8)   /* 'M' */
#define MODCALL_ERRORS_AS_REPLIES (1 << 9) /* 'E' */
robj **moduleFormatArgv(const char *cmdname, const char *fmt, va_list *ap, int *argc, int *flags);

/* module_block.c: blocked clients */
int moduleBlockGetApi(const char *name, void *target);
struct moduleBlocked;
client *moduleBlockedReplyClient(struct moduleBlocked *bc);
int moduleBlockedDb(struct moduleBlocked *bc);
module *moduleBlockedOwner(struct moduleBlocked *bc);
unsigned long long moduleBlockedClientId(struct moduleBlocked *bc);
/* module_thread.c: thread-safe contexts and the lock */
int moduleThreadGetApi(const char *name, void *target);
void moduleGILStart(void);
client *moduleTempClient(void);
void moduleTempClientRelease(client *c);
/* module_yield.c: Yield */
int moduleYieldGetApi(const char *name, void *target);
/* module_keys.c: the list (and zset) key API; ListPush is module_api.c's */
int moduleKeysGetApi(const char *name, void *target);
int moduleListPush(moduleKey *k, int where, robj *ele);
void moduleKeyRangeStop(moduleKey *k); /* CloseKey's: ends the key's range iterator */
/* module_stream.c: the stream key API */
int moduleStreamGetApi(const char *name, void *target);
void moduleStreamIterFree(moduleKey *k); /* CloseKey's: ends the key's stream iterator */
/* module_scan.c: Scan and ScanKey */
int moduleScanGetApi(const char *name, void *target);
/* module_notify.c: keyspace notifications */
int moduleNotifyGetApi(const char *name, void *target);
void moduleNotifyRelease(module *m); /* its subscriptions end */
/* module_events.c: server events */
int moduleEventsGetApi(const char *name, void *target);
void moduleFireModuleChange(module *m, int unloaded); /* the other modules hear m (un)loaded */
void moduleEventsRelease(module *m);                  /* its subscriptions end */
/* module_dict.c: the dictionary API */
int moduleDictGetApi(const char *name, void *target);
void moduleDictFree(void *ptr); /* auto memory's cleanup */
/* module_info.c: the Info API (INFO's module sections; GetServerInfo) */
int moduleInfoGetApi(const char *name, void *target);
void moduleServerInfoFree(void *data); /* auto memory's cleanup */
list *moduleLoadedList(void);          /* module.c: the loaded modules, in load order (or NULL) */

/* module_config.c: configuration parameters (config.c's side is in server.h) */
int moduleConfigGetApi(const char *name, void *target);
void moduleConfigsRelease(module *m); /* its configs are unregistered */
int moduleConfigsPending(module *m);  /* it registered configs but never loaded them */
void moduleConfigQueueValue(const char *name, sds value); /* LOADEX's CONFIG pairs */
int moduleConfigQueueLength(void);    /* values no module took */

/* module_acl.c: module users and the ACL API */
struct aclUser *moduleAclUserOf(const void *module_user); /* a RedisModuleUser's acl.c user */
int moduleAclGetApi(const char *name, void *target);
void moduleAclRelease(module *m);      /* unloading: the clients it authenticated are revoked */
void moduleRedactArguments(client *c); /* after a module command's handler: its redactions applied */
/* module_shared.c: ExportSharedAPI/GetSharedAPI */
int moduleSharedGetApi(const char *name, void *target);
int moduleSharedInUse(module *m);       /* another module fetched one of its exports: no unload (EPERM) */
void moduleSharedRelease(module *m);    /* unloaded or failed to load: its exports and uses go */
sds moduleSharedCatDeps(sds info, module *m, int usedby); /* INFO's usedby/using names */
/* module_eventloop.c: EventLoopAdd/Del/AddOneShot */
int moduleEventLoopGetApi(const char *name, void *target);
/* module_cmdinfo.c: SetCommandInfo */
int moduleCmdInfoGetApi(const char *name, void *target);
void moduleCmdInfoFree(moduleCmd *mc); /* the command goes: what SetCommandInfo copied */
/* module_defrag.c: the defrag API. A defrag callback's context: */
typedef struct RedisModuleDefragCtx {
    long long defragged;   /* blocks it moved */
    long long endtime;     /* monotonic us after which DefragShouldStop says stop; 0: never */
    unsigned long *cursor; /* a value done over several slices: where it is; NULL otherwise */
    robj *key;             /* the value's key, or NULL (a global callback) */
    int dbid;              /* -1 for a global callback */
} moduleDefragCtx;
int moduleDefragGetApi(const char *name, void *target);
/* module_filter.c: command filters (processCommand's side is in server.h) */
int moduleFilterGetApi(const char *name, void *target);
void moduleFiltersRelease(module *m); /* unloaded or failed to load: its filters go */
/* module_fork.c: Fork, SendChildHeartbeat, ExitFromChild, KillForkChild */
int moduleForkGetApi(const char *name, void *target);

/* module_timer.c: timers */
int moduleTimerGetApi(const char *name, void *target);
/* module_misc.c: expires, LRU/LFU, client names, publishing and other odds and ends */
int moduleMiscGetApi(const char *name, void *target);

/* module_type.c: data types */
int moduleTypeGetApi(const char *name, void *target);
/* 7.0's 64-bit id of a 9-character type name and version (0: not one);
 * also a module's id on the cluster bus (module_cluster.c) */
uint64_t moduleTypeEncodeId(const char *name, int encver);
/* module_cluster.c: the cluster API */
int moduleClusterGetApi(const char *name, void *target);
void moduleClusterRelease(module *m); /* its message receivers go */
void moduleTypesRelease(module *m); /* a failed load's */
void moduleCallReplyFree(void *reply); /* a root reply (auto memory's cleanup) */
void moduleKeyClose(void *key);        /* a key handle (auto memory's cleanup) */

int moduleWakePipeOpen(int fds[2], aeFileProc *proc); /* module_block.c: a loop-watched wake-up pipe */

#endif
