/*
 * api: what the resource handlers share -- decoding request bodies into
 * registry requests and rendering registry records as Confluent JSON.
 *
 * Contents
 *   1. Registry outcomes -> replies
 *   2. Request bodies
 *   3. Response objects (docs/api.md: the schema object, both response profiles)
 *   4. Change lists (docs/evolution.md)
 */
#ifndef SERVER_API_H
#define SERVER_API_H

#include <jansson.h>

#include "registry/registry.h"
#include "server/http.h"

/* ---- 1. Outcomes --------------------------------------------------------- */

/* An error -> its Confluent reply; REG_OK -> nothing (the caller replied). HTTP_DONE. */
http_outcome_t api_done(http_call_t *c, reg_code_t rc, const reg_error_t *err);

/* ---- 2. Request bodies --------------------------------------------------- */

/* A decoded registration body. req borrows from json and refs. */
typedef struct api_body {
    json_t *json;
    reg_ref_t *refs;
    json_t *metadata; /* canonical "metadata" (req.metadata points here), or NULL */
    reg_request_t req;
} api_body_t;

/* Decodes a RegisterSchemaRequest (docs/api.md) into a new body. On failure
 * replies (400 malformed / wrong types, 422 missing body, 42201 bad reference)
 * and returns NULL. */
api_body_t *api_body_new(http_call_t *c);
/* The same for a RegisterSchemaRequest object inside another body (json:
 * borrowed, the body takes a reference), e.g. an association's "schema". */
api_body_t *api_body_from(http_call_t *c, json_t *json);
void api_body_free(api_body_t *body);
/* Keeps a body for the database part (the call owns it then); read it back
 * there with api_body_kept (borrowed). */
void api_body_keep(http_call_t *c, api_body_t *b);
api_body_t *api_body_kept(http_call_t *c);
/* Keeps a decoded JSON body for the database part; api_json_kept reads it back. */
void api_json_keep(http_call_t *c, json_t *body);
json_t *api_json_kept(http_call_t *c);
/* Parses the body as a JSON object; replies 400/422 and returns NULL on failure. */
json_t *api_json_object(http_call_t *c);

/* POST /changes: {"old": {...}, "new": {...}}, each side decoded as a
 * registration body. On failure replies (400 as api_body_new, 422 when a
 * side is not an object) and returns NULL. */
typedef struct api_pair {
    api_body_t *old_body;
    api_body_t *new_body;
} api_pair_t;

api_pair_t *api_pair_new(http_call_t *c);
/* Keeps the pair for the database part (the call owns it then). */
void api_pair_keep(http_call_t *c, api_pair_t *pair);
api_pair_t *api_pair_kept(http_call_t *c);

/* ---- 3. Response objects --------------------------------------------------- */

/* Schema object: subject, version, id, [guid], schemaType, references, schema, [ts, deleted]. */
json_t *api_schema_object(http_call_t *c, const reg_view_t *v);
/* SchemaString object for /schemas/ids/{id}: v as registry_find_by_id fills it
 * (the extended profile's "deleted" is the named version's, else whether no
 * live version of the id's context carries it). */
json_t *api_schema_string(http_call_t *c, const reg_view_t *v);
/* The prepared-body variant (registry.h, REG_BODY_VARIANTS) of a schema
 * object for this request's profile and ?format=, or -1 for a body rendered
 * every time (another ?format=, any ?referenceFormat=). */
int api_variant(http_call_t *c);
/* The same for a SchemaString: also -1 when the body depends on more than the
 * schema of the default context (?fetchMaxId=true; any ?subject=). */
int api_schema_string_variant(http_call_t *c);
/* ?findTags= (docs/api.md, "Tags"): when the request names tags, adds the
 * "schemaTags" Confluent shows (its tagged entities with one of those tags,
 * or all with "*"; none: no member). GET /subjects/{s}/versions/{v} and
 * GET /schemas/ids/{id} only, as SubjectVersionsResource and SchemasResource. */
void api_add_schema_tags(http_call_t *c, json_t *o, reg_schema_t *s);
/* The "references" array of a schema, or NULL when it has none. */
json_t *api_references(const reg_schema_t *s);
/* The same in a ?referenceFormat= ("qualified": with the context; NULL: as stored). */
json_t *api_references_as(const reg_schema_t *s, const char *reference_format);
/* The schema's metadata as Confluent renders it (a copy), or NULL when it has none. */
json_t *api_metadata(const reg_schema_t *s);
/* The schema text in the requested ?format= (malloc'd). */
char *api_schema_text(http_call_t *c, reg_schema_t *s);
/* JSON array of ints. */
json_t *api_int_array(const int *v, size_t n);
/* offset/limit (docs/api.md) over n items: *start and *count. max 0 = unlimited.
 * Returns -1 (after replying 404) when a parameter is not an integer. */
int api_page(http_call_t *c, size_t n, size_t max, size_t *start, size_t *count);

/* ---- 4. Change lists --------------------------------------------------------- */

/* [{"kind", "path", "oldType", "newType", "detail", "forward", "backward"}, ...] */
json_t *api_change_array(const change_list_t *l);
/* {"schemaType", "summary", "backward", "forward", "changes"}: the answer of the change routes. */
json_t *api_changes_object(const reg_changes_t *ch);
/* ?verbose=true&changes=true: the client asks for the change list extension. */
int api_wants_changes(http_call_t *c);
/* Adds "changes" and "summary" of req against the subject's version (NULL =
 * the latest live one) to obj; nothing when there is no such version or a
 * schema does not parse (the reply already says why). */
void api_add_candidate_changes(http_call_t *c, json_t *obj, const char *subject, const char *version_text,
                               const reg_request_t *req);

#endif
