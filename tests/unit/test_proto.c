/*
 * The Protobuf engine on its own cases (no ../shared needed): parsing and
 * its errors, the canonical printer, ignore_extensions, normalization, the
 * diff (every difference type), the backward messages through the level
 * logic, descriptor round trips and robustness against mangled input.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat/level.h"
#include "compat/protobuf/protobuf.h"
#include "compat/schema.h"

#define DATA SR_TEST_DATA_DIR "/protobuf/"

/* ---- Helpers ---------------------------------------------------------------------- */

static char *read_data(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s%s", DATA, name);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

/* Parses text (no references); fails the test on error. */
static proto_schema_t *schema(const char *text, int flags, char **canonical)
{
    char *error = NULL;
    proto_schema_t *s = proto_schema_new(text, strlen(text), NULL, 0, flags, canonical, &error);
    if (!s)
        fail_msg("unexpected parse error: %s", error);
    return s;
}

/* The canonical text of text is expected, and is its own canonical text. */
static void assert_canonical(const char *text, const char *expected)
{
    char *canonical = NULL, *again = NULL;
    proto_schema_t *s = schema(text, 0, &canonical);
    assert_string_equal(canonical, expected);
    proto_schema_t *s2 = schema(canonical, 0, &again);
    assert_string_equal(again, expected);
    free(again);
    proto_schema_free(s2);
    free(canonical);
    proto_schema_free(s);
}

static void assert_normalized(const char *text, const char *expected)
{
    char *canonical = NULL;
    proto_schema_t *s = schema(text, SCHEMA_PARSE_NORMALIZE, &canonical);
    assert_string_equal(canonical, expected);
    free(canonical);
    proto_schema_free(s);
}

static void assert_parse_error(const char *text, const char *expected)
{
    char *error = NULL;
    proto_schema_t *s = proto_schema_new(text, strlen(text), NULL, 0, 0, NULL, &error);
    assert_null(s);
    assert_non_null(error);
    assert_string_equal(error, expected);
    free(error);
}

/* The change list of original -> update, compared as a multiset with the
 * NULL-terminated expected list. */
static void assert_changes(const char *original, const char *update, ...)
{
    proto_schema_t *o = schema(original, 0, NULL), *u = schema(update, 0, NULL);
    strlist_t changes = {0};
    assert_int_equal(proto_diff(o, u, &changes), 0);
    va_list ap;
    va_start(ap, update);
    size_t n = 0;
    char *used = calloc(changes.n + 1, 1);
    for (const char *want; (want = va_arg(ap, const char *)); n++) {
        int found = 0;
        for (size_t i = 0; i < changes.n && !found; i++)
            if (!used[i] && strcmp(changes.items[i], want) == 0)
                used[i] = found = 1;
        if (!found) {
            for (size_t i = 0; i < changes.n; i++)
                fprintf(stderr, "  actual: %s\n", changes.items[i]);
            fail_msg("missing change: %s", want);
        }
    }
    va_end(ap);
    if (n != changes.n) {
        for (size_t i = 0; i < changes.n; i++)
            fprintf(stderr, "  actual: %s\n", changes.items[i]);
        fail_msg("expected %zu changes, got %zu", n, changes.n);
    }
    free(used);
    strlist_clear(&changes);
    proto_schema_free(o);
    proto_schema_free(u);
}

static int compatible(const char *original, const char *update)
{
    proto_schema_t *o = schema(original, 0, NULL), *u = schema(update, 0, NULL);
    strlist_t messages = {0};
    assert_int_equal(proto_backward(u, o, &messages), 0);
    int ok = messages.n == 0;
    strlist_clear(&messages);
    proto_schema_free(o);
    proto_schema_free(u);
    return ok;
}

/* ---- Parsing ------------------------------------------------------------------------ */

static void test_parse_corpus(void **state)
{
    static const char *const files[] = {"scalars.proto", "nested.proto",  "legacy.proto",
                                        "options.proto", "edition.proto", "roundtrip.proto"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char *text = read_data(files[i]);
        char *canonical = NULL;
        proto_schema_t *s = schema(text, 0, &canonical);
        /* The canonical text is itself a schema with the same canonical text. */
        char *again = NULL;
        proto_schema_t *s2 = schema(canonical, 0, &again);
        assert_string_equal(canonical, again);
        free(again);
        proto_schema_free(s2);
        free(canonical);
        proto_schema_free(s);
        free(text);
    }
}

static void test_parse_model(void **state)
{
    char *error = NULL;
    const char *text = "syntax = \"proto3\";\n"
                       "package p.q;\n"
                       "import public \"a.proto\";\n"
                       "import weak \"b.proto\";\n"
                       "message M {\n"
                       "  repeated string tags = 3 [packed = false, default = \"x\", json_name = \"T\"];\n"
                       "  map<int32, M> children = 4;\n"
                       "  reserved 1, 7 to 9, 100 to max;\n"
                       "  reserved \"gone\";\n"
                       "}\n";
    proto_file_t *f = proto_parse(text, strlen(text), &error);
    assert_non_null(f);
    assert_int_equal(f->syntax, PROTO_SYNTAX_PROTO3);
    assert_string_equal(f->package, "p.q");
    assert_int_equal(f->n_public_imports, 1);
    assert_int_equal(f->n_weak_imports, 1);
    const proto_message_t *m = f->types[0]->message;
    assert_int_equal(m->n_fields, 2);
    const proto_field_t *tags = m->fields[0];
    assert_int_equal(tags->label, PROTO_LABEL_REPEATED);
    assert_int_equal(tags->tag, 3);
    assert_int_equal(tags->options.n, 1); /* default and json_name are not options */
    assert_string_equal(tags->default_value, "x");
    assert_string_equal(tags->json_name, "T");
    const proto_field_t *children = m->fields[1];
    assert_string_equal(children->type, "map<int32, M>");
    assert_string_equal(children->map_key, "int32");
    assert_string_equal(children->map_value, "M");
    assert_int_equal(m->n_reserveds, 2);
    assert_int_equal(m->reserveds[0]->n_values, 3);
    assert_true(m->reserveds[0]->values[2].end_is_max);
    assert_string_equal(m->reserveds[1]->values[0].name, "gone");
    proto_file_free(f);
}

static void test_parse_strings(void **state)
{
    /* Escapes, both quote styles and adjacent literals concatenate. */
    assert_canonical("option java_package = 'a' \"b\" /* c */ 'c';\n"
                     "option go_package = \"t\\tq\\\"\\x41\\101\\n\";\n",
                     "\noption java_package = \"abc\";\n"
                     "option go_package = \"t\\tq\\\"AA\\n\";\n");
}

static void test_parse_comments_everywhere(void **state)
{
    assert_canonical("/* a */ syntax /* b */ = // c\n \"proto3\" ; // d\n"
                     "message /* e */ M /* f */ { // g\n int32 /* h */ x = 1; /* i */ }\n",
                     "syntax = \"proto3\";\n\nmessage M {\n  int32 x = 1;\n}\n");
}

static void test_parse_errors(void **state)
{
    assert_parse_error("syntax = \"proto3\";\nmessage M {\n  int32 = 1;\n}\n",
                       "Syntax error at 3:9: expected a word but was '='");
    assert_parse_error("syntax = \"proto3\";\nmessage M {\n  int32 x = 1\n}\n",
                       "Syntax error at 4:1: expected ';' but was '}'");
    assert_parse_error("message M {\n  int32 x = 1;\n}\n", "Syntax error at 2:3: unexpected label: int32");
    assert_parse_error("syntax = \"proto3\";\nmessage M {\n  required int32 x = 1;\n}\n",
                       "Syntax error at 3:3: 'required' label forbidden in proto3 field declarations");
    assert_parse_error("package p;\nsyntax = \"proto3\";\n",
                       "Syntax error at 2:1: 'syntax' element must be the first declaration in a file");
    assert_parse_error("syntax = \"proto4\";\n", "Syntax error at 1:1: unexpected syntax: proto4");
    assert_parse_error("message M {\n", "Syntax error at 2:1: unexpected end of file");
    assert_parse_error("message M { /* open", "Syntax error at 1:13: unterminated comment");
    assert_parse_error("option x = \"open", "Syntax error at 1:12: unterminated string");
    assert_parse_error("message A {}\nmessage A {}\n", "Syntax error at 2:1: A is already defined");
    assert_parse_error("syntax = \"proto3\";\nmessage M { map<bytes, string> m = 1; }\n",
                       "Syntax error at 2:13: map key must be non-byte, non-floating point scalar: bytes");
    assert_parse_error("syntax = \"proto3\";\nmessage M { int32 x = 99999999999; }\n",
                       "Syntax error at 2:23: expected an integer but was 99999999999");
    assert_parse_error("syntax = \"proto3\";\nmessage M { repeated map<string, int32> m = 1; }\n",
                       "Syntax error at 2:13: 'map' type cannot have label");
    assert_parse_error("enum E { 1A = 0; }\n",
                       "Syntax error at 1:10: field and constant names cannot start with a digit");
}

static void test_parse_depth_is_bounded(void **state)
{
    size_t depth = 200;
    char *text = malloc(depth * 12 + 16);
    size_t n = 0;
    for (size_t i = 0; i < depth; i++)
        n += (size_t)sprintf(text + n, "message M {");
    for (size_t i = 0; i < depth; i++)
        text[n++] = '}';
    text[n] = '\0';
    char *error = NULL;
    proto_schema_t *s = proto_schema_new(text, n, NULL, 0, 0, NULL, &error);
    assert_null(s);
    assert_non_null(strstr(error, "nesting deeper than"));
    free(error);
    free(text);
}

static void test_parse_edition(void **state)
{
    char *text = read_data("edition.proto");
    char *canonical = NULL;
    proto_schema_t *s = schema(text, 0, &canonical);
    assert_string_equal(canonical, "edition = \"2023\";\n"
                                   "package test.edition;\n"
                                   "\n"
                                   "message Modern {\n"
                                   "  string name = 1;\n"
                                   "  int32 count = 2;\n"
                                   "}\n");
    free(canonical);
    proto_schema_free(s);
    free(text);
}

/* ---- Printing ---------------------------------------------------------------------- */

static void test_canonical_layout(void **state)
{
    assert_canonical("// leading comment\n"
                     "syntax = \"proto3\";\n"
                     "package a.b;  /* trailing */\n"
                     "import \"google/protobuf/any.proto\";\n"
                     "option java_package = \"x\";\n"
                     "message M {\n"
                     "  int32 f = 1 [json_name = \"F\", deprecated = true];\n"
                     "  reserved 5, 10 to 12;\n"
                     "  message N { string s = 1; enum K { Z = 0; } }\n"
                     "  enum E { A = 0; }\n"
                     "  oneof o { string x = 2; }\n"
                     "  map<string, int32> m = 3;\n"
                     "};\n"
                     "enum Top { option allow_alias = true; T = 0; U = 0; }\n"
                     "service S { rpc R (M) returns (stream M); }\n",
                     "syntax = \"proto3\";\n"
                     "package a.b;\n"
                     "\n"
                     "import \"google/protobuf/any.proto\";\n"
                     "\n"
                     "option java_package = \"x\";\n"
                     "\n"
                     "message M {\n"
                     "  reserved 5, 10 to 12;\n"
                     "\n"
                     "  int32 f = 1 [\n"
                     "    deprecated = true,\n"
                     "    json_name = \"F\"\n"
                     "  ];\n"
                     "  map<string, int32> m = 3;\n"
                     "\n"
                     "  oneof o {\n"
                     "    string x = 2;\n"
                     "  }\n"
                     "\n"
                     "  message N {\n"
                     "    string s = 1;\n"
                     "  \n"
                     "    enum K {\n"
                     "      Z = 0;\n"
                     "    }\n"
                     "  }\n"
                     "  enum E {\n"
                     "    A = 0;\n"
                     "  }\n"
                     "}\n"
                     "enum Top {\n"
                     "  option allow_alias = true;\n"
                     "  T = 0;\n"
                     "  U = 0;\n"
                     "}\n"
                     "\n"
                     "service S {\n"
                     "  rpc R (M) returns (stream M);\n"
                     "}\n");
}

static void test_canonical_options(void **state)
{
    assert_canonical("syntax = \"proto2\";\n"
                     "message M {\n"
                     "  option (my.opt).a.b = 5;\n"
                     "  option (agg) = { k: \"v\" n { x: 1 } l: [1, 2] e: ENUM_V };\n"
                     "  optional int32 f = 1 [default = 0x10, (f.o) = -1.5e3];\n"
                     "  optional bytes b = 2 [default = \"a b\"];\n"
                     "  optional bytes c = 3 [default = \"word\"];\n"
                     "  optional E e = 4 [default = E1];\n"
                     "}\n",
                     "syntax = \"proto2\";\n"
                     "\n"
                     "message M {\n"
                     "  option (my.opt).a.b = 5;\n"
                     "  option (agg) = {\n"
                     "    k: \"v\",\n"
                     "    n: {\n"
                     "      x: 1\n"
                     "    },\n"
                     "    l: [\n"
                     "      1,\n"
                     "      2\n"
                     "    ],\n"
                     "    e: ENUM_V\n"
                     "  };\n"
                     "\n"
                     "  optional int32 f = 1 [\n"
                     "    (f.o) = -1.5e3,\n"
                     "    default = 0x10\n"
                     "  ];\n"
                     "  optional bytes b = 2 [default = \"a b\"];\n"
                     "  optional bytes c = 3 [default = word];\n"
                     "  optional E e = 4 [default = E1];\n"
                     "}\n");
}

/* Where Confluent's printer would write text that does not parse again
 * (raw values), the canonical text quotes or escapes them instead. */
static void test_canonical_always_reparses(void **state)
{
    assert_canonical("syntax = \"proto2\";\n"
                     "import \"odd\\\"name.proto\";\n"
                     "message M {\n"
                     "  reserved \"a\\nb\";\n"
                     "  optional E e = 1 [default = \"not a word\"];\n"
                     "  optional string s = 2 [default = \"nul\\0001\"];\n"
                     "}\n",
                     "syntax = \"proto2\";\n"
                     "\n"
                     "import \"odd\\\"name.proto\";\n"
                     "\n"
                     "message M {\n"
                     "  reserved \"a\\nb\";\n"
                     "\n"
                     "  optional E e = 1 [default = \"not a word\"];\n"
                     "  optional string s = 2 [default = \"nul\\0001\"];\n"
                     "}\n");
}

static void test_canonical_proto2_groups_and_extensions(void **state)
{
    assert_canonical("syntax = \"proto2\";\n"
                     "message M {\n"
                     "  extensions 10 to 20, 30 to max;\n"
                     "  optional group G = 1 { optional int32 a = 2; }\n"
                     "  extend M { optional int32 e = 10; }\n"
                     "}\n"
                     "extend M { optional string f = 30; }\n",
                     "syntax = \"proto2\";\n"
                     "\n"
                     "message M {\n"
                     "  optional group G = 1 {\n"
                     "    optional int32 a = 2;\n"
                     "  }\n"
                     "\n"
                     "  extensions 10 to 20, 30 to max;\n"
                     "\n"
                     "  extend M {\n"
                     "    optional int32 e = 10;\n"
                     "  }\n"
                     "}\n"
                     "\n"
                     "extend M {\n"
                     "  optional string f = 30;\n"
                     "}\n");
}

static void test_ignore_extensions(void **state)
{
    const char *text = "syntax = \"proto2\";\n"
                       "import \"confluent/meta.proto\";\n"
                       "option (custom) = 1;\n"
                       "option (confluent.file_meta).doc = \"kept\";\n"
                       "option java_package = \"kept\";\n"
                       "message M {\n"
                       "  optional int32 f = 1 [(custom) = 2, deprecated = true];\n"
                       "  extensions 100 to 200;\n"
                       "}\n"
                       "extend M { optional int32 g = 100; }\n";
    proto_schema_t *s = schema(text, 0, NULL);
    char *error = NULL;
    char *out = proto_print(proto_schema_file(s), PROTO_PRINT_IGNORE_EXTENSIONS, NULL, &error);
    assert_string_equal(out, "syntax = \"proto2\";\n"
                             "\n"
                             "import \"confluent/meta.proto\";\n"
                             "\n"
                             "option (confluent.file_meta).doc = \"kept\";\n"
                             "option java_package = \"kept\";\n"
                             "\n"
                             "message M {\n"
                             "  optional int32 f = 1 [deprecated = true];\n"
                             "}\n");
    free(out);
    /* The same through the engine's format hook. */
    const schema_engine_t *engine = schema_engine(SCHEMA_PROTOBUF);
    assert_non_null(engine);
    out = engine->format(s, "ignore_extensions");
    assert_non_null(strstr(out, "[deprecated = true]"));
    assert_null(strstr(out, "(custom)"));
    free(out);
    assert_null(engine->format(s, "no_such_format"));
    proto_schema_free(s);
}

/* ---- Normalization ------------------------------------------------------------------ */

static void test_normalize(void **state)
{
    assert_normalized("syntax = \"proto2\";\n"
                      "package n;\n"
                      "import \"z.proto\";\n"
                      "import \"a.proto\";\n"
                      "import \"a.proto\";\n"
                      "option java_package = \"p\";\n"
                      "option (opt) = 0x1F;\n"
                      "extend google.protobuf.FileOptions { optional int32 opt = 5000; }\n"
                      "message M {\n"
                      "  reserved 9, 2 to 3, \"b\", \"a\";\n"
                      "  optional Inner z = 3;\n"
                      "  optional int32 a = 1 [default = 1.23456];\n"
                      "  repeated Inner.E e = 2;\n"
                      "  oneof second { string s2 = 20; string s1 = 11; }\n"
                      "  oneof first { string f = 10; }\n"
                      "  message Inner { enum E { Y = 1; X = 0; W = 0; } }\n"
                      "}\n",
                      "package n;\n"
                      "\n"
                      "import \"a.proto\";\n"
                      "import \"z.proto\";\n"
                      "\n"
                      "option java_package = \"p\";\n"
                      "option (n.opt) = 31;\n"
                      "\n"
                      "message M {\n"
                      "  reserved 2 to 3;\n"
                      "  reserved 9;\n"
                      "  reserved \"a\";\n"
                      "  reserved \"b\";\n"
                      "\n"
                      "  optional int32 a = 1 [default = 1.235];\n"
                      "  repeated .n.M.Inner.E e = 2;\n"
                      "  optional .n.M.Inner z = 3;\n"
                      "\n"
                      "  oneof first {\n"
                      "    string f = 10;\n"
                      "  }\n"
                      "  oneof second {\n"
                      "    string s1 = 11;\n"
                      "    string s2 = 20;\n"
                      "  }\n"
                      "\n"
                      "  message Inner {\n"
                      "    enum E {\n"
                      "      W = 0;\n"
                      "      X = 0;\n"
                      "      Y = 1;\n"
                      "    }\n"
                      "  }\n"
                      "}\n"
                      "\n"
                      "extend .google.protobuf.FileOptions {\n"
                      "  optional int32 opt = 5000;\n"
                      "}\n");
}

static void test_normalize_maps_and_merged_options(void **state)
{
    /* A descriptor-style map entry becomes map<K, V>; repeated statements
     * of one message-typed option merge into one aggregate, keys sorted. */
    assert_normalized("syntax = \"proto3\";\n"
                      "import \"confluent/meta.proto\";\n"
                      "message M {\n"
                      "  repeated .M.LabelsEntry labels = 1;\n"
                      "  string x = 2 [(confluent.field_meta).doc = \"d\", "
                      "(confluent.field_meta).tags = \"t\"];\n"
                      "  message LabelsEntry {\n"
                      "    option map_entry = true;\n"
                      "    string key = 1;\n"
                      "    Value value = 2;\n"
                      "  }\n"
                      "  message Value { int32 v = 1; }\n"
                      "}\n",
                      "syntax = \"proto3\";\n"
                      "\n"
                      "import \"confluent/meta.proto\";\n"
                      "\n"
                      "message M {\n"
                      "  map<string, .M.Value> labels = 1;\n"
                      "  string x = 2 [(confluent.field_meta) = {\n"
                      "    doc: \"d\",\n"
                      "    tags: \"t\"\n"
                      "  }];\n"
                      "\n"
                      "  message Value {\n"
                      "    int32 v = 1;\n"
                      "  }\n"
                      "}\n");
}

static void test_validation_of_new_schemas(void **state)
{
    const char *text = "syntax = \"proto3\";\nmessage M { Missing m = 1; }\n";
    char *error = NULL;
    /* Stored (import) schemas may keep unresolvable names... */
    proto_schema_t *s = proto_schema_new(text, strlen(text), NULL, 0, 0, NULL, &error);
    assert_non_null(s);
    proto_schema_free(s);
    /* ...new ones may not. */
    s = proto_schema_new(text, strlen(text), NULL, 0, SCHEMA_PARSE_NEW, NULL, &error);
    assert_null(s);
    assert_string_equal(error, "Could not resolve type: Missing");
    free(error);
}

static void test_references(void **state)
{
    const char *common = "syntax = \"proto3\";\npackage common;\nmessage Money { int64 units = 1; }\n";
    const char *text = "syntax = \"proto3\";\nimport \"common/money.proto\";\n"
                       "import \"google/protobuf/timestamp.proto\";\n"
                       "message Order { common.Money total = 1; google.protobuf.Timestamp at = 2; }\n";
    schema_ref_t ref = {"common/money.proto", "money", 3, common};
    char *error = NULL;
    proto_schema_t *s = proto_schema_new(text, strlen(text), &ref, 1, SCHEMA_PARSE_NEW, NULL, &error);
    assert_non_null(s);
    const proto_symbol_t *money = proto_symtab_get(proto_schema_symtab(s), "common.Money", 0);
    assert_non_null(money);
    assert_int_equal(money->origin, PROTO_ORIGIN_REFERENCE);
    assert_string_equal(money->subject, "money");
    assert_int_equal(money->version, 3);
    const proto_symbol_t *ts = proto_symtab_get(proto_schema_symtab(s), ".google.protobuf.Timestamp", 0);
    assert_non_null(ts);
    assert_int_equal(ts->origin, PROTO_ORIGIN_BUILTIN);
    proto_schema_free(s);
    /* Without the reference the type does not resolve. */
    s = proto_schema_new(text, strlen(text), NULL, 0, SCHEMA_PARSE_NEW, NULL, &error);
    assert_null(s);
    assert_string_equal(error, "Could not resolve type: common.Money");
    free(error);
}

static void test_number_normalization(void **state)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"0x10", "16"},
        {"-0x10", "-16"},
        {"010", "8"},
        {"09", "09"},
        {"1e3", "1000"},
        {"1.5", "1.5"},
        {"1.23456", "1.235"},
        {"0.0625", "0.062"},
        {"-0.0001", "-0"},
        {"2.5e-3", "0.002"} /* read as a float: 0.0024999999 */,
        {"123", "123"},
        {"-inf", "-inf"},
        {"18446744073709551615", "18446744073709551615"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        strbuf_t b = {0};
        proto_normalize_number(cases[i].in, &b);
        char *got = strbuf_take(&b);
        if (strcmp(got, cases[i].out) != 0)
            fail_msg("%s: expected %s, got %s", cases[i].in, cases[i].out, got);
        free(got);
    }
}

