/*
 * settings: compatibility config and modes, global and per subject
 * (rest-api.md 2.7, 2.8, 4.5, 4.6). Configs are kept in the PUT shape
 * (ConfigUpdate, key "compatibility"); scope "" is the global scope.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "registry/internal.h"

/* Fields a config may carry; anything else in a PUT body is ignored [Ref]. */
static const char *const config_fields[] = {
    "compatibility",      "normalize",       "validateFields",  "alias",
    "compatibilityGroup", "defaultMetadata", "overrideMetadata", "defaultRuleSet",
    "overrideRuleSet",    "validateNewSchemas", "validateRules", "compatibilityPolicy",
    "aliasForDeks",
};

static const char *scope_of(const char *subject)
{
    return subject ? subject : "";
}

reg_code_t registry_check_subject_name(const char *subject, reg_error_t *err)
{
    const unsigned char *p = (const unsigned char *)subject;
    for (size_t i = 0; p[i]; i++) {
        /* C0 controls, DEL, and C1 controls (U+0080..U+009F = C2 80..C2 9F in UTF-8). */
        if (p[i] < 0x20 || p[i] == 0x7f || (p[i] == 0xc2 && p[i + 1] >= 0x80 && p[i + 1] <= 0x9f))
            return reg_fail(err, REG_INVALID_SUBJECT, "The specified subject is not a valid.");
    }
    if (strcmp(subject, "__GLOBAL") == 0 || strcmp(subject, "__EMPTY") == 0 ||
        strncmp(subject, ":.__GLOBAL:", 11) == 0)
        return reg_fail(err, REG_INVALID_SUBJECT, "The specified subject '%s' is not a valid.", subject);
    return REG_OK;
}

static int readonly(registry_t *reg, const char *subject)
{
    return strncmp(registry_effective_mode(reg, subject), "READONLY", 8) == 0;
}

/* ---- Config -------------------------------------------------------------- */

/* Stored config of a scope (a new reference), or NULL. */
static json_t *stored_config(registry_t *reg, const char *subject)
{
    json_t *config = NULL;
    pthread_rwlock_rdlock(&reg->idx.lock);
    if (!subject) {
        config = reg->idx.global_config;
    } else {
        reg_subject_t *subj = index_subject(&reg->idx, subject);
        config = subj ? subj->config : NULL;
    }
    config = config ? json_deep_copy(config) : NULL;
    pthread_rwlock_unlock(&reg->idx.lock);
    return config;
}

/* A stored config lacking a level is reported with the server default [Ref]. */
static json_t *with_default_level(registry_t *reg, json_t *config)
{
    if (!config)
        config = json_object();
    if (!json_object_get(config, "compatibility"))
        json_object_set_new(config, "compatibility",
                            json_string(compat_level_name(reg->opts.default_level)));
    return config;
}

reg_code_t registry_config_get(registry_t *reg, const char *subject, int default_to_global,
                               json_t **out, reg_error_t *err)
{
    if (subject && default_to_global) {
        *out = registry_effective_config(reg, subject);
        return REG_OK;
    }
    json_t *config = stored_config(reg, subject);
    if (subject && !config)
        return reg_fail(err, REG_SUBJECT_LEVEL_COMPAT_NOT_CONFIGURED,
                        "Subject '%s' does not have subject-level compatibility configured", subject);
    *out = with_default_level(reg, config);
    return REG_OK;
}

typedef struct config_write {
    json_t *config;   /* NULL deletes */
    const char *scope;
} config_write_t;

static reg_code_t config_write_tx(registry_t *reg, store_t *db, void *arg, reg_error_t *err)
{
    config_write_t *w = arg;
    return store_config_set(db, w->scope, w->config, err) == 0 ? REG_OK : err->code;
}

/* Applies a partial update to a copy of the stored config; 42203 for a bad level. */
static reg_code_t config_merge(json_t *merged, const json_t *update, reg_error_t *err)
{
    for (size_t i = 0; i < sizeof config_fields / sizeof *config_fields; i++) {
        json_t *v = json_object_get(update, config_fields[i]);
        if (!v)
            continue;
        if (json_is_null(v)) {
            json_object_del(merged, config_fields[i]);
            continue;
        }
        if (i == 0) {
            compat_level_t level;
            if (compat_level_parse(json_string_value(v), &level) != 0)
                return reg_fail(err, REG_INVALID_COMPATIBILITY,
                                "Invalid compatibility level. Valid values are none, backward, "
                                "forward, full, backward_transitive, forward_transitive, and "
                                "full_transitive");
            json_object_set_new(merged, config_fields[i], json_string(compat_level_name(level)));
            continue;
        }
        json_object_set(merged, config_fields[i], v);
    }
    return REG_OK;
}

