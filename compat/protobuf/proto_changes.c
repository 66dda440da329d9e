/*
 * proto_changes: the change list of two Protobuf schemas (compat/change.h,
 * docs/evolution.md "Protobuf"), mapped from Confluent's difference types.
 *
 * Contents
 *   1. Paths: "#/Customer/3" as the column "Customer.full_name", and the field there
 *   2. Difference type -> change kind
 *   3. What Confluent's diff does not see: presence, required, integer and enum width, defaults
 *   4. The list
 *
 * The differences are proto_diff's (the one behind every compatibility
 * answer). Fields are matched by number there, so a field with its number
 * kept and a new name is a rename. Backward is Confluent's verdict on the
 * difference; forward its verdict on the differences the reverse diff
 * (new -> old) finds at the same path. A column is named by the message that
 * declares it, since Protobuf compares each message once, not once per field
 * that uses it.
 *
 * Some changes leave the wire as it was, so Confluent's diff has no type for
 * them, yet they change what a reader gets: proto3 `optional` (an editions
 * file's features.field_presence) added or removed, an integer (or enum) type
 * for a wider or narrower one of the same encoding, a proto2
 * `[default = ...]`. A `required` label change it sees only as a label
 * difference. Section 3 compares the field pairs the diff met
 * (proto_diff_changes_paired) for those, and only those.
 */
#include "compat/protobuf/internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- 1. Paths -------------------------------------------------------------------------- */

/* What a difference's path names in one file. */
typedef struct place {
    const proto_field_t *field;
    const proto_enum_value_t *value;
    int resolved; /* every segment was found */
} place_t;

static int all_digits(const char *s, size_t n)
{
    return n && strspn(s, "0123456789") >= n;
}

static const proto_field_t *field_by_tag(const proto_message_t *m, int32_t tag)
{
    for (size_t i = 0; i < m->n_fields; i++)
        if (m->fields[i]->tag == tag)
            return m->fields[i];
    for (size_t i = 0; i < m->n_oneofs; i++)
        for (size_t j = 0; j < m->oneofs[i]->n_fields; j++)
            if (m->oneofs[i]->fields[j]->tag == tag)
                return m->oneofs[i]->fields[j];
    return NULL;
}

static const proto_type_t *type_named(proto_type_t *const *types, size_t n, const char *name, size_t len)
{
    for (size_t i = 0; i < n; i++) {
        const char *tn =
            types[i]->kind == PROTO_TYPE_MESSAGE ? types[i]->message->name : types[i]->enumeration->name;
        if (strlen(tn) == len && memcmp(tn, name, len) == 0)
            return types[i];
    }
    return NULL;
}

static int is_oneof(const proto_message_t *m, const char *name, size_t len)
{
    for (size_t i = 0; m && i < m->n_oneofs; i++)
        if (strlen(m->oneofs[i]->name) == len && memcmp(m->oneofs[i]->name, name, len) == 0)
            return 1;
    return 0;
}

/*
 * Walks "#/A/B/oneof/3" through the file: type names, an optional oneof
 * name, a field or enum value number. *col (when not NULL) gets the column:
 * the type names and the field's name, the oneof left out; segments the
 * file does not have (an imported type's sub-diff) are kept as written.
 */
