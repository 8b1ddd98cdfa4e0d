/* dump.c -- DUMP and RESTORE: one key's value as an opaque, portable
 * payload, and back.
 *
 * The payload is Redis's: the value as an RDB file would hold it (a type
 * byte, then the value, no key), then the RDB version that wrote it (2
 * bytes, little-endian) and the CRC-64 (Jones) of everything before, also
 * little-endian. So a payload DUMPed here RESTOREs into Redis and back.
 * MIGRATE (migrate.c) sends the same payload, built by dumpPayloadCreate().
 *
 * Design decisions:
 * - The value is written and read by rdb.c's own encoder and validating
 *   decoder in memory mode (rdbSerializeValue / rdbDeserializeValue): one
 *   implementation of the format, and a RESTORE payload is checked as
 *   deeply as a file (every listpack, intset and ziplist entry, duplicates,
 *   truncation) whatever sanitize-dump-payload says -- a client's bytes are
 *   never trusted more than a file's.
 * - Footer versions up to the loader's maximum (12, Redis 7.4) are
 *   accepted; the checksum must match (a zero checksum is no exception,
 *   unlike a file's: Redis always computes it for DUMP).
 * - The value must lie within the body: Redis 7.0 lets a corrupt length
 *   read on into the payload's own footer; we refuse it (Bad data format).
 *   Bytes left between the value and the footer are ignored, as in Redis.
 * - Replies, errors and their order follow Redis 7.0: options first, then
 *   BUSYKEY, then the TTL, then the payload.
 * - A relative TTL is propagated as the absolute time it produced (the
 *   command plus ABSTTL), so an AOF replayed later recreates the same
 *   expiry; a TTL already past creates nothing and, if REPLACE removed a
 *   key, propagates that deletion instead.
 */
#include "server.h"
#include "crc64.h"

#define DUMP_FOOTER_LEN 10 /* 2 bytes of version + 8 of CRC-64 */

/* ---- the payload ------------------------------------------------------------------------------ */

sds dumpPayloadCreate(robj *o) {
    sds payload = rdbSerializeValue(o);
    unsigned char footer[DUMP_FOOTER_LEN];
    store16le(footer, RDB_VERSION);
    payload = sdscatlen(payload, footer, 2);
    uint64_t crc = crc64(0, (const unsigned char *)payload, sdslen(payload));
    store64le(footer + 2, crc);
    return sdscatlen(payload, footer + 2, 8);
}

/* The version in the footer if the payload is whole and sound, else -1. */
static int verifyDumpPayload(const unsigned char *p, size_t len) {
    if (len < DUMP_FOOTER_LEN) return -1;
    const unsigned char *footer = p + len - DUMP_FOOTER_LEN;
    int version = load16le(footer);
    if (version > RDB_MAX_READ_VERSION) return -1;
    if (!server.skip_checksum_validation && load64le(footer + 2) != crc64(0, p, len - 8)) return -1;
    return version;
}

void dumpCommand(client *c) {
    robj *o = lookupKeyRead(c->db, c->argv[1]);
    if (o == NULL) {
        addReplyNull(c);
        return;
    }
    addReplyBulkSds(c, dumpPayloadCreate(o));
}

/* ---- RESTORE --------------------------------------------------------------------------------- */

typedef struct restoreOptions {
    int replace, absttl;
    long long idle; /* IDLETIME seconds, -1 = not given */
    long long freq; /* FREQ counter, -1 = not given */
} restoreOptions;

/* Parses argv[4..]; C_ERR after replying. IDLETIME and FREQ exclude each
 * other (the second one is a syntax error, as in Redis). */
static int parseRestoreOptions(client *c, restoreOptions *opt) {
    *opt = (restoreOptions){.idle = -1, .freq = -1};
    for (int j = 4; j < c->argc; j++) {
        const char *arg = c->argv[j]->ptr;
        int more = c->argc - j - 1;
        if (!strcasecmp(arg, "replace")) {
            opt->replace = 1;
        } else if (!strcasecmp(arg, "absttl")) {
            opt->absttl = 1;
        } else if (!strcasecmp(arg, "idletime") && more >= 1 && opt->freq == -1) {
            if (getLongLongFromObjectOrReply(c, c->argv[++j], &opt->idle, NULL) != C_OK) return C_ERR;
            if (opt->idle < 0) {
                addReplyError(c, "Invalid IDLETIME value, must be >= 0");
                return C_ERR;
            }
        } else if (!strcasecmp(arg, "freq") && more >= 1 && opt->idle == -1) {
            if (getLongLongFromObjectOrReply(c, c->argv[++j], &opt->freq, NULL) != C_OK) return C_ERR;
            if (opt->freq < 0 || opt->freq > 255) {
                addReplyError(c, "Invalid FREQ value, must be >= 0 and <= 255");
                return C_ERR;
            }
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return C_ERR;
        }
    }
    return C_OK;
}

