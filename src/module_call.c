/* module_call.c -- Call, the module API's way to run a command, and the
 * tree its reply is read through (CallReply*).
 *
 * Call runs the command on a fake client of the module's, through the
 * server's own call(), and parses the RESP it produced into a tree of
 * callReply nodes, each keeping its own bytes (ReplyWithCallReply and
 * CallReplyProto hand them on unchanged).
 *
 * Decisions, each Redis 7.0's:
 *  - The format's flag letters: '!' propagates (to the AOF and replicas,
 *    narrowed by 'A' and 'R'), '3'/'0' pick the protocol, 'C' runs as the
 *    context's user (SetContextUser) or the caller's, checked by ACL and
 *    logged when denied, 'S' refuses what a script could not run, 'W'
 *    writes, 'M' deny-oom commands over maxmemory, and 'E' returns those
 *    refusals as error replies instead of NULL. A letter 7.0 does not know
 *    fails the call (EBADF).
 *  - errno says why a call returned NULL: ENOENT unknown command, EINVAL
 *    arity, ENOTSUP no user for 'C', EACCES ACL, ESPIPE script mode,
 *    ENOSPC 'W' or 'M'.
 *  - Module command filters see the call's arguments (module_filter.c). */
#include "module_int.h"
#include "acl.h"
#include "replication.h"

#include <errno.h>
#include <stdarg.h>

typedef struct redisObject RString;


typedef struct callReply {
    int type;                 /* MODAPI_REPLY_* */
    const char *proto;        /* this reply's own RESP bytes, inside root's sds */
    size_t protolen;
    const char *str;          /* string, error, verbatim text, big number */
    size_t len;
    long long integer;        /* integer; bool */
    double dbl;
    char format[4];           /* verbatim's */
    struct callReply *elements; /* array/set: len; map, attribute: 2*len (key, value) */
    struct callReply *attribute; /* the RESP3 attribute sent before this reply (allocated), or NULL */
    sds root_proto;           /* the root's: all protos point into it */
    list *errors;             /* the root's: the error replies of the call, uncounted (reply.c), or NULL */
    int resp3;                /* this node is, or holds, a type RESP2 lacks (map, set, double, '_' null ...) */
    RedisModuleCtx *ctx;      /* the auto-memory context the tree belongs to (every node), or NULL */
} callReply;

static long long protoLine(const char *p, const char *end, const char **next) {
    const char *cr = memchr(p, '\r', (size_t)(end - p));
    if (cr == NULL) cr = end;
    long long v = 0;
    string2ll(p + 1, (size_t)(cr - p - 1), &v);
    *next = cr + 2 <= end ? cr + 2 : end;
    return v;
}

static const char *parseReply(callReply *r, const char *p, const char *end);
static void moduleCallReplyFreeChildren(callReply *r);

static const char *parseAggregate(callReply *r, const char *p, const char *end, int type, long long n, int pairs) {
    r->type = type;
    if (n < 0) { /* RESP2 null array */
        r->type = MODAPI_REPLY_NULL;
        return p;
    }
    r->len = (size_t)n;
    size_t count = (size_t)n * (pairs ? 2 : 1);
    r->elements = count ? zcalloc(sizeof(callReply) * count) : NULL;
    for (size_t j = 0; j < count; j++) p = parseReply(&r->elements[j], p, end);
    return p;
}

