/*
 * decode_avroc: the avro-c half of bench/decode.c, in a file of its own
 * because <avro.h> and compat/avro/avro.h must not meet in one unit.
 * Reads every record into a generic value of the writer schema (avro-c's
 * avro_value_read), optionally resolved into a reader schema
 * (avro_resolved_writer) and optionally rendered with avro_value_to_json.
 */
#include <avro.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode_bench.h"

static avro_schema_t avroc_schema(const char *text)
{
    avro_schema_t s;
    if (avro_schema_from_json_length(text, strlen(text), &s) != 0) {
        fprintf(stderr, "bench-decode: avro-c: %s\n", avro_strerror());
        exit(1);
    }
    return s;
}

size_t avroc_decode_all(const char *writer, const char *reader, const uint8_t *buf, const size_t *off,
                        size_t n, int to_json)
{
    avro_schema_t ws = avroc_schema(writer), rs = reader ? avroc_schema(reader) : NULL;
    avro_value_iface_t *wclass = avro_generic_class_from_schema(rs ? rs : ws);
    avro_value_t value, resolved;
    avro_generic_value_new(wclass, &value);
    avro_value_iface_t *resolver = rs ? avro_resolved_writer_new(ws, rs) : NULL;
    if (rs && !resolver) {
        fprintf(stderr, "bench-decode: avro-c: %s\n", avro_strerror());
        exit(1);
    }
    if (resolver) {
        avro_resolved_writer_new_value(resolver, &resolved);
        avro_resolved_writer_set_dest(&resolved, &value);
    }
    avro_reader_t rd = avro_reader_memory((const char *)buf, (int64_t)off[n]);
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        avro_reader_memory_set_source(rd, (const char *)buf + off[i], (int64_t)(off[i + 1] - off[i]));
        if (avro_value_read(rd, resolver ? &resolved : &value) != 0) {
            fprintf(stderr, "bench-decode: avro-c: record %zu: %s\n", i, avro_strerror());
            exit(1);
        }
        if (to_json) {
            char *json;
            avro_value_to_json(&value, 1, &json);
            out += strlen(json);
            free(json);
        }
    }
    avro_reader_free(rd);
    if (resolver) {
        avro_value_decref(&resolved);
        avro_value_iface_decref(resolver);
    }
    avro_value_decref(&value);
    avro_value_iface_decref(wclass);
    avro_schema_decref(ws);
    if (rs)
        avro_schema_decref(rs);
    return out;
}
