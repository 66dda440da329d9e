/*
 * store: libpq, blocking, one connection per thread. Every statement is
 * parameterized; results are turned into index records right here so no
 * other module sees a PGresult.
 */
#include "registry/store.h"

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct store {
    PGconn *conn;
};

/* ---- 1. Connection and transactions --------------------------------------- */

static void store_notice_quiet(void *arg, const char *message)
{
    (void)arg;
    (void)message;   /* NOTICEs ("already exists, skipping") are not events */
}

store_t *store_open(const char *conninfo, char **error)
{
    PGconn *conn = PQconnectdb(conninfo);
    if (PQstatus(conn) != CONNECTION_OK) {
        if (error)
            *error = strdup(PQerrorMessage(conn));
        PQfinish(conn);
        return NULL;
    }
    PQsetNoticeProcessor(conn, store_notice_quiet, NULL);
    store_t *db = calloc(1, sizeof *db);
    if (!db) {
        PQfinish(conn);
        return NULL;
    }
    db->conn = conn;
    return db;
}

void store_close(store_t *db)
{
    if (!db)
        return;
    PQfinish(db->conn);
    free(db);
}

static int store_failed(store_t *db, PGresult *res, reg_error_t *err, const char *what)
{
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    /* 57014 query_canceled (statement timeout), 55P03 lock_not_available */
    reg_code_t code = state && (!strcmp(state, "57014") || !strcmp(state, "55P03")) ? REG_TIMEOUT
                                                                                    : REG_STORE_ERROR;
    reg_fail(err, code, "Error while %s: %s", what, PQerrorMessage(db->conn));
    size_t n = strlen(err->message);
    while (n > 0 && (err->message[n - 1] == '\n' || err->message[n - 1] == ' '))
        err->message[--n] = '\0';
    PQclear(res);
    return -1;
}

/* Runs one parameterized statement; *out gets the result when it returned rows. */
static int store_query(store_t *db, const char *sql, int n, const char *const *params,
                       PGresult **out, reg_error_t *err, const char *what)
{
    PGresult *res = PQexecParams(db->conn, sql, n, NULL, params, NULL, NULL, 0);
    ExecStatusType st = PQresultStatus(res);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
        return store_failed(db, res, err, what);
    if (out)
        *out = res;
    else
        PQclear(res);
    return 0;
}

int store_exec_script(store_t *db, const char *sql, reg_error_t *err)
{
    PGresult *res = PQexec(db->conn, sql);
    ExecStatusType st = PQresultStatus(res);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
        return store_failed(db, res, err, "running a migration");
    PQclear(res);
    return 0;
}

int store_migration_applied(store_t *db, const char *name, int *applied, reg_error_t *err)
{
    const char *p[1] = {name};
    PGresult *res = NULL;
    if (store_query(db, "SELECT 1 FROM schema_migrations WHERE name = $1", 1, p, &res, err,
                    "reading migrations") != 0)
        return -1;
    *applied = PQntuples(res) > 0;
    PQclear(res);
    return 0;
}

int store_migration_record(store_t *db, const char *name, reg_error_t *err)
{
    const char *p[1] = {name};
    return store_query(db, "INSERT INTO schema_migrations (name) VALUES ($1)", 1, p, NULL, err,
                       "recording a migration");
}

int store_begin(store_t *db, reg_error_t *err)
{
    if (PQstatus(db->conn) != CONNECTION_OK) {
        PQreset(db->conn);
        if (PQstatus(db->conn) != CONNECTION_OK) {
            reg_fail(err, REG_STORE_ERROR, "Error while connecting to the database");
            return -1;
        }
    }
    return store_query(db, "BEGIN", 0, NULL, NULL, err, "starting a transaction");
}

int store_commit(store_t *db, reg_error_t *err)
{
    return store_query(db, "COMMIT", 0, NULL, NULL, err, "committing");
}

void store_rollback(store_t *db)
{
    PQclear(PQexec(db->conn, "ROLLBACK"));
}

