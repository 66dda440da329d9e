/*
 * associations: subjects tied to a resource (a Kafka topic) as its key or
 * value schema, as the community server's AssociationsResource and
 * AbstractSchemaRegistry.createOrUpdateAssociation / deleteAssociations
 * answer them (docs/api.md "Associations"). Stored in PostgreSQL
 * (migrations/0011) and read from there on every request: no node keeps a
 * copy, so there is nothing for the change feed to carry.
 *
 * Contents
 *   1. Reading
 *   2. Validating a create or update request (AssociationCreateOrUpdateRequest.validate)
 *   3. Creating and updating (createOrUpdateAssociation)
 *   4. Deleting
 *   5. Batch get (POST /associations:batchGet)
 *   6. Batch mutate (POST /associations:batchMutate)
 *
 * The guards of subject and version deletes (an associated subject stays)
 * are delete.c's: this file calls its deletes for cascadeLifecycle.
 *
 * Every write runs in one transaction under one advisory lock for all
 * association writes (Confluent's lockForAssociation), checks against what
 * the database holds under that lock, and writes its audit row in the same
 * transaction: a refused request changes nothing.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "registry/context.h"
#include "registry/internal.h"

#define ASSOC_TOPIC "topic"

/* ---- 1. Reading ------------------------------------------------------------- */

static const char *assoc_type_or_topic(const char *t)
{
    return t && *t ? t : ASSOC_TOPIC;
}

reg_code_t registry_assoc_list(registry_t *reg, store_t *db, const reg_assoc_query_t *q, json_t **out,
                               reg_error_t *err)
{
    (void)reg;
    *out = NULL;
    store_assoc_query_t sq = {
        .resource_type = q->any_type && !q->resource_type ? NULL : assoc_type_or_topic(q->resource_type),
        .types = q->types,
        .lifecycle = q->lifecycle};
    switch (q->by) {
    case REG_ASSOC_BY_SUBJECT: sq.subject = q->key; break;
    case REG_ASSOC_BY_RESOURCE_ID: sq.resource_id = q->key; break;
    case REG_ASSOC_BY_RESOURCE_NAME:
        /* "-" as the name: every resource of the namespace ("-": every namespace). */
        sq.resource_name = strcmp(q->key, "-") == 0 ? NULL : q->key;
        sq.resource_namespace = q->ns;
        break;
    }
    return reg_store(err, db, store_assoc_list(db, &sq, out));
}

/* ---- 2. Validating a create request ------------------------------------------- */

static reg_code_t assoc_invalid(reg_error_t *err, const char *property, const char *detail)
{
    return reg_fail(err, REG_INVALID_ASSOCIATION,
                    "The association specified an invalid value for property: '%s', detail: %s", property,
                    detail);
}

static reg_code_t assoc_invalid_once_(reg_error_t *err, const char *type)
{
    char *d = xasprintf("may only appear once per request, but '%s' appears more than once", type);
    reg_code_t rc = assoc_invalid(err, "associationType", d);
    free(d);
    return rc;
}

/* A string field: 0 and *out (borrowed, NULL when absent or null), or -1 (400). */
static int assoc_string(const json_t *o, const char *key, const char **out, reg_error_t *err)
{
    const json_t *v = json_object_get(o, key);
    *out = NULL;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_string(v)) {
        reg_fail(err, REG_BAD_REQUEST, "Unrecognized field value: '%s' must be a string", key);
        return -1;
    }
    *out = json_string_value(v);
    return 0;
}

/* RestValidation.checkName: 1..256 characters, letters, digits, '_' and '-'
 * (bytes beyond ASCII are taken as letters). */
