/*
 * feed: the change feed between nodes (docs/architecture.md, "Several
 * nodes"). A thread with its own connection polls the changes table and
 * reloads the scopes other nodes changed, and prunes what is older than
 * changes.retention.seconds; a node that finds itself behind what was
 * pruned reloads every scope instead of replaying.
 */
#include "registry/internal.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/log.h"

/* Changes read per poll. */
#define FEED_BATCH 1000
/* Own changes remembered at most (registry_feed_own); beyond it (a feed that
 * cannot keep up or reach the database) they are simply reloaded. */
#define FEED_OWN_MAX 65536
/* Numbers moved past unread, looked for this long, at most this many (the
 * oldest go first): "Holes" below. */
#define FEED_HOLE_KEEP_MS (10 * 60 * 1000)
#define FEED_HOLES_MAX    1024

typedef struct feed_hole {
    int64_t seq;
    int64_t until_ms; /* looked for until then (clock_now_ms) */
} feed_hole_t;

/* The feed thread's position in the log. */
typedef struct feed_state {
    int64_t seq;       /* every change up to it applied, or waited out (a hole) */
    int64_t gap_since; /* when the feed began waiting at a gap, or 0 */
    size_t nholes;
    feed_hole_t holes[FEED_HOLES_MAX]; /* ascending */
} feed_state_t;

/* ---- Own changes: written and published here, not reloaded again ---------- */

void registry_feed_own(registry_t *reg, int64_t seq)
{
    if (seq <= 0 || !reg->feed_started || reg->opts.feed_interval_ms <= 0)
        return;
    pthread_mutex_lock(&reg->own_lock);
    /* At or below feed_applied the feed is past it (or reloading it now). */
    if (seq > __atomic_load_n(&reg->feed_applied, __ATOMIC_RELAXED) && reg->own_n < FEED_OWN_MAX) {
        if (reg->own_n == reg->own_cap) {
            reg->own_cap = reg->own_cap ? 2 * reg->own_cap : 256;
            reg->own_seqs = xrealloc(reg->own_seqs, reg->own_cap * sizeof *reg->own_seqs);
        }
        reg->own_seqs[reg->own_n++] = seq;
    }
    pthread_mutex_unlock(&reg->own_lock);
}

static int own_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* skip[i] = 1 for each seqs[i] this node wrote and published. Entries stay
 * until the feed has settled past them (own_forget), so a batch read again
 * after a gap skips them again. */
static void own_mark(registry_t *reg, const int64_t *seqs, int n, char *skip)
{
    pthread_mutex_lock(&reg->own_lock);
    if (reg->own_n) { /* else own_seqs may be NULL, which qsort and bsearch may not get */
        qsort(reg->own_seqs, reg->own_n, sizeof *reg->own_seqs, own_cmp);
        for (int i = 0; i < n; i++)
            skip[i] = bsearch(&seqs[i], reg->own_seqs, reg->own_n, sizeof *reg->own_seqs, own_cmp) != NULL;
    }
    pthread_mutex_unlock(&reg->own_lock);
}

/* Drops the entries at or below settled: the feed never reads them again. */
static void own_forget(registry_t *reg, int64_t settled)
{
    pthread_mutex_lock(&reg->own_lock);
    size_t k = 0;
    for (size_t i = 0; i < reg->own_n; i++)
        if (reg->own_seqs[i] > settled)
            reg->own_seqs[k++] = reg->own_seqs[i];
    reg->own_n = k;
    pthread_mutex_unlock(&reg->own_lock);
}

/* What GET /metrics shows of the feed (registry_stats): applied up to seq,
 * behind sequence numbers short of the log's end, as of now. */
static void feed_note(registry_t *reg, int64_t seq, int64_t behind)
{
    own_forget(reg, seq);
    int64_t now = reg_wall_ms();
    __atomic_store_n(&reg->feed_applied, seq, __ATOMIC_RELAXED);
    __atomic_store_n(&reg->feed_behind, behind, __ATOMIC_RELAXED);
    __atomic_store_n(&reg->feed_poll_ms, now, __ATOMIC_RELAXED);
    if (behind == 0)
        __atomic_store_n(&reg->feed_current_ms, now, __ATOMIC_RELAXED);
    __atomic_add_fetch(&reg->feed_polls, 1, __ATOMIC_RELAXED);
}

static int feed_collect_name(const reg_subject_t *subj, void *arg)
{
    strlist_push(arg, subj->name);
    return 0;
}

