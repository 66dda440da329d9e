/*
 * The JSON Schema engine on its own cases (no ../shared needed): loader
 * errors with keyword paths, $ref resolution and the refusal of remote
 * references, canonical text and normalization, diffs and messages.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat/jsonschema/jsonschema.h"
#include "compat/level.h"
#include "compat/schema.h"

static jsonschema_t *parse_ok(const char *text)
{
    char *error = NULL;
    jsonschema_t *s = jsonschema_parse(text, strlen(text), NULL, 0, 0, &error);
    if (!s)
        printf("unexpected error: %s\n", error);
    free(error);
    assert_non_null(s);
    return s;
}

/* Parses text expecting failure; the error must contain fragment. */
static void parse_fails(const char *text, const char *fragment)
{
    char *error = NULL;
    jsonschema_t *s = jsonschema_parse(text, strlen(text), NULL, 0, 0, &error);
    assert_null(s);
    assert_non_null(error);
    if (!strstr(error, fragment))
        printf("error '%s' lacks '%s'\n", error, fragment);
    assert_non_null(strstr(error, fragment));
    free(error);
}

static char *read_data(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/jsonschema/%s", SR_TEST_DATA_DIR, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    static char buf[65536];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strdup(buf);
}

/* diff(original, update) under policy equals exactly the listed changes (any order). */
static void expect_diff(const char *original, const char *update, jsonschema_policy_t policy,
                        const char *const *want, size_t nwant)
{
    jsonschema_t *o = parse_ok(original), *u = parse_ok(update);
    strlist_t got = {0};
    assert_int_equal(jsonschema_diff(o, u, policy, &got), 0);
    for (size_t i = 0; i < got.n; i++)
        printf("  got %s\n", got.items[i]);
    assert_int_equal(got.n, nwant);
    for (size_t i = 0; i < nwant; i++) {
        int found = 0;
        for (size_t j = 0; j < got.n && !found; j++)
            found = strcmp(got.items[j], want[i]) == 0;
        if (!found)
            printf("missing %s\n", want[i]);
        assert_true(found);
    }
    strlist_clear(&got);
    jsonschema_free(o);
    jsonschema_free(u);
}

/* ---- loader errors ------------------------------------------------------------ */

static void test_loader_errors_name_the_keyword(void **state)
{
    (void)state;
    parse_fails("[1,2]", "expected an object or boolean at the root");
    parse_fails("{\"type\": 1", "Invalid JSON");
    parse_fails("{\"properties\": {\"a\": {\"minLength\": \"x\"}}}",
                "#/properties/a/minLength: expected an integer");
    parse_fails("{\"type\": \"strin\"}", "#/type: unknown type: [strin]");
    parse_fails("{\"type\": [\"string\", 3]}", "#/type/1: expected a string");
    parse_fails("{\"required\": \"a\"}", "#/required: expected an array");
    parse_fails("{\"items\": [{\"maxItems\": 1.5}]}", "#/items/0/maxItems: expected an integer");
    parse_fails("{\"properties\": {\"a\": 5}}", "#/properties/a: expected a schema");
    parse_fails("{\"multipleOf\": 0}", "multipleOf should not be 0");
    parse_fails("{\"$schema\": 7}", "#/$schema: expected a string");
    parse_fails("{\"$schema\": \"https://json-schema.org/draft/2020-12/schema\", "
                "\"prefixItems\": {\"type\": \"string\"}}",
                "#/prefixItems: expected an array");
    parse_fails("{\"$schema\": \"http://json-schema.org/draft-04/schema#\", "
                "\"exclusiveMinimum\": 3}",
                "#/exclusiveMinimum: expected a boolean");
    parse_fails("{\"title\": 5}", "#/title: expected a string");
}

static void test_drafts_are_selected_by_dollar_schema(void **state)
{
    (void)state;
    static const struct {
        const char *doc;
        jsonschema_draft_t draft;
    } cases[] = {
        {"{}", JSONSCHEMA_DRAFT_7},
        {"{\"$schema\": \"http://json-schema.org/draft-04/schema#\"}", JSONSCHEMA_DRAFT_4},
        {"{\"$schema\": \"http://json-schema.org/draft-06/schema\"}", JSONSCHEMA_DRAFT_6},
        {"{\"$schema\": \"https://json-schema.org/draft/2019-09/schema\"}", JSONSCHEMA_DRAFT_2019_09},
        {"{\"$schema\": \"https://json-schema.org/draft/2020-12/schema\"}", JSONSCHEMA_DRAFT_2020_12},
        {"{\"$schema\": \"urn:unknown\"}", JSONSCHEMA_DRAFT_7},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        jsonschema_t *s = parse_ok(cases[i].doc);
        assert_int_equal(jsonschema_get_draft(s), cases[i].draft);
        jsonschema_free(s);
    }
    /* draft-04 has no const: it is an unknown keyword there, a schema in draft 7 */
    jsonschema_t *d4 = parse_ok("{\"$schema\": \"http://json-schema.org/draft-04/schema#\", \"const\": 1}");
    assert_int_equal(jsonschema_root(d4)->kind, JSONSCHEMA_NODE_EMPTY);
    jsonschema_free(d4);
    jsonschema_t *d7 = parse_ok("{\"const\": 1}");
    assert_int_equal(jsonschema_root(d7)->kind, JSONSCHEMA_NODE_CONST);
    jsonschema_free(d7);
}

