/*
 * avro_text: the growable buffer every writer uses, and JSON printed the way
 * Jackson prints it, since the stored canonical text is Jackson's output.
 */
#include "compat/avro_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int buf_reserve(avro_buf_t *b, size_t extra)
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

void avro_buf_put(avro_buf_t *b, const char *s, size_t n)
{
    if (buf_reserve(b, n) != 0)
        return;
    memcpy(b->data + b->len, s, n);
    b->len += n;
    b->data[b->len] = '\0';
}

void avro_buf_puts(avro_buf_t *b, const char *s)
{
    avro_buf_put(b, s, strlen(s));
}

void avro_buf_putc(avro_buf_t *b, char c)
{
    avro_buf_put(b, &c, 1);
}

void avro_buf_printf(avro_buf_t *b, const char *fmt, ...)
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
        avro_buf_put(b, small, (size_t)n);
        return;
    }
    if (buf_reserve(b, (size_t)n) != 0)
        return;
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

char *avro_buf_take(avro_buf_t *b)
{
    if (!b->failed && !b->data)
        buf_reserve(b, 0);
    char *out = b->failed ? NULL : b->data;
    if (b->failed)
        free(b->data);
    else
        out[b->len] = '\0';
    b->data = NULL;
    b->len = b->cap = 0;
    b->failed = 0;
    return out;
}

void avro_buf_discard(avro_buf_t *b)
{
    free(avro_buf_take(b));
}

/* Jackson's standard escapes: the two mandatory ones, short forms for five
 * control characters, \u00XX (upper-case hex) for the other controls;
 * everything else, non-ASCII included, is written as is. */
static const char *json_short_escape(unsigned char c)
{
    switch (c) {
    case '"': return "\\\"";
    case '\\': return "\\\\";
    case '\b': return "\\b";
    case '\t': return "\\t";
    case '\f': return "\\f";
    case '\n': return "\\n";
    case '\r': return "\\r";
    default: return NULL;
    }
}

void avro_buf_json_string(avro_buf_t *b, const char *s)
{
    avro_buf_putc(b, '"');
    const char *run = s;
    for (const char *p = s; *p; p++) {
        unsigned char c = (unsigned char)*p;
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        avro_buf_put(b, run, (size_t)(p - run));
        const char *esc = json_short_escape(c);
        if (esc)
            avro_buf_puts(b, esc);
        else
            avro_buf_printf(b, "\\u%04X", c);
        run = p + 1;
    }
    avro_buf_puts(b, run);
    avro_buf_putc(b, '"');
}

static void json_write_array(avro_buf_t *b, const json_t *v)
{
    avro_buf_putc(b, '[');
    for (size_t i = 0; i < json_array_size(v); i++) {
        if (i)
            avro_buf_putc(b, ',');
        avro_buf_json_value(b, json_array_get(v, i));
    }
    avro_buf_putc(b, ']');
}

static void json_write_object(avro_buf_t *b, const json_t *v)
{
    const char *key;
    json_t *member;
    int first = 1;
    avro_buf_putc(b, '{');
    /* jansson's iteration API takes a non-const object; nothing is modified. */
    json_object_foreach((json_t *)v, key, member) {
        if (!first)
            avro_buf_putc(b, ',');
        first = 0;
        avro_buf_json_string(b, key);
        avro_buf_putc(b, ':');
        avro_buf_json_value(b, member);
    }
    avro_buf_putc(b, '}');
}

void avro_buf_json_value(avro_buf_t *b, const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: json_write_object(b, v); break;
    case JSON_ARRAY: json_write_array(b, v); break;
    case JSON_STRING: avro_buf_json_string(b, json_string_value(v)); break;
    case JSON_INTEGER: avro_buf_printf(b, "%" JSON_INTEGER_FORMAT, json_integer_value(v)); break;
    case JSON_REAL: avro_buf_java_double(b, json_real_value(v)); break;
    case JSON_TRUE: avro_buf_puts(b, "true"); break;
    case JSON_FALSE: avro_buf_puts(b, "false"); break;
    case JSON_NULL: avro_buf_puts(b, "null"); break;
    }
}
