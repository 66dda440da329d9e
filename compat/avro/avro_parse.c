/*
 * avro_parse: JSON documents to the model, as Avro Java 1.12's
 * Schema.Parser builds it (the Avro specification, "Schema Declaration").
 *
 * Contents
 *   1. Session, errors, small JSON helpers
 *   2. Names and the table of defined types (ParseContext)
 *   3. One schema node per JSON value
 *   4. Named types: record (and its fields), enum, fixed
 *   5. Unnamed types: primitive with properties, array, map, union
 *   6. After a document: placeholders, unions, defaults
 *   7. Documents and the existing-schema name check
 *
 * Avro 1.12 accepts a name before its definition: the parser hands out a
 * placeholder and swaps it for the real type once the document is read.
 * Until then a placeholder behaves like an empty record, which is what
 * Avro's default validation sees during the first pass; the second pass
 * runs on the resolved types, as Avro's resolving copy does.
 */
#include "compat/avro/internal.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- 1. Session, errors, small JSON helpers ------------------------------------ */

struct avro_parse {
    avro_model_t *model;
    int strict;              /* SCHEMA_PARSE_NEW: strict names, defaults validated */
    avro_validator_t names;  /* validator applied while parsing */
    hmap_t defined;          /* full name -> first definition, across documents */
    avro_node_t **doc_nodes; /* nodes of the current document */
    size_t n_doc_nodes;
    size_t cap_doc_nodes;
    int depth;
    char *error;
};

static void *parse_fail(avro_parse_t *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void *parse_fail(avro_parse_t *p, const char *fmt, ...)
{
    if (p->error)
        return NULL;
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&p->error, fmt, ap) < 0)
        p->error = NULL;
    va_end(ap);
    if (!p->error)
        p->error = strdup("out of memory");
    return NULL;
}

static void *parse_oom(avro_parse_t *p)
{
    return parse_fail(p, "out of memory");
}

/* Fails with "<what>: <compact JSON of j>", the shape of Avro's messages. */
static void *parse_fail_json(avro_parse_t *p, const char *what, const json_t *j)
{
    strbuf_t b = {0};
    avro_buf_json_value(&b, j);
    char *text = strbuf_take(&b);
    if (!text)
        return parse_oom(p);
    parse_fail(p, "%s: %s", what, text);
    free(text);
    return NULL;
}

/* Text with each U+0000 written as \u0000, for messages (malloc'd). */
static char *nul_visible(const char *s, size_t len)
{
    strbuf_t b = {0};
    for (size_t i = 0; i < len; i++) {
        if (s[i])
            strbuf_putc(&b, s[i]);
        else
            strbuf_puts(&b, "\\u0000");
    }
    return strbuf_take(&b);
}

/*
 * Jackson's textValue(): the string, or NULL for any other JSON type. The
 * model holds names, namespaces, aliases, symbols and the like as C
 * strings, so one holding U+0000 is refused here, with the message Avro's
 * name validator gives (docs/compatibility.md "Avro": Avro refuses U+0000
 * in every name and symbol; it lets namespaces of existing schemas and
 * aliases hold one, this engine does not). Docs, defaults and property
 * values keep U+0000: they stay JSON values.
 */
static const char *json_text(avro_parse_t *p, const json_t *j)
{
    size_t len;
    const char *s = avro_json_text(j, &len);
    if (!s || !memchr(s, '\0', len))
        return s;
    /* The visible form has a backslash where the U+0000 was, which the
     * strict validator refuses at the same place: the same message. */
    char *shown = nul_visible(s, len);
    char *problem = shown ? avro_name_problem(AVRO_NAMES_STRICT, shown) : NULL;
    if (!problem)
        parse_oom(p);
    else
        parse_fail(p, "%s", problem);
    free(problem);
    free(shown);
    return NULL;
}

static const char *member_text(avro_parse_t *p, const json_t *obj, const char *key)
{
    return json_text(p, json_object_get(obj, key));
}

/* A "doc": any JSON string, U+0000 included; NULL when absent or not text. */
static const json_t *member_doc(const json_t *obj)
{
    const json_t *doc = json_object_get(obj, "doc");
    return avro_json_text(doc, NULL) ? doc : NULL;
}

