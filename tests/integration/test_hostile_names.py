"""Hostile subject names and log lines (issue 14: no SQL from request data,
escaped logs; docs/security.md section 8).

- Subjects that would break a statement built from text (quotes, comments,
  dollar quotes, $1, backslashes, percent signs, odd Unicode, a context
  name with a quote) are registered, read, looked up, configured and
  deleted; each round-trips exactly (in every reply and in the database),
  and the database keeps its tables and every other row.
- Every statement in store/ is parameterized: the SQL text of each
  PQexecParams call is a literal, and PQexec runs only the embedded
  migrations and fixed statements.
- A newline in a subject (percent-encoded in the path, raw in an HTTP/2
  :path) or in a schema text and a reference's subject in a JSON body
  never makes an extra log line: one line per request, each starting with
  a timestamp.
"""

import os
import re
import socket
import time

import harness
from harness import avro_record, quote, sql_literal

try:
    import hpack
    from hyperframe.frame import Frame, HeadersFrame, SettingsFrame
except ImportError as exc:                      # a missing dependency is a failure, not a skip
    raise SystemExit(f"python3-h2 (hyperframe, hpack) is not importable ({exc}); run scripts/install-deps.sh")

REPO = os.path.join(harness.HERE, "..", "..")

HOSTILE = [
    "x'; DROP TABLE schemas; --",
    "'; SELECT pg_sleep(30); --",
    'a"b',
    "$1",
    "$$dollar$$ $q$quoted$q$",
    "back\\slash\\",
    "%27",
    "100%",
    "a b+c&d=e?f#g",
    "ünïcødé ☃ 𝄞 中文",
    "\u202eright-to-left",
    "zero\u200dwidth\ufeff",
    "E'\\x27' OR 1=1",
    ":.ct'x:s",
]

LINE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (INFO|WARN|ERROR) ")


