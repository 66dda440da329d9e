/*
 * compatibilityPolicy LOGICAL (compat/logical): the Avro, Protobuf and JSON Schema conversions,
 * ValidityChecker, CompatibilityChecker in FLINK and ICEBERG modes, and LogicalPolicyChecker's
 * messages. Cases and verdicts from Confluent's logical-types tests (ValidityCheckerEndToEndTest,
 * CompatibilityCheckerEndToEndTest, CompatibilityCheckerDownstreamSafetyTest,
 * JsonToLogicalTypeConverterTest) and core's LogicalPolicyCheckerTest; the message texts are
 * those Invalidity/Incompatibility.toString and LogicalPolicyChecker compose.
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
#include "compat/logical/internal.h"
#include "compat/logical/logical.h"
#include "compat/schema.h"

static schema_t *avro(const char *text)
{
    char *error = NULL;
    schema_t *s = schema_parse(SCHEMA_AVRO, text, strlen(text), NULL, 0, SCHEMA_PARSE_NEW, &error);
    if (!s)
        printf("unexpected error: %s\n", error);
    free(error);
    assert_non_null(s);
    return s;
}

static logical_model_t *logical(const char *text)
{
    schema_t *s = avro(text);
    logical_model_t *m = NULL;
    char *error = NULL;
    int rc = logical_from_schema(s, &m, &error);
    if (rc != 0)
        printf("unexpected conversion failure %d: %s\n", rc, error ? error : "");
    assert_int_equal(rc, 0);
    schema_free(s);
    return m;
}

/* Asserts the findings, in order, NULL-terminated. */
static void expect(const strlist_t *got, const char *const *want)
{
    size_t n = 0;
    while (want[n])
        n++;
    for (size_t i = 0; i < got->n; i++)
        printf("  got: %s\n", got->items[i]);
    assert_int_equal(got->n, n);
    for (size_t i = 0; i < n; i++)
        assert_string_equal(got->items[i], want[i]);
}

#define WANT(...) ((const char *const[]){__VA_ARGS__, NULL})
#define NOTHING   ((const char *const[]){NULL})

static void expect_validity(logical_mode_t mode, const char *text, const char *const *want)
{
    logical_model_t *m = logical(text);
    strlist_t out = {0};
    assert_int_equal(logical_validate(mode, m, &out), 0);
    expect(&out, want);
    strlist_clear(&out);
    logical_model_free(m);
}

static void expect_compare(logical_mode_t mode, const char *original, const char *update,
                           const char *const *want)
{
    logical_model_t *o = logical(original), *u = logical(update);
    strlist_t out = {0};
    assert_int_equal(logical_compare(mode, o, u, &out), 0);
    expect(&out, want);
    strlist_clear(&out);
    logical_model_free(o);
    logical_model_free(u);
}

static void expect_unconvertible(const char *text, const char *message)
{
    schema_t *s = avro(text);
    logical_model_t *m = NULL;
    char *error = NULL;
    assert_int_equal(logical_from_schema(s, &m, &error), 1);
    assert_null(m);
    assert_string_equal(error, message);
    free(error);
    schema_free(s);
}

#define REC(fields) "{\"type\":\"record\",\"name\":\"R\",\"fields\":[" fields "]}"

/* ---- validity ------------------------------------------------------------------------------ */

static void test_case_collision_is_an_iceberg_problem(void **state)
{
    (void)state;
    const char *s = REC("{\"name\":\"userId\",\"type\":\"int\"},{\"name\":\"UserId\",\"type\":\"int\"}");
    const char *msg =
        "FIELD_NAME_CASE_COLLISION: field names 'userId' and 'UserId' differ only in case, which "
        "Iceberg's case-insensitive name index cannot distinguish";
    expect_validity(LOGICAL_MODE_ICEBERG_V2, s, WANT(msg));
    expect_validity(LOGICAL_MODE_ICEBERG_V3, s, WANT(msg));
    expect_validity(LOGICAL_MODE_FLINK, s, NOTHING);
    expect_validity(
        LOGICAL_MODE_ICEBERG_V2,
        REC("{\"name\":\"payload\",\"type\":{\"type\":\"record\",\"name\":\"P\",\"fields\":["
            "{\"name\":\"ts\",\"type\":\"long\"},{\"name\":\"TS\",\"type\":\"long\"}]}}"),
        WANT("FIELD_NAME_CASE_COLLISION at 'payload': field names 'ts' and 'TS' differ only in case, "
             "which Iceberg's case-insensitive name index cannot distinguish"));
    expect_validity(LOGICAL_MODE_ICEBERG_V2,
                    REC("{\"name\":\"userId\",\"type\":\"int\"},{\"name\":\"userName\",\"type\":\"string\"}"),
                    NOTHING);
}

static void test_empty_record(void **state)
{
    (void)state;
    const char *s = "{\"type\":\"record\",\"name\":\"E\",\"fields\":[]}";
    expect_validity(LOGICAL_MODE_ICEBERG_V2, s, WANT("EMPTY_STRUCT: a struct must have at least one field"));
    expect_validity(LOGICAL_MODE_FLINK, s, NOTHING);
}

static void test_decimal_bounds(void **state)
{
    (void)state;
    /* Valid Avro (bytes decimals have no precision bound), beyond every consumer. */
    const char *wide =
        REC("{\"name\":\"d\",\"type\":{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":50}}");
    const char *msg =
        "PRECISION_OUT_OF_RANGE at 'd': DECIMAL precision 50 is outside the supported range 1 to 38";
    expect_validity(LOGICAL_MODE_FLINK, wide, WANT(msg));
    expect_validity(LOGICAL_MODE_ICEBERG_V2, wide, WANT(msg));
    /* Not a decimal to Avro (scale above precision) but one to the converter, which reads the property. */
    expect_validity(
        LOGICAL_MODE_FLINK,
        REC("{\"name\":\"d\",\"type\":{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":5,"
            "\"scale\":7}}"),
        WANT("SCALE_OUT_OF_RANGE at 'd': DECIMAL scale 7 is outside the supported range 0 to the "
             "precision 5"));
    expect_validity(
        LOGICAL_MODE_ICEBERG_V2,
        REC("{\"name\":\"d\",\"type\":{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":38,"
            "\"scale\":2}}"),
        NOTHING);
}

static void test_nanosecond_timestamps_need_iceberg_v3(void **state)
{
    (void)state;
    const char *s = REC("{\"name\":\"ts\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-nanos\"}}");
    expect_validity(
        LOGICAL_MODE_ICEBERG_V2, s,
        WANT("UNREPRESENTABLE_TYPE at 'ts': TIMESTAMP_LTZ(9) needs Iceberg's nanosecond timestamp "
             "types, which arrived in format-version 3"));
    expect_validity(LOGICAL_MODE_ICEBERG_V3, s, NOTHING);
    expect_validity(LOGICAL_MODE_FLINK, s, NOTHING);
}

static void test_recursive_record_is_cyclic(void **state)
{
    (void)state;
    const char *s =
        "{\"type\":\"record\",\"name\":\"LinkedList\",\"namespace\":\"a\",\"fields\":["
        "{\"name\":\"value\",\"type\":\"int\"},{\"name\":\"next\",\"type\":[\"null\",\"LinkedList\"]}]}";
    const char *msg =
        "CYCLIC_TYPE: named type 'a.LinkedList' refers to itself, and cannot be represented by a "
        "non-recursive type system";
    expect_validity(LOGICAL_MODE_FLINK, s, WANT(msg));
    expect_validity(LOGICAL_MODE_ICEBERG_V2, s, WANT(msg));
    /* Below the root: the path of the first field reaching it. */
    expect_validity(
        LOGICAL_MODE_FLINK,
        REC("{\"name\":\"t\",\"type\":{\"type\":\"record\",\"name\":\"T\",\"fields\":["
            "{\"name\":\"kids\",\"type\":{\"type\":\"array\",\"items\":\"T\"}}]}}"),
        WANT("CYCLIC_TYPE at 't': named type 'T' refers to itself, and cannot be represented by a "
             "non-recursive type system"));
}

