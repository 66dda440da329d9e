/*
 * Unit tests of the registry pieces that need no database (the hash map is
 * tests/unit/test_base.c): version parsing (42202 rules), subject-name validation (42208).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "registry/registry.h"

static void test_version_parse(void **state)
{
    int v = 0;
    assert_int_equal(registry_version_parse("latest", &v), 0);
    assert_int_equal(v, -1);
    assert_int_equal(registry_version_parse("LaTeSt", &v), 0);
    assert_int_equal(v, -1);
    assert_int_equal(registry_version_parse("-1", &v), 0);
    assert_int_equal(v, -1);
    assert_int_equal(registry_version_parse("7", &v), 0);
    assert_int_equal(v, 7);
    assert_int_equal(registry_version_parse(" 007 ", &v), 0);
    assert_int_equal(v, 7);
    assert_int_equal(registry_version_parse("2147483647", &v), 0);
    assert_int_equal(v, 2147483647);
    const char *bad[] = {"0",  "-2",  "2147483648", "99999999999999999999", "abc", "", "1.5",
                         "+1", "1 2", NULL};
    for (int i = 0; bad[i]; i++)
        assert_int_equal(registry_version_parse(bad[i], &v), -1);
    assert_int_equal(registry_version_parse(NULL, &v), -1);
}

static void test_subject_names(void **state)
{
    reg_error_t err;
    assert_int_equal(registry_check_subject_name("orders-value", 2048, &err), REG_OK);
    assert_int_equal(registry_check_subject_name("com/acme/common.proto", 2048, &err), REG_OK);
    assert_int_equal(registry_check_subject_name("*", 2048, &err), REG_OK);
    assert_int_equal(registry_check_subject_name("caf\xc3\xa9", 2048, &err), REG_OK);
    assert_int_equal(registry_check_subject_name("bad\x01name", 2048, &err), REG_INVALID_SUBJECT);
    assert_int_equal(registry_check_subject_name("tab\tname", 2048, &err), REG_INVALID_SUBJECT);
    assert_int_equal(registry_check_subject_name("del\x7f", 2048, &err), REG_INVALID_SUBJECT);
    assert_int_equal(registry_check_subject_name("c1\xc2\x85", 2048, &err), REG_INVALID_SUBJECT);
    assert_int_equal(registry_check_subject_name("__GLOBAL", 2048, &err), REG_INVALID_SUBJECT);
    assert_int_equal(registry_check_subject_name("__EMPTY", 2048, &err), REG_INVALID_SUBJECT);
    /* A byte limit: a subject is a btree key, and PostgreSQL refuses long index rows. */
    assert_int_equal(registry_check_subject_name("abcd", 4, &err), REG_OK);
    assert_int_equal(registry_check_subject_name("abcde", 4, &err), REG_INVALID_SUBJECT);
    assert_int_equal(registry_check_subject_name("caf\xc3\xa9", 4, &err), REG_INVALID_SUBJECT);
    assert_int_equal(err.code, REG_INVALID_SUBJECT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_version_parse),
        cmocka_unit_test(test_subject_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
