/*
 * cmd_import: `schema-registry import [FILE | --from-url URL]`
 * (server/cmd_transfer.h, docs/operations.md "Export and import").
 *
 * Contents
 *   1. The model: what the input says the registry holds
 *   2. Reading an export (JSON lines of cmd_export.c)
 *   3. Reading a dump of Confluent's _schemas topic
 *   4. Reading the input: a file, or a running registry (cmd/fetch.h)
 *   5. Progress and summary
 *   6. Applying the model
 *   7. The command
 *
 * The whole input is read into a model of the final state first (a dump is a
 * log: later records replace earlier ones, tombstones remove), so a bad line
 * stops the command before anything is written. Then the model is compared
 * with the target, record by record, and only what differs is written,
 * through the registry's own operations: registrations in IMPORT mode with
 * the record's id and version (registry/write.c checks that the id is not
 * bound to other content, in the same transaction that writes), soft
 * deletes, config and mode updates. That makes a second run a no-op and an
 * interrupted run resumable: whatever was written is found present.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/hmap.h"
#include "base/log.h"
#include "base/vec.h"
#include "registry/context.h"
#include "server/cmd_transfer.h"
#include "server/request_id.h"
#include "store/store.h"

/* ---- 1. The model ---------------------------------------------------------------- */

typedef struct imp_schema {
    char *context; /* "." or ".ctx" */
    int id;
    char *type; /* NULL = AVRO */
    char *text;
    size_t text_len;
    reg_ref_t *refs;
    size_t nrefs;
    json_t *metadata; /* canonical (registry_metadata_read); NULL = none */
} imp_schema_t;

enum { IMP_PENDING, IMP_PRESENT, IMP_DONE, IMP_REFUSED };

typedef struct imp_version {
    int version;
    int id;
    int deleted;
    int state;     /* IMP_* */
    int to_delete; /* soft-delete in the target after the registrations */
} imp_version_t;

typedef struct imp_subject {
    char *name;
    VEC(imp_version_t) v;
} imp_subject_t;

/* A settings scope: NULL subject = global, ":.ctx:" = a context. op: 0 the
 * input says nothing, 1 set to the value, -1 delete. */
typedef struct imp_scope {
    char *subject;
    int config_op;
    json_t *config;
    int mode_op;
    char *mode;
} imp_scope_t;

typedef struct imp_model {
    hmap_t schemas;  /* "id context" -> imp_schema_t */
    hmap_t subjects; /* name -> imp_subject_t */
    hmap_t scopes;   /* "G" global, "S" + subject -> imp_scope_t */
    int confluent;   /* the input is a _schemas dump */
    size_t records;
    size_t skipped; /* records of no consequence here (NOOP, CONTEXT, ...) */
} imp_model_t;

static void imp_schema_free_(imp_schema_t *s)
{
    for (size_t i = 0; i < s->nrefs; i++) {
        free(s->refs[i].name);
        free(s->refs[i].subject);
    }
    free(s->refs);
    free(s->context);
    free(s->type);
    free(s->text);
    json_decref(s->metadata);
    free(s);
}

static void imp_model_clear_(imp_model_t *m)
{
    for (size_t i = 0; i < m->schemas.cap; i++)
        if (hmap_live(&m->schemas, i))
            imp_schema_free_(m->schemas.slots[i].value);
    for (size_t i = 0; i < m->subjects.cap; i++)
        if (hmap_live(&m->subjects, i)) {
            imp_subject_t *s = m->subjects.slots[i].value;
            VEC_FREE(&s->v);
            free(s->name);
            free(s);
        }
    for (size_t i = 0; i < m->scopes.cap; i++)
        if (hmap_live(&m->scopes, i)) {
            imp_scope_t *s = m->scopes.slots[i].value;
            json_decref(s->config);
            free(s->mode);
            free(s->subject);
            free(s);
        }
    hmap_clear(&m->schemas);
    hmap_clear(&m->subjects);
    hmap_clear(&m->scopes);
}

static char *imp_schema_key_(const char *context, int id)
{
    return xasprintf("%d %s", id, context);
}

static imp_schema_t *imp_schema_get_(imp_model_t *m, const char *context, int id)
{
    char *key = imp_schema_key_(context, id);
    imp_schema_t *s = hmap_get(&m->schemas, key, strlen(key));
    free(key);
    return s;
}

/* Keeps s as the content of (s->context, s->id), replacing an earlier one. */
static void imp_schema_put_(imp_model_t *m, imp_schema_t *s)
{
    char *key = imp_schema_key_(s->context, s->id);
    imp_schema_t *old = hmap_put(&m->schemas, key, strlen(key), s);
    free(key);
    if (old)
        imp_schema_free_(old);
}

static imp_subject_t *imp_subject_(imp_model_t *m, const char *name)
{
    imp_subject_t *s = hmap_get(&m->subjects, name, strlen(name));
    if (!s) {
        s = xcalloc(1, sizeof *s);
        s->name = xstrdup(name);
        hmap_put(&m->subjects, name, strlen(name), s);
    }
    return s;
}

static imp_version_t *imp_version_find_(imp_subject_t *s, int version)
{
    for (size_t i = 0; i < s->v.n; i++)
        if (s->v.items[i].version == version)
            return &s->v.items[i];
    return NULL;
}

static void imp_version_put_(imp_model_t *m, const char *subject, int version, int id, int deleted)
{
    imp_subject_t *s = imp_subject_(m, subject);
    imp_version_t *v = imp_version_find_(s, version);
    if (!v) {
        imp_version_t nv = {version, id, deleted, IMP_PENDING, 0};
        VEC_PUSH(&s->v, nv);
        return;
    }
    v->id = id;
    v->deleted = deleted;
}

