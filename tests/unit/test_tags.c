/*
 * Inline tag edits and listings of the engines (compat/schema.h, section 5),
 * against what Confluent's AvroSchema and JsonSchema give for the same
 * TagSchemaRequest (ParsedSchema.copy(tagsToAdd, tagsToRemove),
 * AvroSchemaUtils/JsonSchemaUtils.findMatchingEntity, inlineTaggedEntities).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compat/schema.h"

#define REC "{\"type\":\"record\",\"name\":\"myrecord\",\"fields\":[{\"name\":\"f1\",\"type\":\"string\"}]}"

static strlist_t list_of(const char *a, const char *b)
{
    strlist_t l = {0};
    if (a)
        strlist_push(&l, a);
    if (b)
        strlist_push(&l, b);
    return l;
}

/* The canonical text of type's edit of text, or NULL with *error. */
static char *edit(schema_type_t type, const char *text, const schema_tag_edit_t *edits, size_t n,
                  char **error)
{
    char *out = schema_tags_edit(type, text, strlen(text), edits, n, error);
    if (!out)
        return NULL;
    char *perr = NULL;
    schema_t *s = schema_parse(type, out, strlen(out), NULL, 0, 0, &perr);
    free(out);
    assert_non_null(s);
    char *canonical = strdup(schema_canonical(s));
    schema_free(s);
    return canonical;
}

/* RestApiRegisterSchemaTagsTest.testRegisterSchemaTagsBasic: record tags after the fields. */
static void test_avro_record_tags_add_then_remove(void **state)
{
    (void)state;
    strlist_t add = list_of("TAG1", "TAG2"), remove = list_of("TAG2", NULL);
    schema_tag_edit_t e = {"myrecord", SCHEMA_ENTITY_RECORD, &add, NULL};
    char *error = NULL;
    char *out = edit(SCHEMA_AVRO, REC, &e, 1, &error);
    assert_string_equal(out,
                        "{\"type\":\"record\",\"name\":\"myrecord\",\"fields\":[{\"name\":\"f1\",\"type\":"
                        "\"string\"}],\"confluent:tags\":[\"TAG1\",\"TAG2\"]}");
    schema_tag_edit_t r = {"myrecord", SCHEMA_ENTITY_RECORD, NULL, &remove};
    char *again = edit(SCHEMA_AVRO, out, &r, 1, &error);
    assert_string_equal(again,
                        "{\"type\":\"record\",\"name\":\"myrecord\",\"fields\":[{\"name\":\"f1\",\"type\":"
                        "\"string\"}],\"confluent:tags\":[\"TAG1\"]}");
    /* Removing the last tag removes the property. */
    strlist_t one = list_of("TAG1", NULL);
    schema_tag_edit_t last = {"myrecord", SCHEMA_ENTITY_RECORD, NULL, &one};
    char *bare = edit(SCHEMA_AVRO, again, &last, 1, &error);
    assert_string_equal(bare, REC);
    /* Add and remove of the same tag in one edit: added, then removed. */
    schema_tag_edit_t both = {"myrecord", SCHEMA_ENTITY_RECORD, &add, &remove};
    char *mixed = edit(SCHEMA_AVRO, REC, &both, 1, &error);
    assert_non_null(strstr(mixed, "\"confluent:tags\":[\"TAG1\"]"));
    free(out);
    free(again);
    free(bare);
    free(mixed);
    strlist_clear(&add);
    strlist_clear(&remove);
    strlist_clear(&one);
}

