/*
 * proto_printer: the model back to .proto text, byte for byte as Confluent's
 * ProtobufSchemaUtils prints Wire's elements (the canonical string), optionally dropping
 * custom options and extensions (format=ignore_extensions) or normalizing
 * (docs/compatibility.md "Schema text, forms and formats").
 *
 * Like the reference, every element is rendered on its own and then
 * indented into its parent line by line, so blank lines inside nested
 * elements carry the indentation ("  ") -- part of the canonical bytes.
 */
#include "compat/protobuf/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct printer {
    proto_print_mode_t mode;
    proto_scope_t scope; /* normalization: names resolve from here */
    arena_t *arena;      /* temporaries of normalization */
    char *error;         /* first failure; printing stops mattering after it */
} printer_t;

static int normalizing(const printer_t *pr)
{
    return pr->mode == PROTO_PRINT_NORMALIZE;
}

static int ignoring_extensions(const printer_t *pr)
{
    return pr->mode == PROTO_PRINT_IGNORE_EXTENSIONS;
}

static void fail(printer_t *pr, const char *prefix, const char *detail)
{
    if (pr->error)
        return;
    size_t n = strlen(prefix) + strlen(detail) + 1;
    pr->error = malloc(n);
    if (pr->error)
        snprintf(pr->error, n, "%s%s", prefix, detail);
}

static void fail_oom(printer_t *pr)
{
    fail(pr, "out of memory", "");
}

/* ---- Text helpers ----------------------------------------------------------------- */

/*
 * Appends each line of text indented by two spaces. Lines are split the
 * way Java's String.split("\n") does: trailing empty lines vanish, inner
 * ones stay (and get the indentation).
 */
static void append_indented(strbuf_t *out, const char *text, size_t len)
{
    while (len > 0 && text[len - 1] == '\n')
        len--;
    if (len == 0) {
        /* split() of a non-empty all-newline string yields nothing at all. */
        return;
    }
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i == len || text[i] == '\n') {
            strbuf_put(out, "  ", 2);
            strbuf_put(out, text + start, i - start);
            strbuf_putc(out, '\n');
            start = i + 1;
        }
    }
}

static void append_indented_buf(strbuf_t *out, strbuf_t *item)
{
    append_indented(out, item->data ? item->data : "", item->len);
    if (item->failed)
        out->failed = 1;
    strbuf_free(item);
}

/* Confluent's escapeChars; NUL is escaped too so the text stays a C string. */
static void put_escaped(strbuf_t *out, const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        switch (s[i]) {
        case '\a': strbuf_puts(out, "\\a"); break;
        case '\b': strbuf_puts(out, "\\b"); break;
        case '\f': strbuf_puts(out, "\\f"); break;
        case '\n': strbuf_puts(out, "\\n"); break;
        case '\r': strbuf_puts(out, "\\r"); break;
        case '\t': strbuf_puts(out, "\\t"); break;
        case '\v': strbuf_puts(out, "\\v"); break;
        case '\\': strbuf_puts(out, "\\\\"); break;
        case '\'': strbuf_puts(out, "\\'"); break;
        case '"': strbuf_puts(out, "\\\""); break;
        case '\0': strbuf_puts(out, "\\000"); break; /* three digits: a digit may follow */
        default: strbuf_putc(out, s[i]);
        }
    }
}

static void put_number(printer_t *pr, strbuf_t *out, const proto_value_t *v)
{
    if (normalizing(pr))
        proto_normalize_number(v->text, out);
    else
        strbuf_put(out, v->text, v->len);
}

/* ---- Options ------------------------------------------------------------------------ */

static void put_option(printer_t *pr, strbuf_t *out, const proto_option_t *o);
static void put_value(printer_t *pr, strbuf_t *out, const proto_value_t *v);

static void put_map_body(printer_t *pr, strbuf_t *out, const proto_value_t *map)
{
    proto_value_t *sorted;
    if (normalizing(pr)) {
        if (proto_normalize_map(&pr->scope, pr->arena, map, &sorted) != 0)
            fail_oom(pr);
        else
            map = sorted;
    }
    for (size_t i = 0; i < map->n_entries; i++) {
        strbuf_t kv = {0};
        strbuf_puts(&kv, map->entries[i].key);
        strbuf_puts(&kv, ": ");
        put_value(pr, &kv, map->entries[i].value);
        if (i + 1 < map->n_entries)
            strbuf_putc(&kv, ',');
        append_indented_buf(out, &kv);
    }
}

