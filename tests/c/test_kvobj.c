/* test_kvobj.c -- unit tests for src/lib/kvobj.c (keyspace entries: value object
 * and key in one block).
 *
 * The library has no object.c behind it here, so the tests build their own
 * value objects the way object.c does (a RAW robj with its own sds, an
 * EMBSTR robj with the string in the same block, an INT robj) and free
 * them the way decrRefCount does for strings: the RAW sds, then the block.
 * Every test checks that the allocator's byte count returns to where it
 * started, which proves the ownership rules: a template consumed, a payload
 * moved exactly once.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kvobj.h"
#include "portable.h"
#include "test.h"
#include "zmalloc.h"

/* ---- value objects, built as object.c builds them --------------------------- */

static robj *newObject(int type, int encoding, void *ptr) {
    robj *o = zcalloc(sizeof(robj));
    o->type = (unsigned)type;
    o->encoding = (unsigned)encoding;
    o->refcount = 1;
    o->lru = 12345;
    o->ptr = ptr;
    return o;
}

static robj *newRaw(const char *s, size_t len) {
    return newObject(OBJ_STRING, OBJ_ENCODING_RAW, sdsnewlen(s, len));
}

static robj *newInt(long value) {
    return newObject(OBJ_STRING, OBJ_ENCODING_INT, (void *)(intptr_t)value);
}

/* An robj and a type-8 sds in one block, as createEmbeddedStringObject. */
static robj *newEmbstr(const char *s, size_t len) {
    robj *o = zcalloc(sizeof(robj) + 3 + len + 1);
    char *buf = (char *)(o + 1) + 3;
    buf[-1] = SDS_TYPE_8;
    sdssetlen(buf, len);
    sdssetalloc(buf, len);
    memcpy(buf, s, len);
    o->type = OBJ_STRING;
    o->encoding = OBJ_ENCODING_EMBSTR;
    o->refcount = 1;
    o->lru = 777;
    o->ptr = buf;
    return o;
}

/* decrRefCount for the objects of these tests. */
static void release(robj *o) {
    if (o->refcount > 1) {
        o->refcount--;
        return;
    }
    if (o->type == OBJ_STRING && o->encoding == OBJ_ENCODING_RAW) sdsfree(o->ptr);
    else if (o->type == OBJ_LIST) zfree(o->ptr);
    zfree(o);
}

static int valueIs(const robj *o, const char *s, size_t len) {
    return sdslen(o->ptr) == len && memcmp(o->ptr, s, len) == 0 && ((char *)o->ptr)[len] == '\0';
}

static int keyIs(const kvobj *o, const char *s, size_t len) {
    sds key = kvobjGetKey(o);
    return sdslen(key) == len && memcmp(key, s, len) == 0 && key[len] == '\0';
}

static int insideBlock(const kvobj *o, const void *p) {
    const char *c = p, *start = (const char *)o;
    return c > start && c < start + kvobjAllocSize(o);
}

static char *pattern(size_t len, int seed) {
    char *buf = malloc(len + 1);
    for (size_t i = 0; i < len; i++) buf[i] = (char)((i * 31 + (size_t)seed) & 0xff);
    return buf;
}

