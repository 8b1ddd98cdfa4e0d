/* module_acl.c -- module users and the ACL API of Redis 7.0 modules:
 * CreateModuleUser, FreeModuleUser, SetModuleUserACL(String),
 * GetModuleUserACLString, AuthenticateClientWithUser/WithACLUser,
 * DeauthenticateAndCloseClient, GetCurrentUserName, GetClientUserNameById,
 * GetModuleUserFromUserName, ACLCheck{Command,Key,Channel}Permissions,
 * ACLAddLogEntry, RedactClientCommandArgument, GetClientCertificate.
 *
 * A module user is an acl.c user kept in no table: ACL LIST, GETUSER and
 * AUTH never see it, only the clients a module authenticates with it.
 * A client a module authenticates carries the module's callback
 * (c->module_auth); it fires once, when the client's user changes again
 * (AUTH, RESET, another module authentication), when its user is freed
 * or deleted, when it is deauthenticated, and when it is freed -- as in
 * Redis 7.0.
 *
 * Decisions:
 * - Revoking a client (FreeModuleUser, DeauthenticateAndCloseClient, ACL
 *   DELUSER, unloading the module) fires the callback at once, before
 *   the client is closed asynchronously: the module may be gone by then.
 * - RedactClientCommandArgument only notes the position; the argument is
 *   replaced by "(redacted)" once the module's handler returns (module.c),
 *   so the module keeps reading its argv and ReplicateVerbatim still
 *   propagates the real value, while SLOWLOG and MONITOR see the redaction.
 *   From a callback (blocked client's reply, thread-safe context) it is
 *   replaced at once: no handler is reading argv then.
 * - ACLCheckCommandPermissions refuses (EINVAL) an argv of the wrong arity,
 *   which Redis 7.0 checks key by key without looking: the keys of such an
 *   argv are not where the command's key specs say.
 * - ACLCheckChannelPermissions sets errno EACCES on a denial, as 7.0's
 *   documentation says (7.0.15's server leaves errno as it was).
 * - GetClientCertificate answers NULL: no TLS connection keeps its peer's
 *   certificate here.
 */
#include "module_int.h"

#include "acl.h"

#include <errno.h>

typedef struct redisObject RString;
typedef void (*UserChangedFunc)(uint64_t client_id, void *privdata);

/* RedisModuleUser: the acl.c user and whether freeing the handle frees it
 * (CreateModuleUser's) or not (GetModuleUserFromUserName's). */
typedef struct RedisModuleUser {
    aclUser *user;
    int owned;
} RedisModuleUser;

/* A client's module authentication: who to tell when its user changes. */
typedef struct moduleAuthHook {
    module *owner;
    UserChangedFunc callback;
    void *privdata;
} moduleAuthHook;

/* REDISMODULE_CMD_KEY_* that ACLCheckKeyPermissions takes */
#define MKEY_ACCESS (1 << 4)
#define MKEY_UPDATE (1 << 5)
#define MKEY_INSERT (1 << 6)
#define MKEY_DELETE (1 << 7)

/* REDISMODULE_CMD_CHANNEL_* */
#define MCHAN_PATTERN (1 << 0)
#define MCHAN_PUBLISH (1 << 1)
#define MCHAN_SUBSCRIBE (1 << 2)
#define MCHAN_UNSUBSCRIBE (1 << 3)

/* RedisModuleACLLogEntryReason */
#define MLOG_AUTH 0
#define MLOG_CMD 1
#define MLOG_KEY 2
#define MLOG_CHANNEL 3

static RString *trackedString(RedisModuleCtx *ctx, sds s) {
    RString *o = createObject(OBJ_STRING, s);
    if (ctx) moduleAutoAdd(ctx, AUTO_STRING, o);
    return o;
}

/* ---- users ------------------------------------------------------------------------------ */

/* Off, no password, no permissions, as ACL SETUSER's new user. */
aclUser *moduleAclUserOf(const void *module_user) { return ((const RedisModuleUser *)module_user)->user; }

static RedisModuleUser *RM_CreateModuleUser(const char *name) {
    RedisModuleUser *mu = zmalloc(sizeof(*mu));
    mu->user = aclNewUser(name, strlen(name));
    mu->owned = 1;
    return mu;
}

/* 7.0's header declares it void; its server answers REDISMODULE_OK. */
static int RM_FreeModuleUser(RedisModuleUser *mu) {
    if (mu == NULL) return MODAPI_OK;
    if (mu->owned) aclFreeUserAndClients(mu->user);
    zfree(mu);
    return MODAPI_OK;
}

