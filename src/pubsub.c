/* pubsub.c -- Pub/Sub: SUBSCRIBE, PSUBSCRIBE, SSUBSCRIBE and their UNSUBSCRIBE
 * forms, PUBLISH, SPUBLISH and PUBSUB CHANNELS|NUMSUB|NUMPAT|SHARDCHANNELS|
 * SHARDNUMSUB; also the publisher used by keyspace notifications (notify.c).
 *
 * Design decisions:
 * - Three kinds of subscription share one code path, described by a
 *   pubsubKind: plain channels, patterns and shard channels. Each kind has a
 *   server-side dict (channel or pattern -> dict of subscribed clients, so
 *   unsubscribing is O(1) whatever the audience) and a client-side dict
 *   (channel -> NULL). Shard channels behave as plain channels in their own
 *   namespace, as they do on a standalone Redis.
 * - Messages go through the normal reply path (addReply*), so the output
 *   buffer limits of the pubsub class cut a slow subscriber exactly as they
 *   cut any client, and the publisher never waits for a subscriber. In RESP3
 *   the messages are push frames, in RESP2 arrays.
 * - The subscription count in (un)subscribe replies is channels + patterns
 *   for SUBSCRIBE/PSUBSCRIBE and shard channels for SSUBSCRIBE, as in Redis;
 *   a client stays in subscribed mode (CLIENT_PUBSUB) while it holds any.
 */
#include "server.h"

typedef struct pubsubKind {
    const char *subscribe_msg;
    const char *unsubscribe_msg;
    dict **server_dict;                  /* name -> dict of clients */
    dict **(*client_dict)(client *c);    /* name -> NULL */
} pubsubKind;

static dict *server_channels, *server_patterns, *server_shard_channels;

static dict **clientChannels(client *c) { return &c->pubsub_channels; }
static dict **clientPatterns(client *c) { return &c->pubsub_patterns; }
static dict **clientShardChannels(client *c) { return &c->pubsubshard_channels; }

static const pubsubKind kindChannel = {"subscribe", "unsubscribe", &server_channels, clientChannels};
static const pubsubKind kindPattern = {"psubscribe", "punsubscribe", &server_patterns, clientPatterns};
static const pubsubKind kindShard = {"ssubscribe", "sunsubscribe", &server_shard_channels, clientShardChannels};

/* ---- dict types ----------------------------------------------------------------------- */

static void subscribersFree(dict *d, void *val) {
    (void)d;
    dictRelease(val);
}

/* name -> dict of clients (server side) */
static dictType subscribersDictType = {dictStringObjectHash,       NULL,           NULL, dictStringObjectCompare,
                                       dictStringObjectDestructor, subscribersFree, NULL};
/* client* -> NULL */
static dictType clientSetDictType = {dictPointerHash, NULL, NULL, NULL, NULL, NULL, NULL};
/* name -> NULL (client side) */
static dictType clientSubscriptionsDictType = {dictStringObjectHash,       NULL, NULL, dictStringObjectCompare,
                                               dictStringObjectDestructor, NULL, NULL};

/* ---- counting ------------------------------------------------------------------------- */

static unsigned long dictSizeOrZero(dict *d) { return d ? dictSize(d) : 0; }

/* A subscription dict's own overhead: entries and buckets (the names are
 * shared with the server's dict, as Redis counts them). */
static size_t subscriptionDictMemory(dict *d) {
    return d ? dictSize(d) * sizeof(dictEntry) + dictSlots(d) * sizeof(dictEntry *) : 0;
}

/* What this client's subscriptions hold, for maxmemory-clients and tot-mem. */
size_t pubsubClientMemory(client *c) {
    return subscriptionDictMemory(c->pubsub_channels) + subscriptionDictMemory(c->pubsub_patterns) +
           subscriptionDictMemory(c->pubsubshard_channels);
}

static long subscriptionCount(client *c, const pubsubKind *kind) {
    if (kind == &kindShard) return (long)dictSizeOrZero(c->pubsubshard_channels);
    return (long)(dictSizeOrZero(c->pubsub_channels) + dictSizeOrZero(c->pubsub_patterns));
}

