/* thp.h -- reading the kernel's transparent huge page setting.
 *
 * /sys/kernel/mm/transparent_hugepage/enabled holds the choices with the
 * active one in brackets: "always [madvise] never". thpParseMode() turns
 * that text into a THP_MODE_* value. It is a pure function, inline in this
 * header, so the C unit tests check it without a server or a sysfs (the
 * test machine is rarely set to `always`); thp.c does the reading and acts
 * on the answer at start-up (disable-thp).
 */
#ifndef THP_H
#define THP_H

#include <string.h>

#define THP_MODE_UNKNOWN 0 /* no brackets, or a word we don't know */
#define THP_MODE_ALWAYS 1
#define THP_MODE_MADVISE 2
#define THP_MODE_NEVER 3

static inline int thpParseMode(const char *text) {
    static const struct { const char *word; int mode; } words[] = {
        {"[always]", THP_MODE_ALWAYS}, {"[madvise]", THP_MODE_MADVISE}, {"[never]", THP_MODE_NEVER}};
    for (size_t j = 0; j < sizeof(words) / sizeof(words[0]); j++)
        if (strstr(text, words[j].word)) return words[j].mode;
    return THP_MODE_UNKNOWN;
}

#endif
