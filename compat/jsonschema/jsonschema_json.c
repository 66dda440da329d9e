/*
 * jsonschema_json: the JSON values a schema document is made of.
 *
 * Our own small parser rather than jansson because the canonical text must
 * keep numbers as Jackson prints them (jansson re-prints reals with 17
 * digits and rejects integers beyond 64 bits), and because NaN/Infinity are
 * accepted by the reference.
 *
 * Chapters: 1. values  2. parsing  3. numbers  4. printing  5. sorting, equality
 */
#include "compat/jsonschema/internal.h"

#include "base/strbuf.h"
#include "base/utf8.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- 1. Values ------------------------------------------------------------ */

static jsonschema_json_t *json_new(jsonschema_json_kind_t kind)
{
    jsonschema_json_t *v = calloc(1, sizeof *v);
    if (v)
        v->kind = kind;
    return v;
}

void jsonschema_json_free(jsonschema_json_t *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->n; i++) {
        if (v->kind == JSONSCHEMA_JSON_ARRAY) {
            jsonschema_json_free(v->elems[i]);
        } else {
            free(v->members[i].key);
            jsonschema_json_free(v->members[i].value);
        }
    }
    free(v->elems);
    free(v->members);
    free(v->str);
    free(v);
}

const jsonschema_json_t *jsonschema_json_get(const jsonschema_json_t *obj, const char *key)
{
    if (!obj || obj->kind != JSONSCHEMA_JSON_OBJECT)
        return NULL;
    size_t klen = strlen(key);
    for (size_t i = 0; i < obj->n; i++) {
        if (obj->members[i].key_len == klen && memcmp(obj->members[i].key, key, klen) == 0)
            return obj->members[i].value;
    }
    return NULL;
}

int jsonschema_json_str_is(const jsonschema_json_t *v, const char *s)
{
    return v && v->kind == JSONSCHEMA_JSON_STRING && v->len == strlen(s) && memcmp(v->str, s, v->len) == 0;
}

const char *jsonschema_json_kind_name(jsonschema_json_kind_t kind)
{
    switch (kind) {
    case JSONSCHEMA_JSON_NULL: return "null";
    case JSONSCHEMA_JSON_FALSE:
    case JSONSCHEMA_JSON_TRUE: return "boolean";
    case JSONSCHEMA_JSON_NUMBER: return "number";
    case JSONSCHEMA_JSON_STRING: return "string";
    case JSONSCHEMA_JSON_ARRAY: return "array";
    case JSONSCHEMA_JSON_OBJECT: return "object";
    }
    return "?";
}

/* The one growth rule of the engine's arrays (values here, nodes and lists elsewhere). */
int jsonschema_grow(void **items, size_t *cap, size_t need, size_t elem_size)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap * 2 : 4;
    while (ncap < need)
        ncap *= 2;
    void *p = realloc(*items, ncap * elem_size);
    if (!p)
        return -1;
    *items = p;
    *cap = ncap;
    return 0;
}

/* ---- 2. Parsing ----------------------------------------------------------- */

typedef struct parser {
    const char *p, *end, *start;
    char *error;
    int depth;
} parser_t;

