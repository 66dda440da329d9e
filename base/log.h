/*
 * log: one line per event on stderr, safe to call from any thread.
 *
 *   2026-11-30T04:10:10.123Z INFO listening on 0.0.0.0:8081                  (text, the default)
 *   {"time":"2026-11-30T04:10:10.123Z","level":"INFO","msg":"listening on 0.0.0.0:8081"}  (json)
 *
 * Contents
 *   1. The format: text or json
 *   2. Writing a line
 *   3. Batched lines (the request log)
 *
 * Each line leaves in a single write(2) (alone, or with whole lines of the
 * same thread), so lines from different threads never interleave. Whatever
 * bytes a message holds (a newline in a client-supplied path, invalid UTF-8),
 * one event stays one line: text lines get spaces for control characters,
 * json lines escape them and write each byte that is not valid UTF-8 as
 * U+FFFD, so every json line is one valid JSON object. Lines longer than
 * LOG_LINE_MAX are cut and end in "..." (inside the string, in json).
 */
#ifndef BASE_LOG_H
#define BASE_LOG_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define LOG_LINE_MAX 4096

typedef enum log_level {
    LOG_INFO = 0,
    LOG_WARN,
    LOG_ERROR,
} log_level_t;

/* ---- 1. The format ---------------------------------------------------------- */

typedef enum log_format {
    LOG_FORMAT_TEXT = 0, /* "TIME LEVEL message" */
    LOG_FORMAT_JSON,     /* {"time":..,"level":..,"msg":..} plus fields */
} log_format_t;

/* Chosen once at start-up (log.format, server/config.c); text until then. */
void log_set_format(log_format_t format);
log_format_t log_get_format(void);

/* ---- 2. Writing a line ------------------------------------------------------ */

void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_vwrite(log_level_t level, const char *fmt, va_list ap);
/* A line that one request causes besides its request line (a refusal's
 * reason, say): as log_warn, plus the request's id, " rid=ID" at the end of
 * a text line and "request_id" in a json one, as its request line has it. */
void log_warn_request(const char *request_id, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- 3. Batched lines -------------------------------------------------------- */

/* For a thread that batches its lines (the request log, server/http_server.c):
 * formats one line exactly as log_vwrite would write it (with its '\n', not
 * NUL-terminated) and returns its length; log_write_lines writes whole lines
 * in one write(2). Batches of at most LOG_LINE_MAX bytes stay whole on a pipe. */
size_t log_vformat(char line[LOG_LINE_MAX], log_level_t level, const char *fmt, va_list ap);
size_t log_format(char line[LOG_LINE_MAX], log_level_t level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void log_write_lines(const char *lines, size_t len);
/* Text format: just the start of a line ("2026-11-30T04:10:10.123Z INFO "),
 * for a caller that writes the rest itself (printable, and ending in '\n');
 * its length. */
size_t log_prefix(char line[LOG_LINE_MAX], log_level_t level);

/* One member of a json line: a string of len bytes (any bytes; escaped here),
 * a number, or null (str NULL and is_num 0). Keys are literals. */
typedef struct log_field {
    const char *key;
    const char *str;
    size_t len;
    uint64_t num;
    int is_num;
} log_field_t;

#define LOG_FIELD_STR(k, s, n) ((log_field_t){.key = (k), .str = (s), .len = (n)})
#define LOG_FIELD_NUM(k, v)    ((log_field_t){.key = (k), .num = (v), .is_num = 1})

/* Json format: {"time":..,"level":..,"msg":msg,"key":value,...} and '\n'
 * into line; its length. msg is msg_len bytes, any bytes. A field that no
 * longer fits is left out, so the line stays one valid object. */
size_t log_format_json(char line[LOG_LINE_MAX], log_level_t level, const char *msg, size_t msg_len,
                       const log_field_t *fields, size_t nfields);

#endif
