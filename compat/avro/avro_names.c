/*
 * avro_names: Avro's name validators and Java's string order.
 *
 * Avro Java validates names one UTF-16 unit at a time, so a character
 * outside the Basic Multilingual Plane (two surrogate units) is never a
 * letter; the UTF-8 decoder below reports such characters as "not a letter
 * or digit" and the result is the same.
 */
#include "compat/avro/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Decodes one code point of valid UTF-8 (jansson guarantees validity). */
static uint32_t utf8_next(const char **s)
{
    const unsigned char *p = (const unsigned char *)*s;
    uint32_t cp;
    int extra;
    if (p[0] < 0x80) {
        cp = p[0];
        extra = 0;
    } else if (p[0] < 0xE0) {
        cp = p[0] & 0x1F;
        extra = 1;
    } else if (p[0] < 0xF0) {
        cp = p[0] & 0x0F;
        extra = 2;
    } else {
        cp = p[0] & 0x07;
        extra = 3;
    }
    p++;
    for (int i = 0; i < extra && (*p & 0xC0) == 0x80; i++)
        cp = (cp << 6) | (*p++ & 0x3F);
    *s = (const char *)p;
    return cp;
}

static int strict_letter(uint32_t c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int name_start_ok(avro_validator_t v, uint32_t c)
{
    if (c == '_')
        return 1;
    return v == AVRO_NAMES_STRICT ? strict_letter(c) : avro_unicode_is_letter(c);
}

static int name_part_ok(avro_validator_t v, uint32_t c)
{
    if (c == '_')
        return 1;
    if (v == AVRO_NAMES_STRICT)
        return strict_letter(c) || (c >= '0' && c <= '9');
    return avro_unicode_is_letter(c) || avro_unicode_is_digit(c);
}

static char *name_reason(const char *prefix, const char *name)
{
    char *out = NULL;
    if (asprintf(&out, "%s%s", prefix, name) < 0)
        return NULL;
    return out;
}

char *avro_name_problem(avro_validator_t v, const char *name)
{
    if (v == AVRO_NAMES_ANY)
        return NULL;
    if (!name)
        return strdup("Null name");
    if (!*name)
        return strdup("Empty name");
    const char *p = name;
    if (!name_start_ok(v, utf8_next(&p)))
        return name_reason("Illegal initial character: ", name);
    while (*p)
        if (!name_part_ok(v, utf8_next(&p)))
            return name_reason("Illegal character in: ", name);
    return NULL;
}

/* Code points above the BMP sort as their high surrogate (0xD800..0xDBFF),
 * i.e. below U+E000..U+FFFF, exactly as UTF-16 unit comparison does. */
static uint32_t utf16_rank(uint32_t cp)
{
    if (cp <= 0xFFFF)
        return cp;
    return 0xD800 + ((cp - 0x10000) >> 10);
}

int avro_utf16_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        uint32_t ca = utf8_next(&a), cb = utf8_next(&b);
        if (ca == cb)
            continue;
        uint32_t ra = utf16_rank(ca), rb = utf16_rank(cb);
        if (ra != rb)
            return ra < rb ? -1 : 1;
        /* Same high surrogate: the low surrogate order is the code point order. */
        return ca < cb ? -1 : 1;
    }
    return (*a != 0) - (*b != 0);
}
