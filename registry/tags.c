/*
 * tags: a schema's inline tags through the registry -- a new version with
 * tags edited into the schema text (SubjectVersionsResource.modifyTags,
 * AbstractSchemaRegistry.modifySchemaTags), and the tagged entities a read
 * with ?findTags= shows (extractSchemaTags). The edits are the engines'
 * (compat/schema.h, section 5); the new version is registered as any other.
 */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "registry/internal.h"

reg_code_t registry_modify_tags(registry_t *reg, store_t *db, const char *subject, const char *version_text,
                                const reg_tag_request_t *req, reg_view_t *out, reg_error_t *err)
{
    reg_view_t view = {0};
    reg_code_t rc = registry_get_version(reg, subject, version_text, 0, &view, err);
    if (rc != REG_OK)
        return rc;
    const reg_schema_t *s = view.schema;
    char *error = NULL;
    char *text = schema_tags_edit(s->type, s->text, s->text_len, req->edits, req->nedits, &error);
    if (!text) {
        /* Confluent wraps the IllegalArgumentException in an InvalidSchemaException,
         * whose message is the cause's toString. */
        if (!error)
            base_oom(0); /* the engine's out of memory: the registry's allocation policy */
        const schema_engine_t *engine = schema_engine(s->type);
        rc = engine && engine->tags_edit
                 ? reg_fail(err, REG_INVALID_SCHEMA, "java.lang.IllegalArgumentException: %s", error)
                 : reg_fail(err, REG_INVALID_SCHEMA, "%s", error); /* this registry's own refusal */
        free(error);
        reg_view_clear(&view);
        return rc;
    }
    /* The request's metadata, else the version's, with confluent:version (the
     * request's newVersion, or 0): registration then sets it to the number the
     * new version gets, since the property is there (maybeSetMetadataRuleSet). */
    json_t *md = md_with_version(req->metadata ? req->metadata : s->metadata, req->new_version);
    reg_request_t r = {
        .schema = text,
        .schema_len = strlen(text),
        .schema_type = schema_type_name(s->type),
        .refs = s->refs,
        .nrefs = s->nrefs,
        .id = -1,
        .version = req->new_version,
        .metadata = md,
    };
    rc = registry_register(reg, db, subject, &r, out, err);
    json_decref(md);
    free(text);
    reg_view_clear(&view);
    return rc;
}

static int find_matches(const strlist_t *find, const strlist_t *tags)
{
    for (size_t i = 0; i < find->n; i++) {
        if (strcmp(find->items[i], "*") == 0)
            return 1;
        for (size_t j = 0; j < tags->n; j++)
            if (strcmp(find->items[i], tags->items[j]) == 0)
                return 1;
    }
    return 0;
}

int registry_schema_tags(registry_t *reg, reg_schema_t *s, const strlist_t *find, schema_tagged_t **out,
                         size_t *n, reg_error_t *err)
{
    *out = NULL;
    *n = 0;
    const schema_t *parsed = registry_parsed(reg, s, err);
    if (!parsed)
        return -1;
    schema_tagged_t *all;
    size_t total;
    if (schema_tagged(parsed, &all, &total) != 0)
        base_oom(0);
    size_t kept = 0;
    for (size_t i = 0; i < total; i++) {
        if (find_matches(find, &all[i].tags)) {
            all[kept++] = all[i];
        } else {
            free(all[i].path);
            strlist_clear(&all[i].tags);
        }
    }
    *out = all;
    *n = kept;
    return 0;
}
