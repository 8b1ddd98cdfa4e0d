/* lazy_libm.c -- the server maps glibc's libm only when a math function is
 * first called, not at start-up.
 *
 * Two features need libm's transcendental functions: Lua (its math
 * library, `^` and `%`) and GEO's haversine distance (sin, cos, asin). A
 * server that runs neither still paid for a NEEDED libm.so.6: ~320 KB of
 * RSS at start-up (its pages mapped while the dynamic linker relocates it
 * and searches it for every symbol of the objects after it). glibc's
 * static libm.a cannot be linked into a dynamic executable (its ifunc
 * resolvers use a private symbol of the dynamic linker), so instead the
 * server defines the few functions it uses itself: each forwards to
 * libm's, found with dlopen(LIBM_SO)/dlsym on its first call. Every
 * caller gets glibc's own results, bit for bit (GEO's numbers stay
 * Redis's).
 *
 * Design decisions:
 * - Compiled only with LAZY_LIBM, which the Makefile sets for the
 *   dynamically linked glibc server; static ports and the tools link -lm
 *   as before (in a static binary libm costs only the functions used).
 * - The list is exactly the libm symbols the server references (frexp,
 *   ldexp and modf are in libc too, but libm, earlier on the link line,
 *   would be the one to supply them and so be needed). A new one used
 *   elsewhere is not an error: --as-needed then links libm again, and the
 *   start-up figure (utils/bench-script-memory.sh --fresh) shows it.
 * - One pointer per function, resolved once; a libm that cannot be loaded
 *   is a panic (the same failure as a missing NEEDED library, only later).
 */
#ifdef LAZY_LIBM

#include "server.h"

#include <dlfcn.h>
#include <gnu/lib-names.h>
#include <math.h>

static void *lazyLibmSymbol(const char *name) {
    static void *libm;
    if (libm == NULL && (libm = dlopen(LIBM_SO, RTLD_NOW | RTLD_LOCAL)) == NULL)
        serverPanic("cannot load %s: %s", LIBM_SO, dlerror());
    void *fn = dlsym(libm, name);
    if (fn == NULL) serverPanic("%s has no %s", LIBM_SO, name);
    return fn;
}

#define LAZY_LIBM_UNARY(X) X(acos) X(asin) X(atan) X(cos) X(cosh) X(exp) X(floor) X(log) X(log10) \
    X(sin) X(sinh) X(sqrt) X(tan) X(tanh)
#define LAZY_LIBM_BINARY(X) X(atan2) X(fmod) X(pow)

#define LAZY_UNARY(name)                                                 \
    double name(double x) {                                              \
        static double (*real)(double);                                   \
        if (real == NULL) *(void **)&real = lazyLibmSymbol(#name);       \
        return real(x);                                                  \
    }
#define LAZY_BINARY(name)                                                \
    double name(double x, double y) {                                    \
        static double (*real)(double, double);                           \
        if (real == NULL) *(void **)&real = lazyLibmSymbol(#name);       \
        return real(x, y);                                               \
    }

#define LAZY_OTHER(ret, name, params, args)                              \
    ret name params {                                                    \
        static ret(*real) params;                                        \
        if (real == NULL) *(void **)&real = lazyLibmSymbol(#name);       \
        return real args;                                                \
    }

LAZY_LIBM_UNARY(LAZY_UNARY)
LAZY_LIBM_BINARY(LAZY_BINARY)
LAZY_OTHER(double, frexp, (double x, int *exp), (x, exp))
LAZY_OTHER(double, ldexp, (double x, int exp), (x, exp))
LAZY_OTHER(double, modf, (double x, double *iptr), (x, iptr))

#endif /* LAZY_LIBM */
