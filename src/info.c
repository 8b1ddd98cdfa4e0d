/* info.c -- INFO: the server's state as "# Section\r\nfield:value\r\n" text.
 *
 * Sections, in the order they are always emitted: server, clients, memory,
 * persistence, stats, replication, cpu, modules, commandstats, errorstats,
 * latencystats (empty while latency-tracking is off), cluster, keyspace. INFO
 * with no argument (or "default") gives all but commandstats and
 * latencystats; "all" and "everything" give every section; any other
 * argument names a section (case-insensitive, several may be given, unknown
 * ones are ignored). Sections are separated by one blank line. RESP3
 * clients get a verbatim string ("txt"), RESP2 clients a bulk string.
 * Sections that modules add (module_info.c) come after all of these, for
 * "everything", "modules", or a name no built-in section has (a module's
 * name, or "<module>_<section>"); see infoRequest.
 *
 * Decisions:
 * - Field names and formats are Redis's, so redis-cli, client libraries and
 *   monitoring tools that parse INFO work unchanged. Fields for subsystems
 *   that do not exist yet report their idle value (async_loading:0,
 *   module_fork_in_progress:0 ...); replication's come from replication.c.
 * - redis_version is the Redis release we match (version.h); the project's
 *   own name and version follow it as server_name and <name>_version, the
 *   fields Valkey uses, so tools that know them can tell us apart.
 * - Each section is one small function appending to an sds; a table maps
 *   section names to them, so a new subsystem adds one row.
 * - instantaneous_ops_per_sec and the kbps figures come from a ring of 16
 *   samples taken every 100 ms by our own timer (infoInit() registers it),
 *   averaged like Redis does, so the cron needs no knowledge of INFO.
 * - genRedisInfoString() is also what the crash report prints: it reads
 *   state only and never replies.
 */
#include "server.h"
#include "lazyfree.h"
#include "tracking.h"
#include "snapshot.h"
#include "client_eviction.h"
#include "cluster.h"

#include <sys/resource.h>
#include <sys/time.h>
#include <sys/utsname.h>

#if defined(__linux__) && !defined(RUSAGE_THREAD)
#define RUSAGE_THREAD 1 /* Linux's value; glibc names it only under _GNU_SOURCE */
#endif

/* ---- instantaneous metrics ------------------------------------------------------------- */

#define STATS_METRIC_SAMPLES 16
#define STATS_METRIC_PERIOD_MS 100

enum { METRIC_COMMANDS, METRIC_NET_INPUT, METRIC_NET_OUTPUT, METRIC_COUNT };

static struct {
    long long last_sample_ms;
    long long last_sample_count;
    long long samples[STATS_METRIC_SAMPLES];
    int idx;
} metrics[METRIC_COUNT];

static void trackMetric(int metric, long long current, long long now_ms) {
    long long elapsed = now_ms - metrics[metric].last_sample_ms;
    long long delta = current - metrics[metric].last_sample_count;
    long long per_sec = elapsed > 0 ? delta * 1000 / elapsed : 0;
    metrics[metric].samples[metrics[metric].idx] = per_sec;
    metrics[metric].idx = (metrics[metric].idx + 1) % STATS_METRIC_SAMPLES;
    metrics[metric].last_sample_ms = now_ms;
    metrics[metric].last_sample_count = current;
}

static long long getMetric(int metric) {
    long long sum = 0;
    for (int j = 0; j < STATS_METRIC_SAMPLES; j++) sum += metrics[metric].samples[j];
    return sum / STATS_METRIC_SAMPLES;
}

static int metricsCron(struct aeEventLoop *el, long long id, void *data) {
    (void)el; (void)id; (void)data;
    long long now = mstime();
    trackMetric(METRIC_COMMANDS, server.stat_numcommands, now);
    trackMetric(METRIC_NET_INPUT, server.stat_net_input_bytes, now);
    trackMetric(METRIC_NET_OUTPUT, server.stat_net_output_bytes, now);
    return STATS_METRIC_PERIOD_MS;
}

