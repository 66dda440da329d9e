-- The group statement of 0010 with the same semantics and fewer statements per item
-- (docs/performance.md, "New registrations, in detail"). A perf profile of the
-- database under 16 writing clients put a fifth of its CPU in starting executors
-- (every INSERT plpgsql runs starts one, cached plan or not) and a tenth in
-- sr_context: a STRICT SQL function whose body (a CASE) is not strict cannot be
-- inlined, so subject_versions' generated column parsed, planned and ran it as a
-- function for every version row.
--
-- sr_context: the same body, called on NULL input too (it then returns NULL, as a
-- strict function does: every branch of the CASE is NULL for a NULL subject), so the
-- planner inlines it into the generated column and into callers.
--
-- sr_register_append_many, in three phases:
--   1. every item's subject lock (the key store_lock_scope takes), in the order the
--      loop of 0010 took them, then the versions of all of them in one query whose
--      snapshot follows the locks: what 0010 read item by item after each lock;
--   2. per item, as in 0010: the versions compared with "expect", find-or-create of
--      the schema row under the content's lock (so a content new to several items
--      of the group gets one id), references;
--   3. the version rows, the change rows and the audit rows of all applied items,
--      one INSERT per table.
-- Versions are written in phase 3, so a later item of the same subject in the same
-- group would compare "expect" with versions that do not yet hold the earlier one:
-- such an item is skipped (not applied), exactly what 0010 did when the earlier
-- item's version made "expect" differ, and the caller takes the general path.
-- Each applied item's change row is found by its subject, one per group.

ALTER FUNCTION sr_context(text) CALLED ON NULL INPUT;

CREATE OR REPLACE FUNCTION sr_register_append_many(p_items jsonb)
RETURNS TABLE (o_ord integer, o_id integer, o_version integer, o_ts bigint, o_new boolean, o_seq bigint)
LANGUAGE plpgsql AS $$
DECLARE
    it record;
    v_subject text;
    v_type text;
    v_key bytea;
    v_refs jsonb;
    v_ctx text;
    v_id integer;
    v_new boolean;
    v_ts bigint := (extract(epoch FROM now()) * 1000)::bigint;
    a_ord integer[] := '{}';
    a_subject text[] := '{}';
    a_version integer[] := '{}';
    a_id integer[] := '{}';
    a_new boolean[] := '{}';
    a_audit jsonb[] := '{}';
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended(t.s, 7))
       FROM (SELECT DISTINCT e->>'subject' COLLATE "C" AS s FROM jsonb_array_elements(p_items) AS e
              ORDER BY 1) t;
    FOR it IN SELECT (t.ord - 1)::integer AS ord, t.e, sv.seen, sv.next_version
                FROM jsonb_array_elements(p_items) WITH ORDINALITY AS t(e, ord)
                CROSS JOIN LATERAL (
                    SELECT coalesce(string_agg(format('%s:%s:%s', version, schema_id, deleted::int), ','
                                               ORDER BY version), '') AS seen,
                           coalesce(max(version), 0) + 1 AS next_version
                      FROM subject_versions WHERE subject = t.e->>'subject') sv
               ORDER BY t.e->>'subject' COLLATE "C", t.ord
    LOOP
        v_subject := it.e->>'subject';
        CONTINUE WHEN it.seen <> it.e->>'expect' OR v_subject = ANY (a_subject);
        v_ctx := sr_context(v_subject);
        v_type := it.e->>'type';
        v_key := decode(it.e->>'key', 'hex');
        v_new := false;
        SELECT id INTO v_id FROM schemas
         WHERE context = v_ctx AND schema_type = v_type AND identity_key = v_key AND canonical;
        IF v_id IS NULL THEN
            PERFORM pg_advisory_xact_lock(11, hashtext(v_type || ':' || encode(v_key, 'hex')));
            v_refs := it.e->'refs';
            INSERT INTO schemas (context, id, schema_type, schema_text, identity_key, refs, canonical, metadata)
            VALUES (v_ctx, sr_next_id(v_ctx), v_type, it.e->>'text', v_key, v_refs, true, it.e->>'metadata')
            ON CONFLICT (context, schema_type, identity_key) WHERE canonical DO NOTHING RETURNING id INTO v_id;
            IF v_id IS NULL THEN
                SELECT id INTO v_id FROM schemas
                 WHERE context = v_ctx AND schema_type = v_type AND identity_key = v_key AND canonical;
            ELSE
                v_new := true;
                IF jsonb_array_length(v_refs) > 0 THEN
                    INSERT INTO schema_references (context, schema_id, position, name, ref_subject, ref_version)
                    SELECT v_ctx, v_id, (t.ord - 1)::integer, t.r->>'name', t.r->>'subject',
                           (t.r->>'version')::integer
                      FROM jsonb_array_elements(v_refs) WITH ORDINALITY AS t(r, ord);
                END IF;
            END IF;
        END IF;
        a_ord := a_ord || it.ord;
        a_subject := a_subject || v_subject;
        a_version := a_version || it.next_version;
        a_id := a_id || v_id;
        a_new := a_new || v_new;
        a_audit := a_audit || (it.e->'audit');
    END LOOP;
    IF cardinality(a_ord) = 0 THEN
        RETURN;
    END IF;
    INSERT INTO subject_versions (subject, version, schema_id)
    SELECT * FROM unnest(a_subject, a_version, a_id);
    INSERT INTO audit_log (principal, remote, request_id, action, subject, version, schema_id,
                           permanent, outcome, status, error_code, message, messages, details)
    SELECT a->>'principal', a->>'remote', a->>'request_id', a->>'action', a->>'subject', v, i,
           (a->>'permanent')::boolean, coalesce(a->>'outcome', 'ok'), coalesce((a->>'status')::integer, 200),
           (a->>'error_code')::integer, a->>'message', a->'messages', a->'details'
      FROM unnest(a_audit, a_version, a_id) AS u(a, v, i)
     WHERE a IS NOT NULL;
    RETURN QUERY
    WITH c AS (INSERT INTO changes (scope) SELECT unnest(a_subject) RETURNING seq, scope)
    SELECT u.ord, u.id, u.version, v_ts, u.fresh, c.seq
      FROM unnest(a_ord, a_subject, a_version, a_id, a_new) AS u(ord, subject, version, id, fresh)
      JOIN c ON c.scope = u.subject;
END
$$;
