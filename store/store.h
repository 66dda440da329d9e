/*
 * store: the PostgreSQL connection and every SQL statement the registry runs.
 * Parameters always; never SQL built from request data. One store_t is one
 * connection, used by one thread at a time. The store returns records
 * (store/record.h); it knows nothing of the in-memory index.
 *
 * Contents
 *   1. Result codes and the failure message
 *   2. Connection, transactions, migrations
 *   3. Loading records
 *   4. Writes (inside a transaction)
 *   5. The change feed
 *   6. The audit trail
 *   7. Associations
 *
 * Every function returns a store_rc_t decided here, from the SQLSTATE and
 * the constraint name; the text of the last failure is on the connection
 * (store_error). No caller reads that text to decide anything.
 */
#ifndef STORE_STORE_H
#define STORE_STORE_H

#include <jansson.h>
#include <stdint.h>

#include "base/strlist.h"
#include "store/record.h"

typedef struct store store_t;

/* ---- 1. Result codes ------------------------------------------------------ */

typedef enum store_rc {
    STORE_OK = 0,
    STORE_NOT_FOUND,         /* the row asked for does not exist (not a failure) */
    STORE_CONFLICT_IDENTITY, /* the content's canonical row exists (migrations/0004) */
    STORE_CONFLICT_ID,       /* primary key of schemas: the id is taken */
    STORE_READ_ONLY,         /* SQLSTATE 25006: a read-only transaction or standby */
    STORE_TIMEOUT,           /* 57014 statement timeout, 55P03 lock not available */
    STORE_CONN_LOST,         /* the connection is gone (and a reset did not bring it back) */
    STORE_FAILED_OVER,       /* the server is not on the fenced timeline (store_fence): nothing written */
    STORE_ERROR,             /* anything else */
} store_rc_t;

/* "Error while <doing what>: <PostgreSQL's message>" of the last failure on db
 * (borrowed; valid until the next call on db). "" when none. */
const char *store_error(const store_t *db);

/* ---- 2. Connection, transactions, migrations --------------------------------- */

/* Blocking connect (libpq conninfo string or postgresql:// URL). NULL + malloc'd
 * *error (start-up carrier) on failure. */
store_t *store_open(const char *conninfo, char **error);
void store_close(store_t *db);
/* The bound on waiting for the database (database.timeout.ms), set once before
 * any connection is opened; 0 = none. Every later store_open connects within
 * it per host (connect_timeout) and gives up on a peer that stops answering
 * (tcp_user_timeout, keepalives), so a multi-host conninfo moves past a dead
 * primary; a conninfo's own values for these win. */
void store_set_timeout(int ms);
/* Bounds each statement on db by the same timeout: past it the statement is
 * cancelled and fails with STORE_TIMEOUT (a COMMIT waiting for a synchronous
 * standby included). For connections that answer requests, whose clients wait. */
void store_limit_statements(store_t *db);
/*
 * Fences db's writes to one server timeline of one database (store_timeline;
 * 0 = unfenced, the default): from now on store_begin reads, inside the
 * transaction it opens, the timeline and database of the server that
 * transaction runs on, and store_register_append reads them inside its own
 * statement; on another timeline or another database (a dump restored into
 * another cluster, a pooler or DNS name repointed to another cluster) they
 * write nothing and fail with STORE_FAILED_OVER. Read by the same backend that would
 * commit, so no reconnect (libpq's, or PgBouncer's server connection changing
 * under an open client connection) can come between the check and the write.
 */
void store_fence(store_t *db, int64_t timeline);
int64_t store_fenced(const store_t *db);
/* The timeline a statement on db found instead of the fence's since the last
 * store_fence (a fenced write refused, or a reset that reached another
 * timeline: store_exec_retrying); 0 when none. */
int64_t store_fence_tripped(const store_t *db);
/* Reconnects if the connection broke, then BEGIN (and the fence's check). */
store_rc_t store_begin(store_t *db);
store_rc_t store_commit(store_t *db);
void store_rollback(store_t *db);
/* 1 when the connection itself is gone (not when a statement failed): the
 * pool then replaces it. A refused write (read-only, a conflict) is not. */
int store_is_broken(const store_t *db);
/* How often the connection was reset (a dead one found before a statement or
 * a BEGIN, and opened afresh) since the last call; the pool counts them as
 * reconnects (schema_registry_db_pool_reconnects_total). Any thread may call
 * it while another uses db: a reset counts once, whoever takes it. */