static place_t locate(const proto_file_t *f, const char *path, strbuf_t *col)
{
    place_t at = {0};
    const proto_message_t *msg = NULL;
    const proto_enum_t *enm = NULL;
    const char *p = path[0] == '#' ? path + 1 : path;
    at.resolved = 1;
    while (*p) {
        if (*p == '/')
            p++;
        const char *seg = p;
        size_t n = strcspn(p, "/");
        p += n;
        if (!n)
            continue;
        const char *word = seg; /* what the column shows for this segment */
        size_t wlen = n;
        if (all_digits(seg, n) && (msg || enm) && at.resolved) {
            int32_t tag = (int32_t)strtol(seg, NULL, 10);
            if (msg && (at.field = field_by_tag(msg, tag)) != NULL) {
                word = at.field->name;
                wlen = strlen(word);
            } else if (enm) {
                for (size_t i = 0; i < enm->n_values && !at.value; i++)
                    if (enm->values[i]->tag == tag)
                        at.value = enm->values[i];
                if (at.value)
                    break; /* the constant is the change's detail, not a column */
            }
            if (!at.field)
                at.resolved = 0;
        } else if (at.resolved && is_oneof(msg, seg, n) && *p) {
            continue; /* a member's column leaves its oneof out; the oneof's own change names it */
        } else if (at.resolved) {
            const proto_type_t *t =
                msg ? type_named(msg->types, msg->n_types, seg, n) : type_named(f->types, f->n_types, seg, n);
            if (!t || enm) {
                at.resolved = 0;
            } else if (t->kind == PROTO_TYPE_MESSAGE) {
                msg = t->message;
            } else {
                enm = t->enumeration;
                msg = NULL;
            }
        }
        if (col) {
            if (col->len)
                strbuf_putc(col, '.');
            strbuf_put(col, word, wlen);
        }
    }
    return at;
}

/* "int32", "repeated string", "optional .google.protobuf.Int32Value". */
static char *field_label(const proto_field_t *f)
{
    if (!f)
        return NULL;
    strbuf_t b = {0};
    if (f->label == PROTO_LABEL_REPEATED)
        strbuf_puts(&b, "repeated ");
    else if (f->label == PROTO_LABEL_OPTIONAL)
        strbuf_puts(&b, "optional ");
    else if (f->label == PROTO_LABEL_REQUIRED)
        strbuf_puts(&b, "required ");
    strbuf_puts(&b, f->type);
    return strbuf_take(&b);
}

/* ---- 2. Difference type -> change kind ---------------------------------------------------------- */

/*
 * 1 when a reader of the field can tell "not set" from a value: a column that
 * may be null. proto3 without a label is implicit presence (a zero is not
 * sent, and reads as zero); `optional` there and in proto2 is explicit. -1
 * where the question is not one of labels: repeated, required (section 3),
 * maps, messages (always explicit), oneof members (the oneof differences).
 * Editions say it with features.field_presence instead (proto_diff resolved
 * it through the scopes): EXPLICIT is `optional`, IMPLICIT proto3's none,
 * LEGACY_REQUIRED proto2's `required`.
 */
static int nullable(const proto_field_t *f, proto_syntax_t syntax, int oneof, int kind, int presence)
{
    if ((kind != PROTO_PAIR_SCALAR && kind != PROTO_PAIR_ENUM) || oneof || f->label == PROTO_LABEL_REPEATED)
        return -1;
    if (syntax == PROTO_SYNTAX_EDITION)
        return presence == PROTO_PRESENCE_EXPLICIT ? 1 : presence == PROTO_PRESENCE_IMPLICIT ? 0 : -1;
    if (f->label == PROTO_LABEL_OPTIONAL)
        return 1;
    return f->label == PROTO_LABEL_NONE && syntax == PROTO_SYNTAX_PROTO3 ? 0 : -1;
}

/* The pair of a difference: the next one the diff recorded, when it is at
 * the same path (a field's own differences come just before its pair). */
static const proto_field_pair_t *pair_of(const proto_field_pair_t *next, const char *path)
{
    return next && strcmp(next->path, path) == 0 ? next : NULL;
}

/* google.protobuf.Int32Value wraps int32, and so on: a wrapper is the way to
 * a nullable scalar (docs/evolution.md). */
static int wraps(const char *wrapper, const char *scalar)
{
    static const char *const pairs[][2] = {
        {"DoubleValue", "double"}, {"FloatValue", "float"},   {"Int64Value", "int64"},
        {"UInt64Value", "uint64"}, {"Int32Value", "int32"},   {"UInt32Value", "uint32"},
        {"BoolValue", "bool"},     {"StringValue", "string"}, {"BytesValue", "bytes"},
    };
    if (*wrapper == '.')
        wrapper++;
    if (strncmp(wrapper, "google.protobuf.", 16) != 0)
        return 0;
    for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++)
        if (strcmp(wrapper + 16, pairs[i][0]) == 0)
            return strcmp(scalar, pairs[i][1]) == 0;
    return 0;
}

