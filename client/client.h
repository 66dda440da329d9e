/*
 * client: the consumer's side of the registry, as a C library. Fetches
 * schemas over HTTP (libcurl), reads the Confluent wire format and turns
 * Avro records into JSON rows read into the schema the consumer expects
 * (Spark's from_avro). Documented in docs/decoding.md.
 *
 * Contents
 *   1. The registry client: options, schemas by id, subject versions, register,
 *      any GET as JSON
 *   2. The wire format: magic byte, schema id, Protobuf message indexes
 *   3. Avro data: a bounded decoder with reader-schema projection, an encoder
 *   3b. Protobuf data: a bounded decoder to the proto3 JSON mapping, an encoder
 *   3c. JSON Schema data: a bounded instance validator
 *   4. The decoder: framed records -> JSON rows, writer schemas cached by id
 *
 * Layering: client/ links compat/ and base/ only (never server/, registry/ or
 * store/): a consumer needs no database and no HTTP server.
 *
 * Threads: a srclient_t and a srclient_decoder_t may be shared by any
 * number of threads; their caches have their own locks. Results are the
 * caller's unless marked borrowed. Every call that can fail takes a
 * srclient_error_t * (may be NULL) and returns -1 on failure.
 */
#ifndef CLIENT_CLIENT_H
#define CLIENT_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "base/strbuf.h"
#include "compat/avro/avro.h"
#include "compat/protobuf/protobuf.h"

/* ---- 1. The registry client ---------------------------------------------- */

typedef struct srclient srclient_t;

typedef struct srclient_options {
    const char *url;        /* "http://host:8081" or "https://..."; required */
    const char *basic_auth; /* "user:secret" (HTTP Basic), or NULL */
    const char *ca_file;    /* TLS: CA bundle (PEM) to verify the server; NULL: the system's */
    const char *cert_file;  /* TLS client certificate (PEM), or NULL */
    const char *key_file;   /* its private key (PEM), or NULL */
    int insecure;           /* 1: do not verify the server's certificate (tests only) */
    int h2c;            /* 1: HTTP/2 over cleartext by prior knowledge; TLS negotiates h2 by ALPN anyway */
    long timeout_ms;    /* per request; 0: 30000 */
    long latest_ttl_ms; /* how long a subject's latest version is trusted; 0: 30000, <0: never cached */
} srclient_options_t;

/* Why a call failed: the HTTP status (0: no answer), the registry's
 * error_code (0 when none) and one line of text. */
typedef struct srclient_error {
    int status;
    int code;
    char message[512];
} srclient_error_t;

/* SRCLIENT_ERR_* codes for failures that are not the registry's. */
#define SRCLIENT_ERR_NETWORK (-1) /* no HTTP answer: connect, TLS, timeout */
#define SRCLIENT_ERR_REPLY   (-2) /* an answer that is not the registry's JSON */
#define SRCLIENT_ERR_SCHEMA  (-3) /* a schema the model rejects */
#define SRCLIENT_ERR_FRAME   (-4) /* a record that is not in the wire format */
#define SRCLIENT_ERR_DATA    (-5) /* a payload that does not decode with its schema */

/* NULL and *error (malloc'd) on a bad URL or options. */
srclient_t *srclient_new(const srclient_options_t *opts, char **error);
void srclient_free(srclient_t *c);

typedef enum srclient_type {
    SRCLIENT_AVRO,
    SRCLIENT_PROTOBUF,
    SRCLIENT_JSON,
} srclient_type_t;

/* A registered schema: immutable and refcounted, so any thread may hold it. */
typedef struct srclient_schema srclient_schema_t;

srclient_schema_t *srclient_schema_retain(srclient_schema_t *s);
void srclient_schema_release(srclient_schema_t *s);
int srclient_schema_id(const srclient_schema_t *s);
srclient_type_t srclient_schema_type(const srclient_schema_t *s);
/* The text with references resolved (?format=resolved). Borrowed. */
const char *srclient_schema_text(const srclient_schema_t *s);
/* The parsed Avro model (NULL for other types). Borrowed. */
const avro_model_t *srclient_schema_avro(const srclient_schema_t *s);
/* The parsed Protobuf schema (NULL for other types). Borrowed. */
const proto_schema_t *srclient_schema_proto(const srclient_schema_t *s);
/* Its references as the registry lists them ([{"name","subject","version"}]),
 * or NULL when it has none. Borrowed. */
const json_t *srclient_schema_references(const srclient_schema_t *s);

