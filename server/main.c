/*
 * main: the schema-registry command.
 *
 *   schema-registry [serve] [flags]   run the server until SIGINT/SIGTERM
 *   schema-registry migrate [flags]   apply the database migrations and exit
 *   schema-registry passwd USER [flags]  set USER's password in the users file
 *   schema-registry export [--output FILE] [flags]   the registry as JSON lines
 *   schema-registry import [FILE] [--delimiter D] [flags]  an export or a _schemas dump
 *   schema-registry --help | --version
 *
 * Exit status: 0 clean stop, 1 runtime or start-up failure, 2 bad usage or
 * configuration.
 */
#include <errno.h>
#include <grp.h>
#include <pthread.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "compat/level.h"
#include "store/pg_embedded.h"
#include "registry/registry.h"
#include "store/store.h"
#include "server/auth.h"
#include "server/authz.h"
#include "server/cmd_transfer.h"
#include "server/config.h"
#include "server/http_server.h"
#include "base/log.h"

static const char main_usage[] =
    "Usage:\n"
    "  schema-registry [serve] [flags]   run the server (the default command)\n"
    "  schema-registry migrate [flags]   apply database migrations, then exit\n"
    "  schema-registry passwd USER [flags]\n"
    "                                    set USER's password in auth.basic.users.file:\n"
    "                                    read from the terminal (no echo, twice) or one\n"
    "                                    line of stdin, never from the command line\n"
    "  schema-registry export [--output FILE] [flags]\n"
    "                                    write every context, subject, version, schema,\n"
    "                                    config and mode as JSON lines (stdout by default)\n"
    "  schema-registry import [FILE] [--delimiter D] [flags]\n"
    "                                    read an export, or a dump of Confluent's _schemas\n"
    "                                    topic as `kcat -C -K '\\t'` prints it (stdin by\n"
    "                                    default), and write what is missing in IMPORT mode,\n"
    "                                    ids and versions kept; see docs/operations.md\n"
    "  schema-registry --help            this text\n"
    "  schema-registry --version         version and build commit\n"
    "\n"
    "Settings. Each has a flag, an environment variable and a config file key;\n"
    "flags win over the environment, the environment over the file, the file\n"
    "over the defaults. Flags take '--flag VALUE' or '--flag=VALUE'.\n"
    "\n"
    "  --config FILE                      SCHEMA_REGISTRY_CONFIG\n"
    "      Config file of 'key = value' lines; '#' starts a comment line.\n"
    "  --listen HOST:PORT                 SCHEMA_REGISTRY_LISTEN                      listen\n"
    "      Address to serve on; [::]:PORT for IPv6, port 0 picks a free port.\n"
    "      Default 0.0.0.0:8081.\n"
    "  --database-url URL                 SCHEMA_REGISTRY_DATABASE_URL                database.url\n"
    "      PostgreSQL as a libpq URL or conninfo. Unset: an embedded PostgreSQL\n"
    "      cluster under data.dir, started and stopped with the server.\n"
    "  --data-dir DIR                     SCHEMA_REGISTRY_DATA_DIR                    data.dir\n"
    "      Home of the embedded cluster. Default ./var.\n"
    "  --threads N                        SCHEMA_REGISTRY_THREADS                     threads\n"
    "      HTTP event-loop threads; 0 = one per CPU core (the default).\n"
    "  --db-threads N                     SCHEMA_REGISTRY_DB_THREADS                  db.threads\n"
    "      Database worker threads, one connection each. Default 4.\n"
    "  --database-read-url URL            SCHEMA_REGISTRY_DATABASE_READ_URL           database.read.url\n"
    "      A read replica for start-up loads and catching up with other nodes,\n"
    "      used only when it has replayed what the primary had. Unset: none.\n"
    "  --database-timeout-ms N            SCHEMA_REGISTRY_DATABASE_TIMEOUT_MS         database.timeout.ms\n"
    "      Longest wait for the database: a connect per host, a request's statement,\n"
    "      an unanswered send. 0 = none. Default 10000.\n"
    "  --tls-cert FILE                    SCHEMA_REGISTRY_TLS_CERT                    tls.cert\n"
    "  --tls-key FILE                     SCHEMA_REGISTRY_TLS_KEY                     tls.key\n"
    "      PEM certificate chain and private key; both set = HTTPS only\n"
    "      (TLS 1.2+, ALPN h2 and http/1.1). Default: plain HTTP/1.1 and h2c.\n"
    "  --max-schema-bytes N               SCHEMA_REGISTRY_MAX_SCHEMA_BYTES            max.schema.bytes\n"
    "      Largest schema text accepted (error 42209 above). Request bodies may\n"
    "      be 8 times this (413 above). Default 1048576.\n"
    "  --response-profile classic|extended  SCHEMA_REGISTRY_RESPONSE_PROFILE          response.profile\n"
    "      extended always sends the Confluent 8.x response fields; classic\n"
    "      only when the request asks (Confluent-Accept-Unknown-Properties).\n"
    "      Default classic.\n"
    "  --kafka-cluster-id ID              SCHEMA_REGISTRY_KAFKA_CLUSTER_ID            kafka.cluster.id\n"
    "      Reported by GET /v1/metadata/id. Default: derived from the database.\n"
    "  --group-id ID                      SCHEMA_REGISTRY_GROUP_ID                    group.id\n"
    "      schema-registry-cluster in GET /v1/metadata/id. Default schema-registry.\n"
    "  --schema-compatibility-level LEVEL SCHEMA_REGISTRY_SCHEMA_COMPATIBILITY_LEVEL  "
    "schema.compatibility.level\n"
    "      Global compatibility until PUT /config sets one: NONE, BACKWARD,\n"
    "      BACKWARD_TRANSITIVE, FORWARD, FORWARD_TRANSITIVE, FULL, FULL_TRANSITIVE.\n"
    "      Default BACKWARD.\n"
    "  --feed-interval-ms N               SCHEMA_REGISTRY_FEED_INTERVAL_MS            feed.interval.ms\n"
    "      How often a node polls the database for other nodes' changes;\n"
    "      0 = never (single node). Default 500.\n"
    "  --max-connections N                SCHEMA_REGISTRY_MAX_CONNECTIONS             max.connections\n"
    "      Open client connections at once; 0 = the open-file limit less 64.\n"
    "  --max-connection-jobs N            SCHEMA_REGISTRY_MAX_CONNECTION_JOBS         max.connection.jobs\n"
    "      Database requests in flight per connection (429 beyond). Default 100.\n"
    "  --max-queued-jobs N                SCHEMA_REGISTRY_MAX_QUEUED_JOBS             max.queued.jobs\n"
    "      Database requests in flight per HTTP thread (503 beyond). Default 1000.\n"
    "  --max-subject-bytes N              SCHEMA_REGISTRY_MAX_SUBJECT_BYTES           max.subject.bytes\n"
    "      Longest subject name in bytes (42208 beyond; at most 2600). Default 2048.\n"
    "  --changes-retention-seconds N      SCHEMA_REGISTRY_CHANGES_RETENTION_SECONDS   "
    "changes.retention.seconds\n"
    "      How long the change feed between nodes keeps a change; a node that\n"
    "      falls further behind reloads everything. 0 = forever. Default 86400.\n"
    "\n"
    "Authentication (docs/security.md). With a users file or tls.client.auth,\n"
    "every request but /health/live and /health/ready needs credentials (401).\n"
    "  --auth-basic-users-file FILE       SCHEMA_REGISTRY_AUTH_BASIC_USERS_FILE       auth.basic.users.file\n"
    "      HTTP Basic users, 'user:hash' lines made by 'schema-registry passwd'.\n"
    "  --auth-realm NAME                  SCHEMA_REGISTRY_AUTH_REALM                  auth.realm\n"
    "      realm of WWW-Authenticate: Basic. Default SchemaRegistry.\n"
    "  --auth-anonymous PRINCIPAL         SCHEMA_REGISTRY_AUTH_ANONYMOUS              auth.anonymous\n"
    "      principal of requests without credentials. Default unset (401).\n"
    "  --auth-max-failures N              SCHEMA_REGISTRY_AUTH_MAX_FAILURES           auth.max.failures\n"
    "      failed attempts per minute per client address (429 beyond); 0 = no cap.\n"
    "      Default 10.\n"
    "  auth.rule = WHO PERMISSIONS PATTERN, auth.group = NAME MEMBER,...\n"
    "      config file only, repeatable: who may read, write, delete or admin\n"
    "      which subjects, /config, /mode, /schemas, /contexts. No rule: every\n"
    "      authenticated principal may do everything (403 beyond the rules).\n"
    "  --tls-client-auth MODE             SCHEMA_REGISTRY_TLS_CLIENT_AUTH             tls.client.auth\n"
    "      none, optional or required client certificates. Default none.\n"
    "  --tls-client-ca FILE               SCHEMA_REGISTRY_TLS_CLIENT_CA               tls.client.ca\n"
    "  --tls-client-crl FILE              SCHEMA_REGISTRY_TLS_CLIENT_CRL              tls.client.crl\n"
    "      PEM CAs client certificates must chain to; PEM CRLs checked for them.\n"
    "  --tls-client-principal WHAT        SCHEMA_REGISTRY_TLS_CLIENT_PRINCIPAL        tls.client.principal\n"
    "      the certificate's cn, san-dns, san-email or san-uri names the principal.\n"
    "      Default cn.\n"
    "\n"
    "Running as root. PostgreSQL refuses root, so the embedded cluster runs as\n"
    "the user 'postgres' (else 'nobody'); when that user cannot enter the data\n"
    "directory (a parent of mode 700, such as /root), the cluster lives in\n"
    "/var/lib/schema-registry/clusters/ and DATA_DIR/cluster records where.\n"
    "Started through sudo (SUDO_UID set), the server drops to the invoking user\n"
    "before it touches any file, so ./var belongs to that user.\n"
    "\n"
    "Signals. SIGINT (Ctrl-C) and SIGTERM stop the server: no new connections,\n"
    "requests in flight finish (after 5 s the queries still running are\n"
    "cancelled), then the embedded PostgreSQL stops. SIGHUP reloads the TLS\n"
    "certificate, key, client CA and CRL files, the users file and the\n"
    "auth.rule and auth.group lines of the config file; other settings are\n"
    "read at start only.\n"
    "\n"
    "Exit status. 0 after a clean stop; 1 when start-up or the server fails\n"
    "(port in use, database unreachable, unreadable TLS files); 2 for bad\n"
    "usage or configuration.\n"
    "\n"
    "Logs go to stderr, one line per event and per request. See docs/operations.md.\n";

