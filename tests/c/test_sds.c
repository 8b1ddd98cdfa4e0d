/* test_sds.c -- unit tests for src/lib/sds.c.
 *
 * What is covered and why:
 *   - Header type selection at each boundary (31/32, 255/256, 65535/65536,
 *     2^32 via sdsReqType only: a 4 GB string is not cheap) and every
 *     transition an append or a resize makes between types.
 *   - Capacity: allocator slack becomes sdsavail, greedy vs exact growth,
 *     shrinking, and oversize requests that must reach the OOM handler (or
 *     NULL from the try variant) instead of wrapping.
 *   - Odd addresses: sds buffers always sit at odd offsets from an aligned
 *     block, and a header copied to each of the 8 misalignments must still
 *     read and write correctly -- on SPARC and 32-bit ARM a wide unaligned
 *     access would die with SIGBUS.
 *   - Binary safety (embedded NULs) and the quoting pair sdscatrepr /
 *     sdssplitargs, checked on every byte value and by round trips.
 * Expected values are derived independently (snprintf, explicit rules, round
 * trips) rather than copied from the implementation.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sds.h"
#include "zmalloc.h"
#include "test.h"

/* The try-allocation tests ask for impossible sizes; under ASan those must
 * return NULL like a real allocator does, not stop the program. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) { return "allocator_may_return_null=1"; }

/* ---- helpers ---------------------------------------------------------------- */

/* Deterministic binary content with NULs and high bytes. */
static void fill_pattern(char *buf, size_t len, unsigned seed) {
    for (size_t i = 0; i < len; i++) buf[i] = (char)((i * 31 + seed) & 0xff);
}

static sds new_pattern(size_t len, unsigned seed) {
    char *buf = malloc(len ? len : 1);
    fill_pattern(buf, len, seed);
    sds s = sdsnewlen(buf, len);
    free(buf);
    return s;
}

static int has_pattern(const sds s, size_t from, size_t len, unsigned seed) {
    for (size_t i = 0; i < len; i++)
        if (s[from + i] != (char)((i * 31 + seed) & 0xff)) return 0;
    return 1;
}

/* Invariants every live sds must satisfy. */
static void check_invariants(const sds s) {
    unsigned type = sdsType(s);
    size_t len = sdslen(s), alloc = sdsalloc(s);
    CHECK(type <= SDS_TYPE_64);
    CHECK(len <= alloc);
    CHECK(alloc <= sdsTypeMaxSize(type));
    CHECK(s[len] == '\0');
    CHECK(sdsavail(s) == alloc - len);
    CHECK(sdsAllocSize(s) == sdsHdrSize(type) + alloc + 1);
    CHECK(sdsAllocSize(s) <= zmalloc_size(sdsAllocPtr(s)));
    CHECK(is_aligned(sdsAllocPtr(s), ZMALLOC_MIN_ALIGNMENT));
    CHECK(((uintptr_t)s & 1) == 1); /* every header size is odd */
    if (type != SDS_TYPE_5) {
        /* The whole usable block is capacity, unless the type clamps it. */
        size_t usable = zmalloc_size(sdsAllocPtr(s)) - sdsHdrSize(type) - 1;
        CHECK(alloc == (usable < sdsTypeMaxSize(type) ? usable : sdsTypeMaxSize(type)));
    }
}

static int sds_equals(const sds s, const char *expected, size_t len) {
    return sdslen(s) == len && memcmp(s, expected, len) == 0 && s[len] == '\0';
}

#define CHECK_SDS(s, lit) CHECK(sds_equals((s), (lit), sizeof(lit) - 1))

/* ---- header types -------------------------------------------------------------- */

static void test_header_sizes(void) {
    CHECK_EQ_INT(sdsHdrSize(SDS_TYPE_5), 1);
    CHECK_EQ_INT(sdsHdrSize(SDS_TYPE_8), 1 + 2 * 1);
    CHECK_EQ_INT(sdsHdrSize(SDS_TYPE_16), 1 + 2 * 2);
    CHECK_EQ_INT(sdsHdrSize(SDS_TYPE_32), 1 + 2 * 4);
    CHECK_EQ_INT(sdsHdrSize(SDS_TYPE_64), 1 + 2 * 8);
}

static void test_type_max_sizes(void) {
    CHECK(sdsTypeMaxSize(SDS_TYPE_5) == (1u << 5) - 1);
    CHECK(sdsTypeMaxSize(SDS_TYPE_8) == UINT8_MAX);
    CHECK(sdsTypeMaxSize(SDS_TYPE_16) == UINT16_MAX);
    CHECK(sdsTypeMaxSize(SDS_TYPE_32) == (SIZE_MAX > UINT32_MAX ? UINT32_MAX : SIZE_MAX));
    CHECK(sdsTypeMaxSize(SDS_TYPE_64) == SIZE_MAX);
}

static void test_reqtype_boundaries(void) {
    CHECK_EQ_INT(sdsReqType(0), SDS_TYPE_5);
    CHECK_EQ_INT(sdsReqType(31), SDS_TYPE_5);
    CHECK_EQ_INT(sdsReqType(32), SDS_TYPE_8);
    CHECK_EQ_INT(sdsReqType(255), SDS_TYPE_8);
    CHECK_EQ_INT(sdsReqType(256), SDS_TYPE_16);
    CHECK_EQ_INT(sdsReqType(65535), SDS_TYPE_16);
    CHECK_EQ_INT(sdsReqType(65536), SDS_TYPE_32);
    CHECK_EQ_INT(sdsReqType(UINT32_MAX), SDS_TYPE_32);
#if SIZE_MAX > UINT32_MAX
    CHECK_EQ_INT(sdsReqType((size_t)UINT32_MAX + 1), SDS_TYPE_64);
    CHECK_EQ_INT(sdsReqType(SIZE_MAX), SDS_TYPE_64);
#else
    CHECK_EQ_INT(sdsReqType(SIZE_MAX), SDS_TYPE_32); /* no type 64 on 32-bit */
#endif
    /* Every type is chosen exactly up to its own maximum. */
    for (unsigned t = SDS_TYPE_5; t < SDS_TYPE_64; t++) {
        size_t max = sdsTypeMaxSize(t);
        CHECK_EQ_INT(sdsReqType(max), t);
        if (max < SIZE_MAX) CHECK_EQ_INT(sdsReqType(max + 1), t + 1);
    }
}

static void test_new_picks_smallest_type(void) {
    static const struct { size_t len; unsigned type; } cases[] = {
        {0, SDS_TYPE_8}, /* empty strings get room to grow */
        {1, SDS_TYPE_5},      {31, SDS_TYPE_5},     {32, SDS_TYPE_8},
        {255, SDS_TYPE_8},    {256, SDS_TYPE_16},   {65535, SDS_TYPE_16},
        {65536, SDS_TYPE_32}, {200000, SDS_TYPE_32},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sds s = new_pattern(cases[i].len, (unsigned)i);
        CHECK_EQ_INT(sdsType(s), cases[i].type);
        CHECK_EQ_INT(sdslen(s), cases[i].len);
        CHECK(has_pattern(s, 0, cases[i].len, (unsigned)i));
        check_invariants(s);
        sdsfree(s);
    }
}

