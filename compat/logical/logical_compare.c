/*
 * logical_compare: can one logical type evolve into another for a consumer (Confluent's
 * CompatibilityChecker, FlinkComparison, IcebergComparison, FlinkLogicalTypeCasts)?
 *
 *   1. What both modes share: the walk's state, members, references, rendering
 *   2. FLINK: reject a change that reinterprets or invents a stored value
 *   3. ICEBERG_V2 / V3: Iceberg's evolution rules, by name (no field ids), stricter than the spec
 *   4. Entry point
 *
 * Direction is backward: update must read what original wrote. A named type reached from several
 * places is compared once (the first, shallowest path reports), so a shared or recursive type
 * costs one comparison per pair of definitions.
 */
#include "compat/logical/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- 1. Shared ------------------------------------------------------------------------ */

typedef struct cmp {
    const logical_model_t *orig, *upd;
    logical_mode_t mode;
    strlist_t *out;
    strbuf_t path;
    hmap_t ref_pairs;          /* "original update" names compared (both sides references) */
    hmap_t struct_pairs;       /* pairs of struct definitions compared, by identity */
    hmap_t erased_in_progress; /* Iceberg map keys: reference pairs being compared */
    int depth;
    int failed;
} cmp_t;

typedef enum shape { SHAPE_STRUCT, SHAPE_LIST, SHAPE_MAP, SHAPE_MULTISET, SHAPE_PRIMITIVE } shape_t;

/* CompatibilityChecker.FieldView: a struct field or a union branch (always optional). */
typedef struct view {
    const char *name;
    const logical_node_t *type;
    int has_default;
    int default_is_null;
    int forced_nullable;
} view_t;

static view_t view_of(const logical_node_t *n, size_t i)
{
    const logical_member_t *m = &n->members[i];
    if (n->kind == LOGICAL_UNION)
        return (view_t){m->name, m->type, 0, 0, 1};
    return (view_t){m->name, m->type, m->has_default, m->default_is_null, 0};
}

static int effectively_nullable(const view_t *v)
{
    return v->forced_nullable || v->type->nullable;
}

static int non_null_default(const view_t *v)
{
    return v->has_default && !v->default_is_null;
}

static int is_ref(const logical_node_t *n)
{
    return n->kind == LOGICAL_NAMED_TYPE_REF;
}

static int scale_of(const logical_node_t *n)
{
    return n->scale == LOGICAL_NO_PARAM ? 0 : n->scale;
}

static void add(cmp_t *c, const char *rule, const char *message)
{
    if (!message || logical_finding(c->out, rule, &c->path, "%s", message) != 0)
        c->failed = 1;
}

/* describeChange, with an optional parenthesised reason. */
static void add_change(cmp_t *c, const char *rule, const logical_node_t *o, const logical_node_t *u,
                       const char *reason)
{
    strbuf_t b = {0};
    strbuf_puts(&b, "type changed from ");
    logical_render(&b, o);
    strbuf_puts(&b, " to ");
    logical_render(&b, u);
    if (reason)
        strbuf_printf(&b, " (%s)", reason);
    char *message = strbuf_take(&b);
    add(c, rule, message);
    free(message);
}

/* A name -> index table of a struct's members; 0, or -1. */
static int index_names(const logical_node_t *n, hmap_t *out)
{
    for (size_t i = 0; i < n->n; i++)
        if (hmap_put_try(out, n->members[i].name, strlen(n->members[i].name), (void *)(i + 1), NULL) != 0)
            return -1;
    return 0;
}

/* claimStructPair: 1 when the pair is new. */
static int claim_struct_pair(cmp_t *c, const logical_node_t *o, const logical_node_t *u)
{
    if (hmap_get_pair(&c->struct_pairs, o, u))
        return 0;
    if (hmap_put_pair_try(&c->struct_pairs, o, u, (void *)1) != 0)
        c->failed = 1;
    return 1;
}

static void check_recursive(cmp_t *c, const logical_node_t *o, const logical_node_t *u);

