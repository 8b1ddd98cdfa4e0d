/* hyperloglog.c -- the HyperLogLog commands: PFADD, PFCOUNT, PFMERGE,
 * PFDEBUG and PFSELFTEST.
 *
 * A HyperLogLog is an ordinary string value whose bytes are a sketch in
 * Redis's layout (hll.h / hll.c do the encoding, this file the keyspace
 * and the replies), so GET, SET, DUMP/RESTORE and replication carry it
 * unchanged and a value written here reads the same in Redis.
 *
 * Design decisions:
 *  - Any string can be handed to these commands, so every value is checked
 *    before use: a bad header (magic, encoding, dense size) is the WRONGTYPE
 *    error Redis gives; a sparse opcode stream that does not cover exactly
 *    16384 registers is the INVALIDOBJ error. Readers check as they decode;
 *    a register update checks the whole stream before it changes anything,
 *    so a damaged value is never modified (a PFADD that changes no register
 *    answers 0 without reading all of it, as in Redis).
 *  - Writers unshare the value first (dbUnshareStringValue): the sketch is
 *    modified in place as a RAW sds, never through an embedded string.
 *  - PFCOUNT of a single key stores the estimate in the sketch's cache, as
 *    Redis does, so it can write (and signals the key as modified).
 *  - The sparse size limit is Redis's `hll-sparse-max-bytes` default, 3000
 *    bytes: the directive does not exist in this server yet.
 */
#include <strings.h>

#include "hll.h"
#include "server.h"

static const char *const HLL_WRONGTYPE_ERR = "-WRONGTYPE Key is not a valid HyperLogLog string value.";
static const char *const HLL_INVALID_ERR = "-INVALIDOBJ Corrupted HLL object detected";

/* Redis's hll-sparse-max-bytes: a constant until the directive exists. */
static size_t sparseMaxBytes(void) { return (size_t)server.hll_sparse_max_bytes; }

/* The bytes of a string object whatever its encoding (an integer is
 * printed into buf). */
static const char *objectBytes(robj *o, char buf[LONG_STR_SIZE], size_t *len) {
    if (sdsEncodedObject(o)) {
        *len = sdslen(o->ptr);
        return o->ptr;
    }
    *len = (size_t)ll2string(buf, LONG_STR_SIZE, (long)(intptr_t)o->ptr);
    return buf;
}

/* C_OK if o is a string holding a sketch header; otherwise replies. */
static int checkHllOrReply(client *c, robj *o) {
    if (checkType(c, o, OBJ_STRING)) return C_ERR;
    if (sdsEncodedObject(o) && hllIsValidHeader(o->ptr, sdslen(o->ptr))) return C_OK;
    addReplyError(c, HLL_WRONGTYPE_ERR);
    return C_ERR;
}

/* The existing value o of key, unshared for writing, or NULL after
 * replying. (The register updates check the opcode stream before they
 * change anything.) */
static robj *prepareHllForWrite(client *c, robj *key, robj *o) {
    if (checkHllOrReply(c, o) != C_OK) return NULL;
    return dbUnshareStringValue(c->db, key, o);
}

static void notifyHllWritten(client *c, robj *key, robj *o, long long changes) {
    hllCacheInvalidate(o->ptr);
    signalModifiedKey(c, c->db, key);
    notifyKeyspaceEvent(NOTIFY_STRING, "pfadd", key, c->db->id);
    server.dirty += changes;
}

/* ---- PFADD key [element ...] ------------------------------------------------------ */

void pfaddCommand(client *c) {
    robj *key = c->argv[1];
    long long changes = 0;
    robj *o = lookupKeyWrite(c->db, key);
    if (o == NULL) {
        o = dbAdd(c->db, key, createObject(OBJ_STRING, hllCreate()));
        changes++; /* creating the key is a change, even with no elements */
    } else if ((o = prepareHllForWrite(c, key, o)) == NULL) {
        return;
    }
    for (int j = 2; j < c->argc; j++) {
        char buf[LONG_STR_SIZE];
        size_t len;
        const char *ele = objectBytes(c->argv[j], buf, &len);
        sds hll = o->ptr;
        int res = hllAdd(&hll, ele, len, sparseMaxBytes());
        o->ptr = hll;
        if (res == HLL_CORRUPT) {
            addReplyError(c, HLL_INVALID_ERR);
            return;
        }
        changes += res == HLL_CHANGED;
    }
    if (changes) notifyHllWritten(c, key, o, changes);
    addReply(c, changes ? shared.cone : shared.czero);
}

/* ---- PFCOUNT key [key ...] -------------------------------------------------------- */

/* The union of the sketches at keys (missing keys are empty) into
 * raw[HLL_REGISTERS]; C_ERR after replying. */
