/*
 * proto_option_wire: custom option values to and from the protobuf wire
 * format. protoc stores a custom option -- an extension field of one of the
 * *Options messages -- as an unknown field of that message, so building a
 * descriptor means encoding `(ext) = value` (aggregates included) the way
 * protoc does, and reading one means decoding such fields again with the
 * extension's definition.
 *
 * Encoding follows protoc: an aggregate is serialized as the parsed message
 * would be (fields in number order, proto3 repeated scalars packed, map
 * entries key first); `(ext).a.b = v` becomes the nested message a{b = v}.
 */
#include "compat/protobuf/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A message's fields sorted two ways, built once per message per codec. */
typedef struct field_tables {
    const proto_message_t *message;
    const proto_field_t **by_name;
    const proto_field_t **by_number;
    size_t n;
} field_tables_t;

#define FIELD_CACHE 64

struct proto_option_codec {
    const proto_symtab_t *tab;
    arena_t *arena; /* temporaries, the values decoded, the cache */
    char *error;    /* encoding: the first failure of one call */
    field_tables_t cache[FIELD_CACHE];
};

typedef struct proto_option_codec codec_t;

static void map_add(codec_t *r, proto_value_t *map, const char *key, proto_value_t *v)
{
    if (v)
        proto_value_map_add(r->arena, map, key, v);
}

/* ---- Encoding --------------------------------------------------------------------------- */

static void put_varint(strbuf_t *out, uint64_t v)
{
    do {
        char byte = (char)(v & 0x7F);
        v >>= 7;
        if (v)
            byte = (char)(byte | 0x80);
        strbuf_putc(out, byte);
    } while (v);
}

static void put_fixed(strbuf_t *out, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        strbuf_putc(out, (char)((v >> (8 * i)) & 0xFF));
}

static void put_tag(strbuf_t *out, int32_t number, int wire_type)
{
    put_varint(out, ((uint64_t)(uint32_t)number << 3) | (uint64_t)wire_type);
}

enum { WIRE_VARINT = 0, WIRE_FIXED64 = 1, WIRE_LEN = 2, WIRE_FIXED32 = 5 };

/* A field of a message type (or an extension), with what resolves its type. */
typedef struct typed_field {
    const proto_field_t *field;
    const char *package; /* the defining file's package */
    const char *scope;   /* full name of the message (or scope) defining it */
    int proto3;          /* the defining file's syntax, for packing */
} typed_field_t;

/* Resolves a type name as seen from a full-name scope ("pkg.Outer"). */
static const proto_symbol_t *resolve_from(codec_t *b, const char *package, const char *scope,
                                          const char *name, int want_extension)
{
    size_t plen = strlen(package);
    const char *local = scope;
    if (plen && strncmp(scope, package, plen) == 0)
        local = scope[plen] == '.' ? scope + plen + 1 : scope + plen;
    proto_scope_t s = {.tab = b->tab, .package = package};
    char *parts = arena_strdup(b->arena, local);
    for (char *p = parts, *dot; p && *p; p = dot ? dot + 1 : NULL) {
        dot = strchr(p, '.');
        if (dot)
            *dot = '\0';
        if (proto_scope_enter(&s, p) != 0)
            break;
    }
    const proto_symbol_t *sym = proto_scope_resolve(&s, name, want_extension);
    proto_scope_free(&s);
    return sym;
}

static int file_is_proto3(const proto_file_t *f)
{
    return f->syntax == PROTO_SYNTAX_PROTO3 || f->syntax == PROTO_SYNTAX_EDITION;
}

static int encode_message(codec_t *b, const proto_symbol_t *msg, const proto_value_t *map, strbuf_t *out);

static int number_text(const proto_value_t *v, const char **text)
{
    if (v->kind != PROTO_VALUE_NUMBER && v->kind != PROTO_VALUE_ENUM && v->kind != PROTO_VALUE_BOOL)
        return -1;
    *text = v->text;
    return 0;
}