static const char *parseReply(callReply *r, const char *p, const char *end) {
    const char *start = p, *next;
    memset(r, 0, sizeof(*r));
    if (p >= end) {
        r->type = MODAPI_REPLY_UNKNOWN;
        return end;
    }
    char kind = *p;
    const char *cr = memchr(p, '\r', (size_t)(end - p));
    if (cr == NULL) cr = end;
    switch (kind) {
    case '+':
    case '-':
        r->type = kind == '+' ? MODAPI_REPLY_STRING : MODAPI_REPLY_ERROR;
        r->str = p + 1;
        r->len = (size_t)(cr - p - 1);
        next = cr + 2;
        break;
    case ':':
        r->type = MODAPI_REPLY_INTEGER;
        r->integer = protoLine(p, end, &next);
        break;
    case ',': {
        r->type = MODAPI_REPLY_DOUBLE;
        char buf[64];
        size_t n = (size_t)(cr - p - 1) < sizeof buf - 1 ? (size_t)(cr - p - 1) : sizeof buf - 1;
        memcpy(buf, p + 1, n);
        buf[n] = '\0';
        r->dbl = strtod(buf, NULL);
        next = cr + 2;
        break;
    }
    case '#':
        r->type = MODAPI_REPLY_BOOL;
        r->integer = p[1] == 't';
        next = cr + 2;
        break;
    case '_':
        r->type = MODAPI_REPLY_NULL;
        next = cr + 2;
        break;
    case '(':
        r->type = MODAPI_REPLY_BIG_NUMBER;
        r->str = p + 1;
        r->len = (size_t)(cr - p - 1);
        next = cr + 2;
        break;
    case '$':
    case '=': {
        long long n = protoLine(p, end, &next);
        if (n < 0) {
            r->type = MODAPI_REPLY_NULL;
            break;
        }
        r->type = kind == '$' ? MODAPI_REPLY_STRING : MODAPI_REPLY_VERBATIM_STRING;
        r->str = next;
        r->len = (size_t)n;
        if (kind == '=' && n >= 4) {
            memcpy(r->format, next, 3);
            r->str += 4;
            r->len -= 4;
        }
        next = next + n + 2;
        break;
    }
    case '*':
    case '~':
    case '%': {
        long long n = protoLine(p, end, &next);
        int type = kind == '*' ? MODAPI_REPLY_ARRAY : kind == '~' ? MODAPI_REPLY_SET : MODAPI_REPLY_MAP;
        next = parseAggregate(r, next, end, type, n, kind == '%');
        break;
    }
    case '|': { /* an attribute before the reply: kept beside it (CallReplyAttribute); the
                 * reply's proto starts with it, as in Redis */
        long long n = protoLine(p, end, &next);
        callReply *attr = zcalloc(sizeof(*attr));
        next = parseAggregate(attr, next, end, MODAPI_REPLY_ATTRIBUTE, n, 1);
        attr->proto = start;
        attr->protolen = (size_t)(next - start);
        next = parseReply(r, next, end);
        if (r->attribute) { /* a second attribute before the same reply: the first one counts */
            moduleCallReplyFreeChildren(r->attribute);
            zfree(r->attribute);
        }
        r->attribute = attr;
        r->proto = start;
        r->protolen = (size_t)(next - start);
        return next;
    }
    default:
        r->type = MODAPI_REPLY_UNKNOWN;
        next = end;
    }
    if (next > end) next = end;
    r->proto = start;
    r->protolen = (size_t)(next - start);
    return next;
}

static void moduleCallReplyFreeChildren(callReply *r) {
    size_t count = r->type == MODAPI_REPLY_MAP || r->type == MODAPI_REPLY_ATTRIBUTE ? r->len * 2 : r->len;
    if (r->elements)
        for (size_t j = 0; j < count; j++) moduleCallReplyFreeChildren(&r->elements[j]);
    zfree(r->elements);
    r->elements = NULL;
    if (r->attribute) {
        moduleCallReplyFreeChildren(r->attribute);
        zfree(r->attribute);
        r->attribute = NULL;
    }
}

void moduleCallReplyFree(void *reply) {
    callReply *r = reply;
    moduleCallReplyFreeChildren(r);
    sdsfree(r->root_proto);
    if (r->errors) listRelease(r->errors);
    zfree(r);
}

static client *moduleFakeClient(void) {
    static client *fake;
    if (fake == NULL) {
        fake = createClient(NULL);
        fake->flags |= CLIENT_FAKE | CLIENT_SCRIPT | CLIENT_MODULE;
        clientSetAuthenticated(fake, 1);
    }
    return fake;
}


/* The command's argv from Call's, Replicate's and EmitAOF's format: c (C
 * string), s (RedisModuleString), b (buffer, length), l (long long), v
 * (vector, count), and the flag letters of Redis 7.0 (MODCALL_*) into
 * *flags. NULL for any other letter (the caller's EBADF or error). */
