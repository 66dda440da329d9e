/*
 * http_server: h2o 2.2.5 event loops, TLS, the request path from h2o to a
 * handler and back, and shutdown (http_server.h section 1).
 *
 * Contents
 *   1. Types
 *   2. Jobs: one request on its way through a handler
 *   3. Replying, counting (metrics.h) and the request log
 *   4. Requests: h2o -> http_call_t -> handler
 *   5. Database round trips: loop -> dbpool -> loop (and password checks: loop -> verifier -> loop)
 *   6. Listening socket, TLS and h2o settings
 *   7. Loops: setup, run, drain, dispose
 *   8. Start and stop
 *
 * Abuse (docs/security.md): every connection carries an http_abuse ledger
 * (section 4); h2o's own limits are set in section 6.
 *
 * Memory: a request's http_call_t lives in a malloc'd job, not in h2o's
 * request pool, because a database worker may still be using it after h2o
 * has freed an HTTP/2 request whose client reset the stream. The job points
 * back at the request only while a guard in the request's pool says it is
 * alive (section 5). What a worker reads of the call (segments, query,
 * the decoded request the memory part kept) is the job's own memory: the
 * body, which is h2o's, is cut off before the job leaves the loop.
 */
#include "server/http_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <h2o.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/hmap.h"
#include "base/log.h"
#include "server/auth.h"
#include "server/authz.h"
#include "server/dbpool.h"
#include "server/http_abuse.h"
#include "server/http_audit.h"
#include "server/http_charset.h"
#include "server/http_framing.h"
#include "server/metrics.h"
#include "server/tls.h"

/* Handlers parse JSON nested up to 2048 levels; jansson needs ~1 MB for that. */
#define HTTP_STACK_BYTES (8u * 1024 * 1024)
/* How long stop() lets requests in flight finish before giving up on them. */
#define HTTP_DRAIN_MS 5000
/* After the drain, how often shutdown asks PostgreSQL to cancel what still runs. */
#define HTTP_CANCEL_EVERY_MS 1000
/* How long accepting pauses when descriptors run out or the connection limit is reached. */
#define HTTP_ACCEPT_PAUSE_MS 100
/* Descriptors kept free of connections (database, logs, TLS files) when max.connections is 0. */
#define HTTP_FD_RESERVE     64
#define HTTP_LOG_TARGET_MAX 512
/* The nice of verifier threads (section 5): hashes yield the CPU to the loops and database workers. */
#define HTTP_VERIFIER_NICE 10
/* A principal longer than this (a certificate's name) is cut in the request log. */
#define HTTP_LOG_PRINCIPAL_MAX 256
/* Most jobs of one handler one pass hands a worker together (handler->db_batch);
 * registry/group.c writes at most 64 registrations in one statement. */
#define HTTP_BATCH_MAX 32
/* A request body larger than this goes alone: its parse and compatibility
 * check may take milliseconds, which a batch's other requests would wait for
 * on its one worker while other workers could take them. */
#define HTTP_BATCH_BODY_MAX 16384

/* ---- 1. Types ------------------------------------------------------------ */

typedef struct http_loop http_loop_t;
typedef struct http_job http_job_t;
typedef struct http_mark http_mark_t;

/*
 * Everything h2o a loop owns (evloop, context, its wake-up queue, the
 * listener) is created, used and disposed of on the loop's own thread:
 * h2o 2.2.5 binds a socket's buffers to the creating thread's thread-local
 * recycle allocator (h2o_socket_buffer_prototype), so a socket made on one
 * thread and read on another shares an unlocked free list between threads.
 */
struct http_loop {
    http_server_t *srv;
    int index;
    pthread_t thread;
    int inited;               /* ctx and receivers exist; set by the loop before it reports */
    int running;              /* thread started */
    int leftover;             /* connections outlived the drain; nothing was freed */
    int stopping;             /* loop thread only */
    size_t jobs_out;          /* handed to dbpool (or staged for it), not back yet; loop thread only */
    http_job_t *staged;       /* for dbpool after this pass over the sockets, in order */
    http_job_t **staged_tail; /* where the next staged job goes */
    h2o_timeout_entry_t staged_flush; /* on ctx.zero_timeout while jobs are staged */
    /* Open client connections this loop serves, and those handed to it not yet
     * adopted: what an accepting loop balances by (http_on_accept). Any loop adds. */
    atomic_int nconns;
    atomic_int incoming; /* handed to it (http_hand_over), not yet taken; any loop adds */
    atomic_int refusing; /* no hand-overs to it: set until its receivers exist, and again when it stops */
    int listen_fd;       /* its duplicate of the listening socket, which loop->listener wraps */
    hmap_t conn_jobs;                 /* h2o_conn_t * -> jobs out for it (as a uintptr_t); loop thread only */
    h2o_context_t ctx;
    h2o_accept_ctx_t accept_ctx;
    h2o_socket_t *listener;
    int accept_paused;          /* reading the listener stopped for HTTP_ACCEPT_PAUSE_MS */
    h2o_timeout_t accept_pause; /* its timer */
    h2o_timeout_entry_t accept_resume;
    h2o_multithread_receiver_t done_recv; /* jobs back from dbpool */
    h2o_multithread_receiver_t stop_recv;
    h2o_multithread_message_t stop_msg;
    h2o_multithread_receiver_t handoff_recv; /* connections another loop accepted for this one */
    h2o_multithread_receiver_t tls_recv;     /* a new TLS context (SIGHUP) */
    h2o_multithread_message_t tls_msg;
    SSL_CTX *tls_pending;         /* under srv->ready_lock; one reference */
    int tls_msg_queued;           /* under srv->ready_lock: tls_msg is on its way */
    char log_lines[LOG_LINE_MAX]; /* the request log's lines not written yet (section 3) */
    size_t log_len;
    metrics_shard_t *metrics; /* this loop's counters; written by this loop only */
};

struct http_server {
    const server_config_t *cfg; /* borrowed */
    registry_t *reg;            /* borrowed */
    auth_t *auth;               /* borrowed; NULL = no authentication */
    authz_t *authz;             /* borrowed; NULL = no authorization */
    h2o_globalconf_t config;
    int config_inited;
    SSL_CTX *ssl_ctx;
    int listen_fd;
    char address[INET6_ADDRSTRLEN + 8];
    dbpool_t *pool;
    dbpool_t *verifier; /* password hashes (auth.h): off the loops, and off the database workers */
    metrics_t *metrics; /* GET /metrics: one shard per loop */
    size_t nloops;
    http_loop_t *loops;
    atomic_int connections;     /* open client connections, every loop */
    int max_connections;        /* resolved: never 0 */
    pthread_mutex_t ready_lock; /* loops report their set-up here */
    pthread_cond_t ready_cond;
    atomic_int audit_pending; /* refused attempts' audit rows queued from the loops (http_audit.h) */
    size_t nready;
    char *ready_error; /* the first loop's failure, malloc'd */
    http_abuse_limits_t abuse;
};

/* One accepted client connection: the socket's on_close data, freed with the socket. */
typedef struct http_conn {
    http_loop_t *loop;
    /* The TLS context it was accepted with (a reference, or NULL): h2o makes
     * the connection's SSL object from it only once the first bytes arrive,
     * so it must outlive a SIGHUP that lets every loop move on to a new one. */
    SSL_CTX *ssl_ctx;
    http_abuse_conn_t abuse;
    /* The peer's address as text, "" until the first request takes it: every
     * request names it, and inet_ntop per request showed in by-id profiles. */
    char remote[sizeof((http_call_t *)0)->remote];
} http_conn_t;

/*
 * Lives in each request's pool: when h2o frees the request, whether its
 * reply went out decides the connection's reset budget (http_abuse.h). A
 * stream reset before h2o wrote the reply's DATA frames counts req->bytes_sent
 * short of the reply, on either protocol and in either request path.
 */
struct http_mark {
    http_conn_t *conn; /* alive as long as the request: h2o frees requests before the socket */
    h2o_req_t *req;
    size_t expect; /* body bytes of the reply sent; 0 = none sent yet */
    int replied;
};

/* The guard lives in the request's pool; h2o disposes it with the request. */
typedef struct http_guard {
    http_job_t *job; /* NULL once the job no longer needs to know */
} http_guard_t;

struct http_job {
    dbpool_job_t pool_job;         /* first: dbpool hands this pointer back */
    h2o_multithread_message_t msg; /* the way home to the owning loop */
    http_loop_t *owner;
    http_call_t call;
    const http_handler_t *handler;
    const char *content_type; /* negotiated; static storage */
    h2o_req_t *req;           /* NULL once h2o has freed the request */
    h2o_conn_t *conn;         /* a key into owner->conn_jobs only; never dereferenced */
    atomic_int gone;          /* set on the loop when h2o frees the request; read by the worker */
    http_guard_t *guard;
    http_mark_t *mark;       /* in the request's pool; NULL when not counted */
    auth_check_t *check;     /* out on srv->verifier: http_decode goes on when it is back */
    char *log_target;        /* method and path, copied when the job leaves the loop */
    http_job_t *staged_next; /* in owner->staged until the pass ends */
    int batchable;           /* may go to a worker with others (HTTP_BATCH_BODY_MAX) */
    int checked;             /* its worker's registry_check_primary let it through */
    struct timespec started;
};

/* ---- 2. Jobs --------------------------------------------------------------- */

static void http_job_call_home(http_call_t *c, store_t *db);

static http_job_t *http_job_new(http_loop_t *loop)
{
    http_job_t *job = xcalloc(1, sizeof *job);
    clock_gettime(CLOCK_MONOTONIC, &job->started);
    job->owner = loop;
    job->call.reg = loop->srv->reg;
    job->call.cfg = loop->srv->cfg;
    job->call.metrics = loop->srv->metrics;
    job->call.home = http_job_call_home;
    job->content_type = HTTP_MEDIA_V1;
    return job;
}

