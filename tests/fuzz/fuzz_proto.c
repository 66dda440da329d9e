/*
 * libFuzzer target for the Protobuf engine: any byte string goes through
 * parse (text, or base64 descriptor), and whatever parses through every
 * printer, the descriptor builder and the diff against itself.
 *
 * Built and run by `make fuzz` (linked against compat_protobuf and base);
 * seeds: tests/fuzz/seed_corpus.py's (tests/data/protobuf), -max_len=131072 so
 * that descriptors 10,000 messages deep (~90 KB of base64) are reachable.
 *
 * The first byte picks the parse flags, so validation and normalization are
 * fuzzed too; the rest is the schema text.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compat/protobuf/protobuf.h"

static void exercise(proto_schema_t *s)
{
    char *error = NULL;
    char *text = proto_print(proto_schema_file(s), PROTO_PRINT_NORMALIZE, s, &error);
    free(text);
    free(error);
    error = NULL;
    text = proto_print(proto_schema_file(s), PROTO_PRINT_IGNORE_EXTENSIONS, NULL, &error);
    free(text);
    free(error);
    text = proto_schema_serialized(s);
    free(text);
    strlist_t out = {0};
    proto_diff(s, s, &out);
    proto_backward(s, s, &out);
    strlist_clear(&out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    int flags = data[0] & (SCHEMA_PARSE_NEW | SCHEMA_PARSE_NORMALIZE);
    char *canonical = NULL, *error = NULL;
    proto_schema_t *s =
        proto_schema_new((const char *)data + 1, size - 1, NULL, 0, flags, &canonical, &error);
    if (s) {
        /* The canonical text must parse again, to the same text. */
        char *again = NULL, *error2 = NULL;
        proto_schema_t *s2 = proto_schema_new(canonical, strlen(canonical), NULL, 0, 0, &again, &error2);
        if (!s2 || strcmp(canonical, again) != 0)
            abort();
        exercise(s);
        proto_schema_free(s2);
        free(again);
        free(error2);
    }
    proto_schema_free(s);
    free(canonical);
    free(error);
    return 0;
}
