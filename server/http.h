/*
 * http: what a request handler sees. Handlers know nothing of h2o, threads
 * or sockets: they read an http_call_t and fill in its reply.
 *
 * Contents
 *   1. The call (request in, reply out)
 *   2. Handlers: a memory part on the loop, a database part on a worker
 *   3. Request helpers (path and query parameters)
 *   4. Reply helpers (JSON, raw text, Confluent errors)
 *   5. The route table and the router
 *
 * Execution model (like libuv's uv_queue_work(work, after_work)): a handler
 * has a memory part that runs on the event-loop thread and a database part
 * that runs on a worker thread with that worker's connection. The memory
 * part decodes the request, answers when it can, or declines (HTTP_TO_DB)
 * after keeping what it decoded in the call (http_call_keep); the database
 * part always gets a connection and finds the decoded request there. The
 * request body is not available to it: the worker touches no h2o memory.
 * The reply is sent from the loop thread that owns the request (http_server.c).
 */
#ifndef SERVER_HTTP_H
#define SERVER_HTTP_H

#include <jansson.h>
#include <stddef.h>

#include "registry/registry.h"
#include "server/config.h"
#include "server/request_id.h"
#include "store/store.h"

/* ---- 1. The call ------------------------------------------------------- */

typedef enum http_method {
    HTTP_GET = 0,
    HTTP_POST,
    HTTP_PUT,
    HTTP_DELETE,
    HTTP_HEAD,
    HTTP_OTHER,
} http_method_t;

typedef struct http_param {
    char *name;  /* percent-decoded; '+' decoded as space in query strings */
    char *value; /* percent-decoded; "" for "?flag" and "?flag=" */
} http_param_t;

typedef struct http_call {
    /* Request, owned by the server, valid until the reply is sent. */
    http_method_t method;
    char **seg; /* path segments, percent-decoded one by one ("%2F" -> "/",
                   '+' stays '+'); a single trailing '/' is dropped */
    size_t nseg;
    http_param_t *query; /* in request order */
    size_t nquery;
    const char *body; /* NULL when the request had no body; UTF-8 for POST and PUT (http_charset.h) */
    size_t body_len;
    char *body_utf8;                /* owned: the body converted from UTF-16 or UTF-32, or NULL */
    int extended;                   /* extended response profile (docs/api.md) */
    const struct http_route *route; /* the matched route, for http_param */
    char **aliased; /* owned: subject names put in place of aliases (http_call_resolve_aliases) */
    size_t naliased;

    /* What the memory part decoded for the database part (http_call_keep). */
    void *kept;
    void (*kept_free)(void *kept);

    /* Context, borrowed. */
    registry_t *reg;
    const server_config_t *cfg;
    struct metrics *metrics; /* the server's counters (server/metrics.h), for GET /metrics */

    /* Who asks (server/auth.h), set before routing. principal: the user of
     * HTTP Basic, the client certificate's name or the anonymous principal;
     * NULL when no authentication is configured. Read-only for handlers;
     * never a password. remote: the peer's IP address as text ("?" unknown). */
    char *principal; /* owned by the call */
    char remote[48];
    /* The authorization rules this request is judged by (server/authz.h):
     * a reference the server takes before routing and drops when the call
     * ends, so a SIGHUP during the request changes nothing of it; NULL = no
     * authorization. */
    struct authz_rules *authz;
    /* The request's id (server/request_id.h), set before anything else:
     * echoed as X-Request-Id, logged, stored in its audit rows. */
    char request_id[REQUEST_ID_MAX + 1];

    /* Reply, set by the handler through the helpers of section 4. */
    int status;  /* 0 until replied */
    char *reply; /* malloc'd, freed by the server; or the text of reply_body */
    size_t reply_len;
    reg_body_t *reply_body; /* a prepared body (http_reply_body), or NULL */
    /* Extra reply headers (WWW-Authenticate, Retry-After): static names, owned values. */
    struct {
        const char *name;
        char *value;
    } reply_headers[2];
    size_t nreply_headers;

    /* The way home of a call a db_batch owns (http_call_home), set by the
     * server: a callback, so that handlers never call the server's file. */
    void (*home)(struct http_call *c, store_t *db);
} http_call_t;

/* ---- 2. Running a handler ---------------------------------------------- */

typedef enum http_outcome {
    HTTP_DONE = 0,  /* a reply is set */
    HTTP_TO_DB = 1, /* declined: the database part runs next, on a worker */
} http_outcome_t;

/* The memory part: on the event-loop thread, never blocks. */
typedef http_outcome_t (*http_loop_fn)(http_call_t *c);
/* The database part: on a worker thread; db is never NULL. Always replies. */
typedef void (*http_db_fn)(http_call_t *c, store_t *db);
/* The database parts of n calls of one handler staged in the same loop pass,
 * on one worker: what db does for each call (http_call_act_as first), as
 * http_db_fn would; replies to every call and sends each home with
 * http_call_home, maybe later and on another worker's thread (registry.h,
 * registry_register_queue). The calls are its own from here on. */
typedef void (*http_db_batch_fn)(http_call_t **calls, size_t n, store_t *db);

/* loop NULL: straight to the database part. db NULL: the loop always answers.
 * media NULL: the reply is JSON in the type negotiated from Accept (406 when
 * none is acceptable); else the handler's own type (static), whatever Accept
 * says (a Prometheus scraper asks for text/plain), used for its 2xx replies;
 * its errors stay JSON. db_batch NULL: every call's database part runs alone. */