/*
 * GET /schemas/ids/{id}: the schema, from the cache when it has been seen
 * (ids are immutable, so entries never expire), and an unknown id (40403) is
 * remembered too, so a stream of records with a bad id costs one request.
 * A Protobuf schema's references (and theirs) are fetched first, by subject
 * and version through the same caches, so its model resolves the imported
 * types (docs/decoding.md section 6); a reference that fails fails the call.
 * *out is retained for the caller.
 */
int srclient_schema_by_id(srclient_t *c, int id, srclient_schema_t **out, srclient_error_t *err);

/* A subject's version: number, id and schema (retained for the caller). */
typedef struct srclient_version {
    int version;
    int id;
    srclient_schema_t *schema;
} srclient_version_t;

void srclient_version_clear(srclient_version_t *v);

/* GET /subjects/{subject}/versions/{version}; version <= 0 is "latest",
 * kept for latest_ttl_ms. */
int srclient_subject_version(srclient_t *c, const char *subject, int version, srclient_version_t *out,
                             srclient_error_t *err);

/* The version under which subject carries id (GET /schemas/ids/{id}/versions),
 * or 0 when it carries none; cached (an id's versions only grow, and a version
 * never moves to another id). */
int srclient_id_version(srclient_t *c, int id, const char *subject, int *version, srclient_error_t *err);

/* POST /subjects/{subject}/versions: the id of schema text under subject
 * (registered when new, as a serializer with auto.register.schemas does). */
int srclient_register(srclient_t *c, const char *subject, srclient_type_t type, const char *text, int *id,
                      srclient_error_t *err);
/* POST /subjects/{subject}: the id of schema text when it is already a
 * version of subject (a serializer's lookup without auto-registration);
 * 40403 (schema not found) or 40401 (subject not found) when not. */
int srclient_lookup(srclient_t *c, const char *subject, srclient_type_t type, const char *text, int *id,
                    srclient_error_t *err);

/*
 * GET path (appended to the URL; query included, segments escaped with
 * srclient_escape) for any JSON the registry answers, uncached: what a
 * caller walking the registry needs beyond the calls above (the import
 * from a URL, docs/operations.md section 11). 0 and *out (the caller's) on
 * 200; else -1 with err: the HTTP status and the registry's error_code
 * (40401, 40408, ...), or SRCLIENT_ERR_NETWORK / _REPLY.
 */
int srclient_get_json(srclient_t *c, const char *path, json_t **out, srclient_error_t *err);
/* s percent-encoded as one path segment or query value (RFC 3986
 * unreserved characters kept). malloc'd. */
char *srclient_escape(const char *s);

/* ---- 2. The wire format ------------------------------------------------------ */

/*
 * Confluent's framing: byte 0 (the magic byte), the schema id as 4 bytes
 * big-endian, then the payload. Protobuf payloads start with the message
 * indexes (a zigzag varint count, then each index; [0] is the single byte 0).
 */
typedef struct srclient_frame {
    int id;
    const uint8_t *payload; /* borrowed from the record */
    size_t len;
} srclient_frame_t;

/* 0, or -1 with a message in err (SRCLIENT_ERR_FRAME). */
int srclient_frame_parse(const uint8_t *data, size_t len, srclient_frame_t *out, srclient_error_t *err);
/* Appends the 5-byte header. */
void srclient_frame_header(strbuf_t *out, int id);
/* Reads the message indexes: up to max of them into idx, their number in *n;
 * returns the bytes consumed, or -1 (truncated, too many, negative). */
long srclient_proto_indexes(const uint8_t *data, size_t len, int64_t *idx, size_t max, size_t *n);
/* Base64 (RFC 4648, padded), as records travel in text and bytes in rows:
 * appends; decode returns 0, or -1 on anything but whole padded groups. */
void srclient_base64_encode(strbuf_t *out, const uint8_t *s, size_t n);
int srclient_base64_decode(const char *s, size_t n, strbuf_t *out);

/* ---- 3. Avro data ------------------------------------------------------------ */

/* Bounds on one record (0: the default). Inputs are never trusted: every
 * length is checked against the bytes left before anything is read. */
typedef struct srclient_avro_limits {
    size_t max_depth;  /* nested values; default 256 */
    size_t max_output; /* bytes of JSON one record may produce; default 64 MiB */
    size_t max_values; /* values decoded or skipped per record; default 16 Mi */
} srclient_avro_limits_t;

/*
 * A resolution plan from a writer schema to a reader schema, by the Avro
 * specification's "Schema Resolution" (Avro Java's ResolvingDecoder): reader
 * fields missing from the writer take their defaults, fields match by name
 * or by the reader's aliases, int -> long -> float -> double and string <->
 * bytes are promoted, writer fields missing from the reader are skipped,
 * unions resolve branch by branch, an unknown enum symbol takes the reader's
 * default. A pair that cannot be resolved fails only when a record reaches it
 * (as in Avro). Both models must outlive the plan. reader NULL: the writer.
 */
