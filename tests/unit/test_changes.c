/*
 * test_changes: the change model (compat/change.h) and each engine's change
 * list, with exact lists for every kind, both directions, nested paths and
 * references (docs/evolution.md).
 *
 * A change is written as one line, "KIND path old -> new [detail] fF bB",
 * F and B being 1 when old readers of new data (forward) and new readers of
 * old data (backward) survive.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "compat/change.h"
#include "compat/schema.h"
#include "base/strbuf.h"

static char *render(const change_list_t *l)
{
    strbuf_t b = {0};
    for (size_t i = 0; i < l->n; i++) {
        const change_t *c = &l->items[i];
        strbuf_printf(&b, "%s %s %s -> %s", change_kind_name(c->kind), c->path,
                      c->old_type ? c->old_type : "-", c->new_type ? c->new_type : "-");
        if (c->detail)
            strbuf_printf(&b, " [%s]", c->detail);
        strbuf_printf(&b, " f%d b%d\n", c->forward, c->backward);
    }
    char *s = strbuf_take(&b);
    return s ? s : strdup("");
}

/* The change list and summary of old -> new, each parsed as type with its own refs. */
static void expect_sides(schema_type_t type, const char *old_text, const schema_ref_t *old_refs, size_t nold,
                         const char *new_text, const schema_ref_t *new_refs, size_t nnew, const char *want,
                         const char *want_summary)
{
    char *err = NULL;
    schema_t *o = schema_parse(type, old_text, strlen(old_text), old_refs, nold, 0, &err);
    if (!o)
        fail_msg("old: %s", err);
    schema_t *n = schema_parse(type, new_text, strlen(new_text), new_refs, nnew, 0, &err);
    if (!n)
        fail_msg("new: %s", err);
    change_list_t l = {0};
    assert_int_equal(schema_changes(o, n, &l), 0);
    char *got = render(&l);
    assert_string_equal(got, want);
    if (want_summary) {
        char *s = change_summary(&l);
        assert_string_equal(s, want_summary);
        free(s);
    }
    free(got);
    change_list_clear(&l);
    schema_free(o);
    schema_free(n);
}

/* The same, both sides with refs. */
static void expect_refs(schema_type_t type, const char *old_text, const char *new_text,
                        const schema_ref_t *refs, size_t nrefs, const char *want, const char *want_summary)
{
    expect_sides(type, old_text, refs, nrefs, new_text, refs, nrefs, want, want_summary);
}

static void expect(schema_type_t type, const char *old_text, const char *new_text, const char *want,
                   const char *want_summary)
{
    expect_refs(type, old_text, new_text, NULL, 0, want, want_summary);
}

/* ---- The model ---------------------------------------------------------------------- */

static void test_summary_words(void **state)
{
    (void)state;
    change_list_t l = {0};
    char *s = change_summary(&l);
    assert_string_equal(s, "no changes; fully compatible");
    free(s);
    assert_int_equal(change_list_push(&l, CHANGE_FIELD_ADDED, "a", NULL, "int", NULL, 1, 0), 0);
    assert_int_equal(change_list_push(&l, CHANGE_FIELD_ADDED_WITH_DEFAULT, "b", NULL, "int", NULL, 1, 1), 0);
    assert_int_equal(change_list_push(&l, CHANGE_TYPE_WIDENED, "c", "int", "long", NULL, 0, 1), 0);
    assert_int_equal(change_list_push(&l, CHANGE_FIELD_RENAMED, "d", "int", "int", "e", 0, 1), 0);
    s = change_summary(&l);
    assert_string_equal(s, "2 columns added, 1 renamed, 1 widened; incompatible");
    free(s);
    l.items[0].backward = 1;
    s = change_summary(&l);
    assert_string_equal(s, "2 columns added, 1 renamed, 1 widened; backward compatible");
    free(s);
    change_list_clear(&l);
    assert_int_equal(change_list_push(&l, CHANGE_ENUM_SYMBOL_ADDED, "e", NULL, NULL, "X", 0, 1), 0);
    assert_int_equal(change_list_push(&l, CHANGE_TYPE_NARROWED, "c", "long", "int", NULL, 1, 0), 0);
    s = change_summary(&l);
    assert_string_equal(s, "1 column narrowed, 1 enum symbol added; incompatible");
    free(s);
    change_list_clear(&l);
    assert_int_equal(change_list_push(&l, CHANGE_FIELD_REMOVED, "x", "int", NULL, NULL, 1, 1), 0);
    s = change_summary(&l);
    assert_string_equal(s, "1 column dropped; fully compatible");
    free(s);
    l.items[0].backward = 0;
    s = change_summary(&l);
    assert_string_equal(s, "1 column dropped; forward compatible");
    free(s);
    change_list_clear(&l);
}

static void test_different_types(void **state)
{
    (void)state;
    char *err = NULL;
    schema_t *a = schema_parse(SCHEMA_AVRO, "\"int\"", 5, NULL, 0, 0, &err);
    schema_t *j = schema_parse(SCHEMA_JSON, "{}", 2, NULL, 0, 0, &err);
    change_list_t l = {0};
    assert_int_equal(schema_changes(a, j, &l), 0);
    char *got = render(&l);
    assert_string_equal(got, "OTHER  AVRO -> JSON [SCHEMA_TYPE_CHANGED] f0 b0\n");
    free(got);
    change_list_clear(&l);
    schema_free(a);
    schema_free(j);
}

