/*
 * avro_check: Avro's SchemaCompatibility reader/writer check (spec 2.4-2.6),
 * reproduced with its exact traversal order, locations and memoization.
 *
 * Contents
 *   1. Results, the location stack, the per-call context
 *   2. The memoized pair check
 *   3. Same types: names, sizes, symbols, fields, unions
 *   4. Different types: writer unions, promotions, reader unions
 *   5. Flattening a result into the issue list
 *
 * Results are memoized per (reader node, writer node) for one call; a pair
 * met while still being computed counts as compatible (recursive types),
 * and a pair met again returns its first result, locations included, so a
 * cached incompatibility appears once per use, as in Avro. A result is a
 * list of issues and references to child results, i.e. a DAG flattened
 * once at the end, which keeps repeated sub-results free to build.
 *
 * Pairs with a primitive on either side are not memoized: in Avro every
 * primitive occurrence is its own object, so such a pair is never met
 * twice, and none of them recurses. That is what lets bare primitives be
 * shared nodes here.
 */
#ifndef _GNU_SOURCE
#endif
#include "compat/avro_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- 1. Results, the location stack, the per-call context ------------------------------- */

typedef struct check_piece check_piece_t;

/* An incompatible result: a non-empty list of pieces. */
typedef struct check_result {
    check_piece_t *head;
    check_piece_t *tail;
} check_result_t;

/* Either an issue, or (child != NULL) every issue of a child result. */
struct check_piece {
    check_piece_t *next;
    const check_result_t *child;
    avro_issue_type_t type;
    const char *location;
    const char *message;
};

static const check_result_t compatible_result;
static const check_result_t in_progress_result;
#define COMPATIBLE (&compatible_result)
#define IN_PROGRESS (&in_progress_result)

/* A location token: a word ("fields") or, when word is NULL, a number. */
typedef struct check_token {
    const char *word;
    size_t num;
} check_token_t;

#define TOKEN_WORD(w) ((check_token_t){.word = (w)})
#define TOKEN_NUM(n) ((check_token_t){.word = NULL, .num = (n)})
#define TOKEN_ROOT TOKEN_WORD("")

typedef struct check_ctx {
    avro_arena_t arena;        /* results, pieces, locations, messages */
    avro_pairmap_t memo;
    check_token_t *tokens;
    size_t top;
    size_t cap;
    int depth;
    long work;
    char *exception;           /* Avro would have thrown; the check is over */
    int oom;
} check_ctx_t;

static int check_failed(const check_ctx_t *c)
{
    return c->exception || c->oom;
}

static void check_throw(check_ctx_t *c, char *message)
{
    if (check_failed(c)) {
        free(message);
        return;
    }
    if (!message)
        c->oom = 1;
    c->exception = message;
}

static void token_push(check_ctx_t *c, check_token_t t)
{
    if (c->top == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 64;
        check_token_t *tokens = realloc(c->tokens, cap * sizeof *tokens);
        if (!tokens) {
            c->oom = 1;
            return;
        }
        c->tokens = tokens;
        c->cap = cap;
    }
    c->tokens[c->top++] = t;
}

static void token_pop(check_ctx_t *c, size_t mark)
{
    c->top = mark;
}

/* Avro's getLocation: the tokens after the root of the current stack,
 * "/"-joined, written straight into the arena (issues are frequent in
 * failed union-branch attempts, which Avro computes and caches too). */
static const char *location_string(check_ctx_t *c, size_t base)
{
    char num[24];
    size_t len = 1;
    for (size_t i = base + 1; i < c->top; i++)
        len += (i > base + 1) + (c->tokens[i].word ? strlen(c->tokens[i].word)
                                                   : (size_t)snprintf(num, sizeof num, "%zu", c->tokens[i].num));
    char *loc = avro_arena_alloc(&c->arena, len + 1);
    if (!loc) {
        c->oom = 1;
        return NULL;
    }
    char *w = loc;
    *w++ = '/';
    for (size_t i = base + 1; i < c->top; i++) {
        if (i > base + 1)
            *w++ = '/';
        if (c->tokens[i].word)
            w = stpcpy(w, c->tokens[i].word);
        else
            w += sprintf(w, "%zu", c->tokens[i].num);
    }
    *w = '\0';
    return loc;
}

static check_piece_t *piece_append(check_ctx_t *c, check_result_t **acc)
{
    check_piece_t *p = avro_arena_alloc(&c->arena, sizeof *p);
    if (!p || (!*acc && !(*acc = avro_arena_alloc(&c->arena, sizeof **acc)))) {
        c->oom = 1;
        return NULL;
    }
    if ((*acc)->tail)
        (*acc)->tail->next = p;
    else
        (*acc)->head = p;
    (*acc)->tail = p;
    return p;
}

