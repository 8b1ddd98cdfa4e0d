/* config.c -- fuzz harness: the configuration file parser (src/config.c),
 * from text: line splitting and quoting, every directive's value parser
 * (numbers with units, enums, flags, multi-word directives, save points,
 * client-output-buffer-limit, oom-score-adj-values, notify-keyspace-events
 * ...), repeated directives, and the ACL rules of `user` lines.
 *
 * Why: a config file or the command line (`--save "" --maxmemory 1gb`) is
 * parsed at every start, and CONFIG SET shares the value parsers. This file
 * includes src/config.c so it can call the loader's own static functions
 * (loadConfigText: what loadServerConfig does with the text, minus the
 * exit on error), and replaces config.o in its link (tests/fuzz/fuzz.mk).
 *
 * Kept out, because they act on the machine rather than parse: `include`
 * (reads files), `dir` (chdir), `logfile`, `loglevel`, `syslog-enabled`
 * (where the log goes), `aclfile`, `rename-command` (changes the command
 * table for every later input). Such lines are blanked (line numbers stay).
 * `user` lines are blanked too -- the loader keeps them for start-up, which
 * would carry state from one input to the next -- and their rules are
 * checked on a scratch user instead, as the loader checks them. The apply
 * step (listeners, hz, maxclients ...) is not run. After each input every
 * directive is read back (CONFIG GET's text), and set to its default again
 * if the input changed it.
 */
#include "../../src/config.c"

#include "fuzz.h"
#include "fuzz_server.h"

static const char *kept_out[] = {"include", "dir", "logfile", "loglevel", "syslog-enabled", "aclfile",
                                 "rename-command", "user", NULL};

static int keptOut(const char *name) {
    for (int j = 0; kept_out[j]; j++)
        if (!strcmp(name, kept_out[j])) return 1;
    return 0;
}

/* A `user` line's rules, validated as aclConfigUserLine() validates them. */
static void checkUserRules(sds *argv, int argc) {
    if (argc < 2) return;
    aclUser *scratch = aclCreateUnlinkedUser();
    int bad = -1;
    sds why = NULL;
    aclSetUserFromArgs(scratch, argv + 2, argc - 2, &bad, &why);
    sdsfree(why);
    aclFreeUser(scratch);
}

/* The text as the loader sees it (up to a NUL), with the kept-out lines
 * blanked; each line is split exactly as loadConfigLine() splits it. */
static sds filteredText(const uint8_t *data, size_t size) {
    const uint8_t *nul = memchr(data, '\0', size);
    int count = 0;
    sds *lines = sdssplitlen((const char *)data, (ssize_t)(nul ? (size_t)(nul - data) : size), "\n", 1, &count);
    sds text = sdsempty();
    for (int j = 0; j < count; j++) {
        sds line = sdstrim(sdsdup(lines[j]), " \t\r\n");
        int argc = 0;
        sds *argv = line[0] && line[0] != '#' ? sdssplitargs(line, &argc) : NULL;
        int keep = 1;
        if (argv && argc > 0) {
            sdstolower(argv[0]);
            keep = !keptOut(argv[0]);
            if (!strcmp(argv[0], "user")) checkUserRules(argv, argc);
        }
        if (argv) sdsfreesplitres(argv, argc);
        sdsfree(line);
        if (keep) text = sdscatsds(text, lines[j]);
        text = sdscat(text, "\n");
    }
    sdsfreesplitres(lines, count);
    return text;
}

/* Every directive the input changed goes back to its default (the value
 * initConfigValues() recorded); each is read back on the way (CONFIG GET's
 * text). */
static void backToDefaults(void) {
    for (int j = 0; j < CONFIG_COUNT; j++) {
        const configEntry *e = &configTable[j];
        sds now = configGetValue(e);
        if (sdscmp(now, config_defaults[j]) != 0) {
            sds err = NULL;
            FUZZ_CHECK(configSetString(e, e->default_value, strlen(e->default_value), &err) == C_OK);
        }
        sdsfree(now);
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    fuzzServerInit();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    sds text = filteredText(data, size);
    configLoader *l = zcalloc(sizeof(*l));
    if (loadConfigText(l, text) != C_OK) FUZZ_CHECK(l->error.msg != NULL);
    configLoaderFree(l);
    sdsfree(text);
    moduleConfigQueueDiscard(); /* "<module>.<name> value" lines wait for modules (module_config.c) */
    backToDefaults();
    return 0;
}
