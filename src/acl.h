/* acl.h -- ACL users and the checks made before a command runs (acl.c),
 * the ACL command (acl_cmd.c), the ACL log (acl_log.c), and the aclfile,
 * `user` and `rename-command` directives (acl_file.c).
 *
 * A user has flags (on/off, nopass, sanitize-payload), password hashes
 * (SHA-256, hex) and a list of selectors; the first is the root selector,
 * the others come from "(...)" rules. A selector holds what may be run
 * (a bitmap indexed by redisCommand.id, plus allowed first arguments),
 * which keys (patterns with read/write permission) and which channels.
 * A command is allowed when one selector allows all of it.
 *
 * Every client points to a user (c->user; the default user until AUTH).
 * Deleting a user disconnects its clients; changing one applies to them at
 * once, as in Redis 7.0.
 */
#ifndef REDIS_ACL_H
#define REDIS_ACL_H

#include "server.h"

typedef struct aclUser aclUser;

/* Results of a permission check, ordered as Redis orders them when it
 * picks the most relevant denial among selectors. */
#define ACL_OK 0
#define ACL_DENIED_CMD 1
#define ACL_DENIED_KEY 2
#define ACL_DENIED_AUTH 3
#define ACL_DENIED_CHANNEL 4

/* ACL LOG contexts */
#define ACL_LOG_CTX_TOPLEVEL 0
#define ACL_LOG_CTX_LUA 1
#define ACL_LOG_CTX_MULTI 2
#define ACL_LOG_CTX_MODULE 3 /* a module's ACLAddLogEntry */

/* ---- acl.c: users, rules, checks ---- */
void aclInit(void);                    /* after the config is read: default user, config users */
aclUser *aclDefaultUser(void);
aclUser *aclLookupUser(const char *name, size_t len);
const char *aclUserName(const aclUser *u);
int aclUserIsEnabled(const aclUser *u);
int aclDefaultUserRequiresAuth(void);  /* the default user has a password or is off */
int aclDefaultUserHasNoPassword(void); /* protected mode */
void aclUpdateDefaultUserPassword(void); /* requirepass changed */
int aclAuthenticate(client *c, robj *username, robj *password); /* C_OK: c is now that user; failures logged */
int aclClientHasFullKeyAccess(client *c);  /* SORT BY/GET patterns */
int aclCheckAllPerm(client *c, int *errpos); /* ACL_OK or ACL_DENIED_*, errpos: the argv index at fault */
int aclCheckCommandOfUser(aclUser *u, redisCommand *cmd, robj **argv, int argc, int *errpos);
void aclRejectCommand(client *c, int result, int errpos, sds *err); /* the NOPERM text, logged */
void aclRejectQueuedCommand(client *c, int result, int errpos);     /* EXEC: the rules changed */
const char *aclCategoryName(int category);
int aclCategoryCount(void);
unsigned aclCommandCategories(redisCommand *cmd); /* command_cmd.c */
int aclCategoryIndexByName(const char *name);     /* command_cmd.c; -1: none */

/* Users as ACL SETUSER / the aclfile see them. */
aclUser *aclCreateUser(const char *name, size_t len); /* NULL if it exists */
aclUser *aclCreateUnlinkedUser(void);                 /* for validating rules */
aclUser *aclNewUser(const char *name, size_t len);    /* in no table */
void aclFreeUser(aclUser *u);
void aclCopyUser(aclUser *dst, aclUser *src);
int aclSetUser(aclUser *u, const char *op, ssize_t len, sds *err); /* err: the reason */
sds *aclMergeSelectorArgs(sds *argv, int argc, int *merged_argc, int *bad_arg); /* NULL: unclosed '(' */
int aclSetUserFromArgs(aclUser *u, sds *argv, int argc, int *bad_arg, sds *err); /* selectors merged */
sds aclDescribeUser(aclUser *u);      /* the rules after "user <name> " in ACL LIST */
void aclAddReplyUser(client *c, aclUser *u); /* ACL GETUSER */
int aclValidUserName(const char *name, size_t len);
int aclDeleteUser(const char *name, size_t len); /* 1 if deleted; its clients are closed */
void aclUserChanged(aclUser *u);      /* clients subscribed to channels it lost are closed */
void aclRevokeClient(client *c);      /* back to the default user, unauthenticated, closed */
void aclFreeUserAndClients(aclUser *u); /* a user in no table (a module's); its clients revoked */
int aclUserCheckKey(aclUser *u, robj *key, uint64_t spec_flags); /* ACL_OK or ACL_DENIED_KEY */
int aclUserCheckChannel(aclUser *u, robj *channel, int is_pattern); /* ACL_OK or ACL_DENIED_CHANNEL */
sds *aclUserNamesSorted(long *count); /* sdsfreesplitres() it */
dict *aclUsersSwap(dict *users);      /* ACL LOAD: installs users, returns the old table */
void aclFreeUsersTable(dict *users, int kill_clients);
dict *aclCreateUsersTable(void);
int aclUserAddToTable(dict *users, aclUser *u);
aclUser *aclTableLookup(dict *users, const char *name, size_t len);
int aclNameIsUser(const aclUser *u, const char *name);
void aclSetDefaultUser(aclUser *u);

/* ---- acl_log.c ---- */
void aclLogAdd(client *c, int reason, int context, int errpos, sds username, sds object);
void aclLogCommand(client *c); /* ACL LOG [count | RESET] */

/* ---- acl_file.c ---- */
int aclConfigUserLine(sds *argv, int argc, sds *err);  /* `user` in the config file */
int aclConfigRenameCommand(sds *argv, int argc, sds *err); /* `rename-command` */
int aclLoadUsersAtStartup(void);     /* config users or the aclfile; C_ERR: exit */
int aclLoadFromFile(const char *path, sds *err);
int aclSaveToFile(const char *path, sds *err);
sds *aclConfigRewriteLines(int *count); /* CONFIG REWRITE's `user` lines; NULL: none (aclfile) */
extern int acl_commands_renamed;     /* lookupClientCommand() can't trust fullname any more */
extern char *acl_filename;           /* aclfile, "" or NULL: none */

/* acl-pubsub-default and enable-module-command (config.c's table points here) */
#define ACL_PUBSUB_RESETCHANNELS 0
#define ACL_PUBSUB_ALLCHANNELS 1
extern int acl_pubsub_default;
extern int enable_module_command;

#endif /* REDIS_ACL_H */
