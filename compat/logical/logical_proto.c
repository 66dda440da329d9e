/*
 * logical_proto: a Protobuf schema as a logical type, as Confluent's ProtoToLogicalTypeConverter
 * (logical-types, type/logical/protobuf) makes it.
 *
 *   1. Confluent's annotations: (confluent.field_meta) and friends, their params
 *   2. Fields: scalars, well-known and Confluent types, enums, messages
 *   3. Repeated fields and maps; oneofs
 *   4. Messages, and the file: which types are named
 *
 * The root is the file's first message. Top-level messages and enums are named types; a nested
 * message is written out where it is used, unless it is recursive or marked logical.named; a
 * type from a schema reference is named. A message field is nullable, a scalar is not unless
 * `optional`; a repeated field or a map has the empty collection as its default (so an added one
 * is no REQUIRED_FIELD_ADDED), a proto3 scalar has no default (its implicit zero is not one).
 */
#include "compat/logical/internal.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat/protobuf/protobuf.h"

#define MAX_TYPE_DEPTH 256

typedef struct pconv {
    logical_conv_t base; /* first */
    const proto_schema_t *schema;
    const proto_symtab_t *tab;
    proto_syntax_t syntax;
    strlist_t field_path;
    strlist_t seen; /* messages being written out (CycleContext.seenSchemas) */
} pconv_t;

#define pfail(c, ...)            logical_conv_fail(&(c)->base, __VA_ARGS__)
#define pnode(c, kind, nullable) logical_conv_node(&(c)->base, kind, nullable)

/* ---- 1. Annotations --------------------------------------------------------------- */

/* The (confluent.<which>) option's value, a message literal, or NULL. */
static const proto_value_t *meta_of(const proto_options_t *options, const char *which)
{
    for (size_t i = 0; i < options->n; i++) {
        const proto_option_t *o = options->items[i];
        if (o->parenthesized && strcmp(o->name, which) == 0 && o->value && o->value->kind == PROTO_VALUE_MAP)
            return o->value;
    }
    return NULL;
}

static const char *entry_text(const proto_value_t *map, const char *key)
{
    for (size_t i = 0; map && i < map->n_entries; i++)
        if (strcmp(map->entries[i].key, key) == 0 && map->entries[i].value &&
            map->entries[i].value->kind == PROTO_VALUE_STRING)
            return map->entries[i].value->text;
    return NULL;
}

/* Meta.params[key]: params is map<string, string>, written as repeated {key: .., value: ..}. */
static const char *param_of(const proto_value_t *meta, const char *key)
{
    const char *found = NULL;
    for (size_t i = 0; meta && i < meta->n_entries; i++) {
        if (strcmp(meta->entries[i].key, "params") != 0 || !meta->entries[i].value)
            continue;
        const proto_value_t *v = meta->entries[i].value;
        size_t n = v->kind == PROTO_VALUE_LIST ? v->n_items : 1;
        for (size_t j = 0; j < n; j++) {
            const proto_value_t *e = v->kind == PROTO_VALUE_LIST ? v->items[j] : v;
            const char *k = entry_text(e, "key");
            if (k && strcmp(k, key) == 0)
                found = entry_text(e, "value"); /* the last entry of a key wins, as in a map */
        }
    }
    return found;
}

static const char *field_param(const proto_field_t *f, const char *key)
{
    return param_of(meta_of(&f->options, "confluent.field_meta"), key);
}

/* Integer.parseInt; 0, or -1 with NumberFormatException's message. */
static int parse_int(pconv_t *c, const char *s, int *out)
{
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < INT_MIN || v > INT_MAX || *s == ' ' || (*s == '+' && s[1] == '-')) {
        pfail(c, "For input string: \"%s\"", s);
        return -1;
    }
    *out = (int)v;
    return 0;
}

/* Boolean.parseBoolean. */
static int parse_bool(const char *s)
{
    return s && strcasecmp(s, "true") == 0;
}

/* ---- 2. Fields ---------------------------------------------------------------------------- */

