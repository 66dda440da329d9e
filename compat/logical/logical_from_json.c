/*
 * logical_from_json: a JSON Schema schema as a logical type, as Confluent's
 * JsonToLogicalTypeConverter (logical-types, type/logical/json) makes it in its V2 edition, the one
 * LogicalPolicyChecker uses.
 *
 *   1. Reading keywords as Java reads everit's unprocessed properties (casts, classes)
 *   2. Names and defaults (Schema.validateUserName, JsonDefaultValueConverter.toJavaData)
 *   3. Scalars: numbers, strings, bytes, the Connect temporal types, enums
 *   4. allOf (CombinedSchemaUtils.simplifyAllOfSchema), oneOf/anyOf as unions
 *   5. Arrays, maps, objects; references as named types
 *   6. Entry point
 *
 * It walks the engine's model, which classifies a document the way everit does (a "type" with
 * sibling keywords of another type is a generated allOf, a "type" array an anyOf), so it takes the
 * converter's branches as they are. The keywords everit leaves "unprocessed" ("connect.type",
 * "confluent:union", "flink.precision") are read from the value a node was loaded from; the parts
 * of a generated allOf have none, as in everit, where they go on the allOf itself.
 *
 * Every $ref becomes a reference to a named type: the $defs or definitions key it ends in, or a
 * synthesized Ref<N> for any other target. A property's order is its connect.index, then its name.
 */
#include "compat/logical/internal.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat/jsonschema/jsonschema.h"

/* ToLogicalContext.MAX_TYPE_DEPTH: the longest index path (properties, items, map keys and values,
 * union branches) the converter descends; a named type's body starts a path of its own. */
#define MAX_TYPE_DEPTH 256
/* The converter's StackOverflowError: references nest bodies inside each other without a bound on
 * the path, so the C recursion is bounded separately. */
#define MAX_RECURSION 4000

#define DEFAULT_DECIMAL_PRECISION 38
#define DEFAULT_DECIMAL_SCALE     18

typedef struct jconv {
    logical_conv_t base; /* first */
    hmap_t synthesized;  /* $ref text -> its Ref<N> name (in the arena) */
    int next_ref;
    int recursion;
} jconv_t;

static const logical_node_t *convert(jconv_t *c, const jsonschema_node_t *n, int nullable, int plen);

#define jfail(c, ...)            logical_conv_fail(&(c)->base, __VA_ARGS__)
#define jnode(c, kind, nullable) logical_conv_node(&(c)->base, kind, nullable)

/* ---- 1. Reading keywords ---------------------------------------------------------------- */

/* An unprocessed property: a keyword of the value the node was loaded from. */
static const jsonschema_json_t *prop(const jsonschema_node_t *n, const char *key)
{
    return n->src ? jsonschema_json_get(n->src, key) : NULL;
}

static int is_null(const jsonschema_json_t *v)
{
    return !v || v->kind == JSONSCHEMA_JSON_NULL;
}

/* An integer as org.json reads it: 0 Integer, 1 Long, 2 BigInteger. */
static int integer_width(const jsonschema_json_t *v, long long *out)
{
    errno = 0;
    char *end;
    long long x = strtoll(v->str, &end, 10);
    if (errno || *end)
        return 2;
    *out = x;
    return x >= INT_MIN && x <= INT_MAX ? 0 : 1;
}

/* The class a value has in everit's unprocessed properties (org.json's toMap), NULL for null. */
static const char *java_class(const jsonschema_json_t *v)
{
    long long x;
    switch (v->kind) {
    case JSONSCHEMA_JSON_STRING: return "java.lang.String";
    case JSONSCHEMA_JSON_TRUE:
    case JSONSCHEMA_JSON_FALSE: return "java.lang.Boolean";
    case JSONSCHEMA_JSON_ARRAY: return "java.util.ArrayList";
    case JSONSCHEMA_JSON_OBJECT: return "java.util.HashMap";
    case JSONSCHEMA_JSON_NUMBER:
        if (!v->is_integer)
            return "java.math.BigDecimal";
        switch (integer_width(v, &x)) {
        case 0: return "java.lang.Integer";
        case 1: return "java.lang.Long";
        default: return "java.math.BigInteger";
        }
    default: return NULL;
    }
}

static int cast_failed(jconv_t *c, const jsonschema_json_t *v, const char *to)
{
    const char *from = java_class(v);
    jfail(c, "class %s cannot be cast to class %s (%s and %s are in module java.base of loader 'bootstrap')",
          from, to, from, to);
    return -1;
}

/* (String) cast: 0 and *out (NULL for an absent or null value), or -1. */
static int as_string(jconv_t *c, const jsonschema_json_t *v, const char **out)
{
    *out = NULL;
    if (is_null(v))
        return 0;
    if (v->kind != JSONSCHEMA_JSON_STRING)
        return cast_failed(c, v, "java.lang.String");
    *out = v->str;
    return 0;
}

/* value instanceof Integer. */
static int is_java_integer(const jsonschema_json_t *v, int *out)
{
    long long x;
    if (!v || v->kind != JSONSCHEMA_JSON_NUMBER || !v->is_integer || integer_width(v, &x) != 0)
        return 0;
    *out = (int)x;
    return 1;
}

/* (Integer) cast: 0 with *set and *out, or -1. */
static int as_integer(jconv_t *c, const jsonschema_json_t *v, int *set, int *out)
{
    *set = 0;
    if (is_null(v))
        return 0;
    if (!is_java_integer(v, out))
        return cast_failed(c, v, "java.lang.Integer");
    *set = 1;
    return 0;
}

static int str_eq(const char *a, const char *b)
{
    return a && strcmp(a, b) == 0;
}

/* connect.type, cast to String. */
static int connect_type(jconv_t *c, const jsonschema_node_t *n, const char **out)
{
    return as_string(c, prop(n, "connect.type"), out);
}

