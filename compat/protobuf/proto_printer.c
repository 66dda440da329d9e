/*
 * proto_printer: the model back to .proto text, byte for byte as Confluent's
 * ProtobufSchemaUtils prints Wire's elements (the canonical string), optionally dropping
 * custom options and extensions (format=ignore_extensions) or normalizing
 * (docs/compatibility.md "Schema text, forms and formats").
 *
 * Like the reference, every element's lines are indented by two spaces for
 * each element around it, blank lines inside nested elements included ("  "
 * -- part of the canonical bytes). Unlike it, nothing is rendered apart and
 * copied in: every line is written once, straight into the text, with the
 * indentation of the blocks open around it (see "Output" below), so printing
 * takes time linear in the text however deep the nesting.
 */
#include "compat/protobuf/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct printer {
    proto_print_mode_t mode;
    proto_scope_t scope; /* normalization: names resolve from here */
    arena_t *arena;      /* temporaries of normalization */
    char *error;         /* first failure; printing stops mattering after it */

    /* Output */
    strbuf_t out;        /* the text; every byte is appended once */
    size_t depth;        /* blocks open: each indents its lines by two spaces */
    size_t *newlines;    /* newlines[d]: written in the block at depth d, not yet in out */
    size_t newlines_cap; /* entries of newlines */
    size_t pending;      /* sum of newlines[] */
    int at_line_start;   /* out is empty or ends with '\n' */
    size_t appended;     /* bytes appended to any strbuf, scratch too (proto_print_counted) */
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

/* ---- Output ------------------------------------------------------------------------ */

/*
 * The reference renders an element on its own, then indents it into its
 * parent line by line, split the way Java's String.split("\n") does:
 * trailing empty lines vanish and the last line gets one '\n'; inner empty
 * lines stay (and get the indentation); an element of nothing but newlines
 * adds nothing at all. Copied once per enclosing element, a subtree at depth
 * d cost d copies.
 *
 * Here an element so indented is a block (block_open .. block_close) and the
 * text is written straight into out. What the split decides only once the
 * block's end is known -- whether a run of newlines is trailing -- is kept
 * back: newlines are counted per block depth and reach out only when
 * something other than a newline follows, each ending its line (an empty one
 * gets the indentation of the block that wrote the newline); a line's first
 * byte brings the indentation of the block writing it. A block that wrote
 * something leaves one newline to its parent in place of its trailing ones;
 * one that wrote nothing drops its newlines. Blocks open at the start of a
 * line, as every caller does (after a '\n' of its own or a closed block).
 * Elements the reference copies unindented (top-level types, options and
 * extends) are no block: they write at the depth they are in.
 */

static void append_raw(printer_t *pr, const char *s, size_t len)
{
    strbuf_put(&pr->out, s, len);
    pr->appended += len;
}

static void append_indent(printer_t *pr, size_t depth)
{
    static const char spaces[] = "                                                                ";
    for (size_t n = 2 * depth; n > 0;) {
        size_t k = n < sizeof spaces - 1 ? n : sizeof spaces - 1;
        append_raw(pr, spaces, k);
        n -= k;
    }
}

/* The newlines held back, outer blocks' first: something else follows them. */
static void flush_newlines(printer_t *pr)
{
    for (size_t d = 0; pr->pending && d <= pr->depth; d++) {
        for (; pr->newlines[d]; pr->newlines[d]--, pr->pending--) {
            if (pr->at_line_start)
                append_indent(pr, d);
            append_raw(pr, "\n", 1);
            pr->at_line_start = 1;
        }
    }
}

static void write_text(printer_t *pr, const char *s, size_t len)
{
    if (pr->error)
        return;
    while (len) {
        if (*s == '\n') {
            pr->newlines[pr->depth]++;
            pr->pending++;
            s++;
            len--;
            continue;
        }
        const char *nl = memchr(s, '\n', len);
        size_t run = nl ? (size_t)(nl - s) : len;
        flush_newlines(pr);
        if (pr->at_line_start) {
            append_indent(pr, pr->depth);
            pr->at_line_start = 0;
        }
        append_raw(pr, s, run);
        s += run;
        len -= run;
    }
}

static void write_str(printer_t *pr, const char *s)
{
    write_text(pr, s, strlen(s));
}

static void write_char(printer_t *pr, char c)
{
    write_text(pr, &c, 1);
}

