/* test_rax.c -- the radix tree (src/lib/rax.c).
 *
 * Every test checks the tree with raxVerify() (canonical shape, sorted
 * edges, counters that match the nodes) besides what it is about. The core
 * is a randomized run against a reference model -- a sorted array of
 * (key, value) pairs -- with a fixed seed: insert, replace, try-insert,
 * remove and find, then full walks in both directions and random seeks with
 * every op, each answer compared with the model's. Keys are built so that
 * they share prefixes (a small alphabet, long common stems), include 0x00
 * and 0xff bytes, the empty key and keys of a few KB, which exercises run
 * splitting and merging, the iterator's inline and heap key buffers and its
 * path stack, and raxFirst/raxLast. Other tests cover node counts (Redis's
 * figures for the same keys), NULL values, FreeWithCallback, stream-ID
 * keys and that memory after removals equals a tree built without them.
 *
 * Sizes scale with TEST_SCALE (test_scaled), so QEMU runs can shrink them.
 */
#include <errno.h>
#include <stdint.h>

#include "portable.h"
#include "rax.h"
#include "test.h"
#include "zmalloc.h"

/* ---- the model: sorted (key, value) pairs -------------------------------- */

typedef struct entry {
    unsigned char *key;
    size_t len;
    void *value;
} entry;

typedef struct kvModel {
    entry *e;
    size_t n, cap;
} kvModel;

static int keyCompare(const unsigned char *a, size_t alen, const unsigned char *b, size_t blen) {
    size_t min = alen < blen ? alen : blen;
    int c = min ? memcmp(a, b, min) : 0;
    if (c) return c;
    return alen < blen ? -1 : alen > blen ? 1 : 0;
}

/* Index of the first entry >= key (strict = 0) or > key (strict = 1). */
static size_t modelBound(const kvModel *m, const unsigned char *key, size_t len, int strict) {
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = keyCompare(m->e[mid].key, m->e[mid].len, key, len);
        if (c < 0 || (strict && c == 0)) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static long modelFind(const kvModel *m, const unsigned char *key, size_t len) {
    size_t i = modelBound(m, key, len, 0);
    return i < m->n && keyCompare(m->e[i].key, m->e[i].len, key, len) == 0 ? (long)i : -1;
}

/* Returns 1 if inserted, 0 if the key existed (value replaced if overwrite). */
static int modelInsert(kvModel *m, const unsigned char *key, size_t len, void *value, int overwrite) {
    long at = modelFind(m, key, len);
    if (at >= 0) {
        if (overwrite) m->e[at].value = value;
        return 0;
    }
    size_t i = modelBound(m, key, len, 0);
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 64;
        m->e = realloc(m->e, m->cap * sizeof *m->e);
    }
    memmove(m->e + i + 1, m->e + i, (m->n - i) * sizeof *m->e);
    m->e[i].key = malloc(len ? len : 1);
    if (len) memcpy(m->e[i].key, key, len);
    m->e[i].len = len;
    m->e[i].value = value;
    m->n++;
    return 1;
}

static int modelRemove(kvModel *m, const unsigned char *key, size_t len) {
    long at = modelFind(m, key, len);
    if (at < 0) return 0;
    free(m->e[at].key);
    memmove(m->e + at, m->e + at + 1, (m->n - (size_t)at - 1) * sizeof *m->e);
    m->n--;
    return 1;
}

static void modelFree(kvModel *m) {
    for (size_t i = 0; i < m->n; i++) free(m->e[i].key);
    free(m->e);
    memset(m, 0, sizeof *m);
}

/* ---- helpers ------------------------------------------------------------- */

#define S(str) (const unsigned char *)(str), strlen(str)

static void *tag(uintptr_t i) { return (void *)(i * 16 + 8); }

static int iterAt(const raxIterator *it, const entry *e) {
    return it->key_len == e->len && keyCompare(it->key, it->key_len, e->key, e->len) == 0 &&
           it->data == e->value;
}

