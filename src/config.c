/* config.c -- the configuration table and everything driven by it: the
 * config file / command-line parser, CONFIG GET, SET, RESETSTAT, REWRITE and
 * HELP, and the directive list that utils/check-config-doc.sh compares with
 * redis.conf.
 *
 * Design decisions:
 * - ONE table (configTable below) is the single source of truth. Each entry
 *   names a directive, its alias, its flags, its type with bounds or
 *   choices, the field of `server` it lives in, its default and an optional
 *   apply function. Adding a directive is adding one line; the parser, the
 *   four CONFIG subcommands and the documentation check all follow.
 * - Fields are reached through a union of typed pointers (field.i, field.ull
 *   ...) filled with `&server.x`, so the compiler checks that a directive
 *   declared as `int` really points at an int: no casts, no void pointers.
 * - Defaults are written as the strings a user would write in redis.conf
 *   and go through the same parser at start-up, so the parser is exercised
 *   before the first line of the file and a typo in the table aborts at
 *   once. The formatted default is remembered for CONFIG REWRITE.
 * - A value is set in two steps, as in Redis: "set" parses, validates and
 *   stores (it only touches the field), "apply" makes the running server
 *   follow (clamp hz, resize the event loop ...). CONFIG SET backs up every
 *   value as its CONFIG GET string, sets all pairs, then applies; if any
 *   step fails the backups are parsed back and the applies re-run, so a
 *   multi-pair SET is all or nothing.
 * - Directives that take several words (bind, save,
 *   client-output-buffer-limit) get them as argv in the file and as one
 *   space-separated string in CONFIG SET, the way Redis splits them.
 * - Error texts, value formats, bounds and the order of checks are those of
 *   Redis 7 (checked against the Debian 7.0 server), because clients and
 *   test suites match on them.
 * - `user` and `rename-command` lines go to acl_file.c (they set no
 *   field of the table); CONFIG REWRITE writes the ACL users back as
 *   `user` lines. `loadmodule` lines are queued by module.c, which loads
 *   them at start-up. The tls-* directives in a BUILD_TLS=no build
 *   (tlsNotBuiltError) stop
 *   start-up with a message naming the missing feature, in Redis's FATAL
 *   CONFIG FILE ERROR framing; compatibility-only ones (CF_NO_EFFECT, and
 *   io-threads: the server is single-threaded by design) are accepted and
 *   named in one start-up warning when set.
 * - Modules' configs ("<module>.<name>", module_config.c) are not in the
 *   table: a name the table lacks is looked up there by CONFIG GET, SET
 *   and REWRITE, and a dotted name in the file is queued for its module.
 * - Only loadServerConfig() prints and exits; the functions below it return
 *   an error message, so the same code serves the file and CONFIG SET.
 */
#include "server.h"
#include "lazyfree.h"
#include "acl.h"
#include "client_eviction.h"
#include "persistio.h"
#include "replication.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <locale.h>
#include <sys/resource.h>
#include <sys/stat.h>

/* ---- the table's vocabulary ---------------------------------------------------- */

typedef enum {
    CONFIG_BOOL,      /* yes/no in an int */
    CONFIG_INT,       /* numeric kinds: bounds in min/max or umin/umax */
    CONFIG_UINT,
    CONFIG_LONGLONG,
    CONFIG_ULONGLONG,
    CONFIG_ULONG,
    CONFIG_ENUM,      /* a name from enum_items, stored as its value in an int */
    CONFIG_STRING,    /* a zmalloc'ed char * (NULL possible with CF_EMPTY_IS_NULL) */
    CONFIG_SPECIAL    /* custom set/get/rewrite */
} configKind;

#define CF_IMMUTABLE (1u << 0)     /* only in the file / on the command line */
#define CF_SENSITIVE (1u << 1)     /* value redacted from slowlog / monitor */
#define CF_DENY_LOADING (1u << 2)  /* CONFIG SET refused while loading data */
#define CF_PROTECTED (1u << 3)     /* CONFIG SET needs enable-protected-configs (Redis 7.0: dir, dbfilename) */
#define CF_MULTI_ARG (1u << 4)     /* takes several words */
#define CF_MEMORY (1u << 5)        /* numeric: accepts 1k/1kb/1mb/1gb ... */
#define CF_OCTAL (1u << 6)         /* numeric: written and read in octal */
#define CF_EMPTY_IS_NULL (1u << 7) /* string: "" is stored as NULL */
#define CF_NO_EFFECT (1u << 8)     /* accepted for Redis config files; the feature isn't here */
#define CF_HIDDEN (1u << 9)        /* test-only knob or beyond 7.0: CONFIG GET shows it by exact name, not to a pattern */

typedef struct configEnumItem {
    const char *name;
    int value;
} configEnumItem;

typedef struct configSpecial {
    /* argv/argc are the words after the directive. accumulate is set when
     * the same file load already set this directive (multi-line `save`). */
    int (*set)(sds *argv, int argc, int accumulate, sds *err);
    sds (*get)(sds out);
    /* Lines for CONFIG REWRITE; NULL means "name <quoted value>". */
    int (*rewrite)(const char *name, sds **lines);
} configSpecial;

typedef struct configEntry {
    const char *name;
    const char *alias;
    unsigned flags;
    configKind kind;
    union {
        int *i;
        unsigned int *u;
        long long *ll;
        unsigned long long *ull;
        unsigned long *ul;
        char **str;
    } field;
    const char *default_value;
    long long min, max;            /* signed numeric kinds */
    unsigned long long umin, umax; /* unsigned numeric kinds */
    const configEnumItem *enum_items;
    const configSpecial *special;
    int (*validate)(const char *value, sds *err); /* strings only */
    int (*apply)(sds *err);
} configEntry;

#define BOOL_CONFIG(n, a, fl, f, d, ap) \
    {.name = n, .alias = a, .flags = fl, .kind = CONFIG_BOOL, .field.i = &server.f, .default_value = d, .apply = ap}
#define INT_CONFIG(n, a, fl, f, lo, hi, d, ap)                                                          \
    {.name = n, .alias = a, .flags = fl, .kind = CONFIG_INT, .field.i = &server.f, .default_value = d, \
     .min = lo, .max = hi, .apply = ap}
#define UINT_CONFIG(n, a, fl, f, lo, hi, d, ap)                                                          \
    {.name = n, .alias = a, .flags = fl, .kind = CONFIG_UINT, .field.u = &server.f, .default_value = d, \
     .umin = lo, .umax = hi, .apply = ap}
#define LL_CONFIG(n, a, fl, f, lo, hi, d, ap)                                                                 \
    {.name = n, .alias = a, .flags = fl, .kind = CONFIG_LONGLONG, .field.ll = &server.f, .default_value = d, \
     .min = lo, .max = hi, .apply = ap}
#define ULL_CONFIG(n, a, fl, f, lo, hi, d, ap)                                                                  \
    {.name = n, .alias = a, .flags = fl, .kind = CONFIG_ULONGLONG, .field.ull = &server.f, .default_value = d, \
     .umin = lo, .umax = hi, .apply = ap}
#define ULONG_CONFIG(n, a, fl, f, lo, hi, d, ap)                                                             \
    {.name = n, .alias = a, .flags = fl, .kind = CONFIG_ULONG, .field.ul = &server.f, .default_value = d, \
     .umin = lo, .umax = hi, .apply = ap}
#define ENUM_CONFIG(n, a, fl, f, items, d, ap)                                                          \
    {.name = n, .alias = a, .flags = fl, .kind = CONFIG_ENUM, .field.i = &server.f, .default_value = d, \
     .enum_items = items, .apply = ap}
#define STRING_CONFIG(n, a, fl, f, d, val, ap)                                                              \
    {.name = n, .alias = a, .flags = fl, .kind = CONFIG_STRING, .field.str = &server.f, .default_value = d, \
     .validate = val, .apply = ap}
#define SPECIAL_CONFIG(n, a, fl, sp, d, ap) \
    {.name = n, .alias = a, .flags = fl, .kind = CONFIG_SPECIAL, .special = &sp, .default_value = d, .apply = ap}

/* ---- enum choices (listed in Redis's order: it shows up in error messages) ---- */

static const configEnumItem loglevel_enum[] = {
    {"debug", LL_DEBUG}, {"verbose", LL_VERBOSE}, {"notice", LL_NOTICE},
    {"warning", LL_WARNING}, {"nothing", LL_NOTHING}, {NULL, 0}};

static const configEnumItem propagation_error_enum[] = {
    {"ignore", PROPAGATION_ERR_IGNORE}, {"panic", PROPAGATION_ERR_PANIC},
    {"panic-on-replicas", PROPAGATION_ERR_PANIC_ON_REPLICAS}, {NULL, 0}};

static const configEnumItem supervised_enum[] = {
    {"upstart", SUPERVISED_UPSTART}, {"systemd", SUPERVISED_SYSTEMD},
    {"auto", SUPERVISED_AUTODETECT}, {"no", SUPERVISED_NONE}, {NULL, 0}};

static const configEnumItem maxmemory_policy_enum[] = {
    {"volatile-lru", MAXMEMORY_VOLATILE_LRU}, {"volatile-lfu", MAXMEMORY_VOLATILE_LFU},
    {"volatile-random", MAXMEMORY_VOLATILE_RANDOM}, {"volatile-ttl", MAXMEMORY_VOLATILE_TTL},
    {"allkeys-lru", MAXMEMORY_ALLKEYS_LRU}, {"allkeys-lfu", MAXMEMORY_ALLKEYS_LFU},
    {"allkeys-random", MAXMEMORY_ALLKEYS_RANDOM}, {"noeviction", MAXMEMORY_NO_EVICTION}, {NULL, 0}};

static const configEnumItem sanitize_dump_enum[] = {{"no", 0}, {"yes", 1}, {"clients", 2}, {NULL, 0}};

static const configEnumItem protected_action_enum[] = {
    {"no", PROTECTED_ACTION_ALLOWED_NO}, {"yes", PROTECTED_ACTION_ALLOWED_YES},
    {"local", PROTECTED_ACTION_ALLOWED_LOCAL}, {NULL, 0}};

static const configEnumItem acl_pubsub_enum[] = {
    {"allchannels", ACL_PUBSUB_ALLCHANNELS}, {"resetchannels", ACL_PUBSUB_RESETCHANNELS}, {NULL, 0}};

static const configEnumItem oom_score_adj_enum[] = {
    {"no", OOM_SCORE_ADJ_NO}, {"yes", OOM_SCORE_RELATIVE}, {"relative", OOM_SCORE_RELATIVE},
    {"absolute", OOM_SCORE_ADJ_ABSOLUTE}, {NULL, 0}};

static const configEnumItem repl_diskless_load_enum[] = {
    {"disabled", 0}, {"on-empty-db", 1}, {"swapdb", 2}, {NULL, 0}};

static const configEnumItem cluster_endpoint_enum[] = {
    {"ip", 0}, {"hostname", 1}, {"unknown-endpoint", 2}, {NULL, 0}};

static const configEnumItem persistence_mode_enum[] = {{"fork", 0}, {"forkless", 1}, {NULL, 0}};

static const configEnumItem appendfsync_enum[] = {
    {"everysec", AOF_FSYNC_EVERYSEC}, {"always", AOF_FSYNC_ALWAYS}, {"no", AOF_FSYNC_NO}, {NULL, 0}};

/* ---- special types, validators and apply functions (defined further down) ---- */

static int setBind(sds *argv, int argc, int accumulate, sds *err);
static sds getBind(sds out);
static int rewriteBind(const char *name, sds **lines);
static int setSave(sds *argv, int argc, int accumulate, sds *err);
static sds getSave(sds out);
static int rewriteSave(const char *name, sds **lines);
static int setOutputBufferLimits(sds *argv, int argc, int accumulate, sds *err);
static sds getOutputBufferLimits(sds out);
static int rewriteOutputBufferLimits(const char *name, sds **lines);
static int setNotifyKeyspaceEvents(sds *argv, int argc, int accumulate, sds *err);
static sds getNotifyKeyspaceEvents(sds out);
static int setDir(sds *argv, int argc, int accumulate, sds *err);
static int setRequirepass(sds *argv, int argc, int accumulate, sds *err);
static sds getRequirepass(sds out);
static int setMasterauth(sds *argv, int argc, int accumulate, sds *err);
static sds getMasterauth(sds out);
static sds getDir(sds out);
static int setOomScoreAdjValues(sds *argv, int argc, int accumulate, sds *err);
static sds getOomScoreAdjValues(sds out);
static int rewriteOomScoreAdjValues(const char *name, sds **lines);
static int setShutdownOnSigterm(sds *argv, int argc, int accumulate, sds *err);
static sds getShutdownOnSigterm(sds out);
static int setShutdownOnSigint(sds *argv, int argc, int accumulate, sds *err);
static sds getShutdownOnSigint(sds out);

static const configSpecial bind_special = {setBind, getBind, rewriteBind};
static const configSpecial save_special = {setSave, getSave, rewriteSave};
static int setReplicaof(sds *argv, int argc, int accumulate, sds *err) {
    (void)accumulate;
    return replicaConfigSet(argv, argc, err);
}
/* "replicaof <host> <port>", or no line at all when we are a primary. */
static int rewriteReplicaof(const char *name, sds **lines) {
    sds value = replicaConfigGet(sdsempty());
    if (sdslen(value) == 0) {
        sdsfree(value);
        *lines = NULL;
        return 0;
    }
    *lines = zmalloc(sizeof(sds));
    (*lines)[0] = sdscatprintf(sdsempty(), "%s %s", name, value);
    sdsfree(value);
    return 1;
}
static const configSpecial replicaof_special = {setReplicaof, replicaConfigGet, rewriteReplicaof};
static const configSpecial obuf_special = {setOutputBufferLimits, getOutputBufferLimits, rewriteOutputBufferLimits};
static const configSpecial notify_special = {setNotifyKeyspaceEvents, getNotifyKeyspaceEvents, NULL};
static const configSpecial dir_special = {setDir, getDir, NULL};
static const configSpecial requirepass_special = {setRequirepass, getRequirepass, NULL};
static const configSpecial masterauth_special = {setMasterauth, getMasterauth, NULL};
static const configSpecial sigterm_special = {setShutdownOnSigterm, getShutdownOnSigterm, NULL};
static const configSpecial sigint_special = {setShutdownOnSigint, getShutdownOnSigint, NULL};
static const configSpecial oom_values_special = {setOomScoreAdjValues, getOomScoreAdjValues,
                                                 rewriteOomScoreAdjValues};
static const configSpecial maxmemory_clients_special = {clientEvictionSetConfig, clientEvictionGetConfig, NULL};
static const configSpecial latency_percentiles_special = {latencySetPercentilesConfig, latencyGetPercentilesConfig,
                                                         latencyRewritePercentilesConfig};

