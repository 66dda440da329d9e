/*
 * main: the schema-registry command.
 *
 *   schema-registry [serve] [flags]   run the server until SIGINT/SIGTERM
 *   schema-registry migrate [flags]   apply the database migrations and exit
 *   schema-registry passwd USER [flags]  set USER's password in the users file
 *   schema-registry export [--output FILE] [flags]   the registry as JSON lines
 *   schema-registry import [FILE] [--delimiter D] [flags]  an export or a _schemas dump
 *   schema-registry import --from-url URL [--basic-auth U:S] [--ca F] [--cert F --key F] [flags]
 *                                     a running registry, read through its REST API
 *   schema-registry config --print-defaults | --print-man   the reference (server/config.c)
 *   schema-registry decode|encode [flags]  framed records <-> JSON rows (cmd/, docs/decoding.md)
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
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
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
#include "cmd/cmd.h"
#include "cmd/diff.h"

/* ---- The reference: what --help and schema-registry(1) say besides the settings ---- */

/* The settings themselves come from server/config.c's key table (config_print_help, _man). */
static const config_doc_item_t main_commands[] = {
    {"`schema-registry` [`serve`] [flags]",
     "Run the server (the default command): connect to (or start) PostgreSQL, apply pending "
     "migrations, load the registry, serve HTTP until SIGINT or SIGTERM."},
    {"`schema-registry migrate` [flags]", "Apply the database migrations, then exit."},
    {"`schema-registry passwd` USER [flags]",
     "Set USER's password in `auth.basic.users.file`: read from the terminal (no echo, twice) or one "
     "line of stdin, never from the command line. A running server reads the file on SIGHUP."},
    {"`schema-registry export` [`--output` FILE] [flags]",
     "Write every context, subject, version, schema, config and mode as JSON lines (stdout by "
     "default)."},
    {"`schema-registry import` [FILE] [`--delimiter` D] [flags]",
     "Read an export, or a dump of Confluent's `_schemas` topic as `kcat -C -K '\\t'` prints it (stdin "
     "by default), and write what is missing in IMPORT mode, ids and versions kept; see "
     "docs/operations.md."},
    {"`schema-registry import` `--from-url` URL [`--basic-auth` USER:SECRET] [`--ca` FILE] [`--cert` FILE "
     "`--key` FILE] [flags]",
     "Read a running Confluent-compatible registry through its REST API (soft-deleted versions "
     "included) and write what is missing as from a file; the source is only read."},
    {"`schema-registry decode` [flags]",
     "Framed records (magic byte 0, 4-byte schema id, payload) to JSON rows, read with a reader "
     "schema from a registry; `decode --help` lists its flags (docs/decoding.md)."},
    {"`schema-registry encode` [flags]",
     "JSON rows to framed Avro records for a subject's schema; `encode --help` lists its flags."},
    {"`schema-registry diff` [`--type` T] [`--level` L] [`--json`] OLD NEW",
     "What changed from schema file OLD to NEW and whether NEW may follow OLD under the level (default "
     "BACKWARD): exit 0 compatible, 1 not, 2 bad usage; no database (docs/evolution.md)."},
    {"`schema-registry config --print-defaults`",
     "Print every setting (key, environment variable, flag, default, meaning) as a Markdown table."},
    {"`schema-registry config --print-man`", "Print this manual page (roff)."},
    {"`schema-registry --help`", "Print the usage, every flag, variable and key."},
    {"`schema-registry --version`", "Print the version and the build's commit."},
    {NULL, NULL},
};

static const config_doc_item_t main_environment[] = {
    {"`SCHEMA_REGISTRY_CONFIG`", "The config file, when `--config` is not given."},
    {"`PGCONNECT_TIMEOUT`", "libpq's connection timeout; when set, it wins over `database.timeout.ms` for "
                            "connecting. Every other libpq variable (`PGSSLMODE`, "
                            "`PGPASSFILE`, ...) works as usual."},
    {"`NOTIFY_SOCKET`",
     "Set by systemd for `Type=notify` services: the server sends `READY=1` once it listens and the "
     "registry is loaded, and `STOPPING=1` when a stop begins. Unset for the processes it starts."},
    {"`SUDO_UID`, `SUDO_GID`", "Started through sudo, the server becomes that user (see RUNNING AS ROOT)."},
    {NULL, NULL},
};

