-- Associations (docs/api.md "Associations"): a subject tied to a resource (a Kafka topic)
-- as its key or value schema, as Confluent's AssociationsResource stores them
-- (AssociationValue). Read from here directly by every node (no in-memory copy), so a
-- write on one node is seen by the next read on any other.
-- One association per (resource id, resource type, association type): the by-resourceId
-- lookups of AbstractSchemaRegistry return at most one per type.
-- guid: the association's own random id (UUID.randomUUID in AssociationValue).

CREATE TABLE associations (
    resource_id        text NOT NULL,
    resource_type      text NOT NULL,
    association_type   text NOT NULL,
    resource_name      text NOT NULL,
    resource_namespace text NOT NULL,
    subject            text NOT NULL,
    guid               text NOT NULL,
    lifecycle          text NOT NULL CHECK (lifecycle IN ('STRONG', 'WEAK')),
    frozen             boolean NOT NULL,
    created_ms         bigint NOT NULL,
    updated_ms         bigint NOT NULL,
    PRIMARY KEY (resource_id, resource_type, association_type)
);

CREATE INDEX associations_subject ON associations (subject);
CREATE INDEX associations_name ON associations (resource_name, resource_namespace);
CREATE INDEX associations_namespace ON associations (resource_namespace);