static int unionOfKeysOrReply(client *c, robj **keys, int numkeys, uint8_t *raw, int *any_dense) {
    memset(raw, 0, HLL_REGISTERS);
    for (int j = 0; j < numkeys; j++) {
        robj *o = lookupKeyRead(c->db, keys[j]);
        if (o == NULL) continue;
        if (checkHllOrReply(c, o) != C_OK) return C_ERR;
        if (hllMergeInto(raw, o->ptr, sdslen(o->ptr)) == HLL_CORRUPT) {
            addReplyError(c, HLL_INVALID_ERR);
            return C_ERR;
        }
        if (hllEncoding(o->ptr) == HLL_DENSE && any_dense) *any_dense = 1;
    }
    return C_OK;
}

static void pfcountSingle(client *c, robj *key) {
    robj *o = lookupKeyRead(c->db, key);
    if (o == NULL) {
        addReply(c, shared.czero);
        return;
    }
    if (checkHllOrReply(c, o) != C_OK) return;
    if (hllCacheIsValid(o->ptr)) {
        addReplyLongLong(c, (long long)hllCacheGet(o->ptr));
        return;
    }
    int invalid;
    uint64_t card = hllCount(o->ptr, sdslen(o->ptr), &invalid);
    if (invalid) {
        addReplyError(c, HLL_INVALID_ERR);
        return;
    }
    /* Caching the estimate writes to the value, as in Redis. */
    o = dbUnshareStringValue(c->db, key, o);
    hllCacheSet(o->ptr, card);
    signalModifiedKey(c, c->db, key);
    server.dirty++;
    addReplyLongLong(c, (long long)card);
}

void pfcountCommand(client *c) {
    if (c->argc == 2) {
        pfcountSingle(c, c->argv[1]);
        return;
    }
    uint8_t *raw = zmalloc(HLL_REGISTERS);
    if (unionOfKeysOrReply(c, c->argv + 1, c->argc - 1, raw, NULL) == C_OK)
        addReplyLongLong(c, (long long)hllCountRaw(raw));
    zfree(raw);
}

/* ---- PFMERGE destkey [sourcekey ...] ------------------------------------------------ */

/* Raises dest's registers to raw's. As in Redis, dest becomes dense first
 * when any input was dense, else stays sparse as long as it fits. */
static int storeUnion(robj *o, const uint8_t *raw, int any_dense) {
    sds hll = o->ptr;
    int res = any_dense ? hllToDense(&hll) : HLL_UNCHANGED;
    for (long j = 0; j < HLL_REGISTERS && res != HLL_CORRUPT; j++)
        if (raw[j]) res = hllSetRegister(&hll, j, raw[j], sparseMaxBytes());
    o->ptr = hll;
    return res == HLL_CORRUPT ? C_ERR : C_OK;
}

void pfmergeCommand(client *c) {
    robj *dest = c->argv[1];
    int any_dense = 0;
    uint8_t *raw = zmalloc(HLL_REGISTERS);
    /* The destination is one of the inputs. */
    if (unionOfKeysOrReply(c, c->argv + 1, c->argc - 1, raw, &any_dense) != C_OK) goto done;

    robj *o = lookupKeyWrite(c->db, dest);
    if (o == NULL) {
        o = dbAdd(c->db, dest, createObject(OBJ_STRING, hllCreate()));
    } else if ((o = prepareHllForWrite(c, dest, o)) == NULL) {
        goto done;
    }
    if (storeUnion(o, raw, any_dense) != C_OK) {
        addReplyError(c, HLL_INVALID_ERR);
        goto done;
    }
    notifyHllWritten(c, dest, o, 1);
    addReply(c, shared.ok);
done:
    zfree(raw);
}

/* ---- PFDEBUG <subcommand> key -------------------------------------------------------- */

/* Converts o to the dense encoding (a change to propagate); HLL_CORRUPT
 * after replying the error. */
static int toDenseOrReply(client *c, robj *o) {
    sds hll = o->ptr;
    int res = hllToDense(&hll);
    o->ptr = hll;
    if (res == HLL_CORRUPT) addReplyError(c, HLL_INVALID_ERR);
    else if (res == HLL_CHANGED) server.dirty++;
    return res;
}

static void pfdebugGetreg(client *c, robj *o) {
    if (toDenseOrReply(c, o) == HLL_CORRUPT) return;
    const unsigned char *regs = (const unsigned char *)o->ptr + HLL_HDR_SIZE;
    addReplyArrayLen(c, HLL_REGISTERS);
    for (long j = 0; j < HLL_REGISTERS; j++) addReplyLongLong(c, hllDenseGetRegister(regs, j));
}

