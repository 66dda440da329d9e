/*
 * stats: the registry's counters and the snapshot GET /metrics shows
 * (registry.h section 7, internal.h section 10).
 *
 * Contents
 *   1. Refusal reasons
 *   2. Counting
 *   3. The snapshot
 *
 * Counters are bumped with relaxed atomic adds: registrations and checks run
 * on several workers at once and cost milliseconds, so an uncontended add is
 * nothing next to them, and no reader needs an order between two counters.
 */
#include <string.h>
#include <time.h>

#include "registry/internal.h"

/* ---- 1. Refusal reasons ------------------------------------------------------ */

/* The codes a registration is refused with, by name; anything else is "other" (last). */
static const struct {
    reg_code_t code;
    const char *reason;
} stats_reasons[] = {
    {REG_INCOMPATIBLE, "incompatible"},
    {REG_INVALID_SCHEMA, "invalid_schema"},
    {REG_INVALID_SUBJECT, "invalid_subject"},
    {REG_SCHEMA_TOO_LARGE, "schema_too_large"},
    {REG_OPERATION_NOT_PERMITTED, "operation_not_permitted"},
    {REG_BAD_REQUEST, "bad_request"},
    {REG_STORE_ERROR, "store_error"},
    {REG_TIMEOUT, "timeout"},
    {REG_INTERNAL, "internal"},
    {REG_OK, "other"},
};

#define STATS_NREASONS (sizeof stats_reasons / sizeof *stats_reasons)
_Static_assert(STATS_NREASONS <= REG_REFUSAL_SLOTS, "REG_REFUSAL_SLOTS too small");
_Static_assert(COMPAT_FULL_TRANSITIVE + 1 == REG_COMPAT_LEVELS, "REG_COMPAT_LEVELS is the number of levels");

size_t registry_refusal_reasons(void)
{
    return STATS_NREASONS;
}

const char *registry_refusal_reason(size_t i)
{
    return i < STATS_NREASONS ? stats_reasons[i].reason : "other";
}

const char *registry_check_outcome_name(reg_check_outcome_t o)
{
    switch (o) {
    case REG_CHECK_COMPATIBLE: return "compatible";
    case REG_CHECK_INCOMPATIBLE: return "incompatible";
    default: return "failed";
    }
}

/* ---- 2. Counting ----------------------------------------------------------------- */

static void stats_add(uint64_t *counter)
{
    __atomic_add_fetch(counter, 1, __ATOMIC_RELAXED);
}

static uint64_t stats_get(const uint64_t *counter)
{
    return __atomic_load_n(counter, __ATOMIC_RELAXED);
}

void reg_count_registration(registry_t *reg, reg_code_t rc, int created)
{
    reg_counters_t *c = &reg->counters;
    if (rc == REG_OK) {
        stats_add(created ? &c->registered_new : &c->registered_existing);
        return;
    }
    size_t i = 0;
    while (i + 1 < STATS_NREASONS && stats_reasons[i].code != rc)
        i++;
    stats_add(&c->refused[i]);
}

void reg_count_check(registry_t *reg, schema_type_t type, compat_level_t level, int compatible)
{
    if ((unsigned)type >= SCHEMA_TYPE_COUNT || (unsigned)level >= REG_COMPAT_LEVELS)
        return;
    reg_check_outcome_t o = compatible == 1   ? REG_CHECK_COMPATIBLE
                            : compatible == 0 ? REG_CHECK_INCOMPATIBLE
                                              : REG_CHECK_FAILED;
    stats_add(&reg->counters.checks[type][level][o]);
}

int64_t reg_wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- 3. The snapshot --------------------------------------------------------------- */

void registry_stats(registry_t *reg, reg_stats_t *out)
{
    memset(out, 0, sizeof *out);
    const reg_counters_t *c = &reg->counters;
    out->registered_new = stats_get(&c->registered_new);
    out->registered_existing = stats_get(&c->registered_existing);
    for (size_t i = 0; i < STATS_NREASONS; i++) {
        out->refused_by[i] = stats_get(&c->refused[i]);
        out->refused += out->refused_by[i];
    }
    for (int t = 0; t < SCHEMA_TYPE_COUNT; t++)
        for (int l = 0; l < REG_COMPAT_LEVELS; l++)
            for (int o = 0; o < REG_CHECK_OUTCOMES; o++)
                out->checks[t][l][o] = stats_get(&c->checks[t][l][o]);

    index_stats_t is;
    index_stats(reg->idx, &is);
    memcpy(out->schemas, is.schemas, sizeof out->schemas);
    memcpy(out->subjects, is.subjects, sizeof out->subjects);
    out->versions_live = is.versions_live;
    out->versions_deleted = is.versions_deleted;
    out->index_bytes = is.bytes + sizeof *reg;
    pthread_mutex_lock(&reg->group_lock);
    out->group_commits = reg->group_commits;
    out->group_items = reg->group_items;
    out->group_declined = reg->group_declined;
    pthread_mutex_unlock(&reg->group_lock);
    registry_group_conn_stats(reg, &out->group_connected, &out->group_reconnects);

    out->feed_running = reg->feed_started && reg->opts.feed_interval_ms > 0;
    out->feed_connected = __atomic_load_n(&reg->feed_connected, __ATOMIC_RELAXED);
    out->feed_applied = __atomic_load_n(&reg->feed_applied, __ATOMIC_RELAXED);
    out->feed_behind = __atomic_load_n(&reg->feed_behind, __ATOMIC_RELAXED);
    out->feed_polls = __atomic_load_n(&reg->feed_polls, __ATOMIC_RELAXED);
    int64_t poll = __atomic_load_n(&reg->feed_poll_ms, __ATOMIC_RELAXED);
    int64_t current = __atomic_load_n(&reg->feed_current_ms, __ATOMIC_RELAXED);
    int64_t now = reg_wall_ms();
    out->feed_poll_s = (double)poll / 1000.0;
    out->feed_lag_s = current > 0 && now > current ? (double)(now - current) / 1000.0 : 0.0;
}
