/*
 * avro_encode: JSON rows -> Avro binary (client.h, section 3), the inverse
 * of avro_decode.c's rows, so that tests and users can produce records.
 * Unions take the first branch the value fits, or {"branch": value} (Avro's
 * JSON encoding) to choose one; a record's missing fields take their defaults.
 */
#include "client/internal.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

#define ENC_MAX_DEPTH 256

typedef struct enc {
    strbuf_t *out;
    char *error;
} enc_t;

static int enc_fail(enc_t *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int enc_fail(enc_t *e, const char *fmt, ...)
{
    if (e->error)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    e->error = xvasprintf(fmt, ap);
    va_end(ap);
    return -1;
}

static void enc_long(strbuf_t *b, int64_t v)
{
    uint64_t u = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
    char buf[10];
    int n = 0;
    while (u >= 0x80) {
        buf[n++] = (char)(u | 0x80);
        u >>= 7;
    }
    buf[n++] = (char)u;
    strbuf_put(b, buf, (size_t)n);
}

static void enc_bytes(strbuf_t *b, const char *s, size_t n)
{
    enc_long(b, (int64_t)n);
    strbuf_put(b, s, n);
}

static const char *enc_label(const avro_node_t *n)
{
    static const char *const names[] = {"null",   "boolean", "int",    "long",   "float",
                                        "double", "bytes",   "string", "record", "enum",
                                        "array",  "map",     "union",  "fixed",  "record"};
    const char *full = avro_node_fullname(n);
    return full ? full : names[avro_node_kind(n)];
}

static int enc_value(enc_t *e, const avro_node_t *n, const json_t *v, int avro_json, int depth);

/* A duration as the decoder writes it, {"months","days","milliseconds"}:
 * three unsigned 32-bit little-endian numbers (the specification's layout). */
static int enc_duration(enc_t *e, const avro_node_t *n, const json_t *v)
{
    static const char *const keys[] = {"months", "days", "milliseconds"};
    char b[12];
    if (json_object_size(v) != 3)
        goto bad;
    for (int i = 0; i < 3; i++) {
        const json_t *x = json_object_get(v, keys[i]);
        if (!json_is_integer(x) || json_integer_value(x) < 0 ||
            json_integer_value(x) > (json_int_t)UINT32_MAX)
            goto bad;
        uint32_t u = (uint32_t)json_integer_value(x);
        for (int k = 0; k < 4; k++)
            b[4 * i + k] = (char)(u >> (8 * k));
    }
    strbuf_put(e->out, b, 12);
    return 0;
bad:
    return enc_fail(e, "%s: a duration is {\"months\",\"days\",\"milliseconds\"}, each 0 to 4294967295",
                    enc_label(n));
}

/* Bytes from a row (base64), or from a default (Avro's code points 0-255). */
static int enc_raw(enc_t *e, const json_t *v, int avro_json, strbuf_t *raw)
{
    const char *s = json_string_value(v);
    if (!s)
        return enc_fail(e, "bytes must be a string");
    size_t n = json_string_length(v);
    if (!avro_json)
        return srclient_base64_decode(s, n, raw) == 0 ? 0 : enc_fail(e, "bytes must be base64");
    for (size_t i = 0; i < n;) {
        uint8_t c = (uint8_t)s[i];
        if (c < 0x80)
            strbuf_putc(raw, (char)c), i++;
        else if (c >= 0xc2 && c <= 0xc3 && i + 1 < n)
            strbuf_putc(raw, (char)(((c & 0x1f) << 6) | ((uint8_t)s[i + 1] & 0x3f))), i += 2;
        else
            return enc_fail(e, "a bytes default holds a code point beyond 255");
    }
    return 0;
}

static int enc_decimal_or_raw(enc_t *e, const avro_node_t *n, const json_t *v, int avro_json, strbuf_t *raw)
{
    if (avro_node_logical(n) == AVRO_LOGICAL_DECIMAL &&
        (json_is_number(v) || (!avro_json && json_is_string(v)))) {
        /* jansson keeps no digits of a real: printed at the scale, exact as
         * far as a double is (a string keeps every digit). */
        char *text = json_is_string(v)    ? xstrdup(json_string_value(v))
                     : json_is_integer(v) ? xasprintf("%" PRId64, (int64_t)json_integer_value(v))
                                          : xasprintf("%.*f", avro_node_scale(n), json_real_value(v));
        if (!text)
            base_oom(0);
        int rc = cl_parse_decimal(text, avro_node_scale(n), raw);
        free(text);
        return rc == 0 ? 0 : enc_fail(e, "%s: not a decimal of scale %d", enc_label(n), avro_node_scale(n));
    }
    return enc_raw(e, v, avro_json, raw);
}

static int enc_integer(enc_t *e, const avro_node_t *n, const json_t *v, int64_t *out)
{
    if (json_is_integer(v)) {
        *out = json_integer_value(v);
        return 0;
    }
    const char *s = json_string_value(v);
    if (s && cl_parse_logical(avro_node_logical(n), s, out) == 0)
        return 0;
    return enc_fail(e, "%s: expected an integer%s", enc_label(n),
                    avro_node_logical(n) ? " or its logical form" : "");
}

static int enc_number(enc_t *e, const json_t *v, double *out)
{
    const char *s = json_string_value(v);
    if (json_is_number(v))
        *out = json_number_value(v);
    else if (s && (strcmp(s, "NaN") == 0 || strcmp(s, "Infinity") == 0 || strcmp(s, "-Infinity") == 0))
        *out = strtod(s, NULL);
    else
        return enc_fail(e, "expected a number");
    return 0;
}

static int enc_union(enc_t *e, const avro_node_t *n, const json_t *v, int avro_json, int depth)
{
    size_t nb = avro_node_size(n);
    if (avro_json && nb > 0) /* a default: the first branch */
        return enc_value(e, avro_node_branch(n, 0), v, 1, depth + 1);
    /* {"branch": value} names the branch. */
    if (json_is_object(v) && json_object_size(v) == 1) {
        const char *key = json_object_iter_key(json_object_iter((json_t *)v));
        for (size_t i = 0; i < nb; i++) {
            if (strcmp(enc_label(avro_node_branch(n, i)), key) == 0) {
                enc_long(e->out, (int64_t)i);
                return enc_value(e, avro_node_branch(n, i), json_object_get(v, key), 0, depth + 1);
            }
        }
    }
    for (size_t i = 0; i < nb; i++) {
        enc_t trial = {.out = &(strbuf_t){0}};
        enc_long(trial.out, (int64_t)i);
        if (enc_value(&trial, avro_node_branch(n, i), v, 0, depth + 1) == 0) {
            strbuf_put(e->out, trial.out->data, trial.out->len);
            strbuf_free(trial.out);
            return 0;
        }
        strbuf_free(trial.out);
        free(trial.error);
    }
    return enc_fail(e, "the value fits no branch of the union");
}

static int enc_value(enc_t *e, const avro_node_t *n, const json_t *v, int avro_json, int depth)
{
    if (depth > ENC_MAX_DEPTH)
        return enc_fail(e, "nested deeper than %d", ENC_MAX_DEPTH);
    int64_t i64;
    double d;
    switch (avro_node_kind(n)) {
    case AVRO_KIND_NULL: return json_is_null(v) ? 0 : enc_fail(e, "expected null");
    case AVRO_KIND_BOOLEAN:
        if (!json_is_boolean(v))
            return enc_fail(e, "expected a boolean");
        strbuf_putc(e->out, json_is_true(v) ? 1 : 0);
        return 0;
    case AVRO_KIND_INT:
        if (enc_integer(e, n, v, &i64) != 0)
            return -1;
        if (i64 < INT32_MIN || i64 > INT32_MAX)
            return enc_fail(e, "%lld is beyond an int", (long long)i64);
        enc_long(e->out, i64);
        return 0;
    case AVRO_KIND_LONG:
        if (enc_integer(e, n, v, &i64) != 0)
            return -1;
        enc_long(e->out, i64);
        return 0;
    case AVRO_KIND_FLOAT: {
        if (enc_number(e, v, &d) != 0)
            return -1;
        float f = (float)d;
        uint32_t u;
        memcpy(&u, &f, 4);
        char b[4] = {(char)u, (char)(u >> 8), (char)(u >> 16), (char)(u >> 24)};
        strbuf_put(e->out, b, 4);
        return 0;
    }
    case AVRO_KIND_DOUBLE: {
        if (enc_number(e, v, &d) != 0)
            return -1;
        uint64_t u;
        memcpy(&u, &d, 8);
        char b[8];
        for (int i = 0; i < 8; i++)
            b[i] = (char)(u >> (8 * i));
        strbuf_put(e->out, b, 8);
        return 0;
    }
    case AVRO_KIND_STRING:
        if (!json_is_string(v))
            return enc_fail(e, "expected a string");
        enc_bytes(e->out, json_string_value(v), json_string_length(v));
        return 0;
    case AVRO_KIND_BYTES:
    case AVRO_KIND_FIXED: {
        if (avro_node_logical(n) == AVRO_LOGICAL_DURATION && avro_node_size(n) == 12 && json_is_object(v))
            return enc_duration(e, n, v);
        strbuf_t raw = {0};
        int rc = enc_decimal_or_raw(e, n, v, avro_json, &raw);
        if (rc == 0 && avro_node_kind(n) == AVRO_KIND_FIXED) {
            size_t size = avro_node_size(n);
            if (avro_node_logical(n) == AVRO_LOGICAL_DECIMAL && raw.len < size) {
                /* Sign-extend the unscaled bytes to the fixed size. */
                strbuf_t ext = {0};
                char fill = raw.len && (raw.data[0] & 0x80) ? (char)0xff : 0;
                for (size_t k = raw.len; k < size; k++)
                    strbuf_putc(&ext, fill);
                strbuf_put(&ext, raw.data, raw.len);
                strbuf_free(&raw);
                raw = ext;
            }
            if (raw.len != size)
                rc = enc_fail(e, "%s: %zu bytes, the fixed size is %zu", enc_label(n), raw.len, size);
            else
                strbuf_put(e->out, raw.data ? raw.data : "", raw.len);
        } else if (rc == 0)
            enc_bytes(e->out, raw.data ? raw.data : "", raw.len);
        strbuf_free(&raw);
        return rc;
    }
    case AVRO_KIND_ENUM: {
        const char *s = json_string_value(v);
        long i = s ? avro_node_symbol_index(n, s) : -1;
        if (i < 0)
            return enc_fail(e, "%s: not a symbol of the enum", enc_label(n));
        enc_long(e->out, i);
        return 0;
    }
    case AVRO_KIND_ARRAY: {
        if (!json_is_array(v))
            return enc_fail(e, "expected an array");
        size_t n_items = json_array_size(v);
        if (n_items) {
            enc_long(e->out, (int64_t)n_items);
            for (size_t i = 0; i < n_items; i++)
                if (enc_value(e, avro_node_items(n), json_array_get(v, i), avro_json, depth + 1) != 0)
                    return -1;
        }
        enc_long(e->out, 0);
        return 0;
    }
    case AVRO_KIND_MAP: {
        if (!json_is_object(v))
            return enc_fail(e, "expected an object (a map)");
        if (json_object_size(v)) {
            enc_long(e->out, (int64_t)json_object_size(v));
            const char *k;
            json_t *x;
            json_object_foreach((json_t *)v, k, x)
            {
                enc_bytes(e->out, k, strlen(k));
                if (enc_value(e, avro_node_items(n), x, avro_json, depth + 1) != 0)
                    return -1;
            }
        }
        enc_long(e->out, 0);
        return 0;
    }
    case AVRO_KIND_RECORD: {
        if (!json_is_object(v))
            return enc_fail(e, "%s: expected an object", enc_label(n));
        for (size_t i = 0; i < avro_node_size(n); i++) {
            const char *name = avro_field_name(n, i);
            const json_t *fv = json_object_get(v, name);
            int from_default = 0;
            if (!fv) {
                fv = avro_field_default(n, i);
                from_default = 1;
            }
            if (!fv)
                return enc_fail(e, "%s: field %s is missing and has no default", enc_label(n), name);
            if (enc_value(e, avro_field_type(n, i), fv, avro_json || from_default, depth + 1) != 0) {
                if (e->error && !strstr(e->error, "field ")) {
                    char *m = xasprintf("field %s: %s", name, e->error);
                    free(e->error);
                    e->error = m;
                }
                return -1;
            }
        }
        return 0;
    }
    case AVRO_KIND_UNION: return enc_union(e, n, v, avro_json, depth);
    default: return enc_fail(e, "unresolved type");
    }
}

int srclient_avro_encode(const avro_model_t *writer, const char *json, size_t len, strbuf_t *out,
                         char **error)
{
    json_error_t je;
    json_t *v = json_loadb(json, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
    if (!v) {
        *error = xasprintf("not JSON: %s", je.text);
        return -1;
    }
    size_t mark = out->len;
    enc_t e = {.out = out};
    int rc = enc_value(&e, avro_model_root(writer), v, 0, 0);
    json_decref(v);
    if (out->failed)
        base_oom(0);
    if (rc != 0) {
        out->len = mark;
        *error = e.error;
        return -1;
    }
    return 0;
}