/* `[a]` for one item, else one item per line. */
static void put_bracketed(printer_t *pr, strbuf_t *out, proto_value_t *const *values,
                          proto_option_t *const *options, size_t n)
{
    if (n == 1) {
        strbuf_putc(out, '[');
        if (values)
            put_value(pr, out, values[0]);
        else
            put_option(pr, out, options[0]);
        strbuf_putc(out, ']');
        return;
    }
    strbuf_puts(out, "[\n");
    for (size_t i = 0; i < n; i++) {
        strbuf_t item = {0};
        if (values)
            put_value(pr, &item, values[i]);
        else
            put_option(pr, &item, options[i]);
        if (i + 1 < n)
            strbuf_putc(&item, ',');
        append_indented_buf(out, &item);
    }
    strbuf_putc(out, ']');
}

/* A value inside an aggregate or list (formatOptionMapOrListValue). */
static void put_value(printer_t *pr, strbuf_t *out, const proto_value_t *v)
{
    switch (v->kind) {
    case PROTO_VALUE_STRING:
        strbuf_putc(out, '"');
        put_escaped(out, v->text, v->len);
        strbuf_putc(out, '"');
        break;
    case PROTO_VALUE_BOOL:
    case PROTO_VALUE_ENUM: strbuf_put(out, v->text, v->len); break;
    case PROTO_VALUE_NUMBER: put_number(pr, out, v); break;
    case PROTO_VALUE_MAP:
        strbuf_puts(out, "{\n");
        put_map_body(pr, out, v);
        strbuf_putc(out, '}');
        break;
    case PROTO_VALUE_LIST:
        if (normalizing(pr) && v->n_items == 1) {
            put_value(pr, out, v->items[0]);
        } else {
            strbuf_puts(out, "[\n");
            for (size_t i = 0; i < v->n_items; i++) {
                strbuf_t item = {0};
                put_value(pr, &item, v->items[i]);
                if (i + 1 < v->n_items)
                    strbuf_putc(&item, ',');
                append_indented_buf(out, &item);
            }
            strbuf_putc(out, ']');
        }
        break;
    case PROTO_VALUE_OPTION: put_option(pr, out, v->option); break;
    }
}

/* `name = value` (OptionElement.toString in Confluent's printer). */
static void put_option(printer_t *pr, strbuf_t *out, const proto_option_t *o)
{
    if (o->parenthesized)
        strbuf_printf(out, "(%s)", o->name);
    else
        strbuf_puts(out, o->name);
    const proto_value_t *v = o->value;
    switch (v->kind) {
    case PROTO_VALUE_STRING:
        strbuf_puts(out, " = \"");
        put_escaped(out, v->text, v->len);
        strbuf_putc(out, '"');
        break;
    case PROTO_VALUE_BOOL:
    case PROTO_VALUE_ENUM:
        strbuf_puts(out, " = ");
        strbuf_put(out, v->text, v->len);
        break;
    case PROTO_VALUE_NUMBER:
        strbuf_puts(out, " = ");
        put_number(pr, out, v);
        break;
    case PROTO_VALUE_OPTION:
        strbuf_putc(out, '.');
        put_option(pr, out, v->option);
        break;
    case PROTO_VALUE_MAP:
        strbuf_puts(out, " = {\n");
        put_map_body(pr, out, v);
        strbuf_putc(out, '}');
        break;
    case PROTO_VALUE_LIST:
        strbuf_puts(out, " = ");
        put_bracketed(pr, out, v->items, NULL, v->n_items);
        break;
    }
}

/* The options a mode prints: custom ones dropped (except Confluent's own)
 * for ignore_extensions, qualified/sorted/merged for normalize. */
static proto_options_t filter_options(printer_t *pr, const proto_options_t *in)
{
    proto_options_t out = *in;
    if (in->n == 0)
        return out;
    if (ignoring_extensions(pr)) {
        out.items = NULL;
        out.n = 0;
        for (size_t i = 0; i < in->n; i++) {
            proto_option_t *o = in->items[i];
            if ((!o->parenthesized || strncmp(o->name, "confluent.", 10) == 0) &&
                arena_push(pr->arena, &out.items, &out.n, o) != 0)
                fail_oom(pr);
        }
    }
    if (normalizing(pr)) {
        proto_options_t sorted;
        if (proto_normalize_options(&pr->scope, pr->arena, &out, &sorted) != 0)
            fail_oom(pr);
        else
            out = sorted;
    }
    return out;
}

/* `option x = y;` lines, indented or not. */
static void put_option_statements(printer_t *pr, strbuf_t *out, const proto_options_t *opts, int indent)
{
    for (size_t i = 0; i < opts->n; i++) {
        strbuf_t line = {0};
        strbuf_puts(&line, "option ");
        put_option(pr, &line, opts->items[i]);
        strbuf_puts(&line, ";\n");
        if (indent) {
            append_indented_buf(out, &line);
        } else {
            strbuf_put(out, line.data ? line.data : "", line.len);
            strbuf_free(&line);
        }
    }
}

