/*
 * The Protobuf engine against hostile and invalid input in both forms (.proto
 * text and base64 FileDescriptorProto): nesting and size limits checked
 * before protobuf-c unpacks a descriptor, one depth limit for both forms,
 * protoc's field number rules, unknown field types, and what a malformed
 * descriptor is told. Descriptors are written here byte by byte, so each case
 * shows the exact shape it sends.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compat/protobuf/internal.h"
#include "compat/protobuf/protobuf.h"
#include "compat/schema.h"

/* ---- A back-to-front protobuf writer ------------------------------------------------ */

/* Fields are prepended, so a message's length is known when its tag is written. */
typedef struct rev {
    uint8_t *buf;
    size_t cap;
    size_t start; /* buf[start..cap) is the output */
} rev_t;

static void rev_init(rev_t *w, size_t cap)
{
    w->buf = malloc(cap);
    assert_non_null(w->buf);
    w->cap = w->start = cap;
}

static size_t rev_len(const rev_t *w)
{
    return w->cap - w->start;
}

static void rev_bytes(rev_t *w, const void *data, size_t n)
{
    assert_true(n <= w->start);
    w->start -= n;
    memcpy(w->buf + w->start, data, n);
}

static void rev_varint(rev_t *w, uint64_t v)
{
    uint8_t tmp[10];
    size_t n = 0;
    do {
        tmp[n] = (uint8_t)(v & 0x7F);
        v >>= 7;
        if (v)
            tmp[n] |= 0x80;
        n++;
    } while (v);
    rev_bytes(w, tmp, n);
}

/* Wraps everything written since mark (a rev_len) as field number's payload. */
static void rev_wrap(rev_t *w, size_t mark, int number)
{
    rev_varint(w, rev_len(w) - mark);
    rev_varint(w, (uint64_t)number << 3 | 2);
}

static void rev_string(rev_t *w, int number, const char *s)
{
    size_t mark = rev_len(w);
    rev_bytes(w, s, strlen(s));
    rev_wrap(w, mark, number);
}

static void rev_int(rev_t *w, int number, int64_t v)
{
    rev_varint(w, (uint64_t)v);
    rev_varint(w, (uint64_t)number << 3);
}

/* FieldDescriptorProto: name 1, number 3, label 4, type 5, type_name 6. */
static void rev_field(rev_t *w, int number, const char *name, int64_t tag, int label, int type,
                      const char *type_name)
{
    size_t mark = rev_len(w);
    if (type_name)
        rev_string(w, 6, type_name);
    rev_int(w, 5, type);
    rev_int(w, 4, label);
    rev_int(w, 3, tag);
    rev_string(w, 1, name);
    rev_wrap(w, mark, number);
}

/* Base64 of the finished FileDescriptorProto (syntax proto3 prepended). */
static char *rev_finish(rev_t *w)
{
    rev_string(w, 12, "proto3");
    char *b64 = proto_base64_encode(w->buf + w->start, rev_len(w));
    assert_non_null(b64);
    free(w->buf);
    return b64;
}

/*
 * A file whose one top-level message holds a chain of depth messages
 * (DescriptorProto.nested_type = 3 inside FileDescriptorProto.message_type = 4),
 * the innermost with an int32 field and, when with_map, a map<string, int32>
 * field (whose entry message is one level deeper still).
 */
