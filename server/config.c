/*
 * config: defaults < file < SCHEMA_REGISTRY_* environment < flags (config.h).
 *
 * Contents
 *   1. The key table (every setting, once)
 *   2. Values: parse and validate one key
 *   3. Sources: file, environment, argv
 *   4. config_load / config_free
 *   5. The reference: --help, the man page, the Markdown table
 *
 * Every key has three spellings derived from its one name in the table:
 * file "db.threads", flag "--db-threads", environment SCHEMA_REGISTRY_DB_THREADS.
 */
#include "server/config.h"

#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "compat/level.h"
#include "base/alloc.h"
#include "base/log.h"

extern char **environ;

#define CONFIG_ENV_PREFIX       "SCHEMA_REGISTRY_"
#define CONFIG_MAX_THREADS      1024
#define CONFIG_MAX_SCHEMA_BYTES (512u * 1024 * 1024) /* x8 must still fit h2o's limits */
#define CONFIG_MAX_FEED_MS      3600000
#define CONFIG_MAX_LIMIT        1000000
/* A subject is a key of a btree index; PostgreSQL refuses index rows above ~2700 bytes. */
#define CONFIG_MAX_SUBJECT_BYTES 2600

/* ---- 1. The key table ---------------------------------------------------- */

typedef enum config_kind {
    CFG_STRING,       /* char *, "" means unset */
    CFG_LISTEN,       /* char *, HOST:PORT */
    CFG_THREADS,      /* int, 0 = one per core */
    CFG_COUNT,        /* int >= 1 */
    CFG_MILLIS,       /* int >= 0 */
    CFG_LIMIT,        /* int from 0 to CONFIG_MAX_LIMIT */
    CFG_BYTES,        /* size_t >= 1 */
    CFG_PROFILE,      /* int flag from classic|extended */
    CFG_LEVEL,        /* char *, a compatibility level, stored upper-case */
    CFG_CLIENT_AUTH,  /* int from none|optional|required */
    CFG_PRINCIPAL,    /* int from cn|san-dns|san-email|san-uri */
    CFG_LOG_FORMAT,   /* int from text|json (log_format_t) */
    CFG_LOG_REQUESTS, /* int from all|errors|none (config_log_requests_t) */
    CFG_FILE_ONLY,    /* repeatable lines of the config file that another module reads */
} config_kind_t;

/*
 * One setting. The file key is the name; the flag and the environment
 * variable derive from it (config_spell). The default is a value as a user
 * would write it, applied by config_defaults like any other source, so the
 * default printed (--help, config --print-defaults, the man page) is the one
 * in force. meaning: one line; `...` marks literal text (code in Markdown,
 * bold in the man page, plain in --help). Adding a key: a field in
 * server_config_t (config.h) and a row here.
 */
typedef struct config_key {
    const char *name;
    config_kind_t kind;
    size_t offset;
    const char *metavar;  /* the value's name in --help: "HOST:PORT", "N", "FILE" */
    const char *fallback; /* the default; "" = unset */
    const char *meaning;
} config_key_t;

#define FIELD(f) offsetof(server_config_t, f)