static void http_job_free(http_job_t *job)
{
    authz_rules_release(job->call.authz); /* here, not in http_call.c: authz.c calls that file */
    job->call.authz = NULL;
    http_call_clear(&job->call);
    free(job->log_target);
    free(job);
}

static uint64_t http_job_elapsed_us(const http_job_t *job)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    int64_t us =
        (int64_t)(now.tv_sec - job->started.tv_sec) * 1000000 + (now.tv_nsec - job->started.tv_nsec) / 1000;
    return us > 0 ? (uint64_t)us : 0;
}

/* ---- 3. Replying, counting and the request log -------------------------------- */

static const char *http_reason(int status)
{
    switch (status) {
    case 200: return "OK";
    case 201: return "Created";
    case 204: return "No Content";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 413: return "Payload Too Large";
    case 415: return "Unsupported Media Type";
    case 422: return "Unprocessable Entity";
    case 429: return "Too Many Requests";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return status < 400 ? "OK" : "Error";
    }
}

/* "METHOD /raw/target?q" with bytes a terminal should not see (and a space in
 * the method) escaped as \xNN, cut short, into out (HTTP_LOG_TARGET_MAX + 8 bytes). */
static void http_log_target(const h2o_req_t *req, char *out)
{
    size_t cap = HTTP_LOG_TARGET_MAX;
    size_t o = 0;
    const h2o_iovec_t parts[2] = {req->method, req->path};
    for (int p = 0; p < 2; p++) {
        if (p == 1 && o < cap)
            out[o++] = ' ';
        for (size_t i = 0; i < parts[p].len && o < cap; i++) {
            unsigned char c = (unsigned char)parts[p].base[i];
            if (c >= 0x20 && c < 0x7f && c != '\\' && (p == 1 || c != ' '))
                out[o++] = (char)c;
            else
                o += (size_t)snprintf(out + o, 5, "\\x%02x", c);
        }
    }
    if (o >= cap)
        o += (size_t)snprintf(out + o, 4, "...");
    out[o] = '\0';
}

static char *http_log_target_new(const h2o_req_t *req)
{
    char *out = xmalloc(HTTP_LOG_TARGET_MAX + 8);
    http_log_target(req, out);
    return out;
}

/* sep, then v in decimal, at out (room for 21 bytes); returns the bytes written. */
static int http_format_u64(char *out, char sep, uint64_t v)
{
    char digits[20];
    int n = 0;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v > 0);
    out[0] = sep;
    for (int i = 0; i < n; i++)
        out[1 + i] = digits[n - 1 - i];
    return n + 1;
}

/* Writes the loop's pending request-log lines (loop thread). */
static void http_log_flush(http_loop_t *loop)
{
    if (loop->log_len > 0)
        log_write_lines(loop->log_lines, loop->log_len);
    loop->log_len = 0;
}

/* Appends text (cut at max bytes, control bytes as '?') at line + n; the new length. */
static size_t http_log_append(char *line, size_t n, const char *text, size_t max)
{
    for (size_t i = 0; text[i] && i < max; i++)
        line[n++] = (unsigned char)text[i] < 0x20 || text[i] == 0x7f ? '?' : text[i];
    return n;
}

/* The text line: what log_info("%s %d %" PRIu64 "us from=%s principal=%s rid=%s%s") would
 * write, without printf: the target is escaped already (http_log_target), note
 * is a literal, the principal never a password (auth.h). Its length. */
static size_t http_log_text(const http_job_t *job, const char *target, const char *note, uint64_t us,
                            char *line)
{
    size_t n = log_prefix(line, LOG_INFO);
    size_t tlen = strlen(target), nlen = strlen(note);
    size_t room = 48 + sizeof job->call.remote + 24 + HTTP_LOG_PRINCIPAL_MAX + 8 +
                  sizeof job->call.request_id; /* all but the target */
    if (n + tlen + nlen + room > LOG_LINE_MAX)
        tlen = LOG_LINE_MAX - n - nlen - room;
    memcpy(line + n, target, tlen);
    n += tlen;
    n += (size_t)http_format_u64(line + n, ' ', (uint64_t)(job->call.status < 0 ? 0 : job->call.status));
    n += (size_t)http_format_u64(line + n, ' ', us);
    memcpy(line + n, "us from=", 8);
    n += 8;
    n = http_log_append(line, n, job->call.remote[0] ? job->call.remote : "-", sizeof job->call.remote);
    memcpy(line + n, " principal=", 11);
    n += 11;
    n = http_log_append(line, n, job->call.principal ? job->call.principal : "-", HTTP_LOG_PRINCIPAL_MAX);
    memcpy(line + n, " rid=", 5);
    n += 5;
    size_t rlen = strnlen(job->call.request_id, sizeof job->call.request_id);
    memcpy(line + n, job->call.request_id, rlen); /* sane by construction (request_id.h) */
    n += rlen;
    memcpy(line + n, note, nlen);
    n += nlen;
    line[n++] = '\n';
    return n;
}

/* The json line (log.format json, docs/operations.md): msg is the text line's
 * "METHOD TARGET STATUS DURATIONus[ note]", and each part is a member too.
 * target is http_log_target's escaped form, so both formats show a request's
 * bytes the same way. Its length. */
static size_t http_log_json(const http_job_t *job, const char *target, const char *note, uint64_t us,
                            char *line)
{
    char msg[HTTP_LOG_TARGET_MAX + 128];
    uint64_t status = (uint64_t)(job->call.status < 0 ? 0 : job->call.status);
    int m = snprintf(msg, sizeof msg, "%s %" PRIu64 " %" PRIu64 "us%s", target, status, us, note);
    size_t msg_len = m < 0 ? 0 : (size_t)m < sizeof msg ? (size_t)m : sizeof msg - 1;
    /* The method never holds a space as logged (http_log_target), so the first one ends it. */
    const char *space = strchr(target, ' ');
    const char *principal = job->call.principal;
    log_field_t fields[8];
    size_t nf = 0;
    fields[nf++] = LOG_FIELD_STR("method", space ? target : NULL, space ? (size_t)(space - target) : 0);
    fields[nf++] = LOG_FIELD_STR("target", space ? space + 1 : NULL, space ? strlen(space + 1) : 0);
    fields[nf++] = LOG_FIELD_NUM("status", status);
    fields[nf++] = LOG_FIELD_NUM("duration_us", us);
    fields[nf++] = LOG_FIELD_STR("remote", job->call.remote[0] ? job->call.remote : NULL,
                                 strnlen(job->call.remote, sizeof job->call.remote));
    fields[nf++] =
        LOG_FIELD_STR("principal", principal, principal ? strnlen(principal, HTTP_LOG_PRINCIPAL_MAX) : 0);
    fields[nf++] = LOG_FIELD_STR("request_id", job->call.request_id[0] ? job->call.request_id : NULL,
                                 strnlen(job->call.request_id, sizeof job->call.request_id));
    return log_format_json(line, LOG_INFO, msg, msg_len, fields, nf);
}

/* log.requests (config.h): whether the request gets its line. A note is a
 * reply that never reached the client: worth a line under errors too. */
static int http_log_wanted(const http_job_t *job, const char *note)
{
    switch ((config_log_requests_t)job->owner->srv->cfg->log_requests) {
    case CONFIG_LOG_REQUESTS_NONE: return 0;
    case CONFIG_LOG_REQUESTS_ERRORS: return job->call.status >= 400 || note[0] != '\0';
    case CONFIG_LOG_REQUESTS_ALL: break;
    }
    return 1;
}

/*
 * One line per request (those log.requests wants), as log_info would write it. A write(2) per request
 * costs more than the rest of a by-id read (docs/performance.md), so the
 * loop collects its lines and writes them together at the end of each turn
 * of the event loop (http_loop_main), or sooner when LOG_LINE_MAX bytes are
 * waiting: no line waits longer than the turn that produced it.
 */
static void http_log_request(http_job_t *job, const char *target, const char *note, uint64_t us)
{
    http_loop_t *loop = job->owner;
    char line[LOG_LINE_MAX];
    if (!http_log_wanted(job, note))
        return;
    if (!target)
        target = "-";
    size_t n = log_get_format() == LOG_FORMAT_JSON ? http_log_json(job, target, note, us, line)
                                                   : http_log_text(job, target, note, us, line);
    if (loop->log_len + n > sizeof loop->log_lines)
        http_log_flush(loop);
    memcpy(loop->log_lines + loop->log_len, line, n);
    loop->log_len += n;
}

/*
 * Counts the finished request (server/metrics.h) on its loop, before its
 * reply leaves: a client that reads the reply and then scrapes, on any
 * connection, finds it counted. Returns the time taken, which the log shows too.
 */
static uint64_t http_count(http_job_t *job)
{
    http_call_t *c = &job->call;
    if (c->status == 0)
        http_reply_error(c, 500, "The request handler did not reply");
    uint64_t us = http_job_elapsed_us(job);
    metrics_count(job->owner->metrics, c->route, c->method, c->status, us);
    return us;
}

/* Sends the job's reply on req (which must be alive, on its own loop). */
static void http_body_dispose(void *p)
{
    reg_body_release(*(reg_body_t **)p);
}