void infoInit(void) {
    long long now = mstime();
    for (int j = 0; j < METRIC_COUNT; j++) metrics[j].last_sample_ms = now;
    if (aeCreateTimeEvent(server.el, STATS_METRIC_PERIOD_MS, metricsCron, NULL, NULL) == AE_ERR)
        serverPanic("Can't create the INFO metrics timer.");
}

/* ---- formatting helpers ------------------------------------------------------------------------ */

/* 1023 -> "1023B", 1536 -> "1.50K", as Redis prints memory sizes. */
static void bytesToHuman(char *buf, size_t len, unsigned long long n) {
    static const char units[] = "KMGTPE";
    if (n < 1024) {
        snprintf(buf, len, "%lluB", n);
        return;
    }
    double d = (double)n / 1024;
    int unit = 0;
    while (d >= 1024 && unit < 5) {
        d /= 1024;
        unit++;
    }
    snprintf(buf, len, "%.2f%c", d, units[unit]);
}

static sds catHumanField(sds info, const char *name, unsigned long long bytes) {
    char human[64];
    bytesToHuman(human, sizeof human, bytes);
    return sdscatprintf(info, "%s:%llu\r\n%s_human:%s\r\n", name, bytes, name, human);
}

static const char *maxmemoryPolicyName(int policy) {
    switch (policy) {
    case MAXMEMORY_VOLATILE_LRU: return "volatile-lru";
    case MAXMEMORY_VOLATILE_LFU: return "volatile-lfu";
    case MAXMEMORY_VOLATILE_TTL: return "volatile-ttl";
    case MAXMEMORY_VOLATILE_RANDOM: return "volatile-random";
    case MAXMEMORY_ALLKEYS_LRU: return "allkeys-lru";
    case MAXMEMORY_ALLKEYS_LFU: return "allkeys-lfu";
    case MAXMEMORY_ALLKEYS_RANDOM: return "allkeys-random";
    case MAXMEMORY_NO_EVICTION: return "noeviction";
    default: return "unknown";
    }
}

static unsigned long long totalSystemMemory(void) {
    long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page_size <= 0) return 0;
    return (unsigned long long)pages * (unsigned long long)page_size;
}

/* ---- the sections ---------------------------------------------------------------------------------- */

static sds infoServer(sds info) {
    struct utsname name;
    if (uname(&name) != 0) memset(&name, 0, sizeof name);
    long long uptime = (long long)(server.unixtime - server.stat_starttime);
    info = sdscatprintf(info,
                        "redis_version:%s\r\n"
                        "server_name:%s\r\n"
                        "%s_version:%s\r\n"
                        "redis_git_sha1:00000000\r\n"
                        "redis_git_dirty:0\r\n"
                        "redis_build_id:0\r\n"
                        "redis_mode:standalone\r\n"
                        "os:%s %s %s\r\n"
                        "arch_bits:%d\r\n"
                        "monotonic_clock:POSIX clock_gettime\r\n"
                        "multiplexing_api:%s\r\n"
                        "atomicvar_api:c11-builtin\r\n"
                        "gcc_version:%d.%d.%d\r\n"
                        "process_id:%ld\r\n"
                        "process_supervised:no\r\n"
                        "run_id:%s\r\n"
                        "tcp_port:%d\r\n"
                        "server_time_usec:%lld\r\n"
                        "uptime_in_seconds:%lld\r\n"
                        "uptime_in_days:%lld\r\n"
                        "hz:%d\r\n"
                        "configured_hz:%d\r\n"
                        "lru_clock:%u\r\n"
                        "executable:%s\r\n"
                        "config_file:%s\r\n"
                        "io_threads_active:0\r\n",
                        REDIS_VERSION, PROJECT_NAME, PROJECT_NAME, PROJECT_VERSION, name.sysname, name.release,
                        name.machine, SIZEOF_POINTER_BITS,
                        aeGetApiName(),
#ifdef __GNUC__
                        __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__,
#else
                        0, 0, 0,
#endif
                        (long)getpid(), server.runid, server.port, ustime(), uptime, uptime / 86400, server.hz,
                        server.config_hz, (unsigned)server.lruclock, server.executable ? server.executable : "",
                        server.configfile ? server.configfile : "");
    long long shutdown_left = shutdownRemainingMs();
    if (shutdown_left >= 0) info = sdscatprintf(info, "shutdown_in_milliseconds:%lld\r\n", shutdown_left);
    return info;
}

