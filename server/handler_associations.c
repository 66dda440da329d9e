/*
 * handler_associations: /associations, subjects tied to a resource (a Kafka
 * topic) as its key or value schema (docs/api.md "Associations"; Confluent's
 * AssociationsResource). Everything is read from and written to the
 * database on a worker; the loop part decodes the query.
 *
 * Contents
 *   1. The query (resourceType, associationType, lifecycle, offset, limit)
 *   2. GET by subject, by resource id, by resource name
 *   3. POST /associations, PUT /associations/resources/{resourceId}
 *   4. DELETE /associations/resources/{resourceId}
 *   5. POST /associations:batchGet
 *
 * Authorization (docs/security.md): the listings show only associations of
 * subjects the principal may read; a create needs write on each subject it
 * names, a delete delete on each subject it would unbind.
 */
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "server/api.h"
#include "server/authz.h"
#include "server/handlers.h"

/* ---- 1. The query ------------------------------------------------------------ */

/* What the loop decoded, for the database part; strings are the call's. */
typedef struct assoc_kept {
    strlist_t types;
} assoc_kept_t;

static void assoc_kept_free(void *p)
{
    assoc_kept_t *k = p;
    strlist_clear(&k->types);
    free(k);
}

/* JAX-RS turns a query parameter it cannot convert (a LifecyclePolicy, an
 * int) into a plain 404, as api_page does for offset and limit. */
static http_outcome_t assoc_types_loop(http_call_t *c)
{
    assoc_kept_t *k = xcalloc(1, sizeof *k);
    http_query_all(c, "associationType", &k->types);
    http_call_keep(c, k, assoc_kept_free);
    return HTTP_TO_DB;
}

static http_outcome_t assoc_query_loop(http_call_t *c)
{
    const char *l = http_query(c, "lifecycle");
    if (l && strcmp(l, "STRONG") != 0 && strcmp(l, "WEAK") != 0) {
        http_reply_error(c, 404, "HTTP 404 Not Found");
        return HTTP_DONE;
    }
    return assoc_types_loop(c);
}

static reg_assoc_query_t assoc_query(http_call_t *c, reg_assoc_by_t by, const char *key, const char *ns)
{
    const assoc_kept_t *k = c->kept;
    reg_assoc_query_t q = {.by = by,
                           .key = key,
                           .ns = ns,
                           .resource_type = http_query(c, "resourceType"),
                           .types = &k->types,
                           .lifecycle = http_query(c, "lifecycle")};
    return q;
}

/* ---- 2. GET ------------------------------------------------------------------- */

static void assoc_list_reply(http_call_t *c, store_t *db, const reg_assoc_query_t *q)
{
    json_t *all;
    reg_error_t err;
    reg_code_t rc = registry_assoc_list(c->reg, db, q, &all, &err);
    if (rc != REG_OK) {
        api_done(c, rc, &err);
        return;
    }
    /* Only what the principal may read, before paging. */
    json_t *seen = json_array();
    size_t i;
    json_t *v;
    json_array_foreach(all, i, v) if (authz_may_read(c, json_string_value(json_object_get(v, "subject"))))
        json_array_append(seen, v);
    json_decref(all);
    size_t start, count;
    if (api_page(c, json_array_size(seen), REG_ASSOC_LIMIT_MAX, &start, &count) != 0) {
        json_decref(seen);
        return;
    }
    json_t *page = json_array();
    for (size_t j = start; j < start + count; j++)
        json_array_append(page, json_array_get(seen, j));
    json_decref(seen);
    http_reply_json(c, 200, page);
}

static void assoc_by_subject_db(http_call_t *c, store_t *db)
{
    reg_assoc_query_t q = assoc_query(c, REG_ASSOC_BY_SUBJECT, http_param(c, "subject"), NULL);
    assoc_list_reply(c, db, &q);
}

static void assoc_by_id_db(http_call_t *c, store_t *db)
{
    reg_assoc_query_t q = assoc_query(c, REG_ASSOC_BY_RESOURCE_ID, http_param(c, "resourceId"), NULL);
    assoc_list_reply(c, db, &q);
}

static void assoc_by_name_db(http_call_t *c, store_t *db)
{
    reg_assoc_query_t q = assoc_query(c, REG_ASSOC_BY_RESOURCE_NAME, http_param(c, "resourceName"),
                                      http_param(c, "resourceNamespace"));
    assoc_list_reply(c, db, &q);
}

const http_handler_t handle_assoc_by_subject = {assoc_query_loop, assoc_by_subject_db};
const http_handler_t handle_assoc_by_resource_id = {assoc_query_loop, assoc_by_id_db};
const http_handler_t handle_assoc_by_resource_name = {assoc_query_loop, assoc_by_name_db};

