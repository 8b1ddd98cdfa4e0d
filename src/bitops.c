/* bitops.c -- the bitmap commands: SETBIT, GETBIT, BITCOUNT, BITPOS, BITOP,
 * BITFIELD and BITFIELD_RO, over string values.
 *
 * Design decisions:
 * - The bit work itself is in bitutil.c (a library, property-tested at
 *   every start alignment against a bit-by-bit model); this file parses
 *   arguments, clamps ranges and talks to the keyspace.
 * - Ranges follow Redis 7: negative indexes count from the end, BYTE or BIT
 *   units, a range that ends before it starts is empty. All arithmetic on
 *   user offsets is in 64 bits with explicit overflow checks, so a 32-bit
 *   build clamps exactly as a 64-bit one does.
 * - A bit offset may address at most proto-max-bulk-len bytes (512 MB by
 *   default), as in Redis.
 * - BITFIELD parses every operation before running any, so a syntax error
 *   changes nothing; overflow handling (WRAP/SAT/FAIL) is computed without
 *   wider integer types, which 32-bit targets lack.
 */
#include "server.h"
#include "bitutil.h"

/* ---- shared helpers ------------------------------------------------------------------------ */

/* A bit offset argument; `#N` (when hash_allowed) means N * bits. */
static int getBitOffsetFromArgument(client *c, robj *o, uint64_t *offset, int hash_allowed, int bits) {
    const char *s = o->ptr;
    size_t len = sdslen(o->ptr);
    int hash = hash_allowed && len > 0 && s[0] == '#';
    long long value;
    if (!string2ll(s + hash, len - (size_t)hash, &value) || value < 0 ||
        (hash && __builtin_mul_overflow(value, (long long)bits, &value)) ||
        (unsigned long long)(value >> 3) >= (unsigned long long)server.proto_max_bulk_len) {
        addReplyError(c, "bit offset is not an integer or out of range");
        return C_ERR;
    }
    *offset = (uint64_t)value;
    return C_OK;
}

/* The string bytes of o (any encoding), in buf for integers. */
static const unsigned char *stringBytes(robj *o, size_t *len, char *buf) {
    if (o->encoding == OBJ_ENCODING_INT) {
        *len = (size_t)ll2string(buf, LONG_STR_SIZE, (long long)(intptr_t)o->ptr);
        return (const unsigned char *)buf;
    }
    *len = sdslen(o->ptr);
    return (const unsigned char *)o->ptr;
}

/* The key's string, made writable and at least `bytes` long (zero-padded);
 * created if missing. *grown is set when the key was created or padded: the
 * write then counts as a change even if the bits it sets were already zero. */
static robj *lookupStringForWrite(client *c, robj *key, uint64_t bytes, int *grown) {
    robj *o = lookupKeyWrite(c->db, key);
    *grown = 0;
    if (o == NULL) {
        o = dbAdd(c->db, key, createObject(OBJ_STRING, sdsnewlen(NULL, (size_t)bytes)));
        *grown = 1;
        return o;
    }
    if (checkType(c, o, OBJ_STRING)) return NULL;
    o = dbUnshareStringValue(c->db, key, o);
    if (sdslen(o->ptr) < bytes) {
        o->ptr = sdsgrowzero(o->ptr, (size_t)bytes);
        *grown = 1;
    }
    return o;
}

/* ---- SETBIT / GETBIT ------------------------------------------------------------------------ */

void setbitCommand(client *c) {
    uint64_t offset;
    long long on;
    if (getBitOffsetFromArgument(c, c->argv[2], &offset, 0, 0) != C_OK) return;
    if (!string2ll(c->argv[3]->ptr, sdslen(c->argv[3]->ptr), &on) || (on != 0 && on != 1)) {
        addReplyError(c, "bit is not an integer or out of range");
        return;
    }
    int grown;
    robj *o = lookupStringForWrite(c, c->argv[1], (offset >> 3) + 1, &grown);
    if (o == NULL) return;
    unsigned char *p = o->ptr;
    int old = (int)bitfieldGetUnsigned(p, offset, 1);
    /* as in Redis, setting a bit to the value it has is not a write */
    if (grown || old != on) {
        bitfieldSet(p, offset, 1, (uint64_t)on);
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(NOTIFY_STRING, "setbit", c->argv[1], c->db->id);
        server.dirty++;
    }
    addReply(c, old ? shared.cone : shared.czero);
}

