/*
 * proto_tags: inline tags of a Protobuf schema -- the `tags` of the
 * `(confluent.message_meta)` option of a message and of the
 * `(confluent.field_meta)` option of a field -- edited into a schema's text
 * and listed from a model, as Confluent's ProtobufSchema does
 * (copy(tagsToAdd, tagsToRemove) with ProtobufSchemaUtils.findMatchingElement;
 * inlineTaggedEntities).
 *
 * Chapters: 1. entity paths  2. Java's HashMap order  3. option merging
 *           4. editing  5. listing
 *
 * The edit parses the stored canonical text, changes the options of the
 * matched messages and fields in the model and prints it canonically; the
 * registry then registers that text like any other. What a client can see of
 * Confluent's way of doing it, kept here on purpose:
 *   - paths are message names from the top of the file, without the package
 *     ("Outer.Inner", "Outer.Inner.field", "Outer.oneof_name.field"), one
 *     leading "." dropped (SchemaEntity's normalized path), split as Java's
 *     String.split does;
 *   - the options of an edited message or field are merged by name as
 *     ProtobufSchema.mergeOptions merges them (Collectors.toMap, so a HashMap):
 *     `(a).b = x` becomes `(a) = { b: x }`, repeated options of one name fold
 *     into one aggregate, and the options come back in the HashMap's iteration
 *     order -- reproduced in chapter 2, since it decides the printed order of a
 *     field's options once one is edited;
 *   - an element matched a second time (a oneof member by "M.f" and by
 *     "M.oneof.f") starts from the meta option the first edit left, alone, as
 *     Confluent's optionCache does (its other options are then dropped).
 */
#include "compat/protobuf/internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"

#define FIELD_META   "confluent.field_meta"   /* ProtobufSchema.CONFLUENT_FIELD_META */
#define MESSAGE_META "confluent.message_meta" /* ProtobufSchema.CONFLUENT_MESSAGE_META */
#define TAGS         "tags"                   /* ProtobufSchema.TAGS_FIELD */

/* ---- 1. Entity paths ----------------------------------------------------------- */

/* Java's path.split("\\."): trailing empty parts dropped, "" is one empty part.
 * Parts live in arena; -1 out of memory. */
static int split_path(arena_t *arena, const char *path, const char ***parts, size_t *n)
{
    *parts = NULL;
    *n = 0;
    const char *p = path;
    for (;;) {
        const char *dot = strchr(p, '.');
        size_t len = dot ? (size_t)(dot - p) : strlen(p);
        char *part = arena_strndup(arena, p, len);
        if (!part || arena_push(arena, parts, n, part) != 0)
            return -1;
        if (!dot)
            break;
        p = dot + 1;
    }
    if (*n == 1 && (*parts)[0][0] == '\0')
        return 0;
    while (*n > 0 && (*parts)[*n - 1][0] == '\0')
        (*n)--;
    return 0;
}

static proto_message_t *find_message(proto_type_t *const *types, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (types[i]->kind == PROTO_TYPE_MESSAGE && strcmp(types[i]->message->name, name) == 0)
            return types[i]->message;
    return NULL;
}

/*
 * ProtobufSchemaUtils.findMatchingElement: the message (record) or field an
 * entity names, or NULL with *error set to Confluent's message.
 */
