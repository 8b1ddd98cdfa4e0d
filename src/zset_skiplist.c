/* zset_skiplist.c -- the skiplist of large sorted sets (see zset_skiplist.h).
 *
 * Design decisions:
 * - Levels are drawn with p = 1/4 up to 32 levels, from a private xorshift
 *   generator: the shape of a list only affects speed, so a fixed seed is
 *   fine and keeps runs reproducible.
 * - Nodes are one allocation (header + flexible level array); zmalloc
 *   returns memory aligned for the pointers and doubles inside.
 * - Range deletion by score or member is done by rank: the ranks of the
 *   first and last node in range are found in O(log n), then one walk
 *   unlinks [start, end] fixing spans on the way.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "zmalloc.h"
#include "zset_skiplist.h"

static uint64_t level_rng_state = 0x9E3779B97F4A7C15ULL;

/* 1 + the number of leading 2-bit groups that are zero (each is zero with
 * probability 1/4): one 64-bit draw covers all 32 levels. */
static int zslRandomLevel(void) {
    uint64_t x = level_rng_state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    level_rng_state = x;
    int level = 1;
    while (level < ZSKIPLIST_MAXLEVEL && (x & 3) == 0) {
        level++;
        x >>= 2;
    }
    return level;
}

static zskiplistNode *zslCreateNode(int level, double score, sds ele) {
    zskiplistNode *n = zmalloc(sizeof(*n) + (size_t)level * sizeof(struct zskiplistLevel));
    n->score = score;
    n->ele = ele;
    n->backward = NULL;
    return n;
}

zskiplist *zslCreate(void) {
    zskiplist *zsl = zmalloc(sizeof(*zsl));
    zsl->level = 1;
    zsl->length = 0;
    zsl->header = zslCreateNode(ZSKIPLIST_MAXLEVEL, 0, NULL);
    for (int j = 0; j < ZSKIPLIST_MAXLEVEL; j++) {
        zsl->header->level[j].forward = NULL;
        zsl->header->level[j].span = 0;
    }
    zsl->tail = NULL;
    return zsl;
}

void zslFreeNode(zskiplistNode *node) {
    sdsfree(node->ele);
    zfree(node);
}

void zslFree(zskiplist *zsl) {
    zskiplistNode *node = zsl->header->level[0].forward;
    zfree(zsl->header);
    while (node) {
        zskiplistNode *next = node->level[0].forward;
        zslFreeNode(node);
        node = next;
    }
    zfree(zsl);
}

/* ---- ordering ----------------------------------------------------------------------- */

int zslLexCompare(const char *a, size_t alen, const char *b, size_t blen) {
    size_t min = alen < blen ? alen : blen;
    int cmp = min ? memcmp(a, b, min) : 0;
    if (cmp != 0) return cmp;
    return alen < blen ? -1 : (alen > blen ? 1 : 0);
}

static int zslCompare(double s1, const char *e1, size_t l1, double s2, const char *e2, size_t l2) {
    if (s1 < s2) return -1;
    if (s1 > s2) return 1;
    return zslLexCompare(e1, l1, e2, l2);
}

/* node < (score, ele)? */
static int nodeBefore(const zskiplistNode *n, double score, const sds ele) {
    return n->score < score || (n->score == score && zslLexCompare(n->ele, sdslen(n->ele), ele, sdslen(ele)) < 0);
}

/* ---- insert / delete ------------------------------------------------------------------ */

zskiplistNode *zslInsert(zskiplist *zsl, double score, sds ele) {
    zskiplistNode *update[ZSKIPLIST_MAXLEVEL], *x = zsl->header;
    unsigned long rank[ZSKIPLIST_MAXLEVEL];
    for (int i = zsl->level - 1; i >= 0; i--) {
        rank[i] = i == zsl->level - 1 ? 0 : rank[i + 1];
        while (x->level[i].forward && nodeBefore(x->level[i].forward, score, ele)) {
            rank[i] += x->level[i].span;
            x = x->level[i].forward;
        }
        update[i] = x;
    }
    int level = zslRandomLevel();
    if (level > zsl->level) {
        for (int i = zsl->level; i < level; i++) {
            rank[i] = 0;
            update[i] = zsl->header;
            update[i]->level[i].span = zsl->length;
        }
        zsl->level = level;
    }
    x = zslCreateNode(level, score, ele);
    for (int i = 0; i < level; i++) {
        x->level[i].forward = update[i]->level[i].forward;
        update[i]->level[i].forward = x;
        x->level[i].span = update[i]->level[i].span - (rank[0] - rank[i]);
        update[i]->level[i].span = (rank[0] - rank[i]) + 1;
    }
    for (int i = level; i < zsl->level; i++) update[i]->level[i].span++;
    x->backward = update[0] == zsl->header ? NULL : update[0];
    if (x->level[0].forward) x->level[0].forward->backward = x;
    else zsl->tail = x;
    zsl->length++;
    return x;
}

