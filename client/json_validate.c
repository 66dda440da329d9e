/*
 * json_validate: JSON Schema instance validation (client.h, section 3c), for
 * `decode --validate` and `encode --validate` (docs/decoding.md, section 10).
 * compat/jsonschema compares schemas and never validates a value; this file
 * validates values and compares nothing, over jansson trees.
 *
 * Contents
 *   1. The validator: documents, $id and $anchor, patterns
 *   2. Values: equality, code points, pointers
 *   3. Patterns: ECMA-262 text as a POSIX extended regex
 *   4. Keywords
 *   5. Entry points
 *
 * The keywords of drafts 4, 6, 7, 2019-09 and 2020-12 that real schemas use
 * (docs/decoding.md lists them and the gaps); the draft is the root's
 * $schema, draft 7 without one (Confluent's JsonSchema default). format is
 * an annotation (not asserted, as the 2019-09 and 2020-12 default
 * vocabularies say and python-jsonschema does without a format checker).
 * Bounded: the nesting of schema applications (a $ref cycle that consumes
 * no input included) and the number of keyword evaluations per instance
 * (anyOf inside anyOf multiplies) are limits, and a value over one is
 * invalid with a message naming it.
 */
#include "client/client.h"

#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "base/hmap.h"

/* ---- 1. The validator ------------------------------------------------------- */

typedef enum jv_draft {
    JV_DRAFT4 = 4,
    JV_DRAFT6 = 6,
    JV_DRAFT7 = 7,
    JV_DRAFT2019 = 2019,
    JV_DRAFT2020 = 2020
} jv_draft_t;

typedef struct jv_pattern {
    int ok;
    regex_t re;
    char *why; /* when !ok */
} jv_pattern_t;

struct srclient_json_validator {
    json_t *root;
    jv_draft_t draft;
    json_t **docs; /* the root, then each reference */
    char **names;  /* the reference names ("" for the root) */
    size_t ndocs;
    hmap_t by_uri;   /* "$id" (as written and resolved), "name#anchor" -> json_t * (borrowed) */
    hmap_t patterns; /* pattern text -> jv_pattern_t * */
    hmap_t doc_of;   /* json_t * of a document's root -> its index + 1 */
    size_t max_depth, max_steps;
};

static jv_draft_t jv_draft_of(const json_t *root)
{
    const char *s = json_string_value(json_object_get(root, "$schema"));
    if (!s)
        return JV_DRAFT7;
    if (strstr(s, "draft-04"))
        return JV_DRAFT4;
    if (strstr(s, "draft-06"))
        return JV_DRAFT6;
    if (strstr(s, "2019-09"))
        return JV_DRAFT2019;
    if (strstr(s, "2020-12"))
        return JV_DRAFT2020;
    return JV_DRAFT7;
}

static int jv_compile(const char *ecma, regex_t *re, char **why);

static void jv_add_pattern(srclient_json_validator_t *v, const char *text)
{
    if (hmap_get(&v->patterns, text, strlen(text)))
        return;
    jv_pattern_t *p = xcalloc(1, sizeof(*p));
    p->ok = jv_compile(text, &p->re, &p->why) == 0;
    hmap_put(&v->patterns, text, strlen(text), p);
}

/* "dir/a.json" against a base "http://x/dir/b.json": the base up to its last '/'. */
static char *jv_resolve(const char *base, const char *ref)
{
    if (!base || !*base || strstr(ref, "://") || *ref == '#')
        return xstrdup(ref);
    const char *slash = strrchr(base, '/');
    if (!slash)
        return xstrdup(ref);
    return xasprintf("%.*s%s", (int)(slash - base + 1), base, ref);
}

/* Every subschema position's $id and $anchor, and every pattern, of one
 * document (depth bounded by jansson's parser). */
static void jv_index(srclient_json_validator_t *v, const char *docname, const char *base, json_t *node,
                     size_t depth)
{
    if (depth > 512)
        return;
    if (json_is_array(node)) {
        size_t i;
        json_t *e;
        json_array_foreach(node, i, e)
        {
            jv_index(v, docname, base, e, depth + 1);
        }
        return;
    }
    if (!json_is_object(node))
        return;
    const char *id = json_string_value(json_object_get(node, v->draft == JV_DRAFT4 ? "id" : "$id"));
    char *mybase = NULL;
    if (id) {
        if (*id == '#') {
            /* draft 4-7: "$id": "#name" is a plain-name anchor. */
            char *k = xasprintf("%s%s", docname, id);
            hmap_put(&v->by_uri, k, strlen(k), node);
            free(k);
        } else {
            mybase = jv_resolve(base, id);
            char *hash = strchr(mybase, '#');
            if (hash && !hash[1])
                *hash = 0;
            hmap_put(&v->by_uri, id, strlen(id), node);
            hmap_put(&v->by_uri, mybase, strlen(mybase), node);
            base = mybase;
        }
    }
    const char *anchor = json_string_value(json_object_get(node, "$anchor"));
    if (!anchor)
        anchor = json_string_value(json_object_get(node, "$dynamicAnchor"));
    if (anchor) {
        char *k = xasprintf("%s#%s", docname, anchor);
        hmap_put(&v->by_uri, k, strlen(k), node);
        free(k);
    }
    const char *pattern = json_string_value(json_object_get(node, "pattern"));
    if (pattern)
        jv_add_pattern(v, pattern);
    json_t *pp = json_object_get(node, "patternProperties");
    const char *key;
    json_t *val;
    if (json_is_object(pp))
        json_object_foreach(pp, key, val)
        {
            jv_add_pattern(v, key);
        }
    json_object_foreach(node, key, val)
    {
        jv_index(v, docname, base, val, depth + 1);
    }
    free(mybase);
}

