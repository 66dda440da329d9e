/*
 * proto_wkt: the built-in files every Protobuf schema may import without a
 * reference -- the Google well-known types (embedded at build time from the
 * system's include directory, see compat/protobuf/protobuf.cmake) and Confluent's
 * confluent/meta.proto and confluent/type/decimal.proto (below) -- parsed
 * once, on first use, and shared read-only by every schema.
 *
 * The two Confluent files are copied verbatim from confluentinc/schema-registry,
 * protobuf-types/src/main/proto/confluent/ (commit 794611bd86d1).
 * Copyright Confluent, Inc. Licensed under the Apache License, Version 2.0
 * (http://www.apache.org/licenses/LICENSE-2.0); distributed on an "AS IS"
 * BASIS, WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND.
 */
#include "compat/protobuf/internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static const char confluent_meta[] = "syntax = \"proto3\";\n"
                                     "package confluent;\n"
                                     "\n"
                                     "import \"google/protobuf/descriptor.proto\";\n"
                                     "\n"
                                     "option java_package = \"io.confluent.protobuf\";\n"
                                     "option java_outer_classname = \"MetaProto\";\n"
                                     "\n"
                                     "message Meta {\n"
                                     "  string doc = 1;\n"
                                     "  map<string, string> params = 2;\n"
                                     "  repeated string tags = 3;\n"
                                     "  repeated Rule rules = 4;\n"
                                     "}\n"
                                     "message Rule {\n"
                                     "  string name = 1;\n"
                                     "  string doc = 2;\n"
                                     "  string expr = 3;\n"
                                     "  string sql = 4;\n"
                                     "}\n"
                                     "\n"
                                     "extend google.protobuf.FileOptions {\n"
                                     "  Meta file_meta = 1088;\n"
                                     "}\n"
                                     "extend google.protobuf.MessageOptions {\n"
                                     "  Meta message_meta = 1088;\n"
                                     "}\n"
                                     "extend google.protobuf.FieldOptions {\n"
                                     "  Meta field_meta = 1088;\n"
                                     "}\n"
                                     "extend google.protobuf.EnumOptions {\n"
                                     "  Meta enum_meta = 1088;\n"
                                     "}\n"
                                     "extend google.protobuf.EnumValueOptions {\n"
                                     "  Meta enum_value_meta = 1088;\n"
                                     "}\n";

static const char confluent_decimal[] =
    "syntax = \"proto3\";\n"
    "\n"
    "package confluent.type;\n"
    "\n"
    "option java_package = \"io.confluent.protobuf.type\";\n"
    "option java_multiple_files = true;\n"
    "option java_outer_classname = \"DecimalProto\";\n"
    "\n"
    "message Decimal {\n"
    "\n"
    "  // The two's-complement representation of the unscaled integer value in big-endian byte order\n"
    "  bytes value = 1;\n"
    "\n"
    "  // The precision (zero indicates unlimited precision)\n"
    "  uint32 precision = 2;\n"
    "\n"
    "  // The scale\n"
    "  int32 scale = 3;\n"
    "}";

static const proto_builtin_source_t confluent_sources[] = {
    {"confluent/meta.proto", confluent_meta},
    {"confluent/type/decimal.proto", confluent_decimal},
};

#define CONFLUENT_COUNT (sizeof confluent_sources / sizeof *confluent_sources)

/* Filled once by load_all(); never freed (reachable until exit). */
static const char **builtin_paths;
static const char **builtin_texts;
static const proto_file_t **builtin_files;
static size_t builtin_count;
static pthread_once_t builtin_once = PTHREAD_ONCE_INIT;

static void add_source(const proto_builtin_source_t *src)
{
    char *error = NULL;
    proto_file_t *file = proto_parse(src->text, strlen(src->text), &error);
    /* The sources are fixed at build time; a failure here is a build defect,
     * and the file is then simply not built in. */
    free(error);
    if (!file)
        return;
    builtin_paths[builtin_count] = src->path;
    builtin_texts[builtin_count] = src->text;
    builtin_files[builtin_count] = file;
    builtin_count++;
}

static void load_all(void)
{
    size_t total = proto_builtin_google_count + CONFLUENT_COUNT;
    builtin_paths = calloc(total + 1, sizeof *builtin_paths);
    builtin_texts = calloc(total + 1, sizeof *builtin_texts);
    builtin_files = calloc(total + 1, sizeof *builtin_files);
    if (!builtin_paths || !builtin_texts || !builtin_files)
        return;
    for (size_t i = 0; i < proto_builtin_google_count; i++)
        add_source(&proto_builtin_google[i]);
    for (size_t i = 0; i < CONFLUENT_COUNT; i++)
        add_source(&confluent_sources[i]);
}

static long find(const char *path)
{
    pthread_once(&builtin_once, load_all);
    for (size_t i = 0; i < builtin_count; i++)
        if (strcmp(builtin_paths[i], path) == 0)
            return (long)i;
    return -1;
}

const proto_file_t *proto_builtin_file(const char *path)
{
    long i = find(path);
    return i < 0 ? NULL : builtin_files[i];
}

const char *proto_builtin_text(const char *path)
{
    long i = find(path);
    return i < 0 ? NULL : builtin_texts[i];
}

const char *const *proto_builtin_paths(void)
{
    static const char *const empty[] = {NULL};
    pthread_once(&builtin_once, load_all);
    return builtin_paths ? builtin_paths : empty;
}