static void http_send(http_job_t *job, h2o_req_t *req)
{
    http_call_t *c = &job->call;
    if (c->status == 0)
        http_reply_error(c, 500, "The request handler did not reply");
    int head = h2o_memis(req->input.method.base, req->input.method.len, H2O_STRLIT("HEAD"));
    if (job->mark != NULL) {
        job->mark->replied = 1;
        job->mark->expect = head ? 0 : c->reply_len;
    }
    req->res.status = c->status;
    req->res.reason = http_reason(c->status);
    /* A handler with a media type of its own (GET /metrics) sends its 2xx in it; errors are JSON. */
    const char *type = job->handler && job->handler->media && c->status >= 200 && c->status < 300
                           ? job->handler->media
                           : job->content_type;
    h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_CONTENT_TYPE, NULL, type, strlen(type));
    /* In the request's pool: h2o keeps the pointer, and the job may go first. */
    h2o_iovec_t rid = h2o_strdup(&req->pool, c->request_id, strlen(c->request_id));
    h2o_add_header_by_str(&req->pool, &req->res.headers, H2O_STRLIT("x-request-id"), 0, NULL, rid.base,
                          rid.len);
    for (size_t i = 0; i < c->nreply_headers; i++)
        h2o_add_header_by_str(&req->pool, &req->res.headers, c->reply_headers[i].name,
                              strlen(c->reply_headers[i].name), 0, NULL, c->reply_headers[i].value,
                              strlen(c->reply_headers[i].value));
    /* Without it h2o 2.2.5 falls back to chunked encoding on HTTP/1.1. */
    req->res.content_length = c->reply_len;
    if (c->reply_body == NULL) {
        h2o_send_inline(req, c->reply ? c->reply : "", c->reply_len);
        return;
    }
    /* A prepared body goes out as it is, without h2o_send_inline's copy: the
     * request's pool holds a reference until h2o is done with the request. */
    reg_body_t **held = h2o_mem_alloc_shared(&req->pool, sizeof *held, http_body_dispose);
    *held = c->reply_body;
    reg_body_retain(*held);
    static h2o_generator_t generator = {NULL, NULL};
    h2o_iovec_t buf = h2o_iovec_init(c->reply, c->reply_len);
    h2o_start_response(req, &generator);
    if (head)
        h2o_send(req, NULL, 0, H2O_SEND_STATE_FINAL);
    else
        h2o_send(req, &buf, 1, H2O_SEND_STATE_FINAL);
}

/* Logs, replies and frees a job whose request is alive and which never left the loop. */
static void http_finish_on_loop(http_job_t *job, h2o_req_t *req)
{
    char target[HTTP_LOG_TARGET_MAX + 8];
    http_log_target(req, target);
    uint64_t us = http_count(job);
    http_send(job, req);
    http_log_request(job, target, "", us);
    http_audit_job_t *refused = http_audit_refusal(&job->call);
    if (refused != NULL) {
        http_server_t *srv = job->owner->srv;
        http_audit_submit(refused, srv->pool, srv->reg, &srv->audit_pending);
    }
    http_job_free(job);
}

/* ---- 4. Requests ---------------------------------------------------------------- */

static h2o_iovec_t http_header(const h2o_req_t *req, const h2o_token_t *token)
{
    ssize_t i = h2o_find_header(&req->headers, token, -1);
    return i < 0 ? h2o_iovec_init(NULL, 0) : req->headers.entries[i].value;
}

static int http_extended_profile(const http_server_t *srv, const h2o_req_t *req)
{
    if (srv->cfg->extended_profile)
        return 1;
    ssize_t i = h2o_find_header_by_str(&req->headers, H2O_STRLIT("confluent-accept-unknown-properties"), -1);
    return i >= 0 && h2o_lcstris(req->headers.entries[i].value.base, req->headers.entries[i].value.len,
                                 H2O_STRLIT("true"));
}

/*
 * h2o 2.2.5 keeps the SSL object in a struct of its own (lib/common/socket.c,
 * struct st_h2o_socket_ssl_t) that starts with these two fields and has no
 * accessor for them. The BIO h2o gives the SSL object carries the socket,
 * which tells whether the layout still holds (a newer h2o would fail here,
 * not misbehave).
 */
struct http_h2o_ssl_prefix {
    SSL_CTX *ssl_ctx;
    SSL *ossl;
};

static SSL *http_socket_ssl(h2o_socket_t *sock)
{
    if (sock == NULL || sock->ssl == NULL)
        return NULL;
    SSL *ssl = ((struct http_h2o_ssl_prefix *)sock->ssl)->ossl;
    if (ssl == NULL || BIO_get_data(SSL_get_rbio(ssl)) != sock)
        return NULL;
    return ssl;
}

/* The peer's address as text into out (cap bytes), "?" when unknown: taken first for each
 * request, since every log line and audit row names it. */
static void http_peer_address(h2o_req_t *req, char *out, size_t cap)
{
    struct sockaddr_storage ss;
    snprintf(out, cap, "?");
    if (req->conn->callbacks->get_peername(req->conn, (struct sockaddr *)&ss) != 0) {
        const void *at = ss.ss_family == AF_INET6 ? (const void *)&((struct sockaddr_in6 *)&ss)->sin6_addr
                                                  : (const void *)&((struct sockaddr_in *)&ss)->sin_addr;
        if ((ss.ss_family != AF_INET && ss.ss_family != AF_INET6) ||
            inet_ntop(ss.ss_family, at, out, (socklen_t)cap) == NULL)
            snprintf(out, cap, "?");
    }
}

/*
 * What auth.h needs of the connection: the Authorization header, the client
 * certificate's principal. 0, -1 with the reply set, or 1 with job->check
 * to verify off the loop (section 5).
 */
static int http_authenticate(http_job_t *job, h2o_req_t *req)
{
    http_call_t *c = &job->call;
    if (!auth_enabled(job->owner->srv->auth))
        return 0;
    h2o_iovec_t authorization = http_header(req, H2O_TOKEN_AUTHORIZATION);
    auth_request_t in = {.authorization = authorization.base, .authorization_len = authorization.len};
    SSL *ssl = http_socket_ssl(req->conn->callbacks->get_socket ? req->conn->callbacks->get_socket(req->conn)
                                                                : NULL);
    in.cert = tls_peer_principal(ssl, (config_principal_t)job->owner->srv->cfg->tls_client_principal,
                                 &in.cert_name);
    return auth_authenticate(job->owner->srv->auth, c, &in, &job->check);
}

/*
 * For a request refused before routing (413, 401): its route, only to tell
 * whether the refusal hit a write route (its audit row, http_audit.h). The
 * reply stays what it is.
 */
static void http_route_for_audit(http_job_t *job, const h2o_req_t *req)
{
    http_call_t *c = &job->call;
    c->method = http_method_parse(req->method.base, req->method.len);
    if (c->seg == NULL) {
        size_t path_len = req->query_at == SIZE_MAX ? req->path.len : req->query_at;
        if (http_call_parse_path(c, req->path.base, path_len) != 0)
            return;
        if (req->query_at != SIZE_MAX && http_call_parse_query(c, req->path.base + req->query_at + 1,
                                                               req->path.len - req->query_at - 1) != 0)
            return;
    }
    const http_handler_t *ignored;
    if (http_route_lookup(http_routes, http_route_count, c->method, c->seg, c->nseg, &c->route, &ignored) ==
        200)
        http_call_normalize_subject(c);
    else
        c->route = NULL;
}

/*
 * Everything between h2o and the handler, in the order JAX-RS applies it:
 * framing (400), body size, path, authentication (401: Jetty's security
 * handler in Confluent's rest-utils, so before routing and before the alias
 * filter), context paths, aliases, route (404/405), authorization (403: a filter on the
 * matched resource, as Confluent's security plugin's), Content-Type (415),
 * Accept (406), body encoding (400).
 * Returns 0 with job->handler set, -1 with an error reply in the call, or 1
 * when the credentials went to be verified (http_decode_routed goes on).
 */
static int http_decode_routed(http_job_t *job, h2o_req_t *req);

static int http_decode(http_job_t *job, h2o_req_t *req)
{
    const http_server_t *srv = job->owner->srv;
    http_call_t *c = &job->call;
    h2o_iovec_t accept = http_header(req, H2O_TOKEN_ACCEPT);
    const char *negotiated = http_media_negotiate(accept.base, accept.len);
    if (negotiated != NULL)
        job->content_type = negotiated;

    /* First: every reply, the earliest refusals too, is counted by its method (metrics.h). */
    c->method = http_method_parse(req->method.base, req->method.len);
    if (http_framing_check(req) != 0) {
        req->http1_is_persistent = 0; /* the body's end is unknown: nothing after it can be read */
        http_reply_error(c, 400, "Bad Request: the request has two different Content-Length headers");
        return -1;
    }
    if (req->entity.len > srv->cfg->max_body_bytes) {
        http_reply_error(c, 413, "Request body is larger than the limit of %zu bytes",
                         srv->cfg->max_body_bytes);
        http_route_for_audit(job, req);
        return -1;
    }
    size_t path_len = req->query_at == SIZE_MAX ? req->path.len : req->query_at;
    int rc = http_call_parse_path(c, req->path.base, path_len);
    if (rc == 0 && req->query_at != SIZE_MAX)
        rc = http_call_parse_query(c, req->path.base + req->query_at + 1, req->path.len - req->query_at - 1);
    if (rc == 404) {
        http_reply_error(c, rc, "HTTP 404 Not Found");
        return -1;
    }
    if (rc != 0) {
        http_reply_error(c, 400, "Invalid request target: bad percent-encoding or not UTF-8");
        return -1;
    }
    rc = http_authenticate(job, req);
    if (rc < 0)
        http_route_for_audit(job, req);
    return rc != 0 ? rc : http_decode_routed(job, req);
}