/* The errno Redis 7.0 sets for each reason a rule is refused. */
static int ruleErrno(const char *why) {
    static const struct {
        const char *prefix;
        int err;
    } map[] = {
        {"Unknown command", ENOENT},      {"Syntax error", EINVAL},
        {"Allowing first-arg", ECHILD},   {"The password you", ENODEV},
        {"The password hash", EBADMSG},   {"Adding a pattern after the * pattern (or the 'allkeys'", EEXIST},
        {"Adding a pattern after the * pattern (or the 'allchannels'", EISDIR},
    };
    for (size_t j = 0; j < sizeof map / sizeof map[0]; j++)
        if (!strncmp(why, map[j].prefix, strlen(map[j].prefix))) return map[j].err;
    return EINVAL;
}

/* One rule, as one argument of ACL SETUSER; errno says why it was refused. */
static int RM_SetModuleUserACL(RedisModuleUser *mu, const char *acl) {
    sds why = NULL;
    if (aclSetUser(mu->user, acl, -1, &why) == C_OK) return MODAPI_OK;
    errno = ruleErrno(why);
    sdsfree(why);
    return MODAPI_ERR;
}

/* The rules of an ACL SETUSER command line (quotes allowed), all or
 * nothing; *error (if asked) gets ACL SETUSER's reason. Subscribers that
 * lost a channel are closed, as after ACL SETUSER. */
static int RM_SetModuleUserACLString(RedisModuleCtx *ctx, RedisModuleUser *mu, const char *acl, RString **error) {
    int argc = 0;
    sds *argv = sdssplitargs(acl, &argc);
    if (argv == NULL) return MODAPI_OK; /* unbalanced quotes: no rules, as Redis 7.0 takes it */
    aclUser *copy = aclNewUser("", 0);
    aclCopyUser(copy, mu->user);
    sds err = NULL;
    int ok = aclSetUserFromArgs(copy, argv, argc, NULL, &err) == C_OK;
    if (ok) {
        aclCopyUser(mu->user, copy);
        aclUserChanged(mu->user);
    } else if (error) {
        *error = trackedString(ctx, err);
        err = NULL;
    }
    sdsfree(err);
    aclFreeUser(copy);
    sdsfreesplitres(argv, argc);
    return ok ? MODAPI_OK : MODAPI_ERR;
}

/* Its rules as ACL LIST writes them (not auto memory: no context). */
static RString *RM_GetModuleUserACLString(RedisModuleUser *mu) {
    return trackedString(NULL, aclDescribeUser(mu->user));
}

/* The ACL user of that name, not a copy: ACL DELUSER or ACL LOAD frees it. */
static RedisModuleUser *RM_GetModuleUserFromUserName(RString *name) {
    moduleStringDecode(name);
    aclUser *u = aclLookupUser(name->ptr, sdslen(name->ptr));
    if (u == NULL) return NULL;
    RedisModuleUser *mu = zmalloc(sizeof(*mu));
    mu->user = u;
    mu->owned = 0;
    return mu;
}

static RString *RM_GetCurrentUserName(RedisModuleCtx *ctx) {
    if (ctx->client == NULL || ctx->client->user == NULL) return NULL;
    return trackedString(ctx, sdsnew(aclUserName(ctx->client->user)));
}

static RString *RM_GetClientUserNameById(RedisModuleCtx *ctx, uint64_t id) {
    client *c = clientById(id);
    if (c == NULL) {
        errno = ENOENT;
        return NULL;
    }
    if (c->user == NULL) {
        errno = ENOTSUP;
        return NULL;
    }
    return trackedString(ctx, sdsnew(aclUserName(c->user)));
}

/* ---- authentication --------------------------------------------------------------------- */

void moduleAuthUserChanged(client *c) {
    moduleAuthHook *h = c->module_auth;
    if (h == NULL) return;
    c->module_auth = NULL; /* once: the callback may touch the client again */
    h->callback(c->id, h->privdata);
    zfree(h);
}