/* ---- Types and names under normalization ----------------------------------------------- */

/* ".full.Name" for a type that must resolve (fields, extends, rpcs). */
static const char *qualify(printer_t *pr, const char *name)
{
    const proto_symbol_t *s = proto_scope_resolve(&pr->scope, name, 0);
    if (!s) {
        fail(pr, "Could not resolve type: ", name);
        return name;
    }
    const char *q = arena_printf(pr->arena, ".%s", s->full_name);
    if (!q)
        fail_oom(pr);
    return q ? q : name;
}

static int enter(printer_t *pr, const char *name)
{
    if (normalizing(pr) && proto_scope_enter(&pr->scope, name) != 0) {
        fail_oom(pr);
        return -1;
    }
    return 0;
}

static void leave(printer_t *pr)
{
    if (normalizing(pr))
        proto_scope_leave(&pr->scope);
}

/* The simple name of a type ("Bar" of "foo.Bar"), as Wire's ProtoType. */
static const char *simple_name(const char *type)
{
    const char *dot = strrchr(type, '.');
    return dot ? dot + 1 : type;
}

static int is_word(const char *s, size_t len)
{
    if (len == 0)
        return 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
              c == '-' || c == '.'))
            return 0;
    }
    return 1;
}

/*
 * Confluent prints every non-string default unquoted (bytes too), which only
 * reads back when the value is a single word; anything else is quoted here
 * so the stored text always parses again (a deliberate deviation).
 */
static proto_value_kind_t default_kind(const char *type, const char *text, size_t len)
{
    const char *s = simple_name(type);
    if (!strcmp(s, "string") || !is_word(text, len))
        return PROTO_VALUE_STRING;
    if (!strcmp(s, "bool"))
        return PROTO_VALUE_BOOL;
    if (proto_is_scalar(s))
        return PROTO_VALUE_NUMBER;
    return PROTO_VALUE_ENUM;
}

/* A field's type as printed: normalization qualifies message types, turns
 * map-entry references into map<K, V> and qualifies map values. */
static const char *field_type(printer_t *pr, const proto_field_t *f, proto_label_t *label)
{
    if (!normalizing(pr))
        return f->type;
    const char *type = f->type;
    const char *key = f->map_key, *value = f->map_value;
    if (!proto_is_scalar(type) && !key) {
        type = qualify(pr, type);
        const proto_symbol_t *s = proto_symtab_get(pr->scope.tab, type, 0);
        if (s && s->is_map_entry && s->map_key && s->map_value) {
            key = s->map_key->type;
            value = s->map_value->type;
        }
    }
    if (!key)
        return type;
    *label = PROTO_LABEL_NONE;
    const proto_symbol_t *vs = proto_scope_resolve(&pr->scope, value, 0);
    const char *t = vs ? arena_printf(pr->arena, "map<%s, .%s>", key, vs->full_name)
                       : arena_printf(pr->arena, "map<%s, %s>", key, value);
    if (!t)
        fail_oom(pr);
    return t ? t : f->type;
}

static const char *const label_names[] = {"", "optional", "required", "repeated"};

static proto_option_t *special_option(printer_t *pr, const char *name, proto_value_kind_t kind,
                                      const char *text, size_t len)
{
    proto_option_t *o = arena_alloc(pr->arena, sizeof *o);
    proto_value_t *v = arena_alloc(pr->arena, sizeof *v);
    if (!o || !v) {
        fail_oom(pr);
        return NULL;
    }
    v->kind = kind;
    v->text = text;
    v->len = len;
    o->name = name;
    o->value = v;
    return o;
}

static void put_field(printer_t *pr, strbuf_t *out, const proto_field_t *f)
{
    proto_label_t label = f->label;
    const char *type = field_type(pr, f, &label);
    if (label != PROTO_LABEL_NONE)
        strbuf_printf(out, "%s ", label_names[label]);
    strbuf_printf(out, "%s %s = %d", type, f->name, (int)f->tag);

    /* default and json_name print after the real options. */
    proto_options_t opts = {0};
    for (size_t i = 0; i < f->options.n; i++)
        if (arena_push(pr->arena, &opts.items, &opts.n, f->options.items[i]) != 0)
            fail_oom(pr);
    proto_option_t *o;
    if (f->default_value &&
        (o = special_option(pr, "default", default_kind(type, f->default_value, f->default_len),
                            f->default_value, f->default_len)) &&
        arena_push(pr->arena, &opts.items, &opts.n, o) != 0)
        fail_oom(pr);
    if (f->json_name &&
        (o = special_option(pr, "json_name", PROTO_VALUE_STRING, f->json_name, f->json_name_len)) &&
        arena_push(pr->arena, &opts.items, &opts.n, o) != 0)
        fail_oom(pr);
    opts = filter_options(pr, &opts);
    if (opts.n) {
        strbuf_putc(out, ' ');
        put_bracketed(pr, out, NULL, opts.items, opts.n);
    }
    strbuf_puts(out, ";\n");
}

