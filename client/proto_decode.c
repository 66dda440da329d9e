/*
 * proto_decode: Protobuf records -> JSON rows (client.h, section 3b), in the
 * proto3 JSON mapping as protoc's printer writes it with fields without
 * presence always printed (Python's json_format
 * always_print_fields_with_no_presence): json_name keys, 64-bit integers
 * as strings, bytes as base64, enums by name, maps as objects, Timestamp,
 * Duration, the wrappers, Struct, Value, ListValue, FieldMask and Any in
 * their JSON forms.
 *
 * Contents
 *   1. The plan: one entry per message reachable from the schema's file
 *      (its types in client/internal.h, section 2: proto_encode.c reads it too)
 *   2. The wire: varints, tags, skipping
 *   3. Scanning a message: occurrences sorted by field
 *   4. Values: scalars, defaults, repeated, maps, messages
 *   5. Well-known types
 *   6. Records: message indexes, then the message
 *
 * Resolution is by field number, as Protobuf readers evolve: fields the
 * reader does not know are skipped, fields the record lacks take their
 * defaults (or are left out when they have presence), the last value of a
 * singular field wins and a singular message's occurrences merge. Nothing
 * read is trusted: every length is checked against the bytes left, and
 * depth, values and output are bounded as in the Avro decoder.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "base/hmap.h"
#include "client/client.h"
#include "client/internal.h"
#include "compat/protobuf/protobuf.h"

/* ---- 1. The plan ------------------------------------------------------------ */

static void *pd_alloc(arena_t *a, size_t n)
{
    void *p = arena_alloc(a, n ? n : 1);
    if (!p)
        base_oom(n);
    memset(p, 0, n ? n : 1);
    return p;
}

static const struct {
    const char *name;
    pd_kind_t kind;
} pd_scalars[] = {
    {"double", PD_DOUBLE},     {"float", PD_FLOAT},     {"int64", PD_INT64},     {"uint64", PD_UINT64},
    {"int32", PD_INT32},       {"fixed64", PD_FIXED64}, {"fixed32", PD_FIXED32}, {"bool", PD_BOOL},
    {"string", PD_STRING},     {"bytes", PD_BYTES},     {"uint32", PD_UINT32},   {"sfixed32", PD_SFIXED32},
    {"sfixed64", PD_SFIXED64}, {"sint32", PD_SINT32},   {"sint64", PD_SINT64},
};

typedef struct pd_builder {
    srclient_proto_reader_t *r;
    const proto_symbol_t **pending;
    pd_msg_t **shells;
    size_t n_pending, cap_pending;
    char *error;
} pd_builder_t;

/* The plan of a message, made as an empty shell on first sight and filled
 * from the worklist (recursive types need no recursion). */
static pd_msg_t *pd_plan_of(pd_builder_t *b, const proto_symbol_t *sym)
{
    pd_msg_t *m = hmap_get(&b->r->plans, &sym, sizeof(sym));
    if (m)
        return m;
    m = pd_alloc(b->r->arena, sizeof(*m));
    hmap_put(&b->r->plans, &sym, sizeof(sym), m);
    if (b->n_pending == b->cap_pending) {
        b->cap_pending = b->cap_pending ? 2 * b->cap_pending : 16;
        b->pending = xreallocarray(b->pending, b->cap_pending, sizeof(*b->pending));
        b->shells = xreallocarray(b->shells, b->cap_pending, sizeof(*b->shells));
    }
    b->pending[b->n_pending] = sym;
    b->shells[b->n_pending++] = m;
    return m;
}

static const char *pd_key(arena_t *a, const proto_field_t *f, const char **json_name)
{
    char *name;
    if (f->json_name) {
        name = pd_alloc(a, f->json_name_len + 1);
        memcpy(name, f->json_name, f->json_name_len);
    } else {
        name = pd_alloc(a, strlen(f->name) + 1);
        proto_json_name(f->name, name);
    }
    *json_name = name;
    strbuf_t k = {0};
    cl_json_string(&k, (const uint8_t *)name, strlen(name));
    strbuf_putc(&k, ':');
    if (k.failed)
        base_oom(0);
    char *out = arena_strndup(a, k.data, k.len);
    strbuf_free(&k);
    if (!out)
        base_oom(0);
    return out;
}

/* A field's kind from its type as written; messages and enums resolve in
 * the scope of the message that holds the field. */
static int pd_type(pd_builder_t *b, const proto_symbol_t *owner, const char *type, pd_field_t *out)
{
    for (size_t i = 0; i < sizeof(pd_scalars) / sizeof(*pd_scalars); i++)
        if (strcmp(type, pd_scalars[i].name) == 0) {
            out->kind = pd_scalars[i].kind;
            return 0;
        }
    const proto_symbol_t *s = proto_message_resolve(proto_schema_symtab(b->r->schema), owner, type);
    if (!s || (s->kind != PROTO_SYMBOL_MESSAGE && s->kind != PROTO_SYMBOL_ENUM)) {
        if (!b->error)
            b->error = xasprintf("%s: type %s does not resolve", owner->full_name, type);
        return -1;
    }
    if (s->kind == PROTO_SYMBOL_ENUM) {
        out->kind = PD_ENUM;
        out->enumeration = s->enumeration;
        out->null_value = strcmp(s->full_name, "google.protobuf.NullValue") == 0;
    } else {
        out->kind = PD_MESSAGE;
        out->msg = pd_plan_of(b, s);
    }
    return 0;
}

