/*
 * proto_descriptor_build: the model to a serialized FileDescriptorProto,
 * field for field what `protoc --descriptor_set_out` writes (source info
 * aside): fully-qualified type names, synthesized map entries, synthetic
 * oneofs for proto3 `optional`, json_name on every field, protoc's spelling
 * of default values, built-in options as typed fields and custom options as
 * extension fields encoded by hand (protoc keeps them as unknown fields).
 *
 * Every protobuf-c struct lives in one arena that dies after packing.
 */
#include "compat/protobuf/internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "google/protobuf/descriptor.pb-c.h"

typedef Google__Protobuf__FileDescriptorProto FileProto;
typedef Google__Protobuf__DescriptorProto MessageProto;
typedef Google__Protobuf__FieldDescriptorProto FieldProto;
typedef Google__Protobuf__EnumDescriptorProto EnumProto;
typedef Google__Protobuf__EnumValueDescriptorProto EnumValueProto;
typedef Google__Protobuf__OneofDescriptorProto OneofProto;
typedef Google__Protobuf__ServiceDescriptorProto ServiceProto;
typedef Google__Protobuf__MethodDescriptorProto MethodProto;

typedef struct builder {
    const proto_symtab_t *tab;
    proto_option_codec_t *codec; /* custom options */
    proto_scope_t scope;         /* package + enclosing messages of what is being built */
    int proto3;                  /* the file's implicit-presence rules (proto3 or editions) */
    arena_t *arena;
    char *error; /* first failure */
} builder_t;

static int file_is_proto3(const proto_file_t *f)
{
    return f->syntax == PROTO_SYNTAX_PROTO3 || f->syntax == PROTO_SYNTAX_EDITION;
}

static void *alloc_message(builder_t *b, const ProtobufCMessageDescriptor *desc)
{
    void *m = arena_alloc(b->arena, desc->sizeof_message);
    if (!m) {
        proto_error_set(&b->error, "%sout of memory", "");
        return NULL;
    }
    protobuf_c_message_init(desc, m);
    return m;
}

static char *dup(builder_t *b, const char *s)
{
    char *d = arena_strdup(b->arena, s);
    if (!d)
        proto_error_set(&b->error, "%sout of memory", "");
    return d;
}

static char *dupf(builder_t *b, const char *prefix, const char *s)
{
    char *d = arena_printf(b->arena, "%s%s", prefix, s);
    if (!d)
        proto_error_set(&b->error, "%sout of memory", "");
    return d;
}

/* Appends item to a protobuf-c repeated field (a size_t count and a pointer array). */
static void append(builder_t *b, void *items_ptr, size_t *n, void *item)
{
    if (item && arena_push(b->arena, items_ptr, n, item) != 0)
        proto_error_set(&b->error, "%sout of memory", "");
}

static const proto_symbol_t *resolve_type(builder_t *b, const char *name)
{
    const proto_symbol_t *s = proto_scope_resolve(&b->scope, name, 0);
    if (!s)
        proto_error_set(&b->error, "Could not resolve type: %s", name);
    return s;
}

/* ---- Names protoc derives -------------------------------------------------------- */

/* "foo_bar" -> "fooBar" (proto_json_name) */
static char *json_name(builder_t *b, const char *name)
{
    char *out = arena_alloc(b->arena, strlen(name) + 1);
    if (!out) {
        proto_error_set(&b->error, "%sout of memory", "");
        return NULL;
    }
    proto_json_name(name, out);
    return out;
}

/* "my_map" -> "MyMapEntry" */
static char *map_entry_name(builder_t *b, const char *field)
{
    char *out = arena_alloc(b->arena, strlen(field) + 6);
    if (!out) {
        proto_error_set(&b->error, "%sout of memory", "");
        return NULL;
    }
    size_t n = 0;
    int upper = 1;
    for (const char *c = field; *c; c++) {
        if (*c == '_') {
            upper = 1;
        } else {
            out[n++] = upper && *c >= 'a' && *c <= 'z' ? (char)(*c - 'a' + 'A') : *c;
            upper = 0;
        }
    }
    memcpy(out + n, "Entry", 6);
    return out;
}

static char *lower(builder_t *b, const char *s)
{
    char *out = dup(b, s);
    for (char *c = out; c && *c; c++)
        if (*c >= 'A' && *c <= 'Z')
            *c = (char)(*c - 'A' + 'a');
    return out;
}

/* ---- Scalars --------------------------------------------------------------------------- */

typedef struct scalar_info {
    const char *name;
    Google__Protobuf__FieldDescriptorProto__Type type;
} scalar_info_t;

static const scalar_info_t scalars[] = {
    {"double", GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_DOUBLE},
    {"float", GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_FLOAT},
    {"int64", GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_INT64},
    {"uint64", GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_UINT64},
    {"int32", GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_INT32},
    {"fixed64", GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_FIXED64},
    {"fixed32", GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_FIXED32},
    {"bool", GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_BOOL},
    {"string", GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_STRING},
    {"bytes", GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_BYTES},
    {"uint32", GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_UINT32},
    {"sfixed32", GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_SFIXED32},
    {"sfixed64", GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_SFIXED64},
    {"sint32", GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_SINT32},
    {"sint64", GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_SINT64},
};

static int scalar_type(const char *name, Google__Protobuf__FieldDescriptorProto__Type *type)
{
    for (size_t i = 0; i < sizeof scalars / sizeof *scalars; i++)
        if (strcmp(scalars[i].name, name) == 0) {
            *type = scalars[i].type;
            return 1;
        }
    return 0;
}