/* ---- The diff ----------------------------------------------------------------------- */

#define P3 "syntax = \"proto3\";\n"

static void test_diff_fields(void **state)
{
    assert_changes(P3 "message M { int32 a = 1; }", P3 "message M { int32 a = 1; int32 b = 2; }",
                   "FIELD_ADDED #/M/2", NULL);
    assert_changes(P3 "message M { int32 a = 1; int32 b = 2; }", P3 "message M { int32 a = 1; }",
                   "FIELD_REMOVED #/M/2", NULL);
    assert_changes(P3 "message M { int32 a = 1; }", P3 "message M { int32 renamed = 1; }",
                   "FIELD_NAME_CHANGED #/M/1", NULL);
    assert_changes("message M { optional int32 a = 1; }",
                   "message M { optional int32 a = 1; required int32 b = 2; }", "REQUIRED_FIELD_ADDED #/M/2",
                   NULL);
    assert_changes("message M { optional int32 a = 1; required int32 b = 2; }",
                   "message M { optional int32 a = 1; }", "REQUIRED_FIELD_REMOVED #/M/2", NULL);
}

static void test_diff_types(void **state)
{
    /* Wire-compatible groups stay silent. */
    assert_changes(P3 "message M { int32 a = 1; }", P3 "message M { uint64 a = 1; }", NULL);
    assert_changes(P3 "message M { sint32 a = 1; }", P3 "message M { sint64 a = 1; }", NULL);
    assert_changes(P3 "message M { string a = 1; }", P3 "message M { bytes a = 1; }", NULL);
    assert_changes(P3 "message M { fixed32 a = 1; }", P3 "message M { sfixed32 a = 1; }", NULL);
    assert_changes(P3 "message M { int32 a = 1; }", P3 "message M { E a = 1; } enum E { Z = 0; }",
                   "ENUM_ADDED #/E", NULL);
    assert_changes(P3 "message M { int32 a = 1; }", P3 "message M { sint32 a = 1; }",
                   "FIELD_SCALAR_KIND_CHANGED #/M/1", NULL);
    assert_changes(P3 "message M { float a = 1; }", P3 "message M { double a = 1; }",
                   "FIELD_SCALAR_KIND_CHANGED #/M/1", NULL);
    assert_changes(P3 "message M { int32 a = 1; }", P3 "message M { N a = 1; } message N {}",
                   "FIELD_KIND_CHANGED #/M/1", "MESSAGE_ADDED #/N", NULL);
    assert_changes(P3 "message M { map<string, int32> a = 1; }", P3 "message M { repeated int32 a = 1; }",
                   "FIELD_KIND_CHANGED #/M/1", NULL);
    assert_changes(P3 "message M { map<string, int32> a = 1; }",
                   P3 "message M { map<string, string> a = 1; }", "FIELD_SCALAR_KIND_CHANGED #/M/1", NULL);
    assert_changes(P3 "message M { A a = 1; } message A {} message B {}",
                   P3 "message M { B a = 1; } message A {} message B {}", "FIELD_NAMED_TYPE_CHANGED #/M/1",
                   NULL);
    /* Labels: only two explicit, different labels count. */
    assert_changes("message M { optional int32 a = 1; }", "message M { repeated int32 a = 1; }",
                   "FIELD_NUMERIC_LABEL_CHANGED #/M/1", NULL);
    assert_changes("message M { optional string a = 1; }", "message M { repeated string a = 1; }",
                   "FIELD_STRING_OR_BYTES_LABEL_CHANGED #/M/1", NULL);
    assert_changes(P3 "message M { int32 a = 1; }", P3 "message M { repeated int32 a = 1; }", NULL);
    assert_changes("message M { optional N a = 1; } message N {}",
                   "message M { repeated N a = 1; } message N {}", NULL);
}

