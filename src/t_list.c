/* t_list.c -- the list type and its commands (LPUSH ... BLMPOP).
 *
 * A list is stored in one of two encodings:
 *   - OBJ_ENCODING_LISTPACK: one listpack (listpack.h) holding every
 *     element, for small lists;
 *   - OBJ_ENCODING_QUICKLIST: a quicklist (quicklist.h), a linked list of
 *     listpack nodes, for large ones.
 * The switch follows Redis 7.2: a listpack becomes a quicklist before an
 * insertion would take it past `list-max-listpack-size` (entries when
 * positive, 4..64 KB when -1..-5; never more than 8 KB in the entry-count
 * mode); a quicklist with a single packed node becomes a listpack again when
 * it shrinks to half that limit, so a list hovering at the limit does not
 * convert back and forth on every push and pop.
 * Redis 7.0 calls every list a quicklist (its small lists are a quicklist of
 * one node), so OBJECT ENCODING and DEBUG OBJECT report a listpack list that
 * way (objectEncodingName() in object.c).
 *
 * Design decisions:
 * - Commands never look at an encoding: they go through a small layer
 *   (listCursor for walking, inserting and deleting in either direction,
 *   plus push/pop/index/trim helpers). Only that layer knows both
 *   encodings, so adding a third encoding touches one section.
 * - Elements are read as elemRef (string bytes or an integer), without
 *   allocating, and compared to arguments as text; integers are formatted
 *   only when a reply or a comparison needs them.
 * - Every index and count a client sends is a 64-bit value clamped against
 *   the list length in 64-bit arithmetic before use, so 32-bit builds refuse
 *   and accept exactly what 64-bit builds do.
 * - Blocking variants share the non-blocking code path: when nothing can be
 *   served they call blockForKeys() (blocked.c), which re-runs the same
 *   command when a key becomes ready.
 * - When the last element goes, the key goes too ("del" event), as Redis.
 * - A served blocking pop or an MPOP is propagated (AOF) as the plain
 *   command with the same effect -- LPOP/RPOP key [count], LMOVE,
 *   RPOPLPUSH -- so a replay never depends on blocking or on which key
 *   happened to be ready.
 */
#include "server.h"
#include "listpack.h"
#include "quicklist.h"


/* ---- conversion thresholds ------------------------------------------------------------- */

/* Largest listpack in entry-count mode (fill >= 0), whatever the count. */
#define LIST_SIZE_SAFETY_LIMIT 8192
static const size_t listSizeLevels[] = {4096, 8192, 16384, 32768, 65536};

/* Byte and entry limits of one listpack under the current fill setting. */
static void listLimits(size_t *bytes, unsigned long *count) {
    int fill = server.list_max_listpack_size;
    if (fill >= 0) {
        *bytes = SIZE_MAX;
        *count = fill == 0 ? 1 : (unsigned long)fill;
    } else {
        size_t level = (size_t)(-(long)fill) - 1;
        size_t levels = sizeof(listSizeLevels) / sizeof(listSizeLevels[0]);
        if (level >= levels) level = levels - 1;
        *bytes = listSizeLevels[level];
        *count = ULONG_MAX;
    }
}

/* 1 if a listpack of new_bytes bytes and new_count entries is too big. */
static int listpackExceedsLimits(size_t new_bytes, unsigned long new_count) {
    size_t bytes;
    unsigned long count;
    listLimits(&bytes, &count);
    if (bytes != SIZE_MAX) return new_bytes > bytes;
    return new_bytes > LIST_SIZE_SAFETY_LIMIT || new_count > count;
}

/* ---- elements and arguments --------------------------------------------------------------- */

/* Text of a string object (raw, embstr or int) without allocating. */
typedef struct argText {
    const char *s;
    size_t len;
    char buf[LONG_STR_SIZE];
} argText;

static void argTextOf(robj *o, argText *t) {
    if (sdsEncodedObject(o)) {
        t->s = o->ptr;
        t->len = sdslen(o->ptr);
    } else {
        t->len = (size_t)ll2string(t->buf, sizeof t->buf, (long)o->ptr);
        t->s = t->buf;
    }
}

static size_t argBytes(robj *o) { return sdsEncodedObject(o) ? sdslen(o->ptr) : 0; }

static int elemMatches(const elemRef *e, const argText *t) { return elemRefEqual(e, t->s, t->len); }

static void addReplyElem(client *c, const elemRef *e) {
    if (e->s) addReplyBulkCBuffer(c, e->s, e->len);
    else addReplyBulkLongLong(c, e->ll);
}

static void lpEntryToElem(const unsigned char *p, elemRef *e) {
    e->s = lpGetValue(p, &e->len, &e->ll);
}

static void qlEntryToElem(const quicklistEntry *qe, elemRef *e) {
    e->s = qe->value;
    e->len = qe->sz;
    e->ll = qe->longval;
}

static int qlWhere(int where) { return where == LIST_HEAD ? QUICKLIST_HEAD : QUICKLIST_TAIL; }

/* LIST_TAIL (walking towards the tail) starts from the head. */
static int qlDirection(int where) { return where == LIST_TAIL ? AL_START_HEAD : AL_START_TAIL; }

/* ---- the encoding layer: object lifecycle ---------------------------------------------------- */

