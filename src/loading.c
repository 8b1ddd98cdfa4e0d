/* loading.c -- a dataset load in progress: the RDB at start-up, the AOF
 * files (an RDB base included), DEBUG RELOAD and DEBUG LOADAOF.
 *
 * The loaders (rdb.c, aof_load.c) say where they are; this file keeps the
 * state INFO shows (loading:1 and the loading_* fields, Redis 7.0's names
 * and formats), logs the progress of long loads, and keeps the server
 * answering while it loads: clients connect, commands flagged "loading"
 * (INFO, CONFIG GET, ...) run and every other one gets -LOADING, which
 * processCommand() decides from server.loading.
 *
 * Design decisions:
 * - Clients are served between two keys (or two AOF commands) and when the
 *   RDB reader refills its buffer, never inside a change of the keyspace:
 *   a value being built is not in the dataset yet, so what a client sees
 *   is consistent. Served when ~2 ms passed or when
 *   loading-process-events-interval-bytes (Redis's knob, 2 MB) were read
 *   since the last time, whichever comes first; the clock is read only
 *   every few calls.
 * - A pass serves file events only (accepts, reads, writes), then what
 *   Redis's processEventsWhileBlocked does before sleeping: the AOF
 *   buffer, the pending replies, the clients closed meanwhile. Timers
 *   (cron, expiry, save rules) wait for the end of the load.
 * - The client whose command runs the load (DEBUG RELOAD / LOADAOF) is
 *   protected for its duration: its input is not read, so no second
 *   command of it starts inside the first, and it is not freed (CLIENT
 *   KILL, a closed socket) until the command is over.
 * - What could change the data being loaded is refused elsewhere while
 *   server.loading: commands without the "loading" flag (EXEC too when it
 *   queued one), evictions (evict.c), DEBUG RELOAD/LOADAOF/POPULATE
 *   (debug.c), a save on SHUTDOWN or SIGTERM (a shutdown then never
 *   writes a half-loaded dataset, as in Redis).
 * - Async loading (a replica's swapdb full sync, replica.c): the loader
 *   builds the new dataset while clients are served the old one. The
 *   loader installs a swap function (loadingServeSwapped) that puts the
 *   old dataset in place for the duration of each pass and the new one
 *   back after it, so neither the loader nor the commands need to know
 *   which dataset is the "other" one; processCommand() then refuses only
 *   the commands flagged no_async_loading (server.async_loading).
 */
#include "server.h"

#include <time.h>

#define LOADING_CLOCK_EVERY 16          /* calls between two clock reads */
#define LOADING_SERVE_EVERY_US 2000     /* serve clients at least this often */
#define LOADING_LOG_EVERY_MS 2000       /* a progress line this often, for long loads */

static struct {
    const char *what;            /* "RDB" or "AOF", for the progress log */
    time_t start_time;           /* loading_start_time */
    long long start_ms;
    off_t total_bytes;           /* loading_total_bytes */
    off_t file_start;            /* where the current file begins in the total */
    off_t loaded_bytes;          /* loading_loaded_bytes */
    long long rdb_used_mem;      /* loading_rdb_used_mem: the RDB's used-mem AUX field */
    long long keys_loaded;       /* rdb_last_load_keys_loaded (also after the load) */
    long long keys_expired;      /* rdb_last_load_keys_expired */
    unsigned calls;
    off_t bytes_at_serve;
    long long last_serve_us, last_log_ms;
    client *running;             /* the client whose command loads, protected */
    int in_rdb;                  /* an RDB is being parsed (an AOF's preamble too): modules' progress says RDB */
    long long next_progress_us;  /* modules' LoadingProgress event: at most hz a second */
    loadingSwapFn *serve_swapped; /* async loading: called before and after each pass */
} loading;

/* ---- start and end ---------------------------------------------------------------------- */

void loadingStart(off_t total_bytes, const char *what) {
    serverAssert(!server.loading);
    server.loading = 1;
    loading.what = what;
    loading.start_time = time(NULL);
    loading.start_ms = mstime();
    loading.total_bytes = total_bytes;
    loading.file_start = loading.loaded_bytes = loading.bytes_at_serve = 0;
    loading.rdb_used_mem = 0;
    loading.keys_loaded = loading.keys_expired = 0;
    loading.calls = 0;
    loading.last_serve_us = monotonicUs();
    loading.last_log_ms = loading.start_ms;
    loading.running = server.current_client;
    loading.in_rdb = strcmp(what, "AOF") != 0;
    loading.next_progress_us = 0;
    if (loading.running) protectClient(loading.running);
    moduleFireLoading(0, !strcmp(what, "AOF")); /* modules' Loading event (module_events.c) */
}

void loadingEnd(void) {
    server.loading = 0;
    loading.serve_swapped = NULL;
    moduleFireLoading(1, 0);
    if (loading.running) unprotectClient(loading.running);
    loading.running = NULL;
}

/* The next file (of the AOF's base and incrementals) starts at this
 * offset of the total. */
void loadingFileStart(off_t bytes_before) { loading.file_start = loading.loaded_bytes = bytes_before; }

/* A replica's diskless load (replica.c): the size of the payload it
 * parses, once the header told it (0 for "$EOF:" framing). */
void loadingParseStart(off_t total_bytes) {
    loading.total_bytes = total_bytes;
    loading.file_start = loading.loaded_bytes = loading.bytes_at_serve = 0;
}

void loadingSetRdbUsedMem(long long bytes) { loading.rdb_used_mem = bytes; }

void loadingCountKey(int expired) {
    if (expired) loading.keys_expired++;
    else loading.keys_loaded++;
}

/* key-load-delay, for tests: microseconds of sleep per key or command
 * loaded; -N sleeps 1 us after one in N on average (Redis's semantics). */
