/*
 * protobuf: the project's own Protobuf schema engine. There is no .proto
 * parser in C (protobuf-c reads only binary descriptors), so the lexer, parser, model,
 * printer, descriptor conversion and Confluent diff all live here; protobuf-c
 * only supplies FileDescriptorProto (generated from descriptor.proto at build
 * time, see compat/protobuf/protobuf.cmake).
 *
 * Contents
 *   1. The engine (plugged into compat/schema.h)
 *   2. The file model (what Square Wire's ProtoFileElement holds)
 *   3. Parsing .proto text
 *   4. Printing: canonical text, ignore_extensions, normalized
 *   5. Schemas: a file with its references and the built-in files
 *   6. Descriptors: FileDescriptorProto in and out, base64
 *   7. The Confluent diff, the backward check and the change list
 *   8. Symbols: what a schema's names resolve to
 *   9. Reading messages: what a decoder asks of a schema (proto_access.c)
 *
 * What only the engine's own files share (lexer, model helpers, scopes, option
 * codec) is in compat/protobuf/internal.h.
 *
 * Documented in docs/compatibility.md "Protobuf" and docs/api.md "Schemas" (formats);
 * the behaviour is Confluent's io.confluent.kafka.schemaregistry.protobuf.ProtobufSchema.
 * Everything here is pure: no I/O, no globals except the built-in files,
 * which are parsed once and never change. A parsed proto_schema_t is
 * immutable and may be shared between threads.
 */
#ifndef COMPAT_PROTOBUF_H
#define COMPAT_PROTOBUF_H

#include <stddef.h>
#include <stdint.h>

#include "compat/schema.h"
#include "base/arena.h"
#include "base/strbuf.h"
#include "base/strlist.h"

/* ---- 1. The engine ---------------------------------------------------- */

/* parse / free / backward / format("serialized", "ignore_extensions") for SCHEMA_PROTOBUF. */
extern const schema_engine_t protobuf_engine;

/* ---- 2. The file model ------------------------------------------------ */

/*
 * The model mirrors Wire's parser elements, because Confluent's canonical
 * text is a re-print of them: declaration order is kept, type names stay as
 * written, `default` and `json_name` are pulled out of the field options, and
 * comments are dropped. Every pointer in a model is owned by the model's arena
 * (proto_file_free releases all of it at once).
 */

typedef struct proto_option proto_option_t;
typedef struct proto_value proto_value_t;

typedef enum proto_value_kind {
    PROTO_VALUE_STRING, /* quoted text, printed escaped */
    PROTO_VALUE_BOOL,   /* "true" / "false", printed raw */
    PROTO_VALUE_NUMBER, /* a numeric token as written ("0x10", "-1.5e3") */
    PROTO_VALUE_ENUM,   /* an identifier (enum value name, inf, nan) */
    PROTO_VALUE_MAP,    /* an aggregate { key: value ... } */
    PROTO_VALUE_LIST,   /* [ value, ... ] */
    PROTO_VALUE_OPTION, /* the rest of a dotted option name: (a).b = 1 */
} proto_value_kind_t;

typedef struct proto_map_entry {
    const char *key; /* "name", or "[ext.name]" for an extension key */
    proto_value_t *value;
} proto_map_entry_t;

struct proto_value {
    proto_value_kind_t kind;
    const char *text; /* STRING, BOOL, NUMBER, ENUM: the value (may hold NUL bytes) */
    size_t len;
    proto_map_entry_t *entries; /* MAP, in first-seen key order */
    size_t n_entries;
    proto_value_t **items; /* LIST */
    size_t n_items;
    proto_option_t *option; /* OPTION */
};

struct proto_option {
    const char *name;  /* without parentheses: "java_package", "confluent.field_meta" */
    int parenthesized; /* a custom option: (name) */
    proto_value_t *value;
};

typedef struct proto_options {
    proto_option_t **items;
    size_t n;
} proto_options_t;

typedef enum proto_label {
    PROTO_LABEL_NONE = 0, /* proto3 / editions implicit presence, maps, oneof members */
    PROTO_LABEL_OPTIONAL,
    PROTO_LABEL_REQUIRED,
    PROTO_LABEL_REPEATED,
} proto_label_t;

