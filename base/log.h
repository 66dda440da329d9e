/*
 * log: one line per event on stderr, safe to call from any thread.
 *
 *   2026-11-30T04:10:10.123Z INFO listening on 0.0.0.0:8081
 *
 * Each line leaves in a single write(2) (alone, or with whole lines of the
 * same thread), so lines from different threads never interleave. Control characters in the message (a
 * newline in a client-supplied path, say) are replaced so one event stays one line. Lines longer than
 * LOG_LINE_MAX are cut and end in "...".
 */
#ifndef BASE_LOG_H
#define BASE_LOG_H

#include <stdarg.h>
#include <stddef.h>

#define LOG_LINE_MAX 4096

typedef enum log_level {
    LOG_INFO = 0,
    LOG_WARN,
    LOG_ERROR,
} log_level_t;

void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_vwrite(log_level_t level, const char *fmt, va_list ap);

/* For a thread that batches its lines (the request log, server/http_server.c):
 * formats one line exactly as log_vwrite would write it (with its '\n', not
 * NUL-terminated) and returns its length; log_write_lines writes whole lines
 * in one write(2). Batches of at most LOG_LINE_MAX bytes stay whole on a pipe. */
size_t log_vformat(char line[LOG_LINE_MAX], log_level_t level, const char *fmt, va_list ap);
size_t log_format(char line[LOG_LINE_MAX], log_level_t level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void log_write_lines(const char *lines, size_t len);
/* Just the start of a line ("2026-11-30T04:10:10.123Z INFO "), for a caller
 * that writes the rest itself (printable, and ending in '\n'); its length. */
size_t log_prefix(char line[LOG_LINE_MAX], log_level_t level);

#endif
