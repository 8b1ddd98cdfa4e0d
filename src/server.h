/* server.h -- the shared state and internal API of the server core.
 *
 * Everything a command implementation needs is declared here: the object
 * model (robj), the client, the command table entry, the databases, the
 * global `server` state (whose configurable fields are driven by the config
 * table in config.c), and the functions of networking.c (replies), object.c,
 * db.c (keyspace), expire.c and server.c (dispatch).
 *
 * Design decisions:
 * - One path for every command: networking.c parses RESP into argv,
 *   processCommand() checks it (lookup, arity, auth, OOM, loading), call()
 *   runs the handler and records stats; handlers only ever append replies
 *   to the client's buffer through addReply*(), never touch a socket.
 * - Commands reach the keyspace only through db.c (lookupKey*, dbAdd,
 *   setKey, dbDelete, setExpire ...), so the storage layout of the keyspace
 *   can change without touching a command.
 * - Replies are RESP-version aware in one place (addReplyMapLen,
 *   addReplyNull, addReplyDouble ...), so a command is written once for
 *   RESP2 and RESP3.
 */
#ifndef REDIS_SERVER_H
#define REDIS_SERVER_H

#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "platform.h"
#include "portable.h"
#include "zmalloc.h"
#include "sds.h"
#include "dict.h"
#include "dicttype.h"
#include "kvtable.h"
#include "cluster.h"
#include "adlist.h"
#include "ae.h"
#include "anet.h"
#include "connection.h"
#include "util.h"
#include "object.h"
#include "version.h"
#include "proctitle.h"
#include "tls.h"

/* ---- return codes and limits ------------------------------------------------ */
#define C_OK 0
#define C_ERR -1

/* The length of a string literal, counted by the compiler, not by hand (the
 * "" around it refuses anything but a literal). */
#define LITERAL_LEN(lit) (sizeof("" lit "") - 1)

#define CONFIG_DEFAULT_HZ 10
#define CONFIG_MIN_HZ 1
#define CONFIG_MAX_HZ 500
#define CONFIG_BINDADDR_MAX 16
#define CONFIG_DEFAULT_MAX_CLIENTS 10000
#define CONFIG_MIN_RESERVED_FDS 32
#define CONFIG_RUN_ID_SIZE 40
#define NET_IP_STR_LEN 46
#define NET_ADDR_STR_LEN (NET_IP_STR_LEN + 32)
#define LONG_STR_SIZE 21

#define PROTO_IOBUF_LEN (1024 * 16)     /* read size per event */
#define PROTO_REPLY_CHUNK_BYTES (16 * 1024)
#define PROTO_INLINE_MAX_SIZE (1024 * 64)
#define PROTO_MBULK_BIG_ARG (1024 * 32)
#define PROTO_SHARED_SELECT_CMDS 10
#define PROTO_REPLY_MIN_BYTES (1024)
#define NET_MAX_WRITES_PER_EVENT (1024 * 64)
#define PROTO_MAX_MULTIBULK_LEN (1024 * 1024)  /* max count of a *N header */

#define PROTO_SHARED_BULKHDR_LEN 32

/* ---- replies -------------------------------------------------------------- */
typedef struct clientReplyBlock {
    size_t size, used;
    char buf[];
} clientReplyBlock;

/* ---- commands ------------------------------------------------------------- */
struct client;
typedef void redisCommandProc(struct client *c);

#define CMD_WRITE (1ULL << 0)
#define CMD_READONLY (1ULL << 1)
#define CMD_DENYOOM (1ULL << 2)
#define CMD_ADMIN (1ULL << 4)
#define CMD_PUBSUB (1ULL << 5)
#define CMD_NOSCRIPT (1ULL << 6)
#define CMD_BLOCKING (1ULL << 8)
#define CMD_LOADING (1ULL << 9)
#define CMD_STALE (1ULL << 10)
#define CMD_SKIP_MONITOR (1ULL << 11)
#define CMD_SKIP_SLOWLOG (1ULL << 12)
#define CMD_ASKING (1ULL << 13)
#define CMD_FAST (1ULL << 14)
#define CMD_NO_AUTH (1ULL << 15)
#define CMD_MAY_REPLICATE (1ULL << 16)
#define CMD_NO_MANDATORY_KEYS (1ULL << 19)
#define CMD_MODULE_GETKEYS (1ULL << 21) /* a module command declared "getkeys-api": its handler reports its keys */
#define CMD_MODULE_GETCHANNELS (1ULL << 22) /* ... "getchannels-api": and its channels (ACL checks them) */
/* A module command's channel flags (ChannelAtPosWithFlags; Redis 7.0's values) */
#define CMD_CHANNEL_PATTERN (1ULL << 0)
#define CMD_CHANNEL_PUBLISH (1ULL << 1)
#define CMD_CHANNEL_SUBSCRIBE (1ULL << 2)
#define CMD_CHANNEL_UNSUBSCRIBE (1ULL << 3)
#define CMD_PROTECTED (1ULL << 20) /* refused unless enable-debug/module-command allows it */
#define CMD_NO_ASYNC_LOADING (1ULL << 23)
#define CMD_NO_MULTI (1ULL << 24)
#define CMD_ALLOW_BUSY (1ULL << 26)

/* Key specs: where a command's keys are in its arguments and what it does
 * with them (COMMAND INFO, COMMAND GETKEYS[ANDFLAGS]; see keyspec.c). */
#define KSPEC_RO (1ULL << 0)             /* reads the value */
#define KSPEC_RW (1ULL << 1)             /* reads and writes it */
#define KSPEC_OW (1ULL << 2)             /* overwrites it without reading */
#define KSPEC_RM (1ULL << 3)             /* deletes the key */
#define KSPEC_ACCESS (1ULL << 4)         /* returns, copies or uses the user data */
#define KSPEC_UPDATE (1ULL << 5)         /* updates the data */
#define KSPEC_INSERT (1ULL << 6)         /* only adds data */
#define KSPEC_DELETE (1ULL << 7)         /* only removes data */
#define KSPEC_NOT_KEY (1ULL << 8)        /* a name in the key's position that is no key (shard channel) */
#define KSPEC_INCOMPLETE (1ULL << 9)     /* the spec may not find every key */
#define KSPEC_VARIABLE_FLAGS (1ULL << 10) /* the flags depend on the arguments */

typedef enum { KSPEC_BS_INVALID = 0, KSPEC_BS_UNKNOWN, KSPEC_BS_INDEX, KSPEC_BS_KEYWORD } keySpecBeginSearch;
typedef enum { KSPEC_FK_INVALID = 0, KSPEC_FK_UNKNOWN, KSPEC_FK_RANGE, KSPEC_FK_KEYNUM } keySpecFindKeys;

typedef struct keySpec {
    const char *notes;
    uint64_t flags;                  /* KSPEC_* */
    keySpecBeginSearch bs_type;
    union {
        int index;                   /* the first key's argument index */
        struct {
            const char *keyword;     /* the keys follow this argument ... */
            int startfrom;           /* searched from here; negative: backwards from the end */
        } keyword;
    } bs;
    keySpecFindKeys fk_type;
    union {
        struct {
            int lastkey;             /* relative to the first key; negative: from the end */
            int keystep, limit;      /* limit: with lastkey -1, only 1/limit of the rest */
        } range;
        struct {
            int keynumidx;           /* the key count's index, relative to begin_search */
            int firstkey;            /* the first key's index, relative to begin_search */
            int keystep;
        } keynum;
    } fk;
} keySpec;

/* The keys a command line names: argument positions and KSPEC_* flags. */
typedef struct keyReference {
    int pos;
    uint64_t flags;
} keyReference;

typedef struct getKeysResult {
    keyReference *keys;
    int numkeys, size;
} getKeysResult;

#include "command_groups.h"

struct redisCommand;
/* Finds the keys where the key specs cannot (or cannot tell their flags). */
typedef int redisGetKeysProc(struct redisCommand *cmd, robj **argv, int argc, getKeysResult *result);

typedef struct redisCommand {
    const char *declared_name;   /* lower case, e.g. "get" or "get" under "config" */
    redisCommandProc *proc;
    int arity;                   /* N = exactly N args incl. name; -N = at least N */
    uint64_t flags;
    int firstkey, lastkey, keystep; /* legacy key positions (COMMAND INFO) */
    int group;                   /* CMD_GROUP_* (command_groups.h); NONE: a subcommand's is its container's */
    const char *summary;
    const char *since;
    const char *complexity;
    const char *args_hint;       /* e.g. "key value [NX | XX]" for COMMAND DOCS / redis-cli */
    struct redisCommand *subcommands; /* array ending with an entry whose name is NULL */
    const keySpec *key_specs;    /* NULL: one spec derived from firstkey/lastkey/keystep */
    int key_specs_num;
    const char *tips;            /* space-separated, e.g. "nondeterministic_output"; NULL: none */
    redisGetKeysProc *getkeys_proc; /* NULL: the key specs alone find the keys */
    unsigned acl_categories;     /* ACL(...): the categories Redis assigns by hand, replacing the group's */
    struct moduleCmd *module_cmd; /* module.c: the module's handler; NULL for a built-in command */
    int acl_categories_explicit; /* ACL(...) was given (it may be 0: none) */

    /* filled at start-up */
    sds fullname;                /* "get", "config|get" */
    struct redisCommand *parent;
    dict *subcommands_dict;
    long long microseconds, calls, rejected_calls, failed_calls;
    struct lathist *latency_histogram; /* latency_tracking.c: allocated on the first tracked call */
    int id;
} redisCommand;

/* ---- clients ------------------------------------------------------------- */
#define CLIENT_CLOSE_AFTER_REPLY (1 << 0)
#define CLIENT_CLOSE_ASAP (1 << 1)
#define CLIENT_MULTI (1 << 2)
#define CLIENT_DIRTY_EXEC (1 << 3)
#define CLIENT_MONITOR (1 << 4)
#define CLIENT_PUBSUB (1 << 5)
#define CLIENT_BLOCKED (1 << 6)
#define CLIENT_UNIX_SOCKET (1 << 7)
#define CLIENT_PENDING_WRITE (1 << 8)
#define CLIENT_REPLY_OFF (1 << 9)
#define CLIENT_REPLY_SKIP_NEXT (1 << 10)
#define CLIENT_REPLY_SKIP (1 << 11)
#define CLIENT_PROTECTED (1 << 12)
#define CLIENT_NO_EVICT (1 << 13)
#define CLIENT_FAKE (1 << 14)       /* AOF loading, no connection */

/* propagation-error-behavior: what an error reply to our master, or to the
 * AOF being loaded, does besides being logged and counted */
#define PROPAGATION_ERR_IGNORE 0
#define PROPAGATION_ERR_PANIC 1
#define PROPAGATION_ERR_PANIC_ON_REPLICAS 2
#define CLIENT_DIRTY_CAS (1 << 15)
#define CLIENT_PUSHING (1 << 16)
#define CLIENT_EXECUTING_COMMAND (1 << 17)
#define CLIENT_PREVENT_PROP (1 << 19) /* the command propagated its effects itself */
#define CLIENT_FORCE_PROP (1 << 20)   /* propagate even if nothing looked dirty */
#define CLIENT_SCRIPT (1 << 21)       /* a scripting engine's client: collects replies, no connection */
#define CLIENT_CLOSE_AFTER_COMMAND (1 << 22) /* closed once the running command (its EXEC) has replied */
#define CLIENT_MODULE (1 << 23)       /* with CLIENT_SCRIPT: a module's Call client, not a script's (module_api.c) */
/* Redis's mustObeyClient: our primary's link and the AOF loader (CLIENT_FAKE
 * without CLIENT_SCRIPT) write whatever a replica's or a full disk's rules
 * say; a script's or a module's Call client does not. */
