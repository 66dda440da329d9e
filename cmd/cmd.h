/*
 * cmd: the consumer's commands, `schema-registry decode` and `encode`
 * (docs/decoding.md). A layer of its own above client/: server/main.c only
 * dispatches to it, and nothing here sees the server, the registry or the
 * store, so the commands need no database.
 *
 * Contents
 *   1. The commands
 *   2. What they share (cmd_common.c): registry flags, record lines
 *
 * Exit statuses: 0 done, 1 a bad record (FAILFAST) or the registry failed,
 * 2 bad usage, 3 restart: a record was written with a newer version.
 */
#ifndef CMD_CMD_H
#define CMD_CMD_H

#include <stddef.h>
#include <stdio.h>

#include "client/client.h"

#define CMD_EXIT_OK      0
#define CMD_EXIT_FAIL    1
#define CMD_EXIT_USAGE   2
#define CMD_EXIT_RESTART 3

/* ---- 1. The commands ------------------------------------------------------- */

/* argv[0] is the command's name. */
int cmd_decode(int argc, char **argv);
int cmd_encode(int argc, char **argv);

/* ---- 2. What they share ------------------------------------------------------ */

typedef enum cmd_lines {
    CMD_LINES_HEX,
    CMD_LINES_BASE64,
} cmd_lines_t;

/* The registry flags every command takes: 1 when argv[*i] was one of them
 * (consuming its value), 0 when not, -1 on a missing value. */
int cmd_client_flag(int argc, char **argv, int *i, srclient_options_t *o);
/* "--registry URL  ..." lines for the usage texts. */
extern const char cmd_client_usage[];

/* A command's own flag: a value into *value, or a switch setting *on to 1. */
typedef struct cmd_flag {
    const char *name;
    const char **value;
    int *on;
} cmd_flag_t;
/*
 * Reads argv[1..argc) of command name: the registry flags, --help, the
 * command's flags (a table ending in {NULL}), and the rest as file names into
 * files (argc slots, the caller's) and *nfiles. Returns -1 to go on, else the
 * exit status: CMD_EXIT_OK after printing usage (a printf format with one %s,
 * cmd_client_usage) for --help, CMD_EXIT_USAGE after saying on stderr which
 * flag is unknown or lacks its value.
 */
int cmd_read_args(const char *name, int argc, char **argv, srclient_options_t *copts, const cmd_flag_t *flags,
                  const char *usage, char **files, int *nfiles);
/* One record line (hex or base64, surrounding blanks ignored) as bytes. 0 or -1. */
int cmd_line_bytes(cmd_lines_t f, const char *line, size_t len, strbuf_t *out);
/* The bytes as one line (no newline). */
void cmd_bytes_line(cmd_lines_t f, const unsigned char *s, size_t n, FILE *out);
/* "hex" / "base64": 0, else -1. */
int cmd_lines_parse(const char *s, cmd_lines_t *out);

#endif
