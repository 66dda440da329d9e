"""What a node loads at start, and where its change feed goes on from
(docs/architecture.md, "Several nodes"); and a change that commits after the
feed stopped waiting for it.

- The load reads every table in one snapshot: a registration committing
  while it runs is in all of it or in none (read apart, the versions could
  name a row the load had not read, and the node then answered 404 for a
  stored id).
- The feed starts where the change log was settled before the load, not at
  its end: a registration that drew its change number before another one's
  and commits after the load is still read (starting at the end, the node
  never learnt of it).
- A registration slower than the feed's 5 s wait at a gap (a commit waiting
  for a synchronous standby, say) is applied when it lands: the feed keeps
  the numbers it moved past and looks for them at each poll.

Both hold a registration or the load still at the database (a lock the test
takes, a trigger it installs), so the interleaving is the one named, every
run.
"""

import subprocess
import threading
import time

import harness
from harness import avro_record, quote

SECONDS = 15


class FeedStart(harness.unittest.TestCase):

    def setUp(self):
        self.pg = harness.cluster()
        self.db = self.pg.new_database("start")
        # Statements may wait longer than the feed's 5 s (the slow registration below).
        self.a = harness.Server(database_url=self.db.url, name="start-a",
                                args=["--feed-interval-ms", "100", "--db-threads", "4",
                                      "--database-timeout-ms", "30000"]).start()
        self.addCleanup(self.a.kill)

    def register(self, server, subject, field):
        r = server.client().post(f"/subjects/{quote(subject)}/versions",
                                 {"schema": avro_record("S", [(field, "string")])})
        self.assertEqual(r.status, 200, r)
        return r.body["id"]

    def session(self):
        """A psql session the test writes statements to, one at a time."""
        p = subprocess.Popen([self.pg._bin("psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1",
                              "-p", str(self.pg.port), "-U", "postgres", "-d", self.db.name],
                             stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             text=True)

        def end():
            p.kill()
            p.wait()
            p.stdin.close()
        self.addCleanup(end)
        return p

    def send(self, session, statement):
        session.stdin.write(statement + "\n")
        session.stdin.flush()

    def eventually(self, fn, seconds=SECONDS):
        deadline = time.monotonic() + seconds
        while not fn() and time.monotonic() < deadline:
            time.sleep(0.05)
        return fn()

    def waiting(self, where):
        return self.eventually(lambda: int(self.db.value(
            f"SELECT count(*) FROM pg_locks WHERE NOT granted AND {where}")) > 0)

    def start_node(self, name, args=()):
        """Starts node b on a thread (its start blocks until its load is done)."""
        b = harness.Server(database_url=self.db.url, name=name, args=list(args))
        self.addCleanup(b.kill)
        started = threading.Thread(target=b.start)
        started.start()
        return b, started

    def test_load_reads_one_snapshot(self):
        self.register(self.a, "before", "a")
        # The load's versions query reads modes: held there, after its rows query ran.
        lock = self.session()
        self.send(lock, "BEGIN; LOCK TABLE modes IN ACCESS EXCLUSIVE MODE;")
        self.assertTrue(self.eventually(lambda: int(self.db.value(
            "SELECT count(*) FROM pg_locks WHERE relation = 'modes'::regclass AND granted "
            "AND mode = 'AccessExclusiveLock'")) == 1))
        b, started = self.start_node("start-b", ["--feed-interval-ms", "0"])
        self.assertTrue(self.waiting("relation = 'modes'::regclass"), b.log_text() if b.proc else "")
        late_id = self.register(self.a, "late", "b")       # commits while b's load waits
        self.send(lock, "ROLLBACK;")
        started.join(60)
        self.assertIsNotNone(b.port)
        bc = b.client()
        # Whatever b lists, it serves whole: each subject's latest version with its schema.
        listed = bc.get("/subjects")
        self.assertEqual(listed.status, 200, listed)
        for subject in listed.body:
            r = bc.get(f"/subjects/{quote(subject)}/versions/latest")
            self.assertEqual(r.status, 200, (subject, r))
        # And the id registered during the load, found in the database on a miss.
        r = bc.get(f"/schemas/ids/{late_id}")
        self.assertEqual(r.status, 200, r)
        self.assertIn('"b"', r.body["schema"])

    def hold_slow_registration(self):
        """Node a registers subject "slow": the registration draws its change number,
        then waits for the test's advisory lock before it commits; then a config write
        takes a higher number and commits (registrations of one node go to the
        database one group at a time). Returns the lock's session, the dict the
        registration's response lands in, and its thread."""
        self.db.sql("CREATE FUNCTION test_hold() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                    "PERFORM pg_advisory_xact_lock_shared(4242); RETURN NULL; END $$")
        self.db.sql("CREATE TRIGGER test_hold AFTER INSERT ON changes FOR EACH ROW "
                    "WHEN (NEW.scope = 'slow') EXECUTE FUNCTION test_hold()")
        lock = self.session()
        self.send(lock, "SELECT pg_advisory_lock(4242);")
        self.assertTrue(self.eventually(lambda: int(self.db.value(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 4242 AND granted")) == 1))
        slow = {}
        writer = threading.Thread(target=lambda: slow.update(r=self.a.client().post(
            "/subjects/slow/versions", {"schema": avro_record("S", [("slow", "string")])})))
        writer.start()
        self.assertTrue(self.waiting("locktype = 'advisory' AND objid = 4242"))
        r = self.a.client().put("/config/fast", {"compatibility": "NONE"})
        self.assertEqual(r.status, 200, r)
        return lock, slow, writer

    def release(self, lock, slow, writer):
        self.send(lock, "SELECT pg_advisory_unlock(4242);")
        writer.join(60)
        self.assertEqual(slow["r"].status, 200, slow["r"])
        seqs = dict(self.db.sql("SELECT scope, seq FROM changes"))
        self.assertLess(int(seqs["slow"]), int(seqs["fast"]))

    def test_change_drawn_before_the_load_and_committed_after_is_read(self):
        self.register(self.a, "before", "a")
        lock, slow, writer = self.hold_slow_registration()
        drawn_at = time.monotonic()
        b, started = self.start_node("start-b", ["--feed-interval-ms", "100"])
        started.join(60)
        self.assertIsNotNone(b.port)
        # b's feed reads again what was drawn up to 5 s before its load: the
        # case is within that (b's start takes a second at most, sanitizers included).
        started_after = time.monotonic() - drawn_at
        self.release(lock, slow, writer)
        bc = b.client()
        self.assertTrue(self.eventually(lambda: "slow" in bc.get("/subjects").body),
                        (bc.get("/subjects").body, f"b ready {started_after:.1f} s after the draw", b.log_text()))
        r = bc.get("/subjects/slow/versions/1")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.body["id"], slow["r"].body["id"])

    def applied(self, server):
        text = server.client().get("/metrics").text
        line = [ln for ln in text.splitlines() if ln.startswith("schema_registry_change_feed_applied_sequence ")]
        return int(float(line[0].split()[1]))

    def test_change_committed_after_the_gap_wait_is_read(self):
        self.register(self.a, "before", "a")
        b, started = self.start_node("start-b", ["--feed-interval-ms", "100"])
        started.join(60)
        self.assertIsNotNone(b.port)
        lock, slow, writer = self.hold_slow_registration()
        fast = int(self.db.value("SELECT seq FROM changes WHERE scope = 'fast'"))
        # b waits 5 s at the gap, then moves past it.
        self.assertTrue(self.eventually(lambda: self.applied(b) >= fast, seconds=20), self.applied(b))
        bc = b.client()
        self.assertNotIn("slow", bc.get("/subjects").body)
        self.release(lock, slow, writer)
        self.assertTrue(self.eventually(lambda: "slow" in bc.get("/subjects").body),
                        (bc.get("/subjects").body, b.log_text()))
        r = bc.get("/subjects/slow/versions/1")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(r.body["id"], slow["r"].body["id"])
        self.assertIn("committed after the feed had waited", b.log_text())


if __name__ == "__main__":
    harness.main()
