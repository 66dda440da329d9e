/*
 * srclient: the registry client (client.h, section 1). libcurl, because it
 * is the field's standard HTTP client: HTTP/1.1 and HTTP/2 (ALPN over TLS,
 * prior knowledge over cleartext), TLS with CA and client certificates,
 * connection reuse; Debian's libh2o 2.2.5 has no HTTP/2 client
 * (docs/architecture.md, "Debian packages").
 *
 * Contents
 *   1. Schemas: refcounted, immutable
 *   2. The client: options, the pool of connections
 *   3. One request: GET/POST, the reply as JSON, the registry's errors
 *   4. The caches: ids (forever, positive and negative), latest (TTL), id versions
 *   5. The operations (a Protobuf schema's references fetched with it)
 *   6. Any GET: JSON for callers walking the registry
 *
 * Connection reuse: libcurl keeps its connections in each easy handle, so
 * the client keeps a pool of idle easy handles; a request takes one (or
 * makes one) and gives it back, and any number of threads can have requests
 * in flight, each on its own handle and connection. One lock guards the
 * pool and the caches, never held across a request: two threads missing the
 * same id both fetch it and the second result is dropped (ids are
 * immutable, so both are the same schema).
 */
#include "client/client.h"

#include <curl/curl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "base/hmap.h"
#include "base/vec.h"

/* ---- 1. Schemas ------------------------------------------------------------ */

struct srclient_schema {
    atomic_int refs;
    int id;
    srclient_type_t type;
    char *text;
    avro_model_t *avro;
    proto_schema_t *proto;
    json_t *references; /* the reply's "references" array, or NULL */
    /* Protobuf: the closure of the references, dependencies before their
     * dependents, each import name once, the schemas retained (a schema is
     * made after its dependencies, so these never form a cycle). */
    struct client_dep *deps;
    size_t n_deps;
};

typedef struct client_dep {
    char *name; /* the import path ("other.proto") */
    char *subject;
    int version;
    srclient_schema_t *schema;
} client_dep_t;

srclient_schema_t *srclient_schema_retain(srclient_schema_t *s)
{
    if (s)
        atomic_fetch_add(&s->refs, 1);
    return s;
}

void srclient_schema_release(srclient_schema_t *s)
{
    if (!s || atomic_fetch_sub(&s->refs, 1) != 1)
        return;
    avro_model_free(s->avro);
    proto_schema_free(s->proto);
    json_decref(s->references);
    for (size_t i = 0; i < s->n_deps; i++) {
        free(s->deps[i].name);
        free(s->deps[i].subject);
        srclient_schema_release(s->deps[i].schema);
    }
    free(s->deps);
    free(s->text);
    free(s);
}

int srclient_schema_id(const srclient_schema_t *s)
{
    return s->id;
}

srclient_type_t srclient_schema_type(const srclient_schema_t *s)
{
    return s->type;
}

const char *srclient_schema_text(const srclient_schema_t *s)
{
    return s->text;
}

const avro_model_t *srclient_schema_avro(const srclient_schema_t *s)
{
    return s->avro;
}

const proto_schema_t *srclient_schema_proto(const srclient_schema_t *s)
{
    return s->proto;
}

const json_t *srclient_schema_references(const srclient_schema_t *s)
{
    return s->references;
}

void srclient_version_clear(srclient_version_t *v)
{
    srclient_schema_release(v->schema);
    memset(v, 0, sizeof(*v));
}

static void client_fail(srclient_error_t *err, int status, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void client_fail(srclient_error_t *err, int status, int code, const char *fmt, ...)
{
    if (!err)
        return;
    err->status = status;
    err->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof(err->message), fmt, ap);
    va_end(ap);
}

/* ---- 2. The client --------------------------------------------------------- */

/* The negative entry of the id cache: the registry said 40403. */
static srclient_schema_t client_unknown_id;

typedef struct client_latest {
    int version;
    int id;
    struct timespec fetched;
} client_latest_t;

