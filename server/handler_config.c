/*
 * handler_config: /config[/{subject}] and /mode[/{subject}].
 */
#include <stdlib.h>
#include <string.h>

#include "server/api.h"
#include "server/handlers.h"

/* "/config" -> NULL (global), "/config/{subject}" -> subject; the default
 * context ":.:" (normalized to "") is the global scope, as Confluent's
 * QualifiedSubject.isDefaultContext makes it. */
static const char *scope_subject(const http_call_t *c)
{
    const char *s = c->nseg > 1 ? http_param(c, "subject") : NULL;
    return s && *s ? s : NULL;
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

/* Field types of a ConfigUpdate; a wrong type is a 400 like any body field. */
static int config_body_valid(http_call_t *c, json_t *body)
{
    static const char *const strings[] = {"compatibility", "alias", "compatibilityGroup",
                                          "compatibilityPolicy"};
    static const char *const bools[] = {"normalize", "validateFields", "validateNewSchemas", "validateRules"};
    for (size_t i = 0; i < sizeof strings / sizeof *strings; i++) {
        json_t *v = json_object_get(body, strings[i]);
        if (v && !json_is_null(v) && !json_is_string(v)) {
            http_reply_error(c, 400, "Field '%s' must be a string", strings[i]);
            return 0;
        }
    }
    /* Jackson reads these as RuleSet and Metadata objects; the registry checks
     * a metadata's inside (registry_metadata_read), a rule set is dropped. */
    static const char *const objects[] = {"defaultRuleSet", "overrideRuleSet", "defaultMetadata",
                                          "overrideMetadata"};
    for (size_t i = 0; i < sizeof objects / sizeof *objects; i++) {
        json_t *v = json_object_get(body, objects[i]);
        if (v && !json_is_null(v) && !json_is_object(v)) {
            http_reply_error(c, 400, "Field '%s' must be an object", objects[i]);
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

static http_outcome_t config_get(http_call_t *c)
{
    json_t *config;
    reg_error_t err;
    reg_code_t rc = registry_config_get(c->reg, scope_subject(c), http_query_bool(c, "defaultToGlobal", 0),
                                        &config, &err);
    if (rc == REG_OK)
        http_reply_json(c, 200, as_get_shape(config));
    return api_done(c, rc, &err);
}

const http_handler_t handle_config_get = {config_get, NULL};

static http_outcome_t config_put_loop(http_call_t *c)
{
    json_t *body = api_json_object(c);
    if (!body)
        return HTTP_DONE;
    reg_error_t err;
    reg_code_t rc = REG_OK;
    if (!config_body_valid(c, body) ||
        (rc = registry_config_set_check(c->reg, scope_subject(c), body, &err)) != REG_OK) {
        json_decref(body);
        return api_done(c, rc, &err);
    }
    api_json_keep(c, body);
    return HTTP_TO_DB;
}

static void config_put_db(http_call_t *c, store_t *db)
{
    reg_error_t err;
    json_t *config = NULL;
    reg_code_t rc = registry_config_set(c->reg, db, scope_subject(c), api_json_kept(c), &config, &err);
    if (rc == REG_OK)
        http_reply_json(c, 200, config);
    api_done(c, rc, &err);
}

const http_handler_t handle_config_put = {config_put_loop, config_put_db};

static http_outcome_t config_delete_loop(http_call_t *c)
{
    reg_error_t err;
    reg_code_t rc = registry_config_delete_check(c->reg, scope_subject(c), &err);
    return rc == REG_OK ? HTTP_TO_DB : api_done(c, rc, &err);
}

static void config_delete_db(http_call_t *c, store_t *db)
{
    json_t *previous;
    reg_error_t err;
    reg_code_t rc = registry_config_delete(c->reg, db, scope_subject(c), &previous, &err);
    if (rc == REG_OK)
        http_reply_json(c, 200, as_get_shape(previous));
    api_done(c, rc, &err);
}

const http_handler_t handle_config_delete = {config_delete_loop, config_delete_db};

static http_outcome_t mode_get(http_call_t *c)
{
    char *mode;
    reg_error_t err;
    reg_code_t rc =
        registry_mode_get(c->reg, scope_subject(c), http_query_bool(c, "defaultToGlobal", 0), &mode, &err);
    if (rc == REG_OK) {
        http_reply_json(c, 200, json_pack("{s:s}", "mode", mode));
        free(mode);
    }
    return api_done(c, rc, &err);
}

const http_handler_t handle_mode_get = {mode_get, NULL};

/* The body's mode: NULL for "mode": null, which deletes the scope's mode
 * (Optional.empty() in Confluent's ModeUpdateRequest); "" when the key is
 * absent, refused as an invalid mode (Confluent has no mode to set then). */
static const char *body_mode(json_t *body)
{
    json_t *mode = json_object_get(body, "mode");
    return mode ? json_string_value(mode) : "";
}

static http_outcome_t mode_put_loop(http_call_t *c)
{
    json_t *body = api_json_object(c);
    if (!body)
        return HTTP_DONE;
    json_t *mode = json_object_get(body, "mode");
    reg_error_t err;
    reg_code_t rc = REG_OK;
    if (mode && !json_is_null(mode) && !json_is_string(mode)) {
        http_reply_error(c, 400, "Field 'mode' must be a string");
    } else if ((rc = registry_mode_set_check(c->reg, scope_subject(c), body_mode(body),
                                             http_query_bool(c, "force", 0), &err)) == REG_OK) {
        api_json_keep(c, body);
        return HTTP_TO_DB;
    }
    json_decref(body);
    return api_done(c, rc, &err);
}

static void mode_put_db(http_call_t *c, store_t *db)
{
    const char *mode = body_mode(api_json_kept(c));
    reg_error_t err;
    reg_code_t rc =
        registry_mode_set(c->reg, db, scope_subject(c), mode, http_query_bool(c, "force", 0), &err);
    /* The request is echoed verbatim, lower case included [Ref]. */
    if (rc == REG_OK)
        http_reply_json(c, 200, json_pack("{s:s?}", "mode", mode));
    api_done(c, rc, &err);
}

const http_handler_t handle_mode_put = {mode_put_loop, mode_put_db};

static http_outcome_t mode_delete_loop(http_call_t *c)
{
    reg_error_t err;
    reg_code_t rc =
        registry_mode_delete_check(c->reg, scope_subject(c), http_query_bool(c, "recursive", 0), &err);
    return rc == REG_OK ? HTTP_TO_DB : api_done(c, rc, &err);
}

static void mode_delete_db(http_call_t *c, store_t *db)
{
    char *previous;
    reg_error_t err;
    reg_code_t rc = registry_mode_delete(c->reg, db, scope_subject(c), http_query_bool(c, "recursive", 0),
                                         &previous, &err);
    if (rc == REG_OK) {
        /* No mode was set (recursive only): Confluent's Mode(null) renders as {}. */
        http_reply_json(c, 200, previous ? json_pack("{s:s}", "mode", previous) : json_object());
        free(previous);
    }
    api_done(c, rc, &err);
}

const http_handler_t handle_mode_delete = {mode_delete_loop, mode_delete_db};
