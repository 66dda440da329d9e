/*
 * router: from (method, path segments) to a handler, over http_routes[].
 *
 * Specificity is a bit mask with one bit per segment position, set where
 * the pattern has a parameter ("{name}" or "*"), most significant first: the
 * lower mask is the more specific pattern (a literal beats a parameter at the
 * first difference).
 *
 * This runs for every request, and walking the patterns was the largest cost
 * of a by-id read once the rendering was gone (docs/performance.md): so each
 * table is compiled on its first lookup (router_table_t) and a lookup visits
 * only the patterns with as many segments as the path.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

#include "server/http_server.h"

#define ROUTER_MAX_SEGMENTS 63

static const http_handler_t *router_method_handler(const http_route_t *r, http_method_t method)
{
    switch (method) {
    case HTTP_GET:
    case HTTP_HEAD: return r->get;
    case HTTP_POST: return r->post;
    case HTTP_PUT: return r->put;
    case HTTP_DELETE: return r->del;
    default: return NULL;
    }
}

http_need_t http_route_need(const http_route_t *r, http_method_t method)
{
    switch (method) {
    case HTTP_GET:
    case HTTP_HEAD: return r->need[0];
    case HTTP_POST: return r->need[1];
    case HTTP_PUT: return r->need[2];
    case HTTP_DELETE: return r->need[3];
    default: return (http_need_t){0, 0};
    }
}

static int router_is_param(const char *p, size_t len)
{
    return (len == 1 && p[0] == '*') || (len >= 2 && p[0] == '{' && p[len - 1] == '}');
}

/*
 * A table compiled once, on its first lookup: every pattern split into its
 * segments (literal text and length, or a parameter), and the routes listed
 * by segment count, so a lookup visits only the patterns as long as the path
 * and compares each literal segment by length first.
 */
typedef struct router_seg {
    const char *text; /* into the pattern, not NUL-terminated */
    size_t len;
    int param; /* "{name}" or "*": matches any segment */
} router_seg_t;

typedef struct router_table {
    const http_route_t *routes;
    size_t nroutes;
    router_seg_t *segs;                    /* route i's at segs[first[i]] */
    size_t *first;                         /* per route */
    size_t *by_count;                      /* route indexes by segment count, table order within one */
    size_t start[ROUTER_MAX_SEGMENTS + 2]; /* n segments: by_count[start[n] .. start[n + 1]) */
} router_table_t;

/* A pattern's segments: no leading '/', and a trailing one ends the last
 * segment ("/a/" is "/a"); "/" and "" have none. Into out (NULL: count only). */
static size_t router_split(const char *pattern, router_seg_t *out)
{
    const char *p = *pattern == '/' ? pattern + 1 : pattern;
    size_t n = 0;
    while (*p != '\0') {
        const char *end = strchr(p, '/');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (out)
            out[n] = (router_seg_t){p, len, router_is_param(p, len)};
        n++;
        p += len;
        if (*p == '/')
            p++;
    }
    return n;
}

static void router_compile(const http_route_t *routes, size_t nroutes, router_table_t *t)
{
    memset(t, 0, sizeof *t);
    t->routes = routes;
    t->nroutes = nroutes;
    t->first = xcalloc(nroutes + 1, sizeof *t->first);
    t->by_count = xcalloc(nroutes + 1, sizeof *t->by_count);
    size_t total = 0;
    size_t *count = xcalloc(nroutes + 1, sizeof *count);
    for (size_t i = 0; i < nroutes; i++) {
        t->first[i] = total;
        count[i] = router_split(routes[i].pattern, NULL);
        total += count[i];
    }
    t->segs = xcalloc(total + 1, sizeof *t->segs);
    for (size_t i = 0; i < nroutes; i++)
        router_split(routes[i].pattern, t->segs + t->first[i]);
    /* A pattern longer than any path that can match is never listed. */
    size_t k = 0;
    for (size_t n = 0; n <= ROUTER_MAX_SEGMENTS; n++) {
        t->start[n] = k;
        for (size_t i = 0; i < nroutes; i++)
            if (count[i] == n)
                t->by_count[k++] = i;
    }
    t->start[ROUTER_MAX_SEGMENTS + 1] = k;
    free(count);
}

static void router_table_free(router_table_t *t)
{
    free(t->segs);
    free(t->first);
    free(t->by_count);
}