/* ---- creation -------------------------------------------------------------------- */

static void test_new_variants(void) {
    sds s = sdsnew("hello");
    CHECK_SDS(s, "hello");
    CHECK_EQ_STR(s, "hello"); /* usable as a C string */
    check_invariants(s);
    sdsfree(s);

    s = sdsnew(NULL);
    CHECK_EQ_INT(sdslen(s), 0);
    CHECK(s[0] == '\0');
    sdsfree(s);

    s = sdsempty();
    CHECK_EQ_INT(sdslen(s), 0);
    CHECK_EQ_INT(sdsType(s), SDS_TYPE_8);
    check_invariants(s);
    sdsfree(s);

    s = sdsnewlen(NULL, 300);
    int zeroed = 1;
    for (size_t i = 0; i < 300; i++) zeroed &= s[i] == 0;
    CHECK(zeroed);
    CHECK_EQ_INT(sdslen(s), 300);
    check_invariants(s);
    sdsfree(s);

    s = sdsnewlen(SDS_NOINIT, 40);
    CHECK_EQ_INT(sdslen(s), 40);
    CHECK(s[40] == '\0');
    memset(s, 'x', 40); /* the buffer is writable */
    check_invariants(s);
    sdsfree(s);
}

static void test_binary_with_nuls(void) {
    const char data[] = "a\0b\0\0c";
    sds s = sdsnewlen(data, sizeof data - 1);
    CHECK_EQ_INT(sdslen(s), 6);
    CHECK(CHECK_EQ_MEM(s, data, 6));
    s = sdscatlen(s, "\0z", 2);
    CHECK(sds_equals(s, "a\0b\0\0c\0z", 8));
    sds d = sdsdup(s);
    CHECK(sds_equals(d, "a\0b\0\0c\0z", 8));
    CHECK(d != s);
    CHECK_EQ_INT(sdscmp(s, d), 0);
    sdsfree(d);
    sdsupdatelen(s); /* C-string view stops at the first NUL */
    CHECK_EQ_INT(sdslen(s), 1);
    sdsfree(s);
}

static void test_trynewlen(void) {
    sds s = sdstrynewlen("abc", 3);
    CHECK(s != NULL);
    if (s) CHECK_SDS(s, "abc");
    sdsfree(s);
    /* Sizes whose header + terminator would wrap around. */
    CHECK(sdstrynewlen(NULL, SIZE_MAX) == NULL);
    CHECK(sdstrynewlen(NULL, SIZE_MAX - 1) == NULL);
    CHECK(sdstrynewlen(SDS_NOINIT, SIZE_MAX - sdsHdrSize(SDS_TYPE_64)) == NULL);
    /* Representable but larger than any address space can provide. */
    CHECK(sdstrynewlen(SDS_NOINIT, SIZE_MAX / 2 + 1) == NULL);
}

static void test_free_null(void) {
    sdsfree(NULL);
    sdsfreesplitres(NULL, 0);
    CHECK(1); /* reaching here is the test */
}

static void test_fromlonglong(void) {
    const long long values[] = {0, 1, -1, 9, 10, -10, 99, 100, 12345, -987654321,
                                INT_MAX, INT_MIN, LLONG_MAX, LLONG_MIN, LLONG_MIN + 1,
                                1000000000000000000LL, -999999999999999999LL};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        char expect[32];
        int n = snprintf(expect, sizeof expect, "%lld", values[i]);
        sds s = sdsfromlonglong(values[i]);
        CHECK(sds_equals(s, expect, (size_t)n));
        sdsfree(s);
    }
}

/* ---- growth and capacity ------------------------------------------------------------ */

static void test_make_room_greedy(void) {
    sds s = sdsnew("0123456789");
    s = sdsMakeRoomFor(s, 10);
    CHECK(sdsavail(s) >= 10);
    CHECK(sdsalloc(s) >= 2 * 20); /* doubled below SDS_MAX_PREALLOC */
    CHECK_SDS(s, "0123456789");
    check_invariants(s);
    /* Room already there: no reallocation. */
    char *before = s;
    size_t avail = sdsavail(s);
    s = sdsMakeRoomFor(s, avail);
    CHECK(s == before);
    CHECK_EQ_INT(sdsavail(s), avail);
    sdsfree(s);
}

static void test_make_room_above_prealloc_limit(void) {
    size_t big = 2 * SDS_MAX_PREALLOC;
    sds s = sdsnewlen(NULL, big);
    s = sdsRemoveFreeSpace(s);
    size_t needed = sdsalloc(s) + 1; /* one byte more than the block holds */
    s = sdsMakeRoomFor(s, needed - sdslen(s));
    CHECK(sdsalloc(s) >= needed + SDS_MAX_PREALLOC); /* +1 MB, not doubled */
    CHECK(sdsalloc(s) < 2 * needed);
    check_invariants(s);
    sdsfree(s);
}

static void test_make_room_non_greedy(void) {
    sds s = sdsnew("abc");
    s = sdsMakeRoomForNonGreedy(s, 100);
    CHECK(sdsavail(s) >= 100);
    CHECK(sdsalloc(s) < 2 * 103); /* exact request plus at most allocator slack */
    CHECK_SDS(s, "abc");
    check_invariants(s);
    sdsfree(s);
}

/* The capacity foretold is the one a reservation then gives, size class
 * included, from small to past one size class boundary of a big buffer. */
static void test_non_greedy_capacity(void) {
    size_t adds[] = {0, 1, 100, 4000, 40000, 1048578, 1048576 + 300000};
    for (size_t i = 0; i < sizeof(adds) / sizeof(adds[0]); i++) {
        sds s = new_pattern(20, 3);
        size_t foretold = sdsNonGreedyCapacity(s, adds[i]);
        s = sdsMakeRoomForNonGreedy(s, adds[i]);
        CHECK_EQ_INT(foretold, sdsalloc(s));
        CHECK_EQ_INT(sdsNonGreedyCapacity(s, adds[i]), sdsalloc(s)); /* room already there */
        sdsfree(s);
    }
    sds s = sdsnew("x");
    CHECK_EQ_INT(sdsNonGreedyCapacity(s, SIZE_MAX), SIZE_MAX); /* overflow: no size */
    sdsfree(s);
}

