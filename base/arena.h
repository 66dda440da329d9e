/*
 * arena: bump allocation for a graph of objects that dies at once (a parsed
 * schema model, one compatibility check, one printer run). Models have cycles
 * (recursive types), so they are freed as a block list, never node by node.
 *
 * Unlike base/alloc.h, nothing here aborts: every function returns NULL (or
 * -1) when malloc fails, and the engines pass that failure to their callers.
 *
 * Contents
 *   1. Lifetime: arena_new, arena_free
 *   2. Memory: zeroed blocks and strings
 *   3. Pointer arrays grown inside the arena
 *
 * Ownership: everything allocated belongs to the arena and lives until
 * arena_free(); callers never free() it.
 */
#ifndef BASE_ARENA_H
#define BASE_ARENA_H

#include <stddef.h>

typedef struct arena arena_t;

/* ---- 1. Lifetime ------------------------------------------------------- */

/* An empty arena, or NULL when out of memory. */
arena_t *arena_new(void);
/* Frees the arena and everything allocated in it; NULL is ignored. */
void arena_free(arena_t *a);

/* ---- 2. Memory --------------------------------------------------------- */

/* size bytes, zeroed and aligned for any type; NULL when out of memory. */
void *arena_alloc(arena_t *a, size_t size);
/* A NUL-terminated copy of len bytes of s (which may hold NUL bytes). */
char *arena_strndup(arena_t *a, const char *s, size_t len);
/* A copy of s; NULL when s is NULL. */
char *arena_strdup(arena_t *a, const char *s);
char *arena_printf(arena_t *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- 3. Pointer arrays ------------------------------------------------- */

/* Appends item to the pointer array *items_ptr of *n entries (a void ***
 * passed as void *), growing it inside the arena. Returns 0, or -1. */
int arena_push(arena_t *a, void *items_ptr, size_t *n, void *item);

#endif
