/* commands.c -- the command table: the single source of truth for dispatch,
 * arity and flag checks, COMMAND INFO/DOCS/COUNT/LIST/GETKEYS, INFO
 * commandstats and redis-cli's help and completion.
 *
 * Each entry: name, handler, arity (N = exactly N arguments including the
 * name, -N = at least N), flags, legacy key positions (first, last, step),
 * group, version introduced, a one-line summary and an argument hint.
 * Container commands (CONFIG, CLIENT, OBJECT, COMMAND, SLOWLOG, MEMORY) carry a
 * subcommand table; their own handler, if any, runs when called without a
 * subcommand.
 *
 * After those, an entry may add, in any order:
 * - KEYS(KS(...), ...): its key specs, as COMMAND INFO lists them. Each
 *   KS(flags, begin, find[, NOTES("...")]) takes KSPEC_* flags, where the
 *   keys begin -- INDEX(i), KEYWORD("word", startfrom) or BS_UNKNOWN -- and
 *   how far they go -- RANGE(lastkey, keystep, limit), KEYNUM(keynumidx,
 *   firstkey, keystep) or FK_UNKNOWN. An entry with key positions but no
 *   KEYS() gets one spec derived from them (keyspec.c).
 * - TIPS("tip tip"): the command's tips for clients and proxies.
 * - GETKEYS(fn): the function that finds the keys where the specs cannot
 *   (keyspec.c): SORT's STORE, SET's and BITFIELD's flags, the numkeys
 *   commands' lenient count.
 * These are Redis 7.0's facts for each command (checked by
 * utils/compare-command-info.sh against the real server); "movablekeys" is
 * not declared but follows from the specs. The macros expand to designated
 * initializers, and a spec list to a file-scope compound literal, so the
 * table stays one static initializer with nothing built at start-up.
 *
 * Handlers are declared weak here: a handler whose module is not linked in
 * resolves to NULL and its entry is skipped at start-up, so the server links
 * while commands are still being written (and redis-cli links this table
 * without any of them). tests/unit/commands.tcl asserts that COMMAND COUNT
 * equals the number of entries, so a missing handler cannot go unnoticed in
 * a release.
 */
#include "server.h"

#define SUB(name, handler, arity_, flags_, fk, lk, step, summary_, args, ...)                            \
    {.declared_name = name, .proc = handler, .arity = arity_, .flags = flags_, .firstkey = fk, .lastkey = lk, \
     .keystep = step, .summary = summary_, .args_hint = args, __VA_ARGS__}
#define CMD(name, handler, arity_, flags_, fk, lk, step, group_, since_, summary_, args, subs, ...)     \
    {.declared_name = name, .proc = handler, .arity = arity_, .flags = flags_, .firstkey = fk, .lastkey = lk, \
     .keystep = step, .group = group_, .since = since_, .summary = summary_, .args_hint = args,           \
     .subcommands = subs, __VA_ARGS__}
#define END {.declared_name = NULL}

#define KEYS(...)                                         \
    .key_specs = (const keySpec[]){__VA_ARGS__},          \
    .key_specs_num = (int)(sizeof((const keySpec[]){__VA_ARGS__}) / sizeof(keySpec))
#define KS(flags_, begin, find, ...) {.flags = flags_, begin, find, __VA_ARGS__}
#define INDEX(i) .bs_type = KSPEC_BS_INDEX, .bs.index = (i)
#define KEYWORD(word, from) .bs_type = KSPEC_BS_KEYWORD, .bs.keyword = {word, from}
#define BS_UNKNOWN .bs_type = KSPEC_BS_UNKNOWN
#define RANGE(last, step, lim) .fk_type = KSPEC_FK_RANGE, .fk.range = {last, step, lim}
#define KEYNUM(idx, first, step) .fk_type = KSPEC_FK_KEYNUM, .fk.keynum = {idx, first, step}
#define FK_UNKNOWN .fk_type = KSPEC_FK_UNKNOWN
#define NOTES(text) .notes = text
#define TIPS(text) .tips = text
#define GETKEYS(fn) .getkeys_proc = fn

/* The getkeys functions live in keyspec.c; weak, like the handlers. */
#pragma weak setGetKeys
#pragma weak bitfieldGetKeys
#pragma weak sortGetKeys
#pragma weak sortroGetKeys
#pragma weak numkeysFirstGetKeys
#pragma weak numkeysSecondGetKeys
#pragma weak zstoreGetKeys
redisGetKeysProc setGetKeys, bitfieldGetKeys, sortGetKeys, sortroGetKeys, numkeysFirstGetKeys,
    numkeysSecondGetKeys, zstoreGetKeys;

/* Handlers of modules that may not be linked yet resolve to NULL. */
#pragma weak appendCommand
#pragma weak authCommand
#pragma weak clientCommand
#pragma weak resetCommand
#pragma weak commandCommand
#pragma weak commandCountCommand
#pragma weak commandDocsCommand
#pragma weak commandGetKeysCommand
#pragma weak commandGetKeysAndFlagsCommand
#pragma weak commandHelpCommand
#pragma weak commandInfoCommand
#pragma weak commandListCommand
#pragma weak configGetCommand
#pragma weak configHelpCommand
#pragma weak configResetStatCommand
#pragma weak configRewriteCommand
#pragma weak configSetCommand
#pragma weak copyCommand
#pragma weak dbsizeCommand
#pragma weak debugCommand
#pragma weak decrCommand
#pragma weak decrbyCommand
#pragma weak delCommand
#pragma weak echoCommand
#pragma weak existsCommand
#pragma weak expireCommand
#pragma weak expireatCommand
#pragma weak expiretimeCommand
#pragma weak flushallCommand
#pragma weak flushdbCommand
#pragma weak getCommand
#pragma weak getdelCommand
#pragma weak getexCommand
#pragma weak getrangeCommand
#pragma weak getsetCommand
#pragma weak helloCommand
#pragma weak incrCommand
#pragma weak incrbyCommand
#pragma weak incrbyfloatCommand
#pragma weak infoCommand
#pragma weak keysCommand
#pragma weak lastsaveCommand
#pragma weak lcsCommand
#pragma weak mgetCommand
#pragma weak monitorCommand
#pragma weak memoryUsageCommand
#pragma weak memoryStatsCommand
#pragma weak memoryDoctorCommand
#pragma weak memoryMallocStatsCommand
#pragma weak memoryPurgeCommand
#pragma weak memoryHelpCommand
#pragma weak moveCommand
#pragma weak msetCommand
#pragma weak msetnxCommand
#pragma weak objectCommand
#pragma weak dumpCommand
#pragma weak restoreCommand
#pragma weak persistCommand
#pragma weak pexpireCommand
#pragma weak pexpireatCommand
#pragma weak pexpiretimeCommand
#pragma weak pingCommand
#pragma weak psetexCommand
#pragma weak pttlCommand
#pragma weak quitCommand
#pragma weak randomkeyCommand
#pragma weak renameCommand
#pragma weak renamenxCommand
#pragma weak scanCommand
#pragma weak selectCommand
#pragma weak setCommand
#pragma weak setexCommand
#pragma weak setnxCommand
#pragma weak setrangeCommand
#pragma weak shutdownCommand
#pragma weak slowlogCommand
#pragma weak latencyCommand
#pragma weak strlenCommand
#pragma weak swapdbCommand
#pragma weak timeCommand
#pragma weak touchCommand
#pragma weak ttlCommand
#pragma weak typeCommand
#pragma weak unlinkCommand
#pragma weak bgrewriteaofCommand
#pragma weak bgsaveCommand
#pragma weak saveCommand
#pragma weak pfaddCommand
#pragma weak pfcountCommand
#pragma weak pfdebugCommand
#pragma weak pfmergeCommand
#pragma weak pfselftestCommand
#pragma weak bitcountCommand
#pragma weak bitfieldCommand
#pragma weak bitfieldroCommand
#pragma weak bitopCommand
#pragma weak bitposCommand
#pragma weak getbitCommand
#pragma weak setbitCommand
#pragma weak psubscribeCommand
#pragma weak publishCommand
#pragma weak pubsubCommand
#pragma weak punsubscribeCommand
#pragma weak spublishCommand
#pragma weak ssubscribeCommand
#pragma weak subscribeCommand
#pragma weak sunsubscribeCommand
#pragma weak unsubscribeCommand
#pragma weak discardCommand
#pragma weak execCommand
#pragma weak multiCommand
#pragma weak unwatchCommand
#pragma weak watchCommand
#pragma weak blmoveCommand
#pragma weak blmpopCommand
#pragma weak blpopCommand
#pragma weak brpopCommand
#pragma weak brpoplpushCommand
#pragma weak bzmpopCommand
#pragma weak bzpopmaxCommand
#pragma weak bzpopminCommand
#pragma weak hdelCommand
#pragma weak hexistsCommand
#pragma weak hgetCommand
#pragma weak hgetallCommand
#pragma weak hincrbyCommand
#pragma weak hincrbyfloatCommand
#pragma weak hkeysCommand
#pragma weak hlenCommand
#pragma weak hmgetCommand
#pragma weak hmsetCommand
#pragma weak hrandfieldCommand
#pragma weak hscanCommand
#pragma weak hsetCommand
#pragma weak hsetnxCommand
#pragma weak hstrlenCommand
#pragma weak hvalsCommand
#pragma weak lindexCommand
#pragma weak linsertCommand
#pragma weak llenCommand
#pragma weak lmoveCommand
#pragma weak lmpopCommand
#pragma weak lpopCommand
#pragma weak lposCommand
#pragma weak lpushCommand
#pragma weak lpushxCommand
#pragma weak lrangeCommand
#pragma weak lremCommand
#pragma weak lsetCommand
#pragma weak ltrimCommand
#pragma weak rpopCommand
#pragma weak rpoplpushCommand
#pragma weak rpushCommand
#pragma weak rpushxCommand
#pragma weak saddCommand
#pragma weak scardCommand
#pragma weak sdiffCommand
#pragma weak sdiffstoreCommand
#pragma weak sinterCommand
#pragma weak sintercardCommand
#pragma weak sinterstoreCommand
#pragma weak sismemberCommand
#pragma weak smembersCommand
#pragma weak smismemberCommand
#pragma weak smoveCommand
#pragma weak sortCommand
#pragma weak sortroCommand
#pragma weak spopCommand
#pragma weak srandmemberCommand
#pragma weak sremCommand
#pragma weak sscanCommand
#pragma weak sunionCommand
#pragma weak sunionstoreCommand
#pragma weak zaddCommand
#pragma weak zcardCommand
#pragma weak zcountCommand
#pragma weak zdiffCommand
#pragma weak zdiffstoreCommand
#pragma weak zincrbyCommand
#pragma weak zinterCommand
#pragma weak zintercardCommand
#pragma weak zinterstoreCommand
#pragma weak zlexcountCommand
#pragma weak zmpopCommand
#pragma weak zmscoreCommand
#pragma weak zpopmaxCommand
#pragma weak zpopminCommand
#pragma weak zrandmemberCommand
#pragma weak zrangeCommand
#pragma weak zrangebylexCommand
#pragma weak zrangebyscoreCommand
#pragma weak zrangestoreCommand
#pragma weak zrankCommand
#pragma weak zremCommand
#pragma weak zremrangebylexCommand
#pragma weak zremrangebyrankCommand
#pragma weak zremrangebyscoreCommand
#pragma weak zrevrangeCommand
#pragma weak zrevrangebylexCommand
#pragma weak zrevrangebyscoreCommand
#pragma weak zrevrankCommand
#pragma weak zscanCommand
#pragma weak zscoreCommand
#pragma weak zunionCommand
#pragma weak zunionstoreCommand