/* The rest of http_decode, once the principal is known. */
static int http_decode_routed(http_job_t *job, h2o_req_t *req)
{
    const http_server_t *srv = job->owner->srv;
    http_call_t *c = &job->call;
    size_t path_len = req->query_at == SIZE_MAX ? req->path.len : req->query_at;
    h2o_iovec_t accept = http_header(req, H2O_TOKEN_ACCEPT);
    c->authz = authz_current(srv->authz); /* the rules of this request, whatever SIGHUP does */
    if (http_call_apply_context(c, req->path.base, path_len,
                                req->query_at == SIZE_MAX ? NULL : req->path.base + req->query_at + 1,
                                req->query_at == SIZE_MAX ? 0 : req->path.len - req->query_at - 1) != 0)
        return -1;
    http_call_resolve_aliases(c);
    int rc = http_route_lookup(http_routes, http_route_count, c->method, c->seg, c->nseg, &c->route,
                               &job->handler);
    if (rc != 200) {
        http_reply_error(c, rc, rc == 404 ? "HTTP 404 Not Found" : "HTTP 405 Method Not Allowed");
        return -1;
    }
    http_call_normalize_subject(c);
    if (authz_check(c, http_route_need(c->route, c->method)) != 0)
        return -1;
    h2o_iovec_t ctype = http_header(req, H2O_TOKEN_CONTENT_TYPE);
    if ((c->method == HTTP_POST || c->method == HTTP_PUT) && !http_media_request_ok(ctype.base, ctype.len)) {
        http_reply_error(c, 415, "HTTP 415 Unsupported Media Type");
        return -1;
    }
    if (http_media_negotiate(accept.base, accept.len) == NULL && job->handler->media == NULL) {
        http_reply_error(c, 406, "HTTP 406 Not Acceptable");
        return -1;
    }
    c->body = req->entity.base;
    c->body_len = req->entity.base ? req->entity.len : 0;
    c->extended = http_extended_profile(srv, req);
    return http_charset_body(c); /* UTF-16 and UTF-32 bodies become UTF-8 (400 when invalid) */
}

/*
 * Abuse: each request is entered in its connection's ledger (http_abuse.h)
 * before anything is decoded, and the verdict is carried out here, inside
 * h2o's request path, where h2o itself sends GOAWAY on protocol errors.
 */
static void http_on_conn_close(void *data);

/* The connection a request came on; NULL for a socket this server did not accept. */
static http_conn_t *http_conn_of(h2o_req_t *req)
{
    h2o_socket_t *sock =
        req->conn->callbacks->get_socket ? req->conn->callbacks->get_socket(req->conn) : NULL;
    if (sock == NULL || sock->on_close.cb != http_on_conn_close)
        return NULL;
    return sock->on_close.data;
}

static void http_mark_dispose(void *p)
{
    http_mark_t *m = p;
    int delivered = m->replied && m->req->bytes_sent >= m->expect;
    http_abuse_on_end(&m->conn->abuse, &m->conn->loop->srv->abuse, delivered);
}

/*
 * Sends a connection away. HTTP/1.1: Connection: close after this reply.
 * HTTP/2: h2o 2.2.5 has no call to close one connection, and its GOAWAY
 * (enqueue_goaway) is static and needs h2o_http2_conn_t, whose header
 * Debian does not ship whole (http2_internal.h includes the missing khash.h).
 * So the socket is shut down under h2o: the client sees the connection end,
 * h2o's next read or write on it fails and h2o closes the connection the
 * way it closes one the peer dropped, freeing its streams. Input h2o read
 * already is still parsed, and each request in it gets the same refusal.
 */
static void http_send_away(h2o_req_t *req)
{
    req->http1_is_persistent = 0;
    if (req->version < 0x200)
        return;
    h2o_socket_t *sock =
        req->conn->callbacks->get_socket ? req->conn->callbacks->get_socket(req->conn) : NULL;
    int fd = sock ? h2o_socket_get_fd(sock) : -1;
    if (fd >= 0)
        shutdown(fd, SHUT_RDWR);
}

/* Decoded header bytes of a request, the way SETTINGS_MAX_HEADER_LIST_SIZE counts them. */
static size_t http_header_bytes(const h2o_req_t *req)
{
    size_t n = req->input.method.len + req->input.path.len + req->input.authority.len + 3 * 32;
    for (size_t i = 0; i < req->headers.size; i++)
        n += req->headers.entries[i].name->len + req->headers.entries[i].value.len + 32;
    return n;
}

/* Returns 0 to serve the request (job->mark set), -1 with a refusal in the call. */
static int http_police(http_job_t *job, h2o_req_t *req)
{
    http_conn_t *hc = http_conn_of(req);
    if (hc == NULL)
        return 0;
    const http_abuse_limits_t *lim = &job->owner->srv->abuse;
    int before = hc->abuse.sent_away;
    http_abuse_verdict_t v =
        http_abuse_on_request(&hc->abuse, lim, req->headers.size, http_header_bytes(req));
    if (v != HTTP_ABUSE_RESETS && v != HTTP_ABUSE_HEADERS) {
        job->mark = h2o_mem_alloc_shared(&req->pool, sizeof *job->mark, http_mark_dispose);
        *job->mark = (http_mark_t){.conn = hc, .req = req};
        return 0;
    }
    /* Once per connection: the line first, then the close the client may be waiting on. */
    if (before == 0) {
        char from[INET6_ADDRSTRLEN + 8];
        http_peer_address(req, from, sizeof from);
        if (v == HTTP_ABUSE_RESETS)
            log_warn_request(job->call.request_id,
                             "http: closing a connection from %s: %" PRIu64 " of its %" PRIu64
                             " requests went away before their reply (max.connection.resets %d)",
                             from, hc->abuse.resets, hc->abuse.requests, lim->max_resets);
        else
            log_warn_request(job->call.request_id,
                             "http: closing a connection from %s: a request with %zu header fields of %zu "
                             "bytes (max.request.headers %zu, max.request.header.bytes %zu)",
                             from, req->headers.size, http_header_bytes(req), lim->max_headers,
                             lim->max_header_bytes);
        http_send_away(req);
    }
    if (v == HTTP_ABUSE_RESETS)
        http_reply_error(&job->call, 429,
                         "Too many requests on this connection went away before their reply "
                         "(max.connection.resets); the connection is closed");
    else
        http_reply_error(&job->call, 431,
                         "Request header fields too large: at most %zu fields and %zu bytes "
                         "(max.request.headers, max.request.header.bytes)",
                         lim->max_headers, lim->max_header_bytes);
    return -1;
}

static void http_submit(http_job_t *job, h2o_req_t *req);
static int http_admit(http_job_t *job, h2o_req_t *req);
static void http_dispatch(http_job_t *job, h2o_req_t *req, int decoded);

/* The client's X-Request-Id when it is sane, else a new one (request_id.h). */
static void http_request_id(http_job_t *job, const h2o_req_t *req)
{
    ssize_t i = h2o_find_header_by_str(&req->headers, H2O_STRLIT("x-request-id"), -1);
    if (i >= 0 && request_id_sane(req->headers.entries[i].value.base, req->headers.entries[i].value.len)) {
        memcpy(job->call.request_id, req->headers.entries[i].value.base, req->headers.entries[i].value.len);
        job->call.request_id[req->headers.entries[i].value.len] = '\0';
    } else {
        request_id_new(job->call.request_id);
    }
}

static int http_on_req(h2o_handler_t *self, h2o_req_t *req)
{
    http_loop_t *loop = H2O_STRUCT_FROM_MEMBER(http_loop_t, ctx, req->conn->ctx);
    http_job_t *job = http_job_new(loop);
    http_request_id(job, req);
    http_conn_t *hc = http_conn_of(req);
    if (hc == NULL || hc->remote[0] == '\0')
        http_peer_address(req, job->call.remote, sizeof job->call.remote);
    if (hc != NULL && hc->remote[0] == '\0')
        memcpy(hc->remote, job->call.remote, sizeof hc->remote);
    else if (hc != NULL)
        memcpy(job->call.remote, hc->remote, sizeof job->call.remote);
    int decoded = http_police(job, req) == 0 ? http_decode(job, req) : -1;
    if (decoded == 1)
        http_submit(job, req); /* to the verifier; back in http_on_verified */
    else
        http_dispatch(job, req, decoded);
    return 0;
}

/* After http_decode (0 or -1): the handler's memory part, then a worker or the reply. */
static void http_dispatch(http_job_t *job, h2o_req_t *req, int decoded)
{
    if (decoded == 0) {
        const http_handler_t *h = job->handler;
        /* The memory part answers or declines; without one, straight to a worker. */
        http_outcome_t o = h->loop ? h->loop(&job->call) : HTTP_TO_DB;
        if (o == HTTP_TO_DB && h->db != NULL && http_admit(job, req) == 0) {
            http_submit(job, req);
            return;
        }
        if (o == HTTP_TO_DB && h->db == NULL)
            http_reply_error(&job->call, 500, "The request handler has no database part");
    }
    http_finish_on_loop(job, req);
}

/* ---- 5. Database round trips --------------------------------------------------- */

static void http_guard_dispose(void *p)
{
    http_guard_t *guard = p;
    if (guard->job != NULL) {
        guard->job->req = NULL;
        guard->job->mark = NULL; /* in the same pool */
        atomic_store(&guard->job->gone, 1);
    }
}

/* The jobs a connection has out, counted per loop (HTTP/2 streams share one). */
static size_t http_conn_jobs(http_loop_t *loop, h2o_conn_t *conn)
{
    return (size_t)(uintptr_t)hmap_get(&loop->conn_jobs, &conn, sizeof conn);
}

static void http_conn_jobs_add(http_loop_t *loop, h2o_conn_t *conn, int delta)
{
    size_t n = http_conn_jobs(loop, conn) + (size_t)delta;
    if (n == 0)
        hmap_del(&loop->conn_jobs, &conn, sizeof conn);
    else
        hmap_put(&loop->conn_jobs, &conn, sizeof conn, (void *)(uintptr_t)n);
}

/*
 * Bounds the database queue before a job joins it: one connection may have
 * max.connection.jobs out (429 beyond: HTTP/2 rapid reset, a client's own
 * flood), one loop max.queued.jobs (503 beyond: the database cannot keep up).
 * Returns 0, or -1 with the refusal in the call.
 */
