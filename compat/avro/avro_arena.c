/*
 * avro_arena: bump allocation for one model or one check. A model is a
 * graph with cycles (recursive types), so it is freed as one block list
 * instead of node by node.
 */
#include "compat/avro/internal.h"

#include <stdalign.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_BLOCK_SIZE (64 * 1024)

struct avro_arena_block {
    avro_arena_block_t *next;
    size_t used;
    size_t cap;
    alignas(max_align_t) unsigned char data[];
};

static avro_arena_block_t *arena_block_new(size_t cap, avro_arena_block_t *next)
{
    avro_arena_block_t *blk = calloc(1, sizeof *blk + cap);
    if (!blk)
        return NULL;
    blk->cap = cap;
    blk->next = next;
    return blk;
}

void *avro_arena_alloc(avro_arena_t *a, size_t size)
{
    size_t need = (size + alignof(max_align_t) - 1) & ~(alignof(max_align_t) - 1);
    if (need < size)
        return NULL;
    avro_arena_block_t *blk = a->head;
    if (!blk || blk->cap - blk->used < need) {
        /* Oversized requests get a block of their own behind the current one,
         * so the current block keeps serving small requests. */
        if (need > ARENA_BLOCK_SIZE / 4 && blk) {
            avro_arena_block_t *big = arena_block_new(need, blk->next);
            if (!big)
                return NULL;
            blk->next = big;
            big->used = need;
            return big->data;
        }
        blk = arena_block_new(need > ARENA_BLOCK_SIZE ? need : ARENA_BLOCK_SIZE, a->head);
        if (!blk)
            return NULL;
        a->head = blk;
    }
    void *p = blk->data + blk->used;
    blk->used += need;
    return p;
}

char *avro_arena_strndup(avro_arena_t *a, const char *s, size_t n)
{
    char *d = avro_arena_alloc(a, n + 1);
    if (d)
        memcpy(d, s, n);
    return d;
}

char *avro_arena_strdup(avro_arena_t *a, const char *s)
{
    return avro_arena_strndup(a, s, strlen(s));
}

void avro_arena_release(avro_arena_t *a)
{
    avro_arena_block_t *blk = a->head;
    while (blk) {
        avro_arena_block_t *next = blk->next;
        free(blk);
        blk = next;
    }
    a->head = NULL;
}
