/*
 * jsonschema_diff: Confluent's json.diff.SchemaDiff (docs/compatibility.md "JSON Schema") —
 * the entry point, the memo of compared pairs with its fixpoint for recursive schemas,
 * procedure C, and the contexts the per-class files write into.
 *
 * Chapters: 1. difference lists and contexts  2. the memo of pairs
 *           3. procedure C  4. the fixpoint and the public entry point
 */
#include "compat/jsonschema/internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bounds for hostile input: nested pair comparisons and total work. */
#define DIFF_MAX_DEPTH 200
#define DIFF_MAX_STEPS 2000000

typedef struct memo_entry {
    const jsonschema_node_t *original, *update;
    int done;                       /* 0 while the pair is being compared */
    jsonschema_difflist_t diffs;    /* relative to the pair */
} memo_entry_t;

typedef struct memo {
    memo_entry_t *slots;
    size_t cap, used;
} memo_t;

struct jsonschema_diffrun {
    jsonschema_policy_t policy;
    memo_t memo;
    const memo_t *seed;             /* pairs a previous pass found incompatible */
    int optimism_used;
    int error;                      /* 0, -1 (memory) or JSONSCHEMA_DIFF_TOO_COMPLEX */
    size_t depth, steps;
};

/* ---- 1. Difference lists and contexts ---------------------------------------- */

void jsonschema_difflist_clear(jsonschema_difflist_t *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->items[i].path);
    free(l->items);
    *l = (jsonschema_difflist_t){0};
}

static void run_fail(jsonschema_diffrun_t *run, int error)
{
    if (!run->error)
        run->error = error;
}

static void list_push(jsonschema_diffrun_t *run, jsonschema_difflist_t *l,
                      jsonschema_change_t type, char *owned_path)
{
    if (!owned_path ||
        jsonschema_grow((void **)&l->items, &l->cap, l->n + 1, sizeof *l->items) != 0) {
        free(owned_path);
        run_fail(run, -1);
        return;
    }
    l->items[l->n++] = (jsonschema_difference_t){type, owned_path};
}

void jsonschema_ctx_init(jsonschema_ctx_t *ctx, jsonschema_diffrun_t *run,
                         const jsonschema_ctx_t *parent)
{
    *ctx = (jsonschema_ctx_t){.run = run};
    const char *start = parent ? parent->path : "#/";
    size_t len = parent ? parent->path_len : 2;
    ctx->path = malloc(len + 64);
    if (!ctx->path) {
        run_fail(run, -1);
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
    run_fail(ctx->run, -1);
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
            run_fail(ctx->run, -1);
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
        list_push(ctx->run, &ctx->diffs, type, strdup(ctx->path));
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
        list_push(ctx->run, &ctx->diffs, from->items[i].type, from->items[i].path);
        from->items[i].path = NULL;
    }
    jsonschema_difflist_clear(from);
}

static int list_compatible(const jsonschema_difflist_t *l, jsonschema_policy_t policy)
{
    for (size_t i = 0; i < l->n; i++) {
        if (!jsonschema_change_compatible(l->items[i].type, policy))
            return 0;
    }
    return 1;
}

int jsonschema_ctx_compatible(const jsonschema_ctx_t *ctx)
{
    return list_compatible(&ctx->diffs, ctx->run->policy);
}

/* Pair-relative differences onto ctx's path ("#/x" under "#/a" is "#/a/x"). */
static void adopt_rebased(jsonschema_ctx_t *ctx, const jsonschema_difflist_t *rel)
{
    for (size_t i = 0; i < rel->n; i++) {
        const char *p = rel->items[i].path;
        char *full = NULL;
        if (ctx->depth == 0)
            full = strdup(p);
        else if (strlen(p) <= 2)
            full = strdup(ctx->path);
        else if (asprintf(&full, "%s/%s", ctx->path, p + 2) < 0)
            full = NULL;
        list_push(ctx->run, &ctx->diffs, rel->items[i].type, full);
    }
}

/* ---- 2. The memo of pairs ----------------------------------------------------------- */

static size_t pair_hash(const void *a, const void *b)
{
    uintptr_t h = (uintptr_t)a * 31u + (uintptr_t)b;
    h ^= h >> 17;
    h *= 0xed5ad4bbu;
    h ^= h >> 11;
    return (size_t)h;
}