/* One scalar value of a known scalar type, without its tag. Returns the wire type or -1. */
static int encode_scalar(codec_t *b, const char *type, const proto_value_t *v, strbuf_t *out)
{
    const char *text;
    char *end = NULL;
    if (!strcmp(type, "string") || !strcmp(type, "bytes")) {
        if (v->kind != PROTO_VALUE_STRING)
            return -1;
        uint8_t *bytes = arena_alloc(b->arena, v->len + 1);
        size_t n = v->len;
        if (!bytes)
            return -1;
        if (!strcmp(type, "bytes"))
            n = proto_text_to_bytes(v->text, v->len, bytes);
        else
            memcpy(bytes, v->text, n);
        put_varint(out, n);
        strbuf_put(out, (const char *)bytes, n);
        return WIRE_LEN;
    }
    if (number_text(v, &text) != 0)
        return -1;
    if (!strcmp(type, "bool")) {
        if (strcmp(text, "true") && strcmp(text, "false") && strcmp(text, "1") && strcmp(text, "0"))
            return -1;
        put_varint(out, !strcmp(text, "true") || !strcmp(text, "1"));
        return WIRE_VARINT;
    }
    if (!strcmp(type, "float") || !strcmp(type, "double")) {
        double d;
        if (proto_parse_double(text, &d) != 0)
            return -1;
        if (!strcmp(type, "float")) {
            float f = (float)d;
            uint32_t bits;
            memcpy(&bits, &f, 4);
            put_fixed(out, bits, 4);
            return WIRE_FIXED32;
        }
        uint64_t bits;
        memcpy(&bits, &d, 8);
        put_fixed(out, bits, 8);
        return WIRE_FIXED64;
    }
    int is_unsigned = type[0] == 'u' || !strcmp(type, "fixed32") || !strcmp(type, "fixed64");
    uint64_t u = is_unsigned ? strtoull(text, &end, 0) : (uint64_t)strtoll(text, &end, 0);
    if (*end || (is_unsigned && text[0] == '-'))
        return -1;
    if (!strcmp(type, "sint32") || !strcmp(type, "sint64")) {
        int64_t s = (int64_t)u;
        put_varint(out, ((uint64_t)s << 1) ^ (uint64_t)(s >> 63));
        return WIRE_VARINT;
    }
    if (!strcmp(type, "fixed32") || !strcmp(type, "sfixed32")) {
        put_fixed(out, u, 4);
        return WIRE_FIXED32;
    }
    if (!strcmp(type, "fixed64") || !strcmp(type, "sfixed64")) {
        put_fixed(out, u, 8);
        return WIRE_FIXED64;
    }
    if (!strcmp(type, "int32"))
        u = (uint64_t)(int64_t)(int32_t)u; /* negative int32 takes ten bytes */
    put_varint(out, u);
    return WIRE_VARINT;
}

static int enum_number(const proto_enum_t *e, const proto_value_t *v, int64_t *out)
{
    if (v->kind == PROTO_VALUE_ENUM) {
        for (size_t i = 0; i < e->n_values; i++)
            if (strcmp(e->values[i]->name, v->text) == 0) {
                *out = e->values[i]->tag;
                return 0;
            }
        return -1;
    }
    if (v->kind != PROTO_VALUE_NUMBER)
        return -1;
    char *end = NULL;
    *out = strtoll(v->text, &end, 0);
    return *end ? -1 : 0;
}

/* One value of field tf (tag included) appended to out. */
static int encode_field_value(codec_t *b, const typed_field_t *tf, const char *type, const proto_value_t *v,
                              strbuf_t *out)
{
    int32_t number = tf->field->tag;
    strbuf_t payload = {0};
    int wire;
    if (proto_is_scalar(type)) {
        wire = encode_scalar(b, type, v, &payload);
    } else {
        const proto_symbol_t *s = resolve_from(b, tf->package, tf->scope, type, 0);
        int64_t n;
        if (!s) {
            wire = -1;
        } else if (s->kind == PROTO_SYMBOL_ENUM) {
            wire = enum_number(s->enumeration, v, &n) == 0 ? WIRE_VARINT : -1;
            if (wire >= 0)
                put_varint(&payload, (uint64_t)n);
        } else if (v->kind == PROTO_VALUE_MAP) {
            strbuf_t body = {0};
            wire = encode_message(b, s, v, &body) == 0 ? WIRE_LEN : -1;
            put_varint(&payload, body.len);
            strbuf_put(&payload, body.data ? body.data : "", body.len);
            strbuf_free(&body);
        } else {
            wire = -1;
        }
    }
    if (wire < 0 || payload.failed) {
        strbuf_free(&payload);
        proto_error_set(&b->error, "Invalid value for option field %s", tf->field->name);
        return -1;
    }
    put_tag(out, number, wire);
    strbuf_put(out, payload.data ? payload.data : "", payload.len);
    strbuf_free(&payload);
    return 0;
}

