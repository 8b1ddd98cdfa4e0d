/* tracking.c -- client-side caching: the server side of CLIENT TRACKING.
 *
 * A client that turns tracking on is told when a key it may have cached
 * changes: RESP3 clients get a push `>2 invalidate [key ...]` on their own
 * connection, RESP2 clients (and RESP3 ones that ask) redirect the messages
 * to another connection, which receives them as pushes (RESP3) or as
 * Pub/Sub messages on `__redis__:invalidate` (RESP2, subscribed). A null
 * instead of the key array means "everything" (FLUSHDB / FLUSHALL). Replies,
 * pushes and errors are Redis 7.0's, byte for byte.
 *
 * Two modes, as in Redis:
 * - Default mode: every key a tracking client reads (the keys of each
 *   read-only command it runs, found through the key specs) is remembered
 *   in the key table, key -> set of client IDs. When the key is modified
 *   (signalModifiedKey: writes, expiry, eviction) every client in its set
 *   gets one invalidation and the entry is dropped: the next read
 *   remembers it again. OPTIN/OPTOUT with CLIENT CACHING decide per command
 *   whether the keys are remembered. As in Redis the table ignores
 *   databases: a write to k in any db invalidates k.
 * - BCAST mode: nothing is remembered per key. The client registers
 *   prefixes; every modified key matching one is collected in that prefix's
 *   pending set, and beforeSleep sends each subscriber one message per
 *   prefix, keys in byte order (NOLOOP subscribers without the keys they
 *   modified themselves).
 *
 * Memory, and why the table is bounded:
 * - The table stores client IDs, not pointers, and is not cleaned when a
 *   client turns tracking off or disconnects (that would need a reverse
 *   index per client): stale IDs are skipped, and freed, when their key is
 *   invalidated. What bounds it is tracking-table-max-keys: when there are
 *   more keys, random entries are invalidated (their clients are told, so
 *   nothing is lost) from beforeSleep, with more effort while it stays
 *   over, as Redis does. When the last tracking client goes, the whole
 *   table is freed; a flush frees it too.
 * - The per-client state (flags, redirect, BCAST prefixes) is one small
 *   block freed on CLIENT TRACKING OFF, RESET and disconnect, together with
 *   the client's place in the prefix table.
 * - An ID set is a sorted array of 64-bit IDs (binary search, no per-ID
 *   allocation).
 *
 * The hot path: a server with no tracking client pays one predictable
 * branch per modified key (server.tracking_clients in signalModifiedKey),
 * and per executed command one in call() and one in resetClient()
 * (c->tracking, for CLIENT CACHING).
 *
 * Ordering: an invalidation for the client running the command (a client
 * that writes a key it tracks) would land inside the command's reply, so
 * it is queued and sent after the reply -- after EXEC's whole reply inside
 * a transaction -- by trackingSendPendingInvalidations(), which server.c's
 * afterCommand and beforeSleep (for commands of unblocked clients) call.
 *
 * Redirect targets are looked up once, at CLIENT TRACKING; when a target
 * disconnects, the clients redirecting to it lose the pointer and their
 * next invalidation sets the broken-redirect state (and, in RESP3, sends
 * them a `tracking-redir-broken` push) as Redis does.
 */
#include "server.h"
#include "tracking.h"

#define TRACKING_CHANNEL "__redis__:invalidate"

typedef struct clientTracking {
    unsigned flags;      /* TRACKING_* */
    uint64_t redirect_id; /* 0: no redirection */
    client *redirect;    /* NULL once the redirect client went away */
    sds *prefixes;       /* BCAST prefixes, sorted */
    size_t numprefixes, prefixes_cap;
    size_t prefix_bytes; /* allocated for the prefix strings */
} clientTracking;

/* A sorted set of client IDs. */
typedef struct idSet {
    uint32_t len, cap;
    uint64_t ids[];
} idSet;

/* A BCAST prefix: its subscribers and the keys modified since beforeSleep. */
typedef struct bcastPrefix {
    sds prefix;
    list *clients; /* client* */
    dict *pending; /* key sds -> ID of the client that modified it (0: none) */
} bcastPrefix;

/* An invalidation for the client running a command, sent after its reply. */
typedef struct pendingInvalidation {
    client *c;
    sds key; /* NULL: the flush (null) invalidation */
} pendingInvalidation;

