/* t_zset.c -- the sorted set type and its commands.
 *
 * A sorted set maps members (binary strings) to double scores and keeps them
 * ordered by score, then by member bytes. Two encodings, as in Redis:
 *
 *   listpack  member, score, member, score ... in order, one blob. Scores are
 *             written as d2string() text (17 significant digits), which the
 *             listpack stores as an integer when the text is one. Used while
 *             the set has at most zset-max-listpack-entries members of at
 *             most zset-max-listpack-value bytes.
 *   skiplist  a dict (member sds -> skiplist node) for O(1) lookup plus the
 *             skiplist of zset_skiplist.c for order and ranks. Both share
 *             the member sds, owned by the skiplist.
 *
 * Design decisions:
 * - A set grows from listpack to skiplist when a threshold is crossed and
 *   never shrinks back in place; only results built by the *STORE commands
 *   are converted back when they fit (Redis's behaviour).
 * - Every read command walks the set through one cursor type (zcursor) that
 *   hides the encoding: seek by rank, by score or by member range, forward
 *   or backward, then step. Ranges are sent to a result sink (zsink) that
 *   either replies to the client or builds the destination of ZRANGESTORE.
 * - ZUNION/ZINTER/ZDIFF read plain sets as members of score 1: each set input
 *   is first copied into a temporary sorted set, so the algorithms see one
 *   kind of input. Sets are reached only through the cross-module API.
 * - The blocking pops use blocked.c through the API of server.h; a client
 *   that may not block (MULTI, scripts) gets the timeout's reply at once.
 * - Scores are replied with addReplyDouble() (RESP2 text from d2string,
 *   RESP3 double), so every port prints the same bytes.
 */
#include <math.h>

#include "server.h"
#include "listpack.h"
#include "zset_skiplist.h"

typedef struct zset {
    dict *dict;     /* member sds -> zskiplistNode* */
    zskiplist *zsl;
} zset;

/* ZADD_IN_* and ZADD_OUT_* (ZADD input and outcome flags) are in server.h: the module API uses them. */

#define ZSET_MIN 0
#define ZSET_MAX 1

/* ---- the member dict ------------------------------------------------------------------- */

static dictType zsetDictType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
};

/* Accumulator of ZUNION: owns its keys until they move into the result. */
static dictType zsetAccDictType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .keyDestructor = dictSdsDestructor,
};

static zset *zsetStructCreate(void) {
    zset *zs = zmalloc(sizeof(*zs));
    zs->dict = dictCreate(&zsetDictType);
    zs->zsl = zslCreate();
    return zs;
}

static void zsetStructFree(zset *zs) {
    dictRelease(zs->dict);
    zslFree(zs->zsl);
    zfree(zs);
}

/* ---- element text helpers ---------------------------------------------------------------- */

/* The bytes of an element: its own for strings, formatted into buf
 * (LONG_STR_SIZE) for integers. */
static const char *elemText(const elemRef *e, char *buf, size_t *len) {
    if (e->s) {
        *len = e->len;
        return (const char *)e->s;
    }
    *len = (size_t)ll2string(buf, LONG_STR_SIZE, e->ll);
    return buf;
}

/* The bytes of a string argument (int-encoded objects formatted into buf). */
static const char *objText(robj *o, char *buf, size_t *len) {
    if (sdsEncodedObject(o)) {
        *len = sdslen(o->ptr);
        return o->ptr;
    }
    *len = (size_t)ll2string(buf, LONG_STR_SIZE, (long long)(intptr_t)o->ptr);
    return buf;
}

static void addReplyElem(client *c, const elemRef *e) {
    if (e->s) addReplyBulkCBuffer(c, e->s, e->len);
    else addReplyBulkLongLong(c, e->ll);
}

/* ---- listpack primitives ------------------------------------------------------------------ */

static double zzlScoreAt(const unsigned char *sptr) {
    size_t len;
    long long ll;
    const unsigned char *s = lpGetValue(sptr, &len, &ll);
    if (s == NULL) return (double)ll;
    char buf[MAX_D2STRING_CHARS];
    if (len >= sizeof buf) len = sizeof buf - 1;
    memcpy(buf, s, len);
    buf[len] = '\0';
    return strtod(buf, NULL);
}

static void zzlElemAt(const unsigned char *eptr, elemRef *e) {
    e->s = lpGetValue(eptr, &e->len, &e->ll);
}

/* Inserts a string before p (or appends when p is NULL), as an integer
 * entry when it is a canonical integer. *newp: the new entry. */
static unsigned char *zzlInsertText(unsigned char *lp, const char *s, size_t len, unsigned char *p, int where,
                                    unsigned char **newp) {
    long long ll;
    if (string2ll(s, len, &ll)) {
        if (p == NULL) {
            lp = lpAppendInteger(lp, ll);
            *newp = lpLast(lp);
            return lp;
        }
        return lpInsertInteger(lp, ll, p, where, newp);
    }
    if (p == NULL) {
        lp = lpAppend(lp, (const unsigned char *)s, len);
        *newp = lpLast(lp);
        return lp;
    }
    return lpInsertString(lp, (const unsigned char *)s, len, p, where, newp);
}

/* Appends (p NULL) or inserts after p a score entry: an integer entry when
 * the score is integral and within +-LLONG_MAX/2 (so -0 is stored as 0),
 * else its d2string() text. Redis stores scores the same way. */
static unsigned char *zzlInsertScore(unsigned char *lp, double score, unsigned char *p) {
    unsigned char *newp;
    if (score >= (double)(-LLONG_MAX / 2) && score <= (double)(LLONG_MAX / 2)) {
        long long ll = (long long)score;
        if ((double)ll == score) {
            if (p == NULL) return lpAppendInteger(lp, ll);
            return lpInsertInteger(lp, ll, p, LP_AFTER, &newp);
        }
    }
    char sbuf[MAX_D2STRING_CHARS];
    size_t slen = (size_t)d2string(sbuf, sizeof sbuf, score);
    return zzlInsertText(lp, sbuf, slen, p, LP_AFTER, &newp);
}

/* The listpack entry of member (eptr), or NULL; *score gets its score. */
static unsigned char *zzlFind(unsigned char *lp, const char *ele, size_t len, double *score) {
    unsigned char *first = lpFirst(lp);
    if (first == NULL) return NULL;
    unsigned char *eptr = lpFind(lp, first, (const unsigned char *)ele, len, 1);
    if (eptr && score) *score = zzlScoreAt(lpNext(lp, eptr));
    return eptr;
}

/* Inserts (ele, score) at its ordered place; ele must be absent. */
static unsigned char *zzlInsert(unsigned char *lp, const char *ele, size_t len, double score) {
    unsigned char *eptr = lpFirst(lp), *newp;
    while (eptr) {
        unsigned char *sptr = lpNext(lp, eptr);
        double s = zzlScoreAt(sptr);
        if (s > score) break;
        if (s == score) {
            unsigned char buf[LP_INTBUF_SIZE];
            size_t elen;
            const unsigned char *e = lpGetString(eptr, &elen, buf);
            if (zslLexCompare((const char *)e, elen, ele, len) > 0) break;
        }
        eptr = lpNext(lp, sptr);
    }
    lp = zzlInsertText(lp, ele, len, eptr, LP_BEFORE, &newp);
    return zzlInsertScore(lp, score, eptr == NULL ? NULL : newp);
}

static unsigned char *zzlDeletePair(unsigned char *lp, unsigned char *eptr) {
    return lpDeleteRangeWithEntry(lp, &eptr, 2);
}

/* ---- encodings and conversions ---------------------------------------------------------------- */

unsigned long zsetLength(const robj *o) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) return lpLength(o->ptr) / 2;
    return ((const zset *)o->ptr)->zsl->length;
}

dict *zsetDictOf(robj *o) { return o->encoding == OBJ_ENCODING_SKIPLIST ? ((zset *)o->ptr)->dict : NULL; }

static robj *createZsetListpackObject(void) {
    robj *o = createObject(OBJ_ZSET, lpNew(0));
    o->encoding = OBJ_ENCODING_LISTPACK;
    return o;
}

static robj *createZsetSkiplistObject(void) {
    robj *o = createObject(OBJ_ZSET, zsetStructCreate());
    o->encoding = OBJ_ENCODING_SKIPLIST;
    return o;
}

/* The encoding a set of `size` members, the longest `maxelelen` bytes, starts in. */
static robj *zsetTypeCreate(size_t size, size_t maxelelen) {
    if (size <= server.zset_max_listpack_entries && maxelelen <= server.zset_max_listpack_value)
        return createZsetListpackObject();
    return createZsetSkiplistObject();
}

robj *createZsetObject(void) { return zsetTypeCreate(0, 0); }

static void zsetConvertToSkiplist(robj *o) {
    unsigned char *lp = o->ptr;
    zset *zs = zsetStructCreate();
    for (unsigned char *eptr = lpFirst(lp); eptr; eptr = lpNext(lp, lpNext(lp, eptr))) {
        elemRef e;
        zzlElemAt(eptr, &e);
        double score = zzlScoreAt(lpNext(lp, eptr));
        zskiplistNode *n = zslInsert(zs->zsl, score, elemRefToSds(&e));
        dictAdd(zs->dict, n->ele, n);
    }
    lpFree(lp);
    o->ptr = zs;
    o->encoding = OBJ_ENCODING_SKIPLIST;
}

static void zsetConvertToListpack(robj *o) {
    zset *zs = o->ptr;
    unsigned char *lp = lpNew(0), *newp;
    for (zskiplistNode *n = zs->zsl->header->level[0].forward; n; n = n->level[0].forward) {
        lp = zzlInsertText(lp, n->ele, sdslen(n->ele), NULL, LP_AFTER, &newp);
        lp = zzlInsertScore(lp, n->score, NULL);
    }
    zsetStructFree(zs);
    o->ptr = lp;
    o->encoding = OBJ_ENCODING_LISTPACK;
}

