/*
 * group: group commit of one-statement registrations (registry/internal.h,
 * section 9; docs/architecture.md, "The write path").
 *
 * A queue and one writer at a time, as database log writers do: a worker
 * queues its appends with what to do once they are written (done) and goes
 * on; when no group is being written it becomes the leader and writes groups
 * until the queue is empty: it takes what is queued, writes it in one
 * statement and one commit, and runs every item's done on its own thread with
 * its own connection. What arrives while a group is being written forms the
 * next group, so under load many registrations share one statement and one
 * commit, and alone a registration waits for nobody.
 *
 * Why the queued worker does not wait for its group (docs/performance.md,
 * "New registrations: nobody waits in the group"): with sixteen clients the
 * whole group waits for its write, and each waiting worker was one more
 * thread to wake for each registration, on whichever CPU, while the leader,
 * already awake, ends one (publish, answer) in about 20 us.
 * A caller that needs the result on its own thread writes its appends alone,
 * on its own connection (registry_append_alone): the leader writes until the
 * queue is empty, and under a steady load that could be for as long as the
 * load lasts.
 *
 * A leader may wait a little first (GROUP_FILL_WAIT_US), for as many items as
 * the last group had plus those that waited when it was done: the clients that
 * were active then. Without that, 16 clients settle into two groups of 8 taking
 * turns (one is written while the other's clients are answered and send again),
 * and every group pays its statement and its commit for half of them. The
 * target follows the load: a wait that times out makes a smaller group, and so
 * a smaller next target; one client alone (a group of one, nobody waiting
 * after it) never waits.
 *
 * A group of two or more appends is written on the group's own connection
 * (docs/performance.md, "New registrations: one backend for every group"):
 * each of sixteen backends in turn running a statement it had not run for
 * fifteen groups cost 2.6 - 4.4 ms of the database's CPU for a group of 16,
 * where one backend running every group spends 1.5 ms. A lone append, and the
 * appends of a failed group retried one by one, go on the leader's connection.
 */
#include "registry/internal.h"

#include <assert.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/log.h"

/* Bounds one statement's size and one commit's latency. */
#define GROUP_MAX_ITEMS 64
/* How long a leader waits for the group to fill: about one client round trip
 * (answer, next request, its parse) on a loaded machine. */
#define GROUP_FILL_WAIT_US 2000
/* After a failed attempt to open the group's connection, groups are written
 * on their leaders' connections this long before the next attempt. */
#define GROUP_CONN_RETRY_MS 1000

/* One caller's appends (registry_group_submit's n), written in one group.
 * Owned by the queue while queued, then by the leader that took it, which
 * frees it after its done. */
typedef struct group_item {
    size_t n;
    group_done_fn done;
    void *arg;
    struct group_item *next;
    store_append_t *as[]; /* n */
} group_item_t;

void registry_group_init(registry_t *reg)
{
    pthread_mutex_init(&reg->group_lock, NULL);
    pthread_mutex_init(&reg->group_db_lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&reg->group_fill, &attr);
    pthread_condattr_destroy(&attr);
}

void registry_group_destroy(registry_t *reg)
{
    store_close(reg->group_db);
    pthread_mutex_destroy(&reg->group_db_lock);
    pthread_cond_destroy(&reg->group_fill);
    pthread_mutex_destroy(&reg->group_lock);
}

/* ---- The group's connection ------------------------------------------------ */

/* The group's connection, opened when there is none; NULL when it cannot be
 * opened (or the registry has no conninfo): the leader then writes on its own,
 * as before there was one. Leader only. */
static store_t *group_conn(registry_t *reg)
{
    if (reg->group_db || !reg->conninfo[0] || clock_now_ms() < reg->group_db_retry_ms)
        return reg->group_db;
    char *error = NULL;
    store_t *db = store_open(reg->conninfo, &error);
    if (!db) {
        if (!reg->group_db_down)
            log_warn("group: cannot open the connection groups are written on (their leaders' "
                     "connections write them meanwhile; retrying every %d ms): %s",
                     GROUP_CONN_RETRY_MS, error ? error : "unknown error");
        free(error);
        reg->group_db_down = 1;
        reg->group_db_retry_ms = clock_now_ms() + GROUP_CONN_RETRY_MS;
        return NULL;
    }
    store_limit_statements(db); /* the group's clients wait on it */
    if (reg->group_db_down)
        log_info("group: the connection groups are written on is open again");
    reg->group_db_down = 0;
    pthread_mutex_lock(&reg->group_db_lock);
    reg->group_db = db;
    pthread_mutex_unlock(&reg->group_db_lock);
    return db;
}

