/*
 * test_http_router: pattern matching, specificity, 404 vs 405
 * (server/router.c), and the shape of the real route table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "server/handlers.h"
#include "server/http_server.h"

/* Distinct handlers, so a test can tell which route won. */
static http_outcome_t on_loop(http_call_t *c)
{
    return HTTP_DONE;
}
static const http_handler_t h_a[1] = {{on_loop, NULL}};
static const http_handler_t h_b[1] = {{on_loop, NULL}};
static const http_handler_t h_c[1] = {{on_loop, NULL}};
static const http_handler_t h_d[1] = {{on_loop, NULL}};
static const http_handler_t h_e[1] = {{on_loop, NULL}};

/* Wildcards first, so a router that takes the first match fails these tests. */
static const http_route_t routes[] = {
    {"/", h_a, h_b, NULL, NULL},
    {"/schemas/ids/*/*", h_c, NULL, NULL, NULL},
    {"/schemas/ids/*/schema", h_d, NULL, NULL, NULL},
    {"/schemas/ids/*", h_a, NULL, NULL, NULL},
    {"/subjects/*/versions/*", h_a, NULL, NULL, h_e},
    {"/subjects/*/versions/latest", NULL, h_b, NULL, NULL},
    {"/config", h_a, NULL, h_b, h_c},
    {"/config/*", h_d, NULL, h_e, NULL},
    {"/*/x", h_b, NULL, NULL, NULL},
    {"/a/*", h_c, NULL, NULL, NULL},
};
#define NROUTES (sizeof routes / sizeof routes[0])

/* Matches a path written as "/a/b/c" (no decoding here) and returns the status. */
static int route(http_method_t m, const char *path, const http_handler_t **fn)
{
    char buf[512];
    char *seg[64];
    size_t n = 0;
    snprintf(buf, sizeof buf, "%s", path);
    char *p = buf[0] == '/' ? buf + 1 : buf;
    while (*p != '\0' && n < 64) {
        seg[n++] = p;
        char *slash = strchr(p, '/');
        if (slash == NULL)
            break;
        *slash = '\0';
        p = slash + 1;
    }
    return http_route_match(routes, NROUTES, m, seg, n, fn);
}

static void test_root(void **state)
{
    const http_handler_t *fn;
    assert_int_equal(route(HTTP_GET, "/", &fn), 200);
    assert_ptr_equal(fn, h_a);
    assert_int_equal(route(HTTP_POST, "/", &fn), 200);
    assert_ptr_equal(fn, h_b);
    assert_int_equal(route(HTTP_DELETE, "/", &fn), 405);
    assert_null(fn);
}

static void test_literal_beats_wildcard(void **state)
{
    const http_handler_t *fn;
    assert_int_equal(route(HTTP_GET, "/schemas/ids/7/schema", &fn), 200);
    assert_ptr_equal(fn, h_d);
    assert_int_equal(route(HTTP_GET, "/schemas/ids/7/other", &fn), 200);
    assert_ptr_equal(fn, h_c);
    /* "/a/x" matches both "one star, then x" and "a, then one star": the first segment decides. */
    assert_int_equal(route(HTTP_GET, "/a/x", &fn), 200);
    assert_ptr_equal(fn, h_c);
    assert_int_equal(route(HTTP_GET, "/b/x", &fn), 200);
    assert_ptr_equal(fn, h_b);
}

static void test_method_decides_between_matching_patterns(void **state)
{
    const http_handler_t *fn;
    /* The literal "latest" route has only POST; GET falls back to the wildcard route. */
    assert_int_equal(route(HTTP_GET, "/subjects/s/versions/latest", &fn), 200);
    assert_ptr_equal(fn, h_a);
    assert_int_equal(route(HTTP_POST, "/subjects/s/versions/latest", &fn), 200);
    assert_ptr_equal(fn, h_b);
    assert_int_equal(route(HTTP_DELETE, "/subjects/s/versions/3", &fn), 200);
    assert_ptr_equal(fn, h_e);
    assert_int_equal(route(HTTP_PUT, "/subjects/s/versions/3", &fn), 405);
}

static void test_segment_count_must_match(void **state)
{
    const http_handler_t *fn;
    assert_int_equal(route(HTTP_GET, "/config", &fn), 200);
    assert_ptr_equal(fn, h_a);
    assert_int_equal(route(HTTP_GET, "/config/s", &fn), 200);
    assert_ptr_equal(fn, h_d);
    assert_int_equal(route(HTTP_GET, "/config/s/t", &fn), 404);
    assert_int_equal(route(HTTP_GET, "/schemas/ids", &fn), 404);
    assert_int_equal(route(HTTP_GET, "/schemas/ids/1/schema/extra", &fn), 404);
}

static void test_404_and_405(void **state)
{
    const http_handler_t *fn = h_a;
    assert_int_equal(route(HTTP_GET, "/associations/resources/x/y", &fn), 404);
    assert_null(fn);
    assert_int_equal(route(HTTP_GET, "/Config", &fn), 404); /* literals are case-sensitive */
    assert_int_equal(route(HTTP_POST, "/config", &fn), 405);
    assert_int_equal(route(HTTP_OTHER, "/config", &fn), 405);
    assert_int_equal(route(HTTP_OTHER, "/nowhere", &fn), 404);
}

static void test_head_uses_get(void **state)
{
    const http_handler_t *fn;
    assert_int_equal(route(HTTP_HEAD, "/schemas/ids/1/schema", &fn), 200);
    assert_ptr_equal(fn, h_d);
    assert_int_equal(route(HTTP_HEAD, "/subjects/s/versions/latest", &fn), 200);
    assert_ptr_equal(fn, h_a);
}

