/*
 * http_call: building an http_call_t from raw request parts, and the helpers
 * handlers use to read it and to reply (http.h sections 3-4, http_server.h
 * sections 2-3).
 *
 * Contents
 *   1. Bytes: percent-decoding and UTF-8
 *   2. The method and the path
 *   3. The query string
 *   4. Media types
 *   5. Request helpers
 *   6. Reply helpers
 *   7. Context paths (Confluent's ContextFilter)
 */
#include "server/http_server.h"

#include "base/alloc.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- 1. Bytes ------------------------------------------------------------ */

#define HTTP_NUL_STANDIN '\x01'

static int http_hex(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = tolower(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/*
 * Decodes src[0..len) into out (room for len + 1 bytes), NUL-terminates it.
 * Path mode: '+' is literal and a bad escape fails; query mode: '+' is a
 * space and a bad escape stays as typed. Returns the decoded length, or -1
 * for a bad escape in path mode.
 *
 * "%00" (or a raw NUL) becomes U+0001: segments are C strings, where a NUL would silently
 * cut "bad%00name" to "bad". Any control character makes a subject invalid
 * (42208), so handlers still refuse it as the spec wants.
 */
static long http_percent_decode(const char *src, size_t len, char *out, int query_mode)
{
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        char ch = src[i];
        if (ch == '+' && query_mode) {
            out[o++] = ' ';
            continue;
        }
        if (ch != '%') {
            out[o++] = ch == '\0' ? HTTP_NUL_STANDIN : ch; /* HTTP/2 can carry a raw one */
            continue;
        }
        int hi = i + 2 < len ? http_hex((unsigned char)src[i + 1]) : -1;
        int lo = i + 2 < len ? http_hex((unsigned char)src[i + 2]) : -1;
        if (hi < 0 || lo < 0) {
            if (!query_mode)
                return -1;
            out[o++] = ch;
            continue;
        }
        out[o++] = (hi | lo) == 0 ? HTTP_NUL_STANDIN : (char)(hi << 4 | lo);
        i += 2;
    }
    out[o] = '\0';
    return (long)o;
}

int http_utf8_valid(const char *str, size_t len)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t i = 0;
    while (i < len) {
        unsigned c = s[i];
        size_t need;
        unsigned min;
        if (c < 0x80) {
            i++;
            continue;
        } else if ((c & 0xe0) == 0xc0) {
            need = 1, min = 0x80, c &= 0x1f;
        } else if ((c & 0xf0) == 0xe0) {
            need = 2, min = 0x800, c &= 0x0f;
        } else if ((c & 0xf8) == 0xf0) {
            need = 3, min = 0x10000, c &= 0x07;
        } else {
            return 0;
        }
        if (len - i <= need)
            return 0;
        for (size_t k = 1; k <= need; k++) {
            if ((s[i + k] & 0xc0) != 0x80)
                return 0;
            c = c << 6 | (s[i + k] & 0x3f);
        }
        if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
            return 0;
        i += need + 1;
    }
    return 1;
}

/* ---- 2. The method and the path ------------------------------------------ */

http_method_t http_method_parse(const char *name, size_t len)
{
    static const struct {
        const char *name;
        http_method_t method;
    } methods[] = {
        {"GET", HTTP_GET},       {"POST", HTTP_POST}, {"PUT", HTTP_PUT},
        {"DELETE", HTTP_DELETE}, {"HEAD", HTTP_HEAD},
    };
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
        if (strlen(methods[i].name) == len && memcmp(methods[i].name, name, len) == 0)
            return methods[i].method;
    return HTTP_OTHER;
}

int http_call_parse_path(http_call_t *c, const char *path, size_t len)
{
    c->seg = NULL;
    c->nseg = 0;
    if (len == 0 || path[0] != '/')
        return 404;

    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += path[i] == '/';
    if (path[len - 1] == '/')
        n--; /* the one trailing empty segment */

    /* The pointer array, then every decoded segment with its NUL and one
     * spare byte (a subject name may grow by one: http_call_normalize_subject). */
    char **seg = xmalloc((n + 1) * sizeof *seg + len + 2 * n + 1);
    char *out = (char *)(seg + n + 1);
    const char *p = path + 1;
    for (size_t k = 0; k < n; k++) {
        const char *slash = memchr(p, '/', (size_t)(path + len - p));
        size_t raw = slash ? (size_t)(slash - p) : (size_t)(path + len - p);
        long dec = http_percent_decode(p, raw, out, 0);
        if (dec < 0 || !http_utf8_valid(out, (size_t)dec)) {
            free(seg);
            return 400;
        }
        seg[k] = out;
        out += dec + 2;
        p += raw + 1;
    }
    seg[n] = NULL;
    c->seg = seg;
    c->nseg = n;
    return 0;
}