static const logical_node_t *field_type(pconv_t *c, const proto_symbol_t *owner, const proto_field_t *f,
                                        int in_oneof, int depth);
static const logical_node_t *message_body(pconv_t *c, const proto_symbol_t *msg, int nullable, int depth);

static const logical_node_t *sized(pconv_t *c, logical_kind_t kind, int length, int nullable)
{
    logical_node_t *n = pnode(c, kind, nullable);
    if (n)
        n->length = length == LOGICAL_NO_PARAM ? 1 : length;
    return n;
}

/* createStringType / createBytesType: flink.minLength == flink.maxLength is the fixed form. */
static const logical_node_t *string_like(pconv_t *c, const proto_field_t *f, int bytes, int nullable)
{
    logical_kind_t fixed = bytes ? LOGICAL_BINARY : LOGICAL_CHAR,
                   var = bytes ? LOGICAL_VARBINARY : LOGICAL_VARCHAR;
    if (meta_of(&f->options, "confluent.field_meta")) {
        const char *min_text = field_param(f, "flink.minLength"),
                   *max_text = field_param(f, "flink.maxLength");
        int min = -1, max = LOGICAL_MAX_LENGTH;
        if ((min_text && parse_int(c, min_text, &min) != 0) ||
            (max_text && parse_int(c, max_text, &max) != 0))
            return NULL;
        if (min > 0 && min == max)
            return sized(c, fixed, max, nullable);
        if (max < LOGICAL_MAX_LENGTH)
            return sized(c, var, max, nullable);
    }
    return sized(c, var, LOGICAL_MAX_LENGTH, nullable);
}

static const logical_node_t *temporal(pconv_t *c, logical_kind_t kind, int precision, int nullable)
{
    if (precision < 0 || precision > 9)
        return pfail(c, "%s precision must be in [0, 9], got %d", logical_kind_name(kind), precision);
    logical_node_t *n = pnode(c, kind, nullable);
    if (n)
        n->precision = precision;
    return n;
}

/* flink.precision, 9 when absent. */
static int precision_param(pconv_t *c, const proto_field_t *f, int *out)
{
    const char *p = field_param(f, "flink.precision");
    *out = 9;
    return p ? parse_int(c, p, out) : 0;
}

/* toUnwrappedSchema: the wrapper types are their payload, nullable. */
static const logical_node_t *unwrapped(pconv_t *c, const char *full_name, int *matched)
{
    static const struct {
        const char *name;
        logical_kind_t kind;
    } wrappers[] = {
        {"google.protobuf.DoubleValue", LOGICAL_DOUBLE},   {"google.protobuf.FloatValue", LOGICAL_FLOAT},
        {"google.protobuf.Int64Value", LOGICAL_BIGINT},    {"google.protobuf.UInt64Value", LOGICAL_BIGINT},
        {"google.protobuf.UInt32Value", LOGICAL_BIGINT},   {"google.protobuf.Int32Value", LOGICAL_INT},
        {"google.protobuf.BoolValue", LOGICAL_BOOLEAN},    {"google.protobuf.StringValue", LOGICAL_VARCHAR},
        {"google.protobuf.BytesValue", LOGICAL_VARBINARY}, {"confluent.type.Variant", LOGICAL_VARIANT},
    };
    for (size_t i = 0; i < sizeof wrappers / sizeof *wrappers; i++) {
        if (strcmp(full_name, wrappers[i].name) != 0)
            continue;
        *matched = 1;
        if (wrappers[i].kind == LOGICAL_VARCHAR || wrappers[i].kind == LOGICAL_VARBINARY)
            return sized(c, wrappers[i].kind, LOGICAL_MAX_LENGTH, 1);
        return pnode(c, wrappers[i].kind, 1);
    }
    *matched = 0;
    return NULL;
}

static int is_user_named(const proto_options_t *options, const char *which)
{
    const char *v = param_of(meta_of(options, which), "logical.named");
    return v && strcmp(v, "true") == 0;
}

