/*
 * request_id: the id every request carries (docs/operations.md, "Request
 * ids"): the client's X-Request-Id when it is sane, else a new random one.
 * It is echoed in the reply, written in the request's log line and stored
 * in the audit rows the request writes.
 *
 * Contents
 *   1. Taking the client's
 *   2. Making one
 */
#ifndef SERVER_REQUEST_ID_H
#define SERVER_REQUEST_ID_H

#include <stddef.h>

/* Longest id kept; a longer X-Request-Id is replaced. */
#define REQUEST_ID_MAX 128

/* ---- 1. Taking the client's ----------------------------------------------- */

/* 1 when s[0..len) is 1..REQUEST_ID_MAX bytes of [A-Za-z0-9._:-]: nothing a
 * log line, a header or a JSON string would need to escape. */
int request_id_sane(const char *s, size_t len);

/* ---- 2. Making one ---------------------------------------------------------- */

/* 32 lowercase hex digits (128 random bits) and a NUL into out. From a
 * per-thread generator seeded once from getrandom(2): no system call and no
 * lock per request (the by-id read path is benchmarked). */
void request_id_new(char out[33]);

#endif
