/*
 * registry: the domain. Subjects, versions, global ids, config and modes,
 * references, deletes; backed by PostgreSQL (store.h) and served from an
 * in-memory index. Knows SQL (through store), never HTTP.
 *
 * Contents
 *   1. Errors (Confluent error codes, defined once: registry/errors.h)
 *   2. Lifecycle
 *   3. Reading (memory only)
 *   4. Registering, looking up, checking, deleting
 *   5. Config and mode
 *   6. Contexts
 *   7. Statistics (what GET /metrics shows)
 *   8. The audit trail
 *   9. Changes between versions (docs/evolution.md)
 *  10. Associations
 *
 * Calling convention: a function without a `db` parameter answers from
 * memory and never blocks (event-loop threads call it). A function with one
 * may query PostgreSQL: db is the calling worker's own connection, never
 * NULL. Where an operation has both (a _known or _check part, then the
 * database part), the memory part answers what it can and the caller takes
 * the rest to a worker (docs/architecture.md, "Threads and the hop to the database"). Results are copies the
 * caller owns (free with the matching _clear/_free) unless marked borrowed.
 */
#ifndef REGISTRY_REGISTRY_H
#define REGISTRY_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "compat/change.h"
#include "compat/level.h"
#include "compat/schema.h"
#include "registry/bodies.h"
#include "registry/errors.h"
#include "base/strlist.h"
#include "store/record.h"

typedef struct store store_t; /* store/store.h: one PostgreSQL connection */

/* ---- 1. Errors: registry/errors.h ------------------------------------- */

/* ---- 2. Lifecycle ------------------------------------------------------- */

typedef struct registry registry_t;

typedef struct registry_options {
    const char *conninfo;         /* for the change feed's and the write groups' own connections */
    compat_level_t default_level; /* server default compatibility */
    size_t max_schema_bytes;      /* 42209 above this */
    int feed_interval_ms;         /* poll period of the change feed; 0 = no feed thread */
    size_t max_subject_bytes;     /* 42208 above this (a subject is an index key) */
    int changes_retention_s;      /* the change feed keeps this long; 0 = forever */
    /* A read replica (multi-host allowed) or NULL: the start-up load and the
     * feed's reloads read it when it has replayed past the primary's position
     * this node last saw, on the primary's timeline, else the primary. Never
     * writes, id-miss lookups or the reload after a failover. */
    const char *read_conninfo;
} registry_options_t;

/* Applies migrations/ under an advisory lock, each file once, in order.
 * -1 + malloc'd *error (start-up carrier) on failure. */
int registry_migrate(store_t *db, char **error);
/* Loads the whole registry into memory and starts the change feed. */
registry_t *registry_new(const registry_options_t *opts, store_t *db, char **error);
void registry_free(registry_t *reg);
/* Asks PostgreSQL to cancel the statement a write group runs now on the
 * group's own connection (registry_group_submit), as dbpool_cancel does for
 * the workers' connections: for a shutdown that must not wait on a stuck
 * query. Any thread; a no-op when no group is being written. */
void registry_cancel_groups(registry_t *reg);
/* A stable identifier of the backing database (borrowed). */
const char *registry_cluster_id(const registry_t *reg);
/*
 * REG_OK when a write through db may trust this node's memory: db reaches the
 * server timeline the index was last loaded from. After a failover the
 * memory may name ids the new primary never stored (they would be handed out
 * again for other content) until everything is reloaded from it; until then
 * writes get a prompt 50001. The reload is the change feed's (woken at once);
 * a node whose feed does not poll (feed.interval.ms = 0) reloads here, on db,
 * and lets the write through. On REG_OK db is fenced (store_fence) to the
 * timeline checked, until the next check: every transaction the job writes
 * proves inside itself that it runs there, so a reconnect after this check
 * (libpq's, a group commit's retry, PgBouncer's) cannot slip a write decided
 * from the old memory onto the new primary. Call registry_check_primary_after
 * when the job is done.
 */
reg_code_t registry_check_primary(registry_t *reg, store_t *db, reg_error_t *err);
/* After a job registry_check_primary let through: when one of its statements
 * found another timeline (store_fence_tripped), the reload starts as above. */
void registry_check_primary_after(registry_t *reg, store_t *db);

/* ---- 3. Reading --------------------------------------------------------- */

/* One subject version, with its schema (retained). */
typedef struct reg_view {
    char *subject;
    int version;
    int id;
    int deleted;
    int64_t ts_ms;
    reg_schema_t *schema;
} reg_view_t;