static int validateAofFilename(const char *value, sds *err);
/* aof-disable-auto-gc no again: the files rewrites kept go now. */
static int applyAofAutoGc(sds *err) {
    (void)err;
    if (server.el != NULL && !server.aof_disable_auto_gc) aofDeleteHistoryFiles();
    return C_OK;
}

static int validateDbfilename(const char *value, sds *err);
static int validateAofDirname(const char *value, sds *err);
static int applyHz(sds *err);
static int applyPort(sds *err);
static int applyUnixsocketgroup(sds *err);
static int applyBind(sds *err);
static int applyAppendonly(sds *err);
static int applyMaxclients(sds *err);
static int applyMaxmemory(sds *err);
static int applyLogfile(sds *err);
static int applyLocaleCollate(sds *err);
static int applyOomScoreAdj(sds *err);
static int applyJemallocBgThread(sds *err);
static int applyEventLoopSpin(sds *err);
static int applyWatchdogPeriod(sds *err);
static int applyReplBacklogSize(sds *err);

#define MB (1024LL * 1024)

static int config_io_threads;          /* io-threads: read by no one */
static int config_io_threads_do_reads; /* io-threads-do-reads: read by no one */

/* ---- THE TABLE ------------------------------------------------------------------ */

static const configEntry configTable[] = {
    /* networking */
    SPECIAL_CONFIG("bind", NULL, CF_MULTI_ARG, bind_special, "* -::*", applyBind),
    INT_CONFIG("port", NULL, 0, port, 0, 65535, "6379", applyPort),
    INT_CONFIG("tcp-backlog", NULL, CF_IMMUTABLE, tcp_backlog, 0, INT_MAX, "511", NULL),
    STRING_CONFIG("unixsocket", NULL, CF_IMMUTABLE | CF_EMPTY_IS_NULL, unixsocket, "", NULL, NULL),
    UINT_CONFIG("unixsocketperm", NULL, CF_IMMUTABLE | CF_OCTAL, unixsocketperm, 0, 0777, "0", NULL),
    STRING_CONFIG("unixsocketgroup", NULL, CF_EMPTY_IS_NULL, unixsocketgroup, "", NULL, applyUnixsocketgroup),
    INT_CONFIG("timeout", NULL, 0, maxidletime, 0, INT_MAX, "0", NULL),
    INT_CONFIG("tcp-keepalive", NULL, 0, tcpkeepalive, 0, INT_MAX, "300", NULL),
    BOOL_CONFIG("protected-mode", NULL, 0, protected_mode, "yes", NULL),
    BOOL_CONFIG("shm-enabled", NULL, 0, shm_enabled, "yes", NULL),
    LL_CONFIG("shm-ring-size", NULL, CF_MEMORY, shm_ring_size, 4096, 256 * MB, "1mb", NULL),
    UINT_CONFIG("shm-max-clients", NULL, 0, shm_max_clients, 0, 65535, "256", NULL),
    UINT_CONFIG("shm-spin-us", NULL, 0, shm_spin_us, 0, 1000, "20", NULL),
    BOOL_CONFIG("shm-force-devshm", NULL, CF_HIDDEN, shm_force_devshm, "no", NULL),
    UINT_CONFIG("event-loop-spin-us", NULL, 0, event_loop_spin_us, 0, 1000, "20", applyEventLoopSpin),
    UINT_CONFIG("maxclients", NULL, 0, maxclients, 1, UINT_MAX, "10000", applyMaxclients),
    SPECIAL_CONFIG("requirepass", NULL, CF_SENSITIVE, requirepass_special, "", NULL),
    LL_CONFIG("proto-max-bulk-len", NULL, CF_MEMORY, proto_max_bulk_len, MB, LONG_MAX, "512mb", NULL),
    ULL_CONFIG("client-query-buffer-limit", NULL, CF_MEMORY, client_max_querybuf_len, MB, LONG_MAX, "1gb", NULL),
    SPECIAL_CONFIG("client-output-buffer-limit", NULL, CF_MULTI_ARG, obuf_special,
                   "normal 0 0 0 replica 256mb 64mb 60 pubsub 32mb 8mb 60", NULL),
    ENUM_CONFIG("enable-debug-command", NULL, CF_IMMUTABLE, enable_debug_cmd, protected_action_enum, "no", NULL),
    ENUM_CONFIG("enable-protected-configs", NULL, CF_IMMUTABLE, enable_protected_configs, protected_action_enum,
                "no", NULL),
    {.name = "enable-module-command", .flags = CF_IMMUTABLE, .kind = CONFIG_ENUM, .field.i = &enable_module_command,
     .default_value = "no", .enum_items = protected_action_enum},

    /* ACL (acl.c, acl_file.c; `user` lines and rename-command are read by loadDirective) */
    {.name = "aclfile", .flags = CF_IMMUTABLE, .kind = CONFIG_STRING, .field.str = &acl_filename,
     .default_value = ""},
    ULONG_CONFIG("acllog-max-len", NULL, 0, acllog_max_len, 0, LONG_MAX, "128", NULL),
    {.name = "acl-pubsub-default", .kind = CONFIG_ENUM, .field.i = &acl_pubsub_default,
     .default_value = "resetchannels", .enum_items = acl_pubsub_enum},

    /* process and logging */
    BOOL_CONFIG("daemonize", NULL, CF_IMMUTABLE, daemonize, "no", NULL),
    ENUM_CONFIG("supervised", NULL, CF_IMMUTABLE, supervised_mode, supervised_enum, "no", NULL),
    STRING_CONFIG("pidfile", NULL, CF_IMMUTABLE | CF_EMPTY_IS_NULL, pidfile, "", NULL, NULL),
    ENUM_CONFIG("loglevel", NULL, 0, verbosity, loglevel_enum, "notice", NULL),
    STRING_CONFIG("logfile", NULL, CF_IMMUTABLE, logfile, "", NULL, applyLogfile),
    BOOL_CONFIG("syslog-enabled", NULL, CF_IMMUTABLE, syslog_enabled, "no", NULL),
    STRING_CONFIG("syslog-ident", NULL, CF_IMMUTABLE, syslog_ident, "redis", NULL, NULL),
    BOOL_CONFIG("always-show-logo", NULL, CF_IMMUTABLE, always_show_logo, "no", NULL),
    BOOL_CONFIG("crash-log-enabled", NULL, 0, crashlog_enabled, "yes", NULL),
    BOOL_CONFIG("crash-memcheck-enabled", NULL, 0, memcheck_enabled, "yes", NULL),
    BOOL_CONFIG("use-exit-on-panic", NULL, CF_HIDDEN, use_exit_on_panic, "no", NULL),
    INT_CONFIG("watchdog-period", NULL, CF_HIDDEN, watchdog_period, 0, INT_MAX, "0", applyWatchdogPeriod),
    BOOL_CONFIG("set-proc-title", NULL, CF_IMMUTABLE, set_proc_title, "yes", NULL),
    STRING_CONFIG("proc-title-template", NULL, 0, proc_title_template, "{title} {listen-addr} {server-mode}",
                  procTitleValidateTemplate, procTitleApplyTemplate),
    STRING_CONFIG("locale-collate", NULL, 0, locale_collate, "", NULL, applyLocaleCollate),
    INT_CONFIG("databases", NULL, CF_IMMUTABLE, dbnum, 1, INT_MAX, "16", NULL),
    INT_CONFIG("hz", NULL, 0, config_hz, 0, INT_MAX, "10", applyHz),
    BOOL_CONFIG("dynamic-hz", NULL, 0, dynamic_hz, "yes", NULL),
    BOOL_CONFIG("activerehashing", NULL, 0, active_rehashing, "yes", NULL),

    /* active defragmentation (defrag.c), with Redis 7.0's bounds and defaults */
    BOOL_CONFIG("activedefrag", NULL, 0, active_defrag_enabled, "no", defragApplyConfig),
    ULL_CONFIG("active-defrag-ignore-bytes", NULL, CF_MEMORY, active_defrag_ignore_bytes, 1, LLONG_MAX, "100mb",
               NULL),
    INT_CONFIG("active-defrag-threshold-lower", NULL, 0, active_defrag_threshold_lower, 0, 1000, "10", NULL),
    INT_CONFIG("active-defrag-threshold-upper", NULL, 0, active_defrag_threshold_upper, 0, 1000, "100", NULL),
    INT_CONFIG("active-defrag-cycle-min", NULL, 0, active_defrag_cycle_min, 1, 99, "1", NULL),
    INT_CONFIG("active-defrag-cycle-max", NULL, 0, active_defrag_cycle_max, 1, 99, "25", NULL),
    ULONG_CONFIG("active-defrag-max-scan-fields", NULL, 0, active_defrag_max_scan_fields, 1, LONG_MAX, "1000",
                 NULL),

    /* OS tuning (thp.c, oom.c) */
    BOOL_CONFIG("disable-thp", NULL, CF_IMMUTABLE, disable_thp, "yes", NULL),
    ENUM_CONFIG("oom-score-adj", NULL, 0, oom_score_adj, oom_score_adj_enum, "no", applyOomScoreAdj),
    SPECIAL_CONFIG("oom-score-adj-values", NULL, CF_MULTI_ARG, oom_values_special, "0 200 800", applyOomScoreAdj),

    /* memory and eviction */
    ULL_CONFIG("maxmemory", NULL, CF_MEMORY, maxmemory, 0, ULLONG_MAX, "0", applyMaxmemory),
    ENUM_CONFIG("maxmemory-policy", NULL, 0, maxmemory_policy, maxmemory_policy_enum, "noeviction", NULL),
    SPECIAL_CONFIG("maxmemory-clients", NULL, 0, maxmemory_clients_special, "0", NULL),
    INT_CONFIG("maxmemory-samples", NULL, 0, maxmemory_samples, 1, INT_MAX, "5", NULL),
    INT_CONFIG("maxmemory-eviction-tenacity", NULL, 0, maxmemory_eviction_tenacity, 0, 100, "10", NULL),
    INT_CONFIG("lfu-log-factor", NULL, 0, lfu_log_factor, 0, INT_MAX, "10", NULL),
    INT_CONFIG("lfu-decay-time", NULL, 0, lfu_decay_time, 0, INT_MAX, "1", NULL),
    INT_CONFIG("active-expire-effort", NULL, 0, active_expire_effort, 1, 10, "1", NULL),
    BOOL_CONFIG("jemalloc-bg-thread", NULL, 0, jemalloc_bg_thread, "yes", applyJemallocBgThread),
    BOOL_CONFIG("lazyfree-lazy-eviction", NULL, 0, lazyfree_lazy_eviction, "no", NULL),
    BOOL_CONFIG("lazyfree-lazy-expire", NULL, 0, lazyfree_lazy_expire, "no", NULL),
    BOOL_CONFIG("lazyfree-lazy-server-del", NULL, 0, lazyfree_lazy_server_del, "no", NULL),
    BOOL_CONFIG("lazyfree-lazy-user-del", NULL, 0, lazyfree_lazy_user_del, "no", NULL),
    BOOL_CONFIG("lazyfree-lazy-user-flush", NULL, 0, lazyfree_lazy_user_flush, "no", NULL),

    /* collections: thresholds of the compact encodings (issue 4) */
    ULONG_CONFIG("hash-max-listpack-entries", "hash-max-ziplist-entries", 0, hash_max_listpack_entries, 0, LONG_MAX, "512", NULL),
    ULONG_CONFIG("hash-max-listpack-value", "hash-max-ziplist-value", CF_MEMORY, hash_max_listpack_value, 0, LONG_MAX, "64", NULL),
    INT_CONFIG("list-max-listpack-size", "list-max-ziplist-size", 0, list_max_listpack_size, INT_MIN, INT_MAX, "-2", NULL),
    INT_CONFIG("list-compress-depth", NULL, 0, list_compress_depth, 0, INT_MAX, "0", NULL),
    ULONG_CONFIG("set-max-intset-entries", NULL, 0, set_max_intset_entries, 0, LONG_MAX, "512", NULL),
    ULONG_CONFIG("set-max-listpack-entries", NULL, CF_HIDDEN, set_max_listpack_entries, 0, LONG_MAX, "128", NULL),
    ULONG_CONFIG("set-max-listpack-value", NULL, CF_MEMORY | CF_HIDDEN, set_max_listpack_value, 0, LONG_MAX, "64", NULL),
    ULONG_CONFIG("zset-max-listpack-entries", "zset-max-ziplist-entries", 0, zset_max_listpack_entries, 0, LONG_MAX, "128", NULL),
    ULONG_CONFIG("zset-max-listpack-value", "zset-max-ziplist-value", CF_MEMORY, zset_max_listpack_value, 0, LONG_MAX, "64", NULL),
    ULONG_CONFIG("hll-sparse-max-bytes", NULL, CF_MEMORY, hll_sparse_max_bytes, 0, LONG_MAX, "3000", NULL),

    /* persistence */
    SPECIAL_CONFIG("dir", NULL, CF_PROTECTED | CF_DENY_LOADING, dir_special, "./", NULL),
    SPECIAL_CONFIG("shutdown-on-sigterm", NULL, CF_MULTI_ARG, sigterm_special, "default", NULL),
    SPECIAL_CONFIG("shutdown-on-sigint", NULL, CF_MULTI_ARG, sigint_special, "default", NULL),
    SPECIAL_CONFIG("save", NULL, CF_MULTI_ARG, save_special, "3600 1 300 100 60 10000", NULL),
    STRING_CONFIG("dbfilename", NULL, CF_PROTECTED, rdb_filename, "dump.rdb", validateDbfilename, NULL),
    BOOL_CONFIG("rdbcompression", NULL, 0, rdb_compression, "yes", NULL),
    BOOL_CONFIG("rdbchecksum", NULL, CF_IMMUTABLE, rdb_checksum, "yes", NULL),
    ENUM_CONFIG("sanitize-dump-payload", NULL, CF_DENY_LOADING, sanitize_dump_payload, sanitize_dump_enum, "no", NULL),
    BOOL_CONFIG("rdb-save-incremental-fsync", NULL, 0, rdb_save_incremental_fsync, "yes", NULL),
    BOOL_CONFIG("stop-writes-on-bgsave-error", NULL, 0, stop_writes_on_bgsave_err, "yes", NULL),
    BOOL_CONFIG("appendonly", NULL, CF_DENY_LOADING, aof_enabled, "no", applyAppendonly),
    STRING_CONFIG("appendfilename", NULL, CF_IMMUTABLE, aof_filename, "appendonly.aof", validateAofFilename, NULL),
    STRING_CONFIG("appenddirname", NULL, CF_IMMUTABLE, aof_dirname, "appendonlydir", validateAofDirname, NULL),
    ENUM_CONFIG("appendfsync", NULL, 0, aof_fsync, appendfsync_enum, "everysec", NULL),
    BOOL_CONFIG("no-appendfsync-on-rewrite", NULL, 0, aof_no_fsync_on_rewrite, "no", NULL),
    INT_CONFIG("auto-aof-rewrite-percentage", NULL, 0, auto_aof_rewrite_perc, 0, INT_MAX, "100", NULL),
    ULL_CONFIG("auto-aof-rewrite-min-size", NULL, CF_MEMORY, auto_aof_rewrite_min_size, 0, LLONG_MAX, "64mb", NULL),
    BOOL_CONFIG("aof-load-truncated", NULL, 0, aof_load_truncated, "yes", NULL),
    BOOL_CONFIG("aof-rewrite-incremental-fsync", NULL, 0, aof_rewrite_incremental_fsync, "yes", NULL),
    BOOL_CONFIG("aof-use-rdb-preamble", NULL, 0, aof_use_rdb_preamble, "yes", NULL),
    BOOL_CONFIG("aof-timestamp-enabled", NULL, 0, aof_timestamp_enabled, "no", NULL),
    BOOL_CONFIG("aof-disable-auto-gc", NULL, 0, aof_disable_auto_gc, "no", applyAofAutoGc),
    INT_CONFIG("key-load-delay", NULL, CF_HIDDEN, key_load_delay, INT_MIN, INT_MAX, "0", NULL),
    INT_CONFIG("loading-process-events-interval-bytes", NULL, CF_HIDDEN, loading_process_events_interval_bytes, 1024,
               INT_MAX, "2097152", NULL),
    INT_CONFIG("rdb-key-save-delay", NULL, CF_HIDDEN, rdb_key_save_delay, INT_MIN, INT_MAX, "0", NULL),
    ENUM_CONFIG("persistence-mode", NULL, 0, persistence_mode, persistence_mode_enum, "fork", NULL),
    ULL_CONFIG("forkless-max-pending-memory", NULL, CF_MEMORY, forkless_max_pending_memory, 0, ULLONG_MAX, "256mb",
               NULL),

    /* CPU affinity (cpuaffinity.c): start-up only, spelt with underscores as in Redis */
    STRING_CONFIG("server_cpulist", NULL, CF_IMMUTABLE | CF_EMPTY_IS_NULL, server_cpulist, "", cpulistValidate, NULL),
    STRING_CONFIG("bio_cpulist", NULL, CF_IMMUTABLE | CF_EMPTY_IS_NULL, bio_cpulist, "", cpulistValidate, NULL),
    STRING_CONFIG("aof_rewrite_cpulist", NULL, CF_IMMUTABLE | CF_EMPTY_IS_NULL, aof_rewrite_cpulist, "",
                  cpulistValidate, NULL),
    STRING_CONFIG("bgsave_cpulist", NULL, CF_IMMUTABLE | CF_EMPTY_IS_NULL, bgsave_cpulist, "", cpulistValidate,
                  NULL),
    INT_CONFIG("bgchild-nice", NULL, 0, bgchild_nice, 0, 19, "0", NULL),
    BOOL_CONFIG("bgchild-sched-idle", NULL, 0, bgchild_sched_idle, "no", NULL),

    /* diagnostics and events */
    LL_CONFIG("busy-reply-threshold", "lua-time-limit", 0, busy_reply_threshold, 0, LONG_MAX, "5000", NULL),
    LL_CONFIG("slowlog-log-slower-than", NULL, 0, slowlog_log_slower_than, -1, LLONG_MAX, "10000", NULL),
    ULONG_CONFIG("slowlog-max-len", NULL, 0, slowlog_max_len, 0, LONG_MAX, "128", NULL),
    LL_CONFIG("latency-monitor-threshold", NULL, 0, latency_monitor_threshold, 0, LLONG_MAX, "0", NULL),
    BOOL_CONFIG("latency-tracking", NULL, 0, latency_tracking_enabled, "yes", NULL),
    SPECIAL_CONFIG("latency-tracking-info-percentiles", NULL, CF_MULTI_ARG, latency_percentiles_special, "50 99 99.9",
                   NULL),
    SPECIAL_CONFIG("notify-keyspace-events", NULL, 0, notify_special, "", NULL),
    ULONG_CONFIG("tracking-table-max-keys", NULL, 0, tracking_table_max_keys, 0, LONG_MAX, "1000000", NULL),

    /* cluster mode (cluster.c), with Redis 7.0's names, bounds and defaults */
    BOOL_CONFIG("cluster-enabled", NULL, CF_IMMUTABLE, cluster_enabled, "no", NULL),
    STRING_CONFIG("cluster-config-file", NULL, CF_IMMUTABLE, cluster_configfile, "nodes.conf", NULL, NULL),
    LL_CONFIG("cluster-node-timeout", NULL, 0, cluster_node_timeout, 0, LLONG_MAX, "15000", NULL),
    INT_CONFIG("cluster-port", NULL, CF_IMMUTABLE, cluster_port, 0, 65535, "0", NULL),
    STRING_CONFIG("cluster-announce-ip", NULL, CF_EMPTY_IS_NULL, cluster_announce_ip, "", NULL, clusterApplyAnnounced),
    STRING_CONFIG("cluster-announce-hostname", NULL, CF_EMPTY_IS_NULL, cluster_announce_hostname, "",
                  clusterHostnameValidate, clusterApplyAnnounced),
    INT_CONFIG("cluster-announce-port", NULL, 0, cluster_announce_port, 0, 65535, "0", clusterApplyAnnounced),
    INT_CONFIG("cluster-announce-bus-port", NULL, 0, cluster_announce_bus_port, 0, 65535, "0", clusterApplyAnnounced),
    INT_CONFIG("cluster-announce-tls-port", NULL, 0, cluster_announce_tls_port, 0, 65535, "0", clusterApplyAnnounced),
    BOOL_CONFIG("cluster-require-full-coverage", NULL, 0, cluster_require_full_coverage, "yes", NULL),
    BOOL_CONFIG("cluster-replica-no-failover", "cluster-slave-no-failover", 0, cluster_replica_no_failover, "no",
                NULL),
    BOOL_CONFIG("cluster-allow-reads-when-down", NULL, 0, cluster_allow_reads_when_down, "no", NULL),
    BOOL_CONFIG("cluster-allow-pubsubshard-when-down", NULL, 0, cluster_allow_pubsubshard_when_down, "yes", NULL),
    BOOL_CONFIG("cluster-allow-replica-migration", NULL, 0, cluster_allow_replica_migration, "yes", NULL),
    ENUM_CONFIG("cluster-preferred-endpoint-type", NULL, 0, cluster_preferred_endpoint_type,
                cluster_endpoint_enum, "ip", NULL),
    INT_CONFIG("cluster-replica-validity-factor", "cluster-slave-validity-factor", 0,
               cluster_replica_validity_factor, 0, INT_MAX, "10", NULL),
    INT_CONFIG("cluster-migration-barrier", NULL, 0, cluster_migration_barrier, 0, INT_MAX, "1", NULL),
    ULL_CONFIG("cluster-link-sendbuf-limit", NULL, CF_MEMORY, cluster_link_sendbuf_limit, 0, ULLONG_MAX, "0",
               NULL),

    /* replication (replication.c, replica.c); the ones still CF_NO_EFFECT
     * are accepted with Redis's types, bounds and defaults so its config
     * files load; nothing reads them (the two stream-node ones among them
     * are read by t_stream.c) */
    SPECIAL_CONFIG("replicaof", "slaveof", CF_IMMUTABLE | CF_MULTI_ARG, replicaof_special, "", NULL),
    SPECIAL_CONFIG("masterauth", NULL, CF_SENSITIVE, masterauth_special, "", NULL),
    STRING_CONFIG("masteruser", NULL, CF_EMPTY_IS_NULL, masteruser, "", NULL, NULL),
    STRING_CONFIG("replica-announce-ip", "slave-announce-ip", CF_EMPTY_IS_NULL, replica_announce_ip, "", NULL, NULL),
    INT_CONFIG("replica-announce-port", "slave-announce-port", 0, replica_announce_port, 0, 65535, "0", NULL),
    BOOL_CONFIG("replica-announced", NULL, 0, replica_announced, "yes", NULL),
    BOOL_CONFIG("rdb-del-sync-files", NULL, CF_NO_EFFECT, rdb_del_sync_files, "no", NULL),
    BOOL_CONFIG("replica-serve-stale-data", "slave-serve-stale-data", 0, repl_serve_stale_data, "yes",
                NULL),
    BOOL_CONFIG("replica-read-only", "slave-read-only", 0, repl_slave_ro, "yes", NULL),
    ENUM_CONFIG("propagation-error-behavior", NULL, 0, propagation_error_behavior, propagation_error_enum,
                "ignore", NULL),
    BOOL_CONFIG("repl-diskless-sync", NULL, 0, repl_diskless_sync, "yes", NULL),
    INT_CONFIG("repl-diskless-sync-delay", NULL, 0, repl_diskless_sync_delay, 0, INT_MAX, "5", NULL),
    INT_CONFIG("repl-diskless-sync-max-replicas", NULL, 0, repl_diskless_sync_max_replicas, 0, INT_MAX,
               "0", NULL),
    ENUM_CONFIG("repl-diskless-load", NULL, 0, repl_diskless_load, repl_diskless_load_enum, "disabled",
                NULL),
    BOOL_CONFIG("repl-disable-tcp-nodelay", NULL, CF_NO_EFFECT, repl_disable_tcp_nodelay, "no", NULL),
    INT_CONFIG("replica-priority", "slave-priority", 0, replica_priority, 0, INT_MAX, "100", NULL),
    BOOL_CONFIG("replica-lazy-flush", "slave-lazy-flush", 0, repl_slave_lazy_flush, "no", NULL),
    ULONG_CONFIG("stream-node-max-bytes", NULL, CF_MEMORY, stream_node_max_bytes, 0, LONG_MAX,
                 "4096", NULL),
    LL_CONFIG("stream-node-max-entries", NULL, 0, stream_node_max_entries, 0, LLONG_MAX, "100", NULL),
    INT_CONFIG("repl-ping-replica-period", "repl-ping-slave-period", 0, repl_ping_replica_period, 1,
               INT_MAX, "10", NULL),
    INT_CONFIG("repl-timeout", NULL, 0, repl_timeout, 1, INT_MAX, "60", NULL),
    INT_CONFIG("shutdown-timeout", NULL, 0, shutdown_timeout, 0, INT_MAX, "10", NULL),
    LL_CONFIG("repl-backlog-size", NULL, CF_MEMORY, repl_backlog_size, 1, LLONG_MAX, "1mb", applyReplBacklogSize),
    LL_CONFIG("repl-backlog-ttl", NULL, 0, repl_backlog_ttl, 0, LONG_MAX, "3600", NULL),
    INT_CONFIG("min-replicas-to-write", "min-slaves-to-write", 0, min_replicas_to_write, 0, INT_MAX,
               "0", NULL),
    INT_CONFIG("min-replicas-max-lag", "min-slaves-max-lag", 0, min_replicas_max_lag, 0, INT_MAX, "10",
               NULL),
    STRING_CONFIG("bind-source-addr", NULL, CF_EMPTY_IS_NULL, bind_source_addr, "", NULL, NULL),

#ifdef USE_OPENSSL
    /* TLS (tls.c): Redis 7.0's tls-* directives with its defaults; a change
     * rebuilds the TLS context (a bad file: error, the old context stays) */
#define TLS_STRING(n, fl, f) {.name = n, .flags = CF_EMPTY_IS_NULL | (fl), .kind = CONFIG_STRING, \
                              .field.str = &tls_config.f, .default_value = "", .apply = tlsApplyConfig}
