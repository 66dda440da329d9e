/*
 * jsonschema_load: drafts 4, 6 and 7, classified the way everit's loader does it
 * (docs/compatibility.md "What a document becomes"): a "$ref" hides its siblings; otherwise
 * the extractors enum, allOf/oneOf/anyOf, not, const, type and "property sniffing" each
 * contribute partial schemas, and several partials become a generated allOf.
 *
 * Chapters: 1. children  2. typed schemas  3. extractors  4. one value
 */
#include "compat/jsonschema/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Keyword groups: a group consumed by "type" is not sniffed again. */
enum {
    GROUP_STRING = 1,
    GROUP_NUMBER = 2,
    GROUP_OBJECT = 4,
    GROUP_ARRAY = 8,
};

static const char *const string_keywords[] = {"minLength", "maxLength", "pattern", "format", NULL};
static const char *const number_keywords[] = {"minimum",          "maximum",    "exclusiveMinimum",
                                              "exclusiveMaximum", "multipleOf", NULL};
static const char *const object_keywords[] = {"properties",           "required",      "minProperties",
                                              "maxProperties",        "dependencies",  "patternProperties",
                                              "additionalProperties", "propertyNames", NULL};
static const char *const array_keywords[] = {"items",       "additionalItems", "minItems", "maxItems",
                                             "uniqueItems", "contains",        NULL};

static int is_draft4(const jsonschema_loader_t *ld)
{
    return ld->schema->draft == JSONSCHEMA_DRAFT_4;
}

/* "propertyNames" and "contains" are keywords from draft 6 on. */
static int has_any(const jsonschema_loader_t *ld, const jsonschema_json_t *v, const char *const *keywords)
{
    for (; *keywords; keywords++) {
        if (is_draft4(ld) && (strcmp(*keywords, "propertyNames") == 0 || strcmp(*keywords, "contains") == 0))
            continue;
        if (jsonschema_json_get(v, *keywords))
            return 1;
    }
    return 0;
}

/* ---- 1. Children ----------------------------------------------------------- */

/* One value into a node (chapter 4); children recurse into it. */
static jsonschema_node_t *jsonschema_load_classic(jsonschema_loader_t *ld, const jsonschema_json_t *v,
                                                  const char *base);

/* Loads the schema at v/seg1[/seg2]; NULL after recording an error. */
static jsonschema_node_t *load_child(jsonschema_loader_t *ld, const char *seg1, const char *seg2,
                                     size_t seg2_len, const jsonschema_json_t *child, const char *base)
{
    size_t mark = jsonschema_path_push(ld, seg1, strlen(seg1));
    jsonschema_node_t *n = NULL;
    if (seg2)
        jsonschema_path_push(ld, seg2, seg2_len);
    if (child->kind != JSONSCHEMA_JSON_OBJECT && child->kind != JSONSCHEMA_JSON_TRUE &&
        child->kind != JSONSCHEMA_JSON_FALSE)
        jsonschema_fail(ld, "expected a schema (object or boolean), found %s",
                        jsonschema_json_kind_name(child->kind));
    else if (ld->depth >= JSONSCHEMA_MAX_SCHEMA_DEPTH)
        jsonschema_fail(ld, "schemas nested more than %d deep", JSONSCHEMA_MAX_SCHEMA_DEPTH);
    else {
        ld->depth++;
        n = jsonschema_load_classic(ld, child, base);
        ld->depth--;
    }
    jsonschema_path_pop(ld, mark);
    return n;
}

static jsonschema_node_t *load_indexed(jsonschema_loader_t *ld, const char *kw, size_t i,
                                       const jsonschema_json_t *child, const char *base)
{
    char seg[24];
    int len = snprintf(seg, sizeof seg, "%zu", i);
    return load_child(ld, kw, seg, (size_t)len, child, base);
}

/* ---- 2. Typed schemas ------------------------------------------------------- */