static void imp_version_remove_(imp_model_t *m, const char *subject, int version)
{
    imp_subject_t *s = hmap_get(&m->subjects, subject, strlen(subject));
    imp_version_t *v = s ? imp_version_find_(s, version) : NULL;
    if (v)
        *v = s->v.items[--s->v.n];
}

static imp_scope_t *imp_scope_(imp_model_t *m, const char *subject)
{
    char *key = subject ? xasprintf("S%s", subject) : xstrdup("G");
    imp_scope_t *s = hmap_get(&m->scopes, key, strlen(key));
    if (!s) {
        s = xcalloc(1, sizeof *s);
        s->subject = subject ? xstrdup(subject) : NULL;
        hmap_put(&m->scopes, key, strlen(key), s);
    }
    free(key);
    return s;
}

static void imp_scope_config_(imp_model_t *m, const char *subject, json_t *config)
{
    imp_scope_t *s = imp_scope_(m, subject);
    json_decref(s->config);
    s->config = config;
    s->config_op = config ? 1 : -1;
}

static void imp_scope_mode_(imp_model_t *m, const char *subject, const char *mode)
{
    imp_scope_t *s = imp_scope_(m, subject);
    free(s->mode);
    s->mode = mode ? xstrdup(mode) : NULL;
    s->mode_op = mode ? 1 : -1;
}

/* ---- 2. Reading an export -------------------------------------------------------------- */

/* The reasons a line is refused; *error malloc'd, -1. */
static int imp_bad_(char **error, const char *fmt, const char *what)
{
    *error = xasprintf(fmt, what);
    return -1;
}

/* A subject name as the registry stores it (QualifiedSubject.normalize);
 * "" (the default context's scope) is the global scope, NULL. malloc'd. */
static char *imp_subject_name_(const char *name)
{
    if (!name)
        return NULL;
    size_t n = strlen(name);
    char *copy = xmalloc(n + 2);
    memcpy(copy, name, n + 1);
    registry_subject_normalize(copy);
    if (copy[0] == '\0') {
        free(copy);
        return NULL;
    }
    return copy;
}

/* A schema row from an object holding schemaType, schema, references and
 * metadata (an export's schema record, a _schemas SchemaValue). */
static int imp_read_schema_(const json_t *o, const char *context, int id, imp_schema_t **out, char **error)
{
    *out = NULL;
    const json_t *text = json_object_get(o, "schema");
    const json_t *type = json_object_get(o, "schemaType");
    const json_t *refs = json_object_get(o, "references");
    const json_t *md = json_object_get(o, "metadata");
    if (!json_is_string(text))
        return imp_bad_(error, "%s has no \"schema\" string", "the record");
    if (type && !json_is_null(type) && !json_is_string(type))
        return imp_bad_(error, "%s has a \"schemaType\" that is not a string", "the record");
    if (refs && !json_is_null(refs) && !json_is_array(refs))
        return imp_bad_(error, "%s has \"references\" that are not an array", "the record");
    imp_schema_t *s = xcalloc(1, sizeof *s);
    s->context = xstrdup(context);
    s->id = id;
    s->type = json_is_string(type) ? xstrdup(json_string_value(type)) : NULL;
    s->text_len = json_string_length(text);
    s->text = xmalloc(s->text_len + 1);
    memcpy(s->text, json_string_value(text), s->text_len + 1);
    size_t n = json_is_array(refs) ? json_array_size(refs) : 0;
    s->refs = xcalloc(n + 1, sizeof *s->refs);
    for (size_t i = 0; i < n; i++) {
        const json_t *r = json_array_get(refs, i);
        const json_t *name = json_object_get(r, "name"), *subject = json_object_get(r, "subject");
        const json_t *version = json_object_get(r, "version");
        if (!json_is_string(name) || !json_is_string(subject) || !json_is_integer(version)) {
            imp_schema_free_(s);
            return imp_bad_(error, "%s has a reference without name, subject and version", "the record");
        }
        s->refs[i].name = xstrdup(json_string_value(name));
        s->refs[i].subject = xstrdup(json_string_value(subject));
        s->refs[i].version = (int)json_integer_value(version);
        s->nrefs++;
    }
    if (md && !json_is_null(md)) {
        reg_error_t err = {0};
        if (registry_metadata_read(md, &s->metadata, &err) != REG_OK) {
            imp_schema_free_(s);
            *error = xasprintf("the record's metadata: %s", err.message);
            return -1;
        }
    }
    *out = s;
    return 0;
}

static int imp_int_(const json_t *o, const char *key, int *out)
{
    const json_t *v = json_object_get(o, key);
    if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > INT32_MAX)
        return -1;
    *out = (int)json_integer_value(v);
    return 0;
}

/* The "subject" of a settings record: null (global) or a string. */
static int imp_scope_subject_(const json_t *o, char **out, char **error)
{
    const json_t *v = json_object_get(o, "subject");
    *out = NULL;
    if (v && !json_is_null(v) && !json_is_string(v))
        return imp_bad_(error, "%s has a \"subject\" that is neither null nor a string", "the record");
    *out = json_is_string(v) ? imp_subject_name_(json_string_value(v)) : NULL;
    return 0;
}

