/*
 * test_client_avro: the Avro decoder and encoder of client/ (client.h,
 * section 3) and the wire format (section 2).
 *
 *   1. Records written by Apache Avro's Python implementation
 *      (tests/data/client/python_avro_cases.py), read by ours into the same
 *      rows, projection included; and ours writing the same bytes back
 *   2. Hostile records: truncated, huge lengths and counts, deep nesting,
 *      trailing bytes: clean errors within the limits (run under ASan)
 *   3. The wire format
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "client/client.h"

/* ---- Helpers ------------------------------------------------------------------ */

static avro_model_t *parse(const char *text)
{
    char *err = NULL;
    avro_model_t *m = avro_model_parse(text, strlen(text), NULL, 0, 0, &err);
    if (!m)
        fail_msg("schema does not parse: %s: %s", err, text);
    return m;
}

static size_t unhex(const char *hex, uint8_t *out, size_t cap)
{
    size_t n = strlen(hex) / 2;
    assert_true(n <= cap);
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        assert_int_equal(sscanf(hex + 2 * i, "%2x", &v), 1);
        out[i] = (uint8_t)v;
    }
    return n;
}

/* JSON equality with numbers compared as doubles: Python writes 1.0 where
 * the row has 1, and both read decimals as the nearest double. */
static int same_json(const json_t *a, const json_t *b)
{
    if (json_is_number(a) && json_is_number(b))
        return json_number_value(a) == json_number_value(b);
    if (json_typeof(a) != json_typeof(b))
        return 0;
    if (json_is_array(a)) {
        if (json_array_size(a) != json_array_size(b))
            return 0;
        for (size_t i = 0; i < json_array_size(a); i++)
            if (!same_json(json_array_get(a, i), json_array_get(b, i)))
                return 0;
        return 1;
    }
    if (json_is_object(a)) {
        if (json_object_size(a) != json_object_size(b))
            return 0;
        const char *k;
        json_t *v;
        json_object_foreach((json_t *)a, k, v)
        {
            json_t *w = json_object_get(b, k);
            if (!w || !same_json(v, w))
                return 0;
        }
        return 1;
    }
    return json_equal(a, b);
}

/* Decodes hex with writer/reader texts: 0 and the row, or -1 and the error (malloc'd). */
static int decode_hex(const char *writer, const char *reader, const char *hex, char **result)
{
    avro_model_t *w = parse(writer), *r = reader && *reader ? parse(reader) : NULL;
    char *err = NULL;
    srclient_avro_reader_t *rd = srclient_avro_reader_new(w, r, NULL, &err);
    assert_non_null(rd);
    uint8_t buf[4096];
    size_t n = unhex(hex, buf, sizeof(buf));
    strbuf_t out = {0};
    int rc = srclient_avro_decode(rd, buf, n, &out, &err);
    *result = rc == 0 ? strbuf_take(&out) : err;
    strbuf_free(&out);
    srclient_avro_reader_free(rd);
    avro_model_free(w);
    avro_model_free(r);
    return rc;
}

/* ---- 1. Python's Avro ------------------------------------------------------------ */

static json_t *python_cases(void)
{
    char cmd[1024];
    snprintf(cmd, sizeof(cmd), "/usr/bin/python3 %s/client/python_avro_cases.py", SR_TEST_DATA_DIR);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    json_t *cases = json_array();
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, p) > 0) {
        json_error_t je;
        json_t *c = json_loads(line, 0, &je);
        assert_non_null(c);
        json_array_append_new(cases, c);
    }
    free(line);
    assert_int_equal(pclose(p), 0);
    assert_true(json_array_size(cases) >= 25);
    return cases;
}

static void test_python_avro_records(void **state)
{
    json_t *cases = python_cases();
    size_t i, projected = 0, refused = 0;
    json_t *c;
    json_array_foreach(cases, i, c)
    {
        const char *name = json_string_value(json_object_get(c, "name"));
        const char *reader = json_string_value(json_object_get(c, "reader"));
        char *got;
        int rc = decode_hex(json_string_value(json_object_get(c, "writer")), reader,
                            json_string_value(json_object_get(c, "hex")), &got);
        json_t *expected = json_object_get(c, "expected");
        if (!expected) {
            if (rc == 0)
                fail_msg("%s: Avro refuses it, ours read %s", name, got);
            refused++;
        } else {
            if (rc != 0)
                fail_msg("%s: %s", name, got);
            json_error_t je;
            json_t *row = json_loads(got, 0, &je);
            if (!row)
                fail_msg("%s: not JSON: %s", name, got);
            if (!same_json(row, expected)) {
                char *want = json_dumps(expected, JSON_COMPACT);
                fail_msg("%s:\n  ours   %s\n  Avro's %s", name, got, want);
            }
            json_decref(row);
            projected += *reader != '\0';
        }
        free(got);
    }
    assert_true(projected >= 12);
    assert_true(refused >= 4);
    json_decref(cases);
}