typedef struct proto_field {
    proto_label_t label;
    const char *type;    /* as written: "int32", "Foo.Bar", ".pkg.Foo", "map<string, Foo>" */
    const char *map_key; /* map types only: key and value type as written */
    const char *map_value;
    const char *name;
    int32_t tag;
    const char *default_value; /* NULL when absent; the unescaped text */
    size_t default_len;
    const char *json_name; /* NULL when absent */
    size_t json_name_len;
    proto_options_t options;
    /* Source order inside the enclosing message, for the descriptor's field
     * list (field_order) and nested_type list (nested_order, map entries). */
    int field_order;
    int nested_order;
    int line, column;
} proto_field_t;

typedef struct proto_group {
    proto_label_t label;
    const char *name; /* the message name: "Result" in `repeated group Result = 1` */
    int32_t tag;
    proto_field_t **fields;
    size_t n_fields;
    int field_order;
    int nested_order;
} proto_group_t;

typedef struct proto_oneof {
    const char *name;
    proto_field_t **fields;
    size_t n_fields;
    proto_group_t **groups;
    size_t n_groups;
    proto_options_t options;
} proto_oneof_t;

/* `reserved` values and `extensions` ranges; "to max" is kept symbolically
 * because its number depends on where it appears (fields vs enum values). */
typedef struct proto_range {
    const char *name; /* a reserved name; NULL for numbers */
    int32_t start;
    int32_t end;    /* inclusive; == start for a single number */
    int is_range;   /* written as "a to b" */
    int end_is_max; /* written as "a to max" */
} proto_range_t;

typedef struct proto_reserved {
    proto_range_t *values;
    size_t n_values;
} proto_reserved_t;

typedef struct proto_extensions {
    proto_range_t *values;
    size_t n_values;
    proto_options_t options;
} proto_extensions_t;

typedef struct proto_extend {
    const char *name;       /* the extended type as written */
    proto_field_t **fields; /* groups inside extend blocks are dropped, as in Wire */
    size_t n_fields;
} proto_extend_t;

typedef struct proto_enum_value {
    const char *name;
    int32_t tag;
    proto_options_t options;
} proto_enum_value_t;

typedef struct proto_enum {
    const char *name;
    proto_options_t options;
    proto_enum_value_t **values;
    size_t n_values;
    proto_reserved_t **reserveds;
    size_t n_reserveds;
} proto_enum_t;

typedef struct proto_message proto_message_t;

typedef enum proto_type_kind { PROTO_TYPE_MESSAGE, PROTO_TYPE_ENUM } proto_type_kind_t;

/* A nested or top-level type; message and enum order is significant
 * (Confluent message indexes count messages in declaration order). */
typedef struct proto_type {
    proto_type_kind_t kind;
    proto_message_t *message;
    proto_enum_t *enumeration;
} proto_type_t;

struct proto_message {
    const char *name;
    proto_options_t options;
    proto_reserved_t **reserveds;
    size_t n_reserveds;
    proto_field_t **fields; /* top-level fields only; oneof members live in oneofs */
    size_t n_fields;
    proto_oneof_t **oneofs;
    size_t n_oneofs;
    proto_group_t **groups;
    size_t n_groups;
    proto_extensions_t **extensions;
    size_t n_extensions;
    proto_extend_t **extends;
    size_t n_extends;
    proto_type_t **types;
    size_t n_types;
    int nested_order; /* position among the parent's nested_type entries */
};

typedef struct proto_rpc {
    const char *name;
    const char *request_type;
    const char *response_type;
    int request_streaming;
    int response_streaming;
    proto_options_t options;
    int has_body; /* written with { ... }: protoc then records empty options */
} proto_rpc_t;

typedef struct proto_service {
    const char *name;
    proto_options_t options;
    proto_rpc_t **rpcs;
    size_t n_rpcs;
} proto_service_t;

typedef enum proto_syntax {
    PROTO_SYNTAX_NONE = 0, /* no syntax statement: proto2 rules, nothing printed */
    PROTO_SYNTAX_PROTO2,
    PROTO_SYNTAX_PROTO3,
    PROTO_SYNTAX_EDITION, /* `edition = "2023";` -- parsed and stored, diffed like proto3 */
} proto_syntax_t;

