/*
 * avro_normalize: the text Confluent's AvroSchemaUtils.toNormalizedString
 * builds for normalize=true (docs/compatibility.md "Stored text"); the caller parses it again and
 * stores the canonical text of the result.
 *
 * Contents
 *   1. Sorted properties, aliases, logical-type attributes
 *   2. Field defaults, converted through Avro's JacksonUtils.toObject
 *   3. Types
 *
 * Every JSON value Confluent writes here (property values, defaults) goes
 * through AvroSchemaUtils.toJsonNode, whose node factory keeps object
 * members in a TreeMap: keys sorted at every depth, as String.compareTo
 * orders them. An integer beyond int64 is no Java object to toObject
 * (null): a default made of one is dropped, one inside a value throws.
 *
 * Everything Confluent writes unescaped (names, symbols, property keys) is
 * written unescaped here too; defaults are converted by their schema, which
 * turns a float default into Float precision, drops a default that matches
 * only a later union branch, and fails where Confluent's code throws.
 */
#include "compat/avro/internal.h"
#include "base/utf8.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct norm_ctx {
    strbuf_t *b;
    hmap_t emitted; /* full names written (or provided by references) */
    char *error;
    int depth;
} norm_ctx_t;

static void norm_node(norm_ctx_t *c, const avro_node_t *n);

typedef enum norm_status {
    NORM_OK,
    NORM_NULL, /* toObject returned null: dropped at top level, fatal inside */
    NORM_FAIL, /* Confluent's code throws */
} norm_status_t;

static int key_order(const void *a, const void *b)
{
    return utf8_java_cmp(*(const char *const *)a, *(const char *const *)b);
}

/* The object's keys in TreeMap order (malloc'd; NULL when empty or out of memory). */
static const char **sorted_keys(const json_t *obj, size_t *n)
{
    *n = json_object_size(obj);
    const char **keys = *n ? malloc(*n * sizeof *keys) : NULL;
    if (!keys)
        return NULL;
    size_t i = 0;
    const char *key;
    json_t *member;
    json_object_foreach((json_t *)obj, key, member) keys[i++] = key;
    qsort(keys, *n, sizeof *keys, key_order);
    return keys;
}

/* toJsonNode(toObject(v)) without a schema, as setSimpleProps writes a property value. */
static norm_status_t norm_json(strbuf_t *b, const json_t *v)
{
    if (avro_json_is_bigint(v))
        return NORM_FAIL;
    if (json_is_array(v)) {
        strbuf_putc(b, '[');
        for (size_t i = 0; i < json_array_size(v); i++) {
            if (i)
                strbuf_putc(b, ',');
            if (norm_json(b, json_array_get(v, i)) != NORM_OK)
                return NORM_FAIL;
        }
        strbuf_putc(b, ']');
        return NORM_OK;
    }
    if (!json_is_object(v)) {
        avro_buf_json_value(b, v);
        return NORM_OK;
    }
    size_t n;
    const char **keys = sorted_keys(v, &n);
    if (n && !keys) {
        b->failed = 1;
        return NORM_FAIL;
    }
    norm_status_t st = NORM_OK;
    strbuf_putc(b, '{');
    for (size_t i = 0; i < n && st == NORM_OK; i++) {
        if (i)
            strbuf_putc(b, ',');
        avro_buf_json_string(b, keys[i]);
        strbuf_putc(b, ':');
        st = norm_json(b, json_object_get(v, keys[i]));
    }
    strbuf_putc(b, '}');
    free(keys);
    return st;
}

static void norm_fail(norm_ctx_t *c, const char *what, const char *name)
{
    if (!c->error && asprintf(&c->error, "Cannot normalize schema: %s%s", what, name ? name : "") < 0)
        c->error = NULL;
    c->b->failed = 1;
}

static void put_quoted_raw(strbuf_t *b, const char *s)
{
    strbuf_putc(b, '"');
    strbuf_puts(b, s);
    strbuf_putc(b, '"');
}

/* ---- 1. Sorted properties, aliases, logical-type attributes ------------------------------ */

