/* evict.c -- keeping used memory under `maxmemory`: the eight eviction
 * policies, approximated LRU and LFU, and the default cap of 32-bit builds.
 *
 * Approximation, as in Redis: instead of an exact LRU list (two pointers per
 * key) each object keeps a 24-bit clock. Before a write that needs memory,
 * performEvictions() samples `maxmemory-samples` keys per database into a
 * small pool of the best candidates seen so far (sorted by idle time, by
 * inverse frequency, or by time to expire) and evicts the best one, repeating
 * until used memory is under the limit. The pool persists across calls, so
 * successive evictions improve on each other.
 *
 * LFU data lives in the same 24 bits: the high 16 are the last decrement
 * time in minutes, the low 8 a logarithmic access counter (Morris counter):
 * an access increments it with probability 1/((counter-5)*lfu-log-factor+1),
 * and it decays by one per lfu-decay-time minutes of inactivity.
 *
 * 32-bit builds: a process cannot address more than about 3 GB, and a
 * Raspberry Pi may have 512 MB of RAM. With no maxmemory configured, such a
 * build caps itself at the smaller of 3 GB, the address-space rlimit and
 * three quarters of physical RAM (keeping the configured policy, noeviction
 * by default), and says so at start.
 */
#include "server.h"
#include "lazyfree.h"

#include <math.h>
#include <sys/resource.h>

#define EVPOOL_SIZE 16
#define LFU_INIT_VAL 5

typedef struct evictionCandidate {
    unsigned long long score; /* higher = better to evict */
    sds key;                  /* owned copy, NULL if the slot is empty */
    int dbid;
} evictionCandidate;

static evictionCandidate pool[EVPOOL_SIZE];

/* ---- LFU counters --------------------------------------------------------------------- */

static unsigned long lfuTimeInMinutes(void) { return (unsigned long)(server.unixtime / 60) & 65535; }

static unsigned long lfuElapsedMinutes(unsigned long ldt) {
    unsigned long now = lfuTimeInMinutes();
    return now >= ldt ? now - ldt : 65535 - ldt + now;
}

static uint8_t lfuLogIncr(uint8_t counter) {
    if (counter == 255) return 255;
    double r = (double)random() / RAND_MAX;
    double base = counter > LFU_INIT_VAL ? counter - LFU_INIT_VAL : 0;
    double p = 1.0 / (base * server.lfu_log_factor + 1);
    return r < p ? counter + 1 : counter;
}

/* The counter after applying the decay for the time since its last update. */
unsigned long lfuDecrAndReturn(robj *o) {
    unsigned long ldt = o->lru >> 8, counter = o->lru & 255;
    unsigned long periods = server.lfu_decay_time ? lfuElapsedMinutes(ldt) / (unsigned long)server.lfu_decay_time : 0;
    return periods > counter ? 0 : counter - periods;
}

/* Called on every access of a value when an LFU policy is active. */
void updateLFU(robj *val) {
    uint8_t counter = (uint8_t)lfuDecrAndReturn(val);
    counter = lfuLogIncr(counter);
    val->lru = (unsigned)((lfuTimeInMinutes() << 8) | counter);
}

unsigned int lfuInitialClock(void) { return (unsigned)((lfuTimeInMinutes() << 8) | LFU_INIT_VAL); }

/* ---- scoring ---------------------------------------------------------------------------- */

static unsigned long long candidateScore(kvobj *o) {
    int policy = server.maxmemory_policy;
    if (policy == MAXMEMORY_VOLATILE_TTL)
        return kvobjHasExpire(o) ? ULLONG_MAX - (unsigned long long)kvobjGetExpire(o) : 0;
    if (policy & MAXMEMORY_FLAG_LFU) return 255 - lfuDecrAndReturn(o);
    return estimateObjectIdleTime(o);
}

/* Inserts (key, score) in the pool, kept sorted by ascending score; the
 * worst candidate falls off when the pool is full. */
static void poolInsert(sds key, int dbid, unsigned long long score) {
    int k = 0;
    while (k < EVPOOL_SIZE && pool[k].key && pool[k].score < score) k++;
    if (k == 0 && pool[EVPOOL_SIZE - 1].key) return; /* worse than everything in a full pool */
    if (pool[EVPOOL_SIZE - 1].key == NULL) {
        memmove(pool + k + 1, pool + k, sizeof(pool[0]) * (EVPOOL_SIZE - k - 1));
    } else {
        k--;
        sdsfree(pool[0].key);
        memmove(pool, pool + 1, sizeof(pool[0]) * (size_t)k);
    }
    pool[k].key = sdsdup(key);
    pool[k].score = score;
    pool[k].dbid = dbid;
}

static int poolContains(sds key, int dbid) {
    for (int k = 0; k < EVPOOL_SIZE && pool[k].key; k++)
        if (pool[k].dbid == dbid && sdscmp(pool[k].key, key) == 0) return 1;
    return 0;
}

