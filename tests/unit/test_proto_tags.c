/*
 * Inline tag edits and listings of the Protobuf engine (compat/protobuf/proto_tags.c)
 * against Confluent's ProtobufSchemaTest (testBasicAddAndRemoveSchemaTags,
 * testAddDuplicateTags, testComplexRemove, testOptionalOneOfFieldName,
 * testInvalidPath): the same schema, the same SchemaEntity edits, the same
 * canonical text and inlineTaggedEntities.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "compat/schema.h"

static strlist_t one(const char *a)
{
    strlist_t l = {0};
    strlist_push(&l, a);
    return l;
}

/* The canonical text of the edit of text (as registering it stores it), or NULL with *error. */
static char *edit(const char *text, const schema_tag_edit_t *edits, size_t n, char **error)
{
    char *out = schema_tags_edit(SCHEMA_PROTOBUF, text, strlen(text), edits, n, error);
    if (!out)
        return NULL;
    char *perr = NULL;
    schema_t *s = schema_parse(SCHEMA_PROTOBUF, out, strlen(out), NULL, 0, SCHEMA_PARSE_NEW, &perr);
    if (!s)
        fail_msg("edited text does not register: %s\n%s", perr, out);
    free(out);
    char *canonical = strdup(schema_canonical(s));
    schema_free(s);
    return canonical;
}

/* "path kind tag,tag;" for every entity schema_tagged lists, in its order. */
static char *tagged(const char *text)
{
    char *perr = NULL;
    schema_t *s = schema_parse(SCHEMA_PROTOBUF, text, strlen(text), NULL, 0, 0, &perr);
    assert_non_null(s);
    schema_tagged_t *t;
    size_t n;
    assert_int_equal(schema_tagged(s, &t, &n), 0);
    strbuf_t b = {0};
    for (size_t i = 0; i < n; i++) {
        strbuf_printf(&b, "%s %s ", t[i].path, t[i].kind == SCHEMA_ENTITY_RECORD ? "sr_record" : "sr_field");
        for (size_t j = 0; j < t[i].tags.n; j++)
            strbuf_printf(&b, "%s%s", j ? "," : "", t[i].tags.items[j]);
        strbuf_puts(&b, ";");
    }
    schema_tagged_free(t, n);
    schema_free(s);
    return strbuf_take(&b);
}

#define BASIC                                                                                                \
    "syntax = \"proto3\";\n"                                                                                 \
    "package com.example.mynamespace;\n"                                                                     \
    "\n"                                                                                                     \
    "import \"confluent/meta.proto\";\n"                                                                     \
    "import \"confluent/type/decimal.proto\";\n"                                                             \
    "\n"                                                                                                     \
    "option java_package = \"io.confluent.kafka.serializers.protobuf.test\";\n"                              \
    "option java_outer_classname = \"ComplexProto\";\n"                                                      \
    "option (confluent.file_meta).tags = \"FILE\";\n"                                                        \
    "\n"                                                                                                     \
    "message SampleRecord {\n"                                                                               \
    "  option (confluent.message_meta).tags = \"OTHER\";\n"                                                  \
    "\n"                                                                                                     \
    "  int32 my_field1 = 1 [\n"                                                                              \
    "    (confluent.field_meta).tags = \"OTHER\",\n"                                                         \
    "    (confluent.field_meta).tags = \"PRIVATE\"\n"                                                        \
    "  ];\n"                                                                                                 \
    "  double my_field2 = 2 [(confluent.field_meta) = {\n"                                                   \
    "    tags: [ \"PRIVATE\" ]\n"                                                                            \
    "  }];\n"                                                                                                \
    "  NestedRecord my_field3 = 3 [(confluent.field_meta) = {\n"                                             \
    "    doc: \"field_meta\"\n"                                                                              \
    "  }];\n"                                                                                                \
    "\n"                                                                                                     \
    "  message NestedRecord {\n"                                                                             \
    "    int64 nested_filed1 = 4;\n"                                                                         \
    "  }\n"                                                                                                  \
    "  enum Kind {\n"                                                                                        \
    "    option (confluent.enum_meta).tags = \"ENUM\";\n"                                                    \
    "    APPLE = 6 [(confluent.enum_value_meta) = {\n"                                                       \
    "      tags: [\n"                                                                                        \
    "        \"CONST\"\n"                                                                                    \
    "      ]\n"                                                                                              \
    "    }];\n"                                                                                              \
    "    BANANA = 7;\n"                                                                                      \
    "  }\n"                                                                                                  \
    "}\n"

