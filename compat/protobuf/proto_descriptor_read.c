/*
 * proto_descriptor_read: a serialized FileDescriptorProto (what the Python
 * and JavaScript serializers register, base64-encoded) back to the model,
 * reconstructing the .proto source it was compiled from so that both input
 * forms of one schema print the same canonical text: map entries become
 * map<K, V> fields, groups and proto3 `optional` return, synthetic oneofs
 * vanish, default json_names are dropped, type names are shortened to the
 * shortest spelling that resolves to the same type, and custom options
 * (unknown fields of the options messages) are decoded with the extension
 * definitions the schema can see.
 *
 * What the descriptor cannot tell is chosen the common way: reserved
 * numbers and names each form one statement, imports keep plain/public/weak
 * order, options come in field-number order.
 */
#include "compat/protobuf/internal.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "google/protobuf/descriptor.pb-c.h"

typedef Google__Protobuf__FileDescriptorProto FileProto;
typedef Google__Protobuf__DescriptorProto MessageProto;
typedef Google__Protobuf__FieldDescriptorProto FieldProto;
typedef Google__Protobuf__EnumDescriptorProto EnumProto;

typedef struct reader {
    proto_file_t *file;
    arena_t *arena;              /* the file's arena */
    proto_option_codec_t *codec; /* custom options; NULL without symbols */
    long budget;                 /* extension lookups left (hostile descriptors) */
    int proto3;
    int failed;  /* out of memory, or error set */
    char *error; /* a refusal (malloc'd); NULL for out of memory */
} reader_t;

static void *alloc(reader_t *r, size_t n)
{
    void *p = arena_alloc(r->arena, n);
    if (!p)
        r->failed = 1;
    return p;
}

#define NEW(r, type) ((type *)alloc((r), sizeof(type)))

static const char *dup(reader_t *r, const char *s)
{
    const char *d = arena_strdup(r->arena, s ? s : "");
    if (!d)
        r->failed = 1;
    return d;
}

static void push(reader_t *r, void *items_ptr, size_t *n, void *item)
{
    if (!item || arena_push(r->arena, items_ptr, n, item) != 0)
        r->failed = 1;
}

/* ---- Option values -------------------------------------------------------------------- */

static proto_value_t *text_value(reader_t *r, proto_value_kind_t kind, const char *text, size_t len)
{
    proto_value_t *v = proto_value_text(r->arena, kind, text, len);
    if (!v)
        r->failed = 1;
    return v;
}

static proto_value_t *bytes_value(reader_t *r, const uint8_t *data, size_t len)
{
    proto_value_t *v = proto_value_bytes(r->arena, data, len);
    if (!v)
        r->failed = 1;
    return v;
}

#define number_value(r, ...) checked((r), proto_value_number((r)->arena, __VA_ARGS__))

static proto_value_t *checked(reader_t *r, proto_value_t *v)
{
    if (!v)
        r->failed = 1;
    return v;
}

static proto_option_t *new_option(reader_t *r, const char *name, int parenthesized, proto_value_t *v)
{
    proto_option_t *o = NEW(r, proto_option_t);
    if (!o || !v)
        return NULL;
    o->name = name;
    o->parenthesized = parenthesized;
    o->value = v;
    return o;
}

static void map_add(reader_t *r, proto_value_t *map, const char *key, proto_value_t *v)
{
    if (v && proto_value_map_add(r->arena, map, key, v) != 0)
        r->failed = 1;
}

/* ---- Custom options ------------------------------------------------------------------------ */

/* Custom options: the unknown fields of an options message that name an
 * extension of it the schema can see; one option per value, like Confluent. */
static void decode_unknown(reader_t *r, const proto_symtab_t *tab, const char *extendee,
                           const ProtobufCMessage *msg, proto_options_t *out)
{
    for (unsigned i = 0; tab && i < msg->n_unknown_fields; i++) {
        const ProtobufCMessageUnknownField *u = &msg->unknown_fields[i];
        const proto_symbol_t *ext = proto_symtab_find_extension(tab, extendee, (int32_t)u->tag, &r->budget);
        if (!ext)
            continue;
        proto_value_t *v = proto_option_decode(r->codec, ext, (int)u->wire_type, u->data, u->len);
        if (v)
            push(r, &out->items, &out->n, new_option(r, dup(r, ext->full_name), 1, v));
    }
}

/* ---- Built-in options by reflection ------------------------------------------------------------ */

static proto_value_t *builtin_value(reader_t *r, const ProtobufCFieldDescriptor *fd, const void *slot,
                                    const proto_symtab_t *tab);

