"""The audit trail and request ids (docs/security.md "Audit trail",
docs/operations.md "Request ids", docs/api.md "Audit trail").

- Every change (register, import, deletes, config, mode, context delete) writes
  one audit_log row in its own transaction: a row exactly for what committed,
  none for a registration that found its content already there.
- Every refused attempt on a write route (401, 403, 409, 422, other 4xx) gets
  a row with outcome 'refused', written afterwards by a database worker.
- GET /audit pages the rows newest first with filters; admin only.
- X-Request-Id: the client's sane one is kept, anything else replaced by 32
  hex digits; echoed over HTTP/1.1 and HTTP/2, logged, stored in the rows.

Confluent's community registry has no audit log (its audit logs are a
Confluent Platform feature on the Kafka side); the shape here is our own.
"""

import json
import os
import re
import subprocess
import threading
import time

import harness
from harness import avro_record, quote
from test_auth_basic import basic, make_users

V1 = harness.SR_V1
HEX32 = re.compile(r"^[0-9a-f]{32}$")
COLUMNS = ("principal", "remote", "request_id", "action", "subject", "version", "schema_id", "permanent",
           "outcome", "status", "error_code")


def sql_literal(text):
    return "'" + text.replace("'", "''") + "'"


def rows_where(db, where):
    """audit_log rows (dicts of every column) matching an SQL condition, oldest first."""
    return [json.loads(r[0]) for r in
            db.sql(f"SELECT row_to_json(a)::text FROM audit_log a WHERE {where} ORDER BY id")]


def fields(row):
    return {k: row[k] for k in COLUMNS}


def row_of(db, rid, timeout=20):
    """The one row of request rid, waiting (bounded) for a refusal's row, which
    a worker writes after the reply."""
    deadline = time.monotonic() + timeout
    while True:
        got = rows_where(db, f"request_id = {sql_literal(rid)}")
        if got or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    if len(got) != 1:
        raise AssertionError(f"expected one audit row for {rid}, got {got!r}")
    return got[0]


def curl_headers(url, method="GET", body=None, headers=None):
    """(status, headers dict lower-cased, HTTP version) of one request over h2c."""
    argv = ["curl", "-s", "-S", "--http2-prior-knowledge", "-X", method, "-o", "/dev/null", "-D", "-",
            "-H", f"Content-Type: {V1}", "--max-time", "60"]
    for k, v in (headers or {}).items():
        argv += ["-H", f"{k}: {v}"]
    if body is not None:
        argv += ["--data-binary", json.dumps(body)]
    run = subprocess.run(argv + [url], capture_output=True, text=True, check=True)
    lines = run.stdout.replace("\r", "").split("\n")
    version, status = lines[0].split()[0], int(lines[0].split()[1])
    out = {}
    for line in lines[1:]:
        if ":" in line:
            k, _, v = line.partition(":")
            out[k.strip().lower()] = v.strip()
    return status, out, version


class AuditCase(harness.RegistryTestCase):
    _rids = iter(range(1, 1 << 30))

    def rid(self):
        return f"{self._testMethodName}.{next(self._rids)}"

    def send(self, method, path, body=None, rid=None, **kw):
        rid = rid or self.rid()
        headers = dict(kw.pop("headers", {}) or {})
        headers["X-Request-Id"] = rid
        r = self.http.request(method, path, body=body, headers=headers, **kw)
        self.assertEqual(r.headers.get("X-Request-Id"), rid, r)
        return r, rid

    def expect_row(self, rid, **want):
        row = row_of(self.db, rid)
        base = {"principal": None, "remote": "127.0.0.1", "request_id": rid, "version": None,
                "schema_id": None, "permanent": None, "outcome": "ok", "status": 200, "error_code": None,
                "subject": None}
        base.update(want)
        self.assertEqual(fields(row), base)
        return row


