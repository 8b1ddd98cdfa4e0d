/* lineedit.c -- the single-line terminal editor behind lineedit.h.
 *
 * Structure: leReadLine() puts the terminal in raw mode, runs editLoop()
 * (read a key, apply it to the edit state, redraw) and restores the terminal
 * whatever happens. The edit state is a growable byte buffer with a cursor
 * position; the screen is redrawn entirely from it after every key, which is
 * cheap for one line and keeps the drawing code in one place (refreshLine).
 *
 * History is an array of malloc()ed strings, oldest first. While a line is
 * being edited the newest slot holds a copy of it, so browsing up and back
 * down returns to what was typed (the usual readline behaviour).
 *
 * Keys understood: printable bytes insert; left/right/home/end, ctrl-b/f/a/e
 * move; backspace/ctrl-h and delete/ctrl-d (ctrl-d on an empty line is end of
 * input) erase; ctrl-u/ctrl-k kill before/after the cursor; ctrl-w kills the
 * previous word; ctrl-t swaps two characters; up/down and ctrl-p/n browse
 * history; ctrl-r searches it backwards; tab completes; ctrl-l clears the
 * screen; enter accepts; ctrl-c abandons.
 */
#include "lineedit.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#define KEY_CTRL(c) ((c) & 0x1f)
#define KEY_BACKSPACE 127
#define KEY_ESC 27
#define DEFAULT_HISTORY_MAX 100

static leCompletionFn *completionFn;
static leHintFn *hintFn;
static char **history;
static int historyLen;
static int historyMax = DEFAULT_HISTORY_MAX;
static struct termios savedTermios;
static int rawModeOn;

/* ---- the edit state ------------------------------------------------------- */

typedef struct editState {
    char *buf;
    size_t len, cap, pos;
    const char *prompt;
    int historyIndex;         /* 0 = the line being typed, 1 = previous ... */
} editState;

static void editReserve(editState *e, size_t extra) {
    if (e->len + extra + 1 <= e->cap) return;
    size_t cap = e->cap ? e->cap : 64;
    while (cap < e->len + extra + 1) cap *= 2;
    char *nb = realloc(e->buf, cap);
    if (!nb) abort();
    e->buf = nb;
    e->cap = cap;
}

static void editSet(editState *e, const char *s) {
    size_t n = strlen(s);
    e->len = 0;
    editReserve(e, n);
    memcpy(e->buf, s, n);
    e->len = e->pos = n;
    e->buf[n] = '\0';
}

static void editInsert(editState *e, char c) {
    editReserve(e, 1);
    memmove(e->buf + e->pos + 1, e->buf + e->pos, e->len - e->pos);
    e->buf[e->pos++] = c;
    e->buf[++e->len] = '\0';
}

/* Removes the bytes [from, to) and leaves the cursor at from. */
static void editErase(editState *e, size_t from, size_t to) {
    if (from >= to || to > e->len) return;
    memmove(e->buf + from, e->buf + to, e->len - to);
    e->len -= to - from;
    e->buf[e->len] = '\0';
    e->pos = from;
}

static size_t previousWordStart(const editState *e) {
    size_t p = e->pos;
    while (p > 0 && e->buf[p - 1] == ' ') p--;
    while (p > 0 && e->buf[p - 1] != ' ') p--;
    return p;
}

/* ---- terminal -------------------------------------------------------------- */

static int enableRawMode(int fd) {
    struct termios raw;
    if (tcgetattr(fd, &savedTermios) == -1) return -1;
    raw = savedTermios;
    raw.c_iflag &= ~(BRKINT | ICRNL | INPCK | ISTRIP | IXON);
    raw.c_oflag &= ~OPOST;
    raw.c_cflag |= CS8;
    raw.c_lflag &= ~(ECHO | ICANON | IEXTEN | ISIG);
    raw.c_cc[VMIN] = 1;
    raw.c_cc[VTIME] = 0;
    if (tcsetattr(fd, TCSADRAIN, &raw) < 0) return -1;
    rawModeOn = 1;
    return 0;
}

