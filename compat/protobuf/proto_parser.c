/*
 * proto_parser: .proto text to the file model, declaration by declaration,
 * with the acceptance rules of Square Wire's ProtoParser (what Confluent
 * accepts) plus `edition` files. Semantic checks (type resolution, numbers)
 * are left to the schema layer, as in the reference.
 */
#include "compat/protobuf/internal.h"

#include <stdlib.h>
#include <string.h>

#include "base/hmap.h"

/* Where a declaration appears; decides which keywords it may start with. */
typedef enum decl_context {
    CTX_FILE,
    CTX_MESSAGE,
    CTX_ENUM,
    CTX_RPC,
    CTX_EXTEND,
    CTX_SERVICE,
} decl_context_t;

typedef struct parser {
    proto_lexer_t lx;
    proto_file_t *file;
    int decl_count; /* declarations read so far, file-wide */
    int depth;      /* current nesting of messages and option values */
    hmap_t types;   /* top-level message and enum names (a set: files may declare thousands) */
    hmap_t services;
    /* Where each key of each aggregate value sits, so that an aggregate
     * with many keys is built in linear time: (value, key) -> entry index + 1. */
    hmap_t keys;
    char *key_buf; /* the last (value, key) pair as bytes, reused */
    size_t key_cap;
} parser_t;

/* The enclosing element a declaration is added to. */
typedef struct decl_owner {
    proto_message_t *message;
    proto_enum_t *enumeration;
    proto_service_t *service;
    proto_rpc_t *rpc;
    proto_extend_t *extend;
    int *order; /* the enclosing message's declaration counter */
} decl_owner_t;

static void declaration(parser_t *p, decl_context_t ctx, decl_owner_t *owner);
static proto_value_t *read_value(parser_t *p);

/* ---- Small helpers ------------------------------------------------------- */

static void *new_node(parser_t *p, size_t size)
{
    void *n = arena_alloc(p->file->arena, size);
    if (!n)
        proto_lex_fail(&p->lx, "out of memory");
    return n;
}

#define NEW(p, type) ((type *)new_node((p), sizeof(type)))

static void push(parser_t *p, void *items_ptr, size_t *n, void *item)
{
    if (arena_push(p->file->arena, items_ptr, n, item) != 0)
        proto_lex_fail(&p->lx, "out of memory");
}

static void enter(parser_t *p)
{
    if (++p->depth > PROTO_MAX_DEPTH)
        proto_lex_fail(&p->lx, "nesting deeper than %d levels", PROTO_MAX_DEPTH);
}

static void leave(parser_t *p)
{
    p->depth--;
}

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int implicit_labels(const parser_t *p)
{
    return p->file->syntax == PROTO_SYNTAX_PROTO3 || p->file->syntax == PROTO_SYNTAX_EDITION;
}

/* ---- Option values (Wire's OptionReader) ---------------------------------- */

static proto_value_t *new_value(parser_t *p, proto_value_kind_t kind)
{
    proto_value_t *v = NEW(p, proto_value_t);
    v->kind = kind;
    return v;
}

static proto_value_t *text_value(parser_t *p, proto_value_kind_t kind, const char *text, size_t len)
{
    proto_value_t *v = new_value(p, kind);
    v->text = text;
    v->len = len;
    return v;
}

static proto_option_t *read_option(parser_t *p, char separator);

/* The key of (map, key) in p->keys: the map's address, then the key's
 * bytes, in p's reusable buffer; *len gets its length. */
static const char *aggregate_key(parser_t *p, const proto_value_t *map, const char *key, size_t *len)
{
    size_t klen = strlen(key);
    *len = sizeof map + klen;
    if (*len > p->key_cap) {
        char *grown = realloc(p->key_buf, *len);
        if (!grown)
            proto_lex_fail(&p->lx, "out of memory");
        p->key_buf = grown;
        p->key_cap = *len;
    }
    memcpy(p->key_buf, &map, sizeof map);
    memcpy(p->key_buf + sizeof map, key, klen);
    return p->key_buf;
}

static proto_map_entry_t *map_find(parser_t *p, proto_value_t *map, const char *key)
{
    size_t len;
    const char *k = aggregate_key(p, map, key, &len);
    uintptr_t at = (uintptr_t)hmap_get(&p->keys, k, len);
    return at ? &map->entries[at - 1] : NULL;
}

