/*
 * proto_access: read-only questions a decoder asks of a parsed schema
 * (protobuf.h, section 9), answered from the same model and symbol table
 * the compatibility checks use, so there is one .proto parser and one
 * name resolution in the tree.
 */
#include "compat/protobuf/internal.h"

#include <stdlib.h>
#include <string.h>

/* Confluent's ProtobufSchema.toMessageName: each index counts the messages
 * (not the enums) among the types of the level above, starting at the
 * file's top-level types; an empty list is [0]. */
const proto_symbol_t *proto_schema_message_at(const proto_schema_t *schema, const int64_t *idx, size_t n)
{
    static const int64_t first[1] = {0};
    if (n == 0) {
        idx = first;
        n = 1;
    }
    const proto_file_t *file = proto_schema_file(schema);
    const char *package = proto_schema_package(schema);
    proto_type_t *const *types = file->types;
    size_t ntypes = file->n_types;
    strbuf_t name = {0};
    strbuf_puts(&name, package);
    for (size_t level = 0; level < n; level++) {
        const proto_message_t *found = NULL;
        int64_t i = 0;
        for (size_t t = 0; t < ntypes && !found; t++) {
            if (types[t]->kind != PROTO_TYPE_MESSAGE)
                continue;
            if (i++ == idx[level])
                found = types[t]->message;
        }
        if (!found) {
            strbuf_free(&name);
            return NULL;
        }
        if (name.len)
            strbuf_putc(&name, '.');
        strbuf_puts(&name, found->name);
        types = found->types;
        ntypes = found->n_types;
    }
    const proto_symbol_t *sym =
        name.failed ? NULL : proto_symtab_get(proto_schema_symtab(schema), name.data ? name.data : "", 0);
    strbuf_free(&name);
    return sym && sym->kind == PROTO_SYMBOL_MESSAGE ? sym : NULL;
}

static int access_by_order_(const void *a, const void *b)
{
    const proto_field_ref_t *x = a, *y = b;
    return (x->field->field_order > y->field->field_order) - (x->field->field_order < y->field->field_order);
}

proto_field_ref_t *proto_message_fields(const proto_message_t *m, size_t *n)
{
    size_t total = m->n_fields;
    for (size_t o = 0; o < m->n_oneofs; o++)
        total += m->oneofs[o]->n_fields;
    proto_field_ref_t *out = calloc(total ? total : 1, sizeof(*out));
    if (!out)
        return NULL;
    size_t k = 0;
    for (size_t i = 0; i < m->n_fields; i++)
        out[k++] = (proto_field_ref_t){m->fields[i], -1};
    for (size_t o = 0; o < m->n_oneofs; o++)
        for (size_t i = 0; i < m->oneofs[o]->n_fields; i++)
            out[k++] = (proto_field_ref_t){m->oneofs[o]->fields[i], (int)o};
    qsort(out, k, sizeof(*out), access_by_order_);
    *n = k;
    return out;
}

/* A type named inside message resolves from the message's own scope
 * outwards: its full name less the package gives the enclosing names. */
const proto_symbol_t *proto_message_resolve(const proto_symtab_t *tab, const proto_symbol_t *message,
                                            const char *type)
{
    const char *rest = message->full_name;
    size_t plen = strlen(message->package);
    if (plen && strncmp(rest, message->package, plen) == 0 && rest[plen] == '.')
        rest += plen + 1;
    char *copy = strdup(rest);
    if (!copy)
        return NULL;
    size_t n = 1;
    for (char *p = copy; *p; p++)
        n += *p == '.';
    const char **scope = calloc(n, sizeof(*scope));
    if (!scope) {
        free(copy);
        return NULL;
    }
    size_t k = 0;
    scope[k++] = copy;
    for (char *p = copy; *p; p++)
        if (*p == '.') {
            *p = 0;
            scope[k++] = p + 1;
        }
    const proto_symbol_t *s = proto_symtab_resolve(tab, message->package, scope, k, type, 0);
    free(scope);
    free(copy);
    return s;
}

/* protoc's ToJsonName: underscores dropped, the letter after one upper-cased. */
size_t proto_json_name(const char *name, char *out)
{
    size_t n = 0;
    int upper = 0;
    for (const char *c = name; *c; c++) {
        if (*c == '_') {
            upper = 1;
        } else {
            out[n++] = upper && *c >= 'a' && *c <= 'z' ? (char)(*c - 'a' + 'A') : *c;
            upper = 0;
        }
    }
    out[n] = 0;
    return n;
}

const char *proto_enum_name_of(const proto_enum_t *e, int32_t number)
{
    /* With allow_alias the first name of a number is its name (protoc). */
    for (size_t i = 0; i < e->n_values; i++)
        if (e->values[i]->tag == number)
            return e->values[i]->name;
    return NULL;
}
