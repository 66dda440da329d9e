/*
 * test_authz: every route of server/routes.c declares what it needs, the
 * rule format (server/authz.c) and what rules grant.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "server/authz.h"

/* ---- The route table ------------------------------------------------------------ */

/* A handler without a declared permission and scope, or a declaration
 * without a handler, or a subject scope on a path without {subject}. */
static void test_every_route_declares_a_permission(void **state)
{
    static const http_method_t methods[] = {HTTP_GET, HTTP_POST, HTTP_PUT, HTTP_DELETE};
    size_t declared = 0;
    for (size_t i = 0; i < http_route_count; i++) {
        const http_route_t *r = &http_routes[i];
        const http_handler_t *h[] = {r->get, r->post, r->put, r->del};
        for (size_t m = 0; m < 4; m++) {
            http_need_t need = http_route_need(r, methods[m]);
            if (h[m] == NULL) {
                assert_int_equal(need.perm, HTTP_PERM_UNDECLARED);
                assert_int_equal(need.scope, HTTP_SCOPE_UNDECLARED);
                continue;
            }
            if (need.perm == HTTP_PERM_UNDECLARED || need.scope == HTTP_SCOPE_UNDECLARED)
                fail_msg("%s method %zu declares no permission", r->pattern, m);
            if (need.scope == HTTP_SCOPE_SUBJECT)
                assert_non_null(strstr(r->pattern, "{subject}"));
            /* Everything that changes state needs more than read. */
            if (methods[m] == HTTP_PUT || methods[m] == HTTP_DELETE)
                assert_true(need.perm != HTTP_PERM_READ);
            declared++;
        }
    }
    assert_int_equal(http_route_need(&http_routes[0], HTTP_HEAD).perm,
                     http_route_need(&http_routes[0], HTTP_GET).perm);
    assert_true(declared >= http_route_count);
}

/* An undeclared need is refused, whatever the rules. */
static void test_undeclared_is_refused(void **state)
{
    char *error = NULL;
    authz_rules_t *r = authz_rules_load(NULL, &error);
    assert_non_null(r);
    assert_false(authz_allows(r, "alice", HTTP_PERM_UNDECLARED, HTTP_SCOPE_SUBJECT, "s"));
    assert_false(authz_allows(r, "alice", HTTP_PERM_READ, HTTP_SCOPE_UNDECLARED, "s"));
    assert_true(authz_allows(r, "alice", HTTP_PERM_ADMIN, HTTP_SCOPE_CONFIG, NULL)); /* no rules: all */
    authz_rules_release(r);
}

/* ---- Rules ------------------------------------------------------------------------- */

static char *write_file(const char *text)
{
    char *path = strdup("/tmp/test_authz.XXXXXX");
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    return path;
}

static authz_rules_t *load(const char *text, char **error)
{
    char *path = write_file(text);
    *error = NULL;
    authz_rules_t *r = authz_rules_load(path, error);
    unlink(path);
    free(path);
    return r;
}

static void test_rules_grant(void **state)
{
    char *error;
    authz_rules_t *r = load("listen = :0\n"
                            "auth.group = devs bob,carol\n"
                            "auth.rule = alice read,write orders-*\n"
                            "auth.rule = @devs read *-value\n"
                            "auth.rule = carol delete subject:/odd?\n"
                            "auth.rule = ops admin /config\n"
                            "auth.rule = ops read /*\n"
                            "auth.rule = * read public.[ab]\n",
                            &error);
    assert_null(error);
    assert_non_null(r);
    assert_int_equal(authz_rules_count(r), 6);
    /* prefix */
    assert_true(authz_allows(r, "alice", HTTP_PERM_WRITE, HTTP_SCOPE_SUBJECT, "orders-value"));
    assert_true(authz_allows(r, "alice", HTTP_PERM_READ, HTTP_SCOPE_SUBJECT, "orders-"));
    assert_false(authz_allows(r, "alice", HTTP_PERM_DELETE, HTTP_SCOPE_SUBJECT, "orders-value"));
    assert_false(authz_allows(r, "alice", HTTP_PERM_READ, HTTP_SCOPE_SUBJECT, "order"));
    assert_false(authz_allows(r, "alice", HTTP_PERM_READ, HTTP_SCOPE_CONFIG, NULL));
    /* groups and globs */
    assert_true(authz_allows(r, "bob", HTTP_PERM_READ, HTTP_SCOPE_SUBJECT, "x-value"));
    assert_false(authz_allows(r, "bob", HTTP_PERM_WRITE, HTTP_SCOPE_SUBJECT, "x-value"));
    assert_false(authz_allows(r, "bob", HTTP_PERM_READ, HTTP_SCOPE_SUBJECT, "x-key"));
    assert_true(authz_allows(r, "carol", HTTP_PERM_DELETE, HTTP_SCOPE_SUBJECT, "/odd1"));
    assert_false(authz_allows(r, "bob", HTTP_PERM_DELETE, HTTP_SCOPE_SUBJECT, "/odd1"));
    /* admin implies the others; globals are separate from subjects */
    assert_true(authz_allows(r, "ops", HTTP_PERM_WRITE, HTTP_SCOPE_CONFIG, NULL));
    assert_true(authz_allows(r, "ops", HTTP_PERM_ADMIN, HTTP_SCOPE_CONFIG, NULL));
    assert_false(authz_allows(r, "ops", HTTP_PERM_ADMIN, HTTP_SCOPE_MODE, NULL));
    assert_true(authz_allows(r, "ops", HTTP_PERM_READ, HTTP_SCOPE_CONTEXTS, NULL));
    assert_false(authz_allows(r, "ops", HTTP_PERM_READ, HTTP_SCOPE_SUBJECT, "orders-value"));
    /* "*" is every principal, never the missing one */
    assert_true(authz_allows(r, "anyone", HTTP_PERM_READ, HTTP_SCOPE_SUBJECT, "public.a"));
    assert_false(authz_allows(r, NULL, HTTP_PERM_READ, HTTP_SCOPE_SUBJECT, "public.a"));
    assert_true(authz_allows(r, NULL, HTTP_PERM_READ, HTTP_SCOPE_ANY, NULL));
    /* no authorization at all */
    assert_true(authz_allows(NULL, NULL, HTTP_PERM_ADMIN, HTTP_SCOPE_CONFIG, NULL));
    authz_rules_release(authz_rules_ref(r));
    authz_rules_release(r);
}