static int authenticate(RedisModuleCtx *ctx, aclUser *u, UserChangedFunc callback, void *privdata,
                        uint64_t *client_id) {
    client *c = ctx->client;
    if (!aclUserIsEnabled(u)) return MODAPI_ERR;
    if (c == NULL || c->flags & (CLIENT_MODULE | CLIENT_FAKE)) return MODAPI_ERR; /* nobody to keep it */
    moduleAuthUserChanged(c);
    c->user = u;
    clientSetAuthenticated(c, 1);
    if (callback) {
        moduleAuthHook *h = zmalloc(sizeof(*h));
        h->owner = ctx->module;
        h->callback = callback;
        h->privdata = privdata;
        c->module_auth = h;
    }
    if (client_id) *client_id = c->id;
    return MODAPI_OK;
}

static int RM_AuthenticateClientWithUser(RedisModuleCtx *ctx, RedisModuleUser *mu, UserChangedFunc callback,
                                         void *privdata, uint64_t *client_id) {
    return authenticate(ctx, mu->user, callback, privdata, client_id);
}

static int RM_AuthenticateClientWithACLUser(RedisModuleCtx *ctx, const char *name, size_t len,
                                            UserChangedFunc callback, void *privdata, uint64_t *client_id) {
    aclUser *u = aclLookupUser(name, len);
    if (u == NULL) return MODAPI_ERR;
    return authenticate(ctx, u, callback, privdata, client_id);
}

static int RM_DeauthenticateAndCloseClient(RedisModuleCtx *ctx, uint64_t client_id) {
    (void)ctx;
    client *c = clientById(client_id);
    if (c == NULL) return MODAPI_ERR;
    aclRevokeClient(c);
    return MODAPI_OK;
}

void moduleAclRelease(module *m) {
    listIter li;
    listNode *ln;
    listRewind(server.clients, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        if (c->module_auth && c->module_auth->owner == m) aclRevokeClient(c);
    }
}

/* ---- permission checks ------------------------------------------------------------------ */

static int arityFits(redisCommand *cmd, int argc) {
    return cmd->arity > 0 ? argc == cmd->arity : argc >= -cmd->arity;
}

/* ENOENT: no such command; EACCES: the user may not run it as given. */
static int RM_ACLCheckCommandPermissions(RedisModuleUser *mu, RString **argv, int argc) {
    if (argc < 1) {
        errno = ENOENT;
        return MODAPI_ERR;
    }
    for (int j = 0; j < argc; j++) moduleStringDecode(argv[j]);
    redisCommand *cmd = lookupCommand(argv, argc);
    if (cmd == NULL) {
        errno = ENOENT;
        return MODAPI_ERR;
    }
    if (!arityFits(cmd, argc)) {
        errno = EINVAL;
        return MODAPI_ERR;
    }
    int errpos = 0;
    if (aclCheckCommandOfUser(mu->user, cmd, argv, argc, &errpos) == ACL_OK) return MODAPI_OK;
    errno = EACCES;
    return MODAPI_ERR;
}

/* flags: REDISMODULE_CMD_KEY_ACCESS/UPDATE/INSERT/DELETE (others: EINVAL);
 * none asks for any access the user has to the key. */
static int RM_ACLCheckKeyPermissions(RedisModuleUser *mu, RString *key, int flags) {
    const int known = MKEY_ACCESS | MKEY_UPDATE | MKEY_INSERT | MKEY_DELETE;
    if (flags & ~known) {
        errno = EINVAL;
        return MODAPI_ERR;
    }
    uint64_t spec = 0;
    if (flags & MKEY_ACCESS) spec |= KSPEC_ACCESS;
    if (flags & MKEY_UPDATE) spec |= KSPEC_UPDATE;
    if (flags & MKEY_INSERT) spec |= KSPEC_INSERT;
    if (flags & MKEY_DELETE) spec |= KSPEC_DELETE;
    moduleStringDecode(key);
    if (aclUserCheckKey(mu->user, key, spec) == ACL_OK) return MODAPI_OK;
    errno = EACCES;
    return MODAPI_ERR;
}

/* flags: REDISMODULE_CMD_CHANNEL_* (others: EINVAL). UNSUBSCRIBE is always
 * allowed; a PATTERN must be one of the user's patterns as written
 * (PSUBSCRIBE's rule); otherwise one of them must match the channel. (7.0's
 * header still names the argument "literal"; the server reads flags.) */
static int RM_ACLCheckChannelPermissions(RedisModuleUser *mu, RString *ch, int flags) {
    const int known = MCHAN_PATTERN | MCHAN_PUBLISH | MCHAN_SUBSCRIBE | MCHAN_UNSUBSCRIBE;
    if (flags & ~known) {
        errno = EINVAL;
        return MODAPI_ERR;
    }
    if (flags & MCHAN_UNSUBSCRIBE) return MODAPI_OK;
    moduleStringDecode(ch);
    if (aclUserCheckChannel(mu->user, ch, (flags & MCHAN_PATTERN) != 0) == ACL_OK) return MODAPI_OK;
    errno = EACCES;
    return MODAPI_ERR;
}

