/*
 * avro_decode: Avro binary -> JSON rows, read into a reader schema
 * (client.h, section 3). Our own decoder, because it must never trust the
 * input: every length is checked against the bytes left, nesting and the
 * values of one record are counted, and the output is bounded.
 *
 * Contents
 *   1. The plan: writer x reader pairs resolved once (the Avro
 *      specification's "Schema Resolution")
 *   2. Defaults: a reader field's default as a JSON row value
 *   3. Reading: varints, lengths, skipping a writer's value
 *   4. Decoding a value by its plan
 *   5. The API
 *
 * The plan is what Avro Java's ResolvingGrammarGenerator computes: built
 * once per (writer, reader) pair of nodes, memoized by the pair so a
 * recursive schema is a finite graph, and unresolvable pairs become error
 * steps that fail only when a record reaches them.
 */
#include "client/internal.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/arena.h"
#include "base/hmap.h"

/* ---- 1. The plan ---------------------------------------------------------- */

typedef enum plan_op {
    PLAN_ERROR, /* unresolvable: fails when reached */
    PLAN_PRIM,  /* a primitive, promoted from the writer's kind to the reader's */
    PLAN_RECORD,
    PLAN_ENUM,
    PLAN_ARRAY,
    PLAN_MAP,
    PLAN_FIXED,
    PLAN_WUNION, /* the writer is a union: one plan per writer branch */
    PLAN_RUNION, /* only the reader is: the writer resolved against one branch */
} plan_op_t;

typedef struct plan plan_t;

typedef struct plan_step {
    long rindex; /* the reader field this writer field fills, or -1: skipped */
    const plan_t *plan;
    const avro_node_t *wtype; /* what is skipped */
} plan_step_t;

struct plan {
    plan_op_t op;
    const avro_node_t *w, *r;
    /* The nodes' kinds and the reader's logical type, kept here so that the
     * per-value path reads the plan only, not the model through calls. */
    avro_kind_t wk, rk;
    avro_logical_t rl;
    const char *error;
    union {
        struct {
            plan_step_t *steps; /* one per writer field, in writer order */
            size_t nw, nr;
            const char **keys; /* "\"name\":" per reader field */
            size_t *key_lens;
            const char **defaults; /* rendered default per reader field the writer lacks, else NULL */
            int direct;            /* writer order fills every reader field in reader order */
        } rec;
        struct {
            long *map;         /* writer symbol -> reader symbol, -1: no default either */
            const char **text; /* writer symbol -> the reader's symbol as a JSON string, or NULL */
            size_t *text_lens;
            size_t n; /* the writer's symbols */
        } enm;
        const plan_t *items;
        struct {
            const plan_t **branches;
            size_t n;
        } wun;
        struct {
            const plan_t *inner;
        } run;
    } u;
};

struct srclient_avro_reader {
    arena_t *arena;
    hmap_t memo; /* (writer node, reader node) -> plan_t * */
    const plan_t *root;
    srclient_avro_limits_t limits;
    char *error;
};

static void *plan_alloc(srclient_avro_reader_t *rd, size_t size)
{
    void *p = arena_alloc(rd->arena, size);
    if (!p)
        base_oom(size);
    memset(p, 0, size);
    return p;
}

