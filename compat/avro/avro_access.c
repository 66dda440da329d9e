/*
 * avro_access: the model read-only, for decoders of Avro data (avro.h,
 * section 4). Accessors instead of the node structure, so internal.h stays
 * the engine's own and a decoder cannot reach into the parser's arena.
 */
#include "compat/avro/internal.h"

#include <string.h>

const avro_node_t *avro_model_root(const avro_model_t *model)
{
    return model->root;
}

avro_kind_t avro_node_kind(const avro_node_t *n)
{
    return n->kind;
}

avro_logical_t avro_node_logical(const avro_node_t *n)
{
    return n->logical;
}

int avro_node_precision(const avro_node_t *n)
{
    return n->logical == AVRO_LOGICAL_DECIMAL ? n->precision : 0;
}

int avro_node_scale(const avro_node_t *n)
{
    return n->logical == AVRO_LOGICAL_DECIMAL ? n->scale : 0;
}

const char *avro_node_fullname(const avro_node_t *n)
{
    return n->named ? n->named->name.full : NULL;
}

size_t avro_node_n_aliases(const avro_node_t *n)
{
    return n->named ? n->named->n_aliases : 0;
}

const char *avro_node_alias(const avro_node_t *n, size_t i)
{
    return n->named && i < n->named->n_aliases ? n->named->aliases[i].full : NULL;
}

size_t avro_node_size(const avro_node_t *n)
{
    switch (n->kind) {
    case AVRO_KIND_RECORD: return n->u.record.n;
    case AVRO_KIND_ENUM: return n->u.enm.n;
    case AVRO_KIND_UNION: return n->u.uni.n;
    case AVRO_KIND_FIXED: return (size_t)n->u.fixed.size;
    default: return 0;
    }
}

const avro_node_t *avro_node_items(const avro_node_t *n)
{
    return n->kind == AVRO_KIND_ARRAY || n->kind == AVRO_KIND_MAP ? n->u.items : NULL;
}

const avro_node_t *avro_node_branch(const avro_node_t *n, size_t i)
{
    return n->kind == AVRO_KIND_UNION && i < n->u.uni.n ? n->u.uni.branches[i] : NULL;
}

const char *avro_node_symbol(const avro_node_t *n, size_t i)
{
    return n->kind == AVRO_KIND_ENUM && i < n->u.enm.n ? n->u.enm.symbols[i] : NULL;
}

long avro_node_symbol_index(const avro_node_t *n, const char *name)
{
    return n->kind == AVRO_KIND_ENUM ? avro_index_find(n->u.enm.by_name, name) : -1;
}

const char *avro_node_enum_default(const avro_node_t *n)
{
    return n->kind == AVRO_KIND_ENUM ? n->u.enm.def : NULL;
}

const char *avro_field_name(const avro_node_t *record, size_t i)
{
    return record->u.record.fields[i].name;
}

const avro_node_t *avro_field_type(const avro_node_t *record, size_t i)
{
    return record->u.record.fields[i].type;
}

const struct json_t *avro_field_default(const avro_node_t *record, size_t i)
{
    return record->u.record.fields[i].def;
}

size_t avro_field_n_aliases(const avro_node_t *record, size_t i)
{
    return record->u.record.fields[i].n_aliases;
}

const char *avro_field_alias(const avro_node_t *record, size_t i, size_t j)
{
    return record->u.record.fields[i].aliases[j];
}

long avro_field_index(const avro_node_t *record, const char *name)
{
    return record->kind == AVRO_KIND_RECORD ? avro_index_find(record->u.record.by_name, name) : -1;
}

static const json_t *prop_of(const avro_props_t *props, const char *key)
{
    for (size_t i = 0; i < props->n; i++)
        if (strcmp(props->items[i].key, key) == 0)
            return props->items[i].value;
    return NULL;
}

const struct json_t *avro_node_prop(const avro_node_t *n, const char *key)
{
    return prop_of(&n->props, key);
}

const struct json_t *avro_field_prop(const avro_node_t *record, size_t i, const char *key)
{
    return prop_of(&record->u.record.fields[i].props, key);
}