#define clientMustObey(c) (((c)->flags & CLIENT_MASTER) || ((c)->flags & (CLIENT_FAKE | CLIENT_SCRIPT)) == CLIENT_FAKE)
#define CLIENT_MASTER (1ULL << 40)    /* our primary's link: its stream is applied (replica.c) */
#define CLIENT_SLAVE (1ULL << 41)     /* a replica fed our stream (replication.c) */
#define CLIENT_READONLY (1ULL << 42)  /* READONLY: reads of its primary's slots served by this replica (cluster.c) */
#define CLIENT_ASKING (1ULL << 43)    /* ASKING: the next command may touch an importing slot (cluster.c) */
#define CLIENT_LUA_DEBUG (1ULL << 44) /* SCRIPT DEBUG YES|SYNC: its next EVAL runs under the debugger (ldb.c) */
#define CLIENT_LUA_DEBUG_SYNC (1ULL << 45) /* ... SYNC: in the server itself, not a fork child */

#define PROTO_REQ_INLINE 1
#define PROTO_REQ_MULTIBULK 2

#define CLIENT_TYPE_NORMAL 0
#define CLIENT_TYPE_PUBSUB 1
#define CLIENT_TYPE_REPLICA 2
#define CLIENT_TYPE_OBUF_COUNT 3

typedef struct redisDb redisDb;

typedef struct client {
    uint64_t id;
    connection *conn;
    int resp;                     /* 2 or 3 */
    redisDb *db;
    robj *name;
    sds querybuf;
    size_t qb_pos;                /* parse position in querybuf */
    size_t querybuf_peak;
    int argc;
    robj **argv;
    int argv_len;                 /* allocated slots in argv */
    size_t argv_len_sum;
    robj *argpool_head;           /* spare argument objects (argpool.c), chained by ptr */
    int argpool_count;
    redisCommand *cmd, *lastcmd, *realcmd;
    int reqtype;
    int multibulklen;             /* args left to read of the current *N */
    long long bulklen;            /* length of the bulk being read, -1 if none */
    list *reply;                  /* clientReplyBlock* after buf is full */
    unsigned long long reply_bytes;
    size_t sentlen;               /* bytes of the current buf/block already sent */
    time_t ctime;
    long long last_interaction_ms;
    time_t obuf_soft_limit_reached_time;
    uint64_t flags;
    int authenticated;
    struct aclUser *user;         /* acl.c: whose rules apply; the default user until AUTH */
    int ever_authenticated;       /* authenticated at some point: the small unauthenticated output limit is off */
    listNode *client_list_node;
    listNode pending_write_node;  /* embedded: queuing for a write allocates nothing */
    long long woff;
    sds peerid, sockname;
    long duration;                /* microseconds of the current command */
    int slot;
    /* the inline reply buffer */
    size_t bufpos;
    size_t buf_usable_size;
    size_t buf_peak;              /* largest bufpos since the last peak reset (replybuf.c) */
    long long buf_peak_reset_ms;
    char *buf;
    /* deferred replies placeholders live in the reply list as empty blocks */
    /* pub/sub (pubsub.c), MULTI/WATCH (multi.c), blocking (blocked.c), tracking, client eviction */
    dict *pubsub_channels;
    dict *pubsub_patterns;
    dict *pubsubshard_channels;
    struct multiState *mstate;
    list *watched_keys;
    struct blockingState *bstate;
    struct moduleBlocked *module_blocked; /* module_block.c: blocked by a module (BlockClient), or NULL */
    list *deferred_errors; /* CLIENT_MODULE: its error replies (sds), counted when a real client gets them (reply.c) */
    struct moduleAuthHook *module_auth;   /* module_acl.c: the module that authenticated it and its callback, or NULL */
    struct clientTracking *tracking; /* CLIENT TRACKING state (tracking.c), NULL when off */
    size_t mem_counted;           /* share in server.clients_mem_total (client_eviction.c) */
    struct replClient *repl;      /* replication.c / replica.c: a replica, the primary, or WAIT; NULL */
} client;

/* ---- databases ------------------------------------------------------------ */
struct redisDb {
    kvtable *keys;                /* the keyspace: one kvobj (key + value) per key */
    dict *expires;                /* keys with a TTL: kvobj's own key sds -> the kvobj */
    dict *blocking_keys;
    dict *watched_keys;
    int id;
    long long avg_ttl;
    unsigned long expires_cursor;
};

/* ---- shared objects ---------------------------------------------------------- */
struct sharedObjectsStruct {
    robj *crlf, *ok, *err, *emptybulk, *czero, *cone, *pong, *space, *queued, *null[4],
        *nullarray[4], *emptymap[4], *emptyset[4], *emptyarray, *wrongtypeerr, *nokeyerr,
        *syntaxerr, *sameobjecterr, *outofrangeerr, *loadingerr, *noautherr, *oomerr,
        *execaborterr, *noscripterr, *busykeyerr, *colon, *minstring, *maxstring,
        *del_cmd, *unlink_cmd, *pexpireat_cmd, *persist_cmd, *set_cmd, *pxat, *keepttl,
        *mbulkhdr[PROTO_SHARED_BULKHDR_LEN],
        *bulkhdr[PROTO_SHARED_BULKHDR_LEN], *maphdr[PROTO_SHARED_BULKHDR_LEN],
        *sethdr[PROTO_SHARED_BULKHDR_LEN], *select[PROTO_SHARED_SELECT_CMDS];
};
extern struct sharedObjectsStruct shared;

/* The integers 0..9999 as shared objects: a compile-time table
 * (shared_integers.c), paged in only when used. */
extern robj sharedIntegerObjects[OBJ_SHARED_INTEGERS];
#define sharedInteger(n) (&sharedIntegerObjects[(n)])

/* ---- logging --------------------------------------------------------------- */
#define LL_DEBUG 0
#define LL_VERBOSE 1
#define LL_NOTICE 2
#define LL_WARNING 3
#define LL_NOTHING 4
#define LL_RAW (1 << 10)

/* ---- eviction policies ------------------------------------------------------- */
#define MAXMEMORY_FLAG_LRU (1 << 0)
#define MAXMEMORY_FLAG_LFU (1 << 1)
#define MAXMEMORY_FLAG_ALLKEYS (1 << 2)
#define MAXMEMORY_VOLATILE_LRU ((0 << 8) | MAXMEMORY_FLAG_LRU)
#define MAXMEMORY_VOLATILE_LFU ((1 << 8) | MAXMEMORY_FLAG_LFU)
#define MAXMEMORY_VOLATILE_TTL (2 << 8)
#define MAXMEMORY_VOLATILE_RANDOM (3 << 8)
#define MAXMEMORY_ALLKEYS_LRU ((4 << 8) | MAXMEMORY_FLAG_LRU | MAXMEMORY_FLAG_ALLKEYS)
#define MAXMEMORY_ALLKEYS_LFU ((5 << 8) | MAXMEMORY_FLAG_LFU | MAXMEMORY_FLAG_ALLKEYS)
#define MAXMEMORY_ALLKEYS_RANDOM ((6 << 8) | MAXMEMORY_FLAG_ALLKEYS)
#define MAXMEMORY_NO_EVICTION (7 << 8)

typedef struct clientBufferLimitsConfig {
    unsigned long long hard_limit_bytes;
    unsigned long long soft_limit_bytes;
    time_t soft_limit_seconds;
} clientBufferLimitsConfig;

/* A `save <seconds> <changes>` point. */
struct saveparam {
    time_t seconds;
    int changes;
};

#define AOF_FSYNC_NO 0
#define AOF_FSYNC_ALWAYS 1
#define AOF_FSYNC_EVERYSEC 2

/* oom-score-adj (oom.c) and the classes of oom-score-adj-values, in order */
#define OOM_SCORE_ADJ_NO 0
#define OOM_SCORE_RELATIVE 1
#define OOM_SCORE_ADJ_ABSOLUTE 2
#define OOM_CLASS_MAIN 0
#define OOM_CLASS_REPLICA 1
#define OOM_CLASS_BGCHILD 2
#define OOM_CLASS_COUNT 3

/* ---- the global state ------------------------------------------------------- */
struct redisServer {
    /* process */
    pid_t pid;
    char *executable;
    char *configfile;
    char **exec_argv;
    int hz;
    int config_hz;
    redisDb *db;
    dict *commands;               /* name -> redisCommand (top level) */
    aeEventLoop *el;
    _Atomic unsigned int lruclock;
    volatile sig_atomic_t shutdown_asap;
    volatile sig_atomic_t shutdown_signal; /* the signal that asked for it, 0: none */
    int shutdown_on_sigterm;      /* SHUTDOWN_* flags used for SIGTERM (shutdown-on-sigterm) */
    int shutdown_on_sigint;       /* ... for SIGINT (shutdown-on-sigint) */
    int shutdown_timeout;         /* seconds a shutdown waits for lagging replicas (shutdown-timeout) */
    int shutdown_flags;
    long long cronloops;
    char runid[CONFIG_RUN_ID_SIZE + 1];
    time_t stat_starttime;
    long long ustime;             /* cached per event-loop pass */
    long long wall_minus_monotonic_us; /* ustime - monotonicUs(), see updateCachedTime() */
    int pause_cron;               /* DEBUG PAUSE-CRON: serverCron does nothing */
    int script_disable_deny_script; /* DEBUG SET-DISABLE-DENY-SCRIPTS: scripts may call "noscript" commands */
    int skip_checksum_validation; /* DEBUG SET-SKIP-CHECKSUM-VALIDATION: RDB files and RESTORE */
    int use_exit_on_panic;        /* use-exit-on-panic (hidden): an assert/panic exits(1) instead of aborting */
    int crashlog_enabled;         /* crash-log-enabled: the crash report is written */
    int memcheck_enabled;         /* crash-memcheck-enabled: accepted; there is no memory test on crash */
    int watchdog_period;          /* watchdog-period (hidden): ms; 0 = the software watchdog is off */
    long long aof_flush_sleep;    /* DEBUG AOF-FLUSH-SLEEP: microseconds slept before each AOF write */
    long long mstime;
    time_t unixtime;
    long long dirty;              /* changes since the last save */

    /* cluster mode (cluster.c): Redis 7.0's cluster-* directives */
    int cluster_enabled;
    char *cluster_configfile;
    long long cluster_node_timeout;
    int cluster_port;
    char *cluster_announce_ip;
    char *cluster_announce_hostname;
    int cluster_announce_port, cluster_announce_bus_port, cluster_announce_tls_port;
    int cluster_require_full_coverage;
    int cluster_replica_no_failover;
    int cluster_allow_reads_when_down;
    int cluster_allow_pubsubshard_when_down;
    int cluster_allow_replica_migration;
    int cluster_preferred_endpoint_type;
    int cluster_replica_validity_factor;
    int cluster_migration_barrier;
    unsigned long long cluster_link_sendbuf_limit;