/* The access clock the new key starts with: FREQ under an LFU policy,
 * IDLETIME under any other. The 24-bit clock wraps (every 194 days): an
 * idle time beyond that is taken modulo the cycle, as Redis 7.0 does. */
static void applyAccessClock(robj *o, const restoreOptions *opt, unsigned int lru_clock) {
    if (server.maxmemory_policy & MAXMEMORY_FLAG_LFU) {
        if (opt->freq >= 0) o->lru = (lfuInitialClock() & ~0xFFu) | (unsigned)opt->freq;
        return;
    }
    if (opt->idle < 0) return;
    long long idle_units = opt->idle / (LRU_CLOCK_RESOLUTION / 1000); /* the clock ticks once a second */
    o->lru = (unsigned)(((long long)lru_clock - idle_units) & LRU_CLOCK_MAX);
}

/* The TTL was already past: nothing is created. If REPLACE deleted a key,
 * that deletion is the command's whole effect. */
static void restoreExpired(client *c, robj *key, int deleted) {
    if (deleted) {
        robj *argv[2] = {server.lazyfree_lazy_server_del ? shared.unlink_cmd : shared.del_cmd, key};
        alsoPropagate(c->db->id, argv, 2);
        signalModifiedKey(c, c->db, key);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "del", key, c->db->id);
        server.dirty++;
    }
    preventCommandPropagation(c);
    addReply(c, shared.ok);
}

/* RESTORE with a relative TTL replays as RESTORE key <absolute ms> ... ABSTTL. */
static void propagateAbsoluteTtl(client *c, long long when) {
    if (!propagationEnabled()) return;
    robj **argv = zmalloc(sizeof(robj *) * (size_t)(c->argc + 1));
    for (int j = 0; j < c->argc; j++) argv[j] = c->argv[j];
    argv[2] = createStringObjectFromLongLong(when);
    argv[c->argc] = createStringObject("ABSTTL", 6);
    propagateCommandAs(c, argv, c->argc + 1);
    decrRefCount(argv[2]);
    decrRefCount(argv[c->argc]);
    zfree(argv);
}

/* The value of argv[3], or NULL after replying. */
static robj *restorePayloadValue(client *c) {
    const unsigned char *p = c->argv[3]->ptr;
    size_t len = sdslen(c->argv[3]->ptr);
    int version = verifyDumpPayload(p, len);
    if (version < 0) {
        addReplyError(c, "DUMP payload version or checksum are wrong");
        return NULL;
    }
    sds err = NULL;
    robj *o = rdbDeserializeValue(p, len - DUMP_FOOTER_LEN, version, &err);
    if (o == NULL) {
        serverLog(LL_VERBOSE, "RESTORE refused a payload: %s", err);
        addReplyError(c, "Bad data format");
    }
    sdsfree(err);
    return o;
}

void restoreCommand(client *c) {
    restoreOptions opt;
    robj *key = c->argv[1];
    long long ttl;
    if (parseRestoreOptions(c, &opt) != C_OK) return;
    unsigned int lru_clock = LRU_CLOCK();
    if (!opt.replace && lookupKeyWrite(c->db, key) != NULL) {
        addReplyErrorObject(c, shared.busykeyerr);
        return;
    }
    if (getLongLongFromObjectOrReply(c, c->argv[2], &ttl, NULL) != C_OK) return;
    if (ttl < 0) {
        addReplyError(c, "Invalid TTL value, must be >= 0");
        return;
    }
    robj *o = restorePayloadValue(c);
    if (o == NULL) return;
    int deleted = opt.replace && lookupKeyWrite(c->db, key) != NULL && dbDelete(c->db, key);
    if (ttl && !opt.absttl) ttl = ttl > LLONG_MAX - server.mstime ? LLONG_MAX : ttl + server.mstime;
    if (ttl && checkAlreadyExpired(ttl)) {
        decrRefCount(o);
        restoreExpired(c, key, deleted);
        return;
    }
    robj *stored = dbAddWithExpire(c->db, key, o, ttl ? ttl : -1);
    if (ttl && !opt.absttl) propagateAbsoluteTtl(c, ttl);
    applyAccessClock(stored, &opt, lru_clock);
    signalModifiedKey(c, c->db, key);
    notifyKeyspaceEvent(NOTIFY_GENERIC, "restore", key, c->db->id);
    addReply(c, shared.ok);
    server.dirty++;
}
