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
    return reg_store_as(err, rc, rc == STORE_OK ? NULL : store_error(db));
}

reg_code_t reg_store_as(reg_error_t *err, store_rc_t rc, const char *message)
{
    if (rc == STORE_OK)
        return REG_OK;
    if (rc == STORE_READ_ONLY)
        return reg_fail(err, REG_STORE_ERROR,
                        "The database is read-only (a standby, or default_transaction_read_only is on): "
                        "writes are refused until it accepts them; reads are still served. %s",
                        message);
    if (rc == STORE_FAILED_OVER)
        return reg_fail(
            err, REG_STORE_ERROR,
            "The database failed over: retry once this node has reloaded from the new primary. %s", message);
    return reg_fail(err, rc == STORE_TIMEOUT ? REG_TIMEOUT : REG_STORE_ERROR, "%s", message);
}
