/*
 * api: request decoding and response rendering shared by the handlers.
 */
#include "server/api.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

/* ---- 1. Outcomes --------------------------------------------------------- */

http_outcome_t api_done(http_call_t *c, reg_code_t rc, const reg_error_t *err)
{
    if (rc != REG_OK)
        http_reply_reg_error(c, err);
    return HTTP_DONE;
}

/* ---- 2. Request bodies --------------------------------------------------- */

/* flags: extra jansson decoding flags (JSON_ALLOW_NUL for registration bodies). */
static json_t *json_object_body(http_call_t *c, size_t flags)
{
    if (!c->body || c->body_len == 0) {
        http_reply_error(c, 422, "Request body is missing");
        return NULL;
    }
    json_error_t je;
    json_t *j = json_loadb(c->body, c->body_len, JSON_DECODE_ANY | flags, &je);
    if (!j) {
        http_reply_error(c, 400, "Unexpected character: %s (line %d, column %d)", je.text, je.line,
                         je.column);
        return NULL;
    }
    if (json_is_null(j)) {
        json_decref(j);
        http_reply_error(c, 422, "Request body is missing");
        return NULL;
    }
    if (!json_is_object(j)) {
        json_decref(j);
        http_reply_error(c, 400, "Request body must be a JSON object");
        return NULL;
    }
    return j;
}

json_t *api_json_object(http_call_t *c)
{
    return json_object_body(c, 0);
}

/* A field that must be a string when present (null = absent), with its
 * length: registration bodies are decoded with JSON_ALLOW_NUL, and a string
 * holding U+0000 is refused where the caller takes a C string (len NULL). */
static int field_string_n(http_call_t *c, json_t *obj, const char *name, const char **out, size_t *len)
{
    json_t *v = json_object_get(obj, name);
    *out = NULL;
    if (len)
        *len = 0;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_string(v)) {
        http_reply_error(c, 400, "Field '%s' must be a string", name);
        return -1;
    }
    if (!len && memchr(json_string_value(v), '\0', json_string_length(v))) {
        http_reply_error(c, 400, "Field '%s' must not contain U+0000", name);
        return -1;
    }
    *out = json_string_value(v);
    if (len)
        *len = json_string_length(v);
    return 0;
}

static int field_string(http_call_t *c, json_t *obj, const char *name, const char **out)
{
    return field_string_n(c, obj, name, out, NULL);
}

/* A field that must be an integer when present (null = absent -> dflt). */
static int field_int(http_call_t *c, json_t *obj, const char *name, int dflt, int *out)
{
    json_t *v = json_object_get(obj, name);
    *out = dflt;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_integer(v) || json_integer_value(v) > INT32_MAX || json_integer_value(v) < INT32_MIN) {
        http_reply_error(c, 400, "Field '%s' must be a 32-bit integer", name);
        return -1;
    }
    *out = (int)json_integer_value(v);
    return 0;
}

static int decode_references(http_call_t *c, api_body_t *b)
{
    json_t *arr = json_object_get(b->json, "references");
    if (!arr || json_is_null(arr))
        return 0;
    if (!json_is_array(arr)) {
        http_reply_error(c, 400, "Field 'references' must be an array");
        return -1;
    }
    size_t n = json_array_size(arr);
    b->refs = xcalloc(n + 1, sizeof *b->refs);
    for (size_t i = 0; i < n; i++) {
        json_t *r = json_array_get(arr, i);
        if (!json_is_object(r)) {
            http_reply_error(c, 400, "Each reference must be an object");
            return -1;
        }
        int version;
        const char *name, *subject;
        if (field_string(c, r, "name", &name) != 0 || field_string(c, r, "subject", &subject) != 0 ||
            field_int(c, r, "version", INT32_MIN, &version) != 0)
            return -1;
        if (!name || !subject || version == INT32_MIN) {
            http_reply_error(c, REG_INVALID_SCHEMA,
                             "Invalid schema: a reference needs name, subject and version");
            return -1;
        }
        b->refs[i] = (reg_ref_t){(char *)name, (char *)subject, version};
    }
    b->req.refs = b->refs;
    b->req.nrefs = n;
    return 0;
}

