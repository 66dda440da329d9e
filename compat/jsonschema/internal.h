/*
 * jsonschema/internal.h: what the jsonschema_*.c files share and callers
 * never see.
 *
 * Contents
 *   1. JSON values (jsonschema_json.c): the document as written, numbers kept as text
 *   2. The parsed schema and the loading state
 *   3. Nodes and keyword checks (jsonschema_node.c)
 *   4. The loaders (jsonschema_load.c, jsonschema_load_modern.c)
 *   5. $ref and $id (jsonschema_ref.c)
 *   6. The diff's context (jsonschema_diff*.c)
 */
#ifndef COMPAT_JSONSCHEMA_INTERNAL_H
#define COMPAT_JSONSCHEMA_INTERNAL_H

#include <stddef.h>

#include "compat/jsonschema/jsonschema.h"
#include "base/hmap.h"

/* ---- 1. JSON values --------------------------------------------------- */

/* The value types (jsonschema_json_t and its kinds) are in jsonschema.h section 4. */

/* Grows *items (elements of elem_size bytes, *cap of them) to hold need;
 * 0, or -1 when out of memory (*items unchanged). Shared by every file. */
int jsonschema_grow(void **items, size_t *cap, size_t need, size_t elem_size);

/* Deepest nesting accepted (Jackson's default limit). */
#define JSONSCHEMA_JSON_MAX_DEPTH 1000

/* Names in one object from which lookups by name go through a base/hmap.h
 * map instead of a scan: an object's keys while parsing, a node's properties
 * and required names. Below it a scan costs less than hashing. */
#define JSONSCHEMA_INDEX_MIN 16

/* Strict JSON plus NaN/Infinity; duplicate keys: the last value wins, in
 * the first one's place. Returns NULL and *error (malloc'd) on failure. */
jsonschema_json_t *jsonschema_json_parse(const char *text, size_t len, char **error);
void jsonschema_json_free(jsonschema_json_t *v);
/* Sorts every object's members by key in Java (UTF-16) order, recursively. */
void jsonschema_json_sort_keys(jsonschema_json_t *v);
/* Structural equality; object members match by key in any order. */
int jsonschema_json_equal(const jsonschema_json_t *a, const jsonschema_json_t *b);
/* "object", "string", ... for error messages. */
const char *jsonschema_json_kind_name(jsonschema_json_kind_t kind);

/* ---- 2. The parsed schema and the loading state ----------------------- */

/* Everything a parse builds, freed together by jsonschema_free(). */
struct jsonschema {
    jsonschema_draft_t draft;
    jsonschema_json_t *doc;
    jsonschema_json_t **ref_docs; /* parsed texts of the references, refs order */
    char **ref_names;             /* their names (copied) */
    size_t nref_docs;
    jsonschema_node_t *root;
    jsonschema_node_t **nodes; /* every node, for freeing */
    size_t nnodes, nodes_cap;
    char **strings; /* strings the model points into, for freeing */
    size_t nstrings, strings_cap;
    char *canonical;
};

/* Loading state shared by the loaders and the $ref resolver. */
typedef struct jsonschema_loader {
    jsonschema_t *schema;
    char path[512]; /* keyword path of the value being loaded, for errors */
    size_t path_len;
    char *error;                        /* first error (malloc'd) */
    int depth;                          /* schemas being loaded inside each other */
    struct jsonschema_pending *pending; /* $refs waiting for their targets */
    size_t npending, pending_cap;
    struct jsonschema_resource *resources; /* documents, $id'd subschemas, anchors */
    size_t nresources, resources_cap;
} jsonschema_loader_t;

/* ---- 3. Nodes and keyword checks -------------------------------------- */