static void test_avro_field_and_nested_paths(void **state)
{
    (void)state;
    const char *text =
        "{\"type\":\"record\",\"name\":\"R\",\"namespace\":\"com.x\",\"fields\":["
        "{\"name\":\"a\",\"type\":\"string\"},"
        "{\"name\":\"n\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"Inner\",\"fields\":["
        "{\"name\":\"b\",\"type\":{\"type\":\"array\",\"items\":\"int\"}}]}]}]}";
    strlist_t pii = list_of("PII", NULL);
    char *error = NULL;
    /* The namespace of the path is the top-level one, for nested records too. */
    schema_tag_edit_t edits[] = {{"com.x.R.a", SCHEMA_ENTITY_FIELD, &pii, NULL},
                                 {"com.x.Inner.b", SCHEMA_ENTITY_FIELD, &pii, NULL},
                                 {"Inner", SCHEMA_ENTITY_RECORD, &pii, NULL}};
    char *out = edit(SCHEMA_AVRO, text, edits, 3, &error);
    assert_non_null(out);
    assert_non_null(strstr(out, "{\"name\":\"a\",\"type\":\"string\",\"confluent:tags\":[\"PII\"]}"));
    assert_non_null(strstr(out, "\"items\":\"int\"},\"confluent:tags\":[\"PII\"]}]"));
    assert_non_null(strstr(out, "}],\"confluent:tags\":[\"PII\"]}]}]}"));

    /* The listing, in inlineTaggedEntities' order (depth first from the root). */
    schema_t *s = schema_parse(SCHEMA_AVRO, out, strlen(out), NULL, 0, 0, &error);
    assert_non_null(s);
    schema_tagged_t *t;
    size_t n;
    assert_int_equal(schema_tagged(s, &t, &n), 0);
    assert_int_equal(n, 3);
    assert_string_equal(t[0].path, "com.x.R.a");
    assert_int_equal(t[0].kind, SCHEMA_ENTITY_FIELD);
    assert_string_equal(t[1].path, "com.x.Inner");
    assert_int_equal(t[1].kind, SCHEMA_ENTITY_RECORD);
    assert_string_equal(t[2].path, "com.x.Inner.b");
    assert_string_equal(t[2].tags.items[0], "PII");
    schema_tagged_free(t, n);
    schema_free(s);
    free(out);

    /* Paths that lead nowhere, with Confluent's messages. */
    schema_tag_edit_t bad = {"does.not.exist", SCHEMA_ENTITY_FIELD, &pii, NULL};
    assert_null(edit(SCHEMA_AVRO, text, &bad, 1, &error));
    assert_string_equal(error, "No matching path 'does.not.exist' found in the schema");
    free(error);
    schema_tag_edit_t wrong_ns = {"org.R.a", SCHEMA_ENTITY_FIELD, &pii, NULL};
    assert_null(edit(SCHEMA_AVRO, text, &wrong_ns, 1, &error));
    free(error);
    schema_tag_edit_t short_field = {"a", SCHEMA_ENTITY_FIELD, &pii, NULL};
    assert_null(edit(SCHEMA_AVRO, text, &short_field, 1, &error));
    assert_string_equal(error, "0 > -1"); /* Arrays.copyOfRange(ids, 0, -1) */
    free(error);
    strlist_clear(&pii);
}

