/* redis-cli.c -- the command line client: options, connection, one-shot and
 * batch execution, and the interactive prompt.
 *
 * Compatibility target: what scripts see from Redis 7's redis-cli. Output
 * formats live in cli_format.c, HELP/completion/hints in cli_help.c, the
 * special modes (--pipe, --scan, --bigkeys, --stat, --latency,
 * --intrinsic-latency) in cli_modes.c, the Lua debugger's sessions (--ldb)
 * in cli_ldb.c, the line editor in lineedit.c.
 *
 * Design decisions:
 *  - One blocking connection (rclient's rcConn) held in `context`. A failed
 *    command in interactive or batch mode reconnects once and retries, so a
 *    server restart is invisible to the user apart from the lost state.
 *  - Modes are chosen once in main(): a special mode, a command on the
 *    command line (one-shot, with -r/-i repetition), or a read loop on
 *    stdin that is interactive when stdin is a terminal and "batch" (no
 *    prompt, no editing) otherwise. Both loops share runLine().
 *  - Raw output is the default when stdout is not a terminal, like Redis.
 *  - Streaming commands (MONITOR, SUBSCRIBE ...) print replies until the
 *    connection ends or ctrl-c, which only ends the stream at the prompt.
 *  - Interactive sessions read ~/.redisclirc (REDISCLI_RCFILE) first and keep
 *    their history in ~/.rediscli_history (REDISCLI_HISTFILE; /dev/null for
 *    none), mode 0600. A line starting with ':' is a preference (":set
 *    hints"), in batch mode too, with Redis's complaints for anything else.
 */
#include <ctype.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "cli_cluster.h"
#include "cli_common.h"
#include "cli_help.h"
#include "lineedit.h"
#include "version.h"

#define CLI_VERSION REDIS_VERSION
#define CLI_HISTFILE_DEFAULT ".rediscli_history"
#define CLI_RCFILE_DEFAULT ".redisclirc"
#define CLI_HISTORY_MAX 100

cliConfig config;
static const char *eval_file; /* --eval <file> */
rcConn *context;
static volatile sig_atomic_t interrupted;
static int redirected;  /* -c: the last reply moved the command to config.host:port */
static int send_asking; /* ... with -ASK: ASKING goes first there */
static int redirect_failed; /* ... and that node did not answer */

/* Strings the program made itself (from a URI, CONNECT, AUTH typed at the
 * prompt) back these config fields; each slot frees its previous value. */
static sds ownedHost, ownedUser, ownedAuth;

static const char *keepString(sds *slot, const char *value, size_t len) {
    sdsfree(*slot);
    *slot = sdsnewlen(value, len);
    return *slot;
}

static void replaceSds(sds *slot, const char *value) {
    sdsfree(*slot);
    *slot = sdsnew(value);
}

/* ---- small helpers ------------------------------------------------------------ */

