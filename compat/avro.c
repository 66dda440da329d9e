/* TEMPORARY placeholder so the tree links; replaced by the real Avro engine. */
#include "compat/avro.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static void *stub_parse(const char *text, size_t len, const schema_ref_t *refs, size_t nrefs,
                        int flags, char **canonical, char **error)
{
    json_error_t je;
    json_t *j = json_loadb(text, len, JSON_DECODE_ANY, &je);
    if (!j) {
        *error = strdup(je.text);
        return NULL;
    }
    *canonical = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY);
    return j;
}

static void stub_free(void *m) { json_decref(m); }

static int stub_backward(const void *self, const void *previous, strlist_t *out) { return 0; }

const schema_engine_t avro_engine = {
    .type = SCHEMA_AVRO, .parse = stub_parse, .free = stub_free, .backward = stub_backward,
};
