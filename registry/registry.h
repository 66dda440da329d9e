/*
 * registry: the domain. Subjects, versions, global ids, config and modes,
 * references, deletes; backed by PostgreSQL (store.h) and served from an
 * in-memory index. Knows SQL (through store), never HTTP.
 *
 * Contents
 *   1. Errors (Confluent error codes, defined once)
 *   2. Lifecycle
 *   (the domain operations follow in the sections below)
 */
#ifndef REGISTRY_REGISTRY_H
#define REGISTRY_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

#include "compat/level.h"
#include "compat/schema.h"
#include "registry/store.h"

/* ---- 1. Errors ---------------------------------------------------------- */

/* Values are the Confluent error codes; HTTP status = code / 100. */
typedef enum reg_code {
    REG_OK = 0,
    REG_SUBJECT_NOT_FOUND = 40401,
    REG_VERSION_NOT_FOUND = 40402,
    REG_SCHEMA_NOT_FOUND = 40403,
    REG_SUBJECT_SOFT_DELETED = 40404,
    REG_SUBJECT_NOT_SOFT_DELETED = 40405,
    REG_VERSION_SOFT_DELETED = 40406,
    REG_VERSION_NOT_SOFT_DELETED = 40407,
    REG_SUBJECT_LEVEL_COMPAT_NOT_CONFIGURED = 40408,
    REG_SUBJECT_LEVEL_MODE_NOT_CONFIGURED = 40409,
    REG_INCOMPATIBLE = 40901,
    REG_INVALID_SCHEMA = 42201,
    REG_INVALID_VERSION = 42202,
    REG_INVALID_COMPATIBILITY = 42203,
    REG_INVALID_MODE = 42204,
    REG_OPERATION_NOT_PERMITTED = 42205,
    REG_REFERENCE_EXISTS = 42206,
    REG_INVALID_SUBJECT = 42208,
    REG_SCHEMA_TOO_LARGE = 42209,
    REG_STORE_ERROR = 50001,
    REG_TIMEOUT = 50002,
    REG_INTERNAL = 500,
} reg_code_t;

typedef struct reg_error {
    reg_code_t code;
    char message[1024];
} reg_error_t;

/* Sets err and returns its code. */
reg_code_t reg_fail(reg_error_t *err, reg_code_t code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- 2. Lifecycle ------------------------------------------------------- */

typedef struct registry registry_t;

typedef struct registry_options {
    const char *conninfo;           /* for the change-feed thread's own connection */
    compat_level_t default_level;   /* server default compatibility */
    size_t max_schema_bytes;        /* 42209 above this */
    int feed_interval_ms;           /* poll period of the change feed; 0 = no feed thread */
} registry_options_t;

/* Applies migrations/ under an advisory lock, each file once, in order. */
int registry_migrate(store_t *db, char **error);
/* Loads the whole registry into memory and starts the change feed. */
registry_t *registry_new(const registry_options_t *opts, store_t *db, char **error);
void registry_free(registry_t *reg);

#endif