/* ---- Sorting for normalization (stable: ties keep declaration order) ------------------------- */

typedef struct keyed {
    const void *item;
    long long key;
    const char *text; /* secondary key, may be NULL */
    size_t index;
} keyed_t;

static int compare_keyed(const void *a, const void *b)
{
    const keyed_t *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->text && y->text) {
        int c = strcmp(x->text, y->text);
        if (c)
            return c;
    }
    return x->index < y->index ? -1 : x->index > y->index;
}

static keyed_t *keyed_new(printer_t *pr, size_t n)
{
    keyed_t *k = arena_alloc(pr->arena, (n ? n : 1) * sizeof *k);
    if (!k)
        fail_oom(pr);
    return k;
}

static void keyed_sort(keyed_t *k, size_t n)
{
    if (k)
        qsort(k, n, sizeof *k, compare_keyed);
}

/* Fields by tag (a copy when normalizing). */
static proto_field_t *const *fields_in_order(printer_t *pr, proto_field_t *const *fields, size_t n)
{
    if (!normalizing(pr) || n < 2)
        return fields;
    keyed_t *k = keyed_new(pr, n);
    proto_field_t **sorted = arena_alloc(pr->arena, n * sizeof *sorted);
    if (!k || !sorted) {
        fail_oom(pr);
        return fields;
    }
    for (size_t i = 0; i < n; i++)
        k[i] = (keyed_t){fields[i], fields[i]->tag, NULL, i};
    keyed_sort(k, n);
    for (size_t i = 0; i < n; i++)
        sorted[i] = (proto_field_t *)k[i].item;
    return sorted;
}

static proto_group_t *const *groups_in_order(printer_t *pr, proto_group_t *const *groups, size_t n)
{
    if (!normalizing(pr) || n < 2)
        return groups;
    keyed_t *k = keyed_new(pr, n);
    proto_group_t **sorted = arena_alloc(pr->arena, n * sizeof *sorted);
    if (!k || !sorted) {
        fail_oom(pr);
        return groups;
    }
    for (size_t i = 0; i < n; i++)
        k[i] = (keyed_t){groups[i], groups[i]->tag, NULL, i};
    keyed_sort(k, n);
    for (size_t i = 0; i < n; i++)
        sorted[i] = (proto_group_t *)k[i].item;
    return sorted;
}

/* ---- Reserved and extensions ranges -------------------------------------------------------- */

typedef struct range_list {
    const proto_range_t **values;
    size_t n;
} range_list_t;

/* One statement's values; normalization splits every value into its own
 * statement, sorted by start (names last), then by Kotlin's toString. */
static void put_range(printer_t *pr, strbuf_t *out, const proto_range_t *r)
{
    if (r->name) {
        /* Confluent does not escape reserved names; valid ones (identifiers)
         * print the same either way, and escaping keeps odd ones readable. */
        strbuf_putc(out, '"');
        put_escaped(out, r->name, strlen(r->name));
        strbuf_putc(out, '"');
    } else if (!r->is_range || (normalizing(pr) && r->start == r->end)) {
        strbuf_printf(out, "%d", (int)r->start);
    } else if (r->end_is_max || r->end >= PROTO_MAX_FIELD_NUMBER) {
        strbuf_printf(out, "%d to max", (int)r->start);
    } else {
        strbuf_printf(out, "%d to %d", (int)r->start, (int)r->end);
    }
}

static void put_range_statement(printer_t *pr, strbuf_t *out, const char *keyword,
                                const proto_range_t *const *values, size_t n, const proto_options_t *options)
{
    strbuf_t line = {0};
    strbuf_printf(&line, "%s ", keyword);
    for (size_t i = 0; i < n; i++) {
        if (i)
            strbuf_puts(&line, ", ");
        put_range(pr, &line, values[i]);
    }
    if (options) {
        proto_options_t opts = filter_options(pr, options);
        if (opts.n) {
            strbuf_putc(&line, ' ');
            put_bracketed(pr, &line, NULL, opts.items, opts.n);
        }
    }
    strbuf_puts(&line, ";\n");
    append_indented_buf(out, &line);
}

