/* module_stream.c -- the stream key API of Redis 7.0 modules: StreamAdd,
 * StreamDelete, the stream iterator (StreamIteratorStart, StreamIteratorStop,
 * StreamIteratorNextID, StreamIteratorNextField, StreamIteratorDelete),
 * StreamTrimByLength, StreamTrimByID, and the ID <-> string helpers
 * CreateStringFromStreamID and StringToStreamID. The stream itself is
 * t_stream.c's; this file checks a module's arguments and keeps the
 * iterator a key handle carries.
 *
 * Decisions:
 * - Errors are Redis 7.0's, in its order of checks: EINVAL (no key, unknown
 *   flags, a missing argument), ENOTSUP (not a stream), EBADF (not open for
 *   writing, an iterator missing or, for StreamDelete, active), then EDOM
 *   (an ID not above the last one, 0-0, exclusive bounds past the ends),
 *   EFBIG (the stream used the last ID), ERANGE (an entry too large for a
 *   node) and ENOENT (no such entry, no more entries or fields).
 * - As in Redis, these calls neither notify keyspace events nor propagate:
 *   the module does both itself. Only StreamAdd wakes clients blocked on
 *   the key (XREAD); a stream it creates is a new key ("new" event).
 * - A module's deletes leave first_id and max_deleted_entry_id alone (XINFO's
 *   recorded-first-entry-id, max-deleted-entry-id), as Redis 7.0's do; trims
 *   update first_id, as XTRIM does.
 * - The iterator remembers what is left of its range, not a position in a
 *   node: when the stream changed under it (its own StreamIteratorDelete, a
 *   StreamAdd or trim, a command the module called) it seeks again from
 *   there instead of following stale node pointers, and a stream that is no
 *   longer the key's value reads as ended. Fields of an entry need not be
 *   read before the next NextID.
 */
#include "module_int.h"
#include "stream.h"

#include <errno.h>
#include <limits.h>

#define MODAPI_STREAM_ADD_AUTOID (1 << 0)
#define MODAPI_STREAM_ITER_EXCLUSIVE (1 << 0)
#define MODAPI_STREAM_ITER_REVERSE (1 << 1)
#define MODAPI_STREAM_TRIM_APPROX (1 << 0)

typedef struct redisObject RString;

/* An ID as a module passes it (RedisModuleStreamID): ms, then seq. */
typedef struct moduleStreamID {
    uint64_t ms;
    uint64_t seq;
} moduleStreamID;

typedef struct moduleStreamIter {
    stream *s;           /* the stream walked */
    uint64_t length;     /* its length and entries_added when `it` was placed: */
    uint64_t added;      /* any difference means its nodes may have moved */
    streamIter it;
    int open;            /* `it` is started */
    int done;            /* nothing left to give */
    int rev;
    streamID lo, hi;     /* what is left of the range, inclusive */
    streamID current;    /* the entry NextID gave last; 0-0 when none (as Redis) */
    long fields_left;
} moduleStreamIter;

static int failWith(int err) {
    errno = err;
    return MODAPI_ERR;
}

/* The key's stream, or NULL with errno EINVAL (no key) or ENOTSUP. */
static stream *keyStream(moduleKey *k) {
    if (k == NULL) return failWith(EINVAL), NULL;
    robj *v = moduleKeyValue(k);
    if (v == NULL || v->type != OBJ_STREAM) return failWith(ENOTSUP), NULL;
    return v->ptr;
}

static int writable(moduleKey *k) { return (k->mode & MODAPI_KEY_WRITE) != 0; }

static streamID fromModule(const moduleStreamID *id) { return (streamID){id->ms, id->seq}; }

static void toModule(moduleStreamID *out, const streamID *id) {
    out->ms = id->ms;
    out->seq = id->seq;
}

static int isZeroID(const streamID *id) { return id->ms == 0 && id->seq == 0; }

/* ---- IDs as strings ----------------------------------------------------------------- */

static RString *RM_CreateStringFromStreamID(RedisModuleCtx *ctx, const moduleStreamID *id) {
    streamID sid = fromModule(id);
    RString *o = createObjectFromStreamID(&sid);
    moduleAutoAdd(ctx, AUTO_STRING, o);
    return o;
}

/* "<ms>-<seq>", "<ms>" (seq 0), and "-" / "+" for the smallest / largest. */
static int RM_StringToStreamID(const RString *str, moduleStreamID *id) {
    if (str == NULL || id == NULL) return MODAPI_ERR;
    RString *o = (RString *)str;
    moduleStringDecode(o);
    const char *p = o->ptr;
    streamID sid;
    if (sdslen(o->ptr) == 1 && (p[0] == '-' || p[0] == '+')) sid.ms = sid.seq = p[0] == '-' ? 0 : UINT64_MAX;
    else if (streamParseIDStrict(o, &sid, NULL) != C_OK) return MODAPI_ERR;
    toModule(id, &sid);
    return MODAPI_OK;
}

/* ---- adding and deleting ---------------------------------------------------------------- */