typedef struct proto_file {
    arena_t *arena;
    proto_syntax_t syntax;
    const char *edition; /* PROTO_SYNTAX_EDITION only: "2023" */
    const char *package; /* NULL when absent */
    const char **imports;
    size_t n_imports;
    const char **public_imports;
    size_t n_public_imports;
    const char **weak_imports; /* kept, but (as in Confluent) never printed */
    size_t n_weak_imports;
    proto_options_t options;
    proto_type_t **types;
    size_t n_types;
    proto_extend_t **extends;
    size_t n_extends;
    proto_service_t **services;
    size_t n_services;
} proto_file_t;

void proto_file_free(proto_file_t *file);

/* ---- 3. Parsing .proto text ------------------------------------------- */

/*
 * Parses .proto source (len bytes, any content). Accepts what Wire's parser
 * accepts, plus `edition = "..."` files. On failure returns NULL and sets
 * *error (malloc'd): "Syntax error at <line>:<column>: <reason>". Nesting is
 * bounded (PROTO_MAX_DEPTH), so hostile input cannot exhaust the stack.
 */
#define PROTO_MAX_DEPTH 64
proto_file_t *proto_parse(const char *text, size_t len, char **error);

/* 1 when type is one of the 15 scalar type names. */
int proto_is_scalar(const char *type);

/* ---- 4. Printing ------------------------------------------------------ */

typedef struct proto_schema proto_schema_t;
typedef struct proto_symtab proto_symtab_t;

typedef enum proto_print_mode {
    PROTO_PRINT_CANONICAL,         /* Confluent's canonicalString() */
    PROTO_PRINT_IGNORE_EXTENSIONS, /* format=ignore_extensions */
    PROTO_PRINT_NORMALIZE,         /* normalize=true; needs the schema's types */
} proto_print_mode_t;

/*
 * Prints file in the given mode. types supplies type information for
 * PROTO_PRINT_NORMALIZE (it may be NULL otherwise). Returns malloc'd text, or
 * NULL with *error set (normalization fails on an unresolvable type:
 * "Could not resolve type: <name>").
 */
char *proto_print(const proto_file_t *file, proto_print_mode_t mode, const proto_schema_t *types,
                  char **error);

/* A numeric option value as Confluent's normalizer prints it: integers in
 * decimal (0x and leading-0 octal decoded), decimals with at most three
 * fraction digits; anything unparseable unchanged. */
void proto_normalize_number(const char *raw, strbuf_t *out);

/* ---- 5. Schemas ------------------------------------------------------- */

/*
 * A schema: its own file, the files of its references (schema_ref_t.name =
 * import path, text = that file's stored text) and the built-in files
 * (the google/protobuf files, confluent/meta.proto, confluent/type/decimal.proto)
 * that no reference overrides, with one symbol table over all of them.
 *
 * text may be .proto source or a base64 FileDescriptorProto (tried only when
 * the text does not parse). flags: SCHEMA_PARSE_NEW validates that every type
 * resolves and that field numbers are ones protoc allows (1..536870911 but
 * 19000..19999; stored schemas are read without it); SCHEMA_PARSE_NORMALIZE stores the normalized form. On
 * success sets *canonical (malloc'd) when canonical is not NULL.
 */
proto_schema_t *proto_schema_new(const char *text, size_t len, const schema_ref_t *refs, size_t nrefs,
                                 int flags, char **canonical, char **error);
void proto_schema_free(proto_schema_t *schema);
/* Borrowed; live as long as schema. The package is "" when there is none. */
const proto_file_t *proto_schema_file(const proto_schema_t *schema);
const proto_symtab_t *proto_schema_symtab(const proto_schema_t *schema);
const char *proto_schema_package(const proto_schema_t *schema);

/* The built-in file for an import path, or NULL (parsed once, never freed). */
const proto_file_t *proto_builtin_file(const char *path);
/* Import paths of every built-in file, NULL-terminated. */
const char *const *proto_builtin_paths(void);
/* The embedded source text of a built-in file, or NULL. */
const char *proto_builtin_text(const char *path);

