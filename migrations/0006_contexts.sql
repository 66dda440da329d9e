-- Contexts (docs/api.md "Contexts"): each context is its own subject namespace
-- with its own id sequence, as Confluent's QualifiedSubject and
-- IncrementalIdGenerator (one counter per context, starting at 1) define them.
-- A subject's context is a pure function of its stored (normalized) name:
-- ":.ctx:name" is in ".ctx", anything else in the default context ".".
-- A schema row is keyed by (context, id); every existing row, and so every id
-- answered before, stays in the default context under its id.

CREATE FUNCTION sr_context(p_subject text) RETURNS text
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT CASE
        WHEN NOT starts_with(p_subject, ':.') THEN '.'
        WHEN strpos(substr(p_subject, 3), ':') > 0
            THEN substr(p_subject, 2, strpos(substr(p_subject, 3), ':'))
        ELSE substr(p_subject, 2)
    END
$$;

-- Named contexts: the id counter of each (the default context keeps the
-- schema_ids sequence) and whether GET /contexts lists it (DELETE
-- /contexts/{c} unlists an empty context; its counter stays, so ids are never
-- reused; a new version in it lists it again, as Confluent's ContextKey).
CREATE TABLE contexts (
    name     text    PRIMARY KEY CHECK (name <> '.'),
    last_id  integer NOT NULL DEFAULT 0,
    listed   boolean NOT NULL DEFAULT true
);

ALTER TABLE subject_versions DROP CONSTRAINT subject_versions_schema_id_fkey;
ALTER TABLE schema_references DROP CONSTRAINT schema_references_schema_id_fkey;
ALTER TABLE subject_versions ADD COLUMN context text GENERATED ALWAYS AS (sr_context(subject)) STORED;
ALTER TABLE schemas ADD COLUMN context text NOT NULL DEFAULT '.';
ALTER TABLE schema_references ADD COLUMN context text NOT NULL DEFAULT '.';
ALTER TABLE schemas DROP CONSTRAINT schemas_pkey;
DROP INDEX schemas_canonical_identity;
ALTER TABLE schema_references DROP CONSTRAINT schema_references_pkey;

-- Subjects named ":.ctx:..." stored before this migration carried ids of the
-- one shared space; their context now has its own. Each such schema row is
-- copied into the subject's context under the same id, so every version keeps
-- its id and content (the default-context row stays as it was).
INSERT INTO schemas (context, id, schema_type, schema_text, identity_key, refs, created_at, canonical)
SELECT DISTINCT sv.context, s.id, s.schema_type, s.schema_text, s.identity_key, s.refs, s.created_at,
       s.canonical
  FROM subject_versions sv JOIN schemas s ON s.id = sv.schema_id AND s.context = '.'
 WHERE sv.context <> '.';
INSERT INTO schema_references (context, schema_id, position, name, ref_subject, ref_version)
SELECT DISTINCT sv.context, r.schema_id, r.position, r.name, r.ref_subject, r.ref_version
  FROM subject_versions sv JOIN schema_references r ON r.schema_id = sv.schema_id AND r.context = '.'
 WHERE sv.context <> '.';
INSERT INTO contexts (name, last_id)
SELECT context, max(id) FROM schemas WHERE context <> '.' GROUP BY context;

ALTER TABLE schemas ADD CONSTRAINT schemas_pkey PRIMARY KEY (context, id);
CREATE UNIQUE INDEX schemas_canonical_identity ON schemas (context, schema_type, identity_key) WHERE canonical;
ALTER TABLE schema_references ADD CONSTRAINT schema_references_pkey PRIMARY KEY (context, schema_id, position);
ALTER TABLE schema_references ADD CONSTRAINT schema_references_schema_fkey
    FOREIGN KEY (context, schema_id) REFERENCES schemas (context, id);
ALTER TABLE subject_versions ADD CONSTRAINT subject_versions_schema_fkey
    FOREIGN KEY (context, schema_id) REFERENCES schemas (context, id);
DROP INDEX subject_versions_schema_id;
CREATE INDEX subject_versions_schema_id ON subject_versions (context, schema_id);

-- The next id of a context: the shared sequence for the default context (as
-- before), the context's counter row otherwise (held until commit: new
-- contents of one named context are numbered one at a time, gap-free).
CREATE FUNCTION sr_next_id(p_context text) RETURNS integer
LANGUAGE plpgsql AS $$
DECLARE
    v integer;
BEGIN
    IF p_context = '.' THEN
        RETURN nextval('schema_ids');
    END IF;
    INSERT INTO contexts AS c (name, last_id) VALUES (p_context, 1)
    ON CONFLICT (name) DO UPDATE SET last_id = c.last_id + 1
    RETURNING last_id INTO v;
    RETURN v;
END
$$;

-- IMPORT under an explicit id: ids allocated later stay above it.
CREATE FUNCTION sr_raise_id(p_context text, p_id integer) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
    IF p_context = '.' THEN
        PERFORM setval('schema_ids', p_id) FROM schema_ids WHERE NOT is_called OR last_value < p_id;
    ELSE
        INSERT INTO contexts AS c (name, last_id) VALUES (p_context, p_id)
        ON CONFLICT (name) DO UPDATE SET last_id = greatest(c.last_id, p_id);
    END IF;
END
$$;

-- A version in a named context makes the context exist (listed), whichever
-- path wrote it. Only an unlisted or new context takes the row lock.
CREATE FUNCTION sr_list_context() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.context <> '.' AND NOT EXISTS (SELECT 1 FROM contexts WHERE name = NEW.context AND listed) THEN
        INSERT INTO contexts AS c (name) VALUES (NEW.context)
        ON CONFLICT (name) DO UPDATE SET listed = true;
    END IF;
    RETURN NEW;
END
$$;
-- WHEN keeps the default context's inserts (the common case) free of the call.
CREATE TRIGGER subject_versions_context AFTER INSERT ON subject_versions
    FOR EACH ROW WHEN (NEW.context <> '.') EXECUTE FUNCTION sr_list_context();