static int imp_export_record_(imp_model_t *m, const json_t *o, char **error)
{
    const char *kind = json_string_value(json_object_get(o, "kind"));
    if (!kind)
        return imp_bad_(error, "%s has no \"kind\"", "the record");
    if (strcmp(kind, "header") == 0) {
        const char *format = json_string_value(json_object_get(o, "format"));
        int version = 0;
        if (!format || strcmp(format, CMD_EXPORT_FORMAT) != 0 || imp_int_(o, "version", &version) != 0 ||
            version != CMD_EXPORT_VERSION)
            return imp_bad_(error, "a header of another format or version (this one reads %s version 1)",
                            CMD_EXPORT_FORMAT);
        return 0;
    }
    if (strcmp(kind, "context") == 0) {
        m->skipped++; /* a context exists through its subjects */
        return 0;
    }
    if (strcmp(kind, "schema") == 0) {
        const char *context = json_string_value(json_object_get(o, "context"));
        int id;
        imp_schema_t *s;
        if (!context || imp_int_(o, "id", &id) != 0)
            return imp_bad_(error, "%s needs \"context\" and \"id\"", "a schema record");
        if (imp_read_schema_(o, context, id, &s, error) != 0)
            return -1;
        imp_schema_put_(m, s);
        return 0;
    }
    if (strcmp(kind, "version") == 0) {
        const char *subject = json_string_value(json_object_get(o, "subject"));
        int version, id;
        const json_t *deleted = json_object_get(o, "deleted");
        if (!subject || imp_int_(o, "version", &version) != 0 || version < 1 || imp_int_(o, "id", &id) != 0 ||
            (deleted && !json_is_boolean(deleted)))
            return imp_bad_(error, "%s needs \"subject\", \"version\", \"id\" and a boolean \"deleted\"",
                            "a version record");
        imp_version_put_(m, subject, version, id, json_is_true(deleted));
        return 0;
    }
    if (strcmp(kind, "config") == 0 || strcmp(kind, "mode") == 0) {
        int is_config = kind[0] == 'c';
        const json_t *v = json_object_get(o, kind);
        if (is_config ? !json_is_object(v) : !json_is_string(v))
            return imp_bad_(error, "a %s record without its value", kind);
        char *subject;
        if (imp_scope_subject_(o, &subject, error) != 0)
            return -1;
        if (is_config)
            imp_scope_config_(m, subject, json_deep_copy(v));
        else
            imp_scope_mode_(m, subject, json_string_value(v));
        free(subject);
        return 0;
    }
    return imp_bad_(error, "unknown kind \"%s\"", kind);
}

/* ---- 3. Reading a _schemas dump ------------------------------------------------------------- */

/* The keys of Confluent's ConfigValue that a stored config keeps (the
 * registry's ConfigUpdate names; compatibilityLevel is "compatibility" here,
 * and rule sets are never stored: registry/settings.c). */
static const char *const imp_config_fields[] = {
    "normalize",     "validateFields", "alias",           "compatibilityGroup", "validateNewSchemas",
    "validateRules", "aliasForDeks",   "defaultMetadata", "overrideMetadata",   "compatibilityPolicy",
};

/* A ConfigValue as the registry stores it, so that comparing it with the
 * stored config tells whether the import has anything to write. */
static int imp_config_of_value_(const json_t *value, json_t **out, char **error)
{
    json_t *config = json_object();
    const json_t *level = json_object_get(value, "compatibilityLevel");
    if (json_is_string(level)) {
        compat_level_t l;
        if (compat_level_parse(json_string_value(level), &l) != 0) {
            json_decref(config);
            return imp_bad_(error, "unknown compatibilityLevel \"%s\"", json_string_value(level));
        }
        json_object_set_new(config, "compatibility", json_string(compat_level_name(l)));
    }
    for (size_t i = 0; i < sizeof imp_config_fields / sizeof *imp_config_fields; i++) {
        const char *field = imp_config_fields[i];
        const json_t *v = json_object_get(value, field);
        if (!v || json_is_null(v))
            continue;
        if (strcmp(field, "defaultMetadata") == 0 || strcmp(field, "overrideMetadata") == 0) {
            json_t *md = NULL;
            reg_error_t err = {0};
            if (registry_metadata_read(v, &md, &err) != REG_OK) {
                json_decref(config);
                *error = xasprintf("%s: %s", field, err.message);
                return -1;
            }
            if (md)
                json_object_set_new(config, field, md);
            continue;
        }
        if (strcmp(field, "compatibilityPolicy") == 0) {
            const char *p = json_string_value(v);
            if (p && (!strcasecmp(p, "LOGICAL") || !strcasecmp(p, "STRICT") || !strcasecmp(p, "LENIENT"))) {
                char up[8] = {0};
                for (size_t k = 0; p[k] && k < sizeof up - 1; k++)
                    up[k] = (char)(p[k] >= 'a' && p[k] <= 'z' ? p[k] - 32 : p[k]);
                json_object_set_new(config, field, json_string(up));
            }
            continue;
        }
        json_object_set(config, field, (json_t *)v);
    }
    *out = config;
    return 0;
}

/*
 * One record of the topic (KafkaStoreMessageHandler.handleUpdate and the
 * store under it): SCHEMA puts a version (deleted: soft-deleted) or, as a
 * tombstone, removes it (a hard delete); CONFIG and MODE put or, as
 * tombstones, remove a scope's setting; DELETE_SUBJECT soft-deletes every
 * version up to its value's version; CLEAR_SUBJECT removes the subject's
 * soft-deleted versions; NOOP, CONTEXT (a context exists through its
 * subjects here) and ASSOC (associations, which this registry does not have)
 * change nothing. value NULL = tombstone.
 */
