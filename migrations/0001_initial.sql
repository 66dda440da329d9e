-- The registry's tables. PostgreSQL is the only source of truth; every node
-- keeps a copy in memory and follows `changes` to stay current.

-- One row per distinct schema content (per type). Ids come from a sequence:
-- gaps allowed, never reused. The unique identity key lets two subjects that
-- register the same new schema at once end up with one id, without a global lock.
CREATE SEQUENCE schema_ids AS integer MINVALUE 1;

CREATE TABLE schemas (
    id            integer PRIMARY KEY,
    schema_type   text    NOT NULL,
    schema_text   text    NOT NULL,
    identity_key  bytea   NOT NULL,            -- MD5 of rest-api.md 2.3
    refs          jsonb   NOT NULL DEFAULT '[]',  -- [{"name","subject","version"}], in order
    created_at    timestamptz NOT NULL DEFAULT now(),
    UNIQUE (schema_type, identity_key)
);

CREATE TABLE subject_versions (
    subject     text    NOT NULL,
    version     integer NOT NULL CHECK (version > 0),
    schema_id   integer NOT NULL REFERENCES schemas (id),
    deleted     boolean NOT NULL DEFAULT false,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (subject, version)
);
CREATE INDEX subject_versions_schema_id ON subject_versions (schema_id);

-- Reverse edges for /referencedby and delete blocking.
CREATE TABLE schema_references (
    schema_id    integer NOT NULL REFERENCES schemas (id),
    position     integer NOT NULL,
    name         text    NOT NULL,
    ref_subject  text    NOT NULL,
    ref_version  integer NOT NULL,
    PRIMARY KEY (schema_id, position)
);
CREATE INDEX schema_references_target ON schema_references (ref_subject, ref_version);

-- Config and mode per scope: '' is the global scope, otherwise a subject name.
-- config holds the ConfigUpdate fields ({"compatibility": "FULL", "normalize": true}).
CREATE TABLE configs (
    scope   text  PRIMARY KEY,
    config  jsonb NOT NULL
);

CREATE TABLE modes (
    scope  text PRIMARY KEY,
    mode   text NOT NULL
);

-- The change feed: every write transaction appends the scopes it touched.
-- Other nodes poll it (seq > last seen) and reload those scopes.
CREATE TABLE changes (
    seq      bigserial PRIMARY KEY,
    scope    text NOT NULL,
    at       timestamptz NOT NULL DEFAULT now()
);