int store_lock_scope(store_t *db, const char *scope, reg_error_t *err)
{
    const char *p[1] = {scope};
    return store_query(db, "SELECT pg_advisory_xact_lock(hashtextextended($1, 7))", 1, p, NULL,
                       err, "locking the subject");
}

/* ---- 2. Loading ----------------------------------------------------------- */

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c - 'A' + 10;
}

/* Columns: id, schema_type, schema_text, encode(identity_key,'hex'), refs::text, ts_ms */
#define SCHEMA_COLUMNS                                                                            \
    "id, schema_type, schema_text, encode(identity_key, 'hex'), refs::text, "                    \
    "(extract(epoch from created_at) * 1000)::bigint"

static reg_schema_t *schema_from_row(PGresult *res, int row)
{
    schema_type_t type = SCHEMA_AVRO;
    schema_type_parse(PQgetvalue(res, row, 1), &type);
    unsigned char key[REG_KEY_LEN] = {0};
    const char *hex = PQgetvalue(res, row, 3);
    for (int i = 0; i < REG_KEY_LEN && hex[2 * i] && hex[2 * i + 1]; i++)
        key[i] = (unsigned char)(hexval(hex[2 * i]) << 4 | hexval(hex[2 * i + 1]));
    reg_schema_t *s = reg_schema_new(atoi(PQgetvalue(res, row, 0)), type, PQgetvalue(res, row, 2),
                                     key, strtoll(PQgetvalue(res, row, 5), NULL, 10));
    json_t *refs = json_loads(PQgetvalue(res, row, 4), 0, NULL);
    size_t i;
    json_t *r;
    json_array_foreach(refs, i, r)
    {
        reg_schema_add_ref(s, json_string_value(json_object_get(r, "name")),
                           json_string_value(json_object_get(r, "subject")),
                           (int)json_integer_value(json_object_get(r, "version")));
    }
    json_decref(refs);
    return s;
}

static json_t *config_from_text(const char *text)
{
    return json_loads(text, 0, NULL);
}

int store_load_all(store_t *db, reg_index_t *idx, reg_error_t *err)
{
    PGresult *res = NULL;
    if (store_query(db, "SELECT " SCHEMA_COLUMNS " FROM schemas", 0, NULL, &res, err,
                    "loading schemas") != 0)
        return -1;
    for (int i = 0; i < PQntuples(res); i++)
        index_add_schema(idx, schema_from_row(res, i));
    PQclear(res);

    /* Every scope that has versions, a config or a mode becomes a subject. */
    if (store_query(db,
                    "SELECT scope FROM (SELECT DISTINCT subject AS scope FROM subject_versions"
                    " UNION SELECT scope FROM configs UNION SELECT scope FROM modes) s"
                    " WHERE scope <> ''",
                    0, NULL, &res, err, "listing subjects") != 0)
        return -1;
    int rc = 0;
    for (int i = 0; i < PQntuples(res) && rc == 0; i++) {
        reg_subject_t *subj;
        rc = store_load_subject(db, PQgetvalue(res, i, 0), &subj, err);
        if (rc == 0)
            index_publish_subject(idx, subj);
    }
    PQclear(res);
    if (rc != 0)
        return -1;
    json_t *config;
    char *mode;
    if (store_load_global(db, &config, &mode, err) != 0)
        return -1;
    index_publish_global(idx, config, mode);
    return 0;
}

static int store_load_scope_settings(store_t *db, const char *scope, json_t **config, char **mode,
                                     reg_error_t *err)
{
    const char *p[1] = {scope};
    PGresult *res = NULL;
    *config = NULL;
    *mode = NULL;
    if (store_query(db,
                    "SELECT (SELECT config::text FROM configs WHERE scope = $1),"
                    " (SELECT mode FROM modes WHERE scope = $1)",
                    1, p, &res, err, "loading config") != 0)
        return -1;
    if (!PQgetisnull(res, 0, 0))
        *config = config_from_text(PQgetvalue(res, 0, 0));
    if (!PQgetisnull(res, 0, 1))
        *mode = strdup(PQgetvalue(res, 0, 1));
    PQclear(res);
    return 0;
}