static avro_node_t *node_new(avro_parse_t *p, avro_kind_t kind)
{
    if (p->n_doc_nodes == p->cap_doc_nodes) {
        size_t cap = p->cap_doc_nodes ? p->cap_doc_nodes * 2 : 64;
        avro_node_t **nodes = realloc(p->doc_nodes, cap * sizeof *nodes);
        if (!nodes)
            return parse_oom(p);
        p->doc_nodes = nodes;
        p->cap_doc_nodes = cap;
    }
    avro_node_t *n = arena_alloc(p->model->arena, sizeof *n);
    if (!n)
        return parse_oom(p);
    n->kind = kind;
    p->doc_nodes[p->n_doc_nodes++] = n;
    return n;
}

static int is_reserved(const char *key, const char *const *reserved)
{
    for (; *reserved; reserved++)
        if (strcmp(key, *reserved) == 0)
            return 1;
    return 0;
}

static const char *const schema_reserved[] = {
    "doc", "fields", "items", "name", "namespace", "size", "symbols", "values", "type", "aliases", NULL,
};
static const char *const enum_reserved[] = {
    "doc",     "fields", "items", "name",    "namespace", "size",
    "symbols", "values", "type",  "aliases", "default",   NULL,
};
static const char *const field_reserved[] = {
    "default", "doc", "name", "order", "type", "aliases", NULL,
};

/* Every member not reserved, in document order. */
static int parse_props(avro_parse_t *p, const json_t *obj, const char *const *reserved, avro_props_t *out)
{
    const char *key;
    json_t *value;
    size_t n = 0;
    json_object_foreach((json_t *)obj, key, value) n += !is_reserved(key, reserved);
    if (!n)
        return 0;
    out->items = arena_alloc(p->model->arena, n * sizeof *out->items);
    if (!out->items)
        return parse_oom(p), -1;
    json_object_foreach((json_t *)obj, key, value)
    {
        if (is_reserved(key, reserved))
            continue;
        out->items[out->n].key = key;
        out->items[out->n++].value = value;
    }
    return 0;
}

/* ---- 2. Names and the table of defined types -------------------------------------- */

static avro_kind_t primitive_kind(const char *name)
{
    static const avro_kind_t kinds[] = {
        AVRO_KIND_NULL,  AVRO_KIND_BOOLEAN, AVRO_KIND_INT,   AVRO_KIND_LONG,
        AVRO_KIND_FLOAT, AVRO_KIND_DOUBLE,  AVRO_KIND_BYTES, AVRO_KIND_STRING,
    };
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (strcmp(name, avro_kind_name(kinds[i])) == 0)
            return kinds[i];
    return AVRO_KIND_UNRESOLVED;
}

/* Fails with the validator's reason when name is not acceptable. */
static int check_name(avro_parse_t *p, avro_validator_t v, const char *name, const char *prefix)
{
    char *problem = avro_name_problem(v, name);
    if (!problem)
        return 0;
    if (prefix)
        parse_fail(p, "%s \"%s\" is invalid: %s", prefix, name, problem);
    else
        parse_fail(p, "%s", problem);
    free(problem);
    return -1;
}

/* Schema.Name: a dotted name carries its own namespace; "" means none. */
static int make_name(avro_parse_t *p, const char *name, const char *space, avro_name_t *out)
{
    arena_t *a = p->model->arena;
    const char *dot = strrchr(name, '.');
    if (dot) {
        space = arena_strndup(a, name, (size_t)(dot - name));
        name = dot + 1;
        if (!space)
            return parse_oom(p), -1;
    }
    if (check_name(p, p->names, name, NULL) != 0)
        return -1;
    out->name = name;
    out->space = space && *space ? space : NULL;
    if (!out->space) {
        out->full = name;
        return 0;
    }
    size_t ls = strlen(out->space), ln = strlen(name);
    char *full = arena_alloc(a, ls + ln + 2);
    if (!full)
        return parse_oom(p), -1;
    memcpy(full, out->space, ls);
    full[ls] = '.';
    memcpy(full + ls + 1, name, ln);
    out->full = full;
    return 0;
}

/* The "name"/"namespace" pair of a named type, the namespace inherited when absent. */
static avro_named_t *parse_type_name(avro_parse_t *p, const json_t *j, const char *ns)
{
    avro_named_t *named = arena_alloc(p->model->arena, sizeof *named);
    if (!named)
        return parse_oom(p);
    const char *space = member_text(p, j, "namespace");
    const char *name = member_text(p, j, "name");
    if (p->error)
        return NULL;
    if (!name)
        return parse_fail_json(p, "No name in schema", j);
    if (make_name(p, name, space ? space : ns, &named->name) != 0)
        return NULL;
    if (primitive_kind(named->name.full) != AVRO_KIND_UNRESOLVED)
        return parse_fail(p, "Schemas may not be named after primitives: %s", named->name.full);
    named->doc = member_doc(j);
    return named;
}

