/*
 * Unit tests of the registry pieces that need no database (the hash map is
 * tests/unit/test_base.c): version parsing (42202 rules), subject-name validation (42208),
 * qualified names (registry/context.h, after Confluent's QualifiedSubject and QualifiedSubjectTest),
 * schema metadata in canonical form and its merge (registry/metadata.c), the
 * index's publishing of a node's own append (index_publish_append), and the
 * counts it keeps for GET /metrics (index_stats against index_stats_walk).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "base/alloc.h"
#include "registry/context.h"
#include "registry/index.h"
#include "registry/internal.h"
#include "registry/registry.h"

static void test_version_parse(void **state)
{
    int v = 0;
    assert_int_equal(registry_version_parse("latest", &v), 0);
    assert_int_equal(v, -1);
    assert_int_equal(registry_version_parse("LaTeSt", &v), 0);
    assert_int_equal(v, -1);
    assert_int_equal(registry_version_parse("-1", &v), 0);
    assert_int_equal(v, -1);
    assert_int_equal(registry_version_parse("7", &v), 0);
    assert_int_equal(v, 7);
    assert_int_equal(registry_version_parse(" 007 ", &v), 0);
    assert_int_equal(v, 7);
    assert_int_equal(registry_version_parse("2147483647", &v), 0);
    assert_int_equal(v, 2147483647);
    const char *bad[] = {"0",  "-2",  "2147483648", "99999999999999999999", "abc", "", "1.5",
                         "+1", "1 2", NULL};
    for (int i = 0; bad[i]; i++)
        assert_int_equal(registry_version_parse(bad[i], &v), -1);
    assert_int_equal(registry_version_parse(NULL, &v), -1);
}

static void test_subject_names(void **state)
{
    reg_error_t err;
    assert_int_equal(registry_check_subject_name("orders-value", 2048, &err), REG_OK);
    assert_int_equal(registry_check_subject_name("com/acme/common.proto", 2048, &err), REG_OK);
    assert_int_equal(registry_check_subject_name("*", 2048, &err), REG_OK);
    assert_int_equal(registry_check_subject_name("caf\xc3\xa9", 2048, &err), REG_OK);
    assert_int_equal(registry_check_subject_name("bad\x01name", 2048, &err), REG_INVALID_SUBJECT);
    assert_int_equal(registry_check_subject_name("tab\tname", 2048, &err), REG_INVALID_SUBJECT);
    assert_int_equal(registry_check_subject_name("del\x7f", 2048, &err), REG_INVALID_SUBJECT);
    assert_int_equal(registry_check_subject_name("c1\xc2\x85", 2048, &err), REG_INVALID_SUBJECT);
    assert_int_equal(registry_check_subject_name("__GLOBAL", 2048, &err), REG_INVALID_SUBJECT);
    assert_int_equal(registry_check_subject_name("__EMPTY", 2048, &err), REG_INVALID_SUBJECT);
    /* A byte limit: a subject is a btree key, and PostgreSQL refuses long index rows. */
    assert_int_equal(registry_check_subject_name("abcd", 4, &err), REG_OK);
    assert_int_equal(registry_check_subject_name("abcde", 4, &err), REG_INVALID_SUBJECT);
    assert_int_equal(registry_check_subject_name("caf\xc3\xa9", 4, &err), REG_INVALID_SUBJECT);
    assert_int_equal(err.code, REG_INVALID_SUBJECT);
}

/* The canonical text of a metadata read from JSON text (malloc'd), or NULL when refused. */
static char *canonical(const char *text)
{
    json_t *in = json_loads(text, JSON_DECODE_ANY, NULL), *out = NULL;
    reg_error_t err;
    reg_code_t rc = registry_metadata_read(in, &out, &err);
    json_decref(in);
    if (rc != REG_OK) {
        assert_int_equal(rc, REG_BAD_REQUEST);
        return NULL;
    }
    char *dump = json_dumps(out, JSON_COMPACT | JSON_ENCODE_ANY);
    json_decref(out);
    return dump;
}