static void test_conversion_failures(void **state)
{
    (void)state;
    expect_unconvertible(REC("{\"name\":\"n\",\"type\":\"null\"}"), "Standalone NULL type is not supported");
    expect_unconvertible("\"null\"", "Standalone NULL type is not supported");
    expect_unconvertible(REC("{\"name\":\"i\",\"type\":{\"type\":\"int\",\"connect.type\":\"int32\"}}"),
                         "Connect type annotation for Avro int field is null");
    expect_unconvertible(
        REC("{\"name\":\"t\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\",\"flink."
            "precision\":6}}"),
        "flink.precision 6 exceeds the precision carried by Avro logical type 'timestamp-millis' (3)");
    expect_unconvertible(REC("{\"name\":\"t\",\"type\":{\"type\":\"long\",\"logicalType\":\"time-micros\","
                             "\"flink.precision\":12}}"),
                         "TIME precision must be in [0, 9], got 12");
    expect_unconvertible(
        REC("{\"name\":\"d\",\"type\":{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":\"5\"}}"),
        "precision property must be a JSON Integer.");
}

static void test_conversion_details(void **state)
{
    (void)state;
    /* A field's confluent:union hints name its branches. */
    expect_compare(
        LOGICAL_MODE_ICEBERG_V2,
        REC("{\"name\":\"u\",\"type\":[\"int\",\"string\"],\"confluent:union\":[{\"name\":\"asInt\"},"
            "{\"name\":\"asText\"}]}"),
        REC("{\"name\":\"u\",\"type\":[\"int\",\"string\"]}"),
        WANT("FIELD_DELETED at 'u.asInt': field present in the original schema is missing from the update",
             "FIELD_DELETED at 'u.asText': field present in the original schema is missing from the update"));
    /* connect.type int8 is a TINYINT, which widens to INT but not back. */
    const char *int8 = REC("{\"name\":\"b\",\"type\":{\"type\":\"int\",\"connect.type\":\"int8\"}}");
    const char *int32 = REC("{\"name\":\"b\",\"type\":\"int\"}");
    expect_compare(LOGICAL_MODE_FLINK, int8, int32, NOTHING);
    expect_compare(LOGICAL_MODE_FLINK, int32, int8,
                   WANT("UNSUPPORTED_TYPE_CHANGE at 'b': type changed from INT to TINYINT"));
    /* Iceberg has one int class. */
    expect_compare(LOGICAL_MODE_ICEBERG_V2, int32, int8, NOTHING);
    expect_unconvertible("{\"type\":\"record\",\"name\":\"A\",\"logical.anonymous\":\"true\",\"fields\":["
                         "{\"name\":\"self\",\"type\":[\"null\",\"A\"]}]}",
                         "Cyclic schemas are not supported.\nFound a cycle in the field: self");
    expect_unconvertible(
        REC("{\"name\":\"m\",\"type\":{\"type\":\"map\",\"values\":\"string\",\"flink.type\":"
            "\"multiset\"}}"),
        "Unexpected value type for a MULTISET type: STRING NOT NULL");
    expect_unconvertible(REC("{\"name\":\"t\",\"type\":{\"type\":\"int\",\"logicalType\":\"time-millis\"},"
                             "\"default\":-1}"),
                         "Invalid value for NanoOfDay (valid values 0 - 86399999999999): -1000000");
    expect_unconvertible(
        REC("{\"name\":\"s\",\"type\":{\"type\":\"string\",\"flink.maxLength\":\"50\"}}"),
        "class java.lang.String cannot be cast to class java.lang.Integer (java.lang.String and "
        "java.lang.Integer are in module java.base of loader 'bootstrap')");
    /* ToLogicalContext.MAX_TYPE_DEPTH: 257 nested arrays. */
    static char deep[16384];
    deep[0] = 0;
    for (int i = 0; i < 257; i++)
        strcat(deep, "{\"type\":\"array\",\"items\":");
    strcat(deep, "\"int\"");
    for (int i = 0; i < 257; i++)
        strcat(deep, "}");
    expect_unconvertible(deep, "Schema type nesting depth exceeds the maximum of 256");
    /* A MapEntry array is a map; a multiset of it counts with an INT. */
    expect_compare(
        LOGICAL_MODE_FLINK,
        REC("{\"name\":\"m\",\"type\":{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":"
            "\"MapEntry\",\"namespace\":\"io.confluent.connect.avro\",\"fields\":[{\"name\":\"key\",\"type\":"
            "\"int\"},{\"name\":\"value\",\"type\":\"string\"}]}}}"),
        REC("{\"name\":\"m\",\"type\":{\"type\":\"map\",\"values\":\"string\"}}"),
        WANT("UNSUPPORTED_TYPE_CHANGE at 'm{key}': type changed from INT to VARCHAR(2147483647)"));
    /* confluent.type.Variant is VARIANT, which Iceberg v2 cannot store. */
    expect_validity(
        LOGICAL_MODE_ICEBERG_V2,
        REC("{\"name\":\"v\",\"type\":{\"type\":\"record\",\"name\":\"Variant\",\"namespace\":"
            "\"confluent.type\",\"fields\":[{\"name\":\"metadata\",\"type\":\"bytes\"},{\"name\":"
            "\"value\",\"type\":\"bytes\"}]}}"),
        WANT("UNREPRESENTABLE_TYPE at 'v': VARIANT needs Iceberg's variant type, which arrived in "
             "format-version 3"));
}

/* ---- compatibility --------------------------------------------------------------------------- */

static const char *nested(const char *extra)
{
    static char buf[512];
    snprintf(buf, sizeof buf,
             REC("{\"name\":\"p\",\"type\":{\"type\":\"record\",\"name\":\"Inner\",\"fields\":["
                 "{\"name\":\"x\",\"type\":\"int\"}%s]}}"),
             extra);
    return buf;
}

static void test_added_fields(void **state)
{
    (void)state;
    char before[512], defaulted[512], bare[512];
    strcpy(before, nested(""));
    strcpy(defaulted, nested(",{\"name\":\"added\",\"type\":\"int\",\"default\":7}"));
    strcpy(bare, nested(",{\"name\":\"added\",\"type\":\"int\"}"));
    expect_compare(LOGICAL_MODE_ICEBERG_V3, before, defaulted, NOTHING);
    expect_compare(
        LOGICAL_MODE_ICEBERG_V2, before, defaulted,
        WANT("REQUIRED_FIELD_ADDED at 'p.added': added field is neither nullable nor defaulted, so "
             "pre-existing rows have no value for it; format-version 2 cannot store a column default"));
    expect_compare(LOGICAL_MODE_FLINK, before, defaulted, NOTHING);
    expect_compare(
        LOGICAL_MODE_FLINK, before, bare,
        WANT("REQUIRED_FIELD_ADDED at 'p.added': added column is neither nullable nor defaulted, so rows "
             "written before it existed have no value for it"));
    expect_compare(
        LOGICAL_MODE_ICEBERG_V3, before, bare,
        WANT("REQUIRED_FIELD_ADDED at 'p.added': added field is neither nullable nor defaulted, so "
             "pre-existing rows have no value for it; a non-null column default would make it readable"));
    /* An array added without a default: no empty-container default in Avro. */
    expect_compare(
        LOGICAL_MODE_ICEBERG_V2, REC("{\"name\":\"a\",\"type\":\"string\"}"),
        REC("{\"name\":\"a\",\"type\":\"string\"},{\"name\":\"tags\",\"type\":{\"type\":\"array\","
            "\"items\":\"string\"}}"),
        WANT("REQUIRED_FIELD_ADDED at 'tags': added field is neither nullable nor defaulted, so "
             "pre-existing rows have no value for it; format-version 2 cannot store a column default"));
    /* ... and with one, the container relaxation. */
    expect_compare(LOGICAL_MODE_ICEBERG_V2, REC("{\"name\":\"a\",\"type\":\"string\"}"),
                   REC("{\"name\":\"a\",\"type\":\"string\"},{\"name\":\"tags\",\"type\":{\"type\":\"array\","
                       "\"items\":\"string\"},\"default\":[]}"),
                   NOTHING);
    /* A nullable field with a null default is optional everywhere. */
    expect_compare(LOGICAL_MODE_ICEBERG_V2, REC("{\"name\":\"a\",\"type\":\"string\"}"),
                   REC("{\"name\":\"a\",\"type\":\"string\"},{\"name\":\"b\",\"type\":[\"null\",\"string\"],"
                       "\"default\":null}"),
                   NOTHING);
}

static void test_deleted_and_reordered_fields(void **state)
{
    (void)state;
    const char *ab = REC("{\"name\":\"a\",\"type\":\"int\"},{\"name\":\"b\",\"type\":\"int\"}");
    const char *a = REC("{\"name\":\"a\",\"type\":\"int\"}");
    const char *ba = REC("{\"name\":\"b\",\"type\":\"int\"},{\"name\":\"a\",\"type\":\"int\"}");
    expect_compare(
        LOGICAL_MODE_ICEBERG_V2, ab, a,
        WANT("FIELD_DELETED at 'b': field present in the original schema is missing from the update"));
    expect_compare(LOGICAL_MODE_FLINK, ab, a, NOTHING);
    expect_compare(
        LOGICAL_MODE_ICEBERG_V2, ab, ba,
        WANT("FIELD_REORDERED at 'a': field moved ahead of a field that preceded it in the original "
             "schema"));
    expect_compare(LOGICAL_MODE_FLINK, ab, ba, NOTHING);
}

