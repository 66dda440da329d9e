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