static void clientBufferPeaks(size_t *max_in, size_t *max_out, long *blocked) {
    listIter li;
    listNode *ln;
    *max_in = *max_out = 0;
    *blocked = 0;
    listRewind(server.clients, &li);
    while ((ln = listNext(&li)) != NULL) {
        client *c = listNodeValue(ln);
        size_t in = c->querybuf_peak > sdsAllocSize(c->querybuf) ? c->querybuf_peak : sdsAllocSize(c->querybuf);
        size_t out = getClientOutputBufferMemoryUsage(c);
        if (in > *max_in) *max_in = in;
        if (out > *max_out) *max_out = out;
        if (c->flags & CLIENT_BLOCKED) (*blocked)++;
    }
}

static sds infoClients(sds info) {
    size_t max_in, max_out;
    long blocked;
    clientBufferPeaks(&max_in, &max_out, &blocked);
    info = sdscatprintf(info,
                        "connected_clients:%lu\r\n"
                        "cluster_connections:0\r\n"
                        "maxclients:%u\r\n"
                        "client_recent_max_input_buffer:%zu\r\n"
                        "client_recent_max_output_buffer:%zu\r\n"
                        "blocked_clients:%ld\r\n"
                        "tracking_clients:%lu\r\n"
                        "clients_in_timeout_table:0\r\n",
                        /* replicas are not clients here, as in Redis (INFO replication lists them) */
                        (unsigned long)(listLength(server.clients) - replicationReplicaCount()), server.maxclients,
                        max_in, max_out, blocked,
                        server.tracking_clients);
    return shmCatInfo(info); /* our own: the shared-memory transport's shm_* fields (shm.c) */
}

static double ratioOf(size_t a, size_t b) { return b ? (double)a / (double)b : 0.0; }

/* Redis's allocator ratios: fragmentation inside the allocator's pages
 * (active / allocated), pages it keeps resident beyond those in use
 * (resident / active), and the process's RSS beyond the allocator's. */
static sds catAllocatorRatios(sds info, const memoryOverview *m) {
    return sdscatprintf(info,
                        "allocator_frag_ratio:%.2f\r\n"
                        "allocator_frag_bytes:%lld\r\n"
                        "allocator_rss_ratio:%.2f\r\n"
                        "allocator_rss_bytes:%lld\r\n"
                        "rss_overhead_ratio:%.2f\r\n"
                        "rss_overhead_bytes:%lld\r\n",
                        ratioOf(m->active, m->allocated), (long long)m->active - (long long)m->allocated,
                        ratioOf(m->resident, m->active), (long long)m->resident - (long long)m->active,
                        ratioOf(m->rss, m->resident), (long long)m->rss - (long long)m->resident);
}

/* The Lua engines' heaps and the script caches (eval.c, function.c). Each
 * engine exists only after its first script or library. */
static sds catScriptingMemory(sds info) {
    size_t vm_eval = evalMemoryLua(), scripts_eval = evalMemoryScripts();
    size_t vm_functions = functionsMemoryLua(), functions = functionsMemoryOverhead();
    char vm_human[64], vm_total_human[64], scripts_human[64];
    bytesToHuman(vm_human, sizeof vm_human, vm_eval);
    bytesToHuman(vm_total_human, sizeof vm_total_human, vm_eval + vm_functions);
    bytesToHuman(scripts_human, sizeof scripts_human, scripts_eval + functions);
    return sdscatprintf(info,
                        "used_memory_lua:%zu\r\n"
                        "used_memory_vm_eval:%zu\r\n"
                        "used_memory_lua_human:%s\r\n"
                        "used_memory_scripts_eval:%zu\r\n"
                        "number_of_cached_scripts:%lu\r\n"
                        "number_of_functions:%lu\r\n"
                        "number_of_libraries:%lu\r\n"
                        "used_memory_vm_functions:%zu\r\n"
                        "used_memory_vm_total:%zu\r\n"
                        "used_memory_vm_total_human:%s\r\n"
                        "used_memory_functions:%zu\r\n"
                        "used_memory_scripts:%zu\r\n"
                        "used_memory_scripts_human:%s\r\n",
                        vm_eval, vm_eval, vm_human, scripts_eval, evalCachedScripts(), functionsCount(),
                        functionsLibraryCount(), vm_functions,
                        vm_eval + vm_functions, vm_total_human, functions, scripts_eval + functions,
                        scripts_human);
}

