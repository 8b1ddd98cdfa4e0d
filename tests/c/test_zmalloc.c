/* test_zmalloc.c -- unit tests for src/lib/zmalloc.c with the build's allocator.
 *
 * Checks the promises zmalloc.h makes: 8-byte alignment of every pointer on
 * every target, exact used_memory accounting back to the starting value,
 * usable size >= requested, content kept by realloc, the try variants
 * returning NULL on absurd sizes and the plain ones calling the OOM handler.
 * test_zmalloc_prefix.c repeats the checks for the size-prefix scheme.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdint.h>
#include "test.h"
#include "zmalloc.h"

static void test_alignment_all_sizes(void) {
    void *blocks[600];
    for (size_t i = 0; i < 600; i++) {
        blocks[i] = zmalloc(i + 1);
        CHECK(((uintptr_t)blocks[i] % ZMALLOC_MIN_ALIGNMENT) == 0);
        CHECK(zmalloc_size(blocks[i]) >= i + 1);
    }
    for (size_t i = 0; i < 600; i++) {
        blocks[i] = zrealloc(blocks[i], i * 3 + 7);
        CHECK(((uintptr_t)blocks[i] % ZMALLOC_MIN_ALIGNMENT) == 0);
    }
    for (size_t i = 0; i < 600; i++) zfree(blocks[i]);
}

static void test_accounting_returns_to_start(void) {
    size_t start = zmalloc_used_memory();
    char *a = zmalloc(100);
    CHECK(zmalloc_used_memory() >= start + 100);
    char *b = zcalloc(5000);
    a = zrealloc(a, 20000);
    CHECK(zmalloc_used_memory() >= start + 25000);
    zfree(a);
    zfree(b);
    CHECK_EQ_INT(zmalloc_used_memory(), start);
}

/* An allocation is counted at exactly its usable size (plus the size
 * prefix, where there is one: the same for every size), whatever way the
 * allocator is asked for it (jemalloc: its size class, from nallocx). */
static void check_counted_size_of(size_t n, int zeroed) {
    static size_t overhead = (size_t)-1;
    size_t before = zmalloc_used_memory();
    void *p = zeroed ? zcalloc(n) : zmalloc(n);
    size_t counted = zmalloc_used_memory() - before;
    if (overhead == (size_t)-1) overhead = counted - zmalloc_size(p);
    if (counted != zmalloc_size(p) + overhead || overhead > 16) {
        printf("    size %zu: counted %zu, usable %zu\n", n, counted, zmalloc_size(p));
        CHECK(0);
    }
    zfree(p);
    CHECK_EQ_INT(zmalloc_used_memory(), before);
}

/* zmalloc_good_size never promises more than a fresh block holds, and
 * with jemalloc it is exactly that block's size (sds.c relies on it to
 * skip a shrink that frees nothing). */
static void test_good_size(void) {
    for (size_t n = 0; n <= 70000; n += n < 4096 ? 1 : 997) {
        size_t usable;
        void *p = zmalloc_usable(n, &usable);
        size_t good = zmalloc_good_size(n);
#if defined(USE_JEMALLOC)
        if (good != usable) printf("    size %zu: good %zu, usable %zu\n", n, good, usable);
        CHECK_EQ_INT(good, usable);
#else
        CHECK(good <= usable || n == 0);
#endif
        zfree(p);
    }
}

static void check_counted_size(size_t n) {
    check_counted_size_of(n, 0);
    check_counted_size_of(n, 1);
}

static void test_counted_size_is_usable_size(void) {
    for (size_t n = 0; n <= 16384; n++) check_counted_size(n);
    for (size_t n = 16384; n <= ((size_t)16 << 20); n += n / 7) {
        check_counted_size(n - 1);
        check_counted_size(n);
        check_counted_size(n + 1);
    }
}