void reg_view_clear(reg_view_t *v);

/* A (subject, version) pair. */
typedef struct reg_usage {
    char *subject;
    int version;
} reg_usage_t;

void reg_usages_free(reg_usage_t *u, size_t n);

/* "latest" (any case), "-1", or [1, 2^31-1] with blanks/leading zeros: 0 and
 * *version (-1 = latest); anything else -1 (42202). */
int registry_version_parse(const char *text, int *version);
/* 42202 with the reference's message. */
reg_code_t registry_invalid_version(reg_error_t *err, const char *text);

/* GET /subjects/{s}/versions/{v}. deleted=1 also finds soft-deleted versions. */
reg_code_t registry_get_version(registry_t *reg, const char *subject, const char *version_text, int deleted,
                                reg_view_t *out, reg_error_t *err);
/* GET /subjects: sorted names; prefix NULL = all. */
void registry_list_subjects(registry_t *reg, const char *prefix, int deleted, int deleted_only,
                            strlist_t *out);
/* GET /subjects/{s}/versions. */
reg_code_t registry_list_versions(registry_t *reg, const char *subject, int deleted, int deleted_only,
                                  int deleted_as_negative, int **out, size_t *n, reg_error_t *err);
/* GET /schemas: every version (live, or all when deleted), sorted by subject then version. */
void registry_list_schemas(registry_t *reg, const char *prefix, int deleted, int latest_only,
                           reg_view_t **out, size_t *n);
/* GET /schemas?aliases=true: the same, plus the versions of the subjects the
 * configs under the prefix name as their alias; (*aliases)[i] (sorted, owned:
 * strlist_clear each, then free) names the subjects that are aliases of
 * (*out)[i].subject. */
void registry_list_schemas_aliased(registry_t *reg, const char *prefix, int deleted, int latest_only,
                                   reg_view_t **out, strlist_t **aliases, size_t *n);
/* GET /schemas/ids/{id}[?subject=] from memory, the id looked up in the
 * context Confluent's getSchemaKeyUsingContexts picks (docs/api.md
 * "Contexts"): 1 and *out (out->schema->context is the id's context;
 * out->subject NULL when subject is NULL) while some version there carries
 * it, else 0 (then ask registry_get_by_id). */
int registry_find_by_id(registry_t *reg, int id, const char *subject, reg_view_t *out);
/* The same after checking the database: another node may have registered the
 * id a moment ago. 40403 only then. */
reg_code_t registry_get_by_id(registry_t *reg, store_t *db, int id, const char *subject, reg_view_t *out,
                              reg_error_t *err);
/* GET /schemas/guids/{guid}: the schema (retained) whose identity key is guid,
 * in the default context first, then in each named context in order. */
reg_code_t registry_get_schema_by_guid(registry_t *reg, const unsigned char guid[16], reg_schema_t **out,
                                       reg_error_t *err);
/* GET /schemas/guids/{guid}/ids: one (context, id) per context holding the
 * content, as reg_usage_t {subject = the context, version = the id}. */
void registry_guid_ids(registry_t *reg, const unsigned char guid[16], reg_usage_t **out, size_t *n);
/* The (subject, version) pairs of the context carrying id, sorted; live only
 * unless deleted (from memory: find the schema first). */
void registry_schema_usages(registry_t *reg, const char *context, int id, int deleted, reg_usage_t **out,
                            size_t *n);
/* 1 when no live version of the context carries id (only soft-deleted ones, or none). */
int registry_schema_deleted(registry_t *reg, const char *context, int id);
/* Highest schema id allocated so far in the context (fetchMaxId). */
int registry_max_id(registry_t *reg, const char *context);
/* Readiness: the registry is loaded, db answers a query and, with a change
 * feed, the feed found this node current at most max_feed_lag_ms ago (0: no
 * bound): REG_OK, else why not (docs/operations.md, "Probes"). */
reg_code_t registry_ready(registry_t *reg, store_t *db, int max_feed_lag_ms, reg_error_t *err);
/* GET .../versions/{v}/referencedby: sorted ids of schemas referring to it. */
reg_code_t registry_referenced_by(registry_t *reg, const char *subject, const char *version_text, int deleted,
                                  int **ids, size_t *n, reg_error_t *err);
/* The schema's text in a named format ("resolved", "serialized", ...); malloc'd. */
char *registry_schema_format(registry_t *reg, reg_schema_t *s, const char *format);

