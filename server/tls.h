/*
 * tls: the server's TLS context (protocols, ciphers, ALPN, client
 * certificates) and the principal a verified client certificate names
 * (docs/security.md).
 *
 * Contents
 *   1. Contexts
 *   2. Client certificates
 *
 * One context serves every connection of a loop until SIGHUP builds a new
 * one (http_server.c section 7); a connection keeps the context it was
 * accepted with, so a reload never drops it.
 */
#ifndef SERVER_TLS_H
#define SERVER_TLS_H

#include <openssl/ssl.h>

#include "server/config.h"

/* ---- 1. Contexts --------------------------------------------------------- */

/*
 * A server context for cfg: tls.cert and tls.key; TLS 1.2 and 1.3 only,
 * ECDHE with AEAD ciphers only for TLS 1.2, the server's cipher order, no
 * compression or renegotiation (ALPN is h2o's, http_server.c); with
 * tls.client.auth, client certificates verified against tls.client.ca (and
 * tls.client.crl). NULL and a malloc'd *error naming the file that failed.
 */
SSL_CTX *tls_ctx_new(const server_config_t *cfg, char **error);

/* ---- 2. Client certificates ------------------------------------------------ */

/*
 * The principal of the client certificate on a finished handshake (ssl NULL:
 * plain TCP, as 0) (which the
 * context has already verified): 0 when the client sent none; 1 with *name
 * (borrowed: it lives as long as ssl) set; -1 when the certificate has no
 * usable name of that kind (absent, empty, or with control characters).
 * Worked out once per connection.
 */
int tls_peer_principal(SSL *ssl, config_principal_t which, const char **name);

#endif
