/*
 * test_avro: the project's own Avro cases (tests/data/avro), which keep
 * the engine tested in a clone without ../shared.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_avro_cases.h"

static void run_data_file(const char *file)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/avro/%s", SR_TEST_DATA_DIR, file);
    case_stats_t st = {0};
    assert_int_equal(case_run_file(path, &st), 0);
    printf("%s: %d passed, %d failed\n", file, st.passed, st.failed);
    assert_true(st.passed > 0);
    assert_int_equal(st.failed, 0);
}

static void test_avro_own_validation_cases(void **state)
{
    (void)state;
    run_data_file("validation.json");
}

static void test_avro_own_compatibility_cases(void **state)
{
    (void)state;
    run_data_file("compatibility.json");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_avro_own_validation_cases),
        cmocka_unit_test(test_avro_own_compatibility_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