/* After a group written on db, the group's connection: its resets are
 * counted, and a broken one is closed (the next group opens another). */
static void group_conn_after(registry_t *reg, store_t *db)
{
    int broken = store_is_broken(db);
    pthread_mutex_lock(&reg->group_db_lock);
    reg->group_db_reconnects += store_take_resets(db) + (unsigned)broken;
    if (broken)
        reg->group_db = NULL;
    pthread_mutex_unlock(&reg->group_db_lock);
    if (broken)
        store_close(db);
}

void registry_cancel_groups(registry_t *reg)
{
    pthread_mutex_lock(&reg->group_db_lock);
    if (reg->group_db)
        store_cancel(reg->group_db);
    pthread_mutex_unlock(&reg->group_db_lock);
}

void registry_group_conn_stats(registry_t *reg, int *connected, uint64_t *reconnects)
{
    pthread_mutex_lock(&reg->group_db_lock);
    /* A reset under a group still being written counts now (store_take_resets
     * is atomic: it counts once, whoever takes it). */
    if (reg->group_db)
        reg->group_db_reconnects += store_take_resets(reg->group_db);
    *connected = reg->group_db != NULL;
    *reconnects = reg->group_db_reconnects;
    pthread_mutex_unlock(&reg->group_db_lock);
}

/* ---- Groups -------------------------------------------------------------------- */

static size_t group_target_locked(const registry_t *reg)
{
    return reg->group_active < GROUP_MAX_ITEMS ? reg->group_active : GROUP_MAX_ITEMS;
}

/* Waits (bounded) until the queue holds as many items as were active at the
 * last group's end (lock held). */
static void group_fill_locked(registry_t *reg)
{
    size_t target = group_target_locked(reg);
    if (reg->group_queued >= target)
        return;
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    long ns = until.tv_nsec + GROUP_FILL_WAIT_US * 1000L;
    until.tv_sec += ns / 1000000000L;
    until.tv_nsec = ns % 1000000000L;
    reg->group_filling = 1;
    while (reg->group_queued < target)
        if (pthread_cond_timedwait(&reg->group_fill, &reg->group_lock, &until) == ETIMEDOUT)
            break;
    reg->group_filling = 0;
}

/* The queue's head, then the queued items with its fence while their appends
 * fit in GROUP_MAX_ITEMS, unlinked; items fenced to another timeline stay
 * queued for the next group (lock held, queue not empty). Why the fence: each
 * item's worker checked this node's memory against the primary
 * (registry_check_primary), and what it decided holds only on that timeline,
 * whichever connection writes it (store_register_append). */
static size_t group_take_locked(registry_t *reg, group_item_t **out, size_t *appends)
{
    int64_t fence = reg->group_pending->as[0]->fence;
    size_t n = 0;
    *appends = 0;
    group_item_t **link = &reg->group_pending, *last = NULL;
    while (*link) {
        group_item_t *it = *link;
        if (it->as[0]->fence == fence && (n == 0 || *appends + it->n <= GROUP_MAX_ITEMS)) {
            out[n++] = it;
            *appends += it->n;
            *link = it->next;
            reg->group_queued -= it->n;
        } else {
            last = it;
            link = &it->next;
        }
    }
    reg->group_tail = last;
    return n;
}

/* store_register_append for as[0..n), which it updates (lock not held). */
static store_rc_t appends_write(store_t *db, store_append_t **as, size_t n)
{
    store_append_t *batch = xcalloc(n, sizeof *batch);
    for (size_t i = 0; i < n; i++)
        batch[i] = *as[i];
    store_rc_t rc = store_register_append(db, batch, n);
    for (size_t i = 0; i < n; i++)
        *as[i] = batch[i];
    free(batch);
    return rc;
}

/* rc: how the n appends written together went; rcs[i]: how as[i] went, and
 * errors[i] (malloc'd) db's message when it failed. A statement of several
 * fails whole, so each of its appends is then decided alone: one append's
 * failure (a deadlock with a general write, say) is never another's. Returns
 * how many the statement declined (written, not applied: their subjects'
 * versions had moved on). */
