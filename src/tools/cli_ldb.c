/* cli_ldb.c -- redis-cli's side of the Lua debugger: --ldb and
 * --ldb-sync-mode with --eval (or SCRIPT DEBUG YES|SYNC typed, then an
 * EVAL), as Debian's redis-cli 7.0.15 does it.
 *
 * How a session goes:
 * - evalMode (redis-cli.c) prints the banner, sends SCRIPT DEBUG YES (or
 *   SYNC) and the EVAL, whose first reply is the first stop; then the prompt
 *   ("lua debugger> ") sends each line to the server: the debugger's own
 *   commands, "help" included, and "eval <code>" / "e <code>" with the code
 *   as one argument, verbatim.
 * - The debugger answers with arrays of status lines, printed raw, one per
 *   line, colored by their prefix when TERM names an xterm (cliLdbFormat).
 * - A line "<endsession>" ends the session: output goes back to the normal
 *   format, the EVAL's own reply is read and printed, then "(Lua debugging
 *   session ended -- dataset changes rolled back)" ("(Lua debugging session
 *   ended)" in sync mode). The server closes the connection; the next
 *   command reconnects. "restart" at the prompt starts the file's session
 *   again.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli_common.h"
#include "zmalloc.h"

static int isColorTerm(void) {
    const char *term = getenv("TERM");
    return term != NULL && strstr(term, "xterm") != NULL;
}

/* ANSI: bold or not, and the color's code. */
static sds catColored(sds out, const char *s, size_t len, int bold, int color) {
    if (!isColorTerm()) return sdscatlen(out, s, len);
    out = sdscatprintf(out, "\033[%d;%d;49m", bold, color);
    out = sdscatlen(out, s, len);
    return sdscat(out, "\033[0m");
}

/* One style per line (bold white, or a color): the last test that matches
 * picks it. */
enum { LDB_BOLD = 1, LDB_RED = 31, LDB_GREEN = 32, LDB_YELLOW = 33, LDB_MAGENTA = 35, LDB_CYAN = 36, LDB_WHITE = 37 };

/* A debugger line, styled by what it is: the current line yellow, a
 * breakpoint's bold, "<redis>" green, "<reply>" cyan, "<error>" red,
 * values magenta, "<debug>" and hints bold. */
static sds catLdbLine(sds out, const char *s, size_t len) {
    int style = LDB_WHITE;
    if (strstr(s, "<debug>")) style = LDB_BOLD;
    if (strstr(s, "<redis>")) style = LDB_GREEN;
    if (strstr(s, "<reply>")) style = LDB_CYAN;
    if (strstr(s, "<error>")) style = LDB_RED;
    if (strstr(s, "<hint>")) style = LDB_BOLD;
    if (strstr(s, "<value>") || strstr(s, "<retval>")) style = LDB_MAGENTA;
    if (len > 4 && isdigit((unsigned char)s[3])) {
        if (s[1] == '>') style = LDB_YELLOW;
        else if (s[2] == '#') style = LDB_BOLD;
    }
    return style == LDB_BOLD ? catColored(out, s, len, 1, LDB_WHITE) : catColored(out, s, len, 0, style);
}

static void sessionEnded(void) {
    config.enable_ldb_on_eval = 0;
    config.eval_ldb = 0;
    config.eval_ldb_end = 1;
    config.output = CLI_OUT_TTY;
}

sds cliLdbFormat(const rcReply *r, const char *elem_delim) {
    if (r->type == RC_REPLY_STATUS) {
        if (r->len >= 12 && !strncmp(r->str, "<endsession>", 12)) {
            sessionEnded();
            return sdsempty();
        }
        return catLdbLine(sdsempty(), r->str, r->len);
    }
    if (r->type != RC_REPLY_ARRAY) return cliFormatRaw(r, elem_delim);
    sds out = sdsempty();
    for (size_t i = 0; i < r->elements; i++) {
        if (i > 0) out = sdscat(out, elem_delim);
        sds one = cliLdbFormat(r->element[i], elem_delim);
        out = sdscatsds(out, one);
        sdsfree(one);
    }
    return out;
}

/* SCRIPT DEBUG YES|SYNC typed at the prompt arms the next EVAL. */
void cliLdbNoteCommand(int argc, char **argv) {
    if (argc == 3 && !strcasecmp(argv[0], "script") && !strcasecmp(argv[1], "debug"))
        config.enable_ldb_on_eval = !strcasecmp(argv[2], "yes") || !strcasecmp(argv[2], "sync");
    if (!strcasecmp(argv[0], "eval") && config.enable_ldb_on_eval) {
        config.eval_ldb = 1;
        config.output = CLI_OUT_RAW;
    }
}

/* At the prompt: "eval <code>" and "e <code>" keep the code whole. */
sds *cliLdbSplitLine(const char *line, int *argc) {
    if (!config.eval_ldb || (strncmp(line, "eval ", 5) && strncmp(line, "e ", 2))) return sdssplitargs(line, argc);
    size_t name_len = line[1] == ' ' ? 1 : 4;
    sds *argv = zmalloc(sizeof(sds) * 2); /* sdsfreesplitres frees it */
    argv[0] = sdsnewlen(line, name_len);
    argv[1] = sdsnew(line + name_len + 1);
    *argc = 2;
    return argv;
}

/* After a command that ended the session: the EVAL's reply, then the note. */
void cliLdbAfterCommand(void) {
    if (!config.eval_ldb_end) return;
    config.eval_ldb_end = 0;
    cliPrintNextReply();
    printf("\n(Lua debugging session ended%s)\n\n", config.eval_ldb_sync ? "" : " -- dataset changes rolled back");
    fflush(stdout);
}
