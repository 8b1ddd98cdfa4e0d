/* reply.c -- building replies in a client's output buffers.
 *
 * A reply is appended to the client's fixed inline buffer (c->buf) while it
 * fits, then to a list of clientReplyBlocks; networking.c writes both out
 * after the event-loop pass. Nothing here touches a socket.
 *
 * RESP version differences live only here: null, maps, sets, doubles,
 * booleans, verbatim strings and push messages are written as RESP3 types
 * for HELLO 3 clients and as their RESP2 equivalents otherwise.
 *
 * Deferred lengths (for replies whose element count is known only at the
 * end, like KEYS): addReplyDeferredLen() appends an empty block to the reply
 * list and returns its node; setDeferred*Len() later fills in the header,
 * merging it into a neighbouring block when there is room so that many
 * deferred replies do not fragment the output into tiny writes. When the
 * header fits before the placeholder, the block after it (the reply's body)
 * is moved there too if it fits: pipelined replies built this way (XREAD,
 * GEOSEARCH ...) then share the inline buffer and go out in one write(2)
 * instead of one per block.
 */
#include "server.h"
#include "client_eviction.h"

#include <math.h>

/* ---- low level appends -------------------------------------------------------- */

/* CLIENT REPLY OFF/SKIP silence replies but not pushes (pub/sub messages
 * and subscription confirmations, sent with CLIENT_PUSHING set), as in Redis. */
static int clientIgnoresReplies(client *c) {
    if ((c->flags & (CLIENT_REPLY_OFF | CLIENT_REPLY_SKIP)) && !(c->flags & CLIENT_PUSHING)) return 1;
    if (c->flags & CLIENT_SCRIPT) return 0; /* a script reads its commands' replies (script_lua.c) */
    return c->flags & (CLIENT_CLOSE_AFTER_REPLY | CLIENT_CLOSE_ASAP) || c->conn == NULL;
}

/* Registers the client for the write pass in beforeSleep(), once. */
static void markPendingWrite(client *c) {
    if (c->flags & (CLIENT_PENDING_WRITE | CLIENT_SCRIPT)) return;
    if (clientHasPendingReplies(c)) return; /* already queued or handler installed */
    c->flags |= CLIENT_PENDING_WRITE;
    c->pending_write_node.value = c;
    listLinkNodeTail(server.clients_pending_write, &c->pending_write_node);
}

static size_t appendToInlineBuffer(client *c, const char *s, size_t len) {
    if (listLength(c->reply) > 0) return 0; /* order: once blocks exist, append there */
    size_t room = c->buf_usable_size - c->bufpos;
    size_t n = len < room ? len : room;
    memcpy(c->buf + c->bufpos, s, n);
    c->bufpos += n;
    return n;
}

static void appendToReplyList(client *c, const char *s, size_t len) {
    listNode *ln = listLast(c->reply);
    clientReplyBlock *tail = ln ? listNodeValue(ln) : NULL;
    if (tail && tail->size > tail->used) {
        size_t room = tail->size - tail->used;
        size_t n = len < room ? len : room;
        memcpy(tail->buf + tail->used, s, n);
        tail->used += n;
        s += n;
        len -= n;
    }
    if (len == 0) return;
    size_t want = len < PROTO_REPLY_CHUNK_BYTES ? PROTO_REPLY_CHUNK_BYTES : len;
    size_t usable;
    clientReplyBlock *block = zmalloc_usable(want + sizeof(clientReplyBlock), &usable);
    block->size = usable - sizeof(clientReplyBlock);
    block->used = len;
    memcpy(block->buf, s, len);
    listAddNodeTail(c->reply, block);
    c->reply_bytes += block->size;
    clientMemoryChanged(c); /* O(1); eviction itself waits for a safe point */
    closeClientOnOutputBufferLimitReached(c);
}

/* Everything a (fake) client's buffers hold, as one string, and the
 * buffers emptied: how scripts and modules read what a command they ran
 * replied. */
