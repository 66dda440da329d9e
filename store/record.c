/*
 * record: construction and disposal of the records of store/record.h.
 */
#include "store/record.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

/* ---- 2. Schema rows ----------------------------------------------------- */

reg_schema_t *reg_schema_new(int id, schema_type_t type, const char *text,
                             const unsigned char key[REG_KEY_LEN], int64_t ts_ms)
{
    reg_schema_t *s = xcalloc(1, sizeof *s);
    s->id = id;
    s->type = type;
    s->text = xstrdup(text);
    s->text_len = strlen(text);
    memcpy(s->key, key, REG_KEY_LEN);
    s->ts_ms = ts_ms;
    s->refcount = 1;
    s->context = xstrdup(".");
    return s;
}

void reg_schema_set_context(reg_schema_t *s, const char *context)
{
    free(s->context);
    s->context = xstrdup(context);
}

void reg_schema_add_ref(reg_schema_t *s, const char *name, const char *subject, int version)
{
    s->refs = xreallocarray(s->refs, s->nrefs + 1, sizeof *s->refs);
    s->refs[s->nrefs].name = xstrdup(name);
    s->refs[s->nrefs].subject = xstrdup(subject);
    s->refs[s->nrefs].version = version;
    s->nrefs++;
}

void reg_schema_set_metadata(reg_schema_t *s, json_t *metadata)
{
    json_decref(s->metadata);
    s->metadata = metadata;
}

void reg_schema_retain(reg_schema_t *s)
{
    __atomic_add_fetch(&s->refcount, 1, __ATOMIC_RELAXED);
}

void reg_schema_release(reg_schema_t *s)
{
    if (!s || __atomic_sub_fetch(&s->refcount, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    for (size_t i = 0; i < s->nrefs; i++) {
        free(s->refs[i].name);
        free(s->refs[i].subject);
    }
    free(s->refs);
    json_decref(s->metadata);
    schema_free(s->parsed);
    free(s->text);
    free(s->context);
    free(s);
}

/* ---- 3. Subjects -------------------------------------------------------- */

reg_subject_t *reg_subject_new(const char *name)
{
    reg_subject_t *s = xcalloc(1, sizeof *s);
    s->name = xstrdup(name);
    return s;
}

void reg_subject_add_version(reg_subject_t *s, int version, int schema_id, int deleted, int64_t ts)
{
    s->v = xreallocarray(s->v, s->n + 1, sizeof *s->v);
    s->v[s->n++] = (reg_version_t){version, schema_id, deleted, ts};
}

void reg_subject_free(reg_subject_t *s)
{
    if (!s)
        return;
    json_decref(s->config);
    free(s->mode);
    free(s->v);
    free(s->name);
    free(s);
}

int reg_subject_is_empty(const reg_subject_t *s)
{
    return s->n == 0 && !s->config && !s->mode;
}

const reg_version_t *reg_subject_latest(const reg_subject_t *s)
{
    for (size_t i = s->n; i-- > 0;)
        if (!s->v[i].deleted)
            return &s->v[i];
    return NULL;
}

/* By bisection: v is ascending by version (record.h), and a registration's
 * lookup asks for every version of the subject in turn (docs/performance.md). */
const reg_version_t *reg_subject_find(const reg_subject_t *s, int version)
{
    if (version == -1)
        return reg_subject_latest(s);
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->v[mid].version < version)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n && s->v[lo].version == version ? &s->v[lo] : NULL;
}

int reg_subject_live_count(const reg_subject_t *s)
{
    int n = 0;
    for (size_t i = 0; i < s->n; i++)
        n += !s->v[i].deleted;
    return n;
}

/* ---- 4. Settings ---------------------------------------------------------- */

/* -1 when absent; a present key is set, and only JSON true turns it on. */
static int record_flag(const json_t *config, const char *key)
{
    const json_t *v = json_object_get(config, key);
    return v == NULL ? -1 : json_is_true(v);
}

void reg_settings_read(const json_t *config, reg_settings_t *out)
{
    out->present = config != NULL;
    out->has_level =
        config != NULL &&
        compat_level_parse(json_string_value(json_object_get(config, "compatibility")), &out->level) == 0;
    out->normalize = record_flag(config, "normalize");
    out->validate_fields = record_flag(config, "validateFields");
    out->has_metadata = json_is_object(json_object_get(config, "defaultMetadata")) ||
                        json_is_object(json_object_get(config, "overrideMetadata"));
}
