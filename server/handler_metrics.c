/*
 * handler_metrics: GET /metrics, the Prometheus text of server/metrics.c
 * (docs/operations.md "Metrics"). From memory, on the loop: a scrape
 * answers while the database is down, which is when it matters most.
 */
#include <stdlib.h>

#include "server/handlers.h"
#include "server/metrics.h"

static http_outcome_t metrics_get(http_call_t *c)
{
    size_t len;
    char *text = metrics_render(c->metrics, c->reg, &len);
    http_reply_text(c, 200, text, len);
    free(text);
    return HTTP_DONE;
}

const http_handler_t handle_metrics = {metrics_get, NULL, METRICS_MEDIA};
