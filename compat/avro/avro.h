/*
 * avro: the project's own Avro schema engine (avro-c cannot be the model:
 * it drops defaults, aliases and logical types).
 *
 * Contents
 *   1. The engine (plugged into compat/schema.h)
 *   2. Direct use: parse, canonical text, Parsing Canonical Form, fingerprint
 *   3. The reader/writer check with typed incompatibilities
 *   4. The model, read-only: what a data decoder walks (client/)
 *   5. The change list (compat/change.h)
 *
 * Documented in docs/compatibility.md "Avro". The behaviour reproduced
 * is Avro Java 1.12 (org.apache.avro.Schema, SchemaCompatibility) as wrapped
 * by Confluent's AvroSchema, quirks included.
 *
 * A model is immutable once parsed: any number of threads may print and
 * check shared models at the same time.
 */
#ifndef COMPAT_AVRO_H
#define COMPAT_AVRO_H

#include <stddef.h>
#include <stdint.h>

#include "compat/schema.h"

/* ---- 1. The engine ----------------------------------------------------- */

/* parse / free / backward / format("resolved") / equivalent for SCHEMA_AVRO. */
extern const schema_engine_t avro_engine;

/* ---- 2. Direct use --------------------------------------------------------- */

/* A parsed schema together with the named types of its references. */
typedef struct avro_model avro_model_t;

/*
 * Parses text (len bytes) after the references' texts (dependencies first),
 * all into one name space. flags: SCHEMA_PARSE_NEW (strict names and
 * validated defaults, as for a schema being registered) and
 * SCHEMA_PARSE_NORMALIZE (docs/compatibility.md "Stored text"). Returns NULL and *error (malloc'd)
 * on any invalid input; never crashes. Needs about 1 MB of thread stack
 * for the deepest documents jansson accepts.
 */
avro_model_t *avro_model_parse(const char *text, size_t len, const schema_ref_t *refs, size_t nrefs,
                               int flags, char **error);
void avro_model_free(avro_model_t *model);

/* The stored form (docs/compatibility.md "Stored text"): Avro's Schema.toString, the
 * references' types written as names. malloc'd; NULL when out of memory. */
char *avro_model_canonical(const avro_model_t *model);
/* The same with referenced types written out in full at first use ("resolved"). */
char *avro_model_resolved(const avro_model_t *model);
/* Confluent's AvroSchema.equivalent: the same types, names, properties,
 * defaults, docs and aliases, whether or not some types came from references. */
int avro_model_equivalent(const avro_model_t *a, const avro_model_t *b);
/* Avro's Parsing Canonical Form (the specification's, not the stored form). */
char *avro_parsing_canonical_form(const avro_model_t *model);

/* CRC-64-AVRO, the 64-bit Rabin fingerprint of the Avro specification. */
uint64_t avro_fingerprint64(const void *data, size_t len);
/* The fingerprint of the model's Parsing Canonical Form. Returns 0, or -1 when out of memory. */
int avro_model_fingerprint64(const avro_model_t *model, uint64_t *out);

/* ---- 3. The reader/writer check ---------------------------------------------- */

typedef enum avro_issue_type {
    AVRO_ISSUE_NAME_MISMATCH,
    AVRO_ISSUE_FIXED_SIZE_MISMATCH,
    AVRO_ISSUE_MISSING_ENUM_SYMBOLS,
    AVRO_ISSUE_READER_FIELD_MISSING_DEFAULT_VALUE,
    AVRO_ISSUE_TYPE_MISMATCH,
    AVRO_ISSUE_MISSING_UNION_BRANCH,
} avro_issue_type_t;

/* "NAME_MISMATCH", ... */
const char *avro_issue_type_name(avro_issue_type_t type);

/* One incompatibility: location is a JSON-pointer-like path ("/fields/1/type"). */
typedef struct avro_issue {
    avro_issue_type_t type;
    char *location;
    char *message;
} avro_issue_t;

typedef struct avro_issues {
    avro_issue_t *items;
    size_t n;
    /* Set (malloc'd) when Avro's checker would throw, e.g. a reader field
     * whose name and alias match two writer fields; items is then empty. */
    char *exception;
    /* 1 when the list was cut at its limit (hostile input only). */
    int truncated;
} avro_issues_t;

/*
 * Can data written with writer be read with reader? Fills out (zeroed by the
 * caller) with every incompatibility in Avro's traversal order. Returns 1
 * when compatible, 0 when not (issues or exception), -1 when out of memory.
 * Does not modify the models.
 */
int avro_check(const avro_model_t *reader, const avro_model_t *writer, avro_issues_t *out);
void avro_issues_free(avro_issues_t *issues);

/* ---- 4. The model, read-only --------------------------------------------------- */