static proto_value_t *message_value(reader_t *r, const ProtobufCMessage *msg, const proto_symtab_t *tab)
{
    proto_value_t *m = NEW(r, proto_value_t);
    if (!m)
        return NULL;
    m->kind = PROTO_VALUE_MAP;
    const ProtobufCMessageDescriptor *d = msg->descriptor;
    for (unsigned i = 0; i < d->n_fields; i++) {
        const ProtobufCFieldDescriptor *fd = &d->fields[i];
        const char *base = (const char *)msg;
        if (fd->label == PROTOBUF_C_LABEL_REPEATED) {
            size_t n = *(const size_t *)(base + fd->quantifier_offset);
            const char *items = *(char *const *)(base + fd->offset);
            size_t size = fd->type == PROTOBUF_C_TYPE_MESSAGE || fd->type == PROTOBUF_C_TYPE_STRING
                              ? sizeof(void *)
                          : fd->type == PROTOBUF_C_TYPE_BYTES ? sizeof(ProtobufCBinaryData)
                          : (fd->type == PROTOBUF_C_TYPE_INT64 || fd->type == PROTOBUF_C_TYPE_UINT64 ||
                             fd->type == PROTOBUF_C_TYPE_SINT64 || fd->type == PROTOBUF_C_TYPE_FIXED64 ||
                             fd->type == PROTOBUF_C_TYPE_SFIXED64 || fd->type == PROTOBUF_C_TYPE_DOUBLE)
                              ? 8
                              : 4;
            for (size_t k = 0; k < n; k++)
                map_add(r, m, fd->name, builtin_value(r, fd, items + k * size, tab));
            continue;
        }
        const void *slot = base + fd->offset;
        int present =
            fd->type == PROTOBUF_C_TYPE_MESSAGE || fd->type == PROTOBUF_C_TYPE_STRING
                ? *(void *const *)slot != NULL
                : fd->quantifier_offset && *(const protobuf_c_boolean *)(base + fd->quantifier_offset);
        if (present)
            map_add(r, m, fd->name, builtin_value(r, fd, slot, tab));
    }
    return m;
}

static proto_value_t *builtin_value(reader_t *r, const ProtobufCFieldDescriptor *fd, const void *slot,
                                    const proto_symtab_t *tab)
{
    switch (fd->type) {
    case PROTOBUF_C_TYPE_BOOL: {
        int v = *(const protobuf_c_boolean *)slot;
        return text_value(r, PROTO_VALUE_BOOL, v ? "true" : "false", v ? 4 : 5);
    }
    case PROTOBUF_C_TYPE_ENUM: {
        const ProtobufCEnumValue *ev =
            protobuf_c_enum_descriptor_get_value(fd->descriptor, *(const int *)slot);
        return ev ? text_value(r, PROTO_VALUE_ENUM, ev->name, strlen(ev->name))
                  : number_value(r, "%d", *(const int *)slot);
    }
    case PROTOBUF_C_TYPE_STRING: {
        const char *s = *(char *const *)slot;
        return text_value(r, PROTO_VALUE_STRING, s, strlen(s));
    }
    case PROTOBUF_C_TYPE_BYTES: {
        const ProtobufCBinaryData *bd = slot;
        return bytes_value(r, bd->data, bd->len);
    }
    case PROTOBUF_C_TYPE_MESSAGE: return message_value(r, *(ProtobufCMessage *const *)slot, tab);
    case PROTOBUF_C_TYPE_FLOAT: return number_value(r, "%.9g", (double)*(const float *)slot);
    case PROTOBUF_C_TYPE_DOUBLE: return number_value(r, "%.17g", *(const double *)slot);
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64: return number_value(r, "%lld", (long long)*(const int64_t *)slot);
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64: return number_value(r, "%llu", (unsigned long long)*(const uint64_t *)slot);
    case PROTOBUF_C_TYPE_UINT32:
    case PROTOBUF_C_TYPE_FIXED32: return number_value(r, "%u", *(const uint32_t *)slot);
    default: return number_value(r, "%d", *(const int32_t *)slot);
    }
}

/* Every set field of an options message as options (repeated ones one by
 * one), then its decodable custom options. skip: a field not to report. */
static void read_options(reader_t *r, const ProtobufCMessage *msg, const proto_symtab_t *tab,
                         const char *skip, proto_options_t *out)
{
    if (!msg)
        return;
    proto_value_t *all = message_value(r, msg, tab);
    for (size_t i = 0; all && i < all->n_entries; i++) {
        const char *name = all->entries[i].key;
        proto_value_t *v = all->entries[i].value;
        if (!strcmp(name, "uninterpreted_option") || (skip && !strcmp(name, skip)))
            continue;
        if (v->kind == PROTO_VALUE_LIST) {
            for (size_t k = 0; k < v->n_items; k++)
                push(r, &out->items, &out->n, new_option(r, name, 0, v->items[k]));
        } else {
            push(r, &out->items, &out->n, new_option(r, name, 0, v));
        }
    }
    char extendee[96];
    snprintf(extendee, sizeof extendee, "google.protobuf.%s", msg->descriptor->short_name);
    decode_unknown(r, tab, extendee, msg, out);
}

/* ---- Structure --------------------------------------------------------------------------------- */

static const char *const scalar_by_type[] = {
    [GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_DOUBLE] = "double",
    [GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_FLOAT] = "float",
    [GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_INT64] = "int64",
    [GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_UINT64] = "uint64",
    [GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_INT32] = "int32",
    [GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_FIXED64] = "fixed64",
    [GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_FIXED32] = "fixed32",
    [GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_BOOL] = "bool",
    [GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_STRING] = "string",
    [GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_BYTES] = "bytes",
    [GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_UINT32] = "uint32",
    [GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_SFIXED32] = "sfixed32",
    [GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_SFIXED64] = "sfixed64",
    [GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_SINT32] = "sint32",
    [GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_SINT64] = "sint64",
};

/* The type as written in the descriptor: a scalar name or ".full.Name". */
static const char *descriptor_type(reader_t *r, const FieldProto *fp)
{
    if (fp->type_name)
        return dup(r, fp->type_name);
    unsigned t = (unsigned)fp->type;
    if (t < sizeof scalar_by_type / sizeof *scalar_by_type && scalar_by_type[t])
        return scalar_by_type[t];
    return "int32";
}

