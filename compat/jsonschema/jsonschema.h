/*
 * jsonschema: the JSON Schema engine (drafts 4, 6, 7, 2019-09, 2020-12).
 *
 * Contents
 *   1. The engine (plugged into compat/schema.h)
 *   2. Documents: parse, canonical text
 *   3. The diff: Confluent's difference types, policies, raw messages
 *   4. The schema object model (jsonschema_load*.c) and the JSON values it points into,
 *      read-only once parsed
 *
 * What only the engine's own files share (JSON values, the loader, the
 * diff's context) is in compat/jsonschema/internal.h.
 *
 * Documented in docs/compatibility.md "JSON Schema". The object model mirrors
 * the one Confluent's diff runs on (everit's, and for 2019-09/2020-12 the
 * translation of json-sKema's), because the diff's answers depend on how a
 * document is classified, not on what it means to a validator.
 *
 * Files: jsonschema_json.c (values), jsonschema_load.c (drafts 4-7),
 * jsonschema_load_modern.c (2019-09, 2020-12), jsonschema_node.c (nodes and
 * keyword checks both loaders share), jsonschema_ref.c ($ref and $id),
 * jsonschema_diff*.c (the comparison), jsonschema_change.c (difference types,
 * messages), jsonschema_changes.c (the change list of compat/change.h),
 * jsonschema_parse.c (parse), jsonschema_engine.c (the engine table),
 * jsonschema_tags.c (inline tags) with jsonschema_order.c (Confluent's
 * JsonSchemaComparator).
 */
#ifndef COMPAT_JSONSCHEMA_H
#define COMPAT_JSONSCHEMA_H

#include <stddef.h>

#include "compat/schema.h"
#include "base/strlist.h"

/* ---- 1. The engine ---------------------------------------------------- */

/* parse / free / backward (STRICT policy) for SCHEMA_JSON. No formats. */
extern const schema_engine_t jsonschema_engine;

/* ---- 2. Documents ----------------------------------------------------- */

typedef enum jsonschema_draft {
    JSONSCHEMA_DRAFT_4,
    JSONSCHEMA_DRAFT_6,
    JSONSCHEMA_DRAFT_7,
    JSONSCHEMA_DRAFT_2019_09,
    JSONSCHEMA_DRAFT_2020_12,
} jsonschema_draft_t;

typedef struct jsonschema jsonschema_t;

/*
 * Parses a JSON Schema document (len bytes, not necessarily NUL-terminated).
 * refs: the referenced schemas, name = the $ref URL, text = their stored text
 * (borrowed for the call). flags: SCHEMA_PARSE_NORMALIZE sorts every
 * object's keys before anything else. Never fetches anything: a $ref that
 * neither the document nor refs resolve is an error. On failure returns
 * NULL and *error (malloc'd; names the keyword path, e.g.
 * "#/properties/a/minLength: expected an integer, found string").
 */
jsonschema_t *jsonschema_parse(const char *text, size_t len, const schema_ref_t *refs, size_t nrefs,
                               int flags, char **error);
void jsonschema_free(jsonschema_t *s);

/* Compact JSON, key order kept (sorted when normalized). Borrowed. */
const char *jsonschema_canonical(const jsonschema_t *s);
jsonschema_draft_t jsonschema_get_draft(const jsonschema_t *s);

/* ---- 3. The diff ------------------------------------------------------ */