static jsonschema_node_t *build_string(jsonschema_loader_t *ld, const jsonschema_json_t *v)
{
    jsonschema_node_t *n = jsonschema_node_new(ld->schema, JSONSCHEMA_NODE_STRING);
    const jsonschema_json_t *k;
    if (!n)
        return NULL;
    if ((k = jsonschema_json_get(v, "minLength")) &&
        jsonschema_want_int(ld, "minLength", k, &n->min_length) != 0)
        return NULL;
    if ((k = jsonschema_json_get(v, "maxLength")) &&
        jsonschema_want_int(ld, "maxLength", k, &n->max_length) != 0)
        return NULL;
    if ((k = jsonschema_json_get(v, "pattern"))) {
        if (jsonschema_want(ld, "pattern", k, JSONSCHEMA_JSON_STRING) != 0)
            return NULL;
        n->pattern = k;
    }
    if ((k = jsonschema_json_get(v, "format")) &&
        jsonschema_want(ld, "format", k, JSONSCHEMA_JSON_STRING) != 0)
        return NULL;
    return n;
}

static int number_limit(jsonschema_loader_t *ld, const jsonschema_json_t *v, const char *kw,
                        const jsonschema_json_t **out)
{
    const jsonschema_json_t *k = jsonschema_json_get(v, kw);
    if (!k)
        return 0;
    if (jsonschema_want_number(ld, kw, k) != 0)
        return -1;
    *out = k;
    return 0;
}

/* Draft 4 spells exclusive limits as booleans beside minimum/maximum; the
 * reference keeps them out of the numeric limits the diff compares. */
static int exclusive_limit(jsonschema_loader_t *ld, const jsonschema_json_t *v, const char *kw,
                           const jsonschema_json_t **out)
{
    const jsonschema_json_t *k = jsonschema_json_get(v, kw);
    if (k && is_draft4(ld))
        return jsonschema_want(ld, kw, k, JSONSCHEMA_JSON_TRUE);
    return number_limit(ld, v, kw, out);
}

static jsonschema_node_t *build_number(jsonschema_loader_t *ld, const jsonschema_json_t *v, int integer)
{
    jsonschema_node_t *n = jsonschema_node_new(ld->schema, JSONSCHEMA_NODE_NUMBER);
    if (!n)
        return NULL;
    n->requires_integer = integer;
    if (number_limit(ld, v, "minimum", &n->minimum) != 0 ||
        number_limit(ld, v, "maximum", &n->maximum) != 0 ||
        number_limit(ld, v, "multipleOf", &n->multiple_of) != 0 ||
        exclusive_limit(ld, v, "exclusiveMinimum", &n->exclusive_minimum) != 0 ||
        exclusive_limit(ld, v, "exclusiveMaximum", &n->exclusive_maximum) != 0)
        return NULL;
    if (n->multiple_of && n->multiple_of->num == 0.0) {
        size_t mark = jsonschema_path_push(ld, "multipleOf", 10);
        jsonschema_fail(ld, "multipleOf should not be 0");
        jsonschema_path_pop(ld, mark);
        return NULL;
    }
    return n;
}

static int object_properties(jsonschema_loader_t *ld, jsonschema_node_t *n, const jsonschema_json_t *props,
                             const char *base)
{
    const char *id_kw = is_draft4(ld) ? "id" : "$id";
    if (jsonschema_want(ld, "properties", props, JSONSCHEMA_JSON_OBJECT) != 0)
        return -1;
    for (size_t i = 0; i < props->n; i++) {
        const jsonschema_member_t *m = &props->members[i];
        /* A property named like the id keyword is an id unless it holds a schema object. */
        if (strcmp(m->key, id_kw) == 0 && m->value->kind != JSONSCHEMA_JSON_OBJECT)
            continue;
        jsonschema_node_t *sub = load_child(ld, "properties", m->key, m->key_len, m->value, base);
        if (!sub || jsonschema_node_add_prop(n, (jsonschema_str_t){m->key, m->key_len}, sub) != 0)
            return -1;
    }
    return 0;
}

