/*
 * metrics: per-loop request counters and the Prometheus text of a scrape
 * (metrics.h).
 *
 * Contents
 *   1. The set and its shards
 *   2. Counting a request
 *   3. Text: families, labels, numbers
 *   4. The scrape: HTTP, pool, registry, build and process
 *
 * A shard is a few flat arrays indexed by (route, method[, status or
 * bucket]), sized at start from the route table, so counting is index
 * arithmetic and two stores. Counters are _Atomic only so that a scrape's
 * read of another thread's counter is defined; the owner never needs a
 * read-modify-write (it is the only writer), so it loads and stores relaxed,
 * which compiles to plain moves.
 */
#include "server/metrics.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "server/dbpool.h"

/* ---- 1. The set -------------------------------------------------------------- */

#define METRICS_METHODS 6 /* HTTP_GET .. HTTP_OTHER */

static const char *const metrics_method_names[METRICS_METHODS] = {"GET",    "POST", "PUT",
                                                                  "DELETE", "HEAD", "OTHER"};

/* Every status the server answers with (http_server.c's reasons, 499 for a
 * client gone); anything else counts under its class ("2xx" .. "5xx"). */
static const int metrics_statuses[] = {200, 201, 204, 400, 401, 403, 404, 405, 406,
                                       408, 409, 413, 415, 422, 429, 499, 500, 503};
#define METRICS_NSTATUS  (sizeof metrics_statuses / sizeof *metrics_statuses)
#define METRICS_NCLASSES 5 /* 1xx .. 5xx */
#define METRICS_SLOTS    (METRICS_NSTATUS + METRICS_NCLASSES)

/* Bucket bounds in microseconds and as the le label shows them in seconds.
 * From a by-id read (tens of microseconds) to a registration under load. */
static const uint64_t metrics_bounds_us[] = {100,     250,     500,     1000,    2500,   5000,
                                             10000,   25000,   50000,   100000,  250000, 500000,
                                             1000000, 2500000, 5000000, 10000000};
static const char *const metrics_bounds_le[] = {"0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.005",
                                                "0.01",   "0.025",   "0.05",   "0.1",   "0.25",   "0.5",
                                                "1",      "2.5",     "5",      "10",    "+Inf"};
#define METRICS_NBOUNDS  (sizeof metrics_bounds_us / sizeof *metrics_bounds_us)
#define METRICS_NBUCKETS (METRICS_NBOUNDS + 1) /* the last is +Inf */
_Static_assert(sizeof metrics_bounds_le / sizeof *metrics_bounds_le == METRICS_NBUCKETS,
               "one label per bucket");

typedef _Atomic uint64_t metrics_counter_t;

struct metrics_shard {
    const http_route_t *routes;  /* the table counted by (borrowed) */
    size_t nroutes;              /* its entries; index nroutes is "unmatched" */
    metrics_counter_t *requests; /* [route][method][status slot] */
    metrics_counter_t *buckets;  /* [route][method][bucket], not cumulative */
    metrics_counter_t *sum_us;   /* [route][method] */
    const atomic_int *connections; /* the loop's open connections (borrowed); NULL until set */
};

struct metrics {
    size_t nshards;
    const http_route_t *routes; /* borrowed */
    size_t nroutes;             /* entries of routes + 1: the last is "unmatched" */
    metrics_shard_t *shards;
    struct dbpool *pool;           /* borrowed; NULL until the server starts */
    const atomic_int *connections; /* borrowed */
    double start_time_s;           /* the process's, as Unix time */
};

