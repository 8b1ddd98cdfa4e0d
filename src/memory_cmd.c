/* memory_cmd.c -- MEMORY USAGE, STATS, DOCTOR, MALLOC-STATS, PURGE and HELP.
 *
 * Arity, errors and reply shapes are Redis 7.0's; the numbers are this
 * server's own accounting, not an imitation of Redis's layout:
 *
 *   USAGE   a key's keyspace entry (kvobj.h: ONE block holding the object
 *           header, the chain pointer, the optional expire slot, the key and
 *           an embedded string value), its entry in the expires dict when it
 *           has a TTL, and the value's payload outside the block, all as
 *           zmalloc_size() reports them, so the figure follows the allocator
 *           (jemalloc size classes, or libc's usable sizes).
 *   STATS   Redis's field names in Redis's order; a field for something this
 *           server does not have (cluster links, the AOF buffer) is 0;
 *           lua.caches and functions.caches are the script cache and the
 *           function libraries outside the Lua heaps (INFO's
 *           used_memory_scripts_eval and used_memory_functions), part of
 *           the overhead as in Redis; replication.backlog is the backlog's allocation (replication.c),
 *           part of the overhead as in Redis. The per-db overhead is, for "main", the
 *           keyspace's bucket arrays plus the fixed head of every kvobj
 *           (object header and chain pointer), and for "expires" the
 *           expires dict's buckets and entries plus the expire slots. The
 *           table structs themselves are part of startup.allocated.
 *   INFO    memory's overhead, dataset and allocator fields are the same
 *           figures (memoryGetOverview), computed by the same code.
 *   DOCTOR  the empty-instance and no-issue texts are Redis's, the issue
 *           checks are our own reading of the STATS figures.
 *
 * Design decisions:
 * - How a value is measured is each type's, next to the type's
 *   free/dup/digest/scan functions (one small xxxMemoryUsage in each t_*.c,
 *   called by objectPayloadMemoryUsage's switch), rather than decoded here. A
 *   sorted set's zset struct is private to t_zset.c and a hash's dict
 *   layout is t_hash.c's business; a central file would have to copy those
 *   definitions and would break silently when an encoding changes. With the
 *   registration, this file knows only the keyspace entry (kvobj.h) and the
 *   generic entry points of server.h, and a new type adds its own function.
 * - SAMPLES as in Redis: aggregates measure `count` elements (default 5, 0
 *   = all) and scale by the element count (sampledTotal in object.c);
 *   blobs (listpack, intset, strings) are always measured exactly.
 * - startup.allocated is noted by memoryInit(), which runs after the other
 *   modules' init and before the data is loaded.
 * - The allocator is reached through zmalloc (figures, stats text, purge);
 *   without jemalloc MALLOC-STATS says so and PURGE does nothing, and the
 *   allocator.* figures fall back to used memory and RSS (as Redis does),
 *   so the ratios stay meaningful.
 */
#include "server.h"
#include "client_eviction.h"

#define MEMORY_USAGE_DEFAULT_SAMPLES 5
#define MEMORY_DOCTOR_MIN_BYTES (5 * 1024 * 1024) /* below this the doctor has nothing to say */
#define MEMORY_DOCTOR_MIN_WASTE (10 * 1024 * 1024) /* a ratio matters only with this much at stake */
#define MEMORY_DOCTOR_CLIENT_BYTES (200 * 1024)   /* average per normal client */

static size_t startup_allocated;

void memoryInit(void) { startup_allocated = zmalloc_used_memory(); }

/* ---- MEMORY USAGE ------------------------------------------------------------------------------ */

/* The expires dict holds one entry per key with a TTL. */
static size_t expireEntryBytes(redisDb *db, kvobj *o) {
    if (!kvobjHasExpire(o)) return 0;
    dictEntry *de = dictFind(db->expires, kvobjGetKey(o));
    return de ? zmalloc_size(de) : 0;
}

static size_t keyMemoryUsage(redisDb *db, kvobj *o, size_t samples) {
    return kvobjAllocSize(o) + expireEntryBytes(db, o) + objectPayloadMemoryUsage(o, samples, db->id);
}

/* MEMORY USAGE key [SAMPLES count]: the options are checked before the key
 * is looked up, so a bad option is an error even for a missing key. */