static void *parse_fail(parser_t *ps, const char *what)
{
    if (!ps->error) {
        size_t line = 1, col = 1;
        for (const char *c = ps->start; c < ps->p && c < ps->end; c++) {
            if (*c == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
        if (asprintf(&ps->error, "Invalid JSON at line %zu, column %zu: %s", line, col, what) < 0)
            ps->error = NULL;
    }
    return NULL;
}

static void skip_ws(parser_t *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\n' || *ps->p == '\r'))
        ps->p++;
}

static jsonschema_json_t *parse_value(parser_t *ps);

/* Decoded strings and printed text go into a base/strbuf.h buffer; put()
 * reports its sticky failure at once, so callers can stop early. */
static int put(strbuf_t *b, const char *s, size_t n)
{
    strbuf_put(b, s, n);
    return b->failed ? -1 : 0;
}

static int put_utf8(strbuf_t *b, uint32_t cp)
{
    char out[4];
    size_t n;
    if (cp < 0x80) {
        out[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        out[0] = (char)(0xF0 | (cp >> 18));
        out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    return put(b, out, n);
}

static int hex4(const char *p, uint32_t *out)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v <<= 4;
        if (c >= '0' && c <= '9')
            v |= (uint32_t)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v |= (uint32_t)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v |= (uint32_t)(c - 'A' + 10);
        else
            return -1;
    }
    *out = v;
    return 0;
}

/* Length of the valid UTF-8 sequence at p (no overlongs, no surrogates), or 0. */
static size_t utf8_seq_len(const unsigned char *p, const unsigned char *end)
{
    unsigned c = p[0];
    size_t n;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xC2 && c <= 0xDF) {
        n = 2;
        cp = c & 0x1F;
    } else if (c >= 0xE0 && c <= 0xEF) {
        n = 3;
        cp = c & 0x0F;
    } else if (c >= 0xF0 && c <= 0xF4) {
        n = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if ((size_t)(end - p) < n)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (p[i] & 0x3F);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
        (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return n;
}

/* An escape after the backslash; p points at the escape letter. */
static int parse_escape(parser_t *ps, strbuf_t *b)
{
    char c = *ps->p++;
    static const char simple_in[] = "\"\\/bfnrt";
    static const char simple_out[] = "\"\\/\b\f\n\r\t";
    const char *hit = strchr(simple_in, c);
    if (c && hit)
        return put(b, &simple_out[hit - simple_in], 1);
    if (c != 'u' || ps->end - ps->p < 4)
        return parse_fail(ps, "invalid escape"), -1;
    uint32_t cp;
    if (hex4(ps->p, &cp) != 0)
        return parse_fail(ps, "invalid \\u escape"), -1;
    ps->p += 4;
    if (cp >= 0xDC00 && cp <= 0xDFFF)
        return parse_fail(ps, "lone low surrogate"), -1;
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        uint32_t lo;
        if (ps->end - ps->p < 6 || ps->p[0] != '\\' || ps->p[1] != 'u' || hex4(ps->p + 2, &lo) != 0 ||
            lo < 0xDC00 || lo > 0xDFFF)
            return parse_fail(ps, "lone high surrogate"), -1;
        ps->p += 6;
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
    }
    return put_utf8(b, cp);
}

/* A string body after the opening quote; the result is malloc'd in *out. */
static int parse_string_raw(parser_t *ps, char **out, size_t *out_len)
{
    strbuf_t b = {0};
    if (put(&b, "", 0) != 0)
        return -1;
    for (;;) {
        if (ps->p >= ps->end) {
            parse_fail(ps, "unterminated string");
            break;
        }
        unsigned char c = (unsigned char)*ps->p;
        if (c == '"') {
            ps->p++;
            /* The text lives as long as the document: give back the slack. */
            char *fit = realloc(b.data, b.len + 1);
            *out = fit ? fit : b.data;
            *out_len = b.len;
            return 0;
        }
        if (c < 0x20) {
            parse_fail(ps, "control character in string");
            break;
        }
        if (c == '\\') {
            ps->p++;
            if (ps->p >= ps->end || parse_escape(ps, &b) != 0) {
                parse_fail(ps, "invalid escape");
                break;
            }
            continue;
        }
        size_t n = utf8_seq_len((const unsigned char *)ps->p, (const unsigned char *)ps->end);
        if (n == 0) {
            parse_fail(ps, "invalid UTF-8");
            break;
        }
        if (put(&b, ps->p, n) != 0) {
            parse_fail(ps, "out of memory");
            break;
        }
        ps->p += n;
    }
    strbuf_free(&b);
    return -1;
}

static int jackson_number_text(const char *lexeme, size_t len, char **out);

static jsonschema_json_t *number_from(parser_t *ps, const char *start, size_t len, int is_integer,
                                      double value, const char *text)
{
    jsonschema_json_t *v = json_new(JSONSCHEMA_JSON_NUMBER);
    if (!v)
        return parse_fail(ps, "out of memory");
    v->is_integer = is_integer;
    v->num = value;
    if (text) {
        v->str = strdup(text);
    } else if (jackson_number_text(start, len, &v->str) != 0) {
        free(v);
        return parse_fail(ps, "number out of range");
    }
    if (!v->str) {
        free(v);
        return parse_fail(ps, "out of memory");
    }
    v->len = strlen(v->str);
    return v;
}

/* NaN, Infinity, +Infinity, -Infinity: Jackson's ALLOW_NON_NUMERIC_NUMBERS. */
static jsonschema_json_t *parse_non_numeric(parser_t *ps)
{
    static const struct {
        const char *in, *out;
    } words[] = {
        {"NaN", "NaN"}, {"Infinity", "Infinity"}, {"+Infinity", "Infinity"}, {"-Infinity", "-Infinity"}};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
        size_t n = strlen(words[i].in);
        if ((size_t)(ps->end - ps->p) >= n && memcmp(ps->p, words[i].in, n) == 0) {
            ps->p += n;
            double val = words[i].out[0] == 'N' ? NAN : words[i].out[0] == '-' ? -INFINITY : INFINITY;
            return number_from(ps, NULL, 0, 0, val, words[i].out);
        }
    }
    return parse_fail(ps, "invalid number");
}

static jsonschema_json_t *parse_number(parser_t *ps)
{
    const char *s = ps->p;
    if (*s == '+' || (*s == '-' && ps->end - s > 1 && s[1] == 'I') || *s == 'N' || *s == 'I')
        return parse_non_numeric(ps);
    const char *p = s;
    int is_integer = 1;
    if (*p == '-')
        p++;
    if (p >= ps->end || !isdigit((unsigned char)*p))
        return parse_fail(ps, "invalid number");
    if (*p == '0' && p + 1 < ps->end && isdigit((unsigned char)p[1]))
        return parse_fail(ps, "leading zero in number");
    while (p < ps->end && isdigit((unsigned char)*p))
        p++;
    if (p < ps->end && *p == '.') {
        is_integer = 0;
        p++;
        if (p >= ps->end || !isdigit((unsigned char)*p))
            return parse_fail(ps, "invalid fraction");
        while (p < ps->end && isdigit((unsigned char)*p))
            p++;
    }
    if (p < ps->end && (*p == 'e' || *p == 'E')) {
        is_integer = 0;
        p++;
        if (p < ps->end && (*p == '+' || *p == '-'))
            p++;
        if (p >= ps->end || !isdigit((unsigned char)*p))
            return parse_fail(ps, "invalid exponent");
        while (p < ps->end && isdigit((unsigned char)*p))
            p++;
    }
    size_t len = (size_t)(p - s);
    char small[64];
    char *copy = len < sizeof small ? small : malloc(len + 1);
    if (!copy)
        return parse_fail(ps, "out of memory");
    memcpy(copy, s, len);
    copy[len] = '\0';
    double value = strtod(copy, NULL);
    if (copy != small)
        free(copy);
    ps->p = p;
    return number_from(ps, s, len, is_integer, value, NULL);
}

static jsonschema_json_t *parse_literal(parser_t *ps, const char *word, jsonschema_json_kind_t kind)
{
    size_t n = strlen(word);
    if ((size_t)(ps->end - ps->p) < n || memcmp(ps->p, word, n) != 0)
        return parse_fail(ps, "invalid literal");
    ps->p += n;
    jsonschema_json_t *v = json_new(kind);
    return v ? v : parse_fail(ps, "out of memory");
}

static int array_push(jsonschema_json_t *arr, jsonschema_json_t *item, size_t *cap)
{
    if (jsonschema_grow((void **)&arr->elems, cap, arr->n + 1, sizeof *arr->elems) != 0)
        return -1;
    arr->elems[arr->n++] = item;
    return 0;
}

static jsonschema_json_t *parse_array(parser_t *ps)
{
    jsonschema_json_t *arr = json_new(JSONSCHEMA_JSON_ARRAY);
    size_t cap = 0;
    if (!arr)
        return parse_fail(ps, "out of memory");
    ps->p++;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == ']') {
        ps->p++;
        return arr;
    }
    for (;;) {
        jsonschema_json_t *item = parse_value(ps);
        if (!item || array_push(arr, item, &cap) != 0) {
            jsonschema_json_free(item);
            break;
        }
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == ']') {
            ps->p++;
            return arr;
        }
        parse_fail(ps, "expected ',' or ']'");
        break;
    }
    jsonschema_json_free(arr);
    return parse_fail(ps, "out of memory");
}

