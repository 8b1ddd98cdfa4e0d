/* t_stream_cg.c -- consumer groups of streams (Redis 7.0): the groups,
 * consumers and pending-entries lists (PEL) of stream.h, and the commands
 * that use them: XGROUP, XREADGROUP's bookkeeping, XACK, XPENDING, XCLAIM,
 * XAUTOCLAIM, XINFO.
 *
 * Ownership: a group's PEL owns its streamNACKs; each consumer's PEL points
 * at the same NACKs, and each NACK names its consumer, so moving an entry
 * between consumers (XCLAIM) is two tree operations and a pointer change.
 *
 * Design decisions:
 * - A group's entries_read is kept exact when it can be known cheaply (the
 *   group reads in order with no deletions in between) and is -1 otherwise,
 *   as 7.0 does; lag is then computed from the stream's counters when
 *   possible (streamEstimateEntriesRead).
 * - What a read or claim did is propagated as 7.0 writes it: an idempotent
 *   XCLAIM ... TIME RETRYCOUNT FORCE JUSTID LASTID per pending entry
 *   created, moved or dropped (its stream entry deleted), an XGROUP SETID
 *   ... ENTRIESREAD when the group's last ID moved with no XCLAIM to carry
 *   it, an XGROUP CREATECONSUMER for a consumer a NOACK read created; the
 *   command's own argv never.
 * - XINFO's radix-tree-nodes is the tree's own node count (raxNodeCount).
 *   Our tree keeps the compressed shape Redis's builds (a node per key,
 *   branch point and start of a run; see rax.c), so the counts agree.
 */
#include "server.h"

#include "stream.h"

/* ---- groups ------------------------------------------------------------------------------ */

static void freeNACK(void *nack) { zfree(nack); }

static void freeConsumer(void *p) {
    streamConsumer *consumer = p;
    raxFree(consumer->pel); /* the NACKs belong to the group's PEL */
    sdsfree(consumer->name);
    zfree(consumer);
}

void streamFreeCG(void *p) {
    streamCG *cg = p;
    raxFreeWithCallback(cg->pel, freeNACK);
    raxFreeWithCallback(cg->consumers, freeConsumer);
    zfree(cg);
}

streamCG *streamLookupCG(stream *s, sds name) {
    if (s->cgroups == NULL) return NULL;
    void *cg = raxFind(s->cgroups, (unsigned char *)name, sdslen(name));
    return cg == raxNotFound ? NULL : cg;
}

/* A new group; NULL if the name is taken. */
streamCG *streamCreateCG(stream *s, const char *name, size_t len, const streamID *id, long long entries_read) {
    if (s->cgroups == NULL) s->cgroups = raxNew();
    streamCG *cg = zmalloc(sizeof(*cg));
    cg->last_id = *id;
    cg->entries_read = entries_read;
    cg->pel = raxNew();
    cg->consumers = raxNew();
    if (!raxTryInsert(s->cgroups, (const unsigned char *)name, len, cg, NULL)) {
        streamFreeCG(cg);
        return NULL;
    }
    return cg;
}

streamConsumer *streamLookupConsumer(streamCG *cg, sds name) {
    void *consumer = raxFind(cg->consumers, (unsigned char *)name, sdslen(name));
    return consumer == raxNotFound ? NULL : consumer;
}

/* A new consumer (seen now); NULL if the name is taken. */
streamConsumer *streamCreateConsumer(streamCG *cg, sds name) {
    streamConsumer *consumer = zmalloc(sizeof(*consumer));
    consumer->name = sdsdup(name);
    consumer->pel = raxNew();
    consumer->seen_time = mstime();
    consumer->active_time = -1;
    if (!raxTryInsert(cg->consumers, (unsigned char *)name, sdslen(name), consumer, NULL)) {
        freeConsumer(consumer);
        return NULL;
    }
    return consumer;
}

streamNACK *streamCreateNACK(streamConsumer *consumer) {
    streamNACK *nack = zmalloc(sizeof(*nack));
    nack->delivery_time = mstime();
    nack->delivery_count = 1;
    nack->consumer = consumer;
    return nack;
}

/* COPY: the groups, their consumers and PELs, with new NACKs. */
static void dupGroup(streamCG *dst, streamCG *src) {
    raxIterator ci;
    raxStart(&ci, src->consumers);
    raxSeek(&ci, "^", NULL, 0);
    while (raxNext(&ci)) {
        streamConsumer *from = ci.data;
        streamConsumer *to = streamCreateConsumer(dst, from->name);
        to->seen_time = from->seen_time;
        to->active_time = from->active_time;
        raxIterator pi;
        raxStart(&pi, from->pel);
        raxSeek(&pi, "^", NULL, 0);
        while (raxNext(&pi)) {
            streamNACK *old = pi.data, *nack = streamCreateNACK(to);
            nack->delivery_time = old->delivery_time;
            nack->delivery_count = old->delivery_count;
            raxInsert(dst->pel, pi.key, pi.key_len, nack, NULL);
            raxInsert(to->pel, pi.key, pi.key_len, nack, NULL);
        }
        raxStop(&pi);
    }
    raxStop(&ci);
}

void streamDupGroups(stream *dst, stream *src) {
    if (src->cgroups == NULL) return;
    raxIterator gi;
    raxStart(&gi, src->cgroups);
    raxSeek(&gi, "^", NULL, 0);
    while (raxNext(&gi)) {
        streamCG *from = gi.data;
        streamCG *to = streamCreateCG(dst, (const char *)gi.key, gi.key_len, &from->last_id, from->entries_read);
        dupGroup(to, from);
    }
    raxStop(&gi);
}

size_t streamGroupsAllocSize(stream *s) {
    if (s->cgroups == NULL) return 0;
    size_t total = raxAllocSize(s->cgroups);
    raxIterator gi;
    raxStart(&gi, s->cgroups);
    raxSeek(&gi, "^", NULL, 0);
    while (raxNext(&gi)) {
        streamCG *cg = gi.data;
        total += sizeof(*cg) + raxAllocSize(cg->pel) + raxSize(cg->pel) * sizeof(streamNACK);
        total += raxAllocSize(cg->consumers);
        raxIterator ci;
        raxStart(&ci, cg->consumers);
        raxSeek(&ci, "^", NULL, 0);
        while (raxNext(&ci)) {
            streamConsumer *consumer = ci.data;
            total += sizeof(*consumer) + sdsAllocSize(consumer->name) + raxAllocSize(consumer->pel);
        }
        raxStop(&ci);
    }
    raxStop(&gi);
    return total;
}