/* mergedWith: an incompatible child contributes all of its issues. */
static void merge(check_ctx_t *c, check_result_t **acc, const check_result_t *child)
{
    if (!child || child == COMPATIBLE || child == IN_PROGRESS)
        return;
    check_piece_t *p = piece_append(c, acc);
    if (p)
        p->child = child;
}

static void add_issue(check_ctx_t *c, check_result_t **acc, size_t base, avro_issue_type_t type,
                      const char *fmt, ...) __attribute__((format(printf, 5, 6)));

static void add_issue(check_ctx_t *c, check_result_t **acc, size_t base, avro_issue_type_t type,
                      const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *message = n < 0 ? NULL : avro_arena_alloc(&c->arena, (size_t)n + 1);
    if (message) {
        va_start(ap, fmt);
        vsnprintf(message, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    const char *location = location_string(c, base);
    check_piece_t *p = message && location ? piece_append(c, acc) : NULL;
    if (!p) {
        c->oom = 1;
        return;
    }
    p->type = type;
    p->location = location;
    p->message = message;
}

static const check_result_t *finish(check_result_t *acc)
{
    return acc ? acc : COMPATIBLE;
}

/* ---- 2. The memoized pair check --------------------------------------------------------------- */

static const check_result_t *calculate(check_ctx_t *c, const avro_node_t *r, const avro_node_t *w,
                                       size_t base);

static int memoized(const avro_node_t *r, const avro_node_t *w)
{
    return !avro_kind_is_primitive(r->kind) && !avro_kind_is_primitive(w->kind);
}

static const check_result_t *compute_pair(check_ctx_t *c, const avro_node_t *r, const avro_node_t *w,
                                          size_t base)
{
    if (!memoized(r, w))
        return calculate(c, r, w, base);
    const check_result_t *known = avro_pairmap_get(&c->memo, r, w);
    if (known)
        return known == IN_PROGRESS ? COMPATIBLE : known;
    if (avro_pairmap_put(&c->memo, r, w, (void *)IN_PROGRESS) != 0) {
        c->oom = 1;
        return NULL;
    }
    const check_result_t *res = calculate(c, r, w, base);
    if (res && avro_pairmap_put(&c->memo, r, w, (void *)res) != 0)
        c->oom = 1;
    return res;
}

/* getCompatibility(token, reader, writer, location): base is where the
 * current location stack starts (its root token). */
static const check_result_t *get_compat(check_ctx_t *c, check_token_t tok, const avro_node_t *r,
                                        const avro_node_t *w, size_t base)
{
    if (check_failed(c))
        return NULL;
    if (c->depth >= AVRO_CHECK_MAX_DEPTH) {
        check_throw(c, strdup("schemas are nested too deeply to compare"));
        return NULL;
    }
    size_t mark = c->top;
    token_push(c, tok);
    c->depth++;
    const check_result_t *res = check_failed(c) ? NULL : compute_pair(c, r, w, base);
    c->depth--;
    token_pop(c, mark);
    return check_failed(c) ? NULL : res;
}

/* getCompatibility(reader, writer): a fresh location stack rooted here. */
static const check_result_t *get_compat_fresh(check_ctx_t *c, const avro_node_t *r, const avro_node_t *w)
{
    return get_compat(c, TOKEN_ROOT, r, w, c->top);
}

/* ---- 3. Same types ---------------------------------------------------------------------------- */

/* Unqualified names match, or a reader alias names the writer's full name.
 * A null-namespace alias of a namespaced reader is ".name" in Avro and
 * never matches. */
static int names_match(const avro_node_t *r, const avro_node_t *w)
{
    if (strcmp(r->named->name.name, w->named->name.name) == 0)
        return 1;
    for (size_t i = 0; i < r->named->n_aliases; i++) {
        const avro_name_t *a = &r->named->aliases[i];
        if (!(a->space == NULL && r->named->name.space != NULL) && strcmp(a->full, w->named->name.full) == 0)
            return 1;
    }
    return 0;
}

static void check_names(check_ctx_t *c, check_result_t **acc, const avro_node_t *r,
                        const avro_node_t *w, size_t base)
{
    size_t mark = c->top;
    token_push(c, TOKEN_WORD("name"));
    if (!names_match(r, w))
        add_issue(c, acc, base, AVRO_ISSUE_NAME_MISMATCH, "expected: %s", w->named->name.full);
    token_pop(c, mark);
}

static void check_fixed_size(check_ctx_t *c, check_result_t **acc, const avro_node_t *r,
                             const avro_node_t *w, size_t base)
{
    size_t mark = c->top;
    token_push(c, TOKEN_WORD("size"));
    if (r->u.fixed.size != w->u.fixed.size)
        add_issue(c, acc, base, AVRO_ISSUE_FIXED_SIZE_MISMATCH, "expected: %d, found: %d",
                  w->u.fixed.size, r->u.fixed.size);
    token_pop(c, mark);
}

static int symbol_order(const void *a, const void *b)
{
    return avro_utf16_cmp(*(const char *const *)a, *(const char *const *)b);
}

/* Writer symbols the reader lacks, sorted as Java's TreeSet prints them. */
static char *missing_symbols(const avro_node_t *r, const avro_node_t *w, size_t *n_missing)
{
    const char **missing = malloc((w->u.enm.n ? w->u.enm.n : 1) * sizeof *missing);
    if (!missing)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < w->u.enm.n; i++)
        if (avro_index_find(r->u.enm.by_name, w->u.enm.symbols[i]) < 0)
            missing[n++] = w->u.enm.symbols[i];
    qsort(missing, n, sizeof *missing, symbol_order);
    avro_buf_t b = {0};
    avro_buf_putc(&b, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            avro_buf_puts(&b, ", ");
        avro_buf_puts(&b, missing[i]);
    }
    avro_buf_putc(&b, ']');
    free(missing);
    *n_missing = n;
    return avro_buf_take(&b);
}

static void check_symbols(check_ctx_t *c, check_result_t **acc, const avro_node_t *r,
                          const avro_node_t *w, size_t base)
{
    c->work += (long)w->u.enm.n;
    size_t mark = c->top, n_missing = 0;
    token_push(c, TOKEN_WORD("symbols"));
    char *list = missing_symbols(r, w, &n_missing);
    if (!list)
        c->oom = 1;
    else if (n_missing && !r->u.enm.def)
        add_issue(c, acc, base, AVRO_ISSUE_MISSING_ENUM_SYMBOLS, "%s", list);
    free(list);
    token_pop(c, mark);
}

static char *multiple_match_message(const avro_field_t *rf, const avro_node_t *w)
{
    avro_buf_t b = {0};
    avro_buf_printf(&b, "Reader record field %s type:%s pos:%zu matches multiple fields in writer record schema ",
                    rf->name, avro_kind_upper(rf->type->kind), rf->pos);
    avro_write_schema(&b, w, NULL, 0);
    return avro_buf_take(&b);
}

/* lookupWriterField: by name, then by each reader alias; more than one hit
 * (even the same field twice) makes Avro throw. */
static const avro_field_t *writer_field(check_ctx_t *c, const avro_node_t *w, const avro_field_t *rf)
{
    long found = avro_index_find(w->u.record.by_name, rf->name);
    int hits = found >= 0;
    for (size_t i = 0; i < rf->n_aliases; i++) {
        long idx = avro_index_find(w->u.record.by_name, rf->aliases[i]);
        if (idx < 0)
            continue;
        if (++hits > 1) {
            check_throw(c, multiple_match_message(rf, w));
            return NULL;
        }
        found = idx;
    }
    c->work += (long)rf->n_aliases;
    return found >= 0 ? &w->u.record.fields[found] : NULL;
}

static void check_missing_field(check_ctx_t *c, check_result_t **acc, const avro_field_t *rf,
                                const avro_node_t *w, size_t base)
{
    if (rf->def)
        return;
    /* Avro's quirk: an enum with a default is compared with the whole writer record. */
    if (rf->type->kind == AVRO_KIND_ENUM && rf->type->u.enm.def)
        merge(c, acc, get_compat(c, TOKEN_WORD("type"), rf->type, w, base));
    else
        add_issue(c, acc, base, AVRO_ISSUE_READER_FIELD_MISSING_DEFAULT_VALUE, "%s", rf->name);
}

static void check_fields(check_ctx_t *c, check_result_t **acc, const avro_node_t *r,
                         const avro_node_t *w, size_t base)
{
    size_t mark = c->top;
    token_push(c, TOKEN_WORD("fields"));
    for (size_t i = 0; i < r->u.record.n && !check_failed(c); i++) {
        const avro_field_t *rf = &r->u.record.fields[i];
        size_t field_mark = c->top;
        c->work++;
        token_push(c, TOKEN_NUM(rf->pos));
        const avro_field_t *wf = writer_field(c, w, rf);
        if (wf)
            merge(c, acc, get_compat(c, TOKEN_WORD("type"), rf->type, wf->type, base));
        else if (!check_failed(c))
            check_missing_field(c, acc, rf, w, base);
        token_pop(c, field_mark);
    }
    token_pop(c, mark);
}

/* Every writer branch must be readable; why a branch is not is not reported. */
static void check_union_branches(check_ctx_t *c, check_result_t **acc, const avro_node_t *r,
                                 const avro_node_t *w, size_t base)
{
    for (size_t i = 0; i < w->u.uni.n && !check_failed(c); i++) {
        const avro_node_t *wb = w->u.uni.branches[i];
        size_t mark = c->top;
        c->work++;
        token_push(c, TOKEN_NUM(i));
        const check_result_t *res = get_compat_fresh(c, r, wb);
        if (res && res != COMPATIBLE)
            add_issue(c, acc, base, AVRO_ISSUE_MISSING_UNION_BRANCH, "reader union lacking writer type: %s",
                      avro_kind_upper(wb->kind));
        token_pop(c, mark);
    }
}

static const check_result_t *same_kind(check_ctx_t *c, const avro_node_t *r, const avro_node_t *w,
                                       size_t base)
{
    check_result_t *acc = NULL;
    switch (r->kind) {
    case AVRO_KIND_ARRAY:
        merge(c, &acc, get_compat(c, TOKEN_WORD("items"), r->u.items, w->u.items, base));
        break;
    case AVRO_KIND_MAP:
        merge(c, &acc, get_compat(c, TOKEN_WORD("values"), r->u.items, w->u.items, base));
        break;
    case AVRO_KIND_FIXED:
        check_names(c, &acc, r, w, base);
        check_fixed_size(c, &acc, r, w, base);
        break;
    case AVRO_KIND_ENUM:
        check_names(c, &acc, r, w, base);
        check_symbols(c, &acc, r, w, base);
        break;
    case AVRO_KIND_RECORD:
        check_names(c, &acc, r, w, base);
        check_fields(c, &acc, r, w, base);
        break;
    case AVRO_KIND_UNION:
        check_union_branches(c, &acc, r, w, base);
        break;
    default:
        break;
    }
    return finish(acc);
}

/* ---- 4. Different types -------------------------------------------------------------------------- */

static int promotable(avro_kind_t reader, avro_kind_t writer)
{
    switch (reader) {
    case AVRO_KIND_LONG: return writer == AVRO_KIND_INT;
    case AVRO_KIND_FLOAT: return writer == AVRO_KIND_INT || writer == AVRO_KIND_LONG;
    case AVRO_KIND_DOUBLE:
        return writer == AVRO_KIND_INT || writer == AVRO_KIND_LONG || writer == AVRO_KIND_FLOAT;
    case AVRO_KIND_BYTES: return writer == AVRO_KIND_STRING;
    case AVRO_KIND_STRING: return writer == AVRO_KIND_BYTES;
    default: return 0;
    }
}

static const check_result_t *writer_union(check_ctx_t *c, const avro_node_t *r, const avro_node_t *w,
                                          size_t base)
{
    check_result_t *acc = NULL;
    for (size_t i = 0; i < w->u.uni.n && !check_failed(c); i++) {
        c->work++;
        merge(c, &acc, get_compat(c, TOKEN_NUM(i), r, w->u.uni.branches[i], base));
    }
    return finish(acc);
}

/* The first reader branch that reads the writer wins; none: one issue here. */
static const check_result_t *reader_union(check_ctx_t *c, const avro_node_t *r, const avro_node_t *w,
                                          size_t base)
{
    for (size_t i = 0; i < r->u.uni.n && !check_failed(c); i++) {
        c->work++;
        if (get_compat_fresh(c, r->u.uni.branches[i], w) == COMPATIBLE)
            return COMPATIBLE;
    }
    check_result_t *acc = NULL;
    add_issue(c, &acc, base, AVRO_ISSUE_MISSING_UNION_BRANCH, "reader union lacking writer type: %s",
              avro_kind_upper(w->kind));
    return finish(acc);
}

static const check_result_t *different_kind(check_ctx_t *c, const avro_node_t *r, const avro_node_t *w,
                                            size_t base)
{
    if (w->kind == AVRO_KIND_UNION)
        return writer_union(c, r, w, base);
    if (r->kind == AVRO_KIND_UNION)
        return reader_union(c, r, w, base);
    if (promotable(r->kind, w->kind))
        return COMPATIBLE;
    check_result_t *acc = NULL;
    add_issue(c, &acc, base, AVRO_ISSUE_TYPE_MISMATCH, "reader type: %s not compatible with writer type: %s",
              avro_kind_upper(r->kind), avro_kind_upper(w->kind));
    return finish(acc);
}

static const check_result_t *calculate(check_ctx_t *c, const avro_node_t *r, const avro_node_t *w,
                                       size_t base)
{
    if (++c->work > AVRO_CHECK_MAX_WORK) {
        check_throw(c, strdup("the schemas are too large to compare"));
        return NULL;
    }
    const check_result_t *res = r->kind == w->kind ? same_kind(c, r, w, base) : different_kind(c, r, w, base);
    return check_failed(c) ? NULL : res;
}

/* ---- 5. Flattening ----------------------------------------------------------------------------------- */

static int issue_push(avro_issues_t *out, size_t *cap, const check_piece_t *p)
{
    if (out->n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;
        avro_issue_t *items = realloc(out->items, ncap * sizeof *items);
        if (!items)
            return -1;
        out->items = items;
        *cap = ncap;
    }
    avro_issue_t *it = &out->items[out->n];
    it->type = p->type;
    it->location = strdup(p->location);
    it->message = strdup(p->message);
    if (!it->location || !it->message) {
        free(it->location);
        free(it->message);
        return -1;
    }
    out->n++;
    return 0;
}

/* In-order walk of the result DAG with an explicit stack of "next piece". */
static int flatten(const check_result_t *res, avro_issues_t *out)
{
    size_t cap = 0, sp = 0, stack_cap = 64;
    const check_piece_t **stack = malloc(stack_cap * sizeof *stack);
    if (!stack)
        return -1;
    int rc = 0;
    stack[sp++] = res->head;
    while (sp && rc == 0) {
        const check_piece_t *p = stack[--sp];
        if (!p)
            continue;
        if (out->n >= AVRO_CHECK_MAX_ISSUES) {
            out->truncated = 1;
            break;
        }
        if (sp + 2 > stack_cap) {
            const check_piece_t **grown = realloc(stack, stack_cap * 2 * sizeof *stack);
            if (!grown) {
                rc = -1;
                break;
            }
            stack = grown;
            stack_cap *= 2;
        }
        stack[sp++] = p->next;
        if (p->child)
            stack[sp++] = p->child->head;
        else
            rc = issue_push(out, &cap, p);
    }
    free(stack);
    return rc;
}

int avro_check(const avro_model_t *reader, const avro_model_t *writer, avro_issues_t *out)
{
    check_ctx_t c = {0};
    const check_result_t *res = get_compat(&c, TOKEN_ROOT, reader->root, writer->root, 0);
    int rc;
    if (c.oom) {
        rc = -1;
    } else if (c.exception) {
        out->exception = c.exception;
        c.exception = NULL;
        rc = 0;
    } else if (res == COMPATIBLE) {
        rc = 1;
    } else {
        rc = flatten(res, out) == 0 ? 0 : -1;
    }
    free(c.exception);
    free(c.tokens);
    avro_pairmap_free(&c.memo);
    avro_arena_release(&c.arena);
    return rc;
}

void avro_issues_free(avro_issues_t *issues)
{
    for (size_t i = 0; i < issues->n; i++) {
        free(issues->items[i].location);
        free(issues->items[i].message);
    }
    free(issues->items);
    free(issues->exception);
    issues->items = NULL;
    issues->n = 0;
    issues->exception = NULL;
    issues->truncated = 0;
}

const char *avro_issue_type_name(avro_issue_type_t type)
{
    static const char *const names[] = {
        [AVRO_ISSUE_NAME_MISMATCH] = "NAME_MISMATCH",
        [AVRO_ISSUE_FIXED_SIZE_MISMATCH] = "FIXED_SIZE_MISMATCH",
        [AVRO_ISSUE_MISSING_ENUM_SYMBOLS] = "MISSING_ENUM_SYMBOLS",
        [AVRO_ISSUE_READER_FIELD_MISSING_DEFAULT_VALUE] = "READER_FIELD_MISSING_DEFAULT_VALUE",
        [AVRO_ISSUE_TYPE_MISMATCH] = "TYPE_MISMATCH",
        [AVRO_ISSUE_MISSING_UNION_BRANCH] = "MISSING_UNION_BRANCH",
    };
    return names[type];
}
