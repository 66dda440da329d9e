/*
 * decoder: framed records -> JSON rows (client.h, section 4), the model
 * being Spark's from_avro(data, subject, schemaRegistryAddress): the reader
 * is chosen once (a version of the subject, the latest at start, or a
 * schema given as text), each record's writer schema is fetched by its id,
 * and one resolution plan is kept per writer id.
 *
 * Evolution "restart" (from_avro's avroSchemaEvolutionMode=restart): a
 * record whose writer is a later version of the subject than the reader
 * stops the stream (SRCLIENT_NEWER_SCHEMA) so the consumer restarts with
 * the new reader. A writer that is not a version of the subject, or an
 * older one, is read with the reader as usual.
 */
#include "client/client.h"

#include <jansson.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hmap.h"

typedef struct decoder_entry {
    srclient_schema_t *writer;
    srclient_avro_reader_t *plan;
    srclient_proto_reader_t *own_proto;   /* a Protobuf writer read as itself */
    const srclient_proto_reader_t *proto; /* own_proto, or the decoder's reader */
    srclient_json_validator_t *validator; /* a JSON writer with validate */
    int newer_version;                    /* > 0: a later version of the subject than the reader */
} decoder_entry_t;

struct srclient_decoder {
    srclient_t *client;
    char *subject;
    srclient_evolution_t evolution;
    srclient_avro_limits_t limits;
    int validate;
    srclient_json_limits_t json_limits;
    int keep_unknown; /* Protobuf: srclient_proto_reader_keep_unknown */
    int reader_version, reader_id;
    srclient_schema_t *reader;             /* from the registry, or NULL */
    avro_model_t *reader_model;            /* from text (owned), or NULL */
    srclient_proto_reader_t *reader_proto; /* a Protobuf reader's plan, or NULL */
    int own_writer_as_reader;
    pthread_mutex_t lock;
    hmap_t by_id; /* writer id -> decoder_entry_t * */
};

static void decoder_fail(srclient_error_t *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void decoder_fail(srclient_error_t *err, int code, const char *fmt, ...)
{
    if (!err)
        return;
    err->status = 0;
    err->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof(err->message), fmt, ap);
    va_end(ap);
}

srclient_decoder_t *srclient_decoder_new(srclient_t *c, const srclient_decoder_options_t *opts,
                                         srclient_error_t *err)
{
    int needs_subject = opts->reader_version >= 0 || opts->evolution == SRCLIENT_EVOLUTION_RESTART;
    if (needs_subject && (!opts->subject || !*opts->subject)) {
        decoder_fail(err, SRCLIENT_ERR_SCHEMA,
                     "a subject is needed for a reader from the registry and for restart");
        return NULL;
    }
    srclient_decoder_t *d = xcalloc(1, sizeof(*d));
    d->client = c;
    d->subject = opts->subject ? xstrdup(opts->subject) : NULL;
    d->evolution = opts->evolution;
    d->limits = opts->limits;
    d->validate = opts->validate;
    d->json_limits = opts->json_limits;
    d->keep_unknown = opts->keep_unknown;
    pthread_mutex_init(&d->lock, NULL);
    if (opts->reader_version >= 0) {
        srclient_version_t v;
        if (srclient_subject_version(c, opts->subject, opts->reader_version, &v, err) != 0) {
            srclient_decoder_free(d);
            return NULL;
        }
        /* The reader may be a JSON schema: JSON records pass through, and
         * its version still decides "newer" for restart. A Protobuf reader
         * reads every writer's message of the same name by field number. */
        if (srclient_schema_type(v.schema) == SRCLIENT_PROTOBUF) {
            char *perr = NULL;
            d->reader_proto = srclient_proto_reader_new(srclient_schema_proto(v.schema), &d->limits, &perr);
            if (d->reader_proto)
                srclient_proto_reader_keep_unknown(d->reader_proto, d->keep_unknown);
            if (!d->reader_proto) {
                decoder_fail(err, SRCLIENT_ERR_SCHEMA, "subject %s version %d: %s", opts->subject, v.version,
                             perr);
                free(perr);
                srclient_version_clear(&v);
                srclient_decoder_free(d);
                return NULL;
            }
        }
        d->reader = v.schema;
        d->reader_version = v.version;
        d->reader_id = v.id;
    } else if (opts->reader_version == -1) {
        char *perr = NULL;
        const char *t = opts->reader_text ? opts->reader_text : "";
        d->reader_model = avro_model_parse(t, strlen(t), NULL, 0, 0, &perr);
        if (!d->reader_model) {
            decoder_fail(err, SRCLIENT_ERR_SCHEMA, "the reader schema: %s", perr ? perr : "invalid");
            free(perr);
            srclient_decoder_free(d);
            return NULL;
        }
        if (d->subject && opts->evolution == SRCLIENT_EVOLUTION_RESTART) {
            /* A file reader has no version: restart compares against the latest at start. */
            srclient_version_t v;
            if (srclient_subject_version(c, opts->subject, 0, &v, err) != 0) {
                srclient_decoder_free(d);
                return NULL;
            }
            d->reader_version = v.version;
            srclient_version_clear(&v);
        }
    } else
        d->own_writer_as_reader = 1;
    return d;
}

