/*
 * handler_subjects: /subjects and everything below it -- registration,
 * lookup, versions, deletes and reverse references.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"
#include "server/api.h"
#include "server/authz.h"
#include "server/handlers.h"

static const char *subject(const http_call_t *c)
{
    return http_param(c, "subject");
}

/* No subjectPrefix is ":*:", every context (SubjectsResource.list); a
 * prefix matches as Confluent's key ranges do (docs/api.md, "Contexts"). */
static const char *subject_prefix(http_call_t *c)
{
    return http_query(c, "subjectPrefix");
}

static http_outcome_t subjects_list(http_call_t *c)
{
    strlist_t names = {0};
    size_t start, count;
    registry_list_subjects(c->reg, subject_prefix(c), http_query_bool(c, "deleted", 0),
                           http_query_bool(c, "deletedOnly", 0), &names);
    /* Only what the principal may read, before paging: offset and limit count what it sees. */
    size_t kept = 0;
    for (size_t i = 0; i < names.n; i++) {
        if (authz_may_read(c, names.items[i]))
            names.items[kept++] = names.items[i];
        else
            free(names.items[i]);
    }
    names.n = kept;
    if (api_page(c, names.n, 0, &start, &count) == 0) {
        json_t *arr = json_array();
        for (size_t i = start; i < start + count; i++)
            json_array_append_new(arr, json_string(names.items[i]));
        http_reply_json(c, 200, arr);
    }
    strlist_clear(&names);
    return HTTP_DONE;
}

const http_handler_t handle_subjects = {subjects_list, NULL};

/* ---- Lookup and registration ------------------------------------------------ */

/* Content this node already knows under the subject: *view filled, 1. */
typedef int (*known_fn)(http_call_t *c, const reg_request_t *req, reg_view_t *view);
typedef void (*view_reply_fn)(http_call_t *c, const reg_view_t *view);

/* The memory part both share: decode, answer known content, else keep the body. */
static http_outcome_t known_or_db(http_call_t *c, known_fn known, view_reply_fn reply)
{
    api_body_t *body = api_body_new(c);
    if (!body)
        return HTTP_DONE;
    reg_view_t view = {0};
    if (!known(c, &body->req, &view)) {
        api_body_keep(c, body);
        return HTTP_TO_DB;
    }
    reply(c, &view);
    reg_view_clear(&view);
    api_body_free(body);
    return HTTP_DONE;
}

static int lookup_known(http_call_t *c, const reg_request_t *req, reg_view_t *view)
{
    return registry_lookup_known(c->reg, subject(c), req, http_query_bool(c, "deleted", 0), view);
}

static void lookup_reply(http_call_t *c, const reg_view_t *view)
{
    http_reply_json(c, 200, api_schema_object(c, view));
}

static http_outcome_t lookup_loop(http_call_t *c)
{
    return known_or_db(c, lookup_known, lookup_reply);
}

static void lookup_db(http_call_t *c, store_t *db)
{
    reg_view_t view = {0};
    reg_error_t err;
    reg_code_t rc = registry_lookup(c->reg, db, subject(c), &api_body_kept(c)->req,
                                    http_query_bool(c, "deleted", 0), &view, &err);
    if (rc == REG_OK)
        lookup_reply(c, &view);
    reg_view_clear(&view);
    api_done(c, rc, &err);
}

const http_handler_t handle_subject_lookup = {lookup_loop, lookup_db};

static int register_known(http_call_t *c, const reg_request_t *req, reg_view_t *view)
{
    return registry_register_known(c->reg, subject(c), req, view);
}

static void register_reply(http_call_t *c, const reg_view_t *view)
{
    /* Classic clients fail on unknown fields: only the id unless asked (docs/api.md). */
    json_t *reply = c->extended ? api_schema_object(c, view) : json_pack("{s:i}", "id", view->id);
    if (c->extended)
        json_object_del(reply, "subject");
    http_reply_json(c, 200, reply);
}