robj **moduleFormatArgv(const char *cmdname, const char *fmt, va_list *ap, int *argc, int *flags) {
    static const struct {
        char letter;
        int flag;
    } letters[] = {{'!', MODCALL_REPLICATE}, {'A', MODCALL_NO_AOF},       {'R', MODCALL_NO_REPLICAS},
                   {'3', MODCALL_RESP3},     {'0', MODCALL_RESP_AUTO},    {'C', MODCALL_RUN_AS_USER},
                   {'S', MODCALL_SCRIPT_MODE}, {'W', MODCALL_NO_WRITES}, {'M', MODCALL_DENY_OOM},
                   {'E', MODCALL_ERRORS_AS_REPLIES}};
    int cap = 8, n = 0;
    robj **argv = zmalloc(sizeof(robj *) * (size_t)cap);
    argv[n++] = createStringObject(cmdname, strlen(cmdname));
    *flags = 0;
    for (const char *f = fmt; *f; f++) {
        robj *one = NULL;
        RString **vec = NULL;
        size_t veclen = 0;
        if (*f == 'c') {
            const char *cs = va_arg(*ap, char *);
            one = createStringObject(cs, strlen(cs));
        } else if (*f == 's') {
            one = va_arg(*ap, RString *);
            moduleStringDecode(one);
            incrRefCount(one);
        } else if (*f == 'b') {
            char *buf = va_arg(*ap, char *);
            size_t len = va_arg(*ap, size_t);
            one = createStringObject(buf, len);
        } else if (*f == 'l') { /* as text: commands take their arguments as strings, never int-encoded */
            char num[LONG_STR_SIZE];
            int len = ll2string(num, sizeof num, va_arg(*ap, long long));
            one = createStringObject(num, (size_t)len);
        } else if (*f == 'v') {
            vec = va_arg(*ap, RString **);
            veclen = va_arg(*ap, size_t);
        } else {
            size_t j = 0;
            while (j < sizeof letters / sizeof letters[0] && letters[j].letter != *f) j++;
            if (j == sizeof letters / sizeof letters[0]) {
                for (int k = 0; k < n; k++) decrRefCount(argv[k]);
                zfree(argv);
                return NULL;
            }
            *flags |= letters[j].flag;
        }
        size_t need = (size_t)n + (one ? 1 : 0) + veclen;
        if (need > (size_t)cap) {
            cap = (int)need * 2;
            argv = zrealloc(argv, sizeof(robj *) * (size_t)cap);
        }
        if (one) argv[n++] = one;
        for (size_t j = 0; j < veclen; j++) {
            moduleStringDecode(vec[j]);
            incrRefCount(vec[j]);
            argv[n++] = vec[j];
        }
    }
    *argc = n;
    return argv;
}

/* SetContextUser: the user Call's 'C' runs as (module_acl.c's handle). */
static void RM_SetContextUser(RedisModuleCtx *ctx, const void *user) { ctx->context_user = user; }

static const char *aclDenialText(int result) {
    switch (result) {
    case ACL_DENIED_CMD: return "can't run this command or subcommand";
    case ACL_DENIED_KEY: return "can't access at least one of the keys mentioned in the command arguments";
    case ACL_DENIED_CHANNEL: return "can't publish to the channel mentioned in the command";
    default: return "lacking the permissions for the command";
    }
}

/* Whether the client Call runs for must be obeyed whatever the state (our
 * primary, or the AOF being loaded). */
static int obeyingCaller(void) {
    return server.loading || (server.current_client && (server.current_client->flags & CLIENT_MASTER));
}

/* What the flags refuse before the command runs, in Redis 7.0's order and
 * words: the message (an sds, "-CODE ..." or a bare text that becomes
 * "-ERR ...") with *err_no set, or NULL to run it. */