void srclient_decoder_free(srclient_decoder_t *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->by_id.cap; i++) {
        if (!hmap_live(&d->by_id, i))
            continue;
        decoder_entry_t *e = d->by_id.slots[i].value;
        srclient_avro_reader_free(e->plan);
        srclient_proto_reader_free(e->own_proto);
        srclient_json_validator_free(e->validator);
        srclient_schema_release(e->writer);
        free(e);
    }
    hmap_clear(&d->by_id);
    srclient_proto_reader_free(d->reader_proto);
    srclient_schema_release(d->reader);
    avro_model_free(d->reader_model);
    pthread_mutex_destroy(&d->lock);
    free(d->subject);
    free(d);
}

int srclient_decoder_reader_version(const srclient_decoder_t *d)
{
    return d->reader_version;
}

int srclient_decoder_reader_id(const srclient_decoder_t *d)
{
    return d->reader_id;
}

/* The entry of a writer id, made on first sight (unlocked while fetching;
 * a race makes two entries and keeps the first). */
static decoder_entry_t *decoder_entry(srclient_decoder_t *d, int id, srclient_error_t *err)
{
    pthread_mutex_lock(&d->lock);
    decoder_entry_t *e = hmap_get(&d->by_id, &id, sizeof(id));
    pthread_mutex_unlock(&d->lock);
    if (e)
        return e;
    srclient_schema_t *w;
    if (srclient_schema_by_id(d->client, id, &w, err) != 0)
        return NULL;
    srclient_type_t type = srclient_schema_type(w);
    srclient_type_t rtype = d->reader ? srclient_schema_type(d->reader) : type;
    const char *why = type == SRCLIENT_PROTOBUF && d->reader_model ? "is Protobuf and the reader is Avro"
                      : type == SRCLIENT_PROTOBUF && rtype != SRCLIENT_PROTOBUF
                          ? "is Protobuf and the reader is not"
                      : type == SRCLIENT_AVRO && rtype != SRCLIENT_AVRO ? "is Avro and the reader is not"
                                                                        : NULL;
    if (why) {
        decoder_fail(err, SRCLIENT_ERR_SCHEMA, "schema %d %s", id, why);
        srclient_schema_release(w);
        return NULL;
    }
    int newer = 0;
    if (d->evolution == SRCLIENT_EVOLUTION_RESTART && id != d->reader_id) {
        int version = 0;
        if (srclient_id_version(d->client, id, d->subject, &version, err) != 0) {
            srclient_schema_release(w);
            return NULL;
        }
        if (version > d->reader_version)
            newer = version;
    }
    const avro_model_t *reader = d->own_writer_as_reader ? NULL
                                 : d->reader             ? srclient_schema_avro(d->reader)
                                                         : d->reader_model;
    char *perr = NULL;
    srclient_avro_reader_t *plan = NULL;
    if (type == SRCLIENT_AVRO)
        plan = srclient_avro_reader_new(srclient_schema_avro(w), reader, &d->limits, &perr);
    srclient_proto_reader_t *own_proto = NULL;
    if (type == SRCLIENT_PROTOBUF && !d->reader_proto)
        own_proto = srclient_proto_reader_new(srclient_schema_proto(w), &d->limits, &perr);
    if (own_proto)
        srclient_proto_reader_keep_unknown(own_proto, d->keep_unknown);
    if ((type == SRCLIENT_AVRO && !plan) || (type == SRCLIENT_PROTOBUF && !d->reader_proto && !own_proto)) {
        decoder_fail(err, SRCLIENT_ERR_SCHEMA, "schema %d: %s", id, perr);
        free(perr);
        srclient_schema_release(w);
        return NULL;
    }
    srclient_json_validator_t *validator = NULL;
    if (type == SRCLIENT_JSON && d->validate) {
        validator = srclient_schema_validator(d->client, w, &d->json_limits, err);
        if (!validator) {
            srclient_avro_reader_free(plan);
            srclient_schema_release(w);
            return NULL;
        }
    }
    e = xcalloc(1, sizeof(*e));
    e->validator = validator;
    e->writer = w;
    e->plan = plan;
    e->own_proto = own_proto;
    e->proto = own_proto ? own_proto : d->reader_proto;
    e->newer_version = newer;
    pthread_mutex_lock(&d->lock);
    decoder_entry_t *had = hmap_get(&d->by_id, &id, sizeof(id));
    if (!had)
        hmap_put(&d->by_id, &id, sizeof(id), e);
    pthread_mutex_unlock(&d->lock);
    if (had) {
        srclient_avro_reader_free(e->plan);
        srclient_proto_reader_free(e->own_proto);
        srclient_json_validator_free(e->validator);
        srclient_schema_release(e->writer);
        free(e);
        e = had;
    }
    return e;
}

