"""schema-registry import --from-url (docs/operations.md, "Export and import",
"From a running registry").

The source is a real registry (our binary on its own database, HTTP Basic
on), populated as test_export_import's source is: contexts, soft- and
hard-deleted versions, references, Avro, Protobuf and JSON Schema, metadata,
config and mode at the global, context and subject levels.

- Imported by URL into an empty database, the target exports what the
  source exports (the hard-deleted version's orphaned content aside: REST
  cannot show it), and the REST API answers the same (rest_view: contexts,
  subjects, versions with deleted=true, ids, GUIDs, config and mode at every
  level).
- A second run changes nothing: rows and the changes table stay.
- Wrong or missing credentials: exit 1, the 401 said, nothing written.
- An id the target binds to other content is refused, the rest arrives.
"""

import base64
import json
import os
import pty
import subprocess

import harness
import test_export_import as tei
from test_auth_basic import make_users

USER, SECRET = "migrator", "s3cret:with colon"


def run(*args):
    return tei.run(*args)


class ImportFromUrl(harness.RegistryTestCase):
    """The class's server is the source registry, with Basic auth."""

    @classmethod
    def setUpClass(cls):
        cls.dir = harness.make_temp_dir("import-url")
        users = make_users(cls.dir, {USER: SECRET})
        cls.pg = harness.cluster()
        cls.db = cls.pg.new_database()
        cls.server = harness.Server(database_url=cls.db.url, name="import-url-source",
                                    args=("--auth-basic-users-file", users))
        cls.server.start()
        tei.ExportImport.populate(cls.authed(cls.server))

    @staticmethod
    def authed(server, user=USER, secret=SECRET):
        token = base64.b64encode(f"{user}:{secret}".encode()).decode()
        return harness.Client("127.0.0.1", server.port, headers={"Authorization": f"Basic {token}"})

    def target(self):
        db = self.pg.new_database()
        r = run("migrate", db.url)
        self.assertEqual(r.returncode, 0, r.stderr)
        return db

    def from_url(self, db, *extra):
        return run("import", db.url, "--from-url", self.server.base_url, *extra)

    @staticmethod
    def comparable(dump):
        """An export without the schema rows no version uses: the source keeps
        the content of its hard-deleted version (tmp 1), which no REST call
        shows, so the target cannot have it."""
        lines = [json.loads(l) for l in dump.decode().splitlines()]
        used = {(tei_ctx(l["subject"]), l["id"]) for l in lines if l["kind"] == "version"}
        return [l for l in lines if l["kind"] != "schema" or (l["context"], l["id"]) in used]

    def test_import_by_url_reproduces_the_source_and_second_run_changes_nothing(self):
        target = self.target()
        r = self.from_url(target, "--basic-auth", f"{USER}:{SECRET}")
        self.assertEqual(r.returncode, 0, r.stderr.decode())
        source_dump = tei.export(self.db)
        n = sum(1 for l in self.comparable(source_dump) if l["kind"] == "version")
        self.assertIn(f"records read ({self.server.base_url}): {n} created, 0 already present, ".encode(),
                      r.stderr)
        self.assertIn(b" 0 refused", r.stderr)
        self.assertNotIn(b"\r", r.stderr)            # no counter, no bar when stderr is no TTY
        source = self.comparable(source_dump)
        self.assertEqual(self.comparable(tei.export(target)), source)
        # The soft-deleted versions came flagged; the hard-deleted one is absent.
        versions = {(l["subject"], l["version"]): l for l in source if l["kind"] == "version"}
        self.assertTrue(versions[("orders", 3)]["deleted"])
        self.assertTrue(versions[("gone", 1)]["deleted"])
        self.assertNotIn(("tmp", 1), versions)
        self.assertIn({"kind": "mode", "subject": None, "mode": "READONLY_OVERRIDE"}, source)

        server = harness.Server(database_url=target.url, name="import-url-target").start()
        try:
            self.assertEqual(tei.ExportImport.rest_view(server.client()),
                             tei.ExportImport.rest_view(self.authed(self.server)))
        finally:
            server.stop()

        before = target.state()
        feed = target.sql("SELECT seq, scope FROM changes ORDER BY seq")
        again = self.from_url(target, "--basic-auth", f"{USER}:{SECRET}")
        self.assertEqual(again.returncode, 0, again.stderr.decode())
        self.assertIn(f"0 created, {n} already present, 0 deleted, 0 config, 0 mode, 0 refused".encode(),
                      again.stderr)
        self.assertIn(b"nothing to change", again.stderr)
        self.assertEqual(target.state(), before)
        self.assertEqual(target.sql("SELECT seq, scope FROM changes ORDER BY seq"), feed)

    def test_progress_on_a_terminal(self):
        """stderr a TTY: the walk counts its records, then the write's bar, then the summary."""
        target = self.target()
        master, slave = pty.openpty()
        proc = subprocess.Popen([harness.server_binary(), "import", "--from-url", self.server.base_url,
                                 "--basic-auth", f"{USER}:{SECRET}", "--database-url", target.url],
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
        self.assertRegex(out, rb"\rfetch 1 records\rfetch 2 records")
        self.assertRegex(out, rb"\rfetch \d+ records\r?\n")
        self.assertIn(b"\rimport [########################################]", out)
        self.assertIn(b" 0 refused", out)

    def test_wrong_or_missing_credentials_write_nothing(self):
        target = self.target()
        before = target.state()
        for creds in (("--basic-auth", f"{USER}:wrong"), ()):
            r = self.from_url(target, *creds)
            self.assertEqual(r.returncode, 1, r.stderr.decode())
            err = r.stderr.decode()
            self.assertIn(f"\nschema-registry import: {self.server.base_url}/contexts: HTTP 401: Unauthorized "
                          "(wrong or missing --basic-auth credentials); nothing was imported\n", "\n" + err)
            self.assertEqual(target.state(), before)

    def test_client_flags_need_from_url(self):
        target = self.target()
        r = run("import", target.url, "--basic-auth", "a:b")
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"--basic-auth, --ca, --cert and --key go with --from-url", r.stderr)
        r = run("import", target.url, "--from-url", self.server.base_url, "--delimiter", "|")
        self.assertEqual(r.returncode, 2)
        self.assertIn(b"--from-url reads no file and takes no --delimiter", r.stderr)

    def test_id_bound_to_other_content_is_refused(self):
        lines = [json.loads(l) for l in tei.export(self.db).decode().splitlines()]
        orders1 = next(l for l in lines if l["kind"] == "version" and l["subject"] == "orders"
                       and l["version"] == 1)
        target = self.target()
        server = harness.Server(database_url=target.url, name="import-url-conflict").start()
        try:
            other = harness.avro_record("Other", [("o", "int")])
            r = server.client().post("/subjects/other/versions", {"schema": other})
            self.assertEqual(r.body, {"id": orders1["id"]})     # the same id, other content
        finally:
            server.stop()
        r = self.from_url(target, "--basic-auth", f"{USER}:{SECRET}")
        self.assertEqual(r.returncode, 1, r.stderr.decode())
        self.assertIn(f"refused subject orders version 1 (id {orders1['id']}): ".encode(), r.stderr)
        self.assertIn(b" 1 refused", r.stderr)
        self.assertEqual(target.sql("SELECT version FROM subject_versions WHERE subject = 'orders' ORDER BY 1"),
                         [("2",), ("3",)])
        self.assertEqual(target.sql(f"SELECT schema_text FROM schemas WHERE context = '.' AND id = "
                                    f"{orders1['id']}"), [(json.dumps(json.loads(other), separators=(",", ":")),)])
        # Again: the refusal is repeated and no data row changes. (Unlike an
        # export's, a REST source's text need not be ours byte for byte, so
        # the registration in IMPORT mode decides, as for a _schemas dump:
        # the switch to IMPORT and back adds change-feed rows.)
        before = target.state()
        again = self.from_url(target, "--basic-auth", f"{USER}:{SECRET}")
        self.assertEqual(again.returncode, 1)
        self.assertIn(b"0 created", again.stderr)
        after = target.state()
        del before["changes.max_seq"], after["changes.max_seq"]
        self.assertEqual(after, before)


