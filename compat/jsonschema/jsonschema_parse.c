/*
 * jsonschema_parse: a document with its references into the object model --
 * the dialect, the parse, the canonical text -- and a standalone load of one
 * value (for the tag paths, jsonschema_tags.c). The engine table that plugs
 * these into compat/schema.h is jsonschema_engine.c.
 *
 * Chapters: 1. dialects  2. parse and free
 */
#include "compat/jsonschema/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- 1. Dialects ------------------------------------------------------------- */

static const struct {
    const char *url;
    jsonschema_draft_t draft;
} dialects[] = {
    {"http://json-schema.org/draft-04/schema", JSONSCHEMA_DRAFT_4},
    {"https://json-schema.org/draft-04/schema", JSONSCHEMA_DRAFT_4},
    {"http://json-schema.org/schema", JSONSCHEMA_DRAFT_4},
    {"https://json-schema.org/schema", JSONSCHEMA_DRAFT_4},
    {"http://json-schema.org/draft-06/schema", JSONSCHEMA_DRAFT_6},
    {"https://json-schema.org/draft-06/schema", JSONSCHEMA_DRAFT_6},
    {"http://json-schema.org/draft-07/schema", JSONSCHEMA_DRAFT_7},
    {"https://json-schema.org/draft-07/schema", JSONSCHEMA_DRAFT_7},
    {"http://json-schema.org/draft/2019-09/schema", JSONSCHEMA_DRAFT_2019_09},
    {"https://json-schema.org/draft/2019-09/schema", JSONSCHEMA_DRAFT_2019_09},
    {"http://json-schema.org/draft/2020-12/schema", JSONSCHEMA_DRAFT_2020_12},
    {"https://json-schema.org/draft/2020-12/schema", JSONSCHEMA_DRAFT_2020_12},
};
#define NDIALECTS (sizeof dialects / sizeof *dialects)

/* The registry matches the URL exactly (one trailing '#' aside); the
 * draft-4..7 loader then also accepts URLs that merely start with one. */
static jsonschema_draft_t draft_of(const jsonschema_json_t *url)
{
    size_t len = url->len;
    if (len > 0 && url->str[len - 1] == '#')
        len--;
    for (size_t i = 0; i < NDIALECTS; i++) {
        if (strlen(dialects[i].url) == len && memcmp(dialects[i].url, url->str, len) == 0)
            return dialects[i].draft;
    }
    for (size_t i = 0; i < NDIALECTS; i++) {
        size_t n = strlen(dialects[i].url);
        if (dialects[i].draft <= JSONSCHEMA_DRAFT_7 && url->len >= n &&
            memcmp(dialects[i].url, url->str, n) == 0)
            return dialects[i].draft;
    }
    return JSONSCHEMA_DRAFT_7;
}

static int detect_draft(jsonschema_t *s, jsonschema_draft_t dflt, char **error)
{
    s->draft = dflt;
    const jsonschema_json_t *url = jsonschema_json_get(s->doc, "$schema");
    if (!url)
        return 0;
    if (url->kind != JSONSCHEMA_JSON_STRING) {
        *error = strdup("#/$schema: expected a string");
        return -1;
    }
    s->draft = draft_of(url);
    return 0;
}

/* ---- 2. Parse and free ---------------------------------------------------------- */

void jsonschema_free(jsonschema_t *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nnodes; i++) {
        jsonschema_node_t *n = s->nodes[i];
        for (size_t j = 0; j < n->ndep_arrays; j++)
            free(n->dep_arrays[j].names);
        jsonschema_node_free_indexes(n);
        free(n->props);
        free(n->required);
        free(n->pattern_props);
        free(n->dep_arrays);
        free(n->dep_schemas);
        free(n->tuple);
        free(n->values);
        free(n->subs);
        free(n);
    }
    free(s->nodes);
    for (size_t i = 0; i < s->nstrings; i++)
        free(s->strings[i]);
    free(s->strings);
    for (size_t i = 0; i < s->nref_docs; i++) {
        jsonschema_json_free(s->ref_docs[i]);
        free(s->ref_names[i]);
    }
    free(s->ref_docs);
    free(s->ref_names);
    jsonschema_json_free(s->doc);
    free(s->canonical);
    free(s);
}

