/*
 * authz: rules, the holder and the checks (authz.h).
 *
 * Contents
 *   1. Rule sets
 *   2. The holder
 *   3. Checks
 *
 * Rules only grant: there is no deny rule, so the order of the lines never
 * matters and a principal's permissions are the union of its rules'. With
 * authentication on and no rule at all, every authenticated principal may do
 * everything (what the server did before rules existed); the first rule
 * turns that off and everything not granted is refused.
 */
#include "server/authz.h"

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/log.h"
#include "base/strlist.h"
#include "registry/registry.h"
#include "server/config.h"

/* ---- 1. Rule sets ------------------------------------------------------------ */

/* The global resources a rule may name, as bits. */
#define AUTHZ_G_CONFIG   1u
#define AUTHZ_G_MODE     2u
#define AUTHZ_G_SCHEMAS  4u
#define AUTHZ_G_CONTEXTS 8u
#define AUTHZ_G_METRICS  16u
#define AUTHZ_G_AUDIT    32u

typedef struct authz_rule {
    char *who; /* a principal, a group name (group 1), or NULL for "*" */
    int group;
    unsigned perms;   /* http_perm_t bits; admin already expanded */
    unsigned globals; /* AUTHZ_G_* named, or 0 for a subject glob */
    char *glob;       /* when globals == 0 */
} authz_rule_t;

typedef struct authz_group {
    char *name;
    strlist_t members;
} authz_group_t;

struct authz_rules {
    int refs; /* atomic */
    authz_rule_t *rules;
    size_t nrules;
    authz_group_t *groups;
    size_t ngroups;
};

static void authz_rules_free_(authz_rules_t *r)
{
    for (size_t i = 0; i < r->nrules; i++) {
        free(r->rules[i].who);
        free(r->rules[i].glob);
    }
    for (size_t i = 0; i < r->ngroups; i++) {
        free(r->groups[i].name);
        strlist_clear(&r->groups[i].members);
    }
    free(r->rules);
    free(r->groups);
    free(r);
}

/* Splits s in place at runs of spaces; up to max words; their number. */
static size_t authz_words(char *s, char **word, size_t max)
{
    size_t n = 0;
    while (*s) {
        while (isspace((unsigned char)*s))
            *s++ = '\0';
        if (!*s)
            break;
        if (n == max)
            return max + 1;
        word[n++] = s;
        while (*s && !isspace((unsigned char)*s))
            s++;
    }
    return n;
}

static const authz_group_t *authz_group(const authz_rules_t *r, const char *name)
{
    for (size_t i = 0; i < r->ngroups; i++)
        if (strcmp(r->groups[i].name, name) == 0)
            return &r->groups[i];
    return NULL;
}

/* "read,write" -> bits; 0 when a word is not a permission. */
static unsigned authz_parse_perms(char *list)
{
    unsigned bits = 0;
    for (char *save = NULL, *w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
        if (strcmp(w, "read") == 0)
            bits |= HTTP_PERM_READ;
        else if (strcmp(w, "write") == 0)
            bits |= HTTP_PERM_WRITE;
        else if (strcmp(w, "delete") == 0)
            bits |= HTTP_PERM_DELETE;
        else if (strcmp(w, "admin") == 0)
            bits |= HTTP_PERM_ADMIN | HTTP_PERM_READ | HTTP_PERM_WRITE | HTTP_PERM_DELETE;
        else
            return 0;
    }
    return bits;
}

static int authz_parse_group(authz_rules_t *r, char *value, char **error)
{
    char *w[3];
    if (authz_words(value, w, 2) != 2) {
        *error = xstrdup("expected 'auth.group = NAME MEMBER[,MEMBER...]'");
        return -1;
    }
    if (authz_group(r, w[0]) != NULL) {
        *error = xasprintf("group '%s' is defined twice", w[0]);
        return -1;
    }
    r->groups = xreallocarray(r->groups, r->ngroups + 1, sizeof *r->groups);
    authz_group_t *g = &r->groups[r->ngroups++];
    g->name = xstrdup(w[0]);
    g->members = (strlist_t){0};
    for (char *save = NULL, *m = strtok_r(w[1], ",", &save); m; m = strtok_r(NULL, ",", &save))
        strlist_push(&g->members, m);
    return 0;
}