    /* networking */
    int port;
    int tcp_backlog;
    char *bindaddr[CONFIG_BINDADDR_MAX];
    int bindaddr_count;
    char *unixsocket;
    unsigned int unixsocketperm;
    char *unixsocketgroup;
    int ipfd[CONFIG_BINDADDR_MAX];
    int ipfd_count;
    int sofd;
    int tcpkeepalive;
    int protected_mode;
    int shm_enabled;                 /* shm-enabled: CLIENT SHM allowed (shm.c) */
    long long shm_ring_size;         /* shm-ring-size: default bytes per ring */
    unsigned int shm_max_clients;    /* shm-max-clients */
    unsigned int shm_spin_us;        /* shm-spin-us: cap of the spin before sleeping (shm.c) */
    int shm_force_devshm;            /* shm-force-devshm (hidden, tests): the /dev/shm fallback */
    unsigned int event_loop_spin_us; /* event-loop-spin-us: poll this long after a busy pass before sleeping */
    list *clients;
    list *clients_to_close;
    list *clients_pending_write;
    client *current_client;
    uint64_t next_client_id;
    unsigned int maxclients;
    int maxidletime;              /* `timeout` in seconds, 0 = never */
    long long proto_max_bulk_len;
    unsigned long long client_max_querybuf_len;
    clientBufferLimitsConfig client_obuf_limits[CLIENT_TYPE_OBUF_COUNT];
    sds requirepass; /* any bytes; NULL: no password */
    int enable_debug_cmd;         /* PROTECTED_ACTION_ALLOWED_* */
    int in_exec;
    int loading;
    int async_loading;            /* a replica's swapdb full sync: the old dataset served meanwhile (replica.c) */

    /* limits and memory */
    unsigned long long maxmemory;
    int maxmemory_policy;
    unsigned long long maxmemory_clients; /* bytes, 0 = off (unless _perc) */
    int maxmemory_clients_perc;           /* "N%" of maxmemory when not 0 */
    size_t clients_mem_total;             /* tot-mem of all clients, kept O(1) */
    long long stat_evictedclients;
    long long stat_reply_buffer_shrinks, stat_reply_buffer_expands;
    int maxmemory_samples;
    int lfu_log_factor;
    int lfu_decay_time;
    int active_expire_enabled;
    int active_expire_effort;
    int dbnum;

    /* logging */
    int verbosity;
    char *logfile;
    int syslog_enabled;
    char *syslog_ident;
    int daemonize;
    char *pidfile;
    int supervised;
    int supervised_mode;

    /* persistence: the RDB (rdb.c) and the AOF (aof*.c) */
    char *dir;
    time_t lastsave;
    int aof_enabled;
    struct saveparam *saveparams; /* `save` points, stored by config.c */
    int saveparamslen;
    char *aof_filename;
    char *aof_dirname;
    int aof_fsync;                /* AOF_FSYNC_* */
    int aof_no_fsync_on_rewrite;
    int key_load_delay;           /* testing: microseconds of sleep per command or key loaded */
    int loading_process_events_interval_bytes; /* serve clients at least every this many bytes loaded */
    char *rdb_filename;           /* dbfilename */
    int rdb_compression;
    int sanitize_dump_payload;    /* accepted (no|yes|clients); RESTORE always validates deeply */
    int rdb_checksum;
    int stop_writes_on_bgsave_err;
    int auto_aof_rewrite_perc;
    unsigned long long auto_aof_rewrite_min_size;
    int aof_load_truncated;
    int aof_rewrite_incremental_fsync;
    int aof_use_rdb_preamble;
    int rdb_key_save_delay;       /* testing: sleep per key saved (see keySaveDelay) */
    int persistence_mode;         /* PERSISTENCE_MODE_FORK / _FORKLESS (snapshot.h) */
    unsigned long long forkless_max_pending_memory; /* snapshot.c: past it, write the rest at once */

    /* CPU affinity (cpuaffinity.c); NULL = leave it alone */
    char *server_cpulist;
    char *bio_cpulist;
    char *aof_rewrite_cpulist;
    int bgchild_nice;             /* niceness added to fork children (cpuaffinity.c) */
    int bgchild_sched_idle;       /* fork children run under SCHED_IDLE (cpuaffinity.c) */
    char *bgsave_cpulist;

    /* OS tuning: thp.c, oom.c */
    int disable_thp;              /* start-up: prctl(PR_SET_THP_DISABLE) when THP is `always` */
    int oom_score_adj;            /* OOM_SCORE_* */
    int oom_score_adj_values[OOM_CLASS_COUNT]; /* main, replica, bgchild */

    int active_rehashing;         /* activerehashing: the cron moves keyspace rehashes along */

    /* active defragmentation (defrag.c): Redis 7.0's directives */
    int active_defrag_enabled;             /* activedefrag (refused without jemalloc) */
    unsigned long long active_defrag_ignore_bytes; /* fragmentation below this many bytes: left alone */
    int active_defrag_threshold_lower;     /* percent of fragmentation to start at */
    int active_defrag_threshold_upper;     /* percent at which the most effort is spent */
    int active_defrag_cycle_min;           /* percent of CPU at the lower threshold */
    int active_defrag_cycle_max;           /* percent of CPU at the upper threshold */
    unsigned long active_defrag_max_scan_fields; /* bigger values are defragmented in steps */
    int rdb_save_incremental_fsync; /* fsync the snapshot every 4 MB written */

    /* tuning, keyspace events, process title, AOF annotations, lazy freeing */
    int dynamic_hz;
    int maxmemory_eviction_tenacity;
    int enable_protected_configs; /* PROTECTED_ACTION_ALLOWED_* */
    int notify_keyspace_events;   /* NOTIFY_* flags */
    int always_show_logo;
    int set_proc_title;
    char *proc_title_template;    /* proctitle.c */
    int jemalloc_bg_thread;       /* zmalloc_set_background_thread(); no effect with libc */
    int aof_disable_auto_gc;      /* aof.c: a rewrite keeps the files it replaces (history, type h) */
    int aof_timestamp_enabled;    /* aof.c: "#TS:<unixtime>" annotations in the AOF */
    char *locale_collate;
    int lazyfree_lazy_eviction;
    int lazyfree_lazy_expire;
    int lazyfree_lazy_server_del;
    int lazyfree_lazy_user_del;
    int lazyfree_lazy_user_flush;

    /* replication (replication.c, replica.c), and knobs accepted so Redis
     * config files load, without effect (CF_NO_EFFECT in config.c: the ACL
     * log, streams, some replication tuning; config.c warns when one is set) */
    int rdb_del_sync_files;
    int repl_serve_stale_data;
    int repl_slave_ro;
    int propagation_error_behavior; /* PROPAGATION_ERR_* */
    int repl_diskless_sync;
    int repl_diskless_sync_delay;
    int repl_diskless_sync_max_replicas;
    int repl_diskless_load;
    int repl_disable_tcp_nodelay;
    int replica_priority;
    int repl_slave_lazy_flush;
    unsigned long acllog_max_len;
    unsigned long stream_node_max_bytes;
    long long stream_node_max_entries;
    int repl_ping_replica_period;
    int repl_timeout;
    long long repl_backlog_size;
    long long repl_backlog_ttl;
    int min_replicas_to_write;
    int min_replicas_max_lag;
    char *bind_source_addr;
    sds masterauth;               /* replica.c: AUTH sent to the primary (any bytes), NULL: none */
    char *masteruser;
    char *replica_announce_ip;    /* REPLCONF ip-address, NULL: the primary sees our address */
    int replica_announce_port;    /* REPLCONF listening-port, 0: our port */
    int replica_announced;

    /* collections: compact-encoding thresholds (config.c) */
    unsigned long hash_max_listpack_entries;
    unsigned long hash_max_listpack_value;
    int list_max_listpack_size;   /* > 0: entries per node; -1..-5: 4/8/16/32/64 KB per node */
    int list_compress_depth;
    unsigned long set_max_intset_entries;
    unsigned long set_max_listpack_entries;
    unsigned long set_max_listpack_value;
    unsigned long zset_max_listpack_entries;
    unsigned long zset_max_listpack_value;
    unsigned long hll_sparse_max_bytes;

    /* scripting (script.c, eval.c) */
    long long busy_reply_threshold; /* ms a script runs before others get -BUSY (lua-time-limit) */

    /* slowlog */
    list *slowlog;
    long long slowlog_id_next;
    long long slowlog_log_slower_than;
    unsigned long slowlog_max_len;

    /* latency monitor and latency tracking (latency.c) */
    long long latency_monitor_threshold; /* ms; 0 = monitor off */
    int latency_tracking_enabled;

    /* stats */
    long long stat_numcommands;
    long long stat_numconnections;
    long long stat_rejected_conn;
    long long stat_expiredkeys;
    long long stat_expired_stale_perc;
    long long stat_expired_time_cap_reached_count; /* active cycles cut by their time limit */
    long long stat_expire_cycle_time_used;         /* microseconds spent in active cycles */
    long long stat_evictedkeys;
    long long stat_keyspace_hits;
    long long stat_keyspace_misses;
    long long stat_net_input_bytes;
    long long stat_net_output_bytes;
    long long stat_total_reads_processed;  /* readQueryFromClient calls (INFO total_reads_processed) */
    long long stat_total_writes_processed; /* writeToClient calls (INFO total_writes_processed) */
    long long stat_unexpected_error_replies;
    long long stat_total_error_replies;
    long long stat_client_qbuf_limit_disconnections;
    long long stat_client_outbuf_limit_disconnections;
    dict *errors;                 /* error prefix -> count, for INFO errorstats */
    size_t stat_peak_memory;

    /* client-side caching (tracking.c) */
    unsigned long tracking_clients;        /* clients with tracking on */
    unsigned long tracking_table_max_keys; /* 0: no limit */
};

extern struct redisServer server;

/* `supervised` directive values, kept in server.supervised_mode */
#define SUPERVISED_NONE 0
#define SUPERVISED_AUTODETECT 1
#define SUPERVISED_SYSTEMD 2
#define SUPERVISED_UPSTART 3

#define PROTECTED_ACTION_ALLOWED_NO 0
#define PROTECTED_ACTION_ALLOWED_YES 1
#define PROTECTED_ACTION_ALLOWED_LOCAL 2
int protectedActionAllowed(int setting, client *c); /* config.c */

/* ---- networking.c: clients, reading and parsing requests, writing replies ---------------- */
client *createClient(connection *conn);
void freeClient(client *c);
void freeClientAsync(client *c);
void freeClientsInAsyncFreeQueue(void);
void protectClient(client *c);   /* its command runs a load: no input read, freed only after */
void unprotectClient(client *c);
void resetClient(client *c);
void freeClientArgv(client *c);
void acceptTcpHandler(aeEventLoop *el, int fd, void *privdata, int mask);
void acceptUnixHandler(aeEventLoop *el, int fd, void *privdata, int mask);
void acceptCommonHandler(connection *conn, int flags); /* tls.c's accept handler too */
void acceptConnections(int fd, const char *what, int flags, connection *(*wrap)(int cfd)); /* a listener's pending sockets */
int handleClientsWithPendingWrites(void);
int clientHasPendingReplies(client *c);
size_t queryBufferClaim(client *c);
void writeClientRepliesNow(client *c); /* on a blocking socket: all of them (the Lua debugger's sessions) */
int processInputBuffer(client *c);
sds catClientInfoString(sds s, client *c);
int getClientType(client *c);
char *getClientPeerId(client *c);
unsigned long getClientOutputBufferMemoryUsage(client *c);
unsigned long long clientHardLimitBytes(int type); /* a replica's: at least repl-backlog-size */
void clientSetAuthenticated(client *c, int authenticated);
void closeClientOnOutputBufferLimitReached(client *c);
void clientsCron(void);
void clientShmCommand(client *c); /* shm.c: CLIENT SHM */
void shmInit(void);               /* shm.c: at start-up */
int shmSpinBeforeSleep(void);     /* shm.c: beforeSleep's last step; 1: it ran commands, don't sleep */
unsigned long shmExtraDescriptors(void); /* shm.c: descriptors shm clients hold beyond one each (count as clients) */
int shmRunWakes(void);            /* shm.c: run the shm handlers queued without a signal (loading, busy scripts) */
sds shmCatInfo(sds info);         /* shm.c: the shm_* fields of INFO clients */
void rewriteClientCommandArgument(client *c, int i, robj *newval);

