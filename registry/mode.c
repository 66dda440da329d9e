/*
 * mode: names and messages of the registry modes.
 */
#include "registry/mode.h"

#include <strings.h>

static const char *const mode_names[] = {"READWRITE", "READONLY", "READONLY_OVERRIDE", "IMPORT"};

int reg_mode_parse(const char *name, reg_mode_t *out)
{
    for (size_t i = 0; name && i < sizeof mode_names / sizeof *mode_names; i++) {
        if (strcasecmp(name, mode_names[i]) == 0) {
            *out = (reg_mode_t)i;
            return 0;
        }
    }
    return -1;
}

const char *reg_mode_name(reg_mode_t mode)
{
    return mode_names[mode == MODE_UNSET ? MODE_READWRITE : mode];
}

int reg_mode_is_readonly(reg_mode_t mode)
{
    return mode == MODE_READONLY || mode == MODE_READONLY_OVERRIDE;
}

reg_code_t reg_mode_readonly_error(reg_error_t *err, const char *subject)
{
    return reg_fail(err, REG_OPERATION_NOT_PERMITTED, "Subject %s in context . is in read-only mode",
                    subject ? subject : "__GLOBAL");
}

reg_code_t reg_mode_invalid_error(reg_error_t *err)
{
    return reg_fail(err, REG_INVALID_MODE,
                    "Invalid mode. Valid values are READWRITE, READONLY, READONLY_OVERRIDE and IMPORT.");
}
