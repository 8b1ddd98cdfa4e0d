/* cli_format.h -- how redis-cli prints a reply: the human ("TTY") format,
 * the raw format scripts read, CSV and JSON (--json, --quoted-json).
 *
 * The three formats reproduce Redis 7's redis-cli byte for byte (they are
 * what shell scripts parse), with two deliberate supersets: RESP3 big
 * numbers are printed ("(big number) 123" / "123") where 7.0 aborts, and
 * RESP3 blob errors print like simple errors.
 *
 * Each function returns a new sds; nothing here does I/O.
 */
#ifndef CLI_FORMAT_H
#define CLI_FORMAT_H

#include "rclient.h"
#include "sds.h"

typedef enum cliOutputMode { CLI_OUT_TTY, CLI_OUT_RAW, CLI_OUT_CSV, CLI_OUT_JSON, CLI_OUT_QUOTED_JSON } cliOutputMode;

/* One whole reply, ready to write: TTY, CSV and JSON end with "\n"; raw ends with
 * resp_delim (-D, default "\n") and separates the elements of aggregates
 * with elem_delim (-d, default "\n"). */
sds cliFormatReply(const rcReply *r, cliOutputMode mode, const char *elem_delim, const char *resp_delim);

/* Reports (INFO, CLIENT LIST, MEMORY DOCTOR, LATENCY DOCTOR, LOLWUT ...) are
 * text meant to be read as it is: for these command lines Redis's redis-cli
 * prints the reply in the raw format, without the trailing delimiter,
 * whatever the output mode. Nonzero when argv is one of them. */
int cliPrintsVerbatim(int argc, char **argv);

sds cliFormatTTY(const rcReply *r, const char *prefix);
sds cliFormatRaw(const rcReply *r, const char *elem_delim);
sds cliFormatCSV(const rcReply *r);
/* quoted: --quoted-json, strings in the ASCII-safe quoted form. */
sds cliFormatJSON(const rcReply *r, int quoted);

#endif