static void jv_add_doc(srclient_json_validator_t *v, const char *name, json_t *doc)
{
    v->docs = xreallocarray(v->docs, v->ndocs + 1, sizeof(*v->docs));
    v->names = xreallocarray(v->names, v->ndocs + 1, sizeof(*v->names));
    v->docs[v->ndocs] = doc;
    v->names[v->ndocs] = xstrdup(name);
    v->ndocs++;
    hmap_put(&v->doc_of, &doc, sizeof(doc), (void *)v->ndocs);
    if (*name)
        hmap_put(&v->by_uri, name, strlen(name), doc);
    const char *id = json_is_object(doc) ? json_string_value(json_object_get(doc, "$id")) : NULL;
    jv_index(v, name, id, doc, 0);
}

/* ---- 2. Values -------------------------------------------------------------- */

/* JSON equality as the specification defines it: numbers by value (1 is 1.0),
 * booleans never numbers, objects whatever their key order. */
static int jv_equal(const json_t *a, const json_t *b)
{
    if (json_is_number(a) && json_is_number(b)) {
        if (json_is_integer(a) && json_is_integer(b))
            return json_integer_value(a) == json_integer_value(b);
        return json_number_value(a) == json_number_value(b);
    }
    if (json_typeof(a) != json_typeof(b))
        return 0;
    if (json_is_array(a)) {
        if (json_array_size(a) != json_array_size(b))
            return 0;
        for (size_t i = 0; i < json_array_size(a); i++)
            if (!jv_equal(json_array_get(a, i), json_array_get(b, i)))
                return 0;
        return 1;
    }
    if (json_is_object(a)) {
        if (json_object_size(a) != json_object_size(b))
            return 0;
        const char *k;
        json_t *x;
        json_object_foreach((json_t *)a, k, x)
        {
            json_t *y = json_object_get(b, k);
            if (!y || !jv_equal(x, y))
                return 0;
        }
        return 1;
    }
    if (json_is_string(a))
        return json_string_length(a) == json_string_length(b) &&
               memcmp(json_string_value(a), json_string_value(b), json_string_length(a)) == 0;
    return 1; /* null, true, false: the type is the value */
}

static size_t jv_code_points(const char *s, size_t n)
{
    size_t cps = 0;
    for (size_t i = 0; i < n; i++)
        cps += ((unsigned char)s[i] & 0xc0) != 0x80;
    return cps;
}

/* A schema node by JSON pointer ("/definitions/a~1b") from doc, or NULL. */
static json_t *jv_pointer(json_t *doc, const char *ptr)
{
    json_t *at = doc;
    while (*ptr && at) {
        if (*ptr != '/')
            return NULL;
        ptr++;
        strbuf_t tok = {0};
        while (*ptr && *ptr != '/') {
            if (ptr[0] == '~' && ptr[1] == '1') {
                strbuf_putc(&tok, '/');
                ptr += 2;
            } else if (ptr[0] == '~' && ptr[1] == '0') {
                strbuf_putc(&tok, '~');
                ptr += 2;
            } else if (ptr[0] == '%' && ptr[1] && ptr[2]) {
                /* A URI fragment: percent-escapes. */
                unsigned c;
                if (sscanf(ptr + 1, "%2x", &c) != 1)
                    c = '%';
                strbuf_putc(&tok, (char)c);
                ptr += 3;
            } else
                strbuf_putc(&tok, *ptr++);
        }
        const char *t = tok.data ? tok.data : "";
        if (json_is_object(at))
            at = json_object_get(at, t);
        else if (json_is_array(at)) {
            char *end;
            unsigned long i = strtoul(t, &end, 10);
            at = *t && !*end ? json_array_get(at, i) : NULL;
        } else
            at = NULL;
        strbuf_free(&tok);
    }
    return at;
}

/* ---- 3. Patterns ------------------------------------------------------------ */

/*
 * ECMA-262 as POSIX ERE (regcomp, matched anywhere as ECMA's test() does):
 * \d \w \s and their negations become brackets, (?: a plain group, a lazy
 * quantifier's ? is dropped (it changes which match, never whether one
 * exists), \uXXXX and \xXX their UTF-8 bytes, the other escaped punctuation
 * itself. A bracket is rebuilt, because POSIX brackets have no escapes: an
 * escaped ] goes first, ^ after the first place, - last, \ is itself.
 * Refused: lookaround, back-references, named groups, \p{...}, \D \W \S
 * inside a bracket, non-ASCII inside a bracket. Matching is over bytes: a
 * multibyte character is one atom (a group), but "." and a negated bracket
 * match one byte of it (docs/decoding.md, section 10).
 */
typedef struct jv_re {
    strbuf_t out;        /* the POSIX pattern */
    strbuf_t br;         /* the bracket being read */
    int in_bracket;      /* 1 inside [...] */
    int negated;         /* [^...] */
    int rb, caret, dash; /* escaped ], ^, - seen in the bracket */
    char *why;
} jv_re_t;

/* One character's UTF-8 bytes as one atom: a group when it is more than one byte. */
static void jv_put_char(strbuf_t *b, const char *u, size_t n)
{
    if (n > 1)
        strbuf_putc(b, '(');
    strbuf_put(b, u, n);
    if (n > 1)
        strbuf_putc(b, ')');
}

