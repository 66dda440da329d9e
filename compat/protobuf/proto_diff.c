/*
 * proto_diff: Confluent's Protobuf schema diff (protobuf.diff.SchemaDiff),
 * walking original and update side by side and recording typed differences
 * at "#/..." paths, then the backward check built on it.
 *
 * Names resolve the way Confluent's Context does (proto_symtab_resolve) in
 * the scope of the message being compared; changes inside imported types are
 * compared in a sub-diff whose paths restart at the type's local name.
 */
#include "compat/protobuf/internal.h"

#include "base/hmap.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const change_names[PROTO_CHANGE_TYPE_COUNT] = {
    "PACKAGE_CHANGED",
    "MESSAGE_ADDED",
    "MESSAGE_REMOVED",
    "MESSAGE_MOVED",
    "ENUM_ADDED",
    "ENUM_REMOVED",
    "ENUM_CONST_ADDED",
    "ENUM_CONST_CHANGED",
    "ENUM_CONST_REMOVED",
    "FIELD_ADDED",
    "FIELD_REMOVED",
    "FIELD_NAME_CHANGED",
    "FIELD_KIND_CHANGED",
    "FIELD_SCALAR_KIND_CHANGED",
    "FIELD_NAMED_TYPE_CHANGED",
    "FIELD_NUMERIC_LABEL_CHANGED",
    "FIELD_STRING_OR_BYTES_LABEL_CHANGED",
    "REQUIRED_FIELD_ADDED",
    "REQUIRED_FIELD_REMOVED",
    "ONEOF_ADDED",
    "ONEOF_REMOVED",
    "ONEOF_FIELD_ADDED",
    "ONEOF_FIELD_REMOVED",
    "ONEOF_FIELD_MOVED_TO_TOP_LEVEL",
    "MULTIPLE_FIELDS_MOVED_TO_ONEOF",
    "FIELD_MOVED_TO_EXISTING_ONEOF",
};

/* "FIELD_ADDED" etc. */
static const char *proto_change_type_name(proto_change_type_t type)
{
    return type < PROTO_CHANGE_TYPE_COUNT ? change_names[type] : "UNKNOWN";
}

int proto_change_is_compatible(proto_change_type_t type)
{
    switch (type) {
    case PROTO_MESSAGE_ADDED:
    case PROTO_MESSAGE_MOVED:
    case PROTO_ENUM_ADDED:
    case PROTO_ENUM_REMOVED:
    case PROTO_ENUM_CONST_ADDED:
    case PROTO_ENUM_CONST_CHANGED:
    case PROTO_ENUM_CONST_REMOVED:
    case PROTO_FIELD_ADDED:
    case PROTO_FIELD_REMOVED:
    case PROTO_FIELD_NAME_CHANGED:
    case PROTO_FIELD_STRING_OR_BYTES_LABEL_CHANGED:
    case PROTO_ONEOF_ADDED:
    case PROTO_ONEOF_REMOVED:
    case PROTO_ONEOF_FIELD_ADDED:
    case PROTO_ONEOF_FIELD_MOVED_TO_TOP_LEVEL: return 1;
    default: return 0;
    }
}

void proto_field_pairs_clear(proto_field_pairs_t *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->items[i].path);
        free(p->items[i].column);
    }
    free(p->items);
    memset(p, 0, sizeof *p);
}

void proto_changes_clear(proto_changes_t *c)
{
    for (size_t i = 0; i < c->n; i++)
        free(c->items[i].path);
    free(c->items);
    c->items = NULL;
    c->n = c->cap = 0;
}

/* ---- The diff context --------------------------------------------------------------- */

typedef struct side {
    const proto_symtab_t *tab;
    const char *package;   /* resolution package: the schema's, or an import's in sub-diffs */
    proto_syntax_t syntax; /* of the file whose messages are compared (field presence) */
    int plain_scalars;     /* no symbol is named like a scalar: "int64" is always the scalar */
} side_t;

typedef struct str_stack {
    const char **items;
    size_t n;
    size_t cap;
} str_stack_t;

/* A "#/..." path segment: a name, or (name NULL) a field or value number,
 * spelled only when a change is recorded under it: most fields compared
 * record none. */
typedef struct segment {
    const char *name;
    int32_t tag;
} segment_t;

typedef struct seg_stack {
    segment_t *items;
    size_t n;
    size_t cap;
} seg_stack_t;

/*
 * Results of imported-type comparisons, by (original, update) message pair.
 * Confluent compares an imported type again for every field that uses it,
 * which is exponential along chains of imported types; here a pair is
 * compared once and later uses only report FIELD_NAMED_TYPE_CHANGED again
 * (so identical inner differences are listed once, not once per use).
 * The memo is a base/hmap.h map keyed by the pair; its values are verdicts.
 */
#define MEMO_COMPATIBLE   ((void *)(uintptr_t)1)
#define MEMO_INCOMPATIBLE ((void *)(uintptr_t)2)

typedef struct diff_ctx {
    side_t orig, upd;
    seg_stack_t path;              /* the "#/..." segments */
    str_stack_t names;             /* the named scopes (messages, enums) for resolution */
    const proto_message_t **guard; /* original messages being compared (recursion guard) */
    size_t n_guard, cap_guard;
    proto_changes_t *out;
    proto_field_pairs_t *pairs; /* NULL unless the change list asked (proto_diff_changes_paired) */
    arena_t *arena;             /* segment strings */
    hmap_t *memo;               /* shared by a diff and all its sub-diffs */
    int failed;                 /* out of memory */
    /* The backward check lists only incompatible changes: the others are
     * then not recorded at all (a field added to a wide message is one each). */
    int incompatible_only;
} diff_ctx_t;

