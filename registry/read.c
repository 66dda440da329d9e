/*
 * read: every GET of the registry, answered from the in-memory index.
 * Only a schema id unknown to this node falls back to the database.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "registry/internal.h"

void reg_view_clear(reg_view_t *v)
{
    free(v->subject);
    reg_schema_release(v->schema);
    memset(v, 0, sizeof *v);
}

void reg_usages_free(reg_usage_t *u, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(u[i].subject);
    free(u);
}

int registry_version_parse(const char *text, int *version)
{
    if (!text)
        return -1;
    while (isspace((unsigned char)*text))
        text++;
    size_t len = strlen(text);
    while (len > 0 && isspace((unsigned char)text[len - 1]))
        len--;
    if (len == 6 && strncasecmp(text, "latest", 6) == 0) {
        *version = -1;
        return 0;
    }
    if (len == 2 && strncmp(text, "-1", 2) == 0) {
        *version = -1;
        return 0;
    }
    if (len == 0 || len > 64)
        return -1;
    long long v = 0;
    for (size_t i = 0; i < len; i++) {
        if (!isdigit((unsigned char)text[i]))
            return -1;
        v = v * 10 + (text[i] - '0');
        if (v > INT_MAX)
            return -1;
    }
    if (v < 1)
        return -1;
    *version = (int)v;
    return 0;
}

reg_code_t registry_invalid_version(reg_error_t *err, const char *text)
{
    return reg_fail(err, REG_INVALID_VERSION,
                    "The specified version '%s' is not a valid version id. Allowed values are "
                    "between [1, 2^31-1] and the string \"latest\"",
                    text);
}

static int subject_has_versions(const reg_subject_t *subj, int deleted)
{
    return subj && (deleted ? subj->n > 0 : reg_subject_live_count(subj) > 0);
}

/* Finds a version in a subject (lock held); fills out or fails like GET version. */
static reg_code_t find_version_locked(registry_t *reg, const char *subject, int version,
                                      int deleted, reg_view_t *out, reg_error_t *err)
{
    reg_subject_t *subj = index_subject(&reg->idx, subject);
    if (!subject_has_versions(subj, deleted))
        return reg_fail(err, REG_SUBJECT_NOT_FOUND, "Subject '%s' not found.", subject);
    const reg_version_t *v =
        version == -1 ? reg_subject_latest(subj) : reg_subject_find(subj, version);
    if (!v || (v->deleted && !deleted))
        return reg_fail(err, REG_VERSION_NOT_FOUND, "Version %d not found.", version);
    reg_schema_t *s = index_schema(&reg->idx, v->schema_id);
    if (!s)
        return reg_fail(err, REG_SCHEMA_NOT_FOUND, "Schema %d not found", v->schema_id);
    reg_schema_retain(s);
    out->subject = strdup(subject);
    out->version = v->version;
    out->id = v->schema_id;
    out->deleted = v->deleted;
    out->ts_ms = v->ts_ms;
    out->schema = s;
    return REG_OK;
}

