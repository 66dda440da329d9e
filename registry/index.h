/*
 * index: the whole registry in memory, so reads never touch PostgreSQL
 * (docs/architecture.md, "The read path"). Opaque: the index owns its lock
 * and its maps, and answers questions; nothing outside index.c takes the
 * lock or walks a map.
 *
 * Contents
 *   1. Lifecycle
 *   2. Publishing fresh state loaded from the database
 *   3. Questions about schemas
 *   4. Questions about subjects
 *   5. Settings
 *   6. Prepared bodies (registry/bodies.h)
 *   7. Counting (GET /metrics)
 *
 * Every question takes the read lock for the microseconds it takes to copy
 * what it answers (or to take a reference on a schema). Writers never edit a
 * subject in place: the registry loads the subject's fresh state from
 * PostgreSQL and swaps it in (index_publish_subject), so one code path serves
 * start-up, a node's own writes and the change feed from other nodes.
 *
 * Results are the caller's: schemas retained (reg_schema_release), subjects
 * and arrays copied (reg_subject_free, free), views filled (reg_view_clear).
 */
#ifndef REGISTRY_INDEX_H
#define REGISTRY_INDEX_H

#include <jansson.h>
#include <stdint.h>

#include "registry/bodies.h"
#include "registry/mode.h"
#include "registry/registry.h"
#include "store/record.h"
#include "store/store.h"

typedef struct reg_index reg_index_t;

/* ---- 1. Lifecycle -------------------------------------------------------- */

reg_index_t *index_new(void);
void index_free(reg_index_t *idx);

/* ---- 2. Publishing ------------------------------------------------------- */

/* Everything loaded at start-up; takes the records and leaves snap empty. */
void index_publish_snapshot(reg_index_t *idx, store_snapshot_t *snap);
/* Adds a schema row if its id is unknown (takes ownership of s either way). */
void index_publish_schema(reg_index_t *idx, reg_schema_t *s);
/* Everything the index holds is dropped and snap published instead, in one
 * write-locked step: after a failover the old state may name ids the new
 * primary never stored (or bound to other content), so nothing of it is kept. */
void index_replace_snapshot(reg_index_t *idx, store_snapshot_t *snap);
/* Replaces (or removes, when fresh is empty) the subject; takes ownership of
 * fresh. Every schema the fresh subject names must already be published. */
void index_publish_subject(reg_index_t *idx, reg_subject_t *fresh);
/* A version this node appended (registry_publish_appended): when the subject
 * still holds exactly seen's versions, row (when not NULL) and then seen plus
 * added are published and 1 returned; else, or when added's schema is not
 * published, nothing is and 0 (the caller reloads the subject). Takes row
 * either way. */
int index_publish_append(reg_index_t *idx, const reg_subject_t *seen, reg_schema_t *row,
                         const reg_version_t *added);
/* Replaces the global config / mode (takes ownership; NULL = unset). */
void index_publish_global(reg_index_t *idx, json_t *config, char *mode);

/* ---- 3. Schemas ------------------------------------------------------------ */

/* Ids and contents are per context ("." the default, ".ctx" a named one:
 * registry/context.h, migrations/0006). */

/* The schema row with this id in the context (retained), or NULL. carried:
 * only while some subject version (live or soft-deleted) carries it. */
reg_schema_t *index_schema(reg_index_t *idx, const char *context, int id, int carried);
/* The content's canonical schema row in the context (retained) while carried, or NULL. */
reg_schema_t *index_schema_by_key(reg_index_t *idx, const char *context, schema_type_t type,
                                  const unsigned char key[REG_KEY_LEN]);
/* Highest schema id published so far in the context (0: none). */
int index_max_id(reg_index_t *idx, const char *context);
/* The named contexts that hold schema rows, sorted (not "."). */
void index_contexts(reg_index_t *idx, strlist_t *out);
/* Ids of schemas carried by a version (a live one unless deleted) whose
 * references, resolved from the schema's context, name (subject, version);
 * sorted by (context, id), malloc'd (free). */
size_t index_referrers(reg_index_t *idx, const char *subject, int version, int deleted, int **ids);
/* Does a schema carried by some subject (other than skip_subject when given)
 * refer to (subject, version)? live_only: only live referrers count. */
int index_is_referenced(reg_index_t *idx, const char *subject, int version, int live_only,
                        const char *skip_subject);
/* The (subject, version) pairs of the context carrying id, sorted; live only unless deleted. */
void index_usages(reg_index_t *idx, const char *context, int id, int deleted, reg_usage_t **out, size_t *n);

/* ---- 4. Subjects ------------------------------------------------------------ */

