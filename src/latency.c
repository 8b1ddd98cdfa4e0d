/* latency.c -- the latency monitor: events slower than
 * latency-monitor-threshold milliseconds, kept per event as a short time
 * series, and the LATENCY command (LATEST, HISTORY, RESET, GRAPH, DOCTOR,
 * HELP; HISTOGRAM is per-command tracking, latency_tracking.c).
 *
 * Events are named as in Redis 7.0 and sampled where the same thing
 * happens here (hooks: latency.h):
 *   command, fast-command    call(): a command's run (CMD_FAST ones apart)
 *   fork                     starting the BGSAVE or AOF rewrite child
 *   aof-write                every write of the AOF buffer, and one of
 *     aof-write-pending-fsync  a background fsync was running,
 *     aof-write-active-child   a fork child exists,
 *     aof-write-alone          neither
 *   aof-fsync-always         the fsync of appendfsync always
 *   aof-fstat                sizing the new base file after a rewrite
 *   aof-rename               renaming the rewritten file into place
 *   expire-cycle             one active expiry cycle
 *   eviction-cycle           one run of evictions, eviction-del one key
 *   rdb-unlink-temp-file     removing a killed BGSAVE child's file
 * (aof-rewrite-diff-write does not apply: the rewrite writes no diff, new
 * writes go to a new incremental file.)
 *
 * Design decisions:
 * - A series is a ring of 160 (time, ms) samples, one per second: samples
 *   in the same second keep the largest. Its all-time max survives the
 *   ring. Series live in a small array in order of first appearance (there
 *   are a dozen event names at most), so LATEST lists them in a stable
 *   order; RESET removes them.
 * - Replies are Redis's: LATEST [[event, time, latest ms, max ms] ...],
 *   HISTORY [[time, ms] ...] oldest first, RESET the number of series
 *   removed, GRAPH and DOCTOR a verbatim text. The texts of GRAPH and
 *   DOCTOR are ours (they are for people, not parsers).
 * - Times are unix seconds from time(): only read when a sample is kept.
 */
#include "server.h"
#include "bio.h"

#include <errno.h>

#define LATENCY_SERIES_LEN 160
#define LATENCY_GRAPH_WIDTH 50 /* characters of the longest bar */

typedef struct latencySample {
    long long time; /* unix seconds; 0: slot not used yet */
    long long ms;
} latencySample;

typedef struct latencySeries {
    char *event;
    int next; /* the slot the next second's sample goes to */
    long long max;
    latencySample samples[LATENCY_SERIES_LEN];
} latencySeries;

static struct {
    latencySeries **series;
    int count, cap;
} mon;

/* ---- the series -------------------------------------------------------------------------- */

static latencySeries *findSeries(const char *event) {
    for (int j = 0; j < mon.count; j++)
        if (!strcmp(mon.series[j]->event, event)) return mon.series[j];
    return NULL;
}

static latencySeries *createSeries(const char *event) {
    if (mon.count == mon.cap) {
        mon.cap = mon.cap ? mon.cap * 2 : 16;
        mon.series = zrealloc(mon.series, sizeof(latencySeries *) * (size_t)mon.cap);
    }
    latencySeries *s = zcalloc(sizeof(*s));
    s->event = zstrdup(event);
    mon.series[mon.count++] = s;
    return s;
}

static void freeSeriesAt(int j) {
    zfree(mon.series[j]->event);
    zfree(mon.series[j]);
    memmove(mon.series + j, mon.series + j + 1, sizeof(latencySeries *) * (size_t)(mon.count - j - 1));
    mon.count--;
}

static latencySample *newestSample(latencySeries *s) {
    return &s->samples[(s->next + LATENCY_SERIES_LEN - 1) % LATENCY_SERIES_LEN];
}

static void addSample(latencySeries *s, long long now, long long ms) {
    if (ms > s->max) s->max = ms;
    latencySample *last = newestSample(s);
    if (last->time == now) {
        if (ms > last->ms) last->ms = ms;
        return;
    }
    s->samples[s->next] = (latencySample){now, ms};
    s->next = (s->next + 1) % LATENCY_SERIES_LEN;
}

