"""Faults that must not damage what users see (issue 9, item 4).

- kill -9 in the middle of a registration storm: after a restart every
  acknowledged registration is there with its id, and nothing is half
  written (no schema row that no version uses, no version without a schema).
- PostgreSQL stopped in the middle of a storm: writes fail fast with a 5xx
  and a Confluent body, reads keep being answered from memory, and writes
  succeed again within seconds of PostgreSQL coming back.
- 64 clients on overlapping subjects at once: one id per content, versions
  1..n without gaps in every subject, checked in SQL.
Every load loop here is bounded in count and in time.
"""

import concurrent.futures
import json
import os
import signal
import subprocess
import threading
import time

import harness
from harness import avro_record, quote, sql_literal

STORM_CLIENTS = 32


def schema_for(i):
    return avro_record(f"Fault{i}", [("id", "long"), (f"f{i}", "string", "")])


class Storm:
    """STORM_CLIENTS keep-alive clients registering schema_for(i) under
    subject 'fault-i' until stopped or `limit` registrations are sent."""

    def __init__(self, server, limit=60000, seconds=60):
        self.server, self.limit, self.deadline = server, limit, time.monotonic() + seconds
        self.acked = {}                     # subject -> id, 200 answers only
        self.statuses = {}
        self.slow = 0                       # answers that took longer than 10 s
        self.lock = threading.Lock()
        self.stop_event = threading.Event()
        self.counter = iter(range(limit))
        self.pool = concurrent.futures.ThreadPoolExecutor(STORM_CLIENTS)
        self.futures = [self.pool.submit(self._client) for _ in range(STORM_CLIENTS)]

    def _client(self):
        client = self.server.client()
        while not self.stop_event.is_set() and time.monotonic() < self.deadline:
            with self.lock:
                i = next(self.counter, None)
            if i is None:
                return
            subject = f"fault-{i}"
            started = time.monotonic()
            try:
                r = client.post(f"/subjects/{quote(subject)}/versions", {"schema": schema_for(i)},
                                timeout=30)
            except OSError:
                client = self.server.client()
                with self.lock:
                    self.statuses["conn"] = self.statuses.get("conn", 0) + 1
                time.sleep(0.01)
                continue
            with self.lock:
                self.statuses[r.status] = self.statuses.get(r.status, 0) + 1
                if time.monotonic() - started > 10:
                    self.slow += 1
                if r.status == 200:
                    self.acked[subject] = r.body["id"]
                elif r.status >= 500:
                    self.last_5xx = r
            if r.status >= 500:
                time.sleep(0.02)            # as a client backs off; the count must outlast an outage

    def ok_count(self):
        with self.lock:
            return self.statuses.get(200, 0)

    def wait_for(self, predicate, seconds):
        deadline = time.monotonic() + seconds
        while not predicate() and time.monotonic() < deadline:
            time.sleep(0.02)
        return predicate()

    def finish(self):
        self.stop_event.set()
        for f in self.futures:
            f.result(timeout=120)
        self.pool.shutdown()


class KillDuringStorm(harness.unittest.TestCase):

    def test_every_acknowledged_registration_survives_kill_9(self):
        pg = harness.cluster()
        db = pg.new_database("kill9")
        server = harness.Server(database_url=db.url, name="kill9").start()
        self.addCleanup(server.kill)
        storm = Storm(server)
        self.assertTrue(storm.wait_for(lambda: storm.ok_count() >= 300, 60), storm.statuses)
        server.proc.send_signal(signal.SIGKILL)
        server.proc.wait()
        server.proc = None
        storm.finish()
        acked = dict(storm.acked)
        self.assertGreaterEqual(len(acked), 300)

        server.start()
        client = server.client()
        for subject, schema_id in acked.items():
            r = client.get(f"/subjects/{quote(subject)}/versions/1")
            self.assertEqual((r.status, r.body.get("id")), (200, schema_id), subject)
        rows = dict(db.sql("SELECT subject, schema_id FROM subject_versions"))
        for subject, schema_id in acked.items():
            self.assertEqual(rows.get(subject), str(schema_id), subject)
        # One transaction per registration: nothing half written.
        self.assertEqual(db.value("SELECT count(*) FROM schemas s WHERE NOT EXISTS "
                                  "(SELECT 1 FROM subject_versions v WHERE v.schema_id = s.id)"), "0")
        self.assertEqual(db.value("SELECT count(*) FROM subject_versions WHERE version <> 1"), "0")
        self.assertEqual(db.value("SELECT count(DISTINCT schema_id) = count(*) FROM subject_versions"), "t")
        server.stop()