/* Every Confluent difference type, in Confluent's declaration order. */
#define JSONSCHEMA_CHANGE_TYPES(X)                                                                                                                                             \
    X(ID_CHANGED)                                                                                                                                                              \
    X(DESCRIPTION_CHANGED) X(TITLE_CHANGED) X(DEFAULT_CHANGED) X(SCHEMA_ADDED) X(SCHEMA_REMOVED) X(TYPE_EXTENDED) X(                                                           \
        TYPE_NARROWED) X(TYPE_CHANGED) X(MAX_LENGTH_ADDED) X(MAX_LENGTH_REMOVED) X(MAX_LENGTH_INCREASED) X(MAX_LENGTH_DECREASED)                                               \
        X(MIN_LENGTH_ADDED) X(MIN_LENGTH_REMOVED) X(MIN_LENGTH_INCREASED) X(MIN_LENGTH_DECREASED) X(PATTERN_ADDED) X(                                                          \
            PATTERN_REMOVED) X(PATTERN_CHANGED) X(MAXIMUM_ADDED) X(MAXIMUM_REMOVED) X(MAXIMUM_INCREASED) X(MAXIMUM_DECREASED)                                                  \
            X(MINIMUM_ADDED) X(MINIMUM_REMOVED) X(MINIMUM_INCREASED) X(MINIMUM_DECREASED) X(EXCLUSIVE_MAXIMUM_ADDED) X(                                                        \
                EXCLUSIVE_MAXIMUM_REMOVED) X(EXCLUSIVE_MAXIMUM_INCREASED) X(EXCLUSIVE_MAXIMUM_DECREASED) X(EXCLUSIVE_MINIMUM_ADDED)                                            \
                X(EXCLUSIVE_MINIMUM_REMOVED) X(EXCLUSIVE_MINIMUM_INCREASED) X(EXCLUSIVE_MINIMUM_DECREASED) X(                                                                  \
                    MULTIPLE_OF_ADDED) X(MULTIPLE_OF_REMOVED) X(MULTIPLE_OF_EXPANDED) X(MULTIPLE_OF_REDUCED)                                                                   \
                    X(MULTIPLE_OF_CHANGED) X(REQUIRED_ATTRIBUTE_ADDED) X(REQUIRED_ATTRIBUTE_WITH_DEFAULT_ADDED) X(                                                             \
                        REQUIRED_ATTRIBUTE_REMOVED) X(MAX_PROPERTIES_ADDED) X(MAX_PROPERTIES_REMOVED) X(MAX_PROPERTIES_INCREASED)                                              \
                        X(MAX_PROPERTIES_DECREASED) X(MIN_PROPERTIES_ADDED) X(MIN_PROPERTIES_REMOVED) X(                                                                       \
                            MIN_PROPERTIES_INCREASED) X(MIN_PROPERTIES_DECREASED) X(ADDITIONAL_PROPERTIES_ADDED)                                                               \
                            X(ADDITIONAL_PROPERTIES_REMOVED) X(ADDITIONAL_PROPERTIES_EXTENDED) X(                                                                              \
                                ADDITIONAL_PROPERTIES_NARROWED) X(DEPENDENCY_ARRAY_ADDED) X(DEPENDENCY_ARRAY_REMOVED)                                                          \
                                X(DEPENDENCY_ARRAY_EXTENDED) X(DEPENDENCY_ARRAY_NARROWED) X(DEPENDENCY_ARRAY_CHANGED) X(                                                       \
                                    DEPENDENCY_SCHEMA_ADDED) X(DEPENDENCY_SCHEMA_REMOVED) X(PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL)                                              \
                                    X(REQUIRED_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL) X(REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_OPEN_CONTENT_MODEL) X(                          \
                                        OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL) X(PROPERTY_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL)                               \
                                        X(REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL) X(REQUIRED_PROPERTY_WITH_DEFAULT_ADDED_TO_UNOPEN_CONTENT_MODEL) X(                  \
                                            OPTIONAL_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL) X(PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL)                                       \
                                            X(PROPERTY_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL) X(PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL) X(                          \
                                                PROPERTY_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL) X(PROPERTY_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL)   \
                                                X(PROPERTY_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL) X(PROPERTY_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL) X(  \
                                                    RESERVED_PROPERTY_REMOVED) X(RESERVED_PROPERTY_CONFLICTS_WITH_PROPERTY) X(UNEVALUATED_PROPERTIES_ADDED)                    \
                                                    X(UNEVALUATED_PROPERTIES_REMOVED) X(UNEVALUATED_PROPERTIES_EXTENDED) X(                                                    \
                                                        UNEVALUATED_PROPERTIES_NARROWED) X(MAX_ITEMS_ADDED) X(MAX_ITEMS_REMOVED)                                               \
                                                        X(MAX_ITEMS_INCREASED) X(MAX_ITEMS_DECREASED) X(MIN_ITEMS_ADDED) X(                                                    \
                                                            MIN_ITEMS_REMOVED) X(MIN_ITEMS_INCREASED) X(MIN_ITEMS_DECREASED)                                                   \
                                                            X(MAX_CONTAINS_ADDED) X(MAX_CONTAINS_REMOVED) X(                                                                   \
                                                                MAX_CONTAINS_INCREASED) X(MAX_CONTAINS_DECREASED)                                                              \
                                                                X(MIN_CONTAINS_ADDED) X(MIN_CONTAINS_REMOVED) X(MIN_CONTAINS_INCREASED) X(                                     \
                                                                    MIN_CONTAINS_DECREASED) X(UNIQUE_ITEMS_ADDED) X(UNIQUE_ITEMS_REMOVED)                                      \
                                                                    X(ADDITIONAL_ITEMS_ADDED) X(ADDITIONAL_ITEMS_REMOVED) X(                                                   \
                                                                        ADDITIONAL_ITEMS_EXTENDED) X(ADDITIONAL_ITEMS_NARROWED)                                                \
                                                                        X(UNEVALUATED_ITEMS_ADDED) X(                                                                          \
                                                                            UNEVALUATED_ITEMS_REMOVED) X(UNEVALUATED_ITEMS_EXTENDED)                                           \
                                                                            X(UNEVALUATED_ITEMS_NARROWED) X(                                                                   \
                                                                                ITEM_ADDED_TO_OPEN_CONTENT_MODEL) X(ITEM_WITH_EMPTY_SCHEMA_ADDED_TO_OPEN_CONTENT_MODEL)        \
                                                                                X(ITEM_ADDED_TO_CLOSED_CONTENT_MODEL) X(                                                       \
                                                                                    ITEM_REMOVED_FROM_OPEN_CONTENT_MODEL) X(ITEM_WITH_FALSE_REMOVED_FROM_CLOSED_CONTENT_MODEL) \
                                                                                    X(ITEM_REMOVED_FROM_CLOSED_CONTENT_MODEL) X(                                               \
                                                                                        ITEM_REMOVED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL)                               \
                                                                                        X(ITEM_REMOVED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL) X(                         \
                                                                                            ITEM_ADDED_IS_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL)                             \
                                                                                            X(ITEM_ADDED_NOT_COVERED_BY_PARTIALLY_OPEN_CONTENT_MODEL) X(                       \
                                                                                                ENUM_ARRAY_EXTENDED) X(ENUM_ARRAY_NARROWED)                                    \
                                                                                                X(ENUM_ARRAY_CHANGED) X(                                                       \
                                                                                                    COMBINED_TYPE_EXTENDED)                                                    \
                                                                                                    X(COMBINED_TYPE_CHANGED) X(                                                \
                                                                                                        PRODUCT_TYPE_EXTENDED)                                                 \
                                                                                                        X(PRODUCT_TYPE_NARROWED) X(                                            \
                                                                                                            SUM_TYPE_EXTENDED)                                                 \
                                                                                                            X(SUM_TYPE_NARROWED) X(                                            \
                                                                                                                COMBINED_TYPE_SUBSCHEMAS_CHANGED)                              \
                                                                                                                X(NOT_TYPE_EXTENDED)                                           \
                                                                                                                    X(NOT_TYPE_NARROWED)