/* ---- Avro ------------------------------------------------------------------------------- */

#define AREC(fields) "{\"type\":\"record\",\"name\":\"Customer\",\"fields\":[" fields "]}"

/* The column examples: a rename through an alias, INT -> DOUBLE
 * widened, INT -> STRING changed, nullable false -> true, a column added. */
static void test_avro_seed_cases(void **state)
{
    (void)state;
    expect(SCHEMA_AVRO,
           AREC("{\"name\":\"name\",\"type\":\"string\"},{\"name\":\"age\",\"type\":\"int\"},"
                "{\"name\":\"code\",\"type\":\"int\"},{\"name\":\"email\",\"type\":\"string\"}"),
           AREC("{\"name\":\"full_name\",\"type\":\"string\",\"aliases\":[\"name\"]},"
                "{\"name\":\"age\",\"type\":\"double\"},{\"name\":\"code\",\"type\":\"string\"},"
                "{\"name\":\"email\",\"type\":[\"null\",\"string\"],\"default\":null},"
                "{\"name\":\"city\",\"type\":\"string\",\"default\":\"\"}"),
           "FIELD_RENAMED full_name string -> string [name] f0 b1\n"
           "TYPE_WIDENED age int -> double f0 b1\n"
           "TYPE_CHANGED code int -> string f0 b0\n"
           "NULLABILITY_CHANGED email string -> union<null,string> [required -> nullable] f0 b1\n"
           "DEFAULT_CHANGED email string -> union<null,string> f1 b1\n"
           "FIELD_ADDED_WITH_DEFAULT city - -> string f1 b1\n",
           "1 column added, 1 renamed, 1 widened, 1 retyped, 1 nullability changed, 1 default changed; "
           "incompatible");
}

static void test_avro_fields(void **state)
{
    (void)state;
    /* Added without default: new readers cannot read old data; dropped
     * without default: old readers cannot read new data. */
    expect(SCHEMA_AVRO, AREC("{\"name\":\"a\",\"type\":\"int\"},{\"name\":\"gone\",\"type\":\"int\"}"),
           AREC("{\"name\":\"a\",\"type\":\"int\"},{\"name\":\"b\",\"type\":\"long\"}"),
           "FIELD_ADDED b - -> long f1 b0\n"
           "FIELD_REMOVED gone int -> - f0 b1\n",
           "1 column added, 1 dropped; incompatible");
    expect(SCHEMA_AVRO, AREC("{\"name\":\"a\",\"type\":\"int\",\"default\":1}"), AREC(""),
           "FIELD_REMOVED a int -> - f1 b1\n", "1 column dropped; fully compatible");
    expect(SCHEMA_AVRO, AREC("{\"name\":\"a\",\"type\":\"long\"}"), AREC("{\"name\":\"a\",\"type\":\"int\"}"),
           "TYPE_NARROWED a long -> int f1 b0\n", "1 column narrowed; forward compatible");
    expect(SCHEMA_AVRO, AREC("{\"name\":\"a\",\"type\":[\"null\",\"int\"],\"default\":null}"),
           AREC("{\"name\":\"a\",\"type\":\"int\"}"),
           "NULLABILITY_CHANGED a union<null,int> -> int [nullable -> required] f1 b0\n"
           "DEFAULT_CHANGED a union<null,int> -> int f1 b1\n",
           NULL);
    /* null alone, then joined to a type: the union reads more than null did. */
    expect(SCHEMA_AVRO, AREC("{\"name\":\"a\",\"type\":\"null\"}"),
           AREC("{\"name\":\"a\",\"type\":[\"null\",\"int\"]}"),
           "TYPE_WIDENED a null -> union<null,int> f0 b1\n", "1 column widened; backward compatible");
    /* Both nullable: the types joined to null are compared. */
    expect(SCHEMA_AVRO, AREC("{\"name\":\"a\",\"type\":[\"null\",\"int\"]}"),
           AREC("{\"name\":\"a\",\"type\":[\"long\",\"null\"]}"), "TYPE_WIDENED a int -> long f0 b1\n", NULL);
    expect(SCHEMA_AVRO, AREC("{\"name\":\"a\",\"type\":\"int\",\"doc\":\"x\"}"),
           AREC("{\"name\":\"a\",\"type\":\"int\",\"doc\":\"y\"}"), "DOC_CHANGED a - -> - f1 b1\n",
           "1 doc changed; fully compatible");
    expect(SCHEMA_AVRO, AREC("{\"name\":\"a\",\"type\":\"int\"}"), AREC("{\"name\":\"a\",\"type\":\"int\"}"),
           "", "no changes; fully compatible");
}

