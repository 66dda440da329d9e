/*
 * write: registration (docs/architecture.md, "The write path"), lookup and the compatibility
 * test endpoints. They share one step: turning a request into a candidate
 * (parsed model, canonical text, identity key).
 */
#include <assert.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "registry/context.h"
#include "registry/internal.h"

/* ---- Candidates ---------------------------------------------------------- */

typedef struct candidate {
    schema_type_t type;
    schema_t *parsed;
    reg_resolved_t res;
    json_t *metadata;                       /* canonical (registry/metadata.c), NULL = none */
    unsigned char key[REG_KEY_LEN];         /* the identity key: text, references, metadata */
    unsigned char content_key[REG_KEY_LEN]; /* the same without metadata: what the request cache keeps */
    char *context; /* the subject's: ids and references are the context's (registry/context.h) */
    /* The last compatibility check a registration ran on it (check_compatible):
     * counted once, with its outcome, when the registration ends (registry_stats). */
    int checked;
    compat_level_t checked_level;
    int checked_ok; /* 1, 0, -1 as compat_with_previous */
} candidate_t;

static void candidate_clear(candidate_t *c)
{
    schema_free(c->parsed);
    reg_resolved_clear(&c->res);
    json_decref(c->metadata);
    free(c->context);
    memset(c, 0, sizeof *c);
}

/* The two digests, each fetched from OpenSSL's providers once: given the
 * legacy EVP_md5() or EVP_sha256(), OpenSSL 3 fetches the implementation
 * again in every EVP_DigestInit_ex, a lookup that cost more than hashing a
 * registration's text (docs/performance.md). NULL (a provider without one):
 * the legacy object, fetched per use as before. */
static const EVP_MD *digest_md5, *digest_sha256;
static pthread_once_t digests_once = PTHREAD_ONCE_INIT;

static void digests_fetch(void)
{
    digest_md5 = EVP_MD_fetch(NULL, "MD5", NULL);
    digest_sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
}

static const EVP_MD *digest_of(const EVP_MD **fetched, const EVP_MD *legacy)
{
    pthread_once(&digests_once, digests_fetch);
    return *fetched ? *fetched : legacy;
}

static void digest_add_be32(EVP_MD_CTX *ctx, int v)
{
    unsigned char b[4] = {(unsigned char)((unsigned)v >> 24), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 8), (unsigned char)v};
    EVP_DigestUpdate(ctx, b, 4);
}

static void digest_update(void *ctx, const void *p, size_t n)
{
    EVP_DigestUpdate(ctx, p, n);
}

/* Confluent's identity key (MD5.ofSchema, Schema.updateHash): MD5 over the
 * canonical text, then each reference's name, subject and version (4 bytes,
 * big-endian), then, when there is metadata, a 1 byte and the metadata's
 * strings (Metadata.updateHash). No rule set is ever stored, so none is hashed. */
static void identity_key(const char *canonical, size_t len, const reg_ref_t *refs, size_t n,
                         const json_t *metadata, unsigned char out[REG_KEY_LEN])
{
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    EVP_DigestInit_ex(ctx, digest_of(&digest_md5, EVP_md5()), NULL);
    EVP_DigestUpdate(ctx, canonical, len);
    for (size_t i = 0; i < n; i++) {
        EVP_DigestUpdate(ctx, refs[i].name, strlen(refs[i].name));
        EVP_DigestUpdate(ctx, refs[i].subject, strlen(refs[i].subject));
        digest_add_be32(ctx, refs[i].version);
    }
    if (metadata) {
        unsigned char present = 1;
        EVP_DigestUpdate(ctx, &present, 1);
        md_digest(metadata, digest_update, ctx);
    }
    unsigned int olen = 0;
    EVP_DigestFinal_ex(ctx, out, &olen);
    EVP_MD_CTX_free(ctx);
}

/* The schema text's length: it may hold NUL bytes (reg_request_t.schema_len). */
static size_t request_schema_len(const reg_request_t *req)
{
    return req->schema_len ? req->schema_len : req->schema ? strlen(req->schema) : 0;
}

static int request_is_empty(const reg_request_t *req)
{
    return request_schema_len(req) == 0;
}

/* Java's String.trim().isEmpty(): nothing but characters up to U+0020. */
static int request_is_blank(const reg_request_t *req)
{
    const unsigned char *p = (const unsigned char *)req->schema;
    for (size_t i = 0, n = request_schema_len(req); i < n; i++)
        if (p[i] > ' ')
            return 0;
    return 1;
}

static reg_code_t parse_type(const reg_request_t *req, schema_type_t *type, reg_error_t *err)
{
    if (schema_type_parse(req->schema_type, type) != 0)
        return reg_fail(err, REG_INVALID_SCHEMA, "Invalid schema type %s", req->schema_type);
    return REG_OK;
}

static int cmp_ref(const void *a, const void *b)
{
    const reg_ref_t *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (!c)
        c = strcmp(x->subject, y->subject);
    return c ? c : (x->version > y->version) - (x->version < y->version);
}

/* normalize: the reference list sorted and de-duplicated (docs/compatibility.md). */
static reg_ref_t *normalized_refs(const reg_request_t *req, size_t *n)
{
    reg_ref_t *refs = xcalloc(req->nrefs + 1, sizeof *refs);
    if (req->nrefs)
        memcpy(refs, req->refs, req->nrefs * sizeof *refs);
    if (req->nrefs > 1)
        qsort(refs, req->nrefs, sizeof *refs, cmp_ref);
    *n = 0;
    for (size_t i = 0; i < req->nrefs; i++)
        if (*n == 0 || cmp_ref(&refs[*n - 1], &refs[i]) != 0)
            refs[(*n)++] = refs[i];
    return refs;
}

/* Gives the candidate this metadata (taken; NULL = none) and the identity key that goes with it. */
static void candidate_set_metadata(candidate_t *c, json_t *metadata)
{
    json_decref(c->metadata);
    c->metadata = metadata;
    if (!metadata) {
        memcpy(c->key, c->content_key, REG_KEY_LEN);
        return;
    }
    identity_key(schema_canonical(c->parsed), schema_canonical_len(c->parsed), c->res.direct, c->res.ndirect,
                 metadata, c->key);
}

reg_code_t registry_parse_request(registry_t *reg, const char *context, const reg_request_t *req, int flags,
                                  int allow_deleted, reg_resolved_t *res, schema_t **out, reg_error_t *err)
{
    schema_type_t type;
    *out = NULL;
    memset(res, 0, sizeof *res);
    reg_code_t rc = parse_type(req, &type, err);
    if (rc != REG_OK)
        return rc;
    if (request_is_empty(req))
        return reg_fail(err, REG_INVALID_SCHEMA, "Empty schema");
    size_t nrefs = req->nrefs;
    reg_ref_t *sorted = flags & SCHEMA_PARSE_NORMALIZE ? normalized_refs(req, &nrefs) : NULL;
    rc = registry_resolve(reg, context, sorted ? sorted : req->refs, nrefs, allow_deleted, res, err);
    free(sorted);
    if (rc != REG_OK)
        return rc;
    char *error = NULL;
    *out = schema_parse(type, req->schema, request_schema_len(req), res->refs, res->n, flags, &error);
    if (!*out) {
        reg_fail(err, REG_INVALID_SCHEMA, "Invalid schema of type %s, details: %s", schema_type_name(type),
                 error ? error : "unparseable");
        free(error);
        return REG_INVALID_SCHEMA;
    }
    return REG_OK;
}

/* Parses the request. allow_deleted: soft-deleted reference targets count (lookups). */
static reg_code_t candidate_parse(registry_t *reg, const char *subject, const reg_request_t *req, int flags,
                                  int allow_deleted, candidate_t *c, reg_error_t *err)
{
    memset(c, 0, sizeof *c);
    c->context = reg_context_copy(subject);
    reg_code_t rc =
        registry_parse_request(reg, c->context, req, flags, allow_deleted, &c->res, &c->parsed, err);
    if (rc != REG_OK)
        return rc;
    c->type = schema_get_type(c->parsed);
    identity_key(schema_canonical(c->parsed), schema_canonical_len(c->parsed), c->res.direct, c->res.ndirect,
                 NULL, c->content_key);
    memcpy(c->key, c->content_key, REG_KEY_LEN);
    if (req->metadata)
        candidate_set_metadata(c, json_deep_copy(req->metadata));
    return REG_OK;
}