static void updateSubscribedMode(client *c) {
    unsigned long total = dictSizeOrZero(c->pubsub_channels) + dictSizeOrZero(c->pubsub_patterns) +
                          dictSizeOrZero(c->pubsubshard_channels);
    if (total) c->flags |= CLIENT_PUBSUB;
    else c->flags &= ~(uint64_t)CLIENT_PUBSUB;
}

unsigned long pubsubTotalChannels(void) { return dictSizeOrZero(server_channels); }
unsigned long pubsubTotalPatterns(void) { return dictSizeOrZero(server_patterns); }
unsigned long pubsubTotalShardChannels(void) { return dictSizeOrZero(server_shard_channels); }

/* ---- replies -------------------------------------------------------------------------- */

/* Marks the replies that follow as a push, which CLIENT REPLY OFF/SKIP does
 * not silence; returns what endPush() needs to restore. */
static uint64_t beginPush(client *c) {
    uint64_t was = c->flags & CLIENT_PUSHING;
    c->flags |= CLIENT_PUSHING;
    return was;
}

static void endPush(client *c, uint64_t was) {
    if (!was) c->flags &= ~(uint64_t)CLIENT_PUSHING;
}

/* ["subscribe", name, count] as a push (RESP3) or an array (RESP2). */
static void addReplySubscription(client *c, const char *what, robj *name, long count) {
    uint64_t was = beginPush(c);
    addReplyPushLen(c, 3);
    addReplyBulkCString(c, what);
    if (name) addReplyBulk(c, name);
    else addReplyNull(c);
    addReplyLongLong(c, count);
    endPush(c, was);
}

/* ---- subscribing ------------------------------------------------------------------------ */

static int subscribe(client *c, robj *name, const pubsubKind *kind) {
    dict **mine = kind->client_dict(c);
    if (*mine == NULL) *mine = dictCreate(&clientSubscriptionsDictType);
    int added = 0;
    if (dictFind(*mine, name) == NULL) {
        incrRefCount(name);
        dictAdd(*mine, name, NULL);
        if (*kind->server_dict == NULL) *kind->server_dict = dictCreate(&subscribersDictType);
        dictEntry *de = dictFind(*kind->server_dict, name);
        if (de == NULL) {
            incrRefCount(name);
            de = dictAddRaw(*kind->server_dict, name, NULL);
            dictSetVal(*kind->server_dict, de, dictCreate(&clientSetDictType));
        }
        dictAdd(dictGetVal(de), c, NULL);
        added = 1;
    }
    updateSubscribedMode(c);
    addReplySubscription(c, kind->subscribe_msg, name, subscriptionCount(c, kind));
    return added;
}

static int unsubscribe(client *c, robj *name, const pubsubKind *kind, int notify) {
    dict **mine = kind->client_dict(c);
    int removed = 0;
    incrRefCount(name); /* name may be the very key we are about to free */
    if (*mine && dictDelete(*mine, name) == DICT_OK) {
        dictEntry *de = dictFind(*kind->server_dict, name);
        serverAssert(de != NULL);
        dict *subscribers = dictGetVal(de);
        dictDelete(subscribers, c);
        if (dictSize(subscribers) == 0) dictDelete(*kind->server_dict, name);
        removed = 1;
    }
    updateSubscribedMode(c);
    if (notify) addReplySubscription(c, kind->unsubscribe_msg, name, subscriptionCount(c, kind));
    decrRefCount(name);
    return removed;
}

static int unsubscribeAll(client *c, const pubsubKind *kind, int notify) {
    dict **mine = kind->client_dict(c);
    int count = 0;
    if (*mine && dictSize(*mine)) {
        dictIterator *di = dictGetSafeIterator(*mine);
        dictEntry *de;
        while ((de = dictNext(di)) != NULL) count += unsubscribe(c, dictGetKey(de), kind, notify);
        dictReleaseIterator(di);
    }
    if (notify && count == 0) addReplySubscription(c, kind->unsubscribe_msg, NULL, subscriptionCount(c, kind));
    return count;
}

static void subscribeGeneric(client *c, const pubsubKind *kind) {
    for (int j = 1; j < c->argc; j++) subscribe(c, c->argv[j], kind);
}

