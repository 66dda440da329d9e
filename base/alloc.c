/*
 * alloc: the aborting allocation wrappers (alloc.h).
 */
#include "base/alloc.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"

void base_oom(size_t size)
{
    log_error("out of memory (%zu bytes); aborting", size);
    abort();
}

void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (p == NULL)
        base_oom(size);
    return p;
}

void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (p == NULL)
        base_oom(count * size);
    return p;
}

void *xrealloc(void *p, size_t size)
{
    void *q = realloc(p, size ? size : 1);
    if (q == NULL)
        base_oom(size);
    return q;
}

void *xreallocarray(void *p, size_t count, size_t size)
{
    if (size != 0 && count > SIZE_MAX / size)
        base_oom(SIZE_MAX);
    return xrealloc(p, count * size);
}

char *xstrndup(const char *s, size_t n)
{
    char *p = xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *xstrdup(const char *s)
{
    return xstrndup(s, strlen(s));
}

char *xvasprintf(const char *fmt, va_list ap)
{
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0)
        base_oom(strlen(fmt));
    return s;
}

char *xasprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = xvasprintf(fmt, ap);
    va_end(ap);
    return s;
}
