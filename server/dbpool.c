/*
 * dbpool: worker threads around a mutex + condvar FIFO (see dbpool.h).
 */
#include "server/dbpool.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/log.h"

#define DBPOOL_BACKOFF_MIN_MS 100
#define DBPOOL_BACKOFF_MAX_MS 5000
/* Handlers parse JSON nested up to 2048 levels; jansson needs ~1 MB for that. */
#define DBPOOL_STACK_BYTES (8u * 1024 * 1024)

typedef struct dbpool_worker {
    dbpool_t *pool;
    int index;
    pthread_t thread;
    store_t *db;          /* NULL while disconnected; replaced only under the pool's mutex */
    int busy;             /* running a job (under the mutex) */
    uint64_t retry_at_ms; /* next connection attempt (monotonic) */
    unsigned backoff_ms;
} dbpool_worker_t;

struct dbpool {
    char *conninfo; /* NULL: a pool without connections (dbpool.h) */
    pthread_mutex_t mutex;
    /* Workers wait on one of two: a job arrived, or stop, for those that can
     * take it (a connection, or none needed); for those in their backoff
     * without one, the same while no worker has a connection, or the outage
     * ended. A submit while some lack a connection wakes one that takes it,
     * not every worker to find out which. */
    pthread_cond_t cond;
    pthread_cond_t cond_unconnected;
    dbpool_job_t *head, *tail;
    int stopping;
    int cancelling; /* dbpool_cancel: queued jobs run without a connection */
    int outage;     /* a worker lost or could not open its connection: logged once until one is back */
    int nworkers;
    int connected; /* workers holding a connection */
    dbpool_worker_t *workers;
    /* Counted under the mutex for dbpool_stats (it is taken for each job anyway). */
    size_t queued;
    uint64_t jobs, connect_errors, reconnects;
};

/* ---- Connections ------------------------------------------------------ */

/* Under the mutex: a worker has a connection again, so the database is back
 * for all. Workers still waiting out their backoff (up to 5 s) connect now:
 * a job one of them took would fail for want of a connection while the
 * database answers the others. Logged once per outage. */
static void dbpool_outage_over(dbpool_t *pool)
{
    if (!pool->outage)
        return;
    pool->outage = 0;
    for (int i = 0; i < pool->nworkers; i++)
        if (pool->workers[i].db == NULL) {
            pool->workers[i].retry_at_ms = 0;
            pool->workers[i].backoff_ms = DBPOOL_BACKOFF_MIN_MS;
        }
    pthread_cond_broadcast(&pool->cond_unconnected);
    log_info("dbpool: connected to the database again");
}

/* Called without the lock held: store_open blocks. */
static void dbpool_connect(dbpool_worker_t *w)
{
    char *error = NULL;
    store_t *db = store_open(w->pool->conninfo, &error);
    if (db != NULL)
        store_limit_statements(db); /* a request's client waits on these */
    pthread_mutex_lock(&w->pool->mutex);
    w->db = db;
    w->pool->connected += db != NULL;
    /* One line per outage for the whole pool (a failover is one event, not
     * one per worker and attempt): the first failure, and the first success. */
    int was_out = w->pool->outage;
    if (db != NULL) {
        w->backoff_ms = DBPOOL_BACKOFF_MIN_MS;
        dbpool_outage_over(w->pool);
    } else {
        w->pool->connect_errors++;
        w->pool->outage = 1;
        w->retry_at_ms = clock_now_ms() + w->backoff_ms;
        w->backoff_ms = w->backoff_ms * 2 > DBPOOL_BACKOFF_MAX_MS ? DBPOOL_BACKOFF_MAX_MS : w->backoff_ms * 2;
    }
    pthread_mutex_unlock(&w->pool->mutex);
    if (db == NULL && !was_out)
        log_warn("dbpool: cannot connect to the database (retrying with backoff up to %d ms): %s",
                 DBPOOL_BACKOFF_MAX_MS, error ? error : "unknown error");
    free(error);
}

/* A connection that died under a job (a database restart): start over at once.
 * Called with the mutex held, so dbpool_cancel never sees a closed store. */