/* ---- prefetch.c -------------------------------------------------------------------------- */
void prefetchPipelinedKeys(client *c); /* cache hints before a pipelined command */

/* ---- reply.c: building replies, RESP2 and RESP3 ------------------------------------------ */
void addReply(client *c, robj *obj);
sds replyTakeAll(client *c); /* a fake client's whole reply as one string, its buffers emptied */
void addReplyProto(client *c, const char *s, size_t len);
void addReplyBulk(client *c, robj *obj);
void addReplyOrNull(client *c, robj *reply); /* reply, or the RESP-appropriate null if NULL */
void addReplyBulkCString(client *c, const char *s);
void addReplyBulkCBuffer(client *c, const void *p, size_t len);
void addReplyBulkSds(client *c, sds s);
void addReplyBulkLongLong(client *c, long long ll);
void addReplyLongLong(client *c, long long ll);
void addReplyDouble(client *c, double d);
void addReplyStatus(client *c, const char *status);
void addReplyStatusLength(client *c, const char *s, size_t len);
void addReplyVerbatim(client *c, const char *s, size_t len, const char *ext);
void addReplyError(client *c, const char *err);
void addReplyErrorSds(client *c, sds err);
void addReplyErrorFormat(client *c, const char *fmt, ...) PRINTF_FMT(2, 3);
void addReplyErrorObject(client *c, robj *err);
void addReplyErrorArity(client *c);
void replyCountDeferredErrors(client *c, list *errors); /* a module client's errors reach c */
void replyDeferError(list **errors, const char *text, size_t len); /* kept uncounted, for the above */
void addReplyErrorExpireTime(client *c);
void addReplyNull(client *c);
void addReplyNullArray(client *c);
void addReplyBool(client *c, int b);
void addReplyArrayLen(client *c, long length);
void addReplyMapLen(client *c, long length);
void addReplySetLen(client *c, long length);
void addReplyPushLen(client *c, long length);
void setDeferredAttributeLen(client *c, void *node, long length);
void addReplyBigNum(client *c, const char *num, size_t len);
void addReplyHelp(client *c, const char **help);
void addReplySubcommandSyntaxError(client *c);
void *addReplyDeferredLen(client *c);
void setDeferredArrayLen(client *c, void *node, long length);
void setDeferredMapLen(client *c, void *node, long length);
void setDeferredSetLen(client *c, void *node, long length);

/* ---- object.c ------------------------------------------------------------------ */
robj *createObject(int type, void *ptr);
robj *createStringObject(const char *ptr, size_t len);
robj *createRawStringObject(const char *ptr, size_t len);
robj *createEmbeddedStringObjectWithRoom(const char *ptr, size_t len);
int embeddedStringHasRoom(const robj *o);
robj *reuseEmbeddedStringObject(robj *o, const char *ptr, size_t len);
robj *createStringObjectFromLongLong(long long value);
robj *createStringObjectFromLongLongForValue(long long value);
robj *dupStringObject(const robj *o);
robj *tryObjectEncoding(robj *o);
robj *getDecodedObject(robj *o);
robj *makeObjectShared(robj *o);
void incrRefCount(robj *o);
void decrRefCount(robj *o);
size_t stringObjectLen(robj *o);
int equalStringObjects(robj *a, robj *b);
int argIsWord(const robj *arg, const char *word);
int getLongLongFromObject(robj *o, long long *target);
int getLongLongFromObjectOrReply(client *c, robj *o, long long *target, const char *msg);
int getLongFromObjectOrReply(client *c, robj *o, long *target, const char *msg);
int getIntFromObjectOrReply(client *c, robj *o, int *target, const char *msg);
int getRangeLongFromObjectOrReply(client *c, robj *o, long min, long max, long *target, const char *msg);
int getPositiveLongFromObjectOrReply(client *c, robj *o, long *target, const char *msg);
int getLongDoubleFromObjectOrReply(client *c, robj *o, long double *target, const char *msg);
int getDoubleFromObjectOrReply(client *c, robj *o, double *target, const char *msg);
int checkType(client *c, robj *o, int type);
struct xfloat;
int xfloatSumOrReply(client *c, struct xfloat value, struct xfloat incr, char *buf);
const char *objectEncodingName(const robj *o);
const char *strObjectType(int type);
/* What each type does for the generic code, in the type's file, called by a
 * switch on the type where it is needed (object.c: free, MEMORY USAGE;
 * keyspace.c: COPY, HSCAN/SSCAN/ZSCAN; debug.c: DEBUG DIGEST). MEMORY
 * USAGE counts the bytes a value takes outside its object's own block, as
 * the allocator counts them (zmalloc_size); aggregates measure `samples`
 * elements (SIZE_MAX: all) and scale up with sampledTotal(). A digest is
 * mixed into a key's (lists: mixDigest per element in order; sets and
 * hashes: xorDigest of per-element digests). A scan appends the elements
 * visited at `cursor` to `out` (a list of sds; hashes field, value ...;
 * sorted sets member, score ...) and returns the next cursor (0: done);
 * `count` is the COUNT hint. */
void freeListObject(robj *o);
void freeSetObject(robj *o);
void freeHashObject(robj *o);
void freeZsetObject(robj *o);
void freeStreamObject(robj *o);
robj *dupListObject(robj *o);
robj *dupSetObject(robj *o);
robj *dupHashObject(robj *o);
robj *dupZsetObject(robj *o);
robj *dupStreamObject(robj *o);
size_t listMemoryUsage(robj *o, size_t samples);
size_t setMemoryUsage(robj *o, size_t samples);
size_t hashMemoryUsage(robj *o, size_t samples);
size_t zsetMemoryUsage(robj *o, size_t samples);
size_t streamMemoryUsage(robj *o, size_t samples);
void listDigest(unsigned char digest[20], robj *o);
void setDigest(unsigned char digest[20], robj *o);
void hashDigest(unsigned char digest[20], robj *o);
void zsetDigest(unsigned char digest[20], robj *o);
void streamDigest(unsigned char digest[20], robj *o);
uint64_t setScan(robj *o, uint64_t cursor, long count, list *out);
uint64_t hashScan(robj *o, uint64_t cursor, long count, list *out);
uint64_t zsetScan(robj *o, uint64_t cursor, long count, list *out);
size_t objectPayloadMemoryUsage(robj *o, size_t samples, int dbid); /* dbid: a module value's, for its type */
size_t sdsMemoryUsage(sds s); /* a standalone sds's block */
size_t sampledTotal(size_t bytes, size_t sampled, size_t total);
typedef size_t dictEntryBytesProc(const dictEntry *de); /* what an entry points to */
size_t dictMemoryUsage(dict *d, size_t samples, dictEntryBytesProc *entryBytes);
uint64_t dictStringObjectHash(const void *key);                   /* dictType parts for */
int dictStringObjectCompare(dict *d, const void *a, const void *b); /* string-object keys */
void dictStringObjectDestructor(dict *d, void *o);
unsigned int getLRUClock(void);
unsigned int LRU_CLOCK(void);
unsigned long long estimateObjectIdleTime(robj *o);
#define sdsEncodedObject(objptr) \
    ((objptr)->encoding == OBJ_ENCODING_RAW || (objptr)->encoding == OBJ_ENCODING_EMBSTR)

/* ---- db.c ---------------------------------------------------------------------- */
#define LOOKUP_NONE 0
#define LOOKUP_NOTOUCH (1 << 0)
#define LOOKUP_NONOTIFY (1 << 1)
#define LOOKUP_NOSTATS (1 << 2)
#define LOOKUP_WRITE (1 << 3)
#define LOOKUP_NOEXPIRE (1 << 4)

#define SETKEY_KEEPTTL 1
#define SETKEY_NO_SIGNAL 2
#define SETKEY_ALREADY_EXIST 4
#define SETKEY_DOESNT_EXIST 8

/* Values stored in the keyspace are owned by it: dbAdd/dbOverwrite/setKey
 * copy or take over the value into a kvobj (kvobj.h) and return the stored
 * object. The robj* you get back (or from lookupKey*) is valid until the
 * key is overwritten, renamed, moved, deleted, or given a TTL (setExpire
 * returns the object, which may have moved); keep using the returned
 * pointer, never the one passed in. */
void initDb(redisDb *db, int id);
robj *lookupKeyRead(redisDb *db, robj *key);
robj *lookupKeyWrite(redisDb *db, robj *key);
robj *lookupKeyReadOrReply(client *c, robj *key, robj *reply);
robj *lookupKeyWriteOrReply(client *c, robj *key, robj *reply);
robj *lookupKeyReadWithFlags(redisDb *db, robj *key, int flags);
robj *dbAdd(redisDb *db, robj *key, robj *val);       /* consumes a reference to val */
robj *dbAddWithExpire(redisDb *db, robj *key, robj *val, long long when);
robj *dbDetach(redisDb *db, robj *key);  /* unlinks the key; its object is the caller's */
void dbTrackExpire(redisDb *db, kvobj *o); /* db->expires follows o's TTL */
robj *dbOverwrite(redisDb *db, robj *key, robj *val); /* consumes; keeps the TTL */
void setKey(client *c, redisDb *db, robj *key, robj *val, int flags);     /* caller keeps val */
void setKeyTake(client *c, redisDb *db, robj *key, robj *val, int flags); /* consumes val */
void setKeyFound(client *c, redisDb *db, robj *key, robj *val, robj *existing, int flags); /* consumes val */
int dbExists(redisDb *db, robj *key);
int dbDelete(redisDb *db, robj *key);
int dbSyncDelete(redisDb *db, robj *key);
int dbAsyncDelete(redisDb *db, robj *key);
robj *dbRandomKey(redisDb *db);
long long emptyData(int dbnum, int async); /* one db, or all with -1; returns the keys removed */
int selectDb(client *c, int id);
void signalModifiedKey(client *c, redisDb *db, robj *key);
void signalFlushedDb(int dbid); /* before a FLUSHDB (dbid) or FLUSHALL (-1) */
void signalSwappedDb(int id1, int id2);
long long dbTotalServerKeyCount(void);
robj *dbUnshareStringValue(redisDb *db, robj *key, robj *o);

/* ---- keyspace.c: SCAN and the random-pick counts --------------------------------------- */
void scanKeyOfTypeCommand(client *c, int type); /* HSCAN/SSCAN/ZSCAN of a key of this type */
/* HRANDFIELD/ZRANDMEMBER key count [option]: the count (64-bit on every
 * build; any but LLONG_MIN) and whether `option` (WITHVALUES, WITHSCORES)
 * followed, which halves the range (the reply is twice as long). C_ERR
 * after replying Redis's error. */
int getRandomCountOrReply(client *c, const char *option, long long *count, int *withpairs);
/* A negative count: -count picks with repeats, each items_per_pick reply
 * items. The reply length must fit a long, which only a 32-bit build can
 * exceed ("value is out of range"). */
int getRandomRepeatsOrReply(client *c, long long count, long items_per_pick, unsigned long *picks);

