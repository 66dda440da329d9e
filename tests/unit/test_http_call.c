/*
 * test_http_call: decoding requests into http_call_t, the query helpers,
 * media types and the reply helpers (server/http_call.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "server/http_framing.h"
#include "server/http_server.h"

/* ---- helpers ------------------------------------------------------------ */

static int parse_path(http_call_t *c, const char *path)
{
    memset(c, 0, sizeof *c);
    return http_call_parse_path(c, path, strlen(path));
}

static int parse_query(http_call_t *c, const char *query)
{
    memset(c, 0, sizeof *c);
    return http_call_parse_query(c, query, strlen(query));
}

/* The reply body as JSON (asserting it parses). */
static json_t *reply_json(const http_call_t *c)
{
    json_error_t err;
    assert_non_null(c->reply);
    assert_int_equal(strlen(c->reply), c->reply_len);
    json_t *j = json_loadb(c->reply, c->reply_len, 0, &err);
    assert_non_null(j);
    return j;
}

static void assert_error_body(const http_call_t *c, int status, int code)
{
    assert_int_equal(c->status, status);
    json_t *j = reply_json(c);
    assert_int_equal(json_object_size(j), 2); /* exactly error_code and message */
    assert_int_equal(json_integer_value(json_object_get(j, "error_code")), code);
    assert_true(json_is_string(json_object_get(j, "message")));
    json_decref(j);
}

/* ---- Context paths (Confluent's ContextFilter) ---------------------------- */

/* Decodes target as the server does, applies the context rewrite and writes
 * the result as "/seg/seg?name=value&..." (decoded) into out. Returns its rc. */
static int context_rewrite(http_method_t method, const char *target, char *out, size_t cap)
{
    static http_call_t c;
    http_call_clear(&c);
    memset(&c, 0, sizeof c);
    c.method = method;
    const char *q = strchr(target, '?');
    size_t plen = q ? (size_t)(q - target) : strlen(target);
    assert_int_equal(http_call_parse_path(&c, target, plen), 0);
    if (q)
        assert_int_equal(http_call_parse_query(&c, q + 1, strlen(q + 1)), 0);
    int rc = http_call_apply_context(&c, target, plen, q ? q + 1 : NULL, q ? strlen(q + 1) : 0);
    size_t n = 0;
    out[0] = '\0';
    if (rc != 0) {
        snprintf(out, cap, "%d %.*s", c.status, (int)c.reply_len, c.reply);
    } else {
        for (size_t i = 0; i < c.nseg; i++)
            n += (size_t)snprintf(out + n, cap - n, "/%s", c.seg[i]);
        if (c.nseg == 0)
            n += (size_t)snprintf(out + n, cap - n, "/");
        for (size_t i = 0; i < c.nquery; i++)
            n += (size_t)snprintf(out + n, cap - n, "%c%s=%s", i ? '&' : '?', c.query[i].name,
                                  c.query[i].value);
    }
    http_call_clear(&c);
    return rc;
}

static void assert_rewrite(http_method_t method, const char *target, const char *want)
{
    char got[512];
    context_rewrite(method, target, got, sizeof got);
    if (strcmp(got, want) != 0)
        fail_msg("%s -> %s, not %s", target, got, want);
}

static void test_context_paths_qualify_subjects(void **state)
{
    (void)state;
    assert_rewrite(HTTP_POST, "/contexts/.a/subjects/s/versions", "/subjects/:.a:s/versions");
    assert_rewrite(HTTP_GET, "/contexts/a/subjects/s", "/subjects/:.a:s");
    assert_rewrite(HTTP_GET, "/contexts/:.a:/subjects/s", "/subjects/:.a:s");
    assert_rewrite(HTTP_GET, "/contexts/.a/subjects/:.b:s", "/subjects/:.b:s");
    assert_rewrite(HTTP_GET, "/contexts/.a/subjects/%3A.b%3As", "/subjects/:.b:s");
    assert_rewrite(HTTP_GET, "/contexts/.a/subjects/:*:s", "/subjects/:*:s");
    assert_rewrite(HTTP_GET, "/contexts/./subjects/s", "/subjects/s");
    assert_rewrite(HTTP_GET, "/contexts/.a/subjects/s%2Fx/versions/", "/subjects/:.a:s/x/versions");
    assert_rewrite(HTTP_POST, "/contexts/.a/compatibility/subjects/s/versions/1",
                   "/compatibility/subjects/:.a:s/versions/1");
    /* The raw path: an escaped context is taken as typed. */
    assert_rewrite(HTTP_GET, "/contexts/%2Ea/subjects/s", "/subjects/:..a:s");
    /* Only the last leading /contexts/{c} counts. */
    assert_rewrite(HTTP_GET, "/contexts/.a/contexts/.b/subjects/s", "/subjects/:.b:s");
}

