/*
 * log: timestamped single-write lines on stderr (see log.h).
 *
 * Contents (log.h's numbering)
 *   1. The format
 *   2. Writing a line: timestamps, text lines
 *   3. Batched lines; json lines and their escaping
 */
#include "base/log.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const log_level_names[] = {"INFO", "WARN", "ERROR"};

/* ---- 1. The format ---------------------------------------------------------- */

/* Set before the server's threads start; atomic only so that a late call is no data race. */
static atomic_int log_format_chosen = LOG_FORMAT_TEXT;

void log_set_format(log_format_t format)
{
    atomic_store_explicit(&log_format_chosen, (int)format, memory_order_relaxed);
}

log_format_t log_get_format(void)
{
    return (log_format_t)atomic_load_explicit(&log_format_chosen, memory_order_relaxed);
}

/* ---- 2. Writing a line -------------------------------------------------------- */

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
    if (log_get_format() == LOG_FORMAT_JSON) {
        char msg[LOG_LINE_MAX];
        int m = vsnprintf(msg, sizeof msg, fmt, ap);
        size_t len = m < 0 ? 0 : (size_t)m;
        if (len >= sizeof msg) /* cut, and longer than any line: it ends in "..." below */
            len = sizeof msg - 1;
        return log_format_json(line, level, msg, len, NULL, 0);
    }
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

/* ---- 3. Json lines ------------------------------------------------------------ */

/* The length of the well-formed UTF-8 sequence at s (RFC 3629: no overlong
 * forms, no surrogates, nothing above U+10FFFF), or 0. */
static size_t log_utf8_len(const unsigned char *s, size_t len)
{
    unsigned char c = s[0];
    size_t need;
    unsigned char lo = 0x80, hi = 0xbf; /* the range of the second byte */
    if (c >= 0xc2 && c <= 0xdf)
        need = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        need = 3;
        if (c == 0xe0)
            lo = 0xa0; /* overlong below */
        else if (c == 0xed)
            hi = 0x9f; /* U+D800..U+DFFF */
    } else if (c >= 0xf0 && c <= 0xf4) {
        need = 4;
        if (c == 0xf0)
            lo = 0x90;
        else if (c == 0xf4)
            hi = 0x8f; /* beyond U+10FFFF */
    } else
        return 0;
    if (len < need || s[1] < lo || s[1] > hi)
        return 0;
    for (size_t i = 2; i < need; i++)
        if (s[i] < 0x80 || s[i] > 0xbf)
            return 0;
    return need;
}

/*
 * Appends the inside of a JSON string holding s (len bytes) at line + n,
 * never writing at or past cap, and returns the new length. What does not
 * fit is cut at a whole character, not inside an escape or a UTF-8
 * sequence, and *cut is set (the caller writes "..."; cap leaves room for it).
 */
static size_t log_json_escape(char *line, size_t n, size_t cap, const char *s, size_t len, int *cut)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < len) {
        unsigned char c = p[i];
        char esc[6];
        const char *out = esc;
        size_t out_len, in_len = 1;
        if (c == '"' || c == '\\') {
            esc[0] = '\\', esc[1] = (char)c, out_len = 2;
        } else if (c == '\n' || c == '\r' || c == '\t') {
            esc[0] = '\\', esc[1] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't', out_len = 2;
        } else if (c < 0x20 || c == 0x7f) {
            memcpy(esc, "\\u00", 4);
            esc[4] = hex[c >> 4], esc[5] = hex[c & 15], out_len = 6;
        } else if (c < 0x80) {
            out = (const char *)p + i, out_len = 1;
        } else if ((in_len = log_utf8_len(p + i, len - i)) > 0) {
            out = (const char *)p + i, out_len = in_len;
        } else {
            out = "\\ufffd", out_len = 6, in_len = 1; /* one byte of no character */
        }
        if (out_len > cap - n) {
            *cut = 1;
            return n;
        }
        memcpy(line + n, out, out_len);
        n += out_len;
        i += in_len;
    }
    return n;
}

/* A string member's value at line + n, "..."-cut to leave tail bytes free; the new length. */
static size_t log_json_string(char *line, size_t n, const char *s, size_t len, size_t tail)
{
    int cut = 0;
    line[n++] = '"';
    n = log_json_escape(line, n, LOG_LINE_MAX - tail - 4, s, len, &cut);
    if (cut) {
        memcpy(line + n, "...", 3);
        n += 3;
    }
    line[n++] = '"';
    return n;
}

size_t log_format_json(char line[LOG_LINE_MAX], log_level_t level, const char *msg, size_t msg_len,
                       const log_field_t *fields, size_t nfields)
{
    /* Every value is written with room left for "}\n" (tail) at least. */
    enum { TAIL = 2, NUM_MAX = 20 };
    char ts[32];
    size_t ts_len = log_timestamp(ts, sizeof ts) - 1; /* without its trailing space */
    size_t n = 0;
    memcpy(line, "{\"time\":\"", 9);
    n = 9;
    memcpy(line + n, ts, ts_len);
    n += ts_len;
    memcpy(line + n, "\",\"level\":\"", 11);
    n += 11;
    size_t level_len = strlen(log_level_names[level]);
    memcpy(line + n, log_level_names[level], level_len);
    n += level_len;
    memcpy(line + n, "\",\"msg\":", 8);
    n += 8;
    n = log_json_string(line, n, msg, msg_len, TAIL);
    for (size_t f = 0; f < nfields; f++) {
        size_t key_len = strlen(fields[f].key);
        /* ,"key": and the shortest value it may take ("..." or a number) */
        if (n + key_len + 4 + NUM_MAX + TAIL > LOG_LINE_MAX)
            break;
        line[n++] = ',';
        line[n++] = '"';
        memcpy(line + n, fields[f].key, key_len);
        n += key_len;
        line[n++] = '"';
        line[n++] = ':';
        if (fields[f].is_num)
            n += (size_t)snprintf(line + n, NUM_MAX + 1, "%llu", (unsigned long long)fields[f].num);
        else if (fields[f].str == NULL) {
            memcpy(line + n, "null", 4);
            n += 4;
        } else
            n = log_json_string(line, n, fields[f].str, fields[f].len, TAIL);
    }
    line[n++] = '}';
    line[n++] = '\n';
    return n;
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

void log_warn_request(const char *request_id, const char *fmt, ...)
{
    char msg[LOG_LINE_MAX], line[LOG_LINE_MAX];
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    size_t len = m < 0 ? 0 : (size_t)m;
    if (len >= sizeof msg) /* cut, and longer than any line: it ends in "..." below */
        len = sizeof msg - 1;
    if (log_get_format() == LOG_FORMAT_JSON) {
        log_field_t rid = LOG_FIELD_STR("request_id", request_id, request_id ? strlen(request_id) : 0);
        log_emit(line, log_format_json(line, LOG_WARN, msg, len, &rid, 1));
    } else {
        log_warn("%.*s rid=%s", (int)len, msg, request_id ? request_id : "-");
    }
}

void log_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    log_vwrite(LOG_ERROR, fmt, ap);
    va_end(ap);
}
