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
 *   6. POST /associations:batchMutate
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

/* Each entry's "schema" of a request's "associations" into out[] (n + 1
 * slots, NULL = none): 0, or -1 with the 400 replied. */
static int assoc_schemas_decode(http_call_t *c, const json_t *request, api_body_t **out)
{
    json_t *list = json_object_get(request, "associations");
    for (size_t i = 0; json_is_array(list) && i < json_array_size(list); i++) {
        json_t *entry = json_array_get(list, i);
        json_t *schema = json_is_object(entry) ? json_object_get(entry, "schema") : NULL;
        if (!schema || json_is_null(schema))
            continue;
        if (!json_is_object(schema)) {
            http_reply_error(c, 400, "Field 'schema' must be an object");
            return -1;
        }
        if (!(out[i] = api_body_from(c, schema)))
            return -1;
        /* The entry's own "normalize", not the query's; never forced. */
        out[i]->req.normalize = json_is_true(json_object_get(entry, "normalize"));
        out[i]->req.force = 0;
    }
    return 0;
}

static size_t assoc_entries(const json_t *request)
{
    const json_t *list = json_object_get(request, "associations");
    return json_is_array(list) ? json_array_size(list) : 0;
}

static http_outcome_t assoc_create_loop(http_call_t *c)
{
    json_t *body = api_json_object(c);
    if (!body)
        return HTTP_DONE;
    assoc_create_kept_t *k = xcalloc(1, sizeof *k);
    k->body = body;
    http_call_keep(c, k, assoc_create_kept_free);
    k->n = json_is_object(body) ? assoc_entries(body) : 0;
    k->schemas = xcalloc(k->n + 1, sizeof *k->schemas);
    return assoc_schemas_decode(c, body, k->schemas) == 0 ? HTTP_TO_DB : HTTP_DONE;
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
/* 1, or 0 with the 403 replied: write on every subject a request's
 * create or upsert entries name. */
static int assoc_may_write(http_call_t *c, const json_t *request)
{
    const char *context = http_query(c, "context");
    size_t i;
    json_t *entry;
    json_array_foreach(json_object_get(request, "associations"), i, entry)
    {
        const char *op = json_string_value(json_object_get(entry, "opType"));
        char *s = json_is_object(entry) && !(op && strcmp(op, "DELETE") == 0)
                      ? assoc_entry_subject(c, request, entry)
                      : NULL;
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
            return 0;
    }
    return 1;
}

static void assoc_write_db(http_call_t *c, store_t *db, const char *path_id)
{
    assoc_create_kept_t *k = c->kept;
    json_t *body = k->body;
    const char *context = http_query(c, "context");
    size_t i;
    if (!assoc_may_write(c, body))
        return;
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

/* 1, or 0 with the 403 (or the failure) replied: delete on the subject of
 * every association q finds. */
static int assoc_may_delete(http_call_t *c, store_t *db, const reg_assoc_query_t *q)
{
    json_t *old;
    reg_error_t err;
    reg_code_t rc = registry_assoc_list(c->reg, db, q, &old, &err);
    if (rc != REG_OK) {
        api_done(c, rc, &err);
        return 0;
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
            return 0;
        }
    }
    json_decref(old);
    return 1;
}

static void assoc_delete_db(http_call_t *c, store_t *db)
{
    const assoc_kept_t *k = c->kept;
    const char *id = http_param(c, "resourceId");
    const char *rtype = http_query(c, "resourceType");
    reg_assoc_query_t q = assoc_query(c, REG_ASSOC_BY_RESOURCE_ID, id, NULL);
    q.lifecycle = NULL;
    if (!assoc_may_delete(c, db, &q))
        return;
    reg_error_t err;
    reg_code_t rc =
        registry_assoc_delete(c->reg, db, id, rtype, &k->types, http_query_bool(c, "cascadeLifecycle", 0),
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

/* ---- 6. POST /associations:batchMutate ---------------------------------------------- */

/* The body and, per request, each op's "schema" decoded. */
typedef struct assoc_batch_kept {
    json_t *body;
    size_t n;             /* requests */
    size_t *ops;          /* per request, its entries */
    api_body_t ***bodies; /* [request][op], NULL = none */
} assoc_batch_kept_t;

static void assoc_batch_kept_free(void *p)
{
    assoc_batch_kept_t *k = p;
    for (size_t i = 0; i < k->n; i++) {
        for (size_t j = 0; j < k->ops[i]; j++)
            api_body_free(k->bodies[i][j]);
        free(k->bodies[i]);
    }
    free(k->bodies);
    free(k->ops);
    json_decref(k->body);
    free(k);
}

static http_outcome_t assoc_batch_mutate_loop(http_call_t *c)
{
    json_t *body = api_json_object(c);
    if (!body)
        return HTTP_DONE;
    assoc_batch_kept_t *k = xcalloc(1, sizeof *k);
    k->body = body;
    http_call_keep(c, k, assoc_batch_kept_free);
    json_t *list = json_object_get(body, "requests");
    k->n = json_is_array(list) ? json_array_size(list) : 0;
    k->ops = xcalloc(k->n + 1, sizeof *k->ops);
    k->bodies = xcalloc(k->n + 1, sizeof *k->bodies);
    for (size_t i = 0; i < k->n; i++) {
        json_t *req = json_array_get(list, i);
        k->ops[i] = json_is_object(req) ? assoc_entries(req) : 0;
        k->bodies[i] = xcalloc(k->ops[i] + 1, sizeof **k->bodies);
        if (json_is_object(req) && assoc_schemas_decode(c, req, k->bodies[i]) != 0)
            return HTTP_DONE;
    }
    return HTTP_TO_DB;
}

/* Authorization first, for the whole call (as POST and DELETE do): write on
 * what the create and upsert ops name, delete on what the delete ops unbind. */
static int assoc_batch_allowed(http_call_t *c, store_t *db, const assoc_batch_kept_t *k)
{
    for (size_t i = 0; i < k->n; i++) {
        const json_t *req = json_array_get(json_object_get(k->body, "requests"), i);
        if (!json_is_object(req))
            continue;
        if (!assoc_may_write(c, req))
            return 0;
        const char *id = json_string_value(json_object_get(req, "resourceId"));
        size_t j;
        json_t *op;
        json_array_foreach(json_object_get(req, "associations"), j, op)
        {
            const char *t = json_string_value(json_object_get(op, "opType"));
            if (!id || !t || strcmp(t, "DELETE") != 0)
                continue;
            strlist_t types = {0};
            const char *type = json_string_value(json_object_get(op, "associationType"));
            strlist_push(&types, type && *type ? type : "value");
            reg_assoc_query_t q = {.by = REG_ASSOC_BY_RESOURCE_ID, .key = id, .types = &types};
            int ok = assoc_may_delete(c, db, &q);
            strlist_clear(&types);
            if (!ok)
                return 0;
        }
    }
    return 1;
}

static void assoc_batch_mutate_db(http_call_t *c, store_t *db)
{
    assoc_batch_kept_t *k = c->kept;
    if (!assoc_batch_allowed(c, db, k))
        return;
    const reg_request_t ***schemas = xcalloc(k->n + 1, sizeof *schemas);
    reg_view_t **registered = xcalloc(k->n + 1, sizeof *registered);
    for (size_t i = 0; i < k->n; i++) {
        schemas[i] = xcalloc(k->ops[i] + 1, sizeof **schemas);
        registered[i] = xcalloc(k->ops[i] + 1, sizeof **registered);
        for (size_t j = 0; j < k->ops[i]; j++)
            schemas[i][j] = k->bodies[i][j] ? &k->bodies[i][j]->req : NULL;
    }
    json_t *results;
    reg_error_t err;
    reg_code_t rc = registry_assoc_batch_mutate(
        c->reg, db, http_query(c, "context"), http_query_bool(c, "dryRun", 0), k->body,
        (const reg_request_t *const *const *)schemas, registered, &results, &err);
    if (rc == REG_OK) {
        /* AssociationInfo.schema: the version an op of that type registered
         * (collectSchemas: the last one). */
        size_t i;
        json_t *r;
        json_array_foreach(results, i, r)
        {
            json_t *req = json_array_get(json_object_get(k->body, "requests"), i);
            size_t j;
            json_t *info;
            json_array_foreach(json_object_get(json_object_get(r, "result"), "associations"), j, info)
            {
                const char *type = json_string_value(json_object_get(info, "associationType"));
                for (size_t m = 0; m < k->ops[i]; m++) {
                    const json_t *op = json_array_get(json_object_get(req, "associations"), m);
                    const char *t = json_string_value(json_object_get(op, "associationType"));
                    if (registered[i][m].schema && strcmp(t && *t ? t : "value", type) == 0)
                        json_object_set_new(info, "schema", api_schema_object(c, &registered[i][m]));
                }
            }
        }
        /* 207 Multi-Status, whatever each request answered. */
        http_reply_json(c, 207, json_pack("{s:o}", "results", results));
    }
    for (size_t i = 0; i < k->n; i++) {
        for (size_t j = 0; j < k->ops[i]; j++)
            reg_view_clear(&registered[i][j]);
        free(registered[i]);
        free(schemas[i]);
    }
    free(registered);
    free(schemas);
    api_done(c, rc, &err);
}

const http_handler_t handle_assoc_batch_mutate = {assoc_batch_mutate_loop, assoc_batch_mutate_db};