static void map_put(parser_t *p, proto_value_t *map, const char *key, proto_value_t *value)
{
    proto_map_entry_t *e = map_find(p, map, key);
    if (e) {
        e->value = value;
        return;
    }
    /* Entries are structs, not pointers: grow by hand, doubling. */
    size_t n = map->n_entries;
    if ((n & (n - 1)) == 0) {
        proto_map_entry_t *grown = new_node(p, (n ? n * 2 : 1) * sizeof *grown);
        if (n)
            memcpy(grown, map->entries, n * sizeof *grown);
        map->entries = grown;
    }
    map->entries[n].key = key;
    map->entries[n].value = value;
    map->n_entries = n + 1;
    size_t len;
    const char *k = aggregate_key(p, map, key, &len);
    if (hmap_put_try(&p->keys, k, len, (void *)(uintptr_t)(n + 1), NULL) != 0)
        proto_lex_fail(&p->lx, "out of memory");
}

static void list_add(parser_t *p, proto_value_t *list, proto_value_t *value)
{
    if (value->kind == PROTO_VALUE_LIST) {
        for (size_t i = 0; i < value->n_items; i++)
            push(p, &list->items, &list->n_items, value->items[i]);
    } else {
        push(p, &list->items, &list->n_items, value);
    }
}

/*
 * `key.sub: v` inside an aggregate nests as key: { sub: v }, and Wire stores
 * the inner value unwrapped: a primitive becomes its raw text, which the
 * printer then quotes. Kept for byte-identical canonical text.
 */
static proto_value_t *nested_raw_value(parser_t *p, proto_value_t *inner)
{
    if (inner->kind == PROTO_VALUE_BOOL || inner->kind == PROTO_VALUE_NUMBER ||
        inner->kind == PROTO_VALUE_ENUM)
        return text_value(p, PROTO_VALUE_STRING, inner->text, inner->len);
    return inner;
}

/* Repeated keys accumulate into a list; dotted keys nest (Wire's readMap). */
static void map_add_entry(parser_t *p, proto_value_t *map, proto_option_t *entry)
{
    proto_value_t *value = entry->value;
    if (value->kind == PROTO_VALUE_OPTION) {
        proto_map_entry_t *e = map_find(p, map, entry->name);
        proto_value_t *nested = e && e->value->kind == PROTO_VALUE_MAP ? e->value : NULL;
        if (!nested) {
            nested = new_value(p, PROTO_VALUE_MAP);
            map_put(p, map, entry->name, nested);
        }
        proto_option_t *inner = value->option;
        map_put(p, nested, inner->name, nested_raw_value(p, inner->value));
        return;
    }
    proto_map_entry_t *e = map_find(p, map, entry->name);
    if (!e) {
        map_put(p, map, entry->name, value);
    } else if (e->value->kind == PROTO_VALUE_LIST) {
        list_add(p, e->value, value);
    } else {
        proto_value_t *list = new_value(p, PROTO_VALUE_LIST);
        push(p, &list->items, &list->n_items, e->value);
        list_add(p, list, value);
        e->value = list;
    }
}

static proto_value_t *read_map(parser_t *p)
{
    proto_lex_expect(&p->lx, '{');
    proto_value_t *map = new_value(p, PROTO_VALUE_MAP);
    while (!proto_lex_accept(&p->lx, '}')) {
        map_add_entry(p, map, read_option(p, ':'));
        if (!proto_lex_accept(&p->lx, ','))
            proto_lex_accept(&p->lx, ';');
    }
    return map;
}

static proto_value_t *read_list(parser_t *p)
{
    proto_lex_expect(&p->lx, '[');
    proto_value_t *list = new_value(p, PROTO_VALUE_LIST);
    while (!proto_lex_accept(&p->lx, ']')) {
        push(p, &list->items, &list->n_items, read_value(p));
        if (proto_lex_accept(&p->lx, ','))
            continue;
        if (proto_lex_peek(&p->lx) != ']')
            proto_lex_fail(&p->lx, "expected ',' or ']'");
    }
    return list;
}

static proto_value_t *read_value(parser_t *p)
{
    enter(p);
    proto_value_t *v;
    char c = proto_lex_peek(&p->lx);
    if (c == '{') {
        v = read_map(p);
    } else if (c == '[') {
        v = read_list(p);
    } else if (c == '"' || c == '\'') {
        size_t len;
        const char *s = proto_lex_string(&p->lx, &len);
        v = text_value(p, PROTO_VALUE_STRING, s, len);
    } else if (is_digit(c) || c == '-') {
        const char *w = proto_lex_word(&p->lx);
        v = text_value(p, PROTO_VALUE_NUMBER, w, strlen(w));
    } else {
        const char *w = proto_lex_word(&p->lx);
        int is_bool = strcmp(w, "true") == 0 || strcmp(w, "false") == 0;
        v = text_value(p, is_bool ? PROTO_VALUE_BOOL : PROTO_VALUE_ENUM, w, strlen(w));
    }
    leave(p);
    return v;
}

