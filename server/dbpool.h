/*
 * dbpool: database worker threads, each with its own store_t connection,
 * fed by one job queue.
 *
 * A worker that cannot reach PostgreSQL keeps retrying with backoff (100 ms
 * doubling to 5 s); jobs that arrive meanwhile run at once with db == NULL,
 * so the caller answers "database unavailable" instead of leaving a client
 * hanging. dbpool knows nothing of HTTP: a job is a callback.
 *
 * Without a conninfo it is a pool of plain threads for CPU work that must
 * not run on an event loop (the password hashes of auth.h): the same queue
 * and the same way home, and every job runs with db == NULL.
 */
#ifndef SERVER_DBPOOL_H
#define SERVER_DBPOOL_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"

typedef struct dbpool dbpool_t;
typedef struct dbpool_job dbpool_job_t;

/*
 * Runs on a worker thread. db is the worker's connection, or NULL when it
 * has none. When the connection is broken afterwards (store_is_broken), the
 * worker closes it and connects afresh before its next job; a job that
 * merely failed (a refused write, a 5xx of the domain) keeps it.
 */
typedef void (*dbpool_run_fn)(dbpool_job_t *job, store_t *db);

/* Embed first in the caller's job struct; the pool owns next while queued. */
struct dbpool_job {
    dbpool_run_fn run;
    dbpool_job_t *next;
};

/*
 * Starts nthreads workers. They connect to conninfo (borrowed: copied) in
 * the background, so a database that is down does not fail this call;
 * conninfo NULL: they never connect.
 * NULL + malloc'd *error only when threads cannot be created.
 */
dbpool_t *dbpool_new(const char *conninfo, int nthreads, char **error);

/* Queues a job; workers take jobs in submission order and run each exactly once. */
void dbpool_submit(dbpool_t *pool, dbpool_job_t *job);

/*
 * Shutdown past its deadline: cancels the query each busy worker is running
 * (PostgreSQL answers it with 57014) and runs every queued job at once
 * without a connection, so every job comes back within moments.
 */
void dbpool_cancel(dbpool_t *pool);

/* What GET /metrics shows of the pool (server/metrics.c), read under its lock. */
typedef struct dbpool_stats {
    int workers;
    int connected;           /* workers holding a connection */
    int busy;                /* workers running a job */
    size_t waiting;          /* jobs queued, not taken yet */
    uint64_t jobs;           /* jobs taken since start */
    uint64_t connect_errors; /* connection attempts that failed */
    uint64_t reconnects;     /* connections found dead: reset by the store, or broken after a job */
} dbpool_stats_t;

void dbpool_stats(dbpool_t *pool, dbpool_stats_t *out);

/* Runs every job still queued, stops and joins the workers, closes their connections. */
void dbpool_free(dbpool_t *pool);

#endif
