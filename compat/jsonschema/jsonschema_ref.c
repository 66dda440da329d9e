/*
 * jsonschema_ref: $id, anchors and $ref, without any network.
 *
 * Every document (the schema and each reference handed in) is indexed by
 * absolute URI together with the subschemas that declare an id or an
 * anchor. A $ref is resolved against the base URI in force where it is
 * written, then looked up in that index; a JSON pointer fragment walks the
 * resource it names. What the index does not hold is an error: nothing is
 * ever fetched (a remote http(s) reference says so).
 *
 * Chapters: 1. URIs  2. the index  3. pointers  4. resolving deferred $refs
 */
#include "compat/jsonschema/internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct jsonschema_resource {
    char *uri; /* absolute; "uri#anchor" for anchors */
    const jsonschema_json_t *value;
    const char *base; /* base URI in force at value (borrowed from uri or s) */
    int is_document;
} resource_t;

typedef struct jsonschema_pending {
    jsonschema_node_t *node;
    const char *base; /* borrowed: kept by the schema */
} pending_t;

/* ---- 1. URIs ------------------------------------------------------------------ */

typedef struct uri_parts {
    const char *scheme, *auth, *path, *query, *frag;
    size_t scheme_len, auth_len, path_len, query_len, frag_len;
    int has_auth, has_query, has_frag;
} uri_parts_t;

static void uri_split(const char *s, uri_parts_t *u)
{
    memset(u, 0, sizeof *u);
    const char *p = s;
    if (isalpha((unsigned char)*p)) {
        const char *q = p;
        while (isalnum((unsigned char)*q) || *q == '+' || *q == '-' || *q == '.')
            q++;
        if (*q == ':') {
            u->scheme = p;
            u->scheme_len = (size_t)(q - p);
            p = q + 1;
        }
    }
    if (p[0] == '/' && p[1] == '/') {
        u->has_auth = 1;
        u->auth = p + 2;
        u->auth_len = strcspn(u->auth, "/?#");
        p = u->auth + u->auth_len;
    }
    u->path = p;
    u->path_len = strcspn(p, "?#");
    p += u->path_len;
    if (*p == '?') {
        u->has_query = 1;
        u->query = p + 1;
        u->query_len = strcspn(u->query, "#");
        p = u->query + u->query_len;
    }
    if (*p == '#') {
        u->has_frag = 1;
        u->frag = p + 1;
        u->frag_len = strlen(u->frag);
    }
}

/* RFC 3986 5.2.4, in place on a NUL-terminated path (output never passes input). */
static void drop_last_segment(char *path, char **out)
{
    while (*out > path && (*out)[-1] != '/')
        (*out)--;
    if (*out > path)
        (*out)--;
}

static void remove_dot_segments(char *path)
{
    char *in = path, *out = path;
    while (*in) {
        if (strncmp(in, "../", 3) == 0) {
            in += 3;
        } else if (strncmp(in, "./", 2) == 0 || strncmp(in, "/./", 3) == 0) {
            in += 2;
        } else if (strcmp(in, "/.") == 0) {
            in[1] = '\0';
        } else if (strncmp(in, "/../", 4) == 0) {
            in += 3;
            drop_last_segment(path, &out);
        } else if (strcmp(in, "/..") == 0) {
            in += 2;
            *in = '/';
            drop_last_segment(path, &out);
        } else if (strcmp(in, ".") == 0 || strcmp(in, "..") == 0) {
            break;
        } else {
            do {
                *out++ = *in++;
            } while (*in && *in != '/');
        }
    }
    *out = '\0';
}

static char *merge_path(const uri_parts_t *b, const uri_parts_t *r)
{
    char *out = NULL;
    if (b->has_auth && b->path_len == 0) {
        if (asprintf(&out, "/%.*s", (int)r->path_len, r->path) < 0)
            return NULL;
        return out;
    }
    size_t keep = b->path_len;
    while (keep > 0 && b->path[keep - 1] != '/')
        keep--;
    if (asprintf(&out, "%.*s%.*s", (int)keep, b->path, (int)r->path_len, r->path) < 0)
        return NULL;
    return out;
}

static char *target_path(const uri_parts_t *b, const uri_parts_t *r, int use_ref_path_as_is)
{
    char *path = use_ref_path_as_is ? strndup(r->path, r->path_len) : merge_path(b, r);
    if (path)
        remove_dot_segments(path);
    return path;
}