static int imp_confluent_record_(imp_model_t *m, const json_t *key, const json_t *value, char **error)
{
    const char *type = json_string_value(json_object_get(key, "keytype"));
    if (!type)
        return imp_bad_(error, "%s has no \"keytype\"", "the key");
    const json_t *ks = json_object_get(key, "subject");
    if (strcmp(type, "NOOP") == 0 || strcmp(type, "CONTEXT") == 0 || strcmp(type, "ASSOC") == 0) {
        m->skipped++;
        return 0;
    }
    if (strcmp(type, "CONFIG") == 0 || strcmp(type, "MODE") == 0) {
        if (ks && !json_is_null(ks) && !json_is_string(ks))
            return imp_bad_(error, "%s has a subject that is not a string", "the key");
        char *subject = imp_subject_name_(json_string_value(ks));
        int rc = 0;
        if (type[0] == 'C') {
            json_t *config = NULL;
            rc = value ? imp_config_of_value_(value, &config, error) : 0;
            if (rc == 0)
                imp_scope_config_(m, subject, config);
        } else {
            const char *mode = value ? json_string_value(json_object_get(value, "mode")) : NULL;
            if (value && !mode)
                rc = imp_bad_(error, "%s has no \"mode\"", "a MODE value");
            else
                imp_scope_mode_(m, subject, mode);
        }
        free(subject);
        return rc;
    }
    int is_schema = strcmp(type, "SCHEMA") == 0;
    if (!is_schema && strcmp(type, "DELETE_SUBJECT") != 0 && strcmp(type, "CLEAR_SUBJECT") != 0)
        return imp_bad_(error, "unknown keytype \"%s\"", type);
    if (!is_schema && !value) {
        m->skipped++; /* handleUpdate ignores these tombstones */
        return 0;
    }
    const json_t *vs = value ? json_object_get(value, "subject") : NULL;
    const char *raw = json_string_value(vs) ? json_string_value(vs) : json_string_value(ks);
    if (!raw)
        return imp_bad_(error, "%s names no subject", "the record");
    char *subject = imp_subject_name_(raw);
    if (!subject)
        subject = xstrdup("");
    int rc = 0, version = 0, id = 0;
    if (is_schema && !value) {
        if (imp_int_(key, "version", &version) != 0)
            rc = imp_bad_(error, "%s has no version", "a SCHEMA key");
        else
            imp_version_remove_(m, subject, version);
    } else if (is_schema) {
        imp_schema_t *s = NULL;
        const json_t *deleted = json_object_get(value, "deleted");
        char *ctx = reg_context_copy(subject);
        if (imp_int_(value, "version", &version) != 0 || version < 1 || imp_int_(value, "id", &id) != 0)
            rc = imp_bad_(error, "%s needs \"version\" and \"id\"", "a SCHEMA value");
        else if ((rc = imp_read_schema_(value, ctx, id, &s, error)) == 0) {
            imp_schema_put_(m, s);
            imp_version_put_(m, subject, version, id, json_is_true(deleted));
        }
        free(ctx);
    } else if (type[0] == 'D') {
        if (imp_int_(value, "version", &version) != 0)
            rc = imp_bad_(error, "%s needs \"version\"", "a DELETE_SUBJECT value");
        imp_subject_t *s = hmap_get(&m->subjects, subject, strlen(subject));
        for (size_t i = 0; rc == 0 && s && i < s->v.n; i++)
            if (s->v.items[i].version <= version)
                s->v.items[i].deleted = 1;
    } else {
        imp_subject_t *s = hmap_get(&m->subjects, subject, strlen(subject));
        for (size_t i = s ? s->v.n : 0; i-- > 0;)
            if (s->v.items[i].deleted)
                s->v.items[i] = s->v.items[--s->v.n];
    }
    free(subject);
    return rc;
}

/* ---- 4. Reading the input ---------------------------------------------------------------- */

/* One line of a dump: KEY DELIMITER VALUE, the value empty or NULL for a
 * tombstone (kcat prints either, depending on its version and -Z). */
static int imp_dump_line_(imp_model_t *m, const char *line, size_t len, const char *delim, char **error)
{
    json_error_t jerr;
    json_t *key = json_loadb(line, len, JSON_DISABLE_EOF_CHECK, &jerr);
    if (!json_is_object(key)) {
        json_decref(key);
        *error = xasprintf("the key is not a JSON object: %s", key ? "" : jerr.text);
        return -1;
    }
    size_t at = (size_t)jerr.position, dlen = strlen(delim);
    /* With JSON_DISABLE_EOF_CHECK, position is where the key's JSON ended. */
    if (at + dlen > len || strncmp(line + at, delim, dlen) != 0) {
        json_decref(key);
        return imp_bad_(error, "no delimiter after the key (set it with --delimiter; it is %s)",
                        strcmp(delim, "\t") == 0 ? "a tab" : "what --delimiter says");
    }
    const char *v = line + at + dlen;
    size_t vlen = len - at - dlen;
    json_t *value = NULL;
    if (vlen != 0 && !(vlen == 4 && memcmp(v, "NULL", 4) == 0)) {
        value = json_loadb(v, vlen, 0, &jerr);
        if (!json_is_object(value)) {
            json_decref(key);
            json_decref(value);
            *error = xasprintf("the value is not a JSON object: %s", value ? "" : jerr.text);
            return -1;
        }
    }
    int rc = imp_confluent_record_(m, key, value, error);
    json_decref(key);
    json_decref(value);
    return rc;
}

static int imp_read_(FILE *in, const char *name, const char *delim, imp_model_t *m)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    long lineno = 0;
    int first = 1, rc = 0;
    while (rc == 0 && (got = getline(&line, &cap, in)) >= 0) {
        lineno++;
        size_t len = (size_t)got;
        while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
            len--;
        if (len == 0)
            continue;
        char *error = NULL;
        if (first) {
            /* An export starts with its header; anything else is a dump. */
            json_t *o = json_loadb(line, len, 0, NULL);
            const char *kind = json_string_value(json_object_get(o, "kind"));
            m->confluent = !(kind && strcmp(kind, "header") == 0);
            json_decref(o);
            first = 0;
        }
        if (m->confluent) {
            rc = imp_dump_line_(m, line, len, delim, &error);
        } else {
            json_error_t jerr;
            json_t *o = json_loadb(line, len, 0, &jerr);
            if (!json_is_object(o))
                error = xasprintf("not a JSON object: %s", o ? "" : jerr.text), rc = -1;
            else
                rc = imp_export_record_(m, o, &error);
            json_decref(o);
        }
        m->records++;
        if (rc != 0)
            fprintf(stderr, "schema-registry import: %s:%ld: %s; nothing was imported\n", name, lineno,
                    error);
        free(error);
    }
    if (rc == 0 && ferror(in)) {
        fprintf(stderr, "schema-registry import: cannot read %s: %s\n", name, strerror(errno));
        rc = -1;
    }
    free(line);
    return rc;
}