static char *deep_descriptor(int depth, int with_map)
{
    rev_t w;
    rev_init(&w, (size_t)depth * 16 + 1024);
    size_t mark = rev_len(&w);
    if (with_map) {
        size_t entry = rev_len(&w);
        size_t opts = rev_len(&w);
        rev_int(&w, 7, 1); /* MessageOptions.map_entry */
        rev_wrap(&w, opts, 7);
        rev_field(&w, 2, "value", 2, 1, 5, NULL);
        rev_field(&w, 2, "key", 1, 1, 9, NULL);
        rev_string(&w, 1, "TagsEntry");
        rev_wrap(&w, entry, 3);
        char *type_name = malloc((size_t)depth * 2 + 16);
        assert_non_null(type_name);
        for (int i = 0; i < depth; i++)
            memcpy(type_name + 2 * i, ".M", 2);
        strcpy(type_name + 2 * depth, ".TagsEntry");
        rev_field(&w, 2, "tags", 2, 3, 11, type_name);
        free(type_name);
    }
    rev_field(&w, 2, "x", 1, 1, 5, NULL);
    rev_string(&w, 1, "M");
    for (int i = 1; i < depth; i++) {
        rev_wrap(&w, mark, 3);
        rev_string(&w, 1, "M");
    }
    rev_wrap(&w, mark, 4);
    return rev_finish(&w);
}

/* A file with one message M holding one field x of that number and type. */
static char *field_descriptor(int64_t number, int type)
{
    rev_t w;
    rev_init(&w, 256);
    size_t mark = rev_len(&w);
    rev_field(&w, 2, "x", number, 1, type, NULL);
    rev_string(&w, 1, "M");
    rev_wrap(&w, mark, 4);
    return rev_finish(&w);
}

/* ---- Helpers ------------------------------------------------------------------------ */

/* The error of a refused parse (malloc'd); fails the test when it is accepted. */
static char *refused(const char *text, int flags)
{
    char *error = NULL;
    proto_schema_t *s = proto_schema_new(text, strlen(text), NULL, 0, flags, NULL, &error);
    if (s)
        fail_msg("accepted: %.200s", text);
    assert_non_null(error);
    return error;
}

static void assert_refused(const char *text, int flags, const char *expected_prefix)
{
    char *error = refused(text, flags);
    if (strncmp(error, expected_prefix, strlen(expected_prefix)) != 0)
        fail_msg("error \"%s\" does not start with \"%s\"", error, expected_prefix);
    free(error);
}

/* Accepted with its canonical text, which parses again to itself. */
static char *accepted(const char *text, int flags)
{
    char *error = NULL, *canonical = NULL, *again = NULL;
    proto_schema_t *s = proto_schema_new(text, strlen(text), NULL, 0, flags, &canonical, &error);
    if (!s)
        fail_msg("refused: %s", error);
    proto_schema_free(s);
    s = proto_schema_new(canonical, strlen(canonical), NULL, 0, flags, &again, &error);
    if (!s)
        fail_msg("canonical text refused: %s", error);
    assert_string_equal(again, canonical);
    proto_schema_free(s);
    free(again);
    return canonical;
}

/* depth nested `message M {` around one field, as .proto text. */
static char *deep_text(int depth)
{
    char *text = malloc((size_t)depth * 16 + 64);
    assert_non_null(text);
    size_t n = (size_t)sprintf(text, "syntax = \"proto3\";\n");
    for (int i = 0; i < depth; i++)
        n += (size_t)sprintf(text + n, "message M {");
    n += (size_t)sprintf(text + n, "int32 x = 1;");
    for (int i = 0; i < depth; i++)
        text[n++] = '}';
    text[n] = '\0';
    return text;
}

static double seconds_since(clock_t start)
{
    return (double)(clock() - start) / CLOCKS_PER_SEC;
}

/* ---- Item 2: bounded work for hostile descriptors --------------------------------------- */

/* 10,000 nested messages in ~90 KB: protobuf-c's recursive unpack overflowed
 * the stack (SIGSEGV) before the wire walk refused it. */
static void test_descriptor_10000_deep_is_refused_before_unpacking(void **state)
{
    (void)state;
    char *b64 = deep_descriptor(10000, 0);
    assert_refused(b64, SCHEMA_PARSE_NEW, "Invalid descriptor: messages nested deeper than 64;");
    assert_refused(b64, 0, "Invalid descriptor: messages nested deeper than 64;");
    free(b64);
}