/* The keys of the object being parsed: how many there are room for, and from
 * JSONSCHEMA_INDEX_MIN keys on a map key -> position + 1, so that finding a
 * duplicate stays a lookup in objects of thousands of keys. */
typedef struct object_keys {
    size_t cap;
    hmap_t index;
} object_keys_t;

static int index_key(object_keys_t *k, const jsonschema_member_t *m, size_t pos)
{
    return hmap_put_try(&k->index, m->key, m->key_len, (void *)(uintptr_t)(pos + 1), NULL);
}

static jsonschema_member_t *find_key(const jsonschema_json_t *obj, const object_keys_t *k, const char *key,
                                     size_t key_len)
{
    if (obj->n >= JSONSCHEMA_INDEX_MIN) {
        uintptr_t at = (uintptr_t)hmap_get(&k->index, key, key_len);
        return at ? &obj->members[at - 1] : NULL;
    }
    for (size_t i = 0; i < obj->n; i++) {
        jsonschema_member_t *m = &obj->members[i];
        if (m->key_len == key_len && memcmp(m->key, key, key_len) == 0)
            return m;
    }
    return NULL;
}

/* Jackson keeps a duplicate key's first position and its last value. */
static int object_put(jsonschema_json_t *obj, char *key, size_t key_len, jsonschema_json_t *value,
                      object_keys_t *k)
{
    jsonschema_member_t *same = find_key(obj, k, key, key_len);
    if (same) {
        free(key);
        jsonschema_json_free(same->value);
        same->value = value;
        return 0;
    }
    if (jsonschema_grow((void **)&obj->members, &k->cap, obj->n + 1, sizeof *obj->members) != 0)
        return -1;
    obj->members[obj->n] = (jsonschema_member_t){key, key_len, value};
    if (obj->n + 1 == JSONSCHEMA_INDEX_MIN) {
        for (size_t i = 0; i <= obj->n; i++)
            if (index_key(k, &obj->members[i], i) != 0)
                return -1;
    } else if (obj->n + 1 > JSONSCHEMA_INDEX_MIN && index_key(k, &obj->members[obj->n], obj->n) != 0) {
        return -1;
    }
    obj->n++;
    return 0;
}