static const char *range_text(printer_t *pr, const proto_range_t *r)
{
    if (r->name)
        return r->name;
    const char *t = r->is_range ? arena_printf(pr->arena, "%d..%d", (int)r->start, (int)r->end)
                                : arena_printf(pr->arena, "%d", (int)r->start);
    if (!t)
        fail_oom(pr);
    return t ? t : "";
}

static void put_reserveds(printer_t *pr, strbuf_t *out, proto_reserved_t *const *res, size_t n)
{
    if (!normalizing(pr)) {
        for (size_t i = 0; i < n; i++) {
            const proto_range_t **vals = arena_alloc(pr->arena, (res[i]->n_values + 1) * sizeof *vals);
            if (!vals) {
                fail_oom(pr);
                return;
            }
            for (size_t j = 0; j < res[i]->n_values; j++)
                vals[j] = &res[i]->values[j];
            put_range_statement(pr, out, "reserved", vals, res[i]->n_values, NULL);
        }
        return;
    }
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += res[i]->n_values;
    keyed_t *k = keyed_new(pr, total);
    if (!k)
        return;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < res[i]->n_values; j++) {
            const proto_range_t *r = &res[i]->values[j];
            k[m] = (keyed_t){r, r->name ? 2147483647LL : r->start, range_text(pr, r), m};
            m++;
        }
    keyed_sort(k, total);
    for (size_t i = 0; i < total; i++) {
        const proto_range_t *r = k[i].item;
        put_range_statement(pr, out, "reserved", &r, 1, NULL);
    }
}

static void put_extension_ranges(printer_t *pr, strbuf_t *out, proto_extensions_t *const *ext, size_t n)
{
    if (!normalizing(pr)) {
        for (size_t i = 0; i < n; i++) {
            const proto_range_t **vals = arena_alloc(pr->arena, (ext[i]->n_values + 1) * sizeof *vals);
            if (!vals) {
                fail_oom(pr);
                return;
            }
            for (size_t j = 0; j < ext[i]->n_values; j++)
                vals[j] = &ext[i]->values[j];
            put_range_statement(pr, out, "extensions", vals, ext[i]->n_values, &ext[i]->options);
        }
        return;
    }
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += ext[i]->n_values;
    keyed_t *k = keyed_new(pr, total);
    const proto_options_t **owner = arena_alloc(pr->arena, (total + 1) * sizeof *owner);
    if (!k || !owner) {
        fail_oom(pr);
        return;
    }
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < ext[i]->n_values; j++) {
            owner[m] = &ext[i]->options;
            k[m] = (keyed_t){&ext[i]->values[j], ext[i]->values[j].start, NULL, m};
            m++;
        }
    keyed_sort(k, total);
    for (size_t i = 0; i < total; i++) {
        const proto_range_t *r = k[i].item;
        put_range_statement(pr, out, "extensions", &r, 1, owner[k[i].index]);
    }
}

/* ---- Extend blocks
 * ---------------------------------------------------------------------------- */

static void put_extend(printer_t *pr, strbuf_t *out, const char *name, proto_field_t *const *fields, size_t n)
{
    strbuf_printf(out, "extend %s {", name);
    if (n) {
        strbuf_putc(out, '\n');
        fields = fields_in_order(pr, fields, n);
        for (size_t i = 0; i < n; i++) {
            strbuf_t item = {0};
            put_field(pr, &item, fields[i]);
            append_indented_buf(out, &item);
        }
    }
    strbuf_puts(out, "}\n");
}

/* Normalization regroups extend fields by their resolved target, in order
 * of first appearance. indent: message-level blocks are indented. */
static void put_extends(printer_t *pr, strbuf_t *out, proto_extend_t *const *ext, size_t n, int indent)
{
    if (!normalizing(pr)) {
        for (size_t i = 0; i < n; i++) {
            strbuf_t block = {0};
            put_extend(pr, &block, ext[i]->name, ext[i]->fields, ext[i]->n_fields);
            if (indent) {
                append_indented_buf(out, &block);
            } else {
                strbuf_put(out, block.data ? block.data : "", block.len);
                strbuf_free(&block);
            }
        }
        return;
    }
    /* Sort blocks by target (ties in order), group, then print the groups
     * in order of their first block. */
    keyed_t *k = keyed_new(pr, n);
    if (!k)
        return;
    for (size_t i = 0; i < n; i++)
        k[i] = (keyed_t){ext[i], 0, qualify(pr, ext[i]->name), i};
    keyed_sort(k, n);
    keyed_t *groups = keyed_new(pr, n);
    if (!groups)
        return;
    size_t ng = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        proto_field_t **fields = NULL;
        size_t nf = 0;
        for (; j < n && strcmp(k[j].text, k[i].text) == 0; j++) {
            const proto_extend_t *x = k[j].item;
            for (size_t f = 0; f < x->n_fields; f++)
                if (arena_push(pr->arena, &fields, &nf, x->fields[f]) != 0)
                    fail_oom(pr);
        }
        proto_extend_t *merged = arena_alloc(pr->arena, sizeof *merged);
        if (!merged) {
            fail_oom(pr);
            return;
        }
        merged->name = k[i].text;
        merged->fields = fields;
        merged->n_fields = nf;
        groups[ng] = (keyed_t){merged, (long long)k[i].index, NULL, ng};
        ng++;
        i = j;
    }
    keyed_sort(groups, ng);
    for (size_t g = 0; g < ng; g++) {
        const proto_extend_t *x = groups[g].item;
        strbuf_t block = {0};
        put_extend(pr, &block, x->name, x->fields, x->n_fields);
        if (indent) {
            append_indented_buf(out, &block);
        } else {
            strbuf_put(out, block.data ? block.data : "", block.len);
            strbuf_free(&block);
        }
    }
}