struct srclient {
    char *url; /* without a trailing '/' */
    char *basic_auth;
    char *ca_file, *cert_file, *key_file;
    int insecure, h2c;
    long timeout_ms, latest_ttl_ms;

    pthread_mutex_t lock;
    VEC(CURL *) idle;   /* the pool */
    hmap_t ids;         /* int id -> srclient_schema_t * (or &client_unknown_id) */
    hmap_t latest;      /* subject -> client_latest_t * */
    hmap_t id_versions; /* "id\0subject" -> version + 1 (0 never stored) */
};

static pthread_once_t client_curl_once = PTHREAD_ONCE_INIT;

static void client_curl_init(void)
{
    curl_global_init(CURL_GLOBAL_DEFAULT);
}

static char *client_dup_opt(const char *s)
{
    return s && *s ? xstrdup(s) : NULL;
}

srclient_t *srclient_new(const srclient_options_t *opts, char **error)
{
    if (!opts->url || (strncmp(opts->url, "http://", 7) != 0 && strncmp(opts->url, "https://", 8) != 0)) {
        *error = xasprintf("registry URL must start with http:// or https://: %s",
                           opts->url ? opts->url : "(none)");
        return NULL;
    }
    if (opts->basic_auth && !strchr(opts->basic_auth, ':')) {
        *error = xstrdup("basic auth must be user:secret");
        return NULL;
    }
    if (!opts->cert_file != !opts->key_file) {
        *error = xstrdup("a client certificate needs its key and a key its certificate");
        return NULL;
    }
    pthread_once(&client_curl_once, client_curl_init);
    srclient_t *c = xcalloc(1, sizeof(*c));
    c->url = xstrdup(opts->url);
    size_t n = strlen(c->url);
    while (n > 0 && c->url[n - 1] == '/')
        c->url[--n] = '\0';
    c->basic_auth = client_dup_opt(opts->basic_auth);
    c->ca_file = client_dup_opt(opts->ca_file);
    c->cert_file = client_dup_opt(opts->cert_file);
    c->key_file = client_dup_opt(opts->key_file);
    c->insecure = opts->insecure;
    c->h2c = opts->h2c;
    c->timeout_ms = opts->timeout_ms > 0 ? opts->timeout_ms : 30000;
    c->latest_ttl_ms = opts->latest_ttl_ms ? opts->latest_ttl_ms : 30000;
    pthread_mutex_init(&c->lock, NULL);
    return c;
}

void srclient_free(srclient_t *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->idle.n; i++)
        curl_easy_cleanup(c->idle.items[i]);
    VEC_FREE(&c->idle);
    for (size_t i = 0; i < c->ids.cap; i++)
        if (hmap_live(&c->ids, i) && c->ids.slots[i].value != &client_unknown_id)
            srclient_schema_release(c->ids.slots[i].value);
    hmap_clear(&c->ids);
    for (size_t i = 0; i < c->latest.cap; i++)
        if (hmap_live(&c->latest, i))
            free(c->latest.slots[i].value);
    hmap_clear(&c->latest);
    hmap_clear(&c->id_versions);
    pthread_mutex_destroy(&c->lock);
    free(c->url);
    free(c->basic_auth);
    free(c->ca_file);
    free(c->cert_file);
    free(c->key_file);
    free(c);
}

static CURL *client_take_handle(srclient_t *c)
{
    CURL *h = NULL;
    pthread_mutex_lock(&c->lock);
    if (c->idle.n > 0)
        h = c->idle.items[--c->idle.n];
    pthread_mutex_unlock(&c->lock);
    if (h) {
        /* Options go, the connection cache stays. */
        curl_easy_reset(h);
        return h;
    }
    h = curl_easy_init();
    if (!h)
        base_oom(0);
    return h;
}

static void client_give_handle(srclient_t *c, CURL *h)
{
    pthread_mutex_lock(&c->lock);
    VEC_PUSH(&c->idle, h);
    pthread_mutex_unlock(&c->lock);
}