/* Splits "a.b.c" into its parts and appends them to names. */
static void split_dotted(parser_t *p, const char *word, const char ***names, size_t *n)
{
    const char *start = word;
    for (const char *c = word;; c++) {
        if (*c == '.' || *c == '\0') {
            char *part = arena_strndup(p->file->arena, start, (size_t)(c - start));
            if (!part)
                proto_lex_fail(&p->lx, "out of memory");
            push(p, names, n, part);
            if (!*c)
                break;
            start = c + 1;
        }
    }
}

/* A word is read with its dots, so "g.(ext)" gives the word "g." and leaves
 * "(ext)": the dot is given back for read_option's loop to read. */
static const char *unread_trailing_dot(parser_t *p, const char *word)
{
    size_t n = strlen(word);
    if (n < 2 || word[n - 1] != '.')
        return word;
    p->lx.pos--;
    char *w = arena_strndup(p->file->arena, word, n - 1);
    if (!w)
        proto_lex_fail(&p->lx, "out of memory");
    return w;
}

/* `name = value`, `(ext).sub.field = value`, or inside aggregates `key: value`. */
static proto_option_t *read_option(parser_t *p, char separator)
{
    int wrapped = 0;
    const char *name = proto_lex_name(&p->lx, &wrapped);
    if (!wrapped)
        name = unread_trailing_dot(p, name);
    if (wrapped == '[') {
        name = arena_printf(p->file->arena, "[%s]", name);
        if (!name)
            proto_lex_fail(&p->lx, "out of memory");
    }
    const char **subs = NULL;
    size_t nsubs = 0;
    char c;
    for (;;) {
        c = proto_lex_char(&p->lx);
        if (c != '.')
            break;
        int sub_wrapped = 0;
        const char *sub = proto_lex_name(&p->lx, &sub_wrapped);
        if (sub_wrapped == '(') {
            sub = arena_printf(p->file->arena, "(%s)", sub);
            if (!sub)
                proto_lex_fail(&p->lx, "out of memory");
            push(p, &subs, &nsubs, (void *)sub);
        } else {
            split_dotted(p, unread_trailing_dot(p, sub), &subs, &nsubs);
        }
    }
    if (separator == ':' && c == '{')
        p->lx.pos--; /* an aggregate value may omit the ':' */
    else if (c != separator)
        proto_lex_fail(&p->lx, "expected '%c' in option", separator);
    proto_value_t *value = read_value(p);
    /* The dotted tail nests inside out: (a).b.c = v is a{b{c = v}}. */
    for (size_t i = nsubs; i-- > 0;) {
        proto_option_t *inner = NEW(p, proto_option_t);
        const char *sub = subs[i];
        if (sub[0] == '(') {
            inner->parenthesized = 1;
            inner->name = arena_strndup(p->file->arena, sub + 1, strlen(sub) - 2);
            if (!inner->name)
                proto_lex_fail(&p->lx, "out of memory");
        } else {
            inner->name = sub;
        }
        inner->value = value;
        value = new_value(p, PROTO_VALUE_OPTION);
        value->option = inner;
    }
    proto_option_t *opt = NEW(p, proto_option_t);
    opt->name = name;
    opt->parenthesized = wrapped == '(';
    opt->value = value;
    return opt;
}

/* `[a = 1, b = 2]` after a field, enum value or extensions range. */
static void read_bracket_options(parser_t *p, proto_options_t *out)
{
    if (!proto_lex_accept(&p->lx, '['))
        return;
    for (;;) {
        push(p, &out->items, &out->n, read_option(p, '='));
        if (proto_lex_accept(&p->lx, ']'))
            break;
        if (!proto_lex_accept(&p->lx, ','))
            proto_lex_fail(&p->lx, "Expected ',' or ']'");
    }
}

/* `default` and `json_name` are not options (FieldOptions has neither):
 * Wire moves them out, the last one winning, and prints them last. */
static const char *value_text(const proto_value_t *v, size_t *len)
{
    switch (v->kind) {
    case PROTO_VALUE_STRING:
    case PROTO_VALUE_BOOL:
    case PROTO_VALUE_NUMBER:
    case PROTO_VALUE_ENUM: *len = v->len; return v->text;
    default: *len = 0; return "";
    }
}

static void strip_special(proto_options_t *opts, const char *name, const char **text, size_t *len)
{
    size_t w = 0;
    for (size_t r = 0; r < opts->n; r++) {
        proto_option_t *o = opts->items[r];
        if (strcmp(o->name, name) == 0)
            *text = value_text(o->value, len);
        else
            opts->items[w++] = o;
    }
    opts->n = w;
}