/* A literal ASCII character, in or out of a bracket. */
static void jv_re_literal(jv_re_t *t, char c)
{
    if (t->in_bracket) {
        if (c == ']')
            t->rb = 1;
        else if (c == '^')
            t->caret = 1;
        else if (c == '-')
            t->dash = 1;
        else
            strbuf_putc(&t->br, c);
        return;
    }
    if (strchr("^$.[]()|*+?{}\\", c))
        strbuf_putc(&t->out, '\\');
    strbuf_putc(&t->out, c);
}

static int jv_re_fail(jv_re_t *t, char *why)
{
    if (!t->why)
        t->why = why;
    else
        free(why);
    return -1;
}

/* The bracket read, as POSIX wants it. */
static void jv_re_close(jv_re_t *t)
{
    strbuf_t *o = &t->out;
    if (!t->negated && !t->rb && !t->dash && t->caret && t->br.len == 0) {
        strbuf_puts(o, "\\^"); /* [\^] alone: ^ cannot be a bracket's only member */
    } else {
        strbuf_putc(o, '[');
        if (t->negated)
            strbuf_putc(o, '^');
        if (t->rb)
            strbuf_putc(o, ']');
        strbuf_put(o, t->br.data ? t->br.data : "", t->br.len);
        if (t->caret)
            strbuf_putc(o, '^');
        if (t->dash)
            strbuf_putc(o, '-');
        strbuf_putc(o, ']');
    }
    t->in_bracket = t->negated = t->rb = t->caret = t->dash = 0;
    t->br.len = 0;
}

