/*
 * test_avro_cases: runs Avro case files in the format of
 * ../shared/conformance/avro (see its README), shared by
 * test_avro_conformance.c (the shared vectors) and test_avro.c (the
 * project's own cases in tests/data/avro).
 *
 * Validation cases may also carry, in the project's own files:
 *   "references": [<schema>, ...]   parsed first, dependencies first
 *   "normalized": "..."             canonical text with SCHEMA_PARSE_NORMALIZE
 *   "resolved":   "..."             format "resolved" (references inlined)
 *   "fingerprint": <int64>          CRC-64-AVRO of the Parsing Canonical Form, signed as in Java
 *   "schema_text": "..."            raw input text used instead of "schema" (comments, BOM)
 *
 * "error_as_new" is compared literally: the engine reproduces Avro's texts.
 *
 * Every mismatch is printed with the case name; the caller fails the test
 * when any case failed.
 */
#ifndef TEST_AVRO_CASES_H
#define TEST_AVRO_CASES_H

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat/avro/avro.h"
#include "compat/level.h"
#include "compat/schema.h"

typedef struct case_stats {
    int passed;
    int failed;
} case_stats_t;

typedef struct case_refs {
    schema_ref_t *items;
    char **texts;
    size_t n;
} case_refs_t;

static char *case_text(const json_t *schema)
{
    return json_dumps(schema, JSON_COMPACT | JSON_ENCODE_ANY);
}

static int case_refs_load(const json_t *c, case_refs_t *refs)
{
    const json_t *arr = json_object_get(c, "references");
    refs->n = json_array_size(arr);
    refs->items = calloc(refs->n + 1, sizeof *refs->items);
    refs->texts = calloc(refs->n + 1, sizeof *refs->texts);
    if (!refs->items || !refs->texts)
        return -1;
    for (size_t i = 0; i < refs->n; i++) {
        refs->texts[i] = case_text(json_array_get(arr, i));
        refs->items[i].name = "";
        refs->items[i].subject = "ref";
        refs->items[i].version = (int)i + 1;
        refs->items[i].text = refs->texts[i];
    }
    return 0;
}

static void case_refs_free(case_refs_t *refs)
{
    for (size_t i = 0; i < refs->n; i++)
        free(refs->texts[i]);
    free(refs->texts);
    free(refs->items);
}

static int case_report(const char *name, const char *what, const char *want, const char *got)
{
    printf("  FAIL [%s] %s\n    want: %s\n    got:  %s\n", name, what, want ? want : "(none)",
           got ? got : "(none)");
    return 1;
}

static int case_expect_text(const char *name, const char *what, const json_t *want, char *got)
{
    int bad = 0;
    if (json_is_string(want) && (!got || strcmp(got, json_string_value(want)) != 0))
        bad = case_report(name, what, json_string_value(want), got);
    free(got);
    return bad;
}

static int case_expect_fingerprint(const char *name, const json_t *want, const avro_model_t *m)
{
    uint64_t fp = 0;
    if (!json_is_integer(want))
        return 0;
    if (avro_model_fingerprint64(m, &fp) != 0 || (json_int_t)fp != json_integer_value(want)) {
        char got[32], exp[32];
        snprintf(got, sizeof got, "%lld", (long long)(int64_t)fp);
        snprintf(exp, sizeof exp, "%lld", (long long)json_integer_value(want));
        return case_report(name, "fingerprint", exp, got);
    }
    return 0;
}