static const char *title_of(const jsonschema_node_t *n)
{
    return n->title && n->title->kind == JSONSCHEMA_JSON_STRING ? n->title->str : NULL;
}

/* ---- 2. Names and defaults ---------------------------------------------------------------- */

/* Character.isWhitespace || Character.isISOControl, for one code point of the BMP. */
static int java_space_or_control(unsigned cp)
{
    if (cp <= 0x20 || (cp >= 0x7f && cp <= 0x9f))
        return 1;
    return cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a && cp != 0x2007) || cp == 0x2028 || cp == 0x2029 ||
           cp == 0x205f || cp == 0x3000;
}

/* Schema.validateUserName: a field, enum symbol or union branch name. 0, or -1. */
static int user_name_ok(jconv_t *c, const char *name, size_t len, const char *role)
{
    if (len == 0)
        return jfail(c, "%s name must not be empty", role), -1;
    const unsigned char *p = (const unsigned char *)name, *end = p + len;
    while (p < end) {
        unsigned cp = *p;
        size_t k = cp < 0x80 ? 1 : cp < 0xe0 ? 2 : cp < 0xf0 ? 3 : 4;
        if (k == 2 && p + 1 < end)
            cp = (cp & 0x1f) << 6 | (p[1] & 0x3f);
        else if (k == 3 && p + 2 < end)
            cp = (cp & 0x0f) << 12 | (p[1] & 0x3f) << 6 | (p[2] & 0x3f);
        else if (k == 4)
            cp = 0x10000; /* a supplementary character is neither */
        if (java_space_or_control(cp))
            return jfail(c, "%s name must not contain whitespace or control characters; got: '%.*s'", role,
                         (int)len, name),
                   -1;
        p += k;
    }
    return 0;
}

static int digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return 0;
    return 1;
}

static int num(const char *s, size_t n)
{
    int v = 0;
    for (size_t i = 0; i < n; i++)
        v = v * 10 + (s[i] - '0');
    return v;
}

/* ISO_LOCAL_DATE: [+-]yyyy-MM-dd (a year beyond four digits needs its sign); the length read, or 0. */
static size_t iso_date(const char *s)
{
    size_t i = 0;
    int sign = s[0] == '+' || s[0] == '-';
    i += sign;
    size_t y = 0;
    while (isdigit((unsigned char)s[i + y]))
        y++;
    if (y < 4 || y > 10 || (y > 4 && !sign) || (s[0] == '+' && y == 4))
        return 0;
    long long year = 0;
    for (size_t k = 0; k < y; k++)
        year = year * 10 + (s[i + k] - '0');
    if (year > 999999999)
        return 0;
    i += y;
    if (s[i] != '-' || !digits(s + i + 1, 2) || s[i + 3] != '-' || !digits(s + i + 4, 2))
        return 0;
    int month = num(s + i + 1, 2), day = num(s + i + 4, 2);
    if (s[0] == '-')
        year = -year;
    int leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (month < 1 || month > 12 || day < 1 || day > days[month - 1] + (month == 2 && leap))
        return 0;
    return i + 6;
}

/* ISO_LOCAL_TIME: HH:mm[:ss[.fraction]]; the length read, or 0. seconds: they are required. */
static size_t iso_time(const char *s, int seconds, int leap_second)
{
    if (!digits(s, 2) || s[2] != ':' || !digits(s + 3, 2) || num(s, 2) > 23 || num(s + 3, 2) > 59)
        return 0;
    size_t i = 5;
    if (s[i] == ':') {
        if (!digits(s + i + 1, 2) || num(s + i + 1, 2) > (leap_second ? 60 : 59))
            return 0;
        i += 3;
        if (s[i] == '.') {
            size_t f = 0;
            while (isdigit((unsigned char)s[i + 1 + f]))
                f++;
            if (f > 9)
                return 0;
            i += 1 + f;
        }
    } else if (seconds) {
        return 0;
    }
    return i;
}

static size_t iso_date_time(const char *s, int seconds)
{
    size_t d = iso_date(s);
    if (!d || (s[d] != 'T' && s[d] != 't'))
        return 0;
    size_t t = iso_time(s + d + 1, seconds, seconds);
    return t ? d + 1 + t : 0;
}

/* DateTimeFormatter.ISO_INSTANT: a date-time with seconds and an offset (Z or +HH:MM[:ss]). */
static int iso_instant(const char *s)
{
    size_t i = iso_date_time(s, 1);
    if (!i)
        return 0;
    s += i;
    if ((s[0] == 'Z' || s[0] == 'z') && !s[1])
        return 1;
    if ((s[0] != '+' && s[0] != '-') || !digits(s + 1, 2) || num(s + 1, 2) > 18)
        return 0;
    if (!s[3])
        return 1;
    if (s[3] != ':' || !digits(s + 4, 2) || num(s + 4, 2) > 59)
        return 0;
    if (!s[6])
        return 1;
    return s[6] == ':' && digits(s + 7, 2) && num(s + 7, 2) <= 59 && !s[9];
}

/* new BigDecimal(String). */
static int big_decimal(const char *s)
{
    size_t i = *s == '+' || *s == '-', n = 0;
    while (isdigit((unsigned char)s[i]))
        i++, n++;
    if (s[i] == '.') {
        i++;
        while (isdigit((unsigned char)s[i]))
            i++, n++;
    }
    if (!n)
        return 0;
    if (s[i] == 'e' || s[i] == 'E') {
        i++;
        i += s[i] == '+' || s[i] == '-';
        size_t e = 0;
        while (isdigit((unsigned char)s[i]))
            i++, e++;
        if (!e || e > 10)
            return 0;
    }
    return !s[i];
}