sds replyTakeAll(client *c) {
    sds reply = sdsnewlen(c->buf, c->bufpos);
    c->bufpos = 0;
    while (listLength(c->reply)) {
        listNode *ln = listFirst(c->reply);
        clientReplyBlock *b = listNodeValue(ln);
        reply = sdscatlen(reply, b->buf, b->used);
        listDelNode(c->reply, ln);
    }
    c->reply_bytes = 0;
    return reply;
}

/* A replica's link carries the replication stream only. A command the
 * replica itself sent (other than REPLCONF, SYNC and PSYNC, which speak
 * the protocol) that would put a reply on it -- its bytes would land in
 * the middle of the stream -- closes the link instead, with Redis
 * 7.0.15's line. Our stream to a replica also goes through addReplyProto,
 * but never while that replica's own command runs (current_client). */
static int replicaReplyRefused(client *c) {
    if (!(c->flags & CLIENT_SLAVE) || (c->flags & CLIENT_MONITOR) || c != server.current_client || c->cmd == NULL)
        return 0;
    if (c->cmd->proc == replconfCommand || c->cmd->proc == syncCommand) return 0;
    if (c->flags & CLIENT_CLOSE_ASAP) return 1; /* refused already */
    sds info = catClientInfoString(sdsempty(), c);
    serverLog(LL_WARNING, "Replica generated a reply to command '%s', disconnecting it: %s",
              c->lastcmd ? c->lastcmd->fullname : "<unknown>", info);
    sdsfree(info);
    freeClientAsync(c);
    return 1;
}

/* Whether a reply to c is dropped. Every reply asks, so the common case
 * -- none of the flags either test looks at, a connection -- answers from
 * one mask test without calling them (a publish to 10 subscribers asks
 * 10 times: the calls were 3% of its instructions, make bench-gate). */
#define REPLY_DROP_FLAGS \
    (CLIENT_REPLY_OFF | CLIENT_REPLY_SKIP | CLIENT_CLOSE_AFTER_REPLY | CLIENT_CLOSE_ASAP | CLIENT_SLAVE)
static inline int replyDropped(client *c) {
    if (!(c->flags & REPLY_DROP_FLAGS) && c->conn != NULL) return 0;
    return clientIgnoresReplies(c) || replicaReplyRefused(c);
}

void addReplyProto(client *c, const char *s, size_t len) {
    if (replyDropped(c)) return;
    markPendingWrite(c);
    size_t done = appendToInlineBuffer(c, s, len);
    if (done < len) appendToReplyList(c, s + done, len - done);
}

/* "<prefix><ll>\r\n" using the shared headers for small counts. */
static void addReplyLongLongWithPrefix(client *c, long long ll, char prefix) {
    robj **sharedhdr = NULL;
    if (prefix == '*') sharedhdr = shared.mbulkhdr;
    else if (prefix == '$') sharedhdr = shared.bulkhdr;
    else if (prefix == '%') sharedhdr = shared.maphdr;
    else if (prefix == '~') sharedhdr = shared.sethdr;
    if (sharedhdr && ll >= 0 && ll < PROTO_SHARED_BULKHDR_LEN) {
        addReplyProto(c, sharedhdr[ll]->ptr, sdslen(sharedhdr[ll]->ptr));
        return;
    }
    char buf[LONG_STR_SIZE + 4];
    buf[0] = prefix;
    int len = ll2string(buf + 1, sizeof(buf) - 1, ll);
    buf[len + 1] = '\r';
    buf[len + 2] = '\n';
    addReplyProto(c, buf, (size_t)len + 3);
}

/* ---- objects and strings --------------------------------------------------------- */

void addReply(client *c, robj *obj) {
    if (sdsEncodedObject(obj)) {
        addReplyProto(c, obj->ptr, sdslen(obj->ptr));
    } else if (obj->encoding == OBJ_ENCODING_INT) {
        char buf[LONG_STR_SIZE];
        int len = ll2string(buf, sizeof buf, (long)(intptr_t)obj->ptr);
        addReplyProto(c, buf, (size_t)len);
    } else {
        serverPanic("addReply: wrong object encoding %d", obj->encoding);
    }
}

void addReplyOrNull(client *c, robj *reply) {
    if (reply) addReply(c, reply);
    else addReplyNull(c);
}