/* "z:<run> Z:<run> v:<value>,<run> ..." (ZERO, XZERO, VAL opcodes). */
static void pfdebugDecode(client *c, robj *o) {
    const unsigned char *s = o->ptr;
    if (hllEncoding(s) != HLL_SPARSE) {
        addReplyError(c, "HLL encoding is not sparse");
        return;
    }
    const unsigned char *p = s + HLL_HDR_SIZE, *end = s + sdslen(o->ptr);
    sds out = sdsempty();
    hllSparseOp op;
    for (; hllSparseDecodeOp(p, end, &op); p += op.oplen) {
        if (op.is_zero)
            out = sdscatprintf(out, "%c:%ld ", op.is_xzero ? 'Z' : 'z', op.runlen);
        else
            out = sdscatprintf(out, "v:%u,%ld ", op.value, op.runlen);
    }
    out = sdstrim(out, " ");
    addReplyBulkSds(c, out);
}

static void pfdebugTodense(client *c, robj *o) {
    int res = toDenseOrReply(c, o);
    if (res != HLL_CORRUPT) addReply(c, res == HLL_CHANGED ? shared.cone : shared.czero);
}

void pfdebugCommand(client *c) {
    const char *sub = c->argv[1]->ptr;
    robj *key = c->argv[2];
    robj *o = lookupKeyWrite(c->db, key);
    if (o == NULL) {
        addReplyError(c, "The specified key does not exist");
        return;
    }
    if (checkHllOrReply(c, o) != C_OK) return;
    o = dbUnshareStringValue(c->db, key, o);
    if (!strcasecmp(sub, "getreg")) {
        pfdebugGetreg(c, o);
    } else if (!strcasecmp(sub, "decode")) {
        pfdebugDecode(c, o);
    } else if (!strcasecmp(sub, "encoding")) {
        addReplyStatus(c, hllEncoding(o->ptr) == HLL_DENSE ? "dense" : "sparse");
    } else if (!strcasecmp(sub, "todense")) {
        pfdebugTodense(c, o);
    } else {
        addReplyErrorFormat(c, "Unknown PFDEBUG subcommand '%s'", sub);
    }
}

/* ---- PFSELFTEST ------------------------------------------------------------------------ */

/* Dense registers read back what was written, neighbours untouched. */
static int selftestRegisters(void) {
    unsigned char regs[HLL_DENSE_SIZE - HLL_HDR_SIZE] = {0};
    uint8_t shadow[HLL_REGISTERS] = {0};
    uint64_t rnd = 0x9e3779b97f4a7c15ULL;
    for (int round = 0; round < 4; round++) {
        for (long j = 0; j < HLL_REGISTERS; j++) {
            rnd = rnd * 6364136223846793005ULL + 1442695040888963407ULL;
            shadow[j] = (uint8_t)((rnd >> 33) & HLL_REGISTER_MAX);
            hllDenseSetRegister(regs, j, shadow[j]);
        }
        for (long j = 0; j < HLL_REGISTERS; j++)
            if (hllDenseGetRegister(regs, j) != shadow[j]) return 0;
    }
    return 1;
}

/* A sparse and a dense sketch fed the same elements agree on every
 * estimate, and the estimate stays within 5 standard errors. */
static int selftestEstimates(sds *sparse, sds *dense) {
    const double relerr = 1.04 / 128.0; /* 1.04 / sqrt(16384) */
    long long checkpoint = 10;
    for (long long n = 1; n <= 100000; n++) {
        char ele[32];
        int len = ll2string(ele, sizeof ele, n * 7919);
        if (hllAdd(sparse, ele, (size_t)len, sparseMaxBytes()) == HLL_CORRUPT) return 0;
        if (hllAdd(dense, ele, (size_t)len, sparseMaxBytes()) == HLL_CORRUPT) return 0;
        if (n != checkpoint) continue;
        checkpoint *= 10;
        int bad_sparse, bad_dense;
        uint64_t a = hllCount((unsigned char *)*sparse, sdslen(*sparse), &bad_sparse);
        uint64_t b = hllCount((unsigned char *)*dense, sdslen(*dense), &bad_dense);
        if (bad_sparse || bad_dense || a != b) return 0;
        double err = ((double)b - (double)n) / (double)n;
        if (n > 100 && (err > 5 * relerr || err < -5 * relerr)) return 0;
    }
    return 1;
}

void pfselftestCommand(client *c) {
    if (!selftestRegisters()) {
        addReplyError(c, "TESTFAILED Dense register read back a different value");
        return;
    }
    sds sparse = hllCreate(), dense = hllCreate();
    int ok = hllToDense(&dense) == HLL_CHANGED && selftestEstimates(&sparse, &dense);
    sdsfree(sparse);
    sdsfree(dense);
    if (!ok) {
        addReplyError(c, "TESTFAILED Sparse and dense estimates differ or are out of bounds");
        return;
    }
    addReply(c, shared.ok);
}
