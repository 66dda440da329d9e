/*
 * delete: soft and hard deletes of subjects and versions (rest-api.md 2.5,
 * 4.3.3, 4.3.9). Every rule is checked inside the transaction, against the
 * subject as the database has it under the subject's lock.
 */
#include <stdlib.h>
#include <string.h>

#include "registry/internal.h"

static int mode_is_readonly(registry_t *reg, const char *subject)
{
    return strncmp(registry_effective_mode(reg, subject), "READONLY", 8) == 0;
}

static reg_code_t readonly_error(const char *subject, reg_error_t *err)
{
    return reg_fail(err, REG_OPERATION_NOT_PERMITTED, "Subject %s in context . is in read-only mode",
                    subject);
}

/* Does a schema carried by some subject (other than skip_subject when given)
 * refer to (subject, version)? live_only: only live referrers count. */
int registry_is_referenced(registry_t *reg, const char *subject, int version, int live_only,
                         const char *skip_subject)
{
    int found = 0;
    pthread_rwlock_rdlock(&reg->idx.lock);
    int *ids;
    size_t n = registry_referrers_locked(reg, subject, version, !live_only, &ids);
    const hmap_t *m = &reg->idx.subjects;
    for (size_t k = 0; k < n && !found; k++) {
        if (!skip_subject) {
            found = 1;
            break;
        }
        for (size_t i = 0; i < m->cap && !found; i++) {
            if (!hmap_live(m, i))
                continue;
            const reg_subject_t *subj = m->slots[i].value;
            if (strcmp(subj->name, skip_subject) == 0)
                continue;
            for (size_t j = 0; j < subj->n && !found; j++)
                found = subj->v[j].schema_id == ids[k] && !(live_only && subj->v[j].deleted);
        }
    }
    free(ids);
    pthread_rwlock_unlock(&reg->idx.lock);
    return found;
}

reg_code_t registry_referenced_error(const char *subject, int version, reg_error_t *err)
{
    return reg_fail(err, REG_REFERENCE_EXISTS,
                    "One or more references exist to the schema {subject=%s, version=%d}.", subject,
                    version);
}

/* ---- Subjects ------------------------------------------------------------ */

typedef struct subject_delete {
    const char *subject;
    int permanent;
    int *versions;   /* out */
    size_t n;
} subject_delete_t;

static reg_code_t delete_subject_tx(registry_t *reg, store_t *db, void *arg, reg_error_t *err)
{
    subject_delete_t *d = arg;
    reg_subject_t *fresh;
    if (store_load_subject(db, d->subject, &fresh, err) != 0)
        return err->code;
    int live = reg_subject_live_count(fresh);
    reg_code_t rc = REG_OK;
    if (fresh->n == 0)
        rc = reg_fail(err, REG_SUBJECT_NOT_FOUND, "Subject '%s' not found.", d->subject);
    else if (!d->permanent && live == 0)
        rc = reg_fail(err, REG_SUBJECT_SOFT_DELETED,
                      "Subject '%s' was soft deleted.Set permanent=true to delete permanently",
                      d->subject);
    else if (mode_is_readonly(reg, d->subject))
        rc = readonly_error(d->subject, err);
    for (size_t i = 0; rc == REG_OK && i < fresh->n; i++) {
        const reg_version_t *v = &fresh->v[i];
        if ((d->permanent || !v->deleted) &&
            registry_is_referenced(reg, d->subject, v->version, !d->permanent, d->subject))
            rc = registry_referenced_error(d->subject, v->version, err);
    }
    if (rc == REG_OK && d->permanent && live > 0)
        rc = reg_fail(err, REG_SUBJECT_NOT_SOFT_DELETED,
                      "Subject '%s' was not deleted first before being permanently deleted",
                      d->subject);
    d->versions = calloc(fresh->n + 1, sizeof *d->versions);
    for (size_t i = 0; rc == REG_OK && i < fresh->n; i++) {
        const reg_version_t *v = &fresh->v[i];
        if (d->permanent) {
            if (store_version_hard_delete(db, d->subject, v->version, err) != 0)
                rc = err->code;
        } else if (!v->deleted) {
            if (store_version_soft_delete(db, d->subject, v->version, err) != 0)
                rc = err->code;
        } else {
            continue;
        }
        d->versions[d->n++] = v->version;
    }
    /* A hard-deleted subject takes its settings with it. */
    if (rc == REG_OK && d->permanent &&
        (store_config_set(db, d->subject, NULL, err) != 0 || store_mode_set(db, d->subject, NULL, err) != 0))
        rc = err->code;
    reg_subject_free(fresh);
    return rc;
}

reg_code_t registry_delete_subject(registry_t *reg, store_t *db, const char *subject,
                                   int permanent, int **versions, size_t *n, reg_error_t *err)
{
    *versions = NULL;
    *n = 0;
    if (!db)
        return REG_NEED_DB;
    subject_delete_t d = {subject, permanent, NULL, 0};
    reg_code_t rc = registry_write_tx(reg, db, subject, delete_subject_tx, &d, err);
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
    int version;     /* -1 = latest live; out: the deleted number */
    int permanent;
} version_delete_t;

static reg_code_t delete_version_tx(registry_t *reg, store_t *db, void *arg, reg_error_t *err)
{
    version_delete_t *d = arg;
    reg_subject_t *fresh;
    if (store_load_subject(db, d->subject, &fresh, err) != 0)
        return err->code;
    const reg_version_t *v =
        d->version == -1 ? reg_subject_latest(fresh) : reg_subject_find(fresh, d->version);
    reg_code_t rc = REG_OK;
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
        rc = readonly_error(d->subject, err);
    else if (registry_is_referenced(reg, d->subject, v->version, !d->permanent, NULL))
        rc = registry_referenced_error(d->subject, v->version, err);
    else if (d->permanent && !v->deleted)
        rc = reg_fail(err, REG_VERSION_NOT_SOFT_DELETED,
                      "Subject '%s' Version %d was not deleted first before being permanently "
                      "deleted",
                      d->subject, v->version);
    if (rc == REG_OK) {
        d->version = v->version;
        int last = fresh->n == 1;
        if (d->permanent ? store_version_hard_delete(db, d->subject, v->version, err) != 0
                         : store_version_soft_delete(db, d->subject, v->version, err) != 0)
            rc = err->code;
        else if (d->permanent && last && (store_config_set(db, d->subject, NULL, err) != 0 ||
                                          store_mode_set(db, d->subject, NULL, err) != 0))
            rc = err->code;
    }
    reg_subject_free(fresh);
    return rc;
}

reg_code_t registry_delete_version(registry_t *reg, store_t *db, const char *subject,
                                   const char *version_text, int permanent, int *version,
                                   reg_error_t *err)
{
    version_delete_t d = {subject, 0, permanent};
    if (registry_version_parse(version_text, &d.version) != 0)
        return registry_invalid_version(err, version_text);
    if (!db)
        return REG_NEED_DB;
    reg_code_t rc = registry_write_tx(reg, db, subject, delete_version_tx, &d, err);
    *version = d.version;
    return rc;
}