/* Base64.getDecoder().decode: the basic alphabet, padding optional but exact when present. */
static int base64(const char *s, size_t len)
{
    size_t n = 0;
    while (n < len && (isalnum((unsigned char)s[n]) || s[n] == '+' || s[n] == '/'))
        n++;
    size_t rem = n % 4;
    if (rem == 1)
        return 0;
    if (n == len)
        return 1;
    size_t pad = len - n;
    if (rem == 2)
        return pad == 2 && s[n] == '=' && s[n + 1] == '=';
    if (rem == 3)
        return pad == 1 && s[n] == '=';
    return 0;
}

/* JsonDefaultValueConverter.toJavaData(type, value) != null, the conversion not throwing (the
 * converter drops a default it cannot convert). */
static int default_converts(const logical_node_t *t, const jsonschema_json_t *v)
{
    int is_number = v->kind == JSONSCHEMA_JSON_NUMBER, is_string = v->kind == JSONSCHEMA_JSON_STRING;
    switch (t->kind) {
    case LOGICAL_BOOLEAN: return v->kind == JSONSCHEMA_JSON_TRUE || v->kind == JSONSCHEMA_JSON_FALSE;
    case LOGICAL_TINYINT:
    case LOGICAL_SMALLINT:
    case LOGICAL_INT:
    case LOGICAL_BIGINT:
    case LOGICAL_FLOAT:
    case LOGICAL_DOUBLE: return is_number;
    case LOGICAL_CHAR:
    case LOGICAL_VARCHAR:
    case LOGICAL_ENUM: return is_string;
    case LOGICAL_BINARY:
    case LOGICAL_VARBINARY: return is_string && base64(v->str, v->len);
    case LOGICAL_DECIMAL: return is_number || (is_string && big_decimal(v->str));
    case LOGICAL_DATE: return is_string && iso_date(v->str) == v->len;
    case LOGICAL_TIME: return is_string && iso_time(v->str, 0, 0) == v->len;
    case LOGICAL_TIMESTAMP: return is_string && iso_date_time(v->str, 0) == v->len;
    case LOGICAL_TIMESTAMP_LTZ: return is_number || (is_string && iso_instant(v->str));
    case LOGICAL_UNION: return t->n > 0 && default_converts(t->members[0].type, v);
    default: return 0; /* "Default values are not supported for type": thrown, and so dropped */
    }
}

/* captureDefaultValue: the default of the property's schema, behind its references. */
static int has_default(const jsonschema_node_t *n, const logical_node_t *type)
{
    const jsonschema_node_t *body = jsonschema_node_deref(n);
    if (!body || is_null(body->default_value))
        return 0;
    return default_converts(type, body->default_value);
}

/* ---- 3. Scalars ------------------------------------------------------------------------------ */

/* Schema.createTime / createTimestamp / createTimestampLtz. */
static const logical_node_t *temporal(jconv_t *c, logical_kind_t kind, int precision, int nullable)
{
    if (precision == LOGICAL_NO_PARAM)
        precision = kind == LOGICAL_TIME ? 0 : 6;
    if (precision < 0 || precision > 9)
        return jfail(c, "%s precision must be in [0, 9], got %d", logical_kind_name(kind), precision);
    logical_node_t *t = jnode(c, kind, nullable);
    if (t)
        t->precision = precision;
    return t;
}

/* getTimestampPrecision: (int) flink.precision, 3 when absent. */
static int timestamp_precision(jconv_t *c, const jsonschema_node_t *n, int *out)
{
    const jsonschema_json_t *v = prop(n, "flink.precision");
    *out = 3;
    if (!v)
        return 0;
    if (v->kind == JSONSCHEMA_JSON_NULL) {
        jfail(c, "Cannot invoke \"java.lang.Integer.intValue()\" because the return value of "
                 "\"java.util.Map.getOrDefault(Object, Object)\" is null");
        return -1;
    }
    int set;
    return as_integer(c, v, &set, out);
}

static const logical_node_t *sized(jconv_t *c, logical_kind_t kind, int length, int nullable)
{
    logical_node_t *t = jnode(c, kind, nullable);
    if (t)
        t->length = length == LOGICAL_NO_PARAM ? 1 : length; /* Schema.DEFAULT_LENGTH */
    return t;
}

/* connect.parameters' scale or connect.decimal.precision: Integer.parseInt((String) value). */
static int decimal_param(jconv_t *c, const jsonschema_json_t *params, const char *key, int otherwise,
                         int *out)
{
    const jsonschema_json_t *v = jsonschema_json_get(params, key);
    const char *text;
    *out = otherwise;
    if (as_string(c, v, &text) != 0 || !text)
        return c->base.error ? -1 : 0;
    errno = 0;
    char *end;
    long x = strtol(text, &end, 10);
    if (!*text || *end || errno || x < INT_MIN || x > INT_MAX || isspace((unsigned char)*text)) {
        jfail(c, "For input string: \"%s\"", text);
        return -1;
    }
    *out = (int)x;
    return 0;
}

