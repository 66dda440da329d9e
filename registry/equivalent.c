/*
 * equivalent: the second pass of a lookup, Confluent's
 * AbstractSchemaRegistry.lookUpSchemaUnderSubject after its exact match
 * misses: every version of the subject, newest first (soft-deleted ones
 * only when the lookup asks for them), is parsed and compared with the
 * request by ParsedSchema.canLookup. The first that passes is the answer,
 * as stored: its id, version, text and references.
 *
 * canLookup holds when the schemas are equivalent (schema_equivalent) and
 * either the references are the same list, or the request has none while the
 * version has some: a schema sent with its references' types written out in
 * full finds the version that refers to them. The metadata must be equal
 * too, except that confluent:version is ignored when only one side has it
 * (AbstractSchemaProvider.canLookupIgnoringVersion): a schema sent without it
 * finds the version registered with it, and one sent with it finds a version
 * without it whose version number it names.
 */
#include <string.h>

#include "registry/internal.h"

static int refs_equal(const reg_ref_t *a, size_t na, const reg_ref_t *b, size_t nb)
{
    if (na != nb)
        return 0;
    for (size_t i = 0; i < na; i++)
        if (strcmp(a[i].name, b[i].name) != 0 || strcmp(a[i].subject, b[i].subject) != 0 ||
            a[i].version != b[i].version)
            return 0;
    return 1;
}

/* The metadata half of canLookupIgnoringVersion: cur is the request's, prev
 * the stored one at version prev_version. */
static int metadata_matches(const json_t *cur, const json_t *prev, int prev_version)
{
    int cur_v, prev_v;
    int has_cur = md_version_number(cur, &cur_v), has_prev = md_version_number(prev, &prev_v);
    json_t *a = NULL, *b = NULL;
    if (!has_cur && has_prev) {
        a = cur ? json_deep_copy(cur) : json_object();
        b = md_without_version(prev);
    } else if (has_cur && !has_prev) {
        if (cur_v != prev_version)
            return 0;
        a = md_without_version(cur);
        b = prev ? json_deep_copy(prev) : json_object();
    } else {
        return md_equal(cur, prev);
    }
    int same = md_equal(a, b);
    json_decref(a);
    json_decref(b);
    return same;
}

/* ParsedSchema.canLookup(prev) for the request (parsed, with its references resolved to versions). */
static int can_lookup(registry_t *reg, const schema_t *parsed, const reg_ref_t *refs, size_t nrefs,
                      const json_t *metadata, reg_schema_t *prev, int prev_version)
{
    if (prev->type != schema_get_type(parsed) || !metadata_matches(metadata, prev->metadata, prev_version))
        return 0;
    if (!(nrefs == 0 && prev->nrefs > 0) && !refs_equal(refs, nrefs, prev->refs, prev->nrefs))
        return 0;
    reg_error_t ignored = {0};
    /* A stored version that no longer parses cannot be looked up; Confluent skips it as well
     * (parseSchema answers null for it). */
    const schema_t *prev_parsed = registry_parsed(reg, prev, &ignored);
    return prev_parsed && schema_equivalent(parsed, prev_parsed);
}

int registry_find_equivalent(registry_t *reg, const char *subject, const schema_t *parsed,
                             const reg_ref_t *refs, size_t nrefs, const json_t *metadata, int deleted,
                             reg_view_t *out)
{
    reg_subject_t *subj = index_subject_copy(reg->idx, subject);
    int found = 0;
    for (size_t i = subj ? subj->n : 0; i-- > 0 && !found;) {
        const reg_version_t *v = &subj->v[i];
        if (v->deleted && !deleted)
            continue;
        reg_view_t view = {0};
        if (index_view(reg->idx, subject, v->version, deleted, &view) == INDEX_FOUND &&
            can_lookup(reg, parsed, refs, nrefs, metadata, view.schema, view.version)) {
            *out = view;
            found = 1;
        } else {
            reg_view_clear(&view);
        }
    }
    reg_subject_free(subj);
    return found;
}
