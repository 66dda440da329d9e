/*
 * jsonschema_order: Confluent's JsonSchemaComparator over the object model,
 * the order in which JsonSchema.inlineTaggedEntities and
 * JsonSchemaUtils.findMatchingEntity number the subschemas of an
 * allOf/anyOf/oneOf ("allof.0.", "anyof.1.", ...). Subschemas written in
 * another order get the same numbers.
 *
 * Chapters: 1. values as Java prints them  2. the comparison  3. the stable sort
 *
 * The comparison, in Confluent's order: the schema class (alphabetical:
 * ARRAY, BOOLEAN, COMBINED, CONDITIONAL, CONST, EMPTY, ENUM, FALSE, NOT, NULL,
 * NUMBER, OBJECT, REFERENCE, STRING, TRUE), then title, description and
 * default (absent first, then String.compareTo), then per class: a const's
 * value, an enum's values, a combination's criterion, size and sorted
 * subschemas, a not's schema, a conditional's if/then/else, an object's
 * property names then required names, an array's items schema, a
 * reference's target. Collections compare by size, then as sorted lists of
 * their elements' texts. List.sort is stable: equal subschemas keep the
 * order written.
 */
#include "compat/jsonschema/internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"

/* Past this many nested comparisons (reference cycles through combinations),
 * two schemas are taken as equal; Java would overflow its stack. */
#define ORDER_MAX_DEPTH 64

/* ---- 1. Values as Java prints them ----------------------------------------------- */

/* A value's toString as the comparator reads it: a string as itself, a number as
 * its text, true/false/null, an object or array as compact JSON (written key
 * order: org.json's own map order is not reproduced). malloc'd, NULL on OOM. */
static char *value_text(const jsonschema_json_t *v, size_t *len)
{
    char *out;
    switch (v->kind) {
    case JSONSCHEMA_JSON_STRING:
    case JSONSCHEMA_JSON_NUMBER:
        out = malloc(v->len + 1);
        if (out) {
            memcpy(out, v->str, v->len);
            out[v->len] = '\0';
        }
        *len = v->len;
        return out;
    case JSONSCHEMA_JSON_TRUE: out = strdup("true"); break;
    case JSONSCHEMA_JSON_FALSE: out = strdup("false"); break;
    case JSONSCHEMA_JSON_NULL: out = strdup("null"); break;
    default: out = jsonschema_json_dump(v); break;
    }
    *len = out ? strlen(out) : 0;
    return out;
}

typedef struct text {
    char *s;
    size_t len;
} text_t;

static int text_cmp(const void *a, const void *b)
{
    const text_t *x = a, *y = b;
    return utf8_java_cmpn(x->s, x->len, y->s, y->len);
}

/* STRING_COMPARATOR: nullsFirst(naturalOrder). */
static int nullable_cmp(const char *a, size_t alen, const char *b, size_t blen)
{
    if (!a || !b)
        return (a != NULL) - (b != NULL);
    return utf8_java_cmpn(a, alen, b, blen);
}

static int json_string_cmp(const jsonschema_json_t *a, const jsonschema_json_t *b)
{
    return nullable_cmp(a ? a->str : NULL, a ? a->len : 0, b ? b->str : NULL, b ? b->len : 0);
}

static int value_cmp(const jsonschema_json_t *a, const jsonschema_json_t *b, int *oom)
{
    if (!a || !b)
        return (a != NULL) - (b != NULL);
    size_t alen, blen;
    char *x = value_text(a, &alen), *y = value_text(b, &blen);
    int c = 0;
    if (!x || !y)
        *oom = 1;
    else
        c = utf8_java_cmpn(x, alen, y, blen);
    free(x);
    free(y);
    return c;
}