static int parse_member(parser_t *ps, jsonschema_json_t *obj, object_keys_t *keys)
{
    skip_ws(ps);
    if (ps->p >= ps->end || *ps->p != '"')
        return parse_fail(ps, "expected a key"), -1;
    ps->p++;
    char *key;
    size_t key_len;
    if (parse_string_raw(ps, &key, &key_len) != 0)
        return -1;
    skip_ws(ps);
    if (ps->p >= ps->end || *ps->p != ':') {
        free(key);
        return parse_fail(ps, "expected ':'"), -1;
    }
    ps->p++;
    jsonschema_json_t *value = parse_value(ps);
    if (!value || object_put(obj, key, key_len, value, keys) != 0) {
        free(key);
        jsonschema_json_free(value);
        return parse_fail(ps, "out of memory"), -1;
    }
    return 0;
}

static jsonschema_json_t *parse_object(parser_t *ps)
{
    jsonschema_json_t *obj = json_new(JSONSCHEMA_JSON_OBJECT);
    object_keys_t keys = {0};
    if (!obj)
        return parse_fail(ps, "out of memory");
    ps->p++;
    skip_ws(ps);
    if (ps->p < ps->end && *ps->p == '}') {
        ps->p++;
        return obj;
    }
    for (;;) {
        if (parse_member(ps, obj, &keys) != 0)
            break;
        skip_ws(ps);
        if (ps->p < ps->end && *ps->p == ',') {
            ps->p++;
            continue;
        }
        if (ps->p < ps->end && *ps->p == '}') {
            ps->p++;
            hmap_clear(&keys.index);
            return obj;
        }
        parse_fail(ps, "expected ',' or '}'");
        break;
    }
    hmap_clear(&keys.index);
    jsonschema_json_free(obj);
    return NULL;
}

