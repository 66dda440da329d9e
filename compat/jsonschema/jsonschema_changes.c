/*
 * jsonschema_changes: the change list of two JSON Schemas (compat/change.h,
 * docs/evolution.md "JSON Schema"), mapped from Confluent's difference types.
 *
 * Contents
 *   1. Paths: "#/properties/a/properties/b" as the column "a.b", and the node there
 *   2. Type labels
 *   3. Difference type -> change kind
 *   4. Renames: one property gone and one come with the same schema
 *   5. The list
 *
 * Nothing is compared here: the differences are the diff's
 * (jsonschema_diff_list, the one behind every compatibility answer).
 * Backward is the STRICT policy's verdict on the difference; forward is its
 * verdict on the differences the reverse diff (new -> old) finds at the same
 * path, which is how Confluent's FORWARD level asks the question.
 */
#include "compat/jsonschema/internal.h"
#include "base/strbuf.h"

#include <stdlib.h>
#include <string.h>

/* ---- 1. Paths ------------------------------------------------------------------------ */

/* The next "/"-separated segment of *p (JSON Pointer escapes kept as written). */
static size_t next_segment(const char **p, const char **seg)
{
    if (**p == '/')
        (*p)++;
    *seg = *p;
    size_t n = strcspn(*p, "/");
    *p += n;
    return n;
}

static int seg_is(const char *seg, size_t n, const char *word)
{
    return strlen(word) == n && memcmp(seg, word, n) == 0;
}

/* Segments that lead to another schema: combined branches and their index. */
static int structural(const char *seg, size_t n)
{
    return seg_is(seg, n, "anyOf") || seg_is(seg, n, "oneOf") || seg_is(seg, n, "allOf") ||
           (n && strspn(seg, "0123456789") >= n);
}

/* properties/x -> x, items -> [], required/x -> x; any other keyword is
 * kept as a segment ("a.anyOf.1"), so no two paths of a schema collide. */
static char *column_path(const char *path)
{
    strbuf_t b = {0};
    const char *p = path[0] == '#' ? path + 1 : path, *seg;
    while (*p) {
        size_t n = next_segment(&p, &seg);
        if ((seg_is(seg, n, "properties") || seg_is(seg, n, "required")) && *p) {
            n = next_segment(&p, &seg);
        } else if (seg_is(seg, n, "items")) {
            seg = "[]";
            n = 2;
        } else if (!structural(seg, n)) {
            break; /* a keyword of the column itself ("enum", "maxLength") */
        }
        if (!n)
            continue;
        if (b.len)
            strbuf_putc(&b, '.');
        strbuf_put(&b, seg, n);
    }
    char *s = strbuf_take(&b);
    return s ? s : strdup("");
}

static const jsonschema_node_t *prop_of(const jsonschema_node_t *n, const char *name, size_t len)
{
    return n ? jsonschema_node_prop(n, name, len) : NULL;
}

/* The node a difference's path names in a model, or NULL; "required/x" is
 * the property x itself (its nullability changed). */
static const jsonschema_node_t *node_at(const jsonschema_t *s, const char *path)
{
    const jsonschema_node_t *n = jsonschema_node_deref(s->root);
    const char *p = path[0] == '#' ? path + 1 : path, *seg;
    while (n && *p) {
        size_t len = next_segment(&p, &seg);
        if (!len)
            continue;
        if ((seg_is(seg, len, "properties") || seg_is(seg, len, "required")) && *p) {
            len = next_segment(&p, &seg);
            n = prop_of(n, seg, len);
        } else if (seg_is(seg, len, "items")) {
            n = n->all_items;
        } else if (seg_is(seg, len, "anyOf") || seg_is(seg, len, "oneOf") || seg_is(seg, len, "allOf")) {
            len = next_segment(&p, &seg);
            size_t i = (size_t)strtoul(seg, NULL, 10);
            n = i < n->nsubs ? n->subs[i] : NULL;
        } else {
            break; /* a keyword of this schema */
        }
        n = jsonschema_node_deref(n);
    }
    return n;
}

/* ---- 2. Type labels ---------------------------------------------------------------------- */

static const char *kind_label(const jsonschema_node_t *n)
{
    switch (n->kind) {
    case JSONSCHEMA_NODE_STRING: return "string";
    case JSONSCHEMA_NODE_NUMBER: return n->requires_integer ? "integer" : "number";
    case JSONSCHEMA_NODE_BOOLEAN: return "boolean";
    case JSONSCHEMA_NODE_NULL: return "null";
    case JSONSCHEMA_NODE_ARRAY: return "array";
    case JSONSCHEMA_NODE_OBJECT: return "object";
    case JSONSCHEMA_NODE_ENUM: return "enum";
    case JSONSCHEMA_NODE_CONST: return "const";
    case JSONSCHEMA_NODE_NOT: return "not";
    case JSONSCHEMA_NODE_FALSE: return "false";
    case JSONSCHEMA_NODE_COMBINED:
        return n->criterion == JSONSCHEMA_ALL_OF   ? "allOf"
               : n->criterion == JSONSCHEMA_ANY_OF ? "anyOf"
                                                   : "oneOf";
    case JSONSCHEMA_NODE_CONDITIONAL: return "if";
    default: return "any";
    }
}