/* ---- Messages, enums, services
 * ----------------------------------------------------------------- */

static void put_message(printer_t *pr, strbuf_t *out, const proto_message_t *m);
static void put_enum(printer_t *pr, strbuf_t *out, const proto_enum_t *e);

static void put_group(printer_t *pr, strbuf_t *out, const proto_group_t *g)
{
    if (g->label != PROTO_LABEL_NONE)
        strbuf_printf(out, "%s ", label_names[g->label]);
    strbuf_printf(out, "group %s = %d {", g->name, (int)g->tag);
    if (g->n_fields) {
        strbuf_putc(out, '\n');
        proto_field_t *const *fields = fields_in_order(pr, g->fields, g->n_fields);
        for (size_t i = 0; i < g->n_fields; i++) {
            strbuf_t item = {0};
            put_field(pr, &item, fields[i]);
            append_indented_buf(out, &item);
        }
    }
    strbuf_puts(out, "}\n");
}

static void put_groups(printer_t *pr, strbuf_t *out, proto_group_t *const *groups, size_t n)
{
    groups = groups_in_order(pr, groups, n);
    for (size_t i = 0; i < n; i++) {
        strbuf_t item = {0};
        put_group(pr, &item, groups[i]);
        append_indented_buf(out, &item);
    }
}

static void put_oneof(printer_t *pr, strbuf_t *out, const proto_oneof_t *o, proto_field_t *const *fields)
{
    strbuf_printf(out, "oneof %s {", o->name);
    proto_options_t opts = filter_options(pr, &o->options);
    if (opts.n) {
        strbuf_putc(out, '\n');
        put_option_statements(pr, out, &opts, 1);
    }
    if (o->n_fields) {
        strbuf_putc(out, '\n');
        for (size_t i = 0; i < o->n_fields; i++) {
            strbuf_t item = {0};
            put_field(pr, &item, fields[i]);
            append_indented_buf(out, &item);
        }
    }
    if (o->n_groups) {
        strbuf_putc(out, '\n');
        put_groups(pr, out, o->groups, o->n_groups);
    }
    strbuf_puts(out, "}\n");
}

/* Normalization drops empty oneofs and orders them by their lowest tag. */
static void put_oneofs(printer_t *pr, strbuf_t *out, proto_oneof_t *const *oneofs, size_t n)
{
    keyed_t *k = keyed_new(pr, n);
    if (!k)
        return;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (normalizing(pr) && oneofs[i]->n_fields == 0)
            continue;
        proto_field_t *const *fields = fields_in_order(pr, oneofs[i]->fields, oneofs[i]->n_fields);
        k[m] = (keyed_t){oneofs[i], normalizing(pr) ? fields[0]->tag : 0, NULL, m};
        m++;
    }
    keyed_sort(k, m);
    for (size_t i = 0; i < m; i++) {
        const proto_oneof_t *o = k[i].item;
        strbuf_t item = {0};
        put_oneof(pr, &item, o, fields_in_order(pr, o->fields, o->n_fields));
        append_indented_buf(out, &item);
    }
}

static int is_synthetic_map(printer_t *pr, const proto_type_t *t)
{
    if (!normalizing(pr) || t->kind != PROTO_TYPE_MESSAGE)
        return 0;
    const proto_symbol_t *s = proto_scope_resolve(&pr->scope, t->message->name, 0);
    return s && s->is_map_entry;
}

/* Messages first, then enums, each in declaration order; under
 * normalization synthetic map entries disappear. */