static dict *key_table;            /* key sds -> idSet* */
static unsigned long long total_items; /* IDs in all the sets */
static bcastPrefix **prefix_table; /* sorted by prefix */
static size_t prefix_count;
static dict *trackers;             /* &client->id -> client*, every tracking client */
static dict *redirect_targets;     /* client* -> number of clients redirecting to it */
static list *pending;              /* pendingInvalidation* */

/* ---- tables --------------------------------------------------------------------------------- */

static void idSetFree(dict *d, void *val) { (void)d; zfree(val); }

static uint64_t idHash(const void *key) {
    uint64_t id;
    memcpy(&id, key, sizeof(id));
    return dictGenHashFunction(&id, sizeof(id));
}

static int idCompare(dict *d, const void *a, const void *b) {
    (void)d;
    return memcmp(a, b, sizeof(uint64_t)) == 0;
}

static dictType keyTableType = {dictSdsHash, NULL, NULL, dictSdsKeyCompare, dictSdsDestructor, idSetFree, NULL};
static dictType pendingKeysType = {dictSdsHash, NULL, NULL, dictSdsKeyCompare, dictSdsDestructor, NULL, NULL};
static dictType trackersType = {idHash, NULL, NULL, idCompare, NULL, NULL, NULL};
static dictType redirectTargetsType = {dictPointerHash, NULL, NULL, NULL, NULL, NULL, NULL};

static client *lookupTracker(uint64_t id) {
    dictEntry *de = dictFind(trackers, &id);
    return de ? dictGetVal(de) : NULL;
}

/* Adds id; returns 1 if it was not there. */
static int idSetAdd(idSet **setp, uint64_t id) {
    idSet *s = *setp;
    uint32_t lo = 0, hi = s ? s->len : 0;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->ids[mid] == id) return 0;
        if (s->ids[mid] < id) lo = mid + 1;
        else hi = mid;
    }
    if (s == NULL || s->len == s->cap) {
        uint32_t cap = s ? s->cap * 2 : 1;
        s = zrealloc(s, sizeof(idSet) + sizeof(uint64_t) * cap);
        if (*setp == NULL) s->len = 0;
        s->cap = cap;
        *setp = s;
    }
    memmove(&s->ids[lo + 1], &s->ids[lo], sizeof(uint64_t) * (s->len - lo));
    s->ids[lo] = id;
    s->len++;
    return 1;
}

static void freeKeyTable(void) {
    if (key_table) dictEmpty(key_table, NULL);
    total_items = 0;
}

/* ---- sending ---------------------------------------------------------------------------------- */

static void beginPush(client *c, uint64_t *was) {
    *was = c->flags & CLIENT_PUSHING;
    c->flags |= CLIENT_PUSHING;
}

static void endPush(client *c, uint64_t was) {
    if (!was) c->flags &= ~(uint64_t)CLIENT_PUSHING;
}

static void sendRedirectBroken(client *c, clientTracking *t) {
    t->flags |= TRACKING_BROKEN_REDIR;
    if (c->resp < 3) return;
    uint64_t was;
    beginPush(c, &was);
    addReplyPushLen(c, 2);
    addReplyBulkCBuffer(c, "tracking-redir-broken", 21);
    addReplyLongLong(c, (long long)t->redirect_id);
    endPush(c, was);
}

/* Sends c's invalidation: `payload` is the RESP value (a key array or a
 * null), to c itself or to its redirect client. RESP2 clients get nothing
 * unless redirected to a subscribed connection. A client that turned
 * tracking off during a transaction still gets what that transaction
 * queued for it, on its own connection. */
static void sendInvalidation(client *c, const char *payload, size_t len) {
    clientTracking *t = c->tracking;
    client *to = c;
    int redirected = t && t->redirect_id;
    if (redirected) {
        if (t->redirect == NULL) {
            sendRedirectBroken(c, t);
            return;
        }
        to = t->redirect;
    }
    static const char push[] = ">2\r\n$10\r\ninvalidate\r\n";
    static const char message[] = "*3\r\n$7\r\nmessage\r\n$20\r\n" TRACKING_CHANNEL "\r\n";
    uint64_t was;
    if (to->resp > 2) {
        beginPush(to, &was);
        addReplyProto(to, push, sizeof(push) - 1);
    } else if (redirected && to->flags & CLIENT_PUBSUB) {
        beginPush(to, &was);
        addReplyProto(to, message, sizeof(message) - 1);
    } else {
        return;
    }
    addReplyProto(to, payload, len);
    endPush(to, was);
}