static char *default_json_name(reader_t *r, const char *name)
{
    char *out = alloc(r, strlen(name) + 1);
    if (!out)
        return NULL;
    size_t n = 0;
    int upper = 0;
    for (const char *c = name; *c; c++) {
        if (*c == '_')
            upper = 1;
        else {
            out[n++] = upper && *c >= 'a' && *c <= 'z' ? (char)(*c - 'a' + 'A') : *c;
            upper = 0;
        }
    }
    return out;
}

/* Undoes protobuf's CEscape for bytes defaults, keeping Wire's code points. */
static const char *unescape_bytes(reader_t *r, const char *s, size_t *len)
{
    uint8_t *raw = alloc(r, strlen(s) + 1);
    if (!raw)
        return NULL;
    size_t n = 0;
    for (const char *c = s; *c; c++) {
        if (*c != '\\' || !c[1]) {
            raw[n++] = (uint8_t)*c;
            continue;
        }
        c++;
        if (*c >= '0' && *c <= '7') {
            int v = 0;
            for (int k = 0; k < 3 && *c >= '0' && *c <= '7'; k++, c++)
                v = v * 8 + (*c - '0');
            c--;
            raw[n++] = (uint8_t)v;
        } else {
            raw[n++] = (uint8_t)(*c == 'n' ? '\n' : *c == 'r' ? '\r' : *c == 't' ? '\t' : *c);
        }
    }
    proto_value_t *v = bytes_value(r, raw, n);
    if (!v)
        return NULL;
    *len = v->len;
    return v->text;
}

static proto_field_t *read_field(reader_t *r, const FieldProto *fp, const proto_symtab_t *tab, int in_oneof,
                                 int order)
{
    /* protobuf-c keeps any number in an enum field; descriptor.proto knows 1..18. */
    if (fp->has_type && (fp->type < GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_DOUBLE ||
                         fp->type > GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_SINT64)) {
        char what[320];
        snprintf(what, sizeof what, "Invalid descriptor: field %.200s has unknown type %d",
                 fp->name ? fp->name : "", (int)fp->type);
        proto_error_set(&r->error, "%s", what);
        r->failed = 1;
        return NULL;
    }
    proto_field_t *f = NEW(r, proto_field_t);
    if (!f)
        return NULL;
    f->name = dup(r, fp->name);
    f->tag = fp->number;
    f->type = descriptor_type(r, fp);
    f->field_order = f->nested_order = order;
    if (!in_oneof) {
        if (fp->proto3_optional)
            f->label = PROTO_LABEL_OPTIONAL;
        else if (fp->label == GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__LABEL__LABEL_REPEATED)
            f->label = PROTO_LABEL_REPEATED;
        else if (fp->label == GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__LABEL__LABEL_REQUIRED)
            f->label = r->proto3 ? PROTO_LABEL_NONE : PROTO_LABEL_REQUIRED;
        else
            f->label = r->proto3 ? PROTO_LABEL_NONE : PROTO_LABEL_OPTIONAL;
    }
    if (fp->default_value && !r->proto3) {
        if (fp->type == GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_BYTES) {
            f->default_value = unescape_bytes(r, fp->default_value, &f->default_len);
        } else {
            f->default_value = dup(r, fp->default_value);
            f->default_len = strlen(fp->default_value);
        }
    }
    if (fp->json_name) {
        char *dflt = default_json_name(r, fp->name);
        if (dflt && strcmp(dflt, fp->json_name) != 0) {
            f->json_name = dup(r, fp->json_name);
            f->json_name_len = strlen(fp->json_name);
        }
    }
    read_options(r, (const ProtobufCMessage *)fp->options, tab, NULL, &f->options);
    return f;
}

static const MessageProto *nested_named(const MessageProto *mp, const char *full_scope, const char *type_name,
                                        size_t *index)
{
    if (!type_name || type_name[0] != '.')
        return NULL;
    size_t n = strlen(full_scope);
    const char *t = type_name + 1;
    if (n && (strncmp(t, full_scope, n) != 0 || t[n] != '.'))
        return NULL;
    const char *simple = n ? t + n + 1 : t;
    for (size_t i = 0; i < mp->n_nested_type; i++)
        if (!strcmp(mp->nested_type[i]->name, simple)) {
            *index = i;
            return mp->nested_type[i];
        }
    return NULL;
}

static int is_map_entry(const MessageProto *mp)
{
    return mp->options && mp->options->has_map_entry && mp->options->map_entry;
}

static proto_message_t *read_message(reader_t *r, const MessageProto *mp, const char *full,
                                     const proto_symtab_t *tab);
static proto_enum_t *read_enum(reader_t *r, const EnumProto *ep, const proto_symtab_t *tab);

/* A map field: its entry message's key and value types. */
static void make_map(reader_t *r, proto_field_t *f, const MessageProto *entry)
{
    const char *key = NULL, *value = NULL;
    for (size_t i = 0; i < entry->n_field; i++) {
        if (entry->field[i]->number == 1)
            key = descriptor_type(r, entry->field[i]);
        else if (entry->field[i]->number == 2)
            value = descriptor_type(r, entry->field[i]);
    }
    if (!key || !value)
        return;
    f->map_key = key;
    f->map_value = value;
    f->type = arena_printf(r->arena, "map<%s, %s>", key, value);
    f->label = PROTO_LABEL_NONE;
}

