-- The group statement's fence inside a function (docs/performance.md, "New registrations:
-- one hop per loop pass"). store_register_append sent the fence's timeline expression
-- (store/store.c, STORE_TIMELINE_EXPR) in the statement, next to the call, so PostgreSQL
-- parsed and planned it, its two scalar subqueries included, for every group: 0.65 - 0.74 ms
-- per call of 16 declined items where the call alone takes 0.41 (pgbench, one client). A
-- plpgsql function plans its statements once per session.
--
-- The expression is STORE_TIMELINE_EXPR's, the pair store_timeline reads: were they ever to
-- differ, every fenced group would be refused as written on another timeline, which every
-- registration test would show. Read first, by the backend that runs the appends, in their
-- transaction; on another timeline nothing is written. One row of the timeline alone when
-- nothing was written (another timeline, or every item declined), else one row per item
-- written, each with the timeline.

CREATE FUNCTION sr_register_append_fenced(p_items jsonb, p_fence bigint)
RETURNS TABLE (o_timeline bigint, o_ord integer, o_id integer, o_version integer, o_ts bigint,
               o_new boolean, o_seq bigint)
LANGUAGE plpgsql AS $$
DECLARE
    v_timeline bigint := CASE WHEN pg_is_in_recovery() THEN 0 ELSE
        ((hashtextextended((SELECT system_identifier FROM pg_control_system())::text || '/' ||
                           (SELECT oid FROM pg_database WHERE datname = current_database())::text, 0)
          & 2147483647) << 32)
        | ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::bigint END;
BEGIN
    IF p_fence <= 0 OR v_timeline = p_fence THEN
        RETURN QUERY SELECT v_timeline, m.* FROM sr_register_append_many(p_items) AS m;
        IF FOUND THEN
            RETURN;
        END IF;
    END IF;
    RETURN QUERY SELECT v_timeline, NULL::integer, NULL::integer, NULL::integer, NULL::bigint,
                        NULL::boolean, NULL::bigint;
END
$$;
