/*
 * proto_limits: what a Protobuf input must meet before the engine works on
 * it in proportion to its shape, and the rules protoc applies that the
 * model alone does not.
 *
 * Contents
 *   1. Base64 problems (the reason an input that looks like base64 is not)
 *   2. The wire walk of a FileDescriptorProto, before protobuf-c unpacks it
 *   3. Field numbers
 *
 * The walk exists because protobuf-c's unpack recurses once per nested
 * DescriptorProto with no bound: 10,000 nested messages in 90 KB overflow the
 * stack. It reads only the two recursive paths of descriptor.proto
 * (FileDescriptorProto.message_type = 4, DescriptorProto.nested_type = 3;
 * every other message in descriptor.proto has a fixed depth) and refuses
 * what the text parser would refuse: a message nested deeper than
 * PROTO_MAX_DEPTH. A map entry message is one level below its map field but
 * is no nesting in the .proto text, so it may sit one level deeper.
 */
#include "compat/protobuf/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- 1. Base64 problems ------------------------------------------------------------ */

static int base64_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
}

int proto_looks_like_base64(const char *text, size_t len)
{
    if (len == 0)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!base64_char(text[i]) && text[i] != '=')
            return 0;
    return 1;
}

const char *proto_base64_problem(const char *text, size_t len)
{
    if (len % 4 != 0)
        return "its length is not a multiple of 4";
    size_t pad = 0;
    while (pad < 2 && pad < len && text[len - 1 - pad] == '=')
        pad++;
    for (size_t i = 0; i < len - pad; i++)
        if (!base64_char(text[i]))
            return "'=' padding before the end";
    return NULL;
}

/* ---- 2. The wire walk ---------------------------------------------------------------- */

typedef struct wire {
    const uint8_t *p;
    const uint8_t *end;
} wire_t;

static int read_varint(wire_t *w, uint64_t *v)
{
    *v = 0;
    for (int shift = 0; shift < 64 && w->p < w->end; shift += 7) {
        uint8_t b = *w->p++;
        *v |= (uint64_t)(b & 0x7F) << shift;
        if (!(b & 0x80))
            return 0;
    }
    return -1;
}

static int skip(wire_t *w, size_t n)
{
    if ((size_t)(w->end - w->p) < n)
        return -1;
    w->p += n;
    return 0;
}

/* The next field of w: 1 with *payload set for a length-delimited one, 0
 * for another kind (*value set for a varint), -1 when malformed (groups
 * included: protobuf-c refuses them as well). */
static int next_field(wire_t *w, uint64_t *number, wire_t *payload, uint64_t *value)
{
    uint64_t key, n;
    if (read_varint(w, &key) != 0)
        return -1;
    *number = key >> 3;
    switch (key & 7) {
    case 0: return read_varint(w, value);
    case 1: return skip(w, 8);
    case 5: return skip(w, 4);
    case 2:
        if (read_varint(w, &n) != 0 || n > (uint64_t)(w->end - w->p))
            return -1;
        payload->p = w->p;
        payload->end = w->p + n;
        w->p += n;
        return 1;
    default: return -1;
    }
}

/* MessageOptions.map_entry (field 7) in one options record; current when absent. */
static int options_map_entry(wire_t w, int current)
{
    while (w.p < w.end) {
        uint64_t number, value = 0;
        wire_t sub;
        int rc = next_field(&w, &number, &sub, &value);
        if (rc < 0)
            return current;
        if (rc == 0 && number == 7)
            current = value != 0;
    }
    return current;
}

typedef struct walk {
    const uint8_t *start;
    char **error;
} walk_t;

static int walk_fail(walk_t *k, const char *what)
{
    proto_error_set(k->error, "%s", what);
    return -1;
}

static int malformed(walk_t *k, const wire_t *w)
{
    char what[96];
    snprintf(what, sizeof what, "Invalid FileDescriptorProto: malformed wire data near byte %zu",
             (size_t)(w->p - k->start));
    return walk_fail(k, what);
}

static int too_deep(walk_t *k)
{
    char what[96];
    snprintf(what, sizeof what, "Invalid descriptor: messages nested deeper than %d", PROTO_MAX_DEPTH);
    return walk_fail(k, what);
}

/* A DescriptorProto at depth (1 for a top-level message); recursion is
 * bounded by PROTO_MAX_DEPTH + 1. */