static void unsubscribeGeneric(client *c, const pubsubKind *kind) {
    if (c->argc == 1) unsubscribeAll(c, kind, 1);
    else
        for (int j = 1; j < c->argc; j++) unsubscribe(c, c->argv[j], kind, 1);
}

void subscribeCommand(client *c) { subscribeGeneric(c, &kindChannel); }
void psubscribeCommand(client *c) { subscribeGeneric(c, &kindPattern); }
void ssubscribeCommand(client *c) { subscribeGeneric(c, &kindShard); }

void unsubscribeCommand(client *c) { unsubscribeGeneric(c, &kindChannel); }
void punsubscribeCommand(client *c) { unsubscribeGeneric(c, &kindPattern); }
void sunsubscribeCommand(client *c) { unsubscribeGeneric(c, &kindShard); }

/* freeClient(): every subscription goes, silently. */
void pubsubClientFreed(client *c) {
    unsubscribeAll(c, &kindChannel, 0);
    unsubscribeAll(c, &kindPattern, 0);
    unsubscribeAll(c, &kindShard, 0);
    if (c->pubsub_channels) dictRelease(c->pubsub_channels);
    if (c->pubsub_patterns) dictRelease(c->pubsub_patterns);
    if (c->pubsubshard_channels) dictRelease(c->pubsubshard_channels);
    c->pubsub_channels = c->pubsub_patterns = c->pubsubshard_channels = NULL;
}

/* RESET: leave every subscription without a reply. */
void pubsubResetClient(client *c) { pubsubClientFreed(c); }

/* ---- publishing --------------------------------------------------------------------------- */

static sds catBulkObject(sds s, robj *o) {
    robj *d = getDecodedObject(o);
    s = sdscatfmt(s, "$%U\r\n", (unsigned long long)sdslen(d->ptr));
    s = sdscatlen(s, d->ptr, sdslen(d->ptr));
    decrRefCount(d);
    return sdscatlen(s, "\r\n", 2);
}

/* The whole message frame, encoded once per publish and protocol (RESP2
 * array / RESP3 push) and copied to every subscriber: a message to many
 * subscribers costs one memcpy each. */
static sds messageFrame(int resp, const char *type, robj *pattern, robj *channel, robj *msg) {
    sds f = sdscatfmt(sdsempty(), "%s%i\r\n$%U\r\n%s\r\n", resp == 2 ? "*" : ">", pattern ? 4 : 3,
                      (unsigned long long)strlen(type), type);
    if (pattern) f = catBulkObject(f, pattern);
    f = catBulkObject(f, channel);
    return catBulkObject(f, msg);
}

static long deliverToSubscribers(dict *subscribers, const char *type, robj *pattern, robj *channel, robj *msg) {
    long receivers = 0;
    sds frames[2] = {NULL, NULL}; /* RESP2, RESP3 */
    dictIterator *di = dictGetIterator(subscribers);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        client *c = dictGetKey(de);
        if (c->flags & CLIENT_CLOSE_ASAP) continue;
        int v = c->resp == 2 ? 0 : 1;
        if (frames[v] == NULL) frames[v] = messageFrame(c->resp, type, pattern, channel, msg);
        uint64_t was = beginPush(c);
        addReplyProto(c, frames[v], sdslen(frames[v]));
        endPush(c, was);
        receivers++;
    }
    dictReleaseIterator(di);
    sdsfree(frames[0]);
    sdsfree(frames[1]);
    return receivers;
}

static long deliverToPatterns(robj *channel, robj *msg) {
    if (server_patterns == NULL) return 0;
    long receivers = 0;
    robj *name = getDecodedObject(channel);
    dictIterator *di = dictGetIterator(server_patterns);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        robj *pattern = dictGetKey(de);
        if (!stringmatchlen(pattern->ptr, (int)sdslen(pattern->ptr), name->ptr, (int)sdslen(name->ptr), 0))
            continue;
        receivers += deliverToSubscribers(dictGetVal(de), "pmessage", pattern, channel, msg);
    }
    dictReleaseIterator(di);
    decrRefCount(name);
    return receivers;
}

/* Sends msg to the subscribers of channel (and, for plain channels, of the
 * matching patterns); returns how many clients received it. */