static proto_group_t *make_group(reader_t *r, const FieldProto *fp, const MessageProto *gm,
                                 const proto_symtab_t *tab, int in_oneof, int order, int nested_order)
{
    proto_group_t *g = NEW(r, proto_group_t);
    if (!g)
        return NULL;
    g->name = dup(r, gm->name);
    g->tag = fp->number;
    /* A group in a oneof is written without a label, like the oneof's fields
     * (protoc records LABEL_OPTIONAL); a label there would not parse back. */
    g->label =
        in_oneof                                                                       ? PROTO_LABEL_NONE
        : fp->label == GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__LABEL__LABEL_REPEATED ? PROTO_LABEL_REPEATED
        : fp->label == GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__LABEL__LABEL_REQUIRED ? PROTO_LABEL_REQUIRED
                                                                                       : PROTO_LABEL_OPTIONAL;
    g->field_order = order;
    g->nested_order = nested_order;
    for (size_t i = 0; i < gm->n_field; i++)
        push(r, &g->fields, &g->n_fields, read_field(r, gm->field[i], tab, 0, (int)i));
    return g;
}

static void read_members(reader_t *r, proto_message_t *m, const MessageProto *mp, const char *full,
                         const proto_symtab_t *tab, char *consumed)
{
    proto_oneof_t **oneofs = alloc(r, (mp->n_oneof_decl + 1) * sizeof *oneofs);
    if (!oneofs)
        return;
    for (size_t i = 0; i < mp->n_oneof_decl; i++) {
        oneofs[i] = NEW(r, proto_oneof_t);
        if (!oneofs[i])
            return;
        oneofs[i]->name = dup(r, mp->oneof_decl[i]->name);
        read_options(r, (const ProtobufCMessage *)mp->oneof_decl[i]->options, tab, NULL, &oneofs[i]->options);
    }
    for (size_t i = 0; i < mp->n_field; i++) {
        const FieldProto *fp = mp->field[i];
        size_t nested = 0;
        const MessageProto *target = nested_named(mp, full, fp->type_name, &nested);
        int in_oneof =
            fp->has_oneof_index && !fp->proto3_optional && (size_t)fp->oneof_index < mp->n_oneof_decl;
        if (fp->type == GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_GROUP && target) {
            consumed[nested] = 1;
            proto_group_t *g = make_group(r, fp, target, tab, in_oneof, (int)i, (int)nested);
            if (in_oneof)
                push(r, &oneofs[fp->oneof_index]->groups, &oneofs[fp->oneof_index]->n_groups, g);
            else
                push(r, &m->groups, &m->n_groups, g);
            continue;
        }
        proto_field_t *f = read_field(r, fp, tab, in_oneof, (int)i);
        if (!f)
            return;
        if (target && is_map_entry(target) &&
            fp->label == GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__LABEL__LABEL_REPEATED) {
            consumed[nested] = 1;
            f->nested_order = (int)nested;
            make_map(r, f, target);
        }
        if (in_oneof)
            push(r, &oneofs[fp->oneof_index]->fields, &oneofs[fp->oneof_index]->n_fields, f);
        else
            push(r, &m->fields, &m->n_fields, f);
    }
    /* Synthetic oneofs end up empty: Confluent drops empty oneofs too. */
    for (size_t i = 0; i < mp->n_oneof_decl; i++)
        if (oneofs[i]->n_fields || oneofs[i]->n_groups)
            push(r, &m->oneofs, &m->n_oneofs, oneofs[i]);
}

/* Descriptors give ranges as [start, end); end - 1 without overflowing on a hostile INT32_MIN
 * (found by fuzz_proto under UBSan). */
static int32_t exclusive_end(int32_t end)
{
    return end > INT32_MIN ? end - 1 : INT32_MIN;
}

static proto_range_t range_of(int32_t start, int32_t end_inclusive, int32_t max)
{
    proto_range_t v = {.start = start, .end = end_inclusive};
    v.is_range = end_inclusive != start;
    if (end_inclusive >= max) {
        v.end = PROTO_MAX_FIELD_NUMBER;
        v.end_is_max = 1;
        v.is_range = 1;
    }
    return v;
}

static void push_range(reader_t *r, proto_range_t **values, size_t *n, proto_range_t v)
{
    proto_range_t *grown = alloc(r, (*n + 1) * sizeof *grown);
    if (!grown)
        return;
    if (*n)
        memcpy(grown, *values, *n * sizeof *grown);
    grown[(*n)++] = v;
    *values = grown;
}

/* All reserved numbers in one statement, all names in another. */
static void read_reserved(reader_t *r, proto_reserved_t ***out, size_t *n, const proto_range_t *ranges,
                          size_t n_ranges, char **names, size_t n_names)
{
    if (n_ranges) {
        proto_reserved_t *res = NEW(r, proto_reserved_t);
        for (size_t i = 0; res && i < n_ranges; i++)
            push_range(r, &res->values, &res->n_values, ranges[i]);
        push(r, out, n, res);
    }
    if (n_names) {
        proto_reserved_t *res = NEW(r, proto_reserved_t);
        for (size_t i = 0; res && i < n_names; i++) {
            proto_range_t v = {.name = dup(r, names[i])};
            push_range(r, &res->values, &res->n_values, v);
        }
        push(r, out, n, res);
    }
}

