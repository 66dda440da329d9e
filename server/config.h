/*
 * config: server settings from (lowest to highest precedence) built-in
 * defaults, a config file, SCHEMA_REGISTRY_* environment variables, and
 * command-line flags.
 */
#ifndef SERVER_CONFIG_H
#define SERVER_CONFIG_H

#include <stddef.h>

typedef struct server_config {
    char *listen;       /* "HOST:PORT", default "0.0.0.0:8081" */
    char *database_url; /* libpq conninfo or URL; NULL = embedded PostgreSQL */
    char *data_dir;     /* embedded cluster lives here, default "./var" */
    int threads;        /* HTTP event-loop threads; default = number of cores */
    int db_threads;     /* database worker threads (one connection each); default 16 */
    char *tls_cert;     /* PEM chain; with tls_key enables TLS + ALPN (h2, http/1.1) */
    char *tls_key;
    size_t max_schema_bytes;     /* schema text limit (42209), default 1 MiB */
    size_t max_body_bytes;       /* request body limit, default 8 x max_schema_bytes */
    int extended_profile;        /* response.profile=extended (docs/api.md, field profiles) */
    char *kafka_cluster_id;      /* /v1/metadata/id; default derived from the database */
    char *group_id;              /* default "schema-registry" */
    char *default_compatibility; /* server default level, "BACKWARD" */
    int feed_interval_ms;        /* change-feed poll period between nodes, default 500 */
    int max_connections;         /* open connections at once; 0 = from the open-file limit */
    int max_connection_jobs;     /* database jobs in flight per connection (429 beyond), default 100 */
    int max_queued_jobs;         /* database jobs in flight per event loop (503 beyond), default 1000 */
    size_t max_subject_bytes;    /* longest subject name (42208 beyond), default 2048 */
    int changes_retention_s;     /* the change feed keeps this long (seconds); 0 = forever; 86400 */

    /* Abuse limits per connection (docs/security.md, "HTTP/2 and HTTP/1.1 abuse"). */
    int max_connection_resets;         /* requests gone before their reply, beyond replies delivered; 100 */
    int max_request_headers;           /* header fields per request (431 and close beyond); 0 = no cap; 100 */
    size_t max_request_header_bytes;   /* decoded header names + values per request (431 beyond); 65536 */
    int http1_request_timeout_ms;      /* an HTTP/1.1 request (or the next one) must arrive within; 10000 */
    int http2_idle_timeout_ms;         /* an HTTP/2 connection that sends no frame is closed after; 10000 */
    int http2_max_concurrent_requests; /* HTTP/2 requests of one connection run at once (1-100); 100 */

    /* Authentication (docs/security.md). Off while no users file is set and
     * tls_client_auth is CONFIG_CLIENT_AUTH_NONE. */
    char *config_file;        /* the file read (--config), or NULL; server/authz.c reads its rules */
    char *auth_users_file;    /* HTTP Basic users ("user:hash" lines, schema-registry passwd) */
    char *auth_realm;         /* WWW-Authenticate: Basic realm="...", default "SchemaRegistry" */
    char *auth_anonymous;     /* principal of requests without credentials; NULL = 401 */
    int auth_max_failures;    /* failed attempts per minute per address (429 beyond); 0 = no cap */
    int tls_client_auth;      /* config_client_auth_t */
    char *tls_client_ca;      /* PEM CA bundle that client certificates must chain to */
    char *tls_client_crl;     /* PEM CRLs checked for every certificate of the chain */
    int tls_client_principal; /* config_principal_t: what of the certificate names the principal */
} server_config_t;

typedef enum config_client_auth {
    CONFIG_CLIENT_AUTH_NONE = 0, /* no certificate asked for */
    CONFIG_CLIENT_AUTH_OPTIONAL, /* asked for; none is fine, a bad one fails the handshake */
    CONFIG_CLIENT_AUTH_REQUIRED, /* no certificate, no handshake */
} config_client_auth_t;

typedef enum config_principal {
    CONFIG_PRINCIPAL_CN = 0,    /* the subject's commonName */
    CONFIG_PRINCIPAL_SAN_DNS,   /* the first subjectAltName DNS entry */
    CONFIG_PRINCIPAL_SAN_EMAIL, /* the first subjectAltName email (rfc822Name) entry */
    CONFIG_PRINCIPAL_SAN_URI,   /* the first subjectAltName URI entry (SPIFFE ids) */
} config_principal_t;

/* Fills defaults, then applies the file (--config or SCHEMA_REGISTRY_CONFIG),
 * the environment, then argv flags. Returns 0, or -1 with a message on stderr. */
int config_load(server_config_t *cfg, int argc, char **argv);
void config_free(server_config_t *cfg);
/* s without leading and trailing white space, trimmed in place (the file's lines:
 * server/authz.c reads its own keys from the same file). */
char *config_trim(char *s);

#endif