#define TLS_BOOL(n, f, d) {.name = n, .kind = CONFIG_BOOL, .field.i = &tls_config.f, .default_value = d, \
                           .apply = tlsApplyConfig}
#define TLS_INT(n, f, hi, d, ap) {.name = n, .kind = CONFIG_INT, .field.i = &tls_config.f, .default_value = d, \
                                  .min = 0, .max = hi, .apply = ap}
    TLS_INT("tls-port", port, 65535, "0", tlsApplyPort),
    TLS_STRING("tls-cert-file", 0, cert_file),
    TLS_STRING("tls-key-file", 0, key_file),
    TLS_STRING("tls-key-file-pass", CF_SENSITIVE, key_file_pass),
    TLS_STRING("tls-client-cert-file", 0, client_cert_file),
    TLS_STRING("tls-client-key-file", 0, client_key_file),
    TLS_STRING("tls-client-key-file-pass", CF_SENSITIVE, client_key_file_pass),
    TLS_STRING("tls-dh-params-file", 0, dh_params_file),
    TLS_STRING("tls-ca-cert-file", 0, ca_cert_file),
    TLS_STRING("tls-ca-cert-dir", 0, ca_cert_dir),
    TLS_STRING("tls-protocols", 0, protocols),
    TLS_STRING("tls-ciphers", 0, ciphers),
    TLS_STRING("tls-ciphersuites", 0, ciphersuites),
    {.name = "tls-auth-clients", .kind = CONFIG_ENUM, .field.i = &tls_config.auth_clients, .default_value = "yes",
     .enum_items = (const configEnumItem[]){{"no", TLS_CLIENT_AUTH_NO}, {"yes", TLS_CLIENT_AUTH_YES},
                                            {"optional", TLS_CLIENT_AUTH_OPTIONAL}, {NULL, 0}},
     .apply = tlsApplyConfig},
    TLS_BOOL("tls-prefer-server-ciphers", prefer_server_ciphers, "no"),
    TLS_BOOL("tls-session-caching", session_caching, "yes"),
    TLS_INT("tls-session-cache-size", session_cache_size, INT_MAX, "20480", tlsApplyConfig),
    TLS_INT("tls-session-cache-timeout", session_cache_timeout, INT_MAX, "300", tlsApplyConfig),
    TLS_BOOL("tls-cluster", cluster, "no"),
    TLS_BOOL("tls-replication", replication, "no"),
#undef TLS_STRING
#undef TLS_BOOL
#undef TLS_INT
#endif

    /* I/O threads: Debian-derived configs set them; this server is
     * single-threaded by design, so they are kept only to be reported
     * (configWarnNoEffectDirectives) and shown by CONFIG GET, as in Redis */
    {.name = "io-threads", .flags = CF_IMMUTABLE, .kind = CONFIG_INT, .field.i = &config_io_threads,
     .default_value = "1", .min = 1, .max = 128},
    {.name = "io-threads-do-reads", .flags = CF_IMMUTABLE, .kind = CONFIG_BOOL, .field.i = &config_io_threads_do_reads,
     .default_value = "no"},
};

#define CONFIG_COUNT ((int)(sizeof(configTable) / sizeof(configTable[0])))

/* The CONFIG GET form of each default, computed once at start-up. */
static sds config_defaults[CONFIG_COUNT];

static const configEntry *lookupConfig(const char *name) {
    for (int j = 0; j < CONFIG_COUNT; j++) {
        const configEntry *e = &configTable[j];
        if (!strcasecmp(e->name, name) || (e->alias && !strcasecmp(e->alias, name))) return e;
    }
    return NULL;
}

