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
    int db_threads;     /* database worker threads (one connection each); default 4 */
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
} server_config_t;

/* Fills defaults, then applies the file (--config or SCHEMA_REGISTRY_CONFIG),
 * the environment, then argv flags. Returns 0, or -1 with a message on stderr. */
int config_load(server_config_t *cfg, int argc, char **argv);
void config_free(server_config_t *cfg);

#endif
