/*
 * avro_default: Schema.isValidDefault of Avro 1.12, the check applied to
 * field defaults of schemas registered as new (the Avro specification's
 * table of default values by field type, under "Complex Types: Records").
 *
 * A record default may leave a field out when that field has its own
 * default, so validation follows types, not just the JSON value; through
 * recursive types that could go on forever or explode, hence the depth and
 * work limits (a default beyond them counts as invalid).
 */
#include "compat/avro/internal.h"

#include <stdint.h>

#define DEFAULT_MAX_DEPTH 4096
#define DEFAULT_MAX_WORK  1000000L

typedef struct default_check {
    int depth;
    long work;
} default_check_t;

static int valid_default(default_check_t *c, const avro_node_t *t, const json_t *v, int is_number);

/* isValidValue: a missing value is never valid. */
static int valid_value(default_check_t *c, const avro_node_t *t, const json_t *v, int is_number)
{
    return v && valid_default(c, t, v, is_number);
}

static int valid_elements(default_check_t *c, const avro_node_t *items, const json_t *arr)
{
    for (size_t i = 0; i < json_array_size(arr); i++)
        if (!valid_default(c, items, json_array_get(arr, i), 0))
            return 0;
    return 1;
}

static int valid_values(default_check_t *c, const avro_node_t *values, const json_t *obj)
{
    const char *key;
    json_t *member;
    json_object_foreach((json_t *)obj, key, member) if (!valid_default(c, values, member, 0)) return 0;
    return 1;
}

static int valid_any_branch(default_check_t *c, const avro_node_t *u, const json_t *v, int is_number)
{
    for (size_t i = 0; i < u->u.uni.n; i++)
        if (valid_value(c, u->u.uni.branches[i], v, is_number))
            return 1;
    return 0;
}

/* Each field from the object, or from the field's own default when absent. */
static int valid_record(default_check_t *c, const avro_node_t *rec, const json_t *obj)
{
    for (size_t i = 0; i < rec->u.record.n; i++) {
        const avro_field_t *f = &rec->u.record.fields[i];
        const json_t *member = json_object_get(obj, f->name);
        int ok =
            member ? valid_value(c, f->type, member, 0) : valid_value(c, f->type, f->def, f->def_is_number);
        if (!ok)
            return 0;
    }
    return 1;
}

static int valid_default_kind(default_check_t *c, const avro_node_t *t, const json_t *v, int is_number)
{
    switch (t->kind) {
    case AVRO_KIND_STRING:
    case AVRO_KIND_BYTES:
    case AVRO_KIND_ENUM:
    case AVRO_KIND_FIXED: return avro_json_text(v, NULL) && !is_number;
    case AVRO_KIND_INT:
        return json_is_integer(v) && json_integer_value(v) >= INT32_MIN && json_integer_value(v) <= INT32_MAX;
    case AVRO_KIND_LONG: return json_is_integer(v);
    case AVRO_KIND_FLOAT:
    case AVRO_KIND_DOUBLE: return json_is_number(v) || is_number || avro_json_is_bigint(v);
    case AVRO_KIND_BOOLEAN: return json_is_boolean(v);
    case AVRO_KIND_NULL: return json_is_null(v);
    case AVRO_KIND_ARRAY: return json_is_array(v) && valid_elements(c, t->u.items, v);
    case AVRO_KIND_MAP: return json_is_object(v) && valid_values(c, t->u.items, v);
    case AVRO_KIND_UNION: return valid_any_branch(c, t, v, is_number);
    case AVRO_KIND_RECORD: return json_is_object(v) && valid_record(c, t, v);
    case AVRO_KIND_UNRESOLVED:
        /* A placeholder is an empty record until its definition is read. */
        return json_is_object(v);
    }
    return 0;
}

static int valid_default(default_check_t *c, const avro_node_t *t, const json_t *v, int is_number)
{
    if (!v || c->depth >= DEFAULT_MAX_DEPTH || ++c->work > DEFAULT_MAX_WORK)
        return 0;
    c->depth++;
    int ok = valid_default_kind(c, t, v, is_number);
    c->depth--;
    return ok;
}

int avro_default_is_valid(const avro_node_t *type, const json_t *v, int is_number)
{
    default_check_t c = {0};
    return valid_default(&c, type, v, is_number);
}
