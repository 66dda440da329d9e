/*
 * handler_audit: GET /audit, the audit trail (docs/api.md "Audit trail",
 * docs/security.md "Audit trail"). The query is decoded and checked on the
 * loop; the rows come from the database.
 *
 * Contents
 *   1. RFC 3339 times
 *   2. GET /audit
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/alloc.h"
#include "server/api.h"
#include "server/handlers.h"

#define AUDIT_LIMIT_DEFAULT 100

/* ---- 1. RFC 3339 times ---------------------------------------------------- */

/* n decimal digits at *p (advanced); -1 when they are not digits. */
static int audit_digits(const char **p, int n)
{
    int v = 0;
    for (int i = 0; i < n; i++, (*p)++) {
        if (**p < '0' || **p > '9')
            return -1;
        v = v * 10 + (**p - '0');
    }
    return v;
}

static int audit_days_in_month(int year, int month)
{
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return month == 2 && leap ? 29 : days[month - 1];
}

/*
 * RFC 3339 section 5.6 date-time ("2026-12-01T13:56:41Z",
 * "2026-12-01t13:56:41.5+01:00"): 0 and *us (microseconds since the epoch,
 * fractions beyond microseconds cut), or -1. A leap second reads as :59.
 */
static int audit_parse_time(const char *s, int64_t *us)
{
    const char *p = s;
    int year = audit_digits(&p, 4);
    if (year < 0 || *p++ != '-')
        return -1;
    int month = audit_digits(&p, 2);
    if (month < 1 || month > 12 || *p++ != '-')
        return -1;
    int day = audit_digits(&p, 2);
    if (day < 1 || day > audit_days_in_month(year, month) || (*p != 'T' && *p != 't' && *p != ' '))
        return -1;
    p++;
    int hour = audit_digits(&p, 2);
    if (hour < 0 || hour > 23 || *p++ != ':')
        return -1;
    int min = audit_digits(&p, 2);
    if (min < 0 || min > 59 || *p++ != ':')
        return -1;
    int sec = audit_digits(&p, 2);
    if (sec < 0 || sec > 60)
        return -1;
    int64_t frac = 0;
    if (*p == '.') {
        p++;
        int n = 0;
        for (; *p >= '0' && *p <= '9'; p++, n++)
            if (n < 6)
                frac = frac * 10 + (*p - '0');
        if (n == 0)
            return -1;
        for (; n < 6; n++)
            frac *= 10;
    }
    int offset_min = 0;
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        int sign = *p++ == '-' ? -1 : 1;
        int oh = audit_digits(&p, 2);
        if (oh < 0 || oh > 23 || *p++ != ':')
            return -1;
        int om = audit_digits(&p, 2);
        if (om < 0 || om > 59)
            return -1;
        offset_min = sign * (oh * 60 + om);
    } else {
        return -1;
    }
    if (*p != '\0')
        return -1;
    struct tm tm = {.tm_year = year - 1900,
                    .tm_mon = month - 1,
                    .tm_mday = day,
                    .tm_hour = hour,
                    .tm_min = min,
                    .tm_sec = sec == 60 ? 59 : sec};
    int64_t t = (int64_t)timegm(&tm) - (int64_t)offset_min * 60;
    *us = t * 1000000 + frac;
    return 0;
}

/* ---- 2. GET /audit ------------------------------------------------------------ */

/* The decoded query, kept for the database part; strings are the call's. */
typedef struct audit_kept {
    reg_audit_query_t q;
} audit_kept_t;

static int audit_query_time(http_call_t *c, const char *name, int *has, int64_t *us)
{
    const char *v = http_query(c, name);
    if (v == NULL)
        return 0;
    if (audit_parse_time(v, us) != 0) {
        http_reply_error(c, 400, "'%s' must be an RFC 3339 date-time such as 2026-01-31T12:00:00Z", name);
        return -1;
    }
    *has = 1;
    return 0;
}

/* An empty filter value is no filter. */
static const char *audit_filter(const http_call_t *c, const char *name)
{
    const char *v = http_query(c, name);
    return v && *v ? v : NULL;
}

static http_outcome_t audit_loop(http_call_t *c)
{
    audit_kept_t *k = xcalloc(1, sizeof *k);
    http_call_keep(c, k, NULL);
    reg_audit_query_t *q = &k->q;
    if (http_query_int(c, "offset", 0, &q->offset) != 0 ||
        http_query_int(c, "limit", AUDIT_LIMIT_DEFAULT, &q->limit) != 0) {
        http_reply_error(c, 400, "'offset' and 'limit' must be integers");
        return HTTP_DONE;
    }
    if (q->offset < 0 || q->limit < 1 || q->limit > REG_AUDIT_LIMIT_MAX) {
        http_reply_error(c, 422, "'limit' must be 1..%d and 'offset' at least 0", REG_AUDIT_LIMIT_MAX);
        return HTTP_DONE;
    }
    if (audit_query_time(c, "since", &q->has_since, &q->since_us) != 0 ||
        audit_query_time(c, "until", &q->has_until, &q->until_us) != 0)
        return HTTP_DONE;
    if (q->has_since && q->has_until && q->since_us > q->until_us) {
        http_reply_error(c, 422, "'since' is later than 'until'");
        return HTTP_DONE;
    }
    q->subject = audit_filter(c, "subject");
    q->principal = audit_filter(c, "principal");
    q->action = audit_filter(c, "action");
    return HTTP_TO_DB;
}

static void audit_db(http_call_t *c, store_t *db)
{
    const audit_kept_t *k = c->kept;
    json_t *rows;
    reg_error_t err;
    if (registry_audit_list(c->reg, db, &k->q, &rows, &err) != REG_OK) {
        http_reply_reg_error(c, &err);
        return;
    }
    http_reply_json(c, 200, rows);
}

const http_handler_t handle_audit = {audit_loop, audit_db};
