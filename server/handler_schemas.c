/*
 * handler_schemas: /schemas and /schemas/ids/{id}[/schema|/subjects|/versions].
 * The hot path of every consumer: answered from memory.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "server/api.h"
#include "server/authz.h"
#include "server/handlers.h"

/* {id} must be a 32-bit integer, else a plain 404 [Ref: JAX-RS conversion]. */
static int path_id(http_call_t *c, int *id)
{
    const char *s = http_param(c, "id");
    char *end;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || v < INT32_MIN || v > INT32_MAX) {
        http_reply_error(c, 404, "HTTP 404 Not Found");
        return -1;
    }
    *id = (int)v;
    return 0;
}

/* Renders the SchemaString, and keeps it when it can be served again as it is
 * (the default context's id without ?subject=: api_schema_string_variant). */
static void reply_schema_string(http_call_t *c, const reg_view_t *v)
{
    int variant = api_schema_string_variant(c);
    json_t *o = api_schema_string(c, v);
    api_add_schema_tags(c, o, v->schema);
    http_reply_json(c, 200, o);
    /* Kept per id of the default context only: a guid may lead to a named one. */
    if (variant >= 0 && c->status == 200 && strcmp(v->schema->context, ".") == 0) {
        int deleted = registry_schema_deleted(c->reg, v->schema->context, v->id);
        http_reply_body(c, 200,
                        registry_schema_body_put(c->reg, v->id, variant, deleted, c->reply, c->reply_len));
    }
}

static void reply_schema_text(http_call_t *c, const reg_view_t *v)
{
    char *text = api_schema_text(c, v->schema);
    http_reply_text(c, 200, text, strlen(text));
    free(text);
}

/* The subjects of the id's context (the one ?subject= selected) that carry it. */
static void reply_usages(http_call_t *c, const reg_view_t *v, int with_versions)
{
    reg_usage_t *u;
    size_t n, start, count;
    registry_schema_usages(c->reg, v->schema->context, v->id, http_query_bool(c, "deleted", 0), &u, &n);
    size_t kept = 0; /* only the subjects the principal may read (by_id_allowed_ saw one) */
    for (size_t i = 0; i < n; i++) {
        if (authz_may_read(c, u[i].subject))
            u[kept++] = u[i];
        else
            free(u[i].subject);
    }
    n = kept;
    if (api_page(c, n, 0, &start, &count) == 0) {
        json_t *arr = json_array();
        for (size_t i = start; i < start + count; i++) {
            /* One entry per subject for /subjects (a subject may carry the id twice). */
            if (!with_versions && i > start && strcmp(u[i].subject, u[i - 1].subject) == 0)
                continue;
            json_array_append_new(
                arr, with_versions ? json_pack("{s:s, s:i}", "subject", u[i].subject, "version", u[i].version)
                                   : json_string(u[i].subject));
        }
        http_reply_json(c, 200, arr);
    }
    reg_usages_free(u, n);
}

static void reply_subjects(http_call_t *c, const reg_view_t *v)
{
    reply_usages(c, v, 0);
}

static void reply_versions(http_call_t *c, const reg_view_t *v)
{
    reply_usages(c, v, 1);
}

typedef void (*by_id_reply_fn)(http_call_t *, const reg_view_t *);

/* A by-id read needs read on some subject that carries the id (authz.h); 0 with a 403 when not. */
static int by_id_allowed_(http_call_t *c, const reg_view_t *v)
{
    if (authz_may_read_id(c, v->schema->context, v->id))
        return 1;
    authz_refuse_id(c, v->id);
    return 0;
}

/* The memory part of every /schemas/ids/{id} route: answers when this node
 * knows the id in the context ?subject= selects (docs/api.md "Contexts"),
 * declines (to check the database) when it does not. */
static http_outcome_t by_id_loop(http_call_t *c, by_id_reply_fn reply)
{
    int id;
    reg_view_t v;
    if (path_id(c, &id) != 0)
        return HTTP_DONE;
    if (!registry_find_by_id(c->reg, id, http_query(c, "subject"), &v))
        return HTTP_TO_DB;
    if (by_id_allowed_(c, &v))
        reply(c, &v);
    reg_view_clear(&v);
    return HTTP_DONE;
}

