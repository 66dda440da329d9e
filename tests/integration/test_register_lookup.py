"""Registration and lookup (docs/api.md)."""

import json

import harness
from harness import avro_record, quote, sql_literal

# Mutually compatible under every level: each field has a default.
def rec(n, name="Rec"):
    return avro_record(name, [(f"f{i}", "string", "") for i in range(n)])


PROTO = 'syntax = "proto3";\npackage itest;\n\nmessage Ping {\n  string text = 1;\n  int64 at = 2;\n}\n'
JSON_SCHEMA = json.dumps({"type": "object", "properties": {"a": {"type": "string"}}})


class Register(harness.RegistryTestCase):

    def rows(self, subject):
        return self.db.sql("SELECT version, schema_id, deleted FROM subject_versions "
                           f"WHERE subject = {sql_literal(subject)} ORDER BY version")

    def test_register_returns_only_the_id(self):
        s = self.sub()
        r = self.register(s, rec(1))
        self.assertEqual(r.status, 200, r)
        self.assertEqual(set(r.body), {"id"})
        self.assertIsInstance(r.body["id"], int)
        self.assertGreater(r.body["id"], 0)
        self.assertEqual(self.rows(s), [("1", str(r.body["id"]), "f")])
        self.assertEqual(self.db.value(f"SELECT schema_type FROM schemas WHERE id = {r.body['id']}"),
                         "AVRO")

    def test_extended_profile_register_response(self):
        s = self.sub()
        r = self.register_ok(s, rec(1))
        ext = self.post(f"/subjects/{quote(s)}/versions", {"schema": rec(2)},
                        headers={"Confluent-Accept-Unknown-Properties": "true"})
        body = self.assert_ok(ext)
        self.assertEqual(body["version"], 2)
        self.assertEqual(body["schemaType"], "AVRO")
        self.assertEqual(json.loads(body["schema"]), json.loads(rec(2)))
        self.assertNotEqual(body["id"], r)
        self.assertNotIn("references", body)

    def test_same_content_same_id_across_subjects(self):
        a, b = self.sub("a"), self.sub("b")
        id_a = self.register_ok(a, rec(3))
        id_b = self.register_ok(b, rec(3))
        self.assertEqual(id_a, id_b)
        self.assert_ok(self.versions(b), [1])
        self.assertEqual(self.db.count("schemas", f"id = {id_a}"), 1)
        self.assertEqual(self.db.count("subject_versions", f"schema_id = {id_a}"), 2)

    def test_different_content_different_id(self):
        s = self.sub()
        self.assertNotEqual(self.register_ok(s, rec(1)), self.register_ok(s, rec(2)))

    def test_reregistration_is_idempotent(self):
        s = self.sub()
        first = self.register_ok(s, rec(2))
        before = self.db.state()
        for _ in range(3):
            self.assertEqual(self.register_ok(s, rec(2)), first)
        self.assert_ok(self.versions(s), [1])
        self.assertEqual(self.db.state(), before)

    def test_reregistering_an_older_version_returns_its_id(self):
        s = self.sub()
        id1 = self.register_ok(s, rec(1))
        self.register_ok(s, rec(2))
        self.assertEqual(self.register_ok(s, rec(1)), id1)
        self.assert_ok(self.versions(s), [1, 2])

    def test_whitespace_and_form_do_not_matter(self):
        s = self.sub()
        schema_id = self.register_ok(s, '"string"')
        self.assertEqual(self.register_ok(s, '{"type": "string"}'), schema_id)
        self.assertEqual(self.register_ok(s, ' { "type" :\n"string" } '), schema_id)
        self.assert_ok(self.versions(s), [1])
        # The canonical form is what is stored and returned (docs/api.md).
        self.assertEqual(self.assert_ok(self.version(s, 1))["schema"], '"string"')
        pretty = json.dumps(json.loads(rec(2)), indent=4)
        t = self.sub("t")
        id2 = self.register_ok(t, rec(2))
        self.assertEqual(self.register_ok(t, pretty), id2)

    def test_version_numbers_increase(self):
        s = self.sub()
        ids = [self.register_ok(s, rec(n)) for n in range(1, 5)]
        self.assertEqual(len(set(ids)), 4)
        self.assert_ok(self.versions(s), [1, 2, 3, 4])
        for v, schema_id in enumerate(ids, start=1):
            body = self.assert_ok(self.version(s, v))
            self.assertEqual((body["version"], body["id"]), (v, schema_id))
        self.assertEqual([r[0] for r in self.rows(s)], ["1", "2", "3", "4"])

    def test_explicit_version_must_be_next(self):
        s = self.sub()
        before = self.db.state()
        self.assert_error(self.register(s, rec(1), version=5), 422, 42201)
        self.assert_error(self.register(s, rec(1), version=2), 422, 42201)
        self.assertEqual(self.db.state(), before)
        self.register_ok(s, rec(1), version=1)
        self.assert_error(self.register(s, rec(2), version=3), 422, 42201)
        self.register_ok(s, rec(2), version=2)
        self.assert_ok(self.versions(s), [1, 2])

    def test_version_zero_minus_one_and_null_mean_next(self):
        s = self.sub()
        self.register_ok(s, rec(1), version=0)
        self.register_ok(s, rec(2), version=-1)
        self.register_ok(s, rec(3), version=None)
        self.assert_ok(self.versions(s), [1, 2, 3])

    def test_unknown_body_fields_are_ignored(self):
        s = self.sub()
        r = self.register(s, rec(1), somethingNew={"x": 1}, schemaTagsToAdd=[])
        self.assertEqual(r.status, 200, r)

    def test_null_schema_type_means_avro(self):
        s = self.sub()
        self.register_ok(s, rec(1), schema_type=None)
        r = self.post(f"/subjects/{quote(s)}/versions", {"schema": rec(2), "schemaType": None})
        self.assertEqual(r.status, 200, r)
        self.assertNotIn("schemaType", self.assert_ok(self.version(s, 2)))

    def test_register_json_schema(self):
        s = self.sub()
        schema_id = self.register_ok(s, JSON_SCHEMA, schema_type="JSON")
        body = self.assert_ok(self.version(s, "latest"))
        self.assertEqual(body["schemaType"], "JSON")
        self.assertEqual(body["id"], schema_id)
        self.assertEqual(json.loads(body["schema"]), json.loads(JSON_SCHEMA))
        self.assertEqual(self.db.value(f"SELECT schema_type FROM schemas WHERE id = {schema_id}"),
                         "JSON")

    def test_register_protobuf(self):
        s = self.sub()
        schema_id = self.register_ok(s, PROTO, schema_type="PROTOBUF")
        body = self.assert_ok(self.version(s, "latest"))
        self.assertEqual(body["schemaType"], "PROTOBUF")
        self.assertEqual(body["id"], schema_id)
        self.assertIn("message Ping", body["schema"])
        self.assertEqual(self.register_ok(s, PROTO, schema_type="PROTOBUF"), schema_id)

    def test_same_text_different_type_is_different_schema(self):
        s, t = self.sub("avro"), self.sub("json")
        text = '{"type":"string"}'
        id_avro = self.register_ok(s, text)
        id_json = self.register_ok(t, text, schema_type="JSON")
        self.assertNotEqual(id_avro, id_json)

    def test_empty_schema_without_previous_version_is_42201(self):
        s = self.sub()
        before = self.db.state()
        self.assert_error(self.register(s, ""), 422, 42201)
        self.assert_error(self.post(f"/subjects/{quote(s)}/versions", {}), 422, 42201)
        self.assertEqual(self.db.state(), before)
        self.assertNotIn(s, self.subjects({"deleted": "true"}))

    def test_references_to_missing_version_are_42201(self):
        s = self.sub()
        main = avro_record("Main", [("dep", "com.itest.Dep")])
        refs = [{"name": "com.itest.Dep", "subject": self.sub("missing"), "version": 1}]
        self.assert_error(self.register(s, main, references=refs), 422, 42201)
        self.assert_error(self.register(s, main, references=[{"name": "com.itest.Dep"}]), 422, 42201)

    def test_avro_references(self):
        dep_subject, main_subject = self.sub("dep"), self.sub("main")
        dep = json.dumps({"type": "record", "name": "Dep", "namespace": "com.itest",
                          "fields": [{"name": "x", "type": "int"}]})
        dep_id = self.register_ok(dep_subject, dep)
        refs = [{"name": "com.itest.Dep", "subject": dep_subject, "version": 1}]
        main = avro_record("Main", [("dep", "com.itest.Dep")])
        main_id = self.register_ok(main_subject, main, references=refs)
        self.assertNotEqual(main_id, dep_id)
        body = self.assert_ok(self.version(main_subject, 1))
        self.assertEqual(body["references"], refs)
        self.assert_ok(self.get(f"/subjects/{quote(dep_subject)}/versions/1/referencedby"), [main_id])
        self.assertEqual(self.db.sql("SELECT name, ref_subject, ref_version FROM schema_references "
                                     f"WHERE schema_id = {main_id}"),
                         [("com.itest.Dep", dep_subject, "1")])


