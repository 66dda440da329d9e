/*
 * cmd_export: `schema-registry export` (server/cmd_transfer.h; the format is
 * in docs/operations.md, "Export and import").
 *
 * Contents
 *   1. Lines
 *   2. Records
 *   3. The command
 *
 * The export is what the database holds, read in one snapshot
 * (store_load_all), not what a node's index holds: a node may lag its
 * database by a feed interval. Everything is sorted here, by bytes, and every
 * object is written with sorted keys, so two exports of equal registries are
 * byte-identical whatever order PostgreSQL returned the rows in. Timestamps
 * are left out for the same reason: an import cannot keep them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/hmap.h"
#include "base/log.h"
#include "registry/context.h"
#include "server/cmd_transfer.h"
#include "store/store.h"

/* ---- 1. Lines ------------------------------------------------------------------ */

/* One object as one line; takes o. -1 when the stream failed. */
static int export_line_(FILE *out, json_t *o)
{
    char *text = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(o);
    if (!text)
        return -1;
    int rc = fputs(text, out) < 0 || fputc('\n', out) == EOF ? -1 : 0;
    free(text);
    return rc;
}

/* The schema's GUID as GET /schemas/guids/{guid} takes it: its identity key. */
static json_t *export_guid_(const reg_schema_t *s)
{
    const unsigned char *k = s->key;
    char g[37];
    snprintf(g, sizeof g, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", k[0], k[1],
             k[2], k[3], k[4], k[5], k[6], k[7], k[8], k[9], k[10], k[11], k[12], k[13], k[14], k[15]);
    return json_string(g);
}

/* ---- 2. Records ------------------------------------------------------------------ */

static json_t *export_schema_(const reg_schema_t *s)
{
    json_t *refs = json_array();
    for (size_t i = 0; i < s->nrefs; i++)
        json_array_append_new(refs, json_pack("{s:s, s:s, s:i}", "name", s->refs[i].name, "subject",
                                              s->refs[i].subject, "version", s->refs[i].version));
    json_t *o = json_pack("{s:s, s:s, s:i, s:s, s:s%, s:o, s:o}", "kind", "schema", "context", s->context,
                          "id", s->id, "schemaType", schema_type_name(s->type), "schema", s->text,
                          s->text_len, "references", refs, "guid", export_guid_(s));
    if (s->metadata)
        json_object_set_new(o, "metadata", json_deep_copy(s->metadata));
    return o;
}

static json_t *export_scope_(const char *kind, const char *subject, const char *key, json_t *value)
{
    json_t *o = json_pack("{s:s, s:o}", "kind", kind, key, value);
    json_object_set_new(o, "subject", subject ? json_string(subject) : json_null());
    return o;
}

static int export_cmp_schema_(const void *a, const void *b)
{
    const reg_schema_t *x = *(reg_schema_t *const *)a, *y = *(reg_schema_t *const *)b;
    int c = strcmp(x->context, y->context);
    return c ? c : (x->id > y->id) - (x->id < y->id);
}

static int export_cmp_subject_(const void *a, const void *b)
{
    return strcmp((*(reg_subject_t *const *)a)->name, (*(reg_subject_t *const *)b)->name);
}

/* The (context, id) key of a schema row, as the versions of a subject use it. */
static size_t export_key_(char *buf, size_t cap, const char *context, int id)
{
    int n = snprintf(buf, cap, "%d %s", id, context);
    return n < 0 || (size_t)n >= cap ? cap - 1 : (size_t)n;
}

/* Writes the snapshot's records; -1 when the stream failed. Only schema rows
 * some version uses are written: a row whose versions were all hard-deleted
 * is answered by no REST call and cannot be imported (nothing refers to it). */