/* protobuf's CEscape: C escapes, octal for the unprintable. */
static char *c_escape(builder_t *b, const char *s, size_t len)
{
    uint8_t *bytes = arena_alloc(b->arena, len + 1);
    char *out = arena_alloc(b->arena, len * 4 + 1);
    if (!bytes || !out) {
        proto_error_set(&b->error, "%sout of memory", "");
        return NULL;
    }
    size_t n = proto_text_to_bytes(s, len, bytes), o = 0;
    for (size_t i = 0; i < n; i++) {
        uint8_t c = bytes[i];
        const char *esc = c == '\n'   ? "\\n"
                          : c == '\r' ? "\\r"
                          : c == '\t' ? "\\t"
                          : c == '"'  ? "\\\""
                          : c == '\'' ? "\\'"
                          : c == '\\' ? "\\\\"
                                      : NULL;
        if (esc) {
            memcpy(out + o, esc, 2);
            o += 2;
        } else if (c < 0x20 || c >= 0x7F) {
            o += (size_t)snprintf(out + o, 5, "\\%03o", c);
        } else {
            out[o++] = (char)c;
        }
    }
    out[o] = '\0';
    return out;
}

/* protobuf's DoubleToBuffer: 15 significant digits unless that loses the value. */
static char *format_double(builder_t *b, double v)
{
    if (isinf(v))
        return dup(b, v > 0 ? "inf" : "-inf");
    if (isnan(v))
        return dup(b, "nan");
    char buf[40];
    snprintf(buf, sizeof buf, "%.15g", v);
    if (strtod(buf, NULL) != v)
        snprintf(buf, sizeof buf, "%.17g", v);
    return dup(b, buf);
}

/* The default value as protoc spells it in the descriptor. */
static char *default_value(builder_t *b, const proto_field_t *f,
                           Google__Protobuf__FieldDescriptorProto__Type type)
{
    const char *text = f->default_value;
    char *end = NULL;
    char buf[32];
    switch (type) {
    case GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_STRING:
        return arena_strndup(b->arena, text, f->default_len);
    case GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_BYTES: return c_escape(b, text, f->default_len);
    case GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_FLOAT:
    case GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_DOUBLE: {
        double v;
        if (proto_parse_double(text, &v) != 0)
            break;
        return format_double(b, v);
    }
    case GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_BOOL:
    case GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_ENUM: return dup(b, text);
    case GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_UINT32:
    case GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_UINT64:
    case GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_FIXED32:
    case GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_FIXED64: {
        unsigned long long v = strtoull(text, &end, 0);
        if (*end || text[0] == '-')
            break;
        snprintf(buf, sizeof buf, "%llu", v);
        return dup(b, buf);
    }
    default: {
        long long v = strtoll(text, &end, 0);
        if (*end)
            break;
        snprintf(buf, sizeof buf, "%lld", v);
        return dup(b, buf);
    }
    }
    proto_error_set(&b->error, "Invalid default value: %s", text);
    return NULL;
}

static void add_unknown_field(builder_t *b, ProtobufCMessage *msg, const strbuf_t *record)
{
    /* record is tag + payload; protobuf-c keeps them apart. */
    size_t tag_len = 0;
    uint64_t tag = 0;
    while (tag_len < record->len) {
        uint8_t c = (uint8_t)record->data[tag_len];
        tag |= (uint64_t)(c & 0x7F) << (7 * tag_len);
        tag_len++;
        if (!(c & 0x80))
            break;
    }
    size_t n = msg->n_unknown_fields;
    ProtobufCMessageUnknownField *fields = msg->unknown_fields;
    /* Capacity doubles, implied by n being a power of two (or zero). */
    if ((n & (n - 1)) == 0) {
        fields = arena_alloc(b->arena, (n ? n * 2 : 1) * sizeof *fields);
        if (fields && n)
            memcpy(fields, msg->unknown_fields, n * sizeof *fields);
    }
    uint8_t *data = arena_alloc(b->arena, record->len - tag_len + 1);
    if (!fields || !data) {
        proto_error_set(&b->error, "%sout of memory", "");
        return;
    }
    memcpy(data, record->data + tag_len, record->len - tag_len);
    fields[n].tag = (uint32_t)(tag >> 3);
    fields[n].wire_type = (ProtobufCWireType)(tag & 7);
    fields[n].len = record->len - tag_len;
    fields[n].data = data;
    msg->unknown_fields = fields;
    msg->n_unknown_fields = n + 1;
}

/* Splits encoded records (tag + value) into protobuf-c unknown fields. */
static void add_records(builder_t *b, ProtobufCMessage *msg, const strbuf_t *records)
{
    size_t pos = 0;
    while (pos < records->len && !b->error) {
        size_t start = pos;
        uint64_t tag = 0;
        for (int shift = 0; pos < records->len; shift += 7) {
            uint8_t c = (uint8_t)records->data[pos++];
            tag |= (uint64_t)(c & 0x7F) << shift;
            if (!(c & 0x80))
                break;
        }
        size_t len;
        switch (tag & 7) {
        case 0:
            for (len = 0; pos + len < records->len && (records->data[pos + len] & 0x80);)
                len++;
            len++;
            break;
        case 1: len = 8; break;
        case 5: len = 4; break;
        default: {
            uint64_t n = 0;
            size_t q = pos;
            for (int shift = 0; q < records->len; shift += 7) {
                uint8_t c = (uint8_t)records->data[q++];
                n |= (uint64_t)(c & 0x7F) << shift;
                if (!(c & 0x80))
                    break;
            }
            len = (q - pos) + (size_t)n;
        }
        }
        pos += len;
        strbuf_t one = {records->data + start, pos - start, 0, 0};
        add_unknown_field(b, msg, &one);
    }
}

