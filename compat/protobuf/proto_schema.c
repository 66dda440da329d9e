/*
 * proto_schema: a Protobuf schema as the registry sees it -- its own file
 * (from .proto text or a base64 FileDescriptorProto), the files of its
 * references, the built-in files, and one symbol table over all of them.
 */
#include "compat/protobuf/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct proto_schema {
    proto_file_t *file;  /* owned */
    proto_file_t **deps; /* owned, one per reference */
    size_t n_deps;
    proto_symtab_t *symtab; /* owned */
    char *package;          /* owned; "" when none */
};

static char *dup_error(const char *prefix, const char *detail)
{
    size_t n = strlen(prefix) + strlen(detail) + 1;
    char *e = malloc(n);
    if (e)
        snprintf(e, n, "%s%s", prefix, detail);
    return e;
}

static int overridden_by_reference(const char *path, const schema_ref_t *refs, size_t nrefs)
{
    for (size_t i = 0; i < nrefs; i++)
        if (refs[i].name && strcmp(refs[i].name, path) == 0)
            return 1;
    return 0;
}

/* Built-ins first, then references in order (a later definition of a name
 * wins), so that the schema's own file, added last, overrides both. */
static proto_symtab_t *context_symtab(proto_file_t *const *deps, const schema_ref_t *refs, size_t nrefs)
{
    proto_symtab_t *tab = proto_symtab_new();
    if (!tab)
        return NULL;
    for (const char *const *p = proto_builtin_paths(); *p; p++) {
        if (overridden_by_reference(*p, refs, nrefs))
            continue;
        if (proto_symtab_add_file(tab, proto_builtin_file(*p), PROTO_ORIGIN_BUILTIN, NULL, 0) != 0)
            goto fail;
    }
    for (size_t i = 0; i < nrefs; i++)
        if (proto_symtab_add_file(tab, deps[i], PROTO_ORIGIN_REFERENCE, refs[i].subject, refs[i].version) !=
            0)
            goto fail;
    return tab;
fail:
    proto_symtab_free(tab);
    return NULL;
}

/* "<descriptor problem>; as .proto text: <text error>" (malloc'd). */
static char *both_errors(const char *prefix, const char *descriptor, const char *text)
{
    size_t n = strlen(prefix) + strlen(descriptor) + strlen(text) + 32;
    char *e = malloc(n);
    if (e)
        snprintf(e, n, "%s%s; as .proto text: %s", prefix, descriptor, text);
    return e;
}

/*
 * .proto text, or -- only when that fails -- a base64 FileDescriptorProto.
 * Input of base64 characters only cannot be .proto text: its failure says
 * first what is wrong with it as a descriptor. *from_descriptor gets 1 for a
 * descriptor.
 */
static proto_file_t *read_file(const char *text, size_t len, const proto_symtab_t *context,
                               int *from_descriptor, char **error)
{
    *from_descriptor = 0;
    proto_file_t *file = proto_parse(text, len, error);
    if (file || !proto_looks_like_base64(text, len))
        return file;
    const char *problem = proto_base64_problem(text, len);
    char *descriptor_error = NULL;
    size_t n = 0;
    uint8_t *bytes = problem ? NULL : proto_base64_decode(text, len, &n);
    if (bytes)
        file = proto_descriptor_read(bytes, n, context, &descriptor_error);
    free(bytes);
    char *text_error = *error;
    if (file) {
        *error = NULL;
        *from_descriptor = 1;
    } else {
        *error = both_errors(problem ? "Invalid base64 descriptor: " : "",
                             problem            ? problem
                             : descriptor_error ? descriptor_error
                                                : "out of memory",
                             text_error ? text_error : "");
    }
    free(text_error);
    free(descriptor_error);
    return file;
}

/* A descriptor is stored as its .proto text, which must parse again (option
 * values nested past PROTO_MAX_DEPTH inside deep messages, names that are no
 * identifiers): a stored text the server cannot read would fail every later
 * request on the subject. */
static int check_text_reparses(const proto_file_t *file, char **error)
{
    char *text = proto_print(file, PROTO_PRINT_CANONICAL, NULL, error);
    if (!text)
        return -1;
    char *e = NULL;
    proto_file_t *again = proto_parse(text, strlen(text), &e);
    free(text);
    if (!again)
        *error = dup_error("Invalid descriptor: its .proto text does not parse: ", e ? e : "out of memory");
    free(e);
    proto_file_free(again);
    return again ? 0 : -1;
}

void proto_schema_free(proto_schema_t *s)
{
    if (!s)
        return;
    proto_file_free(s->file);
    for (size_t i = 0; i < s->n_deps; i++)
        proto_file_free(s->deps[i]);
    free(s->deps);
    proto_symtab_free(s->symtab);
    free(s->package);
    free(s);
}

