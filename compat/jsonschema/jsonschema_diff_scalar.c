/*
 * jsonschema_diff_scalar: strings, numbers, enum, const and not (docs/compatibility.md
 * "The kinds of change").
 *
 * Chapters: 1. bounds  2. multipleOf as exact decimals  3. the classes
 */
#include "compat/jsonschema/internal.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- 1. Bounds --------------------------------------------------------------- */

void jsonschema_diff_int_bound(jsonschema_ctx_t *ctx, const char *kw, jsonschema_int_t o, jsonschema_int_t u,
                               jsonschema_bound_changes_t t)
{
    if (o.set == u.set && (!o.set || o.v == u.v))
        return;
    if (!o.set)
        jsonschema_ctx_add_at(ctx, kw, t.added);
    else if (!u.set)
        jsonschema_ctx_add_at(ctx, kw, t.removed);
    else if (o.v < u.v)
        jsonschema_ctx_add_at(ctx, kw, t.increased);
    else
        jsonschema_ctx_add_at(ctx, kw, t.decreased);
}

static void compare_number_bound(jsonschema_ctx_t *ctx, const char *kw, const jsonschema_json_t *o,
                                 const jsonschema_json_t *u, jsonschema_bound_changes_t t)
{
    if (!o && !u)
        return;
    if (!o)
        jsonschema_ctx_add_at(ctx, kw, t.added);
    else if (!u)
        jsonschema_ctx_add_at(ctx, kw, t.removed);
    else if (o->num < u->num)
        jsonschema_ctx_add_at(ctx, kw, t.increased);
    else if (o->num > u->num)
        jsonschema_ctx_add_at(ctx, kw, t.decreased);
}

/* The reference (NumberSchemaDiff) tests a decrease of exclusiveMaximum
 * against the update's *maximum*, not its exclusive limit: with a maximum
 * there, a decrease is reported only when the old limit exceeds it, and we
 * do the same. Without one it dereferences null and the check fails with an
 * internal error, so the change never passes there; we report the decrease,
 * incompatible, so that it does not pass here either (issue 12, item 6). */
static void compare_exclusive_maximum(jsonschema_ctx_t *ctx, const jsonschema_node_t *o,
                                      const jsonschema_node_t *u)
{
    const jsonschema_json_t *oe = o->exclusive_maximum, *ue = u->exclusive_maximum;
    if (!oe && !ue)
        return;
    if (!oe)
        jsonschema_ctx_add_at(ctx, "exclusiveMaximum", JSONSCHEMA_EXCLUSIVE_MAXIMUM_ADDED);
    else if (!ue)
        jsonschema_ctx_add_at(ctx, "exclusiveMaximum", JSONSCHEMA_EXCLUSIVE_MAXIMUM_REMOVED);
    else if (oe->num < ue->num)
        jsonschema_ctx_add_at(ctx, "exclusiveMaximum", JSONSCHEMA_EXCLUSIVE_MAXIMUM_INCREASED);
    else if (oe->num > ue->num && (!u->maximum || oe->num > u->maximum->num))
        jsonschema_ctx_add_at(ctx, "exclusiveMaximum", JSONSCHEMA_EXCLUSIVE_MAXIMUM_DECREASED);
}

/* ---- 2. multipleOf as exact decimals ------------------------------------------- */

typedef struct decimal {
    __int128 unscaled; /* sign included */
    int scale;
} decimal_t;

/* Reads a number's text ("12", "0.5", "1E+2"); -1 when it does not fit. */
static int decimal_parse(const char *s, decimal_t *out)
{
    __int128 v = 0;
    int scale = 0, negative = 0, digits = 0, in_fraction = 0;
    const __int128 limit = (__int128)1 << 120;
    if (*s == '-')
        negative = 1, s++;
    for (; *s && *s != 'E' && *s != 'e'; s++) {
        if (*s == '.') {
            in_fraction = 1;
            continue;
        }
        if (!isdigit((unsigned char)*s))
            return -1;
        v = v * 10 + (*s - '0');
        scale += in_fraction;
        if (v > limit || ++digits > 36)
            return -1;
    }
    if (*s) {
        long e = strtol(s + 1, NULL, 10);
        if (e > 36 || e < -36)
            return -1;
        scale -= (int)e;
    }
    for (; scale < 0; scale++) {
        v *= 10;
        if (v > limit)
            return -1;
    }
    out->unscaled = negative ? -v : v;
    out->scale = scale;
    return 0;
}