typedef struct pd_pair {
    int32_t number;
    uint32_t index;
} pd_pair_t;

static int pd_by_number_(const void *a, const void *b)
{
    int32_t x = ((const pd_pair_t *)a)->number, y = ((const pd_pair_t *)b)->number;
    return (x > y) - (x < y);
}

static void pd_index(pd_msg_t *m)
{
    pd_pair_t *pairs = xcalloc(m->n ? m->n : 1, sizeof(*pairs));
    for (size_t i = 0; i < m->n; i++)
        pairs[i] = (pd_pair_t){m->fields[i].number, (uint32_t)i};
    qsort(pairs, m->n, sizeof(*pairs), pd_by_number_);
    m->by_number = xcalloc(m->n ? m->n : 1, sizeof(*m->by_number));
    for (size_t i = 0; i < m->n; i++)
        m->by_number[i] = pairs[i].index;
    free(pairs);
}

static pd_wkt_t pd_wkt_of(const char *full)
{
    static const char *const unwrap[] = {
        "google.protobuf.DoubleValue", "google.protobuf.FloatValue",  "google.protobuf.Int64Value",
        "google.protobuf.UInt64Value", "google.protobuf.Int32Value",  "google.protobuf.UInt32Value",
        "google.protobuf.BoolValue",   "google.protobuf.StringValue", "google.protobuf.BytesValue",
        "google.protobuf.Struct",      "google.protobuf.ListValue",
    };
    if (strcmp(full, "google.protobuf.Timestamp") == 0)
        return PD_WKT_TIMESTAMP;
    if (strcmp(full, "google.protobuf.Duration") == 0)
        return PD_WKT_DURATION;
    if (strcmp(full, "google.protobuf.Value") == 0)
        return PD_WKT_VALUE;
    if (strcmp(full, "google.protobuf.FieldMask") == 0)
        return PD_WKT_FIELD_MASK;
    if (strcmp(full, "google.protobuf.Any") == 0)
        return PD_WKT_ANY;
    for (size_t i = 0; i < sizeof(unwrap) / sizeof(*unwrap); i++)
        if (strcmp(full, unwrap[i]) == 0)
            return PD_WKT_UNWRAP;
    return PD_WKT_NONE;
}

static int pd_fill(pd_builder_t *b, const proto_symbol_t *sym, pd_msg_t *m)
{
    arena_t *a = b->r->arena;
    size_t n;
    proto_field_ref_t *refs = proto_message_fields(sym->message, &n);
    if (!refs)
        base_oom(0);
    int editions = sym->file && sym->file->syntax == PROTO_SYNTAX_EDITION;
    int proto3 = sym->file && sym->file->syntax == PROTO_SYNTAX_PROTO3;
    m->full_name = sym->full_name;
    m->wkt = pd_wkt_of(sym->full_name);
    m->n_oneofs = sym->message->n_oneofs;
    m->fields = pd_alloc(a, n * sizeof(*m->fields));
    m->n = n;
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const proto_field_t *f = refs[i].field;
        pd_field_t *pf = &m->fields[i];
        pf->number = f->tag;
        pf->key = pd_key(a, f, &pf->json_name);
        pf->name = f->name;
        pf->oneof = refs[i].oneof;
        pf->repeated = f->label == PROTO_LABEL_REPEATED;
        if (f->map_key) {
            /* A map is a repeated entry message {key = 1; value = 2}. */
            pf->is_map = pf->repeated = 1;
            pf->kind = PD_MESSAGE;
            pd_msg_t *e = pd_alloc(a, sizeof(*e));
            e->n = 2;
            e->fields = pd_alloc(a, 2 * sizeof(*e->fields));
            e->fields[0] =
                (pd_field_t){.number = 1, .key = "\"key\":", .name = "key", .json_name = "key", .oneof = -1};
            e->fields[1] = (pd_field_t){
                .number = 2, .key = "\"value\":", .name = "value", .json_name = "value", .oneof = -1};
            rc = pd_type(b, sym, f->map_key, &e->fields[0]);
            if (rc == 0)
                rc = pd_type(b, sym, f->map_value, &e->fields[1]);
            pd_index(e);
            pf->msg = e;
            continue;
        }
        rc = pd_type(b, sym, f->type, pf);
        /* Presence: message fields, oneof members, `optional` and proto2's
         * labels, and every singular field of an editions file (its default
         * field_presence is EXPLICIT). */
        pf->packed = pf->repeated && (proto3 || editions);
        pf->presence =
            !pf->repeated && (pf->kind == PD_MESSAGE || pf->oneof >= 0 || f->label == PROTO_LABEL_OPTIONAL ||
                              f->label == PROTO_LABEL_REQUIRED || editions || !proto3);
    }
    free(refs);
    pd_index(m);
    return rc;
}

static void pd_free_indexes(srclient_proto_reader_t *r)
{
    for (size_t i = 0; i < r->plans.cap; i++) {
        if (!hmap_live(&r->plans, i))
            continue;
        pd_msg_t *m = r->plans.slots[i].value;
        free(m->by_number);
        for (size_t f = 0; f < m->n; f++)
            if (m->fields[f].is_map)
                free(m->fields[f].msg->by_number);
    }
}