static const char *plan_printf(srclient_avro_reader_t *rd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static const char *plan_printf(srclient_avro_reader_t *rd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = xvasprintf(fmt, ap);
    va_end(ap);
    char *out = arena_strdup(rd->arena, s);
    free(s);
    if (!out)
        base_oom(0);
    return out;
}

static const char *node_label(const avro_node_t *n)
{
    const char *full = avro_node_fullname(n);
    if (full)
        return full;
    static const char *const names[] = {"null",   "boolean", "int",    "long",   "float",
                                        "double", "bytes",   "string", "record", "enum",
                                        "array",  "map",     "union",  "fixed",  "record"};
    return names[avro_node_kind(n)];
}

/* Named types match by full name or by one of the reader's aliases. */
static int names_match(const avro_node_t *w, const avro_node_t *r)
{
    const char *wn = avro_node_fullname(w), *rn = avro_node_fullname(r);
    if (!wn || !rn)
        return 0;
    if (strcmp(wn, rn) == 0)
        return 1;
    for (size_t i = 0; i < avro_node_n_aliases(r); i++)
        if (strcmp(avro_node_alias(r, i), wn) == 0)
            return 1;
    return 0;
}

/* The specification's promotions: int -> long, float, double; long ->
 * float, double; float -> double; string <-> bytes. */
static int promotes(avro_kind_t w, avro_kind_t r)
{
    switch (w) {
    case AVRO_KIND_INT: return r == AVRO_KIND_LONG || r == AVRO_KIND_FLOAT || r == AVRO_KIND_DOUBLE;
    case AVRO_KIND_LONG: return r == AVRO_KIND_FLOAT || r == AVRO_KIND_DOUBLE;
    case AVRO_KIND_FLOAT: return r == AVRO_KIND_DOUBLE;
    case AVRO_KIND_STRING: return r == AVRO_KIND_BYTES;
    case AVRO_KIND_BYTES: return r == AVRO_KIND_STRING;
    default: return 0;
    }
}

static int is_named(avro_kind_t k)
{
    return k == AVRO_KIND_RECORD || k == AVRO_KIND_ENUM || k == AVRO_KIND_FIXED;
}

/* The reader branch a writer type resolves to (ResolvingGrammarGenerator.bestBranch):
 * the same type (named: the same name or an alias), else a promotion, else
 * a named type of the same kind and unqualified name; -1 when none. */
static long best_branch(const avro_node_t *w, const avro_node_t *r)
{
    avro_kind_t wk = avro_node_kind(w);
    size_t n = avro_node_size(r);
    for (size_t i = 0; i < n; i++) {
        const avro_node_t *b = avro_node_branch(r, i);
        if (avro_node_kind(b) == wk && (!is_named(wk) || names_match(w, b)))
            return (long)i;
    }
    for (size_t i = 0; i < n; i++)
        if (promotes(wk, avro_node_kind(avro_node_branch(r, i))))
            return (long)i;
    if (is_named(wk)) {
        const char *wn = strrchr(avro_node_fullname(w), '.');
        wn = wn ? wn + 1 : avro_node_fullname(w);
        for (size_t i = 0; i < n; i++) {
            const avro_node_t *b = avro_node_branch(r, i);
            if (avro_node_kind(b) != wk)
                continue;
            const char *bn = strrchr(avro_node_fullname(b), '.');
            bn = bn ? bn + 1 : avro_node_fullname(b);
            if (strcmp(wn, bn) == 0)
                return (long)i;
        }
    }
    return -1;
}

static int default_render(strbuf_t *b, const avro_node_t *r, const json_t *v, int depth);

static const plan_t *plan_build(srclient_avro_reader_t *rd, const avro_node_t *w, const avro_node_t *r);

static void plan_record(srclient_avro_reader_t *rd, plan_t *p)
{
    const avro_node_t *w = p->w, *r = p->r;
    size_t nw = avro_node_size(w), nr = avro_node_size(r);
    p->u.rec.nw = nw;
    p->u.rec.nr = nr;
    p->u.rec.steps = plan_alloc(rd, (nw + 1) * sizeof(plan_step_t));
    p->u.rec.keys = plan_alloc(rd, (nr + 1) * sizeof(char *));
    p->u.rec.key_lens = plan_alloc(rd, (nr + 1) * sizeof(size_t));
    p->u.rec.defaults = plan_alloc(rd, (nr + 1) * sizeof(char *));
    for (size_t i = 0; i < nw; i++) {
        p->u.rec.steps[i].rindex = -1;
        p->u.rec.steps[i].wtype = avro_field_type(w, i);
    }
    int direct = 1;
    long last = -1;
    for (size_t j = 0; j < nr; j++) {
        strbuf_t key = {0};
        const char *name = avro_field_name(r, j);
        cl_json_string(&key, (const uint8_t *)name, strlen(name));
        strbuf_putc(&key, ':');
        p->u.rec.key_lens[j] = key.len;
        char *k = strbuf_take(&key);
        if (!k)
            base_oom(0);
        p->u.rec.keys[j] = arena_strdup(rd->arena, k);
        free(k);
        /* The writer's field: by the reader field's name, else by its aliases. */
        long wi = avro_field_index(w, name);
        for (size_t a = 0; wi < 0 && a < avro_field_n_aliases(r, j); a++)
            wi = avro_field_index(w, avro_field_alias(r, j, a));
        if (wi >= 0 && p->u.rec.steps[wi].rindex < 0) {
            p->u.rec.steps[wi].rindex = (long)j;
            continue;
        }
        direct = 0;
        const json_t *def = avro_field_default(r, j);
        strbuf_t d = {0};
        if (!def || default_render(&d, avro_field_type(r, j), def, 0) != 0) {
            strbuf_free(&d);
            p->op = PLAN_ERROR;
            p->error =
                plan_printf(rd, "%s: the reader's field %s is not in the writer's schema and has %s",
                            node_label(r), name, def ? "a default that does not fit its type" : "no default");
            return;
        }
        char *ds = strbuf_take(&d);
        if (!ds)
            base_oom(0);
        p->u.rec.defaults[j] = arena_strdup(rd->arena, ds);
        free(ds);
    }
    for (size_t i = 0; i < nw; i++) {
        plan_step_t *s = &p->u.rec.steps[i];
        if (s->rindex < 0)
            continue;
        if (s->rindex <= last)
            direct = 0;
        last = s->rindex;
        s->plan = plan_build(rd, avro_field_type(w, i), avro_field_type(r, (size_t)s->rindex));
    }
    p->u.rec.direct = direct;
}

static const plan_t *plan_build(srclient_avro_reader_t *rd, const avro_node_t *w, const avro_node_t *r)
{
    plan_t *p = hmap_get_pair(&rd->memo, w, r);
    if (p)
        return p;
    p = plan_alloc(rd, sizeof(*p));
    p->w = w;
    p->r = r;
    p->wk = avro_node_kind(w);
    p->rk = avro_node_kind(r);
    p->rl = avro_node_logical(r);
    if (hmap_put_pair_try(&rd->memo, w, r, p) != 0)
        base_oom(0);
    avro_kind_t wk = avro_node_kind(w), rk = avro_node_kind(r);
    if (wk == AVRO_KIND_UNION) {
        p->op = PLAN_WUNION;
        p->u.wun.n = avro_node_size(w);
        p->u.wun.branches = plan_alloc(rd, (p->u.wun.n + 1) * sizeof(plan_t *));
        for (size_t i = 0; i < p->u.wun.n; i++)
            p->u.wun.branches[i] = plan_build(rd, avro_node_branch(w, i), r);
        return p;
    }
    if (rk == AVRO_KIND_UNION) {
        long b = best_branch(w, r);
        if (b < 0) {
            p->op = PLAN_ERROR;
            p->error =
                plan_printf(rd, "the writer's %s matches no branch of the reader's union", node_label(w));
        } else {
            p->op = PLAN_RUNION;
            p->u.run.inner = plan_build(rd, w, avro_node_branch(r, (size_t)b));
        }
        return p;
    }
    if (wk != rk && !promotes(wk, rk)) {
        p->op = PLAN_ERROR;
        p->error = plan_printf(rd, "the writer's %s cannot be read as the reader's %s", node_label(w),
                               node_label(r));
        return p;
    }
    if (is_named(wk) && !names_match(w, r)) {
        p->op = PLAN_ERROR;
        p->error = plan_printf(rd, "the writer's %s is not the reader's %s (names and aliases differ)",
                               node_label(w), node_label(r));
        return p;
    }
    switch (wk) {
    case AVRO_KIND_RECORD:
        p->op = PLAN_RECORD;
        plan_record(rd, p);
        break;
    case AVRO_KIND_ENUM: {
        p->op = PLAN_ENUM;
        size_t n = avro_node_size(w);
        p->u.enm.n = n;
        p->u.enm.map = plan_alloc(rd, (n + 1) * sizeof(long));
        p->u.enm.text = plan_alloc(rd, (n + 1) * sizeof(char *));
        p->u.enm.text_lens = plan_alloc(rd, (n + 1) * sizeof(size_t));
        const char *def = avro_node_enum_default(r);
        long di = def ? avro_node_symbol_index(r, def) : -1;
        for (size_t i = 0; i < n; i++) {
            long ri = avro_node_symbol_index(r, avro_node_symbol(w, i));
            p->u.enm.map[i] = ri >= 0 ? ri : di;
            if (p->u.enm.map[i] < 0)
                continue;
            const char *sym = avro_node_symbol(r, (size_t)p->u.enm.map[i]);
            strbuf_t t = {0};
            cl_json_string(&t, (const uint8_t *)sym, strlen(sym));
            p->u.enm.text_lens[i] = t.len;
            char *ts = strbuf_take(&t);
            if (!ts)
                base_oom(0);
            p->u.enm.text[i] = arena_strdup(rd->arena, ts);
            free(ts);
            if (!p->u.enm.text[i])
                base_oom(0);
        }
        break;
    }
    case AVRO_KIND_ARRAY:
    case AVRO_KIND_MAP:
        p->op = wk == AVRO_KIND_ARRAY ? PLAN_ARRAY : PLAN_MAP;
        p->u.items = plan_build(rd, avro_node_items(w), avro_node_items(r));
        break;
    case AVRO_KIND_FIXED:
        if (avro_node_size(w) != avro_node_size(r)) {
            p->op = PLAN_ERROR;
            p->error = plan_printf(rd, "%s: the writer's size %zu is not the reader's %zu", node_label(r),
                                   avro_node_size(w), avro_node_size(r));
        } else
            p->op = PLAN_FIXED;
        break;
    default: p->op = PLAN_PRIM;
    }
    return p;
}

/* ---- 2. Defaults ------------------------------------------------------------ */

/* A default is Avro's JSON encoding of a value of the field's type (bytes
 * as code points 0-255, a union's for its first branch); rendered once, at
 * plan time, in the row form the decoder writes. */
static int default_bytes(const json_t *v, strbuf_t *raw)
{
    const char *s = json_string_value(v);
    size_t n = json_string_length(v);
    if (!s)
        return -1;
    for (size_t i = 0; i < n;) {
        uint8_t c = (uint8_t)s[i];
        if (c < 0x80) {
            strbuf_putc(raw, (char)c);
            i++;
        } else if ((c & 0xe0) == 0xc0 && i + 1 < n && c <= 0xc3) {
            strbuf_putc(raw, (char)(((c & 0x1f) << 6) | ((uint8_t)s[i + 1] & 0x3f)));
            i += 2;
        } else
            return -1; /* a code point beyond 255 is no byte */
    }
    return 0;
}

static int default_render(strbuf_t *b, const avro_node_t *r, const json_t *v, int depth)
{
    if (depth > 256)
        return -1;
    avro_logical_t l = avro_node_logical(r);
    switch (avro_node_kind(r)) {
    case AVRO_KIND_NULL:
        if (!json_is_null(v))
            return -1;
        strbuf_puts(b, "null");
        return 0;
    case AVRO_KIND_BOOLEAN:
        if (!json_is_boolean(v))
            return -1;
        strbuf_puts(b, json_is_true(v) ? "true" : "false");
        return 0;
    case AVRO_KIND_INT:
    case AVRO_KIND_LONG:
        if (!json_is_integer(v))
            return -1;
        cl_json_integer(b, l, json_integer_value(v));
        return 0;
    case AVRO_KIND_FLOAT:
    case AVRO_KIND_DOUBLE: {
        double d;
        const char *s = json_string_value(v);
        if (json_is_number(v))
            d = json_number_value(v);
        else if (s && (strcmp(s, "NaN") == 0 || strcmp(s, "Infinity") == 0 || strcmp(s, "-Infinity") == 0))
            d = strtod(s, NULL);
        else
            return -1;
        if (avro_node_kind(r) == AVRO_KIND_FLOAT)
            cl_json_float(b, (float)d);
        else
            cl_json_double(b, d);
        return 0;
    }
    case AVRO_KIND_STRING:
        if (!json_is_string(v))
            return -1;
        cl_json_string(b, (const uint8_t *)json_string_value(v), json_string_length(v));
        return 0;
    case AVRO_KIND_BYTES:
    case AVRO_KIND_FIXED: {
        strbuf_t raw = {0};
        int rc = default_bytes(v, &raw);
        if (rc == 0 && avro_node_kind(r) == AVRO_KIND_FIXED && raw.len != avro_node_size(r))
            rc = -1;
        if (rc == 0 && l == AVRO_LOGICAL_DECIMAL)
            rc = cl_json_decimal(b, (const uint8_t *)raw.data, raw.len, avro_node_scale(r));
        else if (rc == 0)
            cl_json_base64(b, (const uint8_t *)raw.data, raw.len);
        strbuf_free(&raw);
        return rc;
    }
    case AVRO_KIND_ENUM: {
        const char *s = json_string_value(v);
        if (!s || avro_node_symbol_index(r, s) < 0)
            return -1;
        cl_json_string(b, (const uint8_t *)s, strlen(s));
        return 0;
    }
    case AVRO_KIND_ARRAY: {
        if (!json_is_array(v))
            return -1;
        strbuf_putc(b, '[');
        for (size_t i = 0; i < json_array_size(v); i++) {
            if (i)
                strbuf_putc(b, ',');
            if (default_render(b, avro_node_items(r), json_array_get(v, i), depth + 1) != 0)
                return -1;
        }
        strbuf_putc(b, ']');
        return 0;
    }
    case AVRO_KIND_MAP: {
        if (!json_is_object(v))
            return -1;
        strbuf_putc(b, '{');
        const char *k;
        json_t *e;
        int first = 1;
        json_object_foreach((json_t *)v, k, e)
        {
            if (!first)
                strbuf_putc(b, ',');
            first = 0;
            cl_json_string(b, (const uint8_t *)k, strlen(k));
            strbuf_putc(b, ':');
            if (default_render(b, avro_node_items(r), e, depth + 1) != 0)
                return -1;
        }
        strbuf_putc(b, '}');
        return 0;
    }
    case AVRO_KIND_RECORD: {
        if (!json_is_object(v))
            return -1;
        strbuf_putc(b, '{');
        for (size_t i = 0; i < avro_node_size(r); i++) {
            const char *name = avro_field_name(r, i);
            const json_t *fv = json_object_get(v, name);
            if (!fv)
                fv = avro_field_default(r, i);
            if (!fv)
                return -1;
            if (i)
                strbuf_putc(b, ',');
            cl_json_string(b, (const uint8_t *)name, strlen(name));
            strbuf_putc(b, ':');
            if (default_render(b, avro_field_type(r, i), fv, depth + 1) != 0)
                return -1;
        }
        strbuf_putc(b, '}');
        return 0;
    }
    case AVRO_KIND_UNION: {
        /* The first branch's (the specification); Avro 1.12 accepts any branch's. */
        for (size_t i = 0; i < avro_node_size(r); i++) {
            size_t mark = b->len;
            if (default_render(b, avro_node_branch(r, i), v, depth + 1) == 0)
                return 0;
            b->len = mark;
            if (b->data)
                b->data[mark] = '\0';
        }
        return -1;
    }
    default: return -1;
    }
}

/* ---- 3. Reading ------------------------------------------------------------- */

typedef struct dec {
    const uint8_t *p, *end;
    strbuf_t *out;
    size_t out_start;
    const srclient_avro_limits_t *limits;
    size_t values;
    size_t depth;
    char *error;
} dec_t;

static int dec_fail(dec_t *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int dec_fail(dec_t *d, const char *fmt, ...)
{
    if (d->error)
        return -1;
    va_list ap;
    va_start(ap, fmt);
    char *msg = xvasprintf(fmt, ap);
    va_end(ap);
    d->error = msg;
    return -1;
}

/* A zigzag varint of at most 10 bytes (BinaryDecoder.readLong). */
static int dec_long(dec_t *d, int64_t *out)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (d->p >= d->end)
            return dec_fail(d, "truncated: a varint runs past the end of the record");
        uint8_t b = *d->p++;
        if (shift == 63 && (b & 0x7e))
            return dec_fail(d, "invalid long: a varint longer than 64 bits");
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *out = (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
            return 0;
        }
    }
    return dec_fail(d, "invalid long: a varint longer than 10 bytes");
}

