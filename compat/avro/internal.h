/*
 * avro/internal.h: what the avro_*.c files share and callers never see.
 *
 * Contents
 *   1. Limits
 *   2. Arena (base/arena.h): the memory of one model or one check
 *   3. JSON input (avro_json.c) and output (avro_text.c)
 *   4. Java number semantics (avro_number.c)
 *   5. Name tables (avro_hash.c; base/hmap.h)
 *   6. Names (avro_names.c, avro_unicode.c)
 *   7. The model: nodes, fields, properties
 *   8. Operations on models, one file each (inline tags: avro_tags.c)
 *
 * The model mirrors what Avro Java builds (org.apache.avro.Schema), because
 * the canonical text, the checker's locations and even its duplicates
 * depend on that object graph: named types are shared nodes, every other
 * occurrence of a type is its own node (bare primitives excepted, see 7).
 */
#ifndef COMPAT_AVRO_INTERNAL_H
#define COMPAT_AVRO_INTERNAL_H

#include <jansson.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "compat/avro/avro.h"
#include "base/arena.h"
#include "base/hmap.h"
#include "base/strbuf.h"

/* ---- 1. Limits ----------------------------------------------------------- */

/* Nesting of schema nodes while parsing; jansson itself stops at 2048 JSON levels. */
#define AVRO_MAX_DEPTH 1000
/* Reader/writer pairs nested inside one another while checking (cycles of
 * different lengths on both sides nest deeper than either schema). The
 * checker keeps them on the heap, about 100 bytes each. */
#define AVRO_CHECK_MAX_DEPTH 100000
/* Work units (pairs computed, fields and branches visited) of one check.
 * Memory grows with them, since Avro caches every pair it tries: about
 * 40 MB at the limit, which a union of some 750 records checked against
 * itself reaches (a 100,000-field record needs a fifth of it). */
#define AVRO_CHECK_MAX_WORK 1000000L
/* Incompatibilities reported by one check; cached sub-results are repeated
 * the way Avro repeats them, which can grow exponentially on hostile input. */
#define AVRO_CHECK_MAX_ISSUES 10000
/* Text of the reported issues; locations grow with nesting depth. */
#define AVRO_CHECK_MAX_REPORT_BYTES (4L * 1024 * 1024)

/* ---- 2. Arena ------------------------------------------------------------ */

/* base/arena.h: one arena per model (avro_model_t.arena) and one per check. */

/* ---- 3. JSON input and output ------------------------------------------------ */

/* A document as Jackson reads it for Avro: strings may hold U+0000, and
 * integers beyond the int64 range keep their digits (avro_json.c). NULL and
 * *je as json_loadb. */
json_t *avro_json_load(const char *text, size_t len, json_error_t *je);
/* Jackson's textValue(): the string (its length in *len when len is not
 * NULL; it may hold U+0000), or NULL for any other JSON type. */
const char *avro_json_text(const json_t *v, size_t *len);
/* An integer beyond the int64 range (Jackson's BigIntegerNode): a number, not
 * text, to every reader; its digits (borrowed) as written, sign included. */
int avro_json_is_bigint(const json_t *v);
const char *avro_json_bigint_digits(const json_t *v);

/* A JSON string literal escaped the way Jackson escapes it (U+0000 as \u0000). */
void avro_buf_json_string(strbuf_t *b, const char *s);
void avro_buf_json_stringn(strbuf_t *b, const char *s, size_t len);
/* A JSON value printed the way Jackson's writeTree prints it (compact,
 * key order kept, doubles as Double.toString). */
void avro_buf_json_value(strbuf_t *b, const json_t *v);

/* ---- 4. Java number semantics ---------------------------------------------- */

/* Double.toString / Float.toString ("1.0", "1.0E-4", "NaN", "-Infinity"). */
void avro_buf_java_double(strbuf_t *b, double v);
void avro_buf_java_float(strbuf_t *b, float v);
/* Double.parseDouble: 0 and *out on success, -1 when Java would throw. */
int avro_java_parse_double(const char *s, double *out);

