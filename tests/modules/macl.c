/* macl.c -- a test module for module users and the ACL API (CreateModuleUser,
 * SetModuleUserACL(String), AuthenticateClientWith(ACL)User, the user-changed
 * callback, DeauthenticateAndCloseClient, the ACLCheck*Permissions, ACLAddLogEntry,
 * RedactClientCommandArgument ...), used by tests/unit/moduleapi-acl.tcl. Built
 * against Redis 7.0's redismodule.h by utils/build-test-modules.sh, so the same
 * .so runs in Redis 7.0.15.
 *
 * The module keeps one user of its own ("the module user"); USER arguments
 * below name an ACL user, or "@mod" for the module user.
 * MACL.CREATE name [rule ...]: frees the previous module user, makes a new one
 *   and applies each rule with SetModuleUserACL: OK, or "ERR rule <r> refused <errno>".
 * MACL.RULES string: SetModuleUserACLString; OK or its error text as an error.
 * MACL.DESCRIBE: GetModuleUserACLString.
 * MACL.AUTH: AuthenticateClientWithUser (module user) with the callback; the
 *   client id it gave. MACL.AUTHACL name: the same with an ACL user.
 * MACL.FREE: FreeModuleUser. MACL.DEAUTH id: DeauthenticateAndCloseClient.
 * MACL.CALLBACKS: {count of callbacks, the last client id heard}.
 * MACL.WHOAMI: GetCurrentUserName. MACL.USERNAME id: GetClientUserNameById, or
 *   "ERR errno <name>".
 * MACL.CHECKCMD user cmd [arg ...], MACL.CHECKKEY user flags key (flags: letters
 *   R=ACCESS W=UPDATE I=INSERT D=DELETE O=RO(invalid), "-" none),
 *   MACL.CHECKCHAN user flags channel (P=PATTERN B=PUBLISH S=SUBSCRIBE
 *   U=UNSUBSCRIBE X=an unknown bit, "-" none): OK or "ERR denied <errno name>".
 * MACL.LOG user reason object: ACLAddLogEntry (reason as the enum's number).
 * MACL.REDACT a b c ...: redacts argument 2, and answers what it still reads
 *   there, then the results of redacting positions 0 and argc (both refused).
 * MACL.CERT: GetClientCertificate of the caller (null without TLS). */
#include "redismodule.h"

#include <errno.h>
#include <string.h>

static RedisModuleUser *mod_user;
static long long callbacks;
static unsigned long long last_client;

static void userChanged(uint64_t client_id, void *privdata) {
    callbacks += (long long)(size_t)privdata;
    last_client = client_id;
}

static const char *errnoName(int e) {
    switch (e) {
    case ENOENT: return "ENOENT";
    case EACCES: return "EACCES";
    case EINVAL: return "EINVAL";
    case ENOTSUP: return "ENOTSUP";
    case EEXIST: return "EEXIST";
    case EISDIR: return "EISDIR";
    case ECHILD: return "ECHILD";
    case EBADMSG: return "EBADMSG";
    case ENODEV: return "ENODEV";
    default: return "other";
    }
}

static int replyErrno(RedisModuleCtx *ctx, const char *what) {
    char buf[64];
    strcpy(buf, "ERR ");
    strcat(buf, what);
    strcat(buf, " ");
    strcat(buf, errnoName(errno));
    return RedisModule_ReplyWithError(ctx, buf);
}

/* The user an argument names; *temp tells the caller to free the handle. */
static RedisModuleUser *userOf(RedisModuleString *name, int *temp) {
    *temp = 0;
    if (!strcmp(RedisModule_StringPtrLen(name, NULL), "@mod")) return mod_user;
    *temp = 1;
    return RedisModule_GetModuleUserFromUserName(name);
}

static int Create(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc < 2) return RedisModule_WrongArity(ctx);
    RedisModule_AutoMemory(ctx); /* the error text */
    if (mod_user) RedisModule_FreeModuleUser(mod_user);
    mod_user = RedisModule_CreateModuleUser(RedisModule_StringPtrLen(argv[1], NULL));
    for (int j = 2; j < argc; j++) {
        const char *rule = RedisModule_StringPtrLen(argv[j], NULL);
        errno = 0;
        if (RedisModule_SetModuleUserACL(mod_user, rule) == REDISMODULE_OK) continue;
        RedisModuleString *msg = RedisModule_CreateStringPrintf(ctx, "ERR rule %s refused %s", rule, errnoName(errno));
        return RedisModule_ReplyWithError(ctx, RedisModule_StringPtrLen(msg, NULL));
    }
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