static const logical_node_t *ref_to(pconv_t *c, const char *name, int nullable)
{
    logical_node_t *r = pnode(c, LOGICAL_NAMED_TYPE_REF, nullable);
    if (r && !(r->ref = arena_strdup(c->base.m->arena, name)))
        return c->base.oom = 1, NULL;
    return r;
}

static const logical_node_t *enum_body(pconv_t *c, int nullable)
{
    return pnode(c, LOGICAL_ENUM, nullable);
}

/* A message-typed, not repeated field (convertNonRepeated, case MESSAGE). */
static const logical_node_t *message_field(pconv_t *c, const proto_field_t *f, const proto_symbol_t *t,
                                           int nullable, int depth)
{
    const char *name = t->full_name;
    if (strcmp(name, "confluent.type.Decimal") == 0) {
        int precision = 10, scale = 0, v;
        const char *p = field_param(f, "precision"), *s = field_param(f, "scale");
        /* A bad number keeps the default (the converter ignores NumberFormatException here). */
        if (p && parse_int(c, p, &v) == 0)
            precision = v;
        if (s && parse_int(c, s, &v) == 0)
            scale = v;
        free(c->base.error);
        c->base.error = NULL;
        logical_node_t *n = pnode(c, LOGICAL_DECIMAL, nullable);
        if (n) {
            n->precision = precision == LOGICAL_NO_PARAM ? 10 : precision;
            n->scale = scale;
        }
        return n;
    }
    if (strcmp(name, "google.type.Date") == 0)
        return pnode(c, LOGICAL_DATE, nullable);
    if (strcmp(name, "google.type.TimeOfDay") == 0) {
        int p;
        return precision_param(c, f, &p) == 0 ? temporal(c, LOGICAL_TIME, p, nullable) : NULL;
    }
    if (strcmp(name, "google.protobuf.Timestamp") == 0) {
        int p;
        if (precision_param(c, f, &p) != 0)
            return NULL;
        const char *t2 = field_param(f, "flink.type");
        int local = meta_of(&f->options, "confluent.field_meta") && t2 && strcmp(t2, "timestamp") == 0;
        return temporal(c, local ? LOGICAL_TIMESTAMP : LOGICAL_TIMESTAMP_LTZ, p, nullable);
    }
    int matched;
    const logical_node_t *w = unwrapped(c, name, &matched);
    if (matched)
        return w;
    if (t->origin == PROTO_ORIGIN_REFERENCE && !logical_named_has(c->base.m, name)) {
        if (logical_named_put(c->base.m, name, NULL) != 0)
            return c->base.oom = 1, NULL;
        const logical_node_t *body = message_body(c, t, 0, 0);
        if (!body || logical_named_put(c->base.m, name, body) != 0)
            return c->base.oom ? NULL : body ? (c->base.oom = 1, NULL) : NULL;
    }
    if (logical_named_has(c->base.m, name))
        return ref_to(c, name, nullable);
    for (size_t i = 0; i < c->seen.n; i++) {
        if (strcmp(c->seen.items[i], name) != 0)
            continue;
        strbuf_t b = {0};
        for (size_t j = 0; j < c->field_path.n; j++) {
            if (j)
                strbuf_putc(&b, '.');
            strbuf_puts(&b, c->field_path.items[j]);
        }
        char *joined = strbuf_take(&b);
        if (!joined)
            return c->base.oom = 1, NULL;
        pfail(c, "Cyclic schemas are not supported.\nFound a cycle in the field: %s", joined);
        free(joined);
        return NULL;
    }
    if (strlist_push(&c->seen, name) != 0)
        return c->base.oom = 1, NULL;
    const logical_node_t *body;
    if (parse_bool(field_param(f, "flink.wrapped"))) {
        /* convertWrapperPayload: the wrapper's `value` field. */
        const proto_message_t *m = t->message;
        const proto_field_t *value = NULL;
        for (size_t i = 0; i < m->n_fields; i++)
            if (strcmp(m->fields[i]->name, "value") == 0)
                value = m->fields[i];
        if (!value)
            body = pfail(c, "flink.wrapped wrapper missing 'value' payload: %s", name);
        else if ((body = field_type(c, t, value, 0, depth)))
            ((logical_node_t *)body)->nullable = 1;
    } else {
        body = message_body(c, t, nullable, depth);
    }
    free(c->seen.items[--c->seen.n]);
    return body;
}

