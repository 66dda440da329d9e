/*
 * handler_compat: POST /compatibility/subjects/{subject}/versions[/{version}].
 * Parsing and checking are CPU work: the memory part only decodes.
 */
#include "server/api.h"
#include "server/handlers.h"

/* NULL for .../versions: the register-time history. */
static const char *version_text(const http_call_t *c)
{
    return http_has_param(c, "version") ? http_param(c, "version") : NULL;
}

static http_outcome_t check_loop(http_call_t *c)
{
    api_body_t *body = api_body_new(c);
    if (!body)
        return HTTP_DONE;
    int version;
    reg_error_t err;
    const char *text = version_text(c);
    if (text && registry_version_parse(text, &version) != 0) {
        api_body_free(body);
        return api_done(c, registry_invalid_version(&err, text), &err);
    }
    api_body_keep(c, body);
    return HTTP_TO_DB;
}

static void check_db(http_call_t *c, store_t *db)
{
    int verbose = http_query_bool(c, "verbose", 0);
    int compatible = 1;
    strlist_t messages = {0};
    reg_error_t err;
    reg_code_t rc = registry_check(c->reg, db, http_param(c, "subject"), version_text(c),
                                   &api_body_kept(c)->req, verbose, &compatible, &messages, &err);
    if (rc == REG_OK) {
        json_t *reply = json_pack("{s:b}", "is_compatible", compatible);
        if (verbose) {
            json_t *list = json_array();
            for (size_t i = 0; i < messages.n; i++)
                json_array_append_new(list, json_string(messages.items[i]));
            json_object_set_new(reply, "messages", list);
        }
        /* ?verbose=true&changes=true: what changed against the version checked (docs/evolution.md). */
        if (api_wants_changes(c))
            api_add_candidate_changes(c, reply, http_param(c, "subject"), version_text(c),
                                      &api_body_kept(c)->req);
        http_reply_json(c, 200, reply);
    }
    strlist_clear(&messages);
    api_done(c, rc, &err);
}

const http_handler_t handle_compat_version = {check_loop, check_db};
const http_handler_t handle_compat_all = {check_loop, check_db};
