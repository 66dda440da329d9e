/*
 * registry: lifecycle, migrations, reloading scopes into the index, the
 * change feed between nodes, reference resolution and the parsed-model cache.
 */
#include "registry/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "registry/migrations.h"

/* ---- Migrations ---------------------------------------------------------- */

/* Session-level advisory lock: several nodes starting together migrate once. */
#define MIGRATION_LOCK_SQL "SELECT pg_advisory_lock(4242001)"
#define MIGRATION_UNLOCK_SQL "SELECT pg_advisory_unlock(4242001)"

static int migration_apply(store_t *db, const registry_migration_t *m, reg_error_t *err)
{
    int applied;
    /* Checked under the lock, so a node that waited sees the others' work. */
    if (store_migration_applied(db, m->name, &applied, err) != 0)
        return -1;
    if (applied)
        return 0;
    if (store_begin(db, err) != 0)
        return -1;
    if (store_exec_script(db, m->sql, err) != 0 || store_migration_record(db, m->name, err) != 0 ||
        store_commit(db, err) != 0) {
        store_rollback(db);
        return -1;
    }
    return 0;
}

int registry_migrate(store_t *db, char **error)
{
    reg_error_t err = {0};
    int rc = store_exec_script(db, MIGRATION_LOCK_SQL, &err);
    if (rc == 0)
        rc = store_exec_script(db,
                               "CREATE TABLE IF NOT EXISTS schema_migrations ("
                               " name text PRIMARY KEY,"
                               " applied_at timestamptz NOT NULL DEFAULT now())",
                               &err);
    /* Names are compiled in (migrations/ file names), never request data. */
    for (size_t i = 0; rc == 0 && i < registry_migration_count; i++)
        rc = migration_apply(db, &registry_migrations[i], &err);
    reg_error_t ignored;
    store_exec_script(db, MIGRATION_UNLOCK_SQL, &ignored);
    if (rc != 0 && error)
        *error = strdup(err.message[0] ? err.message : "migration failed");
    return rc;
}

/* ---- Reloading scopes ---------------------------------------------------- */

static pthread_mutex_t *reload_lock(registry_t *reg, const char *scope)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)scope; *p; p++)
        h = (h ^ *p) * 16777619u;
    return &reg->reload_locks[h % RELOAD_STRIPES];
}

static int reload_scope_locked(registry_t *reg, store_t *db, const char *scope, reg_error_t *err)
{
    if (!*scope) {
        json_t *config;
        char *mode;
        if (store_load_global(db, &config, &mode, err) != 0)
            return -1;
        pthread_rwlock_wrlock(&reg->idx.lock);
        index_publish_global(&reg->idx, config, mode);
        pthread_rwlock_unlock(&reg->idx.lock);
        return 0;
    }
    reg_subject_t *fresh;
    if (store_load_subject(db, scope, &fresh, err) != 0)
        return -1;
    /* Schema rows this node has not seen yet (written by another node). */
    for (size_t i = 0; i < fresh->n; i++) {
        pthread_rwlock_rdlock(&reg->idx.lock);
        int known = index_schema(&reg->idx, fresh->v[i].schema_id) != NULL;
        pthread_rwlock_unlock(&reg->idx.lock);
        if (known)
            continue;
        reg_schema_t *s;
        if (store_load_schema(db, fresh->v[i].schema_id, &s, err) != 0) {
            reg_subject_free(fresh);
            return -1;
        }
        if (s) {
            pthread_rwlock_wrlock(&reg->idx.lock);
            index_add_schema(&reg->idx, s);
            pthread_rwlock_unlock(&reg->idx.lock);
        }
    }
    pthread_rwlock_wrlock(&reg->idx.lock);
    index_publish_subject(&reg->idx, fresh);
    pthread_rwlock_unlock(&reg->idx.lock);
    return 0;
}

int registry_reload_scope(registry_t *reg, store_t *db, const char *scope, reg_error_t *err)
{
    pthread_mutex_t *lock = reload_lock(reg, scope);
    pthread_mutex_lock(lock);
    int rc = reload_scope_locked(reg, db, scope, err);
    pthread_mutex_unlock(lock);
    return rc;
}

/* ---- The change feed ---------------------------------------------------- */

/* A sequence number can commit after a higher one; a gap is waited for this
 * long before it is taken to be a rolled-back transaction. */