/* compareTypes: references resolved, each pair of references once. */
static void compare_types(cmp_t *c, const logical_node_t *o, const logical_node_t *u)
{
    if (c->failed)
        return;
    if (c->depth > LOGICAL_MAX_WALK_DEPTH) {
        add(c, "UNSUPPORTED_TYPE_CHANGE", "named types nest too deeply to compare");
        return;
    }
    if (is_ref(o) || is_ref(u)) {
        if (is_ref(o) && is_ref(u)) {
            size_t lo = strlen(o->ref), lu = strlen(u->ref);
            char *key = malloc(lo + lu + 2);
            if (!key) {
                c->failed = 1;
                return;
            }
            memcpy(key, o->ref, lo);
            key[lo] = ' ';
            memcpy(key + lo + 1, u->ref, lu + 1);
            int seen = hmap_contains(&c->ref_pairs, key, lo + lu + 1);
            if (!seen && hmap_put_try(&c->ref_pairs, key, lo + lu + 1, NULL, NULL) != 0)
                c->failed = 1;
            free(key);
            if (seen)
                return;
        }
        o = logical_resolve(c->orig, o);
        u = logical_resolve(c->upd, u);
    }
    c->depth++;
    check_recursive(c, o, u);
    c->depth--;
}

/* ---- 2. FLINK ------------------------------------------------------------------------------ */

/* FlinkLogicalTypeCasts.Root. */
typedef enum root {
    ROOT_CHAR,
    ROOT_VARCHAR,
    ROOT_BINARY,
    ROOT_VARBINARY,
    ROOT_BOOLEAN,
    ROOT_TINYINT,
    ROOT_SMALLINT,
    ROOT_INTEGER,
    ROOT_BIGINT,
    ROOT_DECIMAL,
    ROOT_FLOAT,
    ROOT_DOUBLE,
    ROOT_DATE,
    ROOT_TIME,
    ROOT_TIMESTAMP,
    ROOT_TIMESTAMP_LTZ,
    ROOT_VARIANT,
} root_t;

#define R(x) (1u << ROOT_##x)
/* IMPLICIT_CASTING_RULES: target -> the sources that widen to it, Flink's table with its seven
 * lossy edges removed (DECIMAL from FLOAT/DOUBLE; FLOAT from INTEGER/BIGINT/DECIMAL; DOUBLE from
 * BIGINT/DECIMAL; DATE and TIME from TIMESTAMP; TIMESTAMP and TIMESTAMP_LTZ from each other). */
static const unsigned implicit_from[] = {
    [ROOT_CHAR] = R(CHAR),
    [ROOT_VARCHAR] = R(CHAR) | R(VARCHAR),
    [ROOT_BINARY] = R(BINARY),
    [ROOT_VARBINARY] = R(BINARY) | R(VARBINARY),
    [ROOT_BOOLEAN] = R(BOOLEAN),
    [ROOT_TINYINT] = R(TINYINT),
    [ROOT_SMALLINT] = R(TINYINT) | R(SMALLINT),
    [ROOT_INTEGER] = R(TINYINT) | R(SMALLINT) | R(INTEGER),
    [ROOT_BIGINT] = R(TINYINT) | R(SMALLINT) | R(INTEGER) | R(BIGINT),
    [ROOT_DECIMAL] = R(TINYINT) | R(SMALLINT) | R(INTEGER) | R(BIGINT) | R(DECIMAL),
    [ROOT_FLOAT] = R(TINYINT) | R(SMALLINT) | R(FLOAT),
    [ROOT_DOUBLE] = R(TINYINT) | R(SMALLINT) | R(INTEGER) | R(FLOAT) | R(DOUBLE),
    [ROOT_DATE] = R(DATE),
    [ROOT_TIME] = R(TIME),
    [ROOT_TIMESTAMP] = R(TIMESTAMP),
    [ROOT_TIMESTAMP_LTZ] = R(TIMESTAMP_LTZ),
    [ROOT_VARIANT] = R(VARIANT),
};
#undef R

