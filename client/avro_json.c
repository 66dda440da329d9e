/*
 * avro_json: how Avro values look as JSON rows, shared by the decoder
 * (avro_decode.c) and the encoder (avro_encode.c) so that what one writes
 * the other reads (client.h, section 3; docs/decoding.md "JSON rows").
 *
 * Contents
 *   1. Strings (UTF-8 checked) and base64
 *   2. Numbers: shortest round-trip doubles and floats
 *   3. Logical types: dates and times, decimals
 */
#include "client/internal.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- 1. Strings and base64 ------------------------------------------------ */

/* The length of the valid UTF-8 sequence at s (at most n bytes), or 0. */
static size_t json_utf8_len(const uint8_t *s, size_t n)
{
    uint8_t c = s[0];
    size_t len;
    uint32_t min, cp;
    if (c < 0x80)
        return 1;
    if ((c & 0xe0) == 0xc0)
        len = 2, min = 0x80, cp = c & 0x1f;
    else if ((c & 0xf0) == 0xe0)
        len = 3, min = 0x800, cp = c & 0x0f;
    else if ((c & 0xf8) == 0xf0)
        len = 4, min = 0x10000, cp = c & 0x07;
    else
        return 0;
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

/* Invalid UTF-8 becomes U+FFFD, as Java's new String(bytes, UTF_8) reads it. */
void cl_json_string(strbuf_t *b, const uint8_t *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    size_t i = 0;
    while (i < n && s[i] >= 0x20 && s[i] < 0x80 && s[i] != '"' && s[i] != '\\')
        i++;
    if (i == n && b->cap - b->len > n + 2) {
        /* Most strings need no escape: one copy, no call per piece. */
        char *o = b->data + b->len;
        o[0] = '"';
        memcpy(o + 1, s, n);
        o[n + 1] = '"';
        o[n + 2] = '\0';
        b->len += n + 2;
        return;
    }
    strbuf_putc(b, '"');
    i = 0;
    while (i < n) {
        size_t run = i;
        while (run < n && s[run] >= 0x20 && s[run] < 0x80 && s[run] != '"' && s[run] != '\\')
            run++;
        if (run > i) {
            strbuf_put(b, (const char *)s + i, run - i);
            i = run;
            continue;
        }
        uint8_t c = s[i];
        if (c >= 0x80) {
            size_t l = json_utf8_len(s + i, n - i);
            if (l == 0) {
                strbuf_puts(b, "\\ufffd");
                i++;
            } else {
                strbuf_put(b, (const char *)s + i, l);
                i += l;
            }
            continue;
        }
        switch (c) {
        case '"': strbuf_puts(b, "\\\""); break;
        case '\\': strbuf_puts(b, "\\\\"); break;
        case '\n': strbuf_puts(b, "\\n"); break;
        case '\r': strbuf_puts(b, "\\r"); break;
        case '\t': strbuf_puts(b, "\\t"); break;
        default: {
            char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            strbuf_put(b, e, 6);
        }
        }
        i++;
    }
    strbuf_putc(b, '"');
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void srclient_base64_encode(strbuf_t *b, const uint8_t *s, size_t n)
{
    char q[4];
    size_t i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)s[i] << 16 | (uint32_t)s[i + 1] << 8 | s[i + 2];
        q[0] = b64[v >> 18], q[1] = b64[(v >> 12) & 63], q[2] = b64[(v >> 6) & 63], q[3] = b64[v & 63];
        strbuf_put(b, q, 4);
    }
    if (i < n) {
        uint32_t v = (uint32_t)s[i] << 16 | (i + 1 < n ? (uint32_t)s[i + 1] << 8 : 0);
        q[0] = b64[v >> 18], q[1] = b64[(v >> 12) & 63];
        q[2] = i + 1 < n ? b64[(v >> 6) & 63] : '=';
        q[3] = '=';
        strbuf_put(b, q, 4);
    }
}

void cl_json_base64(strbuf_t *b, const uint8_t *s, size_t n)
{
    strbuf_putc(b, '"');
    srclient_base64_encode(b, s, n);
    strbuf_putc(b, '"');
}

int srclient_base64_decode(const char *s, size_t n, strbuf_t *out)
{
    uint32_t acc = 0;
    int bits = 0;
    size_t pad = 0;
    if (n % 4 != 0)
        return -1;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '=') {
            pad++;
            continue;
        }
        const char *p = c ? strchr(b64, c) : NULL;
        if (!p || pad)
            return -1;
        acc = acc << 6 | (uint32_t)(p - b64);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            strbuf_putc(out, (char)(acc >> bits));
        }
    }
    return pad > 2 ? -1 : 0;
}

