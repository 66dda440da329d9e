/*
 * vec: a growable array of any element type, on the aborting allocator
 * (alloc.h). For the layers that do not propagate out-of-memory.
 *
 *   VEC(int) ids = {0};
 *   VEC_PUSH(&ids, 42);
 *   for (size_t i = 0; i < ids.n; i++) use(ids.items[i]);
 *   VEC_FREE(&ids);
 *
 * A zeroed vector is empty. items is owned by the vector; VEC_TAKE hands it
 * to the caller (free() it) and leaves the vector empty.
 */
#ifndef BASE_VEC_H
#define BASE_VEC_H

#include <stddef.h>
#include <stdlib.h>

#include "base/alloc.h"

#define VEC(T)                                                                                               \
    struct {                                                                                                 \
        T *items;                                                                                            \
        size_t n, cap;                                                                                       \
    }

/* Room for at least want elements in total. */
#define VEC_RESERVE(v, want)                                                                                 \
    do {                                                                                                     \
        if ((want) > (v)->cap) {                                                                             \
            size_t vec_cap_ = (v)->cap ? (v)->cap * 2 : 8;                                                   \
            while (vec_cap_ < (want))                                                                        \
                vec_cap_ *= 2;                                                                               \
            (v)->items = xreallocarray((v)->items, vec_cap_, sizeof *(v)->items);                            \
            (v)->cap = vec_cap_;                                                                             \
        }                                                                                                    \
    } while (0)

#define VEC_PUSH(v, x)                                                                                       \
    do {                                                                                                     \
        VEC_RESERVE((v), (v)->n + 1);                                                                        \
        (v)->items[(v)->n++] = (x);                                                                          \
    } while (0)

#define VEC_FREE(v)                                                                                          \
    do {                                                                                                     \
        free((v)->items);                                                                                    \
        (v)->items = NULL;                                                                                   \
        (v)->n = (v)->cap = 0;                                                                               \
    } while (0)

/* Evaluates to the items (the caller's now) and empties the vector. */
#define VEC_TAKE(v) ((v)->cap = 0, (v)->n = 0, vec_take_((void **)&(v)->items))

static inline void *vec_take_(void **items)
{
    void *p = *items;
    *items = NULL;
    return p;
}

#endif
