"""log.requests (docs/operations.md, "Logs"): which requests get a line. `all` (the
default) writes one per request; `errors` only those answered 400 and above (and
replies dropped because the client went away); `none` none. The other lines (start,
stop) stay whatever it says, and a write is in the audit trail either way. Each
server here gets the same requests; the JSON format makes the lines easy to read."""

import os
import subprocess
import time

import harness
from harness import avro_record
from test_log_json import parse_log

NEW = "new-subject"


def requests_and_log(case, name, args=(), env=None):
    """Starts a server with args/env, sends the same four requests, stops it;
    (the statuses, the log's request lines, every message, the audit rows of NEW)."""
    db = case.pg.new_database(name)
    # LeakSanitizer's closing list of the suppressions it used is no line of the server's.
    lsan = ":".join(filter(None, [os.environ.get("LSAN_OPTIONS"), "print_suppressions=0"]))
    server = harness.Server(database_url=db.url, name=name, env={"LSAN_OPTIONS": lsan, **(env or {})},
                            args=["--log-format", "json", *args]).start()
    http = server.client()
    statuses = [
        http.get("/schemas/types").status,                                             # 200
        http.get("/subjects/none-such/versions").status,                               # 404
        http.post(f"/subjects/{NEW}/versions", {"schema": avro_record("N", [("f", "string")])}).status,  # 200
        http.post(f"/subjects/{NEW}/versions", {"schema": "{not json"}).status,       # 422
    ]
    # The refusal's row is written after its reply (docs/security.md, "Audit trail").
    deadline = time.monotonic() + 10
    audit = http.get("/audit", params={"subject": NEW}).body
    while len(audit) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
        audit = http.get("/audit", params={"subject": NEW}).body
    server.stop()
    with open(server.log, "rb") as f:
        objects = parse_log(f.read())
    # Not the harness's readiness probes (GET /) nor the audit reads above; sorted,
    # since the lines of different HTTP threads need not come in the requests' order.
    lines = sorted((o["method"], o["target"], o["status"]) for o in objects
                   if "method" in o and o["target"] != "/" and not o["target"].startswith("/audit"))
    return statuses, lines, [o["msg"] for o in objects], audit


class LogRequests(harness.unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.pg = harness.cluster()

    def check_common(self, statuses, msgs, audit):
        self.assertEqual(statuses, [200, 404, 200, 422])
        self.assertTrue(any(m.startswith("schema-registry ") and " listening on " in m for m in msgs), msgs)
        self.assertIn("stopped", msgs)
        # The registration and the refused one are audited whatever the log writes.
        self.assertEqual([(a["action"], a["status"]) for a in audit], [("register", 422), ("register", 200)])

    def test_all_is_the_default(self):
        statuses, lines, msgs, audit = requests_and_log(self, "logall")
        self.check_common(statuses, msgs, audit)
        self.assertEqual(lines, sorted([("GET", "/schemas/types", 200), ("GET", "/subjects/none-such/versions", 404),
                                        ("POST", f"/subjects/{NEW}/versions", 200),
                                        ("POST", f"/subjects/{NEW}/versions", 422)]))

    def test_errors_writes_only_the_refused(self):
        statuses, lines, msgs, audit = requests_and_log(self, "logerrors", args=["--log-requests", "errors"])
        self.check_common(statuses, msgs, audit)
        self.assertEqual(lines, sorted([("GET", "/subjects/none-such/versions", 404),
                                        ("POST", f"/subjects/{NEW}/versions", 422)]))

    def test_none_from_the_environment(self):
        statuses, lines, msgs, audit = requests_and_log(self, "lognone",
                                                        env={"SCHEMA_REGISTRY_LOG_REQUESTS": "NONE"})
        self.check_common(statuses, msgs, audit)
        self.assertEqual(lines, [])

    def test_a_bad_value_is_refused_at_start(self):
        r = subprocess.run([harness.server_binary(), "--log-requests", "some"], capture_output=True,
                           timeout=60)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn(b"--log-requests: invalid value 'some' (expected all, errors or none)", r.stderr)


if __name__ == "__main__":
    harness.unittest.main()
