/*
 * store: libpq, blocking, one connection per thread. Every statement is
 * parameterized; results are turned into records (store/record.h) right
 * here so no other module sees a PGresult, and every failure is classified
 * here (store_classify) so no caller reads PostgreSQL's text.
 */
#include "store/store.h"

#include <errno.h>
#include <libpq-fe.h>
#include <poll.h>
#include <stdio.h>
#include <pthread.h>
#include <time.h>
#include <stdlib.h>
#include <stdatomic.h>
#include <string.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/strbuf.h"
#include "store/migrations.h"

/* Who a connection works for (store_set_actor). */
typedef struct store_actor {
    char *principal;
    char *remote;
    char *request_id;
} store_actor_t;

struct store {
    PGconn *conn;
    char *error;             /* the last failure's message, malloc'd; NULL when none */
    int in_tx;               /* between a successful BEGIN and its COMMIT or ROLLBACK */
    int limited;             /* store_limit_statements: statements bounded by store_timeout_ms */
    int timed_out;           /* the current statement was cancelled at the bound */
    int64_t timeline;        /* store_connected_timeline */
    int switched;            /* the last reset reached another timeline (store_exec_retrying) */
    int64_t fence;           /* store_fence: the timeline writes must run on; 0 = any */
    int64_t tripped;         /* store_fence_tripped */
    int simple;              /* the next statement goes by the simple protocol (no parameters) */
    _Atomic unsigned resets; /* successful store_reset calls not yet taken (store_take_resets) */
    /* store_cancel runs on another thread than the connection's user. */
    pthread_mutex_t cancel_lock;
    PGcancel *cancel;    /* for the current backend; renewed after a reset */
    store_actor_t actor; /* who the worker's request is for (section 6) */
};

/* After a connect or reset: the backend (and its cancel key) is new. */
static void store_renew_cancel(store_t *db)
{
    pthread_mutex_lock(&db->cancel_lock);
    if (db->cancel)
        PQfreeCancel(db->cancel);
    db->cancel = PQgetCancel(db->conn);
    pthread_mutex_unlock(&db->cancel_lock);
}

/* store_set_timeout, written once before any thread connects. */
static int store_timeout_ms;

/* ---- 1. Result codes ------------------------------------------------------ */

const char *store_error(const store_t *db)
{
    return db && db->error ? db->error : "";
}

/* The failure's code, from SQLSTATE and the violated constraint. */
static store_rc_t store_classify(store_t *db, PGresult *res)
{
    if (PQstatus(db->conn) != CONNECTION_OK)
        return STORE_CONN_LOST;
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    if (!state)
        return STORE_ERROR;
    if (!strcmp(state, "57014") || !strcmp(state, "55P03"))
        return STORE_TIMEOUT;
    if (!strcmp(state, "25006"))
        return STORE_READ_ONLY;
    if (!strcmp(state, "23505")) {
        /* Constraint names from migrations/0001 (as PostgreSQL derives them) and 0004. */
        const char *constraint = PQresultErrorField(res, PG_DIAG_CONSTRAINT_NAME);
        if (constraint && !strcmp(constraint, "schemas_canonical_identity"))
            return STORE_CONFLICT_IDENTITY;
        if (constraint && !strcmp(constraint, "schemas_pkey"))
            return STORE_CONFLICT_ID;
    }
    return STORE_ERROR;
}

/* Records "Error while <what>: <message>" on db and returns rc. */
static store_rc_t store_fail_with(store_t *db, store_rc_t rc, const char *what, const char *message)
{
    free(db->error);
    db->error = xasprintf("Error while %s%s%s", what, message ? ": " : "", message ? message : "");
    size_t n = strlen(db->error);
    while (n > 0 && (db->error[n - 1] == '\n' || db->error[n - 1] == ' '))
        db->error[--n] = '\0';
    return rc;
}

static store_rc_t store_failed(store_t *db, PGresult *res, const char *what)
{
    if (db->switched) {
        db->switched = 0;
        db->tripped = db->timeline;
        PQclear(res);
        return store_fail_with(
            db, STORE_FAILED_OVER, what,
            "the database failed over to another server; this request was not run, retry it");
    }
    store_rc_t rc = store_classify(db, res);
    PQclear(res);
    return store_fail_with(db, rc, what, PQerrorMessage(db->conn));
}

static void store_notice_quiet(void *arg, const char *message)
{
    (void)arg;
    (void)message; /* NOTICEs ("already exists, skipping") are not events */
}

static int store_note_timeline(store_t *db);

/* What a connection, new or reset, is set up with on this side. An error's
 * message reaches the client (and the log) as it is: without the CONTEXT
 * lines, which for an error inside a function quote the SQL of every
 * statement it was called from, kilobytes of this project's own statements.
 * The primary message, DETAIL and HINT stay. */
static void store_conn_settings(PGconn *conn)
{
    PQsetNoticeProcessor(conn, store_notice_quiet, NULL);
    PQsetErrorContextVisibility(conn, PQSHOW_CONTEXT_NEVER);
}

/*
 * The database a statement runs on, as 31 bits: the cluster's system
 * identifier (initdb draws it; a streaming standby shares its primary's, a
 * cluster a dump is restored into or any other cluster has its own) and the
 * database's OID (a database dropped and created again, or another one of the
 * cluster, has another). PUBLIC may call pg_control_system() (PostgreSQL 15)
 * and read pg_database. See docs/operations.md section 14 for what it cannot
 * tell apart.
 */
#define STORE_DATABASE_EXPR                                                                                  \
    "(hashtextextended((SELECT system_identifier FROM pg_control_system())::text || '/' || "                 \
    "(SELECT oid FROM pg_database WHERE datname = current_database())::text, 0) & 2147483647)"
/* A WAL file's name starts with its timeline, 8 hex digits; every role may
 * call both. The value is the fence's pair (store.h, store_timeline): the
 * database above in the high 32 bits, the timeline in the low. The group
 * statement's function (migrations/0013) holds the same expression. */
#define STORE_TIMELINE_EXPR                                                                                  \
    "CASE WHEN pg_is_in_recovery() THEN 0 ELSE (" STORE_DATABASE_EXPR " << 32) | ('x' || "                   \
    "substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::bigint END"
#define STORE_TIMELINE_SQL "SELECT " STORE_TIMELINE_EXPR

/*
 * PQexecParams, bounded on a limited connection: past the timeout the query
 * is cancelled and its (prompt) answer awaited. Bounded here, not by the
 * server's statement_timeout, because that one is off while a COMMIT waits for
 * a synchronous standby (PostgreSQL disables it before committing) and
 * because it is session state, which PgBouncer's transaction pooling does not
 * keep. A cancelled wait for a standby returns success with "committed
 * locally"; db->timed_out makes the caller fail it (store_query).
 */
static PGresult *store_exec_params(store_t *db, const char *sql, int n, const char *const *params)
{
    if (!db->limited || store_timeout_ms <= 0)
        return db->simple ? PQexec(db->conn, sql)
                          : PQexecParams(db->conn, sql, n, NULL, params, NULL, NULL, 0);
    if (!(db->simple ? PQsendQuery(db->conn, sql)
                     : PQsendQueryParams(db->conn, sql, n, NULL, params, NULL, NULL, 0)))
        return NULL;
    uint64_t deadline = clock_now_ms() + (uint64_t)store_timeout_ms;
    while (PQisBusy(db->conn)) {
        uint64_t now = clock_now_ms();
        if (!db->timed_out && now >= deadline) {
            db->timed_out = 1;
            store_cancel(db);
            deadline = now + (uint64_t)store_timeout_ms; /* for the answer to the cancel */
            continue;
        }
        if (db->timed_out && now >= deadline)
            break; /* no answer even to the cancel: PQgetResult sees a dead connection or waits on */
        struct pollfd pfd = {PQsocket(db->conn), POLLIN, 0};
        int r = poll(&pfd, 1, (int)(deadline - now));
        if ((r < 0 && errno != EINTR) || (r > 0 && !PQconsumeInput(db->conn)))
            break;
    }
    /* The last result, as PQexecParams returns it. */
    PGresult *res = NULL, *next;
    while ((next = PQgetResult(db->conn)) != NULL) {
        PQclear(res);
        res = next;
    }
    return res;
}

/* A new backend (with a multi-host conninfo maybe another server): session
 * state is gone. 0 when connected again. */
