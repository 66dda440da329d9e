-- One content may live under several ids: IMPORT from a registry that kept
-- one schema under several ids stores each of them (Confluent allows it; only
-- an id bound to two contents is refused, and the primary key forbids that).
-- Exactly one row per (schema_type, identity_key) is canonical: the id that
-- registrations outside IMPORT reuse and lookups prefer. A new content's
-- first row is canonical; an import of a new id for stored content takes the
-- mark (the id stored last wins, as in Confluent's schema-hash index). The
-- partial unique index does what the old UNIQUE did: two subjects that
-- register the same new schema at once end up with one id, without a global
-- lock (store/store.c, store_schema_upsert).
ALTER TABLE schemas ADD COLUMN canonical boolean NOT NULL DEFAULT true;
ALTER TABLE schemas DROP CONSTRAINT schemas_schema_type_identity_key_key;
CREATE UNIQUE INDEX schemas_canonical_identity ON schemas (schema_type, identity_key) WHERE canonical;