class ImportFromUrlTls(harness.RegistryTestCase):
    """A source over TLS: --ca verifies it; without it the certificate is refused."""

    @classmethod
    def setUpClass(cls):
        cls.dir = harness.make_temp_dir("import-url-tls")
        cls.cert = harness.make_self_signed_cert(cls.dir)
        cls.pg = harness.cluster()
        cls.db = cls.pg.new_database()
        cls.server = harness.Server(database_url=cls.db.url, name="import-url-tls", tls=cls.cert).start()

    def test_https_source_with_ca(self):
        r = self.http.post("/subjects/t/versions", {"schema": '"string"'})
        self.assertEqual(r.status, 200, r)
        target = self.pg.new_database()
        self.assertEqual(run("migrate", target.url).returncode, 0)
        before = target.state()
        untrusted = run("import", target.url, "--from-url", self.server.base_url)
        self.assertEqual(untrusted.returncode, 1)
        self.assertIn(b"SSL", untrusted.stderr)
        self.assertIn(b"; nothing was imported", untrusted.stderr)
        self.assertEqual(target.state(), before)
        ok = run("import", target.url, "--from-url", self.server.base_url, "--ca", self.cert[0])
        self.assertEqual(ok.returncode, 0, ok.stderr.decode())
        self.assertIn(b": 1 created, 0 already present, 0 deleted, 0 config, 0 mode, 0 refused", ok.stderr)
        self.assertEqual(target.sql("SELECT subject, version, deleted FROM subject_versions"), [("t", "1", "f")])


def tei_ctx(subject):
    """The context of a qualified subject name (":.ctx:name" -> ".ctx")."""
    if subject.startswith(":.") and ":" in subject[2:]:
        return subject[1:subject.index(":", 2)]
    return "."


if __name__ == "__main__":
    harness.main()
