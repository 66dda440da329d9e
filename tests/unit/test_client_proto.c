/*
 * test_client_proto: the Protobuf decoder of client/ (client.h, section 3b).
 *
 *   1. Records written by protoc (`protoc --encode` from text format),
 *      framed with their message indexes, read by ours into the proto3 JSON
 *      mapping (the expected rows written out by hand from the mapping in
 *      protobuf.dev "ProtoJSON Format"); a row reads back through
 *      `protoc --decode` as the same text
 *   2. Evolution by field number: a writer's record read with a reader
 *   3. Wire rules: merging, last value wins, oneof, unpacked repeated
 *   4. Hostile payloads: truncation, huge lengths, deep nesting, limits
 *
 * Skips visibly when protoc is not installed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "test_support.h"
#include "client/client.h"

static char tmpdir[256];

static const char ROW_PROTO[] =
    "syntax = \"proto3\";\n"
    "package t;\n"
    "import \"google/protobuf/timestamp.proto\";\n"
    "import \"google/protobuf/duration.proto\";\n"
    "import \"google/protobuf/wrappers.proto\";\n"
    "import \"google/protobuf/struct.proto\";\n"
    "message Other { int32 x = 1; }\n"
    "message Row {\n"
    "  enum Color { RED = 0; GREEN = 1; BLUE = 2; }\n"
    "  message Inner { string s = 1; repeated int32 v = 2; }\n"
    "  int32 i32 = 1; int64 i64 = 2; uint32 u32 = 3; uint64 u64 = 4;\n"
    "  sint32 s32 = 5; sint64 s64 = 6; fixed32 f32 = 7; fixed64 f64 = 8;\n"
    "  sfixed32 sf32 = 9; sfixed64 sf64 = 10; float fl = 11; double db = 12;\n"
    "  bool b = 13; string str = 14; bytes by = 15; Color color = 16;\n"
    "  Inner inner = 17; repeated int32 packed = 18; repeated string names = 19;\n"
    "  map<string, int64> counts = 20; map<int32, Inner> by_id = 21;\n"
    "  oneof choice { string text = 22; Other other = 23; }\n"
    "  google.protobuf.Timestamp at = 24; google.protobuf.Duration took = 25;\n"
    "  google.protobuf.Int64Value big = 26; google.protobuf.StringValue label = 27;\n"
    "  optional int32 maybe = 28; string field_with_json = 29 [json_name = \"custom\"];\n"
    "  google.protobuf.Struct meta = 30; repeated Inner inners = 31;\n"
    "}\n"
    "message Node { Node child = 1; int32 n = 2; }\n";

/* ---- Helpers ------------------------------------------------------------------ */

static int have_protoc(void)
{
    return system("protoc --version >/dev/null 2>&1") == 0;
}

