/* notify.c -- keyspace notifications over Pub/Sub.
 *
 * Commands, expiry and eviction call notifyKeyspaceEvent(class, event, key,
 * dbid), an inline in server.h that calls notifyKeyspaceEventPublish() here
 * when the class is enabled by `notify-keyspace-events` (config.c parses
 * the letters into server.notify_keyspace_events). Two messages may go out:
 *
 *   __keyspace@<db>__:<key>    with the event name as the message  (K)
 *   __keyevent@<db>__:<event>  with the key name as the message    (E)
 *
 * Design decision: the check of the class bit comes first, inline, and
 * costs one AND, so with notifications off (the default) a write pays
 * nothing else; the channel names are built only when something may be
 * sent.
 */
#include "server.h"

static robj *channelName(const char *prefix, int dbid, const char *suffix, size_t suffix_len) {
    sds name = sdscatprintf(sdsempty(), "__%s@%d__:", prefix, dbid);
    name = sdscatlen(name, suffix, suffix_len);
    return createObject(OBJ_STRING, name);
}

void notifyKeyspaceEventPublish(int type, const char *event, robj *key, int dbid) {
    if (moduleNotifyMask & type) moduleNotifyKeyspaceEvent(type, event, key, dbid); /* module_notify.c */
    int flags = server.notify_keyspace_events;
    if (!(flags & type) || !(flags & (NOTIFY_KEYSPACE | NOTIFY_KEYEVENT))) return;
    robj *keyname = getDecodedObject(key);
    robj *eventobj = createStringObject(event, strlen(event));
    if (flags & NOTIFY_KEYSPACE) {
        robj *channel = channelName("keyspace", dbid, keyname->ptr, sdslen(keyname->ptr));
        pubsubPublishMessage(channel, eventobj, 0);
        decrRefCount(channel);
    }
    if (flags & NOTIFY_KEYEVENT) {
        robj *channel = channelName("keyevent", dbid, event, strlen(event));
        pubsubPublishMessage(channel, keyname, 0);
        decrRefCount(channel);
    }
    decrRefCount(eventobj);
    decrRefCount(keyname);
}
