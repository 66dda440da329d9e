/*
 * store: the PostgreSQL connection and every SQL statement the registry runs.
 * Parameters always; never SQL built from request data. One store_t is one
 * connection, used by one thread at a time.
 *
 * Contents
 *   1. Connection and transactions
 *   2. Loading state into memory
 *   3. Writes (inside a transaction)
 *   4. The change feed
 */
#ifndef REGISTRY_STORE_H
#define REGISTRY_STORE_H

#include <jansson.h>
#include <stdint.h>

#include "base/strlist.h"
#include "registry/errors.h"
#include "registry/index.h"

typedef struct store store_t;

/* ---- 1. Connection and transactions --------------------------------------- */

/* Blocking connect (libpq conninfo string or postgresql:// URL). NULL + *error on failure. */
store_t *store_open(const char *conninfo, char **error);
void store_close(store_t *db);
/* Runs a multi-statement script (migrations). */
int store_exec_script(store_t *db, const char *sql, reg_error_t *err);
int store_migration_applied(store_t *db, const char *name, int *applied, reg_error_t *err);
int store_migration_record(store_t *db, const char *name, reg_error_t *err);
/* Reconnects if the connection broke, then BEGIN. */
int store_begin(store_t *db, reg_error_t *err);
int store_commit(store_t *db, reg_error_t *err);
void store_rollback(store_t *db);
/* Serializes writers of one subject (or scope) until the transaction ends. */
int store_lock_scope(store_t *db, const char *scope, reg_error_t *err);

/* ---- 2. Loading ----------------------------------------------------------- */

/* Every schema row, subject version, config and mode, into an empty index. */
int store_load_all(store_t *db, reg_index_t *idx, reg_error_t *err);
/* A subject's versions, config and mode (an empty subject when nothing is stored). */
int store_load_subject(store_t *db, const char *name, reg_subject_t **out, reg_error_t *err);
int store_load_global(store_t *db, json_t **config, char **mode, reg_error_t *err);
/* The database's registry identifier (migrations/0002), malloc'd. */
int store_cluster_id(store_t *db, char **out, reg_error_t *err);
/* One schema row, or *out = NULL when the id does not exist. */
int store_load_schema(store_t *db, int id, reg_schema_t **out, reg_error_t *err);
/* Subjects having a version (live or soft-deleted) that carries the id. */
int store_subjects_of_schema(store_t *db, int id, strlist_t *out, reg_error_t *err);

/* ---- 3. Writes -------------------------------------------------------------- */

/* The id of the schema row with (type, identity key): 1 found, 0 not, -1 error. */
int store_schema_find(store_t *db, schema_type_t type, const unsigned char key[REG_KEY_LEN], int *id,
                      reg_error_t *err);
/* Find-or-create by (type, identity key); *created = 1 when this call inserted it. */
int store_schema_upsert(store_t *db, const reg_schema_t *s, int *id, int *created, reg_error_t *err);
/* IMPORT: inserts the row under s->id and lifts the id sequence above it. */
int store_schema_import(store_t *db, const reg_schema_t *s, reg_error_t *err);
int store_version_insert(store_t *db, const char *subject, int version, int schema_id, reg_error_t *err);
int store_version_soft_delete(store_t *db, const char *subject, int version, reg_error_t *err);
int store_version_hard_delete(store_t *db, const char *subject, int version, reg_error_t *err);
/* config: ConfigUpdate-shaped object; NULL deletes. scope "" = global. */
int store_config_set(store_t *db, const char *scope, const json_t *config, reg_error_t *err);
/* mode: NULL deletes. */
int store_mode_set(store_t *db, const char *scope, const char *mode, reg_error_t *err);

/* ---- 4. The change feed -------------------------------------------------- */

/* Appends scope to the change log (inside the writing transaction). */
int store_change(store_t *db, const char *scope, reg_error_t *err);
/* Highest change sequence number (0 when empty). */
int store_last_change(store_t *db, int64_t *seq, reg_error_t *err);
/* Changes with seq > after, ascending, at most limit; seqs[i] and scopes items pair up. */
int store_changes_since(store_t *db, int64_t after, int limit, int64_t **seqs,
                        strlist_t *scopes, reg_error_t *err);

#endif
