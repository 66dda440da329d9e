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

/* "2026-11-30T04:10:10.123Z " into buf (at least 32 bytes); returns its length.
 * The date and time up to the second are formatted once per second and
 * thread (the request log writes tens of thousands of lines a second). */
static size_t log_timestamp(char *buf, size_t cap)
{
    static __thread time_t cached_sec = -1;
    static __thread char cached[24];
    static __thread size_t cached_len;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    if (ts.tv_sec != cached_sec) {
        struct tm tm;
        gmtime_r(&ts.tv_sec, &tm);
        cached_len = strftime(cached, sizeof cached, "%Y-%m-%dT%H:%M:%S", &tm);
        cached_sec = ts.tv_sec;
    }
    size_t n = cached_len < cap ? cached_len : 0;
    memcpy(buf, cached, n);
    long ms = ts.tv_nsec / 1000000;
    if (cap - n < 7)
        return n;
    buf[n++] = '.';
    buf[n++] = (char)('0' + ms / 100);
    buf[n++] = (char)('0' + ms / 10 % 10);
    buf[n++] = (char)('0' + ms % 10);
    buf[n++] = 'Z';
    buf[n++] = ' ';
    buf[n] = '\0';
    return n;
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

size_t log_prefix(char line[LOG_LINE_MAX], log_level_t level)
{
    size_t n = log_timestamp(line, LOG_LINE_MAX);
    size_t len = strlen(log_level_names[level]);
    memcpy(line + n, log_level_names[level], len);
    line[n + len] = ' ';
    return n + len + 1;
}

size_t log_vformat(char line[LOG_LINE_MAX], log_level_t level, const char *fmt, va_list ap)
{
    size_t n = log_prefix(line, level);

    size_t room = LOG_LINE_MAX - n - 1; /* keep one byte for '\n' */
    int m = vsnprintf(line + n, room + 1, fmt, ap);
    size_t msg = m < 0 ? 0 : (size_t)m;
    if (msg > room) {
        msg = room;
        memcpy(line + n + msg - 3, "...", 3);
    }
    log_flatten(line + n, msg);
    n += msg;
    line[n++] = '\n';
    return n;
}

size_t log_format(char line[LOG_LINE_MAX], log_level_t level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t n = log_vformat(line, level, fmt, ap);
    va_end(ap);
    return n;
}

void log_write_lines(const char *lines, size_t len)
{
    log_emit(lines, len);
}

void log_vwrite(log_level_t level, const char *fmt, va_list ap)
{
    char line[LOG_LINE_MAX];
    log_emit(line, log_vformat(line, level, fmt, ap));
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