/* The ID XADD * would give: now, or one above the last if the clock is behind. */
static void autoID(stream *s, streamID *id) {
    uint64_t ms = (uint64_t)mstime();
    if (ms > s->last_id.ms) {
        id->ms = ms;
        id->seq = 0;
        return;
    }
    *id = s->last_id;
    streamIDIncr(id); /* cannot fail: the caller refused the last possible ID */
}

/* numfields field/value pairs in argv as t_stream.c takes them; NULL if
 * there are too many to count in an int. */
static slpString *fieldsOf(RString **argv, int64_t numfields) {
    if (numfields > INT_MAX / 2) return NULL;
    slpString *fv = zmalloc(sizeof(slpString) * (size_t)(numfields ? numfields * 2 : 1));
    for (int64_t j = 0; j < numfields * 2; j++) {
        moduleStringDecode(argv[j]);
        fv[j].ptr = (const unsigned char *)argv[j]->ptr;
        fv[j].len = sdslen(argv[j]->ptr);
    }
    return fv;
}

static int RM_StreamAdd(moduleKey *k, int flags, moduleStreamID *id, RString **argv, int64_t numfields) {
    int autoid = (flags & MODAPI_STREAM_ADD_AUTOID) != 0;
    if (k == NULL || numfields < 0 || (numfields && argv == NULL) || (flags & ~MODAPI_STREAM_ADD_AUTOID) ||
        (!autoid && id == NULL))
        return failWith(EINVAL);
    robj *v = moduleKeyValue(k);
    if (v && v->type != OBJ_STREAM) return failWith(ENOTSUP);
    if (!writable(k)) return failWith(EBADF);
    streamID nid = autoid ? (streamID){0, 0} : fromModule(id);
    if (!autoid && isZeroID(&nid)) return failWith(EDOM);
    int created = v == NULL;
    if (created) v = dbAdd(k->db, k->key, createStreamObject()); /* wakes XREAD, "new" event */
    stream *s = v->ptr;
    if (s->last_id.ms == UINT64_MAX && s->last_id.seq == UINT64_MAX) return failWith(EFBIG);
    if (autoid) autoID(s, &nid);
    else if (streamIDCompare(&nid, &s->last_id) <= 0) return failWith(EDOM);
    slpString *fv = fieldsOf(argv, numfields);
    if (fv == NULL) return failWith(ERANGE);
    int appended = streamAppend(s, &nid, fv, (int)numfields);
    zfree(fv);
    if (appended < 0) return failWith(ERANGE);
    if (!created) signalKeyAsReady(k->db, k->key, OBJ_STREAM);
    if (id) toModule(id, &nid);
    return MODAPI_OK;
}

static int RM_StreamDelete(moduleKey *k, moduleStreamID *id) {
    if (id == NULL) return failWith(EINVAL);
    stream *s = keyStream(k);
    if (s == NULL) return MODAPI_ERR;
    if (!writable(k) || k->siter) return failWith(EBADF);
    streamID sid = fromModule(id);
    return streamDeleteID(s, &sid) ? MODAPI_OK : failWith(ENOENT);
}

/* ---- the iterator ------------------------------------------------------------------------- */

static void iterClose(moduleStreamIter *si) {
    if (si->open) streamIterStop(&si->it);
    si->open = 0;
}

void moduleStreamIterFree(moduleKey *k) {
    if (k->siter == NULL) return;
    iterClose(k->siter);
    zfree(k->siter);
    k->siter = NULL;
}

static int RM_StreamIteratorStart(moduleKey *k, int flags, moduleStreamID *start, moduleStreamID *end) {
    if (k == NULL || (flags & ~(MODAPI_STREAM_ITER_EXCLUSIVE | MODAPI_STREAM_ITER_REVERSE))) return failWith(EINVAL);
    stream *s = keyStream(k);
    if (s == NULL) return MODAPI_ERR;
    if (k->siter) return failWith(EBADF);
    streamID lo = start ? fromModule(start) : (streamID){0, 0};
    streamID hi = end ? fromModule(end) : (streamID){UINT64_MAX, UINT64_MAX};
    if (flags & MODAPI_STREAM_ITER_EXCLUSIVE) {
        if ((start && streamIDIncr(&lo) < 0) || (end && streamIDDecr(&hi) < 0)) return failWith(EDOM);
    }
    moduleStreamIter *si = zcalloc(sizeof(*si));
    si->s = s;
    si->rev = (flags & MODAPI_STREAM_ITER_REVERSE) != 0;
    si->lo = lo;
    si->hi = hi;
    si->done = streamIDCompare(&lo, &hi) > 0;
    k->siter = si;
    return MODAPI_OK;
}

/* The key's iterator for a call, or NULL with errno set. */
static moduleStreamIter *keyIter(moduleKey *k) {
    if (keyStream(k) == NULL) return NULL;
    if (k->siter == NULL) return failWith(EBADF), NULL;
    return k->siter;
}

static int RM_StreamIteratorStop(moduleKey *k) {
    if (keyIter(k) == NULL) return MODAPI_ERR;
    moduleStreamIterFree(k);
    return MODAPI_OK;
}