/* ---- The database: embedded or external, connected and migrated ------------ */

typedef struct main_db {
    pgembed_t *embedded;  /* NULL with an external database */
    const char *conninfo; /* borrowed from the config or from embedded */
    store_t *store;
} main_db_t;

static void main_db_close(main_db_t *db)
{
    if (db->store)
        store_close(db->store);
    pgembed_stop(db->embedded);
    memset(db, 0, sizeof *db);
}

static int main_db_fail(main_db_t *db, const char *what, char *error)
{
    log_error("%s: %s", what, error ? error : "unknown error");
    free(error);
    main_db_close(db);
    return -1;
}

static void main_db_notice(const char *message)
{
    log_info("database: %s", message);
}

static int main_db_open(const server_config_t *cfg, main_db_t *db)
{
    char *error = NULL;
    memset(db, 0, sizeof *db);
    store_set_timeout(cfg->database_timeout_ms); /* before the first connection: every one takes it */
    if (cfg->database_url != NULL) {
        db->conninfo = cfg->database_url;
        log_info("database: external PostgreSQL");
    } else {
        log_info("database: embedded PostgreSQL in %s", cfg->data_dir);
        db->embedded = pgembed_start(cfg->data_dir, main_db_notice, &error);
        if (db->embedded == NULL)
            return main_db_fail(db, "cannot start the embedded PostgreSQL", error);
        db->conninfo = pgembed_conninfo(db->embedded);
    }
    db->store = store_open(db->conninfo, &error);
    if (db->store == NULL)
        return main_db_fail(db, "cannot connect to the database", error);
    if (registry_migrate(db->store, &error) != 0)
        return main_db_fail(db, "cannot apply database migrations", error);
    return 0;
}

