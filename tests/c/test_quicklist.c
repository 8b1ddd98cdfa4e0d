/* test_quicklist.c -- the quicklist library (src/lib/quicklist.c).
 *
 * The core of this file is a model check: random pushes, pops, inserts,
 * replacements, range and iterator deletions and rotations are applied both
 * to a quicklist and to a plain array of strings, and after every step the
 * two must hold the same elements in both directions. It runs for several
 * fill factors (small ones, so nodes split and merge all the time) and
 * compression depths, with element sizes that produce PLAIN nodes too. The
 * structure is checked as well: node counts add up, every packed node is
 * a valid listpack within the fill limits, end nodes are never compressed.
 */
#include <limits.h>

#include "listpack.h"
#include "quicklist.h"
#include "test.h"
#include "test_model.h"
#include "zmalloc.h"

/* ---- helpers ------------------------------------------------------------- */

static size_t rng_below(size_t n) { return n ? (size_t)(test_rand() % n) : 0; }

/* The reference model: an array of byte strings. */

/* The entry as text (integers formatted); returns the length. */
static size_t entry_bytes(const quicklistEntry *e, unsigned char *buf, const unsigned char **out) {
    if (e->value) {
        *out = e->value;
        return e->sz;
    }
    int n = snprintf((char *)buf, LP_INTBUF_SIZE, "%lld", e->longval);
    *out = buf;
    return (size_t)n;
}

static int entry_equals(const quicklistEntry *e, const unsigned char *s, size_t len) {
    unsigned char buf[LP_INTBUF_SIZE];
    const unsigned char *v;
    size_t n = entry_bytes(e, buf, &v);
    return n == len && memcmp(v, s, len) == 0;
}

/* A random element: integers, short and medium strings, sometimes a large
 * one (PLAIN with the test's fill factors). */
static size_t random_value(unsigned char *buf, size_t big) {
    switch (rng_below(8)) {
    case 0: return (size_t)snprintf((char *)buf, 32, "%lld", (long long)(test_rand() >> rng_below(64)));
    case 1: return (size_t)snprintf((char *)buf, 32, "-%u", (unsigned)rng_below(100000));
    case 2: {
        size_t n = rng_below(big / 4 + 1);
        for (size_t i = 0; i < n; i++) buf[i] = (unsigned char)('a' + rng_below(3));
        return n;
    }
    case 3:
        if (rng_below(10) == 0) {
            size_t n = big + rng_below(big);
            memset(buf, 'L', n);
            return n;
        }
        /* fall through */
    default: {
        size_t n = rng_below(12);
        for (size_t i = 0; i < n; i++) buf[i] = (unsigned char)('a' + rng_below(26));
        return n;
    }
    }
}

/* ---- structural checks ------------------------------------------------------ */

static int check_node(const unsigned char *data, size_t sz, int container, void *ud) {
    int *ok = ud;
    if (container == QUICKLIST_NODE_CONTAINER_PACKED) {
        unsigned char *copy = zmalloc(sz);
        memcpy(copy, data, sz);
        if (!lpValidateIntegrity(copy, sz, 1, NULL, NULL)) *ok = 0;
        zfree(copy);
    }
    return 1;
}

static size_t fill_byte_limit(int fill) {
    static const size_t limits[] = {4096, 8192, 16384, 32768, 65536};
    return fill >= 0 ? 8192 : limits[-fill - 1];
}

