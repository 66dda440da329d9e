/*
 * encode: `schema-registry encode`, JSON rows in, framed records out
 * (docs/decoding.md): what decode reads, so tests and users can produce
 * data. The schema's id comes as a serializer gets it (Confluent's
 * AbstractKafkaAvroSerializer.serializeImpl): registered with
 * --auto-register (auto.register.schemas), looked up by its text without
 * it, or a version of the subject (use.latest.version) when no schema file
 * is given.
 */
#include "cmd/cmd.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/alloc.h"

static const char encode_usage[] =
    "Usage: schema-registry encode --registry URL --subject S [flags] [FILE...]\n"
    "Reads JSON rows, one per line, from the FILEs or stdin; writes each as a framed\n"
    "record (magic byte 0, 4-byte schema id, then Avro binary, the Protobuf message indexes\n"
    "and message, or a JSON schema's JSON text), one per line.\n"
    "%s"
    "  --subject S             the subject whose schema writes the records (required)\n"
    "  --version V             latest (default) or a version number, without --schema\n"
    "  --schema FILE           write with the schema in FILE: its id is looked up under the subject\n"
    "  --auto-register         register --schema FILE under the subject first (a new version\n"
    "                          when it is new) and write with the id it gets\n"
    "  --schema-type T         AVRO, PROTOBUF or JSON: the type of --schema FILE; default by its\n"
    "                          name: .proto PROTOBUF, .json JSON, anything else AVRO\n"
    "  --message NAME          Protobuf: the message the rows are (default: the file's first)\n"
    "                          (a row's \"@unknown\" key, from decode --unknown-fields keep, is\n"
    "                          written back after the known fields)\n"
    "  --validate              JSON Schema: a row the schema rejects is a bad row\n"
    "  --mode M                FAILFAST (default: exit 1 at the first bad row) or PERMISSIVE\n"
    "                          (a bad row is not written; a count at the end)\n"
    "  --output F              hex (default) or base64\n"
    "Exit status: 0 done, 1 a row that does not fit the schema (FAILFAST) or the registry\n"
    "failed, 2 bad usage.\n";

/* A JSON Schema record is the row itself, compact; with a validator, valid
 * against the schema. */