static int is_packable(const char *type, const proto_symbol_t *enum_sym)
{
    return enum_sym || (proto_is_scalar(type) && strcmp(type, "string") && strcmp(type, "bytes"));
}

static const char *packed_option(const proto_field_t *f)
{
    const char *v = NULL;
    for (size_t i = 0; i < f->options.n; i++)
        if (!f->options.items[i]->parenthesized && !strcmp(f->options.items[i]->name, "packed"))
            v = f->options.items[i]->value->text;
    return v;
}

/* A map<K, V> field's entries are messages {key = 1, value = 2}. */
static int encode_map_entry(codec_t *b, const typed_field_t *tf, const proto_value_t *entry, strbuf_t *out)
{
    proto_field_t key = {.name = "key", .type = tf->field->map_key, .tag = 1};
    proto_field_t value = {.name = "value", .type = tf->field->map_value, .tag = 2};
    typed_field_t tk = *tf, tv = *tf;
    tk.field = &key;
    tv.field = &value;
    strbuf_t body = {0};
    int rc = 0;
    /* Key before value, whatever the text's order: field number order. */
    for (int pass = 0; pass < 2 && rc == 0; pass++) {
        const typed_field_t *t = pass == 0 ? &tk : &tv;
        for (size_t i = 0; i < entry->n_entries && rc == 0; i++) {
            const char *k = entry->entries[i].key;
            if (strcmp(k, "key") && strcmp(k, "value"))
                rc = -1;
            else if (!strcmp(k, t->field->name))
                rc = encode_field_value(b, t, t->field->type, entry->entries[i].value, &body);
        }
    }
    put_tag(out, tf->field->tag, WIRE_LEN);
    put_varint(out, body.len);
    strbuf_put(out, body.data ? body.data : "", body.len);
    strbuf_free(&body);
    return rc;
}

/* All values of one field: repeated items one by one, or packed. */
static int encode_field(codec_t *b, const typed_field_t *tf, const proto_value_t *v, strbuf_t *out)
{
    const proto_field_t *f = tf->field;
    size_t n = v->kind == PROTO_VALUE_LIST ? v->n_items : 1;
    proto_value_t *const *items = v->kind == PROTO_VALUE_LIST ? v->items : (proto_value_t *const *)&v;
    if (f->map_key) {
        for (size_t i = 0; i < n; i++)
            if (items[i]->kind != PROTO_VALUE_MAP || encode_map_entry(b, tf, items[i], out) != 0)
                return -1;
        return 0;
    }
    const proto_symbol_t *s =
        proto_is_scalar(f->type) ? NULL : resolve_from(b, tf->package, tf->scope, f->type, 0);
    const proto_symbol_t *enum_sym = s && s->kind == PROTO_SYMBOL_ENUM ? s : NULL;
    const char *packed = packed_option(f);
    int pack = f->label == PROTO_LABEL_REPEATED && is_packable(f->type, enum_sym) &&
               (packed ? !strcmp(packed, "true") : tf->proto3);
    if (!pack) {
        for (size_t i = 0; i < n; i++)
            if (encode_field_value(b, tf, f->type, items[i], out) != 0)
                return -1;
        return 0;
    }
    strbuf_t body = {0};
    for (size_t i = 0; i < n; i++) {
        strbuf_t one = {0};
        if (encode_field_value(b, tf, f->type, items[i], &one) != 0) {
            strbuf_free(&one);
            strbuf_free(&body);
            return -1;
        }
        /* Drop the per-item tag: a packed field has one tag for all. */
        size_t skip = 0;
        while (skip < one.len && (one.data[skip] & 0x80))
            skip++;
        strbuf_put(&body, one.data + skip + 1, one.len - skip - 1);
        strbuf_free(&one);
    }
    put_tag(out, f->tag, WIRE_LEN);
    put_varint(out, body.len);
    strbuf_put(out, body.data ? body.data : "", body.len);
    strbuf_free(&body);
    return 0;
}