void getbitCommand(client *c) {
    uint64_t offset;
    if (getBitOffsetFromArgument(c, c->argv[2], &offset, 0, 0) != C_OK) return;
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    if (o == NULL || checkType(c, o, OBJ_STRING)) return;
    char buf[LONG_STR_SIZE];
    size_t len;
    const unsigned char *p = stringBytes(o, &len, buf);
    int bit = (offset >> 3) < len ? (int)bitfieldGetUnsigned(p, offset, 1) : 0;
    addReply(c, bit ? shared.cone : shared.czero);
}

/* ---- ranges for BITCOUNT / BITPOS ---------------------------------------------------------- */

typedef struct bitRange {
    int empty;
    uint64_t first, last; /* in bits, inclusive, inside the string */
} bitRange;

/* Parses the optional BYTE|BIT unit at argv[j] (if present). */
static int parseRangeUnit(client *c, int j, int *isbit) {
    *isbit = 0;
    if (j >= c->argc) return C_OK;
    if (j == c->argc - 1 && !strcasecmp(c->argv[j]->ptr, "bit")) *isbit = 1;
    else if (j == c->argc - 1 && !strcasecmp(c->argv[j]->ptr, "byte")) *isbit = 0;
    else {
        addReplyErrorObject(c, shared.syntaxerr);
        return C_ERR;
    }
    return C_OK;
}

/* Clamps [start, end] (negative from the end) to a string of `total`
 * units; the range is empty if it ends before it starts. */
static bitRange clampRange(long long start, long long end, long long total, int isbit) {
    bitRange r = {1, 0, 0};
    if (start < 0) start = total + start;
    if (end < 0) end = total + end;
    if (start < 0) start = 0;
    if (end < 0) end = 0;
    if (end >= total) end = total - 1;
    if (total == 0 || start > end) return r;
    r.empty = 0;
    r.first = isbit ? (uint64_t)start : (uint64_t)start * 8;
    r.last = isbit ? (uint64_t)end : (uint64_t)end * 8 + 7;
    return r;
}

void bitcountCommand(client *c) {
    long long start = 0, end = -1;
    int isbit = 0;
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    if (o == NULL || checkType(c, o, OBJ_STRING)) return;
    if (c->argc == 3 || c->argc > 5) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    if (c->argc >= 4) {
        if (getLongLongFromObjectOrReply(c, c->argv[2], &start, NULL) != C_OK ||
            getLongLongFromObjectOrReply(c, c->argv[3], &end, NULL) != C_OK)
            return;
        /* Both negative and out of order: empty before clamping (which
         * would turn e.g. -6 -7 on 6 bytes into 0 0). Redis answers this
         * before looking at the unit argument. */
        if (start < 0 && end < 0 && start > end) {
            addReply(c, shared.czero);
            return;
        }
        if (parseRangeUnit(c, 4, &isbit) != C_OK) return;
    }
    char buf[LONG_STR_SIZE];
    size_t len;
    const unsigned char *p = stringBytes(o, &len, buf);
    bitRange r = clampRange(start, end, isbit ? (long long)len * 8 : (long long)len, isbit);
    addReplyLongLong(c, r.empty ? 0 : (long long)bitCountRange(p, r.first, r.last));
}

void bitposCommand(client *c) {
    long long bit, start = 0, end = -1;
    int isbit = 0, end_given = c->argc >= 5;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &bit, NULL) != C_OK) return;
    if (bit != 0 && bit != 1) {
        addReplyError(c, "The bit argument must be 1 or 0.");
        return;
    }
    robj *o = lookupKeyRead(c->db, c->argv[1]);
    if (o == NULL) {
        addReplyLongLong(c, bit ? -1 : 0);
        return;
    }
    if (checkType(c, o, OBJ_STRING)) return;
    if (c->argc > 6) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    if ((c->argc >= 4 && getLongLongFromObjectOrReply(c, c->argv[3], &start, NULL) != C_OK) ||
        (c->argc >= 5 && getLongLongFromObjectOrReply(c, c->argv[4], &end, NULL) != C_OK) ||
        parseRangeUnit(c, 5, &isbit) != C_OK)
        return;
    char buf[LONG_STR_SIZE];
    size_t len;
    const unsigned char *p = stringBytes(o, &len, buf);
    bitRange r = clampRange(start, end, isbit ? (long long)len * 8 : (long long)len, isbit);
    if (r.empty) {
        addReplyLongLong(c, -1);
        return;
    }
    int64_t pos = bitFindFirst(p, r.first, r.last, (int)bit);
    /* Looking for a clear bit with no end given: the string is as if
     * padded with zeros, so the first clear bit is just past the range. */
    if (pos == -1 && bit == 0 && !end_given) pos = (int64_t)r.last + 1;
    addReplyLongLong(c, pos);
}

