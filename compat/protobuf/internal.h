/*
 * protobuf/internal.h: what the proto_*.c files share and callers never see.
 * Models, printers and checks allocate in base/arena.h arenas.
 *
 * Contents
 *   1. The lexer (proto_lexer.c)
 *   2. Model helpers (proto_model.c)
 *   3. Symbol tables and scopes (proto_symtab.c)
 *   4. Custom options on the wire (proto_option_wire.c)
 *   5. Printing and normalization pieces (proto_printer.c, proto_normalize.c)
 *   6. Embedded sources (proto_wkt.c; the Google ones generated)
 *   7. Limits and protoc's rules (proto_limits.c)
 *   8. The diff's typed differences (proto_diff.c; proto_changes.c maps them)
 *   9. Inline tags (proto_tags.c)
 */
#ifndef COMPAT_PROTOBUF_INTERNAL_H
#define COMPAT_PROTOBUF_INTERNAL_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

#include "compat/protobuf/protobuf.h"
#include "base/strbuf.h"

/* ---- 1. The lexer ----------------------------------------------------- */

/*
 * The lexer (proto_lexer.c), used by the parser only. Failures longjmp to
 * lx->fail with lx->error set; the caller frees lx->scratch afterwards.
 */
typedef struct proto_lexer {
    const char *data;
    size_t len;
    size_t pos;
    int line;          /* 1-based */
    size_t line_start; /* offset of the current line's first byte */
    arena_t *arena;    /* words and strings are copied here */
    int depth;         /* nesting of map<> types */
    strbuf_t scratch;
    jmp_buf fail;
    char error[320];
} proto_lexer_t;

