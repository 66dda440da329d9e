/*
 * auth: HTTP Basic, client-certificate principals and anonymous access
 * (auth.h).
 *
 * Contents
 *   1. Password hashes
 *   2. The users file
 *   3. The verification cache
 *   4. The failure limiter
 *   5. The authenticator
 *   6. Authenticating a request
 *
 * Why a cache: a slow hash costs tens of milliseconds of CPU by design, and
 * Basic clients send their password with every request. A successful
 * (user, password) pair is remembered for AUTH_CACHE_TTL_MS under an HMAC of
 * the pair with a key drawn at start-up, so the cache holds no password and
 * nothing an attacker could test guesses against offline.
 *
 * Why a check leaves the loop: a miss (a new password, a wrong one, an
 * unknown user) would otherwise stall every other request of its event loop
 * for the length of a hash, a lever for anyone who can reach the port. So a
 * miss becomes an auth_check_t that the HTTP edge runs on its verifier
 * threads (server/http_server.c). What a flood of misses can still take is
 * bounded twice before any hash: per address by the failure limiter, which
 * charges each check up front (refunded when the password is right), and
 * server-wide by auth.max.verifications (503).
 */
#include "server/auth.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/clock.h"
#include "base/hmap.h"
#include "base/log.h"

/* New hashes: scrypt N = 2^15, r = 8, p = 1 (32 MiB, tens of milliseconds). */
#define AUTH_SCRYPT_LN    15
#define AUTH_SCRYPT_R     8
#define AUTH_SCRYPT_P     1
#define AUTH_SALT_BYTES   16
#define AUTH_HASH_BYTES   32
#define AUTH_ENCODED_MAX  256
#define AUTH_USER_MAX     128
#define AUTH_PASSWORD_MAX 1024
/* Longest base64 text decoded: an Authorization header of the longest user and password. */
#define AUTH_B64_MAX (4 * (AUTH_USER_MAX + AUTH_PASSWORD_MAX + 8) / 3 + 8)
/* Verified pairs remembered: AUTH_CACHE_SLOTS at most, each for AUTH_CACHE_TTL_MS. */
#define AUTH_CACHE_SLOTS  1024
#define AUTH_CACHE_TTL_MS (300 * 1000)
/* Source addresses whose failures are counted: AUTH_LIMIT_SLOTS at most. */
#define AUTH_LIMIT_SLOTS 4096
#define AUTH_LIMIT_PROBE 8

/* ---- 1. Password hashes ------------------------------------------------------ */

typedef enum auth_kdf { AUTH_SCRYPT, AUTH_PBKDF2_SHA256 } auth_kdf_t;

typedef struct auth_hash {
    auth_kdf_t kdf;
    uint64_t ln, r, p;   /* scrypt */
    uint64_t iterations; /* PBKDF2 */
    unsigned char salt[64];
    size_t salt_len;
    unsigned char hash[64];
    size_t hash_len;
} auth_hash_t;

static void auth_b64_encode(const unsigned char *in, size_t len, char *out)
{
    EVP_EncodeBlock((unsigned char *)out, in, (int)len);
}

/* Standard base64 (with or without padding) into out (cap bytes); the length or -1. */
static long auth_b64_decode(const char *in, size_t len, unsigned char *out, size_t cap)
{
    char padded[AUTH_B64_MAX + 4];
    if (len == 0 || len > AUTH_B64_MAX)
        return -1;
    memcpy(padded, in, len);
    while (len % 4 != 0)
        padded[len++] = '=';
    size_t pad = 0;
    while (pad < 2 && padded[len - 1 - pad] == '=')
        pad++;
    unsigned char buf[AUTH_B64_MAX];
    int n = EVP_DecodeBlock(buf, (const unsigned char *)padded, (int)len);
    if (n < 0 || (size_t)n < pad || (size_t)n - pad > cap)
        return -1;
    memcpy(out, buf, (size_t)n - pad);
    return (long)((size_t)n - pad);
}

