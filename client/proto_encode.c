/*
 * proto_encode: JSON rows in the proto3 JSON mapping -> Protobuf records
 * (client.h, section 3b), the other way of proto_decode.c and over the same
 * plan (client/internal.h, section 2), so the two cannot disagree on a
 * field's number, kind or json_name.
 *
 * Contents
 *   1. The wire: varints, tags
 *   2. Scalars from JSON
 *   3. Well-known types: Timestamp, Duration, the wrappers, Struct, Value
 *   4. Fields and messages
 *   5. Records: the message indexes, then the message
 *
 * What it writes is what protoc's JSON parser and serializer write for the
 * same row: fields in number order, proto3 fields without presence left out
 * when they hold their default, repeated scalars packed in proto3 and
 * editions files (proto2: one tag per element; an explicit [packed = ...]
 * option is not read, and readers take either form), map entries with both
 * key and value. It reads what protoc's parser reads: keys by json_name or
 * by the field's own name, 64-bit integers as strings or numbers, NaN and
 * the infinities as strings, enums by name or number, null as "not set".
 * "@unknown" (decode --unknown-fields keep) is written back after the
 * known fields. An unknown key, a value of the wrong JSON type, a number out of its
 * type's range or two members of one oneof is an error (as in protoc's
 * JsonStringToMessage without ignore_unknown_fields).
 */
#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "client/client.h"
#include "client/internal.h"
#include "compat/protobuf/protobuf.h"

typedef struct pe_ctx {
    const srclient_proto_reader_t *r;
    size_t depth, max_depth;
    char *error;
} pe_ctx_t;