static sds catBulk(sds s, const char *p, size_t len) {
    s = sdscatfmt(s, "$%U\r\n", (unsigned long long)len);
    s = sdscatlen(s, p, len);
    return sdscatlen(s, "\r\n", 2);
}

static void sendKeyInvalidation(client *c, sds key) {
    sds payload = catBulk(sdsnew("*1\r\n"), key, sdslen(key));
    sendInvalidation(c, payload, sdslen(payload));
    sdsfree(payload);
}

static void sendFlushInvalidation(client *c) {
    if (c->resp == 2) sendInvalidation(c, "$-1\r\n", 5);
    else sendInvalidation(c, "_\r\n", 3);
}

/* ---- invalidations for the running client ------------------------------------------------------ */

static void queuePending(client *c, sds key) {
    pendingInvalidation *p = zmalloc(sizeof(*p));
    p->c = c;
    p->key = key ? sdsdup(key) : NULL;
    listAddNodeTail(pending, p);
}

static void freePending(void *ptr) {
    pendingInvalidation *p = ptr;
    sdsfree(p->key);
    zfree(p);
}

static void flushPending(void) {
    while (listLength(pending)) {
        listNode *ln = listFirst(pending);
        pendingInvalidation *p = listNodeValue(ln);
        if (p->key) sendKeyInvalidation(p->c, p->key);
        else sendFlushInvalidation(p->c);
        listDelNode(pending, ln);
    }
}

static void dropPendingOf(client *c) {
    listIter li;
    listNode *ln;
    listRewind(pending, &li);
    while ((ln = listNext(&li)) != NULL)
        if (((pendingInvalidation *)listNodeValue(ln))->c == c) listDelNode(pending, ln);
}

static int isRunningCommand(client *c) {
    return c == server.current_client && (c->flags & CLIENT_EXECUTING_COMMAND || server.in_exec);
}

/* ---- invalidating ------------------------------------------------------------------------------ */

/* BCAST: note key in the pending set of every prefix it matches. */
static void rememberForBroadcast(client *modifier, sds key) {
    size_t len = sdslen(key);
    for (size_t j = 0; j < prefix_count; j++) {
        bcastPrefix *bp = prefix_table[j];
        size_t plen = sdslen(bp->prefix);
        if (plen > len || memcmp(bp->prefix, key, plen) != 0) continue;
        dictEntry *existing, *de = dictAddRaw(bp->pending, key, &existing);
        if (de) dictSetKey(bp->pending, de, sdsdup(key));
        else de = existing;
        dictSetUnsignedIntegerVal(de, modifier ? modifier->id : 0);
    }
}

static void notifyKeyTrackers(idSet *ids, sds key) {
    for (uint32_t j = 0; j < ids->len; j++) {
        client *target = lookupTracker(ids->ids[j]);
        if (target == NULL || target->tracking->flags & TRACKING_BCAST) continue;
        if (target->tracking->flags & TRACKING_NOLOOP && target == server.current_client) continue;
        if (isRunningCommand(target)) queuePending(target, key);
        else sendKeyInvalidation(target, key);
    }
}

static void invalidateKey(client *modifier, sds key, int bcast) {
    if (bcast && prefix_count) rememberForBroadcast(modifier, key);
    if (key_table == NULL) return;
    dictEntry *de = dictFind(key_table, key);
    if (de == NULL) return;
    idSet *ids = dictGetVal(de);
    notifyKeyTrackers(ids, key);
    total_items -= ids->len;
    dictDelete(key_table, key);
}

void trackingInvalidateKey(client *c, robj *key) {
    if (sdsEncodedObject(key)) {
        invalidateKey(c, key->ptr, 1);
    } else {
        robj *decoded = getDecodedObject(key);
        invalidateKey(c, decoded->ptr, 1);
        decrRefCount(decoded);
    }
}

/* Keys are not per database: a flush invalidates everything, with a null.
 * Trackers are told in connection order, as Redis does. */
