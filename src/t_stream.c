/* t_stream.c -- the stream type (Redis 7.0): XADD, XRANGE, XREVRANGE, XLEN,
 * XDEL, XTRIM, XSETID, XREAD and XREADGROUP (blocking too), and the type's
 * callbacks (free, COPY, DEBUG DIGEST, MEMORY USAGE). Consumer groups are
 * in t_stream_cg.c; the layout of one node in src/lib/stream_lp.c.
 *
 * The stream (stream.h) is a radix tree of listpack nodes keyed by their
 * master ID. Appending goes to the last node while it is under both
 * stream-node-max-bytes and stream-node-max-entries, else a new node starts
 * with the new entry as its master. Deleting only flags an entry inside its
 * node; a node whose last live entry goes is freed. Trimming drops whole
 * nodes from the head and, unless approximate (~), flags entries in the
 * first node that remains.
 *
 * Design decisions:
 * - XADD's hot path: the tail node is found with raxLast() and the head
 *   (the MAXLEN/MINID check) with raxFirst(), no iterator; the node is
 *   stored back in the tree only when the append moved it; a new node is
 *   not preallocated (listpack.c grows it in place while its allocation
 *   has room, so it reallocates only across allocator size classes, and a
 *   stream's last node costs no 4 KB of spare room as in Redis); the first
 *   live ID is recomputed only when a trim removed something; nothing is
 *   built for propagation unless propagationEnabled().
 * - An entry's reply (XRANGE, XREAD, XREADGROUP, XCLAIM) is composed in a
 *   local buffer and added with one addReplyProto() call.
 * - Replies and errors are Redis 7.0.15's, byte for byte; so are the
 *   argument parsers' quirks (IDs parsed like strtoull, "-"/"+" allowed only
 *   where 7.0 allows them, COUNT < 0 meaning "no count" for XREAD).
 * - Propagation: XADD with an automatic ID, and any approximate trim that
 *   removed something, are propagated as their exact effect, with the
 *   argv of the command as given except the ID (made explicit) and
 *   "~ N" (made "= <resulting length or first ID>"), as 7.0 writes them in
 *   its AOF. LIMIT is then accepted without "~" from the AOF loader.
 * - Blocking XREAD / XREADGROUP re-run the command when a key is signalled
 *   ready (blocked.c). So that "$" keeps meaning "after the last ID when the
 *   client blocked", the first run rewrites each "$" in the client's argv
 *   to that explicit ID before it blocks (rewriteClientCommandArgument).
 *   A re-run knows it is one by CLIENT_BLOCKED, still set while blocked.c
 *   runs it, and then decides as 7.0 serves blocked clients: served as
 *   soon as the stream's last ID moved past the client's (possibly with no
 *   entries, if they were deleted meanwhile), and XREADGROUP told with
 *   7.0's errors that its group or stream went away.
 * - XREADGROUP (here, as it shares XREAD's parser) leaves its bookkeeping
 *   (PEL, consumers, propagation as XCLAIM / XGROUP SETID) to
 *   t_stream_cg.c.
 */
#include "server.h"

#include <errno.h>
#include <stdlib.h>

#include "listpack.h"
#include "stream.h"

#define STREAM_LISTPACK_MAX_SIZE (1u << 30)

/* ---- the stream ------------------------------------------------------------------ */

stream *streamNew(void) {
    stream *s = zcalloc(sizeof(*s));
    s->rax = raxNew();
    return s;
}

static void freeNode(void *lp) { lpFree(lp); }

void streamFree(stream *s) {
    raxFreeWithCallback(s->rax, freeNode);
    if (s->cgroups) raxFreeWithCallback(s->cgroups, streamFreeCG);
    zfree(s);
}

/* The first (last = 0) or last node and its master ID, or NULL. */
static unsigned char *edgeNode(stream *s, int last, streamID *master) {
    unsigned char key[SLP_ID_KEY_LEN];
    size_t len;
    void *lp;
    int found = last ? raxLast(s->rax, key, sizeof key, &len, &lp) : raxFirst(s->rax, key, sizeof key, &len, &lp);
    if (!found) return NULL;
    streamIDDecode(key, master);
    return lp;
}

static size_t nodeMaxBytes(void) {
    size_t max = server.stream_node_max_bytes;
    return (max == 0 || max > STREAM_LISTPACK_MAX_SIZE) ? STREAM_LISTPACK_MAX_SIZE : max;
}

/* 1 if the entry of `add` bytes of fields and values goes to a new node. */
static int nodeIsFull(unsigned char *lp, size_t add) {
    if (lpBytes(lp) + add >= nodeMaxBytes()) return 1;
    if (server.stream_node_max_entries == 0) return 0;
    return slpLiveCount(lp) + slpDeletedCount(lp) >= server.stream_node_max_entries;
}

static void storeNode(stream *s, const streamID *master, unsigned char *lp) {
    unsigned char key[SLP_ID_KEY_LEN];
    streamIDEncode(key, master);
    raxInsert(s->rax, key, sizeof key, lp, NULL);
}

int streamAppend(stream *s, const streamID *id, const slpString *fv, int nfields) {
    size_t add = slpPairsLength(fv, nfields);
    if (add > STREAM_LISTPACK_MAX_SIZE) return -1;
    streamID master;
    unsigned char *lp = edgeNode(s, 1, &master);
    if (lp && nodeIsFull(lp, add)) {
        unsigned char *shrunk = lpShrinkToFit(lp); /* the full node keeps no spare room */
        if (shrunk != lp) storeNode(s, &master, shrunk);
        lp = NULL;
    }
    unsigned char *stored = lp;
    if (lp == NULL) {
        slpString fields_inline[8];
        slpString *fields = nfields <= 8 ? fields_inline : zmalloc(sizeof(slpString) * (size_t)nfields);
        for (int i = 0; i < nfields; i++) fields[i] = fv[i * 2];
        lp = slpNew(fields, nfields, 0);
        if (fields != fields_inline) zfree(fields);
        master = *id;
    }
    lp = slpAppend(lp, &master, id, fv, nfields);
    if (lp != stored) storeNode(s, &master, lp);
    if (s->length == 0) s->first_id = *id;
    s->length++;
    s->entries_added++;
    s->last_id = *id;
    return 0;
}

void streamAppendNode(stream *s, const streamID *master, unsigned char *lp) { storeNode(s, master, lp); }

/* The first (or last) live ID; 0 if the stream has none. */
static int edgeValidID(stream *s, int last, streamID *id) {
    streamIter it;
    streamID min = {0, 0}, max = {UINT64_MAX, UINT64_MAX};
    int nfields, found;
    streamIterStart(&it, s, &min, &max, last);
    found = streamIterNext(&it, id, &nfields);
    streamIterStop(&it);
    if (!found) id->ms = id->seq = 0;
    return found;
}

