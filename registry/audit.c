/*
 * audit: the audit trail (registry.h section 7, internal.h section 10;
 * docs/security.md "Audit trail"). A change writes its row inside its own
 * transaction (the registry_write_tx bodies, and sr_register_append_many
 * for the one-statement registrations: registry/write.c); a refused attempt
 * gets a row of its own afterwards, written by the server's worker.
 */
#include "registry/internal.h"

void registry_act_as(store_t *db, const reg_actor_t *who)
{
    if (who)
        store_set_actor(db, who->principal, who->remote, who->request_id);
    else
        store_set_actor(db, NULL, NULL, NULL);
}

reg_code_t reg_audit_change(store_t *db, const char *action, const char *subject, int version, int id,
                            int permanent, const json_t *details, reg_error_t *err)
{
    store_audit_t a = {.action = action,
                       .subject = subject && *subject ? subject : NULL,
                       .version = version,
                       .schema_id = id,
                       .permanent = permanent,
                       .details = details};
    return reg_store(err, db, store_audit_insert(db, &a));
}

reg_code_t registry_audit_refused(registry_t *reg, store_t *db, const reg_refusal_t *r, reg_error_t *err)
{
    (void)reg;
    store_audit_t a = {.action = r->action,
                       .subject = r->subject && *r->subject ? r->subject : NULL,
                       .version = r->version,
                       .permanent = r->permanent,
                       .refused = 1,
                       .status = r->status,
                       .error_code = r->error_code,
                       .message = r->message};
    /* A 409's message carries the compatibility messages (Confluent's form);
     * they are kept as the row's messages too, for a reader filtering on them. */
    json_t *messages = r->error_code == REG_INCOMPATIBLE && r->message ? json_pack("[s]", r->message) : NULL;
    a.messages = messages;
    reg_code_t rc = reg_store(err, db, store_audit_insert(db, &a));
    json_decref(messages);
    return rc;
}

reg_code_t registry_audit_list(registry_t *reg, store_t *db, const reg_audit_query_t *q, json_t **out,
                               reg_error_t *err)
{
    (void)reg;
    *out = NULL;
    if (q->limit < 1 || q->limit > REG_AUDIT_LIMIT_MAX || q->offset < 0)
        return reg_fail(err, REG_BAD_REQUEST, "limit must be 1..%d and offset not negative",
                        REG_AUDIT_LIMIT_MAX);
    store_audit_query_t sq = {q->subject,  q->principal, q->action, q->has_since, q->has_until,
                              q->since_us, q->until_us,  q->offset, q->limit};
    return reg_store(err, db, store_audit_list(db, &sq, out));
}