static int auth_parse_u64(const char *s, size_t len, uint64_t min, uint64_t max, uint64_t *out)
{
    uint64_t v = 0;
    if (len == 0 || len > 12)
        return -1;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

/* "name=value" at s[0..len) with the given name; the value's bounds checked. */
static int auth_param(const char *s, size_t len, const char *name, uint64_t min, uint64_t max, uint64_t *out)
{
    size_t n = strlen(name);
    if (len <= n + 1 || memcmp(s, name, n) != 0 || s[n] != '=')
        return -1;
    return auth_parse_u64(s + n + 1, len - n - 1, min, max, out);
}

/*
 * "$scrypt$ln=L,r=R,p=P$SALT$HASH" or "$pbkdf2-sha256$i=N$SALT$HASH". The
 * bounds keep a hand-edited file from asking for gigabytes or hours.
 */
static int auth_hash_parse(const char *encoded, auth_hash_t *h)
{
    memset(h, 0, sizeof *h);
    const char *part[4];
    size_t plen[4];
    const char *p = encoded;
    if (*p++ != '$')
        return -1;
    for (int i = 0; i < 4; i++) {
        const char *end = i < 3 ? strchr(p, '$') : p + strlen(p);
        if (end == NULL || (i == 3 && strchr(p, '$') != NULL))
            return -1;
        part[i] = p;
        plen[i] = (size_t)(end - p);
        p = end + 1;
    }
    if (plen[0] == 6 && memcmp(part[0], "scrypt", 6) == 0) {
        h->kdf = AUTH_SCRYPT;
        const char *c1 = memchr(part[1], ',', plen[1]);
        const char *c2 = c1 ? memchr(c1 + 1, ',', plen[1] - (size_t)(c1 + 1 - part[1])) : NULL;
        if (c2 == NULL || auth_param(part[1], (size_t)(c1 - part[1]), "ln", 10, 20, &h->ln) != 0 ||
            auth_param(c1 + 1, (size_t)(c2 - c1 - 1), "r", 1, 32, &h->r) != 0 ||
            auth_param(c2 + 1, plen[1] - (size_t)(c2 + 1 - part[1]), "p", 1, 16, &h->p) != 0)
            return -1;
    } else if (plen[0] == 13 && memcmp(part[0], "pbkdf2-sha256", 13) == 0) {
        h->kdf = AUTH_PBKDF2_SHA256;
        if (auth_param(part[1], plen[1], "i", 10000, 100000000, &h->iterations) != 0)
            return -1;
    } else {
        return -1;
    }
    long s = auth_b64_decode(part[2], plen[2], h->salt, sizeof h->salt);
    long d = auth_b64_decode(part[3], plen[3], h->hash, sizeof h->hash);
    if (s < 8 || d < 16)
        return -1;
    h->salt_len = (size_t)s;
    h->hash_len = (size_t)d;
    return 0;
}

/* Derives h->hash_len bytes of password under h's salt and parameters into out. */
static int auth_derive(const auth_hash_t *h, const char *password, size_t len, unsigned char *out)
{
    if (h->kdf == AUTH_PBKDF2_SHA256)
        return PKCS5_PBKDF2_HMAC(password, (int)len, h->salt, (int)h->salt_len, (int)h->iterations,
                                 EVP_sha256(), (int)h->hash_len, out) == 1
                   ? 0
                   : -1;
    uint64_t n = (uint64_t)1 << h->ln;
    uint64_t maxmem = 128 * h->r * n * h->p + 128 * h->r * n + (1u << 20); /* V, B and slack */
    return EVP_PBE_scrypt(password, len, h->salt, h->salt_len, n, h->r, h->p, maxmem, out, h->hash_len) == 1
               ? 0
               : -1;
}

char *auth_hash_new(const char *password, size_t len)
{
    auth_hash_t h = {.kdf = AUTH_SCRYPT,
                     .ln = AUTH_SCRYPT_LN,
                     .r = AUTH_SCRYPT_R,
                     .p = AUTH_SCRYPT_P,
                     .salt_len = AUTH_SALT_BYTES,
                     .hash_len = AUTH_HASH_BYTES};
    if (RAND_bytes(h.salt, (int)h.salt_len) != 1 || auth_derive(&h, password, len, h.hash) != 0)
        return NULL;
    char salt[4 * AUTH_SALT_BYTES], hash[4 * AUTH_HASH_BYTES];
    auth_b64_encode(h.salt, h.salt_len, salt);
    auth_b64_encode(h.hash, h.hash_len, hash);
    OPENSSL_cleanse(&h, sizeof h);
    return xasprintf("$scrypt$ln=%d,r=%d,p=%d$%s$%s", AUTH_SCRYPT_LN, AUTH_SCRYPT_R, AUTH_SCRYPT_P, salt,
                     hash);
}

int auth_hash_verify(const char *encoded, const char *password, size_t len)
{
    auth_hash_t h;
    unsigned char got[sizeof h.hash];
    if (auth_hash_parse(encoded, &h) != 0)
        return -1;
    int ok = auth_derive(&h, password, len, got) == 0 && CRYPTO_memcmp(got, h.hash, h.hash_len) == 0;
    OPENSSL_cleanse(got, sizeof got);
    return ok;
}

/* ---- 2. The users file ----------------------------------------------------------- */

int auth_user_name_ok(const char *name)
{
    size_t n = strlen(name);
    if (n == 0 || n > AUTH_USER_MAX || name[0] == '#')
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)name[i];
        if (ch == ':' || ch <= 0x20 || ch == 0x7f)
            return 0;
    }
    return 1;
}