static void test_avro_nested_and_enums(void **state)
{
    (void)state;
    const char *old_text =
        AREC("{\"name\":\"customer\",\"type\":{\"type\":\"record\",\"name\":\"C\",\"fields\":["
             "{\"name\":\"address\",\"type\":{\"type\":\"record\",\"name\":\"A\",\"fields\":["
             "{\"name\":\"zip\",\"type\":\"int\"}]}}]}},"
             "{\"name\":\"tier\",\"type\":{\"type\":\"enum\",\"name\":\"Tier\",\"symbols\":[\"GOLD\","
             "\"SILVER\"]}},"
             "{\"name\":\"tags\",\"type\":{\"type\":\"array\",\"items\":\"int\"}}");
    const char *new_text =
        AREC("{\"name\":\"customer\",\"type\":{\"type\":\"record\",\"name\":\"C\",\"fields\":["
             "{\"name\":\"address\",\"type\":{\"type\":\"record\",\"name\":\"A\",\"fields\":["
             "{\"name\":\"zip\",\"type\":\"string\"}]}}]}},"
             "{\"name\":\"tier\",\"type\":{\"type\":\"enum\",\"name\":\"Tier\",\"symbols\":[\"GOLD\","
             "\"BRONZE\"]}},"
             "{\"name\":\"tags\",\"type\":{\"type\":\"array\",\"items\":\"long\"}}");
    expect(SCHEMA_AVRO, old_text, new_text,
           "TYPE_CHANGED customer.address.zip int -> string f0 b0\n"
           "ENUM_SYMBOL_ADDED tier Tier -> Tier [BRONZE] f0 b1\n"
           "ENUM_SYMBOL_REMOVED tier Tier -> Tier [SILVER] f1 b0\n"
           "TYPE_WIDENED tags.[] int -> long f0 b1\n",
           "1 column widened, 1 retyped, 1 enum symbol added, 1 enum symbol removed; incompatible");
}

static void test_avro_references(void **state)
{
    (void)state;
    schema_ref_t refs[] = {{.name = "Address",
                            .subject = "address",
                            .version = 1,
                            .text = "{\"type\":\"record\",\"name\":\"Address\",\"fields\":"
                                    "[{\"name\":\"zip\",\"type\":\"int\"}]}"}};
    expect_refs(
        SCHEMA_AVRO, AREC("{\"name\":\"home\",\"type\":\"Address\"}"),
        AREC("{\"name\":\"home\",\"type\":\"Address\"},{\"name\":\"n\",\"type\":\"int\",\"default\":0}"),
        refs, 1, "FIELD_ADDED_WITH_DEFAULT n - -> int f1 b1\n", "1 column added; fully compatible");
    /* A record renamed without an alias: no reader matches it. */
    expect(SCHEMA_AVRO, AREC(""), "{\"type\":\"record\",\"name\":\"Client\",\"fields\":[]}",
           "NAME_CHANGED  Customer -> Client f0 b0\n", "1 type renamed; incompatible");
}

/* ---- JSON Schema -------------------------------------------------------------------------- */

#define JOBJ(props)          "{\"type\":\"object\",\"properties\":{" props "}}"
#define JOBJ_REQ(props, req) "{\"type\":\"object\",\"properties\":{" props "},\"required\":[" req "]}"

static void test_json_seed_cases(void **state)
{
    (void)state;
    expect(SCHEMA_JSON,
           JOBJ_REQ("\"name\":{\"type\":\"string\"},\"age\":{\"type\":\"integer\"},"
                    "\"code\":{\"type\":\"integer\"},\"email\":{\"type\":\"string\"}",
                    "\"email\""),
           JOBJ("\"full_name\":{\"type\":\"string\"},\"age\":{\"type\":\"number\"},"
                "\"code\":{\"type\":\"string\"},\"email\":{\"type\":[\"string\",\"null\"]},"
                "\"city\":{\"type\":\"integer\",\"default\":0}"),
           "NULLABILITY_CHANGED email string -> string|null [REQUIRED_ATTRIBUTE_REMOVED, SUM_TYPE_EXTENDED] "
           "f0 b1\n"
           "TYPE_WIDENED age integer -> number f0 b1\n"
           "TYPE_CHANGED code integer -> string f0 b0\n"
           "FIELD_RENAMED full_name string -> string [name] f0 b0\n"
           "FIELD_ADDED_WITH_DEFAULT city - -> integer f1 b0\n",
           "1 column added, 1 renamed, 1 widened, 1 retyped, 1 nullability changed; incompatible");
}

/* Nested paths, enums, annotations, a closed content model, and a $ref into a reference. */
static void test_json_kinds(void **state)
{
    (void)state;
    expect(
        SCHEMA_JSON,
        JOBJ("\"customer\":{\"type\":\"object\",\"properties\":{\"address\":{\"type\":\"object\","
             "\"properties\":{\"zip\":{\"type\":\"integer\"}}}}},"
             "\"tier\":{\"enum\":[\"GOLD\",\"SILVER\"]},"
             "\"note\":{\"type\":\"string\",\"description\":\"a\",\"default\":\"x\"},"
             "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"number\"}}"),
        JOBJ("\"customer\":{\"type\":\"object\",\"properties\":{\"address\":{\"type\":\"object\","
             "\"properties\":{\"zip\":{\"type\":\"string\"}}}}},"
             "\"tier\":{\"enum\":[\"GOLD\",\"SILVER\",\"BRONZE\"]},"
             "\"note\":{\"type\":\"string\",\"description\":\"b\",\"default\":\"y\"},"
             "\"tags\":{\"type\":\"array\",\"items\":{\"type\":\"integer\"}}"),
        "TYPE_CHANGED customer.address.zip integer -> string f0 b0\n"
        "ENUM_SYMBOL_ADDED tier - -> - [\"BRONZE\"] f0 b1\n"
        "DOC_CHANGED note - -> - f1 b1\n"
        "DEFAULT_CHANGED note string -> string f1 b1\n"
        "TYPE_NARROWED tags.[] number -> integer f1 b0\n",
        "1 column narrowed, 1 retyped, 1 enum symbol added, 1 default changed, 1 doc changed; incompatible");
    expect(
        SCHEMA_JSON,
        "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"},\"b\":{\"type\":\"integer\"}},"
        "\"additionalProperties\":false}",
        "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"}},\"additionalProperties\":false}",
        "FIELD_REMOVED b integer -> - f1 b0\n", "1 column dropped; forward compatible");
    schema_ref_t refs[] = {{.name = "address.json",
                            .subject = "address",
                            .version = 1,
                            .text = "{\"type\":\"object\",\"properties\":{\"zip\":{\"type\":\"integer\"}}}"}};
    expect_refs(SCHEMA_JSON, JOBJ("\"home\":{\"$ref\":\"address.json\"}"),
                JOBJ("\"home\":{\"$ref\":\"address.json\"},\"n\":{\"type\":\"integer\"}"), refs, 1,
                "FIELD_ADDED n - -> integer f1 b0\n", "1 column added; forward compatible");
    /* A change behind a $ref is named by the column that refers to it. */
    expect(SCHEMA_JSON,
           "{\"definitions\":{\"A\":{\"type\":\"object\",\"properties\":{\"zip\":{\"type\":\"integer\"}}}},"
           "\"type\":\"object\",\"properties\":{\"home\":{\"$ref\":\"#/definitions/A\"}}}",
           "{\"definitions\":{\"A\":{\"type\":\"object\",\"properties\":{\"zip\":{\"type\":\"string\"}}}},"
           "\"type\":\"object\",\"properties\":{\"home\":{\"$ref\":\"#/definitions/A\"}}}",
           "TYPE_CHANGED home.zip integer -> string f0 b0\n", "1 column retyped; incompatible");
}