void trackingInvalidateKeysOnFlush(void) {
    listIter li;
    listNode *ln;
    listRewind(server.clients, &li);
    while ((ln = listNext(&li)) != NULL) {
        client *c = listNodeValue(ln);
        if (c->tracking == NULL) continue;
        if (c == server.current_client) queuePending(c, NULL);
        else sendFlushInvalidation(c);
    }
    freeKeyTable();
}

/* ---- remembering keys ------------------------------------------------------------------------------ */

static void rememberKey(client *tracker, robj *keyobj) {
    robj *decoded = getDecodedObject(keyobj);
    sds key = decoded->ptr;
    dictEntry *existing, *de = dictAddRaw(key_table, key, &existing);
    if (de) {
        dictSetKey(key_table, de, sdsdup(key));
        dictSetVal(key_table, de, NULL);
    } else {
        de = existing;
    }
    idSet *ids = dictGetVal(de);
    if (idSetAdd(&ids, tracker->id)) total_items++;
    dictSetVal(key_table, de, ids);
    decrRefCount(decoded);
}

/* The read-only script commands: as in Redis, not what they declare but
 * what the script reads decides (below). */
static int isReadOnlyScriptCommand(redisCommand *cmd) {
    return cmd->proc == evalRoCommand || cmd->proc == evalShaRoCommand || cmd->proc == fcallroCommand;
}

/* After a read-only command run by c (or, inside EXEC, for it): the
 * client that sent it remembers its keys, unless OPTIN/OPTOUT says no.
 * A read-only command run by a script makes its caller remember the keys
 * the script declared (EVAL's, FCALL's), not the command's own, as in
 * Redis 7.0: a script that reads nothing tracks nothing. */
void trackingRememberKeys(client *c) {
    if (isReadOnlyScriptCommand(c->cmd)) return;
    client *tracker = server.current_client ? server.current_client : c;
    clientTracking *t = tracker->tracking;
    if (t == NULL || t->flags & TRACKING_BCAST) return;
    int caching = t->flags & TRACKING_CACHING;
    if ((t->flags & TRACKING_OPTIN && !caching) || (t->flags & TRACKING_OPTOUT && caching)) return;
    client *declarer = (c->flags & CLIENT_SCRIPT) ? tracker : c; /* whose arguments name the keys */
    if (declarer->cmd->flags & CMD_PUBSUB) return;                /* shard channels are no keys to cache */
    getKeysResult result = {0};
    int n = getKeysFromCommand(declarer->cmd, declarer->argv, declarer->argc, &result);
    for (int j = 0; j < n; j++) rememberKey(tracker, declarer->argv[result.keys[j].pos]);
    getKeysFreeResult(&result);
}

/* ---- the BCAST prefix table ---------------------------------------------------------------------------- */

/* Byte order of two strings (a shorter one first when it is a prefix). */
static int bytesCompare(const char *a, size_t alen, const char *b, size_t blen) {
    int cmp = memcmp(a, b, alen < blen ? alen : blen);
    if (cmp) return cmp;
    return alen < blen ? -1 : (alen > blen ? 1 : 0);
}

/* Binary search in a sorted array of n items whose strings key_at() gives:
 * the position of p, or where it would go (*found says which). */