static void test_context_paths_scopes_and_rest(void **state)
{
    (void)state;
    assert_rewrite(HTTP_PUT, "/contexts/.a/config", "/config/:.a:");
    assert_rewrite(HTTP_GET, "/contexts/./config", "/config");
    assert_rewrite(HTTP_PUT, "/contexts/.a/mode/s", "/mode/:.a:s");
    assert_rewrite(HTTP_GET, "/contexts/.a/x/config", "/x/config"); /* not leading */
    assert_rewrite(HTTP_DELETE, "/contexts/.a", "/contexts/:.a:");
    assert_rewrite(HTTP_GET, "/contexts/.", "/");
    assert_rewrite(HTTP_GET, "/contexts/.a/contexts", "/contexts");
    assert_rewrite(HTTP_GET, "/contexts/.a/schemas/types", "/schemas/types");
    assert_rewrite(HTTP_GET, "/contexts/", "/contexts");
    assert_rewrite(HTTP_GET, "/subjects/s?subject=x", "/subjects/s?subject=x"); /* not a context path */
}

static void test_context_paths_query_parameters(void **state)
{
    (void)state;
    assert_rewrite(HTTP_GET, "/contexts/.a/schemas/ids/1", "/schemas/ids/1?subject=:.a:");
    assert_rewrite(HTTP_GET, "/contexts/./schemas/ids/1", "/schemas/ids/1?subject=");
    assert_rewrite(HTTP_GET, "/contexts/.a/schemas/ids/1/versions?subject=s&deleted=true",
                   "/schemas/ids/1/versions?deleted=true&subject=:.a:s");
    assert_rewrite(HTTP_GET, "/contexts/.a/schemas/ids/1?subject=:.b:s", "/schemas/ids/1?subject=:.b:s");
    assert_rewrite(HTTP_GET, "/contexts/.a/subjects?subjectPrefix=x&subjectPrefix=:.b:",
                   "/subjects?subjectPrefix=:.a:x&subjectPrefix=:.b:");
    assert_rewrite(HTTP_GET, "/contexts/.a/schemas?deleted=true", "/schemas?deleted=true&subjectPrefix=:.a:");
    assert_rewrite(HTTP_GET, "/contexts/./subjects", "/subjects?subjectPrefix=");
    assert_rewrite(HTTP_POST, "/contexts/.a/associations?context=z&dryRun=true",
                   "/associations?dryRun=true&context=:.a:");
    assert_rewrite(HTTP_GET, "/contexts/.a/associations?context=z", "/associations?context=z");
    /* POST /changes: its references resolve in the context (docs/api.md "Changes"). */
    assert_rewrite(HTTP_POST, "/contexts/a/changes?normalize=true", "/changes?normalize=true&context=:.a:");
    assert_rewrite(HTTP_POST, "/contexts/./changes?context=:.b:", "/changes?context=");
    assert_rewrite(HTTP_GET, "/contexts/.a/subjects/s/versions?deleted=true",
                   "/subjects/:.a:s/versions?deleted=true");
}

static void test_context_paths_colon_inside(void **state)
{
    (void)state;
    const char *want = "400 {\"error_code\":400,\"message\":\"Context name 'a:b' cannot contain a colon\"}";
    assert_rewrite(HTTP_GET, "/contexts/a:b/subjects/s", want);
    assert_rewrite(HTTP_GET, "/contexts/:a:b:/config", want);
    assert_rewrite(HTTP_GET, "/contexts/a:b/subjects", want);
    assert_rewrite(HTTP_DELETE, "/contexts/a:b", want);
    /* No prefix made, no error. */
    assert_rewrite(HTTP_GET, "/contexts/a:b/schemas/types", "/schemas/types");
    assert_rewrite(HTTP_GET, "/contexts/a:b/subjects/:.c:s", "/subjects/:.c:s");
}

