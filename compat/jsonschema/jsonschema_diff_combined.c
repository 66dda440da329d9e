/*
 * jsonschema_diff_combined: allOf / anyOf / oneOf against each other (docs/compatibility.md
 * "The kinds of change"): the criteria, the subschema counts after removing duplicates,
 * then a maximum matching of compatible (original, update) subschema pairs, equal
 * subschemas paired first so that wide combinations are linear.
 */
#include "compat/jsonschema/internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hmap.h"

static const char *criterion_name(jsonschema_criterion_t c)
{
    return c == JSONSCHEMA_ALL_OF ? "allOf" : c == JSONSCHEMA_ANY_OF ? "anyOf" : "oneOf";
}

/* Returns 0 when the criteria let the comparison go on. */
static int compare_criteria(jsonschema_ctx_t *ctx, const jsonschema_node_t *o, const jsonschema_node_t *u)
{
    if (o->criterion == u->criterion)
        return 0;
    int o1 = o->nsubs == 1, u1 = u->nsubs == 1;
    if (u->criterion == JSONSCHEMA_ANY_OF || (o1 && u1) || (o1 && u->criterion == JSONSCHEMA_ONE_OF) ||
        (u1 && o->criterion == JSONSCHEMA_ALL_OF)) {
        jsonschema_ctx_add(ctx, JSONSCHEMA_COMBINED_TYPE_EXTENDED);
        return 0;
    }
    jsonschema_ctx_add(ctx, JSONSCHEMA_COMBINED_TYPE_CHANGED);
    return -1;
}

/* ---- Subschemas by content ---------------------------------------------------------------- */

/* The reference collapses subschemas whose documents are equal. */
static int same_subschema(const jsonschema_node_t *a, const jsonschema_node_t *b)
{
    if (a == b)
        return 1;
    return a->src && b->src && jsonschema_json_equal(a->src, b->src);
}

