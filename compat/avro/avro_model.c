/*
 * avro_model: a parsed schema as callers hold it: parsing with references
 * and normalization, the texts derived from it, and the small facts about
 * types every other file asks for.
 *
 * Contents
 *   1. Types: names, primitive nodes, aliases
 *   2. Model lifetime
 *   3. Parsing (references first, then the schema, then normalization)
 *   4. Texts: canonical, resolved, Parsing Canonical Form, fingerprint
 */
#include "compat/avro/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- 1. Types ---------------------------------------------------------------------- */

static const char *const kind_names[][2] = {
    [AVRO_KIND_NULL] = {"null", "NULL"},
    [AVRO_KIND_BOOLEAN] = {"boolean", "BOOLEAN"},
    [AVRO_KIND_INT] = {"int", "INT"},
    [AVRO_KIND_LONG] = {"long", "LONG"},
    [AVRO_KIND_FLOAT] = {"float", "FLOAT"},
    [AVRO_KIND_DOUBLE] = {"double", "DOUBLE"},
    [AVRO_KIND_BYTES] = {"bytes", "BYTES"},
    [AVRO_KIND_STRING] = {"string", "STRING"},
    [AVRO_KIND_RECORD] = {"record", "RECORD"},
    [AVRO_KIND_ENUM] = {"enum", "ENUM"},
    [AVRO_KIND_ARRAY] = {"array", "ARRAY"},
    [AVRO_KIND_MAP] = {"map", "MAP"},
    [AVRO_KIND_UNION] = {"union", "UNION"},
    [AVRO_KIND_FIXED] = {"fixed", "FIXED"},
    /* A placeholder is a record in Avro until it is resolved. */
    [AVRO_KIND_UNRESOLVED] = {"record", "RECORD"},
};

const char *avro_kind_name(avro_kind_t k)
{
    return kind_names[k][0];
}

const char *avro_kind_upper(avro_kind_t k)
{
    return kind_names[k][1];
}

int avro_kind_is_primitive(avro_kind_t k)
{
    return k <= AVRO_KIND_STRING;
}

static const avro_node_t primitive_nodes[] = {
    {.kind = AVRO_KIND_NULL},  {.kind = AVRO_KIND_BOOLEAN}, {.kind = AVRO_KIND_INT},
    {.kind = AVRO_KIND_LONG},  {.kind = AVRO_KIND_FLOAT},   {.kind = AVRO_KIND_DOUBLE},
    {.kind = AVRO_KIND_BYTES}, {.kind = AVRO_KIND_STRING},
};

const avro_node_t *avro_primitive(avro_kind_t k)
{
    return &primitive_nodes[k];
}

void avro_buf_alias_string(strbuf_t *b, const avro_node_t *named, const avro_name_t *alias)
{
    if (!alias->space && named->named->name.space) {
        strbuf_putc(b, '.');
        strbuf_puts(b, alias->name);
    } else {
        strbuf_puts(b, alias->full);
    }
}

/* ---- 2. Model lifetime ------------------------------------------------------------- */

int avro_model_own(avro_model_t *m, json_t *v)
{
    if (m->n_owned == m->cap_owned) {
        size_t cap = m->cap_owned ? m->cap_owned * 2 : 8;
        json_t **owned = realloc(m->owned, cap * sizeof *owned);
        if (!owned) {
            json_decref(v);
            return -1;
        }
        m->owned = owned;
        m->cap_owned = cap;
    }
    m->owned[m->n_owned++] = v;
    return 0;
}

void avro_model_free(avro_model_t *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n_owned; i++)
        json_decref(m->owned[i]);
    free(m->owned);
    free(m->ref_names);
    arena_free(m->arena);
    free(m);
}

/* ---- 3. Parsing ---------------------------------------------------------------------- */

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

/* ---- 4. Texts ------------------------------------------------------------------------------ */

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
