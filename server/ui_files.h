/*
 * ui_files: the web page's files (ui/), compiled into the binary by
 * server/embed_ui.cmake and served by server/handler_ui.c.
 */
#ifndef SERVER_UI_FILES_H
#define SERVER_UI_FILES_H

#include <stddef.h>

typedef struct ui_file {
    const char *name; /* "index.html": the file's name in ui/ */
    const char *data; /* its bytes, NUL-terminated (the NUL is not in len) */
    size_t len;
} ui_file_t;

extern const ui_file_t ui_files[];
extern const size_t ui_file_count;

#endif