static void test_json_schema_paths(void **state)
{
    (void)state;
    const char *text =
        "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"},"
        "\"addr\":{\"type\":\"object\",\"properties\":{\"zip.code\":{\"type\":\"string\"}}},"
        "\"list\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{\"x\":{}}}}},"
        "\"definitions\":{\"D\":{\"type\":\"object\",\"properties\":{\"y\":{\"type\":\"integer\"}}}}}";
    strlist_t pii = list_of("PII", "X");
    char *error = NULL;
    schema_tag_edit_t edits[] = {
        {"object", SCHEMA_ENTITY_RECORD, &pii, NULL},
        {"object.a", SCHEMA_ENTITY_FIELD, &pii, NULL},
        {"object.addr.object.zip.code", SCHEMA_ENTITY_FIELD, &pii, NULL},
        {"object.list.array.object.x", SCHEMA_ENTITY_FIELD, &pii, NULL},
        {"object.definitions.D.object.y", SCHEMA_ENTITY_FIELD, &pii, NULL},
    };
    char *out = edit(SCHEMA_JSON, text, edits, 5, &error);
    assert_non_null(out);
    assert_non_null(strstr(out, "\"a\":{\"type\":\"string\",\"confluent:tags\":[\"PII\",\"X\"]}"));
    assert_non_null(strstr(out, "\"zip.code\":{\"type\":\"string\",\"confluent:tags\":[\"PII\",\"X\"]}"));
    assert_non_null(strstr(out, "\"x\":{\"confluent:tags\":[\"PII\",\"X\"]}"));
    assert_non_null(strstr(out, "\"y\":{\"type\":\"integer\",\"confluent:tags\":[\"PII\",\"X\"]}"));
    size_t len = strlen(out);
    assert_string_equal(out + len - strlen(",\"confluent:tags\":[\"PII\",\"X\"]}"),
                        ",\"confluent:tags\":[\"PII\",\"X\"]}");

    /* Removing keeps the others in place. */
    strlist_t x = list_of("X", NULL);
    schema_tag_edit_t rm = {"object.a", SCHEMA_ENTITY_FIELD, NULL, &x};
    char *less = edit(SCHEMA_JSON, out, &rm, 1, &error);
    assert_non_null(strstr(less, "\"a\":{\"type\":\"string\",\"confluent:tags\":[\"PII\"]}"));
    assert_non_null(strstr(less, "\"x\":{\"confluent:tags\":[\"PII\",\"X\"]}"));
    free(less);

    schema_tag_edit_t bad = {"object.nope", SCHEMA_ENTITY_FIELD, &pii, NULL};
    assert_null(edit(SCHEMA_JSON, text, &bad, 1, &error));
    assert_string_equal(error, "No matching path 'object.nope' found in the schema");
    free(error);
    /* JsonSchemaUtils splits the path as sent: a leading "." is an empty first step. */
    schema_tag_edit_t dotted = {".object.a", SCHEMA_ENTITY_FIELD, &pii, NULL};
    assert_null(edit(SCHEMA_JSON, text, &dotted, 1, &error));
    assert_string_equal(error, "No matching path '.object.a' found in the schema");
    free(error);
    /* Through a combination of two subschemas: numbered in JsonSchemaComparator
     * order, where an object (OBJECT) comes before a string (STRING). */
    const char *any = "{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"object\",\"properties\":{\"q\":{}}}]}";
    schema_tag_edit_t through = {"anyof.1.object.q", SCHEMA_ENTITY_FIELD, &pii, NULL};
    assert_null(edit(SCHEMA_JSON, any, &through, 1, &error));
    assert_string_equal(error, "No matching path 'anyof.1.object.q' found in the schema");
    free(error);
    through.path = "anyof.0.object.q";
    char *q = edit(SCHEMA_JSON, any, &through, 1, &error);
    assert_string_equal(q, "{\"anyOf\":[{\"type\":\"string\"},{\"type\":\"object\",\"properties\":{\"q\":{"
                           "\"confluent:tags\":[\"PII\",\"X\"]}}}]}");
    free(q);
    free(out);
    strlist_clear(&pii);
    strlist_clear(&x);
}

/* "path kind tag,tag;" for each entity schema_tagged lists for a JSON Schema. */
static char *json_tagged(const char *text)
{
    char *perr = NULL;
    schema_t *s = schema_parse(SCHEMA_JSON, text, strlen(text), NULL, 0, 0, &perr);
    assert_non_null(s);
    schema_tagged_t *t;
    size_t n;
    assert_int_equal(schema_tagged(s, &t, &n), 0);
    size_t cap = 1;
    for (size_t i = 0; i < n; i++) {
        cap += strlen(t[i].path) + 16;
        for (size_t j = 0; j < t[i].tags.n; j++)
            cap += strlen(t[i].tags.items[j]) + 1;
    }
    char *out = calloc(1, cap);
    for (size_t i = 0; i < n; i++) {
        strcat(out, t[i].path);
        strcat(out, t[i].kind == SCHEMA_ENTITY_RECORD ? " sr_record " : " sr_field ");
        for (size_t j = 0; j < t[i].tags.n; j++) {
            if (j)
                strcat(out, ",");
            strcat(out, t[i].tags.items[j]);
        }
        strcat(out, ";");
    }
    schema_tagged_free(t, n);
    schema_free(s);
    return out;
}

/* JsonSchemaTest.testInlineTagsForRefInArray, testInlineTagsForNullInArray,
 * testNestedCombinedSchemasDraft_2020_12: JsonSchema.inlineTaggedEntities. */