static void test_nullability(void **state)
{
    (void)state;
    const char *required = REC("{\"name\":\"a\",\"type\":\"string\"}");
    const char *nullable = REC("{\"name\":\"a\",\"type\":[\"null\",\"string\"],\"default\":null}");
    expect_compare(LOGICAL_MODE_FLINK, required, nullable, NOTHING);
    expect_compare(LOGICAL_MODE_ICEBERG_V2, required, nullable, NOTHING);
    expect_compare(
        LOGICAL_MODE_FLINK, nullable, required,
        WANT("NULLABLE_TO_NON_NULLABLE at 'a': column was nullable and is now NOT NULL; pre-existing "
             "rows may hold nulls"));
    expect_compare(LOGICAL_MODE_ICEBERG_V2, nullable, required,
                   WANT("NULLABLE_TO_NON_NULLABLE at 'a': field was nullable and is now non-nullable; "
                        "pre-existing rows may hold nulls"));
    /* Container children: FLINK only. */
    expect_compare(
        LOGICAL_MODE_FLINK,
        REC("{\"name\":\"xs\",\"type\":{\"type\":\"array\",\"items\":[\"null\",\"int\"]}}"),
        REC("{\"name\":\"xs\",\"type\":{\"type\":\"array\",\"items\":\"int\"}}"),
        WANT("NULLABLE_TO_NON_NULLABLE at 'xs[]': container child was nullable and is now NOT NULL; "
             "existing collections may hold nulls"));
    /* A NOT NULL column that loses its default: FLINK only. */
    expect_compare(
        LOGICAL_MODE_FLINK, REC("{\"name\":\"a\",\"type\":\"int\",\"default\":1}"),
        REC("{\"name\":\"a\",\"type\":\"int\"}"),
        WANT("NON_NULLABLE_DEFAULT_REMOVED at 'a': NOT NULL column lost its default; rows that omitted "
             "the column have no value to read"));
}

static void test_type_changes(void **state)
{
    (void)state;
    const char *as_int = REC("{\"name\":\"a\",\"type\":\"int\"}");
    const char *as_long = REC("{\"name\":\"a\",\"type\":\"long\"}");
    const char *as_float = REC("{\"name\":\"a\",\"type\":\"float\"}");
    expect_compare(LOGICAL_MODE_FLINK, as_int, as_long, NOTHING);
    expect_compare(LOGICAL_MODE_ICEBERG_V2, as_int, as_long, NOTHING);
    /* Avro promotes int to float; a 24-bit significand cannot hold every int. */
    expect_compare(LOGICAL_MODE_FLINK, as_int, as_float,
                   WANT("UNSUPPORTED_TYPE_CHANGE at 'a': type changed from INT to FLOAT"));
    expect_compare(LOGICAL_MODE_ICEBERG_V2, as_int, as_float,
                   WANT("UNSUPPORTED_TYPE_CHANGE at 'a': type changed from INT to FLOAT"));
    expect_compare(LOGICAL_MODE_FLINK, as_long, as_int,
                   WANT("UNSUPPORTED_TYPE_CHANGE at 'a': type changed from BIGINT to INT"));
    const char *ts =
        REC("{\"name\":\"ts\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}}");
    const char *ts_long = REC("{\"name\":\"ts\",\"type\":\"long\"}");
    expect_compare(LOGICAL_MODE_FLINK, ts_long, ts,
                   WANT("UNSUPPORTED_TYPE_CHANGE at 'ts': type changed from BIGINT to TIMESTAMP_LTZ(3)"));
    expect_compare(LOGICAL_MODE_ICEBERG_V2, ts_long, ts,
                   WANT("UNSUPPORTED_TYPE_CHANGE at 'ts': type changed from BIGINT to TIMESTAMP_LTZ(3)"));
    expect_compare(
        LOGICAL_MODE_FLINK, ts,
        REC("{\"name\":\"ts\",\"type\":{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"}}"),
        WANT("UNSUPPORTED_TYPE_CHANGE at 'ts': type changed from TIMESTAMP_LTZ(3) to TIMESTAMP_LTZ(6) "
             "(precision selects the unit of the stored value and cannot change)"));
    const char *d102 = REC("{\"name\":\"d\",\"type\":{\"type\":\"bytes\",\"logicalType\":\"decimal\","
                           "\"precision\":10,\"scale\":2}}");
    const char *d122 = REC("{\"name\":\"d\",\"type\":{\"type\":\"bytes\",\"logicalType\":\"decimal\","
                           "\"precision\":12,\"scale\":2}}");
    const char *d103 = REC("{\"name\":\"d\",\"type\":{\"type\":\"bytes\",\"logicalType\":\"decimal\","
                           "\"precision\":10,\"scale\":3}}");
    expect_compare(LOGICAL_MODE_FLINK, d102, d122, NOTHING);
    expect_compare(LOGICAL_MODE_ICEBERG_V2, d102, d122, NOTHING);
    expect_compare(LOGICAL_MODE_ICEBERG_V2, d102, d103,
                   WANT("UNSUPPORTED_TYPE_CHANGE at 'd': type changed from DECIMAL(10, 2) to DECIMAL(10, 3) "
                        "(decimal scale must be unchanged and precision may not shrink)"));
    /* String lengths exist for Flink, not for Iceberg. */
    const char *s50 = REC("{\"name\":\"s\",\"type\":{\"type\":\"string\",\"flink.maxLength\":50}}");
    const char *s10 = REC("{\"name\":\"s\",\"type\":{\"type\":\"string\",\"flink.maxLength\":10}}");
    expect_compare(
        LOGICAL_MODE_FLINK, s50, s10,
        WANT("UNSUPPORTED_TYPE_CHANGE at 's': type changed from VARCHAR(50) to VARCHAR(10) (length may "
             "not shrink)"));
    expect_compare(LOGICAL_MODE_ICEBERG_V2, s50, s10, NOTHING);
    /* string -> bytes: Avro reads it; no consumer does. */
    expect_compare(LOGICAL_MODE_FLINK, REC("{\"name\":\"s\",\"type\":\"string\"}"),
                   REC("{\"name\":\"s\",\"type\":\"bytes\"}"),
                   WANT("UNSUPPORTED_TYPE_CHANGE at 's': type changed from VARCHAR(2147483647) to "
                        "VARBINARY(2147483647)"));
    /* A record where an int was: the structural kind. */
    expect_compare(
        LOGICAL_MODE_ICEBERG_V2, as_int,
        REC("{\"name\":\"a\",\"type\":{\"type\":\"record\",\"name\":\"A\",\"fields\":[{\"name\":\"x\","
            "\"type\":\"int\"}]}}"),
        WANT("TYPE_MISMATCH at 'a': type changed from INT to STRUCT"));
}

static void test_enums_and_unions(void **state)
{
    (void)state;
    const char *e_abc =
        REC("{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"B\",\"C\"]}}");
    const char *e_ab =
        REC("{\"name\":\"e\",\"type\":{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\",\"B\"]}}");
    expect_compare(LOGICAL_MODE_FLINK, e_ab, e_abc, NOTHING);
    expect_compare(LOGICAL_MODE_ICEBERG_V2, e_ab, e_abc, NOTHING);
    expect_compare(LOGICAL_MODE_FLINK, e_abc, e_ab, NOTHING);
    expect_compare(LOGICAL_MODE_ICEBERG_V2, e_abc, e_ab, NOTHING);
    /* A union is a struct of optional branches named by type. */
    const char *u2 = REC("{\"name\":\"u\",\"type\":[\"int\",\"string\"]}");
    const char *u3 = REC("{\"name\":\"u\",\"type\":[\"int\",\"string\",\"boolean\"]}");
    expect_compare(LOGICAL_MODE_FLINK, u2, u3, NOTHING);
    expect_compare(LOGICAL_MODE_ICEBERG_V2, u2, u3, NOTHING);
    expect_compare(
        LOGICAL_MODE_ICEBERG_V2, u3, u2,
        WANT("FIELD_DELETED at 'u.boolean': field present in the original schema is missing from the "
             "update"));
    /* Two records of one simple name: full names, dots as underscores. */
    expect_validity(LOGICAL_MODE_ICEBERG_V2,
                    REC("{\"name\":\"u\",\"type\":[{\"type\":\"record\",\"name\":\"a.X\",\"fields\":[]},"
                        "{\"type\":\"record\",\"name\":\"b.X\",\"fields\":[]}]}"),
                    WANT("EMPTY_STRUCT at 'u.a_X': a struct must have at least one field",
                         "EMPTY_STRUCT at 'u.b_X': a struct must have at least one field"));
}

