/*
 * test_avro: the project's own Avro cases (tests/data/avro), which keep
 * the engine tested in a clone without ../shared, and the engine's API:
 * formats, references, normalization, raw messages, fingerprints, and
 * models shared between threads.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_avro_cases.h"

static void run_data_file(const char *file)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/avro/%s", SR_TEST_DATA_DIR, file);
    case_stats_t st = {0};
    assert_int_equal(case_run_file(path, &st), 0);
    printf("%s: %d passed, %d failed\n", file, st.passed, st.failed);
    assert_true(st.passed > 0);
    assert_int_equal(st.failed, 0);
}

static void test_avro_own_validation_cases(void **state)
{
    (void)state;
    run_data_file("validation.json");
}

static void test_avro_own_compatibility_cases(void **state)
{
    (void)state;
    run_data_file("compatibility.json");
}

/* ---- The engine through compat/schema.h ----------------------------------------------- */

static const char money[] = "{\"type\":\"record\",\"name\":\"Money\",\"namespace\":\"m\","
                            "\"fields\":[{\"name\":\"units\",\"type\":\"long\"}]}";
static const char order[] = "{\"type\":\"record\",\"name\":\"Order\",\"fields\":["
                            "{\"name\":\"a\",\"type\":\"m.Money\"},{\"name\":\"b\",\"type\":\"m.Money\"}]}";

static schema_t *parse_ok(const char *text, const schema_ref_t *refs, size_t nrefs, int flags)
{
    char *error = NULL;
    schema_t *s = schema_parse(SCHEMA_AVRO, text, strlen(text), refs, nrefs, flags, &error);
    if (!s)
        fail_msg("parse failed: %s", error);
    return s;
}

static void test_engine_references_and_formats(void **state)
{
    (void)state;
    schema_ref_t ref = {.name = "m.Money", .subject = "money", .version = 1, .text = money};
    schema_t *s = parse_ok(order, &ref, 1, SCHEMA_PARSE_NEW);
    assert_string_equal(schema_canonical(s), order);
    const char *resolved =
        "{\"type\":\"record\",\"name\":\"Order\",\"fields\":[{\"name\":\"a\",\"type\":"
        "{\"type\":\"record\",\"name\":\"Money\",\"namespace\":\"m\",\"fields\":"
        "[{\"name\":\"units\",\"type\":\"long\"}]}},{\"name\":\"b\",\"type\":\"m.Money\"}]}";
    const char *formats[] = {"resolved", "RESOLVED", "default", "serialized", "", NULL};
    const char *expect[] = {resolved, resolved, order, order, order, order};
    for (size_t i = 0; i < sizeof formats / sizeof *formats; i++) {
        char *text = schema_format(s, formats[i]);
        assert_string_equal(text, expect[i]);
        free(text);
    }
    schema_free(s);

    char *error = NULL;
    assert_null(schema_parse(SCHEMA_AVRO, order, strlen(order), NULL, 0, 0, &error));
    assert_string_equal(error, "Undefined schema: m.Money");
    free(error);
}

static void test_engine_reads_only_len_bytes(void **state)
{
    (void)state;
    const char text[] = "\"int\" trailing garbage that is not part of the input";
    char *error = NULL;
    schema_t *s = schema_parse(SCHEMA_AVRO, text, 5, NULL, 0, 0, &error);
    assert_non_null(s);
    assert_string_equal(schema_canonical(s), "\"int\"");
    assert_null(schema_parse(SCHEMA_AVRO, text, strlen(text), NULL, 0, 0, &error));
    assert_non_null(strstr(error, "Invalid JSON"));
    free(error);
    schema_free(s);
}

