/*
 * test_client_http: the registry client of client/ (client.h, section 1)
 * against a small HTTP/1.1 server in this process that counts what it is
 * asked: the id cache (positive and negative), the latest-version TTL,
 * connection reuse, Basic auth, any GET as JSON, and all of it from several
 * threads at once.
 * The real server is tests/integration/test_decoder.py's.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "client/client.h"

/* ---- The counting server ----------------------------------------------------- */

typedef struct fake {
    int listen_fd;
    int port;
    pthread_t thread;
    pthread_mutex_t lock;
    int connections;
    int requests;
    int by_path[8]; /* see fake_route */
    int latest_version;
} fake_t;

static fake_t fake;

/* base64("user:secret") */
#define FAKE_AUTH "Authorization: Basic dXNlcjpzZWNyZXQ="

static int fake_route(const char *path, int *status, char *body, size_t cap)
{
    *status = 200;
    if (strcmp(path, "/schemas/ids/1?format=resolved") == 0) {
        snprintf(body, cap, "{\"schema\":\"\\\"string\\\"\"}");
        return 0;
    }
    if (strcmp(path, "/schemas/ids/2?format=resolved") == 0) {
        *status = 404;
        snprintf(body, cap, "{\"error_code\":40403,\"message\":\"Schema 2 not found\"}");
        return 1;
    }
    if (strcmp(path, "/subjects/s%2Fx/versions/latest") == 0) {
        snprintf(body, cap, "{\"subject\":\"s/x\",\"version\":%d,\"id\":1,\"schema\":\"\\\"string\\\"\"}",
                 fake.latest_version);
        return 2;
    }
    if (strcmp(path, "/schemas/ids/1/versions") == 0) {
        snprintf(body, cap, "[{\"subject\":\"other\",\"version\":9},{\"subject\":\"s/x\",\"version\":3}]");
        return 3;
    }
    /* Protobuf references: 10 imports a.proto (11, which imports b.proto)
     * and b.proto (12); 20 imports itself; 30 a subject that is gone. */
    static const char *const ids[][2] = {
        {"/schemas/ids/10?format=resolved",
         "{\"schemaType\":\"PROTOBUF\",\"schema\":\"syntax = \\\"proto3\\\"; import \\\"a.proto\\\"; "
         "import \\\"b.proto\\\"; message M { A a = 1; B b = 2; }\",\"references\":["
         "{\"name\":\"a.proto\",\"subject\":\"a\",\"version\":1},"
         "{\"name\":\"b.proto\",\"subject\":\"b\",\"version\":1}]}"},
        {"/schemas/ids/11?format=resolved",
         "{\"schemaType\":\"PROTOBUF\",\"schema\":\"syntax = \\\"proto3\\\"; import \\\"b.proto\\\"; "
         "message A { B b = 1; }\",\"references\":[{\"name\":\"b.proto\",\"subject\":\"b\",\"version\":1}]}"},
        {"/schemas/ids/12?format=resolved",
         "{\"schemaType\":\"PROTOBUF\",\"schema\":\"syntax = \\\"proto3\\\"; message B { int32 x = 1; }\"}"},
        {"/subjects/a/versions/1", "{\"subject\":\"a\",\"version\":1,\"id\":11}"},
        {"/subjects/b/versions/1", "{\"subject\":\"b\",\"version\":1,\"id\":12}"},
        {"/schemas/ids/20?format=resolved",
         "{\"schemaType\":\"PROTOBUF\",\"schema\":\"syntax = \\\"proto3\\\"; import \\\"self.proto\\\"; "
         "message S { int32 x = 1; }\",\"references\":[{\"name\":\"self.proto\",\"subject\":\"loop\","
         "\"version\":1}]}"},
        {"/subjects/loop/versions/1", "{\"subject\":\"loop\",\"version\":1,\"id\":20}"},
        {"/schemas/ids/30?format=resolved",
         "{\"schemaType\":\"PROTOBUF\",\"schema\":\"syntax = \\\"proto3\\\"; import \\\"gone.proto\\\"; "
         "message G { int32 x = 1; }\",\"references\":[{\"name\":\"gone.proto\",\"subject\":\"gone\","
         "\"version\":1}]}"},
    };
    for (size_t i = 0; i < sizeof(ids) / sizeof(*ids); i++)
        if (strcmp(path, ids[i][0]) == 0) {
            snprintf(body, cap, "%s", ids[i][1]);
            return strcmp(path, "/subjects/b/versions/1") == 0 ? 4 : 5;
        }
    if (strcmp(path, "/subjects/gone/versions/1") == 0) {
        *status = 404;
        snprintf(body, cap, "{\"error_code\":40401,\"message\":\"Subject 'gone' not found.\"}");
        return 6;
    }
    *status = 404;
    snprintf(body, cap, "{\"error_code\":404,\"message\":\"HTTP 404 Not Found\"}");
    return 7;
}