/* Hooks sit between a system call and the check of its errno: keep it. */
void latencyRecordSample(const char *event, long long ms) {
    if (server.latency_monitor_threshold <= 0 || ms < server.latency_monitor_threshold) return;
    latencyAddSample(event, ms);
}

void latencyAddSample(const char *event, long long ms) {
    int saved_errno = errno;
    latencySeries *s = findSeries(event);
    if (s == NULL) s = createSeries(event);
    addSample(s, (long long)time(NULL), ms);
    errno = saved_errno;
}

void latencyRecordAofWrite(long long ms) {
    if (ms < server.latency_monitor_threshold) return;
    int saved_errno = errno;
    const char *kind = bioPendingFsyncs() ? "aof-write-pending-fsync"
                       : hasActiveChildProcess() ? "aof-write-active-child"
                                                 : "aof-write-alone";
    latencyRecordSample(kind, ms);
    latencyRecordSample("aof-write", ms);
    errno = saved_errno;
}

/* The used slots of a series, oldest first; returns how many. */
static int seriesSamples(latencySeries *s, latencySample out[LATENCY_SERIES_LEN]) {
    int n = 0;
    for (int j = 0; j < LATENCY_SERIES_LEN; j++) {
        latencySample *sample = &s->samples[(s->next + j) % LATENCY_SERIES_LEN];
        if (sample->time != 0) out[n++] = *sample;
    }
    return n;
}

/* ---- LATEST, HISTORY, RESET -------------------------------------------------------------- */

static void latencyLatest(client *c) {
    addReplyArrayLen(c, mon.count);
    for (int j = 0; j < mon.count; j++) {
        latencySeries *s = mon.series[j];
        latencySample *last = newestSample(s);
        addReplyArrayLen(c, 4);
        addReplyBulkCString(c, s->event);
        addReplyLongLong(c, last->time);
        addReplyLongLong(c, last->ms);
        addReplyLongLong(c, s->max);
    }
}

static void latencyHistory(client *c) {
    latencySeries *s = findSeries(c->argv[2]->ptr);
    if (s == NULL) {
        addReplyArrayLen(c, 0);
        return;
    }
    latencySample samples[LATENCY_SERIES_LEN];
    int n = seriesSamples(s, samples);
    addReplyArrayLen(c, n);
    for (int j = 0; j < n; j++) {
        addReplyArrayLen(c, 2);
        addReplyLongLong(c, samples[j].time);
        addReplyLongLong(c, samples[j].ms);
    }
}

static void latencyReset(client *c) {
    long long removed = 0;
    if (c->argc == 2) {
        removed = mon.count;
        while (mon.count) freeSeriesAt(mon.count - 1);
    }
    for (int j = 2; j < c->argc; j++) {
        for (int k = 0; k < mon.count; k++) {
            if (strcmp(mon.series[k]->event, c->argv[j]->ptr)) continue;
            freeSeriesAt(k);
            removed++;
            break;
        }
    }
    addReplyLongLong(c, removed);
}

/* ---- GRAPH: one horizontal bar per sample, oldest at the top ------------------------------ */

/* How long ago, in the largest unit that keeps it short: "now", "-42s", "-5m" ... */
static sds catAge(sds out, long long seconds) {
    if (seconds <= 0) return sdscat(out, "now");
    if (seconds < 120) return sdscatprintf(out, "-%llds", seconds);
    if (seconds < 7200) return sdscatprintf(out, "-%lldm", seconds / 60);
    if (seconds < 172800) return sdscatprintf(out, "-%lldh", seconds / 3600);
    return sdscatprintf(out, "-%lldd", seconds / 86400);
}