static void set_custom_option(builder_t *b, ProtobufCMessage *msg, const proto_option_t *o)
{
    strbuf_t records = {0};
    char *error = NULL;
    if (proto_option_encode(b->codec, &b->scope, o, &records, &error) != 0) {
        proto_error_set(&b->error, "%s", error ? error : "out of memory");
        free(error);
    } else {
        add_records(b, msg, &records);
    }
    strbuf_free(&records);
}

/* ---- Built-in options: typed fields of the options message, by reflection ---------------------- */

static void set_builtin(builder_t *b, ProtobufCMessage *msg, const char *name, const proto_value_t *v);

static void *field_slot(ProtobufCMessage *msg, const ProtobufCFieldDescriptor *fd)
{
    return (char *)msg + fd->offset;
}

static size_t scalar_size(ProtobufCType t)
{
    switch (t) {
    case PROTOBUF_C_TYPE_INT64:
    case PROTOBUF_C_TYPE_SINT64:
    case PROTOBUF_C_TYPE_SFIXED64:
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64:
    case PROTOBUF_C_TYPE_DOUBLE: return 8;
    case PROTOBUF_C_TYPE_STRING:
    case PROTOBUF_C_TYPE_MESSAGE: return sizeof(void *);
    case PROTOBUF_C_TYPE_BYTES: return sizeof(ProtobufCBinaryData);
    default: return 4;
    }
}

/* Converts v to the C representation of fd's type in out. */
static int builtin_value(builder_t *b, const ProtobufCFieldDescriptor *fd, const proto_value_t *v, void *out)
{
    const char *t = v->text;
    char *end = NULL;
    switch (fd->type) {
    case PROTOBUF_C_TYPE_BOOL:
        if (!t || (strcmp(t, "true") && strcmp(t, "false")))
            return -1;
        *(protobuf_c_boolean *)out = !strcmp(t, "true");
        return 0;
    case PROTOBUF_C_TYPE_ENUM: {
        const ProtobufCEnumValue *ev =
            t ? protobuf_c_enum_descriptor_get_value_by_name(fd->descriptor, t) : NULL;
        if (!ev)
            return -1;
        *(int *)out = ev->value;
        return 0;
    }
    case PROTOBUF_C_TYPE_STRING:
        if (v->kind != PROTO_VALUE_STRING)
            return -1;
        *(char **)out = arena_strndup(b->arena, t, v->len);
        return 0;
    case PROTOBUF_C_TYPE_BYTES: {
        if (v->kind != PROTO_VALUE_STRING)
            return -1;
        uint8_t *data = arena_alloc(b->arena, v->len + 1);
        if (!data)
            return -1;
        ((ProtobufCBinaryData *)out)->len = proto_text_to_bytes(t, v->len, data);
        ((ProtobufCBinaryData *)out)->data = data;
        return 0;
    }
    case PROTOBUF_C_TYPE_FLOAT:
    case PROTOBUF_C_TYPE_DOUBLE: {
        double d;
        if (!t || proto_parse_double(t, &d) != 0)
            return -1;
        if (fd->type == PROTOBUF_C_TYPE_FLOAT)
            *(float *)out = (float)d;
        else
            *(double *)out = d;
        return 0;
    }
    case PROTOBUF_C_TYPE_UINT32:
    case PROTOBUF_C_TYPE_FIXED32:
    case PROTOBUF_C_TYPE_UINT64:
    case PROTOBUF_C_TYPE_FIXED64: {
        unsigned long long u = t ? strtoull(t, &end, 0) : 0;
        if (!t || *end)
            return -1;
        if (scalar_size(fd->type) == 8)
            *(uint64_t *)out = u;
        else
            *(uint32_t *)out = (uint32_t)u;
        return 0;
    }
    case PROTOBUF_C_TYPE_MESSAGE: return -1;
    default: {
        long long s = t ? strtoll(t, &end, 0) : 0;
        if (!t || *end)
            return -1;
        if (scalar_size(fd->type) == 8)
            *(int64_t *)out = s;
        else
            *(int32_t *)out = (int32_t)s;
        return 0;
    }
    }
}

static ProtobufCMessage *sub_message(builder_t *b, ProtobufCMessage *msg, const ProtobufCFieldDescriptor *fd)
{
    ProtobufCMessage **slot = field_slot(msg, fd);
    if (!*slot)
        *slot = alloc_message(b, fd->descriptor);
    return *slot;
}

