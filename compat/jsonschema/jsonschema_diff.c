/*
 * jsonschema_diff: Confluent's json.diff.SchemaDiff (docs/compatibility.md "JSON Schema") —
 * the entry point, the memo of compared pairs with its fixpoint for recursive schemas,
 * procedure C, the contexts the per-class files write into, and the diff run again
 * comparing every subschema pair when skipping some could have mattered.
 *
 * Chapters: 2. the memo of pairs  3. procedure C  4. the fixpoint and the public entry point
 * (chapter 1, difference lists and contexts, is jsonschema_diff_ctx.c)
 */
#include "compat/jsonschema/internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bounds for hostile input: nested pair comparisons and total work. */
#define DIFF_MAX_DEPTH 200
#define DIFF_MAX_STEPS 2000000

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
        jsonschema_difflist_push(ctx->run, &ctx->diffs, rel->items[i].type, full);
    }
}

/* ---- 2. The memo of pairs ----------------------------------------------------------- */

static jsonschema_memo_entry_t *memo_find(const jsonschema_memo_t *m, const jsonschema_node_t *o,
                                          const jsonschema_node_t *u)
{
    uintptr_t at = m ? (uintptr_t)hmap_get_pair(&m->index, o, u) : 0;
    return at ? &m->entries[at - 1] : NULL;
}

/* A new entry for (o, u), or NULL when out of memory; entries move when
 * the memo grows. */
static jsonschema_memo_entry_t *memo_insert(jsonschema_memo_t *m, const jsonschema_node_t *o,
                                            const jsonschema_node_t *u)
{
    if (jsonschema_grow((void **)&m->entries, &m->cap, m->n + 1, sizeof *m->entries) != 0 ||
        hmap_put_pair_try(&m->index, o, u, (void *)(uintptr_t)(m->n + 1)) != 0)
        return NULL;
    m->entries[m->n] = (jsonschema_memo_entry_t){.original = o, .update = u};
    return &m->entries[m->n++];
}

static void memo_free(jsonschema_memo_t *m)
{
    for (size_t i = 0; i < m->n; i++)
        jsonschema_difflist_clear(&m->entries[i].diffs);
    free(m->entries);
    hmap_clear(&m->index);
    *m = (jsonschema_memo_t){0};
}

static void compare_types(jsonschema_ctx_t *ctx, const jsonschema_node_t *o, const jsonschema_node_t *u);

/* The differences of a pair relative to the pair (borrowed until the next
 * memo insertion). A pair met again while in progress is a cycle: no
 * differences, unless an earlier pass proved the pair incompatible. */
static const jsonschema_difflist_t *compare_memoized(jsonschema_diffrun_t *run, const jsonschema_node_t *o,
                                                     const jsonschema_node_t *u)
{
    static const jsonschema_difflist_t none = {0};
    jsonschema_memo_entry_t *e = memo_find(&run->memo, o, u);
    if (e && e->done)
        return &e->diffs;
    if (e) {
        const jsonschema_memo_entry_t *seeded = memo_find(run->seed, o, u);
        if (seeded)
            return &seeded->diffs;
        run->optimism_used = 1;
        return &none;
    }
    if (!memo_insert(&run->memo, o, u)) {
        jsonschema_diffrun_fail(run, -1);
        return &none;
    }
    if (++run->depth > DIFF_MAX_DEPTH || ++run->steps > DIFF_MAX_STEPS)
        jsonschema_diffrun_fail(run, JSONSCHEMA_DIFF_TOO_COMPLEX);
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
        jsonschema_diffrun_fail(ctx->run, JSONSCHEMA_DIFF_TOO_COMPLEX);
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
static int compare_one_sided(jsonschema_ctx_t *ctx, const jsonschema_node_t *o, const jsonschema_node_t *u)
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

static void compare_annotations(jsonschema_ctx_t *ctx, const jsonschema_node_t *o, const jsonschema_node_t *u)
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

static void compare_types(jsonschema_ctx_t *ctx, const jsonschema_node_t *o, const jsonschema_node_t *u)
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
static int collect_incompatible(jsonschema_memo_t *memo, jsonschema_memo_t *seed, jsonschema_policy_t policy)
{
    memo_free(seed);
    for (size_t i = 0; i < memo->n; i++) {
        jsonschema_memo_entry_t *e = &memo->entries[i];
        if (jsonschema_difflist_compatible(&e->diffs, policy))
            continue;
        jsonschema_memo_entry_t *s = memo_insert(seed, e->original, e->update);
        if (!s)
            return -1;
        s->done = 1;
        s->diffs = e->diffs;
        e->diffs = (jsonschema_difflist_t){0};
    }
    return 0;
}

static int same_keys(const jsonschema_memo_t *a, const jsonschema_memo_t *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++) {
        if (!memo_find(b, a->entries[i].original, a->entries[i].update))
            return 0;
    }
    return 1;
}

