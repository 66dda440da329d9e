/*
 * jsonschema_engine: the JSON Schema engine as the registry sees it -- the
 * engine table over the parse (jsonschema_parse.c), the diff and the tags.
 * The difference types and their messages are in jsonschema_change.c, which
 * the diff uses too.
 */
#include "compat/jsonschema/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * validateFields for JSON Schema, as Confluent's JsonSchema.validate(true):
 * a top-level object schema may not have a property whose name starts with
 * "$$" (such names are reserved for Confluent's own use).
 */
static int engine_validate_fields(const jsonschema_t *s, char **error)
{
    const jsonschema_node_t *root = s->root;
    if (root->kind != JSONSCHEMA_NODE_OBJECT)
        return 0;
    for (size_t i = 0; i < root->nprops; i++) {
        if (root->props[i].name.len >= 2 && memcmp(root->props[i].name.s, "$$", 2) == 0) {
            *error = strdup("Field names cannot start with $$ prefix");
            return -1;
        }
    }
    return 0;
}

static void *engine_parse(const char *text, size_t len, const schema_ref_t *refs, size_t nrefs, int flags,
                          char **canonical, char **error)
{
    jsonschema_t *s = jsonschema_parse(text, len, refs, nrefs, flags, error);
    if (!s)
        return NULL;
    if ((flags & SCHEMA_PARSE_VALIDATE_FIELDS) && engine_validate_fields(s, error) != 0) {
        jsonschema_free(s);
        return NULL;
    }
    *canonical = strdup(s->canonical);
    if (!*canonical) {
        jsonschema_free(s);
        *error = strdup("out of memory");
        return NULL;
    }
    return s;
}

static void engine_free(void *model)
{
    jsonschema_free(model);
}

static int engine_backward(const void *self, const void *previous, strlist_t *out)
{
    return jsonschema_backward(self, previous, JSONSCHEMA_STRICT, out);
}

static int engine_backward_lenient(const void *self, const void *previous, strlist_t *out)
{
    return jsonschema_backward(self, previous, JSONSCHEMA_LENIENT, out);
}

/* JsonSchema.hasTopLevelField: a key of the top-level "properties". */
static int engine_has_top_level_field(const void *model, const char *name)
{
    const jsonschema_node_t *root = ((const jsonschema_t *)model)->root;
    return root && jsonschema_node_prop(root, name, strlen(name)) != NULL;
}

static int engine_tagged(const void *model, schema_tagged_t **out, size_t *n)
{
    return jsonschema_tags_list(model, out, n);
}

static int engine_changes(const void *old_model, const void *new_model, change_list_t *out)
{
    return jsonschema_changes(old_model, new_model, out);
}

const schema_engine_t jsonschema_engine = {
    .type = SCHEMA_JSON,
    .parse = engine_parse,
    .free = engine_free,
    .backward = engine_backward,
    .format = NULL,
    .backward_lenient = engine_backward_lenient,
    .has_top_level_field = engine_has_top_level_field,
    .changes = engine_changes,
    .tags_edit = jsonschema_tags_edit,
    .tagged = engine_tagged,
};