static void str_push(diff_ctx_t *c, str_stack_t *s, const char *item)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        const char **items = realloc(s->items, cap * sizeof *items);
        if (!items) {
            c->failed = 1;
            return;
        }
        s->items = items;
        s->cap = cap;
    }
    s->items[s->n++] = item;
}

static void str_pop(str_stack_t *s, size_t to)
{
    if (s->n > to)
        s->n = to;
}

static void seg_push(diff_ctx_t *c, segment_t seg)
{
    seg_stack_t *s = &c->path;
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        segment_t *items = realloc(s->items, cap * sizeof *items);
        if (!items) {
            c->failed = 1;
            return;
        }
        s->items = items;
        s->cap = cap;
    }
    s->items[s->n++] = seg;
}

/* enterPath / enterName: a mark to pop back to. */
typedef struct mark {
    size_t path, names;
} mark_t;

static mark_t enter_path(diff_ctx_t *c, const char *segment)
{
    mark_t m = {c->path.n, c->names.n};
    seg_push(c, (segment_t){segment, 0});
    return m;
}

static mark_t enter_tag(diff_ctx_t *c, int32_t tag)
{
    mark_t m = {c->path.n, c->names.n};
    seg_push(c, (segment_t){NULL, tag});
    return m;
}

static mark_t enter_name(diff_ctx_t *c, const char *name)
{
    mark_t m = enter_path(c, name);
    str_push(c, &c->names, name);
    return m;
}

static void leave(diff_ctx_t *c, mark_t m)
{
    if (c->path.n > m.path)
        c->path.n = m.path;
    str_pop(&c->names, m.names);
}

static const char *tag_text(diff_ctx_t *c, int32_t tag)
{
    const char *t = arena_printf(c->arena, "%d", (int)tag);
    if (!t)
        c->failed = 1;
    return t ? t : "?";
}

/* The current path: "#/" and the segments joined by sep (malloc'd, NULL when out of memory). */
static char *path_text(const diff_ctx_t *c, const char *start, char sep)
{
    strbuf_t b = {0};
    strbuf_puts(&b, start);
    for (size_t i = 0; i < c->path.n; i++) {
        if (i)
            strbuf_putc(&b, sep);
        if (c->path.items[i].name)
            strbuf_puts(&b, c->path.items[i].name);
        else
            strbuf_printf(&b, "%d", (int)c->path.items[i].tag);
    }
    return strbuf_take(&b);
}

static void add_change(diff_ctx_t *c, proto_change_type_t type)
{
    if (c->incompatible_only && proto_change_is_compatible(type))
        return;
    proto_changes_t *o = c->out;
    if (o->n == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 16;
        proto_change_t *items = realloc(o->items, cap * sizeof *items);
        if (!items) {
            c->failed = 1;
            return;
        }
        o->items = items;
        o->cap = cap;
    }
    char *path = path_text(c, "#/", '/');
    if (!path) {
        c->failed = 1;
        return;
    }
    o->items[o->n].type = type;
    o->items[o->n++].path = path;
}

static void add_change_at(diff_ctx_t *c, const char *segment, proto_change_type_t type)
{
    mark_t m = enter_path(c, segment);
    add_change(c, type);
    leave(c, m);
}

static void add_change_at_tag(diff_ctx_t *c, int32_t tag, proto_change_type_t type)
{
    mark_t m = enter_tag(c, tag);
    add_change(c, type);
    leave(c, m);
}

static const proto_symbol_t *resolve(const diff_ctx_t *c, const side_t *s, const char *name)
{
    return proto_symtab_resolve(s->tab, s->package, c->names.items, c->names.n, name, 0);
}

/* ---- Field types (Wire's ProtoType) ------------------------------------------------------ */

typedef struct ptype {
    const char *name; /* the type as a string, e.g. "int32", "Foo", "map<string, Foo>" */
    const char *key;  /* maps only */
    const char *value;
} ptype_t;

static ptype_t field_ptype(const proto_field_t *f)
{
    ptype_t t = {f->type, f->map_key, f->map_value};
    return t;
}

static ptype_t plain_ptype(const char *name)
{
    ptype_t t = {name, NULL, NULL};
    return t;
}

typedef enum kind { KIND_SCALAR, KIND_MAP, KIND_MESSAGE } kind_t;

static kind_t kind_of(const diff_ctx_t *c, const side_t *s, ptype_t t)
{
    if (proto_is_scalar(t.name))
        return KIND_SCALAR;
    if (t.key)
        return KIND_MAP;
    const proto_symbol_t *sym = resolve(c, s, t.name);
    return sym && sym->kind == PROTO_SYMBOL_ENUM ? KIND_SCALAR : KIND_MESSAGE;
}

typedef enum scalar_kind {
    SK_GENERAL_NUMBER,
    SK_SIGNED_NUMBER,
    SK_STRING_OR_BYTES,
    SK_FIXED32,
    SK_FIXED64,
    SK_FLOAT,
    SK_DOUBLE,
} scalar_kind_t;

/* Wire-compatible groups: a change inside a group keeps the encoding readable.
 * The group of a scalar type's name, or -1 for any other name. */
static int scalar_table_kind(const char *type)
{
    static const struct {
        const char *name;
        scalar_kind_t kind;
    } table[] = {
        {"int32", SK_GENERAL_NUMBER},  {"int64", SK_GENERAL_NUMBER},
        {"uint32", SK_GENERAL_NUMBER}, {"uint64", SK_GENERAL_NUMBER},
        {"bool", SK_GENERAL_NUMBER},   {"sint32", SK_SIGNED_NUMBER},
        {"sint64", SK_SIGNED_NUMBER},  {"string", SK_STRING_OR_BYTES},
        {"bytes", SK_STRING_OR_BYTES}, {"fixed32", SK_FIXED32},
        {"sfixed32", SK_FIXED32},      {"fixed64", SK_FIXED64},
        {"sfixed64", SK_FIXED64},      {"float", SK_FLOAT},
        {"double", SK_DOUBLE},
    };
    for (size_t i = 0; i < sizeof table / sizeof *table; i++)
        if (table[i].name[0] == type[0] && strcmp(type, table[i].name) == 0)
            return (int)table[i].kind;
    return -1;
}