class Changes(AuditCase):
    """One row per change, with exact fields; authentication off: principal NULL."""

    def test_register_then_existing_then_new_version(self):
        s = self.sub()
        r, rid = self.send("POST", f"/subjects/{quote(s)}/versions", {"schema": avro_record("A", [("a", "int")])})
        self.assertEqual(r.status, 200, r)
        self.expect_row(rid, action="register", subject=s, version=1, schema_id=r.body["id"])
        # The same content again changes nothing: no row.
        again, rid2 = self.send("POST", f"/subjects/{quote(s)}/versions",
                                {"schema": avro_record("A", [("a", "int")])})
        self.assertEqual((again.status, again.body["id"]), (200, r.body["id"]))
        time.sleep(0.3)
        self.assertEqual(rows_where(self.db, f"request_id = {sql_literal(rid2)}"), [])
        r3, rid3 = self.send("POST", f"/subjects/{quote(s)}/versions",
                             {"schema": avro_record("A", [("a", "int"), ("b", "string", "x")])})
        self.assertEqual(r3.status, 200, r3)
        self.expect_row(rid3, action="register", subject=s, version=2, schema_id=r3.body["id"])
        self.assertEqual(self.db.count("audit_log", f"subject = {sql_literal(s)} AND outcome = 'ok'"),
                         self.db.count("subject_versions", f"subject = {sql_literal(s)}"))

    def test_general_path_register(self):
        # A soft-deleted version sends the registration down the general path
        # (BEGIN .. COMMIT, registry/write.c): its row is written there.
        s = self.sub()
        self.register_ok(s, avro_record("G", [("a", "int")]))
        self.assertEqual(self.delete(f"/subjects/{quote(s)}/versions/1").status, 200)
        r, rid = self.send("POST", f"/subjects/{quote(s)}/versions", {"schema": avro_record("G2", [("b", "int")])})
        self.assertEqual(r.status, 200, r)
        self.expect_row(rid, action="register", subject=s, version=2, schema_id=r.body["id"])

    def test_import(self):
        s = self.sub()
        self.assertEqual(self.put(f"/mode/{quote(s)}", {"mode": "IMPORT"}).status, 200)
        r, rid = self.send("POST", f"/subjects/{quote(s)}/versions",
                           {"schema": avro_record("I", [("a", "int")]), "id": 7001, "version": 3})
        self.assertEqual((r.status, r.body), (200, {"id": 7001}), r)
        self.expect_row(rid, action="import", subject=s, version=3, schema_id=7001)

    def test_delete_version_soft_then_hard(self):
        s = self.sub()
        sid = self.register_ok(s, avro_record("D", [("a", "int")]))
        r, rid = self.send("DELETE", f"/subjects/{quote(s)}/versions/1")
        self.assertEqual((r.status, r.body), (200, 1), r)
        self.expect_row(rid, action="delete_version", subject=s, version=1, schema_id=sid, permanent=False)
        r, rid = self.send("DELETE", f"/subjects/{quote(s)}/versions/1", params={"permanent": "true"})
        self.assertEqual((r.status, r.body), (200, 1), r)
        self.expect_row(rid, action="delete_version", subject=s, version=1, schema_id=sid, permanent=True)

    def test_delete_subject_soft_then_hard(self):
        s = self.sub()
        self.register_ok(s, avro_record("S", [("a", "int")]))
        self.register_ok(s, avro_record("S", [("a", "int"), ("b", "int", 0)]))
        r, rid = self.send("DELETE", f"/subjects/{quote(s)}")
        self.assertEqual((r.status, r.body), (200, [1, 2]), r)
        row = self.expect_row(rid, action="delete_subject", subject=s, permanent=False)
        self.assertEqual(row["details"], {"versions": [1, 2]})
        r, rid = self.send("DELETE", f"/subjects/{quote(s)}", params={"permanent": "true"})
        self.assertEqual((r.status, r.body), (200, [1, 2]), r)
        self.expect_row(rid, action="delete_subject", subject=s, permanent=True)

    def test_config_and_mode(self):
        s = self.sub()
        r, rid = self.send("PUT", f"/config/{quote(s)}", {"compatibility": "FULL"})
        self.assertEqual(r.status, 200, r)
        row = self.expect_row(rid, action="config_put", subject=s)
        self.assertEqual(row["details"], {"config": {"compatibility": "FULL"}})
        r, rid = self.send("DELETE", f"/config/{quote(s)}")
        self.assertEqual(r.status, 200, r)
        self.expect_row(rid, action="config_delete", subject=s)
        r, rid = self.send("PUT", "/config", {"compatibility": "BACKWARD"})
        self.assertEqual(r.status, 200, r)
        self.expect_row(rid, action="config_put")  # the global scope: subject NULL
        r, rid = self.send("PUT", f"/mode/{quote(s)}", {"mode": "READONLY"})
        self.assertEqual(r.status, 200, r)
        row = self.expect_row(rid, action="mode_put", subject=s)
        self.assertEqual(row["details"], {"mode": "READONLY"})
        r, rid = self.send("DELETE", f"/mode/{quote(s)}")
        self.assertEqual(r.status, 200, r)
        self.expect_row(rid, action="mode_delete", subject=s)

    def test_context_delete(self):
        r, rid = self.send("DELETE", "/contexts/.audited")
        self.assertEqual(r.status, 204, r)
        self.expect_row(rid, action="context_delete", subject=".audited")

    def test_reads_write_no_rows(self):
        s = self.sub()
        self.register_ok(s, avro_record("R", [("a", "int")]))
        rids = []
        for method, path, body in [("GET", f"/subjects/{quote(s)}/versions", None),
                                   ("POST", f"/subjects/{quote(s)}", {"schema": avro_record("R", [("a", "int")])}),
                                   ("POST", f"/compatibility/subjects/{quote(s)}/versions/latest",
                                    {"schema": avro_record("R", [("a", "string")])}),
                                   ("GET", "/subjects/nope/versions", None),  # a 404 of a read route
                                   ("GET", "/config", None)]:
            rids.append(self.send(method, path, body)[1])
        time.sleep(0.5)
        self.assertEqual(self.db.count("audit_log", "request_id IN (%s)" % ",".join(map(sql_literal, rids))), 0)


