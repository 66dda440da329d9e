/*
 * http_abuse: what one client connection may cost the server before the
 * server sends it away (docs/security.md, "HTTP/2 and HTTP/1.1 abuse").
 * Pure bookkeeping: http_server.c feeds it each request's start and end and
 * does what the verdict says (429 or 431, and the connection closed).
 *
 * Contents
 *   1. Limits and the per-connection ledger
 *   2. Verdicts
 *
 * Why a reset budget: h2o 2.2.5 predates the fix for HTTP/2 rapid reset
 * (CVE-2023-44487). A stream the client resets no longer counts against
 * SETTINGS_MAX_CONCURRENT_STREAMS, so HEADERS + RST_STREAM in a loop gets
 * the server to start requests at the rate the client can write frames,
 * without ever reading a reply. The ledger keeps h2o's later remedy (a
 * reset budget that delivered replies refill) but closes the connection
 * when the budget is spent, where newer h2o only slows it down.
 */
#ifndef SERVER_HTTP_ABUSE_H
#define SERVER_HTTP_ABUSE_H

#include <stddef.h>
#include <stdint.h>

/* ---- 1. Limits and the per-connection ledger ------------------------------ */

typedef struct http_abuse_limits {
    int max_resets;          /* resets beyond delivered replies before the connection goes; 0 = off */
    size_t max_headers;      /* header fields per request; 0 = no cap */
    size_t max_header_bytes; /* decoded names + values per request; 0 = no cap */
} http_abuse_limits_t;

typedef struct http_abuse_conn {
    uint64_t requests; /* requests started on this connection */
    uint64_t resets;   /* requests that went away before their reply was out */
    int reset_budget;  /* resets still allowed; every delivered reply gives one back */
    int sent_away;     /* 0, or the http_abuse_verdict_t that sent the connection away */
} http_abuse_conn_t;

void http_abuse_conn_init(http_abuse_conn_t *c, const http_abuse_limits_t *lim);

/* ---- 2. Verdicts ------------------------------------------------------------ */

typedef enum http_abuse_verdict {
    HTTP_ABUSE_SERVE = 0, /* go on */
    HTTP_ABUSE_RESETS,    /* refuse (429) and close: the reset budget is spent */
    HTTP_ABUSE_HEADERS,   /* refuse (431) and close: too many or too large header fields */
} http_abuse_verdict_t;

/* A request starts with nheaders header fields of header_bytes decoded bytes. */
http_abuse_verdict_t http_abuse_on_request(http_abuse_conn_t *c, const http_abuse_limits_t *lim,
                                           size_t nheaders, size_t header_bytes);

/* A request ended: delivered = its whole reply went out before h2o freed it. */
void http_abuse_on_end(http_abuse_conn_t *c, const http_abuse_limits_t *lim, int delivered);

#endif