static int store_reset(store_t *db)
{
    PQreset(db->conn);
    if (PQstatus(db->conn) != CONNECTION_OK)
        return -1;
    store_conn_settings(db->conn);
    store_renew_cancel(db);
    if (store_note_timeline(db) != 0)
        return -1;
    atomic_fetch_add(&db->resets, 1);
    return 0;
}

/*
 * A pooled connection whose server restarted looks fine until it is used.
 * Outside a transaction nothing was committed by a statement that failed for
 * a lost connection (every write runs inside BEGIN .. COMMIT, and BEGIN
 * itself changes nothing), so the connection is reset and the statement
 * sent once more; inside one, the transaction is gone and the caller fails.
 */
static PGresult *store_exec_retrying(store_t *db, const char *sql, int n, const char *const *params)
{
    PGresult *res = store_exec_params(db, sql, n, params);
    ExecStatusType st = PQresultStatus(res);
    if ((st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) || db->in_tx || PQstatus(db->conn) == CONNECTION_OK)
        return res;
    PQclear(res);
    int64_t before = db->timeline;
    if (store_reset(db) != 0)
        return NULL;
    /* Another timeline: a failover (a multi-host conninfo moved on). What the
     * caller decided from memory may predate it, so the statement is not sent
     * again; the caller fails and the next job starts on the new primary. */
    if (db->timeline != before) {
        db->switched = 1;
        return NULL;
    }
    return store_exec_params(db, sql, n, params);
}

/* Runs one parameterized statement; *out gets the result when it returned rows. */
static store_rc_t store_query(store_t *db, const char *sql, int n, const char *const *params, PGresult **out,
                              const char *what)
{
    db->timed_out = 0;
    PGresult *res = store_exec_retrying(db, sql, n, params);
    ExecStatusType st = PQresultStatus(res);
    if (db->timed_out && (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)) {
        /* Done after all, once cancelled: only a wait for a synchronous standby ends so. */
        PQclear(res);
        return store_fail_with(
            db, STORE_TIMEOUT, what,
            "no answer within database.timeout.ms (cancelled): a write may be committed on "
            "the primary without the synchronous standby's confirmation");
    }
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
        return store_failed(db, res, what);
    if (out)
        *out = res;
    else
        PQclear(res);
    return STORE_OK;
}

/* A statement whose one row and column is a JSON text (none: the text when it
 * returns no row): parsed into *out, the caller's. */
static store_rc_t store_query_json(store_t *db, const char *sql, int n, const char *const *params,
                                   const char *none, const char *what, json_t **out)
{
    PGresult *res = NULL;
    store_rc_t rc = store_query(db, sql, n, params, &res, what);
    if (rc != STORE_OK)
        return rc;
    *out = json_loads(PQntuples(res) > 0 ? PQgetvalue(res, 0, 0) : none, 0, NULL);
    PQclear(res);
    if (!*out)
        return store_fail_with(db, STORE_ERROR, what, "unreadable rows");
    return STORE_OK;
}

/* ---- 2. Connection, transactions, migrations --------------------------------- */

void store_set_timeout(int ms)
{
    store_timeout_ms = ms;
}

void store_limit_statements(store_t *db)
{
    db->limited = 1;
}

/* conninfo with the timeout's defaults before it: libpq takes the last value
 * of a repeated key word, so the conninfo's own settings win. Export and
 * import connect the same way. */
static PGconn *store_connect(const char *conninfo)
{
    if (store_timeout_ms <= 0)
        return PQconnectdb(conninfo);
    char connect_s[16], user_ms[16], idle_s[16];
    int seconds = (store_timeout_ms + 999) / 1000;
    snprintf(connect_s, sizeof connect_s, "%d", seconds < 2 ? 2 : seconds); /* libpq's minimum */
    snprintf(user_ms, sizeof user_ms, "%d", store_timeout_ms);
    snprintf(idle_s, sizeof idle_s, "%d", seconds);
    const char *const keys[] = {"connect_timeout",
                                "tcp_user_timeout",
                                "keepalives_idle",
                                "keepalives_interval",
                                "keepalives_count",
                                "dbname",
                                NULL};
    /* NULL defers to the environment: a PGCONNECT_TIMEOUT set by the operator wins. */
    const char *env = getenv("PGCONNECT_TIMEOUT");
    const char *const values[] = {env && *env ? NULL : connect_s, user_ms, idle_s, "1", "3", conninfo, NULL};
    return PQconnectdbParams(keys, values, 1);
}

store_t *store_open(const char *conninfo, char **error)
{
    PGconn *conn = store_connect(conninfo);
    if (PQstatus(conn) != CONNECTION_OK) {
        if (error)
            *error = xstrdup(PQerrorMessage(conn));
        PQfinish(conn);
        return NULL;
    }
    store_conn_settings(conn);
    store_t *db = xcalloc(1, sizeof *db);
    db->conn = conn;
    pthread_mutex_init(&db->cancel_lock, NULL);
    store_renew_cancel(db);
    if (store_note_timeline(db) != 0) {
        if (error)
            *error = xstrdup(PQerrorMessage(conn));
        store_close(db);
        return NULL;
    }
    return db;
}

void store_close(store_t *db)
{
    if (!db)
        return;
    PQfinish(db->conn);
    if (db->cancel)
        PQfreeCancel(db->cancel);
    pthread_mutex_destroy(&db->cancel_lock);
    store_set_actor(db, NULL, NULL, NULL);
    free(db->error);
    free(db);
}

void store_cancel(store_t *db)
{
    char ignored[256];
    pthread_mutex_lock(&db->cancel_lock);
    if (db->cancel)
        PQcancel(db->cancel, ignored, sizeof ignored);
    pthread_mutex_unlock(&db->cancel_lock);
}

static store_rc_t store_exec_script(store_t *db, const char *sql)
{
    PGresult *res = PQexec(db->conn, sql);
    ExecStatusType st = PQresultStatus(res);
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK)
        return store_failed(db, res, "running a migration");
    PQclear(res);
    return STORE_OK;
}

void store_fence(store_t *db, int64_t timeline)
{
    db->fence = timeline;
    db->tripped = 0;
}

int64_t store_fenced(const store_t *db)
{
    return db->fence;
}

int64_t store_fence_tripped(const store_t *db)
{
    return db->tripped;
}

/* A standby (timeline 0) is read-only, as PostgreSQL would say; any other
 * timeline than the fence's is a failover. */
static store_rc_t store_wrong_timeline(store_t *db, int64_t timeline)
{
    if (timeline == 0)
        return store_fail_with(db, STORE_READ_ONLY, "starting a write", "the server is a standby");
    db->tripped = timeline;
    char message[200];
    snprintf(message, sizeof message,
             "the server is on timeline %lld of database %llx, this connection is fenced to timeline %lld of "
             "database %llx (a failover, or another database); nothing was written",
             (long long)STORE_TIMELINE_OF(timeline), (unsigned long long)STORE_DATABASE_OF(timeline),
             (long long)STORE_TIMELINE_OF(db->fence), (unsigned long long)STORE_DATABASE_OF(db->fence));
    return store_fail_with(db, STORE_FAILED_OVER, "starting a write", message);
}

/*
 * A fenced BEGIN is "BEGIN; SELECT <timeline>" in one simple-protocol message
 * (no parameters, so nothing of the request is in it): one round trip, and the
 * SELECT runs inside the transaction, on the backend every later statement of
 * it and its COMMIT run on. A lost connection makes the whole message fail
 * before anything is written, so store_exec_retrying may send it again.
 */
store_rc_t store_begin(store_t *db)
{
    if (PQstatus(db->conn) != CONNECTION_OK && store_reset(db) != 0)
        return store_fail_with(db, STORE_CONN_LOST, "connecting to the database", NULL);
    if (db->fence <= 0) {
        store_rc_t rc = store_query(db, "BEGIN", 0, NULL, NULL, "starting a transaction");
        db->in_tx = rc == STORE_OK;
        return rc;
    }
    PGresult *res = NULL;
    db->simple = 1;
    store_rc_t rc = store_query(db, "BEGIN; " STORE_TIMELINE_SQL, 0, NULL, &res, "starting a transaction");
    db->simple = 0;
    if (rc != STORE_OK) {
        if (PQstatus(db->conn) == CONNECTION_OK)
            PQclear(PQexec(db->conn, "ROLLBACK")); /* BEGIN may have run before the SELECT failed */
        return rc;
    }
    int64_t timeline = PQntuples(res) == 1 ? strtoll(PQgetvalue(res, 0, 0), NULL, 10) : -1;
    PQclear(res);
    db->in_tx = 1;
    if (timeline == db->fence)
        return STORE_OK;
    store_rollback(db);
    return store_wrong_timeline(db, timeline);
}