static jsonschema_json_t *parse_string_value(parser_t *ps)
{
    jsonschema_json_t *v = json_new(JSONSCHEMA_JSON_STRING);
    if (!v)
        return parse_fail(ps, "out of memory");
    ps->p++;
    if (parse_string_raw(ps, &v->str, &v->len) != 0) {
        free(v);
        return NULL;
    }
    return v;
}

static jsonschema_json_t *parse_value(parser_t *ps)
{
    skip_ws(ps);
    if (ps->p >= ps->end)
        return parse_fail(ps, "unexpected end of input");
    if (++ps->depth > JSONSCHEMA_JSON_MAX_DEPTH)
        return parse_fail(ps, "nesting too deep");
    jsonschema_json_t *v;
    switch (*ps->p) {
    case '{': v = parse_object(ps); break;
    case '[': v = parse_array(ps); break;
    case '"': v = parse_string_value(ps); break;
    case 't': v = parse_literal(ps, "true", JSONSCHEMA_JSON_TRUE); break;
    case 'f': v = parse_literal(ps, "false", JSONSCHEMA_JSON_FALSE); break;
    case 'n': v = parse_literal(ps, "null", JSONSCHEMA_JSON_NULL); break;
    default: v = parse_number(ps); break;
    }
    ps->depth--;
    return v;
}

jsonschema_json_t *jsonschema_json_parse(const char *text, size_t len, char **error)
{
    parser_t ps = {.p = text, .end = text + len, .start = text};
    *error = NULL;
    jsonschema_json_t *v = parse_value(&ps);
    if (v) {
        skip_ws(&ps);
        if (ps.p < ps.end) {
            jsonschema_json_free(v);
            v = parse_fail(&ps, "trailing characters after the document");
        }
    }
    if (!v)
        *error = ps.error ? ps.error : strdup("Invalid JSON: out of memory");
    return v;
}

/* ---- 3. Numbers ------------------------------------------------------------ */

/*
 * The text Jackson prints for a number read with USE_BIG_DECIMAL_FOR_FLOATS:
 * integers as written ("-0" becomes "0"), decimals as BigDecimal.toString()
 * of the exact value with the scale as written ("1.50" stays, "1e2" becomes
 * "1E+2", "0.0000001" becomes "1E-7").
 */
static int jackson_integer_text(const char *lexeme, size_t len, char **out)
{
    int negative_zero = len == 2 && lexeme[0] == '-' && lexeme[1] == '0';
    *out = negative_zero ? strdup("0") : strndup(lexeme, len);
    return 0;
}

