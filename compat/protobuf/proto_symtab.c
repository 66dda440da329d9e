/*
 * proto_symtab: the table of every message, enum and extension field a
 * schema can see (its own file, its references, the built-ins), and name
 * resolution over it the way Confluent's diff Context resolves names.
 */
#include "compat/protobuf/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hmap.h"

/* Symbols by full name (base/hmap) and in the order their names were first
 * defined: the walk by extension number goes in that order, so which symbol
 * it meets first, and where its budget runs out, never depend on the map's
 * slot layout. */
typedef struct symbol_map {
    hmap_t by_name;         /* full name -> position in order, + 1 */
    proto_symbol_t **order; /* a later definition of a name replaces it in place */
    size_t n, cap;
    int scalar_names; /* some symbol's simple name spells a scalar type ("int64") */
} symbol_map_t;

struct proto_symtab {
    arena_t *arena; /* the symbols and their names */
    symbol_map_t types;
    symbol_map_t extensions;
    const proto_symtab_t *parent; /* consulted for names this table lacks */
};

static proto_symbol_t *map_get(const symbol_map_t *m, const char *name)
{
    uintptr_t at = (uintptr_t)hmap_gets(&m->by_name, name);
    return at ? m->order[at - 1] : NULL;
}

/* A later definition of the same full name replaces the earlier one. */
static int map_put(symbol_map_t *m, proto_symbol_t *sym)
{
    uintptr_t at = (uintptr_t)hmap_gets(&m->by_name, sym->full_name);
    if (at) {
        m->order[at - 1] = sym;
        return 0;
    }
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        proto_symbol_t **order = realloc(m->order, cap * sizeof *order);
        if (!order)
            return -1;
        m->order = order;
        m->cap = cap;
    }
    if (hmap_puts_try(&m->by_name, sym->full_name, (void *)(uintptr_t)(m->n + 1), NULL) != 0)
        return -1;
    m->order[m->n++] = sym;
    const char *dot = strrchr(sym->full_name, '.');
    m->scalar_names |= proto_is_scalar(dot ? dot + 1 : sym->full_name);
    return 0;
}

static void map_clear(symbol_map_t *m)
{
    hmap_clear(&m->by_name);
    free(m->order);
    *m = (symbol_map_t){0};
}

proto_symtab_t *proto_symtab_new(void)
{
    proto_symtab_t *tab = calloc(1, sizeof *tab);
    if (!tab)
        return NULL;
    tab->arena = arena_new();
    if (!tab->arena) {
        free(tab);
        return NULL;
    }
    return tab;
}

void proto_symtab_free(proto_symtab_t *tab)
{
    if (!tab)
        return;
    map_clear(&tab->types);
    map_clear(&tab->extensions);
    arena_free(tab->arena);
    free(tab);
}

const proto_symbol_t *proto_symtab_get(const proto_symtab_t *tab, const char *full_name, int want_extension)
{
    if (full_name[0] == '.')
        full_name++;
    for (; tab; tab = tab->parent) {
        const symbol_map_t *m = want_extension ? &tab->extensions : &tab->types;
        const proto_symbol_t *s = map_get(m, full_name);
        if (s)
            return s;
    }
    return NULL;
}

void proto_symtab_set_parent(proto_symtab_t *tab, const proto_symtab_t *parent)
{
    tab->parent = parent;
}

/* The extendee as a full name, resolved from where the extend block stands. */
static const proto_symbol_t *extendee_of(const proto_symtab_t *tab, const proto_symbol_t *ext)
{
    size_t plen = strlen(ext->package);
    const char *local = ext->scope;
    if (plen && strncmp(local, ext->package, plen) == 0)
        local += plen + (local[plen] == '.');
    const char *names[PROTO_MAX_DEPTH + 1];
    size_t n = 0;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", local);
    for (char *p = buf, *dot; *p && n <= PROTO_MAX_DEPTH; p = dot + 1) {
        names[n++] = p;
        dot = strchr(p, '.');
        if (!dot)
            break;
        *dot = '\0';
    }
    return proto_symtab_resolve(tab, ext->package, names, n, ext->extendee, 0);
}

