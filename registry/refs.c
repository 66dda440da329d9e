/*
 * refs: schema references resolved against the index, and the parsed-model
 * cache on stored schemas.
 */
#include "registry/internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "registry/context.h"

/* ---- References ---------------------------------------------------------- */

/* Deeper chains than this are refused: references are a DAG of subjects. */
#define RESOLVE_MAX_DEPTH 64

reg_code_t registry_referenced_error(const char *subject, int version, reg_error_t *err)
{
    return reg_fail(err, REG_REFERENCE_EXISTS,
                    "One or more references exist to the schema {subject=%s, version=%d}.", subject, version);
}

/* Takes the reference of s (retained by the caller). */
static void resolved_add_held(reg_resolved_t *r, reg_schema_t *s)
{
    r->held = xreallocarray(r->held, r->nheld + 1, sizeof *r->held);
    r->held[r->nheld++] = s;
}

static int resolved_contains(const reg_resolved_t *r, const char *subject, int version)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->refs[i].version == version && strcmp(r->refs[i].subject, subject) == 0)
            return 1;
    return 0;
}

/* Depth-first, dependencies appended before dependents. */
static reg_code_t resolve_into(registry_t *reg, const char *context, const reg_ref_t *refs, size_t n,
                               int allow_deleted, int depth, reg_resolved_t *out, reg_ref_t *direct,
                               reg_error_t *err)
{
    if (depth > RESOLVE_MAX_DEPTH)
        return reg_fail(err, REG_INVALID_SCHEMA, "Invalid schema: references nested too deeply");
    for (size_t i = 0; i < n; i++) {
        const reg_ref_t *ref = &refs[i];
        if (!ref->name || !ref->subject)
            return reg_fail(err, REG_INVALID_SCHEMA,
                            "Invalid schema: a reference needs name, subject and version");
        reg_view_t v = {0};
        char *qualified = reg_ref_qualify(context, ref->subject);
        index_miss_t miss = index_view(reg->idx, qualified, ref->version, 1, &v);
        strlist_push_owned(&out->names, qualified);
        const char *target_subject = out->names.items[out->names.n - 1];
        if (miss == INDEX_NO_SUBJECT || miss == INDEX_NO_VERSION || (v.deleted && !allow_deleted)) {
            reg_view_clear(&v);
            return reg_fail(err, REG_INVALID_SCHEMA,
                            "Invalid schema: reference %s (subject '%s', version %d) not found", ref->name,
                            ref->subject, ref->version);
        }
        if (miss == INDEX_NO_SCHEMA)
            return reg_fail(err, REG_INVALID_SCHEMA, "Invalid schema: schema %d of reference %s not found",
                            v.id, ref->name);
        if (direct) {
            direct[i].name = ref->name;
            direct[i].subject = ref->subject;
            direct[i].version = v.version;
        }
        if (resolved_contains(out, target_subject, v.version)) {
            reg_view_clear(&v);
            continue;
        }
        reg_schema_t *target = v.schema;
        int version = v.version;
        v.schema = NULL;
        reg_view_clear(&v);
        reg_code_t rc =
            resolve_into(reg, target->context, target->refs, target->nrefs, 1, depth + 1, out, NULL, err);
        if (rc != REG_OK) {
            reg_schema_release(target);
            return rc;
        }
        resolved_add_held(out, target);
        out->refs = xreallocarray(out->refs, out->n + 1, sizeof *out->refs);
        /* Borrowed strings: ref->name/subject live in the request or in a held schema. */
        out->refs[out->n++] = (schema_ref_t){ref->name, target_subject, version, target->text};
    }
    return REG_OK;
}

reg_code_t registry_resolve(registry_t *reg, const char *context, const reg_ref_t *refs, size_t n,
                            int allow_deleted, reg_resolved_t *out, reg_error_t *err)
{
    memset(out, 0, sizeof *out);
    if (n == 0)
        return REG_OK;
    out->direct = xcalloc(n, sizeof *out->direct);
    out->ndirect = n;
    return resolve_into(reg, context, refs, n, allow_deleted, 0, out, out->direct, err);
}

void reg_resolved_clear(reg_resolved_t *r)
{
    for (size_t i = 0; i < r->nheld; i++)
        reg_schema_release(r->held[i]);
    free(r->held);
    free(r->refs);
    free(r->direct);
    strlist_clear(&r->names);
    memset(r, 0, sizeof *r);
}

/* ---- Parsed models -------------------------------------------------------- */

const schema_t *registry_parsed(registry_t *reg, reg_schema_t *s, reg_error_t *err)
{
    schema_t *parsed = __atomic_load_n(&s->parsed, __ATOMIC_ACQUIRE);
    if (parsed)
        return parsed;
    reg_resolved_t res;
    if (registry_resolve(reg, s->context, s->refs, s->nrefs, 1, &res, err) != REG_OK) {
        reg_resolved_clear(&res);
        return NULL;
    }
    char *error = NULL;
    parsed = schema_parse(s->type, s->text, s->text_len, res.refs, res.n, 0, &error);
    reg_resolved_clear(&res);
    if (!parsed) {
        reg_fail(err, REG_INVALID_SCHEMA, "Stored schema %d does not parse: %s", s->id, error ? error : "?");
        free(error);
        return NULL;
    }
    schema_t *expected = NULL;
    /* Two threads may parse at once; the first to publish wins. */
    if (!__atomic_compare_exchange_n(&s->parsed, &expected, parsed, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        schema_free(parsed);
        return expected;
    }
    return parsed;
}
