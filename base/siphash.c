#include "base/siphash.h"

#include <pthread.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

/* ---- 1. SipHash-c-d ------------------------------------------------------ */

#define ROTL(x, b) (uint64_t)(((x) << (b)) | ((x) >> (64 - (b))))

static inline void sip_round(uint64_t v[4])
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

static inline uint64_t load_le64(const unsigned char *p)
{
    uint64_t m = 0;
    for (int i = 7; i >= 0; i--)
        m = (m << 8) | p[i];
    return m;
}

/* c and d are constants at every call site, so the loops unroll. */
static inline uint64_t siphash_cd(int c, int d, const uint64_t key[2], const void *data, size_t len)
{
    const unsigned char *in = data;
    uint64_t v[4] = {
        key[0] ^ 0x736f6d6570736575ull,
        key[1] ^ 0x646f72616e646f6dull,
        key[0] ^ 0x6c7967656e657261ull,
        key[1] ^ 0x7465646279746573ull,
    };
    size_t whole = len & ~(size_t)7;
    for (size_t i = 0; i < whole; i += 8) {
        uint64_t m = load_le64(in + i);
        v[3] ^= m;
        for (int r = 0; r < c; r++)
            sip_round(v);
        v[0] ^= m;
    }
    uint64_t last = (uint64_t)len << 56;
    for (size_t i = 0; i < (len & 7); i++)
        last |= (uint64_t)in[whole + i] << (8 * i);
    v[3] ^= last;
    for (int r = 0; r < c; r++)
        sip_round(v);
    v[0] ^= last;
    v[2] ^= 0xff;
    for (int r = 0; r < d; r++)
        sip_round(v);
    return v[0] ^ v[1] ^ v[2] ^ v[3];
}

uint64_t siphash13(const uint64_t key[2], const void *data, size_t len)
{
    return siphash_cd(1, 3, key, data, len);
}

uint64_t siphash24(const uint64_t key[2], const void *data, size_t len)
{
    return siphash_cd(2, 4, key, data, len);
}

/* ---- 2. The process key -------------------------------------------------- */

static uint64_t process_key[2];
static pthread_once_t process_key_once = PTHREAD_ONCE_INIT;

static void process_key_init(void)
{
    if (getrandom(process_key, sizeof process_key, GRND_NONBLOCK) != (ssize_t)sizeof process_key) {
        /* No entropy yet (early boot): still different per process. */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        process_key[0] = (uint64_t)ts.tv_sec ^ (uint64_t)(uintptr_t)&process_key;
        process_key[1] = ((uint64_t)ts.tv_nsec ^ (uint64_t)clock()) * 0x9e3779b97f4a7c15ull;
    }
}

uint64_t siphash_process(const void *data, size_t len)
{
    pthread_once(&process_key_once, process_key_init);
    return siphash_cd(1, 3, process_key, data, len);
}
