-- A change's time is when its number was drawn, not when its transaction began.
--
-- A node that loads everything (at start, or after a failover) starts its feed at the last
-- change drawn more than the feed's gap wait (5 s, registry/feed.c) before the load, not at
-- the log's end: a transaction that drew a lower number than the end but commits after the
-- load would otherwise never be read by that node. The argument needs each row's time to be
-- no earlier than the moment its number was drawn: now() is the transaction's start, which a
-- transaction waiting on a lock before its insert leaves seconds behind; clock_timestamp(),
-- evaluated with the row's other defaults (nextval among them), is not.

ALTER TABLE changes ALTER COLUMN at SET DEFAULT clock_timestamp();