store_rc_t store_commit(store_t *db)
{
    store_rc_t rc = store_query(db, "COMMIT", 0, NULL, NULL, "committing");
    db->in_tx = 0;
    return rc;
}

void store_rollback(store_t *db)
{
    PQclear(PQexec(db->conn, "ROLLBACK"));
    db->in_tx = 0;
}

store_rc_t store_ping(store_t *db)
{
    return store_query(db, "SELECT 1", 0, NULL, NULL, "checking the database");
}

int store_is_broken(const store_t *db)
{
    return PQstatus(db->conn) != CONNECTION_OK;
}

unsigned store_take_resets(store_t *db)
{
    return atomic_exchange(&db->resets, 0);
}

store_rc_t store_lock_scope(store_t *db, const char *scope)
{
    const char *p[1] = {scope};
    return store_query(db, "SELECT pg_advisory_xact_lock(hashtextextended($1, 7))", 1, p, NULL,
                       "locking the subject");
}

store_rc_t store_lock_referenced(store_t *db, const strlist_t *subjects, int exclusive)
{
    json_t *list = json_array();
    for (size_t i = 0; i < subjects->n; i++)
        json_array_append_new(list, json_string(subjects->items[i]));
    char *text = json_dumps(list, JSON_COMPACT);
    json_decref(list);
    if (!text)
        base_oom(0);
    const char *p[2] = {text, exclusive ? "true" : "false"};
    /* DISTINCT keeps the subquery from being pulled up, so the locks are taken
     * in its order; CASE runs only the branch it picks. */
    store_rc_t rc =
        store_query(db,
                    "SELECT CASE WHEN $2::boolean THEN pg_advisory_xact_lock(12, k)"
                    " ELSE pg_advisory_xact_lock_shared(12, k) END FROM (SELECT DISTINCT"
                    " hashtext(s) AS k FROM jsonb_array_elements_text($1::jsonb) AS t(s) ORDER BY k) AS l",
                    2, p, NULL, "locking the referenced subjects");
    free(text);
    return rc;
}

/*
 * Several nodes starting together migrate once: each step is a transaction
 * that first takes a transaction-level advisory lock. A session-level lock
 * would not do behind PgBouncer's transaction pooling, where each
 * transaction may run on another server connection: the lock would stay on
 * whichever one took it, and the next statement would run unguarded.
 */
#define MIGRATION_LOCK_SQL "SELECT pg_advisory_xact_lock(4242001)"

/* BEGIN, the lock, step, COMMIT; anything failing rolls back. */
static store_rc_t migration_step(store_t *db, store_rc_t (*step)(store_t *db, const store_migration_t *m),
                                 const store_migration_t *m)
{
    store_rc_t rc = store_begin(db);
    if (rc != STORE_OK)
        return rc;
    if ((rc = store_exec_script(db, MIGRATION_LOCK_SQL)) != STORE_OK || (rc = step(db, m)) != STORE_OK ||
        (rc = store_commit(db)) != STORE_OK)
        store_rollback(db);
    return rc;
}

static store_rc_t migration_table(store_t *db, const store_migration_t *m)
{
    (void)m;
    return store_exec_script(db, "CREATE TABLE IF NOT EXISTS schema_migrations ("
                                 " name text PRIMARY KEY,"
                                 " applied_at timestamptz NOT NULL DEFAULT now())");
}

static store_rc_t migration_apply(store_t *db, const store_migration_t *m)
{
    /* Checked under the lock, so a node that waited sees the others' work. */
    const char *p[1] = {m->name};
    PGresult *res = NULL;
    store_rc_t rc =
        store_query(db, "SELECT 1 FROM schema_migrations WHERE name = $1", 1, p, &res, "reading migrations");
    if (rc != STORE_OK)
        return rc;
    int applied = PQntuples(res) > 0;
    PQclear(res);
    if (applied)
        return STORE_OK;
    if ((rc = store_exec_script(db, m->sql)) != STORE_OK)
        return rc;
    return store_query(db, "INSERT INTO schema_migrations (name) VALUES ($1)", 1, p, NULL,
                       "recording a migration");
}

store_rc_t store_migrate(store_t *db)
{
    store_rc_t rc = migration_step(db, migration_table, NULL);
    /* Names are compiled in (migrations/ file names), never request data. */
    for (size_t i = 0; rc == STORE_OK && i < store_migration_count; i++)
        rc = migration_step(db, migration_apply, &store_migrations[i]);
    return rc;
}

/* ---- 3. Loading ----------------------------------------------------------- */

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c - 'A' + 10;
}

/* Columns: id, schema_type, schema_text, encode(identity_key,'hex'), refs::text, ts_ms, canonical, context,
 * metadata */
#define SCHEMA_COLUMNS                                                                                       \
    "id, schema_type, schema_text, encode(identity_key, 'hex'), refs::text, "                                \
    "(extract(epoch from created_at) * 1000)::bigint, canonical::int, context, metadata"