/* ---- entries read and lag ------------------------------------------------------------------------ */

/* How many entries were added up to and including id, when the stream's
 * counters tell it for sure; -1 otherwise (7.0's rules). */
long long streamEstimateEntriesRead(stream *s, const streamID *id) {
    if (s->entries_added == 0) return 0;
    int cmp_last = streamIDCompare(id, &s->last_id);
    if (s->length == 0 && cmp_last <= 0) return (long long)s->entries_added;
    if (cmp_last == 0) return (long long)s->entries_added;
    if (cmp_last > 0) return -1;
    int no_gaps = (s->max_deleted_entry_id.ms == 0 && s->max_deleted_entry_id.seq == 0) ||
                  streamIDCompare(&s->max_deleted_entry_id, &s->first_id) < 0;
    if (no_gaps) {
        int cmp_first = streamIDCompare(id, &s->first_id);
        if (cmp_first < 0) return (long long)(s->entries_added - s->length);
        if (cmp_first == 0) return (long long)(s->entries_added - s->length + 1);
    }
    return -1;
}

/* 1 if a deleted entry may lie in [start, end] (NULL: open), judging by the
 * largest ID XDEL removed (7.0's rule). */
int streamRangeHasTombstones(stream *s, const streamID *start, const streamID *end) {
    const streamID *maxdel = &s->max_deleted_entry_id;
    if (!s->length || (maxdel->ms == 0 && maxdel->seq == 0)) return 0;
    if (streamIDCompare(&s->first_id, maxdel) > 0) return 0;
    streamID lo = {0, 0}, hi = {UINT64_MAX, UINT64_MAX};
    if (start) lo = *start;
    if (end) hi = *end;
    return streamIDCompare(&lo, maxdel) <= 0 && streamIDCompare(maxdel, &hi) <= 0;
}

/* The lag of a group, or 0 with *valid = 0 when it cannot be known. */
static long long groupLag(stream *s, streamCG *cg, int *valid) {
    *valid = 1;
    if (!s->entries_added) return 0;
    if (cg->entries_read != -1 && !streamRangeHasTombstones(s, &cg->last_id, NULL))
        return (long long)s->entries_added - cg->entries_read;
    long long read = streamEstimateEntriesRead(s, &cg->last_id);
    if (read != -1) return (long long)s->entries_added - read;
    *valid = 0;
    return 0;
}

/* ---- propagation: XCLAIM ... FORCE JUSTID LASTID and XGROUP SETID ---------------------------- */

static robj *word(const char *w) { return createStringObject(w, strlen(w)); }

static void propagateOwned(client *c, robj **argv, int argc) {
    alsoPropagate(c->db->id, argv, argc);
    for (int j = 0; j < argc; j++) decrRefCount(argv[j]);
}

/* An idempotent XCLAIM that gives the replica the NACK as it is here. */
static void propagateXclaim(client *c, robj *key, streamCG *cg, robj *groupname, const streamID *id,
                            streamNACK *nack) {
    if (!propagationEnabled()) return;
    robj *argv[14];
    incrRefCount(key);
    incrRefCount(groupname);
    argv[0] = word("XCLAIM");
    argv[1] = key;
    argv[2] = groupname;
    argv[3] = createStringObject(nack->consumer->name, sdslen(nack->consumer->name));
    argv[4] = word("0");
    argv[5] = createObjectFromStreamID(id);
    argv[6] = word("TIME");
    argv[7] = createStringObjectFromLongLong(nack->delivery_time);
    argv[8] = word("RETRYCOUNT");
    argv[9] = createStringObjectFromLongLong((long long)nack->delivery_count);
    argv[10] = word("FORCE");
    argv[11] = word("JUSTID");
    argv[12] = word("LASTID");
    argv[13] = createObjectFromStreamID(&cg->last_id);
    propagateOwned(c, argv, 14);
}

static void propagateGroupID(client *c, robj *key, streamCG *cg, robj *groupname) {
    if (!propagationEnabled()) return;
    robj *argv[7];
    incrRefCount(key);
    incrRefCount(groupname);
    argv[0] = word("XGROUP");
    argv[1] = word("SETID");
    argv[2] = key;
    argv[3] = groupname;
    argv[4] = createObjectFromStreamID(&cg->last_id);
    argv[5] = word("ENTRIESREAD");
    argv[6] = createStringObjectFromLongLong(cg->entries_read);
    propagateOwned(c, argv, 7);
}

/* XGROUP CREATECONSUMER: a consumer XREADGROUP ... NOACK created, which
 * no XCLAIM will create on the replica or at AOF load (7.0 writes it so,
 * before the read's XGROUP SETID, both in one MULTI). */
void streamPropagateConsumerCreation(client *c, robj *key, robj *groupname, sds name) {
    if (!propagationEnabled()) return;
    robj *argv[5];
    incrRefCount(key);
    incrRefCount(groupname);
    argv[0] = word("XGROUP");
    argv[1] = word("CREATECONSUMER");
    argv[2] = key;
    argv[3] = groupname;
    argv[4] = createStringObject(name, sdslen(name));
    propagateOwned(c, argv, 5);
}

/* ---- consumers ------------------------------------------------------------------------------ */

/* A consumer created by a command: notified and counted as a change. */
static streamConsumer *createConsumerNotify(client *c, robj *key, streamCG *cg, sds name) {
    streamConsumer *consumer = streamCreateConsumer(cg, name);
    if (consumer == NULL) return NULL;
    notifyKeyspaceEvent(NOTIFY_STREAM, "xgroup-createconsumer", key, c->db->id);
    server.dirty++;
    return consumer;
}

/* The consumer for a read or claim: seen now, created if new. */
streamConsumer *streamConsumerForRead(client *c, robj *key, streamCG *cg, sds name) {
    streamConsumer *consumer = streamLookupConsumer(cg, name);
    if (consumer) {
        consumer->seen_time = mstime();
        return consumer;
    }
    return createConsumerNotify(c, key, cg, name);
}

