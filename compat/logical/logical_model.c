/*
 * logical_model: the logical-type model (Confluent's LogicalType and Schema), its named types,
 * and how findings name a type and a place (CompatibilityChecker.render, Schema.toDdl).
 *
 *   1. Building
 *   2. Reading
 *   3. Walks
 */
#include "compat/logical/internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- 1. Building ------------------------------------------------------------ */

logical_model_t *logical_model_new(void)
{
    logical_model_t *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->arena = arena_new();
    if (!m->arena) {
        free(m);
        return NULL;
    }
    hmap_init_arena(&m->named, m->arena);
    return m;
}

void logical_model_free(logical_model_t *m)
{
    if (!m)
        return;
    arena_free(m->arena);
    free(m);
}

logical_node_t *logical_node_new(logical_model_t *m, logical_kind_t kind, int nullable)
{
    logical_node_t *n = arena_alloc(m->arena, sizeof *n);
    if (!n)
        return NULL;
    n->kind = kind;
    n->nullable = nullable;
    n->scale = LOGICAL_NO_PARAM;
    return n;
}

const logical_node_t *logical_conv_fail(logical_conv_t *c, const char *fmt, ...)
{
    if (c->error || c->oom)
        return NULL;
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&c->error, fmt, ap) < 0) {
        c->error = NULL;
        c->oom = 1;
    }
    va_end(ap);
    return NULL;
}

logical_node_t *logical_conv_node(logical_conv_t *c, logical_kind_t kind, int nullable)
{
    logical_node_t *n = logical_node_new(c->m, kind, nullable);
    if (!n)
        c->oom = 1;
    return n;
}

int logical_conv_finish(logical_conv_t *c, int failed, logical_model_t **out, char **error)
{
    if (failed || c->error || c->oom) {
        logical_model_free(c->m);
        if (c->oom || !c->error) {
            free(c->error);
            return -1;
        }
        *error = c->error;
        return 1;
    }
    *out = c->m;
    return 0;
}

const logical_node_t *logical_conv_map_like(logical_conv_t *c, int nullable, const logical_node_t *key,
                                            const logical_node_t *value, int multiset)
{
    if (multiset) {
        if (value->kind != LOGICAL_INT) {
            strbuf_t b = {0};
            logical_ddl(&b, value);
            char *ddl = strbuf_take(&b);
            if (!ddl)
                return c->oom = 1, NULL;
            logical_conv_fail(c, "Unexpected value type for a MULTISET type: %s", ddl);
            free(ddl);
            return NULL;
        }
        logical_node_t *n = logical_conv_node(c, LOGICAL_MULTISET, nullable);
        if (n)
            n->element = key;
        return n;
    }
    logical_node_t *n = logical_conv_node(c, LOGICAL_MAP, nullable);
    if (n) {
        n->key = key;
        n->value = value;
    }
    return n;
}

int logical_named_put(logical_model_t *m, const char *name, const logical_node_t *body)
{
    return hmap_put_try(&m->named, name, strlen(name), (void *)body, NULL);
}

/* ---- 2. Reading --------------------------------------------------------------- */

const logical_node_t *logical_named_get(const logical_model_t *m, const char *name)
{
    return hmap_gets(&m->named, name);
}

int logical_named_has(const logical_model_t *m, const char *name)
{
    return hmap_contains(&m->named, name, strlen(name));
}

const logical_node_t *logical_resolve(const logical_model_t *m, const logical_node_t *n)
{
    /* A chain of references longer than the named types is a cycle. */
    for (size_t hops = 0; n->kind == LOGICAL_NAMED_TYPE_REF && hops <= m->named.used; hops++) {
        const logical_node_t *target = logical_named_get(m, n->ref);
        if (!target)
            return n;
        n = target;
    }
    return n;
}