static void read_message_ranges(reader_t *r, proto_message_t *m, const MessageProto *mp,
                                const proto_symtab_t *tab)
{
    proto_range_t *ranges = alloc(r, (mp->n_reserved_range + 1) * sizeof *ranges);
    if (!ranges)
        return;
    for (size_t i = 0; i < mp->n_reserved_range; i++)
        ranges[i] = range_of(mp->reserved_range[i]->start, exclusive_end(mp->reserved_range[i]->end),
                             PROTO_MAX_FIELD_NUMBER);
    read_reserved(r, &m->reserveds, &m->n_reserveds, ranges, mp->n_reserved_range, mp->reserved_name,
                  mp->n_reserved_name);
    /* Ranges without options share one statement; each with options stands alone. */
    proto_extensions_t *plain = NULL;
    for (size_t i = 0; i < mp->n_extension_range; i++) {
        const Google__Protobuf__DescriptorProto__ExtensionRange *er = mp->extension_range[i];
        proto_range_t v = range_of(er->start, exclusive_end(er->end), PROTO_MAX_FIELD_NUMBER);
        if (!er->options && plain) {
            push_range(r, &plain->values, &plain->n_values, v);
            continue;
        }
        proto_extensions_t *x = NEW(r, proto_extensions_t);
        if (!x)
            return;
        push_range(r, &x->values, &x->n_values, v);
        if (er->options)
            read_options(r, (const ProtobufCMessage *)er->options, tab, NULL, &x->options);
        else
            plain = x;
        push(r, &m->extensions, &m->n_extensions, x);
    }
}

/* Extension fields grouped by extendee, in order of first appearance. */
static void read_extends(reader_t *r, proto_extend_t ***out, size_t *n, FieldProto *const *fields,
                         size_t n_fields, const proto_symtab_t *tab)
{
    for (size_t i = 0; i < n_fields; i++) {
        const char *target = fields[i]->extendee ? fields[i]->extendee : "";
        proto_extend_t *x = NULL;
        for (size_t k = 0; k < *n && !x; k++)
            if (!strcmp((*out)[k]->name, target))
                x = (*out)[k];
        if (!x) {
            x = NEW(r, proto_extend_t);
            if (!x)
                return;
            x->name = dup(r, target);
            push(r, out, n, x);
        }
        push(r, &x->fields, &x->n_fields, read_field(r, fields[i], tab, 0, (int)i));
    }
}

static proto_message_t *read_message(reader_t *r, const MessageProto *mp, const char *full,
                                     const proto_symtab_t *tab)
{
    proto_message_t *m = NEW(r, proto_message_t);
    char *consumed = alloc(r, mp->n_nested_type + 1);
    if (!m || !consumed)
        return NULL;
    m->name = dup(r, mp->name);
    read_members(r, m, mp, full, tab, consumed);
    for (size_t i = 0; i < mp->n_nested_type; i++) {
        if (consumed[i])
            continue;
        char *nfull = arena_printf(r->arena, "%s%s%s", full, *full ? "." : "", mp->nested_type[i]->name);
        proto_type_t *t = NEW(r, proto_type_t);
        if (!t || !nfull)
            return NULL;
        t->kind = PROTO_TYPE_MESSAGE;
        t->message = read_message(r, mp->nested_type[i], nfull, tab);
        if (t->message)
            t->message->nested_order = (int)i;
        push(r, &m->types, &m->n_types, t);
    }
    for (size_t i = 0; i < mp->n_enum_type; i++) {
        proto_type_t *t = NEW(r, proto_type_t);
        if (!t)
            return NULL;
        t->kind = PROTO_TYPE_ENUM;
        t->enumeration = read_enum(r, mp->enum_type[i], tab);
        push(r, &m->types, &m->n_types, t);
    }
    read_message_ranges(r, m, mp, tab);
    read_extends(r, &m->extends, &m->n_extends, mp->extension, mp->n_extension, tab);
    read_options(r, (const ProtobufCMessage *)mp->options, tab, "map_entry", &m->options);
    return r->failed ? NULL : m;
}

static proto_enum_t *read_enum(reader_t *r, const EnumProto *ep, const proto_symtab_t *tab)
{
    proto_enum_t *e = NEW(r, proto_enum_t);
    if (!e)
        return NULL;
    e->name = dup(r, ep->name);
    for (size_t i = 0; i < ep->n_value; i++) {
        proto_enum_value_t *v = NEW(r, proto_enum_value_t);
        if (!v)
            return NULL;
        v->name = dup(r, ep->value[i]->name);
        v->tag = ep->value[i]->number;
        read_options(r, (const ProtobufCMessage *)ep->value[i]->options, tab, NULL, &v->options);
        push(r, &e->values, &e->n_values, v);
    }
    proto_range_t *ranges = alloc(r, (ep->n_reserved_range + 1) * sizeof *ranges);
    if (!ranges)
        return NULL;
    for (size_t i = 0; i < ep->n_reserved_range; i++)
        ranges[i] = range_of(ep->reserved_range[i]->start, ep->reserved_range[i]->end, 2147483647);
    read_reserved(r, &e->reserveds, &e->n_reserveds, ranges, ep->n_reserved_range, ep->reserved_name,
                  ep->n_reserved_name);
    read_options(r, (const ProtobufCMessage *)ep->options, tab, NULL, &e->options);
    return e;
}