/* Results of the *STORE commands go back to a listpack when they fit. */
static void zsetConvertToListpackIfNeeded(robj *o, size_t maxelelen, size_t totelelen) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) return;
    zset *zs = o->ptr;
    if (zs->zsl->length <= server.zset_max_listpack_entries && maxelelen <= server.zset_max_listpack_value &&
        lpSafeToAdd(NULL, totelelen))
        zsetConvertToListpack(o);
}

/* ---- core operations ------------------------------------------------------------------------------ */

/* Where a member is: its listpack entry or its dict entry, and its score,
 * so an update does not look it up again (ZADD on an existing member). */
typedef struct zsetMember {
    unsigned char *eptr; /* listpack */
    dictEntry *de;       /* skiplist */
    double score;
} zsetMember;

/* 1 and *m if ele is in the set. */
static int zsetFindMember(robj *o, sds ele, zsetMember *m) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        m->eptr = zzlFind(o->ptr, ele, sdslen(ele), &m->score);
        return m->eptr != NULL;
    }
    m->de = dictFind(((zset *)o->ptr)->dict, ele);
    if (m->de == NULL) return 0;
    m->score = ((zskiplistNode *)dictGetVal(m->de))->score;
    return 1;
}

/* 1 and *score if member is in the set. */
static int zsetScoreOfSds(robj *o, sds ele, double *score) {
    zsetMember m;
    if (!zsetFindMember(o, ele, &m)) return 0;
    *score = m.score;
    return 1;
}

/* Moves the member found at *m to score (not its current one). */
static void zsetUpdateMember(robj *o, sds ele, const zsetMember *m, double score) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        o->ptr = zzlDeletePair(o->ptr, m->eptr);
        o->ptr = zzlInsert(o->ptr, ele, sdslen(ele), score);
    } else {
        zset *zs = o->ptr;
        zskiplistNode *n = dictGetVal(m->de);
        n = zslUpdateScore(zs->zsl, m->score, n->ele, score);
        dictSetVal(zs->dict, m->de, n);
    }
}

static void zsetMaybeGrow(robj *o, size_t elelen) {
    if (o->encoding != OBJ_ENCODING_LISTPACK) return;
    if (zsetLength(o) + 1 > server.zset_max_listpack_entries || elelen > server.zset_max_listpack_value ||
        !lpSafeToAdd(o->ptr, elelen + MAX_D2STRING_CHARS))
        zsetConvertToSkiplist(o);
}

/* Adds or updates ele following the ZADD flags (see Redis's ZADD). Returns
 * 0 only when an increment produced NaN (ZADD_OUT_NAN). */
int zsetAdd(robj *o, double score, sds ele, int in, int *out, double *newscore) {
    int incr = in & ZADD_IN_INCR, nx = in & ZADD_IN_NX, xx = in & ZADD_IN_XX;
    int gt = in & ZADD_IN_GT, lt = in & ZADD_IN_LT;
    zsetMember found;
    *out = 0;
    if (isnan(score)) {
        *out = ZADD_OUT_NAN;
        return 0;
    }
    if (zsetFindMember(o, ele, &found)) {
        double cur = found.score;
        if (nx) {
            *out |= ZADD_OUT_NOP;
            return 1;
        }
        if (incr) {
            score += cur;
            if (isnan(score)) {
                *out |= ZADD_OUT_NAN;
                return 0;
            }
        }
        if ((lt && score >= cur) || (gt && score <= cur)) {
            *out |= ZADD_OUT_NOP;
            return 1;
        }
        if (newscore) *newscore = score;
        if (score == cur) return 1;
        zsetUpdateMember(o, ele, &found, score);
        *out |= ZADD_OUT_UPDATED;
        return 1;
    }
    if (xx) {
        *out |= ZADD_OUT_NOP;
        return 1;
    }
    zsetMaybeGrow(o, sdslen(ele));
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        o->ptr = zzlInsert(o->ptr, ele, sdslen(ele), score);
    } else {
        zset *zs = o->ptr;
        zskiplistNode *n = zslInsert(zs->zsl, score, sdsdup(ele));
        dictAdd(zs->dict, n->ele, n);
    }
    if (newscore) *newscore = score;
    *out |= ZADD_OUT_ADDED;
    return 1;
}

int zsetAddCBuffer(robj *o, double score, const char *s, size_t len) {
    sds ele = sdsnewlen(s, len);
    int out;
    zsetAdd(o, score, ele, ZADD_IN_NONE, &out, NULL);
    sdsfree(ele);
    return (out & ZADD_OUT_ADDED) != 0;
}

/* Removes ele; 1 if it was there. */
int zsetDel(robj *o, sds ele) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *eptr = zzlFind(o->ptr, ele, sdslen(ele), NULL);
        if (eptr == NULL) return 0;
        o->ptr = zzlDeletePair(o->ptr, eptr);
        return 1;
    }
    zset *zs = o->ptr;
    dictEntry *de = dictUnlink(zs->dict, ele);
    if (de == NULL) return 0;
    zskiplistNode *n = dictGetVal(de);
    dictFreeUnlinkedEntry(zs->dict, de);
    n = zslUnlink(zs->zsl, n->score, n->ele);
    zslFreeNode(n);
    dictShrinkIfNeeded(zs->dict);
    return 1;
}

/* 0-based rank of ele in the given direction, or -1; *score if not NULL. */
static long zsetRank(robj *o, sds ele, int reverse, double *score) {
    unsigned long llen = zsetLength(o);
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        unsigned char *lp = o->ptr;
        long rank = 0;
        for (unsigned char *eptr = lpFirst(lp); eptr; eptr = lpNext(lp, lpNext(lp, eptr)), rank++) {
            if (lpCompare(eptr, (const unsigned char *)ele, sdslen(ele))) {
                if (score) *score = zzlScoreAt(lpNext(lp, eptr));
                return reverse ? (long)llen - 1 - rank : rank;
            }
        }
        return -1;
    }
    zset *zs = o->ptr;
    dictEntry *de = dictFind(zs->dict, ele);
    if (de == NULL) return -1;
    zskiplistNode *n = dictGetVal(de);
    unsigned long rank = zslGetRank(zs->zsl, n->score, n->ele);
    if (score) *score = n->score;
    return reverse ? (long)(llen - rank) : (long)(rank - 1);
}

/* ---- the cursor ------------------------------------------------------------------------------------ */

typedef struct zcursor {
    robj *o;
    int reverse;
    unsigned char *eptr; /* listpack: current member entry (NULL: done) */
    zskiplistNode *node; /* skiplist: current node (NULL: done) */
} zcursor;

static int zcurIsLp(const zcursor *cur) { return cur->o->encoding == OBJ_ENCODING_LISTPACK; }
static int zcurValid(const zcursor *cur) { return zcurIsLp(cur) ? cur->eptr != NULL : cur->node != NULL; }

static double zcurScore(const zcursor *cur) {
    if (zcurIsLp(cur)) return zzlScoreAt(lpNext(cur->o->ptr, cur->eptr));
    return cur->node->score;
}

static void zcurMember(const zcursor *cur, elemRef *e) {
    if (zcurIsLp(cur)) {
        zzlElemAt(cur->eptr, e);
    } else {
        e->s = (const unsigned char *)cur->node->ele;
        e->len = sdslen(cur->node->ele);
        e->ll = 0;
    }
}

static void zcurNext(zcursor *cur) {
    if (zcurIsLp(cur)) {
        unsigned char *lp = cur->o->ptr;
        if (cur->reverse) {
            unsigned char *sptr = lpPrev(lp, cur->eptr);
            cur->eptr = sptr ? lpPrev(lp, sptr) : NULL;
        } else {
            cur->eptr = lpNext(lp, lpNext(lp, cur->eptr));
        }
    } else {
        cur->node = cur->reverse ? cur->node->backward : cur->node->level[0].forward;
    }
}

/* At the element of 0-based `rank` counted in the cursor's direction. */
static void zcurSeekRank(zcursor *cur, robj *o, long rank, int reverse) {
    cur->o = o;
    cur->reverse = reverse;
    cur->eptr = NULL;
    cur->node = NULL;
    long llen = (long)zsetLength(o);
    if (rank < 0 || rank >= llen) return;
    long fwd = reverse ? llen - 1 - rank : rank;
    if (zcurIsLp(cur)) cur->eptr = lpSeek(o->ptr, fwd * 2);
    else cur->node = zslGetElementByRank(((zset *)o->ptr)->zsl, (unsigned long)fwd + 1);
}

static void zcurInvalidate(zcursor *cur) {
    cur->eptr = NULL;
    cur->node = NULL;
}

/* Skips n elements (n >= 0). */
static void zcurSkip(zcursor *cur, long long n) {
    if (n <= 0 || !zcurValid(cur)) return;
    if ((unsigned long long)n >= zsetLength(cur->o)) {
        zcurInvalidate(cur);
        return;
    }
    if (zcurIsLp(cur)) {
        while (n-- && cur->eptr) zcurNext(cur);
        return;
    }
    zset *zs = cur->o->ptr;
    unsigned long rank = zslGetRank(zs->zsl, cur->node->score, cur->node->ele), skip = (unsigned long)n;
    if (cur->reverse) cur->node = skip >= rank ? NULL : zslGetElementByRank(zs->zsl, rank - skip);
    else cur->node = skip > zs->zsl->length - rank ? NULL : zslGetElementByRank(zs->zsl, rank + skip);
}

static int lpEntryLexGteMin(const unsigned char *eptr, const zlexrangespec *r) {
    unsigned char buf[LP_INTBUF_SIZE];
    size_t len;
    const unsigned char *s = lpGetString(eptr, &len, buf);
    return zslLexValueGteMin((const char *)s, len, r);
}

static int lpEntryLexLteMax(const unsigned char *eptr, const zlexrangespec *r) {
    unsigned char buf[LP_INTBUF_SIZE];
    size_t len;
    const unsigned char *s = lpGetString(eptr, &len, buf);
    return zslLexValueLteMax((const char *)s, len, r);
}

/* 1 if the current element is still inside the range's far end. */
static int zcurInScore(const zcursor *cur, const zrangespec *r) {
    double s = zcurScore(cur);
    return cur->reverse ? zslValueGteMin(s, r) : zslValueLteMax(s, r);
}

