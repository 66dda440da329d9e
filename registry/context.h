/*
 * context: Confluent's qualified subject names (QualifiedSubject) -- which
 * context a subject is in, how a reference resolves from its referrer's
 * context, how a subjectPrefix matches (docs/api.md, "Contexts").
 *
 * Contents
 *   1. The context of a subject
 *   2. References across contexts
 *   3. Prefixes
 *
 * Names are stored normalized (registry_subject_normalize): ":.ctx:name" is
 * in the context ".ctx", anything else in the default context ".".
 */
#ifndef REGISTRY_CONTEXT_H
#define REGISTRY_CONTEXT_H

#include <stddef.h>

/* ---- 1. The context of a subject ------------------------------------------- */

/* A context name borrowed from a subject name (or a literal): ".ctx" or ".". */
typedef struct reg_ctx {
    const char *base;
    size_t len;
} reg_ctx_t;

/* The context of a normalized subject name. */
reg_ctx_t reg_context_of(const char *subject);
/* The same as a NUL-terminated copy (malloc'd). */
char *reg_context_copy(const char *subject);
/* 1 when the subject is in the context named ctx (".", ".ctx"). */
int reg_context_is(const char *subject, const char *ctx);

/* ---- 2. References -------------------------------------------------------------- */

/* The subject a reference names, seen from a schema in context ctx (Confluent's
 * QualifiedSubject.qualifySubjectWithParent, then toQualifiedSubject): an
 * unqualified name is in the referrer's context. malloc'd. */
char *reg_ref_qualify(const char *ctx, const char *ref_subject);

/* ---- 3. Prefixes ------------------------------------------------------------------ */

/* Does the normalized name match a subjectPrefix as Confluent's key ranges do
 * (AbstractSchemaRegistry.allVersions): ":*:rest" any context, ":.ctx:rest"
 * that context, ":.ct" contexts starting ".ct", "rest" the default context. */
int reg_prefix_match(const char *prefix, const char *name);

#endif
