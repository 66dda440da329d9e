/*
 * proto_arena: the memory of a Protobuf model (one arena per file, freed at
 * once) and the growable text buffer the printers write into.
 */
#include "compat/protobuf/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Arena ---------------------------------------------------------------- */

typedef struct proto_chunk {
    struct proto_chunk *next;
    size_t used;
    size_t size;
    max_align_t data[];
} proto_chunk_t;

struct proto_arena {
    proto_chunk_t *head;
};

#define PROTO_CHUNK_MIN 8192

proto_arena_t *proto_arena_new(void)
{
    return calloc(1, sizeof(proto_arena_t));
}

void proto_arena_free(proto_arena_t *arena)
{
    if (!arena)
        return;
    for (proto_chunk_t *c = arena->head; c;) {
        proto_chunk_t *next = c->next;
        free(c);
        c = next;
    }
    free(arena);
}

static size_t align_up(size_t n)
{
    size_t a = sizeof(max_align_t);
    return (n + a - 1) / a * a;
}

void *proto_arena_alloc(proto_arena_t *arena, size_t size)
{
    size = align_up(size ? size : 1);
    proto_chunk_t *c = arena->head;
    if (!c || c->size - c->used < size) {
        size_t want = size > PROTO_CHUNK_MIN ? size : PROTO_CHUNK_MIN;
        c = malloc(sizeof *c + want);
        if (!c)
            return NULL;
        c->size = want;
        c->used = 0;
        c->next = arena->head;
        arena->head = c;
    }
    void *p = (char *)c->data + c->used;
    c->used += size;
    memset(p, 0, size);
    return p;
}

char *proto_arena_strndup(proto_arena_t *arena, const char *s, size_t len)
{
    char *p = proto_arena_alloc(arena, len + 1);
    if (p && len)
        memcpy(p, s, len);
    return p;
}

char *proto_arena_strdup(proto_arena_t *arena, const char *s)
{
    return s ? proto_arena_strndup(arena, s, strlen(s)) : NULL;
}

char *proto_arena_printf(proto_arena_t *arena, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *p = proto_arena_alloc(arena, (size_t)n + 1);
    if (!p)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

/*
 * Arrays grow by doubling inside the arena; the abandoned copies stay until
 * the arena dies, which costs at most as much again as the final array.
 * Capacity is implied by n: a power of two is always full.
 */
int proto_arena_push(proto_arena_t *arena, void *items_ptr, size_t *n, void *item)
{
    void ***items = items_ptr;
    size_t count = *n;
    if (count == 0 || (count & (count - 1)) == 0) {
        size_t cap = count ? count * 2 : 4;
        if (count == 0 || count >= 4) {
            void **grown = proto_arena_alloc(arena, cap * sizeof(void *));
            if (!grown)
                return -1;
            if (count)
                memcpy(grown, *items, count * sizeof(void *));
            *items = grown;
        }
    }
    (*items)[count] = item;
    *n = count + 1;
    return 0;
}