/*
 * Prepared bodies (registry/bodies.h, docs/performance.md): the server
 * renders a reply that depends only on a schema (by id) or on one published
 * version, once per variant (its own numbering of response profile and
 * ?format=, 0..REG_BODY_VARIANTS-1), and the registry keeps it until what it
 * was rendered from changes. Bodies are retained: reg_body_release.
 */
#define REG_BODY_VARIANTS 8

/* GET /schemas/ids/{id} without ?subject= (the default context): the
 * prepared body, or NULL (render it, then _put). *deleted is what the body
 * must say: no live version carries id. */
reg_body_t *registry_schema_body(registry_t *reg, int id, int variant, int *deleted);
/* Keeps text[0..len) as the body of (variant, deleted) for the default
 * context's id; returns the body to send. */
reg_body_t *registry_schema_body_put(registry_t *reg, int id, int variant, int deleted, const char *text,
                                     size_t len);
/* GET /subjects/{s}/versions/{v}: as registry_get_version, but *body gets
 * the prepared body when there is one (view untouched), else NULL with the
 * view filled (render it, then registry_version_body_put). */
reg_code_t registry_version_body(registry_t *reg, const char *subject, const char *version_text, int deleted,
                                 int variant, reg_body_t **body, reg_view_t *out, reg_error_t *err);
/* Keeps text[0..len) as the body of variant for the version view shows
 * (unless it changed meanwhile); returns the body to send. */
reg_body_t *registry_version_body_put(registry_t *reg, const reg_view_t *view, int variant, const char *text,
                                      size_t len);

/* ---- 4. Registering, looking up, checking, deleting ---------------------- */

/* A registration / lookup / compatibility request body (all borrowed). */
typedef struct reg_request {
    const char *schema;      /* NULL or "" = empty */
    size_t schema_len;       /* bytes of schema, which may hold NUL; 0 = strlen(schema) */
    const char *schema_type; /* NULL = AVRO */
    const reg_ref_t *refs;
    size_t nrefs;
    int id;        /* IMPORT: explicit id; < 0 = none */
    int version;   /* explicit version; <= 0 = none */
    int normalize; /* query parameter */
    int force;     /* skip the compatibility check */
    /* "metadata" in canonical form (registry_metadata_read); NULL = absent. */
    const json_t *metadata;
    /* A "ruleSet" object was sent. Registration drops it, as the community
     * server's RuleSetHandler does; a lookup carrying one matches nothing,
     * since no stored schema has a rule set (docs/api.md, "Rule sets"). */
    int rule_set;
} reg_request_t;

/* A body's "metadata" (Confluent's Metadata entity) in canonical form (*out,
 * the caller's; NULL when absent or null). REG_BAD_REQUEST (400) when it is
 * not an object of the entity's shape: tags as name -> array of strings,
 * properties as name -> string, sensitive as an array of strings. */
reg_code_t registry_metadata_read(const json_t *in, json_t **out, reg_error_t *err);

/* The memory part of registration and lookup: content already registered
 * under the subject (request fingerprint cache). 1 and *out filled, or 0. */
int registry_register_known(registry_t *reg, const char *subject, const reg_request_t *req, reg_view_t *out);
int registry_lookup_known(registry_t *reg, const char *subject, const reg_request_t *req, int deleted,
                          reg_view_t *out);
/* POST /subjects/{s}/versions (docs/api.md). out (may be NULL) gets the version. */
reg_code_t registry_register(registry_t *reg, store_t *db, const char *subject, const reg_request_t *req,
                             reg_view_t *out, reg_error_t *err);
/*
 * registry_register in two halves, so that the registrations of several
 * requests are written in one group (the database part of one loop pass:
 * server/http_server.c, docs/architecture.md "The write path").
 * start: decided (*pending NULL: the result, and *out on REG_OK, as
 * registry_register's), or *pending waits for its write.
 * finish: writes the n pending ones together, now, on db, and ends each:
 * rcs[i] its result, with its out and err as given to start (both, and the
 * request and subject, the caller's until then). Frees them.
 * queue: the same without waiting: written(arg, db) runs once they are
 * written, on the thread that wrote their group (maybe this one, before queue
 * returns) with that thread's connection db, and there the caller ends each
 * with end (which frees it), acting on db for its request (registry_act_as).
 */
typedef struct reg_pending reg_pending_t;
typedef void (*reg_written_fn)(void *arg, store_t *db);
reg_code_t registry_register_start(registry_t *reg, store_t *db, const char *subject,
                                   const reg_request_t *req, reg_view_t *out, reg_error_t *err,
                                   reg_pending_t **pending);