long long cliMstime(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (long long)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

void cliSleepSeconds(double s) {
    if (s <= 0) return;
    struct timespec ts;
    ts.tv_sec = (time_t)s;
    ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
    while (nanosleep(&ts, &ts) == -1 && errno == EINTR && !interrupted) {
    }
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    exit(1);
}

static int isCommand(const char *name, const char *want) { return strcasecmp(name, want) == 0; }

/* ---- options ------------------------------------------------------------------ */

/* Redis 7.0's text for the options this tool has, plus --shm, and --count
 * and --type, which it adds to --scan. */
static void usage(int status) {
    FILE *out = status ? stderr : stdout;
    fprintf(out,
            "redis-cli %s\n"
            "\n"
            "Usage: redis-cli [OPTIONS] [cmd [arg [arg ...]]]\n"
            "  -h <hostname>      Server hostname (default: 127.0.0.1).\n"
            "  -p <port>          Server port (default: 6379).\n"
            "  -s <socket>        Server socket (overrides hostname and port).\n"
            "  --shm              Switch the -s connection to shared memory (CLIENT SHM).\n"
            "  -a <password>      Password to use when connecting to the server.\n"
            "                     You can also use the REDISCLI_AUTH environment\n"
            "                     variable to pass this password more safely\n"
            "                     (if both are used, this argument takes precedence).\n"
            "  --user <username>  Used to send ACL style 'AUTH username pass'. Needs -a.\n"
            "  --pass <password>  Alias of -a for consistency with the new --user option.\n"
            "  --askpass          Force user to input password with mask from STDIN.\n"
            "                     If this argument is used, '-a' and REDISCLI_AUTH\n"
            "                     environment variable will be ignored.\n"
            "  -u <uri>           Server URI.\n"
            "  -r <repeat>        Execute specified command N times.\n"
            "  -i <interval>      When -r is used, waits <interval> seconds per command.\n"
            "                     It is possible to specify sub-second times like -i 0.1.\n"
            "                     This interval is also used in --scan and --stat per cycle.\n"
            "                     and in --bigkeys, --memkeys, and --hotkeys per 100 cycles.\n"
            "  -n <db>            Database number.\n"
            "  -2                 Start session in RESP2 protocol mode.\n"
            "  -3                 Start session in RESP3 protocol mode.\n"
            "  -x                 Read last argument from STDIN (see example below).\n"
            "  -X                 Read <tag> argument from STDIN (see example below).\n"
            "  -d <delimiter>     Delimiter between response bulks for raw formatting (default: \\n).\n"
            "  -D <delimiter>     Delimiter between responses for raw formatting (default: \\n).\n"
            "  -c                 Enable cluster mode (follow -ASK and -MOVED redirections).\n"
            "  -e                 Return exit error code when command execution fails.\n"
            "  --tls              Establish a secure TLS connection.\n"
            "  --sni <host>       Server name indication for TLS.\n"
            "  --cacert <file>    CA Certificate file to verify with.\n"
            "  --cacertdir <dir>  Directory where trusted CA certificates are stored.\n"
            "                     If neither cacert nor cacertdir are specified, the default\n"
            "                     system-wide trusted root certs configuration will apply.\n"
            "  --insecure         Allow insecure TLS connection by skipping cert validation.\n"
            "  --cert <file>      Client certificate to authenticate with.\n"
            "  --key <file>       Private key file to authenticate with.\n"
            "  --tls-ciphers <list> Sets the list of preferred ciphers (TLSv1.2 and below)\n"
            "                     in order of preference from highest to lowest separated by colon (\":\").\n"
            "                     See the ciphers(1ssl) manpage for more information about the syntax of this string.\n"
            "  --tls-ciphersuites <list> Sets the list of preferred ciphersuites (TLSv1.3)\n"
            "                     in order of preference from highest to lowest separated by colon (\":\").\n"
            "                     See the ciphers(1ssl) manpage for more information about the syntax of this string,\n"
            "                     and specifically for TLSv1.3 ciphersuites.\n"
            "  --raw              Use raw formatting for replies (default when STDOUT is\n"
            "                     not a tty).\n"
            "  --no-raw           Force formatted output even when STDOUT is not a tty.\n"
            "  --quoted-input     Force input to be handled as quoted strings.\n"
            "  --csv              Output in CSV format.\n"
            "  --json             Output in JSON format (default RESP3, use -2 if you want to use with RESP2).\n"
            "  --quoted-json      Same as --json, but produce ASCII-safe quoted strings, not Unicode.\n"
            "  --show-pushes <yn> Whether to print RESP3 PUSH messages.  Enabled by default when\n"
            "                     STDOUT is a tty but can be overridden with --show-pushes no.\n"
            "  --stat             Print rolling stats about server: mem, clients, ...\n"
            "  --latency          Enter a special mode continuously sampling latency.\n"
            "                     If you use this mode in an interactive session it runs\n"
            "                     forever displaying real-time stats. Otherwise if --raw or\n"
            "                     --csv is specified, or if you redirect the output to a non\n"
            "                     TTY, it samples the latency for 1 second (you can use\n"
            "                     -i to change the interval), then produces a single output\n"
            "                     and exits.\n"
            "  --latency-history  Like --latency but tracking latency changes over time.\n"
            "                     Default time interval is 15 sec. Change it using -i.\n"
            "  --latency-dist     Shows latency as a spectrum, requires xterm 256 colors.\n"
            "                     Default time interval is 1 sec. Change it using -i.\n"
            "  --lru-test <keys>  Simulate a cache workload with an 80-20 distribution.\n"
            "  --replica          Simulate a replica showing commands received from the master.\n"
            "  --rdb <filename>   Transfer an RDB dump from remote server to local file.\n"
            "                     Use filename of \"-\" to write to stdout.\n"
            " --functions-rdb <filename> Like --rdb but only get the functions (not the keys)\n"
            "                     when getting the RDB dump file.\n"
            "  --pipe             Transfer raw Redis protocol from stdin to server.\n"
            "  --pipe-timeout <n> In --pipe mode, abort with error if after sending all data.\n"
            "                     no reply is received within <n> seconds.\n"
            "                     Default timeout: 30. Use 0 to wait forever.\n"
            "  --bigkeys          Sample Redis keys looking for keys with many elements (complexity).\n"
            "  --memkeys          Sample Redis keys looking for keys consuming a lot of memory.\n"
            "  --memkeys-samples <n> Sample Redis keys looking for keys consuming a lot of memory.\n"
            "                     And define number of key elements to sample\n"
            "  --hotkeys          Sample Redis keys looking for hot keys.\n"
            "                     only works when maxmemory-policy is *lfu.\n"
            "  --scan             List all keys using the SCAN command.\n"
            "  --pattern <pat>    Keys pattern when using the --scan, --bigkeys or --hotkeys\n"
            "                     options (default: *).\n"
            "  --quoted-pattern <pat> Same as --pattern, but the specified string can be\n"
            "                         quoted, in order to pass an otherwise non binary-safe string.\n"
            "  --count <count>    Count option when using --scan or --bigkeys (default: 10).\n"
            "  --type <type>      Type option when using --scan.\n"
            "  --intrinsic-latency <sec> Run a test to measure intrinsic system latency.\n"
            "                     The test will run for the specified amount of seconds.\n"
            "  --eval <file>      Send an EVAL command using the Lua script at <file>.\n"
            "  --ldb              Used with --eval enable the Redis Lua debugger.\n"
            "  --ldb-sync-mode    Like --ldb but uses the synchronous Lua debugger, in\n"
            "                     this mode the server is blocked and script changes are\n"
            "                     not rolled back from the server memory.\n"
            "  --cluster <command> [args...] [opts...]\n"
            "                     Cluster Manager command and arguments (see below).\n"
            "  --verbose          Verbose mode.\n"
            "  --no-auth-warning  Don't show warning message when using password on command\n"
            "                     line interface.\n"
            "  --help             Output this help and exit.\n"
            "  --version          Output version and exit.\n"
            "\n"
            "Cluster Manager Commands:\n"
            "  Use --cluster help to list all available cluster manager commands.\n"
            "\n"
            "Examples:\n"
            "  cat /etc/passwd | redis-cli -x set mypasswd\n"
            "  redis-cli -D \"\" --raw dump key > key.dump && redis-cli -X dump_tag restore key2 0 dump_tag replace < key.dump\n"
            "  redis-cli -r 100 lpush mylist x\n"
            "  redis-cli -r 100 -i 1 info | grep used_memory_human:\n"
            "  redis-cli --quoted-input set '\"null-\\x00-separated\"' value\n"
            "  redis-cli --eval myscript.lua key1 key2 , arg1 arg2 arg3\n"
            "  redis-cli --scan --pattern '*:12345*'\n"
            "\n"
            "  (Note: when using --eval the comma separates KEYS[] from ARGV[] items)\n"
            "\n"
            "When no command is given, redis-cli starts in interactive mode.\n"
            "Type \"help\" in interactive mode for information on available commands\n"
            "and settings.\n"
            "\n",
            CLI_VERSION);
    exit(status);
}

static sds unquoteOption(const char *value, const char *what) {
    int n = 0;
    sds *parts = sdssplitargs(value, &n);
    if (!parts || n != 1) {
        if (parts) sdsfreesplitres(parts, n);
        die("Invalid quoted string specified for %s.\n", what);
    }
    sds s = sdsdup(parts[0]);
    sdsfreesplitres(parts, n);
    return s;
}

/* -u redis://[[user]:password@]host[:port][/db] (rclient_uri.c) */
static void parseUri(const char *uri) {
    rcUri parts;
    const char *err;
    if (rcParseUri(uri, &parts, &err) != RC_OK) die("%s\n", err);
    if (parts.password) {
        config.user = keepString(&ownedUser, parts.user, sdslen(parts.user));
        config.auth = keepString(&ownedAuth, parts.password, sdslen(parts.password));
    }
    if (parts.host) config.host = keepString(&ownedHost, parts.host, sdslen(parts.host));
    if (parts.port) config.port = parts.port;
    if (parts.dbnum >= 0) config.dbnum = (int)parts.dbnum;
    if (parts.tls) config.tls = 1;
    rcUriFree(&parts);
}

static int optionTakesValue(const char *opt) {
    static const char *with_value[] = {"-h", "-p", "-s", "-a", "--user", "--pass", "-u", "-r", "-i", "-n",
                                       "-d", "-D", "--pipe-timeout", "--pattern", "--quoted-pattern",
                                       "--count", "--type", "--memkeys-samples", "--show-pushes",
                                       "--intrinsic-latency", "--sni", "--cacert", "--cacertdir", "--cert",
                                       "--key", "--tls-ciphers", "--tls-ciphersuites", "--eval", "-X",
                                       "--lru-test", "--rdb", "--functions-rdb", NULL};
    for (int i = 0; with_value[i]; i++)
        if (strcmp(opt, with_value[i]) == 0) return 1;
    return 0;
}

static int applyFlag(const char *opt) {
    if (!strcmp(opt, "-x")) config.stdin_lastarg = 1;
    else if (!strcmp(opt, "-e")) config.set_errcode = 1;
    else if (!strcmp(opt, "-2")) {
        config.resp3 = 0;
        config.resp2_asked = 1;
    }
    else if (!strcmp(opt, "-3")) config.resp3 = 1;
    else if (!strcmp(opt, "-c")) config.cluster_mode = 1;
    else if (!strcmp(opt, "--raw")) config.output = CLI_OUT_RAW;
    else if (!strcmp(opt, "--no-raw")) config.output = CLI_OUT_TTY;
    else if (!strcmp(opt, "--csv")) config.output = CLI_OUT_CSV;
    else if (!strcmp(opt, "--json")) config.output = CLI_OUT_JSON;
    else if (!strcmp(opt, "--quoted-json")) config.output = CLI_OUT_QUOTED_JSON;
    else if (!strcmp(opt, "--quoted-input")) config.quoted_input = 1;
    else if (!strcmp(opt, "--no-auth-warning")) config.no_auth_warning = 1;
    else if (!strcmp(opt, "--pipe")) config.pipe_mode = 1;
    else if (!strcmp(opt, "--shm")) config.shm = 1;
    else if (!strcmp(opt, "--scan")) config.scan_mode = 1;
    else if (!strcmp(opt, "--bigkeys")) config.bigkeys = 1;
    else if (!strcmp(opt, "--memkeys")) config.memkeys = 1;
    else if (!strcmp(opt, "--stat")) config.stat_mode = 1;
    else if (!strcmp(opt, "--hotkeys")) config.hotkeys = 1;
    else if (!strcmp(opt, "--replica")) config.replica_mode = 1;
    else if (!strcmp(opt, "--askpass")) config.askpass = 1;
    else if (!strcmp(opt, "--latency")) config.latency_mode = 1;
    else if (!strcmp(opt, "--latency-history")) config.latency_mode = config.latency_history = 1;
    else if (!strcmp(opt, "--latency-dist")) config.latency_mode = config.latency_dist = 1;
    else if (!strcmp(opt, "--tls")) config.tls = 1;
    else if (!strcmp(opt, "--insecure")) config.tls_options.insecure = 1;
    else if (!strcmp(opt, "--verbose")) config.verbose = 1;
    else if (!strcmp(opt, "--ldb") || !strcmp(opt, "--ldb-sync-mode")) {
        config.eval_ldb = 1;
        config.eval_ldb_sync = !strcmp(opt, "--ldb-sync-mode");
        config.output = CLI_OUT_RAW;
    }
    else if (!strcmp(opt, "--help")) usage(0);
    else if (!strcmp(opt, "-v") || !strcmp(opt, "--version")) {
        printf("redis-cli %s\n", CLI_VERSION);
        exit(0);
    } else return 0;
    return 1;
}

static void applyOption(const char *opt, const char *v) {
    if (!strcmp(opt, "--eval")) eval_file = v;
    else if (!strcmp(opt, "-X")) config.stdin_tag = v;
    else if (!strcmp(opt, "--lru-test")) {
        config.lru_test = 1;
        config.lru_test_keys = strtoll(v, NULL, 10);
    }
    else if (!strcmp(opt, "--rdb") || !strcmp(opt, "--functions-rdb")) {
        config.rdb_file = v;
        config.rdb_functions_only = !strcmp(opt, "--functions-rdb");
    }
    else if (!strcmp(opt, "-h")) config.host = v;
    else if (!strcmp(opt, "-p")) config.port = atoi(v);
    else if (!strcmp(opt, "-s")) config.socket = v;
    else if (!strcmp(opt, "-a") || !strcmp(opt, "--pass")) config.auth = v;
    else if (!strcmp(opt, "--user")) config.user = v;
    else if (!strcmp(opt, "-u")) parseUri(v);
    else if (!strcmp(opt, "-r")) config.repeat = strtoll(v, NULL, 10);
    else if (!strcmp(opt, "-i")) {
        config.interval = strtod(v, NULL);
        config.interval_set = 1;
    } else if (!strcmp(opt, "-n")) config.dbnum = atoi(v);
    else if (!strcmp(opt, "-d")) replaceSds(&config.elem_delim, v);
    else if (!strcmp(opt, "-D")) replaceSds(&config.resp_delim, v);
    else if (!strcmp(opt, "--pipe-timeout")) config.pipe_timeout = atoll(v);
    else if (!strcmp(opt, "--pattern")) replaceSds(&config.pattern, v);
    else if (!strcmp(opt, "--quoted-pattern")) {
        sdsfree(config.pattern);
        config.pattern = unquoteOption(v, "--quoted-pattern");
    }
    else if (!strcmp(opt, "--count")) config.scan_count = atoll(v);
    else if (!strcmp(opt, "--type")) config.scan_type = v;
    else if (!strcmp(opt, "--memkeys-samples")) {
        config.memkeys = 1;
        config.memkeys_samples = atoll(v);
    } else if (!strcmp(opt, "--intrinsic-latency")) {
        config.intrinsic_latency_mode = 1;
        config.intrinsic_latency = atoll(v);
    }
    else if (!strcmp(opt, "--sni")) config.tls_options.sni = v;
    else if (!strcmp(opt, "--cacert")) config.tls_options.cacert = v;
    else if (!strcmp(opt, "--cacertdir")) config.tls_options.cacertdir = v;
    else if (!strcmp(opt, "--cert")) config.tls_options.cert = v;
    else if (!strcmp(opt, "--key")) config.tls_options.key = v;
    else if (!strcmp(opt, "--tls-ciphers")) config.tls_options.ciphers = v;
    else if (!strcmp(opt, "--tls-ciphersuites")) config.tls_options.ciphersuites = v;
    else if (!strcmp(opt, "--show-pushes")) {
        config.show_pushes = !strcasecmp(v, "yes") || !strcasecmp(v, "y");
    }
}

/* Returns the index of the first argument of the command (argc if none). */
static int parseOptions(int argc, char **argv) {
    int i;
    for (i = 1; i < argc; i++) {
        const char *opt = argv[i];
        if (opt[0] != '-' && cliClusterWanted()) {
            i += cliClusterTakeArgs(argc, argv, i) - 1; /* --cluster's arguments after other options */
            continue;
        }
        if (opt[0] != '-') break;
        if (!strcmp(opt, "--cluster") && (i + 1 >= argc || cliClusterWanted())) usage(1); /* as Redis 7.0 */
        if (cliClusterParseOption(argc, argv, &i)) continue;
        if (optionTakesValue(opt) && i + 1 < argc) {
            applyOption(opt, argv[++i]);
            if (!strcmp(opt, "-a") || !strcmp(opt, "--pass") || (!strcmp(opt, "-u") && config.auth))
                config.auth_on_command_line = 1;
        } else if (optionTakesValue(opt) || !applyFlag(opt)) {
            die("Unrecognized option or bad number of args for: '%s'\n", opt);
        }
    }
    if (config.stdin_lastarg && config.stdin_tag) die("Options -x and -X are mutually exclusive.\n");
    if (config.socket && config.cluster_mode) die("Options -c and -s are mutually exclusive.\n");
    if (config.eval_ldb && !eval_file)
        die("Options --ldb and --ldb-sync-mode require --eval.\nTry %s --help for more information.\n", argv[0]);
    return i;
}

static void setDefaults(void) {
    config.host = "127.0.0.1";
    config.port = 6379;
    config.repeat = 1;
    /* FAKETTY in the environment: formatted output as on a terminal (Redis
     * 7.0's redis-cli honours it; its test suite and scripts use it) */
    int tty = isatty(STDOUT_FILENO) || getenv("FAKETTY") != NULL;
    config.output = tty ? CLI_OUT_TTY : CLI_OUT_RAW;
    config.show_pushes = tty;
    config.elem_delim = sdsnew("\n");
    config.resp_delim = sdsnew("\n");
    config.pipe_timeout = 30;
    config.scan_count = 0;
}

/* ---- connection ----------------------------------------------------------------- */

static void printReplyError(const char *what, const rcReply *r) {
    if (r) fprintf(stderr, "%s failed: %.*s\n", what, (int)r->len, r->str ? r->str : "");
}

static int authenticate(void) {
    if (!config.auth) return RC_OK;
    rcReply *r = config.user ? rcCommand(context, "AUTH", config.user, config.auth, NULL)
                             : rcCommand(context, "AUTH", config.auth, NULL);
    if (!r) return RC_ERR;
    if (r->type == RC_REPLY_ERROR) {
        printReplyError("AUTH", r);
        config.auth_failed = 1;
    }
    rcFreeReply(r);
    return RC_OK;
}

static int selectDatabase(void) {
    if (config.dbnum == 0) return RC_OK;
    char db[32];
    snprintf(db, sizeof(db), "%d", config.dbnum);
    rcReply *r = rcCommand(context, "SELECT", db, NULL);
    if (!r) return RC_ERR;
    if (r->type == RC_REPLY_ERROR) {
        fprintf(stderr, "SELECT %d failed: %.*s\n", config.dbnum, (int)r->len, r->str);
        config.dbnum = 0;
    }
    rcFreeReply(r);
    return RC_OK;
}

static int switchProtocol(void) {
    if (!config.resp3) return RC_OK;
    rcReply *r = rcCommand(context, "HELLO", "3", NULL);
    if (!r) return RC_ERR;
    if (r->type == RC_REPLY_ERROR) printReplyError("HELLO 3", r);
    rcFreeReply(r);
    return RC_OK;
}

static void printConnectError(void) {
    if (config.socket)
        fprintf(stderr, "Could not connect to Redis at %s: %s\n", config.socket, context->errstr);
    else
        fprintf(stderr, "Could not connect to Redis at %s:%d: %s\n", config.host, config.port, context->errstr);
}

int cliConnect(int force) {
    if (context && !force && context->err == RC_E_NONE) return RC_OK;
    rcFree(context);
    context = config.socket ? rcConnectUnix(config.socket, 0) : rcConnectTcp(config.host, config.port, 0);
    if (!context) die("Out of memory\n");
    if (context->err == RC_E_NONE && config.tls) rcTlsUpgrade(context, &config.tls_options);
    if (context->err != RC_E_NONE && config.tls && rcTlsSetupError(context)) {
        fprintf(stderr, "Could not negotiate a TLS connection: %s\n", context->errstr);
        rcFree(context);
        context = NULL;
        return RC_ERR;
    }
    if (context->err != RC_E_NONE) {
        printConnectError();
        rcFree(context);
        context = NULL;
        return RC_ERR;
    }
    config.in_multi = 0;
    if (authenticate() != RC_OK || (config.shm && rcUpgradeShm(context, 0) != RC_OK) ||
        selectDatabase() != RC_OK || switchProtocol() != RC_OK) {
        fprintf(stderr, "Error: %s\n", context->errstr);
        rcFree(context);
        context = NULL;
        return RC_ERR;
    }
    return RC_OK;
}

/* ---- sending commands -------------------------------------------------------------- */

static void printContextError(void) {
    if (context && context->err != RC_E_NONE) fprintf(stderr, "Error: %s\n", context->errstr);
}

rcReply *cliCommand(int argc, const char **argv) {
    if (!context) return NULL;
    rcReply *r = rcCommandArgv(context, argc, argv, NULL);
    if (!r) printContextError();
    return r;
}

rcReply *cliCommandStrings(const char *arg0, ...) {
    const char *argv[16];
    int argc = 0;
    va_list ap;
    va_start(ap, arg0);
    for (const char *a = arg0; a && argc < 16; a = va_arg(ap, const char *)) argv[argc++] = a;
    va_end(ap);
    return cliCommand(argc, argv);
}

/* verbatim: a report (cliPrintsVerbatim), printed as it is in every mode. */
static void writeReply(const rcReply *r, int verbatim) {
    sds out;
    if (verbatim) out = cliFormatRaw(r, config.elem_delim);
    else if (config.eval_ldb) out = sdscat(cliLdbFormat(r, config.elem_delim), config.resp_delim);
    else out = cliFormatReply(r, config.output, config.elem_delim, config.resp_delim);
    fwrite(out, 1, sdslen(out), stdout);
    sdsfree(out);
    fflush(stdout);
}

/* Reads one reply, printing the RESP3 pushes that come before it. */
static int readReply(rcReply **reply) {
    for (;;) {
        if (rcReadReply(context, reply) != RC_OK) return RC_ERR;
        if ((*reply)->type != RC_REPLY_PUSH || config.pubsub_mode || config.monitor_mode) return RC_OK;
        if (config.show_pushes) writeReply(*reply, 0);
        rcFreeReply(*reply);
    }
}

void cliPrintNextReply(void) {
    rcReply *r = NULL;
    if (readReply(&r) != RC_OK) {
        printContextError();
        return;
    }
    writeReply(r, 0);
    rcFreeReply(r);
}

static void onInterrupt(int sig) {
    (void)sig;
    interrupted = 1;
}

/* MONITOR and SUBSCRIBE: print replies until the connection ends or ctrl-c. */
static int streamReplies(void) {
    struct sigaction sa, old;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = onInterrupt;
    sigaction(SIGINT, &sa, &old);
    interrupted = 0;
    int status = RC_OK;
    while (!interrupted) {
        rcReply *r = NULL;
        if (rcTryReadReply(context, &r) != RC_OK) {
            status = RC_ERR;
            break;
        }
        if (r) {
            writeReply(r, 0);
            rcFreeReply(r);
            continue;
        }
        struct pollfd p = {context->fd, POLLIN, 0};
        poll(&p, 1, 100);
    }
    sigaction(SIGINT, &old, NULL);
    if (interrupted) {
        /* The connection is in a streaming state: start afresh. */
        cliConnect(1);
        status = RC_OK;
    }
    config.pubsub_mode = config.monitor_mode = 0;
    return status;
}

/* Updates what the prompt and reconnections need to know. */
static void trackState(int argc, char **argv, const rcReply *r) {
    if (r->type == RC_REPLY_ERROR) {
        if (isCommand(argv[0], "exec")) config.in_multi = 0;
        return;
    }
    if (isCommand(argv[0], "select") && argc == 2) config.dbnum = atoi(argv[1]);
    else if (isCommand(argv[0], "multi")) config.in_multi = 1;
    else if (isCommand(argv[0], "exec") || isCommand(argv[0], "discard")) config.in_multi = 0;
    else if (isCommand(argv[0], "hello") && argc >= 2) config.resp3 = atoi(argv[1]) == 3;
    else if (isCommand(argv[0], "auth") && argc == 2) config.auth = keepString(&ownedAuth, argv[1], strlen(argv[1]));
    else if (isCommand(argv[0], "auth") && argc == 3) {
        config.user = keepString(&ownedUser, argv[1], strlen(argv[1]));
        config.auth = keepString(&ownedAuth, argv[2], strlen(argv[2]));
    }
}

static int isStreamingCommand(const char *name) {
    return isCommand(name, "subscribe") || isCommand(name, "psubscribe") || isCommand(name, "ssubscribe");
}

/* -c: a -MOVED or -ASK reply names the node to send the command to. Redis's
 * tool prints the redirection only when it reads commands from stdin (a
 * terminal or not), never for a command on the command line; the reply
 * itself is not printed and is no error for -e. Returns 1 when redirected. */
static int noteRedirection(const rcReply *r) {
    if (!config.cluster_mode || r->type != RC_REPLY_ERROR) return 0;
    int ask = r->len > 4 && !strncmp(r->str, "ASK ", 4);
    if (!ask && !(r->len > 6 && !strncmp(r->str, "MOVED ", 6))) return 0;
    const char *slot = memchr(r->str, ' ', r->len) + 1;
    const char *addr = memchr(slot, ' ', r->len - (size_t)(slot - r->str));
    const char *colon = NULL;
    for (const char *c = addr; c && c < r->str + r->len; c++)
        if (*c == ':') colon = c;
    if (!colon) return 0;
    addr++;
    config.host = keepString(&ownedHost, addr, (size_t)(colon - addr));
    config.port = atoi(colon + 1);
    if (config.in_repl) {
        printf("-> Redirected to slot [%d] located at %s:%d\n", atoi(slot), config.host, config.port);
        fflush(stdout);
    }
    redirected = 1;
    send_asking = ask;
    return 1;
}

/* Sends argv `repeat` times. RC_ERR on a connection failure; *had_error
 * is set when the server replied with an error. */
static int sendCommand(int argc, char **argv, long long repeat, int *had_error) {
    size_t *lens = malloc(sizeof(size_t) * (size_t)argc);
    if (!lens) die("Out of memory\n");
    for (int i = 0; i < argc; i++) lens[i] = sdslen(argv[i]);
    int verbatim = cliPrintsVerbatim(argc, argv);
    int status = RC_OK;
    cliLdbNoteCommand(argc, argv);
    if (isCommand(argv[0], "sync") || isCommand(argv[0], "psync")) {
        cliSyncCommand(argc, (const char **)argv, lens);
        free(lens);
        return RC_ERR; /* the stream ended with the connection */
    }
    while (repeat < 0 || repeat-- > 0) {
        if (isCommand(argv[0], "monitor")) config.monitor_mode = 1;
        if (isStreamingCommand(argv[0])) config.pubsub_mode = 1;
        rcAppendCommandArgv(context, argc, (const char **)argv, lens);
        /* Redis's tool announces the stream before its first reply, in
         * every output mode but raw, even when that reply is an error. */
        if (config.pubsub_mode && config.output != CLI_OUT_RAW) {
            printf("Reading messages... (press Ctrl-C to quit)\n");
            fflush(stdout);
        }
        rcReply *r = NULL;
        if (readReply(&r) != RC_OK) {
            if (isCommand(argv[0], "shutdown") && context->err == RC_E_EOF) break;
            config.pubsub_mode = config.monitor_mode = 0;
            status = RC_ERR;
            break;
        }
        if (noteRedirection(r)) {
            rcFreeReply(r);
            break; /* sent again, `repeat` times, to the node named */
        }
        trackState(argc, argv, r);
        if (r->type == RC_REPLY_ERROR) *had_error = 1;
        /* SUBSCRIBE refused (no channel): the error is printed and the
         * program goes on, as Redis's tool does; no waiting for messages. */
        if (r->type == RC_REPLY_ERROR) config.pubsub_mode = 0;
        if (r->type == RC_REPLY_ERROR && config.set_errcode && !config.interactive) {
            fprintf(stderr, "%.*s\n", (int)r->len, r->str);
            rcFreeReply(r);
            break;
        }
        writeReply(r, verbatim);
        rcFreeReply(r);
        if (config.pubsub_mode || config.monitor_mode) {
            status = streamReplies();
            break;
        }
        if (repeat != 0 && config.interval > 0) cliSleepSeconds(config.interval);
    }
    free(lens);
    return status;
}

/* ASKING on the node an -ASK named, before the command it is for. */
static int sendAsking(void) {
    send_asking = 0;
    rcReply *r = rcCommand(context, "ASKING", NULL);
    if (!r) return RC_ERR;
    int ok = r->type != RC_REPLY_ERROR;
    if (!ok) fprintf(stderr, "ASKING failed: %.*s\n", (int)r->len, r->str);
    rcFreeReply(r);
    return ok ? RC_OK : RC_ERR;
}

/* sendCommand, following -c's redirections: each connects to the node named
 * and sends the command again with its whole repeat count, as Redis's does. */
static int sendFollowing(int argc, char **argv, long long repeat, int *had_error) {
    redirect_failed = 0;
    int status = sendCommand(argc, argv, repeat, had_error);
    while (status == RC_OK && redirected) {
        redirected = 0;
        if (cliConnect(1) != RC_OK) {
            redirect_failed = 1;
            return RC_ERR;
        }
        if (send_asking && sendAsking() != RC_OK) {
            printContextError();
            return RC_ERR;
        }
        status = sendCommand(argc, argv, repeat, had_error);
    }
    return status;
}

/* ---- one-shot ------------------------------------------------------------------------- */

static sds readAllStdin(void) {
    sds s = sdsempty();
    char buf[16384];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), stdin)) > 0) s = sdscatlen(s, buf, n);
    return s;
}

