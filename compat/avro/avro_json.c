/*
 * avro_json: JSON input read the way Jackson reads it for Avro, on top of
 * jansson. Two things jansson does not do by default:
 *
 *   - U+0000 inside strings (the usual default of a fixed or bytes field is
 *     "\u0000\u0000"): loaded with JSON_ALLOW_NUL, and every reader of a
 *     string takes its length (avro_json_text), never strlen.
 *   - integers beyond the int64 range, which Jackson keeps as a
 *     BigIntegerNode and Avro writes back digit for digit: jansson refuses
 *     them ("too big integer"), and JSON_DECODE_INT_AS_REAL would lose digits.
 *
 * The big integers are rewritten before jansson sees them: each token becomes
 * a string of exactly K U+0000 characters followed by its digits, K being
 * the smallest count of leading U+0000 that no string of the document starts
 * with (U+0000 only comes from the escape \u0000, so the scan sees every
 * one), so no string of the input can look like one. After loading, each
 * such string becomes its digits behind one 0xFF byte. jansson validates the
 * UTF-8 of what it reads, and 0xFF is never UTF-8, so that mark cannot come
 * from the input either: a big integer is then a string value to jansson and
 * a number to every reader here (avro_json_is_bigint, avro_buf_json_value).
 *
 * K is at most MARK_MAX, which bounds the rewritten text to a few times the
 * input; a document whose strings start with every count up to it, and
 * that has a big integer too, gets jansson's own "too big integer". Errors
 * jansson finds in a rewritten document give columns of the rewritten text.
 */
#include "compat/avro/internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BIGINT_MARK 0xFF
#define MARK_MAX    8

/* ---- Reading values ---------------------------------------------------------------- */

int avro_json_is_bigint(const json_t *v)
{
    return json_is_string(v) && json_string_length(v) > 0 &&
           (unsigned char)json_string_value(v)[0] == BIGINT_MARK;
}

const char *avro_json_bigint_digits(const json_t *v)
{
    return json_string_value(v) + 1;
}

const char *avro_json_text(const json_t *v, size_t *len)
{
    if (!json_is_string(v) || avro_json_is_bigint(v))
        return NULL;
    if (len)
        *len = json_string_length(v);
    return json_string_value(v);
}

/* ---- Finding the big integers ------------------------------------------------------- */

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* An integer token (no fraction, no exponent) that strtoll cannot hold, which
 * is exactly when jansson reports "too big integer". Tokens jansson refuses
 * for other reasons (leading zeros) are left to it. */
static int is_big_integer(const char *tok, size_t n)
{
    size_t d = tok[0] == '-';
    if (n - d < 19)
        return 0;
    for (size_t i = d; i < n; i++)
        if (!is_digit(tok[i]))
            return 0;
    if (tok[d] == '0')
        return 0;
    char buf[32];
    if (n >= sizeof buf)
        return 1;
    memcpy(buf, tok, n);
    buf[n] = '\0';
    errno = 0;
    (void)strtoll(buf, NULL, 10);
    return errno == ERANGE;
}

typedef struct scan {
    unsigned char used[MARK_MAX + 1]; /* used[k]: a string starts with exactly k U+0000 */
    size_t n_big;
} scan_t;

/* The end of the string literal opening at text[i] (past its closing quote),
 * counting the \u0000 escapes it starts with. */
static size_t skip_string(const char *text, size_t len, size_t i, size_t *lead)
{
    int counting = 1;
    *lead = 0;
    for (i++; i < len && text[i] != '"'; i++) {
        if (text[i] != '\\') {
            counting = 0;
            continue;
        }
        if (counting && len - i >= 6 && memcmp(text + i, "\\u0000", 6) == 0) {
            (*lead)++;
            i += 5;
            continue;
        }
        counting = 0;
        i++;
    }
    return i < len ? i + 1 : len;
}

static size_t number_end(const char *text, size_t len, size_t i)
{
    while (i < len && (is_digit(text[i]) || memchr("+-.eE", text[i], 5)))
        i++;
    return i;
}

/* Gets the whole text in order, as plain runs (big 0) and big-integer tokens (big 1). */
typedef void (*scan_emit_fn)(void *arg, const char *text, size_t start, size_t end, int big);

/* Fills s (which strings start with how many U+0000, how many big integers);
 * with emit, also hands the text over in runs. */