static sds infoMemory(sds info) {
    memoryOverview m;
    memoryGetOverview(&m);
    size_t used = m.used, rss = m.rss, peak = m.peak;
    info = catHumanField(info, "used_memory", used);
    info = catHumanField(info, "used_memory_rss", rss);
    info = catHumanField(info, "used_memory_peak", peak);
    info = sdscatprintf(info, "used_memory_peak_perc:%.2f%%\r\n", peak ? (double)used * 100 / (double)peak : 0.0);
    info = sdscatprintf(info,
                        "used_memory_overhead:%zu\r\n"
                        "used_memory_startup:%zu\r\n"
                        "used_memory_dataset:%zu\r\n"
                        "used_memory_dataset_perc:%.2f%%\r\n"
                        "allocator_allocated:%zu\r\n"
                        "allocator_active:%zu\r\n"
                        "allocator_resident:%zu\r\n",
                        m.overhead, m.startup, m.dataset, m.dataset_perc, m.allocated, m.active, m.resident);
    info = catHumanField(info, "total_system_memory", totalSystemMemory());
    info = catScriptingMemory(info);
    info = catHumanField(info, "maxmemory", server.maxmemory);
    info = sdscatprintf(info, "maxmemory_policy:%s\r\n", maxmemoryPolicyName(server.maxmemory_policy));
    info = catAllocatorRatios(info, &m);
    return sdscatprintf(info,
                        "mem_fragmentation_ratio:%.2f\r\n"
                        "mem_fragmentation_bytes:%lld\r\n"
                        "mem_not_counted_for_evict:%zu\r\n"
                        "mem_replication_backlog:%zu\r\n"
                        "mem_total_replication_buffers:%zu\r\n"
                        "mem_clients_slaves:%zu\r\n"
                        "mem_clients_normal:%zu\r\n"
                        "mem_cluster_links:%zu\r\n"
                        "mem_aof_buffer:%zu\r\n"
                        "mem_allocator:%s\r\n"
                        "active_defrag_running:%d\r\n"
                        "lazyfree_pending_objects:%zu\r\n"
                        "lazyfreed_objects:%zu\r\n",
                        used ? (double)rss / (double)used : 0.0,
                        (long long)rss - (long long)used, memoryNotCountedForEviction(), replicationBacklogMemory(),
                        replicationBacklogMemory() + m.replica_output, m.clients_replicas, clientsMemoryTotal(),
                        clusterLinksMemory(), aofBufferMemory(), zmalloc_allocator_name(), defragRunning(),
                        lazyfreePendingObjects(),
                        lazyfreeFreedObjects());
}

static sds infoPersistence(sds info) {
    info = sdscatprintf(info,
                        "loading:%d\r\n"
                        "async_loading:%d\r\n",
                        server.loading && !server.async_loading, server.async_loading != 0);
    info = childInfoString(info);
    info = rdbInfoString(info);
    info = snapshotInfoString(info);
    info = loadingLastLoadInfo(info);
    info = sdscatfmt(info, "aof_enabled:%i\r\n", server.aof_enabled != 0);
    info = aofInfoString(info);
    return loadingInfoString(info);
}

/* Fields for what this server lacks (client eviction,
 * tracking, I/O threads, reply buffer resizing) report their idle value. */
