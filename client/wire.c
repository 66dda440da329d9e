/*
 * wire: Confluent's framing of a record (client.h, section 2), as
 * AbstractKafkaSchemaSerDe writes it: MAGIC_BYTE 0, the id as an int32
 * big-endian, the payload; Protobuf payloads open with the message indexes
 * (KafkaProtobufSerializer's MessageIndexes: a zigzag varint count and that
 * many zigzag varints, [0] written as the count 0 alone).
 */
#include "client/client.h"

#include <stdio.h>

#define WIRE_HEADER 5

int srclient_frame_parse(const uint8_t *data, size_t len, srclient_frame_t *out, srclient_error_t *err)
{
    const char *why = NULL;
    if (len == 0)
        why = "an empty record";
    else if (data[0] != 0)
        why = "unknown magic byte";
    else if (len < WIRE_HEADER)
        why = "a record shorter than its 5-byte header";
    if (why) {
        if (err) {
            err->status = 0;
            err->code = SRCLIENT_ERR_FRAME;
            if (len > 0 && data[0] != 0)
                snprintf(err->message, sizeof(err->message), "%s 0x%02x (expected 0x00)", why, data[0]);
            else
                snprintf(err->message, sizeof(err->message), "%s (%zu bytes)", why, len);
        }
        return -1;
    }
    uint32_t id = (uint32_t)data[1] << 24 | (uint32_t)data[2] << 16 | (uint32_t)data[3] << 8 | data[4];
    out->id = (int)id;
    out->payload = data + WIRE_HEADER;
    out->len = len - WIRE_HEADER;
    return 0;
}

void srclient_frame_header(strbuf_t *out, int id)
{
    uint32_t u = (uint32_t)id;
    char h[WIRE_HEADER] = {0, (char)(u >> 24), (char)(u >> 16), (char)(u >> 8), (char)u};
    strbuf_put(out, h, sizeof(h));
}

/* A zigzag varint of at most 5 bytes (Java's ByteUtils.readVarint). */
static long wire_varint32(const uint8_t *data, size_t len, size_t *pos, int32_t *out)
{
    uint32_t v = 0;
    for (int shift = 0; shift < 35; shift += 7) {
        if (*pos >= len)
            return -1;
        uint8_t b = data[(*pos)++];
        v |= (uint32_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = (int32_t)((v >> 1) ^ -(v & 1));
            return 0;
        }
    }
    return -1;
}

long srclient_proto_indexes(const uint8_t *data, size_t len, int64_t *idx, size_t max, size_t *n)
{
    size_t pos = 0;
    int32_t count;
    if (wire_varint32(data, len, &pos, &count) != 0 || count < 0)
        return -1;
    if (count == 0) {
        /* The common case, the first message: [0] in one byte. */
        if (max < 1)
            return -1;
        idx[0] = 0;
        *n = 1;
        return (long)pos;
    }
    if ((size_t)count > max)
        return -1;
    for (int32_t i = 0; i < count; i++) {
        int32_t v;
        if (wire_varint32(data, len, &pos, &v) != 0 || v < 0)
            return -1;
        idx[i] = v;
    }
    *n = (size_t)count;
    return (long)pos;
}