#define HEAD                                                                                                 \
    "syntax = \"proto3\";\n"                                                                                 \
    "package com.example.mynamespace;\n"                                                                     \
    "\n"                                                                                                     \
    "import \"confluent/meta.proto\";\n"                                                                     \
    "import \"confluent/type/decimal.proto\";\n"                                                             \
    "\n"                                                                                                     \
    "option java_package = \"io.confluent.kafka.serializers.protobuf.test\";\n"                              \
    "option java_outer_classname = \"ComplexProto\";\n"

#define KIND_ENUM                                                                                            \
    "  enum Kind {\n"                                                                                        \
    "    option (confluent.enum_meta).tags = \"ENUM\";\n"                                                    \
    "    APPLE = 6 [(confluent.enum_value_meta) = {\n"                                                       \
    "      tags: [\n"                                                                                        \
    "        \"CONST\"\n"                                                                                    \
    "      ]\n"                                                                                              \
    "    }];\n"                                                                                              \
    "    BANANA = 7;\n"                                                                                      \
    "  }\n"                                                                                                  \
    "}\n"

/* ProtobufSchemaTest.testBasicAddAndRemoveSchemaTags: expectedString, then removedTagSchema. */
static void test_basic_add_and_remove(void **state)
{
    (void)state;
    strlist_t pii = one("PII");
    schema_tag_edit_t add[] = {
        {".SampleRecord.my_field1", SCHEMA_ENTITY_FIELD, &pii, NULL},
        {".SampleRecord.my_field2", SCHEMA_ENTITY_FIELD, &pii, NULL},
        {".SampleRecord.my_field3", SCHEMA_ENTITY_FIELD, &pii, NULL},
        {".SampleRecord.NestedRecord.nested_filed1", SCHEMA_ENTITY_FIELD, &pii, NULL},
        {".SampleRecord", SCHEMA_ENTITY_RECORD, &pii, NULL},
        {".SampleRecord.NestedRecord", SCHEMA_ENTITY_RECORD, &pii, NULL},
    };
    char *error = NULL;
    char *added = edit(BASIC, add, 6, &error);
    assert_string_equal(added, HEAD "option (confluent.file_meta).tags = \"FILE\";\n"
                                    "\n"
                                    "message SampleRecord {\n"
                                    "  option (confluent.message_meta) = {\n"
                                    "    tags: [\n"
                                    "      \"OTHER\",\n"
                                    "      \"PII\"\n"
                                    "    ]\n"
                                    "  };\n"
                                    "\n"
                                    "  int32 my_field1 = 1 [(confluent.field_meta) = {\n"
                                    "    tags: [\n"
                                    "      \"OTHER\",\n"
                                    "      \"PRIVATE\",\n"
                                    "      \"PII\"\n"
                                    "    ]\n"
                                    "  }];\n"
                                    "  double my_field2 = 2 [(confluent.field_meta) = {\n"
                                    "    tags: [\n"
                                    "      \"PRIVATE\",\n"
                                    "      \"PII\"\n"
                                    "    ]\n"
                                    "  }];\n"
                                    "  NestedRecord my_field3 = 3 [(confluent.field_meta) = {\n"
                                    "    doc: \"field_meta\",\n"
                                    "    tags: [\n"
                                    "      \"PII\"\n"
                                    "    ]\n"
                                    "  }];\n"
                                    "\n"
                                    "  message NestedRecord {\n"
                                    "    option (confluent.message_meta) = {\n"
                                    "      tags: [\n"
                                    "        \"PII\"\n"
                                    "      ]\n"
                                    "    };\n"
                                    "  \n"
                                    "    int64 nested_filed1 = 4 [(confluent.field_meta) = {\n"
                                    "      tags: [\n"
                                    "        \"PII\"\n"
                                    "      ]\n"
                                    "    }];\n"
                                    "  }\n" KIND_ENUM);
    /* inlineTaggedEntities: a LinkedHashMap filled message, oneof members,
     * fields, nested messages; paths without the package. */
    char *list = tagged(added);
    assert_string_equal(list, "SampleRecord sr_record OTHER,PII;"
                              "SampleRecord.my_field1 sr_field OTHER,PRIVATE,PII;"
                              "SampleRecord.my_field2 sr_field PRIVATE,PII;"
                              "SampleRecord.my_field3 sr_field PII;"
                              "SampleRecord.NestedRecord sr_record PII;"
                              "SampleRecord.NestedRecord.nested_filed1 sr_field PII;");
    free(list);

    strlist_t other = one("OTHER"), priv = one("PRIVATE"), none = one("DOES_NOT_EXIST");
    schema_tag_edit_t rm[] = {
        {".SampleRecord.my_field1", SCHEMA_ENTITY_FIELD, NULL, &other},
        {".SampleRecord.my_field2", SCHEMA_ENTITY_FIELD, NULL, &priv},
        {".SampleRecord.my_field3", SCHEMA_ENTITY_FIELD, NULL, &pii},
        {".SampleRecord.NestedRecord.nested_filed1", SCHEMA_ENTITY_FIELD, NULL, &none},
        {".SampleRecord", SCHEMA_ENTITY_RECORD, NULL, &other},
        {".SampleRecord.NestedRecord", SCHEMA_ENTITY_RECORD, NULL, &pii},
    };
    char *removed = edit(added, rm, 6, &error);
    assert_string_equal(removed, HEAD "option (confluent.file_meta).tags = \"FILE\";\n"
                                      "\n"
                                      "message SampleRecord {\n"
                                      "  option (confluent.message_meta) = {\n"
                                      "    tags: [\n"
                                      "      \"PII\"\n"
                                      "    ]\n"
                                      "  };\n"
                                      "\n"
                                      "  int32 my_field1 = 1 [(confluent.field_meta) = {\n"
                                      "    tags: [\n"
                                      "      \"PRIVATE\",\n"
                                      "      \"PII\"\n"
                                      "    ]\n"
                                      "  }];\n"
                                      "  double my_field2 = 2 [(confluent.field_meta) = {\n"
                                      "    tags: [\n"
                                      "      \"PII\"\n"
                                      "    ]\n"
                                      "  }];\n"
                                      "  NestedRecord my_field3 = 3 [(confluent.field_meta) = {\n"
                                      "    doc: \"field_meta\"\n"
                                      "  }];\n"
                                      "\n"
                                      "  message NestedRecord {\n"
                                      "    int64 nested_filed1 = 4 [(confluent.field_meta) = {\n"
                                      "      tags: [\n"
                                      "        \"PII\"\n"
                                      "      ]\n"
                                      "    }];\n"
                                      "  }\n" KIND_ENUM);
    free(added);
    free(removed);
    strlist_clear(&pii);
    strlist_clear(&other);
    strlist_clear(&priv);
    strlist_clear(&none);
}