/* Our encoder, given our rows, writes the bytes Python's Avro wrote. */
static void test_encode_writes_what_avro_writes(void **state)
{
    json_t *cases = python_cases();
    size_t i, checked = 0;
    json_t *c;
    json_array_foreach(cases, i, c)
    {
        const char *reader = json_string_value(json_object_get(c, "reader"));
        if (*reader || !json_object_get(c, "expected"))
            continue;
        const char *name = json_string_value(json_object_get(c, "name"));
        const char *hex = json_string_value(json_object_get(c, "hex"));
        avro_model_t *w = parse(json_string_value(json_object_get(c, "writer")));
        char *row;
        assert_int_equal(decode_hex(json_string_value(json_object_get(c, "writer")), NULL, hex, &row), 0);
        strbuf_t out = {0};
        char *err = NULL;
        if (srclient_avro_encode(w, row, strlen(row), &out, &err) != 0)
            fail_msg("%s: %s", name, err);
        uint8_t want[4096];
        size_t n = unhex(hex, want, sizeof(want));
        if (out.len != n || memcmp(out.data, want, n) != 0)
            fail_msg("%s: ours writes other bytes than Avro's (%zu vs %zu) for %s", name, out.len, n, row);
        strbuf_free(&out);
        free(row);
        avro_model_free(w);
        checked++;
    }
    assert_true(checked >= 7);
    json_decref(cases);
}

/* Logical values the decoder prints, read back by the encoder: years of
 * more than four digits and before year 0 too (found by fuzzing), and a
 * time beyond the long refused rather than wrapped. */
static void roundtrip_text(const char *schema, const char *row)
{
    avro_model_t *w = parse(schema);
    strbuf_t bin = {0}, out = {0};
    char *err = NULL;
    if (srclient_avro_encode(w, row, strlen(row), &bin, &err) != 0)
        fail_msg("%s: %s", row, err);
    srclient_avro_reader_t *rd = srclient_avro_reader_new(w, NULL, NULL, &err);
    assert_int_equal(srclient_avro_decode(rd, (const uint8_t *)bin.data, bin.len, &out, &err), 0);
    assert_string_equal(out.data, row);
    strbuf_free(&bin);
    strbuf_free(&out);
    srclient_avro_reader_free(rd);
    avro_model_free(w);
}

static void test_logical_text_round_trips(void **state)
{
    const char *date = "{\"type\":\"int\",\"logicalType\":\"date\"}";
    const char *tsm = "{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}";
    const char *tsu = "{\"type\":\"long\",\"logicalType\":\"timestamp-micros\"}";
    const char *lts = "{\"type\":\"long\",\"logicalType\":\"local-timestamp-micros\"}";
    const char *dec = "{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":30,\"scale\":3}";
    roundtrip_text(date, "\"2024-02-29\"");
    roundtrip_text(date, "\"-358725-12-11\"");
    roundtrip_text(date, "\"0000-01-01\"");
    roundtrip_text(tsm, "\"114146505-05-16T03:36:06.463Z\"");
    roundtrip_text(tsm, "\"1969-12-31T23:59:59.999Z\"");
    roundtrip_text(tsu, "\"1970-01-01T00:00:00.000001Z\"");
    roundtrip_text(lts, "\"2024-01-31T12:00:00.000000\"");
    roundtrip_text(dec, "-1234567.890"); /* a number: exact within a double's 15 digits */
    /* duration: the object the decoder writes reads back (found by avro-c's records) */
    const char *dur = "{\"type\":\"fixed\",\"name\":\"D\",\"size\":12,\"logicalType\":\"duration\"}";
    roundtrip_text(dur, "{\"months\":1,\"days\":2,\"milliseconds\":3}");
    roundtrip_text(dur, "{\"months\":4294967295,\"days\":0,\"milliseconds\":4294967295}");
    {
        avro_model_t *dm = parse(dur);
        strbuf_t db = {0};
        char *derr = NULL;
        const char *b64 = "\"AQAAAAIAAAADAAAA\""; /* its 12 bytes as base64 are still read */
        assert_int_equal(srclient_avro_encode(dm, b64, strlen(b64), &db, &derr), 0);
        assert_int_equal(db.len, 12);
        assert_memory_equal(db.data, "\1\0\0\0\2\0\0\0\3\0\0\0", 12);
        const char *big = "{\"months\":4294967296,\"days\":0,\"milliseconds\":0}";
        assert_int_equal(srclient_avro_encode(dm, big, strlen(big), &db, &derr), -1);
        assert_string_equal(derr,
                            "D: a duration is {\"months\",\"days\",\"milliseconds\"}, each 0 to 4294967295");
        free(derr);
        strbuf_free(&db);
        avro_model_free(dm);
    }
    avro_model_t *w = parse(tsu);
    strbuf_t bin = {0};
    char *err = NULL;
    const char *beyond = "\"300000000-01-01T00:00:00.000000Z\"";
    assert_int_equal(srclient_avro_encode(w, beyond, strlen(beyond), &bin, &err), -1);
    assert_string_equal(err, "long: expected an integer or its logical form");
    free(err);
    avro_model_free(w);
}