/* Walks the whole tree both ways and compares with the model. */
static void checkFullWalks(rax *r, const kvModel *m) {
    raxIterator it;
    raxStart(&it, r);
    raxSeek(&it, "^", NULL, 0);
    size_t i = 0, bad = 0;
    while (raxNext(&it)) {
        if (i >= m->n || !iterAt(&it, &m->e[i])) bad++;
        i++;
    }
    CHECK_EQ_INT(i, m->n);
    CHECK(raxEOF(&it));
    CHECK_EQ_INT(bad, 0);
    raxSeek(&it, "$", NULL, 0);
    i = m->n;
    bad = 0;
    while (raxPrev(&it)) {
        if (i == 0 || !iterAt(&it, &m->e[i - 1])) bad++;
        i--;
    }
    CHECK_EQ_INT(i, 0);
    CHECK_EQ_INT(bad, 0);
    raxStop(&it);
}

/* Index the model says a seek with op on key lands on, or -1 for none. */
static long modelSeek(const kvModel *m, const char *op, const unsigned char *key, size_t len) {
    long n = (long)m->n;
    if (strcmp(op, "^") == 0) return n ? 0 : -1;
    if (strcmp(op, "$") == 0) return n - 1;
    if (strcmp(op, "=") == 0) return modelFind(m, key, len);
    if (strcmp(op, ">=") == 0) { long i = (long)modelBound(m, key, len, 0); return i < n ? i : -1; }
    if (strcmp(op, ">") == 0) { long i = (long)modelBound(m, key, len, 1); return i < n ? i : -1; }
    if (strcmp(op, "<=") == 0) return (long)modelBound(m, key, len, 1) - 1;
    return (long)modelBound(m, key, len, 0) - 1; /* "<" */
}

static const char *const seekOps[] = {"^", "$", "=", ">=", ">", "<=", "<"};

/* Seeks with op and checks the landing element, then up to `steps`
 * elements in a direction chosen by the caller, and a direction switch. */
static int seekMatches(rax *r, const kvModel *m, const char *op, const unsigned char *key, size_t len,
                       int forward, int steps) {
    raxIterator it;
    raxStart(&it, r);
    raxSeek(&it, op, key, len);
    long at = modelSeek(m, op, key, len);
    int ok = 1;
    int got = forward ? raxNext(&it) : raxPrev(&it);
    if (at < 0) {
        ok = !got && raxEOF(&it) && !raxNext(&it) && !raxPrev(&it);
    } else {
        ok = got && iterAt(&it, &m->e[at]);
        long i = at;
        for (int s = 0; ok && s < steps; s++) {
            i += forward ? 1 : -1;
            got = forward ? raxNext(&it) : raxPrev(&it);
            if (i < 0 || i >= (long)m->n) { ok = !got; break; }
            ok = got && iterAt(&it, &m->e[i]);
        }
        if (ok && !raxEOF(&it) && i > 0 && i < (long)m->n - 1) { /* switch direction */
            got = forward ? raxPrev(&it) : raxNext(&it);
            ok = got && iterAt(&it, &m->e[i + (forward ? -1 : 1)]);
        }
    }
    raxStop(&it);
    return ok;
}

/* ---- key generators ------------------------------------------------------ */

/* Keys drawn from a few shapes so that they collide and share prefixes:
 * short keys over a 3-letter alphabet with 0x00/0xff, keys on long common
 * stems, and now and then a long one (up to ~3 KB). */
static size_t randomKey(unsigned char *buf, size_t max) {
    static const unsigned char alphabet[] = {0x00, 'a', 'b', 0xff};
    uint64_t shape = test_rand() % 16;
    size_t len;
    if (shape < 9) {
        len = test_rand() % 9;
        for (size_t i = 0; i < len; i++) buf[i] = alphabet[test_rand() % 4];
    } else if (shape < 14) {
        size_t stem = 40 + (test_rand() % 3) * 23;
        memset(buf, 'x', stem);
        len = stem + test_rand() % 6;
        for (size_t i = stem; i < len; i++) buf[i] = alphabet[test_rand() % 4];
        if (test_rand() % 4 == 0) len = test_rand() % (stem + 1); /* a prefix of the stem */
    } else {
        len = 200 + test_rand() % (max - 200);
        memset(buf, 'L', len);
        buf[len - 1 - test_rand() % 3] = alphabet[test_rand() % 4];
        len -= test_rand() % 2;
    }
    return len;
}

