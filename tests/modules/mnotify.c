/* mnotify.c -- a test module for keyspace notifications
 * (SubscribeToKeyspaceEvents, NotifyKeyspaceEvent, GetNotifyKeyspaceEvents),
 * used by tests/unit/moduleapi-notify.tcl. Built against Redis 7.0's
 * redismodule.h by utils/build-test-modules.sh, so the same .so runs in
 * Redis 7.0.15.
 *
 * Loaded with an optional argument: the event mask it subscribes to
 * (default REDISMODULE_NOTIFY_ALL | REDISMODULE_NOTIFY_KEY_MISS).
 * MNOTIFY.EVENTS: the events heard since the last call, each
 *   "type event key db", and forgets them.
 * MNOTIFY.FIRE key event: NotifyKeyspaceEvent of a MODULE-type event.
 * MNOTIFY.FLAGS: GetNotifyKeyspaceEvents.
 * MNOTIFY.HELD: the keys of "loaded" events, kept with HoldString, then released.
 * MNOTIFY.SETVIA key value: SET through RedisModule_Call (so a callback's
 *   own Call runs nested inside it).
 * An event on a key starting "touch:" makes the callback INCR "touched" in
 * the event's database (the callback must not hear its own INCR). An event
 * on a key starting "flags:" also records "multi 0|1 lua 0|1", the MULTI and
 * LUA bits of GetContextFlags in the callback. */
#include "redismodule.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EVENTS 64
static char *events[MAX_EVENTS];
static int nevents;

static RedisModuleString *held[MAX_EVENTS];
static int nheld;

static int onEvent(RedisModuleCtx *ctx, int type, const char *event, RedisModuleString *key) {
    if (!strcmp(event, "loaded") && nheld < MAX_EVENTS) held[nheld++] = RedisModule_HoldString(NULL, key);
    size_t len;
    const char *k = RedisModule_StringPtrLen(key, &len);
    if (nevents < MAX_EVENTS) {
        char buf[256];
        snprintf(buf, sizeof buf, "%d %s %.*s %d", type, event, (int)len, k, RedisModule_GetSelectedDb(ctx));
        events[nevents++] = strdup(buf);
    }
    if (len > 6 && !memcmp(k, "flags:", 6) && nevents < MAX_EVENTS) {
        int f = RedisModule_GetContextFlags(ctx);
        char buf[32];
        snprintf(buf, sizeof buf, "multi %d lua %d", !!(f & REDISMODULE_CTX_FLAGS_MULTI), !!(f & REDISMODULE_CTX_FLAGS_LUA));
        events[nevents++] = strdup(buf);
    }
    if (len > 6 && !memcmp(k, "touch:", 6)) {
        RedisModuleCallReply *r = RedisModule_Call(ctx, "INCR", "c", "touched");
        if (r) RedisModule_FreeCallReply(r);
    }
    return REDISMODULE_OK;
}

static int cmdEvents(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    if (argc != 1) return RedisModule_WrongArity(ctx);
    RedisModule_ReplyWithArray(ctx, nevents);
    for (int j = 0; j < nevents; j++) {
        RedisModule_ReplyWithCString(ctx, events[j]);
        free(events[j]);
    }
    nevents = 0;
    return REDISMODULE_OK;
}

static int cmdHeld(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    RedisModule_ReplyWithArray(ctx, nheld);
    for (int j = 0; j < nheld; j++) {
        RedisModule_ReplyWithString(ctx, held[j]);
        RedisModule_FreeString(NULL, held[j]);
    }
    nheld = 0;
    return REDISMODULE_OK;
}

static int cmdFire(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    const char *event = RedisModule_StringPtrLen(argv[2], NULL);
    int rc = RedisModule_NotifyKeyspaceEvent(ctx, REDISMODULE_NOTIFY_MODULE, event, argv[1]);
    return RedisModule_ReplyWithLongLong(ctx, rc == REDISMODULE_OK);
}

static int cmdSetVia(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    RedisModuleCallReply *r = RedisModule_Call(ctx, "SET", "ss!", argv[1], argv[2]);
    if (r == NULL) return RedisModule_ReplyWithError(ctx, "ERR call failed");
    RedisModule_ReplyWithCallReply(ctx, r);
    RedisModule_FreeCallReply(r);
    return REDISMODULE_OK;
}

static int cmdFlags(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    if (argc != 1) return RedisModule_WrongArity(ctx);
    return RedisModule_ReplyWithLongLong(ctx, RedisModule_GetNotifyKeyspaceEvents());
}

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (RedisModule_Init(ctx, "mnotify", 1, REDISMODULE_APIVER_1) == REDISMODULE_ERR) return REDISMODULE_ERR;
    long long mask = REDISMODULE_NOTIFY_ALL | REDISMODULE_NOTIFY_KEY_MISS;
    if (argc > 0 && RedisModule_StringToLongLong(argv[0], &mask) != REDISMODULE_OK) return REDISMODULE_ERR;
    if (RedisModule_SubscribeToKeyspaceEvents(ctx, (int)mask, onEvent) != REDISMODULE_OK) return REDISMODULE_ERR;
    if (RedisModule_CreateCommand(ctx, "mnotify.events", cmdEvents, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mnotify.fire", cmdFire, "write", 1, 1, 1) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mnotify.flags", cmdFlags, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mnotify.setvia", cmdSetVia, "write", 1, 1, 1) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mnotify.held", cmdHeld, "", 0, 0, 0) == REDISMODULE_ERR)
        return REDISMODULE_ERR;
    return REDISMODULE_OK;
}