/* LogicalType.collectNamedRefs: the names referred to below n, not following references. */
static int collect_refs(const logical_node_t *n, strlist_t *sink, int depth)
{
    if (!n || depth > LOGICAL_MAX_WALK_DEPTH)
        return 0;
    switch (n->kind) {
    case LOGICAL_NAMED_TYPE_REF: return strlist_push(sink, n->ref);
    case LOGICAL_STRUCT:
    case LOGICAL_UNION:
        for (size_t i = 0; i < n->n; i++)
            if (collect_refs(n->members[i].type, sink, depth + 1) != 0)
                return -1;
        return 0;
    case LOGICAL_ARRAY:
    case LOGICAL_MULTISET: return collect_refs(n->element, sink, depth + 1);
    case LOGICAL_MAP:
        if (collect_refs(n->key, sink, depth + 1) != 0)
            return -1;
        return collect_refs(n->value, sink, depth + 1);
    default: return 0;
    }
}

int logical_is_cyclic(const logical_model_t *m, const char *name)
{
    const logical_node_t *body = logical_named_get(m, name);
    if (!body)
        return 0;
    /* Breadth first over names, each expanded once (the seen set). */
    strlist_t queue = {0};
    hmap_t seen = {0};
    int rc = collect_refs(body, &queue, 0) == 0 ? 0 : -1;
    for (size_t i = 0; rc == 0 && i < queue.n; i++) {
        const char *next = queue.items[i];
        if (strcmp(next, name) == 0) {
            rc = 1;
            break;
        }
        if (hmap_contains(&seen, next, strlen(next)))
            continue;
        if (hmap_put_try(&seen, next, strlen(next), NULL, NULL) != 0 ||
            collect_refs(logical_named_get(m, next), &queue, 0) != 0)
            rc = -1;
    }
    hmap_clear(&seen);
    strlist_clear(&queue);
    return rc;
}

static const char *const kind_names[] = {
    [LOGICAL_STRUCT] = "STRUCT",       [LOGICAL_ENUM] = "ENUM",
    [LOGICAL_UNION] = "UNION",         [LOGICAL_MAP] = "MAP",
    [LOGICAL_ARRAY] = "ARRAY",         [LOGICAL_MULTISET] = "MULTISET",
    [LOGICAL_BOOLEAN] = "BOOLEAN",     [LOGICAL_TINYINT] = "TINYINT",
    [LOGICAL_SMALLINT] = "SMALLINT",   [LOGICAL_INT] = "INT",
    [LOGICAL_BIGINT] = "BIGINT",       [LOGICAL_FLOAT] = "FLOAT",
    [LOGICAL_DOUBLE] = "DOUBLE",       [LOGICAL_DECIMAL] = "DECIMAL",
    [LOGICAL_VARCHAR] = "VARCHAR",     [LOGICAL_CHAR] = "CHAR",
    [LOGICAL_BINARY] = "BINARY",       [LOGICAL_VARBINARY] = "VARBINARY",
    [LOGICAL_DATE] = "DATE",           [LOGICAL_TIME] = "TIME",
    [LOGICAL_TIMESTAMP] = "TIMESTAMP", [LOGICAL_TIMESTAMP_LTZ] = "TIMESTAMP_LTZ",
    [LOGICAL_VARIANT] = "VARIANT",     [LOGICAL_NAMED_TYPE_REF] = "NAMED_TYPE_REF",
};

const char *logical_kind_name(logical_kind_t k)
{
    return kind_names[k];
}

void logical_render(strbuf_t *b, const logical_node_t *n)
{
    switch (n->kind) {
    case LOGICAL_DECIMAL:
        /* CompatibilityChecker.scaleOf: an omitted scale reads as 0. */
        strbuf_printf(b, "DECIMAL(%d, %d)", n->precision, n->scale == LOGICAL_NO_PARAM ? 0 : n->scale);
        return;
    case LOGICAL_CHAR:
    case LOGICAL_VARCHAR:
    case LOGICAL_BINARY:
    case LOGICAL_VARBINARY: strbuf_printf(b, "%s(%d)", kind_names[n->kind], n->length); return;
    case LOGICAL_TIME:
    case LOGICAL_TIMESTAMP:
    case LOGICAL_TIMESTAMP_LTZ: strbuf_printf(b, "%s(%d)", kind_names[n->kind], n->precision); return;
    case LOGICAL_NAMED_TYPE_REF: strbuf_printf(b, "ref(%s)", n->ref); return;
    default: strbuf_puts(b, kind_names[n->kind]); return;
    }
}

