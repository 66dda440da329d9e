/*
 * index: the in-memory registry behind its own lock (index.h).
 */
#include "registry/index.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hmap.h"
#include "base/vec.h"
#include "registry/context.h"
#include "registry/bodies.h"

/* A schema row and how many subject versions carry it (guarded by the lock). */
typedef struct index_entry {
    reg_schema_t *schema; /* the index's reference */
    int nversions;
    int nlive;
    reg_shelf_t *bodies; /* prepared by-id bodies (section 6), allocated on first use */
} index_entry_t;

/* What the index keeps beside a published subject (the shelves map's value). */
typedef struct index_beside {
    reg_shelf_t *bodies; /* its versions' prepared bodies (section 6) */
    int type;            /* the schema type it is counted under (section 7), or -1 */
    /* counted[i]: version i was counted in its entry's nversions (the entry
     * existed when the subject entered); only those are taken off when it
     * leaves, whatever entries were published meanwhile. */
    unsigned char *counted;
} index_beside_t;

struct reg_index {
    pthread_rwlock_t lock;
    /* Held by every write around its write lock (index_write_begin), so that
     * the maps change only under it: a writer may then read them with the
     * readers to build a grown table before it takes the write lock. */
    pthread_mutex_t write_lock;
    hmap_t by_id;    /* (context, id) -> index_entry_t* (owned) */
    hmap_t by_key;   /* (context, type byte, identity key) -> the canonical entry (borrowed from by_id) */
    hmap_t subjects; /* name -> reg_subject_t* (owned) */
    hmap_t max_ids;  /* context -> int* (owned): the highest id published there */
    hmap_t shelves;  /* reg_subject_t* -> index_beside_t* (owned; sections 6 and 7) */
    /* The entries whose rows have references (borrowed from by_id), the only
     * ones a referrer search (section 3) must look at: few rows have any. */
    VEC(index_entry_t *) with_refs;
    json_t *global_config;
    char *global_mode;
    /* index_stats' figures, kept as entries and subjects come and go (section
     * 7): the records' bytes only; the maps' are read off them. */
    index_stats_t counts;
    uint64_t body_bytes; /* atomic: the shelves and their bodies (bodies.h) */
};

/* Ids and contents are per context (migrations/0006): every key of by_id and
 * by_key starts with the context's name and its NUL. Contexts are short (a
 * subject name's prefix); a longer one takes the heap. */
typedef struct ctx_key {
    unsigned char stack[128];
    unsigned char *bytes;
    size_t len;
} ctx_key_t;

static void ctx_key_init(ctx_key_t *k, reg_ctx_t ctx, const void *tail, size_t tail_len)
{
    k->len = ctx.len + 1 + tail_len;
    k->bytes = k->len <= sizeof k->stack ? k->stack : xmalloc(k->len);
    memcpy(k->bytes, ctx.base, ctx.len);
    k->bytes[ctx.len] = 0;
    memcpy(k->bytes + ctx.len + 1, tail, tail_len);
}

static void ctx_key_clear(ctx_key_t *k)
{
    if (k->bytes != k->stack)
        free(k->bytes);
}

static reg_ctx_t ctx_named(const char *name)
{
    return (reg_ctx_t){name, strlen(name)};
}

/* The one slot walk: fn(value, arg) for every live entry until it returns nonzero. */
static int map_each(const hmap_t *m, int (*fn)(void *value, void *arg), void *arg)
{
    for (size_t i = 0; i < m->cap; i++) {
        if (!hmap_live(m, i))
            continue;
        int stop = fn(m->slots[i].value, arg);
        if (stop)
            return stop;
    }
    return 0;
}

/* ---- 1. Lifecycle -------------------------------------------------------- */

reg_index_t *index_new(void)
{
    reg_index_t *idx = xcalloc(1, sizeof *idx);
    pthread_rwlock_init(&idx->lock, NULL);
    pthread_mutex_init(&idx->write_lock, NULL);
    return idx;
}

static int entry_free(void *value, void *arg)
{
    index_entry_t *e = value;
    reg_schema_release(e->schema);
    reg_shelf_free(e->bodies);
    free(e);
    return 0;
}

static int beside_free(void *value, void *arg)
{
    index_beside_t *b = value;
    reg_shelf_free(b->bodies);
    free(b->counted);
    free(b);
    return 0;
}

static int subject_free(void *value, void *arg)
{
    reg_subject_free(value);
    return 0;
}

static int plain_free(void *value, void *arg)
{
    free(value);
    return 0;
}

/* Frees every entry, subject and shelf; the maps stay usable. */
static void index_empty_locked(reg_index_t *idx)
{
    map_each(&idx->by_id, entry_free, NULL);
    map_each(&idx->subjects, subject_free, NULL);
    map_each(&idx->max_ids, plain_free, NULL);
    hmap_clear(&idx->max_ids);
    map_each(&idx->shelves, beside_free, NULL);
    hmap_clear(&idx->shelves);
    memset(&idx->counts, 0, sizeof idx->counts); /* body_bytes went to 0 with the shelves */
    hmap_clear(&idx->by_id);
    VEC_FREE(&idx->with_refs);
    hmap_clear(&idx->by_key);
    hmap_clear(&idx->subjects);
    json_decref(idx->global_config);
    free(idx->global_mode);
    idx->global_config = NULL;
    idx->global_mode = NULL;
}