/* ---- 3. One request ---------------------------------------------------------- */

/* Replies larger than this are not a registry's. */
#define CLIENT_MAX_REPLY (64L * 1024 * 1024)

static size_t client_on_body(char *data, size_t size, size_t n, void *arg)
{
    strbuf_t *b = arg;
    if (b->len + size * n > CLIENT_MAX_REPLY)
        return 0;
    strbuf_put(b, data, size * n);
    return size * n;
}

/*
 * One request: path is appended to the URL (already escaped), body NULL for
 * a GET. Returns the reply as JSON with *status, or NULL with err set (a
 * network failure, or a reply that is not JSON). A registry error reply is
 * JSON and is returned: the caller reads its error_code.
 */
static json_t *client_request(srclient_t *c, const char *path, const char *body, int *status,
                              srclient_error_t *err)
{
    CURL *h = client_take_handle(c);
    char *url = xasprintf("%s%s", c->url, path);
    strbuf_t reply = {0};
    struct curl_slist *headers = curl_slist_append(NULL, "Accept: application/vnd.schemaregistry.v1+json");
    if (body)
        headers = curl_slist_append(headers, "Content-Type: application/vnd.schemaregistry.v1+json");
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, c->timeout_ms);
    curl_easy_setopt(h, CURLOPT_HTTP_VERSION,
                     c->h2c ? (long)CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE : (long)CURL_HTTP_VERSION_2TLS);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, client_on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &reply);
    if (c->basic_auth) {
        curl_easy_setopt(h, CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
        curl_easy_setopt(h, CURLOPT_USERPWD, c->basic_auth);
    }
    if (c->ca_file)
        curl_easy_setopt(h, CURLOPT_CAINFO, c->ca_file);
    if (c->cert_file) {
        curl_easy_setopt(h, CURLOPT_SSLCERT, c->cert_file);
        curl_easy_setopt(h, CURLOPT_SSLKEY, c->key_file);
    }
    if (c->insecure) {
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
        curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    if (body) {
        curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
        curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, (long)strlen(body));
    }
    CURLcode rc = curl_easy_perform(h);
    long code = 0;
    curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &code);
    curl_slist_free_all(headers);
    json_t *doc = NULL;
    if (rc != CURLE_OK) {
        client_fail(err, 0, SRCLIENT_ERR_NETWORK, "%s: %s", url, curl_easy_strerror(rc));
    } else {
        json_error_t je;
        doc = json_loadb(reply.data ? reply.data : "", reply.len, 0, &je);
        if (!doc)
            client_fail(err, (int)code, SRCLIENT_ERR_REPLY, "%s: HTTP %ld, not JSON: %.100s", url, code,
                        reply.data ? reply.data : "");
    }
    *status = (int)code;
    client_give_handle(c, h);
    strbuf_free(&reply);
    free(url);
    return doc;
}

/* A reply that is not 200: the registry's error as err. */
static void client_reply_error(json_t *doc, int status, srclient_error_t *err)
{
    json_t *code = json_object_get(doc, "error_code");
    const char *msg = json_string_value(json_object_get(doc, "message"));
    client_fail(err, status, json_is_integer(code) ? (int)json_integer_value(code) : SRCLIENT_ERR_REPLY, "%s",
                msg ? msg : "the registry answered with an error");
}

/* A path segment, percent-encoded (a subject may hold '/', '?', ...).
 * libcurl >= 7.82 needs no handle for it. */
char *srclient_escape(const char *s)
{
    char *e = curl_easy_escape(NULL, s, 0);
    if (!e)
        base_oom(0);
    char *out = xstrdup(e);
    curl_free(e);
    return out;
}

/* ---- 4. The caches ------------------------------------------------------------ */

static long client_elapsed_ms(const struct timespec *since)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - since->tv_sec) * 1000L + (now.tv_nsec - since->tv_nsec) / 1000000L;
}