void addReplyStatusLength(client *c, const char *s, size_t len) {
    addReplyProto(c, "+", 1);
    addReplyProto(c, s, len);
    addReplyProto(c, "\r\n", 2);
}

void addReplyStatus(client *c, const char *status) { addReplyStatusLength(c, status, strlen(status)); }

/* The commonest reply of all (GET of a short value) in one append: a short
 * bulk that fits the inline buffer is copied there with its header and
 * CRLF at once, instead of three appends each checking the same state. */
static int addReplyShortBulkInline(client *c, const void *p, size_t len) {
    if (len >= PROTO_SHARED_BULKHDR_LEN || listLength(c->reply) > 0 || clientIgnoresReplies(c)) return 0;
    const sds hdr = shared.bulkhdr[len]->ptr;
    size_t hdrlen = sdslen(hdr), total = hdrlen + len + 2;
    if (c->buf_usable_size - c->bufpos < total) return 0;
    markPendingWrite(c);
    char *dst = c->buf + c->bufpos;
    memcpy(dst, hdr, hdrlen);
    memcpy(dst + hdrlen, p, len);
    memcpy(dst + hdrlen + len, "\r\n", 2);
    c->bufpos += total;
    return 1;
}

void addReplyBulkCBuffer(client *c, const void *p, size_t len) {
    if (addReplyShortBulkInline(c, p, len)) return;
    addReplyLongLongWithPrefix(c, (long long)len, '$');
    addReplyProto(c, p, len);
    addReplyProto(c, "\r\n", 2);
}

void addReplyBulk(client *c, robj *obj) {
    if (sdsEncodedObject(obj)) {
        addReplyBulkCBuffer(c, obj->ptr, sdslen(obj->ptr));
    } else {
        char buf[LONG_STR_SIZE];
        int len = ll2string(buf, sizeof buf, (long)(intptr_t)obj->ptr);
        addReplyBulkCBuffer(c, buf, (size_t)len);
    }
}

void addReplyBulkSds(client *c, sds s) {
    addReplyBulkCBuffer(c, s, sdslen(s));
    sdsfree(s);
}

void addReplyBulkCString(client *c, const char *s) {
    if (s == NULL) addReplyNull(c);
    else addReplyBulkCBuffer(c, s, strlen(s));
}

void addReplyBulkLongLong(client *c, long long ll) {
    char buf[LONG_STR_SIZE];
    int len = ll2string(buf, sizeof buf, ll);
    addReplyBulkCBuffer(c, buf, (size_t)len);
}

void addReplyLongLong(client *c, long long ll) {
    if (ll == 0) addReply(c, shared.czero);
    else if (ll == 1) addReply(c, shared.cone);
    else addReplyLongLongWithPrefix(c, ll, ':');
}

/* RESP3 verbatim string ("=len\r\ntxt:...") or a plain bulk in RESP2. */
void addReplyVerbatim(client *c, const char *s, size_t len, const char *ext) {
    if (c->resp == 2) {
        addReplyBulkCBuffer(c, s, len);
        return;
    }
    char hdr[32];
    int n = snprintf(hdr, sizeof hdr, "=%zu\r\n%.3s:", len + 4, ext);
    addReplyProto(c, hdr, (size_t)n);
    addReplyProto(c, s, len);
    addReplyProto(c, "\r\n", 2);
}

/* Scores and floats: "%.17g", with RESP3's inf/-inf spelling. */
void addReplyDouble(client *c, double d) {
    char dbuf[MAX_D2STRING_CHARS];
    int dlen = d2string(dbuf, sizeof dbuf, d);
    if (c->resp == 2) {
        addReplyBulkCBuffer(c, dbuf, (size_t)dlen);
        return;
    }
    addReplyProto(c, ",", 1);
    addReplyProto(c, dbuf, (size_t)dlen);
    addReplyProto(c, "\r\n", 2);
}

void addReplyBigNum(client *c, const char *num, size_t len) {
    if (c->resp == 2) {
        addReplyBulkCBuffer(c, num, len);
        return;
    }
    addReplyProto(c, "(", 1);
    addReplyProto(c, num, len);
    addReplyProto(c, "\r\n", 2);
}

/* ---- aggregates and nulls ---------------------------------------------------------- */