static void pd_add_types(pd_builder_t *b, const char *prefix, proto_type_t *const *types, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (types[i]->kind != PROTO_TYPE_MESSAGE)
            continue;
        char *full =
            *prefix ? xasprintf("%s.%s", prefix, types[i]->message->name) : xstrdup(types[i]->message->name);
        const proto_symbol_t *s = proto_symtab_get(proto_schema_symtab(b->r->schema), full, 0);
        if (s && s->kind == PROTO_SYMBOL_MESSAGE)
            pd_plan_of(b, s);
        pd_add_types(b, full, types[i]->message->types, types[i]->message->n_types);
        free(full);
    }
}

void srclient_proto_reader_keep_unknown(srclient_proto_reader_t *r, int keep)
{
    r->keep_unknown = keep != 0;
}

srclient_proto_reader_t *srclient_proto_reader_new(const proto_schema_t *schema,
                                                   const srclient_avro_limits_t *limits, char **error)
{
    srclient_proto_reader_t *r = xcalloc(1, sizeof(*r));
    r->schema = schema;
    if (limits)
        r->limits = *limits;
    if (!r->limits.max_depth)
        r->limits.max_depth = 256;
    if (!r->limits.max_output)
        r->limits.max_output = 64u << 20;
    if (!r->limits.max_values)
        r->limits.max_values = 16u << 20;
    r->arena = arena_new();
    if (!r->arena)
        base_oom(0);
    pd_builder_t b = {.r = r};
    const proto_file_t *file = proto_schema_file(schema);
    pd_add_types(&b, proto_schema_package(schema), file->types, file->n_types);
    int rc = 0;
    for (size_t i = 0; i < b.n_pending && rc == 0; i++)
        rc = pd_fill(&b, b.pending[i], b.shells[i]);
    free(b.pending);
    free(b.shells);
    if (rc != 0) {
        if (error)
            *error = b.error;
        else
            free(b.error);
        srclient_proto_reader_free(r);
        return NULL;
    }
    return r;
}

const pd_msg_t *pd_plan_get(const srclient_proto_reader_t *r, const proto_symbol_t *sym)
{
    return hmap_get(&r->plans, &sym, sizeof(sym));
}

void srclient_proto_reader_free(srclient_proto_reader_t *r)
{
    if (!r)
        return;
    pd_free_indexes(r);
    hmap_clear(&r->plans);
    arena_free(r->arena);
    free(r);
}

/* ---- 2. The wire ---------------------------------------------------------- */

typedef struct pd_ctx {
    const srclient_proto_reader_t *r;
    strbuf_t *out;
    size_t start; /* out->len when the record began */
    size_t values;
    size_t depth;
    char *error;
} pd_ctx_t;

