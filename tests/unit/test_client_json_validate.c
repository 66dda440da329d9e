/*
 * test_client_json_validate: the JSON Schema validator of client/
 * (client.h, section 3c; docs/decoding.md, section 10).
 *
 *   1. Patterns: ECMA-262 as POSIX, what the translation keeps and refuses
 *   2. Messages: the first failure's JSON pointer, escaped as RFC 6901 says
 *   3. $ref: pointers, anchors, $id, references by name
 *   4. Limits: depth, steps; a verdict, never a crash
 *
 * The keywords' verdicts themselves are cross-checked against
 * python3-jsonschema in tests/integration/test_decoder.py.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "client/client.h"

/* 1 valid, 0 invalid; *error (when not NULL) gets the message (malloc'd). */
static int check(const char *schema, const char *instance, char **error)
{
    char *why = NULL;
    srclient_json_validator_t *v = srclient_json_validator_new(schema, NULL, 0, NULL, &why);
    if (!v)
        fail_msg("schema %s: %s", schema, why);
    json_error_t je;
    json_t *x = json_loads(instance, JSON_DECODE_ANY, &je);
    assert_non_null(x);
    int ok = srclient_json_validate(v, x, &why) == 0;
    if (!ok && error)
        *error = why;
    else if (!ok)
        free(why);
    json_decref(x);
    srclient_json_validator_free(v);
    return ok;
}

static void assert_error(const char *schema, const char *instance, const char *want)
{
    char *error = NULL;
    assert_int_equal(check(schema, instance, &error), 0);
    assert_string_equal(error, want);
    free(error);
}

/* ---- 1. Patterns -------------------------------------------------------------- */

static int matches(const char *pattern, const char *text)
{
    json_t *s = json_pack("{s:s}", "pattern", pattern);
    char *schema = json_dumps(s, 0);
    json_t *t = json_string(text);
    char *instance = json_dumps(t, JSON_ENCODE_ANY);
    int ok = check(schema, instance, NULL);
    free(schema);
    free(instance);
    json_decref(s);
    json_decref(t);
    return ok;
}

static void test_patterns(void **state)
{
    (void)state;
    /* Classes, anchors, quantifiers; matched anywhere unless anchored. */
    assert_true(matches("^\\d{3}$", "123"));
    assert_false(matches("^\\d{3}$", "12a"));
    assert_true(matches("\\d", "ab1"));
    assert_true(matches("^\\w+\\s\\S$", "a_1 x"));
    assert_false(matches("^\\D+$", "a1"));
    /* Brackets rebuilt: an escaped ], ^ and - and a backslash inside one. */
    assert_true(matches("^[\\w.\\-]+@[a-z]+$", "a.b-c@x"));
    assert_false(matches("^[\\w.\\-]+@[a-z]+$", "a+b@x"));
    assert_true(matches("^[\\]x]+$", "]x]"));
    assert_true(matches("^[\\^a]+$", "^a"));
    assert_true(matches("^[\\^]$", "^"));
    assert_true(matches("^[^\\^]$", "b"));
    assert_false(matches("^[^\\^]$", "^"));
    assert_true(matches("^[\\\\/]$", "\\"));
    assert_true(matches("^[.*+?]+$", "*.?"));
    /* (?: is a group, a lazy quantifier's ? is dropped, escaped punctuation is itself. */
    assert_true(matches("^(?:ab)+$", "abab"));
    assert_true(matches("^a+?b$", "aab"));
    assert_true(matches("^a\\?\\.\\/$", "a?./"));
    assert_true(matches("^\\u0041\\x42$", "AB"));
    /* A non-ASCII character is one atom. */
    assert_true(matches("^\xc3\xa9?x$", "x"));
    assert_true(matches("^\xc3\xa9?x$", "\xc3\xa9x"));
    assert_true(matches("^\\u00e9+$", "\xc3\xa9\xc3\xa9"));
    assert_false(matches("^\\u00e9+$", "\xc3\xa9" "a"));
    /* Refused, never passed: the value is invalid with the reason. */
    assert_error("{\"pattern\": \"^(?=a)\"}", "\"a\"",
                 "\"\" (the root): pattern \"^(?=a)\" is not supported: lookaround and named groups have no "
                 "POSIX form");
    assert_error(
        "{\"pattern\": \"(a)\\\\1\"}", "\"aa\"",
        "\"\" (the root): pattern \"(a)\\1\" is not supported: \\1 (back-references, \\p classes) has "
        "no POSIX form");
    assert_error(
        "{\"pattern\": \"[\\\\D]\"}", "\"a\"",
        "\"\" (the root): pattern \"[\\D]\" is not supported: \\D inside a bracket has no POSIX form");
    assert_error(
        "{\"pattern\": \"[\xc3\xa9]\"}", "\"a\"",
        "\"\" (the root): pattern \"[\xc3\xa9]\" is not supported: a non-ASCII character in a bracket "
        "(matching is over bytes)");
    assert_error("{\"pattern\": \"[]\"}", "\"a\"",
                 "\"\" (the root): pattern \"[]\" is not supported: an empty bracket");
    /* Not strings: pattern does not apply. */
    assert_true(check("{\"pattern\": \"^x$\"}", "5", NULL));
}

