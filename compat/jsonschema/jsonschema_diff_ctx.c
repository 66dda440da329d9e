/*
 * jsonschema_diff_ctx: the difference lists and the contexts every
 * jsonschema_diff*.c file writes into (internal.h section 6). Below the diff
 * itself: it calls nothing of jsonschema_diff*.c, so the only cycle left in
 * the diff is its own recursion through jsonschema_diff_compare.
 */
#include "compat/jsonschema/internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- Difference lists and contexts ---------------------------------------- */

void jsonschema_difflist_clear(jsonschema_difflist_t *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->items[i].path);
    free(l->items);
    *l = (jsonschema_difflist_t){0};
}

void jsonschema_diffrun_fail(jsonschema_diffrun_t *run, int error)
{
    if (!run->error)
        run->error = error;
}

void jsonschema_difflist_push(jsonschema_diffrun_t *run, jsonschema_difflist_t *l, jsonschema_change_t type,
                              char *owned_path)
{
    if (!owned_path || jsonschema_grow((void **)&l->items, &l->cap, l->n + 1, sizeof *l->items) != 0) {
        free(owned_path);
        jsonschema_diffrun_fail(run, -1);
        return;
    }
    l->items[l->n++] = (jsonschema_difference_t){type, owned_path};
}

void jsonschema_ctx_init(jsonschema_ctx_t *ctx, jsonschema_diffrun_t *run, const jsonschema_ctx_t *parent)
{
    *ctx = (jsonschema_ctx_t){.run = run};
    const char *start = parent ? parent->path : "#/";
    size_t len = parent ? parent->path_len : 2;
    ctx->path = malloc(len + 64);
    if (!ctx->path) {
        jsonschema_diffrun_fail(run, -1);
        return;
    }
    memcpy(ctx->path, start, len);
    ctx->path[len] = '\0';
    ctx->path_len = len;
    ctx->path_cap = len + 64;
    ctx->depth = parent ? parent->depth : 0;
}

void jsonschema_ctx_free(jsonschema_ctx_t *ctx)
{
    free(ctx->path);
    jsonschema_difflist_clear(&ctx->diffs);
    ctx->path = NULL;
}

void jsonschema_ctx_oom(jsonschema_ctx_t *ctx)
{
    jsonschema_diffrun_fail(ctx->run, -1);
}

int jsonschema_ctx_failed(const jsonschema_ctx_t *ctx)
{
    return ctx->run->error != 0 || !ctx->path;
}

jsonschema_mark_t jsonschema_ctx_push(jsonschema_ctx_t *ctx, const char *seg, size_t len)
{
    jsonschema_mark_t mark = {ctx->path_len, ctx->depth};
    if (!ctx->path)
        return mark;
    size_t need = ctx->path_len + len + 2;
    if (need > ctx->path_cap) {
        char *p = realloc(ctx->path, need * 2);
        if (!p) {
            jsonschema_diffrun_fail(ctx->run, -1);
            return mark;
        }
        ctx->path = p;
        ctx->path_cap = need * 2;
    }
    if (ctx->depth > 0)
        ctx->path[ctx->path_len++] = '/';
    memcpy(ctx->path + ctx->path_len, seg, len);
    ctx->path_len += len;
    ctx->path[ctx->path_len] = '\0';
    ctx->depth++;
    return mark;
}

void jsonschema_ctx_pop(jsonschema_ctx_t *ctx, jsonschema_mark_t mark)
{
    if (!ctx->path)
        return;
    ctx->path_len = mark.len;
    ctx->depth = mark.depth;
    ctx->path[ctx->path_len] = '\0';
}

void jsonschema_ctx_add(jsonschema_ctx_t *ctx, jsonschema_change_t type)
{
    if (ctx->path)
        jsonschema_difflist_push(ctx->run, &ctx->diffs, type, strdup(ctx->path));
}

void jsonschema_ctx_add_at(jsonschema_ctx_t *ctx, const char *attr, jsonschema_change_t type)
{
    jsonschema_mark_t mark = jsonschema_ctx_push(ctx, attr, strlen(attr));
    jsonschema_ctx_add(ctx, type);
    jsonschema_ctx_pop(ctx, mark);
}

void jsonschema_ctx_adopt(jsonschema_ctx_t *ctx, jsonschema_difflist_t *from)
{
    for (size_t i = 0; i < from->n; i++) {
        jsonschema_difflist_push(ctx->run, &ctx->diffs, from->items[i].type, from->items[i].path);
        from->items[i].path = NULL;
    }
    jsonschema_difflist_clear(from);
}

int jsonschema_difflist_compatible(const jsonschema_difflist_t *l, jsonschema_policy_t policy)
{
    for (size_t i = 0; i < l->n; i++) {
        if (!jsonschema_change_compatible(l->items[i].type, policy))
            return 0;
    }
    return 1;
}

int jsonschema_ctx_compatible(const jsonschema_ctx_t *ctx)
{
    return jsonschema_difflist_compatible(&ctx->diffs, ctx->run->policy);
}
