/*
 * avroc-interop: Avro records written and read by Debian's avro-c
 * (libavro-dev), the independent implementation the decoder's interop test
 * holds client/ to (tests/integration/test_decoder_interop.py,
 * docs/decoding.md "Interoperability"). Nothing of client/ or compat/ is
 * linked in: every byte written and every value read here is avro-c's.
 *
 *   avroc-interop write ID SCHEMA_FILE < values
 *       Each line is one value in Avro's JSON encoding (the specification's
 *       "JSON Encoding": a union as {"branch": value} or null, bytes and
 *       fixed as strings of code points 0-255; "NaN", "Infinity" and
 *       "-Infinity" as strings for float and double). It is built into an
 *       avro-c generic value with avro-c's setters and written with
 *       avro_value_write; the line printed is the record framed as
 *       Confluent's serializers frame it (0, ID as 4 bytes big-endian, the
 *       Avro binary), in hex, a tab, and the value avro-c holds (section 2).
 *
 *   avroc-interop read WRITER_FILE [READER_FILE] < records
 *       Each line is a framed record in hex; the payload is read with
 *       avro_value_read (into READER_FILE's schema through avro-c's
 *       resolved writer, when given) and printed as "ID<tab>JSON", the value
 *       avro-c read in the same JSON encoding (section 2). A record avro-c
 *       cannot read, or with bytes left after the value, is the line
 *       "error<tab>why".
 *
 * Contents
 *   1. JSON values -> avro-c values
 *   2. avro-c values -> JSON (avro_value_to_json refuses NaN: jansson has no NaN)
 *   3. write
 *   4. read
 */
#include <avro.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void die(const char *what, const char *why) __attribute__((noreturn));

static void die(const char *what, const char *why)
{
    fprintf(stderr, "avroc-interop: %s: %s\n", what, why);
    exit(2);
}

static avro_schema_t schema_from_file(const char *path)
{
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    if (!j)
        die(path, je.text);
    char *text = json_dumps(j, JSON_COMPACT);
    json_decref(j);
    avro_schema_t s;
    if (avro_schema_from_json_length(text, strlen(text), &s) != 0)
        die(path, avro_strerror());
    free(text);
    return s;
}

/* ---- 1. JSON values -> avro-c values ------------------------------------- */

/* Bytes and fixed in Avro's JSON encoding: each code point is one byte. */
static size_t latin1(const json_t *v, uint8_t *out, size_t cap)
{
    const char *s = json_string_value(v);
    size_t n = json_string_length(v), o = 0;
    if (!s)
        die("bytes", "not a string");
    for (size_t i = 0; i < n; i++) {
        uint8_t c = (uint8_t)s[i];
        if (o == cap)
            die("bytes", "too long");
        if (c < 0x80)
            out[o++] = c;
        else if ((c & 0xe0) == 0xc0 && c <= 0xc3 && i + 1 < n)
            out[o++] = (uint8_t)(((c & 0x1f) << 6) | ((uint8_t)s[++i] & 0x3f));
        else
            die("bytes", "a code point beyond 255");
    }
    return o;
}

static double number(const json_t *v)
{
    const char *s = json_string_value(v);
    if (s)
        return strcmp(s, "NaN") == 0 ? NAN : strcmp(s, "Infinity") == 0 ? INFINITY : -INFINITY;
    if (!json_is_number(v))
        die("float", "not a number");
    return json_number_value(v);
}

static void check(int rc, const char *what)
{
    if (rc != 0)
        die(what, avro_strerror());
}