#define FEED_GAP_WAIT_MS 5000

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reloads the scopes changed after *seq; advances *seq past what is settled.
 * Returns -1 when the database could not be read (the caller reconnects). */
static int feed_poll(registry_t *reg, store_t *db, int64_t *seq, int64_t *gap_since)
{
    reg_error_t err;
    int64_t *seqs = NULL;
    strlist_t scopes = {0};
    int n = store_changes_since(db, *seq, 1000, &seqs, &scopes, &err);
    if (n < 0)
        return -1;
    int64_t settled = *seq;
    int gap = 0;
    for (int i = 0; i < n; i++) {
        if (registry_reload_scope(reg, db, scopes.items[i], &err) != 0)
            break;
        if (!gap && seqs[i] == settled + 1)
            settled = seqs[i];
        else
            gap = 1;
    }
    if (gap && !*gap_since)
        *gap_since = now_ms();
    if (gap && now_ms() - *gap_since > FEED_GAP_WAIT_MS && n > 0) {
        settled = seqs[n - 1];
        gap = 0;
    }
    if (!gap)
        *gap_since = 0;
    *seq = settled;
    free(seqs);
    strlist_clear(&scopes);
    return 0;
}

static void *feed_main(void *arg)
{
    registry_t *reg = arg;
    store_t *db = NULL;
    int64_t seq = reg->feed_start, gap_since = 0;
    while (!__atomic_load_n(&reg->feed_stop, __ATOMIC_ACQUIRE)) {
        if (!db)
            db = store_open(reg->conninfo, NULL);
        if (db && feed_poll(reg, db, &seq, &gap_since) != 0) {
            store_close(db);
            db = NULL;
        }
        pthread_mutex_lock(&reg->feed_lock);
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        int64_t ns = until.tv_nsec + (int64_t)reg->opts.feed_interval_ms * 1000000;
        until.tv_sec += ns / 1000000000;
        until.tv_nsec = ns % 1000000000;
        if (!__atomic_load_n(&reg->feed_stop, __ATOMIC_ACQUIRE))
            pthread_cond_timedwait(&reg->feed_wake, &reg->feed_lock, &until);
        pthread_mutex_unlock(&reg->feed_lock);
    }
    store_close(db);
    return NULL;
}

/* ---- Lifecycle ------------------------------------------------------------ */

registry_t *registry_new(const registry_options_t *opts, store_t *db, char **error)
{
    registry_t *reg = calloc(1, sizeof *reg);
    if (!reg)
        return NULL;
    reg->opts = *opts;
    reg->conninfo = strdup(opts->conninfo ? opts->conninfo : "");
    reg->opts.conninfo = reg->conninfo;
    index_init(&reg->idx);
    pthread_mutex_init(&reg->cache_lock, NULL);
    for (int i = 0; i < RELOAD_STRIPES; i++)
        pthread_mutex_init(&reg->reload_locks[i], NULL);
    pthread_mutex_init(&reg->feed_lock, NULL);
    pthread_cond_init(&reg->feed_wake, NULL);

    reg_error_t err;
    /* The feed starts from the change log's end as it was BEFORE the load:
     * a write landing during the load is then replayed, never missed. */
    int rc = store_last_change(db, &reg->feed_start, &err);
    if (rc == 0)
        rc = store_cluster_id(db, &reg->cluster_id, &err);
    pthread_rwlock_wrlock(&reg->idx.lock);
    if (rc == 0)
        rc = store_load_all(db, &reg->idx, &err);
    pthread_rwlock_unlock(&reg->idx.lock);
    if (rc != 0) {
        if (error)
            *error = strdup(err.message);
        registry_free(reg);
        return NULL;
    }
    if (opts->feed_interval_ms > 0 && opts->conninfo &&
        pthread_create(&reg->feed_thread, NULL, feed_main, reg) == 0)
        reg->feed_started = 1;
    return reg;
}