static void test_boolean_documents(void **state)
{
    (void)state;
    jsonschema_t *t = parse_ok("true"), *f = parse_ok(" false ");
    assert_int_equal(jsonschema_root(t)->kind, JSONSCHEMA_NODE_TRUE);
    assert_int_equal(jsonschema_root(f)->kind, JSONSCHEMA_NODE_FALSE);
    assert_string_equal(jsonschema_canonical(f), "false");
    jsonschema_free(t);
    jsonschema_free(f);
}

/* ---- $ref ----------------------------------------------------------------------- */

static void test_local_refs_resolve(void **state)
{
    (void)state;
    jsonschema_t *s = parse_ok("{\"properties\": {\"a\": {\"$ref\": \"#/definitions/x\"},"
                               " \"b\": {\"$ref\": \"#/$defs/x\"}, \"c\": {\"$ref\": \"#node\"}},"
                               " \"definitions\": {\"x\": {\"type\": \"string\"},"
                               " \"y\": {\"$id\": \"#node\", \"type\": \"number\"}}}");
    const jsonschema_node_t *root = jsonschema_root(s);
    assert_int_equal(root->nprops, 3);
    for (size_t i = 0; i < 3; i++)
        assert_int_equal(root->props[i].schema->kind, JSONSCHEMA_NODE_REFERENCE);
    assert_int_equal(jsonschema_node_deref(root->props[0].schema)->kind, JSONSCHEMA_NODE_STRING);
    /* "#/$defs/x" falls back to definitions, as the reference mirrors them */
    assert_ptr_equal(jsonschema_node_deref(root->props[1].schema),
                     jsonschema_node_deref(root->props[0].schema));
    assert_int_equal(jsonschema_node_deref(root->props[2].schema)->kind, JSONSCHEMA_NODE_NUMBER);
    jsonschema_free(s);

    jsonschema_t *m = parse_ok("{\"$schema\": \"https://json-schema.org/draft/2020-12/schema\","
                               " \"items\": {\"$ref\": \"#leaf\"},"
                               " \"$defs\": {\"l\": {\"$anchor\": \"leaf\", \"type\": \"boolean\"}}}");
    assert_int_equal(jsonschema_node_deref(jsonschema_root(m)->all_items)->kind, JSONSCHEMA_NODE_BOOLEAN);
    jsonschema_free(m);
}

static void test_id_relative_refs(void **state)
{
    (void)state;
    jsonschema_t *s = parse_ok("{\"$id\": \"http://example.com/root.json\","
                               " \"items\": {\"$ref\": \"item.json\"},"
                               " \"definitions\": {\"i\": {\"$id\": \"item.json\", \"type\": \"null\"}}}");
    assert_int_equal(jsonschema_node_deref(jsonschema_root(s)->all_items)->kind, JSONSCHEMA_NODE_NULL);
    jsonschema_free(s);
}

static void test_unresolved_and_remote_refs_are_errors(void **state)
{
    (void)state;
    parse_fails("{\"$ref\": \"#/definitions/missing\"}", "unresolved $ref '#/definitions/missing'");
    parse_fails("{\"items\": {\"$ref\": \"https://example.com/s.json\"}}", "not fetched");
    parse_fails("{\"$ref\": \"other.json\"}", "unresolved $ref 'other.json'");
    parse_fails("{\"$ref\": \"#\"}", "circular");
}

static void test_references_resolve_to_given_texts(void **state)
{
    (void)state;
    char *customer = read_data("customer.json");
    char *address = read_data("address.json");
    schema_ref_t refs[] = {{"address.json", "address", 1, address}};
    char *error = NULL;
    jsonschema_t *s = jsonschema_parse(customer, strlen(customer), refs, 1, 0, &error);
    assert_null(error);
    assert_non_null(s);
    const jsonschema_node_t *root = jsonschema_root(s);
    const jsonschema_node_t *addr = NULL;
    for (size_t i = 0; i < root->nprops; i++) {
        if (strcmp(root->props[i].name.s, "address") == 0)
            addr = jsonschema_node_deref(root->props[i].schema);
    }
    assert_non_null(addr);
    assert_int_equal(addr->kind, JSONSCHEMA_NODE_OBJECT);
    assert_true(addr->additional_forbidden);
    jsonschema_free(s);
    /* without the reference it is an error, never a fetch */
    assert_null(jsonschema_parse(customer, strlen(customer), NULL, 0, 0, &error));
    assert_non_null(strstr(error, "address.json"));
    free(error);
    free(customer);
    free(address);
}

/* ---- canonical text ------------------------------------------------------------------ */

static void expect_canonical(const char *text, int flags, const char *want)
{
    char *error = NULL;
    jsonschema_t *s = jsonschema_parse(text, strlen(text), NULL, 0, flags, &error);
    assert_non_null(s);
    assert_string_equal(jsonschema_canonical(s), want);
    jsonschema_free(s);
}

