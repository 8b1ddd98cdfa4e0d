/* module_notify.c -- keyspace notifications for Redis 7.0 modules:
 * SubscribeToKeyspaceEvents, NotifyKeyspaceEvent, GetNotifyKeyspaceEvents,
 * GetKeyspaceNotificationFlagsAll.
 *
 * Decisions:
 * - A module hears the event types it subscribed to whatever
 *   notify-keyspace-events says, as in Redis. The keyspace's cheap test
 *   (notifyKeyspaceEvent, server.h) ORs moduleNotifyMask, the union of the
 *   subscribed types, into the configured flags, so a server with no
 *   subscriber pays nothing more.
 * - The callback runs at once, on a context of a temporary client whose
 *   database is the event's; its replies go nowhere. A subscriber is not
 *   called for events its own callback causes (Redis's re-entry guard).
 * - Subscriptions end with their module (moduleNotifyRelease, from
 *   moduleFree).
 */
#include "module_int.h"

typedef int (*NotifyFunc)(RedisModuleCtx *ctx, int type, const char *event, robj *key);

typedef struct subscriber {
    module *owner;
    int mask;
    NotifyFunc callback;
    int active; /* its callback is running */
} subscriber;

int moduleNotifyMask = 0;
static list *subscribers; /* subscriber *, in subscription order */

static void recomputeMask(void) {
    int mask = 0;
    listIter li;
    listNode *ln;
    if (subscribers) {
        listRewind(subscribers, &li);
        while ((ln = listNext(&li))) mask |= ((subscriber *)listNodeValue(ln))->mask;
    }
    moduleNotifyMask = mask & ~(NOTIFY_KEYSPACE | NOTIFY_KEYEVENT);
}

static int RM_SubscribeToKeyspaceEvents(RedisModuleCtx *ctx, int types, NotifyFunc callback) {
    if (subscribers == NULL) subscribers = listCreate();
    subscriber *s = zmalloc(sizeof(*s));
    s->owner = ctx->module;
    s->mask = types;
    s->callback = callback;
    s->active = 0;
    listAddNodeTail(subscribers, s);
    recomputeMask();
    return MODAPI_OK;
}

static int RM_GetNotifyKeyspaceEvents(void) { return server.notify_keyspace_events; }

/* Every event type bit Redis 7.0 knows (NOTIFY_KEYSPACE .. NOTIFY_NEW). */
static int RM_GetKeyspaceNotificationFlagsAll(void) { return (NOTIFY_NEW << 1) - 1; }

static int RM_NotifyKeyspaceEvent(RedisModuleCtx *ctx, int type, const char *event, robj *key) {
    if (ctx == NULL || ctx->client == NULL) return MODAPI_ERR;
    notifyKeyspaceEvent(type, event, key, ctx->client->db->id);
    return MODAPI_OK;
}

/* From notifyKeyspaceEventPublish (notify.c) when a subscriber may care. */
void moduleNotifyKeyspaceEvent(int type, const char *event, robj *key, int dbid) {
    if (subscribers == NULL) return;
    type &= ~(NOTIFY_KEYSPACE | NOTIFY_KEYEVENT);
    listIter li;
    listNode *ln;
    listRewind(subscribers, &li);
    while ((ln = listNext(&li))) {
        subscriber *s = listNodeValue(ln);
        if (!(s->mask & type) || s->active) continue;
        client *c = moduleTempClient();
        selectDb(c, dbid);
        RedisModuleCtx ctx;
        moduleCtxInit(&ctx, s->owner, c);
        s->active = 1;
        s->callback(&ctx, type, event, key);
        s->active = 0;
        moduleCtxFinish(&ctx);
        moduleTempClientRelease(c);
    }
}

void moduleNotifyRelease(module *m) {
    if (subscribers == NULL) return;
    listIter li;
    listNode *ln;
    listRewind(subscribers, &li);
    while ((ln = listNext(&li))) {
        subscriber *s = listNodeValue(ln);
        if (s->owner != m) continue;
        zfree(s);
        listDelNode(subscribers, ln);
    }
    recomputeMask();
}

/* ---- the lookup ----------------------------------------------------------------------- */

static const moduleApiEntry notify_table[] = {
    MODULE_API(SubscribeToKeyspaceEvents), MODULE_API(GetNotifyKeyspaceEvents), MODULE_API(NotifyKeyspaceEvent),
    MODULE_API(GetKeyspaceNotificationFlagsAll),
};

int moduleNotifyGetApi(const char *name, void *target) {
    return MODULE_API_LOOKUP(notify_table, name, target);
}
