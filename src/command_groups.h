/* command_groups.h -- the groups commands.def files commands under, and the
 * ACL categories, as enums rather than strings: an entry that names a group
 * or a category that does not exist stops the build, where a typo in a
 * string ("strings") used to lose the command's @string category silently.
 *
 * A group is what COMMAND DOCS calls "group" and redis-cli's HELP @group
 * lists; it also gives a command its ACL category (command_cmd.c). Shared by
 * the server and the tools: nothing here depends on either.
 *
 * The groups are listed once, alphabetically by name (redis-cli offers them
 * in this order); X(TOKEN, "name") gives CMD_GROUP_TOKEN. */
#ifndef REDIS_COMMAND_GROUPS_H
#define REDIS_COMMAND_GROUPS_H

#define COMMAND_GROUP_LIST(X)                                                                          \
    X(BITMAP, "bitmap") X(CLUSTER, "cluster") X(CONNECTION, "connection") X(GENERIC, "generic")     \
    X(GEO, "geo") X(HASH, "hash") X(HYPERLOGLOG, "hyperloglog") X(LIST, "list") X(PUBSUB, "pubsub") \
    X(SCRIPTING, "scripting") X(SERVER, "server") X(SET, "set") X(SORTED_SET, "sorted-set")          \
    X(STREAM, "stream") X(STRING, "string") X(TRANSACTIONS, "transactions")

#define COMMAND_GROUP_ENUM_(token, name) CMD_GROUP_##token,
enum commandGroup { CMD_GROUP_NONE, COMMAND_GROUP_LIST(COMMAND_GROUP_ENUM_) CMD_GROUP_COUNT };
#undef COMMAND_GROUP_ENUM_

/* "sorted-set" for CMD_GROUP_SORTED_SET; NULL for none. */
static inline const char *commandGroupName(int group) {
#define COMMAND_GROUP_NAME_(token, name) name,
    static const char *const names[] = {NULL, COMMAND_GROUP_LIST(COMMAND_GROUP_NAME_)};
#undef COMMAND_GROUP_NAME_
    return group > CMD_GROUP_NONE && group < CMD_GROUP_COUNT ? names[group] : NULL;
}

/* The ACL categories, in Redis's order (the order COMMAND INFO lists them
 * in); an entry's ACL(...) extra takes ACL_CAT_BIT()s of these. */
enum aclCategory {
    ACL_CAT_KEYSPACE, ACL_CAT_READ, ACL_CAT_WRITE, ACL_CAT_SET, ACL_CAT_SORTEDSET, ACL_CAT_LIST, ACL_CAT_HASH,
    ACL_CAT_STRING, ACL_CAT_BITMAP, ACL_CAT_HYPERLOGLOG, ACL_CAT_GEO, ACL_CAT_STREAM, ACL_CAT_PUBSUB,
    ACL_CAT_ADMIN, ACL_CAT_FAST, ACL_CAT_SLOW, ACL_CAT_BLOCKING, ACL_CAT_DANGEROUS, ACL_CAT_CONNECTION,
    ACL_CAT_TRANSACTION, ACL_CAT_SCRIPTING, ACL_CAT_COUNT
};
#define ACL_CAT_BIT(c) (1u << (c))

#endif