/* The process's start (Linux: /proc/self/stat's starttime after /proc/stat's btime), else now. */
static double metrics_process_start(void)
{
    double now = (double)time(NULL);
    FILE *f = fopen("/proc/stat", "r");
    if (!f)
        return now;
    char line[256];
    long long btime = -1;
    while (btime < 0 && fgets(line, sizeof line, f))
        if (sscanf(line, "btime %lld", &btime) != 1)
            btime = -1;
    fclose(f);
    f = fopen("/proc/self/stat", "r");
    if (!f || btime < 0) {
        if (f)
            fclose(f);
        return now;
    }
    char stat[1024];
    size_t n = fread(stat, 1, sizeof stat - 1, f);
    fclose(f);
    stat[n] = '\0';
    /* After the command name's closing parenthesis: field 3 on; starttime is field 22. */
    char *p = strrchr(stat, ')');
    unsigned long long ticks = 0;
    int field = 2;
    for (char *save = NULL, *tok = p ? strtok_r(p + 1, " ", &save) : NULL; tok;
         tok = strtok_r(NULL, " ", &save))
        if (++field == 22) {
            ticks = strtoull(tok, NULL, 10);
            break;
        }
    long hz = sysconf(_SC_CLK_TCK);
    return field == 22 && hz > 0 ? (double)btime + (double)ticks / (double)hz : now;
}

metrics_t *metrics_new(size_t nshards, const http_route_t *routes, size_t nroutes)
{
    metrics_t *m = xcalloc(1, sizeof *m);
    m->nshards = nshards;
    m->routes = routes;
    m->nroutes = nroutes + 1;
    m->shards = xcalloc(nshards, sizeof *m->shards);
    size_t cells = m->nroutes * METRICS_METHODS;
    for (size_t i = 0; i < nshards; i++) {
        /* Separate allocations per loop: no two loops write one cache line. */
        m->shards[i].routes = routes;
        m->shards[i].nroutes = nroutes;
        m->shards[i].requests = xcalloc(cells * METRICS_SLOTS, sizeof(metrics_counter_t));
        m->shards[i].buckets = xcalloc(cells * METRICS_NBUCKETS, sizeof(metrics_counter_t));
        m->shards[i].sum_us = xcalloc(cells, sizeof(metrics_counter_t));
    }
    m->start_time_s = metrics_process_start();
    return m;
}

void metrics_free(metrics_t *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->nshards; i++) {
        free(m->shards[i].requests);
        free(m->shards[i].buckets);
        free(m->shards[i].sum_us);
    }
    free(m->shards);
    free(m);
}

metrics_shard_t *metrics_shard(metrics_t *m, size_t i)
{
    return &m->shards[i];
}

void metrics_use_pool(metrics_t *m, struct dbpool *pool)
{
    m->pool = pool;
}

void metrics_use_connections(metrics_t *m, const atomic_int *connections)
{
    m->connections = connections;
}

void metrics_use_thread_connections(metrics_t *m, size_t i, const atomic_int *connections)
{
    m->shards[i].connections = connections;
}

/* ---- 2. Counting ------------------------------------------------------------- */

/* The owner's increment: it alone writes the counter, so no locked add. */
static inline void metrics_add(metrics_counter_t *c, uint64_t by)
{
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + by, memory_order_relaxed);
}

static size_t metrics_status_slot(int status)
{
    for (size_t i = 0; i < METRICS_NSTATUS; i++)
        if (metrics_statuses[i] == status)
            return i;
    int cls = status / 100;
    return METRICS_NSTATUS + (size_t)(cls >= 1 && cls <= 5 ? cls - 1 : 4);
}

void metrics_count(metrics_shard_t *s, const http_route_t *route, http_method_t method, int status,
                   uint64_t us)
{
    size_t r = route && route >= s->routes && route < s->routes + s->nroutes ? (size_t)(route - s->routes)
                                                                             : s->nroutes;
    size_t mth = (unsigned)method < METRICS_METHODS ? (size_t)method : HTTP_OTHER;
    size_t cell = r * METRICS_METHODS + mth;
    metrics_add(&s->requests[cell * METRICS_SLOTS + metrics_status_slot(status)], 1);
    size_t b = 0;
    while (b < METRICS_NBOUNDS && us > metrics_bounds_us[b])
        b++;
    metrics_add(&s->buckets[cell * METRICS_NBUCKETS + b], 1);
    metrics_add(&s->sum_us[cell], us);
}

/* ---- 3. Text ---------------------------------------------------------------------- */

const char METRICS_MEDIA[] = "text/plain; version=0.0.4; charset=utf-8";

