/*
 * avro_tags: inline tags -- the "confluent:tags" property of records and
 * fields -- edited into a schema's text and listed from a model, as
 * Confluent's AvroSchema does (copy(tagsToAdd, tagsToRemove) with
 * AvroSchemaUtils.findMatchingEntity; inlineTaggedEntities).
 *
 * Chapters: 1. entity paths  2. finding an entity  3. editing  4. listing
 *
 * The edit works on the JSON of the stored canonical text, as Confluent's
 * does on a Jackson tree of it, and gives back JSON text that the registry
 * then registers like any other (so the stored text is canonical again).
 * findMatchingEntity is not a name resolver but a breadth-first walk of
 * that JSON with quirks a client can see, kept here on purpose:
 *   - the namespace compared is the top-level document's, never a nested
 *     record's own "namespace"; an empty namespace in the path matches any;
 *   - the path is split on every "." as Java's String.split does (trailing
 *     empty parts dropped), so a leading "." makes the namespace ".x";
 *   - a record whose name matches but lacks the field ends that branch.
 */
#include "compat/avro/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strbuf.h"

#define TAGS "confluent:tags" /* AvroSchema.TAGS */

/* ---- 1. Entity paths ----------------------------------------------------------- */

/* Java's path.split("\\."): parts into *parts (strdup'd), trailing empty parts
 * dropped; "" is one empty part. 0, or -1 out of memory. */
static int split_path(const char *path, strlist_t *parts)
{
    const char *p = path;
    for (;;) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        char *part = strndup(p, len);
        if (!part || strlist_push_owned(parts, part) != 0)
            return -1;
        if (!dot)
            break;
        p = dot + 1;
    }
    if (parts->n == 1 && parts->items[0][0] == '\0')
        return 0; /* "".split gives [""] */
    while (parts->n > 0 && parts->items[parts->n - 1][0] == '\0')
        free(parts->items[--parts->n]);
    return 0;
}

/* String.join(".", parts[0, end)). */
static char *join_parts(const strlist_t *parts, size_t end)
{
    strbuf_t b = {0};
    for (size_t i = 0; i < end; i++) {
        if (i)
            strbuf_putc(&b, '.');
        strbuf_puts(&b, parts->items[i]);
    }
    return strbuf_take(&b);
}

/* ---- 2. Finding an entity (AvroSchemaUtils.findMatchingEntity) ------------------- */

/* JsonNode.asText of a member: a string's text, "" for anything else here. */
static const char *as_text(const json_t *v)
{
    const char *s = v ? avro_json_text(v, NULL) : NULL;
    return s ? s : "";
}

typedef struct queue {
    const json_t **items;
    size_t head, n, cap;
} queue_t;

static int queue_push(queue_t *q, const json_t *v)
{
    if (!v)
        return 0; /* a missing "items"/"values": nothing to visit */
    if (q->n == q->cap) {
        size_t cap = q->cap ? q->cap * 2 : 16;
        const json_t **items = realloc(q->items, cap * sizeof *items);
        if (!items)
            return -1;
        q->items = items;
        q->cap = cap;
    }
    q->items[q->n++] = v;
    return 0;
}

