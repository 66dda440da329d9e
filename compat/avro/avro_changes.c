/*
 * avro_changes: the change list of two Avro schemas (compat/change.h,
 * docs/evolution.md "Avro").
 *
 * Contents
 *   1. Type labels and the two directions
 *   2. The walk: records by field name and alias, enums, collections, types
 *
 * What pairs with what is the resolution rule of the Avro specification
 * ("Schema Resolution"): fields match by name or by a reader alias, so a
 * new field whose alias names an old one is a rename. Whether readers
 * survive a change is never decided here: it is avro_check's answer
 * (SchemaCompatibility) on the two nodes concerned, both ways round, and for
 * fields its READER_FIELD_MISSING_DEFAULT_VALUE on the enclosing records.
 */
#include "compat/avro/internal.h"

#include <stdlib.h>
#include <string.h>

/* Nesting of record pairs the walk follows; recursive types stop at the
 * first pair already on the way down. */
#define CHANGES_MAX_DEPTH 256

/* ---- 1. Type labels and the two directions ----------------------------------------------- */

/* "int", "date", "com.acme.Address", "array<int>", "union<null,string>". */
static void label(strbuf_t *b, const avro_node_t *n, int depth)
{
    if (depth > 8) {
        strbuf_puts(b, "...");
        return;
    }
    if (n->named) {
        strbuf_puts(b, n->named->name.full);
    } else if (n->logical != AVRO_LOGICAL_NONE) {
        strbuf_puts(b, avro_logical_name(n->logical));
    } else if (n->kind == AVRO_KIND_ARRAY || n->kind == AVRO_KIND_MAP) {
        strbuf_puts(b, avro_kind_name(n->kind));
        strbuf_putc(b, '<');
        label(b, n->u.items, depth + 1);
        strbuf_putc(b, '>');
    } else if (n->kind == AVRO_KIND_UNION) {
        strbuf_puts(b, "union<");
        for (size_t i = 0; i < n->u.uni.n; i++) {
            if (i)
                strbuf_putc(b, ',');
            label(b, n->u.uni.branches[i], depth + 1);
        }
        strbuf_putc(b, '>');
    } else {
        strbuf_puts(b, avro_kind_name(n->kind));
    }
}

static char *label_of(const avro_node_t *n)
{
    strbuf_t b = {0};
    label(&b, n, 0);
    return strbuf_take(&b);
}

typedef struct walk {
    change_list_t *out;
    const avro_node_t *stack[2][CHANGES_MAX_DEPTH]; /* record pairs on the way down */
    size_t depth;
    int failed;
} walk_t;

/* avro_check on two nodes of the models: 1 when reader reads writer's data. */
static int reads(walk_t *w, const avro_node_t *reader, const avro_node_t *writer, avro_issues_t *issues)
{
    avro_model_t r = {.root = reader}, wr = {.root = writer};
    avro_issues_t local = {0};
    int rc = avro_check(&r, &wr, issues ? issues : &local);
    avro_issues_free(&local);
    if (rc < 0)
        w->failed = 1;
    return rc == 1;
}

/* "/fields/N": a reader field of the checked records themselves, not of a nested one. */
static int own_field_location(const char *loc)
{
    if (strncmp(loc, "/fields/", 8) != 0 || !loc[8])
        return 0;
    return strspn(loc + 8, "0123456789") == strlen(loc + 8);
}

/* 1 unless the check of the records reported field name as missing a
 * default at their own level. */
static int field_survives(const avro_issues_t *issues, const char *name)
{
    for (size_t i = 0; i < issues->n; i++)
        if (issues->items[i].type == AVRO_ISSUE_READER_FIELD_MISSING_DEFAULT_VALUE &&
            own_field_location(issues->items[i].location) && strcmp(issues->items[i].message, name) == 0)
            return 0;
    return !issues->exception;
}

/* The check of the records found their names apart (no alias joins them). */
static int name_mismatch(const avro_issues_t *issues)
{
    for (size_t i = 0; i < issues->n; i++)
        if (issues->items[i].type == AVRO_ISSUE_NAME_MISMATCH &&
            strcmp(issues->items[i].location, "/name") == 0)
            return 1;
    return issues->exception != NULL;
}

static void push(walk_t *w, change_kind_t kind, const char *path, const avro_node_t *o, const avro_node_t *n,
                 const char *detail, int forward, int backward)
{
    char *ot = o ? label_of(o) : NULL, *nt = n ? label_of(n) : NULL;
    if ((o && !ot) || (n && !nt) ||
        change_list_push(w->out, kind, path, ot, nt, detail, forward, backward) != 0)
        w->failed = 1;
    free(ot);
    free(nt);
}

