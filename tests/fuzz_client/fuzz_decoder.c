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
 * First byte 0x80 to 0xbf: its low bit picks a Protobuf writer/reader
 * pair below, the rest is a payload (message indexes, then the message):
 * decoding must end in a clean error or a row that is one JSON value; a
 * row read with its own schema must encode again (srclient_proto_encode)
 * to a payload that decodes to the same row; and the rest is also fed to
 * the Protobuf encoder as a JSON row. Its bit 0x02 also decodes with
 * unknown fields kept (srclient_proto_reader_keep_unknown): a row that is
 * one JSON value, the drop row with the "@unknown" keys taken out, and
 * (read as itself) one that encodes and decodes back to itself.
 *
 * First byte 0xc0 and above: the rest is a JSON value validated against
 * the JSON schemas below (srclient_json_validate): a verdict within the
 * limits, never a crash.
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

/* v without its "@unknown" keys, at every level. */
static void strip_unknown(json_t *v)
{
    if (json_is_object(v)) {
        json_object_del(v, "@unknown");
        const char *k;
        json_t *x;
        json_object_foreach(v, k, x) strip_unknown(x);
    } else if (json_is_array(v)) {
        size_t i;
        json_t *x;
        json_array_foreach(v, i, x) strip_unknown(x);
    }
}

/*
 * decode(encode(row)) == row for a row PROTO_ALL's reader decoded from data,
 * with unknown fields kept ("@unknown" written back and read again) or not.
 * The message is the one the indexes named (the first, unless they say
 * otherwise); the same JSON value is compared (invalid UTF-8 read as "\ufffd"
 * comes back as U+FFFD itself).
 */
static void fuzz_protobuf_round_trip(const uint8_t *data, size_t size, const strbuf_t *row, int keep)
{
    int64_t idx[64];
    size_t n;
    const proto_symbol_t *sym = NULL;
    if (srclient_proto_indexes(data, size, idx, 64, &n) >= 0)
        sym = proto_schema_message_at(proto_all, idx, n);
    if (!sym || strstr(row->data, "\\u0000"))
        return;
    strbuf_t bin = {0}, again = {0};
    char *error = NULL;
    json_error_t je;
    if (srclient_proto_encode(proto_plans[0], sym->full_name, row->data, row->len, &bin, &error) != 0) {
        fprintf(stderr, "decoded%s but does not encode: %s\n%s\n", keep ? " (kept)" : "", row->data, error);
        abort();
    }
    srclient_proto_reader_keep_unknown(proto_plans[0], keep);
    json_t *x = json_loadb(row->data, row->len, JSON_DECODE_ANY, &je), *y = NULL;
    int same = srclient_proto_decode(proto_plans[0], NULL, (const uint8_t *)bin.data, bin.len, &again,
                                     &error) == 0 &&
               (y = json_loadb(again.data, again.len, JSON_DECODE_ANY, &je)) && json_equal(x, y);
    srclient_proto_reader_keep_unknown(proto_plans[0], 0);
    json_decref(x);
    json_decref(y);
    if (!same) {
        fprintf(stderr, "decode(encode(%s)) is not the row:\n%s\n%s\n", keep ? "kept row" : "row", row->data,
                again.data ? again.data : error);
        abort();
    }
    strbuf_free(&bin);
    strbuf_free(&again);
}

/* With unknown fields kept, a row is the drop row plus "@unknown" keys; it may
 * fail where drop succeeded (more output), never the other way round. */
