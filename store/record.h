/*
 * record: what the store returns and the index keeps -- schema rows (immutable,
 * refcounted), subject versions and a subject's stored state. A record is
 * built once (by the store, or by the registry for a row it is about to
 * write) and never edited after it is shared; a subject is replaced whole.
 *
 * Contents
 *   1. References
 *   2. Schema rows
 *   3. Subjects and versions
 *   4. Settings (the typed keys of a stored config)
 *
 * Ownership: reg_schema_t is refcounted (_retain/_release; the creator holds
 * the first reference). reg_subject_t has one owner (_free).
 */
#ifndef STORE_RECORD_H
#define STORE_RECORD_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "compat/level.h"

#include "compat/schema.h"

/* ---- 1. References ------------------------------------------------------ */

typedef struct reg_ref {
    char *name;
    char *subject;
    int version;
} reg_ref_t;

/* ---- 2. Schema rows ----------------------------------------------------- */

#define REG_KEY_LEN 16 /* MD5 identity key (docs/architecture.md, "Storage") */

typedef struct reg_schema {
    int id;
    schema_type_t type;
    char *text; /* canonical text as stored */
    size_t text_len;
    unsigned char key[REG_KEY_LEN];
    reg_ref_t *refs;
    size_t nrefs;
    int64_t ts_ms;
    int refcount;     /* atomic */
    schema_t *parsed; /* lazily parsed model, set once (atomic CAS) */
    int canonical;    /* as loaded: the content's canonical id then (migrations/0004) */
    char *context;    /* the id's context: "." (the default) or ".name" (migrations/0006) */
    /* Confluent's Metadata in canonical form (registry/metadata.c), part of the
     * identity key; NULL = none (migrations/0007). Never edited once shared. */
    json_t *metadata;
} reg_schema_t;

reg_schema_t *reg_schema_new(int id, schema_type_t type, const char *text,
                             const unsigned char key[REG_KEY_LEN], int64_t ts_ms);
/* The row's context (copied); reg_schema_new makes it the default ".". */
void reg_schema_set_context(reg_schema_t *s, const char *context);
void reg_schema_add_ref(reg_schema_t *s, const char *name, const char *subject, int version);
/* Sets the row's metadata (takes the reference; NULL = none). Only before the row is shared. */
void reg_schema_set_metadata(reg_schema_t *s, json_t *metadata);
void reg_schema_retain(reg_schema_t *s);
void reg_schema_release(reg_schema_t *s);

/* ---- 3. Subjects -------------------------------------------------------- */

typedef struct reg_version {
    int version;
    int schema_id;
    int deleted;
    int64_t ts_ms;
} reg_version_t;

/* A subject's stored state as one snapshot; replaced whole on reload. */
typedef struct reg_subject {
    char *name;
    reg_version_t *v; /* ascending by version */
    size_t n;
    json_t *config; /* subject-level config, ConfigUpdate shape; NULL when unset */
    char *mode;     /* subject-level mode name as stored; NULL when unset */
} reg_subject_t;

reg_subject_t *reg_subject_new(const char *name);
/* Appends a version: above every version s has (v stays ascending). */
void reg_subject_add_version(reg_subject_t *s, int version, int schema_id, int deleted, int64_t ts);
void reg_subject_free(reg_subject_t *s);
/* 1 when the subject has no versions, no config and no mode (it can be forgotten). */
int reg_subject_is_empty(const reg_subject_t *s);
/* The highest live version, or NULL (also the test for "has a live version":
 * it stops at the first live one from the top). Borrowed from s. */
const reg_version_t *reg_subject_latest(const reg_subject_t *s);
/* version -1 = the latest live one; else by bisection, O(log n). Borrowed from s. */
const reg_version_t *reg_subject_find(const reg_subject_t *s, int version);
int reg_subject_live_count(const reg_subject_t *s);

/* ---- 4. Settings ---------------------------------------------------------- */

/*
 * The keys of a stored config (ConfigUpdate shape) that the registry acts
 * on, typed. The config object itself is kept as stored, because it is
 * rendered back as is; decisions read this instead of walking JSON.
 */
typedef struct reg_settings {
    int present; /* a config is stored at all */
    int has_level;
    compat_level_t level;
    int normalize;       /* -1 when unset, else 0 or 1 */
    int validate_fields; /* -1 when unset, else 0 or 1 */
    int has_metadata;    /* defaultMetadata or overrideMetadata is set */
} reg_settings_t;

/* The typed keys of config (NULL = nothing set). */
void reg_settings_read(const json_t *config, reg_settings_t *out);

#endif