static int prop_order(const void *a, const void *b)
{
    return utf8_java_cmp(((const avro_prop_t *)a)->key, ((const avro_prop_t *)b)->key);
}

static int string_order(const void *a, const void *b)
{
    return utf8_java_cmp(*(char *const *)a, *(char *const *)b);
}

/* setSimpleProps: every property, keys sorted (a TreeMap), keys unescaped. */
static void norm_props(norm_ctx_t *c, const avro_props_t *props)
{
    if (!props->n)
        return;
    avro_prop_t *sorted = malloc(props->n * sizeof *sorted);
    if (!sorted) {
        c->b->failed = 1;
        return;
    }
    memcpy(sorted, props->items, props->n * sizeof *sorted);
    qsort(sorted, props->n, sizeof *sorted, prop_order);
    for (size_t i = 0; i < props->n; i++) {
        strbuf_puts(c->b, ",\"");
        strbuf_puts(c->b, sorted[i].key);
        strbuf_puts(c->b, "\":");
        if (norm_json(c->b, sorted[i].value) != NORM_OK) {
            norm_fail(c, "cannot convert the value of property ", sorted[i].key);
            break;
        }
    }
    free(sorted);
}

/* A JSON array of the strings, sorted as a Java TreeSet. */
static void norm_sorted_strings(norm_ctx_t *c, const char *key, char **strings, size_t n)
{
    if (!n)
        return;
    qsort(strings, n, sizeof *strings, string_order);
    strbuf_printf(c->b, ",\"%s\":", key);
    for (size_t i = 0; i < n; i++) {
        strbuf_putc(c->b, i ? ',' : '[');
        avro_buf_json_string(c->b, strings[i]);
    }
    strbuf_putc(c->b, ']');
}

static void norm_field_aliases(norm_ctx_t *c, const avro_field_t *f)
{
    if (!f->n_aliases)
        return;
    char **copy = malloc(f->n_aliases * sizeof *copy);
    if (!copy) {
        c->b->failed = 1;
        return;
    }
    memcpy(copy, f->aliases, f->n_aliases * sizeof *copy);
    norm_sorted_strings(c, "aliases", copy, f->n_aliases);
    free(copy);
}

static void norm_type_aliases(norm_ctx_t *c, const avro_node_t *n)
{
    size_t count = n->named->n_aliases;
    char **strings = calloc(count ? count : 1, sizeof *strings);
    if (!strings) {
        c->b->failed = 1;
        return;
    }
    for (size_t i = 0; i < count; i++) {
        strbuf_t tmp = {0};
        avro_buf_alias_string(&tmp, n, &n->named->aliases[i]);
        if (!(strings[i] = strbuf_take(&tmp)))
            c->b->failed = 1;
    }
    if (!c->b->failed)
        norm_sorted_strings(c, "aliases", strings, count);
    for (size_t i = 0; i < count; i++)
        free(strings[i]);
    free(strings);
}

static void norm_logical(norm_ctx_t *c, const avro_node_t *n)
{
    if (n->logical == AVRO_LOGICAL_NONE)
        return;
    strbuf_printf(c->b, ",\"logicalType\":\"%s\"", avro_logical_name(n->logical));
    if (n->logical != AVRO_LOGICAL_DECIMAL)
        return;
    strbuf_printf(c->b, ",\"precision\":%d", n->precision);
    if (n->scale != 0)
        strbuf_printf(c->b, ",\"scale\":%d", n->scale);
}

/* ---- 2. Field defaults
 * ------------------------------------------------------------------------ */

static norm_status_t norm_datum(strbuf_t *b, const json_t *v, const avro_node_t *s, int is_number);

/* Jackson writes a non-finite number as a string. */
static void put_java_number(strbuf_t *b, double v, int as_float)
{
    if (!isfinite(as_float ? (float)v : v)) {
        strbuf_putc(b, '"');
        if (as_float)
            avro_buf_java_float(b, (float)v);
        else
            avro_buf_java_double(b, v);
        strbuf_putc(b, '"');
    } else if (as_float) {
        avro_buf_java_float(b, (float)v);
    } else {
        avro_buf_java_double(b, v);
    }
}