/* A scalar that could already be unset (proto3 `optional`, proto2) turned
 * into its wrapper, or back, changes the type but not the nullability. */
static int scalar_side_nullable(const proto_field_pair_t *p)
{
    if (!p)
        return 0;
    return p->orig_kind == PROTO_PAIR_SCALAR
               ? nullable(p->orig, p->orig_syntax, p->orig_oneof, p->orig_kind, p->orig_presence) == 1
               : nullable(p->update, p->update_syntax, p->update_oneof, p->update_kind, p->update_presence) ==
                     1;
}

static change_kind_t kind_of(proto_change_type_t t, const proto_field_t *o, const proto_field_t *n,
                             const proto_field_pair_t *pair)
{
    switch (t) {
    case PROTO_FIELD_ADDED:
    case PROTO_REQUIRED_FIELD_ADDED:
    case PROTO_ONEOF_FIELD_ADDED:
        return n && n->default_value ? CHANGE_FIELD_ADDED_WITH_DEFAULT : CHANGE_FIELD_ADDED;
    case PROTO_FIELD_REMOVED:
    case PROTO_REQUIRED_FIELD_REMOVED:
    case PROTO_ONEOF_FIELD_REMOVED: return CHANGE_FIELD_REMOVED;
    case PROTO_FIELD_NAME_CHANGED: return CHANGE_FIELD_RENAMED;
    case PROTO_FIELD_KIND_CHANGED:
        if (o && n && (wraps(o->type, n->type) || wraps(n->type, o->type)) && !scalar_side_nullable(pair))
            return CHANGE_NULLABILITY_CHANGED;
        return CHANGE_TYPE_CHANGED;
    case PROTO_FIELD_SCALAR_KIND_CHANGED:
    case PROTO_FIELD_NAMED_TYPE_CHANGED: return CHANGE_TYPE_CHANGED;
    case PROTO_ENUM_CONST_ADDED: return CHANGE_ENUM_SYMBOL_ADDED;
    case PROTO_ENUM_CONST_REMOVED: return CHANGE_ENUM_SYMBOL_REMOVED;
    default: return CHANGE_OTHER;
    }
}

/* The engine's own type name where the kind alone loses it. */
static const char *proto_detail(proto_change_type_t t, change_kind_t k)
{
    static const char *const names[PROTO_CHANGE_TYPE_COUNT] = {
        [PROTO_PACKAGE_CHANGED] = "PACKAGE_CHANGED",
        [PROTO_MESSAGE_ADDED] = "MESSAGE_ADDED",
        [PROTO_MESSAGE_REMOVED] = "MESSAGE_REMOVED",
        [PROTO_MESSAGE_MOVED] = "MESSAGE_MOVED",
        [PROTO_ENUM_ADDED] = "ENUM_ADDED",
        [PROTO_ENUM_REMOVED] = "ENUM_REMOVED",
        [PROTO_ENUM_CONST_CHANGED] = "ENUM_CONST_CHANGED",
        [PROTO_REQUIRED_FIELD_ADDED] = "REQUIRED_FIELD_ADDED",
        [PROTO_REQUIRED_FIELD_REMOVED] = "REQUIRED_FIELD_REMOVED",
        [PROTO_FIELD_NUMERIC_LABEL_CHANGED] = "FIELD_NUMERIC_LABEL_CHANGED",
        [PROTO_FIELD_STRING_OR_BYTES_LABEL_CHANGED] = "FIELD_STRING_OR_BYTES_LABEL_CHANGED",
        [PROTO_ONEOF_ADDED] = "ONEOF_ADDED",
        [PROTO_ONEOF_REMOVED] = "ONEOF_REMOVED",
        [PROTO_ONEOF_FIELD_ADDED] = "ONEOF_FIELD_ADDED",
        [PROTO_ONEOF_FIELD_REMOVED] = "ONEOF_FIELD_REMOVED",
        [PROTO_ONEOF_FIELD_MOVED_TO_TOP_LEVEL] = "ONEOF_FIELD_MOVED_TO_TOP_LEVEL",
        [PROTO_MULTIPLE_FIELDS_MOVED_TO_ONEOF] = "MULTIPLE_FIELDS_MOVED_TO_ONEOF",
        [PROTO_FIELD_MOVED_TO_EXISTING_ONEOF] = "FIELD_MOVED_TO_EXISTING_ONEOF",
        [PROTO_FIELD_KIND_CHANGED] = "FIELD_KIND_CHANGED",
        [PROTO_FIELD_NAMED_TYPE_CHANGED] = "FIELD_NAMED_TYPE_CHANGED",
    };
    if (k == CHANGE_TYPE_CHANGED && t != PROTO_FIELD_NAMED_TYPE_CHANGED)
        return NULL;
    return t < PROTO_CHANGE_TYPE_COUNT ? names[t] : NULL;
}

