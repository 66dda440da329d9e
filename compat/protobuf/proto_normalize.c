/*
 * proto_normalize: the option and number rewriting of Confluent's normalize=true
 * (docs/compatibility.md "Schema text, forms and formats"). The printer drives
 * normalization (it qualifies types and sorts members itself); this file owns the parts
 * with their own rules: custom option names qualified and merged, aggregate keys sorted,
 * numbers canonicalized.
 */
#include "compat/protobuf/internal.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Values --------------------------------------------------------------------- */

static int value_equal(const proto_value_t *a, const proto_value_t *b);

static const proto_value_t *map_get(const proto_value_t *map, const char *key)
{
    for (size_t i = 0; i < map->n_entries; i++)
        if (strcmp(map->entries[i].key, key) == 0)
            return map->entries[i].value;
    return NULL;
}

/* Java equality of option values: maps ignore entry order, lists do not. */
static int value_equal(const proto_value_t *a, const proto_value_t *b)
{
    if (a->kind != b->kind)
        return 0;
    switch (a->kind) {
    case PROTO_VALUE_MAP:
        if (a->n_entries != b->n_entries)
            return 0;
        for (size_t i = 0; i < a->n_entries; i++) {
            const proto_value_t *other = map_get(b, a->entries[i].key);
            if (!other || !value_equal(a->entries[i].value, other))
                return 0;
        }
        return 1;
    case PROTO_VALUE_LIST:
        if (a->n_items != b->n_items)
            return 0;
        for (size_t i = 0; i < a->n_items; i++)
            if (!value_equal(a->items[i], b->items[i]))
                return 0;
        return 1;
    case PROTO_VALUE_OPTION:
        return a->option->parenthesized == b->option->parenthesized &&
               strcmp(a->option->name, b->option->name) == 0 &&
               value_equal(a->option->value, b->option->value);
    default: return a->len == b->len && memcmp(a->text, b->text, a->len) == 0;
    }
}

static proto_value_t *new_map(arena_t *arena, size_t cap)
{
    proto_value_t *m = arena_alloc(arena, sizeof *m);
    if (!m)
        return NULL;
    m->kind = PROTO_VALUE_MAP;
    m->entries = arena_alloc(arena, (cap ? cap : 1) * sizeof *m->entries);
    return m->entries ? m : NULL;
}

/* Wire's OPTION chain (a).b.c = v as nested one-entry maps {b: {c: v}}. */
static proto_value_t *option_chain_to_map(arena_t *arena, const proto_option_t *inner)
{
    proto_value_t *m = new_map(arena, 1);
    if (!m)
        return NULL;
    proto_value_t *v = inner->value;
    if (v->kind == PROTO_VALUE_OPTION && !(v = option_chain_to_map(arena, v->option)))
        return NULL;
    m->entries[0].key = inner->name;
    m->entries[0].value = v;
    m->n_entries = 1;
    return m;
}

static proto_option_t *transform(arena_t *arena, const proto_option_t *o)
{
    proto_option_t *t = arena_alloc(arena, sizeof *t);
    if (!t)
        return NULL;
    *t = *o;
    if (o->value->kind == PROTO_VALUE_OPTION && !(t->value = option_chain_to_map(arena, o->value->option)))
        return NULL;
    return t;
}

/* ---- Merging repeated statements of one custom option ------------------------------ */

typedef struct merger {
    const proto_scope_t *scope;
    arena_t *arena;
} merger_t;

static const proto_message_t *message_type_of(const merger_t *mg, const proto_field_t *field)
{
    if (!field)
        return NULL;
    const proto_symbol_t *s = proto_scope_resolve(mg->scope, field->type, 0);
    return s && s->kind == PROTO_SYMBOL_MESSAGE ? s->message : NULL;
}

static const proto_field_t *field_named(const proto_message_t *m, const char *name)
{
    for (size_t i = 0; i < m->n_fields; i++)
        if (strcmp(m->fields[i]->name, name) == 0)
            return m->fields[i];
    for (size_t i = 0; i < m->n_oneofs; i++)
        for (size_t j = 0; j < m->oneofs[i]->n_fields; j++)
            if (strcmp(m->oneofs[i]->fields[j]->name, name) == 0)
                return m->oneofs[i]->fields[j];
    return NULL;
}

static proto_value_t *merge_maps(const merger_t *mg, const proto_field_t *container, const proto_value_t *a,
                                 const proto_value_t *b);

