/*
 * jsonschema_load_modern: drafts 2019-09 and 2020-12.
 *
 * The reference loads these with json-sKema, where every keyword is its own subschema, and
 * translates the result into the everit model the diff needs (docs/compatibility.md "What a
 * document becomes"): keyword partials are joined in document order, partials of the same
 * typed class (string, number, object, array) merge into one, a partial joins the branch of
 * its class in a "type" array, and what stays apart becomes a generated allOf. $ref is one
 * keyword among the others.
 *
 * Chapters: 1. merging partials  2. joining  3. keywords  4. one value
 */
#include "compat/jsonschema/internal.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- 1. Merging partials ---------------------------------------------------- */

static int is_typed(const jsonschema_node_t *n)
{
    return n->kind == JSONSCHEMA_NODE_STRING || n->kind == JSONSCHEMA_NODE_NUMBER ||
           n->kind == JSONSCHEMA_NODE_OBJECT || n->kind == JSONSCHEMA_NODE_ARRAY;
}

/* The reference's "same model class", where any two combined schemas match. */
static int same_class(const jsonschema_node_t *a, const jsonschema_node_t *b)
{
    return a->kind == b->kind;
}

static void merge_int(jsonschema_int_t *dst, jsonschema_int_t src)
{
    if (src.set)
        *dst = src;
}

#define MERGE_PTR(field)                                                                                     \
    do {                                                                                                     \
        if (src->field)                                                                                      \
            dst->field = src->field;                                                                         \
    } while (0)

static void merge_generic(jsonschema_node_t *dst, const jsonschema_node_t *src)
{
    MERGE_PTR(title);
    MERGE_PTR(description);
    MERGE_PTR(default_value);
    MERGE_PTR(min_contains);
    MERGE_PTR(max_contains);
    MERGE_PTR(unevaluated);
    dst->connect_bytes |= src->connect_bytes;
}

static void merge_scalars(jsonschema_node_t *dst, const jsonschema_node_t *src)
{
    merge_int(&dst->min_length, src->min_length);
    merge_int(&dst->max_length, src->max_length);
    MERGE_PTR(pattern);
    MERGE_PTR(minimum);
    MERGE_PTR(maximum);
    MERGE_PTR(exclusive_minimum);
    MERGE_PTR(exclusive_maximum);
    MERGE_PTR(multiple_of);
    dst->requires_integer |= src->requires_integer;
}

static int merge_object(jsonschema_node_t *dst, const jsonschema_node_t *src)
{
    for (size_t i = 0; i < src->nprops; i++) {
        if (jsonschema_node_add_prop(dst, src->props[i].name, src->props[i].schema) != 0)
            return -1;
    }
    for (size_t i = 0; i < src->npattern_props; i++) {
        const jsonschema_prop_t *p = &src->pattern_props[i];
        if (jsonschema_node_add_pattern(dst, p->name, p->schema) != 0)
            return -1;
    }
    for (size_t i = 0; i < src->nrequired; i++) {
        if (jsonschema_node_add_required(dst, src->required[i]) != 0)
            return -1;
    }
    for (size_t i = 0; i < src->ndep_arrays; i++) {
        const jsonschema_dep_t *d = &src->dep_arrays[i];
        if (jsonschema_node_add_dep_name(dst, d->name, (jsonschema_str_t){0}) != 0)
            return -1;
        for (size_t j = 0; j < d->n; j++) {
            if (jsonschema_node_add_dep_name(dst, d->name, d->names[j]) != 0)
                return -1;
        }
    }
    for (size_t i = 0; i < src->ndep_schemas; i++) {
        const jsonschema_prop_t *p = &src->dep_schemas[i];
        if (jsonschema_node_add_dep_schema(dst, p->name, p->schema) != 0)
            return -1;
    }
    merge_int(&dst->min_properties, src->min_properties);
    merge_int(&dst->max_properties, src->max_properties);
    return 0;
}