/* Values removed from an enum, a constraint (the format's own rest), and a
 * rename that is ambiguous (two new properties with the old one's schema). */
static void test_json_rest(void **state)
{
    (void)state;
    expect(SCHEMA_JSON,
           JOBJ("\"tier\":{\"enum\":[\"GOLD\",\"SILVER\",\"BRONZE\"]},\"s\":{\"type\":\"string\"}"),
           JOBJ("\"tier\":{\"enum\":[\"GOLD\"]},\"s\":{\"type\":\"string\",\"maxLength\":5}"),
           "ENUM_SYMBOL_REMOVED tier - -> - [\"SILVER\"] f1 b0\n"
           "ENUM_SYMBOL_REMOVED tier - -> - [\"BRONZE\"] f1 b0\n"
           "OTHER s string -> string [MAX_LENGTH_ADDED] f1 b0\n",
           "2 enum symbols removed, 1 other change; forward compatible");
    expect(SCHEMA_JSON, JOBJ("\"a\":{\"type\":\"string\"}"),
           JOBJ("\"b\":{\"type\":\"string\"},\"c\":{\"type\":\"string\"}"),
           "FIELD_REMOVED a string -> - f0 b1\n"
           "FIELD_ADDED b - -> string f1 b0\n"
           "FIELD_ADDED c - -> string f1 b0\n",
           "2 columns added, 1 dropped; incompatible");
}

/* ---- Protobuf ------------------------------------------------------------------------------- */

static void test_proto_seed_cases(void **state)
{
    (void)state;
    expect(
        SCHEMA_PROTOBUF,
        "syntax = \"proto3\";\nmessage Customer {\n  string name = 1;\n  int32 age = 2;\n  int32 code = 3;\n"
        "  int32 score = 4;\n  string email = 5;\n  int64 gone = 6;\n}\n",
        "syntax = \"proto3\";\nimport \"google/protobuf/wrappers.proto\";\nmessage Customer {\n"
        "  string full_name = 1;\n  double age = 2;\n  string code = 3;\n  int64 score = 4;\n"
        "  google.protobuf.StringValue email = 5;\n  string city = 7;\n}\n",
        /* int32 -> int64 is the same wire kind, no difference to Confluent's diff, but old
         * readers truncate what does not fit in 32 bits. */
        "FIELD_RENAMED Customer.full_name string -> string [name] f1 b1\n"
        "TYPE_CHANGED Customer.age int32 -> double f0 b0\n"
        "TYPE_CHANGED Customer.code int32 -> string f0 b0\n"
        "TYPE_WIDENED Customer.score int32 -> int64 f0 b1\n"
        "NULLABILITY_CHANGED Customer.email string -> google.protobuf.StringValue [FIELD_KIND_CHANGED] f0 "
        "b0\n"
        "FIELD_REMOVED Customer.gone int64 -> - f1 b1\n"
        "FIELD_ADDED Customer.city - -> string f1 b1\n",
        "1 column added, 1 renamed, 1 dropped, 1 widened, 2 retyped, 1 nullability changed; incompatible");
}