unsigned store_take_resets(store_t *db);
/* SELECT 1: the connection works and the database answers. */
store_rc_t store_ping(store_t *db);
/* Asks PostgreSQL to cancel what db is running now (57014 for it). Safe from
 * any thread while another uses db; a no-op when nothing runs. */
void store_cancel(store_t *db);
/* Serializes writers of one subject (or scope) until the transaction ends. */
store_rc_t store_lock_scope(store_t *db, const char *scope);
/* The reference-target locks of subjects until the transaction ends: shared
 * for a registration whose references name them, exclusive for a STRONG
 * association on them (docs/api.md "Associations"). A key space of their own
 * (two keys, the first 12), taken in one statement in key order, so two
 * transactions never wait for each other's in a cycle. */
store_rc_t store_lock_referenced(store_t *db, const strlist_t *subjects, int exclusive);
/* Applies migrations/ each file once, in order, each in a transaction under a
 * transaction-level advisory lock (so also behind PgBouncer transaction pooling). */
store_rc_t store_migrate(store_t *db);

/* ---- 3. Loading ------------------------------------------------------------ */

/* Everything stored, as records, read in one snapshot (the caller owns it:
 * store_snapshot_free). */
typedef struct store_snapshot {
    reg_schema_t **schemas;
    size_t nschemas;
    reg_subject_t **subjects;
    size_t nsubjects;
    json_t *global_config; /* NULL when unset */
    char *global_mode;     /* NULL when unset */
} store_snapshot_t;

store_rc_t store_load_all(store_t *db, store_snapshot_t *out);
void store_snapshot_free(store_snapshot_t *snap);
/* A subject's versions, config and mode (an empty subject when nothing is stored). */
store_rc_t store_load_subject(store_t *db, const char *name, reg_subject_t **out);
store_rc_t store_load_global(store_t *db, json_t **config, char **mode);
/* The database's registry identifier (migrations/0002), malloc'd. */
store_rc_t store_cluster_id(store_t *db, char **out);
/* One schema row of a context ("." = the default, migrations/0006);
 * STORE_NOT_FOUND (and *out = NULL) when the id does not exist there. */
store_rc_t store_load_schema(store_t *db, const char *context, int id, reg_schema_t **out);
/* Subjects of the context having a version (live or soft-deleted) that carries the id. */
store_rc_t store_subjects_of_schema(store_t *db, const char *context, int id, strlist_t *out);
/* The references, as written, of schemas a version (live or soft-deleted)
 * carries, to a version subject holds, written as one of the names that can
 * name it ("subject", ":.:subject", and bare, the subject's name without its
 * context): each one's referrer context in contexts, the name in names. */
store_rc_t store_references_to(store_t *db, const char *subject, const char *bare, strlist_t *contexts,
                               strlist_t *names);
/* The named contexts GET /contexts lists, sorted (not the default "."). */
store_rc_t store_contexts(store_t *db, strlist_t *out);
/* *has = 1 when some subject of the context has a version (soft-deleted ones count). */
store_rc_t store_context_has_versions(store_t *db, const char *context, int *has);
/* DELETE /contexts/{c}: GET /contexts no longer lists the named context; its id
 * counter stays (ids are never reused) and a new version lists it again. */
store_rc_t store_context_unlist(store_t *db, const char *context);

/* ---- 4. Writes ----------------------------------------------------------------- */

/* The canonical id of (type, identity key) in a context (migrations/0004, 0006), or STORE_NOT_FOUND. */
store_rc_t store_schema_find(store_t *db, const char *context, schema_type_t type,
                             const unsigned char key[REG_KEY_LEN], int *id);
/* Find-or-create by (type, identity key) in s->context: the canonical id, or
 * a new row that becomes canonical, numbered by the context's sequence. */
store_rc_t store_schema_upsert(store_t *db, const reg_schema_t *s, int *id);
/* One registration's rows, as the group statement's argument holds them
 * (store_append_text). */
typedef struct store_append_rows {
    const char *subject;     /* borrowed */
    const char *expect;      /* borrowed: store_versions_text of what the caller saw */
    const reg_schema_t *row; /* borrowed */
    /* The action of its audit row (section 6), written with the version when
     * it applies, with db's actor; NULL = none. audit_details: borrowed, or NULL. */
    const char *audit_action;
    const json_t *audit_details;
} store_append_rows_t;