static int merge_array(jsonschema_node_t *dst, const jsonschema_node_t *src)
{
    for (size_t i = 0; i < src->ntuple; i++) {
        if (jsonschema_node_add_tuple(dst, src->tuple[i]) != 0)
            return -1;
    }
    MERGE_PTR(all_items);
    merge_int(&dst->min_items, src->min_items);
    merge_int(&dst->max_items, src->max_items);
    dst->unique_items |= src->unique_items;
    return 0;
}

/* Copies what src sets into dst; both of the same typed class. */
static int merge(jsonschema_node_t *dst, const jsonschema_node_t *src)
{
    merge_generic(dst, src);
    merge_scalars(dst, src);
    dst->additional_forbidden |= src->additional_forbidden;
    MERGE_PTR(additional);
    if (dst->kind == JSONSCHEMA_NODE_OBJECT)
        return merge_object(dst, src);
    if (dst->kind == JSONSCHEMA_NODE_ARRAY)
        return merge_array(dst, src);
    return 0;
}

#undef MERGE_PTR

/* ---- 2. Joining ----------------------------------------------------------------- */

static int is_generated(const jsonschema_node_t *n, jsonschema_criterion_t c)
{
    return n->kind == JSONSCHEMA_NODE_COMBINED && n->generated && n->criterion == c;
}

static int contains_class(const jsonschema_node_t *combined, const jsonschema_node_t *n)
{
    for (size_t i = 0; i < combined->nsubs; i++) {
        if (same_class(combined->subs[i], n))
            return 1;
    }
    return 0;
}

/* Adds n to the list of combined, merged into the first typed sub of its class. */
static int accumulate(jsonschema_node_t *combined, jsonschema_node_t *n)
{
    for (size_t i = 0; i < combined->nsubs; i++) {
        if (is_typed(combined->subs[i]) && same_class(combined->subs[i], n))
            return merge(combined->subs[i], n);
    }
    return jsonschema_node_add_sub(combined, n);
}

static int accumulate_flat(jsonschema_node_t *all, jsonschema_node_t *n)
{
    if (!is_generated(n, JSONSCHEMA_ALL_OF))
        return accumulate(all, n);
    for (size_t i = 0; i < n->nsubs; i++) {
        if (accumulate(all, n->subs[i]) != 0)
            return -1;
    }
    return 0;
}

/* The translation's join of what a value has so far (prev) with one more partial. */
static jsonschema_node_t *join(jsonschema_loader_t *ld, jsonschema_node_t *prev, jsonschema_node_t *cur)
{
    if (!prev)
        return cur;
    if (is_typed(prev) && same_class(prev, cur))
        return merge(prev, cur) == 0 ? prev : NULL;
    if (is_generated(prev, JSONSCHEMA_ANY_OF) && contains_class(prev, cur))
        return accumulate(prev, cur) == 0 ? prev : NULL;
    if (is_generated(cur, JSONSCHEMA_ANY_OF) && contains_class(cur, prev))
        return accumulate(cur, prev) == 0 ? cur : NULL;
    jsonschema_node_t *all = jsonschema_node_new(ld->schema, JSONSCHEMA_NODE_COMBINED);
    if (!all)
        return NULL;
    all->criterion = JSONSCHEMA_ALL_OF;
    all->generated = 1;
    if (accumulate_flat(all, prev) != 0 || accumulate_flat(all, cur) != 0)
        return NULL;
    return all;
}

/* ---- 3. Keywords ---------------------------------------------------------------- */

typedef struct kwctx {
    jsonschema_loader_t *ld;
    const jsonschema_json_t *v; /* the schema object */
    const char *base;
    const jsonschema_member_t *m; /* the keyword */
} kwctx_t;

static jsonschema_node_t *partial(kwctx_t *k, jsonschema_kind_t kind)
{
    return jsonschema_node_new(k->ld->schema, kind);
}

