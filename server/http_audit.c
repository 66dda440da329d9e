/*
 * http_audit: http_audit.h.
 */
#include "server/http_audit.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/log.h"

struct http_audit_job {
    dbpool_job_t pool_job; /* first: the pool hands this pointer back */
    registry_t *reg;
    atomic_int *pending;
    reg_refusal_t r; /* its strings point into the fields below */
    char *action;
    char *subject;
    char *message;
    char *principal;
    char remote[48];
    char request_id[REQUEST_ID_MAX + 1];
};

/* ---- 1. Noticing a refusal ------------------------------------------------- */

/* The audit action of a write route (registry.h, REG_AUDIT_*), malloc'd; a
 * route without one is named by its method and pattern. */
static char *http_audit_action(const http_call_t *c)
{
    const char *p = c->route->pattern;
    int put = c->method == HTTP_PUT, del = c->method == HTTP_DELETE;
    const char *a = NULL;
    /* A tags edit registers a new version (registry_register_tagged): its
     * refusal is named as a registration's, like its success. */
    if ((strcmp(p, "/subjects/{subject}/versions") == 0 ||
         strcmp(p, "/subjects/{subject}/versions/{version}/tags") == 0) &&
        c->method == HTTP_POST)
        a = REG_AUDIT_REGISTER;
    else if (strcmp(p, "/subjects/{subject}") == 0 && del)
        a = REG_AUDIT_DELETE_SUBJECT;
    else if (strcmp(p, "/subjects/{subject}/versions/{version}") == 0 && del)
        a = REG_AUDIT_DELETE_VERSION;
    else if (strcmp(p, "/config") == 0 || strcmp(p, "/config/{subject}") == 0)
        a = put ? REG_AUDIT_CONFIG_PUT : del ? REG_AUDIT_CONFIG_DELETE : NULL;
    else if (strcmp(p, "/mode") == 0 || strcmp(p, "/mode/{subject}") == 0)
        a = put ? REG_AUDIT_MODE_PUT : del ? REG_AUDIT_MODE_DELETE : NULL;
    else if (strcmp(p, "/contexts/{context}") == 0 && del)
        a = REG_AUDIT_CONTEXT_DELETE;
    else if (strcmp(p, "/subjects/{subject}/rollback") == 0 && c->method == HTTP_POST)
        a = REG_AUDIT_ROLLBACK;
    else if (strcmp(p, "/associations") == 0 && c->method == HTTP_POST)
        a = REG_AUDIT_ASSOCIATION_CREATE;
    else if (strcmp(p, "/associations/resources/{resourceId}") == 0 && del)
        a = REG_AUDIT_ASSOCIATION_DELETE;
    else if (strcmp(p, "/associations/resources/{resourceId}") == 0 && put)
        a = REG_AUDIT_ASSOCIATION_UPDATE;
    if (a)
        return xstrdup(a);
    static const char *const names[] = {"GET", "POST", "PUT", "DELETE", "HEAD", "OTHER"};
    return xasprintf("%s %s", names[c->method], p);
}

static int http_audit_is_write(const http_call_t *c)
{
    if (c->route == NULL || (c->method != HTTP_POST && c->method != HTTP_PUT && c->method != HTTP_DELETE))
        return 0;
    http_need_t need = http_route_need(c->route, c->method);
    return need.perm == HTTP_PERM_WRITE || need.perm == HTTP_PERM_DELETE || need.perm == HTTP_PERM_ADMIN;
}

/* The context of a refused context delete as its change's row names it
 * (registry_delete_context: ".ctx", "." the default), malloc'd; NULL for a
 * route without one. A 401 is refused before the context path rewrite has
 * made ".ctx", "ctx" or ":.ctx:" into ":.ctx:", anything later after it:
 * both get the one name. A name that does not normalize is kept as sent. */