/*
 * A registration's lookup parse (lookup flags, soft-deleted reference targets
 * allowed), strict when it can be (*strict = 1): then the registration reuses
 * it as its own parse "as new" instead of parsing the text again (a third of
 * the registry's instructions for a new registration, docs/performance.md).
 * Without references the two parses differ only in SCHEMA_PARSE_NEW, whose
 * rules only refuse (strict Avro names and validated defaults, resolved
 * Protobuf types and allowed field numbers): a text that passes them parses
 * to the same model either way. A text they refuse is parsed again as the
 * lookup always parsed it, so what a lookup finds and every error stay as
 * they were.
 */
static reg_code_t lookup_parse(registry_t *reg, const char *subject, const reg_request_t *req, int flags,
                               candidate_t *c, int *strict, reg_error_t *err)
{
    *strict = 0;
    if (req->nrefs == 0) {
        if (candidate_parse(reg, subject, req, flags | SCHEMA_PARSE_NEW, 1, c, err) == REG_OK) {
            *strict = 1;
            return REG_OK;
        }
        candidate_clear(c);
    }
    return candidate_parse(reg, subject, req, flags, 1, c, err);
}

/* The row a candidate is stored as (id 0 = not known yet). */
static reg_schema_t *candidate_row(const candidate_t *c, int id)
{
    reg_schema_t *row = reg_schema_new(id, c->type, schema_canonical(c->parsed), c->key, 0);
    reg_schema_set_context(row, c->context);
    for (size_t i = 0; i < c->res.ndirect; i++)
        reg_schema_add_ref(row, c->res.direct[i].name, c->res.direct[i].subject, c->res.direct[i].version);
    if (c->metadata)
        reg_schema_set_metadata(row, json_deep_copy(c->metadata));
    return row;
}

/* ---- The request cache ------------------------------------------------------ */

/* Fingerprint of what determines the identity key; 0 when the request is not
 * cacheable ("version": -1 references move with the subject). */
static int request_fingerprint(const reg_request_t *req, int normalize, unsigned char out[32])
{
    for (size_t i = 0; i < req->nrefs; i++)
        if (req->refs[i].version < 0 || !req->refs[i].name || !req->refs[i].subject)
            return 0;
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    EVP_DigestInit_ex(ctx, digest_of(&digest_sha256, EVP_sha256()), NULL);
    const char *type = req->schema_type ? req->schema_type : "AVRO";
    EVP_DigestUpdate(ctx, type, strlen(type) + 1);
    digest_add_be32(ctx, normalize);
    digest_add_be32(ctx, (int)request_schema_len(req));
    EVP_DigestUpdate(ctx, req->schema, request_schema_len(req));
    for (size_t i = 0; i < req->nrefs; i++) {
        EVP_DigestUpdate(ctx, req->refs[i].name, strlen(req->refs[i].name) + 1);
        EVP_DigestUpdate(ctx, req->refs[i].subject, strlen(req->refs[i].subject) + 1);
        digest_add_be32(ctx, req->refs[i].version);
    }
    unsigned int olen = 0;
    EVP_DigestFinal_ex(ctx, out, &olen);
    EVP_MD_CTX_free(ctx);
    return 1;
}

/* Bounded: a client sending endless distinct texts cannot grow memory forever. */
#define REQUEST_CACHE_MAX 100000

static void request_cache_put(registry_t *reg, const reg_request_t *req, int normalize,
                              const unsigned char key[REG_KEY_LEN])
{
    unsigned char fp[32];
    if (!request_fingerprint(req, normalize, fp))
        return;
    pthread_mutex_lock(&reg->cache_lock);
    if (!reg->request_keys)
        reg->request_keys = xcalloc(REQUEST_CACHE_MAX, sizeof *reg->request_keys);
    unsigned char *slot = hmap_get(&reg->request_cache, fp, sizeof fp);
    if (!slot) {
        if (reg->request_nkeys == REQUEST_CACHE_MAX) {
            hmap_clear(&reg->request_cache);
            reg->request_nkeys = 0;
        }
        slot = reg->request_keys[reg->request_nkeys++];
        hmap_put(&reg->request_cache, fp, sizeof fp, slot);
    }
    memcpy(slot, key, REG_KEY_LEN);
    pthread_mutex_unlock(&reg->cache_lock);
}

static int request_cache_get(registry_t *reg, const reg_request_t *req, int normalize,
                             unsigned char key[REG_KEY_LEN])
{
    unsigned char fp[32];
    if (request_is_empty(req) || !request_fingerprint(req, normalize, fp))
        return 0;
    pthread_mutex_lock(&reg->cache_lock);
    const unsigned char *hit = hmap_get(&reg->request_cache, fp, sizeof fp);
    if (hit)
        memcpy(key, hit, REG_KEY_LEN);
    pthread_mutex_unlock(&reg->cache_lock);
    return hit != NULL;
}

/* ---- Matching a candidate against a subject ------------------------------ */

/* The newest version of subject whose schema has (type, key); live only unless deleted. */
static reg_code_t find_by_key(registry_t *reg, const char *subject, schema_type_t type,
                              const unsigned char key[REG_KEY_LEN], int deleted, reg_view_t *out)
{
    return index_view_of_key(reg->idx, subject, type, key, deleted, out) ? REG_OK : REG_SCHEMA_NOT_FOUND;
}

static int effective_normalize(registry_t *reg, const char *subject, const reg_request_t *req)
{
    return req->normalize || registry_effective_settings(reg, subject).normalize;
}

/*
 * SCHEMA_PARSE_VALIDATE_FIELDS when the subject's validateFields is on and it
 * is not importing: Confluent validates every registration, lookup and
 * compatibility test this way (AbstractSchemaRegistry.maybeValidateAndNormalizeSchema),
 * except in IMPORT mode, which stores what it is given.
 */
static int validate_flag(registry_t *reg, const char *subject)
{
    return registry_effective_settings(reg, subject).validate_fields &&
                   registry_effective_mode(reg, subject) != MODE_IMPORT
               ? SCHEMA_PARSE_VALIDATE_FIELDS
               : 0;
}

static int request_matches_existing(const reg_request_t *req, const reg_view_t *v)
{
    return (req->id < 0 || req->id == v->id) && (req->version <= 0 || req->version == v->version);
}

/* The live version of subject that already answers a registration: the
 * content's (lookup semantics), or with an explicit id (IMPORT) the newest
 * version carrying that id with this content -- one content may have
 * several ids, and KafkaSchemaRegistry.register matches the id among the
 * live versions too. 0 (and *out cleared) when there is none. */
static int find_registered(registry_t *reg, const char *subject, const reg_request_t *req, schema_type_t type,
                           const unsigned char key[REG_KEY_LEN], reg_view_t *out)
{
    if (find_by_key(reg, subject, type, key, 0, out) == REG_OK && request_matches_existing(req, out))
        return 1;
    reg_view_clear(out);
    if (req->id >= 0 && index_view_of_schema(reg->idx, subject, req->id, 0, out) &&
        out->schema->type == type && memcmp(out->schema->key, key, REG_KEY_LEN) == 0 &&
        request_matches_existing(req, out))
        return 1;
    reg_view_clear(out);
    return 0;
}

/* ---- Registration --------------------------------------------------------- */

/* A copy of the subject's versions (or an empty one), so the check runs without the lock. */
static reg_subject_t *subject_snapshot(registry_t *reg, const char *subject)
{
    reg_subject_t *copy = index_subject_copy(reg->idx, subject);
    return copy ? copy : reg_subject_new(subject);
}

static reg_code_t check_mode_for_register(registry_t *reg, const char *subject, const reg_request_t *req,
                                          int *import, reg_error_t *err)
{
    reg_mode_t mode = registry_effective_mode(reg, subject);
    *import = mode == MODE_IMPORT;
    if (reg_mode_is_readonly(mode))
        return reg_mode_readonly_error(err, subject);
    if (req->id >= 0 && !*import)
        return reg_fail(err, REG_OPERATION_NOT_PERMITTED, "Subject %s in context . is not in import mode",
                        subject);
    if (req->id < 0 && *import)
        return reg_fail(err, REG_OPERATION_NOT_PERMITTED, "Subject %s in context . is not in read-write mode",
                        subject);
    return REG_OK;
}

/* KafkaSchemaRegistry.register: a schema reference and a STRONG (topic-owned)
 * association exclude each other, so no reference may name a subject a STRONG
 * association holds, in any mode (42205, with the reference's subject as
 * written). A reference is read in the registering subject's context. The
 * other half, a STRONG association on a referenced subject, is 42206 in
 * registry/associations.c. Checked inside the registration's transaction,
 * under the shared reference-target lock of every subject named
 * (reference_targets): a STRONG create takes it exclusive before its 42206
 * check, so of the two racing, the later sees the earlier's commit. */
