/* quicklist.c -- a doubly linked list of listpack nodes (see quicklist.h).
 *
 * Design decisions:
 *   - Node limits follow Redis 7.2's rules (quicklist.h): a packed node is
 *     bounded by bytes (negative fill) or by count plus an 8 KB safety limit
 *     (positive fill); an element over the limit gets a PLAIN node.
 *   - Every operation is written against a node "in use": nodeUse()
 *     decompresses a compressed node and flags it for recompression;
 *     nodeDone() compresses it again if it is an interior node. With
 *     compression off both are no-ops. settleEnds() keeps the `compress`
 *     nodes at each end raw and compresses the first interior node at each
 *     side after the ends changed.
 *   - Splitting happens only on inserts into a full node's middle; merging
 *     of neighbours is attempted after such a split and after range
 *     deletions, when the two would fit one node.
 *   - The compressor (section "compression") is a small LZ77 of our own:
 *     interior nodes are only compressed when that saves at least 1/8.
 *   - Element sizes and counts are size_t/long; nothing is trusted to fit in
 *     32 bits except what the listpack format itself bounds.
 */
#include "quicklist.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "listpack.h"
#include "libassert.h"
#include "portable.h"
#include "util.h"
#include "zmalloc.h"

#define SIZE_SAFETY_LIMIT 8192        /* bytes per node for fill >= 0 */
#define ENTRY_OVERHEAD_ESTIMATE 8     /* string header (5) + backlen (3) below 2 MB */
#define MIN_COMPRESS_BYTES 48         /* smaller nodes are not worth it */
#define MAX_PACKED_THRESHOLD ((1ULL << 32) - (1ULL << 20))
#define COMPRESS_DEPTH_MAX 65535

static const size_t neg_fill_limits[] = {4096, 8192, 16384, 32768, 65536};
static size_t packed_threshold = 0; /* 0: the node size limit decides */

/* ---- limits ------------------------------------------------------------ */

static size_t nodeByteLimit(int fill) {
    if (fill >= 0) return SIZE_SAFETY_LIMIT;
    int i = -fill - 1;
    if (i > 4) i = 4;
    return neg_fill_limits[i];
}

/* An element that must get a PLAIN node of its own. */
static int isLargeElement(const quicklist *ql, size_t sz) {
    if (packed_threshold) return sz > packed_threshold;
    return sz > nodeByteLimit(ql->fill);
}

/* A packed node of `bytes` bytes and `count` elements is within limits. A
 * single element always fits (it was not large). */
static int nodeFits(const quicklist *ql, size_t bytes, unsigned long count) {
    if (count <= 1) return 1;
    if (ql->fill < 0) return bytes <= nodeByteLimit(ql->fill);
    unsigned long max_count = ql->fill > 0 ? (unsigned long)ql->fill : 1;
    return count <= max_count && bytes <= SIZE_SAFETY_LIMIT;
}

int quicklistSetPackedThreshold(size_t sz) {
    if ((unsigned long long)sz > MAX_PACKED_THRESHOLD) return 0;
    packed_threshold = sz;
    return 1;
}

/* ---- compression ------------------------------------------------------------
 * Blob layout of a compressed node's `entry`: u32 compressed length (host
 * order) followed by the stream. The stream is a sequence of tokens:
 *   0lllllll                      literal run of l+1 bytes that follow;
 *   1lllllll oooooooo oooooooo    copy of l+4 bytes from `offset` (u16 LE,
 *                                 1-based) bytes back in the output.
 * Matches are found with a 4-byte hash table of recent positions. */

#define LZ_HASH_BITS 12
#define LZ_MIN_MATCH 4
#define LZ_MAX_MATCH (127 + LZ_MIN_MATCH)
#define LZ_MAX_LITERAL 128
#define LZ_MAX_OFFSET 65535