static void *fake_connection(void *arg)
{
    int fd = (int)(intptr_t)arg;
    char buf[8192];
    size_t have = 0;
    for (;;) {
        char *end;
        while (!(end = memmem(buf, have, "\r\n\r\n", 4))) {
            ssize_t n = have < sizeof(buf) ? read(fd, buf + have, sizeof(buf) - have) : -1;
            if (n <= 0) {
                close(fd);
                return NULL;
            }
            have += (size_t)n;
        }
        *end = '\0';
        char method[16], path[1024];
        sscanf(buf, "%15s %1023s", method, path);
        int authorized = strstr(buf, FAKE_AUTH) != NULL;
        size_t used = (size_t)(end - buf) + 4;
        const char *cl = strcasestr(buf, "Content-Length:");
        if (cl)
            used += (size_t)atol(cl + 15);
        memmove(buf, buf + used, have - used);
        have -= used;
        char body[1024];
        int status;
        if (!authorized) {
            status = 401;
            snprintf(body, sizeof(body), "{\"error_code\":40101,\"message\":\"Unauthorized\"}");
        } else {
            int r = fake_route(path, &status, body, sizeof(body));
            pthread_mutex_lock(&fake.lock);
            fake.by_path[r]++;
            pthread_mutex_unlock(&fake.lock);
        }
        pthread_mutex_lock(&fake.lock);
        fake.requests++;
        pthread_mutex_unlock(&fake.lock);
        char reply[2048];
        int n = snprintf(reply, sizeof(reply),
                         "HTTP/1.1 %d X\r\nContent-Type: application/vnd.schemaregistry.v1+json\r\n"
                         "Content-Length: %zu\r\n\r\n%s",
                         status, strlen(body), body);
        if (write(fd, reply, (size_t)n) != n) {
            close(fd);
            return NULL;
        }
    }
}

static void *fake_accept(void *arg)
{
    for (;;) {
        int fd = accept(fake.listen_fd, NULL, NULL);
        if (fd < 0)
            return NULL;
        pthread_mutex_lock(&fake.lock);
        fake.connections++;
        pthread_mutex_unlock(&fake.lock);
        pthread_t t;
        pthread_create(&t, NULL, fake_connection, (void *)(intptr_t)fd);
        pthread_detach(t);
    }
}

static int fake_start(void **state)
{
    memset(&fake, 0, sizeof(fake));
    pthread_mutex_init(&fake.lock, NULL);
    fake.latest_version = 3;
    fake.listen_fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(a);
    if (bind(fake.listen_fd, (struct sockaddr *)&a, sizeof(a)) != 0 || listen(fake.listen_fd, 64) != 0 ||
        getsockname(fake.listen_fd, (struct sockaddr *)&a, &len) != 0)
        return -1;
    fake.port = ntohs(a.sin_port);
    pthread_create(&fake.thread, NULL, fake_accept, NULL);
    return 0;
}

static void fake_counts(int *connections, int *requests, int route)
{
    pthread_mutex_lock(&fake.lock);
    if (connections)
        *connections = fake.connections;
    if (requests)
        *requests = route >= 0 ? fake.by_path[route] : fake.requests;
    pthread_mutex_unlock(&fake.lock);
}

static srclient_t *client_with(const char *auth, long ttl_ms)
{
    char url[64];
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/", fake.port);
    srclient_options_t o = {.url = url, .basic_auth = auth, .latest_ttl_ms = ttl_ms};
    char *err = NULL;
    srclient_t *c = srclient_new(&o, &err);
    assert_non_null(c);
    return c;
}

/* ---- Tests ---------------------------------------------------------------------- */

typedef struct worker {
    srclient_t *c;
    int failures;
} worker_t;

