/* rclient.h -- the client library shared by redis-cli and redis-benchmark:
 * connecting to a server, sending commands in RESP, and an incremental
 * RESP2/RESP3 reply parser.
 *
 * Design decisions:
 *  - Two layers. The parser (rcParser) knows nothing about sockets: bytes go
 *    in, complete replies come out, so it can be unit-tested byte by byte and
 *    used by an event-driven program that owns its sockets (the benchmark).
 *    The connection (rcConn) is a blocking convenience on top of it, with an
 *    optional timeout, for interactive tools (the cli).
 *  - The parser is resumable: it keeps an explicit stack of the aggregates
 *    it is inside, so a reply that arrives in many pieces is scanned once,
 *    not re-parsed from its start on every read. A single item (a line, or
 *    one bulk string with its CRLF) is consumed only once it is complete.
 *  - Two ways to consume: rcParserGetReply() builds a reply tree (the cli);
 *    rcParserSkipReply() only validates and counts (the benchmark: no
 *    allocation per reply, one pass over the bytes).
 *  - Limits are checked before anything is allocated: bulk length, elements
 *    per aggregate, nesting depth. A protocol error is sticky: the parser
 *    (and its connection) is unusable until reset, because the byte stream
 *    can no longer be trusted to be in step with the server.
 *  - Errors are reported as a code (RC_E_*) plus a one-line string in a
 *    stable format. For connection failures the string is only the reason
 *    ("Connection refused"), so a tool can print
 *        Could not connect to Redis at 127.0.0.1:6379: Connection refused
 *    exactly as Redis's redis-cli does (rcConnAddr() gives "127.0.0.1:6379"
 *    or the unix socket path).
 *  - Memory comes from zmalloc, strings in the reply tree are NUL-terminated
 *    (and binary-safe: always use len), sds is used for formatted commands.
 */
#ifndef REDIS_RCLIENT_H
#define REDIS_RCLIENT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "sds.h"

#define RC_OK 0
#define RC_ERR -1

/* ---- errors ------------------------------------------------------------------ */
typedef enum rcErrorCode {
    RC_E_NONE = 0,
    RC_E_CONNECT,   /* connecting failed: errstr is the reason, e.g.
                     * "Connection refused", "No such file or directory",
                     * "Name or service not known" */
    RC_E_IO,        /* read/write failed: errstr is strerror(errno), e.g.
                     * "Connection reset by peer" */
    RC_E_EOF,       /* the server closed the connection:
                     * "Server closed the connection" */
    RC_E_TIMEOUT,   /* "Connection timed out" (connect) or
                     * "Timeout reading from server" / "Timeout writing to server" */
    RC_E_PROTOCOL,  /* "Protocol error, got \"x\" as reply type byte", or
                     * "Protocol error: <what>" (bad length, too deep, ...) */
    RC_E_OOM        /* "Out of memory" */
} rcErrorCode;

#define RC_ERRSTR_LEN 256

/* ---- replies ----------------------------------------------------------------- */
typedef enum rcReplyType {
    RC_REPLY_STATUS = 1, /* +OK            str/len */
    RC_REPLY_ERROR,      /* -ERR ... and RESP3 blob error !<len>   str/len */
    RC_REPLY_INTEGER,    /* :123           integer */
    RC_REPLY_BULK,       /* $3 abc         str/len */
    RC_REPLY_ARRAY,      /* *N             element[0..elements-1] */
    RC_REPLY_NIL,        /* RESP2 null bulk $-1 and null array *-1 */
    RC_REPLY_NULL,       /* RESP3 _ */
    RC_REPLY_MAP,        /* RESP3 %N: elements = 2N, key, value, key, value... */
    RC_REPLY_SET,        /* RESP3 ~N       element[] */
    RC_REPLY_DOUBLE,     /* RESP3 ,1.5     dval, and the text as sent in str/len
                          * ("inf", "-inf", "nan" included) */
    RC_REPLY_BOOL,       /* RESP3 #t / #f  integer = 1 / 0 */
    RC_REPLY_BIGNUM,     /* RESP3 (123...  the digits in str/len */
    RC_REPLY_VERBATIM,   /* RESP3 =N txt:...  str/len is the text AFTER the
                          * "xxx:" prefix; vtype is "txt", "mkd", ... */
    RC_REPLY_PUSH,       /* RESP3 >N       element[] (pubsub messages, ...) */
    RC_REPLY_ATTRIBUTE   /* RESP3 |N       only ever seen through ->attribute:
                          * elements = 2N as for a map */
} rcReplyType;