/* Counts, links, limits, listpack validity, compression of the ends. */
static void check_structure(quicklist *ql) {
    unsigned long count = 0, len = 0;
    quicklistNode *prev = NULL;
    for (quicklistNode *n = ql->head; n; prev = n, n = n->next) {
        CHECK(n->prev == prev);
        CHECK(n->count > 0);
        count += n->count;
        len++;
        if (n->container == QUICKLIST_NODE_CONTAINER_PLAIN) {
            CHECK_EQ_INT(n->count, 1);
        } else if (n->count > 1) {
            CHECK(n->sz <= fill_byte_limit(ql->fill) + 16);
            if (ql->fill > 0) CHECK(n->count <= (unsigned)ql->fill);
        }
    }
    CHECK(ql->tail == prev);
    CHECK_EQ_INT(count, ql->count);
    CHECK_EQ_INT(len, ql->len);
    if (ql->compress) {
        quicklistNode *f = ql->head, *b = ql->tail;
        for (unsigned i = 0; i < ql->compress && f; i++, f = f->next, b = b->prev) {
            CHECK(!quicklistNodeIsCompressed(f));
            CHECK(!quicklistNodeIsCompressed(b));
        }
    }
    int ok = 1;
    CHECK(quicklistVisitNodes(ql, check_node, &ok));
    CHECK(ok);
}

/* The quicklist holds exactly the model, read forwards and backwards. */
static int same_as_model(quicklist *ql, const model *m) {
    if (quicklistCount(ql) != m->n) return 0;
    quicklistEntry e;
    quicklistIter *it = quicklistGetIterator(ql, AL_START_HEAD);
    size_t i = 0;
    int ok = 1;
    while (ok && quicklistNext(it, &e)) {
        ok = i < m->n && entry_equals(&e, (const unsigned char *)m->v[i], m->len[i]);
        i++;
    }
    quicklistReleaseIterator(it);
    if (!ok || i != m->n) return 0;
    it = quicklistGetIterator(ql, AL_START_TAIL);
    while (ok && quicklistNext(it, &e)) {
        ok = i > 0 && entry_equals(&e, (const unsigned char *)m->v[i - 1], m->len[i - 1]);
        i--;
    }
    quicklistReleaseIterator(it);
    return ok && i == 0;
}

/* ---- basic behaviour ------------------------------------------------------------- */

static void test_push_pop(void) {
    quicklist *ql = quicklistNew(3, 0);
    unsigned char *data;
    size_t sz;
    long long v;
    CHECK(!quicklistPop(ql, QUICKLIST_HEAD, &data, &sz, &v));
    for (int i = 0; i < 10; i++) {
        char buf[16];
        int n = snprintf(buf, sizeof buf, "v%d", i);
        quicklistPushTail(ql, buf, (size_t)n);
    }
    quicklistPushHead(ql, "42", 2);
    CHECK_EQ_INT(quicklistCount(ql), 11);
    CHECK_EQ_INT(quicklistNodeCount(ql), 5); /* 42 | v0-v2 | v3-v5 | v6-v8 | v9, fill 3 */
    check_structure(ql);
    CHECK(quicklistPop(ql, QUICKLIST_HEAD, &data, &sz, &v));
    CHECK(data == NULL && v == 42);
    CHECK(quicklistPop(ql, QUICKLIST_TAIL, &data, &sz, &v));
    CHECK(data && sz == 2 && memcmp(data, "v9", 2) == 0);
    zfree(data);
    quicklistEntry e;
    CHECK(quicklistIndex(ql, 0, &e) && entry_equals(&e, (const unsigned char *)"v0", 2));
    CHECK(quicklistIndex(ql, -1, &e) && entry_equals(&e, (const unsigned char *)"v8", 2));
    CHECK(quicklistIndex(ql, 4, &e) && quicklistCompare(&e, (const unsigned char *)"v4", 2));
    CHECK(!quicklistIndex(ql, 9, &e));
    CHECK(!quicklistIndex(ql, -10, &e));
    quicklistRelease(ql);
}

