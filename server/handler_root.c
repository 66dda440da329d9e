/*
 * handler_root: "/", the server metadata and the schema types.
 */
#include <stdio.h>

#include "server/api.h"
#include "server/handlers.h"

static http_outcome_t root(http_call_t *c)
{
    http_reply_json(c, 200, json_object());
    return HTTP_DONE;
}

const http_handler_t handle_root = {root, NULL};

/* Liveness: the process and its event loop answer (from memory, never the database). */
static http_outcome_t health_live(http_call_t *c)
{
    http_reply_json(c, 200, json_pack("{s:s}", "status", "live"));
    return HTTP_DONE;
}

const http_handler_t handle_health_live = {health_live, NULL};

/* Readiness: a database worker has a connection, PostgreSQL answers and the
 * change feed is current within health.ready.max.feed.lag.ms; 503 otherwise. */
static void health_ready(http_call_t *c, store_t *db)
{
    reg_error_t err;
    if (registry_ready(c->reg, db, c->cfg->health_ready_max_feed_lag_ms, &err) != REG_OK) {
        http_reply_error(c, 503, "Not ready: %s", err.message);
        return;
    }
    http_reply_json(c, 200, json_pack("{s:s}", "status", "ready"));
}

const http_handler_t handle_health_ready = {NULL, health_ready};

static http_outcome_t metadata_id(http_call_t *c)
{
    const char *kafka = c->cfg->kafka_cluster_id ? c->cfg->kafka_cluster_id : registry_cluster_id(c->reg);
    const char *group = c->cfg->group_id ? c->cfg->group_id : "schema-registry";
    http_reply_json(c, 200,
                    json_pack("{s:{s:[], s:{s:s, s:s}}}", "scope", "path", "clusters", "kafka-cluster", kafka,
                              "schema-registry-cluster", group));
    return HTTP_DONE;
}

const http_handler_t handle_metadata_id = {metadata_id, NULL};

static http_outcome_t metadata_version(http_call_t *c)
{
    http_reply_json(c, 200, json_pack("{s:s, s:s}", "version", SR_VERSION, "commitId", SR_COMMIT));
    return HTTP_DONE;
}

const http_handler_t handle_metadata_version = {metadata_version, NULL};

/* Confluent's ServerMetadataResource.getSchemaRegistryDeployment: the
 * attributes a deployment sets in its properties (Props); the community
 * server sets none, nor does this one. */
static http_outcome_t metadata_deployment(http_call_t *c)
{
    http_reply_json(c, 200, json_pack("{s:[]}", "attributes"));
    return HTTP_DONE;
}

const http_handler_t handle_metadata_deployment = {metadata_deployment, NULL};

static http_outcome_t schema_types(http_call_t *c)
{
    json_t *types = json_array();
    for (int t = 0; t < SCHEMA_TYPE_COUNT; t++)
        json_array_append_new(types, json_string(schema_type_name((schema_type_t)t)));
    http_reply_json(c, 200, types);
    return HTTP_DONE;
}

const http_handler_t handle_schema_types = {schema_types, NULL};