static logical_model_t *logical_typed(schema_type_t type, const char *text)
{
    char *error = NULL;
    schema_t *s = schema_parse(type, text, strlen(text), NULL, 0, SCHEMA_PARSE_NEW, &error);
    if (!s)
        printf("unexpected error: %s\n", error);
    free(error);
    assert_non_null(s);
    logical_model_t *m = NULL;
    int rc = logical_from_schema(s, &m, &error);
    if (rc != 0)
        printf("unexpected conversion failure %d: %s\n", rc, error ? error : "");
    assert_int_equal(rc, 0);
    schema_free(s);
    return m;
}

static void expect_proto_compare(logical_mode_t mode, const char *original, const char *update,
                                 const char *const *want)
{
    logical_model_t *o = logical_typed(SCHEMA_PROTOBUF, original),
                    *u = logical_typed(SCHEMA_PROTOBUF, update);
    strlist_t out = {0};
    assert_int_equal(logical_compare(mode, o, u, &out), 0);
    expect(&out, want);
    strlist_clear(&out);
    logical_model_free(o);
    logical_model_free(u);
}

static void expect_proto_validity(logical_mode_t mode, const char *text, const char *const *want)
{
    logical_model_t *m = logical_typed(SCHEMA_PROTOBUF, text);
    strlist_t out = {0};
    assert_int_equal(logical_validate(mode, m, &out), 0);
    expect(&out, want);
    strlist_clear(&out);
    logical_model_free(m);
}

#define PROTO(body) "syntax = \"proto3\";\npackage t;\n" body

/* ---- Protobuf (ProtoToLogicalTypeConverter; CompatibilityCheckerEndToEndTest's proto cases) ---- */

static void test_proto_containers_default_to_empty(void **state)
{
    (void)state;
    const char *before = PROTO("message M { string name = 1; }");
    const char *tags = PROTO("message M { string name = 1; repeated string tags = 2; }");
    const char *labels = PROTO("message M { string name = 1; map<string, string> labels = 2; }");
    for (logical_mode_t mode = LOGICAL_MODE_FLINK; mode <= LOGICAL_MODE_ICEBERG_V3; mode++) {
        expect_proto_compare(mode, before, tags, NOTHING);
        expect_proto_compare(mode, before, labels, NOTHING);
        expect_proto_compare(
            mode, PROTO("message M { Inner inner = 1; message Inner { string a = 1; } }"),
            PROTO("message M { Inner inner = 1; message Inner { string a = 1; repeated string tags "
                  "= 2; } }"),
            NOTHING);
        expect_proto_compare(
            mode, PROTO("message M { repeated Inner items = 1; message Inner { string a = 1; } }"),
            PROTO("message M { repeated Inner items = 1; message Inner { string a = 1; repeated "
                  "string tags = 2; } }"),
            NOTHING);
        expect_proto_compare(
            mode, PROTO("message M { Inner inner = 1; }\nmessage Inner { string a = 1; }"),
            PROTO("message M { Inner inner = 1; }\nmessage Inner { string a = 1; repeated string "
                  "tags = 2; }"),
            NOTHING);
    }
}

static void test_proto_scalars(void **state)
{
    (void)state;
    const char *before = PROTO("message M { string name = 1; }");
    const char *count = PROTO("message M { string name = 1; int32 count = 2; }");
    /* proto3's implicit zero is no default. */
    expect_proto_compare(
        LOGICAL_MODE_FLINK, before, count,
        WANT("REQUIRED_FIELD_ADDED at 'count': added column is neither nullable nor defaulted, so "
             "rows written before it existed have no value for it"));
    expect_proto_compare(
        LOGICAL_MODE_ICEBERG_V2, before, count,
        WANT("REQUIRED_FIELD_ADDED at 'count': added field is neither nullable nor defaulted, so "
             "pre-existing rows have no value for it; format-version 2 cannot store a column "
             "default"));
    expect_proto_compare(
        LOGICAL_MODE_ICEBERG_V3, before, count,
        WANT("REQUIRED_FIELD_ADDED at 'count': added field is neither nullable nor defaulted, so "
             "pre-existing rows have no value for it; a non-null column default would make it "
             "readable"));
    /* `optional` makes it nullable. */
    expect_proto_compare(LOGICAL_MODE_ICEBERG_V2, before,
                         PROTO("message M { string name = 1; optional int32 count = 2; }"), NOTHING);
    const char *i32 = PROTO("message M { int32 n = 1; }"), *i64 = PROTO("message M { int64 n = 1; }");
    expect_proto_compare(LOGICAL_MODE_FLINK, i32, i64, NOTHING);
    expect_proto_compare(LOGICAL_MODE_ICEBERG_V2, i32, i64, NOTHING);
    expect_proto_compare(LOGICAL_MODE_FLINK, i64, i32,
                         WANT("UNSUPPORTED_TYPE_CHANGE at 'n': type changed from BIGINT to INT"));
    expect_proto_compare(LOGICAL_MODE_ICEBERG_V2, i64, i32,
                         WANT("UNSUPPORTED_TYPE_CHANGE at 'n': type changed from BIGINT to INT"));
    const char *ab = PROTO("message M { string a = 1; string b = 2; }");
    const char *ba = PROTO("message M { string b = 2; string a = 1; }");
    expect_proto_compare(LOGICAL_MODE_FLINK, ab, ba, NOTHING);
    expect_proto_compare(LOGICAL_MODE_ICEBERG_V2, ab, ba,
                         WANT("FIELD_REORDERED at 'a': field moved ahead of a field that preceded it in the "
                              "original schema"));
    /* A wrapper is its payload, nullable. */
    expect_proto_compare(
        LOGICAL_MODE_FLINK,
        PROTO("import \"google/protobuf/wrappers.proto\";\nmessage M { google.protobuf.Int32Value n = 1; }"),
        i32,
        WANT("NULLABLE_TO_NON_NULLABLE at 'n': column was nullable and is now NOT NULL; "
             "pre-existing rows may hold nulls"));
}

static void test_proto_validity(void **state)
{
    (void)state;
    const char *collide = "syntax = \"proto3\"; message M { int32 order_id = 1; int32 ORDER_ID = 2; }";
    expect_proto_validity(
        LOGICAL_MODE_ICEBERG_V2, collide,
        WANT("FIELD_NAME_CASE_COLLISION: field names 'order_id' and 'ORDER_ID' differ only in "
             "case, which Iceberg's case-insensitive name index cannot distinguish"));
    expect_proto_validity(LOGICAL_MODE_FLINK, collide, NOTHING);
    expect_proto_validity(
        LOGICAL_MODE_FLINK, PROTO("message Node { int32 v = 1; Node next = 2; }"),
        WANT("CYCLIC_TYPE: named type 't.Node' refers to itself, and cannot be represented by a "
             "non-recursive type system"));
    /* google.protobuf.Timestamp is TIMESTAMP_LTZ(9) without a flink.precision. */
    const char *ts =
        PROTO("import \"google/protobuf/timestamp.proto\";\nmessage M { google.protobuf.Timestamp ts = 1; }");
    expect_proto_validity(LOGICAL_MODE_ICEBERG_V2, ts,
                          WANT("UNREPRESENTABLE_TYPE at 'ts': TIMESTAMP_LTZ(9) needs Iceberg's nanosecond "
                               "timestamp types, which arrived in format-version 3"));
    expect_proto_validity(LOGICAL_MODE_FLINK, ts, NOTHING);
}

static void test_proto_oneofs(void **state)
{
    (void)state;
    const char *two = PROTO("message M { oneof v { string s = 1; int32 i = 2; } }");
    const char *three = PROTO("message M { oneof v { string s = 1; int32 i = 2; bool b = 3; } }");
    expect_proto_compare(LOGICAL_MODE_FLINK, two, three, NOTHING);
    expect_proto_compare(LOGICAL_MODE_ICEBERG_V2, two, three, NOTHING);
    expect_proto_compare(
        LOGICAL_MODE_ICEBERG_V2, three, two,
        WANT("FIELD_DELETED at 'v.b': field present in the original schema is missing from the "
             "update"));
    /* The oneof comes after the plain fields, whatever the declaration order. */
    expect_proto_compare(LOGICAL_MODE_ICEBERG_V2,
                         PROTO("message M { oneof v { string s = 1; } int32 a = 2; }"),
                         PROTO("message M { int32 a = 2; oneof v { string s = 1; } }"), NOTHING);
}

