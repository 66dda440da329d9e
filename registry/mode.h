/*
 * mode: the registry modes (Confluent's io.confluent.kafka.schemaregistry
 * .storage.Mode), named once. Like compat/level.h: an enum, parse and name.
 */
#ifndef REGISTRY_MODE_H
#define REGISTRY_MODE_H

#include "registry/errors.h"

typedef enum reg_mode {
    MODE_UNSET = -1, /* no mode stored for the scope */
    MODE_READWRITE = 0,
    MODE_READONLY,
    MODE_READONLY_OVERRIDE,
    MODE_IMPORT,
} reg_mode_t;

/* Case-insensitive. Returns 0, or -1 for an unknown name. */
int reg_mode_parse(const char *name, reg_mode_t *out);
/* Upper-case name, e.g. "READONLY_OVERRIDE"; MODE_UNSET reads as READWRITE. */
const char *reg_mode_name(reg_mode_t mode);
/* READONLY and READONLY_OVERRIDE refuse writes. */
int reg_mode_is_readonly(reg_mode_t mode);
/* 42205 "Subject ... is in read-only mode" (subject NULL = the global scope). */
reg_code_t reg_mode_readonly_error(reg_error_t *err, const char *subject);
/* 42204 with the list of valid modes. */
reg_code_t reg_mode_invalid_error(reg_error_t *err);

#endif