static int dec_int(dec_t *d, int64_t *out)
{
    if (dec_long(d, out) != 0)
        return -1;
    if (*out < INT32_MIN || *out > INT32_MAX)
        return dec_fail(d, "invalid int: %lld is beyond 32 bits", (long long)*out);
    return 0;
}

/* A length, checked against the bytes left before anything is read. */
static int dec_len(dec_t *d, size_t *out)
{
    int64_t n = 0; /* set by dec_long on success; gcc -O2 cannot tell */
    if (dec_long(d, &n) != 0)
        return -1;
    if (n < 0)
        return dec_fail(d, "invalid length %lld", (long long)n);
    if ((uint64_t)n > (uint64_t)(d->end - d->p))
        return dec_fail(d, "truncated: a length of %lld bytes with %zu left", (long long)n,
                        (size_t)(d->end - d->p));
    *out = (size_t)n;
    return 0;
}

static int dec_bytes(dec_t *d, size_t n, const uint8_t **out)
{
    if (n > (size_t)(d->end - d->p))
        return dec_fail(d, "truncated: %zu bytes needed, %zu left", n, (size_t)(d->end - d->p));
    *out = d->p;
    d->p += n;
    return 0;
}

static int dec_count(dec_t *d, size_t n)
{
    if (n > d->limits->max_values - d->values)
        return dec_fail(d, "more than %zu values in one record", d->limits->max_values);
    d->values += n;
    return 0;
}