/* ---- 3. The query string --------------------------------------------------- */

/* Decodes one "name[=value]" pair into p, writing the text at *out. */
static int http_query_pair(const char *s, size_t len, http_param_t *p, char **out)
{
    const char *eq = memchr(s, '=', len);
    size_t nlen = eq ? (size_t)(eq - s) : len;
    long dn = http_percent_decode(s, nlen, *out, 1);
    if (dn < 0 || !http_utf8_valid(*out, (size_t)dn))
        return -1;
    p->name = *out;
    *out += dn + 1;

    const char *v = eq ? eq + 1 : s + len;
    long dv = http_percent_decode(v, (size_t)(s + len - v), *out, 1);
    if (dv < 0 || !http_utf8_valid(*out, (size_t)dv))
        return -1;
    p->value = *out;
    *out += dv + 1;
    return 0;
}

int http_call_parse_query(http_call_t *c, const char *query, size_t len)
{
    c->query = NULL;
    c->nquery = 0;
    size_t max = 1;
    for (size_t i = 0; i < len; i++)
        max += query[i] == '&';

    /* The pairs, then every decoded name and value with their NULs. */
    http_param_t *q = xmalloc(max * sizeof *q + len + 2 * max);
    char *out = (char *)(q + max);
    size_t n = 0;
    const char *p = query, *end = query + len;
    while (p < end) {
        const char *amp = memchr(p, '&', (size_t)(end - p));
        size_t plen = amp ? (size_t)(amp - p) : (size_t)(end - p);
        if (plen > 0 && http_query_pair(p, plen, &q[n++], &out) != 0) {
            free(q);
            return 400;
        }
        p += plen + 1;
    }
    c->query = q;
    c->nquery = n;
    return 0;
}

static void http_drop_reply(http_call_t *c);

void http_call_drop_reply(http_call_t *c)
{
    http_drop_reply(c);
    c->status = 0;
}

void http_call_keep(http_call_t *c, void *kept, void (*free_fn)(void *kept))
{
    c->kept = kept;
    c->kept_free = free_fn ? free_fn : free;
}

/* The alias of *name (normalized), put in its place (kept by the call), when it has one. */
static void http_alias_replace(http_call_t *c, char **name)
{
    char *normal = xmalloc(strlen(*name) + 2); /* normalizing may add a byte */
    strcpy(normal, *name);
    registry_subject_normalize(normal);
    char *target = *normal ? registry_subject_alias(c->reg, normal) : NULL;
    free(normal);
    if (!target)
        return;
    /* With a spare byte too: the path's subject is normalized in place after this. */
    char *kept = xmalloc(strlen(target) + 2);
    strcpy(kept, target);
    free(target);
    c->aliased = xreallocarray(c->aliased, c->naliased + 1, sizeof *c->aliased);
    c->aliased[c->naliased++] = kept;
    *name = kept;
}

void http_call_resolve_aliases(http_call_t *c)
{
    for (size_t k = 0; k + 1 < c->nseg; k++)
        if (strcmp(c->seg[k], "subjects") == 0)
            http_alias_replace(c, &c->seg[++k]);
    if (c->nseg >= 2 && strcmp(c->seg[0], "schemas") == 0 && strcmp(c->seg[1], "ids") == 0)
        for (size_t i = 0; i < c->nquery; i++)
            if (strcmp(c->query[i].name, "subject") == 0)
                http_alias_replace(c, &c->query[i].value);
}

void http_call_clear(http_call_t *c)
{
    if (c->kept)
        c->kept_free(c->kept);
    c->kept = NULL;
    for (size_t i = 0; i < c->naliased; i++)
        free(c->aliased[i]);
    free(c->aliased);
    c->aliased = NULL;
    c->naliased = 0;
    free(c->seg);
    free(c->query);
    http_drop_reply(c);
    free(c->body_utf8);
    free(c->principal);
    for (size_t i = 0; i < c->nreply_headers; i++)
        free(c->reply_headers[i].value);
    c->nreply_headers = 0;
    c->principal = NULL;
    c->seg = NULL;
    c->query = NULL;
    c->body_utf8 = NULL;
    c->nseg = c->nquery = 0;
}