static reg_schema_t *schema_from_row(PGresult *res, int row)
{
    schema_type_t type = SCHEMA_AVRO;
    schema_type_parse(PQgetvalue(res, row, 1), &type);
    unsigned char key[REG_KEY_LEN] = {0};
    const char *hex = PQgetvalue(res, row, 3);
    for (int i = 0; i < REG_KEY_LEN && hex[2 * i] && hex[2 * i + 1]; i++)
        key[i] = (unsigned char)(hexval(hex[2 * i]) << 4 | hexval(hex[2 * i + 1]));
    reg_schema_t *s = reg_schema_new(atoi(PQgetvalue(res, row, 0)), type, PQgetvalue(res, row, 2), key,
                                     strtoll(PQgetvalue(res, row, 5), NULL, 10));
    s->canonical = atoi(PQgetvalue(res, row, 6));
    reg_schema_set_context(s, PQgetvalue(res, row, 7));
    /* The canonical text the registry wrote (migrations/0007): loaded as is, key order kept. */
    if (!PQgetisnull(res, row, 8))
        reg_schema_set_metadata(s, json_loads(PQgetvalue(res, row, 8), 0, NULL));
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

static store_rc_t store_load_schemas(store_t *db, store_snapshot_t *out)
{
    PGresult *res = NULL;
    store_rc_t rc = store_query(db, "SELECT " SCHEMA_COLUMNS " FROM schemas ORDER BY context, id", 0, NULL,
                                &res, "loading schemas");
    if (rc != STORE_OK)
        return rc;
    out->nschemas = (size_t)PQntuples(res);
    out->schemas = xcalloc(out->nschemas + 1, sizeof *out->schemas);
    for (size_t i = 0; i < out->nschemas; i++)
        out->schemas[i] = schema_from_row(res, (int)i);
    PQclear(res);
    return STORE_OK;
}

store_rc_t store_contexts(store_t *db, strlist_t *out)
{
    PGresult *res = NULL;
    store_rc_t rc = store_query(db, "SELECT name FROM contexts WHERE listed ORDER BY name COLLATE \"C\"", 0,
                                NULL, &res, "listing contexts");
    if (rc != STORE_OK)
        return rc;
    for (int i = 0; i < PQntuples(res); i++)
        strlist_push(out, PQgetvalue(res, i, 0));
    PQclear(res);
    return STORE_OK;
}

store_rc_t store_context_has_versions(store_t *db, const char *context, int *has)
{
    const char *p[1] = {context};
    PGresult *res = NULL;
    store_rc_t rc = store_query(db, "SELECT EXISTS (SELECT 1 FROM subject_versions WHERE context = $1)::int",
                                1, p, &res, "checking a context");
    if (rc != STORE_OK)
        return rc;
    *has = atoi(PQgetvalue(res, 0, 0));
    PQclear(res);
    return STORE_OK;
}

store_rc_t store_context_unlist(store_t *db, const char *context)
{
    const char *p[1] = {context};
    return store_query(db, "UPDATE contexts SET listed = false WHERE name = $1", 1, p, NULL,
                       "deleting a context");
}

store_rc_t store_scopes(store_t *db, strlist_t *out)
{
    PGresult *res = NULL;
    store_rc_t rc = store_query(db,
                                "SELECT scope FROM (SELECT DISTINCT subject AS scope FROM subject_versions"
                                " UNION SELECT scope FROM configs UNION SELECT scope FROM modes) s"
                                " WHERE scope <> ''",
                                0, NULL, &res, "listing scopes");
    if (rc != STORE_OK)
        return rc;
    for (int i = 0; i < PQntuples(res); i++)
        strlist_push(out, PQgetvalue(res, i, 0));
    PQclear(res);
    return STORE_OK;
}

/*
 * Every scope that has versions, a config or a mode becomes a subject. One
 * query for all of them (a query per subject made 10,000 subjects cost
 * 20,000 round trips at start-up): the versions, and one settings row per
 * scope with a config or a mode, sorted so that each subject's rows are
 * adjacent, settings first, then versions ascending.
 */
#define STORE_SUBJECT_ROWS_SQL                                                                               \
    "SELECT scope, version, schema_id, deleted, ms, config, mode FROM ("                                     \
    " SELECT subject AS scope, version, schema_id, deleted::int AS deleted,"                                 \
    " (extract(epoch from created_at) * 1000)::bigint AS ms, NULL::text AS config, NULL::text AS mode"       \
    " FROM subject_versions"                                                                                 \
    " UNION ALL SELECT s.scope, NULL, NULL, NULL, NULL,"                                                     \
    " (SELECT config::text FROM configs WHERE scope = s.scope),"                                             \
    " (SELECT mode FROM modes WHERE scope = s.scope)"                                                        \
    " FROM (SELECT scope FROM configs UNION SELECT scope FROM modes) s) r"                                   \
    " WHERE scope <> '' ORDER BY scope COLLATE \"C\", version NULLS FIRST"

static void subject_row_apply(reg_subject_t *s, PGresult *res, int row)
{
    if (PQgetisnull(res, row, 1)) {
        if (!PQgetisnull(res, row, 5))
            s->config = config_from_text(PQgetvalue(res, row, 5));
        if (!PQgetisnull(res, row, 6))
            s->mode = xstrdup(PQgetvalue(res, row, 6));
        return;
    }
    reg_subject_add_version(s, atoi(PQgetvalue(res, row, 1)), atoi(PQgetvalue(res, row, 2)),
                            atoi(PQgetvalue(res, row, 3)), strtoll(PQgetvalue(res, row, 4), NULL, 10));
}

static store_rc_t store_load_subjects(store_t *db, store_snapshot_t *out)
{
    PGresult *res = NULL;
    store_rc_t rc = store_query(db, STORE_SUBJECT_ROWS_SQL, 0, NULL, &res, "loading subjects");
    if (rc != STORE_OK)
        return rc;
    int rows = PQntuples(res);
    size_t cap = 0;
    reg_subject_t *cur = NULL;
    for (int i = 0; i < rows; i++) {
        const char *scope = PQgetvalue(res, i, 0);
        if (!cur || strcmp(cur->name, scope) != 0) {
            if (out->nsubjects + 1 >= cap) {
                cap = cap ? 2 * cap : 64;
                out->subjects = xreallocarray(out->subjects, cap, sizeof *out->subjects);
            }
            cur = out->subjects[out->nsubjects++] = reg_subject_new(scope);
        }
        subject_row_apply(cur, res, i);
    }
    PQclear(res);
    if (!out->subjects)
        out->subjects = xcalloc(1, sizeof *out->subjects);
    out->subjects[out->nsubjects] = NULL;
    return STORE_OK;
}

/*
 * One REPEATABLE READ transaction: read apart, a registration committing
 * between the rows and the versions would load a version whose row is not
 * loaded (GET /schemas/ids then 404s for a stored id until the subject is
 * reloaded), or a permanent delete a row no version names.
 */
store_rc_t store_load_all(store_t *db, store_snapshot_t *out)
{
    memset(out, 0, sizeof *out);
    store_rc_t rc = store_query(db, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", 0, NULL, NULL,
                                "starting the load");
    db->in_tx = rc == STORE_OK;
    if (rc == STORE_OK)
        rc = store_load_schemas(db, out);
    if (rc == STORE_OK)
        rc = store_load_subjects(db, out);
    if (rc == STORE_OK)
        rc = store_load_global(db, &out->global_config, &out->global_mode);
    if (rc == STORE_OK)
        rc = store_commit(db);
    if (rc != STORE_OK) {
        if (db->in_tx)
            store_rollback(db);
        store_snapshot_free(out);
    }
    return rc;
}

void store_snapshot_free(store_snapshot_t *snap)
{
    for (size_t i = 0; i < snap->nschemas; i++)
        reg_schema_release(snap->schemas[i]);
    for (size_t i = 0; i < snap->nsubjects; i++)
        reg_subject_free(snap->subjects[i]);
    free(snap->schemas);
    free(snap->subjects);
    json_decref(snap->global_config);
    free(snap->global_mode);
    memset(snap, 0, sizeof *snap);
}

static store_rc_t store_load_scope_settings(store_t *db, const char *scope, json_t **config, char **mode)
{
    const char *p[1] = {scope};
    PGresult *res = NULL;
    *config = NULL;
    *mode = NULL;
    store_rc_t rc = store_query(db,
                                "SELECT (SELECT config::text FROM configs WHERE scope = $1),"
                                " (SELECT mode FROM modes WHERE scope = $1)",
                                1, p, &res, "loading config");
    if (rc != STORE_OK)
        return rc;
    if (!PQgetisnull(res, 0, 0))
        *config = config_from_text(PQgetvalue(res, 0, 0));
    if (!PQgetisnull(res, 0, 1))
        *mode = xstrdup(PQgetvalue(res, 0, 1));
    PQclear(res);
    return STORE_OK;
}

store_rc_t store_load_subject(store_t *db, const char *name, reg_subject_t **out)
{
    const char *p[1] = {name};
    PGresult *res = NULL;
    store_rc_t rc = store_query(db,
                                "SELECT version, schema_id, deleted::int,"
                                " (extract(epoch from created_at) * 1000)::bigint"
                                " FROM subject_versions WHERE subject = $1 ORDER BY version",
                                1, p, &res, "loading a subject");
    if (rc != STORE_OK)
        return rc;
    reg_subject_t *s = reg_subject_new(name);
    for (int i = 0; i < PQntuples(res); i++)
        reg_subject_add_version(s, atoi(PQgetvalue(res, i, 0)), atoi(PQgetvalue(res, i, 1)),
                                atoi(PQgetvalue(res, i, 2)), strtoll(PQgetvalue(res, i, 3), NULL, 10));
    PQclear(res);
    if ((rc = store_load_scope_settings(db, name, &s->config, &s->mode)) != STORE_OK) {
        reg_subject_free(s);
        return rc;
    }
    *out = s;
    return STORE_OK;
}

store_rc_t store_load_global(store_t *db, json_t **config, char **mode)
{
    return store_load_scope_settings(db, "", config, mode);
}

store_rc_t store_cluster_id(store_t *db, char **out)
{
    PGresult *res = NULL;
    store_rc_t rc =
        store_query(db, "SELECT id FROM registry_cluster LIMIT 1", 0, NULL, &res, "reading the cluster id");
    if (rc != STORE_OK)
        return rc;
    *out = xstrdup(PQntuples(res) ? PQgetvalue(res, 0, 0) : "schema-registry");
    PQclear(res);
    return STORE_OK;
}

store_rc_t store_load_schema(store_t *db, const char *context, int id, reg_schema_t **out)
{
    char ids[16];
    snprintf(ids, sizeof ids, "%d", id);
    const char *p[2] = {context, ids};
    PGresult *res = NULL;
    *out = NULL;
    store_rc_t rc = store_query(db, "SELECT " SCHEMA_COLUMNS " FROM schemas WHERE context = $1 AND id = $2",
                                2, p, &res, "loading a schema");
    if (rc != STORE_OK)
        return rc;
    *out = PQntuples(res) ? schema_from_row(res, 0) : NULL;
    PQclear(res);
    return *out ? STORE_OK : STORE_NOT_FOUND;
}

store_rc_t store_subjects_of_schema(store_t *db, const char *context, int id, strlist_t *out)
{
    char ids[16];
    snprintf(ids, sizeof ids, "%d", id);
    const char *p[2] = {context, ids};
    PGresult *res = NULL;
    store_rc_t rc = store_query(db,
                                "SELECT DISTINCT subject FROM subject_versions WHERE context = $1"
                                " AND schema_id = $2",
                                2, p, &res, "finding subjects of a schema");
    if (rc != STORE_OK)
        return rc;
    for (int i = 0; i < PQntuples(res); i++)
        strlist_push(out, PQgetvalue(res, i, 0));
    PQclear(res);
    return STORE_OK;
}

store_rc_t store_references_to(store_t *db, const char *subject, const char *bare, strlist_t *contexts,
                               strlist_t *names)
{
    const char *p[2] = {subject, bare};
    PGresult *res = NULL;
    store_rc_t rc = store_query(
        db,
        "SELECT DISTINCT r.context, r.ref_subject FROM schema_references r"
        " WHERE r.ref_subject IN ($1, ':.:' || $1, $2)"
        "  AND EXISTS (SELECT 1 FROM subject_versions t WHERE t.subject = $1 AND t.version = r.ref_version)"
        "  AND EXISTS (SELECT 1 FROM subject_versions v WHERE v.context = r.context"
        "   AND v.schema_id = r.schema_id)",
        2, p, &res, "finding references to a subject");
    if (rc != STORE_OK)
        return rc;
    for (int i = 0; i < PQntuples(res); i++) {
        strlist_push(contexts, PQgetvalue(res, i, 0));
        strlist_push(names, PQgetvalue(res, i, 1));
    }
    PQclear(res);
    return STORE_OK;
}

/* ---- 4. Writes -------------------------------------------------------------- */

static char *refs_json(const reg_schema_t *s)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < s->nrefs; i++)
        json_array_append_new(arr, json_pack("{s:s, s:s, s:i}", "name", s->refs[i].name, "subject",
                                             s->refs[i].subject, "version", s->refs[i].version));
    char *text = json_dumps(arr, JSON_COMPACT);
    json_decref(arr);
    if (!text)
        base_oom(0);
    return text;
}