static void test_slack_becomes_capacity(void) {
    /* Lengths whose exact block size is unlikely to be an allocator size class. */
    for (size_t len = 32; len < 3000; len += 97) {
        sds s = new_pattern(len, 5);
        check_invariants(s); /* includes alloc == usable - header - 1 */
        size_t room = sdsavail(s);
        char *before = s;
        s = sdscatlen(s, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", room < 48 ? room : 48);
        CHECK(s == before); /* appending into the slack never reallocates */
        sdsfree(s);
    }
}

static void test_growth_is_amortised(void) {
    /* Appending one byte at a time to 2.5 MB must reallocate O(log n) times
     * below the prealloc limit and once per MB above it. */
    sds s = sdsempty();
    size_t target = 2 * SDS_MAX_PREALLOC + SDS_MAX_PREALLOC / 2, changes = 0;
    size_t last_alloc = sdsalloc(s);
    int steps_ok = 1;
    for (size_t i = 0; i < target; i++) {
        char c = (char)(i * 7);
        s = sdscatlen(s, &c, 1);
        if (sdsalloc(s) != last_alloc) {
            if (last_alloc >= SDS_MAX_PREALLOC && sdsalloc(s) - last_alloc < SDS_MAX_PREALLOC)
                steps_ok = 0;
            last_alloc = sdsalloc(s);
            changes++;
        }
    }
    CHECK(changes <= 30);
    CHECK(steps_ok);
    CHECK_EQ_INT(sdslen(s), target);
    int content_ok = 1;
    for (size_t i = 0; i < target; i++) content_ok &= s[i] == (char)(i * 7);
    CHECK(content_ok);
    check_invariants(s);
    sdsfree(s);
}

static void test_type_transitions_on_append(void) {
    /* From the largest length of each type, one more byte needs the next type. */
    static const struct { size_t len; unsigned from, to; } cases[] = {
        {31, SDS_TYPE_5, SDS_TYPE_8},
        {255, SDS_TYPE_8, SDS_TYPE_16},
        {65535, SDS_TYPE_16, SDS_TYPE_32},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sds s = new_pattern(cases[i].len, 3);
        s = sdsRemoveFreeSpace(s);
        CHECK_EQ_INT(sdsType(s), cases[i].from);
        CHECK_EQ_INT(sdsavail(s), 0);
        s = sdscatlen(s, "\0", 1);
        CHECK_EQ_INT(sdsType(s), cases[i].to);
        CHECK_EQ_INT(sdslen(s), cases[i].len + 1);
        CHECK(has_pattern(s, 0, cases[i].len, 3));
        CHECK(s[cases[i].len] == '\0');
        check_invariants(s);
        sdsfree(s);
    }
}

static void test_type5_grows_into_type8(void) {
    sds s = sdsnew("tiny");
    CHECK_EQ_INT(sdsType(s), SDS_TYPE_5);
    CHECK_EQ_INT(sdsavail(s), 0);
    s = sdsMakeRoomFor(s, 1);
    CHECK_EQ_INT(sdsType(s), SDS_TYPE_8); /* type 5 cannot record spare room */
    CHECK(sdsavail(s) >= 1);
    CHECK_SDS(s, "tiny");
    s = sdscat(s, "!");
    CHECK_SDS(s, "tiny!");
    check_invariants(s);
    sdsfree(s);
}

static void test_remove_free_space(void) {
    sds s = sdsnew("hello world, this is over 31 bytes");
    size_t len = sdslen(s);
    s = sdsMakeRoomFor(s, 10000);
    size_t big_alloc = sdsalloc(s), big_block = sdsAllocSize(s);
    CHECK_EQ_INT(sdsType(s), SDS_TYPE_16);
    s = sdsRemoveFreeSpace(s);
    CHECK(sdsalloc(s) < big_alloc);
    CHECK(sdsAllocSize(s) < big_block);
    CHECK(sdsalloc(s) < len + 32); /* only allocator slack remains */
    CHECK(zmalloc_size(sdsAllocPtr(s)) < 2 * (len + sdsHdrSize(sdsType(s)) + 1));
    CHECK_EQ_INT(sdsType(s), SDS_TYPE_8);
    CHECK_SDS(s, "hello world, this is over 31 bytes");
    check_invariants(s);
    sdsfree(s);

    /* A short string shrinks to the 1-byte header. */
    s = sdsMakeRoomFor(sdsnew("short"), 500);
    s = sdsRemoveFreeSpace(s);
    CHECK_EQ_INT(sdsType(s), SDS_TYPE_5);
    CHECK_SDS(s, "short");
    check_invariants(s);
    sdsfree(s);

    /* Nothing to remove: content and type unchanged. */
    s = sdsRemoveFreeSpace(sdsnew("abc"));
    CHECK_SDS(s, "abc");
    CHECK_EQ_INT(sdsType(s), SDS_TYPE_5);
    sdsfree(s);
}

/* A fresh string's allocator slack is not free space worth a realloc: its
 * block stays (a shrink within the size class frees nothing), content,
 * length and capacity stay right, and it can still grow. */
static void test_remove_free_space_keeps_size_class(void) {
    for (size_t len = 40; len <= 70000; len += len < 2048 ? 7 : 1531) {
        sds s = new_pattern(len, 3);
        size_t block = sdsAllocSize(s), used = zmalloc_used_memory();
        s = sdsRemoveFreeSpace(s);
        CHECK_EQ_INT(sdslen(s), len);
        CHECK(has_pattern(s, 0, len, 3));
        CHECK(sdsAllocSize(s) <= block);
        CHECK(zmalloc_used_memory() <= used);
        CHECK(sdsalloc(s) >= len);
        check_invariants(s);
        s = sdscat(s, "tail");
        CHECK_EQ_INT(sdslen(s), len + 4);
        CHECK(has_pattern(s, 0, len, 3));
        check_invariants(s);
        sdsfree(s);
    }
}

static void test_resize(void) {
    sds s = new_pattern(1000, 9);
    s = sdsResize(s, 5000, 1); /* grow */
    CHECK(sdsalloc(s) >= 5000);
    CHECK_EQ_INT(sdslen(s), 1000);
    CHECK(has_pattern(s, 0, 1000, 9));
    check_invariants(s);

    s = sdsResize(s, 300, 1); /* shrink, truncating content */
    CHECK_EQ_INT(sdslen(s), 300);
    CHECK(sdsalloc(s) >= 300);
    CHECK(has_pattern(s, 0, 300, 9));
    check_invariants(s);

    s = sdsResize(s, 10, 1); /* would regrow: at least type 8 */
    CHECK_EQ_INT(sdsType(s), SDS_TYPE_8);
    CHECK_EQ_INT(sdslen(s), 10);
    CHECK(has_pattern(s, 0, 10, 9));
    check_invariants(s);

    s = sdsResize(s, 10, 0); /* no regrow expected: may use type 5 */
    CHECK_EQ_INT(sdslen(s), 10);
    CHECK(has_pattern(s, 0, 10, 9));
    check_invariants(s);

    s = sdsResize(s, 0, 0);
    CHECK_EQ_INT(sdslen(s), 0);
    CHECK(s[0] == '\0');
    s = sdscat(s, "again");
    CHECK_SDS(s, "again");
    check_invariants(s);
    sdsfree(s);

    /* A large string shrunk to a mid-size keeps its header (realloc in place). */
    s = new_pattern(70000, 2);
    CHECK_EQ_INT(sdsType(s), SDS_TYPE_32);
    s = sdsResize(s, 300, 0);
    CHECK_EQ_INT(sdsType(s), SDS_TYPE_32);
    CHECK(has_pattern(s, 0, 300, 2));
    check_invariants(s);
    sdsfree(s);
}

static void test_incrlen(void) {
    sds s = sdsnew("ab");
    s = sdsMakeRoomFor(s, 50);
    memcpy(s + 2, "cdef", 4);
    sdsIncrLen(s, 4);
    CHECK_SDS(s, "abcdef");
    sdsIncrLen(s, -3);
    CHECK_SDS(s, "abc");
    sdsIncrLen(s, -3);
    CHECK_EQ_INT(sdslen(s), 0);
    CHECK(s[0] == '\0');
    sdsIncrLen(s, 0);
    CHECK_EQ_INT(sdslen(s), 0);
    sdsfree(s);

    /* The same on a 16-bit and a 32-bit header. */
    size_t lens[] = {1000, 100000};
    for (size_t i = 0; i < 2; i++) {
        s = new_pattern(lens[i], 1);
        s = sdsMakeRoomFor(s, 10);
        memset(s + lens[i], 'z', 10);
        sdsIncrLen(s, 10);
        CHECK_EQ_INT(sdslen(s), lens[i] + 10);
        CHECK(s[lens[i] + 9] == 'z' && s[lens[i] + 10] == '\0');
        sdsIncrLen(s, -(ssize_t)lens[i]);
        CHECK_EQ_INT(sdslen(s), 10);
        check_invariants(s);
        sdsfree(s);
    }
}

static void test_growzero(void) {
    sds s = sdsnew("xy");
    s = sdsgrowzero(s, 1); /* never shrinks */
    CHECK_SDS(s, "xy");
    s = sdsgrowzero(s, 300);
    CHECK_EQ_INT(sdslen(s), 300);
    CHECK(s[0] == 'x' && s[1] == 'y');
    int zeroed = 1;
    for (size_t i = 2; i <= 300; i++) zeroed &= s[i] == 0;
    CHECK(zeroed);
    check_invariants(s);
    sdsfree(s);
}

/* ---- oversize requests reach the OOM handler --------------------------------------- */

static jmp_buf oom_jump;
static size_t oom_reported;
static sds oom_victim;

static void oom_handler_jump(size_t size) {
    oom_reported = size;
    longjmp(oom_jump, 1);
}

static int reaches_oom_handler(void (*action)(void)) {
    oom_reported = 0;
    zmalloc_set_oom_handler(oom_handler_jump);
    if (setjmp(oom_jump) == 0) {
        action();
        zmalloc_set_oom_handler(NULL);
        return 0;
    }
    zmalloc_set_oom_handler(NULL);
    return 1;
}

static void grow_by_size_max(void) { oom_victim = sdsMakeRoomFor(oom_victim, SIZE_MAX); }
static void grow_to_size_max(void) {
    oom_victim = sdsMakeRoomForNonGreedy(oom_victim, SIZE_MAX - sdslen(oom_victim));
}
static void grow_near_size_max(void) { oom_victim = sdsMakeRoomFor(oom_victim, SIZE_MAX - 100); }
static void new_size_max(void) { sdsfree(sdsnewlen(SDS_NOINIT, SIZE_MAX)); }
static void new_wrapping(void) { sdsfree(sdsnewlen(SDS_NOINIT, SIZE_MAX - 2)); }
static void grow_beyond_address_space(void) {
    oom_victim = sdsMakeRoomForNonGreedy(oom_victim, SIZE_MAX / 2 + 1);
}
static void resize_size_max(void) { oom_victim = sdsResize(oom_victim, SIZE_MAX, 1); }
static void growzero_size_max(void) { oom_victim = sdsgrowzero(oom_victim, SIZE_MAX); }

static void test_oversize_reaches_oom_handler(void) {
    void (*actions[])(void) = {grow_by_size_max, grow_to_size_max, grow_near_size_max,
                               new_size_max, new_wrapping, grow_beyond_address_space,
                               resize_size_max, growzero_size_max};
    oom_victim = sdsnew("still here");
    for (size_t i = 0; i < sizeof actions / sizeof actions[0]; i++) {
        CHECK(reaches_oom_handler(actions[i]));
        CHECK(oom_reported > SIZE_MAX / 2);
        CHECK_SDS(oom_victim, "still here"); /* untouched by the failed call */
    }
    sdsfree(oom_victim);
}

/* ---- appending and copying -------------------------------------------------------------- */

static void test_cat_family(void) {
    sds s = sdsempty();
    s = sdscat(s, "foo");
    s = sdscatlen(s, "barXXX", 3);
    sds t = sdsnew("baz");
    s = sdscatsds(s, t);
    CHECK_SDS(s, "foobarbaz");
    s = sdscat(s, "");
    s = sdscatlen(s, NULL, 0);
    CHECK_SDS(s, "foobarbaz");
    check_invariants(s);
    sdsfree(s);
    sdsfree(t);
}

static void test_cat_from_itself(void) {
    /* The source points into the string that is about to move. */
    sds s = sdsnew("abc");
    for (int i = 0; i < 12; i++) s = sdscatsds(s, s);
    CHECK_EQ_INT(sdslen(s), 3u << 12);
    int ok = 1;
    for (size_t i = 0; i < sdslen(s); i++) ok &= s[i] == "abc"[i % 3];
    CHECK(ok);
    s = sdscatlen(s, s + 1, 2);
    CHECK(s[sdslen(s) - 2] == 'b' && s[sdslen(s) - 1] == 'c');
    check_invariants(s);
    sdsfree(s);
}

static void test_cpy(void) {
    sds s = sdsnew("a long enough initial value, over 31");
    s = sdscpy(s, "short");
    CHECK_SDS(s, "short");
    s = sdscpylen(s, "x\0y", 3);
    CHECK(sds_equals(s, "x\0y", 3));
    char big[600];
    fill_pattern(big, sizeof big, 4);
    s = sdscpylen(s, big, sizeof big); /* needs a bigger header */
    CHECK_EQ_INT(sdslen(s), sizeof big);
    CHECK(has_pattern(s, 0, sizeof big, 4));
    s = sdscpylen(s, s + 100, 50); /* overlapping source */
    CHECK(sds_equals(s, big + 100, 50));
    s = sdscpy(s, "");
    CHECK_EQ_INT(sdslen(s), 0);
    check_invariants(s);
    sdsfree(s);

    s = sdsnew("ab");
    s = sdscpylen(s, s, 2); /* copy onto itself */
    CHECK_SDS(s, "ab");
    sdsfree(s);
}

static void test_catprintf(void) {
    sds s = sdsnew("n=");
    s = sdscatprintf(s, "%d %s %05.1f %c", -42, "str", 3.14159, 'Z');
    char expect[64];
    int n = snprintf(expect, sizeof expect, "n=%d %s %05.1f %c", -42, "str", 3.14159, 'Z');
    CHECK(sds_equals(s, expect, (size_t)n));
    sdsfree(s);

    /* Longer than the scratch buffer. */
    char longarg[2000];
    fill_pattern(longarg, sizeof longarg - 1, 1);
    for (size_t i = 0; i < sizeof longarg - 1; i++) longarg[i] = (char)('a' + (unsigned char)longarg[i] % 26);
    longarg[sizeof longarg - 1] = '\0';
    s = sdscatprintf(sdsempty(), "[%s]%d", longarg, 7);
    CHECK_EQ_INT(sdslen(s), strlen(longarg) + 3);
    CHECK(s[0] == '[' && memcmp(s + 1, longarg, strlen(longarg)) == 0);
    CHECK(s[sdslen(s) - 1] == '7');
    check_invariants(s);

    /* Arguments pointing into the destination itself. */
    sds self = sdsnew("ab");
    self = sdscatprintf(self, "%s-%s", self, self);
    CHECK_SDS(self, "abab-ab");
    sdsfree(self);
    sdsfree(s);

    s = sdscatprintf(sdsempty(), "%s", "");
    CHECK_EQ_INT(sdslen(s), 0);
    sdsfree(s);
}

static void test_catfmt(void) {
    sds arg = sdsnewlen("S\0S", 3);
    sds s = sdscatfmt(sdsnew("<"), "%s|%S|%i|%I|%u|%U|%%|", "cstr", arg, INT_MIN, LLONG_MIN,
                      UINT_MAX, ULLONG_MAX);
    char expect[200];
    int n = snprintf(expect, sizeof expect, "<cstr|S_S|%d|%lld|%u|%llu|%%|", INT_MIN, LLONG_MIN,
                     UINT_MAX, ULLONG_MAX);
    expect[7] = '\0'; /* the %S argument carries an embedded NUL */
    CHECK(sds_equals(s, expect, (size_t)n));
    sdsfree(s);

    s = sdscatfmt(sdsempty(), "%i %I %u %U", 0, 0LL, 0u, 0ULL);
    CHECK_SDS(s, "0 0 0 0");
    sdsfree(s);

    s = sdscatfmt(sdsempty(), "%i,%I", INT_MAX, LLONG_MAX);
    n = snprintf(expect, sizeof expect, "%d,%lld", INT_MAX, LLONG_MAX);
    CHECK(sds_equals(s, expect, (size_t)n));
    sdsfree(s);

    /* Unknown verbs print their character; a lone trailing '%' is dropped. */
    s = sdscatfmt(sdsempty(), "a%qb%");
    CHECK_SDS(s, "aqb");
    sdsfree(s);

    s = sdscatfmt(sdsempty(), "no verbs at all");
    CHECK_SDS(s, "no verbs at all");
    sdsfree(s);
    sdsfree(arg);
}

static void test_join(void) {
    char *words[] = {"one", "two", "three"};
    sds s = sdsjoin(words, 3, ", ");
    CHECK_SDS(s, "one, two, three");
    sdsfree(s);
    s = sdsjoin(words, 1, "-");
    CHECK_SDS(s, "one");
    sdsfree(s);
    s = sdsjoin(words, 0, "-");
    CHECK_EQ_INT(sdslen(s), 0);
    sdsfree(s);

    sds parts[3] = {sdsnewlen("a\0", 2), sdsempty(), sdsnew("c")};
    s = sdsjoinsds(parts, 3, "\0|", 2);
    CHECK(sds_equals(s, "a\0\0|\0|c", 7));
    sdsfree(s);
    for (int i = 0; i < 3; i++) sdsfree(parts[i]);
}

/* ---- in-place edits ---------------------------------------------------------------------- */

static void test_trim(void) {
    sds s = sdsnew(" x ciao xxy ");
    s = sdstrim(s, " x");
    CHECK_SDS(s, "ciao xxy");
    s = sdstrim(s, "y");
    CHECK_SDS(s, "ciao xx");
    s = sdstrim(s, "");
    CHECK_SDS(s, "ciao xx");
    s = sdstrim(s, "oaicx ");
    CHECK_EQ_INT(sdslen(s), 0); /* everything trimmed */
    CHECK(s[0] == '\0');
    s = sdstrim(s, "abc"); /* empty stays empty */
    CHECK_EQ_INT(sdslen(s), 0);
    sdsfree(s);

    s = sdsnewlen("\0ab\0", 4); /* NUL is never part of a C-string set */
    s = sdstrim(s, "ab");
    CHECK(sds_equals(s, "\0ab\0", 4));
    sdsfree(s);

    s = sdsnew("...");
    s = sdstrim(s, ".");
    CHECK_EQ_INT(sdslen(s), 0);
    check_invariants(s);
    sdsfree(s);
}

static void check_range(const char *input, ssize_t start, ssize_t end, const char *expected) {
    sds s = sdsnew(input);
    sdsrange(s, start, end);
    if (!sds_equals(s, expected, strlen(expected)))
        printf("      sdsrange(\"%s\", %zd, %zd) gave \"%s\", expected \"%s\"\n",
               input, start, end, s, expected);
    CHECK(sds_equals(s, expected, strlen(expected)));
    sdsfree(s);
}

static void test_range(void) {
    check_range("ciao", 1, 1, "i");
    check_range("ciao", 1, -1, "iao");
    check_range("ciao", -2, -1, "ao");
    check_range("ciao", 2, 1, "");
    check_range("ciao", 1, 100, "iao");
    check_range("ciao", 0, 0, "c");
    check_range("ciao", 0, -1, "ciao");
    check_range("ciao", -100, 100, "ciao");
    check_range("ciao", 4, 10, "");      /* start just past the end */
    check_range("ciao", 100, 100, "");
    check_range("ciao", -1, -2, "");
    check_range("ciao", -100, -100, "c"); /* both clamp to the first byte */
    check_range("ciao", 3, -1, "o");
    check_range("", 0, 0, "");
    check_range("", -1, 10, "");
    check_range("x", 0, SSIZE_MAX, "x");
    check_range("xyz", -SSIZE_MAX - 1, -SSIZE_MAX - 1, "x");
    check_range("xyz", SSIZE_MAX, -SSIZE_MAX - 1, "");
}

static void test_substr(void) {
    sds s = sdsnew("hello world");
    sdssubstr(s, 6, 5);
    CHECK_SDS(s, "world");
    sdssubstr(s, 1, 100); /* len clamped */
    CHECK_SDS(s, "orld");
    sdssubstr(s, 0, 4);
    CHECK_SDS(s, "orld");
    sdssubstr(s, 4, 1); /* start at the end */
    CHECK_EQ_INT(sdslen(s), 0);
    sdsfree(s);
    s = sdsnew("abc");
    sdssubstr(s, SIZE_MAX, SIZE_MAX);
    CHECK_EQ_INT(sdslen(s), 0);
    sdsfree(s);
    s = sdsnew("abc");
    sdssubstr(s, 1, 0);
    CHECK_EQ_INT(sdslen(s), 0);
    CHECK(s[0] == '\0');
    sdsfree(s);
}

static void test_clear_and_updatelen(void) {
    sds s = sdsMakeRoomFor(sdsnew("some content here"), 100);
    size_t alloc = sdsalloc(s);
    sdsclear(s);
    CHECK_EQ_INT(sdslen(s), 0);
    CHECK(s[0] == '\0');
    CHECK_EQ_INT(sdsalloc(s), alloc); /* the capacity is kept */
    s = sdscat(s, "abcdef");
    s[3] = '\0';
    sdsupdatelen(s);
    CHECK_SDS(s, "abc");
    sdsfree(s);
}

static void test_case_and_mapchars(void) {
    sds s = sdsnewlen("Hello, WORLD! \xc9\xe9 09", 20);
    sds original = sdsdup(s);
    sdstolower(s);
    CHECK(sds_equals(s, "hello, world! \xc9\xe9 09", 20)); /* non-ASCII untouched */
    sdstoupper(s);
    CHECK(sds_equals(s, "HELLO, WORLD! \xc9\xe9 09", 20));
    sdsfree(original);
    sdsfree(s);

    s = sdsnewlen("hello\0world", 11);
    s = sdsmapchars(s, "ho\0", "01_", 3);
    CHECK(sds_equals(s, "0ell1_w1rld", 11));
    s = sdsmapchars(s, "ll", "XY", 2); /* the first matching entry wins */
    CHECK(sds_equals(s, "0eXX1_w1rXd", 11));
    s = sdsmapchars(s, "", "", 0);
    CHECK(sds_equals(s, "0eXX1_w1rXd", 11));
    sdsfree(s);
}

static void test_cmp(void) {
    static const struct { const char *a; size_t alen; const char *b; size_t blen; int sign; } cases[] = {
        {"foo", 3, "foa", 3, 1},   {"bar", 3, "bar", 3, 0},   {"aar", 3, "bar", 3, -1},
        {"ab", 2, "abc", 3, -1},   {"abc", 3, "ab", 2, 1},    {"", 0, "", 0, 0},
        {"", 0, "a", 1, -1},       {"a\0b", 3, "a\0c", 3, -1}, {"a\0", 2, "a", 1, 1},
        {"\xff", 1, "\x01", 1, 1}, /* bytes compare unsigned */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sds a = sdsnewlen(cases[i].a, cases[i].alen), b = sdsnewlen(cases[i].b, cases[i].blen);
        int c = sdscmp(a, b);
        CHECK_EQ_INT((c > 0) - (c < 0), cases[i].sign);
        int r = sdscmp(b, a);
        CHECK_EQ_INT((r > 0) - (r < 0), -cases[i].sign);
        sdsfree(a);
        sdsfree(b);
    }
}

/* ---- splitting -------------------------------------------------------------------------------- */

static void test_splitlen(void) {
    int count = -1;
    sds *t = sdssplitlen("foo_-_bar", 9, "_-_", 3, &count);
    CHECK_EQ_INT(count, 2);
    if (count == 2) {
        CHECK_SDS(t[0], "foo");
        CHECK_SDS(t[1], "bar");
    }
    sdsfreesplitres(t, count);

    t = sdssplitlen(",a,,b,", 6, ",", 1, &count); /* empty tokens are kept */
    CHECK_EQ_INT(count, 5);
    if (count == 5) {
        const char *expect[] = {"", "a", "", "b", ""};
        for (int i = 0; i < 5; i++) CHECK(sds_equals(t[i], expect[i], strlen(expect[i])));
    }
    sdsfreesplitres(t, count);

    t = sdssplitlen("no separator", 12, "|", 1, &count);
    CHECK_EQ_INT(count, 1);
    if (count == 1) CHECK_SDS(t[0], "no separator");
    sdsfreesplitres(t, count);

    t = sdssplitlen("ab", 2, "abc", 3, &count); /* separator longer than input */
    CHECK_EQ_INT(count, 1);
    sdsfreesplitres(t, count);

    t = sdssplitlen("", 0, ",", 1, &count);
    CHECK(t != NULL);
    CHECK_EQ_INT(count, 0);
    sdsfreesplitres(t, count);

    t = sdssplitlen("a\0b\0c", 5, "\0", 1, &count); /* binary separator */
    CHECK_EQ_INT(count, 3);
    if (count == 3) CHECK_SDS(t[2], "c");
    sdsfreesplitres(t, count);

    count = 7;
    CHECK(sdssplitlen("abc", 3, "", 0, &count) == NULL);
    CHECK_EQ_INT(count, 0);
    CHECK(sdssplitlen("abc", -1, ",", 1, &count) == NULL);
    CHECK(sdssplitlen("abc", 3, ",", -2, &count) == NULL);
}

static void test_splitlen_many_tokens(void) {
    sds line = sdsempty();
    for (int i = 0; i < 1000; i++) line = sdscatfmt(line, i ? "::%i" : "%i", i);
    int count = 0;
    sds *t = sdssplitlen(line, (ssize_t)sdslen(line), "::", 2, &count);
    CHECK_EQ_INT(count, 1000);
    int ok = count == 1000;
    for (int i = 0; ok && i < 1000; i++) {
        sds n = sdsfromlonglong(i);
        ok = sdscmp(n, t[i]) == 0;
        sdsfree(n);
    }
    CHECK(ok);
    sdsfreesplitres(t, count);
    sdsfree(line);
}

/* Splits line and compares with the expected argument list (lengths given
 * so arguments may contain NULs). */
static void check_splitargs(const char *line, int expected_argc, const char *const *expected,
                            const size_t *lens) {
    int argc = -1;
    sds *argv = sdssplitargs(line, &argc);
    CHECK(argv != NULL);
    CHECK_EQ_INT(argc, expected_argc);
    for (int i = 0; argv && i < argc && i < expected_argc; i++) {
        size_t len = lens ? lens[i] : strlen(expected[i]);
        if (!sds_equals(argv[i], expected[i], len))
            printf("      splitargs(%s): argument %d differs\n", line, i);
        CHECK(sds_equals(argv[i], expected[i], len));
    }
    sdsfreesplitres(argv, argc);
}

static void test_splitargs_good(void) {
    const char *a1[] = {"set", "key", "value"};
    check_splitargs("set key value", 3, a1, NULL);
    check_splitargs("  \t set \r\n key \v\f value \n", 3, a1, NULL);

    /* \v and \f separate words only between them; inside a word they are
     * part of it (Redis ends an unquoted word only at space, \t, \r, \n). */
    const char *a0[] = {"a\vb", "c\fd"};
    check_splitargs("a\vb \v c\fd", 2, a0, NULL);

    const char *a2[] = {"say", "hello \"world\"", "\n\r\t\a\b", "AB\xff", "q\\"};
    check_splitargs("say \"hello \\\"world\\\"\" \"\\n\\r\\t\\a\\b\" \"\\x41\\x42\\xFf\" \"\\q\\\\\"",
                    5, a2, NULL);

    const char *a3[] = {"it's", "a\\nb", "\\\"x\""};
    check_splitargs("'it\\'s' 'a\\nb' '\\\"x\"'", 3, a3, NULL);

    const char *a4[] = {"ab c", "de'f"}; /* quotes may open mid-argument */
    check_splitargs("a\"b c\" d'e\\'f'", 2, a4, NULL);

    const char *a5[] = {"", "", "x"};
    check_splitargs("\"\" '' x", 3, a5, NULL);

    const char *a6[] = {"xzz", "x4", "\0end"}; /* incomplete hex escapes are literal 'x' */
    const size_t l6[] = {3, 2, 4};
    check_splitargs("\"\\xzz\" \"\\x4\" \"\\x00end\"", 3, a6, l6);

    check_splitargs("", 0, NULL, NULL);
    check_splitargs(" \t\n ", 0, NULL, NULL);
}

static void test_splitargs_bad(void) {
    const char *bad[] = {
        "\"unterminated",  "'unterminated",    "ok \"closed\"x", "'closed'x",
        "\"a\"\"b\"",      "\"trailing \\",    "'trailing \\'",  "x \"\\x4",
        "mid\"open",       "a 'b' \"c",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int argc = 99;
        sds *argv = sdssplitargs(bad[i], &argc);
        if (argv != NULL) printf("      accepted: %s\n", bad[i]);
        CHECK(argv == NULL);
        CHECK_EQ_INT(argc, 0);
        sdsfreesplitres(argv, argc);
    }
}

/* ---- quoting ---------------------------------------------------------------------------------- */

/* The quoted form of one byte, derived from the documented escape rules. */
static void expected_repr(unsigned char c, char *out) {
    const char *named = NULL;
    switch (c) {
    case '\n': named = "\\n"; break;
    case '\r': named = "\\r"; break;
    case '\t': named = "\\t"; break;
    case '\a': named = "\\a"; break;
    case '\b': named = "\\b"; break;
    case '"': named = "\\\""; break;
    case '\\': named = "\\\\"; break;
    }
    if (named)
        sprintf(out, "\"%s\"", named);
    else if (c >= 32 && c <= 126)
        sprintf(out, "\"%c\"", c);
    else
        sprintf(out, "\"\\x%02x\"", c);
}

static void test_catrepr_every_byte(void) {
    int all_ok = 1;
    for (int b = 0; b < 256; b++) {
        char c = (char)b, expect[16];
        expected_repr((unsigned char)b, expect);
        sds s = sdscatrepr(sdsempty(), &c, 1);
        if (!sds_equals(s, expect, strlen(expect))) {
            printf("      byte 0x%02x: got %s, expected %s\n", b, s, expect);
            all_ok = 0;
        }
        sdsfree(s);
    }
    CHECK(all_ok);

    sds s = sdscatrepr(sdsnew("prefix:"), "", 0);
    CHECK_SDS(s, "prefix:\"\"");
    sdsfree(s);
}

static void test_catrepr_roundtrip(void) {
    char all[256];
    for (int b = 0; b < 256; b++) all[b] = (char)b;
    sds quoted = sdscatrepr(sdsempty(), all, sizeof all);
    int argc = 0;
    sds *argv = sdssplitargs(quoted, &argc);
    CHECK(argv != NULL);
    CHECK_EQ_INT(argc, 1);
    if (argv && argc == 1) CHECK(sds_equals(argv[0], all, sizeof all));
    sdsfreesplitres(argv, argc);
    sdsfree(quoted);
}

/* Whether s, written bare, reads back through sdssplitargs as exactly s. */
static int survives_bare(const sds s) {
    int argc = 0;
    sds *argv = sdssplitargs(s, &argc);
    int ok = argv != NULL && argc == 1 && sdscmp(argv[0], s) == 0;
    sdsfreesplitres(argv, argc);
    return ok;
}

/* Whether sdscatrepr's output reads back as exactly s. */
static int survives_quoted(const sds s) {
    sds q = sdscatrepr(sdsempty(), s, sdslen(s));
    int argc = 0;
    sds *argv = sdssplitargs(q, &argc);
    int ok = argv != NULL && argc == 1 && sdscmp(argv[0], s) == 0;
    sdsfreesplitres(argv, argc);
    sdsfree(q);
    return ok;
}

static void test_needsrepr(void) {
    sds empty = sdsempty();
    CHECK(sdsneedsrepr(empty)); /* written bare it would vanish */
    CHECK(!survives_bare(empty));
    CHECK(survives_quoted(empty));
    sdsfree(empty);

    int rule_ok = 1, bare_ok = 1, quoted_ok = 1;
    for (int b = 0; b < 256; b++) {
        char forms[3][3] = {{(char)b}, {'a', (char)b, 'z'}, {(char)b, 'a', 'a'}};
        size_t lens[3] = {1, 3, 3};
        int special = b <= ' ' || b >= 127 || b == '"' || b == '\\' || b == '\'';
        for (int f = 0; f < 3; f++) {
            sds s = sdsnewlen(forms[f], lens[f]);
            int needs = sdsneedsrepr(s);
            if (needs != special) rule_ok = 0;
            if (!needs && !survives_bare(s)) bare_ok = 0;
            if (!survives_quoted(s)) quoted_ok = 0;
            sdsfree(s);
        }
    }
    CHECK(rule_ok);   /* exactly the documented bytes need quoting */
    CHECK(bare_ok);   /* and nothing else is needed for a round trip */
    CHECK(quoted_ok); /* while quoting always round-trips */

    sds plain = sdsnew("simple-value_1.2:3");
    CHECK(!sdsneedsrepr(plain));
    sdsfree(plain);
}

/* ---- odd addresses ------------------------------------------------------------------------------ */

/* Copies the header and content of s to every misalignment of an aligned
 * scratch block and checks that header fields read and write there, and that
 * functions which do not reallocate work on the copy. */
static void check_header_at_every_offset(const sds s) {
    unsigned type = sdsType(s);
    size_t hdr = sdsHdrSize(type), len = sdslen(s);
    size_t total = hdr + len + 1;
    unsigned char *scratch = malloc(total + 16);
    for (size_t off = 0; off < 8; off++) {
        unsigned char *base = scratch + bytes_to_alignment(scratch, 8) + off;
        memcpy(base, sdsAllocPtr(s), total);
        sds t = (sds)(base + hdr);
        CHECK_EQ_INT(sdsType(t), type);
        CHECK_EQ_INT(sdslen(t), len);
        CHECK_EQ_INT(sdsalloc(t), sdsalloc(s));
        CHECK_EQ_INT(sdscmp(t, s), 0);
        CHECK_EQ_INT(sdsneedsrepr(t), sdsneedsrepr(s));

        sds d = sdsdup(t);
        CHECK_EQ_INT(sdscmp(d, s), 0);
        sdsfree(d);

        /* Writes through the setters land in the documented bytes. */
        if (type != SDS_TYPE_5) {
            size_t w = sdsFieldWidth(type);
            size_t alloc = len < sdsTypeMaxSize(type) ? len + 1 : len;
            sdssetalloc(t, alloc);
            CHECK_EQ_INT(sdsalloc(t), alloc);
            CHECK_EQ_INT(sdsavail(t), alloc - len);
            if (w == 2) CHECK_EQ_INT(load16(t - 3), alloc);
            if (w == 4) CHECK_EQ_INT(load32(t - 5), alloc);
            if (w == 2) CHECK_EQ_INT(load16(t - 5), len);
            if (w == 4) CHECK_EQ_INT(load32(t - 9), len);
            if (w == 1) CHECK_EQ_INT((unsigned char)t[-3], len);
        } else {
            CHECK_EQ_INT((unsigned char)t[-1] >> 3, len);
        }
        sdssetlen(t, len - 1);
        t[len - 1] = '\0';
        CHECK_EQ_INT(sdslen(t), len - 1);
        sdsinclen(t, 1);
        CHECK_EQ_INT(sdslen(t), len);
        t[len] = '\0';

        sdsrange(t, 1, -2);
        CHECK_EQ_INT(sdslen(t), len - 2);
        CHECK(memcmp(t, s + 1, len - 2) == 0);
        sdstoupper(t);
        t = sdstrim(t, "\x01\x02");
        CHECK(sdslen(t) <= len - 2);
        sdsclear(t);
        CHECK_EQ_INT(sdslen(t), 0);
    }
    free(scratch);
}

static void test_headers_at_odd_addresses(void) {
    const size_t lens[] = {5, 31, 40, 255, 1000, 65535, 70000};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        sds s = new_pattern(lens[i], 11);
        s = sdsMakeRoomForNonGreedy(s, 0);
        check_header_at_every_offset(s);
        sdsfree(s);
    }
}