static jsonschema_node_t *child(kwctx_t *k, const char *seg2, size_t seg2_len, const jsonschema_json_t *value)
{
    size_t mark = jsonschema_path_push(k->ld, k->m->key, k->m->key_len);
    jsonschema_node_t *n = NULL;
    if (seg2)
        jsonschema_path_push(k->ld, seg2, seg2_len);
    if (value->kind != JSONSCHEMA_JSON_OBJECT && value->kind != JSONSCHEMA_JSON_TRUE &&
        value->kind != JSONSCHEMA_JSON_FALSE)
        jsonschema_fail(k->ld, "expected a schema (object or boolean), found %s",
                        jsonschema_json_kind_name(value->kind));
    else if (k->ld->depth >= JSONSCHEMA_MAX_SCHEMA_DEPTH)
        jsonschema_fail(k->ld, "schemas nested more than %d deep", JSONSCHEMA_MAX_SCHEMA_DEPTH);
    else {
        k->ld->depth++;
        n = jsonschema_load_modern(k->ld, value, k->base);
        k->ld->depth--;
    }
    jsonschema_path_pop(k->ld, mark);
    return n;
}

static jsonschema_node_t *child_at(kwctx_t *k, size_t i, const jsonschema_json_t *value)
{
    char seg[24];
    int len = snprintf(seg, sizeof seg, "%zu", i);
    return child(k, seg, (size_t)len, value);
}

static jsonschema_node_t *typed_for(kwctx_t *k, const jsonschema_json_t *t)
{
    static const struct {
        const char *name;
        jsonschema_kind_t kind;
    } types[] = {{"string", JSONSCHEMA_NODE_STRING}, {"integer", JSONSCHEMA_NODE_NUMBER},
                 {"number", JSONSCHEMA_NODE_NUMBER}, {"boolean", JSONSCHEMA_NODE_BOOLEAN},
                 {"null", JSONSCHEMA_NODE_NULL},     {"array", JSONSCHEMA_NODE_ARRAY},
                 {"object", JSONSCHEMA_NODE_OBJECT}};
    for (size_t i = 0; i < sizeof types / sizeof *types; i++) {
        if (jsonschema_json_str_is(t, types[i].name)) {
            jsonschema_node_t *n = partial(k, types[i].kind);
            if (n)
                n->requires_integer = i == 1;
            return n;
        }
    }
    size_t mark = jsonschema_path_push(k->ld, "type", 4);
    jsonschema_fail(k->ld, "unknown type: [%.*s]", (int)t->len, t->str);
    jsonschema_path_pop(k->ld, mark);
    return NULL;
}

static jsonschema_node_t *kw_type(kwctx_t *k)
{
    const jsonschema_json_t *t = k->m->value;
    if (t->kind == JSONSCHEMA_JSON_STRING)
        return typed_for(k, t);
    if (jsonschema_want_string_array(k->ld, "type", t) != 0)
        return NULL;
    jsonschema_node_t *any = partial(k, JSONSCHEMA_NODE_COMBINED);
    if (!any)
        return NULL;
    any->criterion = JSONSCHEMA_ANY_OF;
    any->generated = 1;
    for (size_t i = 0; i < t->n; i++) {
        jsonschema_node_t *sub = typed_for(k, t->elems[i]);
        if (!sub || jsonschema_node_add_sub(any, sub) != 0)
            return NULL;
    }
    return any;
}

/* allOf/anyOf/oneOf: a child made of several partials is spliced in, as the
 * reference's translation flattens generated allOfs into the list. */
static jsonschema_node_t *kw_combined(kwctx_t *k, jsonschema_criterion_t criterion)
{
    const jsonschema_json_t *arr = k->m->value;
    if (jsonschema_want(k->ld, k->m->key, arr, JSONSCHEMA_JSON_ARRAY) != 0)
        return NULL;
    jsonschema_node_t *n = partial(k, JSONSCHEMA_NODE_COMBINED);
    if (!n)
        return NULL;
    n->criterion = criterion;
    for (size_t i = 0; i < arr->n; i++) {
        jsonschema_node_t *sub = child_at(k, i, arr->elems[i]);
        if (!sub)
            return NULL;
        if (is_generated(sub, JSONSCHEMA_ALL_OF)) {
            for (size_t j = 0; j < sub->nsubs; j++) {
                if (jsonschema_node_add_sub(n, sub->subs[j]) != 0)
                    return NULL;
            }
        } else if (jsonschema_node_add_sub(n, sub) != 0) {
            return NULL;
        }
    }
    return n;
}

