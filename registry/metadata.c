/*
 * metadata: Confluent's schema Metadata (client/rest/entities/Metadata.java)
 * and what registration does with it (AbstractSchemaRegistry.maybeSetMetadataRuleSet).
 *
 * Contents
 *   1. The canonical form
 *   2. Reading a request's metadata
 *   3. Merging, confluent:version
 *   4. Questions (equality, properties, the identity digest)
 *
 * A metadata is kept as one JSON object in canonical form: "tags" (tag name ->
 * sorted distinct strings), "properties" (name -> string) and "sensitive"
 * (sorted distinct strings), in that order, each only when not empty, with
 * every key in Java's String order. That is how Confluent's Metadata holds
 * them (SortedMap, SortedSet) and how Jackson renders it (NON_EMPTY), so the
 * object is rendered as is, json_equal is Metadata.equals, and the identity
 * digest walks it in order. An empty metadata is `{}`: present, and not the
 * same content as none (NULL), as in Confluent. Canonical objects are never
 * edited once made: every function here returns a new one.
 */
#include <errno.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/utf8.h"
#include "registry/internal.h"

#define CONFLUENT_VERSION "confluent:version" /* Metadata.CONFLUENT_VERSION */

/* ---- 1. The canonical form ----------------------------------------------- */

static int cmp_strp(const void *a, const void *b)
{
    return utf8_java_cmp(*(const char *const *)a, *(const char *const *)b); /* Java's String order */
}

/* The keys of obj in Java's order (borrowed from obj; free the array). */
static const char **sorted_keys(const json_t *obj, size_t *n)
{
    *n = json_object_size(obj);
    const char **keys = xcalloc(*n + 1, sizeof *keys);
    size_t i = 0;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)obj, k, v) keys[i++] = k;
    qsort(keys, *n, sizeof *keys, cmp_strp);
    return keys;
}

/* A sorted, de-duplicated array of the strings of arr (all strings). */
static json_t *sorted_set(const json_t *arr)
{
    size_t n = json_array_size(arr);
    const char **items = xcalloc(n + 1, sizeof *items);
    for (size_t i = 0; i < n; i++)
        items[i] = json_string_value(json_array_get(arr, i));
    qsort(items, n, sizeof *items, cmp_strp);
    json_t *out = json_array();
    for (size_t i = 0; i < n; i++)
        if (i == 0 || strcmp(items[i - 1], items[i]) != 0)
            json_array_append_new(out, json_string(items[i]));
    free(items);
    return out;
}

/* A copy of obj with its keys in Java's order; values copied as they are. */
static json_t *sorted_object(const json_t *obj)
{
    size_t n;
    const char **keys = sorted_keys(obj, &n);
    json_t *out = json_object();
    for (size_t i = 0; i < n; i++)
        json_object_set_new(out, keys[i], json_deep_copy(json_object_get(obj, keys[i])));
    free(keys);
    return out;
}

/* The canonical object of three parts (each borrowed, NULL or empty = none). */
static json_t *assemble(const json_t *tags, const json_t *properties, const json_t *sensitive)
{
    json_t *out = json_object();
    if (json_object_size(tags))
        json_object_set_new(out, "tags", sorted_object(tags));
    if (json_object_size(properties))
        json_object_set_new(out, "properties", sorted_object(properties));
    if (json_array_size(sensitive))
        json_object_set_new(out, "sensitive", sorted_set(sensitive));
    return out;
}

/* ---- 2. Reading a request's metadata --------------------------------------- */

static reg_code_t bad(reg_error_t *err, const char *what)
{
    return reg_fail(err, REG_BAD_REQUEST, "Field 'metadata' is not valid: %s", what);
}

static int is_plain_string(const json_t *v)
{
    return json_is_string(v) && !memchr(json_string_value(v), '\0', json_string_length(v));
}

static int string_array(const json_t *v)
{
    if (!json_is_array(v))
        return 0;
    for (size_t i = 0; i < json_array_size(v); i++)
        if (!is_plain_string(json_array_get(v, i)))
            return 0;
    return 1;
}

static int has_nul_key(const json_t *obj)
{
    const char *k;
    size_t klen;
    json_t *v;
    json_object_keylen_foreach((json_t *)obj, k, klen, v)
    {
        if (memchr(k, '\0', klen))
            return 1;
    }
    return 0;
}

reg_code_t registry_metadata_read(const json_t *in, json_t **out, reg_error_t *err)
{
    *out = NULL;
    if (!in || json_is_null(in))
        return REG_OK;
    if (!json_is_object(in))
        return bad(err, "it must be an object");
    const json_t *tags = json_object_get(in, "tags"), *props = json_object_get(in, "properties"),
                 *sens = json_object_get(in, "sensitive");
    tags = json_is_null(tags) ? NULL : tags;
    props = json_is_null(props) ? NULL : props;
    sens = json_is_null(sens) ? NULL : sens;
    const char *k;
    json_t *v;
    if (tags && (!json_is_object(tags) || has_nul_key(tags)))
        return bad(err, "'tags' must map names to arrays of strings");
    json_object_foreach((json_t *)tags, k, v)
    {
        if (!string_array(v))
            return bad(err, "'tags' must map names to arrays of strings");
    }
    if (props && (!json_is_object(props) || has_nul_key(props)))
        return bad(err, "'properties' must map names to strings");
    json_object_foreach((json_t *)props, k, v)
    {
        if (!is_plain_string(v))
            return bad(err, "'properties' must map names to strings");
    }
    if (sens && !string_array(sens))
        return bad(err, "'sensitive' must be an array of strings");
    json_t *tag_sets = json_object();
    json_object_foreach((json_t *)tags, k, v) json_object_set_new(tag_sets, k, sorted_set(v));
    *out = assemble(tag_sets, props, sens);
    json_decref(tag_sets);
    return REG_OK;
}