/* ---- 2. Hostile records ---------------------------------------------------------- */

static void expect_error(const char *writer, const uint8_t *data, size_t len,
                         const srclient_avro_limits_t *limits, const char *needle)
{
    avro_model_t *w = parse(writer);
    char *err = NULL;
    srclient_avro_reader_t *rd = srclient_avro_reader_new(w, NULL, limits, &err);
    strbuf_t out = {0};
    strbuf_puts(&out, "kept");
    int rc = srclient_avro_decode(rd, data, len, &out, &err);
    assert_int_equal(rc, -1);
    if (!strstr(err, needle))
        fail_msg("expected an error with \"%s\", got \"%s\"", needle, err);
    assert_string_equal(out.data, "kept"); /* the output is as it was */
    free(err);
    strbuf_free(&out);
    srclient_avro_reader_free(rd);
    avro_model_free(w);
}

static void test_every_truncation_is_an_error(void **state)
{
    json_t *cases = python_cases();
    size_t i;
    json_t *c;
    json_array_foreach(cases, i, c)
    {
        if (!json_object_get(c, "expected"))
            continue;
        const char *writer = json_string_value(json_object_get(c, "writer"));
        const char *reader = json_string_value(json_object_get(c, "reader"));
        avro_model_t *w = parse(writer), *r = *reader ? parse(reader) : NULL;
        char *err = NULL;
        srclient_avro_reader_t *rd = srclient_avro_reader_new(w, r, NULL, &err);
        uint8_t buf[4096];
        size_t n = unhex(json_string_value(json_object_get(c, "hex")), buf, sizeof(buf));
        /* Each record here needs all its bytes, so every shorter prefix fails
         * (on a copy, so ASan sees a read past the end). */
        for (size_t k = 0; k < n; k++) {
            uint8_t *cut = malloc(k ? k : 1);
            memcpy(cut, buf, k);
            strbuf_t out = {0};
            if (srclient_avro_decode(rd, cut, k, &out, &err) == 0)
                fail_msg("%s: a prefix of %zu of %zu bytes decoded: %s",
                         json_string_value(json_object_get(c, "name")), k, n, out.data);
            free(err);
            strbuf_free(&out);
            free(cut);
        }
        srclient_avro_reader_free(rd);
        avro_model_free(w);
        avro_model_free(r);
    }
    json_decref(cases);
}