static const config_key_t config_keys[] = {
    {"listen", CFG_LISTEN, FIELD(listen), "HOST:PORT", "0.0.0.0:8081",
     "Address to serve on. `[::]:8081` for IPv6; port `0` picks a free port (the log says which)."},
    {"database.url", CFG_STRING, FIELD(database_url), "URL", "",
     "PostgreSQL, as a `postgresql://` URL or a libpq conninfo string. Unset: an embedded PostgreSQL "
     "under `data.dir`, started and stopped with the server."},
    {"database.read.url", CFG_STRING, FIELD(database_read_url), "URL", "",
     "A read replica (libpq URL or conninfo, multi-host allowed) for start-up loads and catching up "
     "with other nodes, used only when it has replayed what the primary had; never for writes "
     "(docs/operations.md, \"Replication and failover\"). Unset: none."},
    {"database.timeout.ms", CFG_MILLIS, FIELD(database_timeout_ms), "N", "10000",
     "Longest wait for the database: a connection attempt per host, a request's statement, an "
     "unanswered send; then a 5xx error. `0` = none. `connect_timeout` in the URL or "
     "`PGCONNECT_TIMEOUT` wins for connecting."},
    {"data.dir", CFG_STRING, FIELD(data_dir), "DIR", "./var",
     "Where the embedded database lives. Unused with `database.url`."},
    {"threads", CFG_THREADS, FIELD(threads), "N", "0",
     "HTTP event-loop threads (0 to 1024); `0` = one per CPU core."},
    /* No worker waits in a group since registry/group.c's leader answers its
     * registrations: 4, 8 and 16 workers all made groups of 16 under 16 writing
     * clients (docs/performance.md, "New registrations: nobody waits in the group"). */
    {"db.threads", CFG_COUNT, FIELD(db_threads), "N", "16",
     "Database worker threads, one PostgreSQL connection each (1 to 1024). They run the database part "
     "of requests; registrations queued at one moment are committed together whatever their number "
     "(up to 64 per group), so this bounds how many requests query the database at once, not the "
     "group size."},
    {"tls.cert", CFG_STRING, FIELD(tls_cert), "FILE", "",
     "PEM certificate chain. Set together with `tls.key`: the port then speaks HTTPS only (TLS 1.2 and "
     "1.3, ALPN `h2` and `http/1.1`); unset, plain HTTP/1.1 and h2c. Reloaded on SIGHUP."},
    {"tls.key", CFG_STRING, FIELD(tls_key), "FILE", "", "PEM private key of `tls.cert`. Reloaded on SIGHUP."},
    {"max.schema.bytes", CFG_BYTES, FIELD(max_schema_bytes), "N", "1048576",
     "Largest schema text accepted (error 42209 above it). Request bodies may be up to 8 times this "
     "(413 above)."},
    {"response.profile", CFG_PROFILE, FIELD(extended_profile), "PROFILE", "classic",
     "`extended` sends the Confluent 8.x response fields to every client; `classic` only to requests "
     "with `Confluent-Accept-Unknown-Properties: true`."},
    {"kafka.cluster.id", CFG_STRING, FIELD(kafka_cluster_id), "ID", "",
     "`kafka-cluster` in `GET /v1/metadata/id`. Unset: derived from the database."},
    {"group.id", CFG_STRING, FIELD(group_id), "ID", "schema-registry",
     "`schema-registry-cluster` in `GET /v1/metadata/id`."},
    {"schema.compatibility.level", CFG_LEVEL, FIELD(default_compatibility), "LEVEL", "BACKWARD",
     "Global compatibility level until `PUT /config` stores one. Any case: `none`, `backward`, "
     "`backward_transitive`, `forward`, `forward_transitive`, `full`, `full_transitive`."},
    {"feed.interval.ms", CFG_MILLIS, FIELD(feed_interval_ms), "N", "500",
     "How often a node polls the database for changes made by other nodes (0 to 3600000 ms); `0` turns "
     "the poll off (one node only)."},
    {"max.connections", CFG_LIMIT, FIELD(max_connections), "N", "0",
     "Open client connections at once; `0` = the open-file limit less 64. At the limit the server stops "
     "accepting for 100 ms at a time; new clients wait in the kernel's backlog."},
    {"max.connection.jobs", CFG_LIMIT, FIELD(max_connection_jobs), "N", "100",
     "Requests of one connection that may wait for or hold a database worker at once (HTTP/2 "
     "multiplexes many); beyond it `429 {\"error_code\":429,...}`. `0` = no cap."},
    {"max.queued.jobs", CFG_LIMIT, FIELD(max_queued_jobs), "N", "1000",
     "Database requests waiting or running per HTTP thread; beyond it `503 {\"error_code\":503,...}`. "
     "`0` = no cap."},
    {"max.subject.bytes", CFG_BYTES, FIELD(max_subject_bytes), "N", "2048",
     "Longest subject name in bytes (42208 above it). At most 2600: a subject is a key of a PostgreSQL "
     "index, whose rows are limited to about 2700 bytes."},
    {"health.ready.max.feed.lag.ms", CFG_MILLIS, FIELD(health_ready_max_feed_lag_ms), "N", "30000",
     "`GET /health/ready` answers `503` when the change feed last found this node current longer ago "
     "than this (it cannot reach the database, or cannot keep up); `0` = no bound. Unused with "
     "`feed.interval.ms` `0`."},
    {"changes.retention.seconds", CFG_LIMIT, FIELD(changes_retention_s), "N", "86400",
     "How long the `changes` table (the feed between nodes) keeps a row; every node prunes older rows. "
     "A node whose feed fell further behind than that reloads every subject instead of replaying. `0` "
     "keeps every row."},
    {"auth.basic.users.file", CFG_STRING, FIELD(auth_users_file), "FILE", "",
     "HTTP Basic users: `user:hash` lines written by `schema-registry passwd USER` (docs/security.md). "
     "Set: every request but `/health/live` and `/health/ready` needs credentials. Reloaded on SIGHUP."},
    {"auth.realm", CFG_STRING, FIELD(auth_realm), "NAME", "SchemaRegistry",
     "The realm in `WWW-Authenticate: Basic realm=\"NAME\"` (no `\"`, `\\` or control characters)."},
    {"auth.anonymous", CFG_STRING, FIELD(auth_anonymous), "PRINCIPAL", "",
     "With authentication on, the principal of requests that bring no credentials; unset, they get "
     "`401`. Bad credentials are `401` either way."},
    /* Read from the file by server/authz.c, at start and on SIGHUP. */
    {"auth.rule", CFG_FILE_ONLY, 0, "WHO PERMISSIONS PATTERN", "",
     "A grant of `read`, `write`, `delete` or `admin` on a subject glob or on `/config`, "
     "`/mode`, `/schemas`, `/contexts` (docs/security.md). None: every authenticated principal may do "
     "everything. Needs authentication. Reloaded on SIGHUP."},
    {"auth.group", CFG_FILE_ONLY, 0, "NAME MEMBER[,MEMBER...]", "",
     "A group that rules name as `@NAME`. Reloaded on SIGHUP."},
    {"auth.max.failures", CFG_LIMIT, FIELD(auth_max_failures), "N", "10",
     "Failed Basic attempts per minute per client address; beyond it `429` with `Retry-After`, before "
     "any password is checked. `0` = no cap."},
    {"auth.max.verifications", CFG_LIMIT, FIELD(auth_max_verifications), "N", "32",
     "Basic passwords being verified (slow hash waiting or running on a verifier thread) at once, "
     "server-wide; beyond it `503` with `Retry-After: 1`, before any hash. Cached credentials never "
     "count. `0` = no cap (docs/security.md)."},
    {"tls.client.auth", CFG_CLIENT_AUTH, FIELD(tls_client_auth), "MODE", "none",
     "`optional` or `required` client certificates, verified against `tls.client.ca` (needs "
     "`tls.cert`). A certificate that fails verification fails the handshake in both modes."},
    {"tls.client.ca", CFG_STRING, FIELD(tls_client_ca), "FILE", "",
     "PEM bundle of the CAs client certificates must chain to. Reloaded on SIGHUP."},
    {"tls.client.crl", CFG_STRING, FIELD(tls_client_crl), "FILE", "",
     "PEM CRLs; a client certificate they revoke fails the handshake. It must hold the CRL of the "
     "issuing CA. Reloaded on SIGHUP."},
    {"tls.client.principal", CFG_PRINCIPAL, FIELD(tls_client_principal), "WHAT", "cn",
     "What names the principal: the subject's `cn`, or the first subjectAltName `san-dns`, `san-email` "
     "or `san-uri`."},
    {"max.connection.resets", CFG_LIMIT, FIELD(max_connection_resets), "N", "100",
     "HTTP/2 rapid reset: requests one connection may reset (or drop) before their reply, beyond the "
     "replies it read; past it the request gets `429` and the server closes the connection "
     "(docs/security.md section 8). `0` = off."},
    /* h2o's HTTP/1.1 parser takes no more than 100 (H2O_MAX_HEADERS) */
    {"max.request.headers", CFG_LIMIT, FIELD(max_request_headers), "N", "100",
     "Header fields per request; beyond it `431` and the connection is closed (an HPACK bomb names one "
     "table entry thousands of times). `0` = no cap."},
    {"max.request.header.bytes", CFG_BYTES, FIELD(max_request_header_bytes), "N", "65536",
     "Decoded header bytes per request (names + values + 32 each, as HTTP/2's "
     "`SETTINGS_MAX_HEADER_LIST_SIZE` counts); beyond it `431` and the connection is closed."},
    /* h2o's defaults */
    {"http1.request.timeout.ms", CFG_MILLIS, FIELD(http1_request_timeout_ms), "N", "10000",
     "An HTTP/1.1 request, headers and body, must arrive within this from its first byte, and the next "
     "request on a kept-alive connection within this after the reply (slowloris). At least 100."},
    {"http2.idle.timeout.ms", CFG_MILLIS, FIELD(http2_idle_timeout_ms), "N", "10000",
     "An HTTP/2 connection that sends no frame for this long is closed. At least 100."},
    /* h2o announces 100 streams and refuses more */
    {"http2.max.concurrent.requests", CFG_COUNT, FIELD(http2_max_concurrent_requests), "N", "100",
     "HTTP/2 requests of one connection the server works on at once; more wait in order (1 to 100: the "
     "server announces 100 streams)."},
    {"log.format", CFG_LOG_FORMAT, FIELD(log_format), "FORMAT", "text",
     "`text`: `TIME LEVEL message` lines. `json`: one JSON object per line, `time`, `level` and `msg`, "
     "and for a request also `method`, `target`, `status`, `duration_us`, `remote`, `principal` and "
     "`request_id`."},
    {"log.requests", CFG_LOG_REQUESTS, FIELD(log_requests), "WHICH", "all",
     "The requests that get a log line: `all`; `errors` (status 400 and above, and replies dropped "
     "because the client went away); `none`. The other lines (start, stop, warnings) stay, and writes "
     "are in the audit trail whatever this says."},
};
#define CONFIG_KEY_COUNT (sizeof config_keys / sizeof config_keys[0])

