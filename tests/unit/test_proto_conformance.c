/*
 * The Protobuf conformance vectors (../shared/conformance/protobuf, every .json):
 * every case is parsed, diffed original -> update, and its change list
 * compared as a multiset (or, for `changes_include`, as a containment) and
 * its compatible flag checked. Skips visibly when the directory is absent.
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
#include "compat/protobuf/protobuf.h"

#define PROTO_DIR SR_CONFORMANCE_DIR "/protobuf"

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* A schema value is inline text or a path under protobuf/; a dependency
 * without text is a path too, or (descriptor.proto) a built-in. */
static char *load_proto(const char *value)
{
    if (!ends_with(value, ".proto"))
        return strdup(value);
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", PROTO_DIR, value);
    char *text = test_read_file(path, NULL);
    if (!text && proto_builtin_text(value))
        text = strdup(proto_builtin_text(value));
    return text;
}

typedef struct side {
    char *text;
    schema_ref_t *refs;
    char **ref_texts;
    size_t nrefs;
    proto_schema_t *schema;
    char *error;
} side_t;

static void side_free(side_t *s)
{
    proto_schema_free(s->schema);
    free(s->text);
    for (size_t i = 0; i < s->nrefs; i++)
        free(s->ref_texts[i]);
    free(s->ref_texts);
    free(s->refs);
    free(s->error);
}

static const char *dependency_text(json_t *deps, const char *name, char **owned)
{
    size_t i;
    json_t *d;
    json_array_foreach(deps, i, d)
    {
        if (strcmp(json_string_value(json_object_get(d, "name")), name) != 0)
            continue;
        json_t *text = json_object_get(d, "dependency");
        *owned = text ? strdup(json_string_value(text)) : load_proto(name);
        return *owned;
    }
    *owned = load_proto(name);
    return *owned;
}

static int side_load(side_t *s, json_t *c, const char *which)
{
    char key[64];
    snprintf(key, sizeof key, "%s_schema", which);
    s->text = load_proto(json_string_value(json_object_get(c, key)));
    snprintf(key, sizeof key, "%s_references", which);
    json_t *refs = json_object_get(c, key);
    snprintf(key, sizeof key, "%s_dependencies", which);
    json_t *deps = json_object_get(c, key);
    s->nrefs = refs ? json_array_size(refs) : 0;
    s->refs = calloc(s->nrefs + 1, sizeof *s->refs);
    s->ref_texts = calloc(s->nrefs + 1, sizeof *s->ref_texts);
    for (size_t i = 0; i < s->nrefs; i++) {
        json_t *r = json_array_get(refs, i);
        s->refs[i].name = json_string_value(json_object_get(r, "name"));
        s->refs[i].subject = json_string_value(json_object_get(r, "subject"));
        s->refs[i].version = (int)json_integer_value(json_object_get(r, "version"));
        s->refs[i].text = dependency_text(deps, s->refs[i].name, &s->ref_texts[i]);
    }
    if (!s->text)
        return -1;
    s->schema = proto_schema_new(s->text, strlen(s->text), s->refs, s->nrefs, 0, NULL, &s->error);
    return s->schema ? 0 : -1;
}

/* Multiset equality of two string lists; contains-only when subset. */
static int lists_match(json_t *expected, const strlist_t *actual, int subset)
{
    size_t n = json_array_size(expected);
    if (!subset && n != actual->n)
        return 0;
    char *used = calloc(actual->n + 1, 1);
    int ok = 1;
    for (size_t i = 0; i < n && ok; i++) {
        const char *want = json_string_value(json_array_get(expected, i));
        int found = 0;
        for (size_t j = 0; j < actual->n && !found; j++)
            if (!used[j] && strcmp(actual->items[j], want) == 0)
                used[j] = found = 1;
        ok = found;
    }
    free(used);
    return ok;
}

static void print_list(const char *label, const strlist_t *l)
{
    fprintf(stderr, "    %s:", label);
    for (size_t i = 0; i < l->n; i++)
        fprintf(stderr, " [%s]", l->items[i]);
    fprintf(stderr, "\n");
}

/* Returns 1 when the case passes. */
static int run_case(json_t *c)
{
    const char *desc = json_string_value(json_object_get(c, "description"));
    side_t orig = {0}, upd = {0};
    int ok = 0;
    strlist_t changes = {0}, messages = {0};
    if (side_load(&orig, c, "original") != 0 || side_load(&upd, c, "update") != 0) {
        fprintf(stderr, "FAIL %s: parse: %s\n", desc,
                orig.error  ? orig.error
                : upd.error ? upd.error
                            : "cannot read schema");
        goto done;
    }
    if (proto_diff(orig.schema, upd.schema, &changes) != 0 ||
        proto_backward(upd.schema, orig.schema, &messages) != 0) {
        fprintf(stderr, "FAIL %s: out of memory\n", desc);
        goto done;
    }
    json_t *include = json_object_get(c, "changes_include");
    json_t *expected = include ? include : json_object_get(c, "changes");
    int compatible = json_is_true(json_object_get(c, "compatible"));
    int changes_ok = lists_match(expected, &changes, include != NULL);
    int compat_ok = compatible == (messages.n == 0);
    ok = changes_ok && compat_ok;
    if (!ok) {
        fprintf(stderr, "FAIL %s\n", desc);
        strlist_t want = {0};
        size_t i;
        json_t *e;
        json_array_foreach(expected, i, e) strlist_push(&want, json_string_value(e));
        print_list(include ? "expected to include" : "expected", &want);
        print_list("actual", &changes);
        if (!compat_ok)
            fprintf(stderr, "    compatible: expected %d\n", compatible);
        strlist_clear(&want);
    }
done:
    strlist_clear(&changes);
    strlist_clear(&messages);
    side_free(&orig);
    side_free(&upd);
    return ok;
}

static void run_file(const char *name)
{
    if (!test_dir_exists(PROTO_DIR)) {
        printf("SKIP: conformance dir absent (%s)\n", PROTO_DIR);
        skip();
    }
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", PROTO_DIR, name);
    json_error_t je;
    json_t *cases = json_load_file(path, 0, &je);
    assert_non_null(cases);
    size_t passed = 0, failed = 0, i;
    json_t *c;
    json_array_foreach(cases, i, c)
    {
        if (run_case(c))
            passed++;
        else
            failed++;
    }
    printf("%s: %zu passed, %zu failed\n", name, passed, failed);
    json_decref(cases);
    assert_int_equal(failed, 0);
}

static void test_diff_schema_examples(void **state)
{
    run_file("diff-schema-examples.json");
}

static void test_diff_schema_examples_with_meta(void **state)
{
    run_file("diff-schema-examples-with-meta.json");
}

static void test_proto_file_cases(void **state)
{
    run_file("proto-file-cases.json");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_diff_schema_examples),
        cmocka_unit_test(test_diff_schema_examples_with_meta),
        cmocka_unit_test(test_proto_file_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
