/* restore.c -- fuzz harness: RESTORE (src/dump.c) of an arbitrary DUMP
 * payload, every value type of src/rdb.c's loader, then the restored value
 * used by the commands of its type.
 *
 * Why: a DUMP payload comes from any client with RESTORE (or a primary, or
 * MIGRATE's peer), and its loader must refuse every malformed value before
 * the server trusts it. The checksum is not what protects the server (a
 * client computes it), so the harness appends a correct footer itself and
 * the fuzzer reaches the value loader with every input:
 *   byte 0: the RDB version in the footer (mod 13: 0..12, as loadable),
 *   the rest: the payload body (type byte + value).
 * RESTORE runs through the real request path (processInputBuffer ->
 * processCommand -> restoreCommand). When a value is stored, the harness
 * then reads it with every read command of every type (a wrong type just
 * errors), changes it with a few writes, and checks the round trip DUMP ->
 * load -> DUMP gives the same bytes (the same length for hash tables,
 * whose order depends on their history): a value the validator let through but
 * which is not what it claims to be shows up here, under ASan/UBSan.
 */
#include "fuzz.h"
#include "fuzz_server.h"
#include "crc64.h"
#include "portable.h"

static void runCommands(const char *text, size_t len) {
    client *c = createClient(NULL);
    c->querybuf = sdscatlen(c->querybuf, text, len);
    processInputBuffer(c);
    freeClient(c);
}

static void runText(const char *text) { runCommands(text, strlen(text)); }

/* RESTORE k 0 <payload> REPLACE, as a client sends it. */
static void restore(const unsigned char *payload, size_t len) {
    sds req = sdscatprintf(sdsempty(), "*5\r\n$7\r\nRESTORE\r\n$1\r\nk\r\n$1\r\n0\r\n$%zu\r\n", len);
    req = sdscatlen(req, payload, len);
    req = sdscat(req, "\r\n$7\r\nREPLACE\r\n");
    runCommands(req, sdslen(req));
    sdsfree(req);
}

/* The round trip: what DUMP makes of the value must load, and dump again
 * to the same bytes. Returns whether RESTORE stored the key. */
static int checkRoundTrip(void) {
    robj *key = createStringObject("k", 1);
    robj *o = lookupKeyRead(&server.db[0], key);
    int stored = o != NULL;
    if (o) {
        sds first = rdbSerializeValue(o);
        sds err = NULL;
        robj *again = rdbDeserializeValue((unsigned char *)first, sdslen(first), RDB_VERSION, &err);
        if (again == NULL) fprintf(stderr, "a dumped value does not load: %s\n", err);
        FUZZ_CHECK(again != NULL);
        sds second = rdbSerializeValue(again);
        /* A hash table's order depends on its history: equal length only. */
        int ordered = o->encoding != OBJ_ENCODING_HT && o->encoding != OBJ_ENCODING_SKIPLIST;
        FUZZ_CHECK(sdslen(first) == sdslen(second));
        if (ordered) FUZZ_CHECK(memcmp(first, second, sdslen(first)) == 0);
        sdsfree(first);
        sdsfree(second);
        decrRefCount(again);
    }
    decrRefCount(key);
    return stored;
}

/* Every type's readers, then writers (wrong types only reply an error). */
static const char *use_value =
    "TYPE k\r\nOBJECT ENCODING k\r\nDEBUG DIGEST-VALUE k\r\nSTRLEN k\r\nGETRANGE k 0 -1\r\nBITCOUNT k\r\n"
    "PFCOUNT k\r\nLLEN k\r\nLRANGE k 0 -1\r\nLINDEX k -1\r\nLPOS k x\r\nSCARD k\r\nSMEMBERS k\r\n"
    "SISMEMBER k 1\r\nSRANDMEMBER k -5\r\nHLEN k\r\nHGETALL k\r\nHRANDFIELD k -5 WITHVALUES\r\n"
    "HSTRLEN k a\r\nZCARD k\r\nZRANGE k 0 -1 WITHSCORES\r\nZREVRANGEBYSCORE k +inf -inf\r\n"
    "ZRANGEBYLEX k - +\r\nZRANDMEMBER k -5 WITHSCORES\r\nZSCORE k a\r\nXLEN k\r\nXRANGE k - +\r\n"
    "XREVRANGE k + - COUNT 3\r\nXINFO STREAM k FULL\r\nXINFO GROUPS k\r\nXPENDING k g\r\n"
    "SCAN 0\r\nSSCAN k 0 COUNT 5\r\nHSCAN k 0\r\nZSCAN k 0\r\nSORT k ALPHA\r\nMEMORY USAGE k\r\n"
    "COPY k k2\r\nRENAME k2 k3\r\n"
    "LPUSH k fuzz\r\nRPOP k\r\nLINSERT k BEFORE x y\r\nLREM k 0 x\r\nLTRIM k 1 -2\r\n"
    "SADD k fuzz 12345\r\nSREM k 1\r\nSPOP k\r\nSINTERCARD 2 k k3\r\nHSET k a 1 fuzz 2\r\nHDEL k b\r\n"
    "HINCRBY k n 1\r\nZADD k 1 fuzz\r\nZINCRBY k 2 a\r\nZREM k b\r\nZPOPMIN k\r\nZUNIONSTORE k4 2 k k3\r\n"
    "XADD k * f v\r\nXTRIM k MAXLEN 2\r\nXDEL k 0-1\r\nXSETID k 18446744073709551615-18446744073709551615\r\n"
    "XAUTOCLAIM k g c 0 0-0\r\nXGROUP CREATECONSUMER k g c2\r\nXACK k g 0-1\r\nAPPEND k fuzz\r\nSETRANGE k 3 x\r\n"
    "PFADD k a b c\r\nINCR k\r\nDEBUG DIGEST\r\nFLUSHALL\r\n";

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    fuzzServerInit();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    size_t body = size - 1;
    unsigned char *payload = malloc(body + 10);
    if (body) memcpy(payload, data + 1, body);
    store16le(payload + body, (uint16_t)(data[0] % (RDB_MAX_READ_VERSION + 1)));
    store64le(payload + body + 2, crc64(0, payload, body + 2));
    restore(payload, body + 10);
    free(payload);
    if (checkRoundTrip()) { /* most inputs are refused: nothing to use then */
        runText(use_value);
        fuzzServerEmptyData();
    }
    return 0;
}