static void test_usable_size(void) {
    size_t usable = 0;
    char *p = zmalloc_usable(13, &usable);
    CHECK(usable >= 13);
    CHECK_EQ_INT(usable, zmalloc_size(p));
    memset(p, 'x', usable); /* the whole usable area is ours */
    p = zrealloc_usable(p, 1000, &usable);
    CHECK(usable >= 1000);
    CHECK(p[0] == 'x' && p[12] == 'x');
    zfree(p);
}

static void test_calloc_zeroes_and_realloc_keeps(void) {
    unsigned char *p = zcalloc(4096);
    int zero = 1;
    for (int i = 0; i < 4096; i++) zero &= p[i] == 0;
    CHECK(zero);
    for (int i = 0; i < 4096; i++) p[i] = (unsigned char)i;
    p = zrealloc(p, 1 << 20);
    int kept = 1;
    for (int i = 0; i < 4096; i++) kept &= p[i] == (unsigned char)i;
    CHECK(kept);
    p = zrealloc(p, 10);
    CHECK(p[9] == 9);
    zfree(p);
}

static void test_null_and_zero_cases(void) {
    size_t start = zmalloc_used_memory();
    zfree(NULL);
    void *p = zrealloc(NULL, 32); /* realloc(NULL) allocates */
    CHECK(p != NULL);
    CHECK(zrealloc(p, 0) == NULL); /* realloc to 0 frees */
    void *z = zmalloc(0);
    CHECK(z != NULL);
    zfree(z);
    CHECK_EQ_INT(zmalloc_used_memory(), start);
}

static void test_try_variants_fail_cleanly(void) {
    size_t start = zmalloc_used_memory();
    CHECK(ztrymalloc(SIZE_MAX) == NULL);
    CHECK(ztrymalloc(SIZE_MAX - 8) == NULL);
    CHECK(ztrycalloc(SIZE_MAX / 2 + 1) == NULL);
    void *p = zmalloc(16);
    CHECK(ztryrealloc(p, SIZE_MAX - 3) == NULL);
    zfree(p); /* p is still valid after a failed realloc */
    CHECK_EQ_INT(zmalloc_used_memory(), start);
}

static jmp_buf oom_jump;
static size_t oom_size_seen;
static void oom_catcher(size_t size) { oom_size_seen = size; longjmp(oom_jump, 1); }

static void test_oom_handler_called(void) {
    zmalloc_set_oom_handler(oom_catcher);
    oom_size_seen = 0;
    if (setjmp(oom_jump) == 0) {
        void *p = zmalloc(SIZE_MAX - 16);
        CHECK(p == NULL && !"zmalloc returned instead of calling the OOM handler");
    }
    CHECK(oom_size_seen == SIZE_MAX - 16);
    zmalloc_set_oom_handler(NULL);
}

/* The uncounted trio (OpenSSL's hooks) leaves used_memory alone, keeps
 * content across realloc and gives aligned blocks. */
static void test_uncounted_is_not_counted(void) {
    size_t start = zmalloc_used_memory();
    char *p = zmalloc_uncounted(100);
    CHECK(((uintptr_t)p % ZMALLOC_MIN_ALIGNMENT) == 0);
    memset(p, 'x', 100);
    p = zrealloc_uncounted(p, 30000);
    CHECK(p[0] == 'x' && p[99] == 'x');
    CHECK_EQ_INT(zmalloc_used_memory(), start);
    zfree_uncounted(p);
    zfree_uncounted(NULL);
    CHECK_EQ_INT(zmalloc_used_memory(), start);
}

static void test_strdup_and_name(void) {
    char *s = zstrdup("hello\tworld");
    CHECK_EQ_STR(s, "hello\tworld");
    zfree(s);
    const char *name = zmalloc_allocator_name();
    CHECK(name && (strncmp(name, "jemalloc-", 9) == 0 || strcmp(name, "libc") == 0));
    printf("    allocator: %s\n", name);
}

static void test_rss_and_page_check(void) {
    size_t rss = zmalloc_get_rss();
    CHECK(rss > 0);
    char err[200] = "";
    CHECK(zmalloc_check_page_size(err, sizeof err) == 0); /* the host can run us */
}