static void deleteNACK(streamCG *cg, const unsigned char *key, streamNACK *nack) {
    raxRemove(cg->pel, key, SLP_ID_KEY_LEN, NULL);
    if (nack->consumer) raxRemove(nack->consumer->pel, key, SLP_ID_KEY_LEN, NULL);
    zfree(nack);
}

/* Makes consumer own nack (moving it from its previous owner). */
static void giveNACK(const unsigned char *key, streamNACK *nack, streamConsumer *consumer) {
    if (nack->consumer == consumer) return;
    if (nack->consumer) raxRemove(nack->consumer->pel, key, SLP_ID_KEY_LEN, NULL);
    raxInsert(consumer->pel, key, SLP_ID_KEY_LEN, nack, NULL);
    nack->consumer = consumer;
}

/* ---- XREADGROUP's replies --------------------------------------------------------------------- */

size_t streamReplyConsumerHistory(client *c, stream *s, streamConsumer *consumer, const streamID *start, size_t count) {
    unsigned char startkey[SLP_ID_KEY_LEN];
    raxIterator ri;
    size_t n = 0;
    void *len = addReplyDeferredLen(c);
    streamIDEncode(startkey, start);
    raxStart(&ri, consumer->pel);
    raxSeek(&ri, ">=", startkey, sizeof startkey);
    while ((count == 0 || n < count) && raxNext(&ri)) {
        streamID id;
        streamIDDecode(ri.key, &id);
        if (streamReplyEntry(c, s, &id)) {
            streamNACK *nack = ri.data;
            nack->delivery_time = mstime();
            nack->delivery_count++;
        } else { /* deleted meanwhile: its ID and a null */
            addReplyArrayLen(c, 2);
            addReplyStreamID(c, &id);
            addReplyNullArray(c);
        }
        n++;
    }
    raxStop(&ri);
    setDeferredArrayLen(c, len, (long)n);
    return n;
}

/* The group delivered id: its last ID and entries-read move on. */
static void groupDelivered(stream *s, streamCG *cg, const streamID *id) {
    if (cg->entries_read != -1 && !streamRangeHasTombstones(s, id, NULL)) cg->entries_read++;
    else if (s->entries_added) cg->entries_read = streamEstimateEntriesRead(s, id);
    cg->last_id = *id;
}

/* A new pending entry for consumer (or the existing one, handed over). */
static streamNACK *pendEntry(streamCG *cg, streamConsumer *consumer, const unsigned char *key) {
    streamNACK *nack = streamCreateNACK(consumer);
    if (raxTryInsert(cg->pel, key, SLP_ID_KEY_LEN, nack, NULL)) {
        raxInsert(consumer->pel, key, SLP_ID_KEY_LEN, nack, NULL);
        return nack;
    }
    zfree(nack);
    nack = raxFind(cg->pel, key, SLP_ID_KEY_LEN);
    giveNACK(key, nack, consumer);
    nack->delivery_time = mstime();
    nack->delivery_count = 1;
    return nack;
}

size_t streamReplyGroupNew(client *c, stream *s, robj *key, robj *groupname, streamCG *cg, streamConsumer *consumer,
                           size_t count, int noack) {
    streamIter it;
    streamID id, start = cg->last_id, end = {UINT64_MAX, UINT64_MAX};
    int nfields, moved = 0;
    size_t n = 0;
    void *len = addReplyDeferredLen(c);
    streamIDIncr(&start);
    streamIterStart(&it, s, &start, &end, 0);
    while ((count == 0 || n < count) && streamIterNext(&it, &id, &nfields)) {
        if (streamIDCompare(&id, &cg->last_id) > 0) {
            groupDelivered(s, cg, &id);
            moved = 1;
        }
        addReplyStreamEntry(c, &it, &id, nfields);
        n++;
        if (noack) continue;
        unsigned char idkey[SLP_ID_KEY_LEN];
        streamIDEncode(idkey, &id);
        streamNACK *nack = pendEntry(cg, consumer, idkey);
        propagateXclaim(c, key, cg, groupname, &id, nack);
        moved = 0; /* the XCLAIM carries LASTID */
    }
    streamIterStop(&it);
    if (moved) propagateGroupID(c, key, cg, groupname);
    setDeferredArrayLen(c, len, (long)n);
    return n;
}

/* ---- XGROUP ----------------------------------------------------------------------------------- */

static const char *xgroupHelp[] = {
    "CREATE <key> <groupname> <id|$> [option]",
    "    Create a new consumer group. Options are:",
    "    * MKSTREAM",
    "      Create the empty stream if it does not exist.",
    "    * ENTRIESREAD entries_read",
    "      Set the group's entries_read counter (internal use).",
    "CREATECONSUMER <key> <groupname> <consumer>",
    "    Create a new consumer in the specified group.",
    "DELCONSUMER <key> <groupname> <consumer>",
    "    Remove the specified consumer.",
    "DESTROY <key> <groupname>",
    "    Remove the specified group.",
    "SETID <key> <groupname> <id|$> [ENTRIESREAD entries_read]",
    "    Set the current group ID and entries_read counter.",
    NULL};

static int getEntriesRead(client *c, robj *o, long long *entries_read) {
    if (getLongLongFromObjectOrReply(c, o, entries_read, NULL) != C_OK) return -1;
    if (*entries_read < 0 && *entries_read != -1) {
        addReplyError(c, "value for ENTRIESREAD must be positive or -1");
        return -1;
    }
    return 0;
}

/* CREATE's options (MKSTREAM, ENTRIESREAD) and SETID's (ENTRIESREAD). */
static int parseXgroupOptions(client *c, const char *sub, int *mkstream, long long *entries_read) {
    if (!strcasecmp(sub, "create")) {
        for (int i = 5; i < c->argc; i++) {
            if (!strcasecmp(c->argv[i]->ptr, "mkstream")) {
                *mkstream = 1;
            } else if (!strcasecmp(c->argv[i]->ptr, "entriesread") && i + 1 < c->argc) {
                if (getEntriesRead(c, c->argv[++i], entries_read) < 0) return -1;
            } else {
                addReplySubcommandSyntaxError(c);
                return -1;
            }
        }
    } else if (!strcasecmp(sub, "setid")) {
        if (c->argc == 7 && !strcasecmp(c->argv[5]->ptr, "entriesread")) {
            if (getEntriesRead(c, c->argv[6], entries_read) < 0) return -1;
        } else if (c->argc != 5) {
            addReplySubcommandSyntaxError(c);
            return -1;
        }
    }
    return 0;
}

