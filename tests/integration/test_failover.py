"""A primary, a streaming standby and two registry nodes on a multi-host
connection string (issue 18; docs/operations.md, "Replication and failover").

The primary is stopped as a lost machine would be (pg_ctl stop -m immediate)
and the standby promoted. Checked: reads are served from memory throughout;
writes in the gap fail promptly with a 5xx Confluent error; writes resume on
the promoted standby within a bounded time (printed); with synchronous
replication every acknowledged registration is there afterwards under its id
and content; no id is ever bound to two contents; both nodes serve one view.
"""

import json
import os
import threading
import time

import harness
from harness import avro_record, quote

TIMEOUT_MS = 3000          # database.timeout.ms of the nodes
GAP_SECONDS = 2.0          # how long the database stays without a primary
RESUME_SECONDS = 60        # writes must resume within this after the promotion
CONVERGE_SECONDS = 20


def multi_host_url(primary, standby, dbname):
    return (f"postgresql://postgres@127.0.0.1:{primary.port},127.0.0.1:{standby.port}/{dbname}"
            "?target_session_attrs=read-write")


def multi_host_conninfo(primary, standby, dbname):
    return (f"host=127.0.0.1,127.0.0.1 port={primary.port},{standby.port} dbname={dbname} "
            "user=postgres target_session_attrs=read-write")


class Storm:
    """Threads registering new subjects on both nodes until stop(); every
    acknowledged registration is kept as (node, subject, version, id, schema)."""

    def __init__(self, clients, per_thread=400):
        self.acked, self.failed, self.slow = [], [], []
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._threads = [threading.Thread(target=self._run, args=(t, clients[t % len(clients)],
                                                                  per_thread))
                         for t in range(4)]
        for t in self._threads:
            t.start()

    def _run(self, t, client, n):
        for i in range(n):
            if self._done.is_set():
                return
            subject = f"storm-{t}-{i}"
            schema = avro_record(f"Storm{t}x{i}", [(f"f{t}_{i}", "string")])
            started = time.monotonic()
            try:
                r = client.post(f"/subjects/{quote(subject)}/versions", {"schema": schema},
                                timeout=30)
            except OSError as exc:
                with self._lock:
                    self.failed.append(("exception", repr(exc)))
                continue
            took = time.monotonic() - started
            with self._lock:
                if took > TIMEOUT_MS / 1000 + 2:
                    self.slow.append((subject, r.status, took))
                if r.status == 200:
                    self.acked.append((t % 2, subject, 1, r.body["id"], schema, time.monotonic()))
                else:
                    self.failed.append((r.status, r.body))
                    time.sleep(0.05)

    def stop(self):
        self._done.set()
        for t in self._threads:
            t.join(timeout=120)


