/* rdb.c -- fuzz harness: a whole RDB file through the server's loader
 * twice -- whole in memory (src/rdb.c rdbLoadBuffer), then streamed in
 * reads of 1 to 7 bytes (rdbLoadStream, the replica's diskless path,
 * which a primary feeds; a file on disk goes through the same reader in
 * chunks) so that every value is cut at every refill boundary -- each
 * time followed by the loaded dataset used.
 *
 * Why: an RDB file comes from disk, from a primary, or from a Redis of
 * another version, and the loader must refuse a malformed one with an
 * error, never crash or build an object that is not what it claims. The
 * checksum protects against accidents, not against a crafted file, so it
 * is skipped here (skip_checksum_validation, the setting of DEBUG
 * SET-SKIP-CHECKSUM-VALIDATION) and every input reaches the body. After a
 * load (complete or not: a failed load keeps what it loaded so far, as the
 * server's does before it exits) the dataset is walked by DEBUG DIGEST and
 * a SCAN, then emptied.
 */
#include "fuzz.h"
#include "fuzz_server.h"

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    fuzzServerInit();
    server.skip_checksum_validation = 1;
    return 0;
}

static void runText(const char *text) {
    client *c = createClient(NULL);
    c->querybuf = sdscat(c->querybuf, text);
    processInputBuffer(c);
    freeClient(c);
}

/* The input handed out 1 to 7 bytes a read, as a slow link would. */
typedef struct chunkedInput {
    const uint8_t *p;
    size_t left;
    unsigned reads;
} chunkedInput;

static ssize_t readChunked(void *ctx, void *buf, size_t len) {
    chunkedInput *in = ctx;
    size_t n = 1 + in->reads++ % 7;
    if (n > len) n = len;
    if (n > in->left) n = in->left;
    memcpy(buf, in->p, n);
    in->p += n;
    in->left -= n;
    return (ssize_t)n;
}

static void useAndEmpty(void) {
    runText("DEBUG DIGEST\r\nSCAN 0 COUNT 100\r\nDBSIZE\r\nFUNCTION LIST WITHCODE\r\nINFO keyspace\r\n");
    fuzzServerEmptyData();
    runText("FUNCTION FLUSH\r\n");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    loadingStart((off_t)size, "RDB");
    rdbLoadBuffer(data, size, "fuzz input", 0);
    loadingEnd();
    useAndEmpty();
    chunkedInput in = {data, size, 0};
    sds rest = NULL;
    loadingStart((off_t)size, "RDB");
    rdbLoadStream(readChunked, &in, "fuzz input (streamed)", 0, &rest);
    loadingEnd();
    sdsfree(rest);
    useAndEmpty();
    return 0;
}