/*
 * ?format=logical (any case) on SubjectVersionsResource: a registration's
 * schema is Confluent's logical-type DDL, converted to the native format of
 * schemaType, and a version read answers its schema as DDL (LogicalFormat,
 * the logical-types module). This registry has no logical types: a
 * registration is refused with the errors LogicalFormat.convertToNative
 * gives before it parses, then with 42201 (its InvalidSchemaException);
 * a read of an existing version with 42201 as when the stored schema
 * "cannot be represented as a logical type". Never the native schema as if
 * it had been converted (docs/api.md, "Not here").
 */
static int format_logical(const http_call_t *c)
{
    const char *format = http_query(c, "format");
    return format && strcasecmp(format, "logical") == 0;
}

/* Java's String.trim().isEmpty(): nothing above U+0020. */
static int blank(const char *s)
{
    for (; s && *s; s++)
        if ((unsigned char)*s > ' ')
            return 0;
    return 1;
}

#define LOGICAL_READ                                                                                         \
    "Stored schema cannot be represented as a logical type: format=logical is not supported by this "        \
    "registry"

static http_outcome_t register_logical(http_call_t *c)
{
    api_body_t *body = api_body_new(c);
    if (!body)
        return HTTP_DONE;
    reg_error_t err;
    if (registry_check_subject_name(subject(c), c->cfg->max_subject_bytes, &err) != REG_OK)
        http_reply_reg_error(c, &err);
    else if (blank(body->req.schema_type))
        http_reply_error(
            c, REG_INVALID_SCHEMA,
            "schemaType is required when format=logical, and must be one of AVRO, JSON, PROTOBUF");
    else if (blank(body->req.schema))
        http_reply_error(c, REG_INVALID_SCHEMA, "Schema is required when format=logical");
    else
        http_reply_error(c, REG_INVALID_SCHEMA,
                         "format=logical is not supported by this registry: register the schema in its "
                         "native format");
    api_body_free(body);
    return HTTP_DONE;
}

/* ---- Tags ------------------------------------------------------------------------ */

/*
 * POST /subjects/{s}/versions/{v}/tags: a TagSchemaRequest (docs/api.md,
 * "Tags"). The body's shape is checked here, as Jackson would refuse it (400);
 * a missing schemaEntity, entityPath or tags list, which Confluent only meets
 * later as a NullPointerException (a 500), is a 400 too. The entities are
 * merged as TagSchemaRequest.schemaTagsListToMap does (compat/schema.h). The
 * community server drops "ruleSet" (RuleSetHandler); "rulesToMerge" and
 * "rulesToRemove" act on rule sets, which this registry never stores, so they
 * are checked for shape and change nothing either.
 */
typedef struct tags_body {
    json_t *json;
    json_t *metadata; /* canonical, or NULL */
    schema_tag_edit_t *edits;
    strlist_t *lists; /* two per edit: add, remove */
    size_t n;
    int new_version;
} tags_body_t;

static void tags_body_free(void *p)
{
    tags_body_t *b = p;
    if (!b)
        return;
    for (size_t i = 0; i < 2 * b->n; i++)
        strlist_clear(&b->lists[i]);
    free(b->lists);
    free(b->edits);
    json_decref(b->metadata);
    json_decref(b->json);
    free(b);
}

/* SchemaEntity equality: the kind and the path without one leading ".". */
static const char *normalized_path(const char *path)
{
    return path[0] == '.' ? path + 1 : path;
}

static int list_has(const strlist_t *l, const char *s)
{
    for (size_t i = 0; i < l->n; i++)
        if (strcmp(l->items[i], s) == 0)
            return 1;
    return 0;
}

