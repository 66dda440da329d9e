/*
 * auth: who a request comes from (docs/security.md). HTTP Basic against a
 * users file of salted slow hashes, the name of a verified client
 * certificate (server/tls.h), or a configured anonymous principal.
 *
 * Contents
 *   1. Password hashes (scrypt, PBKDF2)
 *   2. The users file
 *   3. The authenticator: start, reload, free
 *   4. Authenticating a request
 *
 * Threads: every event loop calls auth_authenticate at once; the users
 * table, the verification cache and the failure limiter sit behind one
 * mutex, which is never held while a slow hash runs. The slow hash never
 * runs on an event loop either: a password not in the cache comes back as
 * an auth_check_t for the caller to run on a thread of its own
 * (auth_check_run) and finish on the loop (auth_check_finish). auth_reload
 * (SIGHUP) swaps the table; verifications cached under the old one no
 * longer count.
 */
#ifndef SERVER_AUTH_H
#define SERVER_AUTH_H

#include <stddef.h>

#include "server/config.h"
#include "server/http.h"

/* ---- 1. Password hashes ---------------------------------------------------- */

/*
 * A new salted hash of password in the users-file form
 * "$scrypt$ln=15,r=8,p=1$SALT$HASH" (base64). NULL when OpenSSL fails.
 */
char *auth_hash_new(const char *password, size_t len);
/*
 * 1 when password matches encoded, 0 when not, -1 when encoded is not a hash
 * this server reads: "$scrypt$ln=L,r=R,p=P$SALT$HASH" or
 * "$pbkdf2-sha256$i=N$SALT$HASH". The comparison takes constant time.
 */
int auth_hash_verify(const char *encoded, const char *password, size_t len);

/* ---- 2. The users file --------------------------------------------------------- */

/* 1 when name may be a user: 1 to 128 bytes, no ':', space, control byte, leading '#'. */
int auth_user_name_ok(const char *name);
/*
 * Sets user's line of the users file at path to "user:encoded" (replacing
 * it, or appended; other lines are kept as they are), through a new file
 * renamed over the old one, mode 0600. 0, or -1 and a malloc'd *error.
 */
int auth_users_file_put(const char *path, const char *user, const char *encoded, char **error);

/* ---- 3. The authenticator ---------------------------------------------------------- */

typedef struct auth auth_t;

/*
 * From cfg (borrowed; it must outlive the authenticator): loads
 * auth.basic.users.file when set. NULL and a malloc'd *error when the file
 * does not load.
 */
auth_t *auth_new(const server_config_t *cfg, char **error);
/* 1 when requests must be authenticated (a users file or tls.client.auth). */
int auth_enabled(const auth_t *a);
/* SIGHUP: reads the users file again. -1 and a malloc'd *error keep the previous users. */
int auth_reload(auth_t *a, char **error);
void auth_free(auth_t *a);

/* ---- 4. Authenticating a request ----------------------------------------------------- */

typedef struct auth_request {
    const char *authorization; /* the Authorization header's value; NULL when absent */
    size_t authorization_len;
    int cert;              /* tls_peer_principal(): 0 none, 1 named, -1 without a usable name */
    const char *cert_name; /* when cert == 1 */
} auth_request_t;

/* Basic credentials on their way through the slow hash; owned by whoever holds it. */
typedef struct auth_check auth_check_t;

/*
 * Sets c->principal, or replies 401 (with WWW-Authenticate when Basic is
 * configured), 429 (failed attempts from c->remote over auth.max.failures)
 * or 503 (auth.max.verifications checks out already). Reads c->seg:
 * /health/live and /health/ready are always open. Order: Basic credentials
 * when sent and Basic is configured, else the client certificate, else
 * auth.anonymous. Returns 0 to go on, -1 with the reply set, or 1 with
 * *check set: Basic credentials the cache does not know, to be verified off
 * the event loop. Without authentication configured: 0, principal NULL.
 */
int auth_authenticate(auth_t *a, http_call_t *c, const auth_request_t *in, auth_check_t **check);
/* Any thread but an event loop: the slow hash (tens of milliseconds); a success is cached. */
void auth_check_run(auth_check_t *k);
/*
 * Back on the request's loop, with or without auth_check_run (skipped when
 * the client left first): sets c->principal and returns 0, or sets the 401
 * (a 499 when the check never ran) and returns -1. Frees k; the caller must
 * finish every check it got, which ends its count in auth.max.verifications.
 */
int auth_check_finish(auth_t *a, http_call_t *c, auth_check_t *k);

#endif