static const config_doc_item_t main_files[] = {
    {"/etc/schema-registry/schema-registry.conf",
     "The config file of the systemd unit (deploy/schema-registry.service): `key = value` lines, "
     "`#` starts a comment line, an empty value unsets a setting."},
    {"DATA_DIR/pgdata/", "The embedded PostgreSQL cluster (without `database.url`)."},
    {"DATA_DIR/run/", "Its unix socket; it listens on no TCP port."},
    {"DATA_DIR/log/postgresql.log", "PostgreSQL's own log."},
    {"DATA_DIR/lock", "Held by the running server: one server per data directory."},
    {"/var/lib/schema-registry/clusters/",
     "Where a server started as root keeps the cluster when the user `postgres` cannot enter "
     "DATA_DIR; DATA_DIR/cluster names the directory."},
    {NULL, NULL},
};

static const config_doc_item_t main_options[] = {
    {"`--help`, `-h`", "Print the usage and exit."},
    {"`--version`", "Print the version and exit."},
    {NULL, NULL},
};

static const config_doc_section_t main_doc_sections[] = {
    {"Usage", CONFIG_DOC_HELP, NULL, main_commands},
    {"Synopsis", CONFIG_DOC_MAN,
     "`schema-registry` [`serve`] [OPTIONS]\n\n`schema-registry migrate` [OPTIONS]\n\n"
     "`schema-registry passwd` USER [OPTIONS]\n\n"
     "`schema-registry export` [`--output` FILE] [OPTIONS]\n\n"
     "`schema-registry import` [FILE] [`--delimiter` D] [OPTIONS]\n\n"
     "`schema-registry import` `--from-url` URL [`--basic-auth` USER:SECRET] [`--ca` FILE] [`--cert` FILE "
     "`--key` FILE] [OPTIONS]\n\n"
     "`schema-registry decode`|`encode` [FLAGS]\n\n`schema-registry config` "
     "`--print-defaults`|`--print-man`",
     NULL},
    {"Description", CONFIG_DOC_MAN,
     "A schema registry that speaks the REST API of Confluent Schema Registry (Avro, Protobuf and "
     "JSON Schema), keeping its state in PostgreSQL: an external database, or a private cluster it "
     "starts itself. Any number of servers may share one database.",
     NULL},
    {"Commands", CONFIG_DOC_MAN, NULL, main_commands},
    {"Settings", CONFIG_DOC_HELP | CONFIG_DOC_SETTINGS,
     "Each has a flag, an environment variable and a config file key; flags win over the environment, "
     "the environment over the file, the file over the defaults. Flags take `--flag VALUE` or "
     "`--flag=VALUE`.",
     NULL},
    {"Options", CONFIG_DOC_MAN | CONFIG_DOC_SETTINGS,
     "Every setting has a flag, an environment variable and a config file key: the flag is the key "
     "with dots turned into dashes, the variable `SCHEMA_REGISTRY_` and the key in upper case with "
     "dots turned into underscores. Flags win over the environment, the environment over the config "
     "file, the file over the defaults. Flags take `--flag VALUE` or `--flag=VALUE`; an empty value "
     "unsets a setting. Unknown keys and flags and invalid values stop the server (exit status 2).",
     main_options},
    {"Environment", CONFIG_DOC_MAN | CONFIG_DOC_ENVIRONMENT,
     "Unknown `SCHEMA_REGISTRY_*` variables only warn: Confluent's container images use the same "
     "prefix.",
     main_environment},
    {"Files", CONFIG_DOC_MAN, NULL, main_files},
    {"Exit status", CONFIG_DOC_HELP | CONFIG_DOC_MAN,
     "0 after a clean stop; 1 when start-up or the server fails (port in use, database unreachable, "
     "unreadable TLS files); 2 for bad usage or configuration.",
     NULL},
    {"Signals", CONFIG_DOC_HELP | CONFIG_DOC_MAN,
     "SIGINT (Ctrl-C) and SIGTERM stop the server: no new connections, requests in flight finish "
     "(after 5 s the queries still running are cancelled), then the embedded PostgreSQL stops. SIGHUP "
     "reloads the TLS certificate, key, client CA and CRL files, the users file and the `auth.rule` "
     "and `auth.group` lines of the config file; other settings are read at start only.",
     NULL},
    {"Running as root", CONFIG_DOC_HELP | CONFIG_DOC_MAN,
     "PostgreSQL refuses root, so the embedded cluster runs as the user `postgres` (else `nobody`); "
     "when that user cannot enter the data directory (a parent of mode 700, such as /root), the "
     "cluster lives in /var/lib/schema-registry/clusters/ and DATA_DIR/cluster records where. Started "
     "through sudo (`SUDO_UID` set), the server drops to the invoking user before it touches any "
     "file, so ./var belongs to that user.",
     NULL},
    {"Logs", CONFIG_DOC_HELP | CONFIG_DOC_MAN,
     "Everything goes to stderr, one line per event and per request: `TIME LEVEL message` text, or one "
     "JSON object per line with `--log-format json`. See docs/operations.md.",
     NULL},
    {"See also", CONFIG_DOC_MAN,
     "`systemd.service`(5), `postgres`(1); docs/operations.md, docs/api.md and docs/security.md of "
     "the source.",
     NULL},
    {NULL, 0, NULL, NULL},
};