/* Distinct values, as a LinkedHashSet keeps them. Past MAX_DEDUPE items a
 * list is only appended to, so hostile input cannot make this quadratic. */
#define MAX_DEDUPE 1024

static int list_add_unique(arena_t *arena, proto_value_t *list, proto_value_t *v)
{
    for (size_t i = 0; i < list->n_items && list->n_items < MAX_DEDUPE; i++)
        if (value_equal(list->items[i], v))
            return 0;
    return arena_push(arena, &list->items, &list->n_items, v);
}

static int list_add_all_unique(arena_t *arena, proto_value_t *list, proto_value_t *v)
{
    if (v->kind != PROTO_VALUE_LIST)
        return list_add_unique(arena, list, v);
    for (size_t i = 0; i < v->n_items; i++)
        if (list_add_unique(arena, list, v->items[i]) != 0)
            return -1;
    return 0;
}

/* Singular message fields deep-merge, singular scalars take the later value,
 * repeated (or unknown) fields accumulate distinct values. */
static proto_value_t *merge_values(const merger_t *mg, const proto_field_t *field, proto_value_t *a,
                                   proto_value_t *b)
{
    int singular = field && field->label != PROTO_LABEL_REPEATED;
    if (singular && a->kind == PROTO_VALUE_MAP && b->kind == PROTO_VALUE_MAP && message_type_of(mg, field))
        return merge_maps(mg, field, a, b);
    if (singular)
        return b;
    proto_value_t *list = arena_alloc(mg->arena, sizeof *list);
    if (!list)
        return NULL;
    list->kind = PROTO_VALUE_LIST;
    if (list_add_all_unique(mg->arena, list, a) != 0 || list_add_all_unique(mg->arena, list, b) != 0)
        return NULL;
    return list;
}

static proto_value_t *merge_maps(const merger_t *mg, const proto_field_t *container, const proto_value_t *a,
                                 const proto_value_t *b)
{
    const proto_message_t *type = message_type_of(mg, container);
    proto_value_t *m = new_map(mg->arena, a->n_entries + b->n_entries);
    if (!m)
        return NULL;
    if (a->n_entries)
        memcpy(m->entries, a->entries, a->n_entries * sizeof *m->entries);
    m->n_entries = a->n_entries;
    for (size_t i = 0; i < b->n_entries; i++) {
        const char *key = b->entries[i].key;
        proto_value_t *value = b->entries[i].value;
        size_t j = 0;
        while (j < m->n_entries && strcmp(m->entries[j].key, key) != 0)
            j++;
        if (j == m->n_entries) {
            m->entries[m->n_entries].key = key;
            m->entries[m->n_entries++].value = value;
            continue;
        }
        const proto_field_t *nested = type ? field_named(type, key) : NULL;
        if (!(m->entries[j].value = merge_values(mg, nested, m->entries[j].value, value)))
            return NULL;
    }
    return m;
}

static proto_option_t *merge_option(const merger_t *mg, const proto_field_t *field, proto_option_t *existing,
                                    proto_option_t *replacement)
{
    if (!(replacement = transform(mg->arena, replacement)))
        return NULL;
    if (existing->value->kind != PROTO_VALUE_MAP || replacement->value->kind != PROTO_VALUE_MAP)
        return replacement;
    proto_option_t *o = arena_alloc(mg->arena, sizeof *o);
    if (!o)
        return NULL;
    *o = *replacement;
    o->value = merge_maps(mg, field, existing->value, replacement->value);
    return o->value ? o : NULL;
}

/* ---- Option lists ------------------------------------------------------------------- */

static int compare_option_names(const void *a, const void *b)
{
    const proto_option_t *const *x = a, *const *y = b;
    return strcmp((*x)->name, (*y)->name);
}

typedef struct indexed_option {
    proto_option_t *option;
    size_t index;
} indexed_option_t;

static int compare_indexed(const void *a, const void *b)
{
    const indexed_option_t *x = a, *y = b;
    int c = compare_option_names(&x->option, &y->option);
    if (c)
        return c;
    /* qsort is not stable; Java's sort is: ties keep their order. */
    return x->index < y->index ? -1 : x->index > y->index;
}

#define MAX_MERGE 64

/* Custom option names become fully qualified; the list is sorted by name
 * (stably) and repeated statements of a non-repeated extension merge. */