void memoryUsageCommand(client *c) {
    long long samples = MEMORY_USAGE_DEFAULT_SAMPLES;
    for (int j = 3; j < c->argc; j++) {
        if (strcasecmp(c->argv[j]->ptr, "samples") || j + 1 >= c->argc) {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
        if (getLongLongFromObjectOrReply(c, c->argv[++j], &samples, NULL) != C_OK) return;
        if (samples < 0) {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    /* like Redis: no stats, no keymiss event, no expiry of a stale key */
    robj *o = lookupKeyReadWithFlags(c->db, c->argv[2], LOOKUP_NOTOUCH | LOOKUP_NOSTATS | LOOKUP_NONOTIFY |
                                                        LOOKUP_NOEXPIRE);
    if (o == NULL) {
        addReplyNull(c);
        return;
    }
    size_t n = samples == 0 || (unsigned long long)samples > SIZE_MAX ? SIZE_MAX : (size_t)samples;
    addReplyLongLong(c, (long long)keyMemoryUsage(c->db, o, n));
}

/* ---- the figures behind STATS and DOCTOR ---------------------------------------------------------- */

typedef struct dbOverhead {
    int id;
    size_t main, expires;
} dbOverhead;

typedef struct memoryReport {
    size_t peak, total, startup, clients_replicas, clients_normal, replica_output;
    size_t lua_caches, functions_caches;
    size_t normal_clients;
    dbOverhead *dbs; /* the non-empty databases only */
    int dbcount;
    size_t overhead, keys, bytes_per_key, dataset;
    double dataset_perc, peak_perc;
    size_t allocated, active, resident, rss;
} memoryReport;

static size_t dictBucketBytes(dict *d) {
    size_t bytes = 0;
    for (int j = 0; j < 2; j++)
        if (d->ht_table[j]) bytes += zmalloc_size(d->ht_table[j]);
    return bytes;
}

static void dbOverheads(memoryReport *r) {
    r->dbs = zmalloc(sizeof(dbOverhead) * (size_t)server.dbnum);
    r->dbcount = 0;
    r->keys = 0;
    for (int j = 0; j < server.dbnum; j++) {
        redisDb *db = &server.db[j];
        size_t keys = kvtableSize(db->keys), expires = dictSize(db->expires);
        if (keys == 0) continue;
        dbOverhead *o = &r->dbs[r->dbcount++];
        o->id = j;
        /* the bucket arrays (the table structs are in startup.allocated) and the entries' heads */
        o->main = kvtableBucketArrayBytes(db->keys) + keys * sizeof(kvobjHead);
        o->expires = dictBucketBytes(db->expires) + expires * (sizeof(dictEntry) + sizeof(int64_t));
        r->keys += keys;
    }
}

/* What a client holds: its struct, query buffer, reply buffer and list,
 * and the current command's arguments. */
static size_t clientMemoryUsage(client *c) {
    size_t bytes = zmalloc_size(c) + c->buf_usable_size + getClientOutputBufferMemoryUsage(c) + c->argv_len_sum;
    if (c->querybuf) bytes += sdsMemoryUsage(c->querybuf);
    if (c->argv) bytes += zmalloc_size(c->argv);
    return bytes + clientStateMemory(c);
}

static void clientOverheads(memoryReport *r) {
    listIter li;
    listNode *ln;
    r->clients_replicas = r->clients_normal = r->replica_output = 0;
    r->normal_clients = 0;
    listRewind(server.clients, &li);
    while ((ln = listNext(&li)) != NULL) {
        client *c = listNodeValue(ln);
        if (getClientType(c) == CLIENT_TYPE_REPLICA) {
            r->clients_replicas += clientMemoryUsage(c);
            r->replica_output += getClientOutputBufferMemoryUsage(c);
        } else {
            r->clients_normal += clientMemoryUsage(c);
            r->normal_clients++;
        }
    }
}

/* allocated <= active <= resident as the allocator sees them; when it can't
 * tell, used memory and RSS stand in, as Redis does. */
static void allocatorFigures(memoryReport *r) {
    zmalloc_get_allocator_info(&r->allocated, &r->active, &r->resident);
    r->rss = zmalloc_get_rss();
    if (r->resident == 0) r->resident = r->rss;
    if (r->active == 0) r->active = r->resident;
    if (r->allocated == 0) r->allocated = r->total;
}

static double ratio(size_t a, size_t b) { return b ? (double)a / (double)b : 0.0; }
static long long difference(size_t a, size_t b) { return (long long)a - (long long)b; }

static void memoryReportCompute(memoryReport *r) {
    r->total = zmalloc_used_memory();
    if (r->total > server.stat_peak_memory) server.stat_peak_memory = r->total;
    r->peak = server.stat_peak_memory;
    r->startup = startup_allocated;
    clientOverheads(r);
    dbOverheads(r);
    r->lua_caches = evalMemoryScripts();
    r->functions_caches = functionsMemoryOverhead();
    r->overhead = r->startup + replicationBacklogMemory() + r->clients_replicas + r->clients_normal +
                  r->lua_caches + r->functions_caches;
    for (int j = 0; j < r->dbcount; j++) r->overhead += r->dbs[j].main + r->dbs[j].expires;
    size_t net = r->total > r->startup ? r->total - r->startup : 1;
    r->bytes_per_key = r->keys ? net / r->keys : 0;
    r->dataset = r->total > r->overhead ? r->total - r->overhead : 0;
    r->dataset_perc = (double)r->dataset * 100 / (double)net;
    r->peak_perc = ratio(r->total, r->peak) * 100;
    allocatorFigures(r);
}

static void memoryReportRelease(memoryReport *r) { zfree(r->dbs); }

/* For INFO memory: the same computation as MEMORY STATS. */
void memoryGetOverview(memoryOverview *m) {
    memoryReport r;
    memoryReportCompute(&r);
    *m = (memoryOverview){.used = r.total, .peak = r.peak, .startup = r.startup, .overhead = r.overhead,
                          .dataset = r.dataset, .dataset_perc = r.dataset_perc, .allocated = r.allocated,
                          .active = r.active, .resident = r.resident, .rss = r.rss,
                          .clients_replicas = r.clients_replicas, .replica_output = r.replica_output};
    memoryReportRelease(&r);
}

/* ---- MEMORY STATS ----------------------------------------------------------------------------- */

static void addReplyField(client *c, const char *name, long long value) {
    addReplyBulkCString(c, name);
    addReplyLongLong(c, value);
}

static void addReplyRatioField(client *c, const char *name, double value) {
    addReplyBulkCString(c, name);
    addReplyDouble(c, value);
}

static void addReplyDbOverheads(client *c, const memoryReport *r) {
    for (int j = 0; j < r->dbcount; j++) {
        char name[32];
        snprintf(name, sizeof name, "db.%d", r->dbs[j].id);
        addReplyBulkCString(c, name);
        addReplyMapLen(c, 3);
        addReplyField(c, "overhead.hashtable.main", (long long)r->dbs[j].main);
        addReplyField(c, "overhead.hashtable.expires", (long long)r->dbs[j].expires);
        addReplyField(c, "overhead.hashtable.slot-to-keys", 0);
    }
}

static void addReplyAllocatorFields(client *c, const memoryReport *r) {
    addReplyField(c, "allocator.allocated", (long long)r->allocated);
    addReplyField(c, "allocator.active", (long long)r->active);
    addReplyField(c, "allocator.resident", (long long)r->resident);
    addReplyRatioField(c, "allocator-fragmentation.ratio", ratio(r->active, r->allocated));
    addReplyField(c, "allocator-fragmentation.bytes", difference(r->active, r->allocated));
    addReplyRatioField(c, "allocator-rss.ratio", ratio(r->resident, r->active));
    addReplyField(c, "allocator-rss.bytes", difference(r->resident, r->active));
    addReplyRatioField(c, "rss-overhead.ratio", ratio(r->rss, r->resident));
    addReplyField(c, "rss-overhead.bytes", difference(r->rss, r->resident));
    addReplyRatioField(c, "fragmentation", ratio(r->rss, r->total));
    addReplyField(c, "fragmentation.bytes", difference(r->rss, r->total));
}

void memoryStatsCommand(client *c) {
    memoryReport r;
    memoryReportCompute(&r);
    addReplyMapLen(c, 27 + r.dbcount);
    addReplyField(c, "peak.allocated", (long long)r.peak);
    addReplyField(c, "total.allocated", (long long)r.total);
    addReplyField(c, "startup.allocated", (long long)r.startup);
    addReplyField(c, "replication.backlog", (long long)replicationBacklogMemory());
    addReplyField(c, "clients.slaves", (long long)r.clients_replicas);
    addReplyField(c, "clients.normal", (long long)r.clients_normal);
    addReplyField(c, "cluster.links", 0);
    addReplyField(c, "aof.buffer", 0);
    addReplyField(c, "lua.caches", (long long)r.lua_caches);
    addReplyField(c, "functions.caches", (long long)r.functions_caches);
    addReplyDbOverheads(c, &r);
    addReplyField(c, "overhead.total", (long long)r.overhead);
    addReplyField(c, "keys.count", (long long)r.keys);
    addReplyField(c, "keys.bytes-per-key", (long long)r.bytes_per_key);
    addReplyField(c, "dataset.bytes", (long long)r.dataset);
    addReplyRatioField(c, "dataset.percentage", r.dataset_perc);
    addReplyRatioField(c, "peak.percentage", r.peak_perc);
    addReplyAllocatorFields(c, &r);
    memoryReportRelease(&r);
}

/* ---- MEMORY DOCTOR ---------------------------------------------------------------------------- */

static int wasteful(size_t big, size_t small, double limit) {
    return ratio(big, small) > limit && big > small && big - small > MEMORY_DOCTOR_MIN_WASTE;
}

/* One line per problem found, each with what it means and what to do. */
static sds doctorIssues(const memoryReport *r) {
    sds s = sdsempty();
    if (ratio(r->peak, r->total) > 1.5)
        s = sdscatprintf(s, " * Peak memory: the peak (%zu bytes) is more than 1.5 times the memory used now (%zu "
                            "bytes). Memory freed since then may still be held by the process, which makes the "
                            "RSS and fragmentation figures look worse than the current data deserves.\n\n",
                         r->peak, r->total);
    if (wasteful(r->rss, r->total, 1.4))
        s = sdscatprintf(s, " * High total RSS: the process's resident size is %.2f times the memory it has "
                            "allocated. A large past peak explains this (see above); otherwise the workload "
                            "fragments the heap. The allocator in use is \"%s\".\n\n",
                         ratio(r->rss, r->total), zmalloc_allocator_name());
    if (wasteful(r->active, r->allocated, 1.1))
        s = sdscatprintf(s, " * High allocator fragmentation: the allocator's active pages hold %.2f times the "
                            "bytes allocated in them. MEMORY PURGE may return some of it.\n\n",
                         ratio(r->active, r->allocated));
    if (wasteful(r->resident, r->active, 1.1))
        s = sdscatprintf(s, " * High allocator RSS overhead: the allocator keeps %.2f times its active pages "
                            "resident (pages freed but not yet returned). MEMORY PURGE returns them.\n\n",
                         ratio(r->resident, r->active));
    if (wasteful(r->rss, r->resident, 1.1))
        s = sdscatprintf(s, " * High process RSS overhead: the process holds %.2f times what the allocator has "
                            "resident, in memory the allocator does not manage.\n\n",
                         ratio(r->rss, r->resident));
    if (r->normal_clients && r->clients_normal / r->normal_clients > MEMORY_DOCTOR_CLIENT_BYTES)
        s = sdscatprintf(s, " * Big client buffers: the %zu clients use %zu bytes on average for their query "
                            "and output buffers. Look for clients reading replies slowly or sending huge "
                            "commands (CLIENT LIST shows qbuf and omem per client).\n\n",
                         r->normal_clients, r->clients_normal / r->normal_clients);
    return s;
}

static sds doctorReport(const memoryReport *r) {
    if (r->total < MEMORY_DOCTOR_MIN_BYTES)
        return sdsnew("Hi Sam, this instance is empty or is using very little memory, my issues detector can't "
                      "be used in these conditions. Please, leave for your mission on Earth and fill it with some "
                      "data. The new Sam and I will be back to our programming as soon as I finished rebooting.\n");
    sds issues = doctorIssues(r);
    if (sdslen(issues) == 0) {
        sdsfree(issues);
        return sdsnew("Hi Sam, I can't find any memory issue in your instance. I can only account for what "
                      "occurs on this base.\n");
    }
    sds s = sdsnew("Sam, I detected a few issues in this Redis instance memory implants:\n\n");
    s = sdscatsds(s, issues);
    sdsfree(issues);
    return sdscat(s, "I'm here to keep you safe, Sam. I want to help you.\n");
}

void memoryDoctorCommand(client *c) {
    memoryReport r;
    memoryReportCompute(&r);
    sds report = doctorReport(&r);
    memoryReportRelease(&r);
    addReplyVerbatim(c, report, sdslen(report), "txt");
    sdsfree(report);
}

/* ---- MEMORY MALLOC-STATS, PURGE, HELP ------------------------------------------------------------ */

static void appendStatsText(void *ud, const char *text) {
    sds *s = ud;
    *s = sdscat(*s, text);
}

void memoryMallocStatsCommand(client *c) {
    sds text = sdsempty();
    if (zmalloc_stats_print(appendStatsText, &text) == 0)
        addReplyVerbatim(c, text, sdslen(text), "txt");
    else
        addReplyBulkCString(c, "Stats not supported for the current allocator");
    sdsfree(text);
}

/* Without jemalloc there is nothing to purge: OK, as Redis answers. */
void memoryPurgeCommand(client *c) {
    if (zmalloc_purge() != 0 && strncmp(zmalloc_allocator_name(), "jemalloc", 8) == 0) {
        addReplyError(c, "Error purging dirty pages");
        return;
    }
    addReply(c, shared.ok);
}

void memoryHelpCommand(client *c) {
    static const char *help[] = {
        "DOCTOR",
        "    Return memory problems reports.",
        "MALLOC-STATS",
        "    Return internal statistics report from the memory allocator.",
        "PURGE",
        "    Attempt to purge dirty pages for reclamation by the allocator.",
        "STATS",
        "    Return information about the memory usage of the server.",
        "USAGE <key> [SAMPLES <count>]",
        "    Return memory in bytes used by <key> and its value. Nested values are",
        "    sampled up to <count> times (default: 5, 0 means sample all).",
        NULL};
    addReplyHelp(c, help);
}