static int pe_fail(pe_ctx_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int pe_fail(pe_ctx_t *c, const char *fmt, ...)
{
    if (!c->error) {
        va_list ap;
        va_start(ap, fmt);
        c->error = xvasprintf(fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* ---- 1. The wire ------------------------------------------------------------ */

static void pe_varint(strbuf_t *b, uint64_t v)
{
    char buf[10];
    size_t n = 0;
    do {
        buf[n] = (char)(v & 0x7f);
        v >>= 7;
        if (v)
            buf[n] |= (char)0x80;
        n++;
    } while (v);
    strbuf_put(b, buf, n);
}

static void pe_tag(strbuf_t *b, int32_t number, int wt)
{
    pe_varint(b, (uint64_t)(uint32_t)number << 3 | (uint64_t)wt);
}

static void pe_fixed(strbuf_t *b, uint64_t v, size_t width)
{
    char buf[8];
    for (size_t i = 0; i < width; i++)
        buf[i] = (char)(v >> (8 * i));
    strbuf_put(b, buf, width);
}

static void pe_bytes(strbuf_t *b, const char *s, size_t n)
{
    pe_varint(b, n);
    strbuf_put(b, s, n);
}

static int pe_wire_type(pd_kind_t k)
{
    switch (k) {
    case PD_DOUBLE:
    case PD_FIXED64:
    case PD_SFIXED64: return 1;
    case PD_FLOAT:
    case PD_FIXED32:
    case PD_SFIXED32: return 5;
    case PD_STRING:
    case PD_BYTES:
    case PD_MESSAGE: return 2;
    default: return 0;
    }
}

/* ---- 2. Scalars from JSON --------------------------------------------------- */

/* An integer as a JSON integer, an integral real, or a decimal string (the
 * form rows print 64-bit integers in). */
static int pe_signed(pe_ctx_t *c, const char *field, const json_t *v, int64_t min, int64_t max, int64_t *out)
{
    if (json_is_integer(v)) {
        json_int_t x = json_integer_value(v);
        if (x < min || x > max)
            return pe_fail(c, "field \"%s\": %" JSON_INTEGER_FORMAT " is out of range", field, x);
        *out = x;
        return 0;
    }
    if (json_is_real(v)) {
        double d = json_real_value(v);
        /* (double)max + 1 is exact for 2^31 and 2^63, where max itself is not. */
        if (d != floor(d) || d < (double)min || d >= (double)max + 1.0)
            return pe_fail(c, "field \"%s\": %.17g is not an integer in range", field, d);
        *out = (int64_t)d;
        return 0;
    }
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        char *end;
        errno = 0;
        long long x = strtoll(s, &end, 10);
        if (!*s || *end || errno || x < min || x > max)
            return pe_fail(c, "field \"%s\": \"%s\" is not an integer in range", field, s);
        *out = x;
        return 0;
    }
    return pe_fail(c, "field \"%s\": expected an integer", field);
}

static int pe_unsigned(pe_ctx_t *c, const char *field, const json_t *v, uint64_t max, uint64_t *out)
{
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        char *end;
        errno = 0;
        unsigned long long x = strtoull(s, &end, 10);
        if (!*s || *s == '-' || *end || errno || x > max)
            return pe_fail(c, "field \"%s\": \"%s\" is not an unsigned integer in range", field, s);
        *out = x;
        return 0;
    }
    if (json_is_real(v)) {
        double d = json_real_value(v);
        if (d != floor(d) || d < 0 || d >= (double)max + 1.0)
            return pe_fail(c, "field \"%s\": %.17g is not an unsigned integer in range", field, d);
        *out = (uint64_t)d;
        return 0;
    }
    int64_t x = 0; /* set by pe_signed on success; gcc -O2 cannot tell */
    if (pe_signed(c, field, v, 0, INT64_MAX, &x) != 0)
        return -1;
    if ((uint64_t)x > max)
        return pe_fail(c, "field \"%s\": %" PRId64 " is out of range", field, x);
    *out = (uint64_t)x;
    return 0;
}

static int pe_double(pe_ctx_t *c, const char *field, const json_t *v, double *out)
{
    if (json_is_number(v)) {
        *out = json_number_value(v);
        return 0;
    }
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        if (strcmp(s, "NaN") == 0)
            *out = NAN;
        else if (strcmp(s, "Infinity") == 0)
            *out = INFINITY;
        else if (strcmp(s, "-Infinity") == 0)
            *out = -INFINITY;
        else {
            char *end;
            *out = strtod(s, &end);
            if (!*s || *end || !isfinite(*out))
                return pe_fail(c, "field \"%s\": \"%s\" is not a number", field, s);
        }
        return 0;
    }
    return pe_fail(c, "field \"%s\": expected a number", field);
}

/* Standard or URL-safe base64, padded or not, as protoc's parser takes it. */
static int pe_base64(pe_ctx_t *c, const char *field, const json_t *v, strbuf_t *out)
{
    if (!json_is_string(v))
        return pe_fail(c, "field \"%s\": expected a base64 string", field);
    const char *s = json_string_value(v);
    size_t n = json_string_length(v);
    strbuf_t t = {0};
    for (size_t i = 0; i < n; i++)
        strbuf_putc(&t, s[i] == '-' ? '+' : s[i] == '_' ? '/' : s[i]);
    while (t.len % 4)
        strbuf_putc(&t, '=');
    if (t.failed)
        base_oom(0);
    int rc = srclient_base64_decode(t.data ? t.data : "", t.len, out);
    strbuf_free(&t);
    if (rc != 0)
        return pe_fail(c, "field \"%s\": not base64", field);
    return 0;
}

static int pe_enum(pe_ctx_t *c, const pd_field_t *f, const json_t *v, int32_t *out)
{
    if (f->null_value) {
        *out = 0;
        return 0;
    }
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        for (size_t i = 0; i < f->enumeration->n_values; i++)
            if (strcmp(f->enumeration->values[i]->name, s) == 0) {
                *out = f->enumeration->values[i]->tag;
                return 0;
            }
        return pe_fail(c, "field \"%s\": enum %s has no value \"%s\"", f->name, f->enumeration->name, s);
    }
    int64_t x;
    if (!json_is_integer(v) || pe_signed(c, f->name, v, INT32_MIN, INT32_MAX, &x) != 0)
        return pe_fail(c, "field \"%s\": expected an enum name or number", f->name);
    *out = (int32_t)x;
    return 0;
}

/*
 * A scalar's value as its wire bytes (no tag) into b; *is_default says
 * whether it is the zero a proto3 field without presence leaves out.
 */