static int Rules(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    if (mod_user == NULL) return RedisModule_ReplyWithError(ctx, "ERR no module user");
    RedisModule_AutoMemory(ctx); /* the error and its text */
    RedisModuleString *err = NULL;
    if (RedisModule_SetModuleUserACLString(ctx, mod_user, RedisModule_StringPtrLen(argv[1], NULL), &err) ==
        REDISMODULE_OK)
        return RedisModule_ReplyWithSimpleString(ctx, "OK");
    if (err == NULL) return RedisModule_ReplyWithError(ctx, "ERR refused without a reason");
    RedisModuleString *msg = RedisModule_CreateStringPrintf(ctx, "ERR %s", RedisModule_StringPtrLen(err, NULL));
    return RedisModule_ReplyWithError(ctx, RedisModule_StringPtrLen(msg, NULL));
}

static int Describe(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    if (argc != 1) return RedisModule_WrongArity(ctx);
    if (mod_user == NULL) return RedisModule_ReplyWithNull(ctx);
    RedisModuleString *s = RedisModule_GetModuleUserACLString(mod_user);
    RedisModule_ReplyWithString(ctx, s);
    RedisModule_FreeString(NULL, s);
    return REDISMODULE_OK;
}

static int Auth(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    if (argc != 1) return RedisModule_WrongArity(ctx);
    if (mod_user == NULL) return RedisModule_ReplyWithError(ctx, "ERR no module user");
    uint64_t id = 0;
    if (RedisModule_AuthenticateClientWithUser(ctx, mod_user, userChanged, (void *)1, &id) != REDISMODULE_OK)
        return RedisModule_ReplyWithError(ctx, "ERR authentication refused");
    return RedisModule_ReplyWithLongLong(ctx, (long long)id);
}

static int AuthAcl(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    size_t len;
    const char *name = RedisModule_StringPtrLen(argv[1], &len);
    uint64_t id = 0;
    if (RedisModule_AuthenticateClientWithACLUser(ctx, name, len, userChanged, (void *)1, &id) != REDISMODULE_OK)
        return RedisModule_ReplyWithError(ctx, "ERR authentication refused");
    return RedisModule_ReplyWithLongLong(ctx, (long long)id);
}

static int Free(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    if (argc != 1) return RedisModule_WrongArity(ctx);
    if (mod_user) RedisModule_FreeModuleUser(mod_user);
    mod_user = NULL;
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

static int Deauth(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    long long id;
    if (RedisModule_StringToLongLong(argv[1], &id) != REDISMODULE_OK) return RedisModule_ReplyWithError(ctx, "ERR id");
    if (RedisModule_DeauthenticateAndCloseClient(ctx, (uint64_t)id) != REDISMODULE_OK)
        return RedisModule_ReplyWithError(ctx, "ERR no such client");
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

static int Callbacks(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    if (argc != 1) return RedisModule_WrongArity(ctx);
    RedisModule_ReplyWithArray(ctx, 2);
    RedisModule_ReplyWithLongLong(ctx, callbacks);
    return RedisModule_ReplyWithLongLong(ctx, (long long)last_client);
}

static int Whoami(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    if (argc != 1) return RedisModule_WrongArity(ctx);
    RedisModuleString *name = RedisModule_GetCurrentUserName(ctx);
    RedisModule_ReplyWithString(ctx, name);
    RedisModule_FreeString(ctx, name);
    return REDISMODULE_OK;
}

static int Username(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    long long id;
    if (RedisModule_StringToLongLong(argv[1], &id) != REDISMODULE_OK) return RedisModule_ReplyWithError(ctx, "ERR id");
    errno = 0;
    RedisModuleString *name = RedisModule_GetClientUserNameById(ctx, (uint64_t)id);
    if (name == NULL) return replyErrno(ctx, "errno");
    RedisModule_ReplyWithString(ctx, name);
    RedisModule_FreeString(ctx, name);
    return REDISMODULE_OK;
}

/* The three checks: which = 'c', 'k' or 'h'. */
static int check(RedisModuleCtx *ctx, RedisModuleString **argv, int argc, char which) {
    int temp;
    RedisModuleUser *user = userOf(argv[1], &temp);
    if (user == NULL) return RedisModule_ReplyWithError(ctx, "ERR no such user");
    int res;
    errno = 0;
    if (which == 'c') {
        res = RedisModule_ACLCheckCommandPermissions(user, argv + 2, argc - 2);
    } else if (which == 'k') {
        const char *f = RedisModule_StringPtrLen(argv[2], NULL);
        int flags = 0;
        for (; *f; f++) {
            if (*f == 'R') flags |= REDISMODULE_CMD_KEY_ACCESS;
            if (*f == 'W') flags |= REDISMODULE_CMD_KEY_UPDATE;
            if (*f == 'I') flags |= REDISMODULE_CMD_KEY_INSERT;
            if (*f == 'D') flags |= REDISMODULE_CMD_KEY_DELETE;
            if (*f == 'O') flags |= REDISMODULE_CMD_KEY_RO;
        }
        res = RedisModule_ACLCheckKeyPermissions(user, argv[3], flags);
    } else {
        /* 7.0's header calls the argument "literal"; the server reads flags */
        const char *f = RedisModule_StringPtrLen(argv[2], NULL);
        int flags = 0;
        for (; *f; f++) {
            if (*f == 'P') flags |= REDISMODULE_CMD_CHANNEL_PATTERN;
            if (*f == 'B') flags |= REDISMODULE_CMD_CHANNEL_PUBLISH;
            if (*f == 'S') flags |= REDISMODULE_CMD_CHANNEL_SUBSCRIBE;
            if (*f == 'U') flags |= REDISMODULE_CMD_CHANNEL_UNSUBSCRIBE;
            if (*f == 'X') flags |= 1 << 4;
        }
        res = RedisModule_ACLCheckChannelPermissions(user, argv[3], flags);
    }
    if (temp) RedisModule_FreeModuleUser(user);
    if (res == REDISMODULE_OK) return RedisModule_ReplyWithSimpleString(ctx, "OK");
    return replyErrno(ctx, "denied");
}

static int CheckCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc < 3) return RedisModule_WrongArity(ctx);
    return check(ctx, argv, argc, 'c');
}

