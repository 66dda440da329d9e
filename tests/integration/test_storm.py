"""A producer start-up storm against several HTTP threads (issue 9, item 1).

h2o 2.2.5 binds a socket's buffers to the thread-local allocator of the
thread that created it. When every loop's wake-up queue was made on the main
thread, each finished database job woke its loop through a socket tied to
the main thread's free list, and the loops corrupted it together: aborts in
h2o_mem_alloc_recycle, segfaults, "double free or corruption" within a few
thousand database-bound requests at 32 connections. Loops now create and
dispose of their h2o objects on their own thread.

Each case sends tens of thousands of database-bound requests with h2load
(HTTP/1.1, 32 connections), bounded in count and time, for 1, 2 and 4 HTTP
threads; then the server must still answer, stop with status 0 (a sanitizer
report fails it), and the database must hold exactly what was acknowledged.
"""

import concurrent.futures
import os
import re
import shutil
import subprocess

import harness
from harness import avro_record, quote

REQUESTS = int(os.environ.get("SR_STORM_REQUESTS", "60000"))
CONNECTIONS = 32
H2LOAD_SECONDS = 240                      # a bound, not a goal: the run stops by itself

SCHEMA = avro_record("Storm", [("id", "long"), ("name", "string", "")])


def h2load(url, body_path, requests):
    """h2load over HTTP/1.1; returns (succeeded, failed, errored) from its summary
    and the whole report."""
    argv = ["h2load", "--h1", "-n", str(requests), "-c", str(CONNECTIONS), "-m", "1",
            "-T", "30", "-N", "30", "-d", body_path, "-H", f"Content-Type: {harness.SR_V1}", url]
    run = subprocess.run(argv, capture_output=True, text=True, timeout=H2LOAD_SECONDS)
    m = re.search(r"requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded, (\d+) failed, "
                  r"(\d+) errored", run.stdout)
    if m is None:
        raise AssertionError(f"h2load printed no summary:\n{run.stdout}\n{run.stderr}")
    return tuple(int(x) for x in m.groups()), run.stdout


def register_everywhere(server, subjects):
    """SCHEMA under each subject from CONNECTIONS keep-alive clients at once;
    returns {status: count}."""
    def one_client(part):
        client, seen = server.client(), {}
        for name in part:
            status = client.post(f"/subjects/{quote(name)}/versions", {"schema": SCHEMA}).status
            seen[status] = seen.get(status, 0) + 1
        return seen
    parts = [subjects[i::CONNECTIONS] for i in range(CONNECTIONS)]
    total = {}
    with concurrent.futures.ThreadPoolExecutor(CONNECTIONS) as pool:
        for seen in pool.map(one_client, parts):
            for status, n in seen.items():
                total[status] = total.get(status, 0) + n
    return total


class Storm(harness.unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        if shutil.which("h2load") is None:
            raise AssertionError("h2load is missing (nghttp2-client; scripts/install-deps.sh)")
        cls.pg = harness.cluster()

    def storm(self, threads):
        db = self.pg.new_database(f"storm{threads}")
        server = harness.Server(database_url=db.url, threads=threads, name=f"storm{threads}",
                                args=["--db-threads", "4"]).start()
        self.addCleanup(server.kill)
        client = server.client()
        subject = f"storm-{threads}"
        r = client.post(f"/subjects/{quote(subject)}/versions", {"schema": SCHEMA})
        self.assertEqual(r.status, 200, r)

        body = os.path.join(server.dir, "body.json")
        with open(body, "w") as f:
            f.write(harness.json.dumps({"schema": SCHEMA}))
        url = f"{server.base_url}/compatibility/subjects/{quote(subject)}/versions/latest"
        (ok, failed, errored), report = h2load(url, body, REQUESTS)
        server.assert_running()
        self.assertEqual((ok, failed, errored), (REQUESTS, 0, 0), report)
        self.assertIn(f"status codes: {REQUESTS} 2xx", report)

        # New registrations: the same content under as many new subjects, one
        # write transaction each (one id for all of them).
        writes = REQUESTS // 10
        statuses = register_everywhere(server, [f"{subject}-{i}" for i in range(writes)])
        server.assert_running()
        self.assertEqual(statuses, {200: writes})

        self.assertEqual(db.count("schemas"), 1)
        self.assertEqual(db.count("subject_versions"), writes + 1)
        r = client.get("/subjects")
        self.assertEqual(len(r.body), writes + 1)
        self.assertEqual(server.stop(), 0)

    def test_one_http_thread(self):
        self.storm(1)

    def test_two_http_threads(self):
        self.storm(2)

    def test_four_http_threads(self):
        self.storm(4)


if __name__ == "__main__":
    harness.main()