static void test_engine_normalize(void **state)
{
    (void)state;
    const char *text =
        "{\"type\":\"record\",\"name\":\"R\",\"namespace\":\"n\",\"b\":1,\"a\":2,"
        "\"fields\":[{\"name\":\"f\",\"type\":\"float\",\"default\":0.1,\"aliases\":[\"z\",\"y\"]}]}";
    schema_t *plain = parse_ok(text, NULL, 0, SCHEMA_PARSE_NEW);
    schema_t *norm = parse_ok(text, NULL, 0, SCHEMA_PARSE_NEW | SCHEMA_PARSE_NORMALIZE);
    assert_string_equal(schema_canonical(plain),
                        "{\"type\":\"record\",\"name\":\"R\",\"namespace\":\"n\",\"fields\":[{\"name\":\"f\","
                        "\"type\":\"float\",\"default\":0.1,\"aliases\":[\"z\",\"y\"]}],\"b\":1,\"a\":2}");
    assert_string_equal(schema_canonical(norm),
                        "{\"type\":\"record\",\"name\":\"R\",\"namespace\":\"n\",\"fields\":[{\"name\":\"f\","
                        "\"type\":\"float\",\"default\":0.1,\"aliases\":[\"y\",\"z\"]}],\"a\":2,\"b\":1}");
    schema_free(plain);
    schema_free(norm);
}

static void test_engine_raw_messages_keep_role_placeholders(void **state)
{
    (void)state;
    schema_t *reader = parse_ok("{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\"]}", NULL, 0, 0);
    schema_t *writer =
        parse_ok("{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"C\",\"B\"]}", NULL, 0, 0);
    strlist_t raw = {0};
    assert_int_equal(schema_backward(reader, writer, &raw), 0);
    assert_int_equal(raw.n, 1);
    assert_string_equal(raw.items[0],
                        "{errorType:'MISSING_ENUM_SYMBOLS', description:'The %s schema is missing enum "
                        "symbols '[B, C]' at path '/symbols' in the %s schema', additionalInfo:'[B, C]'}");
    strlist_clear(&raw);
    assert_int_equal(schema_backward(writer, reader, &raw), 0);
    assert_int_equal(raw.n, 0);
    schema_free(reader);
    schema_free(writer);
}

/* ---- Direct API ------------------------------------------------------------------------------ */

static avro_model_t *model_ok(const char *text)
{
    char *error = NULL;
    avro_model_t *m = avro_model_parse(text, strlen(text), NULL, 0, 0, &error);
    if (!m)
        fail_msg("parse failed: %s", error);
    return m;
}

static void test_fingerprints(void **state)
{
    (void)state;
    assert_true(avro_fingerprint64("", 0) == 0xc15d213aa4d7a795ull);
    assert_true(avro_fingerprint64("\"int\"", 5) == (uint64_t)8247732601305521295ll);
    avro_model_t *m = model_ok("{\"type\":\"int\",\"logicalType\":\"date\"}");
    uint64_t fp = 0;
    assert_int_equal(avro_model_fingerprint64(m, &fp), 0);
    assert_true(fp == (uint64_t)8247732601305521295ll);
    avro_model_free(m);
}

static void test_issue_api(void **state)
{
    (void)state;
    const char *names[] = {"NAME_MISMATCH",        "FIXED_SIZE_MISMATCH",
                           "MISSING_ENUM_SYMBOLS", "READER_FIELD_MISSING_DEFAULT_VALUE",
                           "TYPE_MISMATCH",        "MISSING_UNION_BRANCH"};
    for (int t = AVRO_ISSUE_NAME_MISMATCH; t <= AVRO_ISSUE_MISSING_UNION_BRANCH; t++)
        assert_string_equal(avro_issue_type_name((avro_issue_type_t)t), names[t]);
    avro_model_t *r = model_ok("[\"int\"]"), *w = model_ok("[\"string\",\"int\",\"null\"]");
    avro_issues_t issues = {0};
    assert_int_equal(avro_check(r, w, &issues), 0);
    assert_int_equal(issues.n, 2);
    assert_int_equal(issues.items[1].type, AVRO_ISSUE_MISSING_UNION_BRANCH);
    assert_string_equal(issues.items[1].location, "/2");
    assert_string_equal(issues.items[1].message, "reader union lacking writer type: NULL");
    assert_null(issues.exception);
    assert_false(issues.truncated);
    avro_issues_free(&issues);
    assert_null(issues.items);
    assert_int_equal(issues.n, 0);
    avro_model_free(r);
    avro_model_free(w);
}