class DatabaseStopsMidStorm(harness.unittest.TestCase):

    def setUp(self):
        # A cluster of its own: this test stops and starts it. Durable: an
        # immediate stop loses commits that synchronous_commit=off acknowledged.
        self.pg = harness.Postgres(durable=True).start()
        self.db = self.pg.new_database("pgstop")

    def pg_ctl(self, *args):
        run = subprocess.run(harness.as_pg_user([self.pg._bin("pg_ctl"), "-D", self.pg.data, *args]),
                             capture_output=True, text=True, timeout=120)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)

    def test_fast_errors_reads_from_memory_and_recovery(self):
        server = harness.Server(database_url=self.db.url, name="pgstop",
                                env={"PGCONNECT_TIMEOUT": "2"}).start()
        self.addCleanup(server.kill)
        client = server.client()
        known = avro_record("Known", [("a", "string")])
        r = client.post("/subjects/known/versions", {"schema": known})
        self.assertEqual(r.status, 200, r)
        known_id = r.body["id"]

        storm = Storm(server, seconds=90)
        self.assertTrue(storm.wait_for(lambda: storm.ok_count() >= 200, 60), storm.statuses)
        port = self.pg.port
        self.pg_ctl("-m", "immediate", "-w", "stop")
        before_down = storm.ok_count()
        self.assertTrue(storm.wait_for(lambda: any(isinstance(k, int) and k >= 500
                                                   for k in storm.statuses), 30), storm.statuses)
        # While it is down: reads from memory still answer.
        for _ in range(50):
            got = client.get(f"/schemas/ids/{known_id}")
            self.assertEqual(got.status, 200, got)
            latest = client.get("/subjects/known/versions/latest")
            self.assertEqual((latest.status, latest.body["id"]), (200, known_id))
        err = storm.last_5xx
        self.assertIn(err.status, (500, 503), err)
        self.assertEqual(set(err.body), {"error_code", "message"}, err)

        opts = f"-k {self.pg.sock} -p {port} -c listen_addresses=127.0.0.1 -c max_connections=200"
        self.pg_ctl("-l", self.pg.log, "-o", opts, "-w", "start")
        back = time.monotonic()
        self.assertTrue(storm.wait_for(lambda: storm.ok_count() >= before_down + 200, 30),
                        f"writes did not recover within 30 s: {storm.statuses}")
        recovered_in = time.monotonic() - back
        storm.finish()
        self.assertEqual(storm.slow, 0, "a request hung for more than 10 s while the database was down")
        print(f"recovered {recovered_in:.1f} s after PostgreSQL came back; statuses {storm.statuses}")
        # Whatever was acknowledged is stored, under its id.
        rows = dict(self.db.sql("SELECT subject, schema_id FROM subject_versions"))
        for subject, schema_id in storm.acked.items():
            self.assertEqual(rows.get(subject), str(schema_id), subject)
        server.stop()


class OverlappingClients(harness.RegistryTestCase):
    """64 clients, each registering the same 8 schemas under 8 shared subjects,
    in its own order."""

    CLIENTS, SUBJECTS = 64, 8

    def test_one_id_per_content_and_gapless_versions(self):
        subjects = [self.sub(f"o{i}") for i in range(self.SUBJECTS)]
        schemas = [avro_record("Overlap", [("id", "long")] + [(f"f{j}", "string", "") for j in range(i)])
                   for i in range(self.SUBJECTS)]
        self.assert_ok(self.put("/config", {"compatibility": "NONE"}))
        self.addCleanup(lambda: self.put("/config", {"compatibility": "BACKWARD"}))
        barrier = threading.Barrier(self.CLIENTS)

        def client_work(c):
            http, seen = self.server.client(), []
            barrier.wait(timeout=60)
            for k in range(self.SUBJECTS):
                subject = subjects[(c + k) % self.SUBJECTS]
                schema = schemas[(c * 3 + k) % self.SUBJECTS]
                r = http.post(f"/subjects/{quote(subject)}/versions", {"schema": schema})
                seen.append((r.status, schema, r.body.get("id") if r.status == 200 else r.text))
            return seen

        with concurrent.futures.ThreadPoolExecutor(self.CLIENTS) as pool:
            results = [x for part in pool.map(client_work, range(self.CLIENTS)) for x in part]
        self.assertEqual({status for status, _, _ in results}, {200}, results[:5])
        ids_by_content = {}
        for _, schema, schema_id in results:
            ids_by_content.setdefault(schema, set()).add(schema_id)
        self.assertTrue(all(len(ids) == 1 for ids in ids_by_content.values()), ids_by_content)
        self.assertEqual(len({min(ids) for ids in ids_by_content.values()}), self.SUBJECTS)

        in_list = ", ".join(sql_literal(s) for s in subjects)
        for subject, n, lo, hi, distinct in self.db.sql(
                "SELECT subject, count(*), min(version), max(version), count(DISTINCT schema_id) "
                f"FROM subject_versions WHERE subject IN ({in_list}) GROUP BY subject"):
            self.assertEqual((lo, hi), ("1", n), f"{subject}: versions must be 1..{n}")
            self.assertEqual(n, distinct, f"{subject}: one version per content")
        self.assertEqual(self.db.value("SELECT count(*) FROM schemas WHERE schema_text LIKE '%Overlap%'"),
                         str(self.SUBJECTS))


if __name__ == "__main__":
    harness.main()
