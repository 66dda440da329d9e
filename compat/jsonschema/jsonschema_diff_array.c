/*
 * jsonschema_diff_array: arrays, tuples and their content models (docs/compatibility.md
 * "Content models").
 *
 * A tuple's extra items are judged like object properties: removals by the
 * update's model, additions by the original's, where "additionalItems"
 * (or unevaluatedItems) plays the part of additionalProperties.
 */
#include "compat/jsonschema/internal.h"

#include <stdio.h>
#include <string.h>

static int is_open(const jsonschema_node_t *n)
{
    if (n->additional_forbidden || n->additional)
        return 0;
    return !n->unevaluated || jsonschema_node_is_empty(n->unevaluated);
}

static const jsonschema_node_t *partially_open_schema(const jsonschema_node_t *n)
{
    if (n->additional)
        return n->additional;
    if (!n->additional_forbidden && n->unevaluated && n->unevaluated->kind != JSONSCHEMA_NODE_FALSE &&
        !jsonschema_node_is_empty(n->unevaluated))
        return n->unevaluated;
    return NULL;
}

static void item_removed(jsonschema_ctx_t *ctx, const jsonschema_node_t *item,
                         const jsonschema_node_t *update)
{
    if (is_open(update)) {
        jsonschema_ctx_add(ctx, JSONSCHEMA_ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL);
        return;
    }
    const jsonschema_node_t *partial = partially_open_schema(update);
    if (partial)
        jsonschema_diff_covered(ctx, item, partial,
                                JSONSCHEMA_ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
                                JSONSCHEMA_ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL);
    else
        jsonschema_ctx_add(ctx, item->kind == JSONSCHEMA_NODE_FALSE
                                    ? JSONSCHEMA_ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL
                                    : JSONSCHEMA_ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL);
}

static void item_added(jsonschema_ctx_t *ctx, const jsonschema_node_t *original,
                       const jsonschema_node_t *item)
{
    if (is_open(original)) {
        jsonschema_ctx_add(ctx, jsonschema_node_is_empty(item)
                                    ? JSONSCHEMA_ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL
                                    : JSONSCHEMA_ITEM_ADDED_TO_OPEN_CONTENT_MODEL);
        return;
    }
    const jsonschema_node_t *partial = partially_open_schema(original);
    if (partial)
        jsonschema_diff_covered(ctx, partial, item,
                                JSONSCHEMA_ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL,
                                JSONSCHEMA_ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL);
    else
        jsonschema_ctx_add(ctx, JSONSCHEMA_ITEM_ADDED_TO_CLOSED_CONTENT_MODEL);
}

static void compare_tuples(jsonschema_ctx_t *ctx, const jsonschema_node_t *o, const jsonschema_node_t *u)
{
    size_t n = o->ntuple > u->ntuple ? o->ntuple : u->ntuple;
    for (size_t i = 0; i < n && !jsonschema_ctx_failed(ctx); i++) {
        char seg[32];
        int len = snprintf(seg, sizeof seg, "items/%zu", i);
        jsonschema_mark_t mark = jsonschema_ctx_push(ctx, seg, (size_t)len);
        if (i < o->ntuple && i < u->ntuple)
            jsonschema_diff_compare(ctx, o->tuple[i], u->tuple[i]);
        else if (i < o->ntuple)
            item_removed(ctx, o->tuple[i], u);
        else
            item_added(ctx, o, u->tuple[i]);
        jsonschema_ctx_pop(ctx, mark);
    }
}

/* minContains/maxContains are read as Java ints from the unprocessed properties. */
static jsonschema_int_t contains_bound(const jsonschema_json_t *v)
{
    jsonschema_int_t r = {0};
    if (v) {
        r.set = 1;
        r.v = v->num >= 2147483647.0    ? 2147483647
              : v->num <= -2147483648.0 ? -2147483647 - 1
                                        : (long long)v->num;
    }
    return r;
}

static void compare_bounds(jsonschema_ctx_t *ctx, const jsonschema_node_t *o, const jsonschema_node_t *u)
{
    const jsonschema_bound_changes_t max_items = {JSONSCHEMA_MAX_ITEMS_ADDED, JSONSCHEMA_MAX_ITEMS_REMOVED,
                                                  JSONSCHEMA_MAX_ITEMS_INCREASED,
                                                  JSONSCHEMA_MAX_ITEMS_DECREASED};
    const jsonschema_bound_changes_t min_items = {JSONSCHEMA_MIN_ITEMS_ADDED, JSONSCHEMA_MIN_ITEMS_REMOVED,
                                                  JSONSCHEMA_MIN_ITEMS_INCREASED,
                                                  JSONSCHEMA_MIN_ITEMS_DECREASED};
    const jsonschema_bound_changes_t max_contains = {
        JSONSCHEMA_MAX_CONTAINS_ADDED, JSONSCHEMA_MAX_CONTAINS_REMOVED, JSONSCHEMA_MAX_CONTAINS_INCREASED,
        JSONSCHEMA_MAX_CONTAINS_DECREASED};
    const jsonschema_bound_changes_t min_contains = {
        JSONSCHEMA_MIN_CONTAINS_ADDED, JSONSCHEMA_MIN_CONTAINS_REMOVED, JSONSCHEMA_MIN_CONTAINS_INCREASED,
        JSONSCHEMA_MIN_CONTAINS_DECREASED};
    jsonschema_diff_int_bound(ctx, "maxItems", o->max_items, u->max_items, max_items);
    jsonschema_diff_int_bound(ctx, "minItems", o->min_items, u->min_items, min_items);
    if (o->unique_items != u->unique_items)
        jsonschema_ctx_add_at(ctx, "uniqueItems",
                              o->unique_items ? JSONSCHEMA_UNIQUE_ITEMS_REMOVED
                                              : JSONSCHEMA_UNIQUE_ITEMS_ADDED);
    jsonschema_diff_int_bound(ctx, "maxContains", contains_bound(o->max_contains),
                              contains_bound(u->max_contains), max_contains);
    jsonschema_diff_int_bound(ctx, "minContains", contains_bound(o->min_contains),
                              contains_bound(u->min_contains), min_contains);
}

void jsonschema_diff_array(jsonschema_ctx_t *ctx, const jsonschema_node_t *original,
                           const jsonschema_node_t *update)
{
    jsonschema_mark_t mark = jsonschema_ctx_push(ctx, "items", 5);
    jsonschema_diff_compare(ctx, original->all_items, update->all_items);
    jsonschema_ctx_pop(ctx, mark);
    compare_tuples(ctx, original, update);
    jsonschema_diff_additional(ctx, original, update, 1);
    jsonschema_diff_unevaluated(ctx, original, update, 1);
    compare_bounds(ctx, original, update);
}
