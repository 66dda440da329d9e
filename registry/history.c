/*
 * history: a subject's versions with who registered each and what changed
 * (docs/evolution.md, "History"). The versions are the index's; who and what
 * come from the audit trail (registry/audit.c), whose register rows carry
 * the change summary against the previous live version (registry/write.c).
 *
 * Contents
 *   1. Changes as recorded: the API's list, a new version's audit details
 *   2. GET /subjects/{s}/history
 *
 * Rollback is registry/write.c's: it is a registration's check and insert.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "base/alloc.h"
#include "registry/index.h"
#include "registry/internal.h"

/* ---- 1. Changes as recorded ------------------------------------------------------------ */

json_t *registry_change_array(const change_list_t *l)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < l->n; i++) {
        const change_t *ch = &l->items[i];
        json_array_append_new(arr, json_pack("{s:s, s:s, s:s?, s:s?, s:s?, s:b, s:b}", "kind",
                                             change_kind_name(ch->kind), "path", ch->path, "oldType",
                                             ch->old_type, "newType", ch->new_type, "detail", ch->detail,
                                             "forward", ch->forward, "backward", ch->backward));
    }
    return arr;
}

json_t *reg_changes_details(const schema_t *old_schema, const schema_t *new_schema)
{
    if (!old_schema || !new_schema)
        return NULL;
    change_list_t list = {0};
    char *summary = NULL;
    json_t *details = NULL;
    if (schema_changes(old_schema, new_schema, &list) == 0 && (summary = change_summary(&list)))
        details = json_pack("{s:o, s:s}", "changes", registry_change_array(&list), "summary", summary);
    free(summary);
    change_list_clear(&list);
    return details;
}

/* ---- 2. GET /subjects/{s}/history ------------------------------------------------------ */

/* RFC 3339 UTC with milliseconds, as GET /audit writes its times. */
static json_t *time_json(int64_t ms)
{
    time_t secs = (time_t)(ms / 1000);
    struct tm tm;
    gmtime_r(&secs, &tm);
    char text[64];
    snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
             tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, (int)(ms % 1000));
    return json_string(text);
}

static json_t *field_or_null(const json_t *row, const char *key)
{
    json_t *v = json_object_get(row, key);
    return v ? json_incref(v) : json_null();
}

reg_code_t registry_subject_history(registry_t *reg, store_t *db, const char *subject, int deleted,
                                    int offset, int limit, json_t **out, reg_error_t *err)
{
    *out = NULL;
    if (limit < 1 || limit > REG_HISTORY_LIMIT_MAX || offset < 0)
        return reg_fail(err, REG_BAD_REQUEST, "limit must be 1..%d and offset not negative",
                        REG_HISTORY_LIMIT_MAX);
    reg_subject_t *subj = index_subject_copy(reg->idx, subject);
    if (!subj || (deleted ? subj->n == 0 : reg_subject_latest(subj) == NULL)) {
        reg_subject_free(subj);
        return reg_fail(err, REG_SUBJECT_NOT_FOUND, "Subject '%s' not found.", subject);
    }
    json_t *rows = NULL;
    reg_code_t rc = reg_store(err, db, store_version_audit(db, subject, &rows));
    if (rc != REG_OK) {
        reg_subject_free(subj);
        return rc;
    }
    json_t *versions = json_array();
    int total = 0;
    for (size_t i = 0; i < subj->n; i++) {
        const reg_version_t *v = &subj->v[i];
        if (v->deleted && !deleted)
            continue;
        if (total++ < offset || (int)json_array_size(versions) >= limit)
            continue;
        char key[32];
        snprintf(key, sizeof key, "%d:%d", v->version, v->schema_id);
        const json_t *row = json_object_get(rows, key);
        json_array_append_new(
            versions, json_pack("{s:i, s:i, s:b, s:o, s:o, s:o, s:o}", "version", v->version, "id",
                                v->schema_id, "deleted", v->deleted, "time", time_json(v->ts_ms), "principal",
                                field_or_null(row, "principal"), "action", field_or_null(row, "action"),
                                "summary", field_or_null(row, "summary")));
    }
    *out = json_pack("{s:s, s:i, s:o}", "subject", subject, "total", total, "versions", versions);
    json_decref(rows);
    reg_subject_free(subj);
    return REG_OK;
}
