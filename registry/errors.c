#include "registry/errors.h"

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