static int dec_enter(dec_t *d)
{
    if (++d->depth > d->limits->max_depth)
        return dec_fail(d, "values nested deeper than %zu", d->limits->max_depth);
    return 0;
}

/* A block count of an array or a map: negative counts carry their byte size. */
static int dec_block(dec_t *d, size_t *count)
{
    int64_t n;
    if (dec_long(d, &n) != 0)
        return -1;
    if (n < 0) {
        int64_t size;
        if (n == INT64_MIN)
            return dec_fail(d, "invalid block count");
        n = -n;
        if (dec_long(d, &size) != 0)
            return -1;
        if (size < 0)
            return dec_fail(d, "invalid block size %lld", (long long)size);
    }
    if ((uint64_t)n > d->limits->max_values)
        return dec_fail(d, "a block of %lld items is beyond the limit of %zu values", (long long)n,
                        d->limits->max_values);
    *count = (size_t)n;
    return dec_count(d, *count);
}

static int dec_skip(dec_t *d, const avro_node_t *w)
{
    if (dec_enter(d) != 0 || dec_count(d, 1) != 0)
        return -1;
    int64_t v;
    size_t n;
    const uint8_t *s = NULL;
    int rc = 0;
    switch (avro_node_kind(w)) {
    case AVRO_KIND_NULL: break;
    case AVRO_KIND_BOOLEAN: rc = dec_bytes(d, 1, &s); break;
    case AVRO_KIND_INT: rc = dec_int(d, &v); break;
    case AVRO_KIND_LONG: rc = dec_long(d, &v); break;
    case AVRO_KIND_FLOAT: rc = dec_bytes(d, 4, &s); break;
    case AVRO_KIND_DOUBLE: rc = dec_bytes(d, 8, &s); break;
    case AVRO_KIND_BYTES:
    case AVRO_KIND_STRING: rc = dec_len(d, &n) == 0 ? dec_bytes(d, n, &s) : -1; break;
    case AVRO_KIND_FIXED: rc = dec_bytes(d, avro_node_size(w), &s); break;
    case AVRO_KIND_ENUM: rc = dec_int(d, &v); break;
    case AVRO_KIND_RECORD:
        for (size_t i = 0; rc == 0 && i < avro_node_size(w); i++)
            rc = dec_skip(d, avro_field_type(w, i));
        break;
    case AVRO_KIND_ARRAY:
    case AVRO_KIND_MAP:
        for (;;) {
            if (dec_block(d, &n) != 0)
                return -1;
            if (n == 0)
                break;
            for (size_t i = 0; i < n; i++) {
                size_t kn;
                if (avro_node_kind(w) == AVRO_KIND_MAP && (dec_len(d, &kn) != 0 || dec_bytes(d, kn, &s) != 0))
                    return -1;
                if (dec_skip(d, avro_node_items(w)) != 0)
                    return -1;
            }
        }
        break;
    case AVRO_KIND_UNION:
        if (dec_long(d, &v) != 0)
            return -1;
        if (v < 0 || (uint64_t)v >= avro_node_size(w))
            return dec_fail(d, "union branch %lld out of range (%zu branches)", (long long)v,
                            avro_node_size(w));
        rc = dec_skip(d, avro_node_branch(w, (size_t)v));
        break;
    default: rc = dec_fail(d, "unresolved type");
    }
    d->depth--;
    return rc;
}

