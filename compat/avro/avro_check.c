/*
 * avro_check: Avro's SchemaCompatibility reader/writer check (docs/compatibility.md "Avro"),
 * reproduced with its exact traversal order, locations and memoization.
 *
 * Contents
 *   1. Results, the location stack, the per-call context
 *   2. Frames: Avro's recursion, kept on the heap
 *   3. Same types: names, sizes, symbols, fields, unions
 *   4. Different types: writer unions, promotions, reader unions
 *   5. Reader unions: which branches need trying
 *   6. The driver: memoized calls
 *   7. Flattening a result into the issue list
 *
 * Results are memoized per (reader node, writer node) for one call; a pair
 * met while still being computed counts as compatible (recursive types),
 * and a pair met again returns its first result, locations included, so a
 * cached incompatibility appears once per use, as in Avro. A result is a
 * list of issues and references to child results, i.e. a DAG flattened
 * once at the end, which keeps repeated sub-results free to build.
 *
 * A reader union looks up the branches that can read a writer type instead
 * of trying every one (section 5), where skipping a try changes nothing.
 *
 * Pairs with a primitive on either side are not memoized: in Avro every
 * primitive occurrence is its own object, so such a pair is never met
 * twice, and none of them recurses. That is what lets bare primitives be
 * shared nodes here.
 */
#include "compat/avro/internal.h"
#include "base/utf8.h"

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

/* A location token: a word ("fields") or, when word is NULL, a number. */
typedef struct check_token {
    const char *word;
    size_t num;
} check_token_t;

/* A location as a shared path: the token at stack position pos and the
 * path below it. Issues point into these, so a location costs O(1) however
 * deep it is; the text is only written for the issues reported. */
typedef struct check_path check_path_t;
struct check_path {
    const check_path_t *parent;
    check_token_t tok;
    size_t pos;
};

/* Either an issue, or (child != NULL) every issue of a child result. */
struct check_piece {
    check_piece_t *next;
    const check_result_t *child;
    avro_issue_type_t type;
    const check_path_t *path; /* the innermost token; NULL for the empty stack */
    size_t base;              /* the root token the location starts after */
    const char *message;
};

static const check_result_t compatible_result;
static const check_result_t in_progress_result;
#define COMPATIBLE  (&compatible_result)
#define IN_PROGRESS (&in_progress_result)

#define TOKEN_WORD(w) ((check_token_t){.word = (w)})
#define TOKEN_NUM(n)  ((check_token_t){.word = NULL, .num = (n)})
#define TOKEN_ROOT    TOKEN_WORD("")

typedef struct check_ctx {
    arena_t *arena; /* results, pieces, locations, messages, union indexes */
    hmap_t memo;
    const avro_node_t *reader_root;
    hmap_t uses;   /* reader node -> 1 or 2 (more) references, counted on first need */
    hmap_t unions; /* reader union -> its union_index_t */
    check_token_t *tokens;
    const check_path_t **paths; /* paths[i]: path of tokens[0..i], NULL until an issue needs it */
    size_t top;
    size_t cap;
    long work;
    char *exception; /* Avro would have thrown; the check is over */
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
        if (tokens)
            c->tokens = tokens;
        const check_path_t **paths = tokens ? realloc(c->paths, cap * sizeof *paths) : NULL;
        if (!paths) {
            c->oom = 1;
            return;
        }
        c->paths = paths;
        c->cap = cap;
    }
    c->paths[c->top] = NULL;
    c->tokens[c->top++] = t;
}

static void token_pop(check_ctx_t *c, size_t mark)
{
    c->top = mark;
}

/* The path of the whole current stack. Built paths form a prefix of the
 * stack (a push clears its slot), so only the top part is ever new. */
static const check_path_t *current_path(check_ctx_t *c)
{
    size_t first = c->top;
    while (first > 0 && !c->paths[first - 1])
        first--;
    for (size_t i = first; i < c->top; i++) {
        check_path_t *node = arena_alloc(c->arena, sizeof *node);
        if (!node) {
            c->oom = 1;
            return NULL;
        }
        node->parent = i ? c->paths[i - 1] : NULL;
        node->tok = c->tokens[i];
        node->pos = i;
        c->paths[i] = node;
    }
    return c->top ? c->paths[c->top - 1] : NULL;
}

