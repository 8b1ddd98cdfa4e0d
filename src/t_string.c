/* t_string.c -- the string commands.
 *
 * Values are robj strings in one of three encodings (object.c): int, embstr
 * and raw. Reads never care which; writes pick the encoding through
 * tryObjectEncoding() or keep an int-encoded counter updating in place.
 *
 * Limits follow Redis: a string never exceeds proto-max-bulk-len (512 MB by
 * default) through APPEND or SETRANGE, and every offset or length supplied
 * by a client is checked in 64-bit arithmetic before it is used, so a
 * 32-bit build refuses exactly what a 64-bit one refuses.
 *
 * SET and GETEX share one option parser (parseExtendedStringArguments),
 * which reports conflicting options as a syntax error, as Redis does.
 *
 * Propagation: commands whose argv would not replay to the same result
 * propagate what they did instead (propagate.c): SET with options, SETEX
 * and PSETEX as SET key value [PXAT ms | KEEPTTL], GETEX as PEXPIREAT,
 * PERSIST or DEL, INCRBYFLOAT as SET key result KEEPTTL.
 */
#include "server.h"
#include "xfloat.h"

#define OBJ_NO_FLAGS 0
#define OBJ_SET_NX (1 << 0)
#define OBJ_SET_XX (1 << 1)
#define OBJ_EX (1 << 2)
#define OBJ_PX (1 << 3)
#define OBJ_KEEPTTL (1 << 4)
#define OBJ_SET_GET (1 << 5)
#define OBJ_EXAT (1 << 6)
#define OBJ_PXAT (1 << 7)
#define OBJ_PERSIST (1 << 8)

#define COMMAND_GET 0
#define COMMAND_SET 1

static int checkStringLength(client *c, long long size, long long append) {
    if (append > LLONG_MAX - size || size + append > server.proto_max_bulk_len) {
        addReplyError(c, "string exceeds maximum allowed size (proto-max-bulk-len)");
        return C_ERR;
    }
    return C_OK;
}

/* ---- SET and its options ------------------------------------------------------------- */

static int isExpireFlag(int flags) { return flags & (OBJ_EX | OBJ_PX | OBJ_EXAT | OBJ_PXAT); }

/* The flag of an EX/PX/EXAT/PXAT option name, 0 for any other word. */
static int expireOptionFlag(const char *opt) {
    if (!strcasecmp(opt, "ex")) return OBJ_EX;
    if (!strcasecmp(opt, "px")) return OBJ_PX;
    if (!strcasecmp(opt, "exat")) return OBJ_EXAT;
    if (!strcasecmp(opt, "pxat")) return OBJ_PXAT;
    return 0;
}

/* Parses NX XX GET EX PX EXAT PXAT KEEPTTL PERSIST from argv[3..] (SET) or
 * argv[2..] (GETEX). Only options valid for the command type are accepted. */
static int parseExtendedStringArguments(client *c, int *flags, int *unit, robj **expire, int command_type) {
    int first = command_type == COMMAND_GET ? 2 : 3;
    for (int j = first; j < c->argc; j++) {
        const char *opt = c->argv[j]->ptr;
        robj *next = (j == c->argc - 1) ? NULL : c->argv[j + 1];
        int is_set = command_type == COMMAND_SET;
        if (is_set && !strcasecmp(opt, "nx") && !(*flags & (OBJ_SET_XX))) {
            *flags |= OBJ_SET_NX;
        } else if (is_set && !strcasecmp(opt, "xx") && !(*flags & OBJ_SET_NX)) {
            *flags |= OBJ_SET_XX;
        } else if (is_set && !strcasecmp(opt, "get")) {
            *flags |= OBJ_SET_GET;
        } else if (is_set && !strcasecmp(opt, "keepttl") && !(*flags & OBJ_PERSIST) && !isExpireFlag(*flags)) {
            *flags |= OBJ_KEEPTTL;
        } else if (!is_set && !strcasecmp(opt, "persist") && !isExpireFlag(*flags) && !(*flags & OBJ_KEEPTTL)) {
            *flags |= OBJ_PERSIST;
        } else if (next && !(*flags & (OBJ_KEEPTTL | OBJ_PERSIST)) && expireOptionFlag(opt) &&
                   !(isExpireFlag(*flags) & ~expireOptionFlag(opt))) {
            /* The same expire option given again replaces the time (Redis
             * accepts "EX 10 EX 20"); a different one is a conflict. */
            *flags |= expireOptionFlag(opt);
            *unit = (*flags & (OBJ_EX | OBJ_EXAT)) ? 1 : 0;
            *expire = next;
            j++;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return C_ERR;
        }
    }
    return C_OK;
}

