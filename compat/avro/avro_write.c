/*
 * avro_write: Avro's Schema.toString, i.e. the canonical text the registry
 * stores (docs/compatibility.md "Stored text"), and the "resolved" variant.
 *
 * Key order per type is fixed by Avro; custom properties keep insertion
 * order; a named type is written in full once and as a name afterwards,
 * qualified only when its namespace differs from the enclosing one.
 */
#include "compat/avro/internal.h"

#include <string.h>

#define WRITE_MAX_DEPTH (4 * AVRO_MAX_DEPTH)

typedef struct schema_writer {
    strbuf_t *b;
    hmap_t known; /* full names already written */
    int depth;
} schema_writer_t;

static void write_node(schema_writer_t *w, const avro_node_t *n, const char *ns);

static int space_equal(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

/* Names that collide with a type keyword keep their namespace even when it
 * is the enclosing one (Name.shouldWriteFull). */
static int is_type_keyword(const char *name)
{
    static const char *const words[] = {"record", "enum", "array", "map",   "union",  "fixed",   "string",
                                        "bytes",  "int",  "long",  "float", "double", "boolean", "null"};
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strcmp(name, words[i]) == 0)
            return 1;
    return 0;
}

static const char *qualified(const avro_name_t *name, const char *ns)
{
    if (space_equal(name->space, ns) && !is_type_keyword(name->name))
        return name->name;
    return name->full;
}

static void write_key(strbuf_t *b, const char *key, int first)
{
    if (!first)
        strbuf_putc(b, ',');
    avro_buf_json_string(b, key);
    strbuf_putc(b, ':');
}

static void write_string_member(strbuf_t *b, const char *key, const char *value)
{
    write_key(b, key, 0);
    avro_buf_json_string(b, value);
}

static void write_props(strbuf_t *b, const avro_props_t *props)
{
    for (size_t i = 0; i < props->n; i++) {
        write_key(b, props->items[i].key, 0);
        avro_buf_json_value(b, props->items[i].value);
    }
}

static void write_name(strbuf_t *b, const avro_name_t *name, const char *ns)
{
    write_string_member(b, "name", name->name);
    if (name->space) {
        if (!space_equal(name->space, ns))
            write_string_member(b, "namespace", name->space);
    } else if (ns) {
        write_string_member(b, "namespace", "");
    }
}

static void write_type_aliases(strbuf_t *b, const avro_named_t *named)
{
    if (!named->n_aliases)
        return;
    write_key(b, "aliases", 0);
    for (size_t i = 0; i < named->n_aliases; i++) {
        strbuf_putc(b, i ? ',' : '[');
        avro_buf_json_string(b, qualified(&named->aliases[i], named->name.space));
    }
    strbuf_putc(b, ']');
}

/* 1 when the named type was written before and a name reference was emitted. */
static int write_name_ref(schema_writer_t *w, const avro_node_t *n, const char *ns)
{
    const char *full = n->named->name.full;
    if (hmap_gets(&w->known, full)) {
        avro_buf_json_string(w->b, qualified(&n->named->name, ns));
        return 1;
    }
    if (hmap_puts_try(&w->known, full, (void *)n, NULL) != 0)
        w->b->failed = 1;
    return 0;
}

/* "type", name, namespace and doc: the head every named type starts with. */
static void write_named_head(strbuf_t *b, const char *type, const avro_node_t *n, const char *ns)
{
    strbuf_puts(b, "{\"type\":");
    avro_buf_json_string(b, type);
    write_name(b, &n->named->name, ns);
    if (n->named->doc) {
        write_key(b, "doc", 0);
        avro_buf_json_value(b, n->named->doc);
    }
}

static const char *order_name(avro_order_t o)
{
    return o == AVRO_ORDER_DESCENDING ? "descending" : o == AVRO_ORDER_IGNORE ? "ignore" : "ascending";
}

static void write_field(schema_writer_t *w, const avro_field_t *f, const char *ns)
{
    strbuf_t *b = w->b;
    strbuf_puts(b, "{\"name\":");
    avro_buf_json_string(b, f->name);
    write_key(b, "type", 0);
    write_node(w, f->type, ns);
    if (f->doc) {
        write_key(b, "doc", 0);
        avro_buf_json_value(b, f->doc);
    }
    if (f->def) {
        write_key(b, "default", 0);
        avro_buf_json_value(b, f->def);
    }
    if (f->order != AVRO_ORDER_ASCENDING)
        write_string_member(b, "order", order_name(f->order));
    if (f->n_aliases) {
        write_key(b, "aliases", 0);
        for (size_t i = 0; i < f->n_aliases; i++) {
            strbuf_putc(b, i ? ',' : '[');
            avro_buf_json_string(b, f->aliases[i]);
        }
        strbuf_putc(b, ']');
    }
    write_props(b, &f->props);
    strbuf_putc(b, '}');
}

static void write_record(schema_writer_t *w, const avro_node_t *n, const char *ns)
{
    strbuf_t *b = w->b;
    write_named_head(b, n->u.record.is_error ? "error" : "record", n, ns);
    write_key(b, "fields", 0);
    strbuf_putc(b, '[');
    for (size_t i = 0; i < n->u.record.n; i++) {
        if (i)
            strbuf_putc(b, ',');
        write_field(w, &n->u.record.fields[i], n->named->name.space);
    }
    strbuf_putc(b, ']');
    write_props(b, &n->props);
    write_type_aliases(b, n->named);
    strbuf_putc(b, '}');
}

