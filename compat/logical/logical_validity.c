/*
 * logical_validity: can a consumer use one schema at all (Confluent's ValidityChecker)?
 *
 * The walk of ValidityChecker.Walk: empty structs and case collisions before descending (Iceberg
 * modes), dot-joined paths, "[]" for elements, "{key}" and "{}" for a map's key and value; a
 * named type is walked at the first path that reaches it and never again, and a cyclic or
 * unresolved one is reported instead. Findings are collected, never the first only.
 */
#include "compat/logical/internal.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The engine's decimal and Iceberg's agree on 1..38; Iceberg v2 stores microseconds. */
#define MIN_DECIMAL_PRECISION        1
#define MAX_DECIMAL_PRECISION        38
#define MIN_FIXED_LENGTH             1
#define MAX_ICEBERG_MICROS_PRECISION 6

typedef struct walk {
    logical_mode_t mode;
    const logical_model_t *m;
    strlist_t *out;
    strbuf_t path;
    hmap_t walked; /* named types already walked */
    hmap_t cyclic; /* name -> (void *)1 cyclic, (void *)2 not: asked once per name, not per use */
    int failed;
} walk_t;

static int is_iceberg(const walk_t *w)
{
    return w->mode == LOGICAL_MODE_ICEBERG_V2 || w->mode == LOGICAL_MODE_ICEBERG_V3;
}

#define ADD(w, rule, ...)                                                                                    \
    do {                                                                                                     \
        if (logical_finding((w)->out, rule, &(w)->path, __VA_ARGS__) != 0)                                   \
            (w)->failed = 1;                                                                                 \
    } while (0)

/* Locale.ROOT lower case, ASCII being what Avro names hold. */
static char *lower_copy(const char *s)
{
    char *l = strdup(s);
    if (l)
        for (char *p = l; *p; p++)
            *p = (char)tolower((unsigned char)*p);
    return l;
}

/* validateNoCaseCollision: Iceberg's name index is case-insensitive (Iceberg modes only). */
static void case_collisions(walk_t *w, const logical_node_t *n)
{
    if (!is_iceberg(w) || n->n < 2)
        return;
    hmap_t first = {0}, reported = {0};
    for (size_t i = 0; i < n->n && !w->failed; i++) {
        char *key = lower_copy(n->members[i].name);
        if (!key) {
            w->failed = 1;
            break;
        }
        const char *earlier = hmap_gets(&first, key);
        if (!earlier) {
            if (hmap_put_try(&first, key, strlen(key), (void *)n->members[i].name, NULL) != 0)
                w->failed = 1;
        } else if (!hmap_contains(&reported, key, strlen(key))) {
            if (hmap_put_try(&reported, key, strlen(key), NULL, NULL) != 0)
                w->failed = 1;
            ADD(w, "FIELD_NAME_CASE_COLLISION",
                "field names '%s' and '%s' differ only in case, which Iceberg's case-insensitive name "
                "index cannot distinguish",
                earlier, n->members[i].name);
        }
        free(key);
    }
    hmap_clear(&first);
    hmap_clear(&reported);
}

static void decimal(walk_t *w, const logical_node_t *n)
{
    if (n->precision < MIN_DECIMAL_PRECISION || n->precision > MAX_DECIMAL_PRECISION)
        ADD(w, "PRECISION_OUT_OF_RANGE", "DECIMAL precision %d is outside the supported range %d to %d",
            n->precision, MIN_DECIMAL_PRECISION, MAX_DECIMAL_PRECISION);
    if (n->scale == LOGICAL_NO_PARAM)
        return;
    if (n->scale < 0 || n->scale > n->precision)
        ADD(w, "SCALE_OUT_OF_RANGE", "DECIMAL scale %d is outside the supported range 0 to the precision %d",
            n->scale, n->precision);
}

