/*
 * diff: `schema-registry diff OLD NEW` (cmd/diff.h). The report is the one
 * POST /changes answers (docs/api.md, "Changes"), computed here by the same
 * engines, plus the level's verdict with Confluent's messages.
 *
 * Contents
 *   1. Reading the files
 *   2. The report
 *   3. The command
 */
#include "cmd/diff.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/strbuf.h"
#include "base/strlist.h"
#include "cmd/cmd.h"
#include "compat/change.h"
#include "compat/level.h"
#include "compat/schema.h"

static const char diff_usage[] =
    "Usage: schema-registry diff [flags] OLD NEW\n"
    "Compares two schema files: what changed from OLD to NEW, column by column, and\n"
    "whether NEW may follow OLD under a compatibility level.\n"
    "  --type T      AVRO, PROTOBUF or JSON (default: from the extension of NEW:\n"
    "                .avsc AVRO, .proto PROTOBUF, .json JSON)\n"
    "  --level L     NONE, BACKWARD (default), FORWARD, FULL or a _TRANSITIVE one\n"
    "  --json        the report as one JSON object instead of text\n"
    "Exit status: 0 compatible under the level, 1 not, 2 bad usage or a file that\n"
    "cannot be read or parsed.\n";

/* ---- 1. Reading the files ---------------------------------------------------- */

/* The schema limit of the registry's default (schema.max.bytes) is far above a
 * file kept in git; this bound only keeps a wrong argument from filling memory. */
#define DIFF_FILE_MAX (64u << 20)

static int diff_read(const char *path, strbuf_t *out)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "schema-registry diff: cannot open %s\n", path);
        return -1;
    }
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0 && out->len + n <= DIFF_FILE_MAX)
        strbuf_put(out, buf, n);
    int bad = ferror(f) || n > 0 || out->failed;
    fclose(f);
    if (bad)
        fprintf(stderr, "schema-registry diff: cannot read %s%s\n", path, n > 0 ? " (too large)" : "");
    return bad ? -1 : 0;
}

static int diff_type_of(const char *path, schema_type_t *out)
{
    static const struct {
        const char *ext;
        schema_type_t type;
    } exts[] = {{".avsc", SCHEMA_AVRO}, {".proto", SCHEMA_PROTOBUF}, {".json", SCHEMA_JSON}};
    size_t len = strlen(path);
    for (size_t i = 0; i < sizeof exts / sizeof *exts; i++) {
        size_t e = strlen(exts[i].ext);
        if (len > e && strcmp(path + len - e, exts[i].ext) == 0) {
            *out = exts[i].type;
            return 0;
        }
    }
    return -1;
}

/* As a lookup parses (the stored rules); no references: a file stands alone
 * (Protobuf's well-known types are built in). */
static schema_t *diff_parse(schema_type_t type, const char *path)
{
    strbuf_t text = {0};
    schema_t *s = NULL;
    if (diff_read(path, &text) == 0) {
        char *error = NULL;
        s = schema_parse(type, text.len ? text.data : "", text.len, NULL, 0, 0, &error);
        if (!s)
            fprintf(stderr, "schema-registry diff: %s is not a valid %s schema: %s\n", path,
                    schema_type_name(type), error ? error : "unparseable");
        free(error);
    }
    strbuf_free(&text);
    return s;
}

/* ---- 2. The report ------------------------------------------------------------- */

static json_t *diff_json(schema_type_t type, const change_list_t *l, const char *summary,
                         compat_level_t level, int compatible, const strlist_t *messages)
{
    json_t *changes = json_array();
    for (size_t i = 0; i < l->n; i++) {
        const change_t *ch = &l->items[i];
        json_array_append_new(changes, json_pack("{s:s, s:s, s:s?, s:s?, s:s?, s:b, s:b}", "kind",
                                                 change_kind_name(ch->kind), "path", ch->path, "oldType",
                                                 ch->old_type, "newType", ch->new_type, "detail", ch->detail,
                                                 "forward", ch->forward, "backward", ch->backward));
    }
    json_t *msgs = json_array();
    for (size_t i = 0; i < messages->n; i++)
        json_array_append_new(msgs, json_string(messages->items[i]));
    json_t *o =
        json_pack("{s:s, s:s, s:b, s:b, s:o, s:s, s:b, s:o}", "schemaType", schema_type_name(type), "summary",
                  summary, "backward", change_list_backward(l), "forward", change_list_forward(l), "changes",
                  changes, "level", compat_level_name(level), "compatible", compatible, "messages", msgs);
    if (!o)
        base_oom(0);
    return o;
}

