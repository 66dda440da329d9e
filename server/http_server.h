/*
 * http_server: the HTTP edge behind server/http.h. h2o event loops, the
 * database worker pool, and turning raw requests into http_call_t.
 *
 * Contents
 *   1. The server (http_server.c): start, address, stop
 *   2. Decoding a request into a call (http_call.c)
 *   3. Media types (http_call.c)
 *   4. Matching a route table (router.c)
 *
 * Threads: cfg->threads event loops share one listening socket (each loop
 * watches its own dup of it). A request is decoded and its handler run on
 * the loop that accepted it; HTTP_NEED_DB hands it to the database pool
 * (dbpool.h), and the worker posts the finished call back to that same loop,
 * which replies only if h2o still has the request (an HTTP/2 client may have
 * reset it meanwhile).
 */
#ifndef SERVER_HTTP_SERVER_H
#define SERVER_HTTP_SERVER_H

#include <stddef.h>

#include "server/http.h"

/* ---- 1. The server ------------------------------------------------------- */

typedef struct http_server http_server_t;

/*
 * Binds cfg->listen and loads the TLS files when configured: everything that
 * can fail for reasons of the machine, so that it fails before a database is
 * started. cfg is borrowed and must outlive the server. NULL and a malloc'd
 * message in *error ("cannot listen on ...: Address already in use").
 */
http_server_t *http_server_new(const server_config_t *cfg, char **error);
/*
 * Starts the database pool (cfg->db_threads connections to conninfo) and the
 * loop threads, and returns once every loop serves. reg is borrowed and must
 * outlive the server. -1 and a malloc'd *error on failure; then call
 * http_server_stop.
 */
int http_server_start(http_server_t *srv, registry_t *reg, const char *conninfo, char **error);
/*
 * SIGHUP: loads cfg's TLS files again (certificate and key, client CA and
 * CRL: a renewal or a revocation without a restart). New connections use
 * them; open ones keep the old and stay open.
 * 0 (also without TLS), or -1 and a malloc'd *error, the old ones kept.
 */
int http_server_reload_tls(http_server_t *srv, char **error);
/* Authenticates every request with auth (borrowed; it must outlive the
 * server; auth.h). Before http_server_start. */
struct auth;
void http_server_use_auth(http_server_t *srv, struct auth *auth);
/* Checks every request's route against authz's rules (borrowed; it must
 * outlive the server; authz.h). Before http_server_start. */
struct authz;
void http_server_use_authz(http_server_t *srv, struct authz *authz);
/* The bound address as "host:port"; the real port when cfg asked for 0. */
const char *http_server_address(const http_server_t *srv);
/*
 * Stops accepting, lets requests in flight finish (a few seconds at most),
 * waits for the database jobs they started, closes idle connections, joins
 * every thread and frees the server. Works on a server that never started.
 */
void http_server_stop(http_server_t *srv);

/* ---- 2. Decoding a request into a call ------------------------------------ */

/*
 * What every decoder below guarantees to handlers: each segment, parameter
 * name and value is valid UTF-8 with no NUL byte, so it can go into JSON and
 * SQL as a C string. Invalid UTF-8 is a 400; an escaped NUL ("%00") arrives
 * as U+0001, still a control character (so a subject with it stays invalid,
 * 42208) but one that does not end the string.
 */

/* "GET" -> HTTP_GET ...; unknown methods -> HTTP_OTHER. */
http_method_t http_method_parse(const char *name, size_t len);

/*
 * Splits a raw path (up to the '?') on '/', percent-decodes each segment on
 * its own ("%2F" -> '/', '+' stays '+') and drops one trailing empty segment.
 * Fills c->seg (one allocation) and c->nseg. Returns 0, 404 when the path
 * does not start with '/', or 400 for a bad %-escape or invalid UTF-8.
 */
int http_call_parse_path(http_call_t *c, const char *path, size_t len);

/*
 * Parses a query string (without the '?'): '&'-separated name[=value]
 * pairs, "%xx" and '+' (space) decoded, empty pairs skipped. Fills c->query
 * (one allocation) and c->nquery in request order. Returns 0, or 400 for
 * invalid UTF-8; a malformed %-escape is kept literally.
 */
int http_call_parse_query(http_call_t *c, const char *query, size_t len);

/* Frees what the decoders and the reply helpers allocated (not body). */
/* Confluent's AliasFilter, before routing: the path segment after each
 * "subjects" segment, and on /schemas/ids/... the "subject" query parameter,
 * is replaced by the alias its subject's config names (docs/api.md, "Aliases"). */
void http_call_resolve_aliases(http_call_t *c);
/* Confluent's ContextFilter, before the alias filter: a raw target under
 * /contexts/{c}/ is rewritten to the qualified names it stands for
 * (/contexts/.c/subjects/s -> /subjects/:.c:s; docs/api.md, "Contexts") and
 * the call's segments and query decoded again from it. Returns 0 (also for
 * any other path), or -1 with a 400 reply in the call. */
int http_call_apply_context(http_call_t *c, const char *path, size_t len, const char *query, size_t qlen);
void http_call_clear(http_call_t *c);
/* Drops the reply (status too): a job leaving for a worker starts afresh. */
void http_call_drop_reply(http_call_t *c);

/* 1 when s[0..len) is well-formed UTF-8 (no overlongs, no surrogates). */
int http_utf8_valid(const char *s, size_t len);

/* ---- 3. Media types (docs/api.md) ------------------------------------------ */

extern const char HTTP_MEDIA_V1[];   /* application/vnd.schemaregistry.v1+json */
extern const char HTTP_MEDIA_SR[];   /* application/vnd.schemaregistry+json */
extern const char HTTP_MEDIA_JSON[]; /* application/json */

/* 1 when a request Content-Type is accepted; NULL (absent) is accepted. */
int http_media_request_ok(const char *content_type, size_t len);

/*
 * The response type for an Accept header (NULL = absent): one of the three
 * constants above, or NULL when none is acceptable (406).
 */
const char *http_media_negotiate(const char *accept, size_t len);

/* ---- 4. Matching a route table ----------------------------------------------- */

/*
 * http_route_find over an explicit table (tests use their own). A pattern
 * matches when it has as many segments as the path and each literal equals
 * its segment; "{name}" (or "*") matches any one segment. Of the patterns
 * that match and have a handler for the method, the most specific wins: at
 * the first segment where two differ, a literal beats a parameter. Returns
 * 200, 404 or 405; *route (when not NULL) gets the winning route.
 */
int http_route_match(const http_route_t *routes, size_t nroutes, http_method_t method, char *const *seg,
                     size_t nseg, const http_handler_t **handler);
int http_route_lookup(const http_route_t *routes, size_t nroutes, http_method_t method, char *const *seg,
                      size_t nseg, const http_route_t **route, const http_handler_t **handler);

#endif
