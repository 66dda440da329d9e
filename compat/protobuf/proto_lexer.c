/*
 * proto_lexer: character-level reading of .proto text with the same token
 * rules as Square Wire's SyntaxReader (Confluent's parser): a "word" is any
 * run of [A-Za-z0-9_.-], strings take C escapes and adjacent literals
 * concatenate, comments are whitespace. Every error carries line:column.
 *
 * Errors unwind with longjmp to the parser's entry point, so no function
 * here returns a failure value; the arena owns everything allocated.
 */
#include "compat/protobuf/internal.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void proto_lex_init(proto_lexer_t *lx, const char *text, size_t len, arena_t *arena)
{
    memset(lx, 0, sizeof *lx);
    lx->data = text;
    lx->len = len;
    lx->arena = arena;
    lx->line = 1;
}

void proto_lex_fail_at(proto_lexer_t *lx, int line, int column, const char *fmt, ...)
{
    char reason[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    snprintf(lx->error, sizeof lx->error, "Syntax error at %d:%d: %s", line, column, reason);
    longjmp(lx->fail, 1);
}

int proto_lex_column(const proto_lexer_t *lx)
{
    return (int)(lx->pos - lx->line_start) + 1;
}

static void newline(proto_lexer_t *lx)
{
    lx->line++;
    lx->line_start = lx->pos;
}

static void skip_comment(proto_lexer_t *lx)
{
    int line = lx->line, col = proto_lex_column(lx);
    lx->pos++; /* the '/' */
    if (lx->pos < lx->len && lx->data[lx->pos] == '/') {
        while (lx->pos < lx->len && lx->data[lx->pos] != '\n')
            lx->pos++;
        return;
    }
    if (lx->pos < lx->len && lx->data[lx->pos] == '*') {
        lx->pos++;
        while (lx->pos + 1 < lx->len) {
            if (lx->data[lx->pos] == '*' && lx->data[lx->pos + 1] == '/') {
                lx->pos += 2;
                return;
            }
            if (lx->data[lx->pos++] == '\n')
                newline(lx);
        }
        proto_lex_fail_at(lx, line, col, "unterminated comment");
    }
    proto_lex_fail_at(lx, line, col, "unexpected '/'");
}

static void skip_space(proto_lexer_t *lx)
{
    while (lx->pos < lx->len) {
        char c = lx->data[lx->pos];
        if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
            lx->pos++;
            if (c == '\n')
                newline(lx);
        } else if (c == '/') {
            skip_comment(lx);
        } else {
            return;
        }
    }
}

int proto_lex_at_end(proto_lexer_t *lx)
{
    skip_space(lx);
    return lx->pos >= lx->len;
}

char proto_lex_peek(proto_lexer_t *lx)
{
    skip_space(lx);
    if (lx->pos >= lx->len)
        proto_lex_fail(lx, "unexpected end of file");
    return lx->data[lx->pos];
}

int proto_lex_accept(proto_lexer_t *lx, char c)
{
    if (proto_lex_peek(lx) != c)
        return 0;
    lx->pos++;
    return 1;
}

char proto_lex_char(proto_lexer_t *lx)
{
    char c = proto_lex_peek(lx);
    lx->pos++;
    return c;
}

static const char *printable(char c, char *buf)
{
    if (c >= 0x20 && c < 0x7f)
        snprintf(buf, 8, "'%c'", c);
    else
        snprintf(buf, 8, "0x%02x", (unsigned char)c);
    return buf;
}

void proto_lex_expect(proto_lexer_t *lx, char c)
{
    int line = lx->line;
    skip_space(lx);
    line = lx->line;
    int col = proto_lex_column(lx);
    char got = proto_lex_char(lx);
    if (got != c) {
        char b1[8], b2[8];
        proto_lex_fail_at(lx, line, col, "expected %s but was %s", printable(c, b1), printable(got, b2));
    }
}

static int is_word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '-' || c == '.';
}

const char *proto_lex_word(proto_lexer_t *lx)
{
    skip_space(lx);
    size_t start = lx->pos;
    while (lx->pos < lx->len && is_word_char(lx->data[lx->pos]))
        lx->pos++;
    if (start == lx->pos) {
        if (lx->pos >= lx->len)
            proto_lex_fail(lx, "unexpected end of file");
        char b[8];
        proto_lex_fail(lx, "expected a word but was %s", printable(lx->data[lx->pos], b));
    }
    char *w = arena_strndup(lx->arena, lx->data + start, lx->pos - start);
    if (!w)
        proto_lex_fail(lx, "out of memory");
    return w;
}

const char *proto_lex_name(proto_lexer_t *lx, int *wrapped)
{
    char open = proto_lex_peek(lx);
    if (open != '(' && open != '[') {
        if (wrapped)
            *wrapped = 0;
        return proto_lex_word(lx);
    }
    lx->pos++;
    const char *w = proto_lex_word(lx);
    char close = open == '(' ? ')' : ']';
    if (proto_lex_char(lx) != close)
        proto_lex_fail(lx, "expected '%c'", close);
    if (wrapped)
        *wrapped = open;
    return w;
}

