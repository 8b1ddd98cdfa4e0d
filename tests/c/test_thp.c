/* test_thp.c -- thpParseMode(): the bracketed word of the sysfs file
 * /sys/kernel/mm/transparent_hugepage/enabled decides what disable-thp does
 * at start-up. The machines the suite runs on are rarely set to `always`,
 * so the decision is checked here on the texts the kernel writes.
 */
#include "test.h"
#include "thp.h"

static void test_kernel_texts(void) {
    CHECK_EQ_INT(thpParseMode("[always] madvise never\n"), THP_MODE_ALWAYS);
    CHECK_EQ_INT(thpParseMode("always [madvise] never\n"), THP_MODE_MADVISE);
    CHECK_EQ_INT(thpParseMode("always madvise [never]\n"), THP_MODE_NEVER);
    CHECK_EQ_INT(thpParseMode("always madvise [never]"), THP_MODE_NEVER);
}

static void test_unexpected_texts(void) {
    CHECK_EQ_INT(thpParseMode(""), THP_MODE_UNKNOWN);
    CHECK_EQ_INT(thpParseMode("always madvise never\n"), THP_MODE_UNKNOWN);
    CHECK_EQ_INT(thpParseMode("[sometimes] always\n"), THP_MODE_UNKNOWN);
}

TEST_MAIN(
    RUN(test_kernel_texts);
    RUN(test_unexpected_texts);
)