static int export_write_(FILE *out, store_snapshot_t *snap, const strlist_t *contexts)
{
    int rc = export_line_(out, json_pack("{s:s, s:s, s:i}", "kind", "header", "format", CMD_EXPORT_FORMAT,
                                         "version", CMD_EXPORT_VERSION));
    for (size_t i = 0; rc == 0 && i < contexts->n; i++)
        rc = export_line_(out, json_pack("{s:s, s:s}", "kind", "context", "context", contexts->items[i]));

    qsort(snap->subjects, snap->nsubjects, sizeof *snap->subjects, export_cmp_subject_);
    qsort(snap->schemas, snap->nschemas, sizeof *snap->schemas, export_cmp_schema_);
    hmap_t used = {0};
    char key[512];
    for (size_t i = 0; i < snap->nsubjects; i++) {
        const reg_subject_t *subj = snap->subjects[i];
        char *ctx = NULL;
        for (size_t j = 0; j < subj->n; j++) {
            if (!ctx)
                ctx = reg_context_copy(subj->name);
            hmap_put(&used, key, export_key_(key, sizeof key, ctx, subj->v[j].schema_id), key);
        }
        free(ctx);
    }
    for (size_t i = 0; rc == 0 && i < snap->nschemas; i++) {
        const reg_schema_t *s = snap->schemas[i];
        if (hmap_contains(&used, key, export_key_(key, sizeof key, s->context, s->id)))
            rc = export_line_(out, export_schema_(s));
    }
    hmap_clear(&used);

    for (size_t i = 0; rc == 0 && i < snap->nsubjects; i++) {
        const reg_subject_t *subj = snap->subjects[i];
        for (size_t j = 0; rc == 0 && j < subj->n; j++)
            rc = export_line_(out, json_pack("{s:s, s:s, s:i, s:i, s:b}", "kind", "version", "subject",
                                             subj->name, "version", subj->v[j].version, "id",
                                             subj->v[j].schema_id, "deleted", subj->v[j].deleted));
    }
    if (rc == 0 && snap->global_config)
        rc = export_line_(out, export_scope_("config", NULL, "config", json_deep_copy(snap->global_config)));
    for (size_t i = 0; rc == 0 && i < snap->nsubjects; i++)
        if (snap->subjects[i]->config)
            rc = export_line_(out, export_scope_("config", snap->subjects[i]->name, "config",
                                                 json_deep_copy(snap->subjects[i]->config)));
    if (rc == 0 && snap->global_mode)
        rc = export_line_(out, export_scope_("mode", NULL, "mode", json_string(snap->global_mode)));
    for (size_t i = 0; rc == 0 && i < snap->nsubjects; i++)
        if (snap->subjects[i]->mode)
            rc = export_line_(out, export_scope_("mode", snap->subjects[i]->name, "mode",
                                                 json_string(snap->subjects[i]->mode)));
    return rc;
}

/* ---- 3. The command ------------------------------------------------------------------ */

int cmd_export(store_t *db, const char *output)
{
    store_snapshot_t snap;
    strlist_t contexts = {0};
    store_rc_t src = store_load_all(db, &snap);
    if (src == STORE_OK && (src = store_contexts(db, &contexts)) != STORE_OK)
        store_snapshot_free(&snap);
    if (src != STORE_OK) {
        fprintf(stderr, "schema-registry export: %s\n", store_error(db));
        strlist_clear(&contexts);
        return 1;
    }
    int to_file = output && strcmp(output, "-") != 0;
    char *partial = to_file ? xasprintf("%s.partial", output) : NULL;
    FILE *out = to_file ? fopen(partial, "w") : stdout;
    int rc = 1;
    if (!out) {
        fprintf(stderr, "schema-registry export: cannot write %s: %s\n", partial, strerror(errno));
    } else {
        int wrc = export_write_(out, &snap, &contexts);
        if (fflush(out) != 0 || ferror(out))
            wrc = -1;
        if (to_file && fclose(out) != 0)
            wrc = -1;
        if (wrc != 0)
            fprintf(stderr, "schema-registry export: cannot write %s: %s\n", to_file ? partial : "stdout",
                    strerror(errno));
        else if (to_file && rename(partial, output) != 0)
            fprintf(stderr, "schema-registry export: cannot rename %s to %s: %s\n", partial, output,
                    strerror(errno));
        else
            rc = 0;
        if (rc != 0 && to_file)
            unlink(partial);
    }
    if (rc == 0) {
        size_t versions = 0;
        for (size_t i = 0; i < snap.nsubjects; i++)
            versions += snap.subjects[i]->n;
        log_info("export: %zu versions, %zu scopes%s%s", versions, snap.nsubjects, to_file ? " to " : "",
                 to_file ? output : "");
    }
    free(partial);
    strlist_clear(&contexts);
    store_snapshot_free(&snap);
    return rc;
}