robj *createListObject(void) {
    robj *o = createObject(OBJ_LIST, lpNew(0));
    o->encoding = OBJ_ENCODING_LISTPACK;
    return o;
}

unsigned long listTypeLength(const robj *o) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) return lpLength(o->ptr);
    if (o->encoding == OBJ_ENCODING_QUICKLIST) return quicklistCount(o->ptr);
    serverPanic("Unknown list encoding %d", o->encoding);
}

void freeListObject(robj *o) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) lpFree(o->ptr);
    else if (o->encoding == OBJ_ENCODING_QUICKLIST) quicklistRelease(o->ptr);
    else serverPanic("Unknown list encoding %d", o->encoding);
}

robj *dupListObject(robj *o) {
    robj *copy;
    if (o->encoding == OBJ_ENCODING_LISTPACK) copy = createObject(OBJ_LIST, lpDup(o->ptr));
    else if (o->encoding == OBJ_ENCODING_QUICKLIST) copy = createObject(OBJ_LIST, quicklistDup(o->ptr));
    else serverPanic("Unknown list encoding %d", o->encoding);
    copy->encoding = o->encoding;
    return copy;
}

/* Converts a listpack list to a quicklist when adding `add_count`
 * elements of `add_bytes` string bytes would exceed the limits. */
static void listTryConvertForAdding(robj *o, size_t add_bytes, unsigned long add_count) {
    if (o->encoding != OBJ_ENCODING_LISTPACK) return;
    size_t bytes = lpBytes(o->ptr);
    size_t new_bytes = add_bytes > SIZE_MAX - bytes ? SIZE_MAX : bytes + add_bytes;
    if (!listpackExceedsLimits(new_bytes, lpLength(o->ptr) + add_count)) return;
    quicklist *ql = quicklistNew(server.list_max_listpack_size, server.list_compress_depth);
    if (lpLength(o->ptr)) quicklistAppendListpack(ql, o->ptr);
    else lpFree(o->ptr);
    o->ptr = ql;
    o->encoding = OBJ_ENCODING_QUICKLIST;
}

/* Same, for the arguments argv[first..last] about to be added. */
static void listTryConvertForArgs(robj *o, robj **argv, int first, int last) {
    size_t add = 0;
    for (int j = first; j <= last; j++) add += argBytes(argv[j]);
    listTryConvertForAdding(o, add, (unsigned long)(last - first + 1));
}

/* Converts a quicklist back to a listpack after it shrank enough. */
static void listTryConvertAfterShrinking(robj *o) {
    if (o->encoding != OBJ_ENCODING_QUICKLIST) return;
    quicklist *ql = o->ptr;
    if (ql->len != 1 || ql->head->container != QUICKLIST_NODE_CONTAINER_PACKED ||
        quicklistNodeIsCompressed(ql->head))
        return;
    size_t bytes;
    unsigned long count;
    listLimits(&bytes, &count);
    if (ql->head->sz > bytes / 2 || ql->count > count / 2) return;
    unsigned char *lp = lpDup(ql->head->entry);
    quicklistRelease(ql);
    o->ptr = lp;
    o->encoding = OBJ_ENCODING_LISTPACK;
}

/* ---- the encoding layer: push, pop, index ------------------------------------------------------ */

static void listPushRaw(robj *o, robj *value, int where) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        if (sdsEncodedObject(value)) {
            size_t len = sdslen(value->ptr);
            o->ptr = where == LIST_HEAD ? lpPrepend(o->ptr, value->ptr, len) : lpAppend(o->ptr, value->ptr, len);
        } else {
            long long v = (long)value->ptr;
            o->ptr = where == LIST_HEAD ? lpPrependInteger(o->ptr, v) : lpAppendInteger(o->ptr, v);
        }
    } else if (o->encoding == OBJ_ENCODING_QUICKLIST) {
        argText t;
        argTextOf(value, &t);
        quicklistPush(o->ptr, t.s, t.len, qlWhere(where));
    } else {
        serverPanic("Unknown list encoding %d", o->encoding);
    }
}

void listTypePush(robj *o, robj *value, int where) {
    listTryConvertForAdding(o, argBytes(value), 1);
    listPushRaw(o, value, where);
}

/* The element at index (negative from the tail); 0 if out of range. */
static int listGetAt(robj *o, long index, elemRef *e) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *p = lpSeek(o->ptr, index);
        if (p == NULL) return 0;
        lpEntryToElem(p, e);
        return 1;
    }
    if (o->encoding == OBJ_ENCODING_QUICKLIST) {
        quicklistEntry qe;
        if (!quicklistIndex(o->ptr, index, &qe)) return 0;
        qlEntryToElem(&qe, e);
        return 1;
    }
    serverPanic("Unknown list encoding %d", o->encoding);
}

/* Replaces the element at index; 0 if out of range. */
static int listReplaceAt(robj *o, long index, robj *value) {
    argText t;
    argTextOf(value, &t);
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *p = lpSeek(o->ptr, index);
        if (p == NULL) return 0;
        o->ptr = lpReplace(o->ptr, &p, (const unsigned char *)t.s, t.len);
        return 1;
    }
    if (o->encoding == OBJ_ENCODING_QUICKLIST) return quicklistReplaceAtIndex(o->ptr, index, t.s, t.len);
    serverPanic("Unknown list encoding %d", o->encoding);
}

