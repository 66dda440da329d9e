/*
 * level: the compatibility levels, written once for every schema type.
 *
 * Documented in docs/compatibility.md (the levels table and the message list
 * at its top); the behaviour is Confluent's AbstractSchemaRegistry compatibility check.
 */
#ifndef COMPAT_LEVEL_H
#define COMPAT_LEVEL_H

#include "compat/schema.h"
#include "base/strlist.h"

typedef enum compat_level {
    COMPAT_NONE = 0,
    COMPAT_BACKWARD,
    COMPAT_BACKWARD_TRANSITIVE,
    COMPAT_FORWARD,
    COMPAT_FORWARD_TRANSITIVE,
    COMPAT_FULL,
    COMPAT_FULL_TRANSITIVE,
} compat_level_t;

/* Case-insensitive. Returns 0, or -1 for an unknown name. */
int compat_level_parse(const char *name, compat_level_t *out);
/* Upper-case name, e.g. "FULL_TRANSITIVE". */
const char *compat_level_name(compat_level_t level);

/* One earlier version of the subject, as the check sees it (borrowed). */
typedef struct compat_previous {
    const schema_t *schema;
    int version;
} compat_previous_t;

/*
 * Checks candidate against the live history (oldest first) under level.
 * Transitive levels check every version newest first and stop at the first
 * failing one; the others check only the newest. Returns 1 when compatible,
 * 0 when not, -1 when out of memory. On 0, messages holds the full list of
 * Confluent's order: per-incompatibility messages, {oldSchemaVersion: N}, {oldSchema:
 * '...'}, then {validateFields: '...', compatibility: '...'}.
 */
int compat_check(compat_level_t level, const schema_t *candidate, const compat_previous_t *history, size_t n,
                 int validate_fields, strlist_t *messages);

/* Confluent's CompatibilityPolicy as the check uses it: LENIENT widens JSON
 * Schema's compatible changes; STRICT is the default; LOGICAL is the default check
 * followed by LogicalPolicyChecker's (compat/logical/logical.h), which can only add messages. */
typedef enum compat_policy {
    COMPAT_POLICY_STRICT = 0,
    COMPAT_POLICY_LENIENT,
    COMPAT_POLICY_LOGICAL,
} compat_policy_t;

/* compat_check under a policy (compat_check is this with COMPAT_POLICY_STRICT). Under
 * COMPAT_POLICY_LOGICAL the logical messages follow the native ones and precede the summary
 * line, and they are looked for even at NONE or with no history: the candidate's validity. */
int compat_check_policy(compat_level_t level, compat_policy_t policy, const schema_t *candidate,
                        const compat_previous_t *history, size_t n, int validate_fields, strlist_t *messages);

#endif