static size_t sortedPosition(const void *items, size_t n, sds (*key_at)(const void *, size_t), const char *p,
                             size_t len, int *found) {
    size_t lo = 0, hi = n;
    *found = 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        sds q = key_at(items, mid);
        int cmp = bytesCompare(q, sdslen(q), p, len);
        if (cmp == 0) {
            *found = 1;
            return mid;
        }
        if (cmp < 0) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static sds tablePrefixAt(const void *items, size_t i) { return ((bcastPrefix *const *)items)[i]->prefix; }
static sds clientPrefixAt(const void *items, size_t i) { return ((const sds *)items)[i]; }

/* The position of prefix in the table, or where it would go (*found 0). */
static size_t prefixPosition(const char *p, size_t len, int *found) {
    return sortedPosition(prefix_table, prefix_count, tablePrefixAt, p, len, found);
}

static size_t clientPrefixPosition(clientTracking *t, const char *p, size_t len, int *found) {
    return sortedPosition(t->prefixes, t->numprefixes, clientPrefixAt, p, len, found);
}

static bcastPrefix *prefixEntry(const char *p, size_t len) {
    int found;
    size_t pos = prefixPosition(p, len, &found);
    if (found) return prefix_table[pos];
    bcastPrefix *bp = zmalloc(sizeof(*bp));
    bp->prefix = sdsnewlen(p, len);
    bp->clients = listCreate();
    bp->pending = dictCreate(&pendingKeysType);
    prefix_table = zrealloc(prefix_table, sizeof(bcastPrefix *) * (prefix_count + 1));
    memmove(&prefix_table[pos + 1], &prefix_table[pos], sizeof(bcastPrefix *) * (prefix_count - pos));
    prefix_table[pos] = bp;
    prefix_count++;
    return bp;
}

static void prefixLeave(client *c, sds p) {
    int found;
    size_t pos = prefixPosition(p, sdslen(p), &found);
    if (!found) return;
    bcastPrefix *bp = prefix_table[pos];
    listNode *ln = listSearchKey(bp->clients, c);
    if (ln) listDelNode(bp->clients, ln);
    if (listLength(bp->clients)) return;
    sdsfree(bp->prefix);
    listRelease(bp->clients);
    dictRelease(bp->pending);
    zfree(bp);
    memmove(&prefix_table[pos], &prefix_table[pos + 1], sizeof(bcastPrefix *) * (prefix_count - pos - 1));
    prefix_count--;
}

/* Inserted in order (a binary search and one memmove): a client may hold
 * thousands of prefixes, added one CLIENT TRACKING call at a time. */
static void clientAddPrefix(client *c, const char *p, size_t len) {
    clientTracking *t = c->tracking;
    int found;
    size_t pos = clientPrefixPosition(t, p, len, &found);
    if (found) return;
    listAddNodeTail(prefixEntry(p, len)->clients, c);
    if (t->numprefixes == t->prefixes_cap) {
        t->prefixes_cap = t->prefixes_cap ? t->prefixes_cap * 2 : 4;
        t->prefixes = zrealloc(t->prefixes, sizeof(sds) * t->prefixes_cap);
    }
    memmove(&t->prefixes[pos + 1], &t->prefixes[pos], sizeof(sds) * (t->numprefixes - pos));
    t->prefixes[pos] = sdsnewlen(p, len);
    t->prefix_bytes += sdsAllocSize(t->prefixes[pos]);
    t->numprefixes++;
}

/* One of the two is a prefix of the other. */
static int prefixesOverlap(const char *a, size_t alen, const char *b, size_t blen) {
    return memcmp(a, b, alen < blen ? alen : blen) == 0;
}

/* The first of the client's prefixes (in order) that overlaps p, or NULL.
 * The client's prefixes never overlap one another, so only two can: the
 * one just before p's place (if it is a prefix of p), else the one at it
 * (the first of those that p is a prefix of, or p itself). */
static sds existingOverlap(clientTracking *t, sds p) {
    int found;
    size_t pos = clientPrefixPosition(t, p, sdslen(p), &found);
    if (pos > 0 && prefixesOverlap(t->prefixes[pos - 1], sdslen(t->prefixes[pos - 1]), p, sdslen(p)))
        return t->prefixes[pos - 1];
    if (pos < t->numprefixes && prefixesOverlap(t->prefixes[pos], sdslen(t->prefixes[pos]), p, sdslen(p)))
        return t->prefixes[pos];
    return NULL;
}

/* Redis's check and error texts: a new prefix that overlaps one the client
 * has, or another new one, is refused and tracking is left as it was.
 * (Redis 7.0 has a slip here: a clash between two new prefixes after the
 * first one is reported and then tracking is enabled anyway, with a second
 * reply, +OK, that desynchronises the client. Not reproduced.) */
int trackingCheckPrefixes(client *c, robj **prefixes, size_t count) {
    clientTracking *t = c->tracking;
    for (size_t i = 0; i < count; i++) {
        sds p = prefixes[i]->ptr;
        sds clash = t ? existingOverlap(t, p) : NULL;
        if (clash) {
            addReplyErrorFormat(c, "Prefix '%s' overlaps with an existing prefix '%s'. "
                                   "Prefixes for a single client must not overlap.", p, clash);
            return 0;
        }
        for (size_t j = i + 1; j < count; j++) {
            sds q = prefixes[j]->ptr;
            if (!prefixesOverlap(p, sdslen(p), q, sdslen(q))) continue;
            addReplyErrorFormat(c, "Prefix '%s' overlaps with another provided prefix '%s'. "
                                   "Prefixes for a single client must not overlap.", p, q);
            return 0;
        }
    }
    return 1;
}

/* ---- BCAST delivery (beforeSleep) ------------------------------------------------------------------------ */

static int entryKeyCompare(const void *a, const void *b) {
    return sdscmp(dictGetKey(*(dictEntry *const *)a), dictGetKey(*(dictEntry *const *)b));
}

/* The key array of the pending keys (sorted entries), without those
 * `skip` modified (0: none); NULL when nothing is left. */
static sds keysReply(dictEntry **entries, size_t n, uint64_t skip) {
    size_t count = 0;
    for (size_t j = 0; j < n; j++)
        if (!skip || dictGetUnsignedIntegerVal(entries[j]) != skip) count++;
    if (count == 0) return NULL;
    sds out = sdscatfmt(sdsempty(), "*%U\r\n", (unsigned long long)count);
    for (size_t j = 0; j < n; j++) {
        if (skip && dictGetUnsignedIntegerVal(entries[j]) == skip) continue;
        sds key = dictGetKey(entries[j]);
        out = catBulk(out, key, sdslen(key));
    }
    return out;
}

static void broadcastPrefix(bcastPrefix *bp) {
    size_t n = dictSize(bp->pending), i = 0;
    dictEntry **entries = zmalloc(sizeof(dictEntry *) * n);
    dictIterator *di = dictGetIterator(bp->pending);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) entries[i++] = de;
    dictReleaseIterator(di);
    qsort(entries, n, sizeof(dictEntry *), entryKeyCompare);
    sds common = keysReply(entries, n, 0);
    listIter li;
    listNode *ln;
    listRewind(bp->clients, &li);
    while ((ln = listNext(&li)) != NULL) {
        client *c = listNodeValue(ln);
        if (c->tracking->flags & TRACKING_NOLOOP) {
            sds own = keysReply(entries, n, c->id);
            if (own) sendInvalidation(c, own, sdslen(own));
            sdsfree(own);
        } else {
            sendInvalidation(c, common, sdslen(common));
        }
    }
    sdsfree(common);
    zfree(entries);
    dictEmpty(bp->pending, NULL);
}