typedef struct store_append {
    /* In: the rows as store_append_text rendered them (borrowed), and the
     * caller's connection's store_fenced; the n items of one call share it. */
    const char *text;
    int64_t fence;
    /* Out, on STORE_OK: applied 0 = declined (the versions moved on; nothing
     * written). Else the id, the new version, its time and whether the call
     * created the schema row (then row's time too). */
    int applied;
    int id;
    int version;
    int inserted;
    int64_t ts_ms;
    int64_t change_seq; /* its row in changes (the feed's sequence number) */
} store_append_t;

/* rows as one item of store_register_append's statement, the audit row naming
 * db's actor (malloc'd). Rendered by the registering thread, before the item
 * joins a group: the group's leader, which the whole group waits for, only
 * joins the items' texts, and no json_t crosses threads (docs/architecture.md). */
char *store_append_text(const store_t *db, const store_append_rows_t *rows);
/*
 * The common registration in one statement, its own transaction (never inside
 * store_begin): under each subject's lock, when the subject's versions still
 * read `expect` (store_versions_text of what the caller saw), finds the
 * content's canonical id or inserts row (row->id ignored) as its canonical
 * row, and appends version max+1 with its change row. Several appends go in
 * one statement, one transaction and one commit (group commit); a subject
 * appearing twice gets the second one declined. Resending after a lost
 * connection is safe: an append that committed changed the versions, so the
 * resend declines it.
 *
 * Runs n appends (each item's text from store_append_text); any failure
 * writes none of them; STORE_FAILED_OVER when the server is not on the items' fence.
 */
store_rc_t store_register_append(store_t *db, store_append_t *items, size_t n);
/* The versions of subj as store_register_append compares them (malloc'd). */
char *store_versions_text(const reg_subject_t *subj);
/* IMPORT: inserts the row under s->id, makes it the content's canonical row
 * (the id stored last wins) and lifts the id sequence above it.
 * STORE_CONFLICT_ID when the id is taken. */
store_rc_t store_schema_import(store_t *db, const reg_schema_t *s);
store_rc_t store_version_insert(store_t *db, const char *subject, int version, int schema_id);
store_rc_t store_version_soft_delete(store_t *db, const char *subject, int version);
store_rc_t store_version_hard_delete(store_t *db, const char *subject, int version);
/* config: ConfigUpdate-shaped object; NULL deletes. scope "" = global. */
store_rc_t store_config_set(store_t *db, const char *scope, const json_t *config);
/* mode: NULL deletes. */
store_rc_t store_mode_set(store_t *db, const char *scope, const char *mode);

/* ---- 5. The change feed ------------------------------------------------------- */

/* Appends scope to the change log (inside the writing transaction). */
store_rc_t store_change(store_t *db, const char *scope);
/* Highest change sequence number (0 when empty). */
store_rc_t store_last_change(store_t *db, int64_t *seq);
/* Where a feed starts after loading everything: the last change drawn more
 * than settle_ms ago (migrations/0016), or the pruning horizon if later (0
 * when neither). A change at or below it that ever commits has, if no write
 * takes longer than settle_ms from drawing its number to committing; a
 * higher one may still commit after the load, and the feed reads it. */
store_rc_t store_settled_change(store_t *db, int settle_ms, int64_t *seq);
/* Changes with seq > after, ascending, at most limit; seqs[i] and scopes items pair up. */
store_rc_t store_changes_since(store_t *db, int64_t after, int limit, int64_t **seqs, strlist_t *scopes);
/* The changes among the n numbers wanted that are in the log, ascending, as store_changes_since. */
store_rc_t store_changes_among(store_t *db, const int64_t *wanted, size_t n, int64_t **seqs,
                               strlist_t *scopes);
/* Deletes the changes older than retention_s seconds (always keeping the
 * newest) and raises changes_horizon.pruned_upto to the last seq deleted. */
store_rc_t store_changes_prune(store_t *db, int retention_s);
/* The highest seq ever pruned (0 when none): a node that has not read up to
 * it missed changes it cannot replay. */
store_rc_t store_changes_pruned_upto(store_t *db, int64_t *seq);
/* The timeline of the server db is connected to (0 on a standby): a promoted
 * standby writes on a new one, so a change here is a failover, after which
 * what this node read before may hold writes the new primary never got.
 * Paired with the database (STORE_DATABASE_OF: 31 bits of the cluster's
 * system identifier and the database's OID; a standby's are its primary's),
 * since another database on the same timeline number is as new to this
 * node's memory; every "timeline" below is this pair. */