int streamLastValidID(stream *s, streamID *id) { return edgeValidID(s, 1, id); }
int streamFirstValidID(stream *s, streamID *id) { return edgeValidID(s, 0, id); }

size_t streamAllocSize(stream *s) {
    size_t total = sizeof(*s) + raxAllocSize(s->rax);
    raxIterator ri;
    raxStart(&ri, s->rax);
    raxSeek(&ri, "^", NULL, 0);
    while (raxNext(&ri)) total += zmalloc_size(ri.data);
    raxStop(&ri);
    return total;
}

/* ---- the iterator ------------------------------------------------------------------ */

void streamIterStart(streamIter *it, stream *s, const streamID *start, const streamID *end, int rev) {
    unsigned char key[SLP_ID_KEY_LEN];
    it->s = s;
    it->start = *start;
    it->end = *end;
    it->rev = rev;
    it->lp = NULL;
    raxStart(&it->ri, s->rax);
    streamIDEncode(key, rev ? end : start);
    raxSeek(&it->ri, "<=", key, sizeof key);
    /* forwards, a start before every node begins at the first one */
    if (!rev && raxEOF(&it->ri)) raxSeek(&it->ri, "^", NULL, 0);
}

/* Moves to the next entry, live or not, across nodes; 0 at the end. */
static int iterStep(streamIter *it) {
    for (;;) {
        if (it->lp) {
            int ok = it->rev ? slpPrev(it->lp, &it->master, &it->e) : slpNext(it->lp, &it->master, &it->e);
            if (ok) return 1;
            it->lp = NULL;
        }
        if (!(it->rev ? raxPrev(&it->ri) : raxNext(&it->ri))) return 0;
        it->lp = it->ri.data;
        streamIDDecode(it->ri.key, &it->master);
        int ok = it->rev ? slpLast(it->lp, &it->master, &it->e) : slpFirst(it->lp, &it->master, &it->e);
        if (ok) return 1;
        it->lp = NULL;
    }
}

int streamIterNext(streamIter *it, streamID *id, int *nfields) {
    while (iterStep(it)) {
        if (it->e.flags & SLP_FLAG_DELETED) continue;
        const streamID *eid = &it->e.id;
        if (!it->rev) {
            if (streamIDCompare(eid, &it->start) < 0) continue;
            if (streamIDCompare(eid, &it->end) > 0) return 0;
        } else {
            if (streamIDCompare(eid, &it->end) > 0) continue;
            if (streamIDCompare(eid, &it->start) < 0) return 0;
        }
        *id = *eid;
        *nfields = it->e.nfields;
        return 1;
    }
    return 0;
}

int streamIterField(streamIter *it, slpString *field, slpString *value) {
    return slpEntryField(it->lp, &it->e, field, value);
}

/* Deletes the entry the iterator is on. The iterator must not be used
 * afterwards (the tree may have changed). */
static void iterRemoveCurrent(streamIter *it) {
    stream *s = it->s;
    unsigned char *lp = slpMarkDeleted(it->lp, &it->e);
    if (slpLiveCount(lp) == 0) {
        unsigned char key[SLP_ID_KEY_LEN];
        streamIDEncode(key, &it->master);
        raxRemove(s->rax, key, sizeof key, NULL);
        lpFree(lp);
    } else if (lp != it->lp) {
        storeNode(s, &it->master, lp);
    }
    it->lp = NULL;
    s->length--;
}

void streamIterStop(streamIter *it) { raxStop(&it->ri); }

/* Deletes the entry id; 1 if it was there. The bookkeeping (first_id,
 * max_deleted_entry_id) is the caller's: XDEL does it, a module's delete
 * does not (module_stream.c). */
int streamDeleteID(stream *s, const streamID *id) {
    streamIter it;
    streamID found;
    int nfields, deleted = 0;
    streamIterStart(&it, s, id, id, 0);
    if (streamIterNext(&it, &found, &nfields)) {
        iterRemoveCurrent(&it);
        deleted = 1;
    }
    streamIterStop(&it);
    return deleted;
}

int streamEntryExists(stream *s, const streamID *id) {
    streamIter it;
    streamID found;
    int nfields;
    streamIterStart(&it, s, id, id, 0);
    int exists = streamIterNext(&it, &found, &nfields);
    streamIterStop(&it);
    return exists;
}

/* The entry id as XRANGE replies it, or a null if it is gone; 1 if found. */
int streamReplyEntry(client *c, stream *s, const streamID *id) {
    streamIter it;
    streamID found;
    int nfields;
    streamIterStart(&it, s, id, id, 0);
    int exists = streamIterNext(&it, &found, &nfields);
    if (exists) addReplyStreamEntry(c, &it, &found, nfields);
    streamIterStop(&it);
    return exists;
}

static void updateFirstID(stream *s) {
    if (s->length == 0) s->first_id.ms = s->first_id.seq = 0;
    else streamFirstValidID(s, &s->first_id);
}

/* ---- trimming ------------------------------------------------------------------------ */

#define TRIM_NONE 0
#define TRIM_MAXLEN 1
#define TRIM_MINID 2

typedef struct trimArgs {
    int strategy;
    int approx;
    long long maxlen;
    streamID minid;
    long long limit;   /* 0 = none */
    int limit_given;
    int strategy_arg;  /* argv index of the threshold */
    /* XADD only */
    int nomkstream;
    int id_given, seq_given;
    streamID id;
} trimArgs;

/* 1 if the whole node can go. */
static int nodeRemovable(stream *s, const trimArgs *t, unsigned char *lp, const streamID *master, int64_t live) {
    if (t->strategy == TRIM_MAXLEN) return s->length - (uint64_t)live >= (uint64_t)t->maxlen;
    slpEntry e;
    if (!slpLast(lp, master, &e)) return 1;
    return streamIDCompare(&e.id, &t->minid) < 0;
}

/* Flags entries of the first node (lp, master) from its head while the
 * strategy wants them gone; returns how many. */
static int64_t trimInsideNode(stream *s, const trimArgs *t, unsigned char *lp, const streamID *master) {
    unsigned char *orig = lp;
    slpEntry e;
    int64_t removed = 0;
    for (int ok = slpFirst(lp, master, &e); ok; ok = slpNext(lp, master, &e)) {
        if (e.flags & SLP_FLAG_DELETED) continue;
        if (t->strategy == TRIM_MAXLEN && s->length <= (uint64_t)t->maxlen) break;
        if (t->strategy == TRIM_MINID && streamIDCompare(&e.id, &t->minid) >= 0) break;
        lp = slpMarkDeleted(lp, &e);
        s->length--;
        removed++;
    }
    if (lp != orig) storeNode(s, master, lp);
    return removed;
}