/* The absolute expire time in ms for `expire` under `flags`; replies with an
 * error and returns C_ERR on non-integers, non-positive values and overflow. */
static int getExpireMillisecondsOrReply(client *c, robj *expire, int flags, int unit_seconds, long long *when) {
    long long value;
    if (getLongLongFromObjectOrReply(c, expire, &value, NULL) != C_OK) return C_ERR;
    if (value <= 0 || (unit_seconds && value > LLONG_MAX / 1000)) {
        addReplyErrorExpireTime(c);
        return C_ERR;
    }
    if (unit_seconds) value *= 1000;
    if (flags & (OBJ_EX | OBJ_PX)) {
        if (value > LLONG_MAX - server.mstime) {
            addReplyErrorExpireTime(c);
            return C_ERR;
        }
        value += server.mstime;
    }
    *when = value;
    return C_OK;
}

/* Replies with the current value for SET ... GET; C_ERR if it is not a string. */
static int getGenericCommand(client *c) {
    robj *o = lookupKeyRead(c->db, c->argv[1]);
    if (o == NULL) {
        addReplyNull(c);
        return C_OK;
    }
    if (checkType(c, o, OBJ_STRING)) return C_ERR;
    addReplyBulk(c, o);
    return C_OK;
}

/* SET with options, SETEX and PSETEX replay as SET key value, plus PXAT
 * <absolute ms> for a TTL (a relative one would restart at the replay) or
 * KEEPTTL; NX, XX and GET have done their work. */
static void propagateSet(client *c, robj *key, robj *val, int flags, long long when) {
    if (!propagationEnabled()) return;
    robj *argv[5] = {shared.set_cmd, key, val, NULL, NULL};
    int argc = 3;
    robj *ms = NULL;
    if (isExpireFlag(flags)) {
        ms = createStringObjectFromLongLong(when);
        argv[argc++] = shared.pxat;
        argv[argc++] = ms;
    } else if (flags & OBJ_KEEPTTL) {
        argv[argc++] = shared.keepttl;
    }
    propagateCommandAs(c, argv, argc);
    if (ms) decrRefCount(ms);
}

static void setGenericCommand(client *c, int flags, robj *key, robj *val, robj *expire, int unit) {
    long long when = 0;
    if (expire && getExpireMillisecondsOrReply(c, expire, flags, unit, &when) != C_OK) return;
    if ((flags & OBJ_SET_GET) && getGenericCommand(c) == C_ERR) return;
    robj *existing = lookupKeyWrite(c->db, key);
    if ((flags & OBJ_SET_NX && existing) || (flags & OBJ_SET_XX && !existing)) {
        if (!(flags & OBJ_SET_GET)) addReplyNull(c);
        return;
    }
    incrRefCount(val); /* the keyspace's reference */
    setKeyFound(c, c->db, key, val, existing, (flags & OBJ_KEEPTTL) ? SETKEY_KEEPTTL : 0);
    server.dirty++;
    notifyKeyspaceEvent(NOTIFY_STRING, "set", key, c->db->id);
    if (expire) {
        setExpire(c, c->db, key, when);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "expire", key, c->db->id);
    }
    if (flags != OBJ_NO_FLAGS) propagateSet(c, key, val, flags, when); /* plain SET replays as itself */
    if (!(flags & OBJ_SET_GET)) addReply(c, shared.ok);
}

