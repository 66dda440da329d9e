/*
 * http_framing: see http_framing.h. The only h2o internals relied on are
 * public: h2o_conn_callbacks_t.get_socket and h2o_socket_t.input.
 */
#include "server/http_framing.h"

#include <h2o.h>
#include <string.h>
#include <strings.h>

static const char http_framing_name_[] = "content-length";

/* Trims optional whitespace (RFC 9110 5.5 OWS) from both ends. */
static h2o_iovec_t http_framing_trim_(const char *p, size_t n)
{
    while (n != 0 && (*p == ' ' || *p == '\t'))
        ++p, --n;
    while (n != 0 && (p[n - 1] == ' ' || p[n - 1] == '\t' || p[n - 1] == '\r'))
        --n;
    return h2o_iovec_init(p, n);
}

/* Remembers the first value in *seen; returns -1 when a later one differs. */
static int http_framing_same_(h2o_iovec_t *seen, h2o_iovec_t value)
{
    if (seen->base == NULL) {
        *seen = value;
        return 0;
    }
    return h2o_memis(seen->base, seen->len, value.base, value.len) ? 0 : -1;
}

int http_framing_check_head(const char *head, size_t len)
{
    const size_t name_len = sizeof http_framing_name_ - 1;
    h2o_iovec_t seen = {NULL, 0};
    const char *end = head + len;
    const char *line = memchr(head, '\n', len); /* skip the request line */
    while (line != NULL && ++line < end) {
        const char *eol = memchr(line, '\n', (size_t)(end - line));
        size_t n = (size_t)((eol ? eol : end) - line);
        if (n == 0 || (n == 1 && line[0] == '\r'))
            break; /* the empty line ends the head; what follows is body */
        if (n > name_len && line[name_len] == ':' && strncasecmp(line, http_framing_name_, name_len) == 0 &&
            http_framing_same_(&seen, http_framing_trim_(line + name_len + 1, n - name_len - 1)) != 0)
            return -1;
        line = eol;
    }
    return 0;
}

int http_framing_check(h2o_req_t *req)
{
    if (req->version >= 0x200) {
        h2o_iovec_t seen = {NULL, 0};
        for (ssize_t i = -1; (i = h2o_find_header(&req->headers, H2O_TOKEN_CONTENT_LENGTH, i)) != -1;)
            if (http_framing_same_(&seen, http_framing_trim_(req->headers.entries[i].value.base,
                                                             req->headers.entries[i].value.len)) != 0)
                return -1;
        return 0;
    }
    if (req->entity.base == NULL || req->conn->callbacks->get_socket == NULL)
        return 0; /* no body: no length to disagree on */
    h2o_socket_t *sock = req->conn->callbacks->get_socket(req->conn);
    if (sock == NULL || sock->input == NULL)
        return 0;
    const char *start = sock->input->bytes;
    if (req->entity.base < start || req->entity.base > start + sock->input->size)
        return 0; /* not the layout described in the header: nothing to read */
    return http_framing_check_head(start, (size_t)(req->entity.base - start));
}
