/*
 * view: disposal of the result types registry.h hands out (reg_view_t,
 * reg_usage_t). A leaf: the index fills these, the readers and writers
 * return them, and none of them needs the others to free one.
 */
#include <stdlib.h>
#include <string.h>

#include "registry/registry.h"

void reg_view_clear(reg_view_t *v)
{
    free(v->subject);
    reg_schema_release(v->schema);
    memset(v, 0, sizeof *v);
}

void reg_usages_free(reg_usage_t *u, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(u[i].subject);
    free(u);
}