static void dbpool_disconnect(dbpool_worker_t *w)
{
    store_close(w->db);
    w->db = NULL;
    w->retry_at_ms = 0;
    w->pool->reconnects++;
    if (!w->pool->outage)
        log_warn("dbpool: worker %d lost its database connection; reconnecting", w->index);
    w->pool->outage = 1;
    if (--w->pool->connected == 0) /* the queued jobs are the others' now (dbpool_may_take) */
        pthread_cond_broadcast(&w->pool->cond_unconnected);
}

/* Whether w takes a job now. A worker without a connection fails the job it
 * takes (500, error 50001), which is right only while no worker has one: a
 * database that refuses some connections (max_connections, a connection
 * limit) still answers the others, and the job waits for one of them. */
static int dbpool_may_take(const dbpool_worker_t *w)
{
    const dbpool_t *pool = w->pool;
    return w->db != NULL || pool->connected == 0 || pool->conninfo == NULL || pool->stopping ||
           pool->cancelling;
}

/* ---- The queue ------------------------------------------------------------- */

static dbpool_job_t *dbpool_pop(dbpool_t *pool)
{
    dbpool_job_t *job = pool->head;
    if (job != NULL) {
        pool->head = job->next;
        if (pool->head == NULL)
            pool->tail = NULL;
        job->next = NULL;
        pool->queued--;
        pool->jobs++;
    }
    return job;
}

/* Sleeps until a job, stop, or (while disconnected) the next connection attempt. */
static void dbpool_wait(dbpool_worker_t *w)
{
    dbpool_t *pool = w->pool;
    if (w->db != NULL || pool->conninfo == NULL) {
        pthread_cond_wait(&pool->cond, &pool->mutex);
        return;
    }
    uint64_t now = clock_now_ms();
    if (now >= w->retry_at_ms)
        return;
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    uint64_t ns = (uint64_t)until.tv_nsec + (w->retry_at_ms - now) * 1000000;
    until.tv_sec += (time_t)(ns / 1000000000);
    until.tv_nsec = (long)(ns % 1000000000);
    pthread_cond_timedwait(&pool->cond_unconnected, &pool->mutex, &until);
}

static void *dbpool_worker_main(void *arg)
{
    dbpool_worker_t *w = arg;
    dbpool_t *pool = w->pool;

    pthread_mutex_lock(&pool->mutex);
    for (;;) {
        if (w->db == NULL && pool->conninfo != NULL && !pool->stopping && clock_now_ms() >= w->retry_at_ms) {
            pthread_mutex_unlock(&pool->mutex);
            dbpool_connect(w);
            pthread_mutex_lock(&pool->mutex);
            continue;
        }
        dbpool_job_t *job = dbpool_may_take(w) ? dbpool_pop(pool) : NULL;
        if (job != NULL) {
            store_t *db = pool->cancelling ? NULL : w->db;
            w->busy = 1;
            pthread_mutex_unlock(&pool->mutex);
            job->run(job, db);
            pthread_mutex_lock(&pool->mutex);
            w->busy = 0;
            /* A connection the store reset under the job is a reconnect too:
             * after a database restart that is how most workers reconnect. */
            if (w->db != NULL && store_is_broken(w->db)) {
                dbpool_disconnect(w);
            } else if (w->db != NULL) {
                unsigned resets = store_take_resets(w->db);
                pool->reconnects += resets;
                if (resets > 0)
                    dbpool_outage_over(pool);
            }
            continue;
        }
        if (pool->stopping)
            break;
        dbpool_wait(w);
    }
    /* Off the worker under the mutex: dbpool_stats reads a worker's db. */
    store_t *db = w->db;
    w->db = NULL;
    pool->connected -= db != NULL;
    pthread_mutex_unlock(&pool->mutex);

    if (db != NULL)
        store_close(db);
    return NULL;
}

/* ---- Lifecycle -------------------------------------------------------------- */

static int dbpool_cond_init(pthread_cond_t *cond)
{
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC); /* timed waits immune to clock steps */
    int rc = pthread_cond_init(cond, &attr);
    pthread_condattr_destroy(&attr);
    return rc;
}

