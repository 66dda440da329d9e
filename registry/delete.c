/*
 * delete: soft and hard deletes of subjects and versions (docs/api.md,
 * "Deleting"). Every rule is checked inside the transaction, against the
 * subject as the database has it under the subject's lock.
 */
#include <stdlib.h>
#include <string.h>

#include <assert.h>

#include "base/alloc.h"
#include "registry/internal.h"

static int mode_is_readonly(registry_t *reg, const char *subject)
{
    return reg_mode_is_readonly(registry_effective_mode(reg, subject));
}

/* *has = 1 when some association names subject (registry/associations.c;
 * read inside the delete's transaction). */
static reg_code_t associated_(store_t *db, const char *subject, int *has, reg_error_t *err)
{
    json_t *list = NULL;
    store_assoc_query_t q = {.subject = subject};
    reg_code_t rc = reg_store(err, db, store_assoc_list(db, &q, &list));
    *has = rc == REG_OK && json_array_size(list) > 0;
    json_decref(list);
    return rc;
}

/* ---- Subjects ------------------------------------------------------------ */

static reg_code_t drop_settings(store_t *db, const char *subject, reg_error_t *err)
{
    reg_code_t rc = reg_store(err, db, store_config_set(db, subject, NULL));
    return rc == REG_OK ? reg_store(err, db, store_mode_set(db, subject, NULL)) : rc;
}

typedef struct subject_delete {
    const char *subject;
    int permanent;
    int *versions; /* out */
    size_t n;
} subject_delete_t;

static reg_code_t delete_subject_tx(registry_t *reg, store_t *db, void *arg, reg_error_t *err)
{
    subject_delete_t *d = arg;
    reg_subject_t *fresh;
    reg_code_t rc = reg_store(err, db, store_load_subject(db, d->subject, &fresh));
    if (rc != REG_OK)
        return rc;
    int live = reg_subject_live_count(fresh);
    if (fresh->n == 0)
        rc = reg_fail(err, REG_SUBJECT_NOT_FOUND, "Subject '%s' not found.", d->subject);
    else if (!d->permanent && live == 0)
        rc = reg_fail(err, REG_SUBJECT_SOFT_DELETED,
                      "Subject '%s' was soft deleted.Set permanent=true to delete permanently", d->subject);
    else if (mode_is_readonly(reg, d->subject))
        rc = reg_mode_readonly_error(err, d->subject);
    /* KafkaSchemaRegistry.deleteSubject: a subject an association names stays. */
    int associated = 0;
    if (rc == REG_OK)
        rc = associated_(db, d->subject, &associated, err);
    if (rc == REG_OK && associated)
        rc = reg_fail(err, REG_ASSOCIATION_FOR_SUBJECT_EXISTS,
                      "An association already exists for subject '%s'", d->subject);
    for (size_t i = 0; rc == REG_OK && i < fresh->n; i++) {
        const reg_version_t *v = &fresh->v[i];
        if ((d->permanent || !v->deleted) &&
            index_is_referenced(reg->idx, d->subject, v->version, !d->permanent, d->subject))
            rc = registry_referenced_error(d->subject, v->version, err);
    }
    if (rc == REG_OK && d->permanent && live > 0)
        rc = reg_fail(err, REG_SUBJECT_NOT_SOFT_DELETED,
                      "Subject '%s' was not deleted first before being permanently deleted", d->subject);
    d->versions = xcalloc(fresh->n + 1, sizeof *d->versions);
    for (size_t i = 0; rc == REG_OK && i < fresh->n; i++) {
        const reg_version_t *v = &fresh->v[i];
        if (!d->permanent && v->deleted)
            continue;
        rc = reg_store(err, db,
                       d->permanent ? store_version_hard_delete(db, d->subject, v->version)
                                    : store_version_soft_delete(db, d->subject, v->version));
        if (rc == REG_OK)
            d->versions[d->n++] = v->version;
    }
    /* A hard-deleted subject takes its settings with it. */
    if (rc == REG_OK && d->permanent)
        rc = drop_settings(db, d->subject, err);
    if (rc == REG_OK) {
        json_t *versions = json_array();
        for (size_t i = 0; i < d->n; i++)
            json_array_append_new(versions, json_integer(d->versions[i]));
        json_t *details = json_pack("{s:o}", "versions", versions);
        rc = reg_audit_change(db, REG_AUDIT_DELETE_SUBJECT, d->subject, 0, 0, d->permanent, details, err);
        json_decref(details);
    }
    reg_subject_free(fresh);
    return rc;
}

reg_code_t registry_delete_subject(registry_t *reg, store_t *db, const char *subject, int permanent,
                                   int **versions, size_t *n, reg_error_t *err)
{
    assert(db);
    *versions = NULL;
    *n = 0;
    subject_delete_t d = {subject, permanent, NULL, 0};
    /* Its 40904 guard reads the associations: under their lock (registry/internal.h). */
    reg_code_t rc = registry_write_tx_assoc_guarded(reg, db, subject, delete_subject_tx, &d, err);
    if (rc != REG_OK) {
        free(d.versions);
        return rc;
    }
    *versions = d.versions;
    *n = d.n;
    return REG_OK;
}