static const config_key_t *config_key_by_name(const char *name, size_t len)
{
    for (size_t i = 0; i < CONFIG_KEY_COUNT; i++)
        if (strlen(config_keys[i].name) == len && memcmp(config_keys[i].name, name, len) == 0)
            return &config_keys[i];
    return NULL;
}

/* "db.threads" -> "db-threads" (flag, without "--") or "DB_THREADS" (env suffix). */
static void config_spell(const char *name, int env, char *out, size_t cap)
{
    size_t i = 0;
    for (; name[i] && i + 1 < cap; i++) {
        char c = name[i];
        if (c == '.')
            c = env ? '_' : '-';
        out[i] = env ? (char)toupper((unsigned char)c) : c;
    }
    out[i] = '\0';
}

static const config_key_t *config_key_by_flag(const char *flag, size_t len)
{
    char spelled[64];
    for (size_t i = 0; i < CONFIG_KEY_COUNT; i++) {
        if (config_keys[i].kind == CFG_FILE_ONLY)
            continue;
        config_spell(config_keys[i].name, 0, spelled, sizeof spelled);
        if (strlen(spelled) == len && memcmp(spelled, flag, len) == 0)
            return &config_keys[i];
    }
    return NULL;
}

/* ---- 2. Values ------------------------------------------------------------ */

