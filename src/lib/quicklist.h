/* quicklist.h -- a doubly linked list of listpack nodes: the encoding of
 * large lists (OBJ_ENCODING_QUICKLIST).
 *
 * Each node holds either a listpack of several elements (container PACKED)
 * or, for an element too big for a node, that one element's bytes alone
 * (container PLAIN). The fill factor bounds a packed node:
 *
 *   fill > 0     at most `fill` elements per node (capped at 32767), and
 *                never more than 8 KB unless the node has a single element;
 *   fill -1..-5  at most 4, 8, 16, 32 or 64 KB per node (smaller values
 *                are taken as -5; 0 is taken as 1).
 *
 * An element longer than the node limit (8 KB for fill >= 0) goes into a
 * PLAIN node of its own, as Redis 7.2 does; quicklistSetPackedThreshold()
 * overrides that limit (DEBUG QUICKLIST-PACKED-THRESHOLD).
 *
 * compress (list-compress-depth): 0 keeps every node raw; N > 0 keeps the N
 * nodes at each end raw and stores interior nodes compressed (encoding
 * QUICKLIST_NODE_ENCODING_LZF, named after Redis's constant; the codec is
 * our own small LZ77, NOT Redis's LZF -- the RDB writer must save raw node
 * contents, e.g. through quicklistVisitNodes()). A compressed node's `entry`
 * is that codec's blob and `sz` still says the raw size.
 *
 * Iterators: quicklistNext() fills a quicklistEntry whose value is either a
 * string (value, sz) or an integer (value == NULL, longval). The entry's
 * pointers are valid until the next call on the iterator (a compressed node
 * is compressed again when the iterator leaves it) or until the list
 * changes. Changing the list while
 * iterating is allowed only through quicklistDelEntry() (the iterator
 * stays valid and continues with the following element in its direction);
 * after quicklistReplaceEntry() or quicklistInsertBefore/After() the
 * iterator must only be released.
 */
#ifndef QUICKLIST_H
#define QUICKLIST_H

#include <stddef.h>

#include "adlist.h" /* AL_START_HEAD / AL_START_TAIL: iteration directions */

#define QUICKLIST_HEAD 0
#define QUICKLIST_TAIL -1

#define QUICKLIST_NODE_ENCODING_RAW 1
#define QUICKLIST_NODE_ENCODING_LZF 2
#define QUICKLIST_NODE_CONTAINER_PLAIN 1
#define QUICKLIST_NODE_CONTAINER_PACKED 2

#define QUICKLIST_FILL_MAX 32767
#define QUICKLIST_FILL_MIN -5

typedef struct quicklistNode {
    struct quicklistNode *prev, *next;
    unsigned char *entry;    /* listpack (PACKED), element bytes (PLAIN), or compressed blob */
    size_t sz;               /* bytes of the raw (uncompressed) contents */
    unsigned int count;      /* elements: 1 for a PLAIN node */
    unsigned char encoding;  /* QUICKLIST_NODE_ENCODING_RAW or _LZF */
    unsigned char container; /* QUICKLIST_NODE_CONTAINER_PLAIN or _PACKED */
    unsigned char recompress; /* temporarily decompressed; compress again when done */
} quicklistNode;

typedef struct quicklist {
    quicklistNode *head, *tail;
    unsigned long count; /* elements in all nodes */
    unsigned long len;   /* nodes */
    int fill;            /* see above */
    unsigned int compress; /* depth: nodes kept raw at each end, 0 = off */
} quicklist;

typedef struct quicklistIter {
    quicklist *ql;
    quicklistNode *current;
    unsigned char *zi; /* position in current's listpack; NULL = start the node */
    long offset;       /* index of zi within current (negative from the tail) */
    int direction;     /* AL_START_HEAD or AL_START_TAIL */
} quicklistIter;

typedef struct quicklistEntry {
    quicklist *ql;
    quicklistNode *node;
    unsigned char *zi;    /* the listpack entry (NULL in a PLAIN node) */
    unsigned char *value; /* string bytes, or NULL for an integer */
    long long longval;    /* the integer when value == NULL */
    size_t sz;            /* string length */
    int offset;           /* index within the node */
} quicklistEntry;

/* ---- creation ----------------------------------------------------------- */
quicklist *quicklistCreate(void); /* fill -2, no compression */
quicklist *quicklistNew(int fill, int compress);
void quicklistSetFill(quicklist *ql, int fill);
void quicklistSetCompressDepth(quicklist *ql, int depth);
void quicklistSetOptions(quicklist *ql, int fill, int depth);
void quicklistRelease(quicklist *ql);
quicklist *quicklistDup(quicklist *orig);