typedef struct srclient_avro_reader srclient_avro_reader_t;

srclient_avro_reader_t *srclient_avro_reader_new(const avro_model_t *writer, const avro_model_t *reader,
                                                 const srclient_avro_limits_t *limits, char **error);
void srclient_avro_reader_free(srclient_avro_reader_t *r);

/*
 * Appends one record (len bytes, all of them: trailing bytes are an error)
 * as a JSON row: records are objects in the reader's field order, unions are
 * the value of their branch, bytes and fixed are base64, logical types render
 * (decimal as an exact JSON number, date "2024-01-31", time-* "12:00:00.000",
 * timestamp-* "2024-01-31T12:00:00.000Z", local-timestamp-* without the Z,
 * duration {"months","days","milliseconds"}), NaN and infinities as strings.
 * Returns 0, or -1 with *error (malloc'd) and out as it was.
 */
int srclient_avro_decode(const srclient_avro_reader_t *r, const uint8_t *data, size_t len, strbuf_t *out,
                         char **error);

/* The other way: a JSON row (the form srclient_avro_decode writes, plus
 * {"branch": value} for unions) as Avro binary. 0, or -1 with *error. */
int srclient_avro_encode(const avro_model_t *writer, const char *json, size_t len, strbuf_t *out,
                         char **error);

/* ---- 3b. Protobuf data ------------------------------------------------------- */

/*
 * A reader for Protobuf records: a plan of every message of the schema's own
 * file and of every type they reach. Records are read by field number, as
 * Protobuf readers evolve: unknown fields are skipped, missing ones take
 * their defaults. The schema must outlive the reader; the limits are the
 * Avro decoder's (depth of messages, JSON bytes, values per record).
 * NULL and *error (malloc'd) when a reachable type does not resolve.
 */
typedef struct srclient_proto_reader srclient_proto_reader_t;

srclient_proto_reader_t *srclient_proto_reader_new(const proto_schema_t *schema,
                                                   const srclient_avro_limits_t *limits, char **error);
void srclient_proto_reader_free(srclient_proto_reader_t *r);
/* keep 1: fields unknown to the reader are kept, not dropped: each message
 * object gets a last key "@unknown", [{"number": N, "wireType": W,
 * "value": V}] in wire order (V: a varint or fixed64 as a decimal string, a
 * fixed32 as a number, length-delimited bytes or a group's bytes in
 * base64); none in well-known types and map entries (docs/decoding.md).
 * srclient_proto_encode writes "@unknown" back after the known fields. */
void srclient_proto_reader_keep_unknown(srclient_proto_reader_t *r, int keep);

/*
 * Appends one record's payload (the message indexes, then the message; all
 * len bytes) as a JSON row in the proto3 JSON mapping, fields without
 * presence always printed (docs/decoding.md "Protobuf"). writer is the
 * schema the indexes refer to (NULL: the reader's own); the reader's
 * message of the same full name reads the bytes. 0, or -1 with *error
 * (malloc'd) and out as it was.
 */
int srclient_proto_decode(const srclient_proto_reader_t *r, const proto_schema_t *writer, const uint8_t *data,
                          size_t len, strbuf_t *out, char **error);

/*
 * The other way: one JSON row in the proto3 JSON mapping (what
 * srclient_proto_decode writes; keys by json_name or field name, null as
 * "not set") as a record's payload: the message indexes (Confluent's
 * MessageIndexes, [0] as the single byte 0), then the message in protoc's
 * binary form. message: a full name ("shop.Order"), a name within the
 * schema's package ("Order", "Order.Line"), or NULL for the file's first
 * message (Confluent's default). 0, or -1 with *error (malloc'd) and out
 * as it was (bytes appended only on success).
 */
int srclient_proto_encode(const srclient_proto_reader_t *r, const char *message, const char *json, size_t len,
                          strbuf_t *out, char **error);

/* ---- 3c. JSON Schema data ---------------------------------------------------- */

/*
 * A validator of JSON values against a JSON Schema (drafts 4 to 2020-12 by
 * the root's $schema, draft 7 without one): type, enum, const, properties,
 * required, additionalProperties, patternProperties, propertyNames,
 * min/maxProperties, dependencies / dependentRequired / dependentSchemas,
 * items, prefixItems, additionalItems, contains, min/maxItems, uniqueItems,
 * min/maxLength (code points), minimum, maximum, the exclusive ones (draft
 * 4's booleans too), multipleOf, pattern (ECMA-262 translated to POSIX,
 * docs/decoding.md section 10), allOf, anyOf, oneOf, not, if/then/else and
 * $ref (JSON pointers, $id, $anchor, and the schema's references by name).
 * format is an annotation. Not read: unevaluatedProperties and
 * unevaluatedItems.
 */