/* 5,000 nested messages took minutes in the printer (every level copied
 * its subtree again); refused now in well under a second. */
static void test_descriptor_5000_deep_is_refused_quickly(void **state)
{
    (void)state;
    char *b64 = deep_descriptor(5000, 0);
    clock_t start = clock();
    assert_refused(b64, SCHEMA_PARSE_NEW, "Invalid descriptor: messages nested deeper than 64;");
    assert_true(seconds_since(start) < 2.0);
    free(b64);
}

/* One limit for both forms: 64 levels are accepted as text and as a
 * descriptor (a map entry one level deeper included), their canonical text
 * parses again, and format=serialized of it reads back; 65 levels are refused
 * in both forms. Before, a 65-deep descriptor was accepted and stored as
 * text the server could not parse. */
static void test_one_depth_limit_for_both_forms(void **state)
{
    (void)state;
    char *text = deep_text(PROTO_MAX_DEPTH);
    char *from_text = accepted(text, SCHEMA_PARSE_NEW);
    free(text);

    char *b64 = deep_descriptor(PROTO_MAX_DEPTH, 1);
    char *from_descriptor = accepted(b64, SCHEMA_PARSE_NEW);
    assert_non_null(strstr(from_descriptor, "map<string, int32> tags = 2;"));
    free(b64);

    char *error = NULL;
    proto_schema_t *s = proto_schema_new(from_descriptor, strlen(from_descriptor), NULL, 0, 0, NULL, &error);
    assert_non_null(s);
    char *serialized = proto_schema_serialized(s);
    assert_non_null(serialized);
    proto_schema_free(s);
    char *back = accepted(serialized, SCHEMA_PARSE_NEW);
    assert_string_equal(back, from_descriptor);
    free(back);
    free(serialized);
    free(from_descriptor);
    free(from_text);

    text = deep_text(PROTO_MAX_DEPTH + 1);
    assert_refused(text, 0, "Syntax error");
    free(text);
    b64 = deep_descriptor(PROTO_MAX_DEPTH + 1, 0);
    assert_refused(b64, 0, "Invalid descriptor: messages nested deeper than 64;");
    free(b64);
}

/* The size limit comes before any decoding work: one package string past it. */
static void test_descriptor_size_is_bounded(void **state)
{
    (void)state;
    size_t n = PROTO_MAX_DESCRIPTOR_BYTES + 1;
    rev_t w;
    rev_init(&w, n + 64);
    char *package = malloc(n - 5);
    assert_non_null(package);
    memset(package, 'p', n - 6);
    package[n - 6] = '\0';
    rev_string(&w, 2, package);
    free(package);
    assert_true(rev_len(&w) + 8 > (size_t)PROTO_MAX_DESCRIPTOR_BYTES);
    char *b64 = rev_finish(&w);
    assert_refused(b64, 0, "Invalid descriptor: larger than");
    free(b64);
}

/* ---- Item 2: printing in linear time ---------------------------------------------------- */

/* depth nested messages M1 { ... M2 { ... } }, each with a message option and
 * two fields, the first with options (printed one per line), as .proto text. */
static char *chain_text(int depth)
{
    static const char level[] = "message M%d {option deprecated = true;"
                                "int32 a = 1 [deprecated = true, json_name = \"x\"]; string b = 2;";
    char *text = malloc((size_t)depth * (sizeof level + 16) + 64);
    assert_non_null(text);
    size_t n = (size_t)sprintf(text, "syntax = \"proto3\";\n");
    for (int i = 1; i <= depth; i++)
        n += (size_t)sprintf(text + n, level, i);
    for (int i = 0; i < depth; i++)
        text[n++] = '}';
    text[n] = '\0';
    return text;
}

/* Expected output, built line by line apart from the printer. */
typedef struct lines {
    char *text;
    size_t len;
    size_t cap;
    size_t sum; /* of 2 x indent + length + 1 over the lines */
} lines_t;

