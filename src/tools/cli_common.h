/* cli_common.h -- state shared by the parts of redis-cli: the options, the
 * connection, and the few helpers the special modes (cli_modes.c) need from
 * the main program (redis-cli.c).
 */
#ifndef CLI_COMMON_H
#define CLI_COMMON_H

#include "cli_format.h"
#include "rclient.h"
#include "sds.h"

typedef struct cliConfig {
    const char *host;
    int port;
    const char *socket;
    int shm;                  /* --shm: CLIENT SHM after connecting (needs -s) */
    const char *user;
    const char *auth;
    int no_auth_warning;
    int auth_on_command_line;
    int dbnum;
    int resp3;
    int resp2_asked;          /* -2: keeps --json on RESP2 */
    long long repeat;
    double interval;          /* seconds between repetitions / cycles */
    int interval_set;
    int stdin_lastarg;
    const char *stdin_tag;    /* -X <tag>: the argument read from stdin */
    int askpass;              /* --askpass: the password read from stdin (masked on a terminal) */
    int auth_failed;          /* AUTH was refused: the special modes end (Redis's tool does) */
    cliOutputMode output;
    sds elem_delim;           /* -d */
    sds resp_delim;           /* -D */
    int quoted_input;
    int set_errcode;          /* -e */
    int pipe_mode;
    long long pipe_timeout;   /* seconds, 0 = forever */
    int scan_mode;
    sds pattern;
    long long scan_count;
    const char *scan_type;
    int bigkeys, memkeys;
    long long memkeys_samples;
    int stat_mode;
    int hotkeys;
    int lru_test;             /* --lru-test <keys> */
    long long lru_test_keys;
    const char *rdb_file;     /* --rdb / --functions-rdb <file> */
    int rdb_functions_only;
    int replica_mode;         /* --replica */
    int latency_mode, latency_history, latency_dist;
    int intrinsic_latency_mode;
    long long intrinsic_latency;  /* seconds */
    int show_pushes;
    int interactive;
    int in_repl;              /* reading commands from stdin (a terminal or not): -c prints its redirections */
    int cluster_mode;         /* -c: follow -MOVED and -ASK */
    int verbose;              /* --verbose: --cluster rebalance shows each node's balance */
    int in_multi;
    int pubsub_mode, monitor_mode;
    int eval_ldb;             /* a Lua debugging session runs (--ldb, or SCRIPT DEBUG then EVAL): cli_ldb.c */
    int eval_ldb_sync;        /* --ldb-sync-mode */
    int eval_ldb_end;         /* "<endsession>" was seen: the EVAL's reply comes next */
    int enable_ldb_on_eval;   /* SCRIPT DEBUG YES|SYNC was typed: the next EVAL is a session */
    int ldb_restart;          /* "restart" at the debugger's prompt */
    int tls;                  /* --tls: the connection is upgraded (rclient_tls.c) */
    rcTlsOptions tls_options; /* --sni --cacert --cacertdir --cert --key --insecure ... */
} cliConfig;

extern cliConfig config;
extern rcConn *context;

/* Connects (again when force), authenticates, selects the database and
 * switches protocol; prints "Could not connect ..." on failure. */
int cliConnect(int force);
/* One command, one reply; NULL after printing "Error: ..." on failure. */
rcReply *cliCommand(int argc, const char **argv);
/* cliCommand from a printf-free list of C strings ending with NULL. */
rcReply *cliCommandStrings(const char *arg0, ...) __attribute__((sentinel));
long long cliMstime(void);
/* Reads the next reply and prints it in the current format. */
void cliPrintNextReply(void);

/* cli_ldb.c: the Lua debugger's session. */
sds cliLdbFormat(const rcReply *r, const char *elem_delim); /* raw, colored; sees "<endsession>" */
void cliLdbNoteCommand(int argc, char **argv);             /* before sending: SCRIPT DEBUG, EVAL */
sds *cliLdbSplitLine(const char *line, int *argc);          /* a prompt line's arguments */
void cliLdbAfterCommand(void);                              /* the session's end, if it came */
void cliSleepSeconds(double s);

/* The special modes; each returns the process exit status. */
int cliPipeMode(void);
int cliScanMode(void);
int cliBigKeysMode(int memkeys);
int cliStatMode(void);
int cliHotKeysMode(void);
int cliLruTestMode(long long keys);
/* cli_sync.c: --rdb / --functions-rdb, --replica. */
int cliRdbMode(const char *filename, int functions_only);
/* SYNC on c (a plain one: no REPLCONF), the snapshot saved to filename as
 * --rdb does; c is freed. --cluster backup's per-node RDB. */
int cliSaveSnapshotOf(rcConn *c, const char *filename);
int cliReplicaMode(void);
/* SYNC / PSYNC typed as a command: the replica output mode. */
int cliSyncCommand(int argc, const char **argv, const size_t *lens);
/* REPLCONF opt value, reported on stderr: 1 accepted, 0 refused. */
int cliSendReplconf(const char *opt, const char *value);
int cliLatencyMode(void);
/* --intrinsic-latency: no connection. */
int cliIntrinsicLatencyMode(long long seconds);

#endif
