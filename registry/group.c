/*
 * group: group commit of one-statement registrations (registry/internal.h,
 * section 8; docs/architecture.md, "The write path").
 *
 * Leader/follower, as in database log writers: every worker queues its append;
 * while fewer than GROUP_MAX_LEADERS groups are being written it leads at
 * once, else it waits. A leader takes itself and what waits in the queue,
 * writes it, wakes those items' workers and hands the lead to the next waiting
 * one. What arrives while a group is being written forms the next group, so
 * under load many registrations share one statement and one commit, and alone
 * a registration waits for nobody.
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
 * Waking is the hot part (docs/performance.md): a follower sleeps on its own
 * semaphore, not on a condition variable of group_lock, so the leader wakes its
 * group after letting the lock go and a woken follower that is done returns
 * without taking the lock at all. (With condition variables every woken
 * follower first blocked on the lock the leader still held: a second sleep and
 * wake-up per registration.) That is safe because each item is posted once
 * per state it is given: DONE only by the leader that took it out of the
 * queue, LEADING only while it waits in the queue, and a LEADING item is
 * never taken into another leader's group, so no post can reach an item whose
 * worker has already returned.
 *
 * A group of two or more appends is written on the group's own connection,
 * not on its leader's (docs/performance.md, "New registrations: one backend
 * for every group"): the leader is whichever worker came first, so its
 * connection changed from one group to the next, and each of sixteen backends
 * in turn ran a statement it had not run for fifteen groups, at 2.6 - 4.4 ms
 * of the database's CPU for a group of 16 where one backend running every
 * group spends 1.5 ms. A lone append stays on its worker's connection: nothing
 * is saved there, and its failure is then its worker's own, as before.
 */
#include "registry/internal.h"

#include <errno.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/log.h"

/* One group in flight: the next one forms (and fills, below) meanwhile. Two
 * made the 16 clients of the bench two groups of 5 instead of one of 8 (the
 * database's work per group paid twice as often) once the lead was handed over
 * without loss; before, a lead handed twice to one item left a slot unused. */
#define GROUP_MAX_LEADERS 1
/* Bounds one statement's size and one commit's latency. */
#define GROUP_MAX_ITEMS 64
/* How long a leader waits for the group to fill: about one client round trip
 * (answer, next request, its parse) on a loaded machine. */
#define GROUP_FILL_WAIT_US 2000
/* After a failed attempt to open the group's connection, groups are written
 * on their leaders' connections this long before the next attempt. */
#define GROUP_CONN_RETRY_MS 1000

_Static_assert(GROUP_MAX_LEADERS == 1, "one group connection serves one leader at a time");

typedef enum group_state { GROUP_WAITING, GROUP_LEADING, GROUP_DONE } group_state_t;

/* On the waiting worker's stack; touched by others only under group_lock,
 * except the post that wakes it and (DONE) its result, published before.
 * One worker's appends (registry_group_append's n): they go into one group. */