static int zcurInLex(const zcursor *cur, const zlexrangespec *r) {
    elemRef e;
    char buf[LONG_STR_SIZE];
    size_t len;
    zcurMember(cur, &e);
    const char *s = elemText(&e, buf, &len);
    return cur->reverse ? zslLexValueGteMin(s, len, r) : zslLexValueLteMax(s, len, r);
}

/* At the first element of the score range in the cursor's direction. */
static void zcurSeekScore(zcursor *cur, robj *o, const zrangespec *r, int reverse) {
    cur->o = o;
    cur->reverse = reverse;
    cur->eptr = NULL;
    cur->node = NULL;
    if (zslScoreRangeEmpty(r)) return;
    if (!zcurIsLp(cur)) {
        zskiplist *zsl = ((zset *)o->ptr)->zsl;
        cur->node = reverse ? zslLastInRange(zsl, r) : zslFirstInRange(zsl, r);
        return;
    }
    unsigned char *lp = o->ptr;
    if (reverse) {
        unsigned char *sptr = lpLast(lp);
        cur->eptr = sptr ? lpPrev(lp, sptr) : NULL;
        while (cur->eptr && !zslValueLteMax(zcurScore(cur), r)) zcurNext(cur);
    } else {
        cur->eptr = lpFirst(lp);
        while (cur->eptr && !zslValueGteMin(zcurScore(cur), r)) zcurNext(cur);
    }
    if (cur->eptr && !zcurInScore(cur, r)) cur->eptr = NULL;
}

/* Redis's quick test before any lex range walk: the last member must not be
 * below the range nor the first above it. On a set whose scores differ the
 * order is by score, so this decides (as in Redis) what a lex range finds. */
static int zsetMayHoldLexRange(robj *o, const zlexrangespec *r) {
    zcursor head, tail;
    char buf[LONG_STR_SIZE];
    size_t len;
    elemRef e;
    zcurSeekRank(&head, o, 0, 0);
    zcurSeekRank(&tail, o, 0, 1);
    if (!zcurValid(&head)) return 0;
    zcurMember(&tail, &e);
    const char *s = elemText(&e, buf, &len);
    if (!zslLexValueGteMin(s, len, r)) return 0;
    zcurMember(&head, &e);
    s = elemText(&e, buf, &len);
    return zslLexValueLteMax(s, len, r);
}

static void zcurSeekLex(zcursor *cur, robj *o, const zlexrangespec *r, int reverse) {
    cur->o = o;
    cur->reverse = reverse;
    cur->eptr = NULL;
    cur->node = NULL;
    if (zslLexRangeEmpty(r) || !zsetMayHoldLexRange(o, r)) return;
    if (!zcurIsLp(cur)) {
        zskiplist *zsl = ((zset *)o->ptr)->zsl;
        cur->node = reverse ? zslLastInLexRange(zsl, r) : zslFirstInLexRange(zsl, r);
        return;
    }
    unsigned char *lp = o->ptr;
    if (reverse) {
        unsigned char *sptr = lpLast(lp);
        cur->eptr = sptr ? lpPrev(lp, sptr) : NULL;
        while (cur->eptr && !lpEntryLexLteMax(cur->eptr, r)) zcurNext(cur);
    } else {
        cur->eptr = lpFirst(lp);
        while (cur->eptr && !lpEntryLexGteMin(cur->eptr, r)) zcurNext(cur);
    }
    if (cur->eptr && !zcurInLex(cur, r)) cur->eptr = NULL;
}

/* 0-based forward rank of the cursor's element. */
static long zcurRank(const zcursor *cur) {
    if (zcurIsLp(cur)) {
        unsigned char *lp = cur->o->ptr;
        long rank = 0;
        for (unsigned char *p = lpFirst(lp); p && p != cur->eptr; p = lpNext(lp, lpNext(lp, p))) rank++;
        return rank;
    }
    zset *zs = cur->o->ptr;
    return (long)zslGetRank(zs->zsl, cur->node->score, cur->node->ele) - 1;
}

/* ---- the cross-module API and type registration ------------------------------------------------------ */

void zsetTypeForEach(robj *o, int reverse, scoredVisitor *fn, void *ud) {
    zcursor cur;
    zcurSeekRank(&cur, o, 0, reverse);
    while (zcurValid(&cur)) {
        elemRef e;
        zcurMember(&cur, &e);
        if (fn(ud, &e, zcurScore(&cur))) return;
        zcurNext(&cur);
    }
}

/* Members with scores in [min, max), ascending (the GEO commands' cells).
 * `want`, when not NULL, sees each score first, and the member is read
 * (and fn called) only if it returns 1: a walk that turns most members
 * down never touches their strings (a cache miss each in a skiplist). */
void zsetTypeForEachInRange(robj *o, double min, double max, scoreFilter *want, scoredVisitor *fn, void *ud) {
    zrangespec range = {.min = min, .max = max, .minex = 0, .maxex = 1};
    zcursor cur;
    zcurSeekScore(&cur, o, &range, 0);
    while (zcurValid(&cur) && zcurInScore(&cur, &range)) {
        double score = zcurScore(&cur);
        if (want == NULL || want(ud, score)) {
            elemRef e;
            zcurMember(&cur, &e);
            if (fn(ud, &e, score)) return;
        }
        zcurNext(&cur);
    }
}

int zsetTypeScore(robj *o, sds member, double *score) { return zsetScoreOfSds(o, member, score); }

void freeZsetObject(robj *o) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) lpFree(o->ptr);
    else zsetStructFree(o->ptr);
}

robj *dupZsetObject(robj *o) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        robj *d = createObject(OBJ_ZSET, lpDup(o->ptr));
        d->encoding = OBJ_ENCODING_LISTPACK;
        return d;
    }
    robj *d = createZsetSkiplistObject();
    zset *src = o->ptr, *dst = d->ptr;
    for (zskiplistNode *n = src->zsl->tail; n; n = n->backward) {
        zskiplistNode *copy = zslInsert(dst->zsl, n->score, sdsdup(n->ele));
        dictAdd(dst->dict, copy->ele, copy);
    }
    return d;
}

static int digestVisitor(void *ud, const elemRef *member, double score) {
    unsigned char *digest = ud, eledigest[20] = {0};
    char buf[MAX_D2STRING_CHARS];
    size_t len;
    const char *s = elemText(member, buf, &len);
    mixDigest(eledigest, s, len);
    int n = snprintf(buf, sizeof buf, "%.17g", score);
    mixDigest(eledigest, buf, (size_t)n);
    xorDigest(digest, eledigest, 20);
    return 0;
}

void zsetDigest(unsigned char digest[20], robj *o) { zsetTypeForEach(o, 0, digestVisitor, digest); }

static void scanAddPair(list *out, const elemRef *member, double score) {
    char buf[MAX_D2STRING_CHARS];
    listAddNodeTail(out, elemRefToSds(member));
    listAddNodeTail(out, sdsnewlen(buf, (size_t)d2string(buf, sizeof buf, score)));
}

static void zsetScanEntry(void *privdata, const dictEntry *de) {
    zskiplistNode *n = dictGetVal(de);
    elemRef e = {(const unsigned char *)n->ele, sdslen(n->ele), 0};
    scanAddPair(privdata, &e, n->score);
}

static int scanVisitor(void *ud, const elemRef *member, double score) {
    scanAddPair(ud, member, score);
    return 0;
}

uint64_t zsetScan(robj *o, uint64_t cursor, long count, list *out) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) {
        zsetTypeForEach(o, 0, scanVisitor, out);
        return 0;
    }
    return scanDictBounded(((zset *)o->ptr)->dict, cursor, count, 1, zsetScanEntry, out);
}

/* MEMORY USAGE: a listpack is one block. A skiplist set is its zset
 * struct, the dict (entries only: the members belong to the skiplist) and
 * the skiplist's header and nodes with their member sds, both sampled. */
size_t zsetMemoryUsage(robj *o, size_t samples) {
    if (o->encoding == OBJ_ENCODING_LISTPACK) return zmalloc_size(o->ptr);
    zset *zs = o->ptr;
    size_t bytes = 0, sampled = 0;
    for (const zskiplistNode *n = zs->zsl->header->level[0].forward; n && sampled < samples;
         n = n->level[0].forward, sampled++)
        bytes += zmalloc_size(n) + sdsMemoryUsage(n->ele);
    return zmalloc_size(zs) + dictMemoryUsage(zs->dict, samples, NULL) + zmalloc_size(zs->zsl) +
           zmalloc_size(zs->zsl->header) + sampledTotal(bytes, sampled, zs->zsl->length);
}

/* ---- range parsing ---------------------------------------------------------------------------------- */

/* One score bound: "(x" exclusive, "x" inclusive; whatever strtod reads
 * in full, NaN excepted ("inf", "-inf", "+inf" included). */
static int parseScoreBound(robj *o, double *value, int *exclusive) {
    *exclusive = 0;
    if (!sdsEncodedObject(o)) {
        *value = (double)(intptr_t)o->ptr;
        return C_OK;
    }
    const char *s = o->ptr;
    char *end;
    if (s[0] == '(') {
        *exclusive = 1;
        s++;
    }
    *value = strtod(s, &end);
    if (end[0] != '\0' || isnan(*value)) return C_ERR;
    return C_OK;
}

static int zslParseRange(robj *min, robj *max, zrangespec *spec) {
    if (parseScoreBound(min, &spec->min, &spec->minex) != C_OK) return C_ERR;
    if (parseScoreBound(max, &spec->max, &spec->maxex) != C_OK) return C_ERR;
    return C_OK;
}

/* One member bound: "-", "+", "[x" inclusive or "(x" exclusive. */
static int parseLexBound(robj *o, sds *value, int *kind, int *exclusive) {
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *s = objText(o, buf, &len);
    *value = NULL;
    *exclusive = 0;
    if (len == 1 && s[0] == '-') {
        *kind = ZLEX_NEG_INF;
        return C_OK;
    }
    if (len == 1 && s[0] == '+') {
        *kind = ZLEX_POS_INF;
        return C_OK;
    }
    if (len == 0 || (s[0] != '(' && s[0] != '[')) return C_ERR;
    *kind = ZLEX_VALUE;
    *exclusive = s[0] == '(';
    *value = sdsnewlen(s + 1, len - 1);
    return C_OK;
}

