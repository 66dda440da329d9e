"""schema-registry export and import (docs/operations.md, "Export and import").

- An export of a populated registry (contexts, soft- and hard-deleted
  versions, references, Avro, Protobuf and JSON Schema, metadata, config and
  mode at every level) imported into an empty database exports again
  byte-identical, and the REST API answers the same ids, versions and GUIDs.
- A second import changes nothing: row counts and the changes table stay.
- A record whose id is bound to other content in the target is refused:
  non-zero exit, nothing of it written; the rest is imported.
- A dump of Confluent's _schemas topic, written by hand from its record
  formats (SchemaKey/SchemaValue, ConfigKey/ConfigValue, ModeKey/ModeValue,
  DeleteSubjectKey/DeleteSubjectValue, ClearSubjectKey, NoopKey, tombstones;
  applied as KafkaStoreMessageHandler.handleUpdate does) imports to exactly
  the expected REST answers.
- An import interrupted by SIGINT at a known record (held by an advisory
  lock) finishes that record, writes nothing after it and leaves no scope in
  IMPORT; a rerun writes exactly the rest, a third nothing.
"""

import json
import os
import pty
import signal
import subprocess
import time
import unittest

import harness
from harness import avro_record, quote

BASE = avro_record("Base", [("b", "string")])
REFERRER = json.dumps({"type": "record", "name": "Holder", "fields": [{"name": "base", "type": "Base"}]})
PROTO = 'syntax = "proto3";\npackage t;\nmessage Item {\n  string name = 1;\n  int32 count = 2;\n}\n'
JSONS = json.dumps({"type": "object", "properties": {"a": {"type": "string"}}})


def run(command, database_url, *args, input=None):
    where = ["--database-url", database_url] if database_url else []
    return subprocess.run([harness.server_binary(), command, *where, *args],
                          input=input, capture_output=True, timeout=120)


def export(db):
    r = run("export", db.url)
    assert r.returncode == 0, r.stderr.decode()
    return r.stdout