static char **buildArgv(int argc, char **args, int *out_argc) {
    char **argv = malloc(sizeof(char *) * (size_t)(argc + 1));
    if (!argv) die("Out of memory\n");
    for (int i = 0; i < argc; i++) {
        if (config.quoted_input) {
            int n = 0;
            sds *parts = sdssplitargs(args[i], &n);
            if (!parts || n != 1) { /* on stdout, as 7.0.15's tool prints it */
                printf("Invalid quoted string\n");
                exit(1);
            }
            argv[i] = sdsdup(parts[0]);
            sdsfreesplitres(parts, n);
        } else {
            argv[i] = sdsnew(args[i]);
        }
    }
    if (config.stdin_lastarg) argv[argc++] = readAllStdin();
    for (int i = 0; config.stdin_tag && i < argc; i++) {
        if (strcmp(argv[i], config.stdin_tag) != 0) continue;
        sdsfree(argv[i]);
        argv[i] = readAllStdin(); /* the first match only */
        break;
    }
    *out_argc = argc;
    return argv;
}

/* -X tag: one of the command's arguments must be the tag (checked before
 * connecting, as Redis's tool does). */
static void checkStdinTag(int argc, char **args) {
    if (!config.stdin_tag) return;
    for (int i = 0; i < argc; i++)
        if (!strcmp(args[i], config.stdin_tag)) return;
    die("Using -X option but stdin tag not match.\n");
}