reg_code_t registry_config_set(registry_t *reg, store_t *db, const char *subject,
                               const json_t *update, json_t **out, reg_error_t *err)
{
    reg_code_t rc = subject ? registry_check_subject_name(subject, err) : REG_OK;
    if (rc != REG_OK)
        return rc;
    json_t *merged = stored_config(reg, subject);
    if (!merged)
        merged = json_object();
    rc = config_merge(merged, update, err);
    if (rc == REG_OK && readonly(reg, subject))
        rc = reg_fail(err, REG_OPERATION_NOT_PERMITTED, "Subject %s in context . is in read-only mode",
                      subject ? subject : "__GLOBAL");
    if (rc == REG_OK && !db)
        rc = REG_NEED_DB;
    config_write_t w = {merged, scope_of(subject)};
    if (rc == REG_OK)
        rc = registry_write_tx(reg, db, w.scope, config_write_tx, &w, err);
    if (rc != REG_OK) {
        json_decref(merged);
        return rc;
    }
    *out = merged;
    return REG_OK;
}

reg_code_t registry_config_delete(registry_t *reg, store_t *db, const char *subject,
                                  json_t **out, reg_error_t *err)
{
    json_t *previous = stored_config(reg, subject);
    reg_code_t rc = REG_OK;
    if (subject && !previous)
        rc = reg_fail(err, REG_SUBJECT_NOT_FOUND, "Subject '%s' not found.", subject);
    else if (readonly(reg, subject))
        rc = reg_fail(err, REG_OPERATION_NOT_PERMITTED, "Subject %s in context . is in read-only mode",
                      subject ? subject : "__GLOBAL");
    else if (!db)
        rc = REG_NEED_DB;
    config_write_t w = {NULL, scope_of(subject)};
    if (rc == REG_OK)
        rc = registry_write_tx(reg, db, w.scope, config_write_tx, &w, err);
    if (rc != REG_OK) {
        json_decref(previous);
        return rc;
    }
    *out = with_default_level(reg, previous);
    return REG_OK;
}

/* ---- Mode ---------------------------------------------------------------- */

static const char *const valid_modes[] = {"READWRITE", "READONLY", "READONLY_OVERRIDE", "IMPORT"};

static const char *mode_canonical(const char *mode)
{
    for (size_t i = 0; mode && i < sizeof valid_modes / sizeof *valid_modes; i++)
        if (strcasecmp(mode, valid_modes[i]) == 0)
            return valid_modes[i];
    return NULL;
}

static char *stored_mode(registry_t *reg, const char *subject)
{
    char *mode = NULL;
    pthread_rwlock_rdlock(&reg->idx.lock);
    if (!subject) {
        mode = reg->idx.global_mode ? strdup(reg->idx.global_mode) : NULL;
    } else {
        reg_subject_t *subj = index_subject(&reg->idx, subject);
        mode = subj && subj->mode ? strdup(subj->mode) : NULL;
    }
    pthread_rwlock_unlock(&reg->idx.lock);
    return mode;
}

reg_code_t registry_mode_get(registry_t *reg, const char *subject, int default_to_global,
                             char **out, reg_error_t *err)
{
    if (subject && default_to_global) {
        *out = strdup(registry_effective_mode(reg, subject));
        return REG_OK;
    }
    *out = stored_mode(reg, subject);
    if (*out)
        return REG_OK;
    if (subject)
        return reg_fail(err, REG_SUBJECT_LEVEL_MODE_NOT_CONFIGURED,
                        "Subject '%s' does not have subject-level mode configured", subject);
    *out = strdup("READWRITE");
    return REG_OK;
}

/* Entering IMPORT needs an empty scope: importing next to live subjects would mix id spaces. */
static int scope_has_live_subjects(registry_t *reg, const char *subject)
{
    int found = 0;
    pthread_rwlock_rdlock(&reg->idx.lock);
    if (subject) {
        reg_subject_t *subj = index_subject(&reg->idx, subject);
        found = subj && reg_subject_live_count(subj) > 0;
    } else {
        const hmap_t *m = &reg->idx.subjects;
        for (size_t i = 0; i < m->cap && !found; i++)
            found = hmap_live(m, i) && reg_subject_live_count(m->slots[i].value) > 0;
    }
    pthread_rwlock_unlock(&reg->idx.lock);
    return found;
}