/* ---- 1. Paths ------------------------------------------------------------ */

static void test_path_segments_decoded_one_by_one(void **state)
{
    http_call_t c;
    assert_int_equal(parse_path(&c, "/subjects/com%2Facme%2Fcommon.proto/versions/1"), 0);
    assert_int_equal(c.nseg, 4);
    assert_string_equal(c.seg[0], "subjects");
    assert_string_equal(c.seg[1], "com/acme/common.proto");
    assert_string_equal(c.seg[2], "versions");
    assert_string_equal(c.seg[3], "1");
    http_call_clear(&c);
}

static void test_path_plus_is_literal_and_space_escapes_decode(void **state)
{
    http_call_t c;
    assert_int_equal(parse_path(&c, "/subjects/a+b%20c%3Ad"), 0);
    assert_int_equal(c.nseg, 2);
    assert_string_equal(c.seg[1], "a+b c:d");
    http_call_clear(&c);
}

static void test_path_drops_one_trailing_slash(void **state)
{
    http_call_t c;
    assert_int_equal(parse_path(&c, "/compatibility/subjects/s/versions/"), 0);
    assert_int_equal(c.nseg, 4);
    assert_string_equal(c.seg[3], "versions");
    http_call_clear(&c);

    assert_int_equal(parse_path(&c, "/config//"), 0); /* only one is dropped */
    assert_int_equal(c.nseg, 2);
    assert_string_equal(c.seg[1], "");
    http_call_clear(&c);
}

static void test_path_root_has_no_segments(void **state)
{
    http_call_t c;
    assert_int_equal(parse_path(&c, "/"), 0);
    assert_int_equal(c.nseg, 0);
    http_call_clear(&c);
}

static void test_path_empty_segment_in_the_middle_is_kept(void **state)
{
    http_call_t c;
    assert_int_equal(parse_path(&c, "/subjects//versions"), 0);
    assert_int_equal(c.nseg, 3);
    assert_string_equal(c.seg[1], "");
    http_call_clear(&c);
}

static void test_path_unicode_subject(void **state)
{
    http_call_t c;
    assert_int_equal(parse_path(&c, "/subjects/%C3%A9t%C3%A9/versions"), 0);
    assert_string_equal(c.seg[1], "\xc3\xa9t\xc3\xa9");
    http_call_clear(&c);
}

static void test_path_rejects_bad_input(void **state)
{
    http_call_t c;
    assert_int_equal(parse_path(&c, "subjects"), 404); /* no leading '/' */
    assert_int_equal(parse_path(&c, "*"), 404);
    assert_int_equal(parse_path(&c, ""), 404);
    assert_int_equal(parse_path(&c, "/subjects/%zz"), 400);   /* not an escape */
    assert_int_equal(parse_path(&c, "/subjects/abc%4"), 400); /* cut short */
    assert_int_equal(parse_path(&c, "/subjects/abc%"), 400);
    assert_int_equal(parse_path(&c, "/subjects/%FF"), 400);       /* not UTF-8 */
    assert_int_equal(parse_path(&c, "/subjects/%C0%AF"), 400);    /* overlong '/' */
    assert_int_equal(parse_path(&c, "/subjects/%ED%A0%80"), 400); /* surrogate */
    assert_null(c.seg);
}

static void test_path_escaped_nul_stays_a_control_character(void **state)
{
    /* A NUL would cut the C string to "bad"; U+0001 keeps the subject invalid (42208). */
    http_call_t c;
    assert_int_equal(parse_path(&c, "/subjects/bad%00name/versions"), 0);
    assert_int_equal(c.nseg, 3);
    assert_string_equal(c.seg[1], "bad\x01name");
    http_call_clear(&c);

    static const char raw[] = "/subjects/bad\0name";
    memset(&c, 0, sizeof c);
    assert_int_equal(http_call_parse_path(&c, raw, sizeof raw - 1), 0);
    assert_string_equal(c.seg[1], "bad\x01name");
    http_call_clear(&c);
}