/* ---- 4. Media types ---------------------------------------------------------- */

const char HTTP_MEDIA_V1[] = "application/vnd.schemaregistry.v1+json";
const char HTTP_MEDIA_SR[] = "application/vnd.schemaregistry+json";
const char HTTP_MEDIA_JSON[] = "application/json";

typedef struct http_offer {
    const char *type;
    double quality;
} http_offer_t;

/* What the server produces, best first, with its own preference. */
static const http_offer_t http_offers[] = {
    {HTTP_MEDIA_V1, 1.0},
    {HTTP_MEDIA_SR, 0.9},
    {HTTP_MEDIA_JSON, 0.5},
};

/* s[0..len) trimmed of spaces and tabs. */
static void http_trim(const char **s, size_t *len)
{
    while (*len > 0 && (**s == ' ' || **s == '\t'))
        (*s)++, (*len)--;
    while (*len > 0 && ((*s)[*len - 1] == ' ' || (*s)[*len - 1] == '\t'))
        (*len)--;
}

static int http_ieq(const char *s, size_t len, const char *lit)
{
    return strlen(lit) == len && strncasecmp(s, lit, len) == 0;
}

int http_media_request_ok(const char *content_type, size_t len)
{
    if (content_type == NULL)
        return 1;
    const char *semi = memchr(content_type, ';', len);
    size_t tlen = semi ? (size_t)(semi - content_type) : len;
    http_trim(&content_type, &tlen);
    if (tlen == 0)
        return 1;
    return http_ieq(content_type, tlen, HTTP_MEDIA_V1) || http_ieq(content_type, tlen, HTTP_MEDIA_SR) ||
           http_ieq(content_type, tlen, HTTP_MEDIA_JSON) ||
           http_ieq(content_type, tlen, "application/octet-stream");
}

/* One media range of an Accept header: its type and its q parameter. */
typedef struct http_range {
    const char *type;
    size_t len;
    double q;
} http_range_t;

static http_range_t http_range_parse(const char *s, size_t len)
{
    http_range_t r = {s, len, 1.0};
    const char *semi = memchr(s, ';', len);
    if (semi == NULL) {
        http_trim(&r.type, &r.len);
        return r;
    }
    r.len = (size_t)(semi - s);
    http_trim(&r.type, &r.len);
    const char *p = semi + 1, *end = s + len;
    while (p < end) {
        const char *next = memchr(p, ';', (size_t)(end - p));
        const char *pe = next ? next : end;
        const char *par = p;
        size_t plen = (size_t)(pe - p);
        http_trim(&par, &plen);
        if (plen >= 2 && (par[0] == 'q' || par[0] == 'Q') && par[1] == '=') {
            char num[16];
            size_t nlen = plen - 2 < sizeof num - 1 ? plen - 2 : sizeof num - 1;
            memcpy(num, par + 2, nlen);
            num[nlen] = '\0';
            char *e;
            double q = strtod(num, &e);
            r.q = (e != num && q >= 0 && q <= 1) ? q : 0;
        }
        p = pe + 1;
    }
    return r;
}

/* How specifically a range names type: 3 exact, 2 "application/...", 1 any, 0 not at all. */
static int http_range_specificity(const http_range_t *r, const char *type)
{
    if (http_ieq(r->type, r->len, type))
        return 3;
    if (http_ieq(r->type, r->len, "application/*"))
        return 2;
    /* Java's HttpURLConnection sends a bare "*", which Jersey reads as any type. */
    if (http_ieq(r->type, r->len, "*/*") || http_ieq(r->type, r->len, "*"))
        return 1;
    return 0;
}

/* The client's q for a type: that of its most specific matching range (RFC 9110 12.5.1). */
static double http_accept_quality(const char *accept, size_t len, const char *type)
{
    int best = 0;
    double q = 0;
    const char *p = accept, *end = accept + len;
    while (p < end) {
        const char *comma = memchr(p, ',', (size_t)(end - p));
        const char *re = comma ? comma : end;
        http_range_t r = http_range_parse(p, (size_t)(re - p));
        int spec = http_range_specificity(&r, type);
        if (spec > best) {
            best = spec;
            q = r.q;
        }
        p = re + 1;
    }
    return q;
}