static void test_hostile_lengths_and_counts(void **state)
{
    /* A string claiming 2^62 bytes with 3 left. */
    const uint8_t huge[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x40, 'a', 'b', 'c'};
    expect_error("\"string\"", huge, sizeof(huge), NULL, "truncated: a length of");
    /* A negative length (-1 zigzagged is 1). */
    const uint8_t neg[] = {0x01, 'a'};
    expect_error("\"bytes\"", neg, sizeof(neg), NULL, "invalid length -1");
    /* A varint of eleven bytes. */
    const uint8_t longv[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
    expect_error("\"long\"", longv, sizeof(longv), NULL, "varint longer than");
    /* An int beyond 32 bits. */
    const uint8_t bigint[] = {0x80, 0x80, 0x80, 0x80, 0x20};
    expect_error("\"int\"", bigint, sizeof(bigint), NULL, "beyond 32 bits");
    /* An array of nulls claiming 2^40 items in one block: no byte per item
     * to run out of, so the value limit must stop it. */
    const uint8_t nulls[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x40};
    expect_error("{\"type\":\"array\",\"items\":\"null\"}", nulls, sizeof(nulls), NULL, "beyond the limit");
    /* Many blocks of nulls within the limit per block: the total is counted. */
    uint8_t blocks[2000];
    size_t nb = 0;
    for (; nb + 3 < sizeof(blocks); nb += 3)
        blocks[nb] = 0xfe, blocks[nb + 1] = 0xff, blocks[nb + 2] = 0x07; /* 65535 items */
    srclient_avro_limits_t small = {.max_values = 1000000};
    expect_error("{\"type\":\"array\",\"items\":\"null\"}", blocks, nb, &small, "more than 1000000 values");
    /* The output limit: a map of long strings. */
    srclient_avro_limits_t tiny = {.max_output = 64};
    uint8_t big[200] = {0x02, 0x02, 'k', 0xfe, 0x01};
    memset(big + 5, 'x', 127);
    big[5 + 127] = 0;
    expect_error("{\"type\":\"map\",\"values\":\"string\"}", big, 5 + 127 + 1, &tiny, "longer than 64 bytes");
    /* Trailing bytes. */
    const uint8_t trail[] = {0x02, 0x00};
    expect_error("\"int\"", trail, sizeof(trail), NULL, "1 trailing bytes");
    /* A union branch out of range, an enum symbol out of range, a bad boolean. */
    const uint8_t branch[] = {0x04};
    expect_error("[\"null\",\"int\"]", branch, 1, NULL, "union branch 2 out of range");
    const uint8_t sym[] = {0x06};
    expect_error("{\"type\":\"enum\",\"name\":\"E\",\"symbols\":[\"A\"]}", sym, 1, NULL,
                 "symbol 3 out of range");
    const uint8_t boolean[] = {0x02};
    expect_error("\"boolean\"", boolean, 1, NULL, "invalid boolean");
}

static void test_deep_nesting_is_bounded(void **state)
{
    /* A linked list 100,000 nodes deep: each node is the union's branch 1
     * and an int; the depth limit stops it long before the stack would. */
    const char *list = "{\"type\":\"record\",\"name\":\"N\",\"fields\":[{\"name\":\"v\",\"type\":\"int\"},"
                       "{\"name\":\"next\",\"type\":[\"null\",\"N\"]}]}";
    size_t depth = 100000;
    uint8_t *data = malloc(depth * 2 + 2);
    for (size_t i = 0; i < depth; i++)
        data[2 * i] = 0x00, data[2 * i + 1] = 0x02;
    data[2 * depth] = 0x00, data[2 * depth + 1] = 0x00;
    expect_error(list, data, depth * 2 + 2, NULL, "nested deeper than 256");
    /* Within the limit it decodes. */
    avro_model_t *w = parse(list);
    char *err = NULL;
    srclient_avro_reader_t *rd = srclient_avro_reader_new(w, NULL, NULL, &err);
    size_t ok = 60;
    for (size_t i = 0; i < ok; i++)
        data[2 * i] = 0x00, data[2 * i + 1] = 0x02;
    data[2 * ok] = 0x00, data[2 * ok + 1] = 0x00;
    strbuf_t out = {0};
    assert_int_equal(srclient_avro_decode(rd, data, 2 * ok + 2, &out, &err), 0);
    assert_non_null(strstr(out.data, "\"next\":null"));
    strbuf_free(&out);
    srclient_avro_reader_free(rd);
    avro_model_free(w);
    free(data);
}

static void test_unresolvable_pairs_fail_when_reached(void **state)
{
    /* A reader field without a default and absent from the writer. */
    char *got;
    assert_int_equal(
        decode_hex("{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"}]}",
                   "{\"type\":\"record\",\"name\":\"R\",\"fields\":[{\"name\":\"a\",\"type\":\"int\"},"
                   "{\"name\":\"b\",\"type\":\"int\"}]}",
                   "02", &got),
        -1);
    assert_string_equal(got, "R: the reader's field b is not in the writer's schema and has no default");
    free(got);
    /* A writer union's branch the reader cannot take fails only for records on it. */
    const char *w = "[\"null\",\"string\"]";
    assert_int_equal(decode_hex(w, "\"string\"", "00", &got), -1);
    assert_string_equal(got, "the writer's null cannot be read as the reader's string");
    free(got);
    assert_int_equal(decode_hex(w, "\"string\"", "020278", &got), 0);
    assert_string_equal(got, "\"x\"");
    free(got);
    assert_int_equal(decode_hex(w, "[\"string\"]", "00", &got), -1);
    assert_string_equal(got, "the writer's null matches no branch of the reader's union");
    free(got);
    assert_int_equal(decode_hex(w, "[\"string\"]", "020278", &got), 0);
    assert_string_equal(got, "\"x\"");
    free(got);
}