static int object_patterns(jsonschema_loader_t *ld, jsonschema_node_t *n, const jsonschema_json_t *pats,
                           const char *base)
{
    if (jsonschema_want(ld, "patternProperties", pats, JSONSCHEMA_JSON_OBJECT) != 0)
        return -1;
    for (size_t i = 0; i < pats->n; i++) {
        const jsonschema_member_t *m = &pats->members[i];
        jsonschema_node_t *sub = load_child(ld, "patternProperties", m->key, m->key_len, m->value, base);
        if (!sub || jsonschema_node_add_pattern(n, (jsonschema_str_t){m->key, m->key_len}, sub) != 0)
            return -1;
    }
    return 0;
}

static int object_dependencies(jsonschema_loader_t *ld, jsonschema_node_t *n, const jsonschema_json_t *deps,
                               const char *base)
{
    if (jsonschema_want(ld, "dependencies", deps, JSONSCHEMA_JSON_OBJECT) != 0)
        return -1;
    for (size_t i = 0; i < deps->n; i++) {
        const jsonschema_member_t *m = &deps->members[i];
        jsonschema_str_t name = {m->key, m->key_len};
        if (m->value->kind == JSONSCHEMA_JSON_ARRAY) {
            size_t mark = jsonschema_path_push(ld, "dependencies", 12);
            int bad = jsonschema_want_string_array(ld, m->key, m->value);
            jsonschema_path_pop(ld, mark);
            if (bad || jsonschema_node_add_dep_name(n, name, (jsonschema_str_t){0}) != 0)
                return -1;
            for (size_t j = 0; j < m->value->n; j++) {
                if (jsonschema_node_add_dep_name(n, name, jsonschema_str_of(m->value->elems[j])))
                    return -1;
            }
            continue;
        }
        jsonschema_node_t *sub = load_child(ld, "dependencies", m->key, m->key_len, m->value, base);
        if (!sub || jsonschema_node_add_dep_schema(n, name, sub) != 0)
            return -1;
    }
    return 0;
}

static int object_additional(jsonschema_loader_t *ld, jsonschema_node_t *n, const jsonschema_json_t *k,
                             const char *base)
{
    if (k->kind == JSONSCHEMA_JSON_TRUE || k->kind == JSONSCHEMA_JSON_FALSE) {
        n->additional_forbidden = k->kind == JSONSCHEMA_JSON_FALSE;
        return 0;
    }
    n->additional = load_child(ld, "additionalProperties", NULL, 0, k, base);
    return n->additional ? 0 : -1;
}

static int object_required(jsonschema_loader_t *ld, jsonschema_node_t *n, const jsonschema_json_t *k)
{
    if (jsonschema_want_string_array(ld, "required", k) != 0)
        return -1;
    for (size_t i = 0; i < k->n; i++) {
        if (jsonschema_node_add_required(n, jsonschema_str_of(k->elems[i])) != 0)
            return -1;
    }
    return 0;
}

static jsonschema_node_t *build_object(jsonschema_loader_t *ld, const jsonschema_json_t *v, const char *base)
{
    jsonschema_node_t *n = jsonschema_node_new(ld->schema, JSONSCHEMA_NODE_OBJECT);
    const jsonschema_json_t *k;
    if (!n)
        return NULL;
    if (((k = jsonschema_json_get(v, "minProperties")) &&
         jsonschema_want_int(ld, "minProperties", k, &n->min_properties) != 0) ||
        ((k = jsonschema_json_get(v, "maxProperties")) &&
         jsonschema_want_int(ld, "maxProperties", k, &n->max_properties) != 0) ||
        ((k = jsonschema_json_get(v, "properties")) && object_properties(ld, n, k, base) != 0) ||
        ((k = jsonschema_json_get(v, "additionalProperties")) && object_additional(ld, n, k, base) != 0) ||
        ((k = jsonschema_json_get(v, "required")) && object_required(ld, n, k) != 0) ||
        ((k = jsonschema_json_get(v, "patternProperties")) && object_patterns(ld, n, k, base) != 0) ||
        ((k = jsonschema_json_get(v, "dependencies")) && object_dependencies(ld, n, k, base) != 0))
        return NULL;
    if (!is_draft4(ld) && (k = jsonschema_json_get(v, "propertyNames")) &&
        !load_child(ld, "propertyNames", NULL, 0, k, base))
        return NULL;
    return n;
}