/* ---- Fields, groups, oneofs ------------------------------------------------ */

static void split_map_type(parser_t *p, proto_field_t *f)
{
    /* "map<K, V>": split at the first comma, like Wire's ProtoType.get. */
    const char *t = f->type;
    size_t len = strlen(t);
    const char *comma = strchr(t, ',');
    if (!comma)
        proto_lex_fail(&p->lx, "expected ',' in map type: %s", t);
    const char *vstart = comma + 1;
    while (*vstart == ' ')
        vstart++;
    f->map_key = arena_strndup(p->file->arena, t + 4, (size_t)(comma - t - 4));
    f->map_value = arena_strndup(p->file->arena, vstart, (size_t)(t + len - 1 - vstart));
    if (!f->map_key || !f->map_value)
        proto_lex_fail(&p->lx, "out of memory");
    const char *k = f->map_key;
    if (!proto_is_scalar(k) || !strcmp(k, "bytes") || !strcmp(k, "float") || !strcmp(k, "double"))
        proto_lex_fail_at(&p->lx, f->line, f->column,
                          "map key must be non-byte, non-floating point scalar: %s", k);
}

static proto_field_t *read_field_rest(parser_t *p, int line, int col, proto_label_t label, const char *type,
                                      int *order)
{
    proto_field_t *f = NEW(p, proto_field_t);
    f->label = label;
    f->type = type;
    f->line = line;
    f->column = col;
    f->name = proto_lex_name(&p->lx, NULL);
    if (is_digit(f->name[0]))
        proto_lex_fail(&p->lx, "field and constant names cannot start with a digit");
    proto_lex_expect(&p->lx, '=');
    f->tag = proto_lex_int(&p->lx);
    read_bracket_options(p, &f->options);
    strip_special(&f->options, "default", &f->default_value, &f->default_len);
    strip_special(&f->options, "json_name", &f->json_name, &f->json_name_len);
    proto_lex_expect(&p->lx, ';');
    if (starts_with(type, "map<"))
        split_map_type(p, f);
    f->field_order = f->nested_order = (*order)++;
    return f;
}

static proto_group_t *read_group(parser_t *p, proto_label_t label, int *order);

typedef struct field_or_group {
    proto_field_t *field;
    proto_group_t *group;
} field_or_group_t;

/* A member declaration that starts with word: a label or a type. */
static field_or_group_t read_field(parser_t *p, const char *word, int line, int col, int *order)
{
    field_or_group_t out = {0};
    proto_label_t label = PROTO_LABEL_NONE;
    const char *type;
    if (strcmp(word, "required") == 0) {
        if (p->file->syntax == PROTO_SYNTAX_PROTO3)
            proto_lex_fail_at(&p->lx, line, col, "'required' label forbidden in proto3 field declarations");
        label = PROTO_LABEL_REQUIRED;
        type = proto_lex_data_type(&p->lx, NULL);
    } else if (strcmp(word, "optional") == 0) {
        label = PROTO_LABEL_OPTIONAL;
        type = proto_lex_data_type(&p->lx, NULL);
    } else if (strcmp(word, "repeated") == 0) {
        label = PROTO_LABEL_REPEATED;
        type = proto_lex_data_type(&p->lx, NULL);
    } else {
        int is_map = strcmp(word, "map") == 0 && proto_lex_peek(&p->lx) == '<';
        if (!implicit_labels(p) && !is_map)
            proto_lex_fail_at(&p->lx, line, col, "unexpected label: %s", word);
        type = proto_lex_data_type(&p->lx, word);
    }
    if (starts_with(type, "map<") && label != PROTO_LABEL_NONE)
        proto_lex_fail_at(&p->lx, line, col, "'map' type cannot have label");
    if (strcmp(type, "group") == 0)
        out.group = read_group(p, label, order);
    else
        out.field = read_field_rest(p, line, col, label, type, order);
    return out;
}

static proto_group_t *read_group(parser_t *p, proto_label_t label, int *order)
{
    proto_group_t *g = NEW(p, proto_group_t);
    g->label = label;
    g->name = proto_lex_word(&p->lx);
    proto_lex_expect(&p->lx, '=');
    g->tag = proto_lex_int(&p->lx);
    g->field_order = g->nested_order = (*order)++;
    proto_lex_expect(&p->lx, '{');
    enter(p);
    while (!proto_lex_accept(&p->lx, '}')) {
        int line = (proto_lex_peek(&p->lx), p->lx.line), col = proto_lex_column(&p->lx);
        const char *word = proto_lex_word(&p->lx);
        field_or_group_t m = read_field(p, word, line, col, order);
        if (!m.field)
            proto_lex_fail_at(&p->lx, line, col, "expected field declaration, was group");
        push(p, &g->fields, &g->n_fields, m.field);
    }
    leave(p);
    return g;
}

