"""What a node holds in memory across a failover (issue 18; docs/operations.md,
"Replication and failover"): after a failover, what a node caches is checked
against the new primary before it serves it as truth, and no id is ever bound
to two contents.

Every scenario loses writes the way an asynchronous failover does: the
standby is stopped, the node registers subjects "lost-*" on the primary, the
primary crashes (pg_ctl stop -m immediate) and the standby is started and
promoted. The new primary never got the lost subjects, and it hands out
again ids and change numbers the node saw for them (PostgreSQL's sequences log
32 values ahead; test_failover.SequenceAfterPromotion).

- FenceBehindPgBouncer: the node reaches the database through PgBouncer, which
  the operator repoints to the new primary. The node's connection never
  breaks and never reconnects, so only a check inside the write's own
  transaction can tell that it now runs on another server (store_fence).
- FeedOff*: feed.interval.ms = 0. The first write finds the failover and the
  node reloads from the new primary at once: no restart.
- OwnChangesAfterFailover: the feed's list of change numbers this node wrote
  itself is cleared on the failover reload (registry/feed.c,
  feed_check_continuity), or another node's changes that the new primary
  numbers alike would be skipped.
- AnotherClusterBehindPgBouncer: PgBouncer repointed to an independent
  cluster holding an older pg_dump of the database, on the same timeline
  number (1), or to another database of the same cluster holding it: the
  fence's pair (database, timeline) tells them apart.
- ReplicaOnTheOldTimeline: a read replica left on the old timeline is past the
  new primary's WAL position with the lost writes; neither the start-up load
  nor the feed's reloads may read it (registry_read_source).
"""

import json
import subprocess
import threading
import time

import harness
from harness import avro_record, quote
from test_failover import TIMEOUT_MS, multi_host_url, wait_replayed

RESUME_SECONDS = 60
CONVERGE_SECONDS = 15
LOST = 40          # past the 32 values the standby's sequences know of


def register(client, subject, schema):
    return client.post(f"/subjects/{quote(subject)}/versions", {"schema": schema}, timeout=30)


def eventually(check, seconds=CONVERGE_SECONDS, every=0.1):
    """check() until it returns a true value, bounded; returns the last value."""
    deadline = time.monotonic() + seconds
    while True:
        got = check()
        if got or time.monotonic() > deadline:
            return got
        time.sleep(every)


class LostWrites:
    """A primary, a standby and the helpers that lose writes between them."""

    def start_clusters(self):
        self.primary = harness.Postgres().start()
        self.addCleanup(self.primary.stop)
        self.db = self.primary.new_database("memory")
        self.standby = self.primary.standby().start()
        self.addCleanup(self.standby.stop)

    def node(self, name, url=None, args=()):
        srv = harness.Server(database_url=url or multi_host_url(self.primary, self.standby, self.db.name),
                             name=name, args=["--database-timeout-ms", str(TIMEOUT_MS), *args]).start()
        self.addCleanup(srv.kill)
        return srv

    def register_ok(self, client, subject, schema):
        r = register(client, subject, schema)
        self.assertEqual(r.status, 200, r)
        return r.body["id"]

    def lose_writes(self, client, before_crash=None):
        """Registers LOST subjects the standby never gets, then fails over;
        returns {id: schema} of the lost registrations."""
        for i in range(3):
            self.register_ok(client, f"kept-{i}", avro_record(f"Kept{i}", [("a", "string")]))
        wait_replayed(self.primary, self.standby)
        self.standby.stop()
        lost = {}
        for i in range(LOST):
            schema = avro_record(f"Lost{i}", [("a", "string")])
            lost[self.register_ok(client, f"lost-{i}", schema)] = schema
        if before_crash:
            before_crash()
        self.primary.crash()
        self.standby.start_again()
        self.standby.promote()
        return lost

    def stored(self):
        """{id: parsed schema} on the new primary."""
        return {int(i): json.loads(t) for i, t in
                self.standby.sql("SELECT id, schema_text FROM schemas", dbname=self.db.name)}

    def assert_serves_new_primary(self, client, ids):
        """For each id: the new primary's content, or 404 when it has none;
        and no lost subject is listed."""
        stored = self.stored()
        for schema_id in sorted(ids):
            got = client.get(f"/schemas/ids/{schema_id}")
            if schema_id in stored:
                self.assertEqual(got.status, 200, got)
                self.assertEqual(json.loads(got.body["schema"]), stored[schema_id], schema_id)
            else:
                self.assertEqual((got.status, got.body.get("error_code")), (404, 40403), got)
        subjects = client.get("/subjects").body
        self.assertEqual([s for s in subjects if s.startswith("lost-")], [])

    def write_until_ok(self, client, subject, schema):
        """Registers until 200 (bounded); every refusal on the way is a
        failover's 50001. Returns (response, refusals)."""
        refused = []
        deadline = time.monotonic() + RESUME_SECONDS
        while True:
            r = register(client, subject, schema)
            if r.status == 200:
                return r, refused
            self.assertEqual((r.status, r.body.get("error_code")), (500, 50001), r)
            refused.append(r.body["message"])
            self.assertLess(time.monotonic(), deadline, f"writes did not resume: {r}")
            time.sleep(0.1)


