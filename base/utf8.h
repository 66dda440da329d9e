/*
 * utf8: decoding UTF-8 one code point at a time, and ordering UTF-8 text the
 * way Java's String.compareTo orders it -- by UTF-16 code units, so code
 * points above U+FFFF sort as their high surrogates, i.e. before
 * U+E000..U+FFFF, unlike strcmp on UTF-8. Confluent sorts names, keys and
 * sets that way (TreeMap, TreeSet), so every engine and the registry must.
 *
 * Input is expected to be valid UTF-8 (jansson validates what it loads); a
 * malformed sequence decodes to something without reading past the end.
 */
#ifndef BASE_UTF8_H
#define BASE_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* The code point at *s (before end), advancing *s past it. */
uint32_t utf8_decode(const char **s, const char *end);

/* <0, 0, >0 as Java's a.compareTo(b): lengths in bytes (NUL bytes allowed). */
int utf8_java_cmpn(const char *a, size_t alen, const char *b, size_t blen);
/* The same for NUL-terminated strings. */
int utf8_java_cmp(const char *a, const char *b);

/* Java's String.hashCode of len bytes (over UTF-16 code units, as a Java
 * String holds the text): where Confluent's output follows a HashMap's
 * iteration order, its buckets come from this (before HashMap.hash's spread). */
uint32_t utf8_java_hashn(const char *s, size_t len);

#endif