/* "integer", "string|null" for a type array (the loader's anyOf). */
static char *type_label(const jsonschema_node_t *n)
{
    if (!n)
        return NULL;
    if (n->kind != JSONSCHEMA_NODE_COMBINED || !n->generated || n->criterion != JSONSCHEMA_ANY_OF)
        return strdup(kind_label(n));
    strbuf_t b = {0};
    for (size_t i = 0; i < n->nsubs; i++) {
        const jsonschema_node_t *sub = jsonschema_node_deref(n->subs[i]);
        if (i)
            strbuf_putc(&b, '|');
        strbuf_puts(&b, sub ? kind_label(sub) : "any");
    }
    return strbuf_take(&b);
}

/* A type array holding "null" (or the null type itself). */
static int accepts_null(const jsonschema_node_t *n)
{
    if (!n)
        return 0;
    if (n->kind == JSONSCHEMA_NODE_NULL)
        return 1;
    if (n->kind != JSONSCHEMA_NODE_COMBINED || n->criterion == JSONSCHEMA_ALL_OF)
        return 0;
    for (size_t i = 0; i < n->nsubs; i++) {
        const jsonschema_node_t *sub = jsonschema_node_deref(n->subs[i]);
        if (sub && sub->kind == JSONSCHEMA_NODE_NULL)
            return 1;
    }
    return 0;
}

/* ---- 3. Difference type -> change kind ------------------------------------------------------- */

static change_kind_t kind_of(jsonschema_change_t t, const jsonschema_node_t *o, const jsonschema_node_t *n)
{
    switch (t) {
    case JSONSCHEMA_DESCRIPTION_CHANGED:
    case JSONSCHEMA_TITLE_CHANGED: return CHANGE_DOC_CHANGED;
    case JSONSCHEMA_DEFAULT_CHANGED: return CHANGE_DEFAULT_CHANGED;
    case JSONSCHEMA_TYPE_EXTENDED: return CHANGE_TYPE_WIDENED;
    case JSONSCHEMA_TYPE_NARROWED: return CHANGE_TYPE_NARROWED;
    case JSONSCHEMA_TYPE_CHANGED: return CHANGE_TYPE_CHANGED;
    /* A type array that gained or lost "null" and nothing else of note. */
    case JSONSCHEMA_SUM_TYPE_EXTENDED:
    case JSONSCHEMA_SUM_TYPE_NARROWED:
        if (accepts_null(o) != accepts_null(n))
            return CHANGE_NULLABILITY_CHANGED;
        return t == JSONSCHEMA_SUM_TYPE_EXTENDED ? CHANGE_TYPE_WIDENED : CHANGE_TYPE_NARROWED;
    case JSONSCHEMA_REQUIRED_ATTRIBUTE_ADDED:
    case JSONSCHEMA_REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED:
    case JSONSCHEMA_REQUIRED_ATTRIBUTE_REMOVED: return CHANGE_NULLABILITY_CHANGED;
    case JSONSCHEMA_REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL:
    case JSONSCHEMA_REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL:
        return CHANGE_FIELD_ADDED_WITH_DEFAULT;
    case JSONSCHEMA_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL:
    case JSONSCHEMA_REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL:
    case JSONSCHEMA_OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL:
    case JSONSCHEMA_PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL:
    case JSONSCHEMA_REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL:
    case JSONSCHEMA_OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL:
    case JSONSCHEMA_PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL:
    case JSONSCHEMA_PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL:
        return n && n->default_value ? CHANGE_FIELD_ADDED_WITH_DEFAULT : CHANGE_FIELD_ADDED;
    case JSONSCHEMA_PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL:
    case JSONSCHEMA_PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL:
    case JSONSCHEMA_PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL:
    case JSONSCHEMA_PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL:
    case JSONSCHEMA_PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL: return CHANGE_FIELD_REMOVED;
    case JSONSCHEMA_ENUM_ARRAY_EXTENDED: return CHANGE_ENUM_SYMBOL_ADDED;
    case JSONSCHEMA_ENUM_ARRAY_NARROWED: return CHANGE_ENUM_SYMBOL_REMOVED;
    default: return CHANGE_OTHER;
    }
}

/* ---- 4. Renames ---------------------------------------------------------------------------------- */

