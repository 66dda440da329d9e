/*
 * index: the whole registry in memory, so reads never touch PostgreSQL
 * (design.md section 3).
 *
 * Contents
 *   1. Records: schemas (immutable, refcounted), versions, subjects
 *   2. The index and its lock
 *   3. Publishing fresh state loaded from the database
 *
 * Readers take the read lock for the microseconds it takes to copy what they
 * need (or to take a reference on a schema). Writers never edit a subject
 * in place: they load the subject's fresh state from PostgreSQL and swap it
 * in under the write lock (index_publish_subject), so one code path serves
 * start-up, a node's own writes and the change feed from other nodes.
 */
#ifndef REGISTRY_INDEX_H
#define REGISTRY_INDEX_H

#include <jansson.h>
#include <pthread.h>
#include <stdint.h>

#include "compat/schema.h"
#include "base/hmap.h"

/* ---- 1. Records -------------------------------------------------------- */

typedef struct reg_ref {
    char *name;
    char *subject;
    int version;
} reg_ref_t;

#define REG_KEY_LEN 16   /* MD5 identity key, rest-api.md 2.3 */

typedef struct reg_schema {
    int id;
    schema_type_t type;
    char *text;                     /* canonical text as stored */
    size_t text_len;
    unsigned char key[REG_KEY_LEN];
    reg_ref_t *refs;
    size_t nrefs;
    int64_t ts_ms;
    int refcount;                   /* atomic; the index holds one reference */
    schema_t *parsed;               /* lazily parsed model, set once (atomic CAS) */
    /* Guarded by the index lock: how many subject versions carry this id. */
    int nversions;
    int nlive;
} reg_schema_t;

typedef struct reg_version {
    int version;
    int schema_id;
    int deleted;
    int64_t ts_ms;
} reg_version_t;

/* A subject's state as one immutable snapshot; replaced whole on reload. */
typedef struct reg_subject {
    char *name;
    reg_version_t *v;   /* ascending by version */
    size_t n;
    json_t *config;     /* subject-level config, ConfigUpdate shape; NULL when unset */
    char *mode;         /* subject-level mode; NULL when unset */
} reg_subject_t;

reg_schema_t *reg_schema_new(int id, schema_type_t type, const char *text,
                             const unsigned char key[REG_KEY_LEN], int64_t ts_ms);
void reg_schema_add_ref(reg_schema_t *s, const char *name, const char *subject, int version);
void reg_schema_retain(reg_schema_t *s);
void reg_schema_release(reg_schema_t *s);

reg_subject_t *reg_subject_new(const char *name);
void reg_subject_add_version(reg_subject_t *s, int version, int schema_id, int deleted, int64_t ts);
void reg_subject_free(reg_subject_t *s);
/* 1 when the subject has no versions, no config and no mode (it can be forgotten). */
int reg_subject_is_empty(const reg_subject_t *s);
/* The highest live version, or NULL. */
const reg_version_t *reg_subject_latest(const reg_subject_t *s);
const reg_version_t *reg_subject_find(const reg_subject_t *s, int version);
int reg_subject_live_count(const reg_subject_t *s);

/* ---- 2. The index ------------------------------------------------------ */

typedef struct reg_index {
    pthread_rwlock_t lock;
    hmap_t by_id;         /* int id -> reg_schema_t* (holds a reference) */
    hmap_t by_key;        /* type byte + identity key -> reg_schema_t* (borrowed from by_id) */
    hmap_t subjects;      /* name -> reg_subject_t* (owned) */
    json_t *global_config;
    char *global_mode;
    int max_id;
} reg_index_t;

void index_init(reg_index_t *idx);
void index_destroy(reg_index_t *idx);

/* Lookups; call with the lock held (read or write). Results are borrowed. */
reg_schema_t *index_schema(const reg_index_t *idx, int id);
reg_schema_t *index_schema_by_key(const reg_index_t *idx, schema_type_t type,
                                  const unsigned char key[REG_KEY_LEN]);
reg_subject_t *index_subject(const reg_index_t *idx, const char *name);

/* Every subject of the index (lock held): INDEX_FOREACH_SUBJECT(idx, subj) { ... }.
 * `continue` skips a subject; `break` also only skips one (it is a nested loop). */
#define INDEX_FOREACH_SUBJECT(idx, subj)                                                          \
    for (size_t subj##_slot = 0; subj##_slot < (idx)->subjects.cap; subj##_slot++)               \
        for (const reg_subject_t *subj = hmap_live(&(idx)->subjects, subj##_slot)                 \
                                             ? (idx)->subjects.slots[subj##_slot].value            \
                                             : NULL;                                                \
             subj; subj = NULL)

/* ---- 3. Publishing ----------------------------------------------------- */

/* Adds a schema row if its id is unknown (takes ownership of s either way). Write lock held. */
void index_add_schema(reg_index_t *idx, reg_schema_t *s);
/* Replaces (or removes, when fresh is empty) the subject; takes ownership of fresh.
 * Keeps the per-schema version counts right. Write lock held; every schema
 * the fresh subject names must already be in the index. */
void index_publish_subject(reg_index_t *idx, reg_subject_t *fresh);
/* Replaces the global config / mode (takes ownership; NULL = unset). Write lock held. */
void index_publish_global(reg_index_t *idx, json_t *config, char *mode);

#endif
