#include "base/strbuf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int strbuf_reserve(strbuf_t *b, size_t extra)
{
    if (b->failed)
        return -1;
    if (b->len + extra + 1 <= b->cap)
        return 0;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + extra + 1) {
        if (cap > SIZE_MAX / 2) {
            b->failed = 1;
            return -1;
        }
        cap *= 2;
    }
    char *data = realloc(b->data, cap);
    if (!data) {
        b->failed = 1;
        return -1;
    }
    b->data = data;
    b->cap = cap;
    return 0;
}

void strbuf_put(strbuf_t *b, const char *s, size_t len)
{
    if (strbuf_reserve(b, len) != 0)
        return;
    if (len)
        memcpy(b->data + b->len, s, len);
    b->len += len;
    b->data[b->len] = '\0';
}

void strbuf_puts(strbuf_t *b, const char *s)
{
    strbuf_put(b, s, strlen(s));
}

void strbuf_putc(strbuf_t *b, char c)
{
    strbuf_put(b, &c, 1);
}

void strbuf_printf(strbuf_t *b, const char *fmt, ...)
{
    char small[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->failed = 1;
        return;
    }
    if ((size_t)n < sizeof small) {
        strbuf_put(b, small, (size_t)n);
        return;
    }
    if (strbuf_reserve(b, (size_t)n) != 0)
        return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

char *strbuf_take(strbuf_t *b)
{
    if (b->failed || (!b->data && strbuf_reserve(b, 0) != 0)) {
        strbuf_free(b);
        return NULL;
    }
    char *text = b->data;
    text[b->len] = '\0';
    b->data = NULL;
    b->len = b->cap = 0;
    return text;
}

void strbuf_free(strbuf_t *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
    b->failed = 0;
}