/* ---- 5. Name tables -------------------------------------------------------- */

/* Every table is base/hmap.h, whose keyed hash bounds crafted names. A
 * string -> index table built once in a model's arena (fields by name, enum
 * symbols, union branch names, aliases), sized for n names up front: */
typedef struct avro_index avro_index_t;
avro_index_t *avro_index_new(arena_t *a, size_t n);
/* Inserts key -> value (value >= 0); returns -1 when key is new, the value
 * already stored under key, or AVRO_INDEX_OOM. */
#define AVRO_INDEX_OOM (-2L)
long avro_index_add(avro_index_t *ix, const char *key, long value);
/* The value stored under key, or -1. ix may be NULL (empty). */
long avro_index_find(const avro_index_t *ix, const char *key);

/* Names seen during one walk (defined, written, emitted) are plain hmap_t
 * string keys (hmap_puts_try, hmap_gets, hmap_clear); pairs of nodes (the
 * checker's memo, graph walks) are hmap_pair_t keys. */

/* ---- 6. Names -------------------------------------------------------------- */

typedef enum avro_validator {
    AVRO_NAMES_ANY,    /* NameValidator.NO_VALIDATION */
    AVRO_NAMES_STRICT, /* [A-Za-z_][A-Za-z0-9_]* */
    AVRO_NAMES_UTF,    /* Java Character.isLetter / isLetterOrDigit per UTF-16 unit */
} avro_validator_t;

/* NULL when name passes; otherwise Avro's reason ("Illegal character in: x"), malloc'd. */
char *avro_name_problem(avro_validator_t v, const char *name);
/* Java Character.isLetter / isDigit for one BMP code point. */
int avro_unicode_is_letter(uint32_t cp);
int avro_unicode_is_digit(uint32_t cp);

/* ---- 7. The model ------------------------------------------------------------ */

/* avro_kind_t, avro_logical_t and avro_node_t are public (avro.h, section 4). */

/* "int", "record", ... (Schema.Type.getName) */
const char *avro_kind_name(avro_kind_t k);
/* "INT", "RECORD", ... (Schema.Type.toString, used in messages) */
const char *avro_kind_upper(avro_kind_t k);
int avro_kind_is_primitive(avro_kind_t k);

typedef enum avro_order {
    AVRO_ORDER_ASCENDING,
    AVRO_ORDER_DESCENDING,
    AVRO_ORDER_IGNORE,
} avro_order_t;

/* A custom property; the value is borrowed from the model's documents. */
typedef struct avro_prop {
    const char *key;
    const json_t *value;
} avro_prop_t;

typedef struct avro_props {
    avro_prop_t *items;
    size_t n;
} avro_props_t;

/* org.apache.avro.Schema.Name: space is NULL for the null namespace. */
typedef struct avro_name {
    const char *name;
    const char *space;
    const char *full;
} avro_name_t;

typedef struct avro_field {
    const char *name;
    const avro_node_t *type;
    const json_t *doc; /* a JSON string (it may hold U+0000); NULL when absent */
    const json_t *def; /* NULL when there is no default */
    int def_is_number; /* def is "NaN"/"Infinity" text that Java holds as a double */
    avro_order_t order;
    const char **aliases; /* as written, duplicates removed */
    size_t n_aliases;
    avro_props_t props;
    size_t pos;
} avro_field_t;

typedef struct avro_named {
    avro_name_t name;
    const json_t *doc;    /* a JSON string (it may hold U+0000); NULL when absent */
    avro_name_t *aliases; /* resolved against the type's own namespace */
    size_t n_aliases;
} avro_named_t;