static int authz_parse_rule(authz_rules_t *r, char *value, char **error)
{
    char *w[4];
    if (authz_words(value, w, 3) != 3) {
        *error = xstrdup("expected 'auth.rule = PRINCIPAL|@GROUP|* PERMISSION[,...] PATTERN'");
        return -1;
    }
    authz_rule_t rule = {0};
    rule.group = w[0][0] == '@';
    if (rule.group && authz_group(r, w[0] + 1) == NULL) {
        *error = xasprintf("group '%s' is not defined (auth.group before the rules that name it)", w[0] + 1);
        return -1;
    }
    rule.perms = authz_parse_perms(w[1]);
    if (rule.perms == 0) {
        *error = xasprintf("permissions: a comma-separated list of read, write, delete and admin");
        return -1;
    }
    const char *pattern = w[2];
    if (pattern[0] == '/') {
        static const struct {
            const char *name;
            unsigned bits;
        } globals[] = {{"/config", AUTHZ_G_CONFIG},
                       {"/mode", AUTHZ_G_MODE},
                       {"/schemas", AUTHZ_G_SCHEMAS},
                       {"/contexts", AUTHZ_G_CONTEXTS},
                       {"/metrics", AUTHZ_G_METRICS},
                       {"/audit", AUTHZ_G_AUDIT},
                       {"/*", AUTHZ_G_CONFIG | AUTHZ_G_MODE | AUTHZ_G_SCHEMAS | AUTHZ_G_CONTEXTS |
                                  AUTHZ_G_METRICS | AUTHZ_G_AUDIT}};
        for (size_t i = 0; i < sizeof globals / sizeof *globals; i++)
            if (strcmp(pattern, globals[i].name) == 0)
                rule.globals = globals[i].bits;
        if (rule.globals == 0) {
            *error = xasprintf("pattern '%s': /config, /mode, /schemas, /contexts, /metrics, /audit or /* "
                               "(a subject glob beginning with '/' is written subject:GLOB)",
                               pattern);
            return -1;
        }
    } else {
        if (strncmp(pattern, "subject:", 8) == 0)
            pattern += 8;
        if (*pattern == '\0') {
            *error = xstrdup("empty subject pattern");
            return -1;
        }
        rule.glob = xstrdup(pattern);
    }
    rule.who = strcmp(w[0], "*") == 0 ? NULL : xstrdup(rule.group ? w[0] + 1 : w[0]);
    r->rules = xreallocarray(r->rules, r->nrules + 1, sizeof *r->rules);
    r->rules[r->nrules++] = rule;
    return 0;
}

authz_rules_t *authz_rules_load(const char *path, char **error)
{
    *error = NULL;
    authz_rules_t *r = xcalloc(1, sizeof *r);
    r->refs = 1;
    if (path == NULL || path[0] == '\0')
        return r;
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        *error = xasprintf("cannot open %s: %s", path, strerror(errno));
        authz_rules_free_(r);
        return NULL;
    }
    char *line = NULL, *why = NULL;
    size_t cap = 0;
    int lineno = 0;
    while (why == NULL && getline(&line, &cap, f) >= 0) {
        lineno++;
        char *s = config_trim(line);
        char *eq = strchr(s, '=');
        if (*s == '#' || eq == NULL)
            continue; /* config.c reports what is not "key = value" */
        *eq = '\0';
        char *key = config_trim(s), *value = config_trim(eq + 1);
        if (strcmp(key, "auth.group") == 0)
            authz_parse_group(r, value, &why);
        else if (strcmp(key, "auth.rule") == 0)
            authz_parse_rule(r, value, &why);
    }
    free(line);
    fclose(f);
    if (why != NULL) {
        *error = xasprintf("%s:%d: %s", path, lineno, why);
        free(why);
        authz_rules_free_(r);
        return NULL;
    }
    return r;
}

