/*
 * handler_history: GET /subjects/{subject}/history and POST
 * /subjects/{subject}/rollback (docs/evolution.md, docs/api.md "History").
 * Both need the audit trail or a write: the memory part only decodes.
 *
 * Contents
 *   1. GET /subjects/{subject}/history
 *   2. POST /subjects/{subject}/rollback
 */
#include "base/alloc.h"
#include <string.h>

#include "server/api.h"
#include "server/authz.h"
#include "server/handlers.h"

/* ---- 1. GET /subjects/{subject}/history?deleted=&offset=&limit= ---------------------------- */

#define HISTORY_LIMIT_DEFAULT 100

typedef struct history_kept {
    int deleted, offset, limit;
} history_kept_t;

static http_outcome_t history_loop(http_call_t *c)
{
    history_kept_t *k = xcalloc(1, sizeof *k);
    http_call_keep(c, k, NULL);
    k->deleted = http_query_bool(c, "deleted", 0);
    if (http_query_int(c, "offset", 0, &k->offset) != 0 ||
        http_query_int(c, "limit", HISTORY_LIMIT_DEFAULT, &k->limit) != 0) {
        http_reply_error(c, 400, "'offset' and 'limit' must be integers");
        return HTTP_DONE;
    }
    if (k->offset < 0 || k->limit < 1 || k->limit > REG_HISTORY_LIMIT_MAX) {
        http_reply_error(c, 422, "'limit' must be 1..%d and 'offset' at least 0", REG_HISTORY_LIMIT_MAX);
        return HTTP_DONE;
    }
    return HTTP_TO_DB;
}

static void history_db(http_call_t *c, store_t *db)
{
    const history_kept_t *k = c->kept;
    json_t *body;
    reg_error_t err;
    reg_code_t rc = registry_subject_history(c->reg, db, http_param(c, "subject"), k->deleted, k->offset,
                                             k->limit, &body, &err);
    if (rc == REG_OK)
        http_reply_json(c, 200, body);
    api_done(c, rc, &err);
}

const http_handler_t handle_history = {history_loop, history_db};

/* ---- 2. POST /subjects/{subject}/rollback?mode=register|delete ------------------------------ */

/* The route declares WRITE (register mode, a new version); delete mode
 * removes versions, so it needs DELETE on the subject as well. */
typedef struct rollback_kept {
    int version;
    int delete_mode;
} rollback_kept_t;

static http_outcome_t rollback_loop(http_call_t *c)
{
    const char *mode = http_query(c, "mode");
    if (mode && strcmp(mode, "register") != 0 && strcmp(mode, "delete") != 0) {
        http_reply_error(c, 400, "'mode' must be register or delete");
        return HTTP_DONE;
    }
    int delete_mode = mode && strcmp(mode, "delete") == 0;
    if (delete_mode && authz_check(c, (http_need_t){HTTP_PERM_DELETE, HTTP_SCOPE_SUBJECT}) != 0)
        return HTTP_DONE;
    json_t *body = api_json_object(c);
    if (!body)
        return HTTP_DONE;
    json_t *v = json_object_get(body, "version");
    if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > INT32_MAX) {
        json_decref(body);
        reg_error_t err;
        reg_fail(
            &err, REG_INVALID_VERSION,
            "The specified version is not a valid version id: 'version' must be an integer in [1, 2^31-1]");
        return api_done(c, REG_INVALID_VERSION, &err);
    }
    rollback_kept_t *k = xcalloc(1, sizeof *k);
    k->version = (int)json_integer_value(v);
    k->delete_mode = delete_mode;
    json_decref(body);
    http_call_keep(c, k, NULL);
    return HTTP_TO_DB;
}

static void rollback_db(http_call_t *c, store_t *db)
{
    const rollback_kept_t *k = c->kept;
    const char *subject = http_param(c, "subject");
    reg_rollback_t r;
    reg_error_t err;
    reg_code_t rc = registry_rollback(c->reg, db, subject, k->version, k->delete_mode, &r, &err);
    json_t *reply = NULL;
    if (rc == REG_OK) {
        json_t *deleted = json_array();
        for (size_t i = 0; i < r.ndeleted; i++)
            json_array_append_new(deleted, json_integer(r.deleted[i]));
        reply = json_pack("{s:s, s:s, s:i, s:i, s:i, s:i, s:b, s:o}", "subject", subject, "mode",
                          k->delete_mode ? "delete" : "register", "from", r.from, "to", r.to, "version",
                          r.version, "id", r.id, "changed", r.changed, "deleted", deleted);
        http_reply_json(c, 200, reply);
    } else if (rc == REG_INCOMPATIBLE && r.blocking.summary) {
        /* The Confluent error, with what blocks it as extension fields (as ?changes=true does). */
        reply = json_pack("{s:i, s:s, s:o, s:s}", "error_code", (int)err.code, "message", err.message,
                          "changes", registry_change_array(&r.blocking.list), "summary", r.blocking.summary);
        http_reply_json(c, err.code / 100, reply);
        rc = REG_OK;
    }
    reg_rollback_clear(&r);
    api_done(c, rc, &err);
}

const http_handler_t handle_rollback = {rollback_loop, rollback_db};
