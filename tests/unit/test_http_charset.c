/*
 * test_http_charset: the encodings of a request body (server/http_charset.c):
 * detection as Jackson's ByteSourceJsonBootstrapper does it, exact
 * conversion to UTF-8, and what a call's body becomes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "server/http_charset.h"
#include "server/http_server.h"

/* ---- helpers ------------------------------------------------------------ */

/* utf8 (ASCII and \u escapes written as UTF-8 by the compiler) encoded as cs, with a mark when bom. */
static size_t encode(const char *utf8, http_charset_t cs, int bom, unsigned char *out)
{
    size_t o = 0;
    const unsigned char *s = (const unsigned char *)utf8;
    int big = cs == HTTP_CHARSET_UTF16BE || cs == HTTP_CHARSET_UTF32BE;
    int wide = cs == HTTP_CHARSET_UTF32BE || cs == HTTP_CHARSET_UTF32LE;
    if (cs == HTTP_CHARSET_UTF8) {
        if (bom)
            out[o++] = 0xEF, out[o++] = 0xBB, out[o++] = 0xBF;
        memcpy(out + o, utf8, strlen(utf8));
        return o + strlen(utf8);
    }
    uint32_t cps[256];
    size_t n = 0;
    if (bom)
        cps[n++] = 0xFEFF;
    while (*s) {
        uint32_t cp;
        int extra;
        if (*s < 0x80)
            cp = *s, extra = 0;
        else if (*s < 0xE0)
            cp = *s & 0x1F, extra = 1;
        else if (*s < 0xF0)
            cp = *s & 0x0F, extra = 2;
        else
            cp = *s & 0x07, extra = 3;
        s++;
        while (extra--)
            cp = cp << 6 | (*s++ & 0x3F);
        cps[n++] = cp;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t units[2] = {cps[i], 0};
        size_t nu = 1;
        if (!wide && cps[i] >= 0x10000) {
            units[0] = 0xD800 + ((cps[i] - 0x10000) >> 10);
            units[1] = 0xDC00 + ((cps[i] - 0x10000) & 0x3FF);
            nu = 2;
        }
        for (size_t u = 0; u < nu; u++) {
            int bytes = wide ? 4 : 2;
            for (int k = 0; k < bytes; k++) {
                int shift = big ? 8 * (bytes - 1 - k) : 8 * k;
                out[o++] = (unsigned char)(units[u] >> shift);
            }
        }
    }
    return o;
}

static http_call_t call_with_body(http_method_t method, const unsigned char *body, size_t len)
{
    http_call_t c;
    memset(&c, 0, sizeof c);
    c.method = method;
    c.body = (const char *)body;
    c.body_len = len;
    return c;
}

/* The 400 reply's message contains fragment. */
static void assert_400(http_call_t *c, const char *fragment)
{
    assert_int_equal(c->status, 400);
    json_error_t err;
    json_t *j = json_loadb(c->reply, c->reply_len, 0, &err);
    assert_non_null(j);
    assert_int_equal(json_integer_value(json_object_get(j, "error_code")), 400);
    const char *msg = json_string_value(json_object_get(j, "message"));
    assert_non_null(msg);
    if (!strstr(msg, fragment))
        printf("message '%s' lacks '%s'\n", msg, fragment);
    assert_non_null(strstr(msg, fragment));
    json_decref(j);
}

/* ---- detection ------------------------------------------------------------ */

