/*
 * client/internal.h: what the client's files share and callers never see.
 *
 * Contents
 *   1. JSON rows (avro_json.c): strings, base64, numbers, logical types
 *   2. Protobuf plans (proto_decode.c): what the decoder and the encoder
 *      (proto_encode.c) both read a message by
 */
#ifndef CLIENT_INTERNAL_H
#define CLIENT_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "base/arena.h"
#include "base/hmap.h"
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

/* ---- 2. Protobuf plans ------------------------------------------------------ */

/* Kinds numbered as FieldDescriptorProto.Type. */
typedef enum pd_kind {
    PD_DOUBLE = 1,
    PD_FLOAT = 2,
    PD_INT64 = 3,
    PD_UINT64 = 4,
    PD_INT32 = 5,
    PD_FIXED64 = 6,
    PD_FIXED32 = 7,
    PD_BOOL = 8,
    PD_STRING = 9,
    PD_MESSAGE = 11,
    PD_BYTES = 12,
    PD_UINT32 = 13,
    PD_ENUM = 14,
    PD_SFIXED32 = 15,
    PD_SFIXED64 = 16,
    PD_SINT32 = 17,
    PD_SINT64 = 18,
} pd_kind_t;

typedef enum pd_wkt {
    PD_WKT_NONE,
    PD_WKT_TIMESTAMP,
    PD_WKT_DURATION,
    PD_WKT_UNWRAP,     /* the wrappers, Struct, ListValue: the value of field 1 */
    PD_WKT_VALUE,      /* google.protobuf.Value: its one set member */
    PD_WKT_FIELD_MASK, /* google.protobuf.FieldMask: "a.bC,d" */
    PD_WKT_ANY,        /* google.protobuf.Any: {"@type": url, the packed message's fields} */
} pd_wkt_t;

typedef struct pd_msg pd_msg_t;

typedef struct pd_field {
    int32_t number;
    const char *key;       /* "\"jsonName\":", as rows print it */
    const char *name;      /* the field's name in the .proto, NUL-terminated */
    const char *json_name; /* its json_name, NUL-terminated */
    pd_kind_t kind;
    int repeated, is_map, presence, oneof;
    int packed;                      /* repeated scalars are written packed (proto3 and editions files) */
    const pd_msg_t *msg;             /* MESSAGE, and a map's entry */
    const proto_enum_t *enumeration; /* ENUM */
    int null_value;                  /* google.protobuf.NullValue: always null */
} pd_field_t;

struct pd_msg {
    const char *full_name; /* NULL for a map's entry */
    pd_wkt_t wkt;
    pd_field_t *fields; /* declaration order */
    size_t n, n_oneofs;
    uint32_t *by_number; /* field indexes sorted by number */
};

struct srclient_proto_reader {
    const proto_schema_t *schema;
    srclient_avro_limits_t limits;
    arena_t *arena;
    hmap_t plans;     /* const proto_symbol_t * -> pd_msg_t * */
    int keep_unknown; /* srclient_proto_reader_keep_unknown */
};

/* The plan of a message of the reader's schema (or of its file's imports),
 * NULL when the reader has none. Borrowed from the reader. */
const pd_msg_t *pd_plan_get(const srclient_proto_reader_t *r, const proto_symbol_t *sym);
/* The plan of the message an Any's type URL names (url: n bytes), or NULL. */
const pd_msg_t *pd_any_plan(const srclient_proto_reader_t *r, const char *url, size_t n);

#endif