static proto_service_t *read_service(reader_t *r, const Google__Protobuf__ServiceDescriptorProto *sp,
                                     const proto_symtab_t *tab)
{
    proto_service_t *s = NEW(r, proto_service_t);
    if (!s)
        return NULL;
    s->name = dup(r, sp->name);
    for (size_t i = 0; i < sp->n_method; i++) {
        const Google__Protobuf__MethodDescriptorProto *mp = sp->method[i];
        proto_rpc_t *rpc = NEW(r, proto_rpc_t);
        if (!rpc)
            return NULL;
        rpc->name = dup(r, mp->name);
        rpc->request_type = dup(r, mp->input_type);
        rpc->response_type = dup(r, mp->output_type);
        rpc->request_streaming = mp->client_streaming;
        rpc->response_streaming = mp->server_streaming;
        read_options(r, (const ProtobufCMessage *)mp->options, tab, NULL, &rpc->options);
        rpc->has_body = mp->options != NULL;
        push(r, &s->rpcs, &s->n_rpcs, rpc);
    }
    read_options(r, (const ProtobufCMessage *)sp->options, tab, NULL, &s->options);
    return s;
}

static void read_imports(reader_t *r, proto_file_t *f, const FileProto *fp)
{
    for (size_t i = 0; i < fp->n_dependency; i++) {
        int is_public = 0, is_weak = 0;
        for (size_t k = 0; k < fp->n_public_dependency; k++)
            is_public |= fp->public_dependency[k] == (int32_t)i;
        for (size_t k = 0; k < fp->n_weak_dependency; k++)
            is_weak |= fp->weak_dependency[k] == (int32_t)i;
        const char *path = dup(r, fp->dependency[i]);
        if (is_public)
            push(r, &f->public_imports, &f->n_public_imports, (void *)path);
        else if (is_weak)
            push(r, &f->weak_imports, &f->n_weak_imports, (void *)path);
        else
            push(r, &f->imports, &f->n_imports, (void *)path);
    }
}

static void read_syntax(reader_t *r, proto_file_t *f, const FileProto *fp)
{
    if (fp->syntax && !strcmp(fp->syntax, "proto3")) {
        f->syntax = PROTO_SYNTAX_PROTO3;
    } else if (fp->syntax && !strcmp(fp->syntax, "editions")) {
        f->syntax = PROTO_SYNTAX_EDITION;
        f->edition = "2023";
        for (unsigned i = 0; i < fp->base.n_unknown_fields; i++) {
            const ProtobufCMessageUnknownField *u = &fp->base.unknown_fields[i];
            /* EDITION_2024 is 1001, a two-byte varint: e9 07. */
            if (u->tag == 14 && u->wire_type == PROTOBUF_C_WIRE_TYPE_VARINT && u->len == 2 &&
                u->data[0] == 0xE9 && u->data[1] == 0x07)
                f->edition = "2024";
        }
    } else {
        /* protoc leaves proto2's syntax unset; most proto2 files declare it. */
        f->syntax = PROTO_SYNTAX_PROTO2;
    }
    r->proto3 = f->syntax != PROTO_SYNTAX_PROTO2;
}

/* ---- Shortening names --------------------------------------------------------------------------- */

typedef struct shortener {
    reader_t *r;
    proto_scope_t scope;
} shortener_t;

/*
 * How a person would most likely have written ".full.Name" here: inside its
 * own package, the shortest suffix that resolves back to it; from another
 * package, the package-qualified name (google.protobuf.Timestamp); the
 * leading-dot form only when nothing shorter resolves to the same type.
 */
static const char *shortest_name(shortener_t *sh, const char *full, const char *fallback, int extension)
{
    const proto_symbol_t *target = proto_symtab_get(sh->scope.tab, full, extension);
    if (!target)
        return fallback;
    if (strcmp(target->package, sh->scope.package) != 0)
        return proto_scope_resolve(&sh->scope, full, extension) == target ? full : fallback;
    for (const char *c = full + strlen(full); c-- > full;) {
        if (c != full && c[-1] != '.')
            continue;
        if (proto_scope_resolve(&sh->scope, c, extension) == target)
            return c;
    }
    return fallback;
}

static const char *shortest(shortener_t *sh, const char *type)
{
    if (!type || type[0] != '.')
        return type;
    return shortest_name(sh, type + 1, type, 0);
}

/* Custom option names come fully qualified (without the dot). */
static void shorten_options(shortener_t *sh, proto_options_t *opts)
{
    for (size_t i = 0; i < opts->n; i++)
        if (opts->items[i]->parenthesized)
            opts->items[i]->name = shortest_name(sh, opts->items[i]->name, opts->items[i]->name, 1);
}

static void shorten_field(shortener_t *sh, proto_field_t *f)
{
    if (f->map_key) {
        f->map_value = shortest(sh, f->map_value);
        f->type = arena_printf(sh->r->arena, "map<%s, %s>", f->map_key, f->map_value);
        if (!f->type)
            sh->r->failed = 1;
    } else {
        f->type = shortest(sh, f->type);
    }
}

static void shorten_fields(shortener_t *sh, proto_field_t **fields, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        shorten_field(sh, fields[i]);
        shorten_options(sh, &fields[i]->options);
    }
}

static void shorten_enum(shortener_t *sh, proto_enum_t *e)
{
    if (proto_scope_enter(&sh->scope, e->name) != 0) {
        sh->r->failed = 1;
        return;
    }
    shorten_options(sh, &e->options);
    for (size_t i = 0; i < e->n_values; i++)
        shorten_options(sh, &e->values[i]->options);
    proto_scope_leave(&sh->scope);
}

static void shorten_extends(shortener_t *sh, proto_extend_t **ext, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        ext[i]->name = shortest(sh, ext[i]->name);
        shorten_fields(sh, ext[i]->fields, ext[i]->n_fields);
    }
}