static const char *const int_types[] = {"int32", "sint32", "sfixed32", NULL};
static const char *const long_types[] = {"uint32", "fixed32", "int64",    "uint64",
                                         "sint64", "fixed64", "sfixed64", NULL};

static int one_of(const char *s, const char *const *names)
{
    for (; *names; names++)
        if (strcmp(s, *names) == 0)
            return 1;
    return 0;
}

/* convertNonRepeated for a type named as written (a field's, a map key's or value's). */
static const logical_node_t *single(pconv_t *c, const proto_symbol_t *owner, const proto_field_t *f,
                                    const char *type, int nullable, int depth)
{
    if (one_of(type, int_types)) {
        const char *connect = field_param(f, "connect.type");
        if (connect && strcmp(connect, "int8") == 0)
            return pnode(c, LOGICAL_TINYINT, nullable);
        if (connect && strcmp(connect, "int16") == 0)
            return pnode(c, LOGICAL_SMALLINT, nullable);
        return pnode(c, LOGICAL_INT, nullable);
    }
    if (one_of(type, long_types))
        return pnode(c, LOGICAL_BIGINT, nullable);
    if (strcmp(type, "float") == 0)
        return pnode(c, LOGICAL_FLOAT, nullable);
    if (strcmp(type, "double") == 0)
        return pnode(c, LOGICAL_DOUBLE, nullable);
    if (strcmp(type, "bool") == 0)
        return pnode(c, LOGICAL_BOOLEAN, nullable);
    if (strcmp(type, "string") == 0 || strcmp(type, "bytes") == 0)
        return string_like(c, f, type[0] == 'b', nullable);
    const proto_symbol_t *t = proto_message_resolve(c->tab, owner, type);
    if (!t)
        return pfail(c, "Unknown Protobuf schema type %s", type);
    if (t->kind == PROTO_SYMBOL_ENUM) {
        if (t->origin == PROTO_ORIGIN_REFERENCE && !logical_named_has(c->base.m, t->full_name)) {
            const logical_node_t *body = enum_body(c, 0);
            if (!body || logical_named_put(c->base.m, t->full_name, body) != 0)
                return c->base.oom = 1, NULL;
        }
        if (logical_named_has(c->base.m, t->full_name))
            return ref_to(c, t->full_name, nullable);
        return enum_body(c, nullable);
    }
    return message_field(c, f, t, nullable, depth);
}

/* The resolved message of a field's type, or NULL for a scalar or an enum. */
static const proto_symbol_t *message_of(pconv_t *c, const proto_symbol_t *owner, const char *type)
{
    if (proto_is_scalar(type))
        return NULL;
    const proto_symbol_t *t = proto_message_resolve(c->tab, owner, type);
    return t && t->kind == PROTO_SYMBOL_MESSAGE ? t : NULL;
}

/* hasOptionalKeyword: proto3 `optional`, or a proto2 optional outside a oneof. */
static int optional_keyword(const pconv_t *c, const proto_field_t *f, int in_oneof)
{
    if (f->label != PROTO_LABEL_OPTIONAL)
        return 0;
    if (c->syntax == PROTO_SYNTAX_PROTO3)
        return 1;
    return (c->syntax == PROTO_SYNTAX_PROTO2 || c->syntax == PROTO_SYNTAX_NONE) && !in_oneof;
}

/* ---- 3. Repeated fields, maps, oneofs --------------------------------------------------------- */