/* flinkRootOf: the one erasure is ENUM, which derives to an unbounded VARCHAR. */
static root_t flink_root(const logical_node_t *n)
{
    switch (n->kind) {
    case LOGICAL_BOOLEAN: return ROOT_BOOLEAN;
    case LOGICAL_TINYINT: return ROOT_TINYINT;
    case LOGICAL_SMALLINT: return ROOT_SMALLINT;
    case LOGICAL_INT: return ROOT_INTEGER;
    case LOGICAL_BIGINT: return ROOT_BIGINT;
    case LOGICAL_FLOAT: return ROOT_FLOAT;
    case LOGICAL_DOUBLE: return ROOT_DOUBLE;
    case LOGICAL_DECIMAL: return ROOT_DECIMAL;
    case LOGICAL_CHAR: return ROOT_CHAR;
    case LOGICAL_VARCHAR:
    case LOGICAL_ENUM: return ROOT_VARCHAR;
    case LOGICAL_BINARY: return ROOT_BINARY;
    case LOGICAL_VARBINARY: return ROOT_VARBINARY;
    case LOGICAL_DATE: return ROOT_DATE;
    case LOGICAL_TIME: return ROOT_TIME;
    case LOGICAL_TIMESTAMP: return ROOT_TIMESTAMP;
    case LOGICAL_TIMESTAMP_LTZ: return ROOT_TIMESTAMP_LTZ;
    default: return ROOT_VARIANT;
    }
}

static shape_t flink_shape(const logical_node_t *n)
{
    switch (n->kind) {
    case LOGICAL_STRUCT:
    case LOGICAL_UNION: return SHAPE_STRUCT;
    case LOGICAL_ARRAY: return SHAPE_LIST;
    case LOGICAL_MULTISET: return SHAPE_MULTISET;
    case LOGICAL_MAP: return SHAPE_MAP;
    default: return SHAPE_PRIMITIVE;
    }
}

typedef enum params {
    P_NONE,
    P_FIXED_LENGTH,
    P_VARIABLE_LENGTH,
    P_PRECISION,
    P_PRECISION_AND_SCALE
} params_t;

static params_t params_of(root_t r)
{
    switch (r) {
    case ROOT_CHAR:
    case ROOT_BINARY: return P_FIXED_LENGTH;
    case ROOT_VARCHAR:
    case ROOT_VARBINARY: return P_VARIABLE_LENGTH;
    case ROOT_TIME:
    case ROOT_TIMESTAMP:
    case ROOT_TIMESTAMP_LTZ: return P_PRECISION;
    case ROOT_DECIMAL: return P_PRECISION_AND_SCALE;
    default: return P_NONE;
    }
}

/* flinkLengthOf: an ENUM is an unbounded VARCHAR; a non-positive variable length is unbounded. */
static int flink_length(const logical_node_t *n)
{
    if (n->kind == LOGICAL_ENUM)
        return LOGICAL_MAX_LENGTH;
    if (n->kind == LOGICAL_VARCHAR || n->kind == LOGICAL_VARBINARY)
        return n->length > 0 ? n->length : LOGICAL_MAX_LENGTH;
    return n->length;
}

static int decimal_digits(root_t r)
{
    switch (r) {
    case ROOT_TINYINT: return 3;
    case ROOT_SMALLINT: return 5;
    case ROOT_INTEGER: return 10;
    case ROOT_BIGINT: return 19;
    default: return 0;
    }
}