static const logical_node_t *number(jconv_t *c, const jsonschema_node_t *n, int nullable)
{
    const char *type;
    if (connect_type(c, n, &type) != 0)
        return NULL;
    const char *title = title_of(n);
    if (!type)
        return jnode(c, n->requires_integer ? LOGICAL_BIGINT : LOGICAL_DOUBLE, nullable);
    if (strcmp(type, "int8") == 0)
        return jnode(c, LOGICAL_TINYINT, nullable);
    if (strcmp(type, "int16") == 0)
        return jnode(c, LOGICAL_SMALLINT, nullable);
    if (strcmp(type, "int32") == 0) {
        int p;
        if (str_eq(title, "org.apache.kafka.connect.data.Time"))
            return timestamp_precision(c, n, &p) == 0 ? temporal(c, LOGICAL_TIME, p, nullable) : NULL;
        if (str_eq(title, "org.apache.kafka.connect.data.Date"))
            return jnode(c, LOGICAL_DATE, nullable);
        return jnode(c, LOGICAL_INT, nullable);
    }
    if (strcmp(type, "int64") == 0) {
        int p;
        if (str_eq(title, "org.apache.kafka.connect.data.Timestamp"))
            return timestamp_precision(c, n, &p) == 0 ? temporal(c, LOGICAL_TIMESTAMP_LTZ, p, nullable)
                                                      : NULL;
        if (jsonschema_json_str_is(prop(n, "flink.type"), "timestamp"))
            return timestamp_precision(c, n, &p) == 0 ? temporal(c, LOGICAL_TIMESTAMP, p, nullable) : NULL;
        return jnode(c, LOGICAL_BIGINT, nullable);
    }
    if (strcmp(type, "float32") == 0)
        return jnode(c, LOGICAL_FLOAT, nullable);
    if (strcmp(type, "float64") == 0)
        return jnode(c, LOGICAL_DOUBLE, nullable);
    if (strcmp(type, "bytes") == 0) {
        if (!str_eq(title, "org.apache.kafka.connect.data.Decimal"))
            return jfail(c, "Expected decimal type");
        const jsonschema_json_t *params = prop(n, "connect.parameters");
        if (params && params->kind == JSONSCHEMA_JSON_NULL) /* getOrDefault gives the null */
            return jfail(c, "Cannot invoke \"java.util.Map.get(Object)\" because \"properties\" is null");
        if (params && params->kind != JSONSCHEMA_JSON_OBJECT)
            return cast_failed(c, params, "java.util.Map"), NULL;
        int scale, precision;
        if (decimal_param(c, params, "scale", DEFAULT_DECIMAL_SCALE, &scale) != 0 ||
            decimal_param(c, params, "connect.decimal.precision", DEFAULT_DECIMAL_PRECISION, &precision) != 0)
            return NULL;
        logical_node_t *d = jnode(c, LOGICAL_DECIMAL, nullable);
        if (d) {
            d->precision = precision == LOGICAL_NO_PARAM ? 10 : precision; /* DEFAULT_DECIMAL_PRECISION */
            d->scale = scale;
        }
        return d;
    }
    return jfail(c, "Unsupported type %s", type);
}

static const logical_node_t *string(jconv_t *c, const jsonschema_node_t *n, int nullable)
{
    const char *type;
    if (connect_type(c, n, &type) != 0)
        return NULL;
    int min_set, max_set, min = 0, max = 0;
    if (str_eq(type, "bytes")) {
        if (as_integer(c, prop(n, "flink.minLength"), &min_set, &min) != 0 ||
            as_integer(c, prop(n, "flink.maxLength"), &max_set, &max) != 0)
            return NULL;
        if (min_set && max_set && min == max)
            return sized(c, LOGICAL_BINARY, max, nullable);
        if (max_set)
            return sized(c, LOGICAL_VARBINARY, max, nullable);
        return sized(c, LOGICAL_VARBINARY, LOGICAL_MAX_LENGTH, nullable);
    }
    min_set = n->min_length.set, max_set = n->max_length.set;
    min = (int)n->min_length.v, max = (int)n->max_length.v;
    if (min_set && max_set && n->min_length.v == n->max_length.v)
        return sized(c, LOGICAL_CHAR, max, nullable);
    if (max_set)
        return sized(c, LOGICAL_VARCHAR, max, nullable);
    return sized(c, LOGICAL_VARCHAR, LOGICAL_MAX_LENGTH, nullable);
}

/* EnumValue's symbol: possibleValues.get(i).toString(). */
static char *enum_symbol(const jsonschema_json_t *v, size_t *len)
{
    switch (v->kind) {
    case JSONSCHEMA_JSON_STRING:
    case JSONSCHEMA_JSON_NUMBER: *len = v->len; return strndup(v->str, v->len);
    case JSONSCHEMA_JSON_TRUE: *len = 4; return strdup("true");
    case JSONSCHEMA_JSON_FALSE: *len = 5; return strdup("false");
    case JSONSCHEMA_JSON_NULL: *len = 4; return strdup("null");
    default: {
        char *s = jsonschema_json_dump(v);
        *len = s ? strlen(s) : 0;
        return s;
    }
    }
}

/* confluent:enum[i] of a new symbol: a Map, whose doc is a String and params a Map. 0, or -1. */
static int enum_meta(jconv_t *c, const jsonschema_json_t *meta, size_t i)
{
    if (!meta || i >= meta->n)
        return 0;
    const jsonschema_json_t *entry = meta->elems[i];
    if (entry->kind == JSONSCHEMA_JSON_NULL)
        return jfail(c, "Cannot invoke \"java.util.Map.get(Object)\" because \"entry\" is null"), -1;
    if (entry->kind != JSONSCHEMA_JSON_OBJECT)
        return cast_failed(c, entry, "java.util.Map");
    const char *doc;
    const jsonschema_json_t *params = jsonschema_json_get(entry, "params");
    if (as_string(c, jsonschema_json_get(entry, "doc"), &doc) != 0)
        return -1;
    if (!is_null(params) && params->kind != JSONSCHEMA_JSON_OBJECT)
        return cast_failed(c, params, "java.util.Map");
    return 0;
}

static const logical_node_t *enumeration(jconv_t *c, const jsonschema_node_t *n, int nullable)
{
    const jsonschema_json_t *meta = prop(n, "confluent:enum");
    if (is_null(meta))
        meta = NULL;
    else if (meta->kind != JSONSCHEMA_JSON_ARRAY)
        return cast_failed(c, meta, "java.util.List"), NULL;
    hmap_t seen = {0};
    int rc = 0;
    for (size_t i = 0; i < n->nvalues && rc == 0; i++) {
        size_t len;
        char *symbol = enum_symbol(n->values[i], &len);
        if (!symbol) {
            c->base.oom = 1;
            break;
        }
        /* Duplicates keep the first occurrence; only a new symbol is an EnumValue. */
        if (!hmap_contains(&seen, symbol, len)) {
            if (hmap_put_try(&seen, symbol, len, NULL, NULL) != 0)
                c->base.oom = 1, rc = -1;
            else if ((rc = enum_meta(c, meta, i)) == 0)
                rc = user_name_ok(c, symbol, len, "Enum symbol");
        }
        free(symbol);
    }
    hmap_clear(&seen);
    return rc == 0 && !c->base.oom ? jnode(c, LOGICAL_ENUM, nullable) : NULL;
}