/*
 * A decoder of Avro data (client/avro_decode.c) walks the same parsed model
 * the checker does, so a schema is parsed by one piece of code. Nodes are
 * borrowed from their model and live as long as it; named types are shared
 * nodes, so a recursive schema is a cycle (walk it with a depth limit).
 */
typedef enum avro_kind {
    AVRO_KIND_NULL,
    AVRO_KIND_BOOLEAN,
    AVRO_KIND_INT,
    AVRO_KIND_LONG,
    AVRO_KIND_FLOAT,
    AVRO_KIND_DOUBLE,
    AVRO_KIND_BYTES,
    AVRO_KIND_STRING,
    AVRO_KIND_RECORD,
    AVRO_KIND_ENUM,
    AVRO_KIND_ARRAY,
    AVRO_KIND_MAP,
    AVRO_KIND_UNION,
    AVRO_KIND_FIXED,
    AVRO_KIND_UNRESOLVED, /* a name used before its definition; gone after parsing */
} avro_kind_t;

/* Only valid logical types are recorded; invalid ones stay plain properties. */
typedef enum avro_logical {
    AVRO_LOGICAL_NONE,
    AVRO_LOGICAL_DECIMAL,
    AVRO_LOGICAL_BIG_DECIMAL,
    AVRO_LOGICAL_UUID,
    AVRO_LOGICAL_DURATION,
    AVRO_LOGICAL_DATE,
    AVRO_LOGICAL_TIME_MILLIS,
    AVRO_LOGICAL_TIME_MICROS,
    AVRO_LOGICAL_TIMESTAMP_MILLIS,
    AVRO_LOGICAL_TIMESTAMP_MICROS,
    AVRO_LOGICAL_TIMESTAMP_NANOS,
    AVRO_LOGICAL_LOCAL_TIMESTAMP_MILLIS,
    AVRO_LOGICAL_LOCAL_TIMESTAMP_MICROS,
    AVRO_LOGICAL_LOCAL_TIMESTAMP_NANOS,
} avro_logical_t;

typedef struct avro_node avro_node_t;

const avro_node_t *avro_model_root(const avro_model_t *model);
avro_kind_t avro_node_kind(const avro_node_t *n);
/* AVRO_LOGICAL_NONE when the node carries no valid logical type. */
avro_logical_t avro_node_logical(const avro_node_t *n);
const char *avro_logical_name(avro_logical_t l);
/* decimal: precision and scale (0 for other nodes). */
int avro_node_precision(const avro_node_t *n);
int avro_node_scale(const avro_node_t *n);
/* Named types (record, enum, fixed): the full name and the aliases as full
 * names; NULL and 0 for other nodes. */
const char *avro_node_fullname(const avro_node_t *n);
size_t avro_node_n_aliases(const avro_node_t *n);
const char *avro_node_alias(const avro_node_t *n, size_t i);
/* Fields of a record, symbols of an enum, branches of a union; the size of a fixed. */
size_t avro_node_size(const avro_node_t *n);
/* Array items, map values. */
const avro_node_t *avro_node_items(const avro_node_t *n);
const avro_node_t *avro_node_branch(const avro_node_t *n, size_t i);
/* Enum symbols: the i-th, the index of a name (-1 when absent), the default (NULL when none). */
const char *avro_node_symbol(const avro_node_t *n, size_t i);
long avro_node_symbol_index(const avro_node_t *n, const char *name);
const char *avro_node_enum_default(const avro_node_t *n);
/* Record fields: name, type, default (a jansson json_t, borrowed; NULL when
 * none), aliases; the index of a field by name (-1 when absent). */
const char *avro_field_name(const avro_node_t *record, size_t i);
const avro_node_t *avro_field_type(const avro_node_t *record, size_t i);
const struct json_t *avro_field_default(const avro_node_t *record, size_t i);
size_t avro_field_n_aliases(const avro_node_t *record, size_t i);
const char *avro_field_alias(const avro_node_t *record, size_t i, size_t j);
long avro_field_index(const avro_node_t *record, const char *name);
/* A custom property, as written (any member Avro does not reserve: "logicalType", "precision",
 * "connect.type", ...), of a node or of a record's field; borrowed, NULL when absent. What a
 * reader of Confluent's annotations needs (compat/logical: "flink.precision", "confluent:union"). */
const struct json_t *avro_node_prop(const avro_node_t *n, const char *key);
const struct json_t *avro_field_prop(const avro_node_t *record, size_t i, const char *key);

/* ---- 5. The change list ---------------------------------------------------------- */

/* The changes from old to new (docs/evolution.md "Avro"), each direction
 * decided by avro_check. Returns 0, or -1 when out of memory. */
int avro_changes(const avro_model_t *old_model, const avro_model_t *new_model, change_list_t *out);

#endif