char *jsonschema_uri_resolve(const char *base, const char *ref)
{
    uri_parts_t b, r;
    uri_split(base ? base : "", &b);
    uri_split(ref, &r);
    const uri_parts_t *auth = &b, *query = &r;
    const uri_parts_t *scheme = r.scheme ? &r : &b;
    char *path;
    if (r.scheme || r.has_auth) {
        auth = &r;
        path = target_path(&b, &r, 1);
    } else if (r.path_len == 0) {
        path = strndup(b.path, b.path_len);
        query = r.has_query ? &r : &b;
    } else {
        path = target_path(&b, &r, r.path[0] == '/');
    }
    if (!path)
        return NULL;
    char *out = NULL;
    int rc = asprintf(&out, "%.*s%s%s%.*s%s%s%.*s%s%.*s", (int)scheme->scheme_len,
                      scheme->scheme ? scheme->scheme : "", scheme->scheme ? ":" : "",
                      auth->has_auth ? "//" : "", (int)auth->auth_len, auth->auth ? auth->auth : "", path,
                      query->has_query ? "?" : "", (int)query->query_len, query->query ? query->query : "",
                      r.has_frag ? "#" : "", (int)r.frag_len, r.frag ? r.frag : "");
    free(path);
    return rc < 0 ? NULL : out;
}

/* ---- 2. The index --------------------------------------------------------------- */

static int add_resource(jsonschema_loader_t *ld, char *uri, const jsonschema_json_t *value, const char *base,
                        int is_document)
{
    if (!uri || jsonschema_grow((void **)&ld->resources, &ld->resources_cap, ld->nresources + 1,
                                sizeof *ld->resources) != 0) {
        free(uri);
        return -1;
    }
    /* The first registration of a URI wins, as in a map filled in order. */
    for (size_t i = 0; i < ld->nresources; i++) {
        if (strcmp(ld->resources[i].uri, uri) == 0) {
            free(uri);
            return 0;
        }
    }
    ld->resources[ld->nresources++] = (resource_t){uri, value, base ? base : uri, is_document};
    if (!base)
        ld->resources[ld->nresources - 1].base = ld->resources[ld->nresources - 1].uri;
    return 0;
}

static char *strip_fragment(const char *uri)
{
    return strndup(uri, strcspn(uri, "#"));
}

const char *jsonschema_ref_rebase(const jsonschema_t *s, const char *base, const jsonschema_json_t *v,
                                  int *oom)
{
    const jsonschema_json_t *id = jsonschema_json_get(v, s->draft == JSONSCHEMA_DRAFT_4 ? "id" : "$id");
    *oom = 0;
    if (!id || id->kind != JSONSCHEMA_JSON_STRING || id->len == 0 || id->str[0] == '#' ||
        strlen(id->str) != id->len)
        return NULL;
    char *abs = jsonschema_uri_resolve(base, id->str);
    char *stripped = abs ? strip_fragment(abs) : NULL;
    free(abs);
    if (!stripped || jsonschema_keep_string((jsonschema_t *)s, stripped) != 0) {
        *oom = 1;
        return NULL;
    }
    return stripped;
}

static int index_anchor(jsonschema_loader_t *ld, const char *base, const char *name, size_t len)
{
    char *uri = NULL;
    if (asprintf(&uri, "%s#%.*s", base, (int)len, name) < 0)
        return -1;
    return add_resource(ld, uri, NULL, base, 0);
}

/* Keywords whose values are data, not schemas: no ids inside them. */
static int is_data_keyword(const char *key)
{
    return strcmp(key, "enum") == 0 || strcmp(key, "const") == 0 || strcmp(key, "default") == 0 ||
           strcmp(key, "examples") == 0;
}

static int index_value(jsonschema_loader_t *ld, const jsonschema_json_t *v, const char *base, int depth);

static int index_object(jsonschema_loader_t *ld, const jsonschema_json_t *v, const char *base, int depth)
{
    jsonschema_t *s = ld->schema;
    int oom = 0;
    const char *own = jsonschema_ref_rebase(s, base, v, &oom);
    if (oom)
        return -1;
    if (own && add_resource(ld, strdup(own), v, own, 0) != 0)
        return -1;
    const char *here = own ? own : base;
    const jsonschema_json_t *anchor = jsonschema_json_get(v, "$anchor");
    if (!anchor)
        anchor = jsonschema_json_get(v, "$dynamicAnchor");
    const jsonschema_json_t *id = jsonschema_json_get(v, s->draft == JSONSCHEMA_DRAFT_4 ? "id" : "$id");
    if (anchor && anchor->kind == JSONSCHEMA_JSON_STRING) {
        if (index_anchor(ld, here, anchor->str, anchor->len) != 0)
            return -1;
        ld->resources[ld->nresources - 1].value = v;
    }
    if (id && id->kind == JSONSCHEMA_JSON_STRING && id->len > 1 && id->str[0] == '#') {
        if (index_anchor(ld, here, id->str + 1, id->len - 1) != 0)
            return -1;
        ld->resources[ld->nresources - 1].value = v;
    }
    for (size_t i = 0; i < v->n; i++) {
        if (!is_data_keyword(v->members[i].key) && index_value(ld, v->members[i].value, here, depth + 1) != 0)
            return -1;
    }
    return 0;
}