#define JSONSCHEMA_CHANGE_ENUM_(name) JSONSCHEMA_##name,
typedef enum jsonschema_change {
    JSONSCHEMA_CHANGE_TYPES(JSONSCHEMA_CHANGE_ENUM_) JSONSCHEMA_CHANGE_COUNT
} jsonschema_change_t;
#undef JSONSCHEMA_CHANGE_ENUM_

/* Which compatible-change set decides (docs/compatibility.md "JSON Schema"). */
typedef enum jsonschema_policy {
    JSONSCHEMA_STRICT = 0,
    JSONSCHEMA_LENIENT = 1,
} jsonschema_policy_t;

/* Returned by the diff functions when the pair is too deep or too large to compare. */
#define JSONSCHEMA_DIFF_TOO_COMPLEX (-2)

/* "TYPE_CHANGED" etc. */
const char *jsonschema_change_name(jsonschema_change_t type);
/* Parses a type name, or a "TYPE #/path" change string. Returns 0 or -1. */
int jsonschema_change_parse(const char *text, jsonschema_change_t *out);
/* 1 when the type is in the policy's compatible set. */
int jsonschema_change_compatible(jsonschema_change_t type, jsonschema_policy_t policy);

/*
 * Confluent's compare(original, update): appends every difference as
 * "TYPE #/path" (the format of the conformance vectors) to changes. The
 * policy matters inside the diff too: it decides which branch of a combined
 * schema matches and whether a partially open content model covers a
 * property. Returns 0, -1 when out of memory, or JSONSCHEMA_DIFF_TOO_COMPLEX.
 */