/* ---- expire.c ------------------------------------------------------------------ */
#define ACTIVE_EXPIRE_CYCLE_SLOW 0
#define ACTIVE_EXPIRE_CYCLE_FAST 1
robj *setExpire(client *c, redisDb *db, robj *key, long long when); /* the (moved) object */
int removeExpire(redisDb *db, robj *key);
int keyIsExpired(redisDb *db, robj *key);
int expireIfNeeded(redisDb *db, robj *key, int flags);
void activeExpireCycle(int type);
void forgetReplicaKeysWithExpire(void); /* a writable replica's own keys with a TTL (expire.c) */
int checkAlreadyExpired(long long when);
void propagateExpireAt(client *c, robj *key, long long when); /* the command replays as PEXPIREAT */

/* ---- server.c ------------------------------------------------------------------- */
void call(client *c); /* runs c->cmd: timing, stats, slowlog, propagation, MONITOR */
void commandClockChain(int open); /* processInputBuffer: a batch's commands share clock readings */
int processCommand(client *c);
redisCommand *lookupCommand(robj **argv, int argc);
redisCommand *lookupCommandBySds(sds s);
int commandTableAdd(redisCommand *cmd, redisCommand *parent); /* module commands, at run time */
void commandTableRemove(redisCommand *cmd);

/* ---- module.c: Redis 7.0 modules ------------------------------------------------------ */
int moduleQueueLoad(sds *argv, int argc, sds *err); /* a loadmodule line: path [args] */
void moduleLoadQueued(void);                        /* start-up: load them, or exit */
void moduleCommand(client *c);
void moduleReplyList(client *c); /* MODULE LIST's reply, also HELLO's "modules" */
sds *moduleRewriteLoadLines(int *count); /* CONFIG REWRITE: "loadmodule path args..." per loaded module */
/* module_cluster.c: a module's message from the cluster bus (cluster_bus.c) */
void moduleClusterMessage(const char *sender_id, uint64_t module_id, uint8_t type, const unsigned char *payload,
                          uint32_t len);
/* module_config.c: modules' configuration parameters, "<module>.<name>", for config.c */
typedef struct moduleConfig moduleConfig;
#define MODULE_CONFIG_F_IMMUTABLE (1 << 0)
#define MODULE_CONFIG_F_SENSITIVE (1 << 1)
#define MODULE_CONFIG_F_HIDDEN (1 << 2)
#define MODULE_CONFIG_F_PROTECTED (1 << 3)
#define MODULE_CONFIG_F_DENY_LOADING (1 << 4)
moduleConfig *moduleConfigLookup(const char *fullname);
moduleConfig *moduleConfigAt(int i);                /* the i-th registered, NULL past the end */
int moduleConfigFlags(moduleConfig *mc);            /* MODULE_CONFIG_F_* */
const char *moduleConfigName(moduleConfig *mc);     /* "<module>.<name>" */
sds moduleConfigGetValue(moduleConfig *mc);         /* as CONFIG GET shows it */
int moduleConfigSet(moduleConfig *mc, sds value, sds *err, int *changed);
void moduleConfigAddApply(list *pending, moduleConfig *mc);
int moduleConfigRunApplies(list *pending, sds *err, const char **culprit);
sds moduleConfigRewriteLine(moduleConfig *mc, int *is_default);
int moduleConfigQueueLine(sds *argv, int argc, sds *err); /* a config file line "<module>.<name> value" */
void moduleConfigQueueDiscard(void);                /* the values queued for modules are dropped */
/* module_info.c: INFO's "Modules" lines, and the sections modules add (names NULL: all) */
sds moduleInfoList(sds info);
/* module_fork.c: a module's fork child runs. Inline (a load of one pid);
 * lookupKey no longer asks it per key but reads snapshot.h's cached answer,
 * which forkForget() and the fork's start refresh (updateDictResizePolicy). */
extern pid_t moduleForkChild;
static inline int moduleForkInProgress(void) { return moduleForkChild != -1; }
extern int moduleCommandFilterCount;  /* module_filter.c: filters registered (processCommand runs them) */
sds unknownCommandError(client *c); /* server.c: "unknown command '...', with args beginning with: ..." */
int moduleGetKeysViaApi(redisCommand *cmd, robj **argv, int argc, getKeysResult *result); /* module.c: "getkeys-api" */
int moduleGetChannelsViaApi(redisCommand *cmd, robj **argv, int argc, getKeysResult *result); /* "getchannels-api" */
const char *moduleCommandOwnerName(redisCommand *cmd); /* module.c: the name of the module that made cmd */
long moduleCommandDocsExtraFields(redisCommand *cmd);  /* module_cmdinfo.c: COMMAND DOCS's history, arguments */
void moduleAddReplyCommandDocsExtra(client *c, redisCommand *cmd);
static inline int moduleCommandFiltersActive(void) { return moduleCommandFilterCount; }
void moduleCallCommandFilters(client *c); /* they see, and may rewrite, c's argv before lookup */
size_t moduleForkLastCowSize(void); /* its last child's copy-on-write bytes */
sds moduleInfoCollect(sds info, const char *const *names, int names_count, int for_crash_report, int *sections);
/* module_block.c / module_thread.c: the event loop's and blocked.c's hooks */
void moduleHandleBlockedClients(void);              /* beforeSleep: clients modules unblocked */
int moduleBlockedUnblockByRequest(client *c, int with_error); /* CLIENT UNBLOCK; 0: not a module's */
void moduleBlockedClientFreed(client *c);           /* freeClient(): its disconnect callback */
void moduleBlockedUnblockWithError(client *c, sds err); /* cluster down: err, and its disconnect callback */
void moduleAuthUserChanged(client *c); /* module_acl.c: AUTH, RESET, revoked or freed: the module's callback fires */
void moduleBlockedServeOnKey(client *c, robj *key); /* blocked.c: a key it waits for is ready */
void moduleBeforeSleep(void);                       /* releases the modules' lock while we sleep */
void moduleYieldEnd(void);                          /* module.c: a module command that yielded returned */
sds moduleBusyError(void);                          /* processCommand: -BUSY while a module yields, or NULL */
int moduleBusyHoldsInput(void);                     /* processInputBuffer: such a yield runs no command */
void moduleAfterSleep(void);                        /* takes it back */
/* a module data type's value (OBJ_MODULE): ptr is the module's moduleValue */
void moduleFreeValue(robj *o);
size_t moduleValueMemUsage(robj *o, size_t samples, int dbid); /* o: a keyspace entry (kvobj) */
size_t moduleValueFreeEffort(robj *o, int dbid);                 /* lazyfree: SIZE_MAX for "always in the background" */
void moduleNotifyKeyUnlink(robj *key, robj *o, int dbid);        /* the key leaves the keyspace (deleted, overwritten) */
/* module_defrag.c / module_type.c: active defrag of module values and globals (defrag.c) */
int moduleDefragValue(robj *o, int dbid);  /* 1 done, 0 too big: queue it (moduleDefragLater) */
int moduleDefragLater(robj *o, int dbid, unsigned long *cursor, long long endtime_us); /* 1: more to do */
void moduleDefragGlobals(void);            /* each module's RegisterDefragFunc callback, once a pass */
void *defragMoveBlock(void *ptr);          /* defrag.c: ptr's block moved (old freed), or NULL; counted */
const char *moduleValueTypeName(robj *o);       /* TYPE's answer: the type's 9-char name */
robj *moduleDupValueOrReply(client *c, robj *fromkey, robj *tokey, int fromdb, int todb, robj *o); /* COPY */
void moduleDigestValue(robj *key, int dbid, robj *o, unsigned char digest[20]);
sds moduleRewriteValue(sds buf, sds key, robj *o, int dbid); /* AOF rewrite: the type's commands */
void moduleRdbSaveValue(void *writer, sds key, robj *o, int dbid); /* dbid: GetDbIdFromIO's, -1 when none */
robj *moduleRdbLoadValue(void *reader, robj *key, int dbid);
void moduleRdbSaveAux(void *writer, int when, unsigned char opcode); /* each type's aux_save for `when` (1 before, 2 after the keys) */
int moduleRdbLoadAux(void *reader); /* after the opcode: 1 loaded (or walked), 0 with the reader's error set */
/* rdb.c: the RDB encoders and decoders a module value's fields go through */
void rdbModulePutLen(void *writer, uint64_t len);
void rdbModulePutString(void *writer, const char *p, size_t len);
void rdbModulePutBytes(void *writer, const void *p, size_t len);
int rdbModuleGetLen(void *reader, uint64_t *len);
sds rdbModuleGetString(void *reader);
int rdbModuleGetBytes(void *reader, void *p, size_t len);
void rdbModuleSetError(void *reader, const char *msg);
int rdbModuleChecking(void *reader);
sds rdbModuleSaveToString(void (*save)(void *writer, void *ud), void *ud);
const char *rdbModuleLoadFromString(const unsigned char *p, size_t len, void (*load)(void *reader, void *ud), void *ud);
redisCommand *lookupCommandByCString(const char *s);
redisCommand *lookupCommandByFullName(const char *name); /* "get" or "config|get" (command_cmd.c) */
void serverLog(int level, const char *fmt, ...) PRINTF_FMT(2, 3);
long long ustime(void);
long long mstime(void);
void updateCachedTime(void);
void incrementErrorCount(const char *fullerr, size_t namelen);
int hasActiveChildProcess(void);
/* defrag.c: active defragmentation */
void activeDefragCycle(void);
int defragApplyConfig(sds *err);
int defragRunning(void);
sds defragInfoStats(sds info);
void defragResetStats(void);
void debugMallctlCommand(client *c);
void debugMallctlStrCommand(client *c);   /* an AOF rewrite or BGSAVE child is running */
void updateDictResizePolicy(void); /* call when a child starts; the cron notices when it ends */
int restartTcpListeners(void);
int listenOnTcpPort(int port, int *fds, int *count); /* the TCP port's and tls.c's listeners */
void closeListenerFds(int *fds, int *count);
void setupForkChild(const char *cpulist, const char *who, const char *title);
void setShutdownSignalsHandler(void (*handler)(int)); /* SIGTERM and SIGINT */
void shutdownIfAsked(void);        /* a signal asked for a shutdown: done here (cron, and while loading) */
long long shutdownRemainingMs(void); /* INFO shutdown_in_milliseconds: -1 when no shutdown waits for replicas */
int validateClientName(client *c, robj *name);
void setClientName(client *c, robj *name);
extern struct redisCommand redisCommandTable[]; /* commands.c, from commands.def */

/* ---- propagate.c ------------------------------------------------------------------------- */
/* What a command changed, as commands, to the AOF (see there).
 * propagationEnabled(): whether anything consumes propagation now -- the
 * AOF is on. That is not "the ops are written": aofFeed drops what comes
 * while the AOF's file is not open (start-up, a failed open). A
 * replication stream will be the second consumer. Replaying a file
 * propagates nothing. A command tests it before building a vector. */
extern int replicationStreamActive; /* replication.c: a backlog exists, so ops feed the stream */
static inline int propagationEnabled(void) {
    return (server.aof_enabled || replicationStreamActive) && !server.loading;
}
void propagateBeforeCall(client *c);
void propagateAfterCall(client *c, long long dirty_delta);
void alsoPropagate(int dbid, robj **argv, int argc);           /* an effect besides the command's own */
void propagateUnitBegin(int wraps); /* an execution unit outside any command: its ops go out at its end */
void propagateUnitEnd(void);
void propagateCommandAs(client *c, robj **argv, int argc);     /* the command's effect, instead of its argv */
void propagateToReplicasOnly(client *c);                       /* the command to the replicas, not the AOF (PUBLISH) */
void propagateAsKeyCommand(client *c, const char *name, robj *key, long long count, int with_count); /* name key [count] */
void preventCommandPropagation(client *c);
void callChargeErrors(void);       /* script.c: errors counted outside call() are charged */
int propagateQueuedOps(void); /* ops queued by the command running now (WAIT inside EXEC) */
void propagateSetTargets(int to_aof, int to_replicas); /* script.c: redis.set_repl() */
int propagateSwapTargets(int to_aof, int to_replicas); /* module_call.c: returns the previous ones */
void propagateRestoreTargets(int targets);
void forceCommandPropagation(client *c); /* propagate even if nothing looked dirty (FLUSH* of an empty db) */

