/* stream_lp.c -- the listpack node codec of streams (layout in stream_lp.h).
 *
 * Design decisions:
 *  - Elements are read as integers through one helper (elemInt) that also
 *    accepts strings holding a canonical integer, so a node written by
 *    another implementation that stored a count as text still reads; the
 *    validator insists on what the reader needs, no more.
 *  - Walking backwards uses each entry's lp-count: from the lp-count of the
 *    entry before, step back that many elements to reach its flags.
 *  - slpFirst/slpLast read the master entry once into the slpEntry (its
 *    field count, first field, where the entries start); stepping on through
 *    the node reuses that, so a walk costs per entry only its own elements
 *    (XREADGROUP and XRANGE skip, from a node's head, the entries before
 *    their start ID).
 *  - The master entry's counters are rewritten in place with
 *    lpReplaceInteger; the node may move, so every editing function returns
 *    the listpack's new address and refreshes the entry pointers it hands
 *    back.
 */
#include "stream_lp.h"

#include <string.h>

#include "listpack.h"
#include "portable.h"
#include "util.h"

/* ---- IDs ----------------------------------------------------------------- */

int streamIDCompare(const streamID *a, const streamID *b) {
    if (a->ms != b->ms) return a->ms < b->ms ? -1 : 1;
    if (a->seq != b->seq) return a->seq < b->seq ? -1 : 1;
    return 0;
}

void streamIDEncode(unsigned char key[SLP_ID_KEY_LEN], const streamID *id) {
    store64be(key, id->ms);
    store64be(key + 8, id->seq);
}

void streamIDDecode(const unsigned char key[SLP_ID_KEY_LEN], streamID *id) {
    id->ms = load64be(key);
    id->seq = load64be(key + 8);
}

int streamIDIncr(streamID *id) {
    if (id->seq == UINT64_MAX) {
        if (id->ms == UINT64_MAX) return -1;
        id->ms++;
        id->seq = 0;
    } else {
        id->seq++;
    }
    return 0;
}

int streamIDDecr(streamID *id) {
    if (id->seq == 0) {
        if (id->ms == 0) return -1;
        id->ms--;
        id->seq = UINT64_MAX;
    } else {
        id->seq--;
    }
    return 0;
}

/* ---- elements ------------------------------------------------------------ */

/* The element at p as an integer; *ok = 0 if it is not one. */
static int64_t elemInt(const unsigned char *p, int *ok) {
    size_t len;
    long long v;
    const unsigned char *s = lpGetValue(p, &len, &v);
    *ok = 1;
    if (s == NULL) return v;
    if (!string2ll((const char *)s, len, &v)) *ok = 0;
    return v;
}

static int64_t elemIntTrusted(const unsigned char *p) {
    int ok;
    return elemInt(p, &ok);
}

static void elemString(const unsigned char *p, unsigned char *buf, slpString *out) {
    out->ptr = lpGetString(p, &out->len, buf);
}

static int elemEquals(unsigned char *p, const slpString *s) { return lpCompare(p, s->ptr, s->len); }

/* ---- the master entry ---------------------------------------------------- */

unsigned char *slpNew(const slpString *fields, int nfields, size_t capacity) {
    unsigned char *lp = lpNew(capacity);
    lp = lpAppendInteger(lp, 0); /* count */
    lp = lpAppendInteger(lp, 0); /* deleted */
    lp = lpAppendInteger(lp, nfields);
    for (int i = 0; i < nfields; i++) lp = lpAppend(lp, fields[i].ptr, fields[i].len);
    return lpAppendInteger(lp, 0); /* master terminator */
}

int64_t slpLiveCount(unsigned char *lp) { return elemIntTrusted(lpFirst(lp)); }

int64_t slpDeletedCount(unsigned char *lp) { return elemIntTrusted(lpNext(lp, lpFirst(lp))); }

static unsigned char *masterFieldCountElem(unsigned char *lp) { return lpNext(lp, lpNext(lp, lpFirst(lp))); }

/* Adds delta to the master entry's counter at index (0 count, 1 deleted). */
static unsigned char *bumpCounter(unsigned char *lp, int index, int64_t delta) {
    unsigned char *p = lpFirst(lp);
    if (index == 1) p = lpNext(lp, p);
    return lpReplaceInteger(lp, &p, elemIntTrusted(p) + delta);
}

/* ---- appending ----------------------------------------------------------- */

size_t slpPairsLength(const slpString *fv, int nfields) {
    size_t total = 0;
    for (int i = 0; i < nfields * 2; i++) total += fv[i].len;
    return total;
}

/* 1 if the pairs have exactly the master entry's fields, in its order. */
static int sameFieldsAsMaster(unsigned char *lp, const slpString *fv, int nfields) {
    unsigned char *p = masterFieldCountElem(lp);
    if (elemIntTrusted(p) != nfields) return 0;
    for (int i = 0; i < nfields; i++) {
        p = lpNext(lp, p);
        if (!elemEquals(p, &fv[i * 2])) return 0;
    }
    return 1;
}