/* Strings one after another, up to a NULL. */
static void write_strs(printer_t *pr, ...) __attribute__((sentinel));
static void write_strs(printer_t *pr, ...)
{
    va_list ap;
    va_start(ap, pr);
    for (const char *s; (s = va_arg(ap, const char *));)
        write_str(pr, s);
    va_end(ap);
}

static void write_int(printer_t *pr, int32_t v)
{
    char digits[16];
    int n = snprintf(digits, sizeof digits, "%d", (int)v);
    write_text(pr, digits, (size_t)n);
}

/* Opens a block; returns the mark block_close needs. */
static size_t block_open(printer_t *pr)
{
    pr->depth++;
    if (!pr->error && pr->depth >= pr->newlines_cap) {
        size_t cap = pr->newlines_cap ? 2 * pr->newlines_cap : 16;
        size_t *grown = realloc(pr->newlines, cap * sizeof *grown);
        if (!grown) {
            fail_oom(pr);
        } else {
            memset(grown + pr->newlines_cap, 0, (cap - pr->newlines_cap) * sizeof *grown);
            pr->newlines = grown;
            pr->newlines_cap = cap;
        }
    }
    return pr->out.len;
}

static void block_close(printer_t *pr, size_t mark)
{
    if (!pr->error) {
        /* Anything written flushed the outer blocks' newlines; only this
         * block's trailing ones are held. */
        pr->pending -= pr->newlines[pr->depth];
        pr->newlines[pr->depth] = 0;
        if (pr->out.len != mark) {
            pr->newlines[pr->depth - 1]++;
            pr->pending++;
        }
    }
    pr->depth--;
}

/* Confluent's escapeChars; NUL is escaped too so the text stays a C string.
 * No '\n' is left, so runs go out whole. */
static void put_escaped(printer_t *pr, const char *s, size_t len)
{
    size_t run = 0;
    for (size_t i = 0; i < len; i++) {
        const char *esc;
        switch (s[i]) {
        case '\a': esc = "\\a"; break;
        case '\b': esc = "\\b"; break;
        case '\f': esc = "\\f"; break;
        case '\n': esc = "\\n"; break;
        case '\r': esc = "\\r"; break;
        case '\t': esc = "\\t"; break;
        case '\v': esc = "\\v"; break;
        case '\\': esc = "\\\\"; break;
        case '\'': esc = "\\'"; break;
        case '"': esc = "\\\""; break;
        case '\0': esc = "\\000"; break; /* three digits: a digit may follow */
        default: esc = NULL;
        }
        if (!esc)
            continue;
        write_text(pr, s + run, i - run);
        write_str(pr, esc);
        run = i + 1;
    }
    write_text(pr, s + run, len - run);
}

static void put_number(printer_t *pr, const proto_value_t *v)
{
    if (!normalizing(pr)) {
        write_text(pr, v->text, v->len);
        return;
    }
    strbuf_t n = {0};
    proto_normalize_number(v->text, &n);
    pr->appended += n.len;
    if (n.failed)
        fail_oom(pr);
    write_text(pr, n.data ? n.data : "", n.len);
    strbuf_free(&n);
}

/* ---- Options ------------------------------------------------------------------------ */

static void put_option(printer_t *pr, const proto_option_t *o);
static void put_value(printer_t *pr, const proto_value_t *v);

static void put_map_body(printer_t *pr, const proto_value_t *map)
{
    proto_value_t *sorted;
    if (normalizing(pr)) {
        if (proto_normalize_map(&pr->scope, pr->arena, map, &sorted) != 0)
            fail_oom(pr);
        else
            map = sorted;
    }
    for (size_t i = 0; i < map->n_entries; i++) {
        size_t kv = block_open(pr);
        write_str(pr, map->entries[i].key);
        write_str(pr, ": ");
        put_value(pr, map->entries[i].value);
        if (i + 1 < map->n_entries)
            write_char(pr, ',');
        block_close(pr, kv);
    }
}