static sds infoStats(sds info) {
    long long syncs[5];
    replicationSyncCounts(syncs);
    info = sdscatprintf(info,
                        "total_connections_received:%lld\r\n"
                        "total_commands_processed:%lld\r\n"
                        "instantaneous_ops_per_sec:%lld\r\n"
                        "total_net_input_bytes:%lld\r\n"
                        "total_net_output_bytes:%lld\r\n"
                        "total_net_repl_input_bytes:%lld\r\n"
                        "total_net_repl_output_bytes:%lld\r\n"
                        "instantaneous_input_kbps:%.2f\r\n"
                        "instantaneous_output_kbps:%.2f\r\n"
                        "instantaneous_input_repl_kbps:0.00\r\n"
                        "instantaneous_output_repl_kbps:0.00\r\n"
                        "rejected_connections:%lld\r\n"
                        "sync_full:%lld\r\n"
                        "sync_partial_ok:%lld\r\n"
                        "sync_partial_err:%lld\r\n"
                        "expired_keys:%lld\r\n"
                        "expired_stale_perc:%.2f\r\n"
                        "expired_time_cap_reached_count:%lld\r\n"
                        "expire_cycle_cpu_milliseconds:%lld\r\n"
                        "evicted_keys:%lld\r\n"
                        "evicted_clients:%lld\r\n"
                        "total_eviction_exceeded_time:0\r\n"
                        "current_eviction_exceeded_time:0\r\n"
                        "keyspace_hits:%lld\r\n"
                        "keyspace_misses:%lld\r\n",
                        server.stat_numconnections, server.stat_numcommands, getMetric(METRIC_COMMANDS),
                        server.stat_net_input_bytes, server.stat_net_output_bytes, syncs[3], syncs[4],
                        (double)getMetric(METRIC_NET_INPUT) / 1024, (double)getMetric(METRIC_NET_OUTPUT) / 1024,
                        server.stat_rejected_conn, syncs[0], syncs[1], syncs[2], server.stat_expiredkeys,
                        (double)server.stat_expired_stale_perc, server.stat_expired_time_cap_reached_count,
                        server.stat_expire_cycle_time_used / 1000, server.stat_evictedkeys,
                        server.stat_evictedclients,
                        server.stat_keyspace_hits, server.stat_keyspace_misses);
    sds defrag_fields = defragInfoStats(sdsempty()); /* defrag.c's six fields */
    info = sdscatprintf(info,
                        "pubsub_channels:%lu\r\n"
                        "pubsub_patterns:%lu\r\n"
                        "pubsubshard_channels:%lu\r\n"
                        "latest_fork_usec:%lld\r\n"
                        "total_forks:%lld\r\n"
                        "migrate_cached_sockets:%lu\r\n"
                        "slave_expires_tracked_keys:0\r\n"
                        "%s"
                        "tracking_total_keys:%llu\r\n"
                        "tracking_total_items:%llu\r\n"
                        "tracking_total_prefixes:%llu\r\n"
                        "unexpected_error_replies:%lld\r\n"
                        "total_error_replies:%lld\r\n"
                        "dump_payload_sanitizations:0\r\n"
                        "total_reads_processed:%lld\r\n"
                        "total_writes_processed:%lld\r\n"
                        "io_threaded_reads_processed:0\r\n"
                        "io_threaded_writes_processed:0\r\n"
                        "reply_buffer_shrinks:%lld\r\n"
                        "reply_buffer_expands:%lld\r\n"
                        "client_query_buffer_limit_disconnections:%lld\r\n"
                        "client_output_buffer_limit_disconnections:%lld\r\n",
                        pubsubTotalChannels(), pubsubTotalPatterns(), pubsubTotalShardChannels(),
                        aofLatestForkUsec(), aofTotalForks(), migrateCachedLinks(), defrag_fields, trackingTotalKeys(), trackingTotalItems(),
                        trackingTotalPrefixes(), server.stat_unexpected_error_replies,
                        server.stat_total_error_replies, server.stat_total_reads_processed,
                        server.stat_total_writes_processed, server.stat_reply_buffer_shrinks,
                        server.stat_reply_buffer_expands, server.stat_client_qbuf_limit_disconnections,
                        server.stat_client_outbuf_limit_disconnections);
    sdsfree(defrag_fields);
    return info;
}

static sds infoReplication(sds info) { return replicationInfoString(info); }

static double timevalSeconds(struct timeval tv) { return (double)tv.tv_sec + (double)tv.tv_usec / 1000000; }

