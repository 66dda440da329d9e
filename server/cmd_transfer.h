/*
 * cmd_transfer: the export and import commands (docs/operations.md,
 * "Export and import"). They run in-process, on the database the settings
 * name (--database-url, or the embedded cluster under --data-dir) and
 * through the registry layer, as `serve` does; a server running on the same
 * external database sees the imported state through the change feed.
 *
 * Contents
 *   1. export (server/cmd_export.c)
 *   2. import (server/cmd_import.c)
 *
 * Both return the command's exit status: 0 done, 1 a failure (for import:
 * some record was refused), 2 bad usage or unreadable input.
 */
#ifndef SERVER_CMD_TRANSFER_H
#define SERVER_CMD_TRANSFER_H

#include "cmd/fetch.h"
#include "registry/registry.h"

/* ---- 1. export ------------------------------------------------------------ */

/* The version of the JSON-lines format cmd_export writes and cmd_import reads. */
#define CMD_EXPORT_FORMAT  "schema-registry-export"
#define CMD_EXPORT_VERSION 1

/* Writes everything stored in db as JSON lines, in a fixed order, to output
 * (NULL or "-" = stdout; a file is written under a temporary name and
 * renamed when complete). */
int cmd_export(store_t *db, const char *output);

/* ---- 2. import --------------------------------------------------------------- */

typedef struct cmd_import_options {
    const char *file;      /* NULL or "-" = stdin */
    const char *delimiter; /* between key and value in a _schemas dump; NULL = tab */
    /* --from-url: read a running registry instead of a file (cmd/fetch.h);
     * url NULL = a file. */
    cmd_fetch_options_t from;
} cmd_import_options_t;

/* Reads an export, a dump of Confluent's _schemas topic or a running
 * registry's REST API, and writes what the target lacks through IMPORT mode
 * (ids and versions kept). opts: the registry's (feed off). */
int cmd_import(store_t *db, const registry_options_t *reg_opts, const cmd_import_options_t *opts);

#endif