static reg_code_t assoc_check_name(const char *name, const char *property, reg_error_t *err)
{
    if (!name || !*name)
        return assoc_invalid(err, property, "cannot be null or empty");
    if (strlen(name) > 256)
        return assoc_invalid(err, property, "exceeds max length of 256");
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        if (!(*p >= 0x80 || (*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
              (*p >= 'A' && *p <= 'Z') || *p == '_' || *p == '-')) {
            char detail[32];
            snprintf(detail, sizeof detail, "illegal character '%c'", *p);
            return assoc_invalid(err, property, detail);
        }
    return REG_OK;
}

/* What an entry asks: POST's entries create, PUT's upsert; a batchMutate
 * entry says which by its "opType" (AssociationOp's subtypes). */
typedef enum assoc_op { ASSOC_OP_CREATE, ASSOC_OP_UPSERT, ASSOC_OP_DELETE } assoc_op_t;

/* One entry of "associations", after AssociationCreateOrUpdateInfo.validate. */
typedef struct assoc_info {
    assoc_op_t op;
    int cascade;   /* a DELETE op's cascadeLifecycle */
    char *subject; /* normalized, qualified by the context, aliases replaced */
    const char *type;
    const char *lifecycle; /* "STRONG" / "WEAK" */
    int frozen;
    /* An update resolves subject, lifecycle and frozen against the stored
     * association under the lock, from what the request said: */
    char *req_subject;         /* qualified, or NULL when absent */
    const char *req_lifecycle; /* NULL when absent */
    int req_has_frozen, req_frozen;
    int has_schema;
    const reg_request_t *schema; /* the entry's "schema" as the server decoded it (borrowed), or NULL */
    int skip;                    /* an equivalent association is stored already */
} assoc_info_t;

typedef struct assoc_create {
    const char *name, *ns, *id, *rtype;
    assoc_info_t *infos;
    size_t n;
    int dry_run;
    int is_create;                       /* POST; 0: PUT .../resources/{id} */
    int batch;                           /* a batchMutate request: each entry its opType */
    const char *context;                 /* the ?context= parameter, NULL = the default */
    const reg_request_t *const *schemas; /* per entry of "associations", NULL = none */
} assoc_create_t;

static void assoc_create_clear(assoc_create_t *a)
{
    for (size_t i = 0; i < a->n; i++) {
        free(a->infos[i].subject);
        free(a->infos[i].req_subject);
    }
    free(a->infos);
}

static reg_code_t assoc_lifecycle_parse(const json_t *o, const char **out, reg_error_t *err)
{
    const char *l;
    if (assoc_string(o, "lifecycle", &l, err) != 0)
        return err->code;
    if (l && strcmp(l, "STRONG") != 0 && strcmp(l, "WEAK") != 0)
        return reg_fail(err, REG_BAD_REQUEST,
                        "Cannot deserialize value of type `LifecyclePolicy` from String \"%s\": not one of "
                        "the values accepted for Enum class: [STRONG, WEAK]",
                        l);
    *out = l;
    return REG_OK;
}

static char *assoc_default_subject(const assoc_create_t *a, const char *type)
{
    return xasprintf(":.%s:%s-%s", a->ns, a->name, type);
}

/* The subject as Confluent's replaceAlias(context, subject) qualifies it. */
static char *assoc_qualify(registry_t *reg, const char *context, const char *subject)
{
    char *ctx = context ? registry_context_normalize(context) : NULL;
    char *q =
        ctx && *ctx && strncmp(subject, ":.", 2) != 0 ? xasprintf("%s%s", ctx, subject) : xstrdup(subject);
    free(ctx);
    char *n = xmalloc(strlen(q) + 2);
    strcpy(n, q);
    free(q);
    registry_subject_normalize(n);
    char *alias = registry_subject_alias(reg, n);
    if (alias) {
        free(n);
        return alias;
    }
    return n;
}

static assoc_op_t assoc_op_of(const json_t *entry)
{
    const char *t = json_string_value(json_object_get(entry, "opType"));
    return t && strcmp(t, "DELETE") == 0   ? ASSOC_OP_DELETE
           : t && strcmp(t, "UPSERT") == 0 ? ASSOC_OP_UPSERT
                                           : ASSOC_OP_CREATE;
}

/* Jackson refuses a body of the wrong shape (400) before validate() runs;
 * a batchMutate op needs an "opType" it knows (@JsonTypeInfo). */
static reg_code_t assoc_shape(const json_t *body, int batch, reg_error_t *err)
{
    const char *ignored;
    if (!json_is_object(body))
        return reg_fail(err, REG_BAD_REQUEST, "The request body must be a JSON object");
    if (assoc_string(body, "resourceName", &ignored, err) ||
        assoc_string(body, "resourceNamespace", &ignored, err) ||
        assoc_string(body, "resourceId", &ignored, err) || assoc_string(body, "resourceType", &ignored, err))
        return err->code;
    const json_t *list = json_object_get(body, "associations");
    if (list && !json_is_null(list) && !json_is_array(list))
        return reg_fail(err, REG_BAD_REQUEST, "Unrecognized field value: 'associations' must be an array");
    for (size_t i = 0; i < json_array_size(list); i++) {
        const json_t *o = json_array_get(list, i);
        const json_t *fz = json_object_get(o, "frozen");
        const json_t *cascade = json_object_get(o, "cascadeLifecycle");
        if (!json_is_object(o))
            return reg_fail(err, REG_BAD_REQUEST, "Each of 'associations' must be a JSON object");
        if (assoc_string(o, "subject", &ignored, err) || assoc_string(o, "associationType", &ignored, err) ||
            assoc_lifecycle_parse(o, &ignored, err) != REG_OK)
            return err->code;
        if (fz && !json_is_null(fz) && !json_is_boolean(fz))
            return reg_fail(err, REG_BAD_REQUEST, "Unrecognized field value: 'frozen' must be a boolean");
        if (!batch)
            continue;
        const char *t = json_string_value(json_object_get(o, "opType"));
        if (!t || (strcmp(t, "CREATE") != 0 && strcmp(t, "UPSERT") != 0 && strcmp(t, "DELETE") != 0))
            return reg_fail(err, REG_BAD_REQUEST,
                            "Could not resolve type id '%s' as a subtype of `AssociationOp`: known type ids "
                            "= [CREATE, DELETE, UPSERT]",
                            t ? t : "");
        if (cascade && !json_is_null(cascade) && !json_is_boolean(cascade))
            return reg_fail(err, REG_BAD_REQUEST,
                            "Unrecognized field value: 'cascadeLifecycle' must be a boolean");
    }
    return REG_OK;
}

/* AssociationOpRequest.validate: an association type once per request. */
static reg_code_t assoc_once(const assoc_create_t *a, size_t i, reg_error_t *err)
{
    for (size_t j = 0; a->batch && j < i; j++)
        if (strcmp(a->infos[i].type, a->infos[j].type) == 0)
            return assoc_invalid_once_(err, a->infos[i].type);
    return REG_OK;
}

static reg_code_t assoc_decode(registry_t *reg, const json_t *body, const char *path_id, assoc_create_t *a,
                               reg_error_t *err)
{
    reg_code_t rc = assoc_shape(body, a->batch, err);
    if (rc != REG_OK)
        return rc;
    if (assoc_string(body, "resourceName", &a->name, err) ||
        assoc_string(body, "resourceNamespace", &a->ns, err) ||
        assoc_string(body, "resourceId", &a->id, err) || assoc_string(body, "resourceType", &a->rtype, err))
        return err->code;
    const json_t *list = json_object_get(body, "associations");
    /* createOrUpdateAssociation (the resource): the path's id, before validate. */
    if (path_id && !a->id)
        a->id = path_id;
    else if (path_id && strcmp(a->id, path_id) != 0)
        return assoc_invalid(err, "resourceId",
                             "Resource ID in the path parameter does not match the resource ID in the "
                             "request body");
    if ((rc = assoc_check_name(a->name, "resourceName", err)) != REG_OK ||
        (rc = assoc_check_name(a->ns, "resourceNamespace", err)) != REG_OK)
        return rc;
    if (!a->dry_run && (!a->id || !*a->id))
        return assoc_invalid(err, "resourceId", "cannot be null or empty");
    if (a->rtype && *a->rtype && strcmp(a->rtype, ASSOC_TOPIC) != 0)
        return assoc_invalid(err, "resourceType", "must be '" ASSOC_TOPIC "'");
    a->rtype = ASSOC_TOPIC;
    if (json_array_size(list) == 0)
        return assoc_invalid(err, "associations", "cannot be null or empty");
    a->n = json_array_size(list);
    a->infos = xcalloc(a->n, sizeof *a->infos);
    for (size_t i = 0; i < a->n; i++) {
        const json_t *o = json_array_get(list, i);
        assoc_info_t *info = &a->infos[i];
        const char *subject, *type, *lifecycle = NULL;
        /* The shapes were checked above. */
        assoc_string(o, "subject", &subject, err);
        assoc_string(o, "associationType", &type, err);
        assoc_lifecycle_parse(o, &lifecycle, err);
        const json_t *fz = json_object_get(o, "frozen");
        int has_frozen = fz && json_is_boolean(fz);
        int frozen = has_frozen && json_is_true(fz);
        info->schema = a->schemas ? a->schemas[i] : NULL;
        info->has_schema = info->schema != NULL;
        info->op = a->batch ? assoc_op_of(o) : a->is_create ? ASSOC_OP_CREATE : ASSOC_OP_UPSERT;
        if (info->op == ASSOC_OP_DELETE) { /* AssociationDeleteOp.validate */
            if (type && *type && strcmp(type, "key") != 0 && strcmp(type, "value") != 0)
                return assoc_invalid(err, "associationType", "must be either 'key' or 'value'");
            info->type = type && *type ? type : "value";
            info->cascade = json_is_true(json_object_get(o, "cascadeLifecycle"));
            if ((rc = assoc_once(a, i, err)) != REG_OK)
                return rc;
            continue;
        }
        if (subject) {
            int bad = !*subject;
            for (const unsigned char *p = (const unsigned char *)subject; *p; p++)
                bad |= *p < 0x20 || *p == 0x7f;
            if (bad)
                return assoc_invalid(err, "subject", "must not be empty");
        }
        if (info->op == ASSOC_OP_UPSERT) {
            /* validate(false): no defaults but the type; the rest waits for
             * the stored association (assoc_update_resolve). */
            if (type && *type && strcmp(type, "key") != 0 && strcmp(type, "value") != 0)
                return assoc_invalid(err, "associationType", "must be either 'key' or 'value'");
            info->type = type && *type ? type : "value";
            if (lifecycle && strcmp(lifecycle, "WEAK") == 0 && info->has_schema)
                return assoc_invalid(err, "lifecycle", "cannot be WEAK when schema is provided");
            if (lifecycle && strcmp(lifecycle, "WEAK") == 0 && frozen)
                return assoc_invalid(err, "frozen", "association with lifecycle of WEAK cannot be frozen");
            info->req_lifecycle = lifecycle;
            info->req_has_frozen = has_frozen;
            info->req_frozen = frozen;
            info->req_subject = subject ? assoc_qualify(reg, a->context, subject) : NULL;
            if ((rc = assoc_once(a, i, err)) != REG_OK)
                return rc;
            continue;
        }
        /* applyDefaults(true) */
        if (info->has_schema) {
            if (lifecycle && strcmp(lifecycle, "WEAK") == 0)
                return assoc_invalid(err, "lifecycle", "cannot be WEAK when schema is provided");
            if (has_frozen && !frozen)
                return assoc_invalid(err, "frozen", "cannot be false when a schema is provided");
            lifecycle = "STRONG";
        } else if (!lifecycle) {
            lifecycle = "WEAK";
        }
        int strong = strcmp(lifecycle, "STRONG") == 0;
        if (has_frozen && frozen != strong) {
            char detail[96];
            snprintf(detail, sizeof detail, "association with lifecycle of %s cannot be frozen=%s", lifecycle,
                     frozen ? "true" : "false");
            return assoc_invalid(err, "frozen", detail);
        }
        info->frozen = strong;
        info->lifecycle = lifecycle;
        if (type && *type && strcmp(type, "key") != 0 && strcmp(type, "value") != 0)
            return assoc_invalid(err, "associationType", "must be either 'key' or 'value'");
        info->type = type && *type ? type : "value";
        if (!strong && !subject)
            return assoc_invalid(err, "subject", "must be provided for WEAK associations");
        if ((rc = assoc_once(a, i, err)) != REG_OK)
            return rc;
        char *dflt = assoc_default_subject(a, info->type);
        if (!subject)
            subject = dflt;
        rc = REG_OK;
        if (info->frozen && strcmp(subject, dflt) != 0) {
            char *d = xasprintf("frozen associations must use subject '%s'", dflt);
            rc = assoc_invalid(err, "subject", d);
            free(d);
        } else if (!strong && strcmp(subject, dflt) == 0) {
            char *d = xasprintf("WEAK associations cannot use subject '%s'", dflt);
            rc = assoc_invalid(err, "subject", d);
            free(d);
        }
        if (rc == REG_OK)
            info->subject = assoc_qualify(reg, a->context, subject);
        free(dflt);
        if (rc != REG_OK)
            return rc;
    }
    return REG_OK;
}

/* ---- 3. Creating --------------------------------------------------------------- */

static const json_t *assoc_of_type(const json_t *list, const char *type)
{
    size_t i;
    const json_t *v;
    json_array_foreach(
        list, i, v) if (strcmp(json_string_value(json_object_get(v, "associationType")), type) == 0) return v;
    return NULL;
}

static const char *jstr(const json_t *o, const char *key)
{
    return json_string_value(json_object_get(o, key));
}

/* 1 when the entry's schema is registered under its subject (lookUpSchemaUnderSubject). */
static int assoc_schema_under(registry_t *reg, store_t *db, const assoc_info_t *info)
{
    reg_view_t view = {0};
    reg_error_t ignored;
    int found = registry_lookup(reg, db, info->subject, info->schema, 0, &view, &ignored) == REG_OK;
    reg_view_clear(&view);
    return found;
}

/* A new frozen association: it comes with its schema, and the subject holds
 * nothing else (no version, or that schema as version 1). */
static reg_code_t assoc_frozen_new_check(registry_t *reg, store_t *db, const assoc_info_t *info,
                                         reg_error_t *err)
{
    if (!info->has_schema)
        return assoc_invalid(err, "schema", "schema must be provided when creating a frozen association");
    reg_view_t latest = {0};
    reg_error_t ignored;
    if (registry_get_version(reg, info->subject, "latest", 0, &latest, &ignored) != REG_OK)
        return REG_OK;
    int ok = latest.version == 1 && assoc_schema_under(reg, db, info);
    reg_view_clear(&latest);
    return ok ? REG_OK
              : assoc_invalid(err, "frozen",
                              "cannot create a frozen association when schemas already exist in the "
                              "subject");
}

static int assoc_frozen_of(const json_t *stored)
{
    const json_t *fz = json_object_get(stored, "frozen");
    return fz ? json_is_true(fz) : strcmp(jstr(stored, "lifecycle"), "STRONG") == 0;
}

static reg_code_t assoc_frozen_error(reg_error_t *err, const char *type, const char *subject)
{
    return reg_fail(err, REG_ASSOCIATION_FROZEN, "The association of type  '%s' is frozen for subject '%s'",
                    type, subject);
}

/* assoc_invalid with a formatted detail. */
static reg_code_t assoc_invalidf(reg_error_t *err, const char *property, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static reg_code_t assoc_invalidf(reg_error_t *err, const char *property, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *d = xvasprintf(fmt, ap);
    va_end(ap);
    reg_code_t rc = assoc_invalid(err, property, d);
    free(d);
    return rc;
}

/* createOrUpdateAssociation(isCreate = false) for one entry against the
 * stored association of its type (old, or NULL): settles subject,
 * lifecycle and frozen in info, or refuses as Confluent does, in its order.
 * Starts from the request's values every time (it runs twice when schemas
 * are registered). */
static reg_code_t assoc_update_resolve(registry_t *reg, const assoc_create_t *a, assoc_info_t *info,
                                       const json_t *old, reg_error_t *err)
{
    const char *lifecycle = info->req_lifecycle;
    int has_frozen = info->req_has_frozen, frozen = info->req_frozen;
    free(info->subject);
    info->subject = info->req_subject ? xstrdup(info->req_subject) : NULL;
    if (!old) { /* applyDefaults(false) */
        if (info->has_schema)
            return assoc_invalid(err, "schema",
                                 "cannot be provided when adding an association to an existing topic; an "
                                 "association with a schema must be created with the topic");
        if (!lifecycle)
            lifecycle = "WEAK";
        int want = strcmp(lifecycle, "STRONG") == 0;
        if (has_frozen && frozen != want)
            return assoc_invalidf(err, "frozen", "association with lifecycle of %s cannot be frozen=%s",
                                  lifecycle, frozen ? "true" : "false");
        has_frozen = 1;
        frozen = want;
    }
    char *dflt = assoc_default_subject(a, info->type);
    char *qdflt = assoc_qualify(reg, a->context, dflt);
    const char *eff = lifecycle ? lifecycle : old ? jstr(old, "lifecycle") : NULL;
    int strong = eff && strcmp(eff, "STRONG") == 0;
    int old_frozen = old ? assoc_frozen_of(old) : 0;
    int is_frozen = old ? old_frozen : has_frozen && frozen;
    int requested = has_frozen ? frozen : is_frozen;
    reg_code_t rc = REG_OK;
    if (!info->subject) {
        if (old)
            info->subject = xstrdup(jstr(old, "subject"));
        else if (strong)
            info->subject = xstrdup(qdflt);
        else
            rc = assoc_invalid(err, "subject", "must be provided for WEAK associations");
    }
    if (rc != REG_OK)
        ;
    else if (!strong && info->has_schema)
        rc = assoc_invalid(err, "lifecycle", "cannot be WEAK when schema is provided");
    else if (!strong && strcmp(info->subject, qdflt) == 0)
        rc = assoc_invalidf(err, "subject", "WEAK associations cannot use subject '%s'", dflt);
    else if (requested != strong)
        rc = assoc_invalidf(err, "frozen", "association with lifecycle of %s cannot be frozen=%s", eff,
                            requested ? "true" : "false");
    else if (is_frozen && strcmp(info->subject, qdflt) != 0)
        rc = assoc_invalidf(err, "subject", "frozen associations must use subject '%s'", dflt);
    else if (!old) {
        /* A STRONG association is created with its topic (POST), never by an
         * upsert; IMPORT replicates ones established on the source. */
        if (strong && registry_effective_mode(reg, info->subject) != MODE_IMPORT)
            rc = assoc_invalid(err, "lifecycle",
                               "cannot be STRONG when creating an association; STRONG associations must be "
                               "created with the topic");
    } else if (strcmp(jstr(old, "subject"), info->subject) == 0 &&
               (!lifecycle || strcmp(lifecycle, jstr(old, "lifecycle")) == 0) &&
               (!has_frozen || frozen == old_frozen)) {
        info->skip = 1; /* Association.isEquivalent */
    } else if (!lifecycle && !info->has_schema)
        rc = assoc_invalid(err, "lifecycle", "at least lifecycle or schema must be provided for update");
    else if (strcmp(jstr(old, "subject"), info->subject) != 0)
        rc = assoc_invalidf(err, "subject", "subject of association cannot be changed from '%s' to '%s'",
                            jstr(old, "subject"), info->subject);
    else if (strcmp(jstr(old, "lifecycle"), "STRONG") == 0 && lifecycle && strcmp(lifecycle, "WEAK") == 0 &&
             strcmp(jstr(old, "subject"), qdflt) == 0)
        rc = assoc_invalidf(err, "lifecycle",
                            "cannot change to WEAK when subject matches default format '%s'", dflt);
    else if (has_frozen && frozen != old_frozen)
        rc = assoc_invalid(err, "frozen", "frozen attribute of association cannot be changed");
    else if (old_frozen)
        rc = assoc_frozen_error(err, info->type, jstr(old, "subject"));
    free(dflt);
    free(qdflt);
    info->lifecycle = eff;
    info->frozen = requested;
    return rc;
}

/* isSubjectReferenced: does a schema (a soft-deleted one too) refer to any
 * version of subject (a soft-deleted one too)? A soft delete can be undone,
 * so both count. Read from the database, under the subject's exclusive
 * reference-target lock (assoc_lock_strong_): a registration that took the
 * shared one has committed, maybe on another node, and this node's index
 * may not hold it yet. */
static reg_code_t assoc_referenced_(store_t *db, const char *subject, int *out, reg_error_t *err)
{
    strlist_t contexts = {0}, names = {0};
    *out = 0;
    const char *bare = subject;
    if (strncmp(subject, ":.", 2) == 0 && strchr(subject + 2, ':'))
        bare = strchr(subject + 2, ':') + 1;
    reg_code_t rc = reg_store(err, db, store_references_to(db, subject, bare, &contexts, &names));
    /* The candidates, read as their referrers read them. */
    for (size_t i = 0; rc == REG_OK && i < names.n && !*out; i++) {
        char *q = reg_ref_qualify(contexts.items[i], names.items[i]);
        *out = strcmp(q, subject) == 0;
        free(q);
    }
    strlist_clear(&contexts);
    strlist_clear(&names);
    return rc;
}

/* The exclusive reference-target locks of the subjects the request makes
 * STRONG, before their 42206 check: a registration referring to one of them
 * holds the shared one from before its 42205 check to its commit
 * (registry_write_tx_referencing), so one of the two sees the other. Under
 * REG_ASSOC_LOCK, which no registration takes; no subject's lock is waited for
 * while these are held. */
static reg_code_t assoc_lock_strong_(store_t *db, const assoc_create_t *a, reg_error_t *err)
{
    strlist_t strong = {0};
    for (size_t i = 0; i < a->n; i++)
        if (a->infos[i].subject && a->infos[i].lifecycle && strcmp(a->infos[i].lifecycle, "STRONG") == 0)
            strlist_push(&strong, a->infos[i].subject);
    reg_code_t rc = strong.n ? reg_store(err, db, store_lock_referenced(db, &strong, 1)) : REG_OK;
    strlist_clear(&strong);
    return rc;
}

/* requestReferencesSubject: does a schema of this request declare a
 * reference to subject? It is registered only after the checks, so the
 * index cannot see it yet. A reference's subject is read in its referrer's
 * context (qualifySubjectWithParent). */
static int assoc_request_references_(const assoc_create_t *a, const char *subject)
{
    for (size_t i = 0; i < a->n; i++) {
        const assoc_info_t *other = &a->infos[i];
        if (!other->schema || !other->subject)
            continue;
        char *ctx = reg_context_copy(other->subject);
        int hit = 0;
        for (size_t k = 0; k < other->schema->nrefs && !hit; k++) {
            char *target = reg_ref_qualify(ctx, other->schema->refs[k].subject);
            hit = strcmp(target, subject) == 0;
            free(target);
        }
        free(ctx);
        if (hit)
            return 1;
    }
    return 0;
}

/* createOrUpdateAssociation, from "may only appear once" on. */
/* A live version of subject, read from the database under REG_ASSOC_LOCK: a
 * subject or version delete takes that lock before its own guard (40904,
 * 40907), so a delete that committed first is seen here even before this
 * node's index has it, and one that comes later sees this association. */
static reg_code_t assoc_live_in_db_(store_t *db, const char *subject, reg_error_t *err)
{
    reg_subject_t *fresh = NULL;
    reg_code_t rc = reg_store(err, db, store_load_subject(db, subject, &fresh));
    if (rc == REG_OK && reg_subject_latest(fresh) == NULL)
        rc = reg_fail(err, REG_NO_ACTIVE_SUBJECT_VERSION,
                      "No active (non-deleted) version exists for subject '%s'", subject);
    reg_subject_free(fresh);
    return rc;
}

static reg_code_t assoc_create_checks(registry_t *reg, store_t *db, assoc_create_t *a, reg_error_t *err)
{
    for (size_t i = 0; i < a->n; i++) {
        const char *named = a->is_create ? a->infos[i].subject : a->infos[i].req_subject;
        if (named && reg_mode_is_readonly(registry_effective_mode(reg, named)))
            return reg_mode_readonly_error(err, named);
        for (size_t j = 0; j < i; j++)
            if (strcmp(a->infos[i].type, a->infos[j].type) == 0)
                return assoc_invalid_once_(err, a->infos[i].type);
    }
    json_t *stored = json_array();
    reg_code_t rc = REG_OK;
    if (a->id) {
        json_decref(stored);
        store_assoc_query_t q = {.resource_id = a->id, .resource_type = a->rtype};
        if ((rc = reg_store(err, db, store_assoc_list(db, &q, &stored))) != REG_OK)
            return rc;
    }
    for (size_t i = 0; rc == REG_OK && i < a->n; i++) {
        assoc_info_t *info = &a->infos[i];
        const json_t *old = assoc_of_type(stored, info->type);
        if (!a->is_create) {
            rc = assoc_update_resolve(reg, a, info, old, err);
            continue;
        }
        if (!old) {
            if (info->frozen && registry_effective_mode(reg, info->subject) != MODE_IMPORT)
                rc = assoc_frozen_new_check(reg, db, info, err);
            continue;
        }
        /* Association.isEquivalent: the same subject, type, lifecycle and frozen. */
        int old_frozen = assoc_frozen_of(old);
        if (strcmp(jstr(old, "subject"), info->subject) == 0 &&
            strcmp(jstr(old, "lifecycle"), info->lifecycle) == 0 && old_frozen == info->frozen &&
            (!info->has_schema || assoc_schema_under(reg, db, info))) {
            info->skip = 1;
            continue;
        }
        rc = reg_fail(err, REG_ASSOCIATION_FOR_RESOURCE_EXISTS,
                      "An association of type '%s' already exists for resource '%s'", info->type,
                      jstr(old, "resourceName"));
    }
    /* checkUniformLifecycle: stored types first, in their order, then the request's. */
    if (rc == REG_OK) {
        json_t *by_type = json_object();
        size_t k;
        const json_t *v;
        json_array_foreach(stored, k, v)
            json_object_set_new(by_type, jstr(v, "associationType"), json_string(jstr(v, "lifecycle")));
        for (size_t i = 0; i < a->n; i++)
            json_object_set_new(by_type, a->infos[i].type, json_string(a->infos[i].lifecycle));
        const char *first = NULL, *key;
        int mixed = 0;
        json_t *val;
        json_object_foreach(by_type, key, val)
        {
            if (!first)
                first = json_string_value(val);
            else if (strcmp(first, json_string_value(val)) != 0)
                mixed = 1;
        }
        if (mixed) {
            strbuf_t d = {0};
            strbuf_puts(&d, "all associations for a resource must have the same lifecycle, but got ");
            int comma = 0;
            json_object_foreach(by_type, key, val)
            {
                strbuf_printf(&d, "%s%s=%s", comma ? ", " : "", key, json_string_value(val));
                comma = 1;
            }
            char *text = strbuf_take(&d);
            rc = assoc_invalid(err, "lifecycle", text ? text : "");
            free(text);
        }
        json_decref(by_type);
    }
    if (rc == REG_OK)
        rc = assoc_lock_strong_(db, a, err);
    for (size_t i = 0; rc == REG_OK && i < a->n; i++) {
        assoc_info_t *info = &a->infos[i];
        if (info->has_schema && registry_effective_mode(reg, info->subject) == MODE_IMPORT) {
            char *d = xasprintf("cannot be provided while subject '%s' is in IMPORT mode", info->subject);
            rc = assoc_invalid(err, "schema", d);
            free(d);
            break;
        }
        if (!info->has_schema && (rc = assoc_live_in_db_(db, info->subject, err)) != REG_OK)
            break;
        json_t *others = NULL;
        store_assoc_query_t q = {.subject = info->subject};
        if ((rc = reg_store(err, db, store_assoc_list(db, &q, &others))) != REG_OK)
            break;
        size_t k;
        const json_t *o;
        int any = 0, strong = 0;
        json_array_foreach(others, k, o)
        {
            const json_t *same = a->id && strcmp(jstr(o, "resourceId"), a->id) == 0 &&
                                         strcmp(jstr(o, "resourceType"), a->rtype) == 0 &&
                                         strcmp(jstr(o, "associationType"), info->type) == 0
                                     ? o
                                     : NULL;
            if (same)
                continue;
            any = 1;
            strong |= strcmp(jstr(o, "lifecycle"), "STRONG") == 0;
        }
        json_decref(others);
        int referenced = 0;
        if (strcmp(info->lifecycle, "STRONG") == 0 && any)
            rc = reg_fail(err, REG_ASSOCIATION_FOR_SUBJECT_EXISTS,
                          "An association already exists for subject '%s'", info->subject);
        /* A STRONG association and a schema reference exclude each other: a
         * referenced subject cannot be claimed by its topic (42206). */
        else if (strcmp(info->lifecycle, "STRONG") == 0 &&
                 (rc = assoc_referenced_(db, info->subject, &referenced, err)) == REG_OK &&
                 (referenced || assoc_request_references_(a, info->subject)))
            rc = reg_fail(err, REG_REFERENCE_EXISTS, "One or more references exist to the schema %s.",
                          info->subject);
        else if (strcmp(info->lifecycle, "WEAK") == 0 && strong)
            rc = reg_fail(err, REG_STRONG_ASSOCIATION_FOR_SUBJECT_EXISTS,
                          "A strong association already exists for subject '%s'", info->subject);
    }
    json_decref(stored);
    return rc;
}

static json_t *assoc_response(const assoc_create_t *a, int written)
{
    json_t *r = json_object();
    json_object_set_new(r, "resourceName", json_string(a->name));
    json_object_set_new(r, "resourceNamespace", json_string(a->ns));
    if (a->id && *a->id)
        json_object_set_new(r, "resourceId", json_string(a->id));
    json_object_set_new(r, "resourceType", json_string(a->rtype));
    json_t *list = json_array();
    for (size_t i = 0; written && i < a->n; i++) {
        if (a->infos[i].skip)
            continue;
        json_array_append_new(list,
                              json_pack("{s:s, s:s, s:s}", "subject", a->infos[i].subject, "associationType",
                                        a->infos[i].type, "lifecycle", a->infos[i].lifecycle));
    }
    /* @JsonInclude(NON_EMPTY): no "associations" when none was written. */
    if (json_array_size(list))
        json_object_set_new(r, "associations", list);
    else
        json_decref(list);
    return r;
}

/* The checks under the lock and, with write, the rows and their audit rows,
 * in one transaction. */
static reg_code_t assoc_create_tx(registry_t *reg, store_t *db, assoc_create_t *a, int write,
                                  reg_error_t *err)
{
    reg_code_t rc = reg_store(err, db, store_begin(db));
    if (rc != REG_OK)
        return rc;
    rc = reg_store(err, db, store_lock_scope(db, REG_ASSOC_LOCK));
    if (rc == REG_OK)
        rc = assoc_create_checks(reg, db, a, err);
    /* A schema of the request was registered in its own transaction before
     * this one (assoc_apply): it must still be live when the row is written. */
    for (size_t i = 0; rc == REG_OK && write && i < a->n; i++)
        if (a->infos[i].has_schema && !a->infos[i].skip && a->infos[i].subject)
            rc = assoc_live_in_db_(db, a->infos[i].subject, err);
    for (size_t i = 0; rc == REG_OK && write && i < a->n; i++) {
        const assoc_info_t *info = &a->infos[i];
        if (info->skip)
            continue;
        store_assoc_t row = {a->id, a->rtype,      info->type,      a->name,
                             a->ns, info->subject, info->lifecycle, info->frozen};
        rc = reg_store(err, db, store_assoc_put(db, &row));
        json_t *details = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "resourceId", a->id, "resourceName",
                                    a->name, "resourceNamespace", a->ns, "resourceType", a->rtype,
                                    "associationType", info->type, "lifecycle", info->lifecycle);
        if (rc == REG_OK)
            rc = reg_audit_change(db,
                                  a->is_create ? REG_AUDIT_ASSOCIATION_CREATE : REG_AUDIT_ASSOCIATION_UPDATE,
                                  info->subject, 0, 0, -1, details, err);
        json_decref(details);
    }
    if (rc == REG_OK && write)
        rc = reg_store(err, db, store_commit(db));
    else
        store_rollback(db);
    return rc;
}

static reg_code_t assoc_apply(registry_t *reg, store_t *db, assoc_create_t *a, reg_view_t *registered,
                              reg_error_t *err);

reg_code_t registry_assoc_create(registry_t *reg, store_t *db, const char *context, const char *path_id,
                                 int dry_run, const json_t *body, const reg_request_t *const *schemas,
                                 json_t **out, reg_view_t *registered, reg_error_t *err)
{
    *out = NULL;
    assoc_create_t a = {.dry_run = dry_run, .is_create = !path_id, .context = context, .schemas = schemas};
    reg_code_t rc = assoc_decode(reg, body, path_id, &a, err);
    if (rc == REG_OK)
        rc = assoc_apply(reg, db, &a, registered, err);
    if (rc == REG_OK)
        *out = assoc_response(&a, !dry_run);
    assoc_create_clear(&a);
    return rc;
}

/* createOrUpdateAssociation after validate, for a's entries (all of one
 * op): the checks, the schemas, the rows. */
static reg_code_t assoc_apply(registry_t *reg, store_t *db, assoc_create_t *a, reg_view_t *registered,
                              reg_error_t *err)
{
    reg_code_t rc = REG_OK;
    int dry_run = a->dry_run;
    int any_schema = 0;
    for (size_t i = 0; i < a->n; i++)
        any_schema |= a->infos[i].has_schema;
    /* With schemas: everything is checked first, then the schemas are
     * registered (each its own write, as Confluent's register), then the
     * checks run again with the rows written. Without, one transaction. */
    if (rc == REG_OK && (dry_run || any_schema))
        rc = assoc_create_tx(reg, db, a, 0, err);
    /* A dry run still parses and checks each schema (isCompatible), as a
     * registration would: 42201 for an invalid one, 40901 for an incompatible one. */
    for (size_t i = 0; rc == REG_OK && dry_run && i < a->n; i++) {
        if (!a->infos[i].has_schema)
            continue;
        int compatible = 1;
        strlist_t messages = {0};
        rc = registry_check(reg, db, a->infos[i].subject, NULL, a->infos[i].schema, 0, &compatible, &messages,
                            err);
        if (rc == REG_OK && !compatible)
            rc = reg_fail(err, REG_INCOMPATIBLE,
                          "Schema being registered is incompatible with an earlier schema for "
                          "subject \"%s\"",
                          a->infos[i].subject);
        strlist_clear(&messages);
    }
    for (size_t i = 0; rc == REG_OK && !dry_run && i < a->n; i++)
        if (a->infos[i].has_schema) {
            reg_request_t req = *a->infos[i].schema;
            rc = registry_register(reg, db, a->infos[i].subject, &req, &registered[i], err);
        }
    if (rc == REG_OK && !dry_run) {
        for (size_t i = 0; i < a->n; i++)
            a->infos[i].skip = 0;
        rc = assoc_create_tx(reg, db, a, 1, err);
    }
    return rc;
}

/* ---- 4. Deleting ---------------------------------------------------------------- */

/* missing_ok: none matching is no error (AbstractSchemaRegistry.deleteAssociations;
 * the 40410 is AssociationsResource's). */
static reg_code_t assoc_delete_(registry_t *reg, store_t *db, const char *resource_id,
                                const char *resource_type, const strlist_t *types, int cascade, int dry_run,
                                int missing_ok, reg_error_t *err)
{
    reg_code_t rc = reg_store(err, db, store_begin(db));
    if (rc != REG_OK)
        return rc;
    rc = reg_store(err, db, store_lock_scope(db, REG_ASSOC_LOCK));
    json_t *old = NULL;
    store_assoc_query_t q = {
        .resource_id = resource_id, .resource_type = assoc_type_or_topic(resource_type), .types = types};
    if (rc == REG_OK)
        rc = reg_store(err, db, store_assoc_list(db, &q, &old));
    if (rc == REG_OK && json_array_size(old) == 0 && !missing_ok)
        rc = reg_fail(err, REG_ASSOCIATION_NOT_FOUND, "Association for '%s' not found.", resource_id);
    size_t i;
    const json_t *v;
    json_array_foreach(old, i, v)
    {
        if (rc != REG_OK)
            break;
        const char *subject = jstr(v, "subject");
        const json_t *fz = json_object_get(v, "frozen");
        int frozen = fz ? json_is_true(fz) : strcmp(jstr(v, "lifecycle"), "STRONG") == 0;
        if (reg_mode_is_readonly(registry_effective_mode(reg, subject)))
            rc = reg_mode_readonly_error(err, subject);
        else if (!cascade && frozen)
            rc = assoc_frozen_error(err, jstr(v, "associationType"), subject);
    }
    json_array_foreach(old, i, v)
    {
        if (rc != REG_OK || dry_run)
            break;
        rc = reg_store(err, db,
                       store_assoc_delete(db, resource_id, q.resource_type, jstr(v, "associationType")));
        json_t *details =
            json_pack("{s:s, s:s, s:s, s:b}", "resourceId", resource_id, "resourceType", q.resource_type,
                      "associationType", jstr(v, "associationType"), "cascadeLifecycle", cascade);
        if (rc == REG_OK)
            rc = reg_audit_change(db, REG_AUDIT_ASSOCIATION_DELETE, jstr(v, "subject"), 0, 0, -1, details,
                                  err);
        json_decref(details);
    }
    if (rc == REG_OK && !dry_run)
        rc = reg_store(err, db, store_commit(db));
    else
        store_rollback(db);
    /* cascadeLifecycle: a STRONG association's subject goes with it, soft
     * then hard (deleteSubject twice), after the association is gone so the
     * subject delete's own guard (delete.c) lets it through. */
    json_array_foreach(old, i, v)
    {
        if (rc != REG_OK || dry_run || !cascade)
            break;
        const char *subject = jstr(v, "subject");
        if (strcmp(jstr(v, "lifecycle"), "STRONG") != 0 ||
            registry_effective_mode(reg, subject) == MODE_IMPORT)
            continue;
        int *versions = NULL;
        size_t n = 0;
        rc = registry_delete_subject(reg, db, subject, 0, &versions, &n, err);
        free(versions);
        if (rc == REG_OK)
            rc = registry_delete_subject(reg, db, subject, 1, &versions, &n, err);
        free(versions);
    }
    json_decref(old);
    return rc;
}

reg_code_t registry_assoc_delete(registry_t *reg, store_t *db, const char *resource_id,
                                 const char *resource_type, const strlist_t *types, int cascade, int dry_run,
                                 reg_error_t *err)
{
    return assoc_delete_(reg, db, resource_id, resource_type, types, cascade, dry_run, 0, err);
}

/* ---- 5. Batch get ---------------------------------------------------------------- */

/* One entry of "requests" read as Jackson reads an AssociationGetRequest:
 * 0, or -1 with a 400 in err (a shape Jackson refuses fails the whole call). */
static int assoc_get_shape(const json_t *q, strlist_t *types, reg_error_t *err)
{
    const char *ignored;
    if (!json_is_object(q)) {
        reg_fail(err, REG_BAD_REQUEST, "Each of 'requests' must be a JSON object");
        return -1;
    }
    if (assoc_string(q, "resourceName", &ignored, err) ||
        assoc_string(q, "resourceNamespace", &ignored, err) || assoc_string(q, "resourceId", &ignored, err) ||
        assoc_string(q, "resourceType", &ignored, err) || assoc_lifecycle_parse(q, &ignored, err) != REG_OK)
        return -1;
    const json_t *list = json_object_get(q, "associationTypes");
    if (list && !json_is_null(list) && !json_is_array(list)) {
        reg_fail(err, REG_BAD_REQUEST, "Unrecognized field value: 'associationTypes' must be an array");
        return -1;
    }
    size_t i;
    const json_t *v;
    json_array_foreach(list, i, v)
    {
        if (!json_is_string(v)) {
            reg_fail(err, REG_BAD_REQUEST, "Unrecognized field value: 'associationTypes' must hold strings");
            return -1;
        }
        strlist_push(types, json_string_value(v));
    }
    return 0;
}

static int assoc_same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Association.toAssociationResponse: the resource and its associations
 * (AssociationInfo: frozen only when not the lifecycle's), or NULL and *why
 * when they are not all of that one resource. */
static json_t *assoc_resource_response(const char *name, const char *ns, const char *id, const char *rtype,
                                       const json_t *found, char **why)
{
    json_t *r = json_object();
    if (name)
        json_object_set_new(r, "resourceName", json_string(name));
    if (ns)
        json_object_set_new(r, "resourceNamespace", json_string(ns));
    if (id && *id)
        json_object_set_new(r, "resourceId", json_string(id));
    json_object_set_new(r, "resourceType", json_string(rtype));
    json_t *infos = json_array();
    size_t i;
    const json_t *v;
    json_array_foreach(found, i, v)
    {
        if (!assoc_same(jstr(v, "resourceName"), name) || !assoc_same(jstr(v, "resourceNamespace"), ns) ||
            !assoc_same(jstr(v, "resourceId"), id) || !assoc_same(jstr(v, "resourceType"), rtype)) {
            *why = xstrdup("All associations must have the same resourceName, resourceNamespace, "
                           "resourceId, and resourceType.");
            json_decref(infos);
            json_decref(r);
            return NULL;
        }
        json_t *info = json_pack("{s:s, s:s, s:s}", "subject", jstr(v, "subject"), "associationType",
                                 jstr(v, "associationType"), "lifecycle", jstr(v, "lifecycle"));
        const json_t *fz = json_object_get(v, "frozen");
        if (fz)
            json_object_set(info, "frozen", (json_t *)fz);
        json_array_append_new(infos, info);
    }
    /* @JsonInclude(NON_EMPTY) */
    if (json_array_size(infos))
        json_object_set_new(r, "associations", infos);
    else
        json_decref(infos);
    return r;
}

/* One query (AbstractSchemaRegistry.batchGetAssociations's loop body): the
 * AssociationResponse, or NULL and *why (what getMessage() would say). */
static json_t *assoc_get_one(store_t *db, const json_t *q, const strlist_t *types, char **why,
                             reg_error_t *err, reg_code_t *rc)
{
    const char *name = jstr(q, "resourceName"), *ns = jstr(q, "resourceNamespace");
    const char *id = jstr(q, "resourceId"), *lifecycle = jstr(q, "lifecycle");
    const char *rtype = assoc_type_or_topic(jstr(q, "resourceType"));
    /* AssociationGetRequest.validate */
    if (!(id && *id) && !(name && *name)) {
        *why = xstrdup("property: resourceId; detail: either resourceId or resourceName must be specified");
        return NULL;
    }
    if (name && *name && !(ns && *ns)) {
        *why = xstrdup("property: resourceNamespace; detail: resourceNamespace is required when "
                       "resourceName is specified");
        return NULL;
    }
    store_assoc_query_t sq = {.resource_type = rtype, .types = types, .lifecycle = lifecycle};
    if (id && *id)
        sq.resource_id = id;
    else {
        sq.resource_name = name;
        sq.resource_namespace = ns;
    }
    json_t *found = NULL;
    if ((*rc = reg_store(err, db, store_assoc_list(db, &sq, &found))) != REG_OK)
        return NULL;
    const json_t *first = json_array_get(found, 0);
    if (first) {
        name = name ? name : jstr(first, "resourceName");
        ns = ns ? ns : jstr(first, "resourceNamespace");
        id = id ? id : jstr(first, "resourceId");
    }
    json_t *r = assoc_resource_response(name, ns, id, rtype, found, why);
    json_decref(found);
    return r;
}

reg_code_t registry_assoc_batch_get(registry_t *reg, store_t *db, const json_t *body, json_t **out,
                                    reg_error_t *err)
{
    (void)reg;
    *out = NULL;
    if (!json_is_object(body))
        return reg_fail(err, REG_BAD_REQUEST, "The request body must be a JSON object");
    const json_t *list = json_object_get(body, "requests");
    if (list && !json_is_null(list) && !json_is_array(list))
        return reg_fail(err, REG_BAD_REQUEST, "Unrecognized field value: 'requests' must be an array");
    size_t n = json_array_size(list);
    strlist_t *types = xcalloc(n + 1, sizeof *types);
    reg_code_t rc = REG_OK;
    for (size_t i = 0; rc == REG_OK && i < n; i++)
        if (assoc_get_shape(json_array_get(list, i), &types[i], err) != 0)
            rc = err->code;
    if (rc == REG_OK && n == 0)
        rc = assoc_invalid(err, "requests", "cannot be null or empty");
    json_t *results = json_array();
    for (size_t i = 0; rc == REG_OK && i < n; i++) {
        char *why = NULL;
        json_t *r = assoc_get_one(db, json_array_get(list, i), &types[i], &why, err, &rc);
        if (r)
            json_array_append_new(results, json_pack("{s:o}", "result", r));
        else if (why) {
            /* Caught per entry as RestServerErrorException.DEFAULT_ERROR_CODE (500). */
            json_array_append_new(results, json_pack("{s:{s:i, s:s+}}", "error", "error_code", 500, "message",
                                                     "Error while getting associations: ", why));
        }
        free(why);
    }
    for (size_t i = 0; i < n; i++)
        strlist_clear(&types[i]);
    free(types);
    if (rc != REG_OK) {
        json_decref(results);
        return rc;
    }
    *out = results;
    return REG_OK;
}

/* ---- 6. Batch mutate -------------------------------------------------------------- */

/* One request's failure as its result's "error" (mutateAssociations's
 * catch clauses): the association codes as they are, an invalid schema as
 * 42212, anything else 500 "Error while creating association: ...". */
static json_t *assoc_batch_error(const reg_error_t *e)
{
    switch (e->code) {
    case REG_INVALID_ASSOCIATION:
    case REG_ASSOCIATION_FOR_RESOURCE_EXISTS:
    case REG_ASSOCIATION_FOR_SUBJECT_EXISTS:
    case REG_ASSOCIATION_FROZEN:
    case REG_NO_ACTIVE_SUBJECT_VERSION:
    case REG_STRONG_ASSOCIATION_FOR_SUBJECT_EXISTS:
    case REG_REFERENCE_EXISTS:
    case REG_SCHEMA_TOO_LARGE:
    case REG_INCOMPATIBLE: return json_pack("{s:i, s:s}", "error_code", (int)e->code, "message", e->message);
    case REG_INVALID_SCHEMA:
        return json_pack("{s:i, s:s}", "error_code", (int)REG_INVALID_ASSOCIATION, "message", e->message);
    default:
        return json_pack("{s:i, s:s+}", "error_code", 500, "message",
                         "Error while creating association: ", e->message);
    }
}

/* One AssociationOpRequest: validated whole, then its ops in order, a run
 * of adjacent CREATE (or UPSERT) ops as one createOrUpdateAssociation, a
 * DELETE as deleteAssociations of its type. Each run and delete commits on
 * its own, as in Confluent: a failing op leaves the ones before it done. */
static reg_code_t assoc_mutate_one(registry_t *reg, store_t *db, const char *context, int dry_run,
                                   const json_t *req, const reg_request_t *const *schemas,
                                   reg_view_t *registered, json_t **out, reg_error_t *err)
{
    *out = NULL;
    assoc_create_t a = {
        .dry_run = dry_run, .is_create = 1, .batch = 1, .context = context, .schemas = schemas};
    reg_code_t rc = assoc_decode(reg, req, NULL, &a, err);
    for (size_t i = 0; rc == REG_OK && i < a.n;) {
        if (a.infos[i].op == ASSOC_OP_DELETE && !a.id) {
            i++; /* a dry run without a resource id: nothing to delete */
            continue;
        }
        if (a.infos[i].op == ASSOC_OP_DELETE) {
            strlist_t types = {0};
            strlist_push(&types, a.infos[i].type);
            rc = assoc_delete_(reg, db, a.id, a.rtype, &types, a.infos[i].cascade, dry_run, 1, err);
            strlist_clear(&types);
            i++;
            continue;
        }
        size_t end = i + 1;
        while (end < a.n && a.infos[end].op == a.infos[i].op)
            end++;
        assoc_create_t run = a; /* borrows a's entries */
        run.infos = a.infos + i;
        run.n = end - i;
        run.is_create = a.infos[i].op == ASSOC_OP_CREATE;
        rc = assoc_apply(reg, db, &run, registered + i, err);
        i = end;
    }
    json_t *found = NULL;
    if (rc == REG_OK && !dry_run) {
        store_assoc_query_t q = {.resource_id = a.id, .resource_type = a.rtype};
        rc = reg_store(err, db, store_assoc_list(db, &q, &found));
    }
    if (rc == REG_OK) {
        char *why = NULL;
        json_t *none = json_array();
        *out = assoc_resource_response(a.name, a.ns, a.id, a.rtype, found ? found : none, &why);
        json_decref(none);
        if (why)
            rc = reg_fail(err, REG_INTERNAL, "%s", why);
        free(why);
    }
    json_decref(found);
    assoc_create_clear(&a);
    return rc;
}

reg_code_t registry_assoc_batch_mutate(registry_t *reg, store_t *db, const char *context, int dry_run,
                                       const json_t *body, const reg_request_t *const *const *schemas,
                                       reg_view_t *const *registered, json_t **out, reg_error_t *err)
{
    *out = NULL;
    if (!json_is_object(body))
        return reg_fail(err, REG_BAD_REQUEST, "The request body must be a JSON object");
    const json_t *list = json_object_get(body, "requests");
    if (list && !json_is_null(list) && !json_is_array(list))
        return reg_fail(err, REG_BAD_REQUEST, "Unrecognized field value: 'requests' must be an array");
    /* Jackson reads the whole body before anything runs. */
    size_t i;
    const json_t *req;
    json_array_foreach(list, i, req)
    {
        reg_code_t rc = assoc_shape(req, 1, err);
        if (rc != REG_OK)
            return rc;
    }
    if (json_array_size(list) == 0)
        return assoc_invalid(err, "requests", "cannot be null or empty");
    json_t *results = json_array();
    json_array_foreach(list, i, req)
    {
        json_t *r;
        reg_error_t e;
        if (assoc_mutate_one(reg, db, context, dry_run, req, schemas ? schemas[i] : NULL, registered[i], &r,
                             &e) == REG_OK)
            json_array_append_new(results, json_pack("{s:o}", "result", r));
        else
            json_array_append_new(results, json_pack("{s:o}", "error", assoc_batch_error(&e)));
    }
    *out = results;
    return REG_OK;
}
