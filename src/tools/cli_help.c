/* cli_help.c -- HELP, completion and hints from the server's command list.
 *
 * The tool reads src/commands.def, the list the server's command table is
 * built from, with macros of its own that keep only what help needs: name,
 * group, version, summary, argument hint and subcommands. So redis-cli knows
 * every command of the server it was built with, and links no server code
 * (no handler, no server.h, no command table).
 *
 * That list (one level of subcommands) is flattened once into helpEntry
 * records: "CONFIG", "CONFIG GET", "GET", ... with the group, "since",
 * summary and argument hint; subcommands inherit the group and the version
 * of their container unless they name their own. Then come the Redis 7.0
 * commands commands.def lacks (cli_help_extra.c, generated from a Redis 7.0
 * server's COMMAND DOCS by utils/gen-cli-extra-help.py), minus any name
 * already there, so HELP, hints and completion cover all of Redis 7.0 and
 * a command declared in commands.def wins. Entries are sorted by name so
 * HELP @group and completion list commands alphabetically.
 *
 * Completion (as Redis's redis-cli): the candidates are the names as the
 * table spells them ("hgeta<tab>" gives "HGETALL"), after "help " the
 * @groups first; each candidate is shown with its hint.
 *
 * Hints: after "cmd " the argument hint is shown, minus one leading word for
 * each argument already typed while those words are plain required
 * arguments (an optional "[...]" or choice "(a | b)" group stops the
 * skipping, because we cannot tell which alternative was typed).
 */
#include "cli_help.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli_help_extra.h"
#include "command_groups.h"
#include "sds.h"

/* ---- the command list ------------------------------------------------------------ */

typedef struct commandDoc {
    const char *name; /* NULL ends a list */
    int group;        /* CMD_GROUP_*; NONE: a subcommand's is its container's */
    const char *since;
    const char *summary;
    const char *args;
    const struct commandDoc *subcommands;
} commandDoc;

#define CMD(name_, handler, arity, flags, fk, lk, step, group_, since_, summary_, args_, subs, ...)    \
    {.name = name_, .group = CMD_GROUP_##group_, .since = since_, .summary = summary_, .args = args_, .subcommands = subs \
     CMDDEF_EACH_EXTRA(DOC_EXTRA, __VA_ARGS__)},
#define SUB(name_, handler, arity, flags, fk, lk, step, summary_, args_, ...) \
    {.name = name_, .summary = summary_, .args = args_ CMDDEF_EACH_EXTRA(DOC_EXTRA, __VA_ARGS__)},
#define SUBCOMMANDS_BEGIN(parent) static const commandDoc parent##Subcommands[] = {
#define SUBCOMMANDS_END(parent) {.name = NULL}};
#define COMMANDS_BEGIN static const commandDoc commandDocs[] = {
#define COMMANDS_END {.name = NULL}};
/* Of the extras only SINCE matters here. */
#define DOC_EXTRA(x) DOC_EXTRA_##x
#define DOC_EXTRA_
#define DOC_EXTRA_KEYS(...)
#define DOC_EXTRA_TIPS(text)
#define DOC_EXTRA_GETKEYS(fn)
#define DOC_EXTRA_SINCE(version) , .since = version
#define DOC_EXTRA_ACL(categories)

#include "commands.def"

#undef CMD
#undef SUB
#undef SUBCOMMANDS_BEGIN
#undef SUBCOMMANDS_END
#undef COMMANDS_BEGIN
#undef COMMANDS_END
#undef DOC_EXTRA
#undef DOC_EXTRA_
#undef DOC_EXTRA_KEYS
#undef DOC_EXTRA_TIPS
#undef DOC_EXTRA_GETKEYS
#undef DOC_EXTRA_SINCE
#undef DOC_EXTRA_ACL

/* ---- help entries ------------------------------------------------------------------ */

typedef struct helpEntry {
    sds name;            /* "GET", "CONFIG GET" */
    int words;           /* 1 or 2 */
    const char *group;
    const char *since;
    const char *summary;
    const char *args;
} helpEntry;

static helpEntry *entries;
static size_t entryCount;
static int hintsEnabled = 1;

/* Sorted: "help <tab>" offers them in this order, before the commands. */
#define KNOWN_GROUP_NAME_(token, name) name,
static const char *knownGroups[] = {COMMAND_GROUP_LIST(KNOWN_GROUP_NAME_)};
#undef KNOWN_GROUP_NAME_
#define KNOWN_GROUPS (sizeof(knownGroups) / sizeof(knownGroups[0]))

