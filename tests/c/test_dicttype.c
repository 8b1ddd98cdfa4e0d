/* test_dicttype.c -- unit tests for src/lib/dicttype.c: the hash and compare
 * parts agree (equal keys hash equally, in both the exact and the
 * ASCII-case-insensitive pair), both are binary safe (an embedded NUL, a
 * prefix, bytes above 127 are not folded), and a dict built from them
 * finds keys by content, owns and frees what it is given (the allocator's
 * count returns to where it started) and, for pointers, keys by identity.
 */
#include "dict.h"
#include "dicttype.h"
#include "sds.h"
#include "test.h"
#include "zmalloc.h"

static void test_sds_hash_and_compare(void) {
    sds a = sdsnew("hello"), b = sdsnew("hello"), c = sdsnew("hellO"), d = sdsnew("hell");
    sds nul = sdsnewlen("hell\0", 5);
    CHECK(dictSdsHash(a) == dictSdsHash(b));
    CHECK(dictSdsHash(a) == dictGenHashFunction("hello", 5));
    CHECK(dictSdsKeyCompare(NULL, a, b));
    CHECK(!dictSdsKeyCompare(NULL, a, c));
    CHECK(!dictSdsKeyCompare(NULL, a, d));
    CHECK(!dictSdsKeyCompare(NULL, d, a));
    CHECK(!dictSdsKeyCompare(NULL, d, nul)); /* same C string, not the same bytes */
    CHECK(dictSdsHash(d) != dictSdsHash(nul));
    sds e1 = sdsempty(), e2 = sdsempty();
    CHECK(dictSdsKeyCompare(NULL, e1, e2));
    CHECK(dictSdsHash(e1) == dictSdsHash(e2));
    sdsfree(a), sdsfree(b), sdsfree(c), sdsfree(d), sdsfree(nul), sdsfree(e1), sdsfree(e2);
}

static void test_sds_case_hash_and_compare(void) {
    sds lower = sdsnew("client|setname"), upper = sdsnew("CLIENT|SetName"), other = sdsnew("client|getname");
    CHECK(dictSdsKeyCaseCompare(NULL, lower, upper));
    CHECK(dictSdsCaseHash(lower) == dictSdsCaseHash(upper));
    CHECK(!dictSdsKeyCaseCompare(NULL, lower, other));
    /* binary safe: a NUL byte does not end the name */
    sds get = sdsnew("get"), getnul = sdsnewlen("GET\0x", 5);
    CHECK(!dictSdsKeyCaseCompare(NULL, get, getnul));
    CHECK(!dictSdsKeyCaseCompare(NULL, getnul, get));
    /* only A-Z fold: '@' (0x40) and '`' (0x60), 0xC0 and 0xE0 stay apart */
    sds at = sdsnew("@"), grave = sdsnew("`"), hiA = sdsnewlen("\xC0", 1), hia = sdsnewlen("\xE0", 1);
    CHECK(!dictSdsKeyCaseCompare(NULL, at, grave));
    CHECK(!dictSdsKeyCaseCompare(NULL, hiA, hia));
    CHECK(dictSdsKeyCaseCompare(NULL, hiA, hiA));
    /* the exact pair still tells the cases apart */
    CHECK(!dictSdsKeyCompare(NULL, lower, upper));
    sdsfree(lower), sdsfree(upper), sdsfree(other), sdsfree(get), sdsfree(getnul);
    sdsfree(at), sdsfree(grave), sdsfree(hiA), sdsfree(hia);
}

static dictType ownedSdsType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .keyDestructor = dictSdsDestructor,
    .valDestructor = dictSdsDestructor,
};

/* The dict owns keys and values: finding by a fresh copy works, and
 * deleting or releasing frees them all. */
static void test_owned_sds_dict(void) {
    size_t before = zmalloc_used_memory();
    dict *d = dictCreate(&ownedSdsType);
    for (int i = 0; i < 1000; i++)
        CHECK(dictAdd(d, sdscatprintf(sdsempty(), "key:%d", i), sdsfromlonglong(i)) == DICT_OK);
    sds probe = sdsnew("key:123");
    dictEntry *de = dictFind(d, probe);
    CHECK(de != NULL && dictGetKey(de) != probe);
    if (de) CHECK_EQ_STR(dictGetVal(de), "123");
    CHECK(dictDelete(d, probe) == DICT_OK);
    CHECK(dictFind(d, probe) == NULL);
    sdsfree(probe);
    CHECK_EQ_INT(dictSize(d), 999);
    dictRelease(d);
    CHECK_EQ_INT(zmalloc_used_memory(), before);
}

static dictType caseSdsType = {
    .hashFunction = dictSdsCaseHash,
    .keyCompare = dictSdsKeyCaseCompare,
    .keyDestructor = dictSdsDestructor,
};

static void test_case_insensitive_dict(void) {
    dict *d = dictCreate(&caseSdsType);
    CHECK(dictAdd(d, sdsnew("Get"), NULL) == DICT_OK);
    CHECK(dictAdd(d, sdsnew("set"), NULL) == DICT_OK);
    sds dup = sdsnew("GET");
    CHECK(dictAdd(d, dup, NULL) == DICT_ERR); /* already there, in another case */
    sdsfree(dup);
    const char *probes[] = {"get", "GET", "gEt", "SET"};
    for (size_t i = 0; i < sizeof probes / sizeof *probes; i++) {
        sds p = sdsnew(probes[i]);
        CHECK(dictFind(d, p) != NULL);
        sdsfree(p);
    }
    sds miss = sdsnew("gets");
    CHECK(dictFind(d, miss) == NULL);
    sdsfree(miss);
    dictRelease(d);
}

static dictType pointerSetType = {.hashFunction = dictPointerHash};

/* Keys by identity: two equal strings at different addresses are two keys. */
static void test_pointer_set(void) {
    char a[] = "same", b[] = "same";
    dict *d = dictCreate(&pointerSetType);
    CHECK(dictPointerHash(a) == dictPointerHash(a));
    CHECK(dictAdd(d, a, NULL) == DICT_OK);
    CHECK(dictAdd(d, b, NULL) == DICT_OK);
    CHECK(dictAdd(d, a, NULL) == DICT_ERR);
    CHECK_EQ_INT(dictSize(d), 2);
    static int many[500];
    for (int i = 0; i < 500; i++) CHECK(dictAdd(d, &many[i], NULL) == DICT_OK);
    for (int i = 0; i < 500; i++) CHECK(dictFind(d, &many[i]) != NULL);
    CHECK_EQ_INT(dictSize(d), 502);
    dictRelease(d);
}

TEST_MAIN(
    RUN(test_sds_hash_and_compare);
    RUN(test_sds_case_hash_and_compare);
    RUN(test_owned_sds_dict);
    RUN(test_case_insensitive_dict);
    RUN(test_pointer_set);
)