static void test_diff_types_and_enums(void **state)
{
    assert_changes(P3 "message A {} message B {}", P3 "message B {} message A {}", "MESSAGE_MOVED #/A",
                   "MESSAGE_MOVED #/B", NULL);
    assert_changes(P3 "message A {} message B {}", P3 "message A {}", "MESSAGE_REMOVED #/B", NULL);
    assert_changes(P3 "message A { message In {} }", P3 "message A {}", "MESSAGE_REMOVED #/A/In", NULL);
    assert_changes(P3 "enum E { A = 0; B = 1; }", P3 "enum E { A = 0; C = 1; D = 2; }",
                   "ENUM_CONST_CHANGED #/E/1", "ENUM_CONST_ADDED #/E/2", NULL);
    assert_changes(P3 "enum E { A = 0; B = 1; }", P3 "enum E { A = 0; }", "ENUM_CONST_REMOVED #/E/1", NULL);
    assert_changes(P3 "enum E { A = 0; }", P3 "", "ENUM_REMOVED #/E", NULL);
    assert_changes(P3 "package a;", P3 "package b;", "PACKAGE_CHANGED #/", NULL);
    /* proto2 <-> proto3 is not a difference at all. */
    assert_changes("syntax = \"proto2\"; message M { optional int32 a = 1; }",
                   P3 "message M { int32 a = 1; }", NULL);
}