/* A message's fields (top level and oneof members) sorted by name and by
 * number, for lookups in O(log n): option values may name thousands, and
 * one message type may be decoded thousands of times. */
static int by_name(const void *a, const void *b)
{
    return strcmp((*(const proto_field_t *const *)a)->name, (*(const proto_field_t *const *)b)->name);
}

static int by_number(const void *a, const void *b)
{
    int32_t x = (*(const proto_field_t *const *)a)->tag, y = (*(const proto_field_t *const *)b)->tag;
    return (x > y) - (x < y);
}

static const field_tables_t *field_tables(codec_t *b, const proto_message_t *m)
{
    field_tables_t *t = &b->cache[((uintptr_t)m >> 4) % FIELD_CACHE];
    if (t->message == m)
        return t;
    size_t n = m->n_fields;
    for (size_t i = 0; i < m->n_oneofs; i++)
        n += m->oneofs[i]->n_fields;
    const proto_field_t **names = arena_alloc(b->arena, (n + 1) * sizeof *names);
    const proto_field_t **numbers = arena_alloc(b->arena, (n + 1) * sizeof *numbers);
    if (!names || !numbers)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < m->n_fields; i++)
        names[k++] = m->fields[i];
    for (size_t i = 0; i < m->n_oneofs; i++)
        for (size_t f = 0; f < m->oneofs[i]->n_fields; f++)
            names[k++] = m->oneofs[i]->fields[f];
    memcpy(numbers, names, n * sizeof *names);
    qsort(names, n, sizeof *names, by_name);
    qsort(numbers, n, sizeof *numbers, by_number);
    *t = (field_tables_t){m, names, numbers, n};
    return t;
}

static const proto_field_t *field_lookup(const proto_field_t *const *table, size_t n,
                                         const proto_field_t *probe, int (*order)(const void *, const void *))
{
    const proto_field_t *const *hit = bsearch(&probe, table, n, sizeof *table, order);
    return hit ? *hit : NULL;
}

typedef struct pending {
    typed_field_t tf;
    const proto_value_t *value;
    size_t index;
} pending_t;

static int compare_pending(const void *a, const void *b)
{
    const pending_t *x = a, *y = b;
    if (x->tf.field->tag != y->tf.field->tag)
        return x->tf.field->tag < y->tf.field->tag ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index;
}

/* An aggregate value { ... } as a message of type msg, fields in number
 * order as protoc serializes the parsed message. */
static int encode_message(codec_t *b, const proto_symbol_t *msg, const proto_value_t *map, strbuf_t *out)
{
    pending_t *p = arena_alloc(b->arena, (map->n_entries + 1) * sizeof *p);
    const field_tables_t *fields = field_tables(b, msg->message);
    if (!p || !fields)
        return -1;
    int proto3 = file_is_proto3(msg->file);
    for (size_t i = 0; i < map->n_entries; i++) {
        const char *key = map->entries[i].key;
        size_t klen = strlen(key);
        if (key[0] == '[' && klen > 2) {
            char *inner = arena_strndup(b->arena, key + 1, klen - 2);
            const proto_symbol_t *ext =
                inner ? resolve_from(b, msg->package, msg->full_name, inner, 1) : NULL;
            if (!ext)
                return -1;
            p[i].tf = (typed_field_t){ext->field, ext->package, ext->scope, file_is_proto3(ext->file)};
        } else {
            proto_field_t probe = {.name = key};
            const proto_field_t *f = field_lookup(fields->by_name, fields->n, &probe, by_name);
            if (!f) {
                proto_error_set(&b->error, "Unknown option field: %s", key);
                return -1;
            }
            p[i].tf = (typed_field_t){f, msg->package, msg->full_name, proto3};
        }
        p[i].value = map->entries[i].value;
        p[i].index = i;
    }
    qsort(p, map->n_entries, sizeof *p, compare_pending);
    for (size_t i = 0; i < map->n_entries; i++)
        if (encode_field(b, &p[i].tf, p[i].value, out) != 0)
            return -1;
    return 0;
}

