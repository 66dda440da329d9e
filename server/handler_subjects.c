/*
 * handler_subjects: /subjects and everything below it -- registration,
 * lookup, versions, deletes and reverse references.
 */
#include <stdlib.h>
#include <string.h>

#include "server/api.h"
#include "server/handlers.h"

/* ":*:" (the default) means every context; contexts are not separate
 * namespaces here, so the marker is just removed. */
static const char *subject_prefix(http_call_t *c)
{
    const char *p = http_query(c, "subjectPrefix");
    if (!p)
        return NULL;
    return strncmp(p, ":*:", 3) == 0 ? p + 3 : p;
}

http_outcome_t handle_subjects(http_call_t *c, store_t *db)
{
    strlist_t names = {0};
    size_t start, count;
    registry_list_subjects(c->reg, subject_prefix(c), http_query_bool(c, "deleted", 0),
                           http_query_bool(c, "deletedOnly", 0), &names);
    if (api_page(c, names.n, 0, &start, &count) == 0) {
        json_t *arr = json_array();
        for (size_t i = start; i < start + count; i++)
            json_array_append_new(arr, json_string(names.items[i]));
        http_reply_json(c, 200, arr);
    }
    strlist_clear(&names);
    return HTTP_DONE;
}

http_outcome_t handle_subject_lookup(http_call_t *c, store_t *db)
{
    api_body_t body;
    if (api_body_decode(c, &body) != 0)
        return HTTP_DONE;
    reg_view_t view = {0};
    reg_error_t err;
    reg_code_t rc = registry_lookup(c->reg, db, api_subject(c, 1), &body.req,
                                    http_query_bool(c, "deleted", 0), &view, &err);
    if (rc == REG_OK)
        http_reply_json(c, 200, api_schema_object(c, &view));
    reg_view_clear(&view);
    api_body_free(&body);
    return api_outcome(c, rc, &err);
}

http_outcome_t handle_subject_delete(http_call_t *c, store_t *db)
{
    int *versions;
    size_t n;
    reg_error_t err;
    reg_code_t rc = registry_delete_subject(c->reg, db, api_subject(c, 1),
                                            http_query_bool(c, "permanent", 0), &versions, &n, &err);
    if (rc == REG_OK)
        http_reply_json(c, 200, api_int_array(versions, n));
    free(versions);
    return api_outcome(c, rc, &err);
}

http_outcome_t handle_versions_list(http_call_t *c, store_t *db)
{
    int *versions;
    size_t n, start, count;
    reg_error_t err;
    reg_code_t rc = registry_list_versions(c->reg, api_subject(c, 1), http_query_bool(c, "deleted", 0),
                                           http_query_bool(c, "deletedOnly", 0),
                                           http_query_bool(c, "deletedAsNegative", 0), &versions, &n, &err);
    if (rc == REG_OK && api_page(c, n, 0, &start, &count) == 0)
        http_reply_json(c, 200, api_int_array(versions + start, count));
    free(versions);
    return api_outcome(c, rc, &err);
}

http_outcome_t handle_register(http_call_t *c, store_t *db)
{
    api_body_t body;
    if (api_body_decode(c, &body) != 0)
        return HTTP_DONE;
    reg_view_t view = {0};
    reg_error_t err;
    reg_code_t rc = registry_register(c->reg, db, api_subject(c, 1), &body.req, &view, &err);
    if (rc == REG_OK) {
        /* Classic clients fail on unknown fields: only the id unless asked (rest-api 1.5). */
        json_t *reply = c->extended ? api_schema_object(c, &view) : json_pack("{s:i}", "id", view.id);
        if (c->extended)
            json_object_del(reply, "subject");
        http_reply_json(c, 200, reply);
    }
    reg_view_clear(&view);
    api_body_free(&body);
    return api_outcome(c, rc, &err);
}

static reg_code_t get_version(http_call_t *c, reg_view_t *view, reg_error_t *err)
{
    return registry_get_version(c->reg, api_subject(c, 1), api_subject(c, 3),
                                http_query_bool(c, "deleted", 0), view, err);
}

http_outcome_t handle_version_get(http_call_t *c, store_t *db)
{
    reg_view_t view = {0};
    reg_error_t err;
    reg_code_t rc = get_version(c, &view, &err);
    if (rc == REG_OK)
        http_reply_json(c, 200, api_schema_object(c, &view));
    reg_view_clear(&view);
    return api_outcome(c, rc, &err);
}

http_outcome_t handle_version_schema(http_call_t *c, store_t *db)
{
    reg_view_t view = {0};
    reg_error_t err;
    reg_code_t rc = get_version(c, &view, &err);
    if (rc == REG_OK) {
        char *text = api_schema_text(c, view.schema);
        http_reply_text(c, 200, text, strlen(text));
        free(text);
    }
    reg_view_clear(&view);
    return api_outcome(c, rc, &err);
}

http_outcome_t handle_version_referencedby(http_call_t *c, store_t *db)
{
    int *ids;
    size_t n, start, count;
    reg_error_t err;
    reg_code_t rc = registry_referenced_by(c->reg, api_subject(c, 1), api_subject(c, 3),
                                           http_query_bool(c, "deleted", 0), &ids, &n, &err);
    if (rc == REG_OK && api_page(c, n, 1000, &start, &count) == 0)
        http_reply_json(c, 200, api_int_array(ids + start, count));
    free(ids);
    return api_outcome(c, rc, &err);
}

http_outcome_t handle_version_delete(http_call_t *c, store_t *db)
{
    int version;
    reg_error_t err;
    reg_code_t rc = registry_delete_version(c->reg, db, api_subject(c, 1), api_subject(c, 3),
                                            http_query_bool(c, "permanent", 0), &version, &err);
    if (rc == REG_OK)
        http_reply_json(c, 200, json_integer(version));
    return api_outcome(c, rc, &err);
}