static reg_code_t check_strong_references(store_t *db, const char *subject, const reg_request_t *req,
                                          reg_error_t *err)
{
    reg_code_t rc = REG_OK;
    char *ctx = req->nrefs ? reg_context_copy(subject) : NULL;
    for (size_t i = 0; rc == REG_OK && i < req->nrefs; i++) {
        char *target = reg_ref_qualify(ctx, req->refs[i].subject);
        json_t *strong = NULL;
        store_assoc_query_t q = {.subject = target, .lifecycle = "STRONG"};
        rc = reg_store(err, db, store_assoc_list(db, &q, &strong));
        if (rc == REG_OK && json_array_size(strong) > 0)
            rc = reg_fail(err, REG_OPERATION_NOT_PERMITTED,
                          "Subject '%s' has a strong association and cannot be referenced",
                          req->refs[i].subject);
        json_decref(strong);
        free(target);
    }
    free(ctx);
    return rc;
}

/* The qualified subjects the request's references name, into out. */
static void reference_targets(const char *subject, const reg_request_t *req, strlist_t *out)
{
    char *ctx = req->nrefs ? reg_context_copy(subject) : NULL;
    for (size_t i = 0; i < req->nrefs; i++)
        strlist_push_owned(out, reg_ref_qualify(ctx, req->refs[i].subject));
    free(ctx);
}

/* The schema record for an id of the subject's context, loading it from the
 * database when this node lacks it. */
static reg_schema_t *schema_for_id(registry_t *reg, store_t *db, const char *subject, int id,
                                   reg_error_t *err)
{
    char *ctx = reg_context_copy(subject);
    reg_schema_t *s = index_schema(reg->idx, ctx, id, 0);
    if (!s) {
        store_rc_t rc = store_load_schema(db, ctx, id, &s);
        if (rc == STORE_NOT_FOUND)
            reg_fail(err, REG_STORE_ERROR, "Error while loading schema %d: no such row", id);
        else if (rc != STORE_OK)
            reg_store(err, db, rc);
        if (rc == STORE_OK) {
            /* Another thread may have published the row meanwhile: keep the index's. */
            index_publish_schema(reg->idx, s);
            s = index_schema(reg->idx, ctx, id, 0);
        }
    }
    free(ctx);
    return s;
}

/* Live versions of subj as the compatibility history; schemas retained in *held. */
static reg_code_t build_history(registry_t *reg, store_t *db, const reg_subject_t *subj, int only_version,
                                compat_previous_t **history, size_t *n, reg_schema_t ***held,
                                reg_error_t *err)
{
    *history = xcalloc(subj->n + 1, sizeof **history);
    *held = xcalloc(subj->n + 1, sizeof **held);
    *n = 0;
    for (size_t i = 0; i < subj->n; i++) {
        const reg_version_t *v = &subj->v[i];
        if (v->deleted || (only_version > 0 && v->version != only_version))
            continue;
        reg_schema_t *s = schema_for_id(reg, db, subj->name, v->schema_id, err);
        if (!s)
            return err->code;
        (*held)[*n] = s;
        const schema_t *parsed = registry_parsed(reg, s, err);
        if (!parsed) {
            (*n)++;
            return err->code;
        }
        (*history)[(*n)++] = (compat_previous_t){parsed, v->version};
    }
    return REG_OK;
}

/*
 * The audit details of c as the next version of subj (reg_changes_details),
 * against its latest live version. That version's model is the one the
 * compatibility check just used, cached on its record (registry_parsed): the
 * registration parses nothing more for it.
 */
static json_t *register_details(registry_t *reg, store_t *db, const reg_subject_t *subj, const candidate_t *c)
{
    const reg_version_t *prev = reg_subject_latest(subj);
    if (!prev)
        return NULL;
    reg_error_t err;
    reg_schema_t *s = schema_for_id(reg, db, subj->name, prev->schema_id, &err);
    json_t *details = reg_changes_details(s ? registry_parsed(reg, s, &err) : NULL, c->parsed);
    reg_schema_release(s);
    return details;
}

static void history_free(compat_previous_t *history, reg_schema_t **held, size_t n)
{
    for (size_t i = 0; i < n; i++)
        reg_schema_release(held[i]);
    free(held);
    free(history);
}

/* "[m1, m2]" as Java's List.toString renders it. */
static void join_messages(const strlist_t *m, char *out, size_t cap)
{
    size_t w = (size_t)snprintf(out, cap, "[");
    for (size_t i = 0; i < m->n && w < cap; i++)
        w += (size_t)snprintf(out + w, cap - w, "%s%s", i ? ", " : "", m->items[i]);
    if (w < cap)
        snprintf(out + w, cap - w, "]");
}

static int cmp_strp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * compatibilityGroup: with the config naming a metadata property, only the
 * versions whose value of it equals the candidate's (absent equal to absent)
 * are checked (AbstractSchemaRegistry.isCompatibleWithPrevious). Drops the
 * others from history and held, in order.
 */
static void filter_compatibility_group(registry_t *reg, const char *subject, const json_t *metadata,
                                       compat_previous_t *history, reg_schema_t **held, size_t *n)
{
    json_t *config = registry_effective_config(reg, subject);
    const char *group = json_string_value(json_object_get(config, "compatibilityGroup"));
    if (group) {
        const char *want = md_property(metadata, group);
        size_t kept = 0;
        for (size_t i = 0; i < *n; i++) {
            const char *have = md_property(held[i]->metadata, group);
            if ((!want && !have) || (want && have && strcmp(want, have) == 0)) {
                history[kept] = history[i];
                held[kept++] = held[i];
            } else {
                reg_schema_release(held[i]);
            }
        }
        *n = kept;
    }
    json_decref(config);
}

/* The confluent:reserved property as a set (ParsedSchema.getReservedFields:
 * split at commas, trimmed, empty names dropped), sorted. */
static void reserved_fields(const json_t *metadata, strlist_t *out)
{
    const char *p = md_property(metadata, "confluent:reserved");
    while (p && *p) {
        const char *comma = strchr(p, ',');
        const char *end = comma ? comma : p + strlen(p);
        const char *b = p;
        while (b < end && (unsigned char)*b <= ' ')
            b++;
        const char *e = end;
        while (e > b && (unsigned char)e[-1] <= ' ')
            e--;
        if (e > b)
            strlist_pushf(out, "%.*s", (int)(e - b), b);
        p = comma ? comma + 1 : end;
    }
    if (out->n > 1)
        qsort(out->items, out->n, sizeof *out->items, cmp_strp);
}

static int strlist_has(const strlist_t *l, const char *s)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->items[i], s) == 0)
            return 1;
    return 0;
}

/* validateReservedFields: reserved fields the previous version (latest; NULL: none) has and the
 * candidate dropped, then the candidate's fields that are reserved (names in sorted order). */
static void reserved_field_messages(const candidate_t *c, const reg_schema_t *previous, strlist_t *out)
{
    strlist_t now = {0}, before = {0};
    reserved_fields(c->metadata, &now);
    if (previous)
        reserved_fields(previous->metadata, &before);
    for (size_t i = 0; i < before.n; i++)
        if (!strlist_has(&now, before.items[i]) &&
            (i == 0 || strcmp(before.items[i - 1], before.items[i]) != 0))
            strlist_pushf(
                out,
                "The new schema has reserved field %s removed from its metadata which is present in "
                "the old schema's metadata.",
                before.items[i]);
    for (size_t i = 0; i < now.n; i++)
        if ((i == 0 || strcmp(now.items[i - 1], now.items[i]) != 0) &&
            schema_has_top_level_field(c->parsed, now.items[i]))
            strlist_pushf(out, "The new schema has field that conflicts with the reserved field %s.",
                          now.items[i]);
    strlist_clear(&now);
    strlist_clear(&before);
}

/* The effective compatibilityPolicy (CompatibilityPolicy.forName has stored it in capitals). */
static compat_policy_t effective_policy(registry_t *reg, const char *subject)
{
    json_t *config = registry_effective_config(reg, subject);
    const char *policy = json_string_value(json_object_get(config, "compatibilityPolicy"));
    compat_policy_t p = !policy                          ? COMPAT_POLICY_STRICT
                        : strcmp(policy, "LENIENT") == 0 ? COMPAT_POLICY_LENIENT
                        : strcmp(policy, "LOGICAL") == 0 ? COMPAT_POLICY_LOGICAL
                                                         : COMPAT_POLICY_STRICT;
    json_decref(config);
    return p;
}

