-- Schema metadata (Confluent's Metadata entity: tags, properties, sensitive).
-- It belongs to the schema row, not to the version, as in Confluent's
-- SchemaValue: the MD5 identity key covers it (MD5.ofSchema), so the same text
-- with other metadata is other content, with its own id and GUID. NULL is "no
-- metadata", which is not the same content as an empty one ('{}'), as in
-- Confluent (Schema.updateHash marks a present metadata with a byte). The text
-- is the canonical JSON the registry computes (registry/metadata.c), rendered
-- back as stored. Rule sets have no column: the community server drops every
-- one it is sent (RuleSetHandler), so there is never one to store.
ALTER TABLE schemas ADD COLUMN metadata text;

-- The one-statement registration (migrations/0005; in the subject's context
-- since 0006) carries the metadata of the row it may insert: sr_register_append
-- takes it as one more parameter, sr_register_append_many reads it from each
-- item ("metadata", absent = NULL).
DROP FUNCTION sr_register_append(text, text, text, text, bytea, jsonb);

CREATE FUNCTION sr_register_append(p_subject text, p_expect text, p_type text, p_text text,
                                   p_key bytea, p_refs jsonb, p_metadata text,
                                   OUT o_id integer, OUT o_version integer, OUT o_ts bigint,
                                   OUT o_new boolean)
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