const char *http_media_negotiate(const char *accept, size_t len)
{
    if (accept != NULL)
        http_trim(&accept, &len);
    if (accept == NULL || len == 0)
        return HTTP_MEDIA_V1;
    const char *chosen = NULL;
    double best = 0;
    for (size_t i = 0; i < sizeof http_offers / sizeof http_offers[0]; i++) {
        double score = http_offers[i].quality * http_accept_quality(accept, len, http_offers[i].type);
        if (score > best) {
            best = score;
            chosen = http_offers[i].type;
        }
    }
    return chosen;
}

/* ---- 5. Request helpers ------------------------------------------------------ */

/* The segment index of "{name}" in a route pattern, or -1. Pattern text only:
 * the call knows its route, and the router stays above the helpers it serves. */
static int http_pattern_param_index(const char *pattern, const char *name)
{
    size_t nlen = strlen(name);
    const char *p = *pattern == '/' ? pattern + 1 : pattern;
    for (int k = 0; *p; k++) {
        const char *slash = strchr(p, '/');
        size_t len = slash ? (size_t)(slash - p) : strlen(p);
        if (len == nlen + 2 && p[0] == '{' && memcmp(p + 1, name, nlen) == 0)
            return k;
        p += len;
        if (*p == '/')
            p++;
    }
    return -1;
}

const char *http_param(const http_call_t *c, const char *name)
{
    int k = c->route ? http_pattern_param_index(c->route->pattern, name) : -1;
    return k >= 0 && (size_t)k < c->nseg ? c->seg[k] : "";
}

void http_call_normalize_subject(http_call_t *c)
{
    int k = c->route ? http_pattern_param_index(c->route->pattern, "subject") : -1;
    if (k >= 0 && (size_t)k < c->nseg)
        registry_subject_normalize(c->seg[k]);
}

int http_has_param(const http_call_t *c, const char *name)
{
    return c->route && http_pattern_param_index(c->route->pattern, name) >= 0;
}

const char *http_query(const http_call_t *c, const char *name)
{
    for (size_t i = 0; i < c->nquery; i++)
        if (strcmp(c->query[i].name, name) == 0)
            return c->query[i].value;
    return NULL;
}

void http_query_all(const http_call_t *c, const char *name, strlist_t *out)
{
    for (size_t i = 0; i < c->nquery; i++)
        if (strcmp(c->query[i].name, name) == 0 && strlist_push(out, c->query[i].value) != 0)
            base_oom(0);
}

int http_query_bool(const http_call_t *c, const char *name, int dflt)
{
    const char *v = http_query(c, name);
    if (v == NULL)
        return dflt;
    return strcasecmp(v, "true") == 0;
}

/* An empty value counts as absent, as JAX-RS does for primitive parameters. */
int http_query_int(const http_call_t *c, const char *name, int dflt, int *out)
{
    const char *v = http_query(c, name);
    *out = dflt;
    if (v == NULL || v[0] == '\0')
        return 0;
    const char *digits = (v[0] == '-' || v[0] == '+') ? v + 1 : v;
    if (!isdigit((unsigned char)digits[0]))
        return -1;
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || *end != '\0' || n < INT_MIN || n > INT_MAX)
        return -1;
    *out = (int)n;
    return 0;
}

void http_call_act_as(http_call_t *c, store_t *db)
{
    reg_actor_t who = {c->principal, c->remote[0] ? c->remote : NULL, c->request_id};
    registry_act_as(db, &who);
}

void http_call_home(http_call_t *c, store_t *db)
{
    c->home(c, db);
}

/* ---- 6. Reply helpers -------------------------------------------------------- */

static void http_drop_reply(http_call_t *c)
{
    if (c->reply_body)
        reg_body_release(c->reply_body); /* c->reply points into it */
    else
        free(c->reply);
    c->reply_body = NULL;
    c->reply = NULL;
    c->reply_len = 0;
}

static void http_set_reply(http_call_t *c, int status, char *text, size_t len)
{
    http_drop_reply(c);
    c->status = status;
    c->reply = text;
    c->reply_len = len;
}