int store_load_subject(store_t *db, const char *name, reg_subject_t **out, reg_error_t *err)
{
    const char *p[1] = {name};
    PGresult *res = NULL;
    if (store_query(db,
                    "SELECT version, schema_id, deleted::int,"
                    " (extract(epoch from created_at) * 1000)::bigint"
                    " FROM subject_versions WHERE subject = $1 ORDER BY version",
                    1, p, &res, err, "loading a subject") != 0)
        return -1;
    reg_subject_t *s = reg_subject_new(name);
    for (int i = 0; i < PQntuples(res); i++)
        reg_subject_add_version(s, atoi(PQgetvalue(res, i, 0)), atoi(PQgetvalue(res, i, 1)),
                                atoi(PQgetvalue(res, i, 2)), strtoll(PQgetvalue(res, i, 3), NULL, 10));
    PQclear(res);
    if (store_load_scope_settings(db, name, &s->config, &s->mode, err) != 0) {
        reg_subject_free(s);
        return -1;
    }
    *out = s;
    return 0;
}

int store_load_global(store_t *db, json_t **config, char **mode, reg_error_t *err)
{
    return store_load_scope_settings(db, "", config, mode, err);
}

int store_cluster_id(store_t *db, char **out, reg_error_t *err)
{
    PGresult *res = NULL;
    if (store_query(db, "SELECT id FROM registry_cluster LIMIT 1", 0, NULL, &res, err,
                    "reading the cluster id") != 0)
        return -1;
    *out = strdup(PQntuples(res) ? PQgetvalue(res, 0, 0) : "schema-registry");
    PQclear(res);
    return 0;
}

int store_load_schema(store_t *db, int id, reg_schema_t **out, reg_error_t *err)
{
    char ids[16];
    snprintf(ids, sizeof ids, "%d", id);
    const char *p[1] = {ids};
    PGresult *res = NULL;
    if (store_query(db, "SELECT " SCHEMA_COLUMNS " FROM schemas WHERE id = $1", 1, p, &res, err,
                    "loading a schema") != 0)
        return -1;
    *out = PQntuples(res) ? schema_from_row(res, 0) : NULL;
    PQclear(res);
    return 0;
}

int store_subjects_of_schema(store_t *db, int id, strlist_t *out, reg_error_t *err)
{
    char ids[16];
    snprintf(ids, sizeof ids, "%d", id);
    const char *p[1] = {ids};
    PGresult *res = NULL;
    if (store_query(db, "SELECT DISTINCT subject FROM subject_versions WHERE schema_id = $1", 1, p,
                    &res, err, "finding subjects of a schema") != 0)
        return -1;
    for (int i = 0; i < PQntuples(res); i++)
        strlist_push(out, PQgetvalue(res, i, 0));
    PQclear(res);
    return 0;
}

/* ---- 3. Writes -------------------------------------------------------------- */

static char *refs_json(const reg_schema_t *s)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < s->nrefs; i++)
        json_array_append_new(arr, json_pack("{s:s, s:s, s:i}", "name", s->refs[i].name, "subject",
                                             s->refs[i].subject, "version", s->refs[i].version));
    char *text = json_dumps(arr, JSON_COMPACT);
    json_decref(arr);
    return text;
}

static void key_hex(const reg_schema_t *s, char out[2 * REG_KEY_LEN + 1])
{
    for (int i = 0; i < REG_KEY_LEN; i++)
        sprintf(out + 2 * i, "%02x", s->key[i]);
}

static int store_insert_references(store_t *db, const reg_schema_t *s, int id, reg_error_t *err)
{
    char ids[16], pos[24], ver[16];
    snprintf(ids, sizeof ids, "%d", id);
    for (size_t i = 0; i < s->nrefs; i++) {
        snprintf(pos, sizeof pos, "%zu", i);
        snprintf(ver, sizeof ver, "%d", s->refs[i].version);
        const char *p[5] = {ids, pos, s->refs[i].name, s->refs[i].subject, ver};
        if (store_query(db,
                        "INSERT INTO schema_references (schema_id, position, name, ref_subject,"
                        " ref_version) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
                        5, p, NULL, err, "storing references") != 0)
            return -1;
    }
    return 0;
}

