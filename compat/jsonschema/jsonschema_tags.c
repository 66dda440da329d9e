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
 * for a conditional. The index counts the written anyOf/allOf/oneOf in the
 * order of Confluent's JsonNodeComparator (jsonschema_order.c, each subschema
 * loaded on its own); where the object has no such keyword (a "type" list, an
 * object beside an if/then/else) the index is skipped, as in
 * JsonSchemaUtils.findNodeHelper. Where Confluent's walk meets a missing
 * node it throws a NullPointerException (a 500); here that is "No matching
 * path", like every other path that leads nowhere; where a subschema does
 * not load on its own (an unresolvable $ref: everit's SchemaException, a
 * 500 there) the loader's message is the refusal.
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
    const char *refused; /* static */
    char *failed;        /* a subschema's load error (malloc'd) */
    size_t budget;       /* comparisons left (jsonschema_order_sort) */
} find_t;

static jsonschema_json_t *helper(jsonschema_json_t *node, find_t *f, parts_t *p);

/* Integer.parseInt of an index: an optional sign, then decimal digits; -1 for
 * anything else or out of int range (Confluent then throws; here the path
 * leads nowhere). */
static long parse_index(const char *s)
{
    int neg = *s == '-';
    if (*s == '+' || *s == '-')
        s++;
    if (!*s)
        return -1;
    long v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9' || v > 214748364L)
            return -1;
        v = v * 10 + (*s - '0');
    }
    return neg || v > 2147483647L ? -1 : v;
}

/* findSubSchemasFromIndex: the index into the list as JsonNodeComparator
 * sorts it. That comparator loads each subschema on its own, with everit's
 * defaults (draft 4 unless the subschema names its "$schema"), and compares
 * the loaded schemas with JsonSchemaComparator (jsonschema_order.c). */
static jsonschema_json_t *by_index(jsonschema_json_t *node, find_t *f, const char *keyword, parts_t *p)
{
    const char *index = poll(p);
    jsonschema_json_t *list = get(node, keyword);
    if (!index || !list || list->kind != JSONSCHEMA_JSON_ARRAY)
        return NULL;
    size_t n = list->n;
    jsonschema_t **loaded = calloc(n ? n : 1, sizeof *loaded);
    const jsonschema_node_t **roots = calloc(n ? n : 1, sizeof *roots);
    jsonschema_json_t *picked = NULL;
    if (!loaded || !roots) {
        f->oom = 1;
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        char *error = NULL;
        if (list->elems[i]->kind != JSONSCHEMA_JSON_OBJECT) {
            f->refused = "Cannot parse Json Schema from JsonNode";
            goto done;
        }
        if (!(loaded[i] = jsonschema_parse_value(list->elems[i], JSONSCHEMA_DRAFT_4, &error))) {
            if (error && !f->failed)
                f->failed = error;
            else
                free(error);
            if (!f->failed)
                f->oom = 1;
            goto done;
        }
        roots[i] = jsonschema_root(loaded[i]);
    }
    if (jsonschema_order_sort(roots, n, &f->budget) != 0) {
        f->oom = 1;
        goto done;
    }
    long at = parse_index(index);
    if (at < 0 || (size_t)at >= n)
        goto done;
    for (size_t i = 0; i < n; i++)
        if (jsonschema_root(loaded[i]) == roots[at])
            picked = list->elems[i];
done:
    for (size_t i = 0; loaded && i < n; i++)
        jsonschema_free(loaded[i]);
    free(loaded);
    free(roots);
    return picked ? helper(picked, f, p) : NULL;
}

