/*
 * test_log: base/log.c's two line formats. Text lines keep one event on one
 * line; json lines are one valid JSON object (RFC 8259, UTF-8) whatever bytes
 * the message and the fields hold, cut at LOG_LINE_MAX without breaking it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "base/log.h"

/* The line as a JSON object; fails the test unless it is one object ending in '\n'. */
static json_t *parse_line(const char *line, size_t len)
{
    assert_true(len > 0 && len <= LOG_LINE_MAX);
    assert_int_equal(line[len - 1], '\n');
    assert_null(memchr(line, '\n', len - 1));
    json_error_t err;
    /* jansson refuses invalid UTF-8 and unescaped control characters. */
    json_t *obj = json_loadb(line, len - 1, JSON_REJECT_DUPLICATES, &err);
    if (obj == NULL)
        fail_msg("not JSON (%s at %d): %.*s", err.text, err.position, (int)len, line);
    assert_true(json_is_object(obj));
    return obj;
}

static const char *member(json_t *obj, const char *key)
{
    json_t *v = json_object_get(obj, key);
    assert_true(json_is_string(v));
    return json_string_value(v);
}

static void test_text_lines_unchanged(void **state)
{
    log_set_format(LOG_FORMAT_TEXT);
    char line[LOG_LINE_MAX];
    size_t n = log_format(line, LOG_WARN, "a\nb\x01%s", "c");
    /* "2026-11-30T04:10:10.123Z WARN a b c\n" */
    assert_int_equal(n, 24 + 1 + 5 + 6);
    assert_memory_equal(line + 24, " WARN a b c\n", 12);
}

static void test_json_line_shape(void **state)
{
    log_set_format(LOG_FORMAT_JSON);
    char line[LOG_LINE_MAX];
    size_t n = log_format(line, LOG_ERROR, "listening on %s:%d", "0.0.0.0", 8081);
    log_set_format(LOG_FORMAT_TEXT);
    assert_memory_equal(line, "{\"time\":\"", 9);
    json_t *obj = parse_line(line, n);
    assert_int_equal(json_object_size(obj), 3);
    assert_string_equal(member(obj, "level"), "ERROR");
    assert_string_equal(member(obj, "msg"), "listening on 0.0.0.0:8081");
    const char *t = member(obj, "time");
    assert_int_equal(strlen(t), 24); /* 2026-11-30T04:10:10.123Z */
    assert_int_equal(t[10], 'T');
    assert_int_equal(t[23], 'Z');
    json_decref(obj);
}

/* Every byte value, alone and in the shapes of broken UTF-8. */
static void test_json_escapes_any_bytes(void **state)
{
    char all[256];
    for (int i = 0; i < 256; i++)
        all[i] = (char)(i == 0 ? 'x' : i); /* a message is a C string: no NUL */
    char line[LOG_LINE_MAX];
    json_t *obj = parse_line(line, log_format_json(line, LOG_INFO, all, sizeof all, NULL, 0));
    const char *msg = member(obj, "msg");
    /* ASCII comes back as it went in, control characters included (escaped on the way). */
    for (int i = 1; i < 128; i++)
        assert_int_equal((unsigned char)msg[i], i);
    /* 0x80..0xff alone are no characters: one U+FFFD (EF BF BD) each. */
    for (int i = 128; i < 256; i++)
        assert_memory_equal(msg + 128 + 3 * (i - 128), "\xef\xbf\xbd", 3);
    json_decref(obj);
    /* The control characters stay escaped in the line itself. */
    assert_non_null(strstr(line, "\\u0001"));
    assert_non_null(strstr(line, "\\n"));
    assert_non_null(strstr(line, "\\u007f"));
    assert_non_null(strstr(line, "!\\\"#")); /* '"' as \" */
    assert_non_null(strstr(line, "[\\\\]")); /* '\' as \\ */

    static const struct {
        const char *in, *out;
    } cases[] = {
        {"caf\xc3\xa9", "caf\xc3\xa9"},                                     /* valid 2-byte: kept */
        {"\xe2\x82\xac \xf0\x9f\x98\x80", "\xe2\x82\xac \xf0\x9f\x98\x80"}, /* 3 and 4 bytes */
        {"\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd"},                           /* overlong '/' */
        {"\xe0\x80\xaf", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},
        {"\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"},                 /* a UTF-16 surrogate */
        {"\xf4\x90\x80\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"}, /* > U+10FFFF */
        {"a\xe2\x82", "a\xef\xbf\xbd\xef\xbf\xbd"},                               /* cut short at the end */
        {"\xe2\x82z", "\xef\xbf\xbd\xef\xbf\xbdz"},                               /* cut short before ASCII */
        {"\xef\xbf\xbf", "\xef\xbf\xbf"},                                         /* U+FFFF is a character */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        obj = parse_line(line, log_format_json(line, LOG_INFO, cases[i].in, strlen(cases[i].in), NULL, 0));
        assert_string_equal(member(obj, "msg"), cases[i].out);
        json_decref(obj);
    }
}