static sds callRefusal(RedisModuleCtx *ctx, client *c, int flags, aclUser *user, int *err_no) {
    redisCommand *cmd = c->cmd;
    uint64_t cf = cmd->flags;
    if ((flags & MODCALL_SCRIPT_MODE) && (cf & CMD_NOSCRIPT)) {
        *err_no = ESPIPE;
        return sdscatfmt(sdsempty(), "command '%S' is not allowed on script mode", cmd->fullname);
    }
    if ((flags & MODCALL_DENY_OOM) && server.maxmemory && (cf & CMD_DENYOOM) &&
        zmalloc_used_memory() > server.maxmemory) {
        *err_no = ENOSPC;
        return sdsdup(shared.oomerr->ptr);
    }
    if ((flags & MODCALL_NO_WRITES) && (cf & CMD_WRITE)) {
        *err_no = ENOSPC;
        return sdscatfmt(sdsempty(), "Write command '%S' was called while write is not allowed.", cmd->fullname);
    }
    if (flags & MODCALL_SCRIPT_MODE) {
        *err_no = ESPIPE;
        if (cf & CMD_WRITE) {
            if (!replicationIsReplica()) { /* on a primary: only -NOREPLICAS (min-replicas-to-write) */
                sds noreplicas = replicationRefusal(c);
                if (noreplicas) return noreplicas;
            }
            sds misconf = aofWriteDeniedError();
            if (misconf == NULL) misconf = rdbWriteDeniedError();
            if (misconf && !obeyingCaller()) return misconf;
            sdsfree(misconf);
            if (replicationIsReplica() && server.repl_slave_ro && !obeyingCaller())
                return sdsnew("-READONLY You can't write against a read only replica.");
        }
        if (replicationIsReplica() && !replicaLinkUp() && !server.repl_serve_stale_data && !(cf & CMD_STALE))
            return sdsnew("-MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.");
    }
    if (flags & MODCALL_RUN_AS_USER) {
        int errpos = 0, res = aclCheckCommandOfUser(user, cmd, c->argv, c->argc, &errpos);
        if (res != ACL_OK) {
            /* logged as Redis does: context module, the object the command or the argument */
            sds object = res == ACL_DENIED_CMD ? sdsdup(cmd->fullname) : sdsdup(c->argv[errpos]->ptr);
            /* under the calling client's user name, as Redis 7.0 logs it, whoever was checked */
            client *logger = ctx->client ? ctx->client : c;
            aclLogAdd(logger, res, ACL_LOG_CTX_MODULE, -1, sdsnew(aclUserName(logger->user ? logger->user : user)),
                      object);
            *err_no = EACCES;
            return sdscatfmt(sdsempty(), "acl verification failed, %s.", aclDenialText(res));
        }
    }
    /* cluster mode: keys this node does not serve, or the cluster down (7.0's words) */
    switch (obeyingCaller() ? CLUSTER_CALL_OK : clusterModuleCallRefusal(c, ctx->client)) {
    case CLUSTER_CALL_DOWN_RO:
        *err_no = EROFS;
        return sdscatfmt(sdsempty(), "Can not execute a write command '%S' while the cluster is down and readonly",
                         cmd->fullname);
    case CLUSTER_CALL_DOWN:
        *err_no = ENETDOWN;
        return sdscatfmt(sdsempty(), "Can not execute a command '%S' while the cluster is down", cmd->fullname);
    case CLUSTER_CALL_NOT_LOCAL: *err_no = EPERM; return sdsnew("Attempted to access a non local key in a cluster node");
    default: break;
    }
    return NULL;
}

/* Marks every node that is, or holds, a type RESP2 lacks, as Redis 7.0's
 * parser does: ReplyWithCallReply refuses such a reply to a RESP2 client
 * (it could not read it). A RESP3 call whose reply has only RESP2 types
 * (strings, integers, arrays) passes. Returns the node's mark. */
static int callReplyMarkResp3(callReply *r) {
    int resp3 = r->attribute != NULL;
    switch (r->type) {
    case MODAPI_REPLY_MAP:
    case MODAPI_REPLY_SET:
    case MODAPI_REPLY_BOOL:
    case MODAPI_REPLY_DOUBLE:
    case MODAPI_REPLY_BIG_NUMBER:
    case MODAPI_REPLY_VERBATIM_STRING:
    case MODAPI_REPLY_ATTRIBUTE: resp3 = 1; break;
    case MODAPI_REPLY_NULL: resp3 = r->protolen > 0 && r->proto[0] == '_'; break;
    default: break;
    }
    size_t count = r->type == MODAPI_REPLY_MAP || r->type == MODAPI_REPLY_ATTRIBUTE ? r->len * 2 : r->len;
    if (r->elements)
        for (size_t j = 0; j < count; j++) resp3 |= callReplyMarkResp3(&r->elements[j]);
    if (r->attribute) callReplyMarkResp3(r->attribute);
    r->resp3 = resp3;
    return resp3;
}