static int index_value(jsonschema_loader_t *ld, const jsonschema_json_t *v, const char *base, int depth)
{
    if (depth > JSONSCHEMA_JSON_MAX_DEPTH)
        return 0;
    if (v->kind == JSONSCHEMA_JSON_ARRAY) {
        for (size_t i = 0; i < v->n; i++) {
            if (index_value(ld, v->elems[i], base, depth + 1) != 0)
                return -1;
        }
        return 0;
    }
    if (v->kind == JSONSCHEMA_JSON_OBJECT)
        return index_object(ld, v, base, depth);
    return 0;
}

int jsonschema_ref_index(jsonschema_loader_t *ld, const jsonschema_json_t *doc, const char *uri)
{
    char *doc_uri = strip_fragment(uri);
    if (!doc_uri || jsonschema_keep_string(ld->schema, doc_uri) != 0)
        return -1;
    if (add_resource(ld, strdup(doc_uri), doc, doc_uri, 1) != 0)
        return -1;
    if (doc->kind != JSONSCHEMA_JSON_OBJECT)
        return 0;
    return index_value(ld, doc, doc_uri, 0);
}

/* ---- 3. Pointers -------------------------------------------------------------------- */

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = (char)tolower((unsigned char)c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* One reference token: percent-decoded, then ~1 -> '/', ~0 -> '~'. */
static size_t decode_token(const char *p, size_t len, char *out)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (p[i] == '%' && i + 2 < len && hexval(p[i + 1]) >= 0 && hexval(p[i + 2]) >= 0) {
            out[n++] = (char)(hexval(p[i + 1]) * 16 + hexval(p[i + 2]));
            i += 2;
        } else {
            out[n++] = p[i];
        }
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (out[i] == '~' && i + 1 < n && (out[i + 1] == '0' || out[i + 1] == '1')) {
            out[m++] = out[i + 1] == '0' ? '~' : '/';
            i++;
        } else {
            out[m++] = out[i];
        }
    }
    return m;
}

static const jsonschema_json_t *step(const jsonschema_json_t *v, const char *tok, size_t len)
{
    if (v->kind == JSONSCHEMA_JSON_OBJECT) {
        for (size_t i = 0; i < v->n; i++) {
            if (v->members[i].key_len == len && memcmp(v->members[i].key, tok, len) == 0)
                return v->members[i].value;
        }
        return NULL;
    }
    if (v->kind != JSONSCHEMA_JSON_ARRAY || len == 0 || len > 9)
        return NULL;
    size_t idx = 0;
    for (size_t i = 0; i < len; i++) {
        if (!isdigit((unsigned char)tok[i]) || (i == 0 && tok[0] == '0' && len > 1))
            return NULL;
        idx = idx * 10 + (size_t)(tok[i] - '0');
    }
    return idx < v->n ? v->elems[idx] : NULL;
}

/* Walks pointer (without the leading '/') from root; *base follows the $ids passed. */
static const jsonschema_json_t *walk_pointer(jsonschema_loader_t *ld, const jsonschema_json_t *root,
                                             const char *pointer, const char **base)
{
    const jsonschema_json_t *v = root;
    char *tok = malloc(strlen(pointer) + 1);
    if (!tok)
        return NULL;
    const char *p = pointer;
    while (v && *p == '/') {
        p++;
        size_t len = strcspn(p, "/");
        size_t n = decode_token(p, len, tok);
        p += len;
        v = step(v, tok, n);
        int oom = 0;
        const char *rebased =
            v && v->kind == JSONSCHEMA_JSON_OBJECT ? jsonschema_ref_rebase(ld->schema, *base, v, &oom) : NULL;
        if (rebased)
            *base = rebased;
    }
    free(tok);
    return *p ? NULL : v;
}

/* ---- 4. Resolving deferred $refs ------------------------------------------------------- */