static char *http_audit_context(const char *text)
{
    if (!*text)
        return NULL;
    char *delimited = registry_context_normalize(text);
    if (!delimited)
        return xstrdup(text);
    char *name = *delimited ? xstrndup(delimited + 1, strlen(delimited) - 2) : xstrdup(".");
    free(delimited);
    return name;
}

http_audit_job_t *http_audit_refusal(const http_call_t *c)
{
    /* 499: the client reset the request before it ran; nobody refused it. */
    if (c->status < 400 || c->status >= 500 || c->status == 499 || !http_audit_is_write(c))
        return NULL;
    http_audit_job_t *j = xcalloc(1, sizeof *j);
    j->action = http_audit_action(c);
    const char *subject = http_param(c, "subject");
    j->subject = http_has_param(c, "subject") ? (*subject ? xstrdup(subject) : NULL)
                                              : http_audit_context(http_param(c, "context"));
    const char *version = http_param(c, "version");
    j->r.version = *version && strspn(version, "0123456789") == strlen(version) && strlen(version) < 10
                       ? atoi(version)
                       : 0;
    j->r.permanent = c->method == HTTP_DELETE && strncmp(c->route->pattern, "/subjects/", 10) == 0
                         ? http_query_bool(c, "permanent", 0)
                         : -1;
    j->r.status = c->status;
    json_t *body = c->reply ? json_loadb(c->reply, c->reply_len, 0, NULL) : NULL;
    json_t *code = json_object_get(body, "error_code"), *msg = json_object_get(body, "message");
    j->r.error_code = json_is_integer(code) ? (int)json_integer_value(code) : c->status;
    j->message = json_is_string(msg) ? xstrdup(json_string_value(msg)) : NULL;
    json_decref(body);
    j->principal = c->principal ? xstrdup(c->principal) : NULL;
    memcpy(j->remote, c->remote, sizeof j->remote);
    memcpy(j->request_id, c->request_id, sizeof j->request_id);
    j->r.action = j->action;
    j->r.subject = j->subject;
    j->r.message = j->message;
    return j;
}

/* ---- 2. Writing its row ---------------------------------------------------- */

static void http_audit_free(http_audit_job_t *j)
{
    free(j->action);
    free(j->subject);
    free(j->message);
    free(j->principal);
    free(j);
}

void http_audit_write(http_audit_job_t *j, registry_t *reg, store_t *db)
{
    if (db != NULL) {
        reg_actor_t who = {j->principal, j->remote[0] ? j->remote : NULL, j->request_id};
        registry_act_as(db, &who);
        reg_error_t err;
        if (registry_audit_refused(reg, db, &j->r, &err) != REG_OK)
            log_warn_request(j->request_id, "audit: a refused %s has no row: %s", j->action, err.message);
        registry_act_as(db, NULL);
    } else {
        log_warn_request(j->request_id, "audit: no database connection: a refused %s has no row", j->action);
    }
    http_audit_free(j);
}

static void http_audit_run(dbpool_job_t *pool_job, store_t *db)
{
    http_audit_job_t *j = (http_audit_job_t *)pool_job;
    atomic_int *pending = j->pending;
    http_audit_write(j, j->reg, db);
    atomic_fetch_sub(pending, 1);
}

void http_audit_submit(http_audit_job_t *j, dbpool_t *pool, registry_t *reg, atomic_int *pending)
{
    static atomic_int dropped;
    if (atomic_fetch_add(pending, 1) >= HTTP_AUDIT_QUEUE_MAX) {
        atomic_fetch_sub(pending, 1);
        int n = atomic_fetch_add(&dropped, 1);
        if (n % HTTP_AUDIT_QUEUE_MAX == 0)
            log_warn("audit: %d rows of refused attempts dropped so far: the database workers are behind",
                     n + 1);
        http_audit_free(j);
        return;
    }
    j->reg = reg;
    j->pending = pending;
    j->pool_job.run = http_audit_run;
    dbpool_submit(pool, &j->pool_job);
}