static norm_status_t norm_integer(strbuf_t *b, json_int_t v, const avro_node_t *s)
{
    avro_kind_t k = s ? s->kind : (v >= INT32_MIN && v <= INT32_MAX ? AVRO_KIND_INT : AVRO_KIND_LONG);
    if (k == AVRO_KIND_INT || k == AVRO_KIND_LONG)
        strbuf_printf(b, "%" JSON_INTEGER_FORMAT, v);
    else if (k == AVRO_KIND_FLOAT || k == AVRO_KIND_DOUBLE)
        put_java_number(b, (double)v, k == AVRO_KIND_FLOAT);
    else
        return NORM_NULL;
    return NORM_OK;
}

static norm_status_t norm_real(strbuf_t *b, double v, const avro_node_t *s)
{
    if (s && s->kind != AVRO_KIND_FLOAT && s->kind != AVRO_KIND_DOUBLE)
        return NORM_NULL;
    put_java_number(b, v, s && s->kind == AVRO_KIND_FLOAT);
    return NORM_OK;
}

/* bytes/fixed defaults go through ISO-8859-1 bytes and back: other characters become '?'. */
static void put_latin1_string(strbuf_t *b, const char *s, size_t len)
{
    strbuf_t tmp = {0};
    const unsigned char *end = (const unsigned char *)s + len;
    for (const unsigned char *p = (const unsigned char *)s; p < end;) {
        if (*p < 0x80) {
            strbuf_putc(&tmp, (char)*p++);
            continue;
        }
        int width = *p >= 0xF0 ? 4 : *p >= 0xE0 ? 3 : 2;
        if (width == 2 && *p <= 0xC3)
            strbuf_put(&tmp, (const char *)p, 2);
        else
            strbuf_putc(&tmp, '?');
        for (int i = 0; i < width && p < end; i++)
            p++;
    }
    size_t n = tmp.len;
    char *text = strbuf_take(&tmp);
    if (!text) {
        b->failed = 1;
        return;
    }
    avro_buf_json_stringn(b, text, n);
    free(text);
}

static norm_status_t norm_string(strbuf_t *b, const json_t *v, const avro_node_t *s)
{
    size_t len = json_string_length(v);
    const char *text = json_string_value(v);
    if (!s || s->kind == AVRO_KIND_STRING || s->kind == AVRO_KIND_ENUM)
        avro_buf_json_stringn(b, text, len);
    else if (s->kind == AVRO_KIND_BYTES || s->kind == AVRO_KIND_FIXED)
        put_latin1_string(b, text, len);
    else
        return NORM_NULL;
    return NORM_OK;
}

static norm_status_t norm_array(strbuf_t *b, const json_t *v, const avro_node_t *s)
{
    if (s && s->kind != AVRO_KIND_ARRAY)
        return NORM_FAIL;
    strbuf_putc(b, '[');
    for (size_t i = 0; i < json_array_size(v); i++) {
        if (i)
            strbuf_putc(b, ',');
        if (norm_datum(b, json_array_get(v, i), s ? s->u.items : NULL, 0) != NORM_OK)
            return NORM_FAIL;
    }
    strbuf_putc(b, ']');
    return NORM_OK;
}

static const avro_node_t *member_schema(const avro_node_t *s, const char *key, int *missing)
{
    *missing = 0;
    if (s && s->kind == AVRO_KIND_MAP)
        return s->u.items;
    if (!s || s->kind != AVRO_KIND_RECORD)
        return NULL;
    long idx = avro_index_find(s->u.record.by_name, key);
    *missing = idx < 0;
    return idx < 0 ? NULL : s->u.record.fields[idx].type;
}