/*
 * AbstractSchemaRegistry.isCompatibleWithPrevious over history (held: its
 * schemas, oldest first): under validateFields the reserved-field messages,
 * against the newest version; then the level's check, under the config's
 * compatibilityPolicy, against the versions of the candidate's
 * compatibilityGroup; then, when anything failed, the summary line. 1
 * compatible, 0 not (messages filled), -1 out of memory.
 */
static int compat_with_previous(registry_t *reg, const char *subject, const candidate_t *c,
                                compat_previous_t *history, reg_schema_t **held, size_t *n,
                                strlist_t *messages)
{
    reg_effective_t settings = registry_effective_settings(reg, subject);
    if (settings.validate_fields)
        reserved_field_messages(c, *n ? held[*n - 1] : NULL, messages);
    size_t reserved = messages->n;
    filter_compatibility_group(reg, subject, c->metadata, history, held, n);
    compat_policy_t p = effective_policy(reg, subject);
    int ok =
        compat_check_policy(settings.level, p, c->parsed, history, *n, settings.validate_fields, messages);
    if (ok == 1 && reserved > 0) {
        ok =
            strlist_pushf(messages, "{validateFields: '%s', compatibility: '%s'}",
                          settings.validate_fields ? "true" : "false", compat_level_name(settings.level)) == 0
                ? 0
                : -1;
    }
    return ok;
}

static reg_code_t check_compatible(registry_t *reg, store_t *db, const char *subject,
                                   const reg_subject_t *fresh, candidate_t *c, reg_error_t *err)
{
    reg_effective_t settings = registry_effective_settings(reg, subject);
    /* LOGICAL checks the candidate's validity even at NONE (LogicalPolicyChecker). */
    if (settings.level == COMPAT_NONE && !settings.validate_fields &&
        effective_policy(reg, subject) != COMPAT_POLICY_LOGICAL)
        return REG_OK;
    compat_previous_t *history;
    reg_schema_t **held;
    size_t n;
    reg_code_t rc = build_history(reg, db, fresh, 0, &history, &n, &held, err);
    if (rc == REG_OK) {
        strlist_t messages = {0};
        int had = n > 0; /* a first version is checked against nothing: not counted */
        int ok = compat_with_previous(reg, subject, c, history, held, &n, &messages);
        c->checked = had;
        c->checked_level = settings.level;
        c->checked_ok = ok;
        if (ok == 0) {
            char details[sizeof err->message];
            join_messages(&messages, details, sizeof details);
            rc = reg_fail(err, REG_INCOMPATIBLE,
                          "Schema being registered is incompatible with an earlier schema for "
                          "subject \"%s\", details: %s",
                          subject, details);
        } else if (ok < 0) {
            rc = reg_fail(err, REG_INTERNAL, "Out of memory during the compatibility check");
        }
        strlist_clear(&messages);
    }
    history_free(history, held, n);
    return rc;
}

/* IMPORT: the schema row for an explicit id, or 42205 when the id is bound to
 * other content. The same content under another id is allowed, as Confluent
 * does (AbstractSchemaRegistry.checkIfSchemaWithIdExist looks at the id only):
 * the new id becomes the content's canonical one (store_schema_import). */
static reg_code_t import_schema(registry_t *reg, store_t *db, const candidate_t *c, int id, reg_error_t *err)
{
    reg_schema_t *existing;
    store_rc_t src = store_load_schema(db, c->context, id, &existing);
    if (src != STORE_OK && src != STORE_NOT_FOUND)
        return reg_store(err, db, src);
    if (existing) {
        int same = existing->type == c->type && memcmp(existing->key, c->key, REG_KEY_LEN) == 0;
        reg_schema_release(existing);
        return same ? REG_OK
                    : reg_fail(err, REG_OPERATION_NOT_PERMITTED,
                               "Overwrite new schema with id %d in context %s is not permitted.", id,
                               c->context);
    }
    reg_schema_t *row = candidate_row(c, id);
    src = store_schema_import(db, row);
    reg_schema_release(row);
    return reg_store(err, db, src);
}

static reg_code_t store_schema_row(store_t *db, const candidate_t *c, int *id, reg_error_t *err)
{
    reg_schema_t *row = candidate_row(c, 0);
    store_rc_t rc = store_schema_upsert(db, row, id);
    reg_schema_release(row);
    return reg_store(err, db, rc);
}

/* Step 11: soft-deleted versions of the subject that carry the id go away,
 * unless another schema still refers to them. */
static reg_code_t drop_soft_deleted_twins(registry_t *reg, store_t *db, const reg_subject_t *fresh, int id,
                                          reg_error_t *err)
{
    for (size_t i = 0; i < fresh->n; i++) {
        const reg_version_t *v = &fresh->v[i];
        if (!v->deleted || v->schema_id != id)
            continue;
        int *ids;
        size_t nref = index_referrers(reg->idx, fresh->name, v->version, 1, &ids);
        free(ids);
        reg_code_t rc =
            nref ? REG_OK : reg_store(err, db, store_version_hard_delete(db, fresh->name, v->version));
        if (rc != REG_OK)
            return rc;
    }
    return REG_OK;
}

static int next_version(const reg_subject_t *fresh)
{
    return fresh->n ? fresh->v[fresh->n - 1].version + 1 : 1;
}

static int live_version_with_id(const reg_subject_t *fresh, int id)
{
    for (size_t i = 0; i < fresh->n; i++)
        if (!fresh->v[i].deleted && fresh->v[i].schema_id == id)
            return 1;
    return 0;
}

/* *id: the newest live version of fresh carrying the candidate's content
 * under any id (IMPORT may have stored it under one that is not canonical),
 * or 0. */
static reg_code_t live_id_of_content(registry_t *reg, store_t *db, const reg_subject_t *fresh,
                                     const candidate_t *c, int *id, reg_error_t *err)
{
    *id = 0;
    for (size_t i = fresh->n; i-- > 0 && !*id;) {
        if (fresh->v[i].deleted)
            continue;
        reg_schema_t *s = schema_for_id(reg, db, fresh->name, fresh->v[i].schema_id, err);
        if (!s)
            return err->code;
        if (s->type == c->type && memcmp(s->key, c->key, REG_KEY_LEN) == 0)
            *id = s->id;
        reg_schema_release(s);
    }
    return REG_OK;
}

/* IMPORT names the version: one the subject has (live or soft-deleted) under
 * another id would be replaced, and with it what its references resolve to.
 * Confluent overwrites it; here it is refused, so an import never loses a
 * stored version (docs/api.md, "IMPORT"). The same id is a re-import. */
static reg_code_t check_import_version(const reg_subject_t *fresh, int version, int id, reg_error_t *err)
{
    const reg_version_t *v = NULL;
    for (size_t i = 0; i < fresh->n && !v; i++)
        if (fresh->v[i].version == version)
            v = &fresh->v[i];
    if (!v || v->schema_id == id)
        return REG_OK;
    return reg_fail(err, REG_OPERATION_NOT_PERMITTED,
                    "Overwrite version %d of subject %s in context . is not permitted: it has schema id %d.",
                    version, fresh->name, v->schema_id);
}

/* ---- Metadata of a registration ------------------------------------------------ */

/* A metadata of the effective config (canonical as stored; borrowed from config), or NULL. */
static const json_t *config_metadata(const json_t *config, const char *key)
{
    const json_t *v = json_object_get(config, key);
    return json_is_object(v) ? v : NULL;
}

/*
 * The metadata a registration stores (AbstractSchemaRegistry.maybePopulateFromPrevious
 * and maybeSetMetadataRuleSet; in IMPORT the request's as sent): the request's,
 * else the latest live version's, merged over the config's defaultMetadata and
 * under its overrideMetadata (Metadata.mergeMetadata); then confluent:version is
 * set to the new version's number when the request names a version or the
 * merged metadata already has that property. subj: the versions the
 * registration is decided against; db NULL: memory only. *out is the caller's.
 */
