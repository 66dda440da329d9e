/*
 * http_charset: request bodies in every encoding Confluent's JSON reader
 * reads, made UTF-8 once, at the edge, before a handler sees them.
 *
 * Confluent reads a body with Jackson's JAX-RS provider (rest-utils'
 * JacksonMessageBodyProvider extends JacksonJaxbJsonProvider), whose
 * readFrom hands the raw entity stream to JsonFactory.createParser(InputStream):
 * the Content-Type's `charset=` is never read, and the encoding is detected
 * from the bytes by Jackson's ByteSourceJsonBootstrapper, as RFC 4627
 * section 3 describes (a JSON text starts with two ASCII characters, so the
 * zero bytes among the first four tell UTF-8, UTF-16 and UTF-32 apart), after
 * a byte-order mark when there is one. The same here. A body that is not
 * exactly valid in its encoding is refused with 400: Jackson refuses a
 * truncated UTF-32 unit and a code point above U+10FFFF too, but the JDK
 * decoder it reads UTF-16 with puts U+FFFD in place of an unpaired surrogate
 * or a last odd byte, and its UTF32Reader passes surrogate code points on;
 * we refuse those as well, because a registry must not store a schema text
 * other than the one sent (docs/api.md, "Request bodies").
 *
 * Contents
 *   1. Detection
 *   2. Conversion to UTF-8
 *   3. The call's body
 */
#ifndef SERVER_HTTP_CHARSET_H
#define SERVER_HTTP_CHARSET_H

#include <stddef.h>

#include "server/http.h"

/* ---- 1. Detection ------------------------------------------------------ */

typedef enum http_charset {
    HTTP_CHARSET_UTF8 = 0,
    HTTP_CHARSET_UTF16BE,
    HTTP_CHARSET_UTF16LE,
    HTTP_CHARSET_UTF32BE,
    HTTP_CHARSET_UTF32LE,
    HTTP_CHARSET_UCS4_2143, /* UCS-4 in the byte orders Jackson detects and refuses */
    HTTP_CHARSET_UCS4_3412,
} http_charset_t;

/*
 * The encoding of a JSON text from its first four bytes (fewer: the first
 * two; fewer still: UTF-8), a byte-order mark first. *bom is set to the
 * length of the mark, which is not part of the text.
 */
http_charset_t http_charset_detect(const char *body, size_t len, size_t *bom);

/* "UTF-8", "UTF-16BE", ... for messages. */
const char *http_charset_name(http_charset_t cs);

/* ---- 2. Conversion ----------------------------------------------------- */

/*
 * Converts text (without its byte-order mark) from cs, one of the UTF-16
 * and UTF-32 forms, to UTF-8: *out is malloc'd (NUL-terminated, *out_len
 * without the NUL). Returns 0, or -1 with *out NULL and why in
 * error[0..error_size). UTF-8 is not converted: it is validated where it
 * is parsed.
 */
int http_charset_to_utf8(http_charset_t cs, const char *text, size_t len, char **out, size_t *out_len,
                         char *error, size_t error_size);

/* ---- 3. The call's body ------------------------------------------------ */

/*
 * Makes the body of a POST or PUT UTF-8 without a byte-order mark: a UTF-8
 * mark is skipped, UTF-16 and UTF-32 are converted into c->body_utf8 (the
 * call owns it) and c->body points there. Other methods' bodies are left as
 * they are: no handler reads them, as no Confluent resource does. Returns
 * 0, or -1 with a 400 reply in c.
 */
int http_charset_body(http_call_t *c);

#endif