/* compareCollections over n texts each side (taken, freed here). */
static int texts_cmp(text_t *a, size_t na, text_t *b, size_t nb)
{
    int c = 0;
    if (!a || !b)
        na = nb = 0; /* out of memory, already noted */
    else if (na != nb)
        c = na < nb ? -1 : 1;
    else {
        qsort(a, na, sizeof *a, text_cmp);
        qsort(b, nb, sizeof *b, text_cmp);
        for (size_t i = 0; i < na && !c; i++)
            c = text_cmp(&a[i], &b[i]);
    }
    for (size_t i = 0; i < na; i++)
        free(a[i].s);
    for (size_t i = 0; i < nb; i++)
        free(b[i].s);
    free(a);
    free(b);
    return c;
}

static text_t *values_texts(const jsonschema_node_t *n, int *oom)
{
    text_t *t = calloc(n->nvalues ? n->nvalues : 1, sizeof *t);
    for (size_t i = 0; t && i < n->nvalues; i++)
        if (!(t[i].s = value_text(n->values[i], &t[i].len)))
            *oom = 1;
    if (!t)
        *oom = 1;
    return t;
}

static text_t *str_text(text_t *t, jsonschema_str_t name, int *oom)
{
    if ((t->s = malloc(name.len + 1))) {
        memcpy(t->s, name.s, name.len);
        t->s[name.len] = '\0';
        t->len = name.len;
    } else
        *oom = 1;
    return t;
}

/* The property names (required = 0) or the required names of an object. */
static text_t *names_texts(const jsonschema_node_t *n, int required, int *oom)
{
    size_t count = required ? n->nrequired : n->nprops;
    text_t *t = calloc(count ? count : 1, sizeof *t);
    if (!t)
        *oom = 1;
    for (size_t i = 0; t && i < count; i++)
        str_text(&t[i], required ? n->required[i] : n->props[i].name, oom);
    return t;
}

/* ---- 2. The comparison --------------------------------------------------------------- */

/* SchemaType's ordinal: the alphabetical place of the class. */
static int class_rank(jsonschema_kind_t kind)
{
    switch (kind) {
    case JSONSCHEMA_NODE_ARRAY: return 0;
    case JSONSCHEMA_NODE_BOOLEAN: return 1;
    case JSONSCHEMA_NODE_COMBINED: return 2;
    case JSONSCHEMA_NODE_CONDITIONAL: return 3;
    case JSONSCHEMA_NODE_CONST: return 4;
    case JSONSCHEMA_NODE_EMPTY: return 5;
    case JSONSCHEMA_NODE_ENUM: return 6;
    case JSONSCHEMA_NODE_FALSE: return 7;
    case JSONSCHEMA_NODE_NOT: return 8;
    case JSONSCHEMA_NODE_NULL: return 9;
    case JSONSCHEMA_NODE_NUMBER: return 10;
    case JSONSCHEMA_NODE_OBJECT: return 11;
    case JSONSCHEMA_NODE_REFERENCE: return 12;
    case JSONSCHEMA_NODE_STRING: return 13;
    case JSONSCHEMA_NODE_TRUE: return 14;
    }
    return 15;
}

typedef struct order {
    int depth;
    int oom;
    size_t *budget; /* comparisons left (jsonschema_order_sort) */
} order_t;

static int compare(order_t *o, const jsonschema_node_t *a, const jsonschema_node_t *b);
static int sort_nodes(order_t *o, const jsonschema_node_t **items, size_t n);

/* ConditionalSchema.getIfSchema().orElse(EmptySchema.INSTANCE) and the like. */
static const jsonschema_node_t empty_instance = {.kind = JSONSCHEMA_NODE_EMPTY};

static const jsonschema_node_t *branch(const jsonschema_node_t *n, const char *key)
{
    const jsonschema_json_t *v = n->cond_owner ? jsonschema_json_get(n->cond_owner, key) : NULL;
    return v && v->node ? v->node : &empty_instance;
}

