/* expire.c -- key time-to-live: storage, lazy and active expiry, and the
 * EXPIRE family of commands.
 *
 * A TTL is an absolute unix time in milliseconds stored in the key's kvobj
 * (kvobj.h); db->expires lists the kvobjs that have one (see db.c for the
 * invariant), so the active cycle samples only keys with a TTL.
 *
 * Two mechanisms remove expired keys, as in Redis:
 *  - lazily, when a command touches the key (expireIfNeeded);
 *  - actively, from the cron: activeExpireCycle() samples keys with a TTL,
 *    20 per round, and repeats a database while more than 10% of its sample
 *    was stale, within a CPU budget (25% of a cron tick in the slow cycle,
 *    1 ms in the fast one run before sleeping). The effort knob
 *    (active-expire-effort 1..10) scales the sample and the budget. The
 *    cursor persists, so a large keyspace is covered across calls without
 *    ever stalling the loop.
 *
 * Neither runs during CLIENT PAUSE: the dataset stays as it is, and a key
 * that expires meanwhile only looks gone until the pause ends.
 *
 * Relative times are turned into absolute ones here, and overflow is
 * checked before adding "now" or multiplying seconds by 1000 -- user input is
 * 64-bit everywhere, so a 32-bit build behaves like a 64-bit one. The
 * commands propagate the absolute form they computed (propagateExpireAt:
 * PEXPIREAT key ms; DEL for a time already past), so a replay later gives
 * the key the same deadline.
 */
#include "server.h"
#include "snapshot.h"

#define ACTIVE_EXPIRE_KEYS_PER_LOOP 20
#define ACTIVE_EXPIRE_FAST_DURATION_US 1000
#define ACTIVE_EXPIRE_SLOW_TIME_PERC 25
#define ACTIVE_EXPIRE_ACCEPTABLE_STALE 10

/* ---- keys a writable replica's own clients gave a TTL --------------------------------- */

/* A replica expires nothing by itself: its primary sends a DEL for every
 * key that expires there. Keys written with a TTL by the replica's own
 * clients (replica-read-only no) have no such DEL coming, so, as in Redis,
 * the replica lists them (name -> bitmap of the dbs, 0..63, holding a key
 * of that name with a TTL it set) and its cron expires them. The list is
 * dropped with the whole dataset (emptyData: a full sync or FLUSHALL), and
 * an entry whose key is gone or has no TTL any more leaves it when
 * sampled. */
static dict *replica_keys_with_expire;

static dictType replicaKeysWithExpireDictType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .keyDestructor = dictSdsDestructor,
};

static void rememberReplicaKeyWithExpire(redisDb *db, robj *key) {
    if (db->id > 63) {
        static int warned;
        if (!warned++)
            serverLog(LL_WARNING, "Keys with a TTL written to a writable replica in a database above 63 are "
                                  "not expired by the replica itself: they expire once the replica is promoted");
        return;
    }
    if (replica_keys_with_expire == NULL) replica_keys_with_expire = dictCreate(&replicaKeysWithExpireDictType);
    dictEntry *de = dictFind(replica_keys_with_expire, key->ptr);
    if (de == NULL) de = dictAddRaw(replica_keys_with_expire, sdsdup(key->ptr), NULL);
    dictSetUnsignedIntegerVal(de, dictGetUnsignedIntegerVal(de) | (uint64_t)1 << db->id);
}

void forgetReplicaKeysWithExpire(void) {
    if (replica_keys_with_expire == NULL) return;
    dictRelease(replica_keys_with_expire);
    replica_keys_with_expire = NULL;
}

static kvobj *findKey(redisDb *db, robj *key);
static void deleteExpiredKeyAndPropagate(redisDb *db, robj *keyobj);

/* Checks one listed name in each db of its bitmap: expired keys are
 * deleted (and propagated, to the AOF), and the dbs where the key is gone
 * or has no TTL are cleared. Returns how many of its keys are still to
 * expire. */
