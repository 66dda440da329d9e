/*
 * read: every GET of the registry, answered from the in-memory index.
 * Only a schema id unknown to this node falls back to the database.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "registry/context.h"
#include "registry/internal.h"

int registry_version_parse(const char *text, int *version)
{
    if (!text)
        return -1;
    while (isspace((unsigned char)*text))
        text++;
    size_t len = strlen(text);
    while (len > 0 && isspace((unsigned char)text[len - 1]))
        len--;
    if (len == 6 && strncasecmp(text, "latest", 6) == 0) {
        *version = -1;
        return 0;
    }
    if (len == 2 && strncmp(text, "-1", 2) == 0) {
        *version = -1;
        return 0;
    }
    if (len == 0 || len > 64)
        return -1;
    long long v = 0;
    for (size_t i = 0; i < len; i++) {
        if (!isdigit((unsigned char)text[i]))
            return -1;
        v = v * 10 + (text[i] - '0');
        if (v > INT_MAX)
            return -1;
    }
    if (v < 1)
        return -1;
    *version = (int)v;
    return 0;
}

reg_code_t registry_invalid_version(reg_error_t *err, const char *text)
{
    return reg_fail(err, REG_INVALID_VERSION,
                    "The specified version '%s' is not a valid version id. Allowed values are "
                    "between [1, 2^31-1] and the string \"latest\"",
                    text);
}

/* The GET-version failure for an index miss. */
static reg_code_t miss_error(index_miss_t miss, const char *subject, int version, int schema_id,
                             reg_error_t *err)
{
    switch (miss) {
    case INDEX_FOUND: return REG_OK;
    case INDEX_NO_SUBJECT: return reg_fail(err, REG_SUBJECT_NOT_FOUND, "Subject '%s' not found.", subject);
    case INDEX_NO_VERSION: return reg_fail(err, REG_VERSION_NOT_FOUND, "Version %d not found.", version);
    default: return reg_fail(err, REG_SCHEMA_NOT_FOUND, "Schema %d not found", schema_id);
    }
}

reg_code_t registry_get_version(registry_t *reg, const char *subject, const char *version_text, int deleted,
                                reg_view_t *out, reg_error_t *err)
{
    int version;
    if (registry_version_parse(version_text, &version) != 0)
        return registry_invalid_version(err, version_text);
    index_miss_t miss = index_view(reg->idx, subject, version, deleted, out);
    return miss_error(miss, subject, version, out->id, err);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct subject_filter {
    const char *prefix;
    int deleted;
    int deleted_only;
    strlist_t *out;
} subject_filter_t;

static int collect_subject(const reg_subject_t *subj, void *arg)
{
    subject_filter_t *f = arg;
    int live = reg_subject_live_count(subj);
    int include = f->deleted_only ? (subj->n > 0 && live == 0) : f->deleted ? subj->n > 0 : live > 0;
    if (include && (!f->prefix || reg_prefix_match(f->prefix, subj->name)))
        strlist_push(f->out, subj->name);
    return 0;
}

void registry_list_subjects(registry_t *reg, const char *prefix, int deleted, int deleted_only,
                            strlist_t *out)
{
    subject_filter_t f = {prefix, deleted, deleted_only, out};
    index_each_subject(reg->idx, collect_subject, &f);
    if (out->n > 1)
        qsort(out->items, out->n, sizeof *out->items, cmp_str);
}

reg_code_t registry_list_versions(registry_t *reg, const char *subject, int deleted, int deleted_only,
                                  int deleted_as_negative, int **out, size_t *n, reg_error_t *err)
{
    *out = NULL;
    *n = 0;
    reg_subject_t *subj = index_subject_copy(reg->idx, subject);
    int any = subj && (deleted || deleted_only ? subj->n > 0 : reg_subject_latest(subj) != NULL);
    if (!any) {
        reg_subject_free(subj);
        return reg_fail(err, REG_SUBJECT_NOT_FOUND, "Subject '%s' not found.", subject);
    }
    *out = xcalloc(subj->n + 1, sizeof **out);
    for (size_t i = 0; i < subj->n; i++) {
        const reg_version_t *v = &subj->v[i];
        if (deleted_as_negative)
            (*out)[(*n)++] = v->deleted ? -v->version : v->version;
        else if (deleted_only ? v->deleted : (deleted || !v->deleted))
            (*out)[(*n)++] = v->version;
    }
    reg_subject_free(subj);
    return REG_OK;
}

void registry_list_schemas(registry_t *reg, const char *prefix, int deleted, int latest_only,
                           reg_view_t **out, size_t *n)
{
    index_views(reg->idx, prefix, deleted, latest_only, out, n);
}

/* GET /schemas?aliases=true, as AbstractSchemaRegistry's
 * allVersionsIncludingAliasesWithSubjectPrefix: the configs of the subjects
 * under the prefix name aliases; each target subject lists those names, and
 * a target outside the prefix has its versions added. An alias is qualified
 * with its config's subject as the parent (qualifySubjectWithParent): an
 * unqualified one is in that subject's context. */
typedef struct alias_walk {
    const char *prefix; /* NULL = every subject */
    strlist_t pairs;    /* [2i] an alias subject, [2i+1] the subject it names */
} alias_walk_t;

static int collect_alias(const reg_subject_t *subj, void *arg)
{
    alias_walk_t *w = arg;
    const char *alias = subj->config ? json_string_value(json_object_get(subj->config, "alias")) : NULL;
    if (alias && *alias && (!w->prefix || reg_prefix_match(w->prefix, subj->name))) {
        char *context = reg_context_copy(subj->name);
        strlist_push(&w->pairs, subj->name);
        strlist_push_owned(&w->pairs, reg_ref_qualify(context, alias));
        free(context);
    }
    return 0;
}

static int cmp_view_(const void *a, const void *b)
{
    const reg_view_t *x = a, *y = b;
    int c = strcmp(x->subject, y->subject);
    return c ? c : (x->version > y->version) - (x->version < y->version);
}

static int cmp_str_(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int has_subject_(const reg_view_t *v, size_t n, const char *subject)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(v[i].subject, subject) == 0)
            return 1;
    return 0;
}

