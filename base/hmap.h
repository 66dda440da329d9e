/*
 * hmap: an open-addressing hash map from byte-string keys to pointers.
 * Keys are copied (owned by the map); values are borrowed (the caller owns
 * what they point to). Not thread-safe: the index guards it with its lock.
 */
#ifndef BASE_HMAP_H
#define BASE_HMAP_H

#include <stddef.h>

typedef struct hmap_entry {
    char *key;      /* NULL = empty slot */
    size_t klen;
    void *value;
    int tomb;       /* 1 = deleted slot that probes must walk past */
} hmap_entry_t;

typedef struct hmap {
    hmap_entry_t *slots;
    size_t cap;     /* power of two */
    size_t used;    /* live entries */
    size_t filled;  /* live entries + tombstones */
} hmap_t;

void *hmap_get(const hmap_t *m, const void *key, size_t klen);
/* Inserts or replaces; returns the previous value (or NULL). Aborts on OOM. */
void *hmap_put(hmap_t *m, const void *key, size_t klen, void *value);
/* Removes the key; returns its value (or NULL). */
void *hmap_del(hmap_t *m, const void *key, size_t klen);
void hmap_clear(hmap_t *m);

/* Iteration: for (size_t i = 0; i < m->cap; i++) if (hmap_live(m, i)) ... */
static inline int hmap_live(const hmap_t *m, size_t i)
{
    return m->slots[i].key != NULL && !m->slots[i].tomb;
}

/* Convenience for NUL-terminated keys and int keys. */
#define hmap_gets(m, s) hmap_get((m), (s), strlen(s))
#define hmap_puts(m, s, v) hmap_put((m), (s), strlen(s), (v))
#define hmap_dels(m, s) hmap_del((m), (s), strlen(s))

#endif