static memo_entry_t *memo_find(const memo_t *m, const jsonschema_node_t *o,
                               const jsonschema_node_t *u)
{
    if (!m || m->cap == 0)
        return NULL;
    for (size_t i = pair_hash(o, u) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        memo_entry_t *e = &m->slots[i];
        if (!e->original)
            return NULL;
        if (e->original == o && e->update == u)
            return e;
    }
}

static int memo_grow(memo_t *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    memo_entry_t *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < m->cap; i++) {
        memo_entry_t *e = &m->slots[i];
        if (!e->original)
            continue;
        size_t j = pair_hash(e->original, e->update) & (cap - 1);
        while (slots[j].original)
            j = (j + 1) & (cap - 1);
        slots[j] = *e;
    }
    free(m->slots);
    m->slots = slots;
    m->cap = cap;
    return 0;
}

static memo_entry_t *memo_insert(memo_t *m, const jsonschema_node_t *o, const jsonschema_node_t *u)
{
    if ((m->used + 1) * 2 > m->cap && memo_grow(m) != 0)
        return NULL;
    size_t i = pair_hash(o, u) & (m->cap - 1);
    while (m->slots[i].original)
        i = (i + 1) & (m->cap - 1);
    m->slots[i] = (memo_entry_t){.original = o, .update = u};
    m->used++;
    return &m->slots[i];
}

static void memo_free(memo_t *m)
{
    for (size_t i = 0; i < m->cap; i++)
        jsonschema_difflist_clear(&m->slots[i].diffs);
    free(m->slots);
    *m = (memo_t){0};
}

static void compare_types(jsonschema_ctx_t *ctx, const jsonschema_node_t *o,
                          const jsonschema_node_t *u);

/* The differences of a pair relative to the pair (borrowed until the next
 * memo insertion). A pair met again while in progress is a cycle: no
 * differences, unless an earlier pass proved the pair incompatible. */
static const jsonschema_difflist_t *compare_memoized(jsonschema_diffrun_t *run,
                                                     const jsonschema_node_t *o,
                                                     const jsonschema_node_t *u)
{
    static const jsonschema_difflist_t none = {0};
    memo_entry_t *e = memo_find(&run->memo, o, u);
    if (e && e->done)
        return &e->diffs;
    if (e) {
        const memo_entry_t *seeded = memo_find(run->seed, o, u);
        if (seeded)
            return &seeded->diffs;
        run->optimism_used = 1;
        return &none;
    }
    if (!memo_insert(&run->memo, o, u)) {
        run_fail(run, -1);
        return &none;
    }
    if (++run->depth > DIFF_MAX_DEPTH || ++run->steps > DIFF_MAX_STEPS)
        run_fail(run, JSONSCHEMA_DIFF_TOO_COMPLEX);
    jsonschema_ctx_t sub;
    jsonschema_ctx_init(&sub, run, NULL);
    if (!run->error)
        compare_types(&sub, o, u);
    run->depth--;
    e = memo_find(&run->memo, o, u);
    e->done = 1;
    e->diffs = sub.diffs;
    sub.diffs = (jsonschema_difflist_t){0};
    jsonschema_ctx_free(&sub);
    return &e->diffs;
}

void jsonschema_diff_compare(jsonschema_ctx_t *ctx, const jsonschema_node_t *original,
                             const jsonschema_node_t *update)
{
    if (jsonschema_ctx_failed(ctx) || (!original && !update))
        return;
    if (!original) {
        jsonschema_ctx_add(ctx, JSONSCHEMA_SCHEMA_ADDED);
        return;
    }
    if (!update) {
        jsonschema_ctx_add(ctx, JSONSCHEMA_SCHEMA_REMOVED);
        return;
    }
    const jsonschema_node_t *o = jsonschema_node_deref(original);
    const jsonschema_node_t *u = jsonschema_node_deref(update);
    if (!o || !u) {
        run_fail(ctx->run, JSONSCHEMA_DIFF_TOO_COMPLEX);
        return;
    }
    adopt_rebased(ctx, compare_memoized(ctx->run, o, u));
}

/* ---- 3. Procedure C ------------------------------------------------------------------ */

static int is_combined(const jsonschema_node_t *n)
{
    return n->kind == JSONSCHEMA_NODE_COMBINED;
}

/* Compares a and b in a sub-context; on a compatible result adopts it and
 * adds extra (when not the count) and returns 1. */