void addReplyArrayLen(client *c, long length) { addReplyLongLongWithPrefix(c, length, '*'); }

void addReplyMapLen(client *c, long length) {
    if (c->resp == 2) addReplyLongLongWithPrefix(c, length * 2, '*');
    else addReplyLongLongWithPrefix(c, length, '%');
}

void addReplySetLen(client *c, long length) {
    addReplyLongLongWithPrefix(c, length, c->resp == 2 ? '*' : '~');
}

void addReplyPushLen(client *c, long length) {
    addReplyLongLongWithPrefix(c, length, c->resp == 2 ? '*' : '>');
}

void addReplyNull(client *c) {
    if (c->resp == 2) addReplyProto(c, "$-1\r\n", 5);
    else addReplyProto(c, "_\r\n", 3);
}

void addReplyNullArray(client *c) {
    if (c->resp == 2) addReplyProto(c, "*-1\r\n", 5);
    else addReplyProto(c, "_\r\n", 3);
}

void addReplyBool(client *c, int b) {
    if (c->resp == 2) addReply(c, b ? shared.cone : shared.czero);
    else addReplyProto(c, b ? "#t\r\n" : "#f\r\n", 4);
}

/* ---- deferred lengths ----------------------------------------------------------- */

void *addReplyDeferredLen(client *c) {
    if (replyDropped(c)) return NULL;
    markPendingWrite(c);
    /* An empty block marks the place; its size 0 keeps appends away from it. */
    clientReplyBlock *placeholder = zmalloc(sizeof(clientReplyBlock));
    placeholder->size = placeholder->used = 0;
    /* From now on appendToInlineBuffer() refuses data (the list is not
     * empty), so everything added later lands after the placeholder. */
    listAddNodeTail(c->reply, placeholder);
    return listLast(c->reply);
}

/* Appends to what comes before list node `prev` -- the inline buffer when
 * `prev` is NULL (the placeholder was the list's first node), else that
 * block -- if it has room for all `len` bytes. Returns 1 if it did. */
static int appendBefore(client *c, listNode *prev, const char *s, size_t len) {
    char *dst;
    if (prev == NULL) {
        if (c->buf_usable_size - c->bufpos < len) return 0;
        dst = c->buf + c->bufpos;
        c->bufpos += len;
    } else {
        clientReplyBlock *block = listNodeValue(prev);
        if (block->size - block->used < len) return 0;
        dst = block->buf + block->used;
        block->used += len;
    }
    memcpy(dst, s, len);
    return 1;
}

/* After a placeholder between `prev` and `next` is gone: moves the block
 * `next` into the spare room before it when it fits, so one deferred reply
 * does not leave its header and its body in separate blocks (each would be
 * a write(2) of its own). An unfilled placeholder is left where it is. */
static void foldIntoPrevious(client *c, listNode *prev, listNode *next) {
    clientReplyBlock *block = listNodeValue(next);
    if (block->size == 0 || !appendBefore(c, prev, block->buf, block->used)) return;
    c->reply_bytes -= block->size;
    listDelNode(c->reply, next); /* the list's free method frees the block */
    clientMemoryChanged(c);
}

/* Fills a placeholder with `hdr`: into the spare room before it (the inline
 * buffer or the previous block) if it fits, then folding the block after it
 * in as well; else the next block's front if it has room; else a new block. */
static void setDeferredReply(client *c, listNode *node, const char *hdr, size_t len) {
    listNode *prev = listPrevNode(node), *next = listNextNode(node);
    if (appendBefore(c, prev, hdr, len)) {
        listDelNode(c->reply, node); /* the list's free method frees the placeholder */
        if (next) foldIntoPrevious(c, prev, next);
        return;
    }
    clientReplyBlock *next_block = next ? listNodeValue(next) : NULL;
    if (next_block && next_block->size - next_block->used >= len && next_block->used < PROTO_REPLY_CHUNK_BYTES / 4) {
        memmove(next_block->buf + len, next_block->buf, next_block->used);
        memcpy(next_block->buf, hdr, len);
        next_block->used += len;
        listDelNode(c->reply, node); /* the list's free method frees the placeholder */
        return;
    }
    clientReplyBlock *old = listNodeValue(node);
    size_t usable;
    clientReplyBlock *block = zmalloc_usable(len + sizeof(clientReplyBlock), &usable);
    block->size = usable - sizeof(clientReplyBlock);
    block->used = len;
    memcpy(block->buf, hdr, len);
    listNodeValue(node) = block;
    c->reply_bytes += block->size;
    zfree(old);
    closeClientOnOutputBufferLimitReached(c);
}