static void test_method_names(void **state)
{
    assert_int_equal(http_method_parse("GET", 3), HTTP_GET);
    assert_int_equal(http_method_parse("POST", 4), HTTP_POST);
    assert_int_equal(http_method_parse("PUT", 3), HTTP_PUT);
    assert_int_equal(http_method_parse("DELETE", 6), HTTP_DELETE);
    assert_int_equal(http_method_parse("HEAD", 4), HTTP_HEAD);
    assert_int_equal(http_method_parse("PATCH", 5), HTTP_OTHER);
    assert_int_equal(http_method_parse("get", 3), HTTP_OTHER); /* methods are case-sensitive */
    assert_int_equal(http_method_parse("GETX", 3), HTTP_GET);  /* length, not NUL, ends it */
}

/* ---- 2. Query strings ------------------------------------------------------ */

static void test_query_decoding(void **state)
{
    http_call_t c;
    assert_int_equal(parse_query(&c, "subject=a+b%2Fc&normalize=true&deleted"), 0);
    assert_int_equal(c.nquery, 3);
    assert_string_equal(c.query[0].name, "subject");
    assert_string_equal(c.query[0].value, "a b/c");
    assert_string_equal(c.query[1].name, "normalize");
    assert_string_equal(c.query[1].value, "true");
    assert_string_equal(c.query[2].name, "deleted");
    assert_string_equal(c.query[2].value, "");
    http_call_clear(&c);
}

static void test_query_empty_pairs_skipped_and_empty_values_kept(void **state)
{
    http_call_t c;
    assert_int_equal(parse_query(&c, "&&subject=&x=1&"), 0);
    assert_int_equal(c.nquery, 2);
    assert_string_equal(c.query[0].name, "subject");
    assert_string_equal(c.query[0].value, "");
    assert_string_equal(c.query[1].value, "1");
    http_call_clear(&c);

    assert_int_equal(parse_query(&c, ""), 0);
    assert_int_equal(c.nquery, 0);
    http_call_clear(&c);
}

static void test_query_value_keeps_later_equals_signs(void **state)
{
    http_call_t c;
    assert_int_equal(parse_query(&c, "key=a=b"), 0);
    assert_string_equal(c.query[0].value, "a=b");
    http_call_clear(&c);
}

static void test_query_bad_escape_kept_literally(void **state)
{
    http_call_t c;
    assert_int_equal(parse_query(&c, "q=100%&r=%zz"), 0);
    assert_string_equal(c.query[0].value, "100%");
    assert_string_equal(c.query[1].value, "%zz");
    http_call_clear(&c);
}

static void test_query_rejects_bad_utf8_and_keeps_nul_visible(void **state)
{
    http_call_t c;
    assert_int_equal(parse_query(&c, "subject=a%00b"), 0);
    assert_string_equal(http_query(&c, "subject"), "a\x01"
                                                   "b");
    http_call_clear(&c);
    assert_int_equal(parse_query(&c, "subject=%FF"), 400);
    assert_int_equal(parse_query(&c, "%FF=1"), 400);
    assert_null(c.query);
}

static void test_query_first_occurrence_wins(void **state)
{
    http_call_t c;
    assert_int_equal(parse_query(&c, "limit=5&limit=7"), 0);
    assert_string_equal(http_query(&c, "limit"), "5");
    assert_null(http_query(&c, "offset"));
    http_call_clear(&c);
}

static void test_query_bool_rules(void **state)
{
    http_call_t c;
    assert_int_equal(parse_query(&c, "a=true&b=TRUE&c=tRuE&d=false&e=&f=1&g=yes&h"), 0);
    assert_true(http_query_bool(&c, "a", 0));
    assert_true(http_query_bool(&c, "b", 0));
    assert_true(http_query_bool(&c, "c", 0));
    assert_false(http_query_bool(&c, "d", 1));
    assert_false(http_query_bool(&c, "e", 1)); /* empty means false, not the default */
    assert_false(http_query_bool(&c, "f", 1));
    assert_false(http_query_bool(&c, "g", 1));
    assert_false(http_query_bool(&c, "h", 1));
    assert_true(http_query_bool(&c, "absent", 1));
    assert_false(http_query_bool(&c, "absent", 0));
    http_call_clear(&c);
}