/* Parses text with refs and flags; checks validity, then the optional texts. */
static int case_check_parse(const json_t *c, const char *name, const char *text, const case_refs_t *refs,
                            int flags, int want_valid, int check_texts)
{
    char *error = NULL;
    avro_model_t *m = avro_model_parse(text, strlen(text), refs->items, refs->n, flags, &error);
    int bad = 0;
    const char *mode = (flags & SCHEMA_PARSE_NEW) ? "valid_as_new" : "valid_existing";
    const char *want_error = json_string_value(json_object_get(c, "error_as_new"));
    if (!m != !want_valid)
        bad = case_report(name, mode, want_valid ? "valid" : "invalid", m ? "valid" : error);
    else if (!m && (flags & SCHEMA_PARSE_NEW) && want_error && strcmp(error, want_error) != 0)
        bad = case_report(name, "error_as_new", want_error, error);
    if (m && check_texts) {
        bad |= case_expect_text(name, "canonical", json_object_get(c, "canonical"), avro_model_canonical(m));
        bad |= case_expect_text(name, "parsing_canonical_form", json_object_get(c, "parsing_canonical_form"),
                                avro_parsing_canonical_form(m));
        bad |= case_expect_text(name, "resolved", json_object_get(c, "resolved"), avro_model_resolved(m));
        bad |= case_expect_fingerprint(name, json_object_get(c, "fingerprint"), m);
    }
    avro_model_free(m);
    free(error);
    return bad;
}

static int case_check_normalized(const json_t *c, const char *name, const char *text, const case_refs_t *refs)
{
    const json_t *want = json_object_get(c, "normalized");
    if (!want)
        return 0;
    char *error = NULL;
    avro_model_t *m =
        avro_model_parse(text, strlen(text), refs->items, refs->n, SCHEMA_PARSE_NORMALIZE, &error);
    int bad;
    if (json_is_null(want))
        bad = m ? case_report(name, "normalized", "(error)", "parsed") : 0;
    else
        bad = m ? case_expect_text(name, "normalized", want, avro_model_canonical(m))
                : case_report(name, "normalized", json_string_value(want), error);
    avro_model_free(m);
    free(error);
    return bad;
}

static int case_run_validation(const json_t *c)
{
    const char *name = json_string_value(json_object_get(c, "name"));
    const char *raw = json_string_value(json_object_get(c, "schema_text"));
    char *text = raw ? strdup(raw) : case_text(json_object_get(c, "schema"));
    case_refs_t refs = {0};
    if (!text || case_refs_load(c, &refs) != 0) {
        free(text);
        return case_report(name, "setup", "memory", "none");
    }
    int as_new = json_is_true(json_object_get(c, "valid_as_new"));
    int existing = json_is_true(json_object_get(c, "valid_existing"));
    int bad = case_check_parse(c, name, text, &refs, SCHEMA_PARSE_NEW, as_new, as_new);
    bad |= case_check_parse(c, name, text, &refs, 0, existing, existing);
    bad |= case_check_normalized(c, name, text, &refs);
    case_refs_free(&refs);
    free(text);
    return bad;
}

static avro_model_t *case_model(const json_t *schema, const char *name, const char *role)
{
    char *error = NULL;
    char *text = case_text(schema);
    avro_model_t *m = text ? avro_model_parse(text, strlen(text), NULL, 0, 0, &error) : NULL;
    if (!m)
        case_report(name, role, "a valid schema", error);
    free(error);
    free(text);
    return m;
}

static int case_expect_issues(const json_t *c, const char *name, const avro_issues_t *issues)
{
    const json_t *want = json_object_get(c, "incompatibilities");
    size_t n = json_array_size(want);
    int bad = 0;
    for (size_t i = 0; i < n || i < issues->n; i++) {
        const json_t *w = json_array_get(want, i);
        char exp[1024] = "(nothing)", got[1024] = "(nothing)";
        if (w)
            snprintf(exp, sizeof exp, "%s %s %s", json_string_value(json_object_get(w, "type")),
                     json_string_value(json_object_get(w, "location")),
                     json_string_value(json_object_get(w, "message")));
        if (i < issues->n)
            snprintf(got, sizeof got, "%s %s %s", avro_issue_type_name(issues->items[i].type),
                     issues->items[i].location, issues->items[i].message);
        if (strcmp(exp, got) != 0)
            bad = case_report(name, "incompatibility", exp, got);
    }
    return bad;
}