void registry_list_schemas_aliased(registry_t *reg, const char *prefix, int deleted, int latest_only,
                                   reg_view_t **out, strlist_t **aliases, size_t *n)
{
    alias_walk_t w = {prefix, {0}};
    index_each_subject(reg->idx, collect_alias, &w);
    index_views(reg->idx, prefix, deleted, latest_only, out, n);
    for (size_t i = 1; i < w.pairs.n; i += 2) {
        const char *target = w.pairs.items[i];
        if (has_subject_(*out, *n, target))
            continue;
        reg_view_t *tv;
        size_t tn;
        index_views(reg->idx, target, deleted, latest_only, &tv, &tn);
        *out = xreallocarray(*out, *n + tn + 1, sizeof **out);
        for (size_t k = 0; k < tn; k++) {
            if (strcmp(tv[k].subject, target) == 0)
                (*out)[(*n)++] = tv[k]; /* moved */
            else
                reg_view_clear(&tv[k]);
        }
        free(tv);
    }
    if (*n > 1)
        qsort(*out, *n, sizeof **out, cmp_view_);
    *aliases = xcalloc(*n + 1, sizeof **aliases);
    for (size_t i = 0; i < *n; i++) {
        for (size_t k = 1; k < w.pairs.n; k += 2)
            if (strcmp(w.pairs.items[k], (*out)[i].subject) == 0)
                strlist_push(&(*aliases)[i], w.pairs.items[k - 1]);
        if ((*aliases)[i].n > 1)
            qsort((*aliases)[i].items, (*aliases)[i].n, sizeof *(*aliases)[i].items, cmp_str_);
    }
    strlist_clear(&w.pairs);
}

/* The first (subject, version) of the context carrying id, as a view; 0 when none. */
static int first_usage(registry_t *reg, const char *context, int id, reg_view_t *out)
{
    reg_usage_t *u;
    size_t n;
    index_usages(reg->idx, context, id, 1, &u, &n);
    int found = n > 0 && index_view_of_schema(reg->idx, u[0].subject, id, 1, out);
    reg_usages_free(u, n);
    return found;
}

/* Confluent's AbstractSchemaRegistry.getSchemaKeyUsingContexts: no subject
 * -> the default context; a context (":.ctx:") -> that context; a subject of
 * a named context -> that subject only; a default-context subject -> that
 * subject, else the same name in each named context, else any subject of the
 * default context. */
static int find_by_id(registry_t *reg, int id, const char *subject, reg_view_t *out)
{
    if (!subject) {
        reg_schema_t *s = index_schema(reg->idx, ".", id, 1);
        if (!s)
            return 0;
        *out = (reg_view_t){NULL, 0, id, 0, s->ts_ms, s};
        return 1;
    }
    reg_ctx_t ctx = reg_context_of(subject);
    char *context = xstrndup(ctx.base, ctx.len);
    int is_default = strcmp(context, ".") == 0;
    const char *rest = is_default ? subject : subject + ctx.len + 2;
    /* The extended profile names only a subject asked about that carries the
     * id (docs/api.md): not a context, nor the fallback to any subject. */
    int named = *rest != '\0';
    int found;
    if (!*rest)
        found = first_usage(reg, context, id, out);
    else if (!is_default)
        found = index_view_of_schema(reg->idx, subject, id, 1, out);
    else if (!(found = index_view_of_schema(reg->idx, subject, id, 1, out))) {
        strlist_t contexts = {0};
        index_contexts(reg->idx, &contexts);
        for (size_t i = 0; i < contexts.n && !found; i++) {
            char *q = xasprintf(":%s:%s", contexts.items[i], rest);
            found = index_view_of_schema(reg->idx, q, id, 1, out);
            free(q);
        }
        strlist_clear(&contexts);
        if (!found) {
            found = first_usage(reg, ".", id, out);
            named = 0;
        }
    }
    if (found && !named) {
        free(out->subject);
        out->subject = NULL;
        out->version = 0;
    }
    free(context);
    return found;
}