/* ---- 2. Messages -------------------------------------------------------------- */

static void test_pointers(void **state)
{
    (void)state;
    assert_error("{\"properties\": {\"a/b\": {\"properties\": {\"c~d\": {\"type\": \"string\"}}}}}",
                 "{\"a/b\": {\"c~d\": 1}}", "/a~1b/c~0d: a number, not of type string");
    assert_error("{\"items\": {\"maxLength\": 2}}", "[\"ab\", \"abc\"]",
                 "/1: a string of 3 characters is longer than maxLength 2");
    /* The first failure, not a later one; inside anyOf only the anyOf's own. */
    assert_error("{\"required\": [\"a\", \"b\"]}", "{}",
                 "\"\" (the root): the required property \"a\" is missing");
    assert_error("{\"properties\": {\"x\": {\"anyOf\": [{\"type\": \"string\"}, {\"minimum\": 3}]}}}",
                 "{\"x\": 1}", "/x: valid against no schema of anyOf");
    assert_error("{\"minLength\": 2}", "\"\xf0\x9f\x98\x80\"",
                 "\"\" (the root): a string of 1 characters is shorter than minLength 2");
}

/* ---- 3. $ref ------------------------------------------------------------------ */

static void test_refs(void **state)
{
    (void)state;
    const char *schema =
        "{\"$schema\": \"https://json-schema.org/draft/2020-12/schema\", \"$id\": "
        "\"https://example.com/root.json\", \"$defs\": {\"a\": {\"$anchor\": \"A\", \"type\": "
        "\"integer\"}, \"b\": {\"$id\": \"b.json\", \"type\": \"string\"}}, \"properties\": "
        "{\"p\": {\"$ref\": \"#/$defs/a\"}, \"q\": {\"$ref\": \"#A\"}, \"r\": {\"$ref\": "
        "\"https://example.com/b.json\"}, \"s\": {\"$ref\": \"b.json\"}, \"t\": {\"$ref\": "
        "\"other.json#/$defs/z\"}}}";
    srclient_json_ref_t refs[] = {{"other.json", "{\"$defs\": {\"z\": {\"const\": \"z\"}}}"}};
    char *why = NULL;
    srclient_json_validator_t *v = srclient_json_validator_new(schema, refs, 1, NULL, &why);
    assert_non_null(v);
    static const struct {
        const char *instance;
        const char *error; /* NULL: valid */
    } cases[] = {
        {"{\"p\": 1, \"q\": 2, \"r\": \"x\", \"s\": \"y\", \"t\": \"z\"}", NULL},
        {"{\"p\": \"1\"}", "/p: a string, not of type integer"},
        {"{\"q\": 1.5}", "/q: a number, not of type integer"},
        {"{\"r\": 1}", "/r: a number, not of type string"},
        {"{\"s\": 1}", "/s: a number, not of type string"},
        {"{\"t\": \"y\"}", "/t: not the const value"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
        json_t *x = json_loads(cases[i].instance, 0, NULL);
        int rc = srclient_json_validate(v, x, &why);
        if (!cases[i].error)
            assert_int_equal(rc, 0);
        else {
            assert_int_equal(rc, -1);
            assert_string_equal(why, cases[i].error);
            free(why);
        }
        json_decref(x);
    }
    srclient_json_validator_free(v);
    assert_error("{\"$ref\": \"nowhere.json\"}", "1",
                 "\"\" (the root): $ref \"nowhere.json\" does not resolve");
    assert_error("{\"$ref\": \"#/definitions/none\"}", "1",
                 "\"\" (the root): $ref \"#/definitions/none\" does not resolve");
    /* Not JSON: no validator. */
    assert_null(srclient_json_validator_new("{", NULL, 0, NULL, &why));
    free(why);
    assert_null(srclient_json_validator_new("1", NULL, 0, NULL, &why));
    assert_string_equal(why, "a JSON schema is an object or a boolean");
    free(why);
}

/* ---- 4. Limits ---------------------------------------------------------------- */

static void test_limits(void **state)
{
    (void)state;
    /* A $ref cycle that consumes nothing (the registry refuses it; a validator must not hang on it). */
    assert_error("{\"$ref\": \"#\"}", "1", "\"\" (the root): schemas applied deeper than 256");
    /* uniqueItems over many equal-looking items counts its comparisons. */
    srclient_json_limits_t limits = {.max_steps = 1000};
    char *why = NULL;
    srclient_json_validator_t *v =
        srclient_json_validator_new("{\"uniqueItems\": true}", NULL, 0, &limits, &why);
    json_t *arr = json_array();
    for (int i = 0; i < 100; i++)
        json_array_append_new(arr, json_integer(i));
    assert_int_equal(srclient_json_validate(v, arr, &why), -1);
    assert_string_equal(why, "\"\" (the root): more than 1000 validation steps");
    free(why);
    json_decref(arr);
    srclient_json_validator_free(v);
    /* The boolean schemas. */
    assert_true(check("true", "{\"any\": 1}", NULL));
    assert_error("false", "1", "\"\" (the root): no value is valid here (the schema false)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_patterns),
        cmocka_unit_test(test_pointers),
        cmocka_unit_test(test_refs),
        cmocka_unit_test(test_limits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