/* The escape at s[*i] (after its backslash). */
static int jv_re_escape(jv_re_t *t, const char *s, size_t *i)
{
    char e = s[*i];
    strbuf_t *o = t->in_bracket ? &t->br : &t->out;
    switch (e) {
    case 'd': strbuf_puts(o, t->in_bracket ? "0-9" : "[0-9]"); return 0;
    case 'w': strbuf_puts(o, t->in_bracket ? "A-Za-z0-9_" : "[A-Za-z0-9_]"); return 0;
    case 's': strbuf_puts(o, t->in_bracket ? "[:space:]" : "[[:space:]]"); return 0;
    case 'D':
    case 'W':
    case 'S':
        if (t->in_bracket)
            return jv_re_fail(t, xasprintf("\\%c inside a bracket has no POSIX form", e));
        strbuf_puts(o, e == 'D' ? "[^0-9]" : e == 'W' ? "[^A-Za-z0-9_]" : "[^[:space:]]");
        return 0;
    case 'b':
    case 'B':
        if (t->in_bracket)
            return jv_re_fail(t, xstrdup("\\b inside a bracket has no POSIX form"));
        strbuf_puts(o, e == 'b' ? "\\b" : "\\B");
        return 0;
    case 'n': jv_re_literal(t, '\n'); return 0;
    case 't': jv_re_literal(t, '\t'); return 0;
    case 'r': jv_re_literal(t, '\r'); return 0;
    case 'f': jv_re_literal(t, '\f'); return 0;
    case 'v': jv_re_literal(t, '\v'); return 0;
    case 'u':
    case 'x': {
        int digits = e == 'u' ? 4 : 2;
        unsigned cp = 0;
        for (int k = 1; k <= digits; k++) {
            char h = s[*i + (size_t)k];
            int d = h >= '0' && h <= '9'   ? h - '0'
                    : h >= 'a' && h <= 'f' ? h - 'a' + 10
                    : h >= 'A' && h <= 'F' ? h - 'A' + 10
                                           : -1;
            if (d < 0)
                return jv_re_fail(t, xasprintf("\\%c needs %d hex digits", e, digits));
            cp = cp * 16 + (unsigned)d;
        }
        *i += (size_t)digits;
        if (cp == 0)
            return jv_re_fail(t, xstrdup("a NUL in a pattern"));
        if (cp < 0x80) {
            jv_re_literal(t, (char)cp);
            return 0;
        }
        if (t->in_bracket)
            return jv_re_fail(t, xstrdup("a non-ASCII character in a bracket (matching is over bytes)"));
        char u[3];
        size_t n = cp < 0x800 ? 2 : 3;
        if (n == 2) {
            u[0] = (char)(0xc0 | cp >> 6);
            u[1] = (char)(0x80 | (cp & 0x3f));
        } else {
            u[0] = (char)(0xe0 | cp >> 12);
            u[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
            u[2] = (char)(0x80 | (cp & 0x3f));
        }
        jv_put_char(&t->out, u, n);
        return 0;
    }
    default:
        if ((e >= '0' && e <= '9') || e == 'k' || e == 'p' || e == 'P')
            return jv_re_fail(t, xasprintf("\\%c (back-references, \\p classes) has no POSIX form", e));
        if ((e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z') || (unsigned char)e >= 0x80)
            return jv_re_fail(t, xasprintf("the escape \\%c has no POSIX form", e));
        jv_re_literal(t, e); /* escaped punctuation: itself */
        return 0;
    }
}

static int jv_compile(const char *s, regex_t *re, char **why)
{
    jv_re_t t = {0};
    int rc = 0;
    for (size_t i = 0; s[i] && rc == 0; i++) {
        char ch = s[i];
        if (ch == '\\') {
            if (!s[i + 1]) {
                rc = jv_re_fail(&t, xstrdup("a pattern ending in a backslash"));
                break;
            }
            i++;
            rc = jv_re_escape(&t, s, &i);
        } else if ((unsigned char)ch >= 0x80) {
            /* A multibyte character is one atom: a quantifier after it applies to all its bytes. */
            size_t n = 1;
            while (n < 4 && ((unsigned char)s[i + n] & 0xc0) == 0x80)
                n++;
            if (t.in_bracket)
                rc = jv_re_fail(&t, xstrdup("a non-ASCII character in a bracket (matching is over bytes)"));
            else
                jv_put_char(&t.out, s + i, n);
            i += n - 1;
        } else if (t.in_bracket) {
            if (ch == ']')
                jv_re_close(&t);
            else if (ch == '[' && s[i + 1] == ':')
                rc = jv_re_fail(&t, xstrdup("[: inside a bracket (a POSIX class) is not ECMA-262"));
            else
                strbuf_putc(&t.br, ch); /* a literal or a range's - */
        } else if (ch == '[') {
            t.in_bracket = 1;
            if (s[i + 1] == '^') {
                t.negated = 1;
                i++;
            }
            if (s[i + 1] == ']')
                /* ECMA's [] and [^] match nothing / anything; POSIX has no such bracket. */
                rc = jv_re_fail(&t, xstrdup("an empty bracket"));
        } else if (ch == '(' && s[i + 1] == '?') {
            if (s[i + 2] == ':') {
                strbuf_putc(&t.out, '(');
                i += 2;
            } else
                rc = jv_re_fail(&t, xstrdup("lookaround and named groups have no POSIX form"));
        } else if (ch == '?' && i > 0 && strchr("*+?}", s[i - 1]) && !(i > 1 && s[i - 2] == '\\'))
            continue; /* a lazy quantifier */
        else
            strbuf_putc(&t.out, ch);
    }
    if (rc == 0 && t.in_bracket)
        rc = jv_re_fail(&t, xstrdup("an unclosed bracket"));
    if (t.out.failed || t.br.failed)
        base_oom(0);
    if (rc == 0) {
        int r = regcomp(re, t.out.data ? t.out.data : "", REG_EXTENDED | REG_NOSUB);
        if (r != 0) {
            char msg[256];
            regerror(r, re, msg, sizeof(msg));
            t.why = xstrdup(msg);
            rc = -1;
        }
    }
    strbuf_free(&t.out);
    strbuf_free(&t.br);
    if (rc != 0)
        *why = t.why;
    return rc;
}

/* ---- 4. Keywords ------------------------------------------------------------ */

typedef struct jv_ctx {
    const srclient_json_validator_t *v;
    size_t depth, steps;
    int quiet;     /* > 0 inside anyOf, oneOf, not, if: failures there are not the error */
    strbuf_t path; /* the instance's JSON pointer */
    char *error;   /* the first error: "/a/0: ..." */
    int limit;     /* a limit was reached: the instance is invalid, whatever the applicator */
} jv_ctx_t;

static int jv_fail(jv_ctx_t *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int jv_fail(jv_ctx_t *c, const char *fmt, ...)
{
    if (c->quiet && !c->limit)
        return 1;
    if (!c->error) {
        va_list ap;
        va_start(ap, fmt);
        char *msg = xvasprintf(fmt, ap);
        va_end(ap);
        c->error = xasprintf("%s: %s", c->path.len ? c->path.data : "\"\" (the root)", msg);
        free(msg);
    }
    return 1;
}

static size_t jv_push(jv_ctx_t *c, const char *key)
{
    size_t at = c->path.len;
    strbuf_putc(&c->path, '/');
    for (; *key; key++) {
        if (*key == '~')
            strbuf_puts(&c->path, "~0");
        else if (*key == '/')
            strbuf_puts(&c->path, "~1");
        else
            strbuf_putc(&c->path, *key);
    }
    if (c->path.failed)
        base_oom(0);
    return at;
}

static size_t jv_push_index(jv_ctx_t *c, size_t i)
{
    char k[32];
    snprintf(k, sizeof(k), "%zu", i);
    return jv_push(c, k);
}

static void jv_pop(jv_ctx_t *c, size_t at)
{
    c->path.len = at;
    if (c->path.data)
        c->path.data[at] = 0;
}

static const char *jv_type_name(const json_t *x)
{
    switch (json_typeof(x)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER:
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

static int jv_is_type(const jv_ctx_t *c, const json_t *x, const char *type)
{
    if (strcmp(type, "integer") == 0) {
        if (json_is_integer(x))
            return 1;
        /* draft 6 on: 1.0 is an integer; draft 4: integers are written without a fraction. */
        return c->v->draft != JV_DRAFT4 && json_is_real(x) &&
               json_real_value(x) == floor(json_real_value(x)) && isfinite(json_real_value(x));
    }
    if (strcmp(type, "number") == 0)
        return json_is_number(x);
    if (strcmp(type, "string") == 0)
        return json_is_string(x);
    if (strcmp(type, "object") == 0)
        return json_is_object(x);
    if (strcmp(type, "array") == 0)
        return json_is_array(x);
    if (strcmp(type, "boolean") == 0)
        return json_is_boolean(x);
    if (strcmp(type, "null") == 0)
        return json_is_null(x);
    return 0;
}

static int jv_eval(jv_ctx_t *c, json_t *schema, size_t doc, const json_t *x);

/* A subschema in quiet: 0 valid, 1 not (limits still count). */
static int jv_quiet(jv_ctx_t *c, json_t *schema, size_t doc, const json_t *x)
{
    c->quiet++;
    int r = jv_eval(c, schema, doc, x);
    c->quiet--;
    return r;
}

static int jv_ref(jv_ctx_t *c, const char *ref, size_t doc, const json_t *x)
{
    const srclient_json_validator_t *v = c->v;
    const char *hash = strchr(ref, '#');
    size_t target = doc;
    json_t *node = NULL;
    if (hash != ref) {
        /* Another document: a reference by its name, or a $id. */
        size_t n = hash ? (size_t)(hash - ref) : strlen(ref);
        node = hmap_get(&v->by_uri, ref, n);
        if (!node) {
            const char *base = json_string_value(json_object_get(v->docs[doc], "$id"));
            char *tmp = xasprintf("%.*s", (int)n, ref);
            char *full = jv_resolve(base, tmp);
            node = hmap_get(&v->by_uri, full, strlen(full));
            free(full);
            free(tmp);
        }
        if (!node)
            return jv_fail(c, "$ref \"%s\" does not resolve", ref);
        size_t d = (size_t)hmap_get(&v->doc_of, &node, sizeof(node));
        if (d)
            target = d - 1;
    } else
        node = v->docs[doc];
    if (hash && hash[1]) {
        if (hash[1] == '/')
            node = jv_pointer(node, hash + 1);
        else {
            char *k = xasprintf("%s%s", v->names[target], hash);
            node = hmap_get(&v->by_uri, k, strlen(k));
            free(k);
        }
        if (!node)
            return jv_fail(c, "$ref \"%s\" does not resolve", ref);
    }
    return jv_eval(c, node, target, x);
}

static int jv_numbers(jv_ctx_t *c, json_t *s, const json_t *x)
{
    double d = json_number_value(x);
    int bad = 0;
    json_t *k;
    int old_exclusive = c->v->draft == JV_DRAFT4;
    if (json_is_number(k = json_object_get(s, "minimum"))) {
        int excl = old_exclusive && json_is_true(json_object_get(s, "exclusiveMinimum"));
        int lt = json_is_integer(k) && json_is_integer(x) ? json_integer_value(x) < json_integer_value(k)
                                                          : d < json_number_value(k);
        int eq = json_is_integer(k) && json_is_integer(x) ? json_integer_value(x) == json_integer_value(k)
                                                          : d == json_number_value(k);
        if (lt || (excl && eq))
            bad |= jv_fail(c, "%.17g is less than %sthe minimum %.17g", d, excl ? "or equal to " : "",
                           json_number_value(k));
    }
    if (json_is_number(k = json_object_get(s, "maximum"))) {
        int excl = old_exclusive && json_is_true(json_object_get(s, "exclusiveMaximum"));
        int gt = json_is_integer(k) && json_is_integer(x) ? json_integer_value(x) > json_integer_value(k)
                                                          : d > json_number_value(k);
        int eq = json_is_integer(k) && json_is_integer(x) ? json_integer_value(x) == json_integer_value(k)
                                                          : d == json_number_value(k);
        if (gt || (excl && eq))
            bad |= jv_fail(c, "%.17g is greater than %sthe maximum %.17g", d, excl ? "or equal to " : "",
                           json_number_value(k));
    }
    if (!old_exclusive && json_is_number(k = json_object_get(s, "exclusiveMinimum")) &&
        !(json_is_integer(k) && json_is_integer(x) ? json_integer_value(x) > json_integer_value(k)
                                                   : d > json_number_value(k)))
        bad |= jv_fail(c, "%.17g is not greater than the exclusive minimum %.17g", d, json_number_value(k));
    if (!old_exclusive && json_is_number(k = json_object_get(s, "exclusiveMaximum")) &&
        !(json_is_integer(k) && json_is_integer(x) ? json_integer_value(x) < json_integer_value(k)
                                                   : d < json_number_value(k)))
        bad |= jv_fail(c, "%.17g is not less than the exclusive maximum %.17g", d, json_number_value(k));
    if (json_is_number(k = json_object_get(s, "multipleOf")) && json_number_value(k) > 0) {
        int failed;
        if (json_is_integer(k) && json_is_integer(x))
            failed = json_integer_value(x) % json_integer_value(k) != 0;
        else if (json_is_integer(k))
            failed = fmod(d, json_number_value(k)) != 0;
        else {
            /* As python-jsonschema: the quotient must be integral. */
            double q = d / json_number_value(k);
            failed = !isfinite(q) || q != trunc(q);
        }
        if (failed)
            bad |= jv_fail(c, "%.17g is not a multiple of %.17g", d, json_number_value(k));
    }
    return bad;
}

static int jv_string(jv_ctx_t *c, json_t *s, const json_t *x)
{
    int bad = 0;
    size_t cps = jv_code_points(json_string_value(x), json_string_length(x));
    json_t *k;
    if (json_is_number(k = json_object_get(s, "minLength")) && (double)cps < json_number_value(k))
        bad |= jv_fail(c, "a string of %zu characters is shorter than minLength %.17g", cps,
                       json_number_value(k));
    if (json_is_number(k = json_object_get(s, "maxLength")) && (double)cps > json_number_value(k))
        bad |= jv_fail(c, "a string of %zu characters is longer than maxLength %.17g", cps,
                       json_number_value(k));
    const char *pattern = json_string_value(json_object_get(s, "pattern"));
    if (pattern) {
        const jv_pattern_t *p = hmap_get(&c->v->patterns, pattern, strlen(pattern));
        if (!p || !p->ok) {
            c->limit = 1;
            bad |= jv_fail(c, "pattern \"%s\" is not supported: %s", pattern, p ? p->why : "not indexed");
        } else if (regexec(&p->re, json_string_value(x), 0, NULL, 0) != 0)
            bad |= jv_fail(c, "does not match the pattern \"%s\"", pattern);
    }
    return bad;
}

static int jv_property_matches(jv_ctx_t *c, const char *pattern, const char *key, int *unsupported)
{
    const jv_pattern_t *p = hmap_get(&c->v->patterns, pattern, strlen(pattern));
    if (!p || !p->ok) {
        *unsupported = 1;
        return 0;
    }
    return regexec(&p->re, key, 0, NULL, 0) == 0;
}

static int jv_object(jv_ctx_t *c, json_t *s, size_t doc, const json_t *x)
{
    int bad = 0;
    json_t *k;
    const char *key;
    json_t *val;
    if (json_is_array(k = json_object_get(s, "required"))) {
        size_t i;
        json_t *name;
        json_array_foreach(k, i, name)
        {
            if (json_is_string(name) && !json_object_get(x, json_string_value(name)))
                bad |= jv_fail(c, "the required property \"%s\" is missing", json_string_value(name));
        }
    }
    if (json_is_number(k = json_object_get(s, "minProperties")) &&
        (double)json_object_size(x) < json_number_value(k))
        bad |= jv_fail(c, "%zu properties, fewer than minProperties %.17g", json_object_size(x),
                       json_number_value(k));
    if (json_is_number(k = json_object_get(s, "maxProperties")) &&
        (double)json_object_size(x) > json_number_value(k))
        bad |= jv_fail(c, "%zu properties, more than maxProperties %.17g", json_object_size(x),
                       json_number_value(k));
    json_t *props = json_object_get(s, "properties"), *pp = json_object_get(s, "patternProperties");
    json_t *additional = json_object_get(s, "additionalProperties"),
           *names = c->v->draft != JV_DRAFT4 ? json_object_get(s, "propertyNames") : NULL;
    json_object_foreach((json_t *)x, key, val)
    {
        size_t at = jv_push(c, key);
        int matched = 0, unsupported = 0;
        json_t *sub = json_is_object(props) ? json_object_get(props, key) : NULL;
        if (sub) {
            matched = 1;
            bad |= jv_eval(c, sub, doc, val);
        }
        if (json_is_object(pp)) {
            const char *pat;
            json_t *psub;
            json_object_foreach(pp, pat, psub)
            {
                if (jv_property_matches(c, pat, key, &unsupported)) {
                    matched = 1;
                    bad |= jv_eval(c, psub, doc, val);
                }
            }
        }
        if (unsupported) {
            c->limit = 1;
            bad |= jv_fail(c, "a patternProperties pattern is not supported");
        }
        if (!matched && additional) {
            if (json_is_false(additional))
                bad |= jv_fail(c, "an additional property, not allowed");
            else
                bad |= jv_eval(c, additional, doc, val);
        }
        if (names) {
            json_t *kv = json_string(key);
            if (jv_quiet(c, names, doc, kv))
                bad |= jv_fail(c, "the property name does not match propertyNames");
            json_decref(kv);
        }
        jv_pop(c, at);
        if (bad && c->limit)
            return bad;
    }
    /* dependencies (drafts 4-7), dependentRequired and dependentSchemas (2019-09 on). */
    static const char *const dep_keys[] = {"dependencies", "dependentRequired", "dependentSchemas"};
    for (size_t d = 0; d < 3; d++) {
        /* Each in the drafts that have it, as python-jsonschema's validators. */
        int modern = c->v->draft >= JV_DRAFT2019;
        json_t *deps = (d == 0) != modern ? json_object_get(s, dep_keys[d]) : NULL;
        if (!json_is_object(deps))
            continue;
        json_object_foreach(deps, key, val)
        {
            if (!json_object_get(x, key))
                continue;
            if (json_is_array(val)) {
                size_t i;
                json_t *name;
                json_array_foreach(val, i, name)
                {
                    if (json_is_string(name) && !json_object_get(x, json_string_value(name)))
                        bad |=
                            jv_fail(c, "property \"%s\" needs property \"%s\"", key, json_string_value(name));
                }
            } else
                bad |= jv_eval(c, val, doc, x);
        }
    }
    return bad;
}

static int jv_array(jv_ctx_t *c, json_t *s, size_t doc, const json_t *x)
{
    int bad = 0;
    size_t n = json_array_size(x);
    json_t *k;
    if (json_is_number(k = json_object_get(s, "minItems")) && (double)n < json_number_value(k))
        bad |= jv_fail(c, "%zu items, fewer than minItems %.17g", n, json_number_value(k));
    if (json_is_number(k = json_object_get(s, "maxItems")) && (double)n > json_number_value(k))
        bad |= jv_fail(c, "%zu items, more than maxItems %.17g", n, json_number_value(k));
    if (json_is_true(json_object_get(s, "uniqueItems")))
        for (size_t i = 0; i < n && !bad; i++)
            for (size_t j = i + 1; j < n && !bad; j++) {
                if (++c->steps > c->v->max_steps) {
                    c->limit = 1;
                    return jv_fail(c, "more than %zu validation steps", c->v->max_steps);
                }
                if (jv_equal(json_array_get(x, i), json_array_get(x, j)))
                    bad |= jv_fail(c, "items %zu and %zu are equal (uniqueItems)", i, j);
            }
    /* The items before the rest: prefixItems (2020-12) or an items array (before). */
    json_t *prefix = c->v->draft >= JV_DRAFT2020 ? json_object_get(s, "prefixItems") : NULL,
           *items = json_object_get(s, "items"), *rest = NULL;
    if (json_is_array(prefix))
        rest = items;
    else if (json_is_array(items)) {
        prefix = items;
        rest = json_object_get(s, "additionalItems");
    } else {
        prefix = NULL;
        rest = items;
    }
    size_t np = prefix ? json_array_size(prefix) : 0;
    for (size_t i = 0; i < n; i++) {
        json_t *sub = i < np ? json_array_get(prefix, i) : rest;
        if (!sub)
            continue;
        size_t at = jv_push_index(c, i);
        if (json_is_false(sub) && i >= np)
            bad |= jv_fail(c, "an item beyond the %zu allowed", np);
        else
            bad |= jv_eval(c, sub, doc, json_array_get(x, i));
        jv_pop(c, at);
        if (bad && c->limit)
            return bad;
    }
    json_t *contains = json_object_get(s, "contains");
    if (contains && c->v->draft != JV_DRAFT4) {
        size_t hits = 0;
        for (size_t i = 0; i < n; i++)
            hits += jv_quiet(c, contains, doc, json_array_get(x, i)) == 0;
        json_t *mn = c->v->draft >= JV_DRAFT2019 ? json_object_get(s, "minContains") : NULL;
        json_t *mx = c->v->draft >= JV_DRAFT2019 ? json_object_get(s, "maxContains") : NULL;
        double lo = json_is_number(mn) ? json_number_value(mn) : 1;
        if ((double)hits < lo)
            bad |= jv_fail(c, "%zu items match contains, fewer than %.17g", hits, lo);
        if (json_is_number(mx) && (double)hits > json_number_value(mx))
            bad |= jv_fail(c, "%zu items match contains, more than maxContains %.17g", hits,
                           json_number_value(mx));
    }
    return bad;
}

static int jv_combinators(jv_ctx_t *c, json_t *s, size_t doc, const json_t *x)
{
    int bad = 0;
    json_t *k;
    size_t i;
    json_t *sub;
    if (json_is_array(k = json_object_get(s, "allOf")))
        json_array_foreach(k, i, sub)
        {
            bad |= jv_eval(c, sub, doc, x);
        }
    if (json_is_array(k = json_object_get(s, "anyOf"))) {
        int any = 0;
        json_array_foreach(k, i, sub)
        {
            if (!any && jv_quiet(c, sub, doc, x) == 0)
                any = 1;
        }
        if (!any)
            bad |= jv_fail(c, "valid against no schema of anyOf");
    }
    if (json_is_array(k = json_object_get(s, "oneOf"))) {
        size_t hits = 0;
        json_array_foreach(k, i, sub)
        {
            hits += jv_quiet(c, sub, doc, x) == 0;
        }
        if (hits != 1)
            bad |= jv_fail(c, "valid against %zu schemas of oneOf, not exactly one", hits);
    }
    if ((k = json_object_get(s, "not")) && jv_quiet(c, k, doc, x) == 0)
        bad |= jv_fail(c, "valid against the schema of not");
    if (c->v->draft >= JV_DRAFT7 && (k = json_object_get(s, "if"))) {
        json_t *branch =
            jv_quiet(c, k, doc, x) == 0 ? json_object_get(s, "then") : json_object_get(s, "else");
        if (branch)
            bad |= jv_eval(c, branch, doc, x);
    }
    return bad;
}

/* 0: x is valid against schema; 1: not (the first failure is in c->error). */
static int jv_eval(jv_ctx_t *c, json_t *schema, size_t doc, const json_t *x)
{
    if (c->limit)
        return 1;
    if (json_is_true(schema))
        return 0;
    if (json_is_false(schema))
        return jv_fail(c, "no value is valid here (the schema false)");
    if (!json_is_object(schema))
        return 0;
    if (++c->depth > c->v->max_depth) {
        c->limit = 1;
        c->depth--;
        return jv_fail(c, "schemas applied deeper than %zu", c->v->max_depth);
    }
    if (++c->steps > c->v->max_steps) {
        c->limit = 1;
        c->depth--;
        return jv_fail(c, "more than %zu validation steps", c->v->max_steps);
    }
    int bad = 0;
    const char *ref = json_string_value(json_object_get(schema, "$ref"));
    if (!ref && c->v->draft >= JV_DRAFT2020)
        ref = json_string_value(json_object_get(schema, "$dynamicRef"));
    if (!ref && c->v->draft == JV_DRAFT2019)
        ref = json_string_value(json_object_get(schema, "$recursiveRef"));
    if (ref) {
        bad |= jv_ref(c, ref, doc, x);
        if (c->v->draft <= JV_DRAFT7) {
            /* Before 2019-09 a $ref's siblings are ignored. */
            c->depth--;
            return bad;
        }
    }
    json_t *type = json_object_get(schema, "type");
    if (json_is_string(type) && !jv_is_type(c, x, json_string_value(type)))
        bad |= jv_fail(c, "%s, not of type %s", jv_type_name(x), json_string_value(type));
    else if (json_is_array(type)) {
        int ok = 0;
        size_t i;
        json_t *t;
        json_array_foreach(type, i, t)
        {
            ok |= json_is_string(t) && jv_is_type(c, x, json_string_value(t));
        }
        if (!ok)
            bad |= jv_fail(c, "%s, not of any type the schema lists", jv_type_name(x));
    }
    json_t *k;
    if (json_is_array(k = json_object_get(schema, "enum"))) {
        int ok = 0;
        size_t i;
        json_t *e;
        json_array_foreach(k, i, e)
        {
            ok |= jv_equal(e, x);
        }
        if (!ok)
            bad |= jv_fail(c, "not one of the enum's values");
    }
    if (c->v->draft != JV_DRAFT4 && (k = json_object_get(schema, "const")) && !jv_equal(k, x))
        bad |= jv_fail(c, "not the const value");
    if (json_is_number(x))
        bad |= jv_numbers(c, schema, x);
    else if (json_is_string(x))
        bad |= jv_string(c, schema, x);
    else if (json_is_object(x))
        bad |= jv_object(c, schema, doc, x);
    else if (json_is_array(x))
        bad |= jv_array(c, schema, doc, x);
    bad |= jv_combinators(c, schema, doc, x);
    c->depth--;
    return bad;
}

/* ---- 5. Entry points -------------------------------------------------------- */

srclient_json_validator_t *srclient_json_validator_new(const char *schema, const srclient_json_ref_t *refs,
                                                       size_t nrefs, const srclient_json_limits_t *limits,
                                                       char **error)
{
    json_error_t je;
    json_t *root = json_loads(schema, JSON_DECODE_ANY, &je);
    if (!root || !(json_is_object(root) || json_is_boolean(root))) {
        *error = root ? xstrdup("a JSON schema is an object or a boolean")
                      : xasprintf("the schema is not JSON: %s", je.text);
        json_decref(root);
        return NULL;
    }
    srclient_json_validator_t *v = xcalloc(1, sizeof(*v));
    v->root = root;
    v->draft = jv_draft_of(root);
    v->max_depth = limits && limits->max_depth ? limits->max_depth : 256;
    v->max_steps = limits && limits->max_steps ? limits->max_steps : 1u << 20;
    jv_add_doc(v, "", root);
    for (size_t i = 0; i < nrefs; i++) {
        json_t *doc = json_loads(refs[i].text, JSON_DECODE_ANY, &je);
        if (!doc) {
            *error = xasprintf("reference %s is not JSON: %s", refs[i].name, je.text);
            srclient_json_validator_free(v);
            return NULL;
        }
        jv_add_doc(v, refs[i].name, doc);
    }
    return v;
}

void srclient_json_validator_free(srclient_json_validator_t *v)
{
    if (!v)
        return;
    for (size_t i = 0; i < v->patterns.cap; i++) {
        if (!hmap_live(&v->patterns, i))
            continue;
        jv_pattern_t *p = v->patterns.slots[i].value;
        if (p->ok)
            regfree(&p->re);
        free(p->why);
        free(p);
    }
    hmap_clear(&v->patterns);
    hmap_clear(&v->by_uri);
    hmap_clear(&v->doc_of);
    for (size_t i = 0; i < v->ndocs; i++) {
        json_decref(v->docs[i]);
        free(v->names[i]);
    }
    free(v->docs);
    free(v->names);
    free(v);
}

int srclient_json_validate(const srclient_json_validator_t *v, const json_t *instance, char **error)
{
    jv_ctx_t c = {.v = v};
    int bad = jv_eval(&c, v->root, 0, instance);
    strbuf_free(&c.path);
    if (!bad) {
        free(c.error);
        return 0;
    }
    *error = c.error ? c.error : xstrdup("not valid against the schema");
    return -1;
}

/* ---- 6. A registered schema's validator ------------------------------------- */

#define JV_MAX_REFS 256

srclient_json_validator_t *srclient_schema_validator(srclient_t *c, const srclient_schema_t *s,
                                                     const srclient_json_limits_t *limits,
                                                     srclient_error_t *err)
{
    /* Breadth first over the references and theirs, each name once. */
    srclient_schema_t **held = NULL;
    srclient_json_ref_t *refs = NULL;
    size_t n = 0;
    const srclient_schema_t **queue = xcalloc(JV_MAX_REFS + 1, sizeof(*queue));
    size_t head = 0, tail = 0;
    queue[tail++] = s;
    int rc = 0;
    while (head < tail && rc == 0) {
        const json_t *list = srclient_schema_references(queue[head++]);
        size_t i;
        json_t *r;
        json_array_foreach((json_t *)list, i, r)
        {
            const char *name = json_string_value(json_object_get(r, "name"));
            const char *subject = json_string_value(json_object_get(r, "subject"));
            json_t *version = json_object_get(r, "version");
            if (!name || !subject || !json_is_integer(version))
                continue;
            int seen = 0;
            for (size_t k = 0; k < n && !seen; k++)
                seen = strcmp(refs[k].name, name) == 0;
            if (seen)
                continue;
            if (n == JV_MAX_REFS) {
                if (err) {
                    err->status = 0;
                    err->code = SRCLIENT_ERR_SCHEMA;
                    snprintf(err->message, sizeof(err->message), "schema %d: more than %d references",
                             srclient_schema_id(s), JV_MAX_REFS);
                }
                rc = -1;
                break;
            }
            srclient_version_t sv;
            if (srclient_subject_version(c, subject, (int)json_integer_value(version), &sv, err) != 0) {
                rc = -1;
                break;
            }
            held = xreallocarray(held, n + 1, sizeof(*held));
            refs = xreallocarray(refs, n + 1, sizeof(*refs));
            held[n] = sv.schema;
            refs[n] = (srclient_json_ref_t){name, srclient_schema_text(sv.schema)};
            n++;
            queue[tail++] = sv.schema;
        }
    }
    srclient_json_validator_t *v = NULL;
    if (rc == 0) {
        char *why = NULL;
        v = srclient_json_validator_new(srclient_schema_text(s), refs, n, limits, &why);
        if (!v && err) {
            err->status = 0;
            err->code = SRCLIENT_ERR_SCHEMA;
            snprintf(err->message, sizeof(err->message), "schema %d: %s", srclient_schema_id(s), why);
        }
        free(why);
    }
    for (size_t k = 0; k < n; k++)
        srclient_schema_release(held[k]);
    free(held);
    free(refs);
    free(queue);
    return v;
}