int registry_find_by_id(registry_t *reg, int id, const char *subject, reg_view_t *out)
{
    memset(out, 0, sizeof *out);
    if (!subject)
        return find_by_id(reg, id, NULL, out);
    char *name = xmalloc(strlen(subject) + 2);
    strcpy(name, subject);
    registry_subject_normalize(name);
    int found = find_by_id(reg, id, name, out);
    free(name);
    return found;
}

reg_code_t registry_get_by_id(registry_t *reg, store_t *db, int id, const char *subject, reg_view_t *out,
                              reg_error_t *err)
{
    if (registry_find_by_id(reg, id, subject, out))
        return REG_OK;
    /* Another node may have registered the id a moment ago: reload the
     * subjects of the context asked about that carry it, so read-after-write
     * holds across nodes. */
    char *name = xmalloc((subject ? strlen(subject) : 0) + 2);
    strcpy(name, subject ? subject : "");
    registry_subject_normalize(name);
    char *context = reg_context_copy(name);
    free(name);
    strlist_t subjects = {0};
    reg_code_t rc = reg_store(err, db, store_subjects_of_schema(db, context, id, &subjects));
    for (size_t i = 0; rc == REG_OK && i < subjects.n; i++)
        rc = registry_reload_scope(reg, db, subjects.items[i], err);
    strlist_clear(&subjects);
    free(context);
    if (rc != REG_OK)
        return rc;
    return registry_find_by_id(reg, id, subject, out)
               ? REG_OK
               : reg_fail(err, REG_SCHEMA_NOT_FOUND, "Schema %d not found", id);
}

/* The content's canonical row in one context (retained), whatever its type. */
static reg_schema_t *by_guid_in(registry_t *reg, const char *context, const unsigned char guid[16])
{
    reg_schema_t *s = NULL;
    for (int t = 0; t < SCHEMA_TYPE_COUNT && !s; t++)
        s = index_schema_by_key(reg->idx, context, (schema_type_t)t, guid);
    return s;
}

/* AbstractSchemaRegistry.getIdUsingContexts: the default context first, then
 * each named context in order. */
reg_code_t registry_get_schema_by_guid(registry_t *reg, const unsigned char guid[16], reg_schema_t **out,
                                       reg_error_t *err)
{
    *out = by_guid_in(reg, ".", guid);
    strlist_t contexts = {0};
    if (!*out)
        index_contexts(reg->idx, &contexts);
    for (size_t i = 0; i < contexts.n && !*out; i++)
        *out = by_guid_in(reg, contexts.items[i], guid);
    strlist_clear(&contexts);
    return *out ? REG_OK : reg_fail(err, REG_SCHEMA_NOT_FOUND, "Schema not found");
}

void registry_guid_ids(registry_t *reg, const unsigned char guid[16], reg_usage_t **out, size_t *n)
{
    strlist_t contexts = {0};
    strlist_push(&contexts, ".");
    index_contexts(reg->idx, &contexts);
    *out = xcalloc(contexts.n + 1, sizeof **out);
    *n = 0;
    for (size_t i = 0; i < contexts.n; i++) {
        reg_schema_t *s = by_guid_in(reg, contexts.items[i], guid);
        if (s)
            (*out)[(*n)++] = (reg_usage_t){xstrdup(contexts.items[i]), s->id};
        reg_schema_release(s);
    }
    strlist_clear(&contexts);
}

void registry_schema_usages(registry_t *reg, const char *context, int id, int deleted, reg_usage_t **out,
                            size_t *n)
{
    index_usages(reg->idx, context, id, deleted, out, n);
}

int registry_schema_deleted(registry_t *reg, const char *context, int id)
{
    int known, deleted;
    reg_body_release(index_schema_body(reg->idx, context, id, -1, &known, &deleted));
    return deleted || !known;
}

/* ---- Prepared bodies ---------------------------------------------------------- */

reg_body_t *registry_schema_body(registry_t *reg, int id, int variant, int *deleted)
{
    int known;
    return index_schema_body(reg->idx, ".", id, variant, &known, deleted);
}

reg_body_t *registry_schema_body_put(registry_t *reg, int id, int variant, int deleted, const char *text,
                                     size_t len)
{
    return index_schema_body_put(reg->idx, ".", id, variant, deleted, reg_body_new(text, len));
}