static void xgroupCreate(client *c, robj *o, int mkstream, long long entries_read) {
    stream *s = o ? o->ptr : NULL;
    streamID id = {0, 0};
    if (!strcmp(c->argv[4]->ptr, "$")) {
        if (s) id = s->last_id;
    } else if (streamParseStrictIDOrReply(c, c->argv[4], &id, 0, NULL) != C_OK) {
        return;
    }
    if (s == NULL) {
        serverAssert(mkstream);
        o = dbAdd(c->db, c->argv[2], createStreamObject());
        s = o->ptr;
        signalModifiedKey(c, c->db, c->argv[2]);
    }
    sds name = c->argv[3]->ptr;
    if (streamCreateCG(s, name, sdslen(name), &id, entries_read) == NULL) {
        addReplyError(c, "-BUSYGROUP Consumer Group name already exists");
        return;
    }
    addReply(c, shared.ok);
    server.dirty++;
    notifyKeyspaceEvent(NOTIFY_STREAM, "xgroup-create", c->argv[2], c->db->id);
}

static void xgroupSetid(client *c, stream *s, streamCG *cg, long long entries_read) {
    streamID id;
    if (!strcmp(c->argv[4]->ptr, "$")) {
        id = s->last_id;
    } else if (streamParseIDOrReply(c, c->argv[4], &id, 0) != C_OK) { /* "(" is no ID here */
        return;
    }
    cg->last_id = id;
    cg->entries_read = entries_read;
    addReply(c, shared.ok);
    server.dirty++;
    notifyKeyspaceEvent(NOTIFY_STREAM, "xgroup-setid", c->argv[2], c->db->id);
}

static void xgroupDestroy(client *c, stream *s, streamCG *cg) {
    if (cg == NULL) {
        addReply(c, shared.czero);
        return;
    }
    sds name = c->argv[3]->ptr;
    raxRemove(s->cgroups, (unsigned char *)name, sdslen(name), NULL);
    streamFreeCG(cg);
    addReply(c, shared.cone);
    server.dirty++;
    notifyKeyspaceEvent(NOTIFY_STREAM, "xgroup-destroy", c->argv[2], c->db->id);
    signalKeyAsReady(c->db, c->argv[2], OBJ_STREAM); /* its blocked readers get -NOGROUP */
}

static void deleteConsumer(streamCG *cg, streamConsumer *consumer) {
    raxIterator pi;
    raxStart(&pi, consumer->pel);
    raxSeek(&pi, "^", NULL, 0);
    while (raxNext(&pi)) {
        raxRemove(cg->pel, pi.key, pi.key_len, NULL);
        zfree(pi.data);
    }
    raxStop(&pi);
    raxRemove(cg->consumers, (unsigned char *)consumer->name, sdslen(consumer->name), NULL);
    freeConsumer(consumer);
}

static void xgroupDelconsumer(client *c, streamCG *cg) {
    streamConsumer *consumer = streamLookupConsumer(cg, c->argv[4]->ptr);
    long long pending = 0;
    if (consumer) {
        pending = (long long)raxSize(consumer->pel);
        deleteConsumer(cg, consumer);
        server.dirty++;
        notifyKeyspaceEvent(NOTIFY_STREAM, "xgroup-delconsumer", c->argv[2], c->db->id);
    }
    addReplyLongLong(c, pending);
}

void xgroupCommand(client *c) {
    const char *sub = c->argv[1]->ptr;
    if (!strcasecmp(sub, "help")) {
        addReplyHelp(c, xgroupHelp);
        return;
    }
    int mkstream = 0;
    long long entries_read = -1;
    if (parseXgroupOptions(c, sub, &mkstream, &entries_read) < 0) return;
    robj *o = lookupKeyWrite(c->db, c->argv[2]);
    if (checkType(c, o, OBJ_STREAM)) return;
    int create = !strcasecmp(sub, "create");
    if (o == NULL && !(create && mkstream)) {
        addReplyError(c, "The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use "
                         "the MKSTREAM option to create an empty stream automatically.");
        return;
    }
    stream *s = o ? o->ptr : NULL;
    streamCG *cg = s ? streamLookupCG(s, c->argv[3]->ptr) : NULL;
    if (cg == NULL && (!strcasecmp(sub, "setid") || !strcasecmp(sub, "createconsumer") ||
                       !strcasecmp(sub, "delconsumer"))) {
        addReplyErrorFormat(c, "-NOGROUP No such consumer group '%s' for key name '%s'", (char *)c->argv[3]->ptr,
                            (char *)c->argv[2]->ptr);
        return;
    }
    if (create && c->argc <= 8) {
        xgroupCreate(c, o, mkstream, entries_read);
    } else if (!strcasecmp(sub, "setid")) {
        xgroupSetid(c, s, cg, entries_read);
    } else if (!strcasecmp(sub, "destroy")) {
        xgroupDestroy(c, s, cg);
    } else if (!strcasecmp(sub, "createconsumer")) {
        addReplyLongLong(c, createConsumerNotify(c, c->argv[2], cg, c->argv[4]->ptr) ? 1 : 0);
    } else if (!strcasecmp(sub, "delconsumer")) {
        xgroupDelconsumer(c, cg);
    } else {
        addReplySubcommandSyntaxError(c);
    }
}

/* ---- XACK ------------------------------------------------------------------------------------- */

void xackCommand(client *c) {
    robj *o = lookupKeyRead(c->db, c->argv[1]);
    if (checkType(c, o, OBJ_STREAM)) return;
    streamCG *cg = o ? streamLookupCG(o->ptr, c->argv[2]->ptr) : NULL;
    if (cg == NULL) {
        addReply(c, shared.czero);
        return;
    }
    int n = c->argc - 3;
    streamID *ids = zmalloc(sizeof(streamID) * (size_t)n);
    for (int j = 0; j < n; j++) {
        if (streamParseStrictIDOrReply(c, c->argv[j + 3], &ids[j], 0, NULL) != C_OK) {
            zfree(ids);
            return;
        }
    }
    long long acked = 0;
    for (int j = 0; j < n; j++) {
        unsigned char key[SLP_ID_KEY_LEN];
        streamIDEncode(key, &ids[j]);
        streamNACK *nack = raxFind(cg->pel, key, sizeof key);
        if (nack == raxNotFound) continue;
        deleteNACK(cg, key, nack);
        acked++;
        server.dirty++;
    }
    zfree(ids);
    addReplyLongLong(c, acked);
}