long pubsubPublishMessage(robj *channel, robj *msg, int sharded) {
    dict *channels = sharded ? server_shard_channels : server_channels;
    long receivers = 0;
    dictEntry *de = channels ? dictFind(channels, channel) : NULL;
    if (de) receivers += deliverToSubscribers(dictGetVal(de), sharded ? "smessage" : "message", NULL, channel, msg);
    if (!sharded) receivers += deliverToPatterns(channel, msg);
    return receivers;
}

/* The message also goes to the replicas (not the AOF), so their
 * subscribers get it too, as in Redis 7.0 without cluster. */
void publishCommand(client *c) {
    addReplyLongLong(c, pubsubPublishMessage(c->argv[1], c->argv[2], 0));
    propagateToReplicasOnly(c);
}

void spublishCommand(client *c) {
    addReplyLongLong(c, pubsubPublishMessage(c->argv[1], c->argv[2], 1));
    propagateToReplicasOnly(c);
}

/* ---- PUBSUB ------------------------------------------------------------------------------- */

static void replyChannelsMatching(client *c, dict *channels, robj *pattern) {
    void *len = addReplyDeferredLen(c);
    long count = 0;
    if (channels) {
        dictIterator *di = dictGetIterator(channels);
        dictEntry *de;
        while ((de = dictNext(di)) != NULL) {
            robj *name = dictGetKey(de);
            if (pattern && !stringmatchlen(pattern->ptr, (int)sdslen(pattern->ptr), name->ptr,
                                           (int)sdslen(name->ptr), 0))
                continue;
            addReplyBulk(c, name);
            count++;
        }
        dictReleaseIterator(di);
    }
    setDeferredArrayLen(c, len, count);
}

static void replySubscriberCounts(client *c, dict *channels) {
    addReplyArrayLen(c, (long)(c->argc - 2) * 2);
    for (int j = 2; j < c->argc; j++) {
        dictEntry *de = channels ? dictFind(channels, c->argv[j]) : NULL;
        addReplyBulk(c, c->argv[j]);
        addReplyLongLong(c, de ? (long long)dictSize((dict *)dictGetVal(de)) : 0);
    }
}

static void pubsubHelp(client *c) {
    static const char *help[] = {
        "CHANNELS [<pattern>]",
        "    Return the currently active channels matching a <pattern> (default: '*').",
        "NUMPAT",
        "    Return number of subscriptions to patterns.",
        "NUMSUB [<channel> ...]",
        "    Return the number of subscribers for the specified channels, excluding",
        "    pattern subscriptions(default: no channels).",
        "SHARDCHANNELS [<pattern>]",
        "    Return the currently active shard level channels matching a <pattern> (default: '*').",
        "SHARDNUMSUB [<shardchannel> ...]",
        "    Return the number of subscribers for the specified shard level channel(s)",
        NULL};
    addReplyHelp(c, help);
}

void pubsubCommand(client *c) {
    const char *sub = c->argv[1]->ptr;
    if (!strcasecmp(sub, "help") && c->argc == 2) pubsubHelp(c);
    else if (!strcasecmp(sub, "channels") && c->argc <= 3)
        replyChannelsMatching(c, server_channels, c->argc == 3 ? c->argv[2] : NULL);
    else if (!strcasecmp(sub, "shardchannels") && c->argc <= 3)
        replyChannelsMatching(c, server_shard_channels, c->argc == 3 ? c->argv[2] : NULL);
    else if (!strcasecmp(sub, "numsub")) replySubscriberCounts(c, server_channels);
    else if (!strcasecmp(sub, "shardnumsub")) replySubscriberCounts(c, server_shard_channels);
    else if (!strcasecmp(sub, "numpat") && c->argc == 2) addReplyLongLong(c, (long long)pubsubTotalPatterns());
    else addReplySubcommandSyntaxError(c);
}

/* In RESP2 a subscribed client may only manage its subscriptions. */
int commandAllowedInSubscribedMode(redisCommand *cmd) {
    redisCommandProc *p = cmd->proc;
    return p == pingCommand || p == quitCommand || p == subscribeCommand || p == unsubscribeCommand ||
           p == psubscribeCommand || p == punsubscribeCommand || p == ssubscribeCommand ||
           p == sunsubscribeCommand || p == resetCommand;
}