static proto_oneof_t *read_oneof(parser_t *p, int *order)
{
    proto_oneof_t *o = NEW(p, proto_oneof_t);
    o->name = proto_lex_name(&p->lx, NULL);
    proto_lex_expect(&p->lx, '{');
    while (!proto_lex_accept(&p->lx, '}')) {
        int line = (proto_lex_peek(&p->lx), p->lx.line), col = proto_lex_column(&p->lx);
        const char *type = proto_lex_data_type(&p->lx, NULL);
        if (strcmp(type, "group") == 0) {
            push(p, &o->groups, &o->n_groups, read_group(p, PROTO_LABEL_NONE, order));
        } else if (strcmp(type, "option") == 0) {
            push(p, &o->options.items, &o->options.n, read_option(p, '='));
            proto_lex_expect(&p->lx, ';');
        } else {
            proto_field_t *f = read_field_rest(p, line, col, PROTO_LABEL_NONE, type, order);
            push(p, &o->fields, &o->n_fields, f);
        }
    }
    return o;
}

/* ---- Reserved and extensions ------------------------------------------------ */

static int32_t read_range_end(parser_t *p, int *is_max)
{
    int line = (proto_lex_peek(&p->lx), p->lx.line), col = proto_lex_column(&p->lx);
    const char *w = proto_lex_word(&p->lx);
    if (strcmp(w, "max") == 0) {
        *is_max = 1;
        return PROTO_MAX_FIELD_NUMBER; /* whatever the context, as in Wire */
    }
    char *end = NULL;
    long long v = strtoll(w, &end, 10);
    if (!*w || *end || v < INT32_MIN || v > INT32_MAX)
        proto_lex_fail_at(&p->lx, line, col, "expected an integer but was %s", w);
    return (int32_t)v;
}

static void push_range(parser_t *p, proto_range_t **values, size_t *n, proto_range_t r)
{
    size_t count = *n;
    if ((count & (count - 1)) == 0) {
        proto_range_t *grown = new_node(p, (count ? count * 2 : 1) * sizeof *grown);
        if (count)
            memcpy(grown, *values, count * sizeof *grown);
        *values = grown;
    }
    (*values)[count] = r;
    *n = count + 1;
}

/* A number or "a to b"; stop holds the characters that end a single number. */
static proto_range_t read_range(parser_t *p, const char *stop, const char *expected)
{
    int line = (proto_lex_peek(&p->lx), p->lx.line), col = proto_lex_column(&p->lx);
    proto_range_t r = {0};
    r.start = r.end = proto_lex_int(&p->lx);
    if (strchr(stop, proto_lex_peek(&p->lx)))
        return r;
    if (strcmp(proto_lex_word(&p->lx), "to") != 0)
        proto_lex_fail_at(&p->lx, line, col, "expected %s", expected);
    r.is_range = 1;
    r.end = read_range_end(p, &r.end_is_max);
    return r;
}

static proto_reserved_t *read_reserved(parser_t *p)
{
    proto_reserved_t *res = NEW(p, proto_reserved_t);
    for (;;) {
        char c = proto_lex_peek(&p->lx);
        if (c == '"' || c == '\'') {
            size_t len;
            proto_range_t r = {0};
            r.name = proto_lex_string(&p->lx, &len);
            push_range(p, &res->values, &res->n_values, r);
        } else {
            push_range(p, &res->values, &res->n_values, read_range(p, ",;", "',', ';', or 'to'"));
        }
        c = proto_lex_char(&p->lx);
        if (c == ';')
            break;
        if (c != ',')
            proto_lex_fail(&p->lx, "expected ',' or ';'");
    }
    return res;
}

static proto_extensions_t *read_extensions(parser_t *p)
{
    proto_extensions_t *ext = NEW(p, proto_extensions_t);
    for (;;) {
        push_range(p, &ext->values, &ext->n_values, read_range(p, ",;[", "',', ';', '[' or 'to'"));
        if (proto_lex_peek(&p->lx) == '[') {
            read_bracket_options(p, &ext->options);
            proto_lex_expect(&p->lx, ';');
            break;
        }
        char c = proto_lex_char(&p->lx);
        if (c == ';')
            break;
        if (c != ',')
            proto_lex_fail(&p->lx, "expected ',' or ';'");
    }
    return ext;
}