static reg_code_t register_metadata(registry_t *reg, store_t *db, const char *subject,
                                    const reg_subject_t *subj, const reg_request_t *req, int import,
                                    json_t **out, reg_error_t *err)
{
    *out = NULL;
    if (import) {
        *out = req->metadata ? json_deep_copy(req->metadata) : NULL;
        return REG_OK;
    }
    const json_t *specific = req->metadata;
    reg_schema_t *prev = NULL;
    const reg_version_t *latest = reg_subject_latest(subj);
    if (!specific && latest) {
        char *ctx = reg_context_copy(subject);
        prev = db ? schema_for_id(reg, db, subject, latest->schema_id, err)
                  : index_schema(reg->idx, ctx, latest->schema_id, 0);
        free(ctx);
        if (!prev && db)
            return err->code;
        specific = prev ? prev->metadata : NULL;
    }
    json_t *config = registry_effective_config(reg, subject);
    json_t *lower = md_merge(config_metadata(config, "defaultMetadata"), specific);
    json_t *merged = md_merge(lower, config_metadata(config, "overrideMetadata"));
    json_decref(lower);
    json_decref(config);
    reg_schema_release(prev);
    if (req->version != 0 || md_has_version(merged)) {
        json_t *versioned = md_with_version(merged, next_version(subj));
        json_decref(merged);
        merged = versioned;
    }
    *out = merged;
    return REG_OK;
}

/* Gives the candidate the metadata its registration stores, against subj. */
static reg_code_t candidate_register_metadata(registry_t *reg, store_t *db, const char *subject,
                                              const reg_subject_t *subj, const reg_request_t *req, int import,
                                              candidate_t *c, reg_error_t *err)
{
    json_t *md;
    reg_code_t rc = register_metadata(reg, db, subject, subj, req, import, &md, err);
    if (rc == REG_OK)
        candidate_set_metadata(c, md);
    return rc;
}

/* 1 when a registration would store no metadata, so that its identity key is
 * the content key the request cache holds (see register_metadata). */
static int register_metadata_is_none(registry_t *reg, const char *subject, const reg_request_t *req)
{
    if (req->metadata || req->version != 0)
        return 0;
    if (registry_effective_mode(reg, subject) == MODE_IMPORT)
        return 1;
    if (registry_effective_settings(reg, subject).metadata_config)
        return 0;
    reg_view_t latest = {0};
    int none = index_view(reg->idx, subject, -1, 0, &latest) != INDEX_FOUND || !latest.schema->metadata;
    reg_view_clear(&latest);
    return none;
}

typedef struct register_tx {
    const char *subject;
    const reg_request_t *req;
    candidate_t *c; /* its metadata is decided again against the database's versions */
    int import;
    int id;      /* out */
    int created; /* out: a version was inserted */
} register_tx_t;

/* Steps 6-12, inside registry_write_tx (under the subject's lock). */
static reg_code_t register_in_tx(registry_t *reg, store_t *db, void *arg, reg_error_t *err)
{
    register_tx_t *tx = arg;
    const reg_request_t *req = tx->req;
    if (req->nrefs) {
        reg_code_t src = check_strong_references(db, tx->subject, req, err);
        if (src != REG_OK)
            return src;
    }
    reg_subject_t *fresh = NULL;
    store_rc_t src = store_load_subject(db, tx->subject, &fresh);
    if (src != STORE_OK)
        return reg_store(err, db, src);
    reg_code_t mrc = candidate_register_metadata(reg, db, tx->subject, fresh, req, tx->import, tx->c, err);
    if (mrc != REG_OK) {
        reg_subject_free(fresh);
        return mrc;
    }
    int explicit_id = tx->import && req->id >= 0;
    src = explicit_id ? STORE_NOT_FOUND
                      : store_schema_find(db, tx->c->context, tx->c->type, tx->c->key, &tx->id);
    int existing = src == STORE_OK;
    reg_code_t rc = src == STORE_NOT_FOUND ? REG_OK : reg_store(err, db, src);
    /* Another writer (maybe another node) registered the same content while
     * we parsed, under the canonical id or (IMPORT) another one. */
    if (rc == REG_OK && existing && !tx->import && live_version_with_id(fresh, tx->id)) {
        reg_subject_free(fresh);
        return REG_OK;
    }
    int twin = 0;
    if (rc == REG_OK && existing && !tx->import)
        rc = live_id_of_content(reg, db, fresh, tx->c, &twin, err);
    if (rc == REG_OK && twin) {
        tx->id = twin;
        reg_subject_free(fresh);
        return REG_OK;
    }
    if (rc == REG_OK && !tx->import && !req->force)
        rc = check_compatible(reg, db, tx->subject, fresh, tx->c, err);
    if (rc == REG_OK && explicit_id) {
        rc = import_schema(reg, db, tx->c, req->id, err);
        tx->id = req->id;
    } else if (rc == REG_OK && !existing) {
        rc = store_schema_row(db, tx->c, &tx->id, err);
    }
    int version = next_version(fresh);
    if (rc == REG_OK && req->version > 0) {
        if (tx->import) {
            version = req->version;
            rc = check_import_version(fresh, version, tx->id, err);
        } else if (req->version != version)
            rc = reg_fail(err, REG_INVALID_SCHEMA, "Version is not one more than previous version");
    }
    if (rc == REG_OK)
        rc = drop_soft_deleted_twins(reg, db, fresh, tx->id, err);
    if (rc == REG_OK && schema_canonical_len(tx->c->parsed) > reg->opts.max_schema_bytes)
        rc = reg_fail(err, REG_SCHEMA_TOO_LARGE, "Register operation failed because schema is too large");
    if (rc == REG_OK)
        rc = reg_store(err, db, store_version_insert(db, tx->subject, version, tx->id));
    if (rc == REG_OK) {
        json_t *details = register_details(reg, db, fresh, tx->c);
        rc = reg_audit_change(db, tx->import ? REG_AUDIT_IMPORT : REG_AUDIT_REGISTER, tx->subject, version,
                              tx->id, -1, details, err);
        json_decref(details);
    }
    tx->created = rc == REG_OK;
    reg_subject_free(fresh);
    return rc;
}

/*
 * 1 when the fast path must not run on subj: a soft-deleted version (step 11
 * may apply), or a live version that already carries the candidate's content
 * (it was published after the caller's first look; the general path answers
 * it) or whose schema row this node lacks.
 */
static int append_excluded(registry_t *reg, const reg_subject_t *subj, const candidate_t *c)
{
    for (size_t i = 0; i < subj->n; i++) {
        if (subj->v[i].deleted)
            return 1;
        reg_schema_t *s = index_schema(reg->idx, c->context, subj->v[i].schema_id, 0);
        int same = !s || (s->type == c->type && memcmp(s->key, c->key, REG_KEY_LEN) == 0);
        reg_schema_release(s);
        if (same)
            return 1;
    }
    return 0;
}

/*
 * A registration between registry_register_start and its end (finish or end)
 * (registry.h): the request as decided so far, and the append that writes it.
 */
struct reg_pending {
    const char *subject; /* borrowed, as request */
    reg_request_t req;   /* the request, or with the latest version's schema when it was empty */
    reg_schema_t *inherited;
    reg_view_t *out; /* the caller's, or &scratch */
    reg_view_t scratch;
    reg_error_t *err;
    candidate_t c;
    reg_code_t parsed; /* candidate_parse's result */
    register_tx_t tx;
    /* The append (append_prepare), written by whichever worker leads its group. */
    reg_subject_t *seen;
    reg_schema_t *row;
    char *text; /* store_append_text's, rendered here: the leader only joins them */
    store_append_t a;
    store_rc_t src;  /* how the group wrote a */
    char *src_error; /* and its store message when it failed (owned) */
};

/*
 * The common registration in one statement (store_register_append, group
 * committed with the others arriving at once: registry_group_submit): checked
 * against the versions this node holds, written only if the database still
 * holds the same, then published from what was written. It applies to a
 * READWRITE registration without explicit id or version that append_excluded
 * lets through; anything else, an incompatibility included (the database may
 * know better than this node), returns REG_SCHEMA_NOT_FOUND and the caller
 * takes the general path, which decides against the database's state.
 * REG_OK: p->a is ready for the group.
 */
