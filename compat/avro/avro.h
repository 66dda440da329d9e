/*
 * avro: the project's own Avro schema engine (avro-c cannot be the model:
 * it drops defaults, aliases and logical types).
 *
 * Contents
 *   1. The engine (plugged into compat/schema.h)
 *   2. Direct use: parse, canonical text, Parsing Canonical Form, fingerprint
 *   3. The reader/writer check with typed incompatibilities
 *   4. The change list (compat/change.h)
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

/* ---- 4. The change list ---------------------------------------------------------- */

/* The changes from old to new (docs/evolution.md "Avro"), each direction
 * decided by avro_check. Returns 0, or -1 when out of memory. */
int avro_changes(const avro_model_t *old_model, const avro_model_t *new_model, change_list_t *out);

#endif