/* ---- Commands ----------------------------------------------------------------- */

/*
 * Blocks until SIGINT or SIGTERM (blocked in every thread since main() began).
 * SIGHUP reloads what can change without a restart: the TLS files (renewals,
 * a new CRL), the users file and the auth.rule/auth.group lines of the
 * config file; every other setting is read at start only.
 * A file that does not load keeps what was in use.
 */
static int main_wait_for_signal(http_server_t *srv, auth_t *auth, authz_t *authz)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    for (;;) {
        int sig = 0;
        if (sigwait(&set, &sig) != 0)
            continue;
        if (sig != SIGHUP)
            return sig;
        char *error = NULL;
        if (http_server_reload_tls(srv, &error) != 0)
            log_error("SIGHUP: %s; the previous certificate stays in use", error);
        else
            log_info("SIGHUP: TLS certificate and key reloaded (when configured); other settings "
                     "are read at start only");
        free(error);
        error = NULL;
        if (auth_reload(auth, &error) != 0)
            log_error("SIGHUP: auth: %s; the previous users stay in use", error);
        free(error);
        error = NULL;
        if (authz_reload(authz, &error) != 0)
            log_error("SIGHUP: authz: %s; the previous rules stay in use", error);
        free(error);
    }
}

static int main_migrate(const server_config_t *cfg)
{
    main_db_t db;
    if (main_db_open(cfg, &db) != 0)
        return 1;
    log_info("migrations applied");
    main_db_close(&db);
    return 0;
}