/* "metadata" in canonical form (400 when not of Metadata's shape), and whether
 * a "ruleSet" object came (Jackson refuses a RuleSet that is not an object). */
static int decode_metadata_rule_set(http_call_t *c, api_body_t *b)
{
    reg_error_t err;
    if (registry_metadata_read(json_object_get(b->json, "metadata"), &b->metadata, &err) != REG_OK) {
        http_reply_reg_error(c, &err);
        return -1;
    }
    b->req.metadata = b->metadata;
    json_t *rs = json_object_get(b->json, "ruleSet");
    if (rs && !json_is_null(rs) && !json_is_object(rs)) {
        http_reply_error(c, 400, "Field 'ruleSet' must be an object");
        return -1;
    }
    b->req.rule_set = json_is_object(rs);
    return 0;
}

/* Decodes the fields of b->json into b; replies and returns -1 on failure. */
static int body_decode(http_call_t *c, api_body_t *b)
{
    if (field_string_n(c, b->json, "schema", &b->req.schema, &b->req.schema_len) != 0 ||
        field_string(c, b->json, "schemaType", &b->req.schema_type) != 0 ||
        field_int(c, b->json, "id", -1, &b->req.id) != 0 ||
        field_int(c, b->json, "version", 0, &b->req.version) != 0 || decode_references(c, b) != 0 ||
        decode_metadata_rule_set(c, b) != 0)
        return -1;
    b->req.normalize = http_query_bool(c, "normalize", 0);
    b->req.force = http_query_bool(c, "force", 0);
    return 0;
}

api_body_t *api_body_new(http_call_t *c)
{
    /* The schema text may hold U+0000 once decoded (Jackson decodes \u0000);
     * the engine decides, with the length carried (reg_request_t.schema_len). */
    json_t *json = json_object_body(c, JSON_ALLOW_NUL);
    if (!json)
        return NULL;
    api_body_t *b = api_body_from(c, json);
    json_decref(json);
    return b;
}

api_body_t *api_body_from(http_call_t *c, json_t *json)
{
    api_body_t *b = xcalloc(1, sizeof *b);
    b->req.id = -1;
    b->json = json_incref(json);
    if (body_decode(c, b) != 0) {
        api_body_free(b);
        return NULL;
    }
    return b;
}

static void api_pair_dispose(void *p)
{
    api_pair_t *pair = p;
    api_body_free(pair->old_body);
    api_body_free(pair->new_body);
    free(pair);
}

/* One side of a pair: an object of the registration body's shape. */
static api_body_t *pair_side(http_call_t *c, json_t *whole, const char *name)
{
    json_t *side = json_object_get(whole, name);
    if (!json_is_object(side)) {
        http_reply_error(c, 422, "Field '%s' must be an object with the schema, as a registration body",
                         name);
        return NULL;
    }
    return api_body_from(c, side);
}

api_pair_t *api_pair_new(http_call_t *c)
{
    json_t *whole = json_object_body(c, JSON_ALLOW_NUL);
    if (!whole)
        return NULL;
    api_pair_t *pair = xcalloc(1, sizeof *pair);
    if (!(pair->old_body = pair_side(c, whole, "old")) || !(pair->new_body = pair_side(c, whole, "new"))) {
        api_pair_dispose(pair);
        pair = NULL;
    }
    json_decref(whole);
    return pair;
}

void api_pair_keep(http_call_t *c, api_pair_t *pair)
{
    http_call_keep(c, pair, api_pair_dispose);
}

api_pair_t *api_pair_kept(http_call_t *c)
{
    return c->kept;
}

void api_body_free(api_body_t *b)
{
    if (!b)
        return;
    json_decref(b->json);
    json_decref(b->metadata);
    free(b->refs);
    free(b);
}

static void api_body_dispose(void *b)
{
    api_body_free(b);
}

void api_body_keep(http_call_t *c, api_body_t *b)
{
    http_call_keep(c, b, api_body_dispose);
}

api_body_t *api_body_kept(http_call_t *c)
{
    return c->kept;
}

static void api_json_dispose(void *j)
{
    json_decref(j);
}

void api_json_keep(http_call_t *c, json_t *body)
{
    http_call_keep(c, body, api_json_dispose);
}

