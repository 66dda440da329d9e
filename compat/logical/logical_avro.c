/*
 * logical_avro: an Avro schema as a logical type, as Confluent's AvroToLogicalTypeConverter
 * (logical-types, type/logical/avro) makes it.
 *
 *   1. Reading properties as Java reads them (getProp, getObjectProp, casts)
 *   2. Primitives: numbers, strings, bytes, the temporal logical types
 *   3. Named types, containers, unions
 *   4. Defaults (AvroDefaultValueConverter: the conversions that throw)
 *   5. Entry point
 *
 * The converter reads the "logicalType" property as written, not Avro's validated logical type:
 * {"type":"bytes","logicalType":"decimal","precision":5,"scale":7} is no decimal to Avro (the
 * scale exceeds the precision), but it is DECIMAL(5, 7) here, which validity then refuses.
 * Every record and enum not marked "logical.anonymous": "true" becomes a named type and a
 * reference to it, so a recursive record is a cycle of references (ValidityChecker's CYCLIC_TYPE).
 */
#include "compat/logical/internal.h"

#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "compat/avro/avro.h"

/* ToLogicalContext.MAX_TYPE_DEPTH: the longest index path (fields, elements, map values,
 * union members) the converter descends. */
#define MAX_TYPE_DEPTH 256

typedef struct conv {
    logical_conv_t base; /* first */
    /* The confluent:union hints of the field being converted (its branches' names); NULL when none. */
    const json_t *union_hints;
    strlist_t field_path;       /* CycleContext.fieldsPath, outermost first */
    const avro_node_t **active; /* anonymous records being converted (CycleContext.seenSchemas) */
    size_t n_active, cap_active;
} conv_t;

static const logical_node_t *convert(conv_t *c, const avro_node_t *a, int nullable, int depth);

#define fail(c, ...)            logical_conv_fail(&(c)->base, __VA_ARGS__)
#define node(c, kind, nullable) logical_conv_node(&(c)->base, kind, nullable)

/* ---- 1. Reading properties ------------------------------------------------------ */

/* JsonProperties.getProp: text only. */
static const char *prop_text(const avro_node_t *a, const char *key)
{
    return json_string_value(avro_node_prop(a, key));
}

/* getObjectProp(key) instanceof Number. */
static int is_number(const json_t *v)
{
    return json_is_integer(v) || json_is_real(v);
}

/* Number.intValue(): a long keeps its low 32 bits, a double converts as Java's (int) does. */
static int java_int_value(const json_t *v)
{
    if (json_is_integer(v))
        return (int32_t)(uint32_t)(uint64_t)json_integer_value(v);
    double d = json_real_value(v);
    if (isnan(d))
        return 0;
    if (d >= 2147483647.0)
        return INT32_MAX;
    if (d <= -2147483648.0)
        return INT32_MIN;
    return (int)d;
}

/* The class Avro's JacksonUtils.toObject gives a property value. */
static const char *java_class(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_STRING: return "java.lang.String";
    case JSON_REAL: return "java.lang.Double";
    case JSON_TRUE:
    case JSON_FALSE: return "java.lang.Boolean";
    case JSON_INTEGER: return "java.lang.Long";
    case JSON_ARRAY: return "java.util.ArrayList";
    case JSON_OBJECT: return "java.util.LinkedHashMap";
    default: return NULL;
    }
}

/* An (Integer) cast of a property: 0 and *out, or -1 with the ClassCastException's message. */
static int integer_cast(conv_t *c, const json_t *v, int *out)
{
    if (json_is_integer(v) && json_integer_value(v) >= INT32_MIN && json_integer_value(v) <= INT32_MAX) {
        *out = (int)json_integer_value(v);
        return 0;
    }
    const char *cls = java_class(v);
    if (cls)
        fail(c,
             "class %s cannot be cast to class java.lang.Integer (%s and java.lang.Integer are in "
             "module java.base of loader 'bootstrap')",
             cls, cls);
    else
        fail(c, "class org.apache.avro.JsonProperties$Null cannot be cast to class java.lang.Integer "
                "(org.apache.avro.JsonProperties$Null is in unnamed module of loader 'app'; "
                "java.lang.Integer is in module java.base of loader 'bootstrap')");
    return -1;
}

