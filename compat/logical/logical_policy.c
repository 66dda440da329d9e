/*
 * logical_policy: what compatibilityPolicy LOGICAL adds to a check (Confluent's
 * LogicalPolicyChecker): the candidate's validity in FLINK and ICEBERG_V2, and its compatibility
 * with the previous versions the level picks, in the level's directions, in both modes. The
 * messages go after the format's own ones, so LOGICAL can only refuse more.
 */
#include "compat/logical/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Confluent's MODES: ICEBERG_V3 is left out, a subject not saying which Iceberg version it feeds. */
static const logical_mode_t modes[] = {LOGICAL_MODE_FLINK, LOGICAL_MODE_ICEBERG_V2};
#define N_MODES (sizeof modes / sizeof *modes)

int logical_from_schema(const schema_t *s, logical_model_t **out, char **error)
{
    *out = NULL;
    *error = NULL;
    switch (schema_get_type(s)) {
    case SCHEMA_AVRO: return logical_from_avro(schema_model(s), out, error);
    case SCHEMA_PROTOBUF: return logical_from_protobuf(schema_model(s), out, error);
    case SCHEMA_JSON: return logical_from_json(schema_model(s), out, error);
    default: return 2;
    }
}

/* ValidityResult/CompatibilityResult.describe: the findings joined by newlines, after prefix. */
static int push_described(strlist_t *out, const char *prefix, const strlist_t *findings)
{
    if (findings->n == 0)
        return 0;
    strbuf_t b = {0};
    strbuf_puts(&b, prefix);
    for (size_t i = 0; i < findings->n; i++) {
        if (i)
            strbuf_putc(&b, '\n');
        strbuf_puts(&b, findings->items[i]);
    }
    char *text = strbuf_take(&b);
    return text ? strlist_push_owned(out, text) : -1;
}

static int compare_both(strlist_t *out, const char *direction, const logical_model_t *original,
                        const logical_model_t *update)
{
    for (size_t i = 0; i < N_MODES; i++) {
        strlist_t found = {0};
        char prefix[96];
        snprintf(prefix, sizeof prefix, "Logical compatibility (%s, %s): ", logical_mode_name(modes[i]),
                 direction);
        int rc = logical_compare(modes[i], original, update, &found);
        if (rc == 0)
            rc = push_described(out, prefix, &found);
        strlist_clear(&found);
        if (rc != 0)
            return -1;
    }
    return 0;
}

int logical_policy_check(const schema_t *candidate, const schema_t *const *previous, size_t n, int backward,
                         int forward, strlist_t *out)
{
    logical_model_t *update;
    char *error;
    int rc = logical_from_schema(candidate, &update, &error);
    if (rc == 2)
        return 0; /* no logical type here (a Protobuf file of public imports only): nothing to add */
    if (rc == 1) {
        rc = strlist_pushf(out, "Schema cannot be represented as a logical type: %s", error);
        free(error);
        return rc;
    }
    if (rc < 0)
        return -1;
    for (size_t i = 0; i < N_MODES && rc == 0; i++) {
        strlist_t found = {0};
        char prefix[64];
        snprintf(prefix, sizeof prefix, "Logical validity (%s): ", logical_mode_name(modes[i]));
        rc = logical_validate(modes[i], update, &found);
        if (rc == 0)
            rc = push_described(out, prefix, &found);
        strlist_clear(&found);
    }
    for (size_t i = 0; i < n && rc == 0; i++) {
        logical_model_t *original;
        int prc = logical_from_schema(previous[i], &original, &error);
        free(error);
        if (prc < 0) {
            rc = -1;
            break;
        }
        if (prc != 0)
            continue; /* an old version without a logical type does not block a new one */
        if (backward)
            rc = compare_both(out, "backward", original, update);
        if (rc == 0 && forward)
            rc = compare_both(out, "forward", update, original);
        logical_model_free(original);
    }
    logical_model_free(update);
    return rc;
}