static int pe_scalar(pe_ctx_t *c, const pd_field_t *f, const json_t *v, strbuf_t *b, int *is_default)
{
    const char *name = f->name;
    int64_t s;
    uint64_t u;
    double d;
    switch (f->kind) {
    case PD_DOUBLE:
        if (pe_double(c, name, v, &d) != 0)
            return -1;
        memcpy(&u, &d, sizeof(u));
        pe_fixed(b, u, 8);
        *is_default = u == 0;
        return 0;
    case PD_FLOAT: {
        if (pe_double(c, name, v, &d) != 0)
            return -1;
        if (isfinite(d) && (d > FLT_MAX || d < -FLT_MAX))
            return pe_fail(c, "field \"%s\": %.17g is out of a float's range", name, d);
        float x = (float)d;
        uint32_t bits;
        memcpy(&bits, &x, sizeof(bits));
        pe_fixed(b, bits, 4);
        *is_default = bits == 0;
        return 0;
    }
    case PD_INT64:
    case PD_SFIXED64:
    case PD_SINT64:
        if (pe_signed(c, name, v, INT64_MIN, INT64_MAX, &s) != 0)
            return -1;
        if (f->kind == PD_INT64)
            pe_varint(b, (uint64_t)s);
        else if (f->kind == PD_SFIXED64)
            pe_fixed(b, (uint64_t)s, 8);
        else
            pe_varint(b, ((uint64_t)s << 1) ^ (uint64_t)(s >> 63));
        *is_default = s == 0;
        return 0;
    case PD_INT32:
    case PD_SFIXED32:
    case PD_SINT32:
        if (pe_signed(c, name, v, INT32_MIN, INT32_MAX, &s) != 0)
            return -1;
        if (f->kind == PD_INT32)
            pe_varint(b, (uint64_t)s); /* negative int32s take ten bytes, as protoc writes them */
        else if (f->kind == PD_SFIXED32)
            pe_fixed(b, (uint32_t)(int32_t)s, 4);
        else
            pe_varint(b, (uint32_t)(((uint32_t)s << 1) ^ (uint32_t)((int32_t)s >> 31)));
        *is_default = s == 0;
        return 0;
    case PD_UINT64:
    case PD_FIXED64:
        if (pe_unsigned(c, name, v, UINT64_MAX, &u) != 0)
            return -1;
        if (f->kind == PD_UINT64)
            pe_varint(b, u);
        else
            pe_fixed(b, u, 8);
        *is_default = u == 0;
        return 0;
    case PD_UINT32:
    case PD_FIXED32:
        if (pe_unsigned(c, name, v, UINT32_MAX, &u) != 0)
            return -1;
        if (f->kind == PD_UINT32)
            pe_varint(b, u);
        else
            pe_fixed(b, u, 4);
        *is_default = u == 0;
        return 0;
    case PD_BOOL:
        if (!json_is_boolean(v))
            return pe_fail(c, "field \"%s\": expected true or false", name);
        pe_varint(b, json_is_true(v));
        *is_default = !json_is_true(v);
        return 0;
    case PD_ENUM: {
        int32_t e = 0;
        if (pe_enum(c, f, v, &e) != 0)
            return -1;
        pe_varint(b, (uint64_t)(int64_t)e);
        *is_default = e == 0;
        return 0;
    }
    case PD_STRING:
        if (!json_is_string(v))
            return pe_fail(c, "field \"%s\": expected a string", name);
        pe_bytes(b, json_string_value(v), json_string_length(v));
        *is_default = json_string_length(v) == 0;
        return 0;
    case PD_BYTES: {
        strbuf_t raw = {0};
        if (pe_base64(c, name, v, &raw) != 0) {
            strbuf_free(&raw);
            return -1;
        }
        pe_bytes(b, raw.data ? raw.data : "", raw.len);
        *is_default = raw.len == 0;
        strbuf_free(&raw);
        return 0;
    }
    default: return pe_fail(c, "field \"%s\": not a scalar", name);
    }
}

/* ---- 3. Well-known types ---------------------------------------------------- */

static int pe_message(pe_ctx_t *c, const pd_msg_t *m, const json_t *v, strbuf_t *out);
static int pe_single(pe_ctx_t *c, const pd_field_t *f, const json_t *v, int force, strbuf_t *out);
static int pe_field(pe_ctx_t *c, const pd_field_t *f, const json_t *v, strbuf_t *out);

static const pd_field_t *pe_by_number(const pd_msg_t *m, int32_t number)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->fields[i].number == number)
            return &m->fields[i];
    return NULL;
}

/* ".123" (1 to 9 digits) at *p as nanoseconds. */
static int pe_nanos(const char **p, int32_t *nanos)
{
    *nanos = 0;
    if (**p != '.')
        return 0;
    (*p)++;
    int digits = 0;
    while (**p >= '0' && **p <= '9') {
        if (++digits > 9)
            return -1;
        *nanos = *nanos * 10 + (**p - '0');
        (*p)++;
    }
    if (digits == 0)
        return -1;
    for (; digits < 9; digits++)
        *nanos *= 10;
    return 0;
}

/* seconds and nanos as fields 1 and 2, each left out when 0. */
static void pe_seconds_nanos(strbuf_t *out, int64_t seconds, int32_t nanos)
{
    if (seconds) {
        pe_tag(out, 1, 0);
        pe_varint(out, (uint64_t)seconds);
    }
    if (nanos) {
        pe_tag(out, 2, 0);
        pe_varint(out, (uint64_t)(int64_t)nanos);
    }
}