static int http_admit(http_job_t *job, h2o_req_t *req)
{
    const server_config_t *cfg = job->owner->srv->cfg;
    if (cfg->max_connection_jobs > 0 &&
        http_conn_jobs(job->owner, req->conn) >= (size_t)cfg->max_connection_jobs) {
        http_reply_error(&job->call, 429,
                         "Too many requests in flight on this connection (%d, max.connection.jobs)",
                         cfg->max_connection_jobs);
        return -1;
    }
    if (cfg->max_queued_jobs > 0 && job->owner->jobs_out >= (size_t)cfg->max_queued_jobs) {
        http_reply_error(
            &job->call, 503,
            "The server is overloaded: %d database jobs are waiting (max.queued.jobs); retry later",
            cfg->max_queued_jobs);
        return -1;
    }
    return 0;
}

/* Writes (and lookups: anything but GET) wait for the node's memory to match the
 * primary the connection reaches, and their transactions are fenced to it
 * (registry_check_primary); 0 after the reply. */
static int http_job_primary_ok(http_call_t *c, store_t *db)
{
    reg_error_t err;
    if (registry_check_primary(c->reg, db, &err) == REG_OK)
        return 1;
    http_reply_reg_error(c, &err);
    return 0;
}

/* Worker thread: whether the job's database part may run; else it has its
 * reply. *checked: registry_check_primary let it through. */
static int http_job_may_run(http_job_t *job, store_t *db, int *checked)
{
    *checked = 0;
    /* A request reset before its turn (HTTP/2 RST_STREAM) must not run: a
     * cancelled registration is never committed. */
    if (atomic_load(&job->gone))
        http_reply_error(&job->call, 499, "The client went away before the request ran");
    else if (db == NULL)
        http_reply_error(&job->call, 50001, "Error while connecting to the database");
    else if (job->call.method == HTTP_GET || (*checked = http_job_primary_ok(&job->call, db)))
        return 1;
    return 0;
}

/* Worker thread, after the database part: the job goes home to its loop. */
static void http_job_home(http_job_t *job, store_t *db, int checked)
{
    http_audit_job_t *refused = db != NULL ? http_audit_refusal(&job->call) : NULL;
    registry_t *reg = job->owner->srv->reg;
    /* The job belongs to the loop from here on. */
    h2o_multithread_send_message(&job->owner->done_recv, &job->msg);
    /* A refusal's row after the reply has left: it never delays the answer. */
    if (refused != NULL)
        http_audit_write(refused, reg, db);
    /* A failover its writes found: the reload starts after the reply too. */
    if (checked)
        registry_check_primary_after(reg, db);
    if (db != NULL)
        registry_act_as(db, NULL);
}

/* http_call_home's way: c is the call of a job. */
static void http_job_call_home(http_call_t *c, store_t *db)
{
    http_job_t *job = (http_job_t *)((char *)c - offsetof(http_job_t, call));
    http_job_home(job, db, job->checked);
}

/*
 * Worker thread: the handler's database part, then home to the owning loop
 * (a db_batch handler sends it home itself, maybe later: http.h). A 5xx may
 * mean the connection died, so the pool gets a fresh one; a needless
 * reconnect costs milliseconds, a dead connection every request.
 */
static void http_job_run_db(dbpool_job_t *pool_job, store_t *db)
{
    http_job_t *job = (http_job_t *)pool_job;
    if (!http_job_may_run(job, db, &job->checked)) {
        http_job_home(job, db, job->checked);
    } else if (job->batchable) {
        http_call_t *c = &job->call;
        job->handler->db_batch(&c, 1, db);
        registry_act_as(db, NULL); /* its calls may still be queued, acted for on another connection */
    } else {
        /* Whom the changes on db are for: their audit rows name it (registry.h section 7). */
        http_call_act_as(&job->call, db);
        job->handler->db(&job->call, db);
        http_job_home(job, db, job->checked);
    }
}

/* Jobs of one handler staged in one pass (http_on_staged_flush), for its db_batch. */
typedef struct http_batch {
    dbpool_job_t pool_job; /* first: dbpool hands this pointer back */
    size_t n;
    http_job_t *jobs[HTTP_BATCH_MAX];
} http_batch_t;

/* Worker thread: the batch's database parts in one call; the jobs that may not
 * run go home at once, the others as db_batch sends them. */
static void http_batch_run_db(dbpool_job_t *pool_job, store_t *db)
{
    http_batch_t *batch = (http_batch_t *)pool_job;
    http_call_t *calls[HTTP_BATCH_MAX];
    size_t n = 0;
    for (size_t i = 0; i < batch->n; i++) {
        http_job_t *job = batch->jobs[i];
        if (http_job_may_run(job, db, &job->checked))
            calls[n++] = &job->call;
        else
            http_job_home(job, db, job->checked);
    }
    if (n > 0) {
        batch->jobs[0]->handler->db_batch(calls, n, db);
        registry_act_as(db, NULL); /* as http_job_run_db */
    }
    free(batch);
}

/*
 * Verifier thread: the slow hash (auth.h), then home the same way as a
 * database job. A request reset before its turn is not verified at all.
 * Why threads of its own and not the database workers: a hash holds its
 * thread for tens of milliseconds, so a flood of new passwords on the
 * db.threads workers would stall every database request instead of every
 * loop. And why niced: with the cores busy hashing, the loops and workers
 * would wait for a time slice at every hop of a request. Measured with 4
 * clients sending new wrong passwords, 2 loops, 2 workers, 2 cores: a cached
 * client's PUT /config took 535 ms (median) with the hashes on the database
 * workers, 15-20 ms on verifier threads, 0.7 ms on niced ones (1 ms with no
 * guesses at all); docs/security.md, "Where the hash runs".
 */
static void http_job_run_verify(dbpool_job_t *pool_job, store_t *db)
{
    static _Thread_local int niced; /* on Linux a thread has a nice of its own */
    if (!niced) {
        niced = 1;
        setpriority(PRIO_PROCESS, (id_t)gettid(), HTTP_VERIFIER_NICE); /* best effort */
    }
    (void)db;
    http_job_t *job = (http_job_t *)pool_job;
    if (!atomic_load(&job->gone))
        auth_check_run(job->check);
    h2o_multithread_send_message(&job->owner->done_recv, &job->msg);
}

/*
 * Hands a job to the pool (to the verifier while it carries a check).
 * Whatever the memory part left in the reply is
 * dropped, and the body is cut off: the memory part decoded what the
 * database part needs into the call, and HTTP/2 frees the request (and its
 * body) as soon as the client resets the stream.
 */
static void http_submit(http_job_t *job, h2o_req_t *req)
{
    http_call_t *c = &job->call;
    http_call_drop_reply(c);
    job->batchable = job->handler && job->handler->db_batch && c->body_len <= HTTP_BATCH_BODY_MAX;
    c->body = NULL;
    c->body_len = 0;
    job->log_target = http_log_target_new(req);
    job->guard = h2o_mem_alloc_shared(&req->pool, sizeof *job->guard, http_guard_dispose);
    job->guard->job = job;
    job->req = req;
    job->conn = req->conn;
    job->pool_job.run = job->check != NULL ? http_job_run_verify : http_job_run_db;
    http_loop_t *loop = job->owner;
    loop->jobs_out++;
    http_conn_jobs_add(loop, job->conn, +1);
    job->staged_next = NULL;
    *loop->staged_tail = job;
    loop->staged_tail = &job->staged_next;
    if (!h2o_timeout_is_linked(&loop->staged_flush))
        h2o_timeout_link(loop->ctx.loop, &loop->ctx.zero_timeout, &loop->staged_flush);
}

/* Loop thread: a batch to the pool; a batch of one goes as the job it holds. */
static void http_batch_submit(http_loop_t *loop, http_batch_t *batch)
{
    if (batch->n == 1) {
        dbpool_submit(loop->srv->pool, &batch->jobs[0]->pool_job);
        free(batch);
        return;
    }
    batch->pool_job.run = http_batch_run_db;
    dbpool_submit(loop->srv->pool, &batch->pool_job);
}

/*
 * Loop thread, once the pass over the sockets that staged jobs is over (the
 * loop runs its timeouts after every socket's callbacks). Why jobs wait for
 * it: a client's HEADERS, DATA and RST_STREAM often come in one read, and a
 * job handed over at once could start on a worker before h2o reads on to
 * the reset; staged, the reset has marked it gone first and it never runs
 * (test_overload.py, RapidReset: handed over at once, 1741 of 20000 reset
 * registrations committed on a 2-core machine). Jobs whose handler has a
 * db_batch go to one worker together, so the registrations of one pass
 * wake one worker once (docs/performance.md).
 */
static void http_on_staged_flush(h2o_timeout_entry_t *entry)
{
    http_loop_t *loop = H2O_STRUCT_FROM_MEMBER(http_loop_t, staged_flush, entry);
    http_job_t *job = loop->staged;
    loop->staged = NULL;
    loop->staged_tail = &loop->staged;
    http_batch_t *batch = NULL;
    while (job != NULL) {
        http_job_t *next = job->staged_next;
        if (job->check == NULL && job->batchable) {
            if (batch && (batch->jobs[0]->handler != job->handler || batch->n == HTTP_BATCH_MAX)) {
                http_batch_submit(loop, batch);
                batch = NULL;
            }
            if (!batch)
                batch = xcalloc(1, sizeof *batch);
            batch->jobs[batch->n++] = job;
        } else {
            dbpool_submit(job->check != NULL ? loop->srv->verifier : loop->srv->pool, &job->pool_job);
        }
        job = next;
    }
    if (batch)
        http_batch_submit(loop, batch);
}

/*
 * Loop thread: a verification is back. The request goes on from where
 * http_decode left it (it may go to the database pool next, with a new
 * guard), or, its client gone, ends here (and a refusal nobody receives
 * gets no audit row, like a database job that never ran).
 */
