/*
 * fuzz_decoder: libFuzzer target for client/'s decoders and the Avro
 * encoder (docs/decoding.md "Limits", "Protobuf").
 *
 * First byte below 0x80: it picks a writer/reader pair of
 * tests/data/client/python_avro_cases.py, the rest is an Avro record:
 * decoding must end in a row or a clean error within the limits; a row
 * decoded with its own schema must encode again (bar the two forms jansson
 * cannot read back: decimals beyond a double, map keys holding U+0000); and
 * the rest is also fed to the encoder as a JSON row.
 *
 * First byte 0x80 and above: its low bit picks a Protobuf writer/reader
 * pair below, the rest is a payload (message indexes, then the message):
 * decoding must end in a clean error or a row that is one JSON value.
 *
 * `make fuzz` builds it with the targets of tests/fuzz (it links client too);
 * tests/fuzz/seed_corpus.py writes its seeds.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "client/client.h"

static const char *const pairs[][2] = {
    /* primitives */
    {"{\"type\": \"record\", \"name\": \"P\", \"fields\": [{\"name\": \"n\", \"type\": \"null\"}, {\"name\": "
     "\"b\", \"type\": \"boolean\"}, {\"name\": \"i\", \"type\": \"int\"}, {\"name\": \"l\", \"type\": "
     "\"long\"}, {\"name\": \"fl\", \"type\": \"float\"}, {\"name\": \"d\", \"type\": \"double\"}, "
     "{\"name\": \"by\", \"type\": \"bytes\"}, {\"name\": \"s\", \"type\": \"string\"}]}",
     ""},
    /* complex */
    {"{\"type\": \"record\", \"name\": \"C\", \"fields\": [{\"name\": \"arr\", \"type\": {\"type\": "
     "\"array\", \"items\": \"int\"}}, {\"name\": \"m\", \"type\": {\"type\": \"map\", \"values\": "
     "\"string\"}}, {\"name\": \"e\", \"type\": {\"type\": \"enum\", \"name\": \"E\", \"symbols\": [\"A\", "
     "\"B\", \"C\"]}}, {\"name\": \"fx\", \"type\": {\"type\": \"fixed\", \"name\": \"F4\", \"size\": 4}}, "
     "{\"name\": \"u\", \"type\": [\"null\", \"string\", \"long\"]}, {\"name\": \"nested\", \"type\": "
     "{\"type\": \"record\", \"name\": \"N\", \"fields\": [{\"name\": \"x\", \"type\": \"int\"}, {\"name\": "
     "\"tags\", \"type\": {\"type\": \"array\", \"items\": \"string\"}}]}}, {\"name\": \"list\", \"type\": "
     "{\"type\": \"array\", \"items\": \"N\"}}]}",
     ""},
    /* logical */
    {"{\"type\": \"record\", \"name\": \"L\", \"fields\": [{\"name\": \"dec\", \"type\": {\"type\": "
     "\"bytes\", \"logicalType\": \"decimal\", \"precision\": 10, \"scale\": 2}}, {\"name\": \"decf\", "
     "\"type\": {\"type\": \"fixed\", \"name\": \"D8\", \"size\": 8, \"logicalType\": \"decimal\", "
     "\"precision\": 18, \"scale\": 4}}, {\"name\": \"date\", \"type\": {\"type\": \"int\", \"logicalType\": "
     "\"date\"}}, {\"name\": \"tm\", \"type\": {\"type\": \"int\", \"logicalType\": \"time-millis\"}}, "
     "{\"name\": \"tu\", \"type\": {\"type\": \"long\", \"logicalType\": \"time-micros\"}}, {\"name\": "
     "\"tsm\", \"type\": {\"type\": \"long\", \"logicalType\": \"timestamp-millis\"}}, {\"name\": \"tsu\", "
     "\"type\": {\"type\": \"long\", \"logicalType\": \"timestamp-micros\"}}, {\"name\": \"id\", \"type\": "
     "{\"type\": \"string\", \"logicalType\": \"uuid\"}}]}",
     ""},
    /* recursive */
    {"{\"type\": \"record\", \"name\": \"Node\", \"fields\": [{\"name\": \"v\", \"type\": \"int\"}, "
     "{\"name\": \"next\", \"type\": [\"null\", \"Node\"], \"default\": null}]}",
     ""},
    /* added_field_default */
    {"{\"type\": \"record\", \"name\": \"R\", \"fields\": [{\"name\": \"a\", \"type\": \"int\"}]}",
     "{\"type\": \"record\", \"name\": \"R\", \"fields\": [{\"name\": \"a\", \"type\": \"int\"}, {\"name\": "
     "\"b\", \"type\": \"string\", \"default\": \"x\"}, {\"name\": \"c\", \"type\": [\"null\", \"int\"], "
     "\"default\": null}, {\"name\": \"d\", \"type\": {\"type\": \"array\", \"items\": \"long\"}, "
     "\"default\": [1, 2]}, {\"name\": \"e\", \"type\": \"bytes\", \"default\": \"\\u0001A\"}, {\"name\": "
     "\"g\", \"type\": {\"type\": \"record\", \"name\": \"G\", \"fields\": [{\"name\": \"h\", \"type\": "
     "\"int\", \"default\": 4}]}, \"default\": {}}]}"},
    /* promotions */
    {"{\"type\": \"record\", \"name\": \"W\", \"fields\": [{\"name\": \"il\", \"type\": \"int\"}, {\"name\": "
     "\"if\", \"type\": \"int\"}, {\"name\": \"id\", \"type\": \"int\"}, {\"name\": \"lf\", \"type\": "
     "\"long\"}, {\"name\": \"ld\", \"type\": \"long\"}, {\"name\": \"fd\", \"type\": \"float\"}]}",
     "{\"type\": \"record\", \"name\": \"W\", \"fields\": [{\"name\": \"il\", \"type\": \"long\"}, "
     "{\"name\": \"if\", \"type\": \"float\"}, {\"name\": \"id\", \"type\": \"double\"}, {\"name\": \"lf\", "
     "\"type\": \"float\"}, {\"name\": \"ld\", \"type\": \"double\"}, {\"name\": \"fd\", \"type\": "
     "\"double\"}]}"},
    /* dropped_fields */
    {"{\"type\": \"record\", \"name\": \"R\", \"fields\": [{\"name\": \"gone\", \"type\": {\"type\": "
     "\"array\", \"items\": {\"type\": \"record\", \"name\": \"X\", \"fields\": [{\"name\": \"q\", \"type\": "
     "\"string\"}]}}}, {\"name\": \"a\", \"type\": \"int\"}, {\"name\": \"m\", \"type\": {\"type\": \"map\", "
     "\"values\": [\"null\", \"double\"]}}, {\"name\": \"u\", \"type\": [\"int\", \"string\"]}, {\"name\": "
     "\"fx\", \"type\": {\"type\": \"fixed\", \"name\": \"F\", \"size\": 3}}, {\"name\": \"z\", \"type\": "
     "\"long\"}]}",
     "{\"type\": \"record\", \"name\": \"R\", \"fields\": [{\"name\": \"z\", \"type\": \"long\"}, {\"name\": "
     "\"a\", \"type\": \"int\"}]}"},
    /* union_writer_branches */
    {"{\"type\": \"record\", \"name\": \"R\", \"fields\": [{\"name\": \"u\", \"type\": [\"null\", \"int\", "
     "\"string\"]}]}",
     "{\"type\": \"record\", \"name\": \"R\", \"fields\": [{\"name\": \"u\", \"type\": [\"string\", "
     "\"null\", \"long\"]}]}"},
    /* renamed_field_alias */
    {"{\"type\": \"record\", \"name\": \"R\", \"fields\": [{\"name\": \"name\", \"type\": \"string\"}, "
     "{\"name\": \"age\", \"type\": \"int\"}]}",
     "{\"type\": \"record\", \"name\": \"R\", \"fields\": [{\"name\": \"full_name\", \"type\": \"string\", "
     "\"aliases\": [\"name\"]}, {\"name\": \"age\", \"type\": \"int\"}]}"},
    /* string_bytes */
    {"{\"type\": \"record\", \"name\": \"R\", \"fields\": [{\"name\": \"sb\", \"type\": \"string\"}, "
     "{\"name\": \"bs\", \"type\": \"bytes\"}]}",
     "{\"type\": \"record\", \"name\": \"R\", \"fields\": [{\"name\": \"sb\", \"type\": \"bytes\"}, "
     "{\"name\": \"bs\", \"type\": \"string\"}]}"},
    /* enum_default */
    {"{\"type\": \"record\", \"name\": \"R\", \"fields\": [{\"name\": \"e\", \"type\": {\"type\": \"enum\", "
     "\"name\": \"E\", \"symbols\": [\"A\", \"B\", \"NEW\"]}}]}",
     "{\"type\": \"record\", \"name\": \"R\", \"fields\": [{\"name\": \"e\", \"type\": {\"type\": \"enum\", "
     "\"name\": \"E\", \"symbols\": [\"UNKNOWN\", \"B\", \"A\"], \"default\": \"UNKNOWN\"}}]}"},
};