static int expireListedReplicaKey(dictEntry *de) {
    sds name = dictGetKey(de);
    robj *keyobj = createStringObject(name, sdslen(name));
    uint64_t dbs = dictGetUnsignedIntegerVal(de), still = 0;
    for (int id = 0; id < server.dbnum && id < 64; id++) {
        if (!(dbs & (uint64_t)1 << id)) continue;
        kvobj *o = findKey(server.db + id, keyobj);
        if (o == NULL || !kvobjHasExpire(o)) continue;
        if (kvobjGetExpire(o) < server.mstime) deleteExpiredKeyAndPropagate(server.db + id, keyobj);
        else still |= (uint64_t)1 << id;
    }
    decrRefCount(keyobj);
    if (still) dictSetUnsignedIntegerVal(de, still);
    else dictDelete(replica_keys_with_expire, name);
    return still != 0;
}

/* The replica's share of the slow cycle: random entries of the list until
 * a few are found that are not due, or a millisecond has gone. */
static void expireReplicaKeys(void) {
    if (replica_keys_with_expire == NULL) return;
    long long start = ustime();
    int not_due = 0;
    for (long checked = 1; dictSize(replica_keys_with_expire) > 0; checked++) {
        not_due += expireListedReplicaKey(dictGetRandomKey(replica_keys_with_expire));
        if (not_due > 3 || (checked % 64 == 0 && ustime() - start > 1000)) break;
    }
}

/* ---- storage ------------------------------------------------------------------------ */

static kvobj *findKey(redisDb *db, robj *key) {
    return kvtableFind(db->keys, key->ptr, sdslen(key->ptr));
}

static long long getExpire(redisDb *db, robj *key) {
    if (dictSize(db->expires) == 0) return -1;
    kvobj *o = findKey(db, key);
    return o ? kvobjGetExpire(o) : -1;
}

/* Adding the first TTL to a key rebuilds its kvobj with an expire slot:
 * the keyspace and db->expires are relinked to the new block, which is
 * returned. */
robj *setExpire(client *c, redisDb *db, robj *key, long long when) {
    if (c && !(c->flags & CLIENT_MASTER) && replicationIsReplica() && !server.repl_slave_ro)
        rememberReplicaKeyWithExpire(db, key);
    snapshotBeforeKeyWrite(db, key->ptr);
    kvobj *o = findKey(db, key);
    serverAssert(o != NULL && when != -1);
    kvobj *moved = kvobjSetExpire(o, when);
    if (moved != o) {
        int relinked = kvtableReplaceReallocated(db->keys, o, moved);
        serverAssert(relinked == KVTABLE_OK);
    }
    dbTrackExpire(db, moved);
    return moved;
}

int removeExpire(redisDb *db, robj *key) {
    if (dictSize(db->expires) == 0) return 0;
    kvobj *o = findKey(db, key);
    if (o == NULL || !kvobjHasExpire(o)) return 0;
    snapshotBeforeKeyWrite(db, key->ptr);
    dictDelete(db->expires, key->ptr); /* reads o's key: before anything else */
    kvobjSetExpire(o, -1);             /* in place: the slot exists */
    return 1;
}

/* The clock commands compare against: cached once per command so a command
 * sees one consistent "now" (Redis does the same). */
static long long commandTimeMs(void) { return server.mstime; }

int keyIsExpired(redisDb *db, robj *key) {
    if (server.loading) return 0;
    long long when = getExpire(db, key);
    return when >= 0 && commandTimeMs() > when;
}