static void set_value(avro_value_t *dst, const json_t *v)
{
    avro_schema_t s = avro_value_get_schema(dst);
    static uint8_t buf[1 << 16];
    switch (avro_value_get_type(dst)) {
    case AVRO_NULL: check(avro_value_set_null(dst), "null"); break;
    case AVRO_BOOLEAN: check(avro_value_set_boolean(dst, json_is_true(v)), "boolean"); break;
    case AVRO_INT32: check(avro_value_set_int(dst, (int32_t)json_integer_value(v)), "int"); break;
    case AVRO_INT64: check(avro_value_set_long(dst, (int64_t)json_integer_value(v)), "long"); break;
    case AVRO_FLOAT: check(avro_value_set_float(dst, (float)number(v)), "float"); break;
    case AVRO_DOUBLE: check(avro_value_set_double(dst, number(v)), "double"); break;
    case AVRO_STRING: {
        /* avro-c's size counts a NUL; the length keeps an embedded U+0000. */
        size_t n = json_string_length(v);
        char *t = malloc(n + 1);
        memcpy(t, json_string_value(v), n);
        t[n] = '\0';
        check(avro_value_set_string_len(dst, t, n + 1), "string");
        free(t);
        break;
    }
    case AVRO_BYTES: {
        size_t n = latin1(v, buf, sizeof(buf));
        check(avro_value_set_bytes(dst, buf, n), "bytes");
        break;
    }
    case AVRO_FIXED: {
        size_t n = latin1(v, buf, sizeof(buf));
        if ((int64_t)n != avro_schema_fixed_size(s))
            die("fixed", "not the schema's size");
        check(avro_value_set_fixed(dst, buf, n), "fixed");
        break;
    }
    case AVRO_ENUM: {
        int i = avro_schema_enum_get_by_name(s, json_string_value(v));
        if (i < 0)
            die("enum", json_string_value(v));
        check(avro_value_set_enum(dst, i), "enum");
        break;
    }
    case AVRO_RECORD:
        for (size_t i = 0; i < avro_schema_record_size(s); i++) {
            avro_value_t field;
            const char *name = avro_schema_record_field_name(s, (int)i);
            const json_t *fv = json_object_get(v, name);
            if (!fv)
                die("record", name);
            check(avro_value_get_by_index(dst, i, &field, NULL), "field");
            set_value(&field, fv);
        }
        break;
    case AVRO_ARRAY:
        for (size_t i = 0; i < json_array_size(v); i++) {
            avro_value_t item;
            check(avro_value_append(dst, &item, NULL), "array");
            set_value(&item, json_array_get(v, i));
        }
        break;
    case AVRO_MAP: {
        const char *k;
        json_t *e;
        json_object_foreach((json_t *)v, k, e)
        {
            avro_value_t item;
            check(avro_value_add(dst, k, &item, NULL, NULL), "map");
            set_value(&item, e);
        }
        break;
    }
    case AVRO_UNION: {
        /* null, or {"branch": value} with the branch's type name (a named
         * type's full name or its name). */
        const char *key = "null";
        const json_t *bv = v;
        if (!json_is_null(v)) {
            if (json_object_size(v) != 1)
                die("union", "not {\"branch\": value}");
            void *it = json_object_iter((json_t *)v);
            key = json_object_iter_key(it);
            bv = json_object_iter_value(it);
        }
        for (size_t i = 0; i < avro_schema_union_size(s); i++) {
            avro_schema_t b = avro_schema_union_branch(s, (int)i);
            if (is_avro_link(b)) /* a named type used again by name */
                b = avro_schema_link_target(b);
            const char *name = avro_schema_type_name(b), *ns = avro_schema_namespace(b);
            char full[512];
            snprintf(full, sizeof(full), "%s.%s", ns ? ns : "", name);
            if (strcmp(key, name) != 0 && strcmp(key, full) != 0)
                continue;
            avro_value_t branch;
            check(avro_value_set_branch(dst, (int)i, &branch), "union");
            set_value(&branch, bv);
            return;
        }
        die("union", key);
    }
    default: die("value", "a type this program does not build");
    }
}

/* ---- 2. avro-c values -> JSON ---------------------------------------------- */

static json_t *latin1_string(const uint8_t *s, size_t n)
{
    char *t = malloc(2 * n + 1);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < 0x80)
            t[o++] = (char)s[i];
        else {
            t[o++] = (char)(0xc0 | s[i] >> 6);
            t[o++] = (char)(0x80 | (s[i] & 0x3f));
        }
    }
    json_t *j = json_stringn(t, o);
    free(t);
    return j;
}