/* A record of the walk over a running registry: the same _schemas record
 * a dump holds, read by the same code. On a terminal the walk, which
 * writes nothing yet and may take a while, counts what it has read. */
static int imp_fetched_(void *arg, const json_t *key, const json_t *value, char **error)
{
    imp_model_t *m = arg;
    m->records++;
    if (isatty(STDERR_FILENO)) {
        fprintf(stderr, "\rfetch %zu records", m->records);
        fflush(stderr);
    }
    return imp_confluent_record_(m, key, value, error);
}

/* ---- 5. Progress and summary -------------------------------------------------------------- */

typedef struct imp_run {
    registry_t *reg;
    store_t *db;
    imp_model_t *m;
    size_t created, present, deleted, config, mode, refused;
    size_t total, done; /* writes planned and made, for the progress bar */
    int tty;            /* stderr is a terminal: draw the bar */
} imp_run_t;

/* Set by SIGINT or SIGTERM while the model is applied. A killed run would
 * leave the scopes it switched in IMPORT, and a rerun cannot tell that
 * IMPORT from one an operator set, so it would keep it: instead the record
 * being written finishes, nothing more is written, and the modes are put
 * back as after a failure. A second signal kills (SA_RESETHAND). */
static volatile sig_atomic_t imp_stop_;

static void imp_on_signal_(int sig)
{
    (void)sig;
    imp_stop_ = 1;
}

static void imp_progress_(imp_run_t *r)
{
    if (!r->tty || r->total == 0)
        return;
    int width = 40, fill = (int)(r->done * (size_t)width / r->total);
    fprintf(stderr, "\rimport [%.*s%*s] %zu/%zu", fill, "########################################",
            width - fill, "", r->done, r->total);
    if (r->done == r->total)
        fputc('\n', stderr);
    fflush(stderr);
}

static void imp_tick_(imp_run_t *r)
{
    r->done++;
    imp_progress_(r);
}

/* A refused record: said on stderr (after the bar's line), counted. */
static void imp_refuse_(imp_run_t *r, const char *what, const char *why)
{
    if (r->tty && r->total)
        fputc('\n', stderr);
    fprintf(stderr, "schema-registry import: refused %s: %s\n", what, why);
    r->refused++;
}

/* ---- 6. Applying the model ------------------------------------------------------------------ */

static int imp_cmp_subject_(const void *a, const void *b)
{
    return strcmp((*(imp_subject_t *const *)a)->name, (*(imp_subject_t *const *)b)->name);
}

static int imp_cmp_version_(const void *a, const void *b)
{
    const imp_version_t *x = a, *y = b;
    return (x->version > y->version) - (x->version < y->version);
}

static int imp_cmp_scope_(const void *a, const void *b)
{
    const imp_scope_t *x = *(imp_scope_t *const *)a, *y = *(imp_scope_t *const *)b;
    if (!x->subject || !y->subject)
        return !y->subject - !x->subject;
    return strcmp(x->subject, y->subject);
}

/* The values of a map, sorted (the caller frees the array, not the items). */
static void **imp_sorted_(const hmap_t *map, int (*cmp)(const void *, const void *), size_t *n)
{
    void **out = xcalloc(map->used + 1, sizeof *out);
    *n = 0;
    for (size_t i = 0; i < map->cap; i++)
        if (hmap_live(map, i))
            out[(*n)++] = map->slots[i].value;
    qsort(out, *n, sizeof *out, cmp);
    return out;
}

static reg_request_t imp_request_(const imp_schema_t *s, const imp_version_t *v)
{
    reg_request_t req = {0};
    req.schema = s->text;
    req.schema_len = s->text_len;
    req.schema_type = s->type;
    req.refs = s->refs;
    req.nrefs = s->nrefs;
    req.id = v->id;
    req.version = v->version;
    req.metadata = s->metadata;
    return req;
}

/* Compares one version of the input with the target: present (same id; the
 * content the same, or the target's lookup finds it there), pending (the
 * target lacks it) or refused (the target holds other content there). */