static void test_canonical_text(void **state)
{
    (void)state;
    expect_canonical("{ \"type\" : \"object\",\n \"properties\": {\"b\": {}, \"a\": {}} }", 0,
                     "{\"type\":\"object\",\"properties\":{\"b\":{},\"a\":{}}}");
    expect_canonical("{\"default\": [1.50, 1e2, -0, 0.0000001, 12.5E-1, 18446744073709551616,"
                     " -0.0, 1.0E+10, 0.001, NaN, -Infinity]}",
                     0,
                     "{\"default\":[1.50,1E+2,0,1E-7,1.25,18446744073709551616,0.0,1.0E+10,"
                     "0.001,NaN,-Infinity]}");
    expect_canonical("{\"description\": \"tab\\t nl\\n \\u0001 \\u00e9 \\/ \\\"q\\\"\"}", 0,
                     "{\"description\":\"tab\\t nl\\n \\u0001 \xc3\xa9 / \\\"q\\\"\"}");
    /* a duplicate key keeps its first place and its last value */
    expect_canonical("{\"a\": 1, \"b\": 2, \"a\": 3}", 0, "{\"a\":3,\"b\":2}");
    expect_canonical("{\"type\": \"object\", \"properties\": {\"b\": {\"z\": 1, \"y\": 2}, \"a\": {}},"
                     " \"$id\": \"x\"}",
                     SCHEMA_PARSE_NORMALIZE,
                     "{\"$id\":\"x\",\"properties\":{\"a\":{},\"b\":{\"y\":2,\"z\":1}},"
                     "\"type\":\"object\"}");
}

static void test_hostile_documents_fail_cleanly(void **state)
{
    (void)state;
    size_t depth = 5000;
    char *deep = malloc(depth * 2 + 1);
    for (size_t i = 0; i < depth; i++) {
        deep[i] = '[';
        deep[depth + i] = ']';
    }
    deep[depth * 2] = '\0';
    parse_fails(deep, "nesting too deep");
    free(deep);
    /* 400 nested "not" schemas: valid JSON, too deep a schema */
    char *nots = malloc(400 * 9 + 400 + 8);
    char *w = nots;
    for (int i = 0; i < 400; i++)
        w += sprintf(w, "{\"not\":");
    w += sprintf(w, "{}");
    for (int i = 0; i < 400; i++)
        *w++ = '}';
    *w = '\0';
    parse_fails(nots, "nested more than");
    free(nots);
    parse_fails("{\"a\": \"\xff\"}", "invalid UTF-8");
    parse_fails("{\"a\": \"\\ud800\"}", "surrogate");
    parse_fails("{} x", "trailing");
    parse_fails("{\"a\": 01}", "leading zero");
}

/* ---- diff ----------------------------------------------------------------------------------- */

static void test_diff_content_models(void **state)
{
    (void)state;
    const char *closed = "{\"properties\": {\"a\": {\"type\": \"string\"}}, \"additionalProperties\": false}";
    const char *closed_plus =
        "{\"properties\": {\"a\": {\"type\": \"string\"}, \"b\": {\"type\": \"string\"}},"
        " \"required\": [\"b\"], \"additionalProperties\": false}";
    const char *want1[] = {"REQUIRED_PROPERTY_ADDED_TO_UNOPEN_CONTENT_MODEL #/properties/b"};
    expect_diff(closed, closed_plus, JSONSCHEMA_STRICT, want1, 1);
    const char *want2[] = {"PROPERTY_REMOVED_FROM_CLOSED_CONTENT_MODEL #/properties/b"};
    expect_diff(closed_plus, closed, JSONSCHEMA_STRICT, want2, 1);
    const char *want3[] = {"TYPE_EXTENDED #/properties/n", "DEFAULT_CHANGED #/properties/n"};
    expect_diff("{\"properties\": {\"n\": {\"type\": \"integer\"}}}",
                "{\"properties\": {\"n\": {\"type\": \"number\", \"default\": 1}}}", JSONSCHEMA_STRICT, want3,
                2);
    const char *want4[] = {"SUM_TYPE_EXTENDED #/"};
    expect_diff("{\"type\": \"string\"}", "{\"type\": [\"string\", \"null\"]}", JSONSCHEMA_STRICT, want4, 1);
    const char *want5[] = {"DEPENDENCY_ARRAY_NARROWED #/dependencies/a",
                           "ENUM_ARRAY_EXTENDED #/properties/e/enum"};
    expect_diff("{\"dependencies\": {\"a\": [\"b\", \"c\"]}, \"properties\": {\"e\": {\"enum\": [1]}}}",
                "{\"dependencies\": {\"a\": [\"b\"]}, \"properties\": {\"e\": {\"enum\": [1, 2]}}}",
                JSONSCHEMA_STRICT, want5, 2);
}

static void test_diff_policy_changes_branch_choice(void **state)
{
    (void)state;
    /* the first compatible anyOf branch wins: only LENIENT accepts the open-model addition */
    const char *orig = "{\"type\": \"object\", \"properties\": {\"a\": {}}}";
    const char *upd =
        "{\"anyOf\": [{\"type\": \"object\", \"properties\": {\"a\": {}, \"b\": {\"type\": \"string\"}}},"
        " {\"type\": \"null\"}]}";
    const char *strict[] = {"TYPE_CHANGED #/"};
    expect_diff(orig, upd, JSONSCHEMA_STRICT, strict, 1);
    const char *lenient[] = {"OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL #/properties/b",
                             "SUM_TYPE_EXTENDED #/"};
    expect_diff(orig, upd, JSONSCHEMA_LENIENT, lenient, 2);
    jsonschema_change_t t;
    assert_int_equal(jsonschema_change_parse("OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL #/x", &t), 0);
    assert_false(jsonschema_change_compatible(t, JSONSCHEMA_STRICT));
    assert_true(jsonschema_change_compatible(t, JSONSCHEMA_LENIENT));
    assert_int_equal(jsonschema_change_parse("NO_SUCH_TYPE", &t), -1);
}

