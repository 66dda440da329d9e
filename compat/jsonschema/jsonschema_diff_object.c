/*
 * jsonschema_diff_object: objects and their content models (docs/compatibility.md "Content
 * models").
 *
 * Open: anything may be added (no false/schema additionalProperties, no
 * patternProperties, unevaluatedProperties absent or true). Partially open
 * for a name: a pattern that finds the name, else the schema of the
 * additional (or unevaluated) properties covers it. Closed: neither.
 * Removing a property is judged by the update's model, adding one by the
 * original's.
 *
 * Chapters: 1. content models  2. required and properties
 *           3. dependencies and additional/unevaluated properties  4. the class
 */
#include "compat/jsonschema/internal.h"

#include <regex.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* ---- 1. Content models --------------------------------------------------------- */

static int is_open(const jsonschema_node_t *n)
{
    if (n->additional_forbidden || n->additional || n->npattern_props > 0)
        return 0;
    return !n->unevaluated || jsonschema_node_is_empty(n->unevaluated);
}

/* Java's regex dialect to POSIX ERE for the common shorthands; malloc'd. */
static char *posix_regex(const jsonschema_str_t *re)
{
    char *out = malloc(re->len * 6 + 1);
    size_t n = 0;
    if (!out)
        return NULL;
    for (size_t i = 0; i < re->len; i++) {
        if (re->s[i] == '\\' && i + 1 < re->len && (re->s[i + 1] == 'd' || re->s[i + 1] == 'D')) {
            const char *cls = re->s[i + 1] == 'd' ? "[0-9]" : "[^0-9]";
            memcpy(out + n, cls, strlen(cls));
            n += strlen(cls);
            i++;
        } else {
            out[n++] = re->s[i];
        }
    }
    out[n] = '\0';
    return out;
}

/* Java's Matcher.find(): the pattern matches somewhere in name. A pattern
 * POSIX cannot compile covers nothing. */
static int pattern_finds(const jsonschema_str_t *re, const jsonschema_str_t *name)
{
    char *pattern = posix_regex(re);
    char *subject = strndup(name->s, name->len);
    regex_t rx;
    int found = 0;
    if (pattern && subject && regcomp(&rx, pattern, REG_EXTENDED | REG_NOSUB) == 0) {
        found = regexec(&rx, subject, 0, NULL, 0) == 0;
        regfree(&rx);
    }
    free(pattern);
    free(subject);
    return found;
}

static const jsonschema_node_t *partially_open_schema(const jsonschema_node_t *n,
                                                      const jsonschema_str_t *name)
{
    for (size_t i = 0; i < n->npattern_props; i++) {
        if (pattern_finds(&n->pattern_props[i].name, name))
            return n->pattern_props[i].schema;
    }
    if (n->additional)
        return n->additional;
    if (!n->additional_forbidden && n->unevaluated && n->unevaluated->kind != JSONSCHEMA_NODE_FALSE &&
        !jsonschema_node_is_empty(n->unevaluated))
        return n->unevaluated;
    return NULL;
}

/* ---- 2. Required and properties ------------------------------------------------ */

/* By name, through the node's index when it has one (jsonschema_node.c): both
 * loops below ask every name of one side in the other. */
static const jsonschema_node_t *prop_schema(const jsonschema_node_t *n, const jsonschema_str_t *name)
{
    return jsonschema_node_prop(n, name->s, name->len);
}

static int is_required(const jsonschema_node_t *n, const jsonschema_str_t *name)
{
    return jsonschema_node_requires(n, name->s, name->len);
}

static int has_default(const jsonschema_node_t *n)
{
    return n->default_value != NULL;
}

static void compare_required(jsonschema_ctx_t *ctx, const jsonschema_node_t *o, const jsonschema_node_t *u)
{
    jsonschema_mark_t mark = jsonschema_ctx_push(ctx, "required", 8);
    for (size_t i = 0; i < o->nprops; i++) {
        const jsonschema_str_t *name = &o->props[i].name;
        const jsonschema_node_t *usub = prop_schema(u, name);
        if (!usub)
            continue;
        int was = is_required(o, name), is = is_required(u, name);
        if (was == is)
            continue;
        jsonschema_mark_t m2 = jsonschema_ctx_push(ctx, name->s, name->len);
        jsonschema_ctx_add(ctx, was                 ? JSONSCHEMA_REQUIRED_ATTRIBUTE_REMOVED
                                : has_default(usub) ? JSONSCHEMA_REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED
                                                    : JSONSCHEMA_REQUIRED_ATTRIBUTE_ADDED);
        jsonschema_ctx_pop(ctx, m2);
    }
    jsonschema_ctx_pop(ctx, mark);
}