/* The matching object of the document (borrowed), or NULL with *error. */
static json_t *find_entity(json_t *doc, const schema_tag_edit_t *e, char **error)
{
    strlist_t ids = {0};
    char *space = NULL;
    const char *record, *field = NULL;
    json_t *found = NULL;
    queue_t q = {0};
    if (split_path(e->path, &ids) != 0)
        goto oom;
    size_t need = e->kind == SCHEMA_ENTITY_RECORD ? 1 : 2;
    if (ids.n < need) {
        /* Arrays.copyOfRange(identifiers, 0, length - need) with from > to. */
        if (asprintf(error, "0 > %d", (int)ids.n - (int)need) < 0)
            *error = NULL;
        strlist_clear(&ids);
        return NULL;
    }
    if (!(space = join_parts(&ids, ids.n - need)))
        goto oom;
    record = ids.items[ids.n - need];
    if (need == 2)
        field = ids.items[ids.n - 1];

    /* Every node is visited with the top-level document's namespace. */
    const json_t *top_space = json_is_object(doc) ? json_object_get(doc, "namespace") : NULL;
    const char *ns = top_space ? avro_json_text(top_space, NULL) : NULL;
    if (queue_push(&q, doc) != 0)
        goto oom;
    while (q.head < q.n && !found) {
        json_t *curr = (json_t *)q.items[q.head++];
        json_t *type = json_is_object(curr) ? json_object_get(curr, "type") : NULL;
        if (!type) {
            /* A union, or anything else without "type": its elements or member values. */
            if (json_is_array(curr)) {
                for (size_t i = 0; i < json_array_size(curr); i++)
                    if (queue_push(&q, json_array_get(curr, i)) != 0)
                        goto oom;
            } else if (json_is_object(curr)) {
                for (void *it = json_object_iter(curr); it; it = json_object_iter_next(curr, it))
                    if (queue_push(&q, json_object_iter_value(it)) != 0)
                        goto oom;
            }
            continue;
        }
        const char *t = as_text(type);
        if (strcmp(t, "record") == 0) {
            json_t *fields = json_object_get(curr, "fields");
            if ((space[0] == '\0' || (ns && strcmp(space, ns) == 0)) &&
                strcmp(record, as_text(json_object_get(curr, "name"))) == 0) {
                if (!field) {
                    found = curr;
                } else {
                    for (size_t i = 0; i < json_array_size(fields) && !found; i++) {
                        json_t *f = json_array_get(fields, i);
                        if (json_is_object(f) && strcmp(field, as_text(json_object_get(f, "name"))) == 0)
                            found = f;
                    }
                }
            } else {
                for (size_t i = 0; i < json_array_size(fields); i++)
                    if (queue_push(&q, json_array_get(fields, i)) != 0)
                        goto oom;
            }
        } else if (strcmp(t, "array") == 0) {
            if (queue_push(&q, json_object_get(curr, "items")) != 0)
                goto oom;
        } else if (strcmp(t, "map") == 0) {
            if (queue_push(&q, json_object_get(curr, "values")) != 0)
                goto oom;
        } else if (queue_push(&q, type) != 0) { /* a field, or a type nested in "type" */
            goto oom;
        }
    }
    if (!found && asprintf(error, "No matching path '%s' found in the schema", e->path) < 0)
        *error = NULL;
    free(q.items);
    free(space);
    strlist_clear(&ids);
    return found;
oom:
    free(q.items);
    free(space);
    strlist_clear(&ids);
    *error = NULL;
    return NULL;
}

/* ---- 3. Editing (AvroSchema.copy with tags, modifySchemaTags) --------------------- */

static int list_has(const strlist_t *l, const char *s)
{
    for (size_t i = 0; l && i < l->n; i++)
        if (strcmp(l->items[i], s) == 0)
            return 1;
    return 0;
}

/* One entity: its tags as a LinkedHashSet, plus add, minus remove; written
 * back in place, or the property removed when none is left. 0, or -1 with
 * *error (NULL: out of memory). */
static int edit_entity(json_t *node, const schema_tag_edit_t *e, char **error)
{
    strlist_t tags = {0};
    json_t *old = json_object_get(node, TAGS);
    if (old && !json_is_array(old)) {
        /* Jackson's (ArrayNode) cast fails there; no edit of such a schema. */
        if (asprintf(error, "The %s of '%s' is not an array", TAGS, e->path) < 0)
            *error = NULL;
        return -1;
    }
    for (size_t i = 0; i < json_array_size(old); i++) {
        /* JsonNode.asText of a tag: numbers and literals as their JSON text too. */
        const json_t *v = json_array_get(old, i);
        char *t;
        if (json_is_object(v) || json_is_array(v)) {
            t = strdup("");
        } else if (avro_json_text(v, NULL)) {
            t = strdup(avro_json_text(v, NULL));
        } else {
            strbuf_t b = {0};
            avro_buf_json_value(&b, v);
            t = strbuf_take(&b);
        }
        if (!t)
            goto oom;
        if (list_has(&tags, t))
            free(t);
        else if (strlist_push_owned(&tags, t) != 0)
            goto oom;
    }
    for (size_t i = 0; e->add && i < e->add->n; i++)
        if (!list_has(&tags, e->add->items[i]) && strlist_push(&tags, e->add->items[i]) != 0)
            goto oom;
    json_t *arr = json_array();
    if (!arr)
        goto oom;
    for (size_t i = 0; i < tags.n; i++)
        if (!list_has(e->remove, tags.items[i]) &&
            json_array_append_new(arr, json_string(tags.items[i])) != 0) {
            json_decref(arr);
            goto oom;
        }
    strlist_clear(&tags);
    if (json_array_size(arr) == 0) {
        json_decref(arr);
        json_object_del(node, TAGS); /* -1 when there was none: nothing to remove */
        return 0;
    }
    /* In place when the property exists (ObjectNode.replace), else last. */
    if (json_object_set_new(node, TAGS, arr) != 0) {
        *error = NULL;
        return -1;
    }
    return 0;
oom:
    strlist_clear(&tags);
    *error = NULL;
    return -1;
}

