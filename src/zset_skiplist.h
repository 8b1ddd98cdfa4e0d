/* zset_skiplist.h -- the ordered half of a large sorted set.
 *
 * A skiplist of (score, member) nodes ordered by score, then by member bytes
 * (memcmp, shorter first on a common prefix). Every level link carries a
 * span (how many level-0 steps it jumps), so the rank of a node and the
 * node at a rank are found in O(log n); level 0 also links backwards so a
 * range can be walked in either direction.
 *
 * The list owns the members' sds strings. t_zset.c pairs it with a dict
 * (member -> node) for O(1) member lookup; the dict borrows the same sds.
 */
#ifndef ZSET_SKIPLIST_H
#define ZSET_SKIPLIST_H

#include "sds.h"

#define ZSKIPLIST_MAXLEVEL 32

typedef struct zskiplistNode {
    sds ele;
    double score;
    struct zskiplistNode *backward;
    struct zskiplistLevel {
        struct zskiplistNode *forward;
        unsigned long span;
    } level[];
} zskiplistNode;

typedef struct zskiplist {
    zskiplistNode *header, *tail;
    unsigned long length;
    int level;
} zskiplist;

/* A score interval; minex/maxex: the bound itself is excluded. */
typedef struct {
    double min, max;
    int minex, maxex;
} zrangespec;

/* A member (lex) interval. A bound is -inf, +inf or a string. */
#define ZLEX_VALUE 0
#define ZLEX_NEG_INF 1
#define ZLEX_POS_INF 2
typedef struct {
    sds min, max;       /* NULL for the infinite kinds */
    int minkind, maxkind;
    int minex, maxex;
} zlexrangespec;

zskiplist *zslCreate(void);
void zslFree(zskiplist *zsl);
/* Inserts a member that is not in the list yet; the list takes ele. */
zskiplistNode *zslInsert(zskiplist *zsl, double score, sds ele);
/* Unlinks (score, ele); returns the node (caller frees it with
 * zslFreeNode) or NULL if absent. */
zskiplistNode *zslUnlink(zskiplist *zsl, double score, const sds ele);
void zslFreeNode(zskiplistNode *node); /* frees the node and its member */
/* Moves the node of (curscore, ele) to newscore; returns the node now
 * holding ele (maybe a new one). */
zskiplistNode *zslUpdateScore(zskiplist *zsl, double curscore, const sds ele, double newscore);
/* 1-based rank of (score, ele), 0 if absent. */
unsigned long zslGetRank(zskiplist *zsl, double score, const sds ele);
/* The node at a 1-based rank, NULL out of range. */
zskiplistNode *zslGetElementByRank(zskiplist *zsl, unsigned long rank);

int zslLexCompare(const char *a, size_t alen, const char *b, size_t blen);

int zslValueGteMin(double value, const zrangespec *spec);
int zslValueLteMax(double value, const zrangespec *spec);
int zslLexValueGteMin(const char *s, size_t len, const zlexrangespec *spec);
int zslLexValueLteMax(const char *s, size_t len, const zlexrangespec *spec);
int zslScoreRangeEmpty(const zrangespec *spec);
int zslLexRangeEmpty(const zlexrangespec *spec);

zskiplistNode *zslFirstInRange(zskiplist *zsl, const zrangespec *range);
zskiplistNode *zslLastInRange(zskiplist *zsl, const zrangespec *range);
zskiplistNode *zslFirstInLexRange(zskiplist *zsl, const zlexrangespec *range);
zskiplistNode *zslLastInLexRange(zskiplist *zsl, const zlexrangespec *range);

/* Removes the nodes of 1-based ranks [start, end]; for each, removed(ud,
 * node) runs before the node is freed. Returns the count removed. */
typedef void zslRemovedProc(void *ud, zskiplistNode *node);
unsigned long zslDeleteRangeByRank(zskiplist *zsl, unsigned long start, unsigned long end, zslRemovedProc *removed,
                                   void *ud);

#endif /* ZSET_SKIPLIST_H */