static void set_builtin_field(builder_t *b, ProtobufCMessage *msg, const ProtobufCFieldDescriptor *fd,
                              const proto_value_t *v)
{
    if (v->kind == PROTO_VALUE_LIST) {
        for (size_t i = 0; i < v->n_items; i++)
            set_builtin_field(b, msg, fd, v->items[i]);
        return;
    }
    if (fd->type == PROTOBUF_C_TYPE_MESSAGE) {
        if (v->kind != PROTO_VALUE_MAP || fd->label == PROTOBUF_C_LABEL_REPEATED) {
            proto_error_set(&b->error, "Invalid value for option %s", fd->name);
            return;
        }
        ProtobufCMessage *sub = sub_message(b, msg, fd);
        for (size_t i = 0; sub && i < v->n_entries; i++)
            set_builtin(b, sub, v->entries[i].key, v->entries[i].value);
        return;
    }
    size_t size = scalar_size(fd->type);
    if (fd->label == PROTOBUF_C_LABEL_REPEATED) {
        size_t *n = (size_t *)((char *)msg + fd->quantifier_offset);
        char **items = field_slot(msg, fd);
        char *grown = arena_alloc(b->arena, (*n + 1) * size);
        if (!grown) {
            proto_error_set(&b->error, "%sout of memory", "");
            return;
        }
        if (*n)
            memcpy(grown, *items, *n * size);
        if (builtin_value(b, fd, v, grown + *n * size) != 0) {
            proto_error_set(&b->error, "Invalid value for option %s", fd->name);
            return;
        }
        *items = grown;
        (*n)++;
        return;
    }
    if (builtin_value(b, fd, v, field_slot(msg, fd)) != 0) {
        proto_error_set(&b->error, "Invalid value for option %s", fd->name);
        return;
    }
    if (fd->quantifier_offset && fd->type != PROTOBUF_C_TYPE_STRING)
        *(protobuf_c_boolean *)((char *)msg + fd->quantifier_offset) = 1;
}

/* name may be dotted ("features.field_presence"); OPTION values continue it. */
static void set_builtin(builder_t *b, ProtobufCMessage *msg, const char *name, const proto_value_t *v)
{
    const char *dot = strchr(name, '.');
    char head[128];
    size_t hlen = dot ? (size_t)(dot - name) : strlen(name);
    if (hlen >= sizeof head) {
        proto_error_set(&b->error, "Option \"%s\" unknown.", name);
        return;
    }
    memcpy(head, name, hlen);
    head[hlen] = '\0';
    const ProtobufCFieldDescriptor *fd =
        protobuf_c_message_descriptor_get_field_by_name(msg->descriptor, head);
    if (!fd) {
        proto_error_set(&b->error, "Option \"%s\" unknown.", name);
        return;
    }
    if (dot || v->kind == PROTO_VALUE_OPTION) {
        if (fd->type != PROTOBUF_C_TYPE_MESSAGE || fd->label == PROTOBUF_C_LABEL_REPEATED) {
            proto_error_set(&b->error, "Option \"%s\" is not a message.", name);
            return;
        }
        ProtobufCMessage *sub = sub_message(b, msg, fd);
        if (!sub)
            return;
        if (dot)
            set_builtin(b, sub, dot + 1, v);
        else if (v->option->parenthesized)
            set_custom_option(b, sub, v->option);
        else
            set_builtin(b, sub, v->option->name, v->option->value);
        return;
    }
    set_builtin_field(b, msg, fd, v);
}

/* The options message for a list, or NULL when there are none. */
static void *build_options(builder_t *b, const ProtobufCMessageDescriptor *desc, const proto_options_t *opts)
{
    if (!opts || opts->n == 0)
        return NULL;
    ProtobufCMessage *msg = alloc_message(b, desc);
    for (size_t i = 0; msg && i < opts->n && !b->error; i++) {
        const proto_option_t *o = opts->items[i];
        if (o->parenthesized)
            set_custom_option(b, msg, o);
        else
            set_builtin(b, msg, o->name, o->value);
    }
    return msg;
}

/* ---- Fields -------------------------------------------------------------------------------- */

static Google__Protobuf__FieldDescriptorProto__Label field_label(builder_t *b, proto_label_t l)
{
    switch (l) {
    case PROTO_LABEL_REQUIRED: return GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__LABEL__LABEL_REQUIRED;
    case PROTO_LABEL_REPEATED: return GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__LABEL__LABEL_REPEATED;
    default: return GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__LABEL__LABEL_OPTIONAL;
    }
}

/* Sets type and type_name for a type written as name. */
static void set_field_type(builder_t *b, FieldProto *fp, const char *name)
{
    fp->has_type = 1;
    if (scalar_type(name, &fp->type))
        return;
    const proto_symbol_t *s = resolve_type(b, name);
    if (!s)
        return;
    fp->type = s->kind == PROTO_SYMBOL_ENUM ? GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_ENUM
                                            : GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_MESSAGE;
    fp->type_name = dupf(b, ".", s->full_name);
}

static FieldProto *new_field(builder_t *b, const char *name, int32_t number)
{
    FieldProto *fp = alloc_message(b, &google__protobuf__field_descriptor_proto__descriptor);
    if (!fp)
        return NULL;
    fp->name = dup(b, name);
    fp->has_number = 1;
    fp->number = number;
    fp->has_label = 1;
    return fp;
}

/* scope_name: full name of the enclosing message, for map entry type names. */
static FieldProto *build_field(builder_t *b, const proto_field_t *f, const char *scope_name,
                               const char *extendee)
{
    FieldProto *fp = new_field(b, f->name, f->tag);
    if (!fp)
        return NULL;
    fp->label = field_label(b, f->label);
    if (f->map_key) {
        fp->label = GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__LABEL__LABEL_REPEATED;
        fp->has_type = 1;
        fp->type = GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_MESSAGE;
        fp->type_name = arena_printf(b->arena, ".%s.%s", scope_name, map_entry_name(b, f->name));
    } else {
        set_field_type(b, fp, f->type);
    }
    if (extendee) {
        const proto_symbol_t *s = resolve_type(b, extendee);
        if (s)
            fp->extendee = dupf(b, ".", s->full_name);
    }
    if (f->default_value)
        fp->default_value = default_value(b, f, fp->type);
    fp->json_name =
        f->json_name ? arena_strndup(b->arena, f->json_name, f->json_name_len) : json_name(b, f->name);
    fp->options = build_options(b, &google__protobuf__field_options__descriptor, &f->options);
    if (b->proto3 && f->label == PROTO_LABEL_OPTIONAL) {
        fp->has_proto3_optional = 1;
        fp->proto3_optional = 1;
    }
    return fp;
}