static void test_plain_nodes(void) {
    quicklist *ql = quicklistNew(-1, 0); /* 4 KB nodes */
    unsigned char *big = malloc(5000);
    memset(big, 'B', 5000);
    quicklistPushTail(ql, "a", 1);
    quicklistPushTail(ql, big, 5000);
    quicklistPushTail(ql, "b", 1);
    CHECK_EQ_INT(quicklistNodeCount(ql), 3);
    CHECK(quicklistNodeIsPlain(ql->head->next));
    CHECK(!quicklistNodeIsPlain(ql->head));
    quicklistEntry e;
    CHECK(quicklistIndex(ql, 1, &e) && e.sz == 5000 && e.value[4999] == 'B');
    /* A 4096-byte element is still packed; 4097 is not. */
    quicklistPushTail(ql, big, 4096);
    CHECK(!quicklistNodeIsPlain(ql->tail));
    quicklistPushTail(ql, big, 4097);
    CHECK(quicklistNodeIsPlain(ql->tail));
    /* Replacing a plain element with a small one and back. */
    CHECK(quicklistReplaceAtIndex(ql, 1, "small", 5));
    CHECK(quicklistIndex(ql, 1, &e) && entry_equals(&e, (const unsigned char *)"small", 5));
    CHECK(quicklistReplaceAtIndex(ql, 0, big, 5000));
    CHECK(quicklistNodeIsPlain(ql->head));
    CHECK(!quicklistReplaceAtIndex(ql, 10, "x", 1));
    check_structure(ql);
    /* The packed threshold override. */
    CHECK(quicklistSetPackedThreshold(1));
    quicklistPushHead(ql, "xy", 2);
    CHECK(quicklistNodeIsPlain(ql->head));
    quicklistPushHead(ql, "x", 1);
    CHECK(!quicklistNodeIsPlain(ql->head));
    CHECK(!quicklistSetPackedThreshold((size_t)-1));
    CHECK(quicklistSetPackedThreshold(0));
    check_structure(ql);
    free(big);
    quicklistRelease(ql);
}

static void test_append_listpack_and_dup(void) {
    quicklist *ql = quicklistNew(-2, 1);
    unsigned char *lp = lpNew(0);
    for (int i = 0; i < 300; i++) lp = lpAppendInteger(lp, i);
    quicklistAppendListpack(ql, lp);
    quicklistAppendListpack(ql, lpNew(0)); /* empty: freed, no node */
    unsigned char *plain = zmalloc(3);
    memcpy(plain, "abc", 3);
    quicklistAppendPlainNode(ql, plain, 3);
    CHECK_EQ_INT(quicklistCount(ql), 301);
    CHECK_EQ_INT(quicklistNodeCount(ql), 2);
    quicklist *copy = quicklistDup(ql);
    quicklistEntry a, b;
    quicklistIter *ia = quicklistGetIterator(ql, AL_START_HEAD), *ib = quicklistGetIterator(copy, AL_START_HEAD);
    long n = 0;
    while (quicklistNext(ia, &a)) {
        CHECK(quicklistNext(ib, &b));
        unsigned char buf[LP_INTBUF_SIZE];
        const unsigned char *v;
        size_t len = entry_bytes(&a, buf, &v);
        CHECK(entry_equals(&b, v, len));
        n++;
    }
    CHECK(!quicklistNext(ib, &b));
    CHECK_EQ_INT(n, 301);
    quicklistReleaseIterator(ia);
    quicklistReleaseIterator(ib);
    CHECK(quicklistBytes(copy) > 300);
    check_structure(copy);
    quicklistRelease(copy);
    quicklistRelease(ql);
}

