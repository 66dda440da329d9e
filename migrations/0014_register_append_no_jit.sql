-- The group statement never pays for JIT compilation (docs/performance.md, "New
-- registrations: no JIT in the group statement").
--
-- The planner estimates the subject lookup in sr_register_append_many's first query (a
-- LATERAL join over jsonb_array_elements, which it assumes returns 100 rows) from
-- subject_versions' size while the table has no statistics, or stale ones: at about 170,000
-- version rows that estimate passes jit_above_cost (100,000 by default), and PostgreSQL 15,
-- whose Debian build has JIT, compiled the query anew on every call: 7.8 ms of a 10.4 ms call
-- for 16 items (auto_explain), against 2.6 ms for the whole call before. A session plans it
-- once: one that plans while the table is that large and its statistics stale (after a
-- restart or a reconnection that follows a burst of registrations) compiles on every call
-- until autovacuum's next ANALYZE invalidates the plan. The group statement is short work all
-- the way: compiling pays off for none of its queries.
--
-- Set on the function the registry calls (store_register_append); the setting holds for
-- everything it runs, sr_register_append_many included.

ALTER FUNCTION sr_register_append_fenced(jsonb, bigint) SET jit = off;
