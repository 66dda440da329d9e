/*
 * proto_base64: standard base64 (RFC 4648, with padding) for serialized
 * FileDescriptorProtos. Decoding is strict, like Java's Base64.getDecoder():
 * no whitespace, no missing padding, no stray characters.
 */
#include "compat/protobuf/internal.h"

#include <stdlib.h>

static const char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

char *proto_base64_encode(const uint8_t *data, size_t len)
{
    char *out = malloc((len + 2) / 3 * 4 + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t)data[i] << 16;
        if (i + 1 < len)
            v |= (uint32_t)data[i + 1] << 8;
        if (i + 2 < len)
            v |= data[i + 2];
        out[o++] = alphabet[(v >> 18) & 63];
        out[o++] = alphabet[(v >> 12) & 63];
        out[o++] = i + 1 < len ? alphabet[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < len ? alphabet[v & 63] : '=';
    }
    out[o] = '\0';
    return out;
}

static int sextet(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

uint8_t *proto_base64_decode(const char *text, size_t len, size_t *out_len)
{
    if (len == 0 || len % 4 != 0)
        return NULL;
    size_t pad = text[len - 1] == '=' ? (text[len - 2] == '=' ? 2 : 1) : 0;
    uint8_t *out = malloc(len / 4 * 3);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < len; i += 4) {
        int last = i + 4 == len;
        uint32_t v = 0;
        for (size_t k = 0; k < 4; k++) {
            int s = (last && k >= 4 - pad) ? 0 : sextet(text[i + k]);
            if (s < 0) {
                free(out);
                return NULL;
            }
            v = v << 6 | (uint32_t)s;
        }
        out[o++] = (uint8_t)(v >> 16);
        if (!last || pad < 2)
            out[o++] = (uint8_t)(v >> 8);
        if (!last || pad < 1)
            out[o++] = (uint8_t)v;
    }
    *out_len = o;
    return out;
}