static void test_wildcard_matches_odd_segments(void **state)
{
    /* Decoded segments may hold '/', '*' or nothing at all. */
    const http_handler_t *fn;
    char *seg[] = {"config", "a/b"};
    assert_int_equal(http_route_match(routes, NROUTES, HTTP_PUT, seg, 2, &fn), 200);
    assert_ptr_equal(fn, h_e);
    char *star[] = {"config", "*"};
    assert_int_equal(http_route_match(routes, NROUTES, HTTP_GET, star, 2, &fn), 200);
    assert_ptr_equal(fn, h_d);
    char *empty[] = {"config", ""};
    assert_int_equal(http_route_match(routes, NROUTES, HTTP_GET, empty, 2, &fn), 200);
}

static void test_very_long_paths(void **state)
{
    char *seg[200];
    for (size_t i = 0; i < 200; i++)
        seg[i] = "x";
    const http_handler_t *fn;
    assert_int_equal(http_route_match(routes, NROUTES, HTTP_GET, seg, 200, &fn), 404);
}

static void test_literals_compare_whole_segments(void **state)
{
    const http_handler_t *fn;
    assert_int_equal(route(HTTP_GET, "/configs", &fn), 404);
    assert_int_equal(route(HTTP_GET, "/conf", &fn), 404);
    assert_int_equal(route(HTTP_GET, "/schemas/id/1", &fn), 404);
    assert_int_equal(route(HTTP_GET, "/schemas/idsx/1", &fn), 404);
}

/* The router compiles a few tables once; more than it keeps are compiled per
 * lookup, and must route exactly as a kept one does. Each prefix of routes[]
 * is a table of its own (another nroutes). */
static void test_more_tables_than_kept_route_alike(void **state)
{
    for (int round = 0; round < 2; round++) {
        for (size_t n = NROUTES; n >= 1; n--) {
            const http_handler_t *fn = NULL;
            char *root[] = {NULL};
            assert_int_equal(http_route_match(routes, n, HTTP_GET, root, 0, &fn), 200);
            assert_ptr_equal(fn, h_a);
            char *ax[] = {"a", "x"};
            /* The last route is "a, then one star"; one shorter, "one star, then x" answers. */
            int status = http_route_match(routes, n, HTTP_GET, ax, 2, &fn);
            if (n == NROUTES) {
                assert_int_equal(status, 200);
                assert_ptr_equal(fn, h_c);
            } else if (n == NROUTES - 1) {
                assert_int_equal(status, 200);
                assert_ptr_equal(fn, h_b);
            } else {
                assert_int_equal(status, 404);
                assert_null(fn);
            }
        }
    }
}

/* ---- The real table (server/routes.c) ---------------------------------------- */

static void test_route_table_is_well_formed(void **state)
{
    assert_true(http_route_count > 0);
    for (size_t i = 0; i < http_route_count; i++) {
        const http_route_t *r = &http_routes[i];
        assert_non_null(r->pattern);
        assert_int_equal(r->pattern[0], '/');
        size_t len = strlen(r->pattern);
        assert_true(len == 1 || r->pattern[len - 1] != '/'); /* trailing '/' is the router's job */
        assert_null(strstr(r->pattern, "//"));
        assert_true(r->get || r->post || r->put || r->del);
        for (size_t j = 0; j < i; j++)
            assert_true(strcmp(r->pattern, http_routes[j].pattern) != 0); /* one entry per path */
    }
}

static void test_route_table_has_root_and_associations(void **state)
{
    const http_handler_t *fn;
    assert_int_equal(http_route_find(HTTP_GET, NULL, 0, &fn), 200); /* the liveness probe */
    /* Newer Java serializers (AssociatedNameStrategy.loadSubjectName) ask this
     * and fall back to topic naming on a 404 or an empty list alike: routed
     * now, a topic without associations answers []. */
    char *assoc[] = {"associations", "resources", "-", "orders"};
    assert_int_equal(http_route_find(HTTP_GET, assoc, 4, &fn), 200);
    assert_ptr_equal(fn, &handle_assoc_by_resource_name);
    /* The batch routes: the colon is part of the one segment, matched as a
     * literal (AssociationsResource's "/associations:batchGet"). */
    char *batch_get[] = {"associations:batchGet"};
    assert_int_equal(http_route_find(HTTP_POST, batch_get, 1, &fn), 200);
    assert_ptr_equal(fn, &handle_assoc_batch_get);
    assert_int_equal(http_route_find(HTTP_GET, batch_get, 1, &fn), 405);
    char *batch_mutate[] = {"associations:batchMutate"};
    assert_int_equal(http_route_find(HTTP_POST, batch_mutate, 1, &fn), 200);
    assert_ptr_equal(fn, &handle_assoc_batch_mutate);
    char *other[] = {"associations:batch"};
    assert_int_equal(http_route_find(HTTP_POST, other, 1, &fn), 404);
    char *put[] = {"associations", "resources", "topic-id"};
    assert_int_equal(http_route_find(HTTP_PUT, put, 3, &fn), 200);
    assert_ptr_equal(fn, &handle_assoc_update);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_root),
        cmocka_unit_test(test_literal_beats_wildcard),
        cmocka_unit_test(test_method_decides_between_matching_patterns),
        cmocka_unit_test(test_segment_count_must_match),
        cmocka_unit_test(test_404_and_405),
        cmocka_unit_test(test_head_uses_get),
        cmocka_unit_test(test_wildcard_matches_odd_segments),
        cmocka_unit_test(test_very_long_paths),
        cmocka_unit_test(test_literals_compare_whole_segments),
        cmocka_unit_test(test_more_tables_than_kept_route_alike),
        cmocka_unit_test(test_route_table_is_well_formed),
        cmocka_unit_test(test_route_table_has_root_and_associations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
