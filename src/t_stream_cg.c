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