/* ---- 3. What Confluent's diff does not see ----------------------------------------------------------- */

/*
 * The values a type's wire encoding carries, for the types Protobuf's guide
 * ("Updating a message type") calls compatible with each other: the varints
 * int32, uint32, int64, uint64 and bool; sint32 and sint64 (zigzag);
 * fixed32 and sfixed32; fixed64 and sfixed64; string and bytes. Other pairs
 * are Confluent's FIELD_SCALAR_KIND_CHANGED already. A value range is
 * [-2^neg, 2^pos) (neg 0: from 0); string's values, valid UTF-8, are some of
 * bytes'. A reader gets every value a writer's type holds exactly when the
 * writer's range is inside its own; outside it, the guide says, a number is
 * cast as C++ casts it (an int64 read as int32 loses its high bits), and a
 * proto3 string refuses bytes that are not UTF-8.
 */
typedef struct value_range {
    const char *type;
    char encoding; /* v varint, z zigzag, 4 and 8 fixed width, l length-delimited */
    unsigned char neg, pos;
} value_range_t;

static const value_range_t *range_of(const char *type)
{
    static const value_range_t ranges[] = {
        {"bool", 'v', 0, 1},     {"int32", 'v', 31, 31},    {"uint32", 'v', 0, 32},
        {"int64", 'v', 63, 63},  {"uint64", 'v', 0, 64},    {"sint32", 'z', 31, 31},
        {"sint64", 'z', 63, 63}, {"fixed32", '4', 0, 32},   {"sfixed32", '4', 31, 31},
        {"fixed64", '8', 0, 64}, {"sfixed64", '8', 63, 63}, {"string", 'l', 0, 0},
        {"bytes", 'l', 0, 1},
    };
    for (size_t i = 0; i < sizeof ranges / sizeof *ranges; i++)
        if (strcmp(type, ranges[i].type) == 0)
            return &ranges[i];
    return NULL;
}

typedef enum width { W_SAME, W_WIDER, W_NARROWER, W_OTHER, W_BOTH, W_NOT_HERE } width_t;

/* o -> n for two scalar type names; W_NOT_HERE when the encodings differ
 * (Confluent's difference) or either is no scalar of the table. */
static width_t width_of(const char *o, const char *n)
{
    if (strcmp(o, n) == 0)
        return W_SAME;
    const value_range_t *a = range_of(o), *b = range_of(n);
    if (!a || !b || a->encoding != b->encoding)
        return W_NOT_HERE;
    if (a->neg <= b->neg && a->pos <= b->pos)
        return W_WIDER;
    if (b->neg <= a->neg && b->pos <= a->pos)
        return W_NARROWER;
    return W_OTHER;
}

/* A map's key and value together: the same, else one way for both, else other. */
static width_t width_join(width_t a, width_t b)
{
    if (a == W_NOT_HERE || b == W_NOT_HERE)
        return W_NOT_HERE;
    if (a == W_SAME || a == b)
        return b;
    return b == W_SAME ? a : W_OTHER;
}

