/*
 * avro_hash: the fixed name indexes of a model (fields, enum symbols, union
 * branches, aliases), thin wrappers over base/hmap kept in the model's arena.
 *
 * Names come from untrusted schemas; base/hmap hashes them with SipHash-1-3
 * under a per-process random key, so crafted collisions cannot turn 100,000
 * fields into 10^10 probes. Nothing walks an index, so its slot order (random
 * per process) never shows in an answer.
 */
#include "compat/avro/internal.h"

#include <stdint.h>

struct avro_index {
    hmap_t map; /* name -> (void *)(value + 1): NULL is "absent" */
};

avro_index_t *avro_index_new(arena_t *a, size_t n)
{
    avro_index_t *ix = arena_alloc(a, sizeof *ix);
    if (!ix)
        return NULL;
    hmap_init_arena(&ix->map, a);
    return hmap_reserve_try(&ix->map, n) == 0 ? ix : NULL;
}

long avro_index_add(avro_index_t *ix, const char *key, long value)
{
    void *known = hmap_gets(&ix->map, key);
    if (known)
        return (long)((intptr_t)known - 1);
    if (hmap_puts_try(&ix->map, key, (void *)((intptr_t)value + 1), NULL) != 0)
        return AVRO_INDEX_OOM;
    return -1;
}

long avro_index_find(const avro_index_t *ix, const char *key)
{
    return ix ? (long)((intptr_t)hmap_gets(&ix->map, key) - 1) : -1;
}