static FieldProto *build_group_field(builder_t *b, const proto_group_t *g, const char *scope_name)
{
    char *name = lower(b, g->name);
    FieldProto *fp = name ? new_field(b, name, g->tag) : NULL;
    if (!fp)
        return NULL;
    fp->label = field_label(b, g->label);
    fp->has_type = 1;
    fp->type = GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__TYPE__TYPE_GROUP;
    fp->type_name = arena_printf(b->arena, ".%s.%s", scope_name, g->name);
    fp->json_name = json_name(b, name);
    return fp;
}

/* ---- Messages ----------------------------------------------------------------------------- */

static MessageProto *build_message(builder_t *b, const proto_message_t *m, const char *full_name);
static EnumProto *build_enum(builder_t *b, const proto_enum_t *e);

static MessageProto *map_entry(builder_t *b, const proto_field_t *f)
{
    MessageProto *mp = alloc_message(b, &google__protobuf__descriptor_proto__descriptor);
    if (!mp)
        return NULL;
    mp->name = map_entry_name(b, f->name);
    FieldProto *key = new_field(b, "key", 1), *value = new_field(b, "value", 2);
    if (!key || !value)
        return NULL;
    key->label = value->label = GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__LABEL__LABEL_OPTIONAL;
    set_field_type(b, key, f->map_key);
    set_field_type(b, value, f->map_value);
    key->json_name = dup(b, "key");
    value->json_name = dup(b, "value");
    append(b, &mp->field, &mp->n_field, key);
    append(b, &mp->field, &mp->n_field, value);
    Google__Protobuf__MessageOptions *o = alloc_message(b, &google__protobuf__message_options__descriptor);
    if (o) {
        o->has_map_entry = 1;
        o->map_entry = 1;
    }
    mp->options = o;
    return mp;
}

/* Source-ordered members: fields by field_order, nested types by nested_order. */
typedef struct ordered {
    int order;
    const proto_field_t *field;
    const proto_group_t *group;
    const proto_message_t *message;
    int oneof_index; /* -1 at top level */
} ordered_t;

static int compare_ordered(const void *a, const void *b)
{
    const ordered_t *x = a, *y = b;
    return (x->order > y->order) - (x->order < y->order);
}

static void add_ordered(builder_t *b, ordered_t **items, size_t *n, size_t *cap, ordered_t item)
{
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 16;
        ordered_t *grown = arena_alloc(b->arena, c * sizeof *grown);
        if (!grown) {
            proto_error_set(&b->error, "%sout of memory", "");
            return;
        }
        if (*n)
            memcpy(grown, *items, *n * sizeof *grown);
        *items = grown;
        *cap = c;
    }
    (*items)[(*n)++] = item;
}

static void message_fields(builder_t *b, MessageProto *mp, const proto_message_t *m, const char *full)
{
    ordered_t *items = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < m->n_fields; i++)
        add_ordered(b, &items, &n, &cap,
                    (ordered_t){m->fields[i]->field_order, m->fields[i], NULL, NULL, -1});
    for (size_t i = 0; i < m->n_groups; i++)
        add_ordered(b, &items, &n, &cap,
                    (ordered_t){m->groups[i]->field_order, NULL, m->groups[i], NULL, -1});
    for (size_t o = 0; o < m->n_oneofs; o++) {
        for (size_t i = 0; i < m->oneofs[o]->n_fields; i++)
            add_ordered(b, &items, &n, &cap,
                        (ordered_t){m->oneofs[o]->fields[i]->field_order, m->oneofs[o]->fields[i], NULL, NULL,
                                    (int)o});
        for (size_t i = 0; i < m->oneofs[o]->n_groups; i++)
            add_ordered(b, &items, &n, &cap,
                        (ordered_t){m->oneofs[o]->groups[i]->field_order, NULL, m->oneofs[o]->groups[i], NULL,
                                    (int)o});
    }
    if (items)
        qsort(items, n, sizeof *items, compare_ordered);
    for (size_t i = 0; i < n && !b->error; i++) {
        FieldProto *fp = items[i].field ? build_field(b, items[i].field, full, NULL)
                                        : build_group_field(b, items[i].group, full);
        if (fp && items[i].oneof_index >= 0) {
            fp->label = GOOGLE__PROTOBUF__FIELD_DESCRIPTOR_PROTO__LABEL__LABEL_OPTIONAL;
            fp->has_oneof_index = 1;
            fp->oneof_index = items[i].oneof_index;
        }
        append(b, &mp->field, &mp->n_field, fp);
    }
}

static int name_taken(MessageProto *mp, const char *name)
{
    for (size_t i = 0; i < mp->n_field; i++)
        if (!strcmp(mp->field[i]->name, name))
            return 1;
    for (size_t i = 0; i < mp->n_oneof_decl; i++)
        if (!strcmp(mp->oneof_decl[i]->name, name))
            return 1;
    return 0;
}

