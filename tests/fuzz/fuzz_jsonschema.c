/*
 * libFuzzer target for the JSON Schema loader: any bytes must parse or be
 * refused without a crash or a leak; what parses is diffed with itself and
 * with an empty schema, so the diff sees every shape the loader accepts.
 *
 * Built and run by `make fuzz` (linked against compat_jsonschema and base).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "compat/jsonschema/jsonschema.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *error = NULL;
    jsonschema_t *s = jsonschema_parse((const char *)data, size, NULL, 0, 0, &error);
    free(error);
    if (!s)
        return 0;
    jsonschema_t *empty = jsonschema_parse("{}", 2, NULL, 0, 0, &error);
    strlist_t changes = {0};
    jsonschema_diff(s, s, JSONSCHEMA_STRICT, &changes);
    strlist_clear(&changes);
    if (empty) {
        jsonschema_backward(s, empty, JSONSCHEMA_LENIENT, &changes);
        strlist_clear(&changes);
        jsonschema_backward(empty, s, JSONSCHEMA_STRICT, &changes);
        strlist_clear(&changes);
    }
    jsonschema_free(empty);
    jsonschema_free(s);
    return 0;
}