static void samplePool(redisDb *db) {
    int allkeys = server.maxmemory_policy & MAXMEMORY_FLAG_ALLKEYS;
    int count = server.maxmemory_samples > 64 ? 64 : server.maxmemory_samples;
    kvobj *samples[64];
    unsigned int n;
    if (allkeys) {
        n = kvtableGetSomeKeys(db->keys, samples, (unsigned)count);
    } else {
        dictEntry *des[64]; /* expires maps each key to its kvobj */
        n = dictGetSomeKeys(db->expires, des, (unsigned)count);
        for (unsigned int j = 0; j < n; j++) samples[j] = dictGetVal(des[j]);
    }
    for (unsigned int j = 0; j < n; j++) {
        sds key = kvobjGetKey(samples[j]);
        if (poolContains(key, db->id)) continue;
        poolInsert(key, db->id, candidateScore(samples[j]));
    }
}

/* Takes the best candidate that still exists out of the pool. */
static sds poolPopBest(int *dbid) {
    for (int k = EVPOOL_SIZE - 1; k >= 0; k--) {
        if (pool[k].key == NULL) continue;
        sds key = pool[k].key;
        *dbid = pool[k].dbid;
        pool[k].key = NULL;
        redisDb *db = &server.db[*dbid];
        int allkeys = server.maxmemory_policy & MAXMEMORY_FLAG_ALLKEYS;
        kvobj *o = kvtableFind(db->keys, key, sdslen(key));
        if (o && (allkeys || kvobjHasExpire(o))) return key;
        sdsfree(key);
    }
    return NULL;
}

static sds selectPoolKey(int *dbid) {
    for (int attempt = 0; attempt < 4; attempt++) {
        for (int j = 0; j < server.dbnum; j++) {
            redisDb *db = &server.db[j];
            int allkeys = server.maxmemory_policy & MAXMEMORY_FLAG_ALLKEYS;
            if (allkeys ? kvtableSize(db->keys) : dictSize(db->expires)) samplePool(db);
        }
        sds key = poolPopBest(dbid);
        if (key) return key;
    }
    return NULL;
}

static sds selectRandomKey(int *dbid) {
    static int next_db = 0;
    int allkeys = server.maxmemory_policy & MAXMEMORY_FLAG_ALLKEYS;
    for (int i = 0; i < server.dbnum; i++) {
        int j = (next_db++) % server.dbnum;
        redisDb *db = &server.db[j];
        kvobj *o = NULL;
        if (allkeys) {
            o = kvtableGetRandomKey(db->keys);
        } else {
            dictEntry *de = dictGetRandomKey(db->expires);
            if (de) o = dictGetVal(de);
        }
        if (o) {
            *dbid = j;
            return sdsdup(kvobjGetKey(o));
        }
    }
    return NULL;
}

/* ---- evicting ---------------------------------------------------------------------------- */

/* Used memory as maxmemory sees it: the AOF buffer and the replicas'
 * output are left out (INFO's mem_not_counted_for_evict), and so is what
 * the lazyfree thread has yet to free. */
size_t memoryNotCountedForEviction(void) { return aofBufferMemory() + replicationReplicasOutputMemory(); }

static size_t memoryCountedForEviction(void) {
    size_t used = zmalloc_used_memory(), excluded = memoryNotCountedForEviction() + lazyfreePendingBytes();
    return used > excluded ? used - excluded : 0;
}

/* How full memory is against maxmemory (0 without one): a module's
 * GetContextFlags says OOM above 1 and OOM_WARNING above 0.75, as Redis. */
double evictMemoryLevel(void) {
    if (!server.maxmemory) return 0;
    return (double)memoryCountedForEviction() / (double)server.maxmemory;
}

/* Deletes one key; returns the memory its deletion gave back. What the
 * notifications then allocate (invalidation messages for tracking clients,
 * keyspace events, the propagated DEL) is not subtracted: counting it would
 * make every eviction ask for more (a feedback loop that drained the
 * dataset with many tracking clients). */
static long long evictKey(int dbid, sds key) {
    redisDb *db = &server.db[dbid];
    robj *keyobj = createStringObject(key, sdslen(key));
    long long before = (long long)zmalloc_used_memory();
    LATENCY_START(del_latency);
    size_t freed_later = 0; /* lazyfree-lazy-eviction: what the thread will give back */
    if (server.lazyfree_lazy_eviction) {
        robj *o = dbDetach(db, keyobj);
        if (o) freed_later = lazyfreeValue(o, db->id);
    } else {
        dbSyncDelete(db, keyobj);
    }
    LATENCY_END("eviction-del", del_latency);
    long long freed = before - (long long)zmalloc_used_memory() + (long long)freed_later;
    server.stat_evictedkeys++;
    signalModifiedKey(NULL, db, keyobj);
    notifyKeyspaceEvent(NOTIFY_EVICTED, "evicted", keyobj, dbid);
    robj *argv[2] = {server.lazyfree_lazy_eviction ? shared.unlink_cmd : shared.del_cmd, keyobj};
    alsoPropagate(dbid, argv, 2);
    decrRefCount(keyobj);
    return freed;
}

/* With lazyfree-lazy-eviction what the background thread will free counts
 * as MEMORY USAGE estimates it (evictKey), so about as many keys go as
 * without it; used memory itself is also checked every 16 keys (as Redis
 * does), and when nothing is left to evict the pending frees get up to a
 * millisecond to bring it under the limit. */