static void http_on_verified(http_job_t *job)
{
    auth_check_t *check = job->check;
    job->check = NULL;
    int rc = auth_check_finish(job->owner->srv->auth, &job->call, check);
    h2o_req_t *req = job->req;
    if (req == NULL) {
        uint64_t us = http_count(job);
        http_log_request(job, job->log_target, " (client gone, reply dropped)", us);
        http_job_free(job);
        return;
    }
    job->guard->job = NULL;
    job->guard = NULL;
    job->req = NULL;
    free(job->log_target);
    job->log_target = NULL;
    if (rc != 0)
        http_route_for_audit(job, req);
    http_dispatch(job, req, rc == 0 ? http_decode_routed(job, req) : -1);
}

/* Loop thread: finished jobs, replied to only if h2o still has their request. */
static void http_on_jobs_done(h2o_multithread_receiver_t *recv, h2o_linklist_t *messages)
{
    http_loop_t *loop = H2O_STRUCT_FROM_MEMBER(http_loop_t, done_recv, recv);
    while (!h2o_linklist_is_empty(messages)) {
        h2o_multithread_message_t *msg =
            H2O_STRUCT_FROM_MEMBER(h2o_multithread_message_t, link, messages->next);
        h2o_linklist_unlink(&msg->link);
        http_job_t *job = H2O_STRUCT_FROM_MEMBER(http_job_t, msg, msg);
        loop->jobs_out--;
        http_conn_jobs_add(loop, job->conn, -1);
        if (job->check != NULL) {
            http_on_verified(job);
            continue;
        }
        uint64_t us = http_count(job);
        if (job->req != NULL) {
            job->guard->job = NULL;
            http_send(job, job->req);
            http_log_request(job, job->log_target, "", us);
        } else {
            http_log_request(job, job->log_target, " (client gone, reply dropped)", us);
        }
        http_job_free(job);
    }
}

/* ---- 6. Listening socket, TLS and h2o settings ----------------------------------- */