/* `[a]` for one item, else one item per line. */
static void put_bracketed(printer_t *pr, proto_value_t *const *values, proto_option_t *const *options,
                          size_t n)
{
    if (n == 1) {
        write_char(pr, '[');
        if (values)
            put_value(pr, values[0]);
        else
            put_option(pr, options[0]);
        write_char(pr, ']');
        return;
    }
    write_str(pr, "[\n");
    for (size_t i = 0; i < n; i++) {
        size_t item = block_open(pr);
        if (values)
            put_value(pr, values[i]);
        else
            put_option(pr, options[i]);
        if (i + 1 < n)
            write_char(pr, ',');
        block_close(pr, item);
    }
    write_char(pr, ']');
}

/* A value inside an aggregate or list (formatOptionMapOrListValue). */
static void put_value(printer_t *pr, const proto_value_t *v)
{
    switch (v->kind) {
    case PROTO_VALUE_STRING:
        write_char(pr, '"');
        put_escaped(pr, v->text, v->len);
        write_char(pr, '"');
        break;
    case PROTO_VALUE_BOOL:
    case PROTO_VALUE_ENUM: write_text(pr, v->text, v->len); break;
    case PROTO_VALUE_NUMBER: put_number(pr, v); break;
    case PROTO_VALUE_MAP:
        write_str(pr, "{\n");
        put_map_body(pr, v);
        write_char(pr, '}');
        break;
    case PROTO_VALUE_LIST:
        if (normalizing(pr) && v->n_items == 1) {
            put_value(pr, v->items[0]);
        } else {
            write_str(pr, "[\n");
            for (size_t i = 0; i < v->n_items; i++) {
                size_t item = block_open(pr);
                put_value(pr, v->items[i]);
                if (i + 1 < v->n_items)
                    write_char(pr, ',');
                block_close(pr, item);
            }
            write_char(pr, ']');
        }
        break;
    case PROTO_VALUE_OPTION: put_option(pr, v->option); break;
    }
}