static void test_proto_reference_types_are_named(void **state)
{
    (void)state;
    const char *money =
        "syntax = \"proto3\";\npackage common;\nmessage Money { int64 units = 1; }\nenum Cur { EUR = 0; }";
    schema_ref_t ref = {.name = "common/money.proto", .subject = "money", .version = 1, .text = money};
    const char *texts[] = {
        PROTO("import \"common/money.proto\";\nmessage M { common.Money price = 1; common.Cur cur = 2; }"),
        PROTO("import \"common/money.proto\";\nmessage M { common.Money price = 1; }")};
    logical_model_t *m[2];
    for (int i = 0; i < 2; i++) {
        char *error = NULL;
        schema_t *s =
            schema_parse(SCHEMA_PROTOBUF, texts[i], strlen(texts[i]), &ref, 1, SCHEMA_PARSE_NEW, &error);
        assert_non_null(s);
        assert_int_equal(logical_from_schema(s, &m[i], &error), 0);
        schema_free(s);
    }
    assert_non_null(hmap_gets(&m[0]->named, "common.Money"));
    strlist_t out = {0};
    assert_int_equal(logical_compare(LOGICAL_MODE_ICEBERG_V2, m[0], m[1], &out), 0);
    expect(&out,
           WANT("FIELD_DELETED at 'cur': field present in the original schema is missing from the update"));
    strlist_clear(&out);
    assert_int_equal(logical_validate(LOGICAL_MODE_ICEBERG_V2, m[0], &out), 0);
    expect(&out, NOTHING);
    logical_model_free(m[0]);
    logical_model_free(m[1]);
}

/* ---- the policy ---------------------------------------------------------------------------------- */

static const char *const record_a = REC("{\"name\":\"a\",\"type\":\"int\"}");
static const char *const record_a_b =
    REC("{\"name\":\"a\",\"type\":\"int\"},{\"name\":\"b\",\"type\":\"int\"}");

/* ---- JSON Schema (JsonToLogicalTypeConverterTest, the policy tests' JSON cases) ------------------ */

static schema_t *jsonschema(const char *text)
{
    char *error = NULL;
    schema_t *s = schema_parse(SCHEMA_JSON, text, strlen(text), NULL, 0, SCHEMA_PARSE_NEW, &error);
    if (!s)
        printf("unexpected error: %s\n", error);
    free(error);
    assert_non_null(s);
    return s;
}

static logical_model_t *jlogical(const char *text)
{
    schema_t *s = jsonschema(text);
    logical_model_t *m = NULL;
    char *error = NULL;
    int rc = logical_from_schema(s, &m, &error);
    if (rc != 0)
        printf("unexpected conversion failure %d: %s\n", rc, error ? error : "");
    assert_int_equal(rc, 0);
    schema_free(s);
    return m;
}

/* Schema.toDdl with the members a struct or union lists, and "=default" on a defaulted field. */
static void shape(strbuf_t *b, const logical_node_t *n)
{
    if (n->kind != LOGICAL_STRUCT && n->kind != LOGICAL_UNION && n->kind != LOGICAL_ARRAY) {
        logical_ddl(b, n);
        return;
    }
    if (n->kind == LOGICAL_ARRAY) {
        strbuf_puts(b, "ARRAY<");
        shape(b, n->element);
        strbuf_putc(b, '>');
    } else {
        strbuf_puts(b, n->kind == LOGICAL_STRUCT ? "STRUCT(" : "UNION(");
        for (size_t i = 0; i < n->n; i++) {
            strbuf_printf(b, "%s%s ", i ? ", " : "", n->members[i].name);
            shape(b, n->members[i].type);
            if (n->members[i].has_default)
                strbuf_puts(b, "=default");
        }
        strbuf_putc(b, ')');
    }
    if (!n->nullable)
        strbuf_puts(b, " NOT NULL");
}

static void expect_shape(const char *text, const char *want)
{
    logical_model_t *m = jlogical(text);
    strbuf_t b = {0};
    shape(&b, m->root);
    char *got = strbuf_take(&b);
    assert_string_equal(got, want);
    free(got);
    logical_model_free(m);
}

static void expect_json_unconvertible(const char *text, const char *message)
{
    schema_t *s = jsonschema(text);
    logical_model_t *m = NULL;
    char *error = NULL;
    assert_int_equal(logical_from_schema(s, &m, &error), 1);
    assert_null(m);
    assert_string_equal(error, message);
    free(error);
    schema_free(s);
}

static void expect_json_compare(logical_mode_t mode, const char *original, const char *update,
                                const char *const *want)
{
    logical_model_t *o = jlogical(original), *u = jlogical(update);
    strlist_t out = {0};
    assert_int_equal(logical_compare(mode, o, u, &out), 0);
    expect(&out, want);
    strlist_clear(&out);
    logical_model_free(o);
    logical_model_free(u);
}

static void expect_json_validity(logical_mode_t mode, const char *text, const char *const *want)
{
    logical_model_t *m = jlogical(text);
    strlist_t out = {0};
    assert_int_equal(logical_validate(mode, m, &out), 0);
    expect(&out, want);
    strlist_clear(&out);
    logical_model_free(m);
}

#define OBJ(props) "{\"type\":\"object\",\"properties\":{" props "}}"

static void test_json_types(void **state)
{
    (void)state;
    expect_shape("{\"type\":\"boolean\"}", "BOOLEAN NOT NULL");
    expect_shape("{\"type\":\"integer\"}", "BIGINT NOT NULL");
    expect_shape("{\"type\":\"number\"}", "DOUBLE NOT NULL");
    expect_shape("{\"type\":\"number\",\"connect.type\":\"int32\"}", "INT NOT NULL");
    expect_shape("{\"type\":\"integer\",\"connect.type\":\"int8\"}", "TINYINT NOT NULL");
    expect_shape("{\"type\":\"integer\",\"connect.type\":\"int16\"}", "SMALLINT NOT NULL");
    expect_shape("{\"type\":\"number\",\"connect.type\":\"float32\"}", "FLOAT NOT NULL");
    expect_shape(
        "{\"type\":\"integer\",\"connect.type\":\"int32\",\"title\":\"org.apache.kafka.connect.data.Date\"}",
        "DATE NOT NULL");
    expect_shape(
        "{\"type\":\"integer\",\"connect.type\":\"int32\",\"title\":\"org.apache.kafka.connect.data.Time\"}",
        "TIME(3) NOT NULL");
    expect_shape("{\"type\":\"integer\",\"connect.type\":\"int64\",\"title\":"
                 "\"org.apache.kafka.connect.data.Timestamp\",\"flink.precision\":6}",
                 "TIMESTAMP_LTZ(6) NOT NULL");
    expect_shape("{\"type\":\"integer\",\"connect.type\":\"int64\",\"flink.type\":\"timestamp\"}",
                 "TIMESTAMP(3) NOT NULL");
    expect_shape(
        "{\"type\":\"number\",\"connect.type\":\"bytes\",\"title\":\"org.apache.kafka.connect.data.Decimal\","
        "\"connect.parameters\":{\"scale\":\"2\",\"connect.decimal.precision\":\"10\"}}",
        "DECIMAL(10, 2) NOT NULL");
    expect_shape("{\"type\":\"number\",\"connect.type\":\"bytes\",\"title\":\"org.apache.kafka.connect.data."
                 "Decimal\"}",
                 "DECIMAL(38, 18) NOT NULL");
    expect_shape("{\"type\":\"string\"}", "STRING NOT NULL");
    expect_shape("{\"type\":\"string\",\"maxLength\":5}", "VARCHAR(5) NOT NULL");
    expect_shape("{\"type\":\"string\",\"minLength\":5,\"maxLength\":5}", "CHAR(5) NOT NULL");
    expect_shape("{\"type\":\"string\",\"connect.type\":\"bytes\"}", "BYTES NOT NULL");
    expect_shape(
        "{\"type\":\"string\",\"connect.type\":\"bytes\",\"flink.minLength\":4,\"flink.maxLength\":4}",
        "BINARY(4) NOT NULL");
    expect_shape("{\"enum\":[\"RED\",\"GREEN\",\"BLUE\"]}", "ENUM NOT NULL");
    /* A typed enum is an allOf of a string and an enum, which simplifies to the string. */
    expect_shape("{\"type\":\"string\",\"enum\":[\"RED\"]}", "STRING NOT NULL");
    expect_shape("{}", "VARIANT NOT NULL");
    expect_shape("true", "VARIANT NOT NULL");
    expect_shape("{\"type\":\"array\",\"items\":{\"type\":\"string\"}}", "ARRAY<STRING NOT NULL> NOT NULL");
    expect_shape(
        "{\"type\":\"object\",\"connect.type\":\"map\",\"additionalProperties\":{\"type\":\"integer\"}}",
        "MAP<STRING NOT NULL, BIGINT NOT NULL> NOT NULL");
    expect_shape(
        "{\"type\":\"array\",\"connect.type\":\"map\",\"items\":{\"type\":\"object\",\"properties\":{"
        "\"key\":{\"type\":\"integer\"},\"value\":{\"type\":\"string\"}}}}",
        "MAP<BIGINT NOT NULL, STRING NOT NULL> NOT NULL");
    expect_shape(
        "{\"type\":\"object\",\"connect.type\":\"map\",\"flink.type\":\"multiset\",\"additionalProperties\":"
        "{\"type\":\"integer\",\"connect.type\":\"int32\"}}",
        "MULTISET<STRING NOT NULL> NOT NULL");
}

