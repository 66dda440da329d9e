/*
 * handler_changes: GET /subjects/{subject}/versions/{version}/changes and
 * POST /changes (docs/evolution.md, docs/api.md "Changes"). Comparing parses
 * two schemas, CPU work: the memory part only decodes, as for compatibility.
 */
#include "server/api.h"
#include "server/authz.h"
#include "server/handlers.h"
#include "base/alloc.h"

#include <stdlib.h>
#include <string.h>

/* ---- GET /subjects/{subject}/versions/{version}/changes?from={u} ---------------------------- */

static http_outcome_t version_changes_loop(http_call_t *c)
{
    int version;
    reg_error_t err;
    const char *from = http_query(c, "from");
    if (registry_version_parse(http_param(c, "version"), &version) != 0)
        return api_done(c, registry_invalid_version(&err, http_param(c, "version")), &err);
    if (from && registry_version_parse(from, &version) != 0)
        return api_done(c, registry_invalid_version(&err, from), &err);
    return HTTP_TO_DB;
}

static void version_changes_db(http_call_t *c, store_t *db)
{
    (void)db;
    reg_changes_t ch;
    reg_error_t err;
    const char *subject = http_param(c, "subject");
    reg_code_t rc =
        registry_version_changes(c->reg, subject, http_param(c, "version"), http_query(c, "from"), &ch, &err);
    if (rc == REG_OK) {
        json_t *reply =
            json_pack("{s:s, s:i, s:i}", "subject", subject, "version", ch.version, "from", ch.from_version);
        json_t *list = api_changes_object(&ch);
        json_object_update(reply, list);
        json_decref(list);
        http_reply_json(c, 200, reply);
    }
    reg_changes_clear(&ch);
    api_done(c, rc, &err);
}

const http_handler_t handle_version_changes = {version_changes_loop, version_changes_db};

/* ---- POST /changes[?context=.ctx] ------------------------------------------------------------ */

/* The context the references resolve in: ?context= (".ctx", "ctx", ":.ctx:";
 * /contexts/{c}/changes sets it, server/http_call.c), else the default ".".
 * As ".ctx" (malloc'd), or NULL with the 400 replied for a colon inside. */
static char *request_context(http_call_t *c)
{
    const char *text = http_query(c, "context");
    char *scope = registry_context_normalize(text ? text : "");
    if (!scope) {
        http_reply_error(c, 400, "Context name '%s' cannot contain a colon", text);
        return NULL;
    }
    /* ":.ctx:" -> ".ctx"; "" (the default) -> "." */
    size_t n = strlen(scope);
    char *ctx = n ? xstrndup(scope + 1, n - 2) : xstrdup(".");
    free(scope);
    return ctx;
}

/* Nothing stored is read but what references name: each of their subjects
 * (in the request's context) must be readable, as if the client fetched them itself. */
static int references_readable(http_call_t *c, const char *context, const api_body_t *b)
{
    for (size_t i = 0; i < b->req.nrefs; i++) {
        char *subject = registry_ref_qualify(context, b->req.refs[i].subject);
        int ok = authz_may_read(c, subject);
        if (!ok)
            http_reply_error(c, 403, "Forbidden: principal '%s' has no read permission on subject '%s'",
                             c->principal ? c->principal : "", subject);
        free(subject);
        if (!ok)
            return 0;
    }
    return 1;
}

static http_outcome_t changes_loop(http_call_t *c)
{
    char *context = request_context(c);
    if (!context)
        return HTTP_DONE;
    api_pair_t *pair = api_pair_new(c);
    int ok = pair != NULL;
    if (pair) {
        api_pair_keep(c, pair);
        ok = references_readable(c, context, pair->old_body) &&
             references_readable(c, context, pair->new_body);
    }
    free(context);
    return ok ? HTTP_TO_DB : HTTP_DONE;
}

static void changes_db(http_call_t *c, store_t *db)
{
    (void)db;
    reg_changes_t ch;
    reg_error_t err;
    api_pair_t *pair = api_pair_kept(c);
    char *context = request_context(c); /* checked on the loop already */
    reg_code_t rc =
        registry_request_changes(c->reg, context, &pair->old_body->req, &pair->new_body->req, &ch, &err);
    free(context);
    if (rc == REG_OK)
        http_reply_json(c, 200, api_changes_object(&ch));
    reg_changes_clear(&ch);
    api_done(c, rc, &err);
}

const http_handler_t handle_changes = {changes_loop, changes_db};