/* Adds one SchemaTags list ("tagsToAdd": slot 0, "tagsToRemove": slot 1). 0, or -1 after replying. */
static int tags_decode_list(http_call_t *c, tags_body_t *b, const char *field, int slot)
{
    json_t *arr = json_object_get(b->json, field);
    if (!arr || json_is_null(arr))
        return 0;
    if (!json_is_array(arr)) {
        http_reply_error(c, 400, "Field '%s' must be an array", field);
        return -1;
    }
    size_t i;
    json_t *st;
    json_array_foreach(arr, i, st)
    {
        json_t *entity = json_is_object(st) ? json_object_get(st, "schemaEntity") : NULL;
        json_t *path = json_object_get(entity, "entityPath");
        json_t *type = json_object_get(entity, "entityType");
        json_t *tags = json_is_object(st) ? json_object_get(st, "tags") : NULL;
        const char *t = json_string_value(type);
        if (!json_is_object(entity) || !json_is_string(path) || (type && !json_is_null(type) && !t) ||
            (t && strcmp(t, "sr_record") != 0 && strcmp(t, "sr_field") != 0) || !json_is_array(tags)) {
            http_reply_error(
                c, 400,
                "Each element of '%s' must be an object with a schemaEntity (entityPath, entityType "
                "sr_record or sr_field) and an array of tags",
                field);
            return -1;
        }
        for (size_t j = 0; j < json_array_size(tags); j++) {
            if (!json_is_string(json_array_get(tags, j))) {
                http_reply_error(c, 400, "Each tag of '%s' must be a string", field);
                return -1;
            }
        }
        /* No entityType reads as null, which every engine takes as a field. */
        schema_entity_kind_t kind =
            t && strcmp(t, "sr_record") == 0 ? SCHEMA_ENTITY_RECORD : SCHEMA_ENTITY_FIELD;
        const char *p = json_string_value(path);
        size_t k;
        for (k = 0; k < b->n; k++)
            if (b->edits[k].kind == kind &&
                strcmp(normalized_path(b->edits[k].path), normalized_path(p)) == 0)
                break;
        if (k == b->n) {
            b->edits = xrealloc(b->edits, (b->n + 1) * sizeof *b->edits);
            b->lists = xrealloc(b->lists, 2 * (b->n + 1) * sizeof *b->lists);
            b->lists[2 * k] = (strlist_t){0};
            b->lists[2 * k + 1] = (strlist_t){0};
            b->edits[k] = (schema_tag_edit_t){p, kind, NULL, NULL};
            b->n++;
        }
        strlist_t *l = &b->lists[2 * k + slot];
        for (size_t j = 0; j < json_array_size(tags); j++) {
            const char *tag = json_string_value(json_array_get(tags, j));
            if (!list_has(l, tag) && strlist_push(l, tag) != 0)
                base_oom(0);
        }
    }
    return 0;
}

static tags_body_t *tags_body_new(http_call_t *c)
{
    json_t *json = api_json_object(c);
    if (!json)
        return NULL;
    tags_body_t *b = xcalloc(1, sizeof *b);
    b->json = json;
    reg_error_t err;
    json_t *nv = json_object_get(json, "newVersion");
    json_t *rs = json_object_get(json, "ruleSet"), *merge = json_object_get(json, "rulesToMerge");
    json_t *drop = json_object_get(json, "rulesToRemove");
    if (nv && !json_is_null(nv) &&
        (!json_is_integer(nv) || json_integer_value(nv) > INT32_MAX || json_integer_value(nv) < INT32_MIN)) {
        http_reply_error(c, 400, "Field 'newVersion' must be a 32-bit integer");
    } else if (registry_metadata_read(json_object_get(json, "metadata"), &b->metadata, &err) != REG_OK) {
        http_reply_reg_error(c, &err);
    } else if ((rs && !json_is_null(rs) && !json_is_object(rs)) ||
               (merge && !json_is_null(merge) && !json_is_object(merge))) {
        http_reply_error(c, 400, "Field '%s' must be an object",
                         rs && !json_is_null(rs) && !json_is_object(rs) ? "ruleSet" : "rulesToMerge");
    } else if (drop && !json_is_null(drop) && !json_is_array(drop)) {
        http_reply_error(c, 400, "Field 'rulesToRemove' must be an array");
    } else if (tags_decode_list(c, b, "tagsToAdd", 0) == 0 &&
               tags_decode_list(c, b, "tagsToRemove", 1) == 0) {
        b->new_version = json_is_integer(nv) ? (int)json_integer_value(nv) : 0;
        for (size_t k = 0; k < b->n; k++) {
            b->edits[k].add = &b->lists[2 * k];
            b->edits[k].remove = &b->lists[2 * k + 1];
        }
        return b;
    }
    tags_body_free(b);
    return NULL;
}