reg_code_t registry_get_version(registry_t *reg, const char *subject, const char *version_text,
                                int deleted, reg_view_t *out, reg_error_t *err)
{
    int version;
    if (registry_version_parse(version_text, &version) != 0)
        return registry_invalid_version(err, version_text);
    pthread_rwlock_rdlock(&reg->idx.lock);
    reg_code_t rc = find_version_locked(reg, subject, version, deleted, out, err);
    pthread_rwlock_unlock(&reg->idx.lock);
    return rc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void registry_list_subjects(registry_t *reg, const char *prefix, int deleted, int deleted_only,
                            strlist_t *out)
{
    size_t plen = prefix ? strlen(prefix) : 0;
    pthread_rwlock_rdlock(&reg->idx.lock);
    INDEX_FOREACH_SUBJECT(&reg->idx, subj) {
        int live = reg_subject_live_count(subj);
        int include = deleted_only ? (subj->n > 0 && live == 0) : deleted ? subj->n > 0 : live > 0;
        if (include && strncmp(subj->name, prefix ? prefix : "", plen) == 0)
            strlist_push(out, subj->name);
    }
    pthread_rwlock_unlock(&reg->idx.lock);
    if (out->n > 1)
        qsort(out->items, out->n, sizeof *out->items, cmp_str);
}

reg_code_t registry_list_versions(registry_t *reg, const char *subject, int deleted,
                                  int deleted_only, int deleted_as_negative, int **out,
                                  size_t *n, reg_error_t *err)
{
    *out = NULL;
    *n = 0;
    pthread_rwlock_rdlock(&reg->idx.lock);
    reg_subject_t *subj = index_subject(&reg->idx, subject);
    if (!subject_has_versions(subj, deleted || deleted_only)) {
        pthread_rwlock_unlock(&reg->idx.lock);
        return reg_fail(err, REG_SUBJECT_NOT_FOUND, "Subject '%s' not found.", subject);
    }
    *out = calloc(subj->n + 1, sizeof **out);
    for (size_t i = 0; i < subj->n; i++) {
        const reg_version_t *v = &subj->v[i];
        if (deleted_as_negative)
            (*out)[(*n)++] = v->deleted ? -v->version : v->version;
        else if (deleted_only ? v->deleted : (deleted || !v->deleted))
            (*out)[(*n)++] = v->version;
    }
    pthread_rwlock_unlock(&reg->idx.lock);
    return REG_OK;
}

static int cmp_view(const void *a, const void *b)
{
    const reg_view_t *x = a, *y = b;
    int c = strcmp(x->subject, y->subject);
    return c ? c : (x->version > y->version) - (x->version < y->version);
}

void registry_list_schemas(registry_t *reg, const char *prefix, int deleted, int latest_only,
                           reg_view_t **out, size_t *n)
{
    size_t plen = prefix ? strlen(prefix) : 0, cap = 16;
    *out = calloc(cap, sizeof **out);
    *n = 0;
    pthread_rwlock_rdlock(&reg->idx.lock);
    INDEX_FOREACH_SUBJECT(&reg->idx, subj) {
        if (strncmp(subj->name, prefix ? prefix : "", plen) != 0)
            continue;
        for (size_t j = subj->n; j-- > 0;) {
            const reg_version_t *v = &subj->v[j];
            if (v->deleted && !deleted)
                continue;
            if (*n == cap)
                *out = realloc(*out, (cap *= 2) * sizeof **out);
            if (find_version_locked(reg, subj->name, v->version, 1, &(*out)[*n], &(reg_error_t){0}) ==
                REG_OK)
                (*n)++;
            if (latest_only)
                break;
        }
    }
    pthread_rwlock_unlock(&reg->idx.lock);
    if (*n > 1)
        qsort(*out, *n, sizeof **out, cmp_view);
}

/* The schema if some version carries it (lock held), retained. */
static reg_schema_t *resolvable_schema_locked(registry_t *reg, int id)
{
    reg_schema_t *s = index_schema(&reg->idx, id);
    if (!s || s->nversions == 0)
        return NULL;
    reg_schema_retain(s);
    return s;
}

/* Another node may have registered the id a moment ago: reload the subjects
 * that carry it, so read-after-write holds across nodes. */
static int refresh_schema_from_db(registry_t *reg, store_t *db, int id, reg_error_t *err)
{
    strlist_t subjects = {0};
    int rc = store_subjects_of_schema(db, id, &subjects, err);
    for (size_t i = 0; rc == 0 && i < subjects.n; i++)
        rc = registry_reload_scope(reg, db, subjects.items[i], err);
    strlist_clear(&subjects);
    return rc;
}

reg_code_t registry_get_schema(registry_t *reg, store_t *db, int id, reg_schema_t **out,
                               reg_error_t *err)
{
    pthread_rwlock_rdlock(&reg->idx.lock);
    *out = resolvable_schema_locked(reg, id);
    pthread_rwlock_unlock(&reg->idx.lock);
    if (*out)
        return REG_OK;
    if (!db)
        return REG_NEED_DB;
    if (refresh_schema_from_db(reg, db, id, err) != 0)
        return err->code;
    pthread_rwlock_rdlock(&reg->idx.lock);
    *out = resolvable_schema_locked(reg, id);
    pthread_rwlock_unlock(&reg->idx.lock);
    return *out ? REG_OK : reg_fail(err, REG_SCHEMA_NOT_FOUND, "Schema %d not found", id);
}

reg_code_t registry_get_schema_by_guid(registry_t *reg, const unsigned char guid[16],
                                       reg_schema_t **out, reg_error_t *err)
{
    *out = NULL;
    pthread_rwlock_rdlock(&reg->idx.lock);
    for (int t = 0; t < SCHEMA_TYPE_COUNT && !*out; t++) {
        reg_schema_t *s = index_schema_by_key(&reg->idx, (schema_type_t)t, guid);
        if (s)
            *out = resolvable_schema_locked(reg, s->id);
    }
    pthread_rwlock_unlock(&reg->idx.lock);
    return *out ? REG_OK : reg_fail(err, REG_SCHEMA_NOT_FOUND, "Schema not found");
}

static int cmp_usage(const void *a, const void *b)
{
    const reg_usage_t *x = a, *y = b;
    int c = strcmp(x->subject, y->subject);
    return c ? c : (x->version > y->version) - (x->version < y->version);
}

reg_code_t registry_schema_usages(registry_t *reg, store_t *db, int id, int deleted,
                                  reg_usage_t **out, size_t *n, reg_error_t *err)
{
    reg_schema_t *s;
    reg_code_t rc = registry_get_schema(reg, db, id, &s, err);
    if (rc != REG_OK)
        return rc;
    reg_schema_release(s);
    size_t cap = 4;
    *out = calloc(cap, sizeof **out);
    *n = 0;
    pthread_rwlock_rdlock(&reg->idx.lock);
    INDEX_FOREACH_SUBJECT(&reg->idx, subj) {
        for (size_t j = 0; j < subj->n; j++) {
            if (subj->v[j].schema_id != id || (subj->v[j].deleted && !deleted))
                continue;
            if (*n == cap)
                *out = realloc(*out, (cap *= 2) * sizeof **out);
            (*out)[(*n)++] = (reg_usage_t){strdup(subj->name), subj->v[j].version};
        }
    }
    pthread_rwlock_unlock(&reg->idx.lock);
    if (*n > 1)
        qsort(*out, *n, sizeof **out, cmp_usage);
    return REG_OK;
}

int registry_subject_version_of(registry_t *reg, const char *subject, int id)
{
    int version = 0;
    pthread_rwlock_rdlock(&reg->idx.lock);
    reg_subject_t *subj = index_subject(&reg->idx, subject);
    for (size_t i = subj ? subj->n : 0; i-- > 0 && !version;)
        if (subj->v[i].schema_id == id)
            version = subj->v[i].version;
    pthread_rwlock_unlock(&reg->idx.lock);
    return version;
}

int registry_max_id(registry_t *reg)
{
    pthread_rwlock_rdlock(&reg->idx.lock);
    int id = reg->idx.max_id;
    pthread_rwlock_unlock(&reg->idx.lock);
    return id;
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* Ids of schemas (carried by a version; a live one unless deleted) that refer
 * to (subject, version), sorted. Lock held. */
size_t registry_referrers_locked(registry_t *reg, const char *subject, int version, int deleted,
                                 int **ids)
{
    size_t n = 0, cap = 4;
    *ids = calloc(cap, sizeof **ids);
    const hmap_t *m = &reg->idx.by_id;
    for (size_t i = 0; i < m->cap; i++) {
        if (!hmap_live(m, i))
            continue;
        const reg_schema_t *s = m->slots[i].value;
        if (deleted ? s->nversions == 0 : s->nlive == 0)
            continue;
        for (size_t r = 0; r < s->nrefs; r++) {
            if (s->refs[r].version != version || strcmp(s->refs[r].subject, subject) != 0)
                continue;
            if (n == cap)
                *ids = realloc(*ids, (cap *= 2) * sizeof **ids);
            (*ids)[n++] = s->id;
            break;
        }
    }
    if (n > 1)
        qsort(*ids, n, sizeof **ids, cmp_int);
    return n;
}

reg_code_t registry_referenced_by(registry_t *reg, const char *subject, const char *version_text,
                                  int deleted, int **ids, size_t *n, reg_error_t *err)
{
    reg_view_t view = {0};
    *ids = NULL;
    *n = 0;
    reg_code_t rc = registry_get_version(reg, subject, version_text, 1, &view, err);
    if (rc != REG_OK)
        return rc;
    pthread_rwlock_rdlock(&reg->idx.lock);
    *n = registry_referrers_locked(reg, subject, view.version, deleted, ids);
    pthread_rwlock_unlock(&reg->idx.lock);
    reg_view_clear(&view);
    return REG_OK;
}

char *registry_schema_format(registry_t *reg, reg_schema_t *s, const char *format)
{
    if (!format || !*format)
        return strdup(s->text);
    reg_error_t err;
    const schema_t *parsed = registry_parsed(reg, s, &err);
    return parsed ? schema_format(parsed, format) : strdup(s->text);
}