/* Avro's requireValidFullName: every namespace part, then the name. */
static int check_full_name(avro_parse_t *p, const char *full)
{
    char *copy = strdup(full);
    if (!copy)
        return parse_oom(p), -1;
    int rc = 0;
    char *part = copy;
    for (char *dot; rc == 0 && (dot = strchr(part, '.')); part = dot + 1) {
        *dot = '\0';
        rc = check_name(p, AVRO_NAMES_STRICT, part, "Namespace part");
    }
    if (rc == 0)
        rc = check_name(p, AVRO_NAMES_STRICT, part, "Name");
    free(copy);
    return rc;
}

/* ParseContext.put: the first definition wins; an equal one is accepted. */
static int define_named(avro_parse_t *p, avro_node_t *n)
{
    const char *full = n->named->name.full;
    if (p->strict && check_full_name(p, full) != 0)
        return -1;
    const avro_node_t *known = hmap_gets(&p->defined, full);
    if (known) {
        if (!avro_node_equal(n, known))
            return parse_fail(p, "Can't redefine: %s", full), -1;
        return 0;
    }
    if (hmap_puts_try(&p->defined, full, n, NULL) != 0)
        return parse_oom(p), -1;
    return 0;
}

/* ParseContext.find: primitive, then the namespace-qualified name, then
 * the name as written; a placeholder for a name not defined yet. */
static const avro_node_t *find_type(avro_parse_t *p, const char *name, const char *ns)
{
    avro_kind_t prim = primitive_kind(name);
    if (prim != AVRO_KIND_UNRESOLVED)
        return avro_primitive(prim);
    const char *full = name;
    char *qualified = NULL;
    if (ns && !strchr(name, '.')) {
        if (asprintf(&qualified, "%s.%s", ns, name) < 0)
            return parse_oom(p);
        full = qualified;
    }
    const avro_node_t *n = hmap_gets(&p->defined, full);
    if (!n)
        n = hmap_gets(&p->defined, name);
    if (!n) {
        avro_node_t *ph = node_new(p, AVRO_KIND_UNRESOLVED);
        if (ph && !(ph->u.unresolved = arena_strdup(p->model->arena, full)))
            ph = parse_oom(p);
        n = ph;
    }
    free(qualified);
    return n;
}

/* Aliases as a deduplicated list of strings; NULL list when absent. */
static int parse_alias_strings(avro_parse_t *p, const json_t *j, const char ***out, size_t *n_out)
{
    const json_t *arr = json_object_get(j, "aliases");
    if (!arr)
        return 0;
    if (!json_is_array(arr))
        return parse_fail_json(p, "aliases not an array", j), -1;
    size_t n = json_array_size(arr);
    const char **list = arena_alloc(p->model->arena, (n ? n : 1) * sizeof *list);
    avro_index_t *seen = avro_index_new(p->model->arena, n);
    if (!list || !seen)
        return parse_oom(p), -1;
    for (size_t i = 0; i < n; i++) {
        const json_t *a = json_array_get(arr, i);
        if (!avro_json_text(a, NULL))
            return parse_fail_json(p, "alias not a string", a), -1;
        const char *alias = json_text(p, a);
        if (!alias)
            return -1;
        long known = avro_index_add(seen, alias, 0);
        if (known == AVRO_INDEX_OOM)
            return parse_oom(p), -1;
        if (known < 0)
            list[(*n_out)++] = alias;
    }
    *out = list;
    return 0;
}

/* Named-type aliases become names in the type's own namespace (Set<Name>). */
static int parse_type_aliases(avro_parse_t *p, const json_t *j, avro_named_t *named)
{
    const char **strings = NULL;
    size_t n = 0;
    if (parse_alias_strings(p, j, &strings, &n) != 0)
        return -1;
    if (!n)
        return 0;
    named->aliases = arena_alloc(p->model->arena, n * sizeof *named->aliases);
    avro_index_t *seen = avro_index_new(p->model->arena, n);
    if (!named->aliases || !seen)
        return parse_oom(p), -1;
    for (size_t i = 0; i < n; i++) {
        avro_name_t *alias = &named->aliases[named->n_aliases];
        if (make_name(p, strings[i], named->name.space, alias) != 0)
            return -1;
        long known = avro_index_add(seen, alias->full, 0);
        if (known == AVRO_INDEX_OOM)
            return parse_oom(p), -1;
        if (known < 0)
            named->n_aliases++;
    }
    return 0;
}