/* Optional.ofNullable(getObjectProp(key)).map(i -> (Integer) i).orElse(otherwise). */
static int integer_prop(conv_t *c, const avro_node_t *a, const char *key, int otherwise, int *out)
{
    const json_t *v = avro_node_prop(a, key);
    if (!v) {
        *out = otherwise;
        return 0;
    }
    return integer_cast(c, v, out);
}

/* ---- 2. Primitives ------------------------------------------------------------------ */

/* Schema.createTime / createTimestamp / createTimestampLtz: NO_PARAM takes the default; the
 * precision must then be in [0, 9]. */
static const logical_node_t *temporal(conv_t *c, logical_kind_t kind, int precision, int nullable)
{
    if (precision == LOGICAL_NO_PARAM)
        precision = kind == LOGICAL_TIME ? 0 : 6;
    if (precision < 0 || precision > 9)
        return fail(c, "%s precision must be in [0, 9], got %d", logical_kind_name(kind), precision);
    logical_node_t *n = node(c, kind, nullable);
    if (n)
        n->precision = precision;
    return n;
}

/* resolvePrecision: flink.precision may narrow the logical type's precision, never widen it. */
static int resolve_precision(conv_t *c, const avro_node_t *a, const char *logical, int inherent, int *out)
{
    const json_t *v = avro_node_prop(a, "flink.precision");
    if (!is_number(v)) {
        *out = inherent;
        return 0;
    }
    int p = java_int_value(v);
    if (p > inherent) {
        fail(c, "flink.precision %d exceeds the precision carried by Avro logical type '%s' (%d)", p, logical,
             inherent);
        return -1;
    }
    *out = p;
    return 0;
}

/* annotatedPrecision(...).orElse(otherwise): the carriers that may widen (time-micros, nanos). */
static int annotated_precision(const avro_node_t *a, int otherwise)
{
    const json_t *v = avro_node_prop(a, "flink.precision");
    return is_number(v) ? java_int_value(v) : otherwise;
}

static const logical_node_t *simple(conv_t *c, logical_kind_t kind, int nullable)
{
    return node(c, kind, nullable);
}

static const logical_node_t *sized(conv_t *c, logical_kind_t kind, int length, int nullable)
{
    logical_node_t *n = node(c, kind, nullable);
    if (n)
        n->length = length == LOGICAL_NO_PARAM ? 1 : length; /* Schema.DEFAULT_LENGTH */
    return n;
}

static const logical_node_t *convert_int(conv_t *c, const avro_node_t *a, int nullable)
{
    const char *connect = prop_text(a, "connect.type");
    const char *logical = prop_text(a, "logicalType");
    if (!connect && !logical)
        return simple(c, LOGICAL_INT, nullable);
    if (logical) {
        if (strcasecmp(logical, "date") == 0)
            return simple(c, LOGICAL_DATE, nullable);
        if (strcasecmp(logical, "time-millis") == 0) {
            int p;
            if (resolve_precision(c, a, "time-millis", 3, &p) != 0)
                return NULL;
            return temporal(c, LOGICAL_TIME, p, nullable);
        }
        return simple(c, LOGICAL_INT, nullable);
    }
    if (strcasecmp(connect, "int8") == 0)
        return simple(c, LOGICAL_TINYINT, nullable);
    if (strcasecmp(connect, "int16") == 0)
        return simple(c, LOGICAL_SMALLINT, nullable);
    return fail(c, "Connect type annotation for Avro int field is null");
}