class Failover(harness.unittest.TestCase):
    synchronous = True

    def setUp(self):
        self.primary = harness.Postgres(opts="-c synchronous_commit=on").start()
        self.addCleanup(self.primary.stop)
        self.db = self.primary.new_database("failover")
        self.standby = self.primary.standby().start()
        self.addCleanup(self.standby.stop)
        if self.synchronous:
            # After the base backup, so the standby (the next primary) does
            # not wait for a standby of its own.
            self.primary.sql("ALTER SYSTEM SET synchronous_standby_names = '*'")
            self.primary.sql("SELECT pg_reload_conf()")
        self.wait_streaming()
        args = ["--feed-interval-ms", "100", "--db-threads", "4",
                "--database-timeout-ms", str(TIMEOUT_MS)]
        self.a = harness.Server(database_url=multi_host_url(self.primary, self.standby, self.db.name),
                                name="failover-a", args=args).start()
        self.addCleanup(self.a.kill)
        self.b = harness.Server(database_url=multi_host_conninfo(self.primary, self.standby,
                                                                 self.db.name),
                                name="failover-b", args=args).start()
        self.addCleanup(self.b.kill)
        self.clients = [self.a.client(), self.b.client()]

    def wait_streaming(self):
        want = "sync" if self.synchronous else "async"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            rows = self.primary.sql("SELECT sync_state FROM pg_stat_replication WHERE state = 'streaming'")
            if rows and rows[0][0] == want:
                return
            time.sleep(0.1)
        self.fail(f"the standby is not streaming ({want})")

    def assert_reads_served(self, acked, settled_before=None):
        """The last registrations, on the node that acknowledged them, and on
        both nodes those acknowledged before settled_before (the feed had
        time to carry them)."""
        for node, subject, version, schema_id, schema, at in acked[:20] + acked[-40:]:
            both = settled_before is None or at < settled_before
            for c in self.clients if both else [self.clients[node]]:
                r = c.get(f"/schemas/ids/{schema_id}")
                self.assertEqual(r.status, 200, r)
                self.assertEqual(json.loads(r.body["schema"]), json.loads(schema))
                r = c.get(f"/subjects/{quote(subject)}/versions/1")
                self.assertEqual(r.status, 200, r)
                self.assertEqual(r.body["id"], schema_id)

    def first_write_ok(self, deadline):
        """Registers on each node until it answers 200; bounded by deadline."""
        for n, c in enumerate(self.clients):
            i = 0
            while True:
                i += 1
                schema = avro_record(f"After{n}x{i}", [("a", "string")])
                r = c.post(f"/subjects/after-{n}-{i}/versions", {"schema": schema}, timeout=30)
                if r.status == 200:
                    break
                self.assertLess(time.monotonic(), deadline, f"writes did not resume: {r}")
                time.sleep(0.2)

    def test_failover(self):
        t0 = time.monotonic()
        storm = Storm(self.clients)
        deadline = time.monotonic() + 60
        while len(storm.acked) < 40 and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertGreaterEqual(len(storm.acked), 40, storm.failed[:5])

        self.primary.crash()
        crashed = time.monotonic()
        time.sleep(0.5)
        # The gap: nobody accepts writes. Reads come from memory; a write is a
        # prompt 5xx Confluent error.
        with storm._lock:
            acked_before = list(storm.acked)
        self.assert_reads_served(acked_before, settled_before=crashed - 1.0)
        for n, c in enumerate(self.clients):
            started = time.monotonic()
            r = c.post(f"/subjects/gap-{n}/versions",
                       {"schema": avro_record(f"Gap{n}", [("a", "string")])}, timeout=60)
            took = time.monotonic() - started
            self.assertIn(r.status, (500, 503), r)
            self.assertIn(r.body["error_code"], (50001, 50002, 50003), r)
            self.assertIsInstance(r.body["message"], str)
            self.assertLess(took, TIMEOUT_MS / 1000 + 2, f"a write in the gap took {took:.1f} s")
        time.sleep(max(0.0, GAP_SECONDS - (time.monotonic() - crashed)))

        self.standby.promote()
        promoted = time.monotonic()
        self.first_write_ok(promoted + RESUME_SECONDS)
        resumed = time.monotonic() - promoted
        print(f"\n  failover (synchronous={self.synchronous}): writes resumed {resumed:.2f} s "
              f"after the promotion ({time.monotonic() - crashed:.2f} s after the crash)")
        time.sleep(1.0)
        storm.stop()
        self.assertEqual(storm.slow, [], "requests slower than the database timeout")
        # Asynchronous replication may lose what the old primary acknowledged last
        # (check_state counts it); what the new primary holds must be served.
        lost = self.lost(storm)
        self.assert_reads_served([a for a in storm.acked if a not in lost])
        t1 = time.monotonic()
        self.check_state(storm)
        print(f"  storm and failover {t1 - t0:.1f} s, checks {time.monotonic() - t1:.1f} s")

    def stored_versions(self):
        """(subject, version) -> id, as the primary now (the promoted standby) holds them."""
        versions = self.standby.sql("SELECT subject, version, schema_id FROM subject_versions",
                                    dbname=self.db.name)
        return {(s, int(v)): int(i) for s, v, i in versions}

    def lost(self, storm):
        """Acknowledged registrations the primary now does not hold under their id."""
        stored = self.stored_versions()
        return [a for a in storm.acked if stored.get((a[1], a[2])) != a[3]]

    def check_state(self, storm):
        new = self.standby      # the primary now
        rows = new.sql(f"SELECT id, schema_text FROM schemas", dbname=self.db.name)
        by_id = {int(i): json.loads(text) for i, text in rows}
        self.assertEqual(len(by_id), len(rows), "an id bound to two contents")
        stored = self.stored_versions()
        lost = self.lost(storm)
        if self.synchronous:
            self.assertEqual(lost, [], "acknowledged registrations lost or rebound")
        print(f"  acknowledged: {len(storm.acked)}, lost after failover: {len(lost)}, "
              f"refused: {len(storm.failed)}")
        # Every subject has exactly versions 1..n.
        per_subject = {}
        for (s, v) in stored:
            per_subject.setdefault(s, []).append(v)
        for s, vs in per_subject.items():
            self.assertEqual(sorted(vs), list(range(1, len(vs) + 1)), s)
        # Whatever a node serves for an id is the database's content for it,
        # and both nodes serve the same listing.
        ids = {a[3] for a in storm.acked}
        for c in self.clients:
            for schema_id in sorted(ids):
                r = c.get(f"/schemas/ids/{schema_id}")
                if schema_id in by_id:
                    self.assertEqual(r.status, 200, r)
                    self.assertEqual(json.loads(r.body["schema"]), by_id[schema_id], schema_id)
                else:
                    self.assertEqual(r.status, 404, r)
        want = sorted(per_subject)
        deadline = time.monotonic() + CONVERGE_SECONDS
        while True:
            views = [sorted(c.get("/subjects").body) for c in self.clients]
            if all(v == want for v in views) or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        self.assertEqual(views[0], want)
        self.assertEqual(views[1], want)
        for n, srv in enumerate((self.a, self.b)):
            warns = [line for line in srv.log_text().splitlines() if " WARN " in line]
            # Logged once per outage, not once per worker or per attempt.
            self.assertEqual(len([w for w in warns if "dbpool:" in w]), 1, "\n".join(warns))
            self.assertLessEqual(len([w for w in warns if "feed: cannot reach" in w]), 1, "\n".join(warns))
            # The feed found the new timeline and reloaded instead of replaying.
            self.assertEqual(len([w for w in warns if "a failover" in w]), 1, "\n".join(warns))
            srv.stop()