/* ---- XPENDING ------------------------------------------------------------------------------------ */

static void replyPendingSummary(client *c, streamCG *cg) {
    addReplyArrayLen(c, 4);
    addReplyLongLong(c, (long long)raxSize(cg->pel));
    if (raxSize(cg->pel) == 0) {
        addReplyNull(c);
        addReplyNull(c);
        addReplyNullArray(c);
        return;
    }
    raxIterator ri;
    streamID id;
    raxStart(&ri, cg->pel);
    raxSeek(&ri, "^", NULL, 0);
    raxNext(&ri);
    streamIDDecode(ri.key, &id);
    addReplyStreamID(c, &id);
    raxSeek(&ri, "$", NULL, 0);
    raxPrev(&ri);
    streamIDDecode(ri.key, &id);
    addReplyStreamID(c, &id);
    raxStop(&ri);
    void *len = addReplyDeferredLen(c);
    long n = 0;
    raxStart(&ri, cg->consumers);
    raxSeek(&ri, "^", NULL, 0);
    while (raxNext(&ri)) {
        streamConsumer *consumer = ri.data;
        if (raxSize(consumer->pel) == 0) continue;
        addReplyArrayLen(c, 2);
        addReplyBulkCBuffer(c, ri.key, ri.key_len);
        addReplyBulkLongLong(c, (long long)raxSize(consumer->pel));
        n++;
    }
    raxStop(&ri);
    setDeferredArrayLen(c, len, n);
}

static void replyPendingRange(client *c, rax *pel, const streamID *start, const streamID *end, long long count,
                              long long minidle) {
    unsigned char startkey[SLP_ID_KEY_LEN], endkey[SLP_ID_KEY_LEN];
    streamIDEncode(startkey, start);
    streamIDEncode(endkey, end);
    long long now = mstime();
    long n = 0;
    void *len = addReplyDeferredLen(c);
    raxIterator ri;
    raxStart(&ri, pel);
    raxSeek(&ri, ">=", startkey, sizeof startkey);
    while (count && raxNext(&ri) && memcmp(ri.key, endkey, ri.key_len) <= 0) {
        streamNACK *nack = ri.data;
        long long idle = now - nack->delivery_time;
        if (minidle && idle < minidle) continue;
        streamID id;
        streamIDDecode(ri.key, &id);
        addReplyArrayLen(c, 4);
        addReplyStreamID(c, &id);
        addReplyBulkCBuffer(c, nack->consumer->name, sdslen(nack->consumer->name));
        addReplyLongLong(c, idle < 0 ? 0 : idle);
        addReplyLongLong(c, (long long)nack->delivery_count);
        n++;
        count--;
    }
    raxStop(&ri);
    setDeferredArrayLen(c, len, n);
}

void xpendingCommand(client *c) {
    int summary = c->argc == 3;
    streamID start, end;
    long long count = 0, minidle = 0;
    robj *consumername = NULL;
    if (c->argc != 3 && (c->argc < 6 || c->argc > 9)) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    if (!summary) {
        int first = 3, startex, endex;
        if (!strcasecmp(c->argv[3]->ptr, "idle")) {
            if (getLongLongFromObjectOrReply(c, c->argv[4], &minidle, NULL) != C_OK) return;
            if (c->argc < 8) {
                addReplyErrorObject(c, shared.syntaxerr);
                return;
            }
            first += 2;
        }
        if (getLongLongFromObjectOrReply(c, c->argv[first + 2], &count, NULL) != C_OK) return;
        if (count < 0) count = 0;
        if (streamParseIntervalIDOrReply(c, c->argv[first], &start, &startex, 0) != C_OK) return;
        if (startex && streamIDIncr(&start) != 0) {
            addReplyError(c, "invalid start ID for the interval");
            return;
        }
        if (streamParseIntervalIDOrReply(c, c->argv[first + 1], &end, &endex, UINT64_MAX) != C_OK) return;
        if (endex && streamIDDecr(&end) != 0) {
            addReplyError(c, "invalid end ID for the interval");
            return;
        }
        if (first + 3 < c->argc) consumername = c->argv[first + 3];
    }
    robj *o = lookupKeyRead(c->db, c->argv[1]);
    if (checkType(c, o, OBJ_STREAM)) return;
    streamCG *cg = o ? streamLookupCG(o->ptr, c->argv[2]->ptr) : NULL;
    if (cg == NULL) {
        addReplyErrorFormat(c, "-NOGROUP No such key '%s' or consumer group '%s'", (char *)c->argv[1]->ptr,
                            (char *)c->argv[2]->ptr);
        return;
    }
    if (summary) {
        replyPendingSummary(c, cg);
        return;
    }
    rax *pel = cg->pel;
    if (consumername) {
        streamConsumer *consumer = streamLookupConsumer(cg, consumername->ptr);
        if (consumer == NULL) {
            addReplyArrayLen(c, 0);
            return;
        }
        pel = consumer->pel;
    }
    replyPendingRange(c, pel, &start, &end, count, minidle);
}

/* ---- XCLAIM ------------------------------------------------------------------------------------- */

typedef struct claimArgs {
    long long minidle;
    long long retrycount;   /* -1: not given */
    long long deliverytime; /* -1: not given */
    int force, justid;
    streamID lastid;
    int last_id_arg;        /* the last argument that is an ID */
} claimArgs;