static const config_doc_t main_doc = {
    "schema-registry", "a Confluent-compatible schema registry on PostgreSQL", SR_VERSION, SR_DATE,
    main_doc_sections,
};

/* schema-registry config --print-defaults | --print-man */
static int main_config(int argc, char **argv)
{
    if (argc == 1 && strcmp(argv[0], "--print-defaults") == 0) {
        config_print_defaults(stdout);
        return 0;
    }
    if (argc == 1 && strcmp(argv[0], "--print-man") == 0) {
        config_print_man(stdout, &main_doc);
        return 0;
    }
    fprintf(stderr, "schema-registry config: takes --print-defaults or --print-man (see --help)\n");
    return 2;
}

/* ---- The service manager: sd_notify readiness ---------------------------------- */

/*
 * systemd's notify protocol (sd_notify(3)) without libsystemd: one datagram
 * to the unix socket $NOTIFY_SOCKET names, a path or, after '@', an abstract
 * name. main() takes the variable out of the environment before any process
 * is started: the embedded PostgreSQL would otherwise announce its own
 * readiness to the same socket, before the registry is loaded.
 */
static char main_notify_socket[sizeof(((struct sockaddr_un *)0)->sun_path) + 1];
static int main_notify_unusable; /* set, but no path or @name that fits: said once, at READY */

static void main_notify_take(void)
{
    const char *path = getenv("NOTIFY_SOCKET");
    if (path == NULL)
        return;
    if ((path[0] == '/' || path[0] == '@') && strlen(path) < sizeof main_notify_socket - 1)
        snprintf(main_notify_socket, sizeof main_notify_socket, "%s", path);
    else
        main_notify_unusable = 1;
    unsetenv("NOTIFY_SOCKET");
}

static void main_notify(const char *state)
{
    if (main_notify_unusable) {
        log_warn("NOTIFY_SOCKET is no unix socket path or @name that fits; no readiness sent");
        main_notify_unusable = 0;
    }
    if (main_notify_socket[0] == '\0')
        return;
    struct sockaddr_un addr;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    size_t len = strlen(main_notify_socket);
    memcpy(addr.sun_path, main_notify_socket, len);
    if (addr.sun_path[0] == '@')
        addr.sun_path[0] = '\0'; /* abstract: the name is the bytes after the NUL, not NUL-ended */
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&addr,
                         (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) < 0)
        log_warn("NOTIFY_SOCKET %s: cannot send %s: %s", main_notify_socket, state, strerror(errno));
    if (fd >= 0)
        close(fd);
}

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
    const char *output;       /* export */
    const char *file;         /* import */
    const char *delimiter;    /* import */
    cmd_fetch_options_t from; /* import --from-url and its client flags */
} main_transfer_t;

