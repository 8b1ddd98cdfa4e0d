/* fuzz_server.c -- the server without its main(), for the server-level fuzz
 * harnesses (resp, restore, rdb, aof, config).
 *
 * Why this way: main() (src/server.c) calls static initialisers in a fixed
 * order and then runs the event loop, which a harness cannot use. Including
 * server.c here, with main renamed, gives this file those same static
 * functions, and this object replaces server.o in the harnesses' links; the
 * product's files are unchanged. fuzzServerInit() runs the part of main()'s
 * start-up that builds state (what redis-check-rdb does, plus the command
 * table, the databases and the modules' callbacks), opening no socket and
 * starting no thread or loop.
 *
 * processCommand() is wrapped: a harness may set fuzzCommandHook to see (or
 * refuse) each parsed command instead of running it; with no hook the real
 * processCommand runs.
 */
#define main redisServerMain
int redisServerMain(int argc, char **argv);
#define processCommand fuzzRealProcessCommand
#include "../../src/server.c"
#undef processCommand

#include "fuzz_server.h"

fuzzCommandHookFn *fuzzCommandHook;

int processCommand(client *c);
int processCommand(client *c) { return fuzzCommandHook ? fuzzCommandHook(c) : fuzzRealProcessCommand(c); }

/* A fixed hash seed: an input replays the same way every time. */
static void fixedHashSeed(void) {
    uint8_t seed[16] = {0};
    dictSetHashFunctionSeed(seed);
}

void fuzzServerInit(void) {
    static int done;
    if (done) return;
    done = 1;
    fixedHashSeed();
    initServerState();
    initConfigValues();
    populateCommandTable();
    aclInit();
    server.verbosity = LL_NOTHING; /* logging every refused input would dominate the run */
    server.saveparamslen = 0;      /* save "": FLUSHALL must not write dump.rdb into the working directory */
    createSharedObjects();
    server.errors = dictCreate(&errorsDictType);
    server.el = aeCreateEventLoop(1024);
    createDatabases();
    initModules();
    monotonicInit();
    updateCachedTime();
}

/* Commands a harness that executes arbitrary commands must not run: they
 * stop or fork the process, write files, reconfigure it, start scripts (a
 * busy loop is no bug), or block. Removed as `rename-command NAME ""` does. */
void fuzzServerDisableDangerousCommands(void) {
    static const char *names[] = {"shutdown", "debug", "save", "bgsave", "bgrewriteaof", "config", "replicaof",
                                  "slaveof", "sync", "psync", "failover", "monitor", "client", "module",
                                  "migrate", "eval", "evalsha", "eval_ro", "evalsha_ro", "fcall", "fcall_ro",
                                  "function", "script", "wait", "acl", "lastsave", "blpop", "brpop",
                                  "brpoplpush", "blmove", "blmpop", "bzpopmin", "bzpopmax", "bzmpop",
                                  "xread", "xreadgroup", "subscribe", "psubscribe", "ssubscribe", "keys",
                                  NULL};
    for (int j = 0; names[j]; j++) {
        sds argv[3] = {sdsnew("rename-command"), sdsnew(names[j]), sdsempty()};
        sds err = NULL;
        if (aclConfigRenameCommand(argv, 3, &err) != C_OK) sdsfree(err);
        for (int k = 0; k < 3; k++) sdsfree(argv[k]);
    }
}

/* Back to an empty dataset between inputs. */
void fuzzServerEmptyData(void) {
    emptyData(-1, 0);
}
