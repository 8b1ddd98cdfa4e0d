/* stream.h -- the stream type (Redis 7.0): what t_stream.c, t_stream_cg.c
 * and the persistence code (rdb.c, aof_rewrite.c) share.
 *
 * A stream is a radix tree (rax.h) from each node's master ID, as the
 * 16-byte big-endian key of stream_lp.h, to the node: a listpack of
 * entries (stream_lp.c). Beside it the 7.0 bookkeeping: the length, the
 * last ID ever given, the first live ID, the largest ID ever deleted by
 * XDEL and the count of entries ever added, which consumer groups use to
 * compute their lag.
 *
 * Consumer groups: a rax name -> streamCG. A group has its last delivered
 * ID, its entries-read counter (-1 = unknown), its PEL (ID key ->
 * streamNACK: the entries delivered and not acknowledged yet) and its
 * consumers (name -> streamConsumer). Each consumer has its own PEL whose
 * values are the same streamNACK objects as the group's: the group's PEL
 * owns them.
 */
#ifndef STREAM_H
#define STREAM_H

#include "rax.h"
#include "stream_lp.h"

typedef struct stream {
    rax *rax;                      /* master ID key -> listpack node */
    uint64_t length;               /* live entries */
    streamID last_id;              /* the largest ID ever added (or XSETID) */
    streamID first_id;             /* the first live entry, 0-0 if empty */
    streamID max_deleted_entry_id; /* the largest ID XDEL removed */
    uint64_t entries_added;        /* entries ever added */
    rax *cgroups;                  /* name -> streamCG*, NULL until the first group */
} stream;

typedef struct streamCG {
    streamID last_id;       /* the last entry delivered to a consumer (">") */
    long long entries_read; /* entries the group has read, -1 if unknown */
    rax *pel;               /* ID key -> streamNACK*, owned here */
    rax *consumers;         /* name -> streamConsumer* */
} streamCG;

typedef struct streamConsumer {
    long long seen_time;   /* unix ms of its last read or claim */
    long long active_time; /* unix ms of its last successful read or claim (7.2's field; -1 unknown) */
    sds name;
    rax *pel;              /* ID key -> streamNACK* (the group's) */
} streamConsumer;

typedef struct streamNACK {
    long long delivery_time;  /* unix ms of the last delivery */
    uint64_t delivery_count;
    streamConsumer *consumer; /* its current owner */
} streamNACK;

/* ---- the stream ------------------------------------------------------------ */
stream *streamNew(void);
robj *createStreamObject(void);
void streamFree(stream *s);
/* Appends an entry with the given ID (> last_id, checked by the caller);
 * fv are nfields field/value pairs. Returns 0, or -1 if too large. */
int streamAppend(stream *s, const streamID *id, const slpString *fv, int nfields);
/* Adds a node built elsewhere (RDB loading) at the end. */
void streamAppendNode(stream *s, const streamID *master, unsigned char *lp);
int streamLastValidID(stream *s, streamID *id); /* 0 if empty (id = 0-0) */
int streamFirstValidID(stream *s, streamID *id);
/* Removals without XDEL's/XTRIM's bookkeeping and replies (module_stream.c):
 * 1 if the entry was there; the number of entries trimmed. */
int streamDeleteID(stream *s, const streamID *id);
int64_t streamTrimByLength(stream *s, long long maxlen, int approx);
int64_t streamTrimByID(stream *s, const streamID *minid, int approx);
size_t streamAllocSize(stream *s); /* MEMORY USAGE */

/* Walking entries in [start, end], forwards or backwards. */
typedef struct streamIter {
    stream *s;
    streamID start, end;
    int rev;
    raxIterator ri;
    unsigned char *lp; /* the current node, NULL between nodes */
    streamID master;
    slpEntry e;
} streamIter;
void streamIterStart(streamIter *it, stream *s, const streamID *start, const streamID *end, int rev);
int streamIterNext(streamIter *it, streamID *id, int *nfields); /* 0 at the end */
int streamIterField(streamIter *it, slpString *field, slpString *value);
void streamIterStop(streamIter *it);

/* ---- IDs as text ------------------------------------------------------------ */
robj *createObjectFromStreamID(const streamID *id);
void addReplyStreamID(client *c, const streamID *id);
int streamParseIDStrict(robj *o, streamID *id, int *seq_given); /* C_OK / C_ERR, no reply */
/* An ID, or "-" / "+" (the smallest and the largest); no "(". */
int streamParseIDOrReply(client *c, robj *o, streamID *id, uint64_t missing_seq);
int streamParseStrictIDOrReply(client *c, robj *o, streamID *id, uint64_t missing_seq, int *seq_given);
int streamParseIntervalIDOrReply(client *c, robj *o, streamID *id, int *exclusive, uint64_t missing_seq);

/* ---- replies ------------------------------------------------------------------ */
/* Entries of [start, end] (count 0 = all); returns how many. */
size_t streamReplyRange(client *c, stream *s, const streamID *start, const streamID *end, size_t count, int rev);
void addReplyStreamEntry(client *c, streamIter *it, const streamID *id, int nfields);
int streamEntryExists(stream *s, const streamID *id);
int streamReplyEntry(client *c, stream *s, const streamID *id); /* 0 (nothing replied) if gone */

/* ---- consumer groups (t_stream_cg.c) --------------------------------------------- */
streamCG *streamLookupCG(stream *s, sds name);
streamCG *streamCreateCG(stream *s, const char *name, size_t len, const streamID *id, long long entries_read);
streamConsumer *streamLookupConsumer(streamCG *cg, sds name);
streamConsumer *streamCreateConsumer(streamCG *cg, sds name);
streamNACK *streamCreateNACK(streamConsumer *consumer);
void streamFreeCG(void *cg);
void streamDupGroups(stream *dst, stream *src);
size_t streamGroupsAllocSize(stream *s);
long long streamEstimateEntriesRead(stream *s, const streamID *id); /* -1 if it cannot be known */
/* XREADGROUP: the consumer's history after start (count 0 = all), or the
 * new entries after the group's last ID, creating PEL entries unless
 * noack and propagating what it did; both reply with an array. */
size_t streamReplyConsumerHistory(client *c, stream *s, streamConsumer *consumer, const streamID *start, size_t count);
size_t streamReplyGroupNew(client *c, stream *s, robj *key, robj *groupname, streamCG *cg, streamConsumer *consumer,
                           size_t count, int noack);
streamConsumer *streamConsumerForRead(client *c, robj *key, streamCG *cg, sds name); /* looked up or created */
void streamPropagateConsumerCreation(client *c, robj *key, robj *groupname, sds name);
int streamRangeHasTombstones(stream *s, const streamID *start, const streamID *end);

#endif /* STREAM_H */