static redisCommand objectSubcommands[] = {
    SUB("encoding", objectCommand, 3, CMD_READONLY, 2, 2, 1,
        "Returns the internal encoding of a Redis object.",
        "key",
        KEYS(KS(KSPEC_RO, INDEX(2), RANGE(0, 1, 0))),
        TIPS("nondeterministic_output")),
    SUB("freq", objectCommand, 3, CMD_READONLY, 2, 2, 1,
        "Returns the logarithmic access frequency counter of a Redis object.",
        "key",
        KEYS(KS(KSPEC_RO, INDEX(2), RANGE(0, 1, 0))),
        TIPS("nondeterministic_output")),
    SUB("idletime", objectCommand, 3, CMD_READONLY, 2, 2, 1,
        "Returns the time since the last access to a Redis object.",
        "key",
        KEYS(KS(KSPEC_RO, INDEX(2), RANGE(0, 1, 0))),
        TIPS("nondeterministic_output")),
    SUB("refcount", objectCommand, 3, CMD_READONLY, 2, 2, 1,
        "Returns the reference count of a value of a key.",
        "key",
        KEYS(KS(KSPEC_RO, INDEX(2), RANGE(0, 1, 0))),
        TIPS("nondeterministic_output")),
    SUB("help", objectCommand, 2, CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Returns helpful text about the different subcommands.",
        ""),
    END,
};

static redisCommand clientSubcommands[] = {
    SUB("id", clientCommand, 2, CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Returns the unique client ID of the connection.",
        ""),
    SUB("setname", clientCommand, 3, CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Sets the connection name.",
        "connection-name"),
    SUB("getname", clientCommand, 2, CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Returns the name of the connection.",
        ""),
    SUB("list", clientCommand, -2, CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Lists open connections.",
        "[TYPE NORMAL | MASTER | REPLICA | PUBSUB] [ID client-id [client-id ...]]",
        TIPS("nondeterministic_output")),
    SUB("info", clientCommand, 2, CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Returns information about the connection.",
        "",
        TIPS("nondeterministic_output")),
    SUB("kill", clientCommand, -3, CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Terminates open connections.",
        "ip:port | [ID client-id] [TYPE NORMAL | MASTER | SLAVE | REPLICA | PUBSUB] [USER username] [ADDR ip:port] [LADDR ip:port] [SKIPME YES | NO]"),
    SUB("pause", clientCommand, -3, CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Suspends commands processing.",
        "timeout [WRITE | ALL]"),
    SUB("unblock", clientCommand, -3, CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Unblock a client blocked in a blocking command from a different connection",
        "client-id [TIMEOUT | ERROR]"),
    SUB("unpause", clientCommand, 2, CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Resumes processing commands from paused clients.",
        ""),
    SUB("reply", clientCommand, 3, CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Instructs the server whether to reply to commands.",
        "ON | OFF | SKIP"),
    SUB("no-evict", clientCommand, 3, CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Sets the client eviction mode of the connection.",
        "ON | OFF"),
    SUB("no-touch", clientCommand, 3, CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Controls whether commands sent by the client affect the LRU/LFU of accessed keys.",
        "ON | OFF"),
    SUB("setinfo", clientCommand, 4, CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Sets information specific to the client or connection.",
        "LIB-NAME libname | LIB-VER libver"),
    SUB("tracking", clientCommand, -3, CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Controls server-assisted client-side caching for the connection.",
        "ON | OFF [REDIRECT client-id] [PREFIX prefix [PREFIX prefix ...]] [BCAST] [OPTIN] [OPTOUT] [NOLOOP]"),
    SUB("caching", clientCommand, 3, CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Instructs the server whether to track the keys in the next request.",
        "YES | NO"),
    SUB("getredir", clientCommand, 2, CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Returns the client ID to which the connection's tracking notifications are redirected.",
        ""),
    SUB("trackinginfo", clientCommand, 2, CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Returns information about server-assisted client-side caching for the connection.",
        ""),
    SUB("help", clientCommand, 2, CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Returns helpful text about the different subcommands.",
        ""),
    END,
};

static redisCommand commandSubcommands[] = {
    SUB("count", commandCountCommand, 2, CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Returns a count of commands.",
        ""),
    SUB("info", commandInfoCommand, -2, CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Returns information about one, multiple or all commands.",
        "[command-name [command-name ...]]",
        TIPS("nondeterministic_output_order")),
    SUB("docs", commandDocsCommand, -2, CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Returns documentary information about one, multiple or all commands.",
        "[command-name [command-name ...]]",
        TIPS("nondeterministic_output_order")),
    SUB("list", commandListCommand, -2, CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Returns a list of command names.",
        "[FILTERBY MODULE module-name | ACLCAT category | PATTERN pattern]",
        TIPS("nondeterministic_output_order")),
    SUB("getkeys", commandGetKeysCommand, -4, CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Extracts the key names from an arbitrary command.",
        "command [arg [arg ...]]"),
    SUB("getkeysandflags", commandGetKeysAndFlagsCommand, -4, CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Extracts the key names and access flags for an arbitrary command.",
        "command [arg [arg ...]]"),
    SUB("help", commandHelpCommand, 2, CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Returns helpful text about the different subcommands.",
        ""),
    END,
};

static redisCommand configSubcommands[] = {
    SUB("get", configGetCommand, -3, CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Returns the effective values of configuration parameters.",
        "parameter [parameter ...]"),
    SUB("set", configSetCommand, -4, CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Sets configuration parameters in-flight.",
        "parameter value [parameter value ...]",
        TIPS("request_policy:all_nodes response_policy:all_succeeded")),
    SUB("resetstat", configResetStatCommand, 2, CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Resets the server's statistics.",
        ""),
    SUB("rewrite", configRewriteCommand, 2, CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Persists the effective configuration to file.",
        ""),
    SUB("help", configHelpCommand, 2, CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Returns helpful text about the different subcommands.",
        ""),
    END,
};

static redisCommand memorySubcommands[] = {
    SUB("usage", memoryUsageCommand, -3, CMD_READONLY, 2, 2, 1,
        "Estimate the memory usage of a key",
        "key [SAMPLES count]",
        KEYS(KS(KSPEC_RO, INDEX(2), RANGE(0, 1, 0)))),
    SUB("malloc-stats", memoryMallocStatsCommand, 2, 0, 0, 0, 0,
        "Show allocator internal stats",
        "",
        TIPS("nondeterministic_output request_policy:all_shards response_policy:special")),
    SUB("stats", memoryStatsCommand, 2, 0, 0, 0, 0,
        "Show memory usage details",
        "",
        TIPS("nondeterministic_output request_policy:all_shards response_policy:special")),
    SUB("doctor", memoryDoctorCommand, 2, 0, 0, 0, 0,
        "Outputs memory problems report",
        "",
        TIPS("nondeterministic_output request_policy:all_shards response_policy:special")),
    SUB("purge", memoryPurgeCommand, 2, 0, 0, 0, 0,
        "Ask the allocator to release memory",
        "",
        TIPS("request_policy:all_shards response_policy:all_succeeded")),
    SUB("help", memoryHelpCommand, 2, CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Show helpful text about the different subcommands",
        ""),
    END,
};

static redisCommand slowlogSubcommands[] = {
    SUB("get", slowlogCommand, -2, CMD_ADMIN | CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Returns the slow log's entries.",
        "[count]",
        TIPS("request_policy:all_nodes nondeterministic_output")),
    SUB("len", slowlogCommand, 2, CMD_ADMIN | CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Returns the number of entries in the slow log.",
        "",
        TIPS("request_policy:all_nodes response_policy:agg_sum nondeterministic_output")),
    SUB("reset", slowlogCommand, 2, CMD_ADMIN | CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Clears all entries from the slow log.",
        "",
        TIPS("request_policy:all_nodes response_policy:all_succeeded")),
    SUB("help", slowlogCommand, 2, CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Show helpful text about the different subcommands",
        ""),
    END,
};

