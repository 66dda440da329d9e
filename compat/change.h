/*
 * change: one model of the differences between two versions of a schema, in
 * the terms data engineers use for tables (docs/evolution.md): a column
 * added, renamed, dropped, widened, retyped, made nullable, and so on.
 *
 * Contents
 *   1. Change kinds
 *   2. A change and a list of them
 *   3. The one-line summary
 *
 * Every engine maps its own difference types onto these kinds
 * (schema_engine_t.changes, compat/schema.h); nothing here knows a format.
 * The two directions are the questions the compatibility levels ask:
 * forward = readers of the old schema survive data written with the new one,
 * backward = readers of the new schema survive data written with the old one.
 */
#ifndef COMPAT_CHANGE_H
#define COMPAT_CHANGE_H

#include <stddef.h>

/* ---- 1. Change kinds --------------------------------------------------- */

/* In the order the summary names them. OTHER is a format's own difference
 * with no column meaning (detail names the engine's type). */
#define CHANGE_KINDS(X)                                                                                      \
    X(FIELD_ADDED)                                                                                           \
    X(FIELD_ADDED_WITH_DEFAULT) X(FIELD_RENAMED) X(FIELD_REMOVED) X(TYPE_WIDENED) X(TYPE_NARROWED)           \
        X(TYPE_CHANGED) X(NULLABILITY_CHANGED) X(ENUM_SYMBOL_ADDED) X(ENUM_SYMBOL_REMOVED)                   \
            X(DEFAULT_CHANGED) X(DOC_CHANGED) X(NAME_CHANGED) X(OTHER)

#define CHANGE_KIND_ENUM_(name) CHANGE_##name,
typedef enum change_kind { CHANGE_KINDS(CHANGE_KIND_ENUM_) CHANGE_KIND_COUNT } change_kind_t;
#undef CHANGE_KIND_ENUM_

/* "FIELD_ADDED", ... */
const char *change_kind_name(change_kind_t kind);

/* ---- 2. A change and a list of them -------------------------------------- */

typedef struct change {
    change_kind_t kind;
    char *path;     /* column terms: "customer.address.zip"; "" for the whole schema */
    char *old_type; /* the type before and after, in the format's words; NULL when none */
    char *new_type;
    char *detail; /* the engine's own difference type, the old name of a renamed field,
                     the symbol added or removed; NULL when none */
    int forward;  /* old readers survive new data */
    int backward; /* new readers survive old data */
} change_t;

/* A zeroed list is empty. Owns its strings. */
typedef struct change_list {
    change_t *items;
    size_t n;
    size_t cap;
} change_list_t;

/* Appends a change with copies of the strings (each may be NULL; path NULL
 * is ""). Returns 0, or -1 when out of memory (the list is unchanged). */
int change_list_push(change_list_t *l, change_kind_t kind, const char *path, const char *old_type,
                     const char *new_type, const char *detail, int forward, int backward);
void change_list_clear(change_list_t *l);

/* 1 when every change keeps the direction's readers alive (an empty list too). */
int change_list_forward(const change_list_t *l);
int change_list_backward(const change_list_t *l);

/* ---- 3. The summary -------------------------------------------------------- */

/*
 * "2 columns added, 1 renamed, 1 widened; backward compatible": the counts
 * by kind in CHANGE_KINDS order, then "fully", "backward", "forward"
 * compatible or "incompatible"; "no changes; fully compatible" for none.
 * malloc'd; NULL when out of memory.
 */
char *change_summary(const change_list_t *l);

#endif