/* The row's metadata as stored (migrations/0007), malloc'd; NULL for none (an SQL NULL). */
static char *metadata_text(const reg_schema_t *s)
{
    if (!s->metadata)
        return NULL;
    char *text = json_dumps(s->metadata, JSON_COMPACT);
    if (!text)
        base_oom(0);
    return text;
}

static void key_hex(const unsigned char key[REG_KEY_LEN], char out[2 * REG_KEY_LEN + 1])
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < REG_KEY_LEN; i++) {
        out[2 * i] = hex[key[i] >> 4];
        out[2 * i + 1] = hex[key[i] & 15];
    }
    out[2 * REG_KEY_LEN] = '\0';
}

static store_rc_t store_insert_references(store_t *db, const reg_schema_t *s, int id)
{
    char ids[16], pos[24], ver[16];
    snprintf(ids, sizeof ids, "%d", id);
    for (size_t i = 0; i < s->nrefs; i++) {
        snprintf(pos, sizeof pos, "%zu", i);
        snprintf(ver, sizeof ver, "%d", s->refs[i].version);
        const char *p[6] = {ids, pos, s->refs[i].name, s->refs[i].subject, ver, s->context};
        store_rc_t rc = store_query(db,
                                    "INSERT INTO schema_references (schema_id, position, name, ref_subject,"
                                    " ref_version, context) VALUES ($1, $2, $3, $4, $5, $6)"
                                    " ON CONFLICT DO NOTHING",
                                    6, p, NULL, "storing references");
        if (rc != STORE_OK)
            return rc;
    }
    return STORE_OK;
}

store_rc_t store_schema_find(store_t *db, const char *context, schema_type_t type,
                             const unsigned char key[REG_KEY_LEN], int *id)
{
    char hex[2 * REG_KEY_LEN + 1];
    key_hex(key, hex);
    const char *p[3] = {schema_type_name(type), hex, context};
    PGresult *res = NULL;
    *id = 0;
    store_rc_t rc =
        store_query(db,
                    "SELECT id FROM schemas WHERE schema_type = $1 AND identity_key = decode($2, 'hex')"
                    " AND canonical AND context = $3",
                    3, p, &res, "finding a schema");
    if (rc != STORE_OK)
        return rc;
    int found = PQntuples(res) == 1;
    if (found)
        *id = atoi(PQgetvalue(res, 0, 0));
    PQclear(res);
    return found ? STORE_OK : STORE_NOT_FOUND;
}

/*
 * Serializes, until the transaction ends, the writers that create a row for
 * one content: the import that moves the canonical mark (store_schema_import)
 * against an upsert inserting the first canonical row. Without it, an import
 * that does not yet see an uncommitted canonical row would then fail on the
 * partial unique index. Two-key advisory locks are a separate space from
 * store_lock_scope's one-key locks; a hash collision only serializes two
 * contents.
 */
static store_rc_t store_lock_content(store_t *db, schema_type_t type, const char *hex)
{
    const char *p[2] = {schema_type_name(type), hex};
    return store_query(db, "SELECT pg_advisory_xact_lock(11, hashtext($1 || ':' || $2))", 2, p, NULL,
                       "locking the schema content");
}

store_rc_t store_schema_upsert(store_t *db, const reg_schema_t *s, int *id)
{
    /* Look first: the INSERT below draws a sequence value even when it conflicts,
     * and ids should not jump for content that already exists. */
    store_rc_t rc = store_schema_find(db, s->context, s->type, s->key, id);
    if (rc != STORE_NOT_FOUND)
        return rc;
    char hex[2 * REG_KEY_LEN + 1];
    key_hex(s->key, hex);
    if ((rc = store_lock_content(db, s->type, hex)) != STORE_OK)
        return rc;
    char *refs = refs_json(s);
    char *metadata = metadata_text(s);
    const char *p[6] = {schema_type_name(s->type), s->text, hex, refs, s->context, metadata};
    PGresult *res = NULL;
    /* Concurrent inserts of the same content wait (on the content lock, then
     * on the partial unique index of canonical rows) and then see the
     * winner's row: one id, no global lock. */
    rc = store_query(
        db,
        "INSERT INTO schemas (context, id, schema_type, schema_text, identity_key, refs, canonical, metadata)"
        " VALUES ($5, sr_next_id($5), $1, $2, decode($3, 'hex'), $4::jsonb, true, $6)"
        " ON CONFLICT (context, schema_type, identity_key) WHERE canonical DO NOTHING RETURNING id",
        6, p, &res, "storing a schema");
    free(refs);
    free(metadata);
    if (rc != STORE_OK)
        return rc;
    if (PQntuples(res) == 1) {
        *id = atoi(PQgetvalue(res, 0, 0));
        PQclear(res);
        return store_insert_references(db, s, *id);
    }
    PQclear(res);
    rc = store_schema_find(db, s->context, s->type, s->key, id);
    return rc == STORE_NOT_FOUND ? store_fail_with(db, STORE_ERROR, "finding a schema", "row vanished") : rc;
}

char *store_versions_text(const reg_subject_t *subj)
{
    strbuf_t b = {0};
    for (size_t i = 0; i < subj->n; i++)
        strbuf_printf(&b, "%s%d:%d:%d", i ? "," : "", subj->v[i].version, subj->v[i].schema_id,
                      subj->v[i].deleted ? 1 : 0);
    char *text = strbuf_take(&b);
    if (!text)
        base_oom(0); /* the error contract: allocation failure aborts */
    return text;
}

/*
 * The group statement's argument, written as text directly: building it as
 * jansson objects and dumping them was a quarter of the registry's
 * instructions per registration, on the one thread every group waits for
 * (docs/performance.md, "New registrations: one backend for every group, ...").
 * Each append's object is rendered by its own registering thread
 * (store_append_text), so the leader only joins them. The shape is
 * migrations/0015's: one object per append,
 * {"subject","expect","type","text","key","refs"[,"metadata"][,"audit"]},
 * the audit object as sr_audit takes it (audit_text; the statement fills in
 * the version and id).
 */

/* A JSON string as jansson writes it (RFC 8259; no ASCII-only escaping):
 * the quote, the backslash and control characters escaped, other bytes as
 * they are. len bytes: a schema text may hold NUL (reg_request_t.schema_len). */
