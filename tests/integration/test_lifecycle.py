"""Health endpoints and SIGHUP (issue 9, item 6).

- GET /health/live answers from memory, also while PostgreSQL is down.
- GET /health/ready is 200 only while the database answers; not 2xx while it
  is down, and 200 again once it is back, for every probe from the first: a
  connection opened as the database stopped does not pass for a failover
  later, and the first worker back wakes the others out of their backoffs.
  While the database refuses some workers' connections, the others answer
  every request: a worker without a connection takes none.
  It is 503 while the change feed is further behind than
  health.ready.max.feed.lag.ms, though the database answers.
- SIGHUP reloads the TLS certificate and key: new connections see the new
  certificate; a broken certificate file is refused with a log line and the
  old one stays in use. The server keeps serving throughout.
"""

import concurrent.futures
import hashlib
import os
import re
import shutil
import signal
import socket
import ssl
import subprocess
import time

import harness


def peer_certificate(port):
    """SHA-256 of the certificate a fresh TLS connection to port is shown."""
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with ctx.wrap_socket(raw, server_hostname="localhost") as tls:
            return hashlib.sha256(tls.getpeercert(binary_form=True)).hexdigest()


def file_sha(path):
    der = subprocess.run(["openssl", "x509", "-in", path, "-outform", "DER"], capture_output=True,
                         check=True).stdout
    return hashlib.sha256(der).hexdigest()