/* HELP on the command line is answered here, with no server needed. */
static int isLocalHelp(const char *name) { return isCommand(name, "help") || isCommand(name, "?"); }

static int localHelp(int argc, char **args) {
    cliHelpInit();
    cliHelpCommand(argc, args, CLI_VERSION);
    fflush(stdout);
    cliHelpFree();
    return 0;
}

static int oneShot(int argc, char **args) {
    int n;
    char **argv = buildArgv(argc, args, &n);
    int had_error = 0;
    int status = sendFollowing(n, argv, config.repeat, &had_error);
    for (int i = 0; i < n; i++) sdsfree(argv[i]);
    free(argv);
    if (status != RC_OK) {
        printContextError(); /* "Error: Server closed the connection" ..., as Redis's tool */
        return 1;
    }
    return config.set_errcode && had_error ? 1 : 0;
}

static sds readScriptFile(void) {
    FILE *fp = fopen(eval_file, "r");
    if (!fp) die("Can't open file '%s': %s\n", eval_file, strerror(errno));
    sds script = sdsempty();
    char buf[1024];
    size_t nread;
    while ((nread = fread(buf, 1, sizeof buf, fp)) != 0) script = sdscatlen(script, buf, nread);
    fclose(fp);
    return script;
}

/* One EVAL of the file's script (after SCRIPT DEBUG when debugging). */
static int evalOnce(int argc, char **args) {
    sds script = readScriptFile();
    if (config.eval_ldb) {
        rcReply *r = cliCommandStrings("SCRIPT", "DEBUG", config.eval_ldb_sync ? "sync" : "yes", NULL);
        if (r) rcFreeReply(r);
    }
    char **argv = malloc(sizeof(char *) * (size_t)(argc + 3));
    if (!argv) die("Out of memory\n");
    int n = 3, keys = 0, got_comma = 0;
    for (int j = 0; j < argc; j++) {
        if (!got_comma && !strcmp(args[j], ",")) {
            got_comma = 1;
            continue;
        }
        argv[n++] = sdsnew(args[j]);
        if (!got_comma) keys++;
    }
    argv[0] = sdsnew("EVAL");
    argv[1] = script;
    argv[2] = sdsfromlonglong(keys);
    int had_error = 0;
    int status = sendFollowing(n, argv, 1, &had_error);
    for (int i = 0; i < n; i++) sdsfree(argv[i]);
    free(argv);
    return status != RC_OK || (config.set_errcode && had_error) ? 1 : 0;
}

