/* resp.c -- fuzz harness: the server's request parser (src/networking.c),
 * inline and multibulk, on arbitrary bytes.
 *
 * Why: it is the first code every byte from the network meets. The input
 * goes through processInputBuffer() -- the path readQueryFromClient() takes
 * after a read -- on a client with the default limits (proto-max-bulk-len
 * 512 MB, the 64 KB inline limit), so the multibulk fast path
 * (readPlainBulks), the general loop and the inline splitter all run. The
 * commands it parses are not run: fuzzCommandHook (fuzz_server.c) takes
 * each one instead of processCommand(), checks that every argument is a
 * string object, and records it.
 *
 * The oracle beyond the sanitizers: a request must parse the same however
 * the network splits it. Each input is fed twice, once whole and once in
 * pieces of 1 to 16 bytes (the size from byte 0), each piece followed by
 * processInputBuffer() as after a read; both must yield the same commands,
 * the same protocol-error outcome and the same unparsed rest.
 *
 * Byte 0: bits 0-3 the piece size - 1; bit 4 set: the client has not
 * authenticated yet (a requirepass is set), so the smaller limits for
 * unauthenticated clients apply (multibulk count, bulk length).
 */
#include "fuzz.h"
#include "fuzz_server.h"
#include "acl.h"

static sds transcript; /* the commands parsed so far: argc, then each argument's length and bytes */

static int recordCommand(client *c) {
    transcript = sdscatprintf(transcript, "%d:", c->argc);
    for (int j = 0; j < c->argc; j++) {
        robj *o = c->argv[j];
        FUZZ_CHECK(o != NULL && o->type == OBJ_STRING);
        robj *d = getDecodedObject(o);
        transcript = sdscatprintf(transcript, "%zu:", sdslen(d->ptr));
        transcript = sdscatlen(transcript, d->ptr, sdslen(d->ptr));
        decrRefCount(d);
    }
    addReply(c, shared.ok);
    return C_OK;
}

/* Feeds data in pieces of `piece` bytes (0: whole); returns the transcript,
 * with the client's final state appended. */
static sds parse(const uint8_t *data, size_t size, size_t piece, int authenticated) {
    client *c = createClient(NULL);
    clientSetAuthenticated(c, authenticated);
    transcript = sdsempty();
    size_t pos = 0;
    while (pos < size && !(c->flags & (CLIENT_CLOSE_AFTER_REPLY | CLIENT_CLOSE_ASAP))) {
        size_t n = piece && size - pos > piece ? piece : size - pos;
        c->querybuf = sdscatlen(c->querybuf, data + pos, n);
        pos += n;
        processInputBuffer(c);
    }
    int closed = (c->flags & CLIENT_CLOSE_AFTER_REPLY) != 0;
    transcript = sdscatprintf(transcript, "|closed=%d", closed);
    /* After a protocol error the rest is never read, so only a clean run's
     * leftover (an incomplete request) has to match. */
    if (!closed) {
        transcript = sdscatprintf(transcript, "|left=%zu|args=%d|", sdslen(c->querybuf), c->argc);
        transcript = sdscatlen(transcript, c->querybuf, sdslen(c->querybuf));
    }
    freeClient(c);
    sds t = transcript;
    transcript = NULL;
    return t;
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    fuzzServerInit();
    fuzzCommandHook = recordCommand;
    server.requirepass = sdsnew("fuzz"); /* what `requirepass fuzz` sets */
    aclUpdateDefaultUserPassword();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    size_t piece = (size_t)(data[0] % 16) + 1;
    int authenticated = !(data[0] & 0x10);
    sds whole = parse(data + 1, size - 1, 0, authenticated);
    sds pieces = parse(data + 1, size - 1, piece, authenticated);
    if (sdscmp(whole, pieces) != 0) {
        fprintf(stderr, "whole:  %s\npieces: %s\n", whole, pieces);
        FUZZ_CHECK(!"the request parsed differently in pieces");
    }
    sdsfree(whole);
    sdsfree(pieces);
    return 0;
}