/* Nested messages, enum constants, proto2 required fields, an imported type. */
static void test_proto_kinds(void **state)
{
    (void)state;
    expect(
        SCHEMA_PROTOBUF,
        "syntax = \"proto2\";\nmessage Customer {\n  message Address {\n    optional int32 zip = 1;\n  }\n"
        "  optional Address address = 1;\n  required string id = 2;\n  enum Tier {\n    GOLD = 0;\n"
        "    SILVER = 1;\n  }\n  optional Tier tier = 3;\n}\n",
        "syntax = \"proto2\";\nmessage Customer {\n  message Address {\n    optional string zip = 1;\n  }\n"
        "  optional Address address = 1;\n  required int64 ref = 4;\n  enum Tier {\n    GOLD = 0;\n"
        "    BRONZE = 2;\n  }\n  optional Tier tier = 3 [default = GOLD];\n}\n",
        "FIELD_REMOVED Customer.id required string -> - [REQUIRED_FIELD_REMOVED] f0 b0\n"
        "DEFAULT_CHANGED Customer.tier optional Tier -> optional Tier f1 b1\n"
        "FIELD_ADDED Customer.ref - -> required int64 [REQUIRED_FIELD_ADDED] f0 b0\n"
        "TYPE_CHANGED Customer.Address.zip optional int32 -> optional string f0 b0\n"
        "ENUM_SYMBOL_REMOVED Customer.Tier - -> - [SILVER] f1 b1\n"
        "ENUM_SYMBOL_ADDED Customer.Tier - -> - [BRONZE] f1 b1\n",
        "1 column added, 1 dropped, 1 retyped, 1 enum symbol added, 1 enum symbol removed, 1 default "
        "changed; "
        "incompatible");
    /* A proto2 default, a message added (the format's own rest), a oneof member. */
    expect(
        SCHEMA_PROTOBUF, "syntax = \"proto2\";\nmessage A {\n  optional int32 x = 1;\n}\n",
        "syntax = \"proto2\";\nmessage A {\n  optional int32 x = 1;\n  optional int32 y = 2 [default = 7];\n"
        "  oneof pick {\n    string s = 3;\n  }\n}\nmessage B {\n  optional int32 z = 1;\n}\n",
        "OTHER A.pick - -> - [ONEOF_ADDED] f1 b1\n"
        "FIELD_ADDED_WITH_DEFAULT A.y - -> optional int32 f1 b1\n"
        "FIELD_ADDED A.s - -> string [ONEOF_FIELD_ADDED] f1 b1\n"
        "OTHER B - -> - [MESSAGE_ADDED] f0 b1\n",
        "2 columns added, 2 other changes; backward compatible");
    schema_ref_t refs[] = {{.name = "money.proto",
                            .subject = "money",
                            .version = 1,
                            .text = "syntax = \"proto3\";\nmessage Money {\n  int64 units = 1;\n}\n"}};
    expect_refs(SCHEMA_PROTOBUF,
                "syntax = \"proto3\";\nimport \"money.proto\";\nmessage Order {\n  Money total = 1;\n}\n",
                "syntax = \"proto3\";\nimport \"money.proto\";\nmessage Order {\n  Money total = 1;\n  Money "
                "tax = 2;\n}\n",
                refs, 1, "FIELD_ADDED Order.tax - -> Money f1 b1\n", "1 column added; fully compatible");
}

#define P3(body) "syntax = \"proto3\";\nimport \"google/protobuf/wrappers.proto\";\nmessage M {\n" body "}\n"
#define P2(body) "syntax = \"proto2\";\nmessage M {\n" body "}\n"

/* NULLABILITY_CHANGED: proto3 `optional` added and removed (scalars and
 * enums; the wire is the same, so both directions read), a scalar to and from
 * its wrapper (another wire type: neither), and the cases that are not one:
 * an `optional` scalar, already nullable, to its wrapper is a type change; a
 * message field or a proto2 field keeps its presence with `optional` or not. */
static void test_proto_nullability(void **state)
{
    (void)state;
    expect(SCHEMA_PROTOBUF,
           P3("  enum Tier {\n    GOLD = 0;\n  }\n  int32 a = 1;\n  optional string b = 2;\n  Tier c = 3;\n"
              "  optional Tier d = 4;\n  int64 e = 5;\n  google.protobuf.BoolValue f = 6;\n"
              "  optional double g = 7;\n  repeated int32 h = 8;\n  M m = 9;\n"),
           P3("  enum Tier {\n    GOLD = 0;\n  }\n  optional int32 a = 1;\n  string b = 2;\n  optional Tier "
              "c = 3;\n"
              "  Tier d = 4;\n  google.protobuf.Int64Value e = 5;\n  bool f = 6;\n"
              "  google.protobuf.DoubleValue g = 7;\n  repeated int32 h = 8;\n  optional M m = 9;\n"),
           "NULLABILITY_CHANGED M.a int32 -> optional int32 [required -> nullable] f1 b1\n"
           "NULLABILITY_CHANGED M.b optional string -> string [nullable -> required] f1 b1\n"
           "NULLABILITY_CHANGED M.c Tier -> optional Tier [required -> nullable] f1 b1\n"
           "NULLABILITY_CHANGED M.d optional Tier -> Tier [nullable -> required] f1 b1\n"
           "NULLABILITY_CHANGED M.e int64 -> google.protobuf.Int64Value [FIELD_KIND_CHANGED] f0 b0\n"
           "NULLABILITY_CHANGED M.f google.protobuf.BoolValue -> bool [FIELD_KIND_CHANGED] f0 b0\n"
           "TYPE_CHANGED M.g optional double -> google.protobuf.DoubleValue f0 b0\n",
           "1 column retyped, 6 nullability changed; incompatible");
    /* Inside a referenced type (another version of it): named through that type. */
    schema_ref_t v1[] = {
        {.name = "money.proto",
         .subject = "money",
         .version = 1,
         .text = "syntax = \"proto3\";\nmessage Money {\n  int64 units = 1;\n  string code = 2;\n}\n"}};
    schema_ref_t v2[] = {
        {.name = "money.proto",
         .subject = "money",
         .version = 2,
         .text =
             "syntax = \"proto3\";\nimport \"google/protobuf/wrappers.proto\";\n"
             "message Money {\n  google.protobuf.Int64Value units = 1;\n  optional string code = 2;\n}\n"}};
    const char *order =
        "syntax = \"proto3\";\nimport \"money.proto\";\nmessage Order {\n  Money total = 1;\n}\n";
    expect_sides(
        SCHEMA_PROTOBUF, order, v1, 1, order, v2, 1,
        "NULLABILITY_CHANGED Money.units int64 -> google.protobuf.Int64Value [FIELD_KIND_CHANGED] f0 b0\n"
        "NULLABILITY_CHANGED Money.code string -> optional string [required -> nullable] f1 b1\n"
        "TYPE_CHANGED Order.total Money -> Money [FIELD_NAMED_TYPE_CHANGED] f0 b0\n",
        "1 column retyped, 2 nullability changed; incompatible");
    /* proto2's optional has presence; proto3 without a label has none. */
    expect(SCHEMA_PROTOBUF, P2("  optional int32 a = 1;\n  optional int32 b = 2;\n"),
           "syntax = \"proto3\";\nmessage M {\n  int32 a = 1;\n  optional int32 b = 2;\n}\n",
           "NULLABILITY_CHANGED M.a optional int32 -> int32 [nullable -> required] f1 b1\n",
           "1 column nullability changed; fully compatible");
    /* Nested messages name the column through them; a oneof member is the oneof's business. */
    expect(
        SCHEMA_PROTOBUF,
        P3("  message Address {\n    string zip = 1;\n  }\n  oneof pick {\n    int32 x = 2;\n  }\n"),
        P3("  message Address {\n    optional string zip = 1;\n  }\n  oneof pick {\n    int32 x = 2;\n  }\n"),
        "NULLABILITY_CHANGED M.Address.zip string -> optional string [required -> nullable] f1 b1\n",
        "1 column nullability changed; fully compatible");
}