char *avro_tags_edit(const char *text, size_t len, const schema_tag_edit_t *edits, size_t n, char **error)
{
    json_error_t je;
    *error = NULL;
    json_t *doc = avro_json_load(text, len, &je);
    if (!doc) {
        /* A stored canonical text always loads; say so if one ever does not. */
        if (asprintf(error, "Could not parse Avro schema: %s", je.text) < 0)
            *error = NULL;
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        json_t *node = find_entity(doc, &edits[i], error);
        if (!node || edit_entity(node, &edits[i], error) != 0) {
            json_decref(doc);
            if (!*error)
                *error = strdup("out of memory");
            return NULL;
        }
    }
    strbuf_t b = {0};
    avro_buf_json_value(&b, doc);
    json_decref(doc);
    char *out = strbuf_take(&b);
    if (!out)
        *error = strdup("out of memory");
    return out;
}

/* ---- 4. Listing (AvroSchema.inlineTaggedEntities) --------------------------------- */

typedef struct lister {
    schema_tagged_t *items;
    size_t n, cap;
    strlist_t visited; /* records' full names */
    int oom;
} lister_t;

/* getInlineTags: the property as a list (Avro's getObjectProp gives a JSON
 * array as a List); each element's toString: a string's text, else its JSON. */
static int props_tags(const avro_props_t *props, strlist_t *out)
{
    for (size_t i = 0; i < props->n; i++) {
        if (strcmp(props->items[i].key, TAGS) != 0 || !json_is_array(props->items[i].value))
            continue;
        const json_t *arr = props->items[i].value;
        for (size_t j = 0; j < json_array_size(arr); j++) {
            const json_t *v = json_array_get(arr, j);
            const char *s = avro_json_text(v, NULL);
            char *text;
            if (s) {
                text = strdup(s);
            } else {
                strbuf_t b = {0};
                avro_buf_json_value(&b, v);
                text = strbuf_take(&b);
            }
            if (!text)
                return -1;
            if (list_has(out, text))
                free(text);
            else if (strlist_push_owned(out, text) != 0)
                return -1;
        }
    }
    return 0;
}

static void lister_add(lister_t *l, char *path, schema_entity_kind_t kind, const avro_props_t *props)
{
    strlist_t tags = {0};
    if (!path || props_tags(props, &tags) != 0) {
        l->oom = 1;
    } else if (tags.n > 0) {
        if (l->n == l->cap) {
            size_t cap = l->cap ? l->cap * 2 : 8;
            schema_tagged_t *items = realloc(l->items, cap * sizeof *items);
            if (!items) {
                l->oom = 1;
                goto drop;
            }
            l->items = items;
            l->cap = cap;
        }
        l->items[l->n++] = (schema_tagged_t){path, kind, tags};
        return;
    }
drop:
    free(path);
    strlist_clear(&tags);
}

static void list_node(lister_t *l, const avro_node_t *n)
{
    if (!n || l->oom)
        return;
    switch (n->kind) {
    case AVRO_KIND_UNION:
        for (size_t i = 0; i < n->u.uni.n; i++)
            list_node(l, n->u.uni.branches[i]);
        break;
    case AVRO_KIND_ARRAY:
    case AVRO_KIND_MAP: list_node(l, n->u.items); break;
    case AVRO_KIND_RECORD: {
        const char *full = n->named->name.full;
        if (list_has(&l->visited, full))
            return;
        if (strlist_push(&l->visited, full) != 0) {
            l->oom = 1;
            return;
        }
        lister_add(l, strdup(full), SCHEMA_ENTITY_RECORD, &n->props);
        for (size_t i = 0; i < n->u.record.n && !l->oom; i++) {
            const avro_field_t *f = &n->u.record.fields[i];
            char *path = NULL;
            if (asprintf(&path, "%s.%s", full, f->name) < 0)
                path = NULL;
            lister_add(l, path, SCHEMA_ENTITY_FIELD, &f->props);
            list_node(l, f->type);
        }
        break;
    }
    default: break;
    }
}

int avro_tags_list(const avro_model_t *m, schema_tagged_t **out, size_t *n)
{
    lister_t l = {0};
    list_node(&l, m->root);
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
