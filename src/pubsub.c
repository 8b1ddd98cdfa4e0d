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
    if (c->flags & CLIENT_MODULE) { /* a module's Call expects one reply per command, as Redis 7.0 says */
        const char *name = kind == &kindChannel ? "SUBSCRIBE" : kind == &kindPattern ? "PSUBSCRIBE" : "SSUBSCRIBE";
        addReplyErrorFormat(c, "%s isn't allowed for a DENY BLOCKING client", name);
        return;
    }
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

/* Cluster mode, a slot leaves this node's shard: every shard channel of
 * that slot is dropped, each subscriber told with a "sunsubscribe" reply
 * (its remaining count), as Redis 7.0's removeChannelsInSlot; the client
 * then subscribes again where the slot went. */
void pubsubShardSlotRemoved(int slot) {
    if (server_shard_channels == NULL || dictSize(server_shard_channels) == 0) return;
    dictIterator *di = dictGetSafeIterator(server_shard_channels);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        robj *name = dictGetKey(de);
        if ((int)keyHashSlot(name->ptr, sdslen(name->ptr)) != slot) continue;
        /* the subscribers first: the last unsubscribe frees their set and the entry */
        dict *subscribers = dictGetVal(de);
        unsigned long n = dictSize(subscribers), i = 0;
        client **clients = zmalloc(sizeof(client *) * n);
        dictIterator *ci = dictGetIterator(subscribers);
        dictEntry *ce;
        while ((ce = dictNext(ci)) != NULL) clients[i++] = dictGetKey(ce);
        dictReleaseIterator(ci);
        incrRefCount(name);
        for (i = 0; i < n; i++) unsubscribe(clients[i], name, &kindShard, 1);
        decrRefCount(name);
        zfree(clients);
    }
    dictReleaseIterator(di);
}

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

/* The bytes of a string object, an integer one written into buf. */
static const char *objectBytes(robj *o, char *buf, size_t *len) {
    if (sdsEncodedObject(o)) {
        *len = sdslen(o->ptr);
        return o->ptr;
    }
    *len = (size_t)ll2string(buf, LONG_STR_SIZE, (long)o->ptr);
    return buf;
}

/* "$<len>\r\n<bytes>\r\n" at p; returns the end. Room: len + BULK_OVERHEAD. */
#define BULK_OVERHEAD (1 + LONG_STR_SIZE + 4)
static char *putBulk(char *p, const char *s, size_t len) {
    *p++ = '$';
    p += ull2string(p, LONG_STR_SIZE, len);
    memcpy(p, "\r\n", 2);
    memcpy(p + 2, s, len);
    memcpy(p + 2 + len, "\r\n", 2);
    return p + len + 4;
}

/* A message frame, encoded once per publish and copied to every
 * subscriber (one memcpy each). It is sized once and written with plain
 * copies into a stack buffer (a heap one for a long message): the sds
 * formatting it replaced cost about 3 times Redis's whole PUBLISH (issue
 * #39). RESP2's array and RESP3's push differ only in the first byte, so
 * one encoding serves both, its first byte set per subscriber. */
#define FRAME_STACK_BYTES 256
typedef struct messageFrame {
    char *bytes;
    size_t len;
    char stack[FRAME_STACK_BYTES];
} messageFrame;

static void frameEncode(messageFrame *f, const char *type, robj *pattern, robj *channel, robj *msg) {
    char pbuf[LONG_STR_SIZE], cbuf[LONG_STR_SIZE], mbuf[LONG_STR_SIZE];
    size_t tlen = strlen(type), plen = 0, clen, mlen;
    const char *pp = pattern ? objectBytes(pattern, pbuf, &plen) : NULL;
    const char *cp = objectBytes(channel, cbuf, &clen);
    const char *mp = objectBytes(msg, mbuf, &mlen);
    size_t room = 4 + tlen + plen + clen + mlen + 4 * BULK_OVERHEAD;
    f->bytes = room <= FRAME_STACK_BYTES ? f->stack : zmalloc(room);
    char *p = f->bytes;
    memcpy(p, pattern ? "*4\r\n" : "*3\r\n", 4);
    p = putBulk(p + 4, type, tlen);
    if (pattern) p = putBulk(p, pp, plen);
    p = putBulk(p, cp, clen);
    p = putBulk(p, mp, mlen);
    f->len = (size_t)(p - f->bytes);
}

static void frameFree(messageFrame *f) {
    if (f->bytes != f->stack) zfree(f->bytes);
}

static long deliverToSubscribers(dict *subscribers, const char *type, robj *pattern, robj *channel, robj *msg) {
    long receivers = 0;
    messageFrame frame;
    frame.bytes = NULL;
    dictIterator *di = dictGetIterator(subscribers);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        client *c = dictGetKey(de);
        if (c->flags & CLIENT_CLOSE_ASAP) continue;
        if (frame.bytes == NULL) frameEncode(&frame, type, pattern, channel, msg);
        frame.bytes[0] = c->resp == 2 ? '*' : '>';
        uint64_t was = beginPush(c);
        addReplyProto(c, frame.bytes, frame.len);
        endPush(c, was);
        receivers++;
    }
    dictReleaseIterator(di);
    if (frame.bytes) frameFree(&frame);
    return receivers;
}

static long deliverToPatterns(robj *channel, robj *msg) {
    if (server_patterns == NULL || dictSize(server_patterns) == 0) return 0;
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
    if (server.cluster_enabled) clusterPropagatePublish(c->argv[1], c->argv[2], 0);
    else propagateToReplicasOnly(c);
}

void spublishCommand(client *c) {
    addReplyLongLong(c, pubsubPublishMessage(c->argv[1], c->argv[2], 1));
    if (server.cluster_enabled) clusterPropagatePublish(c->argv[1], c->argv[2], 1);
    else propagateToReplicasOnly(c);
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