void index_free(reg_index_t *idx)
{
    if (!idx)
        return;
    index_empty_locked(idx);
    pthread_mutex_destroy(&idx->write_lock);
    pthread_rwlock_destroy(&idx->lock);
    free(idx);
}

/* ---- Lookups (lock held) -------------------------------------------------- */

static void key_bytes(ctx_key_t *k, reg_ctx_t ctx, schema_type_t type, const unsigned char key[REG_KEY_LEN])
{
    unsigned char tail[1 + REG_KEY_LEN];
    tail[0] = (unsigned char)type;
    memcpy(tail + 1, key, REG_KEY_LEN);
    ctx_key_init(k, ctx, tail, sizeof tail);
}

static index_entry_t *entry_locked(const reg_index_t *idx, reg_ctx_t ctx, int id)
{
    ctx_key_t k;
    ctx_key_init(&k, ctx, &id, sizeof id);
    index_entry_t *e = hmap_get(&idx->by_id, k.bytes, k.len);
    ctx_key_clear(&k);
    return e;
}

/* The entry a version of subj names: its id in the subject's context. */
static index_entry_t *version_entry_locked(const reg_index_t *idx, const reg_subject_t *subj,
                                           const reg_version_t *v)
{
    return entry_locked(idx, reg_context_of(subj->name), v->schema_id);
}

static reg_subject_t *subject_locked(const reg_index_t *idx, const char *name)
{
    return hmap_gets(&idx->subjects, name);
}

static int subject_has_versions(const reg_subject_t *subj, int deleted)
{
    return subj && (deleted ? subj->n > 0 : reg_subject_latest(subj) != NULL);
}

/* ---- 2. Publishing ------------------------------------------------------- */

static uint64_t entry_bytes(const index_entry_t *e); /* section 7, with the other counts */

static void add_schema_locked(reg_index_t *idx, reg_schema_t *s)
{
    reg_ctx_t ctx = ctx_named(s->context);
    if (entry_locked(idx, ctx, s->id)) {
        reg_schema_release(s);
        return;
    }
    index_entry_t *e = xcalloc(1, sizeof *e);
    e->schema = s;
    idx->counts.bytes += entry_bytes(e);
    if (s->nrefs > 0)
        VEC_PUSH(&idx->with_refs, e);
    ctx_key_t ik, kk;
    ctx_key_init(&ik, ctx, &s->id, sizeof s->id);
    hmap_put(&idx->by_id, ik.bytes, ik.len, e);
    ctx_key_clear(&ik);
    key_bytes(&kk, ctx, s->type, s->key);
    /* One content may have several ids (IMPORT, migrations/0004); by_key
     * names the canonical one. A row loaded as canonical takes the key (the
     * mark only moves to rows stored later, so the newest load is right);
     * any row holds it until then, whatever order rows arrive in. */
    if (s->canonical || !hmap_get(&idx->by_key, kk.bytes, kk.len))
        hmap_put(&idx->by_key, kk.bytes, kk.len, e);
    ctx_key_clear(&kk);
    int *max = hmap_gets(&idx->max_ids, s->context);
    if (!max) {
        max = xcalloc(1, sizeof *max);
        hmap_puts(&idx->max_ids, s->context, max);
    }
    if (s->id > *max)
        *max = s->id;
}

/* The entries subj's versions name count them (sign +1, noting in counted
 * which did) or stop (-1, those counted noted); a row is counted in
 * schemas[] while some version carries it. */
static void count_versions(reg_index_t *idx, const reg_subject_t *subj, int sign, unsigned char *counted)
{
    for (size_t i = 0; i < subj->n; i++) {
        index_entry_t *e = version_entry_locked(idx, subj, &subj->v[i]);
        if (sign > 0)
            counted[i] = e != NULL;
        if (!e || !counted[i])
            continue;
        int carried = e->nversions > 0;
        e->nversions += sign;
        if (!subj->v[i].deleted)
            e->nlive += sign;
        if (carried != (e->nversions > 0) && (unsigned)e->schema->type < SCHEMA_TYPE_COUNT)
            idx->counts.schemas[e->schema->type] += e->nversions > 0 ? 1 : (uint64_t)-1;
    }
}

static void subject_enter_locked(reg_index_t *idx, reg_subject_t *subj);
static void subject_leave_locked(reg_index_t *idx, reg_subject_t *subj);

static void publish_subject_locked(reg_index_t *idx, reg_subject_t *fresh)
{
    reg_subject_t *old = subject_locked(idx, fresh->name);
    if (old) {
        subject_leave_locked(idx, old);
        hmap_dels(&idx->subjects, fresh->name);
        reg_subject_free(old);
    }
    if (reg_subject_is_empty(fresh)) {
        reg_subject_free(fresh);
        return;
    }
    hmap_puts(&idx->subjects, fresh->name, fresh);
    subject_enter_locked(idx, fresh);
}

static void publish_global_locked(reg_index_t *idx, json_t *config, char *mode)
{
    json_decref(idx->global_config);
    free(idx->global_mode);
    idx->global_config = config;
    idx->global_mode = mode;
}

