/*
 * test_support: file helpers the unit tests share (reading vectors and
 * corpus files, finding the conformance folder).
 */
#ifndef TESTS_UNIT_TEST_SUPPORT_H
#define TESTS_UNIT_TEST_SUPPORT_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/* The whole file, NUL-terminated (malloc'd), or NULL; *len gets its size when len != NULL. */
static inline char *test_read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    if (buf) {
        buf[n] = '\0';
        if (len)
            *len = (size_t)n;
    }
    fclose(f);
    return buf;
}

static inline int test_dir_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

#endif