static const logical_node_t *convert_long(conv_t *c, const avro_node_t *a, int nullable)
{
    const char *logical = prop_text(a, "logicalType");
    static const struct {
        const char *name;
        logical_kind_t kind;
        int inherent;
        int may_widen; /* the widest carrier of its kind: annotatedPrecision, unguarded */
    } carriers[] = {
        {"time-micros", LOGICAL_TIME, 6, 1},
        {"timestamp-millis", LOGICAL_TIMESTAMP_LTZ, 3, 0},
        {"timestamp-micros", LOGICAL_TIMESTAMP_LTZ, 6, 0},
        {"timestamp-nanos", LOGICAL_TIMESTAMP_LTZ, 9, 1},
        {"local-timestamp-millis", LOGICAL_TIMESTAMP, 3, 0},
        {"local-timestamp-micros", LOGICAL_TIMESTAMP, 6, 0},
        {"local-timestamp-nanos", LOGICAL_TIMESTAMP, 9, 1},
    };
    for (size_t i = 0; logical && i < sizeof carriers / sizeof *carriers; i++) {
        if (strcasecmp(logical, carriers[i].name) != 0)
            continue;
        int p;
        if (carriers[i].may_widen)
            p = annotated_precision(a, carriers[i].inherent);
        else if (resolve_precision(c, a, logical, carriers[i].inherent, &p) != 0)
            return NULL;
        return temporal(c, carriers[i].kind, p, nullable);
    }
    return simple(c, LOGICAL_BIGINT, nullable);
}

static const logical_node_t *convert_bytes(conv_t *c, const avro_node_t *a, int nullable)
{
    const char *logical = prop_text(a, "logicalType");
    if (logical && strcasecmp(logical, "decimal") == 0) {
        const json_t *scale = avro_node_prop(a, "scale");
        const json_t *precision = avro_node_prop(a, "precision");
        if (precision && !is_number(precision))
            return fail(c, "precision property must be a JSON Integer.");
        logical_node_t *n = node(c, LOGICAL_DECIMAL, nullable);
        if (n) {
            n->precision = precision ? java_int_value(precision) : 10;
            n->scale = is_number(scale) ? java_int_value(scale) : 0;
            if (n->precision == LOGICAL_NO_PARAM) /* Schema.createDecimal */
                n->precision = 10;
        }
        return n;
    }
    if (avro_node_kind(a) == AVRO_KIND_FIXED)
        return sized(c, LOGICAL_BINARY, (int)avro_node_size(a), nullable);
    int max;
    if (integer_prop(c, a, "flink.maxLength", LOGICAL_MAX_LENGTH, &max) != 0)
        return NULL;
    return sized(c, LOGICAL_VARBINARY, max, nullable);
}

static const logical_node_t *convert_string(conv_t *c, const avro_node_t *a, int nullable)
{
    int max;
    if (integer_prop(c, a, "flink.maxLength", LOGICAL_MAX_LENGTH, &max) != 0)
        return NULL;
    const json_t *min = avro_node_prop(a, "flink.minLength");
    int min_value;
    if (min) {
        if (integer_cast(c, min, &min_value) != 0)
            return NULL;
        if (min_value == max)
            return sized(c, LOGICAL_CHAR, min_value, nullable);
    }
    return sized(c, LOGICAL_VARCHAR, max, nullable);
}

/* ---- 3. Named types, containers, unions --------------------------------------------- */

static int is_anonymous(const avro_node_t *a)
{
    const char *v = prop_text(a, "logical.anonymous");
    return v && strcmp(v, "true") == 0;
}

/* Schema.getName(): a named type's simple name, else the type's own name. */
static const char *avro_simple_name(const avro_node_t *a)
{
    static const char *const names[] = {
        [AVRO_KIND_NULL] = "null",   [AVRO_KIND_BOOLEAN] = "boolean", [AVRO_KIND_INT] = "int",
        [AVRO_KIND_LONG] = "long",   [AVRO_KIND_FLOAT] = "float",     [AVRO_KIND_DOUBLE] = "double",
        [AVRO_KIND_BYTES] = "bytes", [AVRO_KIND_STRING] = "string",   [AVRO_KIND_ARRAY] = "array",
        [AVRO_KIND_MAP] = "map",     [AVRO_KIND_UNION] = "union",
    };
    const char *full = avro_node_fullname(a);
    if (full) {
        const char *dot = strrchr(full, '.');
        return dot ? dot + 1 : full;
    }
    avro_kind_t k = avro_node_kind(a);
    return k < sizeof names / sizeof *names && names[k] ? names[k] : "";
}