/* `(a).b.c = v` is the aggregate { b: { c: v } } for extension a. */
static const proto_value_t *chain_to_map(codec_t *b, const proto_value_t *v)
{
    if (v->kind != PROTO_VALUE_OPTION)
        return v;
    proto_value_t *m = arena_alloc(b->arena, sizeof *m);
    proto_map_entry_t *e = arena_alloc(b->arena, sizeof *e);
    if (!m || !e)
        return NULL;
    m->kind = PROTO_VALUE_MAP;
    m->entries = e;
    m->n_entries = 1;
    e->key = v->option->parenthesized ? arena_printf(b->arena, "[%s]", v->option->name) : v->option->name;
    e->value = (proto_value_t *)chain_to_map(b, v->option->value);
    return e->value && e->key ? m : NULL;
}

/* ---- Decoding --------------------------------------------------------------------------- */

typedef struct wire {
    const uint8_t *p;
    size_t len;
} wire_t;

static int read_varint(wire_t *w, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; shift < 64 && w->len; shift += 7) {
        uint8_t c = *w->p++;
        w->len--;
        *v |= (uint64_t)(c & 0x7F) << shift;
        if (!(c & 0x80))
            return 0;
    }
    return -1;
}

static int read_fixed(wire_t *w, int bytes, uint64_t *v)
{
    if (w->len < (size_t)bytes)
        return -1;
    *v = 0;
    for (int i = 0; i < bytes; i++)
        *v |= (uint64_t)w->p[i] << (8 * i);
    w->p += bytes;
    w->len -= (size_t)bytes;
    return 0;
}

/* One field's payload: a varint/fixed value in *num, or a span in *span. */
static int read_payload(wire_t *w, int wire_type, uint64_t *num, wire_t *span)
{
    switch (wire_type) {
    case 0: return read_varint(w, num);
    case 1: return read_fixed(w, 8, num);
    case 5: return read_fixed(w, 4, num);
    case 2: {
        uint64_t n;
        if (read_varint(w, &n) != 0 || n > w->len)
            return -1;
        span->p = w->p;
        span->len = (size_t)n;
        w->p += n;
        w->len -= (size_t)n;
        return 0;
    }
    default: return -1;
    }
}

static proto_value_t *decode_message(codec_t *r, const proto_symbol_t *msg, wire_t w, int depth);

/* Where a field's type name resolves from. */
typedef struct decode_ctx {
    const char *package;
    const char *scope; /* full name of the defining message or scope */
} decode_ctx_t;

/* A scalar of the given .proto type from its wire value. */
static proto_value_t *scalar_value(codec_t *r, const char *type, uint64_t num, wire_t span)
{
    if (!strcmp(type, "string"))
        return proto_value_text(r->arena, PROTO_VALUE_STRING, (const char *)span.p, span.len);
    if (!strcmp(type, "bytes"))
        return proto_value_bytes(r->arena, span.p, span.len);
    if (!strcmp(type, "bool"))
        return proto_value_text(r->arena, PROTO_VALUE_BOOL, num ? "true" : "false", num ? 4 : 5);
    if (!strcmp(type, "double") || !strcmp(type, "float")) {
        double d;
        if (!strcmp(type, "float")) {
            uint32_t bits = (uint32_t)num;
            float f;
            memcpy(&f, &bits, 4);
            d = f;
        } else {
            memcpy(&d, &num, 8);
        }
        return proto_value_number(r->arena, "%.17g", d);
    }
    if (!strcmp(type, "sint32") || !strcmp(type, "sint64"))
        return proto_value_number(r->arena, "%lld", (long long)((num >> 1) ^ (~(num & 1) + 1)));
    if (!strcmp(type, "int32") || !strcmp(type, "sfixed32"))
        return proto_value_number(r->arena, "%d", (int32_t)(uint32_t)num);
    if (!strcmp(type, "int64") || !strcmp(type, "sfixed64"))
        return proto_value_number(r->arena, "%lld", (long long)num);
    return proto_value_number(r->arena, "%llu", (unsigned long long)num);
}