/* user -> malloc'd encoded hash. */
typedef struct auth_users {
    hmap_t map;
} auth_users_t;

static void auth_users_free(auth_users_t *u)
{
    if (u == NULL)
        return;
    for (size_t i = 0; i < u->map.cap; i++)
        if (u->map.slots[i].key != NULL && !u->map.slots[i].tomb)
            free(u->map.slots[i].value);
    hmap_clear(&u->map);
    free(u);
}

/* Strips a line's "\n" or "\r\n". */
static void auth_chomp(char *line)
{
    size_t n = strlen(line);
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        line[--n] = '\0';
}

/* One "user:hash" per line; blank lines and '#' lines are skipped. Never names a hash in an error. */
static auth_users_t *auth_users_load(const char *path, char **error)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        *error = xasprintf("cannot open the users file %s: %s", path, strerror(errno));
        return NULL;
    }
    auth_users_t *u = xcalloc(1, sizeof *u);
    char *line = NULL;
    size_t cap = 0;
    int lineno = 0;
    while (*error == NULL && getline(&line, &cap, f) >= 0) {
        lineno++;
        auth_chomp(line);
        if (line[0] == '\0' || line[0] == '#')
            continue;
        char *colon = strchr(line, ':');
        auth_hash_t h;
        if (colon == NULL) {
            *error = xasprintf("users file %s:%d: expected 'user:hash'", path, lineno);
            break;
        }
        *colon = '\0';
        if (!auth_user_name_ok(line))
            *error = xasprintf("users file %s:%d: invalid user name", path, lineno);
        else if (hmap_contains(&u->map, line, strlen(line)))
            *error = xasprintf("users file %s:%d: user '%s' appears twice", path, lineno, line);
        else if (strlen(colon + 1) >= AUTH_ENCODED_MAX || auth_hash_parse(colon + 1, &h) != 0)
            *error = xasprintf("users file %s:%d: user '%s': not a hash this server reads "
                               "(make one with 'schema-registry passwd')",
                               path, lineno, line);
        else
            hmap_put(&u->map, line, strlen(line), xstrdup(colon + 1));
    }
    if (*error == NULL && ferror(f))
        *error = xasprintf("cannot read the users file %s: %s", path, strerror(errno));
    free(line);
    fclose(f);
    if (*error != NULL) {
        auth_users_free(u);
        return NULL;
    }
    return u;
}

int auth_users_file_put(const char *path, const char *user, const char *encoded, char **error)
{
    *error = NULL;
    size_t ulen = strlen(user);
    char *tmp = xasprintf("%s.tmp.XXXXXX", path);
    int fd = mkstemp(tmp);
    if (fd < 0) {
        *error = xasprintf("cannot create %s: %s", tmp, strerror(errno));
        free(tmp);
        return -1;
    }
    FILE *out = fdopen(fd, "w");
    FILE *in = fopen(path, "r");
    if (in == NULL && errno != ENOENT) {
        *error = xasprintf("cannot open %s: %s", path, strerror(errno));
    } else {
        int replaced = 0;
        char *line = NULL;
        size_t cap = 0;
        while (in != NULL && getline(&line, &cap, in) >= 0) {
            auth_chomp(line);
            if (strncmp(line, user, ulen) == 0 && line[ulen] == ':') {
                if (!replaced)
                    fprintf(out, "%s:%s\n", user, encoded);
                replaced = 1;
            } else {
                fprintf(out, "%s\n", line);
            }
        }
        free(line);
        if (!replaced)
            fprintf(out, "%s:%s\n", user, encoded);
        if (fflush(out) != 0 || fsync(fd) != 0 || fchmod(fd, 0600) != 0)
            *error = xasprintf("cannot write %s: %s", tmp, strerror(errno));
    }
    if (in != NULL)
        fclose(in);
    if (fclose(out) != 0 && *error == NULL)
        *error = xasprintf("cannot write %s: %s", tmp, strerror(errno));
    if (*error == NULL && rename(tmp, path) != 0)
        *error = xasprintf("cannot replace %s: %s", path, strerror(errno));
    if (*error != NULL)
        unlink(tmp);
    free(tmp);
    return *error == NULL ? 0 : -1;
}