typedef enum index_miss {
    INDEX_FOUND = 0,
    INDEX_NO_SUBJECT, /* no (live, unless deleted) version at all */
    INDEX_NO_VERSION,
    INDEX_NO_SCHEMA, /* the version's schema row is not published; out->id names it */
} index_miss_t;

/* One version (-1 = latest live) of a subject as a view; deleted: soft-deleted
 * versions count (for the subject's existence too). */
index_miss_t index_view(reg_index_t *idx, const char *subject, int version, int deleted, reg_view_t *out);
/* The newest version of subject carrying schema id (live only unless deleted)
 * as a view; 0 when there is none. */
int index_view_of_schema(reg_index_t *idx, const char *subject, int id, int deleted, reg_view_t *out);
/* Likewise for the content (type, identity key): the version carrying its
 * canonical id, else the newest one carrying another id of that content. */
int index_view_of_key(reg_index_t *idx, const char *subject, schema_type_t type,
                      const unsigned char key[REG_KEY_LEN], int deleted, reg_view_t *out);
/* Every version of every subject whose name matches prefix (reg_prefix_match; NULL = all),
 * newest first per subject; live only unless deleted; latest_only: one each. */
void index_views(reg_index_t *idx, const char *prefix, int deleted, int latest_only, reg_view_t **out,
                 size_t *n);
/* A copy of a subject's state, or NULL when the index has none. */
reg_subject_t *index_subject_copy(reg_index_t *idx, const char *name);

/* Calls fn for every subject until it returns nonzero (then returns that).
 * fn runs under the read lock: it must not call back into the index. The
 * order is the map's, random per process: callers sort what order can show. */
typedef int (*index_subject_fn)(const reg_subject_t *subj, void *arg);
int index_each_subject(reg_index_t *idx, index_subject_fn fn, void *arg);

/* ---- 5. Settings ------------------------------------------------------------ */

/* The stored config of a subject (NULL = global), a deep copy, or NULL when unset. */
json_t *index_config(reg_index_t *idx, const char *subject);
/* The typed keys of the subject's config (own; subject NULL: unset) and of the
 * global config, read under one lock, without copying either. */
void index_settings(reg_index_t *idx, const char *subject, reg_settings_t *own, reg_settings_t *global);
/* The stored mode of a subject (NULL = global); MODE_UNSET when unset. */
reg_mode_t index_mode(reg_index_t *idx, const char *subject);

/* ---- 6. Prepared bodies ------------------------------------------------------ */

/* Bodies are prepared per variant (0..REG_BODY_VARIANTS-1, numbered by the
 * caller) and served until what they were rendered from changes: a schema's
 * by-id bodies live as long as its entry (and also depend on whether a live
 * version still carries it), a version's bodies as long as the published
 * subject. Every result is retained (reg_body_release). */

/* The by-id body of variant for (context, id), or NULL while none is
 * prepared. *known: some version (live or soft-deleted) carries it; *deleted:
 * none of them is live. */
reg_body_t *index_schema_body(reg_index_t *idx, const char *context, int id, int variant, int *known,
                              int *deleted);
/* Keeps b (taken over) as the by-id body of (variant, deleted) and returns
 * the body now kept (b, or one another thread kept first); b itself when the
 * id is gone. */
reg_body_t *index_schema_body_put(reg_index_t *idx, const char *context, int id, int variant, int deleted,
                                  reg_body_t *b);
/* As index_view, but with the prepared body of variant in *body when there
 * is one (then out is untouched); otherwise *body is NULL and out is filled. */
index_miss_t index_version_body(reg_index_t *idx, const char *subject, int version, int deleted, int variant,
                                reg_body_t **body, reg_view_t *out);
/* Keeps b (taken over) as the body of variant for the version view names,
 * if that version is still published as view shows it; returns the body now
 * kept (or b). */
reg_body_t *index_version_body_put(reg_index_t *idx, const reg_view_t *view, int variant, reg_body_t *b);

/* ---- 7. Counting --------------------------------------------------------------- */

/* What the index holds now: kept as it changes, read in O(1). */
typedef struct index_stats {
    uint64_t schemas[SCHEMA_TYPE_COUNT];  /* rows some version (live or soft-deleted) carries */
    uint64_t subjects[SCHEMA_TYPE_COUNT]; /* subjects with a live version, by the latest one's type */
    uint64_t versions_live, versions_deleted;
    /* Bytes of the records, their keys, the maps' slots and the prepared
     * bodies: what the index's data costs, without the allocator's overhead,
     * stored configs and metadata (JSON) or parsed models. */
    uint64_t bytes;
} index_stats_t;

void index_stats(reg_index_t *idx, index_stats_t *out);
/* The same figures counted by walking every entry and subject under the read
 * lock (O(schemas + subjects)): for tests to check index_stats against. */
void index_stats_walk(reg_index_t *idx, index_stats_t *out);

#endif