static int configIndex(const configEntry *e) { return (int)(e - configTable); }

/* ---- numbers ---------------------------------------------------------------------- */

static int isUnsignedKind(configKind kind) {
    return kind == CONFIG_UINT || kind == CONFIG_ULONGLONG || kind == CONFIG_ULONG;
}

static int isNumericKind(configKind kind) {
    return kind == CONFIG_INT || kind == CONFIG_LONGLONG || isUnsignedKind(kind);
}

/* Digits 0-7 only, no sign, no overflow. */
static int parseOctal(const char *s, unsigned long long *out) {
    unsigned long long v = 0;
    if (*s == '\0') return 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '7' || v > (ULLONG_MAX >> 3)) return 0;
        v = (v << 3) | (unsigned long long)(*s - '0');
    }
    *out = v;
    return 1;
}

/* memtoull(), except that a size without digits ("" or "kb") is 0, as Redis
 * reads it. */
static unsigned long long configMemtoull(const char *s, int *err) {
    if (*s >= '0' && *s <= '9') return memtoull(s, err);
    sds padded = sdscat(sdsnew("0"), s);
    unsigned long long v = memtoull(padded, err);
    sdsfree(padded);
    return v;
}

/* What strtoll() accepts (a sign, leading zeros), but the whole string must
 * be a number and fit: Redis reads save points and output-buffer seconds
 * this way. */
static int parseLenientLongLong(const char *s, long long *out) {
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE) return 0;
    *out = v;
    return 1;
}

static sds outOfRangeError(const configEntry *e) {
    if (e->flags & CF_OCTAL)
        return sdscatprintf(sdsempty(), "argument must be between %llo and %llo inclusive", e->umin, e->umax);
    if (isUnsignedKind(e->kind))
        return sdscatprintf(sdsempty(), "argument must be between %llu and %llu inclusive", e->umin, e->umax);
    return sdscatprintf(sdsempty(), "argument must be between %lld and %lld inclusive", e->min, e->max);
}

static int parseUnsignedValue(const configEntry *e, const char *s, unsigned long long *out, sds *err) {
    unsigned long long v;
    long long negative;
    int memerr = 0;
    if (e->flags & CF_MEMORY) {
        v = configMemtoull(s, &memerr);
        if (memerr) {
            *err = sdsnew("argument must be a memory value");
            return C_ERR;
        }
    } else if (e->flags & CF_OCTAL) {
        if (!parseOctal(s, &v)) {
            *err = sdsnew("argument couldn't be parsed as an octal number");
            return C_ERR;
        }
    } else if (!string2ull(s, strlen(s), &v)) {
        int is_number = string2ll(s, strlen(s), &negative);
        *err = is_number ? outOfRangeError(e) : sdsnew("argument couldn't be parsed into an integer");
        return C_ERR;
    }
    if (v < e->umin || v > e->umax) {
        *err = outOfRangeError(e);
        return C_ERR;
    }
    *out = v;
    return C_OK;
}

static int parseSignedValue(const configEntry *e, const char *s, long long *out, sds *err) {
    long long v;
    if (e->flags & CF_MEMORY) {
        int memerr = 0;
        unsigned long long u = configMemtoull(s, &memerr);
        if (memerr) {
            *err = sdsnew("argument must be a memory value");
            return C_ERR;
        }
        if (u > (unsigned long long)LLONG_MAX) {
            *err = outOfRangeError(e);
            return C_ERR;
        }
        v = (long long)u;
    } else if (!string2ll(s, strlen(s), &v)) {
        *err = sdsnew("argument couldn't be parsed into an integer");
        return C_ERR;
    }
    if (v < e->min || v > e->max) {
        *err = outOfRangeError(e);
        return C_ERR;
    }
    *out = v;
    return C_OK;
}

/* The table's bounds keep every value inside its field's type. */
static int setNumeric(const configEntry *e, const char *s, sds *err) {
    if (isUnsignedKind(e->kind)) {
        unsigned long long v;
        if (parseUnsignedValue(e, s, &v, err) != C_OK) return C_ERR;
        if (e->kind == CONFIG_UINT) *e->field.u = (unsigned int)v;
        else if (e->kind == CONFIG_ULONG) *e->field.ul = (unsigned long)v;
        else *e->field.ull = v;
        return C_OK;
    }
    long long v;
    if (parseSignedValue(e, s, &v, err) != C_OK) return C_ERR;
    if (e->kind == CONFIG_INT) *e->field.i = (int)v;
    else *e->field.ll = v;
    return C_OK;
}

static unsigned long long getUnsigned(const configEntry *e) {
    if (e->kind == CONFIG_UINT) return *e->field.u;
    if (e->kind == CONFIG_ULONG) return *e->field.ul;
    return *e->field.ull;
}

static long long getSigned(const configEntry *e) {
    return e->kind == CONFIG_INT ? *e->field.i : *e->field.ll;
}

static sds catNumeric(sds out, const configEntry *e) {
    if (e->flags & CF_OCTAL) return sdscatprintf(out, "%llo", getUnsigned(e));
    if (isUnsignedKind(e->kind)) return sdscatprintf(out, "%llu", getUnsigned(e));
    return sdscatprintf(out, "%lld", getSigned(e));
}

/* 1073741824 -> "1gb", 3072 -> "3kb", 1000 -> "1000": the largest binary
 * unit that divides the value exactly, so it reads back unchanged. */
static sds catMemory(sds out, unsigned long long bytes) {
    static const struct { const char *unit; unsigned long long size; } units[] = {
        {"gb", 1024ULL * 1024 * 1024}, {"mb", 1024ULL * 1024}, {"kb", 1024ULL}};
    for (size_t j = 0; bytes && j < sizeof(units) / sizeof(units[0]); j++) {
        if (bytes % units[j].size == 0) return sdscatprintf(out, "%llu%s", bytes / units[j].size, units[j].unit);
    }
    return sdscatprintf(out, "%llu", bytes);
}

/* ---- bool, enum, string ---------------------------------------------------------- */

static int setBool(const configEntry *e, const char *s, sds *err) {
    if (!strcasecmp(s, "yes")) *e->field.i = 1;
    else if (!strcasecmp(s, "no")) *e->field.i = 0;
    else {
        *err = sdsnew("argument must be 'yes' or 'no'");
        return C_ERR;
    }
    return C_OK;
}

static int setEnum(const configEntry *e, const char *s, sds *err) {
    for (const configEnumItem *item = e->enum_items; item->name; item++) {
        if (!strcasecmp(s, item->name)) {
            *e->field.i = item->value;
            return C_OK;
        }
    }
    *err = sdsnew("argument(s) must be one of the following: ");
    for (const configEnumItem *item = e->enum_items; item->name; item++)
        *err = sdscatprintf(*err, "%s%s", item->name, item[1].name ? ", " : "");
    return C_ERR;
}

static const char *enumName(const configEntry *e) {
    for (const configEnumItem *item = e->enum_items; item->name; item++)
        if (item->value == *e->field.i) return item->name;
    return "";
}

static int setString(const configEntry *e, const char *s, sds *err) {
    if (e->validate && e->validate(s, err) != C_OK) return C_ERR;
    char *old = *e->field.str;
    *e->field.str = (s[0] == '\0' && (e->flags & CF_EMPTY_IS_NULL)) ? NULL : zstrdup(s);
    zfree(old);
    return C_OK;
}

/* ---- one value in, one value out ---------------------------------------------------- */

/* Sets entry e from the words after the directive. */
static int configSetArgs(const configEntry *e, sds *argv, int argc, int accumulate, sds *err) {
    if (e->kind == CONFIG_SPECIAL) return e->special->set(argv, argc, accumulate, err);
    if (argc != 1) {
        *err = sdsnew("wrong number of arguments");
        return C_ERR;
    }
    switch (e->kind) {
    case CONFIG_BOOL: return setBool(e, argv[0], err);
    case CONFIG_ENUM: return setEnum(e, argv[0], err);
    case CONFIG_STRING: return setString(e, argv[0], err);
    default: return setNumeric(e, argv[0], err);
    }
}

/* Sets entry e from one CONFIG SET style string ("a b c" for multi-word).
 * Binary-safe: requirepass may hold any bytes, NUL included. */
static int configSetString(const configEntry *e, const char *value, size_t len, sds *err) {
    if (!(e->flags & CF_MULTI_ARG)) {
        sds arg = sdsnewlen(value, len);
        int res = configSetArgs(e, &arg, 1, 0, err);
        sdsfree(arg);
        return res;
    }
    int argc = 0;
    sds *argv = sdssplitlen(value, (ssize_t)len, " ", 1, &argc);
    int res = configSetArgs(e, argv, argc, 0, err);
    sdsfreesplitres(argv, argc);
    return res;
}

/* The CONFIG GET form of the current value. */
static sds configGetValue(const configEntry *e) {
    sds out = sdsempty();
    switch (e->kind) {
    case CONFIG_BOOL: return sdscat(out, *e->field.i ? "yes" : "no");
    case CONFIG_ENUM: return sdscat(out, enumName(e));
    case CONFIG_STRING: return sdscat(out, *e->field.str ? *e->field.str : "");
    case CONFIG_SPECIAL: return e->special->get(out);
    default: return catNumeric(out, e);
    }
}

/* ---- special: bind ----------------------------------------------------------------- */

static void freeBindAddresses(void) {
    for (int j = 0; j < server.bindaddr_count; j++) {
        zfree(server.bindaddr[j]);
        server.bindaddr[j] = NULL;
    }
    server.bindaddr_count = 0;
}

static int setBind(sds *argv, int argc, int accumulate, sds *err) {
    (void)accumulate;
    if (argc == 1 && sdslen(argv[0]) == 0) argc = 0; /* bind "" : no TCP listener */
    if (argc > CONFIG_BINDADDR_MAX) {
        *err = sdsnew("Too many bind addresses specified.");
        return C_ERR;
    }
    freeBindAddresses();
    for (int j = 0; j < argc; j++) server.bindaddr[j] = zstrdup(argv[j]);
    server.bindaddr_count = argc;
    return C_OK;
}

static sds getBind(sds out) {
    for (int j = 0; j < server.bindaddr_count; j++)
        out = sdscatprintf(out, "%s%s", j ? " " : "", server.bindaddr[j]);
    return out;
}

static int rewriteBind(const char *name, sds **lines) {
    sds line = sdscatprintf(sdsempty(), "%s ", name);
    line = server.bindaddr_count ? getBind(line) : sdscat(line, "\"\"");
    *lines = zmalloc(sizeof(sds));
    (*lines)[0] = line;
    return 1;
}

/* ---- special: save ------------------------------------------------------------------ */

static int parseSavePoint(const char *seconds, const char *changes, struct saveparam *out) {
    long long secs, chg;
    if (!parseLenientLongLong(seconds, &secs) || secs < 1 || (long long)(time_t)secs != secs) return 0;
    if (!parseLenientLongLong(changes, &chg) || chg < 0 || chg > INT_MAX) return 0;
    out->seconds = (time_t)secs;
    out->changes = (int)chg;
    return 1;
}

/* In a file, the first `save` line replaces the defaults and later ones add
 * points; `save ""` (also `--save ""` after a file) empties the list so far;
 * CONFIG SET replaces the whole list. */
static int setSave(sds *argv, int argc, int accumulate, sds *err) {
    if (argc == 1 && sdslen(argv[0]) == 0) argc = 0; /* save "" : no snapshots */
    if (argc % 2) {
        *err = sdsnew("Invalid save parameters");
        return C_ERR;
    }
    struct saveparam *points = zmalloc(sizeof(*points) * (size_t)(argc / 2 + 1));
    for (int j = 0; j < argc; j += 2) {
        if (!parseSavePoint(argv[j], argv[j + 1], &points[j / 2])) {
            zfree(points);
            *err = sdsnew("Invalid save parameters");
            return C_ERR;
        }
    }
    int kept = accumulate && argc > 0 ? server.saveparamslen : 0;
    server.saveparams = zrealloc(server.saveparams, sizeof(*points) * (size_t)(kept + argc / 2 + 1));
    memcpy(server.saveparams + kept, points, sizeof(*points) * (size_t)(argc / 2));
    server.saveparamslen = kept + argc / 2;
    zfree(points);
    return C_OK;
}

static sds getSave(sds out) {
    for (int j = 0; j < server.saveparamslen; j++)
        out = sdscatprintf(out, "%s%lld %d", j ? " " : "", (long long)server.saveparams[j].seconds,
                           server.saveparams[j].changes);
    return out;
}

static int rewriteSave(const char *name, sds **lines) {
    sds line = sdscatprintf(sdsempty(), "%s ", name);
    line = server.saveparamslen ? getSave(line) : sdscat(line, "\"\"");
    *lines = zmalloc(sizeof(sds));
    (*lines)[0] = line;
    return 1;
}

/* ---- special: client-output-buffer-limit ------------------------------------------------- */

/* Listed in the order CONFIG GET prints them; the name CONFIG GET uses comes
 * first, the other spellings after. */
static const struct {
    const char *name;
    int type;
} obuf_classes[] = {
    {"normal", CLIENT_TYPE_NORMAL}, {"slave", CLIENT_TYPE_REPLICA}, {"pubsub", CLIENT_TYPE_PUBSUB},
    {"replica", CLIENT_TYPE_REPLICA}};
#define OBUF_PRINTED_CLASSES 3

static int obufClassByName(const char *name) {
    for (size_t j = 0; j < sizeof(obuf_classes) / sizeof(obuf_classes[0]); j++)
        if (!strcasecmp(name, obuf_classes[j].name)) return obuf_classes[j].type;
    return -1;
}

static int parseObufLimit(sds *words, clientBufferLimitsConfig *out) {
    int hard_err = 0, soft_err = 0;
    long long seconds;
    out->hard_limit_bytes = configMemtoull(words[0], &hard_err);
    out->soft_limit_bytes = configMemtoull(words[1], &soft_err);
    if (hard_err || soft_err) return 0;
    if (!parseLenientLongLong(words[2], &seconds) || seconds < 0) return 0;
    if ((long long)(time_t)seconds != seconds) return 0;
    out->soft_limit_seconds = (time_t)seconds;
    return 1;
}

/* "class hard soft seconds" groups; classes not named keep their limits. */
static int setOutputBufferLimits(sds *argv, int argc, int accumulate, sds *err) {
    (void)accumulate;
    clientBufferLimitsConfig next[CLIENT_TYPE_OBUF_COUNT];
    memcpy(next, server.client_obuf_limits, sizeof(next));
    if (argc % 4) {
        *err = sdsnew("Wrong number of arguments in buffer limit configuration.");
        return C_ERR;
    }
    for (int j = 0; j < argc; j += 4) {
        int type = obufClassByName(argv[j]);
        if (type == -1) {
            *err = sdsnew("Invalid client class specified in buffer limit configuration.");
            return C_ERR;
        }
        if (!parseObufLimit(argv + j + 1, &next[type])) {
            *err = sdsnew("Error in hard, soft or soft_seconds setting in buffer limit configuration.");
            return C_ERR;
        }
    }
    memcpy(server.client_obuf_limits, next, sizeof(next));
    return C_OK;
}