int jsonschema_diff(const jsonschema_t *original, const jsonschema_t *update, jsonschema_policy_t policy,
                    strlist_t *changes);

/*
 * "self can read data / honour contracts of previous": runs the diff with
 * original = previous, update = self, and appends one raw message per
 * incompatible difference (docs/compatibility.md "Messages": {errorType:"T", description:"...'}
 * with two %s placeholders, self's role first). Returns 0 or -1.
 */
int jsonschema_backward(const jsonschema_t *self, const jsonschema_t *previous, jsonschema_policy_t policy,
                        strlist_t *out);

/* The changes from old to new (compat/change.h, docs/evolution.md "JSON
 * Schema"), mapped from the diff's difference types (jsonschema_changes.c).
 * Returns 0, or -1 when out of memory or too complex to compare. */
int jsonschema_changes(const jsonschema_t *old_schema, const jsonschema_t *new_schema, change_list_t *out);

/* The description of a difference at path, with the two %s placeholders
 * (docs/compatibility.md "Messages"). */
char *jsonschema_change_description(jsonschema_change_t type, const char *path);

/* ---- 4. The schema object model --------------------------------------- */

typedef enum jsonschema_kind {
    JSONSCHEMA_NODE_EMPTY, /* {} and keyword-less objects */
    JSONSCHEMA_NODE_TRUE,  /* true: an EMPTY for every rule but its class */
    JSONSCHEMA_NODE_FALSE,
    JSONSCHEMA_NODE_REFERENCE,
    JSONSCHEMA_NODE_STRING,
    JSONSCHEMA_NODE_NUMBER,
    JSONSCHEMA_NODE_BOOLEAN,
    JSONSCHEMA_NODE_NULL,
    JSONSCHEMA_NODE_ARRAY,
    JSONSCHEMA_NODE_OBJECT,
    JSONSCHEMA_NODE_ENUM,
    JSONSCHEMA_NODE_CONST,
    JSONSCHEMA_NODE_NOT,
    JSONSCHEMA_NODE_COMBINED,
    JSONSCHEMA_NODE_CONDITIONAL,
} jsonschema_kind_t;

typedef enum jsonschema_criterion {
    JSONSCHEMA_ALL_OF,
    JSONSCHEMA_ANY_OF,
    JSONSCHEMA_ONE_OF,
} jsonschema_criterion_t;

typedef struct jsonschema_node jsonschema_node_t;
/* A JSON value as written (compat/jsonschema/internal.h); nodes point into them. */
typedef struct jsonschema_json jsonschema_json_t;

/* A string borrowed from a document (may contain NUL). */
typedef struct jsonschema_str {
    const char *s;
    size_t len;
} jsonschema_str_t;

typedef struct jsonschema_prop {
    jsonschema_str_t name; /* property name, or regex for pattern properties */
    jsonschema_node_t *schema;
} jsonschema_prop_t;

typedef struct jsonschema_dep {
    jsonschema_str_t name;
    jsonschema_str_t *names; /* the properties it requires */
    size_t n, cap;
} jsonschema_dep_t;

/* An optional integer keyword (minLength, maxItems, ...). */
typedef struct jsonschema_int {
    int set;
    long long v;
} jsonschema_int_t;

/* Every field is valid for every kind; the ones a kind does not use stay
 * zero. Pointers into documents are borrowed from the owning jsonschema_t. */
struct jsonschema_node {
    jsonschema_kind_t kind;
    const jsonschema_json_t *src; /* the value it was loaded from (equality of subschemas) */
    const jsonschema_json_t *id, *title, *description, *default_value;
    /* Unprocessed properties the diff looks at. */
    int connect_bytes; /* "connect.type": "bytes" */
    const jsonschema_json_t *min_contains, *max_contains;
    jsonschema_node_t *unevaluated; /* 2019-09+: unevaluatedProperties / unevaluatedItems */