static void test_json_fields(void **state)
{
    char line[LOG_LINE_MAX];
    const char principal[] = "al\xff"
                             "ce\n";
    log_field_t fields[] = {
        LOG_FIELD_STR("method", "GET", 3),
        LOG_FIELD_NUM("status", 404),
        LOG_FIELD_NUM("duration_us", 1234567890123),
        LOG_FIELD_STR("principal", principal, sizeof principal - 1),
        LOG_FIELD_STR("request_id", NULL, 0),
    };
    size_t n = log_format_json(line, LOG_INFO, "m", 1, fields, 5);
    json_t *obj = parse_line(line, n);
    assert_string_equal(member(obj, "method"), "GET");
    assert_int_equal(json_integer_value(json_object_get(obj, "status")), 404);
    assert_string_equal(member(obj, "principal"), "al\xef\xbf\xbd"
                                                  "ce\n");
    assert_true(json_is_null(json_object_get(obj, "request_id")));
    assert_int_equal(json_integer_value(json_object_get(obj, "duration_us")), 1234567890123);
    json_decref(obj);
    /* The widest number there is (beyond what jansson reads) still fits. */
    fields[2] = LOG_FIELD_NUM("duration_us", UINT64_MAX);
    n = log_format_json(line, LOG_INFO, "m", 1, fields, 5);
    assert_non_null(strstr(line, ",\"duration_us\":18446744073709551615,"));
}

/* Too long for a line: the message is cut inside its string and "..." marks it;
 * fields that no longer fit are left out; the line is still one object. */
static void test_json_cut_stays_valid(void **state)
{
    static char big[3 * LOG_LINE_MAX];
    char line[LOG_LINE_MAX];
    /* Escapes of 6 bytes and UTF-8 of 3 around the cut, at every alignment. */
    for (int shift = 0; shift < 7; shift++) {
        size_t n = 0;
        for (int i = 0; i < shift; i++)
            big[n++] = 'a';
        while (n + 4 < sizeof big) {
            big[n++] = '\x01';
            memcpy(big + n, "\xe2\x82\xac", 3);
            n += 3;
        }
        log_field_t fields[] = {LOG_FIELD_STR("target", big, 2000), LOG_FIELD_NUM("status", 200)};
        size_t len = log_format_json(line, LOG_WARN, big, n, fields, 2);
        assert_true(len <= LOG_LINE_MAX);
        json_t *obj = parse_line(line, len);
        const char *msg = member(obj, "msg");
        assert_int_equal(strcmp(msg + strlen(msg) - 3, "..."), 0);
        assert_null(json_object_get(obj, "target")); /* no room left */
        assert_true(len > LOG_LINE_MAX - 16);        /* cut near the end, not early */
        json_decref(obj);
    }
    /* A long field after a short message is cut the same way. */
    memset(big, '"', LOG_LINE_MAX);
    log_field_t fields[] = {LOG_FIELD_STR("target", big, LOG_LINE_MAX), LOG_FIELD_NUM("status", 200)};
    size_t len = log_format_json(line, LOG_INFO, "m", 1, fields, 2);
    json_t *obj = parse_line(line, len);
    const char *target = member(obj, "target");
    assert_int_equal(strcmp(target + strlen(target) - 3, "..."), 0);
    json_decref(obj);
}

/* log_vformat in the json format, with a message longer than a line. */
static void test_json_vformat_long_message(void **state)
{
    static char big[2 * LOG_LINE_MAX];
    memset(big, 'z', sizeof big - 1);
    log_set_format(LOG_FORMAT_JSON);
    char line[LOG_LINE_MAX];
    size_t n = log_format(line, LOG_INFO, "%s", big);
    log_set_format(LOG_FORMAT_TEXT);
    json_t *obj = parse_line(line, n);
    assert_int_equal(strcmp(member(obj, "msg") + strlen(member(obj, "msg")) - 4, "z..."), 0);
    json_decref(obj);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_text_lines_unchanged),   cmocka_unit_test(test_json_line_shape),
        cmocka_unit_test(test_json_escapes_any_bytes), cmocka_unit_test(test_json_fields),
        cmocka_unit_test(test_json_cut_stays_valid),   cmocka_unit_test(test_json_vformat_long_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
