/*
 * jsonschema_tags: inline tags -- the "confluent:tags" keyword of a schema
 * object -- edited into a schema's text as Confluent's JsonSchema.copy(tagsToAdd,
 * tagsToRemove) does, with JsonSchemaUtils.findMatchingEntity.
 *
 * Chapters: 1. finding an entity  2. editing  3. listing
 *
 * An entity path names the way down from the root, one step per part:
 * "object" (then a property name, or "definitions"/"$defs" and a
 * definition name; a name may itself contain dots: parts are joined until
 * the object has such a member), "array" (items), "not", "anyof"/"allof"/
 * "oneof" followed by an index into the subschemas, "allof.N.conditional.if"
 * for a conditional. Confluent indexes the subschemas of anyOf/allOf/oneOf in
 * the order of its JsonSchemaComparator, not as written; that order is not
 * reproduced here, so a step through such a list of more than one subschema
 * is refused (docs/api.md, "Tags"). Where Confluent's walk meets a missing
 * node it throws a NullPointerException (a 500); here that is "No matching
 * path", like every other path that leads nowhere.
 */
#include "compat/jsonschema/internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"
#include "base/utf8.h"
#include "base/strlist.h"

#define TAGS "confluent:tags" /* JsonSchema.TAGS */

/* ---- 1. Finding an entity ------------------------------------------------------------ */

/* The path's parts (Java's split on ".", trailing empty parts dropped) as a queue. */
typedef struct parts {
    strlist_t l;
    size_t next;
} parts_t;

static const char *peek(const parts_t *p)
{
    return p->next < p->l.n ? p->l.items[p->next] : NULL;
}

static const char *poll(parts_t *p)
{
    return p->next < p->l.n ? p->l.items[p->next++] : NULL;
}

static int has_member(const jsonschema_json_t *obj, const char *key, size_t len)
{
    if (!obj || obj->kind != JSONSCHEMA_JSON_OBJECT)
        return 0;
    for (size_t i = 0; i < obj->n; i++)
        if (obj->members[i].key_len == len && memcmp(obj->members[i].key, key, len) == 0)
            return 1;
    return 0;
}

static jsonschema_json_t *member(const jsonschema_json_t *obj, const char *key, size_t len)
{
    if (!obj || obj->kind != JSONSCHEMA_JSON_OBJECT)
        return NULL;
    for (size_t i = 0; i < obj->n; i++)
        if (obj->members[i].key_len == len && memcmp(obj->members[i].key, key, len) == 0)
            return obj->members[i].value;
    return NULL;
}

static jsonschema_json_t *get(const jsonschema_json_t *obj, const char *key)
{
    return member(obj, key, strlen(key));
}

/* findNodeFromNameBuilder: parts joined with "." until node has that member. */
static jsonschema_json_t *by_name(const jsonschema_json_t *node, parts_t *p, int *oom)
{
    if (!peek(p) || !node)
        return NULL;
    strbuf_t name = {0};
    strbuf_puts(&name, poll(p));
    while (!has_member(node, name.data ? name.data : "", name.len) && peek(p)) {
        strbuf_putc(&name, '.');
        strbuf_puts(&name, poll(p));
    }
    if (name.failed) {
        *oom = 1;
        strbuf_free(&name);
        return NULL;
    }
    jsonschema_json_t *v = member(node, name.data ? name.data : "", name.len);
    strbuf_free(&name);
    return v;
}

/* Why a path failed other than by leading nowhere (static text), or NULL. */
typedef struct find {
    schema_entity_kind_t kind;
    int oom;
    const char *refused;
} find_t;

static jsonschema_json_t *helper(jsonschema_json_t *node, find_t *f, parts_t *p);

/* findSubSchemasFromIndex. */
static jsonschema_json_t *by_index(jsonschema_json_t *node, find_t *f, const char *keyword, parts_t *p)
{
    const char *index = poll(p);
    jsonschema_json_t *list = get(node, keyword);
    if (!index || !list || list->kind != JSONSCHEMA_JSON_ARRAY)
        return NULL;
    if (list->n > 1) {
        f->refused = "Tag paths through anyOf, allOf or oneOf with more than one subschema are not supported "
                     "by this registry";
        return NULL;
    }
    if (strcmp(index, "0") != 0 || list->n == 0)
        return NULL;
    return helper(list->elems[0], f, p);
}