/* Real oneofs first, then one synthetic oneof per proto3 `optional` field. */
static void message_oneofs(builder_t *b, MessageProto *mp, const proto_message_t *m)
{
    for (size_t i = 0; i < m->n_oneofs; i++) {
        OneofProto *op = alloc_message(b, &google__protobuf__oneof_descriptor_proto__descriptor);
        if (!op)
            return;
        op->name = dup(b, m->oneofs[i]->name);
        op->options = build_options(b, &google__protobuf__oneof_options__descriptor, &m->oneofs[i]->options);
        append(b, &mp->oneof_decl, &mp->n_oneof_decl, op);
    }
    for (size_t i = 0; i < mp->n_field && !b->error; i++) {
        FieldProto *fp = mp->field[i];
        if (!fp->proto3_optional)
            continue;
        char *name = fp->name[0] == '_' ? dup(b, fp->name) : dupf(b, "_", fp->name);
        while (name && name_taken(mp, name))
            name = dupf(b, "X", name);
        OneofProto *op = alloc_message(b, &google__protobuf__oneof_descriptor_proto__descriptor);
        if (!op || !name)
            return;
        op->name = name;
        fp->has_oneof_index = 1;
        fp->oneof_index = (int32_t)mp->n_oneof_decl;
        append(b, &mp->oneof_decl, &mp->n_oneof_decl, op);
    }
}

static void message_nested(builder_t *b, MessageProto *mp, const proto_message_t *m, const char *full)
{
    ordered_t *items = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < m->n_types; i++)
        if (m->types[i]->kind == PROTO_TYPE_MESSAGE)
            add_ordered(
                b, &items, &n, &cap,
                (ordered_t){m->types[i]->message->nested_order, NULL, NULL, m->types[i]->message, -1});
    for (size_t i = 0; i < m->n_fields; i++)
        if (m->fields[i]->map_key)
            add_ordered(b, &items, &n, &cap,
                        (ordered_t){m->fields[i]->nested_order, m->fields[i], NULL, NULL, -1});
    for (size_t i = 0; i < m->n_groups; i++)
        add_ordered(b, &items, &n, &cap,
                    (ordered_t){m->groups[i]->nested_order, NULL, m->groups[i], NULL, -1});
    for (size_t o = 0; o < m->n_oneofs; o++)
        for (size_t i = 0; i < m->oneofs[o]->n_groups; i++)
            add_ordered(
                b, &items, &n, &cap,
                (ordered_t){m->oneofs[o]->groups[i]->nested_order, NULL, m->oneofs[o]->groups[i], NULL, -1});
    if (items)
        qsort(items, n, sizeof *items, compare_ordered);
    for (size_t i = 0; i < n && !b->error; i++) {
        MessageProto *nested;
        if (items[i].field) {
            nested = map_entry(b, items[i].field);
        } else if (items[i].group) {
            /* A group is a message with the group's fields. */
            proto_message_t gm = {.name = items[i].group->name,
                                  .fields = items[i].group->fields,
                                  .n_fields = items[i].group->n_fields};
            char *gfull = arena_printf(b->arena, "%s.%s", full, gm.name);
            proto_scope_enter(&b->scope, gm.name);
            nested = gfull ? build_message(b, &gm, gfull) : NULL;
            proto_scope_leave(&b->scope);
        } else {
            char *nfull = arena_printf(b->arena, "%s.%s", full, items[i].message->name);
            proto_scope_enter(&b->scope, items[i].message->name);
            nested = nfull ? build_message(b, items[i].message, nfull) : NULL;
            proto_scope_leave(&b->scope);
        }
        append(b, &mp->nested_type, &mp->n_nested_type, nested);
    }
    for (size_t i = 0; i < m->n_types && !b->error; i++) {
        if (m->types[i]->kind != PROTO_TYPE_ENUM)
            continue;
        proto_scope_enter(&b->scope, m->types[i]->enumeration->name);
        append(b, &mp->enum_type, &mp->n_enum_type, build_enum(b, m->types[i]->enumeration));
        proto_scope_leave(&b->scope);
    }
}

static int32_t range_end_exclusive(const proto_range_t *r, int32_t max_exclusive)
{
    return r->end_is_max || r->end >= PROTO_MAX_FIELD_NUMBER ? max_exclusive : r->end + 1;
}

static int message_set(const proto_message_t *m)
{
    for (size_t i = 0; i < m->options.n; i++)
        if (!strcmp(m->options.items[i]->name, "message_set_wire_format") &&
            m->options.items[i]->value->text && !strcmp(m->options.items[i]->value->text, "true"))
            return 1;
    return 0;
}

static void message_ranges(builder_t *b, MessageProto *mp, const proto_message_t *m)
{
    for (size_t i = 0; i < m->n_extensions; i++) {
        const proto_extensions_t *x = m->extensions[i];
        void *opts = build_options(b, &google__protobuf__extension_range_options__descriptor, &x->options);
        for (size_t j = 0; j < x->n_values; j++) {
            Google__Protobuf__DescriptorProto__ExtensionRange *r =
                alloc_message(b, &google__protobuf__descriptor_proto__extension_range__descriptor);
            if (!r)
                return;
            r->has_start = r->has_end = 1;
            r->start = x->values[j].start;
            r->end =
                range_end_exclusive(&x->values[j], message_set(m) ? 2147483647 : PROTO_MAX_FIELD_NUMBER + 1);
            r->options = opts;
            append(b, &mp->extension_range, &mp->n_extension_range, r);
        }
    }
    for (size_t i = 0; i < m->n_reserveds; i++) {
        for (size_t j = 0; j < m->reserveds[i]->n_values; j++) {
            const proto_range_t *v = &m->reserveds[i]->values[j];
            if (v->name) {
                append(b, &mp->reserved_name, &mp->n_reserved_name, dup(b, v->name));
                continue;
            }
            Google__Protobuf__DescriptorProto__ReservedRange *r =
                alloc_message(b, &google__protobuf__descriptor_proto__reserved_range__descriptor);
            if (!r)
                return;
            r->has_start = r->has_end = 1;
            r->start = v->start;
            r->end = range_end_exclusive(v, PROTO_MAX_FIELD_NUMBER + 1);
            append(b, &mp->reserved_range, &mp->n_reserved_range, r);
        }
    }
}

