/*
 * reload: publishing what the database says -- a scope reloaded into the
 * index, and the write transaction that ends in one.
 */
#include "registry/context.h"
#include "registry/internal.h"

#include <stdint.h>

/* ---- Reloading scopes ---------------------------------------------------- */

static pthread_mutex_t *reload_lock(registry_t *reg, const char *scope)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)scope; *p; p++)
        h = (h ^ *p) * 16777619u;
    return &reg->reload_locks[h % RELOAD_STRIPES];
}

/* Schema rows a fresh subject names that this node has not seen yet
 * (written by another node). */
static reg_code_t load_missing_schemas(registry_t *reg, store_t *db, const reg_subject_t *fresh,
                                       reg_error_t *err)
{
    char *ctx = reg_context_copy(fresh->name); /* ids are the subject's context's */
    reg_code_t out = REG_OK;
    for (size_t i = 0; i < fresh->n && out == REG_OK; i++) {
        reg_schema_t *known = index_schema(reg->idx, ctx, fresh->v[i].schema_id, 0);
        reg_schema_release(known);
        if (known)
            continue;
        reg_schema_t *s;
        store_rc_t rc = store_load_schema(db, ctx, fresh->v[i].schema_id, &s);
        if (rc == STORE_OK)
            index_publish_schema(reg->idx, s);
        else if (rc != STORE_NOT_FOUND)
            out = reg_store(err, db, rc);
    }
    free(ctx);
    return out;
}

static reg_code_t reload_scope_locked(registry_t *reg, store_t *db, const char *scope, reg_error_t *err)
{
    if (!*scope) {
        json_t *config;
        char *mode;
        store_rc_t rc = store_load_global(db, &config, &mode);
        if (rc == STORE_OK)
            index_publish_global(reg->idx, config, mode);
        return reg_store(err, db, rc);
    }
    reg_subject_t *fresh;
    store_rc_t rc = store_load_subject(db, scope, &fresh);
    if (rc != STORE_OK)
        return reg_store(err, db, rc);
    reg_code_t code = load_missing_schemas(reg, db, fresh, err);
    if (code != REG_OK) {
        reg_subject_free(fresh);
        return code;
    }
    index_publish_subject(reg->idx, fresh);
    return REG_OK;
}

reg_code_t registry_reload_scope(registry_t *reg, store_t *db, const char *scope, reg_error_t *err)
{
    pthread_mutex_t *lock = reload_lock(reg, scope);
    pthread_mutex_lock(lock);
    reg_code_t rc = reload_scope_locked(reg, db, scope, err);
    pthread_mutex_unlock(lock);
    return rc;
}

reg_code_t registry_publish_appended(registry_t *reg, store_t *db, const reg_subject_t *seen,
                                     reg_schema_t *row, const reg_version_t *added, reg_error_t *err)
{
    pthread_mutex_t *lock = reload_lock(reg, seen->name);
    pthread_mutex_lock(lock);
    /* Something newer published meanwhile may or may not hold ours: ask the database. */
    reg_code_t rc = index_publish_append(reg->idx, seen, row, added)
                        ? REG_OK
                        : reload_scope_locked(reg, db, seen->name, err);
    pthread_mutex_unlock(lock);
    return rc;
}

/* ---- Write transactions --------------------------------------------------- */

/* BEGIN, then the locks in their order: `first` (a scope's lock, or NULL), the
 * referenced subjects' shared ones, the scope's own. */
static reg_code_t write_tx_(registry_t *reg, store_t *db, const char *first, const char *scope,
                            const strlist_t *referenced, registry_tx_fn body, void *arg, reg_error_t *err)
{
    reg_code_t rc = reg_store(err, db, store_begin(db));
    if (rc != REG_OK)
        return rc;
    if (first)
        rc = reg_store(err, db, store_lock_scope(db, first));
    if (rc == REG_OK && referenced && referenced->n)
        rc = reg_store(err, db, store_lock_referenced(db, referenced, 0));
    if (rc == REG_OK)
        rc = reg_store(err, db, store_lock_scope(db, scope));
    if (rc == REG_OK)
        rc = body(reg, db, arg, err);
    if (rc == REG_OK)
        rc = reg_store(err, db, store_change(db, scope));
    if (rc == REG_OK)
        rc = reg_store(err, db, store_commit(db));
    if (rc != REG_OK) {
        store_rollback(db);
        return rc;
    }
    /* Committed: publish to this node's index at once (others follow the feed). */
    return registry_reload_scope(reg, db, scope, err);
}

reg_code_t registry_write_tx(registry_t *reg, store_t *db, const char *scope, registry_tx_fn body, void *arg,
                             reg_error_t *err)
{
    return write_tx_(reg, db, NULL, scope, NULL, body, arg, err);
}

reg_code_t registry_write_tx_referencing(registry_t *reg, store_t *db, const char *scope,
                                         const strlist_t *referenced, registry_tx_fn body, void *arg,
                                         reg_error_t *err)
{
    return write_tx_(reg, db, NULL, scope, referenced, body, arg, err);
}

reg_code_t registry_write_tx_assoc_guarded(registry_t *reg, store_t *db, const char *scope,
                                           registry_tx_fn body, void *arg, reg_error_t *err)
{
    return write_tx_(reg, db, REG_ASSOC_LOCK, scope, NULL, body, arg, err);
}
