/* test_ae_poll.c -- runs the event-loop tests of test_ae.c against the
 * poll() backend, which is the fallback on systems without epoll/kqueue and
 * so would otherwise go untested on Linux.
 *
 * The event loop is compiled into this program with AE_FORCE_POLL; its
 * definitions take precedence over the library's ae.o (the linker never
 * pulls an archive member whose symbols are already defined).
 */
#define AE_FORCE_POLL 1
#include "../../src/lib/ae.c"
#include "test_ae.c"