static void test_json_objects_and_unions(void **state)
{
    (void)state;
    /* Nullable unless required; unindexed properties sort by name (dependentRequired keeps both). */
    expect_shape(
        "{\"type\":\"object\",\"properties\":{\"b\":{\"type\":\"string\"},\"a\":{\"type\":\"integer\"}},"
        "\"dependentRequired\":{\"a\":[\"b\"]}}",
        "STRUCT(a BIGINT, b STRING) NOT NULL");
    expect_shape("{\"type\":\"object\",\"properties\":{\"b\":{\"type\":\"string\",\"connect.index\":0},"
                 "\"a\":{\"type\":\"integer\",\"connect.index\":1}},\"required\":[\"a\"]}",
                 "STRUCT(b STRING, a BIGINT NOT NULL) NOT NULL");
    expect_shape("{\"type\":\"object\",\"additionalProperties\":false}", "STRUCT() NOT NULL");
    /* oneOf: [null, T] is a nullable T, [T] is T, more make a union of nullable branches. */
    expect_shape("{\"oneOf\":[{\"type\":\"null\"},{\"type\":\"boolean\"}]}", "BOOLEAN");
    expect_shape("{\"oneOf\":[{\"type\":\"string\"}]}", "STRING NOT NULL");
    expect_shape("{\"type\":[\"string\",\"null\"]}", "STRING");
    expect_shape("{\"oneOf\":[{\"type\":\"null\"},{\"type\":\"integer\",\"connect.type\":\"int32\"},"
                 "{\"type\":\"string\"}]}",
                 "UNION(connect_union_field_0 INT, connect_union_field_1 STRING)");
    expect_shape("{\"oneOf\":[{\"type\":\"string\",\"title\":\"myString\"},{\"type\":\"boolean\",\"title\":"
                 "\"myBool\"}]}",
                 "UNION(myString STRING, myBool BOOLEAN) NOT NULL");
    expect_shape(
        "{\"oneOf\":[{\"type\":\"string\"},{\"type\":\"boolean\"}],\"confluent:union\":[{\"name\":\"s\"}]}",
        "UNION(s STRING, connect_union_field_1 BOOLEAN) NOT NULL");
    /* allOf merges the objects' properties; an anyOf inside it is dropped (the pinned bypass). */
    expect_shape("{\"allOf\":[{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"}}},"
                 "{\"type\":\"object\",\"properties\":{\"b\":{\"type\":\"string\"}}}]}",
                 "STRUCT(a BIGINT, b STRING) NOT NULL");
    expect_shape(
        "{\"allOf\":[{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"}}},{\"anyOf\":["
        "{\"not\":{\"properties\":{\"a\":{\"const\":1}}}},"
        "{\"required\":[\"b\"],\"properties\":{\"b\":{\"type\":\"string\"}}}]}]}",
        "STRUCT(a BIGINT) NOT NULL");
    expect_shape(
        "{\"allOf\":[{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"}}},{\"anyOf\":["
        "{\"type\":\"object\",\"properties\":{\"b\":{\"type\":\"string\"}}},"
        "{\"type\":\"object\",\"properties\":{\"c\":{\"type\":\"boolean\"}}}]}]}",
        "STRUCT(a BIGINT) NOT NULL");
    /* Defaults that convert count; a null one, a mismatched one or one on a struct does not. */
    expect_shape(
        OBJ("\"a\":{\"type\":\"integer\",\"default\":7},\"b\":{\"type\":\"string\",\"default\":null},"
            "\"c\":{\"type\":\"string\",\"default\":5},\"d\":{\"type\":\"object\",\"default\":{}},"
            "\"e\":{\"type\":\"integer\",\"connect.type\":\"int32\",\"title\":"
            "\"org.apache.kafka.connect.data.Date\",\"default\":\"2024-02-30\"},"
            "\"f\":{\"type\":\"integer\",\"connect.type\":\"int32\",\"title\":"
            "\"org.apache.kafka.connect.data.Date\",\"default\":\"2024-02-29\"}"),
        "STRUCT(a BIGINT=default, b STRING, c STRING, d STRUCT(), e DATE, f DATE=default) NOT NULL");
}

static void test_json_references(void **state)
{
    (void)state;
    const char *singleton =
        "{\"type\":\"object\",\"properties\":{\"f1\":{\"oneOf\":[{\"$ref\":\"#/definitions/T\"}]}},"
        "\"required\":[\"f1\"],\"definitions\":{\"T\":{\"type\":\"object\","
        "\"properties\":{\"x\":{\"type\":\"string\"}}}}}";
    logical_model_t *m = jlogical(singleton);
    assert_int_equal(m->root->members[0].type->kind, LOGICAL_NAMED_TYPE_REF);
    assert_string_equal(m->root->members[0].type->ref, "T");
    assert_int_equal(logical_named_get(m, "T")->kind, LOGICAL_STRUCT);
    logical_model_free(m);
    /* A referenced nullable object stays nullable (testReferenceToNullableObjectStaysNullable). */
    m = jlogical("{\"$schema\":\"http://json-schema.org/draft-07/schema#\",\"type\":\"object\","
                 "\"properties\":{\"ref1\":{\"$ref\":\"#/definitions/opt\"}},\"required\":[\"ref1\"],"
                 "\"definitions\":{\"opt\":{\"type\":[\"object\",\"null\"],\"properties\":{\"x\":{\"type\":"
                 "\"string\"}}}}}");
    assert_true(logical_named_get(m, "opt")->nullable);
    logical_model_free(m);
    /* A reference to the root is a synthesized Ref1 that refers to itself. */
    const char *cyclic =
        "CYCLIC_TYPE at 'next': named type 'Ref1' refers to itself, and cannot be represented by "
        "a non-recursive type system";
    m = jlogical(OBJ("\"v\":{\"type\":\"integer\"},\"next\":{\"$ref\":\"#\"}"));
    assert_int_equal(m->root->members[0].type->kind, LOGICAL_NAMED_TYPE_REF);
    assert_string_equal(m->root->members[0].type->ref, "Ref1");
    logical_model_free(m);
    expect_json_validity(LOGICAL_MODE_FLINK, OBJ("\"v\":{\"type\":\"integer\"},\"next\":{\"$ref\":\"#\"}"),
                         WANT(cyclic));
}