static jsonschema_json_t *helper(jsonschema_json_t *node, find_t *f, parts_t *p)
{
    const char *type = poll(p);
    if (!type || !node || f->refused || f->failed || f->oom)
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
    find_t f = {e->kind, 0, NULL, NULL, JSONSCHEMA_ORDER_BUDGET};
    *error = NULL;
    if (split_path(e->path, &p.l) != 0) {
        strlist_clear(&p.l);
        return NULL;
    }
    jsonschema_json_t *node = helper(doc, &f, &p);
    strlist_clear(&p.l);
    if (f.oom) {
        free(f.failed);
        return NULL;
    }
    if (f.refused || f.failed) {
        *error = f.failed ? f.failed : strdup(f.refused);
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
 * getInlineTaggedEntitiesRecursively walks the loaded model (everit's, which
 * the object model mirrors; for 2019-09/2020-12 the translation of
 * json-sKema's): a combination goes into its subschemas as
 * "<allof|anyof|oneof>.<i>." in JsonSchemaComparator order (jsonschema_order.c),
 * whether written or made by the loader (a "type" list is an anyOf, sibling
 * keyword families an allOf); an array into its items ("array."); a
 * conditional into "conditional.if.", ".then.", ".else."; a not into "not.";
 * an object lists itself ("object", unless it is a property's schema) and then
 * each property ("object.<name>", then into it), then its "definitions"
 * ("object.definitions.<name>.", each loaded on its own with its $refs made
 * "#", as Confluent does) and, for 2019-09/2020-12, its "$defs" (draft 4-7
 * keep those as plain JSON, which Confluent does not walk). A reference is
 * not followed. Tags are a schema's own "confluent:tags": those of the value
 * it was loaded from, so a part the loader split off a schema (the object of
 * {"type":"object","if":...}) has none. Properties and definitions are
 * java.util.HashMaps in Confluent (everit's ObjectSchema.Builder, org.json's
 * toMap), so they come in a HashMap's iteration order: by bucket of
 * String.hashCode at the table's final size, then as written (the same rule
 * as compat/protobuf/proto_tags.c, chapter 2).
 */

typedef struct lister {
    schema_tagged_t *items;
    size_t n, cap;
    strlist_t visited;
    int oom;
    int draft;     /* jsonschema_draft_t */
    size_t budget; /* comparisons left (jsonschema_order_sort) */
} lister_t;

/* String.hashCode of len bytes of UTF-8, with HashMap.hash's spread. */
static uint32_t java_hash(const char *s, size_t len)
{
    uint32_t h = utf8_java_hashn(s, len);
    return h ^ (h >> 16);
}

typedef struct keyed {
    size_t bucket, seq;
} keyed_t;

static int compare_keyed(const void *a, const void *b)
{
    const keyed_t *x = a, *y = b;
    if (x->bucket != y->bucket)
        return x->bucket < y->bucket ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* n names in the order a HashMap filled with them one by one iterates them
 * (indices into names). */
static size_t *hash_order(const jsonschema_str_t *names, size_t n)
{
    size_t capacity = 16;
    while (n > capacity / 4 * 3)
        capacity *= 2;
    keyed_t *k = calloc(n ? n : 1, sizeof *k);
    size_t *out = calloc(n ? n : 1, sizeof *out);
    if (!k || !out) {
        free(k);
        free(out);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        k[i] = (keyed_t){java_hash(names[i].s, names[i].len) & (uint32_t)(capacity - 1), i};
    qsort(k, n, sizeof *k, compare_keyed);
    for (size_t i = 0; i < n; i++)
        out[i] = k[i].seq;
    free(k);
    return out;
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

static void walk(lister_t *l, const jsonschema_node_t *n, const char *scope, int in_field, int depth);

/* replaceRefs: a copy of v with every "$ref" made "#" (NULL when out of memory). */
static jsonschema_json_t *without_refs(const jsonschema_json_t *v)
{
    jsonschema_json_t *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    *c = *v;
    c->str = NULL;
    c->elems = NULL;
    c->members = NULL;
    c->node = NULL;
    c->n = 0;
    if (v->str && !(c->str = malloc(v->len + 1)))
        goto oom;
    if (v->str) {
        memcpy(c->str, v->str, v->len);
        c->str[v->len] = '\0';
    }
    if (v->kind == JSONSCHEMA_JSON_ARRAY) {
        if (!(c->elems = calloc(v->n ? v->n : 1, sizeof *c->elems)))
            goto oom;
        for (; c->n < v->n; c->n++)
            if (!(c->elems[c->n] = without_refs(v->elems[c->n])))
                goto oom;
    } else if (v->kind == JSONSCHEMA_JSON_OBJECT) {
        if (!(c->members = calloc(v->n ? v->n : 1, sizeof *c->members)))
            goto oom;
        for (; c->n < v->n; c->n++) {
            const jsonschema_member_t *m = &v->members[c->n];
            int ref = m->key_len == 4 && memcmp(m->key, "$ref", 4) == 0;
            jsonschema_json_t *value = ref ? calloc(1, sizeof *value) : without_refs(m->value);
            char *key = malloc(m->key_len + 1);
            if (value && ref && !(value->str = strdup("#"))) {
                free(value);
                value = NULL;
            }
            if (!value || !key) {
                jsonschema_json_free(value);
                free(key);
                goto oom;
            }
            if (ref) {
                value->kind = JSONSCHEMA_JSON_STRING;
                value->len = 1;
            }
            memcpy(key, m->key, m->key_len);
            key[m->key_len] = '\0';
            c->members[c->n] = (jsonschema_member_t){key, m->key_len, value};
        }
    }
    return c;
oom:
    jsonschema_json_free(c);
    return NULL;
}

static jsonschema_str_t *member_names(const jsonschema_json_t *obj)
{
    jsonschema_str_t *names = calloc(obj->n ? obj->n : 1, sizeof *names);
    for (size_t i = 0; names && i < obj->n; i++)
        names[i] = (jsonschema_str_t){obj->members[i].key, obj->members[i].key_len};
    return names;
}

/* "definitions" (raw JSON: each loaded as new JsonSchema(replaceRefs(value)))
 * or, modern drafts only, "$defs" (the translator's schemas: the loaded nodes). */
static void list_definitions(lister_t *l, const jsonschema_json_t *src, const char *key, int draft,
                             const char *scope, int depth)
{
    const jsonschema_json_t *defs = jsonschema_json_get(src, key);
    int raw = strcmp(key, "definitions") == 0;
    if (!defs || defs->kind != JSONSCHEMA_JSON_OBJECT || (!raw && draft < JSONSCHEMA_DRAFT_2019_09))
        return;
    jsonschema_str_t *names = member_names(defs);
    size_t *order = names ? hash_order(names, defs->n) : NULL;
    if (!order) {
        free(names);
        l->oom = 1;
        return;
    }
    for (size_t i = 0; i < defs->n && !l->oom; i++) {
        const jsonschema_member_t *m = &defs->members[order[i]];
        strbuf_t sb = {0};
        strbuf_printf(&sb, "%s%s.", scope, key);
        strbuf_put(&sb, m->key, m->key_len);
        strbuf_putc(&sb, '.');
        char *s = strbuf_take(&sb);
        if (!s) {
            l->oom = 1;
            break;
        }
        if (!raw) {
            walk(l, m->value->node, s, 0, depth + 1);
        } else if (m->value->kind == JSONSCHEMA_JSON_OBJECT) {
            jsonschema_json_t *copy = without_refs(m->value);
            char *error = NULL;
            /* A definition that does not load on its own: Confluent throws;
             * here nothing below it is listed. */
            jsonschema_t *def = copy ? jsonschema_parse_value(copy, JSONSCHEMA_DRAFT_7, &error) : NULL;
            if (!copy)
                l->oom = 1;
            if (def)
                walk(l, jsonschema_root(def), s, 0, depth + 1);
            jsonschema_free(def);
            jsonschema_json_free(copy);
            free(error);
        }
        free(s);
    }
    free(order);
    free(names);
}

static void walk_object(lister_t *l, const jsonschema_node_t *n, const char *scope, int in_field, int depth)
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
        add_tagged(l, n->src, name, SCHEMA_ENTITY_RECORD);
    jsonschema_str_t *names = calloc(n->nprops ? n->nprops : 1, sizeof *names);
    for (size_t i = 0; names && i < n->nprops; i++)
        names[i] = n->props[i].name;
    size_t *order = names ? hash_order(names, n->nprops) : NULL;
    if (!order)
        l->oom = 1;
    for (size_t i = 0; order && i < n->nprops && !l->oom; i++) {
        const jsonschema_prop_t *prop = &n->props[order[i]];
        char *full = joined(l, name, ".", 1, "");
        char *path = full ? joined(l, full, prop->name.s, prop->name.len, "") : NULL;
        char *inner = path ? joined(l, path, ".", 1, "") : NULL;
        if (inner) {
            add_tagged(l, prop->schema->src, path, SCHEMA_ENTITY_FIELD);
            walk(l, prop->schema, inner, 1, depth + 1);
        }
        free(full);
        free(path);
        free(inner);
    }
    free(order);
    free(names);
    char *defs_scope = joined(l, name, ".", 1, "");
    if (defs_scope && n->src) { /* the unprocessed properties of the schema itself */
        list_definitions(l, n->src, "definitions", l->draft, defs_scope, depth);
        list_definitions(l, n->src, "$defs", l->draft, defs_scope, depth);
    }
    free(defs_scope);
    free(name);
}

static void walk(lister_t *l, const jsonschema_node_t *n, const char *scope, int in_field, int depth)
{
    if (!n || depth > JSONSCHEMA_JSON_MAX_DEPTH || l->oom)
        return;
    switch (n->kind) {
    case JSONSCHEMA_NODE_COMBINED: {
        static const char *const criteria[] = {"allof", "anyof", "oneof"};
        const char *criterion = criteria[n->criterion];
        const jsonschema_node_t **subs = calloc(n->nsubs ? n->nsubs : 1, sizeof *subs);
        if (!subs) {
            l->oom = 1;
            return;
        }
        memcpy(subs, n->subs, n->nsubs * sizeof *subs);
        if (jsonschema_order_sort(subs, n->nsubs, &l->budget) != 0)
            l->oom = 1;
        for (size_t i = 0; i < n->nsubs && !l->oom; i++) {
            strbuf_t sb = {0};
            strbuf_printf(&sb, "%s%s.%zu.", scope, criterion, i);
            char *s = strbuf_take(&sb);
            if (!s)
                l->oom = 1;
            else
                walk(l, subs[i], s, 0, depth + 1);
            free(s);
        }
        free(subs);
        return;
    }
    case JSONSCHEMA_NODE_ARRAY: {
        char *s = joined(l, scope, "array.", 6, "");
        if (s)
            walk(l, n->all_items, s, 0, depth + 1);
        free(s);
        return;
    }
    case JSONSCHEMA_NODE_OBJECT: walk_object(l, n, scope, in_field, depth); return;
    case JSONSCHEMA_NODE_CONDITIONAL: {
        static const char *const branches[] = {"if", "then", "else"};
        for (size_t i = 0; i < 3 && n->cond_owner && !l->oom; i++) {
            const jsonschema_json_t *v = jsonschema_json_get(n->cond_owner, branches[i]);
            if (!v || !v->node)
                continue;
            strbuf_t sb = {0};
            strbuf_printf(&sb, "%sconditional.%s.", scope, branches[i]);
            char *s = strbuf_take(&sb);
            if (!s)
                l->oom = 1;
            else
                walk(l, v->node, s, 0, depth + 1);
            free(s);
        }
        return;
    }
    case JSONSCHEMA_NODE_NOT: {
        char *s = joined(l, scope, "not.", 4, "");
        if (s)
            walk(l, n->negated, s, 0, depth + 1);
        free(s);
        return;
    }
    default: return; /* a reference is not followed; the rest hold no entities */
    }
}

int jsonschema_tags_list(const jsonschema_t *schema, schema_tagged_t **out, size_t *n)
{
    lister_t l = {0};
    l.draft = schema->draft;
    l.budget = JSONSCHEMA_ORDER_BUDGET;
    walk(&l, schema->root, "", 0, 0);
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