class FenceBehindPgBouncer(LostWrites, harness.unittest.TestCase):
    """The silent reconnect: behind PgBouncer the node's connection stays open
    while the server behind it changes, so the timeline the node noted when it
    connected says nothing. The feed polls once an hour here, so it cannot
    be what saves the write."""

    def test_write_on_the_new_primary_is_refused_until_reloaded(self):
        self.start_clusters()
        bouncer = harness.PgBouncer(self.primary, "transaction").start()
        self.addCleanup(bouncer.stop)
        node = self.node("fence-pgbouncer", url=bouncer.url(self.db.name),
                         args=["--feed-interval-ms", "3600000", "--db-threads", "1"])
        c = node.client()
        lost = self.lose_writes(c)
        bouncer.repoint(self.standby, self.db.name)

        # The one worker's connection to PgBouncer never broke.
        r = register(c, "fresh-0", avro_record("Fresh0", [("b", "int")]))
        self.assertEqual((r.status, r.body.get("error_code")), (500, 50001), r)
        self.assertIn("failed over", r.body["message"])
        # Nothing of it was written.
        self.assertEqual(self.standby.sql("SELECT count(*) FROM subject_versions WHERE subject = 'fresh-0'",
                                          dbname=self.db.name), [("0",)])
        # The refusal woke the feed, which reloads from the new primary.
        fresh = {}
        for i in range(10):
            schema = avro_record(f"Fresh{i}", [("b", "int")])
            r, _ = self.write_until_ok(c, f"fresh-{i}", schema)
            fresh[r.body["id"]] = schema
            got = c.get(f"/schemas/ids/{r.body['id']}")
            self.assertEqual(json.loads(got.body["schema"]), json.loads(schema))
        self.assertTrue(set(fresh) & set(lost), "the new primary reused no id: the scenario is void")
        self.assert_serves_new_primary(c, set(lost) | set(fresh))
        self.assertIn("reloaded everything from the new primary", node.log_text())
        node.stop()


    def test_concurrent_writes_in_groups(self):
        """Registrations arriving together share one statement (group commit);
        each item was checked by its own worker, the group is written by one
        of them, and a failed group is retried item by item."""
        self.start_clusters()
        bouncer = harness.PgBouncer(self.primary, "transaction").start()
        self.addCleanup(bouncer.stop)
        node = self.node("fence-groups", url=bouncer.url(self.db.name),
                         args=["--feed-interval-ms", "3600000", "--db-threads", "8"])
        c = node.client()
        lost = self.lose_writes(c)
        bouncer.repoint(self.standby, self.db.name)
        acked, errors = {}, []
        lock = threading.Lock()

        def run(t):
            client = node.client()
            for i in range(8):
                schema = avro_record(f"Group{t}x{i}", [("g", "string")])
                try:
                    r, _ = self.write_until_ok(client, f"group-{t}-{i}", schema)
                except AssertionError as exc:
                    with lock:
                        errors.append(exc)
                    return
                with lock:
                    acked[f"group-{t}-{i}"] = (r.body["id"], schema)
        threads = [threading.Thread(target=run, args=(t,)) for t in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=RESUME_SECONDS + 30)
        self.assertEqual(errors, [])
        self.assertEqual(len(acked), 64)
        # Every acknowledged registration is the new primary's, under its id.
        stored = self.stored()
        rows = self.standby.sql("SELECT subject, schema_id FROM subject_versions WHERE subject LIKE 'group-%'",
                                dbname=self.db.name)
        self.assertEqual({s: int(i) for s, i in rows}, {s: i for s, (i, _) in acked.items()})
        for subject, (schema_id, schema) in acked.items():
            self.assertEqual(stored[schema_id], json.loads(schema), subject)
        self.assert_serves_new_primary(c, set(lost) | {i for i, _ in acked.values()})
        groups = [line for line in c.get("/metrics").text.splitlines()
                  if line.startswith("schema_registry_group_")]
        print(f"\n  {groups}")
        node.stop()