static void deleteExpiredKeyAndPropagate(redisDb *db, robj *keyobj) {
    if (server.lazyfree_lazy_expire) dbAsyncDelete(db, keyobj);
    else dbSyncDelete(db, keyobj);
    server.stat_expiredkeys++;
    /* the notification first, then the DEL, as Redis 7.0: what a module
     * propagates from its "expired" handler comes before the DEL */
    notifyKeyspaceEvent(NOTIFY_EXPIRED, "expired", keyobj, db->id);
    signalModifiedKey(NULL, db, keyobj);
    /* to the AOF and the replicas whatever the command that found it may
     * propagate (a module's Call without "!", a script's redis.set_repl()):
     * they hold the key too, as in Redis 7.0 */
    robj *argv[2] = {server.lazyfree_lazy_expire ? shared.unlink_cmd : shared.del_cmd, keyobj};
    int targets = propagateSwapTargets(1, 1);
    alsoPropagate(db->id, argv, 2);
    propagateRestoreTargets(targets);
}

/* Deletes the key if it has expired; returns 1 if the key is (now) gone.
 * During CLIENT PAUSE the dataset stays as it is, as in Redis: the key
 * only looks gone, and is deleted by the first access after the pause.
 * A replica leaves expired keys to its primary's DELs, except that a
 * writable one (replica-read-only no) deletes them when a command of its
 * own clients is about to write them, as Redis 7.0 does. */
int expireIfNeeded(redisDb *db, robj *key, int flags) {
    if (!keyIsExpired(db, key)) return 0;
    if (replicationIsReplica()) { /* the primary's DEL rules; its own commands still see the key */
        client *cur = server.current_client;
        if (cur && (cur->flags & CLIENT_MASTER)) return 0;
        if (!(flags & LOOKUP_WRITE) || server.repl_slave_ro) return 1;
    }
    if (flags & LOOKUP_NOEXPIRE) return 1;
    if (clientsArePaused()) return 1;
    deleteExpiredKeyAndPropagate(db, key);
    return 1;
}

int checkAlreadyExpired(long long when) {
    return when <= commandTimeMs() && !server.loading && !replicationIsReplica();
}

/* ---- the active cycle ------------------------------------------------------------------ */

static int expired_stale_perc_tracker;

/* Samples up to `num` keys with a TTL from db, deleting the expired ones.
 * Returns how many of the sampled keys had expired. */
static int expireSampleOfDb(redisDb *db, long num, long *sampled) {
    int expired = 0;
    *sampled = 0;
    while (num-- > 0) {
        dictEntry *de = dictGetRandomKey(db->expires);
        if (de == NULL) break;
        (*sampled)++;
        kvobj *o = dictGetVal(de);
        if (kvobjGetExpire(o) < server.mstime) {
            sds key = kvobjGetKey(o);
            robj *keyobj = createStringObject(key, sdslen(key));
            deleteExpiredKeyAndPropagate(db, keyobj);
            decrRefCount(keyobj);
            expired++;
        }
    }
    return expired;
}

