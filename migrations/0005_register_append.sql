-- Registration in one round trip (store_register_append, docs/architecture.md "The
-- write path"). The common registration -- a READWRITE subject whose versions are
-- exactly what the node last saw -- is one statement, hence one implicit
-- transaction, under the subject's advisory lock (the same key store_lock_scope
-- takes). p_expect is the subject's versions as the node saw them, in the form
-- sr_versions_text gives; when the database no longer says the same, the function
-- returns no row and the node takes the general path (BEGIN .. COMMIT). That also
-- makes a resend after a lost connection harmless: a first attempt that did commit
-- changed the versions, so the second returns no row.

CREATE FUNCTION sr_versions_text(p_subject text) RETURNS text
LANGUAGE sql STABLE AS $$
    SELECT coalesce(string_agg(format('%s:%s:%s', version, schema_id, deleted::int), ','
                               ORDER BY version), '')
      FROM subject_versions WHERE subject = p_subject
$$;

CREATE FUNCTION sr_register_append(p_subject text, p_expect text, p_type text, p_text text,
                                   p_key bytea, p_refs jsonb,
                                   OUT o_id integer, OUT o_version integer, OUT o_ts bigint,
                                   OUT o_new boolean)
RETURNS SETOF record
LANGUAGE plpgsql AS $$
BEGIN
    o_new := false;
    PERFORM pg_advisory_xact_lock(hashtextextended(p_subject, 7));
    IF sr_versions_text(p_subject) <> p_expect THEN
        RETURN;
    END IF;
    SELECT id INTO o_id FROM schemas WHERE schema_type = p_type AND identity_key = p_key AND canonical;
    IF o_id IS NULL THEN
        -- As store_schema_upsert: the content lock (shared with IMPORT, which moves the
        -- canonical mark), then concurrent inserts of one content wait on the partial
        -- unique index of canonical rows (migrations/0004) and see the winner.
        PERFORM pg_advisory_xact_lock(11, hashtext(p_type || ':' || encode(p_key, 'hex')));
        INSERT INTO schemas (id, schema_type, schema_text, identity_key, refs, canonical)
        VALUES (nextval('schema_ids'), p_type, p_text, p_key, p_refs, true)
        ON CONFLICT (schema_type, identity_key) WHERE canonical DO NOTHING RETURNING id INTO o_id;
        IF o_id IS NULL THEN
            SELECT id INTO o_id FROM schemas
             WHERE schema_type = p_type AND identity_key = p_key AND canonical;
        ELSE
            o_new := true;
            INSERT INTO schema_references (schema_id, position, name, ref_subject, ref_version)
            SELECT o_id, (t.ord - 1)::integer, t.r->>'name', t.r->>'subject', (t.r->>'version')::integer
              FROM jsonb_array_elements(p_refs) WITH ORDINALITY AS t(r, ord);
        END IF;
    END IF;
    SELECT coalesce(max(version), 0) + 1 INTO o_version FROM subject_versions WHERE subject = p_subject;
    INSERT INTO subject_versions (subject, version, schema_id) VALUES (p_subject, o_version, o_id);
    INSERT INTO changes (scope) VALUES (p_subject);
    o_ts := (extract(epoch FROM now()) * 1000)::bigint;
    RETURN NEXT;
END
$$;