static scalar_kind_t scalar_kind(const diff_ctx_t *c, const side_t *s, const char *type)
{
    const proto_symbol_t *sym = resolve(c, s, type);
    if (sym && sym->kind == PROTO_SYMBOL_ENUM)
        return SK_GENERAL_NUMBER;
    int kind = scalar_table_kind(type);
    return kind < 0 ? SK_GENERAL_NUMBER /* unreachable: only scalars and enums get here */
                    : (scalar_kind_t)kind;
}

/* ---- Procedures T, M, E, F ----------------------------------------------------------------- */

static void compare_types(diff_ctx_t *c, proto_type_t *const *orig, size_t no, proto_type_t *const *upd,
                          size_t nu);
static void compare_message(diff_ctx_t *c, const proto_message_t *orig, const proto_message_t *upd);
static void compare_labels_and_types(diff_ctx_t *c, proto_label_t ol, proto_label_t ul, ptype_t ot,
                                     ptype_t ut);

/* A synthetic map entry message stands for map<K, V>. */
static ptype_t as_map(const diff_ctx_t *c, const side_t *s, ptype_t t)
{
    const proto_symbol_t *sym = resolve(c, s, t.name);
    if (sym && sym->is_map_entry && sym->map_key && sym->map_value) {
        const char *name = arena_printf(c->arena, "map<%s, %s>", sym->map_key->type, sym->map_value->type);
        if (name)
            return (ptype_t){name, sym->map_key->type, sym->map_value->type};
    }
    return t;
}

static void compare_scalar_kinds(diff_ctx_t *c, proto_label_t ol, proto_label_t ul, scalar_kind_t ok,
                                 scalar_kind_t uk)
{
    if (ok != uk) {
        add_change(c, PROTO_FIELD_SCALAR_KIND_CHANGED);
        return;
    }
    /* Only two explicit, different labels count: proto3's implicit label is no label. */
    if (ol == PROTO_LABEL_NONE || ul == PROTO_LABEL_NONE || ol == ul)
        return;
    add_change(c, ok == SK_STRING_OR_BYTES ? PROTO_FIELD_STRING_OR_BYTES_LABEL_CHANGED
                                           : PROTO_FIELD_NUMERIC_LABEL_CHANGED);
}

static void compare_scalars(diff_ctx_t *c, proto_label_t ol, proto_label_t ul, ptype_t ot, ptype_t ut)
{
    compare_scalar_kinds(c, ol, ul, scalar_kind(c, &c->orig, ot.name), scalar_kind(c, &c->upd, ut.name));
}

static const char *local_name(const proto_symbol_t *sym, const char *full)
{
    size_t n = strlen(sym->package);
    if (strncmp(full, sym->package, n) == 0 && full[n] == '.')
        return full + n + 1;
    return full;
}

static int same_reference(const proto_symbol_t *a, const proto_symbol_t *b)
{
    /* Built-ins carry no reference at all, so they are always compared. */
    if (a->origin == PROTO_ORIGIN_BUILTIN || b->origin == PROTO_ORIGIN_BUILTIN)
        return 0;
    const char *sa = a->origin == PROTO_ORIGIN_SELF ? "" : a->subject ? a->subject : "";
    const char *sb = b->origin == PROTO_ORIGIN_SELF ? "" : b->subject ? b->subject : "";
    int va = a->origin == PROTO_ORIGIN_SELF ? -1 : a->version;
    int vb = b->origin == PROTO_ORIGIN_SELF ? -1 : b->version;
    return strcmp(sa, sb) == 0 && va == vb;
}

static int has_incompatible(const proto_changes_t *changes)
{
    for (size_t i = 0; i < changes->n; i++)
        if (!proto_change_is_compatible(changes->items[i].type))
            return 1;
    return 0;
}

/* Compares two same-named message types defined in different places (an
 * import changed, or a type moved into or out of the schema). */
static void compare_imported(diff_ctx_t *c, const proto_symbol_t *o, const proto_symbol_t *u,
                             const char *local)
{
    const void *seen = hmap_get_pair(c->memo, o->message, u->message);
    if (seen) {
        if (seen == MEMO_INCOMPATIBLE)
            add_change(c, PROTO_FIELD_NAMED_TYPE_CHANGED);
        return;
    }
    proto_changes_t sub_out = {0};
    diff_ctx_t sub = {
        .orig = {c->orig.tab, o->package, o->file ? o->file->syntax : c->orig.syntax, c->orig.plain_scalars},
        .upd = {c->upd.tab, u->package, u->file ? u->file->syntax : c->upd.syntax, c->upd.plain_scalars},
        .out = &sub_out,
        .pairs = c->pairs,
        .arena = c->arena,
        .memo = c->memo,
        .incompatible_only = c->incompatible_only,
    };
    size_t pairs_before = c->pairs ? c->pairs->n : 0;
    sub.guard = malloc((c->n_guard + 1) * sizeof *sub.guard);
    if (!sub.guard) {
        c->failed = 1;
        return;
    }
    if (c->n_guard)
        memcpy(sub.guard, c->guard, c->n_guard * sizeof *sub.guard);
    sub.n_guard = sub.cap_guard = c->n_guard;
    /* Paths and scope restart at the local name ("outer.GoogleHome"). */
    char *parts = arena_strdup(c->arena, local);
    if (!parts) {
        c->failed = 1;
    } else {
        for (char *p = parts, *dot; p; p = dot ? dot + 1 : NULL) {
            dot = strchr(p, '.');
            if (dot)
                *dot = '\0';
            seg_push(&sub, (segment_t){p, 0});
            str_push(&sub, &sub.names, p);
        }
        compare_message(&sub, o->message, u->message);
    }
    c->failed |= sub.failed;
    /* The sub-diff's pairs counted its own differences; they land after ours. */
    for (size_t i = pairs_before; c->pairs && i < c->pairs->n; i++)
        c->pairs->items[i].after += c->out->n;
    for (size_t i = 0; i < sub_out.n; i++) {
        proto_changes_t *dst = c->out;
        if (dst->n == dst->cap) {
            size_t cap = dst->cap ? dst->cap * 2 : 16;
            proto_change_t *items = realloc(dst->items, cap * sizeof *items);
            if (!items) {
                c->failed = 1;
                break;
            }
            dst->items = items;
            dst->cap = cap;
        }
        dst->items[dst->n++] = sub_out.items[i];
        sub_out.items[i].path = NULL;
    }
    int incompatible = has_incompatible(&sub_out);
    if (hmap_put_pair_try(c->memo, o->message, u->message,
                          incompatible ? MEMO_INCOMPATIBLE : MEMO_COMPATIBLE) != 0)
        c->failed = 1;
    proto_changes_clear(&sub_out);
    free(sub.guard);
    free(sub.path.items);
    free(sub.names.items);
    if (incompatible)
        add_change(c, PROTO_FIELD_NAMED_TYPE_CHANGED);
}

