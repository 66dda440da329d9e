/*
 * http_charset: see http_charset.h. Facts from Jackson's
 * ByteSourceJsonBootstrapper (detection, the marks) and UTF32Reader (what
 * UTF-32 refuses); the code is our own.
 *
 * Contents
 *   1. Detection
 *   2. Conversion to UTF-8
 *   3. The call's body
 */
#include "server/http_charset.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/alloc.h"

/* ---- 1. Detection ------------------------------------------------------ */

http_charset_t http_charset_detect(const char *body, size_t len, size_t *bom)
{
    const unsigned char *b = (const unsigned char *)body;
    *bom = 0;
    if (len >= 4) {
        uint32_t quad = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
        /* The marks: the UTF-32 ones first, since FF FE 00 00 also starts with UTF-16LE's. */
        switch (quad) {
        case 0x0000FEFFu: *bom = 4; return HTTP_CHARSET_UTF32BE;
        case 0xFFFE0000u: *bom = 4; return HTTP_CHARSET_UTF32LE;
        case 0x0000FFFEu: return HTTP_CHARSET_UCS4_2143;
        case 0xFEFF0000u: return HTTP_CHARSET_UCS4_3412;
        default: break;
        }
        if (quad >> 16 == 0xFEFFu) {
            *bom = 2;
            return HTTP_CHARSET_UTF16BE;
        }
        if (quad >> 16 == 0xFFFEu) {
            *bom = 2;
            return HTTP_CHARSET_UTF16LE;
        }
        if (quad >> 8 == 0xEFBBBFu) {
            *bom = 3;
            return HTTP_CHARSET_UTF8;
        }
        /* No mark: where the zero bytes are around the first ASCII character. */
        if (quad >> 8 == 0)
            return HTTP_CHARSET_UTF32BE;
        if ((quad & 0x00FFFFFFu) == 0)
            return HTTP_CHARSET_UTF32LE;
        if ((quad & ~0x00FF0000u) == 0)
            return HTTP_CHARSET_UCS4_3412;
        if ((quad & ~0x0000FF00u) == 0)
            return HTTP_CHARSET_UCS4_2143;
    } else if (len < 2) {
        return HTTP_CHARSET_UTF8;
    }
    /* Two bytes or more: one of the first two zero means UTF-16. Jackson
     * looks for marks only when four bytes are there, and so do we. */
    if (b[0] == 0)
        return HTTP_CHARSET_UTF16BE;
    if (b[1] == 0)
        return HTTP_CHARSET_UTF16LE;
    return HTTP_CHARSET_UTF8;
}

const char *http_charset_name(http_charset_t cs)
{
    static const char *const names[] = {
        [HTTP_CHARSET_UTF8] = "UTF-8",
        [HTTP_CHARSET_UTF16BE] = "UTF-16BE",
        [HTTP_CHARSET_UTF16LE] = "UTF-16LE",
        [HTTP_CHARSET_UTF32BE] = "UTF-32BE",
        [HTTP_CHARSET_UTF32LE] = "UTF-32LE",
        [HTTP_CHARSET_UCS4_2143] = "UCS-4 (2143)",
        [HTTP_CHARSET_UCS4_3412] = "UCS-4 (3412)",
    };
    return (unsigned)cs < sizeof names / sizeof *names ? names[cs] : "unknown";
}

/* ---- 2. Conversion to UTF-8 -------------------------------------------- */