/* ---- 4. Combined schemas ---------------------------------------------------------------------- */

typedef struct merged {
    jsonschema_str_t name;
    jsonschema_node_t *schema;
    int required;
} merged_t;

typedef struct merge {
    merged_t *items;
    size_t n, cap;
    const jsonschema_node_t **visited;
    size_t nvisited, cap_visited;
    int oom;
} merge_t;

static int name_in(const jsonschema_str_t *names, size_t n, jsonschema_str_t name)
{
    for (size_t i = 0; i < n; i++)
        if (names[i].len == name.len && memcmp(names[i].s, name.s, name.len) == 0)
            return 1;
    return 0;
}

static int push(void **items, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 0;
    size_t ncap = *cap ? 2 * *cap : 8;
    void *g = realloc(*items, ncap * size);
    if (!g)
        return -1;
    *items = g;
    *cap = ncap;
    return 0;
}

/* collectPropertySchemas: the properties of the objects an allOf's part is made of, through nested
 * allOfs and references (each schema once per part); a later one replaces an earlier one's schema
 * and required flag, in the earlier one's place. */
static void collect(merge_t *g, const jsonschema_node_t *s)
{
    for (size_t i = 0; i < g->nvisited; i++)
        if (g->visited[i] == s)
            return;
    if (push((void **)&g->visited, &g->cap_visited, g->nvisited, sizeof *g->visited) != 0) {
        g->oom = 1;
        return;
    }
    g->visited[g->nvisited++] = s;
    if (!s)
        return;
    if (s->kind == JSONSCHEMA_NODE_COMBINED && s->criterion == JSONSCHEMA_ALL_OF) {
        for (size_t i = 0; i < s->nsubs; i++)
            collect(g, s->subs[i]);
    } else if (s->kind == JSONSCHEMA_NODE_REFERENCE) {
        collect(g, s->target);
    } else if (s->kind == JSONSCHEMA_NODE_OBJECT) {
        for (size_t i = 0; i < s->nprops; i++) {
            jsonschema_str_t name = s->props[i].name;
            int required = name_in(s->required, s->nrequired, name);
            size_t k = 0;
            while (k < g->n &&
                   !(g->items[k].name.len == name.len && !memcmp(g->items[k].name.s, name.s, name.len)))
                k++;
            if (k == g->n) {
                if (push((void **)&g->items, &g->cap, g->n, sizeof *g->items) != 0) {
                    g->oom = 1;
                    return;
                }
                g->items[g->n++].name = name;
            }
            g->items[k].schema = s->props[i].schema;
            g->items[k].required = required;
        }
    }
}

/* ObjectSchema.requiresObject: the object was loaded under "type": "object" (the parts of a
 * generated allOf share their parent's keywords). */
static int requires_object(const jsonschema_node_t *object, const jsonschema_node_t *parent)
{
    const jsonschema_json_t *src = object->src ? object->src : parent->src;
    return jsonschema_json_str_is(src ? jsonschema_json_get(src, "type") : NULL, "object");
}

/* The object ObjectSchema.builder() makes of merged properties: no keywords of its own. */
static const jsonschema_node_t *merged_object(jconv_t *c, const merge_t *g)
{
    jsonschema_node_t *o = arena_alloc(c->base.m->arena, sizeof *o);
    if (!o || !(o->props = arena_alloc(c->base.m->arena, g->n * sizeof *o->props)) ||
        !(o->required = arena_alloc(c->base.m->arena, g->n * sizeof *o->required)))
        return c->base.oom = 1, NULL;
    o->kind = JSONSCHEMA_NODE_OBJECT;
    for (size_t i = 0; i < g->n; i++) {
        o->props[o->nprops].name = g->items[i].name;
        o->props[o->nprops++].schema = g->items[i].schema;
        if (g->items[i].required)
            o->required[o->nrequired++] = g->items[i].name;
    }
    return o;
}

/* CombinedSchemaUtils.simplifyAllOfSchema: the one schema an allOf stands for. */
static const jsonschema_node_t *simplify_all_of(jconv_t *c, const jsonschema_node_t *n)
{
    const jsonschema_node_t *konst = NULL, *enumeration = NULL, *numeric = NULL, *text = NULL,
                            *combined = NULL;
    merge_t g = {0};
    for (size_t i = 0; i < n->nsubs && !g.oom; i++) {
        const jsonschema_node_t *s = n->subs[i];
        switch (s->kind) {
        case JSONSCHEMA_NODE_CONST: konst = s; break;
        case JSONSCHEMA_NODE_ENUM: enumeration = s; break;
        case JSONSCHEMA_NODE_NUMBER: numeric = s; break;
        case JSONSCHEMA_NODE_STRING: text = s; break;
        case JSONSCHEMA_NODE_COMBINED: combined = s; break;
        case JSONSCHEMA_NODE_CONDITIONAL:
        case JSONSCHEMA_NODE_NOT:
            free(g.items);
            free(g.visited);
            jfail(c, "JSON Schema if/then/else and `not` are not supported: a property declared only under a "
                     "condition has no column to be read into, so its values would be silently dropped");
            return NULL;
        default: break;
        }
        g.nvisited = 0; /* a fresh identity set for each part */
        collect(&g, s);
    }
    const jsonschema_node_t *out = NULL;
    if (g.oom)
        c->base.oom = 1;
    else if (g.n)
        out = merged_object(c, &g);
    else if (combined)
        out = combined;
    else if (konst || enumeration)
        out = text ? text : numeric;
    else if (text)
        out = numeric; /* everit's StringSchema always has a format validator (NONE at least) */
    free(g.items);
    free(g.visited);
    if (out || c->base.oom)
        return out;
    if (n->nsubs == 2) {
        const jsonschema_node_t *a = n->subs[0], *b = n->subs[1];
        int a_obj = a->kind == JSONSCHEMA_NODE_OBJECT, b_obj = b->kind == JSONSCHEMA_NODE_OBJECT;
        if (a_obj != b_obj) {
            const jsonschema_node_t *object = a_obj ? a : b, *other = a_obj ? b : a;
            if (!requires_object(object, n) ||
                (object->nrequired == 0 && other->kind == JSONSCHEMA_NODE_ARRAY))
                return other;
        }
    }
    char *text_of = n->src ? jsonschema_json_dump(n->src) : strdup("{}");
    if (!text_of)
        return c->base.oom = 1, NULL;
    jfail(c, "Unsupported criterion allOf for %s", text_of);
    free(text_of);
    return NULL;
}

