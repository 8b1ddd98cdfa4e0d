/* rax.h -- a radix tree: a sorted map from binary-safe byte strings to
 * `void *` values.
 *
 * Keys are ordered by memcmp order (a key that is a prefix of another sorts
 * first), may be of any length including 0, and may hold any bytes. A value
 * may be NULL; raxFind() reports an absent key with raxNotFound, which no
 * stored value can equal. Streams keep their listpack nodes here, keyed by
 * 16-byte big-endian IDs, and walk them with the iterator.
 *
 * Runs of bytes with a single continuation are stored in one "compressed"
 * node, so a tree of long keys that share prefixes costs little more than
 * the distinct bytes plus one node per branch point; removing a key merges
 * what its insertion split, so memory returns to what a tree built without
 * that key would use. The node layout is private to rax.c.
 *
 * Allocation goes through zmalloc, which aborts on out-of-memory, so no call
 * here reports it. Not thread-safe; callers serialize access.
 */
#ifndef REDIS_RAX_H
#define REDIS_RAX_H

#include <stddef.h>
#include <stdint.h>

typedef struct rax rax;
struct raxNode;

/* What raxFind() returns for an absent key: the address of a private
 * object, distinct from every value a caller can store (NULL included). */
extern void *const raxNotFound;

rax *raxNew(void);
void raxFree(rax *r);
/* Frees the tree, calling free_value once on each stored value (NULL values
 * included) first. */
void raxFreeWithCallback(rax *r, void (*free_value)(void *value));
uint64_t raxSize(const rax *r);      /* number of keys */
/* Number of nodes (the root included: an empty tree has 1), as XINFO
 * STREAM's radix-tree-nodes reports it. */
uint64_t raxNodeCount(const rax *r);
/* Bytes the tree has allocated (its header and all its nodes, as the
 * allocator counts them), for MEMORY USAGE. */
size_t raxAllocSize(const rax *r);

/* 1 = new key inserted; 0 = key existed: its value is replaced and the old
 * one stored in *old (if old != NULL). */
int raxInsert(rax *r, const unsigned char *key, size_t len, void *value, void **old);
/* Like raxInsert but never replaces: 0 = key existed (tree unchanged, its
 * current value in *old if old != NULL). */
int raxTryInsert(rax *r, const unsigned char *key, size_t len, void *value, void **old);
/* 1 = removed (its value in *old if old != NULL), 0 = not there. */
int raxRemove(rax *r, const unsigned char *key, size_t len, void **old);
/* The value, or raxNotFound. */
void *raxFind(const rax *r, const unsigned char *key, size_t len);

/* The smallest / largest key without an iterator (a stream's head and tail
 * node on every XADD). Returns 1 and sets *value, copies the key into key
 * (at most cap bytes) and its full length into *len; 0 if the tree is
 * empty. */
int raxFirst(const rax *r, unsigned char *key, size_t cap, size_t *len, void **value);
int raxLast(const rax *r, unsigned char *key, size_t cap, size_t *len, void **value);

/* For tests: 1 if the tree's nodes are well formed and in canonical shape
 * (sorted edges, no mergeable chain, leaves are keys) and its counters
 * (keys, nodes, bytes) match them; 0 otherwise. Visits every node. */
int raxVerify(rax *r);

/* ---- iteration ----------------------------------------------------------
 * An iterator lives on the caller's stack (don't copy it: key may point
 * into it). It keeps its own copy of the current key. Any change to the
 * tree invalidates open iterators: seek again after changing the tree.
 *
 * raxSeek ops: "^" first, "$" last, "=" exact, ">=", ">", "<=", "<". A seek
 * positions the iterator ON the element it found, so the next raxNext() or
 * raxPrev() -- either one -- returns that element; later calls walk on in
 * their direction, and switching direction is allowed (raxNext returning
 * a, b, c then raxPrev returns b). A seek that finds nothing, or a step off
 * either end, makes next/prev return 0 until the next seek. */
#define RAX_ITER_INLINE_KEY 128   /* key bytes held without allocating */
#define RAX_ITER_INLINE_STACK 32  /* tree levels held without allocating */

typedef struct raxIterator {
    unsigned char *key;     /* current key (not NUL-terminated), valid until the next call */
    size_t key_len;
    void *data;             /* current value */
    /* private */
    rax *tree;
    struct raxNode *node;   /* the node whose path is key[0..key_len) */
    int flags;
    size_t key_cap;
    struct raxNode **stack; /* ancestors of node, root first */
    size_t stack_len, stack_cap;
    unsigned char key_inline[RAX_ITER_INLINE_KEY];
    struct raxNode *stack_inline[RAX_ITER_INLINE_STACK];
} raxIterator;

void raxStart(raxIterator *it, rax *r);  /* no position yet: seek before next/prev */
/* Returns 1, or 0 with errno = EINVAL for an unknown op. */
int raxSeek(raxIterator *it, const char *op, const unsigned char *key, size_t len);
int raxNext(raxIterator *it);      /* 1 = moved (key/key_len/data set), 0 = end */
int raxPrev(raxIterator *it);      /* 1 = moved to the previous element, 0 = end */
int raxEOF(const raxIterator *it); /* 1 once a step ran off an end or the seek found nothing */
void raxStop(raxIterator *it);     /* frees what the iterator allocated */

#endif /* REDIS_RAX_H */