static void broadcastPending(void) {
    for (size_t j = 0; j < prefix_count; j++)
        if (dictSize(prefix_table[j]->pending)) broadcastPrefix(prefix_table[j]);
}

/* ---- the table's size limit ------------------------------------------------------------------------------- */

/* Over tracking-table-max-keys: invalidate random keys, 100 per call, 100
 * more each call in a row that could not get under the limit. */
static void enforceMaxKeys(void) {
    static unsigned long rounds = 0;
    unsigned long max = server.tracking_table_max_keys;
    if (key_table == NULL || max == 0) return;
    if (dictSize(key_table) <= max) {
        rounds = 0;
        return;
    }
    unsigned long effort = 100 * (rounds + 1);
    while (effort-- > 0) {
        dictEntry *de = dictGetRandomKey(key_table);
        if (de == NULL) break;
        sds key = sdsdup(dictGetKey(de));
        invalidateKey(NULL, key, 0);
        sdsfree(key);
        if (dictSize(key_table) <= max) {
            rounds = 0;
            return;
        }
    }
    rounds++;
}

/* ---- enabling and disabling ---------------------------------------------------------------------------------- */

static void setRedirect(clientTracking *t, client *target, uint64_t id) {
    if (t->redirect) {
        dictEntry *de = dictFind(redirect_targets, t->redirect);
        if (de && dictIncrUnsignedIntegerVal(de, (uint64_t)-1) == 0) dictDelete(redirect_targets, t->redirect);
    }
    t->redirect = target;
    t->redirect_id = id;
    if (target) {
        dictEntry *existing, *de = dictAddRaw(redirect_targets, target, &existing);
        if (de) dictSetUnsignedIntegerVal(de, 0);
        else de = existing;
        dictIncrUnsignedIntegerVal(de, 1);
    }
}

