/*
 * avro_names: Avro's name validators (Java's string order is base/utf8.h).
 *
 * Avro Java validates names one UTF-16 unit at a time, so a character
 * outside the Basic Multilingual Plane (two surrogate units) is never a
 * letter; the UTF-8 decoder below reports such characters as "not a letter
 * or digit" and the result is the same.
 */
#include "compat/avro/internal.h"

#include "base/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    const char *p = name, *end = name + strlen(name);
    if (!name_start_ok(v, utf8_decode(&p, end)))
        return name_reason("Illegal initial character: ", name);
    while (*p)
        if (!name_part_ok(v, utf8_decode(&p, end)))
            return name_reason("Illegal character in: ", name);
    return NULL;
}