static int pd_fail(pd_ctx_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int pd_fail(pd_ctx_t *c, const char *fmt, ...)
{
    if (!c->error) {
        va_list ap;
        va_start(ap, fmt);
        c->error = xvasprintf(fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int pd_count(pd_ctx_t *c)
{
    if (++c->values > c->r->limits.max_values)
        return pd_fail(c, "more than %zu values in one record", c->r->limits.max_values);
    return 0;
}

static int pd_varint(const uint8_t *p, size_t n, size_t *pos, uint64_t *out)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (*pos >= n)
            return -1;
        uint8_t b = p[(*pos)++];
        if (shift == 63 && b > 1)
            return -1;
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = v;
            return 0;
        }
    }
    return -1;
}

/* One field's value at *pos of wire type wt: a varint or fixed value in *v,
 * a length-delimited one in *body and *blen; groups are skipped whole. */
static int pd_value(pd_ctx_t *c, const uint8_t *p, size_t n, size_t *pos, int wt, uint64_t *v,
                    const uint8_t **body, size_t *blen)
{
    switch (wt) {
    case 0:
        if (pd_varint(p, n, pos, v) != 0)
            return pd_fail(c, "a truncated or overlong varint");
        return 0;
    case 1:
    case 5: {
        size_t w = wt == 1 ? 8 : 4;
        if (n - *pos < w)
            return pd_fail(c, "a truncated fixed%zu value", w * 8);
        uint64_t x = 0;
        for (size_t i = 0; i < w; i++)
            x |= (uint64_t)p[*pos + i] << (8 * i);
        *pos += w;
        *v = x;
        return 0;
    }
    case 2: {
        uint64_t len;
        if (pd_varint(p, n, pos, &len) != 0)
            return pd_fail(c, "a truncated length");
        if (len > n - *pos)
            return pd_fail(c, "a length of %" PRIu64 " with %zu bytes left", len, n - *pos);
        *body = p + *pos;
        *blen = (size_t)len;
        *pos += (size_t)len;
        return 0;
    }
    case 3: {
        /* A group (proto2): skipped to its end tag, nesting bounded. */
        size_t open = 1, begin = *pos, last = *pos;
        while (open) {
            uint64_t tag, x;
            const uint8_t *b;
            size_t bl;
            last = *pos;
            if (pd_varint(p, n, pos, &tag) != 0)
                return pd_fail(c, "a truncated group");
            int t = (int)(tag & 7);
            if (pd_count(c) != 0)
                return -1;
            if (t == 3) {
                if (++open > c->r->limits.max_depth)
                    return pd_fail(c, "groups nested deeper than %zu", c->r->limits.max_depth);
            } else if (t == 4) {
                open--;
            } else if (pd_value(c, p, n, pos, t, &x, &b, &bl) != 0)
                return -1;
        }
        /* Its bytes up to (not including) its end tag, for a kept unknown field. */
        *body = p + begin;
        *blen = last - begin;
        return 0;
    }
    default: return pd_fail(c, "wire type %d", wt);
    }
}

/* ---- 3. Scanning a message ------------------------------------------------- */

typedef struct pd_span {
    const uint8_t *p;
    size_t n;
} pd_span_t;

typedef struct pd_occ {
    uint32_t field;
    uint8_t wt;
    uint64_t v;
    const uint8_t *p;
    size_t n;
} pd_occ_t;

/* A message's occurrences grouped by field (in wire order within a field):
 * field i has occ[start[i] .. start[i] + cnt[i]); winner[o] is the oneof
 * member set last, or -1. */
typedef struct pd_scan {
    pd_occ_t *occ;
    size_t *start, *cnt;
    int *winner;
    pd_occ_t
        *unk; /* with keep_unknown: the fields unknown to the reader, in wire order (field: its number) */
    size_t n_unk;
} pd_scan_t;

static void pd_scan_free(pd_scan_t *s)
{
    free(s->unk);
    free(s->occ);
    free(s->start);
    free(s->cnt);
    free(s->winner);
}

static int pd_wire_type_of(pd_kind_t k)
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

static const pd_field_t *pd_find(const pd_msg_t *m, int32_t number, uint32_t *index)
{
    size_t lo = 0, hi = m->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int32_t x = m->fields[m->by_number[mid]].number;
        if (x == number) {
            *index = m->by_number[mid];
            return &m->fields[*index];
        }
        if (x < number)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static int pd_scan(pd_ctx_t *c, const pd_msg_t *m, const pd_span_t *spans, size_t nspans, pd_scan_t *s)
{
    pd_occ_t *raw = NULL;
    size_t n = 0, cap = 0;
    s->cnt = xcalloc(m->n ? m->n : 1, sizeof(*s->cnt));
    s->start = xcalloc(m->n ? m->n : 1, sizeof(*s->start));
    s->winner = xcalloc(m->n_oneofs ? m->n_oneofs : 1, sizeof(*s->winner));
    for (size_t o = 0; o < m->n_oneofs; o++)
        s->winner[o] = -1;
    size_t cap_unk = 0;
    for (size_t sp = 0; sp < nspans; sp++) {
        const uint8_t *p = spans[sp].p;
        size_t len = spans[sp].n, pos = 0;
        while (pos < len) {
            uint64_t tag, v = 0;
            const uint8_t *body = NULL;
            size_t blen = 0;
            if (pd_varint(p, len, &pos, &tag) != 0) {
                free(raw);
                return pd_fail(c, "a truncated tag");
            }
            int wt = (int)(tag & 7);
            uint64_t number = tag >> 3;
            if (number == 0 || number > 536870911 || wt == 4) {
                free(raw);
                return pd_fail(c, "a tag with field number %" PRIu64 " and wire type %d", number, wt);
            }
            if (pd_count(c) != 0 || pd_value(c, p, len, &pos, wt, &v, &body, &blen) != 0) {
                free(raw);
                return -1;
            }
            uint32_t fi;
            const pd_field_t *f = pd_find(m, (int32_t)number, &fi);
            int want = f ? pd_wire_type_of(f->kind) : -1;
            int packed = f && wt == 2 && f->repeated && !f->is_map && want != 2;
            if (!f || (wt != want && !packed)) {
                /* Unknown to the reader (or a wire type the field cannot have:
                 * unknown, as protoc treats it): skipped, or kept on request. */
                if (c->r->keep_unknown) {
                    if (s->n_unk == cap_unk) {
                        cap_unk = cap_unk ? 2 * cap_unk : 8;
                        s->unk = xreallocarray(s->unk, cap_unk, sizeof(*s->unk));
                    }
                    s->unk[s->n_unk++] = (pd_occ_t){(uint32_t)number, (uint8_t)wt, v, body, blen};
                }
                continue;
            }
            if (n == cap) {
                cap = cap ? 2 * cap : 16;
                raw = xreallocarray(raw, cap, sizeof(*raw));
            }
            raw[n++] = (pd_occ_t){fi, (uint8_t)wt, v, body, blen};
            s->cnt[fi]++;
            if (f->oneof >= 0)
                s->winner[f->oneof] = (int)fi;
        }
    }
    /* Grouped by field, stable: a counting sort. */
    size_t total = 0;
    for (size_t i = 0; i < m->n; i++) {
        s->start[i] = total;
        total += s->cnt[i];
    }
    s->occ = xcalloc(n ? n : 1, sizeof(*s->occ));
    size_t *fill = xcalloc(m->n ? m->n : 1, sizeof(*fill));
    for (size_t i = 0; i < n; i++)
        s->occ[s->start[raw[i].field] + fill[raw[i].field]++] = raw[i];
    free(fill);
    free(raw);
    return 0;
}

/* ---- 4. Values ------------------------------------------------------------- */

static int pd_message(pd_ctx_t *c, const pd_msg_t *m, const pd_span_t *spans, size_t nspans);

static int pd_check_output(pd_ctx_t *c)
{
    if (c->out->failed)
        base_oom(0);
    if (c->out->len - c->start > c->r->limits.max_output)
        return pd_fail(c, "a record longer than %zu bytes of JSON", c->r->limits.max_output);
    return 0;
}

static void pd_enum(strbuf_t *b, const pd_field_t *f, int32_t v)
{
    const char *name = f->null_value ? NULL : proto_enum_name_of(f->enumeration, v);
    if (f->null_value)
        strbuf_puts(b, "null");
    else if (name) {
        strbuf_putc(b, '"');
        strbuf_puts(b, name);
        strbuf_putc(b, '"');
    } else
        strbuf_printf(b, "%" PRId32, v);
}

static void pd_scalar(strbuf_t *b, const pd_field_t *f, uint64_t v, const uint8_t *p, size_t n)
{
    switch (f->kind) {
    case PD_DOUBLE: {
        double d;
        memcpy(&d, &v, sizeof(d));
        cl_json_double(b, d);
        break;
    }
    case PD_FLOAT: {
        uint32_t u = (uint32_t)v;
        float x;
        memcpy(&x, &u, sizeof(x));
        cl_json_float_shortest(b, x);
        break;
    }
    case PD_INT64:
    case PD_SFIXED64: strbuf_printf(b, "\"%" PRId64 "\"", (int64_t)v); break;
    case PD_SINT64: strbuf_printf(b, "\"%" PRId64 "\"", (int64_t)((v >> 1) ^ -(v & 1))); break;
    case PD_UINT64:
    case PD_FIXED64: strbuf_printf(b, "\"%" PRIu64 "\"", v); break;
    case PD_INT32:
    case PD_SFIXED32: strbuf_printf(b, "%" PRId32, (int32_t)(uint32_t)v); break;
    case PD_SINT32: {
        uint32_t u = (uint32_t)v;
        strbuf_printf(b, "%" PRId32, (int32_t)((u >> 1) ^ -(u & 1)));
        break;
    }
    case PD_UINT32:
    case PD_FIXED32: strbuf_printf(b, "%" PRIu32, (uint32_t)v); break;
    case PD_BOOL: strbuf_puts(b, v ? "true" : "false"); break;
    case PD_ENUM: pd_enum(b, f, (int32_t)(uint32_t)v); break;
    case PD_STRING: cl_json_string(b, p, n); break;
    case PD_BYTES: cl_json_base64(b, p, n); break;
    default: break;
    }
}

/* What a field without presence reads as when the record lacks it. */
static void pd_default(strbuf_t *b, const pd_field_t *f)
{
    if (f->is_map)
        strbuf_puts(b, "{}");
    else if (f->repeated)
        strbuf_puts(b, "[]");
    else if (f->kind == PD_MESSAGE)
        strbuf_puts(b, "null");
    else if (f->kind == PD_ENUM && !f->null_value && f->enumeration->n_values) {
        /* proto3: the first value is the zero; proto2: the first is the default. */
        strbuf_putc(b, '"');
        strbuf_puts(b, f->enumeration->values[0]->name);
        strbuf_putc(b, '"');
    } else
        pd_scalar(b, f, 0, (const uint8_t *)"", 0);
}

/* Each element of a packed run, or the one value of an unpacked occurrence. */
static int pd_elements(pd_ctx_t *c, const pd_field_t *f, const pd_occ_t *o, int *first)
{
    int want = pd_wire_type_of(f->kind);
    if (o->wt == want) {
        if (!*first)
            strbuf_putc(c->out, ',');
        *first = 0;
        if (f->kind == PD_MESSAGE) {
            pd_span_t one = {o->p, o->n};
            return pd_message(c, f->msg, &one, 1);
        }
        pd_scalar(c->out, f, o->v, o->p, o->n);
        return 0;
    }
    size_t pos = 0;
    while (pos < o->n) {
        uint64_t v;
        const uint8_t *b;
        size_t bl;
        if (pd_count(c) != 0 || pd_value(c, o->p, o->n, &pos, want, &v, &b, &bl) != 0)
            return -1;
        if (!*first)
            strbuf_putc(c->out, ',');
        *first = 0;
        pd_scalar(c->out, f, v, NULL, 0);
        if (pd_check_output(c) != 0)
            return -1;
    }
    return 0;
}

/* A map entry's key as JSON object key text (always a string). */
static int pd_map_key(pd_ctx_t *c, const pd_field_t *kf, const pd_scan_t *s, strbuf_t *key)
{
    size_t n = s->cnt[0];
    const pd_occ_t *o = n ? &s->occ[s->start[0] + n - 1] : NULL;
    strbuf_t t = {0};
    if (o)
        pd_scalar(&t, kf, o->v, o->p, o->n);
    else
        pd_default(&t, kf);
    if (t.failed)
        base_oom(0);
    if (t.data[0] == '"')
        strbuf_put(key, t.data, t.len);
    else {
        strbuf_putc(key, '"');
        strbuf_put(key, t.data, t.len);
        strbuf_putc(key, '"');
    }
    strbuf_free(&t);
    (void)c;
    return 0;
}

static int pd_singular(pd_ctx_t *c, const pd_field_t *f, const pd_occ_t *occ, size_t n);

/* A map as a JSON object; a key seen twice keeps its last value (as
 * protoc's parser does). */
static int pd_map(pd_ctx_t *c, const pd_field_t *f, const pd_occ_t *occ, size_t n)
{
    const pd_msg_t *e = f->msg;
    hmap_t last = {0};
    strbuf_t key = {0};
    int rc = 0;
    for (size_t pass = 0; pass < 2 && rc == 0; pass++) {
        int first = 1;
        if (pass == 1)
            strbuf_putc(c->out, '{');
        for (size_t i = 0; i < n && rc == 0; i++) {
            pd_span_t one = {occ[i].p, occ[i].n};
            pd_scan_t s = {0};
            rc = pd_scan(c, e, &one, 1, &s);
            if (rc == 0) {
                key.len = 0;
                if (key.data)
                    key.data[0] = 0;
                pd_map_key(c, &e->fields[0], &s, &key);
                if (key.failed)
                    base_oom(0);
                if (pass == 0)
                    hmap_put(&last, key.data, key.len, (void *)(i + 1));
                else if ((size_t)hmap_get(&last, key.data, key.len) == i + 1) {
                    if (!first)
                        strbuf_putc(c->out, ',');
                    first = 0;
                    strbuf_put(c->out, key.data, key.len);
                    strbuf_putc(c->out, ':');
                    const pd_field_t *vf = &e->fields[1];
                    /* A missing message value is the empty message (protoc), not null. */
                    rc = s.cnt[1] == 0 && vf->kind == PD_MESSAGE
                             ? pd_message(c, vf->msg, NULL, 0)
                             : pd_singular(c, vf, &s.occ[s.start[1]], s.cnt[1]);
                    if (rc == 0)
                        rc = pd_check_output(c);
                }
            }
            pd_scan_free(&s);
        }
        if (pass == 1 && rc == 0)
            strbuf_putc(c->out, '}');
    }
    hmap_clear(&last);
    strbuf_free(&key);
    return rc;
}

/* A singular field's value from its occurrences: the last scalar wins, a
 * message's occurrences merge (parsing them one after the other is what
 * merging means on the wire); none: the default. */
static int pd_singular(pd_ctx_t *c, const pd_field_t *f, const pd_occ_t *occ, size_t n)
{
    if (n == 0) {
        pd_default(c->out, f);
        return 0;
    }
    if (f->kind != PD_MESSAGE) {
        pd_scalar(c->out, f, occ[n - 1].v, occ[n - 1].p, occ[n - 1].n);
        return 0;
    }
    pd_span_t *spans = xcalloc(n, sizeof(*spans));
    for (size_t i = 0; i < n; i++)
        spans[i] = (pd_span_t){occ[i].p, occ[i].n};
    int rc = pd_message(c, f->msg, spans, n);
    free(spans);
    return rc;
}

static int pd_field_value(pd_ctx_t *c, const pd_field_t *f, const pd_occ_t *occ, size_t n)
{
    if (f->is_map)
        return pd_map(c, f, occ, n);
    if (!f->repeated)
        return pd_singular(c, f, occ, n);
    strbuf_putc(c->out, '[');
    int first = 1;
    for (size_t i = 0; i < n; i++)
        if (pd_elements(c, f, &occ[i], &first) != 0 || pd_check_output(c) != 0)
            return -1;
    strbuf_putc(c->out, ']');
    return 0;
}

/* ---- 5. Well-known types --------------------------------------------------- */

/* Fields 1 and 2 of Timestamp and Duration: seconds (int64) and nanos (int32). */
static void pd_seconds_nanos(const pd_msg_t *m, const pd_scan_t *s, int64_t *seconds, int32_t *nanos)
{
    *seconds = 0;
    *nanos = 0;
    for (size_t i = 0; i < m->n; i++) {
        if (!s->cnt[i])
            continue;
        uint64_t v = s->occ[s->start[i] + s->cnt[i] - 1].v;
        if (m->fields[i].number == 1)
            *seconds = (int64_t)v;
        else if (m->fields[i].number == 2)
            *nanos = (int32_t)(uint32_t)v;
    }
}

/* The fraction as protoc writes it: none, or 3, 6 or 9 digits. */
static void pd_fraction(strbuf_t *b, int32_t nanos)
{
    if (nanos == 0)
        return;
    if (nanos % 1000000 == 0)
        strbuf_printf(b, ".%03" PRId32, nanos / 1000000);
    else if (nanos % 1000 == 0)
        strbuf_printf(b, ".%06" PRId32, nanos / 1000);
    else
        strbuf_printf(b, ".%09" PRId32, nanos);
}

static int pd_timestamp(pd_ctx_t *c, const pd_msg_t *m, const pd_scan_t *s)
{
    int64_t sec;
    int32_t nanos;
    pd_seconds_nanos(m, s, &sec, &nanos);
    /* 0001-01-01T00:00:00Z .. 9999-12-31T23:59:59Z, as the mapping allows. */
    if (sec < -62135596800LL || sec > 253402300799LL || nanos < 0 || nanos > 999999999)
        return pd_fail(c, "a Timestamp out of range (%" PRId64 " s, %" PRId32 " ns)", sec, nanos);
    int64_t days = sec >= 0 ? sec / 86400 : -((-sec + 86399) / 86400);
    int64_t rem = sec - days * 86400;
    int64_t y;
    unsigned mo, d;
    cl_civil_from_days(days, &y, &mo, &d);
    strbuf_printf(c->out, "\"%04" PRId64 "-%02u-%02uT%02d:%02d:%02d", y, mo, d, (int)(rem / 3600),
                  (int)(rem / 60 % 60), (int)(rem % 60));
    pd_fraction(c->out, nanos);
    strbuf_puts(c->out, "Z\"");
    return 0;
}

static int pd_duration(pd_ctx_t *c, const pd_msg_t *m, const pd_scan_t *s)
{
    int64_t sec;
    int32_t nanos;
    pd_seconds_nanos(m, s, &sec, &nanos);
    if (sec < -315576000000LL || sec > 315576000000LL || nanos < -999999999 || nanos > 999999999 ||
        (sec > 0 && nanos < 0) || (sec < 0 && nanos > 0))
        return pd_fail(c, "a Duration out of range (%" PRId64 " s, %" PRId32 " ns)", sec, nanos);
    int neg = sec < 0 || nanos < 0;
    strbuf_printf(c->out, "\"%s%" PRId64, neg ? "-" : "", sec < 0 ? -sec : sec);
    pd_fraction(c->out, nanos < 0 ? -nanos : nanos);
    strbuf_puts(c->out, "s\"");
    return 0;
}

/* FieldMask: its paths (field 1) joined by commas, each in lowerCamelCase
 * ("a_b.c" -> "aB.c"). A path that would not read back (an upper-case
 * letter, a "_" not before a lower-case one) is refused, as protoc's and
 * Python's json_format refuse to print it. */
static int pd_field_mask(pd_ctx_t *c, const pd_msg_t *m, const pd_scan_t *s)
{
    strbuf_t t = {0};
    int rc = 0;
    for (size_t i = 0; i < m->n && rc == 0; i++) {
        if (m->fields[i].number != 1 || m->fields[i].kind != PD_STRING)
            continue;
        for (size_t k = 0; k < s->cnt[i] && rc == 0; k++) {
            const pd_occ_t *o = &s->occ[s->start[i] + k];
            if (t.len || k)
                strbuf_putc(&t, ',');
            for (size_t j = 0; j < o->n && rc == 0; j++) {
                uint8_t ch = o->p[j];
                if (ch >= 'A' && ch <= 'Z')
                    rc = pd_fail(c, "a FieldMask path with an upper-case letter");
                else if (ch != '_')
                    strbuf_putc(&t, (char)ch);
                else if (j + 1 < o->n && o->p[j + 1] >= 'a' && o->p[j + 1] <= 'z')
                    strbuf_putc(&t, (char)(o->p[++j] - 'a' + 'A'));
                else
                    rc = pd_fail(c, "a FieldMask path with a \"_\" not before a lower-case letter");
            }
        }
    }
    if (t.failed)
        base_oom(0);
    if (rc == 0)
        cl_json_string(c->out, (const uint8_t *)(t.data ? t.data : ""), t.len);
    strbuf_free(&t);
    return rc;
}

/* The plan of the message an Any's type URL names (the part after the last
 * "/"), or NULL. Only messages the reader planned can be unpacked: those of
 * the schema's own file and every type they reach (client/internal.h). */
const pd_msg_t *pd_any_plan(const srclient_proto_reader_t *r, const char *url, size_t n)
{
    size_t at = n;
    while (at > 0 && url[at - 1] != '/')
        at--;
    char *name = xstrndup(url + at, n - at);
    const proto_symbol_t *sym = proto_symtab_get(proto_schema_symtab(r->schema), name, 0);
    free(name);
    return sym && sym->kind == PROTO_SYMBOL_MESSAGE ? pd_plan_get(r, sym) : NULL;
}

static const pd_occ_t *pd_last(const pd_msg_t *m, const pd_scan_t *s, int32_t number)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->fields[i].number == number && s->cnt[i])
            return &s->occ[s->start[i] + s->cnt[i] - 1];
    return NULL;
}