static sds renderGraph(latencySeries *s, const latencySample *samples, int n) {
    long long lo = samples[0].ms, hi = samples[0].ms, now = (long long)time(NULL);
    for (int j = 1; j < n; j++) {
        if (samples[j].ms < lo) lo = samples[j].ms;
        if (samples[j].ms > hi) hi = samples[j].ms;
    }
    sds out = sdscatprintf(sdsempty(), "%s: %d sample%s, %lld to %lld ms (largest ever %lld ms)\n", s->event, n,
                           n == 1 ? "" : "s", lo, hi, s->max);
    out = sdscat(out, "      age    latency\n");
    for (int j = 0; j < n; j++) {
        sds age = catAge(sdsempty(), now - samples[j].time);
        int bar = (int)(samples[j].ms * LATENCY_GRAPH_WIDTH / (hi ? hi : 1));
        out = sdscatprintf(out, "%9s %7lld ms |", age, samples[j].ms);
        for (int k = 0; k < (bar ? bar : 1); k++) out = sdscatlen(out, "#", 1);
        out = sdscatlen(out, "\n", 1);
        sdsfree(age);
    }
    return out;
}

static void latencyGraph(client *c) {
    latencySeries *s = findSeries(c->argv[2]->ptr);
    latencySample samples[LATENCY_SERIES_LEN];
    int n = s ? seriesSamples(s, samples) : 0;
    if (n == 0) {
        addReplyErrorFormat(c, "No samples available for event '%s'", (char *)c->argv[2]->ptr);
        return;
    }
    sds graph = renderGraph(s, samples, n);
    addReplyVerbatim(c, graph, sdslen(graph), "txt");
    sdsfree(graph);
}

/* ---- DOCTOR ---------------------------------------------------------------------------------- */

/* Advice per kind of event; an event matches the first entry its name starts with. */
static const struct {
    const char *prefix;
    const char *advice;
} doctor_advice[] = {
    {"fast-command", "Commands flagged fast (O(1) or O(log N)) were slow: look for very large values read or "
                     "written whole, and for a host that swaps or lends this process's CPU to others."},
    {"command", "Slow commands: SLOWLOG GET names them. O(N) commands over big collections (KEYS, SMEMBERS, "
                "HGETALL, LRANGE 0 -1, DEL of a huge key ...) block every other client while they run; prefer "
                "SCAN-style iteration and UNLINK."},
    {"fork", "Starting a BGSAVE or AOF rewrite child copies the page tables of the whole dataset: the bigger "
             "the dataset the longer it takes. Transparent huge pages and a busy or virtualised host make it worse."},
    {"aof-fsync-always", "appendfsync always waits for the disk on every write: appendfsync everysec trades at "
                         "most a second of writes for a steady latency."},
    {"aof-", "Writes to the append-only file were slow: the disk is slow or shared with other work (a rewrite "
             "child, another process). no-appendfsync-on-rewrite yes and a faster disk help."},
    {"expire-cycle", "The active expiry cycle was slow: many keys expiring at once, or large keys being freed; "
                     "spread expiry times and consider lazyfree-lazy-expire yes."},
    {"eviction-", "Evicting keys took long: large keys are costly to free (lazyfree-lazy-eviction yes), and a "
                  "server far above maxmemory evicts many keys in one go."},
    {"rdb-unlink-temp-file", "Deleting the unfinished snapshot of a stopped BGSAVE was slow: removing a large "
                             "file blocks on some file systems."},
};
#define DOCTOR_ADVICE_COUNT (sizeof doctor_advice / sizeof doctor_advice[0])

static int adviceFor(const char *event) {
    for (size_t j = 0; j < DOCTOR_ADVICE_COUNT; j++)
        if (!strncmp(event, doctor_advice[j].prefix, strlen(doctor_advice[j].prefix))) return (int)j;
    return -1;
}

/* One line of figures for an event: spikes, their mean and mean absolute
 * deviation, how often they came, the all-time max. */