static void disableRawMode(int fd) {
    if (rawModeOn && tcsetattr(fd, TCSADRAIN, &savedTermios) != -1) rawModeOn = 0;
}

static size_t terminalColumns(void) {
    struct winsize ws;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == -1 || ws.ws_col == 0) return 80;
    return ws.ws_col;
}

static void writeAll(const char *s, size_t n) {
    while (n > 0) {
        ssize_t w = write(STDOUT_FILENO, s, n);
        if (w <= 0) {
            if (w < 0 && errno == EINTR) continue;
            return;
        }
        s += w;
        n -= (size_t)w;
    }
}

void leClearScreen(void) {
    static const char seq[] = "\x1b[H\x1b[2J";
    writeAll(seq, sizeof(seq) - 1);
}

static void beep(void) {
    fputc('\a', stderr);
    fflush(stderr);
}

/* ---- drawing ------------------------------------------------------------------ */

typedef struct outBuf {
    char *b;
    size_t len, cap;
} outBuf;

static void outAppend(outBuf *o, const char *s, size_t n) {
    if (o->len + n > o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 256;
        while (cap < o->len + n) cap *= 2;
        char *nb = realloc(o->b, cap);
        if (!nb) abort();
        o->b = nb;
        o->cap = cap;
    }
    memcpy(o->b + o->len, s, n);
    o->len += n;
}

static void outAppendStr(outBuf *o, const char *s) { outAppend(o, s, strlen(s)); }

/* Draws prompt + the visible window of text + hint, then puts the cursor at
 * column prompt + cursor. text/pos may differ from the edit buffer (search). */
static void drawLine(const char *prompt, const char *text, size_t len, size_t pos, const char *hint) {
    size_t cols = terminalColumns(), plen = strlen(prompt);
    size_t start = 0;
    while (plen + pos - start >= cols && start < pos) start++;
    size_t visible = len - start;
    if (plen + visible > cols) visible = cols > plen ? cols - plen : 0;

    outBuf o = {0};
    char seq[32];
    outAppendStr(&o, "\r");
    outAppendStr(&o, prompt);
    outAppend(&o, text + start, visible);
    if (hint && *hint && plen + visible < cols) {
        size_t room = cols - plen - visible, hl = strlen(hint);
        outAppendStr(&o, "\x1b[0;90;49m");
        outAppend(&o, hint, hl < room ? hl : room);
        outAppendStr(&o, "\x1b[0m");
    }
    outAppendStr(&o, "\x1b[0K\r");
    size_t col = plen + pos - start;
    if (col > 0) {
        snprintf(seq, sizeof(seq), "\x1b[%zuC", col);
        outAppendStr(&o, seq);
    }
    writeAll(o.b, o.len);
    free(o.b);
}

static int maskMode;

void leSetMaskMode(int on) { maskMode = on; }

/* A masked line is drawn as as many '*' as it has bytes. */
static void refreshLine(const editState *e) {
    if (maskMode) {
        char *stars = malloc(e->len + 1);
        if (!stars) return;
        memset(stars, '*', e->len);
        stars[e->len] = '\0';
        drawLine(e->prompt, stars, e->len, e->pos, NULL);
        free(stars);
        return;
    }
    char *hint = (hintFn && e->pos == e->len) ? hintFn(e->buf) : NULL;
    drawLine(e->prompt, e->buf, e->len, e->pos, hint);
    free(hint);
}

/* ---- history ------------------------------------------------------------------ */

/* The array has one slot more than the maximum: the line being edited. */
static int historyAllocate(void) {
    if (!history) history = calloc((size_t)historyMax + 1, sizeof(char *));
    return history != NULL;
}

int leHistoryAdd(const char *line) {
    if (historyMax <= 0) return 0;
    if (historyLen > 0 && strcmp(history[historyLen - 1], line) == 0) return 0;
    char *copy = strdup(line);
    if (!copy) return 0;
    if (!historyAllocate()) {
        free(copy);
        return 0;
    }
    if (historyLen == historyMax) {
        free(history[0]);
        memmove(history, history + 1, sizeof(char *) * (size_t)(historyMax - 1));
        historyLen--;
    }
    history[historyLen++] = copy;
    return 1;
}