class Health(harness.unittest.TestCase):

    def pg_ctl(self, pg, *args):
        run = subprocess.run(harness.as_pg_user([pg._bin("pg_ctl"), "-D", pg.data, *args]),
                             capture_output=True, text=True, timeout=120)
        self.assertEqual(run.returncode, 0, run.stdout + run.stderr)

    def serve(self, name, db_threads):
        """A cluster of its own and a server on it with db_threads workers: (pg, server, client)."""
        pg = harness.Postgres().start()
        db = pg.new_database(name)
        server = harness.Server(database_url=db.url, name=name, args=["--db-threads", str(db_threads)],
                                env={"PGCONNECT_TIMEOUT": "2"}).start()
        self.addCleanup(server.kill)
        return pg, server, server.client()

    def start_again(self, pg):
        opts = f"-k {pg.sock} -p {pg.port} -c listen_addresses=127.0.0.1 -c fsync=off"
        self.pg_ctl(pg, "-l", pg.log, "-o", opts, "-w", "start")

    @staticmethod
    def connected_workers(c):
        text = c.get("/metrics", headers={"Accept": "text/plain"}).text
        return int(re.search(r"^schema_registry_db_pool_connected_workers (\d+)$", text, re.M).group(1))

    def assert_ready_within(self, c, server, seconds):
        deadline = time.monotonic() + seconds
        ready = c.get("/health/ready")
        while ready.status != 200 and time.monotonic() < deadline:
            time.sleep(0.05)
            ready = c.get("/health/ready")
        self.assertEqual(ready.status, 200, f"{ready.body}\n--- server log ---\n{harness.tail(server.log, 3000)}")

    def test_live_and_ready(self):
        # Many workers, still connecting when the database stops below: a
        # connection the stopping server accepts and ends at once must not
        # count as open (store_note_timeline).
        pg, server, c = self.serve("health", 48)
        self.assertEqual((c.get("/health/live").status, c.get("/health/live").body), (200, {"status": "live"}))
        self.assertEqual((c.get("/health/ready").status, c.get("/health/ready").body), (200, {"status": "ready"}))

        self.pg_ctl(pg, "-m", "fast", "-w", "stop")
        ready = c.get("/health/ready")
        self.assertIn(ready.status, (500, 503), ready)
        self.assertEqual(set(ready.body), {"error_code", "message"})
        self.assertEqual(c.get("/health/live").status, 200)
        self.start_again(pg)
        self.assert_ready_within(c, server, 20)
        # Ready once is ready for good: the first connection back ends the
        # outage for every worker, none answers from its backoff.
        for _ in range(40):
            self.assert_ready_within(c, server, 0)
            time.sleep(0.05)
        server.stop()

    def test_workers_come_back_together(self):
        pg, server, c = self.serve("comeback", 8)

        def connected():
            return self.connected_workers(c)

        deadline = time.monotonic() + 10
        while connected() != 8 and time.monotonic() < deadline:
            time.sleep(0.05)
        self.assertEqual(connected(), 8)
        self.pg_ctl(pg, "-m", "fast", "-w", "stop")
        # One worker finds the outage two seconds before the others, who find
        # it in probes side by side: backoffs out of step (each doubles from
        # 100 ms), the first worker's next attempt seconds after theirs.
        self.assertIn(c.get("/health/ready").status, (500, 503))
        time.sleep(2)
        deadline = time.monotonic() + 1
        with concurrent.futures.ThreadPoolExecutor(8) as pool:
            while time.monotonic() < deadline:
                statuses = set(pool.map(lambda _: server.client().get("/health/ready").status, range(16)))
                self.assertLessEqual(statuses, {500, 503})
        self.assertEqual(connected(), 0)

        self.start_again(pg)
        self.assert_ready_within(c, server, 20)
        # The first worker back wakes the others: all connect within a
        # connection's time, not each at the end of its backoff.
        back = time.monotonic()
        while connected() != 8 and time.monotonic() < back + 0.5:
            time.sleep(0.02)
        self.assertEqual(connected(), 8, harness.tail(server.log, 3000))
        server.stop()

    def test_workers_without_a_connection_take_no_request(self):
        # The database refuses some of the workers' connections (a connection
        # limit, as max_connections would): the workers that have one answer
        # every request; the others take none while they wait to retry.
        pg = harness.Postgres().start()
        db = pg.new_database("scarce")
        pg.sql("CREATE ROLE scarce LOGIN")  # limits do not bind superusers
        pg.sql(f'ALTER DATABASE "{db.name}" OWNER TO scarce')
        server = harness.Server(database_url=f"postgresql://scarce@127.0.0.1:{pg.port}/{db.name}", name="scarce",
                                args=["--db-threads", "8"]).start()
        self.addCleanup(server.kill)
        c = server.client()

        def probes(n):
            with concurrent.futures.ThreadPoolExecutor(8) as pool:
                return list(pool.map(lambda _: server.client().get("/health/ready"), range(n)))

        pg.sql(f'ALTER DATABASE "{db.name}" CONNECTION LIMIT 5')
        pg.sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'scarce'")
        # Every worker finds its connection gone; at most five connect again
        # (the change feed's among them), the rest back off.
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline:
            probes(16)
        connected = self.connected_workers(c)
        self.assertTrue(0 < connected < 8, connected)
        for _ in range(10):
            answers = probes(16)
            self.assertEqual([r.status for r in answers], [200] * 16,
                             [r.body for r in answers if r.status != 200][:1])
        server.stop()

    def test_ready_follows_the_change_feed(self):
        pg = harness.cluster()
        db = pg.new_database("feedlag")
        server = harness.Server(database_url=db.url, name="feedlag",
                                args=["--feed-interval-ms", "100",
                                      "--health-ready-max-feed-lag-ms", "1000"]).start()
        self.addCleanup(server.kill)
        c = server.client()
        self.assertEqual((c.get("/health/ready").status, c.get("/health/ready").body), (200, {"status": "ready"}))
        # Another session holds the feed's table: every poll waits, while a plain query
        # (the probe's own) still answers.
        holder = subprocess.Popen(
            [pg._bin("psql"), "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", str(pg.port),
             "-U", "postgres", "-d", db.name,
             "-c", "BEGIN; LOCK TABLE changes IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(4); COMMIT;"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self.addCleanup(lambda: holder.poll() is None and holder.kill())
        deadline = time.monotonic() + 3.5
        ready = c.get("/health/ready")
        while ready.status == 200 and time.monotonic() < deadline:
            time.sleep(0.1)
            ready = c.get("/health/ready")
        self.assertEqual(ready.status, 503, ready)
        self.assertEqual(ready.body["error_code"], 503)
        self.assertIn("the change feed last found this node current", ready.body["message"])
        self.assertIn("health.ready.max.feed.lag.ms 1000", ready.body["message"])
        self.assertEqual(c.get("/health/live").status, 200)
        self.assertEqual(c.get("/subjects").status, 200)  # reads are still served from memory
        self.assertEqual(holder.wait(timeout=30), 0, holder.stderr.read())
        deadline = time.monotonic() + 10
        while c.get("/health/ready").status != 200 and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertEqual(c.get("/health/ready").status, 200)
        server.stop()


class TlsReload(harness.unittest.TestCase):

    def test_sighup_reloads_the_certificate(self):
        tmp = harness.make_temp_dir("tls-reload")
        first_dir, second_dir = os.path.join(tmp, "a"), os.path.join(tmp, "b")
        os.mkdir(first_dir)
        os.mkdir(second_dir)
        cert, key = harness.make_self_signed_cert(first_dir)
        new_cert, new_key = harness.make_self_signed_cert(second_dir)
        db = harness.cluster().new_database("tls")
        server = harness.Server(database_url=db.url, name="tls", tls=(cert, key)).start()
        self.addCleanup(server.kill)
        old_sha = file_sha(cert)
        self.assertEqual(peer_certificate(server.port), old_sha)

        # A broken file: refused, the old certificate stays.
        with open(cert, "w") as f:
            f.write("not a certificate\n")
        server.proc.send_signal(signal.SIGHUP)
        deadline = time.monotonic() + 10
        while "previous certificate stays in use" not in server.log_text() and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertIn("previous certificate stays in use", server.log_text())
        self.assertEqual(peer_certificate(server.port), old_sha)

        shutil.copy(new_cert, cert)
        shutil.copy(new_key, key)
        server.proc.send_signal(signal.SIGHUP)
        new_sha = file_sha(new_cert)
        deadline = time.monotonic() + 10
        while peer_certificate(server.port) != new_sha and time.monotonic() < deadline:
            time.sleep(0.1)
        self.assertEqual(peer_certificate(server.port), new_sha)
        self.assertEqual(server.client().get("/subjects").status, 200)
        server.stop()


if __name__ == "__main__":
    harness.main()