static const char *diff_yes(int b)
{
    return b ? "yes" : "no";
}

static void diff_text(FILE *out, const char *old_path, const char *new_path, const change_list_t *l,
                      const char *summary, compat_level_t level, int compatible, const strlist_t *messages)
{
    fprintf(out, "%s -> %s: %s\n", old_path, new_path, summary);
    for (size_t i = 0; i < l->n; i++) {
        const change_t *ch = &l->items[i];
        fprintf(out, "  %-24s %s", change_kind_name(ch->kind), *ch->path ? ch->path : "(schema)");
        if (ch->old_type || ch->new_type)
            fprintf(out, "  %s -> %s", ch->old_type ? ch->old_type : "-", ch->new_type ? ch->new_type : "-");
        if (ch->detail)
            fprintf(out, "  (%s)", ch->detail);
        fprintf(out, "  old readers: %s, new readers: %s\n", diff_yes(ch->forward), diff_yes(ch->backward));
    }
    fprintf(out, "%s: %s\n", compat_level_name(level), compatible ? "compatible" : "incompatible");
    for (size_t i = 0; i < messages->n; i++)
        fprintf(out, "  %s\n", messages->items[i]);
}

/* ---- 3. The command ------------------------------------------------------------ */

int cmd_diff(int argc, char **argv)
{
    const char *type_name = NULL, *level_name = "BACKWARD", *paths[2] = {NULL, NULL};
    int as_json = 0, npaths = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(diff_usage, stdout);
            return CMD_EXIT_OK;
        } else if (strcmp(a, "--json") == 0) {
            as_json = 1;
        } else if (strcmp(a, "--type") == 0 || strcmp(a, "--level") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "schema-registry diff: %s needs a value\n%s", a, diff_usage);
                return CMD_EXIT_USAGE;
            }
            *(strcmp(a, "--type") == 0 ? &type_name : &level_name) = argv[++i];
        } else if (a[0] == '-' && a[1] != '\0') {
            fprintf(stderr, "schema-registry diff: unknown flag %s\n%s", a, diff_usage);
            return CMD_EXIT_USAGE;
        } else if (npaths < 2) {
            paths[npaths++] = a;
        } else {
            fprintf(stderr, "schema-registry diff: two files, OLD and NEW\n%s", diff_usage);
            return CMD_EXIT_USAGE;
        }
    }
    if (npaths != 2) {
        fprintf(stderr, "schema-registry diff: two files, OLD and NEW\n%s", diff_usage);
        return CMD_EXIT_USAGE;
    }
    schema_type_t type;
    compat_level_t level;
    if (type_name ? schema_type_parse(type_name, &type) != 0 : diff_type_of(paths[1], &type) != 0) {
        fprintf(stderr, "schema-registry diff: %s: name the type with --type AVRO|PROTOBUF|JSON\n",
                type_name ? type_name : "no .avsc, .proto or .json extension");
        return CMD_EXIT_USAGE;
    }
    if (compat_level_parse(level_name, &level) != 0) {
        fprintf(stderr, "schema-registry diff: unknown level %s\n", level_name);
        return CMD_EXIT_USAGE;
    }
    schema_t *old_schema = diff_parse(type, paths[0]);
    schema_t *new_schema = old_schema ? diff_parse(type, paths[1]) : NULL;
    if (!new_schema) {
        schema_free(old_schema);
        return CMD_EXIT_USAGE;
    }
    change_list_t list = {0};
    strlist_t messages = {0};
    char *summary = NULL;
    compat_previous_t history = {old_schema, 1};
    int compatible = compat_check(level, new_schema, &history, 1, 0, &messages);
    if (schema_changes(old_schema, new_schema, &list) != 0 || !(summary = change_summary(&list)) ||
        compatible < 0)
        base_oom(0);
    if (as_json) {
        json_t *o = diff_json(type, &list, summary, level, compatible, &messages);
        char *text = json_dumps(o, JSON_COMPACT);
        json_decref(o);
        if (!text)
            base_oom(0);
        puts(text);
        free(text);
    } else {
        diff_text(stdout, paths[0], paths[1], &list, summary, level, compatible, &messages);
    }
    free(summary);
    change_list_clear(&list);
    strlist_clear(&messages);
    schema_free(old_schema);
    schema_free(new_schema);
    return compatible ? CMD_EXIT_OK : CMD_EXIT_FAIL;
}