/* ---- BITOP ------------------------------------------------------------------------------------ */

static int parseBitop(const char *name) {
    if (!strcasecmp(name, "and")) return BITOP_AND;
    if (!strcasecmp(name, "or")) return BITOP_OR;
    if (!strcasecmp(name, "xor")) return BITOP_XOR;
    if (!strcasecmp(name, "not")) return BITOP_NOT;
    return -1;
}

void bitopCommand(client *c) {
    int op = parseBitop(c->argv[1]->ptr);
    int n = c->argc - 3;
    if (op < 0) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    if (op == BITOP_NOT && n != 1) {
        addReplyError(c, "BITOP NOT must be called with a single source key.");
        return;
    }
    robj **objs = zcalloc(sizeof(robj *) * (size_t)n);
    const unsigned char **src = zmalloc(sizeof(unsigned char *) * (size_t)n);
    size_t *srclen = zmalloc(sizeof(size_t) * (size_t)n);
    size_t maxlen = 0;
    int ok = 1;
    for (int j = 0; j < n && ok; j++) {
        robj *o = lookupKeyRead(c->db, c->argv[j + 3]);
        if (o && o->type != OBJ_STRING) {
            addReplyErrorObject(c, shared.wrongtypeerr);
            ok = 0;
            break;
        }
        objs[j] = o ? getDecodedObject(o) : NULL;
        src[j] = objs[j] ? (const unsigned char *)objs[j]->ptr : (const unsigned char *)"";
        srclen[j] = objs[j] ? sdslen(objs[j]->ptr) : 0;
        if (srclen[j] > maxlen) maxlen = srclen[j];
    }
    if (ok) {
        robj *dest = c->argv[2];
        if (maxlen) {
            sds result = sdsnewlen(SDS_NOINIT, maxlen); /* every byte is written */
            bitOperation(op, (unsigned char *)result, maxlen, src, srclen, n);
            setKeyTake(c, c->db, dest, createObject(OBJ_STRING, result), 0);
            notifyKeyspaceEvent(NOTIFY_STRING, "set", dest, c->db->id);
        } else if (dbDelete(c->db, dest)) {
            signalModifiedKey(c, c->db, dest);
            notifyKeyspaceEvent(NOTIFY_GENERIC, "del", dest, c->db->id);
        }
        server.dirty++;
        addReplyLongLong(c, (long long)maxlen);
    }
    for (int j = 0; j < n; j++)
        if (objs[j]) decrRefCount(objs[j]);
    zfree(objs);
    zfree(src);
    zfree(srclen);
}

/* ---- BITFIELD --------------------------------------------------------------------------------- */

#define BFOP_GET 0
#define BFOP_SET 1
#define BFOP_INCRBY 2

#define BFOVERFLOW_WRAP 0
#define BFOVERFLOW_SAT 1
#define BFOVERFLOW_FAIL 2

typedef struct bitfieldOp {
    int opcode;
    int overflow;
    int sign;
    int bits;
    uint64_t offset;
    long long value; /* SET value or INCRBY increment */
} bitfieldOp;

/* "i8", "u16" ... : i1..i64 and u1..u63. */
static int parseBitfieldType(client *c, robj *o, int *sign, int *bits) {
    const char *s = o->ptr;
    long long n;
    if ((s[0] == 'i' || s[0] == 'I' || s[0] == 'u' || s[0] == 'U') && string2ll(s + 1, sdslen(o->ptr) - 1, &n)) {
        *sign = s[0] == 'i' || s[0] == 'I';
        if (n >= 1 && ((*sign && n <= 64) || (!*sign && n <= 63))) {
            *bits = (int)n;
            return C_OK;
        }
    }
    addReplyError(c, "Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but i64 is.");
    return C_ERR;
}