/*
 * Route i of t against the segments (nseg of them, as long as the pattern).
 * Returns 1 and its parameter mask in *mask, or 0.
 */
static int router_route_match(const router_table_t *t, size_t i, char *const *seg, const size_t *seglen,
                              size_t nseg, uint64_t *mask)
{
    const router_seg_t *d = t->segs + t->first[i];
    uint64_t m = 0;
    for (size_t k = 0; k < nseg; k++) {
        if (d[k].param)
            m |= UINT64_C(1) << (ROUTER_MAX_SEGMENTS - k);
        else if (seglen[k] != d[k].len || memcmp(seg[k], d[k].text, d[k].len) != 0)
            return 0;
    }
    *mask = m;
    return 1;
}

#define ROUTER_TABLES 8 /* the server's table, and the unit tests' own */

static router_table_t router_tables[ROUTER_TABLES];
static size_t router_ntables; /* atomic: entries below it are complete */
static pthread_mutex_t router_lock = PTHREAD_MUTEX_INITIALIZER;

/* The compiled form of a table, made on its first lookup; NULL when the cache is full. */
static const router_table_t *router_table(const http_route_t *routes, size_t nroutes)
{
    size_t n = __atomic_load_n(&router_ntables, __ATOMIC_ACQUIRE);
    for (size_t i = 0; i < n; i++)
        if (router_tables[i].routes == routes && router_tables[i].nroutes == nroutes)
            return &router_tables[i];
    const router_table_t *found = NULL;
    pthread_mutex_lock(&router_lock);
    n = router_ntables;
    for (size_t i = 0; i < n && !found; i++)
        if (router_tables[i].routes == routes && router_tables[i].nroutes == nroutes)
            found = &router_tables[i];
    if (!found && n < ROUTER_TABLES) {
        router_compile(routes, nroutes, &router_tables[n]);
        __atomic_store_n(&router_ntables, n + 1, __ATOMIC_RELEASE);
        found = &router_tables[n];
    }
    pthread_mutex_unlock(&router_lock);
    return found;
}

static int router_lookup_in(const router_table_t *t, http_method_t method, char *const *seg, size_t nseg,
                            const http_route_t **route, const http_handler_t **handler)
{
    int path_matched = 0;
    uint64_t best_mask = UINT64_MAX;
    const http_route_t *best = NULL;
    size_t seglen[ROUTER_MAX_SEGMENTS];
    for (size_t k = 0; k < nseg; k++)
        seglen[k] = strlen(seg[k]);
    for (size_t j = t->start[nseg]; j < t->start[nseg + 1]; j++) {
        size_t i = t->by_count[j];
        uint64_t mask;
        if (!router_route_match(t, i, seg, seglen, nseg, &mask))
            continue;
        path_matched = 1;
        if (router_method_handler(&t->routes[i], method) != NULL && (best == NULL || mask < best_mask)) {
            best = &t->routes[i];
            best_mask = mask;
        }
    }
    if (best != NULL) {
        *handler = router_method_handler(best, method);
        if (route)
            *route = best;
        return 200;
    }
    return path_matched ? 405 : 404;
}

int http_route_lookup(const http_route_t *routes, size_t nroutes, http_method_t method, char *const *seg,
                      size_t nseg, const http_route_t **route, const http_handler_t **handler)
{
    *handler = NULL;
    if (route)
        *route = NULL;
    if (nseg > ROUTER_MAX_SEGMENTS)
        return 404;
    const router_table_t *t = router_table(routes, nroutes);
    if (t)
        return router_lookup_in(t, method, seg, nseg, route, handler);
    router_table_t once; /* more tables than the cache holds: unit tests only */
    router_compile(routes, nroutes, &once);
    int rc = router_lookup_in(&once, method, seg, nseg, route, handler);
    router_table_free(&once);
    return rc;
}

int http_route_match(const http_route_t *routes, size_t nroutes, http_method_t method, char *const *seg,
                     size_t nseg, const http_handler_t **handler)
{
    return http_route_lookup(routes, nroutes, method, seg, nseg, NULL, handler);
}

int http_route_find(http_method_t method, char *const *seg, size_t nseg, const http_handler_t **handler)
{
    return http_route_lookup(http_routes, http_route_count, method, seg, nseg, NULL, handler);
}