typedef struct mode_write {
    const char *mode;     /* NULL deletes */
    const char *scope;
    strlist_t purge;      /* entering IMPORT: subjects whose soft-deleted versions go */
} mode_write_t;

/* Soft-deleted versions of one subject are removed on entering IMPORT, so
 * imported versions cannot collide with them (rest-api 2.7). */
static reg_code_t purge_soft_deleted(registry_t *reg, store_t *db, const char *subject,
                                     reg_error_t *err)
{
    reg_subject_t *fresh;
    if (store_load_subject(db, subject, &fresh, err) != 0)
        return err->code;
    reg_code_t rc = REG_OK;
    for (size_t i = 0; rc == REG_OK && i < fresh->n; i++) {
        const reg_version_t *v = &fresh->v[i];
        if (!v->deleted)
            continue;
        if (registry_is_referenced(reg, subject, v->version, 0, NULL))
            rc = registry_referenced_error(subject, v->version, err);
        else if (store_version_hard_delete(db, subject, v->version, err) != 0)
            rc = err->code;
    }
    if (rc == REG_OK && strcmp(subject, "") != 0 && store_change(db, subject, err) != 0)
        rc = err->code;
    reg_subject_free(fresh);
    return rc;
}

static reg_code_t mode_write_tx(registry_t *reg, store_t *db, void *arg, reg_error_t *err)
{
    mode_write_t *w = arg;
    for (size_t i = 0; i < w->purge.n; i++) {
        reg_code_t rc = purge_soft_deleted(reg, db, w->purge.items[i], err);
        if (rc != REG_OK)
            return rc;
    }
    return store_mode_set(db, w->scope, w->mode, err) == 0 ? REG_OK : err->code;
}

/* The subjects in scope (one subject, or all) that have soft-deleted versions. */
static void subjects_with_soft_deleted(registry_t *reg, const char *subject, strlist_t *out)
{
    pthread_rwlock_rdlock(&reg->idx.lock);
    INDEX_FOREACH_SUBJECT(&reg->idx, subj) {
        if (subject && strcmp(subj->name, subject) != 0)
            continue;
        if ((size_t)reg_subject_live_count(subj) < subj->n)
            strlist_push(out, subj->name);
    }
    pthread_rwlock_unlock(&reg->idx.lock);
}

reg_code_t registry_mode_set(registry_t *reg, store_t *db, const char *subject, const char *mode,
                             int force, reg_error_t *err)
{
    const char *canonical = mode_canonical(mode);
    if (!canonical)
        return reg_fail(err, REG_INVALID_MODE,
                        "Invalid mode. Valid values are READWRITE, READONLY, READONLY_OVERRIDE and "
                        "IMPORT.");
    reg_code_t rc = subject ? registry_check_subject_name(subject, err) : REG_OK;
    if (rc != REG_OK)
        return rc;
    int entering_import = strcmp(canonical, "IMPORT") == 0 &&
                          strcmp(registry_effective_mode(reg, subject), "IMPORT") != 0;
    if (entering_import && !force && scope_has_live_subjects(reg, subject))
        return reg_fail(err, REG_OPERATION_NOT_PERMITTED, "Cannot import since found existing subjects");
    if (!db)
        return REG_NEED_DB;
    mode_write_t w = {canonical, scope_of(subject), {0}};
    if (entering_import)
        subjects_with_soft_deleted(reg, subject, &w.purge);
    rc = registry_write_tx(reg, db, w.scope, mode_write_tx, &w, err);
    /* The scope itself is reloaded by registry_write_tx; purged subjects here. */
    for (size_t i = 0; rc == REG_OK && i < w.purge.n; i++)
        if (strcmp(w.purge.items[i], w.scope) != 0 && registry_reload_scope(reg, db, w.purge.items[i], err) != 0)
            rc = err->code;
    strlist_clear(&w.purge);
    return rc;
}

reg_code_t registry_mode_delete(registry_t *reg, store_t *db, const char *subject, char **out,
                                reg_error_t *err)
{
    char *previous = stored_mode(reg, subject);
    if (subject && !previous)
        return reg_fail(err, REG_SUBJECT_NOT_FOUND, "Subject '%s' not found.", subject);
    if (!db) {
        free(previous);
        return REG_NEED_DB;
    }
    mode_write_t w = {NULL, scope_of(subject)};
    reg_code_t rc = registry_write_tx(reg, db, w.scope, mode_write_tx, &w, err);
    if (rc != REG_OK) {
        free(previous);
        return rc;
    }
    *out = previous ? previous : strdup("READWRITE");
    return REG_OK;
}