static void test_json_conversion_failures(void **state)
{
    (void)state;
    const char *conditional =
        "JSON Schema if/then/else and `not` are not supported: a property declared only under a "
        "condition has no column to be read into, so its values would be silently dropped";
    expect_json_unconvertible("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"}},"
                              "\"if\":{\"properties\":{\"a\":{\"const\":1}}},"
                              "\"then\":{\"required\":[\"b\"],\"properties\":{\"b\":{\"type\":\"string\"}}}}",
                              conditional);
    expect_json_unconvertible("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"}},"
                              "\"if\":{\"required\":[\"a\"]},\"then\":{\"required\":[\"a\"]}}",
                              conditional);
    expect_json_unconvertible("{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"}},"
                              "\"not\":{\"required\":[\"a\"]}}",
                              conditional);
    expect_json_unconvertible("{\"type\":\"null\"}",
                              "Unsupported JSON schema type org.everit.json.schema.NullSchema");
    expect_json_unconvertible("false", "Unsupported JSON schema type org.everit.json.schema.FalseSchema");
    expect_json_unconvertible("{\"type\":\"array\"}", "Array schema did not specify the items type");
    expect_json_unconvertible(
        "{\"type\":\"array\",\"items\":[{\"type\":\"string\"}]}",
        "JSON tuples (i.e. arrays that contain items of different types) are not supported");
    expect_json_unconvertible("{\"type\":\"number\",\"connect.type\":\"bytes\"}", "Expected decimal type");
    expect_json_unconvertible("{\"type\":\"number\",\"connect.type\":\"uint8\"}", "Unsupported type uint8");
    expect_json_unconvertible("{\"type\":\"integer\",\"connect.type\":\"int32\",\"title\":"
                              "\"org.apache.kafka.connect.data.Time\",\"flink.precision\":12}",
                              "TIME precision must be in [0, 9], got 12");
    expect_json_unconvertible(
        "{\"type\":\"integer\",\"connect.type\":7}",
        "class java.lang.Integer cannot be cast to class java.lang.String (java.lang.Integer "
        "and java.lang.String are in module java.base of loader 'bootstrap')");
    expect_json_unconvertible(
        OBJ("\"first name\":{\"type\":\"string\"}"),
        "Field name must not contain whitespace or control characters; got: 'first name'");
    expect_json_unconvertible("{\"enum\":[\"\"]}", "Enum symbol name must not be empty");
    expect_json_unconvertible(
        "{\"oneOf\":[{\"type\":\"string\",\"title\":\"x\"},{\"type\":\"boolean\",\"title\":\"x\"}]}",
        "Duplicate union branch: x");
    expect_json_unconvertible("{\"type\":\"object\",\"connect.type\":\"map\",\"flink.type\":\"multiset\","
                              "\"additionalProperties\":{\"type\":\"string\"}}",
                              "Unexpected value type for a MULTISET type: STRING NOT NULL");
    /* The metadata is cast as the converter reads it (confluent:union's doc, confluent:enum's entries). */
    expect_json_unconvertible(
        "{\"oneOf\":[{\"type\":\"string\"},{\"type\":\"boolean\"}],\"confluent:union\":[{\"doc\":1}]}",
        "class java.lang.Integer cannot be cast to class java.lang.String (java.lang.Integer "
        "and java.lang.String are in module java.base of loader 'bootstrap')");
    expect_json_unconvertible(
        "{\"enum\":[\"A\"],\"confluent:enum\":[\"x\"]}",
        "class java.lang.String cannot be cast to class java.util.Map (java.lang.String and "
        "java.util.Map are in module java.base of loader 'bootstrap')");
    expect_shape("{\"enum\":[\"A\",\"A\"],\"confluent:enum\":[{\"doc\":\"a\"},\"ignored: a duplicate\"]}",
                 "ENUM NOT NULL");
    expect_json_unconvertible(
        "{\"allOf\":[{\"type\":\"string\"},{\"type\":\"boolean\"}]}",
        "Unsupported criterion allOf for {\"allOf\":[{\"type\":\"string\"},{\"type\":\"boolean\"}]}");
}

/* A chain of definitions, each referring to the next, nests each body inside the one before: the
 * converter's StackOverflowError, as a message. A shorter chain converts. */
static void test_json_reference_chain(void **state)
{
    (void)state;
    for (int n = 100; n <= 3000; n += 2900) {
        strbuf_t b = {0};
        strbuf_puts(&b, "{\"$ref\":\"#/definitions/D0\",\"definitions\":{");
        for (int i = 0; i < n; i++)
            strbuf_printf(
                &b, "\"D%d\":{\"type\":\"object\",\"properties\":{\"n\":{\"$ref\":\"#/definitions/D%d\"}}},",
                i, i + 1);
        strbuf_printf(&b, "\"D%d\":{\"type\":\"string\"}}}", n);
        char *text = strbuf_take(&b);
        if (n == 100) {
            logical_model_t *m = jlogical(text);
            assert_string_equal(m->root->ref, "D0");
            assert_int_equal(logical_named_get(m, "D100")->kind, LOGICAL_VARCHAR);
            logical_model_free(m);
        } else {
            expect_json_unconvertible(text, "JSON schema nests types too deeply to convert");
        }
        free(text);
    }
}

static void test_json_compatibility(void **state)
{
    (void)state;
    /* CompatibilityCheckerEndToEndTest's JSON cases. */
    const char *a = "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"connect.index\":0}},"
                    "\"required\":[\"a\"]}";
    const char *ab = "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"connect.index\":0},"
                     "\"b\":{\"type\":\"string\",\"connect.index\":1}},\"required\":[\"a\"]}";
    const char *ab_required =
        "{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\",\"connect.index\":0},"
        "\"b\":{\"type\":\"string\",\"connect.index\":1}},\"required\":[\"a\",\"b\"]}";
    expect_json_compare(LOGICAL_MODE_FLINK, a, ab, NOTHING);
    expect_json_compare(LOGICAL_MODE_ICEBERG_V2, a, ab, NOTHING);
    expect_json_compare(
        LOGICAL_MODE_FLINK, a, ab_required,
        WANT("REQUIRED_FIELD_ADDED at 'b': added column is neither nullable nor defaulted, so rows "
             "written before it existed have no value for it"));
    expect_json_compare(LOGICAL_MODE_ICEBERG_V2, a, ab_required,
                        WANT("REQUIRED_FIELD_ADDED at 'b': added field is neither nullable nor defaulted, so "
                             "pre-existing rows have no value for it; format-version 2 cannot store a column "
                             "default"));
    /* integer is BIGINT and number DOUBLE: no widening either mode accepts, in either direction. */
    const char *as_integer =
        "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"integer\",\"connect.index\":0}},"
        "\"required\":[\"n\"]}";
    const char *as_number =
        "{\"type\":\"object\",\"properties\":{\"n\":{\"type\":\"number\",\"connect.index\":0}},"
        "\"required\":[\"n\"]}";
    logical_model_t *o = jlogical(as_integer), *u = jlogical(as_number);
    for (int mode = LOGICAL_MODE_FLINK; mode <= LOGICAL_MODE_ICEBERG_V2; mode++) {
        strlist_t out = {0};
        assert_int_equal(logical_compare(mode, o, u, &out), 0);
        assert_int_equal(out.n, 1);
        assert_true(strncmp(out.items[0], "UNSUPPORTED_TYPE_CHANGE at 'n': ", 32) == 0);
        strlist_clear(&out);
    }
    logical_model_free(o);
    logical_model_free(u);
    /* A $defs body's default does not excuse a property added at the root. */
    const char *before =
        "{\"type\":\"object\",\"properties\":{\"pad\":{\"type\":\"string\"},"
        "\"inner\":{\"$ref\":\"#/$defs/Inner\"}},\"required\":[\"pad\"],"
        "\"$defs\":{\"Inner\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"},"
        "\"b\":{\"type\":\"integer\",\"default\":7}}}}}";
    const char *after =
        "{\"type\":\"object\",\"properties\":{\"pad\":{\"type\":\"string\"},"
        "\"mustHave\":{\"type\":\"integer\"},\"inner\":{\"$ref\":\"#/$defs/Inner\"}},"
        "\"required\":[\"pad\",\"mustHave\"],"
        "\"$defs\":{\"Inner\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"string\"},"
        "\"b\":{\"type\":\"integer\",\"default\":7}}}}}";
    expect_json_compare(
        LOGICAL_MODE_FLINK, before, after,
        WANT("REQUIRED_FIELD_ADDED at 'mustHave': added column is neither nullable nor defaulted, "
             "so rows written before it existed have no value for it"));
    /* Adding a union branch is an added nullable column; constraints are no type change. */
    const char *two = OBJ("\"u\":{\"oneOf\":[{\"type\":\"string\"},{\"type\":\"integer\"}]}");
    const char *three =
        OBJ("\"u\":{\"oneOf\":[{\"type\":\"string\"},{\"type\":\"integer\"},{\"type\":\"boolean\"}]}");
    expect_json_compare(LOGICAL_MODE_FLINK, two, three, NOTHING);
    expect_json_compare(LOGICAL_MODE_ICEBERG_V2, two, three, NOTHING);
    expect_json_compare(LOGICAL_MODE_FLINK, OBJ("\"a\":{\"type\":\"string\"}"),
                        OBJ("\"a\":{\"type\":\"string\",\"minLength\":3,\"pattern\":\"^x\"}"), NOTHING);
    expect_json_compare(LOGICAL_MODE_ICEBERG_V2, OBJ("\"a\":{\"type\":\"string\"}"),
                        OBJ("\"a\":{\"type\":\"string\",\"minLength\":3,\"pattern\":\"^x\"}"), NOTHING);
    /* Alphabetical order makes a middle insertion an addition (FLINK). */
    expect_json_compare(
        LOGICAL_MODE_FLINK, OBJ("\"a\":{\"type\":\"string\"},\"c\":{\"type\":\"string\"}"),
        OBJ("\"a\":{\"type\":\"string\"},\"b\":{\"type\":\"string\"},\"c\":{\"type\":\"string\"}"), NOTHING);
    /* ValidityCheckerEndToEndTest: a case collision is Iceberg's problem only. */
    const char *collision = OBJ("\"name\":{\"type\":\"string\"},\"Name\":{\"type\":\"string\"}");
    expect_json_validity(LOGICAL_MODE_FLINK, collision, NOTHING);
    expect_json_validity(
        LOGICAL_MODE_ICEBERG_V2, collision,
        WANT("FIELD_NAME_CASE_COLLISION: field names 'Name' and 'name' differ only in case, which "
             "Iceberg's case-insensitive name index cannot distinguish"));
}