static int parseClaimOptions(client *c, claimArgs *a, long long now) {
    int j = 5;
    streamID id;
    while (j < c->argc && streamParseIDStrict(c->argv[j], &id, NULL) == C_OK) j++;
    a->last_id_arg = j - 1;
    for (; j < c->argc; j++) {
        int moreargs = c->argc - 1 - j;
        const char *opt = c->argv[j]->ptr;
        if (!strcasecmp(opt, "force")) {
            a->force = 1;
        } else if (!strcasecmp(opt, "justid")) {
            a->justid = 1;
        } else if (!strcasecmp(opt, "idle") && moreargs) {
            if (getLongLongFromObjectOrReply(c, c->argv[++j], &a->deliverytime,
                                             "Invalid IDLE option argument for XCLAIM") != C_OK)
                return -1;
            a->deliverytime = now - a->deliverytime;
        } else if (!strcasecmp(opt, "time") && moreargs) {
            if (getLongLongFromObjectOrReply(c, c->argv[++j], &a->deliverytime,
                                             "Invalid TIME option argument for XCLAIM") != C_OK)
                return -1;
        } else if (!strcasecmp(opt, "retrycount") && moreargs) {
            if (getLongLongFromObjectOrReply(c, c->argv[++j], &a->retrycount,
                                             "Invalid RETRYCOUNT option argument for XCLAIM") != C_OK)
                return -1;
        } else if (!strcasecmp(opt, "lastid") && moreargs) {
            if (streamParseStrictIDOrReply(c, c->argv[++j], &a->lastid, 0, NULL) != C_OK) return -1;
        } else {
            addReplyErrorFormat(c, "Unrecognized XCLAIM option '%s'", opt);
            return -1;
        }
    }
    return 0;
}

static streamCG *lookupGroupOrReply(client *c, robj **o) {
    *o = lookupKeyRead(c->db, c->argv[1]);
    if (checkType(c, *o, OBJ_STREAM)) return NULL;
    streamCG *cg = *o ? streamLookupCG((*o)->ptr, c->argv[2]->ptr) : NULL;
    if (cg == NULL)
        addReplyErrorFormat(c, "-NOGROUP No such key '%s' or consumer group '%s'", (char *)c->argv[1]->ptr,
                            (char *)c->argv[2]->ptr);
    return cg;
}

/* A pending entry whose stream entry was deleted leaves the PEL (and the
 * replica is told with an XCLAIM it will treat the same way). */
static void dropDeletedPending(client *c, streamCG *cg, const unsigned char *key, streamNACK *nack) {
    streamID id;
    streamIDDecode(key, &id);
    propagateXclaim(c, c->argv[1], cg, c->argv[2], &id, nack);
    server.dirty++;
    deleteNACK(cg, key, nack);
}

void xclaimCommand(client *c) {
    robj *o;
    streamCG *cg = lookupGroupOrReply(c, &o);
    if (cg == NULL) return;
    claimArgs a = {.retrycount = -1, .deliverytime = -1};
    if (getLongLongFromObjectOrReply(c, c->argv[4], &a.minidle, "Invalid min-idle-time argument for XCLAIM") !=
        C_OK)
        return;
    if (a.minidle < 0) a.minidle = 0;
    long long now = mstime();
    if (parseClaimOptions(c, &a, now) < 0) return;
    preventCommandPropagation(c);
    stream *s = o->ptr;
    int propagate_last_id = 0;
    if (streamIDCompare(&a.lastid, &cg->last_id) > 0) {
        cg->last_id = a.lastid;
        propagate_last_id = 1;
    }
    if (a.deliverytime == -1 || a.deliverytime < 0 || a.deliverytime > now) a.deliverytime = now;
    streamConsumer *consumer = NULL;
    void *len = addReplyDeferredLen(c);
    long n = 0;
    for (int j = 5; j <= a.last_id_arg; j++) {
        streamID id;
        unsigned char key[SLP_ID_KEY_LEN];
        streamParseIDStrict(c->argv[j], &id, NULL);
        streamIDEncode(key, &id);
        streamNACK *nack = raxFind(cg->pel, key, sizeof key);
        if (!streamEntryExists(s, &id)) {
            if (nack != raxNotFound) {
                dropDeletedPending(c, cg, key, nack);
                propagate_last_id = 0;
            }
            continue;
        }
        if (a.force && nack == raxNotFound) {
            nack = streamCreateNACK(NULL);
            raxInsert(cg->pel, key, sizeof key, nack, NULL);
        }
        if (nack == raxNotFound) continue;
        if (nack->consumer && a.minidle && now - nack->delivery_time < a.minidle) continue;
        if (consumer == NULL) consumer = streamConsumerForRead(c, c->argv[1], cg, c->argv[3]->ptr);
        giveNACK(key, nack, consumer);
        nack->delivery_time = a.deliverytime;
        if (a.retrycount >= 0) nack->delivery_count = (uint64_t)a.retrycount;
        else if (!a.justid) nack->delivery_count++;
        if (a.justid) addReplyStreamID(c, &id);
        else if (!streamReplyEntry(c, s, &id)) addReplyNull(c);
        n++;
        propagateXclaim(c, c->argv[1], cg, c->argv[2], &id, nack);
        propagate_last_id = 0;
        server.dirty++;
    }
    if (propagate_last_id) {
        propagateGroupID(c, c->argv[1], cg, c->argv[2]);
        server.dirty++;
    }
    setDeferredArrayLen(c, len, n);
}

/* ---- XAUTOCLAIM ------------------------------------------------------------------------------------ */

static int parseAutoclaimOptions(client *c, long *count, int *justid) {
    for (int j = 6; j < c->argc; j++) {
        int moreargs = c->argc - 1 - j;
        if (!strcasecmp(c->argv[j]->ptr, "count") && moreargs) {
            long max = LONG_MAX / (long)(sizeof(streamID) > 10 ? sizeof(streamID) : 10);
            if (getRangeLongFromObjectOrReply(c, c->argv[++j], 1, max, count, "COUNT must be > 0") != C_OK)
                return -1;
        } else if (!strcasecmp(c->argv[j]->ptr, "justid")) {
            *justid = 1;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return -1;
        }
    }
    return 0;
}

/* Claims one pending entry for consumer (created on first use). */
static void autoclaimOne(client *c, streamCG *cg, streamConsumer **consumer, const unsigned char *key,
                         streamNACK *nack, int justid, long long now) {
    streamID id;
    streamIDDecode(key, &id);
    if (*consumer == NULL) *consumer = streamConsumerForRead(c, c->argv[1], cg, c->argv[3]->ptr);
    giveNACK(key, nack, *consumer);
    nack->delivery_time = now;
    if (!justid) nack->delivery_count++;
    propagateXclaim(c, c->argv[1], cg, c->argv[2], &id, nack);
    server.dirty++;
}

