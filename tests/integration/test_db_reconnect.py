"""Database connections that break, and a database that refuses writes
(issue 9, item 4).

- After PostgreSQL restarts, no client request fails: a pooled connection
  found dead before use (or failing at BEGIN, when nothing was sent yet) is
  reconnected and the request retried once.
- A read-only database (default_transaction_read_only) answers each write
  with a clear error naming it, and the workers keep their connections: a
  refused write is not a broken connection.
"""

import subprocess
import time

import harness
from harness import avro_record, quote

DB_THREADS = 4


class Reconnect(harness.unittest.TestCase):

    def setUp(self):
        self.pg = harness.Postgres().start()
        self.db = self.pg.new_database("reconnect")
        self.server = harness.Server(database_url=self.db.url, name="reconnect",
                                     args=["--db-threads", str(DB_THREADS)]).start()
        self.addCleanup(self.server.kill)
        self.client = self.server.client()

    def pg_ctl(self, *args):
        run = subprocess.run(harness.as_pg_user([self.pg._bin("pg_ctl"), "-D", self.pg.data, *args]),
                             capture_output=True, text=True, timeout=120)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)

    def register(self, i):
        return self.client.post(f"/subjects/{quote(f'rc-{i}')}/versions",
                                {"schema": avro_record(f"Rc{i}", [("a", "string")])})

    def backends(self):
        """Client backends of the registry's database (the workers, the feed, ...)."""
        return int(self.pg.sql("SELECT count(*) FROM pg_stat_activity "
                               f"WHERE datname = '{self.db.name}'")[0][0])

    def test_no_request_fails_after_postgresql_restarts(self):
        # Every worker has used its connection once.
        for i in range(4 * DB_THREADS):
            self.assertEqual(self.register(i).status, 200)
        opts = (f"-k {self.pg.sock} -p {self.pg.port} -c listen_addresses=127.0.0.1 -c fsync=off "
                "-c synchronous_commit=off -c max_connections=200")
        self.pg_ctl("-m", "fast", "-w", "stop")
        self.pg_ctl("-l", self.pg.log, "-o", opts, "-w", "start")
        statuses = [self.register(100 + i).status for i in range(4 * DB_THREADS)]
        self.assertEqual(statuses, [200] * len(statuses))
        self.server.stop()

    def test_read_only_database_is_a_clear_error_and_keeps_connections(self):
        self.assertEqual(self.register(0).status, 200)
        # As a failed-over primary turned standby, or an operator, would: every
        # session, the open ones included, refuses writes from now on.
        self.pg.sql("ALTER SYSTEM SET default_transaction_read_only = on")
        self.pg.sql("SELECT pg_reload_conf()")
        self.addCleanup(lambda: self.pg.sql("ALTER SYSTEM RESET default_transaction_read_only") and
                        self.pg.sql("SELECT pg_reload_conf()"))
        time.sleep(0.5)
        before = self.backends()
        for i in range(3 * DB_THREADS):
            r = self.register(10 + i)
            self.assertEqual(r.status, 500, r)
            self.assertEqual(r.body["error_code"], 50001, r)
            self.assertIn("read-only", r.body["message"], r)
        time.sleep(0.5)
        self.assertEqual(self.backends(), before, "workers reconnected after refused writes")
        self.assertNotIn("lost its database connection", self.server.log_text())
        # Reads are still served, and the stored data did not move.
        self.assertEqual(self.client.get("/subjects").body, ["rc-0"])
        self.assertEqual(self.db.count("subject_versions"), 1)
        self.server.stop()


if __name__ == "__main__":
    harness.main()