static redisCommand latencySubcommands[] = {
    SUB("doctor", latencyCommand, 2, CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Return a human readable latency analysis report.",
        "",
        TIPS("nondeterministic_output request_policy:all_nodes response_policy:special")),
    SUB("graph", latencyCommand, 3, CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Return a latency graph for the event.",
        "event",
        TIPS("nondeterministic_output request_policy:all_nodes response_policy:special")),
    SUB("help", latencyCommand, 2, CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Show helpful text about the different subcommands.",
        ""),
    SUB("histogram", latencyCommand, -2, CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Return the cumulative distribution of latencies of a subset of commands or all.",
        "[command [command ...]]",
        TIPS("nondeterministic_output request_policy:all_nodes response_policy:special"), .since = "7.0.0"),
    SUB("history", latencyCommand, 3, CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Return timestamp-latency samples for the event.",
        "event",
        TIPS("nondeterministic_output request_policy:all_nodes response_policy:special")),
    SUB("latest", latencyCommand, 2, CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Return the latest latency samples for all events.",
        "",
        TIPS("nondeterministic_output request_policy:all_nodes response_policy:special")),
    SUB("reset", latencyCommand, -2, CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Reset latency data for one or more events.",
        "[event [event ...]]",
        TIPS("request_policy:all_nodes response_policy:all_succeeded")),
    END,
};

static redisCommand pubsubSubcommands[] = {
    SUB("channels", pubsubCommand, -2, CMD_PUBSUB | CMD_LOADING | CMD_STALE, 0, 0, 0,
        "List active channels",
        "[pattern]"),
    SUB("numpat", pubsubCommand, 2, CMD_PUBSUB | CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Get the count of unique patterns pattern subscriptions",
        ""),
    SUB("numsub", pubsubCommand, -2, CMD_PUBSUB | CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Get the count of subscribers for channels",
        "[channel [channel ...]]"),
    SUB("shardchannels", pubsubCommand, -2, CMD_PUBSUB | CMD_LOADING | CMD_STALE, 0, 0, 0,
        "List active shard channels",
        "[pattern]"),
    SUB("shardnumsub", pubsubCommand, -2, CMD_PUBSUB | CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Get the count of subscribers for shard channels",
        "[shardchannel [shardchannel ...]]"),
    SUB("help", pubsubCommand, 2, CMD_LOADING | CMD_STALE, 0, 0, 0,
        "Show helpful text about the different subcommands",
        ""),
    END,
};

