/*
 * avro_number: Java's number text, because Jackson writes doubles with
 * Double.toString and Avro reads textual float defaults with
 * Double.parseDouble.
 *
 * Digits are the shortest decimal that reads back to the same value (the
 * JDK 19+ definition), with at least two significant digits when one would
 * do, as the JDK specifies.
 */
#include "compat/avro/internal.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Decimal digits (no dot, no sign) and exponent of a positive finite value:
 * v = d.ddd x 10^exp10. */
typedef struct java_digits {
    char d[32];
    int n;
    int exp10;
} java_digits_t;

static void digits_from_sci(const char *sci, java_digits_t *out)
{
    out->n = 0;
    const char *p = sci;
    for (; *p && *p != 'e'; p++)
        if (isdigit((unsigned char)*p))
            out->d[out->n++] = *p;
    out->exp10 = *p == 'e' ? atoi(p + 1) : 0;
    while (out->n > 1 && out->d[out->n - 1] == '0')
        out->n--;
    out->d[out->n] = '\0';
}

static int reads_back(const char *text, double v, int is_float)
{
    if (is_float)
        return strtof(text, NULL) == (float)v;
    return strtod(text, NULL) == v;
}

static void shortest_digits(double v, int is_float, java_digits_t *out)
{
    char sci[48];
    int max = is_float ? 9 : 17;
    int prec = 1;
    for (; prec < max; prec++) {
        snprintf(sci, sizeof sci, "%.*e", prec - 1, v);
        if (reads_back(sci, v, is_float))
            break;
    }
    /* One digit is never printed alone: the closest two-digit decimal is. */
    snprintf(sci, sizeof sci, "%.*e", (prec < 2 ? 2 : prec) - 1, v);
    digits_from_sci(sci, out);
}

static void write_plain(strbuf_t *b, const java_digits_t *dg)
{
    if (dg->exp10 < 0) {
        strbuf_puts(b, "0.");
        for (int i = -1; i > dg->exp10; i--)
            strbuf_putc(b, '0');
        strbuf_put(b, dg->d, (size_t)dg->n);
        return;
    }
    int int_len = dg->exp10 + 1;
    for (int i = 0; i < int_len; i++)
        strbuf_putc(b, i < dg->n ? dg->d[i] : '0');
    strbuf_putc(b, '.');
    if (dg->n > int_len)
        strbuf_put(b, dg->d + int_len, (size_t)(dg->n - int_len));
    else
        strbuf_putc(b, '0');
}

static void write_scientific(strbuf_t *b, const java_digits_t *dg)
{
    strbuf_putc(b, dg->d[0]);
    strbuf_putc(b, '.');
    if (dg->n > 1)
        strbuf_put(b, dg->d + 1, (size_t)(dg->n - 1));
    else
        strbuf_putc(b, '0');
    strbuf_printf(b, "E%d", dg->exp10);
}

static void write_java_number(strbuf_t *b, double v, int is_float)
{
    if (isnan(v)) {
        strbuf_puts(b, "NaN");
        return;
    }
    if (signbit(v))
        strbuf_putc(b, '-');
    v = fabs(v);
    if (isinf(v)) {
        strbuf_puts(b, "Infinity");
        return;
    }
    if (v == 0) {
        strbuf_puts(b, "0.0");
        return;
    }
    java_digits_t dg;
    shortest_digits(v, is_float, &dg);
    if (dg.exp10 >= -3 && dg.exp10 < 7)
        write_plain(b, &dg);
    else
        write_scientific(b, &dg);
}

void avro_buf_java_double(strbuf_t *b, double v)
{
    write_java_number(b, v, 0);
}

void avro_buf_java_float(strbuf_t *b, float v)
{
    write_java_number(b, (double)v, 1);
}

/* ---- Double.parseDouble ---------------------------------------------------- */

static const char *skip_digits(const char *p, int (*is_digit)(int), int *count)
{
    while (is_digit((unsigned char)*p)) {
        p++;
        (*count)++;
    }
    return p;
}

static int is_dec(int c)
{
    return c >= '0' && c <= '9';
}

/* The end of a hex float body ("0x1.8p3"), or NULL. Java requires the 'p'. */
static const char *scan_hex(const char *p)
{
    int digits = 0;
    p = skip_digits(p + 2, isxdigit, &digits);
    if (*p == '.')
        p = skip_digits(p + 1, isxdigit, &digits);
    if (!digits || (*p != 'p' && *p != 'P'))
        return NULL;
    p++;
    if (*p == '+' || *p == '-')
        p++;
    int exp_digits = 0;
    p = skip_digits(p, is_dec, &exp_digits);
    return exp_digits ? p : NULL;
}

/* The end of a decimal body ("1.5e3", ".5", "1."), or NULL. */
static const char *scan_decimal(const char *p)
{
    int digits = 0;
    p = skip_digits(p, is_dec, &digits);
    if (*p == '.')
        p = skip_digits(p + 1, is_dec, &digits);
    if (!digits)
        return NULL;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        int exp_digits = 0;
        p = skip_digits(p, is_dec, &exp_digits);
        if (!exp_digits)
            return NULL;
    }
    return p;
}

static int parse_special(const char *body, size_t len, int negative, double *out)
{
    if (len == 3 && memcmp(body, "NaN", 3) == 0) {
        *out = NAN;
        return 0;
    }
    if (len == 8 && memcmp(body, "Infinity", 8) == 0) {
        *out = negative ? -INFINITY : INFINITY;
        return 0;
    }
    return -1;
}

int avro_java_parse_double(const char *s, double *out)
{
    /* String.trim(): every char <= ' ' at both ends. */
    while (*s && (unsigned char)*s <= ' ')
        s++;
    size_t len = strlen(s);
    while (len && (unsigned char)s[len - 1] <= ' ')
        len--;
    if (!len)
        return -1;
    const char *body = s;
    int negative = *body == '-';
    if (*body == '+' || *body == '-')
        body++;
    size_t body_len = len - (size_t)(body - s);
    if (parse_special(body, body_len, negative, out) == 0)
        return 0;
    int hex = body[0] == '0' && (body[1] == 'x' || body[1] == 'X');
    const char *end = hex ? scan_hex(body) : scan_decimal(body);
    if (!end)
        return -1;
    size_t rest = len - (size_t)(end - s);
    if (rest > 1 || (rest == 1 && !strchr("fFdD", *end)))
        return -1;
    char *copy = strndup(s, (size_t)(end - s));
    if (!copy)
        return -1;
    *out = strtod(copy, NULL);
    free(copy);
    return 0;
}