/* Every node of the tree learns its auto-memory context: strings made from
 * any of them (CreateStringFromCallReply) are released with it, as Redis. */
static void callReplySetCtx(callReply *r, RedisModuleCtx *ctx) {
    r->ctx = ctx;
    size_t count = r->type == MODAPI_REPLY_MAP || r->type == MODAPI_REPLY_ATTRIBUTE ? r->len * 2 : r->len;
    if (r->elements)
        for (size_t j = 0; j < count; j++) callReplySetCtx(&r->elements[j], ctx);
    if (r->attribute) callReplySetCtx(r->attribute, ctx);
}

/* A reply made of one error, for 'E' (Redis: "-ERR <text>" unless the text
 * has its own code). Uncounted, as a command's error in a Call is: it
 * counts if the module replies with it (ReplyWithCallReply), as in Redis. */
static callReply *callReplyOfError(RedisModuleCtx *ctx, sds msg) {
    sdstrim(msg, "\r\n");
    sds proto = msg[0] == '-' ? sdscatfmt(sdsempty(), "%S\r\n", msg) : sdscatfmt(sdsempty(), "-ERR %S\r\n", msg);
    callReply *reply = zcalloc(sizeof(*reply));
    parseReply(reply, proto, proto + sdslen(proto));
    reply->root_proto = proto;
    replyDeferError(&reply->errors, msg, sdslen(msg));
    sdsfree(msg);
    if (ctx->flags & MODCTX_AUTO_MEMORY) callReplySetCtx(reply, ctx);
    moduleAutoAdd(ctx, AUTO_REPLY, reply);
    return reply;
}

/* Call is re-entered when the command it runs fires a keyspace
 * notification whose module callback calls again: the nested call gets a
 * client of its own, the shared one still being the outer call's. */
static int call_depth;

/* 0 inside a Call without '!': nothing it runs is propagated, not even a
 * nested '!' Call (Redis 7.0's server.replication_allowed). */
static int call_replication_allowed = 1;

static void *RM_Call(RedisModuleCtx *ctx, const char *cmdname, const char *fmt, ...) {
    int argc = 0, flags = 0;
    va_list ap;
    va_start(ap, fmt);
    robj **argv = moduleFormatArgv(cmdname, fmt, &ap, &argc, &flags);
    va_end(ap);
    if (argv == NULL) { /* a format letter Redis 7.0 does not know */
        errno = EBADF;
        return NULL;
    }
    int errors_as_replies = (flags & MODCALL_ERRORS_AS_REPLIES) != 0;
    aclUser *user = NULL;
    if (flags & MODCALL_RUN_AS_USER) {
        user = ctx->context_user ? moduleAclUserOf(ctx->context_user) : ctx->client ? ctx->client->user : NULL;
        if (user == NULL) {
            for (int j = 0; j < argc; j++) decrRefCount(argv[j]);
            zfree(argv);
            errno = ENOTSUP;
            if (!errors_as_replies) return NULL;
            return callReplyOfError(
                ctx, sdsnew("cannot run as user, no user directly attached to context or context's client"));
        }
    }

    client *c = call_depth ? moduleTempClient() : moduleFakeClient();
    call_depth++;
    c->argv = argv;
    c->argc = c->argv_len = argc;
    c->resp = flags & MODCALL_RESP3 ? 3 : (flags & MODCALL_RESP_AUTO) && ctx->client ? ctx->client->resp : 2;
    c->db = ctx->client ? ctx->client->db : server.db;
    aclUser *saved_user = c->user;
    if (user) c->user = user;
    if (ctx->module) ctx->module->in_call++;
    if (moduleCommandFiltersActive()) moduleCallCommandFilters(c); /* may change argv and argc */
    argv = c->argv;
    argc = c->argc;
    callReply *reply = NULL;
    sds refusal = NULL;
    redisCommand *cmd = argc ? lookupCommand(argv, argc) : NULL;
    c->cmd = c->lastcmd = c->realcmd = cmd;
    if (cmd == NULL) {
        errno = ENOENT;
        if (errors_as_replies && argc) refusal = unknownCommandError(c);
    } else if ((cmd->arity > 0 && cmd->arity != argc) || argc < -cmd->arity) {
        errno = EINVAL;
        if (errors_as_replies)
            refusal = sdscatfmt(sdsempty(), "wrong number of arguments for '%S' command", cmd->fullname);
    } else {
        int err_no = 0;
        refusal = callRefusal(ctx, c, flags, user, &err_no);
        if (refusal) {
            errno = err_no;
            if (!errors_as_replies) {
                sdsfree(refusal);
                refusal = NULL;
            }
        } else {
            /* without '!' its effects stay here, as in Redis, and so do those of Calls
             * nested in it ('!' or not); 'A' and 'R' narrow '!'. A script's
             * redis.set_repl() does not reach a Call (7.0.15 propagates a '!' Call
             * inside REPL_NONE), and holds again after it. */
            int allowed_before = call_replication_allowed;
            call_replication_allowed = allowed_before && (flags & MODCALL_REPLICATE);
            int outer = propagateSwapTargets(call_replication_allowed && !(flags & MODCALL_NO_AOF),
                                             call_replication_allowed && !(flags & MODCALL_NO_REPLICAS));
            call(c);
            propagateRestoreTargets(outer);
            call_replication_allowed = allowed_before;
            sds proto = replyTakeAll(c);
            reply = zcalloc(sizeof(*reply));
            parseReply(reply, proto, proto + sdslen(proto));
            reply->root_proto = proto;
            reply->errors = c->deferred_errors; /* uncounted until the module replies with them */
            c->deferred_errors = NULL;
            if (c->resp == 3) callReplyMarkResp3(reply);
            if (ctx->flags & MODCTX_AUTO_MEMORY) callReplySetCtx(reply, ctx);
            moduleAutoAdd(ctx, AUTO_REPLY, reply);
        }
    }
    for (int j = 0; j < c->argc; j++) decrRefCount(c->argv[j]);
    zfree(c->argv);
    c->argv = NULL;
    c->argc = c->argv_len = 0;
    c->cmd = NULL;
    c->user = saved_user;
    if (ctx->module) ctx->module->in_call--;
    if (--call_depth) moduleTempClientRelease(c);
    if (refusal) reply = callReplyOfError(ctx, refusal);
    return reply;
}