static void repl(void);

/* --eval file key1 key2 , arg1 arg2: EVAL of the file's script, with the
 * arguments before a lone "," as its keys, as Redis's redis-cli does.
 * With --ldb the EVAL is a debugging session: the prompt drives it, and
 * "restart" runs it again from the file. */
static int evalMode(int argc, char **args) {
    for (;;) {
        int debugging = config.eval_ldb;
        if (debugging)
            printf("Lua debugging session started, please use:\n"
                   "quit    -- End the session.\n"
                   "restart -- Restart the script in debug mode again.\n"
                   "help    -- Show Lua script debugging commands.\n\n");
        int status = evalOnce(argc, args);
        if (!debugging) return status;
        if (!config.eval_ldb) { /* ended at once: the script did not compile */
            printf("Eval debugging session can't start:\n");
            cliPrintNextReply();
            return status;
        }
        config.interactive = isatty(STDIN_FILENO);
        config.in_repl = 1;
        config.ldb_restart = 0;
        repl();
        if (!config.ldb_restart) return 0;
        cliConnect(1);
        printf("\n");
    }
}

/* ---- interactive and batch ----------------------------------------------------------- */

static sds buildPrompt(void) {
    if (!context) return sdsnew("not connected> ");
    if (config.eval_ldb && eval_file) return sdsnew("lua debugger> ");
    sds p = config.socket ? sdscatprintf(sdsempty(), "redis %s", config.socket)
                          : sdscatprintf(sdsempty(), strchr(config.host, ':') ? "[%s]:%d" : "%s:%d",
                                         config.host, config.port);
    if (config.dbnum) p = sdscatprintf(p, "[%d]", config.dbnum);
    if (config.in_multi) p = sdscat(p, "(TX)");
    return sdscat(p, "> ");
}