static check_piece_t *piece_append(check_ctx_t *c, check_result_t **acc)
{
    check_piece_t *p = arena_alloc(c->arena, sizeof *p);
    if (!p || (!*acc && !(*acc = arena_alloc(c->arena, sizeof **acc)))) {
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
    char *message = n < 0 ? NULL : arena_alloc(c->arena, (size_t)n + 1);
    if (message) {
        va_start(ap, fmt);
        vsnprintf(message, (size_t)n + 1, fmt, ap);
        va_end(ap);
    }
    const check_path_t *path = current_path(c);
    check_piece_t *p = message && path ? piece_append(c, acc) : NULL;
    if (!p) {
        c->oom = 1;
        return;
    }
    p->type = type;
    p->path = path;
    p->base = base;
    p->message = message;
}

static const check_result_t *finish(check_result_t *acc)
{
    return acc ? acc : COMPATIBLE;
}

/* ---- 2. Frames: Avro's recursion, kept on the heap ----------------------------------------- */

/*
 * Each getCompatibility call that computes a pair is a frame. A frame's
 * step function runs until it needs a child pair (STEP_CALL, described in
 * *call) or is finished (STEP_DONE); the driver then pushes the child or
 * pops the frame and hands its result to the parent (frame->child). Deep
 * schemas therefore cost heap, not C stack.
 */
typedef enum step_result {
    STEP_DONE,
    STEP_CALL,
} step_result_t;

typedef struct check_call {
    check_token_t tok;
    const avro_node_t *r;
    const avro_node_t *w;
    int fresh; /* getCompatibility(reader, writer): a new location stack */
} check_call_t;

typedef struct branch_scan branch_scan_t;

typedef struct check_frame {
    const avro_node_t *r;
    const avro_node_t *w;
    branch_scan_t *scan; /* reader union against a plain writer: the branches left to try */
    size_t base;         /* root token of this frame's location stack */
    size_t mark;         /* token height before this frame's own token */
    int memoize;
    int phase;        /* 0 before the first step */
    size_t i;         /* field or branch being visited */
    size_t loop_mark; /* token height before the current field/branch token */
    size_t list_mark; /* token height before "fields" */
    check_result_t *acc;
    const check_result_t *child; /* result of the call just returned */
} check_frame_t;

static step_result_t make_call(check_call_t *call, check_token_t tok, const avro_node_t *r,
                               const avro_node_t *w, int fresh)
{
    *call = (check_call_t){.tok = tok, .r = r, .w = w, .fresh = fresh};
    return STEP_CALL;
}

/* ---- 3. Same types
 * ------------------------------------------------------------------------------ */

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

static void check_names(check_ctx_t *c, check_frame_t *f)
{
    size_t mark = c->top;
    token_push(c, TOKEN_WORD("name"));
    if (!names_match(f->r, f->w))
        add_issue(c, &f->acc, f->base, AVRO_ISSUE_NAME_MISMATCH, "expected: %s", f->w->named->name.full);
    token_pop(c, mark);
}

static void check_fixed_size(check_ctx_t *c, check_frame_t *f)
{
    size_t mark = c->top;
    token_push(c, TOKEN_WORD("size"));
    if (f->r->u.fixed.size != f->w->u.fixed.size)
        add_issue(c, &f->acc, f->base, AVRO_ISSUE_FIXED_SIZE_MISMATCH, "expected: %d, found: %d",
                  f->w->u.fixed.size, f->r->u.fixed.size);
    token_pop(c, mark);
}

static int symbol_order(const void *a, const void *b)
{
    return utf8_java_cmp(*(const char *const *)a, *(const char *const *)b);
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
    strbuf_t b = {0};
    strbuf_putc(&b, '[');
    for (size_t i = 0; i < n; i++) {
        if (i)
            strbuf_puts(&b, ", ");
        strbuf_puts(&b, missing[i]);
    }
    strbuf_putc(&b, ']');
    free(missing);
    *n_missing = n;
    return strbuf_take(&b);
}

static void check_symbols(check_ctx_t *c, check_frame_t *f)
{
    c->work += (long)f->w->u.enm.n;
    size_t mark = c->top, n_missing = 0;
    token_push(c, TOKEN_WORD("symbols"));
    char *list = missing_symbols(f->r, f->w, &n_missing);
    if (!list)
        c->oom = 1;
    else if (n_missing && !f->r->u.enm.def)
        add_issue(c, &f->acc, f->base, AVRO_ISSUE_MISSING_ENUM_SYMBOLS, "%s", list);
    free(list);
    token_pop(c, mark);
}

static char *multiple_match_message(const avro_field_t *rf, const avro_node_t *w)
{
    strbuf_t b = {0};
    strbuf_printf(&b,
                  "Reader record field %s type:%s pos:%zu matches multiple fields in writer record schema ",
                  rf->name, avro_kind_upper(rf->type->kind), rf->pos);
    avro_write_schema(&b, w, NULL, 0);
    return strbuf_take(&b);
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

/* One reader field: a call for its type, or an issue, or nothing. */
static step_result_t visit_field(check_ctx_t *c, check_frame_t *f, check_call_t *call)
{
    const avro_field_t *rf = &f->r->u.record.fields[f->i];
    f->loop_mark = c->top;
    token_push(c, TOKEN_NUM(rf->pos));
    const avro_field_t *wf = writer_field(c, f->w, rf);
    if (wf)
        return make_call(call, TOKEN_WORD("type"), rf->type, wf->type, 0);
    if (check_failed(c) || rf->def)
        return STEP_DONE;
    /* Avro's quirk: an enum with a default is compared with the whole writer record. */
    if (rf->type->kind == AVRO_KIND_ENUM && rf->type->u.enm.def)
        return make_call(call, TOKEN_WORD("type"), rf->type, f->w, 0);
    add_issue(c, &f->acc, f->base, AVRO_ISSUE_READER_FIELD_MISSING_DEFAULT_VALUE, "%s", rf->name);
    return STEP_DONE;
}

static step_result_t step_record(check_ctx_t *c, check_frame_t *f, check_call_t *call)
{
    if (f->phase == 0) {
        check_names(c, f);
        f->list_mark = c->top;
        token_push(c, TOKEN_WORD("fields"));
        f->phase = 1;
    } else {
        merge(c, &f->acc, f->child);
        token_pop(c, f->loop_mark);
        f->i++;
    }
    for (; f->i < f->r->u.record.n && !check_failed(c); f->i++) {
        c->work++;
        if (visit_field(c, f, call) == STEP_CALL)
            return STEP_CALL;
        token_pop(c, f->loop_mark);
    }
    token_pop(c, f->list_mark);
    return STEP_DONE;
}

/* Every writer branch must be readable; why a branch is not is not reported. */
static step_result_t step_union_branches(check_ctx_t *c, check_frame_t *f, check_call_t *call)
{
    if (f->phase == 0) {
        f->phase = 1;
    } else {
        if (f->child != COMPATIBLE)
            add_issue(c, &f->acc, f->base, AVRO_ISSUE_MISSING_UNION_BRANCH,
                      "reader union lacking writer type: %s",
                      avro_kind_upper(f->w->u.uni.branches[f->i]->kind));
        token_pop(c, f->loop_mark);
        f->i++;
    }
    if (f->i >= f->w->u.uni.n)
        return STEP_DONE;
    c->work++;
    f->loop_mark = c->top;
    token_push(c, TOKEN_NUM(f->i));
    return make_call(call, TOKEN_ROOT, f->r, f->w->u.uni.branches[f->i], 1);
}

static step_result_t step_items(check_ctx_t *c, check_frame_t *f, check_call_t *call)
{
    if (f->phase == 0) {
        f->phase = 1;
        return make_call(call, TOKEN_WORD(f->r->kind == AVRO_KIND_ARRAY ? "items" : "values"), f->r->u.items,
                         f->w->u.items, 0);
    }
    merge(c, &f->acc, f->child);
    return STEP_DONE;
}

static step_result_t step_same_kind(check_ctx_t *c, check_frame_t *f, check_call_t *call)
{
    switch (f->r->kind) {
    case AVRO_KIND_ARRAY:
    case AVRO_KIND_MAP: return step_items(c, f, call);
    case AVRO_KIND_RECORD: return step_record(c, f, call);
    case AVRO_KIND_UNION: return step_union_branches(c, f, call);
    case AVRO_KIND_FIXED:
        check_names(c, f);
        check_fixed_size(c, f);
        return STEP_DONE;
    case AVRO_KIND_ENUM:
        check_names(c, f);
        check_symbols(c, f);
        return STEP_DONE;
    default: return STEP_DONE;
    }
}

/* ---- 4. Different types
 * ----------------------------------------------------------------------------- */

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

/* A plain reader against a writer union: every branch, at its index. */
static step_result_t step_writer_union(check_ctx_t *c, check_frame_t *f, check_call_t *call)
{
    if (f->phase == 0) {
        f->phase = 1;
    } else {
        merge(c, &f->acc, f->child);
        f->i++;
    }
    if (f->i >= f->w->u.uni.n)
        return STEP_DONE;
    c->work++;
    return make_call(call, TOKEN_NUM(f->i), f->r, f->w->u.uni.branches[f->i], 0);
}

static step_result_t step_reader_union(check_ctx_t *c, check_frame_t *f, check_call_t *call);

static step_result_t step(check_ctx_t *c, check_frame_t *f, check_call_t *call)
{
    const avro_node_t *r = f->r, *w = f->w;
    if (r->kind == w->kind)
        return step_same_kind(c, f, call);
    if (w->kind == AVRO_KIND_UNION)
        return step_writer_union(c, f, call);
    if (r->kind == AVRO_KIND_UNION)
        return step_reader_union(c, f, call);
    if (!promotable(r->kind, w->kind))
        add_issue(c, &f->acc, f->base, AVRO_ISSUE_TYPE_MISMATCH,
                  "reader type: %s not compatible with writer type: %s", avro_kind_upper(r->kind),
                  avro_kind_upper(w->kind));
    return STEP_DONE;
}

/* ---- 5. Reader unions: which branches need trying ----------------------------------------- */

/*
 * A reader union reads a writer type with its first branch that does
 * (Avro tries them in order), so a wide union checked against itself tries
 * n^2 / 2 pairs. Most tries are foregone conclusions: only a branch of the
 * writer's kind with a matching name (named types), of its kind or a
 * promotion (primitives), or of its kind (arrays, maps) can read it. Such
 * candidates are looked up in an index of the union, in branch order.
 *
 * A branch that cannot read the writer is still tried when trying it could
 * leave a trace, since Avro keeps the result of every pair it tries and a
 * later use of that pair repeats its locations. Skipping is exact when:
 *   - the branch or the writer is a primitive: such pairs are not memoized
 *     and never recurse (a union against a primitive writer needs no more);
 *   - else the branch is used once in the reader: its pairs come from this
 *     union only, whose pair with the writer is memoized, so the pair is
 *     never met again. Of another kind it is a leaf (TYPE_MISMATCH); of the
 *     same kind and another name, enums and fixed are leaves, and records
 *     are skipped when "flat": every field's type a primitive, or an array,
 *     map or union of primitives, and no field alias (aliases can throw).
 *     A flat record's field pairs end one level down, and their locations
 *     are the reader's path from the branch (a fresh root), the same
 *     whichever writer record met them first.
 * Every other branch is tried in its turn, as Avro would: shared named
 * types and deep records keep the quadratic scan, under the work cap.
 */

/* One branch in a sorted list; key is a name (NULL in the lists by index). */
typedef struct branch_key {
    avro_kind_t kind;
    const char *key;
    size_t idx;
} branch_key_t;

typedef struct branch_list {
    const branch_key_t *p;
    const branch_key_t *end;
} branch_list_t;

#define N_KINDS AVRO_KIND_UNRESOLVED

typedef struct union_index {
    branch_key_t *names; /* named branches by (kind, unqualified name, index) */
    size_t n_names;
    branch_key_t *aliases; /* (kind, full alias, index), aliases names_match accepts */
    size_t n_aliases;
    branch_list_t of_kind[N_KINDS];    /* every branch of a kind, by index */
    branch_list_t tried_other;         /* tried against a writer of another kind */
    branch_list_t tried_same[N_KINDS]; /* named kinds: tried against the same kind, another name */
} union_index_t;

/* The branches left to try: the merge, by index, of up to four lists. */
struct branch_scan {
    branch_list_t lists[4];
};

static int key_order(const void *a, const void *b)
{
    const branch_key_t *x = a, *y = b;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    int c = strcmp(x->key, y->key);
    if (c)
        return c;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

/* The entries of a sorted key list with this kind and key. */
static branch_list_t key_range(const branch_key_t *keys, size_t n, avro_kind_t kind, const char *key)
{
    branch_key_t probe = {.kind = kind, .key = key, .idx = 0};
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (key_order(&keys[mid], &probe) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t end = lo;
    while (end < n && keys[end].kind == kind && strcmp(keys[end].key, key) == 0)
        end++;
    return (branch_list_t){keys + lo, keys + end};
}

/* Reader nodes referenced more than once (named types used again), counted
 * once per check over the reader's graph. */
static int count_uses(check_ctx_t *c)
{
    size_t sp = 0, cap = 64;
    const avro_node_t **stack = malloc(cap * sizeof *stack);
    if (!stack || hmap_put_pair_try(&c->uses, c->reader_root, NULL, (void *)1) != 0)
        goto oom;
    stack[sp++] = c->reader_root;
    while (sp) {
        const avro_node_t *n = stack[--sp];
        size_t kids = n->kind == AVRO_KIND_RECORD                              ? n->u.record.n
                      : n->kind == AVRO_KIND_UNION                             ? n->u.uni.n
                      : n->kind == AVRO_KIND_ARRAY || n->kind == AVRO_KIND_MAP ? 1
                                                                               : 0;
        for (size_t i = 0; i < kids; i++) {
            const avro_node_t *kid = n->kind == AVRO_KIND_RECORD  ? n->u.record.fields[i].type
                                     : n->kind == AVRO_KIND_UNION ? n->u.uni.branches[i]
                                                                  : n->u.items;
            if (avro_kind_is_primitive(kid->kind))
                continue;
            void *seen = hmap_get_pair(&c->uses, kid, NULL);
            if (seen == (void *)2)
                continue;
            if (hmap_put_pair_try(&c->uses, kid, NULL, seen ? (void *)2 : (void *)1) != 0)
                goto oom;
            if (seen)
                continue;
            if (sp == cap) {
                const avro_node_t **grown = realloc(stack, cap * 2 * sizeof *stack);
                if (!grown)
                    goto oom;
                stack = grown;
                cap *= 2;
            }
            stack[sp++] = kid;
        }
    }
    free(stack);
    return 0;
oom:
    free(stack);
    c->oom = 1;
    return -1;
}

static int flat_type(const avro_node_t *t)
{
    if (t->kind == AVRO_KIND_ARRAY || t->kind == AVRO_KIND_MAP)
        return avro_kind_is_primitive(t->u.items->kind);
    if (t->kind != AVRO_KIND_UNION)
        return avro_kind_is_primitive(t->kind);
    for (size_t i = 0; i < t->u.uni.n; i++)
        if (!avro_kind_is_primitive(t->u.uni.branches[i]->kind))
            return 0;
    return 1;
}

/* Which skips section 5's comment allows for branch b. */
static void branch_skips(check_ctx_t *c, const avro_node_t *b, int *other, int *same)
{
    int once = avro_kind_is_primitive(b->kind) || hmap_get_pair(&c->uses, b, NULL) == (void *)1;
    int flat = 1;
    for (size_t i = 0; b->kind == AVRO_KIND_RECORD && i < b->u.record.n && flat; i++)
        flat = !b->u.record.fields[i].n_aliases && flat_type(b->u.record.fields[i].type);
    *other = once;
    *same = once && flat;
}

/* Appends to a list whose room was counted before. */
static void list_add(branch_list_t *l, avro_kind_t kind, const char *key, size_t idx)
{
    branch_key_t *slot = (branch_key_t *)l->end;
    *slot = (branch_key_t){.kind = kind, .key = key, .idx = idx};
    l->end = slot + 1;
}

static branch_key_t *keys_alloc(check_ctx_t *c, size_t n)
{
    branch_key_t *keys = arena_alloc(c->arena, (n ? n : 1) * sizeof *keys);
    if (!keys)
        c->oom = 1;
    return keys;
}

static int list_alloc(check_ctx_t *c, branch_list_t *l, size_t n)
{
    l->p = l->end = keys_alloc(c, n);
    return l->p ? 0 : -1;
}

static union_index_t *union_index_build(check_ctx_t *c, const avro_node_t *u)
{
    const size_t n = u->u.uni.n;
    size_t n_kind[N_KINDS] = {0}, n_same[N_KINDS] = {0}, n_other = 0, n_aliases = 0;
    union_index_t *ix = arena_alloc(c->arena, sizeof *ix);
    char *skips = malloc(n ? n : 1);
    if (!ix || !skips)
        goto oom;
    memset(ix, 0, sizeof *ix);
    for (size_t j = 0; j < n; j++) {
        const avro_node_t *b = u->u.uni.branches[j];
        int other, same;
        branch_skips(c, b, &other, &same);
        skips[j] = (char)(other | same << 1);
        n_kind[b->kind]++;
        n_other += !other;
        n_same[b->kind] += b->named && !same;
        for (size_t a = 0; b->named && a < b->named->n_aliases; a++)
            n_aliases++;
    }
    for (int k = 0; k < N_KINDS; k++)
        if (list_alloc(c, &ix->of_kind[k], n_kind[k]) || list_alloc(c, &ix->tried_same[k], n_same[k]))
            goto oom;
    if (list_alloc(c, &ix->tried_other, n_other) || !(ix->names = keys_alloc(c, n)) ||
        !(ix->aliases = keys_alloc(c, n_aliases)))
        goto oom;
    for (size_t j = 0; j < n; j++) {
        const avro_node_t *b = u->u.uni.branches[j];
        list_add(&ix->of_kind[b->kind], b->kind, NULL, j);
        if (!(skips[j] & 1))
            list_add(&ix->tried_other, b->kind, NULL, j);
        if (!b->named)
            continue;
        if (!(skips[j] & 2))
            list_add(&ix->tried_same[b->kind], b->kind, NULL, j);
        ix->names[ix->n_names++] = (branch_key_t){b->kind, b->named->name.name, j};
        for (size_t a = 0; a < b->named->n_aliases; a++) {
            const avro_name_t *al = &b->named->aliases[a];
            if (!(al->space == NULL && b->named->name.space != NULL)) /* as names_match */
                ix->aliases[ix->n_aliases++] = (branch_key_t){b->kind, al->full, j};
        }
    }
    qsort(ix->names, ix->n_names, sizeof *ix->names, key_order);
    qsort(ix->aliases, ix->n_aliases, sizeof *ix->aliases, key_order);
    free(skips);
    return ix;
oom:
    free(skips);
    c->oom = 1;
    return NULL;
}

static union_index_t *union_index(check_ctx_t *c, const avro_node_t *u)
{
    union_index_t *ix = hmap_get_pair(&c->unions, u, NULL);
    if (ix)
        return ix;
    if (!c->uses.used && count_uses(c) != 0)
        return NULL;
    if (!(ix = union_index_build(c, u)) || hmap_put_pair_try(&c->unions, u, NULL, ix) != 0) {
        c->oom = 1;
        return NULL;
    }
    return ix;
}

/* The lists whose merge is every branch worth trying against w, in order. */
static branch_scan_t *branch_scan_new(check_ctx_t *c, const avro_node_t *u, const avro_node_t *w)
{
    union_index_t *ix = union_index(c, u);
    branch_scan_t *s = ix ? arena_alloc(c->arena, sizeof *s) : NULL;
    if (!s) {
        c->oom = 1;
        return NULL;
    }
    memset(s, 0, sizeof *s);
    if (avro_kind_is_primitive(w->kind)) {
        /* The first branch of w's kind or of one that w promotes to reads it. */
        size_t n = 0;
        for (int k = 0; k < N_KINDS; k++)
            if (k == (int)w->kind || promotable((avro_kind_t)k, w->kind))
                s->lists[n++] = ix->of_kind[k];
    } else if (!w->named) {
        s->lists[0] = ix->of_kind[w->kind];
        s->lists[1] = ix->tried_other;
    } else {
        s->lists[0] = key_range(ix->names, ix->n_names, w->kind, w->named->name.name);
        s->lists[1] = key_range(ix->aliases, ix->n_aliases, w->kind, w->named->name.full);
        s->lists[2] = ix->tried_other;
        s->lists[3] = ix->tried_same[w->kind];
    }
    return s;
}

/* The next branch to try, or -1: the smallest index at the lists' heads. */
static long branch_scan_next(branch_scan_t *s)
{
    long best = -1;
    for (int i = 0; i < 4; i++)
        if (s->lists[i].p < s->lists[i].end && (best < 0 || s->lists[i].p->idx < (size_t)best))
            best = (long)s->lists[i].p->idx;
    for (int i = 0; i < 4 && best >= 0; i++)
        if (s->lists[i].p < s->lists[i].end && s->lists[i].p->idx == (size_t)best)
            s->lists[i].p++;
    return best;
}

/* The first reader branch that reads the writer wins; none: one issue here. */
static step_result_t step_reader_union(check_ctx_t *c, check_frame_t *f, check_call_t *call)
{
    if (f->phase == 0) {
        f->phase = 1;
        if (!(f->scan = branch_scan_new(c, f->r, f->w)))
            return STEP_DONE;
    } else if (f->child == COMPATIBLE) {
        return STEP_DONE;
    }
    long next = branch_scan_next(f->scan);
    if (next >= 0) {
        c->work++;
        return make_call(call, TOKEN_ROOT, f->r->u.uni.branches[next], f->w, 1);
    }
    add_issue(c, &f->acc, f->base, AVRO_ISSUE_MISSING_UNION_BRANCH, "reader union lacking writer type: %s",
              avro_kind_upper(f->w->kind));
    return STEP_DONE;
}

/* ---- 6. The driver: memoized calls ----------------------------------------------------------- */

typedef struct frame_stack {
    check_frame_t *items;
    size_t n;
    size_t cap;
} frame_stack_t;

static int memoized(const avro_node_t *r, const avro_node_t *w)
{
    return !avro_kind_is_primitive(r->kind) && !avro_kind_is_primitive(w->kind);
}

static check_frame_t *frame_push(check_ctx_t *c, frame_stack_t *st)
{
    if (st->n >= AVRO_CHECK_MAX_DEPTH) {
        check_throw(c, strdup("schemas are nested too deeply to compare"));
        return NULL;
    }
    if (st->n == st->cap) {
        size_t cap = st->cap ? st->cap * 2 : 64;
        check_frame_t *items = realloc(st->items, cap * sizeof *items);
        if (!items) {
            c->oom = 1;
            return NULL;
        }
        st->items = items;
        st->cap = cap;
    }
    check_frame_t *f = &st->items[st->n++];
    memset(f, 0, sizeof *f);
    return f;
}

/* getCompatibility: pushes the call's token, answers from the memo (a pair
 * in progress counts as compatible) or starts a frame. Returns NULL when a
 * frame was started, else the immediate result. */
static const check_result_t *begin_call(check_ctx_t *c, frame_stack_t *st, const check_call_t *call)
{
    size_t base = call->fresh ? c->top : st->items[st->n - 1].base;
    size_t mark = c->top;
    token_push(c, call->tok);
    int memo = memoized(call->r, call->w);
    const check_result_t *known = memo ? hmap_get_pair(&c->memo, call->r, call->w) : NULL;
    if (known) {
        token_pop(c, mark);
        return known == IN_PROGRESS ? COMPATIBLE : known;
    }
    if (++c->work > AVRO_CHECK_MAX_WORK) {
        check_throw(c, strdup("the schemas are too large to compare"));
        return COMPATIBLE;
    }
    if (memo && hmap_put_pair_try(&c->memo, call->r, call->w, (void *)IN_PROGRESS) != 0)
        c->oom = 1;
    check_frame_t *f = check_failed(c) ? NULL : frame_push(c, st);
    if (!f)
        return COMPATIBLE;
    f->r = call->r;
    f->w = call->w;
    f->base = base;
    f->mark = mark;
    f->memoize = memo;
    return NULL;
}

static const check_result_t *end_frame(check_ctx_t *c, frame_stack_t *st)
{
    check_frame_t *f = &st->items[--st->n];
    const check_result_t *res = finish(f->acc);
    if (f->memoize && hmap_put_pair_try(&c->memo, f->r, f->w, (void *)res) != 0)
        c->oom = 1;
    token_pop(c, f->mark);
    return res;
}

static const check_result_t *run_check(check_ctx_t *c, const avro_node_t *r, const avro_node_t *w)
{
    frame_stack_t st = {0};
    check_call_t call = {.tok = TOKEN_ROOT, .r = r, .w = w, .fresh = 1};
    const check_result_t *res = begin_call(c, &st, &call);
    while (st.n && !check_failed(c)) {
        if (step(c, &st.items[st.n - 1], &call) == STEP_CALL) {
            const check_result_t *now = begin_call(c, &st, &call);
            if (now)
                st.items[st.n - 1].child = now;
            continue;
        }
        res = end_frame(c, &st);
        if (st.n)
            st.items[st.n - 1].child = res;
    }
    free(st.items);
    return check_failed(c) ? NULL : res;
}

/* ---- 7. Flattening ----------------------------------------------------------------------------- */

static size_t token_text(const check_token_t *t, char num[24])
{
    if (t->word)
        return strlen(t->word);
    return (size_t)snprintf(num, 24, "%zu", t->num);
}

/* Avro's getLocation: the tokens after the root, "/"-joined ("/" alone
 * when there are none), written back to front along the path. */
static char *location_text(const check_piece_t *p)
{
    char num[24];
    size_t len = 0;
    for (const check_path_t *n = p->path; n && n->pos > p->base; n = n->parent)
        len += 1 + token_text(&n->tok, num);
    if (!len)
        return strdup("/");
    char *out = malloc(len + 1);
    if (!out)
        return NULL;
    char *w = out + len;
    *w = '\0';
    for (const check_path_t *n = p->path; n && n->pos > p->base; n = n->parent) {
        size_t tl = token_text(&n->tok, num);
        w -= tl;
        memcpy(w, n->tok.word ? n->tok.word : num, tl);
        *--w = '/';
    }
    return out;
}

static int issue_push(avro_issues_t *out, size_t *cap, const check_piece_t *p, size_t *bytes)
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
    it->location = location_text(p);
    it->message = strdup(p->message);
    if (!it->location || !it->message) {
        free(it->location);
        free(it->message);
        return -1;
    }
    *bytes += strlen(it->location) + strlen(it->message);
    out->n++;
    return 0;
}

/* In-order walk of the result DAG with an explicit stack of "next piece". */
static int flatten(const check_result_t *res, avro_issues_t *out)
{
    size_t cap = 0, sp = 0, stack_cap = 64, bytes = 0;
    const check_piece_t **stack = malloc(stack_cap * sizeof *stack);
    if (!stack)
        return -1;
    int rc = 0;
    stack[sp++] = res->head;
    while (sp && rc == 0) {
        const check_piece_t *p = stack[--sp];
        if (!p)
            continue;
        if (out->n >= AVRO_CHECK_MAX_ISSUES || bytes >= AVRO_CHECK_MAX_REPORT_BYTES) {
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
            rc = issue_push(out, &cap, p, &bytes);
    }
    free(stack);
    return rc;
}

int avro_check(const avro_model_t *reader, const avro_model_t *writer, avro_issues_t *out)
{
    check_ctx_t c = {0};
    if (!(c.arena = arena_new()))
        return -1;
    c.reader_root = reader->root;
    const check_result_t *res = run_check(&c, reader->root, writer->root);
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
    free(c.paths);
    hmap_clear(&c.memo);
    hmap_clear(&c.uses);
    hmap_clear(&c.unions);
    arena_free(c.arena);
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