/* Removes `count` elements starting at index `start` (0-based, in range). */
static void listDeleteRange(robj *o, long start, unsigned long count) {
    if (count == 0) return;
    if (o->encoding == OBJ_ENCODING_LISTPACK) o->ptr = lpDeleteRange(o->ptr, start, count);
    else if (o->encoding == OBJ_ENCODING_QUICKLIST) quicklistDelRange(o->ptr, start, (long)count);
    else serverPanic("Unknown list encoding %d", o->encoding);
}

/* ---- the encoding layer: cursors ------------------------------------------------------------------ */

/* Walks a list from an index towards the head or the tail; the element
 * last returned can be deleted (the walk goes on) or have an element
 * inserted next to it (the walk must stop). */
typedef struct listCursor {
    robj *o;
    int where;              /* LIST_TAIL: towards the tail; LIST_HEAD: towards the head */
    unsigned char *next;    /* listpack: the entry listCursorNext returns next */
    unsigned char *cur;     /* listpack: the entry last returned */
    quicklistIter *qi;      /* quicklist: NULL when the index was out of range */
    quicklistEntry qe;      /* quicklist: the entry last returned */
} listCursor;

static void listCursorInit(listCursor *lc, robj *o, long index, int where) {
    lc->o = o;
    lc->where = where;
    lc->cur = NULL;
    lc->next = NULL;
    lc->qi = NULL;
    if (o->encoding == OBJ_ENCODING_LISTPACK) lc->next = lpSeek(o->ptr, index);
    else if (o->encoding == OBJ_ENCODING_QUICKLIST) lc->qi = quicklistGetIteratorAtIdx(o->ptr, qlDirection(where), index);
    else serverPanic("Unknown list encoding %d", o->encoding);
}

static int listCursorNext(listCursor *lc, elemRef *e) {
    if (lc->o->encoding == OBJ_ENCODING_LISTPACK) {
        if (lc->next == NULL) return 0;
        lc->cur = lc->next;
        lpEntryToElem(lc->cur, e);
        lc->next = lc->where == LIST_TAIL ? lpNext(lc->o->ptr, lc->cur) : lpPrev(lc->o->ptr, lc->cur);
        return 1;
    }
    if (lc->o->encoding == OBJ_ENCODING_QUICKLIST) {
        if (lc->qi == NULL || !quicklistNext(lc->qi, &lc->qe)) return 0;
        qlEntryToElem(&lc->qe, e);
        return 1;
    }
    serverPanic("Unknown list encoding %d", lc->o->encoding);
}

static void listCursorDelete(listCursor *lc) {
    robj *o = lc->o;
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *after;
        o->ptr = lpDelete(o->ptr, lc->cur, &after);
        if (lc->where == LIST_TAIL) lc->next = after;
        else lc->next = after ? lpPrev(o->ptr, after) : lpLast(o->ptr);
        lc->cur = NULL;
        return;
    }
    if (o->encoding == OBJ_ENCODING_QUICKLIST) {
        quicklistDelEntry(lc->qi, &lc->qe);
        return;
    }
    serverPanic("Unknown list encoding %d", o->encoding);
}

/* Inserts value before (LIST_HEAD side) or after (LIST_TAIL side) the
 * element last returned. The cursor is spent afterwards. */
static void listCursorInsert(listCursor *lc, robj *value, int side) {
    robj *o = lc->o;
    argText t;
    argTextOf(value, &t);
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        o->ptr = lpInsertString(o->ptr, (const unsigned char *)t.s, t.len, lc->cur,
                                side == LIST_HEAD ? LP_BEFORE : LP_AFTER, NULL);
        lc->cur = lc->next = NULL;
        return;
    }
    if (o->encoding == OBJ_ENCODING_QUICKLIST) {
        if (side == LIST_HEAD) quicklistInsertBefore(lc->qi, &lc->qe, t.s, t.len);
        else quicklistInsertAfter(lc->qi, &lc->qe, t.s, t.len);
        quicklistReleaseIterator(lc->qi);
        lc->qi = NULL;
        return;
    }
    serverPanic("Unknown list encoding %d", o->encoding);
}

static void listCursorRelease(listCursor *lc) {
    if (lc->qi) quicklistReleaseIterator(lc->qi);
    lc->qi = NULL;
}

void listTypeForEach(robj *o, elemVisitor *fn, void *ud) {
    listCursor lc;
    elemRef e;
    listCursorInit(&lc, o, 0, LIST_TAIL);
    while (listCursorNext(&lc, &e))
        if (fn(ud, &e)) break;
    listCursorRelease(&lc);
}

/* ---- single elements by index, for the module API (module_keys.c) ------------------------------ */

/* Each takes an index already known to be in range (negative: from the
 * tail). Inserting converts the encoding as a push does; deleting converts
 * back as LREM does. */
robj *listTypeGetAt(robj *o, long index) {
    elemRef e;
    return listGetAt(o, index, &e) ? elemRefToObject(&e) : NULL;
}

void listTypeSetAt(robj *o, long index, robj *value) {
    listTryConvertForAdding(o, argBytes(value), 0);
    listReplaceAt(o, index, value);
}

/* Inserts value before (side LIST_HEAD) or after (LIST_TAIL) the element at index. */
void listTypeInsertAt(robj *o, long index, robj *value, int side) {
    listTryConvertForAdding(o, argBytes(value), 1);
    listCursor lc;
    elemRef e;
    listCursorInit(&lc, o, index, LIST_TAIL);
    if (listCursorNext(&lc, &e)) listCursorInsert(&lc, value, side);
    listCursorRelease(&lc);
}