/* Returns the cached schema (retained), &client_unknown_id, or NULL. */
static srclient_schema_t *client_cached_id(srclient_t *c, int id)
{
    pthread_mutex_lock(&c->lock);
    srclient_schema_t *s = hmap_get(&c->ids, &id, sizeof(id));
    if (s && s != &client_unknown_id)
        srclient_schema_retain(s);
    pthread_mutex_unlock(&c->lock);
    return s;
}

/* Keeps s (NULL: unknown) for id unless another thread was first; returns
 * what the cache holds now, retained. */
static srclient_schema_t *client_keep_id(srclient_t *c, int id, srclient_schema_t *s)
{
    pthread_mutex_lock(&c->lock);
    srclient_schema_t *had = hmap_get(&c->ids, &id, sizeof(id));
    if (!had) {
        had = s ? s : &client_unknown_id;
        hmap_put(&c->ids, &id, sizeof(id), had);
        s = NULL; /* the cache took it */
    }
    if (had != &client_unknown_id)
        srclient_schema_retain(had);
    pthread_mutex_unlock(&c->lock);
    srclient_schema_release(s);
    return had;
}

/* ---- 5. The operations ----------------------------------------------------------- */

static int client_type_of(const char *name, srclient_type_t *out)
{
    if (!name || strcmp(name, "AVRO") == 0)
        *out = SRCLIENT_AVRO;
    else if (strcmp(name, "PROTOBUF") == 0)
        *out = SRCLIENT_PROTOBUF;
    else if (strcmp(name, "JSON") == 0)
        *out = SRCLIENT_JSON;
    else
        return -1;
    return 0;
}

/* Bounds on a Protobuf schema's references, against a registry that
 * answers with a cycle or an endless chain: imports nested this deep, and
 * files in one closure. */
#define CLIENT_MAX_REF_DEPTH 32
#define CLIENT_MAX_REFS      256

static int client_schema_by_id_(srclient_t *c, int id, srclient_schema_t **out, srclient_error_t *err,
                                int depth);
static int client_subject_version_(srclient_t *c, const char *subject, int version, srclient_version_t *out,
                                   srclient_error_t *err, int depth);

static int client_has_dep_(const client_dep_t *deps, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(deps[i].name, name) == 0)
            return 1;
    return 0;
}

static void client_add_dep_(client_dep_t **deps, size_t *n, const char *name, const char *subject,
                            int version, srclient_schema_t *schema)
{
    *deps = xreallocarray(*deps, *n + 1, sizeof(**deps));
    (*deps)[(*n)++] =
        (client_dep_t){xstrdup(name), xstrdup(subject), version, srclient_schema_retain(schema)};
}

/*
 * The closure of a Protobuf schema's references (Confluent's
 * AbstractKafkaSchemaSerDe resolves them the same way: each by subject and
 * version, recursively), into *deps: each referenced schema is fetched
 * through the caches, so it arrives with its own closure, which goes first.
 */