static int isSensitive(int argc, char **argv) {
    if (isCommand(argv[0], "auth")) return 1;
    if (argc >= 2 && isCommand(argv[0], "acl") && isCommand(argv[1], "setuser")) return 1;
    if (isCommand(argv[0], "hello") || isCommand(argv[0], "migrate")) {
        for (int i = 1; i < argc; i++)
            if (isCommand(argv[i], "auth") || isCommand(argv[i], "auth2")) return 1;
    }
    if (argc >= 3 && isCommand(argv[0], "config") && isCommand(argv[1], "set"))
        return isCommand(argv[2], "masterauth") || isCommand(argv[2], "masteruser") ||
               isCommand(argv[2], "requirepass");
    return 0;
}

/* A dot file in $HOME, or the path the environment variable names ("~/"
 * meaning $HOME). NULL when there is none or it is /dev/null. */
static sds dotFilePath(const char *env_name, const char *file_name) {
    const char *env = getenv(env_name);
    const char *home = getenv("HOME");
    sds path = NULL;
    if (env && *env) {
        if (env[0] == '~' && env[1] == '/' && home) path = sdscatprintf(sdsempty(), "%s%s", home, env + 1);
        else path = sdsnew(env);
    } else if (home && *home) {
        path = sdscatprintf(sdsempty(), "%s/%s", home, file_name);
    }
    if (path && !strcmp(path, "/dev/null")) {
        sdsfree(path);
        path = NULL;
    }
    return path;
}