void activeExpireCycle(int type) {
    if (replicationIsReplica()) { /* keys expire on a replica when its primary says so */
        if (type == ACTIVE_EXPIRE_CYCLE_SLOW && !clientsArePaused()) {
            propagateUnitBegin(0);
            expireReplicaKeys();
            propagateUnitEnd();
        }
        return;
    }
    static unsigned int current_db = 0;
    static long long last_fast_cycle = 0;
    int effort = server.active_expire_effort - 1; /* 0..9 */
    long keys_per_loop = ACTIVE_EXPIRE_KEYS_PER_LOOP + ACTIVE_EXPIRE_KEYS_PER_LOOP / 4 * effort;
    long long fast_duration = ACTIVE_EXPIRE_FAST_DURATION_US + ACTIVE_EXPIRE_FAST_DURATION_US / 4 * effort;
    int slow_perc = ACTIVE_EXPIRE_SLOW_TIME_PERC + 2 * effort;
    int stale_ok = ACTIVE_EXPIRE_ACCEPTABLE_STALE - effort;
    long long start = ustime();

    if (clientsArePaused()) return; /* the dataset stays still during a pause */
    if (type == ACTIVE_EXPIRE_CYCLE_FAST) {
        if (expired_stale_perc_tracker < stale_ok) return; /* little to gain */
        if (start < last_fast_cycle + fast_duration * 2) return;
        last_fast_cycle = start;
    }
    long long timelimit = type == ACTIVE_EXPIRE_CYCLE_FAST ? fast_duration
                                                           : 1000000LL * slow_perc / server.hz / 100;
    if (timelimit <= 0) timelimit = 1;

    long total_sampled = 0, total_expired = 0;
    int dbs = server.dbnum < 16 ? server.dbnum : 16;
    propagateUnitBegin(0); /* the DELs, and what modules propagate from "expired", go out bare at the end */
    for (int j = 0; j < dbs; j++) {
        redisDb *db = server.db + (current_db % (unsigned)server.dbnum);
        current_db++;
        int repeat;
        do {
            if (dictSize(db->expires) == 0) break;
            long sampled;
            int expired = expireSampleOfDb(db, keys_per_loop, &sampled);
            total_sampled += sampled;
            total_expired += expired;
            repeat = sampled > 0 && expired * 100 / sampled > stale_ok;
            if (ustime() - start > timelimit) {
                server.stat_expired_time_cap_reached_count++;
                j = dbs;
                break;
            }
        } while (repeat);
    }
    propagateUnitEnd();
    server.stat_expire_cycle_time_used += ustime() - start;
    LATENCY_SAMPLE("expire-cycle", (ustime() - start) / 1000);
    int perc = total_sampled ? (int)(total_expired * 100 / total_sampled) : 0;
    expired_stale_perc_tracker = (expired_stale_perc_tracker * 95 + perc * 5) / 100;
    server.stat_expired_stale_perc = expired_stale_perc_tracker;
}

/* ---- EXPIRE family ------------------------------------------------------------------------ */

#define EXPIRE_NX (1 << 0)
#define EXPIRE_XX (1 << 1)
#define EXPIRE_GT (1 << 2)
#define EXPIRE_LT (1 << 3)

static int parseExpireFlags(client *c, int start, int *flags) {
    for (int j = start; j < c->argc; j++) {
        const char *opt = c->argv[j]->ptr;
        if (!strcasecmp(opt, "nx")) *flags |= EXPIRE_NX;
        else if (!strcasecmp(opt, "xx")) *flags |= EXPIRE_XX;
        else if (!strcasecmp(opt, "gt")) *flags |= EXPIRE_GT;
        else if (!strcasecmp(opt, "lt")) *flags |= EXPIRE_LT;
        else {
            addReplyErrorFormat(c, "Unsupported option %s", opt);
            return C_ERR;
        }
    }
    if ((*flags & EXPIRE_NX) && (*flags & (EXPIRE_XX | EXPIRE_GT | EXPIRE_LT))) {
        addReplyError(c, "NX and XX, GT or LT options at the same time are not compatible");
        return C_ERR;
    }
    if ((*flags & EXPIRE_GT) && (*flags & EXPIRE_LT)) {
        addReplyError(c, "GT and LT options at the same time are not compatible");
        return C_ERR;
    }
    return C_OK;
}

/* Whether the NX/XX/GT/LT conditions allow setting `when` (a key without a
 * TTL counts as an infinite TTL for GT/LT). */
static int expireConditionsHold(int flags, long long current, long long when) {
    if ((flags & EXPIRE_NX) && current != -1) return 0;
    if ((flags & EXPIRE_XX) && current == -1) return 0;
    if ((flags & EXPIRE_GT) && (current == -1 || when <= current)) return 0;
    if ((flags & EXPIRE_LT) && current != -1 && when >= current) return 0;
    return 1;
}

/* Converts the user's time to absolute ms, checking for overflow. */
static int absoluteExpireTime(client *c, long long basetime, int unit_seconds, long long *when) {
    long long value;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &value, NULL) != C_OK) return C_ERR;
    if (unit_seconds) {
        if (value > LLONG_MAX / 1000 || value < LLONG_MIN / 1000) {
            addReplyErrorExpireTime(c);
            return C_ERR;
        }
        value *= 1000;
    }
    if ((value > 0 && basetime > LLONG_MAX - value) || (value < 0 && basetime < LLONG_MIN - value)) {
        addReplyErrorExpireTime(c);
        return C_ERR;
    }
    *when = value + basetime;
    return C_OK;
}