static void shorten_message(shortener_t *sh, proto_message_t *m)
{
    if (proto_scope_enter(&sh->scope, m->name) != 0) {
        sh->r->failed = 1;
        return;
    }
    shorten_options(sh, &m->options);
    shorten_fields(sh, m->fields, m->n_fields);
    for (size_t i = 0; i < m->n_oneofs; i++) {
        shorten_options(sh, &m->oneofs[i]->options);
        shorten_fields(sh, m->oneofs[i]->fields, m->oneofs[i]->n_fields);
    }
    for (size_t i = 0; i < m->n_extensions; i++)
        shorten_options(sh, &m->extensions[i]->options);
    for (size_t i = 0; i < m->n_groups; i++)
        shorten_fields(sh, m->groups[i]->fields, m->groups[i]->n_fields);
    shorten_extends(sh, m->extends, m->n_extends);
    for (size_t i = 0; i < m->n_types; i++) {
        if (m->types[i]->kind == PROTO_TYPE_MESSAGE)
            shorten_message(sh, m->types[i]->message);
        else
            shorten_enum(sh, m->types[i]->enumeration);
    }
    proto_scope_leave(&sh->scope);
}

static int shorten_names(reader_t *r, proto_file_t *f, const proto_symtab_t *context)
{
    proto_symtab_t *own = proto_symtab_new();
    if (!own || proto_symtab_add_file(own, f, PROTO_ORIGIN_SELF, "", -1) != 0) {
        proto_symtab_free(own);
        return -1;
    }
    proto_symtab_set_parent(own, context);
    shortener_t sh = {r, {.tab = own, .package = f->package ? f->package : ""}};
    shorten_options(&sh, &f->options);
    for (size_t i = 0; i < f->n_types; i++) {
        if (f->types[i]->kind == PROTO_TYPE_MESSAGE)
            shorten_message(&sh, f->types[i]->message);
        else
            shorten_enum(&sh, f->types[i]->enumeration);
    }
    shorten_extends(&sh, f->extends, f->n_extends);
    for (size_t i = 0; i < f->n_services; i++) {
        shorten_options(&sh, &f->services[i]->options);
        for (size_t k = 0; k < f->services[i]->n_rpcs; k++) {
            proto_rpc_t *rpc = f->services[i]->rpcs[k];
            rpc->request_type = shortest(&sh, rpc->request_type);
            rpc->response_type = shortest(&sh, rpc->response_type);
            shorten_options(&sh, &rpc->options);
        }
    }
    proto_scope_free(&sh.scope);
    proto_symtab_free(own);
    return 0;
}

/* ---- Entry point ----------------------------------------------------------------------------------- */

static int read_file(reader_t *r, proto_file_t *f, const FileProto *fp, const proto_symtab_t *tab)
{
    r->codec = tab ? proto_option_codec_new(tab, r->arena) : NULL;
    r->budget = 20000000;
    read_syntax(r, f, fp);
    if (fp->package && *fp->package)
        f->package = dup(r, fp->package);
    read_imports(r, f, fp);
    read_options(r, (const ProtobufCMessage *)fp->options, tab, NULL, &f->options);
    const char *pkg = f->package ? f->package : "";
    for (size_t i = 0; i < fp->n_message_type; i++) {
        proto_type_t *t = NEW(r, proto_type_t);
        char *full = arena_printf(r->arena, "%s%s%s", pkg, *pkg ? "." : "", fp->message_type[i]->name);
        if (!t || !full)
            return -1;
        t->kind = PROTO_TYPE_MESSAGE;
        t->message = read_message(r, fp->message_type[i], full, tab);
        push(r, &f->types, &f->n_types, t);
    }
    for (size_t i = 0; i < fp->n_enum_type; i++) {
        proto_type_t *t = NEW(r, proto_type_t);
        if (!t)
            return -1;
        t->kind = PROTO_TYPE_ENUM;
        t->enumeration = read_enum(r, fp->enum_type[i], tab);
        push(r, &f->types, &f->n_types, t);
    }
    for (size_t i = 0; i < fp->n_service; i++)
        push(r, &f->services, &f->n_services, read_service(r, fp->service[i], tab));
    read_extends(r, &f->extends, &f->n_extends, fp->extension, fp->n_extension, tab);
    return r->failed ? -1 : 0;
}

/*
 * Names in a descriptor, checked before reading: descriptor.proto makes them
 * optional strings, so protobuf-c hands over NULL for a missing one (fuzz_proto
 * found an unnamed extension that crashed the reader), and any bytes for a
 * present one (a tab in a field name printed text that parsed back to another
 * name). protoc only writes identifiers, and only identifiers print and parse
 * back to themselves. Depth is bounded by the wire check before unpacking.
 */