/* Drops whole nodes from the head (each found without an iterator: XADD
 * with MAXLEN ~ checks the head on every call), then, unless approximate,
 * entries of the first node left. */
static int64_t streamTrim(stream *s, const trimArgs *t) {
    if (t->strategy == TRIM_NONE) return 0;
    int64_t removed = 0;
    for (;;) {
        if (t->strategy == TRIM_MAXLEN && s->length <= (uint64_t)t->maxlen) break;
        streamID master;
        unsigned char *lp = edgeNode(s, 0, &master);
        if (lp == NULL) break;
        int64_t live = slpLiveCount(lp);
        if (t->limit && removed + live > t->limit) break;
        if (nodeRemovable(s, t, lp, &master, live)) {
            unsigned char key[SLP_ID_KEY_LEN];
            streamIDEncode(key, &master);
            raxRemove(s->rax, key, sizeof key, NULL);
            lpFree(lp);
            s->length -= (uint64_t)live;
            removed += live;
            continue;
        }
        if (!t->approx) removed += trimInsideNode(s, t, lp, &master);
        break;
    }
    if (removed) updateFirstID(s);
    return removed;
}

/* A module's trims (module_stream.c): an approximate one stops after 100
 * nodes' worth of entries, as Redis 7.0's StreamTrimByLength/ByID do. */
static int64_t trimForModule(stream *s, trimArgs *t, int approx) {
    t->approx = approx;
    t->limit = approx ? 100 * server.stream_node_max_entries : 0;
    return streamTrim(s, t);
}

int64_t streamTrimByLength(stream *s, long long maxlen, int approx) {
    trimArgs t = {.strategy = TRIM_MAXLEN, .maxlen = maxlen};
    return trimForModule(s, &t, approx);
}

int64_t streamTrimByID(stream *s, const streamID *minid, int approx) {
    trimArgs t = {.strategy = TRIM_MINID, .minid = *minid};
    return trimForModule(s, &t, approx);
}

/* ---- IDs ------------------------------------------------------------------------------- */

/* "<ms>-<seq>" into buf (at least 42 bytes); returns the length. Not
 * snprintf: XRANGE formats one per entry. */
static size_t formatStreamID(char *buf, const streamID *id) {
    /* consecutive IDs mostly share their ms part: its digits are kept */
    static uint64_t cached_ms = UINT64_MAX;
    static char cached_digits[24];
    static size_t cached_len = 0;
    if (id->ms != cached_ms || cached_len == 0) {
        cached_len = (size_t)ull2string(cached_digits, sizeof cached_digits, id->ms);
        cached_ms = id->ms;
    }
    size_t len = cached_len;
    memcpy(buf, cached_digits, len);
    buf[len++] = '-';
    return len + (size_t)ull2string(buf + len, 21, id->seq);
}

robj *createObjectFromStreamID(const streamID *id) {
    char buf[48];
    return createStringObject(buf, formatStreamID(buf, id));
}

void addReplyStreamID(client *c, const streamID *id) {
    char buf[48];
    addReplyBulkCBuffer(c, buf, formatStreamID(buf, id));
}

/* A part of an ID: canonical digits, or anything strtoull() takes whole
 * (leading zeros, '+', spaces before), as 7.0 accepts. */
static int parseIDPart(const char *s, uint64_t *out) {
    long long ll;
    if (string2ll(s, strlen(s), &ll)) {
        if (ll < 0) return 0;
        *out = (uint64_t)ll;
        return 1;
    }
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno == EINVAL || errno == ERANGE || *s == '\0' || *end != '\0') return 0;
    *out = v;
    return 1;
}

/* Parses "-", "+", "<ms>", "<ms>-<seq>" and (seq_given != NULL) "<ms>-*".
 * strict refuses "-" and "+". */
static int parseID(robj *o, streamID *id, uint64_t missing_seq, int strict, int *seq_given) {
    char buf[128];
    size_t len = sdslen(o->ptr);
    if (len > sizeof buf - 1) return C_ERR;
    memcpy(buf, o->ptr, len + 1);
    int special = (buf[0] == '-' || buf[0] == '+') && buf[1] == '\0';
    if (strict && special) return C_ERR;
    if (seq_given) *seq_given = 1;
    if (special) {
        id->ms = id->seq = buf[0] == '-' ? 0 : UINT64_MAX;
        return C_OK;
    }
    char *dash = strchr(buf, '-');
    if (dash) *dash = '\0';
    uint64_t ms, seq = missing_seq;
    if (!parseIDPart(buf, &ms)) return C_ERR;
    if (dash) {
        if (seq_given && dash[1] == '*' && dash[2] == '\0') {
            seq = 0;
            *seq_given = 0;
        } else if (!parseIDPart(dash + 1, &seq)) {
            return C_ERR;
        }
    }
    id->ms = ms;
    id->seq = seq;
    return C_OK;
}

static int invalidID(client *c) {
    addReplyError(c, "Invalid stream ID specified as stream command argument");
    return C_ERR;
}

int streamParseIDStrict(robj *o, streamID *id, int *seq_given) { return parseID(o, id, 0, 1, seq_given); }

int streamParseStrictIDOrReply(client *c, robj *o, streamID *id, uint64_t missing_seq, int *seq_given) {
    if (parseID(o, id, missing_seq, 1, seq_given) != C_OK) return invalidID(c);
    return C_OK;
}

int streamParseIDOrReply(client *c, robj *o, streamID *id, uint64_t missing_seq) {
    if (parseID(o, id, missing_seq, 0, NULL) != C_OK) return invalidID(c);
    return C_OK;
}

/* An XRANGE bound: an ID, "-", "+", or "(" and a strict ID (exclusive). */
int streamParseIntervalIDOrReply(client *c, robj *o, streamID *id, int *exclusive, uint64_t missing_seq) {
    const char *p = o->ptr;
    size_t len = sdslen(o->ptr);
    *exclusive = 0;
    if (len > 1 && p[0] == '(') {
        robj *rest = createStringObject(p + 1, len - 1);
        int r = parseID(rest, id, missing_seq, 1, NULL);
        decrRefCount(rest);
        *exclusive = 1;
        if (r != C_OK) return invalidID(c);
        return C_OK;
    }
    return streamParseIDOrReply(c, o, id, missing_seq);
}

/* ---- replies ---------------------------------------------------------------------------- */