static void *find_element(proto_file_t *file, const char *const *ids, size_t n, int field_path, char **error)
{
    proto_message_t *m = NULL;
    size_t end = field_path ? (n > 0 ? n - 1 : 0) : n;
    size_t i = 0;
    for (; i < end; i++) {
        proto_message_t *found = i == 0 ? find_message(file->types, file->n_types, ids[i])
                                        : find_message(m->types, m->n_types, ids[i]);
        if (found) {
            m = found;
        } else if (i == end - 1 && field_path) {
            break; /* the last step may name a oneof */
        } else {
            proto_error_set(error, "No matching Message with name '%s' found in the schema", ids[i]);
            return NULL;
        }
    }
    if (!field_path) {
        if (!m) /* "..": no step at all; Confluent fails on the null message (a 500) */
            proto_error_set(error, "No matching Message with name '%s' found in the schema", "");
        return m;
    }
    const char *name = n > 0 ? ids[n - 1] : "";
    if (m && i == end) {
        for (size_t j = 0; j < m->n_fields; j++)
            if (strcmp(m->fields[j]->name, name) == 0)
                return m->fields[j];
        for (size_t k = 0; k < m->n_oneofs; k++)
            for (size_t j = 0; j < m->oneofs[k]->n_fields; j++)
                if (strcmp(m->oneofs[k]->fields[j]->name, name) == 0)
                    return m->oneofs[k]->fields[j];
    } else if (m) {
        /* The last oneof of that name, as Confluent's loop keeps overwriting. */
        proto_oneof_t *oneof = NULL;
        for (size_t k = 0; k < m->n_oneofs; k++)
            if (strcmp(m->oneofs[k]->name, ids[i]) == 0)
                oneof = m->oneofs[k];
        for (size_t j = 0; oneof && j < oneof->n_fields; j++)
            if (strcmp(oneof->fields[j]->name, name) == 0)
                return oneof->fields[j];
    }
    proto_error_set(error, "No matching Field with name '%s' found in the schema", name);
    return NULL;
}

/* ---- 2. Java's HashMap order ------------------------------------------------------ */

/*
 * mergeOptions collects into a java.util.HashMap keyed by option name, and
 * Confluent writes the map's values() back as the element's options. A
 * HashMap iterates its table from bucket 0 up, each bucket in insertion
 * order; resizing (capacity 16, doubled whenever the size passes 3/4 of it)
 * splits buckets without reordering them. So the order is: by bucket index at
 * the final capacity, then by insertion. (Buckets of 8 or more entries turn
 * into trees in Java; no element has that many options of colliding names.)
 */

typedef struct entry {
    const char *key;
    proto_option_t *option;
    unsigned long seq;
    size_t bucket;
} entry_t;

typedef struct hashmap {
    entry_t *items;
    size_t n, cap_items;
    size_t capacity; /* the Java table's */
    unsigned long seq;
    int oom;
} hashmap_t;

static entry_t *map_get(hashmap_t *h, const char *key)
{
    for (size_t i = 0; i < h->n; i++)
        if (strcmp(h->items[i].key, key) == 0)
            return &h->items[i];
    return NULL;
}

/* put: a present key keeps its place, a new one goes last in its bucket. */
static void map_put(hashmap_t *h, const char *key, proto_option_t *o)
{
    entry_t *e = map_get(h, key);
    if (e) {
        e->option = o;
        return;
    }
    if (h->n == h->cap_items) {
        size_t cap = h->cap_items ? 2 * h->cap_items : 8;
        entry_t *grown = realloc(h->items, cap * sizeof *grown);
        if (!grown) {
            h->oom = 1;
            return;
        }
        h->items = grown;
        h->cap_items = cap;
    }
    if (!h->capacity)
        h->capacity = 16;
    h->items[h->n++] = (entry_t){key, o, h->seq++, 0};
    while (h->n > h->capacity / 4 * 3)
        h->capacity *= 2;
}

static void map_remove(hashmap_t *h, const char *key)
{
    entry_t *e = map_get(h, key);
    if (e)
        memmove(e, e + 1, (size_t)(h->items + h->n - (e + 1)) * sizeof *e);
    h->n -= e ? 1 : 0;
}

