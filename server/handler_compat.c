/*
 * handler_compat: POST /compatibility/subjects/{s}/versions[/{v}].
 */
#include "server/api.h"
#include "server/handlers.h"

static http_outcome_t check(http_call_t *c, store_t *db, const char *version_text)
{
    api_body_t body;
    if (api_body_decode(c, &body) != 0)
        return HTTP_DONE;
    int verbose = http_query_bool(c, "verbose", 0);
    int compatible = 1;
    strlist_t messages = {0};
    reg_error_t err;
    reg_code_t rc = registry_check(c->reg, db, api_subject(c, 2), version_text, &body.req, verbose,
                                   &compatible, &messages, &err);
    if (rc == REG_OK) {
        json_t *reply = json_pack("{s:b}", "is_compatible", compatible);
        if (verbose) {
            json_t *list = json_array();
            for (size_t i = 0; i < messages.n; i++)
                json_array_append_new(list, json_string(messages.items[i]));
            json_object_set_new(reply, "messages", list);
        }
        http_reply_json(c, 200, reply);
    }
    strlist_clear(&messages);
    api_body_free(&body);
    return api_outcome(c, rc, &err);
}

http_outcome_t handle_compat_version(http_call_t *c, store_t *db)
{
    return check(c, db, api_subject(c, 4));
}

http_outcome_t handle_compat_all(http_call_t *c, store_t *db)
{
    return check(c, db, NULL);
}