/* ---- 3. One schema node per JSON value ------------------------------------------------ */

static const avro_node_t *parse_schema(avro_parse_t *p, const json_t *j, const char *ns);
static avro_node_t *parse_record(avro_parse_t *p, const json_t *j, const char *ns, int is_error);
static avro_node_t *parse_enum(avro_parse_t *p, const json_t *j, const char *ns);
static avro_node_t *parse_fixed(avro_parse_t *p, const json_t *j, const char *ns);
static const avro_node_t *parse_primitive(avro_parse_t *p, const json_t *j, avro_kind_t kind);
static avro_node_t *parse_container(avro_parse_t *p, const json_t *j, const char *ns, avro_kind_t kind);
static avro_node_t *parse_union(avro_parse_t *p, const json_t *j, const char *ns);

static const avro_node_t *parse_object(avro_parse_t *p, const json_t *j, const char *ns)
{
    const char *type = member_text(p, j, "type");
    if (!type)
        return p->error ? NULL : parse_fail_json(p, "No type", j);
    avro_kind_t prim = primitive_kind(type);
    if (prim != AVRO_KIND_UNRESOLVED)
        return parse_primitive(p, j, prim);
    if (strcmp(type, "record") == 0 || strcmp(type, "error") == 0)
        return parse_record(p, j, ns, type[0] == 'e');
    if (strcmp(type, "enum") == 0)
        return parse_enum(p, j, ns);
    if (strcmp(type, "array") == 0)
        return parse_container(p, j, ns, AVRO_KIND_ARRAY);
    if (strcmp(type, "map") == 0)
        return parse_container(p, j, ns, AVRO_KIND_MAP);
    if (strcmp(type, "fixed") == 0)
        return parse_fixed(p, j, ns);
    /* {"type": "SomeName"} refers to a named type; the other members are ignored. */
    return find_type(p, type, ns);
}

static const avro_node_t *parse_schema(avro_parse_t *p, const json_t *j, const char *ns)
{
    if (p->depth >= AVRO_MAX_DEPTH)
        return parse_fail(p, "Schema nesting deeper than %d levels", AVRO_MAX_DEPTH);
    p->depth++;
    const avro_node_t *n;
    if (avro_json_text(j, NULL)) {
        const char *name = json_text(p, j);
        n = name ? find_type(p, name, ns) : NULL;
    } else if (json_is_object(j)) {
        n = parse_object(p, j, ns);
    } else if (json_is_array(j)) {
        n = parse_union(p, j, ns);
    } else {
        n = parse_fail_json(p, "Schema not yet supported", j);
    }
    p->depth--;
    return n;
}

/* ---- 4. Named types -------------------------------------------------------------------- */

static int parse_field_order(avro_parse_t *p, const json_t *j, avro_order_t *out)
{
    const json_t *o = json_object_get(j, "order");
    *out = AVRO_ORDER_ASCENDING;
    if (!o)
        return 0;
    const char *text = json_text(p, o);
    if (!text)
        return p->error ? -1 : (parse_fail_json(p, "Field order is not a string", o), -1);
    if (strcasecmp(text, "ascending") == 0)
        return 0;
    if (strcasecmp(text, "descending") == 0)
        *out = AVRO_ORDER_DESCENDING;
    else if (strcasecmp(text, "ignore") == 0)
        *out = AVRO_ORDER_IGNORE;
    else
        return parse_fail(p, "No enum constant org.apache.avro.Schema.Field.Order.%s", text), -1;
    return 0;
}

/* A textual default of a float/double field is read with Double.parseDouble;
 * NaN and the infinities stay text in the output, as Jackson writes them. */
static int convert_float_default(avro_parse_t *p, avro_field_t *f)
{
    double v;
    size_t len;
    const char *text = avro_json_text(f->def, &len);
    if (memchr(text, '\0', len) || avro_java_parse_double(text, &v) != 0) {
        char *shown = nul_visible(text, len);
        if (!shown)
            return parse_oom(p), -1;
        parse_fail(p, "For input string: \"%s\"", shown);
        free(shown);
        return -1;
    }
    json_t *conv;
    if (v != v)
        conv = json_string("NaN");
    else if (v > 1.7976931348623157e308 || v < -1.7976931348623157e308)
        conv = json_string(v > 0 ? "Infinity" : "-Infinity");
    else
        conv = json_real(v);
    if (!conv || avro_model_own(p->model, conv) != 0)
        return parse_oom(p), -1;
    f->def = conv;
    f->def_is_number = json_is_string(conv);
    return 0;
}