static int compare_combined(order_t *o, const jsonschema_node_t *a, const jsonschema_node_t *b)
{
    if (a->criterion != b->criterion) /* "allof" < "anyof" < "oneof" */
        return a->criterion < b->criterion ? -1 : 1;
    if (a->nsubs != b->nsubs)
        return a->nsubs < b->nsubs ? -1 : 1;
    const jsonschema_node_t **x = malloc((a->nsubs ? a->nsubs : 1) * sizeof *x);
    const jsonschema_node_t **y = malloc((b->nsubs ? b->nsubs : 1) * sizeof *y);
    int c = 0;
    if (!x || !y) {
        o->oom = 1;
    } else {
        memcpy(x, a->subs, a->nsubs * sizeof *x);
        memcpy(y, b->subs, b->nsubs * sizeof *y);
        sort_nodes(o, x, a->nsubs);
        sort_nodes(o, y, b->nsubs);
        for (size_t i = 0; i < a->nsubs && !c; i++)
            c = compare(o, x[i], y[i]);
    }
    free(x);
    free(y);
    return c;
}

static int compare_class(order_t *o, const jsonschema_node_t *a, const jsonschema_node_t *b)
{
    switch (a->kind) {
    case JSONSCHEMA_NODE_CONST: return value_cmp(a->const_value, b->const_value, &o->oom);
    case JSONSCHEMA_NODE_ENUM:
        return texts_cmp(values_texts(a, &o->oom), a->nvalues, values_texts(b, &o->oom), b->nvalues);
    case JSONSCHEMA_NODE_COMBINED: return compare_combined(o, a, b);
    case JSONSCHEMA_NODE_NOT: return compare(o, a->negated, b->negated);
    case JSONSCHEMA_NODE_CONDITIONAL: {
        static const char *const keys[] = {"if", "then", "else"};
        int c = 0;
        for (size_t i = 0; i < 3 && !c; i++)
            c = compare(o, branch(a, keys[i]), branch(b, keys[i]));
        return c;
    }
    case JSONSCHEMA_NODE_OBJECT: {
        int c = texts_cmp(names_texts(a, 0, &o->oom), a->nprops, names_texts(b, 0, &o->oom), b->nprops);
        if (c)
            return c;
        return texts_cmp(names_texts(a, 1, &o->oom), a->nrequired, names_texts(b, 1, &o->oom), b->nrequired);
    }
    case JSONSCHEMA_NODE_ARRAY: return compare(o, a->all_items, b->all_items);
    case JSONSCHEMA_NODE_REFERENCE: return compare(o, a->target, b->target);
    default: return 0;
    }
}

static int compare(order_t *o, const jsonschema_node_t *a, const jsonschema_node_t *b)
{
    if (a == b)
        return 0;
    if (!a || !b)
        return (a != NULL) - (b != NULL);
    if (o->depth >= ORDER_MAX_DEPTH || o->oom || *o->budget == 0)
        return 0;
    --*o->budget;
    int c = class_rank(a->kind) - class_rank(b->kind);
    if (c)
        return c < 0 ? -1 : 1;
    if ((c = json_string_cmp(a->title, b->title)) || (c = json_string_cmp(a->description, b->description)) ||
        (c = value_cmp(a->default_value, b->default_value, &o->oom)))
        return c;
    o->depth++;
    c = compare_class(o, a, b);
    o->depth--;
    return c;
}

/* ---- 3. The stable sort ---------------------------------------------------------------- */

/* Insertion sort: stable, as List.sort, and subschema lists are short. */
static int sort_nodes(order_t *o, const jsonschema_node_t **items, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        const jsonschema_node_t *cur = items[i];
        size_t j = i;
        while (j > 0 && compare(o, items[j - 1], cur) > 0) {
            items[j] = items[j - 1];
            j--;
        }
        items[j] = cur;
    }
    return o->oom ? -1 : 0;
}

int jsonschema_order_sort(const jsonschema_node_t **items, size_t n, size_t *budget)
{
    order_t o = {0, 0, budget};
    return sort_nodes(&o, items, n);
}