static int jackson_number_text(const char *lexeme, size_t len, char **out)
{
    int integer = !memchr(lexeme, '.', len) && !memchr(lexeme, 'e', len) && !memchr(lexeme, 'E', len);
    if (integer)
        return jackson_integer_text(lexeme, len, out);
    const char *p = lexeme, *end = lexeme + len;
    int negative = *p == '-';
    if (negative)
        p++;
    /* Unscaled digits and the scale (digits after the point minus the exponent). */
    char *digits = malloc(len + 1);
    if (!digits)
        return -1;
    size_t nd = 0;
    long long scale = 0;
    for (; p < end && *p != 'e' && *p != 'E'; p++) {
        if (*p == '.') {
            for (p++; p < end && isdigit((unsigned char)*p); p++) {
                digits[nd++] = *p;
                scale++;
            }
            break;
        }
        digits[nd++] = *p;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        /* The lexeme is not NUL-terminated: read the exponent by hand. */
        int exp_negative = 0;
        long long exp = 0;
        if (++p < end && (*p == '+' || *p == '-'))
            exp_negative = *p++ == '-';
        for (; p < end; p++) {
            exp = exp * 10 + (*p - '0');
            if (exp > 999999999LL) {
                free(digits);
                return -1;
            }
        }
        scale -= exp_negative ? -exp : exp;
    }
    size_t skip = 0;
    while (skip + 1 < nd && digits[skip] == '0')
        skip++;
    const char *coeff = digits + skip;
    size_t nc = nd - skip;
    int zero = nc == 1 && coeff[0] == '0';
    long long adjusted = -scale + (long long)(nc - 1);
    char *text = NULL;
    int rc;
    const char *sign = negative && !zero ? "-" : "";
    if (scale == 0) {
        rc = asprintf(&text, "%s%.*s", sign, (int)nc, coeff);
    } else if (scale > 0 && adjusted >= -6 && (long long)nc > scale) {
        rc = asprintf(&text, "%s%.*s.%.*s", sign, (int)(nc - (size_t)scale), coeff, (int)scale,
                      coeff + nc - (size_t)scale);
    } else if (scale > 0 && adjusted >= -6) {
        /* Below one: "0." then the leading zeros the scale implies. */
        int zeros = (int)(scale - (long long)nc);
        rc = asprintf(&text, "%s0.%.*s%.*s", sign, zeros, "000000", (int)nc, coeff);
    } else {
        rc = asprintf(&text, "%s%c%s%.*sE%s%lld", sign, coeff[0], nc > 1 ? "." : "", (int)(nc - 1), coeff + 1,
                      adjusted >= 0 ? "+" : "", adjusted);
    }
    free(digits);
    if (rc < 0)
        return -1;
    *out = text;
    return 0;
}

/* ---- 4. Printing ---------------------------------------------------------- */

static int dump_string(strbuf_t *b, const char *s, size_t len)
{
    static const char hexdig[] = "0123456789ABCDEF";
    if (put(b, "\"", 1) != 0)
        return -1;
    size_t run = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c != '"' && c != '\\')
            continue;
        if (put(b, s + run, i - run) != 0)
            return -1;
        run = i + 1;
        char esc[7] = {'\\', 0};
        size_t n = 2;
        switch (c) {
        case '"': esc[1] = '"'; break;
        case '\\': esc[1] = '\\'; break;
        case '\b': esc[1] = 'b'; break;
        case '\t': esc[1] = 't'; break;
        case '\n': esc[1] = 'n'; break;
        case '\f': esc[1] = 'f'; break;
        case '\r': esc[1] = 'r'; break;
        default:
            memcpy(esc + 1, "u00", 3);
            esc[4] = hexdig[c >> 4];
            esc[5] = hexdig[c & 15];
            n = 6;
        }
        if (put(b, esc, n) != 0)
            return -1;
    }
    if (put(b, s + run, len - run) != 0)
        return -1;
    return put(b, "\"", 1);
}