/* An entry's reply is composed here and handed to the client in one
 * addReplyProto() call (a 100-entry XRANGE made ~1600 of them). The bytes
 * are the same in RESP2 and RESP3: arrays and bulk strings. */
typedef struct entryReply {
    client *c;
    size_t len;
    char buf[1024];
} entryReply;

static void entryReplyFlush(entryReply *r) {
    if (r->len) addReplyProto(r->c, r->buf, r->len);
    r->len = 0;
}

static void entryReplyPut(entryReply *r, const void *p, size_t n) {
    if (r->len + n > sizeof r->buf) {
        entryReplyFlush(r);
        if (n > sizeof r->buf) {
            addReplyProto(r->c, p, n);
            return;
        }
    }
    memcpy(r->buf + r->len, p, n);
    r->len += n;
}

/* "<prefix><n>\r\n" */
static void entryReplyHeader(entryReply *r, char prefix, size_t n) {
    char tmp[32];
    size_t len;
    tmp[0] = prefix;
    if (n < 10) {
        tmp[1] = (char)('0' + n);
        len = 1;
    } else {
        len = (size_t)ull2string(tmp + 1, sizeof tmp - 1, n);
    }
    tmp[len + 1] = '\r';
    tmp[len + 2] = '\n';
    entryReplyPut(r, tmp, len + 3);
}

static void entryReplyBulk(entryReply *r, const void *p, size_t n) {
    if (n < 100) { /* the usual short field: one room check, two-digit length */
        if (r->len + n + 7 > sizeof r->buf) entryReplyFlush(r);
        char *d = r->buf + r->len;
        *d++ = '$';
        if (n >= 10) *d++ = (char)('0' + n / 10);
        *d++ = (char)('0' + n % 10);
        *d++ = '\r';
        *d++ = '\n';
        memcpy(d, p, n);
        d += n;
        *d++ = '\r';
        *d++ = '\n';
        r->len = (size_t)(d - r->buf);
        return;
    }
    entryReplyHeader(r, '$', n);
    entryReplyPut(r, p, n);
    entryReplyPut(r, "\r\n", 2);
}

void addReplyStreamEntry(client *c, streamIter *it, const streamID *id, int nfields) {
    entryReply r;
    char idbuf[48];
    slpString f, v;
    r.c = c;
    r.len = 0;
    entryReplyPut(&r, "*2\r\n", 4);
    entryReplyBulk(&r, idbuf, formatStreamID(idbuf, id));
    entryReplyHeader(&r, '*', (size_t)nfields * 2);
    while (streamIterField(it, &f, &v)) {
        entryReplyBulk(&r, f.ptr, f.len);
        entryReplyBulk(&r, v.ptr, v.len);
    }
    entryReplyFlush(&r);
}

size_t streamReplyRange(client *c, stream *s, const streamID *start, const streamID *end, size_t count, int rev) {
    streamIter it;
    streamID id;
    int nfields;
    size_t n = 0;
    void *len = addReplyDeferredLen(c);
    streamIterStart(&it, s, start, end, rev);
    while ((count == 0 || n < count) && streamIterNext(&it, &id, &nfields)) {
        addReplyStreamEntry(c, &it, &id, nfields);
        n++;
    }
    streamIterStop(&it);
    setDeferredArrayLen(c, len, (long)n);
    return n;
}

/* ---- lookup ----------------------------------------------------------------------------- */

robj *createStreamObject(void) {
    robj *o = createObject(OBJ_STREAM, streamNew());
    o->encoding = OBJ_ENCODING_STREAM;
    return o;
}

/* The stream at key, created unless nomkstream; NULL (replied) otherwise. */
static robj *lookupWriteOrCreate(client *c, robj *key, int nomkstream) {
    robj *o = lookupKeyWrite(c->db, key);
    if (checkType(c, o, OBJ_STREAM)) return NULL;
    if (o) return o;
    if (nomkstream) {
        addReplyNull(c);
        return NULL;
    }
    return dbAdd(c->db, key, createStreamObject());
}

/* ---- XADD / XTRIM arguments ----------------------------------------------------------- */

static int isSingleChar(robj *o, char ch) { return ((char *)o->ptr)[0] == ch && ((char *)o->ptr)[1] == '\0'; }

/* The ~ / = after MAXLEN or MINID; moves *i past it. */
static void parseTrimOperator(client *c, int *i, int moreargs, trimArgs *t) {
    t->approx = 0;
    if (moreargs >= 2 && isSingleChar(c->argv[*i + 1], '~')) {
        t->approx = 1;
        (*i)++;
    } else if (moreargs >= 2 && isSingleChar(c->argv[*i + 1], '=')) {
        (*i)++;
    }
}

static int bothStrategiesError(client *c) {
    addReplyError(c, "syntax error, MAXLEN and MINID options at the same time are not compatible");
    return -1;
}

/* 1 when the command comes from the AOF (or, later, a master): its trims
 * were rewritten exact, so LIMIT is obeyed as given. */
static int mustObeyClient(client *c) { return (c->flags & CLIENT_FAKE) != 0; }

/* The LIMIT rules once the options are read: LIMIT needs "~"; "~" without
 * LIMIT gets 100 nodes' worth; exact trims are never limited. */
static int settleLimit(client *c, trimArgs *t) {
    if (t->limit_given && t->strategy == TRIM_NONE) {
        addReplyError(c, "syntax error, LIMIT cannot be used without specifying a trimming strategy");
        return -1;
    }
    if (mustObeyClient(c)) {
        t->limit = 0;
        return 0;
    }
    if (t->limit_given) {
        if (!t->approx) {
            addReplyError(c, "syntax error, LIMIT cannot be used without the special ~ option");
            return -1;
        }
    } else if (t->approx) {
        t->limit = 100 * server.stream_node_max_entries;
        if (t->limit <= 0 || t->limit > 1000000) t->limit = 10000;
    } else {
        t->limit = 0;
    }
    return 0;
}

/* Reads the options of XADD (xadd = 1, stops at the ID) or XTRIM (from
 * argv[2]). Returns the index of XADD's ID argument (argc if none), or -1
 * after replying with an error. */