/* ---- 3. POST /associations -------------------------------------------------------- */

/* The body and each entry's "schema", decoded as a registration body. */
typedef struct assoc_create_kept {
    json_t *body;
    api_body_t **schemas; /* per entry of "associations", NULL = none */
    size_t n;
} assoc_create_kept_t;

static void assoc_create_kept_free(void *p)
{
    assoc_create_kept_t *k = p;
    for (size_t i = 0; i < k->n; i++)
        api_body_free(k->schemas[i]);
    free(k->schemas);
    json_decref(k->body);
    free(k);
}

static http_outcome_t assoc_create_loop(http_call_t *c)
{
    json_t *body = api_json_object(c);
    if (!body)
        return HTTP_DONE;
    assoc_create_kept_t *k = xcalloc(1, sizeof *k);
    k->body = body;
    http_call_keep(c, k, assoc_create_kept_free);
    json_t *list = json_object_get(body, "associations");
    k->n = json_is_array(list) ? json_array_size(list) : 0;
    k->schemas = xcalloc(k->n + 1, sizeof *k->schemas);
    for (size_t i = 0; i < k->n; i++) {
        json_t *entry = json_array_get(list, i);
        json_t *schema = json_is_object(entry) ? json_object_get(entry, "schema") : NULL;
        if (!schema || json_is_null(schema))
            continue;
        if (!json_is_object(schema)) {
            http_reply_error(c, 400, "Field 'schema' must be an object");
            return HTTP_DONE;
        }
        if (!(k->schemas[i] = api_body_from(c, schema)))
            return HTTP_DONE;
        /* The entry's own "normalize", not the query's; never forced. */
        k->schemas[i]->req.normalize = json_is_true(json_object_get(entry, "normalize"));
        k->schemas[i]->req.force = 0;
    }
    return HTTP_TO_DB;
}

/* The subject an entry names, as the registry will read it: its own, else
 * the default ":.ns:name-type" (malloc'd, or NULL when the registry will
 * refuse the entry anyway). */
static char *assoc_entry_subject(http_call_t *c, const json_t *body, const json_t *entry)
{
    const char *s = json_string_value(json_object_get(entry, "subject"));
    if (s)
        return xstrdup(s);
    const char *ns = json_string_value(json_object_get(body, "resourceNamespace"));
    const char *name = json_string_value(json_object_get(body, "resourceName"));
    const char *type = json_string_value(json_object_get(entry, "associationType"));
    (void)c;
    if (!ns || !name)
        return NULL;
    return xasprintf(":.%s:%s-%s", ns, name, type && *type ? type : "value");
}

/* path_id: NULL for POST (createAssociation), the path's resourceId for PUT
 * (createOrUpdateAssociation). */
static void assoc_write_db(http_call_t *c, store_t *db, const char *path_id)
{
    assoc_create_kept_t *k = c->kept;
    json_t *body = k->body;
    const char *context = http_query(c, "context");
    size_t i;
    json_t *entry;
    json_array_foreach(json_object_get(body, "associations"), i, entry)
    {
        char *s = json_is_object(entry) ? assoc_entry_subject(c, body, entry) : NULL;
        if (!s)
            continue;
        char *ctx = context ? registry_context_normalize(context) : NULL;
        char *q = ctx && *ctx && strncmp(s, ":.", 2) != 0 ? xasprintf("%s%s", ctx, s) : xstrdup(s);
        free(ctx);
        free(s);
        int ok = authz_allows(c->authz, c->principal, HTTP_PERM_WRITE, HTTP_SCOPE_SUBJECT, q);
        if (!ok)
            http_reply_error(c, 403, "Forbidden: principal '%s' has no write permission on subject '%s'",
                             c->principal ? c->principal : "", q);
        free(q);
        if (!ok)
            return;
    }
    const reg_request_t **schemas = xcalloc(k->n + 1, sizeof *schemas);
    reg_view_t *registered = xcalloc(k->n + 1, sizeof *registered);
    for (size_t j = 0; j < k->n; j++)
        schemas[j] = k->schemas[j] ? &k->schemas[j]->req : NULL;
    json_t *out;
    reg_error_t err;
    reg_code_t rc = registry_assoc_create(c->reg, db, context, path_id, http_query_bool(c, "dryRun", 0), body,
                                          schemas, &out, registered, &err);
    if (rc == REG_OK) {
        /* AssociationInfo.schema: the version registered for that association type. */
        json_t *infos = json_object_get(out, "associations");
        json_t *info;
        json_array_foreach(infos, i, info)
        {
            const char *type = json_string_value(json_object_get(info, "associationType"));
            for (size_t j = 0; j < k->n; j++) {
                json_t *e = json_array_get(json_object_get(body, "associations"), j);
                const char *t = json_string_value(json_object_get(e, "associationType"));
                if (registered[j].schema && strcmp(t && *t ? t : "value", type) == 0)
                    json_object_set_new(info, "schema", api_schema_object(c, &registered[j]));
            }
        }
        http_reply_json(c, 200, out);
    }
    for (size_t j = 0; j < k->n; j++)
        reg_view_clear(&registered[j]);
    free(registered);
    free(schemas);
    api_done(c, rc, &err);
}