/* ---- Messages, enums, services, extends -------------------------------------- */

static proto_message_t *read_message(parser_t *p)
{
    proto_message_t *m = NEW(p, proto_message_t);
    m->name = proto_lex_name(&p->lx, NULL);
    proto_lex_expect(&p->lx, '{');
    enter(p);
    int order = 0;
    decl_owner_t owner = {.message = m, .order = &order};
    while (!proto_lex_accept(&p->lx, '}'))
        declaration(p, CTX_MESSAGE, &owner);
    leave(p);
    return m;
}

static proto_enum_t *read_enum(parser_t *p)
{
    proto_enum_t *e = NEW(p, proto_enum_t);
    e->name = proto_lex_name(&p->lx, NULL);
    proto_lex_expect(&p->lx, '{');
    decl_owner_t owner = {.enumeration = e};
    while (!proto_lex_accept(&p->lx, '}'))
        declaration(p, CTX_ENUM, &owner);
    return e;
}

static proto_extend_t *read_extend(parser_t *p, int *order)
{
    proto_extend_t *x = NEW(p, proto_extend_t);
    x->name = proto_lex_name(&p->lx, NULL);
    proto_lex_expect(&p->lx, '{');
    int file_order = 0;
    decl_owner_t owner = {.extend = x, .order = order ? order : &file_order};
    while (!proto_lex_accept(&p->lx, '}'))
        declaration(p, CTX_EXTEND, &owner);
    return x;
}

static proto_service_t *read_service(parser_t *p)
{
    proto_service_t *s = NEW(p, proto_service_t);
    s->name = proto_lex_name(&p->lx, NULL);
    proto_lex_expect(&p->lx, '{');
    decl_owner_t owner = {.service = s};
    while (!proto_lex_accept(&p->lx, '}'))
        declaration(p, CTX_SERVICE, &owner);
    return s;
}

static const char *read_rpc_type(parser_t *p, int *streaming)
{
    proto_lex_expect(&p->lx, '(');
    const char *word = proto_lex_word(&p->lx);
    const char *type;
    if (strcmp(word, "stream") == 0) {
        *streaming = 1;
        type = proto_lex_data_type(&p->lx, NULL);
    } else {
        type = proto_lex_data_type(&p->lx, word);
    }
    proto_lex_expect(&p->lx, ')');
    return type;
}

static proto_rpc_t *read_rpc(parser_t *p, int line, int col)
{
    proto_rpc_t *r = NEW(p, proto_rpc_t);
    r->name = proto_lex_name(&p->lx, NULL);
    r->request_type = read_rpc_type(p, &r->request_streaming);
    if (strcmp(proto_lex_word(&p->lx), "returns") != 0)
        proto_lex_fail_at(&p->lx, line, col, "expected 'returns'");
    r->response_type = read_rpc_type(p, &r->response_streaming);
    if (proto_lex_accept(&p->lx, '{')) {
        r->has_body = 1;
        decl_owner_t owner = {.rpc = r};
        while (!proto_lex_accept(&p->lx, '}'))
            declaration(p, CTX_RPC, &owner);
    } else {
        proto_lex_expect(&p->lx, ';');
    }
    return r;
}

static proto_enum_value_t *read_enum_value(parser_t *p, const char *name)
{
    proto_enum_value_t *v = NEW(p, proto_enum_value_t);
    v->name = name;
    proto_lex_expect(&p->lx, '=');
    v->tag = proto_lex_int(&p->lx);
    read_bracket_options(p, &v->options);
    proto_lex_expect(&p->lx, ';');
    return v;
}

/* ---- File-level statements ------------------------------------------------------ */

static void read_import(parser_t *p)
{
    proto_file_t *f = p->file;
    size_t len;
    char c = proto_lex_peek(&p->lx);
    if (c == '"' || c == '\'') {
        push(p, &f->imports, &f->n_imports, (void *)proto_lex_string(&p->lx, &len));
    } else {
        const char *kind = proto_lex_word(&p->lx);
        if (strcmp(kind, "weak") == 0)
            push(p, &f->weak_imports, &f->n_weak_imports, (void *)proto_lex_string(&p->lx, &len));
        else if (strcmp(kind, "public") == 0)
            push(p, &f->public_imports, &f->n_public_imports, (void *)proto_lex_string(&p->lx, &len));
        else
            proto_lex_fail(&p->lx, "expected quoted string");
    }
    proto_lex_expect(&p->lx, ';');
}