static void assert_canonical(const char *in, const char *want)
{
    char *got = canonical(in);
    if (!want) {
        assert_null(got);
        return;
    }
    assert_non_null(got);
    assert_string_equal(got, want);
    free(got);
}

/* Metadata's sorted maps and sets (Java's String order), empty parts left out (NON_EMPTY). */
static void test_metadata_canonical(void **state)
{
    assert_canonical("{\"sensitive\":[\"b\",\"a\",\"b\"],\"properties\":{\"z\":\"1\",\"a\":\"2\"},"
                     "\"tags\":{\"t\":[\"y\",\"x\"]},\"other\":1}",
                     "{\"tags\":{\"t\":[\"x\",\"y\"]},\"properties\":{\"a\":\"2\",\"z\":\"1\"},"
                     "\"sensitive\":[\"a\",\"b\"]}");
    assert_canonical("{}", "{}");
    assert_canonical("{\"tags\":{},\"properties\":null,\"sensitive\":[]}", "{}");
    /* U+FFFD sorts after U+1F600 in UTF-16 (a surrogate pair), before it in UTF-8. */
    assert_canonical("{\"sensitive\":[\"\\ufffd\",\"\\ud83d\\ude00\"]}",
                     "{\"sensitive\":[\"\xf0\x9f\x98\x80\",\"\xef\xbf\xbd\"]}");
    const char *bad[] = {"\"x\"",
                         "[]",
                         "{\"properties\":{\"a\":1}}",
                         "{\"tags\":{\"t\":\"x\"}}",
                         "{\"sensitive\":[null]}",
                         "{\"tags\":[]}",
                         NULL};
    for (int i = 0; bad[i]; i++)
        assert_canonical(bad[i], NULL);
    json_t *none = NULL;
    reg_error_t err;
    assert_int_equal(registry_metadata_read(json_null(), &none, &err), REG_OK);
    assert_null(none);
}

static json_t *md(const char *text)
{
    json_t *in = json_loads(text, 0, NULL), *out = NULL;
    reg_error_t err;
    assert_int_equal(registry_metadata_read(in, &out, &err), REG_OK);
    json_decref(in);
    return out;
}

/* Metadata.mergeMetadata: the newer's map entries win whole, sensitive is a union. */
static void test_metadata_merge(void **state)
{
    json_t *old = md("{\"tags\":{\"a\":[\"1\"],\"b\":[\"2\"]},\"properties\":{\"k\":\"old\"},"
                     "\"sensitive\":[\"s\"]}");
    json_t *new = md("{\"tags\":{\"a\":[\"3\"]},\"properties\":{\"n\":\"new\"},\"sensitive\":[\"r\"]}");
    json_t *m = md_merge(old, new);
    char *text = json_dumps(m, JSON_COMPACT);
    assert_string_equal(text, "{\"tags\":{\"a\":[\"3\"],\"b\":[\"2\"]},\"properties\":{\"k\":\"old\","
                              "\"n\":\"new\"},\"sensitive\":[\"r\",\"s\"]}");
    free(text);
    json_t *same = md_merge(NULL, new); /* a copy, never new itself (no json_t crosses threads) */
    assert_true(same != new);
    assert_true(json_equal(same, new));
    json_decref(same);
    json_decref(new);
    assert_null(md_merge(NULL, NULL));
    json_t *v = md_with_version(m, 7);
    int n = 0;
    assert_true(md_version_number(v, &n));
    assert_int_equal(n, 7);
    json_t *w = md_without_version(v);
    assert_true(md_equal(w, m));
    assert_false(md_equal(v, m));
    assert_false(md_equal(NULL, m));
    json_t *bad = md("{\"properties\":{\"confluent:version\":\"x1\"}}");
    assert_false(md_version_number(bad, &n));
    json_decref(bad);
    json_decref(old);
    json_decref(m);
    json_decref(v);
    json_decref(w);
}