void registry_register_finish(registry_t *reg, store_t *db, reg_pending_t **pending, size_t n,
                              reg_code_t *rcs);
void registry_register_queue(registry_t *reg, store_t *db, reg_pending_t **pending, size_t n,
                             reg_written_fn written, void *arg);
reg_code_t registry_register_end(registry_t *reg, store_t *db, reg_pending_t *p);
/* POST /subjects/{s}. */
reg_code_t registry_lookup(registry_t *reg, store_t *db, const char *subject, const reg_request_t *req,
                           int deleted, reg_view_t *out, reg_error_t *err);
/* POST /compatibility/subjects/{s}/versions[/{v}]; version_text NULL = the
 * register-time history. With verbose a parse failure is a message, not 42201. */
reg_code_t registry_check(registry_t *reg, store_t *db, const char *subject, const char *version_text,
                          const reg_request_t *req, int verbose, int *compatible, strlist_t *messages,
                          reg_error_t *err);
/* DELETE /subjects/{s}: the deleted version numbers, ascending. */
reg_code_t registry_delete_subject(registry_t *reg, store_t *db, const char *subject, int permanent,
                                   int **versions, size_t *n, reg_error_t *err);
/* DELETE /subjects/{s}/versions/{v}: the deleted version number. */
reg_code_t registry_delete_version(registry_t *reg, store_t *db, const char *subject,
                                   const char *version_text, int permanent, int *version, reg_error_t *err);

/* GET /subjects/{s}/metadata: the newest version (soft-deleted ones too when
 * deleted) whose metadata properties hold every key/value pair of keys[i],
 * values[i] (AbstractSchemaRegistry.getLatestWithMetadata). 40401 when the
 * subject has no such versions at all, else 40403. */
reg_code_t registry_latest_with_metadata(registry_t *reg, const char *subject, const char *const *keys,
                                         const char *const *values, size_t n, int deleted, reg_view_t *out,
                                         reg_error_t *err);

/* POST /subjects/{s}/versions/{v}/tags: a TagSchemaRequest (docs/api.md, "Tags"). */
typedef struct reg_tag_request {
    const schema_tag_edit_t *edits; /* merged as compat/schema.h says */
    size_t nedits;
    int new_version;        /* "newVersion"; 0 = none (the next one) */
    const json_t *metadata; /* canonical "metadata"; NULL = the edited version's */
} reg_tag_request_t;

/* AbstractSchemaRegistry.modifySchemaTags: the live version's schema with the
 * edits, registered as a new version of the subject with the request's (else
 * that version's) metadata and confluent:version; out as registry_register's.
 * 42201 "java.lang.IllegalArgumentException: ..." for a path not in the schema. */
reg_code_t registry_modify_tags(registry_t *reg, store_t *db, const char *subject, const char *version_text,
                                const reg_tag_request_t *req, reg_view_t *out, reg_error_t *err);

/* A registration's "schemaTagsToAdd" / "schemaTagsToRemove" (merged as
 * compat/schema.h says) and "propagateSchemaTags" (RegisterSchemaRequest). */
typedef struct reg_register_tags {
    const schema_tag_edit_t *edits;
    size_t nedits;
    int propagate;
} reg_register_tags_t;

/* POST /subjects/{s}/versions with tag fields (AbstractSchemaRegistry.toSchemaWithTags,
 * maybePropagateSchemaTags): the request's schema with the edits, then with the
 * latest live version's inline tags added when propagate (not in IMPORT mode),
 * registered as registry_register does; with edits, the metadata (the request's,
 * else the latest live version's) gets confluent:version. 42201
 * "java.lang.IllegalArgumentException: ..." for a path not in the schema. */
reg_code_t registry_register_tagged(registry_t *reg, store_t *db, const char *subject,
                                    const reg_request_t *req, const reg_register_tags_t *tags,
                                    reg_view_t *out, reg_error_t *err);
/* ?findTags= on reads (AbstractSchemaRegistry.extractSchemaTags): the schema's
 * tagged entities carrying one of find's tags, or all with "*". 0 (*out the
 * caller's, schema_tagged_free), or -1 with err when the schema does not parse. */
int registry_schema_tags(registry_t *reg, reg_schema_t *s, const strlist_t *find, schema_tagged_t **out,
                         size_t *n, reg_error_t *err);

/* ---- 5. Config and mode ------------------------------------------------- */

