/* cli_help_extra.h -- the generated table of Redis 7.0 commands that
 * src/commands.def does not declare (cli_help_extra.c, written by
 * utils/gen-cli-extra-help.py from a Redis 7.0 server's COMMAND DOCS), so
 * redis-cli's HELP, hints and completion know every Redis 7.0 command even
 * when this server lacks it. cli_help.c merges it with the commands.def
 * entries; a name commands.def has takes precedence.
 */
#ifndef CLI_HELP_EXTRA_H
#define CLI_HELP_EXTRA_H

typedef struct cliExtraDoc {
    const char *name;    /* "GEOADD", "ACL CAT"; NULL ends the table */
    const char *group;   /* as COMMAND DOCS says: "sorted-set", "geo" ... */
    const char *since;
    const char *summary;
    const char *args;    /* the argument hint, "" for none */
} cliExtraDoc;

extern const cliExtraDoc cliExtraDocs[];

#endif
