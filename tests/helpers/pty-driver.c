/* pty-driver.c -- runs a program on a pseudo-terminal and plays a script of
 * keystrokes and expectations against it, for the interactive redis-cli tests
 * (tests/integration/redis-cli.tcl compiles it with the system cc into the
 * test's temporary directory; it is not part of the product).
 *
 *   pty-driver SCRIPT-FILE PROGRAM [ARGS...]
 *
 * Script lines (blank lines and lines starting with # are ignored):
 *   send TEXT     type TEXT; escapes: \r \n \t \e (ESC) \\ \xHH
 *   expect TEXT   wait until the output since the previous match contains TEXT
 *                 (same escapes); the match consumes the output up to its end
 *   sleep MS      pause
 *   close         close the terminal's input side (end of file is not sent;
 *                 the program is hung up), then wait for it to exit
 *   wait          wait for the program to exit
 *   waitfile PATH wait until PATH exists (the test signals a step it took)
 *
 * The terminal is 200x50, TERM=xterm. Everything the program prints is
 * copied to stdout as it arrives. Exit status: the program's, or 100 with a
 * message on stderr when an expectation timed out (10 s each, times the
 * PTY_TIME_FACTOR environment variable) or the program could not be run.
 * Design: no threads, one poll loop that drains the master into a growing
 * transcript; every wait is bounded.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

static char *transcript;
static size_t tlen, tcap, matched;
static int master = -1;
static pid_t child;
static int child_status = -1;
static long long timeout_ms = 10000;

static long long now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void append(const char *buf, size_t n) {
    if (tlen + n + 1 > tcap) {
        tcap = (tlen + n + 1) * 2;
        transcript = realloc(transcript, tcap);
        if (!transcript) abort();
    }
    memcpy(transcript + tlen, buf, n);
    tlen += n;
    transcript[tlen] = '\0';
    fwrite(buf, 1, n, stdout); /* live, so a test can watch the session */
    fflush(stdout);
}

/* Reads what is available, waiting up to wait_ms. 0 on hang-up. */
static int pump(int wait_ms) {
    struct pollfd p = {master, POLLIN, 0};
    int r = poll(&p, 1, wait_ms);
    if (r <= 0) return 1;
    char buf[4096];
    ssize_t n = read(master, buf, sizeof(buf));
    if (n > 0) {
        append(buf, (size_t)n);
        return 1;
    }
    return 0;
}

static size_t unescape(const char *in, char *out) {
    size_t n = 0;
    for (; *in; in++) {
        if (*in != '\\' || !in[1]) {
            out[n++] = *in;
            continue;
        }
        in++;
        switch (*in) {
        case 'r': out[n++] = '\r'; break;
        case 'n': out[n++] = '\n'; break;
        case 't': out[n++] = '\t'; break;
        case 'e': out[n++] = 27; break;
        case 'x': {
            char hex[3] = {in[1], in[1] ? in[2] : 0, 0};
            out[n++] = (char)strtol(hex, NULL, 16);
            in += 2;
            break;
        }
        default: out[n++] = *in; break;
        }
    }
    out[n] = '\0';
    return n;
}

static int reap(int wait_ms) {
    long long deadline = now_ms() + wait_ms;
    while (child_status == -1) {
        int st;
        pid_t r = waitpid(child, &st, WNOHANG);
        if (r == child) {
            child_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
            break;
        }
        if (now_ms() > deadline) return 0;
        if (master >= 0 && !pump(20)) {
            close(master);
            master = -1;
        }
        if (master < 0) usleep(20000);
    }
    while (master >= 0 && pump(50)) {
        if (now_ms() > deadline) break;
    }
    return 1;
}

static void finish(int code, const char *why) {
    if (why) fprintf(stderr, "pty-driver: %s\n", why);
    if (child_status == -1) {
        kill(child, SIGKILL);
        waitpid(child, NULL, 0);
    }
    exit(code);
}

static void expect(const char *want) {
    long long deadline = now_ms() + timeout_ms;
    for (;;) {
        char *at = transcript ? memmem(transcript + matched, tlen - matched, want, strlen(want)) : NULL;
        if (at) {
            matched = (size_t)(at - transcript) + strlen(want);
            return;
        }
        if (now_ms() > deadline || master < 0) {
            char msg[600];
            snprintf(msg, sizeof(msg), "timeout waiting for '%.500s'", want);
            finish(100, msg);
        }
        if (!pump(50)) {
            close(master);
            master = -1;
        }
    }
}

static void runScript(FILE *fp) {
    char line[4096], text[4096];
    while (fgets(line, sizeof(line), fp)) {
        line[strcspn(line, "\n")] = '\0';
        if (!line[0] || line[0] == '#') continue;
        char *arg = strchr(line, ' ');
        arg = arg ? arg + 1 : line + strlen(line);
        if (!strncmp(line, "send ", 5)) {
            size_t n = unescape(arg, text);
            if (master >= 0 && write(master, text, n) != (ssize_t)n) finish(100, "write failed");
            pump(10);
        } else if (!strncmp(line, "expect ", 7)) {
            unescape(arg, text);
            expect(text);
        } else if (!strncmp(line, "sleep ", 6)) {
            long long until = now_ms() + atoll(arg);
            while (now_ms() < until && master >= 0) pump(10);
        } else if (!strncmp(line, "waitfile ", 9)) {
            long long deadline = now_ms() + timeout_ms;
            while (access(arg, F_OK) != 0) {
                if (now_ms() > deadline) finish(100, "timeout waiting for a file");
                if (master >= 0) pump(20);
                else usleep(20000);
            }
        } else if (!strcmp(line, "wait") || !strcmp(line, "close")) {
            if (line[0] == 'c') kill(child, SIGHUP);
            if (!reap((int)timeout_ms)) finish(100, "timeout waiting for the program to exit");
        } else {
            finish(100, "bad script line");
        }
    }
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: pty-driver SCRIPT PROGRAM [ARGS...]\n");
        return 100;
    }
    const char *factor = getenv("PTY_TIME_FACTOR");
    if (factor && atoi(factor) > 0) timeout_ms *= atoi(factor);
    FILE *fp = fopen(argv[1], "r");
    if (!fp) finish(100, "cannot open the script");
    master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) || unlockpt(master)) finish(100, "no pty");
    struct winsize ws = {50, 200, 0, 0};
    child = fork();
    if (child == 0) {
        setsid();
        int slave = open(ptsname(master), O_RDWR);
        if (slave < 0) _exit(127);
        ioctl(slave, TIOCSCTTY, 0);
        ioctl(slave, TIOCSWINSZ, &ws);
        dup2(slave, 0);
        dup2(slave, 1);
        dup2(slave, 2);
        if (slave > 2) close(slave);
        close(master);
        setenv("TERM", "xterm", 1);
        execvp(argv[2], argv + 2);
        _exit(127);
    }
    runScript(fp);
    fclose(fp);
    if (!reap((int)timeout_ms)) finish(100, "timeout waiting for the program to exit");
    finish(child_status, NULL);
    return 0;
}