static void *worker_run(void *arg)
{
    worker_t *w = arg;
    for (int i = 0; i < 200; i++) {
        srclient_schema_t *s = NULL;
        srclient_error_t err;
        if (srclient_schema_by_id(w->c, 1, &s, &err) != 0 ||
            strcmp(srclient_schema_text(s), "\"string\"") != 0 || !srclient_schema_avro(s))
            w->failures++;
        srclient_schema_release(s);
        if (srclient_schema_by_id(w->c, 2, &s, &err) == 0 || err.code != 40403)
            w->failures++;
        srclient_version_t v;
        if (srclient_subject_version(w->c, "s/x", 0, &v, &err) != 0 || v.version != 3 || v.id != 1)
            w->failures++;
        srclient_version_clear(&v);
        int version;
        if (srclient_id_version(w->c, 1, "s/x", &version, &err) != 0 || version != 3)
            w->failures++;
    }
    return NULL;
}

static void test_threads_share_the_caches(void **state)
{
    srclient_t *c = client_with("user:secret", 60000);
    enum { N = 8 };
    pthread_t t[N];
    worker_t w[N];
    for (int i = 0; i < N; i++) {
        w[i] = (worker_t){.c = c};
        pthread_create(&t[i], NULL, worker_run, &w[i]);
    }
    for (int i = 0; i < N; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(w[i].failures, 0);
    }
    /* 1,600 lookups of each kind; at most one request per thread that raced
     * on the first miss, and none after. */
    int n;
    for (int route = 0; route < 4; route++) {
        fake_counts(NULL, &n, route);
        assert_in_range(n, 1, N);
    }
    srclient_free(c);
}

static void test_negative_cache(void **state)
{
    srclient_t *c = client_with("user:secret", 60000);
    int before, after;
    fake_counts(NULL, &before, 1);
    for (int i = 0; i < 100; i++) {
        srclient_schema_t *s = (srclient_schema_t *)1;
        srclient_error_t err;
        assert_int_equal(srclient_schema_by_id(c, 2, &s, &err), -1);
        assert_null(s);
        assert_int_equal(err.status, 404);
        assert_int_equal(err.code, 40403);
        assert_string_equal(err.message, i == 0 ? "Schema 2 not found" : "Schema 2 not found");
    }
    fake_counts(NULL, &after, 1);
    assert_int_equal(after - before, 1);
    srclient_free(c);
}

/* A Protobuf schema's references, theirs too, are fetched with it, each
 * once; its imported types then resolve (docs/decoding.md section 6). */
static void test_protobuf_references(void **state)
{
    srclient_t *c = client_with("user:secret", 60000);
    int b0, b1, g0, g1;
    fake_counts(NULL, &b0, 4);
    srclient_schema_t *s = NULL;
    srclient_error_t err;
    if (srclient_schema_by_id(c, 10, &s, &err) != 0)
        fail_msg("%s", err.message);
    fake_counts(NULL, &b1, 4);
    assert_int_equal(b1 - b0, 1); /* b.proto: once, though two files import it */
    char *why = NULL;
    srclient_proto_reader_t *r = srclient_proto_reader_new(srclient_schema_proto(s), NULL, &why);
    assert_null(why);
    assert_non_null(r);
    /* M { a { b { x: 5 } } b { x: 7 } }, indexes [0] */
    static const uint8_t rec[] = {0x00, 0x0a, 0x04, 0x0a, 0x02, 0x08, 0x05, 0x12, 0x02, 0x08, 0x07};
    strbuf_t out = {0};
    assert_int_equal(srclient_proto_decode(r, NULL, rec, sizeof(rec), &out, &why), 0);
    strbuf_putc(&out, 0);
    assert_string_equal(out.data, "{\"a\":{\"b\":{\"x\":5}},\"b\":{\"x\":7}}");
    strbuf_free(&out);
    srclient_proto_reader_free(r);
    srclient_schema_release(s);

    /* A cycle ends at the depth bound, named by the schema asked for. */
    assert_int_equal(srclient_schema_by_id(c, 20, &s, &err), -1);
    assert_null(s);
    assert_int_equal(err.code, SRCLIENT_ERR_SCHEMA);
    assert_string_equal(err.message,
                        "schema 20: reference self.proto (loop version 1): schema 20: references "
                        "nested deeper than 32");

    /* A reference that is gone: the registry's error; not cached, so asked again. */
    fake_counts(NULL, &g0, 6);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(srclient_schema_by_id(c, 30, &s, &err), -1);
        assert_int_equal(err.status, 404);
        assert_int_equal(err.code, 40401);
        assert_string_equal(err.message,
                            "schema 30: reference gone.proto (gone version 1): Subject 'gone' not found.");
    }
    fake_counts(NULL, &g1, 6);
    assert_int_equal(g1 - g0, 2);
    srclient_free(c);
}

