/*
 * fetch: the source registry's REST API walked into _schemas records
 * (cmd/fetch.h).
 *
 * Contents
 *   1. Requests: one GET, its failure as one line; listings page by page
 *   2. Records: SCHEMA, CONFIG, MODE
 *   3. The walk
 *
 * Why _schemas records: they are Confluent's own plain form of every fact
 * the REST API shows (KafkaStoreMessageHandler applies them), and the
 * importer already reads them from a dump; building them here keeps one
 * reader, one model and one write path for the dump and the URL.
 */
#include "cmd/fetch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "client/client.h"

/* ---- 1. Requests ---------------------------------------------------------------- */

typedef struct fetch_walk {
    srclient_t *client;
    const char *url;
    cmd_fetch_emit_t emit;
    void *arg;
    char *error;
    long records;
} fetch_walk_t;

/* GET path: 0 and *out; 1 when the registry answers `absent` (an error_code
 * saying the scope has nothing set); -1 with w->error. */
static int fetch_get_(fetch_walk_t *w, const char *path, int absent, json_t **out)
{
    srclient_error_t err = {0};
    if (srclient_get_json(w->client, path, out, &err) == 0)
        return 0;
    if (absent && err.code == absent)
        return 1;
    if (err.status == 401)
        w->error = xasprintf("%s%s: HTTP 401: %s (wrong or missing --basic-auth credentials)", w->url, path,
                             err.message);
    else if (err.status)
        w->error = xasprintf("%s%s: HTTP %d: %s", w->url, path, err.status, err.message);
    else
        w->error = xstrdup(err.message);
    return -1;
}

static int fetch_bad_(fetch_walk_t *w, const char *path, const char *what)
{
    w->error = xasprintf("%s%s: the reply is not %s", w->url, path, what);
    return -1;
}

/*
 * A listing (GET /contexts, GET /subjects) page by page: a registry may cap
 * one answer (Confluent's context.search.max.limit and
 * subject.search.max.limit), so offset moves on until a page is empty. A
 * registry that ignores offset answers the first page again, which ends it
 * too (names in a listing are distinct). absent as for fetch_get_.
 */
static int fetch_list_(fetch_walk_t *w, const char *path, int absent, json_t **out)
{
    *out = NULL;
    json_t *all = json_array();
    for (size_t offset = 0;;) {
        char *page_path =
            offset ? xasprintf("%s%coffset=%zu", path, strchr(path, '?') ? '&' : '?', offset) : xstrdup(path);
        json_t *page = NULL;
        int rc = fetch_get_(w, page_path, offset ? 0 : absent, &page);
        if (rc == 0 && !json_is_array(page))
            rc = fetch_bad_(w, page_path, "an array");
        free(page_path);
        if (rc != 0) {
            json_decref(all);
            return rc;
        }
        size_t n = json_array_size(page);
        int again = offset > 0 && n > 0 && json_equal(json_array_get(page, 0), json_array_get(all, 0));
        if (n == 0 || again) {
            json_decref(page);
            *out = all;
            return 0;
        }
        json_array_extend(all, page);
        json_decref(page);
        offset += n;
    }
}

/* ---- 2. Records --------------------------------------------------------------------- */

static int fetch_emit_(fetch_walk_t *w, json_t *key, json_t *value)
{
    int rc = w->emit(w->arg, key, value, &w->error);
    json_decref(key);
    json_decref(value);
    if (rc == 0)
        w->records++;
    return rc == 0 ? 0 : -1;
}

/* CONFIG and MODE of one scope (NULL = global, ":.ctx:" a context). */
static int fetch_settings_(fetch_walk_t *w, const char *scope)
{
    char *esc = scope ? srclient_escape(scope) : NULL;
    for (int is_mode = 0; is_mode < 2; is_mode++) {
        char *path = esc ? xasprintf("/%s/%s", is_mode ? "mode" : "config", esc)
                         : xstrdup(is_mode ? "/mode" : "/config");
        json_t *doc = NULL;
        /* Without defaultToGlobal a subject or context with nothing of its own
         * is 40408 / 40409 (ConfigResource, ModeResource). */
        int rc = fetch_get_(w, path, is_mode ? 40409 : 40408, &doc);
        if (rc == 0 && !json_is_object(doc))
            rc = fetch_bad_(w, path, "a JSON object");
        if (rc == 0 && is_mode && !json_is_string(json_object_get(doc, "mode")))
            rc = fetch_bad_(w, path, "a mode");
        if (rc == 0 && !scope) {
            /* What a registry with nothing set answers: not carried, since
             * REST cannot tell it from a setting equal to the default. */
            const char *mode = json_string_value(json_object_get(doc, "mode"));
            json_t *dflt = json_pack("{s:s}", "compatibilityLevel", "BACKWARD");
            if (is_mode ? strcmp(mode, "READWRITE") == 0 : json_equal(doc, dflt))
                rc = 1;
            json_decref(dflt);
        }
        if (rc == 0) {
            json_t *key = json_pack("{s:s, s:o, s:i}", "keytype", is_mode ? "MODE" : "CONFIG", "subject",
                                    scope ? json_string(scope) : json_null(), "magic", 0);
            rc = fetch_emit_(w, key, json_incref(doc));
        }
        json_decref(doc);
        free(path);
        if (rc < 0) {
            free(esc);
            return -1;
        }
    }
    free(esc);
    return 0;
}