static int encode_json(const srclient_json_validator_t *validator, const char *line, size_t len,
                       strbuf_t *out, char **error)
{
    json_error_t je;
    json_t *v = json_loadb(line, len, JSON_DECODE_ANY, &je);
    if (!v) {
        *error = xasprintf("not JSON: %s", je.text);
        return -1;
    }
    char *why = NULL;
    if (validator && srclient_json_validate(validator, v, &why) != 0) {
        *error = xasprintf("not valid: %s", why);
        free(why);
        json_decref(v);
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

static int encode_type_of(const char *flag, const char *file, srclient_type_t *out)
{
    if (flag) {
        if (strcasecmp(flag, "AVRO") == 0)
            *out = SRCLIENT_AVRO;
        else if (strcasecmp(flag, "PROTOBUF") == 0)
            *out = SRCLIENT_PROTOBUF;
        else if (strcasecmp(flag, "JSON") == 0)
            *out = SRCLIENT_JSON;
        else
            return -1;
        return 0;
    }
    size_t n = file ? strlen(file) : 0;
    *out = n > 6 && strcmp(file + n - 6, ".proto") == 0  ? SRCLIENT_PROTOBUF
           : n > 5 && strcmp(file + n - 5, ".json") == 0 ? SRCLIENT_JSON
                                                         : SRCLIENT_AVRO;
    return 0;
}

/* The schema and its id: from --schema FILE (registered or looked up), or
 * the subject's version. 0, or -1 with err. */
static int encode_schema(srclient_t *client, const char *subject, int version, const char *file,
                         srclient_type_t type, int auto_register, srclient_schema_t **schema, int *id,
                         srclient_error_t *err)
{
    if (!file) {
        srclient_version_t sv;
        if (srclient_subject_version(client, subject, version, &sv, err) != 0)
            return -1;
        *schema = srclient_schema_retain(sv.schema);
        *id = sv.id;
        srclient_version_clear(&sv);
        return 0;
    }
    FILE *f = fopen(file, "rb");
    if (!f) {
        snprintf(err->message, sizeof(err->message), "cannot read %s", file);
        return -1;
    }
    strbuf_t text = {0};
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
        strbuf_put(&text, buf, n);
    fclose(f);
    if (text.failed)
        base_oom(0);
    const char *t = text.data ? text.data : "";
    int rc = auto_register ? srclient_register(client, subject, type, t, id, err)
                           : srclient_lookup(client, subject, type, t, id, err);
    strbuf_free(&text);
    if (rc != 0 && !auto_register && (err->code == 40403 || err->code == 40401)) {
        char *msg =
            xasprintf("%s: the schema in %s is not a version of subject %s (--auto-register registers it)",
                      err->message, file, subject);
        snprintf(err->message, sizeof(err->message), "%s", msg);
        free(msg);
    }
    if (rc != 0)
        return -1;
    return srclient_schema_by_id(client, *id, schema, err);
}

int cmd_encode(int argc, char **argv)
{
    srclient_options_t copts = {.url = getenv("SCHEMA_REGISTRY_URL"),
                                .basic_auth = getenv("SCHEMA_REGISTRY_BASIC_AUTH")};
    const char *subject = NULL, *version = NULL, *output = "hex", *schema_file = NULL, *schema_type = NULL,
               *message = NULL, *mode = "FAILFAST";
    int nfiles = 0, auto_register = 0, validate = 0;
    const cmd_flag_t flags[] = {{"--subject", &subject, NULL},
                                {"--version", &version, NULL},
                                {"--output", &output, NULL},
                                {"--schema", &schema_file, NULL},
                                {"--schema-type", &schema_type, NULL},
                                {"--auto-register", NULL, &auto_register},
                                {"--message", &message, NULL},
                                {"--validate", NULL, &validate},
                                {"--mode", &mode, NULL},
                                {NULL, NULL, NULL}};
    char **files = xcalloc((size_t)argc + 1, sizeof(char *));
    int exit_now = cmd_read_args("encode", argc, argv, &copts, flags, encode_usage, files, &nfiles);
    if (exit_now >= 0) {
        free(files);
        return exit_now;
    }
    cmd_lines_t lines;
    char *end;
    const char *vtext = version ? version : "latest";
    long v = strcmp(vtext, "latest") == 0 ? 0 : strtol(vtext, &end, 10);
    srclient_type_t type = SRCLIENT_AVRO;
    int permissive = strcasecmp(mode, "PERMISSIVE") == 0;
    const char *usage_error =
        !copts.url                        ? "--registry URL is required"
        : !subject                        ? "--subject is required"
        : cmd_lines_parse(output, &lines) ? "--output is hex or base64"
        : (v < 0 || v >= 1L << 31 || (v == 0 && strcmp(vtext, "latest") != 0) || (v > 0 && *end))
            ? "--version is latest or a version number"
        : version && schema_file                           ? "--version and --schema exclude each other"
        : auto_register && !schema_file                    ? "--auto-register needs --schema FILE"
        : schema_type && !schema_file                      ? "--schema-type needs --schema FILE"
        : encode_type_of(schema_type, schema_file, &type)  ? "--schema-type is AVRO, PROTOBUF or JSON"
        : !permissive && strcasecmp(mode, "FAILFAST") != 0 ? "--mode is FAILFAST or PERMISSIVE"
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
    srclient_proto_reader_t *proto = NULL;
    srclient_json_validator_t *validator = NULL;
    int id = 0, rc = CMD_EXIT_OK;
    if (encode_schema(client, subject, (int)v, schema_file, type, auto_register, &schema, &id, &err) != 0)
        rc = CMD_EXIT_FAIL;
    srclient_type_t wtype = schema ? srclient_schema_type(schema) : type;
    if (rc == CMD_EXIT_OK && message && wtype != SRCLIENT_PROTOBUF) {
        fprintf(stderr, "schema-registry encode: --message is for Protobuf schemas; schema %d is not one\n",
                id);
        rc = CMD_EXIT_USAGE;
    } else if (rc == CMD_EXIT_OK && wtype == SRCLIENT_PROTOBUF) {
        char *perr = NULL;
        proto = srclient_proto_reader_new(srclient_schema_proto(schema), NULL, &perr);
        if (!proto) {
            snprintf(err.message, sizeof(err.message), "schema %d: %s", id, perr);
            free(perr);
            rc = CMD_EXIT_FAIL;
        }
    } else if (rc == CMD_EXIT_OK && wtype == SRCLIENT_JSON && validate &&
               !(validator = srclient_schema_validator(client, schema, NULL, &err)))
        rc = CMD_EXIT_FAIL;
    if (rc == CMD_EXIT_FAIL)
        fprintf(stderr, "schema-registry encode: %s\n", err.message);
    long bad_rows = 0, rows = 0;
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
            rows++;
            srclient_frame_header(&rec, id);
            int bad = wtype == SRCLIENT_JSON ? encode_json(validator, line, (size_t)n, &rec, &error)
                      : proto
                          ? srclient_proto_encode(proto, message, line, (size_t)n, &rec, &error)
                          : srclient_avro_encode(srclient_schema_avro(schema), line, (size_t)n, &rec, &error);
            if (bad != 0) {
                fflush(stdout);
                fprintf(stderr, "schema-registry encode: %s line %ld: %s\n", name, lineno, error);
                free(error);
                bad_rows++;
                if (!permissive) {
                    rc = CMD_EXIT_FAIL;
                    break;
                }
                continue;
            }
            cmd_bytes_line(lines, (const unsigned char *)rec.data, rec.len, stdout);
            fputc('\n', stdout);
        }
        if (in != stdin)
            fclose(in);
    }
    fflush(stdout);
    if (permissive && bad_rows)
        fprintf(stderr, "schema-registry encode: %ld bad rows of %ld (PERMISSIVE: not written)\n", bad_rows,
                rows);
    free(line);
    strbuf_free(&rec);
    srclient_proto_reader_free(proto);
    srclient_json_validator_free(validator);
    srclient_schema_release(schema);
    srclient_free(client);
    free(files);
    return rc;
}