static void extend_fields(builder_t *b, FieldProto ***out, size_t *n, proto_extend_t *const *ext,
                          size_t n_ext, const char *scope_name)
{
    for (size_t i = 0; i < n_ext; i++)
        for (size_t j = 0; j < ext[i]->n_fields && !b->error; j++)
            append(b, out, n, build_field(b, ext[i]->fields[j], scope_name, ext[i]->name));
}

static MessageProto *build_message(builder_t *b, const proto_message_t *m, const char *full)
{
    MessageProto *mp = alloc_message(b, &google__protobuf__descriptor_proto__descriptor);
    if (!mp)
        return NULL;
    mp->name = dup(b, m->name);
    message_fields(b, mp, m, full);
    message_nested(b, mp, m, full);
    message_ranges(b, mp, m);
    extend_fields(b, &mp->extension, &mp->n_extension, m->extends, m->n_extends, full);
    message_oneofs(b, mp, m);
    mp->options = build_options(b, &google__protobuf__message_options__descriptor, &m->options);
    return mp;
}

/* ---- Enums, services, the file ----------------------------------------------------------------- */

static EnumProto *build_enum(builder_t *b, const proto_enum_t *e)
{
    EnumProto *ep = alloc_message(b, &google__protobuf__enum_descriptor_proto__descriptor);
    if (!ep)
        return NULL;
    ep->name = dup(b, e->name);
    for (size_t i = 0; i < e->n_values; i++) {
        EnumValueProto *vp = alloc_message(b, &google__protobuf__enum_value_descriptor_proto__descriptor);
        if (!vp)
            return NULL;
        vp->name = dup(b, e->values[i]->name);
        vp->has_number = 1;
        vp->number = e->values[i]->tag;
        vp->options =
            build_options(b, &google__protobuf__enum_value_options__descriptor, &e->values[i]->options);
        append(b, &ep->value, &ep->n_value, vp);
    }
    for (size_t i = 0; i < e->n_reserveds; i++) {
        for (size_t j = 0; j < e->reserveds[i]->n_values; j++) {
            const proto_range_t *v = &e->reserveds[i]->values[j];
            if (v->name) {
                append(b, &ep->reserved_name, &ep->n_reserved_name, dup(b, v->name));
                continue;
            }
            Google__Protobuf__EnumDescriptorProto__EnumReservedRange *r =
                alloc_message(b, &google__protobuf__enum_descriptor_proto__enum_reserved_range__descriptor);
            if (!r)
                return NULL;
            r->has_start = r->has_end = 1;
            r->start = v->start;
            r->end = v->end_is_max ? 2147483647 : v->end; /* inclusive for enums */
            append(b, &ep->reserved_range, &ep->n_reserved_range, r);
        }
    }
    ep->options = build_options(b, &google__protobuf__enum_options__descriptor, &e->options);
    return ep;
}

static ServiceProto *build_service(builder_t *b, const proto_service_t *s)
{
    ServiceProto *sp = alloc_message(b, &google__protobuf__service_descriptor_proto__descriptor);
    if (!sp)
        return NULL;
    sp->name = dup(b, s->name);
    for (size_t i = 0; i < s->n_rpcs && !b->error; i++) {
        const proto_rpc_t *r = s->rpcs[i];
        MethodProto *mp = alloc_message(b, &google__protobuf__method_descriptor_proto__descriptor);
        if (!mp)
            return NULL;
        mp->name = dup(b, r->name);
        const proto_symbol_t *in = resolve_type(b, r->request_type);
        const proto_symbol_t *out = resolve_type(b, r->response_type);
        mp->input_type = in ? dupf(b, ".", in->full_name) : NULL;
        mp->output_type = out ? dupf(b, ".", out->full_name) : NULL;
        mp->options = build_options(b, &google__protobuf__method_options__descriptor, &r->options);
        if (!mp->options && r->has_body) /* `rpc X (A) returns (B) {}` */
            mp->options = alloc_message(b, &google__protobuf__method_options__descriptor);
        mp->has_client_streaming = mp->client_streaming = r->request_streaming != 0;
        mp->has_server_streaming = mp->server_streaming = r->response_streaming != 0;
        append(b, &sp->method, &sp->n_method, mp);
    }
    sp->options = build_options(b, &google__protobuf__service_options__descriptor, &s->options);
    return sp;
}