static int array_items(jsonschema_loader_t *ld, jsonschema_node_t *n, const jsonschema_json_t *k,
                       const char *base)
{
    if (k->kind != JSONSCHEMA_JSON_ARRAY) {
        n->all_items = load_child(ld, "items", NULL, 0, k, base);
        return n->all_items ? 0 : -1;
    }
    for (size_t i = 0; i < k->n; i++) {
        jsonschema_node_t *item = load_indexed(ld, "items", i, k->elems[i], base);
        if (!item || jsonschema_node_add_tuple(n, item) != 0)
            return -1;
    }
    return 0;
}

static int array_additional(jsonschema_loader_t *ld, jsonschema_node_t *n, const jsonschema_json_t *k,
                            const char *base)
{
    if (k->kind == JSONSCHEMA_JSON_TRUE || k->kind == JSONSCHEMA_JSON_FALSE) {
        n->additional_forbidden = k->kind == JSONSCHEMA_JSON_FALSE;
        return 0;
    }
    n->additional = load_child(ld, "additionalItems", NULL, 0, k, base);
    return n->additional ? 0 : -1;
}

static jsonschema_node_t *build_array(jsonschema_loader_t *ld, const jsonschema_json_t *v, const char *base)
{
    jsonschema_node_t *n = jsonschema_node_new(ld->schema, JSONSCHEMA_NODE_ARRAY);
    const jsonschema_json_t *k;
    if (!n)
        return NULL;
    if (((k = jsonschema_json_get(v, "minItems")) &&
         jsonschema_want_int(ld, "minItems", k, &n->min_items) != 0) ||
        ((k = jsonschema_json_get(v, "maxItems")) &&
         jsonschema_want_int(ld, "maxItems", k, &n->max_items) != 0))
        return NULL;
    if ((k = jsonschema_json_get(v, "uniqueItems"))) {
        if (jsonschema_want(ld, "uniqueItems", k, JSONSCHEMA_JSON_TRUE) != 0)
            return NULL;
        n->unique_items = k->kind == JSONSCHEMA_JSON_TRUE;
    }
    if (((k = jsonschema_json_get(v, "additionalItems")) && array_additional(ld, n, k, base)) ||
        ((k = jsonschema_json_get(v, "items")) && array_items(ld, n, k, base) != 0))
        return NULL;
    if (!is_draft4(ld) && (k = jsonschema_json_get(v, "contains")) &&
        !load_child(ld, "contains", NULL, 0, k, base))
        return NULL;
    return n;
}

/* ---- 3. Extractors ----------------------------------------------------------- */

typedef struct partials {
    jsonschema_node_t *items[16];
    size_t n;
    unsigned consumed; /* GROUP_* taken by "type" */
} partials_t;

static int add_partial(partials_t *p, jsonschema_node_t *n)
{
    if (!n)
        return -1;
    if (p->n < sizeof p->items / sizeof *p->items)
        p->items[p->n++] = n;
    return 0;
}