/* ProtobufSchemaTest.testAddDuplicateTags: `.tags = "PRIVATE"` plus PRIVATE is one tag, as an aggregate. */
static void test_add_duplicate(void **state)
{
    (void)state;
    const char *text = HEAD "\n"
                            "message SampleRecord {\n"
                            "  int32 my_field1 = 1 [(confluent.field_meta).tags = \"PRIVATE\"];\n"
                            "}\n";
    strlist_t priv = one("PRIVATE");
    schema_tag_edit_t e = {".SampleRecord.my_field1", SCHEMA_ENTITY_FIELD, &priv, NULL};
    char *error = NULL;
    char *out = edit(text, &e, 1, &error);
    assert_string_equal(out, HEAD "\n"
                                  "message SampleRecord {\n"
                                  "  int32 my_field1 = 1 [(confluent.field_meta) = {\n"
                                  "    tags: [\n"
                                  "      \"PRIVATE\"\n"
                                  "    ]\n"
                                  "  }];\n"
                                  "}\n");
    free(out);
    strlist_clear(&priv);
}

/* ProtobufSchemaTest.testComplexRemove: afterRemovedTag. */
static void test_complex_remove(void **state)
{
    (void)state;
    const char *text = HEAD "\n"
                            "message SampleRecord {\n"
                            "  int32 my_field1 = 1 [(confluent.field_meta).tags = \"PRIVATE\"];\n"
                            "  double my_field2 = 2 [(confluent.field_meta) = {\n"
                            "    doc: \"no tag\"\n"
                            "  }];\n"
                            "  NestedRecord my_field3 = 3 [(confluent.field_meta) = {\n"
                            "    doc: \"field_meta\",\n"
                            "    tags: [\n"
                            "      \"PII\",\n"
                            "      \"PRIVATE\"\n"
                            "    ]\n"
                            "  }];\n"
                            "  int32 my_field4 = 5 [\n"
                            "    otherOption = \"foo\",\n"
                            "    (confluent.field_meta).tags = \"PRIVATE\"\n"
                            "  ];\n"
                            "  oneof some_val {\n"
                            "    int32 other_id = 11 [(confluent.field_meta).tags = \"PRIVATE\"];\n"
                            "    string one_id = 12;\n"
                            "  }\n"
                            "\n"
                            "  message NestedRecord {\n"
                            "    int64 nested_filed1 = 4 [(confluent.field_meta).tags = [\"PII\"]];\n"
                            "  }\n"
                            "}\n";
    strlist_t priv = one("PRIVATE");
    schema_tag_edit_t rm[] = {
        {".SampleRecord.my_field1", SCHEMA_ENTITY_FIELD, NULL, &priv},
        {".SampleRecord.my_field2", SCHEMA_ENTITY_FIELD, NULL, &priv},
        {".SampleRecord.my_field3", SCHEMA_ENTITY_FIELD, NULL, &priv},
        {".SampleRecord.my_field4", SCHEMA_ENTITY_FIELD, NULL, &priv},
        {".SampleRecord.NestedRecord.nested_filed1", SCHEMA_ENTITY_FIELD, NULL, &priv},
        {".SampleRecord.some_val.other_id", SCHEMA_ENTITY_FIELD, NULL, &priv},
    };
    char *error = NULL;
    /* The edited text: otherOption is not a known option, so only the check-free parse here. */
    char *out = schema_tags_edit(SCHEMA_PROTOBUF, text, strlen(text), rm, 6, &error);
    assert_non_null(out);
    schema_t *s = schema_parse(SCHEMA_PROTOBUF, out, strlen(out), NULL, 0, 0, &error);
    assert_non_null(s);
    assert_string_equal(schema_canonical(s), HEAD "\n"
                                                  "message SampleRecord {\n"
                                                  "  int32 my_field1 = 1;\n"
                                                  "  double my_field2 = 2 [(confluent.field_meta) = {\n"
                                                  "    doc: \"no tag\"\n"
                                                  "  }];\n"
                                                  "  NestedRecord my_field3 = 3 [(confluent.field_meta) = {\n"
                                                  "    doc: \"field_meta\",\n"
                                                  "    tags: [\n"
                                                  "      \"PII\"\n"
                                                  "    ]\n"
                                                  "  }];\n"
                                                  "  int32 my_field4 = 5 [otherOption = \"foo\"];\n"
                                                  "\n"
                                                  "  oneof some_val {\n"
                                                  "    int32 other_id = 11;\n"
                                                  "    string one_id = 12;\n"
                                                  "  }\n"
                                                  "\n"
                                                  "  message NestedRecord {\n"
                                                  "    int64 nested_filed1 = 4 [(confluent.field_meta) = {\n"
                                                  "      tags: [\n"
                                                  "        \"PII\"\n"
                                                  "      ]\n"
                                                  "    }];\n"
                                                  "  }\n"
                                                  "}\n");
    schema_free(s);
    free(out);
    strlist_clear(&priv);
}