/* Any: {"@type": url, then the packed message's fields}, or for a packed
 * well-known type {"@type": url, "value": its JSON form}; an empty Any is {}. */
static int pd_any(pd_ctx_t *c, const pd_msg_t *m, const pd_scan_t *s)
{
    const pd_occ_t *url = pd_last(m, s, 1), *value = pd_last(m, s, 2);
    if (!url || url->wt != 2) {
        if (value && value->n)
            return pd_fail(c, "an Any with a value and no type URL");
        strbuf_puts(c->out, "{}");
        return 0;
    }
    const pd_msg_t *inner = pd_any_plan(c->r, (const char *)url->p, url->n);
    if (!inner)
        return pd_fail(c, "an Any of a type the schema's plan does not hold: %.*s",
                       (int)(url->n > 200 ? 200 : url->n), (const char *)url->p);
    strbuf_puts(c->out, "{\"@type\":");
    cl_json_string(c->out, url->p, url->n);
    pd_span_t one = {value && value->wt == 2 ? value->p : NULL, value && value->wt == 2 ? value->n : 0};
    if (inner->wkt != PD_WKT_NONE) {
        strbuf_puts(c->out, ",\"value\":");
        int rc = pd_message(c, inner, &one, 1);
        strbuf_putc(c->out, '}');
        return rc;
    }
    size_t at = c->out->len;
    int rc = pd_message(c, inner, &one, 1);
    if (rc != 0)
        return rc;
    if (c->out->len == at + 2) /* "{}": no field */
        c->out->len = at;
    else
        c->out->data[at] = ',';
    if (c->out->len == at)
        strbuf_putc(c->out, '}');
    return 0;
}