/* QualifiedSubject.normalize (default tenant), in place with one spare byte. */
static void check_normalize(const char *in, const char *want)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%s", in);
    size_t n = registry_subject_normalize(buf);
    assert_string_equal(buf, want);
    assert_int_equal(n, strlen(want));
}

static void test_qualified_names(void **state)
{
    check_normalize("foo", "foo");
    check_normalize(":.:foo", "foo");
    check_normalize(":.:", "");
    check_normalize(":.", "");
    check_normalize(":.ctx:foo", ":.ctx:foo");
    check_normalize(":.ctx:", ":.ctx:");
    check_normalize(":.ctx", ":.ctx:");
    check_normalize(":*:foo", ":*:foo");
    check_normalize(".ctx:foo", ".ctx:foo"); /* no leading ':' : a plain name */

    reg_ctx_t c = reg_context_of(":.ctx:a:b");
    assert_int_equal(c.len, 4);
    assert_memory_equal(c.base, ".ctx", 4);
    assert_true(reg_context_is("plain", "."));
    assert_true(reg_context_is(":.ctx:s", ".ctx"));
    assert_false(reg_context_is(":.ctx:s", ".ct"));

    /* normalizeContext */
    const char *ctx_cases[][2] = {{".ctx", ":.ctx:"}, {"ctx", ":.ctx:"}, {":.ctx:", ":.ctx:"},
                                  {".", ""},          {"", ""},          {":.:", ""}};
    for (size_t i = 0; i < sizeof ctx_cases / sizeof *ctx_cases; i++) {
        char *got = registry_context_normalize(ctx_cases[i][0]);
        assert_string_equal(got, ctx_cases[i][1]);
        free(got);
    }
    assert_null(registry_context_normalize("a:b"));

    /* qualifySubjectWithParent, then toQualifiedSubject */
    const char *ref_cases[][3] = {
        {".", "r", "r"},          {".", ":.:r", "r"},         {".", ":.x:r", ":.x:r"},
        {".ctx", "r", ":.ctx:r"}, {".ctx", ":.x:r", ":.x:r"}, {".ctx", ":.:r", ":.ctx::.:r"},
    };
    for (size_t i = 0; i < sizeof ref_cases / sizeof *ref_cases; i++) {
        char *got = reg_ref_qualify(ref_cases[i][0], ref_cases[i][1]);
        assert_string_equal(got, ref_cases[i][2]);
        free(got);
    }

    /* subjectPrefix as AbstractSchemaRegistry.allVersions ranges keys */
    assert_true(reg_prefix_match(":*:", ":.ctx:a"));
    assert_true(reg_prefix_match(":*:", "a"));
    assert_true(reg_prefix_match(":*:a", ":.ctx:ab"));
    assert_false(reg_prefix_match(":*:b", ":.ctx:ab"));
    assert_true(reg_prefix_match("", "a"));
    assert_false(reg_prefix_match("", ":.ctx:a"));
    assert_true(reg_prefix_match(":.ctx:", ":.ctx:a"));
    assert_false(reg_prefix_match(":.ctx:", ":.ctx2:a"));
    assert_true(reg_prefix_match(":.ct", ":.ctx2:a"));
    assert_true(reg_prefix_match(":.:a", "ab"));
    assert_false(reg_prefix_match("a", ":.ctx:a"));
}

static reg_schema_t *unit_schema(int id)
{
    unsigned char key[REG_KEY_LEN] = {(unsigned char)id};
    char text[32];
    snprintf(text, sizeof text, "\"s%d\"", id);
    reg_schema_t *s = reg_schema_new(id, SCHEMA_AVRO, text, key, 0);
    reg_schema_set_context(s, ".");
    return s;
}

/* The latest live version's (version, id) in the index, or (0, 0). */
static void unit_latest(reg_index_t *idx, const char *subject, int *version, int *id)
{
    reg_view_t view = {0};
    *version = *id = 0;
    if (index_view(idx, subject, -1, 0, &view) == INDEX_FOUND) {
        *version = view.version;
        *id = view.id;
    }
    reg_view_clear(&view);
}