static void ddl_param(strbuf_t *b, const char *base, int v, const char *unbounded, int max)
{
    if (unbounded && v == max)
        strbuf_puts(b, unbounded);
    else if (v == LOGICAL_NO_PARAM)
        strbuf_puts(b, base);
    else
        strbuf_printf(b, "%s(%d)", base, v);
}

void logical_ddl(strbuf_t *b, const logical_node_t *n)
{
    switch (n->kind) {
    case LOGICAL_DECIMAL:
        if (n->precision == LOGICAL_NO_PARAM)
            strbuf_puts(b, "DECIMAL");
        else if (n->scale == LOGICAL_NO_PARAM)
            strbuf_printf(b, "DECIMAL(%d)", n->precision);
        else
            strbuf_printf(b, "DECIMAL(%d, %d)", n->precision, n->scale);
        break;
    case LOGICAL_VARCHAR: ddl_param(b, "VARCHAR", n->length, "STRING", LOGICAL_MAX_LENGTH); break;
    case LOGICAL_VARBINARY: ddl_param(b, "VARBINARY", n->length, "BYTES", LOGICAL_MAX_LENGTH); break;
    case LOGICAL_CHAR:
    case LOGICAL_BINARY: ddl_param(b, kind_names[n->kind], n->length, NULL, 0); break;
    case LOGICAL_TIME:
    case LOGICAL_TIMESTAMP:
    case LOGICAL_TIMESTAMP_LTZ: ddl_param(b, kind_names[n->kind], n->precision, NULL, 0); break;
    case LOGICAL_NAMED_TYPE_REF: strbuf_puts(b, n->ref); break;
    case LOGICAL_ARRAY:
    case LOGICAL_MULTISET:
        strbuf_puts(b, n->kind == LOGICAL_ARRAY ? "ARRAY<" : "MULTISET<");
        logical_ddl(b, n->element);
        strbuf_putc(b, '>');
        break;
    case LOGICAL_MAP:
        strbuf_puts(b, "MAP<");
        logical_ddl(b, n->key);
        strbuf_puts(b, ", ");
        logical_ddl(b, n->value);
        strbuf_putc(b, '>');
        break;
    default:
        /* STRUCT, UNION and ENUM list their members in Confluent's DDL; no message here
         * renders one (a MULTISET's value is converted from a map value or a record field). */
        strbuf_puts(b, kind_names[n->kind]);
        break;
    }
    if (!n->nullable)
        strbuf_puts(b, " NOT NULL");
}

/* ---- 3. Walks ------------------------------------------------------------------ */

size_t logical_path_child(strbuf_t *path, const char *name)
{
    size_t len = path->len;
    if (len)
        strbuf_putc(path, '.');
    strbuf_puts(path, name);
    return len;
}

size_t logical_path_suffix(strbuf_t *path, const char *suffix)
{
    size_t len = path->len;
    strbuf_puts(path, suffix);
    return len;
}

void logical_path_pop(strbuf_t *path, size_t len)
{
    if (path->data && len <= path->len) {
        path->len = len;
        path->data[len] = '\0';
    }
}

int logical_finding(strlist_t *out, const char *rule, const strbuf_t *path, const char *fmt, ...)
{
    if (path->failed)
        return -1;
    char *message = NULL;
    va_list ap;
    va_start(ap, fmt);
    int rc = vasprintf(&message, fmt, ap);
    va_end(ap);
    if (rc < 0)
        return -1;
    if (path->len)
        rc = strlist_pushf(out, "%s at '%s': %s", rule, path->data, message);
    else
        rc = strlist_pushf(out, "%s: %s", rule, message);
    free(message);
    return rc;
}