reg_code_t registry_version_body(registry_t *reg, const char *subject, const char *version_text, int deleted,
                                 int variant, reg_body_t **body, reg_view_t *out, reg_error_t *err)
{
    int version;
    *body = NULL;
    if (registry_version_parse(version_text, &version) != 0)
        return registry_invalid_version(err, version_text);
    index_miss_t miss = index_version_body(reg->idx, subject, version, deleted, variant, body, out);
    return miss_error(miss, subject, version, out->id, err);
}

reg_body_t *registry_version_body_put(registry_t *reg, const reg_view_t *view, int variant, const char *text,
                                      size_t len)
{
    return index_version_body_put(reg->idx, view, variant, reg_body_new(text, len));
}

int registry_max_id(registry_t *reg, const char *context)
{
    return index_max_id(reg->idx, context);
}

reg_code_t registry_list_contexts(registry_t *reg, store_t *db, strlist_t *out, reg_error_t *err)
{
    (void)reg;
    strlist_push(out, ".");
    return reg_store(err, db, store_contexts(db, out));
}

reg_code_t registry_referenced_by(registry_t *reg, const char *subject, const char *version_text, int deleted,
                                  int **ids, size_t *n, reg_error_t *err)
{
    reg_view_t view = {0};
    *ids = NULL;
    *n = 0;
    reg_code_t rc = registry_get_version(reg, subject, version_text, 1, &view, err);
    if (rc != REG_OK)
        return rc;
    *n = index_referrers(reg->idx, subject, view.version, deleted, ids);
    reg_view_clear(&view);
    return REG_OK;
}

char *registry_schema_format(registry_t *reg, reg_schema_t *s, const char *format)
{
    if (!format || !*format)
        return xstrdup(s->text);
    reg_error_t err;
    const schema_t *parsed = registry_parsed(reg, s, &err);
    char *text = parsed ? schema_format(parsed, format) : NULL;
    return text ? text : xstrdup(s->text);
}

reg_code_t registry_ready(registry_t *reg, store_t *db, int max_feed_lag_ms, reg_error_t *err)
{
    /* A registry exists only once it is loaded. */
    reg_code_t rc = reg_store(err, db, store_ping(db));
    if (rc != REG_OK || reg->opts.feed_interval_ms <= 0 || max_feed_lag_ms <= 0)
        return rc;
    /* A node whose feed cannot catch up serves what other nodes changed late:
     * a balancer should send its clients elsewhere until it is current again. */
    int64_t current = __atomic_load_n(&reg->feed_current_ms, __ATOMIC_RELAXED);
    int64_t lag = reg_wall_ms() - current;
    if (lag > max_feed_lag_ms)
        return reg_fail(err, REG_STORE_ERROR,
                        "the change feed last found this node current %lld ms ago "
                        "(health.ready.max.feed.lag.ms %d)",
                        (long long)lag, max_feed_lag_ms);
    return REG_OK;
}

/* Every pair (keys[i], values[i]) is among md's properties; a key named twice counts with its last value,
 * as the HashMap SubjectsResource.getLatestWithMetadata builds. */
static int properties_hold(const json_t *md, const char *const *keys, const char *const *values, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int last = 1;
        for (size_t j = i + 1; j < n && last; j++)
            last = strcmp(keys[i], keys[j]) != 0;
        const char *have = md_property(md, keys[i]);
        if (last && (!have || strcmp(have, values[i]) != 0))
            return 0;
    }
    return 1;
}

reg_code_t registry_latest_with_metadata(registry_t *reg, const char *subject, const char *const *keys,
                                         const char *const *values, size_t n, int deleted, reg_view_t *out,
                                         reg_error_t *err)
{
    reg_subject_t *subj = index_subject_copy(reg->idx, subject);
    int found = 0, exists = subj && (deleted ? subj->n > 0 : reg_subject_latest(subj) != NULL);
    for (size_t i = subj ? subj->n : 0; i-- > 0 && !found;) {
        if (subj->v[i].deleted && !deleted)
            continue;
        reg_view_t view = {0};
        /* A version without metadata never matches, not even no filter at all. */
        if (index_view(reg->idx, subject, subj->v[i].version, deleted, &view) == INDEX_FOUND &&
            view.schema->metadata && properties_hold(view.schema->metadata, keys, values, n)) {
            *out = view;
            found = 1;
        } else {
            reg_view_clear(&view);
        }
    }
    reg_subject_free(subj);
    if (found)
        return REG_OK;
    if (!exists)
        return reg_fail(err, REG_SUBJECT_NOT_FOUND, "Subject '%s' not found.", subject);
    return reg_fail(err, REG_SCHEMA_NOT_FOUND, "Schema not found");
}
