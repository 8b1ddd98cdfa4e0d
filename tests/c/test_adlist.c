/* test_adlist.c -- unit tests for src/lib/adlist.c: order after head/tail
 * inserts, deletion while iterating, indexing from both ends, search with and
 * without a match method, rotation, and that the free method runs once per
 * value (used_memory returns to its starting value). */
#include "test.h"
#include "adlist.h"
#include "zmalloc.h"

static long values[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
static int freed;
static void count_free(void *v) { (void)v; freed++; }
static int match_long(void *value, void *key) {
    const long *a = value, *b = key;
    return *a == *b;
}
static long node_long(listNode *n) {
    const long *v = listNodeValue(n);
    return *v;
}

static list *make_list(int n) {
    list *l = listCreate();
    for (int i = 0; i < n; i++) listAddNodeTail(l, &values[i]);
    return l;
}

static void test_order_and_length(void) {
    list *l = listCreate();
    CHECK(listLength(l) == 0 && listFirst(l) == NULL && listLast(l) == NULL);
    listAddNodeTail(l, &values[1]);
    listAddNodeHead(l, &values[0]);
    listAddNodeTail(l, &values[2]);
    CHECK_EQ_INT(listLength(l), 3);
    listIter li;
    listNode *n;
    long expect = 0;
    listRewind(l, &li);
    while ((n = listNext(&li))) CHECK_EQ_INT(node_long(n), expect++);
    expect = 2;
    listRewindTail(l, &li);
    while ((n = listNext(&li))) CHECK_EQ_INT(node_long(n), expect--);
    listRelease(l);
}

static void test_delete_while_iterating(void) {
    list *l = make_list(10);
    listIter li;
    listNode *n;
    listRewind(l, &li);
    while ((n = listNext(&li)))
        if (node_long(n) % 2 == 0) listDelNode(l, n);
    CHECK_EQ_INT(listLength(l), 5);
    CHECK_EQ_INT(node_long(listFirst(l)), 1);
    CHECK_EQ_INT(node_long(listLast(l)), 9);
    listRelease(l);
}

static void test_index_both_ends(void) {
    list *l = make_list(10);
    CHECK_EQ_INT(node_long(listIndex(l, 0)), 0);
    CHECK_EQ_INT(node_long(listIndex(l, 9)), 9);
    CHECK_EQ_INT(node_long(listIndex(l, -1)), 9);
    CHECK_EQ_INT(node_long(listIndex(l, -10)), 0);
    CHECK(listIndex(l, 10) == NULL);
    CHECK(listIndex(l, -11) == NULL);
    listRelease(l);
}

static void test_search(void) {
    list *l = make_list(10);
    long key = 7;
    CHECK(listSearchKey(l, &key) == NULL); /* pointer comparison: a copy is not found */
    CHECK(listSearchKey(l, &values[7]) != NULL);
    listSetMatchMethod(l, match_long);
    listNode *n = listSearchKey(l, &key);
    CHECK(n && node_long(n) == 7);
    listRelease(l);
}

static void test_rotate(void) {
    list *l = make_list(3);
    listRotateTailToHead(l);
    CHECK_EQ_INT(node_long(listFirst(l)), 2);
    CHECK_EQ_INT(node_long(listLast(l)), 1);
    listRotateHeadToTail(l);
    CHECK_EQ_INT(node_long(listFirst(l)), 0);
    CHECK_EQ_INT(node_long(listLast(l)), 2);
    list *one = make_list(1);
    listRotateHeadToTail(one);
    CHECK(listFirst(one) == listLast(one));
    listRelease(one);
    listRelease(l);
}

static void test_free_method_and_memory(void) {
    size_t start = zmalloc_used_memory();
    list *l = make_list(10);
    listSetFreeMethod(l, count_free);
    freed = 0;
    listDelNode(l, listFirst(l));
    CHECK_EQ_INT(freed, 1);
    listEmpty(l);
    CHECK_EQ_INT(freed, 10);
    CHECK_EQ_INT(listLength(l), 0);
    listAddNodeHead(l, &values[3]);
    listRelease(l);
    CHECK_EQ_INT(freed, 11);
    CHECK_EQ_INT(zmalloc_used_memory(), start);
}

static void test_unlink_and_relink(void) {
    list *l = make_list(3);
    listNode *middle = listIndex(l, 1);
    listUnlinkNode(l, middle);
    CHECK_EQ_INT(listLength(l), 2);
    listLinkNodeTail(l, middle);
    CHECK(listLast(l) == middle);
    CHECK_EQ_INT(listLength(l), 3);
    CHECK_EQ_INT(node_long(listIndex(l, 1)), 2);
    listRelease(l);
}

TEST_MAIN(
    RUN(test_order_and_length);
    RUN(test_delete_while_iterating);
    RUN(test_index_both_ends);
    RUN(test_search);
    RUN(test_rotate);
    RUN(test_free_method_and_memory);
    RUN(test_unlink_and_relink);
)