static void read_syntax(parser_t *p, int index, int line, int col, int is_edition)
{
    if (p->file->syntax != PROTO_SYNTAX_NONE)
        proto_lex_fail_at(&p->lx, line, col, "too many syntax definitions");
    proto_lex_expect(&p->lx, '=');
    if (index != 0)
        proto_lex_fail_at(&p->lx, line, col, "'%s' element must be the first declaration in a file",
                          is_edition ? "edition" : "syntax");
    size_t len;
    const char *value = proto_lex_string(&p->lx, &len);
    if (is_edition) {
        p->file->syntax = PROTO_SYNTAX_EDITION;
        p->file->edition = value;
    } else if (strcmp(value, "proto2") == 0) {
        p->file->syntax = PROTO_SYNTAX_PROTO2;
    } else if (strcmp(value, "proto3") == 0) {
        p->file->syntax = PROTO_SYNTAX_PROTO3;
    } else {
        proto_lex_fail_at(&p->lx, line, col, "unexpected syntax: %s", value);
    }
    proto_lex_expect(&p->lx, ';');
}

static const char *type_name(const proto_type_t *t)
{
    return t->kind == PROTO_TYPE_MESSAGE ? t->message->name : t->enumeration->name;
}

/* Adds name; returns 0 when it was new, 1 when already present, -1 when out of memory. */
static int name_set_add(hmap_t *set, const char *name)
{
    if (hmap_contains(set, name, strlen(name)))
        return 1;
    return hmap_puts_try(set, name, NULL, NULL);
}

/* Wire refuses two top-level types (or services) of one name. */
static void check_unique(parser_t *p, hmap_t *set, const char *name, int line, int col)
{
    int rc = name_set_add(set, name);
    if (rc < 0)
        proto_lex_fail(&p->lx, "out of memory");
    if (rc > 0)
        proto_lex_fail_at(&p->lx, line, col, "%s is already defined", name);
}

static void type_declaration(parser_t *p, decl_context_t ctx, decl_owner_t *owner, proto_type_t *t, int line,
                             int col)
{
    if (ctx == CTX_FILE) {
        check_unique(p, &p->types, type_name(t), line, col);
        push(p, &p->file->types, &p->file->n_types, t);
        return;
    }
    if (t->kind == PROTO_TYPE_MESSAGE)
        t->message->nested_order = (*owner->order)++;
    push(p, &owner->message->types, &owner->message->n_types, t);
}

static proto_options_t *owner_options(decl_context_t ctx, decl_owner_t *owner, proto_file_t *file)
{
    switch (ctx) {
    case CTX_FILE: return &file->options;
    case CTX_MESSAGE: return &owner->message->options;
    case CTX_ENUM: return &owner->enumeration->options;
    case CTX_SERVICE: return &owner->service->options;
    case CTX_RPC: return &owner->rpc->options;
    default: return NULL; /* options inside extend blocks are dropped, as in Wire */
    }
}

static void add_member(parser_t *p, decl_context_t ctx, decl_owner_t *owner, field_or_group_t m)
{
    if (ctx == CTX_EXTEND) {
        /* Wire keeps only plain fields of an extend block. */
        if (m.field)
            push(p, &owner->extend->fields, &owner->extend->n_fields, m.field);
        return;
    }
    proto_message_t *msg = owner->message;
    if (m.field)
        push(p, &msg->fields, &msg->n_fields, m.field);
    else
        push(p, &msg->groups, &msg->n_groups, m.group);
}

static int permits(decl_context_t ctx, const char *kw)
{
    int file = ctx == CTX_FILE, msg = ctx == CTX_MESSAGE;
    if (!strcmp(kw, "package") || !strcmp(kw, "import") || !strcmp(kw, "syntax") || !strcmp(kw, "edition") ||
        !strcmp(kw, "service"))
        return file;
    if (!strcmp(kw, "message") || !strcmp(kw, "enum") || !strcmp(kw, "extend"))
        return file || msg;
    if (!strcmp(kw, "oneof") || !strcmp(kw, "extensions"))
        return msg;
    if (!strcmp(kw, "rpc"))
        return ctx == CTX_SERVICE;
    return 0;
}