void registry_free(registry_t *reg)
{
    if (!reg)
        return;
    if (reg->feed_started) {
        pthread_mutex_lock(&reg->feed_lock);
        __atomic_store_n(&reg->feed_stop, 1, __ATOMIC_RELEASE);
        pthread_cond_signal(&reg->feed_wake);
        pthread_mutex_unlock(&reg->feed_lock);
        pthread_join(reg->feed_thread, NULL);
    }
    for (size_t i = 0; i < reg->request_cache.cap; i++)
        if (hmap_live(&reg->request_cache, i))
            free(reg->request_cache.slots[i].value);
    hmap_clear(&reg->request_cache);
    index_destroy(&reg->idx);
    pthread_mutex_destroy(&reg->cache_lock);
    for (int i = 0; i < RELOAD_STRIPES; i++)
        pthread_mutex_destroy(&reg->reload_locks[i]);
    pthread_mutex_destroy(&reg->feed_lock);
    pthread_cond_destroy(&reg->feed_wake);
    free(reg->cluster_id);
    free(reg->conninfo);
    free(reg);
}

const char *registry_cluster_id(const registry_t *reg)
{
    return reg->cluster_id;
}

/* ---- References ---------------------------------------------------------- */

/* Deeper chains than this are refused: references are a DAG of subjects. */
#define RESOLVE_MAX_DEPTH 64

static void resolved_add_held(reg_resolved_t *r, reg_schema_t *s)
{
    reg_schema_retain(s);
    r->held = realloc(r->held, (r->nheld + 1) * sizeof *r->held);
    r->held[r->nheld++] = s;
}

static int resolved_contains(const reg_resolved_t *r, const char *subject, int version)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->refs[i].version == version && strcmp(r->refs[i].subject, subject) == 0)
            return 1;
    return 0;
}

/* Depth-first, dependencies appended before dependents. Index read lock held. */
static reg_code_t resolve_into(registry_t *reg, const reg_ref_t *refs, size_t n, int allow_deleted,
                               int depth, reg_resolved_t *out, reg_ref_t *direct, reg_error_t *err)
{
    if (depth > RESOLVE_MAX_DEPTH)
        return reg_fail(err, REG_INVALID_SCHEMA, "Invalid schema: references nested too deeply");
    for (size_t i = 0; i < n; i++) {
        const reg_ref_t *ref = &refs[i];
        if (!ref->name || !ref->subject)
            return reg_fail(err, REG_INVALID_SCHEMA,
                            "Invalid schema: a reference needs name, subject and version");
        reg_subject_t *subj = index_subject(&reg->idx, ref->subject);
        const reg_version_t *v = NULL;
        if (subj)
            v = ref->version == -1 ? reg_subject_latest(subj) : reg_subject_find(subj, ref->version);
        if (!v || (v->deleted && !allow_deleted))
            return reg_fail(err, REG_INVALID_SCHEMA,
                            "Invalid schema: reference %s (subject '%s', version %d) not found",
                            ref->name, ref->subject, ref->version);
        reg_schema_t *target = index_schema(&reg->idx, v->schema_id);
        if (!target)
            return reg_fail(err, REG_INVALID_SCHEMA, "Invalid schema: schema %d of reference %s not found",
                            v->schema_id, ref->name);
        if (direct) {
            direct[i].name = ref->name;
            direct[i].subject = ref->subject;
            direct[i].version = v->version;
        }
        if (resolved_contains(out, ref->subject, v->version))
            continue;
        reg_code_t rc = resolve_into(reg, target->refs, target->nrefs, 1, depth + 1, out, NULL, err);
        if (rc != REG_OK)
            return rc;
        resolved_add_held(out, target);
        out->refs = realloc(out->refs, (out->n + 1) * sizeof *out->refs);
        /* Borrowed strings: ref->name/subject live in the request or in a held schema. */
        out->refs[out->n++] = (schema_ref_t){ref->name, ref->subject, v->version, target->text};
    }
    return REG_OK;
}

reg_code_t registry_resolve(registry_t *reg, const reg_ref_t *refs, size_t n, int allow_deleted,
                            reg_resolved_t *out, reg_error_t *err)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return REG_OK;
    out->direct = calloc(n, sizeof *out->direct);
    out->ndirect = n;
    pthread_rwlock_rdlock(&reg->idx.lock);
    reg_code_t rc = resolve_into(reg, refs, n, allow_deleted, 0, out, out->direct, err);
    pthread_rwlock_unlock(&reg->idx.lock);
    return rc;
}

void reg_resolved_clear(reg_resolved_t *r)
{
    for (size_t i = 0; i < r->nheld; i++)
        reg_schema_release(r->held[i]);
    free(r->held);
    free(r->refs);
    free(r->direct);
    memset(r, 0, sizeof *r);
}