/* ---- 4. Decoding -------------------------------------------------------------- */

static int dec_value(dec_t *d, const plan_t *p);

/* Appends to the row without a call when there is room: a row is mostly
 * one- and few-byte pieces (quotes, commas, keys), and strbuf_put's check
 * and NUL per piece were a tenth of the decoder's time. The NUL is written
 * once, at the end of the record (srclient_avro_decode). */
static inline void out_put(strbuf_t *b, const char *s, size_t n)
{
    if (b->cap - b->len > n) {
        memcpy(b->data + b->len, s, n);
        b->len += n;
    } else
        strbuf_put(b, s, n);
}

static inline void out_putc(strbuf_t *b, char c)
{
    if (b->cap - b->len > 1)
        b->data[b->len++] = c;
    else
        strbuf_put(b, &c, 1);
}

static int dec_out_check(dec_t *d)
{
    if (d->out->failed)
        base_oom(0);
    if (d->out->len - d->out_start > d->limits->max_output)
        return dec_fail(d, "the row is longer than %zu bytes", d->limits->max_output);
    return 0;
}

static int dec_prim(dec_t *d, const plan_t *p)
{
    avro_kind_t wk = p->wk, rk = p->rk;
    avro_logical_t l = p->rl;
    int64_t v = 0;
    double x = 0;
    const uint8_t *s = NULL;
    size_t n;
    switch (wk) {
    case AVRO_KIND_NULL: out_put(d->out, "null", 4); return 0;
    case AVRO_KIND_BOOLEAN:
        if (dec_bytes(d, 1, &s) != 0)
            return -1;
        if (*s > 1)
            return dec_fail(d, "invalid boolean byte 0x%02x", *s);
        if (*s)
            out_put(d->out, "true", 4);
        else
            out_put(d->out, "false", 5);
        return 0;
    case AVRO_KIND_INT:
    case AVRO_KIND_LONG:
        if ((wk == AVRO_KIND_INT ? dec_int(d, &v) : dec_long(d, &v)) != 0)
            return -1;
        if (rk == AVRO_KIND_FLOAT)
            cl_json_float(d->out, (float)v);
        else if (rk == AVRO_KIND_DOUBLE)
            cl_json_double(d->out, (double)v);
        else
            cl_json_integer(d->out, l, v);
        return 0;
    case AVRO_KIND_FLOAT: {
        if (dec_bytes(d, 4, &s) != 0)
            return -1;
        uint32_t u = (uint32_t)s[0] | (uint32_t)s[1] << 8 | (uint32_t)s[2] << 16 | (uint32_t)s[3] << 24;
        float f;
        memcpy(&f, &u, 4);
        if (rk == AVRO_KIND_DOUBLE)
            cl_json_double(d->out, (double)f);
        else
            cl_json_float(d->out, f);
        return 0;
    }
    case AVRO_KIND_DOUBLE: {
        if (dec_bytes(d, 8, &s) != 0)
            return -1;
        uint64_t u = 0;
        for (int i = 7; i >= 0; i--)
            u = u << 8 | s[i];
        memcpy(&x, &u, 8);
        cl_json_double(d->out, x);
        return 0;
    }
    case AVRO_KIND_BYTES:
    case AVRO_KIND_STRING:
        if (dec_len(d, &n) != 0 || dec_bytes(d, n, &s) != 0)
            return -1;
        if (rk == AVRO_KIND_STRING)
            cl_json_string(d->out, s, n);
        else if (l == AVRO_LOGICAL_DECIMAL) {
            if (cl_json_decimal(d->out, s, n, avro_node_scale(p->r)) != 0)
                return dec_fail(d, "a decimal of %zu bytes (at most %d)", n, CL_DECIMAL_MAX_BYTES);
        } else
            cl_json_base64(d->out, s, n);
        return 0;
    default: return dec_fail(d, "unresolved type");
    }
}