static void test_diff_oneofs(void **state)
{
    assert_changes(P3 "message M { int32 a = 1; }", P3 "message M { oneof o { int32 a = 1; } }",
                   "ONEOF_ADDED #/M/o", NULL);
    assert_changes(P3 "message M { oneof o { int32 a = 1; } }", P3 "message M { int32 a = 1; }",
                   "ONEOF_REMOVED #/M/o", "ONEOF_FIELD_MOVED_TO_TOP_LEVEL #/M/1", NULL);
    assert_changes(P3 "message M { oneof o { int32 a = 1; } }",
                   P3 "message M { oneof o { int32 a = 1; int32 b = 2; } }", "ONEOF_FIELD_ADDED #/M/o/2",
                   NULL);
    assert_changes(P3 "message M { oneof o { int32 a = 1; int32 b = 2; } }",
                   P3 "message M { oneof o { int32 a = 1; } }", "ONEOF_FIELD_REMOVED #/M/o/2", NULL);
    assert_changes(P3 "message M { int32 a = 1; int32 b = 2; }",
                   P3 "message M { oneof o { int32 a = 1; int32 b = 2; } }",
                   "MULTIPLE_FIELDS_MOVED_TO_ONEOF #/M/o", "ONEOF_ADDED #/M/o", NULL);
    assert_changes(P3 "message M { int32 a = 1; oneof o { int32 b = 2; } }",
                   P3 "message M { oneof o { int32 a = 1; int32 b = 2; } }",
                   "FIELD_MOVED_TO_EXISTING_ONEOF #/M/o", NULL);
    /* A oneof deleted with all its members is one compatible change. */
    assert_changes(P3 "message M { int32 x = 9; oneof o { int32 a = 1; int32 b = 2; } }",
                   P3 "message M { int32 x = 9; }", "ONEOF_REMOVED #/M/o", NULL);
    /* The field compare happens wherever the field went. */
    assert_changes(P3 "message M { oneof o { int32 a = 1; } }", P3 "message M { oneof p { string a = 1; } }",
                   "ONEOF_REMOVED #/M/o", "ONEOF_ADDED #/M/p", "FIELD_SCALAR_KIND_CHANGED #/M/p/1", NULL);
}

