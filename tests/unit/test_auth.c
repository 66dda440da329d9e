/*
 * test_auth: password hashes and user names of the users file
 * (server/auth.c sections 1-2). Known answers come from Python's hashlib
 * (hashlib.scrypt, hashlib.pbkdf2_hmac), an implementation of its own.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "server/auth.h"

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_known_answers),
        cmocka_unit_test(test_new_hash_is_salted),
        cmocka_unit_test(test_malformed_hashes),
        cmocka_unit_test(test_user_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
