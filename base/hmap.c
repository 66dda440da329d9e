#include "base/hmap.h"

#include "base/alloc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* FNV-1a: keys are short (subject names, 4-byte ids, 16-byte digests). */
static uint64_t hmap_hash(const void *key, size_t klen)
{
    const unsigned char *p = key;
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < klen; i++) {
        h ^= p[i];
        h *= 1099511628211ULL;
    }
    return h ^ (h >> 29);
}

static hmap_entry_t *hmap_find(const hmap_t *m, const void *key, size_t klen)
{
    if (!m->cap)
        return NULL;
    size_t mask = m->cap - 1;
    for (size_t i = hmap_hash(key, klen) & mask;; i = (i + 1) & mask) {
        hmap_entry_t *e = &m->slots[i];
        if (!e->key)
            return NULL;
        if (!e->tomb && e->klen == klen && memcmp(e->key, key, klen) == 0)
            return e;
    }
}

/* Rehashes into a table that has room for one more entry; -1 when out of
 * memory (the map is then unchanged). */
static int hmap_grow(hmap_t *m)
{
    hmap_t bigger = {0};
    bigger.cap = m->cap ? m->cap * 2 : 16;
    /* Rehashing also drops tombstones, so grow only when live entries need it. */
    if (m->used * 2 < m->cap)
        bigger.cap = m->cap;
    bigger.slots = calloc(bigger.cap, sizeof *bigger.slots);
    if (!bigger.slots)
        return -1;
    for (size_t i = 0; i < m->cap; i++) {
        hmap_entry_t *e = &m->slots[i];
        if (!e->key)
            continue;
        if (e->tomb) {
            free(e->key);
            continue;
        }
        size_t mask = bigger.cap - 1;
        size_t j = hmap_hash(e->key, e->klen) & mask;
        while (bigger.slots[j].key)
            j = (j + 1) & mask;
        bigger.slots[j] = *e;
        bigger.used++;
        bigger.filled++;
    }
    free(m->slots);
    *m = bigger;
    return 0;
}

void *hmap_get(const hmap_t *m, const void *key, size_t klen)
{
    hmap_entry_t *e = hmap_find(m, key, klen);
    return e ? e->value : NULL;
}

int hmap_contains(const hmap_t *m, const void *key, size_t klen)
{
    return hmap_find(m, key, klen) != NULL;
}

int hmap_put_try(hmap_t *m, const void *key, size_t klen, void *value, void **old)
{
    hmap_entry_t *e = hmap_find(m, key, klen);
    if (e) {
        if (old)
            *old = e->value;
        e->value = value;
        return 0;
    }
    if ((m->filled + 1) * 4 > m->cap * 3 && hmap_grow(m) != 0)
        return -1;
    char *copy = malloc(klen + 1);
    if (!copy)
        return -1;
    memcpy(copy, key, klen);
    copy[klen] = '\0';
    size_t mask = m->cap - 1;
    size_t i = hmap_hash(key, klen) & mask;
    while (m->slots[i].key)
        i = (i + 1) & mask;
    e = &m->slots[i];
    e->key = copy;
    e->klen = klen;
    e->value = value;
    e->tomb = 0;
    m->used++;
    m->filled++;
    if (old)
        *old = NULL;
    return 0;
}

void *hmap_put(hmap_t *m, const void *key, size_t klen, void *value)
{
    void *old;
    if (hmap_put_try(m, key, klen, value, &old) != 0)
        base_oom(klen + 1 + (m->cap ? m->cap * 2 : 16) * sizeof *m->slots);
    return old;
}

void *hmap_del(hmap_t *m, const void *key, size_t klen)
{
    hmap_entry_t *e = hmap_find(m, key, klen);
    if (!e)
        return NULL;
    void *old = e->value;
    e->tomb = 1;
    e->value = NULL;
    m->used--;
    return old;
}

void hmap_clear(hmap_t *m)
{
    for (size_t i = 0; i < m->cap; i++)
        free(m->slots[i].key);
    free(m->slots);
    memset(m, 0, sizeof *m);
}
