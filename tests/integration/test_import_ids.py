"""IMPORT mode: one content under several ids, and what entering IMPORT does
to soft-deleted versions (docs/api.md, "IMPORT").

Confluent's reference behaviour, from its source:
- KafkaSchemaRegistry.register accepts an explicit id for content already
  stored under another id; only an id already bound to other content is
  refused (AbstractSchemaRegistry.checkIfSchemaWithIdExist, 42205).
- InMemoryCache.addToSchemaHashToGuid maps the content to the id stored last,
  so registrations outside IMPORT in a subject that lacks the content get the
  id imported last; AbstractSchemaRegistry.lookUpSchemaUnderSubject answers
  that id when the subject has it, else the newest version of the subject
  with the same content.
- KafkaSchemaRegistry.setMode purges (hard-deletes) the soft-deleted versions
  of the scope on entering IMPORT only without force, and refuses (42206)
  when one of them is referenced; with force it deletes nothing.
"""

import json

import harness
from harness import avro_record, quote, sql_literal


def rec(n, name="Dep"):
    return avro_record(name, [(f"f{i}", "string", "") for i in range(n)])


def versions_sql(db, subject):
    return db.sql("SELECT version, schema_id, deleted FROM subject_versions WHERE "
                  f"subject = {sql_literal(subject)} ORDER BY version")