static reg_code_t append_prepare(registry_t *reg, store_t *db, reg_pending_t *p)
{
    const reg_request_t *req = &p->req;
    candidate_t *c = &p->c;
    /* A registration with references checks them against the STRONG
     * associations under their reference-target locks, taken before the
     * subject's lock (registry_write_tx_referencing); a group's statement
     * takes one subject's lock after another's, so a reference lock there
     * would follow a subject lock. */
    if (req->id >= 0 || req->version > 0 || req->nrefs ||
        schema_canonical_len(c->parsed) > reg->opts.max_schema_bytes)
        return REG_SCHEMA_NOT_FOUND;
    reg_subject_t *seen = subject_snapshot(reg, p->subject);
    /* The metadata follows from seen too: the call writes only while the database holds seen. */
    reg_code_t rc = candidate_register_metadata(reg, db, p->subject, seen, req, 0, c, p->err) != REG_OK ||
                            append_excluded(reg, seen, c)
                        ? REG_SCHEMA_NOT_FOUND
                        : REG_OK;
    if (rc == REG_OK && !req->force && check_compatible(reg, db, p->subject, seen, c, p->err) != REG_OK)
        rc = REG_SCHEMA_NOT_FOUND;
    if (rc != REG_OK) {
        reg_subject_free(seen);
        return rc;
    }
    p->seen = seen;
    p->row = candidate_row(c, 0);
    /* The audit row goes into the same statement: it commits iff the version does. */
    char *expect = store_versions_text(seen);
    json_t *details = register_details(reg, db, seen, c);
    store_append_rows_t rows = {.subject = p->subject,
                                .expect = expect,
                                .row = p->row,
                                .audit_action = REG_AUDIT_REGISTER,
                                .audit_details = details};
    p->text = store_append_text(db, &rows);
    json_decref(details);
    free(expect);
    p->a = (store_append_t){.text = p->text, .fence = store_fenced(db)};
    return REG_OK;
}

/* The append's outcome (src, as the group wrote it): published, or
 * REG_SCHEMA_NOT_FOUND for the general path. */
static reg_code_t append_complete(registry_t *reg, store_t *db, reg_pending_t *p, store_rc_t src)
{
    store_append_t *a = &p->a;
    reg_schema_t *row = p->row;
    p->row = NULL;
    reg_code_t rc;
    if (src == STORE_OK && a->applied) {
        reg_version_t added = {a->version, a->id, 0, a->ts_ms};
        row->id = p->tx.id = a->id;
        row->ts_ms = a->ts_ms; /* the schema row and the version share the transaction's now() */
        row->canonical = 1;    /* a row the call inserted is its content's canonical one */
        if (!a->inserted) {
            reg_schema_release(row);
            row = NULL;
        }
        rc = registry_publish_appended(reg, db, p->seen, row, &added, p->err);
        if (rc == REG_OK)
            registry_feed_own(reg, a->change_seq); /* published: the feed need not read it back */
    } else {
        reg_schema_release(row);
        rc = src == STORE_OK ? REG_SCHEMA_NOT_FOUND
                             : reg_store_as(p->err, src, p->src_error ? p->src_error : store_error(db));
    }
    return rc;
}

static reg_code_t view_by_id(registry_t *reg, const char *subject, int id, reg_view_t *out, reg_error_t *err)
{
    if (index_view_of_schema(reg->idx, subject, id, 0, out))
        return REG_OK;
    return reg_fail(err, REG_INTERNAL, "Registered schema %d vanished", id);
}

/* Empty schema: reuse the latest live version's text, type and references (step 4). */
static reg_code_t inherit_latest(registry_t *reg, const char *subject, reg_request_t *req,
                                 reg_schema_t **held, reg_error_t *err)
{
    reg_view_t latest = {0};
    if (registry_get_version(reg, subject, "latest", 0, &latest, &(reg_error_t){0}) != REG_OK)
        return reg_fail(err, REG_INVALID_SCHEMA, "Empty schema");
    *held = latest.schema;
    latest.schema = NULL;
    reg_view_clear(&latest);
    req->schema = (*held)->text;
    req->schema_len = 0;
    req->schema_type = schema_type_name((*held)->type);
    req->refs = (*held)->refs;
    req->nrefs = (*held)->nrefs;
    return REG_OK;
}

/* Known content in the subject, from the request cache alone (no parsing).
 * The cache keeps content keys, without metadata: the caller makes sure the
 * request's identity has none. */
static int known(registry_t *reg, const char *subject, const reg_request_t *req, int deleted, int exact,
                 reg_view_t *out)
{
    int normalize = effective_normalize(reg, subject, req);
    unsigned char key[REG_KEY_LEN];
    schema_type_t type;
    if (schema_type_parse(req->schema_type, &type) == 0 && request_cache_get(reg, req, normalize, key) &&
        (exact ? find_registered(reg, subject, req, type, key, out)
               : find_by_key(reg, subject, type, key, deleted, out) == REG_OK))
        return 1;
    reg_view_clear(out);
    return 0;
}

static int register_known(registry_t *reg, const char *subject, const reg_request_t *req, reg_view_t *out)
{
    return register_metadata_is_none(reg, subject, req) && known(reg, subject, req, 0, 1, out);
}

int registry_register_known(registry_t *reg, const char *subject, const reg_request_t *req, reg_view_t *out)
{
    int hit = register_known(reg, subject, req, out);
    if (hit)
        reg_count_registration(reg, REG_OK, 0);
    return hit;
}

int registry_lookup_known(registry_t *reg, const char *subject, const reg_request_t *req, int deleted,
                          reg_view_t *out)
{
    return !req->metadata && !req->rule_set && known(reg, subject, req, deleted, 0, out);
}

/*
 * A registration without an explicit version whose schema is equivalent to a
 * live version (its references written out, say) gets that version, as
 * KafkaSchemaRegistry.register's canLookup pass over the undeleted versions,
 * newest first, with an explicit id only matching itself.
 */
static int registered_equivalent(registry_t *reg, const char *subject, const reg_request_t *req,
                                 const candidate_t *c, reg_view_t *out)
{
    if (req->version > 0 || !registry_find_equivalent(reg, subject, c->parsed, c->res.direct, c->res.ndirect,
                                                      c->metadata, 0, out))
        return 0;
    if (req->id < 0 || req->id == out->id)
        return 1;
    reg_view_clear(out);
    return 0;
}

static void pending_free(reg_pending_t *p)
{
    candidate_clear(&p->c);
    reg_schema_release(p->inherited);
    reg_subject_free(p->seen);
    reg_schema_release(p->row);
    free(p->text);
    free(p->src_error);
    if (p->out == &p->scratch) /* else the caller's */
        reg_view_clear(p->out);
    free(p);
}

/* The registration's end once the append (fast) is decided: the general path
 * when it was not taken, the version's view, the counters. Frees p. */
static reg_code_t pending_end(registry_t *reg, store_t *db, reg_pending_t *p, reg_code_t fast)
{
    reg_code_t rc = p->parsed;
    strlist_t targets = {0};
    reference_targets(p->subject, &p->req, &targets);
    if (rc == REG_OK)
        rc = fast == REG_SCHEMA_NOT_FOUND ? registry_write_tx_referencing(reg, db, p->subject, &targets,
                                                                          register_in_tx, &p->tx, p->err)
                                          : fast;
    strlist_clear(&targets);
    int created = rc == REG_OK && (fast == REG_OK || p->tx.created);
    if (rc == REG_OK)
        rc = view_by_id(reg, p->subject, p->tx.id, p->out, p->err);
    if (p->c.checked)
        reg_count_check(reg, p->c.type, p->c.checked_level, p->c.checked_ok);
    reg_count_registration(reg, rc, created);
    pending_free(p);
    return rc;
}

/* Steps up to the append: decided (*pending NULL, out filled on REG_OK), or
 * *pending the registration as far as it got (its candidate parsed as new). */
