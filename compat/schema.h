/*
 * schema: one interface over the three schema engines (Avro, Protobuf, JSON Schema).
 *
 * Contents
 *   1. Schema types
 *   2. References handed to a parser
 *   3. The engine table (what every format implements)
 *   4. Parsed schemas: parse, canonical text, formats, the backward check, equivalence,
 *      the change list (compat/change.h)
 *   5. Inline tags: editing them into a schema's text, listing the tagged entities
 *
 * A parsed schema_t is immutable once schema_parse() returns it, so one
 * parsed schema may be shared by many threads (the registry caches them per
 * id). Nothing here does I/O: references arrive already resolved, as text.
 */
#ifndef COMPAT_SCHEMA_H
#define COMPAT_SCHEMA_H

#include <stddef.h>
#include <stdlib.h>

#include "compat/change.h"
#include "base/strlist.h"

/* ---- 1. Schema types ------------------------------------------------- */

typedef enum schema_type {
    SCHEMA_AVRO = 0,
    SCHEMA_JSON = 1,
    SCHEMA_PROTOBUF = 2,
} schema_type_t;
#define SCHEMA_TYPE_COUNT 3

/* "AVRO", "JSON", "PROTOBUF". */
const char *schema_type_name(schema_type_t type);
/* Exact, case-sensitive match of a schemaType value; NULL means AVRO.
 * Returns 0, or -1 for an unknown name. */
int schema_type_parse(const char *name, schema_type_t *out);

/* ---- 2. References ------------------------------------------------------ */

/*
 * A schema this one refers to. The caller resolves the whole transitive
 * closure and passes it flattened, dependencies before their dependents,
 * each (subject, version) once. All pointers are borrowed for the duration
 * of the call.
 *   Avro:     name = full name of a named type the text defines
 *   Protobuf: name = import path ("common/money.proto")
 *   JSON:     name = the $ref URL
 */
typedef struct schema_ref {
    const char *name;
    const char *subject;
    int version;
    const char *text; /* the stored (canonical) text of the referenced version */
} schema_ref_t;

/* ---- 3. The engine table --------------------------------------------- */

enum {
    SCHEMA_PARSE_NEW = 1,       /* "validate as new": the stricter rules for registration */
    SCHEMA_PARSE_NORMALIZE = 2, /* apply the format's normalization before canonicalizing */
    /* validateFields (docs/compatibility.md, "validateFields"): the format's strict field
     * rules, as Confluent's ParsedSchema.validate(true). Only JSON Schema has one; Avro's
     * AvroSchema keeps the default, and ProtobufSchema's builds the descriptor, which every
     * parse here does anyway. */
    SCHEMA_PARSE_VALIDATE_FIELDS = 4,
};

struct schema_tag_edit; /* section 5 */
struct schema_tagged;

typedef struct schema_engine {
    schema_type_t type;
    /*
     * Parses text (len bytes, not necessarily NUL-terminated). On success
     * returns the model and sets *canonical (malloc'd, NUL-terminated).
     * On failure returns NULL and sets *error (malloc'd, human readable,
     * e.g. "Invalid default for field f: ..."). Never crashes on any input.
     */
    void *(*parse)(const char *text, size_t len, const schema_ref_t *refs, size_t nrefs, int flags,
                   char **canonical, char **error);
    void (*free)(void *model);
    /*
     * "self can be used as the reader / update of data or contracts of
     * previous": appends one raw message per incompatibility to out. Raw
     * messages may contain two "%s" placeholders, the first for self's role
     * and the second for previous's role (compat_check substitutes "new" or
     * "old"). Returns 0, or -1 when out of memory. Must be safe to call on
     * models shared between threads.
     */
    int (*backward)(const void *self, const void *previous, strlist_t *out);
    /*
     * Renders the model in a named output format (the "format" query
     * parameter). Returns malloc'd text, or NULL when the format is unknown
     * for this type (the caller then serves the canonical text).
     * May be NULL when a type has no formats.
     */
    char *(*format)(const void *model, const char *format);
    /*
     * Confluent's ParsedSchema.equivalent: the same schema, references aside
     * (a lookup of a schema sent with its references' types inlined finds
     * the version that refers to them). 1 or 0; safe on shared models. May
     * be NULL: schema_equivalent then compares the canonical texts, as
     * ParsedSchema's default does.
     */
    int (*equivalent)(const void *self, const void *other);
    /*
     * backward under Confluent's CompatibilityPolicy.LENIENT (a wider set of
     * compatible changes; only JSON Schema has one: SchemaDiff.COMPATIBLE_CHANGES_LENIENT).
     * May be NULL: the policy then changes nothing for the type.
     */
    int (*backward_lenient)(const void *self, const void *previous, strlist_t *out);
    /*
     * ParsedSchema.hasTopLevelField: a field of that name at the top (an Avro
     * record's field, a property of the top-level JSON object, a field of a
     * top-level Protobuf message, oneof members aside). 1 or 0; may be NULL (0).
     */
    int (*has_top_level_field)(const void *model, const char *name);
    /*
     * The changes from old to new in the model of compat/change.h, mapped
     * from the engine's own difference types (docs/evolution.md), appended
     * to out in the order the engine finds them. Returns 0, or -1 when out
     * of memory or the pair is too large to compare. Safe on shared models.
     */
    int (*changes)(const void *old_model, const void *new_model, change_list_t *out);
    /*
     * ParsedSchema.copy(tagsToAdd, tagsToRemove): text (a stored canonical
     * text, len bytes) with each edit applied in order, as new text to
     * register (malloc'd); NULL and *error (malloc'd, the message of
     * Confluent's IllegalArgumentException, e.g. "No matching path 'x' found
     * in the schema") when an entity is not in the schema. Pure. May be NULL:
     * the format has no tag edits here (section 5).
     */
    char *(*tags_edit)(const char *text, size_t len, const struct schema_tag_edit *edits, size_t n,
                       char **error);
    /*
     * ParsedSchema.inlineTaggedEntities: the records and fields carrying
     * inline tags, in Confluent's order. Returns 0 (*out malloc'd, free with
     * schema_tagged_free), or -1 when out of memory. May be NULL (none).
     */
    int (*tagged)(const void *model, struct schema_tagged **out, size_t *n);
} schema_engine_t;

