/*
 * handler_ui: GET /ui/ and its files, the web page of docs/evolution.md
 * ("Web page"). The files are in the binary (server/ui_files.h); served
 * from memory on the loop. The page itself reveals nothing: it calls the
 * REST API from the browser, and those calls are authorized as any.
 *
 * A handler has one media type (http_handler_t), so there is one handler
 * per type: /ui/ui.css and /ui/ui.js have literal routes, /ui/{file}
 * serves only .html files, so a script is never sent as text/html. Any
 * other name is 404 with a Confluent error body.
 */
#include <string.h>

#include "server/handlers.h"
#include "server/ui_files.h"

/* The file named name when it ends in ext, or NULL. */
static const ui_file_t *ui_find_(const char *name, const char *ext)
{
    size_t n = strlen(name), e = strlen(ext);
    if (n <= e || strcmp(name + n - e, ext) != 0)
        return NULL;
    for (size_t i = 0; i < ui_file_count; i++)
        if (strcmp(ui_files[i].name, name) == 0)
            return &ui_files[i];
    return NULL;
}

static http_outcome_t ui_serve_(http_call_t *c, const char *name, const char *ext)
{
    const ui_file_t *f = ui_find_(name, ext);
    if (f == NULL) {
        http_reply_error(c, 404, "HTTP 404 Not Found");
        return HTTP_DONE;
    }
    http_reply_text(c, 200, f->data, f->len);
    return HTTP_DONE;
}

/* /ui (the trailing '/' is dropped by the router) is index.html; /ui/{file} any .html. */
static http_outcome_t ui_html(http_call_t *c)
{
    return ui_serve_(c, http_has_param(c, "file") ? http_param(c, "file") : "index.html", ".html");
}

/* One stylesheet and one script, each on its own literal route (server/routes.c). */
static http_outcome_t ui_css(http_call_t *c)
{
    return ui_serve_(c, "ui.css", ".css");
}

static http_outcome_t ui_js(http_call_t *c)
{
    return ui_serve_(c, "ui.js", ".js");
}

const http_handler_t handle_ui_html = {ui_html, NULL, "text/html; charset=utf-8"};
const http_handler_t handle_ui_css = {ui_css, NULL, "text/css; charset=utf-8"};
const http_handler_t handle_ui_js = {ui_js, NULL, "application/javascript; charset=utf-8"};