void setCommand(client *c) {
    robj *expire = NULL;
    int unit = 0, flags = OBJ_NO_FLAGS;
    if (parseExtendedStringArguments(c, &flags, &unit, &expire, COMMAND_SET) != C_OK) return;
    c->argv[2] = tryObjectEncoding(c->argv[2]);
    setGenericCommand(c, flags, c->argv[1], c->argv[2], expire, unit);
}

void setnxCommand(client *c) {
    c->argv[2] = tryObjectEncoding(c->argv[2]);
    if (lookupKeyWrite(c->db, c->argv[1]) != NULL) {
        addReply(c, shared.czero);
        return;
    }
    setKey(c, c->db, c->argv[1], c->argv[2], SETKEY_DOESNT_EXIST);
    server.dirty++;
    notifyKeyspaceEvent(NOTIFY_STRING, "set", c->argv[1], c->db->id);
    addReply(c, shared.cone);
}

void setexCommand(client *c) {
    c->argv[3] = tryObjectEncoding(c->argv[3]);
    setGenericCommand(c, OBJ_EX, c->argv[1], c->argv[3], c->argv[2], 1);
}

void psetexCommand(client *c) {
    c->argv[3] = tryObjectEncoding(c->argv[3]);
    setGenericCommand(c, OBJ_PX, c->argv[1], c->argv[3], c->argv[2], 0);
}

/* ---- reading -------------------------------------------------------------------------- */

void getCommand(client *c) { getGenericCommand(c); }

void getexCommand(client *c) {
    robj *expire = NULL;
    int unit = 0, flags = OBJ_NO_FLAGS;
    if (parseExtendedStringArguments(c, &flags, &unit, &expire, COMMAND_GET) != C_OK) return;
    robj *o = lookupKeyRead(c->db, c->argv[1]);
    if (o == NULL) {
        addReplyNull(c);
        return;
    }
    if (checkType(c, o, OBJ_STRING)) return;
    long long when = 0;
    if (expire && getExpireMillisecondsOrReply(c, expire, flags, unit, &when) != C_OK) return;
    addReplyBulk(c, o);
    if (expire && checkAlreadyExpired(when)) {
        dbDelete(c->db, c->argv[1]);
        robj *argv[2] = {shared.del_cmd, c->argv[1]};
        propagateCommandAs(c, argv, 2);
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "del", c->argv[1], c->db->id);
        server.dirty++;
    } else if (expire) {
        setExpire(c, c->db, c->argv[1], when);
        propagateExpireAt(c, c->argv[1], when);
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "expire", c->argv[1], c->db->id);
        server.dirty++;
    } else if (flags & OBJ_PERSIST && removeExpire(c->db, c->argv[1])) {
        robj *argv[2] = {shared.persist_cmd, c->argv[1]};
        propagateCommandAs(c, argv, 2);
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "persist", c->argv[1], c->db->id);
        server.dirty++;
    }
}

void getdelCommand(client *c) {
    if (getGenericCommand(c) == C_ERR) return;
    if (dbSyncDelete(c->db, c->argv[1])) {
        /* replays as DEL (UNLINK with lazyfree-lazy-user-del), as in Redis 7.0 */
        propagateAsKeyCommand(c, server.lazyfree_lazy_user_del ? "UNLINK" : "DEL", c->argv[1], 0, 0);
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "del", c->argv[1], c->db->id);
        server.dirty++;
    }
}

void getsetCommand(client *c) {
    if (getGenericCommand(c) == C_ERR) return;
    c->argv[2] = tryObjectEncoding(c->argv[2]);
    setKey(c, c->db, c->argv[1], c->argv[2], 0);
    notifyKeyspaceEvent(NOTIFY_STRING, "set", c->argv[1], c->db->id);
    server.dirty++;
    /* Replayed as SET key value, as Redis 7.0 does: a replica's INFO
     * commandstats count it under set, never getset. */
    if (propagationEnabled()) {
        robj *argv[3] = {shared.set_cmd, c->argv[1], c->argv[2]};
        propagateCommandAs(c, argv, 3);
    }
}

