/* replybuf.c -- the size of each client's inline reply buffer follows what
 * the client actually receives, as Redis 7 does it.
 *
 * A client starts with a 16 KB buffer (PROTO_REPLY_CHUNK_BYTES). Most
 * connections -- a script's INCR, a cache's small GETs -- never fill more
 * than a few hundred bytes of it, so on every clientsCron visit:
 *  - a buffer of 2 KB or more whose peak use stayed under half its size
 *    shrinks to the peak plus one byte, never under 1 KB;
 *  - a buffer that was filled completely (the rest of a reply went to the
 *    block list) doubles, back up to 16 KB.
 * The peak starts over every reply-buffer peak-reset-time (5 s by default),
 * so a client that once read one big reply does not keep a big buffer.
 *
 * Design decisions:
 *  - The peak costs nothing on the reply path: c->bufpos only grows until
 *    the buffer has been written out and is reset to 0, so noting bufpos at
 *    that reset (writeToClient) and taking the larger of that and the
 *    current bufpos gives the same peak as checking every append.
 *  - Resizing runs from the cron only, when no command is executing, so no
 *    pointer into the buffer can be held; the pending bytes (and how many of
 *    them were already sent) are copied as they are.
 *  - DEBUG REPLYBUFFER RESIZING <0|1> and PEAK-RESET-TIME <NEVER|RESET|ms>
 *    are Redis's test controls, with its replies.
 */
#include "server.h"

#define REPLY_BUFFER_MIN_BYTES 1024
#define REPLY_BUFFER_MAX_BYTES PROTO_REPLY_CHUNK_BYTES
#define REPLY_BUFFER_DEFAULT_PEAK_RESET_MS 5000

static int resizing_enabled = 1;
static long long peak_reset_ms = REPLY_BUFFER_DEFAULT_PEAK_RESET_MS; /* -1: never */

size_t replyBufferPeak(const client *c) { return c->buf_peak > c->bufpos ? c->buf_peak : c->bufpos; }

/* writeToClient() is about to reset bufpos to 0. */
void replyBufferNoteFlush(client *c) {
    if (c->bufpos > c->buf_peak) c->buf_peak = c->bufpos;
}

/* The new size, or 0 to keep it. Redis's rules and limits: shrink when
 * the peak stays under half a buffer of 2 KB or more; grow (double, up to
 * 16 KB) a buffer that was filled completely. */
static size_t replyBufferTarget(const client *c) {
    size_t peak = replyBufferPeak(c), size = c->buf_usable_size;
    if (size / 2 >= REPLY_BUFFER_MIN_BYTES && peak < size / 2)
        return peak + 1 > REPLY_BUFFER_MIN_BYTES ? peak + 1 : REPLY_BUFFER_MIN_BYTES;
    if (size < REPLY_BUFFER_MAX_BYTES && peak == size)
        return size * 2 < REPLY_BUFFER_MAX_BYTES ? size * 2 : REPLY_BUFFER_MAX_BYTES;
    return 0;
}

/* clientsCron: one visit. */
void replyBufferCron(client *c, long long now_ms) {
    if (!resizing_enabled || c->buf == NULL) return;
    size_t target = replyBufferTarget(c);
    if (peak_reset_ms >= 0 && now_ms - c->buf_peak_reset_ms >= peak_reset_ms) {
        c->buf_peak = c->bufpos;
        c->buf_peak_reset_ms = now_ms;
    }
    if (target == 0) return;
    if (target < c->buf_usable_size) server.stat_reply_buffer_shrinks++;
    else server.stat_reply_buffer_expands++;
    size_t usable;
    char *buf = zmalloc_usable(target, &usable);
    memcpy(buf, c->buf, c->bufpos);
    zfree(c->buf);
    c->buf = buf;
    c->buf_usable_size = usable;
}

void debugReplyBufferCommand(client *c) {
    const char *what = c->argv[2]->ptr, *arg = c->argv[3]->ptr;
    if (!strcasecmp(what, "resizing")) {
        resizing_enabled = atoi(arg) != 0;
    } else if (!strcasecmp(what, "peak-reset-time")) {
        long long ms;
        if (!strcasecmp(arg, "never")) ms = -1;
        else if (!strcasecmp(arg, "reset")) ms = REPLY_BUFFER_DEFAULT_PEAK_RESET_MS;
        else if (getLongLongFromObjectOrReply(c, c->argv[3], &ms, NULL) != C_OK) return;
        peak_reset_ms = ms;
    } else {
        addReplySubcommandSyntaxError(c);
        return;
    }
    addReply(c, shared.ok);
}