static void test_diff_recursive_change_is_found(void **state)
{
    (void)state;
    const char *a =
        "{\"$ref\": \"#/definitions/n\", \"definitions\": {\"n\": {\"type\": \"object\","
        " \"properties\": {\"v\": {\"type\": \"integer\"}, \"next\": {\"$ref\": \"#/definitions/n\"}}}}}";
    const char *b =
        "{\"$ref\": \"#/definitions/n\", \"definitions\": {\"n\": {\"type\": \"object\","
        " \"properties\": {\"v\": {\"type\": \"string\"}, \"next\": {\"$ref\": \"#/definitions/n\"}}}}}";
    /* The fixpoint feeds the incompatible pair back into the cycle, so the
     * change shows at the recursion's first level too (as the reference does). */
    const char *want[] = {"TYPE_CHANGED #/properties/v", "TYPE_CHANGED #/properties/next/properties/v"};
    expect_diff(a, b, JSONSCHEMA_STRICT, want, 2);
    expect_diff(a, a, JSONSCHEMA_STRICT, NULL, 0);
}

/* A oneOf of n objects told apart by a const "k<i>"; branch `changed` says
 * "x<i>" instead. Malloc'd. */
static char *wide_one_of(int n, int changed)
{
    size_t cap = (size_t)n * 128 + 64, len = 0;
    char *s = malloc(cap);
    assert_non_null(s);
    len += (size_t)snprintf(s + len, cap - len, "{\"oneOf\": [");
    for (int i = 0; i < n; i++)
        len += (size_t)snprintf(s + len, cap - len,
                                "%s{\"type\": \"object\", \"properties\": {\"kind\": {\"const\": \"%c%d\"}}, "
                                "\"required\": [\"kind\"]}",
                                i ? ", " : "", i == changed ? 'x' : 'k', i);
    snprintf(s + len, cap - len, "]}");
    return s;
}

/* Equal branches are paired first (jsonschema_diff_combined.c), so a wide
 * oneOf against itself or with a branch appended is linear: compatible, as
 * Confluent says (an added branch is SUM_TYPE_EXTENDED). */
static void test_wide_one_of_pairs_equal_branches(void **state)
{
    (void)state;
    char *v1 = wide_one_of(1500, -1), *v2 = wide_one_of(1501, -1);
    expect_diff(v1, v1, JSONSCHEMA_STRICT, NULL, 0);
    const char *extended[] = {"SUM_TYPE_EXTENDED #/"};
    expect_diff(v1, v2, JSONSCHEMA_STRICT, extended, 1);
    const char *narrowed[] = {"SUM_TYPE_NARROWED #/"};
    expect_diff(v2, v1, JSONSCHEMA_STRICT, narrowed, 1);
    jsonschema_t *old = parse_ok(v1), *cand = parse_ok(v2);
    strlist_t raw = {0};
    assert_int_equal(jsonschema_backward(cand, old, JSONSCHEMA_STRICT, &raw), 0);
    assert_int_equal(raw.n, 0);
    jsonschema_free(old);
    jsonschema_free(cand);
    free(v1);
    free(v2);
}

/* One branch changed: only its row is compared with every update branch,
 * and no pairing covers it. */
static void test_wide_one_of_with_one_changed_branch(void **state)
{
    (void)state;
    char *v1 = wide_one_of(1500, -1), *v2 = wide_one_of(1500, 700);
    const char *changed[] = {"COMBINED_TYPE_SUBSCHEMAS_CHANGED #/"};
    expect_diff(v1, v2, JSONSCHEMA_STRICT, changed, 1);
    free(v1);
    free(v2);
}

/* Recursion met after pairs were skipped: the diff is run again comparing
 * every pair, so even its compatible differences are the reference's. */
static void test_diff_recursive_combined_compares_every_pair(void **state)
{
    (void)state;
    const char *a = "{\"oneOf\": [{\"oneOf\": [{}, {\"$ref\": \"#\"}]}]}";
    const char *want[] = {"SUM_TYPE_EXTENDED #/oneOf/0/oneOf/0"};
    expect_diff(a, a, JSONSCHEMA_STRICT, want, 1);
}

/* ---- bounds ---------------------------------------------------------------------------------- */

#define D4 "\"$schema\": \"http://json-schema.org/draft-04/schema#\", "

/* Every numeric and length bound, both ways, in the draft-4 boolean and the draft-6+ numeric
 * spellings of the exclusive limits. `want` is the Difference.Type Confluent's diff reports
 * (json-schema-provider ...json.diff.NumberSchemaDiff, StringSchemaDiff, ArraySchemaDiff,
 * ObjectSchemaDiff), NULL for none; `compatible` is whether SchemaDiff.COMPATIBLE_CHANGES_STRICT
 * holds it, i.e. whether a BACKWARD check of update against original passes. */
