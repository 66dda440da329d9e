/*
 * hmap: the one hash map of the tree. Open addressing with linear probing,
 * keys hashed by SipHash-1-3 under a per-process random key (base/siphash.h),
 * so keys read from untrusted input (field names, symbol names) cannot be
 * crafted to collide. Not thread-safe for writers; readers of a map nobody
 * writes any more may share it (the index guards its maps with its lock).
 *
 * Contents
 *   1. The map: byte-string keys, lookup, insertion, removal
 *   2. Memory: malloc'd or inside an arena; reserving room
 *   3. Iteration (slot order is random per process)
 *   4. Pointer-pair keys
 *   5. NUL-terminated string keys
 *
 * Keys are copied (owned by the map); values are borrowed (the caller owns
 * what they point to). A zeroed hmap_t is an empty map. hmap_put aborts when
 * out of memory (registry, store, server); the _try functions report it and
 * leave the map unchanged (compat, docs/architecture.md "Errors and allocation").
 */
#ifndef BASE_HMAP_H
#define BASE_HMAP_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/arena.h"

/* ---- 1. The map --------------------------------------------------------- */

typedef struct hmap_entry {
    char *key; /* NULL = empty slot; NUL-terminated copy of klen bytes */
    size_t klen;
    uint64_t hash;
    void *value;
    int tomb; /* 1 = deleted slot that probes must walk past */
} hmap_entry_t;

typedef struct hmap {
    hmap_entry_t *slots;
    size_t cap;       /* power of two */
    size_t used;      /* live entries */
    size_t filled;    /* live entries + tombstones */
    size_t key_bytes; /* klen + 1 summed over the live entries: their key copies */
    arena_t *arena;   /* NULL: malloc; else slots and keys live in the arena (section 2) */
} hmap_t;

void *hmap_get(const hmap_t *m, const void *key, size_t klen);
/* 1 when the key is present (whatever its value, NULL included). */
int hmap_contains(const hmap_t *m, const void *key, size_t klen);
/* Inserts or replaces; returns the previous value (or NULL). Aborts on OOM. */
void *hmap_put(hmap_t *m, const void *key, size_t klen, void *value);
/* The same for callers that propagate out-of-memory (compat): returns 0, or
 * -1 with the map's contents unchanged. *old (when old is not NULL) gets the
 * previous value. */
int hmap_put_try(hmap_t *m, const void *key, size_t klen, void *value, void **old);
/* Removes the key; returns its value (or NULL). */
void *hmap_del(hmap_t *m, const void *key, size_t klen);
/* Empties the map and frees its memory (an arena map only forgets it, and
 * stays in its arena). */
void hmap_clear(hmap_t *m);

/* The map's keyed hash of len bytes, for callers that build a hash of a
 * structure (equal structures, equal hashes) to use as a key. */
uint64_t hmap_hash(const void *key, size_t klen);

/* ---- 2. Memory ------------------------------------------------------------ */

/* A map whose slots and key copies come from a (so it dies with the arena;
 * no hmap_clear needed): for tables that belong to a model. */
static inline void hmap_init_arena(hmap_t *m, arena_t *a)
{
    memset(m, 0, sizeof *m);
    m->arena = a;
}

/* Room for n live entries without growing: 0, or -1 when out of memory. */
int hmap_reserve_try(hmap_t *m, size_t n);

/* Growing a map that readers read meanwhile (registry/index.c). Its one
 * writer builds a table of m's live entries with room for extra more filled
 * slots without changing m (hmap_grown_copy: 0 and *out zeroed when m has
 * that room already; -1 and *out zeroed when out of memory), then, readers
 * kept out, swaps it in (hmap_adopt; m must not have changed in between): a
 * rehash's copy, tens of milliseconds for 100,000 entries, no longer holds
 * the readers out, only the swap does. Keys and values move with the entries;
 * not for arena maps. */
int hmap_grown_copy(const hmap_t *m, size_t extra, hmap_t *out);
void hmap_adopt(hmap_t *m, hmap_t *grown);

/* Bytes of the slots and of the live entries' key copies, in O(1) (no
 * allocator overhead, no values). */
static inline size_t hmap_bytes(const hmap_t *m)
{
    return m->cap * sizeof(hmap_entry_t) + m->key_bytes;
}

/* ---- 3. Iteration ------------------------------------------------------------ */

/* for (size_t i = 0; i < m->cap; i++) if (hmap_live(m, i)) ... m->slots[i].value
 * Slot order follows the keyed hash, so it differs from process to process:
 * walk a map only where order cannot show (freeing, counting, "any"); where it
 * can, sort what the walk collects or keep a side array in insertion order. */
static inline int hmap_live(const hmap_t *m, size_t i)
{
    return m->slots[i].key != NULL && !m->slots[i].tomb;
}

/* ---- 4. Pointer-pair keys ------------------------------------------------------ */

/* Keys made of two pointers (memo tables keyed by a pair of nodes); either
 * may be NULL. The pointers are the key, never dereferenced. */
typedef struct hmap_pair {
    const void *a;
    const void *b;
} hmap_pair_t;

static inline void *hmap_get_pair(const hmap_t *m, const void *a, const void *b)
{
    hmap_pair_t key = {a, b};
    return hmap_get(m, &key, sizeof key);
}

static inline int hmap_put_pair_try(hmap_t *m, const void *a, const void *b, void *value)
{
    hmap_pair_t key = {a, b};
    return hmap_put_try(m, &key, sizeof key, value, NULL);
}

static inline void *hmap_del_pair(hmap_t *m, const void *a, const void *b)
{
    hmap_pair_t key = {a, b};
    return hmap_del(m, &key, sizeof key);
}

/* ---- 5. NUL-terminated string keys ------------------------------------------------ */

#define hmap_gets(m, s)             hmap_get((m), (s), strlen(s))
#define hmap_puts(m, s, v)          hmap_put((m), (s), strlen(s), (v))
#define hmap_dels(m, s)             hmap_del((m), (s), strlen(s))
#define hmap_puts_try(m, s, v, old) hmap_put_try((m), (s), strlen(s), (v), (old))

#endif