/* `name = value` (OptionElement.toString in Confluent's printer). */
static void put_option(printer_t *pr, const proto_option_t *o)
{
    if (o->parenthesized)
        write_strs(pr, "(", o->name, ")", NULL);
    else
        write_str(pr, o->name);
    const proto_value_t *v = o->value;
    switch (v->kind) {
    case PROTO_VALUE_STRING:
        write_str(pr, " = \"");
        put_escaped(pr, v->text, v->len);
        write_char(pr, '"');
        break;
    case PROTO_VALUE_BOOL:
    case PROTO_VALUE_ENUM:
        write_str(pr, " = ");
        write_text(pr, v->text, v->len);
        break;
    case PROTO_VALUE_NUMBER:
        write_str(pr, " = ");
        put_number(pr, v);
        break;
    case PROTO_VALUE_OPTION:
        write_char(pr, '.');
        put_option(pr, v->option);
        break;
    case PROTO_VALUE_MAP:
        write_str(pr, " = {\n");
        put_map_body(pr, v);
        write_char(pr, '}');
        break;
    case PROTO_VALUE_LIST:
        write_str(pr, " = ");
        put_bracketed(pr, v->items, NULL, v->n_items);
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
static void put_option_statements(printer_t *pr, const proto_options_t *opts, int indent)
{
    for (size_t i = 0; i < opts->n; i++) {
        size_t line = indent ? block_open(pr) : 0;
        write_str(pr, "option ");
        put_option(pr, opts->items[i]);
        write_str(pr, ";\n");
        if (indent)
            block_close(pr, line);
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

static void put_field(printer_t *pr, const proto_field_t *f)
{
    proto_label_t label = f->label;
    const char *type = field_type(pr, f, &label);
    if (label != PROTO_LABEL_NONE)
        write_strs(pr, label_names[label], " ", NULL);
    write_strs(pr, type, " ", f->name, " = ", NULL);
    write_int(pr, f->tag);

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
        write_char(pr, ' ');
        put_bracketed(pr, NULL, opts.items, opts.n);
    }
    write_str(pr, ";\n");
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
static void put_range(printer_t *pr, const proto_range_t *r)
{
    if (r->name) {
        /* Confluent does not escape reserved names; valid ones (identifiers)
         * print the same either way, and escaping keeps odd ones readable. */
        write_char(pr, '"');
        put_escaped(pr, r->name, strlen(r->name));
        write_char(pr, '"');
    } else if (!r->is_range || (normalizing(pr) && r->start == r->end)) {
        write_int(pr, r->start);
    } else if (r->end_is_max || r->end >= PROTO_MAX_FIELD_NUMBER) {
        write_int(pr, r->start);
        write_str(pr, " to max");
    } else {
        write_int(pr, r->start);
        write_str(pr, " to ");
        write_int(pr, r->end);
    }
}

static void put_range_statement(printer_t *pr, const char *keyword, const proto_range_t *const *values,
                                size_t n, const proto_options_t *options)
{
    size_t line = block_open(pr);
    write_strs(pr, keyword, " ", NULL);
    for (size_t i = 0; i < n; i++) {
        if (i)
            write_str(pr, ", ");
        put_range(pr, values[i]);
    }
    if (options) {
        proto_options_t opts = filter_options(pr, options);
        if (opts.n) {
            write_char(pr, ' ');
            put_bracketed(pr, NULL, opts.items, opts.n);
        }
    }
    write_str(pr, ";\n");
    block_close(pr, line);
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

static void put_reserveds(printer_t *pr, proto_reserved_t *const *res, size_t n)
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
            put_range_statement(pr, "reserved", vals, res[i]->n_values, NULL);
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
        put_range_statement(pr, "reserved", &r, 1, NULL);
    }
}

static void put_extension_ranges(printer_t *pr, proto_extensions_t *const *ext, size_t n)
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
            put_range_statement(pr, "extensions", vals, ext[i]->n_values, &ext[i]->options);
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
        put_range_statement(pr, "extensions", &r, 1, owner[k[i].index]);
    }
}

/* ---- Extend blocks
 * ---------------------------------------------------------------------------- */

static void put_extend(printer_t *pr, const char *name, proto_field_t *const *fields, size_t n)
{
    write_strs(pr, "extend ", name, " {", NULL);
    if (n) {
        write_char(pr, '\n');
        fields = fields_in_order(pr, fields, n);
        for (size_t i = 0; i < n; i++) {
            size_t item = block_open(pr);
            put_field(pr, fields[i]);
            block_close(pr, item);
        }
    }
    write_str(pr, "}\n");
}

/* Normalization regroups extend fields by their resolved target, in order
 * of first appearance. indent: message-level blocks are indented. */
static void put_extends(printer_t *pr, proto_extend_t *const *ext, size_t n, int indent)
{
    if (!normalizing(pr)) {
        for (size_t i = 0; i < n; i++) {
            size_t block = indent ? block_open(pr) : 0;
            put_extend(pr, ext[i]->name, ext[i]->fields, ext[i]->n_fields);
            if (indent)
                block_close(pr, block);
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
        size_t block = indent ? block_open(pr) : 0;
        put_extend(pr, x->name, x->fields, x->n_fields);
        if (indent)
            block_close(pr, block);
    }
}

/* ---- Messages, enums, services
 * ----------------------------------------------------------------- */

static void put_message(printer_t *pr, const proto_message_t *m);
static void put_enum(printer_t *pr, const proto_enum_t *e);

static void put_group(printer_t *pr, const proto_group_t *g)
{
    if (g->label != PROTO_LABEL_NONE)
        write_strs(pr, label_names[g->label], " ", NULL);
    write_strs(pr, "group ", g->name, " = ", NULL);
    write_int(pr, g->tag);
    write_str(pr, " {");
    if (g->n_fields) {
        write_char(pr, '\n');
        proto_field_t *const *fields = fields_in_order(pr, g->fields, g->n_fields);
        for (size_t i = 0; i < g->n_fields; i++) {
            size_t item = block_open(pr);
            put_field(pr, fields[i]);
            block_close(pr, item);
        }
    }
    write_str(pr, "}\n");
}

static void put_groups(printer_t *pr, proto_group_t *const *groups, size_t n)
{
    groups = groups_in_order(pr, groups, n);
    for (size_t i = 0; i < n; i++) {
        size_t item = block_open(pr);
        put_group(pr, groups[i]);
        block_close(pr, item);
    }
}

static void put_oneof(printer_t *pr, const proto_oneof_t *o, proto_field_t *const *fields)
{
    write_strs(pr, "oneof ", o->name, " {", NULL);
    proto_options_t opts = filter_options(pr, &o->options);
    if (opts.n) {
        write_char(pr, '\n');
        put_option_statements(pr, &opts, 1);
    }
    if (o->n_fields) {
        write_char(pr, '\n');
        for (size_t i = 0; i < o->n_fields; i++) {
            size_t item = block_open(pr);
            put_field(pr, fields[i]);
            block_close(pr, item);
        }
    }
    if (o->n_groups) {
        write_char(pr, '\n');
        put_groups(pr, o->groups, o->n_groups);
    }
    write_str(pr, "}\n");
}

/* Normalization drops empty oneofs and orders them by their lowest tag. */
static void put_oneofs(printer_t *pr, proto_oneof_t *const *oneofs, size_t n)
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
        size_t item = block_open(pr);
        put_oneof(pr, o, fields_in_order(pr, o->fields, o->n_fields));
        block_close(pr, item);
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
static void put_types(printer_t *pr, proto_type_t *const *types, size_t n, int indent)
{
    int any = 0;
    for (size_t i = 0; i < n; i++)
        any |= !is_synthetic_map(pr, types[i]);
    if (!any)
        return;
    write_char(pr, '\n');
    for (int pass = 0; pass < 2; pass++) {
        for (size_t i = 0; i < n; i++) {
            const proto_type_t *t = types[i];
            if ((pass == 0) != (t->kind == PROTO_TYPE_MESSAGE) || is_synthetic_map(pr, t))
                continue;
            const char *name = t->kind == PROTO_TYPE_MESSAGE ? t->message->name : t->enumeration->name;
            if (enter(pr, name) != 0)
                return;
            size_t item = indent ? block_open(pr) : 0;
            if (t->kind == PROTO_TYPE_MESSAGE)
                put_message(pr, t->message);
            else
                put_enum(pr, t->enumeration);
            if (indent)
                block_close(pr, item);
            leave(pr);
        }
    }
}

static void put_message(printer_t *pr, const proto_message_t *m)
{
    write_strs(pr, "message ", m->name, " {", NULL);
    if (m->n_reserveds) {
        write_char(pr, '\n');
        put_reserveds(pr, m->reserveds, m->n_reserveds);
    }
    proto_options_t opts = filter_options(pr, &m->options);
    if (opts.n) {
        write_char(pr, '\n');
        put_option_statements(pr, &opts, 1);
    }
    if (m->n_fields) {
        write_char(pr, '\n');
        proto_field_t *const *fields = fields_in_order(pr, m->fields, m->n_fields);
        for (size_t i = 0; i < m->n_fields; i++) {
            size_t item = block_open(pr);
            put_field(pr, fields[i]);
            block_close(pr, item);
        }
    }
    if (m->n_oneofs) {
        write_char(pr, '\n');
        put_oneofs(pr, m->oneofs, m->n_oneofs);
    }
    if (m->n_groups) {
        write_char(pr, '\n');
        put_groups(pr, m->groups, m->n_groups);
    }
    if (!ignoring_extensions(pr) && m->n_extensions) {
        write_char(pr, '\n');
        put_extension_ranges(pr, m->extensions, m->n_extensions);
    }
    if (!ignoring_extensions(pr) && m->n_extends) {
        write_char(pr, '\n');
        put_extends(pr, m->extends, m->n_extends, 1);
    }
    put_types(pr, m->types, m->n_types, 1);
    write_str(pr, "}\n");
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

static void put_enum(printer_t *pr, const proto_enum_t *e)
{
    write_strs(pr, "enum ", e->name, " {", NULL);
    if (e->n_reserveds) {
        write_char(pr, '\n');
        put_reserveds(pr, e->reserveds, e->n_reserveds);
    }
    if (!e->n_reserveds && (e->options.n || e->n_values))
        write_char(pr, '\n');
    proto_options_t opts = filter_options(pr, &e->options);
    put_option_statements(pr, &opts, 1);
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
        size_t item = block_open(pr);
        write_strs(pr, v->name, " = ", NULL);
        write_int(pr, v->tag);
        proto_options_t vopts = filter_options(pr, &v->options);
        if (vopts.n) {
            write_char(pr, ' ');
            put_bracketed(pr, NULL, vopts.items, vopts.n);
        }
        write_str(pr, ";\n");
        block_close(pr, item);
    }
    write_str(pr, "}\n");
}

static void put_rpc(printer_t *pr, const proto_rpc_t *r)
{
    const char *req = normalizing(pr) ? qualify(pr, r->request_type) : r->request_type;
    const char *res = normalizing(pr) ? qualify(pr, r->response_type) : r->response_type;
    write_strs(pr, "rpc ", r->name, " (", r->request_streaming ? "stream " : "", req, ") returns (",
               r->response_streaming ? "stream " : "", res, ")", NULL);
    proto_options_t opts = filter_options(pr, &r->options);
    if (opts.n) {
        write_str(pr, " {\n");
        put_option_statements(pr, &opts, 1);
        write_char(pr, '}');
    }
    write_str(pr, ";\n");
}

static void put_service(printer_t *pr, const proto_service_t *s)
{
    write_strs(pr, "service ", s->name, " {", NULL);
    proto_options_t opts = filter_options(pr, &s->options);
    if (opts.n) {
        write_char(pr, '\n');
        put_option_statements(pr, &opts, 1);
    }
    if (s->n_rpcs) {
        write_char(pr, '\n');
        for (size_t i = 0; i < s->n_rpcs; i++) {
            size_t item = block_open(pr);
            put_rpc(pr, s->rpcs[i]);
            block_close(pr, item);
        }
    }
    write_str(pr, "}\n");
}

/* ---- The file
 * --------------------------------------------------------------------------------- */

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void put_imports(printer_t *pr, const char *keyword, const char *const *paths, size_t n)
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
        write_strs(pr, keyword, " \"", NULL);
        put_escaped(pr, sorted[i], strlen(sorted[i]));
        write_str(pr, "\";\n");
    }
}