typedef struct rcReply {
    rcReplyType type;
    long long integer;          /* INTEGER; BOOL (1 true, 0 false) */
    double dval;                /* DOUBLE */
    size_t len;                 /* length of str */
    char *str;                  /* STATUS ERROR BULK DOUBLE BIGNUM VERBATIM;
                                 * NUL-terminated, may contain NULs; else NULL */
    char vtype[4];              /* VERBATIM: the 3-byte format, NUL-terminated */
    size_t elements;            /* ARRAY SET PUSH: count; MAP ATTRIBUTE: 2 x pairs */
    struct rcReply **element;   /* the children (NULL when elements == 0) */
    struct rcReply *attribute;  /* RESP3 attribute that preceded this reply, or NULL */
} rcReply;

/* Frees a whole tree (NULL is fine). */
void rcFreeReply(rcReply *r);
/* "status", "error", "integer", "bulk", "array", "nil", "null", "map", "set",
 * "double", "bool", "bignum", "verbatim", "push", "attribute", "unknown". */
const char *rcReplyTypeName(rcReplyType type);
/* 1 for the types that have element[]: ARRAY MAP SET PUSH ATTRIBUTE. */
int rcReplyIsAggregate(rcReplyType type);

/* ---- the parser ------------------------------------------------------------------ */
typedef struct rcParser rcParser;

/* Defaults: 512 MB per bulk string, 2^31-1 elements per aggregate (each is
 * still bounded by the bytes actually received), nesting depth 128. */
#define RC_DEFAULT_MAX_BULK (512LL * 1024 * 1024)
#define RC_DEFAULT_MAX_ELEMENTS 2147483647LL
#define RC_DEFAULT_MAX_DEPTH 128

rcParser *rcParserCreate(void);
void rcParserFree(rcParser *p);
/* Drops buffered bytes, any partial reply and a sticky error. */
void rcParserReset(rcParser *p);
/* Values <= 0 keep the current limit. */
void rcParserSetLimits(rcParser *p, long long max_bulk, long long max_elements, int max_depth);

/* Input, copying: append len bytes. RC_ERR only when out of memory. */
int rcParserFeed(rcParser *p, const char *buf, size_t len);
/* Input, zero-copy: rcParserSpace() returns a writable area of at least
 * `min` bytes (its real size in *avail) at the end of the buffered data;
 * read() into it, then rcParserCommit() the bytes actually written.
 * NULL when out of memory. */
char *rcParserSpace(rcParser *p, size_t min, size_t *avail);
void rcParserCommit(rcParser *p, size_t n);
/* Bytes fed that no complete reply has consumed. */
size_t rcParserBuffered(const rcParser *p);

/* Output, as a tree. RC_OK with *reply set to a complete reply (the caller
 * frees it), or RC_OK with *reply = NULL when more bytes are needed; RC_ERR
 * on a protocol error (rcParserError() says what; sticky until reset).
 * An attribute is not returned on its own: it hangs from the reply that
 * follows it (->attribute). */
int rcParserGetReply(rcParser *p, rcReply **reply);

/* Output, counting only (no allocation): 1 when one complete top-level
 * reply was consumed (its type in *type, and for errors the first bytes of
 * the message, NUL-terminated, in errbuf when errbuf_len > 0), 0 when more
 * bytes are needed, -1 on a protocol error. Do not mix with GetReply in the
 * middle of a reply. */
int rcParserSkipReply(rcParser *p, rcReplyType *type, char *errbuf, size_t errbuf_len);

/* The protocol error message, or NULL when there is none. */
const char *rcParserError(const rcParser *p);

/* ---- formatting commands ------------------------------------------------------- */
/* RESP multibulk for argv (binary-safe: argvlen[i] bytes of argv[i]; argvlen
 * NULL means strlen). Returns a new sds, or appends to `dst` when not NULL
 * (returns the possibly moved dst). */
sds rcFormatCommandArgv(sds dst, int argc, const char **argv, const size_t *argvlen);