static void write_enum(strbuf_t *b, const avro_node_t *n, const char *ns)
{
    write_named_head(b, "enum", n, ns);
    write_key(b, "symbols", 0);
    strbuf_putc(b, '[');
    for (size_t i = 0; i < n->u.enm.n; i++) {
        if (i)
            strbuf_putc(b, ',');
        avro_buf_json_string(b, n->u.enm.symbols[i]);
    }
    strbuf_putc(b, ']');
    if (n->u.enm.def)
        write_string_member(b, "default", n->u.enm.def);
    write_props(b, &n->props);
    write_type_aliases(b, n->named);
    strbuf_putc(b, '}');
}

static void write_fixed(strbuf_t *b, const avro_node_t *n, const char *ns)
{
    write_named_head(b, "fixed", n, ns);
    write_key(b, "size", 0);
    strbuf_printf(b, "%d", n->u.fixed.size);
    write_props(b, &n->props);
    write_type_aliases(b, n->named);
    strbuf_putc(b, '}');
}

static void write_container(schema_writer_t *w, const avro_node_t *n, const char *ns)
{
    int array = n->kind == AVRO_KIND_ARRAY;
    strbuf_puts(w->b, array ? "{\"type\":\"array\",\"items\":" : "{\"type\":\"map\",\"values\":");
    write_node(w, n->u.items, ns);
    write_props(w->b, &n->props);
    strbuf_putc(w->b, '}');
}

static void write_union(schema_writer_t *w, const avro_node_t *n, const char *ns)
{
    strbuf_putc(w->b, '[');
    for (size_t i = 0; i < n->u.uni.n; i++) {
        if (i)
            strbuf_putc(w->b, ',');
        write_node(w, n->u.uni.branches[i], ns);
    }
    strbuf_putc(w->b, ']');
}

static void write_primitive(strbuf_t *b, const avro_node_t *n)
{
    if (!n->props.n) {
        avro_buf_json_string(b, avro_kind_name(n->kind));
        return;
    }
    strbuf_puts(b, "{\"type\":");
    avro_buf_json_string(b, avro_kind_name(n->kind));
    write_props(b, &n->props);
    strbuf_putc(b, '}');
}

static void write_kind(schema_writer_t *w, const avro_node_t *n, const char *ns)
{
    if (n->named && write_name_ref(w, n, ns))
        return;
    switch (n->kind) {
    case AVRO_KIND_RECORD: write_record(w, n, ns); break;
    case AVRO_KIND_ENUM: write_enum(w->b, n, ns); break;
    case AVRO_KIND_FIXED: write_fixed(w->b, n, ns); break;
    case AVRO_KIND_ARRAY:
    case AVRO_KIND_MAP: write_container(w, n, ns); break;
    case AVRO_KIND_UNION: write_union(w, n, ns); break;
    /* Only in parse error messages, before the name is resolved. */
    case AVRO_KIND_UNRESOLVED: avro_buf_json_string(w->b, n->u.unresolved); break;
    default: write_primitive(w->b, n); break;
    }
}

static void write_node(schema_writer_t *w, const avro_node_t *n, const char *ns)
{
    if (w->depth >= WRITE_MAX_DEPTH) {
        w->b->failed = 1;
        return;
    }
    w->depth++;
    write_kind(w, n, ns);
    w->depth--;
}

void avro_write_schema(strbuf_t *b, const avro_node_t *root, const char *const *known, size_t n_known)
{
    schema_writer_t w = {.b = b};
    for (size_t i = 0; i < n_known; i++)
        if (hmap_puts_try(&w.known, known[i], (void *)known[i], NULL) != 0)
            b->failed = 1;
    write_node(&w, root, NULL);
    hmap_clear(&w.known);
}

/* ---- Depth of the first-occurrence walk ------------------------------------------ */

typedef struct depth_walk {
    hmap_t seen;
    int limit;
    int ok;
} depth_walk_t;

static void depth_visit(depth_walk_t *d, const avro_node_t *n, int depth);

static void depth_children(depth_walk_t *d, const avro_node_t *n, int depth)
{
    switch (n->kind) {
    case AVRO_KIND_RECORD:
        for (size_t i = 0; i < n->u.record.n && d->ok; i++)
            depth_visit(d, n->u.record.fields[i].type, depth + 1);
        break;
    case AVRO_KIND_ARRAY:
    case AVRO_KIND_MAP: depth_visit(d, n->u.items, depth + 1); break;
    case AVRO_KIND_UNION:
        for (size_t i = 0; i < n->u.uni.n && d->ok; i++)
            depth_visit(d, n->u.uni.branches[i], depth + 1);
        break;
    default: break;
    }
}

static void depth_visit(depth_walk_t *d, const avro_node_t *n, int depth)
{
    if (depth > d->limit) {
        d->ok = 0;
        return;
    }
    if (n->named) {
        if (hmap_get_pair(&d->seen, n, NULL))
            return;
        if (hmap_put_pair_try(&d->seen, n, NULL, (void *)n) != 0) {
            d->ok = 0;
            return;
        }
    }
    depth_children(d, n, depth);
}

int avro_depth_within(const avro_node_t *root, int limit)
{
    depth_walk_t d = {.limit = limit, .ok = 1};
    depth_visit(&d, root, 1);
    hmap_clear(&d.seen);
    return d.ok;
}
