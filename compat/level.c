/*
 * level: BACKWARD..FULL_TRANSITIVE on top of each engine's one primitive,
 * "self is backward compatible with previous" (docs/compatibility.md, the levels table).
 */
#include "compat/level.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "compat/logical/logical.h"

static const char *const level_names[] = {
    [COMPAT_NONE] = "NONE",
    [COMPAT_BACKWARD] = "BACKWARD",
    [COMPAT_BACKWARD_TRANSITIVE] = "BACKWARD_TRANSITIVE",
    [COMPAT_FORWARD] = "FORWARD",
    [COMPAT_FORWARD_TRANSITIVE] = "FORWARD_TRANSITIVE",
    [COMPAT_FULL] = "FULL",
    [COMPAT_FULL_TRANSITIVE] = "FULL_TRANSITIVE",
};

/* The reference truncates the old schema inside messages to keep 409 bodies bounded. */
#define OLD_SCHEMA_MAX 10240

int compat_level_parse(const char *name, compat_level_t *out)
{
    if (!name)
        return -1;
    for (size_t i = 0; i < sizeof level_names / sizeof *level_names; i++) {
        if (strcasecmp(name, level_names[i]) == 0) {
            *out = (compat_level_t)i;
            return 0;
        }
    }
    return -1;
}

const char *compat_level_name(compat_level_t level)
{
    return level_names[level];
}

static int compat_level_is_transitive(compat_level_t level)
{
    return level == COMPAT_BACKWARD_TRANSITIVE || level == COMPAT_FORWARD_TRANSITIVE ||
           level == COMPAT_FULL_TRANSITIVE;
}

static int level_has_forward(compat_level_t l)
{
    return l == COMPAT_FORWARD || l == COMPAT_FORWARD_TRANSITIVE || l == COMPAT_FULL ||
           l == COMPAT_FULL_TRANSITIVE;
}

static int level_has_backward(compat_level_t l)
{
    return l == COMPAT_BACKWARD || l == COMPAT_BACKWARD_TRANSITIVE || l == COMPAT_FULL ||
           l == COMPAT_FULL_TRANSITIVE;
}

/*
 * Java String.format semantics restricted to what the engines emit: the
 * first two "%s" take first and second; nothing else is interpreted.
 */
static char *substitute_roles(const char *raw, const char *first, const char *second)
{
    size_t cap = strlen(raw) + strlen(first) + strlen(second) + 1;
    char *out = malloc(cap);
    if (!out)
        return NULL;
    const char *args[2] = {first, second};
    int used = 0;
    char *w = out;
    for (const char *r = raw; *r;) {
        if (used < 2 && r[0] == '%' && r[1] == 's') {
            size_t n = strlen(args[used]);
            memcpy(w, args[used++], n);
            w += n;
            r += 2;
        } else {
            *w++ = *r++;
        }
    }
    *w = '\0';
    return out;
}

/* Runs reader.backward(writer) and appends the substituted messages to out. */
static int check_one_direction(const schema_t *reader, const schema_t *writer, compat_policy_t policy,
                               const char *reader_role, const char *writer_role, strlist_t *out)
{
    strlist_t raw = {0};
    if (schema_backward_policy(reader, writer, policy == COMPAT_POLICY_LENIENT, &raw) != 0) {
        strlist_clear(&raw);
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; i < raw.n && rc == 0; i++)
        rc = strlist_push_owned(out, substitute_roles(raw.items[i], reader_role, writer_role));
    strlist_clear(&raw);
    return rc;
}

static int append_old_schema(strlist_t *out, const compat_previous_t *p)
{
    if (strlist_pushf(out, "{oldSchemaVersion: %d}", p->version) != 0)
        return -1;
    size_t len = schema_canonical_len(p->schema);
    if (len > OLD_SCHEMA_MAX)
        return strlist_pushf(out, "{oldSchema: <truncated> '%.*s...'}", OLD_SCHEMA_MAX,
                             schema_canonical(p->schema));
    return strlist_pushf(out, "{oldSchema: '%s'}", schema_canonical(p->schema));
}

/* The messages of one level run against one previous version, in Confluent's
 * order (docs/compatibility.md: incompatibilities, oldSchemaVersion, oldSchema, config). */
static int check_against(compat_level_t level, compat_policy_t policy, const schema_t *candidate,
                         const compat_previous_t *p, strlist_t *out)
{
    if (schema_get_type(candidate) != schema_get_type(p->schema))
        return strlist_push(out, "Incompatible because of different schema type");

    if (level_has_forward(level)) {
        size_t before = out->n;
        if (check_one_direction(p->schema, candidate, policy, "old", "new", out) != 0)
            return -1;
        /* The forward half of FULL carries no appendix; FORWARD alone does. */
        if (!level_has_backward(level) && out->n > before && append_old_schema(out, p) != 0)
            return -1;
    }
    if (level_has_backward(level)) {
        size_t before = out->n;
        if (check_one_direction(candidate, p->schema, policy, "new", "old", out) != 0)
            return -1;
        if (out->n > before && append_old_schema(out, p) != 0)
            return -1;
    }
    return 0;
}

int compat_check(compat_level_t level, const schema_t *candidate, const compat_previous_t *history, size_t n,
                 int validate_fields, strlist_t *messages)
{
    return compat_check_policy(level, COMPAT_POLICY_STRICT, candidate, history, n, validate_fields, messages);
}

/* LogicalPolicyChecker.check over the versions the level picks: every one (oldest first) when
 * transitive, else the newest, none at NONE; they are compared all, not up to a first failure. */
static int check_logical(compat_level_t level, const schema_t *candidate, const compat_previous_t *history,
                         size_t n, strlist_t *messages)
{
    size_t first = level == COMPAT_NONE ? n : compat_level_is_transitive(level) || n == 0 ? 0 : n - 1;
    const schema_t **previous = n - first ? malloc((n - first) * sizeof *previous) : NULL;
    if (n - first && !previous)
        return -1;
    for (size_t i = first; i < n; i++)
        previous[i - first] = history[i].schema;
    int rc = logical_policy_check(candidate, previous, n - first, level_has_backward(level),
                                  level_has_forward(level), messages);
    free(previous);
    return rc;
}

int compat_check_policy(compat_level_t level, compat_policy_t policy, const schema_t *candidate,
                        const compat_previous_t *history, size_t n, int validate_fields, strlist_t *messages)
{
    if (policy != COMPAT_POLICY_LOGICAL && (level == COMPAT_NONE || n == 0))
        return 1;
    size_t oldest = compat_level_is_transitive(level) || n == 0 ? 0 : n - 1;
    /* Newest first; the first failing version's list is the answer. */
    for (size_t i = n; level != COMPAT_NONE && i-- > oldest;) {
        if (check_against(level, policy, candidate, &history[i], messages) != 0)
            return -1;
        if (messages->n > 0)
            break;
    }
    if (policy == COMPAT_POLICY_LOGICAL && check_logical(level, candidate, history, n, messages) != 0)
        return -1;
    if (messages->n == 0)
        return 1;
    if (strlist_pushf(messages, "{validateFields: '%s', compatibility: '%s'}",
                      validate_fields ? "true" : "false", compat_level_name(level)) != 0)
        return -1;
    return 0;
}