def wait_replayed(primary, standby, timeout=30):
    """Until the standby has replayed everything the primary wrote so far."""
    # The insert position: what is still in WAL buffers counts too (the walwriter
    # sends it within wal_writer_delay).
    target = primary.sql("SELECT pg_current_wal_insert_lsn()")[0][0]
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if standby.sql(f"SELECT pg_last_wal_replay_lsn() >= '{target}'")[0][0] == "t":
            return
        time.sleep(0.05)
    raise AssertionError("the standby did not catch up")


class SequenceAfterPromotion(harness.unittest.TestCase):
    """What PostgreSQL's sequence does across a promotion (the facts the
    write path is made immune to). nextval WAL-logs 32 values ahead
    (SEQ_LOG_VALS in src/backend/commands/sequence.c) and the standby replays
    that record: a promoted standby goes on after the last logged value."""

    def setUp(self):
        self.primary = harness.Postgres().start()
        self.addCleanup(self.primary.stop)
        self.primary.sql("CREATE SEQUENCE s")
        self.standby = self.primary.standby().start()
        self.addCleanup(self.standby.stop)

    def nextvals(self, pg, n):
        return [int(pg.sql("SELECT nextval('s')")[0][0]) for _ in range(n)]

    def test_replicated_values_are_skipped_not_reused(self):
        self.assertEqual(self.nextvals(self.primary, 3), [1, 2, 3])
        wait_replayed(self.primary, self.standby)
        self.primary.crash()
        self.standby.promote()
        # 4..33 were never handed out, and never will be: gaps.
        self.assertEqual(self.nextvals(self.standby, 1), [34])

    def test_values_the_standby_never_received_are_handed_out_again(self):
        self.assertEqual(self.nextvals(self.primary, 3), [1, 2, 3])
        wait_replayed(self.primary, self.standby)
        self.standby.stop()
        # Committed on the primary (autocommit), logged at 34, never replicated.
        self.assertEqual(self.nextvals(self.primary, 37), list(range(4, 41)))
        self.primary.crash()
        self.standby.start_again()
        self.standby.promote()
        # 34..40 again: the same values for other rows.
        self.assertEqual(self.nextvals(self.standby, 7), list(range(34, 41)))