static int compare_entries(const void *a, const void *b)
{
    const entry_t *x = a, *y = b;
    if (x->bucket != y->bucket)
        return x->bucket < y->bucket ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* values(), in iteration order, as the element's new options. */
static int map_values(arena_t *arena, hashmap_t *h, proto_options_t *out)
{
    for (size_t i = 0; i < h->n; i++) {
        uint32_t hash = utf8_java_hashn(h->items[i].key, strlen(h->items[i].key));
        hash ^= hash >> 16; /* HashMap.hash's spread */
        h->items[i].bucket = hash & (uint32_t)(h->capacity - 1);
    }
    qsort(h->items, h->n, sizeof *h->items, compare_entries);
    out->items = NULL;
    out->n = 0;
    for (size_t i = 0; i < h->n; i++)
        if (arena_push(arena, &out->items, &out->n, h->items[i].option) != 0)
            return -1;
    return 0;
}

/* ---- 3. Option merging (ProtobufSchema.mergeOptions, merge, transform) --------------- */

/* Object.equals between option values: by kind and content. */
static int value_equal(const proto_value_t *a, const proto_value_t *b)
{
    if (a->kind != b->kind)
        return 0;
    switch (a->kind) {
    case PROTO_VALUE_MAP:
        if (a->n_entries != b->n_entries)
            return 0;
        for (size_t i = 0; i < a->n_entries; i++)
            if (strcmp(a->entries[i].key, b->entries[i].key) != 0 ||
                !value_equal(a->entries[i].value, b->entries[i].value))
                return 0;
        return 1;
    case PROTO_VALUE_LIST:
        if (a->n_items != b->n_items)
            return 0;
        for (size_t i = 0; i < a->n_items; i++)
            if (!value_equal(a->items[i], b->items[i]))
                return 0;
        return 1;
    case PROTO_VALUE_OPTION:
        return strcmp(a->option->name, b->option->name) == 0 &&
               value_equal(a->option->value, b->option->value);
    default: return a->len == b->len && memcmp(a->text, b->text, a->len) == 0;
    }
}

static proto_value_t *new_value(arena_t *arena, proto_value_kind_t kind)
{
    proto_value_t *v = arena_alloc(arena, sizeof *v);
    if (v)
        v->kind = kind;
    return v;
}

static proto_option_t *new_option(arena_t *arena, const char *name, int parenthesized, proto_value_t *value)
{
    proto_option_t *o = arena_alloc(arena, sizeof *o);
    if (!o || !value)
        return NULL;
    o->name = name;
    o->parenthesized = parenthesized;
    o->value = value;
    return o;
}

/* transformOptionMap: `(a).b.c = x` as the map { b: { c: x } }. */
static proto_value_t *option_as_map(arena_t *arena, const proto_option_t *inner)
{
    proto_value_t *map = new_value(arena, PROTO_VALUE_MAP);
    proto_value_t *v =
        inner->value->kind == PROTO_VALUE_OPTION ? option_as_map(arena, inner->value->option) : inner->value;
    if (!map || !v || proto_value_map_add(arena, map, inner->name, v) != 0)
        return NULL;
    return map;
}

/* transform: an option of kind OPTION as one of kind MAP. */
static proto_option_t *transform(arena_t *arena, proto_option_t *o)
{
    if (o->value->kind != PROTO_VALUE_OPTION)
        return o;
    return new_option(arena, o->name, o->parenthesized, option_as_map(arena, o->value->option));
}

/* Adds v's items (or v) to the list set, without duplicates (LinkedHashSet). */
static int set_add_all(arena_t *arena, proto_value_t *set, proto_value_t *v)
{
    size_t n = v->kind == PROTO_VALUE_LIST ? v->n_items : 1;
    for (size_t i = 0; i < n; i++) {
        proto_value_t *item = v->kind == PROTO_VALUE_LIST ? v->items[i] : v;
        int seen = 0;
        for (size_t j = 0; j < set->n_items && !seen; j++)
            seen = value_equal(set->items[j], item);
        if (!seen && arena_push(arena, &set->items, &set->n_items, item) != 0)
            return -1;
    }
    return 0;
}

/* merge: two aggregates fold into one (a key in both becomes the list of
 * both values, deduplicated); otherwise the later option replaces. */
static proto_option_t *merge(arena_t *arena, proto_option_t *existing, proto_option_t *replacement)
{
    if (existing->value->kind != PROTO_VALUE_MAP || replacement->value->kind != PROTO_VALUE_MAP)
        return replacement;
    const proto_value_t *a = existing->value, *b = replacement->value;
    proto_value_t *merged = new_value(arena, PROTO_VALUE_MAP);
    if (!merged)
        return NULL;
    merged->entries = arena_alloc(arena, (a->n_entries + b->n_entries + 1) * sizeof *merged->entries);
    if (!merged->entries)
        return NULL;
    memcpy(merged->entries, a->entries, a->n_entries * sizeof *a->entries);
    merged->n_entries = a->n_entries;
    for (size_t i = 0; i < b->n_entries; i++) {
        proto_map_entry_t *e = NULL;
        for (size_t j = 0; j < merged->n_entries && !e; j++)
            if (strcmp(merged->entries[j].key, b->entries[i].key) == 0)
                e = &merged->entries[j];
        if (!e) {
            merged->entries[merged->n_entries++] = b->entries[i];
            continue;
        }
        proto_value_t *set = new_value(arena, PROTO_VALUE_LIST);
        if (!set || set_add_all(arena, set, e->value) != 0 ||
            set_add_all(arena, set, b->entries[i].value) != 0)
            return NULL;
        e->value = set;
    }
    return new_option(arena, replacement->name, replacement->parenthesized, merged);
}

/* mergeOptions: options by name (a leading "." dropped) into h. */
static int merge_options(arena_t *arena, proto_option_t *const *options, size_t n, hashmap_t *h)
{
    for (size_t i = 0; i < n; i++) {
        const char *key = options[i]->name[0] == '.' ? options[i]->name + 1 : options[i]->name;
        proto_option_t *o = transform(arena, options[i]);
        if (!o)
            return -1;
        entry_t *e = map_get(h, key);
        if (e && !(o = merge(arena, e->option, o)))
            return -1;
        map_put(h, key, o);
    }
    return h->oom ? -1 : 0;
}

/* ---- 4. Editing (ProtobufSchema.copy, modifySchemaTags) ------------------------------ */

/* removeTags: drops the tags to remove from the meta option; a meta left
 * empty goes, tags left empty lose their key. */
static int remove_tags(arena_t *arena, hashmap_t *h, const char *meta_name, const strlist_t *remove)
{
    entry_t *e = remove && remove->n ? map_get(h, meta_name) : NULL;
    if (!e || e->option->value->kind != PROTO_VALUE_MAP)
        return 0;
    const proto_value_t *meta = e->option->value;
    size_t at = meta->n_entries;
    for (size_t i = 0; i < meta->n_entries && at == meta->n_entries; i++)
        if (strcmp(meta->entries[i].key, TAGS) == 0)
            at = i;
    if (at == meta->n_entries)
        return 0;
    proto_value_t *tags = meta->entries[at].value;
    proto_value_t *left = new_value(arena, PROTO_VALUE_LIST);
    if (!left)
        return -1;
    size_t n = tags->kind == PROTO_VALUE_LIST ? tags->n_items : 1;
    for (size_t i = 0; i < n; i++) {
        proto_value_t *tag = tags->kind == PROTO_VALUE_LIST ? tags->items[i] : tags;
        int drop = 0; /* Set<String>.contains: only a string tag can match */
        for (size_t j = 0; j < remove->n && !drop && tag->kind == PROTO_VALUE_STRING; j++)
            drop = strlen(remove->items[j]) == tag->len && memcmp(remove->items[j], tag->text, tag->len) == 0;
        if (!drop && arena_push(arena, &left->items, &left->n_items, tag) != 0)
            return -1;
    }
    proto_value_t *copy = new_value(arena, PROTO_VALUE_MAP);
    if (!copy)
        return -1;
    copy->entries = arena_alloc(arena, (meta->n_entries + 1) * sizeof *copy->entries);
    if (!copy->entries)
        return -1;
    for (size_t i = 0; i < meta->n_entries; i++) {
        if (i != at)
            copy->entries[copy->n_entries++] = meta->entries[i];
        else if (left->n_items)
            copy->entries[copy->n_entries++] = (proto_map_entry_t){TAGS, left};
    }
    if (!copy->n_entries) {
        map_remove(h, meta_name);
        return 0;
    }
    proto_option_t *o = new_option(arena, meta_name, 1, copy);
    if (!o)
        return -1;
    map_put(h, meta_name, o);
    return h->oom ? -1 : 0;
}

/* optionCache: per matched element, its options before any edit and the
 * meta option the last edit of it left. */
typedef struct cached {
    const void *element;
    proto_options_t original;
    proto_option_t *meta;
} cached_t;

/* One edit; 0, 1 (entity not found: *error set) or -1 out of memory. */
static int edit_one(proto_file_t *file, const schema_tag_edit_t *edit, cached_t *cache, size_t *ncache,
                    char **error)
{
    arena_t *arena = file->arena;
    const char *path = edit->path[0] == '.' ? edit->path + 1 : edit->path;
    const char **ids;
    size_t nids;
    if (split_path(arena, path, &ids, &nids) != 0)
        return -1;
    int field = edit->kind == SCHEMA_ENTITY_FIELD;
    void *element = find_element(file, ids, nids, field, error);
    if (!element)
        return *error ? 1 : -1;
    proto_options_t *options =
        field ? &((proto_field_t *)element)->options : &((proto_message_t *)element)->options;
    const char *meta_name = field ? FIELD_META : MESSAGE_META;

    cached_t *c = NULL;
    for (size_t i = 0; i < *ncache && !c; i++)
        if (cache[i].element == element)
            c = &cache[i];
    if (!c) {
        c = &cache[(*ncache)++];
        *c = (cached_t){element, *options, NULL};
    }
    proto_option_t **all = NULL;
    size_t nall = 0;
    if (c->meta) {
        if (arena_push(arena, &all, &nall, c->meta) != 0)
            return -1;
    } else {
        for (size_t i = 0; i < c->original.n; i++)
            if (arena_push(arena, &all, &nall, c->original.items[i]) != 0)
                return -1;
    }
    if (edit->add && edit->add->n) {
        /* new OptionElement(metaName, OPTION, OptionElement("tags", LIST, tagsToAdd)) */
        proto_value_t *list = new_value(arena, PROTO_VALUE_LIST);
        if (!list)
            return -1;
        for (size_t i = 0; i < edit->add->n; i++) {
            const char *tag = edit->add->items[i];
            proto_value_t *v = proto_value_text(arena, PROTO_VALUE_STRING, tag, strlen(tag));
            if (!v || arena_push(arena, &list->items, &list->n_items, v) != 0)
                return -1;
        }
        proto_value_t *inner = new_value(arena, PROTO_VALUE_OPTION);
        if (!inner || !(inner->option = new_option(arena, TAGS, 0, list)))
            return -1;
        proto_option_t *added = new_option(arena, meta_name, 1, inner);
        if (!added || arena_push(arena, &all, &nall, added) != 0)
            return -1;
    }
    hashmap_t h = {0};
    int rc = merge_options(arena, all, nall, &h);
    if (rc == 0)
        rc = remove_tags(arena, &h, meta_name, edit->remove);
    if (rc == 0) {
        entry_t *meta = map_get(&h, meta_name);
        c->meta = meta ? meta->option : NULL;
        rc = map_values(arena, &h, options);
    }
    free(h.items);
    return rc;
}

char *proto_tags_edit(const char *text, size_t len, const schema_tag_edit_t *edits, size_t n, char **error)
{
    *error = NULL;
    proto_file_t *file = proto_parse(text, len, error);
    if (!file && proto_looks_like_base64(text, len)) {
        /* A registration's schema may be a base64 FileDescriptorProto: edit
         * its .proto text, as Confluent edits the file it was read into. */
        char *canonical = NULL, *perr = NULL;
        proto_schema_t *schema = proto_schema_new(text, len, NULL, 0, 0, &canonical, &perr);
        free(perr);
        if (schema && canonical) {
            free(*error);
            *error = NULL;
            file = proto_parse(canonical, strlen(canonical), error);
        }
        free(canonical);
        proto_schema_free(schema);
    }
    if (!file)
        return NULL; /* a stored text always parses; *error says why if not */
    cached_t *cache = calloc(n ? n : 1, sizeof *cache);
    int rc = cache ? 0 : -1;
    size_t ncache = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = edit_one(file, &edits[i], cache, &ncache, error);
    free(cache);
    char *out = NULL;
    if (rc == 0)
        out = proto_print(file, PROTO_PRINT_CANONICAL, NULL, error);
    proto_file_free(file);
    if (rc < 0) {
        free(*error);
        *error = NULL; /* out of memory: NULL without a message */
    }
    return out;
}

/* ---- 5. Listing (ProtobufSchema.inlineTaggedEntities) --------------------------------- */

typedef struct lister {
    schema_tagged_t *items;
    size_t n, cap;
    strlist_t visited;
    int oom;
} lister_t;

/* getInlineTags: the meta option's tags after mergeOptions, without duplicates. */
static void add_tagged(lister_t *l, const proto_options_t *options, const char *meta_name, const char *path,
                       schema_entity_kind_t kind)
{
    arena_t *arena = arena_new();
    hashmap_t h = {0};
    if (!arena || merge_options(arena, options->items, options->n, &h) != 0) {
        l->oom = 1;
        goto done;
    }
    entry_t *e = map_get(&h, meta_name);
    const proto_value_t *meta = e ? e->option->value : NULL;
    const proto_value_t *tags = NULL;
    for (size_t i = 0; meta && meta->kind == PROTO_VALUE_MAP && i < meta->n_entries; i++)
        if (strcmp(meta->entries[i].key, TAGS) == 0)
            tags = meta->entries[i].value;
    if (meta && meta->kind == PROTO_VALUE_OPTION && strcmp(meta->option->name, TAGS) == 0)
        tags = meta->option->value;
    if (!tags)
        goto done;
    strlist_t found = {0};
    size_t n = tags->kind == PROTO_VALUE_LIST ? tags->n_items : 1;
    for (size_t i = 0; i < n; i++) {
        const proto_value_t *t = tags->kind == PROTO_VALUE_LIST ? tags->items[i] : tags;
        int seen = 0;
        for (size_t j = 0; j < found.n && !seen; j++)
            seen = strlen(found.items[j]) == t->len && memcmp(found.items[j], t->text, t->len) == 0;
        char *copy = seen ? NULL : strndup(t->text ? t->text : "", t->len);
        if (!seen && (!copy || strlist_push_owned(&found, copy) != 0)) {
            free(copy);
            l->oom = 1;
        }
    }
    if (!found.n)
        goto done;
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        schema_tagged_t *grown = realloc(l->items, cap * sizeof *grown);
        if (!grown) {
            strlist_clear(&found);
            l->oom = 1;
            goto done;
        }
        l->items = grown;
        l->cap = cap;
    }
    char *p = strdup(path);
    if (!p) {
        strlist_clear(&found);
        l->oom = 1;
        goto done;
    }
    l->items[l->n++] = (schema_tagged_t){p, kind, found};
done:
    free(h.items);
    arena_free(arena);
}