class CliImport(AuditCase):
    """schema-registry import writes through the registry: its changes have rows too,
    one request id for the run, no principal (nobody authenticated)."""

    def test_import_rows(self):
        target = self.pg.new_database()
        key = lambda v: json.dumps({"keytype": "SCHEMA", "subject": "imp", "version": v, "magic": 1})
        value = lambda v, i, t: json.dumps({"subject": "imp", "version": v, "id": i, "schema": t, "deleted": False})
        dump = (key(1) + "\t" + value(1, 5, '"int"') + "\n" + key(2) + "\t" + value(2, 9, '"long"') + "\n").encode()
        run = subprocess.run([harness.server_binary(), "import", "--database-url", target.url], input=dump,
                             capture_output=True, timeout=120)
        self.assertEqual(run.returncode, 0, run.stderr.decode())
        rows = rows_where(target, "action = 'import'")
        self.assertEqual([(r["subject"], r["version"], r["schema_id"], r["outcome"], r["principal"]) for r in rows],
                         [("imp", 1, 5, "ok", None), ("imp", 2, 9, "ok", None)])
        ids = {r["request_id"] for r in rows_where(target, "true")}
        self.assertEqual(len(ids), 1, ids)
        self.assertRegex(ids.pop(), r"^import-[0-9a-f]{32}$")


class Refusals(AuditCase):
    """Refused attempts on write routes: outcome 'refused', the status and error code
    answered, no change and no ok row."""

    server_args = ("--max-schema-bytes", "1024")  # bodies above 8 KiB are 413

    def test_incompatible_409(self):
        s = self.sub()
        self.assertEqual(self.put(f"/config/{quote(s)}", {"compatibility": "BACKWARD"}).status, 200)
        self.register_ok(s, avro_record("C", [("a", "int")]))
        r, rid = self.send("POST", f"/subjects/{quote(s)}/versions", {"schema": avro_record("C", [("a", "string")])})
        self.assertEqual((r.status, r.body["error_code"]), (409, 40901), r)
        row = self.expect_row(rid, action="register", subject=s, outcome="refused", status=409, error_code=40901)
        self.assertEqual(row["message"], r.body["message"])
        self.assertEqual(row["messages"], [r.body["message"]])
        self.assertIn("oldSchemaVersion", row["messages"][0])
        self.assertEqual(self.db.count("subject_versions", f"subject = {sql_literal(s)}"), 1)

    def test_invalid_422(self):
        s = self.sub()
        r, rid = self.send("POST", f"/subjects/{quote(s)}/versions", {"schema": "{not avro"})
        self.assertEqual((r.status, r.body["error_code"]), (422, 42201), r)
        row = self.expect_row(rid, action="register", subject=s, outcome="refused", status=422, error_code=42201)
        self.assertEqual(row["message"], r.body["message"])

    def test_not_found_404_on_a_write_route(self):
        s = self.sub()
        r, rid = self.send("DELETE", f"/subjects/{quote(s)}/versions/3", params={"permanent": "true"})
        self.assertEqual((r.status, r.body["error_code"]), (404, 40401), r)
        self.expect_row(rid, action="delete_version", subject=s, version=3, permanent=True, outcome="refused",
                        status=404, error_code=40401)

    def test_refused_on_the_loop_415(self):
        # Answered on the event loop, before any worker: the row still comes, from a worker.
        s = self.sub()
        r, rid = self.send("POST", f"/subjects/{quote(s)}/versions", "{}", headers={"Content-Type": "text/plain"})
        self.assertEqual(r.status, 415, r)
        self.expect_row(rid, action="register", subject=s, outcome="refused", status=415, error_code=415)

    def test_too_large_413_before_routing(self):
        # Refused before the path is even routed; the row still names the route's action.
        s = self.sub()
        r, rid = self.send("POST", f"/subjects/{quote(s)}/versions", {"schema": "x" * 9000})
        self.assertEqual(r.status, 413, r)
        self.expect_row(rid, action="register", subject=s, outcome="refused", status=413, error_code=413)

    def test_mode_refused_in_memory_422(self):
        r, rid = self.send("PUT", "/mode", {"mode": "NOPE"})
        self.assertEqual((r.status, r.body["error_code"]), (422, 42204), r)
        self.expect_row(rid, action="mode_put", outcome="refused", status=422, error_code=42204)


