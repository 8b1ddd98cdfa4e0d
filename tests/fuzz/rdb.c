/* rdb.c -- fuzz harness: a whole RDB file through the server's loader
 * (src/rdb.c rdbLoadBuffer: the replica's diskless path; a file on disk
 * goes through the same reader in chunks), then the loaded dataset used.
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    loadingStart((off_t)size, "RDB");
    rdbLoadBuffer(data, size, "fuzz input", 0);
    loadingEnd();
    runText("DEBUG DIGEST\r\nSCAN 0 COUNT 100\r\nDBSIZE\r\nFUNCTION LIST WITHCODE\r\nINFO keyspace\r\n");
    fuzzServerEmptyData();
    runText("FUNCTION FLUSH\r\n");
    return 0;
}