static int dbpool_spawn(dbpool_t *pool, int nthreads, char **error)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, DBPOOL_STACK_BYTES);
    for (int i = 0; i < nthreads; i++) {
        dbpool_worker_t *w = &pool->workers[i];
        w->pool = pool;
        w->index = i;
        w->backoff_ms = DBPOOL_BACKOFF_MIN_MS;
        int rc = pthread_create(&w->thread, &attr, dbpool_worker_main, w);
        if (rc != 0) {
            *error = xasprintf("cannot start database worker: %s", strerror(rc));
            pthread_attr_destroy(&attr);
            return -1;
        }
        pool->nworkers++;
    }
    pthread_attr_destroy(&attr);
    return 0;
}

dbpool_t *dbpool_new(const char *conninfo, int nthreads, char **error)
{
    dbpool_t *pool = xcalloc(1, sizeof *pool);
    pool->conninfo = conninfo != NULL ? xstrdup(conninfo) : NULL;
    pool->workers = xcalloc((size_t)nthreads, sizeof *pool->workers);
    pthread_mutex_init(&pool->mutex, NULL);
    dbpool_cond_init(&pool->cond);
    dbpool_cond_init(&pool->cond_unconnected);
    if (dbpool_spawn(pool, nthreads, error) != 0) {
        dbpool_free(pool);
        return NULL;
    }
    return pool;
}

void dbpool_submit(dbpool_t *pool, dbpool_job_t *job)
{
    job->next = NULL;
    pthread_mutex_lock(&pool->mutex);
    if (pool->tail)
        pool->tail->next = job;
    else
        pool->head = job;
    pool->tail = job;
    pool->queued++;
    /* The workers that may take it (dbpool_may_take): those connected, or,
     * while none is, those without a connection. */
    pthread_cond_t *takers =
        pool->connected > 0 || pool->conninfo == NULL ? &pool->cond : &pool->cond_unconnected;
    pthread_mutex_unlock(&pool->mutex);
    /* After the unlock: a worker woken under it would only block on it again.
     * The condition variables live as long as the pool. */
    pthread_cond_signal(takers);
}

void dbpool_cancel(dbpool_t *pool)
{
    pthread_mutex_lock(&pool->mutex);
    pool->cancelling = 1;
    for (int i = 0; i < pool->nworkers; i++)
        if (pool->workers[i].busy && pool->workers[i].db != NULL)
            store_cancel(pool->workers[i].db);
    pthread_cond_broadcast(&pool->cond);
    pthread_cond_broadcast(&pool->cond_unconnected);
    pthread_mutex_unlock(&pool->mutex);
}

void dbpool_stats(dbpool_t *pool, dbpool_stats_t *out)
{
    memset(out, 0, sizeof *out);
    pthread_mutex_lock(&pool->mutex);
    out->workers = pool->nworkers;
    out->connected = pool->connected;
    for (int i = 0; i < pool->nworkers; i++) {
        dbpool_worker_t *w = &pool->workers[i];
        out->busy += w->busy;
        /* A reset under a job that is still running (its reply may have left
         * already, before the worker takes it): a scrape after the reply sees it. */
        if (w->db != NULL)
            pool->reconnects += store_take_resets(w->db);
    }
    out->waiting = pool->queued;
    out->jobs = pool->jobs;
    out->connect_errors = pool->connect_errors;
    out->reconnects = pool->reconnects;
    pthread_mutex_unlock(&pool->mutex);
}

void dbpool_free(dbpool_t *pool)
{
    if (pool == NULL)
        return;
    pthread_mutex_lock(&pool->mutex);
    pool->stopping = 1;
    pthread_cond_broadcast(&pool->cond);
    pthread_cond_broadcast(&pool->cond_unconnected);
    pthread_mutex_unlock(&pool->mutex);
    for (int i = 0; i < pool->nworkers; i++)
        pthread_join(pool->workers[i].thread, NULL);

    /* Without workers nobody else will: run what is left, with no connection. */
    dbpool_job_t *job;
    while ((job = dbpool_pop(pool)) != NULL)
        job->run(job, NULL);

    pthread_cond_destroy(&pool->cond);
    pthread_cond_destroy(&pool->cond_unconnected);
    pthread_mutex_destroy(&pool->mutex);
    free(pool->workers);
    free(pool->conninfo);
    free(pool);
}