typedef struct srclient_json_validator srclient_json_validator_t;

/* A referenced schema: name is what $ref says ("other.json"), as in
 * Confluent's SchemaReference. Both borrowed for the call. */
typedef struct srclient_json_ref {
    const char *name;
    const char *text;
} srclient_json_ref_t;

/* Per value validated (0: the default). */
typedef struct srclient_json_limits {
    size_t max_depth; /* schemas applied inside one another ($ref, applicators); default 256 */
    size_t max_steps; /* schema evaluations (and uniqueItems comparisons); default 1 Mi */
} srclient_json_limits_t;

/* NULL and *error (malloc'd) when the schema or a reference is not JSON. A
 * validator is immutable: any number of threads may share it. */
srclient_json_validator_t *srclient_json_validator_new(const char *schema, const srclient_json_ref_t *refs,
                                                       size_t nrefs, const srclient_json_limits_t *limits,
                                                       char **error);
void srclient_json_validator_free(srclient_json_validator_t *v);
/* 0 when valid; -1 with *error (malloc'd): the first failure's JSON pointer
 * in the instance and why ("/items/2/qty: 0 is less than the minimum 1").
 * Over a limit, or at a pattern the translation refuses, the value is invalid. */
int srclient_json_validate(const srclient_json_validator_t *v, const json_t *instance, char **error);
/* The validator of a registered JSON schema, its references (and theirs)
 * fetched from the registry by subject and version. NULL with err when a
 * reference cannot be fetched (or there are more than 256). */
srclient_json_validator_t *srclient_schema_validator(srclient_t *c, const srclient_schema_t *s,
                                                     const srclient_json_limits_t *limits,
                                                     srclient_error_t *err);

/* ---- 4. The decoder ---------------------------------------------------------- */

typedef enum srclient_evolution {
    SRCLIENT_EVOLUTION_NONE,    /* every record is read with the reader chosen at start */
    SRCLIENT_EVOLUTION_RESTART, /* a record of a newer version of the subject stops the stream */
} srclient_evolution_t;

typedef struct srclient_decoder_options {
    const char *subject; /* the subject the reader comes from (required for "latest", VERSION, restart) */
    int reader_version;  /* >0: that version; 0: latest at start; -1: reader_text; -2: each writer's own */
    const char *reader_text; /* an Avro schema as text, with reader_version -1 */
    srclient_evolution_t evolution;
    srclient_avro_limits_t limits;
    int validate; /* 1: a JSON Schema record that its writer schema rejects is bad (srclient_json_validate) */
    srclient_json_limits_t json_limits;
    int keep_unknown; /* 1: Protobuf fields unknown to the reader are kept
                         (srclient_proto_reader_keep_unknown) */
} srclient_decoder_options_t;

typedef struct srclient_decoder srclient_decoder_t;

srclient_decoder_t *srclient_decoder_new(srclient_t *c, const srclient_decoder_options_t *opts,
                                         srclient_error_t *err);
void srclient_decoder_free(srclient_decoder_t *d);

/* The reader's version and id (0 when the reader came from text or is the writer's). */
int srclient_decoder_reader_version(const srclient_decoder_t *d);
int srclient_decoder_reader_id(const srclient_decoder_t *d);

/* What srclient_decode returns. */
#define SRCLIENT_DECODED      0
#define SRCLIENT_BAD_RECORD   (-1) /* err says why; the stream may go on (PERMISSIVE) */
#define SRCLIENT_NEWER_SCHEMA (-2) /* restart: the record's writer is a newer version; see *newer */
#define SRCLIENT_REGISTRY_FAILED                                                                             \
    (-3) /* the registry did not answer (network, 401, 5xx): not the record's fault */

/* What a newer writer is. */
typedef struct srclient_newer {
    int id;
    int version;
} srclient_newer_t;

/* One framed record -> one JSON row appended to out. Avro records are read
 * into the reader; JSON Schema records pass through (the payload is the
 * JSON text: checked to be one value, with validate valid against the
 * writer schema, written compact); Protobuf records
 * are read into the reader's message of the same name (srclient_proto_decode). */
int srclient_decode(srclient_decoder_t *d, const uint8_t *data, size_t len, strbuf_t *out,
                    srclient_newer_t *newer, srclient_error_t *err);

#endif