void listTypeDeleteAt(robj *o, long index) {
    long len = (long)listTypeLength(o);
    listDeleteRange(o, index < 0 ? index + len : index, 1);
    listTryConvertAfterShrinking(o);
}

/* ---- module registration ------------------------------------------------------------------------- */

static int digestElem(void *ud, const elemRef *e) {
    if (e->s) {
        mixDigest(ud, e->s, e->len);
    } else {
        char buf[LONG_STR_SIZE];
        int n = ll2string(buf, sizeof buf, e->ll);
        mixDigest(ud, buf, (size_t)n);
    }
    return 0;
}

void listDigest(unsigned char digest[20], robj *o) { listTypeForEach(o, digestElem, digest); }

/* DEBUG QUICKLIST-PACKED-THRESHOLD <size>: elements above size get a PLAIN
 * quicklist node of their own (0 restores the default). */
void debugQuicklistPackedThresholdCommand(client *c) {
    int err = 0;
    unsigned long long sz = memtoull(c->argv[2]->ptr, &err);
    if (err || sz > SIZE_MAX || !quicklistSetPackedThreshold((size_t)sz)) {
        addReplyError(c, "argument must be a memory value bigger than 1 and smaller than 4gb");
        return;
    }
    addReply(c, shared.ok);
}

/* MEMORY USAGE: a listpack is one block; a quicklist is its header plus
 * each node and the node's contents (listpack, plain element or compressed
 * blob), the first `samples` nodes measured. */
size_t listMemoryUsage(robj *o, size_t samples) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) return zmalloc_size(o->ptr);
    quicklist *ql = o->ptr;
    size_t bytes = 0, sampled = 0;
    for (const quicklistNode *n = ql->head; n && sampled < samples; n = n->next, sampled++)
        bytes += zmalloc_size(n) + (n->entry ? zmalloc_size(n->entry) : 0);
    return zmalloc_size(ql) + sampledTotal(bytes, sampled, ql->len);
}

/* ---- shared command helpers ------------------------------------------------------------------------ */

static int parseListSide(client *c, robj *arg, int *where) {
    if (!strcasecmp(arg->ptr, "left")) *where = LIST_HEAD;
    else if (!strcasecmp(arg->ptr, "right")) *where = LIST_TAIL;
    else {
        addReplyErrorObject(c, shared.syntaxerr);
        return C_ERR;
    }
    return C_OK;
}

static const char *popEvent(int where) { return where == LIST_HEAD ? "lpop" : "rpop"; }
static const char *pushEvent(int where) { return where == LIST_HEAD ? "lpush" : "rpush"; }

/* After elements were removed from key's list o: event, key deleted when
 * empty (with "del"), encoding shrunk otherwise, key signalled. */
static void listElementsRemoved(client *c, robj *key, robj *o, const char *event, long count) {
    notifyKeyspaceEvent(NOTIFY_LIST, event, key, c->db->id);
    if (listTypeLength(o) == 0) {
        dbDelete(c->db, key);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "del", key, c->db->id);
    } else {
        listTryConvertAfterShrinking(o);
    }
    signalModifiedKey(c, c->db, key);
    server.dirty += count;
}

/* The list at key for writing, created (and added) if missing. */
static robj *listForPush(client *c, robj *key, robj *o) {
    if (o) return o;
    return dbAdd(c->db, key, createListObject());
}

/* Clamps [start, end] (negative from the tail) to a list of len elements.
 * Returns 0 when the range is empty. */
static int clampRange(long long start, long long end, unsigned long len, long *from, unsigned long *count) {
    long long llen = (long long)len;
    if (start < 0) start += llen;
    if (end < 0) end += llen;
    if (start < 0) start = 0;
    if (start > end || start >= llen) return 0;
    if (end >= llen) end = llen - 1;
    *from = (long)start;
    *count = (unsigned long)(end - start + 1);
    return 1;
}

/* A 64-bit integer argument within [min, max], on every platform (a long
 * would be 32 bits on armv7). msg replaces both errors when given. */
static int getInt64ArgOrReply(client *c, robj *arg, long long min, long long max, long long *v, const char *msg) {
    long long value;
    if (getLongLongFromObject(arg, &value) != C_OK) {
        addReplyError(c, msg ? msg : "value is not an integer or out of range");
        return C_ERR;
    }
    if (value < min || value > max) {
        if (msg) addReplyError(c, msg);
        else addReplyErrorFormat(c, "value is out of range, value must between %lld and %lld", min, max);
        return C_ERR;
    }
    *v = value;
    return C_OK;
}

static int getIndexArgOrReply(client *c, robj *arg, long long *v) {
    return getInt64ArgOrReply(c, arg, LLONG_MIN, LLONG_MAX, v, NULL);
}

/* An index (negative from the tail) resolved against a list of len
 * elements; 0 if it falls outside. */
static int resolveIndex(long long index, unsigned long len, long *pos) {
    long long llen = (long long)len;
    if (index < 0) index += llen;
    if (index < 0 || index >= llen) return 0;
    *pos = (long)index;
    return 1;
}

/* ---- LPUSH, RPUSH, LPUSHX, RPUSHX -------------------------------------------------------------------- */

