/* fuzz_server.h -- what tests/fuzz/fuzz_server.c gives the server-level
 * harnesses: start-up without main(), and a hook on processCommand(). */
#ifndef FUZZ_SERVER_H
#define FUZZ_SERVER_H

#include "server.h"

typedef int fuzzCommandHookFn(client *c);
/* When set, processCommand() calls it instead of running the command. */
extern fuzzCommandHookFn *fuzzCommandHook;

void fuzzServerInit(void);                      /* once; idempotent */
void fuzzServerDisableDangerousCommands(void);  /* for harnesses that run commands */
void fuzzServerEmptyData(void);                 /* every db emptied */

#endif /* FUZZ_SERVER_H */
