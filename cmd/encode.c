/*
 * encode: `schema-registry encode`, JSON rows in, framed Avro records out
 * (docs/decoding.md): what decode reads, so tests and users can produce data.
 */
#include "cmd/cmd.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"

static const char encode_usage[] =
    "Usage: schema-registry encode --registry URL --subject S [flags] [FILE...]\n"
    "Reads JSON rows, one per line, from the FILEs or stdin; writes each as a framed\n"
    "record (magic byte 0, 4-byte schema id, then Avro binary, or a JSON schema's\n"
    "JSON text), one per line.\n"
    "%s"
    "  --subject S             the subject whose schema writes the records (required)\n"
    "  --version V             latest (default) or a version number\n"
    "  --schema FILE           register FILE's Avro schema under the subject first and write with it\n"
    "  --output F              hex (default) or base64\n"
    "Exit status: 0 done, 1 a row that does not fit the schema or the registry failed, 2 bad usage.\n";

/* A JSON Schema record is the row itself, compact (not validated against the schema). */
static int encode_json(const char *line, size_t len, strbuf_t *out, char **error)
{
    json_error_t je;
    json_t *v = json_loadb(line, len, JSON_DECODE_ANY, &je);
    if (!v) {
        *error = xasprintf("not JSON: %s", je.text);
        return -1;
    }
    char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    json_decref(v);
    if (!text)
        base_oom(0);
    strbuf_puts(out, text);
    free(text);
    return 0;
}

int cmd_encode(int argc, char **argv)
{
    srclient_options_t copts = {.url = getenv("SCHEMA_REGISTRY_URL"),
                                .basic_auth = getenv("SCHEMA_REGISTRY_BASIC_AUTH")};
    const char *subject = NULL, *version = "latest", *output = "hex", *schema_file = NULL;
    int nfiles = 0;
    const cmd_flag_t flags[] = {{"--subject", &subject, NULL},
                                {"--version", &version, NULL},
                                {"--output", &output, NULL},
                                {"--schema", &schema_file, NULL},
                                {NULL, NULL, NULL}};
    char **files = xcalloc((size_t)argc + 1, sizeof(char *));
    int exit_now = cmd_read_args("encode", argc, argv, &copts, flags, encode_usage, files, &nfiles);
    if (exit_now >= 0) {
        free(files);
        return exit_now;
    }
    cmd_lines_t lines;
    char *end;
    long v = strcmp(version, "latest") == 0 ? 0 : strtol(version, &end, 10);
    const char *usage_error =
        !copts.url                        ? "--registry URL is required"
        : !subject                        ? "--subject is required"
        : cmd_lines_parse(output, &lines) ? "--output is hex or base64"
        : (v < 0 || v >= 1L << 31 || (v == 0 && strcmp(version, "latest") != 0) || (v > 0 && *end))
            ? "--version is latest or a version number"
            : NULL;
    if (usage_error) {
        fprintf(stderr, "schema-registry encode: %s (see --help)\n", usage_error);
        free(files);
        return CMD_EXIT_USAGE;
    }
    char *error = NULL;
    srclient_t *client = srclient_new(&copts, &error);
    if (!client) {
        fprintf(stderr, "schema-registry encode: %s\n", error);
        free(error);
        free(files);
        return CMD_EXIT_USAGE;
    }
    srclient_error_t err = {0};
    srclient_schema_t *schema = NULL;
    int id = 0, rc = CMD_EXIT_OK;
    if (schema_file) {
        FILE *f = fopen(schema_file, "rb");
        strbuf_t text = {0};
        char buf[4096];
        size_t n;
        while (f && (n = fread(buf, 1, sizeof(buf), f)) > 0)
            strbuf_put(&text, buf, n);
        if (f)
            fclose(f);
        if (!f)
            snprintf(err.message, sizeof(err.message), "cannot read %s", schema_file);
        if (!f ||
            srclient_register(client, subject, SRCLIENT_AVRO, text.data ? text.data : "", &id, &err) != 0 ||
            srclient_schema_by_id(client, id, &schema, &err) != 0)
            rc = CMD_EXIT_FAIL;
        strbuf_free(&text);
    } else {
        srclient_version_t sv;
        if (srclient_subject_version(client, subject, (int)v, &sv, &err) != 0)
            rc = CMD_EXIT_FAIL;
        else {
            schema = srclient_schema_retain(sv.schema);
            id = sv.id;
            srclient_version_clear(&sv);
        }
    }
    if (rc == CMD_EXIT_OK && srclient_schema_type(schema) == SRCLIENT_PROTOBUF) {
        snprintf(err.message, sizeof(err.message),
                 "schema %d is Protobuf: encode writes Avro and JSON records", id);
        rc = CMD_EXIT_FAIL;
    }
    if (rc != CMD_EXIT_OK)
        fprintf(stderr, "schema-registry encode: %s\n", err.message);
    strbuf_t rec = {0};
    char *line = NULL;
    size_t cap = 0;
    for (int fi = 0; rc == CMD_EXIT_OK && fi < (nfiles ? nfiles : 1); fi++) {
        const char *name = nfiles && strcmp(files[fi], "-") != 0 ? files[fi] : "stdin";
        FILE *in = nfiles && strcmp(files[fi], "-") != 0 ? fopen(files[fi], "r") : stdin;
        if (!in) {
            fprintf(stderr, "schema-registry encode: cannot open %s\n", files[fi]);
            rc = CMD_EXIT_FAIL;
            break;
        }
        long lineno = 0;
        ssize_t n;
        while (rc == CMD_EXIT_OK && (n = getline(&line, &cap, in)) >= 0) {
            lineno++;
            if (strspn(line, " \t\r\n") == (size_t)n)
                continue;
            rec.len = 0;
            srclient_frame_header(&rec, id);
            int bad = srclient_schema_type(schema) == SRCLIENT_JSON
                          ? encode_json(line, (size_t)n, &rec, &error)
                          : srclient_avro_encode(srclient_schema_avro(schema), line, (size_t)n, &rec, &error);
            if (bad != 0) {
                fflush(stdout);
                fprintf(stderr, "schema-registry encode: %s line %ld: %s\n", name, lineno, error);
                free(error);
                rc = CMD_EXIT_FAIL;
                break;
            }
            cmd_bytes_line(lines, (const unsigned char *)rec.data, rec.len, stdout);
            fputc('\n', stdout);
        }
        if (in != stdin)
            fclose(in);
    }
    fflush(stdout);
    free(line);
    strbuf_free(&rec);
    srclient_schema_release(schema);
    srclient_free(client);
    free(files);
    return rc;
}
