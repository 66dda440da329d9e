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
    if (rc == STORE_READ_ONLY)
        return reg_fail(err, REG_STORE_ERROR,
                        "The database is read-only (a standby, or default_transaction_read_only is on): "
                        "writes are refused until it accepts them; reads are still served. %s",
                        store_error(db));
    if (rc == STORE_FAILED_OVER)
        return reg_fail(
            err, REG_STORE_ERROR,
            "The database failed over: retry once this node has reloaded from the new primary. %s",
            store_error(db));
    return reg_fail(err, rc == STORE_TIMEOUT ? REG_TIMEOUT : REG_STORE_ERROR, "%s", store_error(db));
}