static void line(lines_t *l, int indent, const char *fmt, ...)
{
    char body[128];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(body, sizeof body, fmt, ap);
    va_end(ap);
    assert_true(n >= 0 && (size_t)n < sizeof body);
    size_t need = l->len + 2 * (size_t)indent + (size_t)n + 2;
    if (need > l->cap) {
        l->cap = need * 2;
        l->text = realloc(l->text, l->cap);
        assert_non_null(l->text);
    }
    memset(l->text + l->len, ' ', 2 * (size_t)indent);
    l->len += 2 * (size_t)indent;
    memcpy(l->text + l->len, body, (size_t)n);
    l->len += (size_t)n;
    l->text[l->len++] = '\n';
    l->text[l->len] = '\0';
    l->sum += 2 * (size_t)indent + (size_t)n + 1;
}

/* chain_text(depth)'s canonical text: message Mk at indentation k - 1, blank
 * lines carrying the indentation of the message they are in. */
static void chain_expected(lines_t *l, int depth)
{
    line(l, 0, "syntax = \"proto3\";");
    line(l, 0, "");
    for (int k = 1; k <= depth; k++) {
        int d = k - 1;
        line(l, d, "message M%d {", k);
        line(l, d + 1, "option deprecated = true;");
        line(l, d, "");
        line(l, d + 1, "int32 a = 1 [");
        line(l, d + 2, "deprecated = true,");
        line(l, d + 2, "json_name = \"x\"");
        line(l, d + 1, "];");
        line(l, d + 1, "string b = 2;");
        if (k < depth)
            line(l, d, "");
    }
    for (int k = depth; k >= 1; k--)
        line(l, k - 1, "}");
}

/* The canonical text of nested messages, exact at depth 3 (by hand) and at
 * the deepest depth accepted (line by line). */
static void test_deep_chain_prints_exactly(void **state)
{
    (void)state;
    char *text = chain_text(3);
    char *canonical = accepted(text, SCHEMA_PARSE_NEW);
    assert_string_equal(canonical, "syntax = \"proto3\";\n"
                                   "\n"
                                   "message M1 {\n"
                                   "  option deprecated = true;\n"
                                   "\n"
                                   "  int32 a = 1 [\n"
                                   "    deprecated = true,\n"
                                   "    json_name = \"x\"\n"
                                   "  ];\n"
                                   "  string b = 2;\n"
                                   "\n"
                                   "  message M2 {\n"
                                   "    option deprecated = true;\n"
                                   "  \n"
                                   "    int32 a = 1 [\n"
                                   "      deprecated = true,\n"
                                   "      json_name = \"x\"\n"
                                   "    ];\n"
                                   "    string b = 2;\n"
                                   "  \n"
                                   "    message M3 {\n"
                                   "      option deprecated = true;\n"
                                   "    \n"
                                   "      int32 a = 1 [\n"
                                   "        deprecated = true,\n"
                                   "        json_name = \"x\"\n"
                                   "      ];\n"
                                   "      string b = 2;\n"
                                   "    }\n"
                                   "  }\n"
                                   "}\n");
    lines_t expected = {0};
    chain_expected(&expected, 3);
    assert_string_equal(expected.text, canonical);
    free(expected.text);
    free(canonical);
    free(text);

    int depth = PROTO_MAX_DEPTH - 1;
    text = chain_text(depth);
    canonical = accepted(text, SCHEMA_PARSE_NEW);
    expected = (lines_t){0};
    chain_expected(&expected, depth);
    assert_int_equal(strlen(canonical), expected.sum);
    assert_string_equal(canonical, expected.text);
    free(expected.text);
    free(canonical);
    free(text);
}

/* The printer's work, without a clock: it appends every byte of the text
 * once, straight into the text. The old printer rendered each element apart
 * and copied it into its parent once per level: 24 times the text here. */