static int set_member(jconv_t *c, logical_member_t *mb, const char *name, size_t len, const logical_node_t *t)
{
    mb->type = t;
    if (!(mb->name = arena_strndup(c->base.m->arena, name, len)))
        return c->base.oom = 1, -1;
    return 0;
}

/* confluent:union[index], the hint for the index-th non-null branch: a Map or null. */
static int union_hint(jconv_t *c, const jsonschema_json_t *hints, size_t index, const jsonschema_json_t **out)
{
    *out = NULL;
    if (!hints || index >= hints->n || is_null(hints->elems[index]))
        return 0;
    if (hints->elems[index]->kind != JSONSCHEMA_JSON_OBJECT)
        return cast_failed(c, hints->elems[index], "java.util.Map");
    *out = hints->elems[index];
    return 0;
}

/* convertCombinedSchema: a oneOf or anyOf of one non-null schema is that schema; otherwise a union
 * whose null members make it nullable and whose branches are all nullable. */
static const logical_node_t *union_of(jconv_t *c, const jsonschema_node_t *n, int nullable, int plen)
{
    if (n->criterion == JSONSCHEMA_ALL_OF) {
        const jsonschema_node_t *s = simplify_all_of(c, n);
        return s ? convert(c, s, nullable, plen) : NULL;
    }
    size_t non_null = 0;
    int has_null = 0;
    const jsonschema_node_t *only = NULL;
    for (size_t i = 0; i < n->nsubs; i++) {
        if (n->subs[i]->kind == JSONSCHEMA_NODE_NULL)
            has_null = 1;
        else
            non_null++, only = n->subs[i];
    }
    if (non_null == 1)
        return convert(c, only, nullable || has_null, plen);
    const jsonschema_json_t *hints = prop(n, "confluent:union");
    if (is_null(hints))
        hints = NULL;
    else if (hints->kind != JSONSCHEMA_JSON_ARRAY)
        return cast_failed(c, hints, "java.util.List"), NULL;
    logical_node_t *u = jnode(c, LOGICAL_UNION, nullable || has_null);
    if (!u || (non_null && !(u->members = arena_alloc(c->base.m->arena, non_null * sizeof *u->members))))
        return c->base.oom = 1, NULL;
    for (size_t i = 0; i < n->nsubs; i++) {
        const jsonschema_node_t *s = n->subs[i];
        if (s->kind == JSONSCHEMA_NODE_NULL)
            continue;
        size_t index = u->n;
        const jsonschema_json_t *hint;
        const char *name = NULL;
        if (union_hint(c, hints, index, &hint) != 0 ||
            as_string(c, jsonschema_json_get(hint, "name"), &name) != 0)
            return NULL;
        char synthesized[48];
        size_t len;
        if (name) {
            len = strlen(name);
        } else if (title_of(s)) {
            name = s->title->str, len = s->title->len;
        } else {
            len = (size_t)snprintf(synthesized, sizeof synthesized, "connect_union_field_%zu", index);
            name = synthesized;
        }
        /* The hint's doc is a String and its params a Map, cast before the branch converts. */
        const char *doc;
        const jsonschema_json_t *params = jsonschema_json_get(hint, "params");
        if (as_string(c, jsonschema_json_get(hint, "doc"), &doc) != 0 ||
            (!is_null(params) && params->kind != JSONSCHEMA_JSON_OBJECT &&
             cast_failed(c, params, "java.util.Map")))
            return NULL;
        const logical_node_t *t = convert(c, s, 1, plen + 1);
        if (!t || user_name_ok(c, name, len, "Union branch") != 0 ||
            set_member(c, &u->members[u->n], name, len, t))
            return NULL;
        u->n++;
    }
    /* UnionSchema: branch names are unique. */
    for (size_t i = 0; i < u->n; i++)
        for (size_t j = 0; j < i; j++)
            if (strcmp(u->members[i].name, u->members[j].name) == 0)
                return jfail(c, "Duplicate union branch: %s", u->members[i].name);
    return u;
}

/* ---- 5. Arrays, maps, objects, references ------------------------------------------------------- */

static const logical_node_t *map_like(jconv_t *c, int nullable, const logical_node_t *key,
                                      const logical_node_t *value, int multiset)
{
    return logical_conv_map_like(&c->base, nullable, key, value, multiset);
}

static const jsonschema_node_t *property(const jsonschema_node_t *object, const char *name)
{
    size_t len = strlen(name);
    for (size_t i = 0; i < object->nprops; i++)
        if (object->props[i].name.len == len && memcmp(object->props[i].name.s, name, len) == 0)
            return object->props[i].schema;
    return NULL;
}

