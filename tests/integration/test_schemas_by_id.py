"""Schemas by id: /schemas/ids/{id}[/schema|/subjects|/versions]
(docs/api.md)."""

import json

import harness
from harness import avro_record, quote


def rec(n, name="ById"):
    return avro_record(name, [(f"f{i}", "string", "") for i in range(n)])


class SchemasById(harness.RegistryTestCase):

    def by_id(self, schema_id, suffix="", params=None):
        return self.get(f"/schemas/ids/{schema_id}{suffix}", params=params)

    def unknown_id(self):
        return int(self.db.value("SELECT coalesce(max(id), 0) FROM schemas")) + 100000

    def test_avro_schema_by_id_classic(self):
        s = self.sub()
        schema_id = self.register_ok(s, rec(2))
        body = self.assert_ok(self.by_id(schema_id))
        self.assertEqual(set(body), {"schema"})
        self.assertEqual(json.loads(body["schema"]), json.loads(rec(2)))

    def test_json_schema_by_id_has_type(self):
        s = self.sub()
        text = json.dumps({"type": "object", "properties": {"n": {"type": "integer"}}})
        schema_id = self.register_ok(s, text, schema_type="JSON")
        body = self.assert_ok(self.by_id(schema_id))
        self.assertEqual(set(body), {"schemaType", "schema"})
        self.assertEqual(body["schemaType"], "JSON")

    def test_raw_schema_by_id(self):
        s = self.sub()
        schema_id = self.register_ok(s, rec(3))
        stored = self.assert_ok(self.by_id(schema_id))["schema"]
        raw = self.by_id(schema_id, "/schema")
        self.assertEqual(raw.status, 200, raw)
        self.assertEqual(raw.text, stored)

    def test_subjects_and_versions_of_an_id(self):
        b, a, c = self.sub("b"), self.sub("a"), self.sub("c")
        self.register_ok(c, rec(1))
        self.register_ok(c, rec(2))
        schema_id = self.register_ok(b, rec(4))
        self.assertEqual(self.register_ok(a, rec(4)), schema_id)
        self.assertEqual(self.register_ok(c, rec(4)), schema_id)   # c: version 3
        self.assert_ok(self.by_id(schema_id, "/subjects"), sorted([a, b, c]))
        expected = sorted([{"subject": a, "version": 1}, {"subject": b, "version": 1},
                           {"subject": c, "version": 3}], key=lambda e: e["subject"])
        self.assert_ok(self.by_id(schema_id, "/versions"), expected)

    def test_non_numeric_id_is_framework_404(self):
        for bad in ("abc", "1.5", "99999999999", "2147483648", "0x10", "-"):
            for suffix in ("", "/schema", "/subjects", "/versions"):
                with self.subTest(id=bad, suffix=suffix):
                    self.assert_error(self.by_id(bad, suffix), 404, 404)

    def test_unknown_id_is_40403(self):
        missing = self.unknown_id()
        for schema_id in (missing, 0, -1, 2147483647):
            for suffix in ("", "/schema", "/subjects", "/versions"):
                with self.subTest(id=schema_id, suffix=suffix):
                    self.assert_error(self.by_id(schema_id, suffix), 404, 40403)

    def test_subject_parameter_falls_back_to_any_subject(self):
        s = self.sub()
        schema_id = self.register_ok(s, rec(5))
        expected = self.assert_ok(self.by_id(schema_id))
        # Deserializers pass the topic's subject even when the writer used another one.
        for params in ({"subject": self.sub("elsewhere")}, {"subject": ""}, {"subject": s},
                       {"fetchMaxId": "false", "subject": self.sub("topic-value")}):
            with self.subTest(params=params):
                self.assert_ok(self.by_id(schema_id, params=params), expected)
        raw = self.by_id(schema_id, "/schema", params={"subject": self.sub("x")})
        self.assertEqual(raw.text, expected["schema"])

    def test_extended_profile_names_the_subject_asked_about(self):
        """docs/api.md: subject/version only when a subject parameter was given and
        it carries the id; guid and ts always; classic clients never see them."""
        s = self.sub()
        self.register_ok(s, avro_record("Ext", [("a", "string")]))
        schema_id = self.register_ok(s, avro_record("Ext", [("a", "string"), ("b", "long", 0)]))
        ext = {"Confluent-Accept-Unknown-Properties": "true"}
        body = self.assert_ok(self.get(f"/schemas/ids/{schema_id}", params={"subject": s}, headers=ext))
        self.assertEqual((body["subject"], body["version"], body["schemaType"]), (s, 2, "AVRO"))
        self.assertIsInstance(body["ts"], int)
        self.assertRegex(body["guid"], r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
        other = self.assert_ok(self.get(f"/schemas/ids/{schema_id}", params={"subject": self.sub("x")},
                                        headers=ext))
        self.assertNotIn("subject", other)
        self.assertNotIn("version", other)
        self.assertEqual(other["guid"], body["guid"])
        by_guid = self.assert_ok(self.get(f"/schemas/guids/{body['guid']}"))
        self.assertEqual(by_guid["schema"], body["schema"])
        ids = self.assert_ok(self.get(f"/schemas/guids/{body['guid']}/ids"))
        self.assertEqual(ids, [{"context": ".", "id": schema_id}])
        self.assert_error(self.get("/schemas/guids/not-a-guid"), 404, 40403)

    def test_extended_profile_says_whether_the_id_is_deleted(self):
        """Confluent's SchemaString (SchemasResource.getSchema) carries the
        `deleted` flag of the version it was read from, after `ts`
        (docs/api.md): false while a live version carries the id, true when
        only soft-deleted ones do; with ?subject= the flag of that subject's
        version. Classic clients never see it."""
        ext = {"Confluent-Accept-Unknown-Properties": "true"}
        a, b = self.sub("a"), self.sub("b")
        schema_id = self.register_ok(a, rec(12))
        self.register_ok(b, rec(12))
        live = self.get(f"/schemas/ids/{schema_id}", headers=ext)
        body = self.assert_ok(live)
        self.assertIs(body["deleted"], False)
        self.assertEqual(list(body)[-2:], ["ts", "deleted"])
        self.assertTrue(live.text.endswith(f',"ts":{body["ts"]},"deleted":false}}'), live.text)
        self.assertNotIn("deleted", self.assert_ok(self.by_id(schema_id)))
        self.assert_ok(self.delete_subject(a), [1])
        self.assertIs(self.assert_ok(self.get(f"/schemas/ids/{schema_id}", headers=ext))["deleted"], False)
        in_a = self.assert_ok(self.get(f"/schemas/ids/{schema_id}", params={"subject": a}, headers=ext))
        self.assertEqual((in_a["subject"], in_a["version"], in_a["deleted"]), (a, 1, True))
        self.assert_ok(self.delete_subject(b), [1])
        self.assertIs(self.assert_ok(self.get(f"/schemas/ids/{schema_id}", headers=ext))["deleted"], True)
        self.assertIs(self.assert_ok(self.get(f"/schemas/ids/{schema_id}", params={"fetchMaxId": "true"},
                                              headers=ext))["deleted"], True)
        self.assertNotIn("deleted", self.assert_ok(self.by_id(schema_id)))
        self.register_ok(b, rec(12))                      # live again, as version 2 of b
        self.assertIs(self.assert_ok(self.get(f"/schemas/ids/{schema_id}", headers=ext))["deleted"], False)

    def test_subject_parameter_does_not_filter_subjects(self):
        a, b = self.sub("a"), self.sub("b")
        schema_id = self.register_ok(a, rec(6))
        self.register_ok(b, rec(6))
        self.assert_ok(self.by_id(schema_id, "/subjects", params={"subject": a}), sorted([a, b]))

    def test_fetch_max_id(self):
        s = self.sub()
        first = self.register_ok(s, rec(7))
        body = self.assert_ok(self.by_id(first, params={"fetchMaxId": "true"}))
        self.assertEqual(set(body), {"schema", "maxId"})
        highest = int(self.db.value("SELECT max(id) FROM schemas"))
        self.assertGreaterEqual(body["maxId"], highest)
        later = self.register_ok(self.sub("later"), rec(8))
        again = self.assert_ok(self.by_id(first, params={"fetchMaxId": "true"}))
        self.assertGreaterEqual(again["maxId"], later)
        self.assertGreaterEqual(again["maxId"], body["maxId"])
        self.assertNotIn("maxId", self.assert_ok(self.by_id(first, params={"fetchMaxId": "false"})))

    def test_soft_deleted_ids_still_resolve(self):
        s = self.sub()
        schema_id = self.register_ok(s, rec(9))
        self.assert_ok(self.delete_subject(s), [1])
        body = self.assert_ok(self.by_id(schema_id))
        self.assertEqual(json.loads(body["schema"]), json.loads(rec(9)))
        self.assertEqual(self.by_id(schema_id, "/schema").status, 200)
        self.assert_ok(self.by_id(schema_id, "/subjects"), [])
        self.assert_ok(self.by_id(schema_id, "/subjects", params={"deleted": "true"}), [s])
        self.assert_ok(self.by_id(schema_id, "/versions"), [])
        self.assert_ok(self.by_id(schema_id, "/versions", params={"deleted": "true"}),
                       [{"subject": s, "version": 1}])

    def test_hard_deleted_id_is_40403(self):
        s = self.sub()
        schema_id = self.register_ok(s, rec(10))
        self.assert_ok(self.delete_subject(s), [1])
        self.assert_ok(self.delete_subject(s, permanent=True), [1])
        for suffix in ("", "/schema", "/subjects", "/versions"):
            with self.subTest(suffix=suffix):
                self.assert_error(self.by_id(schema_id, suffix), 404, 40403)
        self.assert_error(self.by_id(schema_id, params={"subject": s}), 404, 40403)

    def test_hard_delete_in_one_subject_keeps_the_id_alive_elsewhere(self):
        a, b = self.sub("a"), self.sub("b")
        schema_id = self.register_ok(a, rec(11))
        self.register_ok(b, rec(11))
        self.assert_ok(self.delete_subject(a), [1])
        self.assert_ok(self.delete_subject(a, permanent=True), [1])
        self.assert_ok(self.by_id(schema_id))
        self.assert_ok(self.by_id(schema_id, "/subjects"), [b])
        self.assert_ok(self.by_id(schema_id, "/subjects", params={"deleted": "true"}), [b])


if __name__ == "__main__":
    harness.main()