/* Protobuf's wire-compatible integer types ("Updating a message type"): the
 * type whose values hold the other's reads it, the other way truncates; with
 * neither holding the other (signedness), no direction keeps every value.
 * Other encodings are Confluent's FIELD_SCALAR_KIND_CHANGED. */
static void test_proto_widening(void **state)
{
    (void)state;
    expect(
        SCHEMA_PROTOBUF,
        P3("  int32 a = 1;\n  int64 b = 2;\n  uint32 c = 3;\n  int32 d = 4;\n  bool e = 5;\n  uint64 f = 6;\n"
           "  sint32 g = 7;\n  sint64 h = 8;\n  fixed32 i = 9;\n  sfixed64 j = 10;\n  string k = 11;\n"
           "  bytes l = 12;\n  repeated uint32 m = 13;\n  map<string, int32> n = 14;\n"
           "  map<int32, string> o = 15;\n  fixed32 p = 16;\n  float q = 17;\n  int32 r = 18;\n"),
        P3("  int64 a = 1;\n  int32 b = 2;\n  int64 c = 3;\n  uint32 d = 4;\n  uint64 e = 5;\n  bool f = 6;\n"
           "  sint64 g = 7;\n  sint32 h = 8;\n  sfixed32 i = 9;\n  fixed64 j = 10;\n  bytes k = 11;\n"
           "  string l = 12;\n  repeated uint64 m = 13;\n  map<string, int64> n = 14;\n"
           "  map<uint32, bytes> o = 15;\n  fixed64 p = 16;\n  double q = 17;\n  sint32 r = 18;\n"),
        "TYPE_WIDENED M.a int32 -> int64 f0 b1\n"
        "TYPE_NARROWED M.b int64 -> int32 f1 b0\n"
        "TYPE_WIDENED M.c uint32 -> int64 f0 b1\n"
        "TYPE_CHANGED M.d int32 -> uint32 f0 b0\n"
        "TYPE_WIDENED M.e bool -> uint64 f0 b1\n"
        "TYPE_NARROWED M.f uint64 -> bool f1 b0\n"
        "TYPE_WIDENED M.g sint32 -> sint64 f0 b1\n"
        "TYPE_NARROWED M.h sint64 -> sint32 f1 b0\n"
        "TYPE_CHANGED M.i fixed32 -> sfixed32 f0 b0\n"
        "TYPE_CHANGED M.j sfixed64 -> fixed64 f0 b0\n"
        "TYPE_WIDENED M.k string -> bytes f0 b1\n"
        "TYPE_NARROWED M.l bytes -> string f1 b0\n"
        "TYPE_WIDENED M.m repeated uint32 -> repeated uint64 f0 b1\n"
        "TYPE_WIDENED M.n map<string, int32> -> map<string, int64> f0 b1\n"
        "TYPE_CHANGED M.o map<int32, string> -> map<uint32, bytes> f0 b0\n"
        "TYPE_CHANGED M.p fixed32 -> fixed64 f0 b0\n"
        "TYPE_CHANGED M.q float -> double f0 b0\n"
        "TYPE_CHANGED M.r int32 -> sint32 f0 b0\n",
        "7 columns widened, 4 narrowed, 7 retyped; incompatible");
    /* Inside a referenced type (another version of it): named through that type. */
    schema_ref_t v1[] = {{.name = "money.proto",
                          .subject = "money",
                          .version = 1,
                          .text = "syntax = \"proto3\";\nmessage Money {\n  int32 units = 1;\n}\n"}};
    schema_ref_t v2[] = {{.name = "money.proto",
                          .subject = "money",
                          .version = 2,
                          .text = "syntax = \"proto3\";\nmessage Money {\n  int64 units = 1;\n}\n"}};
    const char *order =
        "syntax = \"proto3\";\nimport \"money.proto\";\nmessage Order {\n  Money total = 1;\n}\n";
    expect_sides(SCHEMA_PROTOBUF, order, v1, 1, order, v2, 1,
                 "TYPE_WIDENED Money.units int32 -> int64 f0 b1\n", "1 column widened; backward compatible");
    expect_sides(SCHEMA_PROTOBUF, order, v2, 1, order, v1, 1,
                 "TYPE_NARROWED Money.units int64 -> int32 f1 b0\n", "1 column narrowed; forward compatible");
}