/* ---- export and import ------------------------------------------------------------ */

/* The flags of export and import that are not settings; config_load sees the rest. */
typedef struct main_transfer {
    const char *output;    /* export */
    const char *file;      /* import */
    const char *delimiter; /* import */
} main_transfer_t;

/* Takes the command's own flags out of argv[first..argc) (in place); the new argc, or -1. */
static int main_transfer_args(const char *command, int argc, char **argv, int first, main_transfer_t *t)
{
    int is_export = strcmp(command, "export") == 0, out = first;
    memset(t, 0, sizeof *t);
    for (int i = first; i < argc; i++) {
        const char *a = argv[i];
        const char *flag = is_export ? "--output" : "--delimiter";
        const char **slot = is_export ? &t->output : &t->delimiter;
        size_t n = strlen(flag);
        if (strncmp(a, flag, n) == 0 && (a[n] == '\0' || a[n] == '=')) {
            if (a[n] == '=')
                *slot = a + n + 1;
            else if (i + 1 < argc)
                *slot = argv[++i];
            else {
                fprintf(stderr, "schema-registry %s: %s needs a value\n", command, flag);
                return -1;
            }
        } else if (!is_export && (a[0] != '-' || strcmp(a, "-") == 0) && i == first && !t->file) {
            t->file = a;
        } else {
            argv[out++] = argv[i];
        }
    }
    return out;
}

/*
 * In-process, on the database the settings name, as serve does
 * (docs/operations.md, "Export and import"). The embedded cluster is one
 * process's: a data directory a running server holds is refused by
 * pgembed_start's lock before anything is touched.
 */