/* An ACL LOG entry in the "module" context for the module's user, with the
 * calling client's info (7.0's header declares it void; the server answers
 * REDISMODULE_ERR for an unknown reason). */
static int RM_ACLAddLogEntry(RedisModuleCtx *ctx, RedisModuleUser *mu, RString *object, int reason) {
    static const int reasons[] = {[MLOG_AUTH] = ACL_DENIED_AUTH, [MLOG_CMD] = ACL_DENIED_CMD,
                                  [MLOG_KEY] = ACL_DENIED_KEY, [MLOG_CHANNEL] = ACL_DENIED_CHANNEL};
    if (reason < MLOG_AUTH || reason > MLOG_CHANNEL) return MODAPI_ERR;
    moduleStringDecode(object);
    client *c = ctx->client ? ctx->client : server.current_client;
    client *temp = c ? NULL : moduleTempClient();
    aclLogAdd(c ? c : temp, reasons[reason], ACL_LOG_CTX_MODULE, 0, sdsnew(aclUserName(mu->user)), sdsdup(object->ptr));
    if (temp) moduleTempClientRelease(temp);
    return MODAPI_OK;
}

/* ---- redaction, certificates ------------------------------------------------------------ */

typedef struct redaction {
    client *c;
    int pos;
} redaction;

static redaction *redactions; /* pending until their command's handler returns */
static int redactions_len, redactions_cap;

static void redactNow(client *c, int pos) {
    robj *text = createStringObject("(redacted)", 10);
    rewriteClientCommandArgument(c, pos, text);
    decrRefCount(text);
}

static int RM_RedactClientCommandArgument(RedisModuleCtx *ctx, int pos) {
    if (ctx == NULL || ctx->client == NULL || pos <= 0 || pos >= ctx->client->argc) return MODAPI_ERR;
    const int not_handler =
        MODCTX_BLOCKED_REPLY | MODCTX_BLOCKED_TIMEOUT | MODCTX_BLOCKED_DISCONNECTED | MODCTX_THREAD_SAFE;
    if (ctx->flags & not_handler) { /* no handler reads argv now, none would apply it later */
        redactNow(ctx->client, pos);
        return MODAPI_OK;
    }
    if (redactions_len == redactions_cap) {
        redactions_cap = redactions_cap ? redactions_cap * 2 : 4;
        redactions = zrealloc(redactions, sizeof(redaction) * (size_t)redactions_cap);
    }
    redactions[redactions_len++] = (redaction){ctx->client, pos};
    return MODAPI_OK;
}

void moduleRedactArguments(client *c) {
    int kept = 0;
    for (int j = 0; j < redactions_len; j++) {
        redaction r = redactions[j];
        if (r.c != c) {
            redactions[kept++] = r;
            continue;
        }
        if (r.pos < c->argc) redactNow(c, r.pos);
    }
    redactions_len = kept;
}

static RString *RM_GetClientCertificate(RedisModuleCtx *ctx, uint64_t client_id) {
    (void)ctx, (void)client_id;
    return NULL;
}

/* ---- the lookup table ------------------------------------------------------------------- */

static const moduleApiEntry acl_api[] = {
    MODULE_API(CreateModuleUser), MODULE_API(FreeModuleUser), MODULE_API(SetModuleUserACL),
    MODULE_API(SetModuleUserACLString), MODULE_API(GetModuleUserACLString), MODULE_API(GetModuleUserFromUserName),
    MODULE_API(GetCurrentUserName), MODULE_API(GetClientUserNameById), MODULE_API(AuthenticateClientWithUser),
    MODULE_API(AuthenticateClientWithACLUser), MODULE_API(DeauthenticateAndCloseClient),
    MODULE_API(ACLCheckCommandPermissions), MODULE_API(ACLCheckKeyPermissions),
    MODULE_API(ACLCheckChannelPermissions), MODULE_API(ACLAddLogEntry), MODULE_API(RedactClientCommandArgument),
    MODULE_API(GetClientCertificate),
};

int moduleAclGetApi(const char *name, void *target) {
    return MODULE_API_LOOKUP(acl_api, name, target);
}