static void test_rotate_and_ranges(void) {
    quicklist *ql = quicklistNew(2, 0);
    for (int i = 0; i < 7; i++) {
        char c = (char)('a' + i);
        quicklistPushTail(ql, &c, 1);
    }
    quicklistRotate(ql); /* g a b c d e f */
    quicklistEntry e;
    CHECK(quicklistIndex(ql, 0, &e) && entry_equals(&e, (const unsigned char *)"g", 1));
    CHECK(!quicklistDelRange(ql, 7, 1));
    CHECK(!quicklistDelRange(ql, 0, 0));
    CHECK(quicklistDelRange(ql, 1, 3)); /* g d e f */
    CHECK(quicklistIndex(ql, 1, &e) && entry_equals(&e, (const unsigned char *)"d", 1));
    CHECK(quicklistDelRange(ql, -2, 100)); /* g d */
    CHECK_EQ_INT(quicklistCount(ql), 2);
    CHECK(quicklistIndex(ql, -1, &e) && entry_equals(&e, (const unsigned char *)"d", 1));
    check_structure(ql);
    quicklistRelease(ql);

    quicklist *empty = quicklistCreate();
    quicklistRotate(empty);
    CHECK(quicklistGetIteratorAtIdx(empty, AL_START_HEAD, 0) == NULL);
    CHECK(!quicklistDelRange(empty, 0, 1));
    quicklistRelease(empty);
}

static void test_compression_roundtrip(void) {
    quicklist *ql = quicklistNew(-1, 1);
    char buf[64];
    for (int i = 0; i < 5000; i++) {
        int n = snprintf(buf, sizeof buf, "element-number-%d-with-some-padding", i);
        quicklistPushTail(ql, buf, (size_t)n);
    }
    unsigned long compressed = 0;
    for (quicklistNode *n = ql->head; n; n = n->next) compressed += quicklistNodeIsCompressed(n);
    CHECK(compressed > 0);
    CHECK(compressed <= ql->len - 2);
    check_structure(ql);
    quicklistIter *it = quicklistGetIteratorAtIdx(ql, AL_START_TAIL, 2500);
    quicklistEntry e;
    CHECK(quicklistNext(it, &e));
    int n = snprintf(buf, sizeof buf, "element-number-%d-with-some-padding", 2500);
    CHECK(entry_equals(&e, (unsigned char *)buf, (size_t)n));
    quicklistReleaseIterator(it);
    check_structure(ql);
    quicklistRelease(ql);
}

/* Iterator edits: deleting everything from either end, replacing through an
 * iterator, inserting next to a PLAIN node, changing direction. */
static void test_iterator_edits(void) {
    for (int forward = 0; forward < 2; forward++) {
        quicklist *ql = quicklistNew(2, 1);
        for (int i = 0; i < 9; i++) quicklistPushTail(ql, "x", 1);
        quicklistIter *it = quicklistGetIterator(ql, forward ? AL_START_HEAD : AL_START_TAIL);
        quicklistEntry e;
        int seen = 0;
        while (quicklistNext(it, &e)) {
            quicklistDelEntry(it, &e);
            seen++;
        }
        quicklistReleaseIterator(it);
        CHECK_EQ_INT(seen, 9);
        CHECK_EQ_INT(quicklistCount(ql), 0);
        CHECK(ql->head == NULL && ql->tail == NULL);
        quicklistRelease(ql);
    }

    quicklist *ql = quicklistNew(-1, 0);
    unsigned char big[5000];
    memset(big, 'P', sizeof big);
    quicklistPushTail(ql, "1", 1);
    quicklistPushTail(ql, big, sizeof big);
    quicklistPushTail(ql, "3", 1);
    quicklistIter *it = quicklistGetIteratorAtIdx(ql, AL_START_TAIL, 1);
    quicklistEntry e;
    CHECK(quicklistNext(it, &e) && e.sz == sizeof big);
    quicklistInsertAfter(it, &e, "after", 5);
    quicklistReleaseIterator(it);
    it = quicklistGetIteratorAtIdx(ql, AL_START_HEAD, 1);
    CHECK(quicklistNext(it, &e) && e.sz == sizeof big);
    quicklistInsertBefore(it, &e, "before", 6);
    quicklistReleaseIterator(it);
    /* 1 before BIG after 3 */
    it = quicklistGetIteratorAtIdx(ql, AL_START_HEAD, -1);
    CHECK(quicklistNext(it, &e) && entry_equals(&e, (const unsigned char *)"3", 1));
    quicklistReplaceEntry(it, &e, "three", 5);
    quicklistReleaseIterator(it);
    const char *want[] = {"1", "before", NULL, "after", "three"};
    it = quicklistGetIterator(ql, AL_START_TAIL);
    quicklistSetDirection(it, AL_START_HEAD);
    quicklistReleaseIterator(it);
    it = quicklistGetIterator(ql, AL_START_HEAD);
    for (int i = 0; i < 5; i++) {
        CHECK(quicklistNext(it, &e));
        if (want[i]) CHECK(entry_equals(&e, (const unsigned char *)want[i], strlen(want[i])));
        else CHECK(e.sz == sizeof big && e.value[0] == 'P');
    }
    CHECK(!quicklistNext(it, &e));
    quicklistReleaseIterator(it);
    check_structure(ql);
    quicklistRelease(ql);
}

