/*
 * avro: the project's own Avro schema engine (avro-c cannot be the model:
 * it drops defaults, aliases and logical types; see notes/dependencies.md).
 *
 * Contents
 *   1. The engine (plugged into compat/schema.h)
 *   2. Direct use: parse, canonical text, Parsing Canonical Form, fingerprint
 *   3. The reader/writer check with typed incompatibilities
 *
 * Spec: ../shared/spec/compatibility.md section 2.
 */
#ifndef COMPAT_AVRO_H
#define COMPAT_AVRO_H

#include <stddef.h>
#include <stdint.h>

#include "compat/schema.h"

/* ---- 1. The engine ----------------------------------------------------- */

/* parse / free / backward / format("resolved") for SCHEMA_AVRO. */
extern const schema_engine_t avro_engine;

#endif
