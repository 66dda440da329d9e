/*
 * group: group commit of one-statement registrations (registry/internal.h,
 * section 8; docs/architecture.md, "The write path").
 *
 * Leader/follower, as in database log writers: every worker queues its append;
 * while fewer than GROUP_MAX_LEADERS groups are being written it leads at
 * once, else it waits. A leader takes the queue's head, writes it, wakes those
 * items' workers and hands the lead to the next waiting one. What arrives
 * while a group is being written forms the next group, so under load many
 * registrations share one statement and one commit, and alone a registration
 * waits for nobody.
 */
#include "registry/internal.h"

#include <stdlib.h>

#include "base/alloc.h"

/* Two groups in flight keep the database busy while the next one forms. */
#define GROUP_MAX_LEADERS 2
/* Bounds one statement's size and one commit's latency. */
#define GROUP_MAX_ITEMS 64

typedef enum group_state { GROUP_WAITING, GROUP_LEADING, GROUP_DONE } group_state_t;

/* On the waiting worker's stack; touched by others only under group_lock. */
typedef struct group_item {
    store_append_t *a;
    store_rc_t rc;
    size_t group_size; /* how many were written together (1 = alone) */
    group_state_t state;
    pthread_cond_t wake; /* one per waiter: a finished group wakes only its own */
    struct group_item *next;
} group_item_t;

void registry_group_init(registry_t *reg)
{
    pthread_mutex_init(&reg->group_lock, NULL);
}

void registry_group_destroy(registry_t *reg)
{
    pthread_mutex_destroy(&reg->group_lock);
}

/* Takes up to GROUP_MAX_ITEMS from the queue's head (lock held), all with the
 * head's fence: each item's worker checked this node's memory against the
 * primary (registry_check_primary) and what it decided holds only on that
 * timeline, whichever connection writes it (store_register_append). */
static size_t group_take_locked(registry_t *reg, group_item_t **out)
{
    size_t n = 0;
    while (reg->group_pending && n < GROUP_MAX_ITEMS &&
           (n == 0 || reg->group_pending->a->fence == out[0]->a->fence)) {
        out[n++] = reg->group_pending;
        reg->group_pending = reg->group_pending->next;
    }
    if (!reg->group_pending)
        reg->group_tail = NULL;
    return n;
}

/* Writes one group on the leader's connection (lock not held). */
static store_rc_t group_write(store_t *db, group_item_t **items, size_t n)
{
    store_append_t *batch = xcalloc(n, sizeof *batch);
    for (size_t i = 0; i < n; i++)
        batch[i] = *items[i]->a;
    store_rc_t rc = store_register_append(db, batch, n);
    for (size_t i = 0; i < n; i++)
        *items[i]->a = batch[i];
    free(batch);
    return rc;
}

/*
 * Writes the queue's head, wakes its items, then hands the lead to the next
 * waiting item (or gives it up). Entered and left with the lock held.
 */
static void group_lead_locked(registry_t *reg, store_t *db, group_item_t *me)
{
    group_item_t *items[GROUP_MAX_ITEMS];
    size_t n = group_take_locked(reg, items);
    pthread_mutex_unlock(&reg->group_lock);
    store_rc_t rc = group_write(db, items, n);
    pthread_mutex_lock(&reg->group_lock);
    reg->group_commits++;
    reg->group_items += n;
    for (size_t i = 0; i < n; i++) {
        items[i]->rc = rc;
        items[i]->group_size = n;
        items[i]->state = GROUP_DONE;
        if (items[i] != me)
            pthread_cond_signal(&items[i]->wake);
    }
    if (reg->group_pending) {
        reg->group_pending->state = GROUP_LEADING;
        pthread_cond_signal(&reg->group_pending->wake);
    } else {
        reg->group_leaders--;
    }
    if (me->state != GROUP_DONE)
        me->state = GROUP_WAITING; /* the queue was longer than one group */
}

store_rc_t registry_group_append(registry_t *reg, store_t *db, store_append_t *a)
{
    group_item_t me = {a, STORE_OK, 0, GROUP_WAITING, PTHREAD_COND_INITIALIZER, NULL};
    pthread_mutex_lock(&reg->group_lock);
    if (reg->group_tail)
        reg->group_tail->next = &me;
    else
        reg->group_pending = &me;
    reg->group_tail = &me;
    if (reg->group_leaders < GROUP_MAX_LEADERS) {
        reg->group_leaders++;
        me.state = GROUP_LEADING;
    }
    while (me.state != GROUP_DONE) {
        if (me.state == GROUP_LEADING)
            group_lead_locked(reg, db, &me);
        else
            pthread_cond_wait(&me.wake, &reg->group_lock);
    }
    pthread_mutex_unlock(&reg->group_lock);
    pthread_cond_destroy(&me.wake);
    /* A group fails whole; each of its items is then decided alone. */
    if (me.rc != STORE_OK && me.group_size > 1)
        me.rc = store_register_append(db, a, 1);
    return me.rc;
}