/* Sub-diff against the covering schema, then whether it covered. */
void jsonschema_diff_covered(jsonschema_ctx_t *ctx, const jsonschema_node_t *a, const jsonschema_node_t *b,
                             jsonschema_change_t yes, jsonschema_change_t no)
{
    jsonschema_ctx_t sub;
    jsonschema_ctx_init(&sub, ctx->run, ctx);
    jsonschema_diff_compare(&sub, a, b);
    int ok = jsonschema_ctx_compatible(&sub);
    jsonschema_ctx_adopt(ctx, &sub.diffs);
    jsonschema_ctx_free(&sub);
    jsonschema_ctx_add(ctx, ok ? yes : no);
}

static void property_removed(jsonschema_ctx_t *ctx, const jsonschema_node_t *osub, const jsonschema_node_t *u,
                             const jsonschema_str_t *name)
{
    if (is_open(u)) {
        jsonschema_ctx_add(ctx, JSONSCHEMA_PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL);
        return;
    }
    const jsonschema_node_t *partial = partially_open_schema(u, name);
    if (partial)
        jsonschema_diff_covered(ctx, osub, partial,
                                JSONSCHEMA_PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
                                JSONSCHEMA_PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL);
    else
        jsonschema_ctx_add(ctx, osub->kind == JSONSCHEMA_NODE_FALSE
                                    ? JSONSCHEMA_PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL
                                    : JSONSCHEMA_PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL);
}

static void property_added(jsonschema_ctx_t *ctx, const jsonschema_node_t *o, const jsonschema_node_t *u,
                           const jsonschema_node_t *usub, const jsonschema_str_t *name)
{
    int required = is_required(u, name);
    if (is_open(o)) {
        jsonschema_ctx_add(ctx, jsonschema_node_is_empty(usub)
                                    ? JSONSCHEMA_PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL
                                : !required ? JSONSCHEMA_OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL
                                : has_default(usub)
                                    ? JSONSCHEMA_REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL
                                    : JSONSCHEMA_REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL);
        return;
    }
    const jsonschema_node_t *partial = partially_open_schema(o, name);
    if (partial)
        jsonschema_diff_covered(ctx, partial, usub,
                                JSONSCHEMA_PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
                                JSONSCHEMA_PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL);
    jsonschema_ctx_add(ctx, !required ? JSONSCHEMA_OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL
                            : has_default(usub)
                                ? JSONSCHEMA_REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL
                                : JSONSCHEMA_REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL);
}

static void compare_properties(jsonschema_ctx_t *ctx, const jsonschema_node_t *o, const jsonschema_node_t *u)
{
    jsonschema_mark_t mark = jsonschema_ctx_push(ctx, "properties", 10);
    for (size_t i = 0; i < o->nprops && !jsonschema_ctx_failed(ctx); i++) {
        const jsonschema_str_t *name = &o->props[i].name;
        const jsonschema_node_t *usub = prop_schema(u, name);
        jsonschema_mark_t m2 = jsonschema_ctx_push(ctx, name->s, name->len);
        if (usub)
            jsonschema_diff_compare(ctx, o->props[i].schema, usub);
        else
            property_removed(ctx, o->props[i].schema, u, name);
        jsonschema_ctx_pop(ctx, m2);
    }
    for (size_t i = 0; i < u->nprops && !jsonschema_ctx_failed(ctx); i++) {
        const jsonschema_str_t *name = &u->props[i].name;
        if (prop_schema(o, name))
            continue;
        jsonschema_mark_t m2 = jsonschema_ctx_push(ctx, name->s, name->len);
        property_added(ctx, o, u, u->props[i].schema, name);
        jsonschema_ctx_pop(ctx, m2);
    }
    jsonschema_ctx_pop(ctx, mark);
}

/* ---- 3. Dependencies and additional/unevaluated properties ------------------------ */

static const jsonschema_dep_t *dep_array(const jsonschema_node_t *n, const jsonschema_str_t *name)
{
    for (size_t i = 0; i < n->ndep_arrays; i++) {
        if (n->dep_arrays[i].name.len == name->len &&
            memcmp(n->dep_arrays[i].name.s, name->s, name->len) == 0)
            return &n->dep_arrays[i];
    }
    return NULL;
}

static const jsonschema_node_t *dep_schema(const jsonschema_node_t *n, const jsonschema_str_t *name)
{
    for (size_t i = 0; i < n->ndep_schemas; i++) {
        if (n->dep_schemas[i].name.len == name->len &&
            memcmp(n->dep_schemas[i].name.s, name->s, name->len) == 0)
            return n->dep_schemas[i].schema;
    }
    return NULL;
}

