/*
 * internal: what the registry's own files share. Not for the server.
 */
#ifndef REGISTRY_INTERNAL_H
#define REGISTRY_INTERNAL_H

#include <pthread.h>

#include "registry/index.h"
#include "registry/registry.h"

#define RELOAD_STRIPES 64

struct registry {
    registry_options_t opts;
    char *conninfo;
    char *cluster_id;
    reg_index_t idx;

    /* Request fingerprint -> identity key, so re-registering known content
     * answers without parsing (design.md 3). Guarded by cache_lock. */
    pthread_mutex_t cache_lock;
    hmap_t request_cache;

    /* A reload (load from PostgreSQL, then publish) holds its scope's stripe,
     * so a reload that started earlier (the feed, before a local commit) can
     * never publish after one that started later (the writer, after it). */
    pthread_mutex_t reload_locks[RELOAD_STRIPES];

    /* The change feed between nodes. */
    int64_t feed_start;         /* last change seq seen before the initial load */
    pthread_t feed_thread;
    int feed_started;
    int feed_stop;              /* atomic */
    pthread_mutex_t feed_lock;
    pthread_cond_t feed_wake;
};

/* Loads a scope ("" = global settings, else a subject) from the database and
 * publishes it in the index, loading any schema rows it needs. */
int registry_reload_scope(registry_t *reg, store_t *db, const char *scope, reg_error_t *err);

/* Does a schema carried by some subject (other than skip_subject when given)
 * refer to (subject, version)? live_only: only live referrers count. */
int registry_is_referenced(registry_t *reg, const char *subject, int version, int live_only,
                           const char *skip_subject);
/* 42206 for (subject, version). */
reg_code_t registry_referenced_error(const char *subject, int version, reg_error_t *err);

/* One write: BEGIN, lock the scope, body, append the change, COMMIT, then
 * reload the scope into the index. Any failure rolls everything back. */
typedef reg_code_t (*registry_tx_fn)(registry_t *reg, store_t *db, void *arg, reg_error_t *err);
reg_code_t registry_write_tx(registry_t *reg, store_t *db, const char *scope, registry_tx_fn body,
                             void *arg, reg_error_t *err);

/* Resolved references of a request or a stored schema, ready for schema_parse. */
typedef struct reg_resolved {
    schema_ref_t *refs;       /* transitive closure, dependencies first */
    size_t n;
    reg_schema_t **held;      /* retained schemas whose text refs[] borrows */
    size_t nheld;
    reg_ref_t *direct;        /* the direct references with concrete versions */
    size_t ndirect;
} reg_resolved_t;

/* allow_deleted: soft-deleted targets satisfy references (lookups, stored schemas). */
reg_code_t registry_resolve(registry_t *reg, const reg_ref_t *refs, size_t n, int allow_deleted,
                            reg_resolved_t *out, reg_error_t *err);
void reg_resolved_clear(reg_resolved_t *r);

/* The parsed model of a stored schema (cached on it; borrowed). NULL + err on failure. */
const schema_t *registry_parsed(registry_t *reg, reg_schema_t *s, reg_error_t *err);

/* Ids of schemas carried by a version (a live one unless deleted) that refer to
 * (subject, version); sorted, malloc'd. Index lock held. */
size_t registry_referrers_locked(registry_t *reg, const char *subject, int version, int deleted,
                                 int **ids);

/* The effective config of a subject (subject -> global -> defaults), and its level. */
json_t *registry_effective_config(registry_t *reg, const char *subject);
compat_level_t registry_effective_level(registry_t *reg, const char *subject);
int registry_effective_normalize(registry_t *reg, const char *subject);
/* The effective mode name (never NULL; borrowed constant). */
const char *registry_effective_mode(registry_t *reg, const char *subject);

#endif
