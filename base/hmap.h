/*
 * hmap: an open-addressing hash map from byte-string keys to pointers.
 * Keys are copied (owned by the map); values are borrowed (the caller owns
 * what they point to). Not thread-safe: the index guards it with its lock.
 * A zeroed hmap_t is an empty map.
 *
 * The hash (FNV-1a) is not keyed: use it for keys an attacker cannot choose
 * in bulk (ids, digests, addresses). compat's Avro name tables keep their
 * SipHash tables for names read from untrusted schemas.
 */
#ifndef BASE_HMAP_H
#define BASE_HMAP_H

#include <stddef.h>
#include <string.h>

typedef struct hmap_entry {
    char *key; /* NULL = empty slot */
    size_t klen;
    void *value;
    int tomb; /* 1 = deleted slot that probes must walk past */
} hmap_entry_t;

typedef struct hmap {
    hmap_entry_t *slots;
    size_t cap;    /* power of two */
    size_t used;   /* live entries */
    size_t filled; /* live entries + tombstones */
} hmap_t;

void *hmap_get(const hmap_t *m, const void *key, size_t klen);
/* 1 when the key is present (whatever its value, NULL included). */
int hmap_contains(const hmap_t *m, const void *key, size_t klen);
/* Inserts or replaces; returns the previous value (or NULL). Aborts on OOM. */
void *hmap_put(hmap_t *m, const void *key, size_t klen, void *value);
/* The same for callers that propagate out-of-memory (compat): returns 0, or
 * -1 with the map unchanged. *old (when old is not NULL) gets the previous value. */
int hmap_put_try(hmap_t *m, const void *key, size_t klen, void *value, void **old);
/* Removes the key; returns its value (or NULL). */
void *hmap_del(hmap_t *m, const void *key, size_t klen);
void hmap_clear(hmap_t *m);

/* Iteration: for (size_t i = 0; i < m->cap; i++) if (hmap_live(m, i)) ... */
static inline int hmap_live(const hmap_t *m, size_t i)
{
    return m->slots[i].key != NULL && !m->slots[i].tomb;
}

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

/* Convenience for NUL-terminated keys. */
#define hmap_gets(m, s)    hmap_get((m), (s), strlen(s))
#define hmap_puts(m, s, v) hmap_put((m), (s), strlen(s), (v))
#define hmap_dels(m, s)    hmap_del((m), (s), strlen(s))

#endif