/* 1 if `it` still points into the stream as it is now. */
static int iterPlaced(moduleStreamIter *si, stream *s) {
    return si->open && si->s == s && si->length == s->length && si->added == s->entries_added;
}

static void iterPlace(moduleStreamIter *si) {
    iterClose(si);
    streamIterStart(&si->it, si->s, &si->lo, &si->hi, si->rev);
    si->open = 1;
    si->length = si->s->length;
    si->added = si->s->entries_added;
}

static int noEntry(moduleStreamIter *si) {
    si->current = (streamID){0, 0};
    si->fields_left = 0;
    return failWith(ENOENT);
}

/* The next entry's ID; what is left of the range shrinks past it. */
static int RM_StreamIteratorNextID(moduleKey *k, moduleStreamID *id, long *numfields) {
    moduleStreamIter *si = keyIter(k);
    if (si == NULL) return MODAPI_ERR;
    stream *s = moduleKeyValue(k)->ptr;
    if (si->s != s) si->done = 1; /* the key holds another stream now */
    if (si->done) {
        iterClose(si);
        return noEntry(si);
    }
    if (!iterPlaced(si, s)) iterPlace(si);
    streamID eid;
    int nf;
    if (!streamIterNext(&si->it, &eid, &nf)) {
        si->done = 1;
        iterClose(si);
        return noEntry(si);
    }
    streamID *bound = si->rev ? &si->hi : &si->lo;
    *bound = eid;
    si->done = (si->rev ? streamIDDecr(bound) : streamIDIncr(bound)) < 0 || streamIDCompare(&si->lo, &si->hi) > 0;
    si->current = eid;
    si->fields_left = nf;
    if (id) toModule(id, &eid);
    if (numfields) *numfields = nf;
    return MODAPI_OK;
}

static int RM_StreamIteratorNextField(moduleKey *k, RString **field, RString **value) {
    moduleStreamIter *si = keyIter(k);
    if (si == NULL) return MODAPI_ERR;
    if (si->fields_left <= 0) return failWith(ENOENT);
    slpString f, v;
    if (!iterPlaced(si, moduleKeyValue(k)->ptr) || !streamIterField(&si->it, &f, &v)) {
        si->fields_left = 0; /* the entry's node changed under it */
        return failWith(ENOENT);
    }
    if (field) {
        *field = createStringObject((const char *)f.ptr, f.len);
        moduleAutoAdd(k->ctx, AUTO_STRING, *field);
    }
    if (value) {
        *value = createStringObject((const char *)v.ptr, v.len);
        moduleAutoAdd(k->ctx, AUTO_STRING, *value);
    }
    si->fields_left--;
    return MODAPI_OK;
}

/* Deletes the entry NextID gave last; the walk goes on from there. */
static int RM_StreamIteratorDelete(moduleKey *k) {
    moduleStreamIter *si = keyIter(k);
    if (si == NULL) return MODAPI_ERR;
    if (!writable(k)) return failWith(EBADF);
    stream *s = moduleKeyValue(k)->ptr;
    if (isZeroID(&si->current) || si->s != s) return failWith(ENOENT);
    iterClose(si);
    int deleted = streamDeleteID(s, &si->current);
    si->current = (streamID){0, 0};
    si->fields_left = 0;
    return deleted ? MODAPI_OK : failWith(ENOENT);
}

/* ---- trimming ----------------------------------------------------------------------------- */

static stream *trimTarget(moduleKey *k, int flags) {
    if (k == NULL || (flags & ~MODAPI_STREAM_TRIM_APPROX)) return failWith(EINVAL), NULL;
    stream *s = keyStream(k);
    if (s && !writable(k)) return failWith(EBADF), NULL;
    return s;
}

static long long RM_StreamTrimByLength(moduleKey *k, int flags, long long length) {
    if (length < 0) return failWith(EINVAL), -1;
    stream *s = trimTarget(k, flags);
    return s ? streamTrimByLength(s, length, flags & MODAPI_STREAM_TRIM_APPROX) : -1;
}

static long long RM_StreamTrimByID(moduleKey *k, int flags, moduleStreamID *id) {
    if (id == NULL) return failWith(EINVAL), -1;
    stream *s = trimTarget(k, flags);
    if (s == NULL) return -1;
    streamID minid = fromModule(id);
    return streamTrimByID(s, &minid, flags & MODAPI_STREAM_TRIM_APPROX);
}

/* ---- the lookup ----------------------------------------------------------------------------- */

static const moduleApiEntry stream_table[] = {
    MODULE_API(CreateStringFromStreamID), MODULE_API(StringToStreamID),  MODULE_API(StreamAdd),
    MODULE_API(StreamDelete),             MODULE_API(StreamIteratorStart), MODULE_API(StreamIteratorStop),
    MODULE_API(StreamIteratorNextID),     MODULE_API(StreamIteratorNextField), MODULE_API(StreamIteratorDelete),
    MODULE_API(StreamTrimByLength),       MODULE_API(StreamTrimByID),
};

int moduleStreamGetApi(const char *name, void *target) {
    return MODULE_API_LOOKUP(stream_table, name, target);
}