static jsonschema_node_t *kw_enum(kwctx_t *k)
{
    if (jsonschema_want(k->ld, "enum", k->m->value, JSONSCHEMA_JSON_ARRAY) != 0)
        return NULL;
    jsonschema_node_t *n = partial(k, JSONSCHEMA_NODE_ENUM);
    for (size_t i = 0; n && i < k->m->value->n; i++) {
        if (jsonschema_node_add_value(n, k->m->value->elems[i]) != 0)
            return NULL;
    }
    return n;
}

static jsonschema_node_t *kw_int(kwctx_t *k, jsonschema_kind_t kind, size_t offset)
{
    jsonschema_node_t *n = partial(k, kind);
    if (!n ||
        jsonschema_want_int(k->ld, k->m->key, k->m->value, (jsonschema_int_t *)((char *)n + offset)) != 0)
        return NULL;
    return n;
}

static jsonschema_node_t *kw_number(kwctx_t *k, size_t offset)
{
    jsonschema_node_t *n = partial(k, JSONSCHEMA_NODE_NUMBER);
    if (!n || jsonschema_want_number(k->ld, k->m->key, k->m->value) != 0)
        return NULL;
    if (offset == offsetof(jsonschema_node_t, multiple_of) && k->m->value->num == 0.0) {
        jsonschema_fail(k->ld, "multipleOf should not be 0");
        return NULL;
    }
    *(const jsonschema_json_t **)((char *)n + offset) = k->m->value;
    return n;
}

static jsonschema_node_t *kw_properties(kwctx_t *k, int patterns)
{
    const jsonschema_json_t *obj = k->m->value;
    if (jsonschema_want(k->ld, k->m->key, obj, JSONSCHEMA_JSON_OBJECT) != 0)
        return NULL;
    if (obj->n == 0)
        return partial(k, JSONSCHEMA_NODE_EMPTY); /* contributes nothing */
    jsonschema_node_t *n = partial(k, JSONSCHEMA_NODE_OBJECT);
    for (size_t i = 0; n && i < obj->n; i++) {
        const jsonschema_member_t *m = &obj->members[i];
        jsonschema_node_t *sub = child(k, m->key, m->key_len, m->value);
        jsonschema_str_t name = {m->key, m->key_len};
        if (!sub || (patterns ? jsonschema_node_add_pattern(n, name, sub)
                              : jsonschema_node_add_prop(n, name, sub)) != 0)
            return NULL;
    }
    return n;
}

static jsonschema_node_t *kw_required(kwctx_t *k)
{
    if (jsonschema_want_string_array(k->ld, "required", k->m->value) != 0)
        return NULL;
    jsonschema_node_t *n = partial(k, JSONSCHEMA_NODE_OBJECT);
    for (size_t i = 0; n && i < k->m->value->n; i++) {
        if (jsonschema_node_add_required(n, jsonschema_str_of(k->m->value->elems[i])) != 0)
            return NULL;
    }
    return n;
}

static int dependent_array(kwctx_t *k, jsonschema_node_t *n, const jsonschema_member_t *m)
{
    jsonschema_str_t name = {m->key, m->key_len};
    size_t mark = jsonschema_path_push(k->ld, k->m->key, k->m->key_len);
    int bad = jsonschema_want_string_array(k->ld, m->key, m->value);
    jsonschema_path_pop(k->ld, mark);
    if (bad || jsonschema_node_add_dep_name(n, name, (jsonschema_str_t){0}) != 0)
        return -1;
    for (size_t j = 0; j < m->value->n; j++) {
        if (jsonschema_node_add_dep_name(n, name, jsonschema_str_of(m->value->elems[j])) != 0)
            return -1;
    }
    return 0;
}