void http_reply_json(http_call_t *c, int status, json_t *body)
{
    char *text = body ? json_dumps(body, JSON_COMPACT | JSON_ENCODE_ANY) : NULL;
    json_decref(body);
    if (text == NULL) {
        http_reply_error(c, 500, "Error while serializing the response");
        return;
    }
    http_set_reply(c, status, text, strlen(text));
}

void http_reply_body(http_call_t *c, int status, reg_body_t *b)
{
    http_drop_reply(c);
    c->status = status;
    c->reply_body = b;
    c->reply = b->text;
    c->reply_len = b->len;
}

void http_reply_text(http_call_t *c, int status, const char *text, size_t len)
{
    char *copy = xmalloc(len + 1);
    memcpy(copy, text, len);
    copy[len] = '\0';
    http_set_reply(c, status, copy, len);
}

/* Messages can quote client bytes; JSON needs UTF-8, so anything else becomes '?'. */
static void http_utf8_scrub(char *s)
{
    size_t len = strlen(s);
    for (size_t i = 0; i < len;) {
        size_t run = 1;
        while (run <= 4 && i + run <= len && !http_utf8_valid(s + i, run))
            run++;
        if (run > 4 || i + run > len) {
            s[i++] = '?';
            continue;
        }
        i += run;
    }
}

/* The body goes out even when memory runs short: clients need a JSON error. */
static void http_reply_error_text(http_call_t *c, int code, const char *msg)
{
    int status = code < 1000 ? code : code / 100;
    json_t *body = json_object();
    json_object_set_new(body, "error_code", json_integer(code));
    json_object_set_new(body, "message", json_string(msg));
    char *text = json_dumps(body, JSON_COMPACT);
    json_decref(body);
    if (text == NULL) {
        static const char fallback[] = "{\"error_code\":500,\"message\":\"Internal Server Error\"}";
        text = xstrdup(fallback);
        status = 500;
    }
    http_set_reply(c, status, text, strlen(text));
}

void http_reply_error(http_call_t *c, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *msg = xvasprintf(fmt, ap);
    va_end(ap);
    http_utf8_scrub(msg);
    http_reply_error_text(c, code, msg);
    free(msg);
}

void http_reply_reg_error(http_call_t *c, const reg_error_t *err)
{
    int code = err->code == REG_OK ? REG_INTERNAL : (int)err->code;
    http_reply_error(c, code, "%s", err->message);
}

void http_reply_header(http_call_t *c, const char *name, const char *value)
{
    size_t cap = sizeof c->reply_headers / sizeof c->reply_headers[0];
    if (c->nreply_headers >= cap)
        return; /* a programming error; the reply still goes out */
    c->reply_headers[c->nreply_headers].name = name;
    c->reply_headers[c->nreply_headers].value = xstrdup(value);
    c->nreply_headers++;
}

/* ---- 7. Context paths ---------------------------------------------------------- */

/*
 * Confluent's ContextFilter (rest/filters/ContextFilter.java), a pre-matching
 * filter: /contexts/{c}/... is the rest of the path with the context put into
 * every subject it names. The filter works on the raw (still encoded) target,
 * so this does too, and the call is decoded again from the result:
 *   - "contexts" and the segment after it are dropped while no other segment
 *     came first (so /contexts/.a/contexts/.b/... is in .b);
 *   - the segment after "subjects" or "deks", and after a leading "config" or
 *     "mode", gets the prefix ":.c:" unless it has a context (":." or ":*:");
 *     a bare "config" or "mode" gets the segment ":.c:" (the context's scope);
 *   - nothing left is "/contexts/:.c:" (DELETE's path), or "/" for ".";
 *   - on /schemas/ids/..., ?subject= (absent: "") gets the prefix; on
 *     /schemas, /subjects and /keks... every ?subjectPrefix= (absent: ""); a POST or PUT
 *     to /associations... gets ?context=:.c:, and so does a POST to /changes (this
 *     registry's own route: its references resolve in the context, docs/evolution.md).
 * The context is QualifiedSubject.normalizeContext's: "c", ".c" and ":.c:" are
 * ".c", "." is the default (no prefix); a colon inside is 400 with the
 * filter's message, but only where a prefix is made.
 */

typedef struct http_text {
    char *s;
    size_t len, cap;
} http_text_t;

