-- The group statement of 0008/0009 with the same semantics and less work per item
-- (docs/performance.md, "What bounds each figure"). Measured per item inside the
-- statement (auto_explain, log_nested_statements): calling sr_register_append as a
-- set-returning function from each loop turn (a new executor, a tuplestore, its own
-- expression state) cost about as much as the inserts themselves, and sr_audit, a
-- SQL function PostgreSQL cannot inline (an INSERT), is parsed and planned again in
-- every transaction. Here one plpgsql body does both inline, so every statement is a
-- plan plpgsql caches for the connection's life.
--
-- What each item does is unchanged (0008): the subject's advisory lock (the key
-- store_lock_scope takes), the versions compared with "expect", find-or-create of
-- the schema row under the content's lock, the version, the change row, and (0009)
-- the audit row in the same transaction. sr_register_append stays for callers that
-- write one item outside a group.
--
-- New: o_seq, each item's row in changes, so the node that wrote and published it
-- can tell its change feed not to read the subject back (registry_feed_own); other
-- nodes reload it as before. (A new result column: DROP, then CREATE.)

DROP FUNCTION sr_register_append_many(jsonb);
CREATE FUNCTION sr_register_append_many(p_items jsonb)
RETURNS TABLE (o_ord integer, o_id integer, o_version integer, o_ts bigint, o_new boolean, o_seq bigint)
LANGUAGE plpgsql AS $$
DECLARE
    it record;
    v_subject text;
    v_type text;
    v_key bytea;
    v_refs jsonb;
    v_ctx text;
    v_audit jsonb;
    seen text;
    v_ts bigint := (extract(epoch FROM now()) * 1000)::bigint;
BEGIN
    FOR it IN SELECT (t.ord - 1)::integer AS ord, t.e
                FROM jsonb_array_elements(p_items) WITH ORDINALITY AS t(e, ord)
               ORDER BY t.e->>'subject' COLLATE "C", t.ord
    LOOP
        v_subject := it.e->>'subject';
        v_ctx := sr_context(v_subject);
        PERFORM pg_advisory_xact_lock(hashtextextended(v_subject, 7));
        SELECT coalesce(string_agg(format('%s:%s:%s', version, schema_id, deleted::int), ','
                                   ORDER BY version), ''),
               coalesce(max(version), 0) + 1
          INTO seen, o_version
          FROM subject_versions WHERE subject = v_subject;
        CONTINUE WHEN seen <> it.e->>'expect';
        v_type := it.e->>'type';
        v_key := decode(it.e->>'key', 'hex');
        o_new := false;
        SELECT id INTO o_id FROM schemas
         WHERE context = v_ctx AND schema_type = v_type AND identity_key = v_key AND canonical;
        IF o_id IS NULL THEN
            PERFORM pg_advisory_xact_lock(11, hashtext(v_type || ':' || encode(v_key, 'hex')));
            v_refs := it.e->'refs';
            INSERT INTO schemas (context, id, schema_type, schema_text, identity_key, refs, canonical, metadata)
            VALUES (v_ctx, sr_next_id(v_ctx), v_type, it.e->>'text', v_key, v_refs, true, it.e->>'metadata')
            ON CONFLICT (context, schema_type, identity_key) WHERE canonical DO NOTHING RETURNING id INTO o_id;
            IF o_id IS NULL THEN
                SELECT id INTO o_id FROM schemas
                 WHERE context = v_ctx AND schema_type = v_type AND identity_key = v_key AND canonical;
            ELSE
                o_new := true;
                IF jsonb_array_length(v_refs) > 0 THEN
                    INSERT INTO schema_references (context, schema_id, position, name, ref_subject, ref_version)
                    SELECT v_ctx, o_id, (t.ord - 1)::integer, t.r->>'name', t.r->>'subject',
                           (t.r->>'version')::integer
                      FROM jsonb_array_elements(v_refs) WITH ORDINALITY AS t(r, ord);
                END IF;
            END IF;
        END IF;
        INSERT INTO subject_versions (subject, version, schema_id) VALUES (v_subject, o_version, o_id);
        INSERT INTO changes (scope) VALUES (v_subject) RETURNING seq INTO o_seq;
        IF it.e ? 'audit' THEN
            v_audit := it.e->'audit';
            INSERT INTO audit_log (principal, remote, request_id, action, subject, version, schema_id,
                                   permanent, outcome, status, error_code, message, messages, details)
            VALUES (v_audit->>'principal', v_audit->>'remote', v_audit->>'request_id', v_audit->>'action',
                    v_audit->>'subject', o_version, o_id, (v_audit->>'permanent')::boolean,
                    coalesce(v_audit->>'outcome', 'ok'), coalesce((v_audit->>'status')::integer, 200),
                    (v_audit->>'error_code')::integer, v_audit->>'message', v_audit->'messages',
                    v_audit->'details');
        END IF;
        o_ord := it.ord;
        o_ts := v_ts;
        RETURN NEXT;
    END LOOP;
END
$$;
