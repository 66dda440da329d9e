/*
 * settings: compatibility config and modes, global and per subject, and the
 * effective settings a subject inherits (docs/api.md, "Config and mode").
 * Configs are kept in the PUT shape (ConfigUpdate, key "compatibility");
 * scope "" is the global scope.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "registry/context.h"
#include "registry/internal.h"

/* Fields a config may carry; anything else in a PUT body is ignored [Ref]. */
static const char *const config_fields[] = {
    "compatibility",   "normalize",           "validateFields", "alias",           "compatibilityGroup",
    "defaultMetadata", "overrideMetadata",    "defaultRuleSet", "overrideRuleSet", "validateNewSchemas",
    "validateRules",   "compatibilityPolicy", "aliasForDeks",
};

static const char *scope_of(const char *subject)
{
    return subject ? subject : "";
}

reg_code_t registry_check_subject_name(const char *subject, size_t max_bytes, reg_error_t *err)
{
    if (strlen(subject) > max_bytes)
        return reg_fail(
            err, REG_INVALID_SUBJECT,
            "The specified subject is not a valid. It is longer than %zu bytes (max.subject.bytes).",
            max_bytes);
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

char *registry_subject_alias(registry_t *reg, const char *subject)
{
    json_t *config = index_config(reg->idx, subject);
    const char *alias = json_string_value(json_object_get(config, "alias"));
    char *out = NULL;
    if (alias && *alias) {
        /* QualifiedSubject.qualifySubjectWithParent: an unqualified alias is in the subject's context. */
        char *ctx = reg_context_copy(subject);
        out = reg_ref_qualify(ctx, alias);
        free(ctx);
    }
    json_decref(config);
    return out;
}

static int readonly(registry_t *reg, const char *subject)
{
    return reg_mode_is_readonly(registry_effective_mode(reg, subject));
}

/* ---- Effective settings ----------------------------------------------------- */

/* A config lacking a level is reported with the server default [Ref]. */
static json_t *with_default_level(registry_t *reg, json_t *config)
{
    if (!config)
        config = json_object();
    if (!json_object_get(config, "compatibility"))
        json_object_set_new(config, "compatibility", json_string(compat_level_name(reg->opts.default_level)));
    return config;
}

/* The scope a subject of a named context falls back to: ":.ctx:" (malloc'd),
 * or NULL for a subject of the default context (and for a context itself). */
static char *context_scope(const char *subject)
{
    if (!subject)
        return NULL;
    reg_ctx_t ctx = reg_context_of(subject);
    const char *rest = subject + (ctx.len == 1 && ctx.base[0] == '.' ? 0 : ctx.len + 2);
    if (ctx.len == 1 && ctx.base[0] == '.')
        return NULL;
    return *rest ? xasprintf(":%.*s:", (int)ctx.len, ctx.base) : NULL;
}

/*
 * Confluent's getConfigInScope (AbstractSchemaRegistry, InMemoryCache.config):
 * a subject's own config is merged over the global one; a subject without
 * one takes its context's config when it is in a named context (the global
 * config of the default context does not reach it), else the global config;
 * then the server default.
 */
json_t *registry_effective_config(registry_t *reg, const char *subject)
{
    json_t *own = subject ? index_config(reg->idx, subject) : NULL;
    char *ctx = own ? NULL : context_scope(subject);
    json_t *out = index_config(reg->idx, ctx);
    free(ctx);
    if (!out)
        out = json_object();
    if (own)
        json_object_update(out, own);
    json_decref(own);
    return with_default_level(reg, out);
}

/* The first of own, global that is set (>= 0), else dflt. */
static int settings_pick(int own, int global, int dflt)
{
    return own >= 0 ? own : global >= 0 ? global : dflt;
}

reg_effective_t registry_effective_settings(registry_t *reg, const char *subject)
{
    reg_settings_t own, global;
    index_settings(reg->idx, subject, &own, &global);
    char *ctx = own.present ? NULL : context_scope(subject);
    if (ctx) /* registry_effective_config: the context's config stands for the global one */
        index_settings(reg->idx, ctx, &global, &(reg_settings_t){0});
    free(ctx);
    reg_effective_t out = {
        .level = own.has_level      ? own.level
                 : global.has_level ? global.level
                                    : reg->opts.default_level,
        .normalize = settings_pick(own.normalize, global.normalize, 0),
        .validate_fields = settings_pick(own.validate_fields, global.validate_fields, 0),
        .metadata_config = own.has_metadata || global.has_metadata,
    };
    return out;
}

/* Confluent's getModeInScope (InMemoryCache.mode): the subject's mode, else
 * its context's when it is in a named context, else the global mode (a
 * global READONLY_OVERRIDE wins over every scope, as before). */
reg_mode_t registry_effective_mode(registry_t *reg, const char *subject)
{
    reg_mode_t global = index_mode(reg->idx, NULL);
    if (global == MODE_UNSET)
        global = MODE_READWRITE;
    reg_mode_t own = global != MODE_READONLY_OVERRIDE && subject ? index_mode(reg->idx, subject) : MODE_UNSET;
    if (own != MODE_UNSET)
        return own;
    char *ctx = global != MODE_READONLY_OVERRIDE ? context_scope(subject) : NULL;
    if (ctx) {
        reg_mode_t m = index_mode(reg->idx, ctx);
        free(ctx);
        return m != MODE_UNSET ? m : MODE_READWRITE;
    }
    return global;
}

/* ---- Config -------------------------------------------------------------- */

reg_code_t registry_config_get(registry_t *reg, const char *subject, int default_to_global, json_t **out,
                               reg_error_t *err)
{
    if (subject && default_to_global) {
        *out = registry_effective_config(reg, subject);
        return REG_OK;
    }
    json_t *config = index_config(reg->idx, subject);
    if (subject && !config)
        return reg_fail(err, REG_SUBJECT_LEVEL_COMPAT_NOT_CONFIGURED,
                        "Subject '%s' does not have subject-level compatibility configured", subject);
    *out = with_default_level(reg, config);
    return REG_OK;
}

typedef struct config_write {
    json_t *config; /* NULL deletes */
    const char *scope;
} config_write_t;

static reg_code_t config_write_tx(registry_t *reg, store_t *db, void *arg, reg_error_t *err)
{
    config_write_t *w = arg;
    reg_code_t rc = reg_store(err, db, store_config_set(db, w->scope, w->config));
    if (rc != REG_OK)
        return rc;
    json_t *details = w->config ? json_pack("{s:O}", "config", w->config) : NULL;
    rc = reg_audit_change(db, w->config ? REG_AUDIT_CONFIG_PUT : REG_AUDIT_CONFIG_DELETE, w->scope, 0, 0, -1,
                          details, err);
    json_decref(details);
    return rc;
}

/* CompatibilityPolicy.forName: the name in capitals, NULL when it names none. */
static const char *compatibility_policy(const char *name)
{
    static const char *const policies[] = {"LOGICAL", "STRICT", "LENIENT"};
    for (size_t i = 0; name && i < sizeof policies / sizeof *policies; i++)
        if (strcasecmp(name, policies[i]) == 0)
            return policies[i];
    return NULL;
}

/*
 * Applies a partial update to a copy of the stored config; 42203 for a bad
 * level, 400 for a metadata not of Metadata's shape. As the community server
 * stores them (ConfigValue.update): defaultMetadata and overrideMetadata in
 * canonical form; defaultRuleSet and overrideRuleSet never (RuleSetHandler
 * empties them before they are stored, so an update also clears any stored
 * earlier); compatibilityPolicy by CompatibilityPolicy.forName, so a name it
 * does not know clears it.
 */
static reg_code_t config_merge(json_t *merged, const json_t *update, reg_error_t *err)
{
    json_object_del(merged, "defaultRuleSet");
    json_object_del(merged, "overrideRuleSet");
    for (size_t i = 0; i < sizeof config_fields / sizeof *config_fields; i++) {
        const char *field = config_fields[i];
        json_t *v = json_object_get(update, field);
        if (!v)
            continue;
        if (json_is_null(v) || strcmp(field, "defaultRuleSet") == 0 ||
            strcmp(field, "overrideRuleSet") == 0) {
            json_object_del(merged, field);
            continue;
        }
        if (strcmp(field, "defaultMetadata") == 0 || strcmp(field, "overrideMetadata") == 0) {
            json_t *md;
            if (registry_metadata_read(v, &md, err) != REG_OK)
                return err->code;
            json_object_set_new(merged, field, md);
            continue;
        }
        if (strcmp(field, "compatibilityPolicy") == 0) {
            const char *policy = compatibility_policy(json_string_value(v));
            if (policy)
                json_object_set_new(merged, field, json_string(policy));
            else
                json_object_del(merged, field);
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

/* The stored config with the update applied (*merged, the caller's), or an error. */
static reg_code_t config_prepare(registry_t *reg, const char *subject, const json_t *update, json_t **merged,
                                 reg_error_t *err)
{
    *merged = NULL;
    reg_code_t rc = subject ? registry_check_subject_name(subject, reg->opts.max_subject_bytes, err) : REG_OK;
    if (rc != REG_OK)
        return rc;
    json_t *config = index_config(reg->idx, subject);
    if (!config)
        config = json_object();
    rc = config_merge(config, update, err);
    if (rc == REG_OK && readonly(reg, subject))
        rc = reg_mode_readonly_error(err, subject);
    if (rc != REG_OK) {
        json_decref(config);
        return rc;
    }
    *merged = config;
    return REG_OK;
}

reg_code_t registry_config_set_check(registry_t *reg, const char *subject, const json_t *update,
                                     reg_error_t *err)
{
    json_t *merged;
    reg_code_t rc = config_prepare(reg, subject, update, &merged, err);
    json_decref(merged);
    return rc;
}

reg_code_t registry_config_set(registry_t *reg, store_t *db, const char *subject, const json_t *update,
                               json_t **out, reg_error_t *err)
{
    assert(db);
    json_t *merged;
    reg_code_t rc = config_prepare(reg, subject, update, &merged, err);
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

/* The stored config (*previous, the caller's; NULL when unset) or an error. */
static reg_code_t config_delete_prepare(registry_t *reg, const char *subject, json_t **previous,
                                        reg_error_t *err)
{
    *previous = index_config(reg->idx, subject);
    reg_code_t rc = REG_OK;
    if (subject && !*previous)
        rc = reg_fail(err, REG_SUBJECT_NOT_FOUND, "Subject '%s' not found.", subject);
    else if (readonly(reg, subject))
        rc = reg_mode_readonly_error(err, subject);
    if (rc != REG_OK) {
        json_decref(*previous);
        *previous = NULL;
    }
    return rc;
}

reg_code_t registry_config_delete_check(registry_t *reg, const char *subject, reg_error_t *err)
{
    json_t *previous;
    reg_code_t rc = config_delete_prepare(reg, subject, &previous, err);
    json_decref(previous);
    return rc;
}

reg_code_t registry_config_delete(registry_t *reg, store_t *db, const char *subject, json_t **out,
                                  reg_error_t *err)
{
    assert(db);
    json_t *previous;
    reg_code_t rc = config_delete_prepare(reg, subject, &previous, err);
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

reg_code_t registry_mode_get(registry_t *reg, const char *subject, int default_to_global, char **out,
                             reg_error_t *err)
{
    if (subject && default_to_global) {
        *out = xstrdup(reg_mode_name(registry_effective_mode(reg, subject)));
        return REG_OK;
    }
    reg_mode_t mode = index_mode(reg->idx, subject);
    if (subject && mode == MODE_UNSET)
        return reg_fail(err, REG_SUBJECT_LEVEL_MODE_NOT_CONFIGURED,
                        "Subject '%s' does not have subject-level mode configured", subject);
    *out = xstrdup(reg_mode_name(mode));
    return REG_OK;
}

static int subject_is_live(const reg_subject_t *subj, void *arg)
{
    return reg_subject_latest(subj) != NULL && (!arg || reg_prefix_match(arg, subj->name));
}

/* 1 when the scope is a named context (":.ctx:") rather than a subject. */
static int is_context_scope(const char *subject)
{
    return subject && strncmp(subject, ":.", 2) == 0 && subject[strlen(subject) - 1] == ':' &&
           strchr(subject + 2, ':') == subject + strlen(subject) - 1;
}

/* Entering IMPORT needs an empty scope: importing next to live subjects would mix id spaces. */
static int scope_has_live_subjects(registry_t *reg, const char *subject)
{
    if (!subject || is_context_scope(subject))
        return index_each_subject(reg->idx, subject_is_live, (void *)subject);
    reg_subject_t *subj = index_subject_copy(reg->idx, subject);
    int found = subj && reg_subject_latest(subj) != NULL;
    reg_subject_free(subj);
    return found;
}

typedef struct mode_write {
    const char *mode; /* NULL deletes */
    const char *scope;
    strlist_t purge; /* entering IMPORT: subjects whose soft-deleted versions go */
} mode_write_t;

/* Soft-deleted versions of one subject are removed on entering IMPORT
 * without force, so imported versions cannot collide with them; a referenced
 * one refuses the whole change (KafkaSchemaRegistry.setMode; docs/api.md,
 * "IMPORT"). */
static reg_code_t purge_soft_deleted(registry_t *reg, store_t *db, const char *subject, reg_error_t *err)
{
    reg_subject_t *fresh;
    reg_code_t rc = reg_store(err, db, store_load_subject(db, subject, &fresh));
    if (rc != REG_OK)
        return rc;
    for (size_t i = 0; rc == REG_OK && i < fresh->n; i++) {
        const reg_version_t *v = &fresh->v[i];
        if (!v->deleted)
            continue;
        if (index_is_referenced(reg->idx, subject, v->version, 0, NULL))
            rc = registry_referenced_error(subject, v->version, err);
        else
            rc = reg_store(err, db, store_version_hard_delete(db, subject, v->version));
    }
    if (rc == REG_OK && strcmp(subject, "") != 0)
        rc = reg_store(err, db, store_change(db, subject));
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
    reg_code_t rc = reg_store(err, db, store_mode_set(db, w->scope, w->mode));
    if (rc != REG_OK)
        return rc;
    json_t *details = w->mode ? json_pack("{s:s}", "mode", w->mode) : NULL;
    rc = reg_audit_change(db, w->mode ? REG_AUDIT_MODE_PUT : REG_AUDIT_MODE_DELETE, w->scope, 0, 0, -1,
                          details, err);
    json_decref(details);
    return rc;
}

typedef struct purge_search {
    const char *subject; /* NULL = every subject */
    strlist_t *out;
} purge_search_t;

static int collect_soft_deleted(const reg_subject_t *subj, void *arg)
{
    purge_search_t *q = arg;
    if ((!q->subject || strcmp(subj->name, q->subject) == 0) &&
        (size_t)reg_subject_live_count(subj) < subj->n)
        strlist_push(q->out, subj->name);
    return 0;
}

static int cmp_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The subjects in scope (one subject, or all) that have soft-deleted
 * versions, by name: the index walks them in its hash order, which differs
 * per process, and the first referenced version met names the error. */
static void subjects_with_soft_deleted(registry_t *reg, const char *subject, strlist_t *out)
{
    purge_search_t q = {subject, out};
    index_each_subject(reg->idx, collect_soft_deleted, &q);
    if (out->n > 1)
        qsort(out->items, out->n, sizeof *out->items, cmp_name);
}

/* The checks of a mode change; *mode gets the mode (MODE_UNSET: text NULL,
 * delete it), *purge whether the scope's soft-deleted versions go: only on
 * entering IMPORT without force. A forced switch keeps them (Confluent skips
 * both the check for live subjects and the clean-up when forced), so no mode
 * change loses data the client did not ask to lose. */
static reg_code_t mode_prepare(registry_t *reg, const char *subject, const char *text, int force,
                               reg_mode_t *mode, int *purge, reg_error_t *err)
{
    *mode = MODE_UNSET;
    *purge = 0;
    if (text && reg_mode_parse(text, mode) != 0)
        return reg_mode_invalid_error(err);
    reg_code_t rc = subject ? registry_check_subject_name(subject, reg->opts.max_subject_bytes, err) : REG_OK;
    if (rc != REG_OK)
        return rc;
    int entering_import = *mode == MODE_IMPORT && registry_effective_mode(reg, subject) != MODE_IMPORT;
    if (!entering_import || force)
        return REG_OK;
    if (scope_has_live_subjects(reg, subject))
        return reg_fail(err, REG_OPERATION_NOT_PERMITTED, "Cannot import since found existing subjects");
    *purge = 1;
    return REG_OK;
}

reg_code_t registry_mode_set_check(registry_t *reg, const char *subject, const char *text, int force,
                                   reg_error_t *err)
{
    reg_mode_t mode;
    int purge;
    return mode_prepare(reg, subject, text, force, &mode, &purge, err);
}

reg_code_t registry_mode_set(registry_t *reg, store_t *db, const char *subject, const char *text, int force,
                             reg_error_t *err)
{
    assert(db);
    reg_mode_t mode;
    int purge;
    reg_code_t rc = mode_prepare(reg, subject, text, force, &mode, &purge, err);
    if (rc != REG_OK)
        return rc;
    mode_write_t w = {mode == MODE_UNSET ? NULL : reg_mode_name(mode), scope_of(subject), {0}};
    if (purge)
        subjects_with_soft_deleted(reg, subject, &w.purge);
    rc = registry_write_tx(reg, db, w.scope, mode_write_tx, &w, err);
    /* The scope itself is reloaded by registry_write_tx; purged subjects here. */
    for (size_t i = 0; rc == REG_OK && i < w.purge.n; i++)
        if (strcmp(w.purge.items[i], w.scope) != 0)
            rc = registry_reload_scope(reg, db, w.purge.items[i], err);
    strlist_clear(&w.purge);
    return rc;
}

reg_code_t registry_mode_delete_check(registry_t *reg, const char *subject, int recursive, reg_error_t *err)
{
    if (subject && !recursive && index_mode(reg->idx, subject) == MODE_UNSET)
        return reg_fail(err, REG_SUBJECT_NOT_FOUND, "Subject '%s' not found.", subject);
    return REG_OK;
}

typedef struct mode_scopes {
    const char *prefix; /* "" = the default context, ":.ctx:" a named one */
    strlist_t *out;
} mode_scopes_t;

static int collect_mode_scope(const reg_subject_t *subj, void *arg)
{
    mode_scopes_t *q = arg;
    if (subj->mode && reg_prefix_match(q->prefix, subj->name) && !is_context_scope(subj->name))
        strlist_push(q->out, subj->name);
    return 0;
}

/* A mode deleted with recursive=true on a context (the global scope or
 * ":.ctx:") also goes from every subject of that context that has one
 * (KafkaSchemaRegistry.deleteSubjectMode, deleteModesForSubjectsUnderContext). */
static reg_code_t delete_mode_under(registry_t *reg, store_t *db, const char *subject, reg_error_t *err)
{
    strlist_t scopes = {0};
    mode_scopes_t q = {subject ? subject : "", &scopes};
    index_each_subject(reg->idx, collect_mode_scope, &q);
    if (scopes.n > 1)
        qsort(scopes.items, scopes.n, sizeof *scopes.items, cmp_name);
    reg_code_t rc = REG_OK;
    for (size_t i = 0; rc == REG_OK && i < scopes.n; i++) {
        mode_write_t w = {NULL, scopes.items[i], {0}};
        rc = registry_write_tx(reg, db, w.scope, mode_write_tx, &w, err);
    }
    strlist_clear(&scopes);
    return rc;
}

reg_code_t registry_mode_delete(registry_t *reg, store_t *db, const char *subject, int recursive, char **out,
                                reg_error_t *err)
{
    assert(db);
    reg_mode_t previous = index_mode(reg->idx, subject);
    reg_code_t rc = registry_mode_delete_check(reg, subject, recursive, err);
    mode_write_t w = {NULL, scope_of(subject), {0}};
    if (rc == REG_OK)
        rc = registry_write_tx(reg, db, w.scope, mode_write_tx, &w, err);
    if (rc == REG_OK && recursive && (!subject || is_context_scope(subject)))
        rc = delete_mode_under(reg, db, subject, err);
    if (rc != REG_OK)
        return rc;
    /* The global scope reads READWRITE when unset (getMode(null)). */
    *out = previous == MODE_UNSET && subject ? NULL : xstrdup(reg_mode_name(previous));
    return REG_OK;
}