static void file_imports(builder_t *b, FileProto *fp, const proto_file_t *f)
{
    /* Plain, then public, then weak: the model does not keep their interleaving. */
    for (size_t i = 0; i < f->n_imports; i++)
        append(b, &fp->dependency, &fp->n_dependency, dup(b, f->imports[i]));
    for (size_t i = 0; i < f->n_public_imports; i++) {
        int32_t *idx = arena_alloc(b->arena, (fp->n_public_dependency + 1) * sizeof *idx);
        if (!idx)
            return;
        if (fp->n_public_dependency)
            memcpy(idx, fp->public_dependency, fp->n_public_dependency * sizeof *idx);
        idx[fp->n_public_dependency++] = (int32_t)fp->n_dependency;
        fp->public_dependency = idx;
        append(b, &fp->dependency, &fp->n_dependency, dup(b, f->public_imports[i]));
    }
    for (size_t i = 0; i < f->n_weak_imports; i++) {
        int32_t *idx = arena_alloc(b->arena, (fp->n_weak_dependency + 1) * sizeof *idx);
        if (!idx)
            return;
        if (fp->n_weak_dependency)
            memcpy(idx, fp->weak_dependency, fp->n_weak_dependency * sizeof *idx);
        idx[fp->n_weak_dependency++] = (int32_t)fp->n_dependency;
        fp->weak_dependency = idx;
        append(b, &fp->dependency, &fp->n_dependency, dup(b, f->weak_imports[i]));
    }
}

/* Editions have no field in this descriptor.proto (3.21): field 14 by hand. */
static void file_edition(builder_t *b, FileProto *fp, const proto_file_t *f)
{
    fp->syntax = dup(b, "editions");
    long edition = strtol(f->edition, NULL, 10);
    uint64_t value = edition == 2023 ? 1000 : edition == 2024 ? 1001 : (uint64_t)edition;
    /* Field 14 as a varint: tag byte 0x70, then the value. */
    char bytes[12] = {0x70};
    size_t n = 1;
    do {
        bytes[n++] = (char)((value & 0x7F) | (value > 0x7F ? 0x80 : 0));
        value >>= 7;
    } while (value);
    strbuf_t record = {bytes, n, 0, 0};
    add_unknown_field(b, &fp->base, &record);
}

static FileProto *build_file(builder_t *b, const proto_file_t *f, const char *name)
{
    FileProto *fp = alloc_message(b, &google__protobuf__file_descriptor_proto__descriptor);
    if (!fp)
        return NULL;
    fp->name = dup(b, name);
    if (f->package)
        fp->package = dup(b, f->package);
    file_imports(b, fp, f);
    const char *pkg = f->package ? f->package : "";
    for (size_t i = 0; i < f->n_types && !b->error; i++) {
        const proto_type_t *t = f->types[i];
        if (t->kind == PROTO_TYPE_MESSAGE) {
            char *full =
                *pkg ? arena_printf(b->arena, "%s.%s", pkg, t->message->name) : dup(b, t->message->name);
            proto_scope_enter(&b->scope, t->message->name);
            append(b, &fp->message_type, &fp->n_message_type,
                   full ? build_message(b, t->message, full) : NULL);
            proto_scope_leave(&b->scope);
        } else {
            proto_scope_enter(&b->scope, t->enumeration->name);
            append(b, &fp->enum_type, &fp->n_enum_type, build_enum(b, t->enumeration));
            proto_scope_leave(&b->scope);
        }
    }
    for (size_t i = 0; i < f->n_services && !b->error; i++)
        append(b, &fp->service, &fp->n_service, build_service(b, f->services[i]));
    extend_fields(b, &fp->extension, &fp->n_extension, f->extends, f->n_extends, pkg);
    fp->options = build_options(b, &google__protobuf__file_options__descriptor, &f->options);
    if (f->syntax == PROTO_SYNTAX_PROTO3)
        fp->syntax = dup(b, "proto3");
    else if (f->syntax == PROTO_SYNTAX_EDITION)
        file_edition(b, fp, f);
    return fp;
}

int proto_descriptor_build(const proto_schema_t *schema, const char *name, uint8_t **out, size_t *out_len,
                           char **error)
{
    *error = NULL;
    *out = NULL;
    *out_len = 0;
    const proto_file_t *f = proto_schema_file(schema);
    builder_t b = {
        .tab = proto_schema_symtab(schema),
        .proto3 = file_is_proto3(f),
        .arena = arena_new(),
    };
    b.scope.tab = b.tab;
    b.scope.package = proto_schema_package(schema);
    if (!b.arena || !(b.codec = proto_option_codec_new(b.tab, b.arena))) {
        arena_free(b.arena);
        *error = strdup("out of memory");
        return -1;
    }
    /* Confluent names the file "default" in format=serialized. */
    FileProto *fp = build_file(&b, f, name ? name : "default");
    if (fp && !b.error) {
        size_t n = protobuf_c_message_get_packed_size(&fp->base);
        *out = malloc(n ? n : 1);
        if (*out) {
            *out_len = protobuf_c_message_pack(&fp->base, *out);
        } else {
            proto_error_set(&b.error, "%sout of memory", "");
        }
    }
    proto_scope_free(&b.scope);
    arena_free(b.arena);
    if (b.error || !fp) {
        free(*out);
        *out = NULL;
        *error = b.error ? b.error : strdup("out of memory");
        return -1;
    }
    return 0;
}

char *proto_schema_serialized(const proto_schema_t *schema)
{
    uint8_t *bytes;
    size_t n;
    char *error = NULL;
    if (proto_descriptor_build(schema, NULL, &bytes, &n, &error) != 0) {
        free(error);
        return NULL;
    }
    char *text = proto_base64_encode(bytes, n);
    free(bytes);
    return text;
}
