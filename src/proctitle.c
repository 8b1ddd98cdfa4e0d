/* proctitle.c -- the process title: what `ps` and /proc/PID/cmdline show
 * for the server and its fork children (set-proc-title, proc-title-template).
 *
 * The title is proc-title-template expanded. Its syntax is Redis's:
 * {name} is a variable, "{{" a literal '{', any other character (a lone '}'
 * included) is itself; the result is trimmed of spaces. Variables: title
 * (the executable for the server, "redis-aof-rewrite" / "redis-rdb-bgsave"
 * for fork children), listen-addr ("bind0:port", or "unixsocket:path" with
 * port and tls-port 0; "bind0:tls-port" with port 0 only), server-mode
 * (always empty: no cluster or sentinel here), config-file ("-" without
 * one), port, tls-port, unixsocket. A
 * template is valid when it expands, with an empty title, to something
 * non-blank; CONFIG SET and the config file give Redis's error otherwise.
 *
 * Design decisions:
 * - Linux has no setproctitle(): the kernel shows the bytes of the original
 *   argv area. procTitleInit() measures the area -- argv's strings and the
 *   environment strings that follow them contiguously -- then copies the
 *   environment and the argv strings elsewhere and points environ and
 *   argv[] at the copies (glibc's program_invocation_name too), so getenv()
 *   and main()'s later use of argv keep working after the area is
 *   overwritten. A title is written at the start of the area and the rest
 *   is zeroed; a title longer than the area is cut. (When the title runs
 *   past argv's original end the kernel reads it as one string up to its
 *   NUL; otherwise it shows argv's range, i.e. the title followed by NULs,
 *   which `ps` prints as the title.)
 * - The copies use libc malloc, not zmalloc: they live as long as the
 *   process and are not data, so they stay out of used_memory.
 * - BSDs have setproctitle(3) (the leading '-' keeps it from prefixing the
 *   program name); any other platform keeps its original title.
 * - `set-proc-title no` means the argv area is never touched.
 */
#include "server.h"
#include "proctitle.h"

#if defined(__FreeBSD__) || defined(__NetBSD__) || defined(__OpenBSD__) || defined(__DragonFly__)
#define HAVE_SETPROCTITLE 1
#endif

/* ---- Linux: making the argv area writable ------------------------------------------ */

#if defined(__linux__)
extern char **environ;
#if defined(__GLIBC__)
extern char *program_invocation_name, *program_invocation_short_name;
#endif

static struct {
    char *base;  /* start of the original argv area */
    size_t size; /* its length in bytes, 0 if unusable */
} area;

/* Where the run of strings ending at `end` stops: each string that starts
 * exactly at `end` extends it. */
static char *contiguousEnd(char *end, char **strings, int count) {
    for (int j = 0; j < count && strings[j]; j++) {
        if (strings[j] != end) break;
        end = strings[j] + strlen(strings[j]) + 1;
    }
    return end;
}

/* environ, copied: the array and every string. NULL if out of memory. */
static char **copyEnvironment(void) {
    int count = 0;
    while (environ && environ[count]) count++;
    char **copy = malloc(sizeof(char *) * (size_t)(count + 1));
    if (copy == NULL) return NULL;
    for (int j = 0; j < count; j++) {
        copy[j] = strdup(environ[j]);
        if (copy[j] == NULL) return NULL; /* a few bytes lost, once, at start-up */
    }
    copy[count] = NULL;
    return copy;
}

void procTitleInit(int argc, char **argv) {
    if (argc < 1 || argv[0] == NULL) return;
    char *base = argv[0];
    char *end = contiguousEnd(base + strlen(base) + 1, argv + 1, argc - 1);
    int envc = 0;
    while (environ && environ[envc]) envc++;
    end = contiguousEnd(end, environ, envc);
    char **env = copyEnvironment();
    if (env == NULL) return;
    for (int j = 0; j < argc; j++) {
        char *s = strdup(argv[j]);
        if (s == NULL) return; /* area.size stays 0: the title is never written */
        argv[j] = s;
    }
    environ = env;
#if defined(__GLIBC__)
    /* glibc keeps its own pointers to argv[0] (error messages use them) */
    program_invocation_name = argv[0];
    char *slash = strrchr(argv[0], '/');
    program_invocation_short_name = slash ? slash + 1 : argv[0];
#endif
    area.base = base;
    area.size = (size_t)(end - base);
}
#else
void procTitleInit(int argc, char **argv) {
    (void)argc;
    (void)argv;
}
#endif

