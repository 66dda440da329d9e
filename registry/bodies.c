/*
 * bodies: prepared response bodies and the shelves that keep them (bodies.h).
 */
#include "registry/bodies.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

/* ---- 1. Bodies ------------------------------------------------------------ */

reg_body_t *reg_body_new(const char *text, size_t len)
{
    reg_body_t *b = xmalloc(sizeof *b + len + 1);
    b->len = len;
    b->refcount = 1;
    memcpy(b->text, text, len);
    b->text[len] = '\0';
    return b;
}

void reg_body_retain(reg_body_t *b)
{
    __atomic_add_fetch(&b->refcount, 1, __ATOMIC_RELAXED);
}

void reg_body_release(reg_body_t *b)
{
    if (b && __atomic_sub_fetch(&b->refcount, 1, __ATOMIC_ACQ_REL) == 0)
        free(b);
}

/* ---- 2. Shelves ------------------------------------------------------------- */

struct reg_shelf {
    size_t n;
    uint64_t *total;    /* where its bytes are counted, or NULL */
    reg_body_t *slot[]; /* atomic: set once, from NULL */
};

static uint64_t body_bytes(const reg_body_t *b)
{
    return sizeof *b + b->len + 1;
}

static void shelf_count(const reg_shelf_t *shelf, uint64_t bytes, int sign)
{
    if (!shelf->total)
        return;
    if (sign > 0)
        __atomic_add_fetch(shelf->total, bytes, __ATOMIC_RELAXED);
    else
        __atomic_sub_fetch(shelf->total, bytes, __ATOMIC_RELAXED);
}

reg_shelf_t *reg_shelf_new(size_t n, uint64_t *total)
{
    reg_shelf_t *shelf = xcalloc(1, sizeof *shelf + n * sizeof shelf->slot[0]);
    shelf->n = n;
    shelf->total = total;
    shelf_count(shelf, sizeof *shelf + n * sizeof shelf->slot[0], +1);
    return shelf;
}

/* Only the shelf's last holder frees it (the index, under its write lock, or
 * the loser of reg_shelf_at's race), so its slots no longer change. */
void reg_shelf_free(reg_shelf_t *shelf)
{
    if (!shelf)
        return;
    shelf_count(shelf, reg_shelf_bytes(shelf), -1);
    for (size_t i = 0; i < shelf->n; i++)
        reg_body_release(shelf->slot[i]);
    free(shelf);
}

reg_body_t *reg_shelf_get(const reg_shelf_t *shelf, size_t i)
{
    if (!shelf || i >= shelf->n)
        return NULL;
    reg_body_t *b = __atomic_load_n(&shelf->slot[i], __ATOMIC_ACQUIRE);
    if (b)
        reg_body_retain(b);
    return b;
}

reg_body_t *reg_shelf_put(reg_shelf_t *shelf, size_t i, reg_body_t *b)
{
    if (i >= shelf->n)
        return b;
    reg_body_t *expected = NULL;
    reg_body_retain(b); /* the shelf's reference */
    if (__atomic_compare_exchange_n(&shelf->slot[i], &expected, b, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        shelf_count(shelf, body_bytes(b), +1);
        return b;
    }
    /* Another reader rendered the same bytes first: serve those. */
    reg_body_release(b);
    reg_body_release(b);
    reg_body_retain(expected);
    return expected;
}

reg_shelf_t *reg_shelf_at(reg_shelf_t **at, size_t n, uint64_t *total)
{
    reg_shelf_t *shelf = __atomic_load_n(at, __ATOMIC_ACQUIRE);
    if (shelf)
        return shelf;
    reg_shelf_t *fresh = reg_shelf_new(n, total), *expected = NULL;
    if (__atomic_compare_exchange_n(at, &expected, fresh, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return fresh;
    reg_shelf_free(fresh);
    return expected;
}

size_t reg_shelf_bytes(const reg_shelf_t *shelf)
{
    if (!shelf)
        return 0;
    size_t bytes = sizeof *shelf + shelf->n * sizeof shelf->slot[0];
    for (size_t i = 0; i < shelf->n; i++) {
        const reg_body_t *b = __atomic_load_n(&shelf->slot[i], __ATOMIC_ACQUIRE);
        if (b)
            bytes += body_bytes(b);
    }
    return bytes;
}