static int fail_invalid_default(avro_parse_t *p, const avro_field_t *f)
{
    strbuf_t b = {0};
    avro_buf_json_value(&b, f->def);
    strbuf_puts(&b, " not a ");
    avro_write_schema(&b, f->type, NULL, 0);
    char *text = strbuf_take(&b);
    if (!text)
        return parse_oom(p), -1;
    parse_fail(p, "Invalid default for field %s: %s", f->name, text);
    free(text);
    return -1;
}

static int check_field_default(avro_parse_t *p, const avro_field_t *f)
{
    if (!p->strict || !f->def || avro_default_is_valid(f->type, f->def, f->def_is_number))
        return 0;
    return fail_invalid_default(p, f);
}

static int parse_field(avro_parse_t *p, const json_t *j, const char *ns, avro_field_t *f)
{
    f->name = member_text(p, j, "name");
    if (!f->name)
        return p->error ? -1 : (parse_fail_json(p, "No field name", j), -1);
    f->doc = member_doc(j);
    const json_t *type = json_object_get(j, "type");
    if (!type)
        return parse_fail_json(p, "No field type", j), -1;
    if (!(f->type = parse_schema(p, type, ns)))
        return -1;
    if (parse_field_order(p, j, &f->order) != 0)
        return -1;
    f->def = json_object_get(j, "default");
    avro_kind_t k = f->type->kind;
    if (avro_json_text(f->def, NULL) && (k == AVRO_KIND_FLOAT || k == AVRO_KIND_DOUBLE) &&
        convert_float_default(p, f) != 0)
        return -1;
    if (check_name(p, p->names, f->name, NULL) != 0 || check_field_default(p, f) != 0)
        return -1;
    if (parse_props(p, j, field_reserved, &f->props) != 0)
        return -1;
    return parse_alias_strings(p, j, &f->aliases, &f->n_aliases);
}

static int fail_duplicate_field(avro_parse_t *p, const avro_node_t *rec, const avro_field_t *f,
                                const avro_field_t *earlier)
{
    parse_fail(p, "Duplicate field %s in record %s: %s type:%s pos:%zu and %s type:%s pos:%zu.", f->name,
               rec->named->name.full, f->name, avro_kind_upper(f->type->kind), f->pos, earlier->name,
               avro_kind_upper(earlier->type->kind), earlier->pos);
    return -1;
}

static int parse_fields(avro_parse_t *p, const json_t *j, avro_node_t *rec)
{
    const json_t *arr = json_object_get(j, "fields");
    if (!json_is_array(arr))
        return parse_fail_json(p, "Record has no fields", j), -1;
    size_t n = json_array_size(arr);
    avro_field_t *fields = arena_alloc(p->model->arena, (n ? n : 1) * sizeof *fields);
    avro_index_t *by_name = avro_index_new(p->model->arena, n);
    if (!fields || !by_name)
        return parse_oom(p), -1;
    for (size_t i = 0; i < n; i++) {
        fields[i].pos = i;
        if (parse_field(p, json_array_get(arr, i), rec->named->name.space, &fields[i]) != 0)
            return -1;
    }
    for (size_t i = 0; i < n; i++) {
        long earlier = avro_index_add(by_name, fields[i].name, (long)i);
        if (earlier == AVRO_INDEX_OOM)
            return parse_oom(p), -1;
        if (earlier >= 0)
            return fail_duplicate_field(p, rec, &fields[i], &fields[earlier]);
    }
    rec->u.record.fields = fields;
    rec->u.record.n = n;
    rec->u.record.by_name = by_name;
    return 0;
}

/* What every named type does after its own members: properties, logical
 * type, aliases, then registration under its full name. */
static avro_node_t *finish_named(avro_parse_t *p, const json_t *j, avro_node_t *n,
                                 const char *const *reserved)
{
    if (parse_props(p, j, reserved, &n->props) != 0)
        return NULL;
    avro_logical_detect(n);
    if (parse_type_aliases(p, j, n->named) != 0 || define_named(p, n) != 0)
        return NULL;
    return n;
}

static avro_node_t *parse_record(avro_parse_t *p, const json_t *j, const char *ns, int is_error)
{
    avro_node_t *n = node_new(p, AVRO_KIND_RECORD);
    if (!n || !(n->named = parse_type_name(p, j, ns)))
        return NULL;
    n->u.record.is_error = is_error;
    if (parse_fields(p, j, n) != 0)
        return NULL;
    return finish_named(p, j, n, schema_reserved);
}