static void zslFreeLexRange(zlexrangespec *spec) {
    sdsfree(spec->min);
    sdsfree(spec->max);
    spec->min = spec->max = NULL;
}

static int zslParseLexRange(robj *min, robj *max, zlexrangespec *spec) {
    spec->min = spec->max = NULL;
    if (parseLexBound(min, &spec->min, &spec->minkind, &spec->minex) != C_OK ||
        parseLexBound(max, &spec->max, &spec->maxkind, &spec->maxex) != C_OK) {
        zslFreeLexRange(spec);
        return C_ERR;
    }
    return C_OK;
}

/* ---- range walks kept between calls (module_keys.c's range iterators) ---------------------------------- */

/* A position inside a score or lex range that a caller steps one element at
 * a time, forward or backward, across calls: the modules' ZsetFirstInScoreRange
 * and friends. Each step checks only the bound it moves towards (as Redis's
 * iterators do); the set must not change while a walk is kept. */
struct zsetRangeWalk {
    zcursor cur;
    int lex;
    zrangespec score;
    zlexrangespec lexr;
};

zsetRangeWalk *zsetRangeWalkScore(robj *o, double min, double max, int minex, int maxex, int last) {
    zsetRangeWalk *w = zcalloc(sizeof(*w));
    w->score = (zrangespec){.min = min, .max = max, .minex = minex, .maxex = maxex};
    zcurSeekScore(&w->cur, o, &w->score, last);
    return w;
}

zsetRangeWalk *zsetRangeWalkLex(robj *o, robj *min, robj *max, int last) {
    zlexrangespec spec;
    if (zslParseLexRange(min, max, &spec) != C_OK) return NULL;
    zsetRangeWalk *w = zcalloc(sizeof(*w));
    w->lex = 1;
    w->lexr = spec;
    zcurSeekLex(&w->cur, o, &w->lexr, last);
    return w;
}

robj *zsetRangeWalkSet(const zsetRangeWalk *w) { return w->cur.o; }

int zsetRangeWalkAt(const zsetRangeWalk *w) { return zcurValid(&w->cur); }

robj *zsetRangeWalkElement(const zsetRangeWalk *w, double *score) {
    if (!zcurValid(&w->cur)) return NULL;
    elemRef e;
    zcurMember(&w->cur, &e);
    if (score) *score = zcurScore(&w->cur);
    return elemRefToObject(&e);
}

/* A copy of the cursor is stepped so that a refused step leaves the walk
 * on its element. */
int zsetRangeWalkStep(zsetRangeWalk *w, int backward) {
    if (!zcurValid(&w->cur)) return 0;
    zcursor next = w->cur;
    next.reverse = backward;
    zcurNext(&next);
    if (!zcurValid(&next)) return 0;
    if (w->lex ? !zcurInLex(&next, &w->lexr) : !zcurInScore(&next, &w->score)) return 0;
    w->cur = next;
    return 1;
}

void zsetRangeWalkFree(zsetRangeWalk *w) {
    if (w == NULL) return;
    if (w->lex) zslFreeLexRange(&w->lexr);
    zfree(w);
}

/* ---- common command helpers ------------------------------------------------------------------------------ */

/* After removals: deletes the key when it became empty. 1 if deleted. */
static int zsetDeleteIfEmpty(client *c, robj *key, robj *zobj) {
    if (zsetLength(zobj) != 0) return 0;
    dbDelete(c->db, key);
    notifyKeyspaceEvent(NOTIFY_GENERIC, "del", key, c->db->id);
    return 1;
}

static void addReplyScoredPair(client *c, const elemRef *member, double score, int nested) {
    if (nested) addReplyArrayLen(c, 2);
    addReplyElem(c, member);
    addReplyDouble(c, score);
}

/* The string argument as an sds: borrowed when it already is one (*tofree
 * NULL), else a new one to free. */
static sds argSds(robj *o, sds *tofree) {
    if (sdsEncodedObject(o)) {
        *tofree = NULL;
        return o->ptr;
    }
    *tofree = sdsfromlonglong((long long)(intptr_t)o->ptr);
    return *tofree;
}

/* getRangeLongFromObjectOrReply in 64 bits: counts, ranks and offsets from
 * clients are long long so a 32-bit build accepts what a 64-bit one does. */
static int getRangeLLOrReply(client *c, robj *o, long long min, long long max, long long *target, const char *msg) {
    long long value;
    if (getLongLongFromObjectOrReply(c, o, &value, msg) != C_OK) return C_ERR;
    if (value < min || value > max) {
        if (msg) addReplyError(c, msg);
        else addReplyErrorFormat(c, "value is out of range, value must between %lld and %lld", min, max);
        return C_ERR;
    }
    *target = value;
    return C_OK;
}

/* ---- ZADD, ZINCRBY ----------------------------------------------------------------------------------------- */

static int parseZaddFlags(client *c, int *flags, int *ch, int *scoreidx) {
    int j = 2;
    *ch = 0;
    for (; j < c->argc; j++) {
        const char *opt = c->argv[j]->ptr;
        if (!sdsEncodedObject(c->argv[j])) break;
        if (!strcasecmp(opt, "nx")) *flags |= ZADD_IN_NX;
        else if (!strcasecmp(opt, "xx")) *flags |= ZADD_IN_XX;
        else if (!strcasecmp(opt, "ch")) *ch = 1;
        else if (!strcasecmp(opt, "incr")) *flags |= ZADD_IN_INCR;
        else if (!strcasecmp(opt, "gt")) *flags |= ZADD_IN_GT;
        else if (!strcasecmp(opt, "lt")) *flags |= ZADD_IN_LT;
        else break;
    }
    *scoreidx = j;
    int nx = *flags & ZADD_IN_NX, xx = *flags & ZADD_IN_XX, gt = *flags & ZADD_IN_GT, lt = *flags & ZADD_IN_LT;
    int elements = c->argc - j;
    if (elements % 2 || elements == 0) {
        addReplyErrorObject(c, shared.syntaxerr);
        return C_ERR;
    }
    if (nx && xx) {
        addReplyError(c, "XX and NX options at the same time are not compatible");
        return C_ERR;
    }
    if ((gt && nx) || (lt && nx) || (gt && lt)) {
        addReplyError(c, "GT, LT, and/or NX options at the same time are not compatible");
        return C_ERR;
    }
    if ((*flags & ZADD_IN_INCR) && elements > 2) {
        addReplyError(c, "INCR option supports a single increment-element pair");
        return C_ERR;
    }
    return C_OK;
}

static void zaddGenericCommand(client *c, int flags) {
    robj *key = c->argv[1];
    int ch, scoreidx;
    if (parseZaddFlags(c, &flags, &ch, &scoreidx) != C_OK) return;
    int incr = flags & ZADD_IN_INCR;
    long elements = (c->argc - scoreidx) / 2;

    double *scores = zmalloc(sizeof(double) * (size_t)elements);
    size_t maxelelen = 0;
    for (long j = 0; j < elements; j++) {
        if (getDoubleFromObjectOrReply(c, c->argv[scoreidx + j * 2], &scores[j], NULL) != C_OK) {
            zfree(scores);
            return;
        }
        size_t len = stringObjectLen(c->argv[scoreidx + j * 2 + 1]);
        if (len > maxelelen) maxelelen = len;
    }

    robj *zobj = lookupKeyWrite(c->db, key);
    if (checkType(c, zobj, OBJ_ZSET)) {
        zfree(scores);
        return;
    }
    long added = 0, updated = 0, processed = 0;
    double score = 0;
    if (zobj == NULL) {
        if (flags & ZADD_IN_XX) goto reply;
        zobj = dbAdd(c->db, key, zsetTypeCreate((size_t)elements, maxelelen));
    } else if (zobj->encoding == OBJ_ENCODING_LISTPACK && ((size_t)elements > server.zset_max_listpack_entries ||
                                                           maxelelen > server.zset_max_listpack_value)) {
        /* too many or too long members for a listpack: convert once up front */
        zsetConvertToSkiplist(zobj);
    }

    for (long j = 0; j < elements; j++) {
        sds tofree, ele = argSds(c->argv[scoreidx + j * 2 + 1], &tofree);
        int out;
        double newscore;
        int ok = zsetAdd(zobj, scores[j], ele, flags, &out, &newscore);
        sdsfree(tofree);
        if (!ok) {
            addReplyError(c, "resulting score is not a number (NaN)");
            goto cleanup;
        }
        if (out & ZADD_OUT_ADDED) added++;
        if (out & ZADD_OUT_UPDATED) updated++;
        if (!(out & ZADD_OUT_NOP)) processed++;
        score = newscore;
    }

reply:
    if (incr) {
        if (processed) addReplyDouble(c, score);
        else addReplyNull(c);
    } else {
        addReplyLongLong(c, ch ? added + updated : added);
    }
cleanup:
    zfree(scores);
    if (added || updated) {
        signalModifiedKey(c, c->db, key);
        notifyKeyspaceEvent(NOTIFY_ZSET, incr ? "zincr" : "zadd", key, c->db->id);
    }
    server.dirty += added + updated;
}

void zaddCommand(client *c) { zaddGenericCommand(c, ZADD_IN_NONE); }
void zincrbyCommand(client *c) { zaddGenericCommand(c, ZADD_IN_INCR); }

/* ---- ZREM and ZREMRANGEBY* --------------------------------------------------------------------------------- */

