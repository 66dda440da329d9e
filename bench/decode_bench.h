/* bench/decode.c and its avro-c half (decode_avroc.c). */
#ifndef BENCH_DECODE_BENCH_H
#define BENCH_DECODE_BENCH_H

#include <stddef.h>
#include <stdint.h>

/* Reads the n records buf[off[i] .. off[i + 1]) with avro-c (reader NULL:
 * the writer's own schema); with to_json, renders each as JSON too and
 * returns the bytes rendered. */
size_t avroc_decode_all(const char *writer, const char *reader, const uint8_t *buf, const size_t *off,
                        size_t n, int to_json);

#endif
