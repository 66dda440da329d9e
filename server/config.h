/*
 * config: server settings from (lowest to highest precedence) built-in
 * defaults, a config file, SCHEMA_REGISTRY_* environment variables, and
 * command-line flags; and the reference of them all (--help, the man page,
 * docs/operations.md), printed from the same table.
 *
 * Contents
 *   1. The settings
 *   2. Loading
 *   3. The reference
 *
 * Every key's flag, variable, default and meaning are in server/config.c's
 * table, once; the comments below name no defaults.
 */
#ifndef SERVER_CONFIG_H
#define SERVER_CONFIG_H

#include <stddef.h>
#include <stdio.h>

/* ---- 1. The settings ---------------------------------------------------- */

typedef struct server_config {
    char *listen;            /* "HOST:PORT" */
    char *database_url;      /* libpq conninfo or URL; NULL = embedded PostgreSQL */
    char *database_read_url; /* a read replica for loads and catch-up; NULL = none */
    char *data_dir;          /* embedded cluster lives here */
    int threads;             /* HTTP event-loop threads (0 in the table: one per core) */
    int db_threads;          /* database worker threads (one connection each) */
    char *tls_cert;          /* PEM chain; with tls_key enables TLS + ALPN (h2, http/1.1) */
    char *tls_key;
    size_t max_schema_bytes;          /* schema text limit (42209) */
    size_t max_body_bytes;            /* request body limit: 8 x max_schema_bytes */
    int extended_profile;             /* response.profile=extended (docs/api.md, field profiles) */
    char *kafka_cluster_id;           /* /v1/metadata/id; NULL: derived from the database */
    char *group_id;                   /* schema-registry-cluster of /v1/metadata/id */
    char *default_compatibility;      /* server default level, upper case */
    int feed_interval_ms;             /* change-feed poll period between nodes */
    int max_connections;              /* open connections at once; 0 = from the open-file limit */
    int max_connection_jobs;          /* database jobs in flight per connection (429 beyond) */
    int max_queued_jobs;              /* database jobs in flight per event loop (503 beyond) */
    size_t max_subject_bytes;         /* longest subject name (42208 beyond) */
    int database_timeout_ms;          /* connect, statement and unacknowledged-send bound; 0 = none */
    int changes_retention_s;          /* the change feed keeps this long (seconds); 0 = forever */
    int health_ready_max_feed_lag_ms; /* /health/ready: 503 when the feed is further behind; 0 = no bound */

    /* Abuse limits per connection (docs/security.md, "HTTP/2 and HTTP/1.1 abuse"). */
    int max_connection_resets;         /* requests gone before their reply, beyond replies delivered */
    int max_request_headers;           /* header fields per request (431 and close beyond); 0 = no cap */
    size_t max_request_header_bytes;   /* decoded header names + values per request (431 beyond) */
    int http1_request_timeout_ms;      /* an HTTP/1.1 request (or the next one) must arrive within */
    int http2_idle_timeout_ms;         /* an HTTP/2 connection that sends no frame is closed after */
    int http2_max_concurrent_requests; /* HTTP/2 requests of one connection run at once (1-100) */

    /* Authentication (docs/security.md). Off while no users file is set and
     * tls_client_auth is CONFIG_CLIENT_AUTH_NONE. */
    char *config_file;        /* the file read (--config), or NULL; server/authz.c reads its rules */
    char *auth_users_file;    /* HTTP Basic users ("user:hash" lines, schema-registry passwd) */
    char *auth_realm;         /* WWW-Authenticate: Basic realm="..." */
    char *auth_anonymous;     /* principal of requests without credentials; NULL = 401 */
    int auth_max_failures;    /* failed attempts per minute per address (429 beyond); 0 = no cap */
    int tls_client_auth;      /* config_client_auth_t */
    char *tls_client_ca;      /* PEM CA bundle that client certificates must chain to */
    char *tls_client_crl;     /* PEM CRLs checked for every certificate of the chain */
    int tls_client_principal; /* config_principal_t: what of the certificate names the principal */

    int log_format;   /* log_format_t (base/log.h); main() hands it to log_set_format */
    int log_requests; /* config_log_requests_t: which requests get a log line */

    /* Basic passwords being verified (waiting or running) at once, server-wide:
     * 503 beyond; default 32; 0 = no cap (docs/security.md). */
    int auth_max_verifications;
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

/* log.requests: the request lines written (docs/operations.md, "Logs"). */
typedef enum config_log_requests {
    CONFIG_LOG_REQUESTS_ALL = 0, /* every request */
    CONFIG_LOG_REQUESTS_ERRORS,  /* status 400 and above, and replies the client went away from */
    CONFIG_LOG_REQUESTS_NONE,    /* none (the other lines stay) */
} config_log_requests_t;

/* ---- 2. Loading ---------------------------------------------------------- */

/* Fills defaults, then applies the file (--config or SCHEMA_REGISTRY_CONFIG),
 * the environment, then argv flags. Returns 0, or -1 with a message on stderr. */
int config_load(server_config_t *cfg, int argc, char **argv);
void config_free(server_config_t *cfg);
/* s without leading and trailing white space, trimmed in place (the file's lines:
 * server/authz.c reads its own keys from the same file). */
char *config_trim(char *s);

/* ---- 3. The reference -------------------------------------------------------- */

/*
 * The prose around the settings, which the command (server/main.c) owns:
 * commands, signals, exit status. Text is paragraphs separated by "\n\n",
 * `...` marking literal text. A section is printed in --help, in the man
 * page, or both. CONFIG_DOC_SETTINGS and CONFIG_DOC_ENVIRONMENT append the
 * parts generated from the key table to a section, after its text and items.
 */
typedef struct config_doc_item {
    const char *term; /* "schema-registry migrate [flags]", "NOTIFY_SOCKET" */
    const char *text;
} config_doc_item_t;

enum {
    CONFIG_DOC_HELP = 1,        /* printed by --help */
    CONFIG_DOC_MAN = 2,         /* printed in schema-registry(1) */
    CONFIG_DOC_SETTINGS = 4,    /* here come the flags and the config-file-only keys */
    CONFIG_DOC_ENVIRONMENT = 8, /* here come the SCHEMA_REGISTRY_* variables (man page) */
};

typedef struct config_doc_section {
    const char *title;              /* --help: "Signals." before the text; the man page: .SH SIGNALS */
    int where;                      /* CONFIG_DOC_* */
    const char *text;               /* or NULL */
    const config_doc_item_t *items; /* a list after the text, ended by {NULL}; or NULL */
} config_doc_section_t;

typedef struct config_doc {
    const char *program; /* "schema-registry" */
    const char *summary; /* the man page's NAME line after the dash */
    const char *version;
    const char *date;                     /* the man page's date, YYYY-MM-DD */
    const config_doc_section_t *sections; /* in the order printed, ended by {NULL} */
} config_doc_t;

/* --help: the sections for CONFIG_DOC_HELP, with every flag and key. */
void config_print_help(FILE *out, const config_doc_t *doc);
/* schema-registry(1) in roff (man(7) macros): the sections for CONFIG_DOC_MAN. */
void config_print_man(FILE *out, const config_doc_t *doc);
/* `config --print-defaults`: the Markdown table of every key (flag,
 * environment variable, default, meaning), docs/operations.md section 2. */
void config_print_defaults(FILE *out);

#endif