unsigned char *slpAppend(unsigned char *lp, const streamID *master, const streamID *id, const slpString *fv,
                         int nfields) {
    int same = sameFieldsAsMaster(lp, fv, nfields);
    lp = lpAppendInteger(lp, same ? SLP_FLAG_SAMEFIELDS : SLP_FLAG_NONE);
    lp = lpAppendInteger(lp, (long long)(int64_t)(id->ms - master->ms));
    lp = lpAppendInteger(lp, (long long)(int64_t)(id->seq - master->seq));
    if (!same) lp = lpAppendInteger(lp, nfields);
    for (int i = 0; i < nfields; i++) {
        if (!same) lp = lpAppend(lp, fv[i * 2].ptr, fv[i * 2].len);
        lp = lpAppend(lp, fv[i * 2 + 1].ptr, fv[i * 2 + 1].len);
    }
    lp = lpAppendInteger(lp, same ? 3 + nfields : 4 + 2 * nfields);
    return bumpCounter(lp, 0, 1);
}

/* ---- walking ------------------------------------------------------------- */

/* Caches in e what the master entry says: its fields and where the
 * entries begin. */
static void loadMaster(unsigned char *lp, slpEntry *e) {
    unsigned char *p = masterFieldCountElem(lp);
    e->master_nfields = (int)elemIntTrusted(p);
    p = lpNext(lp, p);
    e->master_fields = p;
    for (int i = 0; i < e->master_nfields; i++) p = lpNext(lp, p);
    e->first_p = lpNext(lp, p); /* after the terminator */
}

/* Fills e from the entry whose flags element is p (e's master cache set). */
static void readEntry(unsigned char *lp, const streamID *master, unsigned char *p, slpEntry *e) {
    e->flags_p = p;
    e->flags = (int)elemIntTrusted(p);
    p = lpNext(lp, p);
    e->id.ms = master->ms + (uint64_t)elemIntTrusted(p);
    p = lpNext(lp, p);
    e->id.seq = master->seq + (uint64_t)elemIntTrusted(p);
    p = lpNext(lp, p);
    if (e->flags & SLP_FLAG_SAMEFIELDS) {
        e->nfields = e->master_nfields;
        e->master_field = e->master_fields;
        e->next = p;
    } else {
        e->nfields = (int)elemIntTrusted(p);
        e->master_field = NULL;
        e->next = lpNext(lp, p);
    }
    e->fields_left = e->nfields;
}

/* The lp-count element of entry e: from the fields cursor (e->next, the
 * first element not read yet), past the fields and values still unread. */
static unsigned char *entryLastElem(unsigned char *lp, slpEntry *e) {
    unsigned char *p = e->next;
    int64_t elems = (e->flags & SLP_FLAG_SAMEFIELDS) ? e->fields_left : 2 * (int64_t)e->fields_left;
    for (int64_t i = 0; i < elems; i++) p = lpNext(lp, p);
    return p;
}

int slpFirst(unsigned char *lp, const streamID *master, slpEntry *e) {
    loadMaster(lp, e);
    if (e->first_p == NULL) return 0;
    readEntry(lp, master, e->first_p, e);
    return 1;
}

int slpNext(unsigned char *lp, const streamID *master, slpEntry *e) {
    unsigned char *last = entryLastElem(lp, e); /* the cursor itself once every field was read */
    unsigned char *p = lpNext(lp, last);
    if (p == NULL) return 0;
    readEntry(lp, master, p, e);
    return 1;
}

/* The flags element of the entry whose lp-count element is p. */
static unsigned char *entryStartFromCount(unsigned char *lp, unsigned char *p) {
    int64_t elems = elemIntTrusted(p);
    for (int64_t i = 0; i < elems; i++) p = lpPrev(lp, p);
    return p;
}

int slpLast(unsigned char *lp, const streamID *master, slpEntry *e) {
    loadMaster(lp, e);
    if (e->first_p == NULL) return 0;
    readEntry(lp, master, entryStartFromCount(lp, lpLast(lp)), e);
    return 1;
}

int slpPrev(unsigned char *lp, const streamID *master, slpEntry *e) {
    if (e->flags_p == e->first_p) return 0;
    readEntry(lp, master, entryStartFromCount(lp, lpPrev(lp, e->flags_p)), e);
    return 1;
}

int slpEntryField(unsigned char *lp, slpEntry *e, slpString *field, slpString *value) {
    if (e->fields_left == 0 || e->next == NULL) return 0;
    if (e->flags & SLP_FLAG_SAMEFIELDS) {
        elemString(e->master_field, e->fbuf, field);
        e->master_field = lpNext(lp, e->master_field);
    } else {
        elemString(e->next, e->fbuf, field);
        e->next = lpNext(lp, e->next);
    }
    elemString(e->next, e->vbuf, value);
    e->next = lpNext(lp, e->next);
    e->fields_left--;
    return 1;
}

/* The master entry's counters may change size (127 -> 128 takes a byte
 * more), which moves everything after them: the entry is found again by its
 * distance from the end, which only the entry's own flags could change --
 * and a flags element is always one byte. */