static int client_resolve_refs_(srclient_t *c, int id, const json_t *refs, int depth, client_dep_t **deps,
                                size_t *n, srclient_error_t *err)
{
    size_t i;
    json_t *r;
    json_array_foreach((json_t *)refs, i, r)
    {
        const char *name = json_string_value(json_object_get(r, "name"));
        const char *subject = json_string_value(json_object_get(r, "subject"));
        json_t *jv = json_object_get(r, "version");
        if (!name || !subject || !json_is_integer(jv)) {
            client_fail(err, 200, SRCLIENT_ERR_REPLY,
                        "schema %d: a reference without name, subject or version", id);
            return -1;
        }
        if (client_has_dep_(*deps, *n, name))
            continue;
        if (depth >= CLIENT_MAX_REF_DEPTH) {
            client_fail(err, 0, SRCLIENT_ERR_SCHEMA, "schema %d: references nested deeper than %d", id,
                        CLIENT_MAX_REF_DEPTH);
            return -1;
        }
        srclient_version_t sv;
        if (client_subject_version_(c, subject, (int)json_integer_value(jv), &sv, err, depth + 1) != 0) {
            if (err && depth == 0) { /* named once, by the schema asked for */
                char why[sizeof(err->message)];
                snprintf(why, sizeof(why), "%s", err->message);
                snprintf(err->message, sizeof(err->message),
                         "schema %d: reference %.100s (%.100s version %d): %.200s", id, name, subject,
                         (int)json_integer_value(jv), why);
            }
            return -1;
        }
        int rc = 0;
        if (sv.schema->type != SRCLIENT_PROTOBUF) {
            client_fail(err, 0, SRCLIENT_ERR_SCHEMA, "schema %d: reference %s is not a Protobuf schema", id,
                        name);
            rc = -1;
        }
        for (size_t k = 0; rc == 0 && k < sv.schema->n_deps; k++) {
            const client_dep_t *d = &sv.schema->deps[k];
            if (!client_has_dep_(*deps, *n, d->name))
                client_add_dep_(deps, n, d->name, d->subject, d->version, d->schema);
        }
        if (rc == 0)
            client_add_dep_(deps, n, name, subject, sv.version, sv.schema);
        srclient_version_clear(&sv);
        if (rc == 0 && *n > CLIENT_MAX_REFS) {
            client_fail(err, 0, SRCLIENT_ERR_SCHEMA, "schema %d: more than %d references", id,
                        CLIENT_MAX_REFS);
            rc = -1;
        }
        if (rc != 0)
            return -1;
    }
    return 0;
}

static srclient_schema_t *client_fetch_id(srclient_t *c, int id, srclient_error_t *err, int *unknown,
                                          int depth)
{
    char path[64];
    snprintf(path, sizeof(path), "/schemas/ids/%d?format=resolved", id);
    int status;
    json_t *doc = client_request(c, path, NULL, &status, err);
    *unknown = 0;
    if (!doc)
        return NULL;
    srclient_schema_t *s = NULL;
    if (status != 200) {
        client_reply_error(doc, status, err);
        *unknown = status == 404 && err && err->code == 40403;
        goto out;
    }
    const char *text = json_string_value(json_object_get(doc, "schema"));
    srclient_type_t type;
    if (!text || client_type_of(json_string_value(json_object_get(doc, "schemaType")), &type) != 0) {
        client_fail(err, status, SRCLIENT_ERR_REPLY, "schema %d: the reply has no schema or an unknown type",
                    id);
        goto out;
    }
    avro_model_t *model = NULL;
    if (type == SRCLIENT_AVRO) {
        char *perr = NULL;
        model = avro_model_parse(text, strlen(text), NULL, 0, 0, &perr);
        if (!model) {
            client_fail(err, status, SRCLIENT_ERR_SCHEMA, "schema %d: %s", id, perr ? perr : "invalid Avro");
            free(perr);
            goto out;
        }
    }
    proto_schema_t *proto = NULL;
    client_dep_t *deps = NULL;
    size_t n_deps = 0;
    json_t *refs = json_object_get(doc, "references");
    if (type == SRCLIENT_PROTOBUF) {
        /* The referenced files join the schema's symbol table, so their
         * types resolve; imports of the built-in files (google/protobuf/...)
         * resolve without a reference, as in Confluent. */
        if (json_is_array(refs) && client_resolve_refs_(c, id, refs, depth, &deps, &n_deps, err) != 0)
            goto out_deps;
        schema_ref_t *sr = xcalloc(n_deps ? n_deps : 1, sizeof(*sr));
        for (size_t i = 0; i < n_deps; i++)
            sr[i] = (schema_ref_t){deps[i].name, deps[i].subject, deps[i].version, deps[i].schema->text};
        char *perr = NULL;
        proto = proto_schema_new(text, strlen(text), sr, n_deps, 0, NULL, &perr);
        free(sr);
        if (!proto) {
            client_fail(err, status, SRCLIENT_ERR_SCHEMA, "schema %d: %s", id,
                        perr ? perr : "invalid Protobuf");
            free(perr);
            goto out_deps;
        }
    }
    s = xcalloc(1, sizeof(*s));
    atomic_init(&s->refs, 1);
    s->id = id;
    s->type = type;
    s->text = xstrdup(text);
    s->avro = model;
    s->proto = proto;
    s->references = json_is_array(refs) && json_array_size(refs) ? json_incref(refs) : NULL;
    s->deps = deps;
    s->n_deps = n_deps;
    deps = NULL;
    n_deps = 0;
out_deps:
    for (size_t i = 0; i < n_deps; i++) {
        free(deps[i].name);
        free(deps[i].subject);
        srclient_schema_release(deps[i].schema);
    }
    free(deps);
out:
    json_decref(doc);
    return s;
}