static void policy(const char *candidate, const char *const *previous, size_t n, int backward, int forward,
                   const char *const *want)
{
    schema_t *c = avro(candidate);
    schema_t *p[4];
    for (size_t i = 0; i < n; i++)
        p[i] = avro(previous[i]);
    strlist_t out = {0};
    assert_int_equal(logical_policy_check(c, (const schema_t *const *)p, n, backward, forward, &out), 0);
    expect(&out, want);
    strlist_clear(&out);
    for (size_t i = 0; i < n; i++)
        schema_free(p[i]);
    schema_free(c);
}

static void test_policy_messages(void **state)
{
    (void)state;
    const char *prev[] = {record_a};
    policy(
        record_a_b, prev, 1, 1, 0,
        WANT("Logical compatibility (FLINK, backward): REQUIRED_FIELD_ADDED at 'b': added column is neither "
             "nullable nor defaulted, so rows written before it existed have no value for it",
             "Logical compatibility (ICEBERG_V2, backward): REQUIRED_FIELD_ADDED at 'b': added field is "
             "neither "
             "nullable nor defaulted, so pre-existing rows have no value for it; format-version 2 cannot "
             "store "
             "a column default"));
    /* Forward: the old schema reads the new one's data; it misses b, which Iceberg calls a delete. */
    policy(record_a_b, prev, 1, 0, 1,
           WANT("Logical compatibility (ICEBERG_V2, forward): FIELD_DELETED at 'b': field present in the "
                "original "
                "schema is missing from the update"));
    /* Validity first, on its own, newline-joined per mode. */
    policy(
        REC("{\"name\":\"x\",\"type\":\"int\"},{\"name\":\"X\",\"type\":\"int\"},{\"name\":\"ts\",\"type\":"
            "{\"type\":\"long\",\"logicalType\":\"timestamp-nanos\"}}"),
        NULL, 0, 1, 0,
        WANT("Logical validity (ICEBERG_V2): FIELD_NAME_CASE_COLLISION: field names 'x' and 'X' differ only "
             "in "
             "case, which Iceberg's case-insensitive name index cannot distinguish\nUNREPRESENTABLE_TYPE at "
             "'ts': TIMESTAMP_LTZ(9) needs Iceberg's nanosecond timestamp types, which arrived in "
             "format-version 3"));
    policy(REC("{\"name\":\"n\",\"type\":\"null\"}"), prev, 1, 1, 1,
           WANT("Schema cannot be represented as a logical type: Standalone NULL type is not supported"));
    /* An old version without a logical type is skipped. */
    const char *unconvertible[] = {REC("{\"name\":\"n\",\"type\":\"null\"}")};
    policy(record_a, unconvertible, 1, 1, 1, NOTHING);
    const char *same[] = {record_a_b};
    policy(record_a_b, same, 1, 1, 1, NOTHING);
}

static void test_compat_check_under_logical(void **state)
{
    (void)state;
    schema_t *a = avro(record_a), *ab = avro(record_a_b),
             *empty = avro("{\"type\":\"record\",\"name\":\"E\",\"fields\":[]}");
    strlist_t out = {0};
    /* Validity at NONE with no history (LogicalPolicyCheckerTest.validityRunsOnFirstRegistration...). */
    assert_int_equal(compat_check_policy(COMPAT_NONE, COMPAT_POLICY_LOGICAL, empty, NULL, 0, 0, &out), 0);
    expect(&out, WANT("Logical validity (ICEBERG_V2): EMPTY_STRUCT: a struct must have at least one field",
                      "{validateFields: 'false', compatibility: 'NONE'}"));
    strlist_clear(&out);
    assert_int_equal(compat_check_policy(COMPAT_NONE, COMPAT_POLICY_STRICT, empty, NULL, 0, 0, &out), 1);
    assert_int_equal(out.n, 0);
    /* NONE skips compatibility and keeps validity. */
    compat_previous_t hist_a[] = {{a, 1}};
    assert_int_equal(compat_check_policy(COMPAT_NONE, COMPAT_POLICY_LOGICAL, ab, hist_a, 1, 0, &out), 1);
    /* A delete the native Avro check allows (AbstractSchemaRegistryLogicalPolicyTest). */
    compat_previous_t hist_ab[] = {{ab, 1}};
    assert_int_equal(compat_check_policy(COMPAT_BACKWARD, COMPAT_POLICY_STRICT, a, hist_ab, 1, 0, &out), 1);
    assert_int_equal(compat_check_policy(COMPAT_BACKWARD, COMPAT_POLICY_LOGICAL, a, hist_ab, 1, 1, &out), 0);
    expect(&out,
           WANT("Logical compatibility (ICEBERG_V2, backward): FIELD_DELETED at 'b': field present in the "
                "original schema is missing from the update",
                "{validateFields: 'true', compatibility: 'BACKWARD'}"));
    strlist_clear(&out);
    /* Transitive compares every version; the plain level the newest only. */
    compat_previous_t hist[] = {{a, 1}, {ab, 2}};
    assert_int_equal(compat_check_policy(COMPAT_BACKWARD, COMPAT_POLICY_LOGICAL, ab, hist, 2, 0, &out), 1);
    assert_int_equal(
        compat_check_policy(COMPAT_BACKWARD_TRANSITIVE, COMPAT_POLICY_LOGICAL, ab, hist, 2, 0, &out), 0);
    /* The native check's messages (it fails too) come first, the logical ones after. */
    expect(&out,
           WANT("{errorType:'READER_FIELD_MISSING_DEFAULT_VALUE', description:'The field 'b' at path "
                "'/fields/1' in the new schema has no default value and is missing in the old schema', "
                "additionalInfo:'b'}",
                "{oldSchemaVersion: 1}",
                "{oldSchema: '{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":"
                "\"int\"}]}'}",
                "Logical compatibility (FLINK, backward): REQUIRED_FIELD_ADDED at 'b': added column is "
                "neither nullable nor defaulted, so rows written before it existed have no value for it",
                "Logical compatibility (ICEBERG_V2, backward): REQUIRED_FIELD_ADDED at 'b': added field is "
                "neither nullable nor defaulted, so pre-existing rows have no value for it; format-version 2 "
                "cannot store a column default",
                "{validateFields: 'false', compatibility: 'BACKWARD_TRANSITIVE'}"));
    strlist_clear(&out);
    schema_free(a);
    schema_free(ab);
    schema_free(empty);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_case_collision_is_an_iceberg_problem),
        cmocka_unit_test(test_empty_record),
        cmocka_unit_test(test_decimal_bounds),
        cmocka_unit_test(test_nanosecond_timestamps_need_iceberg_v3),
        cmocka_unit_test(test_recursive_record_is_cyclic),
        cmocka_unit_test(test_conversion_failures),
        cmocka_unit_test(test_conversion_details),
        cmocka_unit_test(test_added_fields),
        cmocka_unit_test(test_deleted_and_reordered_fields),
        cmocka_unit_test(test_nullability),
        cmocka_unit_test(test_type_changes),
        cmocka_unit_test(test_enums_and_unions),
        cmocka_unit_test(test_proto_containers_default_to_empty),
        cmocka_unit_test(test_proto_scalars),
        cmocka_unit_test(test_proto_validity),
        cmocka_unit_test(test_proto_oneofs),
        cmocka_unit_test(test_proto_reference_types_are_named),
        cmocka_unit_test(test_json_types),
        cmocka_unit_test(test_json_objects_and_unions),
        cmocka_unit_test(test_json_references),
        cmocka_unit_test(test_json_conversion_failures),
        cmocka_unit_test(test_json_reference_chain),
        cmocka_unit_test(test_json_compatibility),
        cmocka_unit_test(test_policy_messages),
        cmocka_unit_test(test_compat_check_under_logical),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
