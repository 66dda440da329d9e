#include "registry/internal.h"

#include <stdarg.h>
#include <stdio.h>

reg_code_t reg_fail(reg_error_t *err, reg_code_t code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    err->code = code;
    return code;
}

reg_code_t reg_store(reg_error_t *err, store_t *db, store_rc_t rc)
{
    if (rc == STORE_OK)
        return REG_OK;
    return reg_fail(err, rc == STORE_TIMEOUT ? REG_TIMEOUT : REG_STORE_ERROR, "%s", store_error(db));
}