static void addEntry(const commandDoc *cmd, const commandDoc *parent) {
    helpEntry *e = &entries[entryCount++];
    e->name = parent ? sdscatprintf(sdsempty(), "%s %s", parent->name, cmd->name) : sdsnew(cmd->name);
    sdstoupper(e->name);
    e->words = parent ? 2 : 1;
    const char *group = commandGroupName(cmd->group ? cmd->group : (parent ? parent->group : CMD_GROUP_NONE));
    e->group = group ? group : "";
    e->since = cmd->since ? cmd->since : (parent ? parent->since : "");
    e->summary = cmd->summary ? cmd->summary : "";
    e->args = cmd->args ? cmd->args : "";
}

static int compareEntries(const void *a, const void *b) {
    return strcmp(((const helpEntry *)a)->name, ((const helpEntry *)b)->name);
}

static int hasEntry(const char *name) {
    for (size_t i = 0; i < entryCount; i++)
        if (strcasecmp(entries[i].name, name) == 0) return 1;
    return 0;
}

static void addExtraEntry(const cliExtraDoc *doc) {
    helpEntry *e = &entries[entryCount++];
    e->name = sdsnew(doc->name);
    e->words = strchr(doc->name, ' ') ? 2 : 1;
    e->group = doc->group;
    e->since = doc->since;
    e->summary = doc->summary;
    e->args = doc->args;
}

/* commands.def first (containers too, as Redis lists them), then the
 * generated Redis 7.0 entries commands.def does not have. */
void cliHelpInit(void) {
    if (entries) return;
    size_t n = 0;
    for (const commandDoc *c = commandDocs; c->name; c++) {
        n++;
        for (const commandDoc *s = c->subcommands; s && s->name; s++) n++;
    }
    for (const cliExtraDoc *x = cliExtraDocs; x->name; x++) n++;
    entries = calloc(n, sizeof(*entries));
    if (!entries) return;
    for (const commandDoc *c = commandDocs; c->name; c++) {
        addEntry(c, NULL);
        for (const commandDoc *s = c->subcommands; s && s->name; s++) addEntry(s, c);
    }
    for (const cliExtraDoc *x = cliExtraDocs; x->name; x++)
        if (!hasEntry(x->name)) addExtraEntry(x);
    qsort(entries, entryCount, sizeof(*entries), compareEntries);
}

void cliHelpFree(void) {
    for (size_t i = 0; i < entryCount; i++) sdsfree(entries[i].name);
    free(entries);
    entries = NULL;
    entryCount = 0;
}

void cliSetHints(int enabled) { hintsEnabled = enabled; }

/* ---- HELP ------------------------------------------------------------------- */

static void printIntro(const char *version) {
    printf("redis-cli %s\n"
           "To get help about Redis commands type:\n"
           "      \"help @<group>\" to get a list of commands in <group>\n"
           "      \"help <command>\" for help on <command>\n"
           "      \"help <tab>\" to get a list of possible help topics\n"
           "      \"quit\" to exit\n"
           "\n"
           "To set redis-cli preferences:\n"
           "      \":set hints\" enable online hints\n"
           "      \":set nohints\" disable online hints\n"
           "Set your preferences in ~/.redisclirc\n",
           version);
}

static void printEntry(const helpEntry *e, int with_group) {
    printf("\r\n  \x1b[1m%s\x1b[0m \x1b[90m%s\x1b[0m\r\n", e->name, e->args);
    printf("  \x1b[33msummary:\x1b[0m %s\r\n", e->summary);
    printf("  \x1b[33msince:\x1b[0m %s\r\n", e->since);
    if (with_group) printf("  \x1b[33mgroup:\x1b[0m %s\r\n", e->group);
}

/* The table says "sorted_set" where users type "sorted-set". */
static int groupMatches(const char *entry_group, const char *asked) {
    for (; *entry_group && *asked; entry_group++, asked++) {
        char a = *entry_group == '_' ? '-' : (char)tolower((unsigned char)*entry_group);
        char b = *asked == '_' ? '-' : (char)tolower((unsigned char)*asked);
        if (a != b) return 0;
    }
    return *entry_group == *asked;
}