/* ---- 2. Numbers --------------------------------------------------------------- */

static int json_special(strbuf_t *b, double v)
{
    if (isnan(v))
        strbuf_puts(b, "\"NaN\"");
    else if (isinf(v))
        strbuf_puts(b, v > 0 ? "\"Infinity\"" : "\"-Infinity\"");
    else
        return 0;
    return 1;
}

/* Appends v's decimal digits; s has room for 21 bytes. */
static size_t json_itoa(char *s, int64_t v)
{
    char t[20];
    uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;
    size_t n = 0, i = 0;
    do
        t[n++] = (char)('0' + u % 10);
    while ((u /= 10) != 0);
    if (v < 0)
        s[i++] = '-';
    while (n)
        s[i++] = t[--n];
    return i;
}

/*
 * The common double without printf: a value that is m / 10^k exactly as
 * IEEE division rounds it, for the least k <= 8 and |m| < 10^15, at
 * 10^-4 <= |v| < 10^15. Then the decimal m.10^-k has at most 15 significant
 * digits and reads back as v (strtod rounds correctly, as the division did),
 * so "%.15g" below would print exactly these digits in fixed notation, and
 * this writes the same text. Anything else (0, -0, tiny, huge, 16 and 17
 * digits) takes the general path. 0 when not written.
 */
static int json_double_fixed(strbuf_t *b, double v)
{
    static const double p10[] = {1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8};
    double a = fabs(v);
    if (!(a >= 1e-4 && a < 1e15))
        return 0;
    for (int k = 0; k <= 8; k++) {
        double t = nearbyint(v * p10[k]);
        if (fabs(t) >= 1e15)
            return 0;
        if (t / p10[k] != v)
            continue;
        char digits[24], s[32];
        int64_t m = (int64_t)t;
        size_t nd = json_itoa(digits, m < 0 ? -m : m), o = 0;
        if (m < 0)
            s[o++] = '-';
        if (nd <= (size_t)k) { /* 0.000ddd */
            s[o++] = '0';
            s[o++] = '.';
            for (size_t z = nd; z < (size_t)k; z++)
                s[o++] = '0';
            memcpy(s + o, digits, nd);
            o += nd;
        } else {
            memcpy(s + o, digits, nd - (size_t)k);
            o += nd - (size_t)k;
            if (k) {
                s[o++] = '.';
                memcpy(s + o, digits + nd - (size_t)k, (size_t)k);
                o += (size_t)k;
            }
        }
        strbuf_put(b, s, o);
        return 1;
    }
    return 0;
}

void cl_json_double(strbuf_t *b, double v)
{
    if (json_special(b, v) || json_double_fixed(b, v))
        return;
    char s[40];
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(s, sizeof(s), "%.*g", prec, v);
        if (strtod(s, NULL) == v)
            break;
    }
    strbuf_puts(b, s);
}

/* A float's exact value, as the double it widens to: 2^40 prints as
 * 1099511627776, not as Float.toString's 1.09951163E12, whose digits
 * name another double to every JSON reader. */
void cl_json_float(strbuf_t *b, float v)
{
    cl_json_double(b, (double)v);
}

void cl_json_float_shortest(strbuf_t *b, float v)
{
    if (json_special(b, v))
        return;
    char s[40];
    for (int prec = 6; prec <= 9; prec++) {
        snprintf(s, sizeof(s), "%.*g", prec, (double)v);
        if (strtof(s, NULL) == v)
            break;
    }
    strbuf_puts(b, s);
}

/* ---- 3. Logical types ---------------------------------------------------------- */

/* Howard Hinnant's civil_from_days: the proleptic Gregorian calendar. */
void cl_civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t yy = (int64_t)yoe + era * 400;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = yy + (*m <= 2);
}

int64_t cl_days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

static int64_t floor_div(int64_t a, int64_t b, int64_t *rem)
{
    int64_t q = a / b, r = a % b;
    if (r < 0)
        r += b, q--;
    *rem = r;
    return q;
}