/* dependentRequired (arrays), dependentSchemas (schemas), dependencies (either). */
static jsonschema_node_t *kw_dependencies(kwctx_t *k, int arrays, int schemas)
{
    const jsonschema_json_t *obj = k->m->value;
    if (jsonschema_want(k->ld, k->m->key, obj, JSONSCHEMA_JSON_OBJECT) != 0)
        return NULL;
    jsonschema_node_t *n = partial(k, JSONSCHEMA_NODE_OBJECT);
    for (size_t i = 0; n && i < obj->n; i++) {
        const jsonschema_member_t *m = &obj->members[i];
        if (arrays && (!schemas || m->value->kind == JSONSCHEMA_JSON_ARRAY)) {
            if (dependent_array(k, n, m) != 0)
                return NULL;
            continue;
        }
        jsonschema_node_t *sub = child(k, m->key, m->key_len, m->value);
        if (!sub || jsonschema_node_add_dep_schema(n, (jsonschema_str_t){m->key, m->key_len}, sub))
            return NULL;
    }
    return n;
}

/* additionalProperties / additionalItems / items-after-prefix: false closes,
 * true adds nothing, a schema is the schema of the rest. */
static jsonschema_node_t *kw_rest(kwctx_t *k, jsonschema_kind_t kind, int as_all_items)
{
    jsonschema_node_t *n = partial(k, kind);
    const jsonschema_json_t *v = k->m->value;
    if (!n)
        return NULL;
    if (v->kind == JSONSCHEMA_JSON_FALSE) {
        n->additional_forbidden = 1;
        return n;
    }
    jsonschema_node_t *sub = child(k, NULL, 0, v);
    if (!sub)
        return NULL;
    if (sub->kind != JSONSCHEMA_NODE_TRUE) {
        if (as_all_items)
            n->all_items = sub;
        else
            n->additional = sub;
    }
    return n;
}

static jsonschema_node_t *kw_tuple(kwctx_t *k)
{
    if (jsonschema_want(k->ld, k->m->key, k->m->value, JSONSCHEMA_JSON_ARRAY) != 0)
        return NULL;
    jsonschema_node_t *n = partial(k, JSONSCHEMA_NODE_ARRAY);
    for (size_t i = 0; n && i < k->m->value->n; i++) {
        jsonschema_node_t *item = child_at(k, i, k->m->value->elems[i]);
        if (!item || jsonschema_node_add_tuple(n, item) != 0)
            return NULL;
    }
    return n;
}

static jsonschema_node_t *kw_items(kwctx_t *k)
{
    int draft2019 = k->ld->schema->draft == JSONSCHEMA_DRAFT_2019_09;
    if (k->m->value->kind == JSONSCHEMA_JSON_ARRAY && draft2019)
        return kw_tuple(k);
    int after_prefix = jsonschema_json_get(k->v, "prefixItems") != NULL;
    return kw_rest(k, JSONSCHEMA_NODE_ARRAY, !after_prefix);
}

/* The reference keeps minContains (default 1) and maxContains beside contains. */
static jsonschema_node_t *kw_contains(kwctx_t *k)
{
    static const jsonschema_json_t one = {
        .kind = JSONSCHEMA_JSON_NUMBER, .str = (char *)"1", .len = 1, .num = 1.0, .is_integer = 1};
    jsonschema_node_t *n = partial(k, JSONSCHEMA_NODE_ARRAY);
    if (!n || !child(k, NULL, 0, k->m->value))
        return NULL;
    const jsonschema_json_t *min = jsonschema_json_get(k->v, "minContains");
    const jsonschema_json_t *max = jsonschema_json_get(k->v, "maxContains");
    jsonschema_int_t ignored;
    if ((min && jsonschema_want_int(k->ld, "minContains", min, &ignored) != 0) ||
        (max && jsonschema_want_int(k->ld, "maxContains", max, &ignored) != 0))
        return NULL;
    n->min_contains = min ? min : &one;
    n->max_contains = max;
    return n;
}