static int names_subset(const jsonschema_dep_t *a, const jsonschema_dep_t *b)
{
    for (size_t i = 0; i < a->n; i++) {
        int found = 0;
        for (size_t j = 0; j < b->n && !found; j++)
            found = a->names[i].len == b->names[j].len &&
                    memcmp(a->names[i].s, b->names[j].s, a->names[i].len) == 0;
        if (!found)
            return 0;
    }
    return 1;
}

static void compare_dep_array(jsonschema_ctx_t *ctx, const jsonschema_dep_t *od, const jsonschema_dep_t *ud)
{
    if (!ud) {
        jsonschema_ctx_add(ctx, JSONSCHEMA_DEPENDENCY_ARRAY_REMOVED);
        return;
    }
    if (!od) {
        jsonschema_ctx_add(ctx, JSONSCHEMA_DEPENDENCY_ARRAY_ADDED);
        return;
    }
    int o_in_u = names_subset(od, ud), u_in_o = names_subset(ud, od);
    if (o_in_u && u_in_o)
        return;
    jsonschema_ctx_add(ctx, o_in_u   ? JSONSCHEMA_DEPENDENCY_ARRAY_EXTENDED
                            : u_in_o ? JSONSCHEMA_DEPENDENCY_ARRAY_NARROWED
                                     : JSONSCHEMA_DEPENDENCY_ARRAY_CHANGED);
}

static void compare_dep_schema(jsonschema_ctx_t *ctx, const jsonschema_node_t *os,
                               const jsonschema_node_t *us)
{
    if (!us)
        jsonschema_ctx_add(ctx, JSONSCHEMA_DEPENDENCY_SCHEMA_REMOVED);
    else if (!os)
        jsonschema_ctx_add(ctx, JSONSCHEMA_DEPENDENCY_SCHEMA_ADDED);
    else
        jsonschema_diff_compare(ctx, os, us);
}

static void compare_dependencies(jsonschema_ctx_t *ctx, const jsonschema_node_t *o,
                                 const jsonschema_node_t *u)
{
    jsonschema_mark_t mark = jsonschema_ctx_push(ctx, "dependencies", 12);
    for (int side = 0; side < 2; side++) {
        const jsonschema_node_t *n = side ? u : o;
        for (size_t i = 0; i < n->ndep_arrays; i++) {
            const jsonschema_str_t *name = &n->dep_arrays[i].name;
            if (side && dep_array(o, name))
                continue; /* already compared from the original's side */
            jsonschema_mark_t m2 = jsonschema_ctx_push(ctx, name->s, name->len);
            compare_dep_array(ctx, dep_array(o, name), dep_array(u, name));
            jsonschema_ctx_pop(ctx, m2);
        }
        for (size_t i = 0; i < n->ndep_schemas && !jsonschema_ctx_failed(ctx); i++) {
            const jsonschema_str_t *name = &n->dep_schemas[i].name;
            if (side && dep_schema(o, name))
                continue;
            jsonschema_mark_t m2 = jsonschema_ctx_push(ctx, name->s, name->len);
            compare_dep_schema(ctx, dep_schema(o, name), dep_schema(u, name));
            jsonschema_ctx_pop(ctx, m2);
        }
    }
    jsonschema_ctx_pop(ctx, mark);
}

typedef struct unevaluated_types {
    jsonschema_change_t added, removed, extended, narrowed;
} unevaluated_types_t;

/* additionalProperties and additionalItems share one rule. */
void jsonschema_diff_additional(jsonschema_ctx_t *ctx, const jsonschema_node_t *o, const jsonschema_node_t *u,
                                int items)
{
    const char *kw = items ? "additionalItems" : "additionalProperties";
    unevaluated_types_t t =
        items ? (unevaluated_types_t){JSONSCHEMA_ADDITIONAL_ITEMS_ADDED, JSONSCHEMA_ADDITIONAL_ITEMS_REMOVED,
                                      JSONSCHEMA_ADDITIONAL_ITEMS_EXTENDED,
                                      JSONSCHEMA_ADDITIONAL_ITEMS_NARROWED}
              : (unevaluated_types_t){
                    JSONSCHEMA_ADDITIONAL_PROPERTIES_ADDED, JSONSCHEMA_ADDITIONAL_PROPERTIES_REMOVED,
                    JSONSCHEMA_ADDITIONAL_PROPERTIES_EXTENDED, JSONSCHEMA_ADDITIONAL_PROPERTIES_NARROWED};
    jsonschema_mark_t mark = jsonschema_ctx_push(ctx, kw, strlen(kw));
    if (o->additional_forbidden != u->additional_forbidden)
        jsonschema_ctx_add(ctx, u->additional_forbidden ? t.removed : t.added);
    else if (!o->additional && u->additional)
        jsonschema_ctx_add(ctx, t.narrowed);
    else if (o->additional && !u->additional)
        jsonschema_ctx_add(ctx, t.extended);
    else
        jsonschema_diff_compare(ctx, o->additional, u->additional);
    jsonschema_ctx_pop(ctx, mark);
}