static void test_diff_maps_and_recursion(void **state)
{
    /* A descriptor-style entry message equals the map<> it stands for. */
    assert_changes(P3 "message M { map<string, int32> m = 1; }",
                   P3 "message M { repeated MEntry m = 1; message MEntry { option map_entry = true; "
                      "string key = 1; int32 value = 2; } }",
                   NULL);
    /* Recursive types terminate. */
    assert_changes(P3 "message Node { Node next = 1; repeated Node kids = 2; }",
                   P3 "message Node { Node next = 1; repeated Node kids = 2; int32 v = 3; }",
                   "FIELD_ADDED #/Node/3", NULL);
}

static void test_diff_imported_types(void **state)
{
    const char *v1 = "syntax = \"proto3\";\npackage dep;\nmessage T { int32 id = 1; }\n";
    const char *v2 = "syntax = \"proto3\";\npackage dep;\nmessage T { string id = 1; }\n";
    const char *text = "syntax = \"proto3\";\nimport \"dep.proto\";\nmessage M { dep.T t = 1; }\n";
    schema_ref_t r1 = {"dep.proto", "dep", 1, v1}, r2 = {"dep.proto", "dep", 2, v2},
                 r1b = {"dep.proto", "dep", 1, v2};
    char *error = NULL;
    proto_schema_t *o = proto_schema_new(text, strlen(text), &r1, 1, 0, NULL, &error);
    proto_schema_t *u = proto_schema_new(text, strlen(text), &r2, 1, 0, NULL, &error);
    proto_schema_t *same = proto_schema_new(text, strlen(text), &r1b, 1, 0, NULL, &error);
    assert_non_null(o);
    assert_non_null(u);
    assert_non_null(same);
    strlist_t changes = {0};
    assert_int_equal(proto_diff(o, u, &changes), 0);
    assert_int_equal(changes.n, 2);
    assert_string_equal(changes.items[0], "FIELD_SCALAR_KIND_CHANGED #/T/1");
    assert_string_equal(changes.items[1], "FIELD_NAMED_TYPE_CHANGED #/M/1");
    strlist_clear(&changes);
    /* Same subject and version: the imported type is not compared again. */
    assert_int_equal(proto_diff(o, same, &changes), 0);
    assert_int_equal(changes.n, 0);
    proto_schema_free(o);
    proto_schema_free(u);
    proto_schema_free(same);
}

/* Ten fields per level over twelve levels of imported types would be 10^11
 * comparisons done naively; each pair of types is compared once. */
static void test_diff_import_chain_is_linear(void **state)
{
    char d1[8192], d2[8192];
    int n1 = sprintf(d1, "syntax = \"proto3\"; package d; message C0 { int32 x = 1; }\n");
    int n2 = sprintf(d2, "syntax = \"proto3\"; package d; message C0 { string x = 1; }\n");
    for (int i = 1; i < 12; i++) {
        n1 += sprintf(d1 + n1, "message C%d {", i);
        n2 += sprintf(d2 + n2, "message C%d {", i);
        for (int f = 1; f <= 10; f++) {
            n1 += sprintf(d1 + n1, " C%d f%d = %d;", i - 1, f, f);
            n2 += sprintf(d2 + n2, " C%d f%d = %d;", i - 1, f, f);
        }
        n1 += sprintf(d1 + n1, "}\n");
        n2 += sprintf(d2 + n2, "}\n");
    }
    const char *text = P3 "import \"dep.proto\"; message M { d.C11 f = 1; }";
    schema_ref_t r1 = {"dep.proto", "dep", 1, d1}, r2 = {"dep.proto", "dep", 2, d2};
    char *error = NULL;
    proto_schema_t *o = proto_schema_new(text, strlen(text), &r1, 1, 0, NULL, &error);
    proto_schema_t *u = proto_schema_new(text, strlen(text), &r2, 1, 0, NULL, &error);
    assert_non_null(o);
    assert_non_null(u);
    strlist_t changes = {0};
    assert_int_equal(proto_diff(o, u, &changes), 0);
    /* C0/1 once, every field of C1..C11 once, and M's field. */
    assert_int_equal(changes.n, 1 + 11 * 10 + 1);
    assert_string_equal(changes.items[0], "FIELD_SCALAR_KIND_CHANGED #/C0/1");
    strlist_clear(&changes);
    proto_schema_free(o);
    proto_schema_free(u);
}

static void test_backward_messages(void **state)
{
    proto_schema_t *o = schema(P3 "package p; message M { int32 a = 1; }", 0, NULL);
    proto_schema_t *u = schema(P3 "package q; message M { string a = 1; int32 b = 2; }", 0, NULL);
    strlist_t messages = {0};
    assert_int_equal(proto_backward(u, o, &messages), 0);
    assert_int_equal(messages.n, 2);
    assert_string_equal(messages.items[0],
                        "{errorType:\"PACKAGE_CHANGED\", description:\"The package at '#/' in the %s "
                        "schema does not match the package in the %s schema\"}");
    assert_string_equal(messages.items[1],
                        "{errorType:\"FIELD_SCALAR_KIND_CHANGED\", description:\"The kind of a SCALAR "
                        "field at path '#/M/1' in the %s schema does not match its kind in the %s schema\"}");
    strlist_clear(&messages);
    proto_schema_free(o);
    proto_schema_free(u);
    /* Every incompatible type has its description; compatible ones have none. */
    for (int t = 0; t < PROTO_CHANGE_TYPE_COUNT; t++) {
        proto_change_t c = {(proto_change_type_t)t, "#/X"};
        char *m = proto_change_message(&c);
        int described = strstr(m, "description:\"\"") == NULL;
        int incompatible = !proto_change_is_compatible((proto_change_type_t)t);
        int exempt = t == PROTO_MESSAGE_ADDED || t == PROTO_FIELD_STRING_OR_BYTES_LABEL_CHANGED;
        if (incompatible)
            assert_true(described);
        else if (!exempt && t != PROTO_ONEOF_FIELD_MOVED_TO_TOP_LEVEL)
            assert_false(described);
        free(m);
    }
    assert_true(compatible(P3 "message M { int32 a = 1; }", P3 "message M { int64 a = 1; }"));
    assert_false(compatible(P3 "message M { int32 a = 1; }", P3 "message M { M a = 1; }"));
}