json_t *api_json_kept(http_call_t *c)
{
    return c->kept;
}

/* ---- 3. Response objects --------------------------------------------------- */

static json_t *guid_string(const reg_schema_t *s)
{
    const unsigned char *k = s->key;
    char g[37];
    snprintf(g, sizeof g, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", k[0], k[1],
             k[2], k[3], k[4], k[5], k[6], k[7], k[8], k[9], k[10], k[11], k[12], k[13], k[14], k[15]);
    return json_string(g);
}

json_t *api_references(const reg_schema_t *s)
{
    return api_references_as(s, NULL);
}

json_t *api_references_as(const reg_schema_t *s, const char *reference_format)
{
    if (s->nrefs == 0)
        return NULL;
    /* referenceFormat=qualified names each reference with its context, for a
     * schema of a named context only (SchemasResource.getSchema). */
    int qualified =
        reference_format && strcmp(reference_format, "qualified") == 0 && strcmp(s->context, ".") != 0;
    json_t *arr = json_array();
    for (size_t i = 0; i < s->nrefs; i++) {
        char *name = qualified ? registry_ref_qualify(s->context, s->refs[i].subject) : NULL;
        json_array_append_new(arr,
                              json_pack("{s:s, s:s, s:i}", "name", s->refs[i].name, "subject",
                                        name ? name : s->refs[i].subject, "version", s->refs[i].version));
        free(name);
    }
    return arr;
}

char *api_schema_text(http_call_t *c, reg_schema_t *s)
{
    return registry_schema_format(c->reg, s, http_query(c, "format"));
}

json_t *api_metadata(const reg_schema_t *s)
{
    return s->metadata ? json_deep_copy(s->metadata) : NULL;
}

/* schemaType, references, metadata and schema, in Confluent's order (docs/api.md). */
static void add_schema_fields(http_call_t *c, json_t *o, reg_schema_t *s)
{
    if (c->extended || s->type != SCHEMA_AVRO)
        json_object_set_new(o, "schemaType", json_string(schema_type_name(s->type)));
    json_t *refs = api_references_as(s, http_query(c, "referenceFormat"));
    if (refs)
        json_object_set_new(o, "references", refs);
    json_t *metadata = api_metadata(s);
    if (metadata)
        json_object_set_new(o, "metadata", metadata);
    char *text = api_schema_text(c, s);
    json_object_set_new(o, "schema", json_string(text ? text : s->text));
    free(text);
}

json_t *api_schema_object(http_call_t *c, const reg_view_t *v)
{
    json_t *o = json_object();
    json_object_set_new(o, "subject", json_string(v->subject));
    json_object_set_new(o, "version", json_integer(v->version));
    json_object_set_new(o, "id", json_integer(v->id));
    if (c->extended)
        json_object_set_new(o, "guid", guid_string(v->schema));
    add_schema_fields(c, o, v->schema);
    if (c->extended) {
        json_object_set_new(o, "ts", json_integer(v->ts_ms));
        json_object_set_new(o, "deleted", json_boolean(v->deleted));
    }
    return o;
}

json_t *api_schema_string(http_call_t *c, const reg_view_t *v)
{
    reg_schema_t *s = v->schema;
    json_t *o = json_object();
    /* Extended profile: the version ?subject= found (docs/api.md, "Contexts"). */
    int named = c->extended && v->subject && v->version;
    if (named) {
        json_object_set_new(o, "subject", json_string(v->subject));
        json_object_set_new(o, "version", json_integer(v->version));
    }
    if (c->extended)
        json_object_set_new(o, "guid", guid_string(s));
    add_schema_fields(c, o, s);
    if (http_query_bool(c, "fetchMaxId", 0))
        json_object_set_new(o, "maxId", json_integer(registry_max_id(c->reg, s->context)));
    if (c->extended) {
        json_object_set_new(o, "ts", json_integer(s->ts_ms));
        /* [Ref: SchemaString] carries the flag of the version it was read from;
         * without one, whether no live version of the context carries the id. */
        json_object_set_new(
            o, "deleted",
            json_boolean(named ? v->deleted : registry_schema_deleted(c->reg, s->context, s->id)));
    }
    return o;
}

/* The ?format= values with prepared bodies of their own (compat engines'
 * names); any other value is rendered on every request. */
