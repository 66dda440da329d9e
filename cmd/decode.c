/*
 * decode: `schema-registry decode`, framed records in, JSON rows out
 * (docs/decoding.md). One record per input line, hex or base64; one row per
 * output line, in input order.
 */
#include "cmd/cmd.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <unistd.h>

#include "base/alloc.h"

static const char decode_usage[] =
    "Usage: schema-registry decode --registry URL [flags] [FILE...]\n"
    "Reads framed records (magic byte 0, 4-byte schema id, an Avro or JSON payload), one per line\n"
    "in hex or base64, from the FILEs or stdin; writes one JSON row per line.\n"
    "%s"
    "  --subject S             the subject the reader schema comes from\n"
    "  --reader R              latest (default with --subject), VERSION, a FILE with an\n"
    "                          Avro schema, or writer (each record's own schema; default without --subject)\n"
    "  --evolution E           none (default) or restart: exit 3 at the first record of a\n"
    "                          newer version of the subject than the reader\n"
    "  --mode M                FAILFAST (default: exit 1 at the first bad record) or\n"
    "                          PERMISSIVE (a null row for it, and a count at the end)\n"
    "  --input F               hex (default) or base64\n"
    "  --key-delimiter D       lines are KEY D RECORD, as `kcat -C -K D` prints them: the record\n"
    "                          (after the last D) is decoded, the key passed through: KEY D ROW\n"
    "  --stats                 records, records/s and MB/s on stderr at the end (on a\n"
    "                          terminal a progress line shows every second anyway)\n"
    "  --validate              a JSON Schema record its writer schema rejects is a bad record\n"
    "  --unknown-fields U      drop (default, as the proto3 JSON mapping does) or keep: a\n"
    "                          Protobuf message's fields unknown to the reader as its last key\n"
    "                          \"@unknown\": [{\"number\":N,\"wireType\":W,\"value\":V}] (docs/decoding.md)\n"
    "Exit status: 0 done, 1 a bad record (FAILFAST) or the registry failed, 2 bad usage,\n"
    "3 restart (--evolution restart).\n";

static char *decode_read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    strbuf_t b = {0};
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
        strbuf_put(&b, buf, n);
    fclose(f);
    return strbuf_take(&b);
}