/* proto2 `[default = ...]`: changed, added, removed; read only when the field
 * is absent, so both directions read (as Avro's defaults). A rename and a
 * widening of the same field are two rows. */
static void test_proto_defaults(void **state)
{
    (void)state;
    expect(SCHEMA_PROTOBUF,
           P2("  optional int32 a = 1 [default = 7];\n  optional string b = 2;\n"
              "  optional string c = 3 [default = \"x\"];\n  optional int32 d = 4 [default = 1];\n"
              "  optional int32 e = 5 [default = 5];\n"),
           P2("  optional int32 a = 1 [default = 8];\n  optional string b = 2 [default = \"none\"];\n"
              "  optional string c = 3;\n  optional int32 d = 4 [default = 1];\n"
              "  optional int64 f = 5 [default = 6];\n"),
           "DEFAULT_CHANGED M.a optional int32 -> optional int32 f1 b1\n"
           "DEFAULT_CHANGED M.b optional string -> optional string f1 b1\n"
           "DEFAULT_CHANGED M.c optional string -> optional string f1 b1\n"
           "FIELD_RENAMED M.f optional int32 -> optional int64 [e] f1 b1\n"
           "TYPE_WIDENED M.f optional int32 -> optional int64 f0 b1\n"
           "DEFAULT_CHANGED M.f optional int32 -> optional int64 f1 b1\n",
           "1 column renamed, 1 widened, 4 defaults changed; backward compatible");
}

/* proto2 `required` made optional, or back: NULLABILITY_CHANGED. A reader
 * whose field is required fails on data without it, so required -> optional
 * loses old readers (forward no) and keeps new ones (backward yes), and the
 * reverse. Confluent's FieldSchemaDiff refuses a numeric (and enum) label
 * change both ways (FIELD_NUMERIC_LABEL_CHANGED), so there the change says
 * neither, as the level does; it accepts string and bytes
 * (FIELD_STRING_OR_BYTES_LABEL_CHANGED) and has no difference for a message
 * field, so there the reader's answer stands. Repeated is no nullability. */
static void test_proto_required(void **state)
{
    (void)state;
    expect(SCHEMA_PROTOBUF,
           P2("  enum Tier {\n    GOLD = 0;\n  }\n  message N {\n    optional int32 z = 1;\n  }\n"
              "  required int32 a = 1;\n  optional int64 b = 2;\n  required string c = 3;\n"
              "  optional bytes d = 4;\n  required N e = 5;\n  optional N f = 6;\n  required Tier g = 7;\n"
              "  repeated int32 h = 8;\n"),
           P2("  enum Tier {\n    GOLD = 0;\n  }\n  message N {\n    optional int32 z = 1;\n  }\n"
              "  optional int32 a = 1;\n  required int64 b = 2;\n  optional string c = 3;\n"
              "  required bytes d = 4;\n  optional N e = 5;\n  required N f = 6;\n  optional Tier g = 7;\n"
              "  optional int32 h = 8;\n"),
           "NULLABILITY_CHANGED M.a required int32 -> optional int32 [required -> nullable] f0 b0\n"
           "NULLABILITY_CHANGED M.b optional int64 -> required int64 [nullable -> required] f0 b0\n"
           "NULLABILITY_CHANGED M.c required string -> optional string [required -> nullable] f0 b1\n"
           "NULLABILITY_CHANGED M.d optional bytes -> required bytes [nullable -> required] f1 b0\n"
           "NULLABILITY_CHANGED M.e required N -> optional N [required -> nullable] f0 b1\n"
           "NULLABILITY_CHANGED M.f optional N -> required N [nullable -> required] f1 b0\n"
           "NULLABILITY_CHANGED M.g required Tier -> optional Tier [required -> nullable] f0 b0\n"
           "OTHER M.h repeated int32 -> optional int32 [FIELD_NUMERIC_LABEL_CHANGED] f0 b0\n",
           "7 columns nullability changed, 1 other change; incompatible");
    /* Alone, the string one: Confluent's levels accept it both ways, the change says old readers fail. */
    expect(SCHEMA_PROTOBUF, P2("  required string c = 1;\n"), P2("  optional string c = 1;\n"),
           "NULLABILITY_CHANGED M.c required string -> optional string [required -> nullable] f0 b1\n",
           "1 column nullability changed; backward compatible");
}

/* An enum for an integer type or back: the guide ("Updating a message type")
 * calls enums wire compatible with int32, uint32, int64 and uint64, and
 * Confluent's diff sees one scalar kind. The side whose values hold the
 * other's reads it: an integer holds an enum's constants when its range does
 * (uint32 not a negative one); an enum holds no integer type's values (an
 * unknown number is no constant: proto3 keeps it as a bare number, proto2
 * moves it to the unknown fields), except bool's when it has 0 and 1. */
