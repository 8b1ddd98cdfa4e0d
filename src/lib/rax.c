/* rax.c -- the radix tree of rax.h.
 *
 * THE NODE. One allocation per node, laid out as
 *
 *   <header u32> <edge bytes> <padding> <child pointers> [<value pointer>]
 *
 * header: bit 0 "is a key", bit 1 "its value is NULL", bit 2 "compressed",
 *         bits 3..31 size. A node's key flag and value belong to the path
 *         that leads TO the node (the root holds the empty key).
 * plain node (compressed = 0): size children, one edge byte each, sorted
 *         ascending, so walking children in order walks keys in order.
 * compressed node: size >= 2 edge bytes that are one run -- a chain of
 *         single-child levels stored once -- and exactly one child.
 * The padding puts the pointer area at a multiple of sizeof(void *) from
 * the node's start (allocations are at least 8-byte aligned), and the value
 * pointer is present only for a key with a non-NULL value. Pointers inside a
 * node are nevertheless only loaded and stored with memcpy (nodeLoadPtr /
 * nodeStorePtr): no byte offset is ever cast to a pointer type.
 *
 * THE SHAPE IS CANONICAL: a node exists at the root, at every key, at every
 * branch point and at each child of a branch point; everything between is
 * one compressed run (a one-byte run is a plain node with one child). Insert
 * keeps that shape when it splits a run, and remove restores it by merging
 * the run around a node that lost its key or a child (raxMergeRun). So a
 * tree's nodes, and raxAllocSize(), depend only on the set of keys and the
 * NULL-ness of their values, never on the order of operations.
 *
 * A node that changes size is rebuilt (a fresh allocation, or a realloc
 * when only the value slot at the end changes) and its parent's slot
 * rewritten: walks remember that slot as a byte address ("link"), which is
 * the tree's head field for the root.
 *
 * The tree counts its nodes as it allocates and frees them (raxNodeCount):
 * with the shape above that is the figure Redis's own tree reports for the
 * same keys (XINFO STREAM's radix-tree-nodes). raxFirst/raxLast walk the
 * leftmost / rightmost path without an iterator (a stream's head and tail).
 *
 * THE ITERATOR keeps the path from the root to its current node (a stack of
 * nodes) and the key bytes of that path. Keys in pre-order are sorted, so a
 * step forward is "first key below, else the next sibling of the nearest
 * ancestor that has one", and a step back is "the last key under the
 * previous sibling, else the parent if it is a key". A seek walks the key
 * down the tree and settles, from where the walk stopped, on the element its
 * op asks for; the next step in either direction returns that element.
 */
#include <errno.h>
#include <string.h>

#include "libassert.h"
#include "rax.h"
#include "zmalloc.h"

/* ---- the node ------------------------------------------------------------ */

typedef struct raxNode {
    uint32_t header;
    unsigned char data[]; /* edges, padding, child pointers, value */
} raxNode;

struct rax {
    raxNode *head;
    uint64_t numele;
    uint64_t numnodes;
    size_t alloc_size;
};

#define NODE_KEY 1u
#define NODE_NULL 2u
#define NODE_COMPRESSED 4u
#define NODE_SIZE_SHIFT 3
#define NODE_MAX_SIZE ((1u << (32 - NODE_SIZE_SHIFT)) - 1)
#define PTR_SIZE sizeof(void *)

static char raxNotFoundObject;
void *const raxNotFound = &raxNotFoundObject;

static int nodeIsKey(const raxNode *n) { return (n->header & NODE_KEY) != 0; }
static int nodeIsNull(const raxNode *n) { return (n->header & NODE_NULL) != 0; }
static int nodeIsCompressed(const raxNode *n) { return (n->header & NODE_COMPRESSED) != 0; }
static uint32_t nodeSize(const raxNode *n) { return n->header >> NODE_SIZE_SHIFT; }
static unsigned char *nodeEdges(raxNode *n) { return n->data; }
static uint32_t nodeChildCount(const raxNode *n) { return nodeIsCompressed(n) ? 1 : nodeSize(n); }
static int nodeHasValueSlot(const raxNode *n) { return nodeIsKey(n) && !nodeIsNull(n); }
/* Edge bytes a node contributes to the keys below it. */
static uint32_t nodeRunLength(const raxNode *n) { return nodeIsCompressed(n) ? nodeSize(n) : 1; }

static uint32_t nodeHeader(uint32_t size, int compressed, int iskey, int isnull) {
    return (size << NODE_SIZE_SHIFT) | (compressed ? NODE_COMPRESSED : 0) |
           (iskey ? NODE_KEY : 0) | (iskey && isnull ? NODE_NULL : 0);
}