/* Units per second of the time logical types, and whether they carry a zone. */
static int logical_units(avro_logical_t l, int64_t *per_second, int *digits, int *zulu, int *is_time)
{
    *zulu = 0;
    *is_time = 0;
    switch (l) {
    case AVRO_LOGICAL_TIME_MILLIS:
        *is_time = 1;
        /* fall through */
    case AVRO_LOGICAL_LOCAL_TIMESTAMP_MILLIS: *per_second = 1000, *digits = 3; break;
    case AVRO_LOGICAL_TIME_MICROS:
        *is_time = 1;
        /* fall through */
    case AVRO_LOGICAL_LOCAL_TIMESTAMP_MICROS: *per_second = 1000000, *digits = 6; break;
    case AVRO_LOGICAL_LOCAL_TIMESTAMP_NANOS: *per_second = 1000000000, *digits = 9; break;
    case AVRO_LOGICAL_TIMESTAMP_MILLIS: *per_second = 1000, *digits = 3, *zulu = 1; break;
    case AVRO_LOGICAL_TIMESTAMP_MICROS: *per_second = 1000000, *digits = 6, *zulu = 1; break;
    case AVRO_LOGICAL_TIMESTAMP_NANOS: *per_second = 1000000000, *digits = 9, *zulu = 1; break;
    default: return 0;
    }
    return 1;
}

void cl_json_integer(strbuf_t *b, avro_logical_t l, int64_t v)
{
    int64_t per_second, rem, y;
    int digits, zulu, is_time;
    unsigned m, d;
    if (l == AVRO_LOGICAL_DATE) {
        cl_civil_from_days(v, &y, &m, &d);
        strbuf_printf(b, "\"%04" PRId64 "-%02u-%02u\"", y, m, d);
        return;
    }
    if (!logical_units(l, &per_second, &digits, &zulu, &is_time) ||
        (is_time && (v < 0 || v >= 86400 * per_second))) {
        char s[24];
        strbuf_put(b, s, json_itoa(s, v));
        return;
    }
    int64_t secs = floor_div(v, per_second, &rem);
    int64_t day_secs;
    int64_t days = floor_div(secs, 86400, &day_secs);
    strbuf_putc(b, '"');
    if (!is_time) {
        cl_civil_from_days(days, &y, &m, &d);
        strbuf_printf(b, "%04" PRId64 "-%02u-%02uT", y, m, d);
    }
    strbuf_printf(b, "%02d:%02d:%02d.%0*" PRId64 "%s\"", (int)(day_secs / 3600), (int)(day_secs / 60 % 60),
                  (int)(day_secs % 60), digits, rem, zulu ? "Z" : "");
}

/* Reads "HH:MM:SS[.frac]" at s; seconds of the day and the fraction in units. */
static const char *parse_clock(const char *s, int64_t per_second, int digits, int64_t *secs, int64_t *frac)
{
    int hh, mm, ss, n = 0;
    if (sscanf(s, "%2d:%2d:%2d%n", &hh, &mm, &ss, &n) != 3 || n != 8 || hh > 23 || mm > 59 || ss > 59)
        return NULL;
    s += n;
    *secs = hh * 3600 + mm * 60 + ss;
    *frac = 0;
    if (*s == '.') {
        s++;
        int k = 0;
        while (*s >= '0' && *s <= '9') {
            if (k < digits)
                *frac = *frac * 10 + (*s - '0');
            k++, s++;
        }
        if (k == 0)
            return NULL;
        for (; k < digits; k++)
            *frac *= 10;
    }
    (void)per_second;
    return s;
}

int cl_parse_logical(avro_logical_t l, const char *s, int64_t *out)
{
    /* A date sets none of the units (logical_units is not called for it). */
    int64_t per_second = 1, secs = 0, frac = 0;
    int digits = 0, zulu = 0, is_time = 0;
    if (l == AVRO_LOGICAL_DATE || logical_units(l, &per_second, &digits, &zulu, &is_time)) {
        int64_t days = 0;
        if (l == AVRO_LOGICAL_DATE || !is_time) {
            /* The year as the decoder prints it: four digits or more, signed
             * before year 0 (a long of milliseconds reaches year 292,278,994). */
            char *end;
            errno = 0;
            long long y = strtoll(s, &end, 10);
            int m, d, n = 0;
            if (errno || end - s < 4 || y < -300000000 || y > 300000000 ||
                sscanf(end, "-%2d-%2d%n", &m, &d, &n) != 2 || n != 6 || m < 1 || m > 12 || d < 1 || d > 31)
                return -1;
            s = end + n;
            days = cl_days_from_civil(y, (unsigned)m, (unsigned)d);
            if (l == AVRO_LOGICAL_DATE) {
                *out = days;
                return *s ? -1 : 0;
            }
            if (*s != 'T' && *s != ' ')
                return -1;
            s++;
        }
        s = parse_clock(s, per_second, digits, &secs, &frac);
        if (!s)
            return -1;
        if (*s == 'Z' && zulu)
            s++;
        if (*s)
            return -1;
        int64_t t;
        if (__builtin_mul_overflow(days, 86400, &t) || __builtin_add_overflow(t, secs, &t) ||
            __builtin_mul_overflow(t, per_second, &t) || __builtin_add_overflow(t, frac, &t))
            return -1;
        *out = t;
        return 0;
    }
    return -1;
}