static jsonschema_node_t *kw_unevaluated(kwctx_t *k, jsonschema_kind_t kind)
{
    jsonschema_node_t *n = partial(k, kind);
    if (!n || !(n->unevaluated = child(k, NULL, 0, k->m->value)))
        return NULL;
    return n;
}

static jsonschema_node_t *kw_string(kwctx_t *k)
{
    jsonschema_node_t *n = partial(k, JSONSCHEMA_NODE_STRING);
    if (!n || jsonschema_want(k->ld, "pattern", k->m->value, JSONSCHEMA_JSON_STRING) != 0)
        return NULL;
    n->pattern = k->m->value;
    return n;
}

/* Keywords whose value is a schema the diff never compares (validated only). */
static jsonschema_node_t *kw_schema_only(kwctx_t *k, jsonschema_kind_t kind)
{
    if (!child(k, NULL, 0, k->m->value))
        return NULL;
    return partial(k, kind);
}

static jsonschema_node_t *kw_conditional(kwctx_t *k)
{
    if (!child(k, NULL, 0, k->m->value))
        return NULL;
    /* One conditional partial for if/then/else together: the first one met. */
    static const char *const trio[] = {"if", "then", "else"};
    for (size_t i = 0; i < 3; i++) {
        const jsonschema_json_t *first = jsonschema_json_get(k->v, trio[i]);
        if (first && first != k->m->value)
            return partial(k, JSONSCHEMA_NODE_EMPTY);
        if (first) {
            jsonschema_node_t *n = partial(k, JSONSCHEMA_NODE_CONDITIONAL);
            if (n)
                n->cond_owner = k->v;
            return n;
        }
    }
    return partial(k, JSONSCHEMA_NODE_EMPTY);
}

static jsonschema_node_t *kw_not(kwctx_t *k)
{
    jsonschema_node_t *n = partial(k, JSONSCHEMA_NODE_NOT);
    if (!n || !(n->negated = child(k, NULL, 0, k->m->value)))
        return NULL;
    return n;
}

static jsonschema_node_t *kw_const(kwctx_t *k)
{
    jsonschema_node_t *n = partial(k, JSONSCHEMA_NODE_CONST);
    if (n)
        n->const_value = k->m->value;
    return n;
}

static jsonschema_node_t *kw_ref(kwctx_t *k)
{
    if (jsonschema_want(k->ld, k->m->key, k->m->value, JSONSCHEMA_JSON_STRING) != 0)
        return NULL;
    jsonschema_node_t *n = partial(k, JSONSCHEMA_NODE_REFERENCE);
    if (!n)
        return NULL;
    n->ref = k->m->value->str;
    return jsonschema_ref_defer(k->ld, n, k->base) == 0 ? n : NULL;
}

static jsonschema_node_t *kw_defs(kwctx_t *k)
{
    const jsonschema_json_t *obj = k->m->value;
    if (jsonschema_want(k->ld, k->m->key, obj, JSONSCHEMA_JSON_OBJECT) != 0)
        return NULL;
    for (size_t i = 0; i < obj->n; i++) {
        if (!child(k, obj->members[i].key, obj->members[i].key_len, obj->members[i].value))
            return NULL;
    }
    return partial(k, JSONSCHEMA_NODE_EMPTY);
}

#define OFF(field) offsetof(jsonschema_node_t, field)