static const logical_node_t *array(jconv_t *c, const jsonschema_node_t *n, int nullable, int plen)
{
    const jsonschema_node_t *items = n->all_items;
    if (!items) {
        if (n->ntuple || jsonschema_json_get(n->src, "items"))
            return jfail(c,
                         "JSON tuples (i.e. arrays that contain items of different types) are not supported");
        return jfail(c, "Array schema did not specify the items type");
    }
    const char *type;
    if (connect_type(c, n, &type) != 0)
        return NULL;
    if (str_eq(type, "map") && items->kind == JSONSCHEMA_NODE_OBJECT) {
        int multiset = jsonschema_json_str_is(prop(n, "flink.type"), "multiset");
        const logical_node_t *key = convert(c, property(items, "key"), 0, plen + 1);
        const logical_node_t *value = key ? convert(c, property(items, "value"), 0, plen + 1) : NULL;
        return value ? map_like(c, nullable, key, value, multiset) : NULL;
    }
    const logical_node_t *element = convert(c, items, 0, plen + 1);
    logical_node_t *a = element ? jnode(c, LOGICAL_ARRAY, nullable) : NULL;
    if (a)
        a->element = element;
    return a;
}

/* readMapKeyType: logical.key.length (an Integer) bounds it, logical.key.type CHAR fixes it. */
static const logical_node_t *map_key(jconv_t *c, const jsonschema_node_t *n)
{
    int length;
    if (!is_java_integer(prop(n, "logical.key.length"), &length))
        return sized(c, LOGICAL_VARCHAR, LOGICAL_MAX_LENGTH, 0);
    const char *type;
    if (as_string(c, prop(n, "logical.key.type"), &type) != 0)
        return NULL;
    return sized(c, str_eq(type, "CHAR") ? LOGICAL_CHAR : LOGICAL_VARCHAR, length, 0);
}

typedef struct ordered {
    const jsonschema_prop_t *p;
    int has_index, index;
} ordered_t;

/* String.compareTo: UTF-16 code unit order, which puts a supplementary character (a surrogate pair)
 * before U+E000..U+FFFF, unlike UTF-8 byte order. */
static unsigned utf16_unit(const unsigned char *p, size_t left, size_t *step)
{
    unsigned c0 = p[0];
    if (c0 < 0x80 || left < 2)
        return *step = 1, c0;
    if (c0 < 0xe0)
        return *step = 2, (c0 & 0x1f) << 6 | (p[1] & 0x3f);
    if (c0 < 0xf0 || left < 4)
        return *step = left < 3 ? left : 3,
               (c0 & 0x0f) << 12 | (p[1] & 0x3f) << 6 | (left > 2 ? p[2] & 0x3f : 0);
    return *step = 4, 0xd800; /* a high surrogate */
}

static int java_compare(jsonschema_str_t a, jsonschema_str_t b)
{
    const unsigned char *p = (const unsigned char *)a.s, *q = (const unsigned char *)b.s;
    size_t i = 0, j = 0;
    while (i < a.len && j < b.len) {
        size_t si, sj;
        unsigned x = utf16_unit(p + i, a.len - i, &si), y = utf16_unit(q + j, b.len - j, &sj);
        if (x != y || si != sj || memcmp(p + i, q + j, si) != 0) {
            if (x != y)
                return x < y ? -1 : 1;
            return memcmp(p + i, q + j, si < sj ? si : sj) < 0 ? -1 : 1;
        }
        i += si;
        j += sj;
    }
    return (i < a.len) - (j < b.len);
}

static int by_index_then_name(const void *x, const void *y)
{
    const ordered_t *a = x, *b = y;
    if (a->has_index != b->has_index)
        return a->has_index ? -1 : 1; /* nullsLast */
    if (a->has_index && a->index != b->index)
        return a->index < b->index ? -1 : 1;
    return java_compare(a->p->name, b->p->name);
}

/* convertRowType: one field per property, nullable unless required, in connect.index order (a
 * property without one last), then by name. */
static const logical_node_t *row(jconv_t *c, const jsonschema_node_t *n, int nullable, int plen)
{
    ordered_t *order = n->nprops ? calloc(n->nprops, sizeof *order) : NULL;
    if (n->nprops && !order)
        return c->base.oom = 1, NULL;
    for (size_t i = 0; i < n->nprops; i++) {
        order[i].p = &n->props[i];
        const jsonschema_node_t *s = n->props[i].schema;
        /* The comparator casts the index to Integer; a sort of one property never calls it. */
        if (n->nprops > 1 &&
            as_integer(c, prop(s, "connect.index"), &order[i].has_index, &order[i].index) != 0) {
            free(order);
            return NULL;
        }
    }
    if (n->nprops > 1)
        qsort(order, n->nprops, sizeof *order, by_index_then_name);
    logical_node_t *st = jnode(c, LOGICAL_STRUCT, nullable);
    if (st && n->nprops && !(st->members = arena_alloc(c->base.m->arena, n->nprops * sizeof *st->members)))
        c->base.oom = 1;
    for (size_t i = 0; st && !c->base.oom && i < n->nprops; i++) {
        const jsonschema_prop_t *p = order[i].p;
        int required = name_in(n->required, n->nrequired, p->name);
        const logical_node_t *t = convert(c, p->schema, !required, plen + 1);
        if (!t || user_name_ok(c, p->name.s, p->name.len, "Field") != 0 ||
            set_member(c, &st->members[i], p->name.s, p->name.len, t) != 0) {
            st = NULL;
            break;
        }
        st->members[i].has_default = has_default(p->schema, t);
        st->n = i + 1;
    }
    free(order);
    return c->base.error || c->base.oom ? NULL : st;
}

static const logical_node_t *object(jconv_t *c, const jsonschema_node_t *n, int nullable, int plen)
{
    const char *type;
    if (connect_type(c, n, &type) != 0)
        return NULL;
    if (!str_eq(type, "map"))
        return row(c, n, nullable, plen);
    int multiset = jsonschema_json_str_is(prop(n, "flink.type"), "multiset");
    const logical_node_t *value = convert(c, n->additional, 0, plen + 1);
    const logical_node_t *key = value ? map_key(c, n) : NULL;
    return key ? map_like(c, nullable, key, value, multiset) : NULL;
}