/* raxFirst/raxLast agree with the model's first and last pairs. */
static void checkEdges(rax *r, kvModel *m) {
    static unsigned char key[4096];
    size_t len;
    void *value;
    CHECK_EQ_INT(raxFirst(r, key, sizeof key, &len, &value), m->n > 0);
    CHECK_EQ_INT(raxLast(r, key, sizeof key, &len, &value), m->n > 0);
    if (m->n == 0) return;
    entry *first = &m->e[0], *last = &m->e[m->n - 1];
    raxFirst(r, key, sizeof key, &len, &value);
    CHECK(len == first->len && value == first->value && keyCompare(key, len, first->key, first->len) == 0);
    raxLast(r, key, sizeof key, &len, &value);
    CHECK(len == last->len && value == last->value && keyCompare(key, len, last->key, last->len) == 0);
}

/* ---- tests --------------------------------------------------------------- */

static void test_empty_tree(void) {
    rax *r = raxNew();
    size_t empty = raxAllocSize(r);
    CHECK(empty > 0);
    CHECK_EQ_INT(raxSize(r), 0);
    CHECK(raxFind(r, S("")) == raxNotFound);
    CHECK(raxFind(r, S("a")) == raxNotFound);
    CHECK_EQ_INT(raxRemove(r, S(""), NULL), 0);
    CHECK_EQ_INT(raxRemove(r, S("abc"), NULL), 0);
    for (size_t i = 0; i < sizeof seekOps / sizeof seekOps[0]; i++) {
        raxIterator it;
        raxStart(&it, r);
        CHECK_EQ_INT(raxSeek(&it, seekOps[i], S("k")), 1);
        CHECK(raxEOF(&it));
        CHECK_EQ_INT(raxNext(&it), 0);
        CHECK_EQ_INT(raxPrev(&it), 0);
        raxStop(&it);
    }
    CHECK(raxVerify(r));
    CHECK_EQ_INT(raxAllocSize(r), empty);
    raxFree(r);
}

static void test_insert_find_remove(void) {
    rax *r = raxNew();
    void *old = tag(99);
    CHECK_EQ_INT(raxInsert(r, S("hello"), tag(1), &old), 1);
    CHECK(old == tag(99)); /* untouched on a new key */
    CHECK_EQ_INT(raxInsert(r, S("hello"), tag(2), &old), 0);
    CHECK(old == tag(1));
    CHECK(raxFind(r, S("hello")) == tag(2));
    CHECK_EQ_INT(raxTryInsert(r, S("hello"), tag(3), &old), 0);
    CHECK(old == tag(2));
    CHECK(raxFind(r, S("hello")) == tag(2));
    CHECK_EQ_INT(raxTryInsert(r, S("help"), tag(4), NULL), 1);
    CHECK_EQ_INT(raxInsert(r, S("he"), NULL, NULL), 1);
    CHECK(raxFind(r, S("he")) == NULL);
    CHECK(raxFind(r, S("h")) == raxNotFound);
    CHECK(raxFind(r, S("hell")) == raxNotFound);
    CHECK(raxFind(r, S("helloo")) == raxNotFound);
    CHECK_EQ_INT(raxInsert(r, S(""), tag(5), NULL), 1);
    CHECK(raxFind(r, S("")) == tag(5));
    CHECK_EQ_INT(raxSize(r), 4);
    CHECK(raxVerify(r));
    CHECK_EQ_INT(raxRemove(r, S("hell"), &old), 0);
    CHECK_EQ_INT(raxRemove(r, S("he"), &old), 1);
    CHECK(old == NULL);
    CHECK_EQ_INT(raxRemove(r, S("hello"), &old), 1);
    CHECK(old == tag(2));
    CHECK_EQ_INT(raxRemove(r, S("hello"), &old), 0);
    CHECK_EQ_INT(raxSize(r), 2);
    CHECK(raxVerify(r));
    CHECK(raxFind(r, S("help")) == tag(4));
    raxFree(r);
}

static void test_null_values(void) {
    rax *r = raxNew();
    void *old = tag(7);
    CHECK_EQ_INT(raxInsert(r, S("a"), NULL, NULL), 1);
    CHECK_EQ_INT(raxInsert(r, S("a"), tag(1), &old), 0);
    CHECK(old == NULL);
    CHECK_EQ_INT(raxInsert(r, S("a"), NULL, &old), 0); /* value slot dropped again */
    CHECK(old == tag(1));
    CHECK(raxFind(r, S("a")) == NULL);
    CHECK_EQ_INT(raxTryInsert(r, S("a"), tag(2), &old), 0);
    CHECK(old == NULL);
    raxIterator it;
    raxStart(&it, r);
    raxSeek(&it, "=", S("a"));
    CHECK_EQ_INT(raxNext(&it), 1);
    CHECK(it.data == NULL);
    raxStop(&it);
    CHECK(raxVerify(r));
    raxFree(r);
}