static jsonschema_json_t *helper(jsonschema_json_t *node, find_t *f, parts_t *p)
{
    const char *type = poll(p);
    if (!type || !node || f->refused || f->oom)
        return NULL;
    if (strcmp(type, "object") == 0) {
        if (f->kind == SCHEMA_ENTITY_RECORD && !peek(p))
            return node;
        const char *word = peek(p);
        if (!word)
            return NULL;
        jsonschema_json_t *result;
        if (strcmp(word, "definitions") == 0 || strcmp(word, "$defs") == 0) {
            poll(p);
            result = by_name(get(node, word), p, &f->oom);
        } else {
            result = by_name(get(node, "properties"), p, &f->oom);
        }
        if (!result || !peek(p))
            return result;
        return helper(result, f, p);
    }
    if (strcmp(type, "array") == 0)
        return helper(get(node, "items"), f, p);
    if (strcmp(type, "anyof") == 0) {
        if (get(node, "anyOf"))
            return by_index(node, f, "anyOf", p);
        poll(p); /* "type": ["null", "object"] and the like */
        return helper(node, f, p);
    }
    if (strcmp(type, "allof") == 0) {
        if (get(node, "allOf"))
            return by_index(node, f, "allOf", p);
        poll(p);
        if (peek(p) && strcmp(peek(p), "conditional") == 0) {
            poll(p);
            const char *branch = poll(p); /* "if", "then" or "else" */
            return branch ? helper(get(node, branch), f, p) : NULL;
        }
        return helper(node, f, p);
    }
    if (strcmp(type, "oneof") == 0)
        return by_index(node, f, "oneOf", p);
    if (strcmp(type, "not") == 0)
        return helper(get(node, "not"), f, p);
    return NULL;
}

static int split_path(const char *path, strlist_t *out)
{
    const char *s = path;
    for (;;) {
        const char *dot = strchr(s, '.');
        size_t len = dot ? (size_t)(dot - s) : strlen(s);
        char *part = strndup(s, len);
        if (!part || strlist_push_owned(out, part) != 0)
            return -1;
        if (!dot)
            break;
        s = dot + 1;
    }
    if (out->n == 1 && out->items[0][0] == '\0')
        return 0;
    while (out->n > 0 && out->items[out->n - 1][0] == '\0')
        free(out->items[--out->n]);
    return 0;
}

/* The entity's object (borrowed), or NULL and *error (NULL: out of memory). */
static jsonschema_json_t *find_entity(jsonschema_json_t *doc, const schema_tag_edit_t *e, char **error)
{
    parts_t p = {{0}, 0};
    find_t f = {e->kind, 0, NULL};
    *error = NULL;
    if (split_path(e->path, &p.l) != 0) {
        strlist_clear(&p.l);
        return NULL;
    }
    jsonschema_json_t *node = helper(doc, &f, &p);
    strlist_clear(&p.l);
    if (f.oom)
        return NULL;
    if (f.refused) {
        *error = strdup(f.refused);
        return NULL;
    }
    if (!node || node->kind != JSONSCHEMA_JSON_OBJECT) {
        if (asprintf(error, "No matching path '%s' found in the schema", e->path) < 0)
            *error = NULL;
        return NULL;
    }
    return node;
}

/* ---- 2. Editing (JsonSchema.modifySchemaTags) --------------------------------------------- */

/* JsonNode.asText of a tag: a string's or number's text, true/false/null, "" else. */
static const char *tag_text(const jsonschema_json_t *v, size_t *len)
{
    switch (v->kind) {
    case JSONSCHEMA_JSON_STRING:
    case JSONSCHEMA_JSON_NUMBER: *len = v->len; return v->str;
    case JSONSCHEMA_JSON_TRUE: *len = 4; return "true";
    case JSONSCHEMA_JSON_FALSE: *len = 5; return "false";
    case JSONSCHEMA_JSON_NULL: *len = 4; return "null";
    default: *len = 0; return "";
    }
}

static int list_has(const strlist_t *l, const char *s)
{
    for (size_t i = 0; l && i < l->n; i++)
        if (strcmp(l->items[i], s) == 0)
            return 1;
    return 0;
}

static jsonschema_json_t *string_value(const char *s)
{
    jsonschema_json_t *v = calloc(1, sizeof *v);
    if (!v || !(v->str = strdup(s))) {
        free(v);
        return NULL;
    }
    v->kind = JSONSCHEMA_JSON_STRING;
    v->len = strlen(s);
    return v;
}

/* The tags of node, plus add, minus remove (a LinkedHashSet), written in
 * place, appended as the last member, or the member removed when none is left. */
