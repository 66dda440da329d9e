/*
 * internal: what the registry's own files share. Not for the server.
 *
 * Contents
 *   1. The registry object
 *   2. Store results -> registry errors (registry/errors.c)
 *   3. Reloading scopes and the write transaction (registry/reload.c)
 *   4. The change feed (registry/feed.c)
 *   5. References and parsed models (registry/refs.c)
 *   6. Effective settings (registry/settings.c)
 *   7. Lookup by equivalence (registry/equivalent.c)
 *   8. Metadata (registry/metadata.c)
 *   9. Group commit of one-statement registrations (registry/group.c)
 *  10. Counters (registry/stats.c)
 *  11. The audit trail (registry/audit.c)
 */
#ifndef REGISTRY_INTERNAL_H
#define REGISTRY_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "base/hmap.h"
#include "registry/index.h"
#include "registry/mode.h"
#include "registry/registry.h"
#include "store/store.h"

/* ---- 1. The registry object ------------------------------------------------ */

/* Counted with relaxed atomics (section 10): registrations are not the hot
 * path, and several threads count at once. */
typedef struct reg_counters {
    uint64_t registered_new, registered_existing;
    uint64_t refused[REG_REFUSAL_SLOTS];
    uint64_t checks[SCHEMA_TYPE_COUNT][REG_COMPAT_LEVELS][REG_CHECK_OUTCOMES];
} reg_counters_t;

#define RELOAD_STRIPES 64

struct registry {
    registry_options_t opts;
    char *conninfo;
    char *cluster_id;
    reg_index_t *idx;

    /* Request fingerprint -> identity key, so re-registering known content
     * answers without parsing (docs/architecture.md, "The read path").
     * The keys live in request_keys (REQUEST_CACHE_MAX slots, allocated on
     * first use), so emptying the cache is one hmap_clear. Guarded by cache_lock. */
    pthread_mutex_t cache_lock;
    hmap_t request_cache;
    unsigned char (*request_keys)[REG_KEY_LEN];
    size_t request_nkeys;

    /* A reload (load from PostgreSQL, then publish) holds its scope's stripe,
     * so a reload that started earlier (the feed, before a local commit) can
     * never publish after one that started later (the writer, after it). */
    pthread_mutex_t reload_locks[RELOAD_STRIPES];

    /* Group commit (registry/group.c): appends waiting for a leader. */
    pthread_mutex_t group_lock;
    struct group_item *group_pending; /* FIFO */
    struct group_item *group_tail;
    int group_leading;                   /* a leader is writing groups (registry_group_submit) */
    uint64_t group_commits, group_items; /* written so far (under group_lock) */
    uint64_t group_declined;             /* of those, appends not applied (under group_lock) */
    size_t group_queued;                 /* items in group_pending */
    size_t group_active;                 /* the last group and what waited after it: the load */
    int group_filling;                   /* a leader waits for group_fill */
    pthread_cond_t group_fill;           /* signalled when group_queued reaches group_active */
    /* The connection groups of two or more appends are written on (group.c,
     * "The group's connection"): only a leader opens, uses or replaces it, one
     * leader at a time; group_db_lock guards the pointer for the threads that
     * cancel its statement or count it (registry_cancel_groups, registry_stats). */
    pthread_mutex_t group_db_lock;
    store_t *group_db;            /* NULL until a leader opens it, or after it broke */
    uint64_t group_db_retry_ms;   /* no new attempt to open it before (monotonic ms; leader only) */
    int group_db_down;            /* the last attempt failed (logged once per outage; leader only) */
    uint64_t group_db_reconnects; /* resets and replacements of it (under group_db_lock) */

    /* The change feed between nodes. */
    int64_t feed_start; /* where the feed starts: the log settled before the initial load */
    int64_t timeline;   /* the server's timeline the index was loaded from (feed thread after start) */
    pthread_t feed_thread;
    int feed_started;
    int feed_stop; /* atomic */
    pthread_mutex_t feed_lock;
    pthread_cond_t feed_wake;
    /* One reload at a time by workers that found a failover (registry_failover_reload). */
    pthread_mutex_t failover_lock;
    /* What the feed thread last saw (atomic; written by it, read by registry_stats):
     * the sequence number applied, how many the database's log holds beyond
     * it, and the wall-clock times (ms) of its last poll and of the last poll
     * that found this node current (the start's load counts as such a poll for
     * both); the polls it made (the load not counted). */
    int64_t feed_applied, feed_behind, feed_poll_ms, feed_current_ms;
    uint64_t feed_polls;
    int feed_connected;
    /* Change seqs this node wrote and has already published (registry_feed_own),
     * which the feed then need not reload; unsorted, bounded, guarded by own_lock. */
    pthread_mutex_t own_lock;
    int64_t *own_seqs;
    size_t own_n, own_cap;