/* Elements longer than this go into PLAIN nodes, whatever the fill; 0
 * restores the default (the node size limit). Process-wide, like Redis's
 * DEBUG QUICKLIST-PACKED-THRESHOLD. A yes/no answer, not a status: 1 if
 * accepted, 0 if sz is out of range. */
int quicklistSetPackedThreshold(size_t sz);

/* ---- size ---------------------------------------------------------------- */
unsigned long quicklistCount(const quicklist *ql);
unsigned long quicklistNodeCount(const quicklist *ql);
size_t quicklistBytes(const quicklist *ql); /* node payload bytes (as stored) + overhead */

/* ---- adding --------------------------------------------------------------- */
void quicklistPushHead(quicklist *ql, const void *value, size_t sz);
void quicklistPushTail(quicklist *ql, const void *value, size_t sz);
void quicklistPush(quicklist *ql, const void *value, size_t sz, int where); /* QUICKLIST_HEAD/_TAIL */
/* Appends a node made of an existing listpack (ownership is taken; an empty
 * one is freed). For converting a listpack-encoded list and RDB loading: the
 * node may exceed the fill limit. */
void quicklistAppendListpack(quicklist *ql, unsigned char *lp);
/* Appends a PLAIN node holding the zmalloc'ed bytes `data` (ownership taken). */
void quicklistAppendPlainNode(quicklist *ql, unsigned char *data, size_t sz);
/* Inserts next to the entry an iterator returned; release the iterator
 * afterwards (it is not valid any more). */
void quicklistInsertBefore(quicklistIter *iter, quicklistEntry *entry, const void *value, size_t sz);
void quicklistInsertAfter(quicklistIter *iter, quicklistEntry *entry, const void *value, size_t sz);

/* ---- replacing ---------------------------------------------------------------- */
/* Replaces the entry an iterator returned; release the iterator afterwards. */
void quicklistReplaceEntry(quicklistIter *iter, quicklistEntry *entry, const void *value, size_t sz);
/* Replaces the element at index (negative from the tail); 0 if out of range. */
int quicklistReplaceAtIndex(quicklist *ql, long index, const void *value, size_t sz);

/* ---- removing ----------------------------------------------------------------- */
/* Deletes the entry the iterator just returned; the iterator stays valid and
 * its next quicklistNext() returns the element that followed (in its
 * direction). */
void quicklistDelEntry(quicklistIter *iter, quicklistEntry *entry);
/* Deletes `count` elements from index `start` (negative from the tail),
 * clipped at the end of the list. Returns 1 if anything was deleted. */
int quicklistDelRange(quicklist *ql, long start, long count);
/* Removes the head or tail element (QUICKLIST_HEAD/_TAIL). A string comes
 * back as a zmalloc'ed copy in *data (caller frees) with *sz; an integer as
 * *data = NULL and *sval. Returns 0 if the list is empty. */
int quicklistPop(quicklist *ql, int where, unsigned char **data, size_t *sz, long long *sval);
/* Moves the tail element to the head. */
void quicklistRotate(quicklist *ql);

/* ---- iterating and reading ----------------------------------------------------- */
quicklistIter *quicklistGetIterator(quicklist *ql, int direction);
/* An iterator whose first quicklistNext() returns the element at idx
 * (negative from the tail); NULL if idx is out of range. */
quicklistIter *quicklistGetIteratorAtIdx(quicklist *ql, int direction, long long idx);
int quicklistNext(quicklistIter *iter, quicklistEntry *entry); /* 1 = entry filled, 0 = done */
void quicklistSetDirection(quicklistIter *iter, int direction);
void quicklistReleaseIterator(quicklistIter *iter);
/* The element at idx (negative from the tail) into *entry, valid until the
 * list changes; 0 if out of range. (With compression on, the node holding
 * it stays decompressed until an operation or iterator next passes it.) */
int quicklistIndex(quicklist *ql, long long idx, quicklistEntry *entry);
/* 1 if the entry equals the string s (integers compare by their text). */
int quicklistCompare(const quicklistEntry *entry, const unsigned char *s, size_t len);

/* ---- nodes (DEBUG, persistence) ------------------------------------------------- */
/* Calls fn for each node, head to tail, with its raw contents: a listpack
 * (PACKED) or one element's bytes (PLAIN); compressed nodes are
 * decompressed for the call. Stops when fn returns 0; returns 1 if every
 * call returned non-zero. */
typedef int quicklistNodeVisitor(const unsigned char *data, size_t sz, int container, void *userdata);
int quicklistVisitNodes(quicklist *ql, quicklistNodeVisitor *fn, void *userdata);
int quicklistNodeIsPlain(const quicklistNode *node);
int quicklistNodeIsCompressed(const quicklistNode *node);

#endif /* QUICKLIST_H */