static proto_value_t *field_value(codec_t *r, const decode_ctx_t *c, const char *type, int wire_type,
                                  uint64_t num, wire_t span, int depth)
{
    if (proto_is_scalar(type)) {
        if ((wire_type == 2) != (!strcmp(type, "string") || !strcmp(type, "bytes")))
            return NULL;
        return scalar_value(r, type, num, span);
    }
    const proto_symbol_t *s = resolve_from(r, c->package, c->scope, type, 0);
    if (!s)
        return NULL;
    if (s->kind == PROTO_SYMBOL_ENUM) {
        for (size_t i = 0; i < s->enumeration->n_values; i++)
            if (s->enumeration->values[i]->tag == (int32_t)num)
                return proto_value_text(r->arena, PROTO_VALUE_ENUM, s->enumeration->values[i]->name,
                                        strlen(s->enumeration->values[i]->name));
        return proto_value_number(r->arena, "%d", (int32_t)num);
    }
    if (wire_type != 2 || depth > PROTO_MAX_DEPTH)
        return NULL;
    return decode_message(r, s, span, depth + 1);
}

/* A map<K, V> entry message as the aggregate { key: k, value: v }. */
static proto_value_t *map_entry_value(codec_t *r, const decode_ctx_t *c, const proto_field_t *f, wire_t w,
                                      int depth)
{
    proto_value_t *m = arena_alloc(r->arena, sizeof(proto_value_t));
    if (!m)
        return NULL;
    m->kind = PROTO_VALUE_MAP;
    while (w.len) {
        uint64_t tag, num = 0;
        wire_t span = {0};
        if (read_varint(&w, &tag) != 0 || read_payload(&w, (int)(tag & 7), &num, &span) != 0)
            return NULL;
        const char *type = (tag >> 3) == 1 ? f->map_key : (tag >> 3) == 2 ? f->map_value : NULL;
        if (!type)
            continue;
        map_add(r, m, (tag >> 3) == 1 ? "key" : "value",
                field_value(r, c, type, (int)(tag & 7), num, span, depth));
    }
    return m;
}

/* One decoded value of a message field, before values are grouped by field. */
typedef struct decoded {
    const proto_field_t *field;
    proto_value_t *value;
    size_t pos;
} decoded_t;

typedef struct decoded_list {
    decoded_t *items;
    size_t n, cap;
} decoded_list_t;

static int decoded_add(codec_t *r, decoded_list_t *l, const proto_field_t *f, proto_value_t *v)
{
    if (!v)
        return -1;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 16;
        decoded_t *grown = arena_alloc(r->arena, cap * sizeof *grown);
        if (!grown)
            return -1;
        if (l->n)
            memcpy(grown, l->items, l->n * sizeof *grown);
        l->items = grown;
        l->cap = cap;
    }
    l->items[l->n] = (decoded_t){f, v, l->n};
    l->n++;
    return 0;
}