static int parseAddTrimArgs(client *c, trimArgs *t, int xadd) {
    memset(t, 0, sizeof(*t));
    int i = 2;
    for (; i < c->argc; i++) {
        int moreargs = c->argc - 1 - i;
        robj *opt = c->argv[i];
        if (xadd && isSingleChar(opt, '*')) {
            break;
        } else if (argIsWord(opt, "maxlen") && moreargs) {
            if (t->strategy != TRIM_NONE) return bothStrategiesError(c);
            parseTrimOperator(c, &i, moreargs, t);
            if (getLongLongFromObjectOrReply(c, c->argv[i + 1], &t->maxlen, NULL) != C_OK) return -1;
            if (t->maxlen < 0) {
                addReplyError(c, "The MAXLEN argument must be >= 0.");
                return -1;
            }
            i++;
            t->strategy = TRIM_MAXLEN;
            t->strategy_arg = i;
        } else if (argIsWord(opt, "minid") && moreargs) {
            if (t->strategy != TRIM_NONE) return bothStrategiesError(c);
            parseTrimOperator(c, &i, moreargs, t);
            if (streamParseStrictIDOrReply(c, c->argv[i + 1], &t->minid, 0, NULL) != C_OK) return -1;
            i++;
            t->strategy = TRIM_MINID;
            t->strategy_arg = i;
        } else if (argIsWord(opt, "limit") && moreargs) {
            if (getLongLongFromObjectOrReply(c, c->argv[i + 1], &t->limit, NULL) != C_OK) return -1;
            if (t->limit < 0) {
                addReplyError(c, "The LIMIT argument must be >= 0.");
                return -1;
            }
            t->limit_given = 1;
            i++;
        } else if (xadd && argIsWord(opt, "nomkstream")) {
            t->nomkstream = 1;
        } else if (xadd) {
            if (streamParseStrictIDOrReply(c, opt, &t->id, 0, &t->seq_given) != C_OK) return -1;
            t->id_given = 1;
            break;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return -1;
        }
    }
    if (settleLimit(c, t) < 0) return -1;
    return i;
}

/* ---- propagation of the exact effect ------------------------------------------------------ */

/* One argument replaced in what is propagated: argv[index] becomes value. */
typedef struct {
    int index;
    robj *value;
} argReplacement;

/* Propagates argv with the n replacements given (values borrowed), as 7.0
 * rewrites the command for its AOF. */
static void propagateRewritten(client *c, const argReplacement *repl, size_t n) {
    if (!propagationEnabled()) return;
    robj **argv = zmalloc(sizeof(robj *) * (size_t)c->argc);
    for (int j = 0; j < c->argc; j++) argv[j] = c->argv[j];
    for (size_t j = 0; j < n; j++) argv[repl[j].index] = repl[j].value;
    propagateCommandAs(c, argv, c->argc);
    zfree(argv);
}

/* The threshold an approximate trim reached, as an exact one. */
static robj *trimmedThreshold(stream *s, int strategy) {
    if (strategy == TRIM_MAXLEN) return createStringObjectFromLongLong((long long)s->length);
    streamID first;
    if (!streamFirstValidID(s, &first)) first.ms = first.seq = UINT64_MAX; /* empty: as 7.0 writes it */
    return createObjectFromStreamID(&first);
}

static void propagateAddOrTrim(client *c, stream *s, const trimArgs *t, int rewrite_trim, int id_arg,
                               const streamID *id) {
    if (!propagationEnabled()) return; /* nothing to build for nobody */
    argReplacement repl[3];
    size_t n = 0;
    if (id_arg >= 0) repl[n++] = (argReplacement){id_arg, createObjectFromStreamID(id)};
    if (rewrite_trim) {
        repl[n++] = (argReplacement){t->strategy_arg - 1, createStringObject("=", 1)};
        repl[n++] = (argReplacement){t->strategy_arg, trimmedThreshold(s, t->strategy)};
    }
    propagateRewritten(c, repl, n);
    for (size_t j = 0; j < n; j++) decrRefCount(repl[j].value);
}

/* ---- XADD ------------------------------------------------------------------------------ */

/* The ID the new entry gets; -1 if it would not be above the top item. */
static int nextID(stream *s, const trimArgs *t, streamID *id) {
    const streamID *last = &s->last_id;
    if (t->id_given && t->seq_given) {
        if (streamIDCompare(&t->id, last) <= 0) return -1;
        *id = t->id;
        return 0;
    }
    if (t->id_given) { /* <ms>-* */
        if (t->id.ms < last->ms) return -1;
        if (t->id.ms > last->ms) {
            id->ms = t->id.ms;
            id->seq = 0;
            return 0;
        }
        if (last->seq == UINT64_MAX) return -1;
        id->ms = last->ms;
        id->seq = last->seq + 1;
        return 0;
    }
    uint64_t ms = (uint64_t)mstime();
    if (ms > last->ms) {
        id->ms = ms;
        id->seq = 0;
        return 0;
    }
    *id = *last;
    return streamIDIncr(id);
}

void xaddCommand(client *c) {
    trimArgs t;
    int idpos = parseAddTrimArgs(c, &t, 1);
    if (idpos < 0) return;
    int field_pos = idpos + 1;
    if (c->argc - field_pos < 2 || (c->argc - field_pos) % 2 == 1) {
        addReplyErrorArity(c);
        return;
    }
    if (t.id_given && t.seq_given && t.id.ms == 0 && t.id.seq == 0) {
        addReplyError(c, "The ID specified in XADD must be greater than 0-0");
        return;
    }
    robj *o = lookupWriteOrCreate(c, c->argv[1], t.nomkstream);
    if (o == NULL) return;
    stream *s = o->ptr;
    if (s->last_id.ms == UINT64_MAX && s->last_id.seq == UINT64_MAX) {
        addReplyError(c, "The stream has exhausted the last possible ID, unable to add more items");
        return;
    }
    streamID id;
    if (nextID(s, &t, &id) < 0) {
        addReplyError(c, "The ID specified in XADD is equal or smaller than the target stream top item");
        return;
    }
    int nfields = (c->argc - field_pos) / 2;
    slpString *fv = zmalloc(sizeof(slpString) * (size_t)nfields * 2);
    for (int j = 0; j < nfields * 2; j++) {
        fv[j].ptr = (const unsigned char *)c->argv[field_pos + j]->ptr;
        fv[j].len = sdslen(c->argv[field_pos + j]->ptr);
    }
    int appended = streamAppend(s, &id, fv, nfields);
    zfree(fv);
    if (appended < 0) {
        addReplyError(c, "Elements are too large to be stored");
        return;
    }
    addReplyStreamID(c, &id);
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_STREAM, "xadd", c->argv[1], c->db->id);
    server.dirty++;
    int rewrite_trim = 0;
    if (t.strategy != TRIM_NONE) {
        if (streamTrim(s, &t)) notifyKeyspaceEvent(NOTIFY_STREAM, "xtrim", c->argv[1], c->db->id);
        rewrite_trim = t.approx;
    }
    int id_arg = (t.id_given && t.seq_given) ? -1 : idpos;
    if (id_arg >= 0 || rewrite_trim) propagateAddOrTrim(c, s, &t, rewrite_trim, id_arg, &id);
    signalKeyAsReady(c->db, c->argv[1], OBJ_STREAM);
}