void mgetCommand(client *c) {
    addReplyArrayLen(c, c->argc - 1);
    for (int j = 1; j < c->argc; j++) {
        robj *o = lookupKeyRead(c->db, c->argv[j]);
        if (o == NULL || o->type != OBJ_STRING) addReplyNull(c);
        else addReplyBulk(c, o);
    }
}

void strlenCommand(client *c) {
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.czero);
    if (o == NULL || checkType(c, o, OBJ_STRING)) return;
    addReplyLongLong(c, (long long)stringObjectLen(o));
}

/* Resolves Redis's GETRANGE index rules; returns 0 for an empty result. */
static int resolveRange(long long *start, long long *end, long long strlen_) {
    if (*start < 0 && *end < 0 && *start > *end) return 0;
    if (*start < 0) *start = strlen_ + *start;
    if (*end < 0) *end = strlen_ + *end;
    if (*start < 0) *start = 0;
    if (*end < 0) *end = 0;
    if (*end >= strlen_) *end = strlen_ - 1;
    return !(*start > *end || strlen_ == 0);
}

void getrangeCommand(client *c) {
    long long start, end;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &start, NULL) != C_OK) return;
    if (getLongLongFromObjectOrReply(c, c->argv[3], &end, NULL) != C_OK) return;
    robj *o = lookupKeyReadOrReply(c, c->argv[1], shared.emptybulk);
    if (o == NULL || checkType(c, o, OBJ_STRING)) return;
    char buf[LONG_STR_SIZE];
    const char *str;
    long long len;
    if (o->encoding == OBJ_ENCODING_INT) {
        len = ll2string(buf, sizeof buf, (long long)(intptr_t)o->ptr);
        str = buf;
    } else {
        str = o->ptr;
        len = (long long)sdslen(o->ptr);
    }
    if (!resolveRange(&start, &end, len)) addReply(c, shared.emptybulk);
    else addReplyBulkCBuffer(c, str + start, (size_t)(end - start + 1));
}

/* ---- writing ----------------------------------------------------------------------------- */

static void msetGenericCommand(client *c, int nx) {
    if ((c->argc % 2) == 0) {
        addReplyErrorArity(c);
        return;
    }
    if (nx) {
        for (int j = 1; j < c->argc; j += 2) {
            if (lookupKeyWrite(c->db, c->argv[j]) != NULL) {
                addReply(c, shared.czero);
                return;
            }
        }
    }
    for (int j = 1; j < c->argc; j += 2) {
        c->argv[j + 1] = tryObjectEncoding(c->argv[j + 1]);
        setKey(c, c->db, c->argv[j], c->argv[j + 1], 0);
        notifyKeyspaceEvent(NOTIFY_STRING, "set", c->argv[j], c->db->id);
    }
    server.dirty += (c->argc - 1) / 2;
    addReply(c, nx ? shared.cone : shared.ok);
}

void msetCommand(client *c) { msetGenericCommand(c, 0); }
void msetnxCommand(client *c) { msetGenericCommand(c, 1); }

void appendCommand(client *c) {
    robj *o = lookupKeyWrite(c->db, c->argv[1]);
    size_t totlen;
    if (o == NULL) {
        c->argv[2] = tryObjectEncoding(c->argv[2]);
        incrRefCount(c->argv[2]); /* argv keeps its own; the db copies */
        totlen = stringObjectLen(dbAdd(c->db, c->argv[1], c->argv[2]));
    } else {
        if (checkType(c, o, OBJ_STRING)) return;
        robj *append = c->argv[2];
        if (checkStringLength(c, (long long)stringObjectLen(o), (long long)sdslen(append->ptr)) != C_OK) return;
        o = dbUnshareStringValue(c->db, c->argv[1], o);
        o->ptr = sdscatlen(o->ptr, append->ptr, sdslen(append->ptr));
        totlen = sdslen(o->ptr);
    }
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_STRING, "append", c->argv[1], c->db->id);
    server.dirty++;
    addReplyLongLong(c, (long long)totlen);
}