/* ---- 6. Descriptors --------------------------------------------------- */

/*
 * The FileDescriptorProto of the schema's own file, serialized, as protoc
 * --descriptor_set_out would write it (without source info): fully-qualified
 * type names, map entry messages, json_name on every field, custom options as
 * extension fields. name is the file name to record ("default" if NULL, as Confluent).
 * Returns 0, or -1 with *error set (e.g. a type that does not resolve).
 */
int proto_descriptor_build(const proto_schema_t *schema, const char *name, uint8_t **out, size_t *out_len,
                           char **error);

/*
 * The reverse: a FileDescriptorProto (serialized) to a model that prints as
 * the .proto text it was compiled from would: map entries become map<K, V>,
 * proto3 `optional`, groups and relative type names come back, json_name is
 * dropped where it is the default, custom options are decoded. context holds
 * the symbols of the references and built-ins (may be NULL). Descriptors
 * larger than PROTO_MAX_DESCRIPTOR_BYTES, with messages nested deeper than
 * PROTO_MAX_DEPTH (the text parser's limit), or with a field type outside
 * 1..18 are refused before any work in proportion to their shape.
 */
proto_file_t *proto_descriptor_read(const uint8_t *data, size_t len, const proto_symtab_t *context,
                                    char **error);

/* The largest serialized FileDescriptorProto read (bytes, after base64). */
#define PROTO_MAX_DESCRIPTOR_BYTES (8 * 1024 * 1024)

/* Standard base64 with padding. Encode returns malloc'd text; decode returns
 * malloc'd bytes, or NULL for anything but strict base64. */
char *proto_base64_encode(const uint8_t *data, size_t len);
uint8_t *proto_base64_decode(const char *text, size_t len, size_t *out_len);

/* format=serialized: base64 of proto_descriptor_build(), or NULL. */
char *proto_schema_serialized(const proto_schema_t *schema);

/* ---- 7. The Confluent diff -------------------------------------------- */

typedef enum proto_change_type {
    PROTO_PACKAGE_CHANGED,
    PROTO_MESSAGE_ADDED,
    PROTO_MESSAGE_REMOVED,
    PROTO_MESSAGE_MOVED,
    PROTO_ENUM_ADDED,
    PROTO_ENUM_REMOVED,
    PROTO_ENUM_CONST_ADDED,
    PROTO_ENUM_CONST_CHANGED,
    PROTO_ENUM_CONST_REMOVED,
    PROTO_FIELD_ADDED,
    PROTO_FIELD_REMOVED,
    PROTO_FIELD_NAME_CHANGED,
    PROTO_FIELD_KIND_CHANGED,
    PROTO_FIELD_SCALAR_KIND_CHANGED,
    PROTO_FIELD_NAMED_TYPE_CHANGED,
    PROTO_FIELD_NUMERIC_LABEL_CHANGED,
    PROTO_FIELD_STRING_OR_BYTES_LABEL_CHANGED,
    PROTO_REQUIRED_FIELD_ADDED,
    PROTO_REQUIRED_FIELD_REMOVED,
    PROTO_ONEOF_ADDED,
    PROTO_ONEOF_REMOVED,
    PROTO_ONEOF_FIELD_ADDED,
    PROTO_ONEOF_FIELD_REMOVED,
    PROTO_ONEOF_FIELD_MOVED_TO_TOP_LEVEL,
    PROTO_MULTIPLE_FIELDS_MOVED_TO_ONEOF,
    PROTO_FIELD_MOVED_TO_EXISTING_ONEOF,
    PROTO_CHANGE_TYPE_COUNT
} proto_change_type_t;

/* 1 when the type is in Confluent's compatible set (docs/compatibility.md
 * "How a check runs"; Confluent's protobuf.diff.SchemaDiff.COMPATIBLE_CHANGES). */
int proto_change_is_compatible(proto_change_type_t type);

typedef struct proto_change {
    proto_change_type_t type;
    char *path; /* "#/Msg/oneof/3" (owned by the change) */
} proto_change_t;

/* Every difference from original to update (Confluent's protobuf.diff.SchemaDiff.compare),
 * as "TYPE path" strings (the conformance vectors' notation). Returns 0, or -1 when out of
 * memory. */
