/* version.h -- the versions this server reports.
 *
 * REDIS_VERSION is the Redis release whose replies and behaviour every
 * implemented command matches (the test suite is validated against Debian's
 * Redis 7.0.15). Clients switch on it (HELLO "version", INFO redis_version),
 * so it must never name a release whose features we lack: claiming 7.2 made
 * clients use XADD inside MULTI, which we don't implement. It is also what
 * --version, the tools' --version and the RDB "redis-ver" aux field say.
 *
 * The project's own identity is reported beside it, in fields of its own,
 * as Valkey does: INFO server "server_name:<PROJECT_NAME>" and
 * "<PROJECT_NAME>_version:<PROJECT_VERSION>", and --version's build field. */
#ifndef REDIS_VERSION_H
#define REDIS_VERSION_H
#define REDIS_VERSION "7.0.15"
#define SERVER_NAME "redis" /* HELLO's "server": clients compare it with "redis" */
#define PROJECT_NAME "portable"
#define PROJECT_VERSION "0.8.0"
#endif