/* ---- Versions ------------------------------------------------------------ */

typedef struct version_delete {
    const char *subject;
    int version; /* -1 = latest live; out: the deleted number */
    int permanent;
} version_delete_t;

static reg_code_t delete_version_tx(registry_t *reg, store_t *db, void *arg, reg_error_t *err)
{
    version_delete_t *d = arg;
    reg_subject_t *fresh;
    reg_code_t rc = reg_store(err, db, store_load_subject(db, d->subject, &fresh));
    if (rc != REG_OK)
        return rc;
    const reg_version_t *v = reg_subject_find(fresh, d->version);
    if (v && v->deleted && !d->permanent)
        rc = reg_fail(err, REG_VERSION_SOFT_DELETED,
                      "Subject '%s' Version %d was soft deleted.Set permanent=true to delete "
                      "permanently",
                      d->subject, v->version);
    else if (!v && fresh->n == 0)
        rc = reg_fail(err, REG_SUBJECT_NOT_FOUND, "Subject '%s' not found.", d->subject);
    else if (!v)
        rc = reg_fail(err, REG_VERSION_NOT_FOUND, "Version %d not found.", d->version);
    else if (mode_is_readonly(reg, d->subject))
        rc = reg_mode_readonly_error(err, d->subject);
    /* KafkaSchemaRegistry.deleteSchemaVersion: a soft delete keeps one live
     * version under a subject an association names. */
    int associated = 0;
    if (rc == REG_OK && !d->permanent)
        rc = associated_(db, d->subject, &associated, err);
    if (rc == REG_OK && associated && reg_subject_live_count(fresh) <= 1)
        rc = reg_fail(err, REG_NO_ACTIVE_SUBJECT_VERSION,
                      "No active (non-deleted) version exists for subject '%s'", d->subject);
    if (rc == REG_OK && index_is_referenced(reg->idx, d->subject, v->version, !d->permanent, NULL))
        rc = registry_referenced_error(d->subject, v->version, err);
    else if (rc == REG_OK && d->permanent && !v->deleted)
        rc = reg_fail(err, REG_VERSION_NOT_SOFT_DELETED,
                      "Subject '%s' Version %d was not deleted first before being permanently "
                      "deleted",
                      d->subject, v->version);
    if (rc == REG_OK) {
        d->version = v->version;
        int last = fresh->n == 1;
        rc = reg_store(err, db,
                       d->permanent ? store_version_hard_delete(db, d->subject, v->version)
                                    : store_version_soft_delete(db, d->subject, v->version));
        if (rc == REG_OK && d->permanent && last)
            rc = drop_settings(db, d->subject, err);
        if (rc == REG_OK)
            rc = reg_audit_change(db, REG_AUDIT_DELETE_VERSION, d->subject, v->version, v->schema_id,
                                  d->permanent, NULL, err);
    }
    reg_subject_free(fresh);
    return rc;
}

reg_code_t registry_delete_version(registry_t *reg, store_t *db, const char *subject,
                                   const char *version_text, int permanent, int *version, reg_error_t *err)
{
    assert(db);
    version_delete_t d = {subject, 0, permanent};
    if (registry_version_parse(version_text, &d.version) != 0)
        return registry_invalid_version(err, version_text);
    /* A soft delete's 40907 guard reads the associations: under their lock. */
    reg_code_t rc = permanent ? registry_write_tx(reg, db, subject, delete_version_tx, &d, err)
                              : registry_write_tx_assoc_guarded(reg, db, subject, delete_version_tx, &d, err);
    *version = d.version;
    return rc;
}

/* ---- Contexts ------------------------------------------------------------ */

typedef struct context_delete {
    const char *delimited; /* ":.ctx:", "" the default context */
    char *name;            /* ".ctx", "." */
} context_delete_t;

static reg_code_t delete_context_tx(registry_t *reg, store_t *db, void *arg, reg_error_t *err)
{
    context_delete_t *d = arg;
    int has = 0;
    reg_code_t rc = reg_store(err, db, store_context_has_versions(db, d->name, &has));
    if (rc == REG_OK && has)
        return reg_fail(err, REG_CONTEXT_NOT_EMPTY, "The specified context '%s' is not empty.", d->delimited);
    if (rc == REG_OK && strcmp(d->name, ".") != 0)
        rc = reg_store(err, db, store_context_unlist(db, d->name));
    if (rc == REG_OK)
        rc = reg_audit_change(db, REG_AUDIT_CONTEXT_DELETE, d->name, 0, 0, -1, NULL, err);
    return rc;
}

/* KafkaSchemaRegistry.deleteContextOrForward: 42211 while a subject of the
 * context has a version (hasSubjects(context, true)); otherwise the context
 * is no longer listed, whether it was or not (204 either way). */
reg_code_t registry_delete_context(registry_t *reg, store_t *db, const char *context, reg_error_t *err)
{
    assert(db);
    context_delete_t d = {context, *context ? xstrndup(context + 1, strlen(context) - 2) : xstrdup(".")};
    reg_code_t rc = registry_write_tx(reg, db, *context ? context : "", delete_context_tx, &d, err);
    free(d.name);
    return rc;
}