/*
 * An enum for an integer type or back. Protobuf's guide calls enums wire
 * compatible with int32, uint32, int64 and uint64 (varints; bool is one too),
 * and Confluent's diff gives enums and those types one scalar kind, so it has
 * no difference here and its levels accept the change both ways. Which
 * reader keeps every value, as for two integers: an enum's values are its
 * constants, so an integer type holds them when its range holds each one
 * (uint32 and uint64 not a negative constant, which is sign-extended on the
 * wire and reads as a huge number); an enum holds an integer type's values
 * only when they are all constants, which for bool (0 and 1) can happen and
 * for the others cannot (an unknown number reads as no constant: a proto3
 * enum keeps the bare number, a proto2 one moves it to the unknown fields and
 * reads its default). One side holding the other is a widening or a
 * narrowing, neither a TYPE_CHANGED that loses both, and both (an enum of 0
 * and 1 for bool) a TYPE_CHANGED that loses none. Other encodings (sint32,
 * fixed32, ...) are Confluent's FIELD_SCALAR_KIND_CHANGED already.
 */
static int int_holds_enum(const value_range_t *r, const proto_enum_t *e)
{
    for (size_t i = 0; i < e->n_values; i++) {
        int64_t v = e->values[i]->tag;
        if ((r->neg < 31 && v < (r->neg ? -((int64_t)1 << r->neg) : 0)) ||
            (r->pos < 31 && v >= ((int64_t)1 << r->pos)))
            return 0;
    }
    return 1;
}

static int enum_holds_int(const value_range_t *r, const proto_enum_t *e)
{
    int zero = 0, one = 0;
    for (size_t i = 0; i < e->n_values; i++)
        zero |= e->values[i]->tag == 0, one |= e->values[i]->tag == 1;
    return r->pos == 1 && zero && one; /* bool, the one integer type with that few values */
}

static width_t enum_width(const proto_field_pair_t *p)
{
    int to_int = p->orig_kind == PROTO_PAIR_ENUM;
    const proto_enum_t *e = to_int ? p->orig_enum : p->update_enum;
    const value_range_t *r = range_of(to_int ? p->update->type : p->orig->type);
    if (!e || !r || r->encoding != 'v')
        return W_NOT_HERE;
    /* backward: the new side reads the old side's values; forward the reverse. */
    int int_reads = int_holds_enum(r, e), enum_reads = enum_holds_int(r, e);
    int backward = to_int ? int_reads : enum_reads, forward = to_int ? enum_reads : int_reads;
    if (backward && forward)
        return W_BOTH;
    return backward ? W_WIDER : forward ? W_NARROWER : W_OTHER;
}

static width_t pair_width(const proto_field_pair_t *p)
{
    if (p->orig_kind == PROTO_PAIR_SCALAR && p->update_kind == PROTO_PAIR_SCALAR)
        return width_of(p->orig->type, p->update->type);
    if ((p->orig_kind == PROTO_PAIR_ENUM && p->update_kind == PROTO_PAIR_SCALAR) ||
        (p->orig_kind == PROTO_PAIR_SCALAR && p->update_kind == PROTO_PAIR_ENUM))
        return enum_width(p);
    if (p->orig_kind != PROTO_PAIR_MAP || p->update_kind != PROTO_PAIR_MAP || !p->orig->map_key ||
        !p->update->map_key)
        return W_NOT_HERE;
    width_t v = strcmp(p->orig->map_value, p->update->map_value) == 0
                    ? W_SAME
                    : width_of(p->orig->map_value, p->update->map_value);
    return width_join(width_of(p->orig->map_key, p->update->map_key), v);
}

static int same_default(const proto_field_t *a, const proto_field_t *b)
{
    if (!a->default_value || !b->default_value)
        return a->default_value == b->default_value;
    return a->default_len == b->default_len &&
           memcmp(a->default_value, b->default_value, a->default_len) == 0;
}

/* 2 for a required field (proto2's label, editions' LEGACY_REQUIRED), 1
 * for one with explicit presence (`optional`, editions' EXPLICIT), else 0. */
static int requiredness(const proto_field_t *f, int presence)
{
    if (f->label == PROTO_LABEL_REQUIRED || presence == PROTO_PRESENCE_LEGACY_REQUIRED)
        return 2;
    return f->label == PROTO_LABEL_OPTIONAL || presence == PROTO_PRESENCE_EXPLICIT ? 1 : 0;
}

