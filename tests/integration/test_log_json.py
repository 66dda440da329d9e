"""--log-format json (log.format, docs/operations.md section 5): every line the
server writes on stderr is one JSON object in valid UTF-8, {"time", "level",
"msg"} plus, for a request, method, target, status, duration_us, remote,
principal and request_id (X-Request-Id); whatever bytes a client or the
configuration put into a line (a %0A in a path, a byte that is no UTF-8, a
newline in a file name, a user name that is no UTF-8)."""

import base64
import json
import os
import re
import socket
import subprocess

import harness

TIME = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
# A user name may hold any byte but ':', space and control characters (server/auth.h).
USER = b"al\xffce"
PASSWORD = b"s3cret"


def parse_log(data):
    """Every line of data (bytes) as a JSON object; fails on anything else."""
    assert data.endswith(b"\n"), data[-200:]
    objects = []
    for raw in data.split(b"\n")[:-1]:
        text = raw.decode("utf-8")  # strict: a byte of no character fails here
        obj = json.loads(text)
        assert isinstance(obj, dict), text
        assert TIME.match(obj["time"]), text
        assert obj["level"] in ("INFO", "WARN", "ERROR"), text
        assert isinstance(obj["msg"], str), text
        objects.append(obj)
    return objects


def raw_request(port, target, extra=b""):
    """One HTTP/1.1 request with target as raw bytes (and extra header lines); the status code."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as s:
        s.sendall(b"GET " + target + b" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" + extra +
                  b"\r\n")
        reply = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            reply += chunk
    return int(reply.split(b" ", 2)[1])


class JsonLog(harness.unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.pg = harness.cluster()
        cls.db = cls.pg.new_database("logjson")
        directory = harness.make_temp_dir("logjson")
        # The users file's name goes into a log line at start-up.
        cls.users_path = os.fsencode(directory) + b"/users\n\"\xff\\.txt"
        env = {k: v for k, v in os.environ.items() if not k.startswith("SCHEMA_REGISTRY_")}
        r = subprocess.run([os.fsencode(harness.server_binary()), b"passwd", USER, b"--auth-basic-users-file",
                            cls.users_path], input=PASSWORD + b"\n", capture_output=True, env=env,
                           timeout=300)
        assert r.returncode == 0, r
        # LeakSanitizer's closing list of the suppressions it used is no line of the server's.
        lsan = ":".join(filter(None, [os.environ.get("LSAN_OPTIONS"), "print_suppressions=0"]))
        cls.server = harness.Server(database_url=cls.db.url, name="logjson", env={"LSAN_OPTIONS": lsan}, args=[
            "--log-format", "json", "--auth-basic-users-file", os.fsdecode(cls.users_path),
            "--auth-anonymous", "ANONYMOUS"])
        cls.server.start()
        port = cls.server.port
        http = cls.server.client()
        auth = {"Authorization": "Basic " + base64.b64encode(USER + b":" + PASSWORD).decode()}
        cls.statuses = {
            "types": http.get("/schemas/types", headers=auth).status,
            "register": http.post("/subjects/orders-value/versions", {"schema": '"string"'}).status,
            "rid": http.get("/subjects", headers={"X-Request-Id": "deploy-7:orders"}).status,
            "newline": raw_request(port, b"/subjects/a%0Ab/versions"),
            "bytes": raw_request(port, b"/subjects/x\xff\xfe\"\\y/versions?q=%0A"),
            # Past max.request.header.bytes (65536): a warning of its own besides the request line.
            "headers": raw_request(port, b"/subjects?many", b"X-Request-Id: many-headers-1\r\n"
                                   b"X-Pad: " + b"p" * 70000 + b"\r\n"),
        }
        cls.server.stop()
        with open(cls.server.log, "rb") as f:
            cls.log = f.read()

    def test_every_line_is_one_json_object(self):
        objects = parse_log(self.log)
        msgs = [o["msg"] for o in objects]
        self.assertTrue(any(m.startswith("schema-registry ") and " listening on " in m for m in msgs), msgs)
        self.assertIn("stopped", msgs)

    def request_lines(self):
        return [o for o in parse_log(self.log) if "method" in o]

    def line_for(self, target):
        found = [o for o in self.request_lines() if o["target"] == target]
        self.assertEqual(len(found), 1, (target, self.request_lines()))
        return found[0]

    def test_request_lines_have_their_fields(self):
        lines = self.request_lines()
        self.assertGreaterEqual(len(lines), 4)
        for o in lines:
            self.assertEqual(set(o), {"time", "level", "msg", "method", "target", "status", "duration_us",
                                      "remote", "principal", "request_id"}, o)
            self.assertIsInstance(o["status"], int)
            self.assertIsInstance(o["duration_us"], int)
            # null, as "from=-" in text, for a request refused before its address was read
            self.assertIn(o["remote"], ("127.0.0.1", None), o)
            self.assertEqual(o["msg"], f"{o['method']} {o['target']} {o['status']} {o['duration_us']}us")
        o = self.line_for("/subjects/orders-value/versions")
        self.assertEqual((o["method"], o["status"], o["remote"], o["principal"]),
                         ("POST", 200, "127.0.0.1", "ANONYMOUS"))
        self.assertEqual(self.statuses["register"], 200)

    def test_request_ids_the_clients_and_generated(self):
        o = self.line_for("/subjects")
        self.assertEqual((o["status"], o["request_id"]), (200, "deploy-7:orders"))
        o = self.line_for("/subjects/orders-value/versions")
        self.assertRegex(o["request_id"], r"^[0-9a-f]{32}$")

    def test_every_line_of_a_request_names_its_id(self):
        """Not only the request line: the warning a request causes carries its request_id too."""
        self.assertEqual(self.statuses["headers"], 431)
        self.assertEqual(self.line_for("/subjects?many")["request_id"], "many-headers-1")
        warned = [o for o in parse_log(self.log) if o["msg"].startswith("http: closing a connection from")]
        self.assertEqual(len(warned), 1, warned)
        self.assertEqual((warned[0]["level"], warned[0]["request_id"]), ("WARN", "many-headers-1"))

    def test_a_principal_of_no_utf8_is_replaced_not_lost(self):
        o = self.line_for("/schemas/types")
        self.assertEqual((o["status"], o["principal"]), (200, "al\ufffdce"))

    def test_a_target_with_newline_and_bytes_of_no_character(self):
        """The target as the text log shows it: bytes outside printable ASCII and the
        backslash as \\xNN (docs/operations.md section 5), so both formats agree."""
        o = self.line_for("/subjects/a%0Ab/versions")
        self.assertEqual(o["status"], self.statuses["newline"])
        o = self.line_for('/subjects/x\\xff\\xfe"\\x5cy/versions?q=%0A')
        self.assertEqual((o["method"], o["status"]), ("GET", self.statuses["bytes"]))

    def test_a_file_name_with_a_newline_and_no_utf8_in_a_message(self):
        expected = "auth: 1 users from " + self.users_path.decode("utf-8", "replace")
        self.assertIn("\n", expected)
        self.assertIn("\ufffd", expected)
        self.assertIn(expected, [o["msg"] for o in parse_log(self.log)])


class LogFormatSetting(harness.unittest.TestCase):

    def run_migrate(self, *flags, env=None):
        db = harness.cluster().new_database("logfmt")
        base = {k: v for k, v in os.environ.items() if not k.startswith("SCHEMA_REGISTRY_")}
        return subprocess.run([harness.server_binary(), "migrate", "--database-url", db.url, *flags],
                              capture_output=True, env=dict(base, **(env or {})), timeout=120)

    def test_the_environment_variable_chooses_json(self):
        r = self.run_migrate(env={"SCHEMA_REGISTRY_LOG_FORMAT": "json"})
        self.assertEqual(r.returncode, 0, r)
        self.assertEqual([o["msg"] for o in parse_log(r.stderr)],
                         ["database: external PostgreSQL", "migrations applied"])

    def test_text_is_the_default(self):
        r = self.run_migrate()
        self.assertEqual(r.returncode, 0, r)
        self.assertRegex(r.stderr.decode(), r"^\d{4}-\d\d-\d\dT[\d:.]+Z INFO database: external PostgreSQL\n")

    def test_an_unknown_format_is_refused(self):
        r = self.run_migrate("--log-format", "yaml")
        self.assertEqual(r.returncode, 2, r)
        self.assertIn(b"--log-format: invalid value 'yaml' (expected text or json)", r.stderr)


if __name__ == "__main__":
    harness.main()