static http_outcome_t tags_loop(http_call_t *c)
{
    reg_error_t err;
    if (registry_check_subject_name(subject(c), c->cfg->max_subject_bytes, &err) != REG_OK) {
        http_reply_reg_error(c, &err);
        return HTTP_DONE;
    }
    tags_body_t *b = tags_body_new(c);
    if (!b)
        return HTTP_DONE;
    http_call_keep(c, b, tags_body_free);
    return HTTP_TO_DB;
}

static void tags_db(http_call_t *c, store_t *db)
{
    tags_body_t *b = c->kept;
    reg_tag_request_t req = {b->edits, b->n, b->new_version, b->metadata};
    reg_view_t view = {0};
    reg_error_t err;
    reg_code_t rc = registry_modify_tags(c->reg, db, subject(c), http_param(c, "version"), &req, &view, &err);
    if (rc == REG_OK)
        register_reply(c, &view);
    reg_view_clear(&view);
    api_done(c, rc, &err);
}

const http_handler_t handle_version_tags = {tags_loop, tags_db};

/* ---- Registration (after Tags: it reads the same SchemaTags lists) ------------------ */

/* A registration carrying tag fields (register_tagged_loop). */
typedef struct register_tagged {
    api_body_t *body;
    tags_body_t *tags; /* its edits */
    int propagate;
} register_tagged_t;

static void register_tagged_free(void *p)
{
    register_tagged_t *t = p;
    api_body_free(t->body);
    tags_body_free(t->tags);
    free(t);
}

/*
 * A RegisterSchemaRequest with "schemaTagsToAdd", "schemaTagsToRemove" or
 * "propagateSchemaTags" (docs/api.md, "Tags"): never answered from memory, as
 * KafkaSchemaRegistry.registerOrForward skips its lookup for them. 1 when it
 * took the call over, 0 when the body has none of them.
 */
static int register_tagged_loop(http_call_t *c, api_body_t *body, http_outcome_t *outcome)
{
    json_t *add = json_object_get(body->json, "schemaTagsToAdd");
    json_t *remove = json_object_get(body->json, "schemaTagsToRemove");
    json_t *prop = json_object_get(body->json, "propagateSchemaTags");
    int any =
        (add && !json_is_null(add)) || (remove && !json_is_null(remove)) || (prop && !json_is_null(prop));
    if (!any)
        return 0;
    *outcome = HTTP_DONE;
    if (prop && !json_is_null(prop) && !json_is_boolean(prop)) {
        http_reply_error(c, 400, "Field 'propagateSchemaTags' must be a boolean");
        api_body_free(body);
        return 1;
    }
    tags_body_t *b = xcalloc(1, sizeof *b);
    b->json = json_incref(body->json);
    if (tags_decode_list(c, b, "schemaTagsToAdd", 0) != 0 ||
        tags_decode_list(c, b, "schemaTagsToRemove", 1) != 0) {
        tags_body_free(b);
        api_body_free(body);
        return 1;
    }
    for (size_t k = 0; k < b->n; k++) {
        b->edits[k].add = &b->lists[2 * k];
        b->edits[k].remove = &b->lists[2 * k + 1];
    }
    register_tagged_t *t = xcalloc(1, sizeof *t);
    *t = (register_tagged_t){body, b, json_is_true(prop)};
    http_call_keep(c, t, register_tagged_free);
    *outcome = HTTP_TO_DB;
    return 1;
}