static void setDeferredAggregateLen(client *c, void *node, long length, char prefix) {
    if (node == NULL) return; /* the client ignores replies */
    char hdr[LONG_STR_SIZE + 3];
    hdr[0] = prefix;
    int n = ll2string(hdr + 1, sizeof(hdr) - 1, length);
    hdr[n + 1] = '\r';
    hdr[n + 2] = '\n';
    setDeferredReply(c, node, hdr, (size_t)n + 3);
}

void setDeferredArrayLen(client *c, void *node, long length) { setDeferredAggregateLen(c, node, length, '*'); }

void setDeferredMapLen(client *c, void *node, long length) {
    if (c->resp == 2) setDeferredAggregateLen(c, node, length * 2, '*');
    else setDeferredAggregateLen(c, node, length, '%');
}

void setDeferredSetLen(client *c, void *node, long length) {
    setDeferredAggregateLen(c, node, length, c->resp == 2 ? '*' : '~');
}

/* RESP3 only: an attribute's pairs. */
void setDeferredAttributeLen(client *c, void *node, long length) { setDeferredAggregateLen(c, node, length, '|'); }

/* ---- errors ----------------------------------------------------------------------- */

/* An error sent to our master (we are its replica), to a replica, or to
 * the AOF being loaded means the two copies of the data may now differ:
 * as in Redis it is logged, counted (INFO unexpected_error_replies) and,
 * as propagation-error-behavior says, the server panics -- a replica only
 * when it is read-only (a writable one may legitimately fail commands). */
static void reportUnexpectedError(client *c, const char *s, size_t len) {
    int from_master = (c->flags & CLIENT_MASTER) != 0, to_replica = (c->flags & CLIENT_SLAVE) != 0;
    const char *who = from_master ? "replica" : to_replica ? "master" : "server";
    const char *peer = from_master ? "master" : to_replica ? "replica" : "AOF";
    const char *cmdname = c->lastcmd ? c->lastcmd->fullname : "<unknown>";
    serverLog(LL_WARNING, "== CRITICAL == This %s is sending an error to its %s: '%.*s' after processing the command '%s'",
              who, peer, (int)len, s, cmdname);
    server.stat_unexpected_error_replies++;
    int behavior = server.propagation_error_behavior;
    int panic_replica = from_master && server.repl_slave_ro && behavior != PROPAGATION_ERR_IGNORE;
    int panic_aof = !from_master && !to_replica && behavior == PROPAGATION_ERR_PANIC;
    if (panic_replica || panic_aof)
        serverPanic("This %s panicked sending an error to its %s after processing the command '%s'", who, peer, cmdname);
}

/* Every error reply passes here, as the text the caller gave: either a
 * message ("value is ...", code ERR) or "-CODE message". Counted per error
 * code for INFO errorstats.
 * A module's client (a Call's, a thread-safe context's) keeps its errors
 * uncounted instead, as Redis 7.0 does: a Call's error is the module's to
 * handle, and counts only if the module passes it on to a real client
 * (ReplyWithCallReply: replyCountDeferredErrors); a thread replying to a
 * blocked client has its errors counted by the main thread when the reply
 * reaches the client (the counters are not the thread's to touch). */
static void freeErrorText(void *text) { sdsfree(text); }

/* Appends an uncounted error (text as afterErrorReply takes it) to *errors,
 * made on first use: a module client's list, or a Call reply's. */
void replyDeferError(list **errors, const char *text, size_t len) {
    if (*errors == NULL) {
        *errors = listCreate();
        listSetFreeMethod(*errors, freeErrorText);
    }
    listAddNodeTail(*errors, sdsnewlen(text, len));
}