static int fail_enum_default(avro_parse_t *p, const avro_node_t *n, const char *def)
{
    strbuf_t b = {0};
    for (size_t i = 0; i < n->u.enm.n; i++) {
        strbuf_puts(&b, i ? ", " : "[");
        strbuf_puts(&b, n->u.enm.symbols[i]);
    }
    strbuf_puts(&b, n->u.enm.n ? "]" : "[]");
    char *list = strbuf_take(&b);
    if (!list)
        return parse_oom(p), -1;
    parse_fail(p, "The Enum Default: %s is not in the enum symbol set: %s", def, list);
    free(list);
    return -1;
}

static int parse_symbols(avro_parse_t *p, const json_t *j, avro_node_t *n)
{
    const json_t *arr = json_object_get(j, "symbols");
    if (!json_is_array(arr))
        return parse_fail_json(p, "Enum has no symbols", j), -1;
    size_t count = json_array_size(arr);
    const char **symbols = arena_alloc(p->model->arena, (count ? count : 1) * sizeof *symbols);
    avro_index_t *by_name = avro_index_new(p->model->arena, count);
    if (!symbols || !by_name)
        return parse_oom(p), -1;
    for (size_t i = 0; i < count; i++) {
        /* A non-string symbol is a null name, which every validator rejects
         * (Avro rejects it later for existing schemas; the verdict is the same). */
        const char *s = json_text(p, json_array_get(arr, i));
        if (!s)
            return p->error ? -1 : (parse_fail(p, "Null name"), -1);
        if (check_name(p, p->names, s, NULL) != 0)
            return -1;
        long earlier = avro_index_add(by_name, s, (long)i);
        if (earlier == AVRO_INDEX_OOM)
            return parse_oom(p), -1;
        if (earlier >= 0)
            return parse_fail(p, "Duplicate enum symbol: %s", s), -1;
        symbols[i] = s;
    }
    n->u.enm.symbols = symbols;
    n->u.enm.n = count;
    n->u.enm.by_name = by_name;
    return 0;
}

static avro_node_t *parse_enum(avro_parse_t *p, const json_t *j, const char *ns)
{
    avro_node_t *n = node_new(p, AVRO_KIND_ENUM);
    if (!n || !(n->named = parse_type_name(p, j, ns)) || parse_symbols(p, j, n) != 0)
        return NULL;
    /* A non-string "default" is ignored, like Jackson's textValue() of it. */
    const char *def = member_text(p, j, "default");
    if (p->error)
        return NULL;
    if (def && avro_index_find(n->u.enm.by_name, def) < 0)
        return fail_enum_default(p, n, def), NULL;
    n->u.enm.def = def;
    return finish_named(p, j, n, enum_reserved);
}

/* Java's limit on byte arrays (SystemLimitException.MAX_ARRAY_VM_LIMIT). */
#define JAVA_MAX_ARRAY (INT_MAX - 8)

static avro_node_t *parse_fixed(avro_parse_t *p, const json_t *j, const char *ns)
{
    avro_node_t *n = node_new(p, AVRO_KIND_FIXED);
    if (!n || !(n->named = parse_type_name(p, j, ns)))
        return NULL;
    const json_t *size = json_object_get(j, "size");
    if (!json_is_integer(size) || json_integer_value(size) < INT_MIN || json_integer_value(size) > INT_MAX)
        return parse_fail_json(p, "Invalid or no size", j);
    json_int_t v = json_integer_value(size);
    if (v < 0)
        return parse_fail(p, "Malformed data. Length is negative: %" JSON_INTEGER_FORMAT, v);
    if (v > JAVA_MAX_ARRAY)
        return parse_fail(p, "Cannot read arrays longer than %d bytes in Java library", JAVA_MAX_ARRAY);
    n->u.fixed.size = (int)v;
    return finish_named(p, j, n, schema_reserved);
}

/* ---- 5. Unnamed types ---------------------------------------------------------------------- */

static const avro_node_t *parse_primitive(avro_parse_t *p, const json_t *j, avro_kind_t kind)
{
    avro_props_t props = {0};
    if (parse_props(p, j, schema_reserved, &props) != 0)
        return NULL;
    if (!props.n)
        return avro_primitive(kind);
    avro_node_t *n = node_new(p, kind);
    if (!n)
        return NULL;
    n->props = props;
    avro_logical_detect(n);
    return n;
}