const proto_symbol_t *proto_symtab_find_extension(const proto_symtab_t *tab, const char *extendee,
                                                  int32_t number, long *budget)
{
    /* A scan in definition order: lookups by number are rare (reading
     * descriptors), but a hostile descriptor could make them quadratic,
     * hence the budget. */
    for (const proto_symtab_t *t = tab; t; t = t->parent) {
        for (size_t i = 0; i < t->extensions.n; i++) {
            if (--*budget <= 0)
                return NULL;
            const proto_symbol_t *s = t->extensions.order[i];
            if (s->field->tag != number || proto_symtab_get(tab, s->full_name, 1) != s)
                continue;
            *budget -= 32;
            const proto_symbol_t *target = extendee_of(tab, s);
            if (target && strcmp(target->full_name, extendee) == 0)
                return s;
        }
    }
    return NULL;
}

/* ---- Collecting a file -------------------------------------------------- */

typedef struct collector {
    proto_symtab_t *tab;
    const proto_file_t *file;
    const char *package;
    proto_origin_t origin;
    const char *subject;
    int version;
} collector_t;

static proto_symbol_t *new_symbol(collector_t *c, const char *scope, const char *name)
{
    proto_symbol_t *s = arena_alloc(c->tab->arena, sizeof *s);
    if (!s)
        return NULL;
    s->full_name =
        *scope ? arena_printf(c->tab->arena, "%s.%s", scope, name) : arena_strdup(c->tab->arena, name);
    if (!s->full_name)
        return NULL;
    s->package = c->package;
    s->file = c->file;
    s->origin = c->origin;
    s->subject = c->subject;
    s->version = c->version;
    return s;
}

static int option_is_true(const proto_options_t *opts, const char *name)
{
    int result = 0; /* the last one wins, as Confluent merges options by name */
    for (size_t i = 0; i < opts->n; i++) {
        const proto_option_t *o = opts->items[i];
        if (strcmp(o->name, name) == 0)
            result = o->value->text && strcmp(o->value->text, "true") == 0;
    }
    return result;
}

static const proto_field_t *find_field(const proto_message_t *m, const char *name)
{
    for (size_t i = 0; i < m->n_fields; i++)
        if (strcmp(m->fields[i]->name, name) == 0)
            return m->fields[i];
    return NULL;
}

static int collect_extends(collector_t *c, const char *scope, proto_extend_t *const *extends, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < extends[i]->n_fields; j++) {
            const proto_field_t *f = extends[i]->fields[j];
            proto_symbol_t *s = new_symbol(c, scope, f->name);
            if (!s)
                return -1;
            s->kind = PROTO_SYMBOL_EXTENSION;
            s->field = f;
            s->extendee = extends[i]->name;
            s->scope = scope;
            if (map_put(&c->tab->extensions, s) != 0)
                return -1;
        }
    }
    return 0;
}

static int collect_types(collector_t *c, const char *scope, proto_type_t *const *types, size_t n);

static int collect_message(collector_t *c, const char *scope, const proto_message_t *m)
{
    proto_symbol_t *s = new_symbol(c, scope, m->name);
    if (!s)
        return -1;
    s->kind = PROTO_SYMBOL_MESSAGE;
    s->message = m;
    s->scope = scope;
    s->is_map_entry = option_is_true(&m->options, "map_entry");
    if (s->is_map_entry) {
        s->map_key = find_field(m, "key");
        s->map_value = find_field(m, "value");
    }
    if (map_put(&c->tab->types, s) != 0)
        return -1;
    if (collect_extends(c, s->full_name, m->extends, m->n_extends) != 0)
        return -1;
    return collect_types(c, s->full_name, m->types, m->n_types);
}

static int collect_types(collector_t *c, const char *scope, proto_type_t *const *types, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (types[i]->kind == PROTO_TYPE_MESSAGE) {
            if (collect_message(c, scope, types[i]->message) != 0)
                return -1;
            continue;
        }
        proto_symbol_t *s = new_symbol(c, scope, types[i]->enumeration->name);
        if (!s)
            return -1;
        s->kind = PROTO_SYMBOL_ENUM;
        s->enumeration = types[i]->enumeration;
        s->scope = scope;
        if (map_put(&c->tab->types, s) != 0)
            return -1;
    }
    return 0;
}