static void test_latest_ttl_and_connection_reuse(void **state)
{
    srclient_t *c = client_with("user:secret", 150);
    int conns0, conns1, r0, r1, r2;
    fake_counts(&conns0, &r0, 2);
    srclient_version_t v;
    srclient_error_t err;
    for (int i = 0; i < 10; i++) {
        assert_int_equal(srclient_subject_version(c, "s/x", 0, &v, &err), 0);
        srclient_version_clear(&v);
    }
    fake_counts(NULL, &r1, 2);
    assert_int_equal(r1 - r0, 1); /* within the TTL: one request */
    fake.latest_version = 4;
    struct timespec ts = {0, 250 * 1000 * 1000};
    nanosleep(&ts, NULL);
    assert_int_equal(srclient_subject_version(c, "s/x", 0, &v, &err), 0);
    assert_int_equal(v.version, 4); /* after it: asked again */
    srclient_version_clear(&v);
    fake_counts(NULL, &r2, 2);
    assert_int_equal(r2 - r1, 1);
    srclient_free(c);

    /* Never cached: every call is a request, all on one connection. */
    c = client_with("user:secret", -1);
    fake_counts(&conns0, &r0, 2);
    for (int i = 0; i < 20; i++) {
        assert_int_equal(srclient_subject_version(c, "s/x", 0, &v, &err), 0);
        srclient_version_clear(&v);
    }
    fake_counts(&conns1, &r1, 2);
    assert_int_equal(r1 - r0, 20);
    assert_int_equal(conns1 - conns0, 1);
    srclient_free(c);
    fake.latest_version = 3;
}

static void test_basic_auth_and_failures(void **state)
{
    srclient_t *c = client_with("user:wrong", 60000);
    srclient_schema_t *s;
    srclient_error_t err;
    assert_int_equal(srclient_schema_by_id(c, 1, &s, &err), -1);
    assert_int_equal(err.status, 401);
    assert_int_equal(err.code, 40101);
    assert_string_equal(err.message, "Unauthorized");
    srclient_free(c);

    char *msg = NULL;
    srclient_options_t bad = {.url = "ftp://x"};
    assert_null(srclient_new(&bad, &msg));
    assert_string_equal(msg, "registry URL must start with http:// or https://: ftp://x");
    free(msg);
    srclient_options_t noauth = {.url = "http://x", .basic_auth = "nocolon"};
    assert_null(srclient_new(&noauth, &msg));
    assert_string_equal(msg, "basic auth must be user:secret");
    free(msg);

    /* Nobody listening: a network error, not cached as unknown. */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(a);
    bind(fd, (struct sockaddr *)&a, sizeof(a));
    getsockname(fd, (struct sockaddr *)&a, &len);
    char url[64];
    snprintf(url, sizeof(url), "http://127.0.0.1:%d", ntohs(a.sin_port));
    close(fd);
    srclient_options_t o = {.url = url};
    c = srclient_new(&o, &msg);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(srclient_schema_by_id(c, 1, &s, &err), -1);
        assert_int_equal(err.code, SRCLIENT_ERR_NETWORK);
        assert_int_equal(err.status, 0);
    }
    srclient_free(c);
}

/* srclient_get_json: any GET's JSON, never cached; a registry error is -1
 * with its status and error_code. */
static void test_get_json(void **state)
{
    (void)state;
    srclient_t *c = client_with("user:secret", 60000);
    srclient_error_t err;
    pthread_mutex_lock(&fake.lock);
    int before = fake.by_path[3];
    pthread_mutex_unlock(&fake.lock);
    for (int i = 0; i < 2; i++) {
        json_t *doc = NULL;
        assert_int_equal(srclient_get_json(c, "/schemas/ids/1/versions", &doc, &err), 0);
        assert_true(json_is_array(doc));
        assert_int_equal(json_array_size(doc), 2);
        assert_string_equal(json_string_value(json_object_get(json_array_get(doc, 1), "subject")), "s/x");
        json_decref(doc);
    }
    pthread_mutex_lock(&fake.lock);
    assert_int_equal(fake.by_path[3] - before, 2);
    pthread_mutex_unlock(&fake.lock);
    json_t *doc = (json_t *)1;
    assert_int_equal(srclient_get_json(c, "/schemas/ids/2?format=resolved", &doc, &err), -1);
    assert_null(doc);
    assert_int_equal(err.status, 404);
    assert_int_equal(err.code, 40403);
    assert_string_equal(err.message, "Schema 2 not found");
    srclient_free(c);

    c = client_with("user:wrong", 60000);
    assert_int_equal(srclient_get_json(c, "/schemas/ids/1/versions", &doc, &err), -1);
    assert_int_equal(err.status, 401);
    assert_int_equal(err.code, 40101);
    srclient_free(c);

    char *e = srclient_escape(":.ctx:s/x y");
    assert_string_equal(e, "%3A.ctx%3As%2Fx%20y");
    free(e);
}