/* isMapEntryShape for a declared message: a name ending in Entry, fields key and value. */
static int entry_shaped(const proto_message_t *m)
{
    size_t len = strlen(m->name);
    if (len < 5 || strcmp(m->name + len - 5, "Entry") != 0 || m->n_fields + m->n_oneofs != 2)
        return 0;
    int key = 0, value = 0;
    for (size_t i = 0; i < m->n_fields; i++) {
        key |= strcmp(m->fields[i]->name, "key") == 0;
        value |= strcmp(m->fields[i]->name, "value") == 0;
    }
    for (size_t i = 0; i < m->n_oneofs; i++)
        key |= strcmp(m->oneofs[i]->name, "key") == 0;
    return key && value;
}

static const logical_node_t *map_like(pconv_t *c, const proto_field_t *f, const logical_node_t *key,
                                      const logical_node_t *value, int nullable)
{
    const char *t = field_param(f, "flink.type");
    return logical_conv_map_like(&c->base, nullable, key, value, t && strcmp(t, "multiset") == 0);
}

/* A map field's key and value, as the fields of protoc's synthesized MapEntry (proto2 files make
 * them optional, hence nullable; a message value is nullable anyway). */
static const logical_node_t *map_field(pconv_t *c, const proto_symbol_t *owner, const proto_field_t *f,
                                       int nullable, int depth)
{
    if (depth > MAX_TYPE_DEPTH)
        return pfail(c, "Schema type nesting depth exceeds the maximum of %d", MAX_TYPE_DEPTH);
    int proto2 = c->syntax == PROTO_SYNTAX_PROTO2 || c->syntax == PROTO_SYNTAX_NONE;
    proto_field_t key_field = {.label = PROTO_LABEL_OPTIONAL, .type = f->map_key, .name = "key"};
    proto_field_t value_field = {.label = PROTO_LABEL_OPTIONAL, .type = f->map_value, .name = "value"};
    const logical_node_t *key = single(c, owner, &key_field, f->map_key, proto2, depth + 1);
    if (!key)
        return NULL;
    int value_nullable = proto2 || message_of(c, owner, f->map_value) != NULL;
    const logical_node_t *value = single(c, owner, &value_field, f->map_value, value_nullable, depth + 1);
    return value ? map_like(c, f, key, value, nullable) : NULL;
}

/* fieldToLogicalType. */
static const logical_node_t *field_type(pconv_t *c, const proto_symbol_t *owner, const proto_field_t *f,
                                        int in_oneof, int depth)
{
    int repeated = f->label == PROTO_LABEL_REPEATED || f->map_key;
    const proto_symbol_t *msg = f->map_key ? NULL : message_of(c, owner, f->type);
    const char *not_null = field_param(f, "flink.notNull");
    int nullable_type = not_null ? !parse_bool(not_null) : (msg || f->map_key) && !repeated;
    if (f->map_key)
        return map_field(c, owner, f, nullable_type, depth);
    if (!repeated)
        return single(c, owner, f, f->type, optional_keyword(c, f, in_oneof) || nullable_type, depth);
    if (msg && entry_shaped(msg->message)) {
        /* toMapSchema: the entry message's key and value fields (a key may be a oneof). */
        const logical_node_t *entry = message_body(c, msg, 0, depth);
        if (!entry)
            return NULL;
        const logical_node_t *key = NULL, *value = NULL;
        for (size_t i = 0; i < entry->n; i++) {
            if (strcmp(entry->members[i].name, "key") == 0)
                key = entry->members[i].type;
            else if (strcmp(entry->members[i].name, "value") == 0)
                value = entry->members[i].type;
        }
        return map_like(c, f, key, value, nullable_type);
    }
    const logical_node_t *element;
    if (parse_bool(field_param(f, "flink.wrapped")) && msg) {
        const proto_field_t *value = NULL;
        for (size_t i = 0; i < msg->message->n_fields; i++)
            if (strcmp(msg->message->fields[i]->name, "value") == 0)
                value = msg->message->fields[i];
        element = value ? field_type(c, msg, value, 0, depth)
                        : pfail(c, "flink.wrapped wrapper missing 'value' payload: %s", msg->full_name);
    } else {
        element = single(c, owner, f, f->type, optional_keyword(c, f, in_oneof), depth);
    }
    if (!element)
        return NULL;
    logical_node_t *a = pnode(c, LOGICAL_ARRAY, nullable_type);
    if (a)
        a->element = element;
    return a;
}