static void test_query_int_rules(void **state)
{
    http_call_t c;
    int v = 0;
    assert_int_equal(parse_query(&c, "a=42&b=-1&c=%2B7&d=&e=x&f=4x&g=2147483648&h=-2147483648&i=%201"), 0);
    assert_int_equal(http_query_int(&c, "a", 9, &v), 0);
    assert_int_equal(v, 42);
    assert_int_equal(http_query_int(&c, "b", 9, &v), 0);
    assert_int_equal(v, -1);
    assert_int_equal(http_query_int(&c, "c", 9, &v), 0);
    assert_int_equal(v, 7);
    assert_int_equal(http_query_int(&c, "d", 9, &v), 0); /* empty = absent */
    assert_int_equal(v, 9);
    assert_int_equal(http_query_int(&c, "absent", -1, &v), 0);
    assert_int_equal(v, -1);
    assert_int_equal(http_query_int(&c, "e", 9, &v), -1);
    assert_int_equal(http_query_int(&c, "f", 9, &v), -1);
    assert_int_equal(http_query_int(&c, "g", 9, &v), -1); /* above INT32_MAX */
    assert_int_equal(http_query_int(&c, "h", 9, &v), 0);
    assert_int_equal(v, INT32_MIN);
    assert_int_equal(http_query_int(&c, "i", 9, &v), -1); /* leading space */
    http_call_clear(&c);
}

/* ---- 3. UTF-8 ----------------------------------------------------------------- */

static void test_utf8_validation(void **state)
{
    assert_true(http_utf8_valid("", 0));
    assert_true(http_utf8_valid("plain", 5));
    assert_true(http_utf8_valid("\xc3\xa9", 2));
    assert_true(http_utf8_valid("\xe2\x82\xac", 3));
    assert_true(http_utf8_valid("\xf0\x9f\x98\x80", 4));
    assert_false(http_utf8_valid("\xc3", 1)); /* truncated */
    assert_false(http_utf8_valid("\xe2\x82", 2));
    assert_false(http_utf8_valid("\x80", 1));             /* lone continuation */
    assert_false(http_utf8_valid("\xc1\xbf", 2));         /* overlong */
    assert_false(http_utf8_valid("\xe0\x80\xaf", 3));     /* overlong */
    assert_false(http_utf8_valid("\xed\xa0\x80", 3));     /* surrogate */
    assert_false(http_utf8_valid("\xf4\x90\x80\x80", 4)); /* above U+10FFFF */
    assert_false(http_utf8_valid("\xff", 1));
}

/* ---- 4. Media types ------------------------------------------------------------- */

static const char *negotiate(const char *accept)
{
    return http_media_negotiate(accept, accept ? strlen(accept) : 0);
}

static void test_accept_defaults_to_v1(void **state)
{
    assert_string_equal(negotiate(NULL), HTTP_MEDIA_V1);
    assert_string_equal(negotiate(""), HTTP_MEDIA_V1);
    assert_string_equal(negotiate("*/*"), HTTP_MEDIA_V1);
    assert_string_equal(negotiate("application/*"), HTTP_MEDIA_V1);
}

static void test_accept_java_default_gives_v1(void **state)
{
    assert_string_equal(negotiate("text/html, image/gif, image/jpeg, *; q=.2, */*; q=.2"), HTTP_MEDIA_V1);
}

static void test_accept_named_types(void **state)
{
    assert_string_equal(negotiate("application/json"), HTTP_MEDIA_JSON);
    assert_string_equal(negotiate("application/vnd.schemaregistry+json"), HTTP_MEDIA_SR);
    assert_string_equal(negotiate("Application/JSON; charset=utf-8"), HTTP_MEDIA_JSON);
    assert_string_equal(negotiate("application/json, application/vnd.schemaregistry.v1+json"), HTTP_MEDIA_V1);
    assert_string_equal(negotiate("application/vnd.schemaregistry.v1+json; q=0.1, application/json"),
                        HTTP_MEDIA_JSON);
}

