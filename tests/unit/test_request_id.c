/*
 * test_request_id: which X-Request-Id values are kept, and what a generated
 * id looks like (server/request_id.h, docs/operations.md "Logs").
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "server/request_id.h"

static int sane(const char *s)
{
    return request_id_sane(s, strlen(s));
}

static void test_sane_ids(void **state)
{
    (void)state;
    char longest[REQUEST_ID_MAX + 2];
    memset(longest, 'a', sizeof longest);
    longest[REQUEST_ID_MAX] = '\0';
    assert_true(sane("a"));
    assert_true(sane("deploy-7:orders_v1.2"));
    assert_true(sane("0123456789ABCDEFabcdef"));
    assert_true(sane(longest));
    longest[REQUEST_ID_MAX] = 'a';
    longest[REQUEST_ID_MAX + 1] = '\0';
    assert_false(sane(longest)); /* 129 */
    assert_false(sane(""));
    assert_false(request_id_sane(NULL, 0));
    static const char *const bad[] = {"a b", "a\nb", "a;b", "a\"b", "a/b", "a\\b", "a=b", "\xc3\xa9", "a\tb"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_false(sane(bad[i]));
    /* A NUL inside is not the end of the header's value. */
    assert_false(request_id_sane("ab\0cd", 5));
}

static void test_generated_ids(void **state)
{
    (void)state;
    char a[33], b[33];
    request_id_new(a);
    request_id_new(b);
    assert_int_equal(strlen(a), 32);
    assert_int_equal(strspn(a, "0123456789abcdef"), 32);
    assert_true(sane(a));
    assert_string_not_equal(a, b);
}

/* All 128 bits reach the digits: over 256 ids every position takes many values
 * (fewer than 8 of 16 at one position has a chance below 1e-60 per position),
 * and the halves are two draws, not one written twice. */
static void test_every_digit_varies(void **state)
{
    (void)state;
    unsigned seen[32] = {0};
    for (int i = 0; i < 256; i++) {
        char id[33];
        request_id_new(id);
        assert_memory_not_equal(id, id + 16, 16);
        for (int k = 0; k < 32; k++)
            seen[k] |= 1u << (id[k] <= '9' ? id[k] - '0' : id[k] - 'a' + 10);
    }
    for (int k = 0; k < 32; k++)
        assert_true(__builtin_popcount(seen[k]) >= 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sane_ids),
        cmocka_unit_test(test_generated_ids),
        cmocka_unit_test(test_every_digit_varies),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