/* Each write has a memory part (_check: the answer when it is an error,
 * REG_OK when the write should go ahead) and the write, which checks again
 * under the scope's lock. */

/* subject NULL = global. Configs are ConfigUpdate-shaped objects (key
 * "compatibility"); the caller renames for GET responses. */
reg_code_t registry_config_get(registry_t *reg, const char *subject, int default_to_global, json_t **out,
                               reg_error_t *err);
reg_code_t registry_config_set_check(registry_t *reg, const char *subject, const json_t *update,
                                     reg_error_t *err);
/* Partial update: absent keys kept, null clears. *out = the stored result. */
reg_code_t registry_config_set(registry_t *reg, store_t *db, const char *subject, const json_t *update,
                               json_t **out, reg_error_t *err);
reg_code_t registry_config_delete_check(registry_t *reg, const char *subject, reg_error_t *err);
/* *out = the previous config (the server default when none). */
reg_code_t registry_config_delete(registry_t *reg, store_t *db, const char *subject, json_t **out,
                                  reg_error_t *err);
reg_code_t registry_mode_get(registry_t *reg, const char *subject, int default_to_global, char **out,
                             reg_error_t *err);
/* mode NULL (a JSON null) deletes the scope's mode, as Confluent's
 * ModeUpdateRequest with Optional.empty() does; the global scope then reads
 * READWRITE. Entering IMPORT without force purges the scope's soft-deleted
 * versions (42206 when one is referenced); with force nothing is purged. */
reg_code_t registry_mode_set_check(registry_t *reg, const char *subject, const char *mode, int force,
                                   reg_error_t *err);
reg_code_t registry_mode_set(registry_t *reg, store_t *db, const char *subject, const char *mode, int force,
                             reg_error_t *err);
/* recursive on a context (subject NULL, the default context, or ":.ctx:")
 * also deletes the modes of its subjects (ModeResource.deleteSubjectMode);
 * then a scope without a mode is no error. *out: the previous mode, NULL when
 * there was none. */
reg_code_t registry_mode_delete_check(registry_t *reg, const char *subject, int recursive, reg_error_t *err);
reg_code_t registry_mode_delete(registry_t *reg, store_t *db, const char *subject, int recursive, char **out,
                                reg_error_t *err);
/* ---- 6. Contexts (docs/api.md "Contexts") -------------------------------- */

/* A subject name as Confluent's QualifiedSubject.normalize gives it, in place:
 * ":.:name" -> "name", ":.ctx" -> ":.ctx:" (name needs one spare byte).
 * Returns the new length. */
size_t registry_subject_normalize(char *name);
/* A context as QualifiedSubject.normalizeContext gives it: ".ctx", "ctx",
 * ":.ctx:" -> ":.ctx:"; "." or "" -> "" (the default). NULL when the name
 * holds a colon inside. malloc'd. */
char *registry_context_normalize(const char *text);
/* A reference's subject seen from a schema of context (".", ".ctx"), as
 * referenceFormat=qualified shows it (QualifiedSubject.qualifySubjectWithParent). malloc'd. */
char *registry_ref_qualify(const char *context, const char *ref_subject);
/* GET /contexts: "." then the named contexts, sorted (from the database). */
reg_code_t registry_list_contexts(registry_t *reg, store_t *db, strlist_t *out, reg_error_t *err);
/* DELETE /contexts/{c} with c normalized (":.ctx:", "" the default): 42211
 * when a subject of it has a version, soft-deleted ones included. */
reg_code_t registry_delete_context(registry_t *reg, store_t *db, const char *context, reg_error_t *err);

/* 42208 when a subject name is not acceptable (control characters, reserved
 * names, longer than max_bytes bytes). */
reg_code_t registry_check_subject_name(const char *subject, size_t max_bytes, reg_error_t *err);
/* The subject's alias target (its own config's "alias"; not the global one,
 * as Confluent's AliasFilter reads getConfig(subject)), in the subject's
 * context unless the alias names one; normalized subject in, malloc'd, or NULL. */
char *registry_subject_alias(registry_t *reg, const char *subject);

/* ---- 7. Statistics (registry/stats.c) ------------------------------------- */

/*
 * Counters since start and the index's state now, for the server to show
 * (server/metrics.c, docs/operations.md "Metrics"). The counters are bumped
 * with relaxed atomics; a snapshot reads each once, so two of them may be a
 * request apart. From memory: the index is walked under its read lock.
 */
