/*
 * schema: dispatch from a schema type to its engine, and the parsed-schema
 * wrapper every caller uses.
 */
#include "compat/schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat/avro/avro.h"
#include "compat/jsonschema/jsonschema.h"
#include "compat/protobuf/protobuf.h"

struct schema {
    const schema_engine_t *engine;
    void *model;
    char *canonical;
    size_t canonical_len;
};

static const char *const type_names[SCHEMA_TYPE_COUNT] = {
    [SCHEMA_AVRO] = "AVRO",
    [SCHEMA_JSON] = "JSON",
    [SCHEMA_PROTOBUF] = "PROTOBUF",
};

/* Every engine is always built in (compat links all three). */
static const schema_engine_t *const engines[SCHEMA_TYPE_COUNT] = {
    [SCHEMA_AVRO] = &avro_engine,
    [SCHEMA_JSON] = &jsonschema_engine,
    [SCHEMA_PROTOBUF] = &protobuf_engine,
};

const char *schema_type_name(schema_type_t type)
{
    return type_names[type];
}

int schema_type_parse(const char *name, schema_type_t *out)
{
    if (!name) {
        *out = SCHEMA_AVRO;
        return 0;
    }
    for (int i = 0; i < SCHEMA_TYPE_COUNT; i++) {
        if (strcmp(name, type_names[i]) == 0) {
            *out = (schema_type_t)i;
            return 0;
        }
    }
    return -1;
}

const schema_engine_t *schema_engine(schema_type_t type)
{
    return engines[type];
}

schema_t *schema_parse(schema_type_t type, const char *text, size_t len, const schema_ref_t *refs,
                       size_t nrefs, int flags, char **error)
{
    *error = NULL;
    const schema_engine_t *engine = engines[type];
    schema_t *s = calloc(1, sizeof *s);
    if (!s) {
        *error = strdup("out of memory");
        return NULL;
    }
    s->engine = engine;
    s->model = engine->parse(text, len, refs, nrefs, flags, &s->canonical, error);
    if (!s->model) {
        if (!*error)
            *error = strdup("invalid schema");
        free(s);
        return NULL;
    }
    s->canonical_len = strlen(s->canonical);
    return s;
}

void schema_free(schema_t *s)
{
    if (!s)
        return;
    s->engine->free(s->model);
    free(s->canonical);
    free(s);
}

schema_type_t schema_get_type(const schema_t *s)
{
    return s->engine->type;
}

const void *schema_model(const schema_t *s)
{
    return s->model;
}

const char *schema_canonical(const schema_t *s)
{
    return s->canonical;
}

size_t schema_canonical_len(const schema_t *s)
{
    return s->canonical_len;
}

int schema_backward(const schema_t *self, const schema_t *previous, strlist_t *out)
{
    return schema_backward_policy(self, previous, 0, out);
}

int schema_backward_policy(const schema_t *self, const schema_t *previous, int lenient, strlist_t *out)
{
    if (self->engine != previous->engine)
        return strlist_push(out, "Incompatible because of different schema type");
    if (lenient && self->engine->backward_lenient)
        return self->engine->backward_lenient(self->model, previous->model, out);
    return self->engine->backward(self->model, previous->model, out);
}

int schema_has_top_level_field(const schema_t *s, const char *name)
{
    return s->engine->has_top_level_field ? s->engine->has_top_level_field(s->model, name) : 0;
}

char *schema_format(const schema_t *s, const char *format)
{
    if (format && *format && s->engine->format) {
        char *text = s->engine->format(s->model, format);
        if (text)
            return text;
    }
    return strdup(s->canonical);
}

int schema_equivalent(const schema_t *a, const schema_t *b)
{
    if (a->engine != b->engine)
        return 0;
    if (a->engine->equivalent)
        return a->engine->equivalent(a->model, b->model);
    return a->canonical_len == b->canonical_len && memcmp(a->canonical, b->canonical, a->canonical_len) == 0;
}

int schema_changes(const schema_t *old_schema, const schema_t *new_schema, change_list_t *out)
{
    if (old_schema->engine != new_schema->engine)
        return change_list_push(out, CHANGE_OTHER, "", schema_type_name(old_schema->engine->type),
                                schema_type_name(new_schema->engine->type), "SCHEMA_TYPE_CHANGED", 0, 0);
    if (!old_schema->engine->changes)
        return 0;
    return old_schema->engine->changes(old_schema->model, new_schema->model, out);
}

/* ---- 5. Inline tags ------------------------------------------------------ */

char *schema_tags_edit(schema_type_t type, const char *text, size_t len, const schema_tag_edit_t *edits,
                       size_t n, char **error)
{
    const schema_engine_t *e = schema_engine(type);
    *error = NULL;
    if (e && e->tags_edit)
        return e->tags_edit(text, len, edits, n, error);
    /* Confluent edits every format; this registry not yet (docs/api.md, "Tags"). With
     * nothing to edit, ParsedSchema.copy gives the schema back unchanged. */
    if (n == 0) {
        char *copy = malloc(len + 1);
        if (copy) {
            memcpy(copy, text, len);
            copy[len] = '\0';
        }
        return copy;
    }
    if (asprintf(error, "Tags are not supported for schema type %s by this registry",
                 schema_type_name(type)) < 0)
        *error = NULL;
    return NULL;
}

int schema_tagged(const schema_t *s, schema_tagged_t **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    return s->engine->tagged ? s->engine->tagged(s->model, out, n) : 0;
}