unsigned char *slpMarkDeleted(unsigned char *lp, slpEntry *e) {
    size_t from_end = lpBytes(lp) - (size_t)(e->flags_p - lp);
    size_t next_from_end = e->next ? lpBytes(lp) - (size_t)(e->next - lp) : 0;
    unsigned char *p = e->flags_p;
    e->flags |= SLP_FLAG_DELETED;
    lp = lpReplaceInteger(lp, &p, e->flags);
    lp = bumpCounter(lp, 0, -1);
    lp = bumpCounter(lp, 1, 1);
    e->flags_p = lp + lpBytes(lp) - from_end;
    if (e->next) e->next = lp + lpBytes(lp) - next_from_end;
    loadMaster(lp, e); /* the master fields and first entry may have moved too */
    if (e->master_field) {
        e->master_field = e->master_fields;
        for (int i = e->nfields - e->fields_left; i > 0; i--) e->master_field = lpNext(lp, e->master_field);
    }
    return lp;
}

int slpFirstLiveID(unsigned char *lp, const streamID *master, streamID *id) {
    slpEntry e;
    for (int ok = slpFirst(lp, master, &e); ok; ok = slpNext(lp, master, &e)) {
        if (e.flags & SLP_FLAG_DELETED) continue;
        *id = e.id;
        return 1;
    }
    return 0;
}

int slpLastLiveID(unsigned char *lp, const streamID *master, streamID *id) {
    slpEntry e;
    for (int ok = slpLast(lp, master, &e); ok; ok = slpPrev(lp, master, &e)) {
        if (e.flags & SLP_FLAG_DELETED) continue;
        *id = e.id;
        return 1;
    }
    return 0;
}

/* ---- validation ------------------------------------------------------------ */

/* A cursor over an already structurally validated listpack. */
typedef struct checkCursor {
    unsigned char *lp;
    unsigned char *p;
} checkCursor;

static int cursorInt(checkCursor *c, int64_t *v) {
    int ok;
    if (c->p == NULL) return 0;
    *v = elemInt(c->p, &ok);
    c->p = lpNext(c->lp, c->p);
    return ok;
}

static int cursorSkip(checkCursor *c, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        if (c->p == NULL) return 0;
        c->p = lpNext(c->lp, c->p);
    }
    return 1;
}

/* Checks one entry (the cursor at its flags), its ID strictly after *prev. */
static int checkEntry(checkCursor *c, const streamID *master, int64_t master_fields, int has_prev, streamID *prev,
                      int *deleted) {
    int64_t flags, dms, dseq, nfields, lpcount, elems;
    if (!cursorInt(c, &flags) || (flags & ~(int64_t)(SLP_FLAG_DELETED | SLP_FLAG_SAMEFIELDS))) return 0;
    if (!cursorInt(c, &dms) || !cursorInt(c, &dseq)) return 0;
    streamID id = {master->ms + (uint64_t)dms, master->seq + (uint64_t)dseq};
    if (streamIDCompare(&id, master) < 0) return 0;
    if (has_prev && streamIDCompare(&id, prev) <= 0) return 0;
    if (flags & SLP_FLAG_SAMEFIELDS) {
        if (!cursorSkip(c, master_fields)) return 0;
        elems = 3 + master_fields;
    } else {
        if (!cursorInt(c, &nfields) || nfields < 0 || nfields > UINT32_MAX) return 0;
        if (!cursorSkip(c, nfields * 2)) return 0;
        elems = 4 + 2 * nfields;
    }
    if (!cursorInt(c, &lpcount) || lpcount != elems) return 0;
    *prev = id;
    *deleted = (flags & SLP_FLAG_DELETED) != 0;
    return 1;
}

int slpValidate(unsigned char *lp, size_t size, const streamID *master, streamID *first, streamID *last) {
    if (!lpValidateIntegrity(lp, size, 1, NULL, NULL)) return 0;
    checkCursor c = {lp, lpFirst(lp)};
    int64_t count, deleted, master_fields, terminator;
    if (!cursorInt(&c, &count) || !cursorInt(&c, &deleted) || !cursorInt(&c, &master_fields)) return 0;
    if (count < 0 || deleted < 0 || master_fields < 0 || master_fields > UINT32_MAX) return 0;
    if (!cursorSkip(&c, master_fields) || !cursorInt(&c, &terminator) || terminator != 0) return 0;
    int64_t seen_live = 0, seen_deleted = 0;
    streamID prev = {0, 0};
    while (c.p != NULL) {
        int was_deleted;
        if (!checkEntry(&c, master, master_fields, (seen_live + seen_deleted) != 0, &prev, &was_deleted))
            return 0;
        if (seen_live + seen_deleted == 0) *first = prev;
        if (was_deleted) seen_deleted++;
        else seen_live++;
    }
    if (seen_live + seen_deleted == 0) return 0; /* a node without entries is never written */
    *last = prev;
    return seen_live == count && seen_deleted == deleted;
}
