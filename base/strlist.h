/*
 * strlist: a growable array of owned, NUL-terminated strings.
 *
 * The one container compat uses to hand lists of messages across module
 * boundaries. Every string in it is owned by the list and freed by
 * strlist_clear(). A zeroed strlist_t is a valid empty list.
 */
#ifndef BASE_STRLIST_H
#define BASE_STRLIST_H

#include <stddef.h>

typedef struct strlist {
    char **items;
    size_t n;
    size_t cap;
} strlist_t;

/* Appends a copy of s. Returns 0, or -1 on allocation failure. */
int strlist_push(strlist_t *l, const char *s);
/* Appends s itself, taking ownership (s must come from malloc). */
int strlist_push_owned(strlist_t *l, char *s);
/* Appends a printf-formatted string. */
int strlist_pushf(strlist_t *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Frees every item and the array; the list is empty and reusable afterwards. */
void strlist_clear(strlist_t *l);

#endif
