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

/* The engine's edit of text; NULL with *rc and err set when it fails. */
static char *tags_apply(schema_type_t type, const char *text, size_t len, const schema_tag_edit_t *edits,
                        size_t n, reg_code_t *rc, reg_error_t *err)
{
    char *error = NULL;
    char *out = schema_tags_edit(type, text, len, edits, n, &error);
    if (out)
        return out;
    /* Confluent wraps the IllegalArgumentException in an InvalidSchemaException,
     * whose message is the cause's toString. */
    if (!error)
        base_oom(0); /* the engine's out of memory: the registry's allocation policy */
    const schema_engine_t *engine = schema_engine(type);
    *rc = engine && engine->tags_edit
              ? reg_fail(err, REG_INVALID_SCHEMA, "java.lang.IllegalArgumentException: %s", error)
              : reg_fail(err, REG_INVALID_SCHEMA, "%s", error); /* this registry's own refusal */
    free(error);
    return NULL;
}

reg_code_t registry_modify_tags(registry_t *reg, store_t *db, const char *subject, const char *version_text,
                                const reg_tag_request_t *req, reg_view_t *out, reg_error_t *err)
{
    reg_view_t view = {0};
    reg_code_t rc = registry_get_version(reg, subject, version_text, 0, &view, err);
    if (rc != REG_OK)
        return rc;
    const reg_schema_t *s = view.schema;
    char *text = tags_apply(s->type, s->text, s->text_len, req->edits, req->nedits, &rc, err);
    if (!text) {
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

/* maybePropagateSchemaTags: the latest live version's tagged entities, added
 * to text (malloc'd, or NULL with *rc when a path is not in it); a copy of
 * text when there is nothing to add. */
static char *propagate(registry_t *reg, const char *subject, schema_type_t type, const char *text, size_t len,
                       reg_code_t *rc, reg_error_t *err)
{
    reg_view_t latest = {0};
    reg_error_t ignored;
    schema_tagged_t *tagged = NULL;
    size_t n = 0;
    if (registry_get_version(reg, subject, "latest", 0, &latest, &ignored) == REG_OK) {
        const schema_t *parsed = registry_parsed(reg, latest.schema, &ignored);
        if (parsed && schema_tagged(parsed, &tagged, &n) != 0)
            base_oom(0);
    }
    reg_view_clear(&latest);
    char *out;
    if (n == 0) {
        out = xmalloc(len + 1);
        memcpy(out, text, len);
        out[len] = '\0';
    } else {
        schema_tag_edit_t *edits = xcalloc(n, sizeof *edits);
        for (size_t i = 0; i < n; i++)
            edits[i] = (schema_tag_edit_t){tagged[i].path, tagged[i].kind, &tagged[i].tags, NULL};
        out = tags_apply(type, text, len, edits, n, rc, err);
        free(edits);
    }
    schema_tagged_free(tagged, n);
    return out;
}

/* A failed edit of a schema that does not parse is the registration's own
 * 42201 (Confluent's parseSchema comes before copy), found by a check that
 * writes nothing; otherwise rc, the edit's error, as it is. */
static reg_code_t unparsed_or(registry_t *reg, store_t *db, const char *subject, const reg_request_t *req,
                              reg_code_t rc, reg_error_t *err)
{
    reg_error_t perr;
    strlist_t messages = {0};
    int compatible = 0;
    if (registry_check(reg, db, subject, NULL, req, 0, &compatible, &messages, &perr) == REG_INVALID_SCHEMA) {
        *err = perr;
        rc = REG_INVALID_SCHEMA;
    }
    strlist_clear(&messages);
    return rc;
}

reg_code_t registry_register_tagged(registry_t *reg, store_t *db, const char *subject,
                                    const reg_request_t *req, const reg_register_tags_t *tags,
                                    reg_view_t *out, reg_error_t *err)
{
    schema_type_t type = SCHEMA_AVRO;
    if (req->schema_type && schema_type_parse(req->schema_type, &type) != 0)
        return registry_register(reg, db, subject, req, out, err); /* its own error */
    const char *text = req->schema ? req->schema : "";
    size_t len = req->schema_len ? req->schema_len : strlen(text);
    reg_code_t rc = REG_OK;
    char *edited = NULL;
    json_t *md = NULL;
    reg_request_t r = *req;
    if (tags->nedits) {
        edited = tags_apply(type, text, len, tags->edits, tags->nedits, &rc, err);
        if (!edited)
            return unparsed_or(reg, db, subject, req, rc, err);
        /* toSchemaWithTags registers as version -1 when none is given, so
         * maybeSetMetadataRuleSet sets confluent:version on the request's
         * metadata, else the previous (latest live) version's. */
        reg_view_t latest = {0};
        reg_error_t ignored;
        const json_t *base = req->metadata;
        if (!base && registry_get_version(reg, subject, "latest", 0, &latest, &ignored) == REG_OK)
            base = latest.schema->metadata;
        md = md_with_version(base, req->version > 0 ? req->version : 0);
        reg_view_clear(&latest);
        r.metadata = md;
        text = edited;
        len = strlen(edited);
    }
    if (tags->propagate && registry_effective_mode(reg, subject) != MODE_IMPORT) {
        char *with = propagate(reg, subject, type, text, len, &rc, err);
        free(edited);
        edited = with;
        if (!edited) {
            json_decref(md);
            return rc;
        }
        text = edited;
        len = strlen(edited);
    }
    r.schema = text;
    r.schema_len = len;
    rc = registry_register(reg, db, subject, &r, out, err);
    json_decref(md);
    free(edited);
    return rc;
}