static int case_run_pair(const json_t *c)
{
    const char *name = json_string_value(json_object_get(c, "name"));
    avro_model_t *reader = case_model(json_object_get(c, "reader"), name, "reader");
    avro_model_t *writer = case_model(json_object_get(c, "writer"), name, "writer");
    int bad = !reader || !writer;
    if (!bad) {
        avro_issues_t issues = {0};
        int rc = avro_check(reader, writer, &issues);
        int want = json_is_true(json_object_get(c, "compatible"));
        if (rc != want)
            bad = case_report(name, "compatible", want ? "compatible" : "incompatible",
                              rc == 1   ? "compatible"
                              : rc == 0 ? "incompatible"
                                        : "error");
        if (json_object_get(c, "exception") && !issues.exception)
            bad = case_report(name, "exception", json_string_value(json_object_get(c, "exception")), "none");
        if (!json_object_get(c, "exception"))
            bad |= case_expect_issues(c, name, &issues);
        avro_issues_free(&issues);
    }
    avro_model_free(reader);
    avro_model_free(writer);
    return bad;
}

static schema_t *case_schema(const json_t *schema, int flags, const char *name)
{
    char *error = NULL;
    char *text = case_text(schema);
    schema_t *s = text ? schema_parse(SCHEMA_AVRO, text, strlen(text), NULL, 0, flags, &error) : NULL;
    if (!s)
        case_report(name, "schema", "a valid schema", error);
    free(error);
    free(text);
    return s;
}

static int case_expect_messages(const json_t *c, const char *name, const strlist_t *got)
{
    const json_t *want = json_object_get(c, "messages");
    int bad = 0;
    for (size_t i = 0; i < json_array_size(want) || i < got->n; i++) {
        const char *w = json_string_value(json_array_get(want, i));
        const char *g = i < got->n ? got->items[i] : NULL;
        if (!w || !g || strcmp(w, g) != 0)
            bad = case_report(name, "message", w, g);
    }
    return bad;
}

static int case_run_level(const json_t *c)
{
    const char *name = json_string_value(json_object_get(c, "name"));
    const json_t *prev = json_object_get(c, "previous");
    size_t n = json_array_size(prev);
    compat_previous_t *history = calloc(n + 1, sizeof *history);
    schema_t *candidate = case_schema(json_object_get(c, "candidate"), SCHEMA_PARSE_NEW, name);
    int bad = !history || !candidate;
    for (size_t i = 0; i < n && history; i++) {
        history[i].version = (int)i + 1;
        history[i].schema = case_schema(json_array_get(prev, i), 0, name);
        bad |= !history[i].schema;
    }
    compat_level_t level;
    if (!bad && compat_level_parse(json_string_value(json_object_get(c, "level")), &level) != 0)
        bad = case_report(name, "level", "a level", json_string_value(json_object_get(c, "level")));
    if (!bad) {
        strlist_t messages = {0};
        int rc = compat_check(level, candidate, history, n, 0, &messages);
        int want = json_is_true(json_object_get(c, "compatible"));
        if (rc != want)
            bad = case_report(name, "compatible", want ? "compatible" : "incompatible",
                              rc == 1   ? "compatible"
                              : rc == 0 ? "incompatible"
                                        : "error");
        bad |= case_expect_messages(c, name, &messages);
        strlist_clear(&messages);
    }
    for (size_t i = 0; i < n && history; i++)
        schema_free((schema_t *)history[i].schema);
    free(history);
    schema_free(candidate);
    return bad;
}

/* Runs every case of one file; returns -1 when the file cannot be read. */
static int case_run_file(const char *path, case_stats_t *st)
{
    json_error_t je;
    json_t *cases = json_load_file(path, 0, &je);
    if (!json_is_array(cases)) {
        printf("cannot read %s: %s\n", path, je.text);
        json_decref(cases);
        return -1;
    }
    for (size_t i = 0; i < json_array_size(cases); i++) {
        const json_t *c = json_array_get(cases, i);
        int bad;
        if (json_object_get(c, "schema"))
            bad = case_run_validation(c);
        else if (json_object_get(c, "level"))
            bad = case_run_level(c);
        else
            bad = case_run_pair(c);
        if (bad)
            st->failed++;
        else
            st->passed++;
    }
    json_decref(cases);
    return 0;
}

#endif
