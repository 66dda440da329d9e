/*
 * jsonschema_node: schema nodes and the keyword checks both loaders share.
 *
 * Chapters: 1. nodes and their lists  2. errors and keyword paths
 *           3. keyword value checks
 */
#include "compat/jsonschema/internal.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- 1. Nodes ------------------------------------------------------------- */

jsonschema_node_t *jsonschema_node_new(jsonschema_t *s, jsonschema_kind_t kind)
{
    if (jsonschema_grow((void **)&s->nodes, &s->nodes_cap, s->nnodes + 1, sizeof *s->nodes) != 0)
        return NULL;
    jsonschema_node_t *n = calloc(1, sizeof *n);
    if (!n)
        return NULL;
    n->kind = kind;
    s->nodes[s->nnodes++] = n;
    return n;
}

int jsonschema_keep_string(jsonschema_t *s, char *owned)
{
    if (!owned ||
        jsonschema_grow((void **)&s->strings, &s->strings_cap, s->nstrings + 1, sizeof *s->strings) != 0) {
        free(owned);
        return -1;
    }
    s->strings[s->nstrings++] = owned;
    return 0;
}

int jsonschema_node_add_sub(jsonschema_node_t *n, jsonschema_node_t *sub)
{
    if (jsonschema_grow((void **)&n->subs, &n->subs_cap, n->nsubs + 1, sizeof *n->subs) != 0)
        return -1;
    n->subs[n->nsubs++] = sub;
    return 0;
}

/* Adds the first JSONSCHEMA_INDEX_MIN names of a list to a new index; then
 * the callers keep it up to date. values: positions + 1, or NULL for a set. */
static int index_build(hmap_t **index, const jsonschema_str_t *names, size_t stride, size_t count,
                       int positions)
{
    hmap_t *m = calloc(1, sizeof *m);
    if (!m)
        return -1;
    for (size_t i = 0; i < count; i++) {
        const jsonschema_str_t *name = (const jsonschema_str_t *)((const char *)names + i * stride);
        void *value = positions ? (void *)(uintptr_t)(i + 1) : NULL;
        if (hmap_put_try(m, name->s, name->len, value, NULL) != 0) {
            hmap_clear(m);
            free(m);
            return -1;
        }
    }
    *index = m;
    return 0;
}

static void index_free(hmap_t *index)
{
    if (index) {
        hmap_clear(index);
        free(index);
    }
}

/* Position of name in a list of props, from its index when it has one. */
static const jsonschema_prop_t *prop_find(const jsonschema_prop_t *items, size_t count, const hmap_t *index,
                                          const char *name, size_t len)
{
    if (index) {
        uintptr_t at = (uintptr_t)hmap_get(index, name, len);
        return at ? &items[at - 1] : NULL;
    }
    for (size_t i = 0; i < count; i++) {
        if (items[i].name.len == len && memcmp(items[i].name.s, name, len) == 0)
            return &items[i];
    }
    return NULL;
}

/* index: NULL for lists that keep no index (then the scan stays). */
static int prop_put(jsonschema_prop_t **items, size_t *count, size_t *cap, hmap_t **index,
                    jsonschema_str_t name, jsonschema_node_t *sub)
{
    /* A later definition of the same name replaces the earlier one, as a map would. */
    jsonschema_prop_t *same =
        (jsonschema_prop_t *)prop_find(*items, *count, index ? *index : NULL, name.s, name.len);
    if (same) {
        same->schema = sub;
        return 0;
    }
    if (jsonschema_grow((void **)items, cap, *count + 1, sizeof **items) != 0)
        return -1;
    (*items)[*count] = (jsonschema_prop_t){name, sub};
    if (index && *index && hmap_put_try(*index, name.s, name.len, (void *)(uintptr_t)(*count + 1), NULL) != 0)
        return -1;
    (*count)++;
    if (index && !*index && *count == JSONSCHEMA_INDEX_MIN &&
        index_build(index, &(*items)[0].name, sizeof **items, *count, 1) != 0)
        return -1;
    return 0;
}

int jsonschema_node_add_prop(jsonschema_node_t *n, jsonschema_str_t name, jsonschema_node_t *sub)
{
    return prop_put(&n->props, &n->nprops, &n->props_cap, &n->props_index, name, sub);
}

const jsonschema_node_t *jsonschema_node_prop(const jsonschema_node_t *n, const char *name, size_t len)
{
    const jsonschema_prop_t *p = prop_find(n->props, n->nprops, n->props_index, name, len);
    return p ? p->schema : NULL;
}