/* The reply: the cursor, the claimed entries (or IDs), the deleted IDs. */
static void replyAutoclaim(client *c, stream *s, const streamID *cursor, streamID *claimed, long n, int justid,
                           streamID *deleted, long ndeleted) {
    addReplyArrayLen(c, 3);
    addReplyStreamID(c, cursor);
    addReplyArrayLen(c, n);
    for (long j = 0; j < n; j++) {
        if (justid) addReplyStreamID(c, &claimed[j]);
        else if (!streamReplyEntry(c, s, &claimed[j])) addReplyNull(c);
    }
    addReplyArrayLen(c, ndeleted);
    for (long j = 0; j < ndeleted; j++) addReplyStreamID(c, &deleted[j]);
}

void xautoclaimCommand(client *c) {
    long long minidle;
    long count = 100;
    int justid = 0, startex;
    streamID start;
    if (getLongLongFromObjectOrReply(c, c->argv[4], &minidle, "Invalid min-idle-time argument for XAUTOCLAIM") !=
        C_OK)
        return;
    if (minidle < 0) minidle = 0;
    if (streamParseIntervalIDOrReply(c, c->argv[5], &start, &startex, 0) != C_OK) return;
    if (startex && streamIDIncr(&start) != 0) {
        addReplyError(c, "invalid start ID for the interval");
        return;
    }
    if (parseAutoclaimOptions(c, &count, &justid) < 0) return;
    robj *o;
    streamCG *cg = lookupGroupOrReply(c, &o);
    if (cg == NULL) return;
    preventCommandPropagation(c);
    long long attempts = (long long)count * 10, now = mstime();
    streamConsumer *consumer = NULL;
    long cap = count < 1024 ? count : 1024, ndeleted = 0, n = 0;
    streamID *deleted = zmalloc(sizeof(streamID) * (size_t)cap);
    streamID *claimed = zmalloc(sizeof(streamID) * (size_t)cap);
    unsigned char key[SLP_ID_KEY_LEN];
    streamIDEncode(key, &start);
    raxIterator ri;
    raxStart(&ri, cg->pel);
    raxSeek(&ri, ">=", key, sizeof key);
    while (attempts-- && count && raxNext(&ri)) {
        streamNACK *nack = ri.data;
        streamID id;
        memcpy(key, ri.key, sizeof key);
        streamIDDecode(key, &id);
        int gone = !streamEntryExists(o->ptr, &id);
        if (!gone && minidle && now - nack->delivery_time < minidle) continue;
        if (n + ndeleted == cap) {
            cap *= 2;
            deleted = zrealloc(deleted, sizeof(streamID) * (size_t)cap);
            claimed = zrealloc(claimed, sizeof(streamID) * (size_t)cap);
        }
        count--;
        if (gone) {
            dropDeletedPending(c, cg, key, nack);
            deleted[ndeleted++] = id;
            raxSeek(&ri, ">=", key, sizeof key);
            continue;
        }
        autoclaimOne(c, cg, &consumer, key, nack, justid, now);
        claimed[n++] = id;
    }
    streamID cursor = {0, 0};
    if (raxNext(&ri)) streamIDDecode(ri.key, &cursor);
    raxStop(&ri);
    replyAutoclaim(c, o->ptr, &cursor, claimed, n, justid, deleted, ndeleted);
    zfree(deleted);
    zfree(claimed);
}

/* ---- XINFO ----------------------------------------------------------------------------------------- */

static const char *xinfoHelp[] = {
    "CONSUMERS <key> <groupname>",
    "    Show consumers of <groupname>.",
    "GROUPS <key>",
    "    Show the stream consumer groups.",
    "STREAM <key> [FULL [COUNT <count>]",
    "    Show information about the stream.",
    NULL};

static void replyEntriesRead(client *c, streamCG *cg) {
    if (cg->entries_read != -1) addReplyLongLong(c, cg->entries_read);
    else addReplyNull(c);
}

static void replyLag(client *c, stream *s, streamCG *cg) {
    int valid;
    long long lag = groupLag(s, cg, &valid);
    if (valid) addReplyLongLong(c, lag);
    else addReplyNull(c);
}

static void xinfoConsumers(client *c, stream *s) {
    streamCG *cg = streamLookupCG(s, c->argv[3]->ptr);
    if (cg == NULL) {
        addReplyErrorFormat(c, "-NOGROUP No such consumer group '%s' for key name '%s'", (char *)c->argv[3]->ptr,
                            (char *)c->argv[2]->ptr);
        return;
    }
    long long now = mstime();
    addReplyArrayLen(c, (long)raxSize(cg->consumers));
    raxIterator ri;
    raxStart(&ri, cg->consumers);
    raxSeek(&ri, "^", NULL, 0);
    while (raxNext(&ri)) {
        streamConsumer *consumer = ri.data;
        long long idle = now - consumer->seen_time;
        addReplyMapLen(c, 3);
        addReplyBulkCString(c, "name");
        addReplyBulkCBuffer(c, consumer->name, sdslen(consumer->name));
        addReplyBulkCString(c, "pending");
        addReplyLongLong(c, (long long)raxSize(consumer->pel));
        addReplyBulkCString(c, "idle");
        addReplyLongLong(c, idle < 0 ? 0 : idle);
    }
    raxStop(&ri);
}

static void xinfoGroups(client *c, stream *s) {
    addReplyArrayLen(c, s->cgroups ? (long)raxSize(s->cgroups) : 0);
    if (s->cgroups == NULL) return;
    raxIterator ri;
    raxStart(&ri, s->cgroups);
    raxSeek(&ri, "^", NULL, 0);
    while (raxNext(&ri)) {
        streamCG *cg = ri.data;
        addReplyMapLen(c, 6);
        addReplyBulkCString(c, "name");
        addReplyBulkCBuffer(c, ri.key, ri.key_len);
        addReplyBulkCString(c, "consumers");
        addReplyLongLong(c, (long long)raxSize(cg->consumers));
        addReplyBulkCString(c, "pending");
        addReplyLongLong(c, (long long)raxSize(cg->pel));
        addReplyBulkCString(c, "last-delivered-id");
        addReplyStreamID(c, &cg->last_id);
        addReplyBulkCString(c, "entries-read");
        replyEntriesRead(c, cg);
        addReplyBulkCString(c, "lag");
        replyLag(c, s, cg);
    }
    raxStop(&ri);
}

