/*
 * client/internal.h: what the client's files share and callers never see.
 *
 * Contents
 *   1. JSON rows (avro_json.c): strings, base64, numbers, logical types
 */
#ifndef CLIENT_INTERNAL_H
#define CLIENT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "client/client.h"

/* ---- 1. JSON rows ----------------------------------------------------------- */

/* Decimals longer than this are refused (their digits cost quadratic time). */
#define CL_DECIMAL_MAX_BYTES 256

/* A JSON string of n bytes of UTF-8 (invalid sequences as U+FFFD). */
void cl_json_string(strbuf_t *b, const uint8_t *s, size_t n);
/* Bytes as a base64 JSON string (srclient_base64_encode in quotes). */
void cl_json_base64(strbuf_t *b, const uint8_t *s, size_t n);
/* The shortest text that reads back as the same double (a float: its exact
 * value as a double); NaN and the infinities as the strings "NaN",
 * "Infinity", "-Infinity" (not JSON numbers). */
void cl_json_double(strbuf_t *b, double v);
void cl_json_float(strbuf_t *b, float v);
/* An int or long under its logical type (date, time-*, timestamp-*,
 * local-timestamp-*), or the plain number. */
void cl_json_integer(strbuf_t *b, avro_logical_t l, int64_t v);
/* The other way: "2024-01-31", "12:00:00.000", "2024-01-31T12:00:00.000Z". */
int cl_parse_logical(avro_logical_t l, const char *s, int64_t *out);
int64_t cl_days_from_civil(int64_t y, unsigned m, unsigned d);
void cl_civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d);
/* A float as the shortest text that reads back as the same float (protoc's
 * SimpleFtoa; 0.1f is 0.1), the non-finite ones as cl_json_double. */
void cl_json_float_shortest(strbuf_t *b, float v);
/* A decimal's unscaled two's-complement bytes as an exact JSON number; -1 beyond CL_DECIMAL_MAX_BYTES. */
int cl_json_decimal(strbuf_t *b, const uint8_t *s, size_t n, int scale);
/* Decimal text ("-12.30") as the shortest unscaled bytes at scale; -1 when it does not fit. */
int cl_parse_decimal(const char *s, int scale, strbuf_t *out);

#endif