#define STORE_TIMELINE_OF(t) ((t)&0xffffffffLL)
#define STORE_DATABASE_OF(t) ((t) >> 32)
store_rc_t store_timeline(store_t *db, int64_t *out);
/* How far the server's WAL goes, in bytes: inserted on a primary (with
 * synchronous_commit off a commit returns before its WAL is written),
 * replayed on a standby (-1 before its first replay); *timeline: the one that
 * WAL is on -- store_timeline on a primary, on a standby the timeline of its
 * last restartpoint (pg_control_checkpoint; it moves to a new one at the first
 * restartpoint after following the switch). A replica at or past a position
 * read from the primary holds every commit the primary had then, if both are
 * on one timeline: LSNs of two timelines are positions in two histories (a
 * standby left on the old one after a failover may be "past" the new
 * primary with writes the new primary never got). */
store_rc_t store_wal_position(store_t *db, int64_t *timeline, int64_t *out);
/* store_timeline as read when db last connected (a reset included); -1 when
 * it could not be read. No query: cheap enough to check before every write. */
int64_t store_connected_timeline(const store_t *db);
/* Every scope the database has state for: subjects with versions, config or
 * mode (not the global scope ""). */
store_rc_t store_scopes(store_t *db, strlist_t *out);

/* ---- 6. The audit trail (migrations/0009, docs/security.md "Audit trail") ---- */

/* Who a connection works for, set by its worker for each request: who (NULL
 * clears) is copied onto db, and every audit row db writes names it
 * (store_audit_insert, store_append_text). Fields NULL when unknown; never a password. */
void store_set_actor(store_t *db, const char *principal, const char *remote, const char *request_id);

/* One audit row, with db's actor. Absent fields: NULL, version/id 0, permanent -1. */
typedef struct store_audit {
    const char *action;
    const char *subject;
    int version;
    int schema_id;
    int permanent; /* -1 = not a delete */
    int refused;   /* 0 = outcome ok (status 200) */
    int status;
    int error_code;
    const char *message;
    const json_t *messages; /* an array, or NULL */
    const json_t *details;  /* an object, or NULL */
} store_audit_t;

/* Inside the caller's transaction when there is one (a change's own row), else alone. */
store_rc_t store_audit_insert(store_t *db, const store_audit_t *a);

/* GET /audit: rows newest first (by id); NULL/0 filters are off. since_us and
 * until_us: microseconds since the epoch, inclusive. */
typedef struct store_audit_query {
    const char *subject;
    const char *principal;
    const char *action;
    int has_since, has_until;
    int64_t since_us, until_us;
    int offset, limit;
} store_audit_query_t;

/* *out: a JSON array of row objects (the caller's). */
store_rc_t store_audit_list(store_t *db, const store_audit_query_t *q, json_t **out);
/* GET /subjects/{s}/history: the ok rows that created the subject's versions
 * (register, import, a register-mode rollback), the newest per (version, id), as an object
 * "version:id" -> {"principal", "action", "summary"} (*out the caller's). */
store_rc_t store_version_audit(store_t *db, const char *subject, json_t **out);

/* ---- 7. Associations (migrations/0011, docs/api.md "Associations") ---------- */

/* Which associations to list; NULL fields (and "-" for the namespace) match
 * all; types NULL or empty: every association type. */
typedef struct store_assoc_query {
    const char *subject;
    const char *resource_id;
    const char *resource_name;
    const char *resource_namespace;
    const char *resource_type;
    const strlist_t *types;
    const char *lifecycle; /* "STRONG", "WEAK" */
} store_assoc_query_t;

/* *out: a JSON array of Confluent Association objects (subject, guid,
 * resourceName, resourceNamespace, resourceId, resourceType,
 * associationType, lifecycle, createTimestamp, updateTimestamp; frozen only
 * when it differs from lifecycle == STRONG), in Association.compareTo order
 * (name, namespace, type, association type, subject). */
store_rc_t store_assoc_list(store_t *db, const store_assoc_query_t *q, json_t **out);

/* One association row (all borrowed). */
typedef struct store_assoc {
    const char *resource_id, *resource_type, *association_type;
    const char *resource_name, *resource_namespace, *subject;
    const char *lifecycle;
    int frozen;
} store_assoc_t;

/* Inserts the row, or updates the one of (resource id, type, association
 * type) keeping its guid, name, namespace and creation time. */
store_rc_t store_assoc_put(store_t *db, const store_assoc_t *a);
store_rc_t store_assoc_delete(store_t *db, const char *resource_id, const char *resource_type,
                              const char *association_type);

#endif