static reg_code_t register_begin(registry_t *reg, store_t *db, const char *subject,
                                 const reg_request_t *request, reg_view_t *out, reg_error_t *err,
                                 reg_pending_t **pending)
{
    assert(db);
    *pending = NULL;
    reg_view_t scratch = {0};
    reg_view_t *view = out ? out : &scratch;
    int normalize = effective_normalize(reg, subject, request);
    if (register_known(reg, subject, request, view))
        goto done;

    reg_code_t rc = registry_check_subject_name(subject, reg->opts.max_subject_bytes, err);
    if (rc != REG_OK)
        return rc;
    candidate_t c;
    int lookup_flags = (normalize ? SCHEMA_PARSE_NORMALIZE : 0) | validate_flag(reg, subject), strict = 0;
    if (!request_is_empty(request)) {
        rc = lookup_parse(reg, subject, request, lookup_flags, &c, &strict, err);
        if (rc == REG_OK) {
            request_cache_put(reg, request, normalize, c.content_key);
            /* Confluent merges the metadata before it looks (KafkaSchemaRegistry.register). */
            reg_subject_t *snap = subject_snapshot(reg, subject);
            candidate_register_metadata(reg, NULL, subject, snap, request,
                                        registry_effective_mode(reg, subject) == MODE_IMPORT, &c, err);
            reg_subject_free(snap);
            rc = find_registered(reg, subject, request, c.type, c.key, view) ||
                         registered_equivalent(reg, subject, request, &c, view)
                     ? REG_OK
                     : REG_SCHEMA_NOT_FOUND;
        }
        if (rc != REG_SCHEMA_NOT_FOUND || !strict)
            candidate_clear(&c);
        if (rc == REG_OK)
            goto done;
        if (rc != REG_SCHEMA_NOT_FOUND)
            return rc;
    }

    int import;
    rc = check_mode_for_register(reg, subject, request, &import, err);
    if (rc != REG_OK) {
        if (strict)
            candidate_clear(&c);
        return rc;
    }
    reg_pending_t *p = xcalloc(1, sizeof *p);
    p->subject = subject;
    p->req = *request;
    p->out = out ? out : &p->scratch;
    p->err = err;
    if (request_is_empty(&p->req) && !import &&
        (rc = inherit_latest(reg, subject, &p->req, &p->inherited, err)) != REG_OK) {
        pending_free(p);
        return rc;
    }
    int flags =
        SCHEMA_PARSE_NEW | (normalize && !import ? SCHEMA_PARSE_NORMALIZE : 0) | validate_flag(reg, subject);
    if (strict && flags == (lookup_flags | SCHEMA_PARSE_NEW)) {
        /* The lookup's parse is this one (lookup_parse); its metadata, merged
         * for the lookup, starts again from the request's own. */
        p->c = c;
        candidate_set_metadata(&p->c, request->metadata ? json_deep_copy(request->metadata) : NULL);
        p->parsed = REG_OK;
    } else {
        if (strict)
            candidate_clear(&c);
        p->parsed = candidate_parse(reg, subject, &p->req, flags, 0, &p->c, err);
    }
    p->tx = (register_tx_t){subject, &p->req, &p->c, import, 0, 0};
    *pending = p;
    return REG_OK;
done:
    if (!out)
        reg_view_clear(view);
    return REG_OK;
}

reg_code_t registry_register_start(registry_t *reg, store_t *db, const char *subject,
                                   const reg_request_t *request, reg_view_t *out, reg_error_t *err,
                                   reg_pending_t **pending)
{
    reg_pending_t *p;
    reg_code_t rc = register_begin(reg, db, subject, request, out, err, &p);
    *pending = NULL;
    if (p == NULL) {
        reg_count_registration(reg, rc, 0);
        return rc;
    }
    reg_code_t fast =
        p->parsed == REG_OK && !p->tx.import ? append_prepare(reg, db, p) : REG_SCHEMA_NOT_FOUND;
    if (fast != REG_OK)
        return pending_end(reg, db, p, fast);
    *pending = p;
    return REG_OK;
}

reg_code_t registry_register_end(registry_t *reg, store_t *db, reg_pending_t *p)
{
    return pending_end(reg, db, p, append_complete(reg, db, p, p->src));
}

/* Pending registrations queued together (registry_register_queue), until written. */
typedef struct register_queued {
    reg_written_fn written;
    void *arg;
    size_t n;
    reg_pending_t *pending[];
} register_queued_t;

static void register_queued_done(void *arg, store_t *db, const store_rc_t *rcs, char **errors)
{
    register_queued_t *q = arg;
    for (size_t i = 0; i < q->n; i++) {
        q->pending[i]->src = rcs[i];
        q->pending[i]->src_error = errors[i]; /* the pending's now */
    }
    q->written(q->arg, db);
    free(q);
}

static store_append_t **appends_of(reg_pending_t **pending, size_t n)
{
    store_append_t **as = xcalloc(n, sizeof *as);
    for (size_t i = 0; i < n; i++)
        as[i] = &pending[i]->a;
    return as;
}

void registry_register_queue(registry_t *reg, store_t *db, reg_pending_t **pending, size_t n,
                             reg_written_fn written, void *arg)
{
    register_queued_t *q = xmalloc(sizeof *q + n * sizeof *q->pending);
    *q = (register_queued_t){.written = written, .arg = arg, .n = n};
    memcpy(q->pending, pending, n * sizeof *pending);
    store_append_t **as = appends_of(pending, n);
    registry_group_submit(reg, db, as, n, register_queued_done, q); /* q may be gone on return */
    free(as);
}

void registry_register_finish(registry_t *reg, store_t *db, reg_pending_t **pending, size_t n,
                              reg_code_t *rcs)
{
    store_append_t **as = appends_of(pending, n);
    store_rc_t *srcs = xcalloc(n, sizeof *srcs);
    char **errors = xcalloc(n, sizeof *errors);
    registry_append_alone(reg, db, as, n, srcs, errors);
    for (size_t i = 0; i < n; i++) {
        pending[i]->src = srcs[i];
        pending[i]->src_error = errors[i]; /* the pending's now */
        rcs[i] = registry_register_end(reg, db, pending[i]);
    }
    free(errors);
    free(srcs);
    free(as);
}

reg_code_t registry_register(registry_t *reg, store_t *db, const char *subject, const reg_request_t *request,
                             reg_view_t *out, reg_error_t *err)
{
    reg_pending_t *p;
    reg_code_t rc = registry_register_start(reg, db, subject, request, out, err, &p);
    if (p != NULL)
        registry_register_finish(reg, db, &p, 1, &rc);
    return rc;
}

/* ---- Lookup ------------------------------------------------------------------ */

/* The exact content (identity key), else the newest equivalent version. */
static reg_code_t lookup_candidate(registry_t *reg, const char *subject, const candidate_t *c, int deleted,
                                   reg_view_t *out)
{
    if (find_by_key(reg, subject, c->type, c->key, deleted, out) == REG_OK)
        return REG_OK;
    return registry_find_equivalent(reg, subject, c->parsed, c->res.direct, c->res.ndirect, c->metadata,
                                    deleted, out)
               ? REG_OK
               : REG_SCHEMA_NOT_FOUND;
}

/*
 * A lookup's second try (AbstractSchemaRegistry.lookUpSchemaUnderSubject): the
 * metadata a registration would give the request against the latest live
 * version (without confluent:version), when that differs from the request's.
 * 1 and *out (the caller's), or 0.
 */
static int lookup_metadata(registry_t *reg, const char *subject, const reg_request_t *req, json_t **out)
{
    reg_view_t latest = {0};
    if (index_view(reg->idx, subject, -1, 0, &latest) != INDEX_FOUND) {
        reg_view_clear(&latest);
        return 0;
    }
    json_t *config = registry_effective_config(reg, subject);
    json_t *lower = md_merge(config_metadata(config, "defaultMetadata"),
                             req->metadata ? req->metadata : latest.schema->metadata);
    *out = md_merge(lower, config_metadata(config, "overrideMetadata"));
    json_decref(lower);
    json_decref(config);
    reg_view_clear(&latest);
    if (*out && !md_equal(*out, req->metadata))
        return 1;
    json_decref(*out);
    *out = NULL;
    return 0;
}

reg_code_t registry_lookup(registry_t *reg, store_t *db, const char *subject, const reg_request_t *req,
                           int deleted, reg_view_t *out, reg_error_t *err)
{
    assert(db); /* parsing is CPU work: it runs on a worker */
    int normalize = effective_normalize(reg, subject, req);
    if (registry_lookup_known(reg, subject, req, deleted, out))
        return REG_OK;
    /* No schema text matches nothing: Confluent's canonicalizeSchema returns
     * null for a missing or blank schema before the type is even read, and
     * SubjectsResource.lookUpSchemaUnderSubject answers 40401 / 40403. */
    if (!request_is_blank(req)) {
        candidate_t c;
        reg_code_t rc = candidate_parse(
            reg, subject, req, (normalize ? SCHEMA_PARSE_NORMALIZE : 0) | validate_flag(reg, subject), 1, &c,
            err);
        if (rc != REG_OK) {
            candidate_clear(&c);
            return rc;
        }
        request_cache_put(reg, req, normalize, c.content_key);
        rc = req->rule_set ? REG_SCHEMA_NOT_FOUND : lookup_candidate(reg, subject, &c, deleted, out);
        json_t *merged = NULL;
        if (rc != REG_OK && !req->rule_set && lookup_metadata(reg, subject, req, &merged)) {
            candidate_set_metadata(&c, merged);
            rc = lookup_candidate(reg, subject, &c, deleted, out);
        }
        candidate_clear(&c);
        if (rc == REG_OK)
            return REG_OK;
    }
    reg_subject_t *subj = index_subject_copy(reg->idx, subject);
    int exists = subj && (deleted ? subj->n > 0 : reg_subject_latest(subj) != NULL);
    reg_subject_free(subj);
    if (!exists)
        return reg_fail(err, REG_SUBJECT_NOT_FOUND, "Subject '%s' not found.", subject);
    return reg_fail(err, REG_SCHEMA_NOT_FOUND, "Schema not found");
}