/* One pass over the whole comparison with a given seed; the result in *out.
 * *inexact is set when the pass met recursion after skipping subschema pairs. */
static int run_pass(const jsonschema_node_t *original, const jsonschema_node_t *update,
                    jsonschema_policy_t policy, int every_pair, const jsonschema_memo_t *seed,
                    jsonschema_memo_t *next_seed, jsonschema_difflist_t *out, int *converged, size_t *steps,
                    int *inexact)
{
    jsonschema_diffrun_t run = {
        .policy = policy, .seed = seed, .steps = *steps, .compare_every_pair = every_pair};
    jsonschema_ctx_t ctx;
    jsonschema_ctx_init(&ctx, &run, NULL);
    jsonschema_diff_compare(&ctx, original, update);
    int rc = run.error;
    *steps = run.steps;
    *inexact |= run.optimism_used && run.pairs_skipped;
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

/*
 * The passes until the seed stops changing. Combined schemas first match
 * their subschemas without comparing every pair (jsonschema_diff_combined.c).
 * Without recursion a pair's differences do not depend on which pairs were
 * compared before it, so that is exact; when a pass met recursion (a pair in
 * progress) after skipping pairs, the memo could have depended on them, and
 * the whole diff runs again comparing every pair, as Confluent does.
 */
int jsonschema_diff_list(const jsonschema_t *original, const jsonschema_t *update, jsonschema_policy_t policy,
                         jsonschema_difflist_t *out)
{
    int rc = 0, inexact = 0;
    *out = (jsonschema_difflist_t){0};
    for (int every_pair = 0; every_pair < 2 && (every_pair == 0 || inexact); every_pair++) {
        jsonschema_memo_t seeds[2] = {{0}, {0}};
        int cur = 0, converged = 0;
        size_t steps = 0;
        rc = 0;
        while (!converged && rc == 0) {
            jsonschema_difflist_clear(out);
            rc = run_pass(original->root, update->root, policy, every_pair, &seeds[cur], &seeds[1 - cur], out,
                          &converged, &steps, &inexact);
            cur = 1 - cur;
        }
        memo_free(&seeds[0]);
        memo_free(&seeds[1]);
        if (rc == -1)
            break;
    }
    if (rc != 0)
        jsonschema_difflist_clear(out);
    return rc;
}

int jsonschema_diff(const jsonschema_t *original, const jsonschema_t *update, jsonschema_policy_t policy,
                    strlist_t *changes)
{
    jsonschema_difflist_t diffs;
    int rc = jsonschema_diff_list(original, update, policy, &diffs);
    for (size_t i = 0; i < diffs.n && rc == 0; i++)
        rc =
            strlist_pushf(changes, "%s %s", jsonschema_change_name(diffs.items[i].type), diffs.items[i].path);
    jsonschema_difflist_clear(&diffs);
    return rc;
}

int jsonschema_backward(const jsonschema_t *self, const jsonschema_t *previous, jsonschema_policy_t policy,
                        strlist_t *out)
{
    jsonschema_difflist_t diffs;
    int rc = jsonschema_diff_list(previous, self, policy, &diffs);
    if (rc == JSONSCHEMA_DIFF_TOO_COMPLEX)
        return strlist_push(out, "Incompatible because the schemas are nested too deeply or are "
                                 "too large to compare");
    for (size_t i = 0; i < diffs.n && rc == 0; i++) {
        jsonschema_change_t t = diffs.items[i].type;
        if (jsonschema_change_compatible(t, policy))
            continue;
        char *desc = jsonschema_change_description(t, diffs.items[i].path);
        rc = desc ? strlist_pushf(out, "{errorType:\"%s\", description:\"%s'}", jsonschema_change_name(t),
                                  desc)
                  : -1;
        free(desc);
    }
    jsonschema_difflist_clear(&diffs);
    return rc;
}
