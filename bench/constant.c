/*
 * bench-constant: the ceiling of the HTTP stack. The same libh2o 2.2.5
 * build as the registry, the same loop layout (one evloop per thread, each
 * on its own dup of one listening socket), answering every request with the
 * bytes of one file and the registry's media type. Nothing is parsed,
 * looked up or rendered: what the registry adds on top shows as the ratio
 * to this program in `make bench` (docs/performance.md).
 *
 *   bench-constant PORT FILE [THREADS]
 *
 * Runs until killed. Plain HTTP/1.1 and h2c (prior knowledge), like the
 * registry without TLS.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <h2o.h>

#define CONSTANT_MAX_THREADS 64

static h2o_globalconf_t constant_config;
static h2o_iovec_t constant_body;
static int constant_listen_fd = -1;

typedef struct constant_loop {
    pthread_t thread;
    h2o_context_t ctx;
    h2o_accept_ctx_t accept_ctx;
    int nconns; /* loop thread only */
} constant_loop_t;

static int constant_threads;
static atomic_int constant_connections;

static int constant_on_req(h2o_handler_t *self, h2o_req_t *req)
{
    static const char type[] = "application/vnd.schemaregistry.v1+json";
    req->res.status = 200;
    req->res.reason = "OK";
    h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_CONTENT_TYPE, NULL, type, sizeof type - 1);
    req->res.content_length = constant_body.len;
    h2o_send_inline(req, constant_body.base, constant_body.len);
    return 0;
}

static void constant_on_close(void *data)
{
    constant_loop_t *loop = data;
    loop->nconns--;
    atomic_fetch_sub(&constant_connections, 1);
}

/* The registry's accept policy (server/http_server.c): one per wake-up, more
 * only while this loop holds less than its share of the connections. */
static void constant_on_accept(h2o_socket_t *listener, const char *err)
{
    constant_loop_t *loop = listener->data;
    if (err != NULL)
        return;
    for (int i = 0; i < 16; i++) {
        if (i > 0 && loop->nconns * constant_threads >= atomic_load(&constant_connections))
            return;
        h2o_socket_t *sock = h2o_evloop_socket_accept(listener);
        if (sock == NULL)
            return;
        atomic_fetch_add(&constant_connections, 1);
        loop->nconns++;
        sock->on_close.cb = constant_on_close;
        sock->on_close.data = loop;
        h2o_accept(&loop->accept_ctx, sock);
    }
}

/* Everything h2o on the loop's own thread: socket buffers bind to the creating thread. */
static void *constant_loop_main(void *arg)
{
    constant_loop_t *loop = arg;
    h2o_context_init(&loop->ctx, h2o_evloop_create(), &constant_config);
    loop->accept_ctx.ctx = &loop->ctx;
    loop->accept_ctx.hosts = constant_config.hosts;
    int fd = fcntl(constant_listen_fd, F_DUPFD_CLOEXEC, 0);
    h2o_socket_t *listener = h2o_evloop_socket_create(loop->ctx.loop, fd, H2O_SOCKET_FLAG_DONT_READ);
    listener->data = loop;
    h2o_socket_read_start(listener, constant_on_accept);
    for (;;)
        h2o_evloop_run(loop->ctx.loop, INT32_MAX);
    return NULL;
}

static int constant_listen(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    int one = 1;
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(fd, SOMAXCONN) != 0) {
        fprintf(stderr, "bench-constant: cannot listen on 127.0.0.1:%d: %s\n", port, strerror(errno));
        exit(1);
    }
    return fd;
}

static h2o_iovec_t constant_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "bench-constant: cannot open %s: %s\n", path, strerror(errno));
        exit(1);
    }
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    return h2o_iovec_init(buf, n);
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench-constant PORT FILE [THREADS]\n");
        return 2;
    }
    int threads = argc > 3 ? atoi(argv[3]) : 2;
    if (threads < 1 || threads > CONSTANT_MAX_THREADS)
        threads = 2;
    constant_threads = threads;
    signal(SIGPIPE, SIG_IGN);
    constant_body = constant_read_file(argv[2]);
    constant_listen_fd = constant_listen(atoi(argv[1]));

    h2o_config_init(&constant_config);
    h2o_hostconf_t *host =
        h2o_config_register_host(&constant_config, h2o_iovec_init(H2O_STRLIT("default")), 65535);
    h2o_pathconf_t *path = h2o_config_register_path(host, "/", 0);
    h2o_create_handler(path, sizeof(h2o_handler_t))->on_req = constant_on_req;

    static constant_loop_t loops[CONSTANT_MAX_THREADS];
    for (int i = 0; i < threads; i++)
        pthread_create(&loops[i].thread, NULL, constant_loop_main, &loops[i]);
    pthread_join(loops[0].thread, NULL);
    return 0;
}