static void list_types(lister_t *l, proto_type_t *const *types, size_t n, const char *scope);

static void add_field(lister_t *l, const char *message, const proto_field_t *f)
{
    strbuf_t b = {0};
    strbuf_puts(&b, message);
    strbuf_putc(&b, '.');
    strbuf_puts(&b, f->name);
    char *path = strbuf_take(&b);
    if (!path) {
        l->oom = 1;
        return;
    }
    add_tagged(l, &f->options, FIELD_META, path, SCHEMA_ENTITY_FIELD);
    free(path);
}

/* The message, then its oneof members, then its fields, then its nested
 * messages (getInlineTaggedEntitiesRecursively), each scoped name once. */
static void list_message(lister_t *l, const proto_message_t *m, const char *scope)
{
    strbuf_t b = {0};
    strbuf_puts(&b, scope);
    strbuf_puts(&b, m->name);
    char *name = strbuf_take(&b);
    if (!name) {
        l->oom = 1;
        return;
    }
    for (size_t i = 0; i < l->visited.n; i++)
        if (strcmp(l->visited.items[i], name) == 0) {
            free(name);
            return;
        }
    if (strlist_push(&l->visited, name) != 0)
        l->oom = 1;
    add_tagged(l, &m->options, MESSAGE_META, name, SCHEMA_ENTITY_RECORD);
    for (size_t k = 0; k < m->n_oneofs; k++)
        for (size_t j = 0; j < m->oneofs[k]->n_fields; j++)
            add_field(l, name, m->oneofs[k]->fields[j]);
    for (size_t j = 0; j < m->n_fields; j++)
        add_field(l, name, m->fields[j]);
    strbuf_puts(&b, name);
    strbuf_putc(&b, '.');
    char *nested_scope = strbuf_take(&b);
    if (nested_scope)
        list_types(l, m->types, m->n_types, nested_scope);
    else
        l->oom = 1;
    free(nested_scope);
    free(name);
}

static void list_types(lister_t *l, proto_type_t *const *types, size_t n, const char *scope)
{
    for (size_t i = 0; i < n; i++)
        if (types[i]->kind == PROTO_TYPE_MESSAGE)
            list_message(l, types[i]->message, scope);
}

int proto_tags_list(const proto_file_t *file, schema_tagged_t **out, size_t *n)
{
    lister_t l = {0};
    list_types(&l, file->types, file->n_types, "");
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