static void pushGenericCommand(client *c, int where, int only_existing) {
    robj *o = lookupKeyWrite(c->db, c->argv[1]);
    if (checkType(c, o, OBJ_LIST)) return;
    if (o == NULL) {
        if (only_existing) {
            addReply(c, shared.czero);
            return;
        }
        o = listForPush(c, c->argv[1], NULL);
    }
    listTryConvertForArgs(o, c->argv, 2, c->argc - 1);
    for (int j = 2; j < c->argc; j++) listPushRaw(o, c->argv[j], where);
    server.dirty += c->argc - 2;
    addReplyLongLong(c, (long long)listTypeLength(o));
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_LIST, pushEvent(where), c->argv[1], c->db->id);
    /* waiters were signalled when the list was created (dbAdd), as in Redis 7.0: a push to an
     * existing list wakes nobody (a module's BlockClientOnKeys sees the difference) */
}

void lpushCommand(client *c) { pushGenericCommand(c, LIST_HEAD, 0); }
void rpushCommand(client *c) { pushGenericCommand(c, LIST_TAIL, 0); }
void lpushxCommand(client *c) { pushGenericCommand(c, LIST_HEAD, 1); }
void rpushxCommand(client *c) { pushGenericCommand(c, LIST_TAIL, 1); }

/* ---- LINSERT ---------------------------------------------------------------------------------------- */

void linsertCommand(client *c) {
    int side;
    if (!strcasecmp(c->argv[2]->ptr, "after")) side = LIST_TAIL;
    else if (!strcasecmp(c->argv[2]->ptr, "before")) side = LIST_HEAD;
    else {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], shared.czero);
    if (o == NULL || checkType(c, o, OBJ_LIST)) return;

    listTryConvertForArgs(o, c->argv, 4, 4);
    argText pivot;
    argTextOf(c->argv[3], &pivot);
    listCursor lc;
    elemRef e;
    int inserted = 0;
    listCursorInit(&lc, o, 0, LIST_TAIL);
    while (listCursorNext(&lc, &e)) {
        if (elemMatches(&e, &pivot)) {
            listCursorInsert(&lc, c->argv[4], side);
            inserted = 1;
            break;
        }
    }
    listCursorRelease(&lc);
    if (!inserted) {
        addReplyLongLong(c, -1);
        return;
    }
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_LIST, "linsert", c->argv[1], c->db->id);
    server.dirty++;
    addReplyLongLong(c, (long long)listTypeLength(o));
}

/* ---- LLEN, LINDEX, LSET ---------------------------------------------------------------------------- */

void llenCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    if (o == NULL || checkType(c, o, OBJ_LIST)) return;
    addReplyLongLong(c, (long long)listTypeLength(o));
}

void lindexCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.null[c->resp]);
    if (o == NULL || checkType(c, o, OBJ_LIST)) return;
    long long index;
    long pos;
    if (getIndexArgOrReply(c, c->argv[2], &index) != C_OK) return;
    elemRef e;
    if (resolveIndex(index, listTypeLength(o), &pos) && listGetAt(o, pos, &e)) addReplyElem(c, &e);
    else addReplyNull(c);
}

void lsetCommand(client *c) {
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], shared.nokeyerr);
    if (o == NULL || checkType(c, o, OBJ_LIST)) return;
    long long index;
    long pos;
    if (getIndexArgOrReply(c, c->argv[2], &index) != C_OK) return;
    if (!resolveIndex(index, listTypeLength(o), &pos)) {
        addReplyErrorObject(c, shared.outofrangeerr);
        return;
    }
    listTryConvertForArgs(o, c->argv, 3, 3);
    if (!listReplaceAt(o, pos, c->argv[3])) {
        addReplyErrorObject(c, shared.outofrangeerr);
        return;
    }
    addReply(c, shared.ok);
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_LIST, "lset", c->argv[1], c->db->id);
    server.dirty++;
    listTryConvertAfterShrinking(o);
}

/* ---- LRANGE, LTRIM, LREM, LPOS ----------------------------------------------------------------------- */

/* Replies with `count` elements of o from index `from`, walking towards
 * `where` (LIST_TAIL: forwards). */
static void addReplyListRange(client *c, robj *o, long from, unsigned long count, int where) {
    addReplyArrayLen(c, (long)count);
    listCursor lc;
    elemRef e;
    listCursorInit(&lc, o, from, where);
    while (count-- && listCursorNext(&lc, &e)) addReplyElem(c, &e);
    listCursorRelease(&lc);
}

void lrangeCommand(client *c) {
    long long start, end;
    if (getIndexArgOrReply(c, c->argv[2], &start) != C_OK || getIndexArgOrReply(c, c->argv[3], &end) != C_OK)
        return;
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.emptyarray);
    if (o == NULL || checkType(c, o, OBJ_LIST)) return;
    long from;
    unsigned long count;
    if (!clampRange(start, end, listTypeLength(o), &from, &count)) {
        addReply(c, shared.emptyarray);
        return;
    }
    addReplyListRange(c, o, from, count, LIST_TAIL);
}