static int config_parse_long(const char *value, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(value, &end, 10);
    if (errno || end == value || *end != '\0' || !isdigit((unsigned char)value[0]))
        return -1;
    if (v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

/* HOST:PORT, [V6]:PORT or :PORT; port 0 asks the kernel for a free one. */
static int config_valid_listen(const char *value)
{
    const char *colon = strrchr(value, ':');
    if (colon == NULL)
        return 0;
    if (value[0] == '[' && (colon == value || colon[-1] != ']'))
        return 0;
    if (value[0] != '[' && memchr(value, ':', (size_t)(colon - value)) != NULL)
        return 0; /* a bare IPv6 address needs brackets */
    long port;
    return config_parse_long(colon + 1, 0, 65535, &port) == 0;
}

static void config_set_string(char **field, const char *value)
{
    free(*field);
    *field = value[0] ? xstrdup(value) : NULL;
}

/* The words of an enumerated key, in the order of its enum (config.h, base/log.h). */
static const char *const config_profile_words[] = {"classic", "extended", NULL};
static const char *const config_client_auth_words[] = {"none", "optional", "required", NULL};
static const char *const config_principal_words[] = {"cn", "san-dns", "san-email", "san-uri", NULL};
static const char *const config_log_format_words[] = {"text", "json", NULL};
static const char *const config_log_requests_words[] = {"all", "errors", "none", NULL};
static const char *const *const config_kind_words[] = {
    [CFG_PROFILE] = config_profile_words,           [CFG_CLIENT_AUTH] = config_client_auth_words,
    [CFG_PRINCIPAL] = config_principal_words,       [CFG_LOG_FORMAT] = config_log_format_words,
    [CFG_LOG_REQUESTS] = config_log_requests_words,
};

/* The index of value (any case) among words, or -1. */
static long config_word(const char *value, const char *const *words)
{
    for (long i = 0; words[i] != NULL; i++)
        if (strcasecmp(value, words[i]) == 0)
            return i;
    return -1;
}

/* Applies one value; on failure writes why into err. */
static int config_apply(server_config_t *cfg, const config_key_t *key, const char *value, char *err,
                        size_t errcap)
{
    char *base = (char *)cfg;
    long n;
    compat_level_t level;

    switch (key->kind) {
    case CFG_STRING: config_set_string((char **)(base + key->offset), value); return 0;
    case CFG_LISTEN:
        if (!config_valid_listen(value))
            break;
        config_set_string((char **)(base + key->offset), value);
        return 0;
    case CFG_THREADS:
    case CFG_COUNT:
        if (config_parse_long(value, key->kind == CFG_THREADS ? 0 : 1, CONFIG_MAX_THREADS, &n))
            break;
        *(int *)(base + key->offset) = (int)n;
        return 0;
    case CFG_MILLIS:
        if (config_parse_long(value, 0, CONFIG_MAX_FEED_MS, &n))
            break;
        *(int *)(base + key->offset) = (int)n;
        return 0;
    case CFG_LIMIT:
        if (config_parse_long(value, 0, CONFIG_MAX_LIMIT, &n))
            break;
        *(int *)(base + key->offset) = (int)n;
        return 0;
    case CFG_BYTES:
        if (config_parse_long(value, 1, CONFIG_MAX_SCHEMA_BYTES, &n))
            break;
        *(size_t *)(base + key->offset) = (size_t)n;
        return 0;
    case CFG_LEVEL:
        if (compat_level_parse(value, &level) != 0)
            break;
        config_set_string((char **)(base + key->offset), compat_level_name(level));
        return 0;
    case CFG_PROFILE:
    case CFG_CLIENT_AUTH:
    case CFG_PRINCIPAL:
    case CFG_LOG_FORMAT:
    case CFG_LOG_REQUESTS:
        n = config_word(value, config_kind_words[key->kind]);
        if (n < 0)
            break;
        *(int *)(base + key->offset) = (int)n;
        return 0;
    case CFG_FILE_ONLY: return 0; /* read by their own module */
    }

    static const char *const expected[] = {
        [CFG_STRING] = "a string",
        [CFG_LISTEN] = "HOST:PORT with a port from 0 to 65535",
        [CFG_THREADS] = "a whole number from 0 (one per core) to 1024",
        [CFG_COUNT] = "a whole number from 1 to 1024",
        [CFG_MILLIS] = "milliseconds from 0 to 3600000",
        [CFG_LIMIT] = "a whole number from 0 to 1000000",
        [CFG_BYTES] = "a byte count from 1 to 536870912",
        [CFG_PROFILE] = "classic or extended",
        [CFG_LEVEL] = ("NONE, BACKWARD, BACKWARD_TRANSITIVE, FORWARD, FORWARD_TRANSITIVE, FULL "
                       "or FULL_TRANSITIVE"),
        [CFG_CLIENT_AUTH] = "none, optional or required",
        [CFG_PRINCIPAL] = "cn, san-dns, san-email or san-uri",
        [CFG_LOG_FORMAT] = "text or json",
        [CFG_LOG_REQUESTS] = "all, errors or none",
        [CFG_FILE_ONLY] = "lines of the config file",
    };
    snprintf(err, errcap, "invalid value '%s' (expected %s)", value, expected[key->kind]);
    return -1;
}

/* The kinds whose field is a char * the config owns. */
static int config_kind_is_string(config_kind_t kind)
{
    return kind == CFG_STRING || kind == CFG_LISTEN || kind == CFG_LEVEL;
}

/* Every default from the table, applied like any other value. A row without
 * its metavar, default or meaning (a key added in the old three-column form)
 * stops here, so no key goes undocumented. */
static int config_defaults(server_config_t *cfg)
{
    char err[512];
    memset(cfg, 0, sizeof *cfg);
    for (size_t i = 0; i < CONFIG_KEY_COUNT; i++) {
        const config_key_t *key = &config_keys[i];
        if (key->metavar == NULL || key->fallback == NULL || key->meaning == NULL) {
            log_error("config: key %s lacks its metavar, default or meaning in server/config.c's table",
                      key->name);
            return -1;
        }
        if (config_apply(cfg, key, key->fallback, err, sizeof err) != 0) {
            log_error("config: the default of %s in server/config.c's table: %s", key->name, err);
            return -1;
        }
    }
    return 0;
}

/* The realm goes into a quoted header value: no quote, backslash or control byte. */
static int config_header_safe(const char *s)
{
    for (; *s; s++)
        if (*s == '"' || *s == '\\' || (unsigned char)*s < 0x20 || *s == 0x7f)
            return 0;
    return 1;
}

/* Settings that follow from others, and rules across keys. */
static int config_finish(server_config_t *cfg)
{
    if (cfg->threads == 0) {
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        cfg->threads = cores > 0 ? (int)(cores < CONFIG_MAX_THREADS ? cores : CONFIG_MAX_THREADS) : 1;
    }
    cfg->max_body_bytes = 8 * cfg->max_schema_bytes;
    if (cfg->max_subject_bytes > CONFIG_MAX_SUBJECT_BYTES) {
        log_error("config: max.subject.bytes: at most %d (PostgreSQL's index row limit)",
                  CONFIG_MAX_SUBJECT_BYTES);
        return -1;
    }
    /* 0 would close every connection at once; h2o refuses streams beyond the 100 it announces. */
    if (cfg->http1_request_timeout_ms < 100 || cfg->http2_idle_timeout_ms < 100) {
        log_error("config: http1.request.timeout.ms and http2.idle.timeout.ms: at least 100");
        return -1;
    }
    if (cfg->http2_max_concurrent_requests > 100) {
        log_error("config: http2.max.concurrent.requests: at most 100 (the streams h2o allows)");
        return -1;
    }
    if ((cfg->tls_cert == NULL) != (cfg->tls_key == NULL)) {
        log_error("config: tls.cert and tls.key must be set together");
        return -1;
    }
    if (cfg->tls_client_auth != CONFIG_CLIENT_AUTH_NONE &&
        (cfg->tls_cert == NULL || cfg->tls_client_ca == NULL)) {
        log_error("config: tls.client.auth needs tls.cert, tls.key and tls.client.ca");
        return -1;
    }
    if (cfg->tls_client_auth == CONFIG_CLIENT_AUTH_NONE && (cfg->tls_client_ca || cfg->tls_client_crl)) {
        log_error("config: tls.client.ca and tls.client.crl need tls.client.auth optional or required");
        return -1;
    }
    if (cfg->auth_realm == NULL || !config_header_safe(cfg->auth_realm)) {
        log_error("config: auth.realm must be set and hold no '\"', '\\' or control character");
        return -1;
    }
    if (cfg->group_id == NULL) {
        log_error("config: group.id must not be empty");
        return -1;
    }
    if (cfg->data_dir == NULL && cfg->database_url == NULL) {
        log_error("config: data.dir must not be empty without database.url (embedded database)");
        return -1;
    }
    return 0;
}

/* ---- 3. Sources ------------------------------------------------------------ */

char *config_trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

/* One "key = value" line; blank lines and '#' comment lines are skipped. */
static int config_file_line(server_config_t *cfg, const char *path, int lineno, char *line)
{
    char err[512];
    char *s = config_trim(line);
    if (*s == '\0' || *s == '#')
        return 0;
    char *eq = strchr(s, '=');
    if (eq == NULL) {
        log_error("config: %s:%d: expected 'key = value'", path, lineno);
        return -1;
    }
    *eq = '\0';
    char *name = config_trim(s);
    char *value = config_trim(eq + 1);
    const config_key_t *key = config_key_by_name(name, strlen(name));
    if (key == NULL) {
        log_error("config: %s:%d: unknown key '%s'", path, lineno, name);
        return -1;
    }
    if (config_apply(cfg, key, value, err, sizeof err) != 0) {
        log_error("config: %s:%d: %s: %s", path, lineno, name, err);
        return -1;
    }
    return 0;
}

static int config_from_file(server_config_t *cfg, const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        log_error("config: cannot open %s: %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0, rc = 0;
    while (rc == 0 && getline(&line, &cap, f) >= 0)
        rc = config_file_line(cfg, path, ++lineno, line);
    free(line);
    fclose(f);
    return rc;
}

/*
 * Unknown SCHEMA_REGISTRY_* variables only warn: Confluent's own container
 * images use that prefix (SCHEMA_REGISTRY_LISTENERS, ...), and a migrated
 * deployment may still carry them.
 */
static void config_warn_unknown_env(void)
{
    char spelled[64];
    for (char **e = environ; e && *e; e++) {
        if (strncmp(*e, CONFIG_ENV_PREFIX, strlen(CONFIG_ENV_PREFIX)) != 0)
            continue;
        const char *suffix = *e + strlen(CONFIG_ENV_PREFIX);
        size_t len = strcspn(suffix, "=");
        int known = len == strlen("CONFIG") && strncmp(suffix, "CONFIG", len) == 0;
        for (size_t i = 0; !known && i < CONFIG_KEY_COUNT; i++) {
            if (config_keys[i].kind == CFG_FILE_ONLY)
                continue;
            config_spell(config_keys[i].name, 1, spelled, sizeof spelled);
            known = strlen(spelled) == len && strncmp(spelled, suffix, len) == 0;
        }
        if (!known)
            log_warn("config: ignoring unknown variable %s%.*s", CONFIG_ENV_PREFIX, (int)len, suffix);
    }
}

static int config_from_env(server_config_t *cfg)
{
    char name[96], spelled[64], err[512];
    for (size_t i = 0; i < CONFIG_KEY_COUNT; i++) {
        if (config_keys[i].kind == CFG_FILE_ONLY)
            continue;
        config_spell(config_keys[i].name, 1, spelled, sizeof spelled);
        snprintf(name, sizeof name, CONFIG_ENV_PREFIX "%s", spelled);
        const char *value = getenv(name);
        if (value == NULL)
            continue;
        if (config_apply(cfg, &config_keys[i], value, err, sizeof err) != 0) {
            log_error("config: %s: %s", name, err);
            return -1;
        }
    }
    config_warn_unknown_env();
    return 0;
}

/*
 * Walks argv (argv[0] is the program or subcommand name and is skipped),
 * accepting "--flag value" and "--flag=value". With apply == 0 it only finds
 * --config; with apply == 1 it applies every other flag.
 */
static int config_from_argv(server_config_t *cfg, int argc, char **argv, int apply, const char **config_path)
{
    char err[512];
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strncmp(arg, "--", 2) != 0 || arg[2] == '\0') {
            log_error("config: unexpected argument '%s'", arg);
            return -1;
        }
        const char *name = arg + 2;
        const char *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const char *value = eq ? eq + 1 : NULL;
        int is_config = len == strlen("config") && strncmp(name, "config", len) == 0;
        /* The name first: "--nonsense" given last is unknown, not short of a value. */
        const config_key_t *key = is_config ? NULL : config_key_by_flag(name, len);
        if (!is_config && key == NULL) {
            log_error("config: unknown flag --%.*s (see --help)", (int)len, name);
            return -1;
        }
        if (value == NULL) {
            if (i + 1 >= argc) {
                log_error("config: --%.*s needs a value", (int)len, name);
                return -1;
            }
            value = argv[++i];
        }
        if (is_config) {
            *config_path = value;
            continue;
        }
        if (apply && config_apply(cfg, key, value, err, sizeof err) != 0) {
            log_error("config: --%.*s: %s", (int)len, name, err);
            return -1;
        }
    }
    return 0;
}

/* ---- 4. config_load / config_free ----------------------------------------- */

int config_load(server_config_t *cfg, int argc, char **argv)
{
    const char *path = getenv(CONFIG_ENV_PREFIX "CONFIG");
    if (config_defaults(cfg) != 0)
        goto fail;
    if (config_from_argv(cfg, argc, argv, 0, &path) != 0)
        goto fail;
    if (path != NULL && path[0] != '\0' && config_from_file(cfg, path) != 0)
        goto fail;
    if (path != NULL && path[0] != '\0')
        cfg->config_file = xstrdup(path);
    if (config_from_env(cfg) != 0)
        goto fail;
    if (config_from_argv(cfg, argc, argv, 1, &path) != 0)
        goto fail;
    if (config_finish(cfg) != 0)
        goto fail;
    return 0;
fail:
    config_free(cfg);
    return -1;
}

void config_free(server_config_t *cfg)
{
    for (size_t i = 0; i < CONFIG_KEY_COUNT; i++)
        if (config_kind_is_string(config_keys[i].kind))
            free(*(char **)((char *)cfg + config_keys[i].offset));
    free(cfg->config_file);
    memset(cfg, 0, sizeof *cfg);
}

/* ---- 5. The reference ------------------------------------------------------ */

/*
 * Three renderings of the one table (and of server/main.c's prose around it):
 * --help as wrapped plain text, schema-registry(1) as man(7) roff, and
 * `config --print-defaults` as the Markdown table docs/operations.md holds.
 * In the prose `...` marks literal text: dropped in --help, bold in roff,
 * kept in Markdown.
 */

#define CONFIG_HELP_WIDTH 78

/* The flag or variable of a key, as printed: "--db-threads", "SCHEMA_REGISTRY_DB_THREADS". */
static void config_flag_name(const config_key_t *key, char *out, size_t cap)
{
    char spelled[64];
    config_spell(key->name, 0, spelled, sizeof spelled);
    snprintf(out, cap, "--%s", spelled);
}

static void config_env_name(const config_key_t *key, char *out, size_t cap)
{
    char spelled[64];
    config_spell(key->name, 1, spelled, sizeof spelled);
    snprintf(out, cap, CONFIG_ENV_PREFIX "%s", spelled);
}

/* -- --help: plain text wrapped at CONFIG_HELP_WIDTH -- */

/*
 * Writes lead, then the words of the paragraph text[0..len) without their
 * backticks, wrapped: continuation lines start with indent spaces. col: the
 * column the caller's line is at.
 */
static void config_help_wrap(FILE *out, int col, const char *lead, const char *text, size_t len, int indent)
{
    fputs(lead, out);
    col += (int)strlen(lead);
    int space = lead[0] != '\0'; /* a space before the next word */
    size_t i = 0;
    while (i < len) {
        while (i < len && (text[i] == ' ' || text[i] == '\n'))
            i++;
        size_t start = i;
        int width = 0;
        for (; i < len && text[i] != ' ' && text[i] != '\n'; i++)
            width += text[i] != '`';
        if (width == 0)
            continue;
        if (col + space + width > CONFIG_HELP_WIDTH && col > indent) {
            fprintf(out, "\n%*s", indent, "");
            col = indent;
        } else if (space) {
            fputc(' ', out);
            col++;
        }
        for (size_t k = start; k < i; k++)
            if (text[k] != '`')
                fputc(text[k], out);
        col += width;
        space = 1;
    }
    fputc('\n', out);
}

/* Each "\n\n"-separated paragraph of text, wrapped at indent; lead before the first. */
static void config_help_paragraphs(FILE *out, const char *lead, const char *text, int indent)
{
    int first = 1;
    while (text && *text) {
        const char *end = strstr(text, "\n\n");
        size_t len = end ? (size_t)(end - text) : strlen(text);
        if (!first)
            fputc('\n', out);
        fprintf(out, "%*s", indent, "");
        config_help_wrap(out, indent, first ? lead : "", text, len, indent);
        first = 0;
        text = end ? end + 2 : text + len;
    }
}

static void config_help_item(FILE *out, const char *term, const char *text)
{
    fputs("  ", out);
    for (; *term; term++)
        if (*term != '`')
            fputc(*term, out);
    fputc('\n', out);
    config_help_paragraphs(out, "", text, 6);
}

static void config_help_settings(FILE *out)
{
    char flag[96], env[96], term[256];
    config_help_item(out, "--config FILE  (" CONFIG_ENV_PREFIX "CONFIG)",
                     "Config file of `key = value` lines; `#` starts a comment line.");
    for (size_t i = 0; i < CONFIG_KEY_COUNT; i++) {
        const config_key_t *key = &config_keys[i];
        if (key->kind == CFG_FILE_ONLY) {
            snprintf(term, sizeof term, "%s = %s  (config file only, repeatable)", key->name, key->metavar);
            config_help_item(out, term, key->meaning);
            continue;
        }
        config_flag_name(key, flag, sizeof flag);
        config_env_name(key, env, sizeof env);
        snprintf(term, sizeof term, "%s %s  (%s, %s)", flag, key->metavar, env, key->name);
        fprintf(out, "  %s\n", term);
        config_help_paragraphs(out, "", key->meaning, 6);
        fprintf(out, "      Default: %s.\n", key->fallback[0] ? key->fallback : "unset");
    }
}

void config_print_help(FILE *out, const config_doc_t *doc)
{
    int first = 1;
    for (const config_doc_section_t *sec = doc->sections; sec->title; sec++) {
        if (!(sec->where & CONFIG_DOC_HELP))
            continue;
        if (!first)
            fputc('\n', out);
        first = 0;
        char lead[128];
        snprintf(lead, sizeof lead, "%s.", sec->title);
        if (sec->text)
            config_help_paragraphs(out, lead, sec->text, 0);
        else
            fprintf(out, "%s:\n", sec->title);
        for (const config_doc_item_t *it = sec->items; it && it->term; it++)
            config_help_item(out, it->term, it->text);
        if (sec->where & CONFIG_DOC_SETTINGS)
            config_help_settings(out);
    }
}

/* -- The man page: roff with man(7) macros -- */

/* text[0..len) as roff text: backslashes and dashes escaped, `...` in bold, a
 * line never starting with a control character. */
static void config_roff_text(FILE *out, const char *text, size_t len)
{
    int bold = 0;
    if (len > 0 && (text[0] == '.' || text[0] == '\''))
        fputs("\\&", out);
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (c == '`') {
            fputs(bold ? "\\fR" : "\\fB", out);
            bold = !bold;
        } else if (c == '\\')
            fputs("\\e", out);
        else if (c == '-')
            fputs("\\-", out);
        else if (c == '\n')
            fputc(' ', out);
        else
            fputc(c, out);
    }
    if (bold)
        fputs("\\fR", out);
}

