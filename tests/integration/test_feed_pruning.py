"""The change feed is pruned, and a node behind the pruned part reloads
(issue 9, item 5: `changes` grew by one row per write forever).

- Every node prunes rows older than changes.retention.seconds (keeping the
  newest), and records how far it pruned in changes_horizon.
- A node that was not reading while rows it had not seen were pruned (here:
  stopped with SIGSTOP) finds itself behind the horizon at its next poll and
  reloads every subject: it then serves what was registered meanwhile and no
  longer serves what was deleted meanwhile.
"""

import os
import signal
import time

import harness
from harness import avro_record, quote

RETENTION = 1


class Pruning(harness.unittest.TestCase):

    def setUp(self):
        pg = harness.cluster()
        self.db = pg.new_database("prune")
        args = ["--changes-retention-seconds", str(RETENTION), "--feed-interval-ms", "100"]
        self.a = harness.Server(database_url=self.db.url, name="prune-a", args=args).start()
        self.b = harness.Server(database_url=self.db.url, name="prune-b", args=args).start()
        self.addCleanup(self.a.kill)
        self.addCleanup(self.b.kill)
        self.addCleanup(lambda: self.b.proc and os.kill(self.b.proc.pid, signal.SIGCONT))

    def register(self, server, subject, field):
        r = server.client().post(f"/subjects/{quote(subject)}/versions",
                                 {"schema": avro_record("P", [(field, "string")])})
        self.assertEqual(r.status, 200, r)
        return r.body["id"]

    def eventually(self, fn, seconds=15):
        deadline = time.monotonic() + seconds
        while not fn() and time.monotonic() < deadline:
            time.sleep(0.1)
        return fn()

    def test_old_rows_go_and_a_node_behind_them_reloads(self):
        for i in range(20):
            self.register(self.a, f"before-{i}", "a")
        self.register(self.a, "doomed", "a")
        self.assertTrue(self.eventually(lambda: self.b.client().get("/subjects/doomed/versions").status == 200))

        # Older than the retention, all but the newest row go.
        self.assertTrue(self.eventually(lambda: self.db.count("changes") <= 1), self.db.count("changes"))
        self.assertGreater(int(self.db.value("SELECT pruned_upto FROM changes_horizon")), 0)

        os.kill(self.b.proc.pid, signal.SIGSTOP)
        new_id = self.register(self.a, "while-b-slept", "b")
        a = self.a.client()
        self.assertEqual(a.delete("/subjects/doomed").status, 200)
        self.assertEqual(a.delete("/subjects/doomed", params={"permanent": "true"}).status, 200)
        horizon_then = int(self.db.value("SELECT max(seq) FROM changes"))
        # Pruned past what b has seen: b cannot replay these rows any more.
        self.assertTrue(self.eventually(
            lambda: int(self.db.value("SELECT pruned_upto FROM changes_horizon")) >= horizon_then - 1))
        os.kill(self.b.proc.pid, signal.SIGCONT)

        b = self.b.client()
        self.assertTrue(self.eventually(lambda: b.get("/subjects/while-b-slept/versions/1").status == 200))
        self.assertEqual(b.get("/subjects/while-b-slept/versions/1").body["id"], new_id)
        self.assertTrue(self.eventually(lambda: b.get("/subjects/doomed/versions").status == 404))
        self.assertIn("behind the pruned change log", self.b.log_text())
        self.assertEqual(len(b.get("/subjects").body), 21)
        self.a.stop()
        self.b.stop()


if __name__ == "__main__":
    harness.main()