struct avro_node {
    avro_kind_t kind;
    avro_props_t props;
    avro_logical_t logical;
    int precision; /* decimal only */
    int scale;
    avro_named_t *named; /* record, enum, fixed */
    union {
        struct {
            avro_field_t *fields;
            size_t n;
            avro_index_t *by_name;
            int is_error; /* declared as "error" */
        } record;
        struct {
            const char **symbols;
            size_t n;
            avro_index_t *by_name;
            const char *def; /* NULL when absent */
        } enm;
        struct {
            int size;
        } fixed;
        const avro_node_t *items; /* array items, map values */
        struct {
            const avro_node_t **branches;
            size_t n;
        } uni;
        const char *unresolved; /* the full name awaited */
    } u;
};

/*
 * Bare primitives (no properties) are shared static nodes: Avro would give
 * each occurrence its own object, but no check result ever depends on a
 * primitive's identity (see avro_check.c), and 100,000 "int" fields then
 * cost nothing.
 */
const avro_node_t *avro_primitive(avro_kind_t k);

struct avro_model {
    arena_t *arena; /* every node, name and string of the model */
    json_t **owned; /* documents and converted defaults, released with the model */
    size_t n_owned;
    size_t cap_owned;
    const avro_node_t *root;
    const char **ref_names; /* full names of the references' top-level types */
    size_t n_ref_names;
};

/* Keeps v alive as long as the model (takes the caller's reference). */
int avro_model_own(avro_model_t *m, json_t *v);

/* Avro's getAliases() strings: full names, or ".name" for a null-namespace
 * alias of a type that has a namespace (such an alias never matches). */
void avro_buf_alias_string(strbuf_t *b, const avro_node_t *named, const avro_name_t *alias);

/* ---- 8. Operations ----------------------------------------------------------- */

/* avro_parse.c: one parse session over references and the schema. */
typedef struct avro_parse avro_parse_t;
avro_parse_t *avro_parse_new(avro_model_t *m, int strict);
/* Parses one document into the session; its named types stay known. */
const avro_node_t *avro_parse_document(avro_parse_t *p, const char *text, size_t len);
/* Java's validateNames pass over the graph reachable from root (existing schemas). */
int avro_parse_check_names(avro_parse_t *p, const avro_node_t *root);
/* The first error (borrowed), or NULL. */
const char *avro_parse_error(const avro_parse_t *p);
void avro_parse_free(avro_parse_t *p);

/* avro_logical.c: LogicalTypes.fromSchemaIgnoreInvalid on a node's properties. */
void avro_logical_detect(avro_node_t *n);

/* avro_default.c: Schema.isValidDefault, with placeholders read as empty records. */
int avro_default_is_valid(const avro_node_t *type, const json_t *v, int is_number);

/* avro_equal.c: Schema.equals, used to accept identical re-definitions; and
 * Confluent's AvroSchema.equivalent (Schema.equals plus aliases, docs and
 * enum defaults), used by lookups. 1 or 0 (0 too beyond the depth limit). */
int avro_node_equal(const avro_node_t *a, const avro_node_t *b);
int avro_node_equivalent(const avro_node_t *a, const avro_node_t *b);

/* avro_write.c: Schema.toString with the given full names already known. */
void avro_write_schema(strbuf_t *b, const avro_node_t *root, const char *const *known, size_t n_known);
/* 1 when no walk of the graph from root (writers, name checks) nests deeper
 * than limit. Forward references let a definition chain through named types
 * nest deeper than any one JSON document. */
int avro_depth_within(const avro_node_t *root, int limit);

/* avro_fingerprint.c */
void avro_write_parsing_form(strbuf_t *b, const avro_node_t *root);

/* avro_normalize.c: Confluent's normalized text (re-parsed by the caller);
 * returns -1 (with *error) where Confluent's normalizer throws. */
int avro_write_normalized(strbuf_t *b, const avro_model_t *m, char **error);

/* Inline tags (avro_tags.c): schema_engine_t.tags_edit and .tagged (compat/schema.h, section 5). */
char *avro_tags_edit(const char *text, size_t len, const schema_tag_edit_t *edits, size_t n, char **error);
int avro_tags_list(const avro_model_t *m, schema_tagged_t **out, size_t *n);

#endif