static void test_json_schema_tagged(void **state)
{
    (void)state;
    char *l = json_tagged(
        "{\"definitions\":{\"MetricData\":{\"additionalProperties\":false,\"properties\":{\"name\":{"
        "\"oneOf\":"
        "[{\"title\":\"Not "
        "included\",\"type\":\"null\"},{\"type\":\"string\"}],\"confluent:tags\":[\"PII\"]},"
        "\"value\":{\"oneOf\":[{\"title\":\"Not included\",\"type\":\"null\"},{\"type\":\"string\"}]}},"
        "\"type\":\"object\"}},\"properties\":{\"sensorData\":{\"type\":\"string\"}},\"type\":\"object\"}");
    assert_string_equal(l, "object.definitions.MetricData.object.name sr_field PII;");
    free(l);
    l = json_tagged("{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"definitions\":{\"banana\":"
                    "{\"type\":\"string\",\"enum\":[\"a\",\"b\",null]}},\"properties\":{\"f1\":{\"$ref\":"
                    "\"#/definitions/banana\",\"confluent:tags\":[\"PII\"]}},\"title\":\"SampleRecord\","
                    "\"type\":\"object\"}");
    assert_string_equal(l, "object.f1 sr_field PII;");
    free(l);
    l = json_tagged(
        "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"type\":\"object\","
        "\"properties\":{\"myfield1\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"title\":"
        "\"arrayRecord\",\"confluent:tags\":[\"REC\"],\"properties\":{\"field1\":{\"type\":\"string\","
        "\"confluent:tags\":[\"PII\"]},\"field2\":{\"type\":\"number\"}}}}}}");
    /* The items' object is not a property's own schema: its record tags are listed. */
    assert_string_equal(l, "object.myfield1.array.object sr_record REC;"
                           "object.myfield1.array.object.field1 sr_field PII;");
    free(l);
}

/* Properties come in the order of the java.util.HashMap everit keeps them in
 * (ObjectSchema.Builder): "a" (hash 97, bucket 1) before "b" (bucket 2)
 * whatever the order written; the record first, a property's own object not
 * as a record (inField). */
static void test_json_schema_tagged_in_hashmap_order(void **state)
{
    (void)state;
    char *l =
        json_tagged("{\"type\":\"object\",\"confluent:tags\":[\"R\",\"R\"],\"properties\":{"
                    "\"b\":{\"type\":\"object\",\"confluent:tags\":[\"B\"],\"properties\":{\"x\":{\"type\":"
                    "\"string\",\"confluent:tags\":[\"X\"]}}},"
                    "\"a\":{\"type\":\"string\",\"confluent:tags\":[\"A\"]}}}");
    assert_string_equal(l, "object sr_record R;object.a sr_field A;object.b sr_field B;"
                           "object.b.object.x sr_field X;");
    free(l);
}

/* JsonSchemaTest.testAddTags: entities below a written allOf ([string, object]:
 * the object is "allof.0") and a not, added then removed, and listed. */