/* Offset of the pointer area: header and edges rounded up to a pointer. */
static size_t nodePtrOffset(uint32_t size) {
    size_t used = sizeof(raxNode) + size;
    return (used + PTR_SIZE - 1) / PTR_SIZE * PTR_SIZE;
}

static size_t nodeBytesFor(uint32_t size, uint32_t children, int has_value) {
    return nodePtrOffset(size) + ((size_t)children + (has_value ? 1 : 0)) * PTR_SIZE;
}

static size_t nodeBytes(const raxNode *n) {
    return nodeBytesFor(nodeSize(n), nodeChildCount(n), nodeHasValueSlot(n));
}

static void *nodeLoadPtr(const unsigned char *p) {
    void *v;
    memcpy(&v, p, sizeof v);
    return v;
}

static void nodeStorePtr(unsigned char *p, const void *v) { memcpy(p, &v, sizeof v); }

static unsigned char *nodeChildSlot(raxNode *n, uint32_t idx) {
    return (unsigned char *)n + nodePtrOffset(nodeSize(n)) + (size_t)idx * PTR_SIZE;
}

static raxNode *nodeChild(raxNode *n, uint32_t idx) { return nodeLoadPtr(nodeChildSlot(n, idx)); }

static unsigned char *nodeValueSlot(raxNode *n) { return nodeChildSlot(n, nodeChildCount(n)); }

static void *nodeValue(raxNode *n) { return nodeHasValueSlot(n) ? nodeLoadPtr(nodeValueSlot(n)) : NULL; }

/* Index of the child of plain node n reached by byte c, or -1. */
static int nodeFindChild(raxNode *n, unsigned char c) {
    const unsigned char *edges = nodeEdges(n);
    const unsigned char *hit = memchr(edges, c, nodeSize(n));
    return hit ? (int)(hit - edges) : -1;
}

/* Index of the first child of plain node n whose byte is > c (size if none).
 * A binary search: a stream's IDs fill nodes of up to 256 children, and
 * each new ID goes after the last of them. */