static void test_type64_header_at_odd_addresses(void) {
    /* A real type 64 string needs 4 GB; build its header by hand instead. */
    const size_t hdr = sdsHdrSize(SDS_TYPE_64);
    unsigned char scratch[64];
    for (size_t off = 0; off < 8; off++) {
        unsigned char *base = scratch + bytes_to_alignment(scratch, 8) + off;
        sds t = (sds)(base + hdr);
        t[-1] = SDS_TYPE_64;
        memcpy(t, "sixty-four", 11);
        sdssetlen(t, 10);
        sdssetalloc(t, 10);
        CHECK_EQ_INT(load64(t - 17), 10);
        CHECK_EQ_INT(load64(t - 9), 10);
        CHECK_EQ_INT(sdslen(t), 10);
        CHECK_EQ_INT(sdsalloc(t), 10);
        CHECK_EQ_INT(sdsavail(t), 0);
        sdsrange(t, 0, 4);
        CHECK(sds_equals(t, "sixty", 5));
        sdsinclen(t, 1);
        CHECK_EQ_INT(sdslen(t), 6);
        CHECK_EQ_INT(sdsAllocSize(t), hdr + 10 + 1);
        CHECK(sdsAllocPtr(t) == base);
    }
}

static void test_buffers_at_odd_offsets(void) {
    /* Real strings of every creatable type: the buffer is at an odd address
     * while the whole API runs on it. */
    const size_t lens[] = {3, 100, 1000, 100000};
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        sds s = new_pattern(lens[i], 6);
        CHECK(((uintptr_t)s & 1) == 1);
        s = sdscatfmt(s, "%U", (unsigned long long)lens[i]);
        s = sdscatrepr(s, "\x01", 1);
        sdsrange(s, 0, -1);
        s = sdsRemoveFreeSpace(s);
        CHECK(((uintptr_t)s & 1) == 1);
        CHECK(has_pattern(s, 0, lens[i], 6));
        check_invariants(s);
        sdsfree(s);
    }
}