/* A record or map default: members converted by their schema, keys sorted (toJsonNode). */
static norm_status_t norm_object(strbuf_t *b, const json_t *v, const avro_node_t *s)
{
    size_t n;
    const char **keys = sorted_keys(v, &n);
    if (n && !keys) {
        b->failed = 1;
        return NORM_FAIL;
    }
    norm_status_t st = NORM_OK;
    int missing;
    strbuf_putc(b, '{');
    for (size_t i = 0; i < n && st == NORM_OK; i++) {
        const avro_node_t *ms = member_schema(s, keys[i], &missing);
        if (missing) {
            st = NORM_FAIL;
            break;
        }
        if (i)
            strbuf_putc(b, ',');
        avro_buf_json_string(b, keys[i]);
        strbuf_putc(b, ':');
        if (norm_datum(b, json_object_get(v, keys[i]), ms, 0) != NORM_OK)
            st = NORM_FAIL;
    }
    strbuf_putc(b, '}');
    free(keys);
    return st;
}

/* JacksonUtils.toObject(value, schema) followed by Jackson's output of it. */
static norm_status_t norm_datum(strbuf_t *b, const json_t *v, const avro_node_t *s, int is_number)
{
    if (s && s->kind == AVRO_KIND_UNION) {
        if (!s->u.uni.n)
            return NORM_FAIL;
        s = s->u.uni.branches[0];
    }
    if (!v || avro_json_is_bigint(v))
        return NORM_NULL;
    if (is_number)
        return norm_string(b, v, NULL);
    switch (json_typeof(v)) {
    case JSON_NULL: strbuf_puts(b, "null"); return NORM_OK;
    case JSON_TRUE: strbuf_puts(b, "true"); return NORM_OK;
    case JSON_FALSE: strbuf_puts(b, "false"); return NORM_OK;
    case JSON_INTEGER: return norm_integer(b, json_integer_value(v), s);
    case JSON_REAL: return norm_real(b, json_real_value(v), s);
    case JSON_STRING: return norm_string(b, v, s);
    case JSON_ARRAY: return norm_array(b, v, s);
    case JSON_OBJECT: return norm_object(b, v, s);
    }
    return NORM_FAIL;
}

static void norm_field_default(norm_ctx_t *c, const avro_field_t *f)
{
    strbuf_t tmp = {0};
    norm_status_t st = norm_datum(&tmp, f->def, f->type, f->def_is_number);
    char *text = strbuf_take(&tmp);
    if (st == NORM_FAIL)
        norm_fail(c, "cannot convert the default of field ", f->name);
    else if (!text)
        c->b->failed = 1;
    else if (st == NORM_OK) {
        strbuf_puts(c->b, ",\"default\":");
        strbuf_puts(c->b, text);
    }
    free(text);
}

/* ---- 3. Types
 * ------------------------------------------------------------------------------------- */

static const char *order_upper(avro_order_t o)
{
    return o == AVRO_ORDER_DESCENDING ? "DESCENDING" : o == AVRO_ORDER_IGNORE ? "IGNORE" : "ASCENDING";
}

static void norm_field(norm_ctx_t *c, const avro_field_t *f)
{
    strbuf_puts(c->b, "{\"name\":");
    put_quoted_raw(c->b, f->name);
    strbuf_puts(c->b, ",\"type\":");
    norm_node(c, f->type);
    strbuf_printf(c->b, ",\"order\":\"%s\"", order_upper(f->order));
    if (f->doc) {
        strbuf_puts(c->b, ",\"doc\":");
        avro_buf_json_value(c->b, f->doc);
    }
    norm_field_aliases(c, f);
    norm_field_default(c, f);
    norm_props(c, &f->props);
    strbuf_putc(c->b, '}');
}

static void norm_body(norm_ctx_t *c, const avro_node_t *n)
{
    if (n->kind == AVRO_KIND_ENUM) {
        strbuf_puts(c->b, ",\"symbols\":[");
        for (size_t i = 0; i < n->u.enm.n; i++) {
            if (i)
                strbuf_putc(c->b, ',');
            put_quoted_raw(c->b, n->u.enm.symbols[i]);
        }
        strbuf_putc(c->b, ']');
    } else if (n->kind == AVRO_KIND_FIXED) {
        strbuf_printf(c->b, ",\"size\":%d", n->u.fixed.size);
    } else {
        strbuf_puts(c->b, ",\"fields\":[");
        for (size_t i = 0; i < n->u.record.n; i++) {
            if (i)
                strbuf_putc(c->b, ',');
            norm_field(c, &n->u.record.fields[i]);
        }
        strbuf_putc(c->b, ']');
    }
}