static const char *avro_full_name(const avro_node_t *a)
{
    const char *full = avro_node_fullname(a);
    return full ? full : avro_simple_name(a);
}

/* isVariantRecord, structurally: confluent.type.Variant with two bytes fields metadata and value. */
static int is_variant(const avro_node_t *a)
{
    const char *full = avro_node_fullname(a);
    if (!full || strcmp(full, "confluent.type.Variant") != 0 || avro_node_size(a) != 2)
        return 0;
    long md = avro_field_index(a, "metadata"), v = avro_field_index(a, "value");
    return md >= 0 && v >= 0 && avro_node_kind(avro_field_type(a, (size_t)md)) == AVRO_KIND_BYTES &&
           avro_node_kind(avro_field_type(a, (size_t)v)) == AVRO_KIND_BYTES;
}

static int check_default(conv_t *c, const logical_node_t *type, const json_t *v);

/* The fields of a record: convertRecord, and the inline form of an anonymous record. */
static logical_node_t *convert_fields(conv_t *c, const avro_node_t *a, int nullable, int depth)
{
    size_t nf = avro_node_size(a);
    logical_node_t *st = node(c, LOGICAL_STRUCT, nullable);
    if (!st)
        return NULL;
    st->members = nf ? arena_alloc(c->base.m->arena, nf * sizeof *st->members) : NULL;
    if (nf && !st->members)
        return c->base.oom = 1, NULL;
    for (size_t i = 0; i < nf; i++) {
        /* The model outlives the Avro one: its names are copies. */
        const char *name = arena_strdup(c->base.m->arena, avro_field_name(a, i));
        if (!name || strlist_push(&c->field_path, name) != 0)
            return c->base.oom = 1, NULL;
        const json_t *saved = c->union_hints;
        /* extractUnionMetadata(field): this field's hints replace the outer ones, even when absent. */
        c->union_hints = avro_field_prop(a, i, "confluent:union");
        const logical_node_t *t = convert(c, avro_field_type(a, i), 0, depth + 1);
        c->union_hints = saved;
        free(c->field_path.items[--c->field_path.n]);
        if (!t)
            return NULL;
        const json_t *def = avro_field_default(a, i);
        st->members[i].name = name;
        st->members[i].type = t;
        st->members[i].has_default = def != NULL;
        st->members[i].default_is_null = def && json_is_null(def);
        if (def && !json_is_null(def) && check_default(c, t, def) != 0)
            return NULL;
    }
    st->n = nf;
    return st;
}

static const logical_node_t *ref_to(conv_t *c, const char *name, int nullable)
{
    logical_node_t *r = node(c, LOGICAL_NAMED_TYPE_REF, nullable);
    if (r && !(r->ref = arena_strdup(c->base.m->arena, name)))
        return c->base.oom = 1, NULL;
    return r;
}

static const logical_node_t *convert_record(conv_t *c, const avro_node_t *a, int nullable, int depth)
{
    if (is_variant(a))
        return simple(c, LOGICAL_VARIANT, nullable);
    if (!is_anonymous(a)) {
        const char *name = avro_node_fullname(a);
        if (!logical_named_has(c->base.m, name)) {
            /* A placeholder first, so a reference back to the record from inside resolves to a
             * reference instead of converting it again. */
            if (logical_named_put(c->base.m, name, NULL) != 0)
                return c->base.oom = 1, NULL;
            const logical_node_t *body = convert_fields(c, a, 0, depth);
            if (!body)
                return NULL;
            if (logical_named_put(c->base.m, name, body) != 0)
                return c->base.oom = 1, NULL;
        }
        return ref_to(c, name, nullable);
    }
    for (size_t i = 0; i < c->n_active; i++) {
        if (c->active[i] != a)
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
        fail(c, "Cyclic schemas are not supported.\nFound a cycle in the field: %s", joined);
        free(joined);
        return NULL;
    }
    if (c->n_active == c->cap_active) {
        size_t cap = c->cap_active ? 2 * c->cap_active : 8;
        const avro_node_t **grown = realloc(c->active, cap * sizeof *grown);
        if (!grown)
            return c->base.oom = 1, NULL;
        c->active = grown;
        c->cap_active = cap;
    }
    c->active[c->n_active++] = a;
    const logical_node_t *st = convert_fields(c, a, nullable, depth);
    c->n_active--;
    return st;
}