class ImportIds(harness.RegistryTestCase):

    def mode(self, subject, mode):
        self.assert_ok(self.put(f"/mode/{quote(subject)}", {"mode": mode}), {"mode": mode})

    def ids_of_content(self, schema_id):
        return [int(r[0]) for r in self.db.sql(
            "SELECT id FROM schemas WHERE (schema_type, identity_key) = (SELECT schema_type,"
            f" identity_key FROM schemas WHERE id = {schema_id}) ORDER BY id")]

    def assert_one_canonical_id_per_content(self):
        self.assertEqual(self.db.sql(
            "SELECT schema_type, identity_key FROM schemas GROUP BY 1, 2"
            " HAVING count(*) FILTER (WHERE canonical) <> 1"), [])

    def answer(self, subject, schema):
        body = self.assert_ok(self.lookup(subject, schema))
        return body["version"], body["id"]

    def test_same_content_under_two_ids_in_two_subjects(self):
        x = avro_record("TwinX", [("a", "int")])
        y = avro_record("TwinY", [("b", "int")])
        a, b, c, d = self.sub("a"), self.sub("b"), self.sub("c"), self.sub("d")
        for s in (a, b):
            self.mode(s, "IMPORT")
        # x: the higher id first, then the lower; y: the lower first.
        self.assert_ok(self.register(a, x, id=20020), {"id": 20020})
        self.assert_ok(self.register(b, x, id=20010), {"id": 20010})
        self.assert_ok(self.register(b, x, id=20010), {"id": 20010})     # idempotent
        self.assert_ok(self.register(a, y, id=20030), {"id": 20030})
        self.assert_ok(self.register(b, y, id=20040), {"id": 20040})
        self.assertEqual(self.ids_of_content(20020), [20010, 20020])
        self.assertEqual(self.ids_of_content(20030), [20030, 20040])
        self.assertEqual(versions_sql(self.db, a), [("1", "20020", "f"), ("2", "20030", "f")])
        self.assertEqual(versions_sql(self.db, b), [("1", "20010", "f"), ("2", "20040", "f")])
        self.assert_one_canonical_id_per_content()

        # An id bound to other content is still refused, and nothing changes.
        before = self.db.state()
        self.assert_error(self.register(b, rec(1), id=20020), 422, 42205)
        self.assert_error(self.register(a, y, id=20010), 422, 42205)
        self.assertEqual(self.db.state(), before)

        for s in (a, b):
            self.mode(s, "READWRITE")
        # New subjects get the id imported last (x: 20010, y: 20040), neither
        # always the lowest nor always the highest.
        self.assertEqual(self.register_ok(c, x), 20010)
        self.assertEqual(self.register_ok(d, y), 20040)

        def check():
            for schema_id, text in ((20010, x), (20020, x), (20030, y), (20040, y)):
                body = self.assert_ok(self.get(f"/schemas/ids/{schema_id}"))
                self.assertEqual(json.loads(body["schema"]), json.loads(text))
            self.assertEqual(self.answer(a, x), (1, 20020))
            self.assertEqual(self.answer(b, x), (1, 20010))
            self.assertEqual(self.answer(a, y), (2, 20030))
            self.assertEqual(self.answer(b, y), (2, 20040))
            self.assertEqual(self.answer(c, x), (1, 20010))
            self.assertEqual(self.answer(d, y), (1, 20040))
            # Registering what a subject has answers its own id.
            self.assertEqual(self.register_ok(a, x), 20020)
            self.assertEqual(self.register_ok(b, x), 20010)
            self.assertEqual(self.register_ok(a, y), 20030)
            self.assertEqual(self.register_ok(c, x), 20010)
            self.assert_ok(self.get("/schemas/ids/20020/versions"), [{"subject": a, "version": 1}])
            self.assert_ok(self.get("/schemas/ids/20010/versions"),
                           sorted([{"subject": b, "version": 1}, {"subject": c, "version": 1}],
                                  key=lambda u: u["subject"]))
            self.assertEqual(versions_sql(self.db, c), [("1", "20010", "f")])
            e = self.sub("e")
            self.assertEqual(self.register_ok(e, y), 20040)
            self.assertEqual(self.answer(e, y), (1, 20040))

        check()
        self.server.stop()
        self.server.start()                    # the index reloaded from the database
        check()
        self.assert_one_canonical_id_per_content()

    def test_same_content_under_two_ids_in_one_subject(self):
        z = avro_record("TwinZ", [("z", "string")])
        s = self.sub()
        self.mode(s, "IMPORT")
        self.assert_ok(self.register(s, z, id=20050, version=2), {"id": 20050})
        self.assert_ok(self.register(s, z, id=20060, version=1), {"id": 20060})
        self.assertEqual(versions_sql(self.db, s), [("1", "20060", "f"), ("2", "20050", "f")])
        # Re-importing either id answers its own version and adds none
        # (KafkaSchemaRegistry.register matches the id among live versions).
        for schema_id in (20050, 20060):
            with self.subTest(reimport=schema_id):
                self.assert_ok(self.register(s, z, id=schema_id), {"id": schema_id})
        self.assertEqual(versions_sql(self.db, s), [("1", "20060", "f"), ("2", "20050", "f")])
        self.mode(s, "READWRITE")

        def check():
            self.assert_ok(self.versions(s), [1, 2])
            self.assertEqual(self.assert_ok(self.version(s, 2))["id"], 20050)
            # The id imported last wins over the newer version (Confluent's
            # lookUpSchemaUnderSubject asks the content's id first).
            self.assertEqual(self.answer(s, z), (1, 20060))
            self.assertEqual(self.register_ok(s, z), 20060)
            self.assertEqual(self.register_ok(self.sub("other"), z), 20060)
        check()
        self.server.stop()
        self.server.start()
        check()
        self.assertEqual(versions_sql(self.db, s), [("1", "20060", "f"), ("2", "20050", "f")])
        self.assert_one_canonical_id_per_content()

    def test_import_does_not_overwrite_another_version(self):
        """An import naming a version the subject already has, with another id,
        would replace that version (and what refers to it) silently: refused."""
        s = self.sub()
        self.register_ok(s, rec(1))
        self.register_ok(s, rec(2))
        self.assert_ok(self.delete_version(s, 2))
        self.assert_ok(self.put(f"/mode/{quote(s)}", {"mode": "IMPORT"}, params={"force": "true"}))
        rows = versions_sql(self.db, s)
        before = self.db.state()
        for version in (1, 2):
            with self.subTest(version=version):
                self.assert_error(self.register(s, rec(3), id=20070, version=version), 422, 42205)
        self.assertEqual(self.db.state(), before)
        self.assertEqual(versions_sql(self.db, s), rows)
        # The same id at its own version is a re-import, not an overwrite.
        same = int(rows[1][1])
        self.assert_ok(self.register(s, rec(2), id=same, version=2), {"id": same})
        self.assert_ok(self.register(s, rec(3), id=20070, version=3), {"id": 20070})
        self.mode(s, "READWRITE")