static void imp_plan_version_(imp_run_t *r, const imp_subject_t *subj, imp_version_t *v)
{
    char *ctx = reg_context_copy(subj->name);
    const imp_schema_t *s = imp_schema_get_(r->m, ctx, v->id);
    char what[600], vtext[16];
    snprintf(what, sizeof what, "subject %.500s version %d (id %d)", subj->name, v->version, v->id);
    snprintf(vtext, sizeof vtext, "%d", v->version);
    reg_view_t view = {0};
    reg_error_t err = {0};
    if (!s) {
        v->state = IMP_REFUSED;
        imp_refuse_(r, what, "the input has no schema with that id in the subject's context");
    } else if (registry_get_version(r->reg, subj->name, vtext, 1, &view, &err) != REG_OK) {
        v->state = IMP_PENDING;
        v->to_delete = v->deleted;
        reg_view_t bound = {0};
        /* An export's text is as the registry stores it, so other text under
         * the id is other content: refused here, before any mode is switched,
         * with the registry's own words (registry/write.c). A dump's text need
         * not be canonical; there the registration decides. */
        if (!r->m->confluent && registry_find_by_id(r->reg, v->id, subj->name, &bound) &&
            (bound.schema->text_len != s->text_len ||
             memcmp(bound.schema->text, s->text, s->text_len) != 0)) {
            char why[160];
            snprintf(why, sizeof why, "Overwrite new schema with id %d in context %s is not permitted.",
                     v->id, ctx);
            v->state = IMP_REFUSED;
            v->to_delete = 0;
            imp_refuse_(r, what, why);
        }
        reg_view_clear(&bound);
    } else if (view.id != v->id) {
        char why[128];
        snprintf(why, sizeof why, "the target has that version with schema id %d", view.id);
        v->state = IMP_REFUSED;
        imp_refuse_(r, what, why);
    } else {
        int same = view.schema->text_len == s->text_len &&
                   memcmp(view.schema->text, s->text, s->text_len) == 0 &&
                   strcmp(schema_type_name(view.schema->type), s->type ? s->type : "AVRO") == 0;
        if (!same) {
            /* Text as the source had it (a _schemas dump need not hold it
             * canonical): the target's own lookup decides. */
            reg_request_t req = imp_request_(s, v);
            req.id = -1;
            req.version = 0;
            reg_view_t found = {0};
            reg_error_t lerr = {0};
            same = registry_lookup(r->reg, r->db, subj->name, &req, 1, &found, &lerr) == REG_OK &&
                   found.id == v->id && found.version == v->version;
            reg_view_clear(&found);
        }
        if (!same) {
            v->state = IMP_REFUSED;
            imp_refuse_(r, what, "the target holds other content under that version and id");
        } else if (view.deleted && !v->deleted) {
            v->state = IMP_REFUSED;
            imp_refuse_(r, what, "it is soft-deleted in the target and live in the input");
        } else {
            v->state = IMP_PRESENT;
            v->to_delete = v->deleted && !view.deleted;
            r->present++;
        }
    }
    reg_view_clear(&view);
    free(ctx);
}

/* A scope whose mode the import changed, and what it was (NULL = none). */
typedef struct imp_touched {
    char *subject; /* NULL = global */
    char *previous;
} imp_touched_t;

typedef VEC(imp_touched_t) imp_touched_vec_t;

/* The mode stored at a scope itself (not inherited), malloc'd or NULL. */
static int imp_stored_(imp_run_t *r, const char *subject, char **mode, json_t **config)
{
    store_rc_t rc;
    json_t *cfg = NULL;
    char *md = NULL;
    if (!subject) {
        rc = store_load_global(r->db, &cfg, &md);
    } else {
        reg_subject_t *s = NULL;
        rc = store_load_subject(r->db, subject, &s);
        if (rc == STORE_OK) {
            cfg = s->config ? json_deep_copy(s->config) : NULL;
            md = s->mode ? xstrdup(s->mode) : NULL;
            reg_subject_free(s);
        }
    }
    if (rc != STORE_OK) {
        fprintf(stderr, "schema-registry import: %s\n", store_error(r->db));
        return -1;
    }
    if (mode)
        *mode = md;
    else
        free(md);
    if (config)
        *config = cfg;
    else
        json_decref(cfg);
    return 0;
}

/* Puts subject (NULL = global) in IMPORT mode unless it is in it already,
 * remembering what it had. Forced: a switch keeps soft-deleted versions
 * (registry_mode_set). */
static int imp_enter_import_(imp_run_t *r, const char *subject, imp_touched_vec_t *touched)
{
    char *effective = NULL;
    reg_error_t err = {0};
    if (registry_mode_get(r->reg, subject, 1, &effective, &err) == REG_OK &&
        strcmp(effective, "IMPORT") == 0) {
        free(effective);
        return 0;
    }
    free(effective);
    imp_touched_t t = {subject ? xstrdup(subject) : NULL, NULL};
    if (imp_stored_(r, subject, &t.previous, NULL) != 0 ||
        registry_mode_set(r->reg, r->db, subject, "IMPORT", 1, &err) != REG_OK) {
        if (err.code)
            fprintf(stderr, "schema-registry import: cannot put %s in IMPORT mode: %s\n",
                    subject ? subject : "the registry", err.message);
        free(t.subject);
        free(t.previous);
        return -1;
    }
    VEC_PUSH(touched, t);
    return 0;
}

/* One pending registration. final: this is its last chance, so any failure
 * refuses it; otherwise only 42205 does (the id or the version is bound to
 * other content) and the rest waits for the next pass. 1 when it settled. */
static int imp_register_one_(imp_run_t *r, const imp_subject_t *subj, const char *ctx, imp_version_t *v,
                             int final)
{
    reg_request_t req = imp_request_(imp_schema_get_(r->m, ctx, v->id), v);
    reg_error_t err = {0};
    reg_code_t rc = registry_register(r->reg, r->db, subj->name, &req, NULL, &err);
    if (rc == REG_OK) {
        v->state = IMP_DONE;
        r->created++;
    } else if (rc == REG_OPERATION_NOT_PERMITTED || final) {
        char what[600];
        snprintf(what, sizeof what, "subject %.500s version %d (id %d)", subj->name, v->version, v->id);
        v->state = IMP_REFUSED;
        v->to_delete = 0;
        imp_refuse_(r, what, err.message);
    } else {
        return 0;
    }
    imp_tick_(r);
    return 1;
}

/* Registers the pending versions in passes: a version whose references the
 * target does not hold yet (they come later in the input's order) is tried
 * again after the others, as long as a pass settles something; a last pass
 * then gives the remaining ones their errors. */
