/*
 * bodies: response bodies rendered once and served many times
 * (docs/performance.md, "Prepared bodies").
 *
 * Contents
 *   1. A body: immutable bytes, refcounted
 *   2. A shelf: a fixed row of slots, each empty or holding one body
 *
 * Schemas are immutable and a subject is replaced whole when it changes, so
 * a reply that depends only on a schema row or on one published subject
 * version can be rendered the first time it is asked for and kept next to
 * what it was rendered from: the index drops the shelf with the entry or the
 * subject it belongs to. Readers fill slots concurrently under the index's
 * read lock: a slot is set once by compare-and-swap (the loser's body is
 * released), so no lock beyond the index's is needed, and a body handed out
 * is retained, so it outlives a shelf dropped under the write lock.
 */
#ifndef REGISTRY_BODIES_H
#define REGISTRY_BODIES_H

#include <stddef.h>
#include <stdint.h>

/* ---- 1. Bodies ------------------------------------------------------------ */

typedef struct reg_body {
    size_t len;
    int refcount; /* atomic */
    char text[];  /* len bytes, then a NUL */
} reg_body_t;

/* A body holding a copy of text[0..len) (refcount 1). */
reg_body_t *reg_body_new(const char *text, size_t len);
void reg_body_retain(reg_body_t *b);
/* NULL is ignored. */
void reg_body_release(reg_body_t *b);

/* ---- 2. Shelves ------------------------------------------------------------- */

typedef struct reg_shelf reg_shelf_t;

/* An empty shelf of n slots. While it lives it adds its bytes (itself, its
 * slots, each body put on it) to *total, atomically, and its free takes them
 * off again: the index's memory gauge without a walk. total may be NULL. */
reg_shelf_t *reg_shelf_new(size_t n, uint64_t *total);
/* Releases every body on the shelf and the shelf; NULL is ignored. */
void reg_shelf_free(reg_shelf_t *shelf);
/* The body in slot i (retained), or NULL while it is empty (or shelf is NULL). */
reg_body_t *reg_shelf_get(const reg_shelf_t *shelf, size_t i);
/* Puts b (taken over) in slot i unless another thread got there first;
 * returns the body the slot holds now, retained for the caller. */
reg_body_t *reg_shelf_put(reg_shelf_t *shelf, size_t i, reg_body_t *b);
/* The shelf *at points to, allocated with n slots (counted in *total) on
 * first use (by CAS, so several readers may race); borrowed. */
reg_shelf_t *reg_shelf_at(reg_shelf_t **at, size_t n, uint64_t *total);
/* Bytes of the shelf and the bodies on it now (0 for NULL), by a walk of its
 * slots: what it counts in its total. */
size_t reg_shelf_bytes(const reg_shelf_t *shelf);

#endif
