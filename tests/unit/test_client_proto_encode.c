/*
 * test_client_proto_encode: the Protobuf encoder of client/ (client.h,
 * section 3b; docs/decoding.md, section 8), byte by byte against the
 * encoding protobuf.dev's "Encoding" page defines.
 *
 *   1. Bytes: varints, zigzag, fixed, packed, proto2's unpacked, defaults left out
 *   2. Message indexes: [0] as one byte, nested and later messages
 *   3. Failures: the message, the output left as it was, the depth limit
 *
 * Round trips through protoc and python3-protobuf are in
 * tests/integration/test_decoder.py (EncodeProtobuf).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "client/client.h"

static const char P3[] =
    "syntax = \"proto3\"; package t;\n"
    "message A { int32 i = 1; sint32 z = 2; fixed32 f = 3; repeated int32 r = 4; string s = 5;\n"
    "  optional int32 o = 6; B b = 7; message N { int32 x = 1; } }\n"
    "message B { B next = 1; int32 v = 2; }\n";
static const char P2[] = "syntax = \"proto2\"; package u;\n"
                         "message C { repeated int32 r = 1; optional int32 o = 2; }\n";

typedef struct fixture {
    proto_schema_t *schema;
    srclient_proto_reader_t *reader;
} fixture_t;

static fixture_t load(const char *text)
{
    char *error = NULL;
    fixture_t f;
    f.schema = proto_schema_new(text, strlen(text), NULL, 0, 0, NULL, &error);
    if (!f.schema)
        fail_msg("%s", error);
    f.reader = srclient_proto_reader_new(f.schema, NULL, &error);
    if (!f.reader)
        fail_msg("%s", error);
    return f;
}

static void unload(fixture_t *f)
{
    srclient_proto_reader_free(f->reader);
    proto_schema_free(f->schema);
}

/* The payload of row as hex, or "error: ..." */
static char *encode(const fixture_t *f, const char *message, const char *row)
{
    strbuf_t out = {0};
    char *error = NULL;
    if (srclient_proto_encode(f->reader, message, row, strlen(row), &out, &error) != 0) {
        char *s;
        if (asprintf(&s, "error: %s", error) < 0)
            abort();
        free(error);
        strbuf_free(&out);
        return s;
    }
    char *hex = calloc(out.len * 2 + 1, 1);
    for (size_t i = 0; i < out.len; i++)
        sprintf(hex + 2 * i, "%02x", (unsigned char)out.data[i]);
    strbuf_free(&out);
    return hex;
}

static void assert_encodes(const fixture_t *f, const char *message, const char *row, const char *want)
{
    char *got = encode(f, message, row);
    assert_string_equal(got, want);
    free(got);
}

/* ---- 1. Bytes ----------------------------------------------------------------- */

static void test_bytes(void **state)
{
    (void)state;
    fixture_t f = load(P3);
    /* 00 = [0]; i = 150: 08 96 01 (the Encoding page's example). */
    assert_encodes(&f, NULL, "{\"i\": 150}", "00089601");
    /* A negative int32 is ten bytes; sint32 -1 is zigzag 1; fixed32 little-endian. */
    assert_encodes(&f, NULL, "{\"i\": -1, \"z\": -1, \"f\": 1}",
                   "0008ffffffffffffffffff01"
                   "1001"
                   "1d01000000");
    /* proto3: repeated scalars packed, zeros left out, an optional zero kept, fields in number order. */
    assert_encodes(&f, NULL, "{\"s\": \"hi\", \"r\": [1, 2, 300], \"i\": 0, \"o\": 0}",
                   "00"
                   "220401"
                   "02ac02"
                   "2a026869"
                   "3000");
    /* An empty repeated field and null are "not set". */
    assert_encodes(&f, NULL, "{\"r\": [], \"b\": null, \"s\": null}", "00");
    /* A message is written even when empty (it has presence). */
    assert_encodes(&f, NULL, "{\"b\": {}}", "003a00");
    unload(&f);
    fixture_t g = load(P2);
    /* proto2: one tag per element; a set optional field is written even at 0. */
    assert_encodes(&g, NULL, "{\"r\": [1, 2], \"o\": 0}",
                   "00"
                   "0801"
                   "0802"
                   "1000");
    unload(&g);
}

/* ---- 2. Message indexes ------------------------------------------------------- */

static void test_indexes(void **state)
{
    (void)state;
    fixture_t f = load(P3);
    /* B is the second top-level message: [1] = count 1, index 1, both zigzag. */
    assert_encodes(&f, "t.B", "{\"v\": 1}",
                   "0202"
                   "1001");
    assert_encodes(&f, "B", "{\"v\": 1}",
                   "0202"
                   "1001");
    /* A.N: [0, 0]. */
    assert_encodes(&f, "A.N", "{\"x\": 1}",
                   "040000"
                   "0801");
    assert_encodes(&f, "t.A", "{}", "00");
    unload(&f);
}

/* ---- 3. Failures -------------------------------------------------------------- */

static void test_failures(void **state)
{
    (void)state;
    fixture_t f = load(P3);
    assert_encodes(&f, "t.Nope", "{}", "error: message t.Nope is not a message of the schema's file");
    assert_encodes(&f, NULL, "{\"i\": 1, \"i\": 2}", "error: not JSON: duplicate object key near '\"i\"'");
    assert_encodes(&f, NULL, "{\"s\": \"x\", \"i\": \"1.5\"}",
                   "error: field \"i\": \"1.5\" is not an integer in range");
    assert_encodes(&f, NULL, "{\"i\": 1, \"b\": {\"next\": {\"v\": true}}}",
                   "error: field \"v\": expected an integer");
    /* The output is left as it was on failure. */
    strbuf_t out = {0};
    strbuf_puts(&out, "kept");
    char *error = NULL;
    const char *row = "{\"i\": 1, \"z\": \"no\"}";
    assert_int_equal(srclient_proto_encode(f.reader, NULL, row, strlen(row), &out, &error), -1);
    assert_int_equal(out.len, 4);
    assert_memory_equal(out.data, "kept", 4);
    free(error);
    strbuf_free(&out);
    /* Nesting past the limit (256 messages). */
    strbuf_t deep = {0};
    for (int i = 0; i < 300; i++)
        strbuf_puts(&deep, "{\"next\": ");
    strbuf_puts(&deep, "{}");
    for (int i = 0; i < 300; i++)
        strbuf_putc(&deep, '}');
    char *got = encode(&f, "t.B", deep.data);
    assert_string_equal(got, "error: messages nested deeper than 256");
    free(got);
    strbuf_free(&deep);
    unload(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bytes),
        cmocka_unit_test(test_indexes),
        cmocka_unit_test(test_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