int32_t proto_lex_int(proto_lexer_t *lx)
{
    int line = (skip_space(lx), lx->line), col = proto_lex_column(lx);
    const char *w = proto_lex_word(lx);
    const char *digits = w;
    int base = 10;
    if (w[0] == '0' && (w[1] == 'x' || w[1] == 'X')) {
        digits = w + 2;
        base = 16;
    }
    char *end = NULL;
    errno = 0;
    long long v = *digits ? strtoll(digits, &end, base) : 0;
    /* strtoll accepts leading blanks and '+', which a word never holds; only
     * a complete, in-range number counts (Kotlin's String.toInt). */
    if (!*digits || *end || errno || v < INT32_MIN || v > INT32_MAX || digits[0] == '+')
        proto_lex_fail_at(lx, line, col, "expected an integer but was %s", w);
    return (int32_t)v;
}

/* Appends code point cp as UTF-8: Wire works on Java chars, so "\377" is
 * U+00FF, not the byte 0xFF. */
static void put_code_point(strbuf_t *b, unsigned cp)
{
    if (cp < 0x80) {
        strbuf_putc(b, (char)cp);
    } else if (cp < 0x800) {
        strbuf_putc(b, (char)(0xC0 | (cp >> 6)));
        strbuf_putc(b, (char)(0x80 | (cp & 0x3F)));
    } else {
        strbuf_putc(b, (char)(0xE0 | (cp >> 12)));
        strbuf_putc(b, (char)(0x80 | ((cp >> 6) & 0x3F)));
        strbuf_putc(b, (char)(0x80 | (cp & 0x3F)));
    }
}

static int digit_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static unsigned numeric_escape(proto_lexer_t *lx, int radix, int max_len)
{
    int value = -1;
    for (int i = 0; i < max_len && lx->pos < lx->len; i++) {
        int d = digit_value(lx->data[lx->pos]);
        if (d < 0 || d >= radix)
            break;
        value = value < 0 ? d : value * radix + d;
        lx->pos++;
    }
    if (value < 0)
        proto_lex_fail(lx, "expected a digit after \\x or \\X");
    return (unsigned)value;
}

static void read_escape(proto_lexer_t *lx, strbuf_t *out)
{
    if (lx->pos >= lx->len)
        proto_lex_fail(lx, "unexpected end of file");
    char c = lx->data[lx->pos++];
    switch (c) {
    case 'a': strbuf_putc(out, '\a'); break;
    case 'b': strbuf_putc(out, '\b'); break;
    case 'f': strbuf_putc(out, '\f'); break;
    case 'n': strbuf_putc(out, '\n'); break;
    case 'r': strbuf_putc(out, '\r'); break;
    case 't': strbuf_putc(out, '\t'); break;
    case 'v': strbuf_putc(out, '\v'); break;
    case 'x':
    case 'X': put_code_point(out, numeric_escape(lx, 16, 2)); break;
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7':
        lx->pos--;
        put_code_point(out, numeric_escape(lx, 8, 3));
        break;
    default:
        /* Unknown escapes stand for the character itself ("\"", "\\", "\q"). */
        strbuf_putc(out, c);
        if (c == '\n')
            newline(lx);
    }
}

const char *proto_lex_string(proto_lexer_t *lx, size_t *len)
{
    int line = (skip_space(lx), lx->line), col = proto_lex_column(lx);
    char quote = proto_lex_char(lx);
    if (quote != '"' && quote != '\'')
        proto_lex_fail_at(lx, line, col, "expected quoted string");
    /* The scratch buffer belongs to the lexer so that a failure unwinding
     * from inside an escape does not leak it. */
    strbuf_t *out = &lx->scratch;
    out->len = 0;
    for (;;) {
        if (lx->pos >= lx->len)
            proto_lex_fail_at(lx, line, col, "unterminated string");
        char c = lx->data[lx->pos++];
        if (c == quote) {
            /* Adjacent literals concatenate, as in C. */
            skip_space(lx);
            if (lx->pos < lx->len && (lx->data[lx->pos] == '"' || lx->data[lx->pos] == '\'')) {
                quote = lx->data[lx->pos++];
                continue;
            }
            break;
        }
        if (c == '\\') {
            read_escape(lx, out);
            continue;
        }
        strbuf_putc(out, c);
        if (c == '\n')
            newline(lx);
    }
    if (out->failed)
        proto_lex_fail(lx, "out of memory");
    *len = out->len;
    char *s = arena_strndup(lx->arena, out->data ? out->data : "", out->len);
    if (!s)
        proto_lex_fail(lx, "out of memory");
    return s;
}

const char *proto_lex_data_type(proto_lexer_t *lx, const char *first)
{
    const char *name = first ? first : proto_lex_word(lx);
    if (strcmp(name, "map") == 0 && proto_lex_peek(lx) == '<') {
        lx->pos++;
        if (++lx->depth > PROTO_MAX_DEPTH)
            proto_lex_fail(lx, "nesting deeper than %d levels", PROTO_MAX_DEPTH);
        const char *key = proto_lex_data_type(lx, NULL);
        if (proto_lex_char(lx) != ',')
            proto_lex_fail(lx, "expected ','");
        const char *value = proto_lex_data_type(lx, NULL);
        if (proto_lex_char(lx) != '>')
            proto_lex_fail(lx, "expected '>'");
        lx->depth--;
        const char *t = arena_printf(lx->arena, "map<%s, %s>", key, value);
        if (!t)
            proto_lex_fail(lx, "out of memory");
        return t;
    }
    /* "foo . bar" is one name; the word rule already swallowed unspaced dots. */
    while (proto_lex_peek(lx) == '.') {
        lx->pos++;
        const char *part = proto_lex_word(lx);
        name = arena_printf(lx->arena, "%s.%s", name, part);
        if (!name)
            proto_lex_fail(lx, "out of memory");
    }
    return name;
}
