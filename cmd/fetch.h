/*
 * fetch: a running Confluent-compatible registry read through its public
 * REST API, as the records of Confluent's _schemas topic (docs/operations.md
 * section 11, "From a running registry"). `schema-registry import --from-url`
 * feeds them to the importer's dump reader (server/cmd_import.c), so a URL,
 * a dump and an export become the same model and take one write path.
 *
 * Contents
 *   1. Options
 *   2. The walk
 *
 * Layering: the HTTP is client/'s (srclient_get_json); this header exposes
 * none of it, so the importer, which writes through registry/, includes
 * neither client/ nor curl (docs/architecture.md).
 */
#ifndef CMD_FETCH_H
#define CMD_FETCH_H

#include <jansson.h>

/* ---- 1. Options ------------------------------------------------------------ */

typedef struct cmd_fetch_options {
    const char *url;        /* http:// or https://; required */
    const char *basic_auth; /* "user:secret", or NULL */
    const char *ca_file;    /* TLS: the CA bundle that signed the source's certificate, or NULL */
    const char *cert_file;  /* a TLS client certificate and its key (PEM), or NULL */
    const char *key_file;
} cmd_fetch_options_t;

/* ---- 2. The walk ------------------------------------------------------------- */

/* One record as the _schemas topic holds it: key (SchemaKey, ConfigKey,
 * ModeKey) and value (SchemaValue, ConfigValue, ModeValue), both borrowed
 * for the call. 0, or -1 with *error (malloc'd) to stop the walk. */
typedef int (*cmd_fetch_emit_t)(void *arg, const json_t *key, const json_t *value, char **error);

/*
 * Walks the registry at opts->url: GET /contexts; GET /subjects with
 * subjectPrefix=:*: and deleted=true (every context), both page by page
 * (offset); per subject its
 * versions with and without deleted=true (a version only the first lists is
 * soft-deleted) and each version with deleted=true; GET /config and /mode
 * of each subject, each context (":.ctx:") and the global scope. Emits a
 * SCHEMA record per version, a CONFIG or MODE record per scope that has one
 * set (40408 / 40409 without defaultToGlobal: none). The global config and
 * mode are emitted unless they are what a registry answers with none set
 * ({"compatibilityLevel":"BACKWARD"}, READWRITE): REST cannot tell the two
 * apart. Hard-deleted versions are invisible to REST and so absent.
 * Returns the number of records emitted, or -1 with *error (malloc'd): a
 * request that failed (401 says so: wrong credentials), a reply of the wrong
 * shape, or emit's error. Nothing is written anywhere by the walk itself.
 */
long cmd_fetch_registry(const cmd_fetch_options_t *opts, cmd_fetch_emit_t emit, void *arg, char **error);

#endif