typedef struct http_handler {
    http_loop_fn loop;
    http_db_fn db;
    const char *media;
    http_db_batch_fn db_batch;
} http_handler_t;

/* Whom the changes db makes next are for: c's principal, address and request
 * id (their audit rows name it). The server does it before http_db_fn. */
void http_call_act_as(http_call_t *c, store_t *db);

/* A db_batch call, replied to, goes home to its loop; db: the connection of the
 * thread it ends on (it writes a refusal's audit row there). The call is gone
 * on return. */
void http_call_home(http_call_t *c, store_t *db);

/* Keeps a decoded request for the database part; the server frees it with
 * free_fn (NULL = free) when the call ends. */
void http_call_keep(http_call_t *c, void *kept, void (*free_fn)(void *kept));

/* ---- 3. Request helpers ------------------------------------------------ */

/* A path parameter by its name in the route pattern ("/subjects/{subject}"
 * -> http_param(c, "subject")); "" when the route has none of that name. */
const char *http_param(const http_call_t *c, const char *name);
/* The {subject} segment as Confluent normalizes a qualified name
 * (registry_subject_normalize: ":.:s" -> "s"), once, after routing. */
void http_call_normalize_subject(http_call_t *c);
/* 1 when the matched route has a parameter of that name. */
int http_has_param(const http_call_t *c, const char *name);
/* The first value of a query parameter, or NULL when absent. */
const char *http_query(const http_call_t *c, const char *name);
/* Every value of a repeated query parameter, in order (JAX-RS's List<String>),
 * appended to out as copies. */
void http_query_all(const http_call_t *c, const char *name, strlist_t *out);
/* "true" (any case) is true; any other value false; absent -> dflt (docs/api.md). */
int http_query_bool(const http_call_t *c, const char *name, int dflt);
/* Decimal int; absent -> dflt. Returns 0, or -1 when present but unparseable. */
int http_query_int(const http_call_t *c, const char *name, int dflt, int *out);

/* ---- 4. Reply helpers -------------------------------------------------- */

/* Serializes body compactly and takes ownership of it (json_decref). */
void http_reply_json(http_call_t *c, int status, json_t *body);
/* Sends a prepared body (registry/bodies.h) as it is; takes the reference. */
void http_reply_body(http_call_t *c, int status, reg_body_t *b);
/* Takes a copy of text (the "raw schema" endpoints). */
void http_reply_text(http_call_t *c, int status, const char *text, size_t len);
/* {"error_code": code, "message": ...}; HTTP status = code for 3-digit codes, code / 100 otherwise. */
void http_reply_error(http_call_t *c, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The reply for a registry error (its code and message). */
void http_reply_reg_error(http_call_t *c, const reg_error_t *err);
/* Adds a reply header (name: static, lower case as HTTP/2 wants; value copied); two per reply at most. */
void http_reply_header(http_call_t *c, const char *name, const char *value);

/* ---- 5. Routes --------------------------------------------------------- */

/*
 * What a (route, method) needs of the principal (server/authz.h,
 * docs/security.md "Authorization"): a permission on a scope. Every handler
 * in http_routes declares one; 0 in either field is "undeclared", which the
 * unit test of the table refuses and the server answers with 403.
 */
typedef enum http_perm {
    HTTP_PERM_UNDECLARED = 0,
    HTTP_PERM_READ = 1,   /* look at schemas, versions, config, mode */
    HTTP_PERM_WRITE = 2,  /* register a schema */
    HTTP_PERM_DELETE = 4, /* delete a subject or a version */
    HTTP_PERM_ADMIN = 8,  /* change config or mode, delete a context; implies the three others */
} http_perm_t;

typedef enum http_scope {
    HTTP_SCOPE_UNDECLARED = 0,
    HTTP_SCOPE_ANY,      /* any authenticated principal (/, metadata, /schemas/types) */
    HTTP_SCOPE_SUBJECT,  /* the route's {subject} */
    HTTP_SCOPE_FILTERED, /* the handler checks per subject: listings and by-id reads */
    HTTP_SCOPE_CONFIG,   /* the global resources: /config */
    HTTP_SCOPE_MODE,     /* /mode */
    HTTP_SCOPE_SCHEMAS,  /* /schemas (by guid) */
    HTTP_SCOPE_CONTEXTS, /* /contexts */
    HTTP_SCOPE_METRICS,  /* /metrics */
    HTTP_SCOPE_AUDIT,    /* /audit: the audit trail (docs/security.md "Audit trail") */
} http_scope_t;

typedef struct http_need {
    unsigned char perm;  /* http_perm_t */
    unsigned char scope; /* http_scope_t */
} http_need_t;

/* A path pattern: literal segments and "{name}" for one parameter segment
 * ("*" is an unnamed one). */
typedef struct http_route {
    const char *pattern; /* e.g. "/subjects/{subject}/versions" */
    const http_handler_t *get, *post, *put, *del;
    http_need_t need[4]; /* of get, post, put, del (HEAD is GET's) */
} http_route_t;

/* What (route, method) needs; HTTP_PERM_UNDECLARED for a method without a handler. */
http_need_t http_route_need(const http_route_t *r, http_method_t method);

extern const http_route_t http_routes[];
extern const size_t http_route_count;

/*
 * Finds the handler for (method, segments). Returns 200 with *handler set,
 * 404 when no pattern matches, 405 when a pattern matches but not the method.
 * HEAD is served by the GET handler.
 */
int http_route_find(http_method_t method, char *const *seg, size_t nseg, const http_handler_t **handler);

#endif
