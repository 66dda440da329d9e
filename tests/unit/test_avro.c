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

static schema_t *parse_ok_len(const char *text, size_t len)
{
    char *error = NULL;
    schema_t *s = schema_parse(SCHEMA_AVRO, text, len, NULL, 0, 0, &error);
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

/* The error of parsing text (len bytes) with flags; fails the test when it parses. */
static char *parse_error(const char *text, size_t len, int flags)
{
    char *error = NULL;
    schema_t *s = schema_parse(SCHEMA_AVRO, text, len, NULL, 0, flags, &error);
    if (s)
        fail_msg("parsed, expected an error: %s", schema_canonical(s));
    return error;
}

static void assert_canonical(const char *text, int flags, const char *expected)
{
    schema_t *s = parse_ok(text, NULL, 0, flags);
    assert_string_equal(schema_canonical(s), expected);
    assert_int_equal(schema_canonical_len(s), strlen(expected));
    schema_free(s);
}

static void assert_error_has(const char *text, size_t len, int flags, const char *needle)
{
    char *error = parse_error(text, len, flags);
    if (!strstr(error, needle))
        fail_msg("error \"%s\" lacks \"%s\"", error, needle);
    free(error);
}

/* Jackson decodes \u0000 and Avro's Schema.toString writes it back as \u0000. */
static void test_nul_in_json_strings(void **state)
{
    (void)state;
    const char *fixed = "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"f\",\"type\":{\"type\":"
                        "\"fixed\",\"name\":\"F\",\"size\":4},\"default\":\"\\u0000\\u0000\\u0000\\u0000\"},"
                        "{\"name\":\"b\",\"type\":\"bytes\",\"doc\":\"d\\u0000\",\"default\":\"\\u0000x\"}],"
                        "\"p\":{\"k\":\"\\u0000\"}}";
    assert_canonical(fixed, SCHEMA_PARSE_NEW, fixed);
    assert_canonical(fixed, 0, fixed);
    /* toNormalizedString: the bytes default goes through ISO-8859-1, U+0000 survives. */
    assert_canonical(fixed, SCHEMA_PARSE_NEW | SCHEMA_PARSE_NORMALIZE,
                     "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"f\",\"type\":{\"type\":"
                     "\"fixed\",\"name\":\"F\",\"size\":4},\"default\":\"\\u0000\\u0000\\u0000\\u0000\"},"
                     "{\"name\":\"b\",\"type\":\"bytes\",\"doc\":\"d\\u0000\",\"default\":\"\\u0000x\"}],"
                     "\"p\":{\"k\":\"\\u0000\"}}");
    /* With its length, "uuid\u0000" is no logical type: normalization keeps it as a plain property. */
    assert_canonical("{\"type\":\"string\",\"logicalType\":\"uuid\\u0000\"}",
                     SCHEMA_PARSE_NEW | SCHEMA_PARSE_NORMALIZE,
                     "{\"type\":\"string\",\"logicalType\":\"uuid\\u0000\"}");
    /* Names never hold U+0000 (Avro's validators); the message shows it escaped. */
    const char *name = "{\"type\":\"record\",\"name\":\"A\\u0000B\",\"fields\":[]}";
    assert_error_has(name, strlen(name), SCHEMA_PARSE_NEW, "Illegal character in: A\\u0000B");
    assert_error_has(name, strlen(name), 0, "Illegal character in: A\\u0000B");
    const char *initial = "{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"\\u0000a\"]}";
    assert_error_has(initial, strlen(initial), SCHEMA_PARSE_NEW, "Illegal initial character: \\u0000a");
    /* Double.parseDouble("1\u0000") throws. */
    const char *dbl = "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"d\",\"type\":\"double\","
                      "\"default\":\"1\\u0000\"}]}";
    assert_error_has(dbl, strlen(dbl), SCHEMA_PARSE_NEW, "For input string: \"1\\u0000\"");
    /* A NUL byte in the text is read, not taken for its end; a comment may hold one. */
    const char raw[] = "{\"type\":\"string\"}\0{";
    assert_error_has(raw, sizeof raw - 1, 0, "Invalid JSON");
    const char comment[] = "{\"type\":\"string\"} /* \0 */";
    schema_t *s = parse_ok_len(comment, sizeof comment - 1);
    assert_string_equal(schema_canonical(s), "\"string\"");
    schema_free(s);
}

/* Jackson keeps integers beyond int64 as BigIntegerNode; Avro writes their digits back. */
static void test_big_integers(void **state)
{
    (void)state;
    const char *big = "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"d\",\"type\":\"double\","
                      "\"default\":123456789012345678901234567890}],\"p\":[9223372036854775807,"
                      "9223372036854775808,-9223372036854775809,{\"q\":-123456789012345678901234567890}]}";
    assert_canonical(big, SCHEMA_PARSE_NEW, big);
    /* The marks that carry them through jansson cannot clash with strings of U+0000. */
    const char *strings =
        "{\"type\":\"string\",\"a\":\"\\u0000\",\"b\":\"\\u0000\\u000018446744073709551616\","
        "\"c\":18446744073709551616,\"d\":[\"\\u000018446744073709551616\"]}";
    assert_canonical(strings, SCHEMA_PARSE_NEW, strings);
    /* The limit (avro_json.c): strings starting with every count of U+0000 up to 8. */
    char limit[1024] = "{\"type\":\"string\",\"a\":[";
    for (int k = 1; k <= 8; k++) {
        strcat(limit, k > 1 ? ",\"" : "\"");
        for (int i = 0; i < k; i++)
            strcat(limit, "\\u0000");
        strcat(limit, "1\"");
    }
    strcat(limit, "],\"c\":18446744073709551616}");
    assert_error_has(limit, strlen(limit), 0, "too big integer");
    /* A number is no schema, and no text: Jackson's textValue() of it is null. */
    assert_error_has("18446744073709551616", 20, 0, "Schema not yet supported: 18446744073709551616");
    const char *name = "{\"type\":\"record\",\"name\":18446744073709551616,\"fields\":[]}";
    assert_error_has(name, strlen(name), 0, "No name in schema");
    /* Schema.isValidDefault: an int or long default must fit; float and double take any number. */
    const char *lng = "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"l\",\"type\":\"long\","
                      "\"default\":18446744073709551616}]}";
    assert_error_has(lng, strlen(lng), SCHEMA_PARSE_NEW,
                     "Invalid default for field l: 18446744073709551616 not a \"long\"");
    assert_canonical(lng, 0, lng);
    const char *str = "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"s\",\"type\":\"string\","
                      "\"default\":18446744073709551616}]}";
    assert_error_has(str, strlen(str), SCHEMA_PARSE_NEW, "not a \"string\"");
    /* Normalized: JacksonUtils.toObject has no object for one, so a default made of
     * one is dropped and a property value holding one throws. */
    assert_error_has(big, strlen(big), SCHEMA_PARSE_NORMALIZE,
                     "Cannot normalize schema: cannot convert the value of property p");
    const char *dflt = "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"d\",\"type\":\"double\","
                       "\"default\":123456789012345678901234567890}],\"p\":9223372036854775807}";
    assert_canonical(dflt, SCHEMA_PARSE_NEW | SCHEMA_PARSE_NORMALIZE,
                     "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"d\",\"type\":\"double\"}],"
                     "\"p\":9223372036854775807}");
    const char *inside = "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":{\"type\":"
                         "\"array\",\"items\":\"double\"},\"default\":[18446744073709551616]}]}";
    assert_error_has(inside, strlen(inside), SCHEMA_PARSE_NORMALIZE,
                     "Cannot normalize schema: cannot convert the default of field a");
}

/* AvroSchemaUtils.toJsonNode: object members of property values and defaults in a TreeMap. */
static void test_normalize_sorts_json_objects(void **state)
{
    (void)state;
    assert_canonical("{\"type\":\"string\",\"p\":{\"b\":2,\"a\":{\"d\":[{\"z\":1,\"y\":2}],\"c\":1}}}",
                     SCHEMA_PARSE_NEW | SCHEMA_PARSE_NORMALIZE,
                     "{\"type\":\"string\",\"p\":{\"a\":{\"c\":1,\"d\":[{\"y\":2,\"z\":1}]},\"b\":2}}");
    /* String.compareTo: UTF-16 code units, so U+1F600 (a surrogate pair) sorts before U+FFFD. */
    assert_canonical("{\"type\":\"string\",\"p\":{\"\xef\xbf\xbd\":1,\"\xf0\x9f\x98\x80\":2,\"Z\":3}}",
                     SCHEMA_PARSE_NEW | SCHEMA_PARSE_NORMALIZE,
                     "{\"type\":\"string\",\"p\":{\"Z\":3,\"\xf0\x9f\x98\x80\":2,\"\xef\xbf\xbd\":1}}");
    const char *rec =
        "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"r\",\"type\":{\"type\":"
        "\"record\",\"name\":\"S\",\"fields\":[{\"name\":\"y\",\"type\":\"int\"},{\"name\":\"x\","
        "\"type\":\"int\"}]},\"default\":{\"y\":1,\"x\":2}}]}";
    assert_canonical(
        rec, SCHEMA_PARSE_NEW | SCHEMA_PARSE_NORMALIZE,
        "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"r\",\"type\":{\"type\":"
        "\"record\",\"name\":\"S\",\"fields\":[{\"name\":\"y\",\"type\":\"int\"},{\"name\":\"x\","
        "\"type\":\"int\"}]},\"default\":{\"x\":2,\"y\":1}}]}");
    /* Without normalize the text keeps the order it was given. */
    assert_canonical("{\"type\":\"string\",\"p\":{\"b\":2,\"a\":1}}", SCHEMA_PARSE_NEW,
                     "{\"type\":\"string\",\"p\":{\"b\":2,\"a\":1}}");
}

/* AvroSchema.equivalent: Schema.equals plus aliases, docs and enum defaults. */
static void test_equivalent(void **state)
{
    (void)state;
    schema_ref_t ref = {.name = "m.Money", .subject = "money", .version = 1, .text = money};
    schema_t *with_ref = parse_ok(order, &ref, 1, 0);
    schema_t *inlined =
        parse_ok("{\"type\":\"record\",\"name\":\"Order\",\"fields\":[{\"name\":\"a\",\"type\":"
                 "{\"type\":\"record\",\"name\":\"Money\",\"namespace\":\"m\",\"fields\":"
                 "[{\"name\":\"units\",\"type\":\"long\"}]}},{\"name\":\"b\",\"type\":\"m.Money\"}]}",
                 NULL, 0, 0);
    assert_string_not_equal(schema_canonical(with_ref), schema_canonical(inlined));
    assert_int_equal(schema_equivalent(with_ref, inlined), 1);
    assert_int_equal(schema_equivalent(inlined, with_ref), 1);
    schema_t *doc = parse_ok("{\"type\":\"record\",\"name\":\"Order\",\"fields\":[{\"name\":\"a\",\"type\":"
                             "{\"type\":\"record\",\"name\":\"Money\",\"namespace\":\"m\",\"doc\":\"cents\","
                             "\"fields\":[{\"name\":\"units\",\"type\":\"long\"}]}},{\"name\":\"b\",\"type\":"
                             "\"m.Money\"}]}",
                             NULL, 0, 0);
    assert_int_equal(schema_equivalent(with_ref, doc), 0);
    schema_free(with_ref);
    schema_free(inlined);
    schema_free(doc);

    struct {
        const char *a, *b;
        int equivalent;
    } pairs[] = {
        /* Properties are a map, aliases sets: their order does not count. */
        {"{\"type\":\"string\",\"a\":1,\"b\":{\"x\":1,\"y\":2}}",
         "{\"type\":\"string\",\"b\":{\"y\":2,\"x\":1},\"a\":1}", 1},
        {"{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\"],\"aliases\":[\"X\",\"Y\"]}",
         "{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\"],\"aliases\":[\"Y\",\"X\"]}", 1},
        {"{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"f\",\"type\":\"int\",\"aliases\":["
         "\"a\",\"b\"]}]}",
         "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"f\",\"type\":\"int\",\"aliases\":["
         "\"b\",\"a\"]}]}",
         1},
        /* metaEqual: aliases, docs and enum defaults count. */
        {"{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"B\"],\"default\":\"A\"}",
         "{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"B\"],\"default\":\"B\"}", 0},
        {"{\"type\":\"fixed\",\"name\":\"F\",\"size\":2,\"aliases\":[\"G\"]}",
         "{\"type\":\"fixed\",\"name\":\"F\",\"size\":2}", 0},
        {"{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"f\",\"type\":\"int\",\"doc\":\"x\"}]}",
         "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"f\",\"type\":\"int\",\"doc\":\"y\"}]}",
         0},
        {"{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"f\",\"type\":\"int\",\"doc\":"
         "\"a\\u0000b\"}]}",
         "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"f\",\"type\":\"int\",\"doc\":"
         "\"a\\u0000c\"}]}",
         0},
        /* Schema.equals: defaults and property values. */
        {"{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"f\",\"type\":\"int\",\"default\":1}]}",
         "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"f\",\"type\":\"int\",\"default\":2}]}",
         0},
        {"{\"type\":\"string\",\"p\":18446744073709551616}",
         "{\"type\":\"string\",\"p\":18446744073709551617}", 0},
        /* Recursive types end. */
        {"{\"type\":\"record\",\"name\":\"L\",\"fields\":[{\"name\":\"n\",\"type\":[\"null\",\"L\"]}]}",
         "{\"type\":\"record\",\"name\":\"L\",\"fields\":[{\"name\":\"n\",\"type\":[\"null\",\"L\"]}]}", 1},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
        schema_t *a = parse_ok(pairs[i].a, NULL, 0, 0), *b = parse_ok(pairs[i].b, NULL, 0, 0);
        if (schema_equivalent(a, b) != pairs[i].equivalent)
            fail_msg("pair %zu: expected %d", i, pairs[i].equivalent);
        schema_free(a);
        schema_free(b);
    }
    /* Another type is never equivalent. */
    char *error = NULL;
    schema_t *json = schema_parse(SCHEMA_JSON, "{\"type\":\"string\"}", 17, NULL, 0, 0, &error);
    schema_t *avro = parse_ok("{\"type\":\"string\"}", NULL, 0, 0);
    assert_non_null(json);
    assert_int_equal(schema_equivalent(json, avro), 0);
    assert_int_equal(schema_equivalent(json, json), 1);
    schema_free(json);
    schema_free(avro);
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
        cmocka_unit_test(test_nul_in_json_strings),
        cmocka_unit_test(test_big_integers),
        cmocka_unit_test(test_normalize_sorts_json_objects),
        cmocka_unit_test(test_equivalent),
        cmocka_unit_test(test_engine_raw_messages_keep_role_placeholders),
        cmocka_unit_test(test_fingerprints),
        cmocka_unit_test(test_issue_api),
        cmocka_unit_test(test_models_shared_between_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