/* ---- 3. The verification cache ------------------------------------------------------ */

typedef struct auth_cached {
    unsigned char mac[32]; /* HMAC-SHA256(key, user ":" password); zero = empty */
    uint64_t generation;   /* of the users table it was verified against */
    uint64_t expires_ms;
} auth_cached_t;

/* ---- 4. The failure limiter ------------------------------------------------------------ */

/*
 * A token bucket per source address: auth.max.failures tokens, refilled at
 * that many a minute; a failed attempt takes one; an empty bucket refuses
 * every attempt from the address (429) before any hash is computed. The
 * table is fixed: an address lands in one of AUTH_LIMIT_PROBE slots by its
 * hash, and when they are all taken the fullest bucket (the address least
 * in trouble) makes room.
 */
typedef struct auth_bucket {
    char addr[48]; /* "" = free */
    double tokens;
    uint64_t at_ms; /* when tokens was last brought up to date */
} auth_bucket_t;

/* ---- 5. The authenticator ---------------------------------------------------------------- */

struct auth {
    const server_config_t *cfg; /* borrowed */
    int enabled;
    int basic;       /* a users file is configured */
    char *challenge; /* WWW-Authenticate value */
    unsigned char key[32];
    char dummy[AUTH_ENCODED_MAX]; /* verified for unknown users: they take as long as known ones */
    pthread_mutex_t lock;         /* everything below */
    auth_users_t *users;
    uint64_t generation;
    int checks_out; /* auth_check_t handed out, not finished yet (auth.max.verifications) */
    auth_cached_t cache[AUTH_CACHE_SLOTS];
    auth_bucket_t buckets[AUTH_LIMIT_SLOTS];
};

auth_t *auth_new(const server_config_t *cfg, char **error)
{
    *error = NULL;
    auth_t *a = xcalloc(1, sizeof *a);
    a->cfg = cfg;
    a->basic = cfg->auth_users_file != NULL;
    a->enabled = a->basic || cfg->tls_client_auth != CONFIG_CLIENT_AUTH_NONE;
    a->challenge = xasprintf("Basic realm=\"%s\"", cfg->auth_realm ? cfg->auth_realm : "SchemaRegistry");
    pthread_mutex_init(&a->lock, NULL);
    unsigned char zero[AUTH_HASH_BYTES] = {0};
    char zero64[4 * AUTH_HASH_BYTES];
    auth_b64_encode(zero, sizeof zero, zero64);
    snprintf(a->dummy, sizeof a->dummy, "$scrypt$ln=%d,r=%d,p=%d$%.24s$%s", AUTH_SCRYPT_LN, AUTH_SCRYPT_R,
             AUTH_SCRYPT_P, zero64, zero64);
    if (RAND_bytes(a->key, sizeof a->key) != 1) {
        *error = xstrdup("auth: no random bytes for the verification cache key");
        auth_free(a);
        return NULL;
    }
    if (a->basic) {
        a->users = auth_users_load(cfg->auth_users_file, error);
        if (a->users == NULL) {
            auth_free(a);
            return NULL;
        }
        log_info("auth: %zu users from %s", a->users->map.used, cfg->auth_users_file);
    }
    return a;
}

int auth_enabled(const auth_t *a)
{
    return a != NULL && a->enabled;
}

int auth_reload(auth_t *a, char **error)
{
    *error = NULL;
    if (a == NULL || !a->basic)
        return 0;
    auth_users_t *fresh = auth_users_load(a->cfg->auth_users_file, error);
    if (fresh == NULL)
        return -1;
    pthread_mutex_lock(&a->lock);
    auth_users_t *old = a->users;
    a->users = fresh;
    a->generation++; /* what the cache verified against the old table no longer counts */
    pthread_mutex_unlock(&a->lock);
    log_info("auth: %zu users from %s", fresh->map.used, a->cfg->auth_users_file);
    auth_users_free(old);
    return 0;
}

