/*
 * test_http_abuse: the per-connection ledger (server/http_abuse.c): the
 * reset budget spent by replies that never went out and refilled by those
 * that did, the header caps, and that a connection sent away stays away.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "server/http_abuse.h"

static const http_abuse_limits_t limits = {.max_resets = 3, .max_headers = 4, .max_header_bytes = 100};

static void test_budget_is_spent_by_resets(void **state)
{
    (void)state;
    http_abuse_conn_t c;
    http_abuse_conn_init(&c, &limits);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(http_abuse_on_request(&c, &limits, 2, 50), HTTP_ABUSE_SERVE);
        http_abuse_on_end(&c, &limits, 0);
    }
    assert_int_equal(http_abuse_on_request(&c, &limits, 2, 50), HTTP_ABUSE_RESETS);
    assert_int_equal(c.resets, 3);
    assert_int_equal(c.requests, 4);
    /* Whatever h2o still hands over is refused the same way. */
    assert_int_equal(http_abuse_on_request(&c, &limits, 2, 50), HTTP_ABUSE_RESETS);
}

static void test_delivered_replies_refill_up_to_the_budget(void **state)
{
    (void)state;
    http_abuse_conn_t c;
    http_abuse_conn_init(&c, &limits);
    /* One reset in two: never runs out. */
    for (int i = 0; i < 1000; i++) {
        assert_int_equal(http_abuse_on_request(&c, &limits, 2, 50), HTTP_ABUSE_SERVE);
        http_abuse_on_end(&c, &limits, i % 2);
    }
    /* 1000 delivered replies do not buy more than the budget. */
    for (int i = 0; i < 1000; i++)
        http_abuse_on_end(&c, &limits, 1);
    assert_int_equal(c.reset_budget, 3);
}

static void test_header_caps(void **state)
{
    (void)state;
    http_abuse_conn_t c;
    http_abuse_conn_init(&c, &limits);
    assert_int_equal(http_abuse_on_request(&c, &limits, 4, 100), HTTP_ABUSE_SERVE);
    assert_int_equal(http_abuse_on_request(&c, &limits, 5, 10), HTTP_ABUSE_HEADERS);
    http_abuse_conn_init(&c, &limits);
    assert_int_equal(http_abuse_on_request(&c, &limits, 1, 101), HTTP_ABUSE_HEADERS);
}

static void test_zero_turns_limits_off(void **state)
{
    (void)state;
    const http_abuse_limits_t off = {0};
    http_abuse_conn_t c;
    http_abuse_conn_init(&c, &off);
    for (int i = 0; i < 1000; i++) {
        assert_int_equal(http_abuse_on_request(&c, &off, 100000, 1u << 30), HTTP_ABUSE_SERVE);
        http_abuse_on_end(&c, &off, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_budget_is_spent_by_resets),
        cmocka_unit_test(test_delivered_replies_refill_up_to_the_budget),
        cmocka_unit_test(test_header_caps),
        cmocka_unit_test(test_zero_turns_limits_off),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
