/*
 * Oracle: for a corpus of .proto files (tests/data/protobuf, every built-in
 * file, the conformance .proto files) the FileDescriptorProto our builder
 * makes must equal, field for field, what `protoc --descriptor_set_out`
 * writes (source info excluded). Both are read with the generated
 * descriptor code and re-serialized, so equal messages give equal bytes;
 * on a difference the two are printed with `protoc --decode` and diffed.
 * Skips visibly when protoc is not installed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_support.h"
#include "compat/protobuf/protobuf.h"
#include "google/protobuf/descriptor.pb-c.h"

static char tmpdir[256];

static int have_protoc(void)
{
    return system("protoc --version >/dev/null 2>&1") == 0;
}

static int write_file(const char *path, const void *data, size_t len)
{
    /* Create the parent directories first. */
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", path);
    for (char *p = dir + 1; *p; p++) {
        if (*p == '/') {
            *p = '\0';
            mkdir(dir, 0700);
            *p = '/';
        }
    }
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t n = fwrite(data, 1, len, f);
    fclose(f);
    return n == len ? 0 : -1;
}

static int dir_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The built-in files, written where protoc can import them. */
static int setup(void **state)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/proto_oracle_XXXXXX");
    if (!mkdtemp(tmpdir))
        return -1;
    for (const char *const *p = proto_builtin_paths(); *p; p++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/builtin/%s", tmpdir, *p);
        const char *text = proto_builtin_text(*p);
        if (write_file(path, text, strlen(text)) != 0)
            return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* References: every non-built-in import found under include_dir, flattened,
 * dependencies before dependents. */
typedef struct refs {
    schema_ref_t items[32];
    char *texts[32];
    size_t n;
} refs_t;

static void refs_free(refs_t *r)
{
    for (size_t i = 0; i < r->n; i++) {
        free(r->texts[i]);
        free((char *)r->items[i].name);
    }
}

static int collect_refs(const char *include_dir, const char *text, refs_t *out)
{
    char *error = NULL;
    proto_file_t *f = proto_parse(text, strlen(text), &error);
    free(error);
    if (!f)
        return -1;
    int rc = 0;
    for (size_t k = 0; k < f->n_imports + f->n_public_imports && rc == 0; k++) {
        const char *imp = k < f->n_imports ? f->imports[k] : f->public_imports[k - f->n_imports];
        int known = proto_builtin_text(imp) != NULL;
        for (size_t i = 0; i < out->n; i++)
            known |= strcmp(out->items[i].name, imp) == 0;
        if (known)
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", include_dir, imp);
        char *dep = test_read_file(path, NULL);
        if (!dep || out->n == 32 || collect_refs(include_dir, dep, out) != 0) {
            free(dep);
            rc = -1;
            break;
        }
        out->texts[out->n] = dep;
        out->items[out->n].name = strdup(imp);
        out->items[out->n].subject = out->items[out->n].name;
        out->items[out->n].version = 1;
        out->items[out->n].text = dep;
        out->n++;
    }
    proto_file_free(f);
    return rc;
}

/* Unpacks, drops source info and packs again: a canonical byte form. */
static uint8_t *canonical_bytes(const uint8_t *data, size_t len, size_t *out_len)
{
    Google__Protobuf__FileDescriptorProto *fp =
        google__protobuf__file_descriptor_proto__unpack(NULL, len, data);
    if (!fp)
        return NULL;
    Google__Protobuf__SourceCodeInfo *info = fp->source_code_info;
    fp->source_code_info = NULL;
    size_t n = google__protobuf__file_descriptor_proto__get_packed_size(fp);
    uint8_t *out = malloc(n ? n : 1);
    if (out)
        *out_len = google__protobuf__file_descriptor_proto__pack(fp, out);
    fp->source_code_info = info;
    google__protobuf__file_descriptor_proto__free_unpacked(fp, NULL);
    return out;
}

/* protoc's FileDescriptorProto of path, or NULL. */
static uint8_t *protoc_descriptor(const char *include_dir, const char *path, size_t *len)
{
    char out[512], cmd[2048];
    snprintf(out, sizeof out, "%s/protoc.pb", tmpdir);
    snprintf(cmd, sizeof cmd, "protoc -I'%s' -I'%s/builtin' --descriptor_set_out='%s' '%s/%s'", include_dir,
             tmpdir, out, include_dir, path);
    if (system(cmd) != 0)
        return NULL;
    size_t n;
    uint8_t *set = (uint8_t *)test_read_file(out, &n);
    if (!set)
        return NULL;
    Google__Protobuf__FileDescriptorSet *fs = google__protobuf__file_descriptor_set__unpack(NULL, n, set);
    free(set);
    if (!fs || fs->n_file != 1) {
        if (fs)
            google__protobuf__file_descriptor_set__free_unpacked(fs, NULL);
        return NULL;
    }
    size_t m = google__protobuf__file_descriptor_proto__get_packed_size(fs->file[0]);
    uint8_t *bytes = malloc(m ? m : 1);
    if (bytes)
        google__protobuf__file_descriptor_proto__pack(fs->file[0], bytes);
    google__protobuf__file_descriptor_set__free_unpacked(fs, NULL);
    uint8_t *canon = bytes ? canonical_bytes(bytes, m, len) : NULL;
    free(bytes);
    return canon;
}

static void show_difference(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen)
{
    char pa[512], pb[512], cmd[2048];
    snprintf(pa, sizeof pa, "%s/protoc.bin", tmpdir);
    snprintf(pb, sizeof pb, "%s/ours.bin", tmpdir);
    write_file(pa, a, alen);
    write_file(pb, b, blen);
    snprintf(cmd, sizeof cmd,
             "cd '%s' && for f in protoc ours; do protoc -I'%s/builtin' "
             "--decode=google.protobuf.FileDescriptorProto google/protobuf/descriptor.proto "
             "< $f.bin > $f.txt; done; diff -u protoc.txt ours.txt | head -80 >&2",
             tmpdir, tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "(could not show the difference)\n");
}

/* Returns 1 when our descriptor equals protoc's. */
static int check_file(const char *include_dir, const char *path)
{
    char full[1024];
    snprintf(full, sizeof full, "%s/%s", include_dir, path);
    size_t len = 0;
    char *text = test_read_file(full, &len);
    if (!text) {
        fprintf(stderr, "FAIL %s: cannot read\n", path);
        return 0;
    }
    refs_t refs = {0};
    int ok = 0;
    uint8_t *ours = NULL, *ours_canon = NULL, *theirs = NULL;
    size_t ours_len = 0, canon_len = 0, theirs_len = 0;
    char *error = NULL;
    proto_schema_t *s = NULL;
    if (collect_refs(include_dir, text, &refs) != 0) {
        fprintf(stderr, "FAIL %s: cannot collect imports\n", path);
        goto done;
    }
    s = proto_schema_new(text, len, refs.items, refs.n, 0, NULL, &error);
    if (!s || proto_descriptor_build(s, path, &ours, &ours_len, &error) != 0) {
        fprintf(stderr, "FAIL %s: %s\n", path, error ? error : "?");
        goto done;
    }
    ours_canon = canonical_bytes(ours, ours_len, &canon_len);
    theirs = protoc_descriptor(include_dir, path, &theirs_len);
    if (!ours_canon || !theirs) {
        fprintf(stderr, "FAIL %s: %s\n", path, theirs ? "our bytes do not unpack" : "protoc failed");
        goto done;
    }
    ok = canon_len == theirs_len && memcmp(ours_canon, theirs, canon_len) == 0;
    if (!ok) {
        fprintf(stderr, "FAIL %s: descriptors differ (- protoc, + ours)\n", path);
        show_difference(theirs, theirs_len, ours_canon, canon_len);
    }
done:
    free(error);
    proto_schema_free(s);
    free(ours);
    free(ours_canon);
    free(theirs);
    refs_free(&refs);
    free(text);
    return ok;
}

/* Drops the json_names protoc derived, as the descriptors embedded in
 * generated code (what the Python serializer registers) only keep the ones
 * written in the source. */
static void strip_json_names(Google__Protobuf__DescriptorProto *m)
{
    for (size_t i = 0; i < m->n_field; i++) {
        Google__Protobuf__FieldDescriptorProto *f = m->field[i];
        char derived[256];
        size_t n = 0;
        int upper = 0;
        for (const char *c = f->name; *c && n + 1 < sizeof derived; c++) {
            if (*c == '_') {
                upper = 1;
            } else {
                derived[n++] = upper && *c >= 'a' && *c <= 'z' ? (char)(*c - 32) : *c;
                upper = 0;
            }
        }
        derived[n] = '\0';
        if (f->json_name && strcmp(f->json_name, derived) == 0) {
            free(f->json_name);
            f->json_name = NULL;
        }
    }
    for (size_t i = 0; i < m->n_nested_type; i++)
        strip_json_names(m->nested_type[i]);
}

/* protoc's descriptor of path as a client would send it: base64, no
 * json_name, no source info. */
static char *client_form(const char *include_dir, const char *path)
{
    size_t len = 0;
    uint8_t *bytes = protoc_descriptor(include_dir, path, &len);
    if (!bytes)
        return NULL;
    Google__Protobuf__FileDescriptorProto *fp =
        google__protobuf__file_descriptor_proto__unpack(NULL, len, bytes);
    free(bytes);
    if (!fp)
        return NULL;
    for (size_t i = 0; i < fp->n_message_type; i++)
        strip_json_names(fp->message_type[i]);
    size_t n = google__protobuf__file_descriptor_proto__get_packed_size(fp);
    uint8_t *packed = malloc(n ? n : 1);
    google__protobuf__file_descriptor_proto__pack(fp, packed);
    google__protobuf__file_descriptor_proto__free_unpacked(fp, NULL);
    char *b64 = proto_base64_encode(packed, n);
    free(packed);
    return b64;
}

/* The text and protoc's descriptor of it register as the same canonical text. */
static int check_client_form(const char *include_dir, const char *path)
{
    char full[1024];
    snprintf(full, sizeof full, "%s/%s", include_dir, path);
    size_t len = 0;
    char *text = test_read_file(full, &len);
    char *b64 = client_form(include_dir, path);
    refs_t refs = {0};
    char *from_text = NULL, *from_descriptor = NULL, *error = NULL;
    int ok = 0;
    if (text && b64 && collect_refs(include_dir, text, &refs) == 0) {
        proto_schema_t *a = proto_schema_new(text, len, refs.items, refs.n, 0, &from_text, &error);
        free(error);
        error = NULL;
        proto_schema_t *b =
            proto_schema_new(b64, strlen(b64), refs.items, refs.n, 0, &from_descriptor, &error);
        ok = a && b && strcmp(from_text, from_descriptor) == 0;
        if (!ok)
            fprintf(stderr, "FAIL %s: text and descriptor forms differ:\n%s\n---\n%s\n%s\n", path,
                    from_text ? from_text : "?", from_descriptor ? from_descriptor : "?", error ? error : "");
        proto_schema_free(a);
        proto_schema_free(b);
    }
    free(error);
    free(from_text);
    free(from_descriptor);
    refs_free(&refs);
    free(b64);
    free(text);
    return ok;
}

static void check_all(const char *label, const char *include_dir, const char *const *paths)
{
    size_t passed = 0, failed = 0;
    for (const char *const *p = paths; *p; p++) {
        if (check_file(include_dir, *p))
            passed++;
        else
            failed++;
    }
    printf("%s: %zu passed, %zu failed\n", label, passed, failed);
    assert_int_equal(failed, 0);
}

static void require_protoc(void)
{
    if (!have_protoc()) {
        printf("SKIP: protoc not found\n");
        skip();
    }
}

static void test_own_corpus(void **state)
{
    require_protoc();
    static const char *const files[] = {
        "scalars.proto",  "nested.proto",    "legacy.proto",      "options.proto",
        "importer.proto", "roundtrip.proto", "interleaved.proto", NULL,
    };
    check_all("tests/data/protobuf", SR_TEST_DATA_DIR "/protobuf", files);
}

static void test_client_descriptor_form(void **state)
{
    require_protoc();
    static const char *const files[] = {"scalars.proto", "nested.proto", "roundtrip.proto",
                                        "interleaved.proto"};
    size_t passed = 0, failed = 0;
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        if (check_client_form(SR_TEST_DATA_DIR "/protobuf", files[i]))
            passed++;
        else
            failed++;
    }
    printf("client descriptor form: %zu passed, %zu failed\n", passed, failed);
    assert_int_equal(failed, 0);
}

static void test_builtin_files(void **state)
{
    require_protoc();
    char dir[512];
    snprintf(dir, sizeof dir, "%s/builtin", tmpdir);
    check_all("built-in files", dir, proto_builtin_paths());
}

static void test_conformance_files(void **state)
{
    require_protoc();
    const char *dir = SR_CONFORMANCE_DIR "/protobuf";
    if (!dir_exists(dir)) {
        printf("SKIP: conformance dir absent (%s)\n", dir);
        skip();
    }
    static const char *const files[] = {
        "io/confluent/kafka/schemaregistry/protobuf/diff/TestProto.proto",
        "io/confluent/kafka/schemaregistry/protobuf/diff/TestProto2.proto",
        "io/confluent/kafka/schemaregistry/protobuf/diff/DecimalValue.proto",
        "io/confluent/kafka/schemaregistry/protobuf/diff/DecimalValue2.proto",
        "confluent/meta.proto",
        "confluent/type/decimal.proto",
        NULL,
    };
    check_all("conformance .proto files", dir, files);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_own_corpus),
        cmocka_unit_test(test_client_descriptor_form),
        cmocka_unit_test(test_builtin_files),
        cmocka_unit_test(test_conformance_files),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