static int dump_value(strbuf_t *b, const jsonschema_json_t *v)
{
    switch (v->kind) {
    case JSONSCHEMA_JSON_NULL: return put(b, "null", 4);
    case JSONSCHEMA_JSON_FALSE: return put(b, "false", 5);
    case JSONSCHEMA_JSON_TRUE: return put(b, "true", 4);
    case JSONSCHEMA_JSON_NUMBER: return put(b, v->str, v->len);
    case JSONSCHEMA_JSON_STRING: return dump_string(b, v->str, v->len);
    case JSONSCHEMA_JSON_ARRAY:
        if (put(b, "[", 1) != 0)
            return -1;
        for (size_t i = 0; i < v->n; i++) {
            if ((i && put(b, ",", 1) != 0) || dump_value(b, v->elems[i]) != 0)
                return -1;
        }
        return put(b, "]", 1);
    case JSONSCHEMA_JSON_OBJECT:
        if (put(b, "{", 1) != 0)
            return -1;
        for (size_t i = 0; i < v->n; i++) {
            const jsonschema_member_t *m = &v->members[i];
            if ((i && put(b, ",", 1) != 0) || dump_string(b, m->key, m->key_len) != 0 ||
                put(b, ":", 1) != 0 || dump_value(b, m->value) != 0)
                return -1;
        }
        return put(b, "}", 1);
    }
    return -1;
}

char *jsonschema_json_dump(const jsonschema_json_t *v)
{
    strbuf_t b = {0};
    if (dump_value(&b, v) != 0) {
        strbuf_free(&b);
        return NULL;
    }
    return strbuf_take(&b);
}

/* ---- 5. Sorting, equality ------------------------------------------------- */

static int member_cmp(const void *x, const void *y)
{
    const jsonschema_member_t *a = x, *b = y;
    return utf8_java_cmpn(a->key, a->key_len, b->key, b->key_len); /* Java's String.compareTo */
}

void jsonschema_json_sort_keys(jsonschema_json_t *v)
{
    if (v->kind == JSONSCHEMA_JSON_ARRAY) {
        for (size_t i = 0; i < v->n; i++)
            jsonschema_json_sort_keys(v->elems[i]);
    } else if (v->kind == JSONSCHEMA_JSON_OBJECT) {
        if (v->n > 1)
            qsort(v->members, v->n, sizeof *v->members, member_cmp);
        for (size_t i = 0; i < v->n; i++)
            jsonschema_json_sort_keys(v->members[i].value);
    }
}

static int numbers_equal(const jsonschema_json_t *a, const jsonschema_json_t *b)
{
    if (a->is_integer && b->is_integer)
        return a->len == b->len && memcmp(a->str, b->str, a->len) == 0;
    if (a->is_integer != b->is_integer)
        return 0;
    return a->num == b->num || (a->len == b->len && memcmp(a->str, b->str, a->len) == 0);
}

static const jsonschema_json_t *member_value(const jsonschema_json_t *obj, const char *key, size_t key_len)
{
    for (size_t i = 0; i < obj->n; i++) {
        if (obj->members[i].key_len == key_len && memcmp(obj->members[i].key, key, key_len) == 0)
            return obj->members[i].value;
    }
    return NULL;
}

int jsonschema_json_equal(const jsonschema_json_t *a, const jsonschema_json_t *b)
{
    if (a == b)
        return 1;
    if (!a || !b || a->kind != b->kind)
        return 0;
    switch (a->kind) {
    case JSONSCHEMA_JSON_NUMBER: return numbers_equal(a, b);
    case JSONSCHEMA_JSON_STRING: return a->len == b->len && memcmp(a->str, b->str, a->len) == 0;
    case JSONSCHEMA_JSON_ARRAY:
        if (a->n != b->n)
            return 0;
        for (size_t i = 0; i < a->n; i++) {
            if (!jsonschema_json_equal(a->elems[i], b->elems[i]))
                return 0;
        }
        return 1;
    case JSONSCHEMA_JSON_OBJECT:
        if (a->n != b->n)
            return 0;
        for (size_t i = 0; i < a->n; i++) {
            const jsonschema_member_t *m = &a->members[i];
            if (!jsonschema_json_equal(m->value, member_value(b, m->key, m->key_len)))
                return 0;
        }
        return 1;
    default: return 1;
    }
}