static void fuzz_protobuf_keep(size_t pick, const uint8_t *data, size_t size, const strbuf_t *dropped)
{
    strbuf_t row = {0};
    char *error = NULL;
    srclient_proto_reader_keep_unknown(proto_plans[pick], 1);
    int rc = srclient_proto_decode(proto_plans[pick], pick ? proto_all : NULL, data, size, &row, &error);
    srclient_proto_reader_keep_unknown(proto_plans[pick], 0);
    if (rc != 0) {
        free(error);
        strbuf_free(&row);
        return;
    }
    json_error_t je;
    json_t *v = json_loadb(row.data, row.len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
    if (!v || !dropped) {
        fprintf(stderr, "%s with unknown fields kept: %s\n", v ? "decoded only" : "a row that is not JSON",
                row.data);
        abort();
    }
    /* A map or Struct key "@unknown" of the record's own would be taken out too. */
    if (!strstr(dropped->data, "@unknown")) {
        json_t *d = json_loadb(dropped->data, dropped->len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
        strip_unknown(v);
        if (!json_equal(v, d)) {
            fprintf(stderr, "kept without \"@unknown\" is not the drop row:\n%s\n%s\n", row.data,
                    dropped->data);
            abort();
        }
        json_decref(d);
    }
    json_decref(v);
    /* Read as itself, the kept row encodes ("@unknown" written back) to a
     * payload that decodes, kept, to the same row. */
    if (!pick)
        fuzz_protobuf_round_trip(data, size, &row, 1);
    strbuf_free(&row);
}

static void fuzz_protobuf(size_t pick, int keep, const uint8_t *data, size_t size)
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
    int decoded =
        srclient_proto_decode(proto_plans[pick], pick ? proto_all : NULL, data, size, &row, &error) == 0;
    if (keep)
        fuzz_protobuf_keep(pick, data, size, decoded ? &row : NULL);
    if (decoded) {
        json_error_t je;
        json_t *v = json_loadb(row.data, row.len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
        if (!v) {
            fprintf(stderr, "a row that is not JSON: %s\n", row.data);
            abort();
        }
        json_decref(v);
        /* Read as itself, the row is what the encoder reads: decode(encode(row)) == row. */
        if (!pick)
            fuzz_protobuf_round_trip(data, size, &row, 0);
    } else
        free(error);
    strbuf_free(&row);
    strbuf_t bin = {0};
    if (srclient_proto_encode(proto_plans[pick], NULL, (const char *)data, size, &bin, &error) != 0)
        free(error);
    strbuf_free(&bin);
}

/* JSON Schema: most keywords, a recursive $ref, patterns, combinators. */
static const char *const json_schemas[] = {
    "{\"type\": \"object\", \"required\": [\"a\"], \"additionalProperties\": {\"type\": \"string\", "
    "\"maxLength\": 3}, \"properties\": {\"a\": {\"type\": \"integer\", \"minimum\": -5, \"multipleOf\": 2}, "
    "\"b\": {\"type\": \"array\", \"uniqueItems\": true, \"items\": {\"$ref\": \"#\"}, \"maxItems\": 50}, "
    "\"c\": {\"enum\": [1, \"x\", {\"k\": [null]}]}, \"d\": {\"pattern\": \"^[a-z]+\\\\d*$\"}}, "
    "\"patternProperties\": {\"^x-(?:a|b)+$\": {\"oneOf\": [{\"type\": \"number\"}, {\"const\": 1}]}}}",
    "{\"$schema\": \"https://json-schema.org/draft/2020-12/schema\", \"$defs\": {\"n\": {\"anyOf\": "
    "[{\"type\": \"null\"}, {\"type\": \"array\", \"prefixItems\": [{\"$ref\": \"#/$defs/n\"}, "
    "{\"$ref\": \"#/$defs/n\"}], \"items\": false}]}}, \"$ref\": \"#/$defs/n\", \"not\": {\"const\": "
    "[null, [null, null]]}, \"if\": {\"minItems\": 1}, \"then\": {\"contains\": {\"type\": \"null\"}}}",
};
#define NJSON (sizeof(json_schemas) / sizeof(json_schemas[0]))
static srclient_json_validator_t *validators[NJSON];

static void fuzz_validate(const uint8_t *data, size_t size)
{
    json_error_t je;
    json_t *v = json_loadb((const char *)data, size, JSON_DECODE_ANY, &je);
    if (!v)
        return;
    for (size_t i = 0; i < NJSON; i++) {
        char *error = NULL;
        if (!validators[i]) {
            srclient_json_limits_t limits = {.max_steps = 100000};
            validators[i] = srclient_json_validator_new(json_schemas[i], NULL, 0, &limits, &error);
            if (!validators[i]) {
                fprintf(stderr, "%s\n", error);
                abort();
            }
        }
        if (srclient_json_validate(validators[i], v, &error) != 0)
            free(error);
    }
    json_decref(v);
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
    if ((data[0] & 0xc0) == 0xc0) {
        fuzz_validate(data + 1, size - 1);
        return 0;
    }
    if (data[0] & 0x80) {
        fuzz_protobuf(data[0] & 1, (data[0] & 2) != 0, data + 1, size - 1);
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
