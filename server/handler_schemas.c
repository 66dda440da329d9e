/*
 * handler_schemas: /schemas and /schemas/ids/{id}[/schema|/subjects|/versions].
 * The hot path of every consumer: answered from memory.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "server/api.h"
#include "server/handlers.h"

/* {id} must be a 32-bit integer, else a plain 404 [Ref: JAX-RS conversion]. */
static int path_id(http_call_t *c, int *id)
{
    const char *s = api_subject(c, 2);
    char *end;
    long long v = strtoll(s, &end, 10);
    if (!*s || *end || v < INT32_MIN || v > INT32_MAX) {
        http_reply_error(c, 404, "HTTP 404 Not Found");
        return -1;
    }
    *id = (int)v;
    return 0;
}

static http_outcome_t get_schema(http_call_t *c, store_t *db, reg_schema_t **s)
{
    int id;
    reg_error_t err;
    if (path_id(c, &id) != 0)
        return HTTP_DONE;
    return api_outcome(c, registry_get_schema(c->reg, db, id, s, &err), &err);
}

http_outcome_t handle_schema_by_id(http_call_t *c, store_t *db)
{
    reg_schema_t *s = NULL;
    http_outcome_t o = get_schema(c, db, &s);
    if (s) {
        http_reply_json(c, 200, api_schema_string(c, s));
        reg_schema_release(s);
    }
    return o;
}

http_outcome_t handle_schema_text_by_id(http_call_t *c, store_t *db)
{
    reg_schema_t *s = NULL;
    http_outcome_t o = get_schema(c, db, &s);
    if (s) {
        char *text = api_schema_text(c, s);
        http_reply_text(c, 200, text, strlen(text));
        free(text);
        reg_schema_release(s);
    }
    return o;
}

static http_outcome_t usages(http_call_t *c, store_t *db, int with_versions)
{
    int id;
    reg_error_t err;
    reg_usage_t *u;
    size_t n, start, count;
    if (path_id(c, &id) != 0)
        return HTTP_DONE;
    reg_code_t rc = registry_schema_usages(c->reg, db, id, http_query_bool(c, "deleted", 0), &u, &n, &err);
    if (rc != REG_OK)
        return api_outcome(c, rc, &err);
    if (api_page(c, n, 0, &start, &count) == 0) {
        json_t *arr = json_array();
        for (size_t i = start; i < start + count; i++) {
            /* One entry per subject for /subjects (a subject may carry the id twice). */
            if (!with_versions && i > start && strcmp(u[i].subject, u[i - 1].subject) == 0)
                continue;
            json_array_append_new(arr, with_versions ? json_pack("{s:s, s:i}", "subject", u[i].subject,
                                                                 "version", u[i].version)
                                                     : json_string(u[i].subject));
        }
        http_reply_json(c, 200, arr);
    }
    reg_usages_free(u, n);
    return HTTP_DONE;
}

http_outcome_t handle_schema_subjects(http_call_t *c, store_t *db)
{
    return usages(c, db, 0);
}

http_outcome_t handle_schema_versions(http_call_t *c, store_t *db)
{
    return usages(c, db, 1);
}

http_outcome_t handle_schemas(http_call_t *c, store_t *db)
{
    reg_view_t *views;
    size_t n, start, count;
    registry_list_schemas(c->reg, http_query(c, "subjectPrefix"), http_query_bool(c, "deleted", 0),
                          http_query_bool(c, "latestOnly", 0), &views, &n);
    if (api_page(c, n, 1000, &start, &count) == 0) {
        json_t *arr = json_array();
        for (size_t i = start; i < start + count; i++)
            json_array_append_new(arr, api_schema_object(c, &views[i]));
        http_reply_json(c, 200, arr);
    }
    for (size_t i = 0; i < n; i++)
        reg_view_clear(&views[i]);
    free(views);
    return HTTP_DONE;
}

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

static http_outcome_t get_by_guid(http_call_t *c, reg_schema_t **s)
{
    unsigned char guid[16];
    reg_error_t err;
    if (parse_guid(api_subject(c, 2), guid) != 0) {
        reg_fail(&err, REG_SCHEMA_NOT_FOUND, "Schema %s not found", api_subject(c, 2));
        return api_outcome(c, err.code, &err);
    }
    return api_outcome(c, registry_get_schema_by_guid(c->reg, guid, s, &err), &err);
}

http_outcome_t handle_schema_by_guid(http_call_t *c, store_t *db)
{
    reg_schema_t *s = NULL;
    http_outcome_t o = get_by_guid(c, &s);
    if (s) {
        http_reply_json(c, 200, api_schema_string(c, s));
        reg_schema_release(s);
    }
    return o;
}

http_outcome_t handle_schema_guid_ids(http_call_t *c, store_t *db)
{
    unsigned char guid[16];
    reg_schema_t *s = NULL;
    json_t *arr = json_array();
    if (parse_guid(api_subject(c, 2), guid) == 0 &&
        registry_get_schema_by_guid(c->reg, guid, &s, &(reg_error_t){0}) == REG_OK) {
        json_array_append_new(arr, json_pack("{s:s, s:i}", "context", ".", "id", s->id));
        reg_schema_release(s);
    }
    http_reply_json(c, 200, arr);
    return HTTP_DONE;
}

/* One context only: the default one (contexts are not separate namespaces yet). */
http_outcome_t handle_contexts(http_call_t *c, store_t *db)
{
    http_reply_json(c, 200, json_pack("[s]", "."));
    return HTTP_DONE;
}
