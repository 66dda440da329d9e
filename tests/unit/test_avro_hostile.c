/*
 * test_avro_hostile: inputs built to crash, exhaust or hang the Avro engine.
 * Each must end in a clean error or a correct verdict. Everything runs in
 * a thread with a 1 MB stack, the minimum the callers guarantee.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compat/avro/avro.h"

#define SMALL_STACK (1024 * 1024)

/* ---- Helpers ------------------------------------------------------------------ */

typedef struct text {
    char *s;
    size_t len;
    size_t cap;
} text_t;

static void text_add(text_t *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (t->len + (size_t)n + 1 > t->cap) {
        t->cap = (t->len + (size_t)n + 1) * 2;
        t->s = realloc(t->s, t->cap);
        assert_non_null(t->s);
    }
    va_start(ap, fmt);
    vsnprintf(t->s + t->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

static void run_small_stack(void *(*fn)(void *), void *arg)
{
    pthread_attr_t attr;
    pthread_t th;
    assert_int_equal(pthread_attr_init(&attr), 0);
    assert_int_equal(pthread_attr_setstacksize(&attr, SMALL_STACK), 0);
    assert_int_equal(pthread_create(&th, &attr, fn, arg), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    pthread_attr_destroy(&attr);
}

typedef struct parse_job {
    const char *text;
    int flags;
    avro_model_t *model;
    char *error;
    char *canonical;
    int self_check; /* avro_check(model, model) */
} parse_job_t;

static void *parse_job_run(void *arg)
{
    parse_job_t *job = arg;
    job->model = avro_model_parse(job->text, strlen(job->text), NULL, 0, job->flags, &job->error);
    if (job->model) {
        job->canonical = avro_model_canonical(job->model);
        avro_issues_t issues = {0};
        job->self_check = avro_check(job->model, job->model, &issues);
        avro_issues_free(&issues);
        free(avro_parsing_canonical_form(job->model));
        free(avro_model_resolved(job->model));
    }
    return NULL;
}

static void parse_job_free(parse_job_t *job)
{
    avro_model_free(job->model);
    free(job->error);
    free(job->canonical);
}

static char *nested_arrays(int depth)
{
    text_t t = {0};
    for (int i = 0; i < depth; i++)
        text_add(&t, "{\"type\":\"array\",\"items\":");
    text_add(&t, "\"int\"");
    for (int i = 0; i < depth; i++)
        text_add(&t, "}");
    return t.s;
}

/* ---- Depth ------------------------------------------------------------------------ */

static void test_ten_thousand_levels_is_a_clean_error(void **state)
{
    (void)state;
    char *text = nested_arrays(10000);
    parse_job_t job = {.text = text, .flags = SCHEMA_PARSE_NEW};
    run_small_stack(parse_job_run, &job);
    assert_null(job.model);
    assert_non_null(job.error);
    parse_job_free(&job);
    free(text);
}

static void test_depth_limit_is_exact(void **state)
{
    (void)state;
    char *ok = nested_arrays(999), *deep = nested_arrays(1000);
    parse_job_t a = {.text = ok}, b = {.text = deep};
    run_small_stack(parse_job_run, &a);
    run_small_stack(parse_job_run, &b);
    assert_non_null(a.model);
    assert_int_equal(a.self_check, 1);
    assert_non_null(a.canonical);
    assert_int_equal(strlen(a.canonical), strlen(ok));
    assert_null(b.model);
    assert_non_null(strstr(b.error, "nesting"));
    parse_job_free(&a);
    parse_job_free(&b);
    free(ok);
    free(deep);
}

/* 600 records nested in each other: within jansson's and our limits. */
static void test_deep_records_within_limits(void **state)
{
    (void)state;
    text_t t = {0};
    for (int i = 0; i < 600; i++)
        text_add(&t, "{\"type\":\"record\",\"name\":\"R%d\",\"fields\":[{\"name\":\"f\",\"type\":", i);
    text_add(&t, "\"int\"");
    for (int i = 0; i < 600; i++)
        text_add(&t, "}]}");
    parse_job_t job = {.text = t.s, .flags = SCHEMA_PARSE_NEW};
    run_small_stack(parse_job_run, &job);
    assert_non_null(job.model);
    assert_int_equal(job.self_check, 1);
    assert_string_equal(job.canonical, t.s);
    parse_job_free(&job);
    free(t.s);
}

/* Forward references chain definitions through names: each record's first
 * use is inside the previous one, so printing would nest 5,000 deep. */
static void test_forward_reference_chain_is_bounded(void **state)
{
    (void)state;
    text_t t = {0};
    text_add(&t, "{\"type\":\"record\",\"name\":\"Top\",\"fields\":[");
    for (int i = 0; i < 5000; i++) {
        text_add(&t,
                 "%s{\"name\":\"f%d\",\"type\":{\"type\":\"record\",\"name\":\"C%d\",\"fields\":[{\"name\":"
                 "\"n\",\"type\":",
                 i ? "," : "", i, i);
        if (i + 1 < 5000)
            text_add(&t, "[\"null\",\"C%d\"]}]}}", i + 1);
        else
            text_add(&t, "\"int\"}]}}");
    }
    text_add(&t, "]}");
    parse_job_t job = {.text = t.s};
    run_small_stack(parse_job_run, &job);
    assert_null(job.model);
    assert_non_null(strstr(job.error, "nesting"));
    parse_job_free(&job);
    free(t.s);
}

/* ---- Size --------------------------------------------------------------------------- */

static char *wide_record(int n, int changed)
{
    text_t t = {0};
    text_add(&t, "{\"type\":\"record\",\"name\":\"Wide\",\"fields\":[");
    for (int i = 0; i < n; i++)
        text_add(&t, "%s{\"name\":\"f%d\",\"type\":\"%s\"}", i ? "," : "", i,
                 i == changed ? "string" : "int");
    text_add(&t, "]}");
    return t.s;
}

static void test_hundred_thousand_fields(void **state)
{
    (void)state;
    char *a = wide_record(100000, -1), *b = wide_record(100000, 99999), *err = NULL;
    avro_model_t *ma = avro_model_parse(a, strlen(a), NULL, 0, SCHEMA_PARSE_NEW, &err);
    avro_model_t *mb = avro_model_parse(b, strlen(b), NULL, 0, SCHEMA_PARSE_NEW, &err);
    assert_non_null(ma);
    assert_non_null(mb);
    char *canonical = avro_model_canonical(ma);
    assert_string_equal(canonical, a);
    avro_issues_t issues = {0};
    assert_int_equal(avro_check(ma, ma, &issues), 1);
    assert_int_equal(avro_check(ma, mb, &issues), 0);
    assert_int_equal(issues.n, 1);
    assert_string_equal(issues.items[0].location, "/fields/99999/type");
    avro_issues_free(&issues);
    free(canonical);
    avro_model_free(ma);
    avro_model_free(mb);
    free(a);
    free(b);
}

enum { FIELD_INT, FIELD_AND_NULLABLE, FIELD_RECORD };

/* A union of n records U0..U(n-1) with a field x: an int (and a nullable
 * string), or a record of its own, which Avro must try against every other
 * branch. Branch k gets a field "extra" (int, no default) when k == changed. */
static char *record_union_of(int n, int changed, int fields)
{
    text_t t = {0};
    text_add(&t, "[");
    for (int i = 0; i < n; i++) {
        text_add(&t, "%s{\"type\":\"record\",\"name\":\"U%d\",\"fields\":[{\"name\":\"x\",\"type\":",
                 i ? "," : "", i);
        if (fields == FIELD_RECORD)
            text_add(&t,
                     "{\"type\":\"record\",\"name\":\"I%d\",\"fields\":[{\"name\":\"y\",\"type\":\"int\"}]}",
                     i);
        else if (fields == FIELD_AND_NULLABLE)
            text_add(&t, "\"int\"},{\"name\":\"note%d\",\"type\":[\"null\",\"string\"],\"default\":null", i);
        else
            text_add(&t, "\"int\"");
        text_add(&t, "}%s]}", i == changed ? ",{\"name\":\"extra\",\"type\":\"int\"}" : "");
    }
    text_add(&t, "]");
    return t.s;
}

static char *record_union(int n)
{
    return record_union_of(n, -1, FIELD_INT);
}

static avro_model_t *union_model(int n, int changed, int fields)
{
    char *text = record_union_of(n, changed, fields), *err = NULL;
    avro_model_t *m = avro_model_parse(text, strlen(text), NULL, 0, 0, &err);
    assert_non_null(m);
    free(text);
    return m;
}

static void test_large_union_gets_a_verdict(void **state)
{
    (void)state;
    char *text = record_union(500), *err = NULL;
    avro_model_t *m = avro_model_parse(text, strlen(text), NULL, 0, SCHEMA_PARSE_NEW, &err);
    assert_non_null(m);
    avro_issues_t issues = {0};
    assert_int_equal(avro_check(m, m, &issues), 1);
    avro_model_free(m);
    free(text);
}

/* The only issue: the writer's record branch at location has no reader. */
static void assert_one_missing_record(avro_issues_t *issues, const char *location)
{
    assert_null(issues->exception);
    assert_int_equal(issues->n, 1);
    assert_int_equal(issues->items[0].type, AVRO_ISSUE_MISSING_UNION_BRANCH);
    assert_string_equal(issues->items[0].location, location);
    assert_string_equal(issues->items[0].message, "reader union lacking writer type: RECORD");
    avro_issues_free(issues);
}

/* Branches are looked up by name (avro_check.c section 5): a wide union of
 * distinct records against itself, or read by itself plus one branch, is
 * linear and compatible. */
static void test_wide_union_matches_branches_by_name(void **state)
{
    (void)state;
    avro_model_t *m = union_model(1000, -1, FIELD_AND_NULLABLE),
                 *more = union_model(1001, -1, FIELD_AND_NULLABLE);
    avro_model_t *huge = union_model(20000, -1, FIELD_INT);
    avro_issues_t issues = {0};
    assert_int_equal(avro_check(m, m, &issues), 1);
    assert_int_equal(avro_check(more, m, &issues), 1); /* BACKWARD: the new union reads the old */
    assert_int_equal(avro_check(huge, huge, &issues), 1);
    assert_int_equal(avro_check(m, more, &issues), 0); /* FORWARD: U1000 has no reader */
    assert_one_missing_record(&issues, "/1000");
    avro_model_free(m);
    avro_model_free(more);
    avro_model_free(huge);
}

/* One branch changed incompatibly: its writer branch has no reader, and no
 * other branch is said to be the problem. */
static void test_wide_union_with_one_changed_branch(void **state)
{
    (void)state;
    avro_model_t *old = union_model(1000, -1, FIELD_AND_NULLABLE),
                 *changed = union_model(1000, 617, FIELD_AND_NULLABLE);
    avro_issues_t issues = {0};
    assert_int_equal(avro_check(changed, old, &issues), 0);
    assert_one_missing_record(&issues, "/617");
    assert_int_equal(avro_check(old, changed, &issues), 1); /* the old U617 ignores "extra" */
    avro_model_free(old);
    avro_model_free(changed);
}

/* Avro's union check is quadratic when branches must be tried (records
 * whose fields are records of their own); past the work limit the answer is
 * an exception message, in bounded time. */
static void test_huge_union_ends_with_a_clean_error(void **state)
{
    (void)state;
    avro_model_t *m = union_model(20000, -1, FIELD_RECORD);
    avro_issues_t issues = {0};
    assert_int_equal(avro_check(m, m, &issues), 0);
    assert_non_null(issues.exception);
    avro_issues_free(&issues);
    avro_model_free(m);
}

/* ---- Blow-ups in the checker ---------------------------------------------------------------- */

/* R0 has one incompatible field; Rk uses R(k-1) twice. Avro would repeat
 * the cached issue 2^40 times; the list stops at its limit. */
static void test_repeated_cached_issues_are_capped(void **state)
{
    (void)state;
    text_t r = {0}, w = {0};
    text_t *both[2] = {&r, &w};
    for (int s = 0; s < 2; s++) {
        text_add(both[s], "{\"type\":\"record\",\"name\":\"R40\",\"fields\":[");
        for (int k = 40; k > 0; k--)
            text_add(both[s], "{\"name\":\"a\",\"type\":{\"type\":\"record\",\"name\":\"R%d\",\"fields\":[",
                     k - 1);
        text_add(both[s], "{\"name\":\"x\",\"type\":\"%s\"}", s ? "long" : "int");
        for (int k = 1; k <= 40; k++)
            text_add(both[s], "]}},{\"name\":\"b\",\"type\":\"R%d\"}", k - 1);
        text_add(both[s], "]}");
    }
    char *err = NULL;
    avro_model_t *mr = avro_model_parse(r.s, r.len, NULL, 0, 0, &err);
    avro_model_t *mw = avro_model_parse(w.s, w.len, NULL, 0, 0, &err);
    assert_non_null(mr);
    assert_non_null(mw);
    avro_issues_t issues = {0};
    assert_int_equal(avro_check(mr, mw, &issues), 0);
    assert_true(issues.truncated);
    assert_true(issues.n > 0);
    assert_string_equal(issues.items[1].location, issues.items[0].location);
    avro_issues_free(&issues);
    avro_model_free(mr);
    avro_model_free(mw);
    free(r.s);
    free(w.s);
}

/* A cycle of p records read against a cycle of q: the pairs only repeat
 * after lcm(p, q) steps, deeper than any one schema. */
static char *record_cycle(int n)
{
    text_t t = {0};
    for (int i = 0; i < n; i++)
        text_add(&t, "{\"type\":\"record\",\"name\":\"C%d\",\"fields\":[{\"name\":\"n\",\"type\":", i);
    text_add(&t, "\"C0\"");
    for (int i = 0; i < n; i++)
        text_add(&t, "}]}");
    return t.s;
}

typedef struct check_job {
    avro_model_t *reader;
    avro_model_t *writer;
    int rc;
    avro_issues_t issues;
} check_job_t;

static void *check_job_run(void *arg)
{
    check_job_t *job = arg;
    job->rc = avro_check(job->reader, job->writer, &job->issues);
    return NULL;
}

static void check_cycles(int p, int q, check_job_t *job)
{
    char *a = record_cycle(p), *b = record_cycle(q), *err = NULL;
    job->reader = avro_model_parse(a, strlen(a), NULL, 0, 0, &err);
    job->writer = avro_model_parse(b, strlen(b), NULL, 0, 0, &err);
    assert_non_null(job->reader);
    assert_non_null(job->writer);
    run_small_stack(check_job_run, job);
    free(a);
    free(b);
}

static void check_job_free(check_job_t *job)
{
    avro_issues_free(&job->issues);
    avro_model_free(job->reader);
    avro_model_free(job->writer);
}

/* 60 x 61: 3,660 nested pairs, all but 60 a name mismatch, all on the heap. */
static void test_coprime_cycles_nest_deep_but_finish(void **state)
{
    (void)state;
    check_job_t job = {0};
    check_cycles(60, 61, &job);
    assert_int_equal(job.rc, 0);
    assert_null(job.issues.exception);
    /* 3,600 mismatches; their locations run to 50 KB each, so the report
     * may stop at its byte limit. */
    assert_true(job.issues.n == 60 * 61 - 60 || (job.issues.truncated && job.issues.n > 100));
    /* The first mismatch is C0 read against C60, sixty records down. */
    text_t want = {0};
    for (int i = 0; i < 60; i++)
        text_add(&want, "/fields/0/type");
    text_add(&want, "/name");
    assert_string_equal(job.issues.items[0].location, want.s);
    assert_string_equal(job.issues.items[0].message, "expected: C60");
    free(want.s);
    check_job_free(&job);
}

/* 400 x 401 would nest 160,400 pairs: stopped at the depth limit. */
static void test_coprime_cycles_stop_at_the_depth_limit(void **state)
{
    (void)state;
    check_job_t job = {0};
    check_cycles(400, 401, &job);
    assert_int_equal(job.rc, 0);
    assert_non_null(job.issues.exception);
    check_job_free(&job);
}

/* ---- Garbage --------------------------------------------------------------------------------- */

static const char *const seeds[] = {
    "{\"type\":\"record\",\"name\":\"R\",\"namespace\":\"a.b\",\"fields\":[{\"name\":\"x\",\"type\":["
    "\"null\",{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"B\"],\"default\":\"A\"}],\"default\":"
    "null},{\"name\":\"y\",\"type\":{\"type\":\"map\",\"values\":{\"type\":\"fixed\",\"name\":\"F\",\"size\":"
    "4}}}]}",
    "[\"null\",\"int\",{\"type\":\"array\",\"items\":{\"type\":\"bytes\",\"logicalType\":\"decimal\","
    "\"precision\":4,\"scale\":2}}]",
    "{\"type\":\"record\",\"name\":\"L\",\"fields\":[{\"name\":\"v\",\"type\":\"double\",\"default\":\"NaN\"}"
    ",{\"name\":\"next\",\"type\":[\"null\",\"L\"]}]}",
};

/* Byte flips, truncations and insertions of JSON punctuation: no crash, no leak. */
static void test_mutated_inputs_never_crash(void **state)
{
    (void)state;
    static const char punct[] = "{}[]\",:\\ 0a.-";
    unsigned seed = 12345;
    for (int round = 0; round < 30000; round++) {
        const char *base = seeds[round % 3];
        size_t len = strlen(base);
        char *buf = malloc(len + 2);
        memcpy(buf, base, len + 1);
        seed = seed * 1103515245u + 12345u;
        size_t pos = (seed >> 8) % len;
        if (round % 3 == 0)
            buf[pos] = punct[(seed >> 20) % (sizeof punct - 1)];
        else if (round % 3 == 1)
            len = pos;
        else
            buf[pos] ^= (char)(1u << ((seed >> 16) % 7));
        char *err = NULL;
        avro_model_t *m =
            avro_model_parse(buf, len, NULL, 0, round & 1 ? SCHEMA_PARSE_NEW : SCHEMA_PARSE_NORMALIZE, &err);
        if (m) {
            free(avro_model_canonical(m));
            avro_issues_t issues = {0};
            assert_int_equal(avro_check(m, m, &issues), 1);
            avro_issues_free(&issues);
        } else {
            assert_non_null(err);
        }
        avro_model_free(m);
        free(err);
        free(buf);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ten_thousand_levels_is_a_clean_error),
        cmocka_unit_test(test_depth_limit_is_exact),
        cmocka_unit_test(test_deep_records_within_limits),
        cmocka_unit_test(test_forward_reference_chain_is_bounded),
        cmocka_unit_test(test_hundred_thousand_fields),
        cmocka_unit_test(test_large_union_gets_a_verdict),
        cmocka_unit_test(test_wide_union_matches_branches_by_name),
        cmocka_unit_test(test_wide_union_with_one_changed_branch),
        cmocka_unit_test(test_huge_union_ends_with_a_clean_error),
        cmocka_unit_test(test_repeated_cached_issues_are_capped),
        cmocka_unit_test(test_coprime_cycles_nest_deep_but_finish),
        cmocka_unit_test(test_coprime_cycles_stop_at_the_depth_limit),
        cmocka_unit_test(test_mutated_inputs_never_crash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