static void imp_register_(imp_run_t *r, imp_subject_t **subjects, size_t nsubjects)
{
    for (int final = 0;;) {
        int settled = 0, left = 0;
        for (size_t i = 0; i < nsubjects; i++) {
            char *ctx = reg_context_copy(subjects[i]->name);
            for (size_t j = 0; j < subjects[i]->v.n; j++) {
                imp_version_t *v = &subjects[i]->v.items[j];
                if (imp_stop_)
                    break;
                if (v->state != IMP_PENDING)
                    continue;
                int done = imp_register_one_(r, subjects[i], ctx, v, final);
                settled |= done;
                left |= !done;
            }
            free(ctx);
            if (imp_stop_)
                return;
        }
        if (!left || final)
            return;
        final = !settled;
    }
}

/* Soft-deletes what the input has deleted, in passes too: a version that a
 * deleted version refers to can only go after its referrer. */
static void imp_delete_(imp_run_t *r, imp_subject_t **subjects, size_t nsubjects)
{
    for (int progress = 1, last = 0; progress || !last;) {
        last = !progress;
        progress = 0;
        for (size_t i = 0; i < nsubjects; i++) {
            for (size_t j = 0; j < subjects[i]->v.n; j++) {
                imp_version_t *v = &subjects[i]->v.items[j];
                if (imp_stop_)
                    return;
                if (!v->to_delete)
                    continue;
                char vtext[16];
                snprintf(vtext, sizeof vtext, "%d", v->version);
                int got;
                reg_error_t err = {0};
                if (registry_delete_version(r->reg, r->db, subjects[i]->name, vtext, 0, &got, &err) ==
                    REG_OK) {
                    v->to_delete = 0;
                    r->deleted++;
                    progress = 1;
                    imp_tick_(r);
                } else if (last) {
                    char what[600];
                    snprintf(what, sizeof what, "deleting subject %.500s version %d", subjects[i]->name,
                             v->version);
                    v->to_delete = 0;
                    imp_refuse_(r, what, err.message);
                    imp_tick_(r);
                }
            }
        }
        if (last)
            break;
    }
}

static const char *imp_scope_name_(const char *subject)
{
    return subject ? subject : "the global scope";
}

/* Makes a scope's stored config what the input says (keys the input lacks
 * are cleared: a config update is partial). */
static void imp_config_(imp_run_t *r, const imp_scope_t *sc)
{
    json_t *current = NULL;
    if (imp_stored_(r, sc->subject, NULL, &current) != 0) {
        r->refused++;
        return;
    }
    reg_error_t err = {0};
    reg_code_t rc = REG_OK;
    int write = sc->config_op > 0 ? !current || !json_equal(current, sc->config) : current != NULL;
    if (write && sc->config_op > 0) {
        json_t *update = json_deep_copy(sc->config), *out = NULL;
        const char *k;
        json_t *v;
        /* A config update is partial: what the input lacks is cleared. */
        json_object_foreach(current, k, v)
        {
            if (!json_object_get(update, k))
                json_object_set_new(update, k, json_null());
        }
        rc = registry_config_set(r->reg, r->db, sc->subject, update, &out, &err);
        json_decref(update);
        json_decref(out);
    } else if (write) {
        json_t *out = NULL;
        rc = registry_config_delete(r->reg, r->db, sc->subject, &out, &err);
        json_decref(out);
    }
    json_decref(current);
    if (!write)
        return;
    if (rc == REG_OK)
        r->config++;
    else {
        char what[600];
        snprintf(what, sizeof what, "the config of %.500s", imp_scope_name_(sc->subject));
        imp_refuse_(r, what, err.message);
    }
    imp_tick_(r);
}

/* Sets a scope's mode to mode (NULL = none) unless it is that already. 1 when it wrote. */
static int imp_mode_(imp_run_t *r, const char *subject, const char *mode)
{
    char *current = NULL;
    if (imp_stored_(r, subject, &current, NULL) != 0) {
        r->refused++;
        return 0;
    }
    int same = (!current && !mode) || (current && mode && strcasecmp(current, mode) == 0);
    free(current);
    if (same)
        return 0;
    reg_error_t err = {0};
    if (registry_mode_set(r->reg, r->db, subject, mode, 1, &err) != REG_OK) {
        char what[600];
        snprintf(what, sizeof what, "the mode of %.500s", imp_scope_name_(subject));
        imp_refuse_(r, what, err.message);
        return 0;
    }
    return 1;
}