/* Builds the same set in many orders: the canonical shape means the same
 * bytes every time, and removing extra keys returns there too. */
static void test_alloc_size_is_canonical(void) {
    static const char *keys[] = {"", "a", "ab", "abc", "abcdefgh", "abcdxyz", "abd", "b",
                                 "ba", "bab", "romane", "romanus", "romulus", "rubens",
                                 "ruber", "rubicon", "rubicundus", "x", "xyzzy"};
    size_t nkeys = sizeof keys / sizeof keys[0];
    rax *ref = raxNew();
    for (size_t i = 0; i < nkeys; i++) raxInsert(ref, S(keys[i]), tag(i), NULL);
    size_t full = raxAllocSize(ref);
    CHECK(raxVerify(ref));
    for (int round = 0; round < 50; round++) {
        size_t order[32];
        for (size_t i = 0; i < nkeys; i++) order[i] = i;
        for (size_t i = nkeys - 1; i > 0; i--) {
            size_t j = test_rand() % (i + 1), t = order[i];
            order[i] = order[j];
            order[j] = t;
        }
        rax *r = raxNew();
        size_t empty = raxAllocSize(r);
        for (size_t i = 0; i < nkeys; i++) raxInsert(r, S(keys[order[i]]), tag(order[i]), NULL);
        CHECK_EQ_INT(raxAllocSize(r), full);
        /* remove a random half, compare with a tree built from the other half */
        rax *half = raxNew();
        for (size_t i = 0; i < nkeys; i++) {
            if (i % 2) CHECK_EQ_INT(raxRemove(r, S(keys[order[i]]), NULL), 1);
            else raxInsert(half, S(keys[order[i]]), tag(order[i]), NULL);
        }
        CHECK(raxVerify(r));
        CHECK_EQ_INT(raxAllocSize(r), raxAllocSize(half));
        for (size_t i = 0; i < nkeys; i += 2) CHECK_EQ_INT(raxRemove(r, S(keys[order[i]]), NULL), 1);
        CHECK_EQ_INT(raxSize(r), 0);
        CHECK_EQ_INT(raxAllocSize(r), empty);
        CHECK(raxVerify(r));
        raxFree(r);
        raxFree(half);
    }
    raxFree(ref);
}

/* Keys of every length 0..64 on one stem (each a prefix of the next), and
 * the same with a branch at every length: deep paths and many splits. */
static void test_every_length(void) {
    unsigned char buf[80];
    memset(buf, 'k', sizeof buf);
    kvModel m = {0};
    rax *r = raxNew();
    size_t empty = raxAllocSize(r);
    for (size_t len = 0; len <= 64; len += 2) {
        raxInsert(r, buf, len, tag(len), NULL);
        modelInsert(&m, buf, len, tag(len), 1);
    }
    for (size_t len = 1; len <= 64; len += 2) { /* the odd lengths split the runs */
        raxInsert(r, buf, len, tag(len), NULL);
        modelInsert(&m, buf, len, tag(len), 1);
    }
    for (size_t len = 1; len <= 64; len++) { /* a branch off every level */
        unsigned char b[80];
        memcpy(b, buf, len);
        b[len - 1] = (unsigned char)(len % 2 ? 0x00 : 0xff);
        raxInsert(r, b, len, tag(100 + len), NULL);
        modelInsert(&m, b, len, tag(100 + len), 1);
    }
    CHECK_EQ_INT(raxSize(r), m.n);
    CHECK(raxVerify(r));
    checkFullWalks(r, &m);
    for (size_t len = 0; len <= 64; len++) CHECK(raxFind(r, buf, len) == tag(len));
    CHECK(raxFind(r, buf, 65) == raxNotFound);
    for (size_t len = 0; len <= 65; len++)
        for (size_t o = 0; o < sizeof seekOps / sizeof seekOps[0]; o++)
            CHECK(seekMatches(r, &m, seekOps[o], buf, len, len % 2, 3));
    /* remove the stem keys from the longest down, then the branches */
    for (size_t len = 65; len-- > 0;) {
        CHECK_EQ_INT(raxRemove(r, buf, len, NULL), 1);
        modelRemove(&m, buf, len);
        if (len % 8 == 0) { CHECK(raxVerify(r)); checkFullWalks(r, &m); }
    }
    while (m.n) {
        CHECK_EQ_INT(raxRemove(r, m.e[0].key, m.e[0].len, NULL), 1);
        modelRemove(&m, m.e[0].key, m.e[0].len);
    }
    CHECK_EQ_INT(raxSize(r), 0);
    CHECK_EQ_INT(raxAllocSize(r), empty);
    CHECK(raxVerify(r));
    modelFree(&m);
    raxFree(r);
}

