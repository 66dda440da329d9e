/*
 * avro_equal: Avro's Schema.equals, which decides whether a second
 * definition of a full name is the same type (accepted) or a clash
 * ("Can't redefine"). It compares names, properties, fields (name, type,
 * default, order, properties), symbols and sizes, but not docs, aliases or
 * enum defaults. A record pair met again during one comparison counts as
 * equal, which is how Avro stops on recursive types.
 *
 * Contents
 *   1. Schema.equals
 *   2. AvroSchema.equivalent: Schema.equals, then Confluent's metaEqual
 */
#include "compat/avro/internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- 1. Schema.equals ------------------------------------------------------------------- */

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

/* ---- 2. AvroSchema.equivalent ------------------------------------------------------------ */

/*
 * Confluent's metaEqual adds what Schema.equals leaves out: the aliases (as
 * sets), docs and enum defaults of named types, and the aliases and docs of
 * fields, over the same walk. A schema whose references' types are written
 * out in full is then equivalent to the one that refers to them: the model
 * is the same graph either way.
 */

static int string_order(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Set equality of two lists without duplicates (both are de-duplicated when parsed). */
static int eq_string_sets(equal_ctx_t *c, const char **a, const char **b, size_t n)
{
    if (!n)
        return 1;
    const char **sa = malloc(n * sizeof *sa), **sb = malloc(n * sizeof *sb);
    int eq = 0;
    if (sa && sb) {
        memcpy(sa, a, n * sizeof *sa);
        memcpy(sb, b, n * sizeof *sb);
        qsort(sa, n, sizeof *sa, string_order);
        qsort(sb, n, sizeof *sb, string_order);
        eq = 1;
        for (size_t i = 0; i < n && eq; i++)
            eq = strcmp(sa[i], sb[i]) == 0;
    } else {
        c->failed = 1;
    }
    free(sa);
    free(sb);
    return eq;
}

/* Schema.getAliases(): the strings of avro_buf_alias_string, as a set. */
static int eq_type_aliases(equal_ctx_t *c, const avro_node_t *a, const avro_node_t *b)
{
    size_t n = a->named->n_aliases;
    if (n != b->named->n_aliases)
        return 0;
    if (!n)
        return 1;
    char **all = calloc(2 * n, sizeof *all);
    int eq = 0;
    if (all) {
        for (size_t i = 0; i < 2 * n; i++) {
            strbuf_t tmp = {0};
            const avro_node_t *t = i < n ? a : b;
            avro_buf_alias_string(&tmp, t, &t->named->aliases[i < n ? i : i - n]);
            all[i] = strbuf_take(&tmp);
            if (!all[i])
                c->failed = 1;
        }
        eq = !c->failed && eq_string_sets(c, (const char **)all, (const char **)all + n, n);
        for (size_t i = 0; i < 2 * n; i++)
            free(all[i]);
        free(all);
    } else {
        c->failed = 1;
    }
    return eq;
}

static int eq_doc(const json_t *a, const json_t *b)
{
    return a && b ? json_equal((json_t *)a, (json_t *)b) : a == b;
}

static int eq_enum_default(const char *a, const char *b)
{
    return a && b ? strcmp(a, b) == 0 : a == b;
}

static int meta_node(equal_ctx_t *c, const avro_node_t *a, const avro_node_t *b);

static int meta_fields(equal_ctx_t *c, const avro_node_t *a, const avro_node_t *b)
{
    if (a->u.record.n != b->u.record.n)
        return 0;
    for (size_t i = 0; i < a->u.record.n; i++) {
        const avro_field_t *fa = &a->u.record.fields[i], *fb = &b->u.record.fields[i];
        if (fa->n_aliases != fb->n_aliases || !eq_string_sets(c, fa->aliases, fb->aliases, fa->n_aliases) ||
            !eq_doc(fa->doc, fb->doc) || !meta_node(c, fa->type, fb->type))
            return 0;
    }
    return 1;
}

static int meta_kind(equal_ctx_t *c, const avro_node_t *a, const avro_node_t *b)
{
    switch (a->kind) {
    case AVRO_KIND_RECORD:
        /* A pair met again counts as equal: its own result is being computed. */
        if (hmap_get_pair(&c->seen, a, b))
            return 1;
        if (hmap_put_pair_try(&c->seen, a, b, (void *)a) != 0) {
            c->failed = 1;
            return 0;
        }
        return eq_type_aliases(c, a, b) && eq_doc(a->named->doc, b->named->doc) && meta_fields(c, a, b);
    case AVRO_KIND_ENUM:
        return eq_type_aliases(c, a, b) && eq_doc(a->named->doc, b->named->doc) &&
               eq_enum_default(a->u.enm.def, b->u.enm.def);
    case AVRO_KIND_FIXED: return eq_type_aliases(c, a, b) && eq_doc(a->named->doc, b->named->doc);
    case AVRO_KIND_ARRAY:
    case AVRO_KIND_MAP: return meta_node(c, a->u.items, b->u.items);
    case AVRO_KIND_UNION:
        if (a->u.uni.n != b->u.uni.n)
            return 0;
        for (size_t i = 0; i < a->u.uni.n; i++)
            if (!meta_node(c, a->u.uni.branches[i], b->u.uni.branches[i]))
                return 0;
        return 1;
    default: return 1;
    }
}

static int meta_node(equal_ctx_t *c, const avro_node_t *a, const avro_node_t *b)
{
    if (a == b)
        return 1;
    if (a->kind != b->kind || c->failed)
        return 0;
    if (c->depth >= EQUAL_MAX_DEPTH) {
        c->failed = 1;
        return 0;
    }
    c->depth++;
    int eq = meta_kind(c, a, b);
    c->depth--;
    return eq;
}

int avro_node_equivalent(const avro_node_t *a, const avro_node_t *b)
{
    if (!avro_node_equal(a, b))
        return 0;
    equal_ctx_t c = {0};
    int eq = meta_node(&c, a, b);
    hmap_clear(&c.seen);
    return eq && !c.failed;
}