static jsonschema_node_t *build_for_type(jsonschema_loader_t *ld, const jsonschema_json_t *v,
                                         const jsonschema_json_t *type, const char *base, unsigned *consumed)
{
    if (jsonschema_json_str_is(type, "string"))
        return *consumed |= GROUP_STRING, build_string(ld, v);
    if (jsonschema_json_str_is(type, "integer") || jsonschema_json_str_is(type, "number")) {
        *consumed |= GROUP_NUMBER;
        return build_number(ld, v, jsonschema_json_str_is(type, "integer"));
    }
    if (jsonschema_json_str_is(type, "boolean"))
        return jsonschema_node_new(ld->schema, JSONSCHEMA_NODE_BOOLEAN);
    if (jsonschema_json_str_is(type, "null"))
        return jsonschema_node_new(ld->schema, JSONSCHEMA_NODE_NULL);
    if (jsonschema_json_str_is(type, "array"))
        return *consumed |= GROUP_ARRAY, build_array(ld, v, base);
    if (jsonschema_json_str_is(type, "object"))
        return *consumed |= GROUP_OBJECT, build_object(ld, v, base);
    size_t mark = jsonschema_path_push(ld, "type", 4);
    jsonschema_fail(ld, "unknown type: [%.*s]", (int)type->len, type->str);
    jsonschema_path_pop(ld, mark);
    return NULL;
}

static int extract_type(jsonschema_loader_t *ld, const jsonschema_json_t *v, const char *base, partials_t *p)
{
    const jsonschema_json_t *type = jsonschema_json_get(v, "type");
    if (!type)
        return 0;
    if (type->kind == JSONSCHEMA_JSON_STRING)
        return add_partial(p, build_for_type(ld, v, type, base, &p->consumed));
    if (type->kind != JSONSCHEMA_JSON_ARRAY)
        return jsonschema_want(ld, "type", type, JSONSCHEMA_JSON_STRING);
    if (jsonschema_want_string_array(ld, "type", type) != 0)
        return -1;
    jsonschema_node_t *any = jsonschema_node_new(ld->schema, JSONSCHEMA_NODE_COMBINED);
    if (!any)
        return -1;
    any->criterion = JSONSCHEMA_ANY_OF;
    any->generated = 1;
    for (size_t i = 0; i < type->n; i++) {
        jsonschema_node_t *sub = build_for_type(ld, v, type->elems[i], base, &p->consumed);
        if (!sub || jsonschema_node_add_sub(any, sub) != 0)
            return -1;
    }
    return add_partial(p, any);
}

static int extract_combined(jsonschema_loader_t *ld, const jsonschema_json_t *v, const char *base,
                            partials_t *p)
{
    /* The reference iterates a Java HashSet of the three names: this order. */
    static const struct {
        const char *kw;
        jsonschema_criterion_t criterion;
    } order[] = {{"allOf", JSONSCHEMA_ALL_OF}, {"oneOf", JSONSCHEMA_ONE_OF}, {"anyOf", JSONSCHEMA_ANY_OF}};
    for (size_t c = 0; c < 3; c++) {
        const jsonschema_json_t *k = jsonschema_json_get(v, order[c].kw);
        if (!k)
            continue;
        if (jsonschema_want(ld, order[c].kw, k, JSONSCHEMA_JSON_ARRAY) != 0)
            return -1;
        jsonschema_node_t *n = jsonschema_node_new(ld->schema, JSONSCHEMA_NODE_COMBINED);
        if (!n)
            return -1;
        n->criterion = order[c].criterion;
        for (size_t i = 0; i < k->n; i++) {
            jsonschema_node_t *sub = load_indexed(ld, order[c].kw, i, k->elems[i], base);
            if (!sub || jsonschema_node_add_sub(n, sub) != 0)
                return -1;
        }
        if (add_partial(p, n) != 0)
            return -1;
    }
    return 0;
}