/* The partial one keyword contributes; an EMPTY partial contributes nothing. */
static jsonschema_node_t *keyword_partial(kwctx_t *k)
{
    const char *kw = k->m->key;
    const int d2019 = k->ld->schema->draft == JSONSCHEMA_DRAFT_2019_09;
    static const struct {
        const char *kw;
        int what;
    } table[] = {
        {"type", 1},
        {"enum", 2},
        {"const", 3},
        {"allOf", 4},
        {"anyOf", 5},
        {"oneOf", 6},
        {"not", 7},
        {"$ref", 8},
        {"$dynamicRef", 8},
        {"$recursiveRef", 8},
        {"properties", 9},
        {"patternProperties", 10},
        {"additionalProperties", 11},
        {"required", 12},
        {"minProperties", 13},
        {"maxProperties", 14},
        {"dependentRequired", 15},
        {"dependentSchemas", 16},
        {"dependencies", 17},
        {"propertyNames", 18},
        {"unevaluatedProperties", 19},
        {"items", 20},
        {"prefixItems", 21},
        {"additionalItems", 22},
        {"unevaluatedItems", 23},
        {"contains", 24},
        {"minItems", 25},
        {"maxItems", 26},
        {"uniqueItems", 27},
        {"minLength", 28},
        {"maxLength", 29},
        {"pattern", 30},
        {"minimum", 31},
        {"maximum", 32},
        {"exclusiveMinimum", 33},
        {"exclusiveMaximum", 34},
        {"multipleOf", 35},
        {"if", 36},
        {"then", 36},
        {"else", 36},
        {"$defs", 37},
        {"definitions", 37},
    };
    int what = 0;
    for (size_t i = 0; i < sizeof table / sizeof *table && !what; i++) {
        if (strlen(table[i].kw) == k->m->key_len && strcmp(table[i].kw, kw) == 0)
            what = table[i].what;
    }
    switch (what) {
    case 1: return kw_type(k);
    case 2: return kw_enum(k);
    case 3: return kw_const(k);
    case 4: return kw_combined(k, JSONSCHEMA_ALL_OF);
    case 5: return kw_combined(k, JSONSCHEMA_ANY_OF);
    case 6: return kw_combined(k, JSONSCHEMA_ONE_OF);
    case 7: return kw_not(k);
    case 8: return kw_ref(k);
    case 9: return kw_properties(k, 0);
    case 10: return kw_properties(k, 1);
    case 11: return kw_rest(k, JSONSCHEMA_NODE_OBJECT, 0);
    case 12: return kw_required(k);
    case 13: return kw_int(k, JSONSCHEMA_NODE_OBJECT, OFF(min_properties));
    case 14: return kw_int(k, JSONSCHEMA_NODE_OBJECT, OFF(max_properties));
    case 15: return kw_dependencies(k, 1, 0);
    case 16: return kw_dependencies(k, 0, 1);
    case 17: return kw_dependencies(k, 1, 1);
    case 18: return kw_schema_only(k, JSONSCHEMA_NODE_OBJECT);
    case 19: return kw_unevaluated(k, JSONSCHEMA_NODE_OBJECT);
    case 20: return kw_items(k);
    case 21: return kw_tuple(k);
    case 22: return d2019 ? kw_rest(k, JSONSCHEMA_NODE_ARRAY, 0) : partial(k, JSONSCHEMA_NODE_EMPTY);
    case 23: return kw_unevaluated(k, JSONSCHEMA_NODE_ARRAY);
    case 24: return kw_contains(k);
    case 25: return kw_int(k, JSONSCHEMA_NODE_ARRAY, OFF(min_items));
    case 26: return kw_int(k, JSONSCHEMA_NODE_ARRAY, OFF(max_items));
    case 27: {
        jsonschema_node_t *n = partial(k, JSONSCHEMA_NODE_ARRAY);
        if (!n || jsonschema_want(k->ld, kw, k->m->value, JSONSCHEMA_JSON_TRUE) != 0)
            return NULL;
        n->unique_items = k->m->value->kind == JSONSCHEMA_JSON_TRUE;
        return n;
    }
    case 28: return kw_int(k, JSONSCHEMA_NODE_STRING, OFF(min_length));
    case 29: return kw_int(k, JSONSCHEMA_NODE_STRING, OFF(max_length));
    case 30: return kw_string(k);
    case 31: return kw_number(k, OFF(minimum));
    case 32: return kw_number(k, OFF(maximum));
    case 33: return kw_number(k, OFF(exclusive_minimum));
    case 34: return kw_number(k, OFF(exclusive_maximum));
    case 35: return kw_number(k, OFF(multiple_of));
    case 36: return kw_conditional(k);
    case 37: return kw_defs(k);
    default: return partial(k, JSONSCHEMA_NODE_EMPTY);
    }
}