static void publish_snapshot_locked(reg_index_t *idx, store_snapshot_t *snap)
{
    for (size_t i = 0; i < snap->nschemas; i++)
        add_schema_locked(idx, snap->schemas[i]);
    for (size_t i = 0; i < snap->nsubjects; i++)
        publish_subject_locked(idx, snap->subjects[i]);
    publish_global_locked(idx, snap->global_config, snap->global_mode);
    snap->nschemas = snap->nsubjects = 0;
    snap->global_config = NULL;
    snap->global_mode = NULL;
    store_snapshot_free(snap);
}

/*
 * Every write: the write lock, the maps that grow with each new schema and
 * subject given room first. A map's rehash copies every entry (tens of
 * milliseconds at 100,000 entries, most of it the new table's page faults:
 * docs/performance.md, "New registrations: the p99 spikes and the index's
 * maps doubling"); done under the write lock it held every read that long.
 * Here the writer builds the grown tables while readers go on reading the
 * old ones, and swaps them in under the write lock. INDEX_ROOM is more than
 * one write adds to a map, except a snapshot's, which grows in place.
 */
#define INDEX_ROOM 64

static void index_write_begin(reg_index_t *idx)
{
    pthread_mutex_lock(&idx->write_lock);
    hmap_t *maps[] = {&idx->by_id, &idx->by_key, &idx->subjects, &idx->shelves};
    hmap_t grown[sizeof maps / sizeof *maps];
    /* Out of memory, a copy stays empty: the write's insertion grows the map or aborts. */
    for (size_t i = 0; i < sizeof maps / sizeof *maps; i++)
        (void)hmap_grown_copy(maps[i], INDEX_ROOM, &grown[i]);
    pthread_rwlock_wrlock(&idx->lock);
    for (size_t i = 0; i < sizeof maps / sizeof *maps; i++)
        hmap_adopt(maps[i], &grown[i]);
}

static void index_write_end(reg_index_t *idx)
{
    pthread_rwlock_unlock(&idx->lock);
    pthread_mutex_unlock(&idx->write_lock);
}

void index_publish_snapshot(reg_index_t *idx, store_snapshot_t *snap)
{
    index_write_begin(idx);
    publish_snapshot_locked(idx, snap);
    index_write_end(idx);
}

/* One lock hold: a reader sees the old state or the new one, never an empty index. */
void index_replace_snapshot(reg_index_t *idx, store_snapshot_t *snap)
{
    index_write_begin(idx);
    index_empty_locked(idx);
    publish_snapshot_locked(idx, snap);
    index_write_end(idx);
}

void index_publish_schema(reg_index_t *idx, reg_schema_t *s)
{
    index_write_begin(idx);
    add_schema_locked(idx, s);
    index_write_end(idx);
}

void index_publish_subject(reg_index_t *idx, reg_subject_t *fresh)
{
    index_write_begin(idx);
    publish_subject_locked(idx, fresh);
    index_write_end(idx);
}

static int versions_equal(const reg_subject_t *a, const reg_subject_t *b)
{
    size_t na = a ? a->n : 0, nb = b ? b->n : 0;
    if (na != nb)
        return 0;
    for (size_t i = 0; i < na; i++)
        if (a->v[i].version != b->v[i].version || a->v[i].schema_id != b->v[i].schema_id ||
            !a->v[i].deleted != !b->v[i].deleted)
            return 0;
    return 1;
}

static reg_subject_t *subject_copy_locked(const reg_index_t *idx, const char *name);

/* One write-locked step, so that the registrations of a group, all woken at
 * once, each take the lock once instead of four times (docs/performance.md). */
int index_publish_append(reg_index_t *idx, const reg_subject_t *seen, reg_schema_t *row,
                         const reg_version_t *added)
{
    index_write_begin(idx);
    int fits = versions_equal(subject_locked(idx, seen->name), seen);
    if (fits && row) {
        add_schema_locked(idx, row);
        row = NULL;
    }
    fits = fits && entry_locked(idx, reg_context_of(seen->name), added->schema_id) != NULL;
    if (fits) {
        reg_subject_t *fresh = subject_copy_locked(idx, seen->name);
        if (!fresh)
            fresh = reg_subject_new(seen->name);
        reg_subject_add_version(fresh, added->version, added->schema_id, added->deleted, added->ts_ms);
        publish_subject_locked(idx, fresh);
    }
    index_write_end(idx);
    reg_schema_release(row);
    return fits;
}

void index_publish_global(reg_index_t *idx, json_t *config, char *mode)
{
    index_write_begin(idx);
    publish_global_locked(idx, config, mode);
    index_write_end(idx);
}

/* ---- 3. Schemas ------------------------------------------------------------ */

static reg_schema_t *retained(index_entry_t *e, int carried)
{
    if (!e || (carried && e->nversions == 0))
        return NULL;
    reg_schema_retain(e->schema);
    return e->schema;
}

reg_schema_t *index_schema(reg_index_t *idx, const char *context, int id, int carried)
{
    pthread_rwlock_rdlock(&idx->lock);
    reg_schema_t *s = retained(entry_locked(idx, ctx_named(context), id), carried);
    pthread_rwlock_unlock(&idx->lock);
    return s;
}