/* ProtobufSchemaTest.testOptionalOneOfFieldName: a oneof member by "M.f" and by
 * "M.oneof.f" is one field; the second edit adds to what the first left. */
static void test_oneof_member_paths(void **state)
{
    (void)state;
    const char *text = "syntax = \"proto3\";\n"
                       "package com.example.mynamespace;\n"
                       "\n"
                       "message SampleRecord {\n"
                       "  oneof test_oneof {\n"
                       "    string f1 = 1;\n"
                       "    int32 f2 = 2;\n"
                       "  }\n"
                       "}\n";
    strlist_t t1 = one("TAG1"), t2 = one("TAG2"), t3 = one("TAG3"), t4 = one("TAG4");
    schema_tag_edit_t e[] = {
        {".SampleRecord.f1", SCHEMA_ENTITY_FIELD, &t1, NULL},
        {".SampleRecord.test_oneof.f1", SCHEMA_ENTITY_FIELD, &t2, NULL},
        {"SampleRecord.f2", SCHEMA_ENTITY_FIELD, &t3, NULL},
        {"SampleRecord.test_oneof.f2", SCHEMA_ENTITY_FIELD, &t4, NULL},
    };
    char *error = NULL;
    char *out = edit(text, e, 4, &error);
    assert_string_equal(out, "syntax = \"proto3\";\n"
                             "package com.example.mynamespace;\n"
                             "\n"
                             "message SampleRecord {\n"
                             "  oneof test_oneof {\n"
                             "    string f1 = 1 [(confluent.field_meta) = {\n"
                             "      tags: [\n"
                             "        \"TAG1\",\n"
                             "        \"TAG2\"\n"
                             "      ]\n"
                             "    }];\n"
                             "    int32 f2 = 2 [(confluent.field_meta) = {\n"
                             "      tags: [\n"
                             "        \"TAG3\",\n"
                             "        \"TAG4\"\n"
                             "      ]\n"
                             "    }];\n"
                             "  }\n"
                             "}\n");
    /* Oneof members are listed before the other fields. */
    char *list = tagged(out);
    assert_string_equal(list, "SampleRecord.f1 sr_field TAG1,TAG2;SampleRecord.f2 sr_field TAG3,TAG4;");
    free(list);
    free(out);
    strlist_clear(&t1);
    strlist_clear(&t2);
    strlist_clear(&t3);
    strlist_clear(&t4);
}