int srclient_schema_by_id(srclient_t *c, int id, srclient_schema_t **out, srclient_error_t *err)
{
    return client_schema_by_id_(c, id, out, err, 0);
}

/* depth: how many references deep the fetch is (client_resolve_refs_). */
static int client_schema_by_id_(srclient_t *c, int id, srclient_schema_t **out, srclient_error_t *err,
                                int depth)
{
    *out = NULL;
    srclient_schema_t *s = client_cached_id(c, id);
    if (!s) {
        int unknown;
        s = client_fetch_id(c, id, err, &unknown, depth);
        if (!s && !unknown)
            return -1; /* a failure that may pass: not cached */
        s = client_keep_id(c, id, s);
    }
    if (s == &client_unknown_id) {
        client_fail(err, 404, 40403, "Schema %d not found", id);
        return -1;
    }
    *out = s;
    return 0;
}

int srclient_subject_version(srclient_t *c, const char *subject, int version, srclient_version_t *out,
                             srclient_error_t *err)
{
    return client_subject_version_(c, subject, version, out, err, 0);
}

static int client_subject_version_(srclient_t *c, const char *subject, int version, srclient_version_t *out,
                                   srclient_error_t *err, int depth)
{
    memset(out, 0, sizeof(*out));
    if (version <= 0 && c->latest_ttl_ms > 0) {
        pthread_mutex_lock(&c->lock);
        client_latest_t *l = hmap_get(&c->latest, subject, strlen(subject));
        if (l && client_elapsed_ms(&l->fetched) < c->latest_ttl_ms) {
            out->version = l->version;
            out->id = l->id;
        }
        pthread_mutex_unlock(&c->lock);
        if (out->id)
            return client_schema_by_id_(c, out->id, &out->schema, err, depth);
    }
    char *esc = srclient_escape(subject);
    char *path = version > 0 ? xasprintf("/subjects/%s/versions/%d", esc, version)
                             : xasprintf("/subjects/%s/versions/latest", esc);
    free(esc);
    int status;
    json_t *doc = client_request(c, path, NULL, &status, err);
    free(path);
    if (!doc)
        return -1;
    int rc = -1;
    if (status != 200) {
        client_reply_error(doc, status, err);
        goto out;
    }
    json_t *jid = json_object_get(doc, "id"), *jv = json_object_get(doc, "version");
    if (!json_is_integer(jid) || !json_is_integer(jv)) {
        client_fail(err, status, SRCLIENT_ERR_REPLY, "subject %s: the reply has no id or version", subject);
        goto out;
    }
    out->id = (int)json_integer_value(jid);
    out->version = (int)json_integer_value(jv);
    if (version <= 0 && c->latest_ttl_ms > 0) {
        client_latest_t *l = xcalloc(1, sizeof(*l));
        l->id = out->id;
        l->version = out->version;
        clock_gettime(CLOCK_MONOTONIC, &l->fetched);
        pthread_mutex_lock(&c->lock);
        free(hmap_put(&c->latest, subject, strlen(subject), l));
        pthread_mutex_unlock(&c->lock);
    }
    rc = client_schema_by_id_(c, out->id, &out->schema, err, depth);
out:
    json_decref(doc);
    if (rc != 0)
        memset(out, 0, sizeof(*out));
    return rc;
}