typedef enum reg_check_outcome {
    REG_CHECK_COMPATIBLE = 0,
    REG_CHECK_INCOMPATIBLE,
    REG_CHECK_FAILED, /* out of memory during the check */
    REG_CHECK_OUTCOMES,
} reg_check_outcome_t;

#define REG_REFUSAL_SLOTS 16 /* >= registry_refusal_reasons() */
#define REG_COMPAT_LEVELS 7  /* COMPAT_NONE .. COMPAT_FULL_TRANSITIVE */

typedef struct reg_stats {
    /* Registrations the registry decided (a body the server could not
     * decode never reaches it): a new version, content already there, refused. */
    uint64_t registered_new, registered_existing, refused;
    uint64_t refused_by[REG_REFUSAL_SLOTS]; /* by reason: registry_refusal_reason(i), i <
                                               registry_refusal_reasons() */
    /* Compatibility checks run, by schema type, level and outcome: one per
     * registration that was checked (its final check) and one per
     * compatibility test request. */
    uint64_t checks[SCHEMA_TYPE_COUNT][REG_COMPAT_LEVELS][REG_CHECK_OUTCOMES];
    /* The index now. */
    uint64_t schemas[SCHEMA_TYPE_COUNT];  /* schema ids some version (live or soft-deleted) carries */
    uint64_t subjects[SCHEMA_TYPE_COUNT]; /* subjects with a live version, by the latest one's type */
    uint64_t versions_live, versions_deleted;
    uint64_t index_bytes; /* records, keys, maps and prepared bodies; not parsed models */
    /* Group commit (registry/group.c): statements written, registrations in them,
     * of those the ones a statement declined (their subject's versions had moved
     * on: decided on the general path); the connection groups of two or more are
     * written on: open now, reconnects. */
    uint64_t group_commits, group_items, group_declined;
    int group_connected;
    uint64_t group_reconnects;
    /* The change feed. */
    int feed_running;     /* a feed thread polls (feed.interval.ms > 0) */
    int feed_connected;   /* it has a database connection */
    int64_t feed_applied; /* the last change sequence number applied */
    int64_t feed_behind;  /* sequence numbers in the log beyond it at the last poll */
    double feed_lag_s;    /* seconds since a poll last found this node current */
    double feed_poll_s;   /* Unix time of the last poll (the start's load counts as one) */
    uint64_t feed_polls;  /* polls the feed thread made (the start's load not counted) */
} reg_stats_t;

void registry_stats(registry_t *reg, reg_stats_t *out);
/* The refusal reasons, "other" last; names are lower case (docs/operations.md). */
size_t registry_refusal_reasons(void);
const char *registry_refusal_reason(size_t i);
/* "compatible", "incompatible", "failed". */
const char *registry_check_outcome_name(reg_check_outcome_t o);

/* ---- 8. The audit trail (docs/security.md "Audit trail") ----------------- */

/*
 * Who the worker's connection db works for until the next call (NULL:
 * nobody known). Every change a registry write makes on db writes its audit
 * row (action, subject, version, id, outcome ok) in the change's own
 * transaction, naming who; a registration that finds its content already
 * registered changes nothing and writes none. Strings are copied.
 */
typedef struct reg_actor {
    const char *principal; /* NULL: no authentication configured (or none established) */
    const char *remote;
    const char *request_id;
} reg_actor_t;
void registry_act_as(store_t *db, const reg_actor_t *who);

/* The actions a row names (REG_AUDIT_*); a refused attempt names the one it
 * was refused, or the route's pattern for a write route without one. */
#define REG_AUDIT_REGISTER       "register"
#define REG_AUDIT_IMPORT         "import" /* a registration in IMPORT mode */
#define REG_AUDIT_DELETE_VERSION "delete_version"
#define REG_AUDIT_DELETE_SUBJECT "delete_subject"
#define REG_AUDIT_CONFIG_PUT     "config_put"
#define REG_AUDIT_CONFIG_DELETE  "config_delete"
#define REG_AUDIT_MODE_PUT       "mode_put"
#define REG_AUDIT_MODE_DELETE    "mode_delete"
#define REG_AUDIT_CONTEXT_DELETE "context_delete"
#define REG_AUDIT_ROLLBACK       "rollback" /* POST /subjects/{s}/rollback, either mode */

/* Associations (section 9): one row per association written or deleted. */
#define REG_AUDIT_ASSOCIATION_CREATE "association_create"
#define REG_AUDIT_ASSOCIATION_DELETE "association_delete"
#define REG_AUDIT_ASSOCIATION_UPDATE "association_update" /* PUT /associations/resources/{id} */