typedef struct group_item {
    store_append_t **as;
    size_t n;
    store_rc_t rc;
    size_t group_size; /* how many appends were written together (1 = alone) */
    _Atomic group_state_t state;
    sem_t wake; /* one per waiter: a finished group wakes only its own */
    struct group_item *next;
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

/* me, then waiting items from the queue's head with my fence while their
 * appends fit in GROUP_MAX_ITEMS, unlinked; items another leader was handed,
 * or fenced to another timeline, stay queued (lock held). Why the fence: each
 * item's worker checked this node's memory against the primary
 * (registry_check_primary), and what it decided holds only on that timeline,
 * whichever connection writes it (store_register_append). */
static size_t group_take_locked(registry_t *reg, group_item_t *me, group_item_t **out)
{
    size_t n = 0, appends = me->n;
    out[n++] = me;
    group_item_t **link = &reg->group_pending, *last = NULL;
    while (*link) {
        group_item_t *it = *link;
        int take = it == me || (atomic_load_explicit(&it->state, memory_order_relaxed) == GROUP_WAITING &&
                                appends + it->n <= GROUP_MAX_ITEMS && it->as[0]->fence == me->as[0]->fence);
        if (take) {
            if (it != me) {
                out[n++] = it;
                appends += it->n;
            }
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

/* The first item still waiting to be taken, to hand the lead to (lock held). */
static group_item_t *group_next_waiting_locked(registry_t *reg)
{
    for (group_item_t *it = reg->group_pending; it; it = it->next)
        if (atomic_load_explicit(&it->state, memory_order_relaxed) == GROUP_WAITING)
            return it;
    return NULL;
}

/* Writes one group (the appends of n items): two or more on the group's
 * connection, one on the leader's, db (lock not held). */
static store_rc_t group_write(registry_t *reg, store_t *db, group_item_t **items, size_t n, size_t appends)
{
    store_append_t *batch = xcalloc(appends, sizeof *batch);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < items[i]->n; j++)
            batch[k++] = *items[i]->as[j];
    store_t *own = appends > 1 ? group_conn(reg) : NULL;
    store_rc_t rc = store_register_append(own ? own : db, batch, appends);
    if (own)
        group_conn_after(reg, own);
    k = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < items[i]->n; j++)
            *items[i]->as[j] = batch[k++];
    free(batch);
    return rc;
}

/*
 * Writes a group led by me, wakes its items, then hands the lead to the next
 * waiting item (or gives it up). Entered with the lock held, left without it;
 * me is DONE on return.
 */
static void group_lead_locked(registry_t *reg, store_t *db, group_item_t *me)
{
    group_item_t *items[GROUP_MAX_ITEMS];
    group_fill_locked(reg);
    size_t n = group_take_locked(reg, me, items), appends = 0;
    for (size_t i = 0; i < n; i++)
        appends += items[i]->n;
    pthread_mutex_unlock(&reg->group_lock);
    store_rc_t rc = group_write(reg, db, items, n, appends);
    pthread_mutex_lock(&reg->group_lock);
    reg->group_commits++;
    reg->group_items += appends;
    reg->group_active = appends + reg->group_queued;
    for (size_t i = 0; i < n; i++) {
        items[i]->rc = rc;
        items[i]->group_size = appends;
        atomic_store_explicit(&items[i]->state, GROUP_DONE, memory_order_release);
    }
    group_item_t *next = group_next_waiting_locked(reg);
    if (next) {
        atomic_store_explicit(&next->state, GROUP_LEADING, memory_order_relaxed);
        sem_post(&next->wake); /* it is still queued, so still waiting: alive */
    } else {
        reg->group_leaders--;
    }
    pthread_mutex_unlock(&reg->group_lock);
    /* Taken out of the queue by this leader alone: nobody else posts them, and
     * each returns (its item gone) once posted, so each is touched once more. */
    for (size_t i = 1; i < n; i++)
        sem_post(&items[i]->wake);
}

static void group_sleep(group_item_t *me)
{
    while (sem_wait(&me->wake) != 0 && errno == EINTR)
        ;
}

void registry_group_append(registry_t *reg, store_t *db, store_append_t **as, size_t n, store_rc_t *rcs)
{
    group_item_t me = {.as = as, .n = n, .rc = STORE_OK, .state = GROUP_WAITING};
    sem_init(&me.wake, 0, 0);
    pthread_mutex_lock(&reg->group_lock);
    if (reg->group_tail)
        reg->group_tail->next = &me;
    else
        reg->group_pending = &me;
    reg->group_tail = &me;
    reg->group_queued += n;
    if (reg->group_filling && reg->group_queued >= group_target_locked(reg))
        pthread_cond_signal(&reg->group_fill);
    if (reg->group_leaders < GROUP_MAX_LEADERS) {
        reg->group_leaders++;
        atomic_store_explicit(&me.state, GROUP_LEADING, memory_order_relaxed);
    }
    for (;;) {
        if (atomic_load_explicit(&me.state, memory_order_relaxed) == GROUP_LEADING) {
            group_lead_locked(reg, db, &me); /* returns unlocked, me DONE */
            break;
        }
        pthread_mutex_unlock(&reg->group_lock);
        group_sleep(&me);
        /* Posted DONE (by the leader that wrote it) or LEADING (handed the lead). */
        if (atomic_load_explicit(&me.state, memory_order_acquire) == GROUP_DONE)
            break;
        pthread_mutex_lock(&reg->group_lock);
    }
    sem_destroy(&me.wake);
    /* A group fails whole; each of its appends is then decided alone. */
    for (size_t i = 0; i < n; i++)
        rcs[i] = me.rc != STORE_OK && me.group_size > 1 ? store_register_append(db, as[i], 1) : me.rc;
}
