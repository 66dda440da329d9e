/*
 * avro_engine: the Avro model behind compat/schema.h: parse with canonical
 * text, the backward check as Confluent's raw messages (AvroSchema.isBackwardCompatible), the
 * "resolved" output format, and AvroSchema.equivalent for lookups.
 */
#include "compat/avro/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void *engine_parse(const char *text, size_t len, const schema_ref_t *refs, size_t nrefs, int flags,
                          char **canonical, char **error)
{
    avro_model_t *m = avro_model_parse(text, len, refs, nrefs, flags, error);
    if (!m)
        return NULL;
    if (!(*canonical = avro_model_canonical(m))) {
        avro_model_free(m);
        *error = strdup("out of memory");
        return NULL;
    }
    return m;
}

static void engine_free(void *model)
{
    avro_model_free(model);
}

/* Confluent's Difference.toString; the two %s are the reader's and the
 * writer's roles, filled in by compat_check. */
static char *issue_message(const avro_issue_t *it)
{
    const char *type = avro_issue_type_name(it->type);
    const char *p = it->location, *m = it->message;
    char *out = NULL;
    int rc = -1;
    switch (it->type) {
    case AVRO_ISSUE_FIXED_SIZE_MISMATCH:
        rc = asprintf(&out,
                      "{errorType:'%s', description:'The size of FIXED type field at path '%s' in the %%s "
                      "schema does not match with the %%s schema', additionalInfo:'%s'}",
                      type, p, m);
        break;
    case AVRO_ISSUE_TYPE_MISMATCH:
        rc = asprintf(&out,
                      "{errorType:'%s', description:'The type (path '%s') of a field in the %%s schema does "
                      "not match with the %%s schema', additionalInfo:'%s'}",
                      type, p, m);
        break;
    case AVRO_ISSUE_NAME_MISMATCH:
        rc = asprintf(&out,
                      "{errorType:'%s', description:'The name of the schema has changed (path '%s')', "
                      "additionalInfo:'%s'}",
                      type, p, m);
        break;
    case AVRO_ISSUE_MISSING_ENUM_SYMBOLS:
        rc = asprintf(&out,
                      "{errorType:'%s', description:'The %%s schema is missing enum symbols '%s' at path "
                      "'%s' in the %%s schema', additionalInfo:'%s'}",
                      type, m, p, m);
        break;
    case AVRO_ISSUE_MISSING_UNION_BRANCH:
        rc = asprintf(&out,
                      "{errorType:'%s', description:'The %%s schema is missing a type inside a union field "
                      "at path '%s' in the %%s schema', additionalInfo:'%s'}",
                      type, p, m);
        break;
    case AVRO_ISSUE_READER_FIELD_MISSING_DEFAULT_VALUE:
        rc = asprintf(&out,
                      "{errorType:'%s', description:'The field '%s' at path '%s' in the %%s schema has no "
                      "default value and is missing in the %%s schema', additionalInfo:'%s'}",
                      type, m, p, m);
        break;
    }
    return rc < 0 ? NULL : out;
}

static int engine_backward(const void *self, const void *previous, strlist_t *out)
{
    avro_issues_t issues = {0};
    int rc = avro_check(self, previous, &issues);
    if (rc < 0)
        return -1;
    rc = 0;
    if (issues.exception)
        rc = strlist_pushf(out, "Unexpected exception during compatibility check: %s", issues.exception);
    for (size_t i = 0; i < issues.n && rc == 0; i++)
        rc = strlist_push_owned(out, issue_message(&issues.items[i]));
    avro_issues_free(&issues);
    return rc;
}

/* Confluent's formats: "default" (the canonical text) and "resolved",
 * matched case-insensitively; NULL lets the caller serve the canonical text. */
static char *engine_format(const void *model, const char *format)
{
    if (format && strcasecmp(format, "resolved") == 0)
        return avro_model_resolved(model);
    return NULL;
}

static int engine_equivalent(const void *self, const void *other)
{
    return avro_model_equivalent(self, other);
}

/* AvroSchema.hasTopLevelField: a field of the top-level record. */
static int engine_has_top_level_field(const void *model, const char *name)
{
    const avro_node_t *root = ((const avro_model_t *)model)->root;
    if (!root || root->kind != AVRO_KIND_RECORD)
        return 0;
    for (size_t i = 0; i < root->u.record.n; i++)
        if (strcmp(root->u.record.fields[i].name, name) == 0)
            return 1;
    return 0;
}

static int engine_changes(const void *old_model, const void *new_model, change_list_t *out)
{
    return avro_changes(old_model, new_model, out);
}

static int engine_tagged(const void *model, schema_tagged_t **out, size_t *n)
{
    return avro_tags_list(model, out, n);
}

const schema_engine_t avro_engine = {
    .type = SCHEMA_AVRO,
    .parse = engine_parse,
    .free = engine_free,
    .backward = engine_backward,
    .format = engine_format,
    .equivalent = engine_equivalent,
    .has_top_level_field = engine_has_top_level_field,
    .changes = engine_changes,
    .tags_edit = avro_tags_edit,
    .tagged = engine_tagged,
};
