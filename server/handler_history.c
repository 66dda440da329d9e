/*
 * handler_history: GET /subjects/{subject}/history and POST
 * /subjects/{subject}/rollback (docs/evolution.md, docs/api.md "History").
 * Both need the audit trail or a write: the memory part only decodes.
 *
 * Contents
 *   1. GET /subjects/{subject}/history
 */
#include "base/alloc.h"
#include "server/api.h"
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