class AnotherClusterBehindPgBouncer(harness.unittest.TestCase):
    """A restore, not a failover: the operator repoints PgBouncer to a second,
    independent cluster into which an older pg_dump of the database was
    restored. Both clusters are on timeline 1, so a fence on the timeline
    alone lets the write through onto a database this node's memory is not
    from (ids the restored sequence hands out again are bound in memory to
    the first cluster's schemas). The fence also compares the database
    (system identifier and OID, store/store.c): the write is refused with
    50001, nothing is written, and the node reloads from what the new
    database holds. The feed polls once an hour, so it cannot be what
    notices."""

    def test_write_on_a_restored_copy_is_refused_until_reloaded(self):
        first = harness.Postgres().start()
        self.addCleanup(first.stop)
        db = first.new_database("restored")
        second = harness.Postgres().start()
        self.addCleanup(second.stop)
        second.sql(f'CREATE DATABASE "{db.name}"')
        self.restored_copy(first, db.name, second, db.name)

    def test_write_on_a_copy_in_the_same_cluster_is_refused_until_reloaded(self):
        """The dump restored into another database of the same cluster:
        same system identifier, same timeline, only the OID differs."""
        cluster = harness.Postgres().start()
        self.addCleanup(cluster.stop)
        db = cluster.new_database("restored")
        copy = cluster.new_database("copy")
        self.restored_copy(cluster, db.name, cluster, copy.name)

    def restored_copy(self, first, dbname, second, second_dbname):
        """The node on first's dbname through PgBouncer; a dump of it restored
        into second's second_dbname, then more writes on first; PgBouncer
        repointed to the copy."""
        bouncer = harness.PgBouncer(first, "transaction").start()
        self.addCleanup(bouncer.stop)
        node = harness.Server(database_url=bouncer.url(dbname), name="fence-restored",
                              args=["--database-timeout-ms", str(TIMEOUT_MS), "--feed-interval-ms", "3600000",
                                    "--db-threads", "1"]).start()
        self.addCleanup(node.kill)
        c = node.client()
        kept = {}
        for i in range(3):
            schema = avro_record(f"Kept{i}", [("a", "string")])
            r = register(c, f"kept-{i}", schema)
            self.assertEqual(r.status, 200, r)
            kept[r.body["id"]] = schema
        dump = subprocess.run([first._bin("pg_dump"), "-h", "127.0.0.1", "-p", str(first.port), "-U", "postgres",
                               "-d", dbname], capture_output=True, text=True, check=True).stdout
        subprocess.run([second._bin("psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p",
                        str(second.port), "-U", "postgres", "-d", second_dbname], input=dump, capture_output=True,
                       text=True, check=True)
        later = {}
        for i in range(5):
            schema = avro_record(f"Later{i}", [("a", "string")])
            r = register(c, f"later-{i}", schema)
            self.assertEqual(r.status, 200, r)
            later[r.body["id"]] = schema
        # Same timeline number on both, so only the database tells them apart.
        timeline = "SELECT timeline_id FROM pg_control_checkpoint()"
        self.assertEqual(first.sql(timeline), second.sql(timeline))
        bouncer.repoint(second, dbname, server_dbname=None if second_dbname == dbname else second_dbname)

        # The one worker's connection to PgBouncer never broke.
        r = register(c, "fresh-0", avro_record("Fresh0", [("b", "int")]))
        self.assertEqual((r.status, r.body.get("error_code")), (500, 50001), r)
        self.assertIn("another database", r.body["message"])
        self.assertEqual(second.sql("SELECT count(*) FROM subject_versions WHERE subject = 'fresh-0'",
                                    dbname=second_dbname), [("0",)])
        self.assertEqual(second.sql("SELECT count(*) FROM schemas", dbname=second_dbname), [(str(len(kept)),)])
        # The refusal woke the feed, which reloads from the second cluster.
        fresh = {}
        deadline = time.monotonic() + RESUME_SECONDS
        for i in range(5):
            schema = avro_record(f"Fresh{i}", [("b", "int")])
            while True:
                r = register(c, f"fresh-{i}", schema)
                if r.status == 200:
                    break
                self.assertEqual((r.status, r.body.get("error_code")), (500, 50001), r)
                self.assertLess(time.monotonic(), deadline, f"writes did not resume: {r}")
                time.sleep(0.1)
            fresh[r.body["id"]] = schema
        self.assertTrue(set(fresh) & set(later), "the restored database reused no id: the scenario is void")
        stored = {int(i): json.loads(t) for i, t in second.sql("SELECT id, schema_text FROM schemas",
                                                               dbname=second_dbname)}
        self.assertEqual(set(stored), set(kept) | set(fresh))
        for schema_id in sorted(set(kept) | set(later) | set(fresh)):
            got = c.get(f"/schemas/ids/{schema_id}")
            if schema_id in stored:
                self.assertEqual(got.status, 200, got)
                self.assertEqual(json.loads(got.body["schema"]), stored[schema_id], schema_id)
            else:
                self.assertEqual((got.status, got.body.get("error_code")), (404, 40403), got)
        self.assertEqual(sorted(c.get("/subjects").body),
                         sorted([f"kept-{i}" for i in range(3)] + [f"fresh-{i}" for i in range(5)]))
        self.assertIn("reloaded everything from the new primary", node.log_text())
        node.stop()


class FeedOff(LostWrites):
    """feed.interval.ms = 0: nothing polls, so the write that finds the
    failover makes the node reload, and the write goes on. No restart."""
    retention = None

    def test_first_write_reloads_without_a_restart(self):
        self.start_clusters()
        args = ["--feed-interval-ms", "0", "--db-threads", "2"]
        if self.retention is not None:
            args += ["--changes-retention-seconds", str(self.retention)]
        node = self.node("feed-off", args=args)
        c = node.client()
        lost = self.lose_writes(c)
        fresh, refusals = {}, 0
        for i in range(10):
            schema = avro_record(f"Fresh{i}", [("b", "int")])
            r, refused = self.write_until_ok(c, f"fresh-{i}", schema)
            refusals += len(refused)
            fresh[r.body["id"]] = schema
            # The moment a write is acknowledged, the memory is the new primary's.
            self.assertEqual([s for s in c.get("/subjects").body if s.startswith("lost-")], [])
        # At most one refusal per worker (its connection predates the failover).
        self.assertLessEqual(refusals, 2)
        self.assertTrue(set(fresh) & set(lost), "the new primary reused no id: the scenario is void")
        self.assert_serves_new_primary(c, set(lost) | set(fresh))
        log = node.log_text()
        self.assertEqual(log.count("reloaded everything from the new primary"), 1, log)
        node.stop()


class FeedOffPruning(FeedOff, harness.unittest.TestCase):
    """The feed thread runs, but only to prune the change log."""


class FeedOffNoThread(FeedOff, harness.unittest.TestCase):
    """No feed thread at all."""
    retention = 0


class OwnChangesAfterFailover(LostWrites, harness.unittest.TestCase):
    """Node a's feed is held (a lock on changes_horizon, which it reads on
    every poll and no write touches) while a registers the lost subjects, so
    their change numbers are still on a's list of its own. The new primary
    numbers node b's changes alike; a must reload them all the same."""

    def test_reused_change_numbers_are_not_skipped(self):
        self.start_clusters()
        args = ["--feed-interval-ms", "100", "--db-threads", "2"]
        a = self.node("own-a", args=args)
        b = self.node("own-b", args=args)
        ca, cb = a.client(), b.client()
        lock = subprocess.Popen([self.primary._bin("psql"), "-X", "-q", "-h", "127.0.0.1",
                                 "-p", str(self.primary.port), "-U", "postgres", "-d", self.db.name],
                                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL, text=True)
        self.addCleanup(lambda: lock.kill() or lock.wait() or lock.stdin.close())

        def hold():
            lock.stdin.write("BEGIN; LOCK TABLE changes_horizon IN ACCESS EXCLUSIVE MODE;\n")
            lock.stdin.flush()
            # Both feeds wait on it: neither reads a change from here on.
            waiting = "SELECT count(*) FROM pg_locks WHERE relation = 'changes_horizon'::regclass AND NOT granted"
            self.assertTrue(eventually(lambda: self.primary.sql(waiting, dbname=self.db.name)[0][0] == "2"))

        lost_seqs = []

        def note_seqs():
            lost_seqs.extend(int(s) for s, in self.primary.sql(
                "SELECT seq FROM changes WHERE scope LIKE 'lost-%'", dbname=self.db.name))

        for i in range(3):
            self.register_ok(ca, f"kept-{i}", avro_record(f"Kept{i}", [("a", "string")]))
        wait_replayed(self.primary, self.standby)
        hold()
        self.lose_writes(ca, before_crash=note_seqs)
        self.assertEqual(len(lost_seqs), LOST)
        # a reloads from the new primary (its feed finds the new timeline).
        self.assertTrue(eventually(lambda: "reloaded everything from the new primary" in a.log_text(),
                                   seconds=RESUME_SECONDS), a.log_text())
        # b's registrations on the new primary, numbered again as a's lost ones were.
        want = {}
        for i in range(LOST):
            schema = avro_record(f"FromB{i}", [("c", "long")])
            r, _ = self.write_until_ok(cb, f"from-b-{i}", schema)
            want[f"from-b-{i}"] = r.body["id"]
        b_seqs = {int(s) for s, in self.standby.sql("SELECT seq FROM changes WHERE scope LIKE 'from-b-%'",
                                                    dbname=self.db.name)}
        reused = sorted(b_seqs & set(lost_seqs))
        print(f"\n  change numbers of a's lost writes handed out again for b's: {reused}")
        self.assertTrue(reused, "the new primary reused no change number: the scenario is void")

        def a_has_all():
            return all(ca.get(f"/subjects/{s}/versions/1").status == 200 for s in want)
        self.assertTrue(eventually(a_has_all), "node a skipped b's changes as its own")
        for s, schema_id in want.items():
            r = ca.get(f"/subjects/{s}/versions/1")
            self.assertEqual((r.status, r.body["id"]), (200, schema_id), r)
        for srv in (a, b):
            srv.stop()


class ReplicaOnTheOldTimeline(LostWrites, harness.unittest.TestCase):
    """A second standby, the nodes' read replica, got the lost writes before
    the crash and cannot follow the promoted standby (its WAL goes past the
    fork): it stays on timeline 1, at a WAL position past the new primary's."""

    def test_replica_left_behind_is_never_read(self):
        self.start_clusters()
        self.replica = self.primary.standby().start()
        self.addCleanup(self.replica.stop)
        read_url = ["--database-read-url", self.replica.url(self.db.name)]
        writer = self.node("replica-writer", args=["--feed-interval-ms", "100", "--db-threads", "2"])
        wait_replayed(self.primary, self.replica)  # the migrations
        reader = self.node("replica-reader", args=["--feed-interval-ms", "100", "--db-threads", "2", *read_url])
        self.assertIn("registry: loaded from the read replica", reader.log_text())
        cw, cr = writer.client(), reader.client()
        lost = self.lose_writes(cw, before_crash=lambda: wait_replayed(self.primary, self.replica))
        self.assertTrue(eventually(lambda: "reloaded everything from the new primary" in reader.log_text(),
                                   seconds=RESUME_SECONDS), reader.log_text())

        # The lost subjects registered again, other content, on the new
        # primary: the reader's feed reloads them.
        again = {}
        for i in range(5):
            schema = avro_record(f"Again{i}", [("d", "double")])
            r, _ = self.write_until_ok(cw, f"lost-{i}", schema)
            again[f"lost-{i}"] = (r.body["id"], schema)
        for subject, (schema_id, schema) in again.items():
            def current():
                r = cr.get(f"/subjects/{subject}/versions/1")
                return r.status == 200 and r.body["id"] == schema_id and r
            r = eventually(current)
            self.assertTrue(r, cr.get(f"/subjects/{subject}/versions/1"))
            self.assertEqual(json.loads(r.body["schema"]), json.loads(schema))
        # A node starting now loads from the new primary, not the replica.
        late = self.node("replica-late", url=self.standby.url(self.db.name),
                         args=["--feed-interval-ms", "100", *read_url])
        self.assertNotIn("loaded from the read replica", late.log_text())
        self.assertIn("the read replica is not on the primary's timeline", late.log_text())
        for c in (cr, late.client()):
            self.assertEqual(sorted(s for s in c.get("/subjects").body if s.startswith("lost-")),
                             sorted(again))
            stored = self.stored()
            for schema_id in sorted(set(lost) | {i for i, _ in again.values()}):
                got = c.get(f"/schemas/ids/{schema_id}")
                for _ in range(3):
                    if got.status != 500 or "failed over" not in got.body["message"]:
                        break
                    # An id-miss lookup on a worker whose connection predates the
                    # failover: refused once per worker (store.c, store_exec_retrying).
                    got = c.get(f"/schemas/ids/{schema_id}")
                if schema_id in stored:
                    self.assertEqual(got.status, 200, got)
                    self.assertEqual(json.loads(got.body["schema"]), stored[schema_id], schema_id)
                else:
                    self.assertEqual(got.status, 404, got)
        # The scenario: the replica is still on timeline 1 and past the new
        # primary's position, so comparing positions alone would have read it.
        self.assertEqual(self.replica.sql("SELECT timeline_id FROM pg_control_checkpoint()"), [("1",)])
        new_lsn = self.standby.sql("SELECT pg_current_wal_insert_lsn()")[0][0]
        self.assertEqual(self.replica.sql(f"SELECT pg_last_wal_replay_lsn() >= '{new_lsn}'"), [("t",)])
        for srv in (late, reader, writer):
            srv.stop()


if __name__ == "__main__":
    harness.main()