/* Every single-byte key and pairs around 0x00 and 0xff. */
static void test_binary_keys(void) {
    kvModel m = {0};
    rax *r = raxNew();
    for (int c = 255; c >= 0; c--) {
        unsigned char k[3] = {(unsigned char)c, 0x00, 0xff};
        raxInsert(r, k, 1, tag((uintptr_t)c), NULL);
        modelInsert(&m, k, 1, tag((uintptr_t)c), 1);
        if (c == 0 || c == 255 || c == 128) {
            for (size_t len = 2; len <= 3; len++) {
                raxInsert(r, k, len, tag(1000 + len), NULL);
                modelInsert(&m, k, len, tag(1000 + len), 1);
            }
        }
    }
    unsigned char zeros[8] = {0}, ones[8];
    memset(ones, 0xff, sizeof ones);
    raxInsert(r, zeros, sizeof zeros, tag(5000), NULL);
    modelInsert(&m, zeros, sizeof zeros, tag(5000), 1);
    raxInsert(r, ones, sizeof ones, tag(5001), NULL);
    modelInsert(&m, ones, sizeof ones, tag(5001), 1);
    CHECK(raxVerify(r));
    checkFullWalks(r, &m);
    for (size_t len = 0; len <= 8; len++)
        for (size_t o = 0; o < sizeof seekOps / sizeof seekOps[0]; o++) {
            CHECK(seekMatches(r, &m, seekOps[o], zeros, len, 1, 2));
            CHECK(seekMatches(r, &m, seekOps[o], ones, len, 0, 2));
        }
    modelFree(&m);
    raxFree(r);
}

/* Keys of a few KB sharing long stems: compressed runs split deep inside,
 * and iterator keys far beyond the inline buffer. Also a path deeper than
 * the iterator's inline stack (a branch at each of 200 levels). */
static void test_long_keys(void) {
    size_t sizes[] = {128, 129, 1000, 2047, 2048, 4000};
    size_t nsizes = sizeof sizes / sizeof sizes[0];
    static unsigned char buf[4200];
    kvModel m = {0};
    rax *r = raxNew();
    size_t empty = raxAllocSize(r);
    for (size_t i = 0; i < nsizes; i++) {
        for (int variant = 0; variant < 3; variant++) {
            memset(buf, 'p', sizes[i]);
            if (variant) buf[sizes[i] / 2 + (size_t)variant] = (unsigned char)(variant == 1 ? 0x00 : 0xff);
            raxInsert(r, buf, sizes[i], tag(i * 3 + (size_t)variant), NULL);
            modelInsert(&m, buf, sizes[i], tag(i * 3 + (size_t)variant), 1);
        }
    }
    memset(buf, 'p', sizeof buf);
    for (size_t depth = 0; depth < 200; depth++) {
        unsigned char k[201];
        memset(k, 'p', depth);
        k[depth] = 'q';
        raxInsert(r, k, depth + 1, tag(10000 + depth), NULL);
        modelInsert(&m, k, depth + 1, tag(10000 + depth), 1);
    }
    CHECK(raxVerify(r));
    checkFullWalks(r, &m);
    for (size_t i = 0; i < nsizes; i++)
        for (size_t o = 0; o < sizeof seekOps / sizeof seekOps[0]; o++) {
            CHECK(seekMatches(r, &m, seekOps[o], buf, sizes[i], 1, 3));
            CHECK(seekMatches(r, &m, seekOps[o], buf, sizes[i] + 1, 0, 3));
            CHECK(seekMatches(r, &m, seekOps[o], buf, sizes[i] - 1, 1, 3));
        }
    while (m.n) {
        size_t at = test_rand() % m.n;
        CHECK_EQ_INT(raxRemove(r, m.e[at].key, m.e[at].len, NULL), 1);
        modelRemove(&m, m.e[at].key, m.e[at].len);
    }
    CHECK_EQ_INT(raxAllocSize(r), empty);
    CHECK(raxVerify(r));
    modelFree(&m);
    raxFree(r);
}