static avro_node_t *parse_container(avro_parse_t *p, const json_t *j, const char *ns, avro_kind_t kind)
{
    const char *member = kind == AVRO_KIND_ARRAY ? "items" : "values";
    const json_t *inner = json_object_get(j, member);
    if (!inner)
        return parse_fail_json(
            p, kind == AVRO_KIND_ARRAY ? "Array has no items type" : "Map has no values type", j);
    avro_node_t *n = node_new(p, kind);
    if (!n || !(n->u.items = parse_schema(p, inner, ns)))
        return NULL;
    if (parse_props(p, j, schema_reserved, &n->props) != 0)
        return NULL;
    avro_logical_detect(n);
    return n;
}

static avro_node_t *parse_union(avro_parse_t *p, const json_t *j, const char *ns)
{
    size_t count = json_array_size(j);
    avro_node_t *n = node_new(p, AVRO_KIND_UNION);
    if (!n)
        return NULL;
    n->u.uni.branches = arena_alloc(p->model->arena, (count ? count : 1) * sizeof(avro_node_t *));
    if (!n->u.uni.branches)
        return parse_oom(p);
    for (size_t i = 0; i < count; i++) {
        const avro_node_t *b = parse_schema(p, json_array_get(j, i), ns);
        if (!b)
            return NULL;
        if (b->kind == AVRO_KIND_UNION)
            return parse_fail_json(p, "Nested union", j);
        n->u.uni.branches[i] = b;
    }
    n->u.uni.n = count;
    return n;
}

/* ---- 6. After a document
 * ---------------------------------------------------------------------- */

static int resolve_slot(avro_parse_t *p, const avro_node_t **slot)
{
    if ((*slot)->kind != AVRO_KIND_UNRESOLVED)
        return 0;
    const avro_node_t *target = hmap_gets(&p->defined, (*slot)->u.unresolved);
    if (!target)
        return parse_fail(p, "Undefined schema: %s", (*slot)->u.unresolved), -1;
    *slot = target;
    return 0;
}

static int resolve_node(avro_parse_t *p, avro_node_t *n)
{
    switch (n->kind) {
    case AVRO_KIND_RECORD:
        for (size_t i = 0; i < n->u.record.n; i++)
            if (resolve_slot(p, &n->u.record.fields[i].type) != 0)
                return -1;
        return 0;
    case AVRO_KIND_ARRAY:
    case AVRO_KIND_MAP: return resolve_slot(p, &n->u.items);
    case AVRO_KIND_UNION:
        for (size_t i = 0; i < n->u.uni.n; i++)
            if (resolve_slot(p, &n->u.uni.branches[i]) != 0)
                return -1;
        return 0;
    default: return 0;
    }
}

/* Two branches of one type, or of one full name; run on resolved branches
 * because a placeholder's name is not known to be a duplicate before. */
static int check_union(avro_parse_t *p, const avro_node_t *n)
{
    avro_index_t *seen = avro_index_new(p->model->arena, n->u.uni.n);
    if (!seen)
        return parse_oom(p), -1;
    for (size_t i = 0; i < n->u.uni.n; i++) {
        const avro_node_t *b = n->u.uni.branches[i];
        const char *key = b->named ? b->named->name.full : avro_kind_name(b->kind);
        long earlier = avro_index_add(seen, key, (long)i);
        if (earlier == AVRO_INDEX_OOM)
            return parse_oom(p), -1;
        if (earlier >= 0)
            return parse_fail(p, "Duplicate in union:%s", key), -1;
    }
    return 0;
}

/* Avro's resolving copy re-creates every field, validating defaults again
 * against the resolved types. */
static int check_record_defaults(avro_parse_t *p, const avro_node_t *n)
{
    for (size_t i = 0; i < n->u.record.n; i++)
        if (check_field_default(p, &n->u.record.fields[i]) != 0)
            return -1;
    return 0;
}

static int finish_document(avro_parse_t *p, const avro_node_t **root)
{
    if (resolve_slot(p, root) != 0)
        return -1;
    for (size_t i = 0; i < p->n_doc_nodes; i++)
        if (resolve_node(p, p->doc_nodes[i]) != 0)
            return -1;
    for (size_t i = 0; i < p->n_doc_nodes; i++) {
        const avro_node_t *n = p->doc_nodes[i];
        if (n->kind == AVRO_KIND_UNION && check_union(p, n) != 0)
            return -1;
        if (n->kind == AVRO_KIND_RECORD && check_record_defaults(p, n) != 0)
            return -1;
    }
    return 0;
}

/* ---- 7. Documents and the existing-schema name check
 * ---------------------------------------------- */