static void json_put_string(strbuf_t *b, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    strbuf_putc(b, '"');
    size_t run = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        strbuf_put(b, s + run, i - run);
        run = i + 1;
        switch (c) {
        case '"': strbuf_put(b, "\\\"", 2); break;
        case '\\': strbuf_put(b, "\\\\", 2); break;
        case '\b': strbuf_put(b, "\\b", 2); break;
        case '\f': strbuf_put(b, "\\f", 2); break;
        case '\n': strbuf_put(b, "\\n", 2); break;
        case '\r': strbuf_put(b, "\\r", 2); break;
        case '\t': strbuf_put(b, "\\t", 2); break;
        default: {
            char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            strbuf_put(b, u, sizeof u);
        }
        }
    }
    strbuf_put(b, s + run, len - run);
    strbuf_putc(b, '"');
}

/* ,"key":"value"; nothing when value is NULL. */
static void json_put_field(strbuf_t *b, const char *key, const char *value)
{
    if (!value)
        return;
    strbuf_printf(b, ",\"%s\":", key);
    json_put_string(b, value, strlen(value));
}

/* ,"key":n; nothing when n is 0. */
static void json_put_int(strbuf_t *b, const char *key, int n)
{
    if (n)
        strbuf_printf(b, ",\"%s\":%d", key, n);
}

/* ,"key":<value as JSON>; nothing when value is NULL. */
static void json_put_json(strbuf_t *b, const char *key, const json_t *value)
{
    if (!value)
        return;
    char *text = json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY);
    if (!text)
        base_oom(0);
    strbuf_printf(b, ",\"%s\":%s", key, text);
    free(text);
}

/* sr_audit's argument (migrations/0009): one object of the fields it reads. */
static void audit_text(strbuf_t *b, const store_actor_t *who, const store_audit_t *a)
{
    strbuf_printf(b, "{\"outcome\":\"%s\"", a->refused ? "refused" : "ok");
    json_put_int(b, "status", a->refused ? a->status : 200);
    if (who) {
        json_put_field(b, "principal", who->principal);
        json_put_field(b, "remote", who->remote);
        json_put_field(b, "request_id", who->request_id);
    }
    json_put_field(b, "action", a->action);
    json_put_field(b, "subject", a->subject);
    json_put_int(b, "version", a->version);
    json_put_int(b, "id", a->schema_id);
    if (a->permanent >= 0)
        strbuf_puts(b, a->permanent ? ",\"permanent\":true" : ",\"permanent\":false");
    json_put_int(b, "error_code", a->error_code);
    json_put_field(b, "message", a->message);
    json_put_json(b, "messages", a->messages);
    json_put_json(b, "details", a->details);
    strbuf_putc(b, '}');
}

char *store_append_text(const store_t *db, const store_append_rows_t *rows)
{
    const reg_schema_t *row = rows->row;
    char hex[2 * REG_KEY_LEN + 1];
    key_hex(row->key, hex);
    strbuf_t b = {0};
    strbuf_puts(&b, "{\"subject\":");
    json_put_string(&b, rows->subject, strlen(rows->subject));
    json_put_field(&b, "expect", rows->expect);
    json_put_field(&b, "type", schema_type_name(row->type));
    strbuf_puts(&b, ",\"text\":");
    json_put_string(&b, row->text, row->text_len);
    strbuf_printf(&b, ",\"key\":\"%s\",\"refs\":[", hex);
    for (size_t i = 0; i < row->nrefs; i++) {
        strbuf_puts(&b, i ? ",{\"name\":" : "{\"name\":");
        json_put_string(&b, row->refs[i].name, strlen(row->refs[i].name));
        json_put_field(&b, "subject", row->refs[i].subject);
        strbuf_printf(&b, ",\"version\":%d}", row->refs[i].version);
    }
    strbuf_putc(&b, ']');
    /* A string of the text as stored, absent for none: the statement reads it
     * with ->> (hence an SQL NULL), which would render an object as jsonb does. */
    char *metadata = metadata_text(row);
    json_put_field(&b, "metadata", metadata);
    free(metadata);
    if (rows->audit_action) {
        store_audit_t audit = {.action = rows->audit_action,
                               .subject = rows->subject,
                               .permanent = -1,
                               .details = rows->audit_details};
        strbuf_puts(&b, ",\"audit\":");
        audit_text(&b, &db->actor, &audit);
    }
    strbuf_putc(&b, '}');
    char *text = strbuf_take(&b);
    if (!text)
        base_oom(0); /* the error contract: allocation failure aborts */
    return text;
}

store_rc_t store_register_append(store_t *db, store_append_t *items, size_t n)
{
    strbuf_t b = {0};
    strbuf_putc(&b, '[');
    for (size_t i = 0; i < n; i++) {
        items[i].applied = 0;
        if (i)
            strbuf_putc(&b, ',');
        strbuf_puts(&b, items[i].text);
    }
    strbuf_putc(&b, ']');
    char *text = strbuf_take(&b);
    if (!text)
        base_oom(0); /* the error contract: allocation failure aborts */
    char fence[24];
    snprintf(fence, sizeof fence, "%lld", (long long)(n ? items[0].fence : 0));
    const char *p[2] = {text, fence};
    PGresult *res = NULL;
    /* The fence inside the call (migrations/0013): its timeline is read first
     * by the backend that runs the appends, in their transaction; on another
     * timeline nothing is written, and the one row returned names the timeline read. */
    store_rc_t rc = store_query(db,
                                "SELECT o_timeline, o_ord, o_id, o_version, o_ts, o_new, o_seq"
                                " FROM sr_register_append_fenced($1::jsonb, $2::bigint)",
                                2, p, &res, "registering a schema");
    free(text);
    if (rc != STORE_OK)
        return rc;
    int64_t want = n ? items[0].fence : 0;
    int64_t timeline = PQntuples(res) > 0 ? strtoll(PQgetvalue(res, 0, 0), NULL, 10) : -1;
    if (want > 0 && timeline != want) {
        PQclear(res);
        int64_t was = db->fence;
        db->fence = want; /* the message names the items' fence */
        rc = store_wrong_timeline(db, timeline);
        db->fence = was;
        return rc;
    }
    for (int r = 0; r < PQntuples(res); r++) {
        if (PQgetisnull(res, r, 1))
            continue; /* the LEFT JOIN's row when nothing applied */
        long ord = strtol(PQgetvalue(res, r, 1), NULL, 10);
        if (ord < 0 || (size_t)ord >= n)
            continue;
        store_append_t *a = &items[ord];
        a->applied = 1;
        a->id = atoi(PQgetvalue(res, r, 2));
        a->version = atoi(PQgetvalue(res, r, 3));
        a->ts_ms = strtoll(PQgetvalue(res, r, 4), NULL, 10);
        a->inserted = PQgetvalue(res, r, 5)[0] == 't';
        a->change_seq = strtoll(PQgetvalue(res, r, 6), NULL, 10);
    }
    PQclear(res);
    return STORE_OK;
}

store_rc_t store_schema_import(store_t *db, const reg_schema_t *s)
{
    char hex[2 * REG_KEY_LEN + 1], ids[16];
    key_hex(s->key, hex);
    snprintf(ids, sizeof ids, "%d", s->id);
    /* The content's newest id becomes its canonical one (migrations/0004). */
    store_rc_t rc = store_lock_content(db, s->type, hex);
    const char *k[3] = {schema_type_name(s->type), hex, s->context};
    if (rc == STORE_OK)
        rc = store_query(db,
                         "UPDATE schemas SET canonical = false WHERE schema_type = $1"
                         " AND identity_key = decode($2, 'hex') AND canonical AND context = $3",
                         3, k, NULL, "importing a schema");
    if (rc != STORE_OK)
        return rc;
    char *refs = refs_json(s);
    char *metadata = metadata_text(s);
    const char *p[7] = {ids, schema_type_name(s->type), s->text, hex, refs, s->context, metadata};
    rc = store_query(
        db,
        "INSERT INTO schemas (id, schema_type, schema_text, identity_key, refs, canonical, context, metadata)"
        " VALUES ($1, $2, $3, decode($4, 'hex'), $5::jsonb, true, $6, $7)",
        7, p, NULL, "importing a schema");
    free(refs);
    free(metadata);
    if (rc == STORE_OK)
        rc = store_insert_references(db, s, s->id);
    if (rc != STORE_OK)
        return rc;
    /* Ids allocated later must stay above imported ones. */
    const char *q[2] = {s->context, ids};
    return store_query(db, "SELECT sr_raise_id($1, $2::int)", 2, q, NULL, "raising the id sequence");
}