void auth_free(auth_t *a)
{
    if (a == NULL)
        return;
    auth_users_free(a->users);
    pthread_mutex_destroy(&a->lock);
    free(a->challenge);
    OPENSSL_cleanse(a, sizeof *a);
    free(a);
}

/* ---- 6. Authenticating a request ----------------------------------------------------------- */

/* Under a->lock: addr's bucket brought up to date, or NULL when it has none (and create is 0). */
static auth_bucket_t *auth_bucket(auth_t *a, const char *addr, int create, uint64_t now)
{
    double cap = (double)a->cfg->auth_max_failures;
    size_t base = (size_t)hmap_hash(addr, strlen(addr)) % AUTH_LIMIT_SLOTS;
    auth_bucket_t *found = NULL, *spare = NULL;
    for (size_t i = 0; i < AUTH_LIMIT_PROBE && found == NULL; i++) {
        auth_bucket_t *b = &a->buckets[(base + i) % AUTH_LIMIT_SLOTS];
        if (b->addr[0] != '\0') {
            b->tokens += (double)(now - b->at_ms) * cap / 60000.0;
            if (b->tokens >= cap)
                b->tokens = cap;
            b->at_ms = now;
        }
        if (strcmp(b->addr, addr) == 0)
            found = b;
        else if (spare == NULL || b->addr[0] == '\0' || (spare->addr[0] != '\0' && b->tokens > spare->tokens))
            spare = b;
    }
    if (found != NULL || !create)
        return found;
    snprintf(spare->addr, sizeof spare->addr, "%s", addr);
    spare->tokens = cap;
    spare->at_ms = now;
    return spare;
}

/* Seconds until addr may try again, or 0 when it may now. */
static int auth_limited(auth_t *a, const char *addr)
{
    if (a->cfg->auth_max_failures <= 0)
        return 0;
    pthread_mutex_lock(&a->lock);
    auth_bucket_t *b = auth_bucket(a, addr, 0, clock_now_ms());
    int wait = 0;
    if (b != NULL && b->tokens < 1.0)
        wait = (int)((1.0 - b->tokens) * 60.0 / a->cfg->auth_max_failures) + 1;
    pthread_mutex_unlock(&a->lock);
    return wait;
}

/* Under a->lock: one failed attempt (or one check that may turn out to be one) from addr.
 * 1 when addr is out of attempts now. */
static int auth_charge_(auth_t *a, const char *addr)
{
    auth_bucket_t *b = auth_bucket(a, addr, 1, clock_now_ms());
    b->tokens -= 1.0;
    return b->tokens < 1.0;
}

static void auth_log_limited_(auth_t *a, const char *addr)
{
    log_warn("auth: %d failed attempts within a minute from %s; refusing its attempts for now (429)",
             a->cfg->auth_max_failures, addr);
}

static void auth_failed(auth_t *a, const char *addr)
{
    if (a->cfg->auth_max_failures <= 0)
        return;
    pthread_mutex_lock(&a->lock);
    int now_limited = auth_charge_(a, addr);
    pthread_mutex_unlock(&a->lock);
    if (now_limited)
        auth_log_limited_(a, addr);
}

static void auth_mac(const auth_t *a, const char *user, const char *password, size_t plen,
                     unsigned char mac[32])
{
    unsigned char pair[AUTH_USER_MAX + 1 + AUTH_PASSWORD_MAX + 8];
    size_t ulen = strlen(user);
    unsigned int len = 32;
    memcpy(pair, user, ulen);
    pair[ulen] = ':';
    memcpy(pair + ulen + 1, password, plen); /* both bounded by auth_basic's buffer */
    HMAC(EVP_sha256(), a->key, sizeof a->key, pair, ulen + 1 + plen, mac, &len);
    OPENSSL_cleanse(pair, sizeof pair);
}

/* Under a->lock. */
static auth_cached_t *auth_cache_slot(auth_t *a, const unsigned char mac[32])
{
    uint32_t at;
    memcpy(&at, mac, sizeof at);
    return &a->cache[at % AUTH_CACHE_SLOTS];
}

/*
 * A cache miss on its way through the slow hash. It carries copies of what
 * the hash needs, so the users table may be swapped (SIGHUP) and the
 * request freed (its client gone) meanwhile; the password is wiped with it.
 */