static char *child_path(const char *path, const char *name)
{
    strbuf_t b = {0};
    if (*path) {
        strbuf_puts(&b, path);
        strbuf_putc(&b, '.');
    }
    strbuf_puts(&b, name);
    return strbuf_take(&b);
}

/* ---- 2. The walk ----------------------------------------------------------------------------- */

static void walk_types(walk_t *w, const char *path, const avro_node_t *o, const avro_node_t *n);

/* T for a union of null and T (either order), *nullable set; else the node. */
static const avro_node_t *strip_null(const avro_node_t *t, int *nullable)
{
    *nullable = t->kind == AVRO_KIND_NULL;
    if (t->kind != AVRO_KIND_UNION || t->u.uni.n != 2)
        return t;
    for (int i = 0; i < 2; i++) {
        if (t->u.uni.branches[i]->kind == AVRO_KIND_NULL) {
            *nullable = 1;
            return t->u.uni.branches[1 - i];
        }
    }
    return t;
}

static int json_text_equal(const json_t *a, const json_t *b)
{
    return (!a && !b) || (a && b && json_equal(a, b));
}

/* The old field a new one reads: by name, else by one of its aliases. */
static const avro_field_t *old_field_for(const avro_node_t *o, const avro_field_t *nf)
{
    long idx = avro_index_find(o->u.record.by_name, nf->name);
    for (size_t i = 0; idx < 0 && i < nf->n_aliases; i++)
        idx = avro_index_find(o->u.record.by_name, nf->aliases[i]);
    return idx >= 0 ? &o->u.record.fields[idx] : NULL;
}

static int new_reads_old_field(const avro_node_t *o, const avro_node_t *n, const avro_field_t *of)
{
    for (size_t i = 0; i < n->u.record.n; i++)
        if (old_field_for(o, &n->u.record.fields[i]) == of)
            return 1;
    return 0;
}

static int on_stack(const walk_t *w, const avro_node_t *o, const avro_node_t *n)
{
    for (size_t i = 0; i < w->depth; i++)
        if (w->stack[0][i] == o && w->stack[1][i] == n)
            return 1;
    return 0;
}

static void walk_record(walk_t *w, const char *path, const avro_node_t *o, const avro_node_t *n)
{
    if (on_stack(w, o, n) || w->depth == CHANGES_MAX_DEPTH)
        return;
    w->stack[0][w->depth] = o;
    w->stack[1][w->depth] = n;
    w->depth++;
    avro_issues_t fwd = {0}, bwd = {0};
    reads(w, o, n, &fwd);
    reads(w, n, o, &bwd);
    if (strcmp(o->named->name.full, n->named->name.full) != 0)
        push(w, CHANGE_NAME_CHANGED, path, o, n, NULL, !name_mismatch(&fwd), !name_mismatch(&bwd));
    for (size_t i = 0; i < n->u.record.n && !w->failed; i++) {
        const avro_field_t *nf = &n->u.record.fields[i];
        const avro_field_t *of = old_field_for(o, nf);
        char *p = child_path(path, nf->name);
        if (!p) {
            w->failed = 1;
            break;
        }
        if (!of) {
            push(w, nf->def ? CHANGE_FIELD_ADDED_WITH_DEFAULT : CHANGE_FIELD_ADDED, p, NULL, nf->type, NULL,
                 1, field_survives(&bwd, nf->name));
        } else {
            if (strcmp(of->name, nf->name) != 0)
                push(w, CHANGE_FIELD_RENAMED, p, of->type, nf->type, of->name, field_survives(&fwd, of->name),
                     field_survives(&bwd, nf->name));
            walk_types(w, p, of->type, nf->type);
            if (!json_text_equal(of->def, nf->def))
                push(w, CHANGE_DEFAULT_CHANGED, p, of->type, nf->type, NULL, 1, 1);
            if (!json_text_equal(of->doc, nf->doc))
                push(w, CHANGE_DOC_CHANGED, p, NULL, NULL, NULL, 1, 1);
        }
        free(p);
    }
    for (size_t i = 0; i < o->u.record.n && !w->failed; i++) {
        const avro_field_t *of = &o->u.record.fields[i];
        if (new_reads_old_field(o, n, of))
            continue;
        char *p = child_path(path, of->name);
        if (!p)
            w->failed = 1;
        else
            push(w, CHANGE_FIELD_REMOVED, p, of->type, NULL, NULL, field_survives(&fwd, of->name), 1);
        free(p);
    }
    avro_issues_free(&fwd);
    avro_issues_free(&bwd);
    w->depth--;
}

