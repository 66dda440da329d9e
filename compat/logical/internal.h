/*
 * logical/internal.h: what the logical_*.c files share and callers never see.
 *
 * Contents
 *   1. Building a model (logical_model.c)
 *   2. Reading a model: named types, cycles, rendering (logical_model.c)
 *   3. Walks: paths and findings (logical_model.c)
 *   4. The converters, one file per format (logical_avro.c, logical_proto.c, logical_from_json.c),
 *      and the state they share (logical_model.c)
 */
#ifndef COMPAT_LOGICAL_INTERNAL_H
#define COMPAT_LOGICAL_INTERNAL_H

#include "compat/logical/logical.h"
#include "base/strbuf.h"

/* ---- 1. Building ------------------------------------------------------------ */

/* An empty model (root NULL), or NULL when out of memory. */
logical_model_t *logical_model_new(void);
/* A zeroed node of kind in m's arena, nullable as given; NULL when out of memory. */
logical_node_t *logical_node_new(logical_model_t *m, logical_kind_t kind, int nullable);
/* Binds name to body (replacing a placeholder). 0, or -1. */
int logical_named_put(logical_model_t *m, const char *name, const logical_node_t *body);

/*
 * What every converter carries, first in its own state: the model it builds,
 * the converter's exception message (malloc'd; the first one wins) and
 * whether memory ran out.
 */
typedef struct logical_conv {
    logical_model_t *m;
    char *error;
    int oom;
} logical_conv_t;

/* Records the message (unless one is recorded or memory ran out); NULL, to return at once. */
const logical_node_t *logical_conv_fail(logical_conv_t *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* logical_node_new in c's model; NULL (and c->oom) when out of memory. */
logical_node_t *logical_conv_node(logical_conv_t *c, logical_kind_t kind, int nullable);
/* How a conversion ends (failed: the converter says so): 0 with the model in *out; 1 with the
 * message in *error (malloc'd); -1 out of memory. A failed conversion's model is freed. */
int logical_conv_finish(logical_conv_t *c, int failed, logical_model_t **out, char **error);
/* LogicalType's createMapLikeType: a MAP of key and value, or with multiset a MULTISET of key,
 * whose value must then be the INT count (else the converter's message); NULL on failure. */
const logical_node_t *logical_conv_map_like(logical_conv_t *c, int nullable, const logical_node_t *key,
                                            const logical_node_t *value, int multiset);

/* ---- 2. Reading --------------------------------------------------------------- */

/* The body bound to name, or NULL. */
const logical_node_t *logical_named_get(const logical_model_t *m, const char *name);
/* 1 when name's body is defined at all (a placeholder counts). */
int logical_named_has(const logical_model_t *m, const char *name);
/* CompatibilityChecker.resolve: follows references to a definition; a reference that does not
 * resolve (or a cycle of references) is returned as it is. */
const logical_node_t *logical_resolve(const logical_model_t *m, const logical_node_t *n);
/* LogicalType.isCyclic: name's body reaches name again through named-type references. 1, 0, or -1. */
int logical_is_cyclic(const logical_model_t *m, const char *name);
/* CompatibilityChecker.render ("DECIMAL(10, 2)", "VARCHAR(2147483647)", "ref(a.B)", "STRUCT"). */
void logical_render(strbuf_t *b, const logical_node_t *n);
/* Schema.toDdl ("INT NOT NULL", "STRING", "MAP<STRING NOT NULL, INT>"). */
void logical_ddl(strbuf_t *b, const logical_node_t *n);
/* Schema.Type's name ("TIMESTAMP_LTZ"). */
const char *logical_kind_name(logical_kind_t k);

/* ---- 3. Walks ------------------------------------------------------------------ */

/* A dot-joined path: "[]" for an element, "{}" for a map value, "{key}" for a map key. push
 * returns the length to pop back to. */
size_t logical_path_child(strbuf_t *path, const char *name);
size_t logical_path_suffix(strbuf_t *path, const char *suffix);
void logical_path_pop(strbuf_t *path, size_t len);

/* One finding as Incompatibility/Invalidity.toString renders it. 0, or -1. */
int logical_finding(strlist_t *out, const char *rule, const strbuf_t *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Nesting beyond which a walk stops (a chain of named types, each referring to the one defined
 * before it, nests deeper than any one definition): the walk then reports it and gives up. */
#define LOGICAL_MAX_WALK_DEPTH 1000

/* ---- 4. Converters --------------------------------------------------------------- */

struct avro_model;
struct proto_schema;
struct jsonschema;
/* AvroToLogicalTypeConverter.toLogicalType: as logical_from_schema. */
int logical_from_avro(const struct avro_model *avro, logical_model_t **out, char **error);
/* ProtoToLogicalTypeConverter.toLogicalType: as logical_from_schema (2 for a file of public
 * imports only, whose type this registry does not resolve). */
int logical_from_protobuf(const struct proto_schema *schema, logical_model_t **out, char **error);
/* JsonToLogicalTypeConverter.toLogicalType (the V2 edition): as logical_from_schema. */
int logical_from_json(const struct jsonschema *schema, logical_model_t **out, char **error);

#endif