int leHistorySetMaxLen(int len) {
    if (len < 1) return 0;
    char **nh = calloc((size_t)len + 1, sizeof(char *));
    if (!nh) return 0;
    int keep = historyLen < len ? historyLen : len;
    for (int i = 0; i < historyLen - keep; i++) free(history[i]);
    if (keep) memcpy(nh, history + historyLen - keep, sizeof(char *) * (size_t)keep);
    free(history);
    history = nh;
    historyLen = keep;
    historyMax = len;
    return 1;
}

/* The file holds what was typed, passwords aside: owner-only (0600), even
 * when it existed with wider permissions. */
int leHistorySave(const char *path) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, S_IRUSR | S_IWUSR);
    if (fd == -1) return -1;
    fchmod(fd, S_IRUSR | S_IWUSR);
    FILE *fp = fdopen(fd, "w");
    if (!fp) {
        close(fd);
        return -1;
    }
    for (int i = 0; i < historyLen; i++) fprintf(fp, "%s\n", history[i]);
    fclose(fp);
    return 0;
}

int leHistoryLoad(const char *path) {
    FILE *fp = fopen(path, "r");
    if (!fp) return -1;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    while ((n = getline(&line, &cap, fp)) != -1) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = '\0';
        if (n > 0) leHistoryAdd(line);
    }
    free(line);
    fclose(fp);
    return 0;
}

void leHistoryFree(void) {
    for (int i = 0; i < historyLen; i++) free(history[i]);
    free(history);
    history = NULL;
    historyLen = 0;
}

/* Appends the slot of the line being typed, beyond the maximum length so
 * that no saved line is dropped for it. */
static int pushEditSlot(void) {
    if (historyMax <= 0 || !historyAllocate() || historyLen > historyMax) return 0;
    char *slot = strdup("");
    if (!slot) return 0;
    history[historyLen++] = slot;
    return 1;
}

/* Moves through history: dir = +1 older, -1 newer. The slot being left
 * keeps the current text so edits to a recalled line survive browsing. */
static void historyStep(editState *e, int dir) {
    if (historyLen <= 1) return;
    int next = e->historyIndex + dir;
    if (next < 0 || next >= historyLen) return;
    char *copy = strdup(e->buf);
    if (!copy) return;
    free(history[historyLen - 1 - e->historyIndex]);
    history[historyLen - 1 - e->historyIndex] = copy;
    e->historyIndex = next;
    editSet(e, history[historyLen - 1 - next]);
    refreshLine(e);
}

/* ---- completion ---------------------------------------------------------------- */

void leSetCompletionCallback(leCompletionFn *fn) { completionFn = fn; }
void leSetHintCallback(leHintFn *fn) { hintFn = fn; }

void leAddCompletion(leCompletions *lc, const char *line) {
    char *copy = strdup(line);
    if (!copy) return;
    char **ni = realloc(lc->items, sizeof(char *) * (lc->len + 1));
    if (!ni) {
        free(copy);
        return;
    }
    lc->items = ni;
    lc->items[lc->len++] = copy;
}

static void freeCompletions(leCompletions *lc) {
    for (size_t i = 0; i < lc->len; i++) free(lc->items[i]);
    free(lc->items);
}

static int readByte(char *c) {
    for (;;) {
        ssize_t n = read(STDIN_FILENO, c, 1);
        if (n == 1) return 1;
        if (n < 0 && errno == EINTR) continue;
        return 0;
    }
}

/* Shows the candidates one by one on each tab, each with its hint; escape
 * restores the typed line. Returns the key that ended the cycle (to be processed by the caller)
 * or 0 when it was consumed. */
