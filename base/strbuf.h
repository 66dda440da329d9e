/*
 * strbuf: a growable, NUL-terminated text buffer on malloc; what every
 * engine's printer writes into.
 *
 * After an allocation failure every append is a no-op and strbuf_take()
 * returns NULL, so writers check once at the end. A zeroed strbuf_t is an
 * empty buffer.
 */
#ifndef BASE_STRBUF_H
#define BASE_STRBUF_H

#include <stddef.h>

typedef struct strbuf {
    char *data;
    size_t len;
    size_t cap;
    int failed; /* sticky allocation failure */
} strbuf_t;

void strbuf_put(strbuf_t *b, const char *s, size_t len);
void strbuf_puts(strbuf_t *b, const char *s);
void strbuf_putc(strbuf_t *b, char c);
void strbuf_printf(strbuf_t *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hands the text over (malloc'd, "" when empty) and resets b; NULL after any failure. */
char *strbuf_take(strbuf_t *b);
/* Frees the text and resets b. */
void strbuf_free(strbuf_t *b);

#endif
