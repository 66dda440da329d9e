/*
 * utf8: see utf8.h.
 */
#include "base/utf8.h"

#include <string.h>

uint32_t utf8_decode(const char **s, const char *end)
{
    const unsigned char *p = (const unsigned char *)*s, *e = (const unsigned char *)end;
    uint32_t cp = p[0];
    int extra = cp < 0x80 ? 0 : cp < 0xE0 ? 1 : cp < 0xF0 ? 2 : 3;
    if (extra)
        cp &= 0x3Fu >> extra;
    p++;
    for (int i = 0; i < extra && p < e && (*p & 0xC0) == 0x80; i++)
        cp = (cp << 6) | (*p++ & 0x3F);
    *s = (const char *)p;
    return cp;
}

/* A code point above the BMP ranks as its high surrogate (0xD800..0xDBFF). */
static uint32_t utf8_rank_(uint32_t cp)
{
    return cp <= 0xFFFF ? cp : 0xD800 + ((cp - 0x10000) >> 10);
}

int utf8_java_cmpn(const char *a, size_t alen, const char *b, size_t blen)
{
    const char *ea = a + alen, *eb = b + blen;
    while (a < ea && b < eb) {
        uint32_t ca = utf8_decode(&a, ea), cb = utf8_decode(&b, eb);
        if (ca == cb)
            continue;
        uint32_t ra = utf8_rank_(ca), rb = utf8_rank_(cb);
        if (ra != rb)
            return ra < rb ? -1 : 1;
        /* The same high surrogate: the low surrogates order as the code points. */
        return ca < cb ? -1 : 1;
    }
    return (a < ea) - (b < eb);
}

int utf8_java_cmp(const char *a, const char *b)
{
    return utf8_java_cmpn(a, strlen(a), b, strlen(b));
}

uint32_t utf8_java_hashn(const char *s, size_t len)
{
    const char *end = s + len;
    uint32_t h = 0;
    while (s < end) {
        uint32_t cp = utf8_decode(&s, end);
        if (cp >= 0x10000) { /* a surrogate pair in UTF-16 */
            cp -= 0x10000;
            h = 31 * h + (0xD800 + (cp >> 10));
            h = 31 * h + (0xDC00 + (cp & 0x3FF));
        } else {
            h = 31 * h + cp;
        }
    }
    return h;
}