static char *http_error_new(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *http_error_new(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = xvasprintf(fmt, ap);
    va_end(ap);
    return msg;
}

/* Splits "host:port" / "[v6]:port" into its parts (host "" = every interface). */
static int http_split_listen(const char *listen, char *host, size_t hcap, char *port, size_t pcap)
{
    const char *colon = strrchr(listen, ':');
    if (colon == NULL)
        return -1;
    const char *h = listen;
    size_t hlen = (size_t)(colon - listen);
    if (hlen >= 2 && h[0] == '[' && h[hlen - 1] == ']')
        h++, hlen -= 2;
    if (hlen >= hcap || strlen(colon + 1) >= pcap)
        return -1;
    memcpy(host, h, hlen);
    host[hlen] = '\0';
    strcpy(port, colon + 1);
    return 0;
}

static int http_bind_one(const struct addrinfo *ai)
{
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
    if (fd < 0)
        return -1;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    /* Linux hands TCP_NODELAY down to every accepted socket. */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0 || listen(fd, SOMAXCONN) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

static void http_format_address(int fd, char *out, size_t cap)
{
    struct sockaddr_storage ss;
    socklen_t len = sizeof ss;
    char host[INET6_ADDRSTRLEN] = "?";
    int port = 0;
    if (getsockname(fd, (struct sockaddr *)&ss, &len) == 0) {
        if (ss.ss_family == AF_INET6) {
            struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
            inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof host);
            port = ntohs(s6->sin6_port);
            snprintf(out, cap, "[%s]:%d", host, port);
            return;
        }
        struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
        inet_ntop(AF_INET, &s4->sin_addr, host, sizeof host);
        port = ntohs(s4->sin_port);
    }
    snprintf(out, cap, "%s:%d", host, port);
}

/* One listening socket; every loop watches a dup of it (no SO_REUSEPORT: a second server must fail). */
static int http_listen(http_server_t *srv, char **error)
{
    char host[256], port[16];
    if (http_split_listen(srv->cfg->listen, host, sizeof host, port, sizeof port) != 0) {
        *error = http_error_new("invalid listen address '%s'", srv->cfg->listen);
        return -1;
    }
    struct addrinfo hints = {.ai_flags = AI_PASSIVE, .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    struct addrinfo *res = NULL;
    int gai = getaddrinfo(host[0] ? host : NULL, port, &hints, &res);
    if (gai != 0) {
        *error = http_error_new("cannot listen on %s: %s", srv->cfg->listen, gai_strerror(gai));
        return -1;
    }
    int fd = -1, err = 0;
    for (struct addrinfo *ai = res; ai != NULL && fd < 0; ai = ai->ai_next) {
        fd = http_bind_one(ai);
        if (fd < 0)
            err = errno;
    }
    freeaddrinfo(res);
    if (fd < 0) {
        *error = http_error_new("cannot listen on %s: %s", srv->cfg->listen, strerror(err));
        return -1;
    }
    srv->listen_fd = fd;
    http_format_address(fd, srv->address, sizeof srv->address);
    return 0;
}

/* tls.h's context with h2o's ALPN list: h2o_alpn_protocols, not
 * h2o_http2_alpn_protocols, which lacks http/1.1. */
static SSL_CTX *http_tls_ctx_new(const server_config_t *cfg, char **error)
{
    SSL_CTX *ctx = tls_ctx_new(cfg, error);
    if (ctx != NULL)
        h2o_ssl_register_alpn_protocols(ctx, h2o_alpn_protocols);
    return ctx;
}

static int http_tls_setup(http_server_t *srv, char **error)
{
    if (srv->cfg->tls_cert == NULL)
        return 0;
    srv->ssl_ctx = http_tls_ctx_new(srv->cfg, error);
    return srv->ssl_ctx ? 0 : -1;
}

static void http_h2o_config(http_server_t *srv)
{
    h2o_config_init(&srv->config);
    srv->config_inited = 1;
    srv->config.server_name = h2o_iovec_init(H2O_STRLIT("schema-registry"));
    /*
     * Above this h2o refuses the body itself: HTTP/1.1 clients get a bare 413,
     * HTTP/2 clients a stream reset. Below it the body reaches http_decode,
     * which answers a JSON 413 over either protocol.
     */
    srv->config.max_request_entity_size = 4 * srv->cfg->max_body_bytes;
    srv->config.http2.graceful_shutdown_timeout = HTTP_DRAIN_MS / 2;
    /* Slowloris: h2o arms the HTTP/1.1 timer when a request (or the wait for the
     * next one) begins and does not re-arm it per byte, so a client dripping a
     * header byte at a time is closed when it runs out. HTTP/2's idle timer is
     * re-armed by every frame (docs/security.md: what remains). */
    srv->config.http1.req_timeout = (uint64_t)srv->cfg->http1_request_timeout_ms;
    srv->config.http2.idle_timeout = (uint64_t)srv->cfg->http2_idle_timeout_ms;
    srv->config.http2.max_concurrent_requests_per_connection =
        (size_t)srv->cfg->http2_max_concurrent_requests;
    h2o_hostconf_t *host =
        h2o_config_register_host(&srv->config, h2o_iovec_init(H2O_STRLIT("default")), 65535);
    h2o_pathconf_t *path = h2o_config_register_path(host, "/", 0);
    h2o_handler_t *handler = h2o_create_handler(path, sizeof *handler);
    handler->on_req = http_on_req;
}

/* ---- 7. Loops ------------------------------------------------------------------------ */

static void http_on_accept(h2o_socket_t *listener, const char *err);

static void http_on_accept_resume(h2o_timeout_entry_t *entry)
{
    http_loop_t *loop = H2O_STRUCT_FROM_MEMBER(http_loop_t, accept_resume, entry);
    loop->accept_paused = 0;
    if (loop->listener != NULL)
        h2o_socket_read_start(loop->listener, http_on_accept);
}

/*
 * Out of descriptors, or at max.connections: a listening socket stays
 * readable, and reading it again at once spins the loop at 100% CPU. Stop
 * reading it for HTTP_ACCEPT_PAUSE_MS; waiting clients stay in the backlog.
 */
static void http_pause_accepting(http_loop_t *loop, const char *why)
{
    if (!loop->accept_paused)
        log_warn("http: not accepting connections for %d ms: %s", HTTP_ACCEPT_PAUSE_MS, why);
    loop->accept_paused = 1;
    h2o_socket_read_stop(loop->listener);
    h2o_timeout_link(loop->ctx.loop, &loop->accept_pause, &loop->accept_resume);
}

/* On the loop that accepted the connection (h2o closes a socket on its own loop). */
static void http_on_conn_close(void *data)
{
    http_conn_t *hc = data;
    http_loop_t *loop = hc->loop;
    SSL_CTX_free(hc->ssl_ctx);
    free(hc);
    atomic_fetch_sub(&loop->nconns, 1);
    atomic_fetch_sub(&loop->srv->connections, 1);
}

/* An accepted connection (fd) served from now on by this loop, on its own
 * thread: h2o binds a socket's buffers to the thread that makes it. */
static void http_adopt(http_loop_t *loop, int fd)
{
    if (loop->stopping) {
        close(fd);
        atomic_fetch_sub(&loop->nconns, 1);
        atomic_fetch_sub(&loop->srv->connections, 1);
        return;
    }
    h2o_socket_t *sock = h2o_evloop_socket_create(loop->ctx.loop, fd, H2O_SOCKET_FLAG_IS_ACCEPTED_CONNECTION);
    http_conn_t *hc = xmalloc(sizeof *hc);
    hc->loop = loop;
    hc->ssl_ctx = loop->accept_ctx.ssl_ctx;
    if (hc->ssl_ctx != NULL)
        SSL_CTX_up_ref(hc->ssl_ctx);
    hc->remote[0] = '\0';
    http_abuse_conn_init(&hc->abuse, &loop->srv->abuse);
    sock->on_close.cb = http_on_conn_close;
    sock->on_close.data = hc;
    h2o_accept(&loop->accept_ctx, sock);
}

/* A connection one loop accepted for another: the descriptor travels in the message. */
typedef struct http_handoff {
    h2o_multithread_message_t super;
    int fd;
} http_handoff_t;

static void http_on_handoff(h2o_multithread_receiver_t *recv, h2o_linklist_t *messages)
{
    http_loop_t *loop = H2O_STRUCT_FROM_MEMBER(http_loop_t, handoff_recv, recv);
    while (!h2o_linklist_is_empty(messages)) {
        http_handoff_t *h = H2O_STRUCT_FROM_MEMBER(http_handoff_t, super.link, messages->next);
        h2o_linklist_unlink(&h->super.link);
        http_adopt(loop, h->fd);
        free(h);
        atomic_fetch_sub(&loop->incoming, 1);
    }
}

/* The loop serving the fewest connections, from's own on a tie; none that stopped. */
static http_loop_t *http_least_loaded(http_server_t *srv, http_loop_t *from)
{
    http_loop_t *best = from;
    int least = atomic_load(&from->nconns);
    for (size_t i = 0; i < srv->nloops; i++) {
        http_loop_t *l = &srv->loops[i];
        int n = atomic_load(&l->nconns);
        if (l != from && n < least && !atomic_load(&l->refusing)) {
            best = l;
            least = n;
        }
    }
    return best;
}

/* fd, accepted by from, to the loop with the fewest connections. The hand-over
 * and a stop cannot cross (both sides sequentially consistent): either the
 * stopping loop sees the hand-over coming (http_loop_idle waits for it) or
 * the accepting one sees the stop and keeps the connection. */
static void http_hand_over(http_loop_t *from, int fd)
{
    http_loop_t *to = http_least_loaded(from->srv, from);
    if (to != from) {
        atomic_fetch_add(&to->nconns, 1);
        atomic_fetch_add(&to->incoming, 1);
        if (!atomic_load(&to->refusing)) {
            http_handoff_t *h = xcalloc(1, sizeof *h);
            h->fd = fd;
            h2o_multithread_send_message(&to->handoff_recv, &h->super);
            return;
        }
        atomic_fetch_sub(&to->incoming, 1);
        atomic_fetch_sub(&to->nconns, 1);
    }
    atomic_fetch_add(&from->nconns, 1);
    http_adopt(from, fd);
}

static void http_on_accept(h2o_socket_t *listener, const char *err)
{
    http_loop_t *loop = listener->data;
    http_server_t *srv = loop->srv;
    if (err != NULL)
        return;
    /*
     * Every loop is woken for each connection on the shared socket and the
     * first awake accepts it, so connections opened together landed on
     * whichever loop woke first: the 16 connections of the write bench all on
     * one loop in two runs of three, 13:3 of h2load's 16 in one, the other
     * loop idle (docs/performance.md). The accepting loop hands each to the
     * loop serving the fewest, which adopts it on its own thread.
     */
    for (int i = 0; i < 16; i++) {
        if (atomic_load(&srv->connections) >= srv->max_connections) {
            http_pause_accepting(loop, "max.connections reached");
            return;
        }
        int fd = accept4(loop->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM)
                http_pause_accepting(loop, strerror(errno));
            return;
        }
        atomic_fetch_add(&srv->connections, 1);
        http_hand_over(loop, fd);
    }
}

/*
 * Stop, on the loop thread: no new connections, Connection: close on HTTP/1.1
 * replies, GOAWAY on HTTP/2, and idle connections closed at once by
 * shortening their timeouts to zero (h2o 2.2.5 has no call for that).
 */
static void http_on_stop(h2o_multithread_receiver_t *recv, h2o_linklist_t *messages)
{
    http_loop_t *loop = H2O_STRUCT_FROM_MEMBER(http_loop_t, stop_recv, recv);
    while (!h2o_linklist_is_empty(messages))
        h2o_linklist_unlink(messages->next);
    if (loop->stopping)
        return;
    loop->stopping = 1;
    atomic_store(&loop->refusing, 1);
    h2o_timeout_unlink(&loop->accept_resume);
    if (loop->listener != NULL) {
        h2o_socket_read_stop(loop->listener);
        h2o_socket_close(loop->listener);
        loop->listener = NULL;
    }
    /* Only with HTTP/2 connections: the GOAWAY timer would hold every stop for a second. */
    if (!h2o_linklist_is_empty(&loop->ctx.http2._conns))
        h2o_context_request_shutdown(&loop->ctx);
    loop->ctx.shutdown_requested = 1;
    loop->ctx.http1.req_timeout.timeout = 0;
    loop->ctx.http2.idle_timeout.timeout = 0;
    loop->ctx.handshake_timeout.timeout = 0;
}

/* Nothing left that would touch the context: no connection, job, or timer. */
static int http_loop_idle(http_loop_t *loop)
{
    h2o_context_t *ctx = &loop->ctx;
    if (loop->jobs_out > 0 || atomic_load(&loop->incoming) > 0 || !h2o_linklist_is_empty(&ctx->http1._conns) ||
        !h2o_linklist_is_empty(&ctx->http2._conns))
        return 0;
    /* With no HTTP/2 connection left the GOAWAY resend has nothing to do. */
    h2o_timeout_unlink(&ctx->http2._graceful_shutdown_timeout);
    for (h2o_linklist_t *n = ctx->loop->_timeouts.next; n != &ctx->loop->_timeouts; n = n->next) {
        h2o_timeout_t *t = H2O_STRUCT_FROM_MEMBER(h2o_timeout_t, _link, n);
        if (!h2o_linklist_is_empty(&t->_entries))
            return 0;
    }
    return 1;
}

/* Loop thread: new connections from now on use the new TLS context; open ones keep theirs. */
static void http_on_tls_reload(h2o_multithread_receiver_t *recv, h2o_linklist_t *messages)
{
    http_loop_t *loop = H2O_STRUCT_FROM_MEMBER(http_loop_t, tls_recv, recv);
    while (!h2o_linklist_is_empty(messages))
        h2o_linklist_unlink(messages->next);
    pthread_mutex_lock(&loop->srv->ready_lock);
    SSL_CTX *fresh = loop->tls_pending;
    loop->tls_pending = NULL;
    loop->tls_msg_queued = 0;
    pthread_mutex_unlock(&loop->srv->ready_lock);
    if (fresh == NULL)
        return;
    SSL_CTX_free(loop->accept_ctx.ssl_ctx);
    loop->accept_ctx.ssl_ctx = fresh;
}

static int http_loop_init(http_loop_t *loop, char **error)
{
    http_server_t *srv = loop->srv;
    h2o_context_init(&loop->ctx, h2o_evloop_create(), &srv->config);
    h2o_multithread_register_receiver(loop->ctx.queue, &loop->done_recv, http_on_jobs_done);
    h2o_multithread_register_receiver(loop->ctx.queue, &loop->stop_recv, http_on_stop);
    h2o_multithread_register_receiver(loop->ctx.queue, &loop->handoff_recv, http_on_handoff);
    h2o_multithread_register_receiver(loop->ctx.queue, &loop->tls_recv, http_on_tls_reload);
    h2o_timeout_init(loop->ctx.loop, &loop->accept_pause, HTTP_ACCEPT_PAUSE_MS);
    loop->accept_resume.cb = http_on_accept_resume;
    loop->staged_tail = &loop->staged;
    loop->staged_flush.cb = http_on_staged_flush;
    loop->inited = 1;
    loop->accept_ctx.ctx = &loop->ctx;
    loop->accept_ctx.hosts = srv->config.hosts;
    loop->accept_ctx.ssl_ctx = srv->ssl_ctx;
    if (srv->ssl_ctx != NULL)
        SSL_CTX_up_ref(srv->ssl_ctx); /* each loop holds its own: SIGHUP swaps them one loop at a time */

    int fd = fcntl(srv->listen_fd, F_DUPFD_CLOEXEC, 0);
    if (fd < 0) {
        *error = http_error_new("cannot duplicate the listening socket: %s", strerror(errno));
        return -1;
    }
    loop->listen_fd = fd;
    loop->listener = h2o_evloop_socket_create(loop->ctx.loop, fd, H2O_SOCKET_FLAG_DONT_READ);
    loop->listener->data = loop;
    atomic_store(&loop->refusing, 0); /* set up: other loops may hand it connections from now on */
    h2o_socket_read_start(loop->listener, http_on_accept);
    return 0;
}

/* Tells http_server_start how this loop's set-up went; error is taken over. */
static void http_loop_report(http_loop_t *loop, char *error)
{
    http_server_t *srv = loop->srv;
    pthread_mutex_lock(&srv->ready_lock);
    if (error != NULL && srv->ready_error == NULL)
        srv->ready_error = error;
    else
        free(error);
    srv->nready++;
    pthread_cond_signal(&srv->ready_cond);
    pthread_mutex_unlock(&srv->ready_lock);
}

/*
 * Frees the loop's h2o objects. Returns -1 (and frees nothing) when
 * connections outlived the drain: h2o would assert on their timers, so the
 * memory is left to the process exit.
 */
static int http_loop_dispose(http_loop_t *loop)
{
    if (!loop->inited)
        return 0;
    if (loop->listener != NULL) {
        h2o_socket_read_stop(loop->listener);
        h2o_socket_close(loop->listener);
        loop->listener = NULL;
    }
    h2o_evloop_run(loop->ctx.loop, 0); /* let the closed listener go */
    http_log_flush(loop);
    if (!http_loop_idle(loop))
        return -1;
    h2o_multithread_unregister_receiver(loop->ctx.queue, &loop->done_recv);
    h2o_multithread_unregister_receiver(loop->ctx.queue, &loop->stop_recv);
    h2o_multithread_unregister_receiver(loop->ctx.queue, &loop->handoff_recv);
    h2o_multithread_unregister_receiver(loop->ctx.queue, &loop->tls_recv);
    SSL_CTX_free(loop->accept_ctx.ssl_ctx);
    SSL_CTX_free(loop->tls_pending);
    loop->accept_ctx.ssl_ctx = loop->tls_pending = NULL;
    h2o_timeout_unlink(&loop->accept_resume);
    h2o_timeout_dispose(loop->ctx.loop, &loop->accept_pause);
    hmap_clear(&loop->conn_jobs);
    h2o_evloop_t *evloop = loop->ctx.loop;
    h2o_multithread_queue_t *queue = loop->ctx.queue;
    h2o_context_dispose(&loop->ctx);
    free(queue); /* h2o 2.2.5's destroy_queue closes the queue but never frees it */
    h2o_evloop_destroy(evloop);
    loop->inited = 0;
    return 0;
}

/*
 * The loop thread, from set-up to disposal. After a stop it drains for
 * HTTP_DRAIN_MS, then waits for every job it handed to the database pool:
 * a job's way home is this loop's queue, which must outlive it.
 */
static void *http_loop_main(void *arg)
{
    http_loop_t *loop = arg;
    char *error = NULL;
    int ok = http_loop_init(loop, &error) == 0;
    http_loop_report(loop, error);
    if (ok) {
        while (!loop->stopping) {
            h2o_evloop_run(loop->ctx.loop, INT32_MAX);
            http_log_flush(loop);
        }
        uint64_t deadline = clock_now_ms() + HTTP_DRAIN_MS;
        while (!http_loop_idle(loop) && clock_now_ms() < deadline) {
            h2o_evloop_run(loop->ctx.loop, 10);
            http_log_flush(loop);
        }
        while (loop->jobs_out > 0) {
            h2o_evloop_run(loop->ctx.loop, 10);
            http_log_flush(loop);
        }
    }
    loop->leftover = http_loop_dispose(loop) != 0;
    return NULL;
}

/* ---- 8. Start and stop ------------------------------------------------------------------ */

/* Starts every loop thread and waits until each has set itself up (or failed to). */
static int http_spawn_loops(http_server_t *srv, char **error)
{
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, HTTP_STACK_BYTES);
    size_t started = 0;
    /* Before any loop runs: the first to accept looks at every other, and the
     * first to answer a scrape reads every loop's connection count. */
    for (size_t i = 0; i < srv->nloops; i++) {
        atomic_init(&srv->loops[i].refusing, 1); /* until it has registered its receivers */
        metrics_use_thread_connections(srv->metrics, i, &srv->loops[i].nconns);
    }
    for (size_t i = 0; i < srv->nloops; i++) {
        srv->loops[i].srv = srv;
        srv->loops[i].index = (int)i;
        srv->loops[i].metrics = metrics_shard(srv->metrics, i);
        int rc = pthread_create(&srv->loops[i].thread, &attr, http_loop_main, &srv->loops[i]);
        if (rc != 0) {
            *error = http_error_new("cannot start HTTP thread: %s", strerror(rc));
            break;
        }
        srv->loops[i].running = 1;
        started++;
    }
    pthread_attr_destroy(&attr);
    pthread_mutex_lock(&srv->ready_lock);
    while (srv->nready < started)
        pthread_cond_wait(&srv->ready_cond, &srv->ready_lock);
    char *loop_error = srv->ready_error;
    srv->ready_error = NULL;
    pthread_mutex_unlock(&srv->ready_lock);
    if (*error == NULL)
        *error = loop_error;
    else
        free(loop_error);
    return *error == NULL ? 0 : -1;
}

