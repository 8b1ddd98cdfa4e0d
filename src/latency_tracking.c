/* latency_tracking.c -- per-command latency tracking (Redis 7.0): every
 * command's run time goes into a histogram of its own, reported as
 * percentiles by INFO latencystats and as a cumulative distribution by
 * LATENCY HISTOGRAM; CONFIG RESETSTAT drops them.
 *
 * Design decisions:
 * - The histogram is lathist.h's (log-linear, relative error under 1/128,
 *   1 ns .. 1 s, 24 KB). A command gets one on its first tracked call
 *   (latencyTrackCommand(), inline in latency.h, called by call()); after
 *   that a call costs a clamp, a bit scan and two increments, no
 *   allocation. Durations are call()'s microseconds, recorded as
 *   nanoseconds like Redis does, so the figures are the ones Redis prints:
 *   "p50=1.003" for a 1 us command.
 * - latency-tracking no stops recording and empties INFO latencystats, but
 *   keeps the histograms (LATENCY HISTOGRAM still shows them), as Redis.
 * - Output order is the command table's (INFO commandstats' order): a
 *   container command's subcommands follow it.
 * - latency-tracking-info-percentiles is validated as Redis does (each word
 *   a number, 0..100; "" for none) and printed with "%f" minus trailing
 *   zeros ("99.9", "10", "0.0001"), in CONFIG GET and in the INFO field names.
 */
#include "server.h"

#include <stdio.h>

static struct {
    double *values;
    int count;
} percentiles;

/* ---- walking the commands with a histogram ----------------------------------------------------- */

typedef void trackedCommandFn(redisCommand *cmd, void *ctx);

/* cmd if it has samples, then its subcommands. */
static void visitTracked(redisCommand *cmd, trackedCommandFn *fn, void *ctx) {
    if (cmd->latency_histogram) fn(cmd, ctx);
    if (cmd->subcommands_dict == NULL) return;
    for (redisCommand *sub = cmd->subcommands; sub && sub->declared_name; sub++) /* a module's have none */
        if (sub->fullname) visitTracked(sub, fn, ctx);
}

static void forEachTracked(trackedCommandFn *fn, void *ctx) {
    for (redisCommand *cmd = redisCommandTable; cmd->declared_name; cmd++)
        if (cmd->fullname && lookupCommandBySds(cmd->fullname) == cmd) visitTracked(cmd, fn, ctx);
    dictIterator *di = dictGetIterator(server.commands); /* then modules' commands (module.c) */
    dictEntry *de;
    while ((de = dictNext(di)) != NULL) {
        redisCommand *cmd = dictGetVal(de);
        if (cmd->module_cmd) visitTracked(cmd, fn, ctx);
    }
    dictReleaseIterator(di);
}

static void dropHistogram(redisCommand *cmd, void *ctx) {
    (void)ctx;
    lathistFree(cmd->latency_histogram);
    cmd->latency_histogram = NULL;
}

void latencyResetCommandHistograms(void) { forEachTracked(dropHistogram, NULL); }

/* ---- INFO latencystats ------------------------------------------------------------------------ */

/* "%f" without its trailing zeros (and without the point if nothing follows). */
static int formatPercentile(char *buf, size_t size, double p) {
    int len = snprintf(buf, size, "%f", p);
    if (len <= 0 || (size_t)len >= size || strchr(buf, '.') == NULL) return len;
    while (buf[len - 1] == '0') buf[--len] = '\0';
    if (buf[len - 1] == '.') buf[--len] = '\0';
    return len;
}

static void catPercentiles(redisCommand *cmd, void *ctx) {
    sds *info = ctx;
    sds safe = infoSafeName(cmd->fullname);
    *info = sdscatprintf(*info, "latency_percentiles_usec_%s:", safe);
    sdsfree(safe);
    for (int j = 0; j < percentiles.count; j++) {
        char name[128];
        formatPercentile(name, sizeof name, percentiles.values[j]);
        double usec = (double)lathistPercentile(cmd->latency_histogram, percentiles.values[j]) / 1000.0;
        *info = sdscatprintf(*info, "%sp%s=%.3f", j ? "," : "", name, usec);
    }
    *info = sdscatlen(*info, "\r\n", 2);
}