void cliHelpCommand(int argc, char **argv, const char *version) {
    if (argc <= 1) {
        printIntro(version);
        return;
    }
    if (argv[1][0] == '@') {
        for (size_t i = 0; i < entryCount; i++)
            if (groupMatches(entries[i].group, argv[1] + 1)) printEntry(&entries[i], 0);
        printf("\r\n");
        return;
    }
    sds asked = sdsnew(argv[1]);
    for (int i = 2; i < argc; i++) asked = sdscatprintf(asked, " %s", argv[i]);
    size_t alen = sdslen(asked);
    for (size_t i = 0; i < entryCount; i++) {
        const char *name = entries[i].name;
        /* "help config" lists every CONFIG subcommand. */
        if (strcasecmp(name, asked) == 0 || (strncasecmp(name, asked, alen) == 0 && name[alen] == ' ')) {
            printEntry(&entries[i], 1);
        }
    }
    printf("\r\n"); /* even when nothing matched, as Redis's */
    sdsfree(asked);
}

/* ---- completion ----------------------------------------------------------------- */

/* A candidate is the typed prefix kept (e.g. "help ") followed by the name
 * as the table spells it: "hgeta<tab>" becomes "HGETALL", as in Redis. */
static void addCandidate(leCompletions *lc, const char *typed, size_t keep, const char *word) {
    sds line = sdscat(sdsnewlen(typed, keep), word);
    leAddCompletion(lc, line);
    sdsfree(line);
}

void cliCompletion(const char *buf, leCompletions *lc) {
    size_t keep = 0, len = strlen(buf);
    if (strncasecmp(buf, "help ", 5) == 0) {
        keep = 5;
        const char *topic = buf + 5;
        size_t tlen = len - 5;
        for (size_t i = 0; i < KNOWN_GROUPS; i++) {
            char g[32];
            snprintf(g, sizeof(g), "@%s", knownGroups[i]);
            if (strncasecmp(g, topic, tlen) == 0) addCandidate(lc, buf, keep, g);
        }
    }
    const char *typed = buf + keep;
    size_t tlen = len - keep;
    for (size_t i = 0; i < entryCount; i++)
        if (strncasecmp(entries[i].name, typed, tlen) == 0) addCandidate(lc, buf, keep, entries[i].name);
}

/* ---- hints --------------------------------------------------------------------------- */

/* Length of the next top-level word of a hint, counting a bracketed or
 * parenthesised group as one word. *plain = 0 for such a group. */
static size_t hintWordLength(const char *s, int *plain) {
    size_t i = 0;
    int depth = 0;
    *plain = !(s[0] == '[' || s[0] == '(');
    while (s[i]) {
        if (s[i] == '[' || s[i] == '(') depth++;
        else if (s[i] == ']' || s[i] == ')') depth--;
        else if (s[i] == ' ' && depth <= 0) break;
        i++;
    }
    return i;
}

static const char *skipHintWords(const char *hint, int n) {
    while (n-- > 0 && *hint) {
        int plain;
        size_t w = hintWordLength(hint, &plain);
        if (!plain || strstr(hint, "...") == hint + w - 3) break;
        hint += w;
        while (*hint == ' ') hint++;
    }
    return hint;
}

static const helpEntry *findEntry(int argc, sds *argv, int *consumed) {
    if (argc >= 2) {
        sds two = sdscatprintf(sdsempty(), "%s %s", argv[0], argv[1]);
        for (size_t i = 0; i < entryCount; i++) {
            if (entries[i].words == 2 && strcasecmp(entries[i].name, two) == 0) {
                sdsfree(two);
                *consumed = 2;
                return &entries[i];
            }
        }
        sdsfree(two);
    }
    for (size_t i = 0; i < entryCount; i++) {
        if (entries[i].words == 1 && strcasecmp(entries[i].name, argv[0]) == 0) {
            *consumed = 1;
            return &entries[i];
        }
    }
    return NULL;
}

char *cliHint(const char *buf) {
    if (!hintsEnabled || !*buf) return NULL;
    int argc = 0;
    sds *argv = sdssplitargs(buf, &argc);
    if (!argv) return NULL;
    char *result = NULL;
    int consumed = 0;
    const helpEntry *e = argc > 0 ? findEntry(argc, argv, &consumed) : NULL;
    if (e && *e->args) {
        size_t len = strlen(buf);
        int endspace = len && isspace((unsigned char)buf[len - 1]);
        int typed_args = argc - consumed;
        if (!endspace && typed_args > 0) typed_args--; /* still typing it */
        if (!endspace && argc == consumed) {
            sds h = sdscatprintf(sdsempty(), " %s", e->args);
            result = strdup(h);
            sdsfree(h);
        } else if (endspace) {
            const char *rest = skipHintWords(e->args, typed_args);
            if (*rest) result = strdup(rest);
        }
    }
    sdsfreesplitres(argv, argc);
    return result;
}