static uint64_t mix(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

/* Strings go through the map's keyed hash (base/hmap.h), so crafted
 * subschemas cannot be made to share a hash without knowing the key. */
static uint64_t bytes_hash(const char *s, size_t len)
{
    return hmap_hash(s, len);
}

/* Equal documents (jsonschema_json_equal) hash alike: members in any order,
 * and decimals, equal by value or by text, all alike. */
static uint64_t json_hash(const jsonschema_json_t *v)
{
    uint64_t h = mix((uint64_t)v->kind + 1);
    switch (v->kind) {
    case JSONSCHEMA_JSON_NUMBER: return v->is_integer ? h ^ bytes_hash(v->str, v->len) : h;
    case JSONSCHEMA_JSON_STRING: return h ^ bytes_hash(v->str, v->len);
    case JSONSCHEMA_JSON_ARRAY:
        for (size_t i = 0; i < v->n; i++)
            h = mix(h * 31 + json_hash(v->elems[i]));
        return h;
    case JSONSCHEMA_JSON_OBJECT:
        for (size_t i = 0; i < v->n; i++)
            h += mix(bytes_hash(v->members[i].key, v->members[i].key_len) ^
                     json_hash(v->members[i].value) * 3);
        return mix(h);
    default: return h;
    }
}

static uint64_t subschema_hash(const jsonschema_node_t *n)
{
    return n->src ? json_hash(n->src) : mix((uint64_t)(uintptr_t)n);
}

/* Distinct subschemas by content, the first of each kind in order. Equality
 * is structural (same_subschema), so the map's key is the structural hash
 * and the subschemas sharing one are chained; a set holds no two equal
 * subschemas, so a lookup's answer does not depend on the chain's order. */
typedef struct sub_set {
    const jsonschema_node_t **subs;
    long *next; /* the next in subs with the same hash, or -1 */
    size_t n;
    hmap_t heads; /* hash (8 bytes) -> the last index in subs with it, + 1 */
} sub_set_t;

static int sub_set_init(sub_set_t *set, size_t n)
{
    *set = (sub_set_t){.subs = calloc(n + 1, sizeof *set->subs), .next = calloc(n + 1, sizeof *set->next)};
    return set->subs && set->next && hmap_reserve_try(&set->heads, n) == 0 ? 0 : -1;
}

static void sub_set_free(sub_set_t *set)
{
    free(set->subs);
    free(set->next);
    hmap_clear(&set->heads);
}

/* The index of the subschema equal to sub (hash h), or -1. */
static long sub_set_find(const sub_set_t *set, const jsonschema_node_t *sub, uint64_t h)
{
    long k = (long)(uintptr_t)hmap_get(&set->heads, &h, sizeof h) - 1;
    while (k >= 0 && !same_subschema(set->subs[k], sub))
        k = set->next[k];
    return k;
}

/* Keeps the first of each set of equal subschemas, in order; 0, or -1 when
 * out of memory. */
static int dedupe(const jsonschema_node_t *n, sub_set_t *set)
{
    for (size_t i = 0; i < n->nsubs; i++) {
        uint64_t h = subschema_hash(n->subs[i]);
        if (sub_set_find(set, n->subs[i], h) >= 0)
            continue;
        void *last;
        if (hmap_put_try(&set->heads, &h, sizeof h, (void *)(uintptr_t)(set->n + 1), &last) != 0)
            return -1;
        set->subs[set->n] = n->subs[i];
        set->next[set->n++] = (long)(uintptr_t)last - 1;
    }
    return 0;
}

/* ---- The matching ------------------------------------------------------------------------------ */

/*
 * Confluent pairs original and update subschemas by a maximum matching over
 * the compatible pairs, having compared every pair (n^2 comparisons). Here a
 * pair is compared when the matching asks: first each original with its
 * equal update subschema (its twin), then Kuhn's augmenting paths from every
 * original left over, over all updates. Augmenting from any start matching
 * ends at a maximum matching, so its size (all the answer reads) is
 * Confluent's, and identical or appended-to combinations cost a linear
 * number of comparisons; changed branches cost one row each. A skipped
 * comparison could still have mattered through the memo of a recursive
 * schema: the run notes each skip, and jsonschema_diff.c runs the diff again
 * comparing every pair when recursion was met.
 */
typedef struct match {
    jsonschema_ctx_t *ctx;
    const jsonschema_node_t *o;
    const jsonschema_node_t **os, **us;
    size_t no, nu;
    hmap_t edges; /* (os[i], us[j]) -> owned compatible differences, or &incompatible */
    size_t compared;
    long *match_u; /* update index -> original index, -1 free */
    char *seen;
} match_t;

static jsonschema_difflist_t incompatible;

/* The pair's differences when compatible, else NULL: compared once, in a
 * subcontext at "<criterion>/i". */
static jsonschema_difflist_t *edge(match_t *m, size_t i, size_t j)
{
    jsonschema_difflist_t *e = hmap_get_pair(&m->edges, m->os[i], m->us[j]);
    if (e)
        return e == &incompatible ? NULL : e;
    char seg[32];
    int len = snprintf(seg, sizeof seg, "%s/%zu", criterion_name(m->o->criterion), i);
    jsonschema_mark_t mark = jsonschema_ctx_push(m->ctx, seg, (size_t)len);
    jsonschema_ctx_t sub;
    jsonschema_ctx_init(&sub, m->ctx->run, m->ctx);
    jsonschema_diff_compare(&sub, m->os[i], m->us[j]);
    e = &incompatible;
    if (!jsonschema_ctx_failed(&sub) && jsonschema_ctx_compatible(&sub) && (e = malloc(sizeof *e)) != NULL) {
        *e = sub.diffs;
        sub.diffs = (jsonschema_difflist_t){0};
    }
    jsonschema_ctx_free(&sub);
    jsonschema_ctx_pop(m->ctx, mark);
    m->compared++;
    if (!e || hmap_put_pair_try(&m->edges, m->os[i], m->us[j], e) != 0) {
        if (e && e != &incompatible) {
            jsonschema_difflist_clear(e);
            free(e);
        }
        jsonschema_ctx_oom(m->ctx);
        return NULL;
    }
    return e == &incompatible ? NULL : e;
}

static int augment(match_t *m, size_t i)
{
    for (size_t j = 0; j < m->nu && !jsonschema_ctx_failed(m->ctx); j++) {
        if (m->seen[j] || !edge(m, i, j))
            continue;
        m->seen[j] = 1;
        if (m->match_u[j] < 0 || augment(m, (size_t)m->match_u[j])) {
            m->match_u[j] = (long)i;
            return 1;
        }
    }
    return 0;
}

/* Twins first (unless the run compares every pair, in Confluent's order),
 * then an augmenting path from every original still free. */
static size_t maximum_matching(match_t *m, const sub_set_t *updates)
{
    size_t size = 0;
    char *matched = calloc(m->no + 1, 1);
    if (!matched) {
        jsonschema_ctx_oom(m->ctx);
        return 0;
    }
    for (size_t j = 0; j < m->nu; j++)
        m->match_u[j] = -1;
    int every_pair = m->ctx->run->compare_every_pair;
    for (size_t i = 0; i < m->no && !jsonschema_ctx_failed(m->ctx); i++) {
        for (size_t j = 0; every_pair && j < m->nu; j++)
            edge(m, i, j);
        long twin = every_pair ? -1 : sub_set_find(updates, m->os[i], subschema_hash(m->os[i]));
        if (twin >= 0 && m->match_u[twin] < 0 && edge(m, i, (size_t)twin)) {
            m->match_u[twin] = (long)i;
            matched[i] = 1;
            size++;
        }
    }
    for (size_t i = 0; i < m->no && !jsonschema_ctx_failed(m->ctx); i++) {
        if (matched[i])
            continue;
        memset(m->seen, 0, m->nu);
        size += (size_t)augment(m, i);
    }
    if (m->compared < m->no * m->nu)
        m->ctx->run->pairs_skipped = 1;
    free(matched);
    return size;
}

static void match_free(match_t *m)
{
    for (size_t i = 0; i < m->edges.cap; i++) {
        jsonschema_difflist_t *e = hmap_live(&m->edges, i) ? m->edges.slots[i].value : NULL;
        if (e && e != &incompatible) {
            jsonschema_difflist_clear(e);
            free(e);
        }
    }
    hmap_clear(&m->edges);
    free(m->match_u);
    free(m->seen);
}

static void match_subschemas(jsonschema_ctx_t *ctx, const jsonschema_node_t *o, const jsonschema_node_t **os,
                             size_t no, const sub_set_t *updates, size_t nu)
{
    match_t m = {.ctx = ctx, .o = o, .os = os, .us = updates->subs, .no = no, .nu = nu};
    m.match_u = calloc(nu + 1, sizeof *m.match_u);
    m.seen = calloc(nu + 1, 1);
    if (!m.match_u || !m.seen) {
        match_free(&m);
        jsonschema_ctx_oom(ctx);
        return;
    }
    size_t size = maximum_matching(&m, updates);
    for (size_t j = 0; j < nu && !jsonschema_ctx_failed(ctx); j++) {
        if (m.match_u[j] >= 0)
            jsonschema_ctx_adopt(ctx, edge(&m, (size_t)m.match_u[j], j));
    }
    if (size < (no < nu ? no : nu))
        jsonschema_ctx_add(ctx, JSONSCHEMA_COMBINED_TYPE_SUBSCHEMAS_CHANGED);
    match_free(&m);
}

void jsonschema_diff_combined(jsonschema_ctx_t *ctx, const jsonschema_node_t *original,
                              const jsonschema_node_t *update)
{
    if (compare_criteria(ctx, original, update) != 0)
        return;
    sub_set_t oset, uset;
    int ok = sub_set_init(&oset, original->nsubs) == 0;
    ok = sub_set_init(&uset, update->nsubs) == 0 && ok;
    if (ok && dedupe(original, &oset) == 0 && dedupe(update, &uset) == 0) {
        size_t no = oset.n, nu = uset.n;
        if (no < nu)
            jsonschema_ctx_add(ctx, update->criterion == JSONSCHEMA_ALL_OF ? JSONSCHEMA_PRODUCT_TYPE_EXTENDED
                                                                           : JSONSCHEMA_SUM_TYPE_EXTENDED);
        else if (no > nu)
            jsonschema_ctx_add(ctx, original->criterion == JSONSCHEMA_ALL_OF
                                        ? JSONSCHEMA_PRODUCT_TYPE_NARROWED
                                        : JSONSCHEMA_SUM_TYPE_NARROWED);
        match_subschemas(ctx, original, oset.subs, no, &uset, nu);
    } else {
        jsonschema_ctx_oom(ctx);
    }
    sub_set_free(&oset);
    sub_set_free(&uset);
}