int jsonschema_node_requires(const jsonschema_node_t *n, const char *name, size_t len)
{
    if (n->required_index)
        return hmap_contains(n->required_index, name, len);
    for (size_t i = 0; i < n->nrequired; i++) {
        if (n->required[i].len == len && memcmp(n->required[i].s, name, len) == 0)
            return 1;
    }
    return 0;
}

void jsonschema_node_free_indexes(jsonschema_node_t *n)
{
    index_free(n->props_index);
    index_free(n->required_index);
}

int jsonschema_node_add_pattern(jsonschema_node_t *n, jsonschema_str_t re, jsonschema_node_t *sub)
{
    return prop_put(&n->pattern_props, &n->npattern_props, &n->pattern_props_cap, NULL, re, sub);
}

int jsonschema_node_add_dep_schema(jsonschema_node_t *n, jsonschema_str_t name, jsonschema_node_t *sub)
{
    return prop_put(&n->dep_schemas, &n->ndep_schemas, &n->dep_schemas_cap, NULL, name, sub);
}

int jsonschema_node_add_required(jsonschema_node_t *n, jsonschema_str_t name)
{
    if (jsonschema_grow((void **)&n->required, &n->required_cap, n->nrequired + 1, sizeof *n->required) != 0)
        return -1;
    n->required[n->nrequired] = name;
    /* A set: a name listed twice is in it once, as the list's scan finds it. */
    if (n->required_index && hmap_put_try(n->required_index, name.s, name.len, NULL, NULL) != 0)
        return -1;
    n->nrequired++;
    if (!n->required_index && n->nrequired == JSONSCHEMA_INDEX_MIN &&
        index_build(&n->required_index, n->required, sizeof *n->required, n->nrequired, 0) != 0)
        return -1;
    return 0;
}

int jsonschema_node_add_dep_name(jsonschema_node_t *n, jsonschema_str_t name, jsonschema_str_t dep)
{
    jsonschema_dep_t *d = NULL;
    for (size_t i = 0; i < n->ndep_arrays && !d; i++) {
        if (n->dep_arrays[i].name.len == name.len && memcmp(n->dep_arrays[i].name.s, name.s, name.len) == 0)
            d = &n->dep_arrays[i];
    }
    if (!d) {
        if (jsonschema_grow((void **)&n->dep_arrays, &n->dep_arrays_cap, n->ndep_arrays + 1,
                            sizeof *n->dep_arrays) != 0)
            return -1;
        d = &n->dep_arrays[n->ndep_arrays++];
        *d = (jsonschema_dep_t){.name = name};
    }
    if (dep.s == NULL)
        return 0; /* an empty dependency list still declares the entry */
    if (jsonschema_grow((void **)&d->names, &d->cap, d->n + 1, sizeof *d->names) != 0)
        return -1;
    d->names[d->n++] = dep;
    return 0;
}

int jsonschema_node_add_tuple(jsonschema_node_t *n, jsonschema_node_t *item)
{
    if (jsonschema_grow((void **)&n->tuple, &n->tuple_cap, n->ntuple + 1, sizeof *n->tuple) != 0)
        return -1;
    n->tuple[n->ntuple++] = item;
    return 0;
}

int jsonschema_node_add_value(jsonschema_node_t *n, const jsonschema_json_t *v)
{
    if (jsonschema_grow((void **)&n->values, &n->values_cap, n->nvalues + 1, sizeof *n->values) != 0)
        return -1;
    n->values[n->nvalues++] = v;
    return 0;
}

const jsonschema_node_t *jsonschema_node_deref(const jsonschema_node_t *n)
{
    /* A chain longer than the node count must loop; the loader rejects those. */
    for (int hops = 0; n && n->kind == JSONSCHEMA_NODE_REFERENCE; hops++) {
        if (hops > 4096)
            return NULL;
        n = n->target;
    }
    return n;
}

int jsonschema_node_is_empty(const jsonschema_node_t *n)
{
    return n->kind == JSONSCHEMA_NODE_EMPTY || n->kind == JSONSCHEMA_NODE_TRUE;
}

jsonschema_str_t jsonschema_str_of(const jsonschema_json_t *v)
{
    return (jsonschema_str_t){v->str, v->len};
}

/* ---- 2. Errors and keyword paths ----------------------------------------- */