/* A TTL set by a command replays as PEXPIREAT key <absolute ms>, whatever
 * the form used (EXPIRE, PEXPIRE, EXPIREAT, PEXPIREAT, GETEX EX ...). */
void propagateExpireAt(client *c, robj *key, long long when) {
    if (!propagationEnabled()) return;
    robj *ms = createStringObjectFromLongLong(when);
    robj *argv[3] = {shared.pexpireat_cmd, key, ms};
    propagateCommandAs(c, argv, 3);
    decrRefCount(ms);
}

static void expireGenericCommand(client *c, long long basetime, int unit_seconds) {
    robj *key = c->argv[1];
    int flags = 0;
    long long when;
    if (parseExpireFlags(c, 3, &flags) != C_OK) return;
    if (absoluteExpireTime(c, basetime, unit_seconds, &when) != C_OK) return;
    if (lookupKeyWrite(c->db, key) == NULL) {
        addReply(c, shared.czero);
        return;
    }
    if (flags) {
        long long current = getExpire(c->db, key);
        if (!expireConditionsHold(flags, current, when)) {
            addReply(c, shared.czero);
            return;
        }
    }
    if (checkAlreadyExpired(when)) {
        dbDelete(c->db, key);
        robj *argv[2] = {shared.del_cmd, key};
        propagateCommandAs(c, argv, 2); /* a time already past: replays as the deletion */
        signalModifiedKey(c, c->db, key);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "del", key, c->db->id);
        server.dirty++;
        addReply(c, shared.cone);
        return;
    }
    setExpire(c, c->db, key, when);
    addReply(c, shared.cone);
    propagateExpireAt(c, key, when);
    signalModifiedKey(c, c->db, key);
    notifyKeyspaceEvent(NOTIFY_GENERIC, "expire", key, c->db->id);
    server.dirty++;
}

void expireCommand(client *c) { expireGenericCommand(c, commandTimeMs(), 1); }
void expireatCommand(client *c) { expireGenericCommand(c, 0, 1); }
void pexpireCommand(client *c) { expireGenericCommand(c, commandTimeMs(), 0); }
void pexpireatCommand(client *c) { expireGenericCommand(c, 0, 0); }

/* TTL/PTTL (relative) and EXPIRETIME/PEXPIRETIME (absolute): -2 no key,
 * -1 no TTL. */
static void ttlGenericCommand(client *c, int output_ms, int output_abs) {
    if (lookupKeyReadWithFlags(c->db, c->argv[1], LOOKUP_NOTOUCH) == NULL) {
        addReplyLongLong(c, -2);
        return;
    }
    long long expire = getExpire(c->db, c->argv[1]);
    if (expire == -1) {
        addReplyLongLong(c, -1);
        return;
    }
    long long ttl = output_abs ? expire : expire - commandTimeMs();
    if (ttl < 0) ttl = 0;
    addReplyLongLong(c, output_ms ? ttl : (ttl + 500) / 1000);
}

void ttlCommand(client *c) { ttlGenericCommand(c, 0, 0); }
void pttlCommand(client *c) { ttlGenericCommand(c, 1, 0); }
void expiretimeCommand(client *c) { ttlGenericCommand(c, 0, 1); }
void pexpiretimeCommand(client *c) { ttlGenericCommand(c, 1, 1); }

void persistCommand(client *c) {
    if (lookupKeyWrite(c->db, c->argv[1]) && removeExpire(c->db, c->argv[1])) {
        signalModifiedKey(c, c->db, c->argv[1]);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "persist", c->argv[1], c->db->id);
        addReply(c, shared.cone);
        server.dirty++;
    } else {
        addReply(c, shared.czero);
    }
}