/* Symbols added break old readers unless the old enum has a default; removed
 * ones break new readers unless the new one has: the check of the enums in
 * that direction says which, whatever else changed in the other. */
static void walk_enum(walk_t *w, const char *path, const avro_node_t *o, const avro_node_t *n)
{
    int forward = reads(w, o, n, NULL), backward = reads(w, n, o, NULL);
    if (strcmp(o->named->name.full, n->named->name.full) != 0)
        push(w, CHANGE_NAME_CHANGED, path, o, n, NULL, forward, backward);
    for (size_t i = 0; i < n->u.enm.n; i++)
        if (avro_index_find(o->u.enm.by_name, n->u.enm.symbols[i]) < 0)
            push(w, CHANGE_ENUM_SYMBOL_ADDED, path, o, n, n->u.enm.symbols[i], forward, 1);
    for (size_t i = 0; i < o->u.enm.n; i++)
        if (avro_index_find(n->u.enm.by_name, o->u.enm.symbols[i]) < 0)
            push(w, CHANGE_ENUM_SYMBOL_REMOVED, path, o, n, o->u.enm.symbols[i], 1, backward);
    if ((o->u.enm.def == NULL) != (n->u.enm.def == NULL) ||
        (o->u.enm.def && strcmp(o->u.enm.def, n->u.enm.def) != 0))
        push(w, CHANGE_DEFAULT_CHANGED, path, o, n, NULL, 1, 1);
}

static int same_type(const avro_node_t *o, const avro_node_t *n)
{
    if (o == n)
        return 1;
    if (o->kind != n->kind || o->logical != n->logical || o->precision != n->precision ||
        o->scale != n->scale)
        return 0;
    if (o->kind == AVRO_KIND_FIXED)
        return o->u.fixed.size == n->u.fixed.size && strcmp(o->named->name.full, n->named->name.full) == 0;
    return avro_kind_is_primitive(o->kind);
}

/*
 * Any other pair: the same type, or a type change whose class is what the
 * check says both ways round. New readers reading the old values is what a
 * promotion allows (int -> long, float -> double, string <-> bytes), so that
 * direction alone makes it widened; the other alone narrowed.
 */
static void walk_types(walk_t *w, const char *path, const avro_node_t *o, const avro_node_t *n)
{
    if (w->failed)
        return;
    int o_null, n_null;
    const avro_node_t *ob = strip_null(o, &o_null), *nb = strip_null(n, &n_null);
    if (o_null != n_null && ob->kind != AVRO_KIND_NULL && nb->kind != AVRO_KIND_NULL) {
        push(w, CHANGE_NULLABILITY_CHANGED, path, o, n,
             o_null ? "nullable -> required" : "required -> nullable", reads(w, o, n, NULL),
             reads(w, n, o, NULL));
        o = ob;
        n = nb;
    } else if (o_null && n_null && ob->kind != AVRO_KIND_NULL && nb->kind != AVRO_KIND_NULL) {
        o = ob; /* both nullable: what is compared is what the null is joined to */
        n = nb;
    }
    if (o->kind == AVRO_KIND_RECORD && n->kind == AVRO_KIND_RECORD) {
        walk_record(w, path, o, n);
    } else if (o->kind == AVRO_KIND_ENUM && n->kind == AVRO_KIND_ENUM) {
        walk_enum(w, path, o, n);
    } else if (o->kind == n->kind && (o->kind == AVRO_KIND_ARRAY || o->kind == AVRO_KIND_MAP)) {
        char *p = child_path(path, o->kind == AVRO_KIND_ARRAY ? "[]" : "{}");
        if (!p)
            w->failed = 1;
        else
            walk_types(w, p, o->u.items, n->u.items);
        free(p);
    } else if (o->kind == AVRO_KIND_UNION && n->kind == AVRO_KIND_UNION && avro_node_equal(o, n)) {
        return;
    } else if (!same_type(o, n)) {
        int forward = reads(w, o, n, NULL), backward = reads(w, n, o, NULL);
        change_kind_t kind = backward && !forward   ? CHANGE_TYPE_WIDENED
                             : forward && !backward ? CHANGE_TYPE_NARROWED
                                                    : CHANGE_TYPE_CHANGED;
        push(w, kind, path, o, n, NULL, forward, backward);
    }
}

int avro_changes(const avro_model_t *old_model, const avro_model_t *new_model, change_list_t *out)
{
    walk_t *w = calloc(1, sizeof *w);
    if (!w)
        return -1;
    w->out = out;
    walk_types(w, "", old_model->root, new_model->root);
    int rc = w->failed ? -1 : 0;
    free(w);
    return rc;
}
