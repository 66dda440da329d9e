/*
 * avro_fingerprint: the Avro specification's Parsing Canonical Form and its
 * 64-bit Rabin fingerprint (CRC-64-AVRO), as SchemaNormalization computes
 * them: full names, only the attributes that matter for reading, names and
 * symbols written unescaped.
 */
#include "compat/avro/internal.h"

#include <pthread.h>

#define FP64_EMPTY 0xc15d213aa4d7a795ull

typedef struct pcf_writer {
    strbuf_t *b;
    hmap_t seen; /* full names written so far */
    int depth;
} pcf_writer_t;

static void pcf_node(pcf_writer_t *w, const avro_node_t *n);

static void pcf_quoted_raw(strbuf_t *b, const char *s)
{
    strbuf_putc(b, '"');
    strbuf_puts(b, s);
    strbuf_putc(b, '"');
}

static void pcf_record_fields(pcf_writer_t *w, const avro_node_t *n)
{
    strbuf_puts(w->b, ",\"fields\":[");
    for (size_t i = 0; i < n->u.record.n; i++) {
        if (i)
            strbuf_putc(w->b, ',');
        strbuf_puts(w->b, "{\"name\":");
        pcf_quoted_raw(w->b, n->u.record.fields[i].name);
        strbuf_puts(w->b, ",\"type\":");
        pcf_node(w, n->u.record.fields[i].type);
        strbuf_putc(w->b, '}');
    }
    strbuf_putc(w->b, ']');
}

static void pcf_enum_symbols(strbuf_t *b, const avro_node_t *n)
{
    strbuf_puts(b, ",\"symbols\":[");
    for (size_t i = 0; i < n->u.enm.n; i++) {
        if (i)
            strbuf_putc(b, ',');
        pcf_quoted_raw(b, n->u.enm.symbols[i]);
    }
    strbuf_putc(b, ']');
}

static void pcf_named(pcf_writer_t *w, const avro_node_t *n)
{
    const char *full = n->named->name.full;
    if (hmap_gets(&w->seen, full)) {
        pcf_quoted_raw(w->b, full);
        return;
    }
    if (hmap_puts_try(&w->seen, full, (void *)n, NULL) != 0)
        w->b->failed = 1;
    strbuf_puts(w->b, "{\"name\":");
    pcf_quoted_raw(w->b, full);
    strbuf_puts(w->b, ",\"type\":");
    pcf_quoted_raw(w->b, avro_kind_name(n->kind));
    if (n->kind == AVRO_KIND_ENUM)
        pcf_enum_symbols(w->b, n);
    else if (n->kind == AVRO_KIND_FIXED)
        strbuf_printf(w->b, ",\"size\":%d", n->u.fixed.size);
    else
        pcf_record_fields(w, n);
    strbuf_putc(w->b, '}');
}

static void pcf_kind(pcf_writer_t *w, const avro_node_t *n)
{
    switch (n->kind) {
    case AVRO_KIND_UNION:
        strbuf_putc(w->b, '[');
        for (size_t i = 0; i < n->u.uni.n; i++) {
            if (i)
                strbuf_putc(w->b, ',');
            pcf_node(w, n->u.uni.branches[i]);
        }
        strbuf_putc(w->b, ']');
        break;
    case AVRO_KIND_ARRAY:
    case AVRO_KIND_MAP:
        strbuf_puts(w->b, n->kind == AVRO_KIND_ARRAY ? "{\"type\":\"array\",\"items\":"
                                                     : "{\"type\":\"map\",\"values\":");
        pcf_node(w, n->u.items);
        strbuf_putc(w->b, '}');
        break;
    case AVRO_KIND_RECORD:
    case AVRO_KIND_ENUM:
    case AVRO_KIND_FIXED: pcf_named(w, n); break;
    default: pcf_quoted_raw(w->b, avro_kind_name(n->kind)); break;
    }
}

static void pcf_node(pcf_writer_t *w, const avro_node_t *n)
{
    if (w->depth >= 4 * AVRO_MAX_DEPTH) {
        w->b->failed = 1;
        return;
    }
    w->depth++;
    pcf_kind(w, n);
    w->depth--;
}

void avro_write_parsing_form(strbuf_t *b, const avro_node_t *root)
{
    pcf_writer_t w = {.b = b};
    pcf_node(&w, root);
    hmap_clear(&w.seen);
}

/* ---- CRC-64-AVRO ------------------------------------------------------------------ */

static uint64_t fp64_table[256];
static pthread_once_t fp64_once = PTHREAD_ONCE_INIT;

static void fp64_init(void)
{
    for (int i = 0; i < 256; i++) {
        uint64_t fp = (uint64_t)i;
        for (int j = 0; j < 8; j++)
            fp = (fp >> 1) ^ (FP64_EMPTY & (0 - (fp & 1)));
        fp64_table[i] = fp;
    }
}

uint64_t avro_fingerprint64(const void *data, size_t len)
{
    pthread_once(&fp64_once, fp64_init);
    const unsigned char *p = data;
    uint64_t fp = FP64_EMPTY;
    for (size_t i = 0; i < len; i++)
        fp = (fp >> 8) ^ fp64_table[(fp ^ p[i]) & 0xff];
    return fp;
}