int store_schema_find(store_t *db, schema_type_t type, const unsigned char key[REG_KEY_LEN], int *id,
                      reg_error_t *err)
{
    char hex[2 * REG_KEY_LEN + 1];
    for (int i = 0; i < REG_KEY_LEN; i++)
        sprintf(hex + 2 * i, "%02x", key[i]);
    const char *p[2] = {schema_type_name(type), hex};
    PGresult *res = NULL;
    if (store_query(db,
                    "SELECT id FROM schemas WHERE schema_type = $1 AND identity_key = decode($2, 'hex')",
                    2, p, &res, err, "finding a schema") != 0)
        return -1;
    int found = PQntuples(res) == 1;
    *id = found ? atoi(PQgetvalue(res, 0, 0)) : 0;
    PQclear(res);
    return found;
}

int store_schema_upsert(store_t *db, const reg_schema_t *s, int *id, int *created, reg_error_t *err)
{
    /* Look first: the INSERT below draws a sequence value even when it conflicts,
     * and ids should not jump for content that already exists. */
    int found = store_schema_find(db, s->type, s->key, id, err);
    *created = 0;
    if (found != 0)
        return found < 0 ? -1 : 0;
    char hex[2 * REG_KEY_LEN + 1];
    key_hex(s, hex);
    char *refs = refs_json(s);
    const char *p[4] = {schema_type_name(s->type), s->text, hex, refs};
    PGresult *res = NULL;
    /* Concurrent inserts of the same content wait on the unique index and
     * then see the winner's row: one id, no global lock. */
    int rc = store_query(db,
                         "INSERT INTO schemas (id, schema_type, schema_text, identity_key, refs)"
                         " VALUES (nextval('schema_ids'), $1, $2, decode($3, 'hex'), $4::jsonb)"
                         " ON CONFLICT (schema_type, identity_key) DO NOTHING RETURNING id",
                         4, p, &res, err, "storing a schema");
    free(refs);
    if (rc != 0)
        return -1;
    *created = PQntuples(res) == 1;
    if (*created) {
        *id = atoi(PQgetvalue(res, 0, 0));
        PQclear(res);
        return store_insert_references(db, s, *id, err);
    }
    PQclear(res);
    found = store_schema_find(db, s->type, s->key, id, err);
    if (found == 0)
        reg_fail(err, REG_STORE_ERROR, "Error while finding a schema: row vanished");
    return found == 1 ? 0 : -1;
}

int store_schema_import(store_t *db, const reg_schema_t *s, reg_error_t *err)
{
    char hex[2 * REG_KEY_LEN + 1], ids[16];
    key_hex(s, hex);
    snprintf(ids, sizeof ids, "%d", s->id);
    char *refs = refs_json(s);
    const char *p[5] = {ids, schema_type_name(s->type), s->text, hex, refs};
    int rc = store_query(db,
                         "INSERT INTO schemas (id, schema_type, schema_text, identity_key, refs)"
                         " VALUES ($1, $2, $3, decode($4, 'hex'), $5::jsonb)",
                         5, p, NULL, err, "importing a schema");
    free(refs);
    if (rc != 0 || store_insert_references(db, s, s->id, err) != 0)
        return -1;
    /* Ids allocated later must stay above imported ones. */
    const char *q[1] = {ids};
    return store_query(db,
                       "SELECT setval('schema_ids', $1::int) FROM schema_ids"
                       " WHERE NOT is_called OR last_value < $1::int",
                       1, q, NULL, err, "raising the id sequence");
}

static int store_version_stmt(store_t *db, const char *sql, const char *subject, int version,
                              int schema_id, reg_error_t *err, const char *what)
{
    char v[16], id[16];
    snprintf(v, sizeof v, "%d", version);
    snprintf(id, sizeof id, "%d", schema_id);
    const char *p[3] = {subject, v, id};
    return store_query(db, sql, schema_id ? 3 : 2, p, NULL, err, what);
}