/* ---- XTRIM ----------------------------------------------------------------------------- */

void xtrimCommand(client *c) {
    trimArgs t;
    if (parseAddTrimArgs(c, &t, 0) < 0) return;
    if (t.strategy == TRIM_NONE) {
        addReplyError(c, "syntax error, XTRIM must be called with a trimming strategy");
        return;
    }
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], shared.czero);
    if (o == NULL || checkType(c, o, OBJ_STREAM)) return;
    stream *s = o->ptr;
    int64_t removed = streamTrim(s, &t);
    if (removed) {
        notifyKeyspaceEvent(NOTIFY_STREAM, "xtrim", c->argv[1], c->db->id);
        if (t.approx) propagateAddOrTrim(c, s, &t, 1, -1, NULL);
        signalModifiedKey(c, c->db, c->argv[1]);
        server.dirty += removed;
    }
    addReplyLongLong(c, removed);
}

/* ---- XLEN, XDEL, XSETID ---------------------------------------------------------------------- */

void xlenCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    if (o == NULL || checkType(c, o, OBJ_STREAM)) return;
    addReplyLongLong(c, (long long)((stream *)o->ptr)->length);
}

void xdelCommand(client *c) {
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], shared.czero);
    if (o == NULL || checkType(c, o, OBJ_STREAM)) return;
    stream *s = o->ptr;
    int n = c->argc - 2;
    streamID *ids = zmalloc(sizeof(streamID) * (size_t)n);
    for (int j = 0; j < n; j++) {
        if (streamParseStrictIDOrReply(c, c->argv[j + 2], &ids[j], 0, NULL) != C_OK) {
            zfree(ids);
            return;
        }
    }
    long long deleted = 0;
    int first_gone = 0;
    for (int j = 0; j < n; j++) {
        if (!streamDeleteID(s, &ids[j])) continue;
        if (streamIDCompare(&ids[j], &s->first_id) == 0) first_gone = 1;
        if (streamIDCompare(&ids[j], &s->max_deleted_entry_id) > 0) s->max_deleted_entry_id = ids[j];
        deleted++;
    }
    zfree(ids);
    if (deleted) {
        if (s->length == 0) s->first_id.ms = s->first_id.seq = 0;
        else if (first_gone) streamFirstValidID(s, &s->first_id);
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(NOTIFY_STREAM, "xdel", c->argv[1], c->db->id);
        server.dirty += deleted;
    }
    addReplyLongLong(c, deleted);
}

/* XSETID's options; -1 after replying with an error. */
static int parseSetIDOptions(client *c, const streamID *id, long long *entries_added, streamID *max_deleted) {
    for (int i = 3; i < c->argc; i += 2) {
        int moreargs = c->argc - 1 - i;
        if (argIsWord(c->argv[i], "entriesadded") && moreargs) {
            if (getLongLongFromObjectOrReply(c, c->argv[i + 1], entries_added, NULL) != C_OK) return -1;
            if (*entries_added < 0) {
                addReplyError(c, "entries_added must be positive");
                return -1;
            }
        } else if (argIsWord(c->argv[i], "maxdeletedid") && moreargs) {
            if (streamParseStrictIDOrReply(c, c->argv[i + 1], max_deleted, 0, NULL) != C_OK) return -1;
            if (streamIDCompare(id, max_deleted) < 0) {
                addReplyError(c, "The ID specified in XSETID is smaller than the provided max_deleted_entry_id");
                return -1;
            }
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return -1;
        }
    }
    return 0;
}

void xsetidCommand(client *c) {
    streamID id, max_deleted = {0, 0};
    long long entries_added = -1;
    if (streamParseStrictIDOrReply(c, c->argv[2], &id, 0, NULL) != C_OK) return;
    if (parseSetIDOptions(c, &id, &entries_added, &max_deleted) < 0) return;
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], shared.nokeyerr);
    if (o == NULL || checkType(c, o, OBJ_STREAM)) return;
    stream *s = o->ptr;
    if (s->length > 0) {
        streamID top;
        streamLastValidID(s, &top);
        if (streamIDCompare(&id, &top) < 0) {
            addReplyError(c, "The ID specified in XSETID is smaller than the target stream top item");
            return;
        }
        if (entries_added != -1 && s->length > (uint64_t)entries_added) {
            addReplyError(c, "The entries_added specified in XSETID is smaller than the target stream length");
            return;
        }
    }
    s->last_id = id;
    if (entries_added != -1) s->entries_added = (uint64_t)entries_added;
    if (max_deleted.ms || max_deleted.seq) s->max_deleted_entry_id = max_deleted;
    addReply(c, shared.ok);
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_STREAM, "xsetid", c->argv[1], c->db->id);
    server.dirty++;
}

/* ---- XRANGE / XREVRANGE ------------------------------------------------------------------ */

