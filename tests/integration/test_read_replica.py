"""--database-read-url: a streaming replica for start-up loads and the change
feed's catch-up reads, used only when it has replayed past the primary's
position the node last saw (docs/operations.md, "Replication and failover").
Writes and the id-miss lookup always go to the primary. A real standby
(pg_basebackup -R) whose replay is paused plays the replica that is behind."""

import json
import time

import harness
from harness import avro_record, quote
from test_failover import wait_replayed

CONVERGE_SECONDS = 10


class ReadReplica(harness.unittest.TestCase):

    def setUp(self):
        # Commits flushed at once, so the standby replays them within milliseconds.
        self.primary = harness.Postgres(opts="-c synchronous_commit=on").start()
        self.addCleanup(self.primary.stop)
        self.db = self.primary.new_database("replica")
        self.standby = self.primary.standby().start()
        self.addCleanup(self.standby.stop)
        self.a = self.node("replica-a")            # the primary only: the writer

    def node(self, name, replica=False):
        args = ["--feed-interval-ms", "100", "--db-threads", "2"]
        if replica:
            # Multi-host form: a dead first host, then the standby.
            args += ["--database-read-url",
                     f"postgresql://postgres@127.0.0.1:{harness.free_port()},127.0.0.1:{self.standby.port}"
                     f"/{self.db.name}"]
        srv = harness.Server(database_url=self.db.url, name=name, args=args).start()
        self.addCleanup(srv.kill)
        return srv

    def register(self, srv, subject, schema):
        r = srv.client().post(f"/subjects/{quote(subject)}/versions", {"schema": schema})
        self.assertEqual(r.status, 200, r)
        return r.body["id"]

    def eventually_versions(self, srv, subject, want):
        deadline = time.monotonic() + CONVERGE_SECONDS
        while True:
            got = srv.client().get(f"/subjects/{quote(subject)}/versions")
            if (got.status == 200 and got.body == want) or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        self.assertEqual((got.status, got.body), (200, want), subject)

    def test_replica_used_only_when_current(self):
        self.register(self.a, "s1", avro_record("S1", [("a", "string")]))
        wait_replayed(self.primary, self.standby)
        b = self.node("replica-b", replica=True)
        self.assertIn("registry: loaded from the read replica", b.log_text())
        self.assertEqual(b.client().get("/subjects/s1/versions").body, [1])

        # A replica that is behind is not read: not at start-up, not to catch up.
        self.standby.sql("SELECT pg_wal_replay_pause()")
        self.register(self.a, "s2", avro_record("S2", [("a", "string")]))
        c = self.node("replica-c", replica=True)
        self.assertNotIn("loaded from the read replica", c.log_text())
        self.assertIn("the read replica is behind the primary", c.log_text())
        self.assertEqual(c.client().get("/subjects/s2/versions").body, [1])
        self.eventually_versions(b, "s2", [1])
        self.assertIn("the read replica is behind the primary", b.log_text())
        self.assertEqual(self.standby.sql("SELECT count(*) FROM subject_versions WHERE subject = 's2'",
                                          dbname=self.db.name), [("0",)])

        # The id-miss lookup asks the primary: an id registered a moment ago on
        # another node is found although the replica has not replayed it.
        schema = avro_record("S3", [("a", "string")])
        new_id = self.register(self.a, "s3", schema)
        r = b.client().get(f"/schemas/ids/{new_id}")
        self.assertEqual(r.status, 200, r)
        self.assertEqual(json.loads(r.body["schema"]), json.loads(schema))
        # Writes go to the primary (the standby would refuse them).
        self.register(b, "s4", avro_record("S4", [("a", "string")]))

        # Current again: catch-up reads go back to the replica.
        self.standby.sql("SELECT pg_wal_replay_resume()")
        wait_replayed(self.primary, self.standby)
        # Each change is one check; the replica replays a commit a moment after
        # it, so a poll may still find it behind: a few changes, bounded.
        for i in range(20):
            self.register(self.a, f"s5-{i}", avro_record(f"S5x{i}", [("a", "string")]))
            self.eventually_versions(b, f"s5-{i}", [1])
            if "the read replica is current" in b.log_text():
                break
            time.sleep(0.3)
        self.assertIn("the read replica is current", b.log_text())
        for srv in (b, c, self.a):
            srv.stop()


if __name__ == "__main__":
    harness.main()
