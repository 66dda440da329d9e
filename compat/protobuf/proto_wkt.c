/*
 * proto_wkt: the built-in files every Protobuf schema may import without a
 * reference -- the set Confluent lists as ProtobufSchema.KNOWN_DEPENDENCIES --
 * parsed once, on first use, and shared read-only by every schema:
 *
 *   google/protobuf/ files   embedded at build time from the system's include
 *                            directory (compat/protobuf/protobuf.cmake);
 *   google/type/ files       embedded at build time from the sources in
 *                            libgoogle-common-protos-java's jar, but for the five
 *                            that jar (1.16) predates: below;
 *   confluent/ files         below.
 *
 * The five google/type files below (datetime, decimal, interval, month,
 * phone_number) are written from the published interface, googleapis/googleapis
 * google/type/ (Copyright Google LLC, Apache License 2.0): their package,
 * imports, file options and every type, field and value; the comments are left out.
 *
 * The three Confluent files are copied verbatim from confluentinc/schema-registry,
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

static const char confluent_variant[] =
    "syntax = \"proto3\";\n"
    "\n"
    "package confluent.type;\n"
    "\n"
    "option java_package = \"io.confluent.protobuf.type\";\n"
    "option java_multiple_files = true;\n"
    "option java_outer_classname = \"VariantProto\";\n"
    "\n"
    "message Variant {\n"
    "\n"
    "  // A dictionary of field names used by all objects in the variant value.\n"
    "  // Encoded as: version header, dictionary size, offset list, and UTF-8 string data.\n"
    "  bytes metadata = 1;\n"
    "\n"
    "  // The variant value, which can be a primitive, object, or array.\n"
    "  // Encoded as: a one-byte header (basic type + type info) followed by the content bytes.\n"
    "  bytes value = 2;\n"
    "}\n";

static const char google_type_datetime[] =
    "syntax = \"proto3\";\n"
    "\n"
    "package google.type;\n"
    "\n"
    "import \"google/protobuf/duration.proto\";\n"
    "\n"
    "option cc_enable_arenas = true;\n"
    "option go_package = \"google.golang.org/genproto/googleapis/type/datetime;datetime\";\n"
    "option java_multiple_files = true;\n"
    "option java_outer_classname = \"DateTimeProto\";\n"
    "option java_package = \"com.google.type\";\n"
    "option objc_class_prefix = \"GTP\";\n"
    "\n"
    "message DateTime {\n"
    "  int32 year = 1;\n"
    "  int32 month = 2;\n"
    "  int32 day = 3;\n"
    "  int32 hours = 4;\n"
    "  int32 minutes = 5;\n"
    "  int32 seconds = 6;\n"
    "  int32 nanos = 7;\n"
    "  oneof time_offset {\n"
    "    google.protobuf.Duration utc_offset = 8;\n"
    "    TimeZone time_zone = 9;\n"
    "  }\n"
    "}\n"
    "\n"
    "message TimeZone {\n"
    "  string id = 1;\n"
    "  string version = 2;\n"
    "}\n";

static const char google_type_decimal[] =
    "syntax = \"proto3\";\n"
    "\n"
    "package google.type;\n"
    "\n"
    "option cc_enable_arenas = true;\n"
    "option go_package = \"google.golang.org/genproto/googleapis/type/decimal;decimal\";\n"
    "option java_multiple_files = true;\n"
    "option java_outer_classname = \"DecimalProto\";\n"
    "option java_package = \"com.google.type\";\n"
    "option objc_class_prefix = \"GTP\";\n"
    "\n"
    "message Decimal {\n"
    "  string value = 1;\n"
    "}\n";

static const char google_type_interval[] =
    "syntax = \"proto3\";\n"
    "\n"
    "package google.type;\n"
    "\n"
    "import \"google/protobuf/timestamp.proto\";\n"
    "\n"
    "option cc_enable_arenas = true;\n"
    "option go_package = \"google.golang.org/genproto/googleapis/type/interval;interval\";\n"
    "option java_multiple_files = true;\n"
    "option java_outer_classname = \"IntervalProto\";\n"
    "option java_package = \"com.google.type\";\n"
    "option objc_class_prefix = \"GTP\";\n"
    "\n"
    "message Interval {\n"
    "  google.protobuf.Timestamp start_time = 1;\n"
    "  google.protobuf.Timestamp end_time = 2;\n"
    "}\n";

static const char google_type_month[] =
    "syntax = \"proto3\";\n"
    "\n"
    "package google.type;\n"
    "\n"
    "option go_package = \"google.golang.org/genproto/googleapis/type/month;month\";\n"
    "option java_multiple_files = true;\n"
    "option java_outer_classname = \"MonthProto\";\n"
    "option java_package = \"com.google.type\";\n"
    "option objc_class_prefix = \"GTP\";\n"
    "\n"
    "enum Month {\n"
    "  MONTH_UNSPECIFIED = 0;\n"
    "  JANUARY = 1;\n"
    "  FEBRUARY = 2;\n"
    "  MARCH = 3;\n"
    "  APRIL = 4;\n"
    "  MAY = 5;\n"
    "  JUNE = 6;\n"
    "  JULY = 7;\n"
    "  AUGUST = 8;\n"
    "  SEPTEMBER = 9;\n"
    "  OCTOBER = 10;\n"
    "  NOVEMBER = 11;\n"
    "  DECEMBER = 12;\n"
    "}\n";

static const char google_type_phone_number[] =
    "syntax = \"proto3\";\n"
    "\n"
    "package google.type;\n"
    "\n"
    "option cc_enable_arenas = true;\n"
    "option go_package = \"google.golang.org/genproto/googleapis/type/phone_number;phone_number\";\n"
    "option java_multiple_files = true;\n"
    "option java_outer_classname = \"PhoneNumberProto\";\n"
    "option java_package = \"com.google.type\";\n"
    "option objc_class_prefix = \"GTP\";\n"
    "\n"
    "message PhoneNumber {\n"
    "  message ShortCode {\n"
    "    string region_code = 1;\n"
    "    string number = 2;\n"
    "  }\n"
    "  oneof kind {\n"
    "    string e164_number = 1;\n"
    "    ShortCode short_code = 2;\n"
    "  }\n"
    "  string extension = 3;\n"
    "}\n";

static const proto_builtin_source_t written_sources[] = {
    {"google/type/datetime.proto", google_type_datetime},
    {"google/type/decimal.proto", google_type_decimal},
    {"google/type/interval.proto", google_type_interval},
    {"google/type/month.proto", google_type_month},
    {"google/type/phone_number.proto", google_type_phone_number},
    {"confluent/meta.proto", confluent_meta},
    {"confluent/type/decimal.proto", confluent_decimal},
    {"confluent/type/variant.proto", confluent_variant},
};

#define WRITTEN_COUNT (sizeof written_sources / sizeof *written_sources)

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
    size_t total = proto_builtin_google_count + WRITTEN_COUNT;
    builtin_paths = calloc(total + 1, sizeof *builtin_paths);
    builtin_texts = calloc(total + 1, sizeof *builtin_texts);
    builtin_files = calloc(total + 1, sizeof *builtin_files);
    if (!builtin_paths || !builtin_texts || !builtin_files)
        return;
    for (size_t i = 0; i < proto_builtin_google_count; i++)
        add_source(&proto_builtin_google[i]);
    for (size_t i = 0; i < WRITTEN_COUNT; i++)
        add_source(&written_sources[i]);
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