static void showTitle(const char *title) {
#if defined(__linux__)
    if (area.size == 0) return;
    size_t len = strlen(title);
    if (len > area.size - 1) len = area.size - 1;
    memcpy(area.base, title, len);
    memset(area.base + len, 0, area.size - len);
#elif defined(HAVE_SETPROCTITLE)
    setproctitle("-%s", title);
#else
    (void)title;
#endif
}

/* ---- the template ---------------------------------------------------------------- */

static sds listenAddress(void) {
    int port = server.port ? server.port : tls_config.port;
    if (port)
        return sdscatprintf(sdsempty(), "%s:%d", server.bindaddr_count ? server.bindaddr[0] : "*", port);
    return sdscatprintf(sdsempty(), "unixsocket:%s", server.unixsocket ? server.unixsocket : "");
}

/* The value of variable `name` (len bytes), or NULL if there is none. */
static sds variableValue(const char *name, size_t len, const char *title) {
#define IS(s) (len == sizeof(s) - 1 && memcmp(name, s, len) == 0)
    if (IS("title")) return sdsnew(title);
    if (IS("listen-addr")) return listenAddress();
    if (IS("server-mode")) return sdsempty();
    if (IS("config-file")) return sdsnew(server.configfile ? server.configfile : "-");
    if (IS("port")) return sdsfromlonglong(server.port);
    if (IS("tls-port")) return sdsfromlonglong(tls_config.port);
    if (IS("unixsocket")) return sdsnew(server.unixsocket ? server.unixsocket : "");
    return NULL;
#undef IS
}

/* The expanded, trimmed template; NULL if it is malformed (an unclosed
 * '{') or names an unknown variable. */
static sds expandTemplate(const char *tmpl, const char *title) {
    sds out = sdsempty();
    const char *p = tmpl;
    while (*p) {
        if (p[0] == '{' && p[1] == '{') {
            out = sdscatlen(out, "{", 1);
            p += 2;
            continue;
        }
        if (p[0] != '{') {
            out = sdscatlen(out, p++, 1);
            continue;
        }
        const char *close = strchr(p + 1, '}');
        sds value = close ? variableValue(p + 1, (size_t)(close - p - 1), title) : NULL;
        if (value == NULL) {
            sdsfree(out);
            return NULL;
        }
        out = sdscatsds(out, value);
        sdsfree(value);
        p = close + 1;
    }
    return sdstrim(out, " ");
}

/* ---- entry points ------------------------------------------------------------------- */

int procTitleSet(const char *title) {
    if (!server.set_proc_title) return C_OK;
    if (title == NULL) title = server.executable ? server.executable : "redis-server";
    sds text = expandTemplate(server.proc_title_template ? server.proc_title_template : "", title);
    if (text == NULL) return C_ERR;
    showTitle(text);
    sdsfree(text);
    return C_OK;
}

int procTitleValidateTemplate(const char *value, sds *err) {
    sds text = expandTemplate(value, "");
    int ok = text != NULL && sdslen(text) > 0;
    sdsfree(text);
    if (ok) return C_OK;
    *err = sdsnew("template format is invalid or contains unknown variables");
    return C_ERR;
}

/* Before start-up is over (no server.el exists) main() sets the
 * first title itself, once the listeners are known. */
int procTitleApplyTemplate(sds *err) {
    if (server.el == NULL) return C_OK;
    if (procTitleSet(NULL) == C_OK) return C_OK;
    *err = sdsnew("failed to set process title");
    return C_ERR;
}
