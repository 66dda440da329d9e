/*
 * handlers: one http_handler_t per (route, method), grouped by resource file.
 * Each is a memory part and/or a database part (server/http.h section 2).
 */
#ifndef SERVER_HANDLERS_H
#define SERVER_HANDLERS_H

#include "server/http.h"

/* handler_root.c */
extern const http_handler_t handle_root;
extern const http_handler_t handle_health_live;
extern const http_handler_t handle_health_ready;
extern const http_handler_t handle_metadata_id;
extern const http_handler_t handle_metadata_version;
extern const http_handler_t handle_metadata_deployment;
extern const http_handler_t handle_schema_types;

/* handler_metrics.c */
extern const http_handler_t handle_metrics;

/* handler_schemas.c */
extern const http_handler_t handle_schemas;
extern const http_handler_t handle_schema_by_id;
extern const http_handler_t handle_schema_text_by_id;
extern const http_handler_t handle_schema_subjects;
extern const http_handler_t handle_schema_versions;
extern const http_handler_t handle_schema_by_guid;
extern const http_handler_t handle_schema_guid_ids;
extern const http_handler_t handle_contexts;
extern const http_handler_t handle_context_delete;

/* handler_subjects.c */
extern const http_handler_t handle_subjects;
extern const http_handler_t handle_subject_lookup;
extern const http_handler_t handle_subject_delete;
extern const http_handler_t handle_subject_metadata;
extern const http_handler_t handle_versions_list;
extern const http_handler_t handle_register;
extern const http_handler_t handle_version_get;
extern const http_handler_t handle_version_schema;
extern const http_handler_t handle_version_referencedby;
extern const http_handler_t handle_version_delete;
extern const http_handler_t handle_version_tags;

/* handler_compat.c */
extern const http_handler_t handle_compat_version;
extern const http_handler_t handle_compat_all;

/* handler_changes.c */
extern const http_handler_t handle_version_changes;
extern const http_handler_t handle_history;
extern const http_handler_t handle_rollback;
extern const http_handler_t handle_changes;

/* handler_ui.c */
extern const http_handler_t handle_ui_html;
extern const http_handler_t handle_ui_css;
extern const http_handler_t handle_ui_js;

/* handler_config.c */
extern const http_handler_t handle_config_get;
extern const http_handler_t handle_config_put;
extern const http_handler_t handle_config_delete;
extern const http_handler_t handle_mode_get;
extern const http_handler_t handle_mode_put;
extern const http_handler_t handle_mode_delete;

/* handler_audit.c */
extern const http_handler_t handle_audit;

/* handler_associations.c */
extern const http_handler_t handle_assoc_by_subject;
extern const http_handler_t handle_assoc_by_resource_id;
extern const http_handler_t handle_assoc_by_resource_name;
extern const http_handler_t handle_assoc_create;
extern const http_handler_t handle_assoc_update;
extern const http_handler_t handle_assoc_batch_get;
extern const http_handler_t handle_assoc_batch_mutate;
extern const http_handler_t handle_assoc_delete;

#endif