static http_outcome_t register_loop(http_call_t *c)
{
    if (format_logical(c))
        return register_logical(c);
    api_body_t *body = api_body_new(c);
    if (!body)
        return HTTP_DONE;
    http_outcome_t outcome;
    if (register_tagged_loop(c, body, &outcome))
        return outcome;
    reg_view_t view = {0};
    if (!register_known(c, &body->req, &view)) {
        api_body_keep(c, body);
        return HTTP_TO_DB;
    }
    register_reply(c, &view);
    reg_view_clear(&view);
    api_body_free(body);
    return HTTP_DONE;
}

/* The reply to a registration that ended with rc (view on REG_OK, err else). */
static void register_answer(http_call_t *c, const reg_request_t *req, reg_code_t rc, const reg_view_t *view,
                            reg_error_t *err)
{
    if (rc == REG_OK)
        register_reply(c, view);
    /* ?verbose=true&changes=true: the 409 says what changed against the latest version
     * (docs/evolution.md); with tag fields, of the schema as sent (tags are no change). */
    json_t *message = rc == REG_INCOMPATIBLE && api_wants_changes(c) ? json_string(err->message) : NULL;
    if (message) {
        json_t *reply = json_pack("{s:i, s:o}", "error_code", (int)rc, "message", message);
        api_add_candidate_changes(c, reply, subject(c), NULL, req);
        http_reply_json(c, 409, reply);
        return;
    }
    api_done(c, rc, err);
}

static void register_db(http_call_t *c, store_t *db)
{
    reg_view_t view = {0};
    reg_error_t err;
    reg_code_t rc;
    const reg_request_t *req;
    if (c->kept_free == register_tagged_free) {
        register_tagged_t *t = c->kept;
        reg_register_tags_t tags = {t->tags->edits, t->tags->n, t->propagate};
        req = &t->body->req;
        rc = registry_register_tagged(c->reg, db, subject(c), req, &tags, &view, &err);
    } else {
        req = &api_body_kept(c)->req;
        rc = registry_register(c->reg, db, subject(c), req, &view, &err);
    }
    register_answer(c, req, rc, &view, &err);
    reg_view_clear(&view);
}

/* A registration of a db_batch from start to answer; its view and err are
 * what registry_register_start was given. */
typedef struct register_slot {
    http_call_t *call;
    reg_pending_t *pending;
    reg_view_t view;
    reg_error_t err;
} register_slot_t;

/* The registrations of one db_batch waiting for their group (register_written). */
typedef struct register_batch {
    registry_t *reg;
    size_t n;
    register_slot_t slots[];
} register_batch_t;

static void register_slot_answer(register_slot_t *s, store_t *db, reg_code_t rc)
{
    register_answer(s->call, &api_body_kept(s->call)->req, rc, &s->view, &s->err);
    reg_view_clear(&s->view);
    http_call_home(s->call, db);
}

/* On the thread that wrote the batch's group, with its connection. */
static void register_written(void *arg, store_t *db)
{
    register_batch_t *b = arg;
    for (size_t i = 0; i < b->n; i++) {
        register_slot_t *s = &b->slots[i];
        http_call_act_as(s->call, db);
        register_slot_answer(s, db, registry_register_end(b->reg, db, s->pending));
    }
    free(b);
}

/* Registrations staged in one loop pass: each started; those decided go home
 * at once, the pending ones are queued as one entry of the group
 * (registry_register_queue) and answered once it is written, by whichever
 * worker writes it. With tag fields a registration runs alone, as
 * register_db. */