static void compare_message_types(diff_ctx_t *c, ptype_t ot, ptype_t ut)
{
    const proto_symbol_t *of = resolve(c, &c->orig, ot.name);
    const proto_symbol_t *uf = resolve(c, &c->upd, ut.name);
    if (!of || !uf) {
        /* Unresolvable on either side: compare the spelling. */
        if (strcmp(ot.name, ut.name) != 0)
            add_change(c, PROTO_FIELD_NAMED_TYPE_CHANGED);
        return;
    }
    /* Confluent looks the full names up once more, relative to the scope. */
    const proto_symbol_t *o = resolve(c, &c->orig, of->full_name);
    const proto_symbol_t *u = resolve(c, &c->upd, uf->full_name);
    if (!o || !u)
        return;
    const char *ol = local_name(o, of->full_name), *ul = local_name(u, uf->full_name);
    if (strcmp(ol, ul) != 0) {
        add_change(c, PROTO_FIELD_NAMED_TYPE_CHANGED);
        return;
    }
    if (same_reference(o, u) || o->kind != PROTO_SYMBOL_MESSAGE || u->kind != PROTO_SYMBOL_MESSAGE)
        return;
    compare_imported(c, o, u, ol);
}

static void compare_labels_and_types(diff_ctx_t *c, proto_label_t ol, proto_label_t ul, ptype_t ot,
                                     ptype_t ut)
{
    /* Two scalars no symbol shadows, the common case, need no resolution: as_map
     * and kind_of leave them scalars, and their groups come from the table. */
    if (c->orig.plain_scalars && c->upd.plain_scalars && !ot.key && !ut.key) {
        int ok = scalar_table_kind(ot.name), uk = scalar_table_kind(ut.name);
        if (ok >= 0 && uk >= 0) {
            compare_scalar_kinds(c, ol, ul, (scalar_kind_t)ok, (scalar_kind_t)uk);
            return;
        }
    }
    ot = as_map(c, &c->orig, ot);
    ut = as_map(c, &c->upd, ut);
    kind_t ok = kind_of(c, &c->orig, ot), uk = kind_of(c, &c->upd, ut);
    if (ok != uk) {
        add_change(c, PROTO_FIELD_KIND_CHANGED);
        return;
    }
    switch (ok) {
    case KIND_SCALAR: compare_scalars(c, ol, ul, ot, ut); break;
    case KIND_MESSAGE: compare_message_types(c, ot, ut); break;
    case KIND_MAP:
        compare_labels_and_types(c, PROTO_LABEL_NONE, PROTO_LABEL_NONE, plain_ptype(ot.key),
                                 plain_ptype(ut.key));
        compare_labels_and_types(c, PROTO_LABEL_NONE, PROTO_LABEL_NONE, plain_ptype(ot.value),
                                 plain_ptype(ut.value));
        break;
    }
}

static void compare_field(diff_ctx_t *c, const proto_field_t *o, const proto_field_t *u)
{
    /* A new name is compatible: the backward check need not even compare them. */
    if (!c->incompatible_only && strcmp(o->name, u->name) != 0)
        add_change(c, PROTO_FIELD_NAME_CHANGED);
    compare_labels_and_types(c, o->label, u->label, field_ptype(o), field_ptype(u));
}

/* Every field of a message by tag, top level and oneof members alike. */
typedef struct tagged {
    int32_t tag;
    const proto_field_t *field;
    const char *oneof; /* NULL at top level */
    size_t order;      /* insertion order: a later duplicate tag wins */
} tagged_t;

typedef struct field_index {
    tagged_t *items;
    size_t n;
} field_index_t;

static int compare_tagged(const void *a, const void *b)
{
    const tagged_t *x = a, *y = b;
    if (x->tag != y->tag)
        return x->tag < y->tag ? -1 : 1;
    return x->order < y->order ? -1 : x->order > y->order;
}