static int dec_fixed(dec_t *d, const plan_t *p)
{
    size_t n = avro_node_size(p->w);
    const uint8_t *s = NULL;
    if (dec_bytes(d, n, &s) != 0)
        return -1;
    avro_logical_t l = avro_node_logical(p->r);
    if (l == AVRO_LOGICAL_DECIMAL) {
        if (cl_json_decimal(d->out, s, n, avro_node_scale(p->r)) != 0)
            return dec_fail(d, "a decimal of %zu bytes (at most %d)", n, CL_DECIMAL_MAX_BYTES);
    } else if (l == AVRO_LOGICAL_DURATION && n == 12) {
        uint32_t f[3];
        for (int i = 0; i < 3; i++)
            f[i] = (uint32_t)s[4 * i] | (uint32_t)s[4 * i + 1] << 8 | (uint32_t)s[4 * i + 2] << 16 |
                   (uint32_t)s[4 * i + 3] << 24;
        strbuf_printf(d->out, "{\"months\":%u,\"days\":%u,\"milliseconds\":%u}", f[0], f[1], f[2]);
    } else
        cl_json_base64(d->out, s, n);
    return 0;
}

typedef struct span {
    size_t at, len;
} span_t;

static int dec_record(dec_t *d, const plan_t *p)
{
    size_t nw = p->u.rec.nw, nr = p->u.rec.nr;
    if (p->u.rec.direct) {
        /* The common case: no field moved, none added; written as read. */
        out_putc(d->out, '{');
        int first = 1;
        for (size_t i = 0; i < nw; i++) {
            const plan_step_t *s = &p->u.rec.steps[i];
            if (s->rindex < 0) {
                if (dec_skip(d, s->wtype) != 0)
                    return -1;
                continue;
            }
            if (!first)
                out_putc(d->out, ',');
            first = 0;
            out_put(d->out, p->u.rec.keys[s->rindex], p->u.rec.key_lens[s->rindex]);
            if (dec_value(d, s->plan) != 0)
                return -1;
        }
        out_putc(d->out, '}');
        return dec_out_check(d);
    }
    /* Fields in writer order into the buffer, then the row in reader order. */
    span_t local[32];
    span_t *spans = nr <= 32 ? local : xcalloc(nr, sizeof(span_t));
    size_t mark = d->out->len;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < nw; i++) {
        const plan_step_t *s = &p->u.rec.steps[i];
        if (s->rindex < 0) {
            rc = dec_skip(d, s->wtype);
            continue;
        }
        spans[s->rindex].at = d->out->len;
        rc = dec_value(d, s->plan);
        spans[s->rindex].len = d->out->len - spans[s->rindex].at;
    }
    if (rc == 0) {
        strbuf_t row = {0};
        strbuf_putc(&row, '{');
        for (size_t j = 0; j < nr; j++) {
            if (j)
                strbuf_putc(&row, ',');
            strbuf_puts(&row, p->u.rec.keys[j]);
            if (p->u.rec.defaults[j])
                strbuf_puts(&row, p->u.rec.defaults[j]);
            else
                strbuf_put(&row, d->out->data + spans[j].at, spans[j].len);
        }
        strbuf_putc(&row, '}');
        if (row.failed)
            base_oom(0);
        d->out->len = mark;
        strbuf_put(d->out, row.data, row.len);
        strbuf_free(&row);
        rc = dec_out_check(d);
    }
    if (spans != local)
        free(spans);
    return rc;
}