/* A refused attempt (borrowed fields; NULL/0 when unknown). */
typedef struct reg_refusal {
    const char *action;
    const char *subject;
    int version;   /* 0: none or not a number */
    int permanent; /* -1: not a delete */
    int status;
    int error_code;
    const char *message;
} reg_refusal_t;
/* Its row (outcome refused, db's actor), in a transaction of its own. */
reg_code_t registry_audit_refused(registry_t *reg, store_t *db, const reg_refusal_t *r, reg_error_t *err);

/* GET /audit: newest first; NULL filters and has_* 0 are off. */
typedef struct reg_audit_query {
    const char *subject;
    const char *principal;
    const char *action;
    int has_since, has_until;
    int64_t since_us, until_us; /* microseconds since the epoch, inclusive */
    int offset;
    int limit; /* 1..REG_AUDIT_LIMIT_MAX */
} reg_audit_query_t;
#define REG_AUDIT_LIMIT_MAX 1000
/* *out: a JSON array of rows (the caller's). */
reg_code_t registry_audit_list(registry_t *reg, store_t *db, const reg_audit_query_t *q, json_t **out,
                               reg_error_t *err);

/* ---- 9. Changes between versions (docs/evolution.md) -------------------- */

/* A change list (compat/change.h) with its summary line. */
typedef struct reg_changes {
    int from_version; /* the version compared from; 0 for schemas sent */
    int version;      /* the version compared to; 0 for a schema sent */
    schema_type_t type;
    change_list_t list;
    char *summary;
} reg_changes_t;

void reg_changes_clear(reg_changes_t *c);
/* GET /subjects/{s}/versions/{v}/changes?from={u}: live versions only; from
 * NULL = the live version before v (40402 when v is the first). */
reg_code_t registry_version_changes(registry_t *reg, const char *subject, const char *version_text,
                                    const char *from_text, reg_changes_t *out, reg_error_t *err);
/* POST /changes: two schemas as lookups parse them, references resolved in context
 * (".", ".ctx") as a registration in that context resolves them. */
reg_code_t registry_request_changes(registry_t *reg, const char *context, const reg_request_t *old_req,
                                    const reg_request_t *new_req, reg_changes_t *out, reg_error_t *err);
/* A registration or compatibility request against the subject's version
 * (version_text NULL = the latest live one): the ?changes=true extension. */
reg_code_t registry_candidate_changes(registry_t *reg, const char *subject, const char *version_text,
                                      const reg_request_t *req, reg_changes_t *out, reg_error_t *err);
/* The list as the API shows it: [{kind, path, oldType, newType, detail,
 * forward, backward}] (the caller's). */
json_t *registry_change_array(const change_list_t *l);

/* ---- 10. History and rollback (docs/evolution.md) -------------------------- */

#define REG_HISTORY_LIMIT_MAX 1000

/* GET /subjects/{s}/history: {"subject", "total", "versions": [{version, id,
 * deleted, time, principal, action, summary}]}, oldest first, offset/limit
 * over the versions shown (soft-deleted ones only with deleted); principal,
 * action and summary are null for a version without an audit row (registered
 * before the audit trail). 40401 as GET .../versions. *out the caller's. */
reg_code_t registry_subject_history(registry_t *reg, store_t *db, const char *subject, int deleted,
                                    int offset, int limit, json_t **out, reg_error_t *err);

/* A rollback's outcome (registry_rollback). */
typedef struct reg_rollback {
    int from;     /* the latest live version before */
    int to;       /* the version rolled back to */
    int version;  /* the latest live version after: a new one (register), or to (delete) */
    int id;       /* to's schema id */
    int changed;  /* 0: to already was the latest live version, nothing was written */
    int *deleted; /* delete mode: the versions soft-deleted, ascending */
    size_t ndeleted;
    reg_changes_t blocking; /* the changes from the latest version to to (the 40901's too) */
} reg_rollback_t;

void reg_rollback_clear(reg_rollback_t *r);
/*
 * POST /subjects/{s}/rollback: makes live version to the latest again. The
 * content of to is checked, as a registration would be, against the live
 * versions under the subject's level (the data written with the later
 * versions stays in the topics either way): 40901 with out->blocking when it
 * fails. Then register mode (delete_mode 0) registers to's schema as a new
 * version; delete mode soft-deletes every live version after to, 42206 when
 * one of them is referenced. Modes as a registration's (42205); 40401, 40402
 * for an unknown subject or version. One audit row (REG_AUDIT_ROLLBACK) with
 * {"mode", "from", "to"} and the changes or the versions deleted.
 */