static void put_file(printer_t *pr, const proto_file_t *f)
{
    if (f->syntax == PROTO_SYNTAX_EDITION) {
        write_str(pr, "edition = \"");
        put_escaped(pr, f->edition, strlen(f->edition));
        write_str(pr, "\";\n");
    }
    if (f->syntax == PROTO_SYNTAX_PROTO3 || (f->syntax == PROTO_SYNTAX_PROTO2 && !normalizing(pr)))
        write_strs(pr, "syntax = \"", f->syntax == PROTO_SYNTAX_PROTO3 ? "proto3" : "proto2", "\";\n", NULL);
    if (f->package)
        write_strs(pr, "package ", f->package, ";\n", NULL);
    if (f->n_imports || f->n_public_imports) {
        write_char(pr, '\n');
        put_imports(pr, "import", f->imports, f->n_imports);
        put_imports(pr, "import public", f->public_imports, f->n_public_imports);
    }
    proto_options_t opts = filter_options(pr, &f->options);
    if (opts.n) {
        write_char(pr, '\n');
        put_option_statements(pr, &opts, 0);
    }
    put_types(pr, f->types, f->n_types, 0);
    if (!ignoring_extensions(pr) && f->n_extends) {
        write_char(pr, '\n');
        put_extends(pr, f->extends, f->n_extends, 0);
    }
    if (f->n_services) {
        write_char(pr, '\n');
        for (size_t i = 0; i < f->n_services; i++)
            put_service(pr, f->services[i]);
    }
}

