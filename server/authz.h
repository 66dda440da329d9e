/*
 * authz: what an authenticated principal may do (docs/security.md
 * "Authorization"). Rules from the config file grant permissions (read,
 * write, delete, admin) on subject patterns or on the global resources
 * /config, /mode, /schemas, /contexts and /audit to principals and groups; every
 * route declares what it needs (server/routes.c) and the server checks it
 * in one place, after routing (http_server.c). Listings and by-id reads ask
 * per subject (authz_may_read, authz_may_read_id).
 *
 * Contents
 *   1. Rule sets: parse, share, release
 *   2. The holder: start, reload (SIGHUP), free
 *   3. Checks
 *
 * Threads: a rule set never changes once parsed; a request holds a
 * reference to the one in use when it arrived (http_call_t.authz), so a
 * SIGHUP swaps the holder's set without a lock on any check.
 */
#ifndef SERVER_AUTHZ_H
#define SERVER_AUTHZ_H

#include "server/config.h"
#include "server/http.h"

/* ---- 1. Rule sets ----------------------------------------------------------- */

typedef struct authz_rules authz_rules_t;

/*
 * The "auth.rule" and "auth.group" lines of the config file at path (other
 * keys are config.c's): a new set with one reference, or NULL and a malloc'd
 * *error naming the line. path NULL: the empty set.
 *   auth.group = NAME MEMBER[,MEMBER...]
 *   auth.rule  = PRINCIPAL|@GROUP|* PERM[,PERM...] PATTERN
 * PERM: read, write, delete, admin (implies the other three). PATTERN: one of
 * /config, /mode, /schemas, /contexts, /metrics, /audit, slash-star (all six), or a subject glob
 * (fnmatch: "*", "?", "[...]"; "orders-*" is a prefix), optionally written
 * "subject:GLOB".
 */
authz_rules_t *authz_rules_load(const char *path, char **error);
/* The number of auth.rule lines; with none, every principal may do everything. */
size_t authz_rules_count(const authz_rules_t *r);
/* Another reference to r (NULL stays NULL). */
authz_rules_t *authz_rules_ref(authz_rules_t *r);
void authz_rules_release(authz_rules_t *r);

/* ---- 2. The holder ---------------------------------------------------------- */

typedef struct authz authz_t;

/*
 * From cfg (borrowed; it must outlive the holder): the rules of
 * cfg->config_file. With authentication off (auth_on 0) rules are an error
 * (nobody could be named); NULL and a malloc'd *error when they do not load.
 */
authz_t *authz_new(const server_config_t *cfg, int auth_on, char **error);
/* SIGHUP: reads the rules again. -1 and a malloc'd *error keep the previous rules. */
int authz_reload(authz_t *a, char **error);
/* The rules in use now, a reference the caller releases; NULL when authentication is off. */
authz_rules_t *authz_current(authz_t *a);
void authz_free(authz_t *a);

/* ---- 3. Checks -------------------------------------------------------------- */

/* 1 when principal holds perm on scope (subject for HTTP_SCOPE_SUBJECT). r NULL: 1. */
int authz_allows(const authz_rules_t *r, const char *principal, http_perm_t perm, http_scope_t scope,
                 const char *subject);
/*
 * The check of every request, after routing: 0 to go on, or -1 with a 403
 * reply {"error_code":403,"message":...}. An undeclared need is refused.
 * HTTP_SCOPE_FILTERED passes here: the handler filters.
 */
int authz_check(http_call_t *c, http_need_t need);
/* 1 when c's principal may read subject (always without authorization). */
int authz_may_read(const http_call_t *c, const char *subject);
/*
 * 1 when c's principal may read the schema id of context: read on /schemas,
 * or on some subject of the context carrying the id (soft-deleted included).
 */
int authz_may_read_id(const http_call_t *c, const char *context, int id);
/* Replies 403 for a by-id read of id that authz_may_read_id refused. */
void authz_refuse_id(http_call_t *c, int id);

#endif
