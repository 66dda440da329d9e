/*
 * fuzz_avro: libFuzzer target for the Avro engine. Each input is parsed as
 * a new schema, canonicalized (stored form, resolved form, Parsing
 * Canonical Form, fingerprint) and checked against itself; the same input
 * is also parsed as an existing schema with normalization.
 *
 * Built and run by `make fuzz` (linked against compat_avro and base).
 * Run with e.g. -rss_limit_mb=2048 -max_len=4096 over a corpus of schemas.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "compat/avro/avro.h"

static void exercise(const avro_model_t *m)
{
    uint64_t fp;
    free(avro_model_canonical(m));
    free(avro_model_resolved(m));
    free(avro_parsing_canonical_form(m));
    (void)avro_model_fingerprint64(m, &fp);
    avro_issues_t issues = {0};
    (void)avro_check(m, m, &issues);
    avro_issues_free(&issues);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const int modes[] = {SCHEMA_PARSE_NEW, SCHEMA_PARSE_NORMALIZE};
    for (size_t i = 0; i < sizeof modes / sizeof *modes; i++) {
        char *error = NULL;
        avro_model_t *m = avro_model_parse((const char *)data, size, NULL, 0, modes[i], &error);
        if (m)
            exercise(m);
        avro_model_free(m);
        free(error);
    }
    return 0;
}