/* The backward check's shortcuts (proto_diff.c): two scalars resolve to nothing
 * unless some type is named like one (then the names resolve as before: an
 * enum "string" makes string a number), only incompatible changes are
 * recorded, and a field's number is spelled only in a recorded path. Each
 * pair lists every change, and the check the incompatible ones, in order. */
static void assert_backward(const char *original, const char *update, const char *const *want, size_t n)
{
    proto_schema_t *o = schema(original, 0, NULL), *u = schema(update, 0, NULL);
    strlist_t messages = {0};
    assert_int_equal(proto_backward(u, o, &messages), 0);
    for (size_t i = 0; i < messages.n; i++)
        fprintf(stderr, "  actual: %s\n", messages.items[i]);
    assert_int_equal(messages.n, n);
    for (size_t i = 0; i < n; i++)
        assert_non_null(strstr(messages.items[i], want[i]));
    strlist_clear(&messages);
    proto_schema_free(o);
    proto_schema_free(u);
}

static void test_backward_shortcuts_keep_the_diff(void **state)
{
    const char *shadowed = P3 "enum string { S = 0; } message M { string s = 1; bytes b = 2; }";
    const char *shadowed2 = P3 "enum string { S = 0; } message M { int32 s = 1; string b = 2; }";
    assert_changes(shadowed, shadowed2, "FIELD_SCALAR_KIND_CHANGED #/M/2", NULL);
    const char *want1[] = {
        "FIELD_SCALAR_KIND_CHANGED\", description:\"The kind of a SCALAR field at path '#/M/2'"};
    assert_backward(shadowed, shadowed2, want1, 1);
    const char *plain = P3 "message M { string s = 1; bytes b = 2; }";
    const char *plain2 = P3 "message M { int32 s = 1; string b = 2; }";
    assert_changes(plain, plain2, "FIELD_SCALAR_KIND_CHANGED #/M/1", NULL);
    const char *want2[] = {"'#/M/1'"};
    assert_backward(plain, plain2, want2, 1);
    /* A nested message named like a scalar is the message, as a field's type the scalar. */
    const char *nested = P3 "message M { message int64 { string x = 1; } int64 a = 1; }";
    const char *nested2 = P3 "message M { message int64 { int32 x = 1; } int64 a = 1; }";
    assert_changes(nested, nested2, "FIELD_SCALAR_KIND_CHANGED #/M/int64/1", NULL);
    const char *want3[] = {"'#/M/int64/1'"};
    assert_backward(nested, nested2, want3, 1);
    /* Fields out of number order, oneofs, enums: compatible changes listed by the
     * diff only. */
    const char *mixed = "message M { optional int32 z = 9; oneof o { string c = 7; int32 d = 3; }"
                        " required int32 a = 12; optional string q = 5; enum E { A = 0; B = 4; } }";
    const char *mixed2 = "message M { optional int32 z = 9; oneof o { int32 c = 7; } optional int32 d = 3;"
                         " repeated string q = 5; enum E { A = 0; C = 4; D = 6; } }";
    assert_changes(mixed, mixed2, "ONEOF_FIELD_MOVED_TO_TOP_LEVEL #/M/3",
                   "FIELD_STRING_OR_BYTES_LABEL_CHANGED #/M/5", "FIELD_SCALAR_KIND_CHANGED #/M/o/7",
                   "REQUIRED_FIELD_REMOVED #/M/12", "ENUM_CONST_CHANGED #/M/E/4", "ENUM_CONST_ADDED #/M/E/6",
                   NULL);
    const char *want4[] = {
        "FIELD_SCALAR_KIND_CHANGED\", description:\"The kind of a SCALAR field at path '#/M/o/7'",
        "REQUIRED_FIELD_REMOVED\", description:\"The %s schema is missing a required field at "
        "path: '#/M/12'"};
    assert_backward(mixed, mixed2, want4, 2);
}

/* Through compat/level.c: the role placeholders and the appendix. */
static void test_levels(void **state)
{
    char *error = NULL;
    const char *old_text = P3 "message M { int32 a = 1; }";
    const char *new_text = P3 "message M { int32 a = 1; } message N { string s = 1; }";
    schema_t *old = schema_parse(SCHEMA_PROTOBUF, old_text, strlen(old_text), NULL, 0, 0, &error);
    schema_t *cand = schema_parse(SCHEMA_PROTOBUF, new_text, strlen(new_text), NULL, 0, 0, &error);
    assert_non_null(old);
    assert_non_null(cand);
    compat_previous_t history[] = {{old, 1}};
    strlist_t messages = {0};
    /* Adding a message: BACKWARD fine, FORWARD sees it removed. */
    assert_int_equal(compat_check(COMPAT_BACKWARD, cand, history, 1, 0, &messages), 1);
    assert_int_equal(compat_check(COMPAT_FORWARD, cand, history, 1, 0, &messages), 0);
    assert_int_equal(messages.n, 4);
    assert_string_equal(messages.items[0],
                        "{errorType:\"MESSAGE_REMOVED\", description:\"The old schema is missing a "
                        "MESSAGE type at path '#/N' in the new schema\"}");
    assert_string_equal(messages.items[1], "{oldSchemaVersion: 1}");
    assert_string_equal(messages.items[3], "{validateFields: 'false', compatibility: 'FORWARD'}");
    strlist_clear(&messages);
    schema_free(old);
    schema_free(cand);
}

/* ---- Descriptors ------------------------------------------------------------------------ */

static void test_serialized_round_trip(void **state)
{
    /* Files written the way a descriptor reads back give identical text. */
    static const char *const files[] = {"scalars.proto", "nested.proto", "roundtrip.proto"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char *text = read_data(files[i]);
        char *canonical = NULL, *again = NULL, *error = NULL;
        proto_schema_t *s = schema(text, 0, &canonical);
        char *b64 = proto_schema_serialized(s);
        assert_non_null(b64);
        proto_schema_t *s2 = proto_schema_new(b64, strlen(b64), NULL, 0, 0, &again, &error);
        if (!s2)
            fail_msg("%s: %s", files[i], error);
        if (strcmp(canonical, again) != 0)
            fail_msg("%s: descriptor form prints differently:\n%s\n---\n%s", files[i], canonical, again);
        free(b64);
        free(again);
        free(canonical);
        proto_schema_free(s2);
        proto_schema_free(s);
        free(text);
    }
}

static void test_serialized_fixpoint(void **state)
{
    /* Where the descriptor cannot keep the spelling (defaults, option order,
     * (opt).field syntax), one trip settles it: a second changes nothing. */
    static const char *const files[] = {"legacy.proto", "options.proto", "edition.proto"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char *text = read_data(files[i]);
        proto_schema_t *s = schema(text, 0, NULL);
        char *b64 = proto_schema_serialized(s);
        assert_non_null(b64);
        char *once = NULL, *twice = NULL, *error = NULL;
        proto_schema_t *s1 = proto_schema_new(b64, strlen(b64), NULL, 0, 0, &once, &error);
        assert_non_null(s1);
        char *b64b = proto_schema_serialized(s1);
        assert_string_equal(b64, b64b); /* the descriptors agree byte for byte */
        proto_schema_t *s2 = proto_schema_new(b64b, strlen(b64b), NULL, 0, 0, &twice, &error);
        assert_non_null(s2);
        assert_string_equal(once, twice);
        free(once);
        free(twice);
        free(b64);
        free(b64b);
        proto_schema_free(s2);
        proto_schema_free(s1);
        proto_schema_free(s);
        free(text);
    }
}