static int pd_wkt(pd_ctx_t *c, const pd_msg_t *m, const pd_scan_t *s)
{
    switch (m->wkt) {
    case PD_WKT_TIMESTAMP: return pd_timestamp(c, m, s);
    case PD_WKT_DURATION: return pd_duration(c, m, s);
    case PD_WKT_FIELD_MASK: return pd_field_mask(c, m, s);
    case PD_WKT_ANY: return pd_any(c, m, s);
    case PD_WKT_UNWRAP:
        for (size_t i = 0; i < m->n; i++)
            if (m->fields[i].number == 1)
                return pd_field_value(c, &m->fields[i], &s->occ[s->start[i]], s->cnt[i]);
        strbuf_puts(c->out, "null");
        return 0;
    case PD_WKT_VALUE:
        for (size_t i = 0; i < m->n; i++)
            if (m->fields[i].oneof >= 0 && s->winner[m->fields[i].oneof] == (int)i)
                return pd_field_value(c, &m->fields[i], &s->occ[s->start[i]], s->cnt[i]);
        strbuf_puts(c->out, "null");
        return 0;
    default: return -1;
    }
}

/* The fields unknown to the reader, kept (srclient_proto_reader_keep_unknown):
 * "@unknown": [{"number": N, "wireType": W, "value": V}, ...] in wire order;
 * V is a varint or fixed64 as a decimal string (64 bits do not fit a JSON
 * number), a fixed32 as a number, a length-delimited value or a group's
 * bytes (up to its end tag) in base64. "@" cannot start a json_name. */