static void config_roff_line(FILE *out, const char *text)
{
    config_roff_text(out, text, strlen(text));
    fputc('\n', out);
}

/* Paragraphs of text; the first needs no .PP (first = 1 right after .SH or .TP). */
static void config_roff_paragraphs(FILE *out, const char *text, int first, const char *macro)
{
    while (text && *text) {
        const char *end = strstr(text, "\n\n");
        size_t len = end ? (size_t)(end - text) : strlen(text);
        if (!first)
            fprintf(out, "%s\n", macro);
        config_roff_text(out, text, len);
        fputc('\n', out);
        first = 0;
        text = end ? end + 2 : text + len;
    }
}

/* A .TP item: term (`...` in bold, the rest as written), then the text. */
static void config_roff_item(FILE *out, const char *term, const char *text)
{
    fputs(".TP\n", out);
    config_roff_line(out, term);
    config_roff_paragraphs(out, text, 1, ".IP");
}

static void config_man_settings(FILE *out)
{
    char flag[96], env[96];
    config_roff_item(out, "`--config` FILE",
                     "Config file of `key = value` lines; `#` starts a comment line (see FILES). Also "
                     "`" CONFIG_ENV_PREFIX "CONFIG`.");
    for (size_t i = 0; i < CONFIG_KEY_COUNT; i++) {
        const config_key_t *key = &config_keys[i];
        if (key->kind == CFG_FILE_ONLY)
            continue;
        config_flag_name(key, flag, sizeof flag);
        config_env_name(key, env, sizeof env);
        /* The flag in bold, its value in italics, as man pages write an option. */
        fputs(".TP\n\\fB", out);
        config_roff_text(out, flag, strlen(flag));
        fputs("\\fR \\fI", out);
        config_roff_text(out, key->metavar, strlen(key->metavar));
        fputs("\\fR\n", out);
        config_roff_line(out, key->meaning);
        fputs("Default: ", out);
        if (key->fallback[0]) {
            fputs("\\fB", out);
            config_roff_text(out, key->fallback, strlen(key->fallback));
            fputs("\\fR", out);
        } else
            fputs("unset", out);
        fputs(". Config file key \\fB", out);
        config_roff_text(out, key->name, strlen(key->name));
        fputs("\\fR, environment variable \\fB", out);
        config_roff_text(out, env, strlen(env));
        fputs("\\fR.\n", out);
    }
    fputs(".SS Config file only\n", out);
    fputs("These keys may appear any number of times, only in the config file.\n", out);
    for (size_t i = 0; i < CONFIG_KEY_COUNT; i++) {
        const config_key_t *key = &config_keys[i];
        if (key->kind != CFG_FILE_ONLY)
            continue;
        fputs(".TP\n\\fB", out);
        config_roff_text(out, key->name, strlen(key->name));
        fputs("\\fR = \\fI", out);
        config_roff_text(out, key->metavar, strlen(key->metavar));
        fputs("\\fR\n", out);
        config_roff_line(out, key->meaning);
    }
}