int proto_symtab_add_file(proto_symtab_t *tab, const proto_file_t *file, proto_origin_t origin,
                          const char *subject, int version)
{
    collector_t c = {
        .tab = tab,
        .file = file,
        .package = arena_strdup(tab->arena, file->package ? file->package : ""),
        .origin = origin,
        .subject = subject ? arena_strdup(tab->arena, subject) : NULL,
        .version = version,
    };
    if (!c.package || (subject && !c.subject))
        return -1;
    if (collect_extends(&c, c.package, file->extends, file->n_extends) != 0)
        return -1;
    return collect_types(&c, c.package, file->types, file->n_types);
}

/* ---- Resolution -------------------------------------------------------------- */

static int scalar_names(const proto_symtab_t *tab, int want_extension)
{
    for (const proto_symtab_t *t = tab; t; t = t->parent)
        if ((want_extension ? &t->extensions : &t->types)->scalar_names)
            return 1;
    return 0;
}

int proto_symtab_shadows_scalars(const proto_symtab_t *tab)
{
    return scalar_names(tab, 0);
}

const proto_symbol_t *proto_symtab_resolve(const proto_symtab_t *tab, const char *package,
                                           const char *const *scope, size_t nscope, const char *name,
                                           int want_extension)
{
    if (name[0] == '.')
        return proto_symtab_get(tab, name + 1, want_extension);
    /* Every candidate ends in ".name", so a scalar's name ("int64") can only
     * find a symbol some table defines by that simple name. The diff asks for
     * every scalar field's type several times; this answers without building
     * and hashing the candidates. */
    if (!scalar_names(tab, want_extension) && !strchr(name, '.') && proto_is_scalar(name))
        return NULL;
    /* Candidates "package.scope...name", dropping one trailing element of
     * the prefix at a time; the package counts element by element. */
    size_t total = strlen(package) + strlen(name) + 2;
    for (size_t i = 0; i < nscope; i++)
        total += strlen(scope[i]) + 1;
    char *buf = malloc(total);
    if (!buf)
        return NULL;
    size_t len = 0;
    size_t *ends = malloc((nscope + total) * sizeof *ends); /* prefix end offsets */
    size_t nends = 0;
    if (!ends) {
        free(buf);
        return NULL;
    }
    for (const char *p = package; *p; p++) {
        if (*p == '.')
            ends[nends++] = len;
        buf[len++] = *p;
    }
    if (*package)
        ends[nends++] = len;
    for (size_t i = 0; i < nscope; i++) {
        if (len)
            buf[len++] = '.';
        memcpy(buf + len, scope[i], strlen(scope[i]));
        len += strlen(scope[i]);
        ends[nends++] = len;
    }
    const proto_symbol_t *found = NULL;
    while (nends > 0 && !found) {
        size_t end = ends[--nends];
        buf[end] = '.';
        strcpy(buf + end + 1, name);
        found = proto_symtab_get(tab, buf, want_extension);
    }
    if (!found)
        found = proto_symtab_get(tab, name, want_extension);
    free(ends);
    free(buf);
    return found;
}

/* ---- Scopes ------------------------------------------------------------------ */

int proto_scope_enter(proto_scope_t *s, const char *name)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 8;
        const char **names = realloc(s->names, cap * sizeof *names);
        if (!names)
            return -1;
        s->names = names;
        s->cap = cap;
    }
    s->names[s->n++] = name;
    return 0;
}

void proto_scope_leave(proto_scope_t *s)
{
    if (s->n)
        s->n--;
}

void proto_scope_free(proto_scope_t *s)
{
    free(s->names);
    s->names = NULL;
    s->n = s->cap = 0;
}

const proto_symbol_t *proto_scope_resolve(const proto_scope_t *s, const char *name, int want_extension)
{
    return proto_symtab_resolve(s->tab, s->package, s->names, s->n, name, want_extension);
}