/* RFC 3339 as the mapping writes it: "2024-01-31T12:00:00.005Z", an offset
 * ("+01:00") also read; years 1 to 9999. */
static int pe_timestamp(pe_ctx_t *c, const json_t *v, strbuf_t *out)
{
    const char *s = json_string_value(v);
    int y, mo, d, h, mi, se, n = 0;
    if (!s || sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &y, &mo, &d, &h, &mi, &se, &n) != 6 || n != 19)
        return pe_fail(c, "a Timestamp is an RFC 3339 string (\"2024-01-31T12:00:00Z\")");
    const char *p = s + n;
    int32_t nanos;
    if (pe_nanos(&p, &nanos) != 0)
        return pe_fail(c, "a Timestamp's fraction has 1 to 9 digits: \"%s\"", s);
    int64_t offset = 0;
    if (*p == 'Z' && !p[1])
        offset = 0;
    else if ((*p == '+' || *p == '-') && strlen(p) == 6 && p[3] == ':') {
        int oh, om;
        if (sscanf(p + 1, "%2d:%2d", &oh, &om) != 2 || oh > 23 || om > 59)
            return pe_fail(c, "a Timestamp's offset: \"%s\"", s);
        offset = (*p == '-' ? -1 : 1) * (int64_t)(oh * 3600 + om * 60);
    } else
        return pe_fail(c, "a Timestamp ends in Z or an offset: \"%s\"", s);
    if (y < 1 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 59)
        return pe_fail(c, "a Timestamp out of range: \"%s\"", s);
    int64_t days = cl_days_from_civil(y, (unsigned)mo, (unsigned)d);
    int64_t y2;
    unsigned m2, d2;
    cl_civil_from_days(days, &y2, &m2, &d2);
    if (y2 != y || m2 != (unsigned)mo || d2 != (unsigned)d)
        return pe_fail(c, "a Timestamp with no such day: \"%s\"", s);
    int64_t seconds = days * 86400 + h * 3600 + mi * 60 + se - offset;
    if (seconds < -62135596800LL || seconds > 253402300799LL)
        return pe_fail(c, "a Timestamp out of range: \"%s\"", s);
    pe_seconds_nanos(out, seconds, nanos);
    return 0;
}

/* "-1.5s": seconds and nanos of the same sign, at most 10,000 years. */
static int pe_duration(pe_ctx_t *c, const json_t *v, strbuf_t *out)
{
    const char *s = json_string_value(v), *p = s;
    if (!s)
        return pe_fail(c, "a Duration is a string (\"1.5s\")");
    int neg = *p == '-';
    if (neg)
        p++;
    if (*p < '0' || *p > '9')
        return pe_fail(c, "a Duration is a string like \"1.5s\": \"%s\"", s);
    int64_t seconds = 0;
    while (*p >= '0' && *p <= '9') {
        seconds = seconds * 10 + (*p++ - '0');
        if (seconds > 315576000000LL)
            return pe_fail(c, "a Duration out of range: \"%s\"", s);
    }
    int32_t nanos;
    if (pe_nanos(&p, &nanos) != 0 || strcmp(p, "s") != 0)
        return pe_fail(c, "a Duration is a string like \"1.5s\": \"%s\"", s);
    pe_seconds_nanos(out, neg ? -seconds : seconds, neg ? -nanos : nanos);
    return 0;
}

/* google.protobuf.Value: the member its JSON type names. */
static int pe_value(pe_ctx_t *c, const pd_msg_t *m, const json_t *v, strbuf_t *out)
{
    int32_t number = json_is_null(v)      ? 1
                     : json_is_number(v)  ? 2
                     : json_is_string(v)  ? 3
                     : json_is_boolean(v) ? 4
                     : json_is_object(v)  ? 5
                                          : 6;
    const pd_field_t *f = pe_by_number(m, number);
    if (!f)
        return pe_fail(c, "google.protobuf.Value has no field %d", number);
    if (number == 2 && !isfinite(json_number_value(v)))
        return pe_fail(c, "a Value's number is finite");
    /* A oneof member: written even when it holds its zero. */
    return pe_single(c, f, v, 1, out);
}