TEST_MAIN(
    RUN(test_header_sizes);
    RUN(test_type_max_sizes);
    RUN(test_reqtype_boundaries);
    RUN(test_new_picks_smallest_type);
    RUN(test_new_variants);
    RUN(test_binary_with_nuls);
    RUN(test_trynewlen);
    RUN(test_free_null);
    RUN(test_fromlonglong);
    RUN(test_make_room_greedy);
    RUN(test_remove_free_space_keeps_size_class);
    RUN(test_make_room_above_prealloc_limit);
    RUN(test_make_room_non_greedy);
    RUN(test_non_greedy_capacity);
    RUN(test_slack_becomes_capacity);
    RUN(test_growth_is_amortised);
    RUN(test_type_transitions_on_append);
    RUN(test_type5_grows_into_type8);
    RUN(test_remove_free_space);
    RUN(test_resize);
    RUN(test_incrlen);
    RUN(test_growzero);
    RUN(test_oversize_reaches_oom_handler);
    RUN(test_cat_family);
    RUN(test_cat_from_itself);
    RUN(test_cpy);
    RUN(test_catprintf);
    RUN(test_catfmt);
    RUN(test_join);
    RUN(test_trim);
    RUN(test_range);
    RUN(test_substr);
    RUN(test_clear_and_updatelen);
    RUN(test_case_and_mapchars);
    RUN(test_cmp);
    RUN(test_splitlen);
    RUN(test_splitlen_many_tokens);
    RUN(test_splitargs_good);
    RUN(test_splitargs_bad);
    RUN(test_catrepr_every_byte);
    RUN(test_catrepr_roundtrip);
    RUN(test_needsrepr);
    RUN(test_headers_at_odd_addresses);
    RUN(test_type64_header_at_odd_addresses);
    RUN(test_buffers_at_odd_offsets);
)