static int try_branch(jsonschema_ctx_t *ctx, const jsonschema_node_t *a, const jsonschema_node_t *b,
                      jsonschema_change_t extra, int add_extra)
{
    jsonschema_ctx_t sub;
    jsonschema_ctx_init(&sub, ctx->run, ctx);
    jsonschema_diff_compare(&sub, a, b);
    int ok = !jsonschema_ctx_failed(&sub) && jsonschema_ctx_compatible(&sub);
    if (ok) {
        jsonschema_ctx_adopt(ctx, &sub.diffs);
        if (add_extra)
            jsonschema_ctx_add(ctx, extra);
    }
    jsonschema_ctx_free(&sub);
    return ok;
}

/* An update that is combined while the original is not (or the reverse):
 * a singleton, or a branch of a sum (product) that alone is compatible. */
static int compare_one_sided(jsonschema_ctx_t *ctx, const jsonschema_node_t *o,
                             const jsonschema_node_t *u)
{
    if (!is_combined(o) && is_combined(u)) {
        if (u->nsubs == 1)
            return try_branch(ctx, o, u->subs[0], 0, 0);
        if (u->criterion == JSONSCHEMA_ANY_OF || u->criterion == JSONSCHEMA_ONE_OF) {
            for (size_t i = 0; i < u->nsubs && !jsonschema_ctx_failed(ctx); i++) {
                if (try_branch(ctx, o, u->subs[i], JSONSCHEMA_SUM_TYPE_EXTENDED, 1))
                    return 1;
            }
        }
    } else if (is_combined(o) && !is_combined(u)) {
        if (o->nsubs == 1)
            return try_branch(ctx, o->subs[0], u, 0, 0);
        if (o->criterion == JSONSCHEMA_ALL_OF) {
            for (size_t i = 0; i < o->nsubs && !jsonschema_ctx_failed(ctx); i++) {
                if (try_branch(ctx, o->subs[i], u, JSONSCHEMA_PRODUCT_TYPE_NARROWED, 1))
                    return 1;
            }
        }
    }
    return 0;
}

static int same_class(const jsonschema_node_t *a, const jsonschema_node_t *b)
{
    return a->kind == b->kind;
}

static int same_json(const jsonschema_json_t *a, const jsonschema_json_t *b)
{
    if (!a || !b)
        return a == b;
    return jsonschema_json_equal(a, b);
}

static void compare_annotations(jsonschema_ctx_t *ctx, const jsonschema_node_t *o,
                                const jsonschema_node_t *u)
{
    if (!same_json(o->id, u->id))
        jsonschema_ctx_add(ctx, JSONSCHEMA_ID_CHANGED);
    if (!same_json(o->title, u->title))
        jsonschema_ctx_add(ctx, JSONSCHEMA_TITLE_CHANGED);
    if (!same_json(o->description, u->description))
        jsonschema_ctx_add(ctx, JSONSCHEMA_DESCRIPTION_CHANGED);
    if (!same_json(o->default_value, u->default_value))
        jsonschema_ctx_add(ctx, JSONSCHEMA_DEFAULT_CHANGED);
}

static void compare_types(jsonschema_ctx_t *ctx, const jsonschema_node_t *o,
                          const jsonschema_node_t *u)
{
    if (compare_one_sided(ctx, o, u) || jsonschema_ctx_failed(ctx))
        return;
    if (!same_class(o, u)) {
        /* Nothing is lost starting from false or ending at the empty schema; the
         * JSON converter's decimal fix pairs different classes tagged as bytes. */
        if (o->kind == JSONSCHEMA_NODE_FALSE || jsonschema_node_is_empty(u) ||
            (o->connect_bytes && u->connect_bytes))
            return;
        jsonschema_ctx_add(ctx, JSONSCHEMA_TYPE_CHANGED);
        return;
    }
    compare_annotations(ctx, o, u);
    switch (o->kind) {
    case JSONSCHEMA_NODE_OBJECT: jsonschema_diff_object(ctx, o, u); break;
    case JSONSCHEMA_NODE_ARRAY: jsonschema_diff_array(ctx, o, u); break;
    case JSONSCHEMA_NODE_COMBINED: jsonschema_diff_combined(ctx, o, u); break;
    default: jsonschema_diff_scalar(ctx, o, u); break;
    }
}