static void test_serialized_details(void **state)
{
    /* protoc's spellings come back as the descriptor has them. */
    char *text = read_data("legacy.proto");
    proto_schema_t *s = schema(text, 0, NULL);
    char *b64 = proto_schema_serialized(s);
    char *canonical = NULL, *error = NULL;
    proto_schema_t *s2 = proto_schema_new(b64, strlen(b64), NULL, 0, 0, &canonical, &error);
    assert_non_null(s2);
    assert_non_null(strstr(canonical, "optional float ratio = 3 [default = 1000];"));
    assert_non_null(strstr(canonical, "optional int32 octal = 5 [default = 8];"));
    assert_non_null(strstr(canonical, "repeated group Result = 11 {"));
    assert_non_null(strstr(canonical, "extensions 100 to 199, 500, 1000 to max;"));
    free(canonical);
    free(b64);
    proto_schema_free(s2);
    proto_schema_free(s);
    free(text);
}

static void test_base64_strictness(void **state)
{
    size_t n = 0;
    uint8_t *b = proto_base64_decode("aGVsbG8=", 8, &n);
    assert_non_null(b);
    assert_int_equal(n, 5);
    assert_memory_equal(b, "hello", 5);
    free(b);
    assert_null(proto_base64_decode("aGVsbG8", 7, &n));   /* missing padding */
    assert_null(proto_base64_decode("aGV sbG8=", 9, &n)); /* whitespace */
    assert_null(proto_base64_decode("aG=sbG8=", 8, &n));  /* padding inside */
    char *e = proto_base64_encode((const uint8_t *)"hi", 2);
    assert_string_equal(e, "aGk=");
    free(e);
    /* Text that is not a schema and not a descriptor keeps the text error. */
    char *error = NULL;
    assert_null(proto_schema_new("bm90IGEgc2NoZW1h", 16, NULL, 0, 0, NULL, &error));
    assert_non_null(strstr(error, "Syntax error"));
    free(error);
}

/* ---- Robustness -------------------------------------------------------------------------- */

static uint32_t rng_state = 12345;

static uint32_t rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

/* Exercises everything a parsed schema offers. */
static void use_schema(proto_schema_t *s, proto_schema_t *other)
{
    char *error = NULL;
    char *t = proto_print(proto_schema_file(s), PROTO_PRINT_NORMALIZE, s, &error);
    free(t);
    free(error);
    t = proto_schema_serialized(s);
    free(t);
    strlist_t out = {0};
    proto_backward(s, other, &out);
    proto_backward(other, s, &out);
    strlist_clear(&out);
}

static void test_mangled_input_never_crashes(void **state)
{
    static const char *const files[] = {"nested.proto", "legacy.proto", "options.proto", "roundtrip.proto"};
    const char *tokens[] = {"{",       "}",     "[",   "]",  "(",  ")",  "<",  ">",   ";",
                            "=",       "\"",    "'",   ".",  "/*", "//", "\\", "map", "oneof",
                            "message", "group", "max", "to", "0x", "-",  "\n"};
    proto_schema_t *base = schema(P3 "message M { int32 a = 1; }", 0, NULL);
    size_t parsed = 0, rejected = 0;
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        char *text = read_data(files[f]);
        size_t len = strlen(text);
        for (int round = 0; round < 300; round++) {
            char *m = malloc(len + 64);
            memcpy(m, text, len + 1);
            size_t mlen = len;
            for (int k = 0; k < 1 + (int)(rng() % 4); k++) {
                size_t at = rng() % (mlen + 1);
                switch (rng() % 4) {
                case 0: /* truncate */ mlen = at; break;
                case 1: /* flip a byte */
                    if (at < mlen)
                        m[at] = (char)(rng() & 0xFF);
                    break;
                case 2: { /* insert a token */
                    const char *tok = tokens[rng() % (sizeof tokens / sizeof *tokens)];
                    size_t tl = strlen(tok);
                    if (mlen + tl < len + 60) {
                        memmove(m + at + tl, m + at, mlen - at);
                        memcpy(m + at, tok, tl);
                        mlen += tl;
                    }
                    break;
                }
                default: /* delete a span */
                    if (at < mlen) {
                        size_t span = rng() % 8;
                        span = span > mlen - at ? mlen - at : span;
                        memmove(m + at, m + at + span, mlen - at - span);
                        mlen -= span;
                    }
                }
            }
            char *canonical = NULL, *error = NULL;
            int flags = (int)(rng() % 4);
            proto_schema_t *s = proto_schema_new(m, mlen, NULL, 0, flags, &canonical, &error);
            if (s) {
                use_schema(s, base);
                parsed++;
            } else {
                assert_non_null(error);
                rejected++;
            }
            free(canonical);
            free(error);
            proto_schema_free(s);
            free(m);
        }
        free(text);
    }
    /* Random bytes that are valid base64 go through the descriptor reader. */
    for (int round = 0; round < 300; round++) {
        uint8_t bytes[64];
        size_t n = rng() % sizeof bytes;
        for (size_t i = 0; i < n; i++)
            bytes[i] = (uint8_t)rng();
        char *b64 = proto_base64_encode(bytes, n);
        char *canonical = NULL, *error = NULL;
        proto_schema_t *s = proto_schema_new(b64, strlen(b64), NULL, 0, 0, &canonical, &error);
        if (s)
            use_schema(s, base);
        free(canonical);
        free(error);
        proto_schema_free(s);
        free(b64);
    }
    /* Both outcomes must have been exercised for the test to mean anything. */
    printf("mangled inputs: %zu parsed, %zu rejected\n", parsed, rejected);
    assert_true(parsed > 0 && rejected > 0);
    proto_schema_free(base);
}

/* Confluent's ProtobufSchema.KNOWN_DEPENDENCIES: every file, and one type of
 * each (a message or an enum) that a schema importing it can use. */