void setrangeCommand(client *c) {
    long long offset;
    sds value = c->argv[3]->ptr;
    size_t vlen = sdslen(value);
    if (getLongLongFromObjectOrReply(c, c->argv[2], &offset, NULL) != C_OK) return;
    if (offset < 0) {
        addReplyError(c, "offset is out of range");
        return;
    }
    robj *o = lookupKeyWrite(c->db, c->argv[1]);
    if (o == NULL) {
        if (vlen == 0) {
            addReply(c, shared.czero);
            return;
        }
        if (checkStringLength(c, offset, (long long)vlen) != C_OK) return;
        o = dbAdd(c->db, c->argv[1], createObject(OBJ_STRING, sdsnewlen(NULL, (size_t)offset + vlen)));
    } else {
        if (checkType(c, o, OBJ_STRING)) return;
        size_t olen = stringObjectLen(o);
        if (vlen == 0) {
            addReplyLongLong(c, (long long)olen);
            return;
        }
        if (checkStringLength(c, offset, (long long)vlen) != C_OK) return;
        o = dbUnshareStringValue(c->db, c->argv[1], o);
        if ((size_t)offset + vlen > sdslen(o->ptr)) o->ptr = sdsgrowzero(o->ptr, (size_t)offset + vlen);
    }
    memcpy((char *)o->ptr + offset, value, vlen);
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_STRING, "setrange", c->argv[1], c->db->id);
    server.dirty++;
    addReplyLongLong(c, (long long)sdslen(o->ptr));
}

/* ---- counters ------------------------------------------------------------------------------ */

/* An int-encoded, unshared value outside the shared range can be updated in
 * place instead of allocating a new object for every INCR. */
static int canUpdateInPlace(robj *o, long long value) {
    return o && o->refcount == 1 && o->encoding == OBJ_ENCODING_INT &&
           (value < 0 || value >= OBJ_SHARED_INTEGERS) && value >= (long long)INTPTR_MIN &&
           value <= (long long)INTPTR_MAX;
}

static void incrDecrCommand(client *c, long long incr) {
    robj *o = lookupKeyWrite(c->db, c->argv[1]);
    if (checkType(c, o, OBJ_STRING)) return;
    long long value;
    if (getLongLongFromObjectOrReply(c, o, &value, NULL) != C_OK) return;
    if ((incr < 0 && value < 0 && incr < (LLONG_MIN - value)) ||
        (incr > 0 && value > 0 && incr > (LLONG_MAX - value))) {
        addReplyError(c, "increment or decrement would overflow");
        return;
    }
    value += incr;
    if (canUpdateInPlace(o, value)) {
        o->ptr = (void *)(intptr_t)value;
    } else {
        robj *n = createStringObjectFromLongLongForValue(value);
        setKeyFound(c, c->db, c->argv[1], n, o, SETKEY_KEEPTTL | SETKEY_NO_SIGNAL);
    }
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_STRING, "incrby", c->argv[1], c->db->id);
    server.dirty++;
    addReplyLongLong(c, value);
}

void incrCommand(client *c) { incrDecrCommand(c, 1); }
void decrCommand(client *c) { incrDecrCommand(c, -1); }

void incrbyCommand(client *c) {
    long long incr;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &incr, NULL) != C_OK) return;
    incrDecrCommand(c, incr);
}

void decrbyCommand(client *c) {
    long long incr;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &incr, NULL) != C_OK) return;
    if (incr == LLONG_MIN) {
        addReplyError(c, "decrement would overflow");
        return;
    }
    incrDecrCommand(c, -incr);
}

/* INCRBYFLOAT computes in x87 80-bit extended arithmetic done in software
 * (xfloat.h), not in the C `long double`, whose width differs per CPU: so
 * every port replies exactly as Redis on x86_64 does. A missing key is 0. */