/* ---- 4. Messages and the file -------------------------------------------------------------------- */

static int set_member(pconv_t *c, logical_member_t *m, const char *name, const logical_node_t *type)
{
    m->type = type;
    if (!(m->name = arena_strdup(c->base.m->arena, name)))
        return c->base.oom = 1, -1;
    return 0;
}

/* toLogicalTypeNested: the fields outside real oneofs in declaration order, then each oneof as a
 * nullable union of nullable branches. */
static const logical_node_t *message_body(pconv_t *c, const proto_symbol_t *sym, int nullable, int depth)
{
    if (depth > MAX_TYPE_DEPTH)
        return pfail(c, "Schema type nesting depth exceeds the maximum of %d", MAX_TYPE_DEPTH);
    const proto_message_t *m = sym->message;
    if (m->n_groups)
        return pfail(c, "Unknown Protobuf schema type GROUP");
    size_t nrefs;
    proto_field_ref_t *refs = proto_message_fields(m, &nrefs);
    if (!refs)
        return c->base.oom = 1, NULL;
    logical_node_t *st = pnode(c, LOGICAL_STRUCT, nullable);
    size_t total = m->n_fields + m->n_oneofs;
    if (st && total && !(st->members = arena_alloc(c->base.m->arena, total * sizeof *st->members)))
        c->base.oom = 1;
    size_t k = 0;
    for (size_t i = 0; st && !c->base.oom && i < nrefs; i++) {
        const proto_field_t *f = refs[i].field;
        if (refs[i].oneof >= 0)
            continue;
        if (strlist_push(&c->field_path, f->name) != 0) {
            c->base.oom = 1;
            break;
        }
        const logical_node_t *t = field_type(c, sym, f, 0, depth + 1);
        free(c->field_path.items[--c->field_path.n]);
        if (!t || set_member(c, &st->members[k], f->name, t) != 0) {
            st = NULL;
            break;
        }
        /* A declared default (logical.default, a proto2 default) or the empty collection a
         * repeated field or map reads as when absent. */
        logical_member_t *mb = &st->members[k++];
        mb->has_default = field_param(f, "logical.default") != NULL || f->default_value != NULL ||
                          (!t->nullable && (t->kind == LOGICAL_MAP || t->kind == LOGICAL_MULTISET ||
                                            t->kind == LOGICAL_ARRAY));
    }
    for (size_t o = 0; st && !c->base.oom && o < m->n_oneofs; o++) {
        const proto_oneof_t *one = m->oneofs[o];
        logical_node_t *u = pnode(c, LOGICAL_UNION, 1);
        if (!u || (one->n_fields &&
                   !(u->members = arena_alloc(c->base.m->arena, one->n_fields * sizeof *u->members)))) {
            c->base.oom = 1;
            break;
        }
        for (size_t i = 0; i < one->n_fields; i++) {
            const proto_field_t *f = one->fields[i];
            if (strlist_push(&c->field_path, f->name) != 0) {
                c->base.oom = 1;
                break;
            }
            const logical_node_t *t = field_type(c, sym, f, 1, depth + 2);
            free(c->field_path.items[--c->field_path.n]);
            if (!t || set_member(c, &u->members[i], f->name, t) != 0)
                break;
            ((logical_node_t *)t)->nullable = 1; /* setNullable(true): every branch is optional */
            u->n = i + 1;
        }
        if (c->base.error || c->base.oom || u->n != one->n_fields ||
            set_member(c, &st->members[k++], one->name, u) != 0) {
            st = NULL;
            break;
        }
    }
    free(refs);
    if (!st || c->base.error || c->base.oom)
        return NULL;
    st->n = k;
    return st;
}

