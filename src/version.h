/* version.h -- the version this server reports (INFO, --version, HELLO).
 * Tracks the Redis version whose behaviour we match. */
#ifndef REDIS_VERSION_H
#define REDIS_VERSION_H
#define REDIS_VERSION "7.2.4"
#define SERVER_NAME "redis"
#endif