static void primitive(walk_t *w, const logical_node_t *n)
{
    switch (n->kind) {
    case LOGICAL_DECIMAL: decimal(w, n); return;
    case LOGICAL_TIMESTAMP:
    case LOGICAL_TIMESTAMP_LTZ:
        if (w->mode == LOGICAL_MODE_ICEBERG_V2 && n->precision > MAX_ICEBERG_MICROS_PRECISION)
            ADD(w, "UNREPRESENTABLE_TYPE",
                "%s(%d) needs Iceberg's nanosecond timestamp types, which arrived in format-version 3",
                logical_kind_name(n->kind), n->precision);
        return;
    case LOGICAL_CHAR:
    case LOGICAL_BINARY:
    case LOGICAL_VARCHAR:
    case LOGICAL_VARBINARY: {
        /* The unbounded types read zero as "no bound declared". */
        int min = n->kind == LOGICAL_VARCHAR || n->kind == LOGICAL_VARBINARY ? 0 : MIN_FIXED_LENGTH;
        if (n->length < min)
            ADD(w, "LENGTH_OUT_OF_RANGE", "%s length %d is below the minimum of %d",
                logical_kind_name(n->kind), n->length, min);
        return;
    }
    case LOGICAL_VARIANT:
        if (w->mode == LOGICAL_MODE_ICEBERG_V2)
            ADD(w, "UNREPRESENTABLE_TYPE",
                "VARIANT needs Iceberg's variant type, which arrived in format-version 3");
        return;
    default: return;
    }
}

static void walk_type(walk_t *w, const logical_node_t *n, int depth);

static void named_ref(walk_t *w, const logical_node_t *ref, int depth)
{
    const logical_node_t *body = logical_named_get(w->m, ref->ref);
    if (!body) {
        ADD(w, "UNRESOLVED_TYPE_REF", "named type '%s' is referenced but not defined", ref->ref);
        return;
    }
    size_t len = strlen(ref->ref);
    uintptr_t known = (uintptr_t)hmap_get(&w->cyclic, ref->ref, len);
    int cyclic = known ? known == 1 : logical_is_cyclic(w->m, ref->ref);
    if (cyclic < 0 ||
        (!known && hmap_put_try(&w->cyclic, ref->ref, len, (void *)(uintptr_t)(cyclic ? 1 : 2), NULL) != 0)) {
        w->failed = 1;
        return;
    }
    if (cyclic) {
        ADD(w, "CYCLIC_TYPE",
            "named type '%s' refers to itself, and cannot be represented by a non-recursive type system",
            ref->ref);
        return;
    }
    if (hmap_contains(&w->walked, ref->ref, strlen(ref->ref)))
        return;
    if (hmap_put_try(&w->walked, ref->ref, strlen(ref->ref), NULL, NULL) != 0) {
        w->failed = 1;
        return;
    }
    walk_type(w, body, depth + 1);
}

static void walk_type(walk_t *w, const logical_node_t *n, int depth)
{
    if (!n || w->failed)
        return;
    if (depth > LOGICAL_MAX_WALK_DEPTH) {
        ADD(w, "UNREPRESENTABLE_TYPE", "named types nest deeper than %d levels", LOGICAL_MAX_WALK_DEPTH);
        return;
    }
    size_t len;
    switch (n->kind) {
    case LOGICAL_STRUCT:
    case LOGICAL_UNION:
        if (is_iceberg(w) && n->n == 0)
            ADD(w, "EMPTY_STRUCT", "a %s must have at least one field",
                n->kind == LOGICAL_STRUCT ? "struct" : "union");
        case_collisions(w, n);
        for (size_t i = 0; i < n->n && !w->failed; i++) {
            len = logical_path_child(&w->path, n->members[i].name);
            walk_type(w, n->members[i].type, depth + 1);
            logical_path_pop(&w->path, len);
        }
        return;
    case LOGICAL_ARRAY:
    case LOGICAL_MULTISET:
        len = logical_path_suffix(&w->path, "[]");
        walk_type(w, n->element, depth + 1);
        logical_path_pop(&w->path, len);
        return;
    case LOGICAL_MAP:
        len = logical_path_suffix(&w->path, "{key}");
        walk_type(w, n->key, depth + 1);
        logical_path_pop(&w->path, len);
        len = logical_path_suffix(&w->path, "{}");
        walk_type(w, n->value, depth + 1);
        logical_path_pop(&w->path, len);
        return;
    case LOGICAL_NAMED_TYPE_REF: named_ref(w, n, depth); return;
    default: primitive(w, n); return;
    }
}

int logical_validate(logical_mode_t mode, const logical_model_t *m, strlist_t *out)
{
    walk_t w = {.mode = mode, .m = m, .out = out};
    strbuf_puts(&w.path, "");
    walk_type(&w, m->root, 0);
    int rc = w.failed || w.path.failed ? -1 : 0;
    strbuf_free(&w.path);
    hmap_clear(&w.walked);
    hmap_clear(&w.cyclic);
    return rc;
}

const char *logical_mode_name(logical_mode_t mode)
{
    static const char *const names[] = {"FLINK", "ICEBERG_V2", "ICEBERG_V3"};
    return names[mode];
}