/* isCyclicMessage: start reaches itself through message-typed fields. */
static int reaches_itself(pconv_t *c, const proto_symbol_t *start)
{
    const proto_symbol_t **stack = NULL;
    size_t n = 0, cap = 0;
    hmap_t seen = {0};
    int found = 0;
#define PUSH(s)                                                                                              \
    do {                                                                                                     \
        if (n == cap) {                                                                                      \
            cap = cap ? 2 * cap : 16;                                                                        \
            const proto_symbol_t **g = realloc(stack, cap * sizeof *g);                                      \
            if (!g) {                                                                                        \
                c->base.oom = 1;                                                                             \
                goto out;                                                                                    \
            }                                                                                                \
            stack = g;                                                                                       \
        }                                                                                                    \
        stack[n++] = (s);                                                                                    \
    } while (0)
    const proto_symbol_t *cur = start;
    int first = 1;
    while (first || n) {
        if (!first) {
            cur = stack[--n];
            if (strcmp(cur->full_name, start->full_name) == 0) {
                found = 1;
                break;
            }
            if (hmap_gets(&seen, cur->full_name))
                continue;
            if (hmap_put_try(&seen, cur->full_name, strlen(cur->full_name), (void *)1, NULL) != 0) {
                c->base.oom = 1;
                break;
            }
        }
        first = 0;
        size_t nrefs;
        proto_field_ref_t *refs = proto_message_fields(cur->message, &nrefs);
        if (!refs) {
            c->base.oom = 1;
            break;
        }
        for (size_t i = 0; i < nrefs; i++) {
            const proto_field_t *f = refs[i].field;
            const proto_symbol_t *t = message_of(c, cur, f->map_key ? f->map_value : f->type);
            if (t)
                PUSH(t);
        }
        free(refs);
    }
out:
#undef PUSH
    free(stack);
    hmap_clear(&seen);
    return found;
}

/* preRegisterNestedTypes and buildNestedBodies: nested messages that are recursive or marked
 * logical.named, and nested enums marked so, become named types. */
static int nested_named(pconv_t *c, const proto_symbol_t *sym, int build)
{
    const proto_message_t *m = sym->message;
    for (size_t i = 0; i < m->n_types && !c->base.error && !c->base.oom; i++) {
        const proto_type_t *t = m->types[i];
        const char *name = t->kind == PROTO_TYPE_MESSAGE ? t->message->name : t->enumeration->name;
        char *full = arena_printf(c->base.m->arena, "%s.%s", sym->full_name, name);
        const proto_symbol_t *nested = full ? proto_symtab_get(c->tab, full, 0) : NULL;
        if (!full)
            return c->base.oom = 1, -1;
        if (!nested)
            continue;
        if (t->kind == PROTO_TYPE_ENUM) {
            if (is_user_named(&t->enumeration->options, "confluent.enum_meta")) {
                const logical_node_t *e = enum_body(c, 0);
                if (!e || logical_named_put(c->base.m, full, e) != 0)
                    return c->base.oom = 1, -1;
            }
            continue;
        }
        if (nested->is_map_entry)
            continue;
        if (is_user_named(&t->message->options, "confluent.message_meta") || reaches_itself(c, nested)) {
            if (!build) {
                if (logical_named_put(c->base.m, full, NULL) != 0)
                    return c->base.oom = 1, -1;
            } else {
                const logical_node_t *body = message_body(c, nested, 0, 0);
                if (!body || logical_named_put(c->base.m, full, body) != 0)
                    return c->base.oom ? -1 : body ? (c->base.oom = 1, -1) : -1;
            }
        }
        if (nested_named(c, nested, build) != 0)
            return -1;
    }
    return c->base.error || c->base.oom ? -1 : 0;
}

static const char *top_name(pconv_t *c, const proto_type_t *t)
{
    const char *pkg = proto_schema_package(c->schema);
    const char *name = t->kind == PROTO_TYPE_MESSAGE ? t->message->name : t->enumeration->name;
    return pkg && *pkg ? arena_printf(c->base.m->arena, "%s.%s", pkg, name)
                       : arena_strdup(c->base.m->arena, name);
}