static sds infoCpu(sds info) {
    struct rusage self, children;
    if (getrusage(RUSAGE_SELF, &self) != 0) memset(&self, 0, sizeof self);
    if (getrusage(RUSAGE_CHILDREN, &children) != 0) memset(&children, 0, sizeof children);
    info = sdscatprintf(info,
                        "used_cpu_sys:%.6f\r\n"
                        "used_cpu_user:%.6f\r\n"
                        "used_cpu_sys_children:%.6f\r\n"
                        "used_cpu_user_children:%.6f\r\n",
                        timevalSeconds(self.ru_stime), timevalSeconds(self.ru_utime),
                        timevalSeconds(children.ru_stime), timevalSeconds(children.ru_utime));
#ifdef RUSAGE_THREAD
    struct rusage thread; /* INFO runs on the main thread */
    if (getrusage(RUSAGE_THREAD, &thread) != 0) memset(&thread, 0, sizeof thread);
    info = sdscatprintf(info,
                        "used_cpu_sys_main_thread:%.6f\r\n"
                        "used_cpu_user_main_thread:%.6f\r\n",
                        timevalSeconds(thread.ru_stime), timevalSeconds(thread.ru_utime));
#endif
    return info;
}

static sds infoModules(sds info) { return moduleInfoList(info); }

/* Names in INFO (a module's command, field or dict) may not break its line
 * format: '#', ':' and line ends become '_' (in a copy), as Redis 7.0 does. */
sds infoSafeName(const char *name) {
    sds s = sdsnew(name);
    for (size_t j = 0; j < sdslen(s); j++) {
        if (strchr("#:\r\n", s[j])) s[j] = '_';
    }
    return s;
}

static sds catCommandStats(sds info, redisCommand *cmd) {
    if (cmd->calls || cmd->failed_calls || cmd->rejected_calls) {
        sds name = infoSafeName(cmd->fullname); /* a module's "test.weird:cmd" */
        info = sdscatprintf(info, "cmdstat_%s:calls=%lld,usec=%lld,usec_per_call=%.2f,rejected_calls=%lld,failed_calls=%lld\r\n",
                            name, cmd->calls, cmd->microseconds,
                            cmd->calls ? (double)cmd->microseconds / (double)cmd->calls : 0.0, cmd->rejected_calls,
                            cmd->failed_calls);
        sdsfree(name);
    }
    if (cmd->subcommands_dict == NULL) return info;
    for (redisCommand *sub = cmd->subcommands; sub && sub->declared_name; sub++)
        if (sub->fullname) info = catCommandStats(info, sub);
    return info;
}

/* In command-table order, so the output is stable from one call to the next. */
static sds infoCommandStats(sds info) {
    for (redisCommand *cmd = redisCommandTable; cmd->declared_name; cmd++)
        if (cmd->fullname && lookupCommandBySds(cmd->fullname) == cmd) info = catCommandStats(info, cmd);
    dictIterator *di = dictGetIterator(server.commands); /* then modules' commands, as Redis lists them too */
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        redisCommand *cmd = dictGetVal(de);
        if (cmd->module_cmd) info = catCommandStats(info, cmd);
    }
    dictReleaseIterator(di);
    return info;
}

static sds infoErrorStats(sds info) {
    if (server.errors == NULL) return info;
    dictIterator *di = dictGetIterator(server.errors);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL)
        info = sdscatprintf(info, "errorstat_%s:count=%lld\r\n", (char *)dictGetKey(de),
                            (long long)dictGetSignedIntegerVal(de));
    dictReleaseIterator(di);
    return info;
}

/* Per-command latency percentiles (latency_tracking.c); empty with latency-tracking no. */
static sds infoLatencyStats(sds info) { return latencyCatInfoStats(info); }

static sds infoCluster(sds info) { return clusterInfoSection(info); }

static sds infoKeyspace(sds info) {
    for (int j = 0; j < server.dbnum; j++) {
        redisDb *db = &server.db[j];
        unsigned long keys = kvtableSize(db->keys), expires = dictSize(db->expires);
        if (keys || expires)
            info = sdscatprintf(info, "db%d:keys=%lu,expires=%lu,avg_ttl=%lld\r\n", j, keys, expires, db->avg_ttl);
    }
    return info;
}

/* ---- section selection --------------------------------------------------------------------------------- */

typedef struct infoSection {
    const char *name;
    const char *title;
    sds (*generate)(sds info);
    int in_default;
} infoSection;