/* An append is published only onto the versions it was checked against, and
 * only when its schema is known; otherwise nothing changes and the caller
 * reloads from the database. */
static void test_index_publish_append(void **state)
{
    (void)state;
    reg_index_t *idx = index_new();
    reg_subject_t *none = reg_subject_new("s");
    reg_version_t v1 = {1, 1, 0, 10};
    int version, id;

    /* A new subject, its row created by the write: published. */
    assert_int_equal(index_publish_append(idx, none, unit_schema(1), &v1), 1);
    unit_latest(idx, "s", &version, &id);
    assert_int_equal(version, 1);
    assert_int_equal(id, 1);

    /* Checked against no versions, but the index holds v1 now: stale, nothing published. */
    reg_version_t v2 = {2, 2, 0, 20};
    assert_int_equal(index_publish_append(idx, none, unit_schema(2), &v2), 0);
    unit_latest(idx, "s", &version, &id);
    assert_int_equal(version, 1);
    reg_schema_t *two = index_schema(idx, ".", 2, 0);
    assert_null(two);

    /* Against v1, with a schema id the index does not hold and no row: not published. */
    reg_subject_t *seen = index_subject_copy(idx, "s");
    reg_version_t v2_unknown = {2, 7, 0, 20};
    assert_int_equal(index_publish_append(idx, seen, NULL, &v2_unknown), 0);
    unit_latest(idx, "s", &version, &id);
    assert_int_equal(version, 1);

    /* Against v1, reusing a schema the index holds: published without a row. */
    reg_version_t v2_known = {2, 1, 0, 20};
    assert_int_equal(index_publish_append(idx, seen, NULL, &v2_known), 1);
    unit_latest(idx, "s", &version, &id);
    assert_int_equal(version, 2);
    assert_int_equal(id, 1);

    reg_subject_free(seen);
    reg_subject_free(none);
    index_free(idx);
}

/* A schema of the given type (the key from id, so rows never share one). */
static reg_schema_t *unit_typed_schema(int id, schema_type_t type)
{
    reg_schema_t *s = unit_schema(id);
    s->type = type;
    return s;
}

/* The kept counts equal the walk's, field by field; returns the kept ones. */
static index_stats_t unit_counts_agree(reg_index_t *idx)
{
    index_stats_t kept, walked;
    index_stats(idx, &kept);
    index_stats_walk(idx, &walked);
    for (int t = 0; t < SCHEMA_TYPE_COUNT; t++) {
        assert_int_equal(kept.schemas[t], walked.schemas[t]);
        assert_int_equal(kept.subjects[t], walked.subjects[t]);
    }
    assert_int_equal(kept.versions_live, walked.versions_live);
    assert_int_equal(kept.versions_deleted, walked.versions_deleted);
    assert_int_equal(kept.bytes, walked.bytes);
    return kept;
}

/* c's rows and subjects per type (Avro, Protobuf, JSON Schema) and its versions. */
static void unit_counts_are(const index_stats_t *c, const int schemas[3], const int subjects[3], int live,
                            int deleted)
{
    const schema_type_t types[3] = {SCHEMA_AVRO, SCHEMA_PROTOBUF, SCHEMA_JSON};
    for (int i = 0; i < 3; i++) {
        assert_int_equal(c->schemas[types[i]], schemas[i]);
        assert_int_equal(c->subjects[types[i]], subjects[i]);
    }
    assert_int_equal(c->versions_live, live);
    assert_int_equal(c->versions_deleted, deleted);
}

static reg_subject_t *unit_subject(const char *name, const int *ids, const int *deleted, size_t n)
{
    reg_subject_t *s = reg_subject_new(name);
    for (size_t i = 0; i < n; i++)
        reg_subject_add_version(s, (int)i + 1, ids[i], deleted ? deleted[i] : 0, 10 * (int64_t)(i + 1));
    return s;
}