static int main_transfer(const char *command, const main_transfer_t *t, const server_config_t *cfg)
{
    main_db_t db;
    if (main_db_open(cfg, &db) != 0) {
        if (cfg->database_url == NULL)
            fprintf(stderr,
                    "schema-registry %s: the embedded database under %s could not be opened (see above); "
                    "when a server runs on it, stop it first, or run both against one external "
                    "PostgreSQL (--database-url)\n",
                    command, cfg->data_dir);
        return 1;
    }
    int rc;
    if (strcmp(command, "export") == 0) {
        rc = cmd_export(db.store, t->output);
    } else {
        compat_level_t level = COMPAT_BACKWARD;
        compat_level_parse(cfg->default_compatibility, &level);
        /* No feed thread: the command is the only reader of its index. */
        registry_options_t opts = {
            db.conninfo, level, cfg->max_schema_bytes, 0, cfg->max_subject_bytes, cfg->changes_retention_s};
        cmd_import_options_t io = {t->file, t->delimiter};
        rc = cmd_import(db.store, &opts, &io);
    }
    main_db_close(&db);
    return rc;
}

/* ---- passwd: a users-file line ------------------------------------------------- */

#define MAIN_PASSWORD_MAX 1024

/* One line from f into buf (cap bytes), without its end of line; its length or -1. */
static long main_read_line(FILE *f, char *buf, size_t cap)
{
    if (fgets(buf, (int)cap, f) == NULL)
        return -1;
    size_t n = strlen(buf);
    if (n == cap - 1 && buf[n - 1] != '\n')
        return -1; /* longer than the buffer */
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
        buf[--n] = '\0';
    return (long)n;
}

/* Reads the password from the terminal without echo, or else from one line of stdin. */
static long main_read_password(const char *user, char *buf, size_t cap)
{
    if (!isatty(STDIN_FILENO))
        return main_read_line(stdin, buf, cap);
    struct termios saved, quiet;
    if (tcgetattr(STDIN_FILENO, &saved) != 0)
        return -1;
    quiet = saved;
    quiet.c_lflag &= (tcflag_t)~ECHO;
    quiet.c_lflag |= ECHONL;
    char again[MAIN_PASSWORD_MAX + 2];
    /* Echo off before the prompt: TCSAFLUSH drops what was typed before it, not after. */
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet);
    fprintf(stderr, "Password for %s: ", user);
    long n = main_read_line(stdin, buf, cap);
    long m = -1;
    if (n >= 0) {
        fprintf(stderr, "Again: ");
        m = main_read_line(stdin, again, sizeof again);
    }
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
    int same = n >= 0 && m == n && strcmp(buf, again) == 0;
    OPENSSL_cleanse(again, sizeof again);
    if (n >= 0 && !same) {
        fprintf(stderr, "schema-registry passwd: the passwords differ\n");
        return -2;
    }
    return n;
}

/*
 * schema-registry passwd USER [flags]: hashes a password read from the
 * terminal or stdin (never argv, which every user of the machine can read in
 * /proc) and writes USER's line of auth.basic.users.file. A running server
 * takes it on SIGHUP.
 */
static int main_passwd(const char *user, const server_config_t *cfg)
{
    if (!auth_user_name_ok(user)) {
        fprintf(stderr, "schema-registry passwd: invalid user name (1 to 128 bytes; no ':', space or "
                        "control character; not starting with '#')\n");
        return 2;
    }
    if (cfg->auth_users_file == NULL) {
        fprintf(stderr, "schema-registry passwd: no users file: set --auth-basic-users-file FILE "
                        "(or auth.basic.users.file in --config FILE)\n");
        return 2;
    }
    char password[MAIN_PASSWORD_MAX + 2];
    long n = main_read_password(user, password, sizeof password);
    if (n <= 0) {
        if (n != -2)
            fprintf(stderr, "schema-registry passwd: %s\n",
                    n == 0 ? "the password is empty" : "no password read (at most 1024 bytes, one line)");
        OPENSSL_cleanse(password, sizeof password);
        return 2;
    }
    char *encoded = auth_hash_new(password, (size_t)n);
    OPENSSL_cleanse(password, sizeof password);
    if (encoded == NULL) {
        fprintf(stderr, "schema-registry passwd: cannot hash the password (OpenSSL)\n");
        return 1;
    }
    char *error = NULL;
    int rc = auth_users_file_put(cfg->auth_users_file, user, encoded, &error);
    free(encoded);
    if (rc != 0) {
        fprintf(stderr, "schema-registry passwd: %s\n", error);
        free(error);
        return 1;
    }
    fprintf(stderr, "schema-registry passwd: %s set in %s (a running server reads it on SIGHUP)\n", user,
            cfg->auth_users_file);
    return 0;
}