jsonschema_node_t *jsonschema_node_new(jsonschema_t *s, jsonschema_kind_t kind);
int jsonschema_keep_string(jsonschema_t *s, char *owned);
int jsonschema_node_add_sub(jsonschema_node_t *n, jsonschema_node_t *sub);
int jsonschema_node_add_prop(jsonschema_node_t *n, jsonschema_str_t name, jsonschema_node_t *sub);
int jsonschema_node_add_pattern(jsonschema_node_t *n, jsonschema_str_t re, jsonschema_node_t *sub);
int jsonschema_node_add_required(jsonschema_node_t *n, jsonschema_str_t name);
int jsonschema_node_add_dep_schema(jsonschema_node_t *n, jsonschema_str_t name, jsonschema_node_t *sub);
int jsonschema_node_add_dep_name(jsonschema_node_t *n, jsonschema_str_t name, jsonschema_str_t dep);
/* Frees what the lookups by name hold (jsonschema_free). */
void jsonschema_node_free_indexes(jsonschema_node_t *n);
int jsonschema_node_add_tuple(jsonschema_node_t *n, jsonschema_node_t *item);
int jsonschema_node_add_value(jsonschema_node_t *n, const jsonschema_json_t *v);
/* EMPTY or TRUE. */
int jsonschema_node_is_empty(const jsonschema_node_t *n);

