/*
 * protobuf: the SCHEMA_PROTOBUF engine -- the thin layer between the
 * registry's schema interface (compat/schema.h) and the Protobuf model.
 */
#include "compat/protobuf/internal.h"

#include <stdlib.h>
#include <string.h>

static void *engine_parse(const char *text, size_t len, const schema_ref_t *refs, size_t nrefs, int flags,
                          char **canonical, char **error)
{
    return proto_schema_new(text, len, refs, nrefs, flags, canonical, error);
}

static void engine_free(void *model)
{
    proto_schema_free(model);
}

static int engine_backward(const void *self, const void *previous, strlist_t *out)
{
    return proto_backward(self, previous, out);
}

/* "serialized" and "ignore_extensions"; "default" and unknown formats fall
 * back to the canonical text (NULL here). */
static char *engine_format(const void *model, const char *format)
{
    const proto_schema_t *schema = model;
    if (strcmp(format, "serialized") == 0)
        return proto_schema_serialized(schema);
    if (strcmp(format, "ignore_extensions") == 0) {
        char *error = NULL;
        char *text = proto_print(proto_schema_file(schema), PROTO_PRINT_IGNORE_EXTENSIONS, NULL, &error);
        free(error);
        return text;
    }
    return NULL;
}

/* ProtobufSchema.hasTopLevelField: a field of a top-level message (oneof members aside). */
static int engine_has_top_level_field(const void *model, const char *name)
{
    const proto_file_t *file = proto_schema_file(model);
    for (size_t i = 0; i < file->n_types; i++) {
        const proto_message_t *m =
            file->types[i]->kind == PROTO_TYPE_MESSAGE ? file->types[i]->message : NULL;
        for (size_t j = 0; m && j < m->n_fields; j++)
            if (strcmp(m->fields[j]->name, name) == 0)
                return 1;
    }
    return 0;
}

static int engine_tagged(const void *model, schema_tagged_t **out, size_t *n)
{
    return proto_tags_list(proto_schema_file(model), out, n);
}

static int engine_changes(const void *old_model, const void *new_model, change_list_t *out)
{
    return proto_changes(old_model, new_model, out);
}

const schema_engine_t protobuf_engine = {
    .type = SCHEMA_PROTOBUF,
    .parse = engine_parse,
    .free = engine_free,
    .backward = engine_backward,
    .format = engine_format,
    .has_top_level_field = engine_has_top_level_field,
    .tags_edit = proto_tags_edit,
    .tagged = engine_tagged,
    .changes = engine_changes,
};