/* FieldMask: "a.bC,d" as the paths "a.b_c" and "d" (field 1). */
static int pe_field_mask(pe_ctx_t *c, const json_t *v, strbuf_t *out)
{
    const char *s = json_string_value(v);
    if (!s)
        return pe_fail(c, "a FieldMask is a string (\"a.b,c\")");
    size_t n = json_string_length(v);
    strbuf_t path = {0};
    int rc = 0;
    for (size_t i = 0; i <= n && rc == 0; i++) {
        if (i == n || s[i] == ',') {
            if (n) {
                pe_tag(out, 1, 2);
                pe_bytes(out, path.data ? path.data : "", path.len);
            }
            path.len = 0;
        } else if (s[i] == '_')
            rc = pe_fail(c, "a FieldMask path in JSON has no \"_\": \"%s\"", s);
        else if (s[i] >= 'A' && s[i] <= 'Z') {
            strbuf_putc(&path, '_');
            strbuf_putc(&path, (char)(s[i] - 'A' + 'a'));
        } else
            strbuf_putc(&path, s[i]);
    }
    if (path.failed)
        base_oom(0);
    strbuf_free(&path);
    return rc;
}

/* Any: {"@type": url, fields...} (or "value" for a packed well-known type)
 * as type_url (1) and the packed message's bytes (2); {} writes nothing. */
static int pe_any(pe_ctx_t *c, const json_t *v, strbuf_t *out)
{
    if (!json_is_object(v))
        return pe_fail(c, "an Any is a JSON object");
    const json_t *type = json_object_get(v, "@type");
    if (!type && json_object_size(v) == 0)
        return 0;
    if (!json_is_string(type))
        return pe_fail(c, "an Any has a \"@type\" string");
    const char *url = json_string_value(type);
    size_t n = json_string_length(type);
    const pd_msg_t *inner = pd_any_plan(c->r, url, n);
    if (!inner)
        return pe_fail(c, "an Any of a type the schema's plan does not hold: %s", url);
    strbuf_t packed = {0};
    int rc;
    if (inner->wkt != PD_WKT_NONE) {
        const json_t *value = json_object_get(v, "value");
        rc = json_object_size(v) != 2 || !value ? pe_fail(c, "an Any of %s has \"@type\" and \"value\"", url)
                                                : pe_message(c, inner, value, &packed);
    } else {
        json_t *fields = json_copy((json_t *)v);
        if (!fields)
            base_oom(0);
        json_object_del(fields, "@type");
        rc = pe_message(c, inner, fields, &packed);
        json_decref(fields);
    }
    if (packed.failed)
        base_oom(0);
    if (rc == 0) {
        pe_tag(out, 1, 2);
        pe_bytes(out, url, n);
        if (packed.len) {
            pe_tag(out, 2, 2);
            pe_bytes(out, packed.data, packed.len);
        }
    }
    strbuf_free(&packed);
    return rc;
}

static int pe_wkt(pe_ctx_t *c, const pd_msg_t *m, const json_t *v, strbuf_t *out)
{
    switch (m->wkt) {
    case PD_WKT_TIMESTAMP: return pe_timestamp(c, v, out);
    case PD_WKT_DURATION: return pe_duration(c, v, out);
    case PD_WKT_VALUE: return pe_value(c, m, v, out);
    case PD_WKT_FIELD_MASK: return pe_field_mask(c, v, out);
    case PD_WKT_ANY: return pe_any(c, v, out);
    case PD_WKT_UNWRAP: {
        /* The wrappers' value, Struct's fields, ListValue's values: field 1. */
        const pd_field_t *f = pe_by_number(m, 1);
        if (!f)
            return pe_fail(c, "%s has no field 1", m->full_name);
        if (strcmp(m->full_name, "google.protobuf.Struct") == 0 && !json_is_object(v))
            return pe_fail(c, "a Struct is a JSON object");
        if (strcmp(m->full_name, "google.protobuf.ListValue") == 0 && !json_is_array(v))
            return pe_fail(c, "a ListValue is a JSON array");
        return pe_field(c, f, v, out);
    }
    default: return pe_fail(c, "not a well-known type");
    }
}

/* ---- 4. Fields and messages ------------------------------------------------- */

/* A message field whose JSON null is a value, not "not set". */
static int pe_null_is_value(const pd_field_t *f)
{
    return (f->kind == PD_MESSAGE && f->msg && f->msg->wkt == PD_WKT_VALUE) ||
           (f->kind == PD_ENUM && f->null_value);
}

/* One occurrence of f with its tag. force: written even when it holds its
 * zero (presence, oneof members, repeated elements, map entries). */
static int pe_single(pe_ctx_t *c, const pd_field_t *f, const json_t *v, int force, strbuf_t *out)
{
    if (f->kind == PD_MESSAGE) {
        strbuf_t body = {0};
        int rc = pe_message(c, f->msg, v, &body);
        if (rc == 0) {
            pe_tag(out, f->number, 2);
            pe_bytes(out, body.data ? body.data : "", body.len);
        }
        strbuf_free(&body);
        return rc;
    }
    strbuf_t val = {0};
    int is_default = 0;
    int rc = pe_scalar(c, f, v, &val, &is_default);
    if (rc == 0 && (force || !is_default)) {
        pe_tag(out, f->number, pe_wire_type(f->kind));
        strbuf_put(out, val.data ? val.data : "", val.len);
    }
    strbuf_free(&val);
    return rc;
}