static sds getOutputBufferLimits(sds out) {
    for (int j = 0; j < OBUF_PRINTED_CLASSES; j++) {
        clientBufferLimitsConfig *l = &server.client_obuf_limits[obuf_classes[j].type];
        out = sdscatprintf(out, "%s%s %llu %llu %lld", j ? " " : "", obuf_classes[j].name, l->hard_limit_bytes,
                           l->soft_limit_bytes, (long long)l->soft_limit_seconds);
    }
    return out;
}

static int rewriteOutputBufferLimits(const char *name, sds **lines) {
    static const struct { const char *name; int type; } order[] = {
        {"normal", CLIENT_TYPE_NORMAL}, {"replica", CLIENT_TYPE_REPLICA}, {"pubsub", CLIENT_TYPE_PUBSUB}};
    int count = (int)(sizeof(order) / sizeof(order[0]));
    *lines = zmalloc(sizeof(sds) * (size_t)count);
    for (int j = 0; j < count; j++) {
        clientBufferLimitsConfig *l = &server.client_obuf_limits[order[j].type];
        sds line = sdscatprintf(sdsempty(), "%s %s ", name, order[j].name);
        line = catMemory(line, l->hard_limit_bytes);
        line = sdscat(line, " ");
        line = catMemory(line, l->soft_limit_bytes);
        (*lines)[j] = sdscatprintf(line, " %lld", (long long)l->soft_limit_seconds);
    }
    return count;
}

/* ---- special: notify-keyspace-events ------------------------------------------------------ */

#define NOTIFY_ALL_TYPES \
    (NOTIFY_GENERIC | NOTIFY_STRING | NOTIFY_LIST | NOTIFY_SET | NOTIFY_HASH | NOTIFY_ZSET | NOTIFY_EXPIRED | \
     NOTIFY_EVICTED | NOTIFY_STREAM | NOTIFY_MODULE)

/* In the order the flags are printed back ('A' stands for all the types). */
static const struct {
    char letter;
    int flag;
} notify_letters[] = {
    {'g', NOTIFY_GENERIC}, {'$', NOTIFY_STRING}, {'l', NOTIFY_LIST},    {'s', NOTIFY_SET},
    {'h', NOTIFY_HASH},    {'z', NOTIFY_ZSET},   {'x', NOTIFY_EXPIRED}, {'e', NOTIFY_EVICTED},
    {'t', NOTIFY_STREAM},  {'d', NOTIFY_MODULE}, {'n', NOTIFY_NEW},     {'K', NOTIFY_KEYSPACE},
    {'E', NOTIFY_KEYEVENT}, {'m', NOTIFY_KEY_MISS}};
#define NOTIFY_LETTER_COUNT ((int)(sizeof(notify_letters) / sizeof(notify_letters[0])))

static int notifyFlagOfLetter(char c) {
    if (c == 'A') return NOTIFY_ALL_TYPES;
    for (int j = 0; j < NOTIFY_LETTER_COUNT; j++)
        if (notify_letters[j].letter == c) return notify_letters[j].flag;
    return 0;
}

static int setNotifyKeyspaceEvents(sds *argv, int argc, int accumulate, sds *err) {
    (void)accumulate;
    if (argc != 1) {
        *err = sdsnew("wrong number of arguments");
        return C_ERR;
    }
    int flags = 0;
    for (size_t j = 0; j < sdslen(argv[0]); j++) {
        int flag = notifyFlagOfLetter(argv[0][j]);
        if (flag == 0) {
            *err = sdsnew("Invalid event class character. Use 'Ag$lshzxeKEtmdn'.");
            return C_ERR;
        }
        flags |= flag;
    }
    server.notify_keyspace_events = flags;
    return C_OK;
}

static sds getNotifyKeyspaceEvents(sds out) {
    int flags = server.notify_keyspace_events;
    int all = (flags & NOTIFY_ALL_TYPES) == NOTIFY_ALL_TYPES;
    if (all) out = sdscat(out, "A");
    for (int j = 0; j < NOTIFY_LETTER_COUNT; j++) {
        int flag = notify_letters[j].flag;
        if (all && (flag & NOTIFY_ALL_TYPES)) continue;
        if (flags & flag) out = sdscatlen(out, &notify_letters[j].letter, 1);
    }
    return out;
}

/* ---- special: dir (the working directory is the value) -------------------------------- */

static void refreshServerDir(void) {
    char cwd[4096];
    if (getcwd(cwd, sizeof cwd) == NULL) return;
    zfree(server.dir);
    server.dir = zstrdup(cwd);
}

/* ---- port and bind: new TCP listeners at once (Redis's error texts) ---------------------- */

static int reopenListeners(const char *failure, sds *err) {
    if (server.el == NULL) return C_OK; /* start-up: initServer() listens */
    if (restartTcpListeners() == C_OK) return C_OK;
    *err = sdsnew(failure);
    return C_ERR;
}

/* unixsocketgroup (Redis 7.2's directive): CONFIG SET gives the open socket
 * to the new group at once ("": back to our own group). */
static int applyUnixsocketgroup(sds *err) {
    char anet_err[ANET_ERR_LEN];
    if (server.unixsocket == NULL || server.sofd == -1) return C_OK;
    if (anetUnixSetGroup(anet_err, server.unixsocket, server.unixsocketgroup) == ANET_OK) return C_OK;
    *err = sdsnew(anet_err);
    return C_ERR;
}

static int applyPort(sds *err) { return reopenListeners("Unable to listen on this port. Check server logs.", err); }
static int applyBind(sds *err) { return reopenListeners("Failed to bind to specified addresses.", err); }

/* ---- special: requirepass (any bytes, kept as an sds; "" is no password) ---------------- */

/* A password config: any bytes, NUL included, kept as an sds; "" is none (NULL). */
static int setPassword(sds *target, sds *argv, int argc, sds *err) {
    if (argc != 1) {
        *err = sdsnew("wrong number of arguments");
        return C_ERR;
    }
    sdsfree(*target);
    *target = sdslen(argv[0]) ? sdsdup(argv[0]) : NULL;
    return C_OK;
}

static int setRequirepass(sds *argv, int argc, int accumulate, sds *err) {
    (void)accumulate;
    if (setPassword(&server.requirepass, argv, argc, err) != C_OK) return C_ERR;
    aclUpdateDefaultUserPassword(); /* the default user's password is requirepass */
    return C_OK;
}

static sds getRequirepass(sds out) { return server.requirepass ? sdscatsds(out, server.requirepass) : out; }

/* masterauth: the same kind of value, sent to the primary by replica.c. */
static int setMasterauth(sds *argv, int argc, int accumulate, sds *err) {
    (void)accumulate;
    return setPassword(&server.masterauth, argv, argc, err);
}

static sds getMasterauth(sds out) { return server.masterauth ? sdscatsds(out, server.masterauth) : out; }

static int setDir(sds *argv, int argc, int accumulate, sds *err) {
    (void)accumulate;
    if (argc != 1) {
        *err = sdsnew("wrong number of arguments");
        return C_ERR;
    }
    if (chdir(argv[0]) == -1) {
        *err = sdsnew(strerror(errno));
        return C_ERR;
    }
    refreshServerDir();
    return C_OK;
}

static sds getDir(sds out) {
    char cwd[4096];
    if (getcwd(cwd, sizeof cwd) != NULL) return sdscat(out, cwd);
    return sdscat(out, server.dir ? server.dir : "");
}

/* ---- special: shutdown-on-sigterm, shutdown-on-sigint ---------------------------------------- */

/* The SHUTDOWN flags a signal shuts down with: "default" (none) or any of
 * save, nosave, now, force, as Redis 7 takes them. */
static const struct {
    const char *name;
    int flag;
} shutdown_flag_names[] = {
    {"default", 0}, {"save", SHUTDOWN_SAVE}, {"nosave", SHUTDOWN_NOSAVE}, {"now", SHUTDOWN_NOW}, {"force", SHUTDOWN_FORCE},
};
#define SHUTDOWN_FLAG_NAMES (sizeof shutdown_flag_names / sizeof shutdown_flag_names[0])

static int shutdownFlagByName(const char *name) {
    for (size_t k = 0; k < SHUTDOWN_FLAG_NAMES; k++)
        if (!strcasecmp(name, shutdown_flag_names[k].name)) return shutdown_flag_names[k].flag;
    return -1;
}

static int parseShutdownFlags(sds *argv, int argc, int *out, sds *err) {
    int flags = 0;
    for (int j = 0; j < argc; j++) {
        int flag = shutdownFlagByName(argv[j]);
        if (flag == -1) argc = 0; /* reported below */
        else flags |= flag;
    }
    if (argc == 0) {
        *err = sdsnew("argument(s) must be one of the following: default, save, nosave, now, force");
        return C_ERR;
    }
    if ((flags & SHUTDOWN_SAVE) && (flags & SHUTDOWN_NOSAVE)) {
        *err = sdsnew("shutdown options SAVE and NOSAVE can't be used simultaneously");
        return C_ERR;
    }
    *out = flags;
    return C_OK;
}

static sds catShutdownFlags(sds out, int flags) {
    if (flags == 0) return sdscat(out, "default");
    int first = 1;
    for (size_t k = 1; k < SHUTDOWN_FLAG_NAMES; k++) {
        if (!(flags & shutdown_flag_names[k].flag)) continue;
        out = sdscatfmt(out, "%s%s", first ? "" : " ", shutdown_flag_names[k].name);
        first = 0;
    }
    return out;
}

static int setShutdownOnSigterm(sds *argv, int argc, int accumulate, sds *err) {
    (void)accumulate;
    return parseShutdownFlags(argv, argc, &server.shutdown_on_sigterm, err);
}
static sds getShutdownOnSigterm(sds out) { return catShutdownFlags(out, server.shutdown_on_sigterm); }
static int setShutdownOnSigint(sds *argv, int argc, int accumulate, sds *err) {
    (void)accumulate;
    return parseShutdownFlags(argv, argc, &server.shutdown_on_sigint, err);
}
static sds getShutdownOnSigint(sds out) { return catShutdownFlags(out, server.shutdown_on_sigint); }

/* ---- special: oom-score-adj-values (three scores: main, replica, bgchild) ------------------ */

static int setOomScoreAdjValues(sds *argv, int argc, int accumulate, sds *err) {
    (void)accumulate;
    int values[OOM_CLASS_COUNT];
    if (argc != OOM_CLASS_COUNT) {
        *err = sdsnew("wrong number of arguments");
        return C_ERR;
    }
    for (int j = 0; j < OOM_CLASS_COUNT; j++) {
        long long v;
        if (!parseLenientLongLong(argv[j], &v) || v < -2000 || v > 2000) {
            *err = sdsnew("Invalid oom-score-adj-values, elements must be between -2000 and 2000.");
            return C_ERR;
        }
        values[j] = (int)v;
    }
    memcpy(server.oom_score_adj_values, values, sizeof values);
    return C_OK;
}

static sds getOomScoreAdjValues(sds out) {
    for (int j = 0; j < OOM_CLASS_COUNT; j++)
        out = sdscatprintf(out, j ? " %d" : "%d", server.oom_score_adj_values[j]);
    return out;
}

static int rewriteOomScoreAdjValues(const char *name, sds **lines) {
    *lines = zmalloc(sizeof(sds));
    (*lines)[0] = getOomScoreAdjValues(sdscatprintf(sdsempty(), "%s ", name));
    return 1;
}

/* ---- validators -------------------------------------------------------------------------- */

static int isBaseName(const char *s) { return strchr(s, '/') == NULL && strchr(s, '\\') == NULL; }

/* Turning the AOF on or off at run time (at start-up aofInit() does it). */
static int applyAppendonly(sds *err) {
    if (server.el == NULL) return C_OK;
    return aofSetEnabled(server.aof_enabled, err);
}

static int validateDbfilename(const char *value, sds *err) {
    if (value[0] == '\0') *err = sdsnew("dbfilename can't be empty");
    else if (!isBaseName(value)) *err = sdsnew("dbfilename can't be a path, just a filename");
    else return C_OK;
    return C_ERR;
}

static int validateAofFilename(const char *value, sds *err) {
    if (value[0] == '\0') *err = sdsnew("appendfilename can't be empty");
    else if (!isBaseName(value)) *err = sdsnew("appendfilename can't be a path, just a filename");
    else return C_OK;
    return C_ERR;
}

static int validateAofDirname(const char *value, sds *err) {
    if (value[0] == '\0') *err = sdsnew("appenddirname can't be empty");
    else if (!isBaseName(value)) *err = sdsnew("appenddirname can't be a path, just a dirname");
    else return C_OK;
    return C_ERR;
}

/* ---- apply functions (also run once after the config is loaded) --------------------- */

/* hz accepts any non-negative number and is clamped to what the cron can do. */
static int applyHz(sds *err) {
    (void)err;
    if (server.config_hz < CONFIG_MIN_HZ) server.config_hz = CONFIG_MIN_HZ;
    if (server.config_hz > CONFIG_MAX_HZ) server.config_hz = CONFIG_MAX_HZ;
    server.hz = server.config_hz;
    return C_OK;
}

/* oom-score-adj and its values: the main process follows at once (at
 * start-up server.c applies them once the server is set up). */
static int applyOomScoreAdj(sds *err) {
    if (server.el == NULL) return C_OK;
    if (oomScoreApplyServer() == C_OK) return C_OK;
    *err = sdsnew("Failed to set current oom_score_adj. Check server logs.");
    return C_ERR;
}

/* jemalloc's background purging thread. Only once the server runs: a
 * thread started before daemonize()'s fork would not survive it. */
static int applyJemallocBgThread(sds *err) {
    (void)err;
    if (server.el != NULL) zmalloc_set_background_thread(server.jemalloc_bg_thread);
    return C_OK;
}

/* Hands event-loop-spin-us to the loop (server.c calls it once the loop
 * exists). Never on a single-CPU machine: there the spin would only keep the
 * client it waits for off the CPU. */
void configApplyEventLoopSpin(void) {
    static long cpus = 0;
    if (cpus == 0) cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (server.el != NULL) aeSetSpinBudget(server.el, cpus > 1 ? server.event_loop_spin_us : 0);
}

static int applyEventLoopSpin(sds *err) {
    (void)err;
    configApplyEventLoopSpin();
    return C_OK;
}

/* The watchdog follows CONFIG SET at once; at start-up the first
 * serverCron() tick arms it (a long load before the loop runs is no stall). */
static int applyWatchdogPeriod(sds *err) {
    (void)err;
    if (server.el != NULL) watchdogSchedule();
    return C_OK;
}