static void flink_primitives(cmp_t *c, const logical_node_t *o, const logical_node_t *u)
{
    root_t ro = flink_root(o), ru = flink_root(u);
    if (!(implicit_from[ru] & (1u << ro))) {
        add_change(c, "UNSUPPORTED_TYPE_CHANGE", o, u, NULL);
        return;
    }
    params_t po = params_of(ro), pu = params_of(ru);
    if (po == P_FIXED_LENGTH && pu == P_VARIABLE_LENGTH) {
        if (flink_length(u) < flink_length(o))
            add_change(c, "UNSUPPORTED_TYPE_CHANGE", o, u, "length may not shrink");
        return;
    }
    if (po == pu) {
        switch (po) {
        case P_FIXED_LENGTH:
            if (flink_length(u) != flink_length(o))
                add_change(c, "UNSUPPORTED_TYPE_CHANGE", o, u, "a fixed-length type cannot change length");
            return;
        case P_VARIABLE_LENGTH:
            if (flink_length(u) < flink_length(o))
                add_change(c, "UNSUPPORTED_TYPE_CHANGE", o, u, "length may not shrink");
            return;
        case P_PRECISION:
            if (u->precision != o->precision)
                add_change(c, "UNSUPPORTED_TYPE_CHANGE", o, u,
                           "precision selects the unit of the stored value and cannot change");
            return;
        case P_PRECISION_AND_SCALE:
            if (scale_of(u) != scale_of(o) || u->precision < o->precision)
                add_change(c, "UNSUPPORTED_TYPE_CHANGE", o, u,
                           "decimal scale must be unchanged and precision may not shrink");
            return;
        default: return;
        }
    }
    if (pu == P_PRECISION_AND_SCALE) {
        int needed = decimal_digits(ro);
        if (needed > 0 && u->precision - scale_of(u) < needed)
            add_change(c, "UNSUPPORTED_TYPE_CHANGE", o, u,
                       "target cannot represent the full range of the source");
    }
}

/* compareChild: a container's child checks its nullability on the way in. */
static void flink_child(cmp_t *c, const logical_node_t *o, const logical_node_t *u, const char *suffix)
{
    size_t len = logical_path_suffix(&c->path, suffix);
    if (o->nullable && !u->nullable)
        add(c, "NULLABLE_TO_NON_NULLABLE",
            "container child was nullable and is now NOT NULL; existing collections may hold nulls");
    compare_types(c, o, u);
    logical_path_pop(&c->path, len);
}

static void flink_structs(cmp_t *c, const logical_node_t *o, const logical_node_t *u)
{
    hmap_t by_name = {0};
    if (index_names(o, &by_name) != 0)
        c->failed = 1;
    for (size_t i = 0; i < u->n && !c->failed; i++) {
        view_t uf = view_of(u, i);
        size_t len = logical_path_child(&c->path, uf.name);
        size_t at = (size_t)hmap_gets(&by_name, uf.name);
        if (!at) {
            if (!effectively_nullable(&uf) && !non_null_default(&uf))
                add(c, "REQUIRED_FIELD_ADDED",
                    "added column is neither nullable nor defaulted, so rows written before it existed have "
                    "no "
                    "value for it");
            logical_path_pop(&c->path, len);
            continue;
        }
        view_t of = view_of(o, at - 1);
        if (effectively_nullable(&of) && !effectively_nullable(&uf))
            add(c, "NULLABLE_TO_NON_NULLABLE",
                "column was nullable and is now NOT NULL; pre-existing rows may hold nulls");
        /* validateDefaultNotRemoved: a NOT NULL column that may be absent keeps a default. */
        if (!effectively_nullable(&of) && !effectively_nullable(&uf) && non_null_default(&of) &&
            !non_null_default(&uf))
            add(c, "NON_NULLABLE_DEFAULT_REMOVED",
                "NOT NULL column lost its default; rows that omitted the column have no value to read");
        compare_types(c, of.type, uf.type);
        logical_path_pop(&c->path, len);
    }
    hmap_clear(&by_name);
}

static void flink_check(cmp_t *c, const logical_node_t *o, const logical_node_t *u)
{
    shape_t so = flink_shape(o), su = flink_shape(u);
    if (so != su) {
        add_change(c, "TYPE_MISMATCH", o, u, NULL);
        return;
    }
    switch (so) {
    case SHAPE_STRUCT:
        if (claim_struct_pair(c, o, u))
            flink_structs(c, o, u);
        return;
    case SHAPE_LIST:
    case SHAPE_MULTISET: flink_child(c, o->element, u->element, "[]"); return;
    case SHAPE_MAP:
        flink_child(c, o->key, u->key, "{key}");
        flink_child(c, o->value, u->value, "{}");
        return;
    default: flink_primitives(c, o, u); return;
    }
}