/* The parent part of a column path ("a.b" -> "a"; "b" -> ""). */
static size_t parent_len(const char *path)
{
    const char *dot = strrchr(path, '.');
    return dot ? (size_t)(dot - path) : 0;
}

/* The schema a property change's path names, in the model that has it. */
static const jsonschema_node_t *prop_node(const change_t *c, const char *diff_path, const jsonschema_t *old_s,
                                          const jsonschema_t *new_s)
{
    return node_at(c->kind == CHANGE_FIELD_REMOVED ? old_s : new_s, diff_path);
}

static int same_schema(const jsonschema_node_t *a, const jsonschema_node_t *b)
{
    return a && b && a->src && b->src && jsonschema_json_equal(a->src, b->src);
}

/* The only change under the parent (plen bytes of p) that is an addition
 * (added) or a removal whose schema equals like's, or -1 (none or several). */
static long only_like(const change_list_t *l, size_t from, int added, const char *p, size_t plen,
                      const jsonschema_node_t *like, const char *const *diff_paths, const jsonschema_t *old_s,
                      const jsonschema_t *new_s)
{
    long found = -1;
    for (size_t i = from; i < l->n; i++) {
        const change_t *c = &l->items[i];
        int is_added = c->kind == CHANGE_FIELD_ADDED || c->kind == CHANGE_FIELD_ADDED_WITH_DEFAULT;
        if (!(added ? is_added : c->kind == CHANGE_FIELD_REMOVED))
            continue;
        if (parent_len(c->path) != plen || strncmp(c->path, p, plen) != 0)
            continue;
        if (!same_schema(like, prop_node(c, diff_paths[i - from], old_s, new_s)))
            continue;
        if (found >= 0)
            return -1;
        found = (long)i;
    }
    return found;
}

/*
 * A property removed and another added under the same object with equal
 * schemas, each the only one of its side with that schema there: JSON
 * Schema has no alias, so that is the one rename a reader can tell apart
 * from a drop and an add (the "when unambiguous"). The pair becomes
 * one FIELD_RENAMED at the new name; readers survive it in a direction only
 * when they survive both halves.
 */
static void join_renames(change_list_t *l, size_t from, const jsonschema_t *old_s, const jsonschema_t *new_s,
                         const char *const *diff_paths)
{
    for (size_t i = from; i < l->n; i++) {
        if (l->items[i].kind != CHANGE_FIELD_REMOVED)
            continue;
        const char *p = l->items[i].path;
        size_t plen = parent_len(p);
        const jsonschema_node_t *gone = node_at(old_s, diff_paths[i - from]);
        long a = only_like(l, from, 1, p, plen, gone, diff_paths, old_s, new_s);
        if (a < 0)
            continue;
        const jsonschema_node_t *come = node_at(new_s, diff_paths[a - (long)from]);
        if (only_like(l, from, 0, p, plen, come, diff_paths, old_s, new_s) != (long)i)
            continue;
        change_t *add = &l->items[a], *rem = &l->items[i];
        char *detail = strdup(rem->path + (plen ? plen + 1 : 0));
        if (!detail)
            continue;
        free(add->detail);
        add->detail = detail;
        add->kind = CHANGE_FIELD_RENAMED;
        free(add->old_type);
        add->old_type = rem->old_type;
        rem->old_type = NULL;
        add->forward = add->forward && rem->forward;
        add->backward = add->backward && rem->backward;
        rem->kind = CHANGE_KIND_COUNT; /* dropped below */
    }
    size_t w = from;
    for (size_t i = from; i < l->n; i++) {
        if (l->items[i].kind == CHANGE_KIND_COUNT) {
            free(l->items[i].path);
            free(l->items[i].old_type);
            free(l->items[i].new_type);
            free(l->items[i].detail);
            continue;
        }
        l->items[w++] = l->items[i];
    }
    l->n = w;
}

/* ---- 5. The list --------------------------------------------------------------------------------- */

/* One change per enum value one side has and the other lacks (detail: the value as JSON). */
static int push_enum_values(change_list_t *out, change_kind_t kind, const char *col,
                            const jsonschema_node_t *o, const jsonschema_node_t *n, int forward, int backward)
{
    const jsonschema_node_t *from = kind == CHANGE_ENUM_SYMBOL_ADDED ? n : o;
    const jsonschema_node_t *other = kind == CHANGE_ENUM_SYMBOL_ADDED ? o : n;
    int rc = 0;
    for (size_t i = 0; from && other && i < from->nvalues && rc == 0; i++) {
        int found = 0;
        for (size_t j = 0; j < other->nvalues && !found; j++)
            found = jsonschema_json_equal(from->values[i], other->values[j]);
        if (found)
            continue;
        char *text = jsonschema_json_dump(from->values[i]);
        rc = text ? change_list_push(out, kind, col, NULL, NULL, text, forward, backward) : -1;
        free(text);
    }
    return rc;
}