static size_t appends_settle(store_t *db, store_append_t **as, size_t n, store_rc_t rc, size_t together,
                             store_rc_t *rcs, char **errors)
{
    size_t declined = 0;
    for (size_t i = 0; i < n; i++) {
        rcs[i] = rc != STORE_OK && together > 1 ? appends_write(db, &as[i], 1) : rc;
        errors[i] = rcs[i] != STORE_OK ? xstrdup(store_error(db)) : NULL;
        declined += rcs[i] == STORE_OK && !as[i]->applied;
    }
    return declined;
}

/* Writes one group (the appends of n items): two or more on the group's
 * connection, one on the leader's, db (lock not held). */
static store_rc_t group_write(registry_t *reg, store_t *db, group_item_t **items, size_t n, size_t appends)
{
    store_append_t *as[GROUP_MAX_ITEMS];
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < items[i]->n; j++)
            as[k++] = items[i]->as[j];
    store_t *own = appends > 1 ? group_conn(reg) : NULL;
    store_rc_t rc = appends_write(own ? own : db, as, appends);
    if (own)
        group_conn_after(reg, own);
    return rc;
}

/* Each item's done, on db, then the item freed; returns the appends declined. */
static size_t group_complete(store_t *db, group_item_t **items, size_t n, store_rc_t rc, size_t appends)
{
    store_rc_t rcs[GROUP_MAX_ITEMS];
    char *errors[GROUP_MAX_ITEMS];
    size_t declined = 0;
    for (size_t i = 0; i < n; i++) {
        group_item_t *it = items[i];
        declined += appends_settle(db, it->as, it->n, rc, appends, rcs, errors);
        it->done(it->arg, db, rcs, errors); /* takes errors[] */
        free(it);
    }
    return declined;
}

/* Writes groups until the queue is empty, then gives the lead up. Entered as
 * the leader, lock not held. */
static void group_lead(registry_t *reg, store_t *db)
{
    group_item_t *items[GROUP_MAX_ITEMS];
    pthread_mutex_lock(&reg->group_lock);
    while (reg->group_pending) {
        group_fill_locked(reg);
        size_t appends;
        size_t n = group_take_locked(reg, items, &appends);
        pthread_mutex_unlock(&reg->group_lock);
        store_rc_t rc = group_write(reg, db, items, n, appends);
        pthread_mutex_lock(&reg->group_lock);
        reg->group_commits++;
        reg->group_items += appends;
        reg->group_active = appends + reg->group_queued;
        pthread_mutex_unlock(&reg->group_lock);
        size_t declined = group_complete(db, items, n, rc, appends);
        pthread_mutex_lock(&reg->group_lock);
        reg->group_declined += declined;
    }
    reg->group_leading = 0;
    pthread_mutex_unlock(&reg->group_lock);
}

void registry_group_submit(registry_t *reg, store_t *db, store_append_t **as, size_t n, group_done_fn done,
                           void *arg)
{
    assert(n > 0 && n <= GROUP_MAX_ITEMS);
    group_item_t *it = xmalloc(sizeof *it + n * sizeof *it->as);
    *it = (group_item_t){.n = n, .done = done, .arg = arg};
    memcpy(it->as, as, n * sizeof *as);
    pthread_mutex_lock(&reg->group_lock);
    if (reg->group_tail)
        reg->group_tail->next = it;
    else
        reg->group_pending = it;
    reg->group_tail = it;
    reg->group_queued += n;
    if (reg->group_filling && reg->group_queued >= group_target_locked(reg))
        pthread_cond_signal(&reg->group_fill);
    int lead = !reg->group_leading;
    reg->group_leading = 1;
    pthread_mutex_unlock(&reg->group_lock);
    if (lead)
        group_lead(reg, db);
}

/* ---- Alone ------------------------------------------------------------------------ */

void registry_append_alone(registry_t *reg, store_t *db, store_append_t **as, size_t n, store_rc_t *rcs,
                           char **errors)
{
    store_rc_t rc = appends_write(db, as, n);
    size_t declined = appends_settle(db, as, n, rc, n, rcs, errors);
    pthread_mutex_lock(&reg->group_lock);
    reg->group_commits++; /* a statement of its own is a group too, for the mean size */
    reg->group_items += n;
    reg->group_declined += declined;
    pthread_mutex_unlock(&reg->group_lock);
}
