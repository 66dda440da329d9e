/*
 * The JSON Schema diff against Confluent's own vectors
 * (../shared/conformance/json, see its README): changes compared as
 * multisets, "compatible" under STRICT, "compatible_lenient" under LENIENT,
 * and the recursive schema diffed with itself.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test_support.h"
#include "compat/jsonschema/jsonschema.h"

static int conformance_present(void)
{
    struct stat st;
    if (stat(SR_CONFORMANCE_DIR, &st) == 0 && S_ISDIR(st.st_mode))
        return 1;
    printf("SKIP: conformance dir absent (%s)\n", SR_CONFORMANCE_DIR);
    return 0;
}

/* One vector file is not strict JSON: drop commas that precede '}' or ']' outside strings. */
static void strip_trailing_commas(char *s)
{
    char *w = s;
    int in_string = 0;
    for (char *r = s; *r; r++) {
        if (in_string) {
            if (*r == '\\' && r[1]) {
                *w++ = *r++;
            } else if (*r == '"') {
                in_string = 0;
            }
        } else if (*r == '"') {
            in_string = 1;
        } else if (*r == ',') {
            char *next = r + 1;
            while (*next == ' ' || *next == '\n' || *next == '\r' || *next == '\t')
                next++;
            if (*next == '}' || *next == ']')
                continue;
        }
        *w++ = *r;
    }
    *w = '\0';
}

static json_t *load_vectors(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/json/%s", SR_CONFORMANCE_DIR, name);
    char *text = test_read_file(path, NULL);
    if (!text)
        return NULL;
    strip_trailing_commas(text);
    json_error_t err;
    json_t *doc = json_loads(text, 0, &err);
    if (!doc)
        printf("%s: %s (line %d)\n", name, err.text, err.line);
    free(text);
    return doc;
}

static jsonschema_t *parse_value(json_t *v, char **error)
{
    char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    jsonschema_t *s = text ? jsonschema_parse(text, strlen(text), NULL, 0, 0, error) : NULL;
    free(text);
    return s;
}

/* Same strings, same counts, any order. */
static int same_multiset(const strlist_t *got, json_t *expected)
{
    if (got->n != json_array_size(expected))
        return 0;
    char *used = calloc(got->n + 1, 1);
    int ok = used != NULL;
    for (size_t i = 0; ok && i < json_array_size(expected); i++) {
        const char *want = json_string_value(json_array_get(expected, i));
        size_t j = 0;
        while (j < got->n && (used[j] || !want || strcmp(got->items[j], want) != 0))
            j++;
        if (j == got->n)
            ok = 0;
        else
            used[j] = 1;
    }
    free(used);
    return ok;
}

static int all_compatible(const strlist_t *changes, jsonschema_policy_t policy)
{
    for (size_t i = 0; i < changes->n; i++) {
        jsonschema_change_t t;
        if (jsonschema_change_parse(changes->items[i], &t) != 0 || !jsonschema_change_compatible(t, policy))
            return 0;
    }
    return 1;
}

static void print_list(const char *label, const strlist_t *l)
{
    printf("    %s:", label);
    for (size_t i = 0; i < l->n; i++)
        printf(" [%s]", l->items[i]);
    printf("\n");
}

/* Returns 1 when the case passes; prints why when it does not. */
static int run_case(const char *file, size_t index, json_t *c)
{
    const char *desc = json_string_value(json_object_get(c, "description"));
    char *err1 = NULL, *err2 = NULL;
    jsonschema_t *o = parse_value(json_object_get(c, "original_schema"), &err1);
    jsonschema_t *u = parse_value(json_object_get(c, "update_schema"), &err2);
    strlist_t strict = {0}, lenient = {0};
    int ok = o && u;
    if (ok)
        ok = jsonschema_diff(o, u, JSONSCHEMA_STRICT, &strict) == 0 &&
             jsonschema_diff(o, u, JSONSCHEMA_LENIENT, &lenient) == 0;
    json_t *want_lenient = json_object_get(c, "compatible_lenient");
    int compatible = json_is_true(json_object_get(c, "compatible"));
    int compatible_lenient = want_lenient ? json_is_true(want_lenient) : compatible;
    int changes_ok = ok && same_multiset(&strict, json_object_get(c, "changes"));
    int strict_ok = ok && all_compatible(&strict, JSONSCHEMA_STRICT) == compatible;
    int lenient_ok = ok && all_compatible(&lenient, JSONSCHEMA_LENIENT) == compatible_lenient;
    int pass = changes_ok && strict_ok && lenient_ok;
    if (!pass) {
        printf("FAIL %s #%zu: %s\n", file, index, desc ? desc : "?");
        if (!o || !u)
            printf("    parse error: %s\n", err1 ? err1 : err2);
        print_list("got", &strict);
        char *want = json_dumps(json_object_get(c, "changes"), JSON_COMPACT);
        printf("    want: %s compatible=%d lenient=%d\n", want, compatible, compatible_lenient);
        free(want);
    }
    free(err1);
    free(err2);
    strlist_clear(&strict);
    strlist_clear(&lenient);
    jsonschema_free(o);
    jsonschema_free(u);
    return pass;
}

static void test_case_files(void **state)
{
    (void)state;
    if (!conformance_present()) {
        skip();
        return;
    }
    static const char *const files[] = {"diff-schema-examples.json", "diff-schema-examples-2020-12.json",
                                        "diff-combined-schema-examples.json",
                                        "diff-combined-schema-examples-2020-12.json"};
    int passed = 0, failed = 0;
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        json_t *cases = load_vectors(files[f]);
        assert_non_null(cases);
        for (size_t i = 0; i < json_array_size(cases); i++) {
            if (run_case(files[f], i, json_array_get(cases, i)))
                passed++;
            else
                failed++;
        }
        json_decref(cases);
    }
    printf("json-schema conformance: %d passed, %d failed\n", passed, failed);
    fflush(stdout);
    assert_int_equal(failed, 0);
    assert_true(passed >= 263);
}

static void test_recursive_schema_against_itself(void **state)
{
    (void)state;
    if (!conformance_present()) {
        skip();
        return;
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/json/recursive-schema.json", SR_CONFORMANCE_DIR);
    char *text = test_read_file(path, NULL);
    assert_non_null(text);
    char *error = NULL;
    jsonschema_t *a = jsonschema_parse(text, strlen(text), NULL, 0, 0, &error);
    jsonschema_t *b = jsonschema_parse(text, strlen(text), NULL, 0, 0, &error);
    assert_non_null(a);
    assert_non_null(b);
    strlist_t changes = {0};
    assert_int_equal(jsonschema_diff(a, b, JSONSCHEMA_STRICT, &changes), 0);
    assert_int_equal(changes.n, 0);
    assert_int_equal(jsonschema_diff(a, a, JSONSCHEMA_STRICT, &changes), 0);
    assert_int_equal(changes.n, 0);
    jsonschema_free(a);
    jsonschema_free(b);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_case_files),
        cmocka_unit_test(test_recursive_schema_against_itself),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