/* Joins the loop if its thread ends before deadline_ms (monotonic); 1 when it did. */
static int http_join_until(http_loop_t *loop, uint64_t deadline_ms)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until); /* pthread_timedjoin_np counts on CLOCK_REALTIME */
    uint64_t now = clock_now_ms(), wait = deadline_ms > now ? deadline_ms - now : 0;
    until.tv_sec += (time_t)(wait / 1000);
    until.tv_nsec += (long)(wait % 1000) * 1000000;
    if (until.tv_nsec >= 1000000000) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000;
    }
    return pthread_timedjoin_np(loop->thread, NULL, &until) == 0;
}

/*
 * Each loop stops accepting and drains; a loop ends only when every job it
 * handed to the pool is back. Past HTTP_DRAIN_MS, the queries still running
 * are cancelled (and queued jobs answered without a connection) once a
 * second, so a stuck query cannot hold a shutdown forever.
 */
static void http_stop_loops(http_server_t *srv)
{
    for (size_t i = 0; i < srv->nloops; i++)
        if (srv->loops[i].inited)
            h2o_multithread_send_message(&srv->loops[i].stop_recv, &srv->loops[i].stop_msg);
    uint64_t deadline = clock_now_ms() + HTTP_DRAIN_MS;
    for (size_t i = 0; i < srv->nloops; i++) {
        http_loop_t *loop = &srv->loops[i];
        while (loop->running && !http_join_until(loop, deadline)) {
            log_warn("http: requests still running %d ms after the stop; cancelling their queries",
                     HTTP_DRAIN_MS);
            if (srv->pool != NULL)
                dbpool_cancel(srv->pool);
            if (srv->reg != NULL)
                registry_cancel_groups(srv->reg);
            deadline = clock_now_ms() + HTTP_CANCEL_EVERY_MS;
        }
        loop->running = 0;
    }
}

/* Keeps a server that could not be freed reachable, so leak checkers do not flag it. */
static http_server_t *http_abandoned;

static void http_teardown(http_server_t *srv)
{
    int leftovers = 0;
    http_stop_loops(srv); /* each loop waits for its jobs, so the pool's queue is empty now */
    metrics_use_pool(srv->metrics, NULL);
    dbpool_free(srv->pool);
    dbpool_free(srv->verifier);
    srv->verifier = NULL;
    srv->pool = NULL;
    for (size_t i = 0; i < srv->nloops; i++)
        leftovers |= srv->loops[i].leftover;
    if (leftovers) {
        log_warn("http: connections still open after %d ms; leaving them to the process exit", HTTP_DRAIN_MS);
        http_abandoned = srv;
        return;
    }
    if (srv->listen_fd >= 0)
        close(srv->listen_fd);
    if (srv->config_inited)
        h2o_config_dispose(&srv->config);
    SSL_CTX_free(srv->ssl_ctx);
    pthread_mutex_destroy(&srv->ready_lock);
    pthread_cond_destroy(&srv->ready_cond);
    metrics_free(srv->metrics);
    free(srv->loops);
    free(srv);
}

http_server_t *http_server_new(const server_config_t *cfg, char **error)
{
    *error = NULL;
    http_server_t *srv = xcalloc(1, sizeof *srv);
    srv->cfg = cfg;
    srv->listen_fd = -1;
    srv->nloops = cfg->threads > 0 ? (size_t)cfg->threads : 1;
    srv->max_connections = cfg->max_connections;
    srv->abuse = (http_abuse_limits_t){.max_resets = cfg->max_connection_resets,
                                       .max_headers = (size_t)cfg->max_request_headers,
                                       .max_header_bytes = cfg->max_request_header_bytes};
    if (srv->max_connections <= 0) {
        struct rlimit nofile;
        long soft = getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur != RLIM_INFINITY
                        ? (long)nofile.rlim_cur
                        : 1048576;
        srv->max_connections = soft - HTTP_FD_RESERVE > 16 ? (int)(soft - HTTP_FD_RESERVE) : 16;
    }
    srv->loops = xcalloc(srv->nloops, sizeof *srv->loops);
    srv->metrics = metrics_new(srv->nloops, http_routes, http_route_count);
    metrics_use_connections(srv->metrics, &srv->connections);
    pthread_mutex_init(&srv->ready_lock, NULL);
    pthread_cond_init(&srv->ready_cond, NULL);
    http_h2o_config(srv);
    if (http_tls_setup(srv, error) != 0 || http_listen(srv, error) != 0) {
        http_teardown(srv);
        return NULL;
    }
    return srv;
}

int http_server_start(http_server_t *srv, registry_t *reg, const char *conninfo, char **error)
{
    *error = NULL;
    srv->reg = reg;
    srv->pool = dbpool_new(conninfo, srv->cfg->db_threads, error);
    if (srv->pool == NULL)
        return -1;
    metrics_use_pool(srv->metrics, srv->pool);
    /* As many verifier threads as loops: the hashes get the cores the loops would have spent on them. */
    if (auth_enabled(srv->auth) && (srv->verifier = dbpool_new(NULL, (int)srv->nloops, error)) == NULL)
        return -1;
    return http_spawn_loops(srv, error);
}

int http_server_reload_tls(http_server_t *srv, char **error)
{
    *error = NULL;
    if (srv->ssl_ctx == NULL)
        return 0;
    SSL_CTX *fresh = http_tls_ctx_new(srv->cfg, error);
    if (fresh == NULL)
        return -1;
    for (size_t i = 0; i < srv->nloops; i++) {
        http_loop_t *loop = &srv->loops[i];
        if (!loop->inited)
            continue;
        SSL_CTX_up_ref(fresh);
        pthread_mutex_lock(&srv->ready_lock);
        SSL_CTX_free(loop->tls_pending); /* a reload the loop has not taken yet */
        loop->tls_pending = fresh;
        /* One message in flight at most: a queued one picks up the newest context. */
        int send = !loop->tls_msg_queued;
        loop->tls_msg_queued = 1;
        pthread_mutex_unlock(&srv->ready_lock);
        if (send)
            h2o_multithread_send_message(&loop->tls_recv, &loop->tls_msg);
    }
    SSL_CTX_free(srv->ssl_ctx);
    srv->ssl_ctx = fresh;
    return 0;
}

void http_server_use_auth(http_server_t *srv, auth_t *auth)
{
    srv->auth = auth;
}

void http_server_use_authz(http_server_t *srv, authz_t *authz)
{
    srv->authz = authz;
}

const char *http_server_address(const http_server_t *srv)
{
    return srv->address;
}

void http_server_stop(http_server_t *srv)
{
    if (srv != NULL)
        http_teardown(srv);
}