static const infoSection info_sections[] = {
    {"server", "Server", infoServer, 1},
    {"clients", "Clients", infoClients, 1},
    {"memory", "Memory", infoMemory, 1},
    {"persistence", "Persistence", infoPersistence, 1},
    {"stats", "Stats", infoStats, 1},
    {"replication", "Replication", infoReplication, 1},
    {"cpu", "CPU", infoCpu, 1},
    {"modules", "Modules", infoModules, 1},
    {"commandstats", "Commandstats", infoCommandStats, 0},
    {"errorstats", "Errorstats", infoErrorStats, 1},
    {"latencystats", "Latencystats", infoLatencyStats, 0},
    {"cluster", "Cluster", infoCluster, 1},
    {"keyspace", "Keyspace", infoKeyspace, 1},
};
#define INFO_SECTION_COUNT (sizeof info_sections / sizeof info_sections[0])

/* What one INFO asks for: built-in sections, and which module sections
 * (module_info.c) follow them. As in Redis 7.0.15: "everything" and
 * "modules" bring every module section; a name that is no built-in
 * section's may name a module or one of its sections ("<module>_<section>",
 * even next to "all"); INFO, "default" and "all" alone bring none, and do
 * not call the modules' callbacks. "all" next to any other name calls them
 * (to no effect unless a name is a module's), as 7.0.15 does. */
typedef struct infoRequest {
    char wanted[INFO_SECTION_COUNT];
    int every_module;  /* "everything" or "modules" */
    int unmatched;     /* some name is no built-in section's */
    int all, other;    /* "all" given; a name other than "all" given */
    const char *const *names; /* the names asked for (unmatched ones go to the modules) */
    int names_count;
} infoRequest;

/* Marks in the request the sections one INFO argument asks for. */
static void selectSections(const char *arg, infoRequest *req) {
    int all = !strcasecmp(arg, "all") || !strcasecmp(arg, "everything");
    int dflt = !strcasecmp(arg, "default");
    int matched = all || dflt;
    if (!strcasecmp(arg, "all")) req->all = 1;
    else req->other = 1;
    if (!strcasecmp(arg, "everything") || !strcasecmp(arg, "modules")) req->every_module = 1;
    for (size_t j = 0; j < INFO_SECTION_COUNT; j++) {
        int named = !strcasecmp(arg, info_sections[j].name) ||
                    (info_sections[j].generate == infoModules && !strcasecmp(arg, "module_list"));
        if (all || (dflt && info_sections[j].in_default) || named) req->wanted[j] = 1;
        matched |= named;
    }
    if (!matched) req->unmatched = 1;
}

static sds generateSections(const infoRequest *req) {
    sds info = sdsempty();
    int emitted = 0;
    for (size_t j = 0; j < INFO_SECTION_COUNT; j++) {
        if (!req->wanted[j]) continue;
        if (emitted++) info = sdscat(info, "\r\n");
        info = sdscatprintf(info, "# %s\r\n", info_sections[j].title);
        info = info_sections[j].generate(info);
    }
    if (req->every_module) return moduleInfoCollect(info, NULL, 0, 0, &emitted);
    if (req->unmatched || (req->all && req->other)) return moduleInfoCollect(info, req->names, req->names_count, 0, &emitted);
    return info;
}

sds genRedisInfoString(const char *section) {
    infoRequest req = {0};
    const char *name = section ? section : "default";
    req.names = &name;
    req.names_count = 1;
    selectSections(name, &req);
    return generateSections(&req);
}

void infoCommand(client *c) {
    infoRequest req = {0};
    const char **names = zmalloc(sizeof(char *) * (size_t)(c->argc > 1 ? c->argc - 1 : 1));
    for (int j = 1; j < c->argc; j++) names[j - 1] = c->argv[j]->ptr;
    req.names = names;
    req.names_count = c->argc - 1;
    if (c->argc == 1) selectSections("default", &req);
    for (int j = 1; j < c->argc; j++) selectSections(c->argv[j]->ptr, &req);
    sds info = generateSections(&req);
    zfree(names);
    addReplyVerbatim(c, info, sdslen(info), "txt");
    sdsfree(info);
}