static const struct bound_case {
    const char *original, *update, *want;
    int compatible;
} bound_cases[] = {
    /* StringSchemaDiff: maxLength / minLength */
    {"{\"type\": \"string\"}", "{\"type\": \"string\", \"maxLength\": 5}", "MAX_LENGTH_ADDED #/maxLength", 0},
    {"{\"type\": \"string\", \"maxLength\": 5}", "{\"type\": \"string\"}", "MAX_LENGTH_REMOVED #/maxLength",
     1},
    {"{\"type\": \"string\", \"maxLength\": 5}", "{\"type\": \"string\", \"maxLength\": 8}",
     "MAX_LENGTH_INCREASED #/maxLength", 1},
    {"{\"type\": \"string\", \"maxLength\": 8}", "{\"type\": \"string\", \"maxLength\": 5}",
     "MAX_LENGTH_DECREASED #/maxLength", 0},
    {"{\"type\": \"string\"}", "{\"type\": \"string\", \"minLength\": 2}", "MIN_LENGTH_ADDED #/minLength", 0},
    {"{\"type\": \"string\", \"minLength\": 2}", "{\"type\": \"string\"}", "MIN_LENGTH_REMOVED #/minLength",
     1},
    {"{\"type\": \"string\", \"minLength\": 2}", "{\"type\": \"string\", \"minLength\": 3}",
     "MIN_LENGTH_INCREASED #/minLength", 0},
    {"{\"type\": \"string\", \"minLength\": 3}", "{\"type\": \"string\", \"minLength\": 2}",
     "MIN_LENGTH_DECREASED #/minLength", 1},
    /* NumberSchemaDiff: maximum / minimum */
    {"{\"type\": \"number\"}", "{\"type\": \"number\", \"maximum\": 29}", "MAXIMUM_ADDED #/maximum", 0},
    {"{\"type\": \"number\", \"maximum\": 29}", "{\"type\": \"number\"}", "MAXIMUM_REMOVED #/maximum", 1},
    {"{\"type\": \"number\", \"maximum\": 23}", "{\"type\": \"number\", \"maximum\": 29}",
     "MAXIMUM_INCREASED #/maximum", 1},
    {"{\"type\": \"number\", \"maximum\": 29}", "{\"type\": \"number\", \"maximum\": 23}",
     "MAXIMUM_DECREASED #/maximum", 0},
    {"{\"type\": \"number\"}", "{\"type\": \"number\", \"minimum\": 3}", "MINIMUM_ADDED #/minimum", 0},
    {"{\"type\": \"number\", \"minimum\": 3}", "{\"type\": \"number\"}", "MINIMUM_REMOVED #/minimum", 1},
    {"{\"type\": \"number\", \"minimum\": 3}", "{\"type\": \"number\", \"minimum\": 5}",
     "MINIMUM_INCREASED #/minimum", 0},
    {"{\"type\": \"number\", \"minimum\": 5}", "{\"type\": \"number\", \"minimum\": 3}",
     "MINIMUM_DECREASED #/minimum", 1},
    /* NumberSchemaDiff: draft 6+ numeric exclusiveMaximum / exclusiveMinimum */
    {"{\"type\": \"number\"}", "{\"type\": \"number\", \"exclusiveMaximum\": 29}",
     "EXCLUSIVE_MAXIMUM_ADDED #/exclusiveMaximum", 0},
    {"{\"type\": \"number\", \"exclusiveMaximum\": 29}", "{\"type\": \"number\"}",
     "EXCLUSIVE_MAXIMUM_REMOVED #/exclusiveMaximum", 1},
    {"{\"type\": \"number\", \"exclusiveMaximum\": 23}", "{\"type\": \"number\", \"exclusiveMaximum\": 29}",
     "EXCLUSIVE_MAXIMUM_INCREASED #/exclusiveMaximum", 1},
    /* issue 12 item 6: was accepted. Confluent's decrease test reads the update's maximum, which
     * is absent here (a null dereference there, so the change never passes either) */
    {"{\"type\": \"number\", \"exclusiveMaximum\": 29}", "{\"type\": \"number\", \"exclusiveMaximum\": 23}",
     "EXCLUSIVE_MAXIMUM_DECREASED #/exclusiveMaximum", 0},
    {"{\"type\": \"integer\", \"exclusiveMaximum\": 29.5}",
     "{\"type\": \"integer\", \"exclusiveMaximum\": 23}", "EXCLUSIVE_MAXIMUM_DECREASED #/exclusiveMaximum",
     0},
    /* with a maximum in the update: decreased when the old limit is above that maximum ... */
    {"{\"type\": \"number\", \"maximum\": 25, \"exclusiveMaximum\": 29}",
     "{\"type\": \"number\", \"maximum\": 25, \"exclusiveMaximum\": 23}",
     "EXCLUSIVE_MAXIMUM_DECREASED #/exclusiveMaximum", 0},
    /* ... and nothing when it is not (Confluent's quirk, reproduced) */
    {"{\"type\": \"number\", \"maximum\": 30, \"exclusiveMaximum\": 29}",
     "{\"type\": \"number\", \"maximum\": 30, \"exclusiveMaximum\": 23}", NULL, 1},
    {"{\"type\": \"number\"}", "{\"type\": \"number\", \"exclusiveMinimum\": 3}",
     "EXCLUSIVE_MINIMUM_ADDED #/exclusiveMinimum", 0},
    {"{\"type\": \"number\", \"exclusiveMinimum\": 3}", "{\"type\": \"number\"}",
     "EXCLUSIVE_MINIMUM_REMOVED #/exclusiveMinimum", 1},
    {"{\"type\": \"number\", \"exclusiveMinimum\": 3}", "{\"type\": \"number\", \"exclusiveMinimum\": 5}",
     "EXCLUSIVE_MINIMUM_INCREASED #/exclusiveMinimum", 0},
    {"{\"type\": \"number\", \"exclusiveMinimum\": 5}", "{\"type\": \"number\", \"exclusiveMinimum\": 3}",
     "EXCLUSIVE_MINIMUM_DECREASED #/exclusiveMinimum", 1},
    {"{\"$schema\": \"https://json-schema.org/draft/2020-12/schema\", \"exclusiveMaximum\": 29}",
     "{\"$schema\": \"https://json-schema.org/draft/2020-12/schema\", \"exclusiveMaximum\": 23}",
     "EXCLUSIVE_MAXIMUM_DECREASED #/exclusiveMaximum", 0},
    {"{\"$schema\": \"https://json-schema.org/draft/2020-12/schema\", \"exclusiveMinimum\": 3}",
     "{\"$schema\": \"https://json-schema.org/draft/2020-12/schema\", \"exclusiveMinimum\": 5}",
     "EXCLUSIVE_MINIMUM_INCREASED #/exclusiveMinimum", 0},
    /* draft 4: the boolean beside maximum/minimum is everit's isExclusiveMaximum() flag, which
     * NumberSchemaDiff never reads; only the numeric limits are compared */
    {"{" D4 "\"type\": \"number\", \"maximum\": 29, \"exclusiveMaximum\": true}",
     "{" D4 "\"type\": \"number\", \"maximum\": 23, \"exclusiveMaximum\": true}",
     "MAXIMUM_DECREASED #/maximum", 0},
    {"{" D4 "\"type\": \"number\", \"maximum\": 23, \"exclusiveMaximum\": true}",
     "{" D4 "\"type\": \"number\", \"maximum\": 29, \"exclusiveMaximum\": true}",
     "MAXIMUM_INCREASED #/maximum", 1},
    {"{" D4 "\"type\": \"number\", \"maximum\": 29}",
     "{" D4 "\"type\": \"number\", \"maximum\": 29, \"exclusiveMaximum\": true}", NULL, 1},
    {"{" D4 "\"type\": \"number\", \"maximum\": 29, \"exclusiveMaximum\": true}",
     "{" D4 "\"type\": \"number\", \"maximum\": 29, \"exclusiveMaximum\": false}", NULL, 1},
    {"{" D4 "\"type\": \"number\", \"minimum\": 3, \"exclusiveMinimum\": true}",
     "{" D4 "\"type\": \"number\", \"minimum\": 5, \"exclusiveMinimum\": true}",
     "MINIMUM_INCREASED #/minimum", 0},
    {"{" D4 "\"type\": \"number\", \"minimum\": 5, \"exclusiveMinimum\": true}",
     "{" D4 "\"type\": \"number\", \"minimum\": 3, \"exclusiveMinimum\": true}",
     "MINIMUM_DECREASED #/minimum", 1},
    {"{" D4 "\"type\": \"number\", \"minimum\": 3}",
     "{" D4 "\"type\": \"number\", \"minimum\": 3, \"exclusiveMinimum\": true}", NULL, 1},
    /* NumberSchemaDiff: multipleOf as BigDecimal */
    {"{\"type\": \"number\"}", "{\"type\": \"number\", \"multipleOf\": 2}", "MULTIPLE_OF_ADDED #/multipleOf",
     0},
    {"{\"type\": \"number\", \"multipleOf\": 2}", "{\"type\": \"number\"}",
     "MULTIPLE_OF_REMOVED #/multipleOf", 1},
    {"{\"type\": \"number\", \"multipleOf\": 2}", "{\"type\": \"number\", \"multipleOf\": 4}",
     "MULTIPLE_OF_EXPANDED #/multipleOf", 0},
    {"{\"type\": \"number\", \"multipleOf\": 4}", "{\"type\": \"number\", \"multipleOf\": 2}",
     "MULTIPLE_OF_REDUCED #/multipleOf", 1},
    {"{\"type\": \"number\", \"multipleOf\": 0.3}", "{\"type\": \"number\", \"multipleOf\": 0.1}",
     "MULTIPLE_OF_REDUCED #/multipleOf", 1},
    {"{\"type\": \"number\", \"multipleOf\": 3}", "{\"type\": \"number\", \"multipleOf\": 5}",
     "MULTIPLE_OF_CHANGED #/multipleOf", 0},
    {"{\"type\": \"number\", \"multipleOf\": 0.5}", "{\"type\": \"number\", \"multipleOf\": 0.50}", NULL, 1},
    /* ArraySchemaDiff: maxItems / minItems */
    {"{\"type\": \"array\"}", "{\"type\": \"array\", \"maxItems\": 4}", "MAX_ITEMS_ADDED #/maxItems", 0},
    {"{\"type\": \"array\", \"maxItems\": 4}", "{\"type\": \"array\"}", "MAX_ITEMS_REMOVED #/maxItems", 1},
    {"{\"type\": \"array\", \"maxItems\": 4}", "{\"type\": \"array\", \"maxItems\": 6}",
     "MAX_ITEMS_INCREASED #/maxItems", 1},
    {"{\"type\": \"array\", \"maxItems\": 6}", "{\"type\": \"array\", \"maxItems\": 4}",
     "MAX_ITEMS_DECREASED #/maxItems", 0},
    {"{\"type\": \"array\"}", "{\"type\": \"array\", \"minItems\": 1}", "MIN_ITEMS_ADDED #/minItems", 0},
    {"{\"type\": \"array\", \"minItems\": 1}", "{\"type\": \"array\"}", "MIN_ITEMS_REMOVED #/minItems", 1},
    {"{\"type\": \"array\", \"minItems\": 1}", "{\"type\": \"array\", \"minItems\": 2}",
     "MIN_ITEMS_INCREASED #/minItems", 0},
    {"{\"type\": \"array\", \"minItems\": 2}", "{\"type\": \"array\", \"minItems\": 1}",
     "MIN_ITEMS_DECREASED #/minItems", 1},
    /* ObjectSchemaDiff: maxProperties / minProperties */
    {"{\"type\": \"object\"}", "{\"type\": \"object\", \"maxProperties\": 4}",
     "MAX_PROPERTIES_ADDED #/maxProperties", 0},
    {"{\"type\": \"object\", \"maxProperties\": 4}", "{\"type\": \"object\"}",
     "MAX_PROPERTIES_REMOVED #/maxProperties", 1},
    {"{\"type\": \"object\", \"maxProperties\": 4}", "{\"type\": \"object\", \"maxProperties\": 6}",
     "MAX_PROPERTIES_INCREASED #/maxProperties", 1},
    {"{\"type\": \"object\", \"maxProperties\": 6}", "{\"type\": \"object\", \"maxProperties\": 4}",
     "MAX_PROPERTIES_DECREASED #/maxProperties", 0},
    {"{\"type\": \"object\"}", "{\"type\": \"object\", \"minProperties\": 1}",
     "MIN_PROPERTIES_ADDED #/minProperties", 0},
    {"{\"type\": \"object\", \"minProperties\": 1}", "{\"type\": \"object\"}",
     "MIN_PROPERTIES_REMOVED #/minProperties", 1},
    {"{\"type\": \"object\", \"minProperties\": 1}", "{\"type\": \"object\", \"minProperties\": 2}",
     "MIN_PROPERTIES_INCREASED #/minProperties", 0},
    {"{\"type\": \"object\", \"minProperties\": 2}", "{\"type\": \"object\", \"minProperties\": 1}",
     "MIN_PROPERTIES_DECREASED #/minProperties", 1},
};