/* ":set hints" / ":set nohints", typed or read from ~/.redisclirc; the
 * complaints are Redis's, prefixed with the file's name when they come from
 * it. */
static void setPreference(int argc, char **argv, int from_rcfile) {
    const char *where = from_rcfile ? ".redisclirc: " : "";
    if (isCommand(argv[0], ":set") && argc >= 2) {
        if (isCommand(argv[1], "hints")) cliSetHints(1);
        else if (isCommand(argv[1], "nohints")) cliSetHints(0);
        else printf("%sunknown redis-cli preference '%s'\n", where, argv[1]);
    } else {
        printf("%sunknown redis-cli internal command '%s'\n", where, argv[0]);
    }
    fflush(stdout);
}

/* Every line of the file is a preference (interactive sessions only). */
static void loadPreferences(void) {
    sds path = dotFilePath("REDISCLI_RCFILE", CLI_RCFILE_DEFAULT);
    FILE *fp = path ? fopen(path, "r") : NULL;
    sdsfree(path);
    if (!fp) return;
    char line[1024];
    while (fgets(line, sizeof(line), fp)) {
        int argc = 0;
        sds *argv = sdssplitargs(line, &argc);
        if (argv && argc > 0) setPreference(argc, argv, 1);
        if (argv) sdsfreesplitres(argv, argc);
    }
    fclose(fp);
}

/* Runs the command (with a retry after reconnecting) and reports failure. */
static void runWithReconnect(int argc, char **argv, long long repeat) {
    int had_error = 0;
    if (context && sendFollowing(argc, argv, repeat, &had_error) == RC_OK) return;
    if (redirect_failed) return; /* the node a redirection named did not answer: no retry */
    if (cliConnect(1) != RC_OK) return;
    if (sendFollowing(argc, argv, repeat, &had_error) != RC_OK) {
        printContextError();
        rcFree(context);
        context = NULL;
    }
}