static void register_db_batch(http_call_t **calls, size_t n, store_t *db)
{
    register_batch_t *b = xcalloc(1, sizeof *b + n * sizeof *b->slots);
    b->reg = calls[0]->reg;
    reg_pending_t **pending = xcalloc(n, sizeof *pending);
    for (size_t i = 0; i < n; i++) {
        http_call_t *c = calls[i];
        http_call_act_as(c, db);
        if (c->kept_free == register_tagged_free) {
            register_db(c, db);
            http_call_home(c, db);
            continue;
        }
        register_slot_t *s = &b->slots[b->n];
        *s = (register_slot_t){.call = c};
        reg_code_t rc = registry_register_start(b->reg, db, subject(c), &api_body_kept(c)->req, &s->view,
                                                &s->err, &s->pending);
        if (s->pending)
            pending[b->n++] = s->pending;
        else
            register_slot_answer(s, db, rc);
    }
    if (b->n > 0)
        registry_register_queue(b->reg, db, pending, b->n, register_written, b); /* b may be gone on return */
    else
        free(b);
    free(pending);
}

const http_handler_t handle_register = {register_loop, register_db, NULL, register_db_batch};

/* ---- Versions -------------------------------------------------------------------- */

static http_outcome_t versions_list(http_call_t *c)
{
    int *versions;
    size_t n, start, count;
    reg_error_t err;
    reg_code_t rc = registry_list_versions(c->reg, subject(c), http_query_bool(c, "deleted", 0),
                                           http_query_bool(c, "deletedOnly", 0),
                                           http_query_bool(c, "deletedAsNegative", 0), &versions, &n, &err);
    if (rc == REG_OK && api_page(c, n, 0, &start, &count) == 0)
        http_reply_json(c, 200, api_int_array(versions + start, count));
    free(versions);
    return api_done(c, rc, &err);
}

const http_handler_t handle_versions_list = {versions_list, NULL};

static reg_code_t get_version(http_call_t *c, reg_view_t *view, reg_error_t *err)
{
    return registry_get_version(c->reg, subject(c), http_param(c, "version"),
                                http_query_bool(c, "deleted", 0), view, err);
}

/* Served as prepared when it was rendered before; rendered and kept otherwise. */
static http_outcome_t version_get(http_call_t *c)
{
    reg_view_t view = {0};
    reg_body_t *body;
    reg_error_t err;
    int variant = api_variant(c);
    reg_code_t rc = registry_version_body(c->reg, subject(c), http_param(c, "version"),
                                          http_query_bool(c, "deleted", 0), variant, &body, &view, &err);
    if (rc == REG_OK && format_logical(c)) {
        http_reply_error(c, REG_INVALID_SCHEMA, LOGICAL_READ);
    } else if (rc == REG_OK && body) {
        http_reply_body(c, 200, body);
    } else if (rc == REG_OK) {
        json_t *o = api_schema_object(c, &view);
        api_add_schema_tags(c, o, view.schema);
        http_reply_json(c, 200, o);
        if (variant >= 0 && c->status == 200)
            http_reply_body(c, 200,
                            registry_version_body_put(c->reg, &view, variant, c->reply, c->reply_len));
    }
    reg_view_clear(&view);
    return api_done(c, rc, &err);
}

const http_handler_t handle_version_get = {version_get, NULL};

/* GET /subjects/{s}/metadata?key=k&value=v...: the i-th key pairs with the
 * i-th value, extra ones of either are ignored (SubjectsResource.getLatestWithMetadata). */
static http_outcome_t subject_metadata(http_call_t *c)
{
    const char **keys = xcalloc(c->nquery + 1, sizeof *keys),
               **values = xcalloc(c->nquery + 1, sizeof *values);
    size_t nk = 0, nv = 0;
    for (size_t i = 0; i < c->nquery; i++) {
        if (strcmp(c->query[i].name, "key") == 0)
            keys[nk++] = c->query[i].value;
        else if (strcmp(c->query[i].name, "value") == 0)
            values[nv++] = c->query[i].value;
    }
    reg_view_t view = {0};
    reg_error_t err;
    reg_code_t rc = registry_latest_with_metadata(c->reg, subject(c), keys, values, nk < nv ? nk : nv,
                                                  http_query_bool(c, "deleted", 0), &view, &err);
    if (rc == REG_OK)
        http_reply_json(c, 200, api_schema_object(c, &view));
    reg_view_clear(&view);
    free(keys);
    free(values);
    return api_done(c, rc, &err);
}