/* 16-byte big-endian (ms, seq) keys, as streams use them: "<=" on an ID
 * between two keys finds the lower one. */
static void test_stream_ids(void) {
    rax *r = raxNew();
    kvModel m = {0};
    unsigned char id[16];
    unsigned long n = test_scaled(2000);
    uint64_t ms = 1700000000000ULL;
    for (unsigned long i = 0; i < n; i++) {
        ms += test_rand() % 3;
        store64be(id, ms);
        store64be(id + 8, (i * 7) % 5);
        raxInsert(r, id, sizeof id, tag(i), NULL);
        modelInsert(&m, id, sizeof id, tag(i), 1);
    }
    CHECK(raxVerify(r));
    checkFullWalks(r, &m);
    int bad = 0;
    for (int probe = 0; probe < 2000; probe++) {
        store64be(id, 1700000000000ULL + test_rand() % (ms - 1700000000000ULL + 2));
        store64be(id + 8, test_rand() % 8);
        const char *op = seekOps[2 + test_rand() % 5];
        bad += !seekMatches(r, &m, op, id, sizeof id, test_rand() % 2, 2);
    }
    CHECK_EQ_INT(bad, 0);
    /* a "<=" seek on the maximal ID finds the last key */
    raxIterator it;
    raxStart(&it, r);
    memset(id, 0xff, sizeof id);
    raxSeek(&it, "<=", id, sizeof id);
    CHECK_EQ_INT(raxPrev(&it), 1);
    CHECK(iterAt(&it, &m.e[m.n - 1]));
    raxStop(&it);
    modelFree(&m);
    raxFree(r);
}

#define FREE_TEST_KEYS 3000
static long freedNulls, freedOther;
static unsigned char freedTimes[FREE_TEST_KEYS + 1];

/* Values are tag(1..FREE_TEST_KEYS) or NULL: counts each one freed. */
static void countFree(void *value) {
    uintptr_t i = ((uintptr_t)value - 8) / 16;
    if (value == NULL) freedNulls++;
    else if (value == tag(i) && i >= 1 && i <= FREE_TEST_KEYS) freedTimes[i]++;
    else freedOther++;
}

static void test_free_with_callback(void) {
    rax *r = raxNew();
    unsigned char k[8];
    long nulls = 0;
    for (unsigned i = 1; i <= FREE_TEST_KEYS; i++) {
        store32be(k, i * 2654435761u);
        store32be(k + 4, i);
        void *v = i % 5 == 0 ? NULL : tag(i);
        CHECK_EQ_INT(raxInsert(r, k, 2 + i % 7, v, NULL), 1);
        nulls += v == NULL;
    }
    CHECK_EQ_INT(raxSize(r), FREE_TEST_KEYS);
    memset(freedTimes, 0, sizeof freedTimes);
    freedNulls = freedOther = 0;
    raxFreeWithCallback(r, countFree);
    CHECK_EQ_INT(freedNulls, nulls);
    CHECK_EQ_INT(freedOther, 0);
    int wrong = 0;
    for (unsigned i = 1; i <= FREE_TEST_KEYS; i++) wrong += freedTimes[i] != (i % 5 == 0 ? 0 : 1);
    CHECK_EQ_INT(wrong, 0);
}

static void test_iterator_semantics(void) {
    rax *r = raxNew();
    raxIterator it;
    raxStart(&it, r);
    CHECK_EQ_INT(raxNext(&it), 0); /* never seeked */
    errno = 0;
    CHECK_EQ_INT(raxSeek(&it, "<>", NULL, 0), 0);
    CHECK_EQ_INT(errno, EINVAL);
    CHECK_EQ_INT(raxSeek(&it, ">==", NULL, 0), 0);
    CHECK_EQ_INT(raxSeek(&it, "", NULL, 0), 0);
    static const char *keys[] = {"alpha", "beta", "gamma"};
    for (int i = 0; i < 3; i++) raxInsert(r, S(keys[i]), tag((uintptr_t)i), NULL);
    raxSeek(&it, "<=", S("c"));
    CHECK_EQ_INT(raxNext(&it), 1); /* the seek's element, whatever the direction */
    CHECK(it.key_len == 4 && memcmp(it.key, "beta", 4) == 0);
    CHECK_EQ_INT(raxNext(&it), 1);
    CHECK(it.key_len == 5 && memcmp(it.key, "gamma", 5) == 0);
    CHECK_EQ_INT(raxPrev(&it), 1);
    CHECK(it.key_len == 4 && memcmp(it.key, "beta", 4) == 0);
    CHECK_EQ_INT(raxPrev(&it), 1);
    CHECK(it.data == tag(0));
    CHECK_EQ_INT(raxPrev(&it), 0);
    CHECK(raxEOF(&it));
    CHECK_EQ_INT(raxNext(&it), 0); /* EOF stays until the next seek */
    raxSeek(&it, ">", S("gamma"));
    CHECK(raxEOF(&it));
    raxSeek(&it, "=", S("beta"));
    CHECK(!raxEOF(&it));
    CHECK_EQ_INT(raxPrev(&it), 1);
    CHECK(it.data == tag(1));
    raxSeek(&it, "=", S("bet"));
    CHECK_EQ_INT(raxNext(&it), 0);
    raxStop(&it);
    raxFree(r);
}