    reg_counters_t counters;

    /* The read replica (registry_options_t.read_conninfo; owned copy, or NULL). */
    char *read_conninfo;
    int replica_behind; /* the last check found it behind (1) or on another timeline (2); logged per change */
};

/* ---- 2. Store results -------------------------------------------------------- */

/* REG_OK for STORE_OK; otherwise the failure as the client sees it (50002 for
 * a timeout, 50001 else) with the store's message: db's last error, or
 * message (reg_store_as) for a statement another statement on db followed
 * (an append of a group's retries, group.c). The one translation. */
reg_code_t reg_store(reg_error_t *err, store_t *db, store_rc_t rc);
reg_code_t reg_store_as(reg_error_t *err, store_rc_t rc, const char *message);

/* ---- 3. Reloading and writing -------------------------------------------------- */

/* Loads a scope ("" = global settings, else a subject) from the database and
 * publishes it in the index, loading any schema rows it needs. */
reg_code_t registry_reload_scope(registry_t *reg, store_t *db, const char *scope, reg_error_t *err);
/*
 * Publishes a version appended by store_register_append from what was written,
 * without re-reading it: when the index still holds `seen` (the versions the
 * write was checked against) the version is added to them; otherwise something
 * newer was published meanwhile and the subject is reloaded. Under the scope's
 * reload lock like every publish, so a subject never goes backwards. row: the
 * schema row when this write created it (taken), else NULL (the subject is
 * reloaded when this node lacks the row).
 */
reg_code_t registry_publish_appended(registry_t *reg, store_t *db, const reg_subject_t *seen,
                                     reg_schema_t *row, const reg_version_t *added, reg_error_t *err);

/* One write: BEGIN, lock the scope, body, append the change, COMMIT, then
 * reload the scope into the index. Any failure rolls everything back. */
typedef reg_code_t (*registry_tx_fn)(registry_t *reg, store_t *db, void *arg, reg_error_t *err);
reg_code_t registry_write_tx(registry_t *reg, store_t *db, const char *scope, registry_tx_fn body, void *arg,
                             reg_error_t *err);
/* registry_write_tx for a registration whose references name subjects
 * (qualified): their reference-target locks, shared, come first, before the
 * scope's (store_lock_referenced). A STRONG association create takes them
 * exclusive under its own lock and waits for no subject's, so no cycle. */
reg_code_t registry_write_tx_referencing(registry_t *reg, store_t *db, const char *scope,
                                         const strlist_t *referenced, registry_tx_fn body, void *arg,
                                         reg_error_t *err);
/* The lock every association write takes first, for its whole transaction
 * (Confluent's lockForAssociation); a scope no subject can be, since no
 * subject holds a control character (42208). */
#define REG_ASSOC_LOCK                                                                                       \
    "\x01"                                                                                                   \
    "associations"
/* registry_write_tx for a delete whose guard reads the associations (40904,
 * 40907 on the last live version): REG_ASSOC_LOCK first, then the scope's, so
 * an association create and the delete see each other's commit (the create
 * takes no subject's lock under REG_ASSOC_LOCK: no cycle). */
reg_code_t registry_write_tx_assoc_guarded(registry_t *reg, store_t *db, const char *scope,
                                           registry_tx_fn body, void *arg, reg_error_t *err);

/* ---- 4. The change feed ---------------------------------------------------------- */

/* A change number is taken to be rolled back when it has not committed this
 * long after the feed first missed it, or after it was drawn when a load
 * positions the feed (store_settled_change). */
#define REG_FEED_GAP_WAIT_MS 5000

