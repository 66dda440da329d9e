/*
 * errors: every registry failure as a Confluent error code, defined once.
 * The HTTP status is derived from the code by the server (code / 100).
 */
#ifndef REGISTRY_ERRORS_H
#define REGISTRY_ERRORS_H

/* Values are the Confluent error codes; HTTP status = code / 100. */
typedef enum reg_code {
    REG_OK = 0,
    REG_SUBJECT_NOT_FOUND = 40401,
    REG_VERSION_NOT_FOUND = 40402,
    REG_SCHEMA_NOT_FOUND = 40403,
    REG_SUBJECT_SOFT_DELETED = 40404,
    REG_SUBJECT_NOT_SOFT_DELETED = 40405,
    REG_VERSION_SOFT_DELETED = 40406,
    REG_VERSION_NOT_SOFT_DELETED = 40407,
    REG_SUBJECT_LEVEL_COMPAT_NOT_CONFIGURED = 40408,
    REG_SUBJECT_LEVEL_MODE_NOT_CONFIGURED = 40409,
    REG_ASSOCIATION_NOT_FOUND = 40410,
    REG_INCOMPATIBLE = 40901,
    REG_ASSOCIATION_FOR_RESOURCE_EXISTS = 40903,
    REG_ASSOCIATION_FOR_SUBJECT_EXISTS = 40904,
    REG_STRONG_ASSOCIATION_FOR_SUBJECT_EXISTS = 40905,
    REG_NO_ACTIVE_SUBJECT_VERSION = 40907,
    REG_ASSOCIATION_FROZEN = 40908,
    REG_INVALID_SCHEMA = 42201,
    REG_INVALID_VERSION = 42202,
    REG_INVALID_COMPATIBILITY = 42203,
    REG_INVALID_MODE = 42204,
    REG_OPERATION_NOT_PERMITTED = 42205,
    REG_REFERENCE_EXISTS = 42206,
    REG_INVALID_SUBJECT = 42208,
    REG_SCHEMA_TOO_LARGE = 42209,
    REG_CONTEXT_NOT_EMPTY = 42211,
    REG_INVALID_ASSOCIATION = 42212,
    REG_STORE_ERROR = 50001,
    REG_TIMEOUT = 50002,
    REG_BAD_REQUEST = 400, /* a body field of the wrong shape, as Jackson refuses it (HTTP 400) */
    REG_INTERNAL = 500,
} reg_code_t;

/* The one carrier of a failed request: its code and the message a client
 * sees. Fixed size on purpose: it lives on the caller's stack, needs no
 * disposal, and long messages are cut exactly where they always were. */
typedef struct reg_error {
    reg_code_t code;
    char message[1024];
} reg_error_t;

/* Sets err and returns its code. */
reg_code_t reg_fail(reg_error_t *err, reg_code_t code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
