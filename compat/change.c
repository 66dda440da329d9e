/*
 * change: the change list and its summary (compat/change.h).
 *
 * Chapters: 1. kinds  2. lists  3. the summary
 */
#include "compat/change.h"
#include "base/strbuf.h"

#include <stdlib.h>
#include <string.h>

/* ---- 1. Kinds ---------------------------------------------------------------- */

#define CHANGE_KIND_NAME_(name) #name,
static const char *const kind_names[CHANGE_KIND_COUNT] = {CHANGE_KINDS(CHANGE_KIND_NAME_)};
#undef CHANGE_KIND_NAME_

const char *change_kind_name(change_kind_t kind)
{
    return (unsigned)kind < CHANGE_KIND_COUNT ? kind_names[kind] : "UNKNOWN";
}

/* ---- 2. Lists ----------------------------------------------------------------- */

static int dup_or_null(const char *s, char **out)
{
    *out = s ? strdup(s) : NULL;
    return s && !*out ? -1 : 0;
}

int change_list_push(change_list_t *l, change_kind_t kind, const char *path, const char *old_type,
                     const char *new_type, const char *detail, int forward, int backward)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        change_t *items = realloc(l->items, cap * sizeof *items);
        if (!items)
            return -1;
        l->items = items;
        l->cap = cap;
    }
    change_t c = {.kind = kind, .forward = !!forward, .backward = !!backward};
    if (dup_or_null(path ? path : "", &c.path) || dup_or_null(old_type, &c.old_type) ||
        dup_or_null(new_type, &c.new_type) || dup_or_null(detail, &c.detail)) {
        free(c.path);
        free(c.old_type);
        free(c.new_type);
        free(c.detail);
        return -1;
    }
    l->items[l->n++] = c;
    return 0;
}

void change_list_clear(change_list_t *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->items[i].path);
        free(l->items[i].old_type);
        free(l->items[i].new_type);
        free(l->items[i].detail);
    }
    free(l->items);
    memset(l, 0, sizeof *l);
}

int change_list_forward(const change_list_t *l)
{
    for (size_t i = 0; i < l->n; i++)
        if (!l->items[i].forward)
            return 0;
    return 1;
}

int change_list_backward(const change_list_t *l)
{
    for (size_t i = 0; i < l->n; i++)
        if (!l->items[i].backward)
            return 0;
    return 1;
}

/* ---- 3. The summary --------------------------------------------------------------- */

/* How a kind is counted. Column kinds share one noun, written once at the
 * first of them ("2 columns added, 1 renamed"), the way the tutorials say
 * it; the others carry their own. The two kinds of addition count together. */
typedef struct phrase {
    int column;
    const char *one; /* the noun for 1 (column kinds: the verb) */
    const char *many;
} phrase_t;

static const phrase_t phrases[CHANGE_KIND_COUNT] = {
    [CHANGE_FIELD_ADDED] = {1, "added", "added"},
    [CHANGE_FIELD_ADDED_WITH_DEFAULT] = {1, "added", "added"},
    [CHANGE_FIELD_RENAMED] = {1, "renamed", "renamed"},
    [CHANGE_FIELD_REMOVED] = {1, "dropped", "dropped"},
    [CHANGE_TYPE_WIDENED] = {1, "widened", "widened"},
    [CHANGE_TYPE_NARROWED] = {1, "narrowed", "narrowed"},
    [CHANGE_TYPE_CHANGED] = {1, "retyped", "retyped"},
    [CHANGE_NULLABILITY_CHANGED] = {1, "nullability changed", "nullability changed"},
    [CHANGE_ENUM_SYMBOL_ADDED] = {0, "enum symbol added", "enum symbols added"},
    [CHANGE_ENUM_SYMBOL_REMOVED] = {0, "enum symbol removed", "enum symbols removed"},
    [CHANGE_DEFAULT_CHANGED] = {0, "default changed", "defaults changed"},
    [CHANGE_DOC_CHANGED] = {0, "doc changed", "docs changed"},
    [CHANGE_NAME_CHANGED] = {0, "type renamed", "types renamed"},
    [CHANGE_OTHER] = {0, "other change", "other changes"},
};

static const char *verdict(const change_list_t *l)
{
    int f = change_list_forward(l), b = change_list_backward(l);
    return f && b ? "fully compatible"
           : b    ? "backward compatible"
           : f    ? "forward compatible"
                  : "incompatible";
}

char *change_summary(const change_list_t *l)
{
    size_t count[CHANGE_KIND_COUNT] = {0};
    for (size_t i = 0; i < l->n; i++)
        if ((unsigned)l->items[i].kind < CHANGE_KIND_COUNT)
            count[l->items[i].kind]++;
    count[CHANGE_FIELD_ADDED] += count[CHANGE_FIELD_ADDED_WITH_DEFAULT];
    count[CHANGE_FIELD_ADDED_WITH_DEFAULT] = 0;
    strbuf_t b = {0};
    int noun_written = 0;
    for (int k = 0; k < CHANGE_KIND_COUNT; k++) {
        size_t n = count[k];
        if (!n)
            continue;
        if (b.len)
            strbuf_puts(&b, ", ");
        strbuf_printf(&b, "%zu ", n);
        if (phrases[k].column && !noun_written) {
            strbuf_puts(&b, n == 1 ? "column " : "columns ");
            noun_written = 1;
        }
        strbuf_puts(&b, n == 1 ? phrases[k].one : phrases[k].many);
    }
    if (!b.len)
        strbuf_puts(&b, "no changes");
    strbuf_printf(&b, "; %s", verdict(l));
    return strbuf_take(&b);
}