/* Every version of one subject, soft-deleted ones flagged. */
static int fetch_subject_(fetch_walk_t *w, const char *subject)
{
    char *esc = srclient_escape(subject);
    char *all_path = xasprintf("/subjects/%s/versions?deleted=true", esc);
    char *live_path = xasprintf("/subjects/%s/versions", esc);
    json_t *all = NULL, *live = NULL;
    int rc = fetch_get_(w, all_path, 0, &all);
    if (rc == 0 && !json_is_array(all))
        rc = fetch_bad_(w, all_path, "an array of versions");
    /* 40401: every version is soft-deleted. */
    if (rc == 0 && (rc = fetch_get_(w, live_path, 40401, &live)) == 1)
        rc = 0, live = json_array();
    if (rc == 0 && !json_is_array(live))
        rc = fetch_bad_(w, live_path, "an array of versions");
    size_t i;
    json_t *jv;
    json_array_foreach(rc == 0 ? all : NULL, i, jv)
    {
        if (!json_is_integer(jv)) {
            rc = fetch_bad_(w, all_path, "an array of versions");
            break;
        }
        int version = (int)json_integer_value(jv), deleted = 1;
        size_t k;
        json_t *lv;
        json_array_foreach(live, k, lv)
        {
            if (json_is_integer(lv) && json_integer_value(lv) == version)
                deleted = 0;
        }
        char *path = xasprintf("/subjects/%s/versions/%d?deleted=true", esc, version);
        json_t *doc = NULL;
        if ((rc = fetch_get_(w, path, 0, &doc)) == 0 && !json_is_object(doc))
            rc = fetch_bad_(w, path, "a version");
        if (rc == 0) {
            /* The SchemaValue: the reply's fields (id, schemaType,
             * references, metadata, schema) under the subject as listed. */
            json_t *value = json_object();
            static const char *const fields[] = {"id", "schemaType", "schema", "references", "metadata"};
            for (size_t f = 0; f < sizeof fields / sizeof *fields; f++) {
                json_t *v = json_object_get(doc, fields[f]);
                if (v)
                    json_object_set(value, fields[f], v);
            }
            json_object_set_new(value, "subject", json_string(subject));
            json_object_set_new(value, "version", json_integer(version));
            json_object_set_new(value, "deleted", json_boolean(deleted));
            json_t *key = json_pack("{s:s, s:s, s:i, s:i}", "keytype", "SCHEMA", "subject", subject,
                                    "version", version, "magic", 1);
            rc = fetch_emit_(w, key, value);
        }
        json_decref(doc);
        free(path);
        if (rc != 0)
            break;
    }
    json_decref(all);
    json_decref(live);
    free(all_path);
    free(live_path);
    free(esc);
    return rc == 0 && fetch_settings_(w, subject) == 0 ? 0 : -1;
}

/* ---- 3. The walk ------------------------------------------------------------------------ */

static int fetch_cmp_(const void *a, const void *b)
{
    return strcmp(json_string_value(*(json_t *const *)a), json_string_value(*(json_t *const *)b));
}

/* The strings of an array, sorted (the walk's order is the source's, fixed). */
static json_t **fetch_names_(json_t *array, size_t *n)
{
    json_t **out = xcalloc(json_array_size(array) + 1, sizeof *out);
    size_t i;
    json_t *v;
    *n = 0;
    json_array_foreach(array, i, v)
    {
        if (json_is_string(v))
            out[(*n)++] = v;
    }
    qsort(out, *n, sizeof *out, fetch_cmp_);
    return out;
}

long cmd_fetch_registry(const cmd_fetch_options_t *opts, cmd_fetch_emit_t emit, void *arg, char **error)
{
    srclient_options_t co = {0};
    co.url = opts->url;
    co.basic_auth = opts->basic_auth;
    co.ca_file = opts->ca_file;
    co.cert_file = opts->cert_file;
    co.key_file = opts->key_file;
    co.latest_ttl_ms = -1;
    fetch_walk_t w = {0};
    w.client = srclient_new(&co, error);
    if (!w.client)
        return -1;
    w.url = opts->url;
    w.emit = emit;
    w.arg = arg;
    json_t *contexts = NULL, *subjects = NULL;
    json_t **names = NULL, **ctxs = NULL;
    size_t nnames = 0, nctxs = 0;
    /* A registry older than contexts (Confluent < 7.0) has no /contexts:
     * its only context is the default one. */
    int rc = fetch_list_(&w, "/contexts", 40401, &contexts);
    if (rc == -1 && strstr(w.error, "HTTP 404:")) {
        free(w.error);
        w.error = NULL;
        rc = 1;
    }
    if (rc == 1)
        rc = 0, contexts = json_array();
    if (rc == 0)
        rc = fetch_list_(&w, "/subjects?subjectPrefix=%3A%2A%3A&deleted=true", 0, &subjects);
    if (rc == 0) {
        names = fetch_names_(subjects, &nnames);
        ctxs = fetch_names_(contexts, &nctxs);
    }
    for (size_t i = 0; rc == 0 && i < nnames; i++)
        rc = fetch_subject_(&w, json_string_value(names[i]));
    for (size_t i = 0; rc == 0 && i < nctxs; i++) {
        const char *c = json_string_value(ctxs[i]);
        if (strcmp(c, ".") == 0)
            continue; /* the default context's scope is the global one */
        char *scope = xasprintf(":%s:", c);
        rc = fetch_settings_(&w, scope);
        free(scope);
    }
    if (rc == 0)
        rc = fetch_settings_(&w, NULL);
    free(names);
    free(ctxs);
    json_decref(contexts);
    json_decref(subjects);
    srclient_free(w.client);
    if (rc != 0) {
        *error = w.error ? w.error : xstrdup("the walk failed");
        return -1;
    }
    return w.records;
}
