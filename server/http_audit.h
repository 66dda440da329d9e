/*
 * http_audit: the audit rows of refused attempts (docs/security.md, "Audit
 * trail"). A change's own row is the registry's, written in the change's
 * transaction; this file notices, after the reply is decided, a request
 * refused on a write route (any 4xx of a route that needs write, delete or
 * admin: 401 and 403 included) and has its row written by a database
 * worker, never on the event loop. Best effort: the row never delays or
 * changes the answer, and when the workers are far behind it is dropped
 * (and counted in the log).
 *
 * Contents
 *   1. Noticing a refusal
 *   2. Writing its row
 */
#ifndef SERVER_HTTP_AUDIT_H
#define SERVER_HTTP_AUDIT_H

#include <stdatomic.h>

#include "server/dbpool.h"
#include "server/http.h"

typedef struct http_audit_job http_audit_job_t;

/* ---- 1. Noticing a refusal ------------------------------------------------- */

/* For a replied call: NULL when it is not a refused attempt on a write
 * route, else a copy of everything its row needs (the call may go now). */
http_audit_job_t *http_audit_refusal(const http_call_t *c);

/* ---- 2. Writing its row ---------------------------------------------------- */

/* On a worker, after the reply has left: writes the row on db (a failure is
 * logged, never answered) and frees j. db NULL drops it. */
void http_audit_write(http_audit_job_t *j, registry_t *reg, store_t *db);

/* From the event loop: queues j for a worker, unless *pending (the rows
 * queued, shared by the server's loops) has reached HTTP_AUDIT_QUEUE_MAX;
 * then j is dropped. Takes j. */
#define HTTP_AUDIT_QUEUE_MAX 1024
void http_audit_submit(http_audit_job_t *j, dbpool_t *pool, registry_t *reg, atomic_int *pending);

#endif