static void rangeCommand(client *c, int rev) {
    robj *startarg = rev ? c->argv[3] : c->argv[2];
    robj *endarg = rev ? c->argv[2] : c->argv[3];
    streamID start, end;
    int startex, endex;
    long long count = -1;
    if (streamParseIntervalIDOrReply(c, startarg, &start, &startex, 0) != C_OK) return;
    if (startex && streamIDIncr(&start) != 0) {
        addReplyError(c, "invalid start ID for the interval");
        return;
    }
    if (streamParseIntervalIDOrReply(c, endarg, &end, &endex, UINT64_MAX) != C_OK) return;
    if (endex && streamIDDecr(&end) != 0) {
        addReplyError(c, "invalid end ID for the interval");
        return;
    }
    for (int j = 4; j < c->argc; j++) {
        if (argIsWord(c->argv[j], "count") && j + 1 < c->argc) {
            if (getLongLongFromObjectOrReply(c, c->argv[j + 1], &count, NULL) != C_OK) return;
            if (count < 0) count = 0;
            j++;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.emptyarray);
    if (o == NULL || checkType(c, o, OBJ_STREAM)) return;
    if (count == 0) {
        addReplyNullArray(c);
        return;
    }
    streamReplyRange(c, o->ptr, &start, &end, count == -1 ? 0 : (size_t)count, rev);
}

void xrangeCommand(client *c) { rangeCommand(c, 0); }
void xrevrangeCommand(client *c) { rangeCommand(c, 1); }

/* ---- XREAD ------------------------------------------------------------------------------- */

typedef struct streamReadArgs {
    long long timeout; /* -1: no BLOCK; 0: forever; else absolute unix ms */
    long long count;   /* 0: no limit */
    int streams_arg, numstreams;
    robj *group, *consumer; /* XREADGROUP */
    int noack;
} streamReadArgs;

/* Options of XREAD / XREADGROUP; -1 after replying with an error. */
static int parseReadArgs(client *c, int group_cmd, streamReadArgs *a) {
    memset(a, 0, sizeof(*a));
    a->timeout = -1;
    for (int i = 1; i < c->argc; i++) {
        int moreargs = c->argc - i - 1;
        robj *o = c->argv[i];
        if (argIsWord(o, "block") && moreargs) {
            if ((c->flags & (CLIENT_SCRIPT | CLIENT_MODULE)) == CLIENT_SCRIPT) { /* refused outright in scripts, as in
                                                                             * Redis 7.0; a module's Call doesn't block */
                addReplyErrorFormat(c, "%s command is not allowed with BLOCK option from scripts",
                                    (char *)c->argv[0]->ptr);
                return -1;
            }
            i++;
            if (getMsTimeoutFromObjectOrReply(c, c->argv[i], &a->timeout) != C_OK) return -1;
        } else if (argIsWord(o, "count") && moreargs) {
            i++;
            if (getLongLongFromObjectOrReply(c, c->argv[i], &a->count, NULL) != C_OK) return -1;
            if (a->count < 0) a->count = 0;
        } else if (argIsWord(o, "streams") && moreargs) {
            a->streams_arg = i + 1;
            a->numstreams = c->argc - a->streams_arg;
            if (a->numstreams % 2 != 0) {
                /* 7.0 says XREAD and '$' for XREADGROUP too */
                addReplyError(c, "Unbalanced XREAD list of streams: for each stream key an ID or '$' must be "
                                 "specified.");
                return -1;
            }
            a->numstreams /= 2;
            break;
        } else if (argIsWord(o, "group") && moreargs >= 2) {
            if (!group_cmd) {
                addReplyError(c, "The GROUP option is only supported by XREADGROUP. You called XREAD instead.");
                return -1;
            }
            a->group = c->argv[i + 1];
            a->consumer = c->argv[i + 2];
            i += 2;
        } else if (argIsWord(o, "noack")) {
            if (!group_cmd) {
                addReplyError(c, "The NOACK option is only supported by XREADGROUP. You called XREAD instead.");
                return -1;
            }
            a->noack = 1;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return -1;
        }
    }
    if (a->streams_arg == 0) {
        addReplyErrorObject(c, shared.syntaxerr);
        return -1;
    }
    if (group_cmd && a->group == NULL) {
        addReplyError(c, "Missing GROUP option for XREADGROUP");
        return -1;
    }
    return 0;
}

/* XREAD's IDs: "$" (the stream's last ID now), or a strict ID. */
static int resolveReadIDs(client *c, streamReadArgs *a, streamID *ids) {
    for (int k = 0; k < a->numstreams; k++) {
        robj *key = c->argv[a->streams_arg + k];
        robj *idarg = c->argv[a->streams_arg + a->numstreams + k];
        robj *o = lookupKeyRead(c->db, key);
        if (checkType(c, o, OBJ_STREAM)) return -1;
        if (isSingleChar(idarg, '$')) {
            if (o) ids[k] = ((stream *)o->ptr)->last_id;
            else ids[k].ms = ids[k].seq = 0;
            continue;
        }
        if (isSingleChar(idarg, '>')) {
            addReplyError(c, "The > ID can be specified only when calling XREADGROUP using the GROUP <group> "
                             "<consumer> option.");
            return -1;
        }
        if (streamParseStrictIDOrReply(c, idarg, &ids[k], 0, NULL) != C_OK) return -1;
    }
    return 0;
}

/* Replies with the entries after ids[k] of each stream that has some;
 * returns how many streams were served (0: nothing replied). */
static int serveReadSync(client *c, streamReadArgs *a, streamID *ids) {
    int served = 0;
    void *len = NULL;
    for (int k = 0; k < a->numstreams; k++) {
        robj *key = c->argv[a->streams_arg + k];
        robj *o = lookupKeyRead(c->db, key);
        if (o == NULL) continue;
        stream *s = o->ptr;
        streamID top;
        if (c->flags & CLIENT_BLOCKED) { /* woken: 7.0 serves once the last ID moved, even to nothing */
            if (streamIDCompare(&s->last_id, &ids[k]) <= 0) continue;
        } else if (!s->length || !streamLastValidID(s, &top) || streamIDCompare(&top, &ids[k]) <= 0) {
            continue;
        }
        if (served++ == 0) len = addReplyDeferredLen(c);
        streamID start = ids[k], end = {UINT64_MAX, UINT64_MAX};
        streamIDIncr(&start);
        if (c->resp == 2) addReplyArrayLen(c, 2);
        addReplyBulk(c, key);
        streamReplyRange(c, s, &start, &end, (size_t)a->count, 0);
    }
    if (served) {
        if (c->resp == 2) setDeferredArrayLen(c, len, served);
        else setDeferredMapLen(c, len, served);
    }
    return served;
}

/* Before blocking, every "$" becomes the ID it stood for, so a re-run
 * (blocked.c) reads after the same point. */
static void freezeDollarIDs(client *c, streamReadArgs *a, streamID *ids) {
    for (int k = 0; k < a->numstreams; k++) {
        int idx = a->streams_arg + a->numstreams + k;
        if (!isSingleChar(c->argv[idx], '$')) continue;
        robj *explicit_id = createObjectFromStreamID(&ids[k]);
        rewriteClientCommandArgument(c, idx, explicit_id);
        decrRefCount(explicit_id);
    }
}

static void blockOnStreams(client *c, streamReadArgs *a) {
    robj **keys = c->argv + a->streams_arg;
    blockForKeys(c, keys, a->numstreams, a->timeout);
}

void xreadCommand(client *c) {
    streamReadArgs a;
    if (parseReadArgs(c, 0, &a) < 0) return;
    streamID *ids = zmalloc(sizeof(streamID) * (size_t)a.numstreams);
    if (resolveReadIDs(c, &a, ids) == 0 && serveReadSync(c, &a, ids) == 0) {
        if (a.timeout != -1 && clientMayBlock(c)) {
            freezeDollarIDs(c, &a, ids);
            blockOnStreams(c, &a);
        } else {
            addReplyNullArray(c);
        }
    }
    zfree(ids);
}

/* ---- XREADGROUP --------------------------------------------------------------------------- */

#define READ_NEW_ENTRIES UINT64_MAX /* ids[k] for ">" */

/* The error of a key or group gone: a woken client hears why it was woken. */
static int groupMissing(client *c, robj *key, robj *o, robj *group) {
    if (c->flags & CLIENT_BLOCKED) {
        if (o == NULL || o->type != OBJ_STREAM) addReplyError(c, "-UNBLOCKED the stream key no longer exists");
        else addReplyError(c, "-NOGROUP the consumer group this client was blocked on no longer exists");
    } else {
        addReplyErrorFormat(c, "-NOGROUP No such key '%s' or consumer group '%s' in XREADGROUP with GROUP option",
                            (char *)key->ptr, (char *)group->ptr);
    }
    return -1;
}

/* Each stream's group and ID: ">" (new entries) or a strict ID (history). */
static int resolveGroupIDs(client *c, streamReadArgs *a, streamID *ids, streamCG **groups) {
    for (int k = 0; k < a->numstreams; k++) {
        robj *key = c->argv[a->streams_arg + k];
        robj *idarg = c->argv[a->streams_arg + a->numstreams + k];
        robj *o = lookupKeyRead(c->db, key);
        if (o && o->type != OBJ_STREAM && (c->flags & CLIENT_BLOCKED)) return groupMissing(c, key, o, a->group);
        if (checkType(c, o, OBJ_STREAM)) return -1;
        if (o == NULL || (groups[k] = streamLookupCG(o->ptr, a->group->ptr)) == NULL)
            return groupMissing(c, key, o, a->group);
        if (isSingleChar(idarg, '$')) {
            addReplyError(c, "The $ ID is meaningless in the context of XREADGROUP: you want to read the history of "
                             "this consumer by specifying a proper ID, or use the > ID to get new messages. The $ "
                             "ID would just return an empty result set.");
            return -1;
        }
        if (isSingleChar(idarg, '>')) {
            ids[k].ms = ids[k].seq = READ_NEW_ENTRIES;
            continue;
        }
        if (streamParseStrictIDOrReply(c, idarg, &ids[k], 0, NULL) != C_OK) return -1;
    }
    return 0;
}

/* 1 if stream k has something for the group: always for a history read;
 * for ">" when entries follow the group's last ID (woken: when the last ID
 * moved past it, as 7.0 decides). */
static int groupHasNew(client *c, stream *s, streamCG *cg) {
    if (c->flags & CLIENT_BLOCKED) return streamIDCompare(&s->last_id, &cg->last_id) > 0;
    streamID top;
    return s->length && streamLastValidID(s, &top) && streamIDCompare(&top, &cg->last_id) > 0;
}

static int serveGroupSync(client *c, streamReadArgs *a, streamID *ids, streamCG **groups) {
    int served = 0;
    void *len = NULL;
    for (int k = 0; k < a->numstreams; k++) {
        robj *key = c->argv[a->streams_arg + k];
        stream *s = lookupKeyRead(c->db, key)->ptr;
        int history = ids[k].ms != READ_NEW_ENTRIES || ids[k].seq != READ_NEW_ENTRIES;
        if (!history && !groupHasNew(c, s, groups[k])) continue;
        if (served++ == 0) len = addReplyDeferredLen(c);
        if (c->resp == 2) addReplyArrayLen(c, 2);
        addReplyBulk(c, key);
        int is_new = streamLookupConsumer(groups[k], a->consumer->ptr) == NULL;
        streamConsumer *consumer = streamConsumerForRead(c, key, groups[k], a->consumer->ptr);
        if (is_new && a->noack) streamPropagateConsumerCreation(c, key, a->group, consumer->name);
        if (history) {
            streamID start = ids[k];
            streamIDIncr(&start);
            streamReplyConsumerHistory(c, s, consumer, &start, (size_t)a->count);
        } else {
            streamReplyGroupNew(c, s, key, a->group, groups[k], consumer, (size_t)a->count, a->noack);
        }
        server.dirty++;
    }
    if (served) {
        if (c->resp == 2) setDeferredArrayLen(c, len, served);
        else setDeferredMapLen(c, len, served);
    }
    return served;
}

void xreadgroupCommand(client *c) {
    streamReadArgs a;
    if (parseReadArgs(c, 1, &a) < 0) return;
    preventCommandPropagation(c); /* what it changed is propagated as XCLAIM / XGROUP SETID */
    streamID *ids = zmalloc(sizeof(streamID) * (size_t)a.numstreams);
    streamCG **groups = zcalloc(sizeof(streamCG *) * (size_t)a.numstreams);
    if (resolveGroupIDs(c, &a, ids, groups) == 0 && serveGroupSync(c, &a, ids, groups) == 0) {
        if (a.timeout != -1 && clientMayBlock(c)) blockOnStreams(c, &a);
        else addReplyNullArray(c);
    }
    zfree(groups);
    zfree(ids);
}

/* ---- type callbacks ---------------------------------------------------------------------- */

void freeStreamObject(robj *o) { streamFree(o->ptr); }

robj *dupStreamObject(robj *o) {
    stream *src = o->ptr;
    robj *copy = createStreamObject();
    stream *dst = copy->ptr;
    raxIterator ri;
    raxStart(&ri, src->rax);
    raxSeek(&ri, "^", NULL, 0);
    while (raxNext(&ri)) raxInsert(dst->rax, ri.key, ri.key_len, lpDup(ri.data), NULL);
    raxStop(&ri);
    dst->length = src->length;
    dst->last_id = src->last_id;
    dst->first_id = src->first_id;
    dst->max_deleted_entry_id = src->max_deleted_entry_id;
    dst->entries_added = src->entries_added;
    streamDupGroups(dst, src);
    return copy;
}

/* DEBUG DIGEST: each entry's "ms.seq", then its fields and values, mixed
 * in order (as Redis computes it). */
void streamDigest(unsigned char digest[20], robj *o) {
    streamIter it;
    streamID id, min = {0, 0}, max = {UINT64_MAX, UINT64_MAX};
    int nfields;
    streamIterStart(&it, o->ptr, &min, &max, 0);
    while (streamIterNext(&it, &id, &nfields)) {
        char buf[64];
        int len = snprintf(buf, sizeof buf, "%llu.%llu", (unsigned long long)id.ms, (unsigned long long)id.seq);
        mixDigest(digest, buf, (size_t)len);
        slpString f, v;
        while (streamIterField(&it, &f, &v)) {
            mixDigest(digest, f.ptr, f.len);
            mixDigest(digest, v.ptr, v.len);
        }
    }
    streamIterStop(&it);
}

size_t streamMemoryUsage(robj *o, size_t samples) {
    (void)samples;
    return streamAllocSize(o->ptr) + streamGroupsAllocSize(o->ptr);
}