static store_rc_t store_version_stmt(store_t *db, const char *sql, const char *subject, int version,
                                     int schema_id, const char *what)
{
    char v[16], id[16];
    snprintf(v, sizeof v, "%d", version);
    snprintf(id, sizeof id, "%d", schema_id);
    const char *p[3] = {subject, v, id};
    return store_query(db, sql, schema_id ? 3 : 2, p, NULL, what);
}

store_rc_t store_version_insert(store_t *db, const char *subject, int version, int schema_id)
{
    return store_version_stmt(db,
                              "INSERT INTO subject_versions (subject, version, schema_id)"
                              " VALUES ($1, $2, $3) ON CONFLICT (subject, version) DO UPDATE"
                              " SET schema_id = EXCLUDED.schema_id, deleted = false, created_at = now()",
                              subject, version, schema_id, "storing a version");
}

store_rc_t store_version_soft_delete(store_t *db, const char *subject, int version)
{
    return store_version_stmt(db,
                              "UPDATE subject_versions SET deleted = true"
                              " WHERE subject = $1 AND version = $2",
                              subject, version, 0, "deleting a version");
}

store_rc_t store_version_hard_delete(store_t *db, const char *subject, int version)
{
    return store_version_stmt(db, "DELETE FROM subject_versions WHERE subject = $1 AND version = $2", subject,
                              version, 0, "deleting a version");
}

store_rc_t store_config_set(store_t *db, const char *scope, const json_t *config)
{
    if (!config) {
        const char *p[1] = {scope};
        return store_query(db, "DELETE FROM configs WHERE scope = $1", 1, p, NULL, "deleting config");
    }
    char *text = json_dumps(config, JSON_COMPACT);
    if (!text)
        base_oom(0);
    const char *p[2] = {scope, text};
    store_rc_t rc = store_query(db,
                                "INSERT INTO configs (scope, config) VALUES ($1, $2::jsonb)"
                                " ON CONFLICT (scope) DO UPDATE SET config = EXCLUDED.config",
                                2, p, NULL, "storing config");
    free(text);
    return rc;
}

store_rc_t store_mode_set(store_t *db, const char *scope, const char *mode)
{
    const char *p[2] = {scope, mode};
    if (!mode)
        return store_query(db, "DELETE FROM modes WHERE scope = $1", 1, p, NULL, "deleting mode");
    return store_query(db,
                       "INSERT INTO modes (scope, mode) VALUES ($1, $2)"
                       " ON CONFLICT (scope) DO UPDATE SET mode = EXCLUDED.mode",
                       2, p, NULL, "storing mode");
}

/* ---- 5. The change feed -------------------------------------------------- */

store_rc_t store_change(store_t *db, const char *scope)
{
    const char *p[1] = {scope};
    return store_query(db, "INSERT INTO changes (scope) VALUES ($1)", 1, p, NULL, "recording a change");
}

/* The first column of a one-value query as an integer; 0 when it returns no row. */
static store_rc_t store_query_int64(store_t *db, const char *sql, int n, const char *const *params,
                                    const char *what, int64_t *out)
{
    PGresult *res = NULL;
    store_rc_t rc = store_query(db, sql, n, params, &res, what);
    if (rc != STORE_OK)
        return rc;
    *out = PQntuples(res) > 0 ? strtoll(PQgetvalue(res, 0, 0), NULL, 10) : 0;
    PQclear(res);
    return STORE_OK;
}

store_rc_t store_last_change(store_t *db, int64_t *seq)
{
    return store_query_int64(db, "SELECT coalesce(max(seq), 0) FROM changes", 0, NULL,
                             "reading the change feed", seq);
}

store_rc_t store_settled_change(store_t *db, int settle_ms, int64_t *seq)
{
    char ms[16];
    snprintf(ms, sizeof ms, "%d", settle_ms);
    const char *p[1] = {ms};
    /* max(seq) under a condition: a backward scan of the key from the end,
     * through the last settle_ms of changes only. */
    return store_query_int64(db,
                             "SELECT greatest((SELECT pruned_upto FROM changes_horizon),"
                             " (SELECT coalesce(max(seq), 0) FROM changes"
                             "  WHERE at <= clock_timestamp() - make_interval(secs => $1::float8 / 1000)))",
                             1, p, "reading the change feed", seq);
}

store_rc_t store_wal_position(store_t *db, int64_t *timeline, int64_t *out)
{
    PGresult *res = NULL;
    store_rc_t rc = store_query(db,
                                "SELECT CASE WHEN pg_is_in_recovery() THEN (" STORE_DATABASE_EXPR
                                " << 32) | (SELECT timeline_id FROM pg_control_checkpoint())::bigint "
                                "ELSE " STORE_TIMELINE_EXPR " END, "
                                "coalesce((CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() "
                                "ELSE pg_current_wal_insert_lsn() END - '0/0'::pg_lsn)::bigint, -1)",
                                0, NULL, &res, "reading the WAL position");
    if (rc != STORE_OK)
        return rc;
    *timeline = PQntuples(res) > 0 ? strtoll(PQgetvalue(res, 0, 0), NULL, 10) : -1;
    *out = PQntuples(res) > 0 ? strtoll(PQgetvalue(res, 0, 1), NULL, 10) : -1;
    PQclear(res);
    return STORE_OK;
}

store_rc_t store_timeline(store_t *db, int64_t *out)
{
    return store_query_int64(db, STORE_TIMELINE_SQL, 0, NULL, "reading the server's timeline", out);
}

/* Straight on the connection: store_query would reset a broken one, and a
 * reset notes the timeline itself. -1 when the connection died under the
 * query: a server shutting down accepts a connection and ends it at once
 * ("terminating connection due to administrator command"). Such a connection
 * must not count as open: its timeline, unknown, would make the first reset
 * after the restart look like a failover (store_exec_retrying). */
static int store_note_timeline(store_t *db)
{
    PGresult *res = PQexec(db->conn, STORE_TIMELINE_SQL);
    db->timeline = PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1
                       ? strtoll(PQgetvalue(res, 0, 0), NULL, 10)
                       : -1;
    PQclear(res);
    return PQstatus(db->conn) == CONNECTION_OK ? 0 : -1;
}

int64_t store_connected_timeline(const store_t *db)
{
    return db->timeline;
}

/* Rows (seq, scope) of a changes query into *seqs (malloc'd) and scopes. */
static store_rc_t store_changes_rows(store_t *db, const char *sql, int n, const char *const *params,
                                     int64_t **seqs, strlist_t *scopes)
{
    PGresult *res = NULL;
    *seqs = NULL;
    store_rc_t rc = store_query(db, sql, n, params, &res, "reading the change feed");
    if (rc != STORE_OK)
        return rc;
    int rows = PQntuples(res);
    *seqs = xcalloc((size_t)rows + 1, sizeof **seqs);
    for (int i = 0; i < rows; i++) {
        (*seqs)[i] = strtoll(PQgetvalue(res, i, 0), NULL, 10);
        strlist_push(scopes, PQgetvalue(res, i, 1));
    }
    PQclear(res);
    return STORE_OK;
}

store_rc_t store_changes_since(store_t *db, int64_t after, int limit, int64_t **seqs, strlist_t *scopes)
{
    char a[32], l[16];
    snprintf(a, sizeof a, "%lld", (long long)after);
    snprintf(l, sizeof l, "%d", limit);
    const char *p[2] = {a, l};
    return store_changes_rows(db, "SELECT seq, scope FROM changes WHERE seq > $1 ORDER BY seq LIMIT $2", 2, p,
                              seqs, scopes);
}

store_rc_t store_changes_among(store_t *db, const int64_t *wanted, size_t n, int64_t **seqs,
                               strlist_t *scopes)
{
    /* One array parameter, "{1,2,3}": 21 bytes per number at most. */
    char *list = xmalloc(n * 21 + 3), *at = list;
    *at++ = '{';
    for (size_t i = 0; i < n; i++)
        at += sprintf(at, "%s%lld", i ? "," : "", (long long)wanted[i]);
    strcpy(at, "}");
    const char *p[1] = {list};
    store_rc_t rc = store_changes_rows(
        db, "SELECT seq, scope FROM changes WHERE seq = ANY ($1::bigint[]) ORDER BY seq", 1, p, seqs, scopes);
    free(list);
    return rc;
}