void proto_lex_init(proto_lexer_t *lx, const char *text, size_t len, arena_t *arena);
_Noreturn void proto_lex_fail_at(proto_lexer_t *lx, int line, int column, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
#define proto_lex_fail(lx, ...) proto_lex_fail_at((lx), (lx)->line, proto_lex_column(lx), __VA_ARGS__)
int proto_lex_column(const proto_lexer_t *lx);
int proto_lex_at_end(proto_lexer_t *lx);         /* skips blanks and comments */
char proto_lex_peek(proto_lexer_t *lx);          /* next non-blank char; fails at EOF */
int proto_lex_accept(proto_lexer_t *lx, char c); /* consumes c when it is next */
char proto_lex_char(proto_lexer_t *lx);
void proto_lex_expect(proto_lexer_t *lx, char c);
const char *proto_lex_word(proto_lexer_t *lx); /* [A-Za-z0-9_.-]+ */
/* A word, "(word)" or "[word]"; *wrapped gets '(' / '[' / 0. */
const char *proto_lex_name(proto_lexer_t *lx, int *wrapped);
int32_t proto_lex_int(proto_lexer_t *lx); /* decimal or 0x hex, 32-bit */
const char *proto_lex_string(proto_lexer_t *lx, size_t *len);
/* A type: a dotted name or "map<K, V>"; first is an already-read word or NULL. */
const char *proto_lex_data_type(proto_lexer_t *lx, const char *first);

/* ---- 2. Model helpers ------------------------------------------------- */

/* Model pieces (proto_model.c). Values are allocated in arena; NULL or -1
 * when out of memory. */
proto_file_t *proto_file_new(void);
proto_value_t *proto_value_text(arena_t *arena, proto_value_kind_t kind, const char *text, size_t len);
proto_value_t *proto_value_number(arena_t *arena, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Bytes as Wire holds them: each byte one character (so >= 0x80 is UTF-8). */
proto_value_t *proto_value_bytes(arena_t *arena, const uint8_t *data, size_t len);
/* The reverse for text of len bytes; out needs len bytes. Returns the count. */
size_t proto_text_to_bytes(const char *text, size_t len, uint8_t *out);
/* Adds key: v to an aggregate; a repeated key gathers its values into a list. */
int proto_value_map_add(arena_t *arena, proto_value_t *map, const char *key, proto_value_t *v);
/* A numeric literal (decimal, 0x hex, inf, nan, with sign) as a double: 0 or -1. */
int proto_parse_double(const char *text, double *out);

/* The largest field number (descriptor.proto: 2^29 - 1, Wire's MAX_TAG_VALUE);
 * "max" in a field range means it, and a descriptor's exclusive range end is one more. */
#define PROTO_MAX_FIELD_NUMBER 536870911

/* The first failure of a build or read: sets *error (malloc'd) to fmt with
 * detail in its one %s, unless *error is already set. */
void proto_error_set(char **error, const char *fmt, const char *detail);

/* ---- 3. Symbol tables and scopes -------------------------------------- */

proto_symtab_t *proto_symtab_new(void);
void proto_symtab_free(proto_symtab_t *tab);
/* Adds every type and extension of file; a later definition of a name replaces
 * an earlier one (the schema's own file is added last). Returns 0 or -1. */
int proto_symtab_add_file(proto_symtab_t *tab, const proto_file_t *file, proto_origin_t origin,
                          const char *subject, int version);

/* Names missing from tab are then looked up in parent (borrowed, outlives tab). */
void proto_symtab_set_parent(proto_symtab_t *tab, const proto_symtab_t *parent);
/* The extension of extendee (a full name) with that field number, or NULL.
 * Each call spends from *budget and gives up (NULL) once it is used up. */
const proto_symbol_t *proto_symtab_find_extension(const proto_symtab_t *tab, const char *extendee,
                                                  int32_t number, long *budget);

/*
 * Name resolution as Confluent's diff Context does it: a leading dot means
 * fully qualified; otherwise try package + scope + name, dropping the last
 * scope element repeatedly, then the bare name. scope is the list of
 * enclosing message names (may be empty). Returns the symbol or NULL.
 */
const proto_symbol_t *proto_symtab_resolve(const proto_symtab_t *tab, const char *package,
                                           const char *const *scope, size_t nscope, const char *name,
                                           int want_extension);
/* 1 when tab (or a parent) has a message or enum whose simple name spells a
 * scalar type ("int64"); else resolving a scalar's name finds nothing. */
int proto_symtab_shadows_scalars(const proto_symtab_t *tab);

/* A resolution scope: the symbols, the package, and the enclosing message
 * (and enum) names, innermost last. Zero-initialize, then set tab/package. */
typedef struct proto_scope {
    const proto_symtab_t *tab;
    const char *package;
    const char **names;
    size_t n;
    size_t cap;
} proto_scope_t;

int proto_scope_enter(proto_scope_t *s, const char *name); /* 0 or -1 */
void proto_scope_leave(proto_scope_t *s);
void proto_scope_free(proto_scope_t *s);
const proto_symbol_t *proto_scope_resolve(const proto_scope_t *s, const char *name, int want_extension);

/* ---- 4. Custom options on the wire ------------------------------------ */

/* Custom options on the wire (proto_option_wire.c). A codec serves one
 * descriptor build or read (it caches per-message lookups) and lives in
 * arena. encode appends option o's extension field records (tag + value),
 * resolving from scope; 0, or -1 with *error (malloc'd). decode reads one
 * value of extension ext from a payload as protobuf-c keeps unknown fields
 * (length prefix included), allocating in the codec's arena. */
typedef struct proto_option_codec proto_option_codec_t;
proto_option_codec_t *proto_option_codec_new(const proto_symtab_t *tab, arena_t *arena);
int proto_option_encode(proto_option_codec_t *codec, const proto_scope_t *scope, const proto_option_t *o,
                        strbuf_t *out, char **error);
proto_value_t *proto_option_decode(proto_option_codec_t *codec, const proto_symbol_t *ext, int wire_type,
                                   const uint8_t *data, size_t len);

/* ---- 5. Printing and normalization pieces ----------------------------- */

/* proto_print() with the symbol table PROTO_PRINT_NORMALIZE resolves in
 * (NULL for the other modes); proto_printer.c. */
char *proto_print_with(const proto_file_t *file, proto_print_mode_t mode, const proto_symtab_t *types,
                       char **error);
/* proto_print_with, also setting *appended to the bytes the printer appended
 * to strbufs, scratch included: the text's length, give or take normalized
 * numbers, as every line is written once (tests/unit/test_proto_limits.c). */
char *proto_print_counted(const proto_file_t *file, proto_print_mode_t mode, const proto_symtab_t *types,
                          size_t *appended, char **error);

/* Normalization pieces (proto_normalize.c), used by the printer. Results live
 * in arena; functions return 0, or -1 when out of memory. */
int proto_normalize_options(const proto_scope_t *scope, arena_t *arena, const proto_options_t *in,
                            proto_options_t *out);
int proto_normalize_map(const proto_scope_t *scope, arena_t *arena, const proto_value_t *map,
                        proto_value_t **out);

/* ---- 6. Embedded sources ---------------------------------------------- */

/* Embedded .proto sources: the Google ones are generated at build time
 * (compat/protobuf/protobuf.cmake), the Confluent ones live in proto_wkt.c. */
typedef struct proto_builtin_source {
    const char *path;
    const char *text;
} proto_builtin_source_t;
extern const proto_builtin_source_t proto_builtin_google[];
extern const size_t proto_builtin_google_count;

/* ---- 7. Limits and protoc's rules ------------------------------------- */

/* 1 when text is nothing but base64 characters (so it cannot be .proto text). */
int proto_looks_like_base64(const char *text, size_t len);
/* Why text (for which proto_looks_like_base64 holds) is not strict base64, or NULL. */
const char *proto_base64_problem(const char *text, size_t len);
/* Before unpacking a FileDescriptorProto: its size, its wire format along the
 * recursive paths, and its message nesting against PROTO_MAX_DEPTH. 0, or -1
 * with *error (malloc'd). */
int proto_descriptor_check_wire(const uint8_t *data, size_t len, char **error);
/* Every field number in file as protoc allows it: 0, or -1 with *error (malloc'd). */
int proto_check_field_numbers(const proto_file_t *file, char **error);

/* ---- 8. The diff's typed differences (proto_diff.c) ------------------- */

/* The differences of one diff, in the order they are found. */
typedef struct proto_changes {
    proto_change_t *items;
    size_t n;
    size_t cap;
} proto_changes_t;

/* Every difference from original to update (what proto_diff prints and the
 * change list, proto_changes.c, maps). Returns 0, or -1 when out of memory. */
int proto_diff_changes(const proto_schema_t *original, const proto_schema_t *update, proto_changes_t *out);
void proto_changes_clear(proto_changes_t *c);

/*
 * A field number both sides have, as the diff met it: what the change list
 * compares beyond Confluent's difference types (presence, integer width,
 * defaults: docs/evolution.md), which the wire and so Confluent's diff do not
 * see. Fields are borrowed from the two schemas; path and column are owned.
 */
typedef struct proto_field_pair {
    char *path;   /* "#/Msg/oneof/3": where a difference of this field is reported */
    char *column; /* "Msg.name": the declaring messages and the update's field name */
    const proto_field_t *orig, *update;
    proto_syntax_t orig_syntax, update_syntax; /* of the files that declare them */
    int orig_oneof, update_oneof;              /* a oneof member */
    int orig_kind, update_kind;                /* PROTO_PAIR_* */
    size_t after;                              /* differences found before it, this field's own included */
} proto_field_pair_t;

#define PROTO_PAIR_SCALAR  0 /* one of the 15 scalar types */
#define PROTO_PAIR_ENUM    1
#define PROTO_PAIR_MESSAGE 2
#define PROTO_PAIR_MAP     3

typedef struct proto_field_pairs {
    proto_field_pair_t *items;
    size_t n;
    size_t cap;
} proto_field_pairs_t;

/* proto_diff_changes, also listing the field pairs compared (pairs may be NULL). */
int proto_diff_changes_paired(const proto_schema_t *original, const proto_schema_t *update,
                              proto_changes_t *out, proto_field_pairs_t *pairs);
void proto_field_pairs_clear(proto_field_pairs_t *p);

/* ---- 9. Inline tags --------------------------------------------------- */

/* The engine's tags_edit (compat/schema.h, section 5): ProtobufSchema.copy
 * (tagsToAdd, tagsToRemove) on a stored canonical text, as canonical text. */
char *proto_tags_edit(const char *text, size_t len, const schema_tag_edit_t *edits, size_t n, char **error);
/* The engine's tagged: ProtobufSchema.inlineTaggedEntities of file. 0, or -1. */
int proto_tags_list(const proto_file_t *file, schema_tagged_t **out, size_t *n);

#endif