static void put_types(printer_t *pr, strbuf_t *out, proto_type_t *const *types, size_t n, int indent)
{
    int any = 0;
    for (size_t i = 0; i < n; i++)
        any |= !is_synthetic_map(pr, types[i]);
    if (!any)
        return;
    strbuf_putc(out, '\n');
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < n; i++) {
            const proto_type_t *t = types[i];
            if ((pass == 0) != (t->kind == PROTO_TYPE_MESSAGE) || is_synthetic_map(pr, t))
                continue;
            const char *name = t->kind == PROTO_TYPE_MESSAGE ? t->message->name : t->enumeration->name;
            if (enter(pr, name) != 0)
                return;
            strbuf_t item = {0};
            if (t->kind == PROTO_TYPE_MESSAGE)
                put_message(pr, &item, t->message);
            else
                put_enum(pr, &item, t->enumeration);
            leave(pr);
            if (indent) {
                append_indented_buf(out, &item);
            } else {
                strbuf_put(out, item.data ? item.data : "", item.len);
                if (item.failed)
                    out->failed = 1;
                strbuf_free(&item);
            }
        }
    }
}

static void put_message(printer_t *pr, strbuf_t *out, const proto_message_t *m)
{
    strbuf_printf(out, "message %s {", m->name);
    if (m->n_reserveds) {
        strbuf_putc(out, '\n');
        put_reserveds(pr, out, m->reserveds, m->n_reserveds);
    }
    proto_options_t opts = filter_options(pr, &m->options);
    if (opts.n) {
        strbuf_putc(out, '\n');
        put_option_statements(pr, out, &opts, 1);
    }
    if (m->n_fields) {
        strbuf_putc(out, '\n');
        proto_field_t *const *fields = fields_in_order(pr, m->fields, m->n_fields);
        for (size_t i = 0; i < m->n_fields; i++) {
            strbuf_t item = {0};
            put_field(pr, &item, fields[i]);
            append_indented_buf(out, &item);
        }
    }
    if (m->n_oneofs) {
        strbuf_putc(out, '\n');
        put_oneofs(pr, out, m->oneofs, m->n_oneofs);
    }
    if (m->n_groups) {
        strbuf_putc(out, '\n');
        put_groups(pr, out, m->groups, m->n_groups);
    }
    if (!ignoring_extensions(pr) && m->n_extensions) {
        strbuf_putc(out, '\n');
        put_extension_ranges(pr, out, m->extensions, m->n_extensions);
    }
    if (!ignoring_extensions(pr) && m->n_extends) {
        strbuf_putc(out, '\n');
        put_extends(pr, out, m->extends, m->n_extends, 1);
    }
    put_types(pr, out, m->types, m->n_types, 1);
    strbuf_puts(out, "}\n");
}

typedef struct keyed_value {
    const proto_enum_value_t *value;
    size_t index;
} keyed_value_t;

static int compare_enum_values(const void *a, const void *b)
{
    const keyed_value_t *x = a, *y = b;
    if (x->value->tag != y->value->tag)
        return x->value->tag < y->value->tag ? -1 : 1;
    int c = strcmp(x->value->name, y->value->name);
    if (c)
        return c;
    return x->index < y->index ? -1 : x->index > y->index;
}

static void put_enum(printer_t *pr, strbuf_t *out, const proto_enum_t *e)
{
    strbuf_printf(out, "enum %s {", e->name);
    if (e->n_reserveds) {
        strbuf_putc(out, '\n');
        put_reserveds(pr, out, e->reserveds, e->n_reserveds);
    }
    if (!e->n_reserveds && (e->options.n || e->n_values))
        strbuf_putc(out, '\n');
    proto_options_t opts = filter_options(pr, &e->options);
    put_option_statements(pr, out, &opts, 1);
    keyed_value_t *vals = arena_alloc(pr->arena, (e->n_values + 1) * sizeof *vals);
    if (!vals) {
        fail_oom(pr);
        return;
    }
    for (size_t i = 0; i < e->n_values; i++)
        vals[i] = (keyed_value_t){e->values[i], i};
    if (normalizing(pr))
        qsort(vals, e->n_values, sizeof *vals, compare_enum_values);
    for (size_t i = 0; i < e->n_values; i++) {
        const proto_enum_value_t *v = vals[i].value;
        strbuf_t item = {0};
        strbuf_printf(&item, "%s = %d", v->name, (int)v->tag);
        proto_options_t vopts = filter_options(pr, &v->options);
        if (vopts.n) {
            strbuf_putc(&item, ' ');
            put_bracketed(pr, &item, NULL, vopts.items, vopts.n);
        }
        strbuf_puts(&item, ";\n");
        append_indented_buf(out, &item);
    }
    strbuf_puts(out, "}\n");
}