/* unevaluatedProperties and unevaluatedItems share one rule. */
static void compare_unevaluated_with(jsonschema_ctx_t *ctx, const char *kw, const jsonschema_node_t *ou,
                                     const jsonschema_node_t *uu, unevaluated_types_t t)
{
    if (!ou && !uu)
        return;
    jsonschema_mark_t mark = jsonschema_ctx_push(ctx, kw, strlen(kw));
    int of = ou && ou->kind == JSONSCHEMA_NODE_FALSE, uf = uu && uu->kind == JSONSCHEMA_NODE_FALSE;
    if (!ou)
        jsonschema_ctx_add(ctx, uf ? t.removed : t.narrowed);
    else if (!uu)
        jsonschema_ctx_add(ctx, of ? t.added : t.extended);
    else if (of && !uf)
        jsonschema_ctx_add(ctx, t.added);
    else if (!of && uf)
        jsonschema_ctx_add(ctx, t.removed);
    else if (jsonschema_node_is_empty(ou) && !jsonschema_node_is_empty(uu))
        jsonschema_ctx_add(ctx, t.narrowed);
    else if (!jsonschema_node_is_empty(ou) && jsonschema_node_is_empty(uu))
        jsonschema_ctx_add(ctx, t.extended);
    else
        jsonschema_diff_compare(ctx, ou, uu);
    jsonschema_ctx_pop(ctx, mark);
}

void jsonschema_diff_unevaluated(jsonschema_ctx_t *ctx, const jsonschema_node_t *o,
                                 const jsonschema_node_t *u, int items)
{
    if (items)
        compare_unevaluated_with(ctx, "unevaluatedItems", o->unevaluated, u->unevaluated,
                                 (unevaluated_types_t){JSONSCHEMA_UNEVALUATED_ITEMS_ADDED,
                                                       JSONSCHEMA_UNEVALUATED_ITEMS_REMOVED,
                                                       JSONSCHEMA_UNEVALUATED_ITEMS_EXTENDED,
                                                       JSONSCHEMA_UNEVALUATED_ITEMS_NARROWED});
    else
        compare_unevaluated_with(ctx, "unevaluatedProperties", o->unevaluated, u->unevaluated,
                                 (unevaluated_types_t){JSONSCHEMA_UNEVALUATED_PROPERTIES_ADDED,
                                                       JSONSCHEMA_UNEVALUATED_PROPERTIES_REMOVED,
                                                       JSONSCHEMA_UNEVALUATED_PROPERTIES_EXTENDED,
                                                       JSONSCHEMA_UNEVALUATED_PROPERTIES_NARROWED});
}

/* ---- 4. The class ---------------------------------------------------------------------- */

void jsonschema_diff_object(jsonschema_ctx_t *ctx, const jsonschema_node_t *original,
                            const jsonschema_node_t *update)
{
    compare_required(ctx, original, update);
    compare_properties(ctx, original, update);
    compare_dependencies(ctx, original, update);
    jsonschema_diff_additional(ctx, original, update, 0);
    jsonschema_diff_unevaluated(ctx, original, update, 0);
    jsonschema_diff_int_bound(ctx, "maxProperties", original->max_properties, update->max_properties,
                              (jsonschema_bound_changes_t){
                                  JSONSCHEMA_MAX_PROPERTIES_ADDED, JSONSCHEMA_MAX_PROPERTIES_REMOVED,
                                  JSONSCHEMA_MAX_PROPERTIES_INCREASED, JSONSCHEMA_MAX_PROPERTIES_DECREASED});
    jsonschema_diff_int_bound(ctx, "minProperties", original->min_properties, update->min_properties,
                              (jsonschema_bound_changes_t){
                                  JSONSCHEMA_MIN_PROPERTIES_ADDED, JSONSCHEMA_MIN_PROPERTIES_REMOVED,
                                  JSONSCHEMA_MIN_PROPERTIES_INCREASED, JSONSCHEMA_MIN_PROPERTIES_DECREASED});
}