static int dec_items(dec_t *d, const plan_t *p)
{
    int is_map = p->op == PLAN_MAP;
    out_putc(d->out, is_map ? '{' : '[');
    int first = 1;
    for (;;) {
        size_t n;
        if (dec_block(d, &n) != 0)
            return -1;
        if (n == 0)
            break;
        for (size_t i = 0; i < n; i++) {
            if (!first)
                out_putc(d->out, ',');
            first = 0;
            if (is_map) {
                size_t kn;
                const uint8_t *k = NULL;
                if (dec_len(d, &kn) != 0 || dec_bytes(d, kn, &k) != 0)
                    return -1;
                cl_json_string(d->out, k, kn);
                out_putc(d->out, ':');
            }
            if (dec_value(d, p->u.items) != 0 || dec_out_check(d) != 0)
                return -1;
        }
    }
    out_putc(d->out, is_map ? '}' : ']');
    return 0;
}

static int dec_value(dec_t *d, const plan_t *p)
{
    if (dec_enter(d) != 0 || dec_count(d, 1) != 0)
        return -1;
    int rc;
    int64_t v;
    switch (p->op) {
    case PLAN_ERROR: rc = dec_fail(d, "%s", p->error); break;
    case PLAN_PRIM: rc = dec_prim(d, p); break;
    case PLAN_RECORD: rc = dec_record(d, p); break;
    case PLAN_ENUM:
        rc = dec_int(d, &v);
        if (rc == 0 && (v < 0 || (uint64_t)v >= p->u.enm.n))
            rc = dec_fail(d, "enum %s: symbol %lld out of range (%zu symbols)", node_label(p->w),
                          (long long)v, p->u.enm.n);
        if (rc == 0 && p->u.enm.map[v] < 0)
            rc = dec_fail(d,
                          "enum %s: the writer's symbol %s is not the reader's and the reader has no default",
                          node_label(p->r), avro_node_symbol(p->w, (size_t)v));
        if (rc == 0)
            out_put(d->out, p->u.enm.text[v], p->u.enm.text_lens[v]);
        break;
    case PLAN_ARRAY:
    case PLAN_MAP: rc = dec_items(d, p); break;
    case PLAN_FIXED: rc = dec_fixed(d, p); break;
    case PLAN_WUNION:
        rc = dec_long(d, &v);
        if (rc == 0 && (v < 0 || (uint64_t)v >= p->u.wun.n))
            rc = dec_fail(d, "union branch %lld out of range (%zu branches)", (long long)v, p->u.wun.n);
        if (rc == 0)
            rc = dec_value(d, p->u.wun.branches[v]);
        break;
    case PLAN_RUNION: rc = dec_value(d, p->u.run.inner); break;
    default: rc = dec_fail(d, "bad plan");
    }
    d->depth--;
    return rc;
}