/* Adds the subjects only this node still knows to scopes, so each scope is reloaded once. */
static void feed_add_index_scopes(registry_t *reg, strlist_t *scopes)
{
    hmap_t in_db = {0};
    for (size_t i = 0; i < scopes->n; i++)
        hmap_puts(&in_db, scopes->items[i], NULL);
    strlist_t known = {0};
    index_each_subject(reg->idx, feed_collect_name, &known);
    for (size_t i = 0; i < known.n; i++)
        if (!hmap_contains(&in_db, known.items[i], strlen(known.items[i])))
            strlist_push(scopes, known.items[i]);
    strlist_clear(&known);
    hmap_clear(&in_db);
}

/*
 * Every scope again, one by one through registry_reload_scope (each under its
 * reload lock, so no older state overwrites a newer local write), plus the
 * scopes only this node still has (gone from the database). *seq moves to
 * where the log was settled before the reload began (store_settled_change):
 * what lands during it, or was drawn before it and commits after, is
 * replayed, never missed.
 */
static int feed_reload_all(registry_t *reg, store_t *db, int64_t *seq)
{
    reg_error_t err;
    int64_t from;
    strlist_t scopes = {0};
    if (store_settled_change(db, REG_FEED_GAP_WAIT_MS, &from) != STORE_OK ||
        store_scopes(db, &scopes) != STORE_OK) {
        strlist_clear(&scopes);
        return -1;
    }
    feed_add_index_scopes(reg, &scopes);
    int rc = registry_reload_scope(reg, db, "", &err) == REG_OK ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < scopes.n; i++)
        rc = registry_reload_scope(reg, db, scopes.items[i], &err) == REG_OK ? 0 : -1;
    strlist_clear(&scopes);
    if (rc == 0) {
        log_warn("feed: this node was behind the pruned change log; reloaded every subject");
        *seq = from;
        feed_note(reg, from, 0);
    }
    return rc;
}

/*
 * Everything from db, in one step replacing the index; then the timeline it
 * is from (after the index: a write let through by registry_check_primary, or
 * fenced to it, sees the new state). *from is where a feed goes on from:
 * read before the load (store_settled_change).
 */
static int feed_replace_all(registry_t *reg, store_t *db, int64_t timeline, int64_t *from)
{
    store_snapshot_t snap;
    if (store_settled_change(db, REG_FEED_GAP_WAIT_MS, from) != STORE_OK ||
        store_load_all(db, &snap) != STORE_OK)
        return -1;
    index_replace_snapshot(reg->idx, &snap);
    __atomic_store_n(&reg->timeline, timeline, __ATOMIC_RELEASE);
    return 0;
}

/*
 * The database this connection reaches may not be the one the index was read
 * from: a failover promoted a standby (a new timeline), or the change log ends
 * before *seq (writes this node saw were lost, or another database). Then the
 * feed cannot prove that replaying from *seq gives the database's state: what
 * this node holds may name ids the new primary never stored, or will hand out
 * again for other content. Everything is loaded again and replaces the index
 * in one step; *seq moves to where the log was settled before the load.
 * Returns 1 when continuity holds, 0 after a reload, -1 on a database error.
 */
static int feed_check_continuity(registry_t *reg, store_t *db, int64_t *seq)
{
    int64_t timeline, end, from;
    if (store_timeline(db, &timeline) != STORE_OK || store_last_change(db, &end) != STORE_OK)
        return -1;
    int64_t loaded = __atomic_load_n(&reg->timeline, __ATOMIC_ACQUIRE);
    if (timeline == loaded && end >= *seq)
        return 1;
    if (feed_replace_all(reg, db, timeline, &from) != 0)
        return -1;
    log_warn(
        "feed: the database changed under this node (timeline %lld of database %llx -> timeline %lld of "
        "database %llx, change log at %lld, this node at %lld: a failover, or another database); reloaded "
        "everything from the new primary",
        (long long)STORE_TIMELINE_OF(loaded), (unsigned long long)STORE_DATABASE_OF(loaded),
        (long long)STORE_TIMELINE_OF(timeline), (unsigned long long)STORE_DATABASE_OF(timeline),
        (long long)end, (long long)*seq);
    /* The sequence numbers this node wrote may have been lost with the old
     * primary, and the new one hands them out again to other nodes' changes:
     * none of them may be skipped as this node's own (registry_feed_own). */
    own_forget(reg, INT64_MAX);
    *seq = from;
    return 0;
}