/* ProtobufSchemaTest.testInvalidPath: each an IllegalArgumentException, with
 * ProtobufSchemaUtils.findMatchingElement's message. */
static void test_invalid_paths(void **state)
{
    (void)state;
    const char *text = "syntax = \"proto3\";\n"
                       "package com.example.mynamespace;\n"
                       "\n"
                       "message SampleRecord {\n"
                       "  oneof test_oneof {\n"
                       "    string f1 = 1;\n"
                       "    int32 test_oneof = 2;\n"
                       "  }\n"
                       "}\n";
    static const struct {
        const char *path;
        schema_entity_kind_t kind;
        const char *message;
    } cases[] = {
        {"SampleRecord", SCHEMA_ENTITY_FIELD,
         "No matching Field with name 'SampleRecord' found in the schema"},
        {"SampleRecord.bad_oneof.f1", SCHEMA_ENTITY_FIELD,
         "No matching Field with name 'f1' found in the schema"},
        {"SampleRecord.f3", SCHEMA_ENTITY_FIELD, "No matching Field with name 'f3' found in the schema"},
        {"badRecord", SCHEMA_ENTITY_RECORD, "No matching Message with name 'badRecord' found in the schema"},
        {"..SampleRecord", SCHEMA_ENTITY_RECORD, "No matching Message with name '' found in the schema"},
        {".SampleRecord.f1", SCHEMA_ENTITY_RECORD, "No matching Message with name 'f1' found in the schema"},
        {"com.example.mynamespace.SampleRecord", SCHEMA_ENTITY_RECORD,
         "No matching Message with name 'com' found in the schema"},
    };
    strlist_t t1 = one("TAG1");
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        schema_tag_edit_t e = {cases[i].path, cases[i].kind, &t1, NULL};
        char *error = NULL;
        assert_null(schema_tags_edit(SCHEMA_PROTOBUF, text, strlen(text), &e, 1, &error));
        assert_non_null(error);
        assert_string_equal(error, cases[i].message);
        free(error);
    }
    strlist_clear(&t1);
}