void registry_feed_start(registry_t *reg);
void registry_feed_stop(registry_t *reg);
/*
 * Where a load may read: *replica (opened on first use from read_conninfo,
 * closed and set NULL when it fails) when it has replayed at least the
 * primary's WAL position, read now from primary, so it holds every commit the
 * primary had when this is called (everything this node saw until then),
 * provided replica, primary and this node's memory are on one timeline;
 * primary otherwise, or without a replica. Only for loads: never for writes.
 */
store_t *registry_read_source(registry_t *reg, store_t *primary, store_t **replica);
/*
 * A write found db on another timeline than this node's memory (a failover
 * the feed has not handled yet). With a polling feed it is woken to reload
 * (0); without one everything is reloaded here from db, which must be the new
 * primary (1; one worker at a time, the others find it done). -1 when db
 * could not be read.
 */
int registry_failover_reload(registry_t *reg, store_t *db);

/*
 * Tells the feed that change seq was written by this node and its result is
 * already in the index (call only after publishing it), so the feed skips
 * reloading that scope for it. Only a saving: a change the feed meets first
 * is reloaded as before. Without it every registration cost a second read
 * of its subject by the feed (docs/performance.md).
 */
void registry_feed_own(registry_t *reg, int64_t seq);

/* ---- 5. References and parsed models ---------------------------------------------- */

/* 42206 for (subject, version). */
reg_code_t registry_referenced_error(const char *subject, int version, reg_error_t *err);

/* Resolved references of a request or a stored schema, ready for schema_parse. */
typedef struct reg_resolved {
    schema_ref_t *refs; /* transitive closure, dependencies first */
    size_t n;
    reg_schema_t **held; /* retained schemas whose text refs[] borrows */
    size_t nheld;
    reg_ref_t *direct; /* the direct references with concrete versions */
    size_t ndirect;
    strlist_t names; /* the qualified subjects refs[] names (borrowed by refs[].subject) */
} reg_resolved_t;

/* allow_deleted: soft-deleted targets satisfy references (lookups, stored
 * schemas). context: the referrer's ("." or ".ctx"); a reference resolves as
 * Confluent's QualifiedSubject.qualifySubjectWithParent (registry/context.h),
 * and the targets' own references from their contexts. */
reg_code_t registry_resolve(registry_t *reg, const char *context, const reg_ref_t *refs, size_t n,
                            int allow_deleted, reg_resolved_t *out, reg_error_t *err);
void reg_resolved_clear(reg_resolved_t *r);

/* The parsed model of a stored schema (cached on it; borrowed). NULL + err on failure. */
const schema_t *registry_parsed(registry_t *reg, reg_schema_t *s, reg_error_t *err);
/* A request's schema parsed in context with its references resolved (registry/write.c):
 * 42201 for an unknown type, an empty or invalid schema, 422xx/404xx for references.
 * *out (the caller's) and *res (reg_resolved_clear) are set either way. */
reg_code_t registry_parse_request(registry_t *reg, const char *context, const reg_request_t *req, int flags,
                                  int allow_deleted, reg_resolved_t *res, schema_t **out, reg_error_t *err);

/* ---- 6. Effective settings ------------------------------------------------------------ */

/* The effective config of a subject (subject -> global -> defaults), and its level. */
json_t *registry_effective_config(registry_t *reg, const char *subject);

/* What a subject's decisions use: its own keys over the global ones over the
 * server defaults (docs/api.md, "Config and mode"). */
typedef struct reg_effective {
    compat_level_t level;
    int normalize;
    int validate_fields;
    int metadata_config; /* some defaultMetadata or overrideMetadata applies (subject or global) */
} reg_effective_t;
reg_effective_t registry_effective_settings(registry_t *reg, const char *subject);
reg_mode_t registry_effective_mode(registry_t *reg, const char *subject);

/* ---- 7. Lookup by equivalence ------------------------------------------------------------ */

/* A lookup's second pass (Confluent's ParsedSchema.canLookup over the
 * versions, newest first; soft-deleted ones count when deleted): 1 and *out
 * (the stored version) when some version matches the parsed request, whose
 * direct references are refs; 0 otherwise. From memory. */
int registry_find_equivalent(registry_t *reg, const char *subject, const schema_t *parsed,
                             const reg_ref_t *refs, size_t nrefs, const json_t *metadata, int deleted,
                             reg_view_t *out);

/* ---- 8. Metadata ------------------------------------------------------------------------------ */