/* extractCanonicalDefsKey: the key after /$defs/ (or, when there is none, /definitions/), unless
 * the pointer goes on into that entry. */
static const char *canonical_key(jconv_t *c, const char *ref)
{
    static const char *const markers[] = {"/$defs/", "/definitions/"};
    for (size_t i = 0; i < 2; i++) {
        const char *at = strstr(ref, markers[i]);
        if (!at)
            continue;
        const char *tail = at + strlen(markers[i]);
        if (strchr(tail, '/'))
            return NULL;
        const char *key = arena_strdup(c->base.m->arena, tail);
        if (!key)
            c->base.oom = 1;
        return key;
    }
    return NULL;
}

/* ToLogicalContext.synthesizeRefName: the same target text, the same Ref<N>; N skips taken names. */
static const char *synthesize(jconv_t *c, const char *ref)
{
    const char *known = hmap_gets(&c->synthesized, ref);
    if (known)
        return known;
    char *name;
    do {
        if (!(name = arena_printf(c->base.m->arena, "Ref%d", c->next_ref++)))
            return c->base.oom = 1, NULL;
    } while (logical_named_has(c->base.m, name));
    char *key = arena_strdup(c->base.m->arena, ref);
    if (!key || hmap_put_try(&c->synthesized, key, strlen(key), name, NULL) != 0)
        return c->base.oom = 1, NULL;
    return name;
}

/* A $ref: a reference to the named type, whose body (converted on first sight, behind an empty
 * placeholder, so a body referring to itself ends) starts an index path of its own. */
static const logical_node_t *reference(jconv_t *c, const jsonschema_node_t *n, int nullable)
{
    const char *name = canonical_key(c, n->ref);
    if (!name && !c->base.oom)
        name = synthesize(c, n->ref);
    if (!name)
        return NULL;
    if (!logical_named_has(c->base.m, name) && n->target) {
        const logical_node_t *placeholder = jnode(c, LOGICAL_STRUCT, 0);
        if (!placeholder || logical_named_put(c->base.m, name, placeholder) != 0)
            return c->base.oom = 1, NULL;
        const logical_node_t *body = convert(c, n->target, 0, 0);
        if (!body)
            return NULL;
        if (logical_named_put(c->base.m, name, body) != 0)
            return c->base.oom = 1, NULL;
    }
    logical_node_t *r = jnode(c, LOGICAL_NAMED_TYPE_REF, nullable);
    if (r)
        r->ref = name;
    return r;
}

/* convertWithCycleDetection and convert, one function: a parsed document's every $ref has its text. */
static const logical_node_t *convert(jconv_t *c, const jsonschema_node_t *n, int nullable, int plen)
{
    if (c->base.error || c->base.oom)
        return NULL;
    if (plen > MAX_TYPE_DEPTH)
        return jfail(c, "Schema type nesting depth exceeds the maximum of %d", MAX_TYPE_DEPTH);
    if (!n) /* a map without its key, value or additionalProperties schema */
        return jfail(c,
                     "Cannot invoke \"org.everit.json.schema.Schema.getTitle()\" because \"schema\" is null");
    if (c->recursion >= MAX_RECURSION)
        return jfail(c, "JSON schema nests types too deeply to convert");
    c->recursion++;
    const logical_node_t *t;
    switch (n->kind) {
    case JSONSCHEMA_NODE_BOOLEAN: t = jnode(c, LOGICAL_BOOLEAN, nullable); break;
    case JSONSCHEMA_NODE_NUMBER: t = number(c, n, nullable); break;
    case JSONSCHEMA_NODE_STRING: t = string(c, n, nullable); break;
    case JSONSCHEMA_NODE_ENUM: t = enumeration(c, n, nullable); break;
    case JSONSCHEMA_NODE_COMBINED: t = union_of(c, n, nullable, plen); break;
    case JSONSCHEMA_NODE_ARRAY: t = array(c, n, nullable, plen); break;
    case JSONSCHEMA_NODE_OBJECT: t = object(c, n, nullable, plen); break;
    case JSONSCHEMA_NODE_EMPTY:
    case JSONSCHEMA_NODE_TRUE: t = jnode(c, LOGICAL_VARIANT, nullable); break;
    case JSONSCHEMA_NODE_REFERENCE: t = reference(c, n, nullable); break;
    case JSONSCHEMA_NODE_NULL:
        t = jfail(c, "Unsupported JSON schema type org.everit.json.schema.NullSchema");
        break;
    case JSONSCHEMA_NODE_FALSE:
        t = jfail(c, "Unsupported JSON schema type org.everit.json.schema.FalseSchema");
        break;
    case JSONSCHEMA_NODE_CONST:
        t = jfail(c, "Unsupported JSON schema type org.everit.json.schema.ConstSchema");
        break;
    case JSONSCHEMA_NODE_NOT:
        t = jfail(c, "Unsupported JSON schema type org.everit.json.schema.NotSchema");
        break;
    case JSONSCHEMA_NODE_CONDITIONAL:
        t = jfail(c, "Unsupported JSON schema type org.everit.json.schema.ConditionalSchema");
        break;
    default: t = jfail(c, "Unsupported JSON schema type"); break;
    }
    c->recursion--;
    return t;
}

/* ---- 6. Entry point ------------------------------------------------------------------------------- */

int logical_from_json(const struct jsonschema *schema, logical_model_t **out, char **error)
{
    *out = NULL;
    *error = NULL;
    jconv_t c = {.base.m = logical_model_new(), .next_ref = 1};
    if (!c.base.m)
        return -1;
    c.base.m->root = convert(&c, jsonschema_root(schema), 0, 0);
    hmap_clear(&c.synthesized);
    return logical_conv_finish(&c.base, !c.base.m->root, out, error);
}