/* ---- notify.c: keyspace notifications ---------------------------------------------------- */
#define NOTIFY_KEYSPACE (1 << 0)
#define NOTIFY_KEYEVENT (1 << 1)
#define NOTIFY_GENERIC (1 << 2)
#define NOTIFY_STRING (1 << 3)
#define NOTIFY_LIST (1 << 4)
#define NOTIFY_SET (1 << 5)
#define NOTIFY_HASH (1 << 6)
#define NOTIFY_ZSET (1 << 7)
#define NOTIFY_EXPIRED (1 << 8)
#define NOTIFY_EVICTED (1 << 9)
#define NOTIFY_STREAM (1 << 10)
#define NOTIFY_KEY_MISS (1 << 11)
#define NOTIFY_LOADED (1 << 12)
#define NOTIFY_MODULE (1 << 13)
#define NOTIFY_NEW (1 << 14)
extern int moduleNotifyMask; /* module_notify.c: the event types loaded modules subscribed to */
/* module_events.c: modules' server events; each returns at once when no module listens */
void moduleFireFlushDB(int end, int async, int dbnum); /* emptyData's start (end 0) and end */
void moduleFireCronLoop(int hz);
void moduleFireEventLoop(int after_sleep); /* the EventLoop event's BEFORE_SLEEP (0) and AFTER_SLEEP (1) */
void moduleFireShutdown(void);
void moduleFirePersistence(int aof, int end, int ok); /* rdb.c, aof_rewrite.c, replication.c: a snapshot or rewrite starts/ends */
void moduleFireRoleChanged(const char *host, int port); /* replica.c: now a replica of host, or (NULL) a primary */
void moduleFireMasterLink(int up);                      /* replica.c: the link to our primary up or down */
void moduleFireReplicaChange(int online);               /* replication.c: a replica online, or an online one gone */
void moduleFireSwapDb(int first, int second);          /* keyspace.c: SWAPDB */
void moduleFireLoadingProgress(int aof, int hz, int progress); /* loading.c: at most hz a second while loading */
void moduleFireConfigChange(int count, const char **names); /* config.c: a CONFIG SET that succeeded */
extern int moduleEventListeners;                        /* module_events.c: subscriptions in force (0: fire nothing) */
void moduleFireClientChange(client *c, int disconnected); /* networking.c: accepted, or freed */
void moduleFireReplAsyncLoad(int subevent); /* replica.c: a swapdb full sync started 0, aborted 1, completed 2 */
void moduleFireLoading(int end, int aof); /* loading.c: a load starts (an AOF's or an RDB's) or ends */
int loadingEnterRdb(int in_rdb); /* rdb.c: an RDB is parsed (1) or no more; returns the previous state */
void notifyKeyspaceEventPublish(int type, const char *event, robj *key, int dbid);
void moduleNotifyKeyspaceEvent(int type, const char *event, robj *key, int dbid);
static inline void notifyKeyspaceEvent(int type, const char *event, robj *key, int dbid) {
    if ((server.notify_keyspace_events | moduleNotifyMask) & type) notifyKeyspaceEventPublish(type, event, key, dbid);
}

/* ---- evict.c ------------------------------------------------------------------------ */
void evictApplyDefaultCap(void);
int performEvictions(void);
double evictMemoryLevel(void); /* used / maxmemory as eviction counts it; 0 without maxmemory */
void evictSoon(void); /* CONFIG SET maxmemory: evict from a timer, after the command */
size_t memoryNotCountedForEviction(void); /* the AOF buffer, replicas' output (evict.c) */
unsigned long long evictAddressSpaceLimit(void);
void updateLFU(robj *val);
unsigned long lfuDecrAndReturn(robj *o);
unsigned int lfuInitialClock(void);

/* ---- config.c ------------------------------------------------------------------ */
void initConfigValues(void);
void loadServerConfig(char *filename, char config_from_stdin, char *options);
int configPrintDirectives(FILE *fp); /* --list-config-directives */
int configRewriteFile(int force_all);
void configWarnNoEffectDirectives(void); /* start-up: one line naming compat-only directives set */
void configApplyEventLoopSpin(void);     /* event-loop-spin-us to server.el (0 on a single CPU) */

/* ---- debug.c ------------------------------------------------------------------- */
#define serverAssert(e) (likely(e) ? (void)0 : (serverAssertFailed(#e, __FILE__, __LINE__), abort()))
#define serverPanic(...) (serverPanicFailed(__FILE__, __LINE__, __VA_ARGS__), abort())
void serverAssertFailed(const char *estr, const char *file, int line);
void serverPanicFailed(const char *file, int line, const char *msg, ...) PRINTF_FMT(3, 4);
void setupSignalHandlers(void);
void serverLogFromHandler(int level, const char *msg); /* signal-safe: open/write only */
void watchdogSchedule(void);           /* serverCron and CONFIG SET watchdog-period: (re)arm or disarm */
void watchdogBlockInThisThread(void);  /* first thing in every background thread */
/* Dataset digest (DEBUG DIGEST): each type's xxxDigest, above. */
void xorDigest(unsigned char digest[20], const void *data, size_t len);
void mixDigest(unsigned char digest[20], const void *data, size_t len);

/* ---- info.c, client_cmd.c, slowlog.c, monitor.c ---------------------------------- */
sds infoSafeName(const char *name); /* '#', ':', CR and LF as '_': a name INFO can print */
sds genRedisInfoString(const char *section); /* "all", "default", "server" ... */
void infoInit(void);                         /* after the event loop exists */
void changeReplicationId(void);
int postponeCommandIfPaused(client *c);      /* 1: c waits for CLIENT UNPAUSE */
int clientsArePaused(void);                  /* expiry/eviction stop while true */
void clientsPauseWrites(long long end_ms);    /* FAILOVER: like CLIENT PAUSE WRITE */
void clientsUnpause(void);
client *clientById(uint64_t id);             /* NULL: no such client (a linear search) */
void slowlogInit(void);
void slowlogPushEntryIfNeeded(client *c, robj **argv, int argc, long long duration); /* call() */
int commandArgIsRedacted(robj **argv, int argc, int j); /* AUTH/HELLO secrets */
void feedMonitors(client *c, robj **argv, int argc);
void monitorClientFreed(client *c);


/* ---- replication.c (primary side), replica.c (replica side) ---------------------------------- */
void replicationEarlyInit(void);       /* start-up, before the dataset loads (clients are served meanwhile) */
void replicationInit(void);            /* start-up, after the dataset is loaded */
void replicationReapChild(void);      /* beforeSleep: a full sync child that exited is reaped at once */
void replicationFeed(int dbid, robj **argv, int argc); /* propagate.c emitOp: one op to the stream */
void replicationFeedInStreamDb(robj **argv, int argc); /* DEBUG REPLICATE: no SELECT, no AOF */
void replicationClientFreed(client *c); /* freeClient(): a replica, the primary link or a WAIT */
void replicaCommandApplied(client *c); /* after each command of the primary's stream */
int replicaIsApplyingStream(void);     /* the primary's commands are running */
int replicationIsReplica(void);        /* replicaof is set */
int replicaLinkPhase(void);           /* 0 none, 1 connecting, 2 handshake, 3 transfer, 4 online */
sds replicationRefusal(client *c);     /* processCommand: -READONLY, -MASTERDOWN, -NOREPLICAS, or NULL */
int replicationNotEnoughGoodReplicas(void); /* min-replicas-to-write not met (a primary's -NOREPLICAS) */
sds replicationRefusalWithFlags(client *c, uint64_t flags); /* the same, c's effective CMD_* flags given */
int replicationChildActive(void);       /* the full sync's snapshot (fork child or forkless) is running */
void replicationKillChild(void);        /* SHUTDOWN, FLUSHALL: the full sync's fork child stops, its replicas sync again */
long long replicationChildStartMs(void);
unsigned long replicationReplicaCount(void); /* clients that sent SYNC/PSYNC (INFO connected_slaves) */
size_t replicationBacklogMemory(void);   /* the backlog's allocation, 0 when there is none */
size_t replicationPendingMemory(const client *c); /* a replica's stream held back during its sync */
size_t replicationReplicasOutputMemory(void);     /* all replicas' output buffers */
int replicaConfigSet(sds *argv, int argc, sds *err); /* `replicaof host port` / `no one`: C_OK or C_ERR */
sds replicaConfigGet(sds out);
sds replicationInfoString(sds info);   /* INFO replication */
const char *replicationReplId(void);
long long replicationOffset(void);
const char *replicationReplId2(void);     /* the previous history's id (a promoted replica's) */
long long replicationSecondOffset(void); /* up to which replid2 is valid, -1: none */
/* call(): after a command, the stream offset if it moved is the client's last write (WAIT) */
void replicationNoteClientWrite(client *c, long long offset_before);
/* CLIENT UNBLOCK of a client in WAIT: 0 when it isn't in WAIT */
int replicationUnblockWait(client *c, int with_error);
void replicationLoadedAux(const char *key, const char *value); /* rdb.c: repl-id / repl-offset of a loaded RDB */
void replicationLoadedExpired(int dbid, sds key); /* rdb.c: a key expired at the start-up load (a primary's DEL) */
/* INFO stats: sync_full, sync_partial_ok, sync_partial_err, total_net_repl_input_bytes, _output_bytes */
void replicationSyncCounts(long long out[5]);
void replicationResetStats(void);          /* CONFIG RESETSTAT: sync_full, sync_partial_*, repl net bytes */

/* ---- aof*.c, bio.c (see aof.h for the internals) ------------------------------------------- */
void aofInit(void);
void aofShutdown(void);
void aofBeforeSleep(void);            /* write the buffer, fsync per policy */
void aofFeed(int dbid, robj **argv, int argc); /* propagate.c: one op, as RESP, to the buffer */
int aofSetEnabled(int on, sds *err);
int aofAwaitingFirstBase(void);       /* enabled at run time, its first rewrite not installed yet */
void aofDeleteHistoryFiles(void);     /* the manifest's history files, unless aof-disable-auto-gc */
sds aofWriteDeniedError(void);        /* the -MISCONF reply while the AOF can't be written, or NULL */
sds aofInfoString(sds info);
sds aofRewriteCowInfo(sds info);      /* INFO persistence: aof_last_cow_size, module_fork_* */          /* INFO persistence fields */
size_t aofBufferMemory(void);         /* kept out of the maxmemory accounting */
long long aofLatestForkUsec(void);
long long aofTotalForks(void);