#define NPAIRS (sizeof(pairs) / sizeof(pairs[0]))

/* Protobuf: every kind of field and the well-known types read as
 * themselves, and a writer read with a later reader (by field number). */
static const char PROTO_ALL[] =
    "syntax = \"proto3\"; package f;\n"
    "import \"google/protobuf/timestamp.proto\"; import \"google/protobuf/duration.proto\";\n"
    "import \"google/protobuf/wrappers.proto\"; import \"google/protobuf/struct.proto\";\n"
    "message R {\n"
    "  enum E { A = 0; B = 1; }\n"
    "  message In { string s = 1; repeated sint64 v = 2; In again = 3; }\n"
    "  int32 a = 1; int64 b = 2; uint32 c = 3; uint64 d = 4; sint32 e = 5; sint64 f = 6;\n"
    "  fixed32 g = 7; fixed64 h = 8; sfixed32 i = 9; sfixed64 j = 10; float k = 11; double l = 12;\n"
    "  bool m = 13; string n = 14; bytes o = 15; E p = 16; In q = 17; repeated int32 r = 18;\n"
    "  repeated string s = 19; map<string, int64> t = 20; map<bool, In> u = 21;\n"
    "  oneof w { string x = 22; In y = 23; }\n"
    "  google.protobuf.Timestamp ts = 24; google.protobuf.Duration du = 25;\n"
    "  google.protobuf.Int64Value iv = 26; google.protobuf.Struct st = 27; google.protobuf.Value va = 28;\n"
    "  optional double od = 29; repeated E re = 30; repeated In ri = 31;\n"
    "}\n";