static void test_printer_appends_each_byte_once(void **state)
{
    (void)state;
    int depth = PROTO_MAX_DEPTH - 1;
    char *text = chain_text(depth);
    char *error = NULL;
    proto_schema_t *s = proto_schema_new(text, strlen(text), NULL, 0, SCHEMA_PARSE_NEW, NULL, &error);
    assert_non_null(s);
    lines_t expected = {0};
    chain_expected(&expected, depth);
    static const proto_print_mode_t modes[] = {PROTO_PRINT_CANONICAL, PROTO_PRINT_IGNORE_EXTENSIONS,
                                               PROTO_PRINT_NORMALIZE};
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++) {
        const proto_symtab_t *types = modes[i] == PROTO_PRINT_NORMALIZE ? proto_schema_symtab(s) : NULL;
        size_t appended = 0;
        char *printed = proto_print_counted(proto_schema_file(s), modes[i], types, &appended, &error);
        assert_non_null(printed);
        size_t len = strlen(printed);
        if (modes[i] != PROTO_PRINT_NORMALIZE)
            assert_string_equal(printed, expected.text);
        assert_int_equal(len, expected.sum);
        if (appended >= 2 * len)
            fail_msg("mode %d appended %zu bytes for a text of %zu", (int)modes[i], appended, len);
        free(printed);
    }
    free(expected.text);
    proto_schema_free(s);
    free(text);
}

/* ---- Item 5: protoc's rules ------------------------------------------------------------------ */

/*
 * protoc refuses these numbers; Confluent's ProtobufSchema.toDynamicSchema()
 * builds a protobuf-java Descriptors.FileDescriptor whose
 * DescriptorValidationException says "<symbol>: <problem>". Checked for new
 * schemas (SCHEMA_PARSE_NEW) in both forms; stored schemas still read.
 */