size_t authz_rules_count(const authz_rules_t *r)
{
    return r ? r->nrules : 0;
}

authz_rules_t *authz_rules_ref(authz_rules_t *r)
{
    if (r)
        __atomic_add_fetch(&r->refs, 1, __ATOMIC_RELAXED);
    return r;
}

void authz_rules_release(authz_rules_t *r)
{
    if (r && __atomic_sub_fetch(&r->refs, 1, __ATOMIC_ACQ_REL) == 0)
        authz_rules_free_(r);
}

/* ---- 2. The holder ------------------------------------------------------------- */

struct authz {
    const server_config_t *cfg; /* borrowed */
    pthread_mutex_t lock;       /* rules */
    authz_rules_t *rules;
};

static void authz_log(const authz_rules_t *r, const char *path)
{
    if (r->nrules == 0)
        log_warn("authz: no auth.rule: every authenticated principal may do everything");
    else
        log_info("authz: %zu rules and %zu groups from %s", r->nrules, r->ngroups, path);
}

authz_t *authz_new(const server_config_t *cfg, int auth_on, char **error)
{
    authz_rules_t *r = authz_rules_load(cfg->config_file, error);
    if (r == NULL)
        return NULL;
    if (!auth_on) {
        if (r->nrules > 0 || r->ngroups > 0) {
            *error = xstrdup("auth.rule and auth.group need authentication (auth.basic.users.file or "
                             "tls.client.auth): without it no request has a principal to name");
            authz_rules_release(r);
            return NULL;
        }
        authz_rules_release(r);
        r = NULL;
    }
    authz_t *a = xcalloc(1, sizeof *a);
    a->cfg = cfg;
    a->rules = r;
    pthread_mutex_init(&a->lock, NULL);
    if (r)
        authz_log(r, cfg->config_file);
    return a;
}

int authz_reload(authz_t *a, char **error)
{
    *error = NULL;
    if (a == NULL || a->rules == NULL)
        return 0; /* authentication is read at start only: so is whether rules apply */
    authz_rules_t *fresh = authz_rules_load(a->cfg->config_file, error);
    if (fresh == NULL)
        return -1;
    pthread_mutex_lock(&a->lock);
    authz_rules_t *old = a->rules;
    a->rules = fresh;
    pthread_mutex_unlock(&a->lock);
    authz_log(fresh, a->cfg->config_file);
    authz_rules_release(old); /* requests that hold it keep it until they end */
    return 0;
}

authz_rules_t *authz_current(authz_t *a)
{
    if (a == NULL)
        return NULL;
    pthread_mutex_lock(&a->lock);
    authz_rules_t *r = authz_rules_ref(a->rules);
    pthread_mutex_unlock(&a->lock);
    return r;
}

void authz_free(authz_t *a)
{
    if (a == NULL)
        return;
    authz_rules_release(a->rules);
    pthread_mutex_destroy(&a->lock);
    free(a);
}

/* ---- 3. Checks ----------------------------------------------------------------- */

static int authz_names(const authz_rules_t *r, const authz_rule_t *rule, const char *principal)
{
    if (rule->who == NULL)
        return 1;
    if (!rule->group)
        return strcmp(rule->who, principal) == 0;
    const authz_group_t *g = authz_group(r, rule->who);
    for (size_t i = 0; g && i < g->members.n; i++)
        if (strcmp(g->members.items[i], principal) == 0)
            return 1;
    return 0;
}

static unsigned authz_global_bit(http_scope_t scope)
{
    switch (scope) {
    case HTTP_SCOPE_CONFIG: return AUTHZ_G_CONFIG;
    case HTTP_SCOPE_MODE: return AUTHZ_G_MODE;
    case HTTP_SCOPE_SCHEMAS: return AUTHZ_G_SCHEMAS;
    case HTTP_SCOPE_CONTEXTS: return AUTHZ_G_CONTEXTS;
    case HTTP_SCOPE_METRICS: return AUTHZ_G_METRICS;
    case HTTP_SCOPE_AUDIT: return AUTHZ_G_AUDIT;
    default: return 0;
    }
}

