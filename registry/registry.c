/*
 * registry: lifecycle -- migrations, the initial load into the index, the
 * change feed's start and stop.
 */
#include "registry/internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/log.h"

int registry_migrate(store_t *db, char **error)
{
    if (store_migrate(db) == STORE_OK)
        return 0;
    if (error)
        *error = xstrdup(store_error(db)[0] ? store_error(db) : "migration failed");
    return -1;
}

registry_t *registry_new(const registry_options_t *opts, store_t *db, char **error)
{
    registry_t *reg = xcalloc(1, sizeof *reg);
    reg->opts = *opts;
    reg->conninfo = xstrdup(opts->conninfo ? opts->conninfo : "");
    reg->opts.conninfo = reg->conninfo;
    reg->read_conninfo = opts->read_conninfo && *opts->read_conninfo ? xstrdup(opts->read_conninfo) : NULL;
    reg->opts.read_conninfo = reg->read_conninfo;
    reg->idx = index_new();
    pthread_mutex_init(&reg->cache_lock, NULL);
    for (int i = 0; i < RELOAD_STRIPES; i++)
        pthread_mutex_init(&reg->reload_locks[i], NULL);
    pthread_mutex_init(&reg->feed_lock, NULL);
    pthread_cond_init(&reg->feed_wake, NULL);
    pthread_mutex_init(&reg->failover_lock, NULL);
    pthread_mutex_init(&reg->own_lock, NULL);
    registry_group_init(reg);

    /* The feed starts where the change log was settled BEFORE the load
     * (store_settled_change): a write landing during the load, or drawing its
     * number before it and committing after, is then replayed, never missed. */
    store_snapshot_t snap;
    store_rc_t rc = store_settled_change(db, REG_FEED_GAP_WAIT_MS, &reg->feed_start);
    if (rc == STORE_OK)
        rc = store_timeline(db, &reg->timeline);
    if (rc == STORE_OK)
        rc = store_cluster_id(db, &reg->cluster_id);
    /* After feed_start: a current replica holds everything up to it. */
    store_t *replica = NULL, *src = rc == STORE_OK ? registry_read_source(reg, db, &replica) : db;
    if (rc == STORE_OK)
        rc = store_load_all(src, &snap);
    if (rc != STORE_OK) {
        if (error)
            *error = xstrdup(store_error(src));
        store_close(replica);
        registry_free(reg);
        return NULL;
    }
    if (src != db)
        log_info("registry: loaded from the read replica");
    store_close(replica);
    index_publish_snapshot(reg->idx, &snap);
    reg->feed_applied = reg->feed_start;
    reg->feed_current_ms = reg->feed_poll_ms = reg_wall_ms(); /* the load is a poll that found it current */
    if ((opts->feed_interval_ms > 0 || opts->changes_retention_s > 0) && opts->conninfo)
        registry_feed_start(reg);
    return reg;
}

void registry_free(registry_t *reg)
{
    if (!reg)
        return;
    registry_feed_stop(reg);
    hmap_clear(&reg->request_cache);
    free(reg->request_keys);
    index_free(reg->idx);
    pthread_mutex_destroy(&reg->cache_lock);
    for (int i = 0; i < RELOAD_STRIPES; i++)
        pthread_mutex_destroy(&reg->reload_locks[i]);
    pthread_mutex_destroy(&reg->feed_lock);
    pthread_cond_destroy(&reg->feed_wake);
    pthread_mutex_destroy(&reg->failover_lock);
    pthread_mutex_destroy(&reg->own_lock);
    free(reg->own_seqs);
    registry_group_destroy(reg);
    free(reg->cluster_id);
    free(reg->conninfo);
    free(reg->read_conninfo);
    free(reg);
}

reg_code_t registry_check_primary(registry_t *reg, store_t *db, reg_error_t *err)
{
    /* Read before the job reads any memory: what it decides is from this
     * timeline's load or a later one, and a later one is refused by the fence. */
    int64_t loaded = __atomic_load_n(&reg->timeline, __ATOMIC_ACQUIRE);
    int64_t now = store_connected_timeline(db);
    if (loaded <= 0 || !reg->conninfo[0]) {
        store_fence(db, 0); /* no timeline known (no rights to read it): nothing to check against */
        return REG_OK;
    }
    /* Twice at most: once more after a reload here (a node without a polling feed). */
    for (int round = 0; round < 2 && now != loaded && now > 0; round++) {
        /* The connection may predate the failover, dead but not yet reset: ask it.
         * A reset on the way notes the timeline it reaches (and fails this query). */
        if (store_timeline(db, &now) != STORE_OK)
            now = store_connected_timeline(db);
        if (now == loaded || now <= 0 || round > 0 || registry_failover_reload(reg, db) != 1)
            break;
        loaded = __atomic_load_n(&reg->timeline, __ATOMIC_ACQUIRE);
    }
    /* A standby (0) or unknown (-1): the fence refuses the write as read-only or failed over. */
    store_fence(db, loaded);
    if (now == loaded || now <= 0)
        return REG_OK;
    return reg_fail(
        err, REG_STORE_ERROR,
        "The database failed over (timeline %lld of database %llx, this node's memory is from "
        "timeline %lld of database %llx): writes are refused until this node has reloaded from the "
        "new primary (its change feed does so now); retry",
        (long long)STORE_TIMELINE_OF(now), (unsigned long long)STORE_DATABASE_OF(now),
        (long long)STORE_TIMELINE_OF(loaded), (unsigned long long)STORE_DATABASE_OF(loaded));
}

void registry_check_primary_after(registry_t *reg, store_t *db)
{
    int64_t found = store_fence_tripped(db);
    if (found > 0 && found != __atomic_load_n(&reg->timeline, __ATOMIC_ACQUIRE))
        registry_failover_reload(reg, db);
}

const char *registry_cluster_id(const registry_t *reg)
{
    return reg->cluster_id;
}