int store_version_insert(store_t *db, const char *subject, int version, int schema_id, reg_error_t *err)
{
    return store_version_stmt(db,
                              "INSERT INTO subject_versions (subject, version, schema_id)"
                              " VALUES ($1, $2, $3) ON CONFLICT (subject, version) DO UPDATE"
                              " SET schema_id = EXCLUDED.schema_id, deleted = false, created_at = now()",
                              subject, version, schema_id, err, "storing a version");
}

int store_version_soft_delete(store_t *db, const char *subject, int version, reg_error_t *err)
{
    return store_version_stmt(db,
                              "UPDATE subject_versions SET deleted = true"
                              " WHERE subject = $1 AND version = $2",
                              subject, version, 0, err, "deleting a version");
}

int store_version_hard_delete(store_t *db, const char *subject, int version, reg_error_t *err)
{
    return store_version_stmt(db, "DELETE FROM subject_versions WHERE subject = $1 AND version = $2",
                              subject, version, 0, err, "deleting a version");
}

int store_config_set(store_t *db, const char *scope, const json_t *config, reg_error_t *err)
{
    if (!config) {
        const char *p[1] = {scope};
        return store_query(db, "DELETE FROM configs WHERE scope = $1", 1, p, NULL, err,
                           "deleting config");
    }
    char *text = json_dumps(config, JSON_COMPACT);
    const char *p[2] = {scope, text};
    int rc = store_query(db,
                         "INSERT INTO configs (scope, config) VALUES ($1, $2::jsonb)"
                         " ON CONFLICT (scope) DO UPDATE SET config = EXCLUDED.config",
                         2, p, NULL, err, "storing config");
    free(text);
    return rc;
}

int store_mode_set(store_t *db, const char *scope, const char *mode, reg_error_t *err)
{
    const char *p[2] = {scope, mode};
    if (!mode)
        return store_query(db, "DELETE FROM modes WHERE scope = $1", 1, p, NULL, err,
                           "deleting mode");
    return store_query(db,
                       "INSERT INTO modes (scope, mode) VALUES ($1, $2)"
                       " ON CONFLICT (scope) DO UPDATE SET mode = EXCLUDED.mode",
                       2, p, NULL, err, "storing mode");
}

/* ---- 4. The change feed -------------------------------------------------- */

int store_change(store_t *db, const char *scope, reg_error_t *err)
{
    const char *p[1] = {scope};
    return store_query(db, "INSERT INTO changes (scope) VALUES ($1)", 1, p, NULL, err,
                       "recording a change");
}

int store_last_change(store_t *db, int64_t *seq, reg_error_t *err)
{
    PGresult *res = NULL;
    if (store_query(db, "SELECT coalesce(max(seq), 0) FROM changes", 0, NULL, &res, err,
                    "reading the change feed") != 0)
        return -1;
    *seq = strtoll(PQgetvalue(res, 0, 0), NULL, 10);
    PQclear(res);
    return 0;
}

int store_changes_since(store_t *db, int64_t after, int limit, int64_t **seqs, strlist_t *scopes,
                        reg_error_t *err)
{
    char a[32], l[16];
    snprintf(a, sizeof a, "%lld", (long long)after);
    snprintf(l, sizeof l, "%d", limit);
    const char *p[2] = {a, l};
    PGresult *res = NULL;
    if (store_query(db, "SELECT seq, scope FROM changes WHERE seq > $1 ORDER BY seq LIMIT $2", 2, p,
                    &res, err, "reading the change feed") != 0)
        return -1;
    int n = PQntuples(res);
    *seqs = calloc((size_t)n + 1, sizeof **seqs);
    for (int i = 0; i < n; i++) {
        (*seqs)[i] = strtoll(PQgetvalue(res, i, 0), NULL, 10);
        strlist_push(scopes, PQgetvalue(res, i, 1));
    }
    PQclear(res);
    return n;
}