void loadingKeyDelay(void) {
    int d = server.key_load_delay;
    if (d > 0) usleep((useconds_t)d);
    else if (d < 0 && rand() % -(long long)d == 0) usleep(1);
}

/* ---- serving clients meanwhile ---------------------------------------------------------- */

/* Of the total when known, else (a replica's "$EOF:" payload) of the
 * RDB's used-mem field, else 0, as Redis counts it. */
static off_t expectedBytes(void) { return loading.total_bytes ? loading.total_bytes : (off_t)loading.rdb_used_mem; }

static double loadedPercent(void) {
    off_t expected = expectedBytes();
    return expected ? (double)loading.loaded_bytes / (double)(expected + 1) * 100 : 0.0;
}

static void logProgressIfDue(void) {
    long long now = mstime();
    if (now - loading.last_log_ms < LOADING_LOG_EVERY_MS) return;
    loading.last_log_ms = now;
    if (loading.total_bytes == 0) /* a replica's "$EOF:" payload: its size is known at its end */
        serverLog(LL_NOTICE, "Loading the %s: %lld bytes so far", loading.what, (long long)loading.loaded_bytes);
    else
        serverLog(LL_NOTICE, "Loading the %s: %.1f%% (%lld of %lld bytes)", loading.what, loadedPercent(),
                  (long long)loading.loaded_bytes, (long long)loading.total_bytes);
}

/* fn (or NULL: none) exchanges the dataset being loaded with the one
 * clients are served, around each pass (async loading, see the header). */
void loadingServeSwapped(loadingSwapFn *fn) { loading.serve_swapped = fn; }

int loadingEnterRdb(int in_rdb) {
    int was = loading.in_rdb;
    loading.in_rdb = in_rdb;
    return was;
}

/* Modules' LoadingProgress event, as Redis 7.0: at most server.hz times a
 * second, the progress in 1024ths of the expected bytes. */
static void fireProgressIfDue(void) {
    if (!moduleEventListeners) return;
    long long now = monotonicUs();
    if (now < loading.next_progress_us) return;
    loading.next_progress_us = now + 1000000 / (server.hz > 0 ? server.hz : 1);
    off_t expected = expectedBytes();
    int progress = expected > 0 ? (int)(((long long)loading.loaded_bytes << 10) / (long long)expected) : 0;
    moduleFireLoadingProgress(!loading.in_rdb, server.hz, progress);
}

/* One pass of the event loop without its timers, then what has to follow
 * it (Redis's processEventsWhileBlocked). The command running the load
 * stays the current client whatever the pass ran. */
static void serveClients(void) {
    fireProgressIfDue();
    if (loading.serve_swapped) loading.serve_swapped();
    client *running = server.current_client;
    updateCachedTime();
    aeProcessEvents(server.el, AE_FILE_EVENTS | AE_DONT_WAIT);
    shmRunWakes();                    /* shm handlers queued without a wake-up descriptor (connection_shm.c) */
    aofBeforeSleep();                 /* no reply goes out before the AOF has what it answers */
    handleClientsWithPendingWrites();
    freeClientsInAsyncFreeQueue();    /* the protected client stays queued */
    server.current_client = running;
    shutdownIfAsked();                /* SIGTERM: exits here, without saving */
    if (loading.serve_swapped) loading.serve_swapped();
}

/* The loader waits for its input (a replica's diskless load, between two
 * reads of its primary's link): a pass now. */
void loadingServeNow(void) {
    loading.last_serve_us = monotonicUs();
    loading.bytes_at_serve = loading.loaded_bytes;
    logProgressIfDue();
    serveClients();
}

/* The loader consumed file_offset bytes of the current file. */
void loadingProgress(off_t file_offset) {
    loading.loaded_bytes = loading.file_start + file_offset;
    int by_bytes = loading.loaded_bytes - loading.bytes_at_serve >= (off_t)server.loading_process_events_interval_bytes;
    if (!by_bytes && ++loading.calls % LOADING_CLOCK_EVERY != 0 && server.key_load_delay == 0) return;
    long long now = monotonicUs();
    if (!by_bytes && now - loading.last_serve_us < LOADING_SERVE_EVERY_US) return;
    loading.last_serve_us = now;
    loading.bytes_at_serve = loading.loaded_bytes;
    logProgressIfDue();
    serveClients();
}

/* ---- INFO persistence ------------------------------------------------------------------- */

sds loadingLastLoadInfo(sds info) {
    return sdscatprintf(info,
                        "rdb_last_load_keys_expired:%lld\r\n"
                        "rdb_last_load_keys_loaded:%lld\r\n",
                        loading.keys_expired, loading.keys_loaded);
}

/* The loading_* fields, while loading: Redis's names, formats and sums
 * (its ETA is elapsed seconds times the bytes left over those done, and a
 * fake 1 in the first second). */
sds loadingInfoString(sds info) {
    if (!server.loading) return info;
    long long elapsed = (long long)(time(NULL) - loading.start_time);
    long long remaining = (long long)(expectedBytes() - loading.loaded_bytes);
    if (remaining < 0) remaining = 0;
    long long eta = elapsed == 0 ? 1 : elapsed * remaining / ((long long)loading.loaded_bytes + 1);
    return sdscatprintf(info,
                        "loading_start_time:%lld\r\n"
                        "loading_total_bytes:%lld\r\n"
                        "loading_rdb_used_mem:%lld\r\n"
                        "loading_loaded_bytes:%lld\r\n"
                        "loading_loaded_perc:%.2f\r\n"
                        "loading_eta_seconds:%lld\r\n",
                        (long long)loading.start_time, (long long)loading.total_bytes, loading.rdb_used_mem,
                        (long long)loading.loaded_bytes, loadedPercent(), eta);
}