/*
 * `required` made `optional` (1), or back (2), in proto2 or editions terms;
 * 0 otherwise (repeated and oneof members are other changes; maps cannot be
 * required).
 */
static int required_change(const proto_field_pair_t *p)
{
    if (p->orig_oneof || p->update_oneof || p->orig_kind == PROTO_PAIR_MAP ||
        p->update_kind == PROTO_PAIR_MAP || p->orig->label == PROTO_LABEL_REPEATED ||
        p->update->label == PROTO_LABEL_REPEATED)
        return 0;
    int o = requiredness(p->orig, p->orig_presence), n = requiredness(p->update, p->update_presence);
    if (o == 2 && n == 1)
        return 1;
    return o == 1 && n == 2 ? 2 : 0;
}

static int is_label_change(proto_change_type_t t)
{
    return t == PROTO_FIELD_NUMERIC_LABEL_CHANGED || t == PROTO_FIELD_STRING_OR_BYTES_LABEL_CHANGED;
}

/* Confluent's verdict on the pair's label difference, if it has one: it
 * comes just before the pair, among the field's own differences. The same
 * type comes out of the reverse diff, so the verdict holds both ways. */
static int label_change_accepted(const proto_changes_t *fwd, const proto_field_pair_t *p)
{
    for (size_t i = p->after <= fwd->n ? p->after : 0; i-- > 0 && strcmp(fwd->items[i].path, p->path) == 0;)
        if (is_label_change(fwd->items[i].type))
            return proto_change_is_compatible(fwd->items[i].type);
    return 1;
}

/*
 * The pair's changes beyond Confluent's. Survival means what it means for
 * the Protobuf rows above: the reader parses the data, a field not sent
 * reads as its default, and every value sent reads as written.
 *   - presence: the wire is the same either way, so both directions survive
 *     (a zero the implicit side did not send reads as unset on the other);
 *   - width: the side whose range holds the other's reads it; the other
 *     direction truncates (or refuses non-UTF-8 text), so does not survive;
 *   - a default: read only when the field is absent, as Avro's are: both.
 */
static int push_pair(change_list_t *out, const proto_field_pair_t *p, const proto_changes_t *fwd)
{
    char *ot = field_label(p->orig), *nt = field_label(p->update);
    int rc = ot && nt ? 0 : -1;
    /* A required field fails a reader on data without it: required -> optional
     * loses old readers (forward), optional -> required new ones (backward).
     * Where Confluent refuses the label change (numbers and enums), the
     * change says no both ways too, so no direction survives that its levels
     * refuse; where it accepts it (string, bytes, messages), the reader's
     * answer stands (docs/evolution.md, "Not classified" and the exception). */
    int req = required_change(p);
    if (rc == 0 && req) {
        int ok = label_change_accepted(fwd, p);
        rc = change_list_push(out, CHANGE_NULLABILITY_CHANGED, p->column, ot, nt,
                              req == 1 ? "required -> nullable" : "nullable -> required", ok && req == 2,
                              ok && req == 1);
    }
    int on = nullable(p->orig, p->orig_syntax, p->orig_oneof, p->orig_kind, p->orig_presence);
    int nn = nullable(p->update, p->update_syntax, p->update_oneof, p->update_kind, p->update_presence);
    if (rc == 0 && on >= 0 && nn >= 0 && on != nn)
        rc = change_list_push(out, CHANGE_NULLABILITY_CHANGED, p->column, ot, nt,
                              on ? "nullable -> required" : "required -> nullable", 1, 1);
    width_t w = pair_width(p);
    if (rc == 0 && w == W_WIDER)
        rc = change_list_push(out, CHANGE_TYPE_WIDENED, p->column, ot, nt, NULL, 0, 1);
    else if (rc == 0 && w == W_NARROWER)
        rc = change_list_push(out, CHANGE_TYPE_NARROWED, p->column, ot, nt, NULL, 1, 0);
    else if (rc == 0 && (w == W_OTHER || w == W_BOTH))
        rc = change_list_push(out, CHANGE_TYPE_CHANGED, p->column, ot, nt, NULL, w == W_BOTH, w == W_BOTH);
    if (rc == 0 && !same_default(p->orig, p->update))
        rc = change_list_push(out, CHANGE_DEFAULT_CHANGED, p->column, ot, nt, NULL, 1, 1);
    free(ot);
    free(nt);
    return rc;
}

