/*
 * config: defaults < file < SCHEMA_REGISTRY_* environment < flags (config.h).
 *
 * Contents
 *   1. The key table (every setting, once)
 *   2. Values: parse and validate one key
 *   3. Sources: file, environment, argv
 *   4. config_load / config_free
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
    CFG_STRING,      /* char *, "" means unset */
    CFG_LISTEN,      /* char *, HOST:PORT */
    CFG_THREADS,     /* int, 0 = one per core */
    CFG_COUNT,       /* int >= 1 */
    CFG_MILLIS,      /* int >= 0 */
    CFG_LIMIT,       /* int from 0 to CONFIG_MAX_LIMIT */
    CFG_BYTES,       /* size_t >= 1 */
    CFG_PROFILE,     /* int flag from classic|extended */
    CFG_LEVEL,       /* char *, a compatibility level, stored upper-case */
    CFG_CLIENT_AUTH, /* int from none|optional|required */
    CFG_PRINCIPAL,   /* int from cn|san-dns|san-email|san-uri */
} config_kind_t;

typedef struct config_key {
    const char *name;
    config_kind_t kind;
    size_t offset;
} config_key_t;

#define FIELD(f) offsetof(server_config_t, f)

static const config_key_t config_keys[] = {
    {"listen", CFG_LISTEN, FIELD(listen)},
    {"database.url", CFG_STRING, FIELD(database_url)},
    {"data.dir", CFG_STRING, FIELD(data_dir)},
    {"threads", CFG_THREADS, FIELD(threads)},
    {"db.threads", CFG_COUNT, FIELD(db_threads)},
    {"tls.cert", CFG_STRING, FIELD(tls_cert)},
    {"tls.key", CFG_STRING, FIELD(tls_key)},
    {"max.schema.bytes", CFG_BYTES, FIELD(max_schema_bytes)},
    {"response.profile", CFG_PROFILE, FIELD(extended_profile)},
    {"kafka.cluster.id", CFG_STRING, FIELD(kafka_cluster_id)},
    {"group.id", CFG_STRING, FIELD(group_id)},
    {"schema.compatibility.level", CFG_LEVEL, FIELD(default_compatibility)},
    {"feed.interval.ms", CFG_MILLIS, FIELD(feed_interval_ms)},
    {"max.connections", CFG_LIMIT, FIELD(max_connections)},
    {"max.connection.jobs", CFG_LIMIT, FIELD(max_connection_jobs)},
    {"max.queued.jobs", CFG_LIMIT, FIELD(max_queued_jobs)},
    {"max.subject.bytes", CFG_BYTES, FIELD(max_subject_bytes)},
    {"changes.retention.seconds", CFG_LIMIT, FIELD(changes_retention_s)},
    {"auth.basic.users.file", CFG_STRING, FIELD(auth_users_file)},
    {"auth.realm", CFG_STRING, FIELD(auth_realm)},
    {"auth.anonymous", CFG_STRING, FIELD(auth_anonymous)},
    {"auth.max.failures", CFG_LIMIT, FIELD(auth_max_failures)},
    {"tls.client.auth", CFG_CLIENT_AUTH, FIELD(tls_client_auth)},
    {"tls.client.ca", CFG_STRING, FIELD(tls_client_ca)},
    {"tls.client.crl", CFG_STRING, FIELD(tls_client_crl)},
    {"tls.client.principal", CFG_PRINCIPAL, FIELD(tls_client_principal)},
    {"max.connection.resets", CFG_LIMIT, FIELD(max_connection_resets)},
    {"max.request.headers", CFG_LIMIT, FIELD(max_request_headers)},
    {"max.request.header.bytes", CFG_BYTES, FIELD(max_request_header_bytes)},
    {"http1.request.timeout.ms", CFG_MILLIS, FIELD(http1_request_timeout_ms)},
    {"http2.idle.timeout.ms", CFG_MILLIS, FIELD(http2_idle_timeout_ms)},
    {"http2.max.concurrent.requests", CFG_COUNT, FIELD(http2_max_concurrent_requests)},
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

/* The words of an enumerated key, in the order of its enum (config.h). */
static const char *const config_client_auth_words[] = {"none", "optional", "required", NULL};
static const char *const config_principal_words[] = {"cn", "san-dns", "san-email", "san-uri", NULL};

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
    case CFG_PROFILE:
        if (strcasecmp(value, "classic") != 0 && strcasecmp(value, "extended") != 0)
            break;
        *(int *)(base + key->offset) = strcasecmp(value, "extended") == 0;
        return 0;
    case CFG_LEVEL:
        if (compat_level_parse(value, &level) != 0)
            break;
        config_set_string((char **)(base + key->offset), compat_level_name(level));
        return 0;
    case CFG_CLIENT_AUTH:
    case CFG_PRINCIPAL:
        n = config_word(value,
                        key->kind == CFG_CLIENT_AUTH ? config_client_auth_words : config_principal_words);
        if (n < 0)
            break;
        *(int *)(base + key->offset) = (int)n;
        return 0;
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
    };
    snprintf(err, errcap, "invalid value '%s' (expected %s)", value, expected[key->kind]);
    return -1;
}

static void config_defaults(server_config_t *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->listen = xstrdup("0.0.0.0:8081");
    cfg->data_dir = xstrdup("./var");
    cfg->threads = 0;
    /* Group commit (registry/group.c) gathers what the workers hold: 16 made
     * groups of 7-8 under 16 writing clients where 8 made 5 (docs/performance.md). */
    cfg->db_threads = 16;
    cfg->max_schema_bytes = 1048576;
    cfg->group_id = xstrdup("schema-registry");
    cfg->default_compatibility = xstrdup("BACKWARD");
    cfg->feed_interval_ms = 500;
    cfg->max_connection_jobs = 100;
    cfg->max_queued_jobs = 1000;
    cfg->max_subject_bytes = 2048;
    cfg->changes_retention_s = 86400;
    cfg->auth_realm = xstrdup("SchemaRegistry");
    cfg->auth_max_failures = 10;
    cfg->max_connection_resets = 100; /* h2o's own reset budget: its concurrent-stream limit */
    cfg->max_request_headers = 100;   /* h2o's HTTP/1.1 parser takes no more (H2O_MAX_HEADERS) */
    cfg->max_request_header_bytes = 65536;
    cfg->http1_request_timeout_ms = 10000; /* h2o's defaults */
    cfg->http2_idle_timeout_ms = 10000;
    cfg->http2_max_concurrent_requests = 100; /* h2o announces 100 streams and refuses more */
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
    /* Repeatable keys, read from the file by server/authz.c (start and SIGHUP). */
    if (strcmp(name, "auth.rule") == 0 || strcmp(name, "auth.group") == 0)
        return 0;
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
    config_defaults(cfg);
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
    free(cfg->listen);
    free(cfg->database_url);
    free(cfg->data_dir);
    free(cfg->tls_cert);
    free(cfg->tls_key);
    free(cfg->kafka_cluster_id);
    free(cfg->group_id);
    free(cfg->default_compatibility);
    free(cfg->config_file);
    free(cfg->auth_users_file);
    free(cfg->auth_realm);
    free(cfg->auth_anonymous);
    free(cfg->tls_client_ca);
    free(cfg->tls_client_crl);
    memset(cfg, 0, sizeof *cfg);
}