/* ---- childinfo.c: what a fork child reports to its parent (progress, copy-on-write) ---- */
void childInfoPrepare(void);          /* parent, before fork() */
void childInfoParentStarted(void);    /* parent, after fork() (also when it failed) */
void childInfoPoll(void);             /* parent, from its cron while the child runs */
size_t childInfoFinish(void);         /* parent, child gone: its final copy-on-write bytes */
void childKill(pid_t pid);            /* parent: SIGUSR1, reaped; SIGKILL if still there after 5 s */
sds childInfoString(sds info);        /* INFO persistence current_* fields */
void childInfoChildStart(void);       /* child, first thing after fork() */
void childInfoKeySaved(void);         /* child, after each key written */
void childInfoHeartbeat(double progress); /* a module's child: SendChildHeartbeat */
void childInfoSendFinal(const char *what); /* child, done: logs "Fork CoW for <what>: ..." */

/* rdb-key-save-delay, for tests: after each key a snapshot or an AOF rewrite
 * writes, sleep that many microseconds; -N sleeps 1 us after one key in N on
 * average (Redis's semantics). */
static inline void keySaveDelay(void) {
    int d = server.rdb_key_save_delay;
    if (d > 0) usleep((useconds_t)d);
    else if (d < 0 && rand() % -(long long)d == 0) usleep(1);
}

/* ---- loading.c: a load in progress (rdb.c, aof_load.c), clients served meanwhile ---------- */
void loadingStart(off_t total_bytes, const char *what); /* server.loading = 1; what: "RDB" or "AOF" */
void loadingFileStart(off_t bytes_before);    /* the next file starts at this offset of the total */
void loadingProgress(off_t file_offset);      /* bytes of the current file consumed; serves clients when due */
void loadingEnd(void);
void loadingParseStart(off_t total_bytes);  /* a replica's diskless load: the payload's size */
void loadingServeNow(void);                 /* a load waiting for its bytes serves clients meanwhile */
typedef void loadingSwapFn(void);
void loadingServeSwapped(loadingSwapFn *fn); /* async loading: fn swaps in the served dataset around each pass */
void loadingSetRdbUsedMem(long long bytes);   /* the RDB's used-mem AUX field */
void loadingCountKey(int expired);            /* rdb_last_load_keys_loaded / _expired */
void loadingKeyDelay(void);                   /* key-load-delay */
sds loadingLastLoadInfo(sds info);            /* INFO: rdb_last_load_keys_* */
sds loadingInfoString(sds info);              /* INFO: the loading_* fields, while loading */

/* ---- openfiles.c: the open-files limit and maxclients ---------------------------------- */
rlim_t openFilesRaiseLimit(rlim_t needed);    /* the soft limit raised toward needed; returns the limit */
void openFilesAdjustForMaxclients(void);      /* start-up: raise the limit or lower maxclients (exits if < 1) */
void openFilesReserveInit(void);              /* start-up: the spare descriptor for EMFILE */
int openFilesRefuseWhenExhausted(int listener, const char *what); /* after a failed accept(): 1 refused, -1 out, 0 other */

/* ---- cpuaffinity.c: the *_cpulist directives ------------------------------------------ */
int clusterHostnameValidate(const char *value, sds *err); /* cluster-announce-hostname */
int clusterApplyAnnounced(sds *err); /* CONFIG SET cluster-announce-*: myself's address follows */
int cpulistValidate(const char *value, sds *err); /* config validator: Redis's "0-7:2,9" syntax */
void cpuAffinityInit(void);                       /* start-up: pin the main thread (server_cpulist) */
void cpuAffinityBioThread(const char *name);      /* first thing in the bio thread: name, bio_cpulist */
void cpuAffinityChild(const char *list, const char *who); /* in a fork child, right after fork(): CPUs, nice */
void cpuAffinitySnapshotThread(const char *cpulist, const char *name); /* first in snapshot.c's writer: bgsave_cpulist */

/* ---- thp.c, oom.c: OS tuning (disable-thp, oom-score-adj) ------------------------------ */
void thpInit(void);          /* start-up: disable THP for the process if asked and `always` */
int oomScoreApply(int cls);  /* write /proc/self/oom_score_adj for OOM_CLASS_* (or restore it) */
int oomScoreApplyServer(void); /* the main process: OOM_CLASS_REPLICA while a replica, else MAIN */

/* ---- rdb.c ------------------------------------------------------------------------------ */
#define SHUTDOWN_NOSAVE 1
#define SHUTDOWN_SAVE 2
#define SHUTDOWN_NOW 4
#define SHUTDOWN_FORCE 8
void rdbInit(void);                   /* at start-up: load the dump when the AOF is off */
int rdbSaveNow(void);
int rdbSaveToFd(int fd, int aof_base);
void rdbSetSaveFilter(int skip_data, int skip_functions);

/* memtest.c: redis-server --test-memory <megabytes> */
int memtestMain(int argc, char **argv);
int rdbLoadFd(int fd, const char *name, int aof_base); /* the caller runs loadingStart/End */
int rdbLoadFdPrefix(int fd, const char *name, int aof_base, off_t *end); /* an RDB with data after it */
int rdbLoadBuffer(const void *buf, size_t len, const char *name, int aof_base); /* the same, from memory */
typedef ssize_t rdbStreamReadFn(void *ctx, void *buf, size_t len); /* > 0 bytes, 0 the end, -1 an error */
int rdbLoadStream(rdbStreamReadFn *fn, void *ctx, const char *name, int aof_base, sds *rest);
int rdbSaveOnShutdown(int flags);
int rdbBgsaveInProgress(void);
void rdbKillChild(void); /* stop a BGSAVE and drop its unfinished file */
void rdbKillChildBeforeSync(int from_disk); /* replica.c: before the primary's snapshot loads */
sds rdbWriteDeniedError(void);
sds rdbInfoString(sds info);
#define RDB_VERSION 10          /* what we write: snapshots, AOF preambles, DUMP payloads */
#define RDB_MAX_READ_VERSION 12 /* what we load: 7.2 writes 11, 7.4 writes 12 */
sds rdbSerializeValue(robj *o); /* type byte + value, no key (DUMP) */
sds rdbEncodeString(const char *p, size_t len); /* one string in the stream's encoding */
sds rdbDecodeFunction(const unsigned char *p, size_t len, size_t *used, sds *err); /* FUNCTION RESTORE */
robj *rdbDeserializeValue(const unsigned char *p, size_t len, int rdbver, sds *err);
size_t rdbSerializedValueLength(robj *o); /* DEBUG OBJECT serializedlength */
sds dumpPayloadCreate(robj *o);          /* dump.c: DUMP's payload (MIGRATE sends it too) */
void migrateCron(void);                  /* migrate.c: close the cached links left idle */
unsigned long migrateCachedLinks(void);  /* migrate.c: INFO migrate_cached_sockets */

/* redis-check-rdb (rdb_check.c) walks a file with the loader itself, every
 * validation included, through rdbCheckFd(): the loader hands it each key
 * (counted and dropped, never stored), calls back on each AUX field and
 * SELECTDB (offset: bytes read so far), and keeps the rest up to date. */
typedef struct rdbCheck {
    void (*aux)(long long offset, sds name, sds value);
    void (*selectDb)(long long offset, long long id);
    const char *doing;    /* the step under way, in Redis's words: "start", "read-type" ... */
    int type;             /* and the RDB type of that value */
    sds key;              /* the key whose value is being read, else NULL (the caller frees it) */
    long long keys, expires, already_expired;
    int checksum_verified; /* 0 after a good walk: the file has no checksum, or it was not checked */
    long long offset;     /* at the end: where the walk stopped */
    const char *error;    /* at the end: why it stopped early, NULL if the file is good */
} rdbCheck;
int rdbCheckFd(int fd, rdbCheck *check); /* C_OK if the file is good */
int rdbCheckMain(int argc, char **argv); /* the program redis-check-rdb (main() dispatches on argv[0]) */

/* ---- scripting: eval.c (script.h and script_lua.h hold the engine's API) ---------------- */
uint64_t evalCommandFlags(client *c, uint64_t cmd_flags); /* processCommand(): a script's declared flags */
size_t evalMemoryLua(void);         /* INFO used_memory_lua / used_memory_vm_eval */
size_t evalMemoryScripts(void);     /* INFO used_memory_scripts_eval */
unsigned long evalCachedScripts(void); /* INFO number_of_cached_scripts */
uint64_t fcallCommandFlags(client *c, uint64_t cmd_flags); /* processCommand(): a function's flags */
/* c's command's flags as the script it runs declared them (EVAL*, FCALL*);
 * any other command's own. Those six are flagged skip_monitor, so the two
 * calls out (~45 instructions each, and processCommand asks twice a
 * request) are skipped for every command without that flag. */
static inline uint64_t scriptDeclaredFlags(client *c, uint64_t flags) {
    if (!(c->cmd->flags & CMD_SKIP_MONITOR)) return flags;
    return fcallCommandFlags(c, evalCommandFlags(c, flags));
}
sds functionsSerialize(void);       /* RDB_OPCODE_FUNCTION2 + code per library (RDB, FUNCTION DUMP) */
int functionsLoadLibraryCode(sds code, int replace, sds *err); /* rdb.c: a library from a dump */
void functionsFlushAll(void);       /* DEBUG RELOAD / LOADAOF / a full sync: the files bring them back */
struct functionsStash;              /* repl-diskless-load swapdb: the libraries set aside during a load */
struct functionsStash *functionsStashEmpty(void);
void functionsSwapStash(struct functionsStash *st); /* the current libraries and st's change places */
void functionsDropStash(struct functionsStash *st); /* frees the libraries st holds */
sds functionsAofCommands(void);     /* aof_rewrite.c: FUNCTION LOAD per library, as RESP */
size_t functionsMemoryLua(void);    /* INFO used_memory_vm_functions */
size_t functionsMemoryOverhead(void); /* INFO used_memory_functions */
unsigned long functionsCount(void);
unsigned long functionsLibraryCount(void);
int scriptIsTimedOut(void);         /* a script runs past busy-reply-threshold */
int scriptIsRunning(void);          /* a script or function runs (module_api.c) */
robj *scriptBusyError(void);        /* the -BUSY reply then */
void ldbKillForkedSessions(void);   /* ldb.c: at shutdown, the Lua debugger's fork children go */

/* ---- multi.c ------------------------------------------------------------------------- */
void queueMultiCommand(client *c);
uint64_t multiQueuedFlags(client *c);
uint64_t multiQueuedMissingFlags(client *c); /* CMD_* flags some queued command lacks */
int multiQueuedCount(client *c);
/* The i-th queued command of c's transaction (cluster.c checks its keys' slots). */
void multiQueuedCommand(client *c, int i, redisCommand **cmd, robj ***argv, int *argc);
size_t multiQueuedArgvMemory(client *c);
size_t multiStateMemory(client *c);
void execCommandAbort(client *c, const char *error); /* processCommand() refused EXEC */
int commandRunsInsideMulti(redisCommand *cmd);
void flagTransaction(client *c);
void multiResetClient(client *c); /* RESET: discard MULTI, UNWATCH */
void multiClientFreed(client *c); /* freeClient() */
void touchWatchedKey(redisDb *db, robj *key);     /* signalModifiedKey() */
void touchWatchedKeysOnFlush(int dbid);           /* signalFlushedDb(), before emptying; -1 = all */
void touchWatchedKeysOnSwap(int id1, int id2);    /* signalSwappedDb(), after the swap */

/* ---- pubsub.c, notify.c ------------------------------------------------------------- */
long pubsubPublishMessage(robj *channel, robj *msg, int sharded);
int commandAllowedInSubscribedMode(redisCommand *cmd);
unsigned long pubsubTotalChannels(void);
size_t pubsubClientMemory(client *c);
unsigned long pubsubTotalPatterns(void);
unsigned long pubsubTotalShardChannels(void);
void pubsubResetClient(client *c); /* RESET: unsubscribe from everything, silently */
void pubsubClientFreed(client *c); /* freeClient() */
void pubsubShardSlotRemoved(int slot); /* cluster.c: the slot left our shard: its shard channels go */