static void test_accept_q_zero_excludes(void **state)
{
    assert_string_equal(negotiate("application/vnd.schemaregistry.v1+json;q=0, */*"), HTTP_MEDIA_SR);
    assert_null(negotiate("application/json;q=0"));
}

static void test_accept_nothing_acceptable(void **state)
{
    assert_null(negotiate("text/html"));
    assert_null(negotiate("text/*, image/png"));
}

static void test_request_content_types(void **state)
{
    static const char *const ok[] = {
        "application/vnd.schemaregistry.v1+json",
        "application/vnd.schemaregistry+json",
        "application/json",
        "application/octet-stream",
        "application/json; charset=UTF-8",
        "APPLICATION/JSON",
        "",
    };
    static const char *const bad[] = {"text/plain", "application/xml", "application/json2", "*/*",
                                      "multipart/form-data; boundary=x"};
    assert_true(http_media_request_ok(NULL, 0));
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        assert_true(http_media_request_ok(ok[i], strlen(ok[i])));
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_false(http_media_request_ok(bad[i], strlen(bad[i])));
}

/* ---- 5. Replies ----------------------------------------------------------------- */

static void test_error_status_from_code(void **state)
{
    http_call_t c = {0};
    http_reply_error(&c, 40401, "Subject '%s' not found.", "orders-value");
    assert_error_body(&c, 404, 40401);
    json_t *j = reply_json(&c);
    assert_string_equal(json_string_value(json_object_get(j, "message")),
                        "Subject 'orders-value' not found.");
    json_decref(j);

    http_reply_error(&c, 415, "HTTP 415 Unsupported Media Type"); /* replaces the first reply */
    assert_error_body(&c, 415, 415);
    http_reply_error(&c, 50001, "Error while talking to the database");
    assert_error_body(&c, 500, 50001);
    http_reply_error(&c, 42208, "The specified subject '%s' is not a valid.", "x");
    assert_error_body(&c, 422, 42208);
    http_call_clear(&c);
}

static void test_error_message_with_bad_utf8_still_json(void **state)
{
    http_call_t c = {0};
    http_reply_error(&c, 42201, "Invalid schema near '%s'",
                     "a\xff\xfe"
                     "b\xc3\xa9");
    assert_error_body(&c, 422, 42201);
    json_t *j = reply_json(&c);
    assert_string_equal(json_string_value(json_object_get(j, "message")),
                        "Invalid schema near 'a??b\xc3\xa9'");
    json_decref(j);
    http_call_clear(&c);
}

static void test_reg_error_reply(void **state)
{
    http_call_t c = {0};
    reg_error_t err = {.code = REG_VERSION_NOT_FOUND};
    strcpy(err.message, "Version 7 not found.");
    http_reply_reg_error(&c, &err);
    assert_error_body(&c, 404, 40402);
    json_t *j = reply_json(&c);
    assert_string_equal(json_string_value(json_object_get(j, "message")), "Version 7 not found.");
    json_decref(j);

    err.code = REG_OK; /* a registry bug must still produce a 500, not a 0 */
    http_reply_reg_error(&c, &err);
    assert_error_body(&c, 500, 500);
    http_call_clear(&c);
}

static void test_json_reply_is_compact(void **state)
{
    http_call_t c = {0};
    http_reply_json(&c, 200, json_pack("{s:i,s:[i,i]}", "id", 1, "v", 1, 2));
    assert_int_equal(c.status, 200);
    assert_string_equal(c.reply, "{\"id\":1,\"v\":[1,2]}");
    http_reply_json(&c, 200, json_pack("[s]", "AVRO"));
    assert_string_equal(c.reply, "[\"AVRO\"]");
    http_reply_json(&c, 200, NULL); /* a failed json_pack upstream */
    assert_error_body(&c, 500, 500);
    http_call_clear(&c);
}

static void test_text_reply_copies(void **state)
{
    http_call_t c = {0};
    char text[] = "{\"type\":\"string\"}";
    http_reply_text(&c, 200, text, strlen(text));
    text[0] = 'X';
    assert_int_equal(c.status, 200);
    assert_int_equal(c.reply_len, 17);
    assert_memory_equal(c.reply, "{\"type\":\"string\"}", 17);
    http_call_clear(&c);
    assert_null(c.reply);
    assert_int_equal(c.reply_len, 0);
}