static void countText(void *opaque, const char *text) {
    size_t *count = opaque;
    *count += strlen(text);
}

/* jemalloc answers all three with its own figures; libc has none of them. */
static void test_allocator_figures_stats_and_purge(void) {
    int is_jemalloc = strncmp(zmalloc_allocator_name(), "jemalloc-", 9) == 0;
    void *held = zmalloc(100000);
    size_t allocated = 1, active = 1, resident = 1, text = 0;
    int rc = zmalloc_get_allocator_info(&allocated, &active, &resident);
    if (is_jemalloc) {
        CHECK(rc == 0);
        CHECK(allocated >= 100000);
        CHECK(active >= allocated);
        CHECK(resident >= active);
        CHECK(zmalloc_stats_print(countText, &text) == 0);
        CHECK(text > 1000);
        CHECK(zmalloc_purge() == 0);
    } else {
        CHECK(rc == -1);
        CHECK(allocated == 0 && active == 0 && resident == 0);
        CHECK(zmalloc_stats_print(countText, &text) == -1);
        CHECK(text == 0);
        CHECK(zmalloc_purge() == -1);
    }
    zfree(held);
}

/* Active defragmentation's primitives: with jemalloc, a heap with every
 * other block freed has blocks worth moving; a move is a same-size copy,
 * and the pair move + defrag_free leaves used_memory as it was. */
static void test_defrag_move(void) {
    enum { N = 20000 };
    static unsigned char *blocks[N];
    if (!zmalloc_defrag_supported()) {
        void *p = zmalloc(48);
        CHECK(zmalloc_defrag_move(p) == NULL);
        size_t page = 0, len = sizeof page;
        CHECK_EQ_INT(zmalloc_mallctl("arenas.page", &page, &len, NULL, 0), ENOTSUP);
        zfree(p);
        return;
    }
    size_t page = 0, len = sizeof page;
    CHECK_EQ_INT(zmalloc_mallctl("arenas.page", &page, &len, NULL, 0), 0);
    CHECK(page >= 4096 && (page & (page - 1)) == 0);
    for (int i = 0; i < N; i++) {
        blocks[i] = zmalloc(48);
        memset(blocks[i], i & 0xff, 48);
    }
    for (int i = 0; i < N; i += 2) zfree(blocks[i]);
    size_t used = zmalloc_used_memory();
    int moved = 0;
    for (int i = 1; i < N; i += 2) {
        unsigned char *copy = zmalloc_defrag_move(blocks[i]);
        if (copy == NULL) continue;
        CHECK(copy != blocks[i]);
        CHECK_EQ_INT(zmalloc_size(copy), zmalloc_size(blocks[i]));
        CHECK(memcmp(copy, blocks[i], 48) == 0);
        CHECK((uintptr_t)copy % ZMALLOC_MIN_ALIGNMENT == 0);
        zmalloc_defrag_free(blocks[i]);
        blocks[i] = copy;
        moved++;
    }
    CHECK(moved > 0);
    CHECK_EQ_INT(zmalloc_used_memory(), used);
    for (int i = 1; i < N; i += 2) {
        CHECK(blocks[i][0] == (i & 0xff) && blocks[i][47] == (i & 0xff));
        zfree(blocks[i]);
    }
    CHECK(zmalloc_defrag_move(NULL) == NULL);
}

TEST_MAIN(
    RUN(test_defrag_move);
    RUN(test_alignment_all_sizes);
    RUN(test_accounting_returns_to_start);
    RUN(test_usable_size);
    RUN(test_good_size);
    RUN(test_counted_size_is_usable_size);
    RUN(test_calloc_zeroes_and_realloc_keeps);
    RUN(test_null_and_zero_cases);
    RUN(test_try_variants_fail_cleanly);
    RUN(test_oom_handler_called);
    RUN(test_uncounted_is_not_counted);
    RUN(test_strdup_and_name);
    RUN(test_rss_and_page_check);
    RUN(test_allocator_figures_stats_and_purge);
)