static int edit_entity(jsonschema_json_t *node, const schema_tag_edit_t *e, char **error)
{
    strlist_t tags = {0};
    jsonschema_json_t *old = get(node, TAGS);
    *error = NULL;
    if (old && old->kind != JSONSCHEMA_JSON_ARRAY) {
        if (asprintf(error, "The %s of '%s' is not an array", TAGS, e->path) < 0)
            *error = NULL;
        return -1;
    }
    for (size_t i = 0; old && i < old->n; i++) {
        size_t len;
        const char *t = tag_text(old->elems[i], &len);
        char *copy = strndup(t, len);
        if (!copy)
            goto oom;
        if (list_has(&tags, copy))
            free(copy);
        else if (strlist_push_owned(&tags, copy) != 0)
            goto oom;
    }
    for (size_t i = 0; e->add && i < e->add->n; i++)
        if (!list_has(&tags, e->add->items[i]) && strlist_push(&tags, e->add->items[i]) != 0)
            goto oom;
    jsonschema_json_t *arr = calloc(1, sizeof *arr);
    if (!arr || !(arr->elems = calloc(tags.n ? tags.n : 1, sizeof *arr->elems))) {
        free(arr);
        goto oom;
    }
    arr->kind = JSONSCHEMA_JSON_ARRAY;
    for (size_t i = 0; i < tags.n; i++) {
        if (list_has(e->remove, tags.items[i]))
            continue;
        if (!(arr->elems[arr->n] = string_value(tags.items[i]))) {
            jsonschema_json_free(arr);
            goto oom;
        }
        arr->n++;
    }
    strlist_clear(&tags);
    size_t at = node->n;
    for (size_t i = 0; i < node->n; i++)
        if (node->members[i].value == old)
            at = i;
    if (arr->n == 0) {
        jsonschema_json_free(arr);
        if (at < node->n) {
            free(node->members[at].key);
            jsonschema_json_free(node->members[at].value);
            memmove(&node->members[at], &node->members[at + 1], (node->n - at - 1) * sizeof *node->members);
            node->n--;
        }
        return 0;
    }
    if (at < node->n) { /* ObjectNode.replace keeps the member's place */
        jsonschema_json_free(node->members[at].value);
        node->members[at].value = arr;
        return 0;
    }
    jsonschema_member_t *members = realloc(node->members, (node->n + 1) * sizeof *members);
    char *key = strdup(TAGS);
    if (!members || !key) {
        if (members)
            node->members = members;
        free(key);
        jsonschema_json_free(arr);
        return -1;
    }
    node->members = members;
    node->members[node->n++] = (jsonschema_member_t){key, strlen(TAGS), arr};
    return 0;
oom:
    strlist_clear(&tags);
    return -1;
}

char *jsonschema_tags_edit(const char *text, size_t len, const schema_tag_edit_t *edits, size_t n,
                           char **error)
{
    *error = NULL;
    jsonschema_json_t *doc = jsonschema_json_parse(text, len, error);
    if (!doc)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        jsonschema_json_t *node = find_entity(doc, &edits[i], error);
        if (!node || edit_entity(node, &edits[i], error) != 0) {
            jsonschema_json_free(doc);
            if (!*error)
                *error = strdup("out of memory");
            return NULL;
        }
    }
    char *out = jsonschema_json_dump(doc);
    jsonschema_json_free(doc);
    if (!out)
        *error = strdup("out of memory");
    return out;
}

/* ---- 3. Listing (JsonSchema.inlineTaggedEntities) -------------------------------------- */

/*
 * getInlineTaggedEntitiesRecursively walks everit's model: an ObjectSchema
 * lists itself ("object", unless it is a property's schema) and then each
 * property ("object.<name>", then into it), then its "definitions" and
 * "$defs" ("object.definitions.<name>."); "array." goes into items, "not."
 * into not, "<allof|anyof|oneof>.<i>." into the subschemas. Those maps
 * are java.util.HashMaps in Confluent (everit's ObjectSchema.Builder, org.json's
 * toMap), so properties and definitions come in a HashMap's iteration order:
 * by bucket of String.hashCode at the table's final size, then as written
 * (the same rule as compat/protobuf/proto_tags.c, chapter 2). Here the
 * schema's JSON is read directly, so only the plain shapes everit loads as
 * one schema are followed: an object, an array, a lone "not", a lone
 * anyOf/allOf/oneOf of one subschema. A combination of several subschemas
 * (everit's CombinedSchema, indexed in JsonSchemaComparator order) or of
 * several keyword families (an object with an allOf, a "type" list, if/then/else)
 * is not gone into: nothing below it is listed (docs/api.md, "Tags").
 */