static int CheckKey(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 4) return RedisModule_WrongArity(ctx);
    return check(ctx, argv, argc, 'k');
}

static int CheckChan(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 4) return RedisModule_WrongArity(ctx);
    return check(ctx, argv, argc, 'h');
}

static int Log(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 4) return RedisModule_WrongArity(ctx);
    int temp;
    RedisModuleUser *user = userOf(argv[1], &temp);
    if (user == NULL) return RedisModule_ReplyWithError(ctx, "ERR no such user");
    long long reason;
    RedisModule_StringToLongLong(argv[2], &reason);
    RedisModule_ACLAddLogEntry(ctx, user, argv[3], (RedisModuleACLLogEntryReason)reason);
    if (temp) RedisModule_FreeModuleUser(user);
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

static int Redact(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc < 3) return RedisModule_WrongArity(ctx);
    int first = RedisModule_RedactClientCommandArgument(ctx, 2);
    RedisModule_ReplyWithArray(ctx, 4);
    RedisModule_ReplyWithLongLong(ctx, first);
    RedisModule_ReplyWithString(ctx, argv[2]);
    RedisModule_ReplyWithLongLong(ctx, RedisModule_RedactClientCommandArgument(ctx, 0));
    return RedisModule_ReplyWithLongLong(ctx, RedisModule_RedactClientCommandArgument(ctx, argc));
}

static int Cert(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    if (argc != 1) return RedisModule_WrongArity(ctx);
    RedisModuleString *cert = RedisModule_GetClientCertificate(ctx, RedisModule_GetClientId(ctx));
    if (cert == NULL) return RedisModule_ReplyWithNull(ctx);
    RedisModule_ReplyWithString(ctx, cert);
    RedisModule_FreeString(NULL, cert);
    return REDISMODULE_OK;
}

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    if (RedisModule_Init(ctx, "macl", 1, REDISMODULE_APIVER_1) == REDISMODULE_ERR) return REDISMODULE_ERR;
    static const struct {
        const char *name;
        RedisModuleCmdFunc fn;
    } cmds[] = {
        {"macl.create", Create},     {"macl.rules", Rules},         {"macl.describe", Describe},
        {"macl.auth", Auth},         {"macl.authacl", AuthAcl},     {"macl.free", Free},
        {"macl.deauth", Deauth},     {"macl.callbacks", Callbacks}, {"macl.whoami", Whoami},
        {"macl.username", Username}, {"macl.checkcmd", CheckCmd},   {"macl.checkkey", CheckKey},
        {"macl.checkchan", CheckChan}, {"macl.log", Log},           {"macl.redact", Redact},
        {"macl.cert", Cert},
    };
    for (size_t j = 0; j < sizeof cmds / sizeof cmds[0]; j++)
        if (RedisModule_CreateCommand(ctx, cmds[j].name, cmds[j].fn, "", 0, 0, 0) == REDISMODULE_ERR)
            return REDISMODULE_ERR;
    return REDISMODULE_OK;
}

/* The module user is freed at unload, which revokes its clients. */
int RedisModule_OnUnload(RedisModuleCtx *ctx) {
    (void)ctx;
    if (mod_user) RedisModule_FreeModuleUser(mod_user);
    mod_user = NULL;
    return REDISMODULE_OK;
}