/* ---- Compatibility test endpoints ---------------------------------------- */

reg_code_t registry_check(registry_t *reg, store_t *db, const char *subject, const char *version_text,
                          const reg_request_t *req, int verbose, int *compatible, strlist_t *messages,
                          reg_error_t *err)
{
    int only_version = 0;
    assert(db); /* parsing and checking are CPU work: they run on a worker */
    if (version_text && registry_version_parse(version_text, &only_version) != 0)
        return registry_invalid_version(err, version_text);

    reg_subject_t *snap = subject_snapshot(reg, subject);
    reg_code_t rc = REG_OK;
    if (version_text) {
        const reg_version_t *v = reg_subject_find(snap, only_version);
        if (only_version != -1 && (!v || v->deleted))
            rc = reg_fail(err, REG_VERSION_NOT_FOUND, "Version %d not found.", only_version);
        /* latest with no live version: empty history. A one-version history
         * makes a transitive level act as its plain form, while the summary
         * line still names the configured level. */
        only_version = v ? v->version : -1;
    }
    candidate_t c = {0};
    int normalize = effective_normalize(reg, subject, req);
    if (rc == REG_OK)
        rc = candidate_parse(reg, subject, req,
                             SCHEMA_PARSE_NEW | (normalize ? SCHEMA_PARSE_NORMALIZE : 0) |
                                 validate_flag(reg, subject),
                             0, &c, err);
    if (rc == REG_INVALID_SCHEMA && verbose) {
        *compatible = 0;
        strlist_push(messages, err->message);
        rc = REG_OK;
    } else if (rc == REG_OK) {
        compat_previous_t *history;
        reg_schema_t **held;
        size_t n;
        rc = build_history(reg, db, snap, only_version, &history, &n, &held, err);
        if (rc == REG_OK) {
            int ok = compat_with_previous(reg, subject, &c, history, held, &n, messages);
            reg_count_check(reg, c.type, registry_effective_settings(reg, subject).level, ok);
            *compatible = ok == 1;
            if (ok < 0)
                rc = reg_fail(err, REG_INTERNAL, "Out of memory during the compatibility check");
        }
        history_free(history, held, n);
    }
    candidate_clear(&c);
    reg_subject_free(snap);
    return rc;
}

/* ---- Rollback (docs/evolution.md, "How to roll back") --------------------------------------- */

/* Clears blocking by hand: changes.c calls into this file (registry_parse_request),
 * and test_layers.py keeps the files free of call circles. */
void reg_rollback_clear(reg_rollback_t *r)
{
    free(r->deleted);
    change_list_clear(&r->blocking.list);
    free(r->blocking.summary);
    memset(r, 0, sizeof *r);
}

typedef struct rollback_tx {
    const char *subject;
    int delete_mode;
    reg_rollback_t *out;
} rollback_tx_t;

/* The changes from the latest live version's model to the target's, into out. */
static void rollback_changes(const schema_t *latest, const schema_t *target, reg_changes_t *out)
{
    out->type = schema_get_type(target); /* out is zeroed (registry_rollback) */
    if (schema_changes(latest, target, &out->list) != 0)
        change_list_clear(&out->list);
    out->summary = change_summary(&out->list);
}

static reg_code_t rollback_delete(registry_t *reg, store_t *db, const char *subject,
                                  const reg_subject_t *fresh, reg_rollback_t *out, reg_error_t *err)
{
    out->deleted = xcalloc(fresh->n + 1, sizeof *out->deleted);
    for (size_t i = 0; i < fresh->n; i++) {
        const reg_version_t *v = &fresh->v[i];
        if (v->deleted || v->version <= out->to)
            continue;
        if (index_is_referenced(reg->idx, subject, v->version, 1, NULL))
            return registry_referenced_error(subject, v->version, err);
        reg_code_t rc = reg_store(err, db, store_version_soft_delete(db, subject, v->version));
        if (rc != REG_OK)
            return rc;
        out->deleted[out->ndeleted++] = v->version;
    }
    out->version = out->to;
    return REG_OK;
}

static reg_code_t rollback_in_tx(registry_t *reg, store_t *db, void *arg, reg_error_t *err)
{
    rollback_tx_t *tx = arg;
    reg_rollback_t *out = tx->out;
    reg_subject_t *fresh = NULL;
    reg_code_t rc = reg_store(err, db, store_load_subject(db, tx->subject, &fresh));
    if (rc != REG_OK)
        return rc;
    const reg_version_t *latest = reg_subject_latest(fresh);
    const reg_version_t *target = reg_subject_find(fresh, out->to);
    reg_request_t plain = {.id = -1};
    int import = 0;
    if (!latest)
        rc = reg_fail(err, REG_SUBJECT_NOT_FOUND, "Subject '%s' not found.", tx->subject);
    else if (!target || target->deleted)
        rc = reg_fail(err, REG_VERSION_NOT_FOUND, "Version %d not found.", out->to);
    else
        rc = check_mode_for_register(reg, tx->subject, &plain, &import, err);
    if (rc != REG_OK || (out->from = latest->version) == out->to) {
        if (rc == REG_OK)
            out->version = out->to, out->id = target->schema_id;
        reg_subject_free(fresh);
        return rc;
    }
    out->id = target->schema_id;
    reg_schema_t *row = schema_for_id(reg, db, tx->subject, target->schema_id, err);
    reg_schema_t *last = row ? schema_for_id(reg, db, tx->subject, latest->schema_id, err) : NULL;
    const schema_t *model = row && last ? registry_parsed(reg, row, err) : NULL;
    const schema_t *last_model = model ? registry_parsed(reg, last, err) : NULL;
    rc = last_model ? REG_OK : err->code;
    if (rc == REG_OK) {
        /* A candidate that borrows the stored model and metadata: never cleared. */
        candidate_t c = {.type = row->type, .parsed = (schema_t *)model, .metadata = row->metadata};
        rc = check_compatible(reg, db, tx->subject, fresh, &c, err);
        rollback_changes(last_model, model, &out->blocking);
    }
    if (rc == REG_OK && tx->delete_mode) {
        rc = rollback_delete(reg, db, tx->subject, fresh, out, err);
    } else if (rc == REG_OK) {
        out->version = next_version(fresh);
        rc = reg_store(err, db, store_version_insert(db, tx->subject, out->version, out->id));
    }
    if (rc == REG_OK) {
        json_t *details = json_pack("{s:s, s:i, s:i}", "mode", tx->delete_mode ? "delete" : "register",
                                    "from", out->from, "to", out->to);
        if (tx->delete_mode) {
            json_t *deleted = json_array();
            for (size_t i = 0; i < out->ndeleted; i++)
                json_array_append_new(deleted, json_integer(out->deleted[i]));
            json_object_set_new(details, "deleted", deleted);
        } else {
            json_object_set_new(details, "changes", registry_change_array(&out->blocking.list));
            json_object_set_new(details, "summary", json_string(out->blocking.summary));
        }
        rc = reg_audit_change(db, REG_AUDIT_ROLLBACK, tx->subject, out->version, out->id, -1, details, err);
        json_decref(details);
        out->changed = rc == REG_OK;
    }
    reg_schema_release(row);
    reg_schema_release(last);
    reg_subject_free(fresh);
    return rc;
}

reg_code_t registry_rollback(registry_t *reg, store_t *db, const char *subject, int to, int delete_mode,
                             reg_rollback_t *out, reg_error_t *err)
{
    assert(db);
    memset(out, 0, sizeof *out);
    out->to = to;
    if (to <= 0)
        return reg_fail(
            err, REG_INVALID_VERSION,
            "The specified version '%d' is not a valid version id. Allowed values are between [1, "
            "2^31-1] and the string \"latest\"",
            to);
    rollback_tx_t tx = {subject, delete_mode, out};
    return registry_write_tx(reg, db, subject, rollback_in_tx, &tx, err);
}