/* At start-up openfiles.c fits maxclients to the open-files limit and
 * server.c sizes the event loop from it; at runtime the file limit and the
 * loop are grown (or shrunk) to match. */
static int applyMaxclients(sds *err) {
    if (server.el == NULL) return C_OK;
    const unsigned int extra = CONFIG_MIN_RESERVED_FDS + 96;
    if (server.maxclients > (unsigned int)INT_MAX - extra) {
        *err = sdsnew("The event loop API used by Redis is not able to handle the specified number of clients");
        return C_ERR;
    }
    rlim_t needed = (rlim_t)server.maxclients + CONFIG_MIN_RESERVED_FDS;
    rlim_t got = openFilesRaiseLimit(needed);
    if (got < needed) {
        long long can = got > CONFIG_MIN_RESERVED_FDS ? (long long)got - CONFIG_MIN_RESERVED_FDS : 1;
        *err = sdscatprintf(sdsempty(),
                            "The operating system is not able to handle the specified number of clients, "
                            "try with %lld", can);
        return C_ERR;
    }
    if (aeResizeSetSize(server.el, (int)(server.maxclients + extra)) == AE_ERR) {
        *err = sdsnew("The event loop API used by Redis is not able to handle the specified number of clients");
        return C_ERR;
    }
    return C_OK;
}

/* CONFIG SET repl-backlog-size: at least 16 KB, and the ring takes the new
 * size at once (keeping its newest bytes), as Redis 7.0's
 * resizeReplicationBacklog: a replica behind what is kept syncs in full.
 * The file's value is taken as it is (Redis clamps only on CONFIG SET). */
static int applyReplBacklogSize(sds *err) {
    (void)err;
    if (server.el == NULL) return C_OK;
    if (server.repl_backlog_size < REPL_BACKLOG_MIN_SIZE) server.repl_backlog_size = REPL_BACKLOG_MIN_SIZE;
    replicationResizeBacklog();
    return C_OK;
}

static int applyMaxmemory(sds *err) {
    unsigned long long addressable = evictAddressSpaceLimit();
    if (server.maxmemory > addressable) {
        /* A 32-bit process (or one under RLIMIT_AS) could never use it. */
        *err = sdscatprintf(sdsempty(), "maxmemory is larger than this %d-bit process can address (%llu bytes)",
                            SIZEOF_POINTER_BITS, addressable);
        return C_ERR;
    }
    if (server.el == NULL || server.maxmemory == 0) return C_OK;
    size_t all = zmalloc_used_memory(), excluded = memoryNotCountedForEviction();
    size_t used = all > excluded ? all - excluded : 0;
    if (server.maxmemory < used)
        serverLog(LL_WARNING,
                  "WARNING: the new maxmemory value set via CONFIG SET (%llu) is smaller than the current memory "
                  "usage (%zu). This will result in key eviction and/or the inability to accept new write "
                  "commands depending on the maxmemory-policy.",
                  server.maxmemory, used);
    evictSoon();
    return C_OK;
}

/* Opening the log file later can't stop the server, so try it now. */
static int applyLogfile(sds *err) {
    if (server.logfile == NULL || server.logfile[0] == '\0') return C_OK;
    FILE *fp = fopen(server.logfile, "a");
    if (fp == NULL) {
        *err = sdscatprintf(sdsempty(), "Can't open the log file: %s", strerror(errno));
        return C_ERR;
    }
    fclose(fp);
    return C_OK;
}

/* "" means the environment's locale; a bad environment is not an error. */
static int applyLocaleCollate(sds *err) {
    const char *name = server.locale_collate ? server.locale_collate : "";
    if (setlocale(LC_COLLATE, name) == NULL && name[0] != '\0') {
        *err = sdsnew("Invalid locale name");
        return C_ERR;
    }
    return C_OK;
}

typedef int configApplyFn(sds *err);

/* Runs every distinct apply function of the table once, in table order;
 * *failed (when not NULL) names the one that refused. */
static int applyAll(sds *err, configApplyFn **failed) {
    configApplyFn *done[CONFIG_COUNT];
    int ndone = 0;
    for (int j = 0; j < CONFIG_COUNT; j++) {
        configApplyFn *fn = configTable[j].apply;
        int seen = 0;
        for (int k = 0; k < ndone && !seen; k++) seen = done[k] == fn;
        if (fn == NULL || seen) continue;
        done[ndone++] = fn;
        if (fn(err) != C_OK) {
            if (failed) *failed = fn;
            return C_ERR;
        }
    }
    return C_OK;
}

/* ---- defaults ------------------------------------------------------------------------ */

void initConfigValues(void) {
    for (int j = 0; j < CONFIG_COUNT; j++) {
        const configEntry *e = &configTable[j];
        sds err = NULL;
        if (configSetString(e, e->default_value, strlen(e->default_value), &err) != C_OK)
            serverPanic("config table: bad default for '%s': %s", e->name, err);
        sdsfree(config_defaults[j]);
        config_defaults[j] = configGetValue(e);
    }
    server.active_expire_enabled = 1;
    sds err = NULL;
    if (applyAll(&err, NULL) != C_OK) serverPanic("config table: applying the defaults failed: %s", err);
}

/* ---- loading the config file ------------------------------------------------------------ */

#define CONFIG_MAX_INCLUDE_DEPTH 16

typedef struct configLoadError {
    int linenum;      /* 0: not tied to a line */
    sds line;
    sds msg;
    int plain;        /* msg is printed as it is, without the FATAL banner */
} configLoadError;

typedef struct configLoader {
    int depth;                       /* include nesting */
    unsigned char seen[CONFIG_COUNT]; /* set by an earlier line of this load */
    int lastline[CONFIG_COUNT];      /* where each directive was last set, 0: not in this load */
    sds lasttext[CONFIG_COUNT];
    configLoadError error;
} configLoader;

static int loadError(configLoader *l, int linenum, const char *line, sds msg) {
    l->error.linenum = linenum;
    l->error.line = line ? sdsnew(line) : NULL;
    l->error.msg = msg;
    return C_ERR;
}

/* Appends the whole file to *text; on failure returns C_ERR with errno set. */
static int readWholeFile(const char *path, sds *text) {
    FILE *fp = fopen(path, "r");
    if (fp == NULL) return C_ERR;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, fp)) > 0) *text = sdscatlen(*text, buf, n);
    int failed = ferror(fp);
    int saved = errno;
    fclose(fp);
    errno = saved;
    return failed ? C_ERR : C_OK;
}

static int readFileOrFail(configLoader *l, const char *path, sds *text) {
    if (readWholeFile(path, text) == C_OK) return C_OK;
    l->error.plain = 1;
    return loadError(l, 0, NULL, sdscatprintf(sdsempty(), "Fatal error, can't open config file '%s': %s", path,
                                              strerror(errno)));
}

/* A name with glob characters reads every matching file, in sorted order
 * (none is fine); a plain name must exist. */
static int readConfigSource(configLoader *l, const char *name, sds *text) {
    if (strpbrk(name, "*?[") == NULL) return readFileOrFail(l, name, text);
    glob_t matches;
    if (glob(name, 0, NULL, &matches) != 0) return C_OK;
    int res = C_OK;
    for (size_t j = 0; j < matches.gl_pathc && res == C_OK; j++) {
        res = readFileOrFail(l, matches.gl_pathv[j], text);
        *text = sdscat(*text, "\n");
    }
    globfree(&matches);
    return res;
}

static int loadConfigText(configLoader *l, const char *text);

static int loadInclude(configLoader *l, const char *name, int linenum, const char *line) {
    if (l->depth >= CONFIG_MAX_INCLUDE_DEPTH)
        return loadError(l, linenum, line, sdscatprintf(sdsempty(),
                         "Too many nested includes (the limit is %d)", CONFIG_MAX_INCLUDE_DEPTH));
    sds text = sdsempty();
    int res = readConfigSource(l, name, &text);
    if (res == C_OK) {
        l->depth++;
        res = loadConfigText(l, text);
        l->depth--;
    }
    sdsfree(text);
    return res;
}

/* Sets a directive from the words of a line. A multi-word directive given
 * as one non-empty quoted word (--save "60 10" on the command line) is
 * split again, as Redis does. */
static int loadDirectiveArgs(configLoader *l, const configEntry *e, sds *argv, int argc, sds *err) {
    int accumulate = l->seen[configIndex(e)];
    if (!(e->flags & CF_MULTI_ARG) || argc != 1 || sdslen(argv[0]) == 0)
        return configSetArgs(e, argv, argc, accumulate, err);
    int wordc = 0;
    sds *words = sdssplitargs(argv[0], &wordc);
    if (words == NULL) {
        *err = sdsnew("Unbalanced quotes in configuration line");
        return C_ERR;
    }
    int res = configSetArgs(e, words, wordc, accumulate, err);
    sdsfreesplitres(words, wordc);
    return res;
}

/* A build without TLS (BUILD_TLS=no) knows the tls-* directives are TLS's
 * and says so, in the file and to CONFIG SET; NULL for any other name. */
static sds tlsNotBuiltError(const char *name) {
#ifdef USE_OPENSSL
    (void)name;
    return NULL;
#else
    if (strncasecmp(name, "tls-", 4)) return NULL;
    return sdscatprintf(sdsempty(), "%s: TLS support was not compiled in (build with BUILD_TLS=yes, which needs "
                        "OpenSSL: libssl-dev)", name);
#endif
}

static sds unknownDirectiveError(const char *name) {
    sds no_tls = tlsNotBuiltError(name);
    if (no_tls) return no_tls;
    return sdsnew("Bad directive or wrong number of arguments");
}

/* One directive line, already split; argv[0] is lower case. */
static int loadDirective(configLoader *l, sds *argv, int argc, int linenum, const char *line) {
    if (!strcmp(argv[0], "include") && argc == 2) return loadInclude(l, argv[1], linenum, line);
    sds acl_err = NULL;
    if (!strcmp(argv[0], "user") && aclConfigUserLine(argv, argc, &acl_err) != C_OK)
        return loadError(l, linenum, line, acl_err);
    if (!strcmp(argv[0], "rename-command") && aclConfigRenameCommand(argv, argc, &acl_err) != C_OK)
        return loadError(l, linenum, line, acl_err);
    if (!strcmp(argv[0], "user") || !strcmp(argv[0], "rename-command")) return C_OK;
    if (!strcmp(argv[0], "loadmodule")) {
        sds mod_err = NULL;
        if (argc < 2) return loadError(l, linenum, line, sdsnew("Bad directive or wrong number of arguments"));
        if (moduleQueueLoad(argv + 1, argc - 1, &mod_err) != C_OK) return loadError(l, linenum, line, mod_err);
        return C_OK;
    }
    const configEntry *e = lookupConfig(argv[0]);
    if (e == NULL && strchr(argv[0], '.')) { /* a module's: kept until it registers it (module_config.c) */
        sds mod_err = NULL;
        if (moduleConfigQueueLine(argv, argc, &mod_err) != C_OK) return loadError(l, linenum, line, mod_err);
        return C_OK;
    }
    if (e == NULL) return loadError(l, linenum, line, unknownDirectiveError(argv[0]));
    if (!(e->flags & CF_MULTI_ARG) && argc != 2)
        return loadError(l, linenum, line, sdsnew("wrong number of arguments"));
    sds err = NULL;
    if (loadDirectiveArgs(l, e, argv + 1, argc - 1, &err) != C_OK) return loadError(l, linenum, line, err);
    l->seen[configIndex(e)] = 1;
    l->lastline[configIndex(e)] = linenum;
    sdsfree(l->lasttext[configIndex(e)]);
    l->lasttext[configIndex(e)] = sdsnew(line);
    return C_OK;
}

static int loadConfigLine(configLoader *l, sds line, int linenum) {
    line = sdstrim(line, " \t\r\n");
    if (line[0] == '#' || line[0] == '\0') return C_OK;
    int argc = 0;
    sds *argv = sdssplitargs(line, &argc);
    if (argv == NULL) return loadError(l, linenum, line, sdsnew("Unbalanced quotes in configuration line"));
    int res = C_OK;
    if (argc > 0) {
        sdstolower(argv[0]);
        res = loadDirective(l, argv, argc, linenum, line);
    }
    sdsfreesplitres(argv, argc);
    return res;
}

static int loadConfigText(configLoader *l, const char *text) {
    int count = 0;
    sds *lines = sdssplitlen(text, (ssize_t)strlen(text), "\n", 1, &count);
    int res = C_OK;
    for (int j = 0; j < count && res == C_OK; j++) res = loadConfigLine(l, lines[j], j + 1);
    sdsfreesplitres(lines, count);
    return res;
}

/* A loader and all it holds (the fuzz harness frees one per input). */
static void configLoaderFree(configLoader *l) {
    for (int j = 0; j < CONFIG_COUNT; j++) sdsfree(l->lasttext[j]);
    sdsfree(l->error.msg);
    sdsfree(l->error.line);
    zfree(l);
}

static void readStdin(sds *text) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, stdin)) > 0) *text = sdscatlen(*text, buf, n);
}

static void exitWithLoadError(configLoadError *err) {
    if (err->plain) {
        fprintf(stderr, "%s\n", err->msg);
        exit(1);
    }
    fprintf(stderr, "\n*** FATAL CONFIG FILE ERROR (Redis %s) ***\n", REDIS_VERSION);
    if (err->linenum) {
        fprintf(stderr, "Reading the configuration file, at line %d\n", err->linenum);
        fprintf(stderr, ">>> '%s'\n", err->line);
    }
    fprintf(stderr, "%s\n", err->msg);
    exit(1);
}

/* A value every line accepted can still be refused when the directives are
 * applied together after the load (maxmemory beyond a 32-bit address
 * space): the error names the last line that set a directive of the
 * refusing apply function, "at line N" and ">>> '...'" as for any other. */
static void blameLine(configLoader *l, configApplyFn *failed) {
    /* Only checks Redis makes while reading the line; others (the log file
     * can't be opened ...) are reported without one, as Redis does. */
    if (failed != applyMaxmemory && failed != defragApplyConfig) return;
    int best = -1;
    for (int j = 0; j < CONFIG_COUNT; j++) {
        if (configTable[j].apply != failed || l->lastline[j] == 0) continue;
        if (best == -1 || l->lastline[j] > l->lastline[best]) best = j;
    }
    if (best == -1) return;
    l->error.linenum = l->lastline[best];
    l->error.line = sdsdup(l->lasttext[best]);
}

/* The file, then stdin, then the command-line options, read as one text so
 * line numbers in errors count across all three, as in Redis. */