static int extract_enum_not_const(jsonschema_loader_t *ld, const jsonschema_json_t *v, const char *base,
                                  partials_t *p)
{
    const jsonschema_json_t *k;
    if ((k = jsonschema_json_get(v, "enum"))) {
        jsonschema_node_t *n = jsonschema_node_new(ld->schema, JSONSCHEMA_NODE_ENUM);
        if (!n || jsonschema_want(ld, "enum", k, JSONSCHEMA_JSON_ARRAY) != 0)
            return -1;
        for (size_t i = 0; i < k->n; i++) {
            if (jsonschema_node_add_value(n, k->elems[i]) != 0)
                return -1;
        }
        if (add_partial(p, n) != 0)
            return -1;
    }
    if (extract_combined(ld, v, base, p) != 0)
        return -1;
    if ((k = jsonschema_json_get(v, "not"))) {
        jsonschema_node_t *n = jsonschema_node_new(ld->schema, JSONSCHEMA_NODE_NOT);
        if (!n || !(n->negated = load_child(ld, "not", NULL, 0, k, base)) || add_partial(p, n))
            return -1;
    }
    if (!is_draft4(ld) && (k = jsonschema_json_get(v, "const"))) {
        jsonschema_node_t *n = jsonschema_node_new(ld->schema, JSONSCHEMA_NODE_CONST);
        if (!n)
            return -1;
        n->const_value = k;
        if (add_partial(p, n) != 0)
            return -1;
    }
    return 0;
}

static int extract_conditional(jsonschema_loader_t *ld, const jsonschema_json_t *v, const char *base,
                               partials_t *p)
{
    static const char *const kws[] = {"if", "then", "else"};
    int present = 0;
    for (size_t i = 0; i < 3; i++) {
        const jsonschema_json_t *k = jsonschema_json_get(v, kws[i]);
        if (k && !load_child(ld, kws[i], NULL, 0, k, base))
            return -1;
        present |= k != NULL;
    }
    if (!present)
        return 0;
    jsonschema_node_t *n = jsonschema_node_new(ld->schema, JSONSCHEMA_NODE_CONDITIONAL);
    if (n)
        n->cond_owner = v;
    return add_partial(p, n);
}

/* Keywords no "type" consumed still make typed schemas that do not require the type. */
static int extract_sniffed(jsonschema_loader_t *ld, const jsonschema_json_t *v, const char *base,
                           partials_t *p)
{
    if (!(p->consumed & GROUP_ARRAY) && has_any(ld, v, array_keywords) &&
        add_partial(p, build_array(ld, v, base)) != 0)
        return -1;
    if (!(p->consumed & GROUP_OBJECT) && has_any(ld, v, object_keywords) &&
        add_partial(p, build_object(ld, v, base)) != 0)
        return -1;
    if (!(p->consumed & GROUP_NUMBER) && has_any(ld, v, number_keywords) &&
        add_partial(p, build_number(ld, v, 0)) != 0)
        return -1;
    if (!(p->consumed & GROUP_STRING) && has_any(ld, v, string_keywords) &&
        add_partial(p, build_string(ld, v)) != 0)
        return -1;
    if (ld->schema->draft == JSONSCHEMA_DRAFT_7)
        return extract_conditional(ld, v, base, p);
    return 0;
}

/* ---- 4. One value -------------------------------------------------------------- */

static int common_string(jsonschema_loader_t *ld, const jsonschema_json_t *v, const char *kw,
                         const jsonschema_json_t **out)
{
    const jsonschema_json_t *k = jsonschema_json_get(v, kw);
    if (!k)
        return 0;
    if (jsonschema_want(ld, kw, k, JSONSCHEMA_JSON_STRING) != 0)
        return -1;
    *out = k;
    return 0;
}

/* id, title, description, default and the unprocessed keywords the diff reads. */
static int load_common(jsonschema_loader_t *ld, jsonschema_node_t *n, const jsonschema_json_t *v)
{
    const jsonschema_json_t *k;
    if (common_string(ld, v, is_draft4(ld) ? "id" : "$id", &n->id) != 0 ||
        common_string(ld, v, "title", &n->title) != 0 ||
        common_string(ld, v, "description", &n->description) != 0)
        return -1;
    if (ld->schema->draft == JSONSCHEMA_DRAFT_7) {
        if (((k = jsonschema_json_get(v, "readOnly")) &&
             jsonschema_want(ld, "readOnly", k, JSONSCHEMA_JSON_TRUE) != 0) ||
            ((k = jsonschema_json_get(v, "writeOnly")) &&
             jsonschema_want(ld, "writeOnly", k, JSONSCHEMA_JSON_TRUE) != 0))
            return -1;
    }
    n->default_value = jsonschema_json_get(v, "default");
    n->connect_bytes = jsonschema_json_str_is(jsonschema_json_get(v, "connect.type"), "bytes");
    k = jsonschema_json_get(v, "minContains");
    n->min_contains = k && k->kind == JSONSCHEMA_JSON_NUMBER ? k : NULL;
    k = jsonschema_json_get(v, "maxContains");
    n->max_contains = k && k->kind == JSONSCHEMA_JSON_NUMBER ? k : NULL;
    return 0;
}