static void afterErrorReply(client *c, const char *text, size_t len) {
    if (c->flags & CLIENT_MODULE) {
        replyDeferError(&c->deferred_errors, text, len);
        return;
    }
    server.stat_total_error_replies++;
    if (text[0] == '-') {
        size_t code_len = 0;
        while (code_len + 1 < len && text[code_len + 1] != ' ' && text[code_len + 1] != '\r') code_len++;
        incrementErrorCount(text + 1, code_len);
    } else {
        incrementErrorCount("ERR", 3);
    }
    int loading_aof = (c->flags & (CLIENT_FAKE | CLIENT_SCRIPT)) == CLIENT_FAKE;
    if (c->flags & (CLIENT_MASTER | CLIENT_SLAVE) || loading_aof) reportUnexpectedError(c, text, len > 4096 ? 4096 : len);
}

/* The errors a module's client kept (afterErrorReply) reach c with their
 * reply: counted now, as c's (or kept again, when c is a module's too). */
void replyCountDeferredErrors(client *c, list *errors) {
    if (errors == NULL) return;
    listIter li;
    listNode *ln;
    listRewind(errors, &li);
    while ((ln = listNext(&li))) {
        sds text = listNodeValue(ln);
        afterErrorReply(c, text, sdslen(text));
    }
}

/* Sends "-<err>\r\n", prefixing "ERR " unless the message has its own code.
 * Newlines inside the message would break the protocol: they become spaces. */
static void addReplyErrorLength(client *c, const char *s, size_t len) {
    if (len == 0 || s[0] != '-') addReplyProto(c, "-ERR ", 5);
    addReplyProto(c, s, len);
    addReplyProto(c, "\r\n", 2);
}

static sds sanitizeErrorText(sds err) {
    for (size_t i = 0; i < sdslen(err); i++)
        if (err[i] == '\r' || err[i] == '\n') err[i] = ' ';
    return err;
}

void addReplyError(client *c, const char *err) {
    size_t len = strlen(err);
    addReplyErrorLength(c, err, len);
    afterErrorReply(c, err, len);
}

void addReplyErrorSds(client *c, sds err) {
    err = sanitizeErrorText(err);
    addReplyError(c, err);
    sdsfree(err);
}

void addReplyErrorFormat(client *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    sds s = sdscatvprintf(sdsempty(), fmt, ap);
    va_end(ap);
    addReplyErrorSds(c, s);
}

/* Shared error objects hold the full "-CODE message\r\n" text. */
void addReplyErrorObject(client *c, robj *err) {
    addReply(c, err);
    afterErrorReply(c, err->ptr, sdslen(err->ptr) - 2);
}

void addReplyErrorArity(client *c) {
    addReplyErrorFormat(c, "wrong number of arguments for '%s' command", c->cmd->fullname);
}

void addReplyErrorExpireTime(client *c) {
    addReplyErrorFormat(c, "invalid expire time in '%s' command", c->cmd->fullname);
}

void addReplySubcommandSyntaxError(client *c) {
    sds cmd = sdsnew((char *)c->argv[0]->ptr);
    sdstoupper(cmd);
    addReplyErrorFormat(c, "unknown subcommand or wrong number of arguments for '%.128s'. Try %s HELP.",
                        (char *)c->argv[1]->ptr, cmd);
    sdsfree(cmd);
}

/* HELP replies: "<CMD> <subcommand> ... Subcommands are:", the given lines,
 * and the standard HELP entry, as status replies in one array. */
void addReplyHelp(client *c, const char **help) {
    sds cmd = sdsnew((char *)c->argv[0]->ptr);
    sdstoupper(cmd);
    long lines = 0;
    while (help[lines]) lines++;
    addReplyArrayLen(c, lines + 3);
    sds head = sdscatprintf(sdsempty(), "%s <subcommand> [<arg> [value] [opt] ...]. Subcommands are:", cmd);
    addReplyStatusLength(c, head, sdslen(head));
    for (long i = 0; i < lines; i++) addReplyStatus(c, help[i]);
    addReplyStatus(c, "HELP");
    addReplyStatus(c, "    Prints this help.");
    sdsfree(head);
    sdsfree(cmd);
}