static int parse_references(proto_schema_t *s, const schema_ref_t *refs, size_t nrefs, char **error)
{
    s->deps = calloc(nrefs ? nrefs : 1, sizeof *s->deps);
    if (!s->deps) {
        *error = strdup("out of memory");
        return -1;
    }
    for (size_t i = 0; i < nrefs; i++, s->n_deps++) {
        /* References are stored canonical text; the symbol table is not
         * needed to read text (only descriptors need it). */
        const char *text = refs[i].text ? refs[i].text : "";
        char *e = NULL;
        int from_descriptor;
        s->deps[i] = read_file(text, strlen(text), NULL, &from_descriptor, &e);
        if (!s->deps[i]) {
            char prefix[512];
            snprintf(prefix, sizeof prefix, "Invalid reference %s: ", refs[i].name ? refs[i].name : "");
            *error = dup_error(prefix, e ? e : "unparseable");
            free(e);
            return -1;
        }
    }
    return 0;
}

/* (Re)builds the symbol table over the built-ins, references and own file. */
static int build_symtab(proto_schema_t *s, const schema_ref_t *refs, size_t nrefs)
{
    proto_symtab_free(s->symtab);
    s->symtab = context_symtab(s->deps, refs, nrefs);
    if (!s->symtab)
        return -1;
    return proto_symtab_add_file(s->symtab, s->file, PROTO_ORIGIN_SELF, "", -1);
}

static int set_package(proto_schema_t *s)
{
    free(s->package);
    s->package = strdup(s->file->package ? s->file->package : "");
    return s->package ? 0 : -1;
}

/* Stores the normalized form: Confluent re-parses its normalized text. */
static int normalize(proto_schema_t *s, const schema_ref_t *refs, size_t nrefs, char **error)
{
    char *text = proto_print(s->file, PROTO_PRINT_NORMALIZE, s, error);
    if (!text)
        return -1;
    proto_file_t *file = proto_parse(text, strlen(text), error);
    free(text);
    if (!file)
        return -1;
    proto_file_free(s->file);
    s->file = file;
    if (set_package(s) != 0 || build_symtab(s, refs, nrefs) != 0) {
        *error = strdup("out of memory");
        return -1;
    }
    return 0;
}

/* "Validate as new": every type must resolve, which normalizing checks. */
static int validate(proto_schema_t *s, char **error)
{
    char *text = proto_print(s->file, PROTO_PRINT_NORMALIZE, s, error);
    free(text);
    return text ? 0 : -1;
}

proto_schema_t *proto_schema_new(const char *text, size_t len, const schema_ref_t *refs, size_t nrefs,
                                 int flags, char **canonical, char **error)
{
    *error = NULL;
    if (canonical)
        *canonical = NULL;
    proto_schema_t *s = calloc(1, sizeof *s);
    if (!s) {
        *error = strdup("out of memory");
        return NULL;
    }
    if (parse_references(s, refs, nrefs, error) != 0)
        goto fail;
    proto_symtab_t *context = context_symtab(s->deps, refs, nrefs);
    if (!context) {
        *error = strdup("out of memory");
        goto fail;
    }
    int from_descriptor = 0;
    s->file = read_file(text, len, context, &from_descriptor, error);
    proto_symtab_free(context);
    if (!s->file || (from_descriptor && check_text_reparses(s->file, error) != 0))
        goto fail;
    if ((flags & SCHEMA_PARSE_NEW) && proto_check_field_numbers(s->file, error) != 0)
        goto fail;
    if (set_package(s) != 0 || build_symtab(s, refs, nrefs) != 0) {
        *error = strdup("out of memory");
        goto fail;
    }
    if ((flags & SCHEMA_PARSE_NORMALIZE) && normalize(s, refs, nrefs, error) != 0)
        goto fail;
    if ((flags & SCHEMA_PARSE_NEW) && validate(s, error) != 0)
        goto fail;
    if (canonical && !(*canonical = proto_print(s->file, PROTO_PRINT_CANONICAL, NULL, error)))
        goto fail;
    return s;
fail:
    if (!*error)
        *error = strdup("invalid schema");
    proto_schema_free(s);
    return NULL;
}

const proto_file_t *proto_schema_file(const proto_schema_t *s)
{
    return s->file;
}

const proto_symtab_t *proto_schema_symtab(const proto_schema_t *s)
{
    return s->symtab;
}

/* The printer knows symbol tables, not schemas, so it never calls back here. */
char *proto_print(const proto_file_t *file, proto_print_mode_t mode, const proto_schema_t *types,
                  char **error)
{
    const proto_symtab_t *tab = mode == PROTO_PRINT_NORMALIZE ? proto_schema_symtab(types) : NULL;
    return proto_print_with(file, mode, tab, error);
}

const char *proto_schema_package(const proto_schema_t *s)
{
    return s->package;
}