static sds catEventSummary(sds out, int nth, latencySeries *s) {
    latencySample samples[LATENCY_SERIES_LEN];
    int n = seriesSamples(s, samples);
    long long sum = 0, dev = 0;
    for (int j = 0; j < n; j++) sum += samples[j].ms;
    long long avg = n ? sum / n : 0;
    for (int j = 0; j < n; j++) dev += samples[j].ms > avg ? samples[j].ms - avg : avg - samples[j].ms;
    out = sdscatprintf(out, "%d. %s: %d spike%s averaging %lld ms (mean deviation %lld ms)", nth, s->event, n,
                       n == 1 ? "" : "s", avg, n ? dev / n : 0);
    if (n > 1)
        out = sdscatprintf(out, ", one every %.1f s", (double)(samples[n - 1].time - samples[0].time) / (n - 1));
    return sdscatprintf(out, "; the worst ever took %lld ms.\n", s->max);
}

static sds renderDoctor(void) {
    if (mon.count == 0 && server.latency_monitor_threshold == 0)
        return sdsnew("The latency monitor is off (latency-monitor-threshold is 0), so there is nothing to "
                      "report. CONFIG SET latency-monitor-threshold <milliseconds> records every event slower "
                      "than that; see https://redis.io/topics/latency-monitor.\n");
    if (mon.count == 0)
        return sdscatprintf(sdsempty(), "No event went over the latency threshold of %lld ms. All clear.\n",
                            server.latency_monitor_threshold);
    sds out = sdscatprintf(sdsempty(), "Latency report: %d kind%s of event went over the threshold (%lld ms).\n\n",
                           mon.count, mon.count == 1 ? "" : "s", server.latency_monitor_threshold);
    char advised[DOCTOR_ADVICE_COUNT] = {0};
    for (int j = 0; j < mon.count; j++) {
        out = catEventSummary(out, j + 1, mon.series[j]);
        int a = adviceFor(mon.series[j]->event);
        if (a >= 0) advised[a] = 1;
    }
    out = sdscat(out, "\nWhat to look at:\n\n");
    for (size_t j = 0; j < DOCTOR_ADVICE_COUNT; j++)
        if (advised[j]) out = sdscatprintf(out, "- %s\n", doctor_advice[j].advice);
    if (server.latency_monitor_threshold > 0 && server.latency_monitor_threshold < 5)
        out = sdscat(out, "- A threshold under 5 ms also records ordinary scheduling noise of the host.\n");
    return out;
}

static void latencyDoctor(client *c) {
    sds report = renderDoctor();
    addReplyVerbatim(c, report, sdslen(report), "txt");
    sdsfree(report);
}

/* ---- LATENCY ------------------------------------------------------------------------------- */

static void latencyHelp(client *c) {
    static const char *help[] = {
        "DOCTOR",
        "    Return a human readable latency analysis report.",
        "GRAPH <event>",
        "    Return an ASCII latency graph for the <event> class.",
        "HISTORY <event>",
        "    Return time-latency samples for the <event> class.",
        "LATEST",
        "    Return the latest latency samples for all events.",
        "RESET [<event> ...]",
        "    Reset latency data of one or more <event> classes.",
        "    (default: reset all data for all event classes)",
        "HISTOGRAM [COMMAND ...]",
        "    Return a cumulative distribution of latencies in the format of a histogram for the specified command names.",
        "    If no commands are specified then all histograms are replied.",
        NULL};
    addReplyHelp(c, help);
}

/* Arity is checked by the command table (one entry per subcommand). */
void latencyCommand(client *c) {
    static const struct {
        const char *name;
        void (*fn)(client *c);
    } subs[] = {{"latest", latencyLatest},   {"history", latencyHistory}, {"reset", latencyReset},
                {"graph", latencyGraph},     {"doctor", latencyDoctor},   {"histogram", latencyHistogram},
                {"help", latencyHelp}};
    for (size_t j = 0; j < sizeof subs / sizeof subs[0]; j++) {
        if (!strcasecmp(c->argv[1]->ptr, subs[j].name)) {
            subs[j].fn(c);
            return;
        }
    }
    addReplySubcommandSyntaxError(c);
}