static void scan_text(const char *text, size_t len, scan_t *s, scan_emit_fn emit, void *arg)
{
    size_t run = 0, i = 0;
    while (i < len) {
        char c = text[i];
        if (c == '"') {
            size_t lead;
            i = skip_string(text, len, i, &lead);
            if (lead <= MARK_MAX)
                s->used[lead] = 1;
        } else if (c == '-' || is_digit(c)) {
            size_t end = number_end(text, len, i);
            if (is_big_integer(text + i, end - i)) {
                s->n_big++;
                if (emit) {
                    emit(arg, text, run, i, 0);
                    emit(arg, text, i, end, 1);
                }
                run = end;
            }
            i = end;
        } else {
            i++;
        }
    }
    if (emit)
        emit(arg, text, run, len, 0);
}

typedef struct rewrite {
    strbuf_t b;
    size_t mark_len; /* K */
} rewrite_t;

static void rewrite_emit(void *arg, const char *text, size_t start, size_t end, int big)
{
    rewrite_t *r = arg;
    if (!big) {
        strbuf_put(&r->b, text + start, end - start);
        return;
    }
    strbuf_putc(&r->b, '"');
    for (size_t k = 0; k < r->mark_len; k++)
        strbuf_puts(&r->b, "\\u0000");
    strbuf_put(&r->b, text + start, end - start);
    strbuf_putc(&r->b, '"');
}

/* ---- After loading: marked strings become big integers -------------------------------- */

/* The replacement for v when it is a rewritten big integer (exactly k U+0000,
 * then the token), else NULL (*failed on out of memory). */
static json_t *unmark(const json_t *v, size_t k, int *failed)
{
    if (!json_is_string(v) || json_string_length(v) <= k)
        return NULL;
    const char *s = json_string_value(v);
    for (size_t i = 0; i < k; i++)
        if (s[i] != '\0')
            return NULL;
    if (s[k] != '-' && !is_digit(s[k]))
        return NULL;
    size_t n = json_string_length(v) - k;
    char *buf = malloc(n + 1);
    json_t *big = NULL;
    if (buf) {
        buf[0] = (char)BIGINT_MARK;
        memcpy(buf + 1, s + k, n);
        big = json_stringn_nocheck(buf, n + 1);
        free(buf);
    }
    if (!big)
        *failed = 1;
    return big;
}

static void unmark_tree(json_t *v, size_t k, int *failed)
{
    if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v) && !*failed; i++) {
            json_t *e = json_array_get(v, i);
            json_t *big = unmark(e, k, failed);
            if (big)
                json_array_set_new(v, i, big);
            else
                unmark_tree(e, k, failed);
        }
    } else if (json_is_object(v)) {
        for (void *it = json_object_iter(v); it && !*failed; it = json_object_iter_next(v, it)) {
            json_t *e = json_object_iter_value(it);
            json_t *big = unmark(e, k, failed);
            if (big)
                json_object_iter_set_new(v, it, big);
            else
                unmark_tree(e, k, failed);
        }
    }
}

/* ---- Loading -------------------------------------------------------------------------- */

json_t *avro_json_load(const char *text, size_t len, json_error_t *je)
{
    scan_t s = {0};
    scan_text(text, len, &s, NULL, NULL);
    if (!s.n_big)
        return json_loadb(text, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, je);
    size_t k = 1;
    while (k <= MARK_MAX && s.used[k])
        k++;
    if (k > MARK_MAX)
        return json_loadb(text, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, je);
    rewrite_t r = {.mark_len = k};
    scan_t again = {0};
    scan_text(text, len, &again, rewrite_emit, &r);
    if (r.b.failed) {
        strbuf_free(&r.b);
        snprintf(je->text, sizeof je->text, "out of memory");
        je->line = je->column = -1;
        return NULL;
    }
    json_t *doc = json_loadb(r.b.data ? r.b.data : "", r.b.len, JSON_DECODE_ANY | JSON_ALLOW_NUL, je);
    strbuf_free(&r.b);
    int failed = 0;
    json_t *big = doc ? unmark(doc, r.mark_len, &failed) : NULL;
    if (big) {
        json_decref(doc);
        doc = big;
    } else if (doc) {
        unmark_tree(doc, r.mark_len, &failed);
    }
    if (failed) {
        json_decref(doc);
        snprintf(je->text, sizeof je->text, "out of memory");
        je->line = je->column = -1;
        return NULL;
    }
    return doc;
}