static int main_serve(const server_config_t *cfg)
{
    main_db_t db;
    char *error = NULL;
    compat_level_t level = COMPAT_BACKWARD;
    compat_level_parse(cfg->default_compatibility, &level); /* validated by config_load */

    /* The port and the TLS files first: a taken port must not cost a database start. */
    http_server_t *srv = http_server_new(cfg, &error);
    if (srv == NULL) {
        log_error("%s", error ? error : "cannot start the HTTP server");
        free(error);
        return 1;
    }
    auth_t *auth = auth_new(cfg, &error);
    if (auth == NULL) {
        log_error("auth: %s", error ? error : "cannot start");
        free(error);
        http_server_stop(srv);
        return 1;
    }
    http_server_use_auth(srv, auth);
    authz_t *authz = authz_new(cfg, auth_enabled(auth), &error);
    if (authz == NULL) {
        log_error("authz: %s", error ? error : "cannot start");
        free(error);
        http_server_stop(srv);
        auth_free(auth);
        return 1;
    }
    http_server_use_authz(srv, authz);
    if (main_db_open(cfg, &db) != 0) {
        http_server_stop(srv);
        authz_free(authz);
        auth_free(auth);
        return 1;
    }
    registry_options_t opts = {db.conninfo,
                               level,
                               cfg->max_schema_bytes,
                               cfg->feed_interval_ms,
                               cfg->max_subject_bytes,
                               cfg->changes_retention_s,
                               cfg->database_read_url};
    registry_t *reg = registry_new(&opts, db.store, &error);
    if (reg == NULL) {
        http_server_stop(srv);
        authz_free(authz);
        auth_free(auth);
        main_db_fail(&db, "cannot load the registry", error);
        return 1;
    }
    if (http_server_start(srv, reg, db.conninfo, &error) != 0) {
        log_error("%s", error ? error : "cannot start the HTTP server");
        free(error);
        http_server_stop(srv);
        authz_free(authz);
        auth_free(auth);
        registry_free(reg);
        main_db_close(&db);
        return 1;
    }
    log_info("schema-registry %s listening on %s (%s; %d HTTP threads, %d database threads)", SR_VERSION,
             http_server_address(srv), cfg->tls_cert ? "HTTPS, ALPN h2 + http/1.1" : "HTTP/1.1 + h2c",
             cfg->threads, cfg->db_threads);

    if (auth_enabled(auth))
        log_info("authentication: %s%s%s%s", cfg->auth_users_file ? "HTTP Basic" : "",
                 cfg->auth_users_file && cfg->tls_client_auth ? ", " : "",
                 cfg->tls_client_auth == CONFIG_CLIENT_AUTH_REQUIRED   ? "client certificates required"
                 : cfg->tls_client_auth == CONFIG_CLIENT_AUTH_OPTIONAL ? "client certificates optional"
                                                                       : "",
                 cfg->auth_anonymous ? ", anonymous allowed" : "");

    int sig = main_wait_for_signal(srv, auth, authz);
    log_info("received %s, shutting down", sig == SIGINT ? "SIGINT" : "SIGTERM");
    http_server_stop(srv);
    authz_free(authz);
    auth_free(auth);
    registry_free(reg);
    main_db_close(&db);
    log_info("stopped");
    return 0;
}

/*
 * `sudo schema-registry` (or `sudo make run`): the person meant to run it,
 * not root. Become the invoking user (SUDO_UID/SUDO_GID, set by sudo) before
 * any file is made, so ./var is theirs and PostgreSQL runs as them too.
 */