static void config_man_environment(FILE *out)
{
    char flag[96], env[96], term[256], text[256];
    for (size_t i = 0; i < CONFIG_KEY_COUNT; i++) {
        const config_key_t *key = &config_keys[i];
        if (key->kind == CFG_FILE_ONLY)
            continue;
        config_flag_name(key, flag, sizeof flag);
        config_env_name(key, env, sizeof env);
        snprintf(term, sizeof term, "`%s`", env);
        snprintf(text, sizeof text, "As `%s` (config file key `%s`).", flag, key->name);
        config_roff_item(out, term, text);
    }
}

static void config_man_write(FILE *out, const config_doc_t *doc)
{
    fputs(".\\\" Generated by `schema-registry config --print-man` from server/config.c's key table\n"
          ".\\\" and server/main.c; do not edit.\n",
          out);
    char title[64];
    size_t t = 0;
    for (; doc->program[t] && t + 1 < sizeof title; t++)
        title[t] = (char)toupper((unsigned char)doc->program[t]);
    title[t] = '\0';
    fputs(".TH ", out);
    config_roff_text(out, title, t);
    fprintf(out, " 1 \"%s\" \"", doc->date);
    config_roff_text(out, doc->program, strlen(doc->program));
    fprintf(out, " %s\" \"User Commands\"\n", doc->version);
    /* Flags, keys and paths are not words to hyphenate or stretch. */
    fputs(".nh\n.ad l\n", out);
    fputs(".SH NAME\n", out);
    config_roff_text(out, doc->program, strlen(doc->program));
    fputs(" \\- ", out);
    config_roff_line(out, doc->summary);
    for (const config_doc_section_t *sec = doc->sections; sec->title; sec++) {
        if (!(sec->where & CONFIG_DOC_MAN))
            continue;
        fputs(".SH ", out);
        for (const char *p = sec->title; *p; p++)
            fputc(toupper((unsigned char)*p), out);
        fputc('\n', out);
        config_roff_paragraphs(out, sec->text, 1, ".PP");
        for (const config_doc_item_t *it = sec->items; it && it->term; it++)
            config_roff_item(out, it->term, it->text);
        if (sec->where & CONFIG_DOC_SETTINGS)
            config_man_settings(out);
        if (sec->where & CONFIG_DOC_ENVIRONMENT)
            config_man_environment(out);
    }
}