/* ---- connections ----------------------------------------------------------------- */
struct rcConn;

/* The byte stream under a connection when it is not the socket itself (TLS,
 * rclient_tls.c). read/write keep read(2)/write(2)'s contract: -1 with errno
 * EAGAIN when the socket must become ready first (want_events then says for
 * what: AE_READABLE or AE_WRITABLE -- TLS may need to read to write), 0 from
 * read at the end of the stream. A read returns everything the transport
 * buffered before reporting EAGAIN, so polling the fd after EAGAIN is right. */
typedef struct rcTransport {
    ssize_t (*read)(struct rcConn *c, void *buf, size_t len);
    ssize_t (*write)(struct rcConn *c, const void *buf, size_t len);
    int (*buffered)(struct rcConn *c); /* 1: input read from the socket, not returned yet */
    void (*free)(struct rcConn *c); /* releases transport_data; the fd is closed by rcFree */
    /* Optional (NULL: the socket's own): rcConnWait, rcConnEventFd and
     * rcConnLivenessFd for a transport whose data doesn't come through the
     * socket (the shared-memory rings). */
    int (*wait)(struct rcConn *c, int mask, long long ms);
    int (*event_fd)(const struct rcConn *c);
    int (*liveness_fd)(const struct rcConn *c);
} rcTransport;

typedef struct rcConn {
    int fd;                     /* -1 when not connected; always non-blocking */
    rcErrorCode err;            /* RC_E_NONE while healthy */
    char errstr[RC_ERRSTR_LEN]; /* see rcErrorCode */
    char *host;                 /* TCP: as given; NULL for unix sockets */
    int port;
    char *path;                 /* unix socket path, or NULL */
    long long timeout_ms;       /* for connect, and each blocking read/write;
                                 * 0 = wait forever */
    char *addr;                 /* rcConnAddr()'s text */
    sds obuf;                   /* appended, still to write */
    rcParser *parser;           /* the reply stream */
    const rcTransport *transport; /* NULL: plain socket I/O */
    void *transport_data;
    int want_events;            /* after EAGAIN: AE_READABLE / AE_WRITABLE to wait for */
} rcConn;

/* Both always return a connection (NULL only when out of memory): check
 * c->err. timeout_ms 0 = no timeout. host may be a name, IPv4 or IPv6. */
rcConn *rcConnectTcp(const char *host, int port, long long timeout_ms);
rcConn *rcConnectUnix(const char *path, long long timeout_ms);
/* Closes the socket and frees everything. NULL is fine. */
void rcFree(rcConn *c);
/* "127.0.0.1:6379", "[::1]:6379" (a host containing ':') or the socket
 * path; the string belongs to c and stays valid until rcFree. */
const char *rcConnAddr(rcConn *c);
/* Used by every later blocking call. */
void rcSetTimeout(rcConn *c, long long timeout_ms);

/* One read or write through the connection's transport (the socket or
 * TLS), with read(2)/write(2)'s contract, for programs that drive the fd
 * from their own event loop (redis-benchmark). */
ssize_t rcConnRead(rcConn *c, void *buf, size_t len);
ssize_t rcConnWrite(rcConn *c, const void *buf, size_t len);
/* 1 when the transport holds input already read from the socket (TLS): a
 * caller that reads once per readable event must read again. */
int rcConnHasBufferedInput(rcConn *c);

/* ---- TLS (rclient_tls.c) ------------------------------------------------------ */
/* redis-cli's and redis-benchmark's --tls options, with their meanings. */
typedef struct rcTlsOptions {
    const char *cacert;         /* --cacert: CA file to verify the server with */
    const char *cacertdir;      /* --cacertdir; neither: the system's trusted CAs */
    const char *cert, *key;     /* --cert/--key: our certificate (both or neither) */
    const char *sni;            /* --sni: the server name sent */
    int insecure;               /* --insecure: don't verify the server */
    const char *ciphers;        /* --tls-ciphers (TLSv1.2 and older) */
    const char *ciphersuites;   /* --tls-ciphersuites (TLSv1.3) */
} rcTlsOptions;