static int main_drop_sudo(void)
{
    const char *uid_s = getenv("SUDO_UID"), *gid_s = getenv("SUDO_GID");
    if (geteuid() != 0 || uid_s == NULL || gid_s == NULL)
        return 0;
    char *end_u, *end_g;
    long uid = strtol(uid_s, &end_u, 10), gid = strtol(gid_s, &end_g, 10);
    if (*end_u != '\0' || *end_g != '\0' || uid <= 0 || gid < 0)
        return 0; /* sudo from root itself, or nonsense: stay as we are */
    struct passwd *pw = getpwuid((uid_t)uid);
    if ((pw ? initgroups(pw->pw_name, (gid_t)gid) : setgroups(0, NULL)) != 0 || setgid((gid_t)gid) != 0 ||
        setuid((uid_t)uid) != 0) {
        log_error("started through sudo: cannot become uid %ld: %s", uid, strerror(errno));
        return -1;
    }
    if (pw != NULL)
        setenv("HOME", pw->pw_dir, 1);
    log_info("started through sudo: running as %s (uid %ld), not root", pw ? pw->pw_name : "?", uid);
    return 0;
}

/* ---- Sanitizer builds ------------------------------------------------------------ */

/*
 * LeakSanitizer reads this hook at exit. h2o 2.2.5 keeps freed memory-pool
 * chunks and HTTP/2 write buffers in thread-local free lists that no API
 * empties; once a loop thread is joined they look leaked. Only memory that
 * passed through that cache is exempt; everything else is still checked.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
    return "leak:h2o_mem_alloc_recycle\n";
}

/* ---- main ------------------------------------------------------------------------ */

static int main_is(const char *arg, const char *a, const char *b)
{
    return strcmp(arg, a) == 0 || (b && strcmp(arg, b) == 0);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (main_is(argv[i], "--help", "-h")) {
            fputs(main_usage, stdout);
            return 0;
        }
        if (main_is(argv[i], "--version", NULL)) {
            printf("schema-registry %s (commit %s)\n", SR_VERSION, SR_COMMIT);
            return 0;
        }
    }
    int first = 1;
    const char *command = "serve";
    if (argc > 1 && argv[1][0] != '-') {
        command = argv[1];
        first = 2;
    }
    int transfer = main_is(command, "export", "import");
    if (!main_is(command, "serve", "migrate") && strcmp(command, "passwd") != 0 && !transfer) {
        fprintf(stderr, "schema-registry: unknown command '%s' (see --help)\n", command);
        return 2;
    }

    /* Before any thread exists, so all of them inherit it and only sigwait() sees these. */
    sigset_t set;
    sigemptyset(&set);
    const char *passwd_user = NULL;
    if (strcmp(command, "passwd") == 0) {
        if (argc <= first || argv[first][0] == '-') {
            fprintf(stderr, "schema-registry passwd: which user? (schema-registry passwd USER [flags])\n");
            return 2;
        }
        passwd_user = argv[first++];
        if (first < argc && argv[first][0] != '-') {
            fprintf(stderr, "schema-registry passwd: takes one user name; the password is read from the "
                            "terminal or stdin, never from the command line\n");
            return 2;
        }
    }
    main_transfer_t xfer;
    if (transfer && (argc = main_transfer_args(command, argc, argv, first, &xfer)) < 0)
        return 2;
    /* export and import stop on Ctrl-C as any command does: what they wrote is
     * committed record by record, and a rerun goes on from there. */
    if (!transfer) {
        sigaddset(&set, SIGINT);
        sigaddset(&set, SIGTERM);
        sigaddset(&set, SIGHUP);
    }
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);
    /* libpq waits forever for an unreachable host unless told otherwise:
     * database.timeout.ms tells it (store_set_timeout), PGCONNECT_TIMEOUT wins. */

    if (main_drop_sudo() != 0)
        return 1;
    server_config_t cfg;
    if (config_load(&cfg, argc - first + 1, argv + first - 1) != 0)
        return 2;
    int rc = transfer                          ? main_transfer(command, &xfer, &cfg)
             : passwd_user != NULL             ? main_passwd(passwd_user, &cfg)
             : strcmp(command, "migrate") == 0 ? main_migrate(&cfg)
                                               : main_serve(&cfg);
    config_free(&cfg);
    return rc;
}