/* ---- Framing: Content-Length headers (RFC 9112 6.3) --------------------- */

static int check_head(const char *head)
{
    return http_framing_check_head(head, strlen(head));
}

static void test_framing_two_different_lengths_refused(void **state)
{
    assert_int_equal(check_head("POST /x HTTP/1.1\r\nContent-Length: 5\r\ncontent-length: 6\r\n\r\n"), -1);
    assert_int_equal(check_head("POST /x HTTP/1.1\nContent-Length:5\nHost: a\nCONTENT-LENGTH: 50\n\n"), -1);
}

static void test_framing_one_or_identical_lengths_accepted(void **state)
{
    assert_int_equal(check_head("POST /x HTTP/1.1\r\nContent-Length: 5\r\n\r\n"), 0);
    assert_int_equal(check_head("POST /x HTTP/1.1\r\nContent-Length: 5\r\nContent-Length:5 \r\n\r\n"), 0);
    assert_int_equal(check_head("GET / HTTP/1.1\r\nHost: a\r\n\r\n"), 0);
    assert_int_equal(check_head(""), 0);
}

static void test_framing_only_header_lines_count(void **state)
{
    /* Not a field name: a longer name, the request line, a line after the head. */
    assert_int_equal(check_head("POST /x HTTP/1.1\r\nContent-Length: 5\r\nContent-Lengthy: 6\r\n\r\n"), 0);
    assert_int_equal(check_head("content-length: 9\r\nContent-Length: 5\r\n\r\n"), 0);
    assert_int_equal(check_head("POST /x HTTP/1.1\r\nContent-Length: 5\r\n\r\nContent-Length: 6\r\n"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_path_segments_decoded_one_by_one),
        cmocka_unit_test(test_path_plus_is_literal_and_space_escapes_decode),
        cmocka_unit_test(test_path_drops_one_trailing_slash),
        cmocka_unit_test(test_path_root_has_no_segments),
        cmocka_unit_test(test_path_empty_segment_in_the_middle_is_kept),
        cmocka_unit_test(test_path_unicode_subject),
        cmocka_unit_test(test_path_rejects_bad_input),
        cmocka_unit_test(test_path_escaped_nul_stays_a_control_character),
        cmocka_unit_test(test_method_names),
        cmocka_unit_test(test_query_decoding),
        cmocka_unit_test(test_query_empty_pairs_skipped_and_empty_values_kept),
        cmocka_unit_test(test_query_value_keeps_later_equals_signs),
        cmocka_unit_test(test_query_bad_escape_kept_literally),
        cmocka_unit_test(test_query_rejects_bad_utf8_and_keeps_nul_visible),
        cmocka_unit_test(test_query_first_occurrence_wins),
        cmocka_unit_test(test_query_bool_rules),
        cmocka_unit_test(test_query_int_rules),
        cmocka_unit_test(test_utf8_validation),
        cmocka_unit_test(test_accept_defaults_to_v1),
        cmocka_unit_test(test_accept_java_default_gives_v1),
        cmocka_unit_test(test_accept_named_types),
        cmocka_unit_test(test_accept_q_zero_excludes),
        cmocka_unit_test(test_accept_nothing_acceptable),
        cmocka_unit_test(test_request_content_types),
        cmocka_unit_test(test_error_status_from_code),
        cmocka_unit_test(test_error_message_with_bad_utf8_still_json),
        cmocka_unit_test(test_reg_error_reply),
        cmocka_unit_test(test_json_reply_is_compact),
        cmocka_unit_test(test_text_reply_copies),
        cmocka_unit_test(test_framing_two_different_lengths_refused),
        cmocka_unit_test(test_framing_one_or_identical_lengths_accepted),
        cmocka_unit_test(test_framing_only_header_lines_count),
        cmocka_unit_test(test_context_paths_qualify_subjects),
        cmocka_unit_test(test_context_paths_scopes_and_rest),
        cmocka_unit_test(test_context_paths_query_parameters),
        cmocka_unit_test(test_context_paths_colon_inside),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