static int completeLine(editState *e) {
    leCompletions lc = {0, NULL};
    completionFn(e->buf, &lc);
    if (lc.len == 0) {
        beep();
        freeCompletions(&lc);
        return 0;
    }
    size_t i = 0;
    char c = 0;
    for (;;) {
        if (i < lc.len) {
            size_t n = strlen(lc.items[i]);
            char *hint = hintFn ? hintFn(lc.items[i]) : NULL;
            drawLine(e->prompt, lc.items[i], n, n, hint);
            free(hint);
        } else {
            refreshLine(e);
        }
        if (!readByte(&c)) {
            c = 0;
            break;
        }
        if (c == '\t') {
            i = (i + 1) % (lc.len + 1);
            if (i == lc.len) beep();
            continue;
        }
        if (c == KEY_ESC) {
            refreshLine(e);
            c = 0;
            break;
        }
        if (i < lc.len) editSet(e, lc.items[i]);
        break;
    }
    freeCompletions(&lc);
    return (unsigned char)c;
}

/* ---- reverse incremental search -------------------------------------------- */

/* Finds the newest history entry older than index `from` containing query. */
static int searchHistory(const char *query, int from) {
    for (int i = from; i < historyLen; i++) {
        const char *h = history[historyLen - 1 - i];
        if (strstr(h, query)) return i;
    }
    return -1;
}

static void drawSearch(const char *query, int found) {
    const char *match = found >= 0 ? history[historyLen - 1 - found] : "";
    size_t plen = strlen(query) + 32;
    char *prompt = malloc(plen);
    if (!prompt) return;
    snprintf(prompt, plen, "(%sreverse-i-search)`%s': ", found >= 0 || !*query ? "" : "failed ", query);
    size_t mlen = strlen(match);
    const char *at = *query ? strstr(match, query) : NULL;
    drawLine(prompt, match, mlen, at ? (size_t)(at - match) : mlen, NULL);
    free(prompt);
}

/* ctrl-r mode. Returns the key that ended the search (processed by the
 * caller on the accepted line), or 0 when the search was cancelled. */
static int reverseSearch(editState *e) {
    char query[256];
    size_t qlen = 0;
    int found = -1;
    char c;
    query[0] = '\0';
    drawSearch(query, found);
    while (readByte(&c)) {
        if (c == KEY_CTRL('r')) {
            if (qlen && found >= 0) {
                int older = searchHistory(query, found + 1);
                if (older >= 0) found = older; else beep();
            }
        } else if (c == KEY_CTRL('g') || c == KEY_CTRL('c')) {
            refreshLine(e);
            return 0;
        } else if (c == KEY_BACKSPACE || c == KEY_CTRL('h')) {
            if (qlen) query[--qlen] = '\0';
            found = qlen ? searchHistory(query, 1) : -1;
        } else if (isprint((unsigned char)c) && qlen + 1 < sizeof(query)) {
            query[qlen++] = c;
            query[qlen] = '\0';
            found = searchHistory(query, found >= 0 ? found : 1);
        } else {
            if (found >= 0) editSet(e, history[historyLen - 1 - found]);
            refreshLine(e);
            return (unsigned char)c;
        }
        drawSearch(query, found);
    }
    return 0;
}

/* ---- the key loop --------------------------------------------------------------- */

enum { EDIT_CONTINUE, EDIT_ACCEPT, EDIT_EOF, EDIT_ABORT };

static void handleEscapeSequence(editState *e) {
    char seq[3];
    if (!readByte(&seq[0]) || !readByte(&seq[1])) return;
    if (seq[0] == '[' && seq[1] >= '0' && seq[1] <= '9') {
        if (!readByte(&seq[2]) || seq[2] != '~') return;
        switch (seq[1]) {
        case '3': if (e->pos < e->len) editErase(e, e->pos, e->pos + 1); break;
        case '1': case '7': e->pos = 0; break;
        case '4': case '8': e->pos = e->len; break;
        }
        refreshLine(e);
        return;
    }
    if (seq[0] != '[' && seq[0] != 'O') return;
    switch (seq[1]) {
    case 'A': historyStep(e, 1); return;
    case 'B': historyStep(e, -1); return;
    case 'C': if (e->pos < e->len) e->pos++; break;
    case 'D': if (e->pos > 0) e->pos--; break;
    case 'H': e->pos = 0; break;
    case 'F': e->pos = e->len; break;
    default: return;
    }
    refreshLine(e);
}