static int decimal_align(decimal_t *a, decimal_t *b)
{
    const __int128 limit = (__int128)1 << 120;
    while (a->scale < b->scale) {
        a->unscaled *= 10;
        a->scale++;
        if (a->unscaled > limit || a->unscaled < -limit)
            return -1;
    }
    while (b->scale < a->scale) {
        b->unscaled *= 10;
        b->scale++;
        if (b->unscaled > limit || b->unscaled < -limit)
            return -1;
    }
    return 0;
}

/* 1 when a is an exact multiple of b (b not zero). Falls back to doubles
 * for numbers beyond 36 digits. */
static int is_multiple(const jsonschema_json_t *a, const jsonschema_json_t *b)
{
    decimal_t x, y;
    if (decimal_parse(a->str, &x) == 0 && decimal_parse(b->str, &y) == 0 && decimal_align(&x, &y) == 0)
        return y.unscaled != 0 && x.unscaled % y.unscaled == 0;
    return b->num != 0 && fmod(a->num, b->num) == 0;
}

static void compare_multiple_of(jsonschema_ctx_t *ctx, const jsonschema_json_t *o, const jsonschema_json_t *u)
{
    if (!o && !u)
        return;
    if (o && u && o->num == u->num)
        return;
    jsonschema_change_t t;
    if (!o)
        t = JSONSCHEMA_MULTIPLE_OF_ADDED;
    else if (!u)
        t = JSONSCHEMA_MULTIPLE_OF_REMOVED;
    else if (o->num != 0 && is_multiple(u, o))
        t = JSONSCHEMA_MULTIPLE_OF_EXPANDED;
    else if (u->num != 0 && is_multiple(o, u))
        t = JSONSCHEMA_MULTIPLE_OF_REDUCED;
    else
        t = JSONSCHEMA_MULTIPLE_OF_CHANGED;
    jsonschema_ctx_add_at(ctx, "multipleOf", t);
}

/* ---- 3. The classes ------------------------------------------------------------- */

static void compare_string(jsonschema_ctx_t *ctx, const jsonschema_node_t *o, const jsonschema_node_t *u)
{
    jsonschema_diff_int_bound(
        ctx, "maxLength", o->max_length, u->max_length,
        (jsonschema_bound_changes_t){JSONSCHEMA_MAX_LENGTH_ADDED, JSONSCHEMA_MAX_LENGTH_REMOVED,
                                     JSONSCHEMA_MAX_LENGTH_INCREASED, JSONSCHEMA_MAX_LENGTH_DECREASED});
    jsonschema_diff_int_bound(
        ctx, "minLength", o->min_length, u->min_length,
        (jsonschema_bound_changes_t){JSONSCHEMA_MIN_LENGTH_ADDED, JSONSCHEMA_MIN_LENGTH_REMOVED,
                                     JSONSCHEMA_MIN_LENGTH_INCREASED, JSONSCHEMA_MIN_LENGTH_DECREASED});
    if (!o->pattern && u->pattern)
        jsonschema_ctx_add_at(ctx, "pattern", JSONSCHEMA_PATTERN_ADDED);
    else if (o->pattern && !u->pattern)
        jsonschema_ctx_add_at(ctx, "pattern", JSONSCHEMA_PATTERN_REMOVED);
    else if (o->pattern && !jsonschema_json_equal(o->pattern, u->pattern))
        jsonschema_ctx_add_at(ctx, "pattern", JSONSCHEMA_PATTERN_CHANGED);
}