class Listing(AuditCase):
    """GET /audit: newest first, paged, filtered; bad parameters are Confluent-style errors."""

    def test_paging_and_filters(self):
        s, t = self.sub("s"), self.sub("t")
        started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(time.time() - 1))
        rids = []
        for i in range(3):
            r, rid = self.send("POST", f"/subjects/{quote(s)}/versions",
                               {"schema": avro_record("P", [(f"f{j}", "int", 0) for j in range(i + 1)])})
            self.assertEqual(r.status, 200, r)
            rids.append(rid)
        r, trid = self.send("PUT", f"/config/{quote(t)}", {"compatibility": "NONE"})
        self.assertEqual(r.status, 200, r)
        got = self.assert_ok(self.get("/audit", params={"subject": s}))
        self.assertEqual([g["requestId"] for g in got], rids[::-1])
        self.assertEqual([g["version"] for g in got], [3, 2, 1])
        self.assertEqual({g["action"] for g in got}, {"register"})
        self.assertEqual(set(got[0]), {"id", "at", "principal", "remote", "requestId", "action", "subject",
                                       "version", "schemaId", "permanent", "outcome", "status", "errorCode",
                                       "message", "messages", "details"})
        self.assertTrue(re.match(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$", got[0]["at"]), got[0])
        page = self.assert_ok(self.get("/audit", params={"subject": s, "limit": 1, "offset": 1}))
        self.assertEqual([g["requestId"] for g in page], [rids[1]])
        self.assertEqual(self.assert_ok(self.get("/audit", params={"subject": s, "offset": 3})), [])
        cfg = self.assert_ok(self.get("/audit", params={"action": "config_put", "subject": t}))
        self.assertEqual([g["requestId"] for g in cfg], [trid])
        recent = self.assert_ok(self.get("/audit", params={"since": started, "subject": s, "limit": 1000}))
        self.assertEqual(len(recent), 3)
        old = self.assert_ok(self.get("/audit", params={"until": "2000-01-01T00:00:00+01:00", "subject": s}))
        self.assertEqual(old, [])
        # Auth off: no principal, and the filter matches none.
        self.assertEqual(self.assert_ok(self.get("/audit", params={"principal": "alice"})), [])
        self.assertEqual(self.assert_ok(self.get("/audit", params={"limit": 2})).__len__(), 2)

    def test_bad_parameters(self):
        for params, status in [({"limit": "x"}, 400), ({"offset": "1.5"}, 400), ({"limit": 0}, 422),
                               ({"limit": 1001}, 422), ({"offset": -1}, 422), ({"since": "yesterday"}, 400),
                               ({"until": "2026-02-30T00:00:00Z"}, 400), ({"since": "2026-01-01T00:00:00"}, 400),
                               ({"since": "2026-01-02T00:00:00Z", "until": "2026-01-01T00:00:00Z"}, 422)]:
            r = self.get("/audit", params=params)
            self.assertEqual((r.status, set(r.body), r.body["error_code"]),
                             (status, {"error_code", "message"}, status), (params, r))


class RequestIds(AuditCase):

    def test_generated_when_absent_and_logged(self):
        r = self.get("/subjects")
        rid = r.headers.get("X-Request-Id")
        self.assertTrue(HEX32.match(rid or ""), rid)
        self.assertNotEqual(self.get("/subjects").headers.get("X-Request-Id"), rid)
        deadline = time.monotonic() + 10
        while f"rid={rid}" not in self.server.log_text() and time.monotonic() < deadline:
            time.sleep(0.05)
        line = [ln for ln in self.server.log_text().splitlines() if f"rid={rid}" in ln]
        self.assertEqual(len(line), 1, line)
        self.assertIn("GET /subjects 200 ", line[0])

    def test_sane_kept_insane_replaced(self):
        keep = "Ab9._:-" + "x" * 121  # 128 characters of the allowed set
        self.assertEqual(self.get("/", headers={"X-Request-Id": keep}).headers.get("X-Request-Id"), keep)
        for bad in ["has space", "x" * 129, "semi;colon", "quote\"", "\u00e9t\u00e9", ""]:
            got = self.http.request("GET", "/", headers={"X-Request-Id": bad.encode().decode("latin-1")})
            self.assertTrue(HEX32.match(got.headers.get("X-Request-Id", "")), (bad, got.headers))

    def test_replaced_id_is_the_stored_one(self):
        s = self.sub()
        r = self.http.request("POST", f"/subjects/{quote(s)}/versions",
                              body={"schema": avro_record("Q", [("a", "int")])}, headers={"X-Request-Id": "no good"})
        rid = r.headers.get("X-Request-Id")
        self.assertTrue(HEX32.match(rid), rid)
        self.assertEqual(row_of(self.db, rid)["subject"], s)

    def test_http2(self):
        url = self.server.base_url
        status, headers, version = curl_headers(url + "/subjects", headers={"X-Request-Id": "h2-kept"})
        self.assertEqual((status, version, headers.get("x-request-id")), (200, "HTTP/2", "h2-kept"))
        status, headers, _ = curl_headers(url + "/subjects")
        self.assertTrue(HEX32.match(headers.get("x-request-id", "")), headers)
        s = self.sub()
        status, headers, _ = curl_headers(url + f"/subjects/{quote(s)}/versions", "POST",
                                          {"schema": avro_record("H", [("a", "int")])},
                                          headers={"X-Request-Id": "h2-write"})
        self.assertEqual((status, headers.get("x-request-id")), (200, "h2-write"))
        self.assertEqual((row_of(self.db, "h2-write")["action"], row_of(self.db, "h2-write")["subject"]),
                         ("register", s))


class Concurrent(AuditCase):
    """8 threads x 20 registrations, new subjects and shared ones, group commit on:
    exactly one ok row per new version, with its id."""

    server_args = ("--db-threads", "8")

    def test_rows_equal_versions(self):
        shared = [self.sub("shared") for _ in range(3)]
        errors = []

        def worker(t):
            for i in range(20):
                subject = shared[i % 3] if i % 2 else f"{self._testMethodName}-own-{t}-{i}"
                schema = avro_record("W", [("a", "int")] + [(f"t{t}_{i}", "int", 0)])
                try:
                    r = self.register(subject, schema, params={"normalize": "false"})
                    if r.status != 200:
                        errors.append(r)
                except Exception as e:  # noqa: BLE001 (reported below)
                    errors.append(e)

        threads = [threading.Thread(target=worker, args=(t,)) for t in range(8)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(timeout=120)
        self.assertEqual(errors, [])
        like = sql_literal(self._testMethodName + "-%")
        versions = self.db.sql("SELECT subject, version, schema_id FROM subject_versions"
                               f" WHERE subject LIKE {like} ORDER BY subject, version")
        rows = self.db.sql("SELECT subject, version::text AS v, schema_id::text FROM audit_log"
                           f" WHERE subject LIKE {like} AND outcome = 'ok' AND action = 'register'"
                           " ORDER BY subject, version")
        self.assertEqual(len(versions), 160)
        self.assertEqual(rows, versions)


class GroupFailure(AuditCase):
    """A registration the database refuses inside a group (a trigger) has no ok row;
    the others of its group do (registry/group.c retries item by item)."""

    server_args = ("--db-threads", "16")

    def hold_subject_lock(self, subject, seconds):
        return subprocess.Popen(
            [self.pg._bin("psql"), "-X", "-q", "-h", "127.0.0.1", "-p", str(self.pg.port), "-U", "postgres",
             "-d", self.db.name, "-c",
             f"BEGIN; SELECT pg_advisory_xact_lock(hashtextextended({sql_literal(subject)}, 7)); "
             f"SELECT pg_sleep({seconds}); COMMIT;"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def test_poisoned_item(self):
        poison = self.sub("poison")
        self.db.sql("CREATE FUNCTION poison() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                    f"IF NEW.subject = {sql_literal(poison)} THEN RAISE EXCEPTION 'poisoned'; END IF; "
                    "RETURN NEW; END $$")
        self.db.sql("CREATE TRIGGER poison BEFORE INSERT ON subject_versions FOR EACH ROW EXECUTE FUNCTION poison()")
        blocked = [self.sub("blocked") for _ in range(2)]
        holders = [self.hold_subject_lock(s, 3) for s in blocked]
        time.sleep(0.5)
        out = {}

        def reg(subject, name):
            out[subject] = self.send("POST", f"/subjects/{quote(subject)}/versions",
                                     {"schema": avro_record(name, [("f", "string")])}, rid=f"grp-{subject}")[0]

        first = [threading.Thread(target=reg, args=(s, f"B{i}")) for i, s in enumerate(blocked)]
        for t in first:
            t.start()
        time.sleep(0.5)
        others = [self.sub("ok") for _ in range(8)]
        rest = [threading.Thread(target=reg, args=(s, f"G{i}")) for i, s in enumerate(others + [poison])]
        for t in rest:
            t.start()
        for t in first + rest:
            t.join(timeout=60)
        for h in holders:
            h.wait(timeout=30)
        for s in blocked + others:
            self.assertEqual(out[s].status, 200, out[s])
            self.expect_row(f"grp-{s}", action="register", subject=s, version=1, schema_id=out[s].body["id"])
        self.assertEqual((out[poison].status, out[poison].body["error_code"]), (500, 50001), out[poison])
        time.sleep(0.5)
        # A 5xx is no refusal: no row at all, and certainly no ok row.
        self.assertEqual(rows_where(self.db, f"subject = {sql_literal(poison)}"), [])
        self.db.sql("DROP TRIGGER poison ON subject_versions")


USERS = {"root": "r00t", "alice": "a11ce", "bob": "b0b"}
RULES = """\
auth.rule = root admin *
auth.rule = root admin /*
auth.rule = alice read,write orders-*
auth.rule = bob read *
"""


class WithAuth(AuditCase):
    """Basic authentication and rules: principals stored, 401 and 403 refused, GET /audit admin only."""

    @classmethod
    def setUpClass(cls):
        cls.dir = harness.make_temp_dir("audit")
        users = make_users(cls.dir, USERS)
        config = os.path.join(cls.dir, "registry.conf")
        with open(config, "w") as f:
            f.write(f"auth.basic.users.file = {users}\nauth.max.failures = 0\n" + RULES)
        cls.pg = harness.cluster()
        cls.db = cls.pg.new_database()
        cls.server = harness.Server(database_url=cls.db.url, name="audit-auth", args=("--config", config))
        cls.server.start()

    def as_user(self, user, password=None):
        return harness.Client("127.0.0.1", self.server.port,
                              headers=basic(user, password or USERS[user]) if user else {})

    def send_as(self, user, method, path, body=None, password=None, **kw):
        rid = self.rid()
        r = self.as_user(user, password).request(method, path, body=body, headers={"X-Request-Id": rid}, **kw)
        self.assertEqual(r.headers.get("X-Request-Id"), rid, r)
        return r, rid

    def test_principal_stored(self):
        s = "orders-" + self.sub()
        r, rid = self.send_as("alice", "POST", f"/subjects/{quote(s)}/versions",
                              {"schema": avro_record("O", [("a", "int")])})
        self.assertEqual(r.status, 200, r)
        self.expect_row(rid, principal="alice", action="register", subject=s, version=1, schema_id=r.body["id"])
        r, rid = self.send_as("root", "DELETE", f"/subjects/{quote(s)}")
        self.assertEqual(r.status, 200, r)
        self.expect_row(rid, principal="root", action="delete_subject", subject=s, permanent=False)

    def test_principals_in_shared_groups(self):
        """alice and root register into the same subjects at once. Whichever worker
        writes a group answers every registration in it, and the ones the group declines
        (a subject's second in one group) go the general path on that worker's
        connection: each row still names its own sender (registry/group.c)."""
        shared = ["orders-" + self.sub(f"shared{k}") for k in range(3)]
        sent, errors = [], []
        lock = threading.Lock()

        def worker(user, t):
            client = self.as_user(user)
            for i in range(12):
                rid = f"{self._testMethodName}-{user}-{t}-{i}"
                subject = shared[(t + i) % 3]
                schema = avro_record("W", [("a", "int"), (f"{user}{t}_{i}", "int", 0)])
                try:
                    r = client.request("POST", f"/subjects/{quote(subject)}/versions", body={"schema": schema},
                                       headers={"X-Request-Id": rid})
                except Exception as e:  # noqa: BLE001 (reported below)
                    errors.append(e)
                    continue
                with lock:
                    sent.append((rid, user, subject, r))

        threads = [threading.Thread(target=worker, args=(u, t)) for u in ("alice", "root") for t in range(4)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(timeout=120)
        self.assertEqual(errors, [])
        self.assertEqual(len(sent), 96)
        for rid, user, subject, r in sent:
            self.assertEqual(r.status, 200, r)
            row = fields(row_of(self.db, rid))
            self.assertEqual((row["principal"], row["action"], row["subject"], row["schema_id"], row["outcome"]),
                             (user, "register", subject, r.body["id"], "ok"), rid)
        # 32 per subject, without gaps, each version once.
        versions = self.db.sql("SELECT subject, version FROM subject_versions WHERE subject IN ("
                               + ", ".join(sql_literal(s) for s in shared) + ") ORDER BY subject COLLATE \"C\", version")
        self.assertEqual(versions, [(s, str(v)) for s in sorted(shared) for v in range(1, 33)])

    def test_principals_of_one_pass(self):
        """The same, made certain: alice's and root's registrations sent as streams of one
        connection in one write reach one worker together and are written as one group.
        Root's, the subject's second in the group, is declined, and the worker that
        leads decides it on the general path on its own connection, acting for root
        (server/handler_subjects.c, register_written); the last request it acted for
        before is alice's."""
        subject, fresh = "orders-" + self.sub("pass"), "orders-" + self.sub("pass-fresh")
        jobs = [("alice", subject, avro_record("P", [("a", "int")])),
                ("root", subject, avro_record("P", [("a", "int"), ("b", "int", 0)])),
                ("alice", fresh, avro_record("Q", [("q", "int")]))]
        # Both passwords verified before (auth.h keeps them), so that no stream waits
        # for the slow hash while the others go on.
        self.assertEqual(self.as_user("alice").request("GET", "/subjects").status, 200)
        before = self.group_counters()
        client = harness.H2Client(self.server.port)
        self.addCleanup(client.close)
        sent = []
        for user, s, schema in jobs:
            rid = self.rid()
            auth = basic(user, USERS[user])["Authorization"]
            sid = client.post(f"/subjects/{quote(s)}/versions", {"schema": schema}, flush=False,
                              headers=[("authorization", auth), ("x-request-id", rid)])
            sent.append((sid, rid, user, s))
        client.flush()
        client.wait_responses([sid for sid, *_ in sent], 30)
        versions = {}
        for sid, rid, user, s in sent:
            self.assertEqual(client.responses.get(sid), 200, client.bodies.get(sid))
            body = json.loads(client.bodies[sid])
            row = fields(row_of(self.db, rid))
            self.assertEqual((row["principal"], row["action"], row["subject"], row["schema_id"]),
                             (user, "register", s, body["id"]), rid)
            versions[rid] = row["version"]
        self.assertEqual(sorted(versions.values()), [1, 1, 2])
        self.assertEqual(versions[sent[1][1]], 2)  # root's: the declined one, written second
        after = self.group_counters()
        # One group of three, root's declined in it, then written by the general path.
        self.assertEqual(tuple(a - b for a, b in zip(after, before)), (1, 3, 1))

    def group_counters(self):
        """(groups, registrations in them, of those declined) from /metrics, as root."""
        text = self.as_user("root").request("GET", "/metrics").text
        return tuple(int(float(re.search(rf"^schema_registry_group_{name}_total (\S+)$", text, re.M).group(1)))
                     for name in ("commits", "registrations", "declined"))

    def test_401_and_403(self):
        s = "orders-" + self.sub()
        body = {"schema": avro_record("O", [("a", "int")])}
        r, rid = self.send_as("alice", "POST", f"/subjects/{quote(s)}/versions", body, password="wrong")
        self.assertEqual(r.status, 401, r)
        # No principal was established; the name tried is not stored, nor any password.
        row = self.expect_row(rid, action="register", subject=s, outcome="refused", status=401, error_code=401)
        self.assertNotIn("wrong", json.dumps(row))
        r, rid = self.send_as(None, "DELETE", f"/subjects/{quote(s)}/versions/1")
        self.assertEqual(r.status, 401, r)
        self.expect_row(rid, action="delete_version", subject=s, version=1, permanent=False, outcome="refused",
                        status=401, error_code=401)
        r, rid = self.send_as("bob", "POST", f"/subjects/{quote(s)}/versions", body)
        self.assertEqual(r.status, 403, r)
        self.expect_row(rid, principal="bob", action="register", subject=s, outcome="refused", status=403,
                        error_code=403)
        r, rid = self.send_as("alice", "PUT", "/config", {"compatibility": "NONE"})
        self.assertEqual(r.status, 403, r)
        self.expect_row(rid, principal="alice", action="config_put", outcome="refused", status=403,
                        error_code=403)
        self.assertEqual(self.db.count("subject_versions", f"subject = {sql_literal(s)}"), 0)
        # A refused read is no write: no row.
        r, rid = self.send_as("alice", "GET", "/subjects/secret/versions")
        self.assertEqual(r.status, 403, r)
        time.sleep(0.3)
        self.assertEqual(rows_where(self.db, f"request_id = {sql_literal(rid)}"), [])

    # Every write route of server/routes.c and the action its rows name
    # (docs/security.md, "Audit trail"); a new write route fails the test
    # until it is named here.
    WRITE_ROUTES = {
        ("POST", "/subjects/{subject}/versions"): "register",
        ("POST", "/subjects/{subject}/versions/{version}/tags"): "register",
        ("DELETE", "/subjects/{subject}"): "delete_subject",
        ("DELETE", "/subjects/{subject}/versions/{version}"): "delete_version",
        ("POST", "/subjects/{subject}/rollback"): "rollback",
        ("PUT", "/config"): "config_put",
        ("DELETE", "/config"): "config_delete",
        ("PUT", "/config/{subject}"): "config_put",
        ("DELETE", "/config/{subject}"): "config_delete",
        ("PUT", "/mode"): "mode_put",
        ("DELETE", "/mode"): "mode_delete",
        ("PUT", "/mode/{subject}"): "mode_put",
        ("DELETE", "/mode/{subject}"): "mode_delete",
        ("DELETE", "/contexts/{context}"): "context_delete",
        ("POST", "/associations"): "association_create",
        ("PUT", "/associations/resources/{resourceId}"): "association_update",
        ("DELETE", "/associations/resources/{resourceId}"): "association_delete",
        ("POST", "/associations:batchMutate"): "POST /associations:batchMutate",
    }

    def test_every_write_route_refused_401_and_403(self):
        """Each write route refused without credentials (401) and, where the route
        itself names the subject or scope, for a principal without the permission
        (403): one 'refused' row each, with the route's action."""
        from test_openapi import routes_c
        writes = {k for k, (perm, _) in routes_c().items()
                  if k[0] in ("POST", "PUT", "DELETE") and perm != "READ"}
        self.assertEqual(writes, set(self.WRITE_ROUTES))
        s = "secret-" + self.sub()
        for (method, pattern), action in sorted(self.WRITE_ROUTES.items()):
            path = (pattern.replace("{subject}", s).replace("{version}", "1")
                    .replace("{context}", ".audctx").replace("{resourceId}", "res-1"))
            want = {"action": action, "outcome": "refused",
                    "subject": s if "{subject}" in pattern else ".audctx" if "{context}" in pattern else None,
                    "version": 1 if "{version}" in pattern else None,
                    "permanent": False if method == "DELETE" and pattern.startswith("/subjects/") else None}
            body = {} if method != "DELETE" else None
            users = [None] + (["bob"] if routes_c()[(method, pattern)][1] != "FILTERED" else [])
            for user in users:
                with self.subTest(method=method, path=pattern, user=user):
                    r, rid = self.send_as(user, method, path, body)
                    status = 401 if user is None else 403
                    self.assertEqual((r.status, r.body["error_code"]), (status, status), r)
                    self.expect_row(rid, principal=user, status=status, error_code=status, **want)

    def test_tags_edit_is_a_registration(self):
        s = "orders-" + self.sub()
        r, _ = self.send_as("alice", "POST", f"/subjects/{quote(s)}/versions",
                            {"schema": avro_record("T", [("a", "int")])})
        self.assertEqual(r.status, 200, r)
        tags = {"tagsToAdd": [{"schemaEntity": {"entityPath": "T", "entityType": "sr_record"}, "tags": ["PII"]}]}
        r, rid = self.send_as("alice", "POST", f"/subjects/{quote(s)}/versions/1/tags", tags)
        self.assertEqual(r.status, 200, r)
        self.expect_row(rid, principal="alice", action="register", subject=s, version=2, schema_id=r.body["id"])
        r, rid = self.send_as("alice", "POST", f"/subjects/{quote(s)}/versions/7/tags", tags)
        self.assertEqual((r.status, r.body["error_code"]), (404, 40402), r)
        self.expect_row(rid, principal="alice", action="register", subject=s, version=7, outcome="refused",
                        status=404, error_code=40402)

    def test_get_audit_admin_only(self):
        s = "orders-" + self.sub()
        r, rid = self.send_as("alice", "POST", f"/subjects/{quote(s)}/versions",
                              {"schema": avro_record("O", [("a", "int")])})
        self.assertEqual(r.status, 200, r)
        got = self.as_user("root").get("/audit", params={"principal": "alice", "subject": s})
        self.assertEqual(got.status, 200, got)
        self.assertEqual([(g["requestId"], g["principal"], g["action"]) for g in got.body],
                         [(rid, "alice", "register")])
        for user in ("alice", "bob"):
            no = self.as_user(user).get("/audit")
            self.assertEqual((no.status, no.body["error_code"]), (403, 403), no)
        self.assertEqual(self.as_user(None).get("/audit").status, 401)


if __name__ == "__main__":
    harness.main()
