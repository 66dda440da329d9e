/*
 * test_auth: password hashes and user names of the users file
 * (server/auth.c sections 1-2), and a Basic check's way through
 * auth_authenticate, auth_check_run and auth_check_finish (section 6).
 * Known answers come from Python's hashlib (hashlib.scrypt,
 * hashlib.pbkdf2_hmac), an implementation of its own.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "server/auth.h"
#include "server/http_server.h"

#define PASSWORD "correct horse"
/* hashlib.scrypt(b"correct horse", salt=b"0123456789abcdef", n=1024, r=8, p=1, dklen=32) */
static const char scrypt_known[] =
    "$scrypt$ln=10,r=8,p=1$MDEyMzQ1Njc4OWFiY2RlZg==$6g3umF+uVrJsObaTZhIbbTlgrvOEFcCItdwSjtPF67M=";
/* hashlib.pbkdf2_hmac("sha256", b"correct horse", b"0123456789abcdef", 10000, 32) */
static const char pbkdf2_known[] =
    "$pbkdf2-sha256$i=10000$MDEyMzQ1Njc4OWFiY2RlZg==$TI2grtvV1HW5nz2rBY4tctlrmOj5bZs0dw9j8NHpRRc=";

static void test_known_answers(void **state)
{
    assert_int_equal(auth_hash_verify(scrypt_known, PASSWORD, strlen(PASSWORD)), 1);
    assert_int_equal(auth_hash_verify(pbkdf2_known, PASSWORD, strlen(PASSWORD)), 1);
    assert_int_equal(auth_hash_verify(scrypt_known, "correct horsE", 13), 0);
    assert_int_equal(auth_hash_verify(pbkdf2_known, PASSWORD, strlen(PASSWORD) - 1), 0);
    /* Without padding the same. */
    assert_int_equal(auth_hash_verify("$scrypt$ln=10,r=8,p=1$MDEyMzQ1Njc4OWFiY2RlZg$"
                                      "6g3umF+uVrJsObaTZhIbbTlgrvOEFcCItdwSjtPF67M",
                                      PASSWORD, strlen(PASSWORD)),
                     1);
}

static void test_new_hash_is_salted(void **state)
{
    /* A password with a space: base64 has none, so it cannot stand in the hash by chance
     * (a two-letter one did, now and then, in a random salt). */
    char *a = auth_hash_new(PASSWORD, strlen(PASSWORD)), *b = auth_hash_new(PASSWORD, strlen(PASSWORD));
    assert_non_null(a);
    assert_non_null(b);
    assert_string_not_equal(a, b);
    assert_int_equal(strncmp(a, "$scrypt$ln=15,r=8,p=1$", 22), 0);
    assert_int_equal(auth_hash_verify(a, PASSWORD, strlen(PASSWORD)), 1);
    assert_int_equal(auth_hash_verify(b, PASSWORD, strlen(PASSWORD)), 1);
    assert_int_equal(auth_hash_verify(a, "correct horsE", 13), 0);
    assert_null(strstr(a, PASSWORD));
    free(a);
    free(b);
}

static void test_malformed_hashes(void **state)
{
    static const char *const bad[] = {
        "",
        "plain",
        "$md5$x$y$z",
        "$scrypt$ln=9,r=8,p=1$MDEyMzQ1Njc4OWFiY2RlZg==$6g3umF+uVrJsObaTZhIbbTlgrvOEFcCItdwSjtPF67M=",
        "$scrypt$ln=21,r=8,p=1$MDEyMzQ1Njc4OWFiY2RlZg==$6g3umF+uVrJsObaTZhIbbTlgrvOEFcCItdwSjtPF67M=",
        "$scrypt$ln=10,r=8$MDEyMzQ1Njc4OWFiY2RlZg==$6g3umF+uVrJsObaTZhIbbTlgrvOEFcCItdwSjtPF67M=",
        "$scrypt$ln=10,r=8,p=1$!!!!$6g3umF+uVrJsObaTZhIbbTlgrvOEFcCItdwSjtPF67M=",
        "$scrypt$ln=10,r=8,p=1$MDEyMzQ1Njc4OWFiY2RlZg==$6g3u",
        "$scrypt$ln=10,r=8,p=1$MDEyMzQ1Njc4OWFiY2RlZg==$6g3umF+uVrJsObaTZhIbbTlgrvOEFcCItdwSjtPF67M=$",
        "$pbkdf2-sha256$i=9999$MDEyMzQ1Njc4OWFiY2RlZg==$TI2grtvV1HW5nz2rBY4tctlrmOj5bZs0dw9j8NHpRRc=",
        "$pbkdf2-sha256$i=-1$MDEyMzQ1Njc4OWFiY2RlZg==$TI2grtvV1HW5nz2rBY4tctlrmOj5bZs0dw9j8NHpRRc=",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (auth_hash_verify(bad[i], PASSWORD, strlen(PASSWORD)) != -1)
            fail_msg("accepted as a hash: %s", bad[i]);
    }
}

static void test_user_names(void **state)
{
    assert_true(auth_user_name_ok("alice"));
    assert_true(auth_user_name_ok("svc.reader@example"));
    assert_true(auth_user_name_ok("\xc3\xa9milie"));
    assert_false(auth_user_name_ok(""));
    assert_false(auth_user_name_ok("a:b"));
    assert_false(auth_user_name_ok("a b"));
    assert_false(auth_user_name_ok("a\nb"));
    assert_false(auth_user_name_ok("#comment"));
    char longname[130];
    memset(longname, 'a', 129);
    longname[129] = '\0';
    assert_false(auth_user_name_ok(longname));
    longname[128] = '\0';
    assert_true(auth_user_name_ok(longname));
}