int srclient_id_version(srclient_t *c, int id, const char *subject, int *version, srclient_error_t *err)
{
    strbuf_t key = {0};
    strbuf_put(&key, (const char *)&id, sizeof(id));
    strbuf_puts(&key, subject);
    pthread_mutex_lock(&c->lock);
    intptr_t v = (intptr_t)hmap_get(&c->id_versions, key.data, key.len);
    pthread_mutex_unlock(&c->lock);
    if (v > 0) {
        *version = (int)(v - 1);
        strbuf_free(&key);
        return 0;
    }
    char path[64];
    snprintf(path, sizeof(path), "/schemas/ids/%d/versions", id);
    int status;
    json_t *doc = client_request(c, path, NULL, &status, err);
    int rc = -1;
    if (!doc)
        goto out;
    if (status != 200 || !json_is_array(doc)) {
        client_reply_error(doc, status, err);
        goto out;
    }
    *version = 0;
    size_t i;
    json_t *e;
    json_array_foreach(doc, i, e)
    {
        const char *s = json_string_value(json_object_get(e, "subject"));
        json_t *jv = json_object_get(e, "version");
        if (s && strcmp(s, subject) == 0 && json_is_integer(jv) && json_integer_value(jv) > *version)
            *version = (int)json_integer_value(jv);
    }
    /* "Not under this subject" may change (it may be registered there later). */
    if (*version > 0) {
        pthread_mutex_lock(&c->lock);
        hmap_put(&c->id_versions, key.data, key.len, (void *)(intptr_t)(*version + 1));
        pthread_mutex_unlock(&c->lock);
    }
    rc = 0;
out:
    json_decref(doc);
    strbuf_free(&key);
    return rc;
}

/* POST a schema to path: the "id" of the reply. */
static int client_post_schema(srclient_t *c, const char *path, srclient_type_t type, const char *text,
                              int *id, srclient_error_t *err)
{
    static const char *const names[] = {"AVRO", "PROTOBUF", "JSON"};
    json_t *req = json_pack("{s:s, s:s}", "schema", text, "schemaType", names[type]);
    char *body = json_dumps(req, JSON_COMPACT);
    json_decref(req);
    if (!body)
        base_oom(0);
    int status;
    json_t *doc = client_request(c, path, body, &status, err);
    free(body);
    if (!doc)
        return -1;
    int rc = -1;
    json_t *jid = json_object_get(doc, "id");
    if (status != 200 || !json_is_integer(jid))
        client_reply_error(doc, status, err);
    else {
        *id = (int)json_integer_value(jid);
        rc = 0;
    }
    json_decref(doc);
    return rc;
}

int srclient_register(srclient_t *c, const char *subject, srclient_type_t type, const char *text, int *id,
                      srclient_error_t *err)
{
    char *esc = srclient_escape(subject);
    char *path = xasprintf("/subjects/%s/versions", esc);
    free(esc);
    int rc = client_post_schema(c, path, type, text, id, err);
    free(path);
    return rc;
}

int srclient_lookup(srclient_t *c, const char *subject, srclient_type_t type, const char *text, int *id,
                    srclient_error_t *err)
{
    char *esc = srclient_escape(subject);
    char *path = xasprintf("/subjects/%s", esc);
    free(esc);
    int rc = client_post_schema(c, path, type, text, id, err);
    free(path);
    return rc;
}

/* ---- 6. Any GET ---------------------------------------------------------------- */

int srclient_get_json(srclient_t *c, const char *path, json_t **out, srclient_error_t *err)
{
    *out = NULL;
    int status;
    json_t *doc = client_request(c, path, NULL, &status, err);
    if (!doc)
        return -1;
    if (status != 200) {
        client_reply_error(doc, status, err);
        json_decref(doc);
        return -1;
    }
    *out = doc;
    return 0;
}