static void test_detect_follows_jackson(void **state)
{
    (void)state;
    static const struct {
        const char *bytes;
        size_t len;
        http_charset_t cs;
        size_t bom;
    } cases[] = {
        {"{\"a\"", 4, HTTP_CHARSET_UTF8, 0},
        {"\xEF\xBB\xBF{}", 5, HTTP_CHARSET_UTF8, 3},
        {"\xFE\xFF\0{", 4, HTTP_CHARSET_UTF16BE, 2},
        {"\xFF\xFE{\0", 4, HTTP_CHARSET_UTF16LE, 2},
        {"\0\0\xFE\xFF", 4, HTTP_CHARSET_UTF32BE, 4},
        {"\xFF\xFE\0\0", 4, HTTP_CHARSET_UTF32LE, 4},
        {"\0{\0\"", 4, HTTP_CHARSET_UTF16BE, 0},
        {"{\0\"\0", 4, HTTP_CHARSET_UTF16LE, 0},
        {"\0\0\0{", 4, HTTP_CHARSET_UTF32BE, 0},
        {"{\0\0\0", 4, HTTP_CHARSET_UTF32LE, 0},
        {"\0\0\xFF\xFE", 4, HTTP_CHARSET_UCS4_2143, 0},
        {"\xFE\xFF\0\0", 4, HTTP_CHARSET_UCS4_3412, 0},
        {"\0{\0\0", 4, HTTP_CHARSET_UCS4_3412, 0},
        {"\0\0{\0", 4, HTTP_CHARSET_UCS4_2143, 0},
        /* two or three bytes: UTF-16 by its zero byte, and no marks */
        {"\0"
         "1",
         2, HTTP_CHARSET_UTF16BE, 0},
        {"1\0", 2, HTTP_CHARSET_UTF16LE, 0},
        {"\xFF\xFE"
         "1",
         3, HTTP_CHARSET_UTF8, 0},
        {"\xEF\xBB\xBF", 3, HTTP_CHARSET_UTF8, 0},
        {"{}", 2, HTTP_CHARSET_UTF8, 0},
        {"1", 1, HTTP_CHARSET_UTF8, 0},
        {"", 0, HTTP_CHARSET_UTF8, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        size_t bom = 99;
        printf("case %zu\n", i);
        assert_int_equal(http_charset_detect(cases[i].bytes, cases[i].len, &bom), cases[i].cs);
        assert_int_equal(bom, cases[i].bom);
    }
}

/* ---- conversion ------------------------------------------------------------ */

static void test_every_form_converts_to_the_same_utf8(void **state)
{
    (void)state;
    /* ASCII, two-, three- and four-byte UTF-8 (a surrogate pair in UTF-16) */
    const char *text =
        "{\"schema\": \"\\\"string\\\"\", \"doc\": \"\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80\"}";
    const http_charset_t forms[] = {HTTP_CHARSET_UTF16BE, HTTP_CHARSET_UTF16LE, HTTP_CHARSET_UTF32BE,
                                    HTTP_CHARSET_UTF32LE};
    for (size_t f = 0; f < sizeof forms / sizeof *forms; f++) {
        for (int bom = 0; bom <= 1; bom++) {
            unsigned char buf[1024];
            size_t len = encode(text, forms[f], bom, buf);
            size_t skip = 99;
            assert_int_equal(http_charset_detect((const char *)buf, len, &skip), forms[f]);
            assert_int_equal(skip, bom ? (forms[f] >= HTTP_CHARSET_UTF32BE ? 4 : 2) : 0);
            char *out = NULL, error[128] = "";
            size_t out_len = 0;
            assert_int_equal(http_charset_to_utf8(forms[f], (const char *)buf + skip, len - skip, &out,
                                                  &out_len, error, sizeof error),
                             0);
            assert_int_equal(out_len, strlen(text));
            assert_memory_equal(out, text, out_len);
            assert_int_equal(out[out_len], '\0');
            free(out);
        }
    }
}

static void test_invalid_units_are_refused(void **state)
{
    (void)state;
    static const struct {
        http_charset_t cs;
        const char *bytes;
        size_t len;
        const char *why;
    } cases[] = {
        {HTTP_CHARSET_UTF16LE, "{\0}", 3, "middle of a UTF-16 unit"},
        {HTTP_CHARSET_UTF16BE, "\0{\xD8\0\0}", 6, "unpaired UTF-16 surrogate 0xd800 at byte 2"},
        {HTTP_CHARSET_UTF16LE, "{\0\0\xD8", 4, "unpaired UTF-16 surrogate 0xd800 at byte 2"},
        {HTTP_CHARSET_UTF16LE, "{\0\0\xDC}\0", 6, "unpaired UTF-16 surrogate 0xdc00 at byte 2"},
        {HTTP_CHARSET_UTF16BE, "\xD8\0\xD8\0", 4, "unpaired UTF-16 surrogate 0xd800 at byte 0"},
        {HTTP_CHARSET_UTF32BE, "\0\0\0{\0\0", 6, "middle of a UTF-32 unit"},
        {HTTP_CHARSET_UTF32BE, "\0\0\0{\0\x11\0\0", 8, "invalid UTF-32 character 0x110000 at byte 4"},
        {HTTP_CHARSET_UTF32LE, "{\0\0\0\0\xD8\0\0", 8, "invalid UTF-32 character 0xd800 at byte 4"},
        {HTTP_CHARSET_UCS4_2143, "\0\0{\0", 4, "unsupported encoding UCS-4 (2143)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *out = (char *)1, error[128] = "";
        size_t out_len = 7;
        printf("case %zu\n", i);
        assert_int_equal(http_charset_to_utf8(cases[i].cs, cases[i].bytes, cases[i].len, &out, &out_len,
                                              error, sizeof error),
                         -1);
        assert_null(out);
        assert_int_equal(out_len, 0);
        if (!strstr(error, cases[i].why))
            printf("error '%s' lacks '%s'\n", error, cases[i].why);
        assert_non_null(strstr(error, cases[i].why));
    }
}

/* ---- the call's body ------------------------------------------------------------ */

static void test_call_body_becomes_utf8(void **state)
{
    (void)state;
    const char *text = "{\"schema\": \"\\\"string\\\"\"}";
    unsigned char buf[256];
    size_t len = encode(text, HTTP_CHARSET_UTF16LE, 1, buf);
    http_call_t c = call_with_body(HTTP_POST, buf, len);
    assert_int_equal(http_charset_body(&c), 0);
    assert_int_equal(c.status, 0);
    assert_non_null(c.body_utf8);
    assert_ptr_equal(c.body, c.body_utf8);
    assert_int_equal(c.body_len, strlen(text));
    assert_memory_equal(c.body, text, c.body_len);
    http_call_clear(&c);
    assert_null(c.body_utf8);

    /* UTF-8 with a mark: the mark is skipped, nothing is copied */
    len = encode(text, HTTP_CHARSET_UTF8, 1, buf);
    c = call_with_body(HTTP_PUT, buf, len);
    assert_int_equal(http_charset_body(&c), 0);
    assert_null(c.body_utf8);
    assert_ptr_equal(c.body, (const char *)buf + 3);
    assert_int_equal(c.body_len, strlen(text));
    http_call_clear(&c);

    /* plain UTF-8 and no body: untouched */
    c = call_with_body(HTTP_POST, (const unsigned char *)text, strlen(text));
    assert_int_equal(http_charset_body(&c), 0);
    assert_ptr_equal(c.body, text);
    assert_int_equal(c.body_len, strlen(text));
    c = call_with_body(HTTP_POST, NULL, 0);
    assert_int_equal(http_charset_body(&c), 0);
    assert_null(c.body);

    /* bodies of other methods are not read by any handler, so not judged either */
    c = call_with_body(HTTP_DELETE, (const unsigned char *)"{\0\0\xD8", 4);
    assert_int_equal(http_charset_body(&c), 0);
    assert_int_equal(c.status, 0);
    assert_int_equal(c.body_len, 4);
}

static void test_call_body_errors_are_400(void **state)
{
    (void)state;
    http_call_t c = call_with_body(HTTP_POST, (const unsigned char *)"\xFF\xFE{\0\0\xD8", 6);
    assert_int_equal(http_charset_body(&c), -1);
    assert_400(&c, "Invalid UTF-16LE request body: unpaired UTF-16 surrogate 0xd800 at byte 2");
    assert_null(c.body_utf8);
    http_call_clear(&c);

    c = call_with_body(HTTP_PUT, (const unsigned char *)"\0\0\0{\0", 5);
    assert_int_equal(http_charset_body(&c), -1);
    assert_400(&c, "Invalid UTF-32BE request body: the body ends in the middle of a UTF-32 unit");
    http_call_clear(&c);

    c = call_with_body(HTTP_POST, (const unsigned char *)"\0\0{\0", 4);
    assert_int_equal(http_charset_body(&c), -1);
    assert_400(&c, "Unsupported UCS-4 endianness (2143) detected");
    http_call_clear(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_detect_follows_jackson),
        cmocka_unit_test(test_every_form_converts_to_the_same_utf8),
        cmocka_unit_test(test_invalid_units_are_refused),
        cmocka_unit_test(test_call_body_becomes_utf8),
        cmocka_unit_test(test_call_body_errors_are_400),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