static void zslUnlinkNode(zskiplist *zsl, zskiplistNode *x, zskiplistNode **update) {
    for (int i = 0; i < zsl->level; i++) {
        if (update[i]->level[i].forward == x) {
            update[i]->level[i].span += x->level[i].span - 1;
            update[i]->level[i].forward = x->level[i].forward;
        } else {
            update[i]->level[i].span -= 1;
        }
    }
    if (x->level[0].forward) x->level[0].forward->backward = x->backward;
    else zsl->tail = x->backward;
    while (zsl->level > 1 && zsl->header->level[zsl->level - 1].forward == NULL) zsl->level--;
    zsl->length--;
}

/* Fills update[] with the last node before (score, ele) on each level. */
static zskiplistNode *zslFindUpdate(zskiplist *zsl, double score, const sds ele, zskiplistNode **update) {
    zskiplistNode *x = zsl->header;
    for (int i = zsl->level - 1; i >= 0; i--) {
        while (x->level[i].forward && nodeBefore(x->level[i].forward, score, ele)) x = x->level[i].forward;
        update[i] = x;
    }
    x = x->level[0].forward;
    if (x && x->score == score && sdslen(x->ele) == sdslen(ele) && memcmp(x->ele, ele, sdslen(ele)) == 0) return x;
    return NULL;
}

zskiplistNode *zslUnlink(zskiplist *zsl, double score, const sds ele) {
    zskiplistNode *update[ZSKIPLIST_MAXLEVEL];
    zskiplistNode *x = zslFindUpdate(zsl, score, ele, update);
    if (x) zslUnlinkNode(zsl, x, update);
    return x;
}

zskiplistNode *zslUpdateScore(zskiplist *zsl, double curscore, const sds ele, double newscore) {
    zskiplistNode *update[ZSKIPLIST_MAXLEVEL];
    zskiplistNode *x = zslFindUpdate(zsl, curscore, ele, update);
    if (x == NULL) return NULL;
    /* Still in order with both neighbours: update in place. */
    if ((x->backward == NULL || x->backward->score < newscore) &&
        (x->level[0].forward == NULL || x->level[0].forward->score > newscore)) {
        x->score = newscore;
        return x;
    }
    zslUnlinkNode(zsl, x, update);
    zskiplistNode *n = zslInsert(zsl, newscore, x->ele);
    zfree(x); /* the member moved to the new node */
    return n;
}

/* ---- ranks ------------------------------------------------------------------------------ */

unsigned long zslGetRank(zskiplist *zsl, double score, const sds ele) {
    zskiplistNode *x = zsl->header;
    unsigned long rank = 0;
    for (int i = zsl->level - 1; i >= 0; i--) {
        while (x->level[i].forward &&
               zslCompare(x->level[i].forward->score, x->level[i].forward->ele, sdslen(x->level[i].forward->ele),
                          score, ele, sdslen(ele)) <= 0) {
            rank += x->level[i].span;
            x = x->level[i].forward;
        }
        if (x != zsl->header && x->score == score && sdslen(x->ele) == sdslen(ele) &&
            memcmp(x->ele, ele, sdslen(ele)) == 0)
            return rank;
    }
    return 0;
}

/* The last node at or before `rank` on each level goes in update[] (if not NULL). */
static zskiplistNode *zslSeekRank(zskiplist *zsl, unsigned long rank, zskiplistNode **update) {
    zskiplistNode *x = zsl->header;
    unsigned long traversed = 0;
    for (int i = zsl->level - 1; i >= 0; i--) {
        while (x->level[i].forward && traversed + x->level[i].span < rank) {
            traversed += x->level[i].span;
            x = x->level[i].forward;
        }
        if (update) update[i] = x;
    }
    return x; /* the node just before `rank` */
}

zskiplistNode *zslGetElementByRank(zskiplist *zsl, unsigned long rank) {
    if (rank == 0 || rank > zsl->length) return NULL;
    return zslSeekRank(zsl, rank, NULL)->level[0].forward;
}

