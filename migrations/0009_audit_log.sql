-- The audit trail (docs/security.md, "Audit trail"): one row per change and per refused
-- attempt on a write route. A change's row is written in the transaction of the change
-- (registry/audit.c), so it commits exactly when the change does; a refused attempt's
-- row is written afterwards, on its own, by a database worker (best effort).
-- principal NULL: no authentication configured, or none established (401). details: a
-- JSON object of the action's particulars (a later change stores classified change lists).

CREATE TABLE audit_log (
    id          bigserial PRIMARY KEY,
    at          timestamptz NOT NULL DEFAULT now(),
    principal   text,
    remote      text,
    request_id  text,
    action      text NOT NULL,
    subject     text,
    version     integer,
    schema_id   integer,
    permanent   boolean,
    outcome     text NOT NULL CHECK (outcome IN ('ok', 'refused')),
    status      integer NOT NULL,
    error_code  integer,
    message     text,
    messages    jsonb,
    details     jsonb
);

-- GET /audit pages newest first (by id) under each filter.
CREATE INDEX audit_log_at ON audit_log (at);
CREATE INDEX audit_log_subject ON audit_log (subject, id);
CREATE INDEX audit_log_principal ON audit_log (principal, id);
CREATE INDEX audit_log_action ON audit_log (action, id);

-- One row from a JSON object {"principal","remote","request_id","action","subject",
-- "version","id","permanent","outcome","status","error_code","message","messages",
-- "details"}; p_version and p_id, when given, override the object's (an append learns
-- its version and id inside sr_register_append).
CREATE OR REPLACE FUNCTION sr_audit(p jsonb, p_version integer DEFAULT NULL, p_id integer DEFAULT NULL)
RETURNS void
LANGUAGE sql AS $$
    INSERT INTO audit_log (principal, remote, request_id, action, subject, version, schema_id,
                           permanent, outcome, status, error_code, message, messages, details)
    VALUES (p->>'principal', p->>'remote', p->>'request_id', p->>'action', p->>'subject',
            coalesce(p_version, (p->>'version')::integer), coalesce(p_id, (p->>'id')::integer),
            (p->>'permanent')::boolean, coalesce(p->>'outcome', 'ok'),
            coalesce((p->>'status')::integer, 200), (p->>'error_code')::integer, p->>'message',
            p->'messages', p->'details')
$$;

-- 0008's group statement, now writing each applied item's audit row ("audit" in the
-- item) in the same statement, hence the same transaction as its version: a row exists
-- exactly for the versions that committed.
CREATE OR REPLACE FUNCTION sr_register_append_many(p_items jsonb)
RETURNS TABLE (o_ord integer, o_id integer, o_version integer, o_ts bigint, o_new boolean)
LANGUAGE plpgsql AS $$
DECLARE
    it record;
BEGIN
    FOR it IN SELECT (t.ord - 1)::integer AS ord, t.e
                FROM jsonb_array_elements(p_items) WITH ORDINALITY AS t(e, ord)
               ORDER BY t.e->>'subject' COLLATE "C", t.ord
    LOOP
        SELECT a.o_id, a.o_version, a.o_ts, a.o_new INTO o_id, o_version, o_ts, o_new
          FROM sr_register_append(it.e->>'subject', it.e->>'expect', it.e->>'type', it.e->>'text',
                                  decode(it.e->>'key', 'hex'), it.e->'refs', it.e->>'metadata') AS a;
        IF FOUND THEN
            IF it.e ? 'audit' THEN
                PERFORM sr_audit(it.e->'audit', o_version, o_id);
            END IF;
            o_ord := it.ord;
            RETURN NEXT;
        END IF;
    END LOOP;
END
$$;