/* ---- Failover noticed by a write ------------------------------------------ */

int registry_failover_reload(registry_t *reg, store_t *db)
{
    if (reg->feed_started && reg->opts.feed_interval_ms > 0) {
        /* The feed reloads (and resets its own state with it): now, not at its next poll. */
        pthread_mutex_lock(&reg->feed_lock);
        pthread_cond_signal(&reg->feed_wake);
        pthread_mutex_unlock(&reg->feed_lock);
        return 0;
    }
    /* No polling feed (feed.interval.ms = 0): nothing else would ever reload,
     * so the worker that found the new timeline does, one at a time. */
    pthread_mutex_lock(&reg->failover_lock);
    int64_t timeline, loaded = __atomic_load_n(&reg->timeline, __ATOMIC_ACQUIRE);
    int rc = store_timeline(db, &timeline) == STORE_OK && timeline > 0 ? 1 : -1;
    int64_t from; /* no feed goes on from it */
    if (rc == 1 && timeline != loaded) {
        rc = feed_replace_all(reg, db, timeline, &from) == 0 ? 1 : -1;
        if (rc == 1)
            log_warn("registry: the database failed over (timeline %lld of database %llx -> timeline %lld of "
                     "database %llx: found by a write); reloaded everything from the new primary",
                     (long long)STORE_TIMELINE_OF(loaded), (unsigned long long)STORE_DATABASE_OF(loaded),
                     (long long)STORE_TIMELINE_OF(timeline), (unsigned long long)STORE_DATABASE_OF(timeline));
    }
    pthread_mutex_unlock(&reg->failover_lock);
    return rc;
}

/* ---- Where loads read ---------------------------------------------------- */

store_t *registry_read_source(registry_t *reg, store_t *primary, store_t **replica)
{
    if (!reg->read_conninfo)
        return primary;
    char *error = NULL;
    if (!*replica && !(*replica = store_open(reg->read_conninfo, &error))) {
        if (!reg->replica_behind)
            log_warn("feed: cannot reach the read replica (reading the primary): %s", error ? error : "?");
        reg->replica_behind = 1;
        free(error);
        return primary;
    }
    int64_t want, have = -1, want_tl, have_tl = -1;
    if (store_wal_position(primary, &want_tl, &want) != STORE_OK)
        return primary; /* the caller's next query on primary says why */
    if (store_wal_position(*replica, &have_tl, &have) != STORE_OK) {
        store_close(*replica);
        *replica = NULL;
    }
    /* Positions compare only on one timeline: a replica still on the old one
     * after a failover (not following the new primary, or not yet past its
     * first restartpoint on the new one) may be "past" it with the writes the
     * new primary lost, which would come back into memory under ids the new
     * primary hands out again. And the primary's timeline is the one this
     * node's memory is from, or the load is the failover reload's, which reads
     * the primary itself. */
    int64_t loaded = __atomic_load_n(&reg->timeline, __ATOMIC_ACQUIRE);
    int behind = have_tl != want_tl || want_tl != loaded ? 2 : have < want;
    if (behind != reg->replica_behind && behind == 2)
        log_info("feed: the read replica is not on the primary's timeline (replica %lld of database %llx, "
                 "primary %lld of %llx, this node's memory %lld of %llx): reading the primary",
                 (long long)STORE_TIMELINE_OF(have_tl), (unsigned long long)STORE_DATABASE_OF(have_tl),
                 (long long)STORE_TIMELINE_OF(want_tl), (unsigned long long)STORE_DATABASE_OF(want_tl),
                 (long long)STORE_TIMELINE_OF(loaded), (unsigned long long)STORE_DATABASE_OF(loaded));
    else if (behind != reg->replica_behind)
        log_info(
            behind
                ? "feed: the read replica is behind the primary (replayed %lld < %lld): reading the primary"
                : "feed: the read replica is current (replayed %lld >= %lld): loads read it",
            (long long)have, (long long)want);
    reg->replica_behind = behind;
    return behind ? primary : *replica;
}

/* ---- Applying changes ------------------------------------------------------- */

/*
 * The scopes of the changes (seqs[i], scopes->items[i]) other nodes made,
 * each reloaded once (a reload reads its state as of now, after every change
 * read before it), from the read replica when it is current. Returns how many
 * changes, in order, are applied: all but from the first reload that failed.
 */
