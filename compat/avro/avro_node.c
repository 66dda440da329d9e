/*
 * avro_node: the small facts about types every other file asks for, and a
 * model's lifetime. A leaf: it calls no other avro_*.c file, so the parser,
 * the writers and the facade (avro_model.c) can all use it.
 *
 * Contents
 *   1. Types: names, primitive nodes, aliases
 *   2. Model lifetime
 */
#include "compat/avro/internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- 1. Types ---------------------------------------------------------------------- */

static const char *const kind_names[][2] = {
    [AVRO_KIND_NULL] = {"null", "NULL"},
    [AVRO_KIND_BOOLEAN] = {"boolean", "BOOLEAN"},
    [AVRO_KIND_INT] = {"int", "INT"},
    [AVRO_KIND_LONG] = {"long", "LONG"},
    [AVRO_KIND_FLOAT] = {"float", "FLOAT"},
    [AVRO_KIND_DOUBLE] = {"double", "DOUBLE"},
    [AVRO_KIND_BYTES] = {"bytes", "BYTES"},
    [AVRO_KIND_STRING] = {"string", "STRING"},
    [AVRO_KIND_RECORD] = {"record", "RECORD"},
    [AVRO_KIND_ENUM] = {"enum", "ENUM"},
    [AVRO_KIND_ARRAY] = {"array", "ARRAY"},
    [AVRO_KIND_MAP] = {"map", "MAP"},
    [AVRO_KIND_UNION] = {"union", "UNION"},
    [AVRO_KIND_FIXED] = {"fixed", "FIXED"},
    /* A placeholder is a record in Avro until it is resolved. */
    [AVRO_KIND_UNRESOLVED] = {"record", "RECORD"},
};

const char *avro_kind_name(avro_kind_t k)
{
    return kind_names[k][0];
}

const char *avro_kind_upper(avro_kind_t k)
{
    return kind_names[k][1];
}

int avro_kind_is_primitive(avro_kind_t k)
{
    return k <= AVRO_KIND_STRING;
}

static const avro_node_t primitive_nodes[] = {
    {.kind = AVRO_KIND_NULL},  {.kind = AVRO_KIND_BOOLEAN}, {.kind = AVRO_KIND_INT},
    {.kind = AVRO_KIND_LONG},  {.kind = AVRO_KIND_FLOAT},   {.kind = AVRO_KIND_DOUBLE},
    {.kind = AVRO_KIND_BYTES}, {.kind = AVRO_KIND_STRING},
};

const avro_node_t *avro_primitive(avro_kind_t k)
{
    return &primitive_nodes[k];
}

void avro_buf_alias_string(strbuf_t *b, const avro_node_t *named, const avro_name_t *alias)
{
    if (!alias->space && named->named->name.space) {
        strbuf_putc(b, '.');
        strbuf_puts(b, alias->name);
    } else {
        strbuf_puts(b, alias->full);
    }
}

/* ---- 2. Model lifetime ------------------------------------------------------------- */

int avro_model_own(avro_model_t *m, json_t *v)
{
    if (m->n_owned == m->cap_owned) {
        size_t cap = m->cap_owned ? m->cap_owned * 2 : 8;
        json_t **owned = realloc(m->owned, cap * sizeof *owned);
        if (!owned) {
            json_decref(v);
            return -1;
        }
        m->owned = owned;
        m->cap_owned = cap;
    }
    m->owned[m->n_owned++] = v;
    return 0;
}

void avro_model_free(avro_model_t *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n_owned; i++)
        json_decref(m->owned[i]);
    free(m->owned);
    free(m->ref_names);
    arena_free(m->arena);
    free(m);
}