/* ---- the model check -------------------------------------------------------------- */

static void random_step(quicklist *ql, model *m, unsigned char *buf, size_t big) {
    size_t len;
    switch (rng_below(10)) {
    case 0:
    case 1:
        len = random_value(buf, big);
        quicklistPushHead(ql, buf, len);
        model_insert(m, 0, buf, len);
        break;
    case 2:
    case 3:
        len = random_value(buf, big);
        quicklistPushTail(ql, buf, len);
        model_insert(m, m->n, buf, len);
        break;
    case 4: { /* pop */
        int head = (int)rng_below(2);
        unsigned char *data = NULL;
        size_t sz = 0;
        long long v = 0;
        int got = quicklistPop(ql, head ? QUICKLIST_HEAD : QUICKLIST_TAIL, &data, &sz, &v);
        CHECK(got == (m->n > 0));
        if (!got) break;
        size_t at = head ? 0 : m->n - 1;
        if (data) {
            CHECK(sz == m->len[at] && memcmp(data, m->v[at], sz) == 0);
        } else {
            char t[LP_INTBUF_SIZE];
            int tl = snprintf(t, sizeof t, "%lld", v);
            CHECK((size_t)tl == m->len[at] && memcmp(t, m->v[at], (size_t)tl) == 0);
        }
        zfree(data);
        model_delete(m, at, 1);
        break;
    }
    case 5: { /* insert before/after a random element */
        if (m->n == 0) break;
        size_t at = rng_below(m->n);
        int after = (int)rng_below(2);
        len = random_value(buf, big);
        quicklistIter *it = quicklistGetIteratorAtIdx(ql, rng_below(2) ? AL_START_HEAD : AL_START_TAIL, (long long)at);
        quicklistEntry e;
        CHECK(it && quicklistNext(it, &e));
        if (after) quicklistInsertAfter(it, &e, buf, len);
        else quicklistInsertBefore(it, &e, buf, len);
        quicklistReleaseIterator(it);
        model_insert(m, at + (size_t)after, buf, len);
        break;
    }
    case 6: { /* replace */
        if (m->n == 0) break;
        size_t at = rng_below(m->n);
        len = random_value(buf, big);
        long idx = rng_below(2) ? (long)at : (long)at - (long)m->n;
        CHECK(quicklistReplaceAtIndex(ql, idx, buf, len));
        model_delete(m, at, 1);
        model_insert(m, at, buf, len);
        break;
    }
    case 7: { /* range delete */
        if (m->n == 0) break;
        size_t at = rng_below(m->n);
        size_t count = 1 + rng_below(rng_below(4) == 0 ? 40 : 4);
        CHECK(quicklistDelRange(ql, (long)at, (long)count));
        model_delete(m, at, count < m->n - at ? count : m->n - at);
        break;
    }
    case 8: { /* iterator deletion of every element matching a short value */
        int forward = (int)rng_below(2);
        unsigned char target[2] = {(unsigned char)('a' + rng_below(3)), 0};
        size_t tlen = rng_below(2) + 1;
        if (tlen == 2) target[1] = target[0];
        quicklistIter *it = quicklistGetIterator(ql, forward ? AL_START_HEAD : AL_START_TAIL);
        quicklistEntry e;
        while (quicklistNext(it, &e))
            if (quicklistCompare(&e, target, tlen)) quicklistDelEntry(it, &e);
        quicklistReleaseIterator(it);
        for (size_t i = m->n; i-- > 0;)
            if (m->len[i] == tlen && memcmp(m->v[i], target, tlen) == 0) model_delete(m, i, 1);
        break;
    }
    default:
        if (m->n) {
            quicklistRotate(ql);
            char *last = m->v[m->n - 1];
            size_t llen = m->len[m->n - 1];
            m->v[m->n - 1] = NULL;
            m->n--;
            model_insert(m, 0, last, llen);
            free(last);
        }
        break;
    }
}