static int getXfloatFromObjectOrReply(client *c, robj *o, xfloat *target) {
    xfloat value = xfloatFromLongLong(0);
    if (o && sdsEncodedObject(o)) {
        if (!xfloatParse(o->ptr, sdslen(o->ptr), &value)) {
            addReplyError(c, "value is not a valid float");
            return C_ERR;
        }
    } else if (o) {
        value = xfloatFromLongLong((long long)(intptr_t)o->ptr);
    }
    *target = value;
    return C_OK;
}

void incrbyfloatCommand(client *c) {
    robj *o = lookupKeyWrite(c->db, c->argv[1]);
    if (checkType(c, o, OBJ_STRING)) return;
    xfloat value, incr;
    if (getXfloatFromObjectOrReply(c, o, &value) != C_OK ||
        getXfloatFromObjectOrReply(c, c->argv[2], &incr) != C_OK)
        return;
    char buf[XFLOAT_MAX_CHARS];
    int len = xfloatSumOrReply(c, value, incr, buf);
    if (len < 0) return;
    robj *n = createStringObject(buf, (size_t)len);
    n = o ? dbOverwrite(c->db, c->argv[1], n) : dbAdd(c->db, c->argv[1], n);
    signalModifiedKey(c, c->db, c->argv[1]);
    notifyKeyspaceEvent(NOTIFY_STRING, "incrbyfloat", c->argv[1], c->db->id);
    server.dirty++;
    addReplyBulk(c, n);
    if (propagationEnabled()) { /* the result, not the increment: replays the same on any CPU */
        robj *result = createStringObject(buf, (size_t)len);
        robj *argv[4] = {shared.set_cmd, c->argv[1], result, shared.keepttl};
        propagateCommandAs(c, argv, 4);
        decrRefCount(result);
    }
}

/* ---- LCS ----------------------------------------------------------------------------------- */

typedef struct lcsOptions {
    int getlen, getidx, withmatchlen;
    long long minmatchlen;
} lcsOptions;

static int parseLcsOptions(client *c, lcsOptions *opt) {
    memset(opt, 0, sizeof *opt);
    for (int j = 3; j < c->argc; j++) {
        const char *name = c->argv[j]->ptr;
        int more = c->argc - j - 1;
        if (!strcasecmp(name, "idx")) opt->getidx = 1;
        else if (!strcasecmp(name, "len")) opt->getlen = 1;
        else if (!strcasecmp(name, "withmatchlen")) opt->withmatchlen = 1;
        else if (!strcasecmp(name, "minmatchlen") && more) {
            if (getLongLongFromObjectOrReply(c, c->argv[++j], &opt->minmatchlen, NULL) != C_OK) return C_ERR;
            if (opt->minmatchlen < 0) opt->minmatchlen = 0;
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return C_ERR;
        }
    }
    if (opt->getidx && opt->getlen) {
        addReplyError(c, "If you want both the length and indexes, please just use IDX.");
        return C_ERR;
    }
    return C_OK;
}

/* Fetches a string operand; a missing key is the empty string. */
static int lcsOperand(client *c, robj *key, robj **out) {
    robj *o = lookupKeyRead(c->db, key);
    if (o && o->type != OBJ_STRING) {
        addReplyError(c, "The specified keys must contain string values");
        return C_ERR;
    }
    *out = o ? getDecodedObject(o) : createStringObject("", 0);
    return C_OK;
}

static void addLcsRange(client *c, long long from, long long to) {
    addReplyArrayLen(c, 2);
    addReplyLongLong(c, from);
    addReplyLongLong(c, to);
}

typedef struct lcsRun {
    int active;
    uint32_t a_start, a_end, b_start, b_end;
} lcsRun;

static void emitLcsRun(client *c, lcsRun *run, lcsOptions *opt, long *matches) {
    if (!run->active) return;
    long long match_len = (long long)run->a_end - run->a_start + 1;
    if (opt->getidx && (opt->minmatchlen == 0 || match_len >= opt->minmatchlen)) {
        addReplyArrayLen(c, 2 + opt->withmatchlen);
        addLcsRange(c, run->a_start, run->a_end);
        addLcsRange(c, run->b_start, run->b_end);
        if (opt->withmatchlen) addReplyLongLong(c, match_len);
        (*matches)++;
    }
    run->active = 0;
}