/* "Basic base64(user:password)" into out. */
static void basic_header(const char *pair, char *out)
{
    static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t n = strlen(pair), o = (size_t)sprintf(out, "Basic ");
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned char)pair[i] << 16;
        v |= i + 1 < n ? (unsigned char)pair[i + 1] << 8 : 0;
        v |= i + 2 < n ? (unsigned char)pair[i + 2] : 0;
        out[o++] = b64[v >> 18 & 63];
        out[o++] = b64[v >> 12 & 63];
        out[o++] = i + 1 < n ? b64[v >> 6 & 63] : '=';
        out[o++] = i + 2 < n ? b64[v & 63] : '=';
    }
    out[o] = '\0';
}

/* auth_authenticate for user:password from addr on a fresh call in c; its return value. */
static int authenticate(auth_t *a, http_call_t *c, const char *pair, const char *addr, auth_check_t **k)
{
    char header[256];
    memset(c, 0, sizeof *c);
    snprintf(c->remote, sizeof c->remote, "%s", addr);
    basic_header(pair, header);
    auth_request_t in = {.authorization = header, .authorization_len = strlen(header)};
    return auth_authenticate(a, c, &in, k);
}

static const char *reply_header(const http_call_t *c, const char *name)
{
    for (size_t i = 0; i < c->nreply_headers; i++)
        if (strcmp(c->reply_headers[i].name, name) == 0)
            return c->reply_headers[i].value;
    return NULL;
}

static void test_checks_off_the_caller(void **state)
{
    char path[] = "/tmp/test_auth_users_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fprintf(f, "alice:%s\n", scrypt_known);
    fclose(f);
    server_config_t cfg = {.auth_users_file = path, .auth_max_failures = 2, .auth_max_verifications = 2};
    char *error = NULL;
    auth_t *a = auth_new(&cfg, &error);
    assert_non_null(a);
    http_call_t c1, c2, c3;
    auth_check_t *k1, *k2, *k3;

    /* A miss hands out a check and replies nothing yet; the bound is checks out, not run. */
    assert_int_equal(authenticate(a, &c1, "alice:" PASSWORD, "10.0.0.1", &k1), 1);
    assert_non_null(k1);
    assert_int_equal(c1.status, 0);
    assert_null(c1.principal);
    assert_int_equal(authenticate(a, &c2, "alice:wrong", "10.0.0.2", &k2), 1);
    assert_int_equal(authenticate(a, &c3, "alice:other", "10.0.0.3", &k3), -1);
    assert_null(k3);
    assert_int_equal(c3.status, 503);
    assert_string_equal(reply_header(&c3, "retry-after"), "1");
    http_call_clear(&c3);

    /* Right: the principal, and the pair is cached. Wrong: 401 with the challenge. */
    auth_check_run(k1);
    assert_int_equal(auth_check_finish(a, &c1, k1), 0);
    assert_string_equal(c1.principal, "alice");
    http_call_clear(&c1);
    auth_check_run(k2);
    assert_int_equal(auth_check_finish(a, &c2, k2), -1);
    assert_int_equal(c2.status, 401);
    assert_string_equal(reply_header(&c2, "www-authenticate"), "Basic realm=\"SchemaRegistry\"");
    http_call_clear(&c2);
    assert_int_equal(authenticate(a, &c1, "alice:" PASSWORD, "10.0.0.9", &k1), 0);
    assert_null(k1);
    assert_string_equal(c1.principal, "alice");
    http_call_clear(&c1);

    /* Two checks at once from one address take its two tokens before any hash: a third is 429. */
    assert_int_equal(authenticate(a, &c1, "alice:guess1", "10.0.0.4", &k1), 1);
    assert_int_equal(authenticate(a, &c2, "alice:guess2", "10.0.0.4", &k2), 1);
    assert_int_equal(authenticate(a, &c3, "alice:guess3", "10.0.0.4", &k3), -1);
    assert_int_equal(c3.status, 429);
    http_call_clear(&c3);
    /* A check whose client left before it ran: 499, not a failure (the token comes back). */
    assert_int_equal(auth_check_finish(a, &c1, k1), -1);
    assert_int_equal(c1.status, 499);
    http_call_clear(&c1);
    auth_check_run(k2);
    assert_int_equal(auth_check_finish(a, &c2, k2), -1);
    assert_int_equal(c2.status, 401);
    http_call_clear(&c2);
    assert_int_equal(authenticate(a, &c1, "alice:guess4", "10.0.0.4", &k1), 1);
    auth_check_run(k1);
    assert_int_equal(auth_check_finish(a, &c1, k1), -1);
    http_call_clear(&c1);
    assert_int_equal(authenticate(a, &c1, "alice:" PASSWORD, "10.0.0.4", &k1), -1);
    assert_int_equal(c1.status, 429);
    http_call_clear(&c1);

    /* SIGHUP empties the cache: the right password is verified again. */
    assert_int_equal(auth_reload(a, &error), 0);
    assert_int_equal(authenticate(a, &c1, "alice:" PASSWORD, "10.0.0.9", &k1), 1);
    auth_check_run(k1);
    assert_int_equal(auth_check_finish(a, &c1, k1), 0);
    http_call_clear(&c1);
    auth_free(a);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_answers),         cmocka_unit_test(test_new_hash_is_salted),
        cmocka_unit_test(test_malformed_hashes),      cmocka_unit_test(test_user_names),
        cmocka_unit_test(test_checks_off_the_caller),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