int proto_normalize_options(const proto_scope_t *scope, arena_t *arena, const proto_options_t *in,
                            proto_options_t *out)
{
    out->items = NULL;
    out->n = 0;
    if (in->n == 0)
        return 0;
    indexed_option_t *tmp = calloc(in->n, sizeof *tmp);
    if (!tmp)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < in->n && rc == 0; i++) {
        proto_option_t *o = in->items[i];
        const proto_symbol_t *ext = o->parenthesized ? proto_scope_resolve(scope, o->name, 1) : NULL;
        if (ext) {
            proto_option_t qualified = *o;
            qualified.name = ext->full_name;
            if (!(o = transform(arena, &qualified)))
                rc = -1;
        }
        tmp[i].option = o;
        tmp[i].index = i;
    }
    if (rc == 0)
        qsort(tmp, in->n, sizeof *tmp, compare_indexed);
    merger_t mg = {scope, arena};
    for (size_t i = 0; i < in->n && rc == 0;) {
        size_t j = i + 1;
        while (j < in->n && strcmp(tmp[j].option->name, tmp[i].option->name) == 0)
            j++;
        const proto_symbol_t *ext = proto_symtab_get(scope->tab, tmp[i].option->name, 1);
        /* Merging is quadratic in the statements merged; past MAX_MERGE
         * statements of one option they print as they are. */
        if (ext && ext->field->label != PROTO_LABEL_REPEATED && j - i <= MAX_MERGE) {
            proto_option_t *merged = tmp[i].option;
            for (size_t k = i + 1; k < j && merged; k++)
                merged = merge_option(&mg, ext->field, merged, tmp[k].option);
            rc = merged ? arena_push(arena, &out->items, &out->n, merged) : -1;
        } else {
            for (size_t k = i; k < j && rc == 0; k++)
                rc = arena_push(arena, &out->items, &out->n, tmp[k].option);
        }
        i = j;
    }
    free(tmp);
    return rc;
}

/* ---- Aggregate values -------------------------------------------------------------- */

typedef struct keyed_entry {
    proto_map_entry_t entry;
    size_t pos;
} keyed_entry_t;

static int compare_entries(const void *a, const void *b)
{
    const keyed_entry_t *x = a, *y = b;
    int c = strcmp(x->entry.key, y->entry.key);
    if (c)
        return c;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* Entries sorted by key (a TreeMap), empty lists dropped, extension keys
 * "[name]" qualified; of two entries that end up with one key, the first stays. */
int proto_normalize_map(const proto_scope_t *scope, arena_t *arena, const proto_value_t *map,
                        proto_value_t **out)
{
    keyed_entry_t *tmp = calloc(map->n_entries + 1, sizeof *tmp);
    proto_value_t *m = new_map(arena, map->n_entries);
    if (!tmp || !m) {
        free(tmp);
        return -1;
    }
    size_t n = 0;
    for (size_t i = 0; i < map->n_entries; i++) {
        const char *key = map->entries[i].key;
        proto_value_t *value = map->entries[i].value;
        if (value->kind == PROTO_VALUE_LIST && value->n_items == 0)
            continue;
        size_t klen = strlen(key);
        if (klen > 2 && key[0] == '[' && key[klen - 1] == ']') {
            char *inner = arena_strndup(arena, key + 1, klen - 2);
            const proto_symbol_t *ext = inner ? proto_scope_resolve(scope, inner, 1) : NULL;
            if (!inner || (ext && !(key = arena_printf(arena, "[%s]", ext->full_name)))) {
                free(tmp);
                return -1;
            }
        }
        tmp[n].entry.key = key;
        tmp[n].entry.value = value;
        tmp[n].pos = n;
        n++;
    }
    qsort(tmp, n, sizeof *tmp, compare_entries);
    for (size_t i = 0; i < n; i++)
        if (i == 0 || strcmp(tmp[i].entry.key, tmp[i - 1].entry.key) != 0)
            m->entries[m->n_entries++] = tmp[i].entry;
    free(tmp);
    *out = m;
    return 0;
}

/* ---- Numbers ------------------------------------------------------------------------- */

static int all_chars_in(const char *s, const char *set)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!strchr(set, *s))
            return 0;
    return 1;
}

/* Integers the way commons-lang NumberUtils.createNumber reads them: 0x hex,
 * a leading 0 means octal. Values beyond 64 bits stay as written. */