/* ---- 5. The API ---------------------------------------------------------------- */

srclient_avro_reader_t *srclient_avro_reader_new(const avro_model_t *writer, const avro_model_t *reader,
                                                 const srclient_avro_limits_t *limits, char **error)
{
    if (!writer) {
        *error = xstrdup("no writer schema");
        return NULL;
    }
    srclient_avro_reader_t *rd = xcalloc(1, sizeof(*rd));
    rd->arena = arena_new();
    if (!rd->arena)
        base_oom(0);
    if (limits)
        rd->limits = *limits;
    if (!rd->limits.max_depth)
        rd->limits.max_depth = 256;
    if (!rd->limits.max_output)
        rd->limits.max_output = 64u << 20;
    if (!rd->limits.max_values)
        rd->limits.max_values = 16u << 20;
    rd->root = plan_build(rd, avro_model_root(writer), avro_model_root(reader ? reader : writer));
    return rd;
}

void srclient_avro_reader_free(srclient_avro_reader_t *r)
{
    if (!r)
        return;
    hmap_clear(&r->memo);
    arena_free(r->arena);
    free(r);
}

int srclient_avro_decode(const srclient_avro_reader_t *r, const uint8_t *data, size_t len, strbuf_t *out,
                         char **error)
{
    dec_t d = {.p = data, .end = data + len, .out = out, .out_start = out->len, .limits = &r->limits};
    int rc = dec_value(&d, r->root);
    if (rc == 0 && d.p != d.end)
        rc = dec_fail(&d, "%zu trailing bytes after the record", (size_t)(d.end - d.p));
    if (out->failed)
        base_oom(0);
    if (rc != 0) {
        out->len = d.out_start;
        if (out->data)
            out->data[out->len] = '\0';
        *error = d.error;
        return -1;
    }
    if (out->data)
        out->data[out->len] = '\0';
    return 0;
}