class ExportImport(harness.RegistryTestCase):
    """The class's server is the source registry."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.populate(cls.server.client())

    @classmethod
    def populate(cls, http):
        def ok(r):
            assert r.status == 200, r
            return r.body

        def reg(subject, schema, **extra):
            return ok(http.post(f"/subjects/{quote(subject)}/versions", {"schema": schema, **extra}))

        reg("orders", avro_record("Order", [("a", "int")]))
        reg("orders", avro_record("Order", [("a", "int"), ("b", "string", "")]),
            metadata={"properties": {"owner": "team-a"}, "tags": {"a": ["PII"]}})
        reg("orders", avro_record("Order", [("a", "int"), ("b", "string", ""), ("c", "string", "")]))
        ok(http.delete("/subjects/orders/versions/3"))                       # soft-deleted
        reg("tmp", avro_record("Tmp", [("t", "int")]))
        reg("tmp", avro_record("Tmp", [("t", "int"), ("u", "int", 0)]))
        ok(http.delete("/subjects/tmp/versions/1"))
        ok(http.delete("/subjects/tmp/versions/1", params={"permanent": "true"}))  # hard-deleted
        reg("base", BASE)
        reg("holder", REFERRER, references=[{"name": "Base", "subject": "base", "version": 1}])
        # A referrer sorting before its target: the import registers it in a later pass.
        reg("zz-base", BASE)
        reg("a-holder", REFERRER, references=[{"name": "Base", "subject": "zz-base", "version": 1}])
        reg("proto", PROTO, schemaType="PROTOBUF")
        reg("json", JSONS, schemaType="JSON")
        reg("gone", avro_record("Gone", [("g", "int")]))
        ok(http.delete("/subjects/gone"))                                    # a whole subject soft-deleted
        reg(":.ctx1:alpha", avro_record("Alpha", [("x", "int")]))
        reg(":.ctx1:alpha", avro_record("Alpha", [("x", "int"), ("y", "int", 1)]))
        reg(":.ctx2:beta", JSONS, schemaType="JSON")
        reg(":.ctx2:base2", BASE)
        reg(":.ctx2:holder2", REFERRER, references=[{"name": "Base", "subject": "base2", "version": 1}])
        ok(http.put("/config/orders", {"compatibility": "NONE", "normalize": True}))
        ok(http.put("/config/:.ctx1:", {"compatibility": "FORWARD"}))
        ok(http.put("/config", {"compatibility": "FULL",
                                "defaultMetadata": {"properties": {"team": "core"}}}))
        ok(http.put("/mode/json", {"mode": "READONLY"}))
        ok(http.put("/mode/:.ctx2:", {"mode": "READONLY"}))
        ok(http.put("/mode", {"mode": "READONLY_OVERRIDE"}))

    # -- REST snapshot of everything the export covers --

    @staticmethod
    def rest_view(http):
        def get(path, **params):
            r = http.get(path, params=params or None)
            return r.status, r.body

        view = {"contexts": get("/contexts"), "config": get("/config"), "mode": get("/mode")}
        subjects = set()
        for ctx in get("/contexts")[1]:
            prefix = "" if ctx == "." else f":{ctx}:"
            status, names = get("/subjects", deleted="true", subjectPrefix=prefix)
            assert status == 200, names
            subjects.update(names)
        for s in sorted(subjects):
            q = quote(s)
            versions = get(f"/subjects/{q}/versions", deleted="true")
            view[s] = {"versions": versions, "live": get(f"/subjects/{q}/versions"),
                       "config": get(f"/config/{q}"), "mode": get(f"/mode/{q}")}
            for v in versions[1]:
                body = get(f"/subjects/{q}/versions/{v}", deleted="true")
                view[s][v] = body
                sid = body[1]["id"]
                view[s][f"id{sid}"] = get(f"/schemas/ids/{sid}", subject=s)
                extended = http.get(f"/subjects/{q}/versions/{v}", params={"deleted": "true"},
                                    headers={"Confluent-Accept-Unknown-Properties": "true"})
                view[s][f"guid{v}"] = (extended.status, extended.body.get("guid"))
        for ctx in (":.ctx1:", ":.ctx2:"):
            view[ctx] = {"config": get(f"/config/{quote(ctx)}"), "mode": get(f"/mode/{quote(ctx)}")}
        return view

    def target(self):
        db = self.pg.new_database()
        r = run("migrate", db.url)
        self.assertEqual(r.returncode, 0, r.stderr)
        return db

    def test_roundtrip_is_byte_identical_and_second_import_changes_nothing(self):
        dump = export(self.db)
        self.assertEqual(export(self.db), dump)          # deterministic
        lines = [json.loads(l) for l in dump.decode().splitlines()]
        self.assertEqual(lines[0], {"kind": "header", "format": "schema-registry-export", "version": 1})
        kinds = [l["kind"] for l in lines]
        self.assertEqual(kinds, sorted(kinds, key=["header", "context", "schema", "version", "config",
                                                   "mode"].index))
        versions = {(l["subject"], l["version"]): l for l in lines if l["kind"] == "version"}
        self.assertTrue(versions[("orders", 3)]["deleted"])
        self.assertNotIn(("tmp", 1), versions)           # hard-deleted: gone
        self.assertIn({"kind": "context", "context": ".ctx1"}, lines)
        holder = next(l for l in lines if l["kind"] == "schema" and l["id"] == versions[("holder", 1)]["id"]
                      and l["context"] == ".")
        self.assertEqual(holder["references"], [{"name": "Base", "subject": "base", "version": 1}])
        self.assertEqual({l["schemaType"] for l in lines if l["kind"] == "schema"},
                         {"AVRO", "PROTOBUF", "JSON"})
        self.assertIn({"kind": "mode", "subject": None, "mode": "READONLY_OVERRIDE"}, lines)

        target = self.target()
        server = harness.Server(database_url=target.url, name="target").start()
        try:
            r = run("import", target.url, input=dump)
            self.assertEqual(r.returncode, 0, r.stderr.decode())
            self.assertNotIn(b"\r", r.stderr)            # no progress bar when stderr is no TTY
            n = sum(1 for k in kinds if k == "version")
            self.assertIn(f"{n} created, 0 already present, ".encode(), r.stderr)
            self.assertIn(b" 0 refused", r.stderr)
            self.assertEqual(export(target), dump)

            # The running server on the target sees it all through the change feed.
            want = self.rest_view(self.http)
            deadline = time.monotonic() + 15
            while self.rest_view(server.client()) != want and time.monotonic() < deadline:
                time.sleep(0.3)
            self.assertEqual(self.rest_view(server.client()), want)
            restarted = harness.Server(database_url=target.url, name="target2").start()
            try:
                self.assertEqual(self.rest_view(restarted.client()), want)
            finally:
                restarted.stop()

            before = target.state()
            feed = target.sql("SELECT seq, scope FROM changes ORDER BY seq")
            again = run("import", target.url, input=dump)
            self.assertEqual(again.returncode, 0, again.stderr.decode())
            self.assertIn(f"0 created, {n} already present, 0 deleted, 0 config, 0 mode, 0 refused".encode(),
                          again.stderr)
            self.assertIn(b"nothing to change", again.stderr)
            self.assertEqual(target.state(), before)
            self.assertEqual(target.sql("SELECT seq, scope FROM changes ORDER BY seq"), feed)
        finally:
            server.stop()

    def test_id_bound_to_other_content_is_refused(self):
        dump = export(self.db)
        lines = [json.loads(l) for l in dump.decode().splitlines()]
        orders1 = next(l for l in lines if l["kind"] == "version" and l["subject"] == "orders"
                       and l["version"] == 1)
        target = self.target()
        server = harness.Server(database_url=target.url, name="conflict").start()
        try:
            http = server.client()
            other = avro_record("Other", [("o", "int")])
            r = http.post("/subjects/other/versions", {"schema": other})
            self.assertEqual(r.body, {"id": orders1["id"]})     # the same id, other content
        finally:
            server.stop()
        r = run("import", target.url, input=dump)
        self.assertEqual(r.returncode, 1, r.stderr.decode())
        self.assertIn(f"refused subject orders version 1 (id {orders1['id']}): Overwrite new schema with id "
                      f"{orders1['id']} in context . is not permitted.".encode(), r.stderr)
        self.assertIn(b" 1 refused", r.stderr)
        self.assertEqual(target.sql("SELECT version FROM subject_versions WHERE subject = 'orders' ORDER BY 1"),
                         [("2",), ("3",)])
        self.assertEqual(target.sql(f"SELECT schema_text FROM schemas WHERE context = '.' AND id = "
                                    f"{orders1['id']}"), [(json.dumps(json.loads(other), separators=(",", ":")),)])
        # Everything else arrived; the refusal is repeated, nothing else is written again.
        before = target.state()
        again = run("import", target.url, input=dump)
        self.assertEqual(again.returncode, 1)
        self.assertIn(b"0 created", again.stderr)
        self.assertEqual(target.state(), before)

    def test_progress_bar_on_a_terminal(self):
        """stderr a TTY: the bar is drawn (carriage returns), then the summary."""
        target = self.target()
        path = os.path.join(harness.make_temp_dir("export"), "dump.jsonl")
        r = run("export", self.db.url, "--output", path)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(path, "rb") as f:
            self.assertEqual(f.read(), export(self.db))
        self.assertFalse(os.path.exists(path + ".partial"))
        master, slave = pty.openpty()
        proc = subprocess.Popen([harness.server_binary(), "import", path, "--database-url", target.url],
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=slave)
        os.close(slave)
        out = b""
        while True:
            try:
                chunk = os.read(master, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        os.close(master)
        self.assertEqual(proc.wait(timeout=60), 0, out)
        self.assertRegex(out, rb"\rimport \[#+ *\] \d+/\d+")
        self.assertIn(b"\rimport [########################################]", out)
        self.assertIn(b" 0 refused", out)

    def test_bad_input_writes_nothing(self):
        target = self.target()
        before = target.state()
        bad = b'{"kind":"header","format":"schema-registry-export","version":1}\n{"kind":"version"}\n'
        r = run("import", target.url, input=bad)
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"stdin:2: a version record needs", r.stderr)
        self.assertEqual(target.state(), before)
        r = run("import", target.url, input=b'{"keytype":"SCHEMA","subject":"s","version":1,"magic":1}|{}\n')
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"no delimiter after the key", r.stderr)
        self.assertEqual(target.state(), before)


class EmbeddedInUse(unittest.TestCase):
    """export/import on the data directory of a running embedded server: a
    clear error and nothing touched (pg_embedded's lock), then, with the
    server stopped, the same command works."""

    def test_running_server_holds_the_data_dir(self):
        data_dir = os.path.join(harness.make_temp_dir("embedded"), "var")
        harness.at_exit(lambda: [os.kill(p, signal.SIGQUIT) for p in harness.pgrep(data_dir)])
        server = harness.Server(data_dir=data_dir, name="embedded").start()
        try:
            r = server.client().post("/subjects/e/versions", {"schema": '"int"'})
            self.assertEqual(r.status, 200, r)
            for command in ("export", "import"):
                res = run(command, None, "--data-dir", data_dir, input=b"")
                self.assertEqual(res.returncode, 1, res.stderr)
                self.assertIn(b"is in use by another schema-registry process", res.stderr)
                self.assertIn(f"schema-registry {command}: the embedded database under {data_dir}".encode(),
                              res.stderr)
            self.assertEqual(server.client().get("/subjects").body, ["e"])
        finally:
            server.stop()
        res = run("export", None, "--data-dir", data_dir)
        self.assertEqual(res.returncode, 0, res.stderr)
        self.assertIn(b'"kind":"version","subject":"e","version":1', res.stdout)


def key(keytype, subject=None, **extra):
    k = {"keytype": keytype}
    if subject is not None or keytype in ("CONFIG", "MODE"):
        k["subject"] = subject
    k.update(extra)
    k["magic"] = 1 if keytype == "SCHEMA" else 0
    return json.dumps(k)


def schema_value(subject, version, sid, schema, deleted=False, **extra):
    return json.dumps({"subject": subject, "version": version, "id": sid, "schema": schema,
                       "deleted": deleted, **extra})


class ConfluentDump(harness.RegistryTestCase):
    """A handwritten _schemas dump, as `kcat -C -t _schemas -K '\\t'` prints it."""

    def wait_for(self, path, want):
        deadline = time.monotonic() + 15
        while self.get(path).body != want and time.monotonic() < deadline:
            time.sleep(0.2)
        self.assertEqual(self.get(path).body, want)

    def test_dump_imports_to_the_expected_answers(self):
        s1v1 = '"string"'
        s1v2 = avro_record("S1", [("a", "int")])
        proto = 'syntax = "proto3";\npackage p;\n\nmessage M {\n  string s = 1;\n}\n'
        records = [
            (key("NOOP"), ""),
            (key("SCHEMA", "s1", version=1), schema_value("s1", 1, 1, s1v1)),
            (key("SCHEMA", "s1", version=2), schema_value("s1", 2, 2, s1v2)),
            (key("CONFIG", "s1"), json.dumps({"subject": "s1", "compatibilityLevel": "NONE"})),
            (key("CONFIG", None), json.dumps({"compatibilityLevel": "FULL_TRANSITIVE"})),
            (key("SCHEMA", "base", version=1), schema_value("base", 1, 3, BASE, schemaType="AVRO")),
            (key("SCHEMA", "ref", version=1),
             schema_value("ref", 1, 4, REFERRER, references=[{"name": "Base", "subject": "base", "version": 1}])),
            (key("DELETE_SUBJECT", "s1"), json.dumps({"subject": "s1", "version": 2})),
            (key("SCHEMA", "gone", version=1), schema_value("gone", 1, 5, avro_record("Gone", [("g", "int")]))),
            (key("SCHEMA", "gone", version=1), ""),                       # hard delete (tombstone)
            (key("MODE", "ref"), json.dumps({"subject": "ref", "mode": "READONLY"})),
            (key("MODE", "s1"), json.dumps({"subject": "s1", "mode": "READONLY"})),
            (key("MODE", "s1"), "NULL"),                                 # kcat -Z's tombstone
            (key("CONFIG", "base"), json.dumps({"subject": "base", "compatibilityLevel": "FORWARD"})),
            (key("CONFIG", "base"), ""),
            (key("SCHEMA", ":.c1:j", version=1), schema_value(":.c1:j", 1, 1, JSONS, schemaType="JSON")),
            (key("CONTEXT", tenant="default", context=".c1"), json.dumps({"tenant": "default", "context": ".c1"})),
            (key("SCHEMA", "p", version=1),
             schema_value("p", 1, 6, proto, schemaType="PROTOBUF",
                          metadata={"properties": {"owner": "x"}})),
            (key("SCHEMA", "cs", version=1), schema_value("cs", 1, 7, avro_record("Cs", [("c", "int")]))),
            (key("SCHEMA", "cs", version=2),
             schema_value("cs", 2, 8, avro_record("Cs", [("c", "int"), ("d", "int", 0)]), deleted=True)),
            (key("CLEAR_SUBJECT", "cs"), json.dumps({"subject": "cs"})),
        ]
        dump = "".join(f"{k}\t{v}\n" for k, v in records).encode()
        r = run("import", self.db.url, input=dump)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        self.assertIn(b"(a _schemas dump): 7 created, 0 already present, 2 deleted, 2 config, 1 mode, 0 refused",
                      r.stderr)

        def body(path, **params):
            deadline = time.monotonic() + 10
            while True:
                resp = self.get(path, params=params or None)
                if resp.status != 404 or time.monotonic() > deadline:
                    return resp.status, resp.body
                time.sleep(0.2)

        # The class's server learns of the import through the change feed.
        self.wait_for("/subjects", [":.c1:j", "base", "cs", "p", "ref"])
        self.assertEqual(body("/subjects"), (200, [":.c1:j", "base", "cs", "p", "ref"]))
        self.assertEqual(body("/subjects/s1/versions", deleted="true"), (200, [1, 2]))
        self.assertEqual(self.get("/subjects/s1/versions").body["error_code"], 40401)
        self.assertEqual(body("/subjects/s1/versions/1", deleted="true")[1],
                         {"subject": "s1", "version": 1, "id": 1, "schema": s1v1})
        self.assertEqual(body("/subjects/ref/versions/1")[1],
                         {"subject": "ref", "version": 1, "id": 4, "schema": REFERRER.replace(" ", ""),
                          "references": [{"name": "Base", "subject": "base", "version": 1}]})
        self.assertEqual(body("/subjects/cs/versions", deleted="true"), (200, [1]))
        self.assertEqual(self.get("/subjects/gone/versions", params={"deleted": "true"}).body["error_code"],
                         40401)
        self.assertEqual(self.get("/schemas/ids/5").body["error_code"], 40403)
        p = body("/subjects/p/versions/1")[1]
        self.assertEqual((p["id"], p["schemaType"], p["metadata"]),
                         (6, "PROTOBUF", {"properties": {"owner": "x"}}))
        self.assertEqual(body("/schemas/ids/1", subject=":.c1:j")[1], {"schemaType": "JSON", "schema": JSONS.replace(" ", "")})
        self.assertEqual(body("/config/s1"), (200, {"compatibilityLevel": "NONE"}))
        self.assertEqual(body("/config"), (200, {"compatibilityLevel": "FULL_TRANSITIVE"}))
        self.assertEqual(self.get("/config/base").body["error_code"], 40408)
        self.assertEqual(body("/mode/ref"), (200, {"mode": "READONLY"}))
        self.assertEqual(self.get("/mode/s1").body["error_code"], 40409)
        self.assertEqual(body("/mode"), (200, {"mode": "READWRITE"}))
        self.assertEqual(self.db.count("modes"), 1)      # IMPORT was left nowhere

        before = self.db.state()
        again = run("import", self.db.url, input=dump)
        self.assertEqual(again.returncode, 0, again.stderr.decode())
        self.assertIn(b"nothing to change", again.stderr)
        self.assertEqual(self.db.state(), before)

    def test_interrupted_run_is_resumed_and_leaves_no_import_mode(self):
        """Ctrl-C in the middle: the record being written finishes, nothing after it
        is, the scopes the run switched to IMPORT get their modes back, and a rerun
        writes exactly the rest. The run is held at a known record (a trigger that
        waits for an advisory lock this test holds), so nothing depends on timing."""
        target = self.pg.new_database()
        self.assertEqual(run("migrate", target.url).returncode, 0)
        records = [(key("SCHEMA", s, version=1), schema_value(s, 1, i + 1, avro_record(s.upper(), [("f", "int")])))
                   for i, s in enumerate(("a", "b", "c"))]
        dump = "".join(f"{k}\t{v}\n" for k, v in records).encode()
        target.sql("CREATE FUNCTION hold_b() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
                   "PERFORM pg_advisory_xact_lock(1515); RETURN NEW; END $$; "
                   "CREATE TRIGGER hold_b BEFORE INSERT ON subject_versions FOR EACH ROW "
                   "WHEN (NEW.subject = 'b') EXECUTE FUNCTION hold_b()")
        holder = subprocess.Popen(
            [self.pg._bin("psql"), "-X", "-q", "-h", "127.0.0.1", "-p", str(self.pg.port), "-U", "postgres",
             "-d", target.name], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        holder.stdin.write(b"SELECT pg_advisory_lock(1515);\n")
        holder.stdin.flush()
        self.addCleanup(lambda: holder.poll() is None and holder.kill())
        waiting = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND objid = 1515 AND "

        def wait_for(query):
            deadline = time.monotonic() + 30
            while target.value(query) != "1" and time.monotonic() < deadline:
                time.sleep(0.1)
            self.assertEqual(target.value(query), "1", query)

        wait_for(waiting + "granted")
        proc = subprocess.Popen([harness.server_binary(), "import", "--database-url", target.url],
                                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        proc.stdin.write(dump)
        proc.stdin.close()
        wait_for(waiting + "NOT granted")                 # the run is writing b
        proc.send_signal(signal.SIGINT)
        holder.stdin.write(b"SELECT pg_advisory_unlock(1515);\n")    # b's insert goes on
        holder.stdin.close()
        self.assertEqual(holder.wait(timeout=60), 0)
        err = proc.stderr.read()
        self.assertEqual(proc.wait(timeout=60), 1, err.decode())
        self.assertIn(b"schema-registry import: interrupted; run it again to go on", err)
        self.assertIn(b"3 records read (a _schemas dump): 2 created, 0 already present", err)
        self.assertEqual(target.sql("SELECT subject FROM subject_versions ORDER BY 1"), [("a",), ("b",)])
        self.assertEqual(target.count("modes"), 0)      # IMPORT was left nowhere

        target.sql("DROP TRIGGER hold_b ON subject_versions")
        again = run("import", target.url, input=dump)
        self.assertEqual(again.returncode, 0, again.stderr.decode())
        self.assertIn(b"1 created, 2 already present, 0 deleted, 0 config, 0 mode, 0 refused", again.stderr)
        self.assertEqual(target.sql("SELECT subject, version, schema_id FROM subject_versions ORDER BY 1"),
                         [("a", "1", "1"), ("b", "1", "2"), ("c", "1", "3")])
        self.assertEqual(target.count("modes"), 0)
        before = target.state()
        third = run("import", target.url, input=dump)
        self.assertIn(b"nothing to change", third.stderr)
        self.assertEqual(target.state(), before)

    def test_other_delimiter(self):
        dump = (key("SCHEMA", "d", version=1) + " | " + schema_value("d", 1, 40, '"int"') + "\n").encode()
        r = run("import", self.db.url, "--delimiter", " | ", input=dump)
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        self.wait_for("/subjects/d/versions", [1])
        self.assertEqual(self.get("/subjects/d/versions/1").body["id"], 40)


if __name__ == "__main__":
    harness.main()
