/*
 * test_avro_conformance: every case of ../shared/conformance/avro, both
 * files: validity as new and existing, canonical text, Parsing Canonical
 * Form, reader/writer incompatibilities in order, and the level-based
 * message lists through compat_check. Skips (visibly) without the vectors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "test_avro_cases.h"

static int conformance_present(void)
{
    struct stat st;
    return stat(SR_CONFORMANCE_DIR "/avro", &st) == 0 && S_ISDIR(st.st_mode);
}

static void test_avro_conformance_all(void **state)
{
    (void)state;
    if (!conformance_present()) {
        printf("SKIP: conformance dir absent (%s)\n", SR_CONFORMANCE_DIR);
        skip();
    }
    case_stats_t st = {0};
    assert_int_equal(case_run_file(SR_CONFORMANCE_DIR "/avro/validation-cases.json", &st), 0);
    assert_int_equal(case_run_file(SR_CONFORMANCE_DIR "/avro/compatibility-cases.json", &st), 0);
    printf("avro conformance: %d passed, %d failed\n", st.passed, st.failed);
    assert_true(st.passed > 0);
    assert_int_equal(st.failed, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_avro_conformance_all),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