static json_t *real(double d)
{
    if (isnan(d))
        return json_string("NaN");
    if (isinf(d))
        return json_string(d > 0 ? "Infinity" : "-Infinity");
    return json_real(d);
}

static json_t *get_value(const avro_value_t *v)
{
    avro_schema_t s = avro_value_get_schema(v);
    switch (avro_value_get_type(v)) {
    case AVRO_NULL: return json_null();
    case AVRO_BOOLEAN: {
        int b;
        check(avro_value_get_boolean(v, &b), "boolean");
        return json_boolean(b);
    }
    case AVRO_INT32: {
        int32_t i;
        check(avro_value_get_int(v, &i), "int");
        return json_integer(i);
    }
    case AVRO_INT64: {
        int64_t i;
        check(avro_value_get_long(v, &i), "long");
        return json_integer(i);
    }
    case AVRO_FLOAT: {
        float f;
        check(avro_value_get_float(v, &f), "float");
        return real(f);
    }
    case AVRO_DOUBLE: {
        double d;
        check(avro_value_get_double(v, &d), "double");
        return real(d);
    }
    case AVRO_STRING: {
        const char *str;
        size_t n;
        check(avro_value_get_string(v, &str, &n), "string");
        return json_stringn(str, n ? n - 1 : 0); /* n counts the NUL */
    }
    case AVRO_BYTES:
    case AVRO_FIXED: {
        const void *b;
        size_t n;
        check(avro_value_get_type(v) == AVRO_BYTES ? avro_value_get_bytes(v, &b, &n)
                                                   : avro_value_get_fixed(v, &b, &n),
              "bytes");
        return latin1_string(b, n);
    }
    case AVRO_ENUM: {
        int i;
        check(avro_value_get_enum(v, &i), "enum");
        return json_string(avro_schema_enum_get(s, i));
    }
    case AVRO_RECORD:
    case AVRO_MAP: {
        size_t n;
        check(avro_value_get_size(v, &n), "size");
        json_t *o = json_object();
        for (size_t i = 0; i < n; i++) {
            avro_value_t child;
            const char *name;
            check(avro_value_get_by_index(v, i, &child, &name), "field");
            json_object_set_new(o, name, get_value(&child));
        }
        return o;
    }
    case AVRO_ARRAY: {
        size_t n;
        check(avro_value_get_size(v, &n), "size");
        json_t *a = json_array();
        for (size_t i = 0; i < n; i++) {
            avro_value_t child;
            check(avro_value_get_by_index(v, i, &child, NULL), "item");
            json_array_append_new(a, get_value(&child));
        }
        return a;
    }
    case AVRO_UNION: {
        avro_value_t branch;
        check(avro_value_get_current_branch(v, &branch), "union");
        if (avro_value_get_type(&branch) == AVRO_NULL)
            return json_null();
        avro_schema_t b = avro_value_get_schema(&branch);
        const char *name = avro_schema_type_name(b), *ns = avro_schema_namespace(b);
        char full[512];
        snprintf(full, sizeof(full), "%s%s%s", ns && *ns ? ns : "", ns && *ns ? "." : "", name);
        json_t *o = json_object();
        json_object_set_new(o, full, get_value(&branch));
        return o;
    }
    default: die("value", "a type this program does not print");
    }
}

static void print_value(const avro_value_t *v)
{
    json_t *j = get_value(v);
    char *text = json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(17));
    fputs(text, stdout);
    free(text);
    json_decref(j);
}

/* ---- 3. write ------------------------------------------------------------- */

