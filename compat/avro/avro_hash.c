/*
 * avro_hash: the hash tables behind every name lookup (fields, symbols,
 * union branches, defined types). Pairs of nodes go in base/hmap.h.
 *
 * Field and symbol names come from untrusted schemas, so string hashing is
 * SipHash-1-3 under a per-process random key: crafted collisions cannot
 * turn 100,000 fields into 10^10 probes.
 */
#include "compat/avro/internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

/* ---- Keyed string hash ------------------------------------------------------ */

static uint64_t sip_key[2];
static pthread_once_t sip_once = PTHREAD_ONCE_INIT;

static void sip_key_init(void)
{
    if (getrandom(sip_key, sizeof sip_key, GRND_NONBLOCK) != (ssize_t)sizeof sip_key) {
        /* No entropy yet (early boot): still different per process. */
        sip_key[0] = (uint64_t)time(NULL) ^ (uint64_t)(uintptr_t)&sip_key;
        sip_key[1] = (uint64_t)clock() * 0x9e3779b97f4a7c15ull;
    }
}

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

static void sip_round(uint64_t v[4])
{
    v[0] += v[1];
    v[1] = ROTL(v[1], 13);
    v[1] ^= v[0];
    v[0] = ROTL(v[0], 32);
    v[2] += v[3];
    v[3] = ROTL(v[3], 16);
    v[3] ^= v[2];
    v[0] += v[3];
    v[3] = ROTL(v[3], 21);
    v[3] ^= v[0];
    v[2] += v[1];
    v[1] = ROTL(v[1], 17);
    v[1] ^= v[2];
    v[2] = ROTL(v[2], 32);
}

static uint64_t sip13(const unsigned char *in, size_t len)
{
    uint64_t v[4] = {
        sip_key[0] ^ 0x736f6d6570736575ull,
        sip_key[1] ^ 0x646f72616e646f6dull,
        sip_key[0] ^ 0x6c7967656e657261ull,
        sip_key[1] ^ 0x7465646279746573ull,
    };
    size_t whole = len & ~(size_t)7;
    for (size_t i = 0; i < whole; i += 8) {
        uint64_t m;
        memcpy(&m, in + i, 8);
        v[3] ^= m;
        sip_round(v);
        v[0] ^= m;
    }
    uint64_t last = (uint64_t)len << 56;
    for (size_t i = 0; i < (len & 7); i++)
        last |= (uint64_t)in[whole + i] << (8 * i);
    v[3] ^= last;
    sip_round(v);
    v[0] ^= last;
    v[2] ^= 0xff;
    sip_round(v);
    sip_round(v);
    sip_round(v);
    return v[0] ^ v[1] ^ v[2] ^ v[3];
}

static uint64_t hash_str(const char *s)
{
    pthread_once(&sip_once, sip_key_init);
    return sip13((const unsigned char *)s, strlen(s));
}

static size_t pow2_at_least(size_t n)
{
    size_t cap = 8;
    while (cap < n)
        cap *= 2;
    return cap;
}

/* ---- Fixed index (arena) ---------------------------------------------------- */

typedef struct index_slot {
    const char *key;
    uint64_t hash;
    long value;
} index_slot_t;

struct avro_index {
    index_slot_t *slots;
    size_t mask;
};

avro_index_t *avro_index_new(arena_t *a, size_t n)
{
    if (n > SIZE_MAX / 4 / sizeof(index_slot_t))
        return NULL;
    avro_index_t *ix = arena_alloc(a, sizeof *ix);
    size_t cap = pow2_at_least(n * 2);
    if (!ix || !(ix->slots = arena_alloc(a, cap * sizeof *ix->slots)))
        return NULL;
    ix->mask = cap - 1;
    return ix;
}

long avro_index_add(avro_index_t *ix, const char *key, long value)
{
    uint64_t h = hash_str(key);
    for (size_t i = h & ix->mask;; i = (i + 1) & ix->mask) {
        index_slot_t *s = &ix->slots[i];
        if (!s->key) {
            s->key = key;
            s->hash = h;
            s->value = value;
            return -1;
        }
        if (s->hash == h && strcmp(s->key, key) == 0)
            return s->value;
    }
}

long avro_index_find(const avro_index_t *ix, const char *key)
{
    if (!ix)
        return -1;
    uint64_t h = hash_str(key);
    for (size_t i = h & ix->mask;; i = (i + 1) & ix->mask) {
        const index_slot_t *s = &ix->slots[i];
        if (!s->key)
            return -1;
        if (s->hash == h && strcmp(s->key, key) == 0)
            return s->value;
    }
}

/* ---- Growable string map ------------------------------------------------------ */

struct avro_strmap_slot {
    const char *key;
    uint64_t hash;
    void *value;
};

static struct avro_strmap_slot *strmap_slot(struct avro_strmap_slot *slots, size_t cap, const char *key,
                                            uint64_t h)
{
    for (size_t i = h & (cap - 1);; i = (i + 1) & (cap - 1)) {
        struct avro_strmap_slot *s = &slots[i];
        if (!s->key || (s->hash == h && strcmp(s->key, key) == 0))
            return s;
    }
}

static int strmap_grow(avro_strmap_t *m)
{
    size_t cap = m->cap ? m->cap * 2 : 16;
    struct avro_strmap_slot *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i].key)
            *strmap_slot(slots, cap, m->slots[i].key, m->slots[i].hash) = m->slots[i];
    free(m->slots);
    m->slots = slots;
    m->cap = cap;
    return 0;
}

int avro_strmap_put(avro_strmap_t *m, const char *key, void *value)
{
    if ((m->n + 1) * 2 > m->cap && strmap_grow(m) != 0)
        return -1;
    uint64_t h = hash_str(key);
    struct avro_strmap_slot *s = strmap_slot(m->slots, m->cap, key, h);
    if (!s->key) {
        s->key = key;
        s->hash = h;
        m->n++;
    }
    s->value = value;
    return 0;
}

void *avro_strmap_get(const avro_strmap_t *m, const char *key)
{
    if (!m->cap)
        return NULL;
    struct avro_strmap_slot *s = strmap_slot(m->slots, m->cap, key, hash_str(key));
    return s->key ? s->value : NULL;
}

void avro_strmap_free(avro_strmap_t *m)
{
    free(m->slots);
    m->slots = NULL;
    m->n = m->cap = 0;
}