static int abortedInChild(void (*body)(void)) {
    int status = test_run_in_child(body);
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

/* ---- layout ---------------------------------------------------------------------- */

static const size_t keyLengths[] = {0, 1, 16, 31, 32, 255, 256, 65535, 65536, 70001};
#define NKEYLENGTHS (sizeof keyLengths / sizeof keyLengths[0])

/* Every key length (each sds header type) with each kind of value, with and
 * without an expire: key, value, flags and alignment come out right. */
static void test_layout_all_key_sizes(void) {
    size_t start = zmalloc_used_memory();
    for (size_t k = 0; k < NKEYLENGTHS; k++) {
        size_t keylen = keyLengths[k];
        char *key = pattern(keylen, (int)k);
        for (int withExpire = 0; withExpire <= 1; withExpire++) {
            long long when = withExpire ? 1700000000123LL + (long long)k : -1;
            robj *vals[4] = {newEmbstr("abc", 3), newEmbstr("0123456789012345678901234567890123456789abcd", 44),
                             newRaw("raw value longer than forty-four bytes, stored apart", 52), newInt(-42)};
            for (int v = 0; v < 4; v++) {
                robj *val = vals[v];
                int encoding = (int)val->encoding;
                void *payload = val->ptr;
                sds copy = encoding == OBJ_ENCODING_INT ? NULL : sdsdup(val->ptr);
                kvobj *o = kvobjCreate(key, keylen, val, when);
                CHECK(keyIs(o, key, keylen));
                CHECK_EQ_INT(o->type, OBJ_STRING);
                CHECK_EQ_INT(o->encoding, encoding);
                CHECK_EQ_INT(o->refcount, 1);
                CHECK_EQ_INT(o->hasembkey, 1);
                CHECK_EQ_INT(o->hasexpire, withExpire);
                CHECK_EQ_INT(o->hasembval, encoding == OBJ_ENCODING_EMBSTR);
                CHECK_EQ_INT(kvobjGetExpire(o), when);
                CHECK_EQ_INT(kvobjHasExpire(o), withExpire);
                CHECK(kvobjGetNext(o) == NULL);
                CHECK(is_aligned(o, sizeof(void *)));
                if (encoding == OBJ_ENCODING_INT) {
                    CHECK(o->ptr == payload);
                } else {
                    CHECK(valueIs(o, copy, sdslen(copy)));
                    /* embedded strings live in the block, RAW ones moved */
                    CHECK_EQ_INT(insideBlock(o, o->ptr), encoding == OBJ_ENCODING_EMBSTR);
                    if (encoding == OBJ_ENCODING_RAW) CHECK(o->ptr == payload);
                }
                CHECK(insideBlock(o, kvobjGetKey(o)));
                sdsfree(copy);
                release(o);
            }
        }
        free(key);
    }
    CHECK_EQ_INT(zmalloc_used_memory(), start);
}

/* The memory target: a 16-byte key and a 3-byte string fit 48 bytes on
 * 64-bit targets (40 on 32-bit), 8 more with an expire. */
static void test_compact_size(void) {
    const size_t budget = sizeof(void *) == 8 ? 48 : 40;
    for (int withExpire = 0; withExpire <= 1; withExpire++) {
        kvobj *o = kvobjCreate("key:000000000001", 16, newEmbstr("xyz", 3), withExpire ? 5 : -1);
        size_t used = (size_t)((char *)o->ptr + 3 + 1 - (char *)o);
        CHECK(used <= budget + (withExpire ? 8u : 0u));
        CHECK(kvobjAllocSize(o) >= used);
        release(o);
    }
}

/* The next pointer and the expire slot are naturally aligned members. */
static void test_alignment_of_fields(void) {
    kvobj *o = kvobjCreate("k", 1, newInt(7), 99);
    CHECK(is_aligned(&((kvobjHeadExpire *)o)->next, sizeof(void *)));
    CHECK(is_aligned(&((kvobjHeadExpire *)o)->expire, sizeof(int64_t)));
    CHECK_EQ_INT(offsetof(kvobjHeadExpire, expire) % 8, 0);
    CHECK_EQ_INT(offsetof(kvobjHead, next) % sizeof(void *), 0);
    release(o);
}

/* Binary keys: NULs and high bytes survive, the key is terminated. */
static void test_binary_key_and_value(void) {
    const char key[] = {'a', 0, (char)0xff, 'b', 0};
    const char val[] = {0, 1, 2, (char)0x80};
    kvobj *o = kvobjCreate(key, sizeof key, newEmbstr(val, sizeof val), -1);
    CHECK(keyIs(o, key, sizeof key));
    CHECK(valueIs(o, val, sizeof val));
    release(o);
}

/* ---- ownership of the template ---------------------------------------------------- */

static void test_template_shared_by_others_is_copied(void) {
    size_t start = zmalloc_used_memory();
    robj *raw = newRaw("shared raw string", 17);
    raw->refcount = 2;                              /* e.g. also in argv */
    kvobj *o = kvobjCreate("k", 1, raw, -1);
    CHECK(o->ptr != raw->ptr);                      /* a copy ... */
    CHECK(valueIs(o, "shared raw string", 17));
    CHECK_EQ_INT(raw->refcount, 1);                 /* ... and one reference dropped */
    CHECK(valueIs(raw, "shared raw string", 17));
    release(o);
    release(raw);

    robj *emb = newEmbstr("hello", 5);
    emb->refcount = 3;
    o = kvobjCreate("k", 1, emb, -1);
    CHECK(insideBlock(o, o->ptr));
    CHECK_EQ_INT(emb->refcount, 2);
    release(o);
    emb->refcount = 1;
    release(emb);
    CHECK_EQ_INT(zmalloc_used_memory(), start);
}

/* A collection held elsewhere too (setKey keeps the caller's reference)
 * can't be copied: its payload moves, the caller's object becomes an empty
 * string it can still release. */
static void test_shared_collection_payload_moves(void) {
    size_t start = zmalloc_used_memory();
    void *payload = zmalloc(64);
    robj *list = newObject(OBJ_LIST, OBJ_ENCODING_LISTPACK, payload);
    list->refcount = 2;
    kvobj *o = kvobjCreate("l", 1, list, -1);
    CHECK(o->ptr == payload);
    CHECK_EQ_INT(o->type, OBJ_LIST);
    CHECK_EQ_INT(list->refcount, 1);
    CHECK_EQ_INT(list->type, OBJ_STRING);
    CHECK(valueIs(list, "", 0));
    release(list);
    release(o);
    CHECK_EQ_INT(zmalloc_used_memory(), start);
}

/* Shared objects (e.g. the shared integers) are never modified. */
static void test_shared_template_untouched(void) {
    size_t start = zmalloc_used_memory();
    robj shared = {.type = OBJ_STRING, .encoding = OBJ_ENCODING_INT,
                   .refcount = OBJ_SHARED_REFCOUNT, .ptr = (void *)(intptr_t)42};
    kvobj *o = kvobjCreate("answer", 6, &shared, -1);
    CHECK_EQ_INT(shared.refcount, OBJ_SHARED_REFCOUNT);
    CHECK(o->ptr == (void *)(intptr_t)42);
    CHECK_EQ_INT(o->refcount, 1);
    release(o);
    CHECK_EQ_INT(zmalloc_used_memory(), start);
}

/* A payload of another type moves when the template is referenced once. */
static void test_other_type_payload_moves(void) {
    size_t start = zmalloc_used_memory();
    void *payload = zmalloc(100);
    robj *list = newObject(OBJ_LIST, OBJ_ENCODING_QUICKLIST, payload);
    kvobj *o = kvobjCreate("mylist", 6, list, 1000);
    CHECK(o->ptr == payload);
    CHECK_EQ_INT(o->type, OBJ_LIST);
    CHECK_EQ_INT(o->encoding, OBJ_ENCODING_QUICKLIST);
    CHECK_EQ_INT(o->hasembval, 0);
    release(o);
    CHECK_EQ_INT(zmalloc_used_memory(), start);
}

static void moveReferencedObject(void) {
    kvobj *o = kvobjCreate("k", 1, newInt(1), -1);
    o->refcount = 2;
    kvobjSetExpire(o, 10);                          /* would leave a dangling ref */
}

static void test_programming_errors_abort(void) {
    CHECK(abortedInChild(moveReferencedObject));
}

/* The access clock carries over, the lru of the template. */
static void test_lru_carried_over(void) {
    robj *v = newRaw("abc", 3);
    v->lru = 0xabcdef;
    kvobj *o = kvobjCreate("k", 1, v, -1);
    CHECK_EQ_INT(o->lru, 0xabcdef);
    release(o);
}

/* ---- re-creating an entry (RENAME) and expires ------------------------------------------ */

/* A kvobj used as the template of a new one: the RENAME path. */
static void test_kvobj_as_template(void) {
    size_t start = zmalloc_used_memory();
    for (int v = 0; v < 3; v++) {
        robj *val = v == 0 ? newEmbstr("short", 5) : v == 1 ? newRaw("raw-value", 9) : newInt(123456);
        kvobj *old = kvobjCreate("oldname", 7, val, 4242);
        void *payload = old->ptr;
        kvobj *renamed = kvobjCreate("a much longer new name for the key", 34, old, kvobjGetExpire(old));
        CHECK(keyIs(renamed, "a much longer new name for the key", 34));
        CHECK_EQ_INT(kvobjGetExpire(renamed), 4242);
        if (v == 0) CHECK(valueIs(renamed, "short", 5) && insideBlock(renamed, renamed->ptr));
        else CHECK(renamed->ptr == payload);
        release(renamed);
    }
    CHECK_EQ_INT(zmalloc_used_memory(), start);
}

static void test_set_expire_in_place(void) {
    kvobj *o = kvobjCreate("k", 1, newEmbstr("v", 1), 10);
    CHECK(kvobjSetExpire(o, 20) == o);
    CHECK_EQ_INT(kvobjGetExpire(o), 20);
    CHECK(kvobjSetExpire(o, -1) == o);            /* removing keeps the slot */
    CHECK_EQ_INT(kvobjGetExpire(o), -1);
    CHECK_EQ_INT(kvobjHasExpire(o), 0);
    CHECK(kvobjSetExpire(o, 30) == o);
    CHECK_EQ_INT(kvobjHasExpire(o), 1);
    release(o);

    o = kvobjCreate("k", 1, newEmbstr("v", 1), -1);
    CHECK(kvobjSetExpire(o, -1) == o);            /* nothing to store */
    CHECK_EQ_INT(o->hasexpire, 0);
    release(o);
}

/* Adding a slot moves the object: key, value, clock and chain link survive. */
static void test_set_expire_moves(void) {
    size_t start = zmalloc_used_memory();
    for (size_t k = 0; k < NKEYLENGTHS; k++) {
        char *key = pattern(keyLengths[k], 3);
        robj *vals[3] = {newEmbstr("embedded value", 14), newRaw("raw", 3), newInt(-1)};
        for (int v = 0; v < 3; v++) {
            kvobj *o = kvobjCreate(key, keyLengths[k], vals[v], -1);
            kvobj *neighbour = (kvobj *)(uintptr_t)0x1000;   /* never dereferenced */
            kvobjSetNext(o, neighbour);
            unsigned lru = o->lru, encoding = o->encoding;
            void *payload = o->ptr;
            kvobj *moved = kvobjSetExpire(o, 1234567890123LL);
            CHECK(keyIs(moved, key, keyLengths[k]));
            CHECK_EQ_INT(kvobjGetExpire(moved), 1234567890123LL);
            CHECK(kvobjGetNext(moved) == neighbour);
            CHECK_EQ_INT(moved->lru, lru);
            CHECK_EQ_INT(moved->encoding, encoding);
            if (encoding == OBJ_ENCODING_EMBSTR) CHECK(valueIs(moved, "embedded value", 14) && insideBlock(moved, moved->ptr));
            else CHECK(moved->ptr == payload);
            kvobjSetNext(moved, NULL);
            release(moved);
        }
        free(key);
    }
    CHECK_EQ_INT(zmalloc_used_memory(), start);
}

/* A value converted in place from EMBSTR (e.g. APPEND) leaves dead bytes in
 * the block; rebuilding the block (adding an expire) drops them. */
static void test_value_converted_in_place(void) {
    size_t start = zmalloc_used_memory();
    kvobj *o = kvobjCreate("k", 1, newEmbstr("abc", 3), -1);
    sds grown = sdscatlen(sdsnewlen(o->ptr, 3), "def", 3);
    o->ptr = grown;
    o->encoding = OBJ_ENCODING_RAW;
    kvobj *moved = kvobjSetExpire(o, 77);
    CHECK(moved->ptr == grown);
    CHECK_EQ_INT(moved->hasembval, 0);
    CHECK(valueIs(moved, "abcdef", 6));
    release(moved);
    CHECK_EQ_INT(zmalloc_used_memory(), start);
}

/* ---- replacing the value in place ----------------------------------------------------------- */

static void test_replace_value_in_place(void) {
    size_t start = zmalloc_used_memory();
    kvobj *o = kvobjCreate("key:000000000001", 16, newEmbstr("abcdef", 6), -1);
    CHECK(kvobjReplaceValue(o, newEmbstr("xy", 2)) == o);      /* shorter: fits */
    CHECK(valueIs(o, "xy", 2) && insideBlock(o, o->ptr));
    CHECK(keyIs(o, "key:000000000001", 16));
    CHECK_EQ_INT(o->lru, 777);                                  /* val's clock */

    sds payload = NULL;
    robj *raw = newRaw("a raw value that is long enough to live apart", 46);
    payload = raw->ptr;
    CHECK(kvobjReplaceValue(o, raw) == o);                      /* RAW: moved in */
    CHECK(o->ptr == payload);
    CHECK_EQ_INT(o->encoding, OBJ_ENCODING_RAW);
    CHECK_EQ_INT(o->hasembval, 0);

    CHECK(kvobjReplaceValue(o, newInt(-5)) == o);               /* the RAW sds is freed */
    CHECK_EQ_INT(o->encoding, OBJ_ENCODING_INT);
    CHECK(o->ptr == (void *)(intptr_t)-5);

    robj *shared = newEmbstr("shared", 6);
    shared->refcount = 2;
    CHECK(kvobjReplaceValue(o, shared) == o);                   /* copied, one ref dropped */
    CHECK_EQ_INT(shared->refcount, 1);
    CHECK(valueIs(o, "shared", 6) && insideBlock(o, o->ptr));
    release(shared);

    kvobj *moved = kvobjSetExpire(o, 123);                      /* rebuilds from the new value */
    CHECK(valueIs(moved, "shared", 6) && keyIs(moved, "key:000000000001", 16));
    release(moved);
    CHECK_EQ_INT(zmalloc_used_memory(), start);
}

static void test_replace_value_refused(void) {
    size_t start = zmalloc_used_memory();
    kvobj *o = kvobjCreate("key:000000000001", 16, newEmbstr("abc", 3), -1);
    const char *longer = "0123456789012345678901234567890123456789abcd";
    size_t room = kvobjAllocSize(o) - (size_t)((char *)o->ptr - 1 - (char *)o);
    robj *big = newEmbstr(longer, 44);
    CHECK(3 + 44 + 1 > room);                                   /* cannot fit the block */
    CHECK(kvobjReplaceValue(o, big) == NULL);
    CHECK_EQ_INT(big->refcount, 1);
    CHECK(valueIs(big, longer, 44));
    CHECK(valueIs(o, "abc", 3));
    release(big);

    CHECK(kvobjReplaceValue(o, o) == NULL);                     /* itself */
    o->refcount = 2;                                            /* referenced elsewhere */
    robj *v = newInt(1);
    CHECK(kvobjReplaceValue(o, v) == NULL);
    o->refcount = 1;
    release(o);

    void *payload = zmalloc(10);
    kvobj *list = kvobjCreate("l", 1, newObject(OBJ_LIST, OBJ_ENCODING_QUICKLIST, payload), -1);
    CHECK(kvobjReplaceValue(list, v) == NULL);                  /* not a string */
    CHECK(list->ptr == payload);
    release(list);
    release(v);
    CHECK_EQ_INT(zmalloc_used_memory(), start);
}

TEST_MAIN(
    RUN(test_layout_all_key_sizes);
    RUN(test_compact_size);
    RUN(test_alignment_of_fields);
    RUN(test_binary_key_and_value);
    RUN(test_template_shared_by_others_is_copied);
    RUN(test_shared_template_untouched);
    RUN(test_other_type_payload_moves);
    RUN(test_programming_errors_abort);
    RUN(test_lru_carried_over);
    RUN(test_kvobj_as_template);
    RUN(test_shared_collection_payload_moves);
    RUN(test_set_expire_in_place);
    RUN(test_set_expire_moves);
    RUN(test_value_converted_in_place);
    RUN(test_replace_value_in_place);
    RUN(test_replace_value_refused);
)