reg_schema_t *index_schema_by_key(reg_index_t *idx, const char *context, schema_type_t type,
                                  const unsigned char key[REG_KEY_LEN])
{
    ctx_key_t k;
    key_bytes(&k, ctx_named(context), type, key);
    pthread_rwlock_rdlock(&idx->lock);
    reg_schema_t *s = retained(hmap_get(&idx->by_key, k.bytes, k.len), 1);
    pthread_rwlock_unlock(&idx->lock);
    ctx_key_clear(&k);
    return s;
}

int index_max_id(reg_index_t *idx, const char *context)
{
    pthread_rwlock_rdlock(&idx->lock);
    const int *max = hmap_gets(&idx->max_ids, context);
    int id = max ? *max : 0;
    pthread_rwlock_unlock(&idx->lock);
    return id;
}

static int cmp_cstr(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void index_contexts(reg_index_t *idx, strlist_t *out)
{
    pthread_rwlock_rdlock(&idx->lock);
    for (size_t i = 0; i < idx->max_ids.cap; i++)
        if (hmap_live(&idx->max_ids, i) && strcmp(idx->max_ids.slots[i].key, ".") != 0)
            strlist_push(out, idx->max_ids.slots[i].key);
    pthread_rwlock_unlock(&idx->lock);
    if (out->n > 1)
        qsort(out->items, out->n, sizeof *out->items, cmp_cstr);
}

typedef struct referrers {
    const char *subject;
    int version;
    int deleted;
    VEC(const reg_schema_t *) found;
} referrers_t;

/* Does a reference of a schema in context ctx name subject? Qualified as
 * Confluent resolves it (context.h), without allocating for the common case. */
static int ref_names(const char *ctx, const char *ref_subject, const char *subject)
{
    if (strcmp(ctx, ".") == 0 && strncmp(ref_subject, ":.", 2) != 0)
        return strcmp(ref_subject, subject) == 0;
    char *q = reg_ref_qualify(ctx, ref_subject);
    int same = strcmp(q, subject) == 0;
    free(q);
    return same;
}

static void collect_referrer(const index_entry_t *e, referrers_t *r)
{
    if (r->deleted ? e->nversions == 0 : e->nlive == 0)
        return;
    const reg_schema_t *s = e->schema;
    for (size_t i = 0; i < s->nrefs; i++) {
        if (s->refs[i].version == r->version && ref_names(s->context, s->refs[i].subject, r->subject)) {
            VEC_PUSH(&r->found, s);
            return;
        }
    }
}

/* Referrers sorted by (context, id), as Confluent's ContextId orders them. */
static int cmp_schema_ref(const void *a, const void *b)
{
    const reg_schema_t *x = *(const reg_schema_t *const *)a, *y = *(const reg_schema_t *const *)b;
    int c = strcmp(x->context, y->context);
    return c ? c : (x->id > y->id) - (x->id < y->id);
}

static size_t referrers_locked(reg_index_t *idx, const char *subject, int version, int deleted,
                               const reg_schema_t ***out)
{
    referrers_t r = {subject, version, deleted, {0}};
    VEC_RESERVE(&r.found, 1);
    for (size_t i = 0; i < idx->with_refs.n; i++)
        collect_referrer(idx->with_refs.items[i], &r);
    if (r.found.n > 1)
        qsort(r.found.items, r.found.n, sizeof *r.found.items, cmp_schema_ref);
    size_t n = r.found.n;
    *out = VEC_TAKE(&r.found);
    return n;
}

size_t index_referrers(reg_index_t *idx, const char *subject, int version, int deleted, int **ids)
{
    const reg_schema_t **found;
    pthread_rwlock_rdlock(&idx->lock);
    size_t n = referrers_locked(idx, subject, version, deleted, &found);
    *ids = xcalloc(n + 1, sizeof **ids);
    for (size_t i = 0; i < n; i++)
        (*ids)[i] = found[i]->id;
    pthread_rwlock_unlock(&idx->lock);
    free(found);
    return n;
}

typedef struct carrier_search {
    const reg_schema_t *schema;
    int live_only;
    const char *skip_subject;
} carrier_search_t;

static int carries(void *value, void *arg)
{
    const reg_subject_t *subj = value;
    const carrier_search_t *q = arg;
    if (strcmp(subj->name, q->skip_subject) == 0 || !reg_context_is(subj->name, q->schema->context))
        return 0;
    for (size_t j = 0; j < subj->n; j++)
        if (subj->v[j].schema_id == q->schema->id && !(q->live_only && subj->v[j].deleted))
            return 1;
    return 0;
}

int index_is_referenced(reg_index_t *idx, const char *subject, int version, int live_only,
                        const char *skip_subject)
{
    const reg_schema_t **found;
    pthread_rwlock_rdlock(&idx->lock);
    size_t n = referrers_locked(idx, subject, version, !live_only, &found);
    int any = n > 0 && !skip_subject;
    for (size_t k = 0; k < n && !any; k++) {
        carrier_search_t q = {found[k], live_only, skip_subject};
        any = map_each(&idx->subjects, carries, &q);
    }
    pthread_rwlock_unlock(&idx->lock);
    free(found);
    return any;
}

static int cmp_usage(const void *a, const void *b)
{
    const reg_usage_t *x = a, *y = b;
    int c = strcmp(x->subject, y->subject);
    return c ? c : (x->version > y->version) - (x->version < y->version);
}

typedef struct usages {
    const char *context;
    int id;
    int deleted;
    VEC(reg_usage_t) out;
} usages_t;

static int collect_usage(void *value, void *arg)
{
    const reg_subject_t *subj = value;
    usages_t *u = arg;
    if (!reg_context_is(subj->name, u->context))
        return 0;
    for (size_t j = 0; j < subj->n; j++)
        if (subj->v[j].schema_id == u->id && (!subj->v[j].deleted || u->deleted))
            VEC_PUSH(&u->out, ((reg_usage_t){xstrdup(subj->name), subj->v[j].version}));
    return 0;
}

void index_usages(reg_index_t *idx, const char *context, int id, int deleted, reg_usage_t **out, size_t *n)
{
    usages_t u = {context, id, deleted, {0}};
    VEC_RESERVE(&u.out, 1);
    pthread_rwlock_rdlock(&idx->lock);
    map_each(&idx->subjects, collect_usage, &u);
    pthread_rwlock_unlock(&idx->lock);
    if (u.out.n > 1)
        qsort(u.out.items, u.out.n, sizeof *u.out.items, cmp_usage);
    *n = u.out.n;
    *out = VEC_TAKE(&u.out);
}

/* ---- 4. Subjects ------------------------------------------------------------ */

/* The one place a view is built (lock held). */
static void view_fill(reg_view_t *out, const char *subject, const reg_version_t *v, reg_schema_t *s)
{
    reg_schema_retain(s);
    *out = (reg_view_t){xstrdup(subject), v->version, v->schema_id, v->deleted, v->ts_ms, s};
}

static index_miss_t view_locked(reg_index_t *idx, const char *subject, int version, int deleted,
                                reg_view_t *out)
{
    reg_subject_t *subj = subject_locked(idx, subject);
    if (!subject_has_versions(subj, deleted))
        return INDEX_NO_SUBJECT;
    const reg_version_t *v = reg_subject_find(subj, version);
    if (!v || (v->deleted && !deleted))
        return INDEX_NO_VERSION;
    index_entry_t *e = version_entry_locked(idx, subj, v);
    if (!e) {
        out->id = v->schema_id;
        return INDEX_NO_SCHEMA;
    }
    view_fill(out, subject, v, e->schema);
    return INDEX_FOUND;
}

index_miss_t index_view(reg_index_t *idx, const char *subject, int version, int deleted, reg_view_t *out)
{
    pthread_rwlock_rdlock(&idx->lock);
    index_miss_t miss = view_locked(idx, subject, version, deleted, out);
    pthread_rwlock_unlock(&idx->lock);
    return miss;
}

/* The newest version of subject carrying e's schema (lock held). */
static int view_of_entry_locked(reg_index_t *idx, const char *subject, const index_entry_t *e, int deleted,
                                reg_view_t *out)
{
    reg_subject_t *subj = subject_locked(idx, subject);
    for (size_t i = subj && e ? subj->n : 0; i-- > 0;) {
        const reg_version_t *v = &subj->v[i];
        if (v->schema_id == e->schema->id && (!v->deleted || deleted)) {
            view_fill(out, subject, v, e->schema);
            return 1;
        }
    }
    return 0;
}

int index_view_of_schema(reg_index_t *idx, const char *subject, int id, int deleted, reg_view_t *out)
{
    pthread_rwlock_rdlock(&idx->lock);
    int found =
        view_of_entry_locked(idx, subject, entry_locked(idx, reg_context_of(subject), id), deleted, out);
    pthread_rwlock_unlock(&idx->lock);
    return found;
}

/* The newest version of subject whose schema has (type, key) under an id
 * other than canonical's (lock held). */
static int view_of_twin_locked(reg_index_t *idx, const char *subject, const index_entry_t *canonical,
                               schema_type_t type, const unsigned char key[REG_KEY_LEN], int deleted,
                               reg_view_t *out)
{
    reg_subject_t *subj = subject_locked(idx, subject);
    for (size_t i = subj && canonical ? subj->n : 0; i-- > 0;) {
        const reg_version_t *v = &subj->v[i];
        const index_entry_t *e = v->deleted && !deleted ? NULL : version_entry_locked(idx, subj, v);
        if (e && e != canonical && e->schema->type == type && !memcmp(e->schema->key, key, REG_KEY_LEN)) {
            view_fill(out, subject, v, e->schema);
            return 1;
        }
    }
    return 0;
}

/* The canonical id first, then any other id of the same content: Confluent's
 * AbstractSchemaRegistry.lookUpSchemaUnderSubject asks its schema-hash index
 * (one id per content) before it walks the subject's versions, newest first. */
int index_view_of_key(reg_index_t *idx, const char *subject, schema_type_t type,
                      const unsigned char key[REG_KEY_LEN], int deleted, reg_view_t *out)
{
    ctx_key_t k;
    key_bytes(&k, reg_context_of(subject), type, key);
    pthread_rwlock_rdlock(&idx->lock);
    const index_entry_t *canonical = hmap_get(&idx->by_key, k.bytes, k.len);
    int found = view_of_entry_locked(idx, subject, canonical, deleted, out) ||
                view_of_twin_locked(idx, subject, canonical, type, key, deleted, out);
    pthread_rwlock_unlock(&idx->lock);
    ctx_key_clear(&k);
    return found;
}

static int cmp_view(const void *a, const void *b)
{
    const reg_view_t *x = a, *y = b;
    int c = strcmp(x->subject, y->subject);
    return c ? c : (x->version > y->version) - (x->version < y->version);
}

typedef struct views {
    reg_index_t *idx;
    const char *prefix;
    int deleted;
    int latest_only;
    VEC(reg_view_t) out;
} views_t;

static int collect_views(void *value, void *arg)
{
    const reg_subject_t *subj = value;
    views_t *q = arg;
    if (q->prefix && !reg_prefix_match(q->prefix, subj->name))
        return 0;
    for (size_t j = subj->n; j-- > 0;) {
        const reg_version_t *v = &subj->v[j];
        if (v->deleted && !q->deleted)
            continue;
        index_entry_t *e = version_entry_locked(q->idx, subj, v);
        if (e) {
            VEC_RESERVE(&q->out, q->out.n + 1);
            view_fill(&q->out.items[q->out.n++], subj->name, v, e->schema);
        }
        if (q->latest_only)
            break;
    }
    return 0;
}

void index_views(reg_index_t *idx, const char *prefix, int deleted, int latest_only, reg_view_t **out,
                 size_t *n)
{
    views_t q = {idx, prefix, deleted, latest_only, {0}};
    VEC_RESERVE(&q.out, 16);
    pthread_rwlock_rdlock(&idx->lock);
    map_each(&idx->subjects, collect_views, &q);
    pthread_rwlock_unlock(&idx->lock);
    if (q.out.n > 1)
        qsort(q.out.items, q.out.n, sizeof *q.out.items, cmp_view);
    *n = q.out.n;
    *out = VEC_TAKE(&q.out);
}

/* A copy of the subject with room for one more version, or NULL (lock held). */
static reg_subject_t *subject_copy_locked(const reg_index_t *idx, const char *name)
{
    reg_subject_t *subj = subject_locked(idx, name), *copy = NULL;
    if (subj) {
        copy = reg_subject_new(name);
        copy->v = xreallocarray(NULL, subj->n + 1, sizeof *copy->v);
        if (subj->n)
            memcpy(copy->v, subj->v, subj->n * sizeof *subj->v);
        copy->n = subj->n;
        copy->config = subj->config ? json_deep_copy(subj->config) : NULL;
        copy->mode = subj->mode ? xstrdup(subj->mode) : NULL;
    }
    return copy;
}

reg_subject_t *index_subject_copy(reg_index_t *idx, const char *name)
{
    pthread_rwlock_rdlock(&idx->lock);
    reg_subject_t *copy = subject_copy_locked(idx, name);
    pthread_rwlock_unlock(&idx->lock);
    return copy;
}

typedef struct subject_walk {
    index_subject_fn fn;
    void *arg;
} subject_walk_t;

static int walk_subject(void *value, void *arg)
{
    subject_walk_t *w = arg;
    return w->fn(value, w->arg);
}

int index_each_subject(reg_index_t *idx, index_subject_fn fn, void *arg)
{
    subject_walk_t w = {fn, arg};
    pthread_rwlock_rdlock(&idx->lock);
    int stop = map_each(&idx->subjects, walk_subject, &w);
    pthread_rwlock_unlock(&idx->lock);
    return stop;
}

/* ---- 5. Settings ------------------------------------------------------------ */

json_t *index_config(reg_index_t *idx, const char *subject)
{
    pthread_rwlock_rdlock(&idx->lock);
    const reg_subject_t *subj = subject ? subject_locked(idx, subject) : NULL;
    const json_t *config = subject ? (subj ? subj->config : NULL) : idx->global_config;
    json_t *copy = config ? json_deep_copy(config) : NULL;
    pthread_rwlock_unlock(&idx->lock);
    return copy;
}

void index_settings(reg_index_t *idx, const char *subject, reg_settings_t *own, reg_settings_t *global)
{
    pthread_rwlock_rdlock(&idx->lock);
    const reg_subject_t *subj = subject ? subject_locked(idx, subject) : NULL;
    reg_settings_read(subj ? subj->config : NULL, own);
    reg_settings_read(idx->global_config, global);
    pthread_rwlock_unlock(&idx->lock);
}

reg_mode_t index_mode(reg_index_t *idx, const char *subject)
{
    reg_mode_t mode = MODE_UNSET;
    pthread_rwlock_rdlock(&idx->lock);
    const reg_subject_t *subj = subject ? subject_locked(idx, subject) : NULL;
    const char *text = subject ? (subj ? subj->mode : NULL) : idx->global_mode;
    /* Stored names are canonical; anything else reads as READWRITE, as before. */
    if (text && reg_mode_parse(text, &mode) != 0)
        mode = MODE_READWRITE;
    pthread_rwlock_unlock(&idx->lock);
    return mode;
}

/* ---- 6. Prepared bodies ---------------------------------------------------- */

/*
 * By-id bodies live on the schema's entry, in slot variant * 2 + deleted;
 * version bodies on a shelf per published subject, variant after variant for
 * each version in subj->v order, dropped with the subject when it is
 * replaced. The shelves of versions exist from publication on (one calloc per
 * subject), so a reader never inserts into a map under the read lock.
 */
#define BY_ID_SLOTS (REG_BODY_VARIANTS * 2)

/* The shelf of subj's version bodies (lock held; NULL for an unpublished subject). */
static reg_shelf_t *subject_shelf_locked(const reg_index_t *idx, const reg_subject_t *subj)
{
    const index_beside_t *b = hmap_get(&idx->shelves, &subj, sizeof subj);
    return b ? b->bodies : NULL;
}

static int variant_ok(int variant)
{
    return variant >= 0 && variant < REG_BODY_VARIANTS;
}

reg_body_t *index_schema_body(reg_index_t *idx, const char *context, int id, int variant, int *known,
                              int *deleted)
{
    reg_body_t *b = NULL;
    pthread_rwlock_rdlock(&idx->lock);
    const index_entry_t *e = entry_locked(idx, ctx_named(context), id);
    *known = e && e->nversions > 0;
    *deleted = e && e->nlive == 0;
    if (*known && variant_ok(variant))
        b = reg_shelf_get(__atomic_load_n(&e->bodies, __ATOMIC_ACQUIRE), (size_t)(variant * 2 + *deleted));
    pthread_rwlock_unlock(&idx->lock);
    return b;
}

reg_body_t *index_schema_body_put(reg_index_t *idx, const char *context, int id, int variant, int deleted,
                                  reg_body_t *b)
{
    pthread_rwlock_rdlock(&idx->lock);
    index_entry_t *e = entry_locked(idx, ctx_named(context), id);
    if (e && variant_ok(variant))
        b = reg_shelf_put(reg_shelf_at(&e->bodies, BY_ID_SLOTS, &idx->body_bytes),
                          (size_t)(variant * 2 + !!deleted), b);
    pthread_rwlock_unlock(&idx->lock);
    return b;
}

index_miss_t index_version_body(reg_index_t *idx, const char *subject, int version, int deleted, int variant,
                                reg_body_t **body, reg_view_t *out)
{
    *body = NULL;
    pthread_rwlock_rdlock(&idx->lock);
    /* The prepared body first: the hot path copies nothing but a reference. */
    const reg_subject_t *subj = subject_locked(idx, subject);
    const reg_version_t *v = subject_has_versions(subj, deleted) ? reg_subject_find(subj, version) : NULL;
    if (v && (!v->deleted || deleted) && variant_ok(variant)) {
        size_t slot = (size_t)(v - subj->v) * REG_BODY_VARIANTS + (size_t)variant;
        *body = reg_shelf_get(subject_shelf_locked(idx, subj), slot);
    }
    index_miss_t miss = *body ? INDEX_FOUND : view_locked(idx, subject, version, deleted, out);
    pthread_rwlock_unlock(&idx->lock);
    return miss;
}

reg_body_t *index_version_body_put(reg_index_t *idx, const reg_view_t *view, int variant, reg_body_t *b)
{
    pthread_rwlock_rdlock(&idx->lock);
    const reg_subject_t *subj = subject_locked(idx, view->subject);
    const reg_version_t *v = subj ? reg_subject_find(subj, view->version) : NULL;
    /* Only onto the version the body was rendered from: the subject may have
     * been republished (a delete, a new version) since the view was taken. */
    reg_shelf_t *shelf = v ? subject_shelf_locked(idx, subj) : NULL;
    if (shelf && variant_ok(variant) && v->schema_id == view->id && v->deleted == view->deleted &&
        v->ts_ms == view->ts_ms)
        b = reg_shelf_put(shelf, (size_t)(v - subj->v) * REG_BODY_VARIANTS + (size_t)variant, b);
    pthread_rwlock_unlock(&idx->lock);
    return b;
}

/* ---- 7. Counting --------------------------------------------------------------- */

/*
 * index_stats' figures are kept as the index changes, under the write lock
 * (the bodies', put under the read lock, by their shelves, atomically), so a
 * scrape reads them in O(1). Walking every entry and subject for them took
 * 62 ms at 68,000 subjects, on an event loop and under the read lock the
 * writers wait for (docs/performance.md). index_stats_walk counts the same
 * figures by that walk, for the tests to hold the kept ones against.
 */

static uint64_t schema_bytes(const reg_schema_t *s)
{
    uint64_t bytes = sizeof *s + s->text_len + 1 + strlen(s->context) + 1 + s->nrefs * sizeof *s->refs;
    for (size_t i = 0; i < s->nrefs; i++)
        bytes += strlen(s->refs[i].name) + 1 + strlen(s->refs[i].subject) + 1;
    return bytes;
}

/* An entry and its row, without the bodies (counted by their shelf). */
static uint64_t entry_bytes(const index_entry_t *e)
{
    return sizeof *e + schema_bytes(e->schema);
}

/* A published subject and what the index keeps beside it, without the bodies. */
static uint64_t subject_bytes(const reg_subject_t *subj)
{
    return sizeof *subj + strlen(subj->name) + 1 + subj->n * sizeof *subj->v +
           (subj->mode ? strlen(subj->mode) + 1 : 0) + sizeof(index_beside_t) + (subj->n ? subj->n : 1);
}

/* The type of subj's latest live version, or -1 (none, or its row unknown). */
static int subject_type_locked(const reg_index_t *idx, const reg_subject_t *subj)
{
    const reg_version_t *latest = reg_subject_latest(subj);
    const index_entry_t *e = latest ? version_entry_locked(idx, subj, latest) : NULL;
    return e && (unsigned)e->schema->type < SCHEMA_TYPE_COUNT ? (int)e->schema->type : -1;
}

/* What a published subject adds to the counts (sign +1) or takes off (-1).
 * type is the one it was counted under: read again when it leaves, the type
 * could differ (its latest row published only after it). */
static void count_subject_locked(reg_index_t *idx, const reg_subject_t *subj, int type, int sign)
{
    index_stats_t *c = &idx->counts;
    uint64_t live = (uint64_t)reg_subject_live_count(subj), all = subj->n, bytes = subject_bytes(subj);
    c->versions_live += sign > 0 ? live : -live;
    c->versions_deleted += sign > 0 ? all - live : live - all;
    c->bytes += sign > 0 ? bytes : -bytes;
    if (type >= 0)
        c->subjects[type] += sign > 0 ? 1 : (uint64_t)-1;
}

/* subj (in idx->subjects now) is counted, and gets its shelf of version bodies. */
static void subject_enter_locked(reg_index_t *idx, reg_subject_t *subj)
{
    index_beside_t *b = xmalloc(sizeof *b);
    b->counted = xcalloc(subj->n ? subj->n : 1, 1);
    count_versions(idx, subj, +1, b->counted);
    b->bodies = reg_shelf_new(subj->n * REG_BODY_VARIANTS, &idx->body_bytes);
    b->type = subject_type_locked(idx, subj);
    hmap_put(&idx->shelves, &subj, sizeof subj, b);
    count_subject_locked(idx, subj, b->type, +1);
}

/* subj is about to leave idx->subjects: what subject_enter_locked counted goes. */
static void subject_leave_locked(reg_index_t *idx, reg_subject_t *subj)
{
    index_beside_t *b = hmap_del(&idx->shelves, &subj, sizeof subj);
    count_subject_locked(idx, subj, b ? b->type : -1, -1);
    if (b) {
        count_versions(idx, subj, -1, b->counted);
        beside_free(b, NULL);
    }
}

/* The maps' slots and keys, the maximum ids' ints, the list of rows with
 * references and the index itself. */
static uint64_t frame_bytes_locked(const reg_index_t *idx)
{
    return sizeof *idx + hmap_bytes(&idx->by_id) + hmap_bytes(&idx->by_key) + hmap_bytes(&idx->subjects) +
           hmap_bytes(&idx->max_ids) + hmap_bytes(&idx->shelves) + idx->max_ids.used * sizeof(int) +
           idx->with_refs.cap * sizeof *idx->with_refs.items;
}

void index_stats(reg_index_t *idx, index_stats_t *out)
{
    pthread_rwlock_rdlock(&idx->lock);
    *out = idx->counts;
    out->bytes += frame_bytes_locked(idx) + __atomic_load_n(&idx->body_bytes, __ATOMIC_RELAXED);
    pthread_rwlock_unlock(&idx->lock);
}

static int walk_entry(void *value, void *arg)
{
    const index_entry_t *e = value;
    index_stats_t *st = arg;
    if (e->nversions > 0 && (unsigned)e->schema->type < SCHEMA_TYPE_COUNT)
        st->schemas[e->schema->type]++;
    st->bytes += entry_bytes(e) + reg_shelf_bytes(e->bodies);
    return 0;
}

typedef struct walk_subjects {
    const reg_index_t *idx;
    index_stats_t *st;
} walk_subjects_t;

static int walk_subject_counts(void *value, void *arg)
{
    const reg_subject_t *subj = value;
    walk_subjects_t *w = arg;
    index_stats_t *st = w->st;
    uint64_t live = (uint64_t)reg_subject_live_count(subj);
    st->versions_live += live;
    st->versions_deleted += subj->n - live;
    int type = subject_type_locked(w->idx, subj);
    if (type >= 0)
        st->subjects[type]++;
    st->bytes += subject_bytes(subj) + reg_shelf_bytes(subject_shelf_locked(w->idx, subj));
    return 0;
}

void index_stats_walk(reg_index_t *idx, index_stats_t *out)
{
    memset(out, 0, sizeof *out);
    walk_subjects_t w = {idx, out};
    pthread_rwlock_rdlock(&idx->lock);
    map_each(&idx->by_id, walk_entry, out);
    map_each(&idx->subjects, walk_subject_counts, &w);
    out->bytes += frame_bytes_locked(idx);
    pthread_rwlock_unlock(&idx->lock);
}