/* /metrics is a global resource of its own (docs/operations.md "Metrics"): admin
 * on it grants nothing else, and slash-star covers it. */
static void test_metrics_scope(void **state)
{
    char *error;
    authz_rules_t *r = load("auth.rule = prom admin /metrics\n"
                            "auth.rule = root admin /*\n"
                            "auth.rule = alice admin *\n"
                            "auth.rule = alice read /config\n",
                            &error);
    assert_null(error);
    assert_true(authz_allows(r, "prom", HTTP_PERM_ADMIN, HTTP_SCOPE_METRICS, NULL));
    assert_false(authz_allows(r, "prom", HTTP_PERM_READ, HTTP_SCOPE_CONFIG, NULL));
    assert_false(authz_allows(r, "prom", HTTP_PERM_READ, HTTP_SCOPE_SUBJECT, "s"));
    assert_true(authz_allows(r, "root", HTTP_PERM_ADMIN, HTTP_SCOPE_METRICS, NULL));
    assert_false(authz_allows(r, "alice", HTTP_PERM_ADMIN, HTTP_SCOPE_METRICS, NULL));
    assert_false(authz_allows(r, "alice", HTTP_PERM_READ, HTTP_SCOPE_METRICS, NULL));
    authz_rules_release(r);
}

/* /audit is a global resource of its own, and one of the six of slash-star. */
static void test_audit_scope(void **state)
{
    char *error;
    authz_rules_t *r = load("auth.rule = root admin /*\n"
                            "auth.rule = auditor admin /audit\n"
                            "auth.rule = ops admin /config\n",
                            &error);
    assert_null(error);
    assert_true(authz_allows(r, "root", HTTP_PERM_ADMIN, HTTP_SCOPE_AUDIT, NULL));
    assert_true(authz_allows(r, "auditor", HTTP_PERM_ADMIN, HTTP_SCOPE_AUDIT, NULL));
    assert_false(authz_allows(r, "auditor", HTTP_PERM_ADMIN, HTTP_SCOPE_CONFIG, NULL));
    assert_false(authz_allows(r, "ops", HTTP_PERM_ADMIN, HTTP_SCOPE_AUDIT, NULL));
    authz_rules_release(r);
    (void)state;
}

static void test_bad_rules_name_the_line(void **state)
{
    static const struct {
        const char *text, *error;
    } cases[] = {
        {"auth.rule = alice read\n", ":1: expected 'auth.rule = "},
        {"# c\nauth.rule = alice read a b\n", ":2: expected 'auth.rule = "},
        {"auth.rule = alice steal s\n", ":1: permissions: "},
        {"auth.rule = alice read,,nope s\n", ":1: permissions: "},
        {"auth.rule = @nobody read s\n", ":1: group 'nobody' is not defined"},
        {"auth.rule = alice read /subjects\n", ":1: pattern '/subjects': "},
        {"auth.rule = alice read subject:\n", ":1: empty subject pattern"},
        {"auth.group = devs\n", ":1: expected 'auth.group = "},
        {"auth.group = devs a\nauth.group = devs b\n", ":2: group 'devs' is defined twice"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *error;
        authz_rules_t *r = load(cases[i].text, &error);
        assert_null(r);
        assert_non_null(error);
        if (strstr(error, cases[i].error) == NULL)
            fail_msg("case %zu: '%s' lacks '%s'", i, error, cases[i].error);
        free(error);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_route_declares_a_permission),
        cmocka_unit_test(test_undeclared_is_refused),
        cmocka_unit_test(test_rules_grant),
        cmocka_unit_test(test_metrics_scope),
        cmocka_unit_test(test_audit_scope),
        cmocka_unit_test(test_bad_rules_name_the_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