int authz_allows(const authz_rules_t *r, const char *principal, http_perm_t perm, http_scope_t scope,
                 const char *subject)
{
    if (r == NULL)
        return 1;
    if (perm == HTTP_PERM_UNDECLARED || scope == HTTP_SCOPE_UNDECLARED)
        return 0; /* fail closed: a route the table forgot to declare */
    if (scope == HTTP_SCOPE_ANY)
        return 1;
    if (principal == NULL)
        return 0;
    if (r->nrules == 0)
        return 1;
    unsigned global = authz_global_bit(scope);
    for (size_t i = 0; i < r->nrules; i++) {
        const authz_rule_t *rule = &r->rules[i];
        if (!(rule->perms & (unsigned)perm) || !authz_names(r, rule, principal))
            continue;
        if (global ? (rule->globals & global) != 0
                   : rule->glob != NULL && subject != NULL && fnmatch(rule->glob, subject, 0) == 0)
            return 1;
    }
    return 0;
}

static const char *authz_perm_name(int perm)
{
    switch (perm) {
    case HTTP_PERM_READ: return "read";
    case HTTP_PERM_WRITE: return "write";
    case HTTP_PERM_DELETE: return "delete";
    case HTTP_PERM_ADMIN: return "admin";
    default: return "undeclared";
    }
}

static const char *authz_scope_name(int scope)
{
    switch (scope) {
    case HTTP_SCOPE_CONFIG: return "/config";
    case HTTP_SCOPE_MODE: return "/mode";
    case HTTP_SCOPE_SCHEMAS: return "/schemas";
    case HTTP_SCOPE_CONTEXTS: return "/contexts";
    case HTTP_SCOPE_METRICS: return "/metrics";
    case HTTP_SCOPE_AUDIT: return "/audit";
    default: return "this route";
    }
}

int authz_check(http_call_t *c, http_need_t need)
{
    if (c->authz == NULL)
        return 0;
    const char *subject = need.scope == HTTP_SCOPE_SUBJECT ? http_param(c, "subject") : NULL;
    http_scope_t scope = need.scope == HTTP_SCOPE_FILTERED ? HTTP_SCOPE_ANY : (http_scope_t)need.scope;
    if (authz_allows(c->authz, c->principal, (http_perm_t)need.perm, scope, subject))
        return 0;
    const char *who = c->principal ? c->principal : "";
    if (subject != NULL)
        http_reply_error(c, 403, "Forbidden: principal '%s' has no %s permission on subject '%s'", who,
                         authz_perm_name(need.perm), subject);
    else
        http_reply_error(c, 403, "Forbidden: principal '%s' has no %s permission on %s", who,
                         authz_perm_name(need.perm), authz_scope_name(need.scope));
    return -1;
}

int authz_may_read(const http_call_t *c, const char *subject)
{
    return authz_allows(c->authz, c->principal, HTTP_PERM_READ, HTTP_SCOPE_SUBJECT, subject);
}

int authz_may_read_id(const http_call_t *c, const char *context, int id)
{
    if (c->authz == NULL || authz_allows(c->authz, c->principal, HTTP_PERM_READ, HTTP_SCOPE_SCHEMAS, NULL))
        return 1;
    reg_usage_t *u;
    size_t n;
    int ok = 0;
    registry_schema_usages(c->reg, context, id, 1, &u, &n);
    for (size_t i = 0; i < n && !ok; i++)
        ok = authz_may_read(c, u[i].subject);
    reg_usages_free(u, n);
    return ok;
}

void authz_refuse_id(http_call_t *c, int id)
{
    http_reply_error(c, 403, "Forbidden: principal '%s' may read no subject that carries schema %d",
                     c->principal ? c->principal : "", id);
}
