-- A stable identifier of this registry's database, reported as the
-- "kafka-cluster" of GET /v1/metadata/id when none is configured: every node
-- on one database reports the same value, and it survives restarts.
CREATE TABLE registry_cluster (
    id text PRIMARY KEY
);
INSERT INTO registry_cluster (id)
SELECT substr(md5(random()::text || clock_timestamp()::text), 1, 22);