class IdsAcrossFailover(harness.unittest.TestCase):
    """A node whose acknowledged registrations were lost in an asynchronous
    failover (the standby never got them) holds ids the new primary hands out
    again for other content. The node must never serve those ids bound to its
    old content: writes wait until it has reloaded from the new primary."""

    def setUp(self):
        self.primary = harness.Postgres().start()
        self.addCleanup(self.primary.stop)
        self.db = self.primary.new_database("ids")
        self.standby = self.primary.standby().start()
        self.addCleanup(self.standby.stop)
        self.node = harness.Server(
            database_url=multi_host_url(self.primary, self.standby, self.db.name),
            name="ids-node", args=["--feed-interval-ms", "200", "--db-threads", "2",
                                   "--database-timeout-ms", str(TIMEOUT_MS)]).start()
        self.addCleanup(self.node.kill)
        self.client = self.node.client()

    def register(self, subject, schema):
        return self.client.post(f"/subjects/{quote(subject)}/versions", {"schema": schema}, timeout=30)

    def test_reused_ids_are_never_served_with_lost_content(self):
        for i in range(3):
            self.assertEqual(self.register(f"kept-{i}", avro_record(f"Kept{i}", [("a", "string")])).status, 200)
        wait_replayed(self.primary, self.standby)
        self.standby.stop()
        lost = {}
        for i in range(40):   # past the 32 values the standby's sequence knows of
            schema = avro_record(f"Lost{i}", [("a", "string")])
            r = self.register(f"lost-{i}", schema)
            self.assertEqual(r.status, 200, r)
            lost[r.body["id"]] = schema
        self.primary.crash()
        self.standby.start_again()
        self.standby.promote()

        fresh = {}
        deadline = time.monotonic() + RESUME_SECONDS
        refused = []
        for i in range(15):
            schema = avro_record(f"Fresh{i}", [("b", "int")])
            while True:
                r = self.register(f"fresh-{i}", schema)
                if r.status == 200:
                    break
                self.assertIn(r.status, (500,), r)
                self.assertEqual(r.body["error_code"], 50001, r)
                refused.append(r.body["message"])
                self.assertLess(time.monotonic(), deadline, r)
                time.sleep(0.1)
            schema_id = r.body["id"]
            fresh[schema_id] = schema
            # At once, on the node that wrote it: the new primary's content.
            got = self.client.get(f"/schemas/ids/{schema_id}")
            self.assertEqual(got.status, 200, got)
            self.assertEqual(json.loads(got.body["schema"]), json.loads(schema), schema_id)
        reused = sorted(set(fresh) & set(lost))
        print(f"\n  ids handed out again by the promoted standby: {reused}; writes refused while "
              f"the node reloaded: {len(refused)}")
        self.assertTrue(reused, "the scenario did not make the new primary reuse an id")
        stored = {int(i): json.loads(t) for i, t in
                  self.standby.sql("SELECT id, schema_text FROM schemas", dbname=self.db.name)}
        for schema_id in sorted(set(lost) | set(fresh)):
            got = self.client.get(f"/schemas/ids/{schema_id}")
            if got.status == 500 and "failed over" in got.body["message"]:
                # An id this node does not hold is looked up in the database; a
                # worker whose connection predates the failover refuses once
                # (store.c, store_exec_retrying) and is on the new primary after.
                got = self.client.get(f"/schemas/ids/{schema_id}")
            if schema_id in stored:
                self.assertEqual(got.status, 200, got)
                self.assertEqual(json.loads(got.body["schema"]), stored[schema_id], schema_id)
            else:
                self.assertEqual(got.status, 404, got)
                self.assertEqual(got.body["error_code"], 40403, got)
        # The lost subjects are gone from the node's memory too.
        self.assertEqual(sorted(s for s in self.client.get("/subjects").body if s.startswith("lost-")), [])
        self.node.stop()


class SynchronousStandbyLost(harness.unittest.TestCase):
    """With synchronous replication, a COMMIT waits for the standby, and
    PostgreSQL's statement_timeout does not cover that wait. The node bounds it
    by database.timeout.ms itself: the write answers 50002, promptly."""

    def test_commit_waiting_for_a_lost_standby_answers_in_time(self):
        primary = harness.Postgres(opts="-c synchronous_commit=on").start()
        self.addCleanup(primary.stop)
        db = primary.new_database("syncloss")
        standby = primary.standby().start()
        self.addCleanup(standby.stop)
        primary.sql("ALTER SYSTEM SET synchronous_standby_names = '*'")
        primary.sql("SELECT pg_reload_conf()")
        node = harness.Server(database_url=multi_host_url(primary, standby, db.name), name="syncloss",
                              args=["--database-timeout-ms", str(TIMEOUT_MS)]).start()
        self.addCleanup(node.kill)
        c = node.client()
        self.assertEqual(c.post("/subjects/before/versions",
                                {"schema": avro_record("Before", [("a", "string")])}).status, 200)
        standby.stop()
        schema = avro_record("During", [("a", "string")])
        started = time.monotonic()
        r = c.post("/subjects/during/versions", {"schema": schema}, timeout=60)
        took = time.monotonic() - started
        self.assertLess(took, TIMEOUT_MS / 1000 + 2, f"the write took {took:.1f} s")
        self.assertEqual(r.status, 500, r)
        self.assertEqual(r.body["error_code"], 50002, r)
        self.assertIn("synchronous standby", r.body["message"])
        # Committed on the primary alone; once the standby is back the same
        # request answers with the id that row has.
        standby.start_again()
        deadline = time.monotonic() + 30
        while True:
            r = c.post("/subjects/during/versions", {"schema": schema}, timeout=60)
            if r.status == 200 or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        self.assertEqual(r.status, 200, r)
        self.assertEqual(db.value("SELECT schema_id FROM subject_versions WHERE subject = 'during'"),
                         str(r.body["id"]))
        self.assertEqual(db.count("subject_versions", "subject = 'during'"), 1)
        node.stop()


class FailoverAsync(Failover):
    """The same without synchronous replication: an acknowledged registration
    may be lost (printed), but no id is ever served bound to other content."""
    synchronous = False


if __name__ == "__main__":
    harness.main()