static uint32_t nodeFirstChildAbove(raxNode *n, unsigned char c) {
    const unsigned char *edges = nodeEdges(n);
    uint32_t lo = 0, hi = nodeSize(n); /* edges[0, lo) <= c < edges[hi, size) */
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (edges[mid] <= c) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* ---- allocation, with the tree's byte count ------------------------------- */

static raxNode *treeAlloc(rax *r, size_t bytes) {
    size_t usable;
    raxNode *n = zmalloc_usable(bytes, &usable);
    r->alloc_size += usable;
    r->numnodes++;
    return n;
}

static raxNode *treeRealloc(rax *r, raxNode *n, size_t bytes) {
    size_t usable;
    r->alloc_size -= zmalloc_size(n);
    n = zrealloc_usable(n, bytes, &usable);
    r->alloc_size += usable;
    return n;
}

static void treeFreeNode(rax *r, raxNode *n) {
    r->alloc_size -= zmalloc_size(n);
    r->numnodes--;
    zfree(n);
}

/* A node with the given shape: header and value set, edges and children
 * left for the caller. */
static raxNode *nodeNew(rax *r, uint32_t size, int compressed, int iskey, void *value) {
    libAssert(size <= NODE_MAX_SIZE);
    int has_value = iskey && value != NULL;
    raxNode *n = treeAlloc(r, nodeBytesFor(size, compressed ? 1 : size, has_value));
    n->header = nodeHeader(size, compressed, iskey, value == NULL);
    if (has_value) nodeStorePtr(nodeValueSlot(n), value);
    return n;
}

/* A node holding the run bytes[0..len) (len >= 1) with one child: plain
 * for one byte, compressed for more. */
static raxNode *nodeNewRun(rax *r, const unsigned char *bytes, uint32_t len, raxNode *child,
                           int iskey, void *value) {
    raxNode *n = nodeNew(r, len, len > 1, iskey, value);
    memcpy(nodeEdges(n), bytes, len);
    nodeStorePtr(nodeChildSlot(n, 0), child);
    return n;
}

static raxNode *nodeNewLeaf(rax *r) { return nodeNew(r, 0, 0, 0, NULL); }

/* n with its key flag and value set as asked. Only the value slot at the
 * end of the node can appear or vanish, so a realloc does it. */
static raxNode *nodeSetKey(rax *r, raxNode *n, int iskey, void *value) {
    int want_slot = iskey && value != NULL;
    if (want_slot != nodeHasValueSlot(n)) {
        size_t bytes = nodeBytesFor(nodeSize(n), nodeChildCount(n), want_slot);
        n = treeRealloc(r, n, bytes);
    }
    n->header = nodeHeader(nodeSize(n), nodeIsCompressed(n), iskey, value == NULL);
    if (want_slot) nodeStorePtr(nodeValueSlot(n), value);
    return n;
}

/* Plain node n with the childless node leaf added under byte c (n had no
 * child under c), kept in byte order. Returns the rebuilt node; *idx is the new
 * child's index. */
static raxNode *nodeAddChild(rax *r, raxNode *n, unsigned char c, raxNode *leaf, uint32_t *idx) {
    uint32_t size = nodeSize(n), pos = nodeFirstChildAbove(n, c);
    raxNode *m = nodeNew(r, size + 1, 0, nodeIsKey(n), nodeValue(n));
    unsigned char *from = nodeEdges(n), *to = nodeEdges(m);
    memcpy(to, from, pos);
    to[pos] = c;
    memcpy(to + pos + 1, from + pos, size - pos);
    memcpy(nodeChildSlot(m, 0), nodeChildSlot(n, 0), (size_t)pos * PTR_SIZE);
    nodeStorePtr(nodeChildSlot(m, pos), leaf);
    memcpy(nodeChildSlot(m, pos + 1), nodeChildSlot(n, pos), (size_t)(size - pos) * PTR_SIZE);
    treeFreeNode(r, n);
    *idx = pos;
    return m;
}

/* n without its child `child`: a compressed node becomes a childless plain
 * node, a plain node loses that edge. Returns the rebuilt node. */
static raxNode *nodeRemoveChild(rax *r, raxNode *n, raxNode *child) {
    if (nodeIsCompressed(n)) {
        raxNode *m = nodeNew(r, 0, 0, nodeIsKey(n), nodeValue(n));
        treeFreeNode(r, n);
        return m;
    }
    uint32_t size = nodeSize(n), pos = 0;
    while (pos < size && nodeChild(n, pos) != child) pos++;
    libAssert(pos < size);
    raxNode *m = nodeNew(r, size - 1, 0, nodeIsKey(n), nodeValue(n));
    unsigned char *from = nodeEdges(n), *to = nodeEdges(m);
    memcpy(to, from, pos);
    memcpy(to + pos, from + pos + 1, size - pos - 1);
    memcpy(nodeChildSlot(m, 0), nodeChildSlot(n, 0), (size_t)pos * PTR_SIZE);
    memcpy(nodeChildSlot(m, pos), nodeChildSlot(n, pos + 1), (size_t)(size - pos - 1) * PTR_SIZE);
    treeFreeNode(r, n);
    return m;
}

/* ---- a stack of nodes (paths from the root) ------------------------------ */

typedef struct nodeStack {
    raxNode **items;
    size_t len, cap;
    raxNode *inline_items[32];
} nodeStack;

static void stackInit(nodeStack *s) {
    s->items = s->inline_items;
    s->len = 0;
    s->cap = sizeof s->inline_items / sizeof s->inline_items[0];
}

static void stackRelease(nodeStack *s) {
    if (s->items != s->inline_items) zfree(s->items);
}

/* Grows an array of node pointers that starts in an inline buffer. */
static raxNode **growNodeArray(raxNode **items, raxNode **inline_items, size_t len, size_t *cap) {
    size_t newcap = *cap * 2;
    raxNode **bigger;
    if (items == inline_items) {
        bigger = zmalloc(newcap * sizeof *bigger);
        memcpy(bigger, items, len * sizeof *bigger);
    } else {
        bigger = zrealloc(items, newcap * sizeof *bigger);
    }
    *cap = newcap;
    return bigger;
}

static void stackPush(nodeStack *s, raxNode *n) {
    if (s->len == s->cap) s->items = growNodeArray(s->items, s->inline_items, s->len, &s->cap);
    s->items[s->len++] = n;
}

static raxNode *stackPop(nodeStack *s) { return s->len ? s->items[--s->len] : NULL; }
static raxNode *stackTop(const nodeStack *s) { return s->len ? s->items[s->len - 1] : NULL; }

/* ---- the tree ------------------------------------------------------------ */

rax *raxNew(void) {
    size_t usable;
    rax *r = zmalloc_usable(sizeof *r, &usable);
    r->numele = 0;
    r->numnodes = 0;
    r->alloc_size = usable;
    r->head = nodeNewLeaf(r);
    return r;
}

uint64_t raxSize(const rax *r) { return r->numele; }
size_t raxAllocSize(const rax *r) { return r->alloc_size; }
uint64_t raxNodeCount(const rax *r) { return r->numnodes; }

/* Where the pointer to `child` is stored: the head field for the root, else
 * its slot in `parent`. */
static unsigned char *linkTo(rax *r, raxNode *parent, raxNode *child) {
    if (parent == NULL) return (unsigned char *)&r->head;
    uint32_t count = nodeChildCount(parent), i = 0;
    while (i < count && nodeChild(parent, i) != child) i++;
    libAssertMsg(i < count, "rax: node not found among its parent's children");
    return nodeChildSlot(parent, i);
}

/* Follows key from the root as far as the tree goes. Returns how many key
 * bytes were consumed; *stop is the node reached, *link where the pointer
 * to it is stored, *split how many bytes of *stop's run matched when *stop
 * is compressed (0 otherwise). With a path, pushes *stop's ancestors. */
static size_t treeWalk(rax *r, const unsigned char *key, size_t len, raxNode **stop,
                       unsigned char **link, uint32_t *split, nodeStack *path) {
    raxNode *h = r->head;
    unsigned char *slot = (unsigned char *)&r->head;
    size_t i = 0;
    uint32_t j = 0;
    while (nodeSize(h) > 0 && i < len) {
        const unsigned char *edges = nodeEdges(h);
        uint32_t idx = 0;
        if (nodeIsCompressed(h)) {
            uint32_t size = nodeSize(h);
            while (j < size && i < len && edges[j] == key[i]) { j++; i++; }
            if (j != size) break;
        } else {
            int found = nodeFindChild(h, key[i]);
            if (found < 0) break;
            idx = (uint32_t)found;
            i++;
        }
        if (path) stackPush(path, h);
        slot = nodeChildSlot(h, idx);
        h = nodeLoadPtr(slot);
        j = 0;
    }
    *stop = h;
    if (link) *link = slot;
    if (split) *split = j;
    return i;
}

/* The walk ended exactly at a node that stands for the key. */
static int walkEndsAtNode(size_t consumed, size_t len, raxNode *h, uint32_t split) {
    return consumed == len && (!nodeIsCompressed(h) || split == 0);
}

void *raxFind(const rax *r, const unsigned char *key, size_t len) {
    raxNode *h;
    uint32_t split;
    size_t i = treeWalk((rax *)r, key, len, &h, NULL, &split, NULL);
    if (!walkEndsAtNode(i, len, h, split) || !nodeIsKey(h)) return raxNotFound;
    return nodeValue(h);
}

/* Walks from the root always to the first child (last = 0) or to the last
 * child, stopping at the first key met going first, at the leaf going
 * last -- the smallest and the largest key. */
static int treeEdge(const rax *r, int last, unsigned char *key, size_t cap, size_t *len, void **value) {
    raxNode *h = r->head;
    size_t n = 0;
    for (;;) {
        uint32_t children = nodeChildCount(h);
        if (children == 0 || (!last && nodeIsKey(h))) break;
        uint32_t idx = last ? children - 1 : 0;
        const unsigned char *edges = nodeEdges(h) + (nodeIsCompressed(h) ? 0 : idx);
        uint32_t run = nodeRunLength(h);
        for (uint32_t i = 0; i < run; i++, n++)
            if (n < cap) key[n] = edges[i];
        h = nodeChild(h, idx);
    }
    if (!nodeIsKey(h)) return 0; /* only the empty tree's root */
    *len = n;
    *value = nodeValue(h);
    return 1;
}

int raxFirst(const rax *r, unsigned char *key, size_t cap, size_t *len, void **value) {
    return treeEdge(r, 0, key, cap, len, value);
}

int raxLast(const rax *r, unsigned char *key, size_t cap, size_t *len, void **value) {
    return treeEdge(r, 1, key, cap, len, value);
}

/* ---- insertion ----------------------------------------------------------- */

/* The key ends inside h's run, after `split` (> 0) bytes: h becomes the
 * prefix run, then a new key node holding the rest of the run. */
static void splitRunAtKeyEnd(rax *r, raxNode *h, unsigned char *link, uint32_t split, void *value) {
    unsigned char *edges = nodeEdges(h);
    raxNode *child = nodeChild(h, 0);
    raxNode *suffix = nodeNewRun(r, edges + split, nodeSize(h) - split, child, 1, value);
    raxNode *prefix = nodeNewRun(r, edges, split, suffix, nodeIsKey(h), nodeValue(h));
    treeFreeNode(r, h);
    nodeStorePtr(link, prefix);
}

/* The key leaves h's run at byte `split`: h becomes [prefix run ->] a plain
 * node with the run's byte at split as its one edge [-> the rest of the
 * run] -> h's child. Returns that plain node; *link is set to its slot. */
static raxNode *splitRunAtMismatch(rax *r, raxNode *h, unsigned char **link, uint32_t split) {
    unsigned char *edges = nodeEdges(h);
    uint32_t size = nodeSize(h), rest = size - split - 1;
    raxNode *next = nodeChild(h, 0);
    if (rest > 0) next = nodeNewRun(r, edges + split + 1, rest, next, 0, NULL);
    int branch_is_key = split == 0 && nodeIsKey(h);
    raxNode *branch = nodeNewRun(r, edges + split, 1, next, branch_is_key,
                                 branch_is_key ? nodeValue(h) : NULL);
    if (split > 0) {
        raxNode *prefix = nodeNewRun(r, edges, split, branch, nodeIsKey(h), nodeValue(h));
        nodeStorePtr(*link, prefix);
        *link = nodeChildSlot(prefix, 0);
    }
    nodeStorePtr(*link, branch);
    treeFreeNode(r, h);
    return branch;
}

/* The childless node that ends a run appended by appendTail: the key
 * itself (with its value slot from the start, not added by a realloc) when
 * it is the last, else an empty node the walk continues from. */
static raxNode *tailNode(rax *r, int last, void *value) {
    return last ? nodeNew(r, 0, 0, 1, value) : nodeNewLeaf(r);
}

/* Adds key[i..len) (i < len) below plain node h (linked at `link`), which
 * has no child for key[i]; the last node added is the key. */
static void appendTail(rax *r, raxNode *h, unsigned char *link, const unsigned char *key, size_t i,
                       size_t len, void *value) {
    libAssert(i < len);
    while (i < len) {
        uint32_t idx = 0;
        if (nodeSize(h) == 0 && len - i > 1) {
            size_t run = len - i < NODE_MAX_SIZE ? len - i : NODE_MAX_SIZE;
            raxNode *leaf = tailNode(r, i + run == len, value);
            raxNode *m = nodeNewRun(r, key + i, (uint32_t)run, leaf, nodeIsKey(h), nodeValue(h));
            treeFreeNode(r, h);
            h = m;
            i += run;
        } else {
            h = nodeAddChild(r, h, key[i], tailNode(r, i + 1 == len, value), &idx);
            i++;
        }
        nodeStorePtr(link, h);
        link = nodeChildSlot(h, idx);
        h = nodeLoadPtr(link);
    }
}

static int treeInsert(rax *r, const unsigned char *key, size_t len, void *value, void **old,
                      int overwrite) {
    raxNode *h;
    unsigned char *link;
    uint32_t split;
    size_t i = treeWalk(r, key, len, &h, &link, &split, NULL);
    if (walkEndsAtNode(i, len, h, split)) {
        if (nodeIsKey(h)) {
            if (old) *old = nodeValue(h);
            if (overwrite) nodeStorePtr(link, nodeSetKey(r, h, 1, value));
            return 0;
        }
        nodeStorePtr(link, nodeSetKey(r, h, 1, value));
    } else if (i == len) {
        splitRunAtKeyEnd(r, h, link, split, value);
    } else {
        if (nodeIsCompressed(h)) h = splitRunAtMismatch(r, h, &link, split);
        appendTail(r, h, link, key, i, len, value);
    }
    r->numele++;
    return 1;
}

int raxInsert(rax *r, const unsigned char *key, size_t len, void *value, void **old) {
    return treeInsert(r, key, len, value, old, 1);
}

int raxTryInsert(rax *r, const unsigned char *key, size_t len, void *value, void **old) {
    return treeInsert(r, key, len, value, old, 0);
}

/* ---- removal ------------------------------------------------------------- */


/* n has exactly one child and path holds its ancestors. If n sits in a
 * chain of single-child nodes of which only the first may be a key, the
 * chain becomes one run node (restoring the canonical shape). */
static void mergeRun(rax *r, raxNode *n, nodeStack *path) {
    while (!nodeIsKey(n) && path->len > 0 && nodeChildCount(stackTop(path)) == 1) n = stackPop(path);
    size_t total = 0, nodes = 0;
    raxNode *end = n;
    do {
        total += nodeRunLength(end);
        nodes++;
        end = nodeChild(end, 0);
    } while (!nodeIsKey(end) && nodeChildCount(end) == 1);
    if (nodes == 1 || total > NODE_MAX_SIZE) return;
    raxNode *merged = nodeNew(r, (uint32_t)total, 1, nodeIsKey(n), nodeValue(n));
    nodeStorePtr(nodeChildSlot(merged, 0), end);
    nodeStorePtr(linkTo(r, stackTop(path), n), merged);
    unsigned char *to = nodeEdges(merged);
    while (n != end) {
        raxNode *next = nodeChild(n, 0);
        memcpy(to, nodeEdges(n), nodeRunLength(n));
        to += nodeRunLength(n);
        treeFreeNode(r, n);
        n = next;
    }
}

/* h (no longer a key) has no children: frees it and every ancestor left
 * with nothing to hold, then mends the node where that stopped. */
static void pruneLeaf(rax *r, raxNode *h, nodeStack *path) {
    raxNode *parent = stackPop(path);
    while (!nodeIsKey(parent) && nodeChildCount(parent) == 1 && path->len > 0) {
        treeFreeNode(r, h);
        h = parent;
        parent = stackPop(path);
    }
    unsigned char *link = linkTo(r, stackTop(path), parent);
    raxNode *mended = nodeRemoveChild(r, parent, h);
    treeFreeNode(r, h);
    nodeStorePtr(link, mended);
    if (nodeChildCount(mended) == 1) mergeRun(r, mended, path);
}

int raxRemove(rax *r, const unsigned char *key, size_t len, void **old) {
    raxNode *h;
    unsigned char *link;
    uint32_t split;
    nodeStack path;
    stackInit(&path);
    size_t i = treeWalk(r, key, len, &h, &link, &split, &path);
    if (!walkEndsAtNode(i, len, h, split) || !nodeIsKey(h)) {
        stackRelease(&path);
        return 0;
    }
    if (old) *old = nodeValue(h);
    h = nodeSetKey(r, h, 0, NULL);
    nodeStorePtr(link, h);
    r->numele--;
    if (nodeChildCount(h) == 0 && path.len > 0) pruneLeaf(r, h, &path);
    else if (nodeChildCount(h) == 1) mergeRun(r, h, &path);
    stackRelease(&path);
    return 1;
}

/* ---- freeing ------------------------------------------------------------- */

/* Iterative, so a deep tree cannot overflow the C stack. */
static void treeFreeAll(rax *r, void (*free_value)(void *value)) {
    nodeStack pending;
    stackInit(&pending);
    stackPush(&pending, r->head);
    raxNode *n;
    while ((n = stackPop(&pending)) != NULL) {
        uint32_t count = nodeChildCount(n);
        for (uint32_t i = 0; i < count; i++) stackPush(&pending, nodeChild(n, i));
        if (free_value && nodeIsKey(n)) free_value(nodeValue(n));
        treeFreeNode(r, n);
    }
    stackRelease(&pending);
    zfree(r);
}

void raxFree(rax *r) { treeFreeAll(r, NULL); }
void raxFreeWithCallback(rax *r, void (*free_value)(void *value)) { treeFreeAll(r, free_value); }

/* ---- self-check ---------------------------------------------------------- */

/* Whether node n (not the root) breaks the canonical shape or its layout. */
static int nodeIsMalformed(raxNode *n, raxNode *parent) {
    const unsigned char *edges = nodeEdges(n);
    if (nodeIsCompressed(n) && nodeSize(n) < 2) return 1;
    if (!nodeIsCompressed(n))
        for (uint32_t i = 1; i < nodeSize(n); i++)
            if (edges[i - 1] >= edges[i]) return 1;
    if (zmalloc_size(n) < nodeBytes(n)) return 1;
    if (parent == NULL) return 0;
    if (nodeChildCount(n) == 0 && !nodeIsKey(n)) return 1;       /* a leaf is a key */
    return !nodeIsKey(n) && nodeChildCount(n) == 1 && nodeChildCount(parent) == 1 &&
           nodeRunLength(parent) + nodeRunLength(n) <= NODE_MAX_SIZE; /* an unmerged run */
}

int raxVerify(rax *r) {
    nodeStack nodes, parents;
    stackInit(&nodes);
    stackInit(&parents);
    stackPush(&nodes, r->head);
    stackPush(&parents, NULL);
    uint64_t keys = 0, count = 0;
    size_t bytes = zmalloc_size(r);
    int ok = 1;
    raxNode *n;
    while (ok && (n = stackPop(&nodes)) != NULL) {
        raxNode *parent = stackPop(&parents);
        ok = !nodeIsMalformed(n, parent);
        keys += nodeIsKey(n);
        count++;
        bytes += zmalloc_size(n);
        for (uint32_t i = 0; i < nodeChildCount(n); i++) {
            stackPush(&nodes, nodeChild(n, i));
            stackPush(&parents, n);
        }
    }
    stackRelease(&nodes);
    stackRelease(&parents);
    return ok && keys == r->numele && count == r->numnodes && bytes == r->alloc_size;
}

/* ---- the iterator -------------------------------------------------------- */

#define ITER_EOF 1
#define ITER_JUST_SEEKED 2

void raxStart(raxIterator *it, rax *r) {
    it->key = it->key_inline;
    it->key_len = 0;
    it->key_cap = sizeof it->key_inline;
    it->data = NULL;
    it->tree = r;
    it->node = NULL;
    it->flags = ITER_EOF;
    it->stack = it->stack_inline;
    it->stack_len = 0;
    it->stack_cap = sizeof it->stack_inline / sizeof it->stack_inline[0];
}

void raxStop(raxIterator *it) {
    if (it->key != it->key_inline) zfree(it->key);
    if (it->stack != it->stack_inline) zfree(it->stack);
    it->key = it->key_inline;
    it->stack = it->stack_inline;
}

static void iterAppendKey(raxIterator *it, const unsigned char *bytes, size_t n) {
    if (it->key_len + n > it->key_cap) {
        size_t cap = it->key_cap * 2;
        while (cap < it->key_len + n) cap *= 2;
        if (it->key == it->key_inline) {
            unsigned char *heap = zmalloc(cap);
            memcpy(heap, it->key, it->key_len);
            it->key = heap;
        } else {
            it->key = zrealloc(it->key, cap);
        }
        it->key_cap = cap;
    }
    memcpy(it->key + it->key_len, bytes, n);
    it->key_len += n;
}

/* Moves down to child idx of the current node. */
static void iterDescend(raxIterator *it, uint32_t idx) {
    raxNode *n = it->node;
    if (it->stack_len == it->stack_cap)
        it->stack = growNodeArray(it->stack, it->stack_inline, it->stack_len, &it->stack_cap);
    it->stack[it->stack_len++] = n;
    iterAppendKey(it, nodeEdges(n) + (nodeIsCompressed(n) ? 0 : idx), nodeRunLength(n));
    it->node = nodeChild(n, idx);
}

/* Moves up to the parent; returns 0 at the root. For a plain parent, the
 * edge byte just left stays readable at it->key[it->key_len]. */
static int iterAscend(raxIterator *it) {
    if (it->stack_len == 0) return 0;
    it->node = it->stack[--it->stack_len];
    it->key_len -= nodeRunLength(it->node);
    return 1;
}

/* Index in the current (plain) node of the child just ascended from. */
static uint32_t iterCameFrom(raxIterator *it) {
    int idx = nodeFindChild(it->node, it->key[it->key_len]);
    libAssert(idx >= 0);
    return (uint32_t)idx;
}

/* The first key at or below the current node. */
static int iterDescendFirst(raxIterator *it) {
    while (!nodeIsKey(it->node)) {
        if (nodeChildCount(it->node) == 0) return 0; /* the empty root */
        iterDescend(it, 0);
    }
    return 1;
}

/* The last key at or below the current node (the rightmost leaf). */
static int iterDescendLast(raxIterator *it) {
    while (nodeChildCount(it->node) > 0) iterDescend(it, nodeChildCount(it->node) - 1);
    return nodeIsKey(it->node);
}

/* The first key after the current node's whole subtree. */
static int iterUpNext(raxIterator *it) {
    while (iterAscend(it)) {
        if (nodeIsCompressed(it->node)) continue;
        uint32_t next = iterCameFrom(it) + 1;
        if (next < nodeSize(it->node)) {
            iterDescend(it, next);
            return iterDescendFirst(it);
        }
    }
    return 0;
}

/* The first key after the current node (its descendants first). */
static int iterStepForward(raxIterator *it) {
    if (nodeChildCount(it->node) > 0) {
        iterDescend(it, 0);
        return iterDescendFirst(it);
    }
    return iterUpNext(it);
}

/* The last key before the current node: under an earlier sibling, or an
 * ancestor. */
static int iterStepBack(raxIterator *it) {
    while (iterAscend(it)) {
        if (!nodeIsCompressed(it->node)) {
            uint32_t idx = iterCameFrom(it);
            if (idx > 0) {
                iterDescend(it, idx - 1);
                return iterDescendLast(it);
            }
        }
        if (nodeIsKey(it->node)) return 1;
    }
    return 0;
}

/* Where a seek's walk stopped, relative to the sought key k. */
enum seekStop {
    SEEK_AT_KEY,        /* the current node's path is k */
    SEEK_BELOW_GREATER, /* path < k; everything below the node is > k */
    SEEK_BELOW_SMALLER, /* path < k; everything below the node is < k */
    SEEK_AT_BRANCH      /* path < k; plain node, children before *pos are < k, the rest > k */
};

/* Walks k down from the root, filling the iterator's path. */
static enum seekStop iterWalk(raxIterator *it, const unsigned char *k, size_t len, uint32_t *pos) {
    size_t i = 0;
    for (;;) {
        raxNode *n = it->node;
        if (i == len) return SEEK_AT_KEY;
        const unsigned char *edges = nodeEdges(n);
        if (nodeIsCompressed(n)) {
            uint32_t size = nodeSize(n), j = 0;
            while (j < size && i + j < len && edges[j] == k[i + j]) j++;
            if (j < size) {
                if (i + j == len || edges[j] > k[i + j]) return SEEK_BELOW_GREATER;
                return SEEK_BELOW_SMALLER;
            }
            iterDescend(it, 0);
            i += size;
        } else {
            int idx = nodeFindChild(n, k[i]);
            if (idx < 0) {
                *pos = nodeFirstChildAbove(n, k[i]);
                return SEEK_AT_BRANCH;
            }
            iterDescend(it, (uint32_t)idx);
            i++;
        }
    }
}

/* After the walk: the smallest key > k, or >= k with `inclusive`. */
static int iterSettleForward(raxIterator *it, enum seekStop stop, uint32_t pos, int inclusive) {
    switch (stop) {
    case SEEK_AT_KEY:
        if (inclusive && nodeIsKey(it->node)) return 1;
        return iterStepForward(it);
    case SEEK_BELOW_GREATER: return iterStepForward(it);
    case SEEK_BELOW_SMALLER: return iterUpNext(it);
    case SEEK_AT_BRANCH:
        if (pos < nodeSize(it->node)) {
            iterDescend(it, pos);
            return iterDescendFirst(it);
        }
        return iterUpNext(it);
    }
    return 0;
}

/* After the walk: the largest key < k, or <= k with `inclusive`. */
static int iterSettleBack(raxIterator *it, enum seekStop stop, uint32_t pos, int inclusive) {
    switch (stop) {
    case SEEK_AT_KEY:
        if (inclusive && nodeIsKey(it->node)) return 1;
        return iterStepBack(it);
    case SEEK_BELOW_GREATER: break;
    case SEEK_BELOW_SMALLER: return iterDescendLast(it);
    case SEEK_AT_BRANCH:
        if (pos > 0) {
            iterDescend(it, pos - 1);
            return iterDescendLast(it);
        }
        break;
    }
    return nodeIsKey(it->node) ? 1 : iterStepBack(it);
}

static int iterSeekFound(raxIterator *it, const char *op, const unsigned char *key, size_t len) {
    if (op[0] == '^') return iterDescendFirst(it);
    if (op[0] == '$') return iterDescendLast(it);
    uint32_t pos = 0;
    enum seekStop stop = iterWalk(it, key, len, &pos);
    int inclusive = op[0] == '=' || op[1] == '=';
    if (op[0] == '=') return stop == SEEK_AT_KEY && nodeIsKey(it->node);
    if (op[0] == '>') return iterSettleForward(it, stop, pos, inclusive);
    return iterSettleBack(it, stop, pos, inclusive);
}

static int seekOpValid(const char *op) {
    if (op == NULL) return 0;
    switch (op[0]) {
    case '^': case '$': case '=': return op[1] == '\0';
    case '>': case '<': return op[1] == '\0' || (op[1] == '=' && op[2] == '\0');
    default: return 0;
    }
}

int raxSeek(raxIterator *it, const char *op, const unsigned char *key, size_t len) {
    if (!seekOpValid(op)) {
        errno = EINVAL;
        return 0;
    }
    it->stack_len = 0;
    it->key_len = 0;
    it->node = it->tree->head;
    if (iterSeekFound(it, op, key, len)) {
        it->flags = ITER_JUST_SEEKED;
        it->data = nodeValue(it->node);
    } else {
        it->flags = ITER_EOF;
    }
    return 1;
}

static int iterStep(raxIterator *it, int (*step)(raxIterator *it)) {
    if (it->flags & ITER_EOF) return 0;
    if (it->flags & ITER_JUST_SEEKED) {
        it->flags &= ~ITER_JUST_SEEKED;
        return 1;
    }
    if (!step(it)) {
        it->flags |= ITER_EOF;
        return 0;
    }
    it->data = nodeValue(it->node);
    return 1;
}

int raxNext(raxIterator *it) { return iterStep(it, iterStepForward); }
int raxPrev(raxIterator *it) { return iterStep(it, iterStepBack); }
int raxEOF(const raxIterator *it) { return (it->flags & ITER_EOF) != 0; }