static int compare_decoded(const void *a, const void *b)
{
    const decoded_t *x = a, *y = b;
    if (x->field->tag != y->field->tag)
        return x->field->tag < y->field->tag ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int compare_first_pos(const void *a, const void *b)
{
    const decoded_t *x = a, *y = b;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Values grouped by field (a repeated field's values become one list), the
 * fields in order of first appearance, as text format would write them. */
static proto_value_t *decoded_to_map(codec_t *r, decoded_list_t *l)
{
    proto_value_t *m = arena_alloc(r->arena, sizeof *m);
    decoded_t *groups = arena_alloc(r->arena, (l->n + 1) * sizeof *groups);
    if (!m || !groups)
        return NULL;
    m->kind = PROTO_VALUE_MAP;
    if (l->n)
        qsort(l->items, l->n, sizeof *l->items, compare_decoded);
    size_t ng = 0;
    for (size_t i = 0; i < l->n;) {
        size_t j = i + 1;
        while (j < l->n && l->items[j].field == l->items[i].field)
            j++;
        groups[ng] = l->items[i];
        if (j - i > 1) {
            proto_value_t *list = arena_alloc(r->arena, sizeof *list);
            if (!list)
                return NULL;
            list->kind = PROTO_VALUE_LIST;
            for (size_t k = i; k < j; k++)
                if (arena_push(r->arena, &list->items, &list->n_items, l->items[k].value) != 0)
                    return NULL;
            groups[ng].value = list;
        }
        ng++;
        i = j;
    }
    qsort(groups, ng, sizeof *groups, compare_first_pos);
    m->entries = arena_alloc(r->arena, (ng + 1) * sizeof *m->entries);
    if (!m->entries)
        return NULL;
    for (size_t g = 0; g < ng; g++) {
        /* Names are copied: the definition may live in a model freed before this one. */
        m->entries[g].key = arena_strdup(r->arena, groups[g].field->name);
        m->entries[g].value = groups[g].value;
        if (!m->entries[g].key)
            return NULL;
    }
    m->n_entries = ng;
    return m;
}

static int elem_wire_type(const char *type)
{
    if (!strcmp(type, "double") || !strcmp(type, "fixed64") || !strcmp(type, "sfixed64"))
        return 1;
    if (!strcmp(type, "float") || !strcmp(type, "fixed32") || !strcmp(type, "sfixed32"))
        return 5;
    return 0;
}

static int is_packed_run(codec_t *r, const proto_symbol_t *msg, const proto_field_t *f, int wire_type)
{
    if (wire_type != 2 || !strcmp(f->type, "string") || !strcmp(f->type, "bytes"))
        return 0;
    if (proto_is_scalar(f->type))
        return 1;
    const proto_symbol_t *s = resolve_from(r, msg->package, msg->full_name, f->type, 0);
    return s && s->kind == PROTO_SYMBOL_ENUM;
}

static proto_value_t *decode_message(codec_t *r, const proto_symbol_t *msg, wire_t w, int depth)
{
    const field_tables_t *fields = field_tables(r, msg->message);
    decoded_list_t values = {0};
    if (!fields)
        return NULL;
    decode_ctx_t c = {msg->package, msg->full_name};
    while (w.len) {
        uint64_t tag, num = 0;
        wire_t span = {0};
        if (read_varint(&w, &tag) != 0 || read_payload(&w, (int)(tag & 7), &num, &span) != 0)
            return NULL;
        proto_field_t probe = {.tag = (int32_t)(tag >> 3)};
        const proto_field_t *f = field_lookup(fields->by_number, fields->n, &probe, by_number);
        if (!f)
            continue; /* unknown to the definition: nothing to name it by */
        int wire_type = (int)(tag & 7);
        if (f->map_key) {
            if (decoded_add(r, &values, f, map_entry_value(r, &c, f, span, depth)) != 0)
                return NULL;
        } else if (!is_packed_run(r, msg, f, wire_type)) {
            if (decoded_add(r, &values, f, field_value(r, &c, f->type, wire_type, num, span, depth)) != 0)
                return NULL;
        } else {
            int elem = elem_wire_type(f->type);
            while (span.len) {
                uint64_t v;
                if (read_payload(&span, elem, &v, NULL) != 0 ||
                    decoded_add(r, &values, f, field_value(r, &c, f->type, elem, v, (wire_t){0}, depth)) != 0)
                    return NULL;
            }
        }
    }
    return decoded_to_map(r, &values);
}

/* ---- Entry points ---------------------------------------------------------------------- */

proto_option_codec_t *proto_option_codec_new(const proto_symtab_t *tab, arena_t *arena)
{
    codec_t *c = arena_alloc(arena, sizeof *c);
    if (c) {
        c->tab = tab;
        c->arena = arena;
    }
    return c;
}

int proto_option_encode(proto_option_codec_t *b, const proto_scope_t *scope, const proto_option_t *o,
                        strbuf_t *out, char **error)
{
    *error = NULL;
    b->error = NULL;
    const proto_symbol_t *ext = proto_scope_resolve(scope, o->name, 1);
    if (!ext) {
        proto_error_set(&b->error, "Option \"(%s)\" unknown.", o->name);
    } else {
        typed_field_t tf = {ext->field, ext->package, ext->scope, file_is_proto3(ext->file)};
        const proto_value_t *v = chain_to_map(b, o->value);
        if ((!v || encode_field(b, &tf, v, out) != 0 || out->failed) && !b->error)
            proto_error_set(&b->error, "Invalid value for option (%s)", o->name);
    }
    *error = b->error;
    b->error = NULL;
    return *error ? -1 : 0;
}

proto_value_t *proto_option_decode(proto_option_codec_t *r, const proto_symbol_t *ext, int wire_type,
                                   const uint8_t *data, size_t len)
{
    wire_t w = {data, len};
    uint64_t num = 0;
    wire_t span = {0};
    if (read_payload(&w, wire_type, &num, &span) != 0)
        return NULL;
    decode_ctx_t c = {ext->package, ext->scope};
    return field_value(r, &c, ext->field->type, wire_type, num, span, 0);
}