static int convert_file(pconv_t *c)
{
    const proto_file_t *file = proto_schema_file(c->schema);
    const proto_symbol_t *root = proto_schema_message_at(c->schema, NULL, 0);
    if (!root)
        return pfail(c, "ProtobufSchema has no root descriptor"), -1;
    int matched;
    const logical_node_t *w = unwrapped(c, root->full_name, &matched);
    if (matched) {
        c->base.m->root = w;
        return w ? 0 : -1;
    }
    /* Placeholders first: every top-level type is named, and may be referred to before its body. */
    for (size_t i = 0; i < file->n_types; i++) {
        const char *name = top_name(c, file->types[i]);
        if (!name)
            return c->base.oom = 1, -1;
        const logical_node_t *placeholder = file->types[i]->kind == PROTO_TYPE_ENUM ? enum_body(c, 0) : NULL;
        if (logical_named_put(c->base.m, name, placeholder) != 0)
            return c->base.oom = 1, -1;
    }
    for (size_t i = 0; i < file->n_types; i++) {
        if (file->types[i]->kind != PROTO_TYPE_MESSAGE)
            continue;
        const proto_symbol_t *s = proto_symtab_get(c->tab, top_name(c, file->types[i]), 0);
        if (s && nested_named(c, s, 0) != 0)
            return -1;
    }
    const logical_node_t *root_body = message_body(c, root, 0, 0);
    if (!root_body || logical_named_put(c->base.m, root->full_name, root_body) != 0)
        return c->base.error ? -1 : (c->base.oom = 1, -1);
    for (size_t i = 0; i < file->n_types; i++) {
        if (file->types[i]->kind != PROTO_TYPE_MESSAGE)
            continue;
        const proto_symbol_t *s = proto_symtab_get(c->tab, top_name(c, file->types[i]), 0);
        if (!s || s == root)
            continue;
        const logical_node_t *body = message_body(c, s, 0, 1);
        if (!body || logical_named_put(c->base.m, s->full_name, body) != 0)
            return c->base.error ? -1 : (c->base.oom = 1, -1);
    }
    for (size_t i = 0; i < file->n_types; i++) {
        if (file->types[i]->kind != PROTO_TYPE_MESSAGE)
            continue;
        const proto_symbol_t *s = proto_symtab_get(c->tab, top_name(c, file->types[i]), 0);
        if (s && nested_named(c, s, 1) != 0)
            return -1;
    }
    /* The root is written out unless it is recursive or has named types nested in it. */
    int cyclic = logical_is_cyclic(c->base.m, root->full_name);
    if (cyclic < 0)
        return c->base.oom = 1, -1;
    int nested = 0;
    size_t plen = strlen(root->full_name);
    for (size_t i = 0; i < c->base.m->named.cap && !nested; i++)
        if (hmap_live(&c->base.m->named, i) &&
            strncmp(c->base.m->named.slots[i].key, root->full_name, plen) == 0 &&
            c->base.m->named.slots[i].key[plen] == '.')
            nested = 1;
    if (cyclic || nested) {
        c->base.m->root = ref_to(c, root->full_name, 0);
        return c->base.m->root ? 0 : -1;
    }
    c->base.m->root = root_body;
    hmap_del(&c->base.m->named, root->full_name, plen);
    return 0;
}

int logical_from_protobuf(const struct proto_schema *schema, logical_model_t **out, char **error)
{
    *out = NULL;
    *error = NULL;
    const proto_file_t *file = proto_schema_file(schema);
    /* A file of public imports only has no message of its own to convert here. */
    if (file->n_types == 0 && file->n_public_imports > 0)
        return 2;
    pconv_t c = {.base.m = logical_model_new(),
                 .schema = schema,
                 .tab = proto_schema_symtab(schema),
                 .syntax = file->syntax};
    if (!c.base.m)
        return -1;
    int rc = convert_file(&c);
    strlist_clear(&c.field_path);
    strlist_clear(&c.seen);
    return logical_conv_finish(&c.base, rc != 0, out, error);
}