static void write_file(const char *path, const char *text, size_t len)
{
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *p = dir + 1; *p; p++)
        if (*p == '/') {
            *p = 0;
            mkdir(dir, 0700);
            *p = '/';
        }
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(text, 1, len, f), len);
    fclose(f);
}

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/client_proto_XXXXXX");
    if (!mkdtemp(tmpdir))
        return -1;
    /* protoc imports the same built-in files our schemas hold. */
    for (const char *const *p = proto_builtin_paths(); *p; p++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", tmpdir, *p);
        const char *text = proto_builtin_text(*p);
        write_file(path, text, strlen(text));
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static proto_schema_t *schema(const char *text)
{
    char *err = NULL;
    proto_schema_t *s = proto_schema_new(text, strlen(text), NULL, 0, 0, NULL, &err);
    if (!s)
        fail_msg("schema does not parse: %s", err);
    return s;
}

/* protoc --encode=type of text (text format) against proto, as bytes. */
static uint8_t *protoc_encode(const char *proto, const char *type, const char *text, size_t *len)
{
    char path[512], in[512], out[512], cmd[2048];
    snprintf(path, sizeof path, "%s/t.proto", tmpdir);
    snprintf(in, sizeof in, "%s/in.txt", tmpdir);
    snprintf(out, sizeof out, "%s/out.bin", tmpdir);
    write_file(path, proto, strlen(proto));
    write_file(in, text, strlen(text));
    snprintf(cmd, sizeof cmd, "protoc -I'%s' --encode=%s '%s' <'%s' >'%s'", tmpdir, type, path, in, out);
    if (system(cmd) != 0)
        fail_msg("protoc --encode failed: %s", text);
    uint8_t *data = (uint8_t *)test_read_file(out, len);
    assert_non_null(data);
    return data;
}

/* The payload as the wire carries it: indexes (hex), then the message. */
static uint8_t *framed(const char *indexes_hex, const uint8_t *msg, size_t n, size_t *len)
{
    size_t k = strlen(indexes_hex) / 2;
    uint8_t *p = malloc(k + n + 1);
    for (size_t i = 0; i < k; i++) {
        unsigned v;
        sscanf(indexes_hex + 2 * i, "%2x", &v);
        p[i] = (uint8_t)v;
    }
    memcpy(p + k, msg, n);
    *len = k + n;
    return p;
}

/* Decodes and returns the row (malloc'd), or NULL with *error. */
static char *decode(const proto_schema_t *reader, const proto_schema_t *writer,
                    const srclient_avro_limits_t *lim, const uint8_t *p, size_t n, char **error)
{
    char *perr = NULL;
    srclient_proto_reader_t *r = srclient_proto_reader_new(reader, lim, &perr);
    if (!r)
        fail_msg("reader: %s", perr);
    strbuf_t out = {0};
    strbuf_puts(&out, "");
    *error = NULL;
    int rc = srclient_proto_decode(r, writer, p, n, &out, error);
    srclient_proto_reader_free(r);
    if (rc != 0) {
        assert_non_null(*error);
        assert_int_equal(out.len, 0);
        strbuf_free(&out);
        return NULL;
    }
    return strbuf_take(&out);
}

static void assert_json(const char *got, const char *want)
{
    json_error_t e;
    json_t *a = json_loads(got, JSON_DECODE_ANY, &e), *b = json_loads(want, JSON_DECODE_ANY, &e);
    if (!a)
        fail_msg("not JSON: %s", got);
    assert_non_null(b);
    if (!json_equal(a, b))
        fail_msg("got  %s\nwant %s", got, want);
    json_decref(a);
    json_decref(b);
}

/* protoc's text record through protoc --encode, index bytes, ours. */
static char *row_of(const char *type, const char *idx, const char *text)
{
    size_t n, len;
    uint8_t *msg = protoc_encode(ROW_PROTO, type, text, &n);
    uint8_t *p = framed(idx, msg, n, &len);
    proto_schema_t *s = schema(ROW_PROTO);
    char *err;
    char *row = decode(s, NULL, NULL, p, len, &err);
    if (!row)
        fail_msg("decode failed: %s", err);
    proto_schema_free(s);
    free(p);
    free(msg);
    return row;
}

#define SKIP_WITHOUT_PROTOC()                                                                                \
    do {                                                                                                     \
        if (!have_protoc()) {                                                                                \
            print_message("protoc not installed: skipped\n");                                                \
            skip();                                                                                          \
        }                                                                                                    \
    } while (0)

/* ---- 1. Records written by protoc ------------------------------------------------ */

static void test_every_type(void **state)
{
    (void)state;
    SKIP_WITHOUT_PROTOC();
    char *row = row_of(
        "t.Row",
        "02"
        "02",
        "i32: -5 i64: -9000000000 u32: 4000000000 u64: 18446744073709551615 s32: -3 s64: -4 f32: 7 f64: 8\n"
        "sf32: -9 sf64: -10 fl: 0.1 db: 2.5 b: true str: \"h\\303\\251llo\" by: \"\\000\\377\" color: BLUE\n"
        "inner { s: \"in\" v: 1 v: 2 } packed: [1, 2, 300] names: \"a\" names: \"b\"\n"
        "counts { key: \"x\" value: 1 } counts { key: \"y\" value: -2 } by_id { key: 7 value { s: \"seven\" "
        "} }\n"
        "other { x: 3 } at { seconds: 1700000000 nanos: 500000000 } took { seconds: 90 nanos: 1000 }\n"
        "big { value: 12 } label { value: \"L\" } maybe: 0 field_with_json: \"j\"\n"
        "meta { fields { key: \"k\" value { number_value: 1.5 } } fields { key: \"n\" value { null_value: "
        "NULL_VALUE } }\n"
        "  fields { key: \"l\" value { list_value { values { string_value: \"s\" } values { bool_value: true "
        "} } } } }\n"
        "inners { s: \"a\" } inners { }\n");
    assert_json(row,
                "{\"i32\":-5,\"i64\":\"-9000000000\",\"u32\":4000000000,\"u64\":\"18446744073709551615\","
                "\"s32\":-3,\"s64\":\"-4\",\"f32\":7,\"f64\":\"8\",\"sf32\":-9,\"sf64\":\"-10\",\"fl\":0.1,"
                "\"db\":2.5,\"b\":true,\"str\":\"h\\u00e9llo\",\"by\":\"AP8=\",\"color\":\"BLUE\","
                "\"inner\":{\"s\":\"in\",\"v\":[1,2]},\"packed\":[1,2,300],\"names\":[\"a\",\"b\"],"
                "\"counts\":{\"x\":\"1\",\"y\":\"-2\"},\"byId\":{\"7\":{\"s\":\"seven\",\"v\":[]}},"
                "\"other\":{\"x\":3},\"at\":\"2023-11-14T22:13:20.500Z\",\"took\":\"90.000001s\","
                "\"big\":\"12\",\"label\":\"L\",\"maybe\":0,\"custom\":\"j\","
                "\"meta\":{\"k\":1.5,\"n\":null,\"l\":[\"s\",true]},"
                "\"inners\":[{\"s\":\"a\",\"v\":[]},{\"s\":\"\",\"v\":[]}]}");
    /* Fields in declaration order, the float as protoc prints it. */
    assert_non_null(strstr(row, "\"fl\":0.1,\"db\":2.5,"));
    assert_int_equal(strncmp(row, "{\"i32\":-5,\"i64\":", 16), 0);
    free(row);
}

static void test_defaults(void **state)
{
    (void)state;
    SKIP_WITHOUT_PROTOC();
    /* Nothing set: fields without presence at their defaults, the others
     * (messages, oneof members, `optional`) left out. */
    char *row = row_of("t.Row", "0202", "");
    assert_string_equal(row,
                        "{\"i32\":0,\"i64\":\"0\",\"u32\":0,\"u64\":\"0\",\"s32\":0,\"s64\":\"0\",\"f32\":0,"
                        "\"f64\":\"0\",\"sf32\":0,\"sf64\":\"0\",\"fl\":0,\"db\":0,\"b\":false,\"str\":\"\","
                        "\"by\":\"\",\"color\":\"RED\",\"packed\":[],\"names\":[],\"counts\":{},\"byId\":{},"
                        "\"custom\":\"\",\"inners\":[]}");
    free(row);
}

static void test_message_indexes(void **state)
{
    (void)state;
    SKIP_WITHOUT_PROTOC();
    /* [0] as the single byte 0 is the first message, Other. */
    char *row = row_of("t.Other", "00", "x: 4");
    assert_string_equal(row, "{\"x\":4}");
    free(row);
    /* [1, 0]: Row's first nested message (enums are not counted). */
    row = row_of("t.Row.Inner", "040200", "s: \"q\" v: [3]");
    assert_string_equal(row, "{\"s\":\"q\",\"v\":[3]}");
    free(row);
    /* [2]: Node. */
    row = row_of("t.Node", "0204", "child { child { n: 2 } }");
    assert_string_equal(row, "{\"child\":{\"child\":{\"n\":2},\"n\":0},\"n\":0}");
    free(row);
}

static void test_well_known_edges(void **state)
{
    (void)state;
    SKIP_WITHOUT_PROTOC();
    char *row = row_of("t.Row", "0202", "at { seconds: -1 nanos: 1 } took { seconds: -1 nanos: -500000 }");
    assert_non_null(strstr(row, "\"at\":\"1969-12-31T23:59:59.000000001Z\",\"took\":\"-1.000500s\""));
    free(row);
    row = row_of("t.Row", "0202", "at { seconds: -62135596800 } big { } label { value: \"\" }");
    assert_non_null(strstr(row, "\"at\":\"0001-01-01T00:00:00Z\",\"big\":\"0\",\"label\":\"\""));
    free(row);
}

/* ---- 2. Evolution by field number ------------------------------------------------ */

static void test_reader_by_field_number(void **state)
{
    (void)state;
    SKIP_WITHOUT_PROTOC();
    const char *v1 =
        "syntax = \"proto3\"; package e; message Row { int32 id = 1; string name = 2; int32 gone = 3; }";
    const char *v2 =
        "syntax = \"proto3\"; package e;\n"
        "message Row { int32 id = 1; string full_name = 2; int64 qty = 4; optional string note = 5; }";
    size_t n, len;
    uint8_t *msg = protoc_encode(v1, "e.Row", "id: 1 name: \"a\" gone: 9", &n);
    uint8_t *p = framed("00", msg, n, &len);
    proto_schema_t *w = schema(v1), *r = schema(v2);
    char *err;
    /* Renamed by number, the dropped field skipped, the added one at its default. */
    char *row = decode(r, w, NULL, p, len, &err);
    assert_non_null(row);
    assert_string_equal(row, "{\"id\":1,\"fullName\":\"a\",\"qty\":\"0\"}");
    free(row);
    /* A writer message the reader does not have. */
    const char *v3 = "syntax = \"proto3\"; package e; message Other { int32 id = 1; }";
    proto_schema_t *o = schema(v3);
    assert_null(decode(o, w, NULL, p, len, &err));
    assert_string_equal(err, "message e.Row is not in the reader schema");
    free(err);
    proto_schema_free(o);
    proto_schema_free(w);
    proto_schema_free(r);
    free(p);
    free(msg);
}

/* Fields unknown to the reader, dropped (the default, as the proto3 JSON
 * mapping drops them) or kept as "@unknown" (srclient_proto_reader_keep_unknown):
 * wire types 0, 1, 2, 5 and a group, a known field's number with a wire type
 * it cannot have, and unknown fields of nested messages. Bytes by hand. */
static char *decode_unknown(const proto_schema_t *reader, const srclient_avro_limits_t *lim, int keep,
                            const uint8_t *p, size_t n, char **error)
{
    char *perr = NULL;
    srclient_proto_reader_t *r = srclient_proto_reader_new(reader, lim, &perr);
    if (!r)
        fail_msg("reader: %s", perr);
    srclient_proto_reader_keep_unknown(r, keep);
    strbuf_t out = {0};
    strbuf_puts(&out, "");
    *error = NULL;
    int rc = srclient_proto_decode(r, NULL, p, n, &out, error);
    srclient_proto_reader_free(r);
    if (rc != 0) {
        assert_int_equal(out.len, 0);
        strbuf_free(&out);
        return NULL;
    }
    return strbuf_take(&out);
}

static void test_unknown_fields(void **state)
{
    (void)state;
    const char *v1 = "syntax = \"proto3\"; package u;\n"
                     "message Row { message Inner { int32 a = 1; }\n"
                     "  int32 id = 1; Inner inner = 2; repeated Inner items = 3; map<string, int32> m = 4; }";
    static const uint8_t rec[] = {
        0x00,                                                 /* message indexes [0] */
        0x08, 0x01,                                           /* id = 1 */
        0x28, 0x96, 0x01,                                     /* 5: varint 150 */
        0x31, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, /* 6: fixed64 2^64-1 */
        0x3a, 0x02, 'h',  'i',                                /* 7: length-delimited "hi" */
        0x45, 0x07, 0x00, 0x00, 0x00,                         /* 8: fixed32 7 */
        0x12, 0x04, 0x08, 0x05, 0x48, 0x01,                   /* inner {a: 5, 9: varint 1} */
        0x0d, 0x01, 0x00, 0x00, 0x00,                         /* 1 as a fixed32: unknown */
        0x53, 0x08, 0x02, 0x54,                               /* 10: a group holding 1: varint 2 */
        0x1a, 0x02, 0x50, 0x03,                               /* items {10: varint 3} */
        0x22, 0x05, 0x0a, 0x01, 'k',  0x10, 0x04,             /* m {"k": 4} */
    };
    proto_schema_t *s = schema(v1);
    char *err;
    char *row = decode_unknown(s, NULL, 0, rec, sizeof rec, &err);
    assert_non_null(row);
    assert_string_equal(row, "{\"id\":1,\"inner\":{\"a\":5},\"items\":[{\"a\":0}],\"m\":{\"k\":4}}");
    free(row);
    row = decode_unknown(s, NULL, 1, rec, sizeof rec, &err);
    assert_non_null(row);
    assert_string_equal(
        row, "{\"id\":1,\"inner\":{\"a\":5,\"@unknown\":[{\"number\":9,\"wireType\":0,\"value\":\"1\"}]},"
             "\"items\":[{\"a\":0,\"@unknown\":[{\"number\":10,\"wireType\":0,\"value\":\"3\"}]}],"
             "\"m\":{\"k\":4},"
             "\"@unknown\":[{\"number\":5,\"wireType\":0,\"value\":\"150\"},"
             "{\"number\":6,\"wireType\":1,\"value\":\"18446744073709551615\"},"
             "{\"number\":7,\"wireType\":2,\"value\":\"aGk=\"},"
             "{\"number\":8,\"wireType\":5,\"value\":7},"
             "{\"number\":1,\"wireType\":5,\"value\":1},"
             "{\"number\":10,\"wireType\":3,\"value\":\"CAI=\"}]}");
    free(row);
    /* Kept fields count against the same limits: values per record, JSON bytes. */
    srclient_avro_limits_t few = {.max_values = 4};
    assert_null(decode_unknown(s, &few, 1, rec, sizeof rec, &err));
    assert_non_null(err);
    free(err);
    srclient_avro_limits_t short_out = {.max_output = 60};
    row = decode_unknown(s, &short_out, 0, rec, sizeof rec, &err);
    assert_non_null(row);
    free(row);
    assert_null(decode_unknown(s, &short_out, 1, rec, sizeof rec, &err));
    assert_non_null(strstr(err, "longer than 60 bytes"));
    free(err);
    proto_schema_free(s);
}

/* What decode keeps, srclient_proto_encode writes back after the known
 * fields (as protoc serializes unknown fields): a record in that order comes
 * back byte for byte; a bad "@unknown" is an error, never bytes. */
static void test_unknown_fields_encode(void **state)
{
    (void)state;
    const char *v1 = "syntax = \"proto3\"; package u;\n"
                     "message Row { message Inner { int32 a = 1; }\n"
                     "  int32 id = 1; Inner inner = 2; repeated Inner items = 3; map<string, int32> m = 4; }";
    static const uint8_t rec[] = {
        0x00, 0x08, 0x01, 0x12, 0x04, 0x08, 0x05, 0x48, 0x01, 0x1a, 0x02, 0x50, 0x03, 0x22, 0x05, 0x0a, 0x01,
        'k',  0x10, 0x04, 0x28, 0x96, 0x01, 0x31, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x3a, 0x02,
        'h',  'i',  0x45, 0x07, 0x00, 0x00, 0x00, 0x0d, 0x01, 0x00, 0x00, 0x00, 0x53, 0x08, 0x02, 0x54,
    };
    proto_schema_t *s = schema(v1);
    char *err = NULL, *perr = NULL;
    char *row = decode_unknown(s, NULL, 1, rec, sizeof rec, &err);
    assert_non_null(row);
    srclient_proto_reader_t *r = srclient_proto_reader_new(s, NULL, &perr);
    assert_non_null(r);
    strbuf_t out = {0};
    assert_int_equal(srclient_proto_encode(r, NULL, row, strlen(row), &out, &err), 0);
    assert_int_equal(out.len, sizeof rec);
    assert_memory_equal(out.data, rec, sizeof rec);
    strbuf_free(&out);
    free(row);
    static const struct {
        const char *row, *error;
    } bad[] = {
        {"{\"@unknown\": 1}", "u.Row: \"@unknown\" is an array"},
        {"{\"@unknown\": [{\"number\": 5, \"wireType\": 0}]}",
         "u.Row: \"@unknown\"[0] is {\"number\", \"wireType\", \"value\"}"},
        {"{\"@unknown\": [{\"number\": 0, \"wireType\": 0, \"value\": \"1\"}]}",
         "u.Row: \"@unknown\"[0]: field number 0 is out of range"},
        {"{\"@unknown\": [{\"number\": 5, \"wireType\": 4, \"value\": \"1\"}]}",
         "u.Row: \"@unknown\"[0]: wire type 4 is not 0, 1, 2, 3 or 5"},
        {"{\"@unknown\": [{\"number\": 5, \"wireType\": 5, \"value\": 4294967296}]}",
         "field \"@unknown\": 4294967296 is out of range"},
        {"{\"@unknown\": [{\"number\": 5, \"wireType\": 2, \"value\": \"!\"}]}",
         "field \"@unknown\": not base64"},
        /* 08: a varint's tag and no varint; 0c: an end tag closing the group itself. */
        {"{\"@unknown\": [{\"number\": 5, \"wireType\": 3, \"value\": \"CA==\"}]}",
         "u.Row: \"@unknown\"[0]: not the bytes of a group"},
        {"{\"inner\": {\"@unknown\": [{\"number\": 5, \"wireType\": 3, \"value\": \"DA==\"}]}}",
         "u.Row.Inner: \"@unknown\"[0]: not the bytes of a group"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err = NULL;
        if (srclient_proto_encode(r, NULL, bad[i].row, strlen(bad[i].row), &out, &err) == 0)
            fail_msg("encoded: %s", bad[i].row);
        assert_int_equal(out.len, 0);
        assert_string_equal(err, bad[i].error);
        free(err);
    }
    strbuf_free(&out);
    srclient_proto_reader_free(r);
    proto_schema_free(s);
}

/* ---- 3. Wire rules --------------------------------------------------------------- */

static void test_merge_and_last_wins(void **state)
{
    (void)state;
    SKIP_WITHOUT_PROTOC();
    size_t n1, n2;
    uint8_t *a = protoc_encode(ROW_PROTO, "t.Row",
                               "i32: 1 inner { s: \"a\" } text: \"t\" counts { key: \"x\" value: 1 }", &n1);
    uint8_t *b = protoc_encode(ROW_PROTO, "t.Row",
                               "i32: 2 inner { v: 5 } other { x: 1 } counts { key: \"x\" value: 2 }", &n2);
    uint8_t *cat = malloc(n1 + n2 + 2);
    cat[0] = 0x02;
    cat[1] = 0x02;
    memcpy(cat + 2, a, n1);
    memcpy(cat + 2 + n1, b, n2);
    proto_schema_t *s = schema(ROW_PROTO);
    char *err;
    char *row = decode(s, NULL, NULL, cat, n1 + n2 + 2, &err);
    assert_non_null(row);
    /* Concatenated messages merge: the last scalar, the merged message, the
     * last oneof member, the last value of a map key. */
    assert_non_null(strstr(row, "{\"i32\":2,"));
    assert_non_null(strstr(row, "\"inner\":{\"s\":\"a\",\"v\":[5]}"));
    assert_non_null(strstr(row, "\"counts\":{\"x\":\"2\"}"));
    assert_non_null(strstr(row, "\"other\":{\"x\":1}"));
    assert_null(strstr(row, "\"text\""));
    free(row);
    /* Repeated scalars unpacked (proto2 writers) read like packed ones; a
     * field of the wrong wire type and an unknown field are skipped. */
    const uint8_t unpacked[] = {0x02, 0x02, 0x90, 0x01, 0x05, 0x90, 0x01, 0x06, 0x92, 0x01,
                                0x01, 0x07, 0x08, 0x2a, 0x0a, 0x01, 0x00, 0xf8, 0x07, 0x01};
    row = decode(s, NULL, NULL, unpacked, sizeof unpacked, &err);
    assert_non_null(row);
    assert_non_null(strstr(row, "{\"i32\":42,"));
    assert_non_null(strstr(row, "\"packed\":[5,6,7]"));
    free(row);
    proto_schema_free(s);
    free(cat);
    free(a);
    free(b);
}

/* Our row read back by protoc: the text protoc prints for the bytes equals
 * the text it prints for the bytes it writes from our row's values. */
static void test_protoc_decode_agrees(void **state)
{
    (void)state;
    SKIP_WITHOUT_PROTOC();
    size_t n;
    uint8_t *msg = protoc_encode(ROW_PROTO, "t.Other", "x: -7", &n);
    char path[512], bin[512], cmd[2048];
    snprintf(path, sizeof path, "%s/t.proto", tmpdir);
    snprintf(bin, sizeof bin, "%s/out.bin", tmpdir);
    snprintf(cmd, sizeof cmd, "protoc -I'%s' --decode=t.Other '%s' <'%s'", tmpdir, path, bin);
    FILE *f = popen(cmd, "r");
    char text[256] = {0};
    assert_true(fread(text, 1, sizeof text - 1, f) > 0);
    pclose(f);
    assert_string_equal(text, "x: -7\n");
    char *row = row_of("t.Other", "00", "x: -7");
    assert_string_equal(row, "{\"x\":-7}");
    free(row);
    free(msg);
}

/* ---- 4. Hostile payloads --------------------------------------------------------- */

static void expect_error(const proto_schema_t *s, const srclient_avro_limits_t *lim, const uint8_t *p,
                         size_t n, const char *want)
{
    char *err;
    char *row = decode(s, NULL, lim, p, n, &err);
    if (row)
        fail_msg("decoded: %s", row);
    if (!strstr(err, want))
        fail_msg("error %s, want %s", err, want);
    free(err);
}

static void test_hostile(void **state)
{
    (void)state;
    proto_schema_t *s = schema(ROW_PROTO);
    /* A string (Row field 14) claiming 4 GiB. */
    const uint8_t huge[] = {0x02, 0x02, 0x72, 0xff, 0xff, 0xff, 0xff, 0x0f, 'a'};
    expect_error(s, NULL, huge, sizeof huge, "a length of 4294967295 with 1 bytes left");
    const uint8_t overlong[] = {0x02, 0x02, 0x08, 0xff, 0xff, 0xff, 0xff,
                                0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    expect_error(s, NULL, overlong, sizeof overlong, "overlong varint");
    const uint8_t wt7[] = {0x02, 0x02, 0x0f};
    expect_error(s, NULL, wt7, sizeof wt7, "wire type 7");
    const uint8_t zero[] = {0x02, 0x02, 0x00, 0x01};
    expect_error(s, NULL, zero, sizeof zero, "field number 0");
    const uint8_t endgroup[] = {0x02, 0x02, 0x0c};
    expect_error(s, NULL, endgroup, sizeof endgroup, "wire type 4");
    const uint8_t noidx[] = {0x02, 0x08};
    expect_error(s, NULL, noidx, sizeof noidx, "name no message");
    const uint8_t badidx[] = {0x03};
    expect_error(s, NULL, badidx, sizeof badidx, "bad message indexes");
    /* A Timestamp (Row field 24) past year 9999. */
    const uint8_t late[] = {0x02, 0x02, 0xc2, 0x01, 0x07, 0x08, 0x80, 0x80, 0x80, 0x80, 0x80, 0x10};
    expect_error(s, NULL, late, sizeof late, "Timestamp out of range");
    /* Nodes nested 2000 deep (field 1 of Node is a Node). */
    size_t depth = 2000, cap = 3 * depth + 8;
    uint8_t *deep = calloc(1, cap);
    size_t len = 0;
    uint8_t *tmp = calloc(1, cap);
    for (size_t i = 0; i < depth; i++) {
        /* Wrap what we have: tag 0x0a, a varint length, the bytes. */
        size_t k = 0;
        tmp[k++] = 0x0a;
        size_t l = len;
        do {
            tmp[k++] = (uint8_t)((l & 0x7f) | (l > 0x7f ? 0x80 : 0));
            l >>= 7;
        } while (l);
        memcpy(tmp + k, deep, len);
        len += k;
        memcpy(deep, tmp, len);
    }
    uint8_t *rec = framed("0204", deep, len, &len);
    expect_error(s, NULL, rec, len, "nested deeper than 256");
    srclient_avro_limits_t shallow = {.max_depth = 10};
    expect_error(s, &shallow, rec, len, "nested deeper than 10");
    /* Values and output bounds. */
    uint8_t many[2 + 3 + 300];
    many[0] = 0x02;
    many[1] = 0x02;
    many[2] = 0x92;
    many[3] = 0x01;
    many[4] = 100;
    memset(many + 5, 1, 100);
    srclient_avro_limits_t few = {.max_values = 50};
    expect_error(s, &few, many, 105, "more than 50 values");
    srclient_avro_limits_t small = {.max_output = 100};
    expect_error(s, &small, many, 105, "longer than 100 bytes");
    /* Every prefix of a real record either decodes or fails cleanly. */
    const uint8_t good[] = {0x02, 0x02, 0x08, 0x2a, 0x72, 0x02, 'h',  'i',  0x8a, 0x01, 0x04, 0x0a,
                            0x02, 'i',  'n',  0xa2, 0x01, 0x05, 0x0a, 0x01, 'k',  0x10, 0x03};
    for (size_t cut = 0; cut <= sizeof good; cut++) {
        char *err;
        char *row = decode(s, NULL, NULL, good, cut, &err);
        free(row);
        free(err);
    }
    free(rec);
    free(tmp);
    free(deep);
    proto_schema_free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_type),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_message_indexes),
        cmocka_unit_test(test_well_known_edges),
        cmocka_unit_test(test_reader_by_field_number),
        cmocka_unit_test(test_unknown_fields),
        cmocka_unit_test(test_unknown_fields_encode),
        cmocka_unit_test(test_merge_and_last_wins),
        cmocka_unit_test(test_protoc_decode_agrees),
        cmocka_unit_test(test_hostile),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