static int cmd_write(long id, const char *schema_file)
{
    avro_schema_t s = schema_from_file(schema_file);
    avro_value_iface_t *iface = avro_generic_class_from_schema(s);
    avro_value_t value;
    check(avro_generic_value_new(iface, &value), "value");
    static char line[1 << 20], out[1 << 20];
    while (fgets(line, sizeof(line), stdin)) {
        if (line[0] == '\n')
            continue;
        json_error_t je;
        json_t *v = json_loads(line, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
        if (!v)
            die("value", je.text);
        check(avro_value_reset(&value), "reset");
        set_value(&value, v);
        json_decref(v);
        avro_writer_t w = avro_writer_memory(out, sizeof(out));
        check(avro_value_write(w, &value), "write");
        int64_t n = avro_writer_tell(w);
        avro_writer_free(w);
        printf("00%08lx", (unsigned long)id);
        for (int64_t i = 0; i < n; i++)
            printf("%02x", (uint8_t)out[i]);
        putchar('\t');
        print_value(&value);
        putchar('\n');
    }
    avro_value_decref(&value);
    avro_value_iface_decref(iface);
    avro_schema_decref(s);
    return 0;
}

/* ---- 4. read -------------------------------------------------------------- */

static int cmd_read(const char *writer_file, const char *reader_file)
{
    avro_schema_t ws = schema_from_file(writer_file), rs = reader_file ? schema_from_file(reader_file) : NULL;
    avro_value_iface_t *iface = avro_generic_class_from_schema(rs ? rs : ws);
    avro_value_t value, resolved;
    check(avro_generic_value_new(iface, &value), "value");
    avro_value_iface_t *resolver = NULL;
    if (rs) {
        resolver = avro_resolved_writer_new(ws, rs);
        if (!resolver)
            die("resolve", avro_strerror());
        check(avro_resolved_writer_new_value(resolver, &resolved), "resolved value");
        avro_resolved_writer_set_dest(&resolved, &value);
    }
    static char line[1 << 21];
    static uint8_t rec[1 << 20];
    while (fgets(line, sizeof(line), stdin)) {
        size_t n = 0;
        for (size_t i = 0; line[i] && line[i] != '\n' && line[i + 1] && n < sizeof(rec); i += 2) {
            unsigned b;
            if (sscanf(line + i, "%2x", &b) != 1)
                die("record", "not hex");
            rec[n++] = (uint8_t)b;
        }
        if (n == 0)
            continue;
        if (n < 5 || rec[0] != 0) {
            printf("error\tnot a framed record\n");
            continue;
        }
        unsigned long id =
            (unsigned long)rec[1] << 24 | (unsigned long)rec[2] << 16 | (unsigned long)rec[3] << 8 | rec[4];
        avro_reader_t r = avro_reader_memory((const char *)rec + 5, (int64_t)(n - 5));
        check(avro_value_reset(&value), "reset");
        avro_set_error("%s", ""); /* avro-c's message accumulates */
        if (avro_value_read(r, rs ? &resolved : &value) != 0)
            printf("error\t%s\n", avro_strerror());
        else if (avro_read(r, line, 1) == 0)
            printf("error\tbytes left after the value\n");
        else {
            printf("%lu\t", id);
            print_value(&value);
            putchar('\n');
        }
        avro_reader_free(r);
    }
    if (resolver) {
        avro_value_decref(&resolved);
        avro_value_iface_decref(resolver);
    }
    avro_value_decref(&value);
    avro_value_iface_decref(iface);
    avro_schema_decref(ws);
    if (rs)
        avro_schema_decref(rs);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "write") == 0) {
        char *end;
        errno = 0;
        long id = strtol(argv[2], &end, 10);
        if (errno || *end || id < 0 || id > 0x7fffffffL)
            die("write", "ID is not a schema id");
        return cmd_write(id, argv[3]);
    }
    if ((argc == 3 || argc == 4) && strcmp(argv[1], "read") == 0)
        return cmd_read(argv[2], argc == 4 ? argv[3] : NULL);
    fprintf(stderr, "usage: avroc-interop write ID SCHEMA_FILE < values\n"
                    "       avroc-interop read WRITER_FILE [READER_FILE] < records\n");
    return 2;
}