void zremCommand(client *c) {
    robj *key = c->argv[1];
    robj *zobj = lookupKeyWriteOrReply(c, key, shared.czero);
    if (zobj == NULL || checkType(c, zobj, OBJ_ZSET)) return;
    long deleted = 0;
    int keyremoved = 0;
    for (int j = 2; j < c->argc; j++) {
        sds tofree, ele = argSds(c->argv[j], &tofree);
        deleted += zsetDel(zobj, ele);
        sdsfree(tofree);
        if (zsetLength(zobj) == 0) {
            keyremoved = 1;
            break;
        }
    }
    if (deleted) {
        notifyKeyspaceEvent(NOTIFY_ZSET, "zrem", key, c->db->id);
        if (keyremoved) zsetDeleteIfEmpty(c, key, zobj);
        signalModifiedKey(c, c->db, key);
        server.dirty += deleted;
    }
    addReplyLongLong(c, deleted);
}

#define ZRANGE_RANK 0
#define ZRANGE_SCORE 1
#define ZRANGE_LEX 2

static void zsetRemovedFromDict(void *ud, zskiplistNode *node) { dictDelete(ud, node->ele); }

/* Removes forward ranks [start, end] (0-based, valid). */
static void zsetDeleteRanks(robj *zobj, long start, long end) {
    if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
        zobj->ptr = lpDeleteRange(zobj->ptr, start * 2, (unsigned long)(end - start + 1) * 2);
        return;
    }
    zset *zs = zobj->ptr;
    zslDeleteRangeByRank(zs->zsl, (unsigned long)start + 1, (unsigned long)end + 1, zsetRemovedFromDict, zs->dict);
    dictShrinkIfNeeded(zs->dict);
}

/* Forward ranks of the first and last element of a score or lex range;
 * 0 if the range is empty. A lex range ends where a forward walk leaves it
 * (as Redis deletes and, for listpacks, counts); `walk` 0 lets a skiplist
 * take the last in range by descent instead (Redis's ZLEXCOUNT). */
static int zsetRangeRanks(robj *zobj, int type, const zrangespec *r, const zlexrangespec *lr, long *first,
                          long *last, int walk) {
    zcursor a, b;
    if (type == ZRANGE_SCORE) {
        zcurSeekScore(&a, zobj, r, 0);
        if (!zcurValid(&a)) return 0;
        zcurSeekScore(&b, zobj, r, 1);
    } else {
        zcurSeekLex(&a, zobj, lr, 0);
        if (!zcurValid(&a)) return 0;
        if (walk || zcurIsLp(&a)) {
            *first = zcurRank(&a);
            *last = *first;
            for (zcurNext(&a); zcurValid(&a) && zcurInLex(&a, lr); zcurNext(&a)) (*last)++;
            return 1;
        }
        zcurSeekLex(&b, zobj, lr, 1);
        if (!zcurValid(&b)) return 0;
    }
    *first = zcurRank(&a);
    *last = zcurRank(&b);
    return *last >= *first;
}

static void zremrangeGenericCommand(client *c, int type) {
    robj *key = c->argv[1];
    zrangespec range;
    zlexrangespec lexrange = {0};
    long long start = 0, end = 0;
    long first, last;
    static const char *events[] = {"zremrangebyrank", "zremrangebyscore", "zremrangebylex"};

    if (type == ZRANGE_RANK) {
        if (getLongLongFromObjectOrReply(c, c->argv[2], &start, NULL) != C_OK ||
            getLongLongFromObjectOrReply(c, c->argv[3], &end, NULL) != C_OK)
            return;
    } else if (type == ZRANGE_SCORE) {
        if (zslParseRange(c->argv[2], c->argv[3], &range) != C_OK) {
            addReplyError(c, "min or max is not a float");
            return;
        }
    } else if (zslParseLexRange(c->argv[2], c->argv[3], &lexrange) != C_OK) {
        addReplyError(c, "min or max not valid string range item");
        return;
    }

    robj *zobj = lookupKeyWriteOrReply(c, key, shared.czero);
    if (zobj == NULL || checkType(c, zobj, OBJ_ZSET)) goto cleanup;

    long long llen = (long long)zsetLength(zobj), deleted = 0;
    if (type == ZRANGE_RANK) {
        if (start < 0) start += llen;
        if (end < 0) end += llen;
        if (start < 0) start = 0;
        if (start > end || start >= llen) {
            addReply(c, shared.czero);
            goto cleanup;
        }
        if (end >= llen) end = llen - 1;
    } else if (zsetRangeRanks(zobj, type, &range, &lexrange, &first, &last, 1)) {
        start = first;
        end = last;
    } else {
        addReply(c, shared.czero);
        goto cleanup;
    }
    zsetDeleteRanks(zobj, (long)start, (long)end);
    deleted = end - start + 1;

    notifyKeyspaceEvent(NOTIFY_ZSET, events[type], key, c->db->id);
    zsetDeleteIfEmpty(c, key, zobj);
    signalModifiedKey(c, c->db, key);
    server.dirty += deleted;
    addReplyLongLong(c, deleted);
cleanup:
    zslFreeLexRange(&lexrange);
}

void zremrangebyrankCommand(client *c) { zremrangeGenericCommand(c, ZRANGE_RANK); }
void zremrangebyscoreCommand(client *c) { zremrangeGenericCommand(c, ZRANGE_SCORE); }
void zremrangebylexCommand(client *c) { zremrangeGenericCommand(c, ZRANGE_LEX); }

/* ---- ZCARD, ZSCORE, ZMSCORE, ZCOUNT, ZLEXCOUNT, ZRANK ------------------------------------------------------ */

void zcardCommand(client *c) {
    robj *zobj = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    if (zobj == NULL || checkType(c, zobj, OBJ_ZSET)) return;
    addReplyLongLong(c, (long long)zsetLength(zobj));
}

void zscoreCommand(client *c) {
    robj *zobj = lookupKeyReadOrReply(c, c->argv[1], shared.null[c->resp]);
    if (zobj == NULL || checkType(c, zobj, OBJ_ZSET)) return;
    sds tofree, ele = argSds(c->argv[2], &tofree);
    double score;
    if (zsetScoreOfSds(zobj, ele, &score)) addReplyDouble(c, score);
    else addReplyNull(c);
    sdsfree(tofree);
}

void zmscoreCommand(client *c) {
    robj *zobj = lookupKeyRead(c->db, c->argv[1]);
    if (checkType(c, zobj, OBJ_ZSET)) return;
    addReplyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) {
        sds tofree, ele = argSds(c->argv[j], &tofree);
        double score;
        if (zobj && zsetScoreOfSds(zobj, ele, &score)) addReplyDouble(c, score);
        else addReplyNull(c);
        sdsfree(tofree);
    }
}

static void zcountGenericCommand(client *c, int type) {
    zrangespec range;
    zlexrangespec lexrange = {0};
    if (type == ZRANGE_SCORE) {
        if (zslParseRange(c->argv[2], c->argv[3], &range) != C_OK) {
            addReplyError(c, "min or max is not a float");
            return;
        }
    } else if (zslParseLexRange(c->argv[2], c->argv[3], &lexrange) != C_OK) {
        addReplyError(c, "min or max not valid string range item");
        return;
    }
    robj *zobj = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    if (zobj && !checkType(c, zobj, OBJ_ZSET)) {
        long first, last;
        if (zsetRangeRanks(zobj, type, &range, &lexrange, &first, &last, 0)) addReplyLongLong(c, last - first + 1);
        else addReply(c, shared.czero);
    }
    zslFreeLexRange(&lexrange);
}

void zcountCommand(client *c) { zcountGenericCommand(c, ZRANGE_SCORE); }
void zlexcountCommand(client *c) { zcountGenericCommand(c, ZRANGE_LEX); }

/* ZRANK / ZREVRANK key member: Redis 7.0's form (7.2's WITHSCORE is a
 * wrong number of arguments, from the command table's arity). */
static void zrankGenericCommand(client *c, int reverse) {
    robj *zobj = lookupKeyReadOrReply(c, c->argv[1], shared.null[c->resp]);
    if (zobj == NULL || checkType(c, zobj, OBJ_ZSET)) return;
    sds tofree, ele = argSds(c->argv[2], &tofree);
    double score;
    long rank = zsetRank(zobj, ele, reverse, &score);
    sdsfree(tofree);
    if (rank < 0) addReply(c, shared.null[c->resp]);
    else addReplyLongLong(c, rank);
}

void zrankCommand(client *c) { zrankGenericCommand(c, 0); }
void zrevrankCommand(client *c) { zrankGenericCommand(c, 1); }

/* ---- the result sink of the ZRANGE family ------------------------------------------------------------------ */

typedef struct zsink {
    client *c;
    int withscores;
    void *deferred;     /* reply mode, length unknown up front */
    robj *dstkey;       /* store mode when not NULL */
    robj *dst;
    size_t maxelelen, totelelen;
    long emitted;
} zsink;

static void zsinkBegin(zsink *k, long known) {
    k->emitted = 0;
    k->deferred = NULL;
    if (k->dstkey) {
        k->dst = createZsetListpackObject();
        k->maxelelen = k->totelelen = 0;
        return;
    }
    if (known >= 0) addReplyArrayLen(k->c, known * (k->withscores && k->c->resp == 2 ? 2 : 1));
    else k->deferred = addReplyDeferredLen(k->c);
}

static void zsinkEmit(zsink *k, const elemRef *member, double score) {
    k->emitted++;
    if (k->dstkey == NULL) {
        if (k->withscores) addReplyScoredPair(k->c, member, score, k->c->resp > 2);
        else addReplyElem(k->c, member);
        return;
    }
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *s = elemText(member, buf, &len);
    if (len > k->maxelelen) k->maxelelen = len;
    k->totelelen += len;
    zsetAddCBuffer(k->dst, score, s, len);
}

/* Stores (or deletes) a computed destination and replies its length. */
void zsetStoreResult(client *c, robj *dstkey, robj *dst, const char *event, size_t maxelelen, size_t totelelen) {
    long long len = (long long)zsetLength(dst);
    if (len > 0) {
        zsetConvertToListpackIfNeeded(dst, maxelelen, totelelen);
        /* replace as SET does (the TTL goes); dbAdd takes our only reference */
        dbDelete(c->db, dstkey);
        dbAdd(c->db, dstkey, dst);
        signalModifiedKey(c, c->db, dstkey);
        notifyKeyspaceEvent(NOTIFY_ZSET, event, dstkey, c->db->id);
        server.dirty++;
    } else {
        decrRefCount(dst);
        if (dbDelete(c->db, dstkey)) {
            signalModifiedKey(c, c->db, dstkey);
            notifyKeyspaceEvent(NOTIFY_GENERIC, "del", dstkey, c->db->id);
            server.dirty++;
        }
    }
    addReplyLongLong(c, len);
}