static int walk_message(walk_t *k, wire_t w, int depth)
{
    int map_entry = 0;
    while (w.p < w.end) {
        uint64_t number, value;
        wire_t sub;
        int rc = next_field(&w, &number, &sub, &value);
        if (rc < 0)
            return malformed(k, &w);
        if (rc == 1 && number == 3) {
            if (depth + 1 > PROTO_MAX_DEPTH + 1)
                return too_deep(k);
            if (walk_message(k, sub, depth + 1) != 0)
                return -1;
        } else if (rc == 1 && number == 7) {
            map_entry = options_map_entry(sub, map_entry);
        }
    }
    return depth > PROTO_MAX_DEPTH && !map_entry ? too_deep(k) : 0;
}

int proto_descriptor_check_wire(const uint8_t *data, size_t len, char **error)
{
    walk_t k = {data, error};
    if (len > PROTO_MAX_DESCRIPTOR_BYTES) {
        char what[96];
        snprintf(what, sizeof what, "Invalid descriptor: larger than %d bytes", PROTO_MAX_DESCRIPTOR_BYTES);
        return walk_fail(&k, what);
    }
    wire_t w = {data, data + len};
    while (w.p < w.end) {
        uint64_t number, value;
        wire_t sub;
        int rc = next_field(&w, &number, &sub, &value);
        if (rc < 0)
            return malformed(&k, &w);
        if (rc == 1 && number == 4 && walk_message(&k, sub, 1) != 0)
            return -1;
    }
    return 0;
}

/* ---- 3. Field numbers ------------------------------------------------------------------ */

/*
 * protoc's rules (descriptor.cc), which Confluent applies through protobuf-java:
 * ProtobufSchema.toDynamicSchema() builds a Descriptors.FileDescriptor, whose
 * DescriptorValidationException becomes "Invalid protobuf schema definition: ...".
 * Extensions may go past the maximum (message_set_wire_format).
 */
static int check_number(const char *name, int32_t number, int extension, char **error)
{
    const char *rule = NULL;
    char max[64];
    if (number <= 0)
        rule = "Field numbers must be positive integers.";
    else if (number >= 19000 && number <= 19999)
        rule = "Field numbers 19000 through 19999 are reserved for the protocol buffer library "
               "implementation.";
    else if (!extension && number > PROTO_MAX_FIELD_NUMBER) {
        snprintf(max, sizeof max, "Field number %d exceeds maximum of %d", number, PROTO_MAX_FIELD_NUMBER);
        rule = max;
    }
    if (!rule)
        return 0;
    /* As protobuf-java's DescriptorValidationException: "<symbol>: <problem>". */
    char what[512];
    snprintf(what, sizeof what, "%.300s: %s", name ? name : "", rule);
    proto_error_set(error, "%s", what);
    return -1;
}

static int check_fields(proto_field_t *const *fields, size_t n, int extension, char **error)
{
    for (size_t i = 0; i < n; i++)
        if (check_number(fields[i]->name, fields[i]->tag, extension, error) != 0)
            return -1;
    return 0;
}

static int check_groups(proto_group_t *const *groups, size_t n, char **error)
{
    for (size_t i = 0; i < n; i++)
        if (check_number(groups[i]->name, groups[i]->tag, 0, error) != 0 ||
            check_fields(groups[i]->fields, groups[i]->n_fields, 0, error) != 0)
            return -1;
    return 0;
}

static int check_extends(proto_extend_t *const *ext, size_t n, char **error)
{
    for (size_t i = 0; i < n; i++)
        if (check_fields(ext[i]->fields, ext[i]->n_fields, 1, error) != 0)
            return -1;
    return 0;
}

static int check_types(proto_type_t *const *types, size_t n, char **error);

static int check_message(const proto_message_t *m, char **error)
{
    if (check_fields(m->fields, m->n_fields, 0, error) != 0 ||
        check_groups(m->groups, m->n_groups, error) != 0)
        return -1;
    for (size_t i = 0; i < m->n_oneofs; i++)
        if (check_fields(m->oneofs[i]->fields, m->oneofs[i]->n_fields, 0, error) != 0 ||
            check_groups(m->oneofs[i]->groups, m->oneofs[i]->n_groups, error) != 0)
            return -1;
    if (check_extends(m->extends, m->n_extends, error) != 0)
        return -1;
    return check_types(m->types, m->n_types, error);
}

/* Recursion follows the model's nesting, which parsing bounded (PROTO_MAX_DEPTH). */
static int check_types(proto_type_t *const *types, size_t n, char **error)
{
    for (size_t i = 0; i < n; i++)
        if (types[i]->kind == PROTO_TYPE_MESSAGE && types[i]->message &&
            check_message(types[i]->message, error) != 0)
            return -1;
    return 0;
}

int proto_check_field_numbers(const proto_file_t *file, char **error)
{
    if (check_types(file->types, file->n_types, error) != 0)
        return -1;
    return check_extends(file->extends, file->n_extends, error);
}