/* One decoder shared by eight threads: every record decoded, the writer
 * schema fetched once per racing thread at most. The reader is version 3
 * of s/x (the fake's latest, id 1), so id 1 is not newer. */
typedef struct dworker {
    srclient_decoder_t *d;
    int failures;
} dworker_t;

static void *dworker_run(void *arg)
{
    dworker_t *w = arg;
    const uint8_t rec[] = {0, 0, 0, 0, 1, 0x06, 'a', 'b', 'c'};
    const uint8_t unknown[] = {0, 0, 0, 0, 2, 0x00};
    for (int i = 0; i < 500; i++) {
        strbuf_t row = {0};
        srclient_error_t err;
        if (srclient_decode(w->d, rec, sizeof(rec), &row, NULL, &err) != SRCLIENT_DECODED ||
            strcmp(row.data, "\"abc\"") != 0)
            w->failures++;
        strbuf_free(&row);
        if (srclient_decode(w->d, unknown, sizeof(unknown), &row, NULL, &err) != SRCLIENT_BAD_RECORD ||
            strcmp(err.message, "Schema 2 not found") != 0 || row.len != 0)
            w->failures++;
        strbuf_free(&row);
    }
    return NULL;
}

static void test_one_decoder_many_threads(void **state)
{
    srclient_t *c = client_with("user:secret", 60000);
    srclient_decoder_options_t o = {
        .subject = "s/x", .reader_version = 0, .evolution = SRCLIENT_EVOLUTION_RESTART};
    srclient_error_t err;
    int before;
    fake_counts(NULL, &before, 0);
    srclient_decoder_t *d = srclient_decoder_new(c, &o, &err);
    assert_non_null(d);
    assert_int_equal(srclient_decoder_reader_version(d), 3);
    assert_int_equal(srclient_decoder_reader_id(d), 1);
    enum { N = 8 };
    pthread_t t[N];
    dworker_t w[N];
    for (int i = 0; i < N; i++) {
        w[i] = (dworker_t){.d = d};
        pthread_create(&t[i], NULL, dworker_run, &w[i]);
    }
    for (int i = 0; i < N; i++) {
        pthread_join(t[i], NULL);
        assert_int_equal(w[i].failures, 0);
    }
    int after;
    fake_counts(NULL, &after, 0);
    assert_int_equal(after - before, 1); /* id 1: fetched once, by decoder_new */
    srclient_decoder_free(d);

    /* A reader from text with restart compares with the latest at start (2):
     * the writer id 1 is version 3 of s/x, so restart. */
    srclient_decoder_options_t pinned = {.subject = "s/x",
                                         .reader_version = -1,
                                         .reader_text = "\"string\"",
                                         .evolution = SRCLIENT_EVOLUTION_RESTART};
    srclient_free(c);
    c = client_with("user:secret", 60000); /* the old one keeps latest = 3 for its TTL */
    fake.latest_version = 2;
    d = srclient_decoder_new(c, &pinned, &err);
    fake.latest_version = 3;
    assert_non_null(d);
    const uint8_t rec[] = {0, 0, 0, 0, 1, 0x02, 'z'};
    strbuf_t row = {0};
    srclient_newer_t newer = {0};
    assert_int_equal(srclient_decode(d, rec, sizeof(rec), &row, &newer, &err), SRCLIENT_NEWER_SCHEMA);
    assert_int_equal(newer.id, 1);
    assert_int_equal(newer.version, 3);
    assert_string_equal(err.message,
                        "schema id 1 is version 3 of subject s/x, newer than the reader's version 2");
    assert_int_equal(row.len, 0);
    strbuf_free(&row);
    srclient_decoder_free(d);
    srclient_free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_threads_share_the_caches),
        cmocka_unit_test(test_negative_cache),
        cmocka_unit_test(test_protobuf_references),
        cmocka_unit_test(test_latest_ttl_and_connection_reuse),
        cmocka_unit_test(test_basic_auth_and_failures),
        cmocka_unit_test(test_get_json),
        cmocka_unit_test(test_one_decoder_many_threads),
    };
    return cmocka_run_group_tests(tests, fake_start, NULL);
}