static const char *const api_formats[] = {"", "resolved", "serialized", "ignore_extensions"};
_Static_assert(2 * sizeof api_formats / sizeof api_formats[0] == REG_BODY_VARIANTS,
               "one variant per (profile, format)");

int api_variant(http_call_t *c)
{
    const char *format = http_query(c, "format");
    if (http_query(c, "referenceFormat") || http_query(c, "findTags"))
        return -1; /* references or tags rendered as asked: not kept */
    for (size_t i = 0; i < sizeof api_formats / sizeof api_formats[0]; i++)
        if (strcmp(format ? format : "", api_formats[i]) == 0)
            return (int)i * 2 + (c->extended ? 1 : 0);
    return -1;
}

int api_schema_string_variant(http_call_t *c)
{
    /* ?subject= selects the id's context, and in the extended profile names a version. */
    if (http_query_bool(c, "fetchMaxId", 0) || http_query(c, "subject"))
        return -1;
    return api_variant(c);
}

void api_add_schema_tags(http_call_t *c, json_t *o, reg_schema_t *s)
{
    strlist_t find = {0};
    http_query_all(c, "findTags", &find);
    schema_tagged_t *t = NULL;
    size_t n = 0;
    reg_error_t err;
    if (find.n > 0 && registry_schema_tags(c->reg, s, &find, &t, &n, &err) == 0 && n > 0) {
        static const char *const kinds[] = {
            [SCHEMA_ENTITY_RECORD] = "sr_record", [SCHEMA_ENTITY_FIELD] = "sr_field"};
        json_t *arr = json_array();
        for (size_t i = 0; i < n; i++) {
            json_t *tags = json_array();
            for (size_t j = 0; j < t[i].tags.n; j++)
                json_array_append_new(tags, json_string(t[i].tags.items[j]));
            json_array_append_new(arr, json_pack("{s:{s:s,s:s},s:o}", "schemaEntity", "entityPath", t[i].path,
                                                 "entityType", kinds[t[i].kind], "tags", tags));
        }
        json_object_set_new(o, "schemaTags", arr);
    }
    schema_tagged_free(t, n);
    strlist_clear(&find);
}

json_t *api_int_array(const int *v, size_t n)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++)
        json_array_append_new(arr, json_integer(v[i]));
    return arr;
}

int api_page(http_call_t *c, size_t n, size_t max, size_t *start, size_t *count)
{
    int offset, limit;
    if (http_query_int(c, "offset", 0, &offset) != 0 || http_query_int(c, "limit", -1, &limit) != 0) {
        http_reply_error(c, 404, "HTTP 404 Not Found");
        return -1;
    }
    size_t off = offset < 0 ? 0 : (size_t)offset;
    /* [Ref] limits above the maximum fall back to the default, not to the maximum. */
    size_t lim = limit <= 0 || (max && (size_t)limit > max) ? (max ? max : n) : (size_t)limit;
    *start = off < n ? off : n;
    *count = n - *start < lim ? n - *start : lim;
    return 0;
}

/* ---- 4. Change lists ------------------------------------------------------- */

json_t *api_change_array(const change_list_t *l)
{
    return registry_change_array(l);
}

json_t *api_changes_object(const reg_changes_t *ch)
{
    return json_pack("{s:s, s:s, s:b, s:b, s:o}", "schemaType", schema_type_name(ch->type), "summary",
                     ch->summary, "backward", change_list_backward(&ch->list), "forward",
                     change_list_forward(&ch->list), "changes", api_change_array(&ch->list));
}

int api_wants_changes(http_call_t *c)
{
    return http_query_bool(c, "verbose", 0) && http_query_bool(c, "changes", 0);
}

void api_add_candidate_changes(http_call_t *c, json_t *obj, const char *subject, const char *version_text,
                               const reg_request_t *req)
{
    reg_changes_t ch;
    reg_error_t err;
    if (registry_candidate_changes(c->reg, subject, version_text, req, &ch, &err) == REG_OK) {
        json_object_set_new(obj, "changes", api_change_array(&ch.list));
        json_object_set_new(obj, "summary", json_string(ch.summary));
    }
    reg_changes_clear(&ch);
}