static int imp_apply_(imp_run_t *r)
{
    size_t nsubjects, nscopes;
    imp_subject_t **subjects = (imp_subject_t **)imp_sorted_(&r->m->subjects, imp_cmp_subject_, &nsubjects);
    imp_scope_t **scopes = (imp_scope_t **)imp_sorted_(&r->m->scopes, imp_cmp_scope_, &nscopes);
    size_t pending = 0, deletes = 0;
    for (size_t i = 0; i < nsubjects; i++) {
        imp_subject_t *subj = subjects[i];
        qsort(subj->v.items, subj->v.n, sizeof *subj->v.items, imp_cmp_version_);
        for (size_t j = 0; j < subj->v.n; j++) {
            imp_plan_version_(r, subj, &subj->v.items[j]);
            pending += subj->v.items[j].state == IMP_PENDING;
            deletes += subj->v.items[j].to_delete;
        }
    }
    r->total = pending + deletes;
    for (size_t i = 0; i < nscopes; i++)
        r->total += (scopes[i]->config_op != 0) + (scopes[i]->mode_op != 0);

    imp_touched_vec_t touched = {0};
    int rc = 0;
    if (pending) {
        rc = imp_enter_import_(r, NULL, &touched);
        for (size_t i = 0; rc == 0 && i < nsubjects; i++)
            for (size_t j = 0; rc == 0 && j < subjects[i]->v.n; j++)
                if (subjects[i]->v.items[j].state == IMP_PENDING) {
                    rc = imp_enter_import_(r, subjects[i]->name, &touched);
                    break;
                }
    }
    if (rc == 0) {
        imp_register_(r, subjects, nsubjects);
        imp_delete_(r, subjects, nsubjects);
        for (size_t i = 0; i < nscopes && !imp_stop_; i++)
            if (scopes[i]->config_op)
                imp_config_(r, scopes[i]);
    }
    if (imp_stop_)
        rc = -1;
    /* Modes last: the input's where it has one, else what the scope had
     * before this run switched it to IMPORT. After a failure or a stop above,
     * what it had, even where the input has one (the input's are not set then). */
    for (size_t i = 0; i < touched.n; i++) {
        imp_scope_t *sc = NULL;
        for (size_t k = 0; k < nscopes && !sc; k++)
            if ((!scopes[k]->subject && !touched.items[i].subject) ||
                (scopes[k]->subject && touched.items[i].subject &&
                 strcmp(scopes[k]->subject, touched.items[i].subject) == 0))
                sc = scopes[k];
        if (!sc || !sc->mode_op || rc != 0)
            imp_mode_(r, touched.items[i].subject, touched.items[i].previous);
        free(touched.items[i].subject);
        free(touched.items[i].previous);
    }
    VEC_FREE(&touched);
    for (size_t i = 0; rc == 0 && i < nscopes; i++)
        if (scopes[i]->mode_op) {
            r->mode +=
                (size_t)imp_mode_(r, scopes[i]->subject, scopes[i]->mode_op > 0 ? scopes[i]->mode : NULL);
            imp_tick_(r);
        }
    if (rc == 0 && r->tty && r->total && r->done < r->total) {
        r->done = r->total - 1;
        imp_tick_(r); /* what was found present needed no write: the bar ends full */
    }
    free(subjects);
    free(scopes);
    return rc;
}

/* ---- 7. The command ------------------------------------------------------------------------ */

static int imp_run_(store_t *db, const registry_options_t *reg_opts, imp_model_t *m, const char *url);

int cmd_import(store_t *db, const registry_options_t *reg_opts, const cmd_import_options_t *opts)
{
    imp_model_t m = {0};
    if (opts->from.url) {
        if (opts->file || opts->delimiter) {
            fprintf(stderr, "schema-registry import: --from-url reads no file and takes no --delimiter\n");
            return 2;
        }
        char *error = NULL;
        m.confluent = 1;
        long got = cmd_fetch_registry(&opts->from, imp_fetched_, &m, &error);
        if (got > 0 && isatty(STDERR_FILENO))
            fputc('\n', stderr);
        if (got < 0) {
            fprintf(stderr, "schema-registry import: %s; nothing was imported\n", error);
            free(error);
            imp_model_clear_(&m);
            return 1;
        }
        return imp_run_(db, reg_opts, &m, opts->from.url);
    }
    const char *name = opts->file && strcmp(opts->file, "-") != 0 ? opts->file : NULL;
    FILE *in = name ? fopen(name, "r") : stdin;
    if (!in) {
        fprintf(stderr, "schema-registry import: cannot open %s: %s\n", name, strerror(errno));
        return 2;
    }
    if (opts->delimiter && opts->delimiter[0] == '\0') {
        fprintf(stderr, "schema-registry import: --delimiter must not be empty\n");
        if (name)
            fclose(in);
        return 2;
    }
    int rrc = imp_read_(in, name ? name : "stdin", opts->delimiter ? opts->delimiter : "\t", &m);
    if (name)
        fclose(in);
    if (rrc != 0) {
        imp_model_clear_(&m);
        return 2;
    }
    return imp_run_(db, reg_opts, &m, NULL);
}

/* Writes the model m (consumed) into db; url: where it came from, NULL = a file. */
static int imp_run_(store_t *db, const registry_options_t *reg_opts, imp_model_t *m, const char *url)
{
    char *error = NULL;
    registry_t *reg = registry_new(reg_opts, db, &error);
    if (!reg) {
        fprintf(stderr, "schema-registry import: cannot load the registry: %s\n", error ? error : "?");
        free(error);
        imp_model_clear_(m);
        return 1;
    }
    imp_run_t r = {0};
    r.reg = reg;
    r.db = db;
    r.m = m;
    r.tty = isatty(STDERR_FILENO);
    /* The audit trail (docs/security.md): the run's rows share one request
     * id ("import-" and 32 hex digits); no principal, nobody authenticated. */
    char run_id[8 + 33] = "import-";
    request_id_new(run_id + 7);
    registry_act_as(db, &(reg_actor_t){NULL, NULL, run_id});
    struct sigaction stop = {.sa_handler = imp_on_signal_, .sa_flags = SA_RESETHAND}, old_int, old_term;
    sigemptyset(&stop.sa_mask);
    imp_stop_ = 0;
    sigaction(SIGINT, &stop, &old_int);
    sigaction(SIGTERM, &stop, &old_term);
    int rc = imp_apply_(&r);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    registry_act_as(db, NULL);
    fprintf(stderr,
            "schema-registry import: %zu records read (%s): %zu created, %zu already present, %zu deleted, "
            "%zu config, %zu mode, %zu refused\n",
            m->records,
            url            ? url
            : m->confluent ? "a _schemas dump"
                           : "an export",
            r.created, r.present, r.deleted, r.config, r.mode, r.refused);
    if (imp_stop_)
        fprintf(stderr, "schema-registry import: interrupted; run it again to go on\n");
    else if (rc == 0 && r.refused == 0 && r.created + r.deleted + r.config + r.mode == 0)
        fprintf(stderr, "schema-registry import: nothing to change: the registry holds the input already\n");
    registry_free(reg);
    imp_model_clear_(m);
    return rc != 0 || r.refused ? 1 : 0;
}