/* A map key's JSON text as the key field's value: keys are always strings. */
static int pe_map_key(pe_ctx_t *c, const pd_field_t *kf, const char *key, strbuf_t *entry)
{
    json_t *k;
    if (kf->kind == PD_STRING)
        k = json_string(key);
    else if (kf->kind == PD_BOOL)
        k = strcmp(key, "true") == 0 ? json_true() : strcmp(key, "false") == 0 ? json_false() : NULL;
    else
        k = json_string(key); /* integers: pe_signed / pe_unsigned read decimal strings */
    if (!k)
        return pe_fail(c, "map key \"%s\" is not a %s", key, kf->kind == PD_BOOL ? "bool" : "key");
    int rc = pe_single(c, kf, k, 1, entry);
    json_decref(k);
    return rc;
}

static int pe_field(pe_ctx_t *c, const pd_field_t *f, const json_t *v, strbuf_t *out)
{
    if (json_is_null(v) && !(pe_null_is_value(f) && !f->repeated))
        return 0; /* null is "not set" */
    if (f->is_map) {
        if (!json_is_object(v))
            return pe_fail(c, "field \"%s\": a map is a JSON object", f->name);
        const char *key;
        json_t *val;
        strbuf_t entry = {0};
        int rc = 0;
        json_object_foreach((json_t *)v, key, val)
        {
            entry.len = 0;
            if (json_is_null(val) && !pe_null_is_value(&f->msg->fields[1])) {
                rc = pe_fail(c, "field \"%s\": map value null", f->name);
                break;
            }
            if ((rc = pe_map_key(c, &f->msg->fields[0], key, &entry)) != 0 ||
                (rc = pe_single(c, &f->msg->fields[1], val, 1, &entry)) != 0)
                break;
            pe_tag(out, f->number, 2);
            pe_bytes(out, entry.data ? entry.data : "", entry.len);
        }
        strbuf_free(&entry);
        return rc;
    }
    if (f->repeated) {
        if (!json_is_array(v))
            return pe_fail(c, "field \"%s\": a repeated field is a JSON array", f->name);
        size_t i;
        json_t *e;
        if (f->packed && pe_wire_type(f->kind) != 2) {
            if (json_array_size(v) == 0)
                return 0;
            strbuf_t run = {0};
            int rc = 0, dflt;
            json_array_foreach((json_t *)v, i, e)
            {
                rc = json_is_null(e) ? pe_fail(c, "field \"%s\": null in a repeated field", f->name)
                                     : pe_scalar(c, f, e, &run, &dflt);
                if (rc != 0)
                    break;
            }
            if (rc == 0) {
                pe_tag(out, f->number, 2);
                pe_bytes(out, run.data ? run.data : "", run.len);
            }
            strbuf_free(&run);
            return rc;
        }
        json_array_foreach((json_t *)v, i, e)
        {
            if (json_is_null(e) && !pe_null_is_value(f))
                return pe_fail(c, "field \"%s\": null in a repeated field", f->name);
            if (pe_single(c, f, e, 1, out) != 0)
                return -1;
        }
        return 0;
    }
    return pe_single(c, f, v, f->presence, out);
}

/* The field a row's key names: its json_name or its own name. */
static const pd_field_t *pe_by_key(const pd_msg_t *m, const char *key)
{
    for (size_t i = 0; i < m->n; i++)
        if (strcmp(m->fields[i].json_name, key) == 0 || strcmp(m->fields[i].name, key) == 0)
            return &m->fields[i];
    return NULL;
}

/* A group's bytes up to its end tag as proto_decode.c skips them: fields
 * whose groups (nested at most max_depth) close inside, no end tag left open. */