static void put_rpc(printer_t *pr, strbuf_t *out, const proto_rpc_t *r)
{
    const char *req = normalizing(pr) ? qualify(pr, r->request_type) : r->request_type;
    const char *res = normalizing(pr) ? qualify(pr, r->response_type) : r->response_type;
    strbuf_printf(out, "rpc %s (%s%s) returns (%s%s)", r->name, r->request_streaming ? "stream " : "", req,
                  r->response_streaming ? "stream " : "", res);
    proto_options_t opts = filter_options(pr, &r->options);
    if (opts.n) {
        strbuf_puts(out, " {\n");
        put_option_statements(pr, out, &opts, 1);
        strbuf_putc(out, '}');
    }
    strbuf_puts(out, ";\n");
}

static void put_service(printer_t *pr, strbuf_t *out, const proto_service_t *s)
{
    strbuf_printf(out, "service %s {", s->name);
    proto_options_t opts = filter_options(pr, &s->options);
    if (opts.n) {
        strbuf_putc(out, '\n');
        put_option_statements(pr, out, &opts, 1);
    }
    if (s->n_rpcs) {
        strbuf_putc(out, '\n');
        for (size_t i = 0; i < s->n_rpcs; i++) {
            strbuf_t item = {0};
            put_rpc(pr, &item, s->rpcs[i]);
            append_indented_buf(out, &item);
        }
    }
    strbuf_puts(out, "}\n");
}

/* ---- The file
 * --------------------------------------------------------------------------------- */

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void put_imports(printer_t *pr, strbuf_t *out, const char *keyword, const char *const *paths, size_t n)
{
    const char **sorted = arena_alloc(pr->arena, (n + 1) * sizeof *sorted);
    if (!sorted) {
        fail_oom(pr);
        return;
    }
    if (n)
        memcpy(sorted, paths, n * sizeof *sorted);
    if (normalizing(pr))
        qsort(sorted, n, sizeof *sorted, compare_strings);
    for (size_t i = 0; i < n; i++) {
        if (normalizing(pr) && i > 0 && strcmp(sorted[i], sorted[i - 1]) == 0)
            continue;
        strbuf_printf(out, "%s \"", keyword);
        put_escaped(out, sorted[i], strlen(sorted[i]));
        strbuf_puts(out, "\";\n");
    }
}

static void put_file(printer_t *pr, strbuf_t *out, const proto_file_t *f)
{
    if (f->syntax == PROTO_SYNTAX_EDITION) {
        strbuf_puts(out, "edition = \"");
        put_escaped(out, f->edition, strlen(f->edition));
        strbuf_puts(out, "\";\n");
    }
    if (f->syntax == PROTO_SYNTAX_PROTO3 || (f->syntax == PROTO_SYNTAX_PROTO2 && !normalizing(pr)))
        strbuf_printf(out, "syntax = \"%s\";\n", f->syntax == PROTO_SYNTAX_PROTO3 ? "proto3" : "proto2");
    if (f->package)
        strbuf_printf(out, "package %s;\n", f->package);
    if (f->n_imports || f->n_public_imports) {
        strbuf_putc(out, '\n');
        put_imports(pr, out, "import", f->imports, f->n_imports);
        put_imports(pr, out, "import public", f->public_imports, f->n_public_imports);
    }
    proto_options_t opts = filter_options(pr, &f->options);
    if (opts.n) {
        strbuf_putc(out, '\n');
        put_option_statements(pr, out, &opts, 0);
    }
    put_types(pr, out, f->types, f->n_types, 0);
    if (!ignoring_extensions(pr) && f->n_extends) {
        strbuf_putc(out, '\n');
        put_extends(pr, out, f->extends, f->n_extends, 0);
    }
    if (f->n_services) {
        strbuf_putc(out, '\n');
        for (size_t i = 0; i < f->n_services; i++)
            put_service(pr, out, f->services[i]);
    }
}

char *proto_print_with(const proto_file_t *file, proto_print_mode_t mode, const proto_symtab_t *types,
                       char **error)
{
    *error = NULL;
    printer_t pr = {.mode = mode};
    pr.arena = arena_new();
    if (!pr.arena) {
        *error = strdup("out of memory");
        return NULL;
    }
    if (mode == PROTO_PRINT_NORMALIZE) {
        pr.scope.tab = types;
        pr.scope.package = file->package ? file->package : "";
    }
    strbuf_t out = {0};
    put_file(&pr, &out, file);
    char *text = strbuf_take(&out);
    if (!text && !pr.error)
        fail_oom(&pr);
    proto_scope_free(&pr.scope);
    arena_free(pr.arena);
    if (pr.error) {
        free(text);
        *error = pr.error;
        return NULL;
    }
    return text;
}
