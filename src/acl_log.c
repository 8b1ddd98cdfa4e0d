/* acl_log.c -- the ACL log: commands, keys and channels denied by ACL rules
 * and failed authentications, newest first, for ACL LOG.
 *
 * As in Redis 7.0 an event like one logged less than a minute before (same
 * reason, context, object and user) updates that entry -- its count, time
 * and client -- and moves it to the front, so a client hammering a wrong
 * password makes one entry with a growing count, not a flood. The log keeps
 * at most acllog-max-len entries, dropping the oldest.
 *
 * An entry has Redis 7.0's seven fields, not the three Redis 7.2 added
 * (entry-id, timestamp-created, timestamp-last-updated): clients decide on
 * redis_version which fields to expect.
 */
#include "acl.h"

#define ACL_LOG_GROUPING_MS 60000

typedef struct aclLogEntry {
    long long count;
    int reason;       /* ACL_DENIED_* */
    int context;      /* ACL_LOG_CTX_* */
    sds object;       /* the command, key or channel; for AUTH, the command's name */
    sds username;
    long long ctime;     /* unix ms, last update */
    sds cinfo;        /* CLIENT INFO of the client, at the last update */
} aclLogEntry;

static list *acl_log;

static void entryFree(void *p) {
    aclLogEntry *e = p;
    sdsfree(e->object);
    sdsfree(e->username);
    sdsfree(e->cinfo);
    zfree(e);
}

static list *theLog(void) {
    if (acl_log == NULL) {
        acl_log = listCreate();
        listSetFreeMethod(acl_log, entryFree);
    }
    return acl_log;
}

static sds deniedObject(client *c, int reason, int errpos) {
    if (reason == ACL_DENIED_CMD) return sdsdup(c->cmd->fullname);
    if (reason == ACL_DENIED_AUTH) return sdsdup(c->argv[0]->ptr);
    return sdsdup(c->argv[errpos]->ptr);
}

static listNode *findSimilar(aclLogEntry *e) {
    listIter li;
    listNode *ln;
    listRewind(theLog(), &li);
    while ((ln = listNext(&li))) {
        aclLogEntry *old = listNodeValue(ln);
        if (old->reason == e->reason && old->context == e->context && e->ctime - old->ctime < ACL_LOG_GROUPING_MS &&
            !sdscmp(old->object, e->object) && !sdscmp(old->username, e->username))
            return ln;
    }
    return NULL;
}

/* username and object: NULL for the client's user and what was denied;
 * otherwise taken over. */
void aclLogAdd(client *c, int reason, int context, int errpos, sds username, sds object) {
    aclLogEntry *e = zmalloc(sizeof(*e));
    e->count = 1;
    e->reason = reason;
    e->context = context;
    e->object = object ? object : deniedObject(c, reason, errpos);
    e->username = username ? username : sdsnew(aclUserName(c->user));
    e->ctime = mstime();
    e->cinfo = catClientInfoString(sdsempty(), c);
    listNode *ln = findSimilar(e);
    if (ln) {
        aclLogEntry *old = listNodeValue(ln);
        old->count++;
        old->ctime = e->ctime;
        sdsfree(old->cinfo);
        old->cinfo = e->cinfo;
        e->cinfo = NULL;
        entryFree(e);
        listUnlinkNode(theLog(), ln);
        zfree(ln);
        listAddNodeHead(theLog(), old);
        return;
    }
    listAddNodeHead(theLog(), e);
    while (listLength(theLog()) > server.acllog_max_len) listDelNode(theLog(), listLast(theLog()));
}

static const char *reasonName(int reason) {
    switch (reason) {
    case ACL_DENIED_CMD: return "command";
    case ACL_DENIED_KEY: return "key";
    case ACL_DENIED_CHANNEL: return "channel";
    default: return "auth";
    }
}

static const char *contextName(int context) {
    if (context == ACL_LOG_CTX_MULTI) return "multi";
    if (context == ACL_LOG_CTX_LUA) return "lua";
    if (context == ACL_LOG_CTX_MODULE) return "module";
    return "toplevel";
}

static void addReplyEntry(client *c, aclLogEntry *e, long long now) {
    addReplyMapLen(c, 7);
    addReplyBulkCString(c, "count");
    addReplyLongLong(c, e->count);
    addReplyBulkCString(c, "reason");
    addReplyBulkCString(c, reasonName(e->reason));
    addReplyBulkCString(c, "context");
    addReplyBulkCString(c, contextName(e->context));
    addReplyBulkCString(c, "object");
    addReplyBulkCBuffer(c, e->object, sdslen(e->object));
    addReplyBulkCString(c, "username");
    addReplyBulkCBuffer(c, e->username, sdslen(e->username));
    addReplyBulkCString(c, "age-seconds");
    addReplyDouble(c, (double)(now - e->ctime) / 1000);
    addReplyBulkCString(c, "client-info");
    addReplyBulkCBuffer(c, e->cinfo, sdslen(e->cinfo));
}

/* ACL LOG [count | RESET]: the newest `count` entries (10 by default). */
void aclLogCommand(client *c) {
    long count = 10;
    if (c->argc == 3 && !strcasecmp(c->argv[2]->ptr, "reset")) {
        listEmpty(theLog());
        addReply(c, shared.ok);
        return;
    }
    if (c->argc == 3 && getLongFromObjectOrReply(c, c->argv[2], &count, NULL) != C_OK) return;
    if (count < 0) count = 0;
    if ((unsigned long)count > listLength(theLog())) count = (long)listLength(theLog());
    addReplyArrayLen(c, count);
    long long now = mstime();
    listIter li;
    listNode *ln;
    listRewind(theLog(), &li);
    for (long j = 0; j < count && (ln = listNext(&li)); j++) addReplyEntry(c, listNodeValue(ln), now);
}