static int valid_identifier(const char *s)
{
    if (!s || !(*s == '_' || (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z')))
        return 0;
    for (s++; *s; s++)
        if (!(*s == '_' || (*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')))
            return 0;
    return 1;
}

/* A type reference or package: identifiers joined by dots, one leading dot allowed. */
static int valid_dotted(const char *s, int leading_dot)
{
    if (leading_dot && *s == '.')
        s++;
    char part[512];
    while (*s) {
        size_t n = strcspn(s, ".");
        if (n == 0 || n >= sizeof part)
            return 0;
        memcpy(part, s, n);
        part[n] = '\0';
        if (!valid_identifier(part))
            return 0;
        s += n;
        if (*s == '.' && *++s == '\0')
            return 0;
    }
    return 1;
}

typedef struct names_check {
    char why[320];
} names_check_t;

static int names_bad(names_check_t *c, const char *kind, const char *name, int dotted)
{
    if (name == NULL) {
        snprintf(c->why, sizeof c->why, "Invalid descriptor: %s has no name", kind);
        return 1;
    }
    if (dotted ? valid_dotted(name, 1) : valid_identifier(name))
        return 0;
    snprintf(c->why, sizeof c->why, "Invalid descriptor: %s name '%.200s' is not an identifier", kind, name);
    return 1;
}

static int names_bad_fields(names_check_t *c, FieldProto *const *fields, size_t n, const char *kind)
{
    for (size_t i = 0; i < n; i++)
        if (names_bad(c, kind, fields[i]->name, 0) ||
            (fields[i]->type_name && names_bad(c, "a field type", fields[i]->type_name, 1)) ||
            (fields[i]->extendee && names_bad(c, "an extendee", fields[i]->extendee, 1)))
            return 1;
    return 0;
}

static int names_bad_enum(names_check_t *c, const EnumProto *e)
{
    if (names_bad(c, "an enum", e->name, 0))
        return 1;
    for (size_t i = 0; i < e->n_value; i++)
        if (names_bad(c, "an enum value", e->value[i]->name, 0))
            return 1;
    return 0;
}

static int names_bad_message(names_check_t *c, const MessageProto *m)
{
    if (names_bad(c, "a message", m->name, 0) || names_bad_fields(c, m->field, m->n_field, "a field") ||
        names_bad_fields(c, m->extension, m->n_extension, "an extension"))
        return 1;
    for (size_t i = 0; i < m->n_oneof_decl; i++)
        if (names_bad(c, "a oneof", m->oneof_decl[i]->name, 0))
            return 1;
    for (size_t i = 0; i < m->n_enum_type; i++)
        if (names_bad_enum(c, m->enum_type[i]))
            return 1;
    for (size_t i = 0; i < m->n_nested_type; i++)
        if (names_bad_message(c, m->nested_type[i]))
            return 1;
    return 0;
}

/* The refusal for the first bad name (into c->why), or 0 when every name is good. */
static int names_bad_file(names_check_t *c, const FileProto *fp)
{
    if ((fp->package && names_bad(c, "the package", fp->package, 1)) ||
        names_bad_fields(c, fp->extension, fp->n_extension, "an extension"))
        return 1;
    for (size_t i = 0; i < fp->n_message_type; i++)
        if (names_bad_message(c, fp->message_type[i]))
            return 1;
    for (size_t i = 0; i < fp->n_enum_type; i++)
        if (names_bad_enum(c, fp->enum_type[i]))
            return 1;
    for (size_t i = 0; i < fp->n_service; i++) {
        if (names_bad(c, "a service", fp->service[i]->name, 0))
            return 1;
        for (size_t k = 0; k < fp->service[i]->n_method; k++) {
            const Google__Protobuf__MethodDescriptorProto *m = fp->service[i]->method[k];
            if (names_bad(c, "a method", m->name, 0) ||
                names_bad(c, "a method input type", m->input_type, 1) ||
                names_bad(c, "a method output type", m->output_type, 1))
                return 1;
        }
    }
    return 0;
}

proto_file_t *proto_descriptor_read(const uint8_t *data, size_t len, const proto_symtab_t *context,
                                    char **error)
{
    *error = NULL;
    if (proto_descriptor_check_wire(data, len, error) != 0)
        return NULL;
    FileProto *fp = google__protobuf__file_descriptor_proto__unpack(NULL, len, data);
    if (!fp) {
        *error = strdup("Invalid FileDescriptorProto: not a serialized FileDescriptorProto");
        return NULL;
    }
    names_check_t names;
    if (names_bad_file(&names, fp)) {
        google__protobuf__file_descriptor_proto__free_unpacked(fp, NULL);
        *error = strdup(names.why);
        return NULL;
    }
    proto_file_t *f = proto_file_new();
    if (!f) {
        google__protobuf__file_descriptor_proto__free_unpacked(fp, NULL);
        *error = strdup("out of memory");
        return NULL;
    }
    arena_t *arena = f->arena;
    reader_t r = {.file = f, .arena = arena};
    int rc = read_file(&r, f, fp, context);
    if (r.error) {
        proto_file_free(f);
        google__protobuf__file_descriptor_proto__free_unpacked(fp, NULL);
        *error = r.error;
        return NULL;
    }
    /* Custom options may use extensions the file itself declares: read it
     * again with its own symbols in view. */
    proto_symtab_t *own = rc == 0 ? proto_symtab_new() : NULL;
    proto_file_t *second = NULL;
    if (own && proto_symtab_add_file(own, f, PROTO_ORIGIN_SELF, "", -1) == 0) {
        proto_symtab_set_parent(own, context);
        second = proto_file_new();
        reader_t r2 = {.file = second, .arena = second ? second->arena : NULL};
        if (second && (read_file(&r2, second, fp, own) != 0 || r2.failed)) {
            proto_file_free(second);
            second = NULL;
        }
        free(r2.error); /* the first pass saw the same fields */
    }
    proto_symtab_free(own);
    proto_file_free(f);
    google__protobuf__file_descriptor_proto__free_unpacked(fp, NULL);
    reader_t r3 = {.file = second, .arena = second ? second->arena : NULL};
    if (!second || shorten_names(&r3, second, context) != 0 || r3.failed) {
        proto_file_free(second);
        *error = strdup("out of memory");
        return NULL;
    }
    return second;
}
