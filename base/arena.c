/*
 * arena: a list of malloc'd blocks, newest first. Every allocation is zeroed
 * as it is handed out, not the whole block when it is made: a small schema's
 * model uses a tenth of its first 8 KB block, and calloc zeroing the rest was
 * a sixteenth of a registration's instructions (docs/performance.md).
 */
#include "base/arena.h"

#include <stdalign.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- 1. Lifetime --------------------------------------------------------- */

/* Blocks start small (most arenas hold one small model) and double up to
 * ARENA_BLOCK_MAX, so a large model costs few mallocs. */
#define ARENA_BLOCK_MIN (8 * 1024)
#define ARENA_BLOCK_MAX (64 * 1024)

typedef struct arena_block {
    struct arena_block *next;
    size_t used;
    size_t cap;
    alignas(max_align_t) unsigned char data[];
} arena_block_t;

struct arena {
    arena_block_t *head;
    size_t next_cap; /* size of the next ordinary block */
};

arena_t *arena_new(void)
{
    arena_t *a = calloc(1, sizeof *a);
    if (a)
        a->next_cap = ARENA_BLOCK_MIN;
    return a;
}

void arena_free(arena_t *a)
{
    if (!a)
        return;
    for (arena_block_t *blk = a->head; blk;) {
        arena_block_t *next = blk->next;
        free(blk);
        blk = next;
    }
    free(a);
}

/* ---- 2. Memory ------------------------------------------------------------ */

static arena_block_t *block_new(size_t cap, arena_block_t *next)
{
    if (cap > SIZE_MAX - sizeof(arena_block_t))
        return NULL;
    arena_block_t *blk = malloc(sizeof *blk + cap);
    if (!blk)
        return NULL;
    blk->used = 0;
    blk->cap = cap;
    blk->next = next;
    return blk;
}

void *arena_alloc(arena_t *a, size_t size)
{
    size_t align = alignof(max_align_t);
    size_t need = ((size ? size : 1) + align - 1) & ~(align - 1);
    if (need < size)
        return NULL;
    arena_block_t *blk = a->head;
    if (blk && blk->cap - blk->used >= need) {
        void *p = blk->data + blk->used;
        blk->used += need;
        return memset(p, 0, need);
    }
    /* Oversized requests get a block of their own behind the current one,
     * so the current block keeps serving small requests. */
    if (blk && need > ARENA_BLOCK_MAX / 4) {
        arena_block_t *big = block_new(need, blk->next);
        if (!big)
            return NULL;
        blk->next = big;
        big->used = need;
        return memset(big->data, 0, need);
    }
    blk = block_new(need > a->next_cap ? need : a->next_cap, a->head);
    if (!blk)
        return NULL;
    if (a->next_cap < ARENA_BLOCK_MAX)
        a->next_cap *= 2;
    a->head = blk;
    blk->used = need;
    return memset(blk->data, 0, need);
}

char *arena_strndup(arena_t *a, const char *s, size_t len)
{
    if (len == SIZE_MAX)
        return NULL;
    char *d = arena_alloc(a, len + 1);
    if (d && len)
        memcpy(d, s, len);
    return d;
}

char *arena_strdup(arena_t *a, const char *s)
{
    return s ? arena_strndup(a, s, strlen(s)) : NULL;
}

char *arena_printf(arena_t *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *p = arena_alloc(a, (size_t)n + 1);
    if (!p)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

/* ---- 3. Pointer arrays ------------------------------------------------------ */

/*
 * Arrays grow by doubling inside the arena; the abandoned copies stay until
 * the arena dies, which costs at most as much again as the final array.
 * Capacity is implied by n: 4 slots at first, then a power of two is full.
 */
int arena_push(arena_t *a, void *items_ptr, size_t *n, void *item)
{
    void ***items = items_ptr;
    size_t count = *n;
    if (count == 0 || (count >= 4 && (count & (count - 1)) == 0)) {
        size_t cap = count ? count * 2 : 4;
        void **grown = arena_alloc(a, cap * sizeof(void *));
        if (!grown)
            return -1;
        if (count)
            memcpy(grown, *items, count * sizeof(void *));
        *items = grown;
    }
    (*items)[count] = item;
    *n = count + 1;
    return 0;
}