struct auth_check {
    auth_t *a;
    char user[AUTH_USER_MAX + 1];
    char password[AUTH_USER_MAX + AUTH_PASSWORD_MAX + 8]; /* as long as auth_basic's buffer */
    size_t plen;
    char encoded[AUTH_ENCODED_MAX]; /* the user's hash, or a->dummy for an unknown user */
    int known;                      /* the user is in the table */
    int charged;                    /* took a token of c->remote's bucket */
    char remote[48];
    unsigned char mac[32];
    uint64_t generation; /* of the table encoded came from */
    int ran, ok;
};

void auth_check_run(auth_check_t *k)
{
    auth_t *a = k->a;
    k->ran = 1;
    /* An unknown user is verified against the dummy: the answer takes as long. */
    k->ok = auth_hash_verify(k->encoded, k->password, k->plen) == 1 && k->known;
    OPENSSL_cleanse(k->password, sizeof k->password);
    if (!k->ok)
        return;
    pthread_mutex_lock(&a->lock);
    if (a->generation == k->generation) {
        auth_cached_t *slot = auth_cache_slot(a, k->mac);
        memcpy(slot->mac, k->mac, sizeof k->mac);
        slot->generation = k->generation;
        slot->expires_ms = clock_now_ms() + AUTH_CACHE_TTL_MS;
    }
    pthread_mutex_unlock(&a->lock);
}

/* /health/live and /health/ready: load balancers probe them without credentials. */
static int auth_open_path(const http_call_t *c)
{
    return c->nseg == 2 && strcmp(c->seg[0], "health") == 0 &&
           (strcmp(c->seg[1], "live") == 0 || strcmp(c->seg[1], "ready") == 0);
}

/* The 401 of rest-utils' JSON error handler: {"error_code":401,"message":"Unauthorized"}. */
static int auth_refuse(auth_t *a, http_call_t *c, const char *message)
{
    http_reply_error(c, 401, "%s", message);
    if (a->basic)
        http_reply_header(c, "www-authenticate", a->challenge);
    return -1;
}

/*
 * "Basic base64(user:password)". 1 with the decoded pair in buf (user, then
 * *password into buf), 0 when the header is not Basic at all, -1 when it is
 * Basic but malformed.
 */
static int auth_basic_decode(const char *value, size_t len, char *buf, size_t cap, char **password,
                             size_t *plen)
{
    while (len > 0 && (*value == ' ' || *value == '\t'))
        value++, len--;
    if (len < 6 || strncasecmp(value, "basic ", 6) != 0)
        return 0;
    value += 6, len -= 6;
    while (len > 0 && (value[len - 1] == ' ' || value[len - 1] == '\t'))
        len--;
    while (len > 0 && *value == ' ')
        value++, len--;
    long n = auth_b64_decode(value, len, (unsigned char *)buf, cap - 1);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    char *colon = memchr(buf, ':', (size_t)n);
    if (colon == NULL || memchr(buf, '\0', (size_t)n) != NULL)
        return -1;
    *colon = '\0';
    *password = colon + 1;
    *plen = (size_t)(buf + n - (colon + 1));
    return auth_user_name_ok(buf) ? 1 : -1;
}

/*
 * Under a->lock: a check for a miss, or NULL with the 503 to send when
 * auth.max.verifications are out already. The check takes a token from the
 * address's bucket now, so that a burst of guesses sent at once stops at
 * auth.max.failures like guesses sent one by one; a right password gives it
 * back (auth_check_finish).
 */
static auth_check_t *auth_check_new_(auth_t *a, http_call_t *c, const char *user, const char *password,
                                     size_t plen, const unsigned char mac[32])
{
    if (a->cfg->auth_max_verifications > 0 && a->checks_out >= a->cfg->auth_max_verifications)
        return NULL;
    auth_check_t *k = xcalloc(1, sizeof *k);
    k->a = a;
    snprintf(k->user, sizeof k->user, "%s", user);
    memcpy(k->password, password, plen); /* plen < sizeof k->password, auth_basic's buffer */
    k->plen = plen;
    memcpy(k->mac, mac, sizeof k->mac);
    k->generation = a->generation;
    const char *stored = a->users == NULL ? NULL : hmap_get(&a->users->map, user, strlen(user));
    k->known = stored != NULL;
    snprintf(k->encoded, sizeof k->encoded, "%s", stored ? stored : a->dummy);
    snprintf(k->remote, sizeof k->remote, "%s", c->remote);
    if (a->cfg->auth_max_failures > 0) {
        auth_charge_(a, k->remote);
        k->charged = 1;
    }
    a->checks_out++;
    return k;
}