static void test_json_schema_combined_tags(void **state)
{
    (void)state;
    const char *text =
        "{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"type\":\"object\",\"properties\":{"
        "\"myfield2\":{\"allOf\":[{\"type\":\"string\"},{\"type\":\"object\",\"title\":\"nestedUnion\","
        "\"properties\":{\"nestedUnionField1\":{\"type\":\"boolean\"},\"nestedUnionField2\":{\"type\":"
        "\"number\"}}}]},"
        "\"myfield3\":{\"not\":{\"type\":\"object\",\"title\":\"nestedNot\",\"properties\":{"
        "\"nestedNotField2\":{\"type\":\"string\"}}}}}}";
    strlist_t pii = list_of("PII", NULL), rec = list_of("record", NULL);
    schema_tag_edit_t edits[] = {
        {"object.myfield2.allof.0.object.nestedUnionField2", SCHEMA_ENTITY_FIELD, &pii, NULL},
        {"object.myfield3.not.object.nestedNotField2", SCHEMA_ENTITY_FIELD, &pii, NULL},
        {"object.myfield2.allof.0.object", SCHEMA_ENTITY_RECORD, &rec, NULL},
        {"object.myfield3.not.object", SCHEMA_ENTITY_RECORD, &rec, NULL},
    };
    char *error = NULL;
    char *out = edit(SCHEMA_JSON, text, edits, 4, &error);
    assert_non_null(out);
    assert_non_null(strstr(out, "\"nestedUnionField2\":{\"type\":\"number\",\"confluent:tags\":[\"PII\"]}}"
                                ",\"confluent:tags\":[\"record\"]}]}"));
    assert_non_null(strstr(out, "\"nestedNotField2\":{\"type\":\"string\",\"confluent:tags\":[\"PII\"]}}"
                                ",\"confluent:tags\":[\"record\"]}}"));
    char *l = json_tagged(out);
    /* HashMap order: "myfield3" is in bucket 2, "myfield2" in bucket 3. */
    assert_string_equal(l, "object.myfield3.not.object sr_record record;"
                           "object.myfield3.not.object.nestedNotField2 sr_field PII;"
                           "object.myfield2.allof.0.object sr_record record;"
                           "object.myfield2.allof.0.object.nestedUnionField2 sr_field PII;");
    free(l);
    schema_tag_edit_t removes[4];
    for (size_t i = 0; i < 4; i++)
        removes[i] = (schema_tag_edit_t){edits[i].path, edits[i].kind, NULL, edits[i].add};
    char *back = edit(SCHEMA_JSON, out, removes, 4, &error);
    char *plain = edit(SCHEMA_JSON, text, NULL, 0, &error);
    assert_string_equal(back, plain);
    free(back);
    free(plain);
    free(out);
    strlist_clear(&pii);
    strlist_clear(&rec);
}

/* JsonSchemaTest.testAddTagToConditional and testAddTagToRecursiveSchema:
 * sibling keyword families are a generated allOf ([conditional, object]), a
 * "type" list a generated anyOf ([null, object]); the paths go through them
 * by name. Listed: what the walk meets, in the same numbering; the record
 * tags of the split-off object are the allOf's own, so not listed. */
static void test_json_schema_generated_combinations(void **state)
{
    (void)state;
    const char *text =
        "{\"else\":{\"properties\":{\"postal_code\":{\"pattern\":\"[A-Z]\"}}},"
        "\"if\":{\"properties\":{\"country\":{\"const\":\"USA\"}}},"
        "\"properties\":{\"country\":{\"default\":\"USA\",\"enum\":[\"USA\",\"Canada\"]},"
        "\"street_address\":{\"type\":\"string\"}},"
        "\"then\":{\"properties\":{\"postal_code\":{\"pattern\":\"[0-9]{5}\"}}},\"type\":\"object\"}";
    strlist_t t = list_of("testConditional", NULL), rec = list_of("record", NULL);
    schema_tag_edit_t edits[] = {
        {"allof.0.conditional.else.object.postal_code", SCHEMA_ENTITY_FIELD, &t, NULL},
        {"allof.1.object.country", SCHEMA_ENTITY_FIELD, &t, NULL},
        {"allof.1.object", SCHEMA_ENTITY_RECORD, &rec, NULL},
        {"allof.0.conditional.if.object", SCHEMA_ENTITY_RECORD, &rec, NULL},
    };
    char *error = NULL;
    char *out = edit(SCHEMA_JSON, text, edits, 4, &error);
    assert_non_null(out);
    assert_string_equal(
        out, "{\"else\":{\"properties\":{\"postal_code\":{\"pattern\":\"[A-Z]\",\"confluent:tags\":["
             "\"testConditional\"]}}},\"if\":{\"properties\":{\"country\":{\"const\":\"USA\"}},"
             "\"confluent:tags\":[\"record\"]},\"properties\":{\"country\":{\"default\":\"USA\",\"enum\":["
             "\"USA\",\"Canada\"],\"confluent:tags\":[\"testConditional\"]},\"street_address\":{\"type\":"
             "\"string\"}},\"then\":{\"properties\":{\"postal_code\":{\"pattern\":\"[0-9]{5}\"}}},\"type\":"
             "\"object\",\"confluent:tags\":[\"record\"]}");
    char *l = json_tagged(out);
    assert_string_equal(l, "allof.0.conditional.if.object sr_record record;"
                           "allof.0.conditional.else.object.postal_code sr_field testConditional;"
                           "allof.1.object.country sr_field testConditional;");
    free(l);
    free(out);

    const char *task =
        "{\"$id\":\"task.schema.json\",\"$schema\":\"http://json-schema.org/draft-07/schema#\","
        "\"properties\":{\"parent\":{\"$ref\":\"task.schema.json\",\"confluent:tags\":["
        "\"testRecursive\"]},\"title\":{\"type\":\"string\"}},\"title\":\"Task\","
        "\"type\":[\"null\",\"object\"]}";
    strlist_t pii = list_of("PII", NULL);
    schema_tag_edit_t parent = {"anyof.1.object.parent", SCHEMA_ENTITY_FIELD, &pii, NULL};
    out = edit(SCHEMA_JSON, task, &parent, 1, &error);
    assert_non_null(out);
    assert_non_null(strstr(out, "\"confluent:tags\":[\"testRecursive\",\"PII\"]"));
    l = json_tagged(out);
    assert_string_equal(l, "anyof.1.object.parent sr_field testRecursive,PII;");
    free(l);
    free(out);
    strlist_clear(&t);
    strlist_clear(&rec);
    strlist_clear(&pii);
}

