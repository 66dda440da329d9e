/*
 * router: from (method, path segments) to a handler, over http_routes[].
 *
 * Patterns are read in place on every lookup: the table is a few dozen
 * short strings, and comparing them costs less than the HTTP parsing that
 * came before. Specificity is a bit mask with one bit per segment position,
 * set where the pattern has a parameter ("{name}" or "*"), most significant
 * first: the lower mask is the more specific pattern (a literal beats a
 * parameter at the first difference).
 *
 * Only patterns with as many segments as the path can match, and walking
 * every pattern was the largest cost of a by-id read after the rendering
 * was gone (docs/performance.md): so each table's segment counts are
 * computed once, on its first lookup, and patterns of another length are
 * skipped with one byte compare.
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
 * Matches one pattern against the segments. Returns 1 and its wildcard mask
 * in *mask, or 0. "/" (or "") is the pattern with no segments. A literal
 * segment is compared as the pattern is read, so most patterns are left at
 * their first character: this runs for every route on every request.
 */
static int router_pattern_match(const char *pattern, char *const *seg, size_t nseg, uint64_t *mask)
{
    const char *p = pattern;
    uint64_t m = 0;
    size_t k = 0;
    if (*p == '/')
        p++;
    while (*p != '\0') {
        if (k >= nseg)
            return 0;
        if (*p == '{' || *p == '*') {
            const char *end = p;
            while (*end != '\0' && *end != '/')
                end++;
            if (router_is_param(p, (size_t)(end - p)))
                m |= UINT64_C(1) << (ROUTER_MAX_SEGMENTS - k);
            else if (strlen(seg[k]) != (size_t)(end - p) || memcmp(seg[k], p, (size_t)(end - p)) != 0)
                return 0;
            p = end;
        } else {
            const char *s = seg[k];
            while (*p != '\0' && *p != '/' && *p == *s)
                p++, s++;
            if ((*p != '\0' && *p != '/') || *s != '\0')
                return 0;
        }
        k++;
        if (*p == '/')
            p++;
    }
    if (k != nseg)
        return 0;
    *mask = m;
    return 1;
}

/* The segment count of every pattern of one table (set once, then read-only). */
typedef struct router_counts {
    const http_route_t *routes;
    size_t nroutes;
    unsigned char *nseg; /* per route; UCHAR_MAX: more than ROUTER_MAX_SEGMENTS */
} router_counts_t;

#define ROUTER_TABLES 8 /* the server's table, and the unit tests' own */

static router_counts_t router_tables[ROUTER_TABLES];
static size_t router_ntables; /* atomic: entries below it are complete */
static pthread_mutex_t router_lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned char router_pattern_segments(const char *pattern)
{
    const char *p = *pattern == '/' ? pattern + 1 : pattern;
    size_t n = *p ? 1 : 0;
    for (; *p; p++)
        n += *p == '/' && p[1] != '\0';
    return n > ROUTER_MAX_SEGMENTS ? (unsigned char)UINT8_MAX : (unsigned char)n;
}

/* The counts of a table, computed on its first lookup; NULL when the cache is full. */
static const unsigned char *router_counts(const http_route_t *routes, size_t nroutes)
{
    size_t n = __atomic_load_n(&router_ntables, __ATOMIC_ACQUIRE);
    for (size_t i = 0; i < n; i++)
        if (router_tables[i].routes == routes && router_tables[i].nroutes == nroutes)
            return router_tables[i].nseg;
    const unsigned char *found = NULL;
    pthread_mutex_lock(&router_lock);
    n = router_ntables;
    for (size_t i = 0; i < n && !found; i++)
        if (router_tables[i].routes == routes && router_tables[i].nroutes == nroutes)
            found = router_tables[i].nseg;
    if (!found && n < ROUTER_TABLES) {
        unsigned char *nseg = xmalloc(nroutes + 1);
        for (size_t i = 0; i < nroutes; i++)
            nseg[i] = router_pattern_segments(routes[i].pattern);
        router_tables[n] = (router_counts_t){routes, nroutes, nseg};
        __atomic_store_n(&router_ntables, n + 1, __ATOMIC_RELEASE);
        found = nseg;
    }
    pthread_mutex_unlock(&router_lock);
    return found;
}

int http_route_lookup(const http_route_t *routes, size_t nroutes, http_method_t method, char *const *seg,
                      size_t nseg, const http_route_t **route, const http_handler_t **handler)
{
    int path_matched = 0;
    uint64_t best_mask = UINT64_MAX;
    const http_route_t *best = NULL;

    *handler = NULL;
    if (route)
        *route = NULL;
    if (nseg > ROUTER_MAX_SEGMENTS)
        return 404;
    const unsigned char *counts = router_counts(routes, nroutes);
    for (size_t i = 0; i < nroutes; i++) {
        uint64_t mask;
        if (counts && counts[i] != nseg)
            continue;
        if (!router_pattern_match(routes[i].pattern, seg, nseg, &mask))
            continue;
        path_matched = 1;
        if (router_method_handler(&routes[i], method) != NULL && (best == NULL || mask < best_mask)) {
            best = &routes[i];
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

int http_route_match(const http_route_t *routes, size_t nroutes, http_method_t method, char *const *seg,
                     size_t nseg, const http_handler_t **handler)
{
    return http_route_lookup(routes, nroutes, method, seg, nseg, NULL, handler);
}

int http_route_find(http_method_t method, char *const *seg, size_t nseg, const http_handler_t **handler)
{
    return http_route_lookup(http_routes, http_route_count, method, seg, nseg, NULL, handler);
}