static void test_diff_bounds_both_ways(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bound_cases / sizeof *bound_cases; i++) {
        const struct bound_case *c = &bound_cases[i];
        printf("case %zu: %s -> %s\n", i, c->original, c->update);
        expect_diff(c->original, c->update, JSONSCHEMA_STRICT, &c->want, c->want ? 1 : 0);
        jsonschema_t *o = parse_ok(c->original), *u = parse_ok(c->update);
        strlist_t raw = {0};
        assert_int_equal(jsonschema_backward(u, o, JSONSCHEMA_STRICT, &raw), 0);
        assert_int_equal(raw.n == 0, c->compatible);
        if (c->want) {
            jsonschema_change_t t;
            assert_int_equal(jsonschema_change_parse(c->want, &t), 0);
            assert_int_equal(jsonschema_change_compatible(t, JSONSCHEMA_STRICT), c->compatible);
            assert_int_equal(jsonschema_change_compatible(t, JSONSCHEMA_LENIENT), c->compatible);
        }
        strlist_clear(&raw);
        jsonschema_free(o);
        jsonschema_free(u);
    }
}

static void test_backward_messages_and_engine(void **state)
{
    (void)state;
    const char *v1 = "{\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"string\"}}}";
    const char *v2 =
        "{\"type\": \"object\", \"properties\": {\"a\": {\"type\": \"string\", \"maxLength\": 3}}}";
    char *error = NULL;
    schema_t *old = schema_parse(SCHEMA_JSON, v1, strlen(v1), NULL, 0, SCHEMA_PARSE_NEW, &error);
    schema_t *cand = schema_parse(SCHEMA_JSON, v2, strlen(v2), NULL, 0, SCHEMA_PARSE_NEW, &error);
    assert_non_null(old);
    assert_non_null(cand);
    assert_non_null(schema_engine(SCHEMA_JSON));
    strlist_t raw = {0};
    assert_int_equal(schema_backward(cand, old, &raw), 0);
    assert_int_equal(raw.n, 1);
    assert_string_equal(raw.items[0],
                        "{errorType:\"MAX_LENGTH_ADDED\", description:\"The keyword at path "
                        "'#/properties/a/maxLength' in the %s schema is not present in the %s schema'}");
    strlist_clear(&raw);
    assert_int_equal(schema_backward(old, cand, &raw), 0);
    assert_int_equal(raw.n, 0);
    compat_previous_t history[] = {{old, 1}};
    strlist_t messages = {0};
    assert_int_equal(compat_check(COMPAT_BACKWARD, cand, history, 1, 0, &messages), 0);
    assert_true(messages.n >= 3);
    assert_non_null(strstr(messages.items[0], "in the new schema is not present in the old schema"));
    strlist_clear(&messages);
    schema_free(old);
    schema_free(cand);
}