static const logical_node_t *convert_enum(conv_t *c, const avro_node_t *a, int nullable)
{
    if (is_anonymous(a))
        return simple(c, LOGICAL_ENUM, nullable);
    const char *name = avro_node_fullname(a);
    if (!logical_named_has(c->base.m, name)) {
        const logical_node_t *body = simple(c, LOGICAL_ENUM, 0);
        if (!body || logical_named_put(c->base.m, name, body) != 0)
            return c->base.oom = 1, NULL;
    }
    return ref_to(c, name, nullable);
}

/* createMapLikeType: a multiset's value must be the INT count. */
static const logical_node_t *map_like(conv_t *c, int nullable, const logical_node_t *key,
                                      const logical_node_t *value, int multiset)
{
    return logical_conv_map_like(&c->base, nullable, key, value, multiset);
}

static int is_multiset(const avro_node_t *a)
{
    const char *t = prop_text(a, "flink.type");
    return t && strcmp(t, "multiset") == 0;
}

/* isLogicalMap: an array of key/value records (LogicalMap, Flink's or AvroData's MapEntry). */
static int is_logical_map(const avro_node_t *array)
{
    const char *logical = prop_text(array, "logicalType");
    if (logical && strcmp(logical, "map") == 0)
        return 1;
    const avro_node_t *e = avro_node_items(array);
    if (avro_node_kind(e) != AVRO_KIND_RECORD)
        return 0;
    const char *full = avro_node_fullname(e);
    if (full && strcmp(full, "io.confluent.connect.avro.MapEntry") == 0)
        return 1;
    const char *internal = prop_text(e, "connect.internal.type");
    return internal && strcmp(internal, "MapEntry") == 0;
}

static const logical_node_t *convert_array(conv_t *c, const avro_node_t *a, int nullable, int depth)
{
    const avro_node_t *e = avro_node_items(a);
    if (is_logical_map(a)) {
        long k = avro_field_index(e, "key"), v = avro_field_index(e, "value");
        if (avro_node_kind(e) != AVRO_KIND_RECORD || avro_node_size(e) != 2 || k < 0 || v < 0)
            return fail(c, "Found map encoded as array of key-value pairs, but array elements do not "
                           "match the expected format.");
        const logical_node_t *key = convert(c, avro_field_type(e, (size_t)k), 0, depth + 1);
        const logical_node_t *value = key ? convert(c, avro_field_type(e, (size_t)v), 0, depth + 1) : NULL;
        return value ? map_like(c, nullable, key, value, is_multiset(a)) : NULL;
    }
    const logical_node_t *element = convert(c, e, 0, depth + 1);
    if (!element)
        return NULL;
    logical_node_t *n = node(c, LOGICAL_ARRAY, nullable);
    if (n)
        n->element = element;
    return n;
}

static const logical_node_t *convert_map(conv_t *c, const avro_node_t *a, int nullable, int depth)
{
    /* readMapKeyType: STRING NOT NULL unless logical.key.length (an Integer) says otherwise. */
    const json_t *len = avro_node_prop(a, "logical.key.length");
    const logical_node_t *key;
    if (json_is_integer(len) && json_integer_value(len) >= INT32_MIN &&
        json_integer_value(len) <= INT32_MAX) {
        const char *t = prop_text(a, "logical.key.type");
        key = sized(c, t && strcmp(t, "CHAR") == 0 ? LOGICAL_CHAR : LOGICAL_VARCHAR,
                    (int)json_integer_value(len), 0);
    } else {
        key = sized(c, LOGICAL_VARCHAR, LOGICAL_MAX_LENGTH, 0);
    }
    const logical_node_t *value = key ? convert(c, avro_node_items(a), 0, depth + 1) : NULL;
    return value ? map_like(c, nullable, key, value, is_multiset(a)) : NULL;
}