avro_parse_t *avro_parse_new(avro_model_t *m, int strict)
{
    avro_parse_t *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->model = m;
    p->strict = strict;
    p->names = strict ? AVRO_NAMES_STRICT : AVRO_NAMES_ANY;
    return p;
}

void avro_parse_free(avro_parse_t *p)
{
    if (!p)
        return;
    hmap_clear(&p->defined);
    free(p->doc_nodes);
    free(p->error);
    free(p);
}

const char *avro_parse_error(const avro_parse_t *p)
{
    return p->error;
}

/* Jackson, as Avro configures it, skips C/C++ comments; jansson does not,
 * so they become spaces first. (A byte-order mark stays an error: Jackson
 * rejects one in the String input Confluent hands it.) */
static char *strip_comments(const char *text, size_t len)
{
    char *out = malloc(len + 1);
    if (!out)
        return NULL;
    memcpy(out, text, len);
    out[len] = '\0';
    int in_string = 0;
    for (size_t i = 0; i < len; i++) {
        if (in_string) {
            if (out[i] == '\\' && i + 1 < len)
                i++;
            else if (out[i] == '"')
                in_string = 0;
        } else if (out[i] == '"') {
            in_string = 1;
        } else if (out[i] == '/' && i + 1 < len && out[i + 1] == '/') {
            while (i < len && out[i] != '\n')
                out[i++] = ' ';
        } else if (out[i] == '/' && i + 1 < len && out[i + 1] == '*') {
            char *end = memmem(out + i + 2, len - i - 2, "*/", 2);
            if (!end)
                break;
            for (size_t e = (size_t)(end - out) + 2; i < e; i++)
                if (out[i] != '\n')
                    out[i] = ' ';
            i--;
        }
    }
    return out;
}

static json_t *load_json(avro_parse_t *p, const char *text, size_t len)
{
    char *clean = memchr(text, '/', len) ? strip_comments(text, len) : NULL;
    if (memchr(text, '/', len) && !clean)
        return parse_oom(p);
    json_error_t je;
    json_t *doc = avro_json_load(clean ? clean : text, len, &je);
    free(clean);
    if (!doc)
        return parse_fail(p, "Invalid JSON: %s at line %d column %d", je.text, je.line, je.column);
    if (avro_model_own(p->model, doc) != 0)
        return parse_oom(p);
    return doc;
}

const avro_node_t *avro_parse_document(avro_parse_t *p, const char *text, size_t len)
{
    p->n_doc_nodes = 0;
    p->depth = 0;
    json_t *doc = load_json(p, text, len);
    if (!doc)
        return NULL;
    const avro_node_t *root = parse_schema(p, doc, NULL);
    if (!root || finish_document(p, &root) != 0)
        return NULL;
    return root;
}

/* Confluent's validateNames: existing schemas are parsed without name
 * checks, then the names reachable from the schema are checked with
 * Avro's Unicode validator (namespaces and aliases excepted). */
static int check_names_walk(avro_parse_t *p, hmap_t *seen, const avro_node_t *n)
{
    if (hmap_get_pair(seen, n, NULL))
        return 0;
    if (hmap_put_pair_try(seen, n, NULL, (void *)n) != 0)
        return parse_oom(p), -1;
    if (n->named && check_name(p, AVRO_NAMES_UTF, n->named->name.name, NULL) != 0)
        return -1;
    switch (n->kind) {
    case AVRO_KIND_RECORD:
        for (size_t i = 0; i < n->u.record.n; i++) {
            const avro_field_t *f = &n->u.record.fields[i];
            if (check_name(p, AVRO_NAMES_UTF, f->name, NULL) != 0 || check_names_walk(p, seen, f->type) != 0)
                return -1;
        }
        return 0;
    case AVRO_KIND_ENUM:
        for (size_t i = 0; i < n->u.enm.n; i++)
            if (check_name(p, AVRO_NAMES_UTF, n->u.enm.symbols[i], NULL) != 0)
                return -1;
        return 0;
    case AVRO_KIND_ARRAY:
    case AVRO_KIND_MAP: return check_names_walk(p, seen, n->u.items);
    case AVRO_KIND_UNION:
        for (size_t i = 0; i < n->u.uni.n; i++)
            if (check_names_walk(p, seen, n->u.uni.branches[i]) != 0)
                return -1;
        return 0;
    default: return 0;
    }
}

int avro_parse_check_names(avro_parse_t *p, const avro_node_t *root)
{
    hmap_t seen = {0};
    int rc = check_names_walk(p, &seen, root);
    hmap_clear(&seen);
    return rc;
}
