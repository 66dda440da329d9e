/*
 * alloc: allocation that cannot fail, for the layers that do not propagate
 * out-of-memory (registry, store, server; docs/architecture.md, "Errors and
 * allocation"). Each wrapper returns memory or, when malloc fails, logs one
 * line and aborts: a registry that cannot allocate cannot keep its promises
 * about ids and versions, and half-done work is worse than a restart.
 *
 * compat does not use these: it parses untrusted input under size limits
 * and reports failure to its caller instead (docs/architecture.md).
 *
 * Ownership: everything returned is the caller's, freed with free().
 */
#ifndef BASE_ALLOC_H
#define BASE_ALLOC_H

#include <stdarg.h>
#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t size);
/* xreallocarray: p resized to count * size bytes; the product is checked. */
void *xreallocarray(void *p, size_t count, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
/* A printf-formatted string. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *xvasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* Logs "out of memory (N bytes)" and aborts; what every wrapper above calls. */
void base_oom(size_t size) __attribute__((noreturn));

#endif