static void test_field_numbers(void **state)
{
    (void)state;
    static const struct {
        int64_t number;
        const char *error;
    } bad[] = {
        {0, "x: Field numbers must be positive integers."},
        {-1, "x: Field numbers must be positive integers."},
        {19000, "x: Field numbers 19000 through 19999 are reserved for the protocol buffer library "
                "implementation."},
        {19999, "x: Field numbers 19000 through 19999 are reserved"},
        {536870912, "x: Field number 536870912 exceeds maximum of 536870911"},
        {2147483647, "x: Field number 2147483647 exceeds maximum of 536870911"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char text[128];
        snprintf(text, sizeof text, "syntax = \"proto3\";\nmessage M {\n  int32 x = %lld;\n}\n",
                 (long long)bad[i].number);
        assert_refused(text, SCHEMA_PARSE_NEW, bad[i].error);
        free(accepted(text, 0));
        char *b64 = field_descriptor(bad[i].number, 5);
        assert_refused(b64, SCHEMA_PARSE_NEW, bad[i].error);
        free(b64);
    }
    static const int64_t good[] = {1, 18999, 20000, 536870911};
    for (size_t i = 0; i < sizeof good / sizeof *good; i++) {
        char text[128];
        snprintf(text, sizeof text, "syntax = \"proto3\";\nmessage M {\n  int32 x = %lld;\n}\n",
                 (long long)good[i]);
        free(accepted(text, SCHEMA_PARSE_NEW));
        char *b64 = field_descriptor(good[i], 5);
        free(accepted(b64, SCHEMA_PARSE_NEW));
        free(b64);
    }
    /* Nested messages, oneofs, groups and extensions are checked too. */
    assert_refused("syntax = \"proto3\";\nmessage A {\n  message B {\n    oneof o {\n      int32 y = 19500;\n"
                   "    }\n  }\n}\n",
                   SCHEMA_PARSE_NEW, "y: Field numbers 19000 through 19999");
    assert_refused("syntax = \"proto2\";\nmessage A {\n  optional group G = 0 {\n    optional int32 y = 1;\n"
                   "  }\n}\n",
                   SCHEMA_PARSE_NEW, "G: Field numbers must be positive integers.");
    assert_refused("syntax = \"proto2\";\nmessage A {\n  extensions 100 to 200;\n}\nextend A {\n"
                   "  optional int32 e = 0;\n}\n",
                   SCHEMA_PARSE_NEW, "e: Field numbers must be positive integers.");
}

/* FieldDescriptorProto.type outside 1..18 was read as int32. */
static void test_descriptor_unknown_field_type(void **state)
{
    (void)state;
    char *b64 = field_descriptor(1, 19);
    assert_refused(b64, 0, "Invalid descriptor: field x has unknown type 19;");
    free(b64);
    b64 = field_descriptor(1, 0);
    assert_refused(b64, 0, "Invalid descriptor: field x has unknown type 0;");
    free(b64);
    b64 = field_descriptor(1, 18);
    free(accepted(b64, SCHEMA_PARSE_NEW));
    free(b64);
}

/*
 * Elements without a name (descriptor.proto makes names optional), or with a
 * name that is not an identifier: found by fuzz_proto, an extension with a
 * json_name and no name crashed the reader (strlen(NULL)), and a tab in a
 * field name printed text that parsed back to another name. Each is refused.
 */
static void test_descriptor_unnamed_elements(void **state)
{
    (void)state;
#define BYTES(s) s, sizeof s - 1
    static const struct {
        const char *bytes;
        size_t len;
        const char *why;
    } cases[] = {
        /* extension {extendee "M", number 1, json_name "x"} */
        {BYTES("\x3a\x08\x12\x01M\x18\x01\x52\x01x"), "Invalid descriptor: an extension has no name"},
        /* message_type {} */
        {BYTES("\x22\x00"), "Invalid descriptor: a message has no name"},
        /* message_type {name "M", field {number 1}} */
        {BYTES("\x22\x07\x0a\x01M\x12\x02\x18\x01"), "Invalid descriptor: a field has no name"},
        /* enum_type {name "Q", value {number 0}} */
        {BYTES("\x2a\x07\x0a\x01Q\x12\x02\x10\x00"), "Invalid descriptor: an enum value has no name"},
        /* service {name "S", method {name "m"}} */
        {BYTES("\x32\x08\x0a\x01S\x12\x03\x0a\x01m"), "Invalid descriptor: a method input type has no name"},
        /* message_type {name "M", field {name "\ta", number 1}}: a tab printed, then parsed as a space */
        {BYTES("\x22\x0b\x0a\x01M\x12\x06\x0a\x02\x09"
               "a\x18\x01"),
         "Invalid descriptor: a field name '\ta' is not an identifier"},
        /* message_type {name "I-s"} */
        {BYTES("\x22\x05\x0a\x03I-s"), "Invalid descriptor: a message name 'I-s' is not an identifier"},
        /* package "a..b" */
        {BYTES("\x12\x04"
               "a..b"),
         "Invalid descriptor: the package name 'a..b' is not an identifier"},
    };
#undef BYTES
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *b64 = proto_base64_encode((const uint8_t *)cases[i].bytes, cases[i].len);
        assert_refused(b64, 0, cases[i].why);
        free(b64);
    }
}

/* A reserved range whose exclusive end is INT32_MIN: end - 1 overflowed (fuzz_proto
 * under UBSan; the ASan+UBSan build of this test aborts on it). Any answer but no UB. */
static void test_descriptor_range_end_int_min(void **state)
{
    (void)state;
    static const char file[] =
        "\x22\x12\x0a\x01M\x4a\x0d\x08\x01\x10\x80\x80\x80\x80\xf8\xff\xff\xff\xff\x01";
    char *b64 = proto_base64_encode((const uint8_t *)file, sizeof file - 1);
    char *canonical = NULL, *error = NULL;
    proto_schema_t *s = proto_schema_new(b64, strlen(b64), NULL, 0, 0, &canonical, &error);
    proto_schema_free(s);
    free(canonical);
    free(error);
    free(b64);
}