void loadServerConfig(char *filename, char config_from_stdin, char *options) {
    configLoader *l = zcalloc(sizeof(*l));
    sds text = sdsempty();
    if (filename && readConfigSource(l, filename, &text) != C_OK) exitWithLoadError(&l->error);
    if (config_from_stdin) {
        serverLog(LL_WARNING, "Reading config from stdin");
        readStdin(&text);
    }
    if (options) {
        text = sdscat(text, "\n");
        text = sdscat(text, options);
    }
    if (loadConfigText(l, text) != C_OK) exitWithLoadError(&l->error);
    sds err = NULL;
    configApplyFn *failed = NULL;
    if (applyAll(&err, &failed) != C_OK) {
        blameLine(l, failed);
        l->error.msg = err;
        exitWithLoadError(&l->error);
    }
    configLoaderFree(l);
    sdsfree(text);
}

/* ---- CONFIG GET ----------------------------------------------------------------------- */

/* What CONFIG GET will report: each (directive, spelling) at most once,
 * spelling 0 being the name and 1 the alias. */
typedef struct configMatches {
    unsigned char emitted[CONFIG_COUNT][2];
    const char *keys[CONFIG_COUNT * 2];
    const configEntry *entries[CONFIG_COUNT * 2];
    int count;
} configMatches;

static void addMatch(configMatches *m, const configEntry *e, int spelling, const char *key) {
    if (m->emitted[configIndex(e)][spelling]) return;
    m->emitted[configIndex(e)][spelling] = 1;
    m->keys[m->count] = key;
    m->entries[m->count++] = e;
}

/* A plain name finds one directive (or alias) and is echoed as typed. */
static void matchName(configMatches *m, const char *name) {
    const configEntry *e = lookupConfig(name);
    if (e) addMatch(m, e, strcasecmp(name, e->name) != 0, name);
}

/* A glob is matched, case-insensitively, against every name and alias
 * (hidden test-only directives excepted, as in Redis). */
static void matchGlob(configMatches *m, const char *pattern) {
    for (int j = 0; j < CONFIG_COUNT; j++) {
        const configEntry *e = &configTable[j];
        if (e->flags & CF_HIDDEN) continue;
        if (stringmatch(pattern, e->name, 1)) addMatch(m, e, 0, e->name);
        if (e->alias && stringmatch(pattern, e->alias, 1)) addMatch(m, e, 1, e->alias);
    }
}

/* Modules' configs (module_config.c) the same way, after the table's:
 * each at most once, keyed as typed for a plain name. */
static void matchModuleConfigs(list *found, list *keys, const char *pattern) {
    int glob = strpbrk(pattern, "[*?") != NULL;
    moduleConfig *mc;
    for (int j = 0; (mc = moduleConfigAt(j)) != NULL; j++) {
        if (glob && (moduleConfigFlags(mc) & MODULE_CONFIG_F_HIDDEN)) continue;
        if (glob ? !stringmatch(pattern, moduleConfigName(mc), 1) : strcasecmp(pattern, moduleConfigName(mc)))
            continue;
        if (listSearchKey(found, mc)) continue;
        listAddNodeTail(found, mc);
        listAddNodeTail(keys, (void *)(glob ? moduleConfigName(mc) : pattern));
    }
}

void configGetCommand(client *c) {
    configMatches *m = zcalloc(sizeof(*m));
    list *mods = listCreate(), *mod_keys = listCreate();
    for (int i = 2; i < c->argc; i++) {
        const char *pattern = c->argv[i]->ptr;
        if (strpbrk(pattern, "[*?")) matchGlob(m, pattern);
        else matchName(m, pattern);
        matchModuleConfigs(mods, mod_keys, pattern);
    }
    addReplyMapLen(c, m->count + (long)listLength(mods));
    for (int j = 0; j < m->count; j++) {
        addReplyBulkCString(c, m->keys[j]);
        addReplyBulkSds(c, configGetValue(m->entries[j]));
    }
    while (listLength(mods)) {
        addReplyBulkCString(c, listNodeValue(listFirst(mod_keys)));
        addReplyBulkSds(c, moduleConfigGetValue(listNodeValue(listFirst(mods))));
        listDelNode(mods, listFirst(mods));
        listDelNode(mod_keys, listFirst(mod_keys));
    }
    listRelease(mods);
    listRelease(mod_keys);
    zfree(m);
}

/* ---- CONFIG SET -------------------------------------------------------------------------- */

static int clientIsLocal(client *c) {
    if (c->flags & CLIENT_UNIX_SOCKET) return 1;
    return c->conn == NULL || connIsLocal(c->conn) == 1;
}

/* enable-debug-command, enable-module-command, enable-protected-configs:
 * no, yes, or local (a unix socket or a loopback peer). */
int protectedActionAllowed(int setting, client *c) {
    return setting == PROTECTED_ACTION_ALLOWED_YES ||
           (setting == PROTECTED_ACTION_ALLOWED_LOCAL && clientIsLocal(c));
}

/* Sensitive values must not reach the slowlog or MONITOR. */
static void redactSensitiveArguments(client *c) {
    for (int i = 2; i + 1 < c->argc; i += 2) {
        const configEntry *e = lookupConfig(c->argv[i]->ptr);
        moduleConfig *mc = e ? NULL : moduleConfigLookup(c->argv[i]->ptr);
        if (mc ? !(moduleConfigFlags(mc) & MODULE_CONFIG_F_SENSITIVE) : (e == NULL || !(e->flags & CF_SENSITIVE)))
            continue;
        robj *redacted = createStringObject("(redacted)", 10);
        rewriteClientCommandArgument(c, i + 1, redacted);
        decrRefCount(redacted);
    }
}

typedef struct configSetRequest {
    int count;
    const configEntry **entries;
    moduleConfig **mods;  /* a module's config (module_config.c) where entries[i] is NULL */
    sds *values;
    sds *backups;
    configApplyFn **applies;
    int napplies;
    list *mod_applies;    /* module configs whose apply callback runs, once per (callback, privdata) */
} configSetRequest;

/* Why a directive cannot be set: NULL if it can. */
static const char *setRefusal(client *c, int immutable, int protected) {
    if (immutable) return "can't set immutable config";
    if (protected && !protectedActionAllowed(server.enable_protected_configs, c)) return "can't set protected config";
    return NULL;
}

/* Finds the directives; the first unknown, immutable, protected or
 * duplicated one makes the whole request fail. */
static int checkSetRequest(client *c, configSetRequest *r) {
    for (int i = 0; i < r->count; i++) {
        const char *name = c->argv[2 + i * 2]->ptr;
        const configEntry *e = lookupConfig(name);
        moduleConfig *mc = e ? NULL : moduleConfigLookup(name);
        const char *why = NULL;
        sds no_tls = e || mc ? NULL : tlsNotBuiltError(name);
        if (no_tls) {
            addReplyErrorFormat(c, "CONFIG SET failed (possibly related to argument '%s') - %s", name, no_tls);
            sdsfree(no_tls);
            return C_ERR;
        }
        if (e == NULL && mc == NULL) {
            addReplyErrorFormat(c, "Unknown option or number of arguments for CONFIG SET - '%s'", name);
            return C_ERR;
        }
        int mflags = mc ? moduleConfigFlags(mc) : 0;
        if (e) why = setRefusal(c, e->flags & CF_IMMUTABLE, e->flags & CF_PROTECTED);
        else why = setRefusal(c, mflags & MODULE_CONFIG_F_IMMUTABLE, mflags & MODULE_CONFIG_F_PROTECTED);
        for (int j = 0; j < i && why == NULL; j++)
            if (r->entries[j] == e && r->mods[j] == mc) why = "duplicate parameter";
        int deny_loading = e ? (e->flags & CF_DENY_LOADING) != 0 : (mflags & MODULE_CONFIG_F_DENY_LOADING) != 0;
        if (why == NULL && server.loading && deny_loading) {
            addReplyErrorObject(c, shared.loadingerr);
            return C_ERR;
        }
        if (why) {
            addReplyErrorFormat(c, "CONFIG SET failed (possibly related to argument '%s') - %s", name, why);
            return C_ERR;
        }
        r->entries[i] = e;
        r->mods[i] = mc;
        r->values[i] = c->argv[3 + i * 2]->ptr;
    }
    return C_OK;
}

static void addApplyOnce(configSetRequest *r, configApplyFn *fn) {
    if (fn == NULL) return;
    for (int j = 0; j < r->napplies; j++)
        if (r->applies[j] == fn) return;
    r->applies[r->napplies++] = fn;
}

static const char *requestName(configSetRequest *r, int i) {
    return r->mods[i] ? moduleConfigName(r->mods[i]) : r->entries[i]->name;
}

static sds requestGetValue(configSetRequest *r, int i) {
    return r->mods[i] ? moduleConfigGetValue(r->mods[i]) : configGetValue(r->entries[i]);
}

/* Sets pair i to value; *changed when it took a new value. */
static int requestSetValue(configSetRequest *r, int i, sds value, sds *err, int *changed) {
    if (r->mods[i]) return moduleConfigSet(r->mods[i], value, err, changed);
    sds before = configGetValue(r->entries[i]);
    int res = configSetString(r->entries[i], value, sdslen(value), err);
    sds now = res == C_OK ? configGetValue(r->entries[i]) : NULL;
    *changed = now && sdscmp(now, before) != 0;
    sdsfree(before);
    sdsfree(now);
    return res;
}

/* Puts the first n backed-up values back, then re-runs the applies. */
static void restoreBackups(configSetRequest *r, int n, int with_module_applies) {
    for (int i = 0; i < n; i++) {
        sds err = NULL;
        int changed;
        if (requestSetValue(r, i, r->backups[i], &err, &changed) != C_OK) {
            serverLog(LL_WARNING, "Failed restoring failed CONFIG SET command. Error setting %s to '%s': %s",
                      requestName(r, i), r->backups[i], err ? err : "unknown error");
            sdsfree(err);
        }
    }
    for (int j = 0; j < r->napplies; j++) {
        sds err = NULL;
        if (r->applies[j](&err) != C_OK) {
            serverLog(LL_WARNING, "Failed applying restored configuration: %s", err);
            sdsfree(err);
        }
    }
    sds err = NULL;
    if (with_module_applies && moduleConfigRunApplies(r->mod_applies, &err, NULL) != C_OK)
        serverLog(LL_WARNING, "Failed applying restored failed CONFIG SET command: %s", err ? err : "unknown error");
    sdsfree(err);
}

/* `name` as the client spelt it: an alias is named as given, as in Redis.
 * A module's setter or apply callback may fail without saying why. */
static void replySetFailure(client *c, const char *name, sds err) {
    if (err) addReplyErrorFormat(c, "CONFIG SET failed (possibly related to argument '%s') - %s", name, err);
    else addReplyErrorFormat(c, "CONFIG SET failed (possibly related to argument '%s')", name);
    sdsfree(err);
}

/* Sets every pair (remembering whose apply must run), then applies: the
 * server's own applies first, then the modules' (as Redis 7.0). */
static int performSetRequest(client *c, configSetRequest *r) {
    for (int i = 0; i < r->count; i++) r->backups[i] = requestGetValue(r, i);
    for (int i = 0; i < r->count; i++) {
        sds err = NULL;
        int changed = 0;
        if (requestSetValue(r, i, r->values[i], &err, &changed) != C_OK) {
            restoreBackups(r, i, 0);
            replySetFailure(c, r->mods[i] ? requestName(r, i) : c->argv[2 + i * 2]->ptr, err);
            return C_ERR;
        }
        if (changed && r->mods[i]) moduleConfigAddApply(r->mod_applies, r->mods[i]);
        else if (changed) addApplyOnce(r, r->entries[i]->apply);
    }
    for (int j = 0; j < r->napplies; j++) {
        sds err = NULL;
        if (r->applies[j](&err) != C_OK) {
            const configEntry *culprit = NULL;
            for (int i = 0; i < r->count; i++)
                if (r->entries[i] && r->entries[i]->apply == r->applies[j]) culprit = r->entries[i];
            serverLog(LL_WARNING, "Failed applying new configuration. Possibly related to new %s setting. "
                                  "Restoring previous settings.", culprit->name);
            restoreBackups(r, r->count, 0);
            replySetFailure(c, culprit->name, err);
            return C_ERR;
        }
    }
    sds err = NULL;
    const char *culprit = NULL;
    if (moduleConfigRunApplies(r->mod_applies, &err, &culprit) != C_OK) {
        serverLog(LL_WARNING, "Failed applying new module configuration. Restoring previous settings.");
        restoreBackups(r, r->count, 1);
        replySetFailure(c, culprit, err);
        return C_ERR;
    }
    return C_OK;
}

static void setPairs(client *c) {
    configSetRequest r = {.count = (c->argc - 2) / 2};
    r.entries = zcalloc(sizeof(*r.entries) * (size_t)r.count);
    r.mods = zcalloc(sizeof(*r.mods) * (size_t)r.count);
    r.mod_applies = listCreate();
    r.values = zcalloc(sizeof(*r.values) * (size_t)r.count);
    r.backups = zcalloc(sizeof(*r.backups) * (size_t)r.count);
    r.applies = zcalloc(sizeof(*r.applies) * (size_t)r.count);
    if (checkSetRequest(c, &r) == C_OK && performSetRequest(c, &r) == C_OK) {
        if (moduleEventListeners) { /* modules hear the canonical names, as Redis 7.0 gives them */
            const char **names = zmalloc(sizeof(char *) * (size_t)r.count);
            for (int i = 0; i < r.count; i++) names[i] = r.entries[i] ? r.entries[i]->name : moduleConfigName(r.mods[i]);
            moduleFireConfigChange(r.count, names);
            zfree(names);
        }
        addReply(c, shared.ok);
    }
    for (int i = 0; i < r.count; i++) sdsfree(r.backups[i]);
    zfree(r.entries);
    zfree(r.mods);
    listRelease(r.mod_applies);
    zfree(r.values);
    zfree(r.backups);
    zfree(r.applies);
}

void configSetCommand(client *c) {
    if (c->argc % 2) addReplyErrorObject(c, shared.syntaxerr);
    else setPairs(c);
    redactSensitiveArguments(c); /* after use: argv held the values */
}

/* ---- CONFIG RESETSTAT ----------------------------------------------------------------- */

static void resetCommandStats(dict *commands) {
    dictIterator *di = dictGetIterator(commands);
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        redisCommand *cmd = dictGetVal(de);
        cmd->microseconds = cmd->calls = cmd->rejected_calls = cmd->failed_calls = 0;
        if (cmd->subcommands_dict) resetCommandStats(cmd->subcommands_dict);
    }
    dictReleaseIterator(di);
}

