/*
 * avro_logical: which properties make a valid logical type. Only
 * normalization looks at the result; an invalid logical type is just
 * properties (Avro's fromSchemaIgnoreInvalid).
 */
#include "compat/avro/internal.h"

#include <limits.h>
#include <math.h>
#include <string.h>

static const struct {
    const char *name;
    avro_logical_t type;
    avro_kind_t base; /* the one underlying type, or AVRO_KIND_UNRESOLVED when special */
} logical_types[] = {
    {"decimal", AVRO_LOGICAL_DECIMAL, AVRO_KIND_UNRESOLVED},
    {"big-decimal", AVRO_LOGICAL_BIG_DECIMAL, AVRO_KIND_BYTES},
    {"uuid", AVRO_LOGICAL_UUID, AVRO_KIND_UNRESOLVED},
    {"duration", AVRO_LOGICAL_DURATION, AVRO_KIND_UNRESOLVED},
    {"date", AVRO_LOGICAL_DATE, AVRO_KIND_INT},
    {"time-millis", AVRO_LOGICAL_TIME_MILLIS, AVRO_KIND_INT},
    {"time-micros", AVRO_LOGICAL_TIME_MICROS, AVRO_KIND_LONG},
    {"timestamp-millis", AVRO_LOGICAL_TIMESTAMP_MILLIS, AVRO_KIND_LONG},
    {"timestamp-micros", AVRO_LOGICAL_TIMESTAMP_MICROS, AVRO_KIND_LONG},
    {"timestamp-nanos", AVRO_LOGICAL_TIMESTAMP_NANOS, AVRO_KIND_LONG},
    {"local-timestamp-millis", AVRO_LOGICAL_LOCAL_TIMESTAMP_MILLIS, AVRO_KIND_LONG},
    {"local-timestamp-micros", AVRO_LOGICAL_LOCAL_TIMESTAMP_MICROS, AVRO_KIND_LONG},
    {"local-timestamp-nanos", AVRO_LOGICAL_LOCAL_TIMESTAMP_NANOS, AVRO_KIND_LONG},
};

const char *avro_logical_name(avro_logical_t l)
{
    for (size_t i = 0; i < sizeof logical_types / sizeof *logical_types; i++)
        if (logical_types[i].type == l)
            return logical_types[i].name;
    return NULL;
}

static const json_t *prop_get(const avro_node_t *n, const char *key)
{
    for (size_t i = 0; i < n->props.n; i++)
        if (strcmp(n->props.items[i].key, key) == 0)
            return n->props.items[i].value;
    return NULL;
}

/* Java's getObjectProp(...) instanceof Integer. */
static int prop_int(const avro_node_t *n, const char *key, int *out)
{
    const json_t *v = prop_get(n, key);
    if (!json_is_integer(v) || json_integer_value(v) < INT_MIN || json_integer_value(v) > INT_MAX)
        return -1;
    *out = (int)json_integer_value(v);
    return 0;
}

/* Decimal.maxPrecision; the int arithmetic overflows like Java's for huge sizes. */
static long decimal_max_precision(const avro_node_t *n)
{
    if (n->kind == AVRO_KIND_BYTES)
        return INT_MAX;
    int bits = (int)((unsigned)n->u.fixed.size * 8u) - 1;
    return lround(floor(log10(2) * bits));
}

static int decimal_valid(avro_node_t *n)
{
    if (n->kind != AVRO_KIND_FIXED && n->kind != AVRO_KIND_BYTES)
        return 0;
    if (!prop_get(n, "precision") || prop_int(n, "precision", &n->precision) != 0)
        return 0;
    n->scale = 0;
    if (prop_get(n, "scale") && prop_int(n, "scale", &n->scale) != 0)
        return 0;
    return n->precision > 0 && n->precision <= decimal_max_precision(n) && n->scale >= 0 &&
           n->scale <= n->precision;
}

static int special_valid(avro_node_t *n, avro_logical_t type)
{
    switch (type) {
    case AVRO_LOGICAL_DECIMAL: return decimal_valid(n);
    case AVRO_LOGICAL_UUID:
        return n->kind == AVRO_KIND_STRING || (n->kind == AVRO_KIND_FIXED && n->u.fixed.size == 16);
    case AVRO_LOGICAL_DURATION: return n->kind == AVRO_KIND_FIXED && n->u.fixed.size == 12;
    default: return 0;
    }
}

/* LogicalType.validate refuses these Java-binding properties next to any logical type. */
static int has_incompatible_prop(const avro_node_t *n)
{
    static const char *const props[] = {"avro.java.string", "java-class", "java-key-class",
                                        "java-element-class"};
    for (size_t i = 0; i < sizeof props / sizeof *props; i++)
        if (avro_json_text(prop_get(n, props[i]), NULL))
            return 1;
    return 0;
}

void avro_logical_detect(avro_node_t *n)
{
    size_t len;
    const char *lt = avro_json_text(prop_get(n, "logicalType"), &len);
    n->logical = AVRO_LOGICAL_NONE;
    if (!lt || has_incompatible_prop(n))
        return;
    for (size_t i = 0; i < sizeof logical_types / sizeof *logical_types; i++) {
        /* With its length: "decimal\u0000" is no logical type. */
        if (len != strlen(logical_types[i].name) || memcmp(lt, logical_types[i].name, len) != 0)
            continue;
        avro_kind_t base = logical_types[i].base;
        int ok = base == AVRO_KIND_UNRESOLVED ? special_valid(n, logical_types[i].type) : n->kind == base;
        if (ok)
            n->logical = logical_types[i].type;
        return;
    }
}