static int format_integer(const char *raw, strbuf_t *out)
{
    int negative = raw[0] == '-';
    const char *digits = raw + negative;
    int base = 10;
    if (digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
        base = 16;
        digits += 2;
    } else if (digits[0] == '0' && digits[1]) {
        base = 8;
        digits += 1;
    }
    const char *set = base == 16 ? "0123456789abcdefABCDEF" : base == 8 ? "01234567" : "0123456789";
    if (!all_chars_in(digits, set))
        return 0;
    unsigned long long v = 0;
    for (const char *c = digits; *c; c++) {
        unsigned d = (unsigned)(*c <= '9' ? *c - '0' : (*c | 0x20) - 'a' + 10);
        if (v > (~0ULL - d) / (unsigned)base)
            return 0;
        v = v * (unsigned)base + d;
    }
    if (negative && v)
        strbuf_putc(out, '-');
    strbuf_printf(out, "%llu", v);
    return 1;
}

/* Shortest decimal digits that read back as v (as a float when as_float):
 * "%.*e" with growing precision, like Java's Double/Float.toString. */
static void shortest_digits(double v, int as_float, char *digits, int *exp10)
{
    char buf[40];
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, sizeof buf, "%.*e", p - 1, v);
        if (as_float ? strtof(buf, NULL) == (float)v : strtod(buf, NULL) == v)
            break;
    }
    /* buf is "d.ddde[+-]xx": collect the digits and the exponent. */
    size_t n = 0;
    char *e = strchr(buf, 'e');
    for (char *c = buf; c < e; c++)
        if (*c >= '0' && *c <= '9')
            digits[n++] = *c;
    digits[n] = '\0';
    *exp10 = atoi(e + 1);
}

/*
 * java.text.DecimalFormat's default pattern: no exponent, at most three
 * fraction digits, half-even rounding on the shortest decimal digits of the
 * value. NumberUtils picks float precision when float and double print alike.
 */
static int format_decimal(const char *raw, strbuf_t *out)
{
    if (!all_chars_in(raw, "0123456789.eE-+") || !strpbrk(raw, "0123456789"))
        return 0;
    char *end = NULL;
    double parsed = strtod(raw, &end);
    if (*end || isinf(parsed) || isnan(parsed))
        return 0;
    double v = parsed;
    /* A value beyond float's range has no float form (converting it would be
     * undefined, and its "inf" has no digits to compare). */
    if (fabs(parsed) <= FLT_MAX) {
        float f = (float)parsed;
        char fd[20], dd[20];
        int fe, de;
        shortest_digits((double)f, 1, fd, &fe);
        shortest_digits(parsed, 0, dd, &de);
        if (fe == de && strcmp(fd, dd) == 0)
            v = (double)f;
    }
    char raw_digits[24];
    int e;
    shortest_digits(fabs(v), 0, raw_digits, &e);
    /* d[0..n) with the decimal point after position point; pad so that
     * 1 <= point and every kept position exists. */
    char d[400];
    int n = 0, point = e + 1;
    if (point > 300 || point < -300)
        return 0;
    for (; point < 1; point++)
        d[n++] = '0';
    for (const char *c = raw_digits; *c; c++)
        d[n++] = *c;
    int keep = point + 3;
    while (n < keep)
        d[n++] = '0';
    if (keep < n) {
        int first = d[keep] - '0', rest = 0;
        for (int i = keep + 1; i < n; i++)
            rest |= d[i] != '0';
        int up = first > 5 || (first == 5 && (rest || (d[keep - 1] - '0') % 2 == 1));
        n = keep;
        for (int i = n - 1; up && i >= 0; i--) {
            if (d[i] == '9') {
                d[i] = '0';
            } else {
                d[i]++;
                up = 0;
            }
        }
        if (up) {
            memmove(d + 1, d, (size_t)n++);
            d[0] = '1';
            point++;
        }
    }
    if (v < 0 || (v == 0 && signbit(v)))
        strbuf_putc(out, '-');
    int i = 0;
    while (i < point - 1 && d[i] == '0')
        i++;
    strbuf_put(out, d + i, (size_t)(point - i));
    int flen = n - point;
    while (flen > 0 && d[point + flen - 1] == '0')
        flen--;
    if (flen > 0) {
        strbuf_putc(out, '.');
        strbuf_put(out, d + point, (size_t)flen);
    }
    return 1;
}

void proto_normalize_number(const char *raw, strbuf_t *out)
{
    int has_point = strchr(raw, '.') || strchr(raw, 'e') || strchr(raw, 'E');
    int is_hex = strstr(raw, "0x") || strstr(raw, "0X");
    if ((!has_point || is_hex) && format_integer(raw, out))
        return;
    if (has_point && !is_hex && format_decimal(raw, out))
        return;
    strbuf_puts(out, raw);
}