/* Errors and keyword checks; each returns 0, or -1 after recording the error. */
int jsonschema_fail(jsonschema_loader_t *ld, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
size_t jsonschema_path_push(jsonschema_loader_t *ld, const char *seg, size_t seg_len);
void jsonschema_path_pop(jsonschema_loader_t *ld, size_t mark);
int jsonschema_want(jsonschema_loader_t *ld, const char *kw, const jsonschema_json_t *v,
                    jsonschema_json_kind_t kind);
int jsonschema_want_number(jsonschema_loader_t *ld, const char *kw, const jsonschema_json_t *v);
int jsonschema_want_int(jsonschema_loader_t *ld, const char *kw, const jsonschema_json_t *v,
                        jsonschema_int_t *out);
int jsonschema_want_string_array(jsonschema_loader_t *ld, const char *kw, const jsonschema_json_t *v);
jsonschema_str_t jsonschema_str_of(const jsonschema_json_t *v);

/* ---- 4. The loaders --------------------------------------------------- */

/* Deepest nesting of schemas the loaders accept (keeps stack use bounded). */
#define JSONSCHEMA_MAX_SCHEMA_DEPTH 256

/* One value into a node, 2019-09 and 2020-12 (drafts 4-7 are static in jsonschema_load.c). */
jsonschema_node_t *jsonschema_load_modern(jsonschema_loader_t *ld, const jsonschema_json_t *v,
                                          const char *base);
/* The loader for the schema's draft. */
jsonschema_node_t *jsonschema_load_value(jsonschema_loader_t *ld, const jsonschema_json_t *v,
                                         const char *base);

/* ---- 5. $ref and $id -------------------------------------------------- */

/* Base URI of a document without $id (the reference's in-memory base). */
#define JSONSCHEMA_DEFAULT_BASE "mem://input"
/* Registers doc under uri (absolute) with every $id and anchor inside it. */
int jsonschema_ref_index(jsonschema_loader_t *ld, const jsonschema_json_t *doc, const char *uri);
/* The base URI inside v when v declares an id ("$id", or "id" in draft 4);
 * kept by s, or NULL when v declares none. *oom set on allocation failure. */
const char *jsonschema_ref_rebase(const jsonschema_t *s, const char *base, const jsonschema_json_t *v,
                                  int *oom);
/* Records a $ref to resolve once the document is loaded. */
int jsonschema_ref_defer(jsonschema_loader_t *ld, jsonschema_node_t *ref_node, const char *base);
/* Resolves every deferred $ref (loading targets, which may defer more). */
int jsonschema_ref_resolve_all(jsonschema_loader_t *ld);
void jsonschema_ref_loader_free(jsonschema_loader_t *ld);
/* RFC 3986 reference resolution; malloc'd. base may be "" or NULL. */
char *jsonschema_uri_resolve(const char *base, const char *ref);

/* ---- 6. The diff's context -------------------------------------------- */

/* Confluent's Context, one per (sub)comparison. */
typedef struct jsonschema_difference {
    jsonschema_change_t type;
    char *path; /* "#/..." (owned) */
} jsonschema_difference_t;

typedef struct jsonschema_difflist {
    jsonschema_difference_t *items;
    size_t n, cap;
} jsonschema_difflist_t;

/* The memo of compared pairs (jsonschema_diff.c) and one diff run: the memo,
 * the policy, the work limits. */
typedef struct jsonschema_memo_entry {
    const jsonschema_node_t *original, *update;
    int done;                    /* 0 while the pair is being compared */
    jsonschema_difflist_t diffs; /* relative to the pair */
} jsonschema_memo_entry_t;

typedef struct jsonschema_memo {
    jsonschema_memo_entry_t *entries; /* in insertion order */
    size_t n, cap;
    hmap_t index; /* (original, update) -> position in entries, + 1 */
} jsonschema_memo_t;

typedef struct jsonschema_diffrun {
    jsonschema_policy_t policy;
    jsonschema_memo_t memo;
    const jsonschema_memo_t *seed; /* pairs a previous pass found incompatible */
    int optimism_used;
    int compare_every_pair; /* combined schemas compare all subschema pairs, in Confluent's order */
    int pairs_skipped;      /* a combined schema's matching left pairs uncompared */
    int error;              /* 0, -1 (memory) or JSONSCHEMA_DIFF_TOO_COMPLEX */
    size_t depth, steps;
} jsonschema_diffrun_t;

typedef struct jsonschema_ctx {
    jsonschema_diffrun_t *run;
    char *path; /* "#/" + segments joined by "/" */
    size_t path_len, path_cap, depth;
    jsonschema_difflist_t diffs;
} jsonschema_ctx_t;

typedef struct jsonschema_mark {
    size_t len, depth;
} jsonschema_mark_t;

void jsonschema_difflist_clear(jsonschema_difflist_t *l);
/* The typed differences of compare(original, update) (jsonschema_diff.c): what
 * jsonschema_diff prints and the change list (jsonschema_changes.c) maps.
 * Returns 0, -1 or JSONSCHEMA_DIFF_TOO_COMPLEX; *out is empty on failure. */
int jsonschema_diff_list(const jsonschema_t *original, const jsonschema_t *update, jsonschema_policy_t policy,
                         jsonschema_difflist_t *out);
/* Appends (type, owned_path), taking the path; a NULL path or no memory fails the run. */
void jsonschema_difflist_push(jsonschema_diffrun_t *run, jsonschema_difflist_t *l, jsonschema_change_t type,
                              char *owned_path);
int jsonschema_difflist_compatible(const jsonschema_difflist_t *l, jsonschema_policy_t policy);
/* Records the run's first failure (-1: memory, JSONSCHEMA_DIFF_TOO_COMPLEX). */
void jsonschema_diffrun_fail(jsonschema_diffrun_t *run, int error);
/* A context starting at parent's path (or at "#/" when parent is NULL). */
void jsonschema_ctx_init(jsonschema_ctx_t *ctx, jsonschema_diffrun_t *run, const jsonschema_ctx_t *parent);
void jsonschema_ctx_free(jsonschema_ctx_t *ctx);
jsonschema_mark_t jsonschema_ctx_push(jsonschema_ctx_t *ctx, const char *seg, size_t len);
void jsonschema_ctx_pop(jsonschema_ctx_t *ctx, jsonschema_mark_t mark);
void jsonschema_ctx_add(jsonschema_ctx_t *ctx, jsonschema_change_t type);
void jsonschema_ctx_add_at(jsonschema_ctx_t *ctx, const char *attr, jsonschema_change_t type);
/* Moves every difference of from (already on full paths) into ctx. */
void jsonschema_ctx_adopt(jsonschema_ctx_t *ctx, jsonschema_difflist_t *from);
int jsonschema_ctx_compatible(const jsonschema_ctx_t *ctx);
/* Marks the run as failed for lack of memory. */
void jsonschema_ctx_oom(jsonschema_ctx_t *ctx);
/* 1 once the run failed (out of memory, too deep, too large): stop early. */
int jsonschema_ctx_failed(const jsonschema_ctx_t *ctx);
/* SchemaDiff.compare: either side may be NULL (absent). */
void jsonschema_diff_compare(jsonschema_ctx_t *ctx, const jsonschema_node_t *original,
                             const jsonschema_node_t *update);
void jsonschema_diff_object(jsonschema_ctx_t *ctx, const jsonschema_node_t *original,
                            const jsonschema_node_t *update);
void jsonschema_diff_array(jsonschema_ctx_t *ctx, const jsonschema_node_t *original,
                           const jsonschema_node_t *update);
void jsonschema_diff_combined(jsonschema_ctx_t *ctx, const jsonschema_node_t *original,
                              const jsonschema_node_t *update);
void jsonschema_diff_scalar(jsonschema_ctx_t *ctx, const jsonschema_node_t *original,
                            const jsonschema_node_t *update);
/* unevaluatedProperties (items = 0) or unevaluatedItems (items = 1). */
/* The four changes of one numeric bound keyword (maxLength, minItems, ...). */
typedef struct jsonschema_bound_changes {
    jsonschema_change_t added, removed, increased, decreased;
} jsonschema_bound_changes_t;
/* An integer bound of o against u at keyword kw. */
void jsonschema_diff_int_bound(jsonschema_ctx_t *ctx, const char *kw, jsonschema_int_t o, jsonschema_int_t u,
                               jsonschema_bound_changes_t t);
/* Diffs a against b in a sub-context, keeps its differences, then adds yes
 * when that sub-diff was compatible (b covers a), else no. */
void jsonschema_diff_covered(jsonschema_ctx_t *ctx, const jsonschema_node_t *a, const jsonschema_node_t *b,
                             jsonschema_change_t yes, jsonschema_change_t no);
/* additionalProperties (items = 0) or additionalItems (items = 1) of o against u. */
void jsonschema_diff_additional(jsonschema_ctx_t *ctx, const jsonschema_node_t *o, const jsonschema_node_t *u,
                                int items);
void jsonschema_diff_unevaluated(jsonschema_ctx_t *ctx, const jsonschema_node_t *original,
                                 const jsonschema_node_t *update, int items);

/* JsonSchemaComparator (jsonschema_order.c): sorts n nodes in place, stably,
 * as Confluent numbers the subschemas of a combination. Each comparison,
 * nested ones included, takes one from *budget; with none left schemas
 * compare equal, so what remains keeps the written order (Confluent's
 * comparator re-sorts nested combinations at every comparison: exponential
 * on schemas built for it). 0, or -1 when out of memory (the order is then
 * unspecified). */
#define JSONSCHEMA_ORDER_BUDGET ((size_t)1000000)
int jsonschema_order_sort(const jsonschema_node_t **items, size_t n, size_t *budget);

/* A standalone load of one value (jsonschema_parse.c): its compact text
 * parsed as a document, in dflt unless it names its own "$schema". */
jsonschema_t *jsonschema_parse_value(const jsonschema_json_t *v, jsonschema_draft_t dflt, char **error);

/* Inline tags (jsonschema_tags.c): schema_engine_t.tags_edit (compat/schema.h, section 5). */
char *jsonschema_tags_edit(const char *text, size_t len, const schema_tag_edit_t *edits, size_t n,
                           char **error);
/* schema_engine_t.tagged: JsonSchema.inlineTaggedEntities of the schema's JSON. 0, or -1. */
int jsonschema_tags_list(const jsonschema_t *schema, schema_tagged_t **out, size_t *n);

#endif