static const struct {
    const char *path, *type;
    proto_symbol_kind_t kind;
} known_dependencies[] = {
    {"confluent/meta.proto", "confluent.Meta", PROTO_SYMBOL_MESSAGE},
    {"confluent/type/decimal.proto", "confluent.type.Decimal", PROTO_SYMBOL_MESSAGE},
    {"confluent/type/variant.proto", "confluent.type.Variant", PROTO_SYMBOL_MESSAGE},
    {"google/type/calendar_period.proto", "google.type.CalendarPeriod", PROTO_SYMBOL_ENUM},
    {"google/type/color.proto", "google.type.Color", PROTO_SYMBOL_MESSAGE},
    {"google/type/date.proto", "google.type.Date", PROTO_SYMBOL_MESSAGE},
    {"google/type/datetime.proto", "google.type.TimeZone", PROTO_SYMBOL_MESSAGE},
    {"google/type/dayofweek.proto", "google.type.DayOfWeek", PROTO_SYMBOL_ENUM},
    {"google/type/decimal.proto", "google.type.Decimal", PROTO_SYMBOL_MESSAGE},
    {"google/type/expr.proto", "google.type.Expr", PROTO_SYMBOL_MESSAGE},
    {"google/type/fraction.proto", "google.type.Fraction", PROTO_SYMBOL_MESSAGE},
    {"google/type/interval.proto", "google.type.Interval", PROTO_SYMBOL_MESSAGE},
    {"google/type/latlng.proto", "google.type.LatLng", PROTO_SYMBOL_MESSAGE},
    {"google/type/money.proto", "google.type.Money", PROTO_SYMBOL_MESSAGE},
    {"google/type/month.proto", "google.type.Month", PROTO_SYMBOL_ENUM},
    {"google/type/phone_number.proto", "google.type.PhoneNumber.ShortCode", PROTO_SYMBOL_MESSAGE},
    {"google/type/postal_address.proto", "google.type.PostalAddress", PROTO_SYMBOL_MESSAGE},
    {"google/type/quaternion.proto", "google.type.Quaternion", PROTO_SYMBOL_MESSAGE},
    {"google/type/timeofday.proto", "google.type.TimeOfDay", PROTO_SYMBOL_MESSAGE},
    {"google/protobuf/any.proto", "google.protobuf.Any", PROTO_SYMBOL_MESSAGE},
    {"google/protobuf/api.proto", "google.protobuf.Api", PROTO_SYMBOL_MESSAGE},
    {"google/protobuf/descriptor.proto", "google.protobuf.FileDescriptorProto", PROTO_SYMBOL_MESSAGE},
    {"google/protobuf/duration.proto", "google.protobuf.Duration", PROTO_SYMBOL_MESSAGE},
    {"google/protobuf/empty.proto", "google.protobuf.Empty", PROTO_SYMBOL_MESSAGE},
    {"google/protobuf/field_mask.proto", "google.protobuf.FieldMask", PROTO_SYMBOL_MESSAGE},
    {"google/protobuf/source_context.proto", "google.protobuf.SourceContext", PROTO_SYMBOL_MESSAGE},
    {"google/protobuf/struct.proto", "google.protobuf.NullValue", PROTO_SYMBOL_ENUM},
    {"google/protobuf/timestamp.proto", "google.protobuf.Timestamp", PROTO_SYMBOL_MESSAGE},
    {"google/protobuf/type.proto", "google.protobuf.Syntax", PROTO_SYMBOL_ENUM},
    {"google/protobuf/wrappers.proto", "google.protobuf.StringValue", PROTO_SYMBOL_MESSAGE},
};

#define N_KNOWN (sizeof known_dependencies / sizeof *known_dependencies)

static void test_builtins(void **state)
{
    size_t n = 0;
    for (const char *const *p = proto_builtin_paths(); *p; p++, n++)
        assert_non_null(proto_builtin_file(*p));
    assert_int_equal(n, N_KNOWN);
    for (size_t i = 0; i < N_KNOWN; i++)
        assert_non_null(proto_builtin_file(known_dependencies[i].path));
    assert_null(proto_builtin_file("google/type/localized_text.proto")); /* not in Confluent's list */
    assert_non_null(schema_engine(SCHEMA_PROTOBUF));
}

/* Each known dependency imported without a reference: the schema registers
 * (every type resolves), each type resolves to its kind, the descriptor names
 * it, and a change of the field's type is seen by the diff. */
static void test_builtins_are_usable(void **state)
{
    for (size_t i = 0; i < N_KNOWN; i++) {
        const char *path = known_dependencies[i].path, *type = known_dependencies[i].type;
        char text[512], changed[512];
        snprintf(text, sizeof text,
                 "syntax = \"proto3\";\npackage use;\n\nimport \"%s\";\n\n"
                 "message M {\n  %s v = 1;\n}\n",
                 path, type);
        snprintf(changed, sizeof changed,
                 "syntax = \"proto3\";\npackage use;\nimport \"%s\";\n"
                 "message M {\n  string v = 1;\n}\n",
                 path);
        char *canonical = NULL, *error = NULL;
        proto_schema_t *s =
            proto_schema_new(text, strlen(text), NULL, 0, SCHEMA_PARSE_NEW, &canonical, &error);
        if (!s)
            fail_msg("%s: %s", path, error);
        assert_string_equal(canonical, text);
        const proto_symbol_t *sym = proto_symtab_get(proto_schema_symtab(s), type, 0);
        assert_non_null(sym);
        assert_int_equal(sym->kind, known_dependencies[i].kind);
        assert_int_equal(sym->origin, PROTO_ORIGIN_BUILTIN);

        uint8_t *bytes = NULL;
        size_t len = 0;
        assert_int_equal(proto_descriptor_build(s, "use.proto", &bytes, &len, &error), 0);
        char dotted[160];
        snprintf(dotted, sizeof dotted, ".%s", type);
        assert_non_null(memmem(bytes, len, dotted, strlen(dotted)));
        assert_non_null(memmem(bytes, len, path, strlen(path)));
        free(bytes);

        proto_schema_t *u =
            proto_schema_new(changed, strlen(changed), NULL, 0, SCHEMA_PARSE_NEW, NULL, &error);
        assert_non_null(u);
        strlist_t changes = {0};
        assert_int_equal(proto_diff(s, u, &changes), 0);
        /* An enum is a scalar kind to Confluent's diff; a message is not. */
        assert_int_equal(changes.n, 1);
        assert_string_equal(changes.items[0], known_dependencies[i].kind == PROTO_SYMBOL_ENUM
                                                  ? "FIELD_SCALAR_KIND_CHANGED #/M/1"
                                                  : "FIELD_KIND_CHANGED #/M/1");
        strlist_clear(&changes);
        proto_schema_free(u);
        proto_schema_free(s);
        free(canonical);
        free(error);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_corpus),
        cmocka_unit_test(test_parse_model),
        cmocka_unit_test(test_parse_strings),
        cmocka_unit_test(test_parse_comments_everywhere),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_parse_depth_is_bounded),
        cmocka_unit_test(test_parse_edition),
        cmocka_unit_test(test_canonical_layout),
        cmocka_unit_test(test_canonical_options),
        cmocka_unit_test(test_canonical_always_reparses),
        cmocka_unit_test(test_canonical_proto2_groups_and_extensions),
        cmocka_unit_test(test_ignore_extensions),
        cmocka_unit_test(test_normalize),
        cmocka_unit_test(test_normalize_maps_and_merged_options),
        cmocka_unit_test(test_validation_of_new_schemas),
        cmocka_unit_test(test_references),
        cmocka_unit_test(test_number_normalization),
        cmocka_unit_test(test_diff_fields),
        cmocka_unit_test(test_diff_types),
        cmocka_unit_test(test_diff_types_and_enums),
        cmocka_unit_test(test_diff_oneofs),
        cmocka_unit_test(test_diff_maps_and_recursion),
        cmocka_unit_test(test_diff_imported_types),
        cmocka_unit_test(test_diff_import_chain_is_linear),
        cmocka_unit_test(test_backward_messages),
        cmocka_unit_test(test_backward_shortcuts_keep_the_diff),
        cmocka_unit_test(test_levels),
        cmocka_unit_test(test_serialized_round_trip),
        cmocka_unit_test(test_serialized_fixpoint),
        cmocka_unit_test(test_serialized_details),
        cmocka_unit_test(test_base64_strictness),
        cmocka_unit_test(test_mangled_input_never_crashes),
        cmocka_unit_test(test_builtins),
        cmocka_unit_test(test_builtins_are_usable),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