static void run_model(int fill, int depth, unsigned long steps) {
    quicklist *ql = quicklistNew(fill, depth);
    model m = {0};
    size_t big = fill_byte_limit(fill) + 1;
    unsigned char *buf = malloc(2 * big + 64);
    int failures_before = test_current_failures;
    unsigned long max_len = 0, compressed_seen = 0;
    for (unsigned long i = 0; i < steps && test_current_failures == failures_before; i++) {
        /* First third: grow (pushes and inserts), so there are many nodes. */
        if (i < steps / 3 && rng_below(2)) {
            size_t len = random_value(buf, big);
            quicklistPushTail(ql, buf, len);
            model_insert(&m, m.n, buf, len);
        } else {
            random_step(ql, &m, buf, big);
        }
        if (ql->len > max_len) max_len = ql->len;
        if (i % 16 == 0)
            for (quicklistNode *n = ql->head; n; n = n->next) compressed_seen += quicklistNodeIsCompressed(n);
        if ((i % 4 == 0 || m.n < 16) && !same_as_model(ql, &m)) {
            printf("    mismatch: fill %d depth %d step %lu\n", fill, depth, i);
            CHECK(0);
        }
        if (i % 64 == 0) check_structure(ql);
        if (i % 512 == 0) {
            quicklist *copy = quicklistDup(ql);
            CHECK(same_as_model(copy, &m));
            quicklistRelease(copy);
        }
    }
    check_structure(ql);
    if (getenv("TEST_VERBOSE"))
        printf("    fill %d depth %d: up to %lu nodes, %zu left, %lu compressed sightings\n", fill, depth, max_len, m.n,
               compressed_seen);
    if (depth > 0 && fill < 0) CHECK(compressed_seen > 0);
    free(buf);
    model_free(&m);
    quicklistRelease(ql);
}

static void test_model_fill_small(void) {
    unsigned long steps = test_scaled(3000);
    run_model(1, 0, steps);
    run_model(2, 0, steps);
    run_model(3, 0, steps);
    run_model(3, 1, steps);
}

static void test_model_fill_bytes(void) {
    unsigned long steps = test_scaled(3000);
    run_model(-1, 0, steps);
    run_model(-1, 2, steps);
    run_model(-2, 1, steps);
    run_model(32, 1, steps);
}

/* With a tiny packed threshold most elements get PLAIN nodes, interleaved
 * with packed ones (integers and short strings). */
static void test_model_packed_threshold(void) {
    unsigned long steps = test_scaled(3000);
    CHECK(quicklistSetPackedThreshold(6));
    run_model(3, 0, steps);
    run_model(-2, 1, steps);
    CHECK(quicklistSetPackedThreshold(0));
}

TEST_MAIN(
    RUN(test_push_pop);
    RUN(test_plain_nodes);
    RUN(test_append_listpack_and_dup);
    RUN(test_rotate_and_ranges);
    RUN(test_compression_roundtrip);
    RUN(test_iterator_edits);
    RUN(test_model_fill_small);
    RUN(test_model_fill_bytes);
    RUN(test_model_packed_threshold);
)