static int parseOverflow(client *c, robj *o, int *overflow) {
    const char *s = o->ptr;
    if (!strcasecmp(s, "wrap")) *overflow = BFOVERFLOW_WRAP;
    else if (!strcasecmp(s, "sat")) *overflow = BFOVERFLOW_SAT;
    else if (!strcasecmp(s, "fail")) *overflow = BFOVERFLOW_FAIL;
    else {
        addReplyError(c, "Invalid OVERFLOW type specified");
        return C_ERR;
    }
    return C_OK;
}

static int opcodeOf(const char *s, int *args) {
    if (!strcasecmp(s, "get")) { *args = 2; return BFOP_GET; }
    if (!strcasecmp(s, "set")) { *args = 3; return BFOP_SET; }
    if (!strcasecmp(s, "incrby")) { *args = 3; return BFOP_INCRBY; }
    return -1;
}

/* Parses every operation; returns the count, or -1 after replying an error. */
static int parseBitfieldOps(client *c, int readonly, bitfieldOp **ops_out) {
    bitfieldOp *ops = NULL;
    int count = 0, overflow = BFOVERFLOW_WRAP;
    for (int j = 2; j < c->argc; j++) {
        int more = c->argc - j - 1, args;
        const char *name = c->argv[j]->ptr;
        if (!strcasecmp(name, "overflow") && more >= 1) {
            if (parseOverflow(c, c->argv[++j], &overflow) != C_OK) goto fail;
            continue;
        }
        int opcode = opcodeOf(name, &args);
        if (opcode < 0 || more < args) {
            addReplyErrorObject(c, shared.syntaxerr);
            goto fail;
        }
        bitfieldOp op = {opcode, overflow, 0, 0, 0, 0};
        if (parseBitfieldType(c, c->argv[j + 1], &op.sign, &op.bits) != C_OK ||
            getBitOffsetFromArgument(c, c->argv[j + 2], &op.offset, 1, op.bits) != C_OK)
            goto fail;
        if (opcode != BFOP_GET && getLongLongFromObjectOrReply(c, c->argv[j + 3], &op.value, NULL) != C_OK) goto fail;
        if (readonly && opcode != BFOP_GET) {
            addReplyError(c, "BITFIELD_RO only supports the GET subcommand");
            goto fail;
        }
        ops = zrealloc(ops, sizeof(bitfieldOp) * (size_t)(count + 1));
        ops[count++] = op;
        j += args;
    }
    *ops_out = ops;
    return count;
fail:
    zfree(ops);
    return -1;
}

/* The result of storing `value` (unsigned, or a two's complement pattern)
 * into a field: *out is what gets stored; returns 0 when the overflow mode
 * is FAIL and the value doesn't fit. old/incr describe an INCRBY (incr_op). */
static int fitUnsigned(uint64_t old, long long incr, int bits, int overflow, uint64_t *out) {
    uint64_t max = bits == 64 ? UINT64_MAX : (UINT64_C(1) << bits) - 1;
    uint64_t sum = old + (uint64_t)incr;
    int over = incr > 0 && (uint64_t)incr > max - old;
    int under = incr < 0 && (uint64_t)(-(incr + 1)) + 1 > old;
    if (old > max) over = 1; /* a SET value out of range */
    if (!over && !under) {
        *out = sum;
        return 1;
    }
    if (overflow == BFOVERFLOW_FAIL) return 0;
    if (overflow == BFOVERFLOW_SAT) *out = over ? max : 0;
    else *out = sum & max;
    return 1;
}

static int fitSigned(int64_t old, long long incr, int bits, int overflow, int64_t *out) {
    int64_t max = bits == 64 ? INT64_MAX : (INT64_C(1) << (bits - 1)) - 1;
    int64_t min = -max - 1;
    int over = (incr > 0 && old > max - incr) || old > max;
    int under = (incr < 0 && old < min - incr) || old < min;
    uint64_t sum = (uint64_t)old + (uint64_t)incr;
    if (!over && !under) {
        *out = (int64_t)sum;
        return 1;
    }
    if (overflow == BFOVERFLOW_FAIL) return 0;
    if (overflow == BFOVERFLOW_SAT) {
        *out = over ? max : min;
        return 1;
    }
    if (bits < 64) { /* keep the low bits, sign-extended */
        sum &= (UINT64_C(1) << bits) - 1;
        if ((sum >> (bits - 1)) & 1) sum |= UINT64_MAX << bits;
    }
    *out = (int64_t)sum;
    return 1;
}