#undef OFF

/* ---- 4. One value ------------------------------------------------------------------ */

static int common(jsonschema_loader_t *ld, jsonschema_node_t *n, const jsonschema_json_t *v)
{
    const jsonschema_json_t *k;
    if ((k = jsonschema_json_get(v, "title"))) {
        if (jsonschema_want(ld, "title", k, JSONSCHEMA_JSON_STRING) != 0)
            return -1;
        n->title = k;
    }
    if ((k = jsonschema_json_get(v, "description"))) {
        if (jsonschema_want(ld, "description", k, JSONSCHEMA_JSON_STRING) != 0)
            return -1;
        n->description = k;
    }
    if ((k = jsonschema_json_get(v, "$id")) && jsonschema_want(ld, "$id", k, JSONSCHEMA_JSON_STRING) != 0)
        return -1;
    if ((k = jsonschema_json_get(v, "default")))
        n->default_value = k;
    if (jsonschema_json_str_is(jsonschema_json_get(v, "connect.type"), "bytes"))
        n->connect_bytes = 1;
    return 0;
}

/* What the partials amount to: nothing is EMPTY, one generated allOf
 * member stands alone. */
static jsonschema_node_t *settle(jsonschema_loader_t *ld, jsonschema_node_t *acc)
{
    if (acc && is_generated(acc, JSONSCHEMA_ALL_OF) && acc->nsubs == 1)
        return acc->subs[0];
    if (!acc || (is_generated(acc, JSONSCHEMA_ALL_OF) && acc->nsubs == 0))
        return jsonschema_node_new(ld->schema, JSONSCHEMA_NODE_EMPTY);
    return acc;
}

static jsonschema_node_t *load_object(jsonschema_loader_t *ld, const jsonschema_json_t *v, const char *base)
{
    jsonschema_node_t *acc = NULL;
    for (size_t i = 0; i < v->n; i++) {
        kwctx_t k = {ld, v, base, &v->members[i]};
        jsonschema_node_t *p = keyword_partial(&k);
        if (!p)
            return NULL;
        if (p->kind == JSONSCHEMA_NODE_EMPTY)
            continue;
        if (!(acc = join(ld, acc, p)))
            return NULL;
    }
    jsonschema_node_t *n = settle(ld, acc);
    if (!n || common(ld, n, v) != 0)
        return NULL;
    return n;
}

jsonschema_node_t *jsonschema_load_modern(jsonschema_loader_t *ld, const jsonschema_json_t *v,
                                          const char *base)
{
    jsonschema_json_t *scratch = (jsonschema_json_t *)v; /* the document is the loader's own */
    if (v->node)
        return v->node;
    jsonschema_node_t *n;
    if (v->kind == JSONSCHEMA_JSON_TRUE || v->kind == JSONSCHEMA_JSON_FALSE) {
        n = jsonschema_node_new(ld->schema, v->kind == JSONSCHEMA_JSON_TRUE ? JSONSCHEMA_NODE_TRUE
                                                                            : JSONSCHEMA_NODE_FALSE);
    } else if (v->kind != JSONSCHEMA_JSON_OBJECT) {
        jsonschema_fail(ld, "expected a schema (object or boolean), found %s",
                        jsonschema_json_kind_name(v->kind));
        return NULL;
    } else {
        int oom = 0;
        const char *own_base = jsonschema_ref_rebase(ld->schema, base, v, &oom);
        if (oom)
            return NULL;
        n = load_object(ld, v, own_base ? own_base : base);
    }
    if (!n)
        return NULL;
    n->src = v;
    scratch->node = n;
    return n;
}
