/*
 * metrics: the counters behind GET /metrics and the text a scrape gets
 * (docs/operations.md "Metrics"): Prometheus text exposition format 0.0.4.
 *
 * Contents
 *   1. The set: one shard per event loop
 *   2. Counting a request (the hot path)
 *   3. The scrape
 *
 * Threads: each event loop owns one shard and is its only writer, so a
 * request costs a few relaxed loads and stores on memory no other thread
 * writes (no lock, no locked instruction, no shared cache line); a scrape
 * reads every shard and adds them up. A scrape may see one request's
 * counter before its histogram bucket, never a torn value.
 */
#ifndef SERVER_METRICS_H
#define SERVER_METRICS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "registry/registry.h"
#include "server/http.h"

/* ---- 1. The set ----------------------------------------------------------- */

typedef struct metrics metrics_t;
typedef struct metrics_shard metrics_shard_t;

/* nshards shards, each counting by the nroutes entries of routes (borrowed,
 * static: the server's http_routes) and one more for "unmatched". The table
 * is handed in rather than named here: routes.c names the scrape's handler. */
metrics_t *metrics_new(size_t nshards, const http_route_t *routes, size_t nroutes);
void metrics_free(metrics_t *m);
/* Shard i (< nshards), borrowed: the one loop i writes. */
metrics_shard_t *metrics_shard(metrics_t *m, size_t i);

/* What the scrape also reports, borrowed (they must outlive m's scrapes):
 * the database pool and the server's open-connection count. */
struct dbpool;
void metrics_use_pool(metrics_t *m, struct dbpool *pool);
void metrics_use_connections(metrics_t *m, const atomic_int *connections);
/* Loop i's open connections (borrowed, as above): schema_registry_http_thread_connections. */
void metrics_use_thread_connections(metrics_t *m, size_t i, const atomic_int *connections);

/* ---- 2. Counting ------------------------------------------------------------ */

/*
 * One finished request on the shard's own loop thread: route is the matched
 * entry of the table (NULL: none matched, or the request was refused
 * before routing), status the reply's, us the time from the request's
 * arrival to its reply in microseconds.
 */
void metrics_count(metrics_shard_t *s, const http_route_t *route, http_method_t method, int status,
                   uint64_t us);

/* ---- 3. The scrape ---------------------------------------------------------- */

/* "text/plain; version=0.0.4; charset=utf-8" */
extern const char METRICS_MEDIA[];

/* Every family, HELP and TYPE first, into a malloc'd text (*len bytes). reg
 * is borrowed; from memory, so the scrape answers while the database is down. */
char *metrics_render(metrics_t *m, registry_t *reg, size_t *len);

#endif