/*
 * ProtobufSchema.mergeOptions collects an edited element's options into a
 * HashMap, and the element gets its values() back: here "confluent.field_meta"
 * (bucket 2 of 16) comes before "deprecated" (bucket 7) whatever the order
 * written, and `(a).b = x` comes back as an aggregate.
 */
static void test_edited_options_in_hashmap_order(void **state)
{
    (void)state;
    const char *text = "syntax = \"proto3\";\n"
                       "\n"
                       "import \"confluent/meta.proto\";\n"
                       "\n"
                       "message M {\n"
                       "  string a = 1 [deprecated = true, (confluent.field_meta).doc = \"d\"];\n"
                       "  string b = 2 [deprecated = true];\n"
                       "}\n";
    strlist_t pii = one("PII");
    schema_tag_edit_t e = {"M.a", SCHEMA_ENTITY_FIELD, &pii, NULL};
    char *error = NULL;
    char *out = edit(text, &e, 1, &error);
    assert_string_equal(out, "syntax = \"proto3\";\n"
                             "\n"
                             "import \"confluent/meta.proto\";\n"
                             "\n"
                             "message M {\n"
                             "  string a = 1 [\n"
                             "    (confluent.field_meta) = {\n"
                             "      doc: \"d\",\n"
                             "      tags: [\n"
                             "        \"PII\"\n"
                             "      ]\n"
                             "    },\n"
                             "    deprecated = true\n"
                             "  ];\n"
                             "  string b = 2 [deprecated = true];\n"
                             "}\n");
    free(out);
    strlist_clear(&pii);
}

/* A registration's schema sent as a base64 FileDescriptorProto (format=serialized)
 * is edited as the .proto text it stands for (protobuf.RestApiTest.testRegisterSchemaTagsBasic's schema). */
static void test_serialized_schema(void **state)
{
    (void)state;
    const char *text =
        "syntax = \"proto3\";\npackage com.example;\n\nmessage Message1 {\n  string f1 = 1;\n  "
        "string f2 = 2;\n}\n";
    char *perr = NULL;
    schema_t *s = schema_parse(SCHEMA_PROTOBUF, text, strlen(text), NULL, 0, 0, &perr);
    assert_non_null(s);
    char *b64 = schema_format(s, "serialized");
    schema_free(s);
    assert_non_null(b64);
    strlist_t t1 = one("TAG1");
    schema_tag_edit_t e = {"Message1.f1", SCHEMA_ENTITY_FIELD, &t1, NULL};
    char *error = NULL;
    char *out = edit(b64, &e, 1, &error);
    assert_string_equal(
        out, "syntax = \"proto3\";\npackage com.example;\n\nmessage Message1 {\n"
             "  string f1 = 1 [(confluent.field_meta) = {\n    tags: [\n      \"TAG1\"\n    ]\n  }];\n"
             "  string f2 = 2;\n}\n");
    free(out);
    free(b64);
    strlist_clear(&t1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_basic_add_and_remove), cmocka_unit_test(test_add_duplicate),
        cmocka_unit_test(test_complex_remove),       cmocka_unit_test(test_oneof_member_paths),
        cmocka_unit_test(test_invalid_paths),        cmocka_unit_test(test_edited_options_in_hashmap_order),
        cmocka_unit_test(test_serialized_schema),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