static const char PROTO_V2[] =
    "syntax = \"proto3\"; package f;\n"
    "message R { int64 a = 1; repeated string n2 = 14; R q = 17; float z = 40; }\n";

static proto_schema_t *proto_all, *proto_v2;
static srclient_proto_reader_t *proto_plans[2];

static proto_schema_t *proto_parse_or_abort(const char *text)
{
    char *error = NULL;
    proto_schema_t *s = proto_schema_new(text, strlen(text), NULL, 0, 0, NULL, &error);
    if (!s) {
        fprintf(stderr, "%s\n", error);
        abort();
    }
    return s;
}

static void fuzz_protobuf(size_t pick, const uint8_t *data, size_t size)
{
    if (!proto_all) {
        srclient_avro_limits_t limits = {.max_output = 1 << 20, .max_values = 100000};
        char *error = NULL;
        proto_all = proto_parse_or_abort(PROTO_ALL);
        proto_v2 = proto_parse_or_abort(PROTO_V2);
        proto_plans[0] = srclient_proto_reader_new(proto_all, &limits, &error);
        proto_plans[1] = srclient_proto_reader_new(proto_v2, &limits, &error);
        if (!proto_plans[0] || !proto_plans[1])
            abort();
    }
    strbuf_t row = {0};
    char *error = NULL;
    /* Pair 1: PROTO_ALL's records read with PROTO_V2. */
    if (srclient_proto_decode(proto_plans[pick], pick ? proto_all : NULL, data, size, &row, &error) == 0) {
        json_error_t je;
        json_t *v = json_loadb(row.data, row.len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
        if (!v) {
            fprintf(stderr, "a row that is not JSON: %s\n", row.data);
            abort();
        }
        json_decref(v);
    } else
        free(error);
    strbuf_free(&row);
}

static avro_model_t *writers[NPAIRS], *readers[NPAIRS];
static srclient_avro_reader_t *plans[NPAIRS];

static void setup(size_t i)
{
    char *error = NULL;
    writers[i] = avro_model_parse(pairs[i][0], strlen(pairs[i][0]), NULL, 0, 0, &error);
    readers[i] = *pairs[i][1] ? avro_model_parse(pairs[i][1], strlen(pairs[i][1]), NULL, 0, 0, &error) : NULL;
    if (!writers[i] || (*pairs[i][1] && !readers[i]))
        abort();
    srclient_avro_limits_t limits = {.max_output = 1 << 20, .max_values = 100000};
    plans[i] = srclient_avro_reader_new(writers[i], readers[i], &limits, &error);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    if (data[0] & 0x80) {
        fuzz_protobuf(data[0] & 1, data + 1, size - 1);
        return 0;
    }
    size_t i = data[0] % NPAIRS;
    if (!plans[i])
        setup(i);
    strbuf_t row = {0};
    char *error = NULL;
    if (srclient_avro_decode(plans[i], data + 1, size - 1, &row, &error) == 0) {
        if (!*pairs[i][1] && !strstr(pairs[i][0], "decimal") && !strstr(row.data, "\\u0000")) {
            strbuf_t back = {0};
            if (srclient_avro_encode(writers[i], row.data, row.len, &back, &error) != 0) {
                fprintf(stderr, "decoded but does not encode: %s\n%s\n", row.data, error);
                abort();
            }
            strbuf_free(&back);
        }
    } else
        free(error);
    strbuf_free(&row);
    strbuf_t bin = {0};
    if (srclient_avro_encode(writers[i], (const char *)data + 1, size - 1, &bin, &error) != 0)
        free(error);
    strbuf_free(&bin);
    return 0;
}
