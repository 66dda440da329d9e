"""Nodes behind Debian's PgBouncer on loopback, in session and in transaction
pooling (docs/operations.md, "Replication and failover"). Transaction pooling
hands each transaction any server connection, so nothing may rely on session
state: the change feed polls (no LISTEN), and migrations take a
transaction-level advisory lock (store.c, store_migrate). Checked in both
modes: two nodes starting at once on an empty database migrate it exactly
once and leave no lock behind; concurrent registrations on both nodes; the
change feed carries each node's writes to the other."""

import os
import threading
import time

import harness
from harness import avro_record, quote

CONVERGE_SECONDS = 10


class PoolingMode:
    pool_mode = None

    def setUp(self):
        self.pg = harness.cluster()
        self.db = self.pg.new_database(f"pgb_{self.pool_mode}")
        self.bouncer = harness.PgBouncer(self.pg, self.pool_mode).start()
        self.addCleanup(self.bouncer.stop)
        url = self.bouncer.url(self.db.name)
        args = ["--feed-interval-ms", "100", "--db-threads", "4"]
        self.nodes = [harness.Server(database_url=url, name=f"pgb-{self.pool_mode}-{n}", args=args)
                      for n in range(2)]
        for srv in self.nodes:
            self.addCleanup(srv.kill)
        # At once: both race to migrate the empty database.
        errors = []

        def start(srv):
            try:
                srv.start(timeout=60)
            except Exception as exc:
                errors.append(exc)
        threads = [threading.Thread(target=start, args=(srv,)) for srv in self.nodes]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(errors, [])

    def test_migrations_registrations_and_feed(self):
        names = [r[0] for r in self.db.sql("SELECT name FROM schema_migrations ORDER BY name")]
        self.assertEqual(len(names), len(set(names)))
        shipped = sorted(f[:-4] for f in os.listdir(os.path.join(harness.HERE, "..", "..", "migrations"))
                         if f.endswith(".sql"))
        self.assertEqual(len(names), len(shipped), names)
        self.assertEqual(self.pg.sql("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"),
                         [("0",)], "an advisory lock left behind")

        acked, failed = [], []
        lock = threading.Lock()

        def storm(t):
            c = self.nodes[t % 2].client()
            for i in range(40):
                subject = f"pgb-{t}-{i}"
                r = c.post(f"/subjects/{quote(subject)}/versions",
                           {"schema": avro_record(f"P{t}x{i}", [("a", "string")])})
                with lock:
                    (acked if r.status == 200 else failed).append((subject, r.status, r.body))
        threads = [threading.Thread(target=storm, args=(t,)) for t in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=120)
        self.assertEqual(failed, [])
        self.assertEqual(len(acked), 160)
        self.assertEqual(self.db.count("subject_versions"), 160)
        ids = {r[2]["id"] for r in acked}
        self.assertEqual(len(ids), 160)

        want = sorted(s for s, _, _ in acked)
        deadline = time.monotonic() + CONVERGE_SECONDS
        while True:
            views = [sorted(srv.client().get("/subjects").body) for srv in self.nodes]
            if all(v == want for v in views) or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        self.assertEqual(views, [want, want])
        # A config change on one node reaches the other through the feed.
        r = self.nodes[0].client().put("/config/pgb-0-0", {"compatibility": "NONE"})
        self.assertEqual(r.status, 200, r)
        deadline = time.monotonic() + CONVERGE_SECONDS
        while True:
            got = self.nodes[1].client().get("/config/pgb-0-0")
            if got.status == 200 or time.monotonic() > deadline:
                break
            time.sleep(0.1)
        self.assertEqual(got.status, 200, got)
        self.assertEqual(got.body["compatibilityLevel"], "NONE")
        for srv in self.nodes:
            srv.stop()


class SessionPooling(PoolingMode, harness.unittest.TestCase):
    pool_mode = "session"


class TransactionPooling(PoolingMode, harness.unittest.TestCase):
    pool_mode = "transaction"


if __name__ == "__main__":
    harness.main()
