/*
 * logical: compatibilityPolicy LOGICAL, the Flink and Iceberg logical-type checks that Confluent's
 * LogicalPolicyChecker adds on top of a format's own compatibility check (docs/compatibility.md,
 * "compatibilityPolicy").
 *
 * Contents
 *   1. The logical-type model (Confluent's LogicalType and its Schema tree)
 *   2. Conversion from a parsed schema (AvroToLogicalTypeConverter, ProtoToLogicalTypeConverter,
 *      JsonToLogicalTypeConverter)
 *   3. Validity of one schema (ValidityChecker)
 *   4. Compatibility of two schemas (CompatibilityChecker: FlinkComparison, IcebergComparison)
 *   5. The policy: what LOGICAL appends to a check's messages (LogicalPolicyChecker.check)
 *
 * Not an engine: it reads the engines' parsed models through their public headers, and no engine
 * sees it. Avro, Protobuf and JSON Schema convert (docs/compatibility.md lists what of Confluent's
 * converters is not reproduced).
 *
 * Everything here is pure and reentrant; a model is immutable once built.
 */
#ifndef COMPAT_LOGICAL_H
#define COMPAT_LOGICAL_H

#include <stddef.h>

#include "compat/schema.h"
#include "base/arena.h"
#include "base/hmap.h"
#include "base/strlist.h"

/* ---- 1. The model ---------------------------------------------------------- */

/* Schema.Type, in Confluent's order. */
typedef enum logical_kind {
    LOGICAL_STRUCT,
    LOGICAL_ENUM,
    LOGICAL_UNION,
    LOGICAL_MAP,
    LOGICAL_ARRAY,
    LOGICAL_MULTISET,
    LOGICAL_BOOLEAN,
    LOGICAL_TINYINT,
    LOGICAL_SMALLINT,
    LOGICAL_INT,
    LOGICAL_BIGINT,
    LOGICAL_FLOAT,
    LOGICAL_DOUBLE,
    LOGICAL_DECIMAL,
    LOGICAL_VARCHAR,
    LOGICAL_CHAR,
    LOGICAL_BINARY,
    LOGICAL_VARBINARY,
    LOGICAL_DATE,
    LOGICAL_TIME,
    LOGICAL_TIMESTAMP,
    LOGICAL_TIMESTAMP_LTZ,
    LOGICAL_VARIANT,
    LOGICAL_NAMED_TYPE_REF,
} logical_kind_t;

/* Schema.NO_PARAM and Schema.MAX_LENGTH (an unbounded VARCHAR is STRING, VARBINARY is BYTES). */
#define LOGICAL_NO_PARAM   (-1)
#define LOGICAL_MAX_LENGTH 2147483647

typedef struct logical_node logical_node_t;

/* A struct field or a union branch. has_default: the field declares one; default_is_null: it is
 * JSON null (Confluent's "hasDefault && defaultValue == null"). Branches have neither. */
typedef struct logical_member {
    const char *name;
    const logical_node_t *type;
    int has_default;
    int default_is_null;
} logical_member_t;

struct logical_node {
    logical_kind_t kind;
    int nullable;
    int precision;             /* DECIMAL, TIME, TIMESTAMP, TIMESTAMP_LTZ */
    int scale;                 /* DECIMAL; LOGICAL_NO_PARAM when omitted */
    int length;                /* CHAR, VARCHAR, BINARY, VARBINARY */
    const char *ref;           /* NAMED_TYPE_REF: the qualified name */
    logical_member_t *members; /* STRUCT fields, UNION branches, in order */
    size_t n;
    const logical_node_t *element;     /* ARRAY, MULTISET */
    const logical_node_t *key, *value; /* MAP */
};

/* A LogicalType: the root and the named types the root refers to by name. */
typedef struct logical_model {
    arena_t *arena; /* every node and string */
    const logical_node_t *root;
    hmap_t named; /* qualified name -> const logical_node_t * (in the arena) */
} logical_model_t;

void logical_model_free(logical_model_t *m);

/* ---- 2. Conversion --------------------------------------------------------- */

/*
 * The logical type of a parsed schema. Returns 0 and *out; 1 and *error (malloc'd, the reason
 * Confluent's converter throws, e.g. "Standalone NULL type is not supported") when the schema has
 * none; 2 when it has none here (a Protobuf file of public imports only); -1 when out of memory.
 */
int logical_from_schema(const schema_t *s, logical_model_t **out, char **error);

/* ---- 3. Validity ------------------------------------------------------------ */

/* LogicalTypeChecker.Mode. */
typedef enum logical_mode {
    LOGICAL_MODE_FLINK,
    LOGICAL_MODE_ICEBERG_V2,
    LOGICAL_MODE_ICEBERG_V3,
} logical_mode_t;

/* "FLINK", "ICEBERG_V2", "ICEBERG_V3". */
const char *logical_mode_name(logical_mode_t mode);

/* ValidityChecker.validate: appends one Invalidity.toString per finding ("RULE at 'path':
 * message", or "RULE: message" at the root), in discovery order. 0, or -1 out of memory. */
int logical_validate(logical_mode_t mode, const logical_model_t *m, strlist_t *out);

/* ---- 4. Compatibility -------------------------------------------------------- */

/* CompatibilityChecker.compare: can update read what original wrote? Appends one
 * Incompatibility.toString per finding. 0, or -1 out of memory. */
int logical_compare(logical_mode_t mode, const logical_model_t *original, const logical_model_t *update,
                    strlist_t *out);

/* ---- 5. The policy ------------------------------------------------------------- */

/*
 * LogicalPolicyChecker.check: validity of candidate in FLINK and ICEBERG_V2, then, for each of
 * the n previous schemas (oldest first; the caller picks them by level: the newest only, or all
 * for a transitive level, none for NONE), backward and/or forward compatibility in both modes.
 * Appends Confluent's messages ("Logical validity (FLINK): ...", "Logical compatibility
 * (ICEBERG_V2, backward): ..."). A previous schema without a logical type is skipped. 0, or -1
 * out of memory.
 */
int logical_policy_check(const schema_t *candidate, const schema_t *const *previous, size_t n, int backward,
                         int forward, strlist_t *out);

#endif