store_rc_t store_changes_prune(store_t *db, int retention_s)
{
    char r[32];
    snprintf(r, sizeof r, "%d", retention_s);
    const char *p[1] = {r};
    /* One statement: the delete and the horizon move together or not at all. */
    return store_query(db,
                       "WITH gone AS (DELETE FROM changes WHERE seq < (SELECT max(seq) FROM changes) "
                       "  AND at < now() - make_interval(secs => $1::int) RETURNING seq) "
                       "UPDATE changes_horizon SET pruned_upto = greatest(pruned_upto, "
                       "  (SELECT coalesce(max(seq), 0) FROM gone))",
                       1, p, NULL, "pruning the change feed");
}

store_rc_t store_changes_pruned_upto(store_t *db, int64_t *seq)
{
    return store_query_int64(db, "SELECT pruned_upto FROM changes_horizon", 0, NULL,
                             "reading the change feed's horizon", seq);
}

/* ---- 6. The audit trail ------------------------------------------------------ */

static void actor_field_set(char **field, const char *value)
{
    free(*field);
    *field = value ? xstrdup(value) : NULL;
}

void store_set_actor(store_t *db, const char *principal, const char *remote, const char *request_id)
{
    actor_field_set(&db->actor.principal, principal);
    actor_field_set(&db->actor.remote, remote);
    actor_field_set(&db->actor.request_id, request_id);
}

store_rc_t store_audit_insert(store_t *db, const store_audit_t *a)
{
    strbuf_t b = {0};
    audit_text(&b, &db->actor, a);
    char *text = strbuf_take(&b);
    if (!text)
        base_oom(0);
    const char *p[1] = {text};
    store_rc_t rc = store_query(db, "SELECT sr_audit($1::jsonb)", 1, p, NULL, "writing the audit trail");
    free(text);
    return rc;
}

store_rc_t store_audit_list(store_t *db, const store_audit_query_t *q, json_t **out)
{
    char since[32], until[32], off[16], lim[16];
    snprintf(since, sizeof since, "%lld", (long long)q->since_us);
    snprintf(until, sizeof until, "%lld", (long long)q->until_us);
    snprintf(off, sizeof off, "%d", q->offset);
    snprintf(lim, sizeof lim, "%d", q->limit);
    const char *p[7] = {
        q->subject, q->principal, q->action, q->has_since ? since : NULL, q->has_until ? until : NULL,
        off,        lim};
    /* Each filter is "off" when its parameter is NULL; times in RFC 3339 UTC
     * with microseconds, as they were given. */
    return store_query_json(
        db,
        "SELECT coalesce(jsonb_agg(r ORDER BY r.id DESC), '[]')::text FROM ("
        " SELECT a.id, to_char(a.at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.US\"Z\"') AS at,"
        "  a.principal, a.remote, a.request_id AS \"requestId\", a.action, a.subject, a.version,"
        "  a.schema_id AS \"schemaId\", a.permanent, a.outcome, a.status, a.error_code AS \"errorCode\","
        "  a.message, a.messages, a.details"
        " FROM audit_log a"
        " WHERE ($1::text IS NULL OR a.subject = $1) AND ($2::text IS NULL OR a.principal = $2)"
        "  AND ($3::text IS NULL OR a.action = $3)"
        "  AND ($4::bigint IS NULL OR a.at >= timestamptz 'epoch' + $4::bigint * interval '1 microsecond')"
        "  AND ($5::bigint IS NULL OR a.at <= timestamptz 'epoch' + $5::bigint * interval '1 microsecond')"
        " ORDER BY a.id DESC OFFSET $6::int LIMIT $7::int) r",
        7, p, "[]", "reading the audit trail", out);
}

store_rc_t store_version_audit(store_t *db, const char *subject, json_t **out)
{
    const char *p[1] = {subject};
    return store_query_json(
        db,
        "SELECT coalesce(jsonb_object_agg(r.version || ':' || r.schema_id, jsonb_build_object("
        "  'principal', r.principal, 'action', r.action, 'summary', r.details->'summary')), '{}')::text"
        " FROM (SELECT DISTINCT ON (version, schema_id) version, schema_id, principal, action, details"
        "  FROM audit_log WHERE subject = $1 AND outcome = 'ok' AND version IS NOT NULL"
        "   AND schema_id IS NOT NULL AND (action IN ('register', 'import')"
        "    OR (action = 'rollback' AND details->>'mode' = 'register'))"
        "  ORDER BY version, schema_id, id DESC) r",
        1, p, "{}", "reading the audit trail", out);
}

/* ---- 7. Associations ------------------------------------------------------------- */

store_rc_t store_assoc_list(store_t *db, const store_assoc_query_t *q, json_t **out)
{
    /* The association types travel as one JSON array parameter. */
    json_t *types = json_array();
    for (size_t i = 0; q->types && i < q->types->n; i++)
        json_array_append_new(types, json_string(q->types->items[i]));
    char *types_text = json_dumps(types, JSON_COMPACT);
    json_decref(types);
    const char *ns =
        q->resource_namespace && strcmp(q->resource_namespace, "-") != 0 ? q->resource_namespace : NULL;
    const char *p[7] = {q->subject,       q->resource_id, q->resource_name, ns,
                        q->resource_type, types_text,     q->lifecycle};
    store_rc_t rc = store_query_json(
        db,
        "SELECT coalesce(jsonb_agg(jsonb_strip_nulls(jsonb_build_object("
        "  'subject', a.subject, 'guid', a.guid, 'resourceName', a.resource_name,"
        "  'resourceNamespace', a.resource_namespace, 'resourceId', a.resource_id,"
        "  'resourceType', a.resource_type, 'associationType', a.association_type,"
        "  'lifecycle', a.lifecycle,"
        "  'frozen', CASE WHEN a.frozen <> (a.lifecycle = 'STRONG') THEN a.frozen END,"
        "  'createTimestamp', a.created_ms, 'updateTimestamp', a.updated_ms))"
        "  ORDER BY a.resource_name COLLATE \"C\", a.resource_namespace COLLATE \"C\","
        "   a.resource_type COLLATE \"C\", a.association_type COLLATE \"C\", a.subject COLLATE \"C\"),"
        " '[]')::text FROM associations a"
        " WHERE ($1::text IS NULL OR a.subject = $1) AND ($2::text IS NULL OR a.resource_id = $2)"
        "  AND ($3::text IS NULL OR a.resource_name = $3) AND ($4::text IS NULL OR a.resource_namespace = $4)"
        "  AND ($5::text IS NULL OR a.resource_type = $5)"
        "  AND (jsonb_array_length($6::jsonb) = 0 OR $6::jsonb ? a.association_type)"
        "  AND ($7::text IS NULL OR a.lifecycle = $7)",
        7, p, "[]", "reading associations", out);
    free(types_text);
    return rc;
}

store_rc_t store_assoc_put(store_t *db, const store_assoc_t *a)
{
    const char *p[8] = {
        a->resource_id,        a->resource_type, a->association_type, a->resource_name,
        a->resource_namespace, a->subject,       a->lifecycle,        a->frozen ? "true" : "false"};
    return store_query(
        db,
        "INSERT INTO associations (resource_id, resource_type, association_type, resource_name,"
        " resource_namespace, subject, guid, lifecycle, frozen, created_ms, updated_ms)"
        " VALUES ($1, $2, $3, $4, $5, $6, gen_random_uuid()::text, $7, $8::boolean,"
        "  (extract(epoch FROM clock_timestamp()) * 1000)::bigint,"
        "  (extract(epoch FROM clock_timestamp()) * 1000)::bigint)"
        " ON CONFLICT (resource_id, resource_type, association_type) DO UPDATE"
        " SET subject = EXCLUDED.subject, lifecycle = EXCLUDED.lifecycle,"
        "  frozen = EXCLUDED.frozen, updated_ms = EXCLUDED.updated_ms",
        8, p, NULL, "writing an association");
}

store_rc_t store_assoc_delete(store_t *db, const char *resource_id, const char *resource_type,
                              const char *association_type)
{
    const char *p[3] = {resource_id, resource_type, association_type};
    return store_query(db,
                       "DELETE FROM associations WHERE resource_id = $1 AND resource_type = $2"
                       " AND association_type = $3",
                       3, p, NULL, "deleting an association");
}