/* A JSON Schema record's payload is the JSON text itself: checked to be one
 * JSON value and written compact, on one line (numbers as jansson reads
 * them: integers within 64 bits, reals as doubles); with validate, checked
 * against the writer schema too. */
static int decoder_json(int id, const srclient_json_validator_t *validator, const uint8_t *payload,
                        size_t len, strbuf_t *out, srclient_error_t *err)
{
    json_error_t je;
    json_t *v = json_loadb((const char *)payload, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
    if (!v) {
        decoder_fail(err, SRCLIENT_ERR_DATA, "schema %d: not one JSON value: %s", id, je.text);
        return SRCLIENT_BAD_RECORD;
    }
    char *why = NULL;
    if (validator && srclient_json_validate(validator, v, &why) != 0) {
        decoder_fail(err, SRCLIENT_ERR_DATA, "schema %d: not valid: %s", id, why);
        free(why);
        json_decref(v);
        return SRCLIENT_BAD_RECORD;
    }
    char *text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    json_decref(v);
    if (!text)
        base_oom(0);
    strbuf_puts(out, text);
    free(text);
    return SRCLIENT_DECODED;
}

int srclient_decode(srclient_decoder_t *d, const uint8_t *data, size_t len, strbuf_t *out,
                    srclient_newer_t *newer, srclient_error_t *err)
{
    srclient_frame_t f;
    if (srclient_frame_parse(data, len, &f, err) != 0)
        return SRCLIENT_BAD_RECORD;
    srclient_error_t mine;
    if (!err)
        err = &mine;
    decoder_entry_t *e = decoder_entry(d, f.id, err);
    if (!e) {
        /* An unknown id or an unreadable writer schema is the record's fault;
         * a registry that cannot answer is not, and no mode may skip it. */
        int record = err->code == 40403 || err->code == SRCLIENT_ERR_SCHEMA;
        return record ? SRCLIENT_BAD_RECORD : SRCLIENT_REGISTRY_FAILED;
    }
    if (e->newer_version > 0) {
        if (newer) {
            newer->id = f.id;
            newer->version = e->newer_version;
        }
        decoder_fail(err, 0, "schema id %d is version %d of subject %s, newer than the reader's version %d",
                     f.id, e->newer_version, d->subject, d->reader_version);
        return SRCLIENT_NEWER_SCHEMA;
    }
    char *derr = NULL;
    if (e->proto) {
        if (srclient_proto_decode(e->proto, srclient_schema_proto(e->writer), f.payload, f.len, out, &derr) !=
            0) {
            decoder_fail(err, SRCLIENT_ERR_DATA, "schema %d: %s", f.id, derr);
            free(derr);
            return SRCLIENT_BAD_RECORD;
        }
        return SRCLIENT_DECODED;
    }
    if (!e->plan)
        return decoder_json(f.id, e->validator, f.payload, f.len, out, err);
    if (srclient_avro_decode(e->plan, f.payload, f.len, out, &derr) != 0) {
        decoder_fail(err, SRCLIENT_ERR_DATA, "schema %d: %s", f.id, derr);
        free(derr);
        return SRCLIENT_BAD_RECORD;
    }
    return SRCLIENT_DECODED;
}