/* ---- 3. ICEBERG ---------------------------------------------------------------------------- */

typedef enum iclass {
    IC_BOOLEAN,
    IC_INT,
    IC_LONG,
    IC_FLOAT,
    IC_DOUBLE,
    IC_DECIMAL,
    IC_DATE,
    IC_TIME,
    IC_TIMESTAMP,
    IC_TIMESTAMPTZ,
    IC_TIMESTAMP_NANO,
    IC_TIMESTAMPTZ_NANO,
    IC_STRING,
    IC_BINARY,
    IC_FIXED,
    IC_VARIANT,
} iclass_t;

/* icebergClassOf: what Iceberg models of a primitive (no lengths, microsecond time). */
static iclass_t iceberg_class(const logical_node_t *n)
{
    switch (n->kind) {
    case LOGICAL_BOOLEAN: return IC_BOOLEAN;
    case LOGICAL_TINYINT:
    case LOGICAL_SMALLINT:
    case LOGICAL_INT: return IC_INT;
    case LOGICAL_BIGINT: return IC_LONG;
    case LOGICAL_FLOAT: return IC_FLOAT;
    case LOGICAL_DOUBLE: return IC_DOUBLE;
    case LOGICAL_DECIMAL: return IC_DECIMAL;
    case LOGICAL_DATE: return IC_DATE;
    case LOGICAL_TIME: return IC_TIME;
    case LOGICAL_TIMESTAMP: return n->precision > 6 ? IC_TIMESTAMP_NANO : IC_TIMESTAMP;
    case LOGICAL_TIMESTAMP_LTZ: return n->precision > 6 ? IC_TIMESTAMPTZ_NANO : IC_TIMESTAMPTZ;
    case LOGICAL_CHAR:
    case LOGICAL_VARCHAR:
    case LOGICAL_ENUM: return IC_STRING;
    case LOGICAL_VARBINARY: return IC_BINARY;
    case LOGICAL_BINARY: return IC_FIXED;
    default: return IC_VARIANT;
    }
}

/* kindOf: a UNION is a struct of its branches, a MULTISET a map to its INT count. */
static shape_t iceberg_shape(const logical_node_t *n)
{
    switch (n->kind) {
    case LOGICAL_STRUCT:
    case LOGICAL_UNION: return SHAPE_STRUCT;
    case LOGICAL_ARRAY: return SHAPE_LIST;
    case LOGICAL_MAP:
    case LOGICAL_MULTISET: return SHAPE_MAP;
    default: return SHAPE_PRIMITIVE;
    }
}

static const logical_node_t multiset_count = {.kind = LOGICAL_INT, .nullable = 0, .scale = LOGICAL_NO_PARAM};

static const logical_node_t *key_of(const logical_node_t *n)
{
    return n->kind == LOGICAL_MULTISET ? n->element : n->key;
}

static const logical_node_t *value_of(const logical_node_t *n)
{
    return n->kind == LOGICAL_MULTISET ? &multiset_count : n->value;
}

static int iceberg_v3(const cmp_t *c)
{
    return c->mode == LOGICAL_MODE_ICEBERG_V3;
}

/* isEffectivelyOptional, with the container relaxation (an absent list or map reads as empty). */
static int effectively_optional(cmp_t *c, const view_t *f, const view_t *original)
{
    if (effectively_nullable(f))
        return 1;
    if (iceberg_v3(c) && !original && f->type->kind != LOGICAL_VARIANT && non_null_default(f))
        return 1;
    if (!f->has_default)
        return 0;
    shape_t s = iceberg_shape(logical_resolve(c->upd, f->type));
    if (s != SHAPE_LIST && s != SHAPE_MAP)
        return 0;
    return !original || effectively_nullable(original);
}