/*
 * Copies the page to out with its text lines folded at spaces to at most
 * CONFIG_MAN_WIDTH bytes where a word allows (man(7) sources keep short lines;
 * `mandoc -T lint` says so). Requests (lines starting with '.') stay whole;
 * a folded line that would start with a control character gets "\&".
 */
#define CONFIG_MAN_WIDTH 80

static void config_roff_fold(FILE *out, const char *page, size_t len)
{
    const char *end = page + len;
    while (page < end) {
        const char *eol = memchr(page, '\n', (size_t)(end - page));
        size_t n = eol ? (size_t)(eol - page) : (size_t)(end - page);
        int request = page[0] == '.';
        int first = 1;
        while (n > 0) {
            size_t take = n;
            if (!request && n > CONFIG_MAN_WIDTH) {
                size_t cut = CONFIG_MAN_WIDTH;
                while (cut > 0 && page[cut] != ' ')
                    cut--;
                if (cut == 0) /* one long word: up to the next space */
                    for (cut = CONFIG_MAN_WIDTH; cut < n && page[cut] != ' '; cut++)
                        ;
                take = cut;
            }
            if (!first && (page[0] == '.' || page[0] == '\''))
                fputs("\\&", out);
            fwrite(page, 1, take, out);
            fputc('\n', out);
            first = 0;
            page += take;
            n -= take;
            while (n > 0 && page[0] == ' ')
                page++, n--;
        }
        page = eol ? eol + 1 : end;
    }
}

