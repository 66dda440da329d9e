/*
 * log: timestamped single-write lines on stderr (see log.h).
 */
#include "base/log.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const log_level_names[] = {"INFO", "WARN", "ERROR"};

/* "2026-11-30T04:10:10.123Z " into buf (at least 32 bytes); returns its length. */
static size_t log_timestamp(char *buf, size_t cap)
{
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    size_t n = strftime(buf, cap, "%Y-%m-%dT%H:%M:%S", &tm);
    int m = snprintf(buf + n, cap - n, ".%03ldZ ", ts.tv_nsec / 1000000);
    return n + (size_t)(m > 0 ? m : 0);
}

/* One event must stay one line, whatever bytes a client managed to put in it. */
static void log_flatten(char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f)
            s[i] = ' ';
    }
}

static void log_emit(const char *line, size_t len)
{
    while (len > 0) {
        ssize_t w = write(STDERR_FILENO, line, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return; /* nowhere left to complain to */
        line += w;
        len -= (size_t)w;
    }
}

void log_vwrite(log_level_t level, const char *fmt, va_list ap)
{
    char line[LOG_LINE_MAX];
    size_t n = log_timestamp(line, sizeof line);
    n += (size_t)snprintf(line + n, sizeof line - n, "%s ", log_level_names[level]);

    size_t room = sizeof line - n - 1; /* keep one byte for '\n' */
    int m = vsnprintf(line + n, room + 1, fmt, ap);
    size_t msg = m < 0 ? 0 : (size_t)m;
    if (msg > room) {
        msg = room;
        memcpy(line + n + msg - 3, "...", 3);
    }
    log_flatten(line + n, msg);
    n += msg;
    line[n++] = '\n';
    log_emit(line, n);
}

void log_info(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_vwrite(LOG_INFO, fmt, ap);
    va_end(ap);
}

void log_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_vwrite(LOG_WARN, fmt, ap);
    va_end(ap);
}

void log_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_vwrite(LOG_ERROR, fmt, ap);
    va_end(ap);
}