char *proto_print_counted(const proto_file_t *file, proto_print_mode_t mode, const proto_symtab_t *types,
                          size_t *appended, char **error)
{
    *error = NULL;
    printer_t pr = {.mode = mode, .at_line_start = 1};
    pr.arena = arena_new();
    pr.newlines = calloc(16, sizeof *pr.newlines);
    if (!pr.arena || !pr.newlines) {
        arena_free(pr.arena);
        free(pr.newlines);
        *error = strdup("out of memory");
        return NULL;
    }
    pr.newlines_cap = 16;
    if (mode == PROTO_PRINT_NORMALIZE) {
        pr.scope.tab = types;
        pr.scope.package = file->package ? file->package : "";
    }
    put_file(&pr, file);
    if (!pr.error)
        flush_newlines(&pr); /* the file's own: nothing trims them */
    char *text = strbuf_take(&pr.out);
    if (!text && !pr.error)
        fail_oom(&pr);
    proto_scope_free(&pr.scope);
    arena_free(pr.arena);
    free(pr.newlines);
    if (appended)
        *appended = pr.appended;
    if (pr.error) {
        free(text);
        *error = pr.error;
        return NULL;
    }
    return text;
}

char *proto_print_with(const proto_file_t *file, proto_print_mode_t mode, const proto_symtab_t *types,
                       char **error)
{
    return proto_print_counted(file, mode, types, NULL, error);
}