static void metrics_family(strbuf_t *b, const char *name, const char *type, const char *help)
{
    strbuf_printf(b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value as the format escapes it: backslash, double quote, line feed. */
static void metrics_label_value(strbuf_t *b, const char *v)
{
    for (; *v; v++) {
        if (*v == '\\' || *v == '"')
            strbuf_putc(b, '\\'), strbuf_putc(b, *v);
        else if (*v == '\n')
            strbuf_puts(b, "\\n");
        else
            strbuf_putc(b, *v);
    }
}

/* name{k1="v1",...} value: labels as NULL-terminated name/value pairs. */
static void metrics_sample_start(strbuf_t *b, const char *name, const char *const *labels)
{
    strbuf_puts(b, name);
    if (labels && labels[0]) {
        strbuf_putc(b, '{');
        for (size_t i = 0; labels[i]; i += 2) {
            if (i > 0)
                strbuf_putc(b, ',');
            strbuf_printf(b, "%s=\"", labels[i]);
            metrics_label_value(b, labels[i + 1]);
            strbuf_putc(b, '"');
        }
        strbuf_putc(b, '}');
    }
    strbuf_putc(b, ' ');
}

static void metrics_u64(strbuf_t *b, const char *name, const char *const *labels, uint64_t v)
{
    metrics_sample_start(b, name, labels);
    strbuf_printf(b, "%" PRIu64 "\n", v);
}

static void metrics_i64(strbuf_t *b, const char *name, const char *const *labels, int64_t v)
{
    metrics_sample_start(b, name, labels);
    strbuf_printf(b, "%" PRId64 "\n", v);
}

static void metrics_f64(strbuf_t *b, const char *name, const char *const *labels, double v)
{
    metrics_sample_start(b, name, labels);
    strbuf_printf(b, "%.6f\n", v);
}

/* ---- 4. The scrape ------------------------------------------------------------------- */

static const char *metrics_route_name(const metrics_t *m, size_t r)
{
    return r + 1 < m->nroutes ? m->routes[r].pattern : "unmatched";
}

static uint64_t metrics_sum(const metrics_t *m, size_t which, size_t index)
{
    uint64_t total = 0;
    for (size_t s = 0; s < m->nshards; s++) {
        const metrics_shard_t *sh = &m->shards[s];
        const metrics_counter_t *arr = which == 0 ? sh->requests : which == 1 ? sh->buckets : sh->sum_us;
        total += atomic_load_explicit(&arr[index], memory_order_relaxed);
    }
    return total;
}

static void metrics_status_label(size_t slot, char *out, size_t cap)
{
    if (slot < METRICS_NSTATUS)
        snprintf(out, cap, "%d", metrics_statuses[slot]);
    else
        snprintf(out, cap, "%zuxx", slot - METRICS_NSTATUS + 1);
}

/* Series appear once they have counted something, as a Prometheus client's do. */
static void metrics_http(strbuf_t *b, const metrics_t *m)
{
    metrics_family(b, "schema_registry_http_requests_total", "counter",
                   "HTTP requests answered, by route template (unmatched: no route), method and status.");
    for (size_t r = 0; r < m->nroutes; r++)
        for (size_t mth = 0; mth < METRICS_METHODS; mth++)
            for (size_t st = 0; st < METRICS_SLOTS; st++) {
                uint64_t n = metrics_sum(m, 0, (r * METRICS_METHODS + mth) * METRICS_SLOTS + st);
                if (n == 0)
                    continue;
                char status[16];
                metrics_status_label(st, status, sizeof status);
                const char *labels[] = {
                    "route", metrics_route_name(m, r), "method", metrics_method_names[mth], "status", status,
                    NULL};
                metrics_u64(b, "schema_registry_http_requests_total", labels, n);
            }

    metrics_family(b, "schema_registry_http_request_duration_seconds", "histogram",
                   "Time from a request's arrival to its reply, by route template and method.");
    for (size_t r = 0; r < m->nroutes; r++)
        for (size_t mth = 0; mth < METRICS_METHODS; mth++) {
            size_t cell = r * METRICS_METHODS + mth;
            uint64_t counts[METRICS_NBUCKETS], total = 0;
            for (size_t k = 0; k < METRICS_NBUCKETS; k++)
                total += counts[k] = metrics_sum(m, 1, cell * METRICS_NBUCKETS + k);
            if (total == 0)
                continue;
            const char *route = metrics_route_name(m, r), *method = metrics_method_names[mth];
            uint64_t cumulative = 0;
            for (size_t k = 0; k < METRICS_NBUCKETS; k++) {
                cumulative += counts[k];
                const char *labels[] = {"route", route, "method", method, "le", metrics_bounds_le[k], NULL};
                metrics_u64(b, "schema_registry_http_request_duration_seconds_bucket", labels, cumulative);
            }
            const char *labels[] = {"route", route, "method", method, NULL};
            metrics_f64(b, "schema_registry_http_request_duration_seconds_sum", labels,
                        (double)metrics_sum(m, 2, cell) / 1e6);
            metrics_u64(b, "schema_registry_http_request_duration_seconds_count", labels, total);
        }

    metrics_family(b, "schema_registry_http_connections", "gauge", "Open client connections.");
    metrics_i64(b, "schema_registry_http_connections", NULL,
                m->connections ? atomic_load_explicit(m->connections, memory_order_relaxed) : 0);
    metrics_family(b, "schema_registry_http_thread_connections", "gauge",
                   "Open client connections by HTTP thread (each connection is served by one).");
    for (size_t i = 0; i < m->nshards; i++) {
        char thread[24];
        snprintf(thread, sizeof thread, "%zu", i);
        const atomic_int *c = m->shards[i].connections;
        metrics_i64(b, "schema_registry_http_thread_connections", (const char *[]){"thread", thread, NULL},
                    c ? atomic_load_explicit(c, memory_order_relaxed) : 0);
    }
}

static void metrics_pool(strbuf_t *b, const metrics_t *m)
{
    dbpool_stats_t st = {0};
    if (m->pool)
        dbpool_stats(m->pool, &st);
    static const struct {
        const char *name, *type, *help;
    } f[] = {
        {"schema_registry_db_pool_workers", "gauge", "Database worker threads (db.threads)."},
        {"schema_registry_db_pool_connected_workers", "gauge", "Database workers holding a connection."},
        {"schema_registry_db_pool_busy_workers", "gauge", "Database workers running a job now."},
        {"schema_registry_db_pool_waiting_jobs", "gauge",
         "Jobs queued for a database worker, not taken yet."},
        {"schema_registry_db_pool_jobs_total", "counter", "Jobs database workers have taken."},
        {"schema_registry_db_pool_connect_errors_total", "counter",
         "Database connection attempts that failed."},
        {"schema_registry_db_pool_reconnects_total", "counter",
         "Worker connections found dead and opened afresh (reset before a statement, or after a job)."},
    };
    const uint64_t v[] = {
        (uint64_t)st.workers, (uint64_t)st.connected, (uint64_t)st.busy, st.waiting, st.jobs,
        st.connect_errors,    st.reconnects};
    for (size_t i = 0; i < sizeof f / sizeof *f; i++) {
        metrics_family(b, f[i].name, f[i].type, f[i].help);
        metrics_u64(b, f[i].name, NULL, v[i]);
    }
}

static void metrics_registry(strbuf_t *b, registry_t *reg)
{
    reg_stats_t st;
    registry_stats(reg, &st);

    metrics_family(b, "schema_registry_registrations_total", "counter",
                   "Registrations the registry decided, by outcome (new_version, existing, refused).");
    metrics_u64(b, "schema_registry_registrations_total", (const char *[]){"outcome", "new_version", NULL},
                st.registered_new);
    metrics_u64(b, "schema_registry_registrations_total", (const char *[]){"outcome", "existing", NULL},
                st.registered_existing);
    metrics_u64(b, "schema_registry_registrations_total", (const char *[]){"outcome", "refused", NULL},
                st.refused);
    metrics_family(b, "schema_registry_registrations_refused_total", "counter",
                   "Registrations refused, by reason (the error code's name).");
    for (size_t i = 0; i < registry_refusal_reasons(); i++)
        metrics_u64(b, "schema_registry_registrations_refused_total",
                    (const char *[]){"reason", registry_refusal_reason(i), NULL}, st.refused_by[i]);

    metrics_family(b, "schema_registry_compatibility_checks_total", "counter",
                   "Compatibility checks run (registrations and test requests), by schema type, level and "
                   "outcome.");
    for (int t = 0; t < SCHEMA_TYPE_COUNT; t++)
        for (int l = 0; l < REG_COMPAT_LEVELS; l++)
            for (int o = 0; o < REG_CHECK_OUTCOMES; o++) {
                if (st.checks[t][l][o] == 0)
                    continue;
                const char *labels[] = {"type",    schema_type_name((schema_type_t)t),
                                        "level",   compat_level_name((compat_level_t)l),
                                        "outcome", registry_check_outcome_name((reg_check_outcome_t)o),
                                        NULL};
                metrics_u64(b, "schema_registry_compatibility_checks_total", labels, st.checks[t][l][o]);
            }

    metrics_family(b, "schema_registry_schemas", "gauge",
                   "Schema ids some version (live or soft-deleted) carries, by schema type.");
    for (int t = 0; t < SCHEMA_TYPE_COUNT; t++)
        metrics_u64(b, "schema_registry_schemas",
                    (const char *[]){"type", schema_type_name((schema_type_t)t), NULL}, st.schemas[t]);
    metrics_family(b, "schema_registry_subjects", "gauge",
                   "Subjects with a live version, by the schema type of the latest one.");
    for (int t = 0; t < SCHEMA_TYPE_COUNT; t++)
        metrics_u64(b, "schema_registry_subjects",
                    (const char *[]){"type", schema_type_name((schema_type_t)t), NULL}, st.subjects[t]);
    metrics_family(b, "schema_registry_versions", "gauge", "Subject versions, live or soft-deleted.");
    metrics_u64(b, "schema_registry_versions", (const char *[]){"state", "live", NULL}, st.versions_live);
    metrics_u64(b, "schema_registry_versions", (const char *[]){"state", "soft_deleted", NULL},
                st.versions_deleted);
    metrics_family(b, "schema_registry_index_memory_bytes", "gauge",
                   "Bytes of the in-memory index: records, keys, map slots and prepared bodies (an "
                   "estimate without allocator overhead, stored JSON or parsed models).");
    metrics_u64(b, "schema_registry_index_memory_bytes", NULL, st.index_bytes);
    metrics_family(
        b, "schema_registry_group_commits_total", "counter",
        "One-statement registration groups written (group commit: one statement, one commit each).");
    metrics_u64(b, "schema_registry_group_commits_total", NULL, st.group_commits);
    metrics_family(b, "schema_registry_group_registrations_total", "counter",
                   "Registrations written in those groups; divided by the groups, the mean group size.");
    metrics_u64(b, "schema_registry_group_registrations_total", NULL, st.group_items);
    metrics_family(b, "schema_registry_group_declined_total", "counter",
                   "Of those, registrations their group declined because the subject's versions had moved on "
                   "(another registration of it in the same group, or one written since it was checked); each "
                   "was then decided on the general path.");
    metrics_u64(b, "schema_registry_group_declined_total", NULL, st.group_declined);
    metrics_family(b, "schema_registry_group_connection_up", "gauge",
                   "1 when the connection groups of two or more registrations are written on is open.");
    metrics_u64(b, "schema_registry_group_connection_up", NULL, (uint64_t)st.group_connected);
    metrics_family(b, "schema_registry_group_connection_reconnects_total", "counter",
                   "That connection found dead and opened afresh (reset before a statement, or after a group).");
    metrics_u64(b, "schema_registry_group_connection_reconnects_total", NULL, st.group_reconnects);

    metrics_family(b, "schema_registry_change_feed_running", "gauge",
                   "1 when a change-feed thread follows the database's change log (feed.interval.ms > 0).");
    metrics_u64(b, "schema_registry_change_feed_running", NULL, (uint64_t)st.feed_running);
    if (!st.feed_running)
        return;
    metrics_family(b, "schema_registry_change_feed_connected", "gauge",
                   "1 while the change-feed thread has a database connection.");
    metrics_u64(b, "schema_registry_change_feed_connected", NULL, (uint64_t)st.feed_connected);
    metrics_family(b, "schema_registry_change_feed_applied_sequence", "gauge",
                   "The last sequence number of the change log this node has applied.");
    metrics_i64(b, "schema_registry_change_feed_applied_sequence", NULL, st.feed_applied);
    metrics_family(b, "schema_registry_change_feed_lag_changes", "gauge",
                   "Sequence numbers the change log held beyond the applied one at the last poll.");
    metrics_i64(b, "schema_registry_change_feed_lag_changes", NULL, st.feed_behind);
    metrics_family(b, "schema_registry_change_feed_lag_seconds", "gauge",
                   "Seconds since a poll last found this node current with the change log.");
    metrics_f64(b, "schema_registry_change_feed_lag_seconds", NULL, st.feed_lag_s);
    metrics_family(b, "schema_registry_change_feed_last_poll_timestamp_seconds", "gauge",
                   "Unix time of the change feed's last poll.");
    metrics_f64(b, "schema_registry_change_feed_last_poll_timestamp_seconds", NULL, st.feed_poll_s);
    metrics_family(b, "schema_registry_change_feed_polls_total", "counter",
                   "Polls of the change log the feed thread made (the load at start is not one).");
    metrics_u64(b, "schema_registry_change_feed_polls_total", NULL, st.feed_polls);
}

static uint64_t metrics_open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    uint64_t n = 0;
    if (!d)
        return 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += e->d_name[0] != '.';
    closedir(d);
    return n > 0 ? n - 1 : 0; /* not the directory's own descriptor */
}

static uint64_t metrics_resident_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long long size = 0, resident = 0;
    if (!f)
        return 0;
    if (fscanf(f, "%llu %llu", &size, &resident) != 2)
        resident = 0;
    fclose(f);
    return resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

static void metrics_process(strbuf_t *b, const metrics_t *m)
{
    metrics_family(b, "schema_registry_build_info", "gauge", "The server's version and commit; always 1.");
    metrics_u64(b, "schema_registry_build_info",
                (const char *[]){"version", SR_VERSION, "commit", SR_COMMIT, NULL}, 1);
    metrics_family(b, "process_start_time_seconds", "gauge", "Start time of the process as Unix time.");
    metrics_f64(b, "process_start_time_seconds", NULL, m->start_time_s);
    struct rusage ru;
    double cpu = 0;
    if (getrusage(RUSAGE_SELF, &ru) == 0)
        cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec +
              ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) / 1e6;
    metrics_family(b, "process_cpu_seconds_total", "counter", "User and system CPU time the process used.");
    metrics_f64(b, "process_cpu_seconds_total", NULL, cpu);
    metrics_family(b, "process_resident_memory_bytes", "gauge", "Resident memory of the process.");
    metrics_u64(b, "process_resident_memory_bytes", NULL, metrics_resident_bytes());
    metrics_family(b, "process_open_fds", "gauge", "Open file descriptors.");
    metrics_u64(b, "process_open_fds", NULL, metrics_open_fds());
    struct rlimit nofile;
    if (getrlimit(RLIMIT_NOFILE, &nofile) == 0 && nofile.rlim_cur != RLIM_INFINITY) {
        metrics_family(b, "process_max_fds", "gauge", "The limit on open file descriptors.");
        metrics_u64(b, "process_max_fds", NULL, (uint64_t)nofile.rlim_cur);
    }
}

char *metrics_render(metrics_t *m, registry_t *reg, size_t *len)
{
    strbuf_t b = {0};
    metrics_http(&b, m);
    metrics_pool(&b, m);
    metrics_registry(&b, reg);
    metrics_process(&b, m);
    *len = b.len;
    char *text = strbuf_take(&b);
    if (!text)
        base_oom(*len); /* the tree's out-of-memory policy (base/alloc.h) */
    return text;
}
