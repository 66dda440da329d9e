/*
 * routes: every URL the server answers, in one table (docs/api.md).
 * Anything else is 404, a known path with another method 405 (router.c).
 * Handlers read the named segments with http_param(c, "subject").
 */
#include "server/handlers.h"

#define ROUTE(pattern, get, post, put, del)                                                                  \
    {                                                                                                        \
        pattern, get, post, put, del                                                                         \
    }

const http_route_t http_routes[] = {
    ROUTE("/", &handle_root, &handle_root, NULL, NULL),
    ROUTE("/health/live", &handle_health_live, NULL, NULL, NULL),
    ROUTE("/health/ready", &handle_health_ready, NULL, NULL, NULL),
    ROUTE("/v1/metadata/id", &handle_metadata_id, NULL, NULL, NULL),
    ROUTE("/v1/metadata/version", &handle_metadata_version, NULL, NULL, NULL),
    ROUTE("/v1/metadata/deployment", &handle_metadata_deployment, NULL, NULL, NULL),

    ROUTE("/schemas", &handle_schemas, NULL, NULL, NULL),
    ROUTE("/schemas/types", &handle_schema_types, NULL, NULL, NULL),
    ROUTE("/schemas/ids/{id}", &handle_schema_by_id, NULL, NULL, NULL),
    ROUTE("/schemas/ids/{id}/schema", &handle_schema_text_by_id, NULL, NULL, NULL),
    ROUTE("/schemas/ids/{id}/subjects", &handle_schema_subjects, NULL, NULL, NULL),
    ROUTE("/schemas/ids/{id}/versions", &handle_schema_versions, NULL, NULL, NULL),

    ROUTE("/schemas/guids/{guid}", &handle_schema_by_guid, NULL, NULL, NULL),
    ROUTE("/schemas/guids/{guid}/ids", &handle_schema_guid_ids, NULL, NULL, NULL),
    ROUTE("/contexts", &handle_contexts, NULL, NULL, NULL),
    ROUTE("/contexts/{context}", NULL, NULL, NULL, &handle_context_delete),

    ROUTE("/subjects", &handle_subjects, NULL, NULL, NULL),
    ROUTE("/subjects/{subject}", NULL, &handle_subject_lookup, NULL, &handle_subject_delete),
    ROUTE("/subjects/{subject}/metadata", &handle_subject_metadata, NULL, NULL, NULL),
    ROUTE("/subjects/{subject}/versions", &handle_versions_list, &handle_register, NULL, NULL),
    ROUTE("/subjects/{subject}/versions/{version}", &handle_version_get, NULL, NULL, &handle_version_delete),
    ROUTE("/subjects/{subject}/versions/{version}/schema", &handle_version_schema, NULL, NULL, NULL),
    ROUTE("/subjects/{subject}/versions/{version}/referencedby", &handle_version_referencedby, NULL, NULL,
          NULL),

    ROUTE("/compatibility/subjects/{subject}/versions", NULL, &handle_compat_all, NULL, NULL),
    ROUTE("/compatibility/subjects/{subject}/versions/{version}", NULL, &handle_compat_version, NULL, NULL),

    ROUTE("/config", &handle_config_get, NULL, &handle_config_put, &handle_config_delete),
    ROUTE("/config/{subject}", &handle_config_get, NULL, &handle_config_put, &handle_config_delete),
    ROUTE("/mode", &handle_mode_get, NULL, &handle_mode_put, &handle_mode_delete),
    ROUTE("/mode/{subject}", &handle_mode_get, NULL, &handle_mode_put, &handle_mode_delete),
};

const size_t http_route_count = sizeof http_routes / sizeof *http_routes;