static void test_index_counts(void **state)
{
    (void)state;
    reg_index_t *idx = index_new();
    index_stats_t c = unit_counts_agree(idx);
    unit_counts_are(&c, (int[]){0, 0, 0}, (int[]){0, 0, 0}, 0, 0);

    /* A snapshot: three rows, two subjects (one Avro, one Protobuf), a row nobody carries. */
    store_snapshot_t snap = {.nschemas = 3, .nsubjects = 2};
    snap.schemas = xcalloc(3, sizeof *snap.schemas);
    snap.schemas[0] = unit_typed_schema(1, SCHEMA_AVRO);
    snap.schemas[1] = unit_typed_schema(2, SCHEMA_PROTOBUF);
    snap.schemas[2] = unit_typed_schema(3, SCHEMA_JSON);
    snap.subjects = xcalloc(2, sizeof *snap.subjects);
    snap.subjects[0] = unit_subject("a", (int[]){1, 1}, NULL, 2);
    snap.subjects[1] = unit_subject("p", (int[]){2}, NULL, 1);
    index_publish_snapshot(idx, &snap);
    c = unit_counts_agree(idx);
    unit_counts_are(&c, (int[]){1, 1, 0}, (int[]){1, 1, 0}, 3, 0);
    uint64_t before = c.bytes;

    /* An append carrying the JSON row: a third subject. */
    reg_subject_t *none = reg_subject_new("j");
    reg_version_t v1 = {1, 3, 0, 10};
    assert_int_equal(index_publish_append(idx, none, NULL, &v1), 1);
    reg_subject_free(none);
    c = unit_counts_agree(idx);
    unit_counts_are(&c, (int[]){1, 1, 1}, (int[]){1, 1, 1}, 4, 0);
    assert_true(c.bytes > before);

    /* "a" republished with its latest soft-deleted, then as JSON: its type follows its latest live one. */
    index_publish_subject(idx, unit_subject("a", (int[]){1, 1}, (int[]){0, 1}, 2));
    c = unit_counts_agree(idx);
    unit_counts_are(&c, (int[]){1, 1, 1}, (int[]){1, 1, 1}, 3, 1);
    index_publish_subject(idx, unit_subject("a", (int[]){1, 3}, (int[]){1, 0}, 2));
    c = unit_counts_agree(idx);
    /* v1, soft-deleted, still carries row 1 */
    unit_counts_are(&c, (int[]){1, 1, 1}, (int[]){0, 1, 2}, 3, 1);

    /* Prepared bodies count while their shelves hold them. */
    before = c.bytes;
    int known, deleted;
    reg_body_t *b = index_schema_body(idx, ".", 2, 0, &known, &deleted);
    assert_null(b);
    assert_int_equal(known, 1);
    reg_body_release(index_schema_body_put(idx, ".", 2, 0, 0, reg_body_new("{\"schema\":\"x\"}", 14)));
    reg_view_t view;
    assert_int_equal(index_version_body(idx, "p", 1, 0, 0, &b, &view), INDEX_FOUND);
    assert_null(b);
    reg_body_release(index_version_body_put(idx, &view, 0, reg_body_new("{\"version\":1}", 13)));
    reg_view_clear(&view);
    c = unit_counts_agree(idx);
    assert_true(c.bytes > before);

    /* "p" goes (no versions left): its row is no longer carried, its shelf and its body go. */
    index_publish_subject(idx, reg_subject_new("p"));
    c = unit_counts_agree(idx);
    unit_counts_are(&c, (int[]){1, 0, 1}, (int[]){0, 0, 2}, 2, 1); /* a's v2 and j's v1 live */

    /* A snapshot replacing everything: the counts are the new state's alone. */
    snap = (store_snapshot_t){.nschemas = 1, .nsubjects = 1};
    snap.schemas = xcalloc(1, sizeof *snap.schemas);
    snap.schemas[0] = unit_typed_schema(9, SCHEMA_AVRO);
    snap.subjects = xcalloc(1, sizeof *snap.subjects);
    snap.subjects[0] = unit_subject("z", (int[]){9}, NULL, 1);
    index_replace_snapshot(idx, &snap);
    c = unit_counts_agree(idx);
    unit_counts_are(&c, (int[]){1, 0, 0}, (int[]){1, 0, 0}, 1, 0);
    index_free(idx);
}