/* An option name with a dotted part before a parenthesized one, written
 * without spaces as the printer writes it: the word "g." kept its dot and the
 * canonical text of "option g .(ext).x = v" did not parse again (fuzz_proto). */
static void test_option_name_dot_before_parenthesis(void **state)
{
    (void)state;
    char *spaced = accepted("syntax = \"proto3\";\noption g .(ext).\nx = v;\n", 0);
    char *tight = accepted("syntax = \"proto3\";\noption g.(ext).x = v;\n", 0);
    assert_string_equal(spaced, tight);
    assert_non_null(strstr(tight, "option g.(ext).x = v;"));
    free(spaced);
    free(tight);
}

/* A decimal option value beyond float's range, printed normalized (fuzz_proto:
 * its float form was inf, whose printed form has no exponent to read, and the
 * conversion itself is undefined). */
static void test_option_value_beyond_float_range(void **state)
{
    (void)state;
    static const char text[] =
        "syntax = \"proto2\";\nmessage M {\n"
        "  optional double d = 1 [(x) = 1666666666666666666666666666666666666666.5];\n}\n";
    char *canonical = NULL, *error = NULL;
    proto_schema_t *s = proto_schema_new(text, strlen(text), NULL, 0, 0, &canonical, &error);
    assert_non_null(s);
    char *printed = proto_print(proto_schema_file(s), PROTO_PRINT_NORMALIZE, s, &error);
    assert_non_null(printed);
    /* DecimalFormat of the double: its shortest digits, then zeros to the point. */
    assert_non_null(strstr(printed, "(x) = 1666666666666666500000000000000000000000"));
    free(printed);
    free(canonical);
    free(error);
    proto_schema_free(s);
}

/* Input that can only be base64 is told what is wrong with it as a
 * descriptor first, then the text parser's view. */
static void test_malformed_descriptor_says_so(void **state)
{
    (void)state;
    assert_refused("CgV0ZXN", 0,
                   "Invalid base64 descriptor: its length is not a multiple of 4; as .proto text: ");
    assert_refused("CgV0=XN0", 0, "Invalid base64 descriptor: '=' padding before the end; as .proto text: ");
    /* "not a schema": 'n' is a tag with wire type 6. */
    assert_refused("bm90IGEgc2NoZW1h", 0, "Invalid FileDescriptorProto: malformed wire data near byte");
    /* A message_type whose length runs past the end. */
    char *b64 = proto_base64_encode((const uint8_t *)"\x22\x10\x0a\x01M", 5);
    assert_refused(b64, 0, "Invalid FileDescriptorProto: malformed wire data near byte 2;");
    free(b64);
    /* Words of .proto text keep the text parser's message alone. */
    assert_refused("message M { int32 x = 1 }", 0, "Syntax error");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_descriptor_10000_deep_is_refused_before_unpacking),
        cmocka_unit_test(test_descriptor_5000_deep_is_refused_quickly),
        cmocka_unit_test(test_one_depth_limit_for_both_forms),
        cmocka_unit_test(test_descriptor_size_is_bounded),
        cmocka_unit_test(test_deep_chain_prints_exactly),
        cmocka_unit_test(test_printer_appends_each_byte_once),
        cmocka_unit_test(test_field_numbers),
        cmocka_unit_test(test_descriptor_unknown_field_type),
        cmocka_unit_test(test_malformed_descriptor_says_so),
        cmocka_unit_test(test_descriptor_unnamed_elements),
        cmocka_unit_test(test_descriptor_range_end_int_min),
        cmocka_unit_test(test_option_name_dot_before_parenthesis),
        cmocka_unit_test(test_option_value_beyond_float_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
