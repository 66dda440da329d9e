-- Registration in one round trip (store_register_append, docs/architecture.md "The
-- write path"), in the subject's context (0006), carrying the metadata of the row it
-- may insert (0007). The common registration -- a READWRITE subject whose versions
-- are exactly what the node last saw -- is one call of sr_register_append under the
-- subject's advisory lock (the same key store_lock_scope takes). p_expect is the
-- subject's versions as the node saw them, as 'version:schema_id:deleted,...' in
-- version order (store_versions_text); when the database no longer says the same,
-- the function writes nothing and returns no row, and the node takes the general
-- path (BEGIN .. COMMIT). That also makes a resend after a lost connection harmless:
-- a first attempt that did commit changed the versions.
--
-- sr_register_append_many runs several of them in one statement, hence one
-- transaction and one commit (group commit, registry/group.c), subjects in a fixed
-- order so two groups never wait for each other's locks in a cycle. (OR REPLACE: a
-- development database that ran drafts of these functions ends with these.)

CREATE OR REPLACE FUNCTION sr_register_append(p_subject text, p_expect text, p_type text,
                                              p_text text, p_key bytea, p_refs jsonb, p_metadata text,
                                              OUT o_id integer, OUT o_version integer,
                                              OUT o_ts bigint, OUT o_new boolean)
RETURNS SETOF record
LANGUAGE plpgsql AS $$
DECLARE
    seen text;
    v_ctx text := sr_context(p_subject);
BEGIN
    o_new := false;
    PERFORM pg_advisory_xact_lock(hashtextextended(p_subject, 7));
    SELECT coalesce(string_agg(format('%s:%s:%s', version, schema_id, deleted::int), ','
                               ORDER BY version), ''),
           coalesce(max(version), 0) + 1
      INTO seen, o_version
      FROM subject_versions WHERE subject = p_subject;
    IF seen <> p_expect THEN
        RETURN;
    END IF;
    SELECT id INTO o_id FROM schemas
     WHERE context = v_ctx AND schema_type = p_type AND identity_key = p_key AND canonical;
    IF o_id IS NULL THEN
        PERFORM pg_advisory_xact_lock(11, hashtext(p_type || ':' || encode(p_key, 'hex')));
        INSERT INTO schemas (context, id, schema_type, schema_text, identity_key, refs, canonical, metadata)
        VALUES (v_ctx, sr_next_id(v_ctx), p_type, p_text, p_key, p_refs, true, p_metadata)
        ON CONFLICT (context, schema_type, identity_key) WHERE canonical DO NOTHING RETURNING id INTO o_id;
        IF o_id IS NULL THEN
            SELECT id INTO o_id FROM schemas
             WHERE context = v_ctx AND schema_type = p_type AND identity_key = p_key AND canonical;
        ELSE
            o_new := true;
            IF jsonb_array_length(p_refs) > 0 THEN
                INSERT INTO schema_references (context, schema_id, position, name, ref_subject, ref_version)
                SELECT v_ctx, o_id, (t.ord - 1)::integer, t.r->>'name', t.r->>'subject',
                       (t.r->>'version')::integer
                  FROM jsonb_array_elements(p_refs) WITH ORDINALITY AS t(r, ord);
            END IF;
        END IF;
    END IF;
    INSERT INTO subject_versions (subject, version, schema_id) VALUES (p_subject, o_version, o_id);
    INSERT INTO changes (scope) VALUES (p_subject);
    o_ts := (extract(epoch FROM now()) * 1000)::bigint;
    RETURN NEXT;
END
$$;

-- p_items: [{"subject","expect","type","text","key" (hex),"refs","metadata"}, ...]; one row per
-- item written, o_ord its 0-based position in p_items.
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
            o_ord := it.ord;
            RETURN NEXT;
        END IF;
    END LOOP;
END
$$;
