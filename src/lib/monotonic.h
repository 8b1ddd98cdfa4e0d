/* monotonic.h -- a cheap monotonic microsecond clock for durations (see
 * monotonic.c for which counter each CPU uses). */
#ifndef REDIS_MONOTONIC_H
#define REDIS_MONOTONIC_H

/* Picks the clock; returns a short description for the start-up log. */
const char *monotonicInit(void);

/* Microseconds since an arbitrary origin; never goes backwards. */
long long monotonicUs(void);

#endif
