-- The group statement of 0012 with the same semantics and a fixed number of statements
-- per group instead of three to five per item (docs/performance.md, "New registrations:
-- a fixed number of statements per group"). Every statement plpgsql runs starts an
-- executor and revalidates its cached plan; per item that cost more than the rows
-- themselves: one INSERT of 20,000 rows writes a version row in 14 us, a schema row in
-- 11, an audit row in 7 and a change row in 4, where the loop of 0012 spent 60 - 120 us
-- of the database's CPU per item.
--
-- Semantics, as 0012 (and 0010 item by item before it):
--   1. every item's subject lock (the key store_lock_scope takes), sorted;
--   2. after them, the versions of every item's subject: an item applies when they are
--      what it expects ("expect"), and only the first such item of a subject (in the
--      order of the array) applies: a later one would compare "expect" with versions
--      that do not hold the earlier one's yet, so it is declined and the caller takes
--      the general path;
--   3. the contents the applied items need and the database does not hold are locked
--      (store_lock_content's key, sorted), looked up again under the locks and
--      inserted, one row per content: several items of the group with one new
--      content get one id, the first of them (subject order, then array order, the
--      order 0012 numbered them in) is the one that created it (o_new);
--   4. each applied item's id, read after the inserts (a content another transaction
--      created meanwhile is found there, as 0012's second look found it);
--   5. the version rows, the audit rows and the change rows of all applied items, one
--      statement; each change row is found by its subject, one per group.
-- Ids are drawn in subject order and only for contents inserted: none is drawn for a
-- content that exists, and the content lock keeps two groups from both drawing one
-- for the same new content. sr_next_id stays the id of a named context (its counter
-- row); the default context's ids come from the schema_ids sequence directly, without
-- a function call per row.

-- sr_context with its body stored parsed (an SQL-standard body, PostgreSQL 14): the
-- version row's generated column inlines it whenever an INSERT's executor starts, and
-- a body kept as text was parsed and analysed again each time (3% of the group's
-- backend, by perf). The same CASE, so the same answers.
CREATE OR REPLACE FUNCTION sr_context(p_subject text) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN CASE
    WHEN NOT starts_with(p_subject, ':.') THEN '.'
    WHEN strpos(substr(p_subject, 3), ':') > 0 THEN substr(p_subject, 2, strpos(substr(p_subject, 3), ':'))
    ELSE substr(p_subject, 2)
END;

CREATE OR REPLACE FUNCTION sr_register_append_many(p_items jsonb)
RETURNS TABLE (o_ord integer, o_id integer, o_version integer, o_ts bigint, o_new boolean, o_seq bigint)
LANGUAGE plpgsql AS $$
BEGIN
    -- Every subject's lock, then every content's: the order of store_lock_scope and
    -- store_lock_content on the general path, each set sorted.
    PERFORM CASE WHEN l.kind = 0 THEN pg_advisory_xact_lock(hashtextextended(l.s, 7))
                 ELSE pg_advisory_xact_lock(11, hashtext(l.s)) END
       FROM (SELECT 0 AS kind, e->>'subject' COLLATE "C" AS s FROM jsonb_array_elements(p_items) AS e
             UNION
             SELECT 1, (e->>'type') || ':' || (e->>'key') FROM jsonb_array_elements(p_items) AS e
              ORDER BY 1, 2) l;

    -- The items that apply: of each subject the first (in the array) whose versions are
    -- what it expects, in subject order. Per item one probe of subject_versions and one
    -- of schemas, each a subquery, so no plan can turn them into scans of the tables.
    RETURN QUERY
    WITH ap AS (
        SELECT DISTINCT ON (i.subject COLLATE "C") i.ord, i.e, i.subject, i.next_version, sr_context(i.subject) AS ctx,
               i.e->>'type' AS type, decode(i.e->>'key', 'hex') AS key
          FROM (SELECT (t.ord - 1)::integer AS ord, t.e, t.e->>'subject' AS subject, sv.seen, sv.next_version
                  FROM jsonb_array_elements(p_items) WITH ORDINALITY AS t(e, ord)
                  CROSS JOIN LATERAL (
                      SELECT coalesce(string_agg(format('%s:%s:%s', v.version, v.schema_id, v.deleted::int), ','
                                                 ORDER BY v.version), '') AS seen,
                             coalesce(max(v.version), 0) + 1 AS next_version
                        FROM subject_versions v WHERE v.subject = t.e->>'subject') sv) i
         WHERE i.seen = i.e->>'expect'
         ORDER BY i.subject COLLATE "C", i.ord),
    found AS (
        SELECT ap.*, (SELECT s.id FROM schemas s WHERE s.context = ap.ctx AND s.schema_type = ap.type
                         AND s.identity_key = ap.key AND s.canonical) AS id
          FROM ap),
    -- The contents not stored, each inserted once, for its first item; ids drawn in
    -- subject order.
    ins AS (
        INSERT INTO schemas (context, id, schema_type, schema_text, identity_key, refs, canonical, metadata)
        SELECT n.ctx, CASE WHEN n.ctx = '.' THEN nextval('schema_ids')::integer ELSE sr_next_id(n.ctx) END,
               n.type, n.e->>'text', n.key, n.e->'refs', true, n.e->>'metadata'
          FROM (SELECT DISTINCT ON (f.ctx, f.type, f.key) f.* FROM found f WHERE f.id IS NULL
                 ORDER BY f.ctx, f.type, f.key, f.subject COLLATE "C") n
         ORDER BY n.subject COLLATE "C"
        ON CONFLICT (context, schema_type, identity_key) WHERE canonical DO NOTHING
        RETURNING context, schema_type, identity_key, schema_text, refs, id),
    refs AS (
        INSERT INTO schema_references (context, schema_id, position, name, ref_subject, ref_version)
        SELECT ins.context, ins.id, (r.ord - 1)::integer, r.r->>'name', r.r->>'subject', (r.r->>'version')::integer
          FROM ins CROSS JOIN LATERAL jsonb_array_elements(ins.refs) WITH ORDINALITY AS r(r, ord)
         WHERE ins.refs <> '[]'),
    w AS (
        SELECT f.ord, f.subject, f.next_version AS version, f.e->'audit' AS audit, coalesce(f.id, ins.id) AS id,
               f.id IS NULL AND ins.id IS NOT NULL
                 AND f.subject = min(f.subject COLLATE "C") OVER (PARTITION BY f.ctx, f.type, f.key) AS fresh
          FROM found f
          LEFT JOIN ins ON ins.context = f.ctx AND ins.schema_type = f.type AND ins.identity_key = f.key),
    v AS (
        INSERT INTO subject_versions (subject, version, schema_id) SELECT w.subject, w.version, w.id FROM w),
    a AS (
        INSERT INTO audit_log (principal, remote, request_id, action, subject, version, schema_id,
                               permanent, outcome, status, error_code, message, messages, details)
        SELECT w.audit->>'principal', w.audit->>'remote', w.audit->>'request_id', w.audit->>'action',
               w.audit->>'subject', w.version, w.id, (w.audit->>'permanent')::boolean,
               coalesce(w.audit->>'outcome', 'ok'), coalesce((w.audit->>'status')::integer, 200),
               (w.audit->>'error_code')::integer, w.audit->>'message', w.audit->'messages', w.audit->'details'
          FROM w WHERE w.audit IS NOT NULL),
    c AS (
        INSERT INTO changes (scope) SELECT w.subject FROM w RETURNING seq, scope)
    SELECT w.ord, w.id, w.version, (extract(epoch FROM now()) * 1000)::bigint, w.fresh, c.seq
      FROM w JOIN c ON c.scope = w.subject;
END
$$;

-- One plan for the statement above, made once per connection: its shape does not
-- depend on the items, and planning it anew for each group cost more than running it.
ALTER FUNCTION sr_register_append_fenced(jsonb, bigint) SET plan_cache_mode = force_generic_plan;