static void pd_unknown(strbuf_t *b, const pd_scan_t *s)
{
    strbuf_puts(b, "\"@unknown\":[");
    for (size_t i = 0; i < s->n_unk; i++) {
        const pd_occ_t *o = &s->unk[i];
        strbuf_printf(b, "%s{\"number\":%" PRIu32 ",\"wireType\":%d,\"value\":", i ? "," : "", o->field,
                      o->wt);
        if (o->wt == 0 || o->wt == 1)
            strbuf_printf(b, "\"%" PRIu64 "\"", o->v);
        else if (o->wt == 5)
            strbuf_printf(b, "%" PRIu32, (uint32_t)o->v);
        else
            cl_json_base64(b, o->p, o->n);
        strbuf_putc(b, '}');
    }
    strbuf_putc(b, ']');
}

static int pd_message(pd_ctx_t *c, const pd_msg_t *m, const pd_span_t *spans, size_t nspans)
{
    if (++c->depth > c->r->limits.max_depth)
        return pd_fail(c, "messages nested deeper than %zu", c->r->limits.max_depth);
    pd_scan_t s = {0};
    int rc = pd_scan(c, m, spans, nspans, &s);
    if (rc == 0 && m->wkt != PD_WKT_NONE)
        rc = pd_wkt(c, m, &s);
    else if (rc == 0) {
        strbuf_putc(c->out, '{');
        int first = 1;
        for (size_t i = 0; i < m->n && rc == 0; i++) {
            const pd_field_t *f = &m->fields[i];
            if (f->oneof >= 0 ? s.winner[f->oneof] != (int)i : f->presence && s.cnt[i] == 0)
                continue;
            if (!first)
                strbuf_putc(c->out, ',');
            first = 0;
            strbuf_puts(c->out, f->key);
            rc = pd_field_value(c, f, &s.occ[s.start[i]], s.cnt[i]);
            if (rc == 0)
                rc = pd_check_output(c);
        }
        if (rc == 0 && s.n_unk) {
            if (!first)
                strbuf_putc(c->out, ',');
            pd_unknown(c->out, &s);
            rc = pd_check_output(c);
        }
        if (rc == 0)
            strbuf_putc(c->out, '}');
    }
    pd_scan_free(&s);
    c->depth--;
    return rc;
}