/* ---- 3. Merging, confluent:version ------------------------------------------- */

/* Metadata.merge of two maps: the newer's entries over the older's, a key's whole value replaced. */
static json_t *merge_maps(const json_t *old, const json_t *new)
{
    json_t *out = old ? json_deep_copy(old) : json_object();
    if (new)
        json_object_update(out, (json_t *)new);
    return out;
}

json_t *md_merge(const json_t *old, const json_t *new)
{
    if (!old)
        return new ? json_deep_copy(new) : NULL;
    if (!new)
        return json_deep_copy(old);
    json_t *tags = merge_maps(json_object_get(old, "tags"), json_object_get(new, "tags"));
    json_t *props = merge_maps(json_object_get(old, "properties"), json_object_get(new, "properties"));
    json_t *sens = json_array(); /* a set: assemble() sorts and de-duplicates the union */
    if (json_object_get(old, "sensitive"))
        json_array_extend(sens, json_object_get(old, "sensitive"));
    if (json_object_get(new, "sensitive"))
        json_array_extend(sens, json_object_get(new, "sensitive"));
    json_t *out = assemble(tags, props, sens);
    json_decref(tags);
    json_decref(props);
    json_decref(sens);
    return out;
}

/* A copy of md (NULL = none) with properties[key] set to value, or removed when value is NULL. */
static json_t *with_property(const json_t *md, const char *key, const char *value)
{
    json_t *props = md && json_object_get(md, "properties")
                        ? json_deep_copy(json_object_get(md, "properties"))
                        : json_object();
    if (value)
        json_object_set_new(props, key, json_string(value));
    else
        json_object_del(props, key);
    json_t *out = assemble(md ? json_object_get(md, "tags") : NULL, props,
                           md ? json_object_get(md, "sensitive") : NULL);
    json_decref(props);
    return out;
}

json_t *md_with_version(const json_t *md, int version)
{
    char text[16];
    snprintf(text, sizeof text, "%d", version);
    return with_property(md, CONFLUENT_VERSION, text);
}

json_t *md_without_version(const json_t *md)
{
    if (!md || !json_object_get(json_object_get(md, "properties"), CONFLUENT_VERSION))
        return md ? json_deep_copy(md) : NULL;
    return with_property(md, CONFLUENT_VERSION, NULL);
}

/* ---- 4. Questions ---------------------------------------------------------------- */

const char *md_property(const json_t *md, const char *key)
{
    return json_string_value(json_object_get(json_object_get(md, "properties"), key));
}

int md_has_version(const json_t *md)
{
    return md_property(md, CONFLUENT_VERSION) != NULL;
}

/* Metadata.getConfluentVersionNumber: Integer.parseInt of the property (an
 * optional sign, decimal digits, within int), else none. */
int md_version_number(const json_t *md, int *out)
{
    const char *v = md_property(md, CONFLUENT_VERSION);
    if (!v || !*v)
        return 0;
    const char *digits = *v == '-' || *v == '+' ? v + 1 : v;
    if (!*digits || strspn(digits, "0123456789") != strlen(digits))
        return 0;
    errno = 0;
    long long n = strtoll(v, NULL, 10);
    if (errno || n < INT_MIN || n > INT_MAX)
        return 0;
    *out = (int)n;
    return 1;
}

int md_equal(const json_t *a, const json_t *b)
{
    return (!a && !b) || (a && b && json_equal((json_t *)a, (json_t *)b));
}

/* Metadata.updateHash: tag names and their values, property names and values,
 * sensitive names, in their sorted order. */
void md_digest(const json_t *md, void (*update)(void *ctx, const void *p, size_t n), void *ctx)
{
    const char *k;
    json_t *v;
    json_object_foreach(json_object_get(md, "tags"), k, v)
    {
        update(ctx, k, strlen(k));
        for (size_t i = 0; i < json_array_size(v); i++)
            update(ctx, json_string_value(json_array_get(v, i)), json_string_length(json_array_get(v, i)));
    }
    json_object_foreach(json_object_get(md, "properties"), k, v)
    {
        update(ctx, k, strlen(k));
        update(ctx, json_string_value(v), json_string_length(v));
    }
    json_t *sens = json_object_get(md, "sensitive");
    for (size_t i = 0; i < json_array_size(sens); i++)
        update(ctx, json_string_value(json_array_get(sens, i)), json_string_length(json_array_get(sens, i)));
}