/* Walks the dynamic-programming table back from the end: every match
 * extends the current run of contiguous matches (which always ends where the
 * previous match was), every step over a mismatch closes it. Runs are
 * reported from the end of the strings backwards, as Redis does. */
static void lcsReply(client *c, const char *a, uint32_t alen, const char *b, uint32_t blen, uint32_t *dp,
                     lcsOptions *opt) {
    size_t stride = (size_t)alen + 1;
    uint32_t total = dp[(size_t)blen * stride + alen];
    if (opt->getlen) {
        addReplyLongLong(c, total);
        return;
    }
    sds result = opt->getidx ? NULL : sdsnewlen(SDS_NOINIT, total);
    void *arraylen = NULL;
    long matches = 0;
    if (opt->getidx) {
        addReplyMapLen(c, 2);
        addReplyBulkCString(c, "matches");
        arraylen = addReplyDeferredLen(c);
    }
    lcsRun run = {0, 0, 0, 0, 0};
    uint32_t i = alen, j = blen, idx = total;
    while (i > 0 && j > 0) {
        if (a[i - 1] == b[j - 1]) {
            if (result) result[idx - 1] = a[i - 1];
            if (!run.active) {
                run = (lcsRun){1, i - 1, i - 1, j - 1, j - 1};
            } else {
                run.a_start--;
                run.b_start--;
            }
            idx--;
            i--;
            j--;
        } else {
            if (dp[(size_t)j * stride + i - 1] > dp[(size_t)(j - 1) * stride + i]) i--;
            else j--;
            emitLcsRun(c, &run, opt, &matches);
        }
    }
    emitLcsRun(c, &run, opt, &matches);
    if (opt->getidx) {
        setDeferredArrayLen(c, arraylen, matches);
        addReplyBulkCString(c, "len");
        addReplyLongLong(c, total);
    } else {
        addReplyBulkSds(c, result);
    }
}

void lcsCommand(client *c) {
    lcsOptions opt;
    robj *obja = NULL, *objb = NULL;
    /* Redis checks the keys' types before the options. */
    if (lcsOperand(c, c->argv[1], &obja) != C_OK) return;
    if (lcsOperand(c, c->argv[2], &objb) != C_OK || parseLcsOptions(c, &opt) != C_OK) {
        decrRefCount(obja);
        if (objb) decrRefCount(objb);
        return;
    }
    const char *a = obja->ptr, *b = objb->ptr;
    unsigned long long alen = sdslen(obja->ptr), blen = sdslen(objb->ptr);
    unsigned long long cells = (alen + 1) * (blen + 1);
    if (alen >= UINT32_MAX || blen >= UINT32_MAX || cells > SIZE_MAX / sizeof(uint32_t) ||
        cells * sizeof(uint32_t) > (unsigned long long)server.proto_max_bulk_len) {
        addReplyError(c, "Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len");
        decrRefCount(obja);
        decrRefCount(objb);
        return;
    }
    uint32_t *dp = ztrymalloc((size_t)cells * sizeof(uint32_t));
    if (dp == NULL) {
        addReplyError(c, "Insufficient memory, failed allocating transient memory for LCS");
        decrRefCount(obja);
        decrRefCount(objb);
        return;
    }
    size_t stride = (size_t)alen + 1;
    for (size_t j = 0; j <= blen; j++) {
        for (size_t i = 0; i <= alen; i++) {
            if (i == 0 || j == 0) dp[j * stride + i] = 0;
            else if (a[i - 1] == b[j - 1]) dp[j * stride + i] = dp[(j - 1) * stride + i - 1] + 1;
            else {
                uint32_t left = dp[j * stride + i - 1], up = dp[(j - 1) * stride + i];
                dp[j * stride + i] = left > up ? left : up;
            }
        }
    }
    lcsReply(c, a, (uint32_t)alen, b, (uint32_t)blen, dp, &opt);
    zfree(dp);
    decrRefCount(obja);
    decrRefCount(objb);
}