static void iceberg_structs(cmp_t *c, const logical_node_t *o, const logical_node_t *u)
{
    hmap_t by_name = {0}, update_names = {0};
    if (index_names(o, &by_name) != 0 || index_names(u, &update_names) != 0)
        c->failed = 1;
    long last_seen = -1;
    for (size_t i = 0; i < u->n && !c->failed; i++) {
        view_t uf = view_of(u, i);
        size_t len = logical_path_child(&c->path, uf.name);
        size_t at = (size_t)hmap_gets(&by_name, uf.name);
        if (!at) {
            if (!effectively_optional(c, &uf, NULL))
                add(c, "REQUIRED_FIELD_ADDED",
                    iceberg_v3(c)
                        ? "added field is neither nullable nor defaulted, so pre-existing rows have no "
                          "value for it; a non-null column default would make it readable"
                        : "added field is neither nullable nor defaulted, so pre-existing rows have no "
                          "value for it; format-version 2 cannot store a column default");
            logical_path_pop(&c->path, len);
            continue;
        }
        /* The watermark moves even on a violation: one swap, one finding. */
        long index = (long)at - 1;
        if (index < last_seen)
            add(c, "FIELD_REORDERED", "field moved ahead of a field that preceded it in the original schema");
        last_seen = index;
        view_t of = view_of(o, at - 1);
        if (effectively_nullable(&of) && !effectively_optional(c, &uf, &of))
            add(c, "NULLABLE_TO_NON_NULLABLE",
                "field was nullable and is now non-nullable; pre-existing rows may hold nulls");
        compare_types(c, of.type, uf.type);
        logical_path_pop(&c->path, len);
    }
    for (size_t i = 0; i < o->n && !c->failed; i++) {
        if (hmap_contains(&update_names, o->members[i].name, strlen(o->members[i].name)))
            continue;
        size_t len = logical_path_child(&c->path, o->members[i].name);
        add(c, "FIELD_DELETED", "field present in the original schema is missing from the update");
        logical_path_pop(&c->path, len);
    }
    hmap_clear(&by_name);
    hmap_clear(&update_names);
}

static int erased_equals(cmp_t *c, const logical_node_t *o, const logical_node_t *u, int depth);

static int erased_equals_resolved(cmp_t *c, const logical_node_t *l, const logical_node_t *r, int depth)
{
    l = logical_resolve(c->orig, l);
    r = logical_resolve(c->upd, r);
    if (is_ref(l) || is_ref(r))
        return is_ref(l) && is_ref(r) && strcmp(l->ref, r->ref) == 0;
    shape_t s = iceberg_shape(l);
    if (s != iceberg_shape(r))
        return 0;
    switch (s) {
    case SHAPE_STRUCT:
        if (l->n != r->n)
            return 0;
        for (size_t i = 0; i < l->n; i++)
            if (strcmp(l->members[i].name, r->members[i].name) != 0 ||
                !erased_equals(c, l->members[i].type, r->members[i].type, depth + 1))
                return 0;
        return 1;
    case SHAPE_LIST: return erased_equals(c, l->element, r->element, depth + 1);
    case SHAPE_MAP:
        return erased_equals(c, key_of(l), key_of(r), depth + 1) &&
               erased_equals(c, value_of(l), value_of(r), depth + 1);
    default: {
        iclass_t k = iceberg_class(l);
        if (k != iceberg_class(r))
            return 0;
        if (k == IC_DECIMAL)
            return l->precision == r->precision && scale_of(l) == scale_of(r);
        if (k == IC_FIXED)
            return l->length == r->length;
        return 1;
    }
    }
}

/* erasedEquals: structural equality under Iceberg's erasure (map keys); a reference pair met again
 * while being compared is a cycle, equal to itself. */