static void resetServerStats(void) {
    server.stat_numcommands = 0;
    server.stat_numconnections = 0;
    server.stat_rejected_conn = 0;
    server.stat_expiredkeys = 0;
    server.stat_expired_stale_perc = 0;
    server.stat_evictedkeys = 0;
    server.stat_evictedclients = 0;
    server.stat_reply_buffer_shrinks = server.stat_reply_buffer_expands = 0;
    server.stat_keyspace_hits = 0;
    server.stat_keyspace_misses = 0;
    server.stat_net_input_bytes = 0;
    server.stat_net_output_bytes = 0;
    server.stat_total_reads_processed = 0;
    server.stat_total_writes_processed = 0;
    server.stat_unexpected_error_replies = 0;
    server.stat_total_error_replies = 0;
    server.stat_client_qbuf_limit_disconnections = 0;
    server.stat_client_outbuf_limit_disconnections = 0;
    lazyfreeResetStats();
    replicationResetStats();
    defragResetStats();
}

void configResetStatCommand(client *c) {
    resetServerStats();
    if (server.commands) resetCommandStats(server.commands);
    if (server.errors) dictEmpty(server.errors, NULL);
    latencyResetCommandHistograms();
    addReply(c, shared.ok);
}

/* ---- CONFIG REWRITE -------------------------------------------------------------------- */

#define CONFIG_REWRITE_SIGNATURE "# Generated by CONFIG REWRITE"

/* The old file as lines (a removed line becomes NULL), and for every
 * directive the lines where it appeared, so a new value takes the place of
 * the old one and comments, unknown lines and order all survive. */
typedef struct rewriteState {
    sds *lines;
    int count, capacity;
    int *slots[CONFIG_COUNT]; /* line numbers of each directive, in order */
    int nslots[CONFIG_COUNT];
    int used[CONFIG_COUNT];   /* slots already reused */
    int has_signature;
} rewriteState;

static void rewriteAppendLine(rewriteState *st, sds line) {
    if (st->count == st->capacity) {
        st->capacity = st->capacity ? st->capacity * 2 : 64;
        st->lines = zrealloc(st->lines, sizeof(sds) * (size_t)st->capacity);
    }
    st->lines[st->count++] = line;
}

static void rewriteNoteDirective(rewriteState *st, sds line) {
    int argc = 0;
    sds *argv = sdssplitargs(line, &argc);
    if (argv == NULL) return;
    const configEntry *e = argc > 0 ? lookupConfig(argv[0]) : NULL;
    if (e) {
        int idx = configIndex(e);
        st->slots[idx] = zrealloc(st->slots[idx], sizeof(int) * (size_t)(st->nslots[idx] + 1));
        st->slots[idx][st->nslots[idx]++] = st->count - 1;
    }
    sdsfreesplitres(argv, argc);
}

/* Missing file: start from nothing. Other errors: C_ERR with errno. */
static int rewriteReadOldFile(rewriteState *st, const char *path) {
    sds text = sdsempty();
    if (readWholeFile(path, &text) != C_OK) {
        sdsfree(text);
        return errno == ENOENT ? C_OK : C_ERR;
    }
    int count = 0;
    sds *lines = sdssplitlen(text, (ssize_t)sdslen(text), "\n", 1, &count);
    if (count > 0 && sdslen(lines[count - 1]) == 0) sdsfree(lines[--count]); /* final newline */
    for (int j = 0; j < count; j++) {
        sds line = sdstrim(lines[j], "\r");
        rewriteAppendLine(st, line);
        sds trimmed = sdstrim(sdsdup(line), " \t");
        if (!strcmp(trimmed, CONFIG_REWRITE_SIGNATURE)) st->has_signature = 1;
        else if (trimmed[0] != '#' && trimmed[0] != '\0') rewriteNoteDirective(st, trimmed);
        sdsfree(trimmed);
    }
    zfree(lines); /* the strings now belong to st */
    sdsfree(text);
    return C_OK;
}

static sds catQuoted(sds out, const char *s) { return sdscatrepr(out, s, strlen(s)); }

/* The lines that set entry e to its current value. */
static int rewriteLinesFor(const configEntry *e, sds **lines) {
    if (e->kind == CONFIG_SPECIAL && e->special->rewrite) return e->special->rewrite(e->name, lines);
    sds line = sdscatprintf(sdsempty(), "%s ", e->name);
    if (e->kind == CONFIG_STRING) {
        line = catQuoted(line, *e->field.str ? *e->field.str : "");
    } else if (isNumericKind(e->kind) && (e->flags & CF_MEMORY)) {
        line = isUnsignedKind(e->kind) ? catMemory(line, getUnsigned(e)) : catMemory(line, (unsigned long long)getSigned(e));
    } else {
        sds value = configGetValue(e);
        line = e->kind == CONFIG_SPECIAL ? sdscatrepr(line, value, sdslen(value)) : sdscatsds(line, value);
        sdsfree(value);
    }
    *lines = zmalloc(sizeof(sds));
    (*lines)[0] = line;
    return 1;
}

/* A directive is written when it differs from its default or was in the
 * file: its old lines are reused in order, extra new lines go to the end,
 * extra old lines are dropped. */
static void rewriteEntry(rewriteState *st, int idx, int force_all) {
    const configEntry *e = &configTable[idx];
    sds current = configGetValue(e);
    int differs = sdscmp(current, config_defaults[idx]) != 0;
    sdsfree(current);
    if (force_all && !(e->flags & CF_HIDDEN)) differs = 1;
    if (!differs && st->nslots[idx] == 0) return;
    sds *lines = NULL;
    int n = rewriteLinesFor(e, &lines);
    for (int k = 0; k < n; k++) {
        if (st->used[idx] < st->nslots[idx]) {
            int at = st->slots[idx][st->used[idx]++];
            sdsfree(st->lines[at]);
            st->lines[at] = lines[k];
            continue;
        }
        if (!st->has_signature) {
            rewriteAppendLine(st, sdsnew(CONFIG_REWRITE_SIGNATURE));
            st->has_signature = 1;
        }
        rewriteAppendLine(st, lines[k]);
    }
    zfree(lines);
    for (; st->used[idx] < st->nslots[idx]; st->used[idx]++) {
        int at = st->slots[idx][st->used[idx]];
        sdsfree(st->lines[at]);
        st->lines[at] = NULL;
    }
}

/* Whether line sets a module config no loaded module registers (its first
 * word has a dot, as only module configs' names do). */
static int isOrphanModuleConfigLine(const char *line) {
    while (*line == ' ' || *line == '\t') line++;
    size_t len = strcspn(line, " \t");
    if (len == 0 || *line == '#' || memchr(line, '.', len) == NULL) return 0;
    sds name = sdsnewlen(line, len);
    int orphan = moduleConfigLookup(name) == NULL;
    sdsfree(name);
    return orphan;
}

/* Modules' configs: written as the table's are (when not at their default
 * or already in the file), in place of their old lines. The line of a
 * config no loaded module has (its module was unloaded) goes: Redis 7.0
 * keeps it, and its next start then stops on a value no module took. */
static void rewriteModuleConfigs(rewriteState *st, int force_all) {
    for (int k = 0; k < st->count; k++) {
        if (st->lines[k] == NULL || !isOrphanModuleConfigLine(st->lines[k])) continue;
        serverLog(LL_NOTICE, "CONFIG REWRITE: no loaded module has the config of line '%s': dropped", st->lines[k]);
        sdsfree(st->lines[k]);
        st->lines[k] = NULL;
    }
    moduleConfig *mc;
    for (int j = 0; (mc = moduleConfigAt(j)) != NULL; j++) {
        int is_default, placed = 0;
        sds line = moduleConfigRewriteLine(mc, &is_default);
        size_t namelen = strlen(moduleConfigName(mc));
        int hidden = (moduleConfigFlags(mc) & MODULE_CONFIG_F_HIDDEN) != 0;
        for (int k = 0; k < st->count; k++) {
            const char *old = st->lines[k];
            if (old == NULL) continue;
            while (*old == ' ' || *old == '\t') old++;
            if (strncasecmp(old, moduleConfigName(mc), namelen) || (old[namelen] != ' ' && old[namelen] != '\t'))
                continue;
            sdsfree(st->lines[k]);
            st->lines[k] = placed ? NULL : line;
            placed = 1;
        }
        if (placed) continue;
        if (is_default && !(force_all && !hidden)) {
            sdsfree(line);
            continue;
        }
        if (!st->has_signature) {
            rewriteAppendLine(st, sdsnew(CONFIG_REWRITE_SIGNATURE));
            st->has_signature = 1;
        }
        rewriteAppendLine(st, line);
    }
}

static int isDirectiveLine(const char *line, const char *directive) {
    size_t len = strlen(directive);
    while (*line == ' ' || *line == '\t') line++;
    return !strncasecmp(line, directive, len) && (line[len] == ' ' || line[len] == '\t');
}

/* A directive that has one line per item (`user`, `loadmodule`): the
 * current lines in place of the old ones, the rest at the end; old lines
 * beyond the current ones go. lines (NULL: none now) is taken over. */
static void rewriteLinesOf(rewriteState *st, const char *directive, sds *lines, int count) {
    int k = 0;
    for (int j = 0; j < st->count; j++) {
        if (st->lines[j] == NULL || !isDirectiveLine(st->lines[j], directive)) continue;
        sdsfree(st->lines[j]);
        st->lines[j] = k < count ? lines[k++] : NULL;
    }
    for (; k < count; k++) {
        if (!st->has_signature) {
            rewriteAppendLine(st, sdsnew(CONFIG_REWRITE_SIGNATURE));
            st->has_signature = 1;
        }
        rewriteAppendLine(st, lines[k]);
    }
    zfree(lines);
}

/* `user` lines: every ACL user, as ACL LIST writes it (acl_file.c; none
 * when an aclfile holds the users: the old lines stay). */
static void rewriteUserLines(rewriteState *st) {
    int count = 0;
    sds *lines = aclConfigRewriteLines(&count);
    if (lines != NULL) rewriteLinesOf(st, "user", lines, count);
}

static sds rewriteContent(rewriteState *st) {
    sds content = sdsempty();
    for (int j = 0; j < st->count; j++) {
        if (st->lines[j] == NULL) continue;
        content = sdscatsds(content, st->lines[j]);
        content = sdscat(content, "\n");
    }
    return content;
}

static void rewriteFreeState(rewriteState *st) {
    for (int j = 0; j < st->count; j++) sdsfree(st->lines[j]);
    zfree(st->lines);
    for (int j = 0; j < CONFIG_COUNT; j++) zfree(st->slots[j]);
}

static int writeAll(int fd, const char *p, size_t len) {
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n == -1 && errno == EINTR) continue;
        if (n <= 0) return C_ERR;
        p += n;
        len -= (size_t)n;
    }
    return C_OK;
}

/* Write a temporary file next to the old one, fsync it, rename it over,
 * fsync the directory: a crash leaves either the old file or the new one,
 * never half of one, and once this returns C_OK the new one (the power-cut
 * checker, utils/powercut, found the rename undone without the last step). */
static int replaceFileAtomically(const char *path, sds content) {
    struct stat old;
    int had_old = stat(path, &old) == 0;
    sds tmp = sdscatprintf(sdsempty(), "%s.tmp-%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int res = fd == -1 ? C_ERR : C_OK;
    if (res == C_OK && had_old) fchmod(fd, old.st_mode & 07777);
    if (res == C_OK) res = writeAll(fd, content, sdslen(content));
    if (res == C_OK && fsync(fd) == -1) res = C_ERR;
    int saved = errno;
    if (fd != -1 && close(fd) == -1 && res == C_OK) res = C_ERR, saved = errno;
    int renamed = res == C_OK && rename(tmp, path) == 0;
    if (res == C_OK && !renamed) res = C_ERR, saved = errno;
    if (renamed && persistFsyncDirOf(path) == -1) res = C_ERR, saved = errno;
    if (!renamed) unlink(tmp);
    sdsfree(tmp);
    errno = saved;
    return res;
}

/* force_all (DEBUG CONFIG-REWRITE-FORCE-ALL): every directive is written,
 * defaults too, except the hidden test knobs. */
static int rewriteConfigFile(const char *path, int force_all) {
    rewriteState st;
    memset(&st, 0, sizeof st);
    int res = rewriteReadOldFile(&st, path);
    if (res == C_OK) {
        for (int j = 0; j < CONFIG_COUNT; j++) rewriteEntry(&st, j, force_all);
        rewriteModuleConfigs(&st, force_all);
        rewriteUserLines(&st);
        int modules_count = 0;
        sds *module_lines = moduleRewriteLoadLines(&modules_count);
        rewriteLinesOf(&st, "loadmodule", module_lines, modules_count);
        sds content = rewriteContent(&st);
        res = replaceFileAtomically(path, content);
        sdsfree(content);
    }
    int saved = errno;
    rewriteFreeState(&st);
    errno = saved;
    return res;
}

int configRewriteFile(int force_all) { return rewriteConfigFile(server.configfile, force_all); }

void configRewriteCommand(client *c) {
    if (server.configfile == NULL) {
        addReplyError(c, "The server is running without a config file");
        return;
    }
    if (configRewriteFile(0) != C_OK) {
        int err = errno;
        serverLog(LL_WARNING, "CONFIG-REWRITE failed: %s", strerror(err));
        addReplyErrorFormat(c, "Rewriting config file: %s", strerror(err));
        return;
    }
    serverLog(LL_NOTICE, "CONFIG REWRITE executed with success.");
    addReply(c, shared.ok);
}

/* ---- CONFIG HELP and the directive list --------------------------------------------- */

void configHelpCommand(client *c) {
    const char *help[] = {
        "GET <pattern>",
        "    Return parameters matching the glob-like <pattern> and their values.",
        "SET <directive> <value>",
        "    Set the configuration <directive> to <value>.",
        "RESETSTAT",
        "    Reset statistics reported by the INFO command.",
        "REWRITE",
        "    Rewrite the configuration file.",
        NULL};
    addReplyHelp(c, help);
}

/* One warning naming every compatibility-only directive that is not at its
 * default: the user expects something this server doesn't do. */
void configWarnNoEffectDirectives(void) {
    sds names = sdsempty();
    for (int j = 0; j < CONFIG_COUNT; j++) {
        if (!(configTable[j].flags & CF_NO_EFFECT)) continue;
        sds value = configGetValue(&configTable[j]);
        if (sdscmp(value, config_defaults[j]) != 0)
            names = sdscatprintf(names, "%s%s", sdslen(names) ? ", " : "", configTable[j].name);
        sdsfree(value);
    }
    if (sdslen(names))
        serverLog(LL_WARNING, "WARNING: directives set that have no effect here (replication tuning this server "
                              "does not do): %s", names);
    sdsfree(names);
    if (config_io_threads > 1 || config_io_threads_do_reads)
        serverLog(LL_WARNING, "WARNING: io-threads %d%s ignored: this server is single-threaded by design and "
                              "serves every client from its one thread; remove the line to silence this warning",
                  config_io_threads, config_io_threads_do_reads ? " and io-threads-do-reads yes" : "");
}

int configPrintDirectives(FILE *fp) {
    for (int j = 0; j < CONFIG_COUNT; j++) fprintf(fp, "%s\n", configTable[j].name);
    return fflush(fp) == 0 ? 0 : 1;
}