static void compare_number(jsonschema_ctx_t *ctx, const jsonschema_node_t *o, const jsonschema_node_t *u)
{
    compare_number_bound(ctx, "maximum", o->maximum, u->maximum,
                         (jsonschema_bound_changes_t){JSONSCHEMA_MAXIMUM_ADDED, JSONSCHEMA_MAXIMUM_REMOVED,
                                                      JSONSCHEMA_MAXIMUM_INCREASED,
                                                      JSONSCHEMA_MAXIMUM_DECREASED});
    compare_number_bound(ctx, "minimum", o->minimum, u->minimum,
                         (jsonschema_bound_changes_t){JSONSCHEMA_MINIMUM_ADDED, JSONSCHEMA_MINIMUM_REMOVED,
                                                      JSONSCHEMA_MINIMUM_INCREASED,
                                                      JSONSCHEMA_MINIMUM_DECREASED});
    compare_exclusive_maximum(ctx, o, u);
    compare_number_bound(ctx, "exclusiveMinimum", o->exclusive_minimum, u->exclusive_minimum,
                         (jsonschema_bound_changes_t){
                             JSONSCHEMA_EXCLUSIVE_MINIMUM_ADDED, JSONSCHEMA_EXCLUSIVE_MINIMUM_REMOVED,
                             JSONSCHEMA_EXCLUSIVE_MINIMUM_INCREASED, JSONSCHEMA_EXCLUSIVE_MINIMUM_DECREASED});
    compare_multiple_of(ctx, o->multiple_of, u->multiple_of);
    if (o->requires_integer && !u->requires_integer)
        jsonschema_ctx_add(ctx, JSONSCHEMA_TYPE_EXTENDED);
    else if (!o->requires_integer && u->requires_integer)
        jsonschema_ctx_add(ctx, JSONSCHEMA_TYPE_NARROWED);
}

static int contains_value(const jsonschema_node_t *n, const jsonschema_json_t *v)
{
    for (size_t i = 0; i < n->nvalues; i++) {
        if (jsonschema_json_equal(n->values[i], v))
            return 1;
    }
    return 0;
}

/* a's values all in b (set semantics: duplicates do not count). */
static int values_subset(const jsonschema_node_t *a, const jsonschema_node_t *b)
{
    for (size_t i = 0; i < a->nvalues; i++) {
        if (!contains_value(b, a->values[i]))
            return 0;
    }
    return 1;
}

static void compare_enum(jsonschema_ctx_t *ctx, const jsonschema_node_t *o, const jsonschema_node_t *u)
{
    int o_in_u = values_subset(o, u), u_in_o = values_subset(u, o);
    if (o_in_u && u_in_o)
        return;
    jsonschema_ctx_add_at(ctx, "enum",
                          o_in_u   ? JSONSCHEMA_ENUM_ARRAY_EXTENDED
                          : u_in_o ? JSONSCHEMA_ENUM_ARRAY_NARROWED
                                   : JSONSCHEMA_ENUM_ARRAY_CHANGED);
}

/* The update's negated schema must accept what the original's did: compared reversed. */
static void compare_not(jsonschema_ctx_t *ctx, const jsonschema_node_t *o, const jsonschema_node_t *u)
{
    jsonschema_mark_t mark = jsonschema_ctx_push(ctx, "not", 3);
    jsonschema_ctx_t sub;
    jsonschema_ctx_init(&sub, ctx->run, ctx);
    jsonschema_diff_compare(&sub, u->negated, o->negated);
    jsonschema_ctx_add(ctx, jsonschema_ctx_compatible(&sub) ? JSONSCHEMA_NOT_TYPE_NARROWED
                                                            : JSONSCHEMA_NOT_TYPE_EXTENDED);
    jsonschema_ctx_free(&sub);
    jsonschema_ctx_pop(ctx, mark);
}

void jsonschema_diff_scalar(jsonschema_ctx_t *ctx, const jsonschema_node_t *original,
                            const jsonschema_node_t *update)
{
    switch (original->kind) {
    case JSONSCHEMA_NODE_STRING: compare_string(ctx, original, update); break;
    case JSONSCHEMA_NODE_NUMBER: compare_number(ctx, original, update); break;
    case JSONSCHEMA_NODE_ENUM: compare_enum(ctx, original, update); break;
    case JSONSCHEMA_NODE_CONST:
        if (!jsonschema_json_equal(original->const_value, update->const_value))
            jsonschema_ctx_add_at(ctx, "const", JSONSCHEMA_ENUM_ARRAY_CHANGED);
        break;
    case JSONSCHEMA_NODE_NOT: compare_not(ctx, original, update); break;
    default: break; /* null, boolean, empty, true, false, conditional: nothing more */
    }
}