class HostileNames(harness.RegistryTestCase):

    def test_each_name_round_trips_and_the_database_is_intact(self):
        control = self.register_ok("control", avro_record("Control", [("a", "string")]))
        for n, name in enumerate(HOSTILE):
            with self.subTest(name=name):
                q = quote(name)
                schema = avro_record(f"Hostile{n}", [("a", "string")])
                sid = self.register_ok(name, schema)
                r = self.version(name, "latest")
                self.assertEqual(r.status, 200, r)
                self.assertEqual((r.body["subject"], r.body["version"], r.body["id"]), (name, 1, sid))
                self.assertIn(name, self.subjects())
                r = self.lookup(name, schema)
                self.assertEqual(r.status, 200, r)
                self.assertEqual(r.body["subject"], name)
                if not name.startswith(":."):        # a context's ids are its own (docs/api.md, contexts)
                    r = self.get(f"/schemas/ids/{sid}/versions")
                    self.assertEqual(r.status, 200, r)
                    self.assertIn({"subject": name, "version": 1}, r.body)
                self.set_level(name, "FULL")
                r = self.get(f"/config/{q}")
                self.assertEqual((r.status, r.body.get("compatibilityLevel")), (200, "FULL"), r)
                # The database holds the very bytes, under a parameterized read of ours.
                self.assertEqual(self.db.sql(f"SELECT subject FROM subject_versions WHERE subject = "
                                             f"{sql_literal(name)}"), [(name,)])
                self.assertEqual(self.db.count("configs", f"scope = {sql_literal(name)}"), 1)
                self.assertEqual(self.delete(f"/config/{q}").status, 200)
                self.assertEqual(self.db.count("configs", f"scope = {sql_literal(name)}"), 0)
                self.assertEqual(self.delete_subject(name).body, [1])
                self.assertEqual(self.delete_subject(name, permanent=True).body, [1])
                self.assertEqual(self.db.count("subject_versions", f"subject = {sql_literal(name)}"), 0)
                self.assertEqual(self.version(name, "latest").status, 404)
        # Every table still there, the other rows untouched.
        for table in ("schemas", "subject_versions", "schema_references", "configs", "modes", "changes"):
            self.assertIsNotNone(self.db.value(f"SELECT to_regclass('{table}')"), table)
        self.assertEqual(self.db.count("schemas"), len(HOSTILE) + 1)
        r = self.version("control", 1)
        self.assertEqual((r.status, r.body["id"]), (200, control))
        self.assertEqual(self.subjects(), ["control"])

    def test_every_store_statement_is_parameterized(self):
        sources = {}
        for name in os.listdir(os.path.join(REPO, "store")):
            if name.endswith(".c"):
                with open(os.path.join(REPO, "store", name), encoding="utf-8") as f:
                    sources[name] = f.read()
        text = "\n".join(sources.values())
        # PQexec (no parameters): the migration runner's scripts and fixed statements only: a
        # NAME_SQL macro counts when its definition is nothing but string literals and other
        # upper-case macros that are themselves fixed (STORE_TIMELINE_SQL is built that way).
        def fixed_statement(name, depth=0):
            m = re.search(r"#define\s+" + re.escape(name) + r"\s+((?:.*\\\n)*.*)", text)
            body = m.group(1).replace("\\\n", " ") if m else ""
            token = r'"(?:[^"\\%]|\\.)*"|[A-Z_]+'
            if depth > 8 or not re.fullmatch(r"\s*(?:(?:" + token + r")\s*)+", body):
                return False
            return all(t.startswith('"') or fixed_statement(t, depth + 1) for t in re.findall(token, body))
        for arg in re.findall(r"PQexec\(\s*db->conn\s*,\s*([^)]*)\)", text):
            arg = arg.strip()
            self.assertTrue(arg in ('sql', '"ROLLBACK"') or
                            (re.fullmatch(r"[A-Z_]+_SQL", arg) and fixed_statement(arg)), arg)
        for arg in re.findall(r"store_exec_script\(\s*db\s*,\s*([^,)]*)", text):
            self.assertTrue(arg.strip() in ("m->sql", "MIGRATION_LOCK_SQL") or arg.strip().startswith('"'), arg)
        # PQexecParams (or its bounded twin PQsendQueryParams) only in store_exec_params, whose
        # two callers pass on their callers' `sql`: a literal at every call of the helpers below.
        self.assertEqual(len(re.findall(r"PQ(?:exec|sendQuery)Params\(", text)), 2)
        self.assertEqual(len(re.findall(r"PQ(?:exec|sendQuery)Params\(\s*db->conn\s*,\s*sql\s*,", text)), 2)
        self.assertEqual(re.findall(r"store_exec_params\(\s*db\s*,\s*(\w+)", text), ["sql", "sql"])
        calls = re.findall(r"store_(?:query|version_stmt)\(\s*db\s*,\s*(\"|[A-Za-z_]+)", text)
        self.assertGreater(len(calls), 20)
        # A fixed NAME_SQL macro (literals only, as above) stands for a literal.
        calls = ['"' if re.fullmatch(r"[A-Z_]+_SQL", c) and fixed_statement(c) else c for c in calls]
        # Four helpers (store_query_json among them) forward the literal their callers gave
        # them (`sql`) to store_query; their own callers are checked below.
        self.assertEqual(len(re.findall(r"store_query\(\s*db\s*,\s*sql\s*,", text)), 4)
        self.assertEqual([c for c in calls if c != '"'], ["sql", "sql", "sql", "sql"], calls)
        helpers = set(re.findall(r"static store_rc_t (store_\w+)\(store_t \*db, const char \*sql", text))
        self.assertIn("store_query_int64", helpers)
        for helper in helpers - {"store_query", "store_exec_script"}:    # both checked above
            for arg in re.findall(helper + r"\(\s*db\s*,\s*(\"|[A-Z_]+_SQL\b|\S)", text):
                self.assertTrue(arg == '"' or (arg.endswith("_SQL") and fixed_statement(arg)),
                                f"{helper} called with SQL that is not a literal: {arg}")
        for name, src in sources.items():
            self.assertNotRegex(src, r"PQescape|sprintf\([^;]*(SELECT|INSERT|UPDATE|DELETE)\b", name)