/* Only a root reply may be freed; an auto-memory context forgets it. */
static void RM_FreeCallReply(callReply *reply) {
    if (reply == NULL || reply->root_proto == NULL) return;
    moduleAutoForget(reply->ctx, reply);
    moduleCallReplyFree(reply);
}

static int RM_CallReplyType(callReply *r) { return r ? r->type : MODAPI_REPLY_UNKNOWN; }

static size_t RM_CallReplyLength(callReply *r) {
    if (r == NULL) return 0;
    switch (r->type) {
    case MODAPI_REPLY_STRING:
    case MODAPI_REPLY_ERROR:
    case MODAPI_REPLY_ARRAY:
    case MODAPI_REPLY_SET:
    case MODAPI_REPLY_MAP:
    case MODAPI_REPLY_ATTRIBUTE:
    case MODAPI_REPLY_VERBATIM_STRING:
    case MODAPI_REPLY_BIG_NUMBER: return r->len;
    default: return 0;
    }
}

static long long RM_CallReplyInteger(callReply *r) {
    return r && r->type == MODAPI_REPLY_INTEGER ? r->integer : LLONG_MIN;
}

static double RM_CallReplyDouble(callReply *r) { return r && r->type == MODAPI_REPLY_DOUBLE ? r->dbl : 0; }
static int RM_CallReplyBool(callReply *r) { return r && r->type == MODAPI_REPLY_BOOL ? (int)r->integer : 0; }

static const char *RM_CallReplyBigNumber(callReply *r, size_t *len) {
    if (r == NULL || r->type != MODAPI_REPLY_BIG_NUMBER) return NULL;
    *len = r->len;
    return r->str;
}

static const char *RM_CallReplyVerbatim(callReply *r, size_t *len, const char **format) {
    if (r == NULL || r->type != MODAPI_REPLY_VERBATIM_STRING) return NULL;
    *len = r->len;
    if (format) *format = r->format;
    return r->str;
}