static jsonschema_node_t *load_reference(jsonschema_loader_t *ld, const jsonschema_json_t *v,
                                         const jsonschema_json_t *ref, const char *base)
{
    if (jsonschema_want(ld, "$ref", ref, JSONSCHEMA_JSON_STRING) != 0)
        return NULL;
    jsonschema_node_t *n = jsonschema_node_new(ld->schema, JSONSCHEMA_NODE_REFERENCE);
    if (!n)
        return NULL;
    n->ref = ref->str;
    if (jsonschema_ref_defer(ld, n, base) != 0)
        return NULL;
    return n;
}

static jsonschema_node_t *load_partials(jsonschema_loader_t *ld, const jsonschema_json_t *v, const char *base)
{
    partials_t p = {0};
    if (extract_enum_not_const(ld, v, base, &p) != 0 || extract_type(ld, v, base, &p) != 0 ||
        extract_sniffed(ld, v, base, &p) != 0)
        return NULL;
    if (p.n == 1)
        return p.items[0];
    jsonschema_node_t *n =
        jsonschema_node_new(ld->schema, p.n == 0 ? JSONSCHEMA_NODE_EMPTY : JSONSCHEMA_NODE_COMBINED);
    if (!n)
        return NULL;
    n->criterion = JSONSCHEMA_ALL_OF;
    n->generated = 1;
    for (size_t i = 0; i < p.n; i++) {
        if (jsonschema_node_add_sub(n, p.items[i]) != 0)
            return NULL;
    }
    return n;
}

static jsonschema_node_t *jsonschema_load_classic(jsonschema_loader_t *ld, const jsonschema_json_t *v,
                                                  const char *base)
{
    jsonschema_json_t *scratch = (jsonschema_json_t *)v; /* the document is the loader's own */
    if (v->node)
        return v->node;
    if (v->kind == JSONSCHEMA_JSON_TRUE || v->kind == JSONSCHEMA_JSON_FALSE) {
        scratch->node = jsonschema_node_new(
            ld->schema, v->kind == JSONSCHEMA_JSON_TRUE ? JSONSCHEMA_NODE_TRUE : JSONSCHEMA_NODE_FALSE);
        if (scratch->node)
            ((jsonschema_node_t *)scratch->node)->src = v;
        return scratch->node;
    }
    if (v->kind != JSONSCHEMA_JSON_OBJECT) {
        jsonschema_fail(ld, "expected a schema (object or boolean), found %s",
                        jsonschema_json_kind_name(v->kind));
        return NULL;
    }
    int oom = 0;
    const char *own_base = jsonschema_ref_rebase(ld->schema, base, v, &oom);
    if (oom)
        return NULL;
    const jsonschema_json_t *ref = jsonschema_json_get(v, "$ref");
    jsonschema_node_t *n =
        ref ? load_reference(ld, v, ref, base) : load_partials(ld, v, own_base ? own_base : base);
    if (!n || load_common(ld, n, v) != 0)
        return NULL;
    n->src = v;
    scratch->node = n;
    return n;
}

jsonschema_node_t *jsonschema_load_value(jsonschema_loader_t *ld, const jsonschema_json_t *v,
                                         const char *base)
{
    if (ld->schema->draft >= JSONSCHEMA_DRAFT_2019_09)
        return jsonschema_load_modern(ld, v, base);
    return jsonschema_load_classic(ld, v, base);
}
