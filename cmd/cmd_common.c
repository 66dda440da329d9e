/*
 * cmd_common: what decode and encode share (cmd.h, section 2).
 */
#include "cmd/cmd.h"

#include <string.h>

const char cmd_client_usage[] =
    "  --registry URL          the registry (http:// or https://); or SCHEMA_REGISTRY_URL\n"
    "  --basic-auth USER:SECRET  HTTP Basic credentials; or SCHEMA_REGISTRY_BASIC_AUTH\n"
    "  --ca FILE               CA bundle (PEM) that signed the registry's certificate\n"
    "  --cert FILE --key FILE  a TLS client certificate and its key (PEM)\n"
    "  --insecure              do not verify the registry's certificate (tests only)\n"
    "  --h2c                   HTTP/2 without TLS (prior knowledge); TLS negotiates h2 anyway\n";

int cmd_client_flag(int argc, char **argv, int *i, srclient_options_t *o)
{
    static const char *const with_value[] = {"--registry", "--basic-auth", "--ca", "--cert", "--key"};
    const char *a = argv[*i];
    if (strcmp(a, "--insecure") == 0) {
        o->insecure = 1;
        return 1;
    }
    if (strcmp(a, "--h2c") == 0) {
        o->h2c = 1;
        return 1;
    }
    for (size_t k = 0; k < sizeof(with_value) / sizeof(*with_value); k++) {
        if (strcmp(a, with_value[k]) != 0)
            continue;
        if (*i + 1 >= argc)
            return -1;
        const char *v = argv[++*i];
        const char **slot[] = {&o->url, &o->basic_auth, &o->ca_file, &o->cert_file, &o->key_file};
        *slot[k] = v;
        return 1;
    }
    return 0;
}

/* flags' entry named arg, or NULL. */
static const cmd_flag_t *cmd_flag_find_(const cmd_flag_t *flags, const char *arg)
{
    for (; flags->name; flags++)
        if (strcmp(flags->name, arg) == 0)
            return flags;
    return NULL;
}

int cmd_read_args(const char *name, int argc, char **argv, srclient_options_t *copts, const cmd_flag_t *flags,
                  const char *usage, char **files, int *nfiles)
{
    *nfiles = 0;
    for (int i = 1; i < argc; i++) {
        int c = cmd_client_flag(argc, argv, &i, copts);
        const cmd_flag_t *f = c == 0 ? cmd_flag_find_(flags, argv[i]) : NULL;
        if (c < 0 || (f && f->value && i + 1 >= argc)) {
            fprintf(stderr, "schema-registry %s: %s needs a value (see --help)\n", name, argv[argc - 1]);
            return CMD_EXIT_USAGE;
        }
        if (c > 0)
            continue;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            printf(usage, cmd_client_usage);
            return CMD_EXIT_OK;
        }
        if (f && f->value)
            *f->value = argv[++i];
        else if (f)
            *f->on = 1;
        else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "schema-registry %s: unknown flag %s (see --help)\n", name, argv[i]);
            return CMD_EXIT_USAGE;
        } else
            files[(*nfiles)++] = argv[i];
    }
    return -1;
}

int cmd_lines_parse(const char *s, cmd_lines_t *out)
{
    if (strcmp(s, "hex") == 0)
        *out = CMD_LINES_HEX;
    else if (strcmp(s, "base64") == 0)
        *out = CMD_LINES_BASE64;
    else
        return -1;
    return 0;
}

static int cmd_hex(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

int cmd_line_bytes(cmd_lines_t f, const char *line, size_t len, strbuf_t *out)
{
    while (len > 0 && strchr(" \t\r\n", line[len - 1]))
        len--;
    while (len > 0 && strchr(" \t", *line))
        line++, len--;
    if (f == CMD_LINES_BASE64)
        return srclient_base64_decode(line, len, out);
    if (len % 2)
        return -1;
    for (size_t i = 0; i < len; i += 2) {
        int h = cmd_hex(line[i]), l = cmd_hex(line[i + 1]);
        if (h < 0 || l < 0)
            return -1;
        strbuf_putc(out, (char)(h << 4 | l));
    }
    return 0;
}

void cmd_bytes_line(cmd_lines_t f, const unsigned char *s, size_t n, FILE *out)
{
    if (f == CMD_LINES_HEX) {
        for (size_t i = 0; i < n; i++)
            fprintf(out, "%02x", s[i]);
        return;
    }
    strbuf_t b = {0};
    srclient_base64_encode(&b, s, n);
    if (b.len)
        fwrite(b.data, 1, b.len, out);
    strbuf_free(&b);
}