static int feed_apply(registry_t *reg, store_t *db, store_t **replica, const int64_t *seqs,
                      const strlist_t *scopes)
{
    int n = (int)scopes->n, i;
    if (n == 0)
        return 0;
    /* After reading the changes: a replica past the primary's position now has them. */
    store_t *src = registry_read_source(reg, db, replica);
    char *own = xcalloc((size_t)n, 1);
    own_mark(reg, seqs, n, own);
    hmap_t reloaded = {0};
    reg_error_t err;
    for (i = 0; i < n; i++) {
        const char *scope = scopes->items[i];
        if (own[i] || hmap_contains(&reloaded, scope, strlen(scope)))
            continue;
        if (registry_reload_scope(reg, src, scope, &err) != REG_OK) {
            if (src != db && store_is_broken(src)) {
                store_close(src);
                *replica = NULL;
            }
            break;
        }
        hmap_puts(&reloaded, scope, NULL);
    }
    hmap_clear(&reloaded);
    free(own);
    return i;
}

/* ---- Holes ------------------------------------------------------------------ */

/*
 * The feed moves past a gap it waited REG_FEED_GAP_WAIT_MS for, taking it to
 * be a rolled-back transaction. One that was only slow lands later: a commit
 * waiting for a synchronous standby, say, that database.timeout.ms cancels is
 * committed all the same. The numbers moved past are kept as holes and looked
 * for at each poll for FEED_HOLE_KEEP_MS (while the log still has them).
 */
static void hole_add(feed_state_t *st, int64_t seq, int64_t until_ms)
{
    if (st->nholes == FEED_HOLES_MAX) {
        memmove(st->holes, st->holes + 1, (FEED_HOLES_MAX - 1) * sizeof *st->holes);
        st->nholes--;
    }
    st->holes[st->nholes++] = (feed_hole_t){seq, until_ms};
}

/* The numbers after st->seq that the done changes seqs[] skip. */
static void holes_add_skipped(feed_state_t *st, const int64_t *seqs, int done)
{
    int64_t until = (int64_t)clock_now_ms() + FEED_HOLE_KEEP_MS, prev = st->seq;
    for (int i = 0; i < done; prev = seqs[i++]) {
        int64_t from = prev + 1, to = seqs[i] - 1;
        if (to - from >= FEED_HOLES_MAX)
            from = to - FEED_HOLES_MAX + 1;
        for (int64_t x = from; x <= to; x++)
            hole_add(st, x, until);
    }
}

/* Drops the holes expired, pruned (at or below pruned), or found (in seqs[0..n)). */
static void holes_drop(feed_state_t *st, int64_t pruned, const int64_t *seqs, int n)
{
    int64_t now = (int64_t)clock_now_ms();
    size_t k = 0;
    for (size_t i = 0; i < st->nholes; i++) {
        feed_hole_t h = st->holes[i];
        int found = 0;
        for (int j = 0; j < n && !found; j++)
            found = seqs[j] == h.seq;
        if (!found && h.seq > pruned && h.until_ms >= now)
            st->holes[k++] = h;
    }
    st->nholes = k;
}

/* Applies the holes that are in the log now. */
static int feed_fill_holes(registry_t *reg, store_t *db, store_t **replica, feed_state_t *st, int64_t pruned)
{
    holes_drop(st, pruned, NULL, 0);
    if (st->nholes == 0)
        return 0;
    int64_t wanted[FEED_HOLES_MAX], *seqs = NULL;
    for (size_t i = 0; i < st->nholes; i++)
        wanted[i] = st->holes[i].seq;
    strlist_t scopes = {0};
    if (store_changes_among(db, wanted, st->nholes, &seqs, &scopes) != STORE_OK)
        return -1;
    int done = feed_apply(reg, db, replica, seqs, &scopes);
    if (done > 0)
        log_info("feed: %d change(s) committed after the feed had waited %d ms for them; applied now", done,
                 REG_FEED_GAP_WAIT_MS);
    holes_drop(st, pruned, seqs, done);
    free(seqs);
    strlist_clear(&scopes);
    return 0;
}

/* ---- Polling ---------------------------------------------------------------- */

/* Reloads the scopes changed after st->seq; advances it past what is settled.
 * Returns -1 when the database could not be read (the caller reconnects). */
