#include "base/hmap.h"

#include "base/alloc.h"
#include "base/siphash.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- 1. The map --------------------------------------------------------- */

uint64_t hmap_hash(const void *key, size_t klen)
{
    return siphash_process(key, klen);
}

static hmap_entry_t *hmap_find(const hmap_t *m, const void *key, size_t klen, uint64_t h)
{
    if (!m->cap)
        return NULL;
    size_t mask = m->cap - 1;
    for (size_t i = (size_t)h & mask;; i = (i + 1) & mask) {
        hmap_entry_t *e = &m->slots[i];
        if (!e->key)
            return NULL;
        if (!e->tomb && e->hash == h && e->klen == klen && memcmp(e->key, key, klen) == 0)
            return e;
    }
}

/* ---- 2. Memory ------------------------------------------------------------ */

static void *hmap_alloc(const hmap_t *m, size_t size)
{
    return m->arena ? arena_alloc(m->arena, size) : calloc(1, size);
}

static void hmap_release(const hmap_t *m, void *p)
{
    if (!m->arena)
        free(p);
}

/* Rehashes into a table of cap slots (a power of two that holds every live
 * entry below the load limit); -1 when out of memory (the map is then
 * unchanged). Tombstones are dropped. */
static int hmap_rehash(hmap_t *m, size_t cap)
{
    if (cap > SIZE_MAX / sizeof(hmap_entry_t))
        return -1;
    hmap_entry_t *slots = hmap_alloc(m, cap * sizeof *slots);
    if (!slots)
        return -1;
    size_t mask = cap - 1;
    for (size_t i = 0; i < m->cap; i++) {
        hmap_entry_t *e = &m->slots[i];
        if (!e->key)
            continue;
        if (e->tomb) {
            hmap_release(m, e->key);
            continue;
        }
        size_t j = (size_t)e->hash & mask;
        while (slots[j].key)
            j = (j + 1) & mask;
        slots[j] = *e;
    }
    hmap_release(m, m->slots);
    m->slots = slots;
    m->cap = cap;
    m->filled = m->used;
    return 0;
}

/* The load limit: at most three quarters of the slots filled. */
static int hmap_fits(size_t filled, size_t cap)
{
    return filled <= cap / 4 * 3;
}

int hmap_reserve_try(hmap_t *m, size_t n)
{
    if (n > SIZE_MAX / 8)
        return -1;
    size_t cap = m->cap ? m->cap : 16;
    while (!hmap_fits(n, cap))
        cap *= 2;
    return cap == m->cap ? 0 : hmap_rehash(m, cap);
}

/* Room for one more filled slot. */
static int hmap_make_room(hmap_t *m)
{
    if (m->cap && hmap_fits(m->filled + 1, m->cap))
        return 0;
    size_t cap = m->cap ? m->cap : 16;
    /* Rehashing drops tombstones, so double only when live entries need it. */
    while (!hmap_fits(m->used + 1, cap) || (m->cap && cap == m->cap && m->used * 2 >= cap))
        cap *= 2;
    return hmap_rehash(m, cap);
}

/* ---- The map, continued ---------------------------------------------------- */

void *hmap_get(const hmap_t *m, const void *key, size_t klen)
{
    if (!m->cap)
        return NULL;
    hmap_entry_t *e = hmap_find(m, key, klen, hmap_hash(key, klen));
    return e ? e->value : NULL;
}

int hmap_contains(const hmap_t *m, const void *key, size_t klen)
{
    return m->cap && hmap_find(m, key, klen, hmap_hash(key, klen)) != NULL;
}

int hmap_put_try(hmap_t *m, const void *key, size_t klen, void *value, void **old)
{
    uint64_t h = hmap_hash(key, klen);
    hmap_entry_t *e = hmap_find(m, key, klen, h);
    if (e) {
        if (old)
            *old = e->value;
        e->value = value;
        return 0;
    }
    if (klen == SIZE_MAX)
        return -1;
    char *copy = hmap_alloc(m, klen + 1);
    if (!copy)
        return -1;
    if (hmap_make_room(m) != 0) {
        hmap_release(m, copy);
        return -1;
    }
    memcpy(copy, key, klen);
    copy[klen] = '\0';
    size_t mask = m->cap - 1;
    size_t i = (size_t)h & mask;
    while (m->slots[i].key)
        i = (i + 1) & mask;
    m->slots[i] = (hmap_entry_t){.key = copy, .klen = klen, .hash = h, .value = value};
    m->used++;
    m->filled++;
    m->key_bytes += klen + 1;
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
    if (!m->cap)
        return NULL;
    hmap_entry_t *e = hmap_find(m, key, klen, hmap_hash(key, klen));
    if (!e)
        return NULL;
    void *old = e->value;
    e->tomb = 1;
    e->value = NULL;
    m->used--;
    m->key_bytes -= e->klen + 1;
    return old;
}

void hmap_clear(hmap_t *m)
{
    arena_t *a = m->arena;
    if (!a) {
        for (size_t i = 0; i < m->cap; i++)
            free(m->slots[i].key);
        free(m->slots);
    }
    memset(m, 0, sizeof *m);
    m->arena = a;
}