static void replyFieldValue(client *c, const bitfieldOp *op, uint64_t value) {
    if (op->sign) {
        int64_t v = (int64_t)value;
        if (op->bits < 64 && (value >> (op->bits - 1)) & 1) v = (int64_t)(value | (UINT64_MAX << op->bits));
        addReplyLongLong(c, v);
    } else {
        addReplyLongLong(c, (long long)value);
    }
}

/* Runs one SET or INCRBY on p; returns -1 if it was refused (overflow FAIL),
 * else whether the field's value changed. */
static int runBitfieldWrite(client *c, unsigned char *p, const bitfieldOp *op) {
    uint64_t stored;
    int fits, changed;
    if (op->sign) {
        int64_t old = bitfieldGetSigned(p, op->offset, op->bits), result;
        fits = op->opcode == BFOP_INCRBY ? fitSigned(old, op->value, op->bits, op->overflow, &result)
                                         : fitSigned(op->value, 0, op->bits, op->overflow, &result);
        if (!fits) {
            addReplyNull(c);
            return -1;
        }
        stored = (uint64_t)result;
        changed = result != old;
        if (op->opcode == BFOP_INCRBY) addReplyLongLong(c, result);
        else addReplyLongLong(c, old);
    } else {
        uint64_t old = bitfieldGetUnsigned(p, op->offset, op->bits);
        fits = op->opcode == BFOP_INCRBY ? fitUnsigned(old, op->value, op->bits, op->overflow, &stored)
                                         : fitUnsigned((uint64_t)op->value, 0, op->bits, op->overflow, &stored);
        if (!fits) {
            addReplyNull(c);
            return -1;
        }
        changed = stored != old;
        addReplyLongLong(c, (long long)(op->opcode == BFOP_INCRBY ? stored : old));
    }
    bitfieldSet(p, op->offset, op->bits, stored);
    return changed;
}

static void bitfieldGeneric(client *c, int readonly) {
    bitfieldOp *ops = NULL;
    int count = parseBitfieldOps(c, readonly, &ops);
    if (count < 0) return;
    uint64_t write_bytes = 0;
    for (int j = 0; j < count; j++)
        if (ops[j].opcode != BFOP_GET) {
            uint64_t need = (ops[j].offset + (uint64_t)ops[j].bits + 7) >> 3;
            if (need > write_bytes) write_bytes = need;
        }
    robj *o;
    int grown = 0;
    if (write_bytes) {
        o = lookupStringForWrite(c, c->argv[1], write_bytes, &grown);
        if (o == NULL) goto done;
    } else {
        o = lookupKeyRead(c->db, c->argv[1]);
        if (o && checkType(c, o, OBJ_STRING)) goto done;
    }
    char buf[LONG_STR_SIZE];
    size_t len = 0;
    const unsigned char *rp = o ? stringBytes(o, &len, buf) : NULL;
    long long changes = 0;
    addReplyArrayLen(c, count);
    for (int j = 0; j < count; j++) {
        const bitfieldOp *op = &ops[j];
        if (op->opcode != BFOP_GET) {
            /* a write counts when it changed the field or the string grew */
            int changed = runBitfieldWrite(c, o->ptr, op);
            if (changed > 0 || (changed == 0 && grown)) changes++;
            rp = o->ptr; /* writes happen on the (grown) sds */
            len = sdslen(o->ptr);
            continue;
        }
        /* a GET beyond the end reads zeros */
        unsigned char field[9] = {0};
        uint64_t first_byte = op->offset >> 3, nbytes = ((op->offset & 7) + (uint64_t)op->bits + 7) >> 3;
        for (uint64_t b = 0; b < nbytes; b++)
            if (rp && first_byte + b < len) field[b] = rp[first_byte + b];
        replyFieldValue(c, op, bitfieldGetUnsigned(field, op->offset & 7, op->bits));
    }
    if (changes) {
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(NOTIFY_STRING, "setbit", c->argv[1], c->db->id);
        server.dirty += changes;
    }
done:
    zfree(ops);
}

void bitfieldCommand(client *c) { bitfieldGeneric(c, 0); }
void bitfieldroCommand(client *c) { bitfieldGeneric(c, 1); }
