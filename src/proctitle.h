/* proctitle.h -- the process title `ps` shows (set-proc-title,
 * proc-title-template). See proctitle.c for the design. */
#ifndef REDIS_PROCTITLE_H
#define REDIS_PROCTITLE_H

#include "sds.h"

/* First thing in main(), before argv's strings are used: makes the argv and
 * environment strings safe to overwrite (they are copied elsewhere and the
 * argv[] / environ pointers are redirected to the copies). */
void procTitleInit(int argc, char **argv);

/* Expands proc-title-template with {title} = title (NULL: the executable,
 * for the main process) and shows the result. Does nothing with
 * `set-proc-title no`. C_ERR only if the template does not expand. */
int procTitleSet(const char *title);

/* Config hooks for proc-title-template: the validator (Redis's rule: the
 * template must expand, with an empty {title}, to something non-blank) and
 * the apply function (retitles the running server). */
int procTitleValidateTemplate(const char *value, sds *err);
int procTitleApplyTemplate(sds *err);

#endif /* REDIS_PROCTITLE_H */