static uint32_t lzHash(const unsigned char *p) {
    uint32_t v = (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
    return (v * 2654435761u) >> (32 - LZ_HASH_BITS);
}

/* Appends literals [start, end) to out as runs; returns the new output
 * length, or SIZE_MAX if out_cap would be exceeded. */
static size_t lzEmitLiterals(const unsigned char *start, const unsigned char *end, unsigned char *out, size_t o,
                             size_t out_cap) {
    while (start < end) {
        size_t run = (size_t)(end - start);
        if (run > LZ_MAX_LITERAL) run = LZ_MAX_LITERAL;
        if (run + 1 > out_cap - o) return SIZE_MAX;
        out[o++] = (unsigned char)(run - 1);
        memcpy(out + o, start, run);
        o += run;
        start += run;
    }
    return o;
}

/* Compresses in[0..len) into out (capacity out_cap). Returns the output
 * length, or 0 if it does not fit. */
static size_t lzCompress(const unsigned char *in, size_t len, unsigned char *out, size_t out_cap) {
    size_t table[1 << LZ_HASH_BITS];
    for (size_t i = 0; i < (1 << LZ_HASH_BITS); i++) table[i] = SIZE_MAX;
    size_t i = 0, lit = 0, o = 0;
    while (i + LZ_MIN_MATCH <= len) {
        uint32_t h = lzHash(in + i);
        size_t cand = table[h];
        table[h] = i;
        if (cand == SIZE_MAX || i - cand > LZ_MAX_OFFSET || memcmp(in + cand, in + i, LZ_MIN_MATCH) != 0) {
            i++;
            continue;
        }
        size_t mlen = LZ_MIN_MATCH;
        while (mlen < LZ_MAX_MATCH && i + mlen < len && in[cand + mlen] == in[i + mlen]) mlen++;
        o = lzEmitLiterals(in + lit, in + i, out, o, out_cap);
        if (o == SIZE_MAX || 3 > out_cap - o) return 0;
        out[o++] = (unsigned char)(0x80 | (mlen - LZ_MIN_MATCH));
        store16le(out + o, (uint16_t)(i - cand));
        o += 2;
        i += mlen;
        lit = i;
    }
    o = lzEmitLiterals(in + lit, in + len, out, o, out_cap);
    return o == SIZE_MAX ? 0 : o;
}

/* Decompresses exactly raw_len bytes; returns 1 on success. */
static int lzDecompress(const unsigned char *in, size_t in_len, unsigned char *out, size_t raw_len) {
    size_t i = 0, o = 0;
    while (i < in_len) {
        unsigned char t = in[i++];
        if (!(t & 0x80)) {
            size_t run = (size_t)t + 1;
            if (run > in_len - i || run > raw_len - o) return 0;
            memcpy(out + o, in + i, run);
            i += run;
            o += run;
        } else {
            size_t mlen = (size_t)(t & 0x7F) + LZ_MIN_MATCH;
            if (in_len - i < 2) return 0;
            size_t off = load16le(in + i);
            i += 2;
            if (off == 0 || off > o || mlen > raw_len - o) return 0;
            for (size_t k = 0; k < mlen; k++, o++) out[o] = out[o - off]; /* may overlap */
        }
    }
    return o == raw_len;
}

/* Compresses a raw node in place if that saves at least 1/8. */
static void nodeCompress(quicklistNode *node) {
    node->recompress = 0;
    if (node->encoding != QUICKLIST_NODE_ENCODING_RAW || node->sz < MIN_COMPRESS_BYTES) return;
    size_t cap = node->sz - node->sz / 8;
    unsigned char *blob = zmalloc(4 + cap);
    size_t clen = lzCompress(node->entry, node->sz, blob + 4, cap);
    if (clen == 0) {
        zfree(blob);
        return;
    }
    store32(blob, (uint32_t)clen);
    blob = zrealloc(blob, 4 + clen);
    zfree(node->entry);
    node->entry = blob;
    node->encoding = QUICKLIST_NODE_ENCODING_LZF;
}

static size_t compressedBlobBytes(const unsigned char *blob) { return 4 + (size_t)load32(blob); }

/* The raw contents of a compressed node, into a new buffer. */
static unsigned char *nodeInflate(const quicklistNode *node) {
    unsigned char *raw = zmalloc(node->sz);
    int ok = lzDecompress(node->entry + 4, load32(node->entry), raw, node->sz);
    libAssertMsg(ok, "corrupt compressed node");
    return raw;
}

static void nodeDecompress(quicklistNode *node) {
    if (node->encoding != QUICKLIST_NODE_ENCODING_LZF) return;
    unsigned char *raw = nodeInflate(node);
    zfree(node->entry);
    node->entry = raw;
    node->encoding = QUICKLIST_NODE_ENCODING_RAW;
}

/* Makes the node's contents usable; remembers to compress it again. */
static void nodeUse(quicklistNode *node) {
    if (node->encoding == QUICKLIST_NODE_ENCODING_LZF) {
        nodeDecompress(node);
        node->recompress = 1;
    }
}

/* 1 if node is one of the `compress` nodes at either end. */
static int nodeInEndZone(const quicklist *ql, const quicklistNode *node) {
    const quicklistNode *f = ql->head, *b = ql->tail;
    for (unsigned int i = 0; i < ql->compress && (f || b); i++) {
        if (f == node || b == node) return 1;
        if (f) f = f->next;
        if (b) b = b->prev;
    }
    return 0;
}

/* Done with a node: compress it again if it is interior. */
static void nodeDone(quicklist *ql, quicklistNode *node) {
    if (!node) return;
    if (ql->compress == 0 || nodeInEndZone(ql, node)) {
        node->recompress = 0;
        return;
    }
    nodeCompress(node);
}

/* After the ends changed: the end zones raw, the first interior node at each
 * side compressed (the one that may have just left a zone). */
static void settleEnds(quicklist *ql) {
    if (ql->compress == 0) return;
    quicklistNode *f = ql->head, *b = ql->tail;
    for (unsigned int i = 0; i < ql->compress && f; i++, f = f->next) nodeDecompress(f);
    for (unsigned int i = 0; i < ql->compress && b; i++, b = b->prev) nodeDecompress(b);
    if (ql->len <= 2 * (unsigned long)ql->compress) return;
    if (f) nodeCompress(f);
    if (b) nodeCompress(b);
}

/* ---- nodes ------------------------------------------------------------------- */

static quicklistNode *nodeCreate(unsigned char *entry, size_t sz, unsigned int count, int container) {
    quicklistNode *node = zmalloc(sizeof *node);
    node->prev = node->next = NULL;
    node->entry = entry;
    node->sz = sz;
    node->count = count;
    node->encoding = QUICKLIST_NODE_ENCODING_RAW;
    node->container = (unsigned char)container;
    node->recompress = 0;
    return node;
}

static quicklistNode *nodeNewPlain(const void *value, size_t sz) {
    unsigned char *copy = zmalloc(sz ? sz : 1);
    if (sz) memcpy(copy, value, sz);
    return nodeCreate(copy, sz, 1, QUICKLIST_NODE_CONTAINER_PLAIN);
}

static quicklistNode *nodeNewPacked(unsigned char *lp) {
    return nodeCreate(lp, lpBytes(lp), (unsigned int)lpLength(lp), QUICKLIST_NODE_CONTAINER_PACKED);
}

/* A node for one element: PLAIN if it is large, otherwise a listpack. */
static quicklistNode *nodeNewForElement(const quicklist *ql, const void *value, size_t sz) {
    if (isLargeElement(ql, sz)) return nodeNewPlain(value, sz);
    return nodeNewPacked(lpAppend(lpNew(0), value, sz));
}

static void nodeFree(quicklistNode *node) {
    zfree(node->entry);
    zfree(node);
}

static int isPlain(const quicklistNode *node) { return node->container == QUICKLIST_NODE_CONTAINER_PLAIN; }

/* After the node's listpack changed: cache its size and count. */
static void nodeRefresh(quicklistNode *node) {
    node->sz = lpBytes(node->entry);
    node->count = (unsigned int)lpLength(node->entry);
}

/* Links n after `at` (at NULL: as the new head). */
static void linkAfter(quicklist *ql, quicklistNode *at, quicklistNode *n) {
    n->prev = at;
    n->next = at ? at->next : ql->head;
    if (n->next) n->next->prev = n;
    else ql->tail = n;
    if (at) at->next = n;
    else ql->head = n;
    ql->len++;
}

static void linkBefore(quicklist *ql, quicklistNode *at, quicklistNode *n) { linkAfter(ql, at ? at->prev : ql->tail, n); }

/* Unlinks and frees a node; the caller adjusts ql->count. */
static void unlinkNode(quicklist *ql, quicklistNode *node) {
    if (node->prev) node->prev->next = node->next;
    else ql->head = node->next;
    if (node->next) node->next->prev = node->prev;
    else ql->tail = node->prev;
    ql->len--;
    nodeFree(node);
}

/* 1 if a packed node can take one more element of sz bytes. */
static int nodeAllowsInsert(const quicklist *ql, const quicklistNode *node, size_t sz) {
    if (!node || isPlain(node) || isLargeElement(ql, sz)) return 0;
    return nodeFits(ql, node->sz + sz + ENTRY_OVERHEAD_ESTIMATE, (unsigned long)node->count + 1);
}

/* Merges b (a's successor) into a if both are packed and fit one node;
 * returns 1 if it did (b is freed). */
static int tryMerge(quicklist *ql, quicklistNode *a, quicklistNode *b) {
    if (!a || !b || isPlain(a) || isPlain(b)) return 0;
    if (!nodeFits(ql, a->sz + b->sz - LP_HDR_SIZE - 1, (unsigned long)a->count + b->count)) return 0;
    nodeUse(a);
    nodeUse(b);
    unsigned char *la = a->entry, *lb = b->entry;
    unsigned char *merged = lpMerge(&la, &lb);
    libAssertMsg(merged != NULL, "listpack merge failed");
    a->entry = merged;
    b->entry = NULL;
    nodeRefresh(a);
    unlinkNode(ql, b);
    nodeDone(ql, a);
    return 1;
}

/* Splits node before its element `at` (0 < at < count); the new node holds
 * [at, count) and is linked after node. Both are left in use (raw). */
static quicklistNode *splitNode(quicklist *ql, quicklistNode *node, unsigned long at) {
    nodeUse(node);
    unsigned char *tail_lp = lpDeleteRange(lpDup(node->entry), 0, at);
    node->entry = lpDeleteRange(node->entry, (long)at, node->count - at);
    nodeRefresh(node);
    quicklistNode *tail = nodeNewPacked(tail_lp);
    linkAfter(ql, node, tail);
    return tail;
}

/* ---- creation ---------------------------------------------------------------- */

void quicklistSetFill(quicklist *ql, int fill) {
    if (fill > QUICKLIST_FILL_MAX) fill = QUICKLIST_FILL_MAX;
    if (fill < QUICKLIST_FILL_MIN) fill = QUICKLIST_FILL_MIN;
    ql->fill = fill;
}

void quicklistSetCompressDepth(quicklist *ql, int depth) {
    if (depth < 0) depth = 0;
    if (depth > COMPRESS_DEPTH_MAX) depth = COMPRESS_DEPTH_MAX;
    ql->compress = (unsigned int)depth;
}

void quicklistSetOptions(quicklist *ql, int fill, int depth) {
    quicklistSetFill(ql, fill);
    quicklistSetCompressDepth(ql, depth);
}

quicklist *quicklistNew(int fill, int compress) {
    quicklist *ql = zmalloc(sizeof *ql);
    ql->head = ql->tail = NULL;
    ql->count = 0;
    ql->len = 0;
    quicklistSetOptions(ql, fill, compress);
    return ql;
}

quicklist *quicklistCreate(void) { return quicklistNew(-2, 0); }

void quicklistRelease(quicklist *ql) {
    if (!ql) return;
    quicklistNode *node = ql->head;
    while (node) {
        quicklistNode *next = node->next;
        nodeFree(node);
        node = next;
    }
    zfree(ql);
}

static unsigned char *copyBytes(const unsigned char *src, size_t n) {
    unsigned char *dst = zmalloc(n ? n : 1);
    if (n) memcpy(dst, src, n);
    return dst;
}

quicklist *quicklistDup(quicklist *orig) {
    quicklist *copy = quicklistNew(orig->fill, (int)orig->compress);
    for (quicklistNode *node = orig->head; node; node = node->next) {
        size_t bytes = node->encoding == QUICKLIST_NODE_ENCODING_LZF ? compressedBlobBytes(node->entry) : node->sz;
        quicklistNode *n = nodeCreate(copyBytes(node->entry, bytes), node->sz, node->count, node->container);
        n->encoding = node->encoding;
        linkAfter(copy, copy->tail, n);
    }
    copy->count = orig->count;
    return copy;
}

/* ---- size ---------------------------------------------------------------------- */

unsigned long quicklistCount(const quicklist *ql) { return ql->count; }
unsigned long quicklistNodeCount(const quicklist *ql) { return ql->len; }

size_t quicklistBytes(const quicklist *ql) {
    size_t total = sizeof *ql;
    for (const quicklistNode *n = ql->head; n; n = n->next) {
        total += sizeof *n;
        total += n->encoding == QUICKLIST_NODE_ENCODING_LZF ? compressedBlobBytes(n->entry) : n->sz;
    }
    return total;
}

int quicklistNodeIsPlain(const quicklistNode *node) { return isPlain(node); }
int quicklistNodeIsCompressed(const quicklistNode *node) { return node->encoding == QUICKLIST_NODE_ENCODING_LZF; }

/* ---- adding -------------------------------------------------------------------- */

void quicklistPush(quicklist *ql, const void *value, size_t sz, int where) {
    int at_head = where == QUICKLIST_HEAD;
    quicklistNode *edge = at_head ? ql->head : ql->tail;
    if (nodeAllowsInsert(ql, edge, sz)) {
        nodeUse(edge);
        edge->entry = at_head ? lpPrepend(edge->entry, value, sz) : lpAppend(edge->entry, value, sz);
        nodeRefresh(edge);
        nodeDone(ql, edge);
    } else {
        quicklistNode *node = nodeNewForElement(ql, value, sz);
        if (at_head) linkAfter(ql, NULL, node);
        else linkAfter(ql, ql->tail, node);
    }
    ql->count++;
    settleEnds(ql);
}

void quicklistPushHead(quicklist *ql, const void *value, size_t sz) { quicklistPush(ql, value, sz, QUICKLIST_HEAD); }
void quicklistPushTail(quicklist *ql, const void *value, size_t sz) { quicklistPush(ql, value, sz, QUICKLIST_TAIL); }

void quicklistAppendListpack(quicklist *ql, unsigned char *lp) {
    unsigned long n = lpLength(lp);
    if (n == 0) {
        lpFree(lp);
        return;
    }
    linkAfter(ql, ql->tail, nodeNewPacked(lp));
    ql->count += n;
    settleEnds(ql);
}

void quicklistAppendPlainNode(quicklist *ql, unsigned char *data, size_t sz) {
    linkAfter(ql, ql->tail, nodeCreate(data, sz, 1, QUICKLIST_NODE_CONTAINER_PLAIN));
    ql->count++;
    settleEnds(ql);
}

/* Links a new node for one element before or after `node`. */
static quicklistNode *linkNewElementNode(quicklist *ql, quicklistNode *node, int after, const void *value,
                                         size_t sz) {
    quicklistNode *n = nodeNewForElement(ql, value, sz);
    if (after) linkAfter(ql, node, n);
    else linkBefore(ql, node, n);
    return n;
}

/* Inserts value next to the element at offset `pos` (forward index) of
 * node: before it, or after it when `after`. */
static void insertAt(quicklist *ql, quicklistNode *node, unsigned long pos, int after, const void *value,
                     size_t sz) {
    unsigned long split_at = after ? pos + 1 : pos; /* elements before the new one, in node */
    int at_head = split_at == 0, at_tail = split_at == node->count;
    quicklistNode *touched = NULL;

    if (nodeAllowsInsert(ql, node, sz)) {
        nodeUse(node);
        unsigned char *p = lpSeek(node->entry, (long)pos);
        node->entry = lpInsertString(node->entry, value, sz, p, after ? LP_AFTER : LP_BEFORE, NULL);
        nodeRefresh(node);
        touched = node;
    } else if (at_tail && nodeAllowsInsert(ql, node->next, sz)) {
        nodeUse(node->next);
        node->next->entry = lpPrepend(node->next->entry, value, sz);
        nodeRefresh(node->next);
        touched = node->next;
    } else if (at_head && nodeAllowsInsert(ql, node->prev, sz)) {
        nodeUse(node->prev);
        node->prev->entry = lpAppend(node->prev->entry, value, sz);
        nodeRefresh(node->prev);
        touched = node->prev;
    } else if (at_head || at_tail) {
        touched = linkNewElementNode(ql, node, at_tail, value, sz);
    } else {
        /* Into the middle of a full packed node: split, then place. */
        quicklistNode *tail = splitNode(ql, node, split_at);
        quicklistNode *n = linkNewElementNode(ql, node, 1, value, sz);
        ql->count++;
        int tail_merged = tryMerge(ql, n, tail);
        int n_merged = tryMerge(ql, node, n);
        nodeDone(ql, node);
        if (!n_merged) nodeDone(ql, n);
        if (!tail_merged) nodeDone(ql, tail);
        settleEnds(ql);
        return;
    }
    ql->count++;
    if (touched) nodeDone(ql, touched);
    settleEnds(ql);
}

/* Forward index of the iterator's current element within its node. */
static unsigned long entryForwardOffset(const quicklistEntry *entry) {
    long off = entry->offset;
    return off >= 0 ? (unsigned long)off : (unsigned long)((long)entry->node->count + off);
}

void quicklistInsertBefore(quicklistIter *iter, quicklistEntry *entry, const void *value, size_t sz) {
    insertAt(iter->ql, entry->node, entryForwardOffset(entry), 0, value, sz);
    iter->current = NULL; /* the iterator is spent */
}

void quicklistInsertAfter(quicklistIter *iter, quicklistEntry *entry, const void *value, size_t sz) {
    insertAt(iter->ql, entry->node, entryForwardOffset(entry), 1, value, sz);
    iter->current = NULL;
}

/* ---- locating ------------------------------------------------------------------ */

/* Normalises idx (negative from the tail); 0 if out of range. */
static int normaliseIndex(const quicklist *ql, long long idx, unsigned long *out) {
    if (idx < 0) {
        if ((unsigned long long)-(idx + 1) >= ql->count) return 0;
        *out = ql->count - 1 - (unsigned long)-(idx + 1);
        return 1;
    }
    if ((unsigned long long)idx >= ql->count) return 0;
    *out = (unsigned long)idx;
    return 1;
}

/* The node holding the element at forward index idx (< count), and the
 * element's forward offset within it. */
static quicklistNode *locate(const quicklist *ql, unsigned long idx, unsigned long *offset) {
    quicklistNode *node;
    if (idx < ql->count / 2) {
        unsigned long seen = 0;
        for (node = ql->head; seen + node->count <= idx; node = node->next) seen += node->count;
        *offset = idx - seen;
    } else {
        unsigned long after = ql->count - 1 - idx; /* elements after idx */
        unsigned long seen = 0;
        for (node = ql->tail; seen + node->count <= after; node = node->prev) seen += node->count;
        *offset = node->count - 1 - (after - seen);
    }
    return node;
}

/* ---- iterating -------------------------------------------------------------------- */

quicklistIter *quicklistGetIterator(quicklist *ql, int direction) {
    quicklistIter *iter = zmalloc(sizeof *iter);
    iter->ql = ql;
    iter->direction = direction;
    iter->current = direction == AL_START_HEAD ? ql->head : ql->tail;
    iter->zi = NULL;
    iter->offset = direction == AL_START_HEAD ? 0 : -1;
    return iter;
}

quicklistIter *quicklistGetIteratorAtIdx(quicklist *ql, int direction, long long idx) {
    unsigned long index, offset;
    if (!normaliseIndex(ql, idx, &index)) return NULL;
    quicklistIter *iter = quicklistGetIterator(ql, direction);
    iter->current = locate(ql, index, &offset);
    iter->offset = direction == AL_START_HEAD ? (long)offset : (long)offset - (long)iter->current->count;
    return iter;
}

void quicklistSetDirection(quicklistIter *iter, int direction) { iter->direction = direction; }

/* Leaves the current node for the next one in the iterator's direction. */
static void iterAdvanceNode(quicklistIter *iter) {
    quicklistNode *node = iter->current;
    iter->current = iter->direction == AL_START_HEAD ? node->next : node->prev;
    if (node->recompress) nodeDone(iter->ql, node);
    iter->zi = NULL;
    iter->offset = iter->direction == AL_START_HEAD ? 0 : -1;
}

static void fillEntry(quicklistIter *iter, quicklistEntry *entry) {
    quicklistNode *node = iter->current;
    entry->ql = iter->ql;
    entry->node = node;
    entry->offset = (int)iter->offset;
    if (isPlain(node)) {
        entry->zi = NULL;
        entry->value = node->entry;
        entry->sz = node->sz;
        entry->longval = 0;
        return;
    }
    entry->zi = iter->zi;
    entry->value = (unsigned char *)lpGetValue(iter->zi, &entry->sz, &entry->longval);
}

int quicklistNext(quicklistIter *iter, quicklistEntry *entry) {
    while (iter->current) {
        quicklistNode *node = iter->current;
        nodeUse(node);
        int forward = iter->direction == AL_START_HEAD;
        if (isPlain(node)) {
            if (iter->zi == NULL) { /* its one element, not returned yet */
                iter->zi = node->entry;
                fillEntry(iter, entry);
                return 1;
            }
        } else if (iter->zi == NULL) {
            iter->zi = lpSeek(node->entry, iter->offset);
        } else {
            iter->zi = forward ? lpNext(node->entry, iter->zi) : lpPrev(node->entry, iter->zi);
            iter->offset += forward ? 1 : -1;
        }
        if (iter->zi && !isPlain(node)) {
            fillEntry(iter, entry);
            return 1;
        }
        iterAdvanceNode(iter);
    }
    return 0;
}

void quicklistReleaseIterator(quicklistIter *iter) {
    if (!iter) return;
    if (iter->current && iter->current->recompress) nodeDone(iter->ql, iter->current);
    zfree(iter);
}

/* ---- removing ------------------------------------------------------------------------ */

/* Deletes the element at zi of node (NULL for a plain node); returns 1 if
 * the node went away. */
static int deleteInNode(quicklist *ql, quicklistNode *node, unsigned char *zi) {
    ql->count--;
    if (isPlain(node) || node->count <= 1) {
        unlinkNode(ql, node);
        return 1;
    }
    node->entry = lpDelete(node->entry, zi, NULL);
    nodeRefresh(node);
    return 0;
}

void quicklistDelEntry(quicklistIter *iter, quicklistEntry *entry) {
    quicklistNode *node = entry->node, *prev = node->prev, *next = node->next;
    nodeUse(node);
    int gone = deleteInNode(iter->ql, node, entry->zi);
    iter->zi = NULL;
    if (gone) {
        /* Continue with the neighbour; the offset is that of a fresh node. */
        iter->current = iter->direction == AL_START_HEAD ? next : prev;
        iter->offset = iter->direction == AL_START_HEAD ? 0 : -1;
    }
    /* Otherwise the same offset now names the following element: forward,
     * the one after slid into place; backwards, negative offsets count from
     * the tail and are unchanged. quicklistNext() seeks it. */
    settleEnds(iter->ql);
}

int quicklistDelRange(quicklist *ql, long start, long count) {
    unsigned long first, offset;
    if (count <= 0 || !normaliseIndex(ql, start, &first)) return 0;
    unsigned long remaining = ql->count - first;
    if ((unsigned long)count < remaining) remaining = (unsigned long)count;

    quicklistNode *node = locate(ql, first, &offset);
    quicklistNode *before = node->prev; /* merge candidates afterwards */
    while (remaining > 0 && node) {
        quicklistNode *next = node->next;
        unsigned long in_node = node->count - offset;
        unsigned long del = in_node < remaining ? in_node : remaining;
        if (del == node->count) {
            unlinkNode(ql, node);
        } else {
            nodeUse(node);
            node->entry = lpDeleteRange(node->entry, (long)offset, del);
            nodeRefresh(node);
            nodeDone(ql, node);
        }
        ql->count -= del;
        remaining -= del;
        offset = 0;
        node = next;
    }
    /* At most two partially emptied nodes remain, now next to each other
     * after `before`: merge what fits. */
    quicklistNode *left = before ? before->next : ql->head;
    if (left) tryMerge(ql, left, left->next);
    if (before && before->next) tryMerge(ql, before, before->next);
    settleEnds(ql);
    return 1;
}

static unsigned char *copyValue(const unsigned char *value, size_t sz) { return copyBytes(value, sz); }

int quicklistPop(quicklist *ql, int where, unsigned char **data, size_t *sz, long long *sval) {
    quicklistNode *node = where == QUICKLIST_HEAD ? ql->head : ql->tail;
    if (!node) return 0;
    nodeUse(node);
    unsigned char *zi = NULL;
    if (isPlain(node)) {
        *data = copyValue(node->entry, node->sz);
        *sz = node->sz;
    } else {
        zi = lpSeek(node->entry, where == QUICKLIST_HEAD ? 0 : -1);
        size_t len = 0;
        long long v = 0;
        const unsigned char *s = lpGetValue(zi, &len, &v);
        *data = s ? copyValue(s, len) : NULL;
        if (s) *sz = len;
        else *sval = v;
    }
    if (!deleteInNode(ql, node, zi)) nodeDone(ql, node);
    settleEnds(ql);
    return 1;
}

void quicklistRotate(quicklist *ql) {
    if (ql->count <= 1) return;
    unsigned char *data = NULL;
    size_t sz = 0;
    long long v = 0;
    quicklistPop(ql, QUICKLIST_TAIL, &data, &sz, &v);
    if (data) {
        quicklistPushHead(ql, data, sz);
        zfree(data);
    } else {
        char buf[LP_INTBUF_SIZE];
        int len = ll2string(buf, sizeof buf, v);
        quicklistPushHead(ql, buf, (size_t)len);
    }
}

/* ---- replacing --------------------------------------------------------------------- */

/* Replace in place when the node stays within limits. */
static int replaceInPlace(quicklist *ql, quicklistEntry *entry, const void *value, size_t sz) {
    quicklistNode *node = entry->node;
    if (isPlain(node)) {
        if (!isLargeElement(ql, sz)) return 0;
        zfree(node->entry);
        node->entry = copyValue(value, sz);
        node->sz = sz;
        return 1;
    }
    if (isLargeElement(ql, sz)) return 0;
    if (!nodeFits(ql, node->sz + sz + ENTRY_OVERHEAD_ESTIMATE, node->count) && node->count > 1) return 0;
    unsigned char *p = entry->zi;
    node->entry = lpReplace(node->entry, &p, value, sz);
    nodeRefresh(node);
    return 1;
}

void quicklistReplaceEntry(quicklistIter *iter, quicklistEntry *entry, const void *value, size_t sz) {
    quicklist *ql = iter->ql;
    quicklistNode *node = entry->node;
    nodeUse(node);
    iter->current = NULL; /* the iterator is spent */
    if (replaceInPlace(ql, entry, value, sz)) {
        nodeDone(ql, node);
        settleEnds(ql);
        return;
    }
    /* Insert the new value after the old one, then delete the old one. The
     * old element is located again by index, as the insert may split. */
    unsigned long pos = entryForwardOffset(entry), index = pos;
    for (quicklistNode *n = node->prev; n; n = n->prev) index += n->count;
    nodeDone(ql, node);
    insertAt(ql, node, pos, 1, value, sz);
    quicklistDelRange(ql, (long)index, 1);
}

int quicklistReplaceAtIndex(quicklist *ql, long index, const void *value, size_t sz) {
    quicklistIter *iter = quicklistGetIteratorAtIdx(ql, AL_START_HEAD, index);
    quicklistEntry entry;
    if (!iter) return 0;
    int found = quicklistNext(iter, &entry);
    if (found) quicklistReplaceEntry(iter, &entry, value, sz);
    quicklistReleaseIterator(iter);
    return found;
}

/* ---- reading ------------------------------------------------------------------------ */

int quicklistIndex(quicklist *ql, long long idx, quicklistEntry *entry) {
    quicklistIter *iter = quicklistGetIteratorAtIdx(ql, AL_START_HEAD, idx);
    if (!iter) return 0;
    int found = quicklistNext(iter, entry);
    /* Keep the node raw so the entry stays readable: it is compressed
     * again the next time an operation finishes with it. */
    zfree(iter);
    return found;
}

int quicklistCompare(const quicklistEntry *entry, const unsigned char *s, size_t len) {
    if (isPlain(entry->node) || entry->value) {
        return entry->sz == len && (len == 0 || memcmp(entry->value, s, len) == 0);
    }
    long long v;
    return len < LP_INTBUF_SIZE && string2ll((const char *)s, len, &v) && v == entry->longval;
}

/* ---- nodes -------------------------------------------------------------------------- */

int quicklistVisitNodes(quicklist *ql, quicklistNodeVisitor *fn, void *userdata) {
    for (quicklistNode *node = ql->head; node; node = node->next) {
        int go_on;
        if (node->encoding == QUICKLIST_NODE_ENCODING_LZF) {
            unsigned char *raw = nodeInflate(node);
            go_on = fn(raw, node->sz, node->container, userdata);
            zfree(raw);
        } else {
            go_on = fn(node->entry, node->sz, node->container, userdata);
        }
        if (!go_on) return 0;
    }
    return 1;
}
