/*
 * changes: what changed between two versions of a subject, or between two
 * schemas of a request (docs/evolution.md). The list is the engines'
 * (schema_changes, compat/change.h); this file only finds the two schemas.
 *
 * Contents
 *   1. Results
 *   2. Two versions of a subject (GET .../versions/{v}/changes)
 *   3. Two schemas sent (POST /changes)
 *   4. A candidate against a version (the 409 and compatibility extension)
 *
 * Parsing is CPU work: the handlers call these on a worker, as they do
 * compatibility checks, though nothing here queries PostgreSQL.
 */
#include "registry/context.h"
#include "registry/index.h"
#include "registry/internal.h"
#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

/* ---- 1. Results ------------------------------------------------------------------------- */

void reg_changes_clear(reg_changes_t *c)
{
    change_list_clear(&c->list);
    free(c->summary);
    memset(c, 0, sizeof *c);
}

static reg_code_t fill(const schema_t *old_schema, const schema_t *new_schema, reg_changes_t *out,
                       reg_error_t *err)
{
    out->type = schema_get_type(new_schema);
    if (schema_changes(old_schema, new_schema, &out->list) != 0 ||
        !(out->summary = change_summary(&out->list)))
        return reg_fail(err, REG_INTERNAL, "The schemas are too large to compare");
    return REG_OK;
}

/* ---- 2. Two versions of a subject ---------------------------------------------------------- */

/* The live version before version (the latest when version is -1), or 0. */
static int previous_live(registry_t *reg, const char *subject, int version)
{
    reg_subject_t *subj = index_subject_copy(reg->idx, subject);
    int found = 0;
    for (size_t i = 0; subj && i < subj->n; i++)
        if (!subj->v[i].deleted && subj->v[i].version < version)
            found = subj->v[i].version;
    reg_subject_free(subj);
    return found;
}

reg_code_t registry_version_changes(registry_t *reg, const char *subject, const char *version_text,
                                    const char *from_text, reg_changes_t *out, reg_error_t *err)
{
    memset(out, 0, sizeof *out);
    reg_view_t to = {0}, from = {0};
    reg_code_t rc = registry_get_version(reg, subject, version_text, 0, &to, err);
    if (rc == REG_OK && !from_text) {
        int prev = previous_live(reg, subject, to.version);
        if (!prev) {
            rc = reg_fail(err, REG_VERSION_NOT_FOUND,
                          "Version %d is the first live version of subject '%s': name one to compare with in "
                          "?from=",
                          to.version, subject);
        } else {
            char text[16];
            snprintf(text, sizeof text, "%d", prev);
            rc = registry_get_version(reg, subject, text, 0, &from, err);
        }
    } else if (rc == REG_OK) {
        rc = registry_get_version(reg, subject, from_text, 0, &from, err);
    }
    const schema_t *old_schema = NULL, *new_schema = NULL;
    if (rc == REG_OK && (!(old_schema = registry_parsed(reg, from.schema, err)) ||
                         !(new_schema = registry_parsed(reg, to.schema, err))))
        rc = err->code;
    if (rc == REG_OK) {
        out->from_version = from.version;
        out->version = to.version;
        rc = fill(old_schema, new_schema, out, err);
    }
    reg_view_clear(&to);
    reg_view_clear(&from);
    return rc;
}

/* ---- 3. Two schemas sent ---------------------------------------------------------------------- */

/* As a lookup parses (stored rules, not the stricter ones for new schemas),
 * references resolved in context (an unqualified subject is in it, as for a
 * registration there: registry/refs.c), soft-deleted targets too. */
static reg_code_t parse_sent(registry_t *reg, const char *context, const reg_request_t *req, schema_t **out,
                             reg_error_t *err)
{
    reg_resolved_t res;
    reg_code_t rc = registry_parse_request(reg, context, req, req->normalize ? SCHEMA_PARSE_NORMALIZE : 0, 1,
                                           &res, out, err);
    reg_resolved_clear(&res);
    return rc;
}

reg_code_t registry_request_changes(registry_t *reg, const char *context, const reg_request_t *old_req,
                                    const reg_request_t *new_req, reg_changes_t *out, reg_error_t *err)
{
    memset(out, 0, sizeof *out);
    schema_t *old_schema = NULL, *new_schema = NULL;
    reg_code_t rc = parse_sent(reg, context, old_req, &old_schema, err);
    if (rc == REG_OK)
        rc = parse_sent(reg, context, new_req, &new_schema, err);
    if (rc == REG_OK)
        rc = fill(old_schema, new_schema, out, err);
    schema_free(old_schema);
    schema_free(new_schema);
    return rc;
}

/* ---- 4. A candidate against a version ------------------------------------------------------------ */

reg_code_t registry_candidate_changes(registry_t *reg, const char *subject, const char *version_text,
                                      const reg_request_t *req, reg_changes_t *out, reg_error_t *err)
{
    memset(out, 0, sizeof *out);
    reg_view_t prev = {0};
    reg_code_t rc = registry_get_version(reg, subject, version_text ? version_text : "latest", 0, &prev, err);
    if (rc != REG_OK)
        return rc;
    char *context = reg_context_copy(subject);
    schema_t *candidate = NULL;
    const schema_t *old_schema = registry_parsed(reg, prev.schema, err);
    rc = old_schema ? parse_sent(reg, context, req, &candidate, err) : err->code;
    if (rc == REG_OK) {
        out->from_version = prev.version;
        rc = fill(old_schema, candidate, out, err);
    }
    schema_free(candidate);
    free(context);
    reg_view_clear(&prev);
    return rc;
}