reg_code_t registry_rollback(registry_t *reg, store_t *db, const char *subject, int to, int delete_mode,
                             reg_rollback_t *out, reg_error_t *err);

/* ---- 10. Associations (registry/associations.c, docs/api.md "Associations") ---- */

/*
 * A subject tied to a resource (a topic) as its key or value schema, as the
 * community server's AssociationsResource answers it. Read from the
 * database on every call (no node holds a copy); results are JSON the
 * caller owns.
 */
typedef enum reg_assoc_by {
    REG_ASSOC_BY_SUBJECT,       /* key: the subject */
    REG_ASSOC_BY_RESOURCE_ID,   /* key: the resource id */
    REG_ASSOC_BY_RESOURCE_NAME, /* key: the name ("-": any), ns: the namespace ("-": any) */
} reg_assoc_by_t;

#define REG_ASSOC_LIMIT_MAX 1000 /* schema.search.max.limit's default */

typedef struct reg_assoc_query {
    reg_assoc_by_t by;
    const char *key, *ns;
    const char *resource_type; /* NULL or "" = "topic", unless any_type */
    int any_type;              /* resource_type NULL: every type (GET /schemas's filter) */
    const strlist_t *types;    /* associationType values; NULL or empty = all */
    const char *lifecycle;     /* NULL, "STRONG" or "WEAK" */
} reg_assoc_query_t;

/* GET /associations/...: a JSON array of Association objects, sorted as
 * Association.compareTo sorts them (the caller pages: offset, and a limit
 * outside 1..REG_ASSOC_LIMIT_MAX is REG_ASSOC_LIMIT_MAX). */
reg_code_t registry_assoc_list(registry_t *reg, store_t *db, const reg_assoc_query_t *q, json_t **out,
                               reg_error_t *err);
/* POST /associations (path_id NULL): an AssociationCreateOrUpdateRequest
 * body, validated and applied as createOrUpdateAssociation(isCreate = true)
 * does; PUT /associations/resources/{path_id}: as isCreate = false does (the
 * body's resourceId, when given, must be path_id; 42212). *out the
 * AssociationResponse without its schemas. context: the ?context=
 * parameter (NULL: none). schemas[i]: entry i's "schema" decoded (NULL:
 * none); registered[i] (n zeroed views, the caller clears them) gets the
 * version it registered, for the response's "schema". */
reg_code_t registry_assoc_create(registry_t *reg, store_t *db, const char *context, const char *path_id,
                                 int dry_run, const json_t *body, const reg_request_t *const *schemas,
                                 json_t **out, reg_view_t *registered, reg_error_t *err);
/* POST /associations:batchGet: an AssociationBatchGetRequest body; *out the
 * array of AssociationResult objects ({"result": AssociationResponse without
 * schemas} or {"error": {"error_code": 500, ...}} per entry, as
 * batchGetAssociations answers). 42212 for no requests, 400 for a body
 * Jackson would refuse. */
reg_code_t registry_assoc_batch_get(registry_t *reg, store_t *db, const json_t *body, json_t **out,
                                    reg_error_t *err);
/* POST /associations:batchMutate: an AssociationBatchRequest body; *out the
 * array of AssociationResult objects, one per request ({"result": the
 * resource's associations after its ops, without schemas} or {"error": ...}),
 * as mutateAssociations answers. schemas[i][j]: request i's op j's "schema"
 * decoded (NULL: none); registered[i][j] (zeroed views, the caller clears
 * them) the version it registered. 42212 for no requests, 400 for a body
 * Jackson would refuse (nothing runs then). */
reg_code_t registry_assoc_batch_mutate(registry_t *reg, store_t *db, const char *context, int dry_run,
                                       const json_t *body, const reg_request_t *const *const *schemas,
                                       reg_view_t *const *registered, json_t **out, reg_error_t *err);
/* DELETE /associations/resources/{id}: 40410 when none matches; 40908 for a
 * frozen one without cascade; with cascade a STRONG one's subject is
 * deleted too (soft, then permanently). */
reg_code_t registry_assoc_delete(registry_t *reg, store_t *db, const char *resource_id,
                                 const char *resource_type, const strlist_t *types, int cascade, int dry_run,
                                 reg_error_t *err);

#endif