/* ---- Parsed models -------------------------------------------------------- */

const schema_t *registry_parsed(registry_t *reg, reg_schema_t *s, reg_error_t *err)
{
    schema_t *parsed = __atomic_load_n(&s->parsed, __ATOMIC_ACQUIRE);
    if (parsed)
        return parsed;
    reg_resolved_t res;
    if (registry_resolve(reg, s->refs, s->nrefs, 1, &res, err) != REG_OK) {
        reg_resolved_clear(&res);
        return NULL;
    }
    char *error = NULL;
    parsed = schema_parse(s->type, s->text, s->text_len, res.refs, res.n, 0, &error);
    reg_resolved_clear(&res);
    if (!parsed) {
        reg_fail(err, REG_INVALID_SCHEMA, "Stored schema %d does not parse: %s", s->id,
                 error ? error : "?");
        free(error);
        return NULL;
    }
    schema_t *expected = NULL;
    /* Two threads may parse at once; the first to publish wins. */
    if (!__atomic_compare_exchange_n(&s->parsed, &expected, parsed, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        schema_free(parsed);
        return expected;
    }
    return parsed;
}

/* ---- Effective settings --------------------------------------------------- */

json_t *registry_effective_config(registry_t *reg, const char *subject)
{
    json_t *out = json_object();
    pthread_rwlock_rdlock(&reg->idx.lock);
    reg_subject_t *subj = subject ? index_subject(&reg->idx, subject) : NULL;
    if (reg->idx.global_config)
        json_object_update(out, reg->idx.global_config);
    if (subj && subj->config)
        json_object_update(out, subj->config);
    pthread_rwlock_unlock(&reg->idx.lock);
    if (!json_object_get(out, "compatibility"))
        json_object_set_new(out, "compatibility",
                            json_string(compat_level_name(reg->opts.default_level)));
    return out;
}

compat_level_t registry_effective_level(registry_t *reg, const char *subject)
{
    json_t *config = registry_effective_config(reg, subject);
    compat_level_t level = reg->opts.default_level;
    compat_level_parse(json_string_value(json_object_get(config, "compatibility")), &level);
    json_decref(config);
    return level;
}

int registry_effective_normalize(registry_t *reg, const char *subject)
{
    json_t *config = registry_effective_config(reg, subject);
    int normalize = json_is_true(json_object_get(config, "normalize"));
    json_decref(config);
    return normalize;
}

static const char *const mode_names[] = {"READWRITE", "READONLY", "READONLY_OVERRIDE", "IMPORT"};

/* Interned so the result can be returned without the lock. */
static const char *mode_intern(const char *mode)
{
    for (size_t i = 0; i < sizeof mode_names / sizeof *mode_names; i++)
        if (mode && strcmp(mode, mode_names[i]) == 0)
            return mode_names[i];
    return mode_names[0];
}

const char *registry_effective_mode(registry_t *reg, const char *subject)
{
    pthread_rwlock_rdlock(&reg->idx.lock);
    const char *global = mode_intern(reg->idx.global_mode);
    const char *mode = global;
    if (strcmp(global, "READONLY_OVERRIDE") != 0 && subject) {
        reg_subject_t *subj = index_subject(&reg->idx, subject);
        if (subj && subj->mode)
            mode = mode_intern(subj->mode);
    }
    pthread_rwlock_unlock(&reg->idx.lock);
    return mode;
}

/* ---- Write transactions --------------------------------------------------- */

reg_code_t registry_write_tx(registry_t *reg, store_t *db, const char *scope, registry_tx_fn body,
                             void *arg, reg_error_t *err)
{
    if (store_begin(db, err) != 0)
        return err->code;
    reg_code_t rc = REG_OK;
    if (store_lock_scope(db, scope, err) != 0)
        rc = err->code;
    if (rc == REG_OK)
        rc = body(reg, db, arg, err);
    if (rc == REG_OK && (store_change(db, scope, err) != 0 || store_commit(db, err) != 0))
        rc = err->code;
    if (rc != REG_OK) {
        store_rollback(db);
        return rc;
    }
    /* Committed: publish to this node's index at once (others follow the feed). */
    return registry_reload_scope(reg, db, scope, err) == 0 ? REG_OK : err->code;
}