static int feed_poll(registry_t *reg, store_t *db, store_t **replica, feed_state_t *st)
{
    int64_t pruned;
    int continuous = feed_check_continuity(reg, db, &st->seq);
    if (continuous == 0)
        st->nholes = 0; /* the old primary's numbers: the new one hands them out again */
    if (continuous <= 0)
        return continuous;
    if (store_changes_pruned_upto(db, &pruned) != STORE_OK)
        return -1;
    if (pruned > st->seq)
        return feed_reload_all(reg, db, &st->seq);
    int64_t *seqs = NULL;
    strlist_t scopes = {0};
    if (store_changes_since(db, st->seq, FEED_BATCH, &seqs, &scopes) != STORE_OK)
        return -1;
    int n = (int)scopes.n, done = feed_apply(reg, db, replica, seqs, &scopes);
    int64_t settled = st->seq;
    int gap = 0;
    for (int i = 0; i < done; i++) {
        if (!gap && seqs[i] == settled + 1)
            settled = seqs[i];
        else
            gap = 1;
    }
    if (gap && !st->gap_since)
        st->gap_since = (int64_t)clock_now_ms();
    if (gap && (int64_t)clock_now_ms() - st->gap_since > REG_FEED_GAP_WAIT_MS) {
        holes_add_skipped(st, seqs, done);
        settled = seqs[done - 1];
        gap = 0;
    }
    if (!gap)
        st->gap_since = 0;
    st->seq = settled;
    /* How far the log goes beyond what is applied: its last row, read here
     * unless the batch was cut at the limit (then one more query asks). */
    int64_t head = n > 0 ? seqs[n - 1] : settled;
    if (n == FEED_BATCH && store_last_change(db, &head) != STORE_OK)
        head = seqs[n - 1];
    feed_note(reg, settled, head > settled ? head - settled : 0);
    free(seqs);
    strlist_clear(&scopes);
    return feed_fill_holes(reg, db, replica, st, pruned);
}

/* How often this node prunes the log: often enough for short retentions. */
static int64_t feed_prune_every_ms(const registry_t *reg)
{
    int64_t half = (int64_t)reg->opts.changes_retention_s * 500;
    return half < 1000 ? 1000 : half > 60000 ? 60000 : half;
}

static store_t *feed_connect(registry_t *reg, int *failing)
{
    char *error = NULL;
    store_t *db = store_open(reg->conninfo, &error);
    if (!db && !*failing)
        log_warn("feed: cannot reach the database (retrying): %s", error ? error : "unknown error");
    if (db && *failing)
        log_info("feed: connected to the database again");
    *failing = db == NULL;
    free(error);
    return db;
}

static void *feed_main(void *arg)
{
    registry_t *reg = arg;
    store_t *db = NULL, *replica = NULL;
    feed_state_t *st = xcalloc(1, sizeof *st);
    st->seq = reg->feed_start;
    int64_t next_prune = 0;
    int failing = 0;
    while (!__atomic_load_n(&reg->feed_stop, __ATOMIC_ACQUIRE)) {
        if (!db)
            db = feed_connect(reg, &failing);
        __atomic_store_n(&reg->feed_connected, db != NULL, __ATOMIC_RELAXED);
        int rc = 0;
        if (db && reg->opts.feed_interval_ms > 0)
            rc = feed_poll(reg, db, &replica, st);
        if (db && rc == 0 && reg->opts.changes_retention_s > 0 && (int64_t)clock_now_ms() >= next_prune) {
            rc = store_changes_prune(db, reg->opts.changes_retention_s) == STORE_OK ? 0 : -1;
            next_prune = (int64_t)clock_now_ms() + feed_prune_every_ms(reg);
        }
        if (db && rc != 0) {
            log_warn("feed: %s", store_error(db));
            store_close(db);
            db = NULL;
            __atomic_store_n(&reg->feed_connected, 0, __ATOMIC_RELAXED);
        }
        pthread_mutex_lock(&reg->feed_lock);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        int64_t wait_ms =
            reg->opts.feed_interval_ms > 0 ? reg->opts.feed_interval_ms : feed_prune_every_ms(reg);
        int64_t ns = until.tv_nsec + wait_ms * 1000000;
        until.tv_sec += ns / 1000000000;
        until.tv_nsec = ns % 1000000000;
        if (!__atomic_load_n(&reg->feed_stop, __ATOMIC_ACQUIRE))
            pthread_cond_timedwait(&reg->feed_wake, &reg->feed_lock, &until);
        pthread_mutex_unlock(&reg->feed_lock);
    }
    store_close(db);
    store_close(replica);
    free(st);
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