/* ---- Shared models --------------------------------------------------------------------------------- */

#define THREADS 8

typedef struct shared_job {
    const avro_model_t *const *models;
    size_t n;
    const int *expected; /* expected avro_check result per ordered pair */
    const char *const *canonical;
    int mismatches;
} shared_job_t;

static void *shared_job_run(void *arg)
{
    shared_job_t *job = arg;
    for (int round = 0; round < 50; round++) {
        for (size_t i = 0; i < job->n; i++) {
            char *c = avro_model_canonical(job->models[i]);
            job->mismatches += strcmp(c, job->canonical[i]) != 0;
            free(c);
            for (size_t k = 0; k < job->n; k++) {
                avro_issues_t issues = {0};
                job->mismatches +=
                    avro_check(job->models[i], job->models[k], &issues) != job->expected[i * job->n + k];
                avro_issues_free(&issues);
            }
        }
    }
    return NULL;
}

static void test_models_shared_between_threads(void **state)
{
    (void)state;
    const char *texts[] = {
        "{\"type\":\"record\",\"name\":\"LL\",\"fields\":[{\"name\":\"v\",\"type\":\"int\"},{\"name\":"
        "\"next\",\"type\":[\"null\",\"LL\"]}]}",
        "{\"type\":\"record\",\"name\":\"LL\",\"fields\":[{\"name\":\"v\",\"type\":\"long\"},{\"name\":"
        "\"next\",\"type\":[\"null\",\"LL\"]}]}",
        "{\"type\":\"record\",\"name\":\"LL\",\"fields\":[{\"name\":\"w\",\"type\":\"string\",\"default\":"
        "\"x\"},{\"name\":\"next\",\"type\":[\"null\",\"LL\"]}]}",
    };
    enum { N = 3 };
    const avro_model_t *models[N];
    char *canonical[N];
    int expected[N * N];
    for (size_t i = 0; i < N; i++) {
        models[i] = model_ok(texts[i]);
        canonical[i] = avro_model_canonical(models[i]);
    }
    for (size_t i = 0; i < N; i++)
        for (size_t k = 0; k < N; k++) {
            avro_issues_t issues = {0};
            expected[i * N + k] = avro_check(models[i], models[k], &issues);
            avro_issues_free(&issues);
        }
    assert_int_equal(expected[0 * N + 1], 0); /* int reads long: no */
    assert_int_equal(expected[1 * N + 0], 1); /* long reads int */
    pthread_t threads[THREADS];
    shared_job_t jobs[THREADS];
    for (int t = 0; t < THREADS; t++) {
        jobs[t] = (shared_job_t){models, N, expected, (const char *const *)canonical, 0};
        assert_int_equal(pthread_create(&threads[t], NULL, shared_job_run, &jobs[t]), 0);
    }
    for (int t = 0; t < THREADS; t++) {
        assert_int_equal(pthread_join(threads[t], NULL), 0);
        assert_int_equal(jobs[t].mismatches, 0);
    }
    for (size_t i = 0; i < N; i++) {
        avro_model_free((avro_model_t *)models[i]);
        free(canonical[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_avro_own_validation_cases),
        cmocka_unit_test(test_avro_own_compatibility_cases),
        cmocka_unit_test(test_engine_references_and_formats),
        cmocka_unit_test(test_engine_reads_only_len_bytes),
        cmocka_unit_test(test_engine_normalize),
        cmocka_unit_test(test_engine_raw_messages_keep_role_placeholders),
        cmocka_unit_test(test_fingerprints),
        cmocka_unit_test(test_issue_api),
        cmocka_unit_test(test_models_shared_between_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