/* ---- wide objects --------------------------------------------------------------------- */

/* From JSONSCHEMA_INDEX_MIN (16) names on, an object's keys, a node's
 * properties and its required names are found through a map instead of a
 * scan; what is found must not change: a duplicate key keeps its first place
 * and its last value, a name required twice is required once, and every
 * name is matched across the threshold (p0 before it, p19 after it). */
static void test_wide_objects_match_names_across_the_index(void **state)
{
    (void)state;
    char in[2048], want[2048];
    size_t n = (size_t)sprintf(in, "{"), w = (size_t)sprintf(want, "{");
    for (int i = 0; i < 20; i++) {
        n += (size_t)sprintf(in + n, "\"k%d\":%d,", i, i);
        w += (size_t)sprintf(want + w, "%s\"k%d\":%d", i ? "," : "", i, i == 2 ? 99 : i == 17 ? 77 : i);
    }
    sprintf(in + n, "\"k2\":98,\"k17\":77,\"k2\":99}");
    sprintf(want + w, "}");
    expect_canonical(in, 0, want);

    for (int modern = 0; modern < 2; modern++) {
        char orig[4096], upd[4096];
        const char *draft = modern ? "\"$schema\":\"https://json-schema.org/draft/2020-12/schema\"," : "";
        n = (size_t)sprintf(orig, "{%s\"type\":\"object\",\"properties\":{", draft);
        w = (size_t)sprintf(upd, "{%s\"type\":\"object\",\"properties\":{", draft);
        for (int i = 0; i < 20; i++)
            n += (size_t)sprintf(orig + n, "%s\"p%d\":{\"type\":\"string\"}", i ? "," : "", i);
        for (int i = 1; i <= 20; i++) /* p0 removed, p19 retyped, p20 added */
            w += (size_t)sprintf(upd + w, "%s\"p%d\":{\"type\":\"%s\"}", i > 1 ? "," : "", i,
                                 i == 19 ? "integer" : "string");
        n += (size_t)sprintf(orig + n, "},\"required\":[");
        w += (size_t)sprintf(upd + w, "},\"required\":[");
        for (int i = 0; i < 18; i++) /* p5 no longer required, p19 now (listed twice) */
            n += (size_t)sprintf(orig + n, "%s\"p%d\"", i ? "," : "", i);
        for (int i = 0; i < 18; i++)
            if (i != 5)
                w += (size_t)sprintf(upd + w, "%s\"p%d\"", i ? "," : "", i);
        sprintf(orig + n, "]}");
        sprintf(upd + w, ",\"p19\",\"p19\"]}");
        const char *want_diff[] = {
            "REQUIRED_ATTRIBUTE_REMOVED #/required/p5",
            "REQUIRED_ATTRIBUTE_ADDED #/required/p19",
            "TYPE_CHANGED #/properties/p19",
            "PROPERTY_REMOVED_FROM_OPEN_CONTENT_MODEL #/properties/p0",
            "OPTIONAL_PROPERTY_ADDED_TO_OPEN_CONTENT_MODEL #/properties/p20",
        };
        printf("%s\n", modern ? "2020-12" : "draft 7");
        expect_diff(orig, upd, JSONSCHEMA_STRICT, want_diff, 5);
    }
}