int jsonschema_fail(jsonschema_loader_t *ld, const char *fmt, ...)
{
    if (ld->error)
        return -1;
    char *what = NULL;
    va_list ap;
    va_start(ap, fmt);
    int rc = vasprintf(&what, fmt, ap);
    va_end(ap);
    if (rc < 0)
        what = NULL;
    if (asprintf(&ld->error, "#/%.*s: %s", (int)ld->path_len, ld->path, what ? what : "out of memory") < 0)
        ld->error = NULL;
    free(what);
    if (!ld->error)
        ld->error = strdup("out of memory");
    return -1;
}

/* Appends "/seg"; returns the mark to pop back to. A path too long for the
 * buffer is cut, which only shortens error messages. */
size_t jsonschema_path_push(jsonschema_loader_t *ld, const char *seg, size_t seg_len)
{
    size_t mark = ld->path_len;
    size_t room = sizeof ld->path - 1 - ld->path_len;
    size_t need = (ld->path_len ? 1 : 0) + seg_len;
    if (need > room)
        return mark;
    if (ld->path_len)
        ld->path[ld->path_len++] = '/';
    memcpy(ld->path + ld->path_len, seg, seg_len);
    ld->path_len += seg_len;
    ld->path[ld->path_len] = '\0';
    return mark;
}

void jsonschema_path_pop(jsonschema_loader_t *ld, size_t mark)
{
    ld->path_len = mark;
    ld->path[mark] = '\0';
}

/* ---- 3. Keyword value checks ---------------------------------------------- */

static int fail_kind(jsonschema_loader_t *ld, const char *kw, const char *expected,
                     const jsonschema_json_t *v)
{
    size_t mark = jsonschema_path_push(ld, kw, strlen(kw));
    jsonschema_fail(ld, "expected %s, found %s", expected, jsonschema_json_kind_name(v->kind));
    jsonschema_path_pop(ld, mark);
    return -1;
}

int jsonschema_want(jsonschema_loader_t *ld, const char *kw, const jsonschema_json_t *v,
                    jsonschema_json_kind_t kind)
{
    int ok = v->kind == kind || (kind == JSONSCHEMA_JSON_TRUE && v->kind == JSONSCHEMA_JSON_FALSE);
    if (ok)
        return 0;
    static const char *const names[] = {
        [JSONSCHEMA_JSON_NULL] = "null",        [JSONSCHEMA_JSON_FALSE] = "a boolean",
        [JSONSCHEMA_JSON_TRUE] = "a boolean",   [JSONSCHEMA_JSON_NUMBER] = "a number",
        [JSONSCHEMA_JSON_STRING] = "a string",  [JSONSCHEMA_JSON_ARRAY] = "an array",
        [JSONSCHEMA_JSON_OBJECT] = "an object",
    };
    return fail_kind(ld, kw, names[kind], v);
}

int jsonschema_want_number(jsonschema_loader_t *ld, const char *kw, const jsonschema_json_t *v)
{
    return jsonschema_want(ld, kw, v, JSONSCHEMA_JSON_NUMBER);
}

/* The reference reads these keywords as Java ints: integer literals only. */
int jsonschema_want_int(jsonschema_loader_t *ld, const char *kw, const jsonschema_json_t *v,
                        jsonschema_int_t *out)
{
    if (v->kind != JSONSCHEMA_JSON_NUMBER || !v->is_integer)
        return fail_kind(ld, kw, "an integer", v);
    if (v->num > 2147483647.0 || v->num < -2147483648.0) {
        size_t mark = jsonschema_path_push(ld, kw, strlen(kw));
        jsonschema_fail(ld, "integer out of range");
        jsonschema_path_pop(ld, mark);
        return -1;
    }
    out->set = 1;
    out->v = (long long)v->num;
    return 0;
}

int jsonschema_want_string_array(jsonschema_loader_t *ld, const char *kw, const jsonschema_json_t *v)
{
    if (jsonschema_want(ld, kw, v, JSONSCHEMA_JSON_ARRAY) != 0)
        return -1;
    for (size_t i = 0; i < v->n; i++) {
        if (v->elems[i]->kind != JSONSCHEMA_JSON_STRING) {
            char seg[32];
            size_t mark = jsonschema_path_push(ld, kw, strlen(kw));
            int len = snprintf(seg, sizeof seg, "%zu", i);
            fail_kind(ld, seg, "a string", v->elems[i]);
            (void)len;
            jsonschema_path_pop(ld, mark);
            return -1;
        }
    }
    return 0;
}
