/*
 * test_config: defaults, the config file, SCHEMA_REGISTRY_* variables and
 * flags, their precedence, and rejected values (server/config.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "server/config.h"

extern char **environ;

/* ---- fixtures ----------------------------------------------------------- */

static char config_path[64];

/* No SCHEMA_REGISTRY_* variable from the outside may leak into a test. */
static void clear_env(void)
{
    for (;;) {
        char **e = environ;
        while (e && *e && strncmp(*e, "SCHEMA_REGISTRY_", 16) != 0)
            e++;
        if (e == NULL || *e == NULL)
            return;
        char name[128];
        size_t len = strcspn(*e, "=");
        snprintf(name, sizeof name, "%.*s", (int)len, *e);
        unsetenv(name);
    }
}

static int setup(void **state)
{
    clear_env();
    snprintf(config_path, sizeof config_path, "/tmp/test_config_XXXXXX");
    int fd = mkstemp(config_path);
    assert_true(fd >= 0);
    close(fd);
    return 0;
}

static int teardown(void **state)
{
    unlink(config_path);
    clear_env();
    return 0;
}

static void write_config(const char *text)
{
    FILE *f = fopen(config_path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Runs config_load on a NULL-terminated flag list (argv[0] supplied). */
static int load(server_config_t *cfg, const char *const *flags)
{
    char *argv[32] = {"serve"};
    int argc = 1;
    for (; flags && flags[argc - 1]; argc++)
        argv[argc] = (char *)flags[argc - 1];
    return config_load(cfg, argc, argv);
}

/* ---- defaults ------------------------------------------------------------- */

static void test_defaults(void **state)
{
    server_config_t cfg;
    assert_int_equal(load(&cfg, NULL), 0);
    assert_string_equal(cfg.listen, "0.0.0.0:8081");
    assert_null(cfg.database_url);
    assert_string_equal(cfg.data_dir, "./var");
    assert_int_equal(cfg.threads, (int)sysconf(_SC_NPROCESSORS_ONLN));
    assert_int_equal(cfg.db_threads, 8);
    assert_null(cfg.tls_cert);
    assert_null(cfg.tls_key);
    assert_int_equal(cfg.max_schema_bytes, 1048576);
    assert_int_equal(cfg.max_body_bytes, 8 * 1048576);
    assert_int_equal(cfg.extended_profile, 0);
    assert_null(cfg.kafka_cluster_id);
    assert_string_equal(cfg.group_id, "schema-registry");
    assert_string_equal(cfg.default_compatibility, "BACKWARD");
    assert_int_equal(cfg.feed_interval_ms, 500);
    config_free(&cfg);
}

/* ---- each source alone ---------------------------------------------------------- */

static void test_file_sets_every_key(void **state)
{
    write_config("# comment\n"
                 "\n"
                 "listen = 127.0.0.1:9000\n"
                 "  database.url=postgresql://u@db/sr  \n"
                 "data.dir = /srv/sr\n"
                 "threads = 3\n"
                 "db.threads = 7\n"
                 "tls.cert = /etc/sr/cert.pem\n"
                 "tls.key = /etc/sr/key.pem\n"
                 "max.schema.bytes = 1000\n"
                 "response.profile = extended\n"
                 "kafka.cluster.id = kc-1\n"
                 "group.id = g-1\n"
                 "schema.compatibility.level = full_transitive\n"
                 "feed.interval.ms = 0\n");
    const char *flags[] = {"--config", config_path, NULL};
    server_config_t cfg;
    assert_int_equal(load(&cfg, flags), 0);
    assert_string_equal(cfg.listen, "127.0.0.1:9000");
    assert_string_equal(cfg.database_url, "postgresql://u@db/sr");
    assert_string_equal(cfg.data_dir, "/srv/sr");
    assert_int_equal(cfg.threads, 3);
    assert_int_equal(cfg.db_threads, 7);
    assert_string_equal(cfg.tls_cert, "/etc/sr/cert.pem");
    assert_string_equal(cfg.tls_key, "/etc/sr/key.pem");
    assert_int_equal(cfg.max_schema_bytes, 1000);
    assert_int_equal(cfg.max_body_bytes, 8000);
    assert_int_equal(cfg.extended_profile, 1);
    assert_string_equal(cfg.kafka_cluster_id, "kc-1");
    assert_string_equal(cfg.group_id, "g-1");
    assert_string_equal(cfg.default_compatibility, "FULL_TRANSITIVE");
    assert_int_equal(cfg.feed_interval_ms, 0);
    config_free(&cfg);
}

static void test_env_names(void **state)
{
    setenv("SCHEMA_REGISTRY_LISTEN", "[::1]:8082", 1);
    setenv("SCHEMA_REGISTRY_DATABASE_URL", "host=/run/pg dbname=sr", 1);
    setenv("SCHEMA_REGISTRY_DB_THREADS", "2", 1);
    setenv("SCHEMA_REGISTRY_MAX_SCHEMA_BYTES", "2048", 1);
    setenv("SCHEMA_REGISTRY_SCHEMA_COMPATIBILITY_LEVEL", "None", 1);
    setenv("SCHEMA_REGISTRY_RESPONSE_PROFILE", "EXTENDED", 1);
    setenv("SCHEMA_REGISTRY_FEED_INTERVAL_MS", "250", 1);
    server_config_t cfg;
    assert_int_equal(load(&cfg, NULL), 0);
    assert_string_equal(cfg.listen, "[::1]:8082");
    assert_string_equal(cfg.database_url, "host=/run/pg dbname=sr");
    assert_int_equal(cfg.db_threads, 2);
    assert_int_equal(cfg.max_body_bytes, 16384);
    assert_string_equal(cfg.default_compatibility, "NONE");
    assert_int_equal(cfg.extended_profile, 1);
    assert_int_equal(cfg.feed_interval_ms, 250);
    config_free(&cfg);
}

static void test_flags_both_spellings(void **state)
{
    const char *flags[] = {"--listen",
                           "127.0.0.1:0",
                           "--database-url=postgresql:///sr",
                           "--threads=1",
                           "--db-threads",
                           "1",
                           "--tls-cert",
                           "c.pem",
                           "--tls-key=k.pem",
                           "--max-schema-bytes",
                           "10",
                           "--response-profile",
                           "classic",
                           "--kafka-cluster-id",
                           "k",
                           "--group-id",
                           "g",
                           "--schema-compatibility-level",
                           "forward",
                           "--feed-interval-ms",
                           "1",
                           "--data-dir",
                           "/d",
                           NULL};
    server_config_t cfg;
    assert_int_equal(load(&cfg, flags), 0);
    assert_string_equal(cfg.listen, "127.0.0.1:0");
    assert_string_equal(cfg.database_url, "postgresql:///sr");
    assert_int_equal(cfg.threads, 1);
    assert_int_equal(cfg.db_threads, 1);
    assert_string_equal(cfg.tls_cert, "c.pem");
    assert_string_equal(cfg.tls_key, "k.pem");
    assert_int_equal(cfg.max_body_bytes, 80);
    assert_int_equal(cfg.extended_profile, 0);
    assert_string_equal(cfg.kafka_cluster_id, "k");
    assert_string_equal(cfg.group_id, "g");
    assert_string_equal(cfg.default_compatibility, "FORWARD");
    assert_int_equal(cfg.feed_interval_ms, 1);
    assert_string_equal(cfg.data_dir, "/d");
    config_free(&cfg);
}

/* ---- precedence: flags > env > file > defaults ------------------------------------- */

static void test_precedence(void **state)
{
    write_config("listen = 1.1.1.1:1\n"
                 "threads = 5\n"
                 "db.threads = 6\n"
                 "group.id = from-file\n");
    setenv("SCHEMA_REGISTRY_THREADS", "7", 1);
    setenv("SCHEMA_REGISTRY_DB_THREADS", "8", 1);
    const char *flags[] = {"--config", config_path, "--db-threads", "9", NULL};
    server_config_t cfg;
    assert_int_equal(load(&cfg, flags), 0);
    assert_string_equal(cfg.listen, "1.1.1.1:1"); /* file over default */
    assert_int_equal(cfg.threads, 7);             /* env over file */
    assert_int_equal(cfg.db_threads, 9);          /* flag over env */
    assert_string_equal(cfg.group_id, "from-file");
    assert_int_equal(cfg.feed_interval_ms, 500); /* default */
    config_free(&cfg);
}

static void test_config_file_from_env_and_flag_wins(void **state)
{
    write_config("group.id = chosen\n");
    setenv("SCHEMA_REGISTRY_CONFIG", "/nonexistent/sr.conf", 1);
    const char *flags[] = {"--config", config_path, NULL};
    server_config_t cfg;
    assert_int_equal(load(&cfg, flags), 0); /* the env file is never opened */
    assert_string_equal(cfg.group_id, "chosen");
    config_free(&cfg);

    setenv("SCHEMA_REGISTRY_CONFIG", config_path, 1);
    assert_int_equal(load(&cfg, NULL), 0);
    assert_string_equal(cfg.group_id, "chosen");
    config_free(&cfg);
}

static void test_empty_value_unsets(void **state)
{
    write_config("database.url = postgresql:///x\n");
    setenv("SCHEMA_REGISTRY_DATABASE_URL", "", 1);
    const char *flags[] = {"--config", config_path, NULL};
    server_config_t cfg;
    assert_int_equal(load(&cfg, flags), 0);
    assert_null(cfg.database_url); /* back to the embedded database */
    config_free(&cfg);
}

static void test_unknown_env_only_warns(void **state)
{
    /* Confluent's container images use the same prefix. */
    setenv("SCHEMA_REGISTRY_KAFKASTORE_BOOTSTRAP_SERVERS", "kafka:9092", 1);
    server_config_t cfg;
    assert_int_equal(load(&cfg, NULL), 0);
    config_free(&cfg);
}

/* ---- rejected input -------------------------------------------------------------------- */

static void expect_flags_rejected(const char *const *flags)
{
    server_config_t cfg;
    assert_int_equal(load(&cfg, flags), -1);
    assert_null(cfg.listen); /* nothing is left allocated */
}

static void test_bad_flag_values(void **state)
{
    static const char *const cases[][3] = {
        {"--listen", "localhost", NULL},
        {"--listen", "127.0.0.1:65536", NULL},
        {"--listen", "127.0.0.1:-1", NULL},
        {"--listen", "127.0.0.1:http", NULL},
        {"--listen", "::1:8081", NULL},
        {"--listen", "127.0.0.1:", NULL},
        {"--threads", "-1", NULL},
        {"--threads", "abc", NULL},
        {"--threads", "4x", NULL},
        {"--threads", "99999", NULL},
        {"--db-threads", "0", NULL},
        {"--max-schema-bytes", "0", NULL},
        {"--max-schema-bytes", "1e6", NULL},
        {"--feed-interval-ms", "-5", NULL},
        {"--schema-compatibility-level", "LOOSE", NULL},
        {"--response-profile", "verbose", NULL},
        {"--threads", " 4", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_flags_rejected(cases[i]);
}

static void test_bad_env_value(void **state)
{
    setenv("SCHEMA_REGISTRY_DB_THREADS", "many", 1);
    server_config_t cfg;
    assert_int_equal(load(&cfg, NULL), -1);
}

static void test_unknown_flag_and_stray_argument(void **state)
{
    const char *unknown[] = {"--lisen", "127.0.0.1:1", NULL};
    expect_flags_rejected(unknown);
    const char *dotted[] = {"--db.threads", "2", NULL}; /* flags use dashes */
    expect_flags_rejected(dotted);
    const char *stray[] = {"extra", NULL};
    expect_flags_rejected(stray);
    const char *missing[] = {"--threads", NULL};
    expect_flags_rejected(missing);
    const char *bare[] = {"--", NULL};
    expect_flags_rejected(bare);
}

static void test_bad_file(void **state)
{
    static const char *const files[] = {
        "listen 127.0.0.1:1\n", /* no '=' */
        "no.such.key = 1\n",
        "db-threads = 2\n", /* file keys use dots */
        "threads = many\n",
    };
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        write_config(files[i]);
        const char *flags[] = {"--config", config_path, NULL};
        expect_flags_rejected(flags);
    }
    const char *absent[] = {"--config", "/nonexistent/sr.conf", NULL};
    expect_flags_rejected(absent);
}

static void test_tls_needs_both_files(void **state)
{
    const char *cert_only[] = {"--tls-cert", "c.pem", NULL};
    expect_flags_rejected(cert_only);
    const char *key_only[] = {"--tls-key", "k.pem", NULL};
    expect_flags_rejected(key_only);
}

/* ---- authentication keys (docs/security.md) ------------------------------------ */

static void test_auth_keys(void **state)
{
    server_config_t cfg;
    assert_int_equal(load(&cfg, NULL), 0);
    assert_null(cfg.auth_users_file);
    assert_string_equal(cfg.auth_realm, "SchemaRegistry");
    assert_null(cfg.auth_anonymous);
    assert_int_equal(cfg.auth_max_failures, 10);
    assert_int_equal(cfg.auth_max_verifications, 32);
    assert_int_equal(cfg.tls_client_auth, CONFIG_CLIENT_AUTH_NONE);
    assert_int_equal(cfg.tls_client_principal, CONFIG_PRINCIPAL_CN);
    config_free(&cfg);

    write_config("tls.cert = /c.pem\n"
                 "tls.key = /k.pem\n"
                 "auth.basic.users.file = /etc/sr/users\n"
                 "auth.realm = Registry Prod\n"
                 "auth.anonymous = ANONYMOUS\n"
                 "auth.max.failures = 0\n"
                 "auth.max.verifications = 4\n"
                 "tls.client.auth = Optional\n"
                 "tls.client.ca = /ca.pem\n"
                 "tls.client.crl = /crl.pem\n");
    setenv("SCHEMA_REGISTRY_TLS_CLIENT_PRINCIPAL", "san-uri", 1);
    const char *flags[] = {"--config", config_path, "--tls-client-auth=required", NULL};
    assert_int_equal(load(&cfg, flags), 0);
    assert_string_equal(cfg.auth_users_file, "/etc/sr/users");
    assert_string_equal(cfg.auth_realm, "Registry Prod");
    assert_string_equal(cfg.auth_anonymous, "ANONYMOUS");
    assert_int_equal(cfg.auth_max_failures, 0);
    assert_int_equal(cfg.auth_max_verifications, 4);
    assert_int_equal(cfg.tls_client_auth, CONFIG_CLIENT_AUTH_REQUIRED);
    assert_string_equal(cfg.tls_client_ca, "/ca.pem");
    assert_string_equal(cfg.tls_client_crl, "/crl.pem");
    assert_int_equal(cfg.tls_client_principal, CONFIG_PRINCIPAL_SAN_URI);
    config_free(&cfg);
    unsetenv("SCHEMA_REGISTRY_TLS_CLIENT_PRINCIPAL");
}

static void test_auth_refusals(void **state)
{
    static const char *const bad[][8] = {
        {"--tls-client-auth", "yes", NULL},
        {"--tls-client-principal", "subject", NULL},
        {"--tls-client-auth", "optional", "--tls-client-ca", "/ca.pem", NULL},          /* no tls.cert */
        {"--tls-cert", "/c", "--tls-key", "/k", "--tls-client-auth", "required", NULL}, /* no CA */
        {"--tls-client-crl", "/crl.pem", NULL},                                         /* client auth none */
        {"--auth-realm", "a\"b", NULL},
        {"--auth-realm", "", NULL},
        {"--auth-max-failures", "-1", NULL},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        server_config_t cfg;
        if (load(&cfg, bad[i]) != -1)
            fail_msg("accepted: %s %s", bad[i][0], bad[i][1]);
    }
}

/* ---- log.format (docs/operations.md section 5) ----------------------------------- */

static void test_log_format(void **state)
{
    server_config_t cfg;
    assert_int_equal(load(&cfg, NULL), 0);
    assert_int_equal(cfg.log_format, 0); /* LOG_FORMAT_TEXT */
    config_free(&cfg);
    write_config("log.format = json\n");
    const char *file[] = {"--config", config_path, NULL};
    assert_int_equal(load(&cfg, file), 0);
    assert_int_equal(cfg.log_format, 1); /* LOG_FORMAT_JSON */
    config_free(&cfg);
    setenv("SCHEMA_REGISTRY_LOG_FORMAT", "JSON", 1);
    assert_int_equal(load(&cfg, NULL), 0);
    assert_int_equal(cfg.log_format, 1);
    config_free(&cfg);
    const char *flag[] = {"--log-format=text", NULL}; /* over the environment */
    assert_int_equal(load(&cfg, flag), 0);
    assert_int_equal(cfg.log_format, 0);
    config_free(&cfg);
    unsetenv("SCHEMA_REGISTRY_LOG_FORMAT");
    const char *bad[] = {"--log-format", "yaml", NULL};
    expect_flags_rejected(bad);
}

/* auth.rule and auth.group are lines of the file (server/authz.c), not flags. */
static void test_file_only_keys(void **state)
{
    write_config("auth.rule = alice read *\nauth.group = ops alice,bob\nauth.rule = @ops admin *\n");
    const char *file[] = {"--config", config_path, NULL};
    server_config_t cfg;
    assert_int_equal(load(&cfg, file), 0);
    config_free(&cfg);
    const char *flag[] = {"--auth-rule", "alice read *", NULL};
    expect_flags_rejected(flag);
}

static void test_embedded_database_needs_data_dir(void **state)
{
    const char *no_dir[] = {"--data-dir", "", NULL};
    expect_flags_rejected(no_dir);
    const char *external[] = {"--data-dir", "", "--database-url", "postgresql:///x", NULL};
    server_config_t cfg;
    assert_int_equal(load(&cfg, external), 0);
    config_free(&cfg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_defaults, setup, teardown),
        cmocka_unit_test_setup_teardown(test_file_sets_every_key, setup, teardown),
        cmocka_unit_test_setup_teardown(test_env_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_flags_both_spellings, setup, teardown),
        cmocka_unit_test_setup_teardown(test_precedence, setup, teardown),
        cmocka_unit_test_setup_teardown(test_config_file_from_env_and_flag_wins, setup, teardown),
        cmocka_unit_test_setup_teardown(test_empty_value_unsets, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_env_only_warns, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_flag_values, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_env_value, setup, teardown),
        cmocka_unit_test_setup_teardown(test_unknown_flag_and_stray_argument, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bad_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tls_needs_both_files, setup, teardown),
        cmocka_unit_test_setup_teardown(test_embedded_database_needs_data_dir, setup, teardown),
        cmocka_unit_test_setup_teardown(test_auth_keys, setup, teardown),
        cmocka_unit_test_setup_teardown(test_auth_refusals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_log_format, setup, teardown),
        cmocka_unit_test_setup_teardown(test_file_only_keys, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