#define LAZY_EVICTION_CHECK_EVERY 16
#define LAZY_EVICTION_WAIT_US 1000

static int underLimitNow(void) { return memoryCountedForEviction() <= server.maxmemory; }

static int waitForLazyFrees(void) {
    long long start = ustime();
    while (lazyfreePendingObjects() && ustime() - start < LAZY_EVICTION_WAIT_US) {
        if (underLimitNow()) return C_OK;
        usleep(100);
    }
    return underLimitNow() ? C_OK : C_ERR;
}

/* Evicts until the keys deleted have given back what used memory was over
 * maxmemory when it started. C_ERR when that is impossible (noeviction, or
 * nothing left that the policy may evict). */
static int evictUntilUnderLimit(void) {
    if (server.loading) return C_OK; /* as in Redis: never the keys of a load in progress */
    size_t used = memoryCountedForEviction();
    if (!server.maxmemory || used <= server.maxmemory) return C_OK;
    if (clientsArePaused()) return C_OK; /* as in Redis: no eviction while paused, commands go on */
    if (server.maxmemory_policy == MAXMEMORY_NO_EVICTION) return C_ERR;
    int random_policy = server.maxmemory_policy == MAXMEMORY_ALLKEYS_RANDOM ||
                        server.maxmemory_policy == MAXMEMORY_VOLATILE_RANDOM;
    long long limit = dbTotalServerKeyCount();
    long long to_free = (long long)(used - server.maxmemory), freed = 0;
    LATENCY_START(cycle_latency);
    long long evicted = 0;
    while (freed < to_free && limit-- > 0) {
        int dbid = 0;
        sds key = random_policy ? selectRandomKey(&dbid) : selectPoolKey(&dbid);
        if (key == NULL) return server.lazyfree_lazy_eviction ? waitForLazyFrees() : C_ERR;
        freed += evictKey(dbid, key);
        sdsfree(key);
        if (server.lazyfree_lazy_eviction && ++evicted % LAZY_EVICTION_CHECK_EVERY == 0 && underLimitNow()) break;
    }
    LATENCY_END("eviction-cycle", cycle_latency);
    if (freed >= to_free || (server.lazyfree_lazy_eviction && underLimitNow())) return C_OK;
    return server.lazyfree_lazy_eviction ? waitForLazyFrees() : C_ERR;
}

/* One execution unit (propagate.c): the DELs, and what modules propagate
 * from their "evicted" handlers, go out bare once the cycle ends, as in
 * Redis 7.0. */
int performEvictions(void) {
    propagateUnitBegin(0);
    int result = evictUntilUnderLimit();
    propagateUnitEnd();
    return result;
}

/* CONFIG SET maxmemory evicts from a timer once the command (and the
 * transaction it may be in) has finished, as Redis 7.0 does: the rest of
 * a MULTI still sees its keys, and the DELs are propagated on their own,
 * not inside the command's effects. */
static long long evict_timer_id = -1;

static int evictTimerProc(struct aeEventLoop *el, long long id, void *data) {
    (void)el; (void)id; (void)data;
    evict_timer_id = -1;
    performEvictions();
    return AE_NOMORE;
}

void evictSoon(void) {
    if (evict_timer_id != -1) return;
    evict_timer_id = aeCreateTimeEvent(server.el, 0, evictTimerProc, NULL, NULL);
}

/* ---- 32-bit default cap ------------------------------------------------------------------ */

/* The most this process can usefully address: 3 GB on 32-bit builds (the
 * usual user address space), lowered by RLIMIT_AS; unlimited on 64-bit. */
unsigned long long evictAddressSpaceLimit(void) {
    unsigned long long limit = SIZEOF_POINTER_BITS == 32 ? 3ULL * 1024 * 1024 * 1024 : ULLONG_MAX;
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && (unsigned long long)rl.rlim_cur < limit)
        limit = (unsigned long long)rl.rlim_cur;
    return limit;
}

static unsigned long long physicalMemory(void) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (unsigned long long)pages * (unsigned long long)page : 0;
}

/* Called once the configuration is loaded. */
void evictApplyDefaultCap(void) {
    if (SIZEOF_POINTER_BITS != 32 || server.maxmemory != 0) return;
    unsigned long long cap = evictAddressSpaceLimit();
    unsigned long long ram = physicalMemory();
    if (ram && ram / 4 * 3 < cap) cap = ram / 4 * 3;
    server.maxmemory = cap;
    /* The policy stays as configured (noeviction unless the user chose
     * another): a policy picked explicitly should apply to this limit too. */
    serverLog(LL_WARNING,
              "32 bit instance detected but no memory limit set. Setting maxmemory to %llu bytes "
              "(the smaller of the address space limit %llu and 3/4 of physical RAM %llu); maxmemory-policy %s.",
              cap, evictAddressSpaceLimit(), ram,
              server.maxmemory_policy == MAXMEMORY_NO_EVICTION ? "noeviction (the default)" : "as configured");
}