static void zsinkEnd(zsink *k) {
    if (k->dstkey) {
        zsetStoreResult(k->c, k->dstkey, k->dst, "zrangestore", k->maxelelen, k->totelelen);
        k->dst = NULL;
        return;
    }
    if (k->deferred) setDeferredArrayLen(k->c, k->deferred, k->emitted * (k->withscores && k->c->resp == 2 ? 2 : 1));
}

/* ---- ZRANGE and friends -------------------------------------------------------------------------------------- */

typedef struct zrangeQuery {
    int type;           /* ZRANGE_RANK / _SCORE / _LEX */
    int reverse;
    long long start, end;    /* rank */
    zrangespec range;
    zlexrangespec lexrange;
    long long offset, limit; /* LIMIT for score and lex; limit < 0 = all */
} zrangeQuery;

static void zrangeByRank(zsink *k, robj *zobj, zrangeQuery *q) {
    long long llen = (long long)zsetLength(zobj), start = q->start, end = q->end;
    if (start < 0) start += llen;
    if (end < 0) end += llen;
    if (start < 0) start = 0;
    if (start > end || start >= llen) {
        zsinkBegin(k, 0);
        zsinkEnd(k);
        return;
    }
    if (end >= llen) end = llen - 1;
    long n = (long)(end - start + 1);
    zsinkBegin(k, n);
    zcursor cur;
    zcurSeekRank(&cur, zobj, (long)start, q->reverse);
    while (n-- > 0 && zcurValid(&cur)) {
        elemRef e;
        zcurMember(&cur, &e);
        zsinkEmit(k, &e, zcurScore(&cur));
        zcurNext(&cur);
    }
    zsinkEnd(k);
}

static void zrangeByRange(zsink *k, robj *zobj, zrangeQuery *q) {
    zcursor cur;
    zsinkBegin(k, -1);
    if (q->type == ZRANGE_SCORE) zcurSeekScore(&cur, zobj, &q->range, q->reverse);
    else zcurSeekLex(&cur, zobj, &q->lexrange, q->reverse);
    if (q->offset < 0) zcurInvalidate(&cur); /* a negative offset selects nothing */
    else zcurSkip(&cur, q->offset);
    long long limit = q->limit;
    while (limit != 0 && zcurValid(&cur)) {
        if (q->type == ZRANGE_SCORE ? !zcurInScore(&cur, &q->range) : !zcurInLex(&cur, &q->lexrange)) break;
        elemRef e;
        zcurMember(&cur, &e);
        zsinkEmit(k, &e, zcurScore(&cur));
        zcurNext(&cur);
        if (limit > 0) limit--;
    }
    zsinkEnd(k);
}

/* Z[REV]RANGE[BYSCORE|BYLEX] and ZRANGESTORE. argv from `first`: key, min,
 * max, options. type/reverse: -1 when the options decide (ZRANGE). */