class Lookup(harness.RegistryTestCase):

    def test_lookup_returns_the_version(self):
        s = self.sub()
        id1 = self.register_ok(s, rec(1))
        id2 = self.register_ok(s, rec(2))
        r = self.lookup(s, rec(1))
        body = self.assert_ok(r)
        self.assertEqual(set(body), {"subject", "version", "id", "schema"})
        self.assertEqual((body["subject"], body["version"], body["id"]), (s, 1, id1))
        self.assertEqual(json.loads(body["schema"]), json.loads(rec(1)))
        self.assertEqual(self.assert_ok(self.lookup(s, rec(2)))["id"], id2)

    def test_lookup_uses_canonical_form(self):
        s = self.sub()
        self.register_ok(s, '"string"')
        body = self.assert_ok(self.lookup(s, '{"type": "string"}'))
        self.assertEqual(body["schema"], '"string"')
        self.assertEqual(body["version"], 1)

    def test_lookup_does_not_register(self):
        s = self.sub()
        self.register_ok(s, rec(1))
        before = self.db.state()
        self.assert_error(self.lookup(s, rec(5)), 404, 40403)
        self.assertEqual(self.db.state(), before)
        self.assert_ok(self.versions(s), [1])

    def test_lookup_unknown_subject_is_40401(self):
        self.assert_error(self.lookup(self.sub(), rec(1)), 404, 40401)

    def test_lookup_content_of_another_subject_is_40403(self):
        s, t = self.sub("s"), self.sub("t")
        self.register_ok(s, rec(1))
        self.register_ok(t, rec(2))
        self.assert_error(self.lookup(s, rec(2)), 404, 40403)

    def test_lookup_invalid_schema_is_42201(self):
        s = self.sub()
        self.register_ok(s, rec(1))
        self.assert_error(self.lookup(s, '{"type": "record"'), 422, 42201)
        self.assert_error(self.lookup(s, rec(1), schema_type="avro"), 422, 42201)

    def test_lookup_json_schema_reports_type(self):
        s = self.sub()
        schema_id = self.register_ok(s, JSON_SCHEMA, schema_type="JSON")
        body = self.assert_ok(self.lookup(s, JSON_SCHEMA, schema_type="JSON"))
        self.assertEqual(body["schemaType"], "JSON")
        self.assertEqual(body["id"], schema_id)

    def test_lookup_soft_deleted_version(self):
        s = self.sub()
        id1 = self.register_ok(s, rec(1))
        self.register_ok(s, rec(2))
        self.assertEqual(self.assert_ok(self.delete_version(s, 1)), 1)
        self.assert_error(self.lookup(s, rec(1)), 404, 40403)
        self.assert_error(self.lookup(s, rec(1), params={"deleted": "false"}), 404, 40403)
        body = self.assert_ok(self.lookup(s, rec(1), params={"deleted": "true"}))
        self.assertEqual((body["version"], body["id"]), (1, id1))

    def test_lookup_in_soft_deleted_subject(self):
        s = self.sub()
        schema_id = self.register_ok(s, rec(1))
        self.assert_ok(self.delete_subject(s), [1])
        self.assert_error(self.lookup(s, rec(1)), 404, 40401)
        body = self.assert_ok(self.lookup(s, rec(1), params={"deleted": "true"}))
        self.assertEqual((body["subject"], body["version"], body["id"]), (s, 1, schema_id))

    def test_lookup_after_hard_delete_is_40401(self):
        s = self.sub()
        self.register_ok(s, rec(1))
        self.assert_ok(self.delete_subject(s), [1])
        self.assert_ok(self.delete_subject(s, permanent=True), [1])
        self.assert_error(self.lookup(s, rec(1), params={"deleted": "true"}), 404, 40401)

    def test_lookup_without_schema_is_not_found(self):
        """A body without "schema" (or {}, or blank text) looks nothing up:
        Confluent's SubjectsResource.lookUpSchemaUnderSubject gets no match
        (canonicalizeSchema returns null for a missing or blank schema) and
        answers 40401 when the subject has no versions, else 40403; the schema
        type is not even checked."""
        s = self.sub()
        path = f"/subjects/{quote(s)}"
        bodies = ({}, {"schemaType": "AVRO"}, {"schema": None}, {"schema": ""},
                  {"schema": "  \n"}, {"schemaType": "BOGUS"}, {"references": []})
        for body in bodies:
            with self.subTest(body=body, subject="none"):
                self.assert_error(self.post(path, body), 404, 40401)
        self.register_ok(s, rec(1))
        before = self.db.state()
        for body in bodies:
            with self.subTest(body=body, subject="exists"):
                self.assert_error(self.post(path, body), 404, 40403)
                self.assert_error(self.post(path, body, params={"deleted": "true"}), 404, 40403)
        self.assert_ok(self.delete_subject(s), [1])
        self.assert_error(self.post(path, {}), 404, 40401)
        self.assert_error(self.post(path, {}, params={"deleted": "true"}), 404, 40403)
        self.assertEqual(self.db.count("subject_versions"), before["subject_versions"])


if __name__ == "__main__":
    harness.main()