/* UnionBranch's name check (Schema.validateUserName), for names a hint supplies. */
static int branch_name_ok(conv_t *c, const char *name)
{
    if (!*name)
        return fail(c, "Union branch name must not be empty"), 0;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        if (*p <= ' ' || *p == 0x7f)
            return fail(c, "Union branch name must not contain whitespace or control characters; got: '%s'",
                        name),
                   0;
    return 1;
}

static const logical_node_t *convert_union(conv_t *c, const avro_node_t *a, int depth)
{
    size_t nb = avro_node_size(a), members = 0;
    for (size_t i = 0; i < nb; i++)
        members += avro_node_kind(avro_node_branch(a, i)) != AVRO_KIND_NULL;
    int has_null = members != nb;
    if (members == 1) {
        /* The nullable form: null and one other type is that type, nullable. */
        for (size_t i = 0; i < nb; i++)
            if (avro_node_kind(avro_node_branch(a, i)) != AVRO_KIND_NULL)
                return convert(c, avro_node_branch(a, i), has_null, depth);
    }
    logical_node_t *u = node(c, LOGICAL_UNION, has_null);
    if (!u)
        return NULL;
    u->members = members ? arena_alloc(c->base.m->arena, members * sizeof *u->members) : NULL;
    if (members && !u->members)
        return c->base.oom = 1, NULL;
    const avro_node_t **avro = members ? calloc(members, sizeof *avro) : NULL;
    if (members && !avro)
        return c->base.oom = 1, NULL;
    size_t k = 0;
    for (size_t i = 0; i < nb; i++) {
        const avro_node_t *b = avro_node_branch(a, i);
        if (avro_node_kind(b) == AVRO_KIND_NULL)
            continue;
        const logical_node_t *t = convert(c, b, 0, depth + 1);
        if (!t) {
            free(avro);
            return NULL;
        }
        avro[k] = b;
        u->members[k++].type = t;
    }
    /* Branch names: the field's confluent:union hint, else the simple name when it is unique in
     * the union, else the full name with dots as underscores. Counted and checked through maps:
     * a union may have thousands of branches. */
    hmap_t counts = {0}, taken = {0};
    int rc = 0;
    for (size_t i = 0; i < members && rc == 0; i++) {
        const char *simple_name = avro_simple_name(avro[i]);
        size_t len = strlen(simple_name);
        uintptr_t k = (uintptr_t)hmap_get(&counts, simple_name, len);
        rc = hmap_put_try(&counts, simple_name, len, (void *)(k + 1), NULL);
    }
    for (size_t i = 0; i < members && rc == 0; i++) {
        const json_t *hint = json_array_get(c->union_hints, i);
        const char *name = json_string_value(json_object_get(hint, "name"));
        if (name && !branch_name_ok(c, name)) {
            rc = 1;
            break;
        }
        char *copy;
        if (name) {
            copy = arena_strdup(c->base.m->arena, name);
        } else if ((uintptr_t)hmap_gets(&counts, avro_simple_name(avro[i])) == 1) {
            copy = arena_strdup(c->base.m->arena, avro_simple_name(avro[i]));
        } else if ((copy = arena_strdup(c->base.m->arena, avro_full_name(avro[i])))) {
            for (char *p = copy; *p; p++)
                if (*p == '.')
                    *p = '_';
        }
        if (!copy) {
            rc = -1;
            break;
        }
        if (hmap_gets(&taken, copy)) {
            fail(c, "Duplicate union branch: %s", copy);
            rc = 1;
            break;
        }
        rc = hmap_put_try(&taken, copy, strlen(copy), (void *)1, NULL);
        u->members[i].name = copy;
    }
    hmap_clear(&counts);
    hmap_clear(&taken);
    if (rc != 0) {
        free(avro);
        if (rc < 0)
            c->base.oom = 1;
        return NULL;
    }
    free(avro);
    u->n = members;
    return u;
}