/* JsonSchemaComparator within one class: title (absent first), then for
 * objects the property names; equal ones keep the order written. A written
 * oneOf and a "type" list nested under it. */
static void test_json_schema_comparator_order(void **state)
{
    (void)state;
    const char *text =
        "{\"oneOf\":[{\"type\":\"object\",\"title\":\"b\",\"properties\":{\"x\":{\"confluent:tags\":["
        "\"X\"]}}},{\"type\":\"object\",\"title\":\"a\",\"properties\":{\"y\":{\"confluent:tags\":["
        "\"Y\"]}}},{\"type\":\"object\",\"properties\":{\"z\":{\"type\":[\"string\",\"object\"],"
        "\"properties\":{\"w\":{\"confluent:tags\":[\"W\"]}}}}}]}";
    char *l = json_tagged(text);
    assert_string_equal(l, "oneof.0.object.z.anyof.0.object.w sr_field W;oneof.1.object.y sr_field Y;"
                           "oneof.2.object.x sr_field X;");
    free(l);
    strlist_t t = list_of("T", NULL);
    schema_tag_edit_t e[] = {{"oneof.1.object.y", SCHEMA_ENTITY_FIELD, &t, NULL},
                             {"oneof.0.object.z.anyof.0.object.w", SCHEMA_ENTITY_FIELD, &t, NULL}};
    char *error = NULL;
    char *out = edit(SCHEMA_JSON, text, e, 2, &error);
    assert_non_null(out);
    assert_non_null(strstr(out, "\"y\":{\"confluent:tags\":[\"Y\",\"T\"]}"));
    assert_non_null(strstr(out, "\"w\":{\"confluent:tags\":[\"W\",\"T\"]}"));
    free(out);
    /* JsonNodeComparator loads each subschema on its own as everit's default
     * draft 4, where "if" is no keyword: there {"properties":..,"if":..} is an
     * object (after the empty {}), while the document (draft 7) lists it as
     * an allOf of a conditional and an object, before {}. */
    const char *split = "{\"anyOf\":[{},{\"properties\":{\"p\":{\"confluent:tags\":[\"P\"]}},\"if\":{}}]}";
    l = json_tagged(split);
    assert_string_equal(l, "anyof.0.allof.1.object.p sr_field P;");
    free(l);
    schema_tag_edit_t p = {"anyof.1.object.p", SCHEMA_ENTITY_FIELD, &t, NULL};
    out = edit(SCHEMA_JSON, split, &p, 1, &error);
    assert_non_null(out);
    assert_non_null(strstr(out, "\"p\":{\"confluent:tags\":[\"P\",\"T\"]}"));
    free(out);
    /* A subschema that is no object: JsonNodeComparator cannot read it. */
    const char *boolean = "{\"anyOf\":[true,{\"properties\":{\"p\":{}}}]}";
    p.path = "anyof.0.object.p";
    assert_null(edit(SCHEMA_JSON, boolean, &p, 1, &error));
    assert_string_equal(error, "Cannot parse Json Schema from JsonNode");
    free(error);
    /* One that does not load on its own: a $ref into the document. */
    const char *local = "{\"oneOf\":[{\"$ref\":\"#/definitions/A\"},{\"properties\":{\"p\":{}}}],"
                        "\"definitions\":{\"A\":{\"type\":\"string\"}}}";
    p.path = "oneof.1.object.p";
    assert_null(edit(SCHEMA_JSON, local, &p, 1, &error));
    assert_string_equal(error, "#/$ref: unresolved $ref '#/definitions/A'");
    free(error);
    strlist_clear(&t);
}