class LogLines(harness.RegistryTestCase):

    def log_lines(self):
        with open(self.server.log, errors="replace") as f:
            return f.read().split("\n")[:-1]

    def wait_lines(self, count, seconds=5):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline and len(self.log_lines()) < count:
            time.sleep(0.05)
        time.sleep(0.3)                         # and nothing more comes
        return self.log_lines()

    def h2_get(self, path):
        """GET with path as raw bytes in :path over h2c; returns once the server answered or closed."""
        s = socket.create_connection(("127.0.0.1", self.server.port), timeout=10)
        block = hpack.Encoder().encode([(":method", "GET"), (":scheme", "http"), (":authority", "x"),
                                        (":path", path)])
        s.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + SettingsFrame(0).serialize() +
                  HeadersFrame(1, block, flags=["END_HEADERS", "END_STREAM"]).serialize())
        data, deadline, dec = b"", time.monotonic() + 5, hpack.Decoder()
        while time.monotonic() < deadline:
            while len(data) >= 9:
                frame, length = Frame.parse_frame_header(memoryview(data[:9]))
                if len(data) < 9 + length:
                    break
                frame.parse_body(memoryview(data[9:9 + length]))
                data = data[9 + length:]
                if frame.type == 0x01 and frame.stream_id == 1:
                    s.close()
                    return int(dict(dec.decode(frame.data))[":status"])
            chunk = s.recv(1 << 16)
            if not chunk:
                break
            data += chunk
        s.close()
        return None

    def test_a_newline_never_forges_a_log_line(self):
        forged = "\n2026-01-01T00:00:00.000Z INFO forged"
        enc = quote(forged)                    # %0A2026-01-01T00...
        schema = avro_record("Forge", [("a", "string")], doc=f"doc{forged}")
        # Lines of earlier requests reach the file at the end of their loop's turn: wait for quiet.
        before, deadline = -1, time.monotonic() + 10
        while time.monotonic() < deadline and before != len(self.log_lines()):
            before = len(self.log_lines())
            time.sleep(0.5)
        requests = [
            lambda: self.post(f"/subjects/a{enc}/versions", self.schema_body(schema)),
            lambda: self.post(f"/subjects/a{enc}", self.schema_body(schema)),
            lambda: self.get(f"/subjects/a{enc}/versions"),
            lambda: self.get(f"/subjects/a%0D{enc}/versions/1"),
            lambda: self.put(f"/config/a{enc}", {"compatibility": "NONE"}),
            lambda: self.delete(f"/subjects/a{enc}"),
            lambda: self.post("/subjects/plain/versions", self.schema_body(schema)),
            lambda: self.post("/subjects/plain", self.schema_body(schema)),
            lambda: self.post("/subjects/plain/versions",
                              self.schema_body(avro_record("Ref", [("a", "Forge")]),
                                               references=[{"name": "Forge", "subject": f"x{forged}",
                                                            "version": 1}])),
            lambda: self.post(f"/compatibility/subjects/a{enc}/versions/latest", self.schema_body(schema)),
            lambda: self.h2_get(f"/subjects/a{forged}/versions"),
            lambda: self.h2_get(f"/schemas/ids/1?x={forged}"),
        ]
        statuses = [r if isinstance(r, int) or r is None else r.status for r in (req() for req in requests)]
        self.assertEqual(statuses[6], 200, statuses)   # the schema text with a newline is stored
        # A raw control byte in an HTTP/2 :path is h2o's own 400 ("Invalid Headers"): the
        # request never reaches the server's code, which logs nothing for it.
        self.assertEqual(statuses[-2:], [400, 400], statuses)
        logged = len(requests) - 2
        lines = self.wait_lines(before + logged)
        new = lines[before:]
        self.assertEqual(len(new), logged, "\n".join(new))
        for line in lines:
            self.assertRegex(line, LINE)
        self.assertFalse([ln for ln in lines if ln.startswith("2026-01-01T00:00:00.000Z")])
        self.assertTrue(all("\r" not in ln for ln in lines))
        self.server.assert_running()


if __name__ == "__main__":
    harness.main()