static void http_text_put(http_text_t *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        t->cap = (t->len + n + 1) * 2;
        t->s = xrealloc(t->s, t->cap);
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = '\0';
}

static int http_text_is(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

typedef struct http_ctx_rewrite {
    const char *ctx; /* raw, as in the path */
    size_t ctx_len;
    char *error; /* the 400's message, once one is made */
} http_ctx_rewrite_t;

/* Appends normalizeContext(ctx): "" for the default context, else ":.c:". */
static int http_ctx_put(http_ctx_rewrite_t *r, http_text_t *out)
{
    const char *p = r->ctx;
    size_t n = r->ctx_len;
    if (n && p[0] == ':')
        p++, n--;
    if (n && p[n - 1] == ':')
        n--;
    if (memchr(p, ':', n)) {
        if (!r->error)
            r->error = xasprintf("Context name '%.*s' cannot contain a colon", (int)n, p);
        return -1;
    }
    if (n == 0 || (n == 1 && p[0] == '.'))
        return 0;
    http_text_put(out, p[0] == '.' ? ":" : ":.", p[0] == '.' ? 1 : 2);
    http_text_put(out, p, n);
    http_text_put(out, ":", 1);
    return 0;
}

/* ContextFilter.startsWithContext: the decoded text starts with ":." or ":*:". */
static int http_ctx_qualified(const char *raw, size_t n)
{
    char *dec = xmalloc(n + 1);
    http_percent_decode(raw, n, dec, 1);
    int yes = strncmp(dec, ":.", 2) == 0 || strncmp(dec, ":*:", 3) == 0;
    free(dec);
    return yes;
}

/* A path segment or parameter value with the context in front, unless it has one. */
static int http_ctx_prefix(http_ctx_rewrite_t *r, const char *raw, size_t n, http_text_t *out)
{
    if (!http_ctx_qualified(raw, n) && http_ctx_put(r, out) != 0)
        return -1;
    http_text_put(out, raw, n);
    return 0;
}

/* ContextFilter.modifyUriPath over the path after its '/'. */
static int http_ctx_path(http_ctx_rewrite_t *r, const char *rel, size_t len, http_text_t *out)
{
    /* Java's split("/"): trailing empty segments go. */
    while (len > 0 && rel[len - 1] == '/')
        len--;
    int context_next = 0, config_or_mode = 0, subject_next = 0, first = 1;
    r->ctx = ".", r->ctx_len = 1;
    const char *p = rel, *end = rel + len;
    while (len > 0 && p <= end) {
        const char *slash = memchr(p, '/', (size_t)(end - p));
        size_t n = slash ? (size_t)(slash - p) : (size_t)(end - p);
        if (context_next) {
            r->ctx = p, r->ctx_len = n, context_next = 0;
        } else if (first && http_text_is(p, n, "contexts")) {
            context_next = 1;
        } else {
            if (subject_next) {
                if (http_ctx_prefix(r, p, n, out) != 0)
                    return -1;
                subject_next = 0;
            } else {
                int root = first && (http_text_is(p, n, "config") || http_text_is(p, n, "mode"));
                subject_next = root || http_text_is(p, n, "subjects") || http_text_is(p, n, "deks");
                config_or_mode |= root;
                http_text_put(out, p, n);
            }
            http_text_put(out, "/", 1);
            if (n > 0)
                first = 0;
        }
        p += n + 1;
    }
    if (config_or_mode && subject_next) {
        size_t at = out->len;
        if (http_ctx_put(r, out) != 0)
            return -1;
        if (out->len > at)
            http_text_put(out, "/", 1);
    } else if (context_next) {
        http_text_put(out, "contexts/", 9);
    } else if ((out->len == 0 || http_text_is(out->s, out->len, "/")) &&
               !http_text_is(r->ctx, r->ctx_len, ".")) {
        http_text_put(out, "contexts/", 9);
        if (http_ctx_put(r, out) != 0)
            return -1;
        http_text_put(out, "/", 1);
    }
    return 0;
}

/* 1 when the raw pair's decoded name is name. */
static int http_ctx_pair_is(const char *pair, size_t n, const char *name)
{
    const char *eq = memchr(pair, '=', n);
    size_t nlen = eq ? (size_t)(eq - pair) : n;
    char *dec = xmalloc(nlen + 1);
    http_percent_decode(pair, nlen, dec, 1);
    int yes = strcmp(dec, name) == 0;
    free(dec);
    return yes;
}

/*
 * The query with every `name` pair replaced, as JAX-RS's replaceQueryParam:
 * the others in order, then name=prefixed value for each value (only the
 * first when first_only; none present: one ""). set_to_ctx: the value is the
 * context itself.
 */
static int http_ctx_query(http_ctx_rewrite_t *r, const char *query, size_t qlen, const char *name,
                          int first_only, int set_to_ctx, http_text_t *out)
{
    http_text_t tail = {0};
    int found = 0, rc = 0;
    const char *p = query, *end = query ? query + qlen : NULL;
    while (p && p < end) {
        const char *amp = memchr(p, '&', (size_t)(end - p));
        size_t n = amp ? (size_t)(amp - p) : (size_t)(end - p);
        if (n > 0 && http_ctx_pair_is(p, n, name)) {
            const char *eq = memchr(p, '=', n);
            const char *v = eq ? eq + 1 : p + n;
            if (!(first_only && found) && !set_to_ctx) {
                http_text_put(&tail, "&", 1);
                http_text_put(&tail, name, strlen(name));
                http_text_put(&tail, "=", 1);
                rc |= http_ctx_prefix(r, v, (size_t)(p + n - v), &tail);
            }
            found = 1;
        } else if (n > 0) {
            if (out->len > 0)
                http_text_put(out, "&", 1);
            http_text_put(out, p, n);
        }
        p += n + 1;
    }
    if (!found || set_to_ctx) {
        http_text_put(&tail, "&", 1);
        http_text_put(&tail, name, strlen(name));
        http_text_put(&tail, "=", 1);
        rc |= set_to_ctx ? http_ctx_put(r, &tail) : http_ctx_prefix(r, "", 0, &tail);
    }
    if (tail.len > 0)
        http_text_put(out, tail.s + (out->len == 0), tail.len - (out->len == 0));
    free(tail.s);
    return rc;
}

int http_call_apply_context(http_call_t *c, const char *path, size_t len, const char *query, size_t qlen)
{
    static const char prefix[] = "/contexts/";
    if (len <= sizeof prefix - 1 || memcmp(path, prefix, sizeof prefix - 1) != 0)
        return 0;
    http_ctx_rewrite_t r = {0};
    http_text_t p = {0}, q = {0};
    http_text_put(&p, "/", 1);
    int rc = http_ctx_path(&r, path + 1, len - 1, &p);
    /* ContextAndPath.path, without its first and last '/', names the resource. */
    const char *res = p.s + 1;
    size_t rlen = p.len - 1;
    if (rlen > 0 && res[rlen - 1] == '/')
        rlen--;
    if (rlen > 0 && res[0] == '/')
        res++, rlen--;
    const char *subject_param = NULL;
    int first_only = 0, set_to_ctx = 0;
    if (rlen >= 11 && memcmp(res, "schemas/ids", 11) == 0)
        subject_param = "subject", first_only = 1;
    else if (http_text_is(res, rlen, "schemas") || http_text_is(res, rlen, "subjects") ||
             (rlen >= 4 && memcmp(res, "keks", 4) == 0))
        subject_param = "subjectPrefix";
    else if ((c->method == HTTP_POST || c->method == HTTP_PUT) && rlen >= 12 &&
             memcmp(res, "associations", 12) == 0)
        subject_param = "context", set_to_ctx = 1;
    else if (c->method == HTTP_POST && http_text_is(res, rlen, "changes"))
        subject_param = "context", set_to_ctx = 1;
    if (rc == 0 && subject_param)
        rc = http_ctx_query(&r, query, qlen, subject_param, first_only, set_to_ctx, &q);
    else if (rc == 0 && query)
        http_text_put(&q, query, qlen);
    if (rc == 0) {
        free(c->seg);
        free(c->query);
        c->seg = NULL, c->query = NULL, c->nquery = 0;
        rc = http_call_parse_path(c, p.s, p.len) || (q.len > 0 && http_call_parse_query(c, q.s, q.len)) ? -1
                                                                                                        : 0;
        if (rc != 0)
            http_reply_error(c, 400, "Invalid request target: bad percent-encoding or not UTF-8");
    } else {
        http_reply_error(c, 400, "%s", r.error);
    }
    free(r.error);
    free(p.s);
    free(q.s);
    return rc;
}