sds latencyCatInfoStats(sds info) {
    if (server.latency_tracking_enabled) forEachTracked(catPercentiles, &info);
    return info;
}

/* ---- LATENCY HISTOGRAM [command ...] ---------------------------------------------------------- */

typedef struct histogramReply {
    client *c;
    long entries;
} histogramReply;

/* name => {calls => N, histogram_usec => {upper edge in us => samples at or below}} */
static void replyHistogram(redisCommand *cmd, void *ctx) {
    histogramReply *r = ctx;
    client *c = r->c;
    lathistPoint points[LATHIST_MAX_POINTS];
    int n = lathistPowerOfTwoCdf(cmd->latency_histogram, 1024, points);
    addReplyBulkCBuffer(c, cmd->fullname, sdslen(cmd->fullname));
    addReplyMapLen(c, 2);
    addReplyBulkCString(c, "calls");
    addReplyLongLong(c, (long long)cmd->latency_histogram->total);
    addReplyBulkCString(c, "histogram_usec");
    addReplyMapLen(c, n);
    for (int j = 0; j < n; j++) {
        addReplyLongLong(c, (long long)(points[j].upper / 1000));
        addReplyLongLong(c, (long long)points[j].cumulative);
    }
    r->entries++;
}

void latencyHistogram(client *c) {
    histogramReply r = {c, 0};
    void *len = addReplyDeferredLen(c);
    if (c->argc == 2) forEachTracked(replyHistogram, &r);
    for (int j = 2; j < c->argc; j++) {
        if (!sdsEncodedObject(c->argv[j])) continue;
        redisCommand *cmd = lookupCommandByFullName(c->argv[j]->ptr);
        if (cmd) visitTracked(cmd, replyHistogram, &r);
    }
    setDeferredMapLen(c, len, r.entries);
}

/* ---- latency-tracking-info-percentiles ------------------------------------------------------- */

int latencySetPercentilesConfig(sds *argv, int argc, int accumulate, sds *err) {
    (void)accumulate;
    if (argc == 1 && sdslen(argv[0]) == 0) argc = 0; /* "" means none */
    double *values = argc ? zmalloc(sizeof(double) * (size_t)argc) : NULL;
    for (int j = 0; j < argc; j++) {
        const char *msg = NULL;
        if (!string2d(argv[j], sdslen(argv[j]), &values[j]))
            msg = "Invalid latency-tracking-info-percentiles parameters";
        else if (values[j] < 0.0 || values[j] > 100.0)
            msg = "latency-tracking-info-percentiles parameters should sit between [0.0,100.0]";
        if (msg) {
            zfree(values);
            *err = sdsnew(msg);
            return C_ERR;
        }
    }
    zfree(percentiles.values);
    percentiles.values = values;
    percentiles.count = argc;
    return C_OK;
}

sds latencyGetPercentilesConfig(sds out) {
    for (int j = 0; j < percentiles.count; j++) {
        char buf[128];
        formatPercentile(buf, sizeof buf, percentiles.values[j]);
        out = sdscatprintf(out, "%s%s", j ? " " : "", buf);
    }
    return out;
}

/* Unquoted numbers, or an explicit "" so the default does not come back. */
int latencyRewritePercentilesConfig(const char *name, sds **lines) {
    sds line = sdscatprintf(sdsempty(), "%s ", name);
    line = percentiles.count ? latencyGetPercentilesConfig(line) : sdscat(line, "\"\"");
    *lines = zmalloc(sizeof(sds));
    (*lines)[0] = line;
    return 1;
}
