/*
 * avro_equal: Avro's Schema.equals, which decides whether a second
 * definition of a full name is the same type (accepted) or a clash
 * ("Can't redefine"). It compares names, properties, fields (name, type,
 * default, order, properties), symbols and sizes, but not docs, aliases or
 * enum defaults. A record pair met again during one comparison counts as
 * equal, which is how Avro stops on recursive types.
 */
#include "compat/avro/internal.h"

#include <string.h>

#define EQUAL_MAX_DEPTH 4000

typedef struct equal_ctx {
    hmap_t seen;
    int depth;
    int failed;
} equal_ctx_t;

static int eq_node(equal_ctx_t *c, const avro_node_t *a, const avro_node_t *b);

static const json_t *props_find(const avro_props_t *p, const char *key)
{
    for (size_t i = 0; i < p->n; i++)
        if (strcmp(p->items[i].key, key) == 0)
            return p->items[i].value;
    return NULL;
}

/* Map equality: same keys with equal JSON values, in any order. */
static int eq_props(const avro_props_t *a, const avro_props_t *b)
{
    if (a->n != b->n)
        return 0;
    for (size_t i = 0; i < a->n; i++) {
        const json_t *other = props_find(b, a->items[i].key);
        if (!other || !json_equal((json_t *)a->items[i].value, (json_t *)other))
            return 0;
    }
    return 1;
}

static int eq_default(const avro_field_t *a, const avro_field_t *b)
{
    if (!a->def || !b->def)
        return !a->def && !b->def;
    return a->def_is_number == b->def_is_number && json_equal((json_t *)a->def, (json_t *)b->def);
}

static int eq_field(equal_ctx_t *c, const avro_field_t *a, const avro_field_t *b)
{
    return strcmp(a->name, b->name) == 0 && eq_node(c, a->type, b->type) && eq_default(a, b) &&
           a->order == b->order && eq_props(&a->props, &b->props);
}

static int eq_record(equal_ctx_t *c, const avro_node_t *a, const avro_node_t *b)
{
    if (hmap_get_pair(&c->seen, a, b))
        return 1;
    if (hmap_put_pair_try(&c->seen, a, b, (void *)a) != 0) {
        c->failed = 1;
        return 0;
    }
    if (a->u.record.n != b->u.record.n)
        return 0;
    for (size_t i = 0; i < a->u.record.n; i++)
        if (!eq_field(c, &a->u.record.fields[i], &b->u.record.fields[i]))
            return 0;
    return 1;
}

static int eq_symbols(const avro_node_t *a, const avro_node_t *b)
{
    if (a->u.enm.n != b->u.enm.n)
        return 0;
    for (size_t i = 0; i < a->u.enm.n; i++)
        if (strcmp(a->u.enm.symbols[i], b->u.enm.symbols[i]) != 0)
            return 0;
    return 1;
}

static int eq_union(equal_ctx_t *c, const avro_node_t *a, const avro_node_t *b)
{
    if (a->u.uni.n != b->u.uni.n)
        return 0;
    for (size_t i = 0; i < a->u.uni.n; i++)
        if (!eq_node(c, a->u.uni.branches[i], b->u.uni.branches[i]))
            return 0;
    return 1;
}

static int eq_kind(equal_ctx_t *c, const avro_node_t *a, const avro_node_t *b)
{
    if (a->named && strcmp(a->named->name.full, b->named->name.full) != 0)
        return 0;
    switch (a->kind) {
    case AVRO_KIND_RECORD: return eq_record(c, a, b);
    case AVRO_KIND_ENUM: return eq_symbols(a, b);
    case AVRO_KIND_FIXED: return a->u.fixed.size == b->u.fixed.size;
    case AVRO_KIND_ARRAY:
    case AVRO_KIND_MAP: return eq_node(c, a->u.items, b->u.items);
    case AVRO_KIND_UNION: return eq_union(c, a, b);
    /* A placeholder is a distinct, uniquely named record in Avro. */
    case AVRO_KIND_UNRESOLVED: return 0;
    default: return 1;
    }
}

static int eq_node(equal_ctx_t *c, const avro_node_t *a, const avro_node_t *b)
{
    if (a == b)
        return 1;
    if (a->kind != b->kind || !eq_props(&a->props, &b->props) || c->failed)
        return 0;
    if (c->depth >= EQUAL_MAX_DEPTH) {
        c->failed = 1;
        return 0;
    }
    c->depth++;
    int eq = eq_kind(c, a, b);
    c->depth--;
    return eq;
}

int avro_node_equal(const avro_node_t *a, const avro_node_t *b)
{
    equal_ctx_t c = {0};
    int eq = eq_node(&c, a, b);
    hmap_clear(&c.seen);
    return eq && !c.failed;
}