/* ---- 4. The fixpoint and the public entry point --------------------------------------- */

/* Moves the memo's incompatible pairs into seed (emptied first). */
static int collect_incompatible(memo_t *memo, memo_t *seed, jsonschema_policy_t policy)
{
    memo_free(seed);
    for (size_t i = 0; i < memo->cap; i++) {
        memo_entry_t *e = &memo->slots[i];
        if (!e->original || list_compatible(&e->diffs, policy))
            continue;
        memo_entry_t *s = memo_insert(seed, e->original, e->update);
        if (!s)
            return -1;
        s->done = 1;
        s->diffs = e->diffs;
        e->diffs = (jsonschema_difflist_t){0};
    }
    return 0;
}

static int same_keys(const memo_t *a, const memo_t *b)
{
    if (a->used != b->used)
        return 0;
    for (size_t i = 0; i < a->cap; i++) {
        if (a->slots[i].original && !memo_find(b, a->slots[i].original, a->slots[i].update))
            return 0;
    }
    return 1;
}

/* One pass over the whole comparison with a given seed; the result in *out. */
static int run_pass(const jsonschema_node_t *original, const jsonschema_node_t *update,
                    jsonschema_policy_t policy, const memo_t *seed, memo_t *next_seed,
                    jsonschema_difflist_t *out, int *converged, size_t *steps)
{
    jsonschema_diffrun_t run = {.policy = policy, .seed = seed, .steps = *steps};
    jsonschema_ctx_t ctx;
    jsonschema_ctx_init(&ctx, &run, NULL);
    jsonschema_diff_compare(&ctx, original, update);
    int rc = run.error;
    *steps = run.steps;
    if (!rc && collect_incompatible(&run.memo, next_seed, policy) != 0)
        rc = -1;
    *converged = !run.optimism_used || same_keys(next_seed, seed);
    if (!rc) {
        *out = ctx.diffs;
        ctx.diffs = (jsonschema_difflist_t){0};
    }
    jsonschema_ctx_free(&ctx);
    memo_free(&run.memo);
    return rc;
}

static int diff_lists(const jsonschema_t *original, const jsonschema_t *update,
                      jsonschema_policy_t policy, jsonschema_difflist_t *out)
{
    memo_t seeds[2] = {{0}, {0}};
    int cur = 0, converged = 0, rc = 0;
    size_t steps = 0;
    *out = (jsonschema_difflist_t){0};
    while (!converged && rc == 0) {
        jsonschema_difflist_clear(out);
        rc = run_pass(original->root, update->root, policy, &seeds[cur], &seeds[1 - cur], out,
                      &converged, &steps);
        cur = 1 - cur;
    }
    memo_free(&seeds[0]);
    memo_free(&seeds[1]);
    if (rc != 0)
        jsonschema_difflist_clear(out);
    return rc;
}

int jsonschema_diff(const jsonschema_t *original, const jsonschema_t *update,
                    jsonschema_policy_t policy, strlist_t *changes)
{
    jsonschema_difflist_t diffs;
    int rc = diff_lists(original, update, policy, &diffs);
    for (size_t i = 0; i < diffs.n && rc == 0; i++)
        rc = strlist_pushf(changes, "%s %s", jsonschema_change_name(diffs.items[i].type),
                           diffs.items[i].path);
    jsonschema_difflist_clear(&diffs);
    return rc;
}

int jsonschema_backward(const jsonschema_t *self, const jsonschema_t *previous,
                        jsonschema_policy_t policy, strlist_t *out)
{
    jsonschema_difflist_t diffs;
    int rc = diff_lists(previous, self, policy, &diffs);
    if (rc == JSONSCHEMA_DIFF_TOO_COMPLEX)
        return strlist_push(out, "Incompatible because the schemas are nested too deeply or are "
                                 "too large to compare");
    for (size_t i = 0; i < diffs.n && rc == 0; i++) {
        jsonschema_change_t t = diffs.items[i].type;
        if (jsonschema_change_compatible(t, policy))
            continue;
        char *desc = jsonschema_change_description(t, diffs.items[i].path);
        rc = desc ? strlist_pushf(out, "{errorType:\"%s\", description:\"%s'}",
                                  jsonschema_change_name(t), desc)
                  : -1;
        free(desc);
    }
    jsonschema_difflist_clear(&diffs);
    return rc;
}
