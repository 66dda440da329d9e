#include "base/hmap.h"

#include "base/alloc.h"
#include "base/siphash.h"

#include <assert.h>
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

/* A zeroed table of cap slots for m, or NULL when out of memory. */
static hmap_entry_t *hmap_new_slots(const hmap_t *m, size_t cap)
{
    if (cap > SIZE_MAX / sizeof(hmap_entry_t))
        return NULL;
    return hmap_alloc(m, cap * sizeof(hmap_entry_t));
}

/* m's live entries placed in slots (cap of them, a power of two that holds
 * them below the load limit); m itself is not changed, so readers may read
 * it meanwhile. */
static void hmap_place_live(const hmap_t *m, hmap_entry_t *slots, size_t cap)
{
    size_t mask = cap - 1;
    for (size_t i = 0; i < m->cap; i++) {
        const hmap_entry_t *e = &m->slots[i];
        if (!e->key || e->tomb)
            continue;
        size_t j = (size_t)e->hash & mask;
        while (slots[j].key)
            j = (j + 1) & mask;
        slots[j] = *e;
    }
}

/* m's table replaced by slots, which hmap_place_live filled from it: the
 * tombstones' key copies and the old table are released. */
static void hmap_take_slots(hmap_t *m, hmap_entry_t *slots, size_t cap)
{
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i].key && m->slots[i].tomb)
            hmap_release(m, m->slots[i].key);
    hmap_release(m, m->slots);
    m->slots = slots;
    m->cap = cap;
    m->filled = m->used;
}

/* Rehashes into a table of cap slots; -1 when out of memory (the map is then
 * unchanged). Tombstones are dropped. */
static int hmap_rehash(hmap_t *m, size_t cap)
{
    hmap_entry_t *slots = hmap_new_slots(m, cap);
    if (!slots)
        return -1;
    hmap_place_live(m, slots, cap);
    hmap_take_slots(m, slots, cap);
    return 0;
}

/* The load limit: at most three quarters of the slots filled. */
static int hmap_fits(size_t filled, size_t cap)
{
    return filled <= cap / 4 * 3;
}

/* 0 when m has room for extra more filled slots; else the capacity to rehash
 * it into, maybe its own: rehashing drops tombstones, so it doubles only when
 * live entries need it. */
static size_t hmap_room_cap(const hmap_t *m, size_t extra)
{
    if (m->cap && hmap_fits(m->filled + extra, m->cap))
        return 0;
    size_t cap = m->cap ? m->cap : 16;
    while (!hmap_fits(m->used + extra, cap) || (m->cap && cap == m->cap && (m->used + extra) * 2 > cap))
        cap *= 2;
    return cap;
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
    size_t cap = hmap_room_cap(m, 1);
    return cap ? hmap_rehash(m, cap) : 0;
}

int hmap_grown_copy(const hmap_t *m, size_t extra, hmap_t *out)
{
    assert(!m->arena);
    *out = (hmap_t){0};
    size_t cap = hmap_room_cap(m, extra);
    if (!cap)
        return 0;
    hmap_entry_t *slots = hmap_new_slots(m, cap);
    if (!slots)
        return -1;
    hmap_place_live(m, slots, cap);
    *out = (hmap_t){.slots = slots, .cap = cap, .used = m->used, .filled = m->used};
    return 0;
}

void hmap_adopt(hmap_t *m, hmap_t *grown)
{
    if (grown->slots) {
        assert(grown->used == m->used); /* m not changed since hmap_grown_copy */
        hmap_take_slots(m, grown->slots, grown->cap);
    }
    *grown = (hmap_t){0};
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