int jsonschema_ref_defer(jsonschema_loader_t *ld, jsonschema_node_t *ref_node, const char *base)
{
    if (jsonschema_grow((void **)&ld->pending, &ld->pending_cap, ld->npending + 1, sizeof *ld->pending) != 0)
        return -1;
    ld->pending[ld->npending++] = (pending_t){ref_node, base};
    return 0;
}

static const resource_t *find_resource(const jsonschema_loader_t *ld, const char *uri)
{
    for (size_t i = 0; i < ld->nresources; i++) {
        if (strcmp(ld->resources[i].uri, uri) == 0)
            return &ld->resources[i];
    }
    return NULL;
}

static int is_remote(const char *uri)
{
    return strncasecmp(uri, "http://", 7) == 0 || strncasecmp(uri, "https://", 8) == 0;
}

static const jsonschema_json_t *pointer_target(jsonschema_loader_t *ld, const resource_t *r, const char *frag,
                                               const char **base)
{
    const jsonschema_json_t *v = walk_pointer(ld, r->value, frag, base);
    /* The reference mirrors top-level "definitions" into "$defs" before loading. */
    if (!v && r->is_document && strncmp(frag, "/$defs/", 7) == 0) {
        char *alt = NULL;
        if (asprintf(&alt, "/definitions/%s", frag + 7) < 0)
            return NULL;
        *base = r->base;
        v = walk_pointer(ld, r->value, alt, base);
        free(alt);
    }
    return v;
}

/* The value a $ref names and the base URI in force there; NULL after an error. */
static const jsonschema_json_t *lookup(jsonschema_loader_t *ld, const char *ref, const char *base,
                                       const char **target_base)
{
    char *abs = jsonschema_uri_resolve(base, ref);
    if (!abs) {
        jsonschema_fail(ld, "out of memory");
        return NULL;
    }
    const jsonschema_json_t *v = NULL;
    size_t cut = strcspn(abs, "#");
    const char *frag = abs[cut] ? abs + cut + 1 : "";
    const resource_t *r = NULL;
    if (*frag && *frag != '/') {
        r = find_resource(ld, abs); /* an anchor */
        if (r) {
            v = r->value;
            *target_base = r->base;
        }
    } else {
        abs[cut] = '\0';
        r = find_resource(ld, abs);
        if (r) {
            *target_base = r->base;
            v = *frag ? pointer_target(ld, r, frag, target_base) : r->value;
        }
    }
    if (!v) {
        if (!r && is_remote(abs))
            jsonschema_fail(ld, "unresolved $ref '%s': remote references are not fetched", ref);
        else
            jsonschema_fail(ld, "unresolved $ref '%s'", ref);
    }
    free(abs);
    return v;
}

static int resolve_one(jsonschema_loader_t *ld, pending_t p)
{
    const char *target_base = NULL;
    jsonschema_path_pop(ld, 0);
    size_t mark = jsonschema_path_push(ld, "$ref", 4);
    const jsonschema_json_t *v = lookup(ld, p.node->ref, p.base, &target_base);
    jsonschema_path_pop(ld, mark);
    if (!v)
        return -1;
    if (v->kind != JSONSCHEMA_JSON_OBJECT && v->kind != JSONSCHEMA_JSON_TRUE &&
        v->kind != JSONSCHEMA_JSON_FALSE)
        return jsonschema_fail(ld, "$ref '%s' does not name a schema", p.node->ref);
    p.node->target = jsonschema_load_value(ld, v, target_base);
    return p.node->target ? 0 : -1;
}

int jsonschema_ref_resolve_all(jsonschema_loader_t *ld)
{
    /* Loading a target may defer more $refs: the list grows while we walk it. */
    for (size_t i = 0; i < ld->npending; i++) {
        if (resolve_one(ld, ld->pending[i]) != 0)
            return -1;
    }
    for (size_t i = 0; i < ld->npending; i++) {
        if (!jsonschema_node_deref(ld->pending[i].node)) {
            jsonschema_path_pop(ld, 0);
            return jsonschema_fail(ld, "$ref '%s' is circular", ld->pending[i].node->ref);
        }
    }
    return 0;
}

void jsonschema_ref_loader_free(jsonschema_loader_t *ld)
{
    for (size_t i = 0; i < ld->nresources; i++)
        free(ld->resources[i].uri);
    free(ld->resources);
    free(ld->pending);
    ld->resources = NULL;
    ld->pending = NULL;
    ld->nresources = ld->npending = 0;
}