/* Interprets one line of input. Returns 0 when the session should end. */
static int runLine(int argc, char **argv) {
    if (isCommand(argv[0], "quit") || isCommand(argv[0], "exit")) return 0;
    if (isCommand(argv[0], "clear")) {
        leClearScreen();
        return 1;
    }
    if (isCommand(argv[0], "restart")) {
        if (!eval_file) {
            printf("Use 'restart' only in Lua debugging mode.\n");
            fflush(stdout);
            return 1;
        }
        config.eval_ldb = 1;
        config.output = CLI_OUT_RAW;
        config.ldb_restart = 1;
        return 0;
    }
    if (!config.eval_ldb && (isCommand(argv[0], "help") || isCommand(argv[0], "?"))) {
        cliHelpCommand(argc, argv, CLI_VERSION);
        fflush(stdout);
        return 1;
    }
    if (argv[0][0] == ':') {
        setPreference(argc, argv, 0);
        return 1;
    }
    if (isCommand(argv[0], "connect") && argc >= 3) {
        config.host = keepString(&ownedHost, argv[1], strlen(argv[1]));
        config.port = atoi(argv[2]);
        config.socket = NULL;
        cliConnect(1);
        return 1;
    }
    long long repeat = 1;
    int skip = 0;
    char *end;
    long long n = strtoll(argv[0], &end, 10);
    if (argc > 1 && *end == '\0' && end != argv[0]) {
        repeat = n;
        skip = 1;
    }
    if (repeat > 0) runWithReconnect(argc - skip, argv + skip, repeat);
    cliLdbAfterCommand();
    return 1;
}

static void repl(void) {
    sds histfile = NULL;
    int use_history = config.interactive;
    cliHelpInit(); /* "help" works in batch mode too, as Redis's */
    if (config.interactive) {
        leSetCompletionCallback(cliCompletion);
        leSetHintCallback(cliHint);
        leHistorySetMaxLen(CLI_HISTORY_MAX);
        loadPreferences();
        histfile = dotFilePath("REDISCLI_HISTFILE", CLI_HISTFILE_DEFAULT);
        if (!histfile) use_history = 0;
        if (use_history) leHistoryLoad(histfile);
    }
    for (;;) {
        sds prompt = config.interactive ? buildPrompt() : sdsempty();
        char *line = leReadLine(prompt);
        sdsfree(prompt);
        if (!line) break;
        int argc = 0;
        sds *argv = cliLdbSplitLine(line, &argc);
        if (!argv) {
            printf("Invalid argument(s)\n");
            fflush(stdout);
        } else if (argc > 0) {
            int leaving = isCommand(argv[0], "quit") || isCommand(argv[0], "exit");
            if (use_history && !leaving && !isSensitive(argc, argv)) {
                leHistoryAdd(line);
                leHistorySave(histfile);
            }
            int go_on = runLine(argc, argv);
            if (!go_on) {
                sdsfreesplitres(argv, argc);
                free(line);
                break;
            }
        }
        if (argv) sdsfreesplitres(argv, argc);
        free(line);
    }
    sdsfree(histfile);
    if (config.interactive) leHistoryFree();
    cliHelpFree();
}

/* ---- main ------------------------------------------------------------------------------- */

static void warnAboutPassword(void) {
    if (config.auth_on_command_line && !config.no_auth_warning)
        fprintf(stderr, "Warning: Using a password with '-a' or '-u' option on the command line interface "
                        "may not be safe.\n");
}

/* --askpass: the password replaces -a and REDISCLI_AUTH; typed on a
 * terminal it shows as '*'. No line (end of input): no AUTH at all. */
static void askPassword(void) {
    leSetMaskMode(1);
    char *line = leReadLine("Please input password: ");
    leSetMaskMode(0);
    config.auth = line ? keepString(&ownedAuth, line, strlen(line)) : NULL;
    free(line);
}

static int wantsSpecialMode(void) {
    return config.pipe_mode || config.scan_mode || config.bigkeys || config.memkeys || config.stat_mode ||
           config.latency_mode || config.hotkeys || config.lru_test || config.rdb_file || config.replica_mode;
}

/* A refused AUTH ends these modes (Redis's tool connects for them with
 * AUTH errors fatal; one-shot commands and the prompt go on). */
static int runSpecialMode(void) {
    if (cliConnect(0) != RC_OK || config.auth_failed) return 1;
    if (config.replica_mode) return cliReplicaMode();
    if (config.rdb_file) return cliRdbMode(config.rdb_file, config.rdb_functions_only);
    if (config.lru_test) return cliLruTestMode(config.lru_test_keys);
    if (config.hotkeys) return cliHotKeysMode();
    if (config.pipe_mode) return cliPipeMode();
    if (config.scan_mode) return cliScanMode();
    if (config.bigkeys || config.memkeys) return cliBigKeysMode(config.memkeys);
    if (config.stat_mode) return cliStatMode();
    return cliLatencyMode();
}

int main(int argc, char **argv) {
    setDefaults();
    int first = parseOptions(argc, argv);
    if (!config.auth && getenv("REDISCLI_AUTH")) config.auth = getenv("REDISCLI_AUTH");
    warnAboutPassword();
    if (config.askpass) askPassword();
    cliClusterAskPasswords();
    /* JSON output speaks RESP3 (maps, booleans ...) unless -2 said not to. */
    if ((config.output == CLI_OUT_JSON || config.output == CLI_OUT_QUOTED_JSON) && !config.resp2_asked)
        config.resp3 = 1;
    if (!config.pattern) config.pattern = sdsnew("*");
    signal(SIGPIPE, SIG_IGN);

    int status;
    if (cliClusterWanted()) {
        status = cliClusterMode();
    } else if (config.intrinsic_latency_mode) {
        status = cliIntrinsicLatencyMode(config.intrinsic_latency);
    } else if (wantsSpecialMode()) {
        status = runSpecialMode();
    } else if (eval_file) {
        if (cliConnect(0) != RC_OK) return 1;
        status = evalMode(argc - first, argv + first);
    } else if (first < argc && isLocalHelp(argv[first])) {
        status = localHelp(argc - first, argv + first);
    } else if (first < argc) {
        checkStdinTag(argc - first, argv + first);
        if (cliConnect(0) != RC_OK) return 1;
        status = oneShot(argc - first, argv + first);
    } else {
        config.interactive = isatty(STDIN_FILENO);
        config.in_repl = 1;
        cliConnect(0);
        repl();
        status = 0;
    }
    rcFree(context);
    sdsfree(config.elem_delim);
    sdsfree(config.resp_delim);
    sdsfree(config.pattern);
    sdsfree(ownedHost);
    sdsfree(ownedUser);
    sdsfree(ownedAuth);
    return status;
}