/* Takes the command's own flags out of argv[first..argc) (in place); the new argc, or -1. */
static int main_transfer_args(const char *command, int argc, char **argv, int first, main_transfer_t *t)
{
    int is_export = strcmp(command, "export") == 0, out = first;
    memset(t, 0, sizeof *t);
    /* The command's own flags; import's --from-url ones name the source,
     * not this registry, so they are none of the settings. */
    const char *const flags[] = {"--output", "--delimiter", "--from-url", "--basic-auth",
                                 "--ca",     "--cert",      "--key"};
    const char **slots[] = {&t->output,       &t->delimiter,      &t->from.url,     &t->from.basic_auth,
                            &t->from.ca_file, &t->from.cert_file, &t->from.key_file};
    for (int i = first; i < argc; i++) {
        const char *a = argv[i], *flag = NULL;
        const char **slot = NULL;
        for (size_t k = is_export ? 0 : 1; k < (is_export ? 1 : sizeof flags / sizeof *flags) && !flag; k++) {
            size_t n = strlen(flags[k]);
            if (strncmp(a, flags[k], n) == 0 && (a[n] == '\0' || a[n] == '='))
                flag = flags[k], slot = slots[k];
        }
        size_t n = flag ? strlen(flag) : 0;
        if (flag) {
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
    if (!t->from.url && (t->from.basic_auth || t->from.ca_file || t->from.cert_file || t->from.key_file)) {
        fprintf(stderr, "schema-registry %s: --basic-auth, --ca, --cert and --key go with --from-url\n",
                command);
        return -1;
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
        cmd_import_options_t io = {t->file, t->delimiter, t->from};
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
    main_notify("READY=1"); /* the port answers and the registry is loaded */

    if (auth_enabled(auth))
        log_info("authentication: %s%s%s%s", cfg->auth_users_file ? "HTTP Basic" : "",
                 cfg->auth_users_file && cfg->tls_client_auth ? ", " : "",
                 cfg->tls_client_auth == CONFIG_CLIENT_AUTH_REQUIRED   ? "client certificates required"
                 : cfg->tls_client_auth == CONFIG_CLIENT_AUTH_OPTIONAL ? "client certificates optional"
                                                                       : "",
                 cfg->auth_anonymous ? ", anonymous allowed" : "");

    int sig = main_wait_for_signal(srv, auth, authz);
    main_notify("STOPPING=1");
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
    main_notify_take(); /* first: no thread or child process exists yet */
    /* The consumer's commands have their own flags and help (cmd/cmd.h). */
    if (argc > 1 && strcmp(argv[1], "decode") == 0)
        return cmd_decode(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "encode") == 0)
        return cmd_encode(argc - 1, argv + 1);
    if (argc > 1 && strcmp(argv[1], "diff") == 0)
        return cmd_diff(argc - 1, argv + 1);
    for (int i = 1; i < argc; i++) {
        if (main_is(argv[i], "--help", "-h")) {
            config_print_help(stdout, &main_doc);
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
    if (strcmp(command, "config") == 0)
        return main_config(argc - first, argv + first);
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
    /* export and import stop on Ctrl-C as any command does (import, once it
     * writes, after its record, with the modes put back: cmd_import.c): what
     * they wrote is committed record by record, and a rerun goes on from there. */
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
    log_set_format((log_format_t)cfg.log_format);
    int rc = transfer                          ? main_transfer(command, &xfer, &cfg)
             : passwd_user != NULL             ? main_passwd(passwd_user, &cfg)
             : strcmp(command, "migrate") == 0 ? main_migrate(&cfg)
                                               : main_serve(&cfg);
    config_free(&cfg);
    return rc;
}