static int index_fields(const proto_message_t *m, field_index_t *idx)
{
    size_t total = m->n_fields;
    for (size_t i = 0; i < m->n_oneofs; i++)
        total += m->oneofs[i]->n_fields;
    idx->items = malloc((total ? total : 1) * sizeof *idx->items);
    if (!idx->items)
        return -1;
    size_t n = 0;
    for (size_t i = 0; i < m->n_fields; i++, n++)
        idx->items[n] = (tagged_t){m->fields[i]->tag, m->fields[i], NULL, n};
    for (size_t i = 0; i < m->n_oneofs; i++)
        for (size_t j = 0; j < m->oneofs[i]->n_fields; j++, n++)
            idx->items[n] =
                (tagged_t){m->oneofs[i]->fields[j]->tag, m->oneofs[i]->fields[j], m->oneofs[i]->name, n};
    /* Fields are mostly declared in tag order: then the sort has nothing to do. */
    size_t sorted = 1;
    while (sorted < n && compare_tagged(&idx->items[sorted - 1], &idx->items[sorted]) < 0)
        sorted++;
    if (sorted < n)
        qsort(idx->items, n, sizeof *idx->items, compare_tagged);
    /* Keep the last entry of each tag, as a HashMap put would. */
    size_t w = 0;
    for (size_t r = 0; r < n; r++) {
        if (w > 0 && idx->items[w - 1].tag == idx->items[r].tag)
            w--;
        idx->items[w++] = idx->items[r];
    }
    idx->n = w;
    return 0;
}

static const tagged_t *find_tag(const field_index_t *idx, int32_t tag)
{
    size_t lo = 0, hi = idx->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (idx->items[mid].tag < tag)
            lo = mid + 1;
        else if (idx->items[mid].tag > tag)
            hi = mid;
        else
            return &idx->items[mid];
    }
    return NULL;
}

/* A message's oneofs by name, sorted; of two with one name the last counts
 * (a HashMap). deleted: gone by name with none of its members left anywhere
 * in the update -- a complete, compatible deletion. */
typedef struct oneof_entry {
    const char *name;
    const proto_oneof_t *oneof;
    size_t pos;
    int deleted;
} oneof_entry_t;

typedef struct oneof_index {
    oneof_entry_t *items;
    size_t n;
} oneof_index_t;