/* A second difference saying the same column's nullability changed (its
 * "required" entry and its type's "null") joins the first: one change. */
static int merged_nullability(change_list_t *out, size_t from, const char *col, const char *detail,
                              int forward, int backward)
{
    for (size_t i = from; i < out->n; i++) {
        change_t *c = &out->items[i];
        if (c->kind != CHANGE_NULLABILITY_CHANGED || strcmp(c->path, col) != 0)
            continue;
        strbuf_t b = {0};
        strbuf_printf(&b, "%s, %s", c->detail ? c->detail : "", detail);
        char *joined = strbuf_take(&b);
        if (!joined)
            return -1;
        free(c->detail);
        c->detail = joined;
        c->forward = c->forward && forward;
        c->backward = c->backward && backward;
        return 1;
    }
    return 0;
}

/* 1 unless the reverse diff holds an incompatible difference at path. */
static int reverse_survives(const jsonschema_difflist_t *rev, const char *path)
{
    for (size_t i = 0; i < rev->n; i++)
        if (strcmp(rev->items[i].path, path) == 0 &&
            !jsonschema_change_compatible(rev->items[i].type, JSONSCHEMA_STRICT))
            return 0;
    return 1;
}

/* The annotations and the type of the column itself, not a property added or dropped. */
static int names_the_property(change_kind_t k)
{
    return k == CHANGE_FIELD_ADDED || k == CHANGE_FIELD_ADDED_WITH_DEFAULT || k == CHANGE_FIELD_REMOVED;
}

int jsonschema_changes(const jsonschema_t *old_s, const jsonschema_t *new_s, change_list_t *out)
{
    jsonschema_difflist_t fwd, rev;
    if (jsonschema_diff_list(old_s, new_s, JSONSCHEMA_STRICT, &fwd) != 0)
        return -1;
    if (jsonschema_diff_list(new_s, old_s, JSONSCHEMA_STRICT, &rev) != 0) {
        jsonschema_difflist_clear(&fwd);
        return -1;
    }
    size_t from = out->n;
    size_t paths_cap = fwd.n + 1;
    const char **paths = calloc(paths_cap, sizeof *paths); /* the difference each change came from */
    int rc = paths ? 0 : -1;
    for (size_t i = 0; i < fwd.n && rc == 0; i++) {
        const jsonschema_difference_t *d = &fwd.items[i];
        const jsonschema_node_t *o = node_at(old_s, d->path), *n = node_at(new_s, d->path);
        change_kind_t kind = kind_of(d->type, o, n);
        char *col = column_path(d->path);
        char *ot = type_label(o), *nt = type_label(n);
        const char *detail = kind == CHANGE_OTHER || kind == CHANGE_NULLABILITY_CHANGED
                                 ? jsonschema_change_name(d->type)
                                 : NULL;
        if (names_the_property(kind) || kind == CHANGE_DOC_CHANGED) {
            if (kind == CHANGE_FIELD_ADDED || kind == CHANGE_FIELD_ADDED_WITH_DEFAULT ||
                kind == CHANGE_DOC_CHANGED) {
                free(ot);
                ot = NULL;
            }
            if (kind == CHANGE_FIELD_REMOVED || kind == CHANGE_DOC_CHANGED) {
                free(nt);
                nt = NULL;
            }
        }
        int forward = reverse_survives(&rev, d->path);
        int backward = jsonschema_change_compatible(d->type, JSONSCHEMA_STRICT);
        size_t before = out->n;
        if (!col)
            rc = -1;
        else if (kind == CHANGE_ENUM_SYMBOL_ADDED || kind == CHANGE_ENUM_SYMBOL_REMOVED)
            rc = push_enum_values(out, kind, col, o, n, forward, backward);
        else if (kind == CHANGE_NULLABILITY_CHANGED &&
                 (rc = merged_nullability(out, from, col, detail, forward, backward)) != 0)
            rc = rc < 0 ? -1 : 0;
        else
            rc = change_list_push(out, kind, col, ot, nt, detail, forward, backward);
        if (rc == 0 && out->n - from > paths_cap) {
            size_t cap = (out->n - from) * 2;
            const char **grown = realloc(paths, cap * sizeof *paths);
            if (!grown)
                rc = -1;
            else
                paths = grown, paths_cap = cap;
        }
        for (size_t k = before; rc == 0 && k < out->n; k++)
            paths[k - from] = d->path;
        free(col);
        free(ot);
        free(nt);
    }
    if (rc == 0)
        join_renames(out, from, old_s, new_s, paths);
    free(paths);
    jsonschema_difflist_clear(&fwd);
    jsonschema_difflist_clear(&rev);
    return rc;
}