static double decode_now(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

int cmd_decode(int argc, char **argv)
{
    srclient_options_t copts = {.url = getenv("SCHEMA_REGISTRY_URL"),
                                .basic_auth = getenv("SCHEMA_REGISTRY_BASIC_AUTH")};
    const char *subject = NULL, *reader = NULL, *evolution = "none", *mode = "FAILFAST", *input = "hex",
               *key_delimiter = NULL, *unknown_fields = "drop";
    int stats = 0, nfiles = 0, validate = 0;
    const cmd_flag_t flags[] = {{"--stats", NULL, &stats},
                                {"--validate", NULL, &validate},
                                {"--subject", &subject, NULL},
                                {"--reader", &reader, NULL},
                                {"--evolution", &evolution, NULL},
                                {"--mode", &mode, NULL},
                                {"--input", &input, NULL},
                                {"--key-delimiter", &key_delimiter, NULL},
                                {"--unknown-fields", &unknown_fields, NULL},
                                {NULL, NULL, NULL}};
    char **files = xcalloc((size_t)argc + 1, sizeof(char *));
    int exit_now = cmd_read_args("decode", argc, argv, &copts, flags, decode_usage, files, &nfiles);
    if (exit_now >= 0) {
        free(files);
        return exit_now;
    }
    srclient_decoder_options_t dopts = {.subject = subject, .validate = validate};
    cmd_lines_t lines;
    int permissive = strcasecmp(mode, "PERMISSIVE") == 0;
    const char *usage_error = NULL;
    char *reader_text = NULL;
    if (!copts.url)
        usage_error = "--registry URL is required";
    else if (!permissive && strcasecmp(mode, "FAILFAST") != 0)
        usage_error = "--mode is FAILFAST or PERMISSIVE";
    else if (strcmp(evolution, "none") != 0 && strcmp(evolution, "restart") != 0)
        usage_error = "--evolution is none or restart";
    else if (cmd_lines_parse(input, &lines) != 0)
        usage_error = "--input is hex or base64";
    else if (key_delimiter && !*key_delimiter)
        usage_error = "--key-delimiter is one or more characters";
    else if (strcmp(unknown_fields, "drop") != 0 && strcmp(unknown_fields, "keep") != 0)
        usage_error = "--unknown-fields is drop or keep";
    dopts.keep_unknown = strcmp(unknown_fields, "keep") == 0;
    if (!usage_error) {
        dopts.evolution =
            strcmp(evolution, "restart") == 0 ? SRCLIENT_EVOLUTION_RESTART : SRCLIENT_EVOLUTION_NONE;
        if (!reader)
            reader = subject ? "latest" : "writer";
        char *end;
        long v = strtol(reader, &end, 10);
        if (strcmp(reader, "latest") == 0)
            dopts.reader_version = 0;
        else if (strcmp(reader, "writer") == 0)
            dopts.reader_version = -2;
        else if (*reader && !*end && v > 0 && v < 1L << 31)
            dopts.reader_version = (int)v;
        else if ((reader_text = decode_read_file(reader)) != NULL) {
            dopts.reader_version = -1;
            dopts.reader_text = reader_text;
        } else
            usage_error = "--reader is latest, writer, a version number or a readable schema file";
        if (!usage_error && dopts.reader_version >= 0 && !subject)
            usage_error = "--reader latest or VERSION needs --subject";
        if (!usage_error && dopts.evolution == SRCLIENT_EVOLUTION_RESTART && !subject)
            usage_error = "--evolution restart needs --subject";
    }
    if (usage_error) {
        fprintf(stderr, "schema-registry decode: %s (see --help)\n", usage_error);
        free(reader_text);
        free(files);
        return CMD_EXIT_USAGE;
    }
    char *error = NULL;
    srclient_t *client = srclient_new(&copts, &error);
    if (!client) {
        fprintf(stderr, "schema-registry decode: %s\n", error);
        free(error);
        free(reader_text);
        free(files);
        return CMD_EXIT_USAGE;
    }
    srclient_error_t err = {0};
    srclient_decoder_t *dec = srclient_decoder_new(client, &dopts, &err);
    free(reader_text);
    int rc = CMD_EXIT_OK;
    if (!dec) {
        fprintf(stderr, "schema-registry decode: %s\n", err.message);
        srclient_free(client);
        free(files);
        return CMD_EXIT_FAIL;
    }
    long records = 0, bad = 0, lineno = 0;
    size_t bytes = 0;
    double t0 = decode_now(), shown = t0;
    int progress = isatty(STDERR_FILENO);
    strbuf_t rec = {0}, row = {0};
    char *line = NULL;
    size_t cap = 0;
    for (int fi = 0; fi < (nfiles ? nfiles : 1) && rc == CMD_EXIT_OK; fi++) {
        const char *name = nfiles && strcmp(files[fi], "-") != 0 ? files[fi] : "stdin";
        FILE *in = nfiles && strcmp(files[fi], "-") != 0 ? fopen(files[fi], "r") : stdin;
        if (!in) {
            fprintf(stderr, "schema-registry decode: cannot open %s\n", files[fi]);
            rc = CMD_EXIT_FAIL;
            break;
        }
        lineno = 0;
        ssize_t n;
        while (rc == CMD_EXIT_OK && (n = getline(&line, &cap, in)) >= 0) {
            lineno++;
            rec.len = 0;
            row.len = 0;
            if (strspn(line, " \t\r\n") == (size_t)n)
                continue; /* blank lines are no records */
            records++;
            bytes += (size_t)n;
            if (progress && records % 4096 == 0 && decode_now() - shown >= 1.0) {
                /* A line rewritten in place, on a terminal only (never in a log). */
                shown = decode_now();
                fprintf(stderr, "\rschema-registry decode: %ld records, %.0f records/s ", records,
                        (double)records / (shown - t0));
            }
            srclient_newer_t newer = {0};
            int r;
            /* kcat -K: the key, the delimiter, the record. The record is hex or
             * base64, so the last delimiter is the one (a key may hold it). */
            const char *value = line;
            size_t vlen = (size_t)n, klen = 0, dlen = key_delimiter ? strlen(key_delimiter) : 0;
            int keyed = 0;
            for (size_t at = (size_t)n; key_delimiter && at >= dlen && !keyed; at--)
                if (memcmp(line + at - dlen, key_delimiter, dlen) == 0) {
                    keyed = 1;
                    klen = at - dlen;
                    value = line + at;
                    vlen = (size_t)n - at;
                }
            if (key_delimiter && !keyed) {
                r = SRCLIENT_BAD_RECORD;
                snprintf(err.message, sizeof(err.message), "no key delimiter");
            } else if (cmd_line_bytes(lines, value, vlen, &rec) != 0) {
                r = SRCLIENT_BAD_RECORD;
                snprintf(err.message, sizeof(err.message), "not a %s line", input);
            } else
                r = srclient_decode(dec, (const uint8_t *)(rec.data ? rec.data : ""), rec.len, &row, &newer,
                                    &err);
            if (keyed && (r == SRCLIENT_DECODED || (permissive && r == SRCLIENT_BAD_RECORD))) {
                fwrite(line, 1, klen, stdout);
                fputs(key_delimiter, stdout);
            }
            if (r == SRCLIENT_DECODED) {
                fwrite(row.data, 1, row.len, stdout);
                fputc('\n', stdout);
            } else if (r == SRCLIENT_NEWER_SCHEMA) {
                fflush(stdout);
                fprintf(stderr, "schema-registry decode: restart: %s line %ld: %s\n", name, lineno,
                        err.message);
                rc = CMD_EXIT_RESTART;
            } else if (permissive && r == SRCLIENT_BAD_RECORD) {
                bad++;
                fputs("null\n", stdout);
            } else {
                fflush(stdout);
                fprintf(stderr, "schema-registry decode: %s line %ld: %s\n", name, lineno, err.message);
                rc = CMD_EXIT_FAIL;
            }
        }
        if (in != stdin)
            fclose(in);
    }
    fflush(stdout);
    if (bad)
        fprintf(stderr, "schema-registry decode: %ld bad records of %ld (PERMISSIVE: a null row each)\n", bad,
                records);
    if (progress && shown > t0)
        fputs("\r\033[K", stderr); /* the progress line gives way to what follows */
    if (stats) {
        double dt = decode_now() - t0;
        if (dt <= 0)
            dt = 1e-9;
        fprintf(stderr,
                "schema-registry decode: %ld records, %zu bytes in %.3f s: %.0f records/s, %.2f MB/s\n",
                records, bytes, dt, (double)records / dt, (double)bytes / dt / 1e6);
    }
    free(line);
    strbuf_free(&rec);
    strbuf_free(&row);
    srclient_decoder_free(dec);
    srclient_free(client);
    free(files);
    return rc;
}