typedef struct lister {
    schema_tagged_t *items;
    size_t n, cap;
    strlist_t visited;
    int oom;
} lister_t;

/* String.hashCode of len bytes of UTF-8, with HashMap.hash's spread. */
static uint32_t java_hash(const char *s, size_t len)
{
    uint32_t h = utf8_java_hashn(s, len);
    return h ^ (h >> 16);
}

typedef struct keyed {
    const jsonschema_member_t *m;
    size_t bucket, seq;
} keyed_t;

static int compare_keyed(const void *a, const void *b)
{
    const keyed_t *x = a, *y = b;
    if (x->bucket != y->bucket)
        return x->bucket < y->bucket ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* obj's members in the order a HashMap filled with them one by one iterates them. */
static keyed_t *hash_order(const jsonschema_json_t *obj)
{
    size_t capacity = 16;
    while (obj->n > capacity / 4 * 3)
        capacity *= 2;
    keyed_t *k = calloc(obj->n ? obj->n : 1, sizeof *k);
    if (!k)
        return NULL;
    for (size_t i = 0; i < obj->n; i++) {
        uint32_t h = java_hash(obj->members[i].key, obj->members[i].key_len);
        k[i] = (keyed_t){&obj->members[i], h & (uint32_t)(capacity - 1), i};
    }
    qsort(k, obj->n, sizeof *k, compare_keyed);
    return k;
}

/* getInlineTags: the schema's "confluent:tags" strings, without duplicates. */
static void add_tagged(lister_t *l, const jsonschema_json_t *schema, const char *path,
                       schema_entity_kind_t kind)
{
    const jsonschema_json_t *arr =
        schema && schema->kind == JSONSCHEMA_JSON_OBJECT ? jsonschema_json_get(schema, TAGS) : NULL;
    if (!arr || arr->kind != JSONSCHEMA_JSON_ARRAY)
        return;
    strlist_t tags = {0};
    for (size_t i = 0; i < arr->n; i++) {
        const jsonschema_json_t *t = arr->elems[i];
        if (t->kind != JSONSCHEMA_JSON_STRING || memchr(t->str, '\0', t->len))
            continue;
        int seen = 0;
        for (size_t j = 0; j < tags.n && !seen; j++)
            seen = strcmp(tags.items[j], t->str) == 0;
        if (!seen && strlist_push(&tags, t->str) != 0)
            l->oom = 1;
    }
    if (!tags.n)
        return;
    /* A LinkedHashMap put: an entity listed again keeps its place. */
    for (size_t i = 0; i < l->n; i++)
        if (l->items[i].kind == kind && strcmp(l->items[i].path, path) == 0) {
            strlist_clear(&l->items[i].tags);
            l->items[i].tags = tags;
            return;
        }
    char *p = strdup(path);
    if (!p || jsonschema_grow((void **)&l->items, &l->cap, l->n + 1, sizeof *l->items) != 0) {
        free(p);
        strlist_clear(&tags);
        l->oom = 1;
        return;
    }
    l->items[l->n++] = (schema_tagged_t){p, kind, tags};
}

static void list_schema(lister_t *l, const jsonschema_json_t *v, const char *scope, int in_field, int depth);

static char *joined(lister_t *l, const char *a, const char *b, size_t blen, const char *c)
{
    strbuf_t sb = {0};
    strbuf_puts(&sb, a);
    strbuf_put(&sb, b, blen);
    strbuf_puts(&sb, c);
    char *out = strbuf_take(&sb);
    if (!out)
        l->oom = 1;
    return out;
}

static void list_definitions(lister_t *l, const jsonschema_json_t *v, const char *key, const char *scope,
                             int depth)
{
    const jsonschema_json_t *defs = jsonschema_json_get(v, key);
    if (!defs || defs->kind != JSONSCHEMA_JSON_OBJECT)
        return;
    keyed_t *order = hash_order(defs);
    if (!order) {
        l->oom = 1;
        return;
    }
    for (size_t i = 0; i < defs->n; i++) {
        const jsonschema_member_t *m = order[i].m;
        strbuf_t sb = {0};
        strbuf_printf(&sb, "%s%s.", scope, key);
        strbuf_put(&sb, m->key, m->key_len);
        strbuf_putc(&sb, '.');
        char *s = strbuf_take(&sb);
        if (!s) {
            l->oom = 1;
            break;
        }
        list_schema(l, m->value, s, 0, depth + 1);
        free(s);
    }
    free(order);
}

static void list_object(lister_t *l, const jsonschema_json_t *v, const char *scope, int in_field, int depth)
{
    char *name = joined(l, scope, "object", 6, "");
    if (!name)
        return;
    for (size_t i = 0; i < l->visited.n; i++)
        if (strcmp(l->visited.items[i], name) == 0) {
            free(name);
            return;
        }
    if (strlist_push(&l->visited, name) != 0)
        l->oom = 1;
    if (!in_field)
        add_tagged(l, v, name, SCHEMA_ENTITY_RECORD);
    const jsonschema_json_t *props = jsonschema_json_get(v, "properties");
    keyed_t *order = props && props->kind == JSONSCHEMA_JSON_OBJECT ? hash_order(props) : NULL;
    for (size_t i = 0; order && i < props->n; i++) {
        const jsonschema_member_t *m = order[i].m;
        char *path = joined(l, name, ".", 1, "");
        char *full = path ? joined(l, path, m->key, m->key_len, "") : NULL;
        char *inner = full ? joined(l, full, ".", 1, "") : NULL;
        if (inner) {
            add_tagged(l, m->value, full, SCHEMA_ENTITY_FIELD);
            list_schema(l, m->value, inner, 1, depth + 1);
        }
        free(path);
        free(full);
        free(inner);
    }
    if (props && props->kind == JSONSCHEMA_JSON_OBJECT && !order)
        l->oom = 1;
    free(order);
    char *defs_scope = joined(l, name, ".", 1, "");
    if (defs_scope) {
        list_definitions(l, v, "definitions", defs_scope, depth);
        list_definitions(l, v, "$defs", defs_scope, depth);
    }
    free(defs_scope);
    free(name);
}

static int has(const jsonschema_json_t *v, const char *key)
{
    return jsonschema_json_get(v, key) != NULL;
}

static void list_schema(lister_t *l, const jsonschema_json_t *v, const char *scope, int in_field, int depth)
{
    if (!v || v->kind != JSONSCHEMA_JSON_OBJECT || depth > JSONSCHEMA_JSON_MAX_DEPTH || l->oom)
        return;
    static const char *const combinators[] = {"allOf", "anyOf", "oneOf"};
    static const char *const criteria[] = {"allof", "anyof", "oneof"};
    const jsonschema_json_t *type = jsonschema_json_get(v, "type");
    int plain = !type && !has(v, "properties") && !has(v, "items");
    int ncomb = 0, which = -1;
    for (int i = 0; i < 3; i++)
        if (has(v, combinators[i])) {
            ncomb++;
            which = i;
        }
    if (ncomb + has(v, "not") + has(v, "if") > 1 || (type && type->kind != JSONSCHEMA_JSON_STRING))
        return; /* several schemas in one: a CombinedSchema not followed here */
    if (ncomb) {
        const jsonschema_json_t *subs = jsonschema_json_get(v, combinators[which]);
        if (!plain || subs->kind != JSONSCHEMA_JSON_ARRAY || subs->n != 1)
            return;
        char *s = joined(l, scope, criteria[which], strlen(criteria[which]), ".0.");
        if (s)
            list_schema(l, subs->elems[0], s, 0, depth + 1);
        free(s);
        return;
    }
    if (has(v, "not") || has(v, "if")) {
        if (plain && has(v, "not")) {
            char *s = joined(l, scope, "not.", 4, "");
            if (s)
                list_schema(l, jsonschema_json_get(v, "not"), s, 0, depth + 1);
            free(s);
        }
        return;
    }
    int object = type ? jsonschema_json_str_is(type, "object") : has(v, "properties") && !has(v, "items");
    int array = type ? jsonschema_json_str_is(type, "array") : has(v, "items") && !has(v, "properties");
    if (object) {
        list_object(l, v, scope, in_field, depth);
    } else if (array) {
        const jsonschema_json_t *items = jsonschema_json_get(v, "items");
        if (items && items->kind == JSONSCHEMA_JSON_OBJECT) {
            char *s = joined(l, scope, "array.", 6, "");
            if (s)
                list_schema(l, items, s, 0, depth + 1);
            free(s);
        }
    }
}

int jsonschema_tags_list(const jsonschema_t *schema, schema_tagged_t **out, size_t *n)
{
    lister_t l = {0};
    list_schema(&l, schema->doc, "", 0, 0);
    strlist_clear(&l.visited);
    if (l.oom) {
        schema_tagged_free(l.items, l.n);
        *out = NULL;
        *n = 0;
        return -1;
    }
    *out = l.items;
    *n = l.n;
    return 0;
}
