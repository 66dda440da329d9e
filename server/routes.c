/*
 * routes: every URL the server answers, in one table (docs/api.md).
 * Anything else is 404, a known path with another method 405 (router.c).
 * Handlers read the named segments with http_param(c, "subject").
 *
 * Every method names its handler and what it needs of the principal
 * (server/authz.h, docs/security.md "Authorization"): ON(handler, PERM,
 * SCOPE), or NO for a method the path does not answer. ROUTE takes exactly
 * four of them, so a method without a declared permission does not compile;
 * tests/unit/test_authz.c checks that none is declared as 0 either.
 */
#include "server/handlers.h"

#define ON(handler, perm, scope) handler, HTTP_PERM_##perm, HTTP_SCOPE_##scope
#define NO                       NULL, HTTP_PERM_UNDECLARED, HTTP_SCOPE_UNDECLARED

/* clang-format off */
#define ROUTE_(pattern, get, gp, gs, post, pp, ps, put, up, us, del, dp, ds) \
    {pattern, get, post, put, del, {{gp, gs}, {pp, ps}, {up, us}, {dp, ds}}}
/* clang-format on */
#define ROUTE(pattern, get, post, put, del) ROUTE_(pattern, get, post, put, del)

const http_route_t http_routes[] = {
    ROUTE("/", ON(&handle_root, READ, ANY), ON(&handle_root, READ, ANY), NO, NO),
    ROUTE("/health/live", ON(&handle_health_live, READ, ANY), NO, NO, NO),
    ROUTE("/health/ready", ON(&handle_health_ready, READ, ANY), NO, NO, NO),
    /* Prometheus: admin on /metrics once rules exist (docs/operations.md "Metrics"). */
    ROUTE("/metrics", ON(&handle_metrics, ADMIN, METRICS), NO, NO, NO),
    ROUTE("/v1/metadata/id", ON(&handle_metadata_id, READ, ANY), NO, NO, NO),
    ROUTE("/v1/metadata/version", ON(&handle_metadata_version, READ, ANY), NO, NO, NO),
    ROUTE("/v1/metadata/deployment", ON(&handle_metadata_deployment, READ, ANY), NO, NO, NO),

    /* FILTERED: the handler shows or serves only what a readable subject carries. */
    ROUTE("/schemas", ON(&handle_schemas, READ, FILTERED), NO, NO, NO),
    ROUTE("/schemas/types", ON(&handle_schema_types, READ, ANY), NO, NO, NO),
    ROUTE("/schemas/ids/{id}", ON(&handle_schema_by_id, READ, FILTERED), NO, NO, NO),
    ROUTE("/schemas/ids/{id}/schema", ON(&handle_schema_text_by_id, READ, FILTERED), NO, NO, NO),
    ROUTE("/schemas/ids/{id}/subjects", ON(&handle_schema_subjects, READ, FILTERED), NO, NO, NO),
    ROUTE("/schemas/ids/{id}/versions", ON(&handle_schema_versions, READ, FILTERED), NO, NO, NO),

    ROUTE("/schemas/guids/{guid}", ON(&handle_schema_by_guid, READ, SCHEMAS), NO, NO, NO),
    ROUTE("/schemas/guids/{guid}/ids", ON(&handle_schema_guid_ids, READ, SCHEMAS), NO, NO, NO),
    ROUTE("/contexts", ON(&handle_contexts, READ, CONTEXTS), NO, NO, NO),
    ROUTE("/contexts/{context}", NO, NO, NO, ON(&handle_context_delete, ADMIN, CONTEXTS)),

    ROUTE("/subjects", ON(&handle_subjects, READ, FILTERED), NO, NO, NO),
    ROUTE("/subjects/{subject}", NO, ON(&handle_subject_lookup, READ, SUBJECT), NO,
          ON(&handle_subject_delete, DELETE, SUBJECT)),
    ROUTE("/subjects/{subject}/metadata", ON(&handle_subject_metadata, READ, SUBJECT), NO, NO, NO),
    ROUTE("/subjects/{subject}/versions", ON(&handle_versions_list, READ, SUBJECT),
          ON(&handle_register, WRITE, SUBJECT), NO, NO),
    ROUTE("/subjects/{subject}/versions/{version}", ON(&handle_version_get, READ, SUBJECT), NO, NO,
          ON(&handle_version_delete, DELETE, SUBJECT)),
    ROUTE("/subjects/{subject}/versions/{version}/schema", ON(&handle_version_schema, READ, SUBJECT), NO, NO,
          NO),
    /* SUBJECT, and the ids listed are filtered as a listing's. */
    ROUTE("/subjects/{subject}/versions/{version}/referencedby",
          ON(&handle_version_referencedby, READ, SUBJECT), NO, NO, NO),
    ROUTE("/subjects/{subject}/versions/{version}/tags", NO, ON(&handle_version_tags, WRITE, SUBJECT), NO,
          NO),

    /* A check changes nothing: reading the subject is enough. */
    ROUTE("/compatibility/subjects/{subject}/versions", NO, ON(&handle_compat_all, READ, SUBJECT), NO, NO),
    ROUTE("/compatibility/subjects/{subject}/versions/{version}", NO,
          ON(&handle_compat_version, READ, SUBJECT), NO, NO),

    /* Changes between versions (docs/evolution.md): reading the subject is enough. POST /changes
     * compares two schemas the client sends and stores nothing: any principal may (READ on ANY,
     * as /schemas/types); the subjects its references name must each be readable, checked by the
     * handler. */
    ROUTE("/subjects/{subject}/versions/{version}/changes", ON(&handle_version_changes, READ, SUBJECT), NO,
          NO, NO),
    ROUTE("/changes", NO, ON(&handle_changes, READ, ANY), NO, NO),
    /* History (docs/evolution.md): the subject's versions with who and what from the audit
     * trail; reading the subject is enough, as for its versions. */
    ROUTE("/subjects/{subject}/history", ON(&handle_history, READ, SUBJECT), NO, NO, NO),
    /* Rollback registers a version (WRITE); ?mode=delete deletes versions instead, and the
     * handler also requires DELETE on the subject for it. */
    ROUTE("/subjects/{subject}/rollback", NO, ON(&handle_rollback, WRITE, SUBJECT), NO, NO),
    /* The web page (docs/evolution.md "Web page"): static files that reveal nothing; the API
     * calls the page makes are authorized as any. */
    ROUTE("/ui", ON(&handle_ui_html, READ, ANY), NO, NO, NO),
    ROUTE("/ui/ui.css", ON(&handle_ui_css, READ, ANY), NO, NO, NO),
    ROUTE("/ui/ui.js", ON(&handle_ui_js, READ, ANY), NO, NO, NO),
    ROUTE("/ui/{file}", ON(&handle_ui_html, READ, ANY), NO, NO, NO),

    ROUTE("/config", ON(&handle_config_get, READ, CONFIG), NO, ON(&handle_config_put, ADMIN, CONFIG),
          ON(&handle_config_delete, ADMIN, CONFIG)),
    ROUTE("/config/{subject}", ON(&handle_config_get, READ, SUBJECT), NO,
          ON(&handle_config_put, ADMIN, SUBJECT), ON(&handle_config_delete, ADMIN, SUBJECT)),
    ROUTE("/mode", ON(&handle_mode_get, READ, MODE), NO, ON(&handle_mode_put, ADMIN, MODE),
          ON(&handle_mode_delete, ADMIN, MODE)),
    ROUTE("/mode/{subject}", ON(&handle_mode_get, READ, SUBJECT), NO, ON(&handle_mode_put, ADMIN, SUBJECT),
          ON(&handle_mode_delete, ADMIN, SUBJECT)),
    ROUTE("/audit", ON(&handle_audit, ADMIN, AUDIT), NO, NO, NO),

    /* Associations (docs/security.md "Authorization"): FILTERED, the handler
     * shows only readable subjects' and needs write (create) or delete on
     * every subject a change names. */
    ROUTE("/associations", NO, ON(&handle_assoc_create, WRITE, FILTERED), NO, NO),
    ROUTE("/associations:batchGet", NO, ON(&handle_assoc_batch_get, READ, FILTERED), NO, NO),
    ROUTE("/associations:batchMutate", NO, ON(&handle_assoc_batch_mutate, WRITE, FILTERED), NO, NO),
    ROUTE("/associations/subjects/{subject}", ON(&handle_assoc_by_subject, READ, SUBJECT), NO, NO, NO),
    ROUTE("/associations/resources/{resourceId}", ON(&handle_assoc_by_resource_id, READ, FILTERED), NO,
          ON(&handle_assoc_update, WRITE, FILTERED), ON(&handle_assoc_delete, DELETE, FILTERED)),
    ROUTE("/associations/resources/{resourceNamespace}/{resourceName}",
          ON(&handle_assoc_by_resource_name, READ, FILTERED), NO, NO, NO),
};

const size_t http_route_count = sizeof http_routes / sizeof *http_routes;