/* Full name, no namespace key; "record" even for an error type. */
static void norm_named(norm_ctx_t *c, const avro_node_t *n)
{
    const char *full = n->named->name.full;
    if (hmap_gets(&c->emitted, full)) {
        put_quoted_raw(c->b, full);
        return;
    }
    if (hmap_puts_try(&c->emitted, full, (void *)n, NULL) != 0)
        c->b->failed = 1;
    strbuf_puts(c->b, "{\"name\":");
    put_quoted_raw(c->b, full);
    strbuf_printf(c->b, ",\"type\":\"%s\"", avro_kind_name(n->kind));
    norm_body(c, n);
    norm_logical(c, n);
    if (n->named->doc && json_string_length(n->named->doc)) {
        strbuf_puts(c->b, ",\"doc\":");
        avro_buf_json_value(c->b, n->named->doc);
    }
    norm_type_aliases(c, n);
    if (n->kind == AVRO_KIND_ENUM && n->u.enm.def) {
        strbuf_puts(c->b, ",\"default\":");
        avro_buf_json_string(c->b, n->u.enm.def);
    }
    norm_props(c, &n->props);
    strbuf_putc(c->b, '}');
}

static void norm_primitive(norm_ctx_t *c, const avro_node_t *n)
{
    if (n->logical == AVRO_LOGICAL_NONE && !n->props.n) {
        put_quoted_raw(c->b, avro_kind_name(n->kind));
        return;
    }
    strbuf_printf(c->b, "{\"type\":\"%s\"", avro_kind_name(n->kind));
    norm_logical(c, n);
    norm_props(c, &n->props);
    strbuf_putc(c->b, '}');
}

static void norm_kind(norm_ctx_t *c, const avro_node_t *n)
{
    switch (n->kind) {
    case AVRO_KIND_UNION:
        strbuf_putc(c->b, '[');
        for (size_t i = 0; i < n->u.uni.n; i++) {
            if (i)
                strbuf_putc(c->b, ',');
            norm_node(c, n->u.uni.branches[i]);
        }
        strbuf_putc(c->b, ']');
        break;
    case AVRO_KIND_ARRAY:
    case AVRO_KIND_MAP:
        strbuf_puts(c->b, n->kind == AVRO_KIND_ARRAY ? "{\"type\":\"array\",\"items\":"
                                                     : "{\"type\":\"map\",\"values\":");
        norm_node(c, n->u.items);
        norm_logical(c, n);
        norm_props(c, &n->props);
        strbuf_putc(c->b, '}');
        break;
    case AVRO_KIND_RECORD:
    case AVRO_KIND_ENUM:
    case AVRO_KIND_FIXED: norm_named(c, n); break;
    default: norm_primitive(c, n); break;
    }
}

static void norm_node(norm_ctx_t *c, const avro_node_t *n)
{
    if (c->depth >= 4 * AVRO_MAX_DEPTH) {
        c->b->failed = 1;
        return;
    }
    c->depth++;
    norm_kind(c, n);
    c->depth--;
}

int avro_write_normalized(strbuf_t *b, const avro_model_t *m, char **error)
{
    norm_ctx_t c = {.b = b};
    for (size_t i = 0; i < m->n_ref_names; i++)
        if (hmap_puts_try(&c.emitted, m->ref_names[i], (void *)m->ref_names[i], NULL) != 0)
            b->failed = 1;
    norm_node(&c, m->root);
    hmap_clear(&c.emitted);
    if (c.error) {
        *error = c.error;
        return -1;
    }
    return b->failed ? -1 : 0;
}