/* A version published before the row it names (a load that read the rows
 * before a registration committed and the versions after it, or a row gone
 * between the two reads): once the row comes and the subject is published
 * again, the row is carried, counted once, and the counts hold when it goes. */
static void test_index_row_after_its_version(void **state)
{
    (void)state;
    reg_index_t *idx = index_new();
    store_snapshot_t snap = {.nschemas = 0, .nsubjects = 1};
    snap.schemas = xcalloc(1, sizeof *snap.schemas);
    snap.subjects = xcalloc(1, sizeof *snap.subjects);
    snap.subjects[0] = unit_subject("s", (int[]){5}, NULL, 1);
    index_publish_snapshot(idx, &snap);
    assert_null(index_schema(idx, ".", 5, 0));
    index_stats_t c = unit_counts_agree(idx);
    unit_counts_are(&c, (int[]){0, 0, 0}, (int[]){0, 0, 0}, 1, 0);

    /* The row arrives, then the subject again (registry/reload.c does both in this order). */
    index_publish_schema(idx, unit_schema(5));
    index_publish_subject(idx, unit_subject("s", (int[]){5}, NULL, 1));
    reg_schema_t *carried = index_schema(idx, ".", 5, 1);
    assert_non_null(carried);
    reg_schema_release(carried);
    c = unit_counts_agree(idx);
    unit_counts_are(&c, (int[]){1, 0, 0}, (int[]){1, 0, 0}, 1, 0);

    /* A second subject carrying it, then the first one gone: still carried, once. */
    index_publish_subject(idx, unit_subject("t", (int[]){5}, NULL, 1));
    index_publish_subject(idx, reg_subject_new("s"));
    carried = index_schema(idx, ".", 5, 1);
    assert_non_null(carried);
    reg_schema_release(carried);
    c = unit_counts_agree(idx);
    unit_counts_are(&c, (int[]){1, 0, 0}, (int[]){1, 0, 0}, 1, 0);
    index_publish_subject(idx, reg_subject_new("t"));
    assert_null(index_schema(idx, ".", 5, 1));
    c = unit_counts_agree(idx);
    unit_counts_are(&c, (int[]){0, 0, 0}, (int[]){0, 0, 0}, 0, 0);
    index_free(idx);
}

static void test_subject_find(void **state)
{
    (void)state;
    reg_subject_t *s = reg_subject_new("s");
    assert_null(reg_subject_find(s, 1));
    assert_null(reg_subject_latest(s));
    const int versions[] = {1, 2, 5, 9, 12}, deleted[] = {0, 1, 0, 0, 1};
    for (int i = 0; i < 5; i++)
        reg_subject_add_version(s, versions[i], 100 + i, deleted[i], 0);
    for (int i = 0; i < 5; i++) {
        const reg_version_t *v = reg_subject_find(s, versions[i]);
        assert_non_null(v);
        assert_int_equal(v->schema_id, 100 + i);
    }
    const int absent[] = {0, 3, 4, 6, 10, 11, 13, 1000};
    for (size_t i = 0; i < sizeof absent / sizeof *absent; i++)
        assert_null(reg_subject_find(s, absent[i]));
    assert_int_equal(reg_subject_find(s, -1)->version, 9); /* 12 is soft-deleted */
    reg_subject_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version_parse),      cmocka_unit_test(test_subject_names),
        cmocka_unit_test(test_metadata_canonical), cmocka_unit_test(test_metadata_merge),
        cmocka_unit_test(test_qualified_names),    cmocka_unit_test(test_index_publish_append),
        cmocka_unit_test(test_index_counts),       cmocka_unit_test(test_index_row_after_its_version),
        cmocka_unit_test(test_subject_find),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
