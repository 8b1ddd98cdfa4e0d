/* latency.h -- the latency monitor's hooks and per-command latency tracking
 * (latency.c). Included at the end of server.h, so every server file can
 * place a hook without an include of its own.
 *
 * Monitor hooks, each one line where the code already knows a duration:
 *     LATENCY_SAMPLE("expire-cycle", elapsed_us / 1000);
 * or a pair around an operation that is not timed otherwise:
 *     LATENCY_START(lat);
 *     unlink(path);
 *     LATENCY_END("rdb-unlink-temp-file", lat);
 * With latency-monitor-threshold 0 (the default) a hook is one load and
 * one branch: no clock is read and nothing is called.
 */
#ifndef REDIS_LATENCY_H
#define REDIS_LATENCY_H

#include "server.h"
#include "lathist.h"
#include "monotonic.h"

/* The slow path of the hooks: records ms under event when it reaches the
 * threshold (event names are string literals, as in Redis). */
void latencyRecordSample(const char *event, long long ms);
/* Records ms under event whatever the threshold (a module's LatencyAddSample); event is copied. */
void latencyAddSample(const char *event, long long ms);

#define LATENCY_SAMPLE(event, ms)                                                 \
    do {                                                                          \
        if (server.latency_monitor_threshold) latencyRecordSample((event), (long long)(ms)); \
    } while (0)
#define LATENCY_START(var) long long var = server.latency_monitor_threshold ? monotonicUs() : -1
#define LATENCY_END(event, var)                                                   \
    do {                                                                          \
        if ((var) >= 0 && server.latency_monitor_threshold)                       \
            latencyRecordSample((event), (monotonicUs() - (var)) / 1000);         \
    } while (0)

/* The AOF write hook: "aof-write" plus the class of the write
 * ("aof-write-pending-fsync", "aof-write-active-child" or "aof-write-alone"). */
#define LATENCY_END_AOF_WRITE(var)                                                \
    do {                                                                          \
        if ((var) >= 0 && server.latency_monitor_threshold)                       \
            latencyRecordAofWrite((monotonicUs() - (var)) / 1000);                \
    } while (0)
void latencyRecordAofWrite(long long ms);

/* What call() does after each command: per-command tracking (a histogram
 * allocated on the command's first call, then only counter increments)
 * and the "command" / "fast-command" monitor events. A run that blocked
 * is left out (blocked.c takes its call back: calls did not move); the run
 * that serves it later counts. One a module blocked is tracked when the
 * module completes it (module_block.c), with its background time. */
static inline void latencyTrackCommand(redisCommand *cmd, long long us) {
    if (cmd->latency_histogram == NULL) cmd->latency_histogram = lathistCreate();
    uint64_t ns = (uint64_t)us < LATHIST_MAX / 1000 ? (uint64_t)us * 1000 : LATHIST_MAX;
    lathistRecord(cmd->latency_histogram, ns);
}

static inline void latencyAfterCall(client *c, redisCommand *cmd, long long us, long long calls_before) {
    if ((c->flags & CLIENT_BLOCKED) && (cmd->calls == calls_before || c->module_blocked)) return; /* counted when done */
    if (server.latency_tracking_enabled) latencyTrackCommand(cmd, us);
    LATENCY_SAMPLE((cmd->flags & CMD_FAST) ? "fast-command" : "command", us / 1000);
}

/* CONFIG RESETSTAT: every command's histogram goes (as in Redis, a command
 * is listed again once it is called again). */
void latencyResetCommandHistograms(void);

/* INFO latencystats: one latency_percentiles_usec_<command> line per
 * command with samples (nothing while latency-tracking is off). */
sds latencyCatInfoStats(sds info);

/* latency-tracking-info-percentiles, as config.c's special type wants it. */
int latencySetPercentilesConfig(sds *argv, int argc, int accumulate, sds *err);
sds latencyGetPercentilesConfig(sds out);
int latencyRewritePercentilesConfig(const char *name, sds **lines);

void latencyCommand(client *c);   /* latency.c */
void latencyHistogram(client *c); /* LATENCY HISTOGRAM, latency_tracking.c */

#endif /* REDIS_LATENCY_H */
