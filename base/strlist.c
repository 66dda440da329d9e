#include "base/strlist.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int strlist_reserve(strlist_t *l, size_t extra)
{
    if (l->n + extra <= l->cap)
        return 0;
    size_t cap = l->cap ? l->cap * 2 : 8;
    while (cap < l->n + extra)
        cap *= 2;
    char **items = realloc(l->items, cap * sizeof *items);
    if (!items)
        return -1;
    l->items = items;
    l->cap = cap;
    return 0;
}

int strlist_push_owned(strlist_t *l, char *s)
{
    if (!s || strlist_reserve(l, 1) != 0) {
        free(s);
        return -1;
    }
    l->items[l->n++] = s;
    return 0;
}

int strlist_push(strlist_t *l, const char *s)
{
    return strlist_push_owned(l, strdup(s));
}

int strlist_pushf(strlist_t *l, const char *fmt, ...)
{
    va_list ap;
    char *s = NULL;
    va_start(ap, fmt);
    int rc = vasprintf(&s, fmt, ap);
    va_end(ap);
    if (rc < 0)
        return -1;
    return strlist_push_owned(l, s);
}

void strlist_clear(strlist_t *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->items[i]);
    free(l->items);
    l->items = NULL;
    l->n = l->cap = 0;
}
