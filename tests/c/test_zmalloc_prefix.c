/* test_zmalloc_prefix.c -- the zmalloc tests again, with the size-prefix
 * scheme used on libcs that cannot report usable sizes.
 *
 * This host's libc can, so the scheme would otherwise go untested: this
 * program compiles its own copy of zmalloc.c with ZMALLOC_FORCE_PREFIX (and
 * without jemalloc). Its definitions take precedence over libredis.a's, so
 * the linker never pulls the archive's zmalloc.o into this program.
 */
#undef USE_JEMALLOC
#define ZMALLOC_FORCE_PREFIX 1
#include "../../src/lib/zmalloc.c"
#include "test_zmalloc.c"
