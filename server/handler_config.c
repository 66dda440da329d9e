/*
 * handler_config: /config[/{subject}] and /mode[/{subject}].
 */
#include <stdlib.h>
#include <string.h>

#include "server/api.h"
#include "server/handlers.h"

/* "/config" -> NULL (global), "/config/{s}" -> s. */
static const char *scope_subject(const http_call_t *c)
{
    return c->nseg > 1 ? c->seg[1] : NULL;
}

/* GET and DELETE answer with "compatibilityLevel"; PUT with "compatibility" [Ref]. */
static json_t *as_get_shape(json_t *config)
{
    json_t *level = json_object_get(config, "compatibility");
    if (level) {
        json_incref(level);
        json_object_del(config, "compatibility");
        json_t *out = json_pack("{s:o}", "compatibilityLevel", level);
        json_object_update(out, config);
        json_decref(config);
        return out;
    }
    return config;
}

http_outcome_t handle_config_get(http_call_t *c, store_t *db)
{
    json_t *config;
    reg_error_t err;
    reg_code_t rc = registry_config_get(c->reg, scope_subject(c),
                                        http_query_bool(c, "defaultToGlobal", 0), &config, &err);
    if (rc == REG_OK)
        http_reply_json(c, 200, as_get_shape(config));
    return api_outcome(c, rc, &err);
}

/* Field types of a ConfigUpdate; a wrong type is a 400 like any body field. */
static int config_body_valid(http_call_t *c, json_t *body)
{
    static const char *const strings[] = {"compatibility", "alias", "compatibilityGroup",
                                          "compatibilityPolicy"};
    static const char *const bools[] = {"normalize", "validateFields", "validateNewSchemas",
                                        "validateRules"};
    for (size_t i = 0; i < sizeof strings / sizeof *strings; i++) {
        json_t *v = json_object_get(body, strings[i]);
        if (v && !json_is_null(v) && !json_is_string(v)) {
            http_reply_error(c, 400, "Field '%s' must be a string", strings[i]);
            return 0;
        }
    }
    for (size_t i = 0; i < sizeof bools / sizeof *bools; i++) {
        json_t *v = json_object_get(body, bools[i]);
        if (v && !json_is_null(v) && !json_is_boolean(v)) {
            http_reply_error(c, 400, "Field '%s' must be a boolean", bools[i]);
            return 0;
        }
    }
    return 1;
}

http_outcome_t handle_config_put(http_call_t *c, store_t *db)
{
    json_t *body = api_json_object(c);
    if (!body)
        return HTTP_DONE;
    reg_code_t rc = REG_OK;
    reg_error_t err;
    json_t *config = NULL;
    if (config_body_valid(c, body)) {
        rc = registry_config_set(c->reg, db, scope_subject(c), body, &config, &err);
        if (rc == REG_OK)
            http_reply_json(c, 200, config);
    }
    json_decref(body);
    return api_outcome(c, rc, &err);
}

http_outcome_t handle_config_delete(http_call_t *c, store_t *db)
{
    json_t *previous;
    reg_error_t err;
    reg_code_t rc = registry_config_delete(c->reg, db, scope_subject(c), &previous, &err);
    if (rc == REG_OK)
        http_reply_json(c, 200, as_get_shape(previous));
    return api_outcome(c, rc, &err);
}

http_outcome_t handle_mode_get(http_call_t *c, store_t *db)
{
    char *mode;
    reg_error_t err;
    reg_code_t rc = registry_mode_get(c->reg, scope_subject(c), http_query_bool(c, "defaultToGlobal", 0),
                                      &mode, &err);
    if (rc == REG_OK) {
        http_reply_json(c, 200, json_pack("{s:s}", "mode", mode));
        free(mode);
    }
    return api_outcome(c, rc, &err);
}

http_outcome_t handle_mode_put(http_call_t *c, store_t *db)
{
    json_t *body = api_json_object(c);
    if (!body)
        return HTTP_DONE;
    json_t *mode = json_object_get(body, "mode");
    reg_error_t err;
    reg_code_t rc = REG_OK;
    if (mode && !json_is_null(mode) && !json_is_string(mode)) {
        http_reply_error(c, 400, "Field 'mode' must be a string");
    } else {
        rc = registry_mode_set(c->reg, db, scope_subject(c), json_string_value(mode),
                               http_query_bool(c, "force", 0), &err);
        /* The request is echoed verbatim, lower case included [Ref]. */
        if (rc == REG_OK)
            http_reply_json(c, 200, json_pack("{s:s}", "mode", json_string_value(mode)));
    }
    json_decref(body);
    return api_outcome(c, rc, &err);
}

http_outcome_t handle_mode_delete(http_call_t *c, store_t *db)
{
    char *previous;
    reg_error_t err;
    reg_code_t rc = registry_mode_delete(c->reg, db, scope_subject(c), &previous, &err);
    if (rc == REG_OK) {
        http_reply_json(c, 200, json_pack("{s:s}", "mode", previous));
        free(previous);
    }
    return api_outcome(c, rc, &err);
}