class EnteringImport(harness.RegistryTestCase):
    """Subject scope. Each test uses its own subjects."""

    def setup_soft_deleted(self):
        """s: v1 soft-deleted and referenced by a soft-deleted version of r,
        v2 live, v3 soft-deleted; q: only soft-deleted, unreferenced."""
        s, r, q = self.sub("s"), self.sub("r"), self.sub("q")
        for n in (1, 2, 3):
            self.register_ok(s, rec(n))
        self.register_ok(r, avro_record("User", [("d", "Dep")]),
                         references=[{"name": "Dep", "subject": s, "version": 1}])
        self.register_ok(q, rec(1, "Q"))
        self.register_ok(q, rec(2, "Q"))
        self.assert_ok(self.delete_subject(r), [1])
        self.assert_ok(self.delete_version(s, 1))
        self.assert_ok(self.delete_version(s, 3))
        self.assert_ok(self.delete_subject(q), [1, 2])
        return s, r, q

    def test_forced_import_keeps_soft_deleted_versions(self):
        s, r, q = self.setup_soft_deleted()
        rows = {x: versions_sql(self.db, x) for x in (s, r, q)}
        self.assertEqual([v[2] for v in rows[s]], ["t", "f", "t"])
        # Live versions: IMPORT needs force.
        before = self.db.state()
        self.assert_error(self.put(f"/mode/{quote(s)}", {"mode": "IMPORT"}), 422, 42205)
        self.assertEqual(self.db.state(), before)
        for x in (s, q):
            with self.subTest(subject=x):
                self.assert_ok(self.put(f"/mode/{quote(x)}", {"mode": "IMPORT"},
                                        params={"force": "true"}), {"mode": "IMPORT"})
        for x in (s, r, q):
            self.assertEqual(versions_sql(self.db, x), rows[x])
        self.assertEqual(self.db.count("schema_references"), before["schema_references"])
        # Still readable as soft-deleted, and a soft-deleted version is still
        # restorable by its referrer's subject.
        self.assert_ok(self.versions(q, params={"deleted": "true"}), [1, 2])
        self.assert_ok(self.versions(s, params={"deleted": "true"}), [1, 2, 3])
        self.assert_ok(self.get(f"/subjects/{quote(s)}/versions/1/referencedby",
                                params={"deleted": "true"}))
        for x in (s, q):
            self.assert_ok(self.delete(f"/mode/{quote(x)}"))

    def test_unforced_import_purges_unreferenced_soft_deleted_versions(self):
        s, r, q = self.setup_soft_deleted()
        # q has no live version: entering IMPORT hard-deletes its soft-deleted ones.
        self.assert_ok(self.put(f"/mode/{quote(q)}", {"mode": "IMPORT"}), {"mode": "IMPORT"})
        self.assertEqual(versions_sql(self.db, q), [])
        self.assert_ok(self.delete(f"/mode/{quote(q)}"))
        # s without live versions, but v1 is referenced: 42206 and nothing goes.
        self.assert_ok(self.delete_version(s, 2))
        rows = versions_sql(self.db, s)
        before = self.db.state()
        self.assert_error(self.put(f"/mode/{quote(s)}", {"mode": "IMPORT"}), 422, 42206)
        self.assertEqual(self.db.state(), before)
        self.assertEqual(versions_sql(self.db, s), rows)


class GlobalForcedImport(harness.RegistryTestCase):

    def test_forced_global_import_keeps_soft_deleted_versions(self):
        s, r, q = EnteringImport.setup_soft_deleted(self)
        rows = self.db.sql("SELECT subject, version, schema_id, deleted FROM subject_versions"
                           " ORDER BY subject, version")
        before = self.db.state()
        self.assert_error(self.put("/mode", {"mode": "IMPORT"}), 422, 42205)
        self.assertEqual(self.db.state(), before)
        self.assert_ok(self.put("/mode", {"mode": "IMPORT"}, params={"force": "true"}),
                       {"mode": "IMPORT"})
        self.assertEqual(self.db.sql("SELECT subject, version, schema_id, deleted FROM"
                                     " subject_versions ORDER BY subject, version"), rows)
        self.assert_ok(self.versions(q, params={"deleted": "true"}), [1, 2])
        self.assert_ok(self.delete("/mode"))


if __name__ == "__main__":
    harness.main()