void trackingEnable(client *c, client *redirect, uint64_t redirect_id, unsigned options, robj **prefixes,
                    size_t count) {
    clientTracking *t = c->tracking;
    if (t == NULL) {
        t = c->tracking = zcalloc(sizeof(*t));
        server.tracking_clients++;
        dictAdd(trackers, &c->id, c);
    }
    setRedirect(t, redirect, redirect_id);
    t->flags &= TRACKING_CACHING;
    t->flags |= TRACKING_ON | (options & (TRACKING_OPTIN | TRACKING_OPTOUT | TRACKING_NOLOOP));
    if (options & TRACKING_BCAST) {
        t->flags |= TRACKING_BCAST;
        if (count == 0) clientAddPrefix(c, "", 0);
        for (size_t j = 0; j < count; j++) clientAddPrefix(c, prefixes[j]->ptr, sdslen(prefixes[j]->ptr));
    }
}

/* What this client's tracking state holds, for maxmemory-clients and
 * tot-mem (the shared prefix table is the server's, not counted here). */
size_t trackingClientMemory(client *c) {
    clientTracking *t = c->tracking;
    if (t == NULL) return 0;
    return sizeof(*t) + t->prefixes_cap * sizeof(sds) + t->prefix_bytes;
}

void trackingDisable(client *c) {
    clientTracking *t = c->tracking;
    if (t == NULL) return;
    for (size_t j = 0; j < t->numprefixes; j++) {
        prefixLeave(c, t->prefixes[j]);
        sdsfree(t->prefixes[j]);
    }
    zfree(t->prefixes);
    setRedirect(t, NULL, 0);
    dictDelete(trackers, &c->id);
    zfree(t);
    c->tracking = NULL;
    if (--server.tracking_clients == 0) freeKeyTable(); /* nobody left to tell */
}

/* freeClient(): its own tracking, and its role as a redirect target. */
void trackingClientFreed(client *c) {
    trackingDisable(c);
    dropPendingOf(c);
    if (dictFind(redirect_targets, c) == NULL) return;
    dictIterator *di = dictGetIterator(trackers);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        clientTracking *t = ((client *)dictGetVal(de))->tracking;
        if (t->redirect == c) t->redirect = NULL; /* redirect_id stays: "broken" */
    }
    dictReleaseIterator(di);
    dictDelete(redirect_targets, c);
}

/* ---- per-client queries ------------------------------------------------------------------------------------------ */

unsigned trackingFlags(client *c) { return c->tracking ? c->tracking->flags : 0; }

long long trackingRedirectId(client *c) { return c->tracking ? (long long)c->tracking->redirect_id : -1; }

void trackingSetCaching(client *c) {
    if (c->tracking) c->tracking->flags |= TRACKING_CACHING;
}

void trackingReplyPrefixes(client *c) {
    clientTracking *t = c->tracking;
    size_t n = t ? t->numprefixes : 0;
    addReplyArrayLen(c, (long)n);
    for (size_t j = 0; j < n; j++) addReplyBulkCBuffer(c, t->prefixes[j], sdslen(t->prefixes[j]));
}

/* CLIENT CACHING applies to the next command only: any command but a
 * CLIENT subcommand, outside a transaction, consumes it. */
void trackingCommandDone(client *c, redisCommand *cmd) {
    if (c->tracking == NULL || c->flags & CLIENT_MULTI) return;
    if (cmd && cmd->proc == clientCommand) return;
    c->tracking->flags &= ~TRACKING_CACHING;
}

unsigned long long trackingTotalKeys(void) { return key_table ? dictSize(key_table) : 0; }
unsigned long long trackingTotalItems(void) { return total_items; }
unsigned long long trackingTotalPrefixes(void) { return prefix_count; }

/* ---- called by server.c's afterCommand and beforeSleep ----------------------------------------------------------- */

/* The invalidations for clients that ran a command, after their replies. */
void trackingSendPendingInvalidations(void) {
    if (listLength(pending)) flushPending();
}

/* Once per event-loop pass: what commands left pending, the BCAST
 * messages, and the key table's size limit. */
void trackingBeforeSleep(void) {
    trackingSendPendingInvalidations(); /* commands of unblocked clients */
    if (server.tracking_clients == 0) return;
    broadcastPending();
    enforceMaxKeys();
}

void trackingInit(void) {
    key_table = dictCreate(&keyTableType);
    trackers = dictCreate(&trackersType);
    redirect_targets = dictCreate(&redirectTargetsType);
    pending = listCreate();
    listSetFreeMethod(pending, freePending);
}