void ltrimCommand(client *c) {
    long long start, end;
    if (getIndexArgOrReply(c, c->argv[2], &start) != C_OK || getIndexArgOrReply(c, c->argv[3], &end) != C_OK)
        return;
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], shared.ok);
    if (o == NULL || checkType(c, o, OBJ_LIST)) return;
    unsigned long len = listTypeLength(o);
    long from;
    unsigned long keep;
    if (!clampRange(start, end, len, &from, &keep)) {
        from = 0;
        keep = 0;
    }
    /* the tail first: the head's indexes stay valid */
    listDeleteRange(o, from + (long)keep, len - (unsigned long)from - keep);
    listDeleteRange(o, 0, (unsigned long)from);
    addReply(c, shared.ok);
    listElementsRemoved(c, c->argv[1], o, "ltrim", (long)(len - keep));
}

void lremCommand(client *c) {
    long long toremove;
    if (getIndexArgOrReply(c, c->argv[2], &toremove) != C_OK) return;
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], shared.czero);
    if (o == NULL || checkType(c, o, OBJ_LIST)) return;

    argText target;
    argTextOf(c->argv[3], &target);
    /* matches to remove, 0 = all; capped by the length anyway */
    unsigned long long limit = toremove < 0 ? (unsigned long long)-(toremove + 1) + 1 : (unsigned long long)toremove;
    unsigned long removed = 0;
    listCursor lc;
    elemRef e;
    if (toremove < 0) listCursorInit(&lc, o, -1, LIST_HEAD);
    else listCursorInit(&lc, o, 0, LIST_TAIL);
    while (listCursorNext(&lc, &e)) {
        if (!elemMatches(&e, &target)) continue;
        listCursorDelete(&lc);
        removed++;
        if (limit && removed == limit) break;
    }
    listCursorRelease(&lc);
    addReplyLongLong(c, (long long)removed);
    if (removed) listElementsRemoved(c, c->argv[1], o, "lrem", (long)removed);
}

typedef struct lposOptions {
    long long rank;   /* 1 = first match; negative: from the tail */
    long long count;  /* -1: no COUNT (single reply); 0: all matches */
    long long maxlen; /* 0: the whole list */
} lposOptions;

static int parseLposOptions(client *c, lposOptions *opt) {
    opt->rank = 1;
    opt->count = -1;
    opt->maxlen = 0;
    for (int j = 3; j < c->argc; j++) {
        const char *name = c->argv[j]->ptr;
        int more = j + 1 < c->argc;
        if (!strcasecmp(name, "rank") && more) {
            if (getInt64ArgOrReply(c, c->argv[++j], -LLONG_MAX, LLONG_MAX, &opt->rank, NULL) != C_OK)
                return C_ERR;
            if (opt->rank == 0) {
                addReplyError(c, "RANK can't be zero: use 1 to start from the first match, 2 from the second ... "
                                 "or use negative to start from the end of the list");
                return C_ERR;
            }
        } else if (!strcasecmp(name, "count") && more) {
            if (getInt64ArgOrReply(c, c->argv[++j], 0, LLONG_MAX, &opt->count, "COUNT can't be negative") != C_OK)
                return C_ERR;
        } else if (!strcasecmp(name, "maxlen") && more) {
            if (getInt64ArgOrReply(c, c->argv[++j], 0, LLONG_MAX, &opt->maxlen, "MAXLEN can't be negative") != C_OK)
                return C_ERR;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return C_ERR;
        }
    }
    return C_OK;
}

void lposCommand(client *c) {
    lposOptions opt;
    if (parseLposOptions(c, &opt) != C_OK) return;
    robj *o = lookupKeyRead(c->db, c->argv[1]);
    if (o == NULL) {
        addReply(c, opt.count != -1 ? shared.emptyarray : shared.null[c->resp]);
        return;
    }
    if (checkType(c, o, OBJ_LIST)) return;

    int where = opt.rank > 0 ? LIST_TAIL : LIST_HEAD;
    unsigned long long skip = (unsigned long long)(opt.rank > 0 ? opt.rank : -opt.rank) - 1; /* matches to pass over */
    unsigned long len = listTypeLength(o);
    void *deferred = opt.count != -1 ? addReplyDeferredLen(c) : NULL;
    unsigned long long matches = 0, scanned = 0;
    long found = 0;
    argText target;
    argTextOf(c->argv[2], &target);
    listCursor lc;
    elemRef e;
    listCursorInit(&lc, o, where == LIST_TAIL ? 0 : -1, where);
    while ((opt.maxlen == 0 || scanned < (unsigned long long)opt.maxlen) && listCursorNext(&lc, &e)) {
        unsigned long long pos = where == LIST_TAIL ? scanned : len - 1 - scanned;
        scanned++;
        if (!elemMatches(&e, &target)) continue;
        if (skip) {
            skip--;
            continue;
        }
        matches++;
        if (deferred == NULL) {
            addReplyLongLong(c, (long long)pos);
            break;
        }
        addReplyLongLong(c, (long long)pos);
        found++;
        if (opt.count && matches == (unsigned long long)opt.count) break;
    }
    listCursorRelease(&lc);
    if (deferred) setDeferredArrayLen(c, deferred, found);
    else if (matches == 0) addReplyNull(c);
}

/* Propagates the command as the given argv (consumed) instead of its own:
 * what a served blocking pop or an MPOP did, in a form that replays the
 * same without blocking, as Redis writes it (LPOP key count, LMOVE ...). */
static void propagateInstead(client *c, robj **argv, int argc) {
    propagateCommandAs(c, argv, argc);
    for (int j = 0; j < argc; j++) decrRefCount(argv[j]);
}