static int handleKey(editState *e, int c) {
    switch (c) {
    case '\r': case '\n': return EDIT_ACCEPT;
    case KEY_CTRL('c'): return EDIT_ABORT;
    case KEY_CTRL('d'):
        if (e->len == 0) return EDIT_EOF;
        editErase(e, e->pos, e->pos + 1);
        break;
    case KEY_BACKSPACE: case KEY_CTRL('h'):
        if (e->pos > 0) editErase(e, e->pos - 1, e->pos);
        break;
    case KEY_CTRL('a'): e->pos = 0; break;
    case KEY_CTRL('e'): e->pos = e->len; break;
    case KEY_CTRL('b'): if (e->pos > 0) e->pos--; break;
    case KEY_CTRL('f'): if (e->pos < e->len) e->pos++; break;
    case KEY_CTRL('u'): editErase(e, 0, e->pos); break;
    case KEY_CTRL('k'): editErase(e, e->pos, e->len); break;
    case KEY_CTRL('w'): editErase(e, previousWordStart(e), e->pos); break;
    case KEY_CTRL('t'):
        if (e->pos > 0 && e->len > 1) {
            if (e->pos == e->len) e->pos--;
            char t = e->buf[e->pos - 1];
            e->buf[e->pos - 1] = e->buf[e->pos];
            e->buf[e->pos] = t;
            e->pos++;
        }
        break;
    case KEY_CTRL('p'): historyStep(e, 1); return EDIT_CONTINUE;
    case KEY_CTRL('n'): historyStep(e, -1); return EDIT_CONTINUE;
    case KEY_CTRL('l'): leClearScreen(); break;
    case KEY_ESC: handleEscapeSequence(e); return EDIT_CONTINUE;
    default:
        if ((unsigned char)c < 32) return EDIT_CONTINUE;
        editInsert(e, (char)c);
        break;
    }
    refreshLine(e);
    return EDIT_CONTINUE;
}

static int editLoop(editState *e) {
    char c;
    refreshLine(e);
    while (readByte(&c)) {
        int key = (unsigned char)c;
        if (key == '\t' && completionFn) {
            key = completeLine(e);
            if (key == 0) continue;
        }
        if (key == KEY_CTRL('r')) {
            key = reverseSearch(e);
            if (key == 0) continue;
        }
        int r = handleKey(e, key);
        if (r != EDIT_CONTINUE) return r;
    }
    return e->len ? EDIT_ACCEPT : EDIT_EOF;
}

/* ---- entry points --------------------------------------------------------------- */

static char *readPlainLine(void) {
    char *line = NULL;
    size_t cap = 0;
    ssize_t n = getline(&line, &cap, stdin);
    if (n < 0) {
        free(line);
        return NULL;
    }
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) line[--n] = '\0';
    return line;
}

char *leReadLine(const char *prompt) {
    if (!isatty(STDIN_FILENO)) return readPlainLine();
    fflush(stdout);
    if (enableRawMode(STDIN_FILENO) == -1) return readPlainLine();

    editState e = {NULL, 0, 0, 0, prompt, 0};
    editSet(&e, "");
    int added = pushEditSlot();
    int r = editLoop(&e);
    if (added) {
        free(history[--historyLen]);
        history[historyLen] = NULL;
    }
    /* Redraw without the hint before leaving the line (masked: still '*'). */
    e.pos = e.len;
    if (maskMode) refreshLine(&e);
    else drawLine(prompt, e.buf, e.len, e.len, NULL);
    disableRawMode(STDIN_FILENO);
    writeAll("\n", 1);
    if (r == EDIT_ACCEPT) return e.buf;
    free(e.buf);
    errno = (r == EDIT_ABORT) ? EAGAIN : 0;
    return NULL;
}
