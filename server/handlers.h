/*
 * handlers: one function per (route, method), grouped by resource file.
 * All share the http_handler_fn signature of server/http.h.
 */
#ifndef SERVER_HANDLERS_H
#define SERVER_HANDLERS_H

#include "server/http.h"

/* handler_root.c */
http_outcome_t handle_root(http_call_t *c, store_t *db);
http_outcome_t handle_metadata_id(http_call_t *c, store_t *db);
http_outcome_t handle_metadata_version(http_call_t *c, store_t *db);
http_outcome_t handle_schema_types(http_call_t *c, store_t *db);

/* handler_schemas.c */
http_outcome_t handle_schemas(http_call_t *c, store_t *db);
http_outcome_t handle_schema_by_id(http_call_t *c, store_t *db);
http_outcome_t handle_schema_text_by_id(http_call_t *c, store_t *db);
http_outcome_t handle_schema_subjects(http_call_t *c, store_t *db);
http_outcome_t handle_schema_versions(http_call_t *c, store_t *db);
http_outcome_t handle_schema_by_guid(http_call_t *c, store_t *db);
http_outcome_t handle_schema_guid_ids(http_call_t *c, store_t *db);
http_outcome_t handle_contexts(http_call_t *c, store_t *db);

/* handler_subjects.c */
http_outcome_t handle_subjects(http_call_t *c, store_t *db);
http_outcome_t handle_subject_lookup(http_call_t *c, store_t *db);
http_outcome_t handle_subject_delete(http_call_t *c, store_t *db);
http_outcome_t handle_versions_list(http_call_t *c, store_t *db);
http_outcome_t handle_register(http_call_t *c, store_t *db);
http_outcome_t handle_version_get(http_call_t *c, store_t *db);
http_outcome_t handle_version_schema(http_call_t *c, store_t *db);
http_outcome_t handle_version_referencedby(http_call_t *c, store_t *db);
http_outcome_t handle_version_delete(http_call_t *c, store_t *db);

/* handler_compat.c */
http_outcome_t handle_compat_version(http_call_t *c, store_t *db);
http_outcome_t handle_compat_all(http_call_t *c, store_t *db);

/* handler_config.c */
http_outcome_t handle_config_get(http_call_t *c, store_t *db);
http_outcome_t handle_config_put(http_call_t *c, store_t *db);
http_outcome_t handle_config_delete(http_call_t *c, store_t *db);
http_outcome_t handle_mode_get(http_call_t *c, store_t *db);
http_outcome_t handle_mode_put(http_call_t *c, store_t *db);
http_outcome_t handle_mode_delete(http_call_t *c, store_t *db);

#endif