static void assoc_create_db(http_call_t *c, store_t *db)
{
    assoc_write_db(c, db, NULL);
}

static void assoc_update_db(http_call_t *c, store_t *db)
{
    assoc_write_db(c, db, http_param(c, "resourceId"));
}

const http_handler_t handle_assoc_create = {assoc_create_loop, assoc_create_db};
const http_handler_t handle_assoc_update = {assoc_create_loop, assoc_update_db};

/* ---- 4. DELETE /associations/resources/{resourceId} ------------------------------------ */

static void assoc_delete_db(http_call_t *c, store_t *db)
{
    const assoc_kept_t *k = c->kept;
    const char *id = http_param(c, "resourceId");
    const char *rtype = http_query(c, "resourceType");
    reg_assoc_query_t q = assoc_query(c, REG_ASSOC_BY_RESOURCE_ID, id, NULL);
    q.lifecycle = NULL;
    json_t *old;
    reg_error_t err;
    reg_code_t rc = registry_assoc_list(c->reg, db, &q, &old, &err);
    if (rc != REG_OK) {
        api_done(c, rc, &err);
        return;
    }
    size_t i;
    json_t *v;
    json_array_foreach(old, i, v)
    {
        const char *s = json_string_value(json_object_get(v, "subject"));
        if (!authz_allows(c->authz, c->principal, HTTP_PERM_DELETE, HTTP_SCOPE_SUBJECT, s)) {
            http_reply_error(c, 403, "Forbidden: principal '%s' has no delete permission on subject '%s'",
                             c->principal ? c->principal : "", s);
            json_decref(old);
            return;
        }
    }
    json_decref(old);
    rc = registry_assoc_delete(c->reg, db, id, rtype, &k->types, http_query_bool(c, "cascadeLifecycle", 0),
                               http_query_bool(c, "dryRun", 0), &err);
    if (rc == REG_OK)
        http_reply_text(c, 204, "", 0);
    api_done(c, rc, &err);
}

/* DELETE reads no lifecycle (deleteAssociations has none). */
const http_handler_t handle_assoc_delete = {assoc_types_loop, assoc_delete_db};

/* ---- 5. POST /associations:batchGet ---------------------------------------------- */

static void assoc_json_free(void *p)
{
    json_decref(p);
}

static http_outcome_t assoc_batch_get_loop(http_call_t *c)
{
    json_t *body = api_json_object(c);
    if (!body)
        return HTTP_DONE;
    http_call_keep(c, body, assoc_json_free);
    return HTTP_TO_DB;
}

/* Each result shows only readable subjects' associations (as the listings)
 * and, with includeSchemas, each one's latest version ("schema",
 * batchGetAssociations: none when the subject has no active version). */
static void assoc_batch_get_db(http_call_t *c, store_t *db)
{
    json_t *results;
    reg_error_t err;
    reg_code_t rc = registry_assoc_batch_get(c->reg, db, c->kept, &results, &err);
    if (rc != REG_OK) {
        api_done(c, rc, &err);
        return;
    }
    int with_schemas = http_query_bool(c, "includeSchemas", 0);
    size_t i;
    json_t *r;
    json_array_foreach(results, i, r)
    {
        json_t *res = json_object_get(r, "result");
        json_t *infos = json_object_get(res, "associations");
        json_t *shown = json_array();
        size_t j;
        json_t *info;
        json_array_foreach(infos, j, info)
        {
            const char *subject = json_string_value(json_object_get(info, "subject"));
            if (!authz_may_read(c, subject))
                continue;
            reg_view_t view = {0};
            reg_error_t ignored;
            if (with_schemas && registry_get_version(c->reg, subject, "latest", 0, &view, &ignored) == REG_OK)
                json_object_set_new(info, "schema", api_schema_object(c, &view));
            reg_view_clear(&view);
            json_array_append(shown, info);
        }
        if (json_array_size(shown))
            json_object_set(res, "associations", shown);
        else if (res)
            json_object_del(res, "associations");
        json_decref(shown);
    }
    /* 207 Multi-Status, whatever each entry answered. */
    http_reply_json(c, 207, json_pack("{s:o}", "results", results));
}

const http_handler_t handle_assoc_batch_get = {assoc_batch_get_loop, assoc_batch_get_db};