/* ---- start-up of modules that keep state (called once by initServer()) ------------ */
void hashTypeInit(void);
void blockedInit(void);
void memoryInit(void); /* memory_cmd.c: notes startup.allocated */

/* The figures INFO memory shares with MEMORY STATS (memory_cmd.c computes
 * both, the same way). */
typedef struct memoryOverview {
    size_t used, peak, startup, overhead, dataset;
    double dataset_perc;
    size_t allocated, active, resident, rss; /* the allocator's view; used memory and RSS without jemalloc */
    size_t clients_replicas;                 /* the replicas' clients, their output buffers included */
    size_t replica_output;                   /* those output buffers alone */
} memoryOverview;
void memoryGetOverview(memoryOverview *m);
/* replybuf.c: the inline reply buffer sized to the client's peak use */
size_t replyBufferPeak(const client *c);
void replyBufferNoteFlush(client *c);
void replyBufferCron(client *c, long long now_ms);

/* DEBUG subcommands of other modules, listed with the rest in debug.c's
 * debug_subcommands[] (the one place that names them all). */
void debugReloadCommand(client *c);            /* DEBUG RELOAD (rdb.c) */
void debugLoadAofCommand(client *c);           /* DEBUG LOADAOF (aof_load.c) */
void debugListpackCommand(client *c);          /* DEBUG LISTPACK (debug_encodings.c) */
void debugIntsetCommand(client *c);            /* DEBUG INTSET */
void debugQuicklistCommand(client *c);         /* DEBUG QUICKLIST */
void debugEncodingCheckCommand(client *c);     /* DEBUG ENCODING-CHECK */
void debugQuicklistPackedThresholdCommand(client *c); /* DEBUG QUICKLIST-PACKED-THRESHOLD (t_list.c) */
void debugReplyBufferCommand(client *c);       /* DEBUG REPLYBUFFER (replybuf.c) */
void debugAofFaultCommand(client *c);          /* DEBUG AOF-FAULT (persistio.c) */

/* ---- collections: the cross-module API ------------------------------------------- */
/* One element as an encoding holds it: a string (s, len), or, when s is NULL,
 * the integer ll. Valid only during the callback or until the collection is
 * next modified. */
typedef struct elemRef {
    const unsigned char *s;
    size_t len;
    long long ll;
} elemRef;
robj *elemRefToObject(const elemRef *e);          /* a new string object (refcount 1) */
sds elemRefToSds(const elemRef *e);               /* a new sds */
int elemRefEqual(const elemRef *e, const char *s, size_t len);

/* A table encoding's scan: dictScan() from `cursor`, fn appending to out,
 * until out holds `count` entries (with pairs: 2 * count items, as Redis 7.0
 * counts), the scan ends or 10 * count buckets were visited. Returns the
 * next cursor. */
uint64_t scanDictBounded(dict *d, uint64_t cursor, long count, int pairs, dictScanFunction *fn, list *out);

/* Iteration callbacks return 0 to go on, non-zero to stop early. */
typedef int elemVisitor(void *ud, const elemRef *elem);
typedef int pairVisitor(void *ud, const elemRef *field, const elemRef *value);
typedef int scoredVisitor(void *ud, const elemRef *member, double score);

/* lists (t_list.c, over quicklist.c) */
#define LIST_HEAD 0
#define LIST_TAIL 1
robj *createListObject(void);                      /* empty, smallest encoding */
unsigned long listTypeLength(const robj *o);
void listTypePush(robj *o, robj *value, int where); /* converts encoding as needed */
void listTypeForEach(robj *o, elemVisitor *fn, void *ud); /* head to tail */
/* by an index in range (negative: from the tail), for module_keys.c */
robj *listTypeGetAt(robj *o, long index);          /* a new string object */
void listTypeSetAt(robj *o, long index, robj *value);
void listTypeInsertAt(robj *o, long index, robj *value, int side); /* side LIST_HEAD: before */
void listTypeDeleteAt(robj *o, long index);

/* hashes (t_hash.c) */
robj *createHashObject(void);
unsigned long hashTypeLength(const robj *o);
robj *hashTypeGetValueObject(robj *o, sds field);  /* new object, or NULL if absent */
int hashTypeSetFromSds(robj *o, sds field, sds value); /* copies; 1 if the field is new */
int hashTypeDelete(robj *o, sds field);            /* 1 if the field was there */
void hashTypeForEach(robj *o, pairVisitor *fn, void *ud);

/* sets (t_set.c) */
robj *createSetObject(void);
unsigned long setTypeSize(const robj *o);
int setTypeAddCBuffer(robj *o, const char *s, size_t len); /* 1 if added */
void setTypeForEach(robj *o, elemVisitor *fn, void *ud);

/* sorted sets (t_zset.c) */
robj *createZsetObject(void);
unsigned long zsetLength(const robj *o);
int zsetAddCBuffer(robj *o, double score, const char *s, size_t len); /* 1 if added */
void zsetTypeForEach(robj *o, int reverse, scoredVisitor *fn, void *ud); /* score order */
dict *zsetDictOf(robj *o); /* the member -> score dict of a skiplist zset, else NULL */
typedef int scoreFilter(void *ud, double score); /* 1: visit this member */
void zsetTypeForEachInRange(robj *o, double min, double max, scoreFilter *want, scoredVisitor *fn, void *ud); /* [min, max) */
int zsetTypeScore(robj *o, sds member, double *score); /* 1 and *score if member is in the set */
/* ZADD input flags and outcome flags (t_zset.c, module_keys.c). */
#define ZADD_IN_NONE 0
#define ZADD_IN_INCR (1 << 0)
#define ZADD_IN_NX (1 << 1)
#define ZADD_IN_XX (1 << 2)
#define ZADD_IN_GT (1 << 3)
#define ZADD_IN_LT (1 << 4)
#define ZADD_OUT_NOP (1 << 0)
#define ZADD_OUT_NAN (1 << 1)
#define ZADD_OUT_ADDED (1 << 2)
#define ZADD_OUT_UPDATED (1 << 3)
/* Adds, updates or (ZADD_IN_INCR) increments ele: 0 (ZADD_OUT_NAN) if the score would be NaN. */
int zsetAdd(robj *o, double score, sds ele, int in, int *out, double *newscore);
int zsetDel(robj *o, sds ele); /* 1 if ele was there */
/* Range walks (module_keys.c's ZsetFirstInScoreRange ...): the first (or with
 * `last` the last) element of a score range, or of a lex range given as
 * "-", "+", "[x" or "(x" (NULL: an invalid lex range); then steps towards
 * either end while the next element keeps within the bound it moves towards
 * (1 if it moved). The element is a new string object, NULL past the range.
 * The set must not change while a walk is kept. */
typedef struct zsetRangeWalk zsetRangeWalk;
zsetRangeWalk *zsetRangeWalkScore(robj *o, double min, double max, int minex, int maxex, int last);
zsetRangeWalk *zsetRangeWalkLex(robj *o, robj *min, robj *max, int last);
robj *zsetRangeWalkSet(const zsetRangeWalk *w); /* the sorted set walked */
int zsetRangeWalkAt(const zsetRangeWalk *w);    /* 1 while on an element */
robj *zsetRangeWalkElement(const zsetRangeWalk *w, double *score);
int zsetRangeWalkStep(zsetRangeWalk *w, int backward);
void zsetRangeWalkFree(zsetRangeWalk *w);
/* Replaces dstkey with dst (a zset built by a *STORE command, whose longest
 * member has maxelelen bytes and all totelelen), or deletes dstkey if dst is
 * empty; notifies `event` (or "del") and replies the length. */
void zsetStoreResult(client *c, robj *dstkey, robj *dst, const char *event, size_t maxelelen, size_t totelelen);

/* Blocking commands (blocked.c): a command that finds nothing to pop calls
 * blockForKeys() and returns without a reply; when one of the keys is
 * signalled ready (signalKeyAsReady(), which dbAdd calls too) the client's command
 * runs again from scratch, in FIFO order of blocking, and either replies or
 * blocks again keeping its place. On timeout the client gets the null the
 * command's protocol asks for (addReplyNullArray). A command must not block
 * inside MULTI/EXEC (clientMayBlock() says whether it may): it then replies
 * as if the timeout had expired. */
int getTimeoutFromObjectOrReply(client *c, robj *object, long long *timeout_ms); /* absolute ms, 0 = forever */
/* The same for a timeout in integer milliseconds (XREAD BLOCK, WAIT); one
 * whose deadline would pass LLONG_MAX blocks forever, as in Redis 7.0. */
int getMsTimeoutFromObjectOrReply(client *c, robj *object, long long *deadline_ms);
void blockForKeys(client *c, robj **keys, int numkeys, long long timeout_ms);
void signalKeyAsReady(redisDb *db, robj *key, int type);
void blockedDbSwapped(int id1, int id2); /* wakes clients whose keys now exist or are gone */
void blockedDbFlushed(int dbid);          /* FLUSHDB/FLUSHALL (-1): XREADGROUP hears its stream is gone */
int clientMayBlock(client *c);
int blockedClientUnblockByRequest(client *c, int with_error); /* CLIENT UNBLOCK */
void blockForKeysByModule(client *c, robj **keys, int numkeys); /* module_block.c: BlockClientOnKeys */
void blockedReleaseModuleClient(client *c);          /* module_block.c: such a client is done */
void blockedDisconnectAll(const char *err); /* REPLICAOF: each waiting client gets err and is closed */
void processUnblockedClients(void);
void queueClientForReprocessing(client *c);
void handleClientsBlockedOnKeys(void);  /* serve the keys signalled ready */
void handleBlockedClientsTimeout(void); /* timeout replies whose deadline passed */
void blockedClientFreed(client *c);
robj *blockedFirstKey(client *c);                 /* cluster.c: NULL unless blocked on keys */
void blockedUnblockWithError(client *c, sds err); /* cluster.c: -MOVED/-CLUSTERDOWN for a moved slot */     /* freeClient() */

/* keyspec.c: a command's key specs (explicit, or one derived from its legacy
 * positions into *derived) and the keys of a command line (argv[0] is the
 * command's name; result zero-initialized by the caller, freed after). */
int commandKeySpecs(redisCommand *cmd, const keySpec **specs, keySpec *derived);
int commandHasKeys(redisCommand *cmd);
int commandHasMovableKeys(redisCommand *cmd);
int getKeysFromCommand(redisCommand *cmd, robj **argv, int argc, getKeysResult *result);
void getKeysAddKey(getKeysResult *result, int pos, uint64_t flags);
int getKeysFromCommandLegacy(redisCommand *cmd, robj **argv, int argc, getKeysResult *result);
void commandLegacyRangeFromSpecs(redisCommand *cmd); /* firstkey/lastkey/keystep glued from its range specs */
/* command_cmd.c: the registered commands under parent (NULL: top level), the
 * table's then the modules' by creation; a zmalloc'd array of *count */
redisCommand **registeredCommands(redisCommand *parent, long *count);
redisCommand **registeredModuleCommands(redisCommand *parent, long *count); /* the modules' only */
void getKeysFreeResult(getKeysResult *result);

/* ---- command handlers ---------------------------------------------------------- */
/* One prototype per handler and getkeys function of commands.def. */
#include "commands.h"

#include "kvobj.h"
#include "latency.h"

#endif /* REDIS_SERVER_H */