/* ---- 3. The wire format ------------------------------------------------------------ */

static void test_frame(void **state)
{
    srclient_frame_t f;
    srclient_error_t err;
    const uint8_t ok[] = {0, 0, 0, 1, 2, 0xaa};
    assert_int_equal(srclient_frame_parse(ok, sizeof(ok), &f, &err), 0);
    assert_int_equal(f.id, 258);
    assert_int_equal(f.len, 1);
    assert_int_equal(f.payload[0], 0xaa);
    const uint8_t magic[] = {1, 0, 0, 0, 1};
    assert_int_equal(srclient_frame_parse(magic, sizeof(magic), &f, &err), -1);
    assert_string_equal(err.message, "unknown magic byte 0x01 (expected 0x00)");
    assert_int_equal(err.code, SRCLIENT_ERR_FRAME);
    assert_int_equal(srclient_frame_parse(ok, 4, &f, &err), -1);
    assert_string_equal(err.message, "a record shorter than its 5-byte header (4 bytes)");
    assert_int_equal(srclient_frame_parse(ok, 0, &f, &err), -1);
    assert_string_equal(err.message, "an empty record (0 bytes)");
    strbuf_t b = {0};
    srclient_frame_header(&b, 0x01020304);
    assert_int_equal(b.len, 5);
    assert_memory_equal(b.data, "\x00\x01\x02\x03\x04", 5);
    strbuf_free(&b);

    int64_t idx[4];
    size_t n;
    const uint8_t first[] = {0};
    assert_int_equal(srclient_proto_indexes(first, 1, idx, 4, &n), 1);
    assert_int_equal(n, 1);
    assert_int_equal(idx[0], 0);
    const uint8_t two[] = {4, 2, 6}; /* [1, 3] */
    assert_int_equal(srclient_proto_indexes(two, 3, idx, 4, &n), 3);
    assert_int_equal(n, 2);
    assert_int_equal(idx[0], 1);
    assert_int_equal(idx[1], 3);
    assert_int_equal(srclient_proto_indexes(two, 2, idx, 4, &n), -1);  /* truncated */
    const uint8_t many[] = {0x7e};                                     /* 63 indexes */
    assert_int_equal(srclient_proto_indexes(many, 1, idx, 4, &n), -1); /* more than max */
}

static void test_base64(void **state)
{
    strbuf_t b = {0};
    srclient_base64_encode(&b, (const uint8_t *)"\xff\x01", 2);
    assert_string_equal(b.data, "/wE=");
    strbuf_free(&b);
    assert_int_equal(srclient_base64_decode("/wE=", 4, &b), 0);
    assert_int_equal(b.len, 2);
    assert_memory_equal(b.data, "\xff\x01", 2);
    strbuf_free(&b);
    assert_int_equal(srclient_base64_decode("/wE", 3, &b), -1);
    strbuf_free(&b);
    assert_int_equal(srclient_base64_decode("/w=E", 4, &b), -1);
    strbuf_free(&b);
}

/* The decoder writes numbers and plain strings without printf and without a
 * call per byte (docs/performance.md "Decoding"); the text must stay what
 * "%.15g".."%.17g" (the shortest that reads back) and "%lld" write. */
static void decode_one(const char *schema, const uint8_t *data, size_t len, strbuf_t *row)
{
    avro_model_t *m = parse(schema);
    char *err = NULL;
    srclient_avro_reader_t *r = srclient_avro_reader_new(m, NULL, NULL, &err);
    assert_non_null(r);
    row->len = 0;
    if (srclient_avro_decode(r, data, len, row, &err) != 0)
        fail_msg("%s", err);
    srclient_avro_reader_free(r);
    avro_model_free(m);
}

