/* lineedit.h -- a small single-line editor for interactive terminal tools.
 *
 * What redis-cli's prompt needs and nothing more: a raw-mode line editor with
 * cursor movement, the usual emacs-style kill keys, history (browsing with
 * up/down, reverse incremental search with ctrl-r, load/save to a file), tab
 * completion through a callback and a dimmed hint shown after the cursor.
 *
 * Design decisions:
 * - One line, scrolled horizontally when it is wider than the terminal: no
 *   multi-line layout, so a refresh is always "carriage return, draw, erase
 *   to end of line, put the cursor back", which every terminal understands.
 * - All state is module-level: a process has one terminal and edits one line
 *   at a time. The API is reentrant only in that sense.
 * - When stdin is not a terminal, leReadLine() simply reads a line (no echo,
 *   no editing), so callers need no second code path.
 * - Strings returned to the caller are malloc()ed; the caller frees them.
 */
#ifndef LINEEDIT_H
#define LINEEDIT_H

#include <stddef.h>

typedef struct leCompletions {
    size_t len;
    char **items;
} leCompletions;

/* Fills lc (via leAddCompletion) with full replacement lines for buf. */
typedef void leCompletionFn(const char *buf, leCompletions *lc);
/* Returns a malloc()ed hint to show after buf, or NULL for none. */
typedef char *leHintFn(const char *buf);

void leSetCompletionCallback(leCompletionFn *fn);
void leSetHintCallback(leHintFn *fn);
void leAddCompletion(leCompletions *lc, const char *line);

/* Reads one line with editing. Returns a malloc()ed string without the line
 * terminator, or NULL on end of input (ctrl-d on an empty line) or ctrl-c. */
char *leReadLine(const char *prompt);

int leHistoryAdd(const char *line);
int leHistorySetMaxLen(int len);
int leHistorySave(const char *path);
int leHistoryLoad(const char *path);
void leHistoryFree(void);

void leClearScreen(void);
/* 1: the line is shown as '*' (a password), with no hint. */
void leSetMaskMode(int on);

#endif