static void by_id_db(http_call_t *c, store_t *db, by_id_reply_fn reply)
{
    int id;
    reg_view_t v;
    reg_error_t err;
    if (path_id(c, &id) != 0)
        return;
    reg_code_t rc = registry_get_by_id(c->reg, db, id, http_query(c, "subject"), &v, &err);
    if (rc == REG_OK) {
        if (by_id_allowed_(c, &v))
            reply(c, &v);
        reg_view_clear(&v);
    }
    api_done(c, rc, &err);
}

#define BY_ID_HANDLER(name, reply)                                                                           \
    static http_outcome_t name##_loop(http_call_t *c)                                                        \
    {                                                                                                        \
        return by_id_loop(c, reply);                                                                         \
    }                                                                                                        \
    static void name##_db(http_call_t *c, store_t *db)                                                       \
    {                                                                                                        \
        by_id_db(c, db, reply);                                                                              \
    }                                                                                                        \
    const http_handler_t handle_##name = {name##_loop, name##_db};

BY_ID_HANDLER(schema_string, reply_schema_string)

/* GET /schemas/ids/{id}, the hottest route: the prepared body when there is one. */
static http_outcome_t schema_by_id_loop(http_call_t *c)
{
    int id, variant = api_schema_string_variant(c), deleted;
    if (path_id(c, &id) != 0)
        return HTTP_DONE;
    /* The prepared body skips the view a per-subject check needs: only for a
     * principal who may read every id (or without authorization). */
    int every_id = authz_allows(c->authz, c->principal, HTTP_PERM_READ, HTTP_SCOPE_SCHEMAS, NULL);
    reg_body_t *b = variant >= 0 && every_id ? registry_schema_body(c->reg, id, variant, &deleted) : NULL;
    if (!b)
        return schema_string_loop(c);
    http_reply_body(c, 200, b);
    return HTTP_DONE;
}

const http_handler_t handle_schema_by_id = {schema_by_id_loop, schema_string_db};
BY_ID_HANDLER(schema_text_by_id, reply_schema_text)
BY_ID_HANDLER(schema_subjects, reply_subjects)
BY_ID_HANDLER(schema_versions, reply_versions)

/* The association filters of GET /schemas (resourceType, associationType,
 * lifecycle; SchemasResource.getSchemas): -1 when a lifecycle is not one
 * (JAX-RS cannot convert it: 404), 1 when any is given (the versions are then
 * filtered by their subject's associations, read from the database), 0 when
 * none is. */
static int association_filter_(http_call_t *c)
{
    int filtered = 0;
    for (size_t i = 0; i < c->nquery; i++) {
        const char *name = c->query[i].name, *value = c->query[i].value;
        if (strcmp(name, "lifecycle") == 0) {
            if (strcmp(value, "NONE") != 0 && strcmp(value, "STRONG") != 0 && strcmp(value, "WEAK") != 0)
                return -1;
            filtered = 1;
        } else if (strcmp(name, "resourceType") == 0 || strcmp(name, "associationType") == 0) {
            filtered = 1;
        }
    }
    return filtered;
}

/* Whether a version of subject passes the association filters, and with
 * which associations (*shown: the caller's, NULL = show none): the subject's
 * associations of resourceType (any when absent) and associationType; none
 * passes only with lifecycle=NONE; some pass with no lifecycle, or those of
 * a lifecycle asked for. -1: the database failed (replied). */
static int association_pass_(http_call_t *c, store_t *db, const char *subject, json_t **shown)
{
    *shown = NULL;
    strlist_t types = {0};
    http_query_all(c, "associationType", &types);
    strlist_t lifecycles = {0};
    http_query_all(c, "lifecycle", &lifecycles);
    reg_assoc_query_t q = {.by = REG_ASSOC_BY_SUBJECT,
                           .key = subject,
                           .resource_type = http_query(c, "resourceType"),
                           .any_type = !http_query(c, "resourceType"),
                           .types = &types};
    json_t *all;
    reg_error_t err;
    reg_code_t rc = registry_assoc_list(c->reg, db, &q, &all, &err);
    strlist_clear(&types);
    if (rc != REG_OK) {
        strlist_clear(&lifecycles);
        api_done(c, rc, &err);
        return -1;
    }
    int none = 0, named = 0;
    for (size_t i = 0; i < lifecycles.n; i++) {
        if (strcmp(lifecycles.items[i], "NONE") == 0)
            none = 1;
        else
            named = 1;
    }
    int pass;
    if (json_array_size(all) == 0) {
        pass = none;
    } else if (!named) {
        pass = lifecycles.n == 0;
        if (pass)
            *shown = json_incref(all);
    } else {
        json_t *matching = json_array();
        size_t i;
        json_t *a;
        json_array_foreach(all, i, a)
        {
            const char *l = json_string_value(json_object_get(a, "lifecycle"));
            for (size_t k = 0; k < lifecycles.n; k++)
                if (strcmp(lifecycles.items[k], l) == 0) {
                    json_array_append(matching, a);
                    break;
                }
        }
        pass = json_array_size(matching) > 0;
        if (pass)
            *shown = matching;
        else
            json_decref(matching);
    }
    json_decref(all);
    strlist_clear(&lifecycles);
    return pass;
}

