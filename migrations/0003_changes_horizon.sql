-- The change feed is pruned (rows older than changes.retention.seconds go).
-- A node whose feed had not read up to a pruned row has missed changes it
-- can no longer replay: it reads pruned_upto, sees it is behind it, and
-- reloads every scope instead (registry/feed.c).
CREATE TABLE changes_horizon (
    id           boolean PRIMARY KEY DEFAULT true CHECK (id),
    pruned_upto  bigint  NOT NULL
);
INSERT INTO changes_horizon (id, pruned_upto) VALUES (true, 0);