int auth_check_finish(auth_t *a, http_call_t *c, auth_check_t *k)
{
    int ran = k->ran, ok = ran && k->ok, now_limited = 0;
    pthread_mutex_lock(&a->lock);
    a->checks_out--;
    if (k->charged) {
        auth_bucket_t *b = auth_bucket(a, k->remote, 0, clock_now_ms());
        /* Not a failure: the right password, or a client gone before its turn. */
        if (b != NULL && (ok || !ran))
            b->tokens += 1.0;
        now_limited = b != NULL && b->tokens < 1.0 && !ok && ran;
    }
    pthread_mutex_unlock(&a->lock);
    if (ok)
        c->principal = xstrdup(k->user);
    OPENSSL_cleanse(k, sizeof *k);
    free(k);
    if (ok)
        return 0;
    if (now_limited)
        auth_log_limited_(a, c->remote);
    if (!ran) {
        http_reply_error(c, 499, "The client went away before its credentials were checked");
        return -1;
    }
    return auth_refuse(a, c, "Unauthorized");
}

/*
 * 0 with c->principal on a cache hit (an HMAC, no hash), 1 with *check for
 * a miss, -1 with the reply (401, 429, 503) set.
 */
static int auth_basic(auth_t *a, http_call_t *c, const auth_request_t *in, auth_check_t **check)
{
    int wait = auth_limited(a, c->remote);
    if (wait > 0) {
        char seconds[16];
        snprintf(seconds, sizeof seconds, "%d", wait);
        http_reply_error(c, 429, "Too many failed authentication attempts from this address; retry in %d s",
                         wait);
        http_reply_header(c, "retry-after", seconds);
        return -1;
    }
    char buf[AUTH_USER_MAX + AUTH_PASSWORD_MAX + 8];
    char *password = NULL;
    size_t plen = 0;
    int rc = in->authorization_len < sizeof buf ? auth_basic_decode(in->authorization, in->authorization_len,
                                                                    buf, sizeof buf, &password, &plen)
                                                : -1;
    if (rc != 1) {
        OPENSSL_cleanse(buf, sizeof buf);
        auth_failed(a, c->remote);
        return auth_refuse(a, c, "Unauthorized");
    }
    unsigned char mac[32];
    auth_mac(a, buf, password, plen, mac);
    uint64_t now = clock_now_ms();
    pthread_mutex_lock(&a->lock);
    auth_cached_t *slot = auth_cache_slot(a, mac);
    int hit = slot->generation == a->generation && slot->expires_ms > now &&
              CRYPTO_memcmp(slot->mac, mac, sizeof mac) == 0;
    *check = hit ? NULL : auth_check_new_(a, c, buf, password, plen, mac);
    pthread_mutex_unlock(&a->lock);
    if (hit)
        c->principal = xstrdup(buf);
    OPENSSL_cleanse(buf, sizeof buf);
    OPENSSL_cleanse(mac, sizeof mac);
    if (hit)
        return 0;
    if (*check != NULL)
        return 1;
    http_reply_error(c, 503,
                     "Too many password verifications in progress (%d, auth.max.verifications); retry later",
                     a->cfg->auth_max_verifications);
    http_reply_header(c, "retry-after", "1");
    return -1;
}

int auth_authenticate(auth_t *a, http_call_t *c, const auth_request_t *in, auth_check_t **check)
{
    *check = NULL;
    if (!auth_enabled(a) || auth_open_path(c))
        return 0;
    /* Without a users file a client's Basic header means nothing here; its certificate may. */
    if (a->basic && in->authorization != NULL)
        return auth_basic(a, c, in, check);
    if (in->cert == 1) {
        c->principal = xstrdup(in->cert_name);
        return 0;
    }
    if (in->cert < 0)
        return auth_refuse(a, c,
                           "Unauthorized: the client certificate has no usable name (tls.client.principal)");
    if (a->cfg->auth_anonymous != NULL) {
        c->principal = xstrdup(a->cfg->auth_anonymous);
        return 0;
    }
    return auth_refuse(a, c, "Unauthorized");
}