/* GET /schemas: subjectPrefix, deleted, latestOnly, aliases, ruleType, the
 * association filters, offset, limit (docs/api.md). db NULL: no association
 * filter was given (answered from memory). */
static void schemas_reply_(http_call_t *c, store_t *db)
{
    reg_view_t *views;
    strlist_t *aliases = NULL;
    size_t n, start, count;
    /* No subjectPrefix is "": the default context only, as Confluent's
     * SchemasResource (":*:" asks for every context). */
    const char *prefix = http_query(c, "subjectPrefix");
    if (!prefix)
        prefix = "";
    int deleted = http_query_bool(c, "deleted", 0), latest = http_query_bool(c, "latestOnly", 0);
    if (http_query_bool(c, "aliases", 0))
        registry_list_schemas_aliased(c->reg, prefix, deleted, latest, &views, &aliases, &n);
    else
        registry_list_schemas(c->reg, prefix, deleted, latest, &views, &n);
    /* ruleType keeps the versions whose rule set has a rule of that type; the
     * community server stores no rule set (RuleSetHandler drops them, as
     * registration here does), so a ruleType matches nothing. */
    const char *rule_type = http_query(c, "ruleType");
    size_t shown = rule_type && *rule_type ? 0 : n;
    json_t **assocs = xcalloc(n + 1, sizeof *assocs);
    /* Only versions of subjects the principal may read and that pass the
     * association filters, before paging (the others move to the end, where
     * they are still cleared). */
    size_t kept = 0;
    int failed = 0;
    for (size_t i = 0; i < shown && !failed; i++) {
        if (!authz_may_read(c, views[i].subject))
            continue;
        json_t *a = NULL;
        if (db) {
            int pass = association_pass_(c, db, views[i].subject, &a);
            failed = pass < 0;
            if (pass <= 0)
                continue;
        }
        reg_view_t view = views[kept];
        views[kept] = views[i];
        views[i] = view;
        assocs[kept] = a;
        if (aliases) {
            strlist_t names = aliases[kept];
            aliases[kept] = aliases[i];
            aliases[i] = names;
        }
        kept++;
    }
    shown = kept;
    if (!failed && api_page(c, shown, 1000, &start, &count) == 0) {
        json_t *arr = json_array();
        for (size_t i = start; i < start + count; i++) {
            json_t *o = api_schema_object(c, &views[i]);
            if (aliases && aliases[i].n) {
                json_t *names = json_array();
                for (size_t k = 0; k < aliases[i].n; k++)
                    json_array_append_new(names, json_string(aliases[i].items[k]));
                json_object_set_new(o, "aliases", names);
            }
            /* ExtendedSchema.associations (NON_EMPTY). */
            if (assocs[i])
                json_object_set(o, "associations", assocs[i]);
            json_array_append_new(arr, o);
        }
        http_reply_json(c, 200, arr);
    }
    for (size_t i = 0; i < n; i++) {
        reg_view_clear(&views[i]);
        json_decref(assocs[i]);
        if (aliases)
            strlist_clear(&aliases[i]);
    }
    free(assocs);
    free(aliases);
    free(views);
}

static http_outcome_t schemas_list(http_call_t *c)
{
    int filtered = association_filter_(c);
    if (filtered < 0) {
        http_reply_error(c, 404, "HTTP 404 Not Found");
        return HTTP_DONE;
    }
    if (filtered)
        return HTTP_TO_DB;
    schemas_reply_(c, NULL);
    return HTTP_DONE;
}

static void schemas_list_db(http_call_t *c, store_t *db)
{
    schemas_reply_(c, db);
}

const http_handler_t handle_schemas = {schemas_list, schemas_list_db};

