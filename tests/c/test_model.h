/* test_model.h -- the reference model of the packed-encoding tests: a plain
 * array of byte strings (each also NUL-terminated for convenience) that
 * random listpack and quicklist operations are checked against. Included by
 * one test program each, so static functions are fine. */
#ifndef TEST_MODEL_H
#define TEST_MODEL_H

#include <stdlib.h>
#include <string.h>

typedef struct model {
    char **v;
    size_t *len;
    size_t n, cap;
} model;

static void model_insert(model *m, size_t at, const void *s, size_t len) {
    if (m->n == m->cap) {
        m->cap = m->cap ? m->cap * 2 : 16;
        m->v = realloc(m->v, m->cap * sizeof *m->v);
        m->len = realloc(m->len, m->cap * sizeof *m->len);
    }
    memmove(m->v + at + 1, m->v + at, (m->n - at) * sizeof *m->v);
    memmove(m->len + at + 1, m->len + at, (m->n - at) * sizeof *m->len);
    m->v[at] = malloc(len + 1);
    memcpy(m->v[at], s, len);
    m->v[at][len] = '\0';
    m->len[at] = len;
    m->n++;
}

static void model_delete(model *m, size_t at, size_t count) {
    for (size_t i = at; i < at + count; i++) free(m->v[i]);
    memmove(m->v + at, m->v + at + count, (m->n - at - count) * sizeof *m->v);
    memmove(m->len + at, m->len + at + count, (m->n - at - count) * sizeof *m->len);
    m->n -= count;
}

static void model_free(model *m) {
    model_delete(m, 0, m->n);
    free(m->v);
    free(m->len);
    memset(m, 0, sizeof *m);
}

#endif /* TEST_MODEL_H */