static robj *nameObject(const char *name) { return createStringObject(name, strlen(name)); }

static void propagateAsPop(client *c, robj *key, int where, long long count, int with_count) {
    propagateAsKeyCommand(c, where == LIST_HEAD ? "LPOP" : "RPOP", key, count, with_count);
}

/* ---- LPOP, RPOP, LMPOP --------------------------------------------------------------------------------- */

/* Pops up to `count` elements from the `where` end of key's list o,
 * replying with them as an array (or a single bulk when !as_array). */
static void popAndReply(client *c, robj *key, robj *o, int where, long long count, int as_array) {
    unsigned long len = listTypeLength(o);
    unsigned long n = (unsigned long long)count > len ? len : (unsigned long)count;
    if (as_array) addReplyArrayLen(c, (long)n);
    listCursor lc;
    elemRef e;
    listCursorInit(&lc, o, where == LIST_HEAD ? 0 : -1, where == LIST_HEAD ? LIST_TAIL : LIST_HEAD);
    for (unsigned long j = 0; j < n && listCursorNext(&lc, &e); j++) addReplyElem(c, &e);
    listCursorRelease(&lc);
    listDeleteRange(o, where == LIST_HEAD ? 0 : (long)(len - n), n);
    listElementsRemoved(c, key, o, popEvent(where), (long)n);
}

static void popGenericCommand(client *c, int where) {
    long long count = 0;
    int has_count = c->argc == 3;
    if (c->argc > 3) {
        addReplyErrorArity(c);
        return;
    }
    if (has_count &&
        getInt64ArgOrReply(c, c->argv[2], 0, LLONG_MAX, &count, "value is out of range, must be positive") != C_OK)
        return;
    robj *o = lookupKeyWriteOrReply(c, c->argv[1], has_count ? shared.nullarray[c->resp] : shared.null[c->resp]);
    if (o == NULL || checkType(c, o, OBJ_LIST)) return;
    if (has_count && count == 0) {
        addReply(c, shared.emptyarray);
        return;
    }
    popAndReply(c, c->argv[1], o, where, has_count ? count : 1, has_count);
}

void lpopCommand(client *c) { popGenericCommand(c, LIST_HEAD); }
void rpopCommand(client *c) { popGenericCommand(c, LIST_TAIL); }

typedef struct mpopArgs {
    robj **keys;
    int numkeys;
    int where;
    long long count;
} mpopArgs;

/* numkeys key [key ...] LEFT|RIGHT [COUNT count], numkeys at argv[first]. */
static int parseMpopArgs(client *c, int first, mpopArgs *a) {
    long long numkeys;
    if (getInt64ArgOrReply(c, c->argv[first], 1, LLONG_MAX, &numkeys, "numkeys should be greater than 0") != C_OK)
        return C_ERR;
    if (numkeys > c->argc - first - 2) {
        addReplyErrorObject(c, shared.syntaxerr);
        return C_ERR;
    }
    int where_idx = first + 1 + (int)numkeys;
    if (parseListSide(c, c->argv[where_idx], &a->where) != C_OK) return C_ERR;
    a->keys = c->argv + first + 1;
    a->numkeys = (int)numkeys;
    a->count = -1;
    for (int j = where_idx + 1; j < c->argc; j++) {
        if (a->count == -1 && !strcasecmp(c->argv[j]->ptr, "count") && j + 1 < c->argc) {
            if (getInt64ArgOrReply(c, c->argv[++j], 1, LLONG_MAX, &a->count, "count should be greater than 0") !=
                C_OK)
                return C_ERR;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return C_ERR;
        }
    }
    if (a->count == -1) a->count = 1;
    return C_OK;
}

/* Serves an MPOP from the first non-empty list: 1 if served (or an error
 * was replied), 0 if every key is missing. */
static int mpopServe(client *c, mpopArgs *a) {
    for (int j = 0; j < a->numkeys; j++) {
        robj *o = lookupKeyWrite(c->db, a->keys[j]);
        if (o == NULL) continue;
        if (checkType(c, o, OBJ_LIST)) return 1;
        unsigned long len = listTypeLength(o);
        long long popped = (unsigned long long)a->count > len ? (long long)len : a->count;
        propagateAsPop(c, a->keys[j], a->where, popped, 1);
        addReplyArrayLen(c, 2);
        addReplyBulk(c, a->keys[j]);
        popAndReply(c, a->keys[j], o, a->where, a->count, 1);
        return 1;
    }
    return 0;
}

void lmpopCommand(client *c) {
    mpopArgs a;
    if (parseMpopArgs(c, 1, &a) != C_OK) return;
    if (!mpopServe(c, &a)) addReplyNullArray(c);
}

/* ---- LMOVE, RPOPLPUSH ------------------------------------------------------------------------------------ */

/* Moves one element from the source list o (non-empty) to dst. Replies
 * with the element. */