int proto_diff(const proto_schema_t *original, const proto_schema_t *update, strlist_t *changes);
/* Confluent's message for one change (docs/compatibility.md "How a check runs"),
 * with two %s placeholders. Malloc'd. */
char *proto_change_message(const proto_change_t *change);
/* update.isBackwardCompatible(original): one raw message per incompatible change. */
int proto_backward(const proto_schema_t *update, const proto_schema_t *original, strlist_t *out);
/* The changes from old to new (compat/change.h, docs/evolution.md "Protobuf"), mapped
 * from the diff's difference types (proto_changes.c). Returns 0, or -1 when out of memory. */
int proto_changes(const proto_schema_t *old_schema, const proto_schema_t *new_schema, change_list_t *out);

/* ---- 8. Symbols ------------------------------------------------------- */

/*
 * Symbols: every message, enum and extension field visible to a schema,
 * keyed by full name without the leading dot ("pkg.Outer.Inner").
 */
typedef enum proto_symbol_kind {
    PROTO_SYMBOL_MESSAGE,
    PROTO_SYMBOL_ENUM,
    PROTO_SYMBOL_EXTENSION,
} proto_symbol_kind_t;

/* Where a symbol was defined, for the "same subject and version" rule of
 * Confluent's protobuf.diff.Context (a type from one reference is compared by name only). */
typedef enum proto_origin {
    PROTO_ORIGIN_SELF,      /* the schema's own file (Confluent's dummy reference) */
    PROTO_ORIGIN_REFERENCE, /* a schema reference: subject and version are set */
    PROTO_ORIGIN_BUILTIN,   /* a built-in file with no reference */
} proto_origin_t;

typedef struct proto_symbol {
    const char *full_name;
    proto_symbol_kind_t kind;
    const char *package; /* "" when the defining file has none */
    const proto_file_t *file;
    const proto_message_t *message;  /* MESSAGE */
    const proto_enum_t *enumeration; /* ENUM */
    const proto_field_t *field;      /* EXTENSION: the extend field */
    const char *extendee;            /* EXTENSION: the extended type as written */
    const char *scope;               /* EXTENSION: full name of the enclosing scope */
    proto_origin_t origin;
    const char *subject;
    int version;
    int is_map_entry; /* a message with option map_entry = true */
    const proto_field_t *map_key;
    const proto_field_t *map_value;
} proto_symbol_t;

/* Exact lookup by full name (a leading dot is ignored). Borrowed or NULL. */
const proto_symbol_t *proto_symtab_get(const proto_symtab_t *tab, const char *full_name, int want_extension);

/* ---- 9. Reading messages --------------------------------------------- */

/*
 * Read-only accessors for decoders of Protobuf data (client/proto_decode.c):
 * the model above, asked by field number and by Confluent's message indexes.
 * Everything returned is borrowed from the schema unless said otherwise.
 */

/* The message at Confluent's message indexes (ProtobufSchema.toMessageName:
 * each index counts messages, not enums, at its level; n == 0 means [0]),
 * or NULL when there is none. */
const proto_symbol_t *proto_schema_message_at(const proto_schema_t *schema, const int64_t *idx, size_t n);

/* A message's fields, oneof members included, in declaration order (groups
 * are not fields here). Malloc'd array of *n refs; NULL when out of memory. */
typedef struct proto_field_ref {
    const proto_field_t *field;
    int oneof; /* index into message->oneofs, or -1 */
} proto_field_ref_t;
proto_field_ref_t *proto_message_fields(const proto_message_t *m, size_t *n);

/* The message or enum a type name written in message refers to (protoc's
 * scoping: innermost scope first), or NULL. */
const proto_symbol_t *proto_message_resolve(const proto_symtab_t *tab, const proto_symbol_t *message,
                                            const char *type);

/* protoc's default json_name of a field name ("foo_bar" -> "fooBar") into
 * out (strlen(name) + 1 bytes); returns its length. */
size_t proto_json_name(const char *name, char *out);

/* The name of an enum number (the first, with aliases), or NULL. */
const char *proto_enum_name_of(const proto_enum_t *e, int32_t number);

#endif