static int pe_group_ok(const pe_ctx_t *c, const uint8_t *p, size_t n)
{
    size_t pos = 0, open = 1;
    while (pos < n) {
        uint64_t tag = 0, len = 0;
        for (int shift = 0;; shift += 7) {
            if (pos >= n || shift > 63)
                return 0;
            tag |= (uint64_t)(p[pos] & 0x7f) << shift;
            if (!(p[pos++] & 0x80))
                break;
        }
        switch (tag & 7) {
        case 0:
            for (int k = 0;; k++) {
                if (pos >= n || k == 10)
                    return 0;
                if (!(p[pos++] & 0x80))
                    break;
            }
            break;
        case 1:
        case 5: {
            size_t w = (tag & 7) == 1 ? 8 : 4;
            if (n - pos < w)
                return 0;
            pos += w;
            break;
        }
        case 2:
            for (int shift = 0;; shift += 7) {
                if (pos >= n || shift > 63)
                    return 0;
                len |= (uint64_t)(p[pos] & 0x7f) << shift;
                if (!(p[pos++] & 0x80))
                    break;
            }
            if (len > n - pos)
                return 0;
            pos += (size_t)len;
            break;
        case 3:
            if (++open > c->max_depth)
                return 0;
            break;
        case 4:
            if (--open == 0)
                return 0;
            break;
        default: return 0;
        }
    }
    return open == 1;
}

/* "@unknown" (what decode --unknown-fields keep writes: [{"number": N,
 * "wireType": W, "value": V}]) written back as it came, after the known
 * fields, as protoc's serializer writes a message's unknown fields. */