static int erased_equals(cmp_t *c, const logical_node_t *o, const logical_node_t *u, int depth)
{
    if (depth > LOGICAL_MAX_WALK_DEPTH)
        return 1;
    if (!(is_ref(o) && is_ref(u)))
        return erased_equals_resolved(c, o, u, depth);
    char *key = NULL;
    if (asprintf(&key, "%s %s", o->ref, u->ref) < 0) {
        c->failed = 1;
        return 1;
    }
    if (hmap_contains(&c->erased_in_progress, key, strlen(key))) {
        free(key);
        return 1;
    }
    if (hmap_put_try(&c->erased_in_progress, key, strlen(key), NULL, NULL) != 0) {
        c->failed = 1;
        free(key);
        return 1;
    }
    int eq = erased_equals_resolved(c, o, u, depth);
    hmap_del(&c->erased_in_progress, key, strlen(key));
    free(key);
    return eq;
}

static void iceberg_primitives(cmp_t *c, const logical_node_t *o, const logical_node_t *u)
{
    iclass_t ko = iceberg_class(o), ku = iceberg_class(u);
    if (ko == ku) {
        if (ko == IC_DECIMAL && (scale_of(u) != scale_of(o) || u->precision < o->precision))
            add_change(c, "UNSUPPORTED_TYPE_CHANGE", o, u,
                       "decimal scale must be unchanged and precision may not shrink");
        else if (ko == IC_FIXED && u->length != o->length)
            add_change(c, "UNSUPPORTED_TYPE_CHANGE", o, u, "fixed-length binary cannot change length");
        return;
    }
    /* TypeUtil.isPromotionAllowed: int -> long, float -> double. */
    if (!((ko == IC_INT && ku == IC_LONG) || (ko == IC_FLOAT && ku == IC_DOUBLE)))
        add_change(c, "UNSUPPORTED_TYPE_CHANGE", o, u, NULL);
}

static void iceberg_check(cmp_t *c, const logical_node_t *o, const logical_node_t *u)
{
    shape_t so = iceberg_shape(o), su = iceberg_shape(u);
    if (so != su) {
        add_change(c, "TYPE_MISMATCH", o, u, NULL);
        return;
    }
    size_t len;
    switch (so) {
    case SHAPE_STRUCT:
        if (claim_struct_pair(c, o, u))
            iceberg_structs(c, o, u);
        return;
    case SHAPE_LIST:
        len = logical_path_suffix(&c->path, "[]");
        compare_types(c, o->element, u->element);
        logical_path_pop(&c->path, len);
        return;
    case SHAPE_MAP:
        if (!erased_equals(c, key_of(o), key_of(u), 0)) {
            strbuf_t b = {0};
            strbuf_puts(&b, "map key type changed from ");
            logical_render(&b, key_of(o));
            strbuf_puts(&b, " to ");
            logical_render(&b, key_of(u));
            char *message = strbuf_take(&b);
            add(c, "MAP_KEY_TYPE_MISMATCH", message);
            free(message);
        }
        len = logical_path_suffix(&c->path, "{}");
        compare_types(c, value_of(o), value_of(u));
        logical_path_pop(&c->path, len);
        return;
    default: iceberg_primitives(c, o, u); return;
    }
}

/* ---- 4. Entry point ------------------------------------------------------------------------- */

/* checkCompatibilityRecursive: a reference left after resolving (an external type) compares by name. */
static void check_recursive(cmp_t *c, const logical_node_t *o, const logical_node_t *u)
{
    if (is_ref(o) || is_ref(u)) {
        if (!is_ref(o) || !is_ref(u) || strcmp(o->ref, u->ref) != 0)
            add_change(c, "TYPE_MISMATCH", o, u, NULL);
        return;
    }
    if (c->mode == LOGICAL_MODE_FLINK)
        flink_check(c, o, u);
    else
        iceberg_check(c, o, u);
}

int logical_compare(logical_mode_t mode, const logical_model_t *original, const logical_model_t *update,
                    strlist_t *out)
{
    cmp_t c = {.orig = original, .upd = update, .mode = mode, .out = out};
    compare_types(&c, original->root, update->root);
    int rc = c.failed || c.path.failed ? -1 : 0;
    strbuf_free(&c.path);
    hmap_clear(&c.ref_pairs);
    hmap_clear(&c.struct_pairs);
    hmap_clear(&c.erased_in_progress);
    return rc;
}