/* One object of n integer properties titled "v<version>"; malloc'd. */
static char *wide_object(int n, int version)
{
    char *text = malloc((size_t)n * 32 + 64);
    assert_non_null(text);
    size_t len = (size_t)sprintf(text, "{\"type\":\"object\",\"title\":\"v%d\",\"properties\":{", version);
    for (int i = 0; i < n; i++)
        len += (size_t)sprintf(text + len, "%s\"f%d\":{\"type\":\"integer\"}", i ? "," : "", i);
    sprintf(text + len, "}}");
    return text;
}

/* 40,000 properties against the same under a new title (bench/bench.py's
 * case, four times as wide) are FULL compatible. How fast is the benchmark's
 * to say (docs/performance.md, "Compatibility at the extremes"): this test
 * only keeps the name maps of wide objects honest at a size where a scan would
 * take tens of seconds. */
static void test_wide_object_check(void **state)
{
    (void)state;
    char *v1 = wide_object(40000, 1), *v2 = wide_object(40000, 2);
    char *error = NULL;
    schema_t *old = schema_parse(SCHEMA_JSON, v1, strlen(v1), NULL, 0, 0, &error);
    assert_non_null(old);
    schema_t *cand = schema_parse(SCHEMA_JSON, v2, strlen(v2), NULL, 0, 0, &error);
    assert_non_null(cand);
    compat_previous_t history[] = {{old, 1}};
    strlist_t messages = {0};
    assert_int_equal(compat_check(COMPAT_FULL, cand, history, 1, 0, &messages), 1);
    assert_int_equal(messages.n, 0);
    schema_free(cand);
    schema_free(old);
    free(v1);
    free(v2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loader_errors_name_the_keyword),
        cmocka_unit_test(test_drafts_are_selected_by_dollar_schema),
        cmocka_unit_test(test_boolean_documents),
        cmocka_unit_test(test_local_refs_resolve),
        cmocka_unit_test(test_id_relative_refs),
        cmocka_unit_test(test_unresolved_and_remote_refs_are_errors),
        cmocka_unit_test(test_references_resolve_to_given_texts),
        cmocka_unit_test(test_canonical_text),
        cmocka_unit_test(test_hostile_documents_fail_cleanly),
        cmocka_unit_test(test_diff_content_models),
        cmocka_unit_test(test_diff_policy_changes_branch_choice),
        cmocka_unit_test(test_diff_recursive_change_is_found),
        cmocka_unit_test(test_wide_one_of_pairs_equal_branches),
        cmocka_unit_test(test_wide_one_of_with_one_changed_branch),
        cmocka_unit_test(test_diff_recursive_combined_compares_every_pair),
        cmocka_unit_test(test_diff_bounds_both_ways),
        cmocka_unit_test(test_backward_messages_and_engine),
        cmocka_unit_test(test_wide_objects_match_names_across_the_index),
        cmocka_unit_test(test_wide_object_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
