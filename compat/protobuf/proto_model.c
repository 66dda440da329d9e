/*
 * proto_model: making and releasing model pieces outside the parser -- the
 * file itself, option values built from descriptors, and the conversions
 * between Wire's character strings and the bytes a descriptor holds, and
 * the first-error rule the descriptor builder and the option codec share.
 */
#include "compat/protobuf/internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const scalar_names[] = {
    "bool",     "bytes",    "double", "float",  "fixed32", "fixed64", "int32",  "int64",
    "sfixed32", "sfixed64", "sint32", "sint64", "string",  "uint32",  "uint64",
};

int proto_is_scalar(const char *type)
{
    /* Asked for every field's type in every diff: the first letter skips most strcmps. */
    for (size_t i = 0; i < sizeof scalar_names / sizeof *scalar_names; i++)
        if (scalar_names[i][0] == type[0] && strcmp(type, scalar_names[i]) == 0)
            return 1;
    return 0;
}

proto_file_t *proto_file_new(void)
{
    arena_t *arena = arena_new();
    proto_file_t *f = arena ? arena_alloc(arena, sizeof *f) : NULL;
    if (!f) {
        arena_free(arena);
        return NULL;
    }
    f->arena = arena;
    return f;
}

void proto_file_free(proto_file_t *file)
{
    if (file)
        arena_free(file->arena);
}

/* ---- Values ------------------------------------------------------------------------- */

proto_value_t *proto_value_text(arena_t *arena, proto_value_kind_t kind, const char *text, size_t len)
{
    proto_value_t *v = arena_alloc(arena, sizeof *v);
    if (!v)
        return NULL;
    v->kind = kind;
    v->len = len;
    v->text = arena_strndup(arena, text, len);
    return v->text ? v : NULL;
}

proto_value_t *proto_value_number(arena_t *arena, const char *fmt, ...)
{
    char buf[64];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    return proto_value_text(arena, PROTO_VALUE_NUMBER, buf, n > 0 ? (size_t)n : 0);
}

/* Wire reads .proto text as Java chars, so "\377" is U+00FF: bytes become
 * the code points of the same value (UTF-8 encoded). */
proto_value_t *proto_value_bytes(arena_t *arena, const uint8_t *data, size_t len)
{
    char *buf = arena_alloc(arena, len * 2 + 1);
    if (!buf)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (data[i] < 0x80) {
            buf[n++] = (char)data[i];
        } else {
            buf[n++] = (char)(0xC0 | (data[i] >> 6));
            buf[n++] = (char)(0x80 | (data[i] & 0x3F));
        }
    }
    return proto_value_text(arena, PROTO_VALUE_STRING, buf, n);
}

/* The reverse: code points up to U+00FF back to single bytes. */
size_t proto_text_to_bytes(const char *s, size_t len, uint8_t *out)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c == 0xC2 || c == 0xC3) && i + 1 < len && ((unsigned char)s[i + 1] & 0xC0) == 0x80) {
            out[n++] = (uint8_t)(((c & 0x1F) << 6) | ((unsigned char)s[i + 1] & 0x3F));
            i++;
        } else {
            out[n++] = c;
        }
    }
    return n;
}

int proto_value_map_add(arena_t *arena, proto_value_t *map, const char *key, proto_value_t *v)
{
    if (!v)
        return -1;
    for (size_t i = 0; i < map->n_entries; i++) {
        if (strcmp(map->entries[i].key, key) != 0)
            continue;
        /* A repeated field: its values gather into a list, in order. */
        proto_value_t *prev = map->entries[i].value;
        if (prev->kind != PROTO_VALUE_LIST) {
            proto_value_t *list = arena_alloc(arena, sizeof *list);
            if (!list || arena_push(arena, &list->items, &list->n_items, prev) != 0)
                return -1;
            list->kind = PROTO_VALUE_LIST;
            map->entries[i].value = prev = list;
        }
        return arena_push(arena, &prev->items, &prev->n_items, v);
    }
    size_t n = map->n_entries;
    proto_map_entry_t *grown = arena_alloc(arena, (n + 1) * sizeof *grown);
    if (!grown)
        return -1;
    if (n)
        memcpy(grown, map->entries, n * sizeof *grown);
    grown[n].key = key;
    grown[n].value = v;
    map->entries = grown;
    map->n_entries = n + 1;
    return 0;
}

/* ---- Numbers ---------------------------------------------------------------------------- */

int proto_parse_double(const char *text, double *out)
{
    const char *t = text[0] == '-' ? text + 1 : text;
    double sign = text[0] == '-' ? -1.0 : 1.0;
    if (strcmp(t, "inf") == 0 || strcmp(t, "infinity") == 0) {
        *out = sign * INFINITY;
        return 0;
    }
    if (strcmp(t, "nan") == 0) {
        *out = NAN;
        return 0;
    }
    char *end = NULL;
    if (t[0] == '0' && (t[1] == 'x' || t[1] == 'X'))
        *out = sign * (double)strtoull(t, &end, 16);
    else
        *out = strtod(text, &end);
    return *end || end == text ? -1 : 0;
}

/* ---- Errors ------------------------------------------------------------------------------ */

void proto_error_set(char **error, const char *fmt, const char *detail)
{
    if (*error)
        return;
    size_t n = strlen(fmt) + strlen(detail) + 1;
    *error = malloc(n);
    if (*error)
        snprintf(*error, n, fmt, detail);
}
