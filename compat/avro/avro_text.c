/*
 * avro_text: the growable buffer every writer uses, and JSON printed the way
 * Jackson prints it, since the stored canonical text is Jackson's output.
 */
#include "compat/avro/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void avro_buf_json_stringn(strbuf_t *b, const char *s, size_t len)
{
    strbuf_putc(b, '"');
    const char *run = s, *end = s + len;
    for (const char *p = s; p < end; p++) {
        unsigned char c = (unsigned char)*p;
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        strbuf_put(b, run, (size_t)(p - run));
        const char *esc = json_short_escape(c);
        if (esc)
            strbuf_puts(b, esc);
        else
            strbuf_printf(b, "\\u%04X", c);
        run = p + 1;
    }
    strbuf_put(b, run, (size_t)(end - run));
    strbuf_putc(b, '"');
}

void avro_buf_json_string(strbuf_t *b, const char *s)
{
    avro_buf_json_stringn(b, s, strlen(s));
}

static void json_write_array(strbuf_t *b, const json_t *v)
{
    strbuf_putc(b, '[');
    for (size_t i = 0; i < json_array_size(v); i++) {
        if (i)
            strbuf_putc(b, ',');
        avro_buf_json_value(b, json_array_get(v, i));
    }
    strbuf_putc(b, ']');
}

static void json_write_object(strbuf_t *b, const json_t *v)
{
    const char *key;
    json_t *member;
    int first = 1;
    strbuf_putc(b, '{');
    /* jansson's iteration API takes a non-const object; nothing is modified. */
    json_object_foreach((json_t *)v, key, member)
    {
        if (!first)
            strbuf_putc(b, ',');
        first = 0;
        avro_buf_json_string(b, key);
        strbuf_putc(b, ':');
        avro_buf_json_value(b, member);
    }
    strbuf_putc(b, '}');
}

void avro_buf_json_value(strbuf_t *b, const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: json_write_object(b, v); break;
    case JSON_ARRAY: json_write_array(b, v); break;
    case JSON_STRING:
        /* A big integer (avro_json.c) is a number: Jackson writes its digits. */
        if (avro_json_is_bigint(v))
            strbuf_puts(b, avro_json_bigint_digits(v));
        else
            avro_buf_json_stringn(b, json_string_value(v), json_string_length(v));
        break;
    case JSON_INTEGER: strbuf_printf(b, "%" JSON_INTEGER_FORMAT, json_integer_value(v)); break;
    case JSON_REAL: avro_buf_java_double(b, json_real_value(v)); break;
    case JSON_TRUE: strbuf_puts(b, "true"); break;
    case JSON_FALSE: strbuf_puts(b, "false"); break;
    case JSON_NULL: strbuf_puts(b, "null"); break;
    }
}