static size_t http_charset_put_(char *out, uint32_t cp)
{
    unsigned char *o = (unsigned char *)out;
    if (cp < 0x80) {
        o[0] = (unsigned char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (unsigned char)(0xC0 | cp >> 6);
        o[1] = (unsigned char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (unsigned char)(0xE0 | cp >> 12);
        o[1] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
        o[2] = (unsigned char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (unsigned char)(0xF0 | cp >> 18);
    o[1] = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
    o[2] = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
    o[3] = (unsigned char)(0x80 | (cp & 0x3F));
    return 4;
}

static uint32_t http_charset_unit16_(const unsigned char *p, int big)
{
    return big ? (uint32_t)p[0] << 8 | p[1] : (uint32_t)p[1] << 8 | p[0];
}

/* Returns the UTF-8 length written, or -1 with why in error (at the byte offset). */
static long http_charset_from_utf16_(const unsigned char *t, size_t len, int big, char *out, char *error,
                                     size_t error_size)
{
    if (len % 2 != 0) {
        snprintf(error, error_size, "the body ends in the middle of a UTF-16 unit (%zu bytes)", len);
        return -1;
    }
    size_t o = 0;
    for (size_t i = 0; i < len; i += 2) {
        uint32_t u = http_charset_unit16_(t + i, big);
        if (u >= 0xD800 && u <= 0xDBFF) {
            uint32_t lo = i + 4 <= len ? http_charset_unit16_(t + i + 2, big) : 0;
            if (lo < 0xDC00 || lo > 0xDFFF) {
                snprintf(error, error_size, "unpaired UTF-16 surrogate 0x%04x at byte %zu", (unsigned)u, i);
                return -1;
            }
            u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
            i += 2;
        } else if (u >= 0xDC00 && u <= 0xDFFF) {
            snprintf(error, error_size, "unpaired UTF-16 surrogate 0x%04x at byte %zu", (unsigned)u, i);
            return -1;
        }
        o += http_charset_put_(out + o, u);
    }
    return (long)o;
}

static long http_charset_from_utf32_(const unsigned char *t, size_t len, int big, char *out, char *error,
                                     size_t error_size)
{
    if (len % 4 != 0) {
        snprintf(error, error_size, "the body ends in the middle of a UTF-32 unit (%zu bytes)", len);
        return -1;
    }
    size_t o = 0;
    for (size_t i = 0; i < len; i += 4) {
        const unsigned char *p = t + i;
        uint32_t cp = big ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
                          : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
            snprintf(error, error_size, "invalid UTF-32 character 0x%x at byte %zu", (unsigned)cp, i);
            return -1;
        }
        o += http_charset_put_(out + o, cp);
    }
    return (long)o;
}

int http_charset_to_utf8(http_charset_t cs, const char *text, size_t len, char **out, size_t *out_len,
                         char *error, size_t error_size)
{
    const unsigned char *t = (const unsigned char *)text;
    *out = NULL;
    *out_len = 0;
    long n;
    char *buf;
    switch (cs) {
    case HTTP_CHARSET_UTF16BE:
    case HTTP_CHARSET_UTF16LE:
        /* Two bytes become at most three (a pair of four bytes, four). */
        buf = xmalloc(len / 2 * 3 + 1);
        n = http_charset_from_utf16_(t, len, cs == HTTP_CHARSET_UTF16BE, buf, error, error_size);
        break;
    case HTTP_CHARSET_UTF32BE:
    case HTTP_CHARSET_UTF32LE:
        buf = xmalloc(len + 1);
        n = http_charset_from_utf32_(t, len, cs == HTTP_CHARSET_UTF32BE, buf, error, error_size);
        break;
    default: snprintf(error, error_size, "unsupported encoding %s", http_charset_name(cs)); return -1;
    }
    if (n < 0) {
        free(buf);
        return -1;
    }
    buf[n] = '\0';
    *out = buf;
    *out_len = (size_t)n;
    return 0;
}

/* ---- 3. The call's body ------------------------------------------------ */

int http_charset_body(http_call_t *c)
{
    if ((c->method != HTTP_POST && c->method != HTTP_PUT) || c->body == NULL)
        return 0;
    size_t bom;
    http_charset_t cs = http_charset_detect(c->body, c->body_len, &bom);
    c->body += bom;
    c->body_len -= bom;
    if (cs == HTTP_CHARSET_UTF8)
        return 0;
    if (cs == HTTP_CHARSET_UCS4_2143 || cs == HTTP_CHARSET_UCS4_3412) {
        http_reply_error(c, 400, "Unsupported UCS-4 endianness (%s) detected",
                         cs == HTTP_CHARSET_UCS4_2143 ? "2143" : "3412");
        return -1;
    }
    char error[128];
    size_t len;
    if (http_charset_to_utf8(cs, c->body, c->body_len, &c->body_utf8, &len, error, sizeof error) != 0) {
        http_reply_error(c, 400, "Invalid %s request body: %s", http_charset_name(cs), error);
        return -1;
    }
    c->body = c->body_utf8;
    c->body_len = len;
    return 0;
}
