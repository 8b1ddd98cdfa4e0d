/* module_api.h -- the binary interface Redis 7.0 modules are built against,
 * as this server implements it (module.c).
 *
 * A module is a shared object compiled against Redis 7.0's own header. It
 * reaches the server through one door: the first word of the context passed
 * to its RedisModule_OnLoad is a lookup function, and the module asks it for
 * every other function by name ("RedisModule_ReplyWithLongLong" ...). So the
 * ABI is: that first word, the names and C signatures of the functions, the
 * values of the constants they take and return, and the layout of the few
 * structs a module fills in. Those facts are declared here, in our own words;
 * everything else a module holds (contexts, keys, strings, replies) is opaque
 * to it and is ours to shape.
 */
#ifndef MODULE_API_H
#define MODULE_API_H

#include <stdint.h>
#include <stddef.h>

/* Return codes of almost every call. */
#define MODAPI_OK 0
#define MODAPI_ERR 1

#define MODAPI_VERSION_1 1 /* the only API version a module may ask for */

/* OpenKey modes. */
#define MODAPI_KEY_READ (1 << 0)
#define MODAPI_KEY_WRITE (1 << 1)
#define MODAPI_KEY_NOTOUCH (1 << 16)

/* KeyType answers. */
#define MODAPI_KEYTYPE_EMPTY 0
#define MODAPI_KEYTYPE_STRING 1
#define MODAPI_KEYTYPE_LIST 2
#define MODAPI_KEYTYPE_HASH 3
#define MODAPI_KEYTYPE_SET 4
#define MODAPI_KEYTYPE_ZSET 5
#define MODAPI_KEYTYPE_MODULE 6
#define MODAPI_KEYTYPE_STREAM 7

/* CallReplyType answers. */
#define MODAPI_REPLY_UNKNOWN -1
#define MODAPI_REPLY_STRING 0
#define MODAPI_REPLY_ERROR 1
#define MODAPI_REPLY_INTEGER 2
#define MODAPI_REPLY_ARRAY 3
#define MODAPI_REPLY_NULL 4
#define MODAPI_REPLY_MAP 5
#define MODAPI_REPLY_SET 6
#define MODAPI_REPLY_BOOL 7
#define MODAPI_REPLY_DOUBLE 8
#define MODAPI_REPLY_BIG_NUMBER 9
#define MODAPI_REPLY_VERBATIM_STRING 10
#define MODAPI_REPLY_ATTRIBUTE 11

/* A length given later with ReplySet*Length. */
#define MODAPI_POSTPONED_LEN -1

/* GetExpire's answer for a key without a TTL (and SetExpire's "persist"). */
#define MODAPI_NO_EXPIRE -1

/* List ends (ListPush/ListPop). */
#define MODAPI_LIST_HEAD 0
#define MODAPI_LIST_TAIL 1

/* GetContextFlags bits this server reports. */
#define MODAPI_CTX_FLAGS_LUA (1 << 0)
#define MODAPI_CTX_FLAGS_MULTI (1 << 1)
#define MODAPI_CTX_FLAGS_MASTER (1 << 2)
#define MODAPI_CTX_FLAGS_SLAVE (1 << 3)
#define MODAPI_CTX_FLAGS_READONLY (1 << 4)
#define MODAPI_CTX_FLAGS_CLUSTER (1 << 5)
#define MODAPI_CTX_FLAGS_AOF (1 << 6)
#define MODAPI_CTX_FLAGS_RDB (1 << 7)
#define MODAPI_CTX_FLAGS_MAXMEMORY (1 << 8)
#define MODAPI_CTX_FLAGS_EVICT (1 << 9)
#define MODAPI_CTX_FLAGS_OOM (1 << 10)
#define MODAPI_CTX_FLAGS_OOM_WARNING (1 << 11)
#define MODAPI_CTX_FLAGS_REPLICATED (1 << 12)
#define MODAPI_CTX_FLAGS_LOADING (1 << 13)
#define MODAPI_CTX_FLAGS_REPLICA_IS_STALE (1 << 14)
#define MODAPI_CTX_FLAGS_REPLICA_IS_CONNECTING (1 << 15)
#define MODAPI_CTX_FLAGS_REPLICA_IS_TRANSFERRING (1 << 16)
#define MODAPI_CTX_FLAGS_REPLICA_IS_ONLINE (1 << 17)
#define MODAPI_CTX_FLAGS_ACTIVE_CHILD (1 << 18)
#define MODAPI_CTX_FLAGS_MULTI_DIRTY (1 << 19)
#define MODAPI_CTX_FLAGS_IS_CHILD (1 << 20)
#define MODAPI_CTX_FLAGS_DENY_BLOCKING (1 << 21)
#define MODAPI_CTX_FLAGS_RESP3 (1 << 22)
#define MODAPI_CTX_FLAGS_ASYNC_LOADING (1 << 23)
#define MODAPI_CTX_FLAGS_NEXT (1 << 24) /* one past the last flag 7.0 defines */

/* SetModuleOptions' bits (INFO's "Modules" section names them). */
#define MODAPI_OPTIONS_HANDLE_IO_ERRORS (1 << 0)
#define MODAPI_OPTIONS_NO_IMPLICIT_SIGNAL_MODIFIED (1 << 1)
#define MODAPI_OPTIONS_HANDLE_REPL_ASYNC_LOAD (1 << 2)

/* The command handler's signature. */
typedef struct RedisModuleCtx RedisModuleCtx;
typedef struct redisObject RedisModuleString; /* a module's string is our robj */
typedef int (*ModuleCmdFunc)(RedisModuleCtx *ctx, RedisModuleString **argv, int argc);

/* The entry points a module exports (found with dlsym). */
typedef int (*ModuleOnLoadFunc)(void *ctx, void **argv, int argc);
typedef int (*ModuleOnUnloadFunc)(void *ctx);

/* The lookup function: writes the named function's address into the
 * function pointer *target points to; MODAPI_ERR for an unknown name. */
typedef int (*ModuleGetApiFunc)(const char *name, void *target);

#endif