static void test_numbers_and_strings_print_as_printf_would(void **state)
{
    (void)state;
    static const double special[] = {1e-4,
                                     0.0001,
                                     9.999999999999999e-05,
                                     1.0000000000000002e-4,
                                     999999999999999.0,
                                     1e15,
                                     999999999999999.9,
                                     99999999999999.9,
                                     0.1,
                                     0.25,
                                     -0.0,
                                     0.0,
                                     1,
                                     -1,
                                     123.25,
                                     0.00012345678,
                                     1e-5,
                                     12345678.12345678,
                                     4503599627370496.0,
                                     0.3,
                                     2.675,
                                     1.005,
                                     -7.5e-3,
                                     1e300,
                                     5e-324};
    strbuf_t row = {0};
    uint64_t seed = 88172645463325252u;
    for (size_t i = 0; i < 200000; i++) {
        double v;
        if (i < sizeof(special) / sizeof(*special))
            v = special[i];
        else {
            seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
            int k = (int)(seed % 12);
            double scale = 1;
            for (int j = 0; j < k; j++)
                scale *= 10;
            v = (double)(int64_t)((seed >> 8) % 1000000000000000u) / scale;
            if (seed & 1)
                v = -v;
            if (i % 4 == 0)
                memcpy(&v, &seed, 8);
            if (v != v || v - v != 0) /* NaN and the infinities: strings, tested elsewhere */
                continue;
        }
        uint8_t rec[8];
        uint64_t u;
        memcpy(&u, &v, 8);
        for (int b = 0; b < 8; b++)
            rec[b] = (uint8_t)(u >> (8 * b));
        decode_one("\"double\"", rec, 8, &row);
        char want[40];
        for (int prec = 15; prec <= 17; prec++) {
            snprintf(want, sizeof(want), "%.*g", prec, v);
            if (strtod(want, NULL) == v)
                break;
        }
        if (strcmp(row.data, want) != 0)
            fail_msg("%.17g: %s, not %s", v, row.data, want);
    }
    static const int64_t longs[] = {0, 1, -1, 9, 10, -10, INT64_MAX, INT64_MIN, 1234567890123456789};
    for (size_t i = 0; i < sizeof(longs) / sizeof(*longs); i++) {
        uint64_t z = ((uint64_t)longs[i] << 1) ^ (uint64_t)(longs[i] >> 63);
        uint8_t rec[10];
        size_t n = 0;
        do {
            rec[n] = (uint8_t)(z & 0x7f);
            z >>= 7;
            rec[n] |= z ? 0x80 : 0;
            n++;
        } while (z);
        decode_one("\"long\"", rec, n, &row);
        char want[24];
        snprintf(want, sizeof(want), "%lld", (long long)longs[i]);
        assert_string_equal(row.data, want);
    }
    /* Plain strings of every length across the buffer's first growths. */
    strbuf_t rec = {0}, want = {0};
    for (size_t n = 0; n < 1100; n++) {
        rec.len = want.len = 0;
        strbuf_putc(&rec, (char)(n << 1)); /* zigzag n, one byte up to 63 */
        if (n >= 64) {
            rec.len = 0;
            strbuf_putc(&rec, (char)(((n << 1) & 0x7f) | 0x80));
            strbuf_putc(&rec, (char)((n << 1) >> 7));
        }
        strbuf_putc(&want, '"');
        for (size_t j = 0; j < n; j++) {
            strbuf_putc(&rec, (char)('a' + j % 26));
            strbuf_putc(&want, (char)('a' + j % 26));
        }
        strbuf_putc(&want, '"');
        strbuf_t fresh = {0};
        decode_one("\"string\"", (const uint8_t *)rec.data, rec.len, &fresh);
        assert_int_equal(fresh.len, want.len);
        assert_string_equal(fresh.data, want.data);
        strbuf_free(&fresh);
    }
    strbuf_free(&rec);
    strbuf_free(&want);
    strbuf_free(&row);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_python_avro_records),
        cmocka_unit_test(test_encode_writes_what_avro_writes),
        cmocka_unit_test(test_logical_text_round_trips),
        cmocka_unit_test(test_every_truncation_is_an_error),
        cmocka_unit_test(test_hostile_lengths_and_counts),
        cmocka_unit_test(test_deep_nesting_is_bounded),
        cmocka_unit_test(test_unresolvable_pairs_fail_when_reached),
        cmocka_unit_test(test_frame),
        cmocka_unit_test(test_base64),
        cmocka_unit_test(test_numbers_and_strings_print_as_printf_would),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