const http_handler_t handle_subject_metadata = {subject_metadata, NULL};

static http_outcome_t version_schema(http_call_t *c)
{
    reg_view_t view = {0};
    reg_error_t err;
    reg_code_t rc = get_version(c, &view, &err);
    if (rc == REG_OK && format_logical(c)) {
        http_reply_error(c, REG_INVALID_SCHEMA, LOGICAL_READ);
    } else if (rc == REG_OK) {
        char *text = api_schema_text(c, view.schema);
        http_reply_text(c, 200, text, strlen(text));
        free(text);
    }
    reg_view_clear(&view);
    return api_done(c, rc, &err);
}

const http_handler_t handle_version_schema = {version_schema, NULL};

/* ":.ctx:s" -> ".ctx"; anything else is of the default context ".". */
static char *subject_context_(const char *s)
{
    const char *end = strncmp(s, ":.", 2) == 0 ? strchr(s + 1, ':') : NULL;
    return end ? xstrndup(s + 1, (size_t)(end - s - 1)) : xstrdup(".");
}

static http_outcome_t version_referencedby(http_call_t *c)
{
    int *ids;
    size_t n, start, count;
    reg_error_t err;
    reg_code_t rc = registry_referenced_by(c->reg, subject(c), http_param(c, "version"),
                                           http_query_bool(c, "deleted", 0), &ids, &n, &err);
    /* The referencing ids are of the subject's context; only those the principal may read. */
    if (rc == REG_OK) {
        char *context = subject_context_(subject(c));
        size_t kept = 0;
        for (size_t i = 0; i < n; i++)
            if (authz_may_read_id(c, context, ids[i]))
                ids[kept++] = ids[i];
        n = kept;
        free(context);
    }
    if (rc == REG_OK && api_page(c, n, 1000, &start, &count) == 0)
        http_reply_json(c, 200, api_int_array(ids + start, count));
    free(ids);
    return api_done(c, rc, &err);
}

const http_handler_t handle_version_referencedby = {version_referencedby, NULL};

/* ---- Deletes ------------------------------------------------------------------------ */

static void subject_delete_db(http_call_t *c, store_t *db)
{
    int *versions;
    size_t n;
    reg_error_t err;
    reg_code_t rc = registry_delete_subject(c->reg, db, subject(c), http_query_bool(c, "permanent", 0),
                                            &versions, &n, &err);
    if (rc == REG_OK)
        http_reply_json(c, 200, api_int_array(versions, n));
    free(versions);
    api_done(c, rc, &err);
}

const http_handler_t handle_subject_delete = {NULL, subject_delete_db};

/* A version that does not parse is 42202 before any database work. */
static http_outcome_t version_delete_loop(http_call_t *c)
{
    int version;
    reg_error_t err;
    if (registry_version_parse(http_param(c, "version"), &version) != 0)
        return api_done(c, registry_invalid_version(&err, http_param(c, "version")), &err);
    return HTTP_TO_DB;
}

static void version_delete_db(http_call_t *c, store_t *db)
{
    int version;
    reg_error_t err;
    reg_code_t rc = registry_delete_version(c->reg, db, subject(c), http_param(c, "version"),
                                            http_query_bool(c, "permanent", 0), &version, &err);
    if (rc == REG_OK)
        http_reply_json(c, 200, json_integer(version));
    api_done(c, rc, &err);
}

const http_handler_t handle_version_delete = {version_delete_loop, version_delete_db};
