/*
 * http_framing: message-framing checks h2o 2.2.5 does not make.
 *
 * h2o frames an HTTP/1.1 body by the first Content-Length header and drops
 * every Content-Length header from req->headers, so two different lengths
 * (a request-smuggling vector: a proxy in front may have framed by the other
 * one) reach the handler unnoticed. RFC 9112 section 6.3 item 5 makes that an
 * unrecoverable framing error: answer 400 and close the connection. Repeats
 * of one identical value are the RFC's allowed case and are accepted.
 */
#ifndef SERVER_HTTP_FRAMING_H
#define SERVER_HTTP_FRAMING_H

#include <stddef.h>

/*
 * Scans a raw request head (request line and header lines, "\r\n" or "\n"
 * separated) for Content-Length fields. Returns 0 when there is at most one
 * distinct value, -1 when two differ.
 */
int http_framing_check_head(const char *head, size_t len);

struct st_h2o_req_t;

/*
 * The same check on a request h2o has parsed: for HTTP/1.x the head still
 * sits in the connection's input buffer right before the body (h2o consumes
 * it only after the response); for HTTP/2 the fields are in req->headers.
 * Returns 0 or -1 as http_framing_check_head.
 */
int http_framing_check(struct st_h2o_req_t *req);

#endif
