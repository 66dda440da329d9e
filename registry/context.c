/*
 * context: qualified subject names (context.h), after Confluent's
 * QualifiedSubject with the default tenant.
 */
#include "registry/context.h"

#include <stdlib.h>
#include <string.h>

#include "base/alloc.h"
#include "registry/registry.h"

/* ---- 1. The context of a subject ------------------------------------------- */

/* QualifiedSubject's parse of ":.ctx:rest": the context and where the subject
 * part starts; a name without the closing ':' is all context. */
static reg_ctx_t parse(const char *name, const char **rest)
{
    if (strncmp(name, ":.", 2) == 0) {
        const char *colon = strchr(name + 2, ':');
        size_t len = colon ? (size_t)(colon - name - 1) : strlen(name + 1);
        *rest = colon ? colon + 1 : name + strlen(name);
        return (reg_ctx_t){name + 1, len};
    }
    *rest = name;
    return (reg_ctx_t){".", 1};
}

static int is_default(reg_ctx_t c)
{
    return c.len == 1 && c.base[0] == '.';
}

reg_ctx_t reg_context_of(const char *subject)
{
    const char *rest;
    return parse(subject, &rest);
}

char *reg_context_copy(const char *subject)
{
    reg_ctx_t c = reg_context_of(subject);
    return xstrndup(c.base, c.len);
}

int reg_context_is(const char *subject, const char *ctx)
{
    reg_ctx_t c = reg_context_of(subject);
    return strlen(ctx) == c.len && memcmp(c.base, ctx, c.len) == 0;
}

size_t registry_subject_normalize(char *name)
{
    const char *rest;
    reg_ctx_t c = parse(name, &rest);
    size_t len = strlen(name);
    if (strncmp(name, ":.", 2) != 0)
        return len;
    if (is_default(c)) { /* ":.:name" -> "name", ":." -> "" */
        size_t n = strlen(rest);
        memmove(name, rest, n + 1);
        return n;
    }
    if (!strchr(name + 2, ':')) { /* ":.ctx" -> ":.ctx:" */
        name[len] = ':';
        name[len + 1] = '\0';
        return len + 1;
    }
    return len;
}

char *registry_context_normalize(const char *text)
{
    size_t len = strlen(text);
    const char *p = text;
    if (len && p[0] == ':')
        p++, len--;
    if (len && p[len - 1] == ':')
        len--;
    if (memchr(p, ':', len))
        return NULL;
    if (len == 0 || (len == 1 && p[0] == '.'))
        return xstrdup("");
    return xasprintf(":%s%.*s:", p[0] == '.' ? "" : ".", (int)len, p);
}

/* ---- 2. References -------------------------------------------------------------- */

char *reg_ref_qualify(const char *ctx, const char *ref_subject)
{
    const char *rest;
    reg_ctx_t c = parse(ref_subject, &rest);
    if (!is_default(c)) /* qualified: its own context */
        return xasprintf(":%.*s:%s", (int)c.len, c.base, rest);
    if (strcmp(ctx, ".") != 0) /* the referrer's context, the name as given */
        return xasprintf(":%s:%s", ctx, ref_subject);
    return xstrdup(rest);
}

char *registry_ref_qualify(const char *context, const char *ref_subject)
{
    return reg_ref_qualify(context, ref_subject);
}

/* ---- 3. Prefixes ------------------------------------------------------------------ */

int reg_prefix_match(const char *prefix, const char *name)
{
    const char *rest;
    reg_ctx_t nc = parse(name, &rest);
    if (strncmp(prefix, ":*:", 3) == 0)
        return strncmp(rest, prefix + 3, strlen(prefix + 3)) == 0;
    const char *prest;
    reg_ctx_t pc = parse(prefix, &prest);
    if (strncmp(prefix, ":.", 2) == 0 && !strchr(prefix + 2, ':')) /* ":.ct": contexts from ".ct" */
        return nc.len >= pc.len && memcmp(nc.base, pc.base, pc.len) == 0;
    return nc.len == pc.len && memcmp(nc.base, pc.base, pc.len) == 0 &&
           strncmp(rest, prest, strlen(prest)) == 0;
}