static void declaration(parser_t *p, decl_context_t ctx, decl_owner_t *owner)
{
    int index = p->decl_count++;
    if (proto_lex_accept(&p->lx, ';'))
        return; /* stray semicolons, e.g. after a nested message */
    proto_lex_peek(&p->lx);
    int line = p->lx.line, col = proto_lex_column(&p->lx);
    const char *word = proto_lex_word(&p->lx);
    if (ctx == CTX_ENUM && is_digit(word[0]))
        proto_lex_fail_at(&p->lx, line, col, "field and constant names cannot start with a digit");

    if (!strcmp(word, "package") && permits(ctx, word)) {
        p->file->package = proto_lex_name(&p->lx, NULL);
        proto_lex_expect(&p->lx, ';');
    } else if (!strcmp(word, "import") && permits(ctx, word)) {
        read_import(p);
    } else if ((!strcmp(word, "syntax") || !strcmp(word, "edition")) && permits(ctx, word)) {
        read_syntax(p, index, line, col, word[0] == 'e');
    } else if (!strcmp(word, "option")) {
        proto_option_t *o = read_option(p, '=');
        proto_lex_expect(&p->lx, ';');
        proto_options_t *opts = owner_options(ctx, owner, p->file);
        if (opts)
            push(p, &opts->items, &opts->n, o);
    } else if (!strcmp(word, "reserved")) {
        proto_reserved_t *r = read_reserved(p);
        if (ctx == CTX_MESSAGE)
            push(p, &owner->message->reserveds, &owner->message->n_reserveds, r);
        else if (ctx == CTX_ENUM)
            push(p, &owner->enumeration->reserveds, &owner->enumeration->n_reserveds, r);
    } else if (!strcmp(word, "message") && permits(ctx, word)) {
        proto_type_t *t = NEW(p, proto_type_t);
        t->kind = PROTO_TYPE_MESSAGE;
        t->message = read_message(p);
        type_declaration(p, ctx, owner, t, line, col);
    } else if (!strcmp(word, "enum") && permits(ctx, word)) {
        proto_type_t *t = NEW(p, proto_type_t);
        t->kind = PROTO_TYPE_ENUM;
        t->enumeration = read_enum(p);
        type_declaration(p, ctx, owner, t, line, col);
    } else if (!strcmp(word, "service") && permits(ctx, word)) {
        proto_service_t *s = read_service(p);
        check_unique(p, &p->services, s->name, line, col);
        push(p, &p->file->services, &p->file->n_services, s);
    } else if (!strcmp(word, "extend") && permits(ctx, word)) {
        if (ctx == CTX_FILE) {
            push(p, &p->file->extends, &p->file->n_extends, read_extend(p, NULL));
        } else {
            proto_extend_t *x = read_extend(p, owner->order);
            push(p, &owner->message->extends, &owner->message->n_extends, x);
        }
    } else if (!strcmp(word, "rpc") && permits(ctx, word)) {
        proto_rpc_t *r = read_rpc(p, line, col);
        push(p, &owner->service->rpcs, &owner->service->n_rpcs, r);
    } else if (!strcmp(word, "oneof") && permits(ctx, word)) {
        proto_oneof_t *o = read_oneof(p, owner->order);
        push(p, &owner->message->oneofs, &owner->message->n_oneofs, o);
    } else if (!strcmp(word, "extensions") && permits(ctx, word)) {
        proto_extensions_t *x = read_extensions(p);
        push(p, &owner->message->extensions, &owner->message->n_extensions, x);
    } else if (ctx == CTX_MESSAGE || ctx == CTX_EXTEND) {
        add_member(p, ctx, owner, read_field(p, word, line, col, owner->order));
    } else if (ctx == CTX_ENUM) {
        proto_enum_value_t *v = read_enum_value(p, word);
        push(p, &owner->enumeration->values, &owner->enumeration->n_values, v);
    } else {
        proto_lex_fail_at(&p->lx, line, col, "unexpected label: %s", word);
    }
}

/* ---- Entry point -------------------------------------------------------------------- */

static void parser_clear(parser_t *p)
{
    hmap_clear(&p->types);
    hmap_clear(&p->services);
    hmap_clear(&p->keys);
    free(p->key_buf);
}

proto_file_t *proto_parse(const char *text, size_t len, char **error)
{
    *error = NULL;
    /* The parser state is static-free and large (jmp_buf); keep it off the
     * caller's frame chain by allocating it. */
    parser_t *p = calloc(1, sizeof *p);
    proto_file_t *file = proto_file_new();
    if (!p || !file) {
        free(p);
        proto_file_free(file);
        *error = strdup("out of memory");
        return NULL;
    }
    p->file = file;
    proto_lex_init(&p->lx, text, len, file->arena);
    if (setjmp(p->lx.fail) != 0) {
        *error = strdup(p->lx.error);
        strbuf_free(&p->lx.scratch);
        parser_clear(p);
        free(p);
        proto_file_free(file);
        return NULL;
    }
    decl_owner_t owner = {0};
    while (!proto_lex_at_end(&p->lx))
        declaration(p, CTX_FILE, &owner);
    strbuf_free(&p->lx.scratch);
    parser_clear(p);
    free(p);
    return file;
}