static void moveElement(client *c, robj *src, robj *o, robj *dst, robj *dobj, int wherefrom, int whereto) {
    elemRef e;
    listGetAt(o, wherefrom == LIST_HEAD ? 0 : -1, &e);
    robj *value = elemRefToObject(&e);
    listDeleteRange(o, wherefrom == LIST_HEAD ? 0 : (long)listTypeLength(o) - 1, 1);

    dobj = listForPush(c, dst, dobj);
    signalModifiedKey(c, c->db, dst);
    listTypePush(dobj, value, whereto);
    notifyKeyspaceEvent(NOTIFY_LIST, pushEvent(whereto), dst, c->db->id); /* dst's waiters: signalled by dbAdd */
    addReplyBulk(c, value);
    decrRefCount(value);

    /* o is still valid: dbAdd of dst (if any) did not touch src's entry,
     * and when src == dst, dobj is o. */
    listElementsRemoved(c, src, o, popEvent(wherefrom), 1);
}

#define MOVE_EMPTY 0  /* the source is missing: nothing replied */
#define MOVE_DONE 1   /* moved and replied */
#define MOVE_FAILED 2 /* an error was replied */

static int moveServe(client *c, int wherefrom, int whereto) {
    robj *o = lookupKeyWrite(c->db, c->argv[1]);
    if (checkType(c, o, OBJ_LIST)) return MOVE_FAILED;
    if (o == NULL) return MOVE_EMPTY;
    robj *dobj = lookupKeyWrite(c->db, c->argv[2]);
    if (checkType(c, dobj, OBJ_LIST)) return MOVE_FAILED;
    moveElement(c, c->argv[1], o, c->argv[2], dobj, wherefrom, whereto);
    return MOVE_DONE;
}

void lmoveCommand(client *c) {
    int wherefrom, whereto;
    if (parseListSide(c, c->argv[3], &wherefrom) != C_OK || parseListSide(c, c->argv[4], &whereto) != C_OK) return;
    if (moveServe(c, wherefrom, whereto) == MOVE_EMPTY) addReplyNull(c);
}

void rpoplpushCommand(client *c) {
    if (moveServe(c, LIST_TAIL, LIST_HEAD) == MOVE_EMPTY) addReplyNull(c);
}

/* ---- blocking variants ----------------------------------------------------------------------------------- */

/* BLPOP/BRPOP key [key ...] timeout */
static void blockingPopCommand(client *c, int where) {
    long long timeout;
    if (getTimeoutFromObjectOrReply(c, c->argv[c->argc - 1], &timeout) != C_OK) return;
    robj **keys = c->argv + 1;
    int numkeys = c->argc - 2;
    for (int j = 0; j < numkeys; j++) {
        robj *o = lookupKeyWrite(c->db, keys[j]);
        if (o == NULL) continue;
        if (checkType(c, o, OBJ_LIST)) return;
        propagateAsPop(c, keys[j], where, 1, 0);
        addReplyArrayLen(c, 2);
        addReplyBulk(c, keys[j]);
        popAndReply(c, keys[j], o, where, 1, 0);
        return;
    }
    if (!clientMayBlock(c)) {
        addReplyNullArray(c);
        return;
    }
    blockForKeys(c, keys, numkeys, timeout);
}

void blpopCommand(client *c) { blockingPopCommand(c, LIST_HEAD); }
void brpopCommand(client *c) { blockingPopCommand(c, LIST_TAIL); }

/* BLMPOP timeout numkeys key [key ...] LEFT|RIGHT [COUNT count] */
void blmpopCommand(client *c) {
    long long timeout;
    if (getTimeoutFromObjectOrReply(c, c->argv[1], &timeout) != C_OK) return;
    mpopArgs a;
    if (parseMpopArgs(c, 2, &a) != C_OK) return;
    if (mpopServe(c, &a)) return;
    if (!clientMayBlock(c)) {
        addReplyNullArray(c);
        return;
    }
    blockForKeys(c, a.keys, a.numkeys, timeout);
}

/* A served BLMOVE replays as LMOVE, a BRPOPLPUSH as RPOPLPUSH. */
static void propagateAsMove(client *c) {
    if (!propagationEnabled()) return;
    int lmove = c->argc == 6;
    robj *argv[5] = {nameObject(lmove ? "LMOVE" : "RPOPLPUSH"), c->argv[1], c->argv[2], NULL, NULL};
    for (int j = 1; j < (lmove ? 5 : 3); j++) {
        argv[j] = c->argv[j];
        incrRefCount(argv[j]);
    }
    propagateInstead(c, argv, lmove ? 5 : 3);
}

static void blockingMoveCommand(client *c, int wherefrom, int whereto, robj *timeout_arg) {
    long long timeout;
    if (getTimeoutFromObjectOrReply(c, timeout_arg, &timeout) != C_OK) return;
    int served = moveServe(c, wherefrom, whereto);
    if (served == MOVE_DONE) propagateAsMove(c);
    if (served != MOVE_EMPTY) return;
    if (!clientMayBlock(c)) {
        addReplyNull(c);
        return;
    }
    blockForKeys(c, c->argv + 1, 1, timeout);
}

/* BLMOVE source destination LEFT|RIGHT LEFT|RIGHT timeout */
void blmoveCommand(client *c) {
    int wherefrom, whereto;
    if (parseListSide(c, c->argv[3], &wherefrom) != C_OK || parseListSide(c, c->argv[4], &whereto) != C_OK) return;
    blockingMoveCommand(c, wherefrom, whereto, c->argv[5]);
}

/* BRPOPLPUSH source destination timeout */
void brpoplpushCommand(client *c) { blockingMoveCommand(c, LIST_TAIL, LIST_HEAD, c->argv[3]); }