redisCommand redisCommandTable[] = {
    CMD("get", getCommand, 2, CMD_READONLY | CMD_FAST, 1, 1, 1, "string", "1.0.0",
        "Returns the string value of a key.",
        "key", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0)))),
    CMD("set", setCommand, -3, CMD_WRITE | CMD_DENYOOM, 1, 1, 1, "string", "1.0.0",
        "Sets the string value of a key, ignoring its type. The key is created if it doesn't exist.",
        "key value [NX | XX] [GET] [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | KEEPTTL]", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_UPDATE | KSPEC_VARIABLE_FLAGS, INDEX(1), RANGE(0, 1, 0),
                NOTES("RW and ACCESS due to the optional `GET` argument"))),
        GETKEYS(setGetKeys)),
    CMD("setnx", setnxCommand, 3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "string", "1.0.0",
        "Set the string value of a key only when the key doesn't exist.",
        "key value", NULL,
        KEYS(KS(KSPEC_OW | KSPEC_INSERT, INDEX(1), RANGE(0, 1, 0)))),
    CMD("setex", setexCommand, 4, CMD_WRITE | CMD_DENYOOM, 1, 1, 1, "string", "2.0.0",
        "Sets the string value and expiration time of a key. Creates the key if it doesn't exist.",
        "key seconds value", NULL,
        KEYS(KS(KSPEC_OW | KSPEC_UPDATE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("psetex", psetexCommand, 4, CMD_WRITE | CMD_DENYOOM, 1, 1, 1, "string", "2.6.0",
        "Sets both string value and expiration time in milliseconds of a key. The key is created if it doesn't exist.",
        "key milliseconds value", NULL,
        KEYS(KS(KSPEC_OW | KSPEC_UPDATE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("getex", getexCommand, -2, CMD_WRITE | CMD_FAST, 1, 1, 1, "string", "6.2.0",
        "Returns the string value of a key after setting its expiration time.",
        "key [EX seconds | PX milliseconds | EXAT unix-time-seconds | PXAT unix-time-milliseconds | PERSIST]", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_UPDATE, INDEX(1), RANGE(0, 1, 0),
                NOTES("RW and UPDATE because it changes the TTL")))),
    CMD("getdel", getdelCommand, 2, CMD_WRITE | CMD_FAST, 1, 1, 1, "string", "6.2.0",
        "Returns the string value of a key after deleting the key.",
        "key", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_DELETE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("getset", getsetCommand, 3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "string", "1.0.0",
        "Returns the previous string value of a key after setting it to a new value.",
        "key value", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_UPDATE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("mget", mgetCommand, -2, CMD_READONLY | CMD_FAST, 1, -1, 1, "string", "1.0.0",
        "Atomically returns the string values of one or more keys.",
        "key [key ...]", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(-1, 1, 0))),
        TIPS("request_policy:multi_shard")),
    CMD("mset", msetCommand, -3, CMD_WRITE | CMD_DENYOOM, 1, -1, 2, "string", "1.0.1",
        "Atomically creates or modifies the string values of one or more keys.",
        "key value [key value ...]", NULL,
        KEYS(KS(KSPEC_OW | KSPEC_UPDATE, INDEX(1), RANGE(-1, 2, 0))),
        TIPS("request_policy:multi_shard response_policy:all_succeeded")),
    CMD("msetnx", msetnxCommand, -3, CMD_WRITE | CMD_DENYOOM, 1, -1, 2, "string", "1.0.1",
        "Atomically modifies the string values of one or more keys only when all keys don't exist.",
        "key value [key value ...]", NULL,
        KEYS(KS(KSPEC_OW | KSPEC_INSERT, INDEX(1), RANGE(-1, 2, 0))),
        TIPS("request_policy:multi_shard response_policy:agg_min")),
    CMD("append", appendCommand, 3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "string", "2.0.0",
        "Appends a string to the value of a key. Creates the key if it doesn't exist.",
        "key value", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_INSERT, INDEX(1), RANGE(0, 1, 0)))),
    CMD("strlen", strlenCommand, 2, CMD_READONLY | CMD_FAST, 1, 1, 1, "string", "2.2.0",
        "Returns the length of a string value.",
        "key", NULL,
        KEYS(KS(KSPEC_RO, INDEX(1), RANGE(0, 1, 0)))),
    CMD("getrange", getrangeCommand, 4, CMD_READONLY, 1, 1, 1, "string", "2.4.0",
        "Returns a substring of the string stored at a key.",
        "key start end", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0)))),
    CMD("substr", getrangeCommand, 4, CMD_READONLY, 1, 1, 1, "string", "1.0.0",
        "Returns a substring from a string value.",
        "key start end", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0)))),
    CMD("setrange", setrangeCommand, 4, CMD_WRITE | CMD_DENYOOM, 1, 1, 1, "string", "2.2.0",
        "Overwrites a part of a string value with another by an offset. Creates the key if it doesn't exist.",
        "key offset value", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_UPDATE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("incr", incrCommand, 2, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "string", "1.0.0",
        "Increments the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.",
        "key", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_UPDATE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("decr", decrCommand, 2, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "string", "1.0.0",
        "Decrements the integer value of a key by one. Uses 0 as initial value if the key doesn't exist.",
        "key", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_UPDATE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("incrby", incrbyCommand, 3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "string", "1.0.0",
        "Increments the integer value of a key by a number. Uses 0 as initial value if the key doesn't exist.",
        "key increment", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_UPDATE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("decrby", decrbyCommand, 3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "string", "1.0.0",
        "Decrements a number from the integer value of a key. Uses 0 as initial value if the key doesn't exist.",
        "key decrement", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_UPDATE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("incrbyfloat", incrbyfloatCommand, 3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "string", "2.6.0",
        "Increment the floating point value of a key by a number. Uses 0 as initial value if the key doesn't exist.",
        "key increment", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_UPDATE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("lcs", lcsCommand, -3, CMD_READONLY, 1, 2, 1, "string", "7.0.0",
        "Finds the longest common substring.",
        "key1 key2 [LEN] [IDX] [MINMATCHLEN min-match-len] [WITHMATCHLEN]", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(1, 1, 0)))),
    CMD("del", delCommand, -2, CMD_WRITE, 1, -1, 1, "generic", "1.0.0",
        "Deletes one or more keys.",
        "key [key ...]", NULL,
        KEYS(KS(KSPEC_RM | KSPEC_DELETE, INDEX(1), RANGE(-1, 1, 0))),
        TIPS("request_policy:multi_shard response_policy:agg_sum")),
    CMD("unlink", unlinkCommand, -2, CMD_WRITE | CMD_FAST, 1, -1, 1, "generic", "4.0.0",
        "Asynchronously deletes one or more keys.",
        "key [key ...]", NULL,
        KEYS(KS(KSPEC_RM | KSPEC_DELETE, INDEX(1), RANGE(-1, 1, 0))),
        TIPS("request_policy:multi_shard response_policy:agg_sum")),
    CMD("exists", existsCommand, -2, CMD_READONLY | CMD_FAST, 1, -1, 1, "generic", "1.0.0",
        "Determines whether one or more keys exist.",
        "key [key ...]", NULL,
        KEYS(KS(KSPEC_RO, INDEX(1), RANGE(-1, 1, 0))),
        TIPS("request_policy:multi_shard response_policy:agg_sum")),
    CMD("type", typeCommand, 2, CMD_READONLY | CMD_FAST, 1, 1, 1, "generic", "1.0.0",
        "Determines the type of value stored at a key.",
        "key", NULL,
        KEYS(KS(KSPEC_RO, INDEX(1), RANGE(0, 1, 0)))),
    CMD("rename", renameCommand, 3, CMD_WRITE, 1, 2, 1, "generic", "1.0.0",
        "Renames a key and overwrites the destination.",
        "key newkey", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_DELETE, INDEX(1), RANGE(0, 1, 0)),
             KS(KSPEC_OW | KSPEC_UPDATE, INDEX(2), RANGE(0, 1, 0)))),
    CMD("renamenx", renamenxCommand, 3, CMD_WRITE | CMD_FAST, 1, 2, 1, "generic", "1.0.0",
        "Renames a key only when the target key name doesn't exist.",
        "key newkey", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_DELETE, INDEX(1), RANGE(0, 1, 0)),
             KS(KSPEC_OW | KSPEC_INSERT, INDEX(2), RANGE(0, 1, 0)))),
    CMD("move", moveCommand, 3, CMD_WRITE | CMD_FAST, 1, 1, 1, "generic", "1.0.0",
        "Moves a key to another database.",
        "key db", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_UPDATE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("copy", copyCommand, -3, CMD_WRITE | CMD_DENYOOM, 1, 2, 1, "generic", "6.2.0",
        "Copies the value of a key to a new key.",
        "source destination [DB destination-db] [REPLACE]", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0)),
             KS(KSPEC_OW | KSPEC_UPDATE, INDEX(2), RANGE(0, 1, 0)))),
    CMD("dump", dumpCommand, 2, CMD_READONLY, 1, 1, 1, "generic", "2.6.0",
        "Returns a serialized representation of the value stored at a key.",
        "key", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0))),
        TIPS("nondeterministic_output")),
    CMD("restore", restoreCommand, -4, CMD_WRITE | CMD_DENYOOM, 1, 1, 1, "generic", "2.6.0",
        "Creates a key from the serialized representation of a value.",
        "key ttl serialized-value [REPLACE] [ABSTTL] [IDLETIME seconds] [FREQ frequency]", NULL,
        KEYS(KS(KSPEC_OW | KSPEC_UPDATE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("keys", keysCommand, 2, CMD_READONLY, 0, 0, 0, "generic", "1.0.0",
        "Returns all key names that match a pattern.",
        "pattern", NULL,
        TIPS("request_policy:all_shards nondeterministic_output_order")),
    CMD("scan", scanCommand, -2, CMD_READONLY, 0, 0, 0, "generic", "2.8.0",
        "Iterates over the key names in the database.",
        "cursor [MATCH pattern] [COUNT count] [TYPE type]", NULL,
        TIPS("nondeterministic_output request_policy:special")),
    CMD("randomkey", randomkeyCommand, 1, CMD_READONLY, 0, 0, 0, "generic", "1.0.0",
        "Returns a random key name from the database.",
        "", NULL,
        TIPS("request_policy:all_shards nondeterministic_output")),
    CMD("touch", touchCommand, -2, CMD_READONLY | CMD_FAST, 1, -1, 1, "generic", "3.2.1",
        "Returns the number of existing keys out of those specified after updating the time they were last accessed.",
        "key [key ...]", NULL,
        KEYS(KS(KSPEC_RO, INDEX(1), RANGE(-1, 1, 0))),
        TIPS("request_policy:multi_shard response_policy:agg_sum")),
    CMD("expire", expireCommand, -3, CMD_WRITE | CMD_FAST, 1, 1, 1, "generic", "1.0.0",
        "Sets the expiration time of a key in seconds.",
        "key seconds [NX | XX | GT | LT]", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_UPDATE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("pexpire", pexpireCommand, -3, CMD_WRITE | CMD_FAST, 1, 1, 1, "generic", "2.6.0",
        "Sets the expiration time of a key in milliseconds.",
        "key milliseconds [NX | XX | GT | LT]", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_UPDATE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("expireat", expireatCommand, -3, CMD_WRITE | CMD_FAST, 1, 1, 1, "generic", "1.2.0",
        "Sets the expiration time of a key to a Unix timestamp.",
        "key unix-time-seconds [NX | XX | GT | LT]", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_UPDATE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("pexpireat", pexpireatCommand, -3, CMD_WRITE | CMD_FAST, 1, 1, 1, "generic", "2.6.0",
        "Sets the expiration time of a key to a Unix milliseconds timestamp.",
        "key unix-time-milliseconds [NX | XX | GT | LT]", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_UPDATE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("ttl", ttlCommand, 2, CMD_READONLY | CMD_FAST, 1, 1, 1, "generic", "1.0.0",
        "Returns the expiration time in seconds of a key.",
        "key", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0))),
        TIPS("nondeterministic_output")),
    CMD("pttl", pttlCommand, 2, CMD_READONLY | CMD_FAST, 1, 1, 1, "generic", "2.6.0",
        "Returns the expiration time in milliseconds of a key.",
        "key", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0))),
        TIPS("nondeterministic_output")),
    CMD("expiretime", expiretimeCommand, 2, CMD_READONLY | CMD_FAST, 1, 1, 1, "generic", "7.0.0",
        "Returns the expiration time of a key as a Unix timestamp.",
        "key", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0)))),
    CMD("pexpiretime", pexpiretimeCommand, 2, CMD_READONLY | CMD_FAST, 1, 1, 1, "generic", "7.0.0",
        "Returns the expiration time of a key as a Unix milliseconds timestamp.",
        "key", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0)))),
    CMD("persist", persistCommand, 2, CMD_WRITE | CMD_FAST, 1, 1, 1, "generic", "2.2.0",
        "Removes the expiration time of a key.",
        "key", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_UPDATE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("object", NULL, -2, 0, 0, 0, 0, "generic", "2.2.3",
        "A container for object introspection commands.",
        "", objectSubcommands),
    CMD("dbsize", dbsizeCommand, 1, CMD_READONLY | CMD_FAST, 0, 0, 0, "server", "1.0.0",
        "Returns the number of keys in the database.",
        "", NULL,
        TIPS("request_policy:all_shards response_policy:agg_sum")),
    CMD("flushdb", flushdbCommand, -1, CMD_WRITE, 0, 0, 0, "server", "1.0.0",
        "Remove all keys from the current database.",
        "[ASYNC | SYNC]", NULL,
        TIPS("request_policy:all_shards response_policy:all_succeeded")),
    CMD("flushall", flushallCommand, -1, CMD_WRITE, 0, 0, 0, "server", "1.0.0",
        "Removes all keys from all databases.",
        "[ASYNC | SYNC]", NULL,
        TIPS("request_policy:all_shards response_policy:all_succeeded")),
    CMD("swapdb", swapdbCommand, 3, CMD_WRITE | CMD_FAST, 0, 0, 0, "server", "4.0.0",
        "Swaps two Redis databases.",
        "index1 index2", NULL),
    CMD("select", selectCommand, 2, CMD_LOADING | CMD_STALE | CMD_FAST, 0, 0, 0, "connection", "1.0.0",
        "Changes the selected database.",
        "index", NULL),
    CMD("ping", pingCommand, -1, CMD_FAST, 0, 0, 0, "connection", "1.0.0",
        "Returns the server's liveliness response.",
        "[message]", NULL,
        TIPS("request_policy:all_shards response_policy:all_succeeded")),
    CMD("echo", echoCommand, 2, CMD_LOADING | CMD_STALE | CMD_FAST, 0, 0, 0, "connection", "1.0.0",
        "Returns the given string.",
        "message", NULL),
    CMD("quit", quitCommand, -1, CMD_ALLOW_BUSY | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_NO_AUTH, 0, 0, 0, "connection", "1.0.0",
        "Closes the connection.",
        "", NULL),
    CMD("hello", helloCommand, -1, CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_NO_AUTH | CMD_ALLOW_BUSY, 0, 0, 0, "connection", "6.0.0",
        "Handshakes with the Redis server.",
        "[protover [AUTH username password] [SETNAME clientname]]", NULL),
    CMD("auth", authCommand, -2, CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_NO_AUTH | CMD_ALLOW_BUSY, 0, 0, 0, "connection", "1.0.0",
        "Authenticates the connection.",
        "[username] password", NULL),
    CMD("reset", resetCommand, 1, CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_NO_AUTH | CMD_ALLOW_BUSY, 0, 0, 0, "connection", "6.2.0",
        "Resets the connection.",
        "", NULL),
    CMD("client", NULL, -2, 0, 0, 0, 0, "connection", "2.4.0",
        "A container for client connection commands.",
        "", clientSubcommands),
    CMD("command", commandCommand, -1, CMD_LOADING | CMD_STALE, 0, 0, 0, "server", "2.8.13",
        "Returns detailed information about all commands.",
        "", commandSubcommands,
        TIPS("nondeterministic_output_order")),
    CMD("config", NULL, -2, 0, 0, 0, 0, "server", "2.0.0",
        "A container for server configuration commands.",
        "", configSubcommands),
    CMD("info", infoCommand, -1, CMD_LOADING | CMD_STALE, 0, 0, 0, "server", "1.0.0",
        "Returns information and statistics about the server.",
        "[section [section ...]]", NULL,
        TIPS("nondeterministic_output request_policy:all_shards response_policy:special")),
    CMD("time", timeCommand, 1, CMD_LOADING | CMD_STALE | CMD_FAST, 0, 0, 0, "server", "2.6.0",
        "Returns the server time.",
        "", NULL,
        TIPS("nondeterministic_output")),
    CMD("lastsave", lastsaveCommand, 1, CMD_LOADING | CMD_STALE | CMD_FAST, 0, 0, 0, "server", "1.0.0",
        "Returns the Unix timestamp of the last successful save to disk.",
        "", NULL,
        TIPS("nondeterministic_output")),
    CMD("shutdown", shutdownCommand, -1, CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_NO_MULTI | CMD_ALLOW_BUSY, 0, 0, 0, "server", "1.0.0",
        "Synchronously saves the database(s) to disk and shuts down the Redis server.",
        "[NOSAVE | SAVE] [NOW] [FORCE] [ABORT]", NULL),
    CMD("debug", debugCommand, -2, CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 0, 0, 0, "server", "1.0.0",
        "A container for debugging commands.",
        "subcommand [arg ...]", NULL),
    CMD("slowlog", NULL, -2, 0, 0, 0, 0, "server", "2.2.12",
        "A container for slow log commands.",
        "", slowlogSubcommands),
    CMD("latency", NULL, -2, 0, 0, 0, 0, "server", "2.8.13",
        "A container for latency diagnostics commands",
        "", latencySubcommands),
    CMD("monitor", monitorCommand, 1, CMD_ADMIN | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 0, 0, 0, "server", "1.0.0",
        "Listens for all requests received by the server in real-time.",
        "", NULL),
    CMD("memory", NULL, -2, 0, 0, 0, 0, "server", "4.0.0",
        "A container for memory diagnostics commands",
        "", memorySubcommands),
    /* ---- list ---- */
    CMD("blmove", blmoveCommand, 6, CMD_WRITE | CMD_DENYOOM | CMD_NOSCRIPT | CMD_BLOCKING, 1, 2, 1, "list", "6.2.0",
        "Pop an element from a list, push it to another list and return it; or block until one is available",
        "source destination LEFT | RIGHT LEFT | RIGHT timeout", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_DELETE, INDEX(1), RANGE(0, 1, 0)),
             KS(KSPEC_RW | KSPEC_INSERT, INDEX(2), RANGE(0, 1, 0)))),
    CMD("blmpop", blmpopCommand, -5, CMD_WRITE | CMD_BLOCKING, 0, 0, 0, "list", "7.0.0",
        "Pop elements from a list, or block until one is available",
        "timeout numkeys key [key ...] LEFT | RIGHT [COUNT count]", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_DELETE, INDEX(2), KEYNUM(0, 1, 1))),
        GETKEYS(numkeysSecondGetKeys)),
    CMD("blpop", blpopCommand, -3, CMD_WRITE | CMD_NOSCRIPT | CMD_BLOCKING, 1, -2, 1, "list", "2.0.0",
        "Remove and get the first element in a list, or block until one is available",
        "key [key ...] timeout", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_DELETE, INDEX(1), RANGE(-2, 1, 0)))),
    CMD("brpop", brpopCommand, -3, CMD_WRITE | CMD_NOSCRIPT | CMD_BLOCKING, 1, -2, 1, "list", "2.0.0",
        "Remove and get the last element in a list, or block until one is available",
        "key [key ...] timeout", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_DELETE, INDEX(1), RANGE(-2, 1, 0)))),
    CMD("brpoplpush", brpoplpushCommand, 4, CMD_WRITE | CMD_DENYOOM | CMD_NOSCRIPT | CMD_BLOCKING, 1, 2, 1, "list", "2.2.0",
        "Pop an element from a list, push it to another list and return it; or block until one is available",
        "source destination timeout", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_DELETE, INDEX(1), RANGE(0, 1, 0)),
             KS(KSPEC_RW | KSPEC_INSERT, INDEX(2), RANGE(0, 1, 0)))),
    CMD("lindex", lindexCommand, 3, CMD_READONLY, 1, 1, 1, "list", "1.0.0",
        "Get an element from a list by its index",
        "key index", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0)))),
    CMD("linsert", linsertCommand, 5, CMD_WRITE | CMD_DENYOOM, 1, 1, 1, "list", "2.2.0",
        "Insert an element before or after another element in a list",
        "key BEFORE | AFTER pivot element", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_INSERT, INDEX(1), RANGE(0, 1, 0)))),
    CMD("llen", llenCommand, 2, CMD_READONLY | CMD_FAST, 1, 1, 1, "list", "1.0.0",
        "Get the length of a list",
        "key", NULL,
        KEYS(KS(KSPEC_RO, INDEX(1), RANGE(0, 1, 0)))),
    CMD("lmove", lmoveCommand, 5, CMD_WRITE | CMD_DENYOOM, 1, 2, 1, "list", "6.2.0",
        "Pop an element from a list, push it to another list and return it",
        "source destination LEFT | RIGHT LEFT | RIGHT", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_DELETE, INDEX(1), RANGE(0, 1, 0)),
             KS(KSPEC_RW | KSPEC_INSERT, INDEX(2), RANGE(0, 1, 0)))),
    CMD("lmpop", lmpopCommand, -4, CMD_WRITE, 0, 0, 0, "list", "7.0.0",
        "Pop elements from a list",
        "numkeys key [key ...] LEFT | RIGHT [COUNT count]", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_DELETE, INDEX(1), KEYNUM(0, 1, 1))),
        GETKEYS(numkeysFirstGetKeys)),
    CMD("lpop", lpopCommand, -2, CMD_WRITE | CMD_FAST, 1, 1, 1, "list", "1.0.0",
        "Remove and get the first elements in a list",
        "key [count]", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_DELETE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("lpos", lposCommand, -3, CMD_READONLY, 1, 1, 1, "list", "6.0.6",
        "Return the index of matching elements on a list",
        "key element [RANK rank] [COUNT num-matches] [MAXLEN len]", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0)))),
    CMD("lpush", lpushCommand, -3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "list", "1.0.0",
        "Prepend one or multiple elements to a list",
        "key element [element ...]", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_INSERT, INDEX(1), RANGE(0, 1, 0)))),
    CMD("lpushx", lpushxCommand, -3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "list", "2.2.0",
        "Prepend an element to a list, only if the list exists",
        "key element [element ...]", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_INSERT, INDEX(1), RANGE(0, 1, 0)))),
    CMD("lrange", lrangeCommand, 4, CMD_READONLY, 1, 1, 1, "list", "1.0.0",
        "Get a range of elements from a list",
        "key start stop", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0)))),
    CMD("lrem", lremCommand, 4, CMD_WRITE, 1, 1, 1, "list", "1.0.0",
        "Remove elements from a list",
        "key count element", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_DELETE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("lset", lsetCommand, 4, CMD_WRITE | CMD_DENYOOM, 1, 1, 1, "list", "1.0.0",
        "Set the value of an element in a list by its index",
        "key index element", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_UPDATE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("ltrim", ltrimCommand, 4, CMD_WRITE, 1, 1, 1, "list", "1.0.0",
        "Trim a list to the specified range",
        "key start stop", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_DELETE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("rpop", rpopCommand, -2, CMD_WRITE | CMD_FAST, 1, 1, 1, "list", "1.0.0",
        "Remove and get the last elements in a list",
        "key [count]", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_DELETE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("rpoplpush", rpoplpushCommand, 3, CMD_WRITE | CMD_DENYOOM, 1, 2, 1, "list", "1.2.0",
        "Remove the last element in a list, prepend it to another list and return it",
        "source destination", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_DELETE, INDEX(1), RANGE(0, 1, 0)),
             KS(KSPEC_RW | KSPEC_INSERT, INDEX(2), RANGE(0, 1, 0)))),
    CMD("rpush", rpushCommand, -3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "list", "1.0.0",
        "Append one or multiple elements to a list",
        "key element [element ...]", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_INSERT, INDEX(1), RANGE(0, 1, 0)))),
    CMD("rpushx", rpushxCommand, -3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "list", "2.2.0",
        "Append an element to a list, only if the list exists",
        "key element [element ...]", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_INSERT, INDEX(1), RANGE(0, 1, 0)))),
    /* ---- hash ---- */
    CMD("hdel", hdelCommand, -3, CMD_WRITE | CMD_FAST, 1, 1, 1, "hash", "2.0.0",
        "Delete one or more hash fields",
        "key field [field ...]", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_DELETE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("hexists", hexistsCommand, 3, CMD_READONLY | CMD_FAST, 1, 1, 1, "hash", "2.0.0",
        "Determine if a hash field exists",
        "key field", NULL,
        KEYS(KS(KSPEC_RO, INDEX(1), RANGE(0, 1, 0)))),
    CMD("hget", hgetCommand, 3, CMD_READONLY | CMD_FAST, 1, 1, 1, "hash", "2.0.0",
        "Get the value of a hash field",
        "key field", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0)))),
    CMD("hgetall", hgetallCommand, 2, CMD_READONLY, 1, 1, 1, "hash", "2.0.0",
        "Get all the fields and values in a hash",
        "key", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0))),
        TIPS("nondeterministic_output_order")),
    CMD("hincrby", hincrbyCommand, 4, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "hash", "2.0.0",
        "Increment the integer value of a hash field by the given number",
        "key field increment", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_UPDATE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("hincrbyfloat", hincrbyfloatCommand, 4, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "hash", "2.6.0",
        "Increment the float value of a hash field by the given amount",
        "key field increment", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_UPDATE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("hkeys", hkeysCommand, 2, CMD_READONLY, 1, 1, 1, "hash", "2.0.0",
        "Get all the fields in a hash",
        "key", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0))),
        TIPS("nondeterministic_output_order")),
    CMD("hlen", hlenCommand, 2, CMD_READONLY | CMD_FAST, 1, 1, 1, "hash", "2.0.0",
        "Get the number of fields in a hash",
        "key", NULL,
        KEYS(KS(KSPEC_RO, INDEX(1), RANGE(0, 1, 0)))),
    CMD("hmget", hmgetCommand, -3, CMD_READONLY | CMD_FAST, 1, 1, 1, "hash", "2.0.0",
        "Get the values of all the given hash fields",
        "key field [field ...]", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0)))),
    CMD("hmset", hmsetCommand, -4, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "hash", "2.0.0",
        "Set multiple hash fields to multiple values",
        "key field value [field value ...]", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_UPDATE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("hrandfield", hrandfieldCommand, -2, CMD_READONLY, 1, 1, 1, "hash", "6.2.0",
        "Get one or multiple random fields from a hash",
        "key [count [WITHVALUES]]", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0))),
        TIPS("nondeterministic_output")),
    CMD("hscan", hscanCommand, -3, CMD_READONLY, 1, 1, 1, "hash", "2.8.0",
        "Incrementally iterate hash fields and associated values",
        "key cursor [MATCH pattern] [COUNT count]", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0))),
        TIPS("nondeterministic_output")),
    CMD("hset", hsetCommand, -4, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "hash", "2.0.0",
        "Set the string value of a hash field",
        "key field value [field value ...]", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_UPDATE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("hsetnx", hsetnxCommand, 4, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "hash", "2.0.0",
        "Set the value of a hash field, only if the field does not exist",
        "key field value", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_INSERT, INDEX(1), RANGE(0, 1, 0)))),
    CMD("hstrlen", hstrlenCommand, 3, CMD_READONLY | CMD_FAST, 1, 1, 1, "hash", "3.2.0",
        "Get the length of the value of a hash field",
        "key field", NULL,
        KEYS(KS(KSPEC_RO, INDEX(1), RANGE(0, 1, 0)))),
    CMD("hvals", hvalsCommand, 2, CMD_READONLY, 1, 1, 1, "hash", "2.0.0",
        "Get all the values in a hash",
        "key", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0))),
        TIPS("nondeterministic_output_order")),
    /* ---- set ---- */
    CMD("sadd", saddCommand, -3, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "set", "1.0.0",
        "Add one or more members to a set",
        "key member [member ...]", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_INSERT, INDEX(1), RANGE(0, 1, 0)))),
    CMD("scard", scardCommand, 2, CMD_READONLY | CMD_FAST, 1, 1, 1, "set", "1.0.0",
        "Get the number of members in a set",
        "key", NULL,
        KEYS(KS(KSPEC_RO, INDEX(1), RANGE(0, 1, 0)))),
    CMD("sdiff", sdiffCommand, -2, CMD_READONLY, 1, -1, 1, "set", "1.0.0",
        "Subtract multiple sets",
        "key [key ...]", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(-1, 1, 0))),
        TIPS("nondeterministic_output_order")),
    CMD("sdiffstore", sdiffstoreCommand, -3, CMD_WRITE | CMD_DENYOOM, 1, -1, 1, "set", "1.0.0",
        "Subtract multiple sets and store the resulting set in a key",
        "destination key [key ...]", NULL,
        KEYS(KS(KSPEC_OW | KSPEC_UPDATE, INDEX(1), RANGE(0, 1, 0)),
             KS(KSPEC_RO | KSPEC_ACCESS, INDEX(2), RANGE(-1, 1, 0)))),
    CMD("sinter", sinterCommand, -2, CMD_READONLY, 1, -1, 1, "set", "1.0.0",
        "Intersect multiple sets",
        "key [key ...]", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(-1, 1, 0))),
        TIPS("nondeterministic_output_order")),
    CMD("sintercard", sintercardCommand, -3, CMD_READONLY, 0, 0, 0, "set", "7.0.0",
        "Intersect multiple sets and return the cardinality of the result",
        "numkeys key [key ...] [LIMIT limit]", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), KEYNUM(0, 1, 1))),
        GETKEYS(numkeysFirstGetKeys)),
    CMD("sinterstore", sinterstoreCommand, -3, CMD_WRITE | CMD_DENYOOM, 1, -1, 1, "set", "1.0.0",
        "Intersect multiple sets and store the resulting set in a key",
        "destination key [key ...]", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_UPDATE, INDEX(1), RANGE(0, 1, 0)),
             KS(KSPEC_RO | KSPEC_ACCESS, INDEX(2), RANGE(-1, 1, 0)))),
    CMD("sismember", sismemberCommand, 3, CMD_READONLY | CMD_FAST, 1, 1, 1, "set", "1.0.0",
        "Determine if a given value is a member of a set",
        "key member", NULL,
        KEYS(KS(KSPEC_RO, INDEX(1), RANGE(0, 1, 0)))),
    CMD("smembers", smembersCommand, 2, CMD_READONLY, 1, 1, 1, "set", "1.0.0",
        "Get all the members in a set",
        "key", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0))),
        TIPS("nondeterministic_output_order")),
    CMD("smismember", smismemberCommand, -3, CMD_READONLY | CMD_FAST, 1, 1, 1, "set", "6.2.0",
        "Returns the membership associated with the given elements for a set",
        "key member [member ...]", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0)))),
    CMD("smove", smoveCommand, 4, CMD_WRITE | CMD_FAST, 1, 2, 1, "set", "1.0.0",
        "Move a member from one set to another",
        "source destination member", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_DELETE, INDEX(1), RANGE(0, 1, 0)),
             KS(KSPEC_RW | KSPEC_INSERT, INDEX(2), RANGE(0, 1, 0)))),
    CMD("spop", spopCommand, -2, CMD_WRITE | CMD_FAST, 1, 1, 1, "set", "1.0.0",
        "Remove and return one or multiple random members from a set",
        "key [count]", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_DELETE, INDEX(1), RANGE(0, 1, 0))),
        TIPS("nondeterministic_output")),
    CMD("srandmember", srandmemberCommand, -2, CMD_READONLY, 1, 1, 1, "set", "1.0.0",
        "Get one or multiple random members from a set",
        "key [count]", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0))),
        TIPS("nondeterministic_output")),
    CMD("srem", sremCommand, -3, CMD_WRITE | CMD_FAST, 1, 1, 1, "set", "1.0.0",
        "Remove one or more members from a set",
        "key member [member ...]", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_DELETE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("sscan", sscanCommand, -3, CMD_READONLY, 1, 1, 1, "set", "2.8.0",
        "Incrementally iterate Set elements",
        "key cursor [MATCH pattern] [COUNT count]", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0))),
        TIPS("nondeterministic_output")),
    CMD("sunion", sunionCommand, -2, CMD_READONLY, 1, -1, 1, "set", "1.0.0",
        "Add multiple sets",
        "key [key ...]", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(-1, 1, 0))),
        TIPS("nondeterministic_output_order")),
    CMD("sunionstore", sunionstoreCommand, -3, CMD_WRITE | CMD_DENYOOM, 1, -1, 1, "set", "1.0.0",
        "Add multiple sets and store the resulting set in a key",
        "destination key [key ...]", NULL,
        KEYS(KS(KSPEC_OW | KSPEC_UPDATE, INDEX(1), RANGE(0, 1, 0)),
             KS(KSPEC_RO | KSPEC_ACCESS, INDEX(2), RANGE(-1, 1, 0)))),
    /* ---- sorted-set ---- */
    CMD("bzmpop", bzmpopCommand, -5, CMD_WRITE | CMD_BLOCKING, 0, 0, 0, "sorted-set", "7.0.0",
        "Remove and return members with scores in a sorted set or block until one is available",
        "timeout numkeys key [key ...] MIN | MAX [COUNT count]", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_DELETE, INDEX(2), KEYNUM(0, 1, 1))),
        GETKEYS(numkeysSecondGetKeys)),
    CMD("bzpopmax", bzpopmaxCommand, -3, CMD_WRITE | CMD_NOSCRIPT | CMD_BLOCKING | CMD_FAST, 1, -2, 1, "sorted-set", "5.0.0",
        "Remove and return the member with the highest score from one or more sorted sets, or block until one is available",
        "key [key ...] timeout", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_DELETE, INDEX(1), RANGE(-2, 1, 0)))),
    CMD("bzpopmin", bzpopminCommand, -3, CMD_WRITE | CMD_NOSCRIPT | CMD_BLOCKING | CMD_FAST, 1, -2, 1, "sorted-set", "5.0.0",
        "Remove and return the member with the lowest score from one or more sorted sets, or block until one is available",
        "key [key ...] timeout", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_DELETE, INDEX(1), RANGE(-2, 1, 0)))),
    CMD("zadd", zaddCommand, -4, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "sorted-set", "1.2.0",
        "Add one or more members to a sorted set, or update its score if it already exists",
        "key [NX | XX] [GT | LT] [CH] [INCR] score member [score member ...]", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_UPDATE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("zcard", zcardCommand, 2, CMD_READONLY | CMD_FAST, 1, 1, 1, "sorted-set", "1.2.0",
        "Get the number of members in a sorted set",
        "key", NULL,
        KEYS(KS(KSPEC_RO, INDEX(1), RANGE(0, 1, 0)))),
    CMD("zcount", zcountCommand, 4, CMD_READONLY | CMD_FAST, 1, 1, 1, "sorted-set", "2.0.0",
        "Count the members in a sorted set with scores within the given values",
        "key min max", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0)))),
    CMD("zdiff", zdiffCommand, -3, CMD_READONLY, 0, 0, 0, "sorted-set", "6.2.0",
        "Subtract multiple sorted sets",
        "numkeys key [key ...] [WITHSCORES]", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), KEYNUM(0, 1, 1))),
        GETKEYS(numkeysFirstGetKeys)),
    CMD("zdiffstore", zdiffstoreCommand, -4, CMD_WRITE | CMD_DENYOOM, 1, 1, 1, "sorted-set", "6.2.0",
        "Subtract multiple sorted sets and store the resulting sorted set in a new key",
        "destination numkeys key [key ...]", NULL,
        KEYS(KS(KSPEC_OW | KSPEC_UPDATE, INDEX(1), RANGE(0, 1, 0)),
             KS(KSPEC_RO | KSPEC_ACCESS, INDEX(2), KEYNUM(0, 1, 1))),
        GETKEYS(zstoreGetKeys)),
    CMD("zincrby", zincrbyCommand, 4, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "sorted-set", "1.2.0",
        "Increment the score of a member in a sorted set",
        "key increment member", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_UPDATE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("zinter", zinterCommand, -3, CMD_READONLY, 0, 0, 0, "sorted-set", "6.2.0",
        "Intersect multiple sorted sets",
        "numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE SUM | MIN | MAX] [WITHSCORES]", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), KEYNUM(0, 1, 1))),
        GETKEYS(numkeysFirstGetKeys)),
    CMD("zintercard", zintercardCommand, -3, CMD_READONLY, 0, 0, 0, "sorted-set", "7.0.0",
        "Intersect multiple sorted sets and return the cardinality of the result",
        "numkeys key [key ...] [LIMIT limit]", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), KEYNUM(0, 1, 1))),
        GETKEYS(numkeysFirstGetKeys)),
    CMD("zinterstore", zinterstoreCommand, -4, CMD_WRITE | CMD_DENYOOM, 1, 1, 1, "sorted-set", "2.0.0",
        "Intersect multiple sorted sets and store the resulting sorted set in a new key",
        "destination numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE SUM | MIN | MAX]", NULL,
        KEYS(KS(KSPEC_OW | KSPEC_UPDATE, INDEX(1), RANGE(0, 1, 0)),
             KS(KSPEC_RO | KSPEC_ACCESS, INDEX(2), KEYNUM(0, 1, 1))),
        GETKEYS(zstoreGetKeys)),
    CMD("zlexcount", zlexcountCommand, 4, CMD_READONLY | CMD_FAST, 1, 1, 1, "sorted-set", "2.8.9",
        "Count the number of members in a sorted set between a given lexicographical range",
        "key min max", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0)))),
    CMD("zmpop", zmpopCommand, -4, CMD_WRITE, 0, 0, 0, "sorted-set", "7.0.0",
        "Remove and return members with scores in a sorted set",
        "numkeys key [key ...] MIN | MAX [COUNT count]", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_DELETE, INDEX(1), KEYNUM(0, 1, 1))),
        GETKEYS(numkeysFirstGetKeys)),
    CMD("zmscore", zmscoreCommand, -3, CMD_READONLY | CMD_FAST, 1, 1, 1, "sorted-set", "6.2.0",
        "Get the score associated with the given members in a sorted set",
        "key member [member ...]", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0)))),
    CMD("zpopmax", zpopmaxCommand, -2, CMD_WRITE | CMD_FAST, 1, 1, 1, "sorted-set", "5.0.0",
        "Remove and return members with the highest scores in a sorted set",
        "key [count]", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_DELETE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("zpopmin", zpopminCommand, -2, CMD_WRITE | CMD_FAST, 1, 1, 1, "sorted-set", "5.0.0",
        "Remove and return members with the lowest scores in a sorted set",
        "key [count]", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_DELETE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("zrandmember", zrandmemberCommand, -2, CMD_READONLY, 1, 1, 1, "sorted-set", "6.2.0",
        "Get one or multiple random elements from a sorted set",
        "key [count [WITHSCORES]]", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0))),
        TIPS("nondeterministic_output")),
    CMD("zrange", zrangeCommand, -4, CMD_READONLY, 1, 1, 1, "sorted-set", "1.2.0",
        "Return a range of members in a sorted set",
        "key start stop [BYSCORE | BYLEX] [REV] [LIMIT offset count] [WITHSCORES]", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0)))),
    CMD("zrangebylex", zrangebylexCommand, -4, CMD_READONLY, 1, 1, 1, "sorted-set", "2.8.9",
        "Return a range of members in a sorted set, by lexicographical range",
        "key min max [LIMIT offset count]", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0)))),
    CMD("zrangebyscore", zrangebyscoreCommand, -4, CMD_READONLY, 1, 1, 1, "sorted-set", "1.0.5",
        "Return a range of members in a sorted set, by score",
        "key min max [WITHSCORES] [LIMIT offset count]", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0)))),
    CMD("zrangestore", zrangestoreCommand, -5, CMD_WRITE | CMD_DENYOOM, 1, 2, 1, "sorted-set", "6.2.0",
        "Store a range of members from sorted set into another key",
        "dst src min max [BYSCORE | BYLEX] [REV] [LIMIT offset count]", NULL,
        KEYS(KS(KSPEC_OW | KSPEC_UPDATE, INDEX(1), RANGE(0, 1, 0)),
             KS(KSPEC_RO | KSPEC_ACCESS, INDEX(2), RANGE(0, 1, 0)))),
    CMD("zrank", zrankCommand, -3, CMD_READONLY | CMD_FAST, 1, 1, 1, "sorted-set", "2.0.0",
        "Determine the index of a member in a sorted set",
        "key member [WITHSCORE]", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0)))),
    CMD("zrem", zremCommand, -3, CMD_WRITE | CMD_FAST, 1, 1, 1, "sorted-set", "1.2.0",
        "Remove one or more members from a sorted set",
        "key member [member ...]", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_DELETE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("zremrangebylex", zremrangebylexCommand, 4, CMD_WRITE, 1, 1, 1, "sorted-set", "2.8.9",
        "Remove all members in a sorted set between the given lexicographical range",
        "key min max", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_DELETE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("zremrangebyrank", zremrangebyrankCommand, 4, CMD_WRITE, 1, 1, 1, "sorted-set", "2.0.0",
        "Remove all members in a sorted set within the given indexes",
        "key start stop", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_DELETE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("zremrangebyscore", zremrangebyscoreCommand, 4, CMD_WRITE, 1, 1, 1, "sorted-set", "1.2.0",
        "Remove all members in a sorted set within the given scores",
        "key min max", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_DELETE, INDEX(1), RANGE(0, 1, 0)))),
    CMD("zrevrange", zrevrangeCommand, -4, CMD_READONLY, 1, 1, 1, "sorted-set", "1.2.0",
        "Return a range of members in a sorted set, by index, with scores ordered from high to low",
        "key start stop [WITHSCORES]", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0)))),
    CMD("zrevrangebylex", zrevrangebylexCommand, -4, CMD_READONLY, 1, 1, 1, "sorted-set", "2.8.9",
        "Return a range of members in a sorted set, by lexicographical range, ordered from higher to lower strings.",
        "key max min [LIMIT offset count]", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0)))),
    CMD("zrevrangebyscore", zrevrangebyscoreCommand, -4, CMD_READONLY, 1, 1, 1, "sorted-set", "2.2.0",
        "Return a range of members in a sorted set, by score, with scores ordered from high to low",
        "key max min [WITHSCORES] [LIMIT offset count]", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0)))),
    CMD("zrevrank", zrevrankCommand, -3, CMD_READONLY | CMD_FAST, 1, 1, 1, "sorted-set", "2.0.0",
        "Determine the index of a member in a sorted set, with scores ordered from high to low",
        "key member [WITHSCORE]", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0)))),
    CMD("zscan", zscanCommand, -3, CMD_READONLY, 1, 1, 1, "sorted-set", "2.8.0",
        "Incrementally iterate sorted sets elements and associated scores",
        "key cursor [MATCH pattern] [COUNT count]", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0))),
        TIPS("nondeterministic_output")),
    CMD("zscore", zscoreCommand, 3, CMD_READONLY | CMD_FAST, 1, 1, 1, "sorted-set", "1.2.0",
        "Get the score associated with the given member in a sorted set",
        "key member", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0)))),
    CMD("zunion", zunionCommand, -3, CMD_READONLY, 0, 0, 0, "sorted-set", "6.2.0",
        "Add multiple sorted sets",
        "numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE SUM | MIN | MAX] [WITHSCORES]", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), KEYNUM(0, 1, 1))),
        GETKEYS(numkeysFirstGetKeys)),
    CMD("zunionstore", zunionstoreCommand, -4, CMD_WRITE | CMD_DENYOOM, 1, 1, 1, "sorted-set", "2.0.0",
        "Add multiple sorted sets and store the resulting sorted set in a new key",
        "destination numkeys key [key ...] [WEIGHTS weight [weight ...]] [AGGREGATE SUM | MIN | MAX]", NULL,
        KEYS(KS(KSPEC_OW | KSPEC_UPDATE, INDEX(1), RANGE(0, 1, 0)),
             KS(KSPEC_RO | KSPEC_ACCESS, INDEX(2), KEYNUM(0, 1, 1))),
        GETKEYS(zstoreGetKeys)),
    CMD("sort", sortCommand, -2, CMD_WRITE | CMD_DENYOOM, 1, 1, 1, "generic", "1.0.0",
        "Sort the elements in a list, set or sorted set",
        "key [BY pattern] [LIMIT offset count] [GET pattern [GET pattern ...]] [ASC | DESC] [ALPHA] [STORE destination]", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0)),
             KS(KSPEC_RO | KSPEC_ACCESS, BS_UNKNOWN, FK_UNKNOWN,
                NOTES("For the optional BY/GET keyword. It is marked 'unknown' because the "
                      "key names derive from the content of the key we sort")),
             KS(KSPEC_OW | KSPEC_UPDATE, BS_UNKNOWN, FK_UNKNOWN,
                NOTES("For the optional STORE keyword. It is marked 'unknown' because the "
                      "keyword can appear anywhere in the argument array"))),
        GETKEYS(sortGetKeys)),
    CMD("sort_ro", sortroCommand, -2, CMD_READONLY, 1, 1, 1, "generic", "7.0.0",
        "Sort the elements in a list, set or sorted set. Read-only variant of SORT.",
        "key [BY pattern] [LIMIT offset count] [GET pattern [GET pattern ...]] [ASC | DESC] [ALPHA]", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0)),
             KS(KSPEC_RO | KSPEC_ACCESS, BS_UNKNOWN, FK_UNKNOWN,
                NOTES("For the optional BY/GET keyword. It is marked 'unknown' because the "
                      "key names derive from the content of the key we sort"))),
        GETKEYS(sortroGetKeys)),
    /* ---- transactions ---- */
    CMD("discard", discardCommand, 1, CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_ALLOW_BUSY, 0, 0, 0, "transactions", "2.0.0",
        "Discard all commands issued after MULTI",
        "", NULL),
    CMD("exec", execCommand, 1, CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_SKIP_SLOWLOG, 0, 0, 0, "transactions", "1.2.0",
        "Execute all commands issued after MULTI",
        "", NULL),
    CMD("multi", multiCommand, 1, CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_ALLOW_BUSY, 0, 0, 0, "transactions", "1.2.0",
        "Mark the start of a transaction block",
        "", NULL),
    CMD("unwatch", unwatchCommand, 1, CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_ALLOW_BUSY, 0, 0, 0, "transactions", "2.2.0",
        "Forget about all watched keys",
        "", NULL),
    CMD("watch", watchCommand, -2, CMD_NOSCRIPT | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_ALLOW_BUSY, 1, -1, 1, "transactions", "2.2.0",
        "Watch the given keys to determine execution of the MULTI/EXEC block",
        "key [key ...]", NULL,
        KEYS(KS(KSPEC_RO, INDEX(1), RANGE(-1, 1, 0)))),
    /* ---- pubsub ---- */
    CMD("psubscribe", psubscribeCommand, -2, CMD_PUBSUB | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 0, 0, 0, "pubsub", "2.0.0",
        "Listen for messages published to channels matching the given patterns",
        "pattern [pattern ...]", NULL),
    CMD("publish", publishCommand, 3, CMD_PUBSUB | CMD_LOADING | CMD_STALE | CMD_FAST | CMD_MAY_REPLICATE, 0, 0, 0, "pubsub", "2.0.0",
        "Post a message to a channel",
        "channel message", NULL),
    CMD("pubsub", NULL, -2, 0, 0, 0, 0, "pubsub", "2.8.0",
        "A container for Pub/Sub commands",
        "", pubsubSubcommands),
    CMD("punsubscribe", punsubscribeCommand, -1, CMD_PUBSUB | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 0, 0, 0, "pubsub", "2.0.0",
        "Stop listening for messages posted to channels matching the given patterns",
        "[pattern [pattern ...]]", NULL),
    CMD("spublish", spublishCommand, 3, CMD_PUBSUB | CMD_LOADING | CMD_STALE | CMD_FAST, 1, 1, 1, "pubsub", "7.0.0",
        "Post a message to a shard channel",
        "shardchannel message", NULL,
        KEYS(KS(KSPEC_NOT_KEY, INDEX(1), RANGE(0, 1, 0)))),
    CMD("ssubscribe", ssubscribeCommand, -2, CMD_PUBSUB | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 1, -1, 1, "pubsub", "7.0.0",
        "Listen for messages published to the given shard channels",
        "shardchannel [shardchannel ...]", NULL,
        KEYS(KS(KSPEC_NOT_KEY, INDEX(1), RANGE(-1, 1, 0)))),
    CMD("subscribe", subscribeCommand, -2, CMD_PUBSUB | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 0, 0, 0, "pubsub", "2.0.0",
        "Listen for messages published to the given channels",
        "channel [channel ...]", NULL),
    CMD("sunsubscribe", sunsubscribeCommand, -1, CMD_PUBSUB | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 1, -1, 1, "pubsub", "7.0.0",
        "Stop listening for messages posted to the given shard channels",
        "[shardchannel [shardchannel ...]]", NULL,
        KEYS(KS(KSPEC_NOT_KEY, INDEX(1), RANGE(-1, 1, 0)))),
    CMD("unsubscribe", unsubscribeCommand, -1, CMD_PUBSUB | CMD_NOSCRIPT | CMD_LOADING | CMD_STALE, 0, 0, 0, "pubsub", "2.0.0",
        "Stop listening for messages posted to the given channels",
        "[channel [channel ...]]", NULL),
    /* ---- hyperloglog ---- */
    CMD("pfadd", pfaddCommand, -2, CMD_WRITE | CMD_DENYOOM | CMD_FAST, 1, 1, 1, "hyperloglog", "2.8.9",
        "Adds the specified elements to the specified HyperLogLog.",
        "key [element [element ...]]", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_INSERT, INDEX(1), RANGE(0, 1, 0)))),
    CMD("pfcount", pfcountCommand, -2, CMD_READONLY | CMD_MAY_REPLICATE, 1, -1, 1, "hyperloglog", "2.8.9",
        "Return the approximated cardinality of the set(s) observed by the HyperLogLog at key(s).",
        "key [key ...]", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS, INDEX(1), RANGE(-1, 1, 0),
                NOTES("RW because it may change the internal representation of the key, and "
                      "propagate to replicas")))),
    CMD("pfdebug", pfdebugCommand, 3, CMD_WRITE | CMD_DENYOOM | CMD_ADMIN, 2, 2, 1, "hyperloglog", "2.8.9",
        "Internal commands for debugging HyperLogLog values",
        "subcommand key", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS, INDEX(2), RANGE(0, 1, 0)))),
    CMD("pfmerge", pfmergeCommand, -2, CMD_WRITE | CMD_DENYOOM, 1, -1, 1, "hyperloglog", "2.8.9",
        "Merge N different HyperLogLogs into a single one.",
        "destkey sourcekey [sourcekey ...]", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_INSERT, INDEX(1), RANGE(0, 1, 0)),
             KS(KSPEC_RO | KSPEC_ACCESS, INDEX(2), RANGE(-1, 1, 0)))),
    CMD("pfselftest", pfselftestCommand, 1, CMD_ADMIN, 0, 0, 0, "hyperloglog", "2.8.9",
        "An internal command for testing HyperLogLog values",
        "", NULL),
    /* ---- bitmap ---- */
    CMD("bitcount", bitcountCommand, -2, CMD_READONLY, 1, 1, 1, "bitmap", "2.6.0",
        "Count set bits in a string",
        "key [start end [BYTE | BIT]]", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0)))),
    CMD("bitfield", bitfieldCommand, -2, CMD_WRITE | CMD_DENYOOM, 1, 1, 1, "bitmap", "3.2.0",
        "Perform arbitrary bitfield integer operations on strings",
        "key [GET encoding offset | [OVERFLOW WRAP | SAT | FAIL] SET encoding offset value | INCRBY encoding offset increment [operation ...]]", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_UPDATE | KSPEC_VARIABLE_FLAGS, INDEX(1), RANGE(0, 1, 0),
                NOTES("This command allows both access and modification of the key"))),
        GETKEYS(bitfieldGetKeys)),
    CMD("bitfield_ro", bitfieldroCommand, -2, CMD_READONLY | CMD_FAST, 1, 1, 1, "bitmap", "6.0.0",
        "Perform arbitrary bitfield integer operations on strings. Read-only variant of BITFIELD",
        "key [GET encoding offset [GET encoding offset ...]]", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0)))),
    CMD("bitop", bitopCommand, -4, CMD_WRITE | CMD_DENYOOM, 2, -1, 1, "bitmap", "2.6.0",
        "Perform bitwise operations between strings",
        "operation destkey key [key ...]", NULL,
        KEYS(KS(KSPEC_OW | KSPEC_UPDATE, INDEX(2), RANGE(0, 1, 0)),
             KS(KSPEC_RO | KSPEC_ACCESS, INDEX(3), RANGE(-1, 1, 0)))),
    CMD("bitpos", bitposCommand, -3, CMD_READONLY, 1, 1, 1, "bitmap", "2.8.7",
        "Find first bit set or clear in a string",
        "key bit [start [end [BYTE | BIT]]]", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0)))),
    CMD("getbit", getbitCommand, 3, CMD_READONLY | CMD_FAST, 1, 1, 1, "bitmap", "2.2.0",
        "Returns the bit value at offset in the string value stored at key",
        "key offset", NULL,
        KEYS(KS(KSPEC_RO | KSPEC_ACCESS, INDEX(1), RANGE(0, 1, 0)))),
    CMD("setbit", setbitCommand, 4, CMD_WRITE | CMD_DENYOOM, 1, 1, 1, "bitmap", "2.2.0",
        "Sets or clears the bit at offset in the string value stored at key",
        "key offset value", NULL,
        KEYS(KS(KSPEC_RW | KSPEC_ACCESS | KSPEC_UPDATE, INDEX(1), RANGE(0, 1, 0)))),
    /* ---- persistence ---- */
    CMD("bgsave", bgsaveCommand, -1, CMD_ADMIN | CMD_NOSCRIPT | CMD_NO_ASYNC_LOADING, 0, 0, 0, "server", "1.0.0",
        "Asynchronously save the dataset to disk",
        "[SCHEDULE]", NULL),
    CMD("save", saveCommand, 1, CMD_ADMIN | CMD_NOSCRIPT | CMD_NO_ASYNC_LOADING | CMD_NO_MULTI, 0, 0, 0, "server", "1.0.0",
        "Synchronously save the dataset to disk",
        "", NULL),
    CMD("bgrewriteaof", bgrewriteaofCommand, 1, CMD_ADMIN | CMD_NOSCRIPT | CMD_NO_ASYNC_LOADING, 0, 0, 0, "server", "1.0.0",
        "Asynchronously rewrite the append-only file",
        "", NULL),
    END,
};

size_t redisCommandTableSize(void) {
    size_t n = 0;
    while (redisCommandTable[n].declared_name) n++;
    return n;
}