/* JsonSchema.getInlineTaggedEntitiesRecursively(unprocessedProperties):
 * "definitions" entries are loaded on their own with their $refs made "#"
 * and walked; "$defs" only where they are the 2019-09/2020-12 translator's
 * schemas (draft 4-7 keep them as plain JSON, which is not walked). */
static void test_json_schema_definitions_listed(void **state)
{
    (void)state;
    char *l = json_tagged(
        "{\"type\":\"object\",\"properties\":{\"p\":{\"$ref\":\"#/definitions/D\"}},"
        "\"definitions\":{\"D\":{\"anyOf\":[{\"type\":\"null\"},{\"type\":\"object\","
        "\"properties\":{\"a\":{\"$ref\":\"#/definitions/E\",\"confluent:tags\":[\"A\"]}}}]},"
        "\"E\":{\"type\":\"string\"}},"
        "\"$defs\":{\"F\":{\"type\":\"object\",\"properties\":{\"f\":{\"confluent:tags\":[\"F\"]}}}}}");
    assert_string_equal(l, "object.definitions.D.anyof.1.object.a sr_field A;");
    free(l);
    l = json_tagged(
        "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"type\":\"object\","
        "\"properties\":{\"p\":{\"$ref\":\"#/$defs/F\"}},"
        "\"$defs\":{\"F\":{\"type\":\"object\",\"properties\":{\"f\":{\"confluent:tags\":[\"F\"]}}}}}");
    assert_string_equal(l, "object.$defs.F.object.f sr_field F;");
    free(l);
}

/* Each JsonSchemaComparator comparison of two combinations sorts their
 * subschemas again, so chains of references through anyOfs cost 2^depth
 * comparisons in Confluent; here a bound on comparisons keeps the listing
 * short (what is left keeps the written order). */
static void test_json_schema_order_is_bounded(void **state)
{
    (void)state;
    char *text = malloc(64 * 1024);
    strcpy(text, "{\"anyOf\":[{\"$ref\":\"#/definitions/A0\"},{\"$ref\":\"#/definitions/B0\"}],"
                 "\"definitions\":{");
    for (int i = 0; i < 48; i++)
        for (int b = 0; b < 2; b++)
            sprintf(
                text + strlen(text),
                "\"%c%d\":{\"anyOf\":[{\"$ref\":\"#/definitions/A%d\"},{\"$ref\":\"#/definitions/B%d\"}]},",
                b ? 'B' : 'A', i, i + 1, i + 1);
    strcat(text, "\"A48\":{\"type\":\"string\"},\"B48\":{\"type\":\"string\"}}}");
    char *l = json_tagged(text);
    assert_string_equal(l, "");
    free(l);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_avro_record_tags_add_then_remove),
        cmocka_unit_test(test_avro_field_and_nested_paths),
        cmocka_unit_test(test_json_schema_paths),
        cmocka_unit_test(test_json_schema_tagged),
        cmocka_unit_test(test_json_schema_tagged_in_hashmap_order),
        cmocka_unit_test(test_json_schema_combined_tags),
        cmocka_unit_test(test_json_schema_generated_combinations),
        cmocka_unit_test(test_json_schema_comparator_order),
        cmocka_unit_test(test_json_schema_definitions_listed),
        cmocka_unit_test(test_json_schema_order_is_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