static const logical_node_t *convert(conv_t *c, const avro_node_t *a, int nullable, int depth)
{
    if (depth > MAX_TYPE_DEPTH)
        return fail(c, "Schema type nesting depth exceeds the maximum of %d", MAX_TYPE_DEPTH);
    switch (avro_node_kind(a)) {
    case AVRO_KIND_BOOLEAN: return simple(c, LOGICAL_BOOLEAN, nullable);
    case AVRO_KIND_BYTES:
    case AVRO_KIND_FIXED: return convert_bytes(c, a, nullable);
    case AVRO_KIND_DOUBLE: return simple(c, LOGICAL_DOUBLE, nullable);
    case AVRO_KIND_FLOAT: return simple(c, LOGICAL_FLOAT, nullable);
    case AVRO_KIND_INT: return convert_int(c, a, nullable);
    case AVRO_KIND_LONG: return convert_long(c, a, nullable);
    case AVRO_KIND_STRING: return convert_string(c, a, nullable);
    case AVRO_KIND_ENUM: return convert_enum(c, a, nullable);
    case AVRO_KIND_ARRAY: return convert_array(c, a, nullable, depth);
    case AVRO_KIND_MAP: return convert_map(c, a, nullable, depth);
    case AVRO_KIND_RECORD: return convert_record(c, a, nullable, depth);
    case AVRO_KIND_UNION: return convert_union(c, a, depth);
    case AVRO_KIND_NULL: return fail(c, "Standalone NULL type is not supported");
    default: return fail(c, "Couldn't translate unsupported Avro schema type.");
    }
}

/* ---- 4. Defaults ------------------------------------------------------------------------ */

/*
 * AvroDefaultValueConverter.toJavaData on a non-null default, reduced to what can throw there:
 * a TIME outside one day (LocalTime.ofNanoOfDay) and a decimal from zero bytes (BigInteger).
 * Every other default converts, and only whether it is null matters to the checks.
 */
static int check_default(conv_t *c, const logical_node_t *type, const json_t *v)
{
    switch (type->kind) {
    case LOGICAL_TIME:
        if (json_is_integer(v)) {
            /* time-millis holds an Integer (millis), the wider carriers a Long (micros). */
            json_int_t x = json_integer_value(v);
            long long nanos = type->precision <= 3 ? (long long)(int32_t)(uint32_t)(uint64_t)x * 1000000LL
                                                   : (long long)((uint64_t)x * 1000ULL);
            if (nanos < 0 || nanos > 86399999999999LL) {
                fail(c, "Invalid value for NanoOfDay (valid values 0 - 86399999999999): %lld", nanos);
                return -1;
            }
        }
        return 0;
    case LOGICAL_DECIMAL:
        if (json_is_string(v) && json_string_length(v) == 0) {
            fail(c, "Zero length BigInteger");
            return -1;
        }
        return 0;
    case LOGICAL_ARRAY:
        if (json_is_array(v))
            for (size_t i = 0; i < json_array_size(v); i++)
                if (check_default(c, type->element, json_array_get(v, i)) != 0)
                    return -1;
        return 0;
    case LOGICAL_MAP:
        if (json_is_object(v)) {
            const char *k;
            json_t *x;
            json_object_foreach((json_t *)v, k, x) if (check_default(c, type->value, x) != 0) return -1;
        }
        return 0;
    case LOGICAL_UNION: return type->n ? check_default(c, type->members[0].type, v) : 0;
    default: return 0;
    }
}

/* ---- 5. Entry point -------------------------------------------------------------------------- */

int logical_from_avro(const struct avro_model *avro, logical_model_t **out, char **error)
{
    *out = NULL;
    *error = NULL;
    conv_t c = {.base.m = logical_model_new()};
    if (!c.base.m)
        return -1;
    const logical_node_t *root = convert(&c, avro_model_root(avro), 0, 0);
    strlist_clear(&c.field_path);
    free(c.active);
    c.base.m->root = root;
    return logical_conv_finish(&c.base, !root, out, error);
}
