/* cli_help.h -- redis-cli's knowledge of the commands: HELP, tab completion
 * and argument hints, all derived from the list the server's own command
 * table is built from (src/commands.def, compiled into the tool), so the
 * three never disagree with the server they were built with, completed by
 * a generated table of the Redis 7.0 commands it does not declare
 * (cli_help_extra.h).
 */
#ifndef CLI_HELP_H
#define CLI_HELP_H

#include "lineedit.h"

/* Builds the sorted help entries from the command list. */
void cliHelpInit(void);
void cliHelpFree(void);

/* Interactive "help ..." (argv[0] is "help" or "?"): prints to stdout. */
void cliHelpCommand(int argc, char **argv, const char *version);

/* The lineedit callbacks. */
void cliCompletion(const char *buf, leCompletions *lc);
char *cliHint(const char *buf);
void cliSetHints(int enabled);

#endif
