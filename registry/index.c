#include "registry/index.h"

#include <stdlib.h>
#include <string.h>

/* ---- Records ----------------------------------------------------------- */

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n, size);
    if (!p)
        abort();   /* the index cannot be half-updated: out of memory is fatal */
    return p;
}

static char *xstrdup(const char *s)
{
    char *p = strdup(s);
    if (!p)
        abort();
    return p;
}

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
    return s;
}

void reg_schema_add_ref(reg_schema_t *s, const char *name, const char *subject, int version)
{
    reg_ref_t *refs = realloc(s->refs, (s->nrefs + 1) * sizeof *refs);
    if (!refs)
        abort();
    s->refs = refs;
    refs[s->nrefs].name = xstrdup(name);
    refs[s->nrefs].subject = xstrdup(subject);
    refs[s->nrefs].version = version;
    s->nrefs++;
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
    schema_free(s->parsed);
    free(s->text);
    free(s);
}

reg_subject_t *reg_subject_new(const char *name)
{
    reg_subject_t *s = xcalloc(1, sizeof *s);
    s->name = xstrdup(name);
    return s;
}

void reg_subject_add_version(reg_subject_t *s, int version, int schema_id, int deleted, int64_t ts)
{
    reg_version_t *v = realloc(s->v, (s->n + 1) * sizeof *v);
    if (!v)
        abort();
    s->v = v;
    v[s->n++] = (reg_version_t){version, schema_id, deleted, ts};
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

const reg_version_t *reg_subject_find(const reg_subject_t *s, int version)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].version == version)
            return &s->v[i];
    return NULL;
}

int reg_subject_live_count(const reg_subject_t *s)
{
    int n = 0;
    for (size_t i = 0; i < s->n; i++)
        n += !s->v[i].deleted;
    return n;
}

/* ---- The index --------------------------------------------------------- */

void index_init(reg_index_t *idx)
{
    memset(idx, 0, sizeof *idx);
    pthread_rwlock_init(&idx->lock, NULL);
}

void index_destroy(reg_index_t *idx)
{
    for (size_t i = 0; i < idx->by_id.cap; i++)
        if (hmap_live(&idx->by_id, i))
            reg_schema_release(idx->by_id.slots[i].value);
    for (size_t i = 0; i < idx->subjects.cap; i++)
        if (hmap_live(&idx->subjects, i))
            reg_subject_free(idx->subjects.slots[i].value);
    hmap_clear(&idx->by_id);
    hmap_clear(&idx->by_key);
    hmap_clear(&idx->subjects);
    json_decref(idx->global_config);
    free(idx->global_mode);
    pthread_rwlock_destroy(&idx->lock);
}

static void key_bytes(unsigned char out[1 + REG_KEY_LEN], schema_type_t type,
                      const unsigned char key[REG_KEY_LEN])
{
    out[0] = (unsigned char)type;
    memcpy(out + 1, key, REG_KEY_LEN);
}

reg_schema_t *index_schema(const reg_index_t *idx, int id)
{
    return hmap_get(&idx->by_id, &id, sizeof id);
}

reg_schema_t *index_schema_by_key(const reg_index_t *idx, schema_type_t type,
                                  const unsigned char key[REG_KEY_LEN])
{
    unsigned char k[1 + REG_KEY_LEN];
    key_bytes(k, type, key);
    return hmap_get(&idx->by_key, k, sizeof k);
}

reg_subject_t *index_subject(const reg_index_t *idx, const char *name)
{
    return hmap_gets(&idx->subjects, name);
}

void index_add_schema(reg_index_t *idx, reg_schema_t *s)
{
    if (index_schema(idx, s->id)) {
        reg_schema_release(s);
        return;
    }
    unsigned char k[1 + REG_KEY_LEN];
    key_bytes(k, s->type, s->key);
    hmap_put(&idx->by_id, &s->id, sizeof s->id, s);
    hmap_put(&idx->by_key, k, sizeof k, s);
    if (s->id > idx->max_id)
        idx->max_id = s->id;
}

static void count_versions(reg_index_t *idx, const reg_subject_t *subj, int sign)
{
    for (size_t i = 0; i < subj->n; i++) {
        reg_schema_t *s = index_schema(idx, subj->v[i].schema_id);
        if (!s)
            continue;
        s->nversions += sign;
        if (!subj->v[i].deleted)
            s->nlive += sign;
    }
}

void index_publish_subject(reg_index_t *idx, reg_subject_t *fresh)
{
    reg_subject_t *old = index_subject(idx, fresh->name);
    if (old) {
        count_versions(idx, old, -1);
        hmap_dels(&idx->subjects, fresh->name);
        reg_subject_free(old);
    }
    if (reg_subject_is_empty(fresh)) {
        reg_subject_free(fresh);
        return;
    }
    count_versions(idx, fresh, +1);
    hmap_puts(&idx->subjects, fresh->name, fresh);
}

void index_publish_global(reg_index_t *idx, json_t *config, char *mode)
{
    json_decref(idx->global_config);
    free(idx->global_mode);
    idx->global_config = config;
    idx->global_mode = mode;
}