static int parse_document(jsonschema_t *s, const char *text, size_t len, int flags, jsonschema_draft_t dflt,
                          char **error)
{
    s->doc = jsonschema_json_parse(text, len, error);
    if (!s->doc)
        return -1;
    if (s->doc->kind != JSONSCHEMA_JSON_OBJECT && s->doc->kind != JSONSCHEMA_JSON_TRUE &&
        s->doc->kind != JSONSCHEMA_JSON_FALSE) {
        if (asprintf(error,
                     "Invalid JSON schema: expected an object or boolean at the root, "
                     "found %s",
                     jsonschema_json_kind_name(s->doc->kind)) < 0)
            *error = NULL;
        return -1;
    }
    if (flags & SCHEMA_PARSE_NORMALIZE)
        jsonschema_json_sort_keys(s->doc);
    if (detect_draft(s, dflt, error) != 0)
        return -1;
    s->canonical = jsonschema_json_dump(s->doc);
    return s->canonical ? 0 : -1;
}

static int parse_references(jsonschema_t *s, const schema_ref_t *refs, size_t nrefs, char **error)
{
    s->ref_docs = calloc(nrefs + 1, sizeof *s->ref_docs);
    s->ref_names = calloc(nrefs + 1, sizeof *s->ref_names);
    if (!s->ref_docs || !s->ref_names)
        return -1;
    for (size_t i = 0; i < nrefs; i++) {
        char *err = NULL;
        if (!refs[i].name || !refs[i].text) {
            *error = strdup("a reference has no name or no text");
            return -1;
        }
        s->ref_names[i] = strdup(refs[i].name);
        s->ref_docs[i] = jsonschema_json_parse(refs[i].text, strlen(refs[i].text), &err);
        s->nref_docs = i + 1;
        if (!s->ref_docs[i] || !s->ref_names[i]) {
            if (asprintf(error, "reference '%s': %s", refs[i].name, err ? err : "out of memory") < 0)
                *error = NULL;
            free(err);
            return -1;
        }
    }
    return 0;
}

/* Index every document, load the root, then every $ref target. */
static int load_all(jsonschema_t *s, jsonschema_loader_t *ld)
{
    int oom = 0;
    const char *root_base = jsonschema_ref_rebase(s, JSONSCHEMA_DEFAULT_BASE, s->doc, &oom);
    if (oom || jsonschema_ref_index(ld, s->doc, JSONSCHEMA_DEFAULT_BASE) != 0)
        return -1;
    for (size_t i = 0; i < s->nref_docs; i++) {
        char *uri = jsonschema_uri_resolve(root_base ? root_base : JSONSCHEMA_DEFAULT_BASE, s->ref_names[i]);
        int rc = uri ? jsonschema_ref_index(ld, s->ref_docs[i], uri) : -1;
        free(uri);
        if (rc != 0)
            return -1;
    }
    s->root = jsonschema_load_value(ld, s->doc, JSONSCHEMA_DEFAULT_BASE);
    if (!s->root)
        return -1;
    return jsonschema_ref_resolve_all(ld);
}

static jsonschema_t *parse_(const char *text, size_t len, const schema_ref_t *refs, size_t nrefs, int flags,
                            jsonschema_draft_t dflt, char **error);

jsonschema_t *jsonschema_parse(const char *text, size_t len, const schema_ref_t *refs, size_t nrefs,
                               int flags, char **error)
{
    return parse_(text, len, refs, nrefs, flags, JSONSCHEMA_DRAFT_7, error);
}

jsonschema_t *jsonschema_parse_value(const jsonschema_json_t *v, jsonschema_draft_t dflt, char **error)
{
    char *text = jsonschema_json_dump(v);
    *error = NULL;
    if (!text) {
        *error = strdup("out of memory");
        return NULL;
    }
    jsonschema_t *s = parse_(text, strlen(text), NULL, 0, 0, dflt, error);
    free(text);
    return s;
}

static jsonschema_t *parse_(const char *text, size_t len, const schema_ref_t *refs, size_t nrefs, int flags,
                            jsonschema_draft_t dflt, char **error)
{
    *error = NULL;
    jsonschema_t *s = calloc(1, sizeof *s);
    if (!s) {
        *error = strdup("out of memory");
        return NULL;
    }
    int rc = parse_document(s, text, len, flags, dflt, error);
    if (rc == 0)
        rc = parse_references(s, refs, nrefs, error);
    if (rc == 0) {
        jsonschema_loader_t ld = {.schema = s};
        rc = load_all(s, &ld);
        if (rc != 0 && !*error)
            *error = ld.error, ld.error = NULL;
        free(ld.error);
        jsonschema_ref_loader_free(&ld);
    }
    if (rc != 0) {
        if (!*error)
            *error = strdup("out of memory");
        jsonschema_free(s);
        return NULL;
    }
    return s;
}

const char *jsonschema_canonical(const jsonschema_t *s)
{
    return s->canonical;
}

jsonschema_draft_t jsonschema_get_draft(const jsonschema_t *s)
{
    return s->draft;
}

const jsonschema_node_t *jsonschema_root(const jsonschema_t *s)
{
    return s->root;
}
