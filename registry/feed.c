/*
 * feed: the change feed between nodes (docs/architecture.md, "Several
 * nodes"). A thread with its own connection polls the changes table and
 * reloads the scopes other nodes changed.
 */
#include "registry/internal.h"

#include <stdlib.h>
#include <time.h>

/* A sequence number can commit after a higher one; a gap is waited for this
 * long before it is taken to be a rolled-back transaction. */
#define FEED_GAP_WAIT_MS 5000

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reloads the scopes changed after *seq; advances *seq past what is settled.
 * Returns -1 when the database could not be read (the caller reconnects). */
static int feed_poll(registry_t *reg, store_t *db, int64_t *seq, int64_t *gap_since)
{
    reg_error_t err;
    int64_t *seqs = NULL;
    strlist_t scopes = {0};
    if (store_changes_since(db, *seq, 1000, &seqs, &scopes) != STORE_OK)
        return -1;
    int n = (int)scopes.n;
    int64_t settled = *seq;
    int gap = 0;
    for (int i = 0; i < n; i++) {
        if (registry_reload_scope(reg, db, scopes.items[i], &err) != REG_OK)
            break;
        if (!gap && seqs[i] == settled + 1)
            settled = seqs[i];
        else
            gap = 1;
    }
    if (gap && !*gap_since)
        *gap_since = now_ms();
    if (gap && now_ms() - *gap_since > FEED_GAP_WAIT_MS && n > 0) {
        settled = seqs[n - 1];
        gap = 0;
    }
    if (!gap)
        *gap_since = 0;
    *seq = settled;
    free(seqs);
    strlist_clear(&scopes);
    return 0;
}

static void *feed_main(void *arg)
{
    registry_t *reg = arg;
    store_t *db = NULL;
    int64_t seq = reg->feed_start, gap_since = 0;
    while (!__atomic_load_n(&reg->feed_stop, __ATOMIC_ACQUIRE)) {
        if (!db)
            db = store_open(reg->conninfo, NULL);
        if (db && feed_poll(reg, db, &seq, &gap_since) != 0) {
            store_close(db);
            db = NULL;
        }
        pthread_mutex_lock(&reg->feed_lock);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        int64_t ns = until.tv_nsec + (int64_t)reg->opts.feed_interval_ms * 1000000;
        until.tv_sec += ns / 1000000000;
        until.tv_nsec = ns % 1000000000;
        if (!__atomic_load_n(&reg->feed_stop, __ATOMIC_ACQUIRE))
            pthread_cond_timedwait(&reg->feed_wake, &reg->feed_lock, &until);
        pthread_mutex_unlock(&reg->feed_lock);
    }
    store_close(db);
    return NULL;
}

void registry_feed_start(registry_t *reg)
{
    if (pthread_create(&reg->feed_thread, NULL, feed_main, reg) == 0)
        reg->feed_started = 1;
}

void registry_feed_stop(registry_t *reg)
{
    if (!reg->feed_started)
        return;
    pthread_mutex_lock(&reg->feed_lock);
    __atomic_store_n(&reg->feed_stop, 1, __ATOMIC_RELEASE);
    pthread_cond_signal(&reg->feed_wake);
    pthread_mutex_unlock(&reg->feed_lock);
    pthread_join(reg->feed_thread, NULL);
    reg->feed_started = 0;
}