/* The streams' trimming pattern: remove the iterator's current key, then
 * seek again with the iterator's own key buffer as the key (long keys, so
 * the buffer is on the heap). */
static void test_remove_while_iterating(void) {
    static unsigned char k[600];
    rax *r = raxNew();
    kvModel m = {0};
    for (unsigned i = 0; i < 500; i++) {
        size_t len = 150 + (i * 37) % 400;
        memset(k, 's', len);
        store32be(k + len - 4 - (i % 3) * 50, i * 2654435761u);
        raxInsert(r, k, len, tag(i), NULL);
        modelInsert(&m, k, len, tag(i), 1);
    }
    raxIterator it;
    raxStart(&it, r);
    raxSeek(&it, "^", NULL, 0);
    size_t i = 0, bad = 0;
    while (raxNext(&it)) {
        bad += !iterAt(&it, &m.e[i]);
        if (i % 3 == 0) {
            bad += raxRemove(r, it.key, it.key_len, NULL) != 1;
            modelRemove(&m, it.key, it.key_len);
            raxSeek(&it, i % 2 ? ">" : ">=", it.key, it.key_len);
        } else {
            i++;
        }
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(i, m.n);
    CHECK(raxVerify(r));
    checkFullWalks(r, &m);
    raxStop(&it);
    modelFree(&m);
    raxFree(r);
}

/* Random operations against the model; every so often full walks and
 * random seeks. */
/* The node count XINFO STREAM reports: figures that Redis 7.0.15's tree
 * gives for the same keys (its shape is the same compressed one). */
static void test_node_count(void) {
    rax *r = raxNew();
    CHECK_EQ_INT(raxNodeCount(r), 1); /* the root */
    raxInsert(r, S("abc"), tag(1), NULL);
    CHECK_EQ_INT(raxNodeCount(r), 2); /* run "abc", key leaf */
    raxInsert(r, S("abd"), tag(2), NULL);
    CHECK_EQ_INT(raxNodeCount(r), 4); /* run "ab", branch c|d, two leaves */
    raxInsert(r, S("a"), tag(3), NULL);
    CHECK_EQ_INT(raxNodeCount(r), 5); /* root -a-> key "a" -b-> branch c|d */
    CHECK(raxVerify(r));
    raxRemove(r, S("a"), NULL);
    CHECK_EQ_INT(raxNodeCount(r), 4);
    raxRemove(r, S("abd"), NULL);
    CHECK_EQ_INT(raxNodeCount(r), 2);
    raxRemove(r, S("abc"), NULL);
    CHECK_EQ_INT(raxNodeCount(r), 1);
    CHECK(raxVerify(r));
    raxFree(r);
}

/* raxFirst/raxLast: the edge keys with their values, the empty tree, the
 * empty key, and a key longer than the caller's buffer (truncated copy,
 * full length). */
static void test_first_last(void) {
    rax *r = raxNew();
    unsigned char key[8];
    size_t len = 99;
    void *value = tag(99);
    CHECK_EQ_INT(raxFirst(r, key, sizeof key, &len, &value), 0);
    CHECK_EQ_INT(raxLast(r, key, sizeof key, &len, &value), 0);
    CHECK_EQ_INT(len, 99);
    raxInsert(r, S("mango"), tag(1), NULL);
    raxInsert(r, S("apple"), NULL, NULL);
    raxInsert(r, S("apples-and-pears"), tag(3), NULL);
    raxInsert(r, S("zebra"), tag(4), NULL);
    raxInsert(r, S("zebras"), tag(5), NULL);
    CHECK_EQ_INT(raxFirst(r, key, sizeof key, &len, &value), 1);
    CHECK_EQ_INT(len, 5);
    CHECK_EQ_MEM(key, "apple", 5);
    CHECK(value == NULL);
    CHECK_EQ_INT(raxLast(r, key, sizeof key, &len, &value), 1);
    CHECK_EQ_INT(len, 6);
    CHECK_EQ_MEM(key, "zebras", 6);
    CHECK(value == tag(5));
    raxRemove(r, S("apple"), NULL);
    CHECK_EQ_INT(raxFirst(r, key, sizeof key, &len, &value), 1);
    CHECK_EQ_INT(len, 16); /* "apples-and-pears", 8 bytes copied */
    CHECK_EQ_MEM(key, "apples-a", 8);
    CHECK(value == tag(3));
    raxInsert(r, S(""), tag(6), NULL);
    CHECK_EQ_INT(raxFirst(r, key, sizeof key, &len, &value), 1);
    CHECK_EQ_INT(len, 0);
    CHECK(value == tag(6));
    raxFree(r);
}

static void test_random_against_model(void) {
    static unsigned char key[3300];
    rax *r = raxNew();
    size_t empty = raxAllocSize(r);
    kvModel m = {0};
    test_rand_seed(20261126);
    unsigned long ops = test_scaled(40000);
    int bad = 0;
    for (unsigned long op = 1; op <= ops; op++) {
        size_t len = randomKey(key, sizeof key);
        void *value = test_rand() % 8 == 0 ? NULL : tag(op);
        uint64_t what = test_rand() % 10;
        void *old = tag(1);
        long at = modelFind(&m, key, len);
        void *expect_old = at >= 0 ? m.e[at].value : NULL;
        if (what < 4) {
            int added = raxInsert(r, key, len, value, &old);
            bad += added != modelInsert(&m, key, len, value, 1) || (!added && old != expect_old);
        } else if (what < 5) {
            int added = raxTryInsert(r, key, len, value, &old);
            bad += added != modelInsert(&m, key, len, value, 0) || (!added && old != expect_old);
        } else if (what < 8) {
            int removed = raxRemove(r, key, len, &old);
            bad += removed != modelRemove(&m, key, len) || (removed && old != expect_old);
        } else {
            void *found = raxFind(r, key, len);
            bad += at >= 0 ? found != expect_old : found != raxNotFound;
        }
        if (op % (ops / 8) == 0) {
            CHECK(raxVerify(r));
            CHECK_EQ_INT(raxSize(r), m.n);
            checkFullWalks(r, &m);
            checkEdges(r, &m);
            for (int s = 0; s < 300; s++) {
                size_t klen = randomKey(key, sizeof key);
                const char *sop = seekOps[test_rand() % 7];
                bad += !seekMatches(r, &m, sop, key, klen, test_rand() % 2, 4);
            }
        }
    }
    CHECK_EQ_INT(bad, 0);
    CHECK(m.n > 100);
    /* down to empty, checking finds of the survivors on the way */
    while (m.n) {
        size_t at = test_rand() % m.n;
        void *old = tag(1);
        bad += raxRemove(r, m.e[at].key, m.e[at].len, &old) != 1 || old != m.e[at].value;
        modelRemove(&m, m.e[at].key, m.e[at].len);
        if (m.n && m.n % 97 == 0) {
            size_t probe = test_rand() % m.n;
            bad += raxFind(r, m.e[probe].key, m.e[probe].len) != m.e[probe].value;
        }
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(raxSize(r), 0);
    CHECK_EQ_INT(raxAllocSize(r), empty);
    CHECK(raxVerify(r));
    checkFullWalks(r, &m);
    modelFree(&m);
    raxFree(r);
}

TEST_MAIN(
    RUN(test_empty_tree);
    RUN(test_insert_find_remove);
    RUN(test_null_values);
    RUN(test_alloc_size_is_canonical);
    RUN(test_every_length);
    RUN(test_binary_keys);
    RUN(test_long_keys);
    RUN(test_stream_ids);
    RUN(test_free_with_callback);
    RUN(test_iterator_semantics);
    RUN(test_remove_while_iterating);
    RUN(test_node_count);
    RUN(test_first_last);
    RUN(test_random_against_model);
)