/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" -> 16 bytes. */
static int parse_guid(const char *text, unsigned char out[16])
{
    size_t n = 0;
    for (const char *p = text; *p; p++) {
        if (*p == '-')
            continue;
        int hi = *p, lo = p[1];
        if (!lo || n == 16 || !isxdigit(hi) || !isxdigit(lo))
            return -1;
        out[n++] = (unsigned char)(strtol((char[]){(char)hi, (char)lo, 0}, NULL, 16));
        p++;
    }
    return n == 16 && strlen(text) == 36 ? 0 : -1;
}

static http_outcome_t schema_by_guid(http_call_t *c)
{
    unsigned char guid[16];
    reg_error_t err;
    reg_schema_t *s = NULL;
    const char *text = http_param(c, "guid");
    if (parse_guid(text, guid) != 0)
        return api_done(c, reg_fail(&err, REG_SCHEMA_NOT_FOUND, "Schema %s not found", text), &err);
    reg_code_t rc = registry_get_schema_by_guid(c->reg, guid, &s, &err);
    if (rc == REG_OK) {
        /* No subject or version: AbstractSchemaRegistry.getByGuid clears them. */
        reg_view_t v = {NULL, 0, s->id, 0, s->ts_ms, s};
        reply_schema_string(c, &v);
        reg_view_clear(&v);
    }
    return api_done(c, rc, &err);
}

const http_handler_t handle_schema_by_guid = {schema_by_guid, NULL};

static http_outcome_t schema_guid_ids(http_call_t *c)
{
    unsigned char guid[16];
    json_t *arr = json_array();
    if (parse_guid(http_param(c, "guid"), guid) == 0) {
        reg_usage_t *ids;
        size_t n;
        registry_guid_ids(c->reg, guid, &ids, &n);
        for (size_t i = 0; i < n; i++)
            json_array_append_new(arr,
                                  json_pack("{s:s, s:i}", "context", ids[i].subject, "id", ids[i].version));
        reg_usages_free(ids, n);
    }
    http_reply_json(c, 200, arr);
    return HTTP_DONE;
}

const http_handler_t handle_schema_guid_ids = {schema_guid_ids, NULL};

/* ---- Contexts (ContextsResource) ------------------------------------------- */

/* GET /contexts: "." then the named contexts that exist, sorted, filtered by
 * contextPrefix, then paged (offset, limit), from the database. */
static void contexts_db(http_call_t *c, store_t *db)
{
    strlist_t all = {0};
    reg_error_t err;
    reg_code_t rc = registry_list_contexts(c->reg, db, &all, &err);
    const char *prefix = http_query(c, "contextPrefix");
    strlist_t picked = {0};
    for (size_t i = 0; rc == REG_OK && i < all.n; i++)
        if (!prefix || strncmp(all.items[i], prefix, strlen(prefix)) == 0)
            strlist_push(&picked, all.items[i]);
    size_t start, count;
    if (rc == REG_OK && api_page(c, picked.n, 0, &start, &count) == 0) {
        json_t *arr = json_array();
        for (size_t i = start; i < start + count; i++)
            json_array_append_new(arr, json_string(picked.items[i]));
        http_reply_json(c, 200, arr);
    }
    strlist_clear(&picked);
    strlist_clear(&all);
    api_done(c, rc, &err);
}

static http_outcome_t contexts_loop(http_call_t *c)
{
    return HTTP_TO_DB;
}

const http_handler_t handle_contexts = {contexts_loop, contexts_db};

/* DELETE /contexts/{context}: ".ctx", "ctx" and ":.ctx:" name the same
 * context; the context path rewrite (http_call_apply_context, Confluent's
 * ContextFilter) has made each of them ":.ctx:" already, from the raw path. */
static http_outcome_t context_delete_loop(http_call_t *c)
{
    const char *text = http_param(c, "context");
    char *context = registry_context_normalize(text);
    if (!context) { /* ContextFilter answers a colon inside with a plain 400 */
        http_reply_error(c, 400, "Context name '%s' cannot contain a colon", text);
        return HTTP_DONE;
    }
    free(context);
    return HTTP_TO_DB;
}

static void context_delete_db(http_call_t *c, store_t *db)
{
    char *context = registry_context_normalize(http_param(c, "context"));
    reg_error_t err;
    reg_code_t rc = registry_delete_context(c->reg, db, context, &err);
    if (rc == REG_OK)
        http_reply_text(c, 204, "", 0);
    free(context);
    api_done(c, rc, &err);
}

const http_handler_t handle_context_delete = {context_delete_loop, context_delete_db};