static int pe_unknown(pe_ctx_t *c, const pd_msg_t *m, const json_t *v, strbuf_t *out)
{
    const char *where = m->full_name ? m->full_name : "a map entry";
    if (!json_is_array(v))
        return pe_fail(c, "%s: \"@unknown\" is an array", where);
    size_t i;
    json_t *e;
    json_array_foreach((json_t *)v, i, e)
    {
        const json_t *num = json_object_get(e, "number"), *wt = json_object_get(e, "wireType"),
                     *val = json_object_get(e, "value");
        if (!json_is_object(e) || json_object_size(e) != 3 || !json_is_integer(num) || !json_is_integer(wt) ||
            !val)
            return pe_fail(c, "%s: \"@unknown\"[%zu] is {\"number\", \"wireType\", \"value\"}", where, i);
        json_int_t number = json_integer_value(num), w = json_integer_value(wt);
        if (number < 1 || number > 536870911)
            return pe_fail(c, "%s: \"@unknown\"[%zu]: field number %" JSON_INTEGER_FORMAT " is out of range",
                           where, i, number);
        uint64_t x = 0;
        strbuf_t b = {0};
        int rc = 0;
        switch (w) {
        case 0:
        case 1:
        case 5: rc = pe_unsigned(c, "@unknown", val, w == 5 ? UINT32_MAX : UINT64_MAX, &x); break;
        case 2:
        case 3: rc = pe_base64(c, "@unknown", val, &b); break;
        default:
            rc =
                pe_fail(c, "%s: \"@unknown\"[%zu]: wire type %" JSON_INTEGER_FORMAT " is not 0, 1, 2, 3 or 5",
                        where, i, w);
        }
        if (rc == 0 && w == 3 && !pe_group_ok(c, (const uint8_t *)b.data, b.len))
            rc = pe_fail(c, "%s: \"@unknown\"[%zu]: not the bytes of a group", where, i);
        if (b.failed)
            base_oom(0);
        if (rc == 0) {
            pe_tag(out, (int32_t)number, (int)w);
            if (w == 0)
                pe_varint(out, x);
            else if (w == 1 || w == 5)
                pe_fixed(out, x, w == 1 ? 8 : 4);
            else if (w == 2)
                pe_bytes(out, b.data ? b.data : "", b.len);
            else {
                strbuf_put(out, b.data ? b.data : "", b.len);
                pe_tag(out, (int32_t)number, 4);
            }
        }
        strbuf_free(&b);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int pe_message(pe_ctx_t *c, const pd_msg_t *m, const json_t *v, strbuf_t *out)
{
    if (++c->depth > c->max_depth)
        return pe_fail(c, "messages nested deeper than %zu", c->max_depth);
    int rc = 0;
    if (m->wkt != PD_WKT_NONE)
        rc = pe_wkt(c, m, v, out);
    else if (!json_is_object(v))
        rc = pe_fail(c, "%s is a JSON object", m->full_name ? m->full_name : "a map entry");
    else {
        /* Every key known, at most one per field and per oneof... */
        const json_t **by_field = xcalloc(m->n ? m->n : 1, sizeof(*by_field));
        int *oneof_set = xcalloc(m->n_oneofs ? m->n_oneofs : 1, sizeof(*oneof_set));
        const json_t *unknown = NULL;
        const char *key;
        json_t *val;
        json_object_foreach((json_t *)v, key, val)
        {
            const pd_field_t *f = pe_by_key(m, key);
            if (!f && strcmp(key, "@unknown") == 0) {
                unknown = val;
                continue;
            }
            if (!f) {
                rc = pe_fail(c, "%s has no field \"%s\"", m->full_name, key);
                break;
            }
            size_t i = (size_t)(f - m->fields);
            if (by_field[i]) {
                rc = pe_fail(c, "field \"%s\" given twice (by name and json_name)", f->name);
                break;
            }
            by_field[i] = val;
            if (f->oneof >= 0 && (!json_is_null(val) || pe_null_is_value(f)) && oneof_set[f->oneof]++) {
                rc = pe_fail(c, "%s: two members of one oneof are set", m->full_name);
                break;
            }
        }
        /* ...then written in field number order, as protoc serializes. */
        for (size_t k = 0; k < m->n && rc == 0; k++) {
            uint32_t i = m->by_number[k];
            if (by_field[i])
                rc = pe_field(c, &m->fields[i], by_field[i], out);
        }
        if (rc == 0 && unknown)
            rc = pe_unknown(c, m, unknown, out);
        free(by_field);
        free(oneof_set);
    }
    if (out->failed)
        base_oom(0);
    c->depth--;
    return rc;
}

/* ---- 5. Records ------------------------------------------------------------- */

/* The message indexes of full (Confluent's MessageIndexes: each level counts
 * the messages among the types above it) into idx; their number, or 0. */
static size_t pe_indexes_of(const char *prefix, proto_type_t *const *types, size_t n, const char *full,
                            int64_t *idx, size_t depth)
{
    if (depth >= PROTO_MAX_DEPTH)
        return 0;
    int64_t i = 0;
    for (size_t t = 0; t < n; t++) {
        if (types[t]->kind != PROTO_TYPE_MESSAGE)
            continue;
        const proto_message_t *m = types[t]->message;
        char *name = *prefix ? xasprintf("%s.%s", prefix, m->name) : xstrdup(m->name);
        idx[depth] = i++;
        size_t found = strcmp(name, full) == 0 ? depth + 1 : 0;
        if (!found && strncmp(full, name, strlen(name)) == 0 && full[strlen(name)] == '.')
            found = pe_indexes_of(name, m->types, m->n_types, full, idx, depth + 1);
        free(name);
        if (found)
            return found;
    }
    return 0;
}

int srclient_proto_encode(const srclient_proto_reader_t *r, const char *message, const char *json, size_t len,
                          strbuf_t *out, char **error)
{
    const proto_schema_t *schema = r->schema;
    const proto_symtab_t *tab = proto_schema_symtab(schema);
    const proto_symbol_t *sym = NULL;
    if (!message)
        sym = proto_schema_message_at(schema, NULL, 0);
    else {
        sym = proto_symtab_get(tab, message, 0);
        const char *package = proto_schema_package(schema);
        if ((!sym || sym->kind != PROTO_SYMBOL_MESSAGE) && *package) {
            char *full = xasprintf("%s.%s", package, message);
            sym = proto_symtab_get(tab, full, 0);
            free(full);
        }
    }
    int64_t idx[PROTO_MAX_DEPTH];
    const proto_file_t *file = proto_schema_file(schema);
    size_t nidx =
        sym && sym->kind == PROTO_SYMBOL_MESSAGE
            ? pe_indexes_of(proto_schema_package(schema), file->types, file->n_types, sym->full_name, idx, 0)
            : 0;
    const pd_msg_t *m = nidx ? pd_plan_get(r, sym) : NULL;
    if (!m) {
        *error = message ? xasprintf("message %s is not a message of the schema's file", message)
                         : xstrdup("the schema has no message");
        return -1;
    }
    json_error_t je;
    json_t *v = json_loadb(json, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je);
    if (!v) {
        *error = xasprintf("not JSON: %s", je.text);
        return -1;
    }
    pe_ctx_t c = {.r = r, .max_depth = r->limits.max_depth};
    strbuf_t body = {0};
    int rc = pe_message(&c, m, v, &body);
    json_decref(v);
    if (rc != 0) {
        strbuf_free(&body);
        *error = c.error ? c.error : xstrdup("does not encode");
        return -1;
    }
    /* [0], the first message, is the single byte 0 (MessageIndexes.toByteArray). */
    if (nidx == 1 && idx[0] == 0)
        strbuf_putc(out, 0);
    else {
        pe_varint(out, ((uint64_t)nidx << 1));
        for (size_t i = 0; i < nidx; i++)
            pe_varint(out, (uint64_t)idx[i] << 1);
    }
    strbuf_put(out, body.data ? body.data : "", body.len);
    strbuf_free(&body);
    if (out->failed)
        base_oom(0);
    return 0;
}
