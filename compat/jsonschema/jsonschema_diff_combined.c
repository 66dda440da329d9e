/*
 * jsonschema_diff_combined: allOf / anyOf / oneOf against each other (docs/compatibility.md
 * "The kinds of change"): the criteria, the subschema counts after removing duplicates,
 * then a maximum matching of compatible (original, update) subschema pairs.
 */
#include "compat/jsonschema/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The reference collapses subschemas whose documents are equal. */
static int same_subschema(const jsonschema_node_t *a, const jsonschema_node_t *b)
{
    if (a == b)
        return 1;
    return a->src && b->src && jsonschema_json_equal(a->src, b->src);
}

static size_t dedupe(const jsonschema_node_t *n, const jsonschema_node_t **out)
{
    size_t k = 0;
    for (size_t i = 0; i < n->nsubs; i++) {
        size_t j = 0;
        while (j < k && !same_subschema(out[j], n->subs[i]))
            j++;
        if (j == k)
            out[k++] = n->subs[i];
    }
    return k;
}

typedef struct match {
    size_t no, nu;
    jsonschema_difflist_t *edges; /* no * nu; NULL items mean no compatible edge */
    char *has_edge;
    long *match_u; /* update index -> original index, -1 free */
    char *seen;
} match_t;

static int augment(match_t *m, size_t i)
{
    for (size_t j = 0; j < m->nu; j++) {
        if (!m->has_edge[i * m->nu + j] || m->seen[j])
            continue;
        m->seen[j] = 1;
        if (m->match_u[j] < 0 || augment(m, (size_t)m->match_u[j])) {
            m->match_u[j] = (long)i;
            return 1;
        }
    }
    return 0;
}

static size_t maximum_matching(match_t *m)
{
    size_t size = 0;
    for (size_t j = 0; j < m->nu; j++)
        m->match_u[j] = -1;
    for (size_t i = 0; i < m->no; i++) {
        memset(m->seen, 0, m->nu);
        size += (size_t)augment(m, i);
    }
    return size;
}

static void compare_pairs(jsonschema_ctx_t *ctx, const jsonschema_node_t *o, match_t *m,
                          const jsonschema_node_t **os, const jsonschema_node_t **us)
{
    for (size_t i = 0; i < m->no && !jsonschema_ctx_failed(ctx); i++) {
        char seg[32];
        int len = snprintf(seg, sizeof seg, "%s/%zu", criterion_name(o->criterion), i);
        jsonschema_mark_t mark = jsonschema_ctx_push(ctx, seg, (size_t)len);
        for (size_t j = 0; j < m->nu; j++) {
            jsonschema_ctx_t sub;
            jsonschema_ctx_init(&sub, ctx->run, ctx);
            jsonschema_diff_compare(&sub, os[i], us[j]);
            if (!jsonschema_ctx_failed(&sub) && jsonschema_ctx_compatible(&sub)) {
                m->has_edge[i * m->nu + j] = 1;
                m->edges[i * m->nu + j] = sub.diffs;
                sub.diffs = (jsonschema_difflist_t){0};
            }
            jsonschema_ctx_free(&sub);
        }
        jsonschema_ctx_pop(ctx, mark);
    }
}

static void match_free(match_t *m)
{
    for (size_t i = 0; m->edges && i < m->no * m->nu; i++)
        jsonschema_difflist_clear(&m->edges[i]);
    free(m->edges);
    free(m->has_edge);
    free(m->match_u);
    free(m->seen);
}

static void match_subschemas(jsonschema_ctx_t *ctx, const jsonschema_node_t *o, const jsonschema_node_t **os,
                             size_t no, const jsonschema_node_t **us, size_t nu)
{
    match_t m = {.no = no, .nu = nu};
    m.edges = calloc(no * nu + 1, sizeof *m.edges);
    m.has_edge = calloc(no * nu + 1, 1);
    m.match_u = calloc(nu + 1, sizeof *m.match_u);
    m.seen = calloc(nu + 1, 1);
    if (!m.edges || !m.has_edge || !m.match_u || !m.seen) {
        match_free(&m);
        jsonschema_ctx_oom(ctx);
        return;
    }
    compare_pairs(ctx, o, &m, os, us);
    size_t size = maximum_matching(&m);
    for (size_t j = 0; j < nu; j++) {
        if (m.match_u[j] >= 0)
            jsonschema_ctx_adopt(ctx, &m.edges[(size_t)m.match_u[j] * nu + j]);
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
    const jsonschema_node_t **os = calloc(original->nsubs + 1, sizeof *os);
    const jsonschema_node_t **us = calloc(update->nsubs + 1, sizeof *us);
    if (os && us) {
        size_t no = dedupe(original, os), nu = dedupe(update, us);
        if (no < nu)
            jsonschema_ctx_add(ctx, update->criterion == JSONSCHEMA_ALL_OF ? JSONSCHEMA_PRODUCT_TYPE_EXTENDED
                                                                           : JSONSCHEMA_SUM_TYPE_EXTENDED);
        else if (no > nu)
            jsonschema_ctx_add(ctx, original->criterion == JSONSCHEMA_ALL_OF
                                        ? JSONSCHEMA_PRODUCT_TYPE_NARROWED
                                        : JSONSCHEMA_SUM_TYPE_NARROWED);
        match_subschemas(ctx, original, os, no, us, nu);
    } else {
        jsonschema_ctx_oom(ctx);
    }
    free(os);
    free(us);
}
