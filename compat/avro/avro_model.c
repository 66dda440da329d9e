/*
 * avro_model: a parsed schema as callers hold it: parsing with references
 * and normalization, and the texts derived from it. The facade over the
 * parser and the writers; the facts about types and the model's lifetime
 * are in avro_node.c.
 *
 * Contents
 *   1. Parsing (references first, then the schema, then normalization)
 *   2. Texts: canonical, resolved, Parsing Canonical Form, fingerprint
 */
#include "compat/avro/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- 1. Parsing ---------------------------------------------------------------------- */

static char *error_copy(const char *msg)
{
    return strdup(msg ? msg : "out of memory");
}

/* Canonical text lists a reference's top-level type by name only. */
static int remember_ref_name(avro_model_t *m, const avro_node_t *root)
{
    if (!root->named)
        return 0;
    const char **names = realloc(m->ref_names, (m->n_ref_names + 1) * sizeof *names);
    if (!names)
        return -1;
    names[m->n_ref_names++] = root->named->name.full;
    m->ref_names = names;
    return 0;
}

static int parse_references(avro_parse_t *p, avro_model_t *m, const schema_ref_t *refs, size_t nrefs)
{
    for (size_t i = 0; i < nrefs; i++) {
        const char *text = refs[i].text ? refs[i].text : "";
        const avro_node_t *root = avro_parse_document(p, text, strlen(text));
        if (!root)
            return -1;
        if (remember_ref_name(m, root) != 0)
            return -1;
    }
    return 0;
}

/* Everything but normalization. */
static avro_model_t *parse_plain(const char *text, size_t len, const schema_ref_t *refs, size_t nrefs,
                                 int strict, char **error)
{
    avro_model_t *m = calloc(1, sizeof *m);
    if (m && !(m->arena = arena_new())) {
        free(m);
        m = NULL;
    }
    avro_parse_t *p = m ? avro_parse_new(m, strict) : NULL;
    if (!p) {
        avro_model_free(m);
        *error = error_copy(NULL);
        return NULL;
    }
    const avro_node_t *root = NULL;
    if (parse_references(p, m, refs, nrefs) == 0 && (root = avro_parse_document(p, text, len))) {
        if (!avro_depth_within(root, AVRO_MAX_DEPTH)) {
            *error = NULL;
            if (asprintf(error, "Schema nesting deeper than %d levels", AVRO_MAX_DEPTH) < 0)
                *error = NULL;
            root = NULL;
        } else if (!strict && avro_parse_check_names(p, root) != 0) {
            root = NULL;
        }
    }
    if (!root) {
        if (!*error)
            *error = error_copy(avro_parse_error(p));
        avro_parse_free(p);
        avro_model_free(m);
        return NULL;
    }
    m->root = root;
    avro_parse_free(p);
    return m;
}

avro_model_t *avro_model_parse(const char *text, size_t len, const schema_ref_t *refs, size_t nrefs,
                               int flags, char **error)
{
    *error = NULL;
    int strict = (flags & SCHEMA_PARSE_NEW) != 0;
    avro_model_t *m = parse_plain(text, len, refs, nrefs, strict, error);
    if (!m || !(flags & SCHEMA_PARSE_NORMALIZE))
        return m;
    strbuf_t b = {0};
    if (avro_write_normalized(&b, m, error) != 0) {
        strbuf_free(&b);
        avro_model_free(m);
        if (!*error)
            *error = error_copy(NULL);
        return NULL;
    }
    char *normalized = strbuf_take(&b);
    avro_model_free(m);
    if (!normalized) {
        *error = error_copy(NULL);
        return NULL;
    }
    m = parse_plain(normalized, strlen(normalized), refs, nrefs, strict, error);
    free(normalized);
    return m;
}

/* ---- 2. Texts ------------------------------------------------------------------------------ */

char *avro_model_canonical(const avro_model_t *m)
{
    strbuf_t b = {0};
    avro_write_schema(&b, m->root, m->ref_names, m->n_ref_names);
    return strbuf_take(&b);
}

char *avro_model_resolved(const avro_model_t *m)
{
    strbuf_t b = {0};
    avro_write_schema(&b, m->root, NULL, 0);
    return strbuf_take(&b);
}

int avro_model_equivalent(const avro_model_t *a, const avro_model_t *b)
{
    return avro_node_equivalent(a->root, b->root);
}

char *avro_parsing_canonical_form(const avro_model_t *m)
{
    strbuf_t b = {0};
    avro_write_parsing_form(&b, m->root);
    return strbuf_take(&b);
}

int avro_model_fingerprint64(const avro_model_t *m, uint64_t *out)
{
    char *pcf = avro_parsing_canonical_form(m);
    if (!pcf)
        return -1;
    *out = avro_fingerprint64(pcf, strlen(pcf));
    free(pcf);
    return 0;
}