static void test_proto_enum_integer(void **state)
{
    (void)state;
    expect(SCHEMA_PROTOBUF,
           P3("  enum Tier {\n    GOLD = 0;\n    SILVER = 1;\n  }\n  enum Delta {\n    ZERO = 0;\n"
              "    DOWN = -1;\n  }\n  enum Big {\n    NONE = 0;\n    ONE = 1;\n    MANY = 7;\n  }\n"
              "  Tier a = 1;\n  int32 b = 2;\n  Tier c = 3;\n  Delta d = 4;\n  uint64 e = 5;\n"
              "  Delta f = 6;\n  Tier g = 7;\n  Big h = 8;\n  repeated Tier i = 9;\n"),
           P3("  enum Tier {\n    GOLD = 0;\n    SILVER = 1;\n  }\n  enum Delta {\n    ZERO = 0;\n"
              "    DOWN = -1;\n  }\n  enum Big {\n    NONE = 0;\n    ONE = 1;\n    MANY = 7;\n  }\n"
              "  int32 a = 1;\n  Tier b = 2;\n  uint32 c = 3;\n  uint64 d = 4;\n  Delta e = 5;\n"
              "  int64 f = 6;\n  bool g = 7;\n  bool h = 8;\n  repeated int64 i = 9;\n"),
           "TYPE_WIDENED M.a Tier -> int32 f0 b1\n"
           "TYPE_NARROWED M.b int32 -> Tier f1 b0\n"
           "TYPE_WIDENED M.c Tier -> uint32 f0 b1\n"
           "TYPE_CHANGED M.d Delta -> uint64 f0 b0\n"
           "TYPE_CHANGED M.e uint64 -> Delta f0 b0\n"
           "TYPE_WIDENED M.f Delta -> int64 f0 b1\n"
           "TYPE_CHANGED M.g Tier -> bool f1 b1\n"
           "TYPE_NARROWED M.h Big -> bool f1 b0\n"
           "TYPE_WIDENED M.i repeated Tier -> repeated int64 f0 b1\n",
           "4 columns widened, 2 narrowed, 3 retyped; incompatible");
}

/* Editions: presence is features.field_presence, on the field, else the
 * nearest enclosing message, else the file, else EXPLICIT. EXPLICIT <->
 * IMPLICIT is proto3's `optional` (the wire is the same: both directions);
 * LEGACY_REQUIRED is proto2's `required` (Confluent's diff sees no label in
 * editions, so the reader's answer stands). A proto3 field without a label
 * moved to editions gains presence by the default. */
static void test_proto_editions_presence(void **state)
{
    (void)state;
    expect(SCHEMA_PROTOBUF,
           "edition = \"2023\";\nmessage M {\n  int32 a = 1;\n  int32 b = 2 [features.field_presence = "
           "IMPLICIT];\n"
           "  int32 c = 3 [features.field_presence = LEGACY_REQUIRED];\n  string d = 4;\n"
           "  message N {\n    option features.field_presence = IMPLICIT;\n    int32 x = 1;\n"
           "    int32 y = 2;\n  }\n}\n",
           "edition = \"2023\";\nmessage M {\n  int32 a = 1 [features.field_presence = IMPLICIT];\n  int32 b "
           "= 2;\n"
           "  int32 c = 3;\n  string d = 4 [features.field_presence = LEGACY_REQUIRED];\n"
           "  message N {\n    int32 x = 1;\n    int32 y = 2 [features.field_presence = IMPLICIT];\n  }\n}\n",
           "NULLABILITY_CHANGED M.a int32 -> int32 [nullable -> required] f1 b1\n"
           "NULLABILITY_CHANGED M.b int32 -> int32 [required -> nullable] f1 b1\n"
           "NULLABILITY_CHANGED M.c int32 -> int32 [required -> nullable] f0 b1\n"
           "NULLABILITY_CHANGED M.d string -> string [nullable -> required] f1 b0\n"
           "NULLABILITY_CHANGED M.N.x int32 -> int32 [required -> nullable] f1 b1\n",
           "5 columns nullability changed; incompatible");
    /* The file's default, and proto3 to editions. */
    expect(SCHEMA_PROTOBUF, "syntax = \"proto3\";\nmessage M {\n  int32 a = 1;\n  int32 b = 2;\n}\n",
           "edition = \"2023\";\noption features.field_presence = IMPLICIT;\nmessage M {\n  int32 a = 1;\n"
           "  int32 b = 2 [features.field_presence = EXPLICIT];\n}\n",
           "NULLABILITY_CHANGED M.b int32 -> int32 [required -> nullable] f1 b1\n",
           "1 column nullability changed; fully compatible");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary_words),
        cmocka_unit_test(test_different_types),
        cmocka_unit_test(test_avro_seed_cases),
        cmocka_unit_test(test_avro_fields),
        cmocka_unit_test(test_avro_nested_and_enums),
        cmocka_unit_test(test_avro_references),
        cmocka_unit_test(test_json_seed_cases),
        cmocka_unit_test(test_json_kinds),
        cmocka_unit_test(test_json_rest),
        cmocka_unit_test(test_proto_seed_cases),
        cmocka_unit_test(test_proto_kinds),
        cmocka_unit_test(test_proto_nullability),
        cmocka_unit_test(test_proto_widening),
        cmocka_unit_test(test_proto_defaults),
        cmocka_unit_test(test_proto_required),
        cmocka_unit_test(test_proto_enum_integer),
        cmocka_unit_test(test_proto_editions_presence),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