/* The first `count` (0 = all) entries of a PEL: with the consumer's name
 * (a group's) or without (a consumer's). */
static void replyPELEntries(client *c, rax *pel, long long count, int with_consumer) {
    void *len = addReplyDeferredLen(c);
    long n = 0;
    raxIterator ri;
    raxStart(&ri, pel);
    raxSeek(&ri, "^", NULL, 0);
    while (raxNext(&ri) && (!count || n < count)) {
        streamNACK *nack = ri.data;
        streamID id;
        streamIDDecode(ri.key, &id);
        addReplyArrayLen(c, with_consumer ? 4 : 3);
        addReplyStreamID(c, &id);
        if (with_consumer) addReplyBulkCBuffer(c, nack->consumer->name, sdslen(nack->consumer->name));
        addReplyLongLong(c, nack->delivery_time);
        addReplyLongLong(c, (long long)nack->delivery_count);
        n++;
    }
    raxStop(&ri);
    setDeferredArrayLen(c, len, n);
}

static void replyFullConsumers(client *c, streamCG *cg, long long count) {
    addReplyArrayLen(c, (long)raxSize(cg->consumers));
    raxIterator ri;
    raxStart(&ri, cg->consumers);
    raxSeek(&ri, "^", NULL, 0);
    while (raxNext(&ri)) {
        streamConsumer *consumer = ri.data;
        addReplyMapLen(c, 4);
        addReplyBulkCString(c, "name");
        addReplyBulkCBuffer(c, consumer->name, sdslen(consumer->name));
        addReplyBulkCString(c, "seen-time");
        addReplyLongLong(c, consumer->seen_time);
        addReplyBulkCString(c, "pel-count");
        addReplyLongLong(c, (long long)raxSize(consumer->pel));
        addReplyBulkCString(c, "pending");
        replyPELEntries(c, consumer->pel, count, 0);
    }
    raxStop(&ri);
}

static void replyFullGroups(client *c, stream *s, long long count) {
    addReplyArrayLen(c, s->cgroups ? (long)raxSize(s->cgroups) : 0);
    if (s->cgroups == NULL) return;
    raxIterator ri;
    raxStart(&ri, s->cgroups);
    raxSeek(&ri, "^", NULL, 0);
    while (raxNext(&ri)) {
        streamCG *cg = ri.data;
        addReplyMapLen(c, 7);
        addReplyBulkCString(c, "name");
        addReplyBulkCBuffer(c, ri.key, ri.key_len);
        addReplyBulkCString(c, "last-delivered-id");
        addReplyStreamID(c, &cg->last_id);
        addReplyBulkCString(c, "entries-read");
        replyEntriesRead(c, cg);
        addReplyBulkCString(c, "lag");
        replyLag(c, s, cg);
        addReplyBulkCString(c, "pel-count");
        addReplyLongLong(c, (long long)raxSize(cg->pel));
        addReplyBulkCString(c, "pending");
        replyPELEntries(c, cg->pel, count, 1);
        addReplyBulkCString(c, "consumers");
        replyFullConsumers(c, cg, count);
    }
    raxStop(&ri);
}

/* The first (or last) live entry, or a null. */
static void replyEdgeEntry(client *c, stream *s, int last) {
    streamID id;
    if (!(last ? streamLastValidID(s, &id) : streamFirstValidID(s, &id))) {
        addReplyNull(c);
        return;
    }
    streamReplyEntry(c, s, &id);
}

static void xinfoStream(client *c, stream *s) {
    int full = 0, optc = c->argc - 3;
    robj **optv = c->argv + 3;
    long long count = 10;
    if (optc && !strcasecmp(optv[0]->ptr, "full")) {
        full = 1;
        optv++;
        optc--;
    }
    if (full && optc == 2 && !strcasecmp(optv[0]->ptr, "count")) {
        if (getLongLongFromObjectOrReply(c, optv[1], &count, NULL) != C_OK) return;
        if (count < 0) count = 10;
        optc -= 2;
    }
    if (optc) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    addReplyMapLen(c, full ? 9 : 10);
    addReplyBulkCString(c, "length");
    addReplyLongLong(c, (long long)s->length);
    addReplyBulkCString(c, "radix-tree-keys");
    addReplyLongLong(c, (long long)raxSize(s->rax));
    addReplyBulkCString(c, "radix-tree-nodes");
    addReplyLongLong(c, (long long)raxNodeCount(s->rax));
    addReplyBulkCString(c, "last-generated-id");
    addReplyStreamID(c, &s->last_id);
    addReplyBulkCString(c, "max-deleted-entry-id");
    addReplyStreamID(c, &s->max_deleted_entry_id);
    addReplyBulkCString(c, "entries-added");
    addReplyLongLong(c, (long long)s->entries_added);
    addReplyBulkCString(c, "recorded-first-entry-id");
    addReplyStreamID(c, &s->first_id);
    if (!full) {
        addReplyBulkCString(c, "groups");
        addReplyLongLong(c, s->cgroups ? (long long)raxSize(s->cgroups) : 0);
        addReplyBulkCString(c, "first-entry");
        replyEdgeEntry(c, s, 0);
        addReplyBulkCString(c, "last-entry");
        replyEdgeEntry(c, s, 1);
        return;
    }
    streamID min = {0, 0}, max = {UINT64_MAX, UINT64_MAX};
    addReplyBulkCString(c, "entries");
    streamReplyRange(c, s, &min, &max, (size_t)count, 0);
    addReplyBulkCString(c, "groups");
    replyFullGroups(c, s, count);
}

void xinfoCommand(client *c) {
    const char *sub = c->argv[1]->ptr;
    if (!strcasecmp(sub, "help")) {
        addReplyHelp(c, xinfoHelp);
        return;
    }
    robj *o = lookupKeyReadOrReply(c, c->argv[2], shared.nokeyerr);
    if (o == NULL || checkType(c, o, OBJ_STREAM)) return;
    if (!strcasecmp(sub, "consumers") && c->argc == 4) xinfoConsumers(c, o->ptr);
    else if (!strcasecmp(sub, "groups") && c->argc == 3) xinfoGroups(c, o->ptr);
    else if (!strcasecmp(sub, "stream")) xinfoStream(c, o->ptr);
    else addReplySubcommandSyntaxError(c);
}