unsigned long zslDeleteRangeByRank(zskiplist *zsl, unsigned long start, unsigned long end, zslRemovedProc *removed,
                                   void *ud) {
    if (start == 0 || start > end || start > zsl->length) return 0;
    zskiplistNode *update[ZSKIPLIST_MAXLEVEL];
    zskiplistNode *x = zslSeekRank(zsl, start, update)->level[0].forward;
    unsigned long n = 0;
    for (unsigned long r = start; x && r <= end; r++) {
        zskiplistNode *next = x->level[0].forward;
        zslUnlinkNode(zsl, x, update);
        if (removed) removed(ud, x);
        zslFreeNode(x);
        n++;
        x = next;
    }
    return n;
}

/* ---- score and lex ranges ---------------------------------------------------------------------- */

int zslValueGteMin(double value, const zrangespec *spec) { return spec->minex ? value > spec->min : value >= spec->min; }
int zslValueLteMax(double value, const zrangespec *spec) { return spec->maxex ? value < spec->max : value <= spec->max; }

int zslScoreRangeEmpty(const zrangespec *spec) {
    return spec->min > spec->max || (spec->min == spec->max && (spec->minex || spec->maxex));
}

int zslLexValueGteMin(const char *s, size_t len, const zlexrangespec *spec) {
    if (spec->minkind == ZLEX_NEG_INF) return 1;
    if (spec->minkind == ZLEX_POS_INF) return 0;
    int cmp = zslLexCompare(s, len, spec->min, sdslen(spec->min));
    return spec->minex ? cmp > 0 : cmp >= 0;
}

int zslLexValueLteMax(const char *s, size_t len, const zlexrangespec *spec) {
    if (spec->maxkind == ZLEX_POS_INF) return 1;
    if (spec->maxkind == ZLEX_NEG_INF) return 0;
    int cmp = zslLexCompare(s, len, spec->max, sdslen(spec->max));
    return spec->maxex ? cmp < 0 : cmp <= 0;
}

int zslLexRangeEmpty(const zlexrangespec *spec) {
    if (spec->minkind == ZLEX_POS_INF || spec->maxkind == ZLEX_NEG_INF) return 1;
    if (spec->minkind == ZLEX_NEG_INF || spec->maxkind == ZLEX_POS_INF) return 0;
    int cmp = zslLexCompare(spec->min, sdslen(spec->min), spec->max, sdslen(spec->max));
    return cmp > 0 || (cmp == 0 && (spec->minex || spec->maxex));
}

static int nodeGteMin(const zskiplistNode *n, const zrangespec *r) { return zslValueGteMin(n->score, r); }
static int nodeLteMax(const zskiplistNode *n, const zrangespec *r) { return zslValueLteMax(n->score, r); }
static int nodeLexGteMin(const zskiplistNode *n, const zlexrangespec *r) {
    return zslLexValueGteMin(n->ele, sdslen(n->ele), r);
}
static int nodeLexLteMax(const zskiplistNode *n, const zlexrangespec *r) {
    return zslLexValueLteMax(n->ele, sdslen(n->ele), r);
}

zskiplistNode *zslFirstInRange(zskiplist *zsl, const zrangespec *range) {
    if (zslScoreRangeEmpty(range)) return NULL;
    zskiplistNode *x = zsl->header;
    for (int i = zsl->level - 1; i >= 0; i--)
        while (x->level[i].forward && !nodeGteMin(x->level[i].forward, range)) x = x->level[i].forward;
    x = x->level[0].forward;
    return x && nodeLteMax(x, range) ? x : NULL;
}

zskiplistNode *zslLastInRange(zskiplist *zsl, const zrangespec *range) {
    if (zslScoreRangeEmpty(range)) return NULL;
    zskiplistNode *x = zsl->header;
    for (int i = zsl->level - 1; i >= 0; i--)
        while (x->level[i].forward && nodeLteMax(x->level[i].forward, range)) x = x->level[i].forward;
    return x != zsl->header && nodeGteMin(x, range) ? x : NULL;
}

zskiplistNode *zslFirstInLexRange(zskiplist *zsl, const zlexrangespec *range) {
    if (zslLexRangeEmpty(range)) return NULL;
    zskiplistNode *x = zsl->header;
    for (int i = zsl->level - 1; i >= 0; i--)
        while (x->level[i].forward && !nodeLexGteMin(x->level[i].forward, range)) x = x->level[i].forward;
    x = x->level[0].forward;
    return x && nodeLexLteMax(x, range) ? x : NULL;
}

zskiplistNode *zslLastInLexRange(zskiplist *zsl, const zlexrangespec *range) {
    if (zslLexRangeEmpty(range)) return NULL;
    zskiplistNode *x = zsl->header;
    for (int i = zsl->level - 1; i >= 0; i--)
        while (x->level[i].forward && nodeLexLteMax(x->level[i].forward, range)) x = x->level[i].forward;
    return x != zsl->header && nodeLexGteMin(x, range) ? x : NULL;
}