/* The engine for a type, or NULL when the type is not compiled in. */
const schema_engine_t *schema_engine(schema_type_t type);

/* ---- 4. Parsed schemas ------------------------------------------------ */

typedef struct schema schema_t;

/* Parses with the type's engine. On failure returns NULL and *error (malloc'd). */
schema_t *schema_parse(schema_type_t type, const char *text, size_t len, const schema_ref_t *refs,
                       size_t nrefs, int flags, char **error);
void schema_free(schema_t *s);

schema_type_t schema_get_type(const schema_t *s);
/* The engine's parsed model (an avro_model_t for SCHEMA_AVRO, ...), borrowed and immutable: for
 * the readers of a model beside the engines (compat/logical). */
const void *schema_model(const schema_t *s);
/* Borrowed; lives as long as s. */
const char *schema_canonical(const schema_t *s);
size_t schema_canonical_len(const schema_t *s);

/* Raw backward messages of self against previous (see schema_engine_t.backward).
 * Different types yield the single message "Incompatible because of different schema type". */
int schema_backward(const schema_t *self, const schema_t *previous, strlist_t *out);
/* The same under CompatibilityPolicy.LENIENT when lenient (schema_engine_t.backward_lenient). */
int schema_backward_policy(const schema_t *self, const schema_t *previous, int lenient, strlist_t *out);
/* ParsedSchema.hasTopLevelField (schema_engine_t.has_top_level_field). */
int schema_has_top_level_field(const schema_t *s, const char *name);

/* Text in the requested format, malloc'd; falls back to a copy of the canonical text. */
char *schema_format(const schema_t *s, const char *format);

/* ParsedSchema.equivalent (see schema_engine_t.equivalent); 0 for different types. */
int schema_equivalent(const schema_t *a, const schema_t *b);

/* The changes from old to new (schema_engine_t.changes). Different types
 * yield one OTHER change with detail "SCHEMA_TYPE_CHANGED", breaking both
 * directions. Returns 0 or -1. */
int schema_changes(const schema_t *old_schema, const schema_t *new_schema, change_list_t *out);

/* ---- 5. Inline tags ---------------------------------------------------- */

/* SchemaEntity.EntityType: "sr_record", "sr_field". */
typedef enum schema_entity_kind {
    SCHEMA_ENTITY_RECORD = 0,
    SCHEMA_ENTITY_FIELD = 1,
} schema_entity_kind_t;

/*
 * One entity of a TagSchemaRequest with what to do to its tags, as
 * TagSchemaRequest.schemaTagsListToMap merges the lists: entities equal by
 * kind and by path without a leading "." are one edit (the first path as
 * sent kept), edits ordered as the entities first appear in tagsToAdd, then
 * in tagsToRemove; each list without duplicates. The engine adds, then
 * removes (copy's addBeforeRemove = true). All borrowed.
 */
typedef struct schema_tag_edit {
    const char *path; /* entityPath as sent: Avro splits it as sent, leading "." included */
    schema_entity_kind_t kind;
    const strlist_t *add;
    const strlist_t *remove;
} schema_tag_edit_t;

/* One SchemaTags of an answer's "schemaTags". */
typedef struct schema_tagged {
    char *path;
    schema_entity_kind_t kind;
    strlist_t tags; /* in the schema's order, without duplicates */
} schema_tagged_t;

/* Frees n listings and the array. Inline: the engines free a listing they
 * could not finish with it, and they never call into compat/schema.c. */
static inline void schema_tagged_free(schema_tagged_t *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(t[i].path);
        strlist_clear(&t[i].tags);
    }
    free(t);
}

/* The engine's tags_edit for type. An engine without one: NULL and *error
 * "Tags are not supported for schema type X by this registry" (docs/api.md). */
char *schema_tags_edit(schema_type_t type, const char *text, size_t len, const schema_tag_edit_t *edits,
                       size_t n, char **error);
/* The engine's tagged (none for an engine without one). 0, or -1 out of memory. */
int schema_tagged(const schema_t *s, schema_tagged_t **out, size_t *n);

#endif