/* Decimals: a two's-complement big-endian unscaled integer and a scale.
 * Digits by long division, so the cost is quadratic in the length: the
 * caller bounds it (CL_DECIMAL_MAX_BYTES). */
int cl_json_decimal(strbuf_t *b, const uint8_t *s, size_t n, int scale)
{
    if (n > CL_DECIMAL_MAX_BYTES)
        return -1;
    if (n == 0) {
        strbuf_putc(b, '0');
        return 0;
    }
    uint8_t mag[CL_DECIMAL_MAX_BYTES];
    int neg = s[0] & 0x80;
    memcpy(mag, s, n);
    if (neg) {
        /* Two's complement: invert and add one. */
        int carry = 1;
        for (size_t i = n; i-- > 0;) {
            int v = (uint8_t)~mag[i] + carry;
            mag[i] = (uint8_t)v;
            carry = v >> 8;
        }
    }
    char digits[CL_DECIMAL_MAX_BYTES * 3 + 2];
    size_t nd = 0, start = 0;
    while (start < n && mag[start] == 0)
        start++;
    while (start < n) {
        unsigned rem = 0;
        for (size_t i = start; i < n; i++) {
            unsigned cur = rem << 8 | mag[i];
            mag[i] = (uint8_t)(cur / 10);
            rem = cur % 10;
        }
        digits[nd++] = (char)('0' + rem);
        while (start < n && mag[start] == 0)
            start++;
    }
    if (nd == 0)
        digits[nd++] = '0';
    if (neg)
        strbuf_putc(b, '-');
    /* digits are least significant first */
    if (scale <= 0) {
        for (size_t i = nd; i-- > 0;)
            strbuf_putc(b, digits[i]);
        for (int i = 0; i < -scale; i++)
            strbuf_putc(b, '0');
        return 0;
    }
    size_t sc = (size_t)scale;
    if (nd <= sc) {
        strbuf_puts(b, "0.");
        for (size_t i = nd; i < sc; i++)
            strbuf_putc(b, '0');
        for (size_t i = nd; i-- > 0;)
            strbuf_putc(b, digits[i]);
        return 0;
    }
    for (size_t i = nd; i-- > 0;) {
        strbuf_putc(b, digits[i]);
        if (i == sc)
            strbuf_putc(b, '.');
    }
    return 0;
}

int cl_parse_decimal(const char *s, int scale, strbuf_t *out)
{
    int neg = 0;
    if (*s == '-' || *s == '+')
        neg = *s++ == '-';
    uint8_t mag[CL_DECIMAL_MAX_BYTES + 1] = {0}; /* big-endian magnitude */
    size_t n = sizeof(mag);
    int frac = -1, any = 0;
    for (; *s; s++) {
        if (*s == '.' && frac < 0) {
            frac = 0;
            continue;
        }
        if (*s < '0' || *s > '9')
            return -1;
        if (frac >= 0 && frac >= scale) {
            if (*s != '0')
                return -1; /* more digits than the scale holds */
            continue;
        }
        if (frac >= 0)
            frac++;
        any = 1;
        unsigned carry = (unsigned)(*s - '0');
        for (size_t i = n; i-- > 0;) {
            unsigned v = mag[i] * 10u + carry;
            mag[i] = (uint8_t)v;
            carry = v >> 8;
        }
        if (carry || mag[0])
            return -1;
    }
    if (!any)
        return -1;
    for (int k = frac < 0 ? 0 : frac; k < scale; k++) {
        unsigned carry = 0;
        for (size_t i = n; i-- > 0;) {
            unsigned v = mag[i] * 10u + carry;
            mag[i] = (uint8_t)v;
            carry = v >> 8;
        }
        if (carry || mag[0])
            return -1;
    }
    if (neg) {
        int carry = 1;
        for (size_t i = n; i-- > 0;) {
            int v = (uint8_t)~mag[i] + carry;
            mag[i] = (uint8_t)v;
            carry = v >> 8;
        }
    }
    /* The shortest two's-complement form: drop leading bytes that only repeat the sign. */
    size_t start = 0;
    while (start + 1 < n &&
           ((mag[start] == 0 && !(mag[start + 1] & 0x80)) || (mag[start] == 0xff && (mag[start + 1] & 0x80))))
        start++;
    strbuf_put(out, (const char *)mag + start, n - start);
    return 0;
}