    /* REFERENCE */
    const char *ref;
    jsonschema_node_t *target;
    /* STRING */
    jsonschema_int_t min_length, max_length;
    const jsonschema_json_t *pattern;
    /* NUMBER */
    int requires_integer;
    const jsonschema_json_t *minimum, *maximum, *exclusive_minimum, *exclusive_maximum;
    const jsonschema_json_t *multiple_of;
    /* OBJECT */
    jsonschema_prop_t *props;
    size_t nprops, props_cap;
    jsonschema_str_t *required;
    size_t nrequired, required_cap;
    jsonschema_prop_t *pattern_props;
    size_t npattern_props, pattern_props_cap;
    int additional_forbidden;      /* additionalProperties / additionalItems: false */
    jsonschema_node_t *additional; /* additionalProperties / additionalItems schema */
    jsonschema_dep_t *dep_arrays;
    size_t ndep_arrays, dep_arrays_cap;
    jsonschema_prop_t *dep_schemas;
    size_t ndep_schemas, dep_schemas_cap;
    jsonschema_int_t min_properties, max_properties;
    /* Lookups by name once an object has JSONSCHEMA_INDEX_MIN properties or required
     * names (a diff asks for every name of one side in the other: quadratic by scans):
     * name -> position in props + 1, and the required names as a set. Built while
     * loading (jsonschema_node.c), read-only afterwards like the rest; NULL below the
     * threshold, where a scan is cheaper. */
    struct hmap *props_index;
    struct hmap *required_index;
    /* ARRAY */
    jsonschema_node_t *all_items;
    jsonschema_node_t **tuple;
    size_t ntuple, tuple_cap;
    jsonschema_int_t min_items, max_items;
    int unique_items;
    /* ENUM, CONST */
    const jsonschema_json_t **values;
    size_t nvalues, values_cap;
    const jsonschema_json_t *const_value;
    /* NOT, COMBINED */
    jsonschema_node_t *negated;
    jsonschema_criterion_t criterion;
    jsonschema_node_t **subs;
    size_t nsubs, subs_cap;
    int generated; /* made by the loader (type arrays, sibling keywords) */
    /* CONDITIONAL: the object holding "if"/"then"/"else", whose values'
     * nodes are the branches (the tag walk, jsonschema_tags.c). */
    const jsonschema_json_t *cond_owner;
};

/* The document as written, which nodes point into (src, title, default_value): a reader of the
 * model looks up the keywords it does not keep ("connect.type", "confluent:union") here. */
typedef enum jsonschema_json_kind {
    JSONSCHEMA_JSON_NULL,
    JSONSCHEMA_JSON_FALSE,
    JSONSCHEMA_JSON_TRUE,
    JSONSCHEMA_JSON_NUMBER,
    JSONSCHEMA_JSON_STRING,
    JSONSCHEMA_JSON_ARRAY,
    JSONSCHEMA_JSON_OBJECT,
} jsonschema_json_kind_t;

typedef struct jsonschema_member {
    char *key; /* UTF-8, may contain NUL: use key_len */
    size_t key_len;
    jsonschema_json_t *value;
} jsonschema_member_t;

struct jsonschema_json {
    jsonschema_json_kind_t kind;
    /* STRING: the decoded text. NUMBER: the text Jackson would print
     * (integers as written, decimals as Java's BigDecimal.toString). */
    char *str;
    size_t len;
    double num;     /* NUMBER: the value, for comparisons */
    int is_integer; /* NUMBER: written without fraction or exponent */
    size_t n;       /* ARRAY, OBJECT: element count */
    jsonschema_json_t **elems;
    jsonschema_member_t *members;
    void *node; /* loader scratch: the schema node loaded from this value */
};

/* Compact text (malloc'd), NULL when out of memory. */
char *jsonschema_json_dump(const jsonschema_json_t *v);
/* Member value by NUL-free key, or NULL (borrowed). */
const jsonschema_json_t *jsonschema_json_get(const jsonschema_json_t *obj, const char *key);
/* 1 when str/len equals the NUL-terminated s. */
int jsonschema_json_str_is(const jsonschema_json_t *v, const char *s);

/* The property named name (len bytes) of an object node, or NULL. */
const jsonschema_node_t *jsonschema_node_prop(const jsonschema_node_t *n, const char *name, size_t len);
/* 1 when an object node lists name among its required properties. */
int jsonschema_node_requires(const jsonschema_node_t *n, const char *name, size_t len);

/* The root node (borrowed; lives as long as s). */
const jsonschema_node_t *jsonschema_root(const jsonschema_t *s);
/* Follows REFERENCE nodes to the schema they name (NULL on a $ref cycle). */
const jsonschema_node_t *jsonschema_node_deref(const jsonschema_node_t *n);

#endif