static const char *RM_CallReplyStringPtr(callReply *r, size_t *len) {
    if (r == NULL || (r->type != MODAPI_REPLY_STRING && r->type != MODAPI_REPLY_ERROR)) return NULL;
    if (len) *len = r->len;
    return r->str;
}

static callReply *RM_CallReplyArrayElement(callReply *r, size_t idx) {
    if (r == NULL || (r->type != MODAPI_REPLY_ARRAY && r->type != MODAPI_REPLY_SET) || idx >= r->len) return NULL;
    return &r->elements[idx];
}

static callReply *RM_CallReplySetElement(callReply *r, size_t idx) {
    if (r == NULL || r->type != MODAPI_REPLY_SET || idx >= r->len) return NULL;
    return &r->elements[idx];
}

static int pairElement(callReply *r, int type, size_t idx, callReply **key, callReply **val) {
    if (r == NULL || r->type != type || idx >= r->len) return MODAPI_ERR;
    if (key) *key = &r->elements[idx * 2];
    if (val) *val = &r->elements[idx * 2 + 1];
    return MODAPI_OK;
}

static int RM_CallReplyMapElement(callReply *r, size_t idx, callReply **key, callReply **val) {
    return pairElement(r, MODAPI_REPLY_MAP, idx, key, val);
}

/* The RESP3 attribute that came before a reply (Call with '3'), or NULL. */
static callReply *RM_CallReplyAttribute(callReply *r) { return r ? r->attribute : NULL; }

/* Redis 7.0.15 refuses every index here (it checks for a map); its later
 * releases answer as this does. */
static int RM_CallReplyAttributeElement(callReply *r, size_t idx, callReply **key, callReply **val) {
    return pairElement(r, MODAPI_REPLY_ATTRIBUTE, idx, key, val);
}

static const char *RM_CallReplyProto(callReply *r, size_t *len) {
    if (r == NULL) return NULL;
    *len = r->protolen;
    return r->proto;
}

static RString *RM_CreateStringFromCallReply(callReply *r) {
    if (r == NULL) return NULL;
    robj *s = NULL;
    if (r->type == MODAPI_REPLY_STRING || r->type == MODAPI_REPLY_ERROR) {
        s = createStringObject(r->str, r->len);
    } else if (r->type == MODAPI_REPLY_INTEGER) {
        char buf[LONG_STR_SIZE];
        int len = ll2string(buf, sizeof buf, r->integer);
        s = createStringObject(buf, (size_t)len);
    }
    if (s && r->ctx) moduleAutoAdd(r->ctx, AUTO_STRING, s); /* the reply's auto memory releases it */
    return s;
}

/* The reply's errors are counted now, as the client's (Redis 7.0: only
 * when the whole reply, the root, is passed on). A reply with RESP3 types
 * is refused to a RESP2 client (MODAPI_ERR, nothing sent), as in Redis
 * (whose check sees them once the module has looked at the reply). */
static int RM_ReplyWithCallReply(RedisModuleCtx *ctx, callReply *r) {
    client *c = moduleReplyClient(ctx);
    if (c == NULL || r == NULL) return MODAPI_OK;
    if (c->resp == 2 && r->resp3) return MODAPI_ERR;
    addReplyProto(c, r->proto, r->protolen);
    if (r->root_proto) replyCountDeferredErrors(c, r->errors);
    return MODAPI_OK;
}

static const moduleApiEntry call_api[] = {
    MODULE_API(Call),               MODULE_API(FreeCallReply),          MODULE_API(CallReplyType),
    MODULE_API(CallReplyLength),    MODULE_API(CallReplyInteger),       MODULE_API(CallReplyDouble),
    MODULE_API(CallReplyBool),      MODULE_API(CallReplyBigNumber),     MODULE_API(CallReplyVerbatim),
    MODULE_API(CallReplyStringPtr), MODULE_API(CallReplyArrayElement),  MODULE_API(CallReplySetElement),
    MODULE_API(CallReplyMapElement), MODULE_API(CallReplyAttribute),    MODULE_API(CallReplyAttributeElement),
    MODULE_API(CallReplyProto),     MODULE_API(CreateStringFromCallReply), MODULE_API(ReplyWithCallReply),
    MODULE_API(SetContextUser),
};

int moduleCallGetApi(const char *name, void *target) { return MODULE_API_LOOKUP(call_api, name, target); }