/* ---- 4. The list ---------------------------------------------------------------------------------- */

static int reverse_survives(const proto_changes_t *rev, const char *path)
{
    for (size_t i = 0; i < rev->n; i++)
        if (strcmp(rev->items[i].path, path) == 0 && !proto_change_is_compatible(rev->items[i].type))
            return 0;
    return 1;
}

static int push_one(change_list_t *out, const proto_change_t *d, const proto_file_t *of,
                    const proto_file_t *nf, const proto_changes_t *rev, const proto_field_pair_t *next)
{
    strbuf_t col = {0};
    int gone = d->type == PROTO_FIELD_REMOVED || d->type == PROTO_REQUIRED_FIELD_REMOVED ||
               d->type == PROTO_ONEOF_FIELD_REMOVED || d->type == PROTO_ENUM_CONST_REMOVED ||
               d->type == PROTO_MESSAGE_REMOVED || d->type == PROTO_ENUM_REMOVED;
    /* The column is named in the file that has it: the old one for what is gone. */
    place_t o = locate(of, d->path, gone ? &col : NULL);
    place_t n = locate(nf, d->path, gone ? NULL : &col);
    /* A field both sides have: the diff met the two, also inside a referenced
     * type, which the schema's own file cannot locate. */
    const proto_field_pair_t *pair = pair_of(next, d->path);
    if (pair && is_label_change(d->type) && required_change(pair)) {
        strbuf_free(&col);
        return 0; /* the pair's NULLABILITY_CHANGED says it (push_pair) */
    }
    if (pair) {
        o.field = pair->orig, n.field = pair->update;
        strbuf_free(&col);
        strbuf_puts(&col, pair->column);
    }
    char *path = strbuf_take(&col);
    change_kind_t kind = kind_of(d->type, o.field, n.field, pair);
    const char *detail = proto_detail(d->type, kind);
    if (kind == CHANGE_FIELD_RENAMED && o.field)
        detail = o.field->name;
    else if (kind == CHANGE_ENUM_SYMBOL_ADDED && n.value)
        detail = n.value->name;
    else if (kind == CHANGE_ENUM_SYMBOL_REMOVED && o.value)
        detail = o.value->name;
    char *ot =
        kind == CHANGE_FIELD_ADDED || kind == CHANGE_FIELD_ADDED_WITH_DEFAULT ? NULL : field_label(o.field);
    char *nt = kind == CHANGE_FIELD_REMOVED ? NULL : field_label(n.field);
    int rc = path ? change_list_push(out, kind, path, ot, nt, detail, reverse_survives(rev, d->path),
                                     proto_change_is_compatible(d->type))
                  : -1;
    free(path);
    free(ot);
    free(nt);
    return rc;
}

int proto_changes(const proto_schema_t *old_schema, const proto_schema_t *new_schema, change_list_t *out)
{
    proto_changes_t fwd = {0}, rev = {0};
    proto_field_pairs_t pairs = {0};
    int rc = proto_diff_changes_paired(old_schema, new_schema, &fwd, &pairs);
    if (rc == 0)
        rc = proto_diff_changes(new_schema, old_schema, &rev);
    const proto_file_t *of = proto_schema_file(old_schema), *nf = proto_schema_file(new_schema);
    /* A pair's own changes follow the differences the diff found up to it. */
    size_t next = 0;
    for (size_t i = 0; i <= fwd.n && rc == 0; i++) {
        while (rc == 0 && next < pairs.n && (pairs.items[next].after <= i || i == fwd.n))
            rc = push_pair(out, &pairs.items[next++], &fwd);
        if (rc == 0 && i < fwd.n)
            rc = push_one(out, &fwd.items[i], of, nf, &rev, next < pairs.n ? &pairs.items[next] : NULL);
    }
    proto_changes_clear(&fwd);
    proto_changes_clear(&rev);
    proto_field_pairs_clear(&pairs);
    return rc;
}