/* ---- 6. Records ------------------------------------------------------------ */

int srclient_proto_decode(const srclient_proto_reader_t *r, const proto_schema_t *writer, const uint8_t *data,
                          size_t len, strbuf_t *out, char **error)
{
    int64_t idx[PROTO_MAX_DEPTH];
    size_t nidx = 0;
    long used = srclient_proto_indexes(data, len, idx, PROTO_MAX_DEPTH, &nidx);
    if (used < 0) {
        *error = xstrdup("bad message indexes (truncated, negative or more than 64)");
        return -1;
    }
    const proto_schema_t *w = writer ? writer : r->schema;
    const proto_symbol_t *sym = proto_schema_message_at(w, idx, nidx);
    if (!sym) {
        *error = xstrdup("the message indexes name no message of the schema");
        return -1;
    }
    if (w != r->schema) {
        /* The reader's message of the same full name: fields match by number. */
        const char *name = sym->full_name;
        sym = proto_symtab_get(proto_schema_symtab(r->schema), name, 0);
        if (!sym || sym->kind != PROTO_SYMBOL_MESSAGE) {
            *error = xasprintf("message %s is not in the reader schema", name);
            return -1;
        }
    }
    const pd_msg_t *m = hmap_get(&r->plans, &sym, sizeof(sym));
    if (!m) {
        *error = xasprintf("message %s is not in the reader schema's file", sym->full_name);
        return -1;
    }
    pd_ctx_t c = {.r = r, .out = out, .start = out->len};
    pd_span_t all = {data + used, len - (size_t)used};
    if (pd_message(&c, m, &all, 1) != 0) {
        out->len = c.start;
        if (out->data)
            out->data[c.start] = 0;
        *error = c.error ? c.error : xstrdup("undecodable");
        return -1;
    }
    return 0;
}