static int compare_oneof_entries(const void *a, const void *b)
{
    const oneof_entry_t *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int index_oneofs(const proto_message_t *m, oneof_index_t *idx)
{
    idx->items = malloc((m->n_oneofs + 1) * sizeof *idx->items);
    if (!idx->items)
        return -1;
    for (size_t i = 0; i < m->n_oneofs; i++)
        idx->items[i] = (oneof_entry_t){m->oneofs[i]->name, m->oneofs[i], i, 0};
    qsort(idx->items, m->n_oneofs, sizeof *idx->items, compare_oneof_entries);
    size_t w = 0;
    for (size_t r = 0; r < m->n_oneofs; r++) {
        if (w > 0 && strcmp(idx->items[w - 1].name, idx->items[r].name) == 0)
            w--;
        idx->items[w++] = idx->items[r];
    }
    idx->n = w;
    return 0;
}

static oneof_entry_t *lookup_oneof(const oneof_index_t *idx, const char *name)
{
    size_t lo = 0, hi = idx->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(idx->items[mid].name, name);
        if (c == 0)
            return &idx->items[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static void mark_deleted_oneofs(oneof_index_t *orig, const oneof_index_t *upd, const field_index_t *ui)
{
    for (size_t i = 0; i < orig->n; i++) {
        oneof_entry_t *e = &orig->items[i];
        e->deleted = lookup_oneof(upd, e->name) == NULL;
        for (size_t k = 0; e->deleted && k < e->oneof->n_fields; k++)
            e->deleted = find_tag(ui, e->oneof->fields[k]->tag) == NULL;
    }
}

static int compare_names(const void *a, const void *b);

/* Newly mutually exclusive fields: members of an update oneof coming from
 * more than one original group (a oneof, or a top-level field each). */
static void check_oneof_merges(diff_ctx_t *c, const proto_message_t *upd, const field_index_t *oi)
{
    for (size_t i = 0; i < upd->n_oneofs; i++) {
        const proto_oneof_t *o = upd->oneofs[i];
        const char **groups = malloc((o->n_fields + 1) * sizeof *groups);
        if (!groups) {
            c->failed = 1;
            return;
        }
        size_t n = 0, moved_in = 0;
        for (size_t j = 0; j < o->n_fields; j++) {
            const tagged_t *t = find_tag(oi, o->fields[j]->tag);
            if (!t)
                continue; /* brand new: old data never set it */
            if (!t->oneof) {
                moved_in++;
                groups[n++] = tag_text(c, t->tag); /* "7": no oneof name is a number */
            } else {
                groups[n++] = arena_printf(c->arena, "%s.", t->oneof);
            }
            if (!groups[n - 1])
                n--, c->failed = 1;
        }
        qsort(groups, n, sizeof *groups, compare_names);
        size_t distinct = 0;
        for (size_t k = 0; k < n; k++)
            distinct += k == 0 || strcmp(groups[k], groups[k - 1]) != 0;
        if (distinct > 1)
            add_change_at(c, o->name,
                          moved_in > 1 ? PROTO_MULTIPLE_FIELDS_MOVED_TO_ONEOF
                                       : PROTO_FIELD_MOVED_TO_EXISTING_ONEOF);
        free(groups);
    }
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* ONEOF_REMOVED / ONEOF_ADDED by name, in sorted name order. */
static void check_oneof_names(diff_ctx_t *c, const oneof_index_t *o, const oneof_index_t *u)
{
    for (size_t i = 0, j = 0; i < o->n || j < u->n;) {
        int cmp = i == o->n ? 1 : j == u->n ? -1 : strcmp(o->items[i].name, u->items[j].name);
        if (cmp < 0)
            add_change_at(c, o->items[i].name, PROTO_ONEOF_REMOVED);
        else if (cmp > 0)
            add_change_at(c, u->items[j].name, PROTO_ONEOF_ADDED);
        i += cmp <= 0;
        j += cmp >= 0;
    }
}

static void add_field_change(diff_ctx_t *c, const char *oneof, int32_t tag, proto_change_type_t type)
{
    mark_t m = oneof ? enter_path(c, oneof) : (mark_t){c->path.n, c->names.n};
    add_change_at_tag(c, tag, type);
    leave(c, m);
}

static int pair_kind(const diff_ctx_t *c, const side_t *s, const proto_field_t *f)
{
    if (f->map_key)
        return PROTO_PAIR_MAP;
    if (proto_is_scalar(f->type))
        return PROTO_PAIR_SCALAR;
    const proto_symbol_t *sym = resolve(c, s, f->type);
    if (sym && sym->kind == PROTO_SYMBOL_ENUM)
        return PROTO_PAIR_ENUM;
    return sym && sym->is_map_entry ? PROTO_PAIR_MAP : PROTO_PAIR_MESSAGE;
}

/* Records the pair at the current path (the field's), after its own differences. */
static void add_pair(diff_ctx_t *c, const char *prefix, const tagged_t *o, const tagged_t *u)
{
    proto_field_pairs_t *p = c->pairs;
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 16;
        proto_field_pair_t *items = realloc(p->items, cap * sizeof *items);
        if (!items) {
            c->failed = 1;
            return;
        }
        p->items = items;
        p->cap = cap;
    }
    strbuf_t col = {0};
    if (prefix && *prefix) {
        strbuf_puts(&col, prefix);
        strbuf_putc(&col, '.');
    }
    strbuf_puts(&col, u->field->name);
    proto_field_pair_t pair = {
        .path = path_text(c, "#/", '/'),
        .column = strbuf_take(&col),
        .orig = o->field,
        .update = u->field,
        .orig_syntax = c->orig.syntax,
        .update_syntax = c->upd.syntax,
        .orig_oneof = o->oneof != NULL,
        .update_oneof = u->oneof != NULL,
        .orig_kind = pair_kind(c, &c->orig, o->field),
        .update_kind = pair_kind(c, &c->upd, u->field),
        .after = c->out->n,
    };
    if (!pair.path || !pair.column || !prefix) {
        free(pair.path);
        free(pair.column);
        c->failed = 1;
        return;
    }
    p->items[p->n++] = pair;
}

static void compare_one_tag(diff_ctx_t *c, const oneof_index_t *orig_oneofs, const tagged_t *o,
                            const tagged_t *u)
{
    if (!u) {
        const oneof_entry_t *e = o->oneof ? lookup_oneof(orig_oneofs, o->oneof) : NULL;
        if (!o->oneof)
            add_field_change(c, NULL, o->tag,
                             o->field->label == PROTO_LABEL_REQUIRED ? PROTO_REQUIRED_FIELD_REMOVED
                                                                     : PROTO_FIELD_REMOVED);
        else if (!e || !e->deleted)
            add_field_change(c, o->oneof, o->tag, PROTO_ONEOF_FIELD_REMOVED);
        return;
    }
    if (!o) {
        if (u->oneof)
            add_field_change(c, u->oneof, u->tag, PROTO_ONEOF_FIELD_ADDED);
        else
            add_field_change(c, NULL, u->tag,
                             u->field->label == PROTO_LABEL_REQUIRED ? PROTO_REQUIRED_FIELD_ADDED
                                                                     : PROTO_FIELD_ADDED);
        return;
    }
    if (o->oneof && !u->oneof)
        add_field_change(c, NULL, u->tag, PROTO_ONEOF_FIELD_MOVED_TO_TOP_LEVEL);
    char *column = c->pairs ? path_text(c, "", '.') : NULL;
    mark_t m = u->oneof ? enter_path(c, u->oneof) : (mark_t){c->path.n, c->names.n};
    mark_t m2 = enter_tag(c, u->tag);
    compare_field(c, o->field, u->field);
    if (c->pairs)
        add_pair(c, column, o, u);
    free(column);
    leave(c, m2);
    leave(c, m);
}

static void compare_fields(diff_ctx_t *c, const proto_message_t *orig, const proto_message_t *upd)
{
    field_index_t oi = {0}, ui = {0};
    oneof_index_t oo = {0}, uo = {0};
    if (index_fields(orig, &oi) != 0 || index_fields(upd, &ui) != 0 || index_oneofs(orig, &oo) != 0 ||
        index_oneofs(upd, &uo) != 0) {
        c->failed = 1;
        goto done;
    }
    mark_deleted_oneofs(&oo, &uo, &ui);
    check_oneof_merges(c, upd, &oi);
    check_oneof_names(c, &oo, &uo);
    /* Both indexes are sorted by tag: walk them like a merge. */
    size_t i = 0, j = 0;
    while (i < oi.n || j < ui.n) {
        const tagged_t *o = i < oi.n ? &oi.items[i] : NULL;
        const tagged_t *u = j < ui.n ? &ui.items[j] : NULL;
        if (o && u && o->tag == u->tag) {
            i++, j++;
        } else if (o && (!u || o->tag < u->tag)) {
            u = NULL;
            i++;
        } else {
            o = NULL;
            j++;
        }
        compare_one_tag(c, &oo, o, u);
    }
done:
    free(oi.items);
    free(ui.items);
    free(oo.items);
    free(uo.items);
}

static int guarded(const diff_ctx_t *c, const proto_message_t *m)
{
    for (size_t i = 0; i < c->n_guard; i++)
        if (c->guard[i] == m)
            return 1;
    return 0;
}

static void compare_message(diff_ctx_t *c, const proto_message_t *orig, const proto_message_t *upd)
{
    /* A message already being compared up the stack (recursive types) has
     * its fields skipped; its nested types are still compared. */
    int entered = !guarded(c, orig);
    if (entered) {
        if (c->n_guard == c->cap_guard) {
            size_t cap = c->cap_guard ? c->cap_guard * 2 : 8;
            const proto_message_t **g = realloc(c->guard, cap * sizeof *g);
            if (!g) {
                c->failed = 1;
                return;
            }
            c->guard = g;
            c->cap_guard = cap;
        }
        c->guard[c->n_guard++] = orig;
        compare_fields(c, orig, upd);
    }
    compare_types(c, orig->types, orig->n_types, upd->types, upd->n_types);
    if (entered)
        c->n_guard--;
}

typedef struct numbered {
    int32_t tag;
    const proto_enum_value_t *value;
    size_t pos;
} numbered_t;

static int compare_numbered(const void *a, const void *b)
{
    const numbered_t *x = a, *y = b;
    if (x->tag != y->tag)
        return x->tag < y->tag ? -1 : 1;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

/* An enum's values by number, sorted; of several with one number the last
 * counts, as a HashMap keyed by number keeps it. */
static numbered_t *index_values(const proto_enum_t *e, size_t *n)
{
    numbered_t *v = malloc((e->n_values + 1) * sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < e->n_values; i++)
        v[i] = (numbered_t){e->values[i]->tag, e->values[i], i};
    qsort(v, e->n_values, sizeof *v, compare_numbered);
    size_t w = 0;
    for (size_t r = 0; r < e->n_values; r++) {
        if (w > 0 && v[w - 1].tag == v[r].tag)
            w--;
        v[w++] = v[r];
    }
    *n = w;
    return v;
}

static void compare_enum(diff_ctx_t *c, const proto_enum_t *orig, const proto_enum_t *upd)
{
    size_t no = 0, nu = 0;
    numbered_t *o = index_values(orig, &no), *u = index_values(upd, &nu);
    if (!o || !u) {
        c->failed = 1;
        free(o);
        free(u);
        return;
    }
    for (size_t i = 0, j = 0; i < no || j < nu;) {
        if (j == nu || (i < no && o[i].tag < u[j].tag)) {
            add_change_at_tag(c, o[i++].tag, PROTO_ENUM_CONST_REMOVED);
        } else if (i == no || u[j].tag < o[i].tag) {
            add_change_at_tag(c, u[j++].tag, PROTO_ENUM_CONST_ADDED);
        } else {
            if (strcmp(o[i].value->name, u[j].value->name) != 0)
                add_change_at_tag(c, o[i].tag, PROTO_ENUM_CONST_CHANGED);
            i++, j++;
        }
    }
    free(o);
    free(u);
}

/* A type list's messages (or enums) by simple name, sorted; a later
 * definition of a name wins, as in a HashMap. index: among messages. */
typedef struct named {
    const char *name;
    const proto_type_t *type;
    long index;
    size_t pos;
} named_t;

static int compare_named(const void *a, const void *b)
{
    const named_t *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static const char *type_name(const proto_type_t *t)
{
    return t->kind == PROTO_TYPE_MESSAGE ? t->message->name : t->enumeration->name;
}

static named_t *index_types(proto_type_t *const *types, size_t n, proto_type_kind_t kind, size_t *count)
{
    named_t *v = malloc((n + 1) * sizeof *v);
    if (!v)
        return NULL;
    size_t m = 0;
    long messages = 0;
    for (size_t i = 0; i < n; i++) {
        if (types[i]->kind == PROTO_TYPE_MESSAGE)
            messages++;
        if (types[i]->kind == kind)
            v[m++] = (named_t){type_name(types[i]), types[i], messages - 1, i};
    }
    qsort(v, m, sizeof *v, compare_named);
    size_t w = 0;
    for (size_t r = 0; r < m; r++) {
        if (w > 0 && strcmp(v[w - 1].name, v[r].name) == 0)
            w--;
        v[w++] = v[r];
    }
    *count = w;
    return v;
}

static void compare_named_message(diff_ctx_t *c, const char *name, const named_t *o, const named_t *u)
{
    mark_t m = enter_name(c, name);
    if (!u) {
        const proto_symbol_t *s = resolve(c, &c->orig, name);
        if (s && !s->is_map_entry)
            add_change(c, PROTO_MESSAGE_REMOVED);
    } else if (!o) {
        const proto_symbol_t *s = resolve(c, &c->upd, name);
        if (s && !s->is_map_entry)
            add_change(c, PROTO_MESSAGE_ADDED);
    } else {
        compare_message(c, o->type->message, u->type->message);
        if (o->index != u->index)
            add_change(c, PROTO_MESSAGE_MOVED);
    }
    leave(c, m);
}

static void compare_named_enum(diff_ctx_t *c, const char *name, const named_t *o, const named_t *u)
{
    mark_t m = enter_name(c, name);
    if (!u)
        add_change(c, PROTO_ENUM_REMOVED);
    else if (!o)
        add_change(c, PROTO_ENUM_ADDED);
    else
        compare_enum(c, o->type->enumeration, u->type->enumeration);
    leave(c, m);
}

/* Procedure T: messages by simple name (then their index), then enums. */
static void compare_types(diff_ctx_t *c, proto_type_t *const *orig, size_t no, proto_type_t *const *upd,
                          size_t nu)
{
    for (int kind = PROTO_TYPE_MESSAGE; kind <= PROTO_TYPE_ENUM && !c->failed; kind++) {
        size_t n_o = 0, n_u = 0;
        named_t *o = index_types(orig, no, (proto_type_kind_t)kind, &n_o);
        named_t *u = index_types(upd, nu, (proto_type_kind_t)kind, &n_u);
        if (!o || !u) {
            c->failed = 1;
        } else {
            for (size_t i = 0, j = 0; (i < n_o || j < n_u) && !c->failed;) {
                int cmp = i == n_o ? 1 : j == n_u ? -1 : strcmp(o[i].name, u[j].name);
                const named_t *a = cmp <= 0 ? &o[i] : NULL, *b = cmp >= 0 ? &u[j] : NULL;
                const char *name = a ? a->name : b->name;
                if (kind == PROTO_TYPE_MESSAGE)
                    compare_named_message(c, name, a, b);
                else
                    compare_named_enum(c, name, a, b);
                i += a != NULL;
                j += b != NULL;
            }
        }
        free(o);
        free(u);
    }
}

/* ---- Entry points
 * ------------------------------------------------------------------------------ */

static int diff_run(const proto_schema_t *original, const proto_schema_t *update, proto_changes_t *out,
                    proto_field_pairs_t *pairs, int incompatible_only)
{
    hmap_t memo = {0};
    const proto_file_t *of = proto_schema_file(original), *uf = proto_schema_file(update);
    diff_ctx_t c = {
        .incompatible_only = incompatible_only,
        .memo = &memo,
        .orig = {proto_schema_symtab(original), proto_schema_package(original), of->syntax,
                 !proto_symtab_shadows_scalars(proto_schema_symtab(original))},
        .upd = {proto_schema_symtab(update), proto_schema_package(update), uf->syntax,
                !proto_symtab_shadows_scalars(proto_schema_symtab(update))},
        .out = out,
        .pairs = pairs,
        .arena = arena_new(),
    };
    if (!c.arena)
        return -1;
    if (strcmp(of->package ? of->package : "", uf->package ? uf->package : "") != 0)
        add_change(&c, PROTO_PACKAGE_CHANGED);
    compare_types(&c, of->types, of->n_types, uf->types, uf->n_types);
    free(c.path.items);
    free(c.names.items);
    free(c.guard);
    hmap_clear(&memo);
    arena_free(c.arena);
    return c.failed ? -1 : 0;
}

int proto_diff_changes(const proto_schema_t *original, const proto_schema_t *update, proto_changes_t *out)
{
    return diff_run(original, update, out, NULL, 0);
}

int proto_diff_changes_paired(const proto_schema_t *original, const proto_schema_t *update,
                              proto_changes_t *out, proto_field_pairs_t *pairs)
{
    return diff_run(original, update, out, pairs, 0);
}

int proto_diff(const proto_schema_t *original, const proto_schema_t *update, strlist_t *changes)
{
    proto_changes_t list = {0};
    int rc = proto_diff_changes(original, update, &list);
    for (size_t i = 0; i < list.n && rc == 0; i++)
        rc = strlist_pushf(changes, "%s %s", proto_change_type_name(list.items[i].type), list.items[i].path);
    proto_changes_clear(&list);
    return rc;
}

/* Confluent's description templates (protobuf.diff.Difference); %s are the two roles. */
static const char *description_format(proto_change_type_t type)
{
    switch (type) {
    case PROTO_PACKAGE_CHANGED:
        return "The package at '%1$s' in the %%s schema does not match the package in the %%s schema";
    case PROTO_MESSAGE_REMOVED:
        return "The %%s schema is missing a MESSAGE type at path '%1$s' in the %%s schema";
    case PROTO_FIELD_KIND_CHANGED:
        return "The type of a field at path '%1$s' in the %%s schema does not match the %%s schema";
    case PROTO_FIELD_SCALAR_KIND_CHANGED:
        return "The kind of a SCALAR field at path '%1$s' in the %%s schema does not match its "
               "kind in the %%s schema";
    case PROTO_FIELD_NAMED_TYPE_CHANGED:
        return "The type of a MESSAGE field at path '%1$s' in the %%s schema does not match its "
               "type in the %%s schema";
    case PROTO_FIELD_NUMERIC_LABEL_CHANGED:
        return "The label for a NUMERIC field at path '%1$s' in the %%s schema does not match its "
               "label in the %%s schema";
    case PROTO_REQUIRED_FIELD_ADDED:
        return "A required field  at path '%1$s' in the %%s schema is missing in the %%s schema";
    case PROTO_REQUIRED_FIELD_REMOVED:
        return "The %%s schema is missing a required field at path: '%1$s' in the %%s schema";
    case PROTO_ONEOF_FIELD_REMOVED:
        return "The %%s schema is missing a oneof field at path '%1$s' in the %%s schema";
    case PROTO_ONEOF_FIELD_MOVED_TO_TOP_LEVEL:
        return "The oneof field at path '%1$s' in the %%s schema was moved out of its oneof to a "
               "top-level field in the %%s schema";
    case PROTO_MULTIPLE_FIELDS_MOVED_TO_ONEOF:
        return "Multiple fields in the oneof at path '%1$s' in the %%s schema are outside a oneof "
               "in the %%s schema";
    case PROTO_FIELD_MOVED_TO_EXISTING_ONEOF:
        return "A field in the oneof at path '%1$s' in the %%s schema is outside an existing oneof "
               "in the %%s schema";
    default: return "";
    }
}

char *proto_change_message(const proto_change_t *change)
{
    strbuf_t b = {0};
    strbuf_printf(&b, "{errorType:\"%s\", description:\"", proto_change_type_name(change->type));
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
    const char *fmt = description_format(change->type);
    if (*fmt)
        strbuf_printf(&b, fmt, change->path);
#pragma GCC diagnostic pop
    strbuf_puts(&b, "\"}");
    return strbuf_take(&b);
}

int proto_backward(const proto_schema_t *update, const proto_schema_t *original, strlist_t *out)
{
    proto_changes_t list = {0};
    int rc = diff_run(original, update, &list, NULL, 1);
    for (size_t i = 0; i < list.n && rc == 0; i++)
        rc = strlist_push_owned(out, proto_change_message(&list.items[i]));
    proto_changes_clear(&list);
    return rc;
}