/* 1 when the library was built with TLS (BUILD_TLS=yes). */
int rcTlsAvailable(void);
/* Runs the TLS handshake on a connected c (up to its timeout) and makes TLS
 * its transport. RC_ERR with c->err set: RC_E_CONNECT and redis-cli's texts,
 * "Invalid CA Certificate File/Directory", "Invalid client certificate",
 * "Invalid private key" (rcTlsSetupError() is then 1: Redis prints those as
 * "Could not negotiate a TLS connection: ..."), or "SSL_connect failed:
 * <reason>" for a failed handshake. */
int rcTlsUpgrade(rcConn *c, const rcTlsOptions *opts);
int rcTlsSetupError(const rcConn *c);

/* Queue output (nothing is written until a flush or a blocking read). */
int rcAppendCommandArgv(rcConn *c, int argc, const char **argv, const size_t *argvlen);
int rcAppendRaw(rcConn *c, const char *buf, size_t len);
/* Bytes queued and still to write. */
size_t rcPendingOutput(const rcConn *c);

/* Write everything queued, waiting as needed (up to the timeout per wait).
 * RC_OK or RC_ERR (c->err set). */
int rcFlush(rcConn *c);
/* Write what the socket accepts now without waiting; RC_OK also when some
 * output remains queued (check rcPendingOutput). For --pipe style loops. */
int rcFlushNonBlocking(rcConn *c);

/* Flush, then wait for one complete reply. RC_OK with *reply set (caller
 * frees), or RC_ERR with c->err set (EOF, timeout, I/O or protocol error)
 * and *reply = NULL. */
int rcReadReply(rcConn *c, rcReply **reply);
/* Read whatever is available without waiting, and return a complete reply
 * if there is one: RC_OK with *reply possibly NULL, or RC_ERR as above. */
int rcTryReadReply(rcConn *c, rcReply **reply);

/* Append + read one reply; NULL on failure (see c->err / c->errstr). */
rcReply *rcCommandArgv(rcConn *c, int argc, const char **argv, const size_t *argvlen);
/* The same from NUL-terminated strings (at most 64): rcCommand(c, "SELECT", "2", NULL). */
rcReply *rcCommand(rcConn *c, const char *arg0, ...) __attribute__((sentinel));

/* ---- shared memory (rclient_shm.c) ---------------------------------------- */
/* On a unix-socket connection with nothing in flight: CLIENT SHM [RINGSIZE
 * ring_size] (0: the server's default), then every later byte goes through
 * the rings. RC_ERR with c->err set (RC_E_CONNECT and the server's error
 * text when it refused). */
int rcUpgradeShm(rcConn *c, unsigned long long ring_size);
/* 1 once rcUpgradeShm succeeded: ring room is then waited for with
 * rcConnWait, no fd event says it. */
int rcConnUsesShm(const rcConn *c);
/* The fd to watch for "readable": the socket, or the shm wake-up socket
 * (a read that found nothing has asked the server to signal it). */
int rcConnEventFd(const rcConn *c);
/* The socket too, for shm: readable when the server went away. -1 if none. */
int rcConnLivenessFd(const rcConn *c);
/* Blocks until the transport can take output (AE_WRITABLE) or has input
 * (AE_READABLE), up to ms (-1: forever). 1 ready, 0 timeout, -1 error. */
int rcConnWait(rcConn *c, int mask, long long ms);

/* ---- addresses -------------------------------------------------------------- */
/* redis://[[user]:password@]host[:port][/db], or rediss:// (rclient_uri.c). Absent parts
 * are NULL, port 0 and dbnum -1; "" before the credentials' ':' is a user
 * name. RC_ERR with *err a one-line message for another scheme. */
typedef struct rcUri {
    sds user, password, host;
    int port;
    long long dbnum;
    int tls;                    /* rediss:// (only in a build with TLS) */
} rcUri;
int rcParseUri(const char *uri, rcUri *out, const char **err);
void rcUriFree(rcUri *u);

/* ---- cluster slots (rclient_slot.c) ---- */

/* CRC-16/XMODEM, the checksum Redis Cluster hashes keys with. */
uint16_t rcCrc16(const char *buf, size_t len);
/* The slot (0..16383) of a key, honouring a {hash tag}. */
unsigned int rcKeyHashSlot(const char *key, size_t len);

#endif /* REDIS_RCLIENT_H */
