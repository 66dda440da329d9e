/*
 * request_id: request_id.h. The generator is xoshiro256** (Blackman and
 * Vigna), one state per thread seeded from getrandom(2): ids need to be
 * unique and unguessable enough not to collide across nodes and restarts,
 * not to be secrets, and a getrandom call per request would cost more than
 * the rest of a by-id read.
 */
#include "server/request_id.h"

#include <stdint.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

/* ---- 1. Taking the client's ----------------------------------------------- */

int request_id_sane(const char *s, size_t len)
{
    if (s == NULL || len == 0 || len > REQUEST_ID_MAX)
        return 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '.' ||
              c == '_' || c == ':' || c == '-'))
            return 0;
    }
    return 1;
}

/* ---- 2. Making one ---------------------------------------------------------- */

static _Thread_local uint64_t request_id_state[4];
static _Thread_local int request_id_seeded;

static uint64_t request_id_rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t request_id_next(void)
{
    uint64_t *s = request_id_state;
    uint64_t result = request_id_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = request_id_rotl(s[3], 45);
    return result;
}

/* splitmix64, to spread a weak fallback seed over the whole state. */
static uint64_t request_id_mix(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static void request_id_seed(void)
{
    if (getrandom(request_id_state, sizeof request_id_state, 0) != (ssize_t)sizeof request_id_state) {
        /* No entropy source (a very old kernel): time, pid and the state's
         * address still make ids unique per thread. */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t x = ((uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec) ^ ((uint64_t)getpid() << 32) ^
                     (uint64_t)(uintptr_t)request_id_state;
        for (int i = 0; i < 4; i++)
            request_id_state[i] = request_id_mix(&x);
    }
    if ((request_id_state[0] | request_id_state[1] | request_id_state[2] | request_id_state[3]) == 0)
        request_id_state[0] = 1; /* the one state xoshiro cannot leave */
    request_id_seeded = 1;
}

void request_id_new(char out[33])
{
    static const char hex[] = "0123456789abcdef";
    if (!request_id_seeded)
        request_id_seed();
    uint64_t w[2] = {request_id_next(), request_id_next()};
    /* Two digits per byte: this runs for every request without an id of its own. */
    for (int i = 0; i < 16; i++) {
        unsigned b = (unsigned)(w[i / 8] >> (56 - 8 * (i % 8))) & 0xffu;
        out[2 * i] = hex[b >> 4];
        out[2 * i + 1] = hex[b & 0xfu];
    }
    out[32] = '\0';
}
