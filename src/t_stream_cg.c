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