/* Canonical metadata objects (NULL = none); each returns a new object of its own,
 * never a reference to its argument (docs/architecture.md: no json_t is shared
 * between threads). */
/* Metadata.mergeMetadata(old, new): new's tags and properties over old's, sensitive united. */
json_t *md_merge(const json_t *old, const json_t *new);
/* Metadata.setConfluentVersion / removeConfluentVersion. */
json_t *md_with_version(const json_t *md, int version);
json_t *md_without_version(const json_t *md);
/* Borrowed from md; NULL when md or the property is absent. */
const char *md_property(const json_t *md, const char *key);
int md_has_version(const json_t *md);
/* 1 and *out when confluent:version parses as an int (getConfluentVersionNumber). */
int md_version_number(const json_t *md, int *out);
/* Metadata.equals, with NULL equal only to NULL. */
int md_equal(const json_t *a, const json_t *b);
/* Metadata.updateHash: feeds md's strings to update in Confluent's order. */
void md_digest(const json_t *md, void (*update)(void *ctx, const void *p, size_t n), void *ctx);

/* ---- 9. Group commit ------------------------------------------------------------------- */

/*
 * store_register_append for a caller's n appends (all of one fence), written
 * together with the appends others queue at the same moment, in one
 * statement: on the group's own connection when the group holds two or more
 * appends, on the leader's when it is one alone. The leader is the caller that
 * found nobody writing; it writes groups until the queue is empty. Returns at
 * once unless the caller leads; done(arg, db, rcs) runs once the appends are
 * written, on the leader's thread with its connection db (maybe the caller's
 * own, before submit returns): rcs[i] as store_register_append's for as[i]
 * alone (a failed group is retried one append at a time, so one append's
 * failure, a deadlock with a general write say, is never another's), and
 * errors[i] its store message when it failed, else NULL (malloc'd and done's
 * to keep or free: the appends' retries follow one another on db, so db's
 * last error is only the last one's). as[i] are the caller's until then.
 * Appends a done queues join the queue and are written by the same leader's
 * next pass.
 */
typedef void (*group_done_fn)(void *arg, store_t *db, const store_rc_t *rcs, char **errors);
void registry_group_submit(registry_t *reg, store_t *db, store_append_t **as, size_t n, group_done_fn done,
                           void *arg);
/* The same written now on db, outside the queue, for a caller that waits for
 * the result: a leader writes until the queue is empty, which under a steady
 * load a waiting caller's own request would wait for. errors[i]: as done's,
 * the caller's to keep or free. */
void registry_append_alone(registry_t *reg, store_t *db, store_append_t **as, size_t n, store_rc_t *rcs,
                           char **errors);
void registry_group_init(registry_t *reg);
void registry_group_destroy(registry_t *reg);
/* The group's connection for registry_stats: open now, and its reconnects so far. */
void registry_group_conn_stats(registry_t *reg, int *connected, uint64_t *reconnects);

/* ---- 10. Counters ---------------------------------------------------------------------- */

/* A registration's end: REG_OK and created (a new version) or not (the
 * content was there), or the code it was refused with. */
void reg_count_registration(registry_t *reg, reg_code_t rc, int created);
/* One compatibility check run: compatible 1, 0 not, -1 failed. */
void reg_count_check(registry_t *reg, schema_type_t type, compat_level_t level, int compatible);
/* The wall clock in ms (the feed's times are shown as Unix times). */
int64_t reg_wall_ms(void);

/* ---- 11. The audit trail ---------------------------------------------------------------- */

/*
 * A change's audit row (outcome ok, the connection's actor), inside the
 * change's transaction: called from the registry_write_tx bodies after the
 * change itself, so the row commits exactly when the change does.
 * subject "" = the global scope (NULL in the row); version, id 0 = none;
 * permanent -1 = not a delete; details: an object (borrowed) or NULL.
 */
reg_code_t reg_audit_change(store_t *db, const char *action, const char *subject, int version, int id,
                            int permanent, const json_t *details, reg_error_t *err);
/*
 * The details of a new version's audit row: {"changes": [...], "summary": "..."}
 * against old_schema, the previous live version's parsed model (borrowed; NULL
 * for a first version: then NULL). NULL too when the engines cannot compare
 * the two (limits): the row is written without, the version is not refused.
 */
json_t *reg_changes_details(const schema_t *old_schema, const schema_t *new_schema);

#endif