static void zrangeGenericCommand(client *c, int first, robj *dstkey, int type, int reverse) {
    robj *key = c->argv[first];
    int minidx = first + 1, maxidx = first + 2;
    zrangeQuery q = {.offset = 0, .limit = -1};
    int withscores = 0;

    for (int j = first + 3; j < c->argc; j++) {
        int left = c->argc - j - 1;
        const char *opt = c->argv[j]->ptr;
        if (!dstkey && !strcasecmp(opt, "withscores")) {
            withscores = 1;
        } else if (!strcasecmp(opt, "limit") && left >= 2) {
            if (getLongLongFromObjectOrReply(c, c->argv[j + 1], &q.offset, NULL) != C_OK ||
                getLongLongFromObjectOrReply(c, c->argv[j + 2], &q.limit, NULL) != C_OK)
                return;
            j += 2;
        } else if (reverse == -1 && !strcasecmp(opt, "rev")) {
            reverse = 1;
        } else if (type == -1 && !strcasecmp(opt, "bylex")) {
            type = ZRANGE_LEX;
        } else if (type == -1 && !strcasecmp(opt, "byscore")) {
            type = ZRANGE_SCORE;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    if (reverse == -1) reverse = 0;
    if (type == -1) type = ZRANGE_RANK;
    if (q.limit != -1 && type == ZRANGE_RANK) {
        addReplyError(c, "syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX");
        return;
    }
    if (withscores && type == ZRANGE_LEX) {
        addReplyError(c, "syntax error, WITHSCORES not supported in combination with BYLEX");
        return;
    }
    if (reverse && type != ZRANGE_RANK) {
        int tmp = minidx;
        minidx = maxidx;
        maxidx = tmp;
    }
    q.type = type;
    q.reverse = reverse;
    if (type == ZRANGE_RANK) {
        if (getLongLongFromObjectOrReply(c, c->argv[minidx], &q.start, NULL) != C_OK ||
            getLongLongFromObjectOrReply(c, c->argv[maxidx], &q.end, NULL) != C_OK)
            return;
    } else if (type == ZRANGE_SCORE) {
        if (zslParseRange(c->argv[minidx], c->argv[maxidx], &q.range) != C_OK) {
            addReplyError(c, "min or max is not a float");
            return;
        }
    } else if (zslParseLexRange(c->argv[minidx], c->argv[maxidx], &q.lexrange) != C_OK) {
        addReplyError(c, "min or max not valid string range item");
        return;
    }

    zsink k = {.c = c, .withscores = withscores, .dstkey = dstkey};
    robj *zobj = lookupKeyRead(c->db, key);
    if (zobj == NULL) {
        if (dstkey) {
            zsinkBegin(&k, -1);
            zsinkEnd(&k);
        } else {
            addReply(c, shared.emptyarray);
        }
    } else if (!checkType(c, zobj, OBJ_ZSET)) {
        if (type == ZRANGE_RANK) zrangeByRank(&k, zobj, &q);
        else zrangeByRange(&k, zobj, &q);
    }
    if (type == ZRANGE_LEX) zslFreeLexRange(&q.lexrange);
}

void zrangeCommand(client *c) { zrangeGenericCommand(c, 1, NULL, -1, -1); }
void zrevrangeCommand(client *c) { zrangeGenericCommand(c, 1, NULL, ZRANGE_RANK, 1); }
void zrangebyscoreCommand(client *c) { zrangeGenericCommand(c, 1, NULL, ZRANGE_SCORE, 0); }
void zrevrangebyscoreCommand(client *c) { zrangeGenericCommand(c, 1, NULL, ZRANGE_SCORE, 1); }
void zrangebylexCommand(client *c) { zrangeGenericCommand(c, 1, NULL, ZRANGE_LEX, 0); }
void zrevrangebylexCommand(client *c) { zrangeGenericCommand(c, 1, NULL, ZRANGE_LEX, 1); }
void zrangestoreCommand(client *c) { zrangeGenericCommand(c, 2, c->argv[1], -1, -1); }

/* ---- ZUNION, ZINTER, ZDIFF (+STORE), ZINTERCARD --------------------------------------------------------------- */

#define SET_OP_UNION 0
#define SET_OP_INTER 1
#define SET_OP_DIFF 2
#define AGGR_SUM 0
#define AGGR_MIN 1
#define AGGR_MAX 2

typedef struct zsetopsrc {
    robj *zobj;      /* a sorted set (a copy for set inputs), NULL if missing */
    int owned;       /* zobj is our temporary copy */
    double weight;
} zsetopsrc;

static int setToZsetVisitor(void *ud, const elemRef *elem) {
    char buf[LONG_STR_SIZE];
    size_t len;
    const char *s = elemText(elem, buf, &len);
    zsetAddCBuffer(ud, 1.0, s, len);
    return 0;
}

static void zsetopSourcesFree(zsetopsrc *src, long n) {
    for (long i = 0; i < n; i++)
        if (src[i].owned) decrRefCount(src[i].zobj);
    zfree(src);
}

static void aggregateScore(double *target, double val, int aggregate) {
    if (aggregate == AGGR_SUM) {
        *target += val;
        if (isnan(*target)) *target = 0.0; /* inf + -inf */
    } else if (aggregate == AGGR_MIN) {
        if (val < *target) *target = val;
    } else if (val > *target) {
        *target = val;
    }
}

static double weighted(double score, double weight) {
    double v = score * weight;
    return isnan(v) ? 0.0 : v; /* inf * 0 */
}

static int compareSourcesBySize(const void *a, const void *b) {
    const zsetopsrc *x = a, *y = b;
    unsigned long lx = x->zobj ? zsetLength(x->zobj) : 0, ly = y->zobj ? zsetLength(y->zobj) : 0;
    return lx < ly ? -1 : (lx > ly ? 1 : 0);
}

/* Adds a member known to be absent to a skiplist result. */
static void resultAdd(zset *dst, sds ele, double score, size_t *maxelelen, size_t *totelelen) {
    zskiplistNode *n = zslInsert(dst->zsl, score, ele);
    dictAdd(dst->dict, n->ele, n);
    if (sdslen(ele) > *maxelelen) *maxelelen = sdslen(ele);
    *totelelen += sdslen(ele);
}

static void zsetopUnion(zsetopsrc *src, long n, int aggregate, zset *dst, size_t *maxlen, size_t *totlen) {
    dict *acc = dictCreate(&zsetAccDictType);
    for (long i = 0; i < n; i++) {
        if (src[i].zobj == NULL) continue;
        zcursor cur;
        for (zcurSeekRank(&cur, src[i].zobj, 0, 0); zcurValid(&cur); zcurNext(&cur)) {
            elemRef e;
            zcurMember(&cur, &e);
            double score = weighted(zcurScore(&cur), src[i].weight);
            sds ele = elemRefToSds(&e);
            dictEntry *existing, *de = dictAddRaw(acc, ele, &existing);
            if (de) {
                dictSetDoubleVal(de, score);
            } else {
                sdsfree(ele);
                aggregateScore(dictGetDoubleValPtr(existing), score, aggregate);
            }
        }
    }
    dictIterator *it = dictGetIterator(acc);
    dictEntry *de;
    while ((de = dictNext(it)) != NULL) {
        resultAdd(dst, dictGetKey(de), dictGetDoubleVal(de), maxlen, totlen);
        dictSetKey(acc, de, NULL); /* moved into the result */
    }
    dictReleaseIterator(it);
    dictRelease(acc);
}

/* ZINTER (dst) or ZINTERCARD (dst NULL, stops at limit > 0). Returns the count. */
static long long zsetopInter(zsetopsrc *src, long n, int aggregate, zset *dst, long long limit, size_t *maxlen,
                             size_t *totlen) {
    qsort(src, (size_t)n, sizeof(*src), compareSourcesBySize);
    if (src[0].zobj == NULL || zsetLength(src[0].zobj) == 0) return 0;
    long long count = 0;
    zcursor cur;
    sds ele = sdsempty();
    for (zcurSeekRank(&cur, src[0].zobj, 0, 0); zcurValid(&cur); zcurNext(&cur)) {
        elemRef e;
        char buf[LONG_STR_SIZE];
        size_t len;
        zcurMember(&cur, &e);
        const char *s = elemText(&e, buf, &len);
        ele = sdscpylen(ele, s, len);
        double score = weighted(zcurScore(&cur), src[0].weight), other;
        long j;
        for (j = 1; j < n; j++) {
            if (!zsetScoreOfSds(src[j].zobj, ele, &other)) break;
            aggregateScore(&score, weighted(other, src[j].weight), aggregate);
        }
        if (j < n) continue;
        count++;
        if (dst) resultAdd(dst, sdsdup(ele), score, maxlen, totlen);
        else if (limit > 0 && count >= limit) break;
    }
    sdsfree(ele);
    return count;
}

static void zsetopDiff(zsetopsrc *src, long n, zset *dst, size_t *maxlen, size_t *totlen) {
    if (src[0].zobj == NULL) return;
    zcursor cur;
    sds ele = sdsempty();
    for (zcurSeekRank(&cur, src[0].zobj, 0, 0); zcurValid(&cur); zcurNext(&cur)) {
        elemRef e;
        char buf[LONG_STR_SIZE];
        size_t len;
        zcurMember(&cur, &e);
        const char *s = elemText(&e, buf, &len);
        ele = sdscpylen(ele, s, len);
        double other;
        long j;
        for (j = 1; j < n; j++)
            if (src[j].zobj && zsetScoreOfSds(src[j].zobj, ele, &other)) break;
        if (j == n) resultAdd(dst, sdsdup(ele), zcurScore(&cur), maxlen, totlen);
    }
    sdsfree(ele);
}

/* Reads the inputs: sorted sets as they are, sets copied with score 1.
 * NULL after replying WRONGTYPE. */
static zsetopsrc *zsetopReadSources(client *c, int first, long n, int write) {
    zsetopsrc *src = zcalloc(sizeof(*src) * (size_t)n);
    for (long i = 0; i < n; i++) {
        robj *key = c->argv[first + i];
        robj *o = write ? lookupKeyWrite(c->db, key) : lookupKeyRead(c->db, key);
        src[i].weight = 1.0;
        if (o == NULL) continue;
        if (o->type == OBJ_ZSET) {
            src[i].zobj = o;
        } else if (o->type == OBJ_SET) {
            src[i].zobj = createZsetSkiplistObject();
            src[i].owned = 1;
            setTypeForEach(o, setToZsetVisitor, src[i].zobj);
        } else {
            zsetopSourcesFree(src, i);
            addReplyErrorObject(c, shared.wrongtypeerr);
            return NULL;
        }
    }
    return src;
}

/* WEIGHTS / AGGREGATE / WITHSCORES / LIMIT after the keys. */
static int zsetopParseOptions(client *c, int j, int op, zsetopsrc *src, long n, int store, int cardonly,
                              int *aggregate, int *withscores, long long *limit) {
    while (j < c->argc) {
        long remaining = c->argc - j;
        const char *opt = c->argv[j]->ptr;
        if (op != SET_OP_DIFF && !cardonly && remaining >= n + 1 && !strcasecmp(opt, "weights")) {
            j++;
            for (long i = 0; i < n; i++, j++)
                if (getDoubleFromObjectOrReply(c, c->argv[j], &src[i].weight, "weight value is not a float") != C_OK)
                    return C_ERR;
        } else if (op != SET_OP_DIFF && !cardonly && remaining >= 2 && !strcasecmp(opt, "aggregate")) {
            const char *a = c->argv[j + 1]->ptr;
            if (!strcasecmp(a, "sum")) *aggregate = AGGR_SUM;
            else if (!strcasecmp(a, "min")) *aggregate = AGGR_MIN;
            else if (!strcasecmp(a, "max")) *aggregate = AGGR_MAX;
            else {
                addReplyErrorObject(c, shared.syntaxerr);
                return C_ERR;
            }
            j += 2;
        } else if (!store && !cardonly && !strcasecmp(opt, "withscores")) {
            *withscores = 1;
            j++;
        } else if (cardonly && remaining >= 2 && !strcasecmp(opt, "limit")) {
            if (getRangeLLOrReply(c, c->argv[j + 1], 0, LLONG_MAX, limit, "LIMIT can't be negative") != C_OK)
                return C_ERR;
            j += 2;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return C_ERR;
        }
    }
    return C_OK;
}

static void zsetopReply(client *c, zset *zs, int withscores) {
    addReplyArrayLen(c, (long)(zs->zsl->length * (withscores && c->resp == 2 ? 2 : 1)));
    for (zskiplistNode *n = zs->zsl->header->level[0].forward; n; n = n->level[0].forward) {
        elemRef e = {(const unsigned char *)n->ele, sdslen(n->ele), 0};
        if (withscores) addReplyScoredPair(c, &e, n->score, c->resp > 2);
        else addReplyElem(c, &e);
    }
}

static void zsetopGenericCommand(client *c, robj *dstkey, int numkeysidx, int op, int cardonly) {
    long long numkeys, limit = 0;
    long n;
    int aggregate = AGGR_SUM, withscores = 0;
    static const char *events[] = {"zunionstore", "zinterstore", "zdiffstore"};

    if (getLongLongFromObjectOrReply(c, c->argv[numkeysidx], &numkeys, NULL) != C_OK) return;
    if (numkeys < 1) {
        addReplyErrorFormat(c, "at least 1 input key is needed for '%s' command", c->cmd->fullname);
        return;
    }
    if (numkeys > c->argc - numkeysidx - 1) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    n = (long)numkeys;
    zsetopsrc *src = zsetopReadSources(c, numkeysidx + 1, n, dstkey != NULL);
    if (src == NULL) return;
    if (zsetopParseOptions(c, numkeysidx + 1 + (int)n, op, src, n, dstkey != NULL, cardonly, &aggregate,
                           &withscores, &limit) != C_OK) {
        zsetopSourcesFree(src, n);
        return;
    }

    if (cardonly) {
        addReplyLongLong(c, zsetopInter(src, n, aggregate, NULL, limit, NULL, NULL));
        zsetopSourcesFree(src, n);
        return;
    }
    robj *dstobj = createZsetSkiplistObject();
    zset *dst = dstobj->ptr;
    size_t maxlen = 0, totlen = 0;
    if (op == SET_OP_UNION) zsetopUnion(src, n, aggregate, dst, &maxlen, &totlen);
    else if (op == SET_OP_INTER) zsetopInter(src, n, aggregate, dst, 0, &maxlen, &totlen);
    else zsetopDiff(src, n, dst, &maxlen, &totlen);
    zsetopSourcesFree(src, n);

    if (dstkey) {
        zsetStoreResult(c, dstkey, dstobj, events[op], maxlen, totlen);
    } else {
        zsetopReply(c, dst, withscores);
        decrRefCount(dstobj);
    }
}

void zunionstoreCommand(client *c) { zsetopGenericCommand(c, c->argv[1], 2, SET_OP_UNION, 0); }
void zinterstoreCommand(client *c) { zsetopGenericCommand(c, c->argv[1], 2, SET_OP_INTER, 0); }
void zdiffstoreCommand(client *c) { zsetopGenericCommand(c, c->argv[1], 2, SET_OP_DIFF, 0); }
void zunionCommand(client *c) { zsetopGenericCommand(c, NULL, 1, SET_OP_UNION, 0); }
void zinterCommand(client *c) { zsetopGenericCommand(c, NULL, 1, SET_OP_INTER, 0); }
void zdiffCommand(client *c) { zsetopGenericCommand(c, NULL, 1, SET_OP_DIFF, 0); }
void zintercardCommand(client *c) { zsetopGenericCommand(c, NULL, 1, SET_OP_INTER, 1); }

/* ---- ZPOPMIN/ZPOPMAX, ZMPOP and the blocking pops ------------------------------------------------------------ */

/* Reply shapes of the pops. */
#define ZPOP_FLAT 0       /* ZPOPMIN key: member, score ... */
#define ZPOP_NESTED 1     /* ZPOPMIN key count in RESP3: [member, score] ... */
#define ZPOP_WITHKEY 2    /* BZPOPMIN: key, member, score */
#define ZPOP_MULTI 3      /* ZMPOP/BZMPOP: key, [[member, score] ...] */

/* Pops up to count elements of the non-empty zset at key and replies. */
static void zsetPopAndReply(client *c, robj *key, robj *zobj, int where, long long count, int shape) {
    long llen = (long)zsetLength(zobj);
    long n = count > llen ? llen : (long)count;
    if (shape == ZPOP_FLAT) addReplyArrayLen(c, n * 2);
    else if (shape == ZPOP_NESTED) addReplyArrayLen(c, n);
    else if (shape == ZPOP_WITHKEY) addReplyArrayLen(c, n * 2 + 1);
    else addReplyArrayLen(c, 2);
    if (shape >= ZPOP_WITHKEY) addReplyBulk(c, key);
    if (shape == ZPOP_MULTI) addReplyArrayLen(c, n);

    zcursor cur;
    zcurSeekRank(&cur, zobj, 0, where == ZSET_MAX);
    for (long i = 0; i < n && zcurValid(&cur); i++) {
        elemRef e;
        zcurMember(&cur, &e);
        addReplyScoredPair(c, &e, zcurScore(&cur), shape == ZPOP_NESTED || shape == ZPOP_MULTI);
        zcurNext(&cur);
    }
    if (where == ZSET_MIN) zsetDeleteRanks(zobj, 0, n - 1);
    else zsetDeleteRanks(zobj, llen - n, llen - 1);
    /* as Redis 7.0: BZPOPMIN replays as ZPOPMIN key, [B]ZMPOP as ZPOPMIN key <popped> */
    const char *pop_name = where == ZSET_MIN ? "ZPOPMIN" : "ZPOPMAX";
    if (shape == ZPOP_WITHKEY) propagateAsKeyCommand(c, pop_name, key, 0, 0);
    else if (shape == ZPOP_MULTI) propagateAsKeyCommand(c, pop_name, key, n, 1);
    server.dirty += n;
    notifyKeyspaceEvent(NOTIFY_ZSET, where == ZSET_MIN ? "zpopmin" : "zpopmax", key, c->db->id);
    zsetDeleteIfEmpty(c, key, zobj);
    signalModifiedKey(c, c->db, key);
}

/* The first existing sorted set among keys; NULL (after a WRONGTYPE reply
 * when *err) if none. */
static robj *firstZset(client *c, robj **keys, long n, robj **key, int *err) {
    *err = 0;
    for (long i = 0; i < n; i++) {
        robj *o = lookupKeyWrite(c->db, keys[i]);
        if (o == NULL) continue;
        if (checkType(c, o, OBJ_ZSET)) {
            *err = 1;
            return NULL;
        }
        if (zsetLength(o) == 0) continue;
        *key = keys[i];
        return o;
    }
    return NULL;
}

static void zpopMinMaxCommand(client *c, int where) {
    long long count = -1;
    if (c->argc > 3) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    if (c->argc == 3 &&
        getRangeLLOrReply(c, c->argv[2], 0, LLONG_MAX, &count, "value is out of range, must be positive") != C_OK)
        return;
    robj *zobj = lookupKeyWrite(c->db, c->argv[1]);
    if (zobj == NULL) {
        addReply(c, shared.emptyarray);
        return;
    }
    if (checkType(c, zobj, OBJ_ZSET)) return;
    if (count == 0) {
        addReply(c, shared.emptyarray);
        return;
    }
    int shape = count != -1 && c->resp > 2 ? ZPOP_NESTED : ZPOP_FLAT;
    zsetPopAndReply(c, c->argv[1], zobj, where, count == -1 ? 1 : count, shape);
}

void zpopminCommand(client *c) { zpopMinMaxCommand(c, ZSET_MIN); }
void zpopmaxCommand(client *c) { zpopMinMaxCommand(c, ZSET_MAX); }

/* Blocks, or when the client may not block (MULTI, scripts) replies as on
 * timeout. */
static void zsetBlockOrNull(client *c, robj **keys, long n, long long timeout) {
    if (!clientMayBlock(c)) {
        addReplyNullArray(c);
        return;
    }
    blockForKeys(c, keys, (int)n, timeout);
}

static void bzpopMinMaxCommand(client *c, int where) {
    long long timeout;
    if (getTimeoutFromObjectOrReply(c, c->argv[c->argc - 1], &timeout) != C_OK) return;
    robj *key = NULL;
    int err;
    robj *zobj = firstZset(c, c->argv + 1, c->argc - 2, &key, &err);
    if (err) return;
    if (zobj) zsetPopAndReply(c, key, zobj, where, 1, ZPOP_WITHKEY);
    else zsetBlockOrNull(c, c->argv + 1, c->argc - 2, timeout);
}

void bzpopminCommand(client *c) { bzpopMinMaxCommand(c, ZSET_MIN); }
void bzpopmaxCommand(client *c) { bzpopMinMaxCommand(c, ZSET_MAX); }

/* [B]ZMPOP: numkeys at argv[idx], keys, MIN|MAX, [COUNT n]. */
static void zmpopGenericCommand(client *c, int numkeys_idx, int blocking) {
    long long timeout = 0;
    long long numkeys, count = -1;
    if (blocking && getTimeoutFromObjectOrReply(c, c->argv[1], &timeout) != C_OK) return;
    if (getRangeLLOrReply(c, c->argv[numkeys_idx], 1, LLONG_MAX, &numkeys, "numkeys should be greater than 0") !=
        C_OK)
        return;
    if (numkeys > c->argc - numkeys_idx - 2) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    int where_idx = numkeys_idx + (int)numkeys + 1, where;
    const char *w = c->argv[where_idx]->ptr;
    if (!strcasecmp(w, "min")) where = ZSET_MIN;
    else if (!strcasecmp(w, "max")) where = ZSET_MAX;
    else {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    for (int j = where_idx + 1; j < c->argc; j++) {
        if (count == -1 && !strcasecmp(c->argv[j]->ptr, "count") && j + 1 < c->argc) {
            if (getRangeLLOrReply(c, c->argv[j + 1], 1, LLONG_MAX, &count, "count should be greater than 0") != C_OK)
                return;
            j++;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    if (count == -1) count = 1;
    robj *key = NULL;
    int err;
    robj *zobj = firstZset(c, c->argv + numkeys_idx + 1, (long)numkeys, &key, &err);
    if (err) return;
    if (zobj) zsetPopAndReply(c, key, zobj, where, count, ZPOP_MULTI);
    else if (blocking) zsetBlockOrNull(c, c->argv + numkeys_idx + 1, (long)numkeys, timeout);
    else addReplyNullArray(c);
}

void zmpopCommand(client *c) { zmpopGenericCommand(c, 1, 0); }
void bzmpopCommand(client *c) { zmpopGenericCommand(c, 2, 1); }

/* ---- ZRANDMEMBER --------------------------------------------------------------------------------------------- */

static uint64_t zrand_state = 0x2545F4914F6CDD1DULL;

static unsigned long zrandIndex(unsigned long n) {
    uint64_t x = zrand_state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    zrand_state = x;
    return (unsigned long)((x * 0x2545F4914F6CDD1DULL) % n);
}

static void zrandReplyRank(client *c, robj *zobj, long rank, int withscores) {
    zcursor cur;
    zcurSeekRank(&cur, zobj, rank, 0);
    elemRef e;
    zcurMember(&cur, &e);
    if (withscores) addReplyScoredPair(c, &e, zcurScore(&cur), c->resp > 2);
    else addReplyElem(c, &e);
}

static void zrandReplyNode(client *c, zskiplistNode *n, int withscores) {
    elemRef e = {(const unsigned char *)n->ele, sdslen(n->ele), 0};
    if (withscores) addReplyScoredPair(c, &e, n->score, c->resp > 2);
    else addReplyElem(c, &e);
}

static void zrandmemberWithCount(client *c, long long l, int withscores) {
    robj *zobj = lookupKeyReadOrReply(c, c->argv[1], shared.emptyarray);
    if (zobj == NULL || checkType(c, zobj, OBJ_ZSET)) return;
    unsigned long size = zsetLength(zobj);
    if (l == 0) {
        addReply(c, shared.emptyarray);
        return;
    }
    long mult = withscores && c->resp == 2 ? 2 : 1;
    if (l < 0) { /* repeats allowed */
        unsigned long count;
        if (getRandomRepeatsOrReply(c, l, mult, &count) != C_OK) return;
        addReplyArrayLen(c, (long)count * mult);
        for (unsigned long i = 0; i < count; i++) {
            if (zobj->encoding == OBJ_ENCODING_LISTPACK) {
                zrandReplyRank(c, zobj, (long)zrandIndex(size), withscores);
            } else {
                dictEntry *de = dictGetFairRandomKey(((zset *)zobj->ptr)->dict);
                zrandReplyNode(c, dictGetVal(de), withscores);
            }
        }
        return;
    }
    unsigned long count = (unsigned long long)l >= size ? size : (unsigned long)l;
    addReplyArrayLen(c, (long)count * mult);
    if (count == size || zobj->encoding == OBJ_ENCODING_LISTPACK || count * 3 > size) {
        /* selection sampling: each element kept with probability need/left */
        zcursor cur;
        unsigned long left = size, need = count;
        for (zcurSeekRank(&cur, zobj, 0, 0); need && zcurValid(&cur); zcurNext(&cur), left--) {
            if (zrandIndex(left) >= need) continue;
            elemRef e;
            zcurMember(&cur, &e);
            if (withscores) addReplyScoredPair(c, &e, zcurScore(&cur), c->resp > 2);
            else addReplyElem(c, &e);
            need--;
        }
        return;
    }
    /* few of many: random picks, remembering those already sent */
    zset *zs = zobj->ptr;
    dict *seen = dictCreate(&zsetDictType);
    while (dictSize(seen) < count) {
        zskiplistNode *n = dictGetVal(dictGetFairRandomKey(zs->dict));
        if (dictAdd(seen, n->ele, NULL) != DICT_OK) continue;
        zrandReplyNode(c, n, withscores);
    }
    dictRelease(seen);
}

void zrandmemberCommand(client *c) {
    if (c->argc >= 3) {
        long long l;
        int withscores;
        if (getRandomCountOrReply(c, "withscores", &l, &withscores) != C_OK) return;
        zrandmemberWithCount(c, l, withscores);
        return;
    }
    robj *zobj = lookupKeyReadOrReply(c, c->argv[1], shared.null[c->resp]);
    if (zobj == NULL || checkType(c, zobj, OBJ_ZSET)) return;
    zrandReplyRank(c, zobj, (long)zrandIndex(zsetLength(zobj)), 0);
}

/* ---- ZSCAN ----------------------------------------------------------------------------------------------------- */

void zscanCommand(client *c) { scanKeyOfTypeCommand(c, OBJ_ZSET); }