void config_print_man(FILE *out, const config_doc_t *doc)
{
    char *page = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&page, &len);
    if (mem == NULL) {
        config_man_write(out, doc);
        return;
    }
    config_man_write(mem, doc);
    fclose(mem);
    config_roff_fold(out, page, len);
    free(page);
}

/* -- The Markdown table -- */

/* text as a table cell: a '|' would end the cell. */
static void config_md_cell(FILE *out, const char *text)
{
    for (; *text; text++) {
        if (*text == '|')
            fputc('\\', out);
        fputc(*text, out);
    }
}

void config_print_defaults(FILE *out)
{
    char flag[96], env[96];
    fputs("| Key | Environment variable | Flag | Default | Meaning |\n"
          "| --- | --- | --- | --- | --- |\n",
          out);
    for (size_t i = 0; i < CONFIG_KEY_COUNT; i++) {
        const config_key_t *key = &config_keys[i];
        fprintf(out, "| `%s` | ", key->name);
        if (key->kind == CFG_FILE_ONLY) {
            fputs("(config file only) | (none) | unset | `", out);
            config_md_cell(out, key->metavar);
            fputs("`, repeatable. ", out);
        } else {
            config_flag_name(key, flag, sizeof flag);
            config_env_name(key, env, sizeof env);
            fprintf(out, "`%s` | `%s ", env, flag);
            config_md_cell(out, key->metavar);
            fputs("` | ", out);
            if (key->fallback[0]) {
                fputc('`', out);
                config_md_cell(out, key->fallback);
                fputc('`', out);
            } else
                fputs("unset", out);
            fputs(" | ", out);
        }
        config_md_cell(out, key->meaning);
        fputs(" |\n", out);
    }
}
